//! GitHub Copilot CLI (`cmem hook --host copilot`, hooks in `~/.copilot/hooks/*.json`): with
//! camelCase event names the payload is camelCase (`sessionId`, `toolName`, `toolArgs` as a
//! JSON-encoded string, `toolResult.textResultForLlm`), with PascalCase ones snake_case; no
//! tool-use id; agentStop carries no answer text. The answer is a flat `additionalContext`.

use serde_json::{Map, Value, json};

use super::super::HookEvent;
use super::super::payload::Payload;
use super::{file_input, rename, synthetic_tool_use_id};

pub(super) fn event(name: &str) -> Option<HookEvent> {
    match name {
        "sessionStart" => Some(HookEvent::SessionStart),
        "userPromptSubmitted" => Some(HookEvent::UserPromptSubmit),
        "postToolUse" => Some(HookEvent::PostToolUse),
        "postToolUseFailure" => Some(HookEvent::PostToolUseFailure),
        "agentStop" => Some(HookEvent::Stop),
        "sessionEnd" => Some(HookEvent::SessionEnd),
        _ => None,
    }
}

pub(super) fn normalize(mut event: HookEvent, mut payload: Payload) -> (HookEvent, Vec<Payload>) {
    let p = &mut payload.0;
    for (camel, snake) in [
        ("sessionId", "session_id"),
        ("toolName", "tool_name"),
        ("transcriptPath", "transcript_path"),
        ("toolResult", "tool_result"),
    ] {
        rename(p, camel, snake);
    }
    if let Some(timestamp) = p.get("timestamp").filter(|t| t.is_number()).cloned() {
        p.insert("timestamp".into(), json!(timestamp.to_string()));
    }
    // toolArgs arrives as a JSON-encoded string.
    if !p.contains_key("tool_input")
        && let Some(args) = p.remove("toolArgs")
    {
        let args = match args {
            Value::String(s) => serde_json::from_str(&s).unwrap_or(Value::String(s)),
            other => other,
        };
        p.insert("tool_input".into(), args);
    }
    if matches!(
        event,
        HookEvent::PostToolUse | HookEvent::PostToolUseFailure
    ) {
        let id = synthetic_tool_use_id("copilot", p);
        p.entry("tool_use_id").or_insert(json!(id));
        if let Some(result) = p.remove("tool_result") {
            let text = ["textResultForLlm", "text_result_for_llm"]
                .iter()
                .find_map(|k| result.get(*k).and_then(Value::as_str))
                .unwrap_or("")
                .to_string();
            // A call the user denied or that failed is no outcome: an edit refused must never
            // be remembered as made.
            let kind = ["resultType", "result_type"]
                .iter()
                .find_map(|k| result.get(*k).and_then(Value::as_str));
            match kind {
                Some("failure") => {
                    event = HookEvent::PostToolUseFailure;
                    p.insert("error".into(), json!(text));
                }
                Some("denied") => {
                    event = HookEvent::PostToolUseFailure;
                    p.insert("error".into(), json!(format!("denied by the user: {text}")));
                    p.insert("is_interrupt".into(), json!(true));
                }
                _ => {}
            }
            p.insert("tool_response".into(), json!(text));
        }
        map_tool(p);
    }
    (event, vec![payload])
}

fn map_tool(p: &mut Map<String, Value>) {
    let cwd = p.get("cwd").and_then(Value::as_str).map(String::from);
    let cwd = cwd.as_deref();
    let input = p.get("tool_input").cloned().unwrap_or(Value::Null);
    let text = p
        .get("tool_response")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let (name, input, response) = match p.get("tool_name").and_then(Value::as_str).unwrap_or("") {
        "bash" | "powershell" => (
            "Bash",
            json!({"command": input.get("command").cloned().unwrap_or(Value::Null)}),
            json!({"stdout": text, "stderr": ""}),
        ),
        "view" => {
            let input = file_input(&input, &["path"], cwd, &[]);
            let response =
                json!({"type": "text", "file": {"filePath": input["file_path"], "content": text}});
            ("Read", input, response)
        }
        "edit" => (
            "Edit",
            file_input(
                &input,
                &["path"],
                cwd,
                &[("old_str", "old_string"), ("new_str", "new_string")],
            ),
            json!(text),
        ),
        "create" => (
            "Write",
            file_input(&input, &["path"], cwd, &[("file_text", "content")]),
            json!(text),
        ),
        _ => return,
    };
    p.insert("tool_name".into(), json!(name));
    p.insert("tool_input".into(), input);
    p.insert("tool_response".into(), response);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::host::tests::payload;

    #[test]
    fn copilot_payloads_as_claude_code_would_send_them() {
        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(
                json!({"sessionId": "s", "timestamp": 1774281852263_i64, "cwd": "/p",
                "toolName": "edit", "toolArgs": "{\"path\":\"src/a.py\",\"old_str\":\"X = 1\",\"new_str\":\"X = 2\"}",
                "toolResult": {"resultType": "success", "textResultForLlm": "edited"}}),
            ),
        );
        assert_eq!(e, HookEvent::PostToolUse);
        let p = &out[0].0;
        assert_eq!(p["session_id"], "s");
        assert_eq!(p["tool_name"], "Edit");
        assert_eq!(p["tool_input"]["file_path"], "/p/src/a.py");
        assert_eq!(p["tool_input"]["new_string"], "X = 2");
        assert!(p["tool_use_id"].as_str().unwrap().starts_with("copilot-"));
        // The same call delivered twice gets the same id.
        let (_, again) = normalize(
            HookEvent::PostToolUse,
            payload(
                json!({"sessionId": "s", "timestamp": 1774281852263_i64, "cwd": "/p",
                "toolName": "edit", "toolArgs": "{\"path\":\"src/a.py\",\"old_str\":\"X = 1\",\"new_str\":\"X = 2\"}",
                "toolResult": {"resultType": "success", "textResultForLlm": "edited"}}),
            ),
        );
        assert_eq!(again[0].0["tool_use_id"], p["tool_use_id"]);

        let (e, out) = normalize(
            HookEvent::PostToolUseFailure,
            payload(json!({"sessionId": "s", "cwd": "/p", "toolName": "bash",
                "toolArgs": "{\"command\":\"npm test\"}", "error": "exit 1"})),
        );
        assert_eq!(e, HookEvent::PostToolUseFailure);
        assert_eq!(out[0].0["tool_name"], "Bash");
        assert_eq!(out[0].str("error"), Some("exit 1"));
        assert_eq!(
            event("userPromptSubmitted"),
            Some(HookEvent::UserPromptSubmit)
        );
    }

    /// postToolUse also reports calls that failed or that the user denied, by resultType.
    #[test]
    fn a_denied_or_failed_call_is_a_failure_not_an_outcome() {
        for (kind, error) in [
            (
                "denied",
                "denied by the user: The user denied this tool call.",
            ),
            ("failure", "The user denied this tool call."),
        ] {
            let (e, out) = normalize(
                HookEvent::PostToolUse,
                payload(json!({"sessionId": "s", "cwd": "/p", "toolName": "edit",
                    "toolArgs": "{\"path\":\"a.py\",\"old_str\":\"X = 1\",\"new_str\":\"X = 2\"}",
                    "toolResult": {"resultType": kind,
                        "textResultForLlm": "The user denied this tool call."}})),
            );
            assert_eq!(e, HookEvent::PostToolUseFailure, "{kind}");
            assert_eq!(out[0].str("error"), Some(error), "{kind}");
        }
    }
}
