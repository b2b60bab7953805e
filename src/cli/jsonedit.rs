//! Writing a changed JSON value back into the text it was read from, touching only what
//! changed: every member or element whose value is the same keeps its original bytes (spacing,
//! indentation, line endings, number spelling, escapes), and only added or changed values are
//! printed, in the file's own indentation. A user's compact or tab-indented settings file stays
//! what it was, plus cmem's entries.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::jsonfix::{container_end, string_end};

/// `original` with the value it holds (`before`) changed into `after`; `None` when the text
/// cannot be scanned (then the caller prints the whole value).
pub(crate) fn edit(
    original: &str,
    before: &Value,
    after: &Value,
    indent: Option<&str>,
) -> Option<String> {
    let b = original.as_bytes();
    let start = skip_ws(b, 0);
    let end = value_end(b, start)?;
    let style = match indent {
        Some(indent) => Style::Pretty {
            indent: indent.to_string(),
            newline: if original.contains("\r\n") {
                "\r\n"
            } else {
                "\n"
            },
        },
        None => Style::Inline { spaced: false },
    };
    let mut out = String::with_capacity(original.len() + 256);
    out.push_str(&original[..start]);
    out.push_str(&edit_value(original, start, end, before, after, &style, 0)?);
    out.push_str(&original[end..]);
    Some(out)
}

/// How new values are printed where they go.
#[derive(Clone)]
enum Style {
    /// One item a line, indented with `indent` per level.
    Pretty {
        indent: String,
        newline: &'static str,
    },
    /// All on one line, as the container they go into: `spaced` after `:` and `,` or not.
    Inline { spaced: bool },
}

impl Style {
    /// The style inside the container `text` (a container written on one line keeps new
    /// values on that line, in its spacing).
    fn within(&self, text: &str) -> Style {
        match self {
            Style::Pretty { .. } if !text.contains('\n') => Style::Inline {
                spaced: text.contains(": ") || text.contains(", "),
            },
            other => other.clone(),
        }
    }

    /// `value` printed as the file prints values at nesting `level`.
    fn print(&self, value: &Value, level: usize) -> String {
        let mut buf = Vec::new();
        match self {
            Style::Pretty { indent, newline } => {
                let fmt = serde_json::ser::PrettyFormatter::with_indent(indent.as_bytes());
                let _ = value.serialize(&mut serde_json::Serializer::with_formatter(&mut buf, fmt));
                let text = String::from_utf8(buf).unwrap_or_default();
                text.replace('\n', &format!("{newline}{}", indent.repeat(level)))
            }
            Style::Inline { spaced: false } => value.to_string(),
            Style::Inline { spaced: true } => {
                let _ = value.serialize(&mut serde_json::Serializer::with_formatter(
                    &mut buf, Spaced,
                ));
                String::from_utf8(buf).unwrap_or_default()
            }
        }
    }

    /// Between two items when the container has no pair to copy it from.
    fn separator(&self, text: &str, start: usize, first: &Item) -> String {
        match self {
            Style::Pretty { .. } => format!(",{}", &text[start + 1..first.start]),
            Style::Inline { spaced } => if *spaced { ", " } else { "," }.to_string(),
        }
    }
}

/// One-line JSON with a space after `:` and `,` (`{"a": [1, 2]}`).
struct Spaced;

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

/// One member of an object (`key` set) or element of an array, by byte offsets.
struct Item {
    key: Option<String>,
    /// Where the member (its key) or element starts.
    start: usize,
    value_start: usize,
    value_end: usize,
}

fn edit_value(
    text: &str,
    start: usize,
    end: usize,
    before: &Value,
    after: &Value,
    style: &Style,
    level: usize,
) -> Option<String> {
    if before == after {
        return Some(text[start..end].to_string());
    }
    match (before, after) {
        (Value::Object(old), Value::Object(new)) if !old.is_empty() && !new.is_empty() => {
            edit_object(text, start, end, old, new, style, level)
        }
        (Value::Array(old), Value::Array(new)) if !old.is_empty() && !new.is_empty() => {
            edit_array(text, start, end, old, new, style, level)
        }
        _ => Some(style.print(after, level)),
    }
}

fn edit_object(
    text: &str,
    start: usize,
    end: usize,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    style: &Style,
    level: usize,
) -> Option<String> {
    let style = &style.within(&text[start..end]);
    let items = items(text, start, end)?;
    let first = items.first()?;
    // How the file writes `"key": value` (the spacing around the colon).
    let colon = &text[string_end(text.as_bytes(), first.start)?..first.value_start];
    let mut parts = Vec::new();
    for item in &items {
        let key = item.key.as_deref()?;
        let (Some(was), Some(now)) = (old.get(key), new.get(key)) else {
            continue; // removed
        };
        let value = edit_value(
            text,
            item.value_start,
            item.value_end,
            was,
            now,
            style,
            level + 1,
        )?;
        parts.push(format!("{}{value}", &text[item.start..item.value_start]));
    }
    for (key, value) in new.iter().filter(|(k, _)| !old.contains_key(*k)) {
        let key = serde_json::to_string(key).ok()?;
        parts.push(format!("{key}{colon}{}", style.print(value, level + 1)));
    }
    Some(join(text, start, end, &items, &parts, style))
}

fn edit_array(
    text: &str,
    start: usize,
    end: usize,
    old: &[Value],
    new: &[Value],
    style: &Style,
    level: usize,
) -> Option<String> {
    let style = &style.within(&text[start..end]);
    let items = items(text, start, end)?;
    if items.len() != old.len() {
        return None;
    }
    // Elements are matched in order: an element equal to the next unmatched old one keeps its
    // text; others are printed (an element changed in place is an old one dropped plus a new one).
    let mut parts = Vec::new();
    let mut next_old = 0;
    for value in new {
        match (next_old..old.len()).find(|&j| old[j] == *value) {
            Some(j) => {
                parts.push(text[items[j].start..items[j].value_end].to_string());
                next_old = j + 1;
            }
            None => parts.push(style.print(value, level + 1)),
        }
    }
    Some(join(text, start, end, &items, &parts, style))
}

/// The container's opening (up to its first item), the items joined by the file's own
/// separator, and its closing (from after its last item).
fn join(
    text: &str,
    start: usize,
    end: usize,
    items: &[Item],
    parts: &[String],
    style: &Style,
) -> String {
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return text[start..end].to_string();
    };
    let separator = match items.get(1) {
        Some(second) => text[first.value_end..second.start].to_string(),
        None => style.separator(text, start, first),
    };
    format!(
        "{}{}{}",
        &text[start..first.start],
        parts.join(&separator),
        &text[last.value_end..end]
    )
}

/// The members or elements of the object or array at `start..end`.
fn items(text: &str, start: usize, end: usize) -> Option<Vec<Item>> {
    let b = text.as_bytes();
    let object = b.get(start)? == &b'{';
    let mut out = Vec::new();
    let mut i = skip_ws(b, start + 1);
    while i < end - 1 {
        let item_start = i;
        let key = if object {
            let key_end = string_end(b, i)?;
            let key: String = serde_json::from_str(&text[i..key_end]).ok()?;
            i = skip_ws(b, key_end);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = skip_ws(b, i + 1);
            Some(key)
        } else {
            None
        };
        let value_start = i;
        let value_end = value_end(b, i)?;
        out.push(Item {
            key,
            start: item_start,
            value_start,
            value_end,
        });
        i = skip_ws(b, value_end);
        if b.get(i) == Some(&b',') {
            i = skip_ws(b, i + 1);
        }
    }
    Some(out)
}

fn value_end(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => string_end(b, i),
        b'{' | b'[' => container_end(b, i),
        _ => {
            let n = b[i..]
                .iter()
                .take_while(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n'))
                .count();
            (n > 0).then_some(i + n)
        }
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Adds a hook entry, a new top-level key and an MCP server the way install does.
    fn install(v: &mut Value) {
        v["hooks"]["Stop"]
            .as_array_mut()
            .unwrap()
            .push(json!({"hooks": [{"type": "command", "command": "cmem hook stop"}]}));
        v["mcpServers"] = json!({"cmem": {"command": "cmem", "args": ["mcp"]}});
    }

    fn edited(text: &str, indent: Option<&str>) -> String {
        let before: Value = serde_json::from_str(text).unwrap();
        let mut after = before.clone();
        install(&mut after);
        let out = edit(text, &before, &after, indent).expect("edits");
        assert_eq!(serde_json::from_str::<Value>(&out).unwrap(), after, "{out}");
        out
    }

    #[test]
    fn a_compact_file_stays_compact_and_keeps_its_bytes() {
        let text = r#"{"model":"opus","n":1.50,"hooks":{"Stop":[{"x":"\u00e9"}]},"z":[1, 2]}"#;
        assert_eq!(
            edited(text, None),
            r#"{"model":"opus","n":1.50,"hooks":{"Stop":[{"x":"\u00e9"},{"hooks":[{"type":"command","command":"cmem hook stop"}]}]},"z":[1, 2],"mcpServers":{"cmem":{"command":"cmem","args":["mcp"]}}}"#
        );
    }

    #[test]
    fn an_indented_file_gets_its_own_indentation_and_line_endings() {
        let text = "{\r\n\t\"permissions\": { \"allow\": [\"Read\"] },\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [\r\n\t\t\t{ \"x\": 1 }\r\n\t\t]\r\n\t}\r\n}";
        let out = edited(text, Some("\t"));
        assert!(
            out.starts_with("{\r\n\t\"permissions\": { \"allow\": [\"Read\"] },\r\n\t\"hooks\": {\r\n\t\t\"Stop\": [\r\n\t\t\t{ \"x\": 1 },\r\n\t\t\t{\r\n\t\t\t\t\"hooks\": ["),
            "{out:?}"
        );
        assert!(!out.replace("\r\n", "").contains('\n'), "{out:?}");
        assert!(out.ends_with("\t}\r\n}"), "{out:?}");
    }

    #[test]
    fn removing_keeps_the_rest_and_an_unchanged_value_is_the_same_text() {
        let text = "{ \"a\" : 1 , \"b\" : [ 1 , 2 , 3 ] , \"c\" : 3 }\n";
        let before: Value = serde_json::from_str(text).unwrap();
        assert_eq!(edit(text, &before, &before, None).unwrap(), text);
        let after = json!({"a": 1, "b": [1, 3]});
        assert_eq!(
            edit(text, &before, &after, None).unwrap(),
            "{ \"a\" : 1 , \"b\" : [ 1 , 3 ] }\n"
        );
    }
}
