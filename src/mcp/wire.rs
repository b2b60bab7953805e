//! The one place a reply becomes bytes on stdout.
//!
//! Text goes out as stored: characters beyond the Basic Multilingual Plane (`𠮷`, emoji in a
//! saved title) are valid JSON and reach the agent unchanged. serde_json writes them as their
//! UTF-8 bytes, never as a lone surrogate escape, so a reply is always well-formed; the size
//! caps are measured on the very text that is sent.
//!
//! The id is the client's own token and must come back exactly for the client to match the
//! reply. An id recovered from a line that failed the strict parse (a 400-digit number, a lone
//! surrogate) is echoed as the very text sent.

use serde_json::Value;

/// A request id as it goes back to the client.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Id {
    Value(Value),
    /// JSON text taken verbatim from the request (a valid string, number or `null` token).
    Raw(String),
}

impl Id {
    pub(crate) const NULL: Id = Id::Value(Value::Null);
}

/// One answer to one line: the id, and the result or the error object.
#[derive(Debug)]
pub(crate) struct Answer {
    pub id: Id,
    pub outcome: Result<Value, Value>,
}

/// `{"jsonrpc":"2.0","id":…,"result"|"error":…}` and a newline.
pub(crate) fn encode(answer: &Answer) -> String {
    let body = match &answer.outcome {
        Ok(result) => ("result", result),
        Err(error) => ("error", error),
    };
    let mut out = String::from("{\"jsonrpc\":\"2.0\",\"id\":");
    match &answer.id {
        Id::Value(v) => out.push_str(&v.to_string()),
        Id::Raw(text) => out.push_str(text),
    }
    out.push_str(",\"");
    out.push_str(body.0);
    out.push_str("\":");
    out.push_str(&body.1.to_string());
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_ids_beyond_the_bmp_come_back_exactly() {
        let answer = Answer {
            id: Id::Value(json!("run 🚀")),
            outcome: Ok(json!({"content": [{"type": "text", "text": "Saved: 𠮷野家 🚀 ok"}]})),
        };
        let text = encode(&answer);
        assert!(text.contains("Saved: 𠮷野家 🚀 ok"), "{text}");
        assert!(text.ends_with('\n'));
        let v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["id"], json!("run 🚀"));
        assert_eq!(
            v["result"]["content"][0]["text"],
            json!("Saved: 𠮷野家 🚀 ok")
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
