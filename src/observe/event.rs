//! A stored tool use, read back into what happened: which file was read or changed, which
//! command ran and how it ended, what was searched or fetched. Stored I/O may be cut at the
//! capture cap (then it is no longer valid JSON); the parser takes what it can from the part
//! that is left and never fails.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::store::turns::ToolRow;

/// Where the turn ran: paths are shown relative to the project root.
#[derive(Debug, Clone, Default)]
pub(crate) struct Place {
    pub root: PathBuf,
    pub cwd: PathBuf,
}

impl Place {
    /// `path` relative to the project root (or the cwd); paths outside both stay as they are.
    pub(crate) fn rel(&self, path: &str) -> String {
        let p = Path::new(path);
        for base in [&self.root, &self.cwd] {
            if !base.as_os_str().is_empty()
                && let Ok(rest) = p.strip_prefix(base)
            {
                return if rest.as_os_str().is_empty() {
                    ".".into()
                } else {
                    rest.to_string_lossy().into_owned()
                };
            }
        }
        path.strip_prefix("./").unwrap_or(path).to_string()
    }

    /// An absolute path for reading the file from disk.
    pub(crate) fn abs(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            self.cwd.join(p)
        }
    }
}

/// One file edit (Edit, MultiEdit, Write, NotebookEdit).
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FileEdit {
    /// Relative to the project root.
    pub path: String,
    pub created: bool,
    /// The whole file before and after, when known.
    pub before: Option<String>,
    pub after: Option<String>,
    /// The replaced and the replacing text (Edit/MultiEdit; Write: empty and the content).
    pub old_snippet: String,
    pub new_snippet: String,
    pub added: usize,
    pub removed: usize,
    /// The one removed and the one added line, when the change is exactly that.
    pub line_swap: Option<(String, String)>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Shell {
    pub command: String,
    pub description: Option<String>,
    pub ok: bool,
    pub exit_code: Option<i64>,
    pub interrupted: bool,
    /// stdout and stderr (or the failure text), as stored.
    pub output: String,
    /// Claude Code's reading of a non-zero exit that is not a failure ("No matches found").
    pub interpretation: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Search {
    /// `Grep` or `Glob`.
    pub tool: String,
    pub pattern: String,
    /// The searched path or file glob, when given.
    pub scope: Option<String>,
    /// Files (or lines, in content mode) found.
    pub hits: Option<u64>,
    pub hit_unit: &'static str,
    pub files: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    Read {
        path: String,
        content: Option<String>,
        lines: Option<u64>,
        error: Option<String>,
    },
    Edit(FileEdit),
    Shell(Shell),
    Search(Search),
    Fetch {
        url: String,
        prompt: Option<String>,
        status: Option<String>,
        result: Option<String>,
        error: Option<String>,
    },
    WebSearch {
        query: String,
        results: Option<usize>,
        error: Option<String>,
    },
    Mcp {
        server: String,
        tool: String,
        args: String,
        result: Option<String>,
        error: Option<String>,
    },
    Agent {
        agent_type: Option<String>,
        description: String,
        result: Option<String>,
        error: Option<String>,
    },
    Plan {
        text: String,
    },
    /// To-do tools: turned into work state when they were captured.
    WorkState,
    /// Bookkeeping tools with nothing to remember (polling a background shell, tool search).
    Ignored,
    Other {
        tool: String,
        arg: Option<String>,
        error: Option<String>,
    },
}

/// One parsed tool use; `idx` is its position in the turn's tool list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Event {
    pub idx: usize,
    pub at: i64,
    pub failed: bool,
    pub kind: Kind,
}

pub(crate) const WORK_STATE_TOOLS: &[&str] = &[
    "TodoWrite",
    "TaskCreate",
    "TaskUpdate",
    "TaskList",
    "TaskGet",
];

const IGNORED_TOOLS: &[&str] = &[
    "BashOutput",
    "KillShell",
    "KillBash",
    "TaskOutput",
    "TaskStop",
    "ToolSearch",
    "ListAgents",
    "ScheduleWakeup",
    "ListMcpResourcesTool",
    "AskUserQuestion",
    "Skill",
    "SlashCommand",
    "EnterPlanMode",
];

/// Reads every tool use of a turn.
pub(crate) fn parse_all(tools: &[ToolRow], place: &Place) -> Vec<Event> {
    tools
        .iter()
        .enumerate()
        .map(|(idx, t)| Event {
            idx,
            at: t.created_at,
            failed: t.failed,
            kind: parse(t, place),
        })
        .collect()
}

fn json(text: Option<&str>) -> Option<Value> {
    text.and_then(|t| serde_json::from_str(t).ok())
}

fn s(v: &Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(Value::as_str)
        .filter(|x| !x.is_empty())
        .map(String::from)
}

/// The start of a JSON string field in text that may have been cut (and so is not JSON).
fn string_field_prefix(text: &str, key: &str) -> Option<String> {
    let needle = format!("\"{key}\":\"");
    let start = text.find(&needle)? + needle.len();
    let mut out = String::new();
    let mut chars = text[start..].chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    if let Some(c) = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        out.push(c);
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            c => out.push(c),
        }
    }
    Some(out)
}

fn parse(t: &ToolRow, place: &Place) -> Kind {
    let input = json(t.input.as_deref()).unwrap_or(Value::Null);
    let response = json(t.response.as_deref());
    let raw_response = t.response.as_deref().unwrap_or("");
    let error = t.error.clone().filter(|e| !e.trim().is_empty());
    let name = t.tool_name.as_str();
    if WORK_STATE_TOOLS.contains(&name) {
        return Kind::WorkState;
    }
    if IGNORED_TOOLS.contains(&name) {
        return Kind::Ignored;
    }
    match name {
        "Read" => {
            let path = s(&input, "file_path").unwrap_or_default();
            let file = response.as_ref().and_then(|r| r.get("file"));
            let content = file
                .and_then(|f| s(f, "content"))
                .or_else(|| string_field_prefix(raw_response, "content"));
            let lines = file.and_then(|f| {
                f.get("totalLines")
                    .or_else(|| f.get("numLines"))
                    .and_then(Value::as_u64)
            });
            Kind::Read {
                path: place.rel(&path),
                content,
                lines,
                error,
            }
        }
        "Edit" | "MultiEdit" | "Write" | "NotebookEdit" => {
            Kind::Edit(parse_edit(name, &input, response.as_ref(), place))
        }
        "Bash" => Kind::Shell(parse_shell(t, &input, response.as_ref(), raw_response)),
        "Grep" | "Glob" => Kind::Search(parse_search(name, &input, response.as_ref(), place)),
        "WebFetch" => Kind::Fetch {
            url: s(&input, "url").unwrap_or_default(),
            prompt: s(&input, "prompt"),
            status: response.as_ref().and_then(|r| {
                let code = r.get("code").and_then(Value::as_i64)?;
                Some(match s(r, "codeText") {
                    Some(text) => format!("{code} {text}"),
                    None => code.to_string(),
                })
            }),
            result: response
                .as_ref()
                .and_then(|r| s(r, "result"))
                .or_else(|| string_field_prefix(raw_response, "result")),
            error,
        },
        "WebSearch" => Kind::WebSearch {
            query: s(&input, "query").unwrap_or_default(),
            results: response.as_ref().and_then(web_search_count),
            error,
        },
        "Agent" | "Task" => Kind::Agent {
            agent_type: s(&input, "subagent_type"),
            description: s(&input, "description")
                .or_else(|| s(&input, "prompt"))
                .unwrap_or_default(),
            result: response.as_ref().and_then(agent_result),
            error,
        },
        "ExitPlanMode" => Kind::Plan {
            text: s(&input, "plan").unwrap_or_default(),
        },
        _ if name.starts_with("mcp__") => {
            let rest = &name["mcp__".len()..];
            let (server, tool) = rest.rsplit_once("__").unwrap_or((rest, ""));
            Kind::Mcp {
                server: server.to_string(),
                tool: tool.to_string(),
                args: mcp_args(&input),
                result: response.as_ref().and_then(crate::text::content_text),
                error,
            }
        }
        _ => Kind::Other {
            tool: name.to_string(),
            arg: first_string(&input),
            error,
        },
    }
}

fn parse_edit(name: &str, input: &Value, response: Option<&Value>, place: &Place) -> FileEdit {
    let raw_path = s(input, "file_path")
        .or_else(|| s(input, "notebook_path"))
        .or_else(|| response.and_then(|r| s(r, "filePath")))
        .unwrap_or_default();
    let path = place.rel(&raw_path);
    let original = response.and_then(|r| r.get("originalFile"));
    let original_text = original.and_then(Value::as_str).map(String::from);
    let mut edit = FileEdit {
        path,
        ..FileEdit::default()
    };
    match name {
        "Write" => {
            let content = s(input, "content").unwrap_or_default();
            edit.created = response
                .and_then(|r| s(r, "type"))
                .map_or(original.is_some_and(Value::is_null), |t| t == "create");
            edit.before = original_text;
            edit.after = Some(content.clone());
            edit.new_snippet = content;
        }
        "NotebookEdit" => {
            edit.new_snippet = s(input, "new_source").unwrap_or_default();
        }
        _ => {
            let pairs: Vec<(String, String, bool)> = if name == "MultiEdit" {
                input
                    .get("edits")
                    .and_then(Value::as_array)
                    .map(|edits| edits.iter().map(edit_pair).collect())
                    .unwrap_or_default()
            } else {
                vec![edit_pair(input)]
            };
            edit.old_snippet = pairs
                .iter()
                .map(|p| p.0.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            edit.new_snippet = pairs
                .iter()
                .map(|p| p.1.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let before = original_text.or_else(|| {
                // The stored response was cut: rebuild the old text from the file on disk,
                // which holds the new text now (when no later edit changed it again).
                let now = crate::file_state::read_regular(&place.abs(&raw_path))?;
                unapply(&now, &pairs)
            });
            edit.after = before.as_deref().and_then(|b| apply(b, &pairs));
            edit.before = before;
        }
    }
    let patch = response.and_then(|r| r.get("structuredPatch"));
    let (added, removed) = patch
        .and_then(patch_counts)
        .unwrap_or_else(|| snippet_counts(&edit));
    edit.added = added;
    edit.removed = removed;
    edit.line_swap = patch.and_then(line_swap);
    edit
}

/// `(old, new)` when a patch removes exactly one line and adds exactly one.
fn line_swap(patch: &Value) -> Option<(String, String)> {
    let lines: Vec<&str> = patch
        .as_array()?
        .iter()
        .filter_map(|h| h.get("lines").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let removed: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix('-')).collect();
    let added: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix('+')).collect();
    match (removed.as_slice(), added.as_slice()) {
        ([old], [new]) => Some((old.trim().to_string(), new.trim().to_string())),
        _ => None,
    }
}

fn edit_pair(v: &Value) -> (String, String, bool) {
    (
        s(v, "old_string").unwrap_or_default(),
        s(v, "new_string").unwrap_or_default(),
        v.get("replace_all")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    )
}

/// The file after the edits, or `None` when an old text is not in it.
fn apply(before: &str, pairs: &[(String, String, bool)]) -> Option<String> {
    let steps = pairs
        .iter()
        .map(|(old, new, all)| (old.as_str(), new.as_str(), *all));
    rewrite(before, steps)
}

fn unapply(after: &str, pairs: &[(String, String, bool)]) -> Option<String> {
    let steps = pairs
        .iter()
        .rev()
        .map(|(old, new, all)| (new.as_str(), old.as_str(), *all));
    rewrite(after, steps)
}

/// `text` with each `(from, to, all)` replaced in turn; `None` when one `from` is not there.
fn rewrite<'a>(
    text: &str,
    steps: impl Iterator<Item = (&'a str, &'a str, bool)>,
) -> Option<String> {
    let mut text = text.to_string();
    for (from, to, all) in steps {
        if from.is_empty() || !text.contains(from) {
            return None;
        }
        text = if all {
            text.replace(from, to)
        } else {
            text.replacen(from, to, 1)
        };
    }
    Some(text)
}

/// Added and removed lines of a Claude Code `structuredPatch`.
fn patch_counts(patch: &Value) -> Option<(usize, usize)> {
    let hunks = patch.as_array()?;
    if hunks.is_empty() {
        return None;
    }
    let mut added = 0;
    let mut removed = 0;
    for line in hunks
        .iter()
        .filter_map(|h| h.get("lines").and_then(Value::as_array))
        .flatten()
        .filter_map(Value::as_str)
    {
        if line.starts_with('+') {
            added += 1;
        } else if line.starts_with('-') {
            removed += 1;
        }
    }
    Some((added, removed))
}

/// Line counts from the replaced and replacing text, ignoring lines common to both ends.
fn snippet_counts(edit: &FileEdit) -> (usize, usize) {
    let old: Vec<&str> = if edit.old_snippet.is_empty() {
        Vec::new()
    } else {
        edit.old_snippet.lines().collect()
    };
    let new: Vec<&str> = if edit.new_snippet.is_empty() {
        Vec::new()
    } else {
        edit.new_snippet.lines().collect()
    };
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    (new.len() - prefix - suffix, old.len() - prefix - suffix)
}

fn parse_shell(t: &ToolRow, input: &Value, response: Option<&Value>, raw: &str) -> Shell {
    let command = s(input, "command").unwrap_or_default();
    let description = s(input, "description");
    if t.failed {
        let error = crate::text::without_ansi(t.error.as_deref().unwrap_or_default()).into_owned();
        return Shell {
            command,
            description,
            ok: false,
            exit_code: super::outcome::exit_code(&error),
            interrupted: t.is_interrupt,
            output: error,
            interpretation: None,
        };
    }
    let field = |key: &str| {
        response
            .and_then(|r| s(r, key))
            .or_else(|| string_field_prefix(raw, key))
            .unwrap_or_default()
    };
    let stdout = crate::text::without_ansi(&field("stdout")).into_owned();
    let stderr = crate::text::without_ansi(&field("stderr")).into_owned();
    let output = match (stdout.trim().is_empty(), stderr.trim().is_empty()) {
        (false, false) => format!("{stdout}\n{stderr}"),
        (false, true) => stdout,
        (true, false) => stderr,
        (true, true) => String::new(),
    };
    let interrupted = response
        .and_then(|r| r.get("interrupted"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    // A run reported as a success can still have failed: `cargo test … || true` exits 0, and
    // what it printed is the verdict.
    let exit_code = response
        .and_then(|r| {
            ["exitCode", "exit_code", "returnCode"]
                .iter()
                .find_map(|k| r.get(*k).and_then(Value::as_i64))
        })
        .filter(|&c| c != 0);
    let failed = exit_code.is_some() || super::outcome::output_failed(&command, &output);
    Shell {
        ok: !interrupted && !failed,
        exit_code: exit_code.or_else(|| {
            failed
                .then(|| super::outcome::output_exit_code(&output))
                .flatten()
        }),
        command,
        description,
        interrupted,
        output,
        interpretation: response.and_then(|r| s(r, "returnCodeInterpretation")),
    }
}

fn parse_search(name: &str, input: &Value, response: Option<&Value>, place: &Place) -> Search {
    let pattern = s(input, "pattern").unwrap_or_default();
    let scope = s(input, "glob")
        .or_else(|| s(input, "type").map(|t| format!("*.{t}")))
        .or_else(|| s(input, "path").map(|p| place.rel(&p)))
        .filter(|p| !p.is_empty() && p != ".");
    let files: Vec<String> = response
        .and_then(|r| r.get("filenames"))
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(Value::as_str)
                .map(|p| place.rel(p))
                .collect()
        })
        .unwrap_or_default();
    let mode = response.and_then(|r| s(r, "mode")).unwrap_or_default();
    let number = |key: &str| response.and_then(|r| r.get(key)).and_then(Value::as_u64);
    let (hits, hit_unit) = match mode.as_str() {
        "content" => (number("numLines"), "line"),
        "count" => (number("numMatches").or(number("numLines")), "match"),
        _ => (
            number("numFiles").or((!files.is_empty()).then_some(files.len() as u64)),
            "file",
        ),
    };
    Search {
        tool: name.to_string(),
        pattern,
        scope,
        hits: hits.or(response.map(|_| 0)),
        hit_unit,
        files,
    }
}

fn web_search_count(r: &Value) -> Option<usize> {
    let results = r.get("results")?.as_array()?;
    let nested: usize = results
        .iter()
        .filter_map(|x| x.get("content").and_then(Value::as_array))
        .map(Vec::len)
        .sum();
    Some(if nested > 0 { nested } else { results.len() })
}

fn agent_result(r: &Value) -> Option<String> {
    let text = crate::text::content_text(r)?;
    let cleaned = regex_lite_strip(&text, "tools-used-before-summary");
    Some(cleaned.trim().to_string()).filter(|t| !t.is_empty())
}

/// Removes `<tag>…</tag>` blocks (Claude Code's bookkeeping inside subagent reports).
fn regex_lite_strip(text: &str, tag: &str) -> String {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(&open) {
        out.push_str(&rest[..start]);
        match rest[start..].find(&close) {
            Some(end) => rest = &rest[start + end + close.len()..],
            None => {
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// `key=value` pairs of an MCP call's scalar arguments.
fn mcp_args(input: &Value) -> String {
    let Some(map) = input.as_object() else {
        return String::new();
    };
    map.iter()
        .filter_map(|(k, v)| {
            let text = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => b.to_string(),
                _ => return None,
            };
            Some(format!("{k}={text}"))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn first_string(input: &Value) -> Option<String> {
    input
        .as_object()?
        .values()
        .find_map(|v| v.as_str().filter(|s| !s.trim().is_empty()))
        .map(String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_json_still_yields_the_start_of_a_string_field() {
        let raw = r#"{"stdout":"line one\nerror: bad \"thing\"\nmore"#;
        assert_eq!(
            string_field_prefix(raw, "stdout").unwrap(),
            "line one\nerror: bad \"thing\"\nmore"
        );
    }

    #[test]
    fn edits_apply_and_unapply() {
        let pairs = vec![("30".to_string(), "300".to_string(), false)];
        assert_eq!(apply("a 30 b", &pairs).unwrap(), "a 300 b");
        assert_eq!(unapply("a 300 b", &pairs).unwrap(), "a 30 b");
        assert_eq!(apply("nothing", &pairs), None);
    }

    #[test]
    fn relative_paths() {
        let place = Place {
            root: "/w/repo".into(),
            cwd: "/w/repo/sub".into(),
        };
        assert_eq!(place.rel("/w/repo/src/a.rs"), "src/a.rs");
        assert_eq!(place.rel("./b.rs"), "b.rs");
        assert_eq!(place.rel("/etc/hosts"), "/etc/hosts");
    }

    #[test]
    fn snippet_counts_ignore_shared_lines() {
        let e = FileEdit {
            old_snippet: "fn a() {\n    30\n}".into(),
            new_snippet: "fn a() {\n    300\n    + 1\n}".into(),
            ..FileEdit::default()
        };
        assert_eq!(snippet_counts(&e), (2, 1));
    }
}
