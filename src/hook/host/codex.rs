//! Codex CLI (`cmem hook --host codex`): Claude Code's payload plus `turn_id` and `model`;
//! `apply_patch` arrives as `{"command": <patch>}`. Its answers are checked against a schema
//! that rejects unknown keys, and a Stop answer must not carry `hookSpecificOutput`.

use serde_json::{Map, Value, json};

use super::super::HookEvent;
use super::super::payload::Payload;

/// Codex's output schema: these keys and no others.
const KEYS: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "hookSpecificOutput",
];

pub(super) fn answer(event: HookEvent, claude: &str) -> String {
    match serde_json::from_str::<Value>(claude) {
        Ok(Value::Object(mut map)) => {
            map.retain(|k, _| KEYS.contains(&k.as_str()));
            if event != HookEvent::SessionStart && event != HookEvent::UserPromptSubmit {
                map.remove("hookSpecificOutput");
            }
            Value::Object(map).to_string()
        }
        _ => event.noop_json().to_string(),
    }
}

/// Codex sends Claude Code's payload with a `turn_id` (the prompt's id, which the history
/// import uses too) and reports `apply_patch` as `{"command": <patch>}`.
pub(super) fn payloads(event: HookEvent, mut payload: Payload) -> Vec<Payload> {
    if payload.str("prompt_id").is_none()
        && let Some(turn) = payload.str("turn_id").map(String::from)
    {
        payload.0.insert("prompt_id".into(), json!(turn));
    }
    let is_patch = matches!(
        event,
        HookEvent::PostToolUse | HookEvent::PostToolUseFailure
    ) && payload.str("tool_name") == Some("apply_patch");
    if !is_patch || event == HookEvent::PostToolUseFailure {
        return vec![payload];
    }
    let patch = payload
        .0
        .get("tool_input")
        .and_then(|i| i.get("command").or_else(|| i.get("patch")).or(Some(i)))
        .and_then(Value::as_str)
        .map(String::from);
    let Some(patch) = patch else {
        return vec![payload];
    };
    let cwd = payload.str("cwd").map(String::from);
    let edits = crate::codex_patch::edits(&patch, cwd.as_deref());
    if edits.is_empty() {
        return vec![payload];
    }
    let id = payload
        .str("tool_use_id")
        .unwrap_or("apply_patch")
        .to_string();
    edits
        .into_iter()
        .enumerate()
        .map(|(n, edit)| {
            let mut p: Map<String, Value> = payload.0.clone();
            let tool_use_id = if n == 0 {
                id.clone()
            } else {
                format!("{id}#{}", n + 1)
            };
            p.insert("tool_use_id".into(), json!(tool_use_id));
            let (name, input, response) = match edit {
                crate::codex_patch::Edit::Update { path, old, new } => (
                    "Edit",
                    json!({"file_path": path, "old_string": old, "new_string": new}),
                    json!({"filePath": path, "oldString": old, "newString": new}),
                ),
                crate::codex_patch::Edit::Add { path, content } => (
                    "Write",
                    json!({"file_path": path, "content": content}),
                    json!({"type": "create", "filePath": path}),
                ),
            };
            p.insert("tool_name".into(), json!(name));
            p.insert("tool_input".into(), input);
            p.insert("tool_response".into(), response);
            Payload(p)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::host::tests::payload;

    #[test]
    fn patches_become_edits_and_turn_ids_prompt_ids() {
        let p = payload(json!({"session_id": "s", "cwd": "/w", "turn_id": "t1",
            "tool_name": "apply_patch", "tool_use_id": "call_1",
            "tool_input": {"command": "*** Begin Patch\n*** Update File: a.py\n@@\n-X = 1\n+X = 2\n*** Add File: b.py\n+Y = 3\n*** End Patch"}}));
        let out = payloads(HookEvent::PostToolUse, p);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].str("tool_name"), Some("Edit"));
        assert_eq!(out[0].str("prompt_id"), Some("t1"));
        assert_eq!(out[0].0["tool_input"]["file_path"], "/w/a.py");
        assert_eq!(out[0].0["tool_input"]["new_string"], "X = 2");
        assert_eq!(out[1].str("tool_name"), Some("Write"));
        assert_eq!(out[1].str("tool_use_id"), Some("call_1#2"));
    }

    #[test]
    fn answers_carry_only_keys_codex_accepts() {
        let claude = r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"x"},"systemMessage":"m","suppressOutput":true,"extra":1}"#;
        let v: Value = serde_json::from_str(&answer(HookEvent::SessionStart, claude)).unwrap();
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "x");
        assert!(v.get("extra").is_none());
        let stop: Value = serde_json::from_str(&answer(HookEvent::Stop, claude)).unwrap();
        assert!(stop.get("hookSpecificOutput").is_none());
    }
}
