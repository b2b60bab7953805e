//! Layer 4: a tool use's raw input and response, as stored (capped and redacted).
//!
//! Values are shown as an indented key tree; multi-line strings (file contents, diffs,
//! command output) become code blocks the TUI can highlight. Control characters are shown
//! escaped. `Bounds` keep the agent's copy small (claude-mem's: depth 4, 20 keys, 8,000-byte
//! strings); the TUI passes generous bounds and pages.

use serde_json::Value;

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::time::Tz;
use crate::model::ToolUse;
use crate::text::{cut_bytes, escape_controls, one_line};

#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    pub depth: usize,
    pub keys: usize,
    pub string_bytes: usize,
}

impl Bounds {
    pub(crate) const AGENT: Bounds = Bounds {
        depth: 4,
        keys: 20,
        string_bytes: 8_000,
    };
    pub(crate) const HUMAN: Bounds = Bounds {
        depth: 12,
        keys: 500,
        string_bytes: 256 * 1024,
    };
}

/// How a tool use's id is written everywhere (`T266`): never `#266`, the form of observation
/// 266. The TUI's `:` jump and `get_tool_uses` read it back.
pub(crate) fn tool_use_id(id: i64) -> String {
    format!("T{id}")
}

/// A byte count for people: `512 B`, `3.4 KB`, `1.2 MB`.
pub(crate) fn human_bytes(n: i64) -> String {
    match n {
        n if n < 1024 => format!("{n} B"),
        n if n < 1024 * 1024 => format!("{:.1} KB", n as f64 / 1024.0),
        n => format!("{:.1} MB", n as f64 / (1024.0 * 1024.0)),
    }
}

/// A one-line gist of what the call did: the file, the command, the pattern.
pub(crate) fn summary_of_input(t: &ToolUse) -> String {
    let Some(input) = t
        .tool_input
        .as_deref()
        .and_then(|i| serde_json::from_str::<Value>(i).ok())
    else {
        return String::new();
    };
    for key in [
        "file_path",
        "notebook_path",
        "command",
        "pattern",
        "url",
        "query",
        "path",
        "description",
    ] {
        if let Some(v) = input.get(key).and_then(Value::as_str) {
            let v = one_line(v);
            return if v.chars().count() > 80 {
                format!("{}…", v.chars().take(79).collect::<String>())
            } else {
                v
            };
        }
    }
    String::new()
}

fn lang_hint(t: &ToolUse, key: &str) -> Option<String> {
    let input: Value = serde_json::from_str(t.tool_input.as_deref()?).ok()?;
    if key.contains("atch") || key == "diff" {
        return Some("diff".into());
    }
    if t.tool_name == "Bash" && (key == "command") {
        return Some("x.sh".into());
    }
    input
        .get("file_path")
        .or_else(|| input.get("notebook_path"))
        .and_then(Value::as_str)
        .map(String::from)
}

struct Tree<'a> {
    doc: Doc,
    current: Block,
    bounds: Bounds,
    tool: &'a ToolUse,
    truncated: bool,
}

impl Tree<'_> {
    fn flush(&mut self) {
        let done = std::mem::replace(
            &mut self.current,
            Block::new(BlockKind::ToolUse(self.tool.id)),
        );
        if !done.lines.is_empty() {
            self.doc.push(done);
        }
    }

    fn line(&mut self, line: Line) {
        self.current.lines.push(line);
    }

    fn string(&mut self, indent: &str, key: &str, s: &str) {
        let (shown, cut) = cut_bytes(s, self.bounds.string_bytes);
        self.truncated |= cut;
        if !shown.contains('\n') {
            self.line(
                Line::new()
                    .push(format!("{indent}{key}: "), Role::Label)
                    .push(escape_controls(shown), Role::Text)
                    .push(if cut { " …" } else { "" }, Role::Muted),
            );
            return;
        }
        self.line(Line::new().push(format!("{indent}{key}: |"), Role::Label));
        self.flush();
        let mut code = Block::new(BlockKind::Code);
        code.lang_hint = lang_hint(self.tool, key);
        for l in escape_controls(shown).lines() {
            code.lines
                .push(Line::new().push(format!("{indent}  {l}"), Role::Code));
        }
        if cut {
            code.lines
                .push(Line::new().push(format!("{indent}  …"), Role::Muted));
        }
        self.doc.push(code);
    }

    fn value(&mut self, indent: &str, key: &str, v: &Value, depth: usize) {
        match v {
            Value::String(s) => self.string(indent, key, s),
            Value::Object(map) if depth < self.bounds.depth => {
                self.line(Line::new().push(format!("{indent}{key}:"), Role::Label));
                let inner = format!("{indent}  ");
                for (k, v) in map.iter().take(self.bounds.keys) {
                    self.value(&inner, k, v, depth + 1);
                }
                if map.len() > self.bounds.keys {
                    self.truncated = true;
                    self.line(Line::new().push(
                        format!("{inner}… {} more keys", map.len() - self.bounds.keys),
                        Role::Muted,
                    ));
                }
            }
            Value::Array(items) if depth < self.bounds.depth => {
                self.line(Line::new().push(format!("{indent}{key}:"), Role::Label));
                let inner = format!("{indent}  ");
                for (i, v) in items.iter().take(self.bounds.keys).enumerate() {
                    self.value(&inner, &format!("[{i}]"), v, depth + 1);
                }
                if items.len() > self.bounds.keys {
                    self.truncated = true;
                    self.line(Line::new().push(
                        format!("{inner}… {} more items", items.len() - self.bounds.keys),
                        Role::Muted,
                    ));
                }
            }
            other => {
                let text = other.to_string();
                let (shown, cut) = cut_bytes(&text, self.bounds.string_bytes.min(400));
                self.truncated |= cut || matches!(other, Value::Object(_) | Value::Array(_));
                self.line(
                    Line::new()
                        .push(format!("{indent}{key}: "), Role::Label)
                        .push(escape_controls(shown), Role::Number),
                );
            }
        }
    }

    /// A stored field: JSON when it parses, else the text as it is (a capped value is no
    /// longer valid JSON).
    fn field(&mut self, key: &str, stored: Option<&str>) {
        match stored {
            None => self.line(
                Line::new()
                    .push(format!("{key}: "), Role::Label)
                    .push("(none)", Role::Muted),
            ),
            Some(text) => match serde_json::from_str::<Value>(text) {
                Ok(v) => self.value("", key, &v, 0),
                Err(_) => self.string("", key, text),
            },
        }
    }
}

/// The header line of a tool use.
pub(crate) fn header(t: &ToolUse, tz: &Tz) -> Line {
    Line::new()
        .push(format!("Tool use {}", tool_use_id(t.id)), Role::Heading(3))
        .push(
            format!(
                " · {} · {} · {}",
                t.tool_name,
                t.tool_use_id,
                tz.header(t.created_at)
            ),
            Role::Muted,
        )
        .push(
            if t.failed { " · failed" } else { " · ok" },
            if t.failed { Role::Warning } else { Role::Muted },
        )
}

/// One tool use: header, the sizes, input, response (or the error).
pub(crate) fn tool_use(t: &ToolUse, tz: &Tz, bounds: Bounds) -> Doc {
    let mut tree = Tree {
        doc: Doc::default(),
        current: Block::new(BlockKind::ToolUse(t.id)),
        bounds,
        tool: t,
        truncated: false,
    };
    tree.line(header(t, tz));
    let mut meta = vec![
        format!("project {}", t.project),
        format!("input {}", human_bytes(t.input_bytes)),
        format!("response {}", human_bytes(t.response_bytes)),
    ];
    if let Some(o) = t.observation_id {
        meta.push(format!("observation #{o}"));
    }
    if let Some(d) = t.duration_ms {
        meta.push(format!("{d} ms"));
    }
    tree.line(Line::new().push(meta.join(" · "), Role::Muted));
    tree.field("input", t.tool_input.as_deref());
    if t.failed {
        tree.string("", "error", t.error.as_deref().unwrap_or(""));
    } else {
        tree.field("response", t.tool_response.as_deref());
    }
    let truncated = tree.truncated;
    tree.flush();
    if truncated {
        tree.doc
            .push(Block::new(BlockKind::Other).line(Line::new().push(
                "[Some values are shortened here; the stored text is longer.]",
                Role::Muted,
            )));
    }
    tree.doc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(input: &str, response: &str) -> ToolUse {
        ToolUse {
            id: 7,
            tool_use_id: "toolu_1".into(),
            content_session_id: "s".into(),
            project: "p".into(),
            tool_name: "Read".into(),
            tool_input: Some(input.into()),
            tool_response: Some(response.into()),
            input_bytes: 30,
            response_bytes: 4000,
            failed: false,
            error: None,
            cwd: None,
            prompt_number: Some(1),
            observation_id: Some(3),
            duration_ms: Some(5),
            created_at: 0,
        }
    }

    #[test]
    fn renders_a_key_tree_with_code_blocks_and_escapes() {
        let doc = tool_use(
            &t(
                r#"{"file_path":"src/a.rs"}"#,
                r#"{"file":{"content":"fn a() {}\n\u001b[31mred\u0000"}}"#,
            ),
            &Tz::utc(),
            Bounds::AGENT,
        );
        let text = doc.to_plain();
        assert!(text.contains("input:\n  file_path: src/a.rs"), "{text}");
        assert!(
            text.contains("    content: |\n      fn a() {}\n      \\x1b[31mred\\0"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}') && !text.contains('\0'));
        let code = doc
            .blocks
            .iter()
            .find(|b| b.kind == BlockKind::Code)
            .unwrap();
        assert_eq!(code.lang_hint.as_deref(), Some("src/a.rs"));
    }

    #[test]
    fn capped_values_show_as_text_and_bounds_cut() {
        let many: serde_json::Map<String, Value> =
            (0..30).map(|i| (format!("k{i}"), Value::from(i))).collect();
        let doc = tool_use(
            &t(
                &Value::Object(many).to_string(),
                "{\"a\": \"x…[truncated: 99 bytes]",
            ),
            &Tz::utc(),
            Bounds::AGENT,
        );
        let text = doc.to_plain();
        assert!(text.contains("… 10 more keys"), "{text}");
        assert!(
            text.contains("response: {\"a\": \"x…[truncated: 99 bytes]"),
            "{text}"
        );
        assert!(text.contains("[Some values are shortened"), "{text}");
    }
}
