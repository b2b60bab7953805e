//! Preparing captured text for storage: hash first, then clean, then cap.
//!
//! The content hash is taken over the original JSON (before truncation), the stored text is
//! privacy-cleaned and capped at `max_bytes` with a visible `…[truncated: N bytes]` marker.
//! Strings far larger than the cap are cut before cleaning (so a 100 MB response costs no more
//! than the part that is kept), dropping the last partial word so no half of a secret can slip
//! past the redactor at the cut.

use std::io::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::privacy;

/// Slack kept beyond the cap before cleaning: redactions shorten text, and the kept part must
/// still fill the cap after them.
const PRECUT_SLACK: usize = 4096;
/// The longest run of non-space characters dropped at a pre-cut (a token is shorter).
const MAX_PARTIAL_WORD: usize = 1024;

#[derive(Debug, Clone, PartialEq)]
pub struct Stored {
    pub text: String,
    /// Size of the original serialized value, before cleaning and the cap.
    pub original_bytes: u64,
}

/// Streams a value's JSON into SHA-256 while counting bytes, without building the string.
struct HashCounter<'a> {
    hasher: &'a mut Sha256,
    bytes: u64,
}

impl Write for HashCounter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.hasher.update(buf);
        self.bytes += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Feeds `value`'s JSON into the hasher; returns its byte length.
fn hash_json(hasher: &mut Sha256, value: Option<&Value>) -> u64 {
    let Some(value) = value else { return 0 };
    let mut sink = HashCounter { hasher, bytes: 0 };
    let _ = serde_json::to_writer(&mut sink, value);
    sink.bytes
}

/// Prepared tool input/response plus the content hash of the pair.
pub struct ToolIo {
    pub input: Option<Stored>,
    pub response: Option<Stored>,
    pub content_hash: String,
}

/// 16 hex characters of SHA-256 over `tool_name \0 input \0 response` (reference §1).
pub fn prepare_tool_io(
    tool_name: &str,
    input: Option<Value>,
    response: Option<Value>,
    max_bytes: usize,
) -> ToolIo {
    let mut hasher = Sha256::new();
    hasher.update(tool_name.as_bytes());
    hasher.update([0u8]);
    let input_bytes = hash_json(&mut hasher, input.as_ref());
    hasher.update([0u8]);
    let response_bytes = hash_json(&mut hasher, response.as_ref());
    let digest = hasher.finalize();
    let content_hash: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    ToolIo {
        input: input.map(|v| store_json(v, input_bytes, max_bytes)),
        response: response.map(|v| store_json(v, response_bytes, max_bytes)),
        content_hash,
    }
}

fn store_json(mut value: Value, original_bytes: u64, max_bytes: usize) -> Stored {
    precut_strings(&mut value, max_bytes + PRECUT_SLACK);
    privacy::clean_json(&mut value);
    let text = serde_json::to_string(&value).unwrap_or_default();
    Stored {
        text: cap(text, original_bytes, max_bytes),
        original_bytes,
    }
}

/// Cleans and caps free text (prompts, error texts, assistant messages).
pub fn store_text(text: &str, max_bytes: usize) -> Stored {
    let original_bytes = text.len() as u64;
    let cut = precut(text, max_bytes + PRECUT_SLACK);
    let cleaned = privacy::clean_text(&cut);
    Stored {
        text: cap(cleaned, original_bytes, max_bytes),
        original_bytes,
    }
}

fn precut_strings(value: &mut Value, limit: usize) {
    match value {
        Value::String(s) if s.len() > limit => *s = precut(s, limit),
        Value::Array(items) => items.iter_mut().for_each(|v| precut_strings(v, limit)),
        Value::Object(map) => map.values_mut().for_each(|v| precut_strings(v, limit)),
        _ => {}
    }
}

fn precut(text: &str, limit: usize) -> String {
    if text.len() <= limit {
        return text.to_string();
    }
    let kept = &text[..floor_char_boundary(text, limit)];
    let word_start = kept
        .char_indices()
        .rev()
        .take_while(|(_, c)| !c.is_whitespace())
        .last()
        .map(|(i, _)| i)
        .unwrap_or(kept.len());
    if kept.len() - word_start <= MAX_PARTIAL_WORD {
        kept[..word_start].to_string()
    } else {
        kept.to_string()
    }
}

/// Cuts `text` to at most `max_bytes` including the marker that says how much was dropped.
fn cap(text: String, original_bytes: u64, max_bytes: usize) -> String {
    if text.len() <= max_bytes {
        return text;
    }
    let estimate = format!("…[truncated: {original_bytes} bytes]").len();
    let keep = floor_char_boundary(&text, max_bytes.saturating_sub(estimate));
    let dropped = original_bytes.saturating_sub(keep as u64);
    format!("{}…[truncated: {dropped} bytes]", &text[..keep])
}

fn floor_char_boundary(text: &str, index: usize) -> usize {
    if index >= text.len() {
        return text.len();
    }
    (0..=index)
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn small_values_are_stored_whole_and_hashed() {
        let io = prepare_tool_io(
            "Read",
            Some(json!({"file_path": "/a"})),
            Some(json!("ok")),
            1024,
        );
        assert_eq!(io.input.unwrap().text, r#"{"file_path":"/a"}"#);
        assert_eq!(io.response.unwrap().text, r#""ok""#);
        assert_eq!(io.content_hash.len(), 16);
    }

    #[test]
    fn big_values_are_capped_with_marker_and_hash_sees_everything() {
        let big = "é".repeat(100_000);
        let a = prepare_tool_io("Read", None, Some(json!({"content": big.clone()})), 4096);
        let b = prepare_tool_io(
            "Read",
            None,
            Some(json!({"content": format!("{big}x")})),
            4096,
        );
        let text = a.response.unwrap().text;
        assert!(text.len() <= 4096, "{}", text.len());
        assert!(
            text.contains("…[truncated: "),
            "{}",
            &text[text.len() - 40..]
        );
        assert_ne!(a.content_hash, b.content_hash);
    }

    #[test]
    fn secret_at_the_cut_never_survives_in_part() {
        let filler = "a ".repeat(3000);
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD";
        let text = format!("{filler}{token} tail");
        // Cut the pre-cut right in the middle of the token.
        let limit = filler.len() + 10;
        let cut = precut(&text, limit);
        assert!(!cut.contains("ghp_"), "{}", &cut[cut.len() - 20..]);
    }
}
