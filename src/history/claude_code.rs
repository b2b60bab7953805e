//! Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`): one JSON object a
//! line. What the hooks would have been told is in four kinds of line: a `user` line holding
//! the prompt, `assistant` lines holding `tool_use` and `text` blocks, `user` lines holding
//! `tool_result` blocks (with `toolUseResult`, the hooks' `tool_response`), and the turn's
//! last `text` (the Stop hook's `last_assistant_message`). Everything else — `attachment`,
//! `queue-operation`, `api-request*`, `last-prompt`, `cost-state`, `summary`, … — is
//! bookkeeping.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::{Event, Kind, Line, Reader};

/// Slash commands Claude Code answers itself: no prompt reaches the model, none reaches the
/// UserPromptSubmit hook.
const BUILT_IN_COMMANDS: &[&str] = &[
    "add-dir",
    "agents",
    "bug",
    "clear",
    "compact",
    "config",
    "context",
    "cost",
    "doctor",
    "exit",
    "export",
    "help",
    "hooks",
    "ide",
    "login",
    "logout",
    "mcp",
    "memory",
    "model",
    "permissions",
    "quit",
    "resume",
    "rewind",
    "status",
    "statusline",
    "terminal-setup",
    "usage",
    "vim",
];

/// Line types that are Claude Code's bookkeeping, not anything a hook is told. A type not here
/// and not `user`/`assistant` is counted as unknown (a newer Claude Code may have moved
/// something there).
const BOOKKEEPING: &[&str] = &[
    "agent-name",
    "api-request",
    "api-request-blob",
    "api-request-shape",
    "atis-latch",
    "attachment",
    "cost-state",
    "custom-title",
    "file-history-snapshot",
    "last-prompt",
    "mode",
    "pr-link",
    "progress",
    "queue-operation",
    "summary",
    "system",
    "tag",
    "tools-used",
];

/// Texts Claude Code writes as user messages when the person stops the model.
const INTERRUPTED: &[&str] = &[
    "[Request interrupted by user]",
    "[Request interrupted by user for tool use]",
];

/// A tool call waiting for its result.
struct Pending {
    name: String,
    input: Value,
}

/// Reads one transcript file, line by line, into hook-shaped events.
pub(crate) struct Transcript {
    path: String,
    pending: HashMap<String, Pending>,
    /// The open turn: its session, prompt id, cwd, last answer text and time.
    turn: Option<Turn>,
    /// The last session seen, for the session end.
    session: Option<(String, Option<String>, i64)>,
    /// The last usable time this read met (`time::UNKNOWN` before one).
    last_ms: i64,
    /// When the import runs: a line dated much later is not believed.
    now_ms: i64,
}

struct Turn {
    session_id: String,
    prompt_id: Option<String>,
    cwd: Option<String>,
    last_text: Option<String>,
    at_ms: i64,
}

impl Transcript {
    pub(crate) fn new(path: &std::path::Path, now_ms: i64) -> Transcript {
        Transcript {
            path: path.to_string_lossy().into_owned(),
            pending: HashMap::new(),
            turn: None,
            session: None,
            last_ms: super::time::UNKNOWN,
            now_ms,
        }
    }

    /// The fields every hook payload of this line's session carries.
    fn base(&self, line: &Map<String, Value>, session_id: &str) -> Map<String, Value> {
        let mut p = Map::new();
        p.insert("session_id".into(), json!(session_id));
        p.insert("transcript_path".into(), json!(self.path));
        if let Some(cwd) = line.get("cwd").and_then(Value::as_str) {
            p.insert("cwd".into(), json!(cwd));
        }
        if let Some(pid) = line.get("promptId").and_then(Value::as_str) {
            p.insert("prompt_id".into(), json!(pid));
        }
        p
    }

    fn end_turn(&mut self, events: &mut Vec<Event>) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        let mut p = Map::new();
        p.insert("session_id".into(), json!(turn.session_id));
        p.insert("transcript_path".into(), json!(self.path));
        if let Some(cwd) = turn.cwd {
            p.insert("cwd".into(), json!(cwd));
        }
        if let Some(pid) = turn.prompt_id {
            p.insert("prompt_id".into(), json!(pid));
        }
        if let Some(text) = turn.last_text {
            p.insert("last_assistant_message".into(), json!(text));
        }
        events.push(Event {
            kind: Kind::TurnEnd,
            payload: p,
            at_ms: turn.at_ms,
        });
    }

    fn user(&mut self, line: &Map<String, Value>, at_ms: i64, events: &mut Vec<Event>) -> Line {
        let Some(session_id) = line.get("sessionId").and_then(Value::as_str) else {
            return Line::Unreadable("a user line without a sessionId");
        };
        let content = line.get("message").and_then(|m| m.get("content"));
        let sidechain = line.get("isSidechain").and_then(Value::as_bool) == Some(true);
        let results: Vec<&Map<String, Value>> = match content {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter_map(Value::as_object)
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                .collect(),
            _ => Vec::new(),
        };
        if !results.is_empty() {
            for block in results {
                self.tool_result(line, block, session_id, sidechain, at_ms, events);
            }
            return Line::Used;
        }
        // A subagent's task, the text a compaction left, or a line only the transcript shows:
        // none of them is a prompt the person typed.
        let flagged = ["isMeta", "isCompactSummary", "isVisibleInTranscriptOnly"]
            .iter()
            .any(|k| line.get(*k).and_then(Value::as_bool) == Some(true));
        if sidechain || flagged {
            return Line::Ignored;
        }
        let Some(text) = prompt_text(content) else {
            return Line::Ignored;
        };
        if INTERRUPTED.contains(&text.trim()) {
            return Line::Ignored;
        }
        self.end_turn(events);
        let mut p = self.base(line, session_id);
        p.insert("prompt".into(), json!(text));
        self.turn = Some(Turn {
            session_id: session_id.to_string(),
            prompt_id: p.get("prompt_id").and_then(Value::as_str).map(String::from),
            cwd: p.get("cwd").and_then(Value::as_str).map(String::from),
            last_text: None,
            at_ms,
        });
        events.push(Event {
            kind: Kind::Prompt,
            payload: p,
            at_ms,
        });
        Line::Used
    }

    fn tool_result(
        &mut self,
        line: &Map<String, Value>,
        block: &Map<String, Value>,
        session_id: &str,
        sidechain: bool,
        at_ms: i64,
        events: &mut Vec<Event>,
    ) {
        let Some(id) = block.get("tool_use_id").and_then(Value::as_str) else {
            return;
        };
        // A result whose call this read never saw (its line was before a cut) has no tool name
        // or input to store: it is left out, as the hook would have had nothing to send.
        let Some(call) = self.pending.remove(id) else {
            return;
        };
        let mut p = self.base(line, session_id);
        p.insert("tool_use_id".into(), json!(id));
        p.insert("tool_name".into(), json!(call.name));
        p.insert("tool_input".into(), call.input);
        if sidechain {
            let agent = line
                .get("agentId")
                .and_then(Value::as_str)
                .unwrap_or("subagent");
            p.insert("agent_id".into(), json!(agent));
        }
        let text = block
            .get("content")
            .and_then(crate::text::content_text)
            .unwrap_or_default();
        let failed = block.get("is_error").and_then(Value::as_bool) == Some(true);
        let kind = if failed {
            let interrupted = INTERRUPTED.iter().any(|i| text.trim() == *i);
            p.insert("is_interrupt".into(), json!(interrupted));
            p.insert("error".into(), json!(text));
            Kind::ToolFailed
        } else {
            let response = match line.get("toolUseResult") {
                Some(v) if !v.is_null() => v.clone(),
                _ => json!(text),
            };
            p.insert("tool_response".into(), response);
            Kind::ToolDone
        };
        if let Some(turn) = self.turn.as_mut().filter(|t| t.session_id == session_id) {
            turn.at_ms = turn.at_ms.max(at_ms);
        }
        events.push(Event {
            kind,
            payload: p,
            at_ms,
        });
    }

    fn assistant(&mut self, line: &Map<String, Value>, at_ms: i64) -> Line {
        let Some(Value::Array(blocks)) = line.get("message").and_then(|m| m.get("content")) else {
            return Line::Ignored;
        };
        let sidechain = line.get("isSidechain").and_then(Value::as_bool) == Some(true);
        for block in blocks.iter().filter_map(Value::as_object) {
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let (Some(id), Some(name)) = (
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                    ) else {
                        continue;
                    };
                    let input = block.get("input").cloned().unwrap_or(Value::Null);
                    self.pending.insert(
                        id.to_string(),
                        Pending {
                            name: name.to_string(),
                            input,
                        },
                    );
                }
                Some("text") if !sidechain => {
                    let text = block.get("text").and_then(Value::as_str).unwrap_or("");
                    if let Some(turn) = self.turn.as_mut()
                        && !text.trim().is_empty()
                    {
                        turn.last_text = Some(text.to_string());
                    }
                }
                _ => {}
            }
        }
        if let Some(turn) = self.turn.as_mut().filter(|_| !sidechain) {
            turn.at_ms = turn.at_ms.max(at_ms);
        }
        Line::Used
    }
}

impl Reader for Transcript {
    fn line(&mut self, bytes: &[u8], events: &mut Vec<Event>) -> Line {
        let Ok(Value::Object(line)) = crate::jsonfix::parse_lenient(bytes, "transcript line")
        else {
            return Line::Unreadable("not a JSON object");
        };
        let at_ms = super::time::line_ms(&line, self.now_ms).unwrap_or(self.last_ms);
        self.last_ms = self.last_ms.max(at_ms);
        let read = match line.get("type").and_then(Value::as_str) {
            Some("user") => self.user(&line, at_ms, events),
            Some("assistant") => self.assistant(&line, at_ms),
            Some(t) if BOOKKEEPING.contains(&t) => Line::Ignored,
            Some(_) => Line::Unreadable("a line of a type cmem does not know"),
            None => Line::Unreadable("a line without a type"),
        };
        if let Some(id) = line.get("sessionId").and_then(Value::as_str) {
            let cwd = line.get("cwd").and_then(Value::as_str).map(String::from);
            match &mut self.session {
                Some((sid, c, t)) if sid == id => {
                    if cwd.is_some() {
                        *c = cwd;
                    }
                    *t = (*t).max(at_ms);
                }
                _ => self.session = Some((id.to_string(), cwd, at_ms)),
            }
        }
        read
    }

    fn settled(&self) -> bool {
        self.pending.is_empty()
    }

    fn forget_time(&mut self) {
        self.last_ms = super::time::UNKNOWN;
    }

    fn finish(&mut self, events: &mut Vec<Event>) {
        self.end_turn(events);
        if let Some((sid, cwd, at_ms)) = self.session.take() {
            let mut p = Map::new();
            p.insert("session_id".into(), json!(sid));
            p.insert("transcript_path".into(), json!(self.path));
            if let Some(cwd) = cwd {
                p.insert("cwd".into(), json!(cwd));
            }
            p.insert("reason".into(), json!("imported"));
            events.push(Event {
                kind: Kind::SessionEnd,
                payload: p,
                at_ms,
            });
        }
    }
}

/// The prompt a user line holds: its text (a slash command as `/name args`), `""` for an
/// image-only prompt, `None` when it holds no prompt.
fn prompt_text(content: Option<&Value>) -> Option<String> {
    let text = match content? {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let texts: Vec<&str> = blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect();
            let media = blocks.iter().any(|b| {
                matches!(
                    b.get("type").and_then(Value::as_str),
                    Some("image" | "document")
                )
            });
            if texts.is_empty() && !media {
                return None;
            }
            texts.join("\n")
        }
        _ => return None,
    };
    let t = text.trim_start();
    // What a `!command` or a built-in command printed is shown to the person, never sent.
    if [
        "<local-command-",
        "<bash-input>",
        "<bash-stdout>",
        "<bash-stderr>",
    ]
    .iter()
    .any(|tag| t.starts_with(tag))
    {
        return None;
    }
    if t.starts_with("<command-name>") || t.starts_with("<command-message>") {
        let name = between(t, "<command-name>", "</command-name>")?;
        let name = name.trim().trim_start_matches('/');
        if name.is_empty() || BUILT_IN_COMMANDS.contains(&name) {
            return None;
        }
        let args = between(t, "<command-args>", "</command-args>").unwrap_or("");
        return Some(format!("/{name} {}", args.trim()).trim_end().to_string());
    }
    Some(text)
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(lines: &[Value]) -> Vec<Event> {
        let mut t = Transcript::new(std::path::Path::new("/t/s.jsonl"), i64::MAX);
        let mut events = Vec::new();
        for l in lines {
            t.line(l.to_string().as_bytes(), &mut events);
        }
        t.finish(&mut events);
        events
    }

    fn user(content: Value, extra: Value) -> Value {
        let mut l = json!({"type": "user", "sessionId": "s1", "cwd": "/w", "promptId": "p1",
            "timestamp": "2026-11-01T10:00:00Z", "message": {"role": "user", "content": content}});
        if let (Some(o), Value::Object(e)) = (l.as_object_mut(), extra) {
            o.extend(e);
        }
        l
    }

    fn kinds(events: &[Event]) -> Vec<Kind> {
        events.iter().map(|e| e.kind).collect()
    }

    #[test]
    fn a_turn_becomes_prompt_tool_uses_turn_end_and_session_end() {
        let events = read(&[
            user(json!("fix it"), json!({})),
            json!({"type": "assistant", "sessionId": "s1", "timestamp": "2026-11-01T10:00:01Z",
                "message": {"content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "false"}}]}}),
            user(
                json!([{"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": "Exit code 1"}]),
                json!({"toolUseResult": "Error: Exit code 1"}),
            ),
            json!({"type": "assistant", "sessionId": "s1", "timestamp": "2026-11-01T10:00:03Z",
                "message": {"content": [{"type": "text", "text": "Done."}]}}),
            json!({"type": "last-prompt", "sessionId": "s1"}),
        ]);
        assert_eq!(
            kinds(&events),
            [
                Kind::Prompt,
                Kind::ToolFailed,
                Kind::TurnEnd,
                Kind::SessionEnd
            ]
        );
        assert_eq!(events[0].payload["prompt"], "fix it");
        assert_eq!(events[0].payload["prompt_id"], "p1");
        assert_eq!(events[1].payload["error"], "Exit code 1");
        assert_eq!(events[1].payload["tool_input"]["command"], "false");
        assert_eq!(events[2].payload["last_assistant_message"], "Done.");
        assert_eq!(events[2].at_ms, events[0].at_ms + 3_000);
    }

    #[test]
    fn commands_meta_lines_interruptions_and_subagent_tasks_are_not_prompts() {
        let events = read(&[
            user(
                json!("<command-name>/clear</command-name><command-args></command-args>"),
                json!({}),
            ),
            user(
                json!("<local-command-stdout>ok</local-command-stdout>"),
                json!({}),
            ),
            user(json!("Caveat: …"), json!({"isMeta": true})),
            user(json!("[Request interrupted by user]"), json!({})),
            user(json!("explore the repo"), json!({"isSidechain": true})),
            user(
                json!(
                    "<command-message>review</command-message><command-name>/review</command-name><command-args>src/a.rs</command-args>"
                ),
                json!({}),
            ),
        ]);
        assert_eq!(
            kinds(&events),
            [Kind::Prompt, Kind::TurnEnd, Kind::SessionEnd]
        );
        assert_eq!(events[0].payload["prompt"], "/review src/a.rs");
    }

    #[test]
    fn broken_lines_are_unreadable_not_fatal() {
        let mut t = Transcript::new(std::path::Path::new("/t/s.jsonl"), i64::MAX);
        let mut events = Vec::new();
        assert!(matches!(
            t.line(b"{\"type\":\"us", &mut events),
            Line::Unreadable(_)
        ));
        assert!(matches!(
            t.line(b"{\"sessionId\":\"s\"}", &mut events),
            Line::Unreadable(_)
        ));
        assert!(matches!(
            t.line(b"{\"type\":\"cost-state\"}", &mut events),
            Line::Ignored
        ));
        assert!(matches!(
            t.line(b"{\"type\":\"hologram\"}", &mut events),
            Line::Unreadable("a line of a type cmem does not know")
        ));
        assert!(events.is_empty());
    }
}
