//! Cursor (`cmem hook --host cursor`, hooks in `~/.cursor/hooks.json`): camelCase event names,
//! snake_case payloads keyed by `conversation_id`, the project in `workspace_roots`, a
//! `generation_id` per user message (the prompt's id), `tool_output` as a JSON-encoded string.
//! The turn's text comes with `afterAgentResponse` (`stop` carries none). Answers are flat:
//! `{"additional_context": …}` at session start, `{"continue": true}` to a prompt.

use serde_json::{Map, Value, json};

use super::super::HookEvent;
use super::super::payload::Payload;
use super::{file_input, rename};

pub(super) fn event(name: &str) -> Option<HookEvent> {
    match name {
        "sessionStart" => Some(HookEvent::SessionStart),
        "beforeSubmitPrompt" => Some(HookEvent::UserPromptSubmit),
        "postToolUse" => Some(HookEvent::PostToolUse),
        "postToolUseFailure" => Some(HookEvent::PostToolUseFailure),
        // Every message of the agent, and the end of its loop: only `stop` ends the turn.
        "afterAgentResponse" | "stop" => Some(HookEvent::Stop),
        "sessionEnd" => Some(HookEvent::SessionEnd),
        _ => None,
    }
}

pub(super) fn normalize(event: HookEvent, mut payload: Payload) -> (HookEvent, Vec<Payload>) {
    let p = &mut payload.0;
    rename(p, "conversation_id", "session_id");
    rename(p, "generation_id", "prompt_id");
    // User hooks run in ~/.cursor: the project is the first workspace root.
    if let Some(root) = p
        .get("workspace_roots")
        .and_then(Value::as_array)
        .and_then(|r| r.first())
        .and_then(Value::as_str)
        .map(String::from)
    {
        p.insert("cwd".into(), json!(root));
    }
    let mut event = event;
    match event {
        HookEvent::Stop if p.contains_key("text") => {
            // afterAgentResponse: the agent said something and may go on calling tools.
            rename(p, "text", "last_assistant_message");
            p.insert("turn_continues".into(), json!(true));
        }
        HookEvent::PostToolUseFailure => rename(p, "error_message", "error"),
        HookEvent::PostToolUse => {
            let output = match p.remove("tool_output") {
                Some(Value::String(s)) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
                Some(v) => v,
                None => Value::Null,
            };
            let exit = output.get("exitCode").and_then(Value::as_i64);
            if exit.is_some_and(|c| c != 0) {
                event = HookEvent::PostToolUseFailure;
                let text = ["stdout", "stderr"]
                    .iter()
                    .filter_map(|k| output.get(*k).and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n");
                p.insert(
                    "error".into(),
                    json!(format!("Exit code {}\n{text}", exit.unwrap_or(1))),
                );
            }
            p.insert("tool_response".into(), output);
        }
        _ => {}
    }
    if matches!(
        event,
        HookEvent::PostToolUse | HookEvent::PostToolUseFailure
    ) {
        map_tool(p);
    }
    (event, vec![payload])
}

fn map_tool(p: &mut Map<String, Value>) {
    let cwd = p.get("cwd").and_then(Value::as_str).map(String::from);
    let cwd = cwd.as_deref();
    let input = p.get("tool_input").cloned().unwrap_or(Value::Null);
    let paths = ["file_path", "path", "target_file"];
    let (name, input) = match p.get("tool_name").and_then(Value::as_str).unwrap_or("") {
        "Shell" => (
            "Bash",
            json!({"command": input.get("command").cloned().unwrap_or(Value::Null)}),
        ),
        "Read" => ("Read", file_input(&input, &paths, cwd, &[])),
        "StrReplace" | "Edit" => (
            "Edit",
            file_input(
                &input,
                &paths,
                cwd,
                &[("old_string", "old_string"), ("new_string", "new_string")],
            ),
        ),
        "Write" => (
            "Write",
            file_input(
                &input,
                &paths,
                cwd,
                &[("contents", "content"), ("content", "content")],
            ),
        ),
        _ => return,
    };
    p.insert("tool_name".into(), json!(name));
    p.insert("tool_input".into(), input);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::host::tests::payload;

    #[test]
    fn cursor_payloads_as_claude_code_would_send_them() {
        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(json!({"conversation_id": "c1", "generation_id": "g2",
                "hook_event_name": "postToolUse", "workspace_roots": ["/home/u/proj"],
                "tool_name": "Shell", "tool_input": {"command": "npm test", "working_directory": "/home/u/proj"},
                "tool_output": "{\"exitCode\":1,\"stdout\":\"1 failing\"}", "tool_use_id": "abc"})),
        );
        assert_eq!(e, HookEvent::PostToolUseFailure);
        let p = &out[0].0;
        assert_eq!(p["session_id"], "c1");
        assert_eq!(p["prompt_id"], "g2");
        assert_eq!(p["cwd"], "/home/u/proj");
        assert_eq!(p["tool_name"], "Bash");
        assert_eq!(p["error"], "Exit code 1\n1 failing");

        let (_, out) = normalize(
            HookEvent::PostToolUse,
            payload(json!({"conversation_id": "c1", "workspace_roots": ["/p"],
                "tool_name": "StrReplace", "tool_input": {"path": "src/a.ts", "old_string": "x", "new_string": "y"},
                "tool_output": "{}", "tool_use_id": "e1"})),
        );
        assert_eq!(out[0].0["tool_name"], "Edit");
        assert_eq!(out[0].0["tool_input"]["file_path"], "/p/src/a.ts");

        let (e, out) = normalize(
            HookEvent::Stop,
            payload(json!({"conversation_id": "c1", "text": "Fixed it."})),
        );
        assert_eq!(e, HookEvent::Stop);
        assert_eq!(out[0].str("last_assistant_message"), Some("Fixed it."));
        assert_eq!(event("afterAgentResponse"), Some(HookEvent::Stop));
        assert_eq!(event("stop"), Some(HookEvent::Stop));
        // afterAgentResponse keeps the text; only Cursor's stop ends the turn.
        assert_eq!(out[0].bool("turn_continues"), Some(true));
        let (_, stop) = normalize(
            HookEvent::Stop,
            payload(json!({"conversation_id": "c1", "status": "completed"})),
        );
        assert_eq!(stop[0].bool("turn_continues"), None);
    }
}
