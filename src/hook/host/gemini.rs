//! Gemini CLI (`cmem hook --host gemini`, hooks in `~/.gemini/settings.json`): snake_case
//! payloads like Claude Code's with a `timestamp` and no `tool_use_id`; BeforeAgent is the
//! prompt, AfterTool reports failures too (`tool_response.error`), AfterAgent ends the turn
//! with `prompt_response`. Its own tools: read_file, replace, write_file, run_shell_command.
//! Answers are Claude Code's (`hookSpecificOutput.additionalContext`).

use serde_json::{Map, Value, json};

use super::super::HookEvent;
use super::super::payload::Payload;
use super::{absolute, file_input, synthetic_tool_use_id};

pub(super) fn event(name: &str) -> Option<HookEvent> {
    match name {
        "SessionStart" => Some(HookEvent::SessionStart),
        "BeforeAgent" => Some(HookEvent::UserPromptSubmit),
        "AfterTool" => Some(HookEvent::PostToolUse),
        "AfterAgent" => Some(HookEvent::Stop),
        "SessionEnd" => Some(HookEvent::SessionEnd),
        _ => None,
    }
}

/// In a headless run Gemini puts the session-start context in front of the prompt, wrapped:
/// that is cmem's own memory, not what the person typed.
fn strip_injected(prompt: &str) -> &str {
    let mut rest = prompt.trim_start();
    while let Some(after) = rest.strip_prefix("<hook_context>") {
        match after.find("</hook_context>") {
            Some(end) => rest = after[end + "</hook_context>".len()..].trim_start(),
            None => break,
        }
    }
    rest
}

pub(super) fn normalize(event: HookEvent, mut payload: Payload) -> (HookEvent, Vec<Payload>) {
    let p = &mut payload.0;
    let cwd = p.get("cwd").and_then(Value::as_str).map(String::from);
    let mut event = event;
    match event {
        HookEvent::UserPromptSubmit => {
            if let Some(text) = p.get("prompt").and_then(Value::as_str) {
                let typed = strip_injected(text).to_string();
                p.insert("prompt".into(), json!(typed));
            }
        }
        HookEvent::Stop => {
            if let Some(text) = p.remove("prompt_response") {
                p.insert("last_assistant_message".into(), text);
            }
        }
        HookEvent::PostToolUse => {
            let id = synthetic_tool_use_id("gemini", p);
            p.entry("tool_use_id").or_insert(json!(id));
            let response = p.remove("tool_response").unwrap_or(Value::Null);
            let text = response
                .get("llmContent")
                .map(|c| match c {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                })
                .unwrap_or_default();
            if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
                event = HookEvent::PostToolUseFailure;
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), String::from);
                p.insert("error".into(), json!(message));
            }
            map_tool(p, &text, cwd.as_deref());
        }
        _ => {}
    }
    (event, vec![payload])
}

fn map_tool(p: &mut Map<String, Value>, text: &str, cwd: Option<&str>) {
    let input = p.get("tool_input").cloned().unwrap_or(Value::Null);
    let name = p.get("tool_name").and_then(Value::as_str).unwrap_or("");
    let (claude, input, response) = match name {
        "read_file" => {
            let input = file_input(&input, &["file_path", "absolute_path", "path"], cwd, &[]);
            let response =
                json!({"type": "text", "file": {"filePath": input["file_path"], "content": text}});
            ("Read", input, response)
        }
        "replace" => (
            "Edit",
            file_input(
                &input,
                &["file_path", "absolute_path"],
                cwd,
                &[("old_string", "old_string"), ("new_string", "new_string")],
            ),
            json!(text),
        ),
        "write_file" => (
            "Write",
            file_input(
                &input,
                &["file_path", "absolute_path"],
                cwd,
                &[("content", "content")],
            ),
            json!(text),
        ),
        "run_shell_command" => {
            let command = input.get("command").and_then(Value::as_str).unwrap_or("");
            let dir = input
                .get("dir_path")
                .and_then(Value::as_str)
                .map(|d| absolute(d, cwd));
            let command = match dir {
                Some(d) => format!("cd {d} && {command}"),
                None => command.to_string(),
            };
            (
                "Bash",
                json!({ "command": command }),
                json!({ "stdout": text, "stderr": "" }),
            )
        }
        _ => return,
    };
    p.insert("tool_name".into(), json!(claude));
    p.insert("tool_input".into(), input);
    if !p.contains_key("error") {
        p.insert("tool_response".into(), response);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::host::tests::payload;

    #[test]
    fn gemini_payloads_as_claude_code_would_send_them() {
        let (e, out) = normalize(
            HookEvent::UserPromptSubmit,
            payload(
                json!({"session_id": "g", "cwd": "/w", "hook_event_name": "BeforeAgent",
                "prompt": "<hook_context>&lt;memory&gt;</hook_context>\n\nread a.txt"}),
            ),
        );
        assert_eq!(e, HookEvent::UserPromptSubmit);
        assert_eq!(out[0].str("prompt"), Some("read a.txt"));

        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(json!({"session_id": "g", "cwd": "/w", "timestamp": "t",
                "tool_name": "read_file", "tool_input": {"file_path": "a.txt"},
                "tool_response": {"llmContent": "hello\n", "returnDisplay": ""}})),
        );
        assert_eq!(e, HookEvent::PostToolUse);
        let p = &out[0].0;
        assert_eq!(p["tool_name"], "Read");
        assert_eq!(p["tool_input"]["file_path"], "/w/a.txt");
        assert_eq!(p["tool_response"]["file"]["content"], "hello\n");
        assert!(p["tool_use_id"].as_str().unwrap().starts_with("gemini-"));

        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(
                json!({"session_id": "g", "cwd": "/w", "tool_name": "run_shell_command",
                "tool_input": {"command": "cargo test"},
                "tool_response": {"llmContent": "", "error": {"type": "x", "message": "exit 101"}}}),
            ),
        );
        assert_eq!(e, HookEvent::PostToolUseFailure);
        assert_eq!(out[0].str("error"), Some("exit 101"));
        assert_eq!(out[0].0["tool_name"], "Bash");

        let (e, out) = normalize(
            HookEvent::Stop,
            payload(json!({"session_id": "g", "prompt_response": "Done."})),
        );
        assert_eq!(e, HookEvent::Stop);
        assert_eq!(out[0].str("last_assistant_message"), Some("Done."));
        assert_eq!(event("AfterAgent"), Some(HookEvent::Stop));
    }
}
