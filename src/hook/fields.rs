//! Preparing captured text for storage: hash first, then clean, then cap.
//!
//! The content hash is taken over the original JSON (before truncation), the stored text is
//! privacy-cleaned and capped at `max_bytes` with a visible `…[truncated: N bytes]` marker.
//! Strings far larger than the cap are cut before cleaning (so a 100 MB response costs no more
//! than the part that is kept), and a cut can split a secret the redactor would only recognise
//! whole: so the part before the cut is cleaned twice, alone and with a look-ahead past the cut,
//! and only what both cleanings agree on is kept (a secret at the cut is redacted in the second
//! and so differs). A string that was cut always carries its marker.

use std::io::Write;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::privacy;

/// Slack kept beyond the cap before cleaning: redactions shorten text, and the kept part must
/// still fill the cap after them.
const PRECUT_SLACK: usize = 4096;
/// How far past a cut the second cleaning looks: longer than any secret the redactor knows
/// (a PEM block needs none: an unterminated one is redacted to the end).
const LOOKAHEAD: usize = 8 * 1024;

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stored {
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
pub(crate) struct ToolIo {
    pub input: Option<Stored>,
    pub response: Option<Stored>,
    pub content_hash: String,
}

/// 16 hex characters of SHA-256 over `tool_name \0 input \0 response` (claude-mem's recipe).
pub(crate) fn prepare_tool_io(
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
    ToolIo {
        input: input.map(|v| store_json(v, input_bytes, max_bytes)),
        response: response.map(|v| store_json(v, response_bytes, max_bytes)),
        content_hash: crate::store::content_hash::finish(hasher),
    }
}

fn store_json(mut value: Value, original_bytes: u64, max_bytes: usize) -> Stored {
    let limit = max_bytes + PRECUT_SLACK;
    privacy::clean_json_with(&mut value, &mut |s| {
        let (kept, cut) = clean_cut(s, limit, privacy::clean_value);
        *s = if cut {
            let dropped = s.len().saturating_sub(kept.len());
            marked(&kept, dropped as u64)
        } else {
            kept
        };
    });
    let text = match fit_json(&mut value, max_bytes) {
        Some(fitted) => fitted,
        // Only a value of very many short strings gets here: it is cut as text.
        None => cap(
            serde_json::to_string(&value).unwrap_or_default(),
            original_bytes,
            max_bytes,
            false,
        ),
    };
    Stored {
        text,
        original_bytes,
    }
}

/// `value`'s JSON within `max_bytes`, its longest strings cut (each with its marker) until it
/// fits, so what is stored stays JSON a reader can parse: cut as text, an Edit of a 70 KB file
/// lost the path it names, and the observer titled it `Changed (+0 −0)`. `None` when cutting
/// strings does not make it fit.
fn fit_json(value: &mut Value, max_bytes: usize) -> Option<String> {
    const ROUNDS: usize = 16;
    for _ in 0..ROUNDS {
        let text = serde_json::to_string(value).ok()?;
        if text.len() <= max_bytes {
            return Some(text);
        }
        let excess = text.len() - max_bytes;
        let longest = longest_string(value)?;
        let marker = marked("", longest.len() as u64).len();
        if longest.len() <= marker {
            return None;
        }
        // Each byte of a string takes at least one in its JSON: cutting `excess` bytes and
        // room for the marker makes it fit, or leaves the next longest string to cut.
        let keep = byte_floor(longest, longest.len().saturating_sub(excess + marker));
        let dropped = longest.len() - keep;
        *longest = marked(&longest[..keep], dropped as u64);
    }
    None
}

/// The longest string anywhere in `value`.
fn longest_string(value: &mut Value) -> Option<&mut String> {
    match value {
        Value::String(s) => Some(s),
        Value::Array(items) => items
            .iter_mut()
            .filter_map(longest_string)
            .max_by_key(|s| s.len()),
        Value::Object(map) => map
            .values_mut()
            .filter_map(longest_string)
            .max_by_key(|s| s.len()),
        _ => None,
    }
}

/// Cleans and caps free text (prompts, error texts, assistant messages).
pub(crate) fn store_text(text: &str, max_bytes: usize) -> Stored {
    let original_bytes = text.len() as u64;
    // Terminal colours pasted into a prompt or printed in an error are no words: stored, they
    // reach titles as `[31m` and hide the word boundary a key's redaction looks for.
    let text = &*crate::text::without_ansi(text);
    let (cleaned, cut) = clean_cut(text, max_bytes + PRECUT_SLACK, privacy::clean_text);
    Stored {
        text: cap(cleaned, original_bytes, max_bytes, cut),
        original_bytes,
    }
}

/// `clean(text)` of at most about `limit` bytes of `text`, and whether it was cut. No part of
/// a secret that straddles the cut survives (see the module's note).
fn clean_cut(text: &str, limit: usize, clean: fn(&str) -> String) -> (String, bool) {
    if text.len() <= limit {
        return (clean(text), false);
    }
    let cut = byte_floor(text, limit);
    if privacy::has_lone_private_close(&text[cut..]) {
        // A private region closes in the part dropped: what is kept is cleaned as if its
        // closing tag were there (a lone one hides everything before it).
        return (clean(&format!("{}</private>", &text[..cut])), true);
    }
    let mut kept = clean(&text[..cut]);
    let wider = clean(&text[..byte_floor(text, limit + LOOKAHEAD)]);
    let same = kept
        .bytes()
        .zip(wider.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    kept.truncate(byte_floor(&kept, same));
    (kept, true)
}

/// Cuts `text` to at most `max_bytes` including the marker that says how much was dropped;
/// a text that was already cut (`was_cut`) gets the marker even when it fits.
fn cap(text: String, original_bytes: u64, max_bytes: usize, was_cut: bool) -> String {
    if text.len() <= max_bytes && !was_cut {
        return text;
    }
    let estimate = marked("", original_bytes).len();
    let keep = if text.len() + estimate <= max_bytes {
        text.len()
    } else {
        byte_floor(&text, max_bytes.saturating_sub(estimate))
    };
    let dropped = original_bytes.saturating_sub(keep as u64);
    marked(&text[..keep], dropped)
}

/// `kept` and the marker saying how many bytes were dropped after it.
fn marked(kept: &str, dropped: u64) -> String {
    format!("{kept}…[truncated: {dropped} bytes]")
}

/// The longest prefix of `text` within `index` bytes, as its length.
fn byte_floor(text: &str, index: usize) -> usize {
    crate::text::cut_bytes(text, index).0.len()
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

    /// The path an Edit of a big file names must survive the cap: the observer reads it.
    #[test]
    fn a_capped_input_stays_json_with_its_short_fields_whole() {
        let io = prepare_tool_io(
            "Edit",
            Some(json!({
                "file_path": "/repo/src/big.rs",
                "old_string": "x\n".repeat(30_000),
                "new_string": "y\n".repeat(40_000),
            })),
            None,
            65_536,
        );
        let text = io.input.unwrap().text;
        assert!(text.len() <= 65_536, "{}", text.len());
        let parsed: Value = serde_json::from_str(&text).expect("still JSON");
        assert_eq!(parsed["file_path"], "/repo/src/big.rs");
        let new = parsed["new_string"].as_str().unwrap();
        assert!(new.contains("…[truncated: "), "{}", &new[new.len() - 40..]);
    }

    #[test]
    fn secret_at_the_cut_never_survives_in_part() {
        let token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789ABCD";
        // Whitespace-separated and inside a long run without whitespace, cut at every offset.
        for filler in ["a ".repeat(3000), "x,".repeat(3000)] {
            let text = format!("{filler}{token} tail");
            for at in 1..token.len() {
                let (kept, cut) = clean_cut(&text, filler.len() + at, privacy::clean_text);
                assert!(cut);
                let tail = &kept[kept.len().saturating_sub(60)..];
                assert!(!tail.contains("ghp_"), "cut at {at}: {tail}");
                assert!(!tail.contains(&token[4..12]), "cut at {at}: {tail}");
            }
        }
    }

    #[test]
    fn a_private_region_closed_after_the_cut_hides_what_is_kept() {
        let text = format!("SECRET {} </private> after", "x ".repeat(20_000));
        let (kept, cut) = clean_cut(&text, 5000, privacy::clean_text);
        assert!(cut);
        assert_eq!(kept, "");
        let text = format!(
            "seen <private>SECRET {} </private> after",
            "x ".repeat(20_000)
        );
        assert_eq!(clean_cut(&text, 5000, privacy::clean_text).0, "seen");
        let text = format!("seen {} <private>x</private> after", "x ".repeat(20_000));
        assert!(clean_cut(&text, 5000, privacy::clean_text).0.len() > 4000);
    }

    #[test]
    fn a_cut_text_keeps_its_marker_even_when_cleaning_shrank_it() {
        let text = format!("<private>{}</private> after", "p".repeat(200_000));
        let stored = store_text(&text, 1024);
        assert!(stored.text.contains("…[truncated: "), "{}", stored.text);
        assert!(!stored.text.contains("ppp"), "{}", stored.text);
        let io = prepare_tool_io("Read", None, Some(json!({"content": text})), 1024);
        let response = io.response.unwrap().text;
        assert!(response.contains("…[truncated: "), "{response}");
        let parsed: Value = serde_json::from_str(&response).expect("still JSON");
        assert!(
            parsed["content"]
                .as_str()
                .unwrap()
                .starts_with("…[truncated: ")
        );
        assert!(!response.contains("ppp"), "{response}");
    }
}
