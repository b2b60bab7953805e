//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`): one
//! `{"timestamp","type","payload"}` object a line. Read here: the first `session_meta` (the
//! session and its cwd), `turn_context` (a turn's cwd), the turn events (`task_started`,
//! `task_complete`, `turn_aborted`), the prompt events (`user_message`, or `item_completed` of a
//! `UserMessage` in the paginated files Codex writes since mid-2026: the `role: "user"` messages
//! beside them also carry injected AGENTS.md and environment text), assistant messages, tool
//! calls and their outputs paired by `call_id`, and how a call ended (`item_completed` of a
//! `CommandExecution` or `FileChange`, `patch_apply_end`, else the output's exit code header).
//!
//! Codex's tools become the tools the observer knows: a shell call is `Bash`, each file an
//! `apply_patch` updates is an `Edit` (its old and new text from the patch's hunks), a file it
//! adds a `Write`. A failed call (Codex fires no hook for one) is a failed tool use.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use super::{Event, Kind, Line, Reader};
use crate::codex_patch::{edits as patch_edits, tool_use};

/// A tool call waiting for its output.
struct Call {
    name: String,
    input: Input,
    cwd: Option<String>,
}

enum Input {
    /// A function call's arguments (a JSON object).
    Arguments(Value),
    /// A custom tool's raw text (`apply_patch`'s patch).
    Text(String),
}

/// How a call ended, from the event written before its output.
struct Ended {
    failed: bool,
}

struct Turn {
    prompt_id: String,
    cwd: Option<String>,
    /// The answer: `phase: "final_answer"` wins over commentary.
    last_text: Option<String>,
    final_text: bool,
    at_ms: i64,
}

pub(crate) struct Rollout {
    path: String,
    session_id: Option<String>,
    /// A subagent's or an internal session: its work is in the parent's rollout.
    skip: bool,
    cwd: Option<String>,
    turn_id: Option<String>,
    prompts_in_turn: usize,
    turn: Option<Turn>,
    calls: HashMap<String, Call>,
    ended: HashMap<String, Ended>,
    /// The last usable time this read met (`time::UNKNOWN` before one).
    last_ms: i64,
    /// When the import runs: a line dated much later is not believed.
    now_ms: i64,
}

impl Rollout {
    pub(crate) fn new(path: &std::path::Path, now_ms: i64) -> Rollout {
        Rollout {
            path: path.to_string_lossy().into_owned(),
            session_id: None,
            skip: false,
            cwd: None,
            turn_id: None,
            prompts_in_turn: 0,
            turn: None,
            calls: HashMap::new(),
            ended: HashMap::new(),
            last_ms: super::time::UNKNOWN,
            now_ms,
        }
    }

    fn base(&self, cwd: Option<&str>) -> Option<Map<String, Value>> {
        let mut p = Map::new();
        p.insert("session_id".into(), json!(self.session_id.as_ref()?));
        p.insert("transcript_path".into(), json!(self.path));
        if let Some(cwd) = cwd.or(self.cwd.as_deref()) {
            p.insert("cwd".into(), json!(cwd));
        }
        Some(p)
    }

    fn session_meta(&mut self, payload: &Map<String, Value>) -> Line {
        let Some(id) = payload.get("id").and_then(Value::as_str) else {
            return Line::Unreadable("a Codex session_meta without an id");
        };
        if self.session_id.is_some() {
            // A fork copies its parent's lines after its own header: they are the parent's,
            // and stored under the parent's ids they match what the parent's rollout stored.
            self.session_id = Some(id.to_string());
            return Line::Used;
        }
        self.session_id = Some(id.to_string());
        self.cwd = payload.get("cwd").and_then(Value::as_str).map(String::from);
        if payload.get("source").is_some_and(Value::is_object) {
            self.skip = true;
            return Line::Unreadable("a Codex subagent's rollout (its work is in its parent's)");
        }
        Line::Used
    }

    fn end_turn(&mut self, answer: Option<&str>, events: &mut Vec<Event>) {
        let Some(turn) = self.turn.take() else {
            return;
        };
        let Some(mut p) = self.base(turn.cwd.as_deref()) else {
            return;
        };
        p.insert("prompt_id".into(), json!(turn.prompt_id));
        if let Some(text) = answer.map(String::from).or(turn.last_text) {
            p.insert("last_assistant_message".into(), json!(text));
        }
        events.push(Event {
            kind: Kind::TurnEnd,
            payload: p,
            at_ms: turn.at_ms,
        });
    }

    fn prompt(&mut self, text: &str, turn_id: Option<&str>, at_ms: i64, events: &mut Vec<Event>) {
        let text = text
            .split_once("## My request for Codex:")
            .map_or(text, |(_, rest)| rest)
            .trim();
        if text.is_empty() {
            return;
        }
        self.end_turn(None, events);
        if let Some(id) = turn_id
            && self.turn_id.as_deref() != Some(id)
        {
            self.turn_id = Some(id.to_string());
            self.prompts_in_turn = 0;
        }
        self.prompts_in_turn += 1;
        // Stable across runs, so a second import (and Codex's own hooks, which send the turn
        // id) match what the first stored.
        let prompt_id = match (&self.turn_id, self.prompts_in_turn) {
            (Some(t), 1) => t.clone(),
            (Some(t), n) => format!("{t}#{n}"),
            (None, _) => format!("{}@{at_ms}", self.session_id.as_deref().unwrap_or("")),
        };
        let Some(mut p) = self.base(None) else {
            return;
        };
        p.insert("prompt_id".into(), json!(prompt_id));
        p.insert("prompt".into(), json!(text));
        self.turn = Some(Turn {
            prompt_id,
            cwd: self.cwd.clone(),
            last_text: None,
            final_text: false,
            at_ms,
        });
        events.push(Event {
            kind: Kind::Prompt,
            payload: p,
            at_ms,
        });
    }

    fn event_msg(
        &mut self,
        payload: &Map<String, Value>,
        at_ms: i64,
        events: &mut Vec<Event>,
    ) -> Line {
        let turn_id = payload.get("turn_id").and_then(Value::as_str);
        match payload.get("type").and_then(Value::as_str) {
            Some("task_started" | "turn_started") => {
                self.end_turn(None, events);
                self.turn_id = turn_id.map(String::from);
                self.prompts_in_turn = 0;
            }
            Some("task_complete" | "turn_complete") => {
                let answer = payload.get("last_agent_message").and_then(Value::as_str);
                self.end_turn(answer, events);
            }
            Some("turn_aborted") => self.end_turn(None, events),
            Some("user_message") => {
                // Sep–Oct 2025 files also wrote injected text as user_message of another kind.
                let plain = payload
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_none_or(|k| k == "plain");
                if let (true, Some(text)) = (plain, payload.get("message").and_then(Value::as_str))
                {
                    self.prompt(text, None, at_ms, events);
                }
            }
            Some("item_completed") => {
                let Some(item) = payload.get("item").and_then(Value::as_object) else {
                    return Line::Ignored;
                };
                self.item_completed(item, turn_id, at_ms, events);
            }
            Some("patch_apply_end") => {
                if let Some(id) = payload.get("call_id").and_then(Value::as_str) {
                    let failed = payload.get("success").and_then(Value::as_bool) == Some(false);
                    self.ended.insert(id.to_string(), Ended { failed });
                }
            }
            _ => return Line::Ignored,
        }
        Line::Used
    }

    fn item_completed(
        &mut self,
        item: &Map<String, Value>,
        turn_id: Option<&str>,
        at_ms: i64,
        events: &mut Vec<Event>,
    ) {
        match item.get("type").and_then(Value::as_str) {
            Some("UserMessage") => {
                let text: Vec<&str> = item
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
                    .filter_map(|c| c.get("text").and_then(Value::as_str))
                    .collect();
                let has_image = item
                    .get("content")
                    .and_then(Value::as_array)
                    .is_some_and(|c| {
                        c.iter().any(|x| {
                            matches!(
                                x.get("type").and_then(Value::as_str),
                                Some("image" | "local_image")
                            )
                        })
                    });
                let text = text.join("\n");
                if text.trim().is_empty() && has_image {
                    self.prompt("[media prompt]", turn_id, at_ms, events);
                } else {
                    self.prompt(&text, turn_id, at_ms, events);
                }
            }
            Some("CommandExecution" | "FileChange" | "McpToolCall" | "DynamicToolCall") => {
                if let Some(id) = item.get("id").and_then(Value::as_str) {
                    let failed = matches!(
                        item.get("status").and_then(Value::as_str),
                        Some("failed" | "declined")
                    );
                    self.ended.insert(id.to_string(), Ended { failed });
                }
            }
            _ => {}
        }
    }

    fn response_item(
        &mut self,
        payload: &Map<String, Value>,
        at_ms: i64,
        events: &mut Vec<Event>,
    ) -> Line {
        let call_id = payload
            .get("call_id")
            .and_then(Value::as_str)
            .or_else(|| payload.get("id").and_then(Value::as_str));
        match payload.get("type").and_then(Value::as_str) {
            Some("message") if payload.get("role").and_then(Value::as_str) == Some("assistant") => {
                let text: String = payload
                    .get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|c| c.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n");
                let is_final = payload.get("phase").and_then(Value::as_str) == Some("final_answer");
                if let Some(turn) = self.turn.as_mut()
                    && !text.trim().is_empty()
                    && (is_final || !turn.final_text)
                {
                    turn.last_text = Some(text);
                    turn.final_text |= is_final;
                }
            }
            Some("function_call") => {
                let (Some(id), Some(name)) = (call_id, payload.get("name").and_then(Value::as_str))
                else {
                    return Line::Unreadable("a Codex tool call without a call_id or name");
                };
                let args = payload
                    .get("arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                let input = serde_json::from_str(args).unwrap_or_else(|_| json!({"raw": args}));
                self.call(id, name, Input::Arguments(input));
            }
            Some("custom_tool_call") => {
                let (Some(id), Some(name)) = (call_id, payload.get("name").and_then(Value::as_str))
                else {
                    return Line::Unreadable("a Codex tool call without a call_id or name");
                };
                let text = payload.get("input").and_then(Value::as_str).unwrap_or("");
                self.call(id, name, Input::Text(text.to_string()));
            }
            Some("local_shell_call") => {
                let Some(id) = call_id else {
                    return Line::Unreadable("a Codex tool call without a call_id or name");
                };
                let action = payload.get("action").cloned().unwrap_or(Value::Null);
                self.call(id, "local_shell", Input::Arguments(action));
            }
            Some("function_call_output" | "custom_tool_call_output") => {
                let Some(id) = call_id else {
                    return Line::Ignored;
                };
                let output = payload
                    .get("output")
                    .and_then(crate::text::content_text)
                    .unwrap_or_default();
                self.output(id, &output, at_ms, events);
            }
            _ => return Line::Ignored,
        }
        if let Some(turn) = self.turn.as_mut() {
            turn.at_ms = turn.at_ms.max(at_ms);
        }
        Line::Used
    }

    fn call(&mut self, id: &str, name: &str, input: Input) {
        let cwd = match &input {
            Input::Arguments(a) => a
                .get("workdir")
                .or_else(|| a.get("working_directory"))
                .and_then(Value::as_str)
                .map(String::from),
            Input::Text(_) => None,
        }
        .or_else(|| self.turn.as_ref().and_then(|t| t.cwd.clone()))
        .or_else(|| self.cwd.clone());
        self.calls.insert(
            id.to_string(),
            Call {
                name: name.to_string(),
                input,
                cwd,
            },
        );
    }

    fn output(&mut self, id: &str, output: &str, at_ms: i64, events: &mut Vec<Event>) {
        let Some(call) = self.calls.remove(id) else {
            return;
        };
        let ended = self.ended.remove(id);
        let exit = exit_code(output);
        let failed = ended.map_or_else(
            // No exit code and no end event: an error Codex reported to the model.
            || {
                exit.map_or(!output.trim().is_empty() && is_error_text(output), |c| {
                    c != 0
                })
            },
            |e| e.failed,
        );
        let body = output_body(output);
        let prompt_id = self.turn.as_ref().map(|t| t.prompt_id.clone());
        let uses = tool_uses(&call, id, &body, exit, failed);
        for (n, (tool_use_id, name, input, response)) in uses.into_iter().enumerate() {
            let Some(mut p) = self.base(call.cwd.as_deref()) else {
                return;
            };
            if let Some(pid) = &prompt_id {
                p.insert("prompt_id".into(), json!(pid));
            }
            p.insert("tool_use_id".into(), json!(tool_use_id));
            p.insert("tool_name".into(), json!(name));
            p.insert("tool_input".into(), input);
            let kind = if failed && n == 0 {
                let error = match exit {
                    Some(code) => format!("Exit code {code}\n{body}"),
                    None => body.clone(),
                };
                p.insert("error".into(), json!(error));
                Kind::ToolFailed
            } else {
                p.insert("tool_response".into(), response);
                Kind::ToolDone
            };
            events.push(Event {
                kind,
                payload: p,
                at_ms,
            });
            if failed {
                break;
            }
        }
    }
}

/// The tool uses one call stands for: (tool_use_id, tool name, input, response).
fn tool_uses(
    call: &Call,
    id: &str,
    body: &str,
    exit: Option<i64>,
    failed: bool,
) -> Vec<(String, String, Value, Value)> {
    let shell = |command: String| {
        let mut response = json!({"stdout": body, "stderr": "", "interrupted": false});
        if let Some(code) = exit {
            response["exit_code"] = json!(code);
        }
        vec![(
            id.to_string(),
            "Bash".to_string(),
            json!({ "command": command }),
            response,
        )]
    };
    match (&call.input, call.name.as_str()) {
        (Input::Arguments(a), "exec_command") => shell(str_field(a, "cmd")),
        (Input::Arguments(a), "shell_command") => shell(str_field(a, "command")),
        (Input::Arguments(a), "shell" | "container.exec" | "local_shell") => {
            let argv = a.get("command").and_then(Value::as_array);
            let script = argv
                .and_then(|v| v.last())
                .and_then(Value::as_str)
                .unwrap_or("");
            shell(script.to_string())
        }
        (Input::Text(patch), "apply_patch") if !failed => {
            let edits = patch_edits(patch, call.cwd.as_deref());
            if edits.is_empty() {
                return generic(call, id, body);
            }
            edits
                .into_iter()
                .enumerate()
                .map(|(n, edit)| {
                    let (tool_use_id, name, input, response) = tool_use(id, n, edit);
                    (tool_use_id, name.to_string(), input, response)
                })
                .collect()
        }
        _ => generic(call, id, body),
    }
}

fn generic(call: &Call, id: &str, body: &str) -> Vec<(String, String, Value, Value)> {
    let input = match &call.input {
        Input::Arguments(a) => a.clone(),
        Input::Text(t) => json!({ "command": t }),
    };
    vec![(id.to_string(), call.name.clone(), input, json!(body))]
}

fn str_field(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The exit code an output reports: `Process exited with code N` (unified exec),
/// `Exit code: N` (shell commands, apply_patch), or a JSON `metadata.exit_code` (2025).
fn exit_code(output: &str) -> Option<i64> {
    if output.trim_start().starts_with('{')
        && let Ok(v) = serde_json::from_str::<Value>(output)
    {
        return v.pointer("/metadata/exit_code").and_then(Value::as_i64);
    }
    output.lines().take(8).find_map(|l| {
        l.strip_prefix("Process exited with code ")
            .or_else(|| l.strip_prefix("Exit code: "))
            .and_then(|n| n.trim().parse().ok())
    })
}

/// What a command printed, without the header Codex puts before it.
fn output_body(output: &str) -> String {
    if output.trim_start().starts_with('{')
        && let Ok(v) = serde_json::from_str::<Value>(output)
        && let Some(text) = v.get("output").and_then(Value::as_str)
    {
        return text.to_string();
    }
    match output.split_once("\nOutput:\n") {
        Some((head, body))
            if head.lines().all(|l| {
                [
                    "Chunk ID:",
                    "Wall time:",
                    "Process exited",
                    "Exit code:",
                    "Original token count:",
                    "Total output lines:",
                ]
                .iter()
                .any(|k| l.starts_with(k))
            }) =>
        {
            body.to_string()
        }
        _ => output.to_string(),
    }
}

/// Errors Codex reports to the model instead of an exit code.
fn is_error_text(output: &str) -> bool {
    let t = output.trim_start();
    [
        "apply_patch verification failed",
        "exec_command failed",
        "unsupported call",
        "execution error",
        "exec command rejected",
        "patch rejected",
        "approval policy",
        "aborted by user",
        "Failed to",
        "error:",
    ]
    .iter()
    .any(|p| t.starts_with(p))
        || t.contains("\naborted by user")
}

impl Reader for Rollout {
    fn line(&mut self, bytes: &[u8], events: &mut Vec<Event>) -> Line {
        let Ok(Value::Object(line)) = crate::jsonfix::parse_lenient(bytes, "transcript line")
        else {
            return Line::Unreadable("not a JSON object");
        };
        let at_ms = super::time::line_ms(&line, self.now_ms).unwrap_or(self.last_ms);
        self.last_ms = self.last_ms.max(at_ms);
        let Some(kind) = line.get("type").and_then(Value::as_str) else {
            return Line::Unreadable("a Codex rollout line of the format before September 2025");
        };
        let Some(payload) = line.get("payload").and_then(Value::as_object) else {
            // Before September 2025 lines were bare items (`{"type": "message", …}`).
            return Line::Unreadable("a Codex rollout line of the format before September 2025");
        };
        if kind == "session_meta" {
            return self.session_meta(payload);
        }
        if self.skip {
            return Line::Ignored;
        }
        if self.session_id.is_none() {
            return Line::Unreadable("a Codex rollout line before its session_meta");
        }
        match kind {
            "turn_context" => {
                if let Some(cwd) = payload.get("cwd").and_then(Value::as_str) {
                    self.cwd = Some(cwd.to_string());
                    if let Some(turn) = self.turn.as_mut() {
                        turn.cwd = Some(cwd.to_string());
                    }
                }
                Line::Used
            }
            "event_msg" => self.event_msg(payload, at_ms, events),
            "response_item" => self.response_item(payload, at_ms, events),
            // A compaction's replacement history repeats earlier prompts: never read.
            "compacted"
            | "world_state"
            | "inter_agent_communication"
            | "inter_agent_communication_metadata"
            | "token_usage_record"
            | "dynamic_tools_updated"
            | "realtime_item" => Line::Ignored,
            _ => Line::Unreadable("a Codex line of a type cmem does not know"),
        }
    }

    fn settled(&self) -> bool {
        self.calls.is_empty()
    }

    fn forget_time(&mut self) {
        self.last_ms = super::time::UNKNOWN;
    }

    fn finish(&mut self, events: &mut Vec<Event>) {
        self.end_turn(None, events);
        if self.skip {
            return;
        }
        if let Some(mut p) = self.base(None) {
            p.insert("reason".into(), json!("imported"));
            events.push(Event {
                kind: Kind::SessionEnd,
                payload: p,
                at_ms: self.last_ms,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_bodies_of_every_output_format() {
        let unified = "Chunk ID: 3f5606\nWall time: 0.29 seconds\nProcess exited with code 1\nOriginal token count: 209\nOutput:\nassert 5 == 20\n";
        assert_eq!(exit_code(unified), Some(1));
        assert_eq!(output_body(unified), "assert 5 == 20\n");
        let shell = "Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess.\n";
        assert_eq!(exit_code(shell), Some(0));
        assert_eq!(output_body(shell), "Success.\n");
        let json =
            r#"{"output":"Success. Updated","metadata":{"exit_code":0,"duration_seconds":0.1}}"#;
        assert_eq!(exit_code(json), Some(0));
        assert_eq!(output_body(json), "Success. Updated");
        let refused = "apply_patch verification failed: Failed to read file to update";
        assert_eq!(exit_code(refused), None);
        assert!(is_error_text(refused));
        assert!(!is_error_text("3 passed in 0.12s"));
    }
}
