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
pub(super) fn normalize(event: HookEvent, payload: Payload) -> (HookEvent, Vec<Payload>) {
    if event == HookEvent::PostToolUse && payload.str("tool_name") == Some("Bash") {
        return shell(payload);
    }
    (event, payloads(event, payload))
}

/// Codex reports a shell call's output as a bare string and no exit code (even for a failing
/// one): the output becomes Claude Code's `{stdout, …}`, and the exit code is read from the
/// `item_completed` record Codex has already written to the session's rollout.
fn shell(mut payload: Payload) -> (HookEvent, Vec<Payload>) {
    if payload.str("prompt_id").is_none()
        && let Some(turn) = payload.str("turn_id").map(String::from)
    {
        payload.0.insert("prompt_id".into(), json!(turn));
    }
    let output = match payload.0.remove("tool_response") {
        Some(Value::String(s)) => s,
        Some(Value::Null) | None => String::new(),
        Some(other) => {
            payload.0.insert("tool_response".into(), other);
            return (HookEvent::PostToolUse, vec![payload]);
        }
    };
    let exit = match (payload.str("transcript_path"), payload.str("tool_use_id")) {
        (Some(path), Some(id)) => exit_code_in_rollout(std::path::Path::new(path), id),
        _ => None,
    };
    match exit {
        Some(code) if code != 0 => {
            payload
                .0
                .insert("error".into(), json!(format!("Exit code {code}\n{output}")));
            (HookEvent::PostToolUseFailure, vec![payload])
        }
        _ => {
            payload.0.insert(
                "tool_response".into(),
                json!({"stdout": output, "stderr": "", "interrupted": false}),
            );
            (HookEvent::PostToolUse, vec![payload])
        }
    }
}

/// How much of the rollout's end is read for a call's exit code: the call was just made.
const ROLLOUT_TAIL: u64 = 256 * 1024;

/// The exit code of call `id`, from the `item_completed` `CommandExecution` line near the end
/// of the rollout (Codex 0.169+; older versions write none, and the call counts as done).
fn exit_code_in_rollout(path: &std::path::Path, id: &str) -> Option<i64> {
    use std::io::{Read, Seek, SeekFrom};
    let mut file = crate::file_state::open_regular(path)?;
    let len = file.metadata().ok()?.len();
    file.seek(SeekFrom::Start(len.saturating_sub(ROLLOUT_TAIL)))
        .ok()?;
    let mut tail = Vec::new();
    file.take(ROLLOUT_TAIL).read_to_end(&mut tail).ok()?;
    let quoted = format!("\"{id}\"");
    tail.split(|b| *b == b'\n')
        .rev()
        .filter(|l| {
            l.windows(quoted.len()).any(|w| w == quoted.as_bytes())
                && l.windows(16).any(|w| w == b"CommandExecution")
        })
        .find_map(|l| {
            let v: Value = serde_json::from_slice(l).ok()?;
            let item = v.pointer("/payload/item")?;
            (item.get("id")?.as_str()? == id).then(|| item.get("exit_code")?.as_i64())?
        })
}

fn payloads(event: HookEvent, mut payload: Payload) -> Vec<Payload> {
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
            let (tool_use_id, name, input, response) = crate::codex_patch::tool_use(&id, n, edit);
            p.insert("tool_use_id".into(), json!(tool_use_id));
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
        let (_, out) = normalize(HookEvent::PostToolUse, p);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].str("tool_name"), Some("Edit"));
        assert_eq!(out[0].str("prompt_id"), Some("t1"));
        assert_eq!(out[0].0["tool_input"]["file_path"], "/w/a.py");
        assert_eq!(out[0].0["tool_input"]["new_string"], "X = 2");
        assert_eq!(out[1].str("tool_name"), Some("Write"));
        assert_eq!(out[1].str("tool_use_id"), Some("call_1#2"));
    }

    /// Opening a FIFO blocks until a writer comes: the hook would wait for its deadline and
    /// lose the event.
    #[test]
    fn a_rollout_path_that_is_no_regular_file_is_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path and a mode.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (done, wait) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(exit_code_in_rollout(&fifo, "call_a")));
        assert_eq!(
            wait.recv_timeout(std::time::Duration::from_secs(5)),
            Ok(None)
        );
        assert_eq!(exit_code_in_rollout(dir.path(), "call_a"), None);
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

    #[test]
    fn a_shell_call_gets_stdout_and_the_exit_code_codex_wrote_to_the_rollout() {
        let dir = tempfile::tempdir().unwrap();
        let rollout = dir.path().join("rollout.jsonl");
        std::fs::write(
            &rollout,
            concat!(
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_a","status":"failed","exit_code":1}}}"#,
                "\n",
                r#"{"timestamp":"t","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"call_b","status":"completed","exit_code":0}}}"#,
                "\n"
            ),
        )
        .unwrap();
        let call = |id: &str| {
            payload(
                json!({"session_id": "s", "cwd": "/w", "turn_id": "t1", "tool_name": "Bash",
                "tool_use_id": id, "transcript_path": rollout.to_string_lossy(),
                "tool_input": {"command": "pytest"}, "tool_response": "FAILED (failures=1)\n"}),
            )
        };
        let (e, out) = normalize(HookEvent::PostToolUse, call("call_a"));
        assert_eq!(e, HookEvent::PostToolUseFailure);
        assert_eq!(
            out[0].str("error"),
            Some("Exit code 1\nFAILED (failures=1)\n")
        );
        let (e, out) = normalize(HookEvent::PostToolUse, call("call_b"));
        assert_eq!(e, HookEvent::PostToolUse);
        assert_eq!(out[0].0["tool_response"]["stdout"], "FAILED (failures=1)\n");
        assert_eq!(out[0].str("prompt_id"), Some("t1"));
        // No rollout (an older Codex): the call counts as done.
        let mut p = call("call_c");
        p.0.remove("transcript_path");
        assert_eq!(
            normalize(HookEvent::PostToolUse, p).0,
            HookEvent::PostToolUse
        );
    }
}
