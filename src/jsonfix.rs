//! Making a JSON text that a strict parser refuses readable, without losing the rest of it.
//!
//! Hosts written in JavaScript send what `JSON.stringify` makes: lone surrogate escapes
//! (`"\ud800"`) from broken UTF-16, numbers past f64's range, and nesting as deep as the data.
//! serde_json refuses all three (the last at 128 levels, to keep its recursion bounded), which
//! would drop a whole hook event for one odd character in a tool's output. `repair` rewrites
//! exactly those parts, in one pass with no recursion, so the strict parser can read the rest:
//! lone surrogates become U+FFFD, out-of-range numbers become strings of their digits, and a
//! value nested deeper than `max_depth` becomes a string that says it was cut.

/// What stands in for a value nested too deep.
pub(crate) const CUT_TOO_DEEP: &str = "[cut: nested too deep]";

/// Longest number token kept as a number (f64 overflows past ~309 digits; ids are far shorter).
const MAX_NUMBER_LEN: usize = 64;

/// The repaired text, or `None` when nothing needed repair (or the text is not JSON-shaped
/// enough to repair: unbalanced strings are left to the strict parser to report).
pub(crate) fn repair(text: &[u8], max_depth: usize) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len());
    let mut changed = false;
    let mut depth = 0usize;
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        match b {
            b'"' => {
                let end = string_end(text, i)?;
                out.extend_from_slice(&text[i..end]);
                i = end;
            }
            b'[' | b'{' if depth >= max_depth => {
                i = container_end(text, i)?;
                out.push(b'"');
                out.extend_from_slice(CUT_TOO_DEEP.as_bytes());
                out.push(b'"');
                changed = true;
            }
            b'[' | b'{' => {
                depth += 1;
                out.push(b);
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                out.push(b);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let end = i + text[i..]
                    .iter()
                    .take_while(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .count();
                let number = &text[i..end];
                if number.len() > MAX_NUMBER_LEN || overflows(number) {
                    out.push(b'"');
                    out.extend_from_slice(number);
                    out.push(b'"');
                    changed = true;
                } else {
                    out.extend_from_slice(number);
                }
                i = end;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    changed |= fix_lone_surrogates(&mut out);
    changed.then_some(out)
}

/// Whether a number token parses to an infinite f64 (serde_json's "number out of range").
fn overflows(number: &[u8]) -> bool {
    std::str::from_utf8(number)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .is_some_and(|f| f.is_infinite())
}

/// The index just past the string that starts at `start` (a `"`), or `None` if it never ends.
pub(crate) fn string_end(text: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// The index just past the array or object that starts at `start`, counted without recursion
/// (brackets are counted, not matched: enough to find where a well-formed value ends), or
/// `None` when the text ends first.
pub(crate) fn container_end(text: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < text.len() {
        match text[i] {
            b'"' => {
                i = string_end(text, i)?;
                continue;
            }
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Replaces every lone surrogate escape inside a string (`\ud800` without its partner) with
/// `\ufffd`, in place: both are six bytes, so offsets into the line stay valid.
/// Returns whether anything changed.
pub(crate) fn fix_lone_surrogates(b: &mut [u8]) -> bool {
    let mut changed = false;
    let mut in_string = false;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if !in_string {
            in_string = c == b'"';
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' if b.get(i + 1) == Some(&b'u') => match hex4(b, i + 2) {
                Some(0xD800..=0xDBFF) => {
                    let paired = b.get(i + 6) == Some(&b'\\')
                        && b.get(i + 7) == Some(&b'u')
                        && matches!(hex4(b, i + 8), Some(0xDC00..=0xDFFF));
                    if paired {
                        i += 12;
                    } else {
                        b[i + 2..i + 6].copy_from_slice(b"fffd");
                        changed = true;
                        i += 6;
                    }
                }
                Some(0xDC00..=0xDFFF) => {
                    b[i + 2..i + 6].copy_from_slice(b"fffd");
                    changed = true;
                    i += 6;
                }
                _ => i += 2,
            },
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    changed
}

/// The value of the four hex digits at `at`.
pub(crate) fn hex4(s: &[u8], at: usize) -> Option<u32> {
    let digits = s.get(at..at + 4)?;
    u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
}

/// How deep a value may nest before `parse_lenient` cuts it (serde_json refuses past 128).
const MAX_DEPTH: usize = 100;

/// Parses JSON strictly, else repaired (lone surrogates, huge numbers, deep nesting: what
/// `JSON.stringify` writes and serde_json refuses), so one odd character in a tool's output
/// does not drop the whole event. Hook payloads and imported transcript lines share it, so an
/// import keeps what the live hook would have kept. `what` names the text in the log and error.
pub(crate) fn parse_lenient(bytes: &[u8], what: &str) -> anyhow::Result<serde_json::Value> {
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(e) => {
            let fixed = repair(bytes, MAX_DEPTH);
            match fixed.map(|f| serde_json::from_slice(&f)) {
                Some(Ok(v)) => {
                    crate::logging::info(format!(
                        "{what} repaired before parsing ({e}): lone surrogates became U+FFFD, huge numbers strings, values deeper than {MAX_DEPTH} levels were cut"
                    ));
                    Ok(v)
                }
                _ => anyhow::bail!("{what} is not valid JSON ({e})"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn fixed(text: &str) -> Value {
        let bytes = repair(text.as_bytes(), 100).expect("repaired");
        serde_json::from_slice(&bytes).expect("parses after repair")
    }

    #[test]
    fn lone_surrogates_become_the_replacement_character() {
        assert_eq!(
            fixed(r#"{"a": "x \ud800 y"}"#),
            json!({"a": "x \u{fffd} y"})
        );
        assert_eq!(fixed(r#"["\udc00\ud83d"]"#), json!(["\u{fffd}\u{fffd}"]));
        // A proper pair stays, and needs no repair on its own.
        assert_eq!(repair(r#"["\ud83d\ude80"]"#.as_bytes(), 100), None);
        assert_eq!(
            fixed(r#"["\ud83d\ude80", "\ud800"]"#),
            json!(["🚀", "\u{fffd}"])
        );
        // An escaped backslash before `u` is not an escape.
        assert_eq!(repair(r#"["\\ud800"]"#.as_bytes(), 100), None);
    }

    #[test]
    fn numbers_out_of_range_become_strings() {
        let big = "9".repeat(400);
        assert_eq!(fixed(&format!(r#"{{"id": {big}}}"#)), json!({"id": big}));
        assert_eq!(fixed(r#"[1e999, 2]"#), json!(["1e999", 2]));
        assert_eq!(repair(b"[1.5e10, -3]", 100), None);
    }

    #[test]
    fn values_nested_too_deep_are_cut_and_the_rest_is_kept() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let text = format!(r#"{{"keep": "me", "deep": {deep}, "after": 1}}"#);
        let v = fixed(&text);
        assert_eq!(v["keep"], "me");
        assert_eq!(v["after"], 1);
        let mut at = &v["deep"];
        let mut levels = 1;
        while let Some(inner) = at.get(0) {
            at = inner;
            levels += 1;
        }
        assert_eq!(at, &json!(CUT_TOO_DEEP));
        assert_eq!(levels, 100);
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        assert_eq!(repair(br#"{"a": "[[[{{{"}"#, 2), None);
        let cut = repair(br#"{"a": ["]", {"b": "}"}]}"#, 2).expect("cut");
        let v: Value = serde_json::from_slice(&cut).unwrap();
        assert_eq!(v, json!({"a": ["]", CUT_TOO_DEEP]}));
    }
}
