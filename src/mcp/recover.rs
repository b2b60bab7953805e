//! What is left of a line that failed the strict JSON parse: the request's id, so the client
//! gets its answer instead of waiting for a time-out, and a repaired text when the only defect
//! is a lone surrogate escape (which JavaScript's `JSON.stringify` writes for broken strings).
//!
//! The lexing pieces (string ends, surrogate repair) are `jsonfix`'s. Both walks are single passes over bytes with a depth counter, never recursion: the input
//! decides how deep it nests (a line may open 100,000 arrays).

use crate::jsonfix::{container_end, hex4, string_end};
use std::ops::Range;

/// Where the value of the top-level `"id"` member sits in `line`, when it is a valid id token
/// (a string, a number of any length, or `null`). The last `"id"` member wins, as in the strict
/// parse. A line cut short (an over-long line's kept prefix) yields the id if it was complete.
pub(crate) fn find_id(line: &str) -> Option<Range<usize>> {
    let b = line.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut found = None;
    loop {
        i = skip_ws(b, i);
        match b.get(i) {
            Some(b',') => i += 1,
            Some(b'"') => {
                let Some(key_end) = string_end(b, i) else {
                    return found;
                };
                let is_id = key_is_id(&line[i..key_end]);
                i = skip_ws(b, key_end);
                if b.get(i) != Some(&b':') {
                    return found;
                }
                let start = skip_ws(b, i + 1);
                let Some(end) = value_end(b, start) else {
                    return found;
                };
                if is_id {
                    found = valid_id_token(&b[start..end]).then_some(start..end);
                }
                i = end;
            }
            // The end of the object, the end of a cut line, or garbage: what we have is it.
            _ => return found,
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

/// The index just past the value that starts at `i`, or `None` if the line ends first (a cut
/// line must not pass off `12` of `12345` as an id).
fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => container_end(b, i),
        _ => {
            let end = i + b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))?;
            (end > i).then_some(end)
        }
    }
}

/// Whether a key (a string token with its quotes) spells `id`, escapes included.
fn key_is_id(token: &str) -> bool {
    if token == "\"id\"" {
        return true;
    }
    token.len() <= 32
        && token.contains('\\')
        && serde_json::from_str::<String>(token).is_ok_and(|k| k == "id")
}

/// A JSON string (well-formed escapes, no raw control characters), a JSON number of any
/// length, or `null`: what may be echoed back as an id exactly as it was sent.
fn valid_id_token(t: &[u8]) -> bool {
    match t.first() {
        Some(b'"') => valid_string(t),
        Some(b'-' | b'0'..=b'9') => valid_number(t),
        _ => t == b"null",
    }
}

fn valid_string(t: &[u8]) -> bool {
    if t.len() < 2 || t[t.len() - 1] != b'"' {
        return false;
    }
    let inner = &t[1..t.len() - 1];
    let mut i = 0;
    while i < inner.len() {
        match inner[i] {
            b'\\' => match inner.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                Some(b'u') if hex4(inner, i + 2).is_some() => i += 6,
                _ => return false,
            },
            b'"' | 0..=0x1f => return false,
            _ => i += 1,
        }
    }
    true
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn valid_number(t: &[u8]) -> bool {
    let digits = |i: usize| {
        t[i.min(t.len())..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count()
    };
    let mut i = usize::from(t.first() == Some(&b'-'));
    match t.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i += digits(i),
        _ => return false,
    }
    if t.get(i) == Some(&b'.') {
        let n = digits(i + 1);
        if n == 0 {
            return false;
        }
        i += 1 + n;
    }
    if matches!(t.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(t.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let n = digits(i);
        if n == 0 {
            return false;
        }
        i += n;
    }
    i == t.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonfix::fix_lone_surrogates;
    use proptest::prelude::*;

    fn id(line: &str) -> Option<&str> {
        find_id(line).map(|r| &line[r])
    }

    #[test]
    fn finds_the_top_level_id() {
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#), Some("7"));
        assert_eq!(id(r#" { "id" : "a\"b" } "#), Some(r#""a\"b""#));
        assert_eq!(id(r#"{"params":{"id":1},"id":2}"#), Some("2"));
        assert_eq!(id(r#"{"params":{"id":1}}"#), None);
        assert_eq!(id(r#"{"\u0069d":3}"#), Some("3"));
        assert_eq!(id(r#"{"id":null,"method":"x"}"#), Some("null"));
        let big = format!(r#"{{"id":{},"method":"ping"}}"#, "9".repeat(400));
        assert_eq!(id(&big), Some("9".repeat(400).as_str()));
        assert_eq!(
            id(r#"{"id":"a \ud800","method":"ping"}"#),
            Some(r#""a \ud800""#)
        );
        // Invalid ids are not echoed.
        assert_eq!(id(r#"{"id":{"nested":true}}"#), None);
        assert_eq!(id(r#"{"id":true}"#), None);
        assert_eq!(id(r#"{"id":"a\x"}"#), None);
        assert_eq!(id(r#"{"id":01}"#), None);
        assert_eq!(id(r#"[{"id":1}]"#), None);
    }

    #[test]
    fn deep_nesting_and_cut_lines() {
        let depth = 100_000;
        let line = format!(
            r#"{{"params":{}{},"id":"deep"}}"#,
            "[".repeat(depth),
            "]".repeat(depth)
        );
        assert_eq!(id(&line), Some(r#""deep""#));
        let cut = format!(r#"{{"id":5,"params":{}"#, "[".repeat(depth));
        assert_eq!(id(&cut), Some("5"));
        // A cut in the middle of the id is no id.
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12345"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":"abc"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":6,"method":"#), Some("6"));
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let mut line = br#"{"a":"x \ud800 \ud83d\ude80 \\ud800 \udc00","\ud800":1}"#.to_vec();
        assert!(fix_lone_surrogates(&mut line));
        assert_eq!(
            String::from_utf8(line).unwrap(),
            r#"{"a":"x \ufffd \ud83d\ude80 \\ud800 \ufffd","\ufffd":1}"#
        );
        let mut fine = br#"{"a":"\ud83d\ude80"}"#.to_vec();
        assert!(!fix_lone_surrogates(&mut fine));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn any_line_is_scanned_without_panic(s in "\\PC{0,200}", cut in 0usize..200) {
            let _ = find_id(&s);
            let mut b = s.clone().into_bytes();
            fix_lone_surrogates(&mut b);
            let cut = s.char_indices().map(|(i, _)| i).find(|&i| i >= cut).unwrap_or(s.len());
            let _ = find_id(&s[..cut]);
        }

        #[test]
        fn agrees_with_serde_on_well_formed_objects(
            id in prop_oneof![
                any::<i64>().prop_map(|n| n.to_string()),
                "\\PC{0,20}".prop_map(|s| serde_json::to_string(&s).unwrap()),
            ],
            before in proptest::collection::vec(("[a-z]{1,5}", any::<i32>()), 0..4),
        ) {
            let mut members: Vec<String> = before
                .iter()
                .map(|(k, v)| format!("{}:{{\"n\":[{v}]}}", serde_json::to_string(k).unwrap()))
                .collect();
            members.push(format!("\"id\":{id}"));
            let line = format!("{{{}}}", members.join(","));
            let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
            let found = find_id(&line).map(|r| serde_json::from_str::<serde_json::Value>(&line[r]).unwrap());
            prop_assert_eq!(found.as_ref(), parsed.get("id"));
        }
    }
}
