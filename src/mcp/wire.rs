//! The one place a reply becomes bytes on stdout.
//!
//! Every character cmem emits is in the Basic Multilingual Plane, whatever was stored (an emoji
//! in a saved title, say): a host that cuts a string in the middle of a UTF-16 surrogate pair
//! sends an invalid request. Replies go through the same stand-ins as every other face
//! ([`bmp_safe`]: known emoji get their BMP look-alikes, anything else beyond the BMP becomes
//! `•`), rather than U+FFFD, so a title reads the same in a reply as in the session-start
//! index. Each stand-in is one UTF-16 unit and three bytes where the original was two and
//! four: a reply only shrinks, so every budget and the 32 KB cap, measured before, still hold.
//! The memory itself keeps the original characters (export, the TUI).
//!
//! The id is the exception: it is the client's own token and must come back exactly for the
//! client to match the reply, so a character beyond the BMP in it is written as its
//! `\uXXXX\uXXXX` escape pair (ASCII on the wire). An id recovered from a line that failed
//! the strict parse (a 400-digit number, a lone surrogate) is echoed as the very text sent.

use serde_json::Value;

use crate::text::bmp_safe;

/// A request id as it goes back to the client.
#[derive(Debug, Clone, PartialEq)]
pub enum Id {
    Value(Value),
    /// JSON text taken verbatim from the request (a valid string, number or `null` token).
    Raw(String),
}

impl Id {
    pub const NULL: Id = Id::Value(Value::Null);
}

/// One answer to one line: the id, and the result or the error object.
#[derive(Debug)]
pub struct Answer {
    pub id: Id,
    pub outcome: Result<Value, Value>,
}

/// `{"jsonrpc":"2.0","id":…,"result"|"error":…}` and a newline.
pub fn encode(answer: &Answer) -> String {
    let body = match &answer.outcome {
        Ok(result) => ("result", result),
        Err(error) => ("error", error),
    };
    let mut out = String::from("{\"jsonrpc\":\"2.0\",\"id\":");
    match &answer.id {
        Id::Value(v) => escape_beyond_bmp(&mut out, &v.to_string()),
        Id::Raw(text) => escape_beyond_bmp(&mut out, text),
    }
    out.push_str(",\"");
    out.push_str(body.0);
    out.push_str("\":");
    replace_beyond_bmp(&mut out, &body.1.to_string());
    out.push_str("}\n");
    out
}

/// serde_json writes non-ASCII characters unescaped, so a character beyond the BMP in the
/// serialized text can only stand inside a string, and its stand-in (never `"` or `\`)
/// keeps the JSON valid.
fn replace_beyond_bmp(out: &mut String, json: &str) {
    if has_beyond_bmp(json) {
        out.push_str(&bmp_safe(json));
    } else {
        out.push_str(json);
    }
}

fn escape_beyond_bmp(out: &mut String, json: &str) {
    if !has_beyond_bmp(json) {
        out.push_str(json);
        return;
    }
    for c in json.chars() {
        if u32::from(c) > 0xFFFF {
            let mut units = [0u16; 2];
            for unit in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            out.push(c);
        }
    }
}

/// Characters beyond the BMP are exactly the four-byte UTF-8 sequences (lead byte 0xF0–0xF4).
fn has_beyond_bmp(text: &str) -> bool {
    text.bytes().any(|b| b >= 0xF0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn replies_stay_in_the_bmp_and_ids_come_back_exactly() {
        let answer = Answer {
            id: Id::Value(json!("run 🚀")),
            outcome: Ok(json!({"content": [{"type": "text", "text": "Saved: launch 🚀 ok"}]})),
        };
        let text = encode(&answer);
        assert!(text.bytes().all(|b| b < 0xF0), "{text}");
        assert!(text.ends_with('\n'));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["id"], json!("run 🚀"));
        assert_eq!(
            v["result"]["content"][0]["text"],
            json!("Saved: launch • ok")
        );
        assert_eq!(v["jsonrpc"], json!("2.0"));
    }

    #[test]
    fn raw_ids_are_echoed_verbatim() {
        let big = "1".repeat(400);
        let answer = Answer {
            id: Id::Raw(big.clone()),
            outcome: Err(json!({"code": -32700, "message": "Parse error"})),
        };
        assert!(
            encode(&answer).starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{big},\"error\":"))
        );
    }
}
