//! `cmem hook --host <host> <event>`: other agents' hooks, their payloads mapped into the
//! capture Claude Code's go through, answers in their own shape, memory shared per project.

use serde_json::{Value, json};

use crate::common::{Env, run_with_stdin};

/// Runs `cmem hook --host HOST EVENT` and checks the fail-open contract (exit 0, one JSON
/// object on stdout, nothing on stderr).
fn hook(env: &Env, host: &str, event: &str, payload: &Value) -> Value {
    let out = run_with_stdin(
        env.cmd().args(["hook", "--host", host, event]),
        payload.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(out.stderr.is_empty(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    serde_json::from_str(&text).unwrap()
}

fn codex(env: &Env, session: &str, extra: Value) -> Value {
    let mut p = json!({"session_id": session, "cwd": env.project().to_string_lossy(),
        "transcript_path": null, "model": "gpt-6-sol", "permission_mode": "default"});
    if let (Some(m), Value::Object(e)) = (p.as_object_mut(), extra) {
        m.extend(e);
    }
    p
}

#[test]
fn a_codex_session_is_captured_observed_and_seen_by_the_next_claude_session() {
    let env = Env::new();
    assert_eq!(
        hook(
            &env,
            "codex",
            "SessionStart",
            &codex(
                &env,
                "cx-1",
                json!({"hook_event_name": "SessionStart", "source": "startup"})
            )
        )["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    let answers = [
        hook(
            &env,
            "codex",
            "UserPromptSubmit",
            &codex(
                &env,
                "cx-1",
                json!({"hook_event_name": "UserPromptSubmit", "turn_id": "t-1",
            "prompt": "Raise the connection pool in src/db/pool.py from 5 to 20"}),
            ),
        ),
        hook(
            &env,
            "codex",
            "PostToolUse",
            &codex(
                &env,
                "cx-1",
                json!({"hook_event_name": "PostToolUse", "turn_id": "t-1",
            "tool_name": "apply_patch", "tool_use_id": "call_p",
            "tool_input": {"command": "*** Begin Patch\n*** Update File: src/db/pool.py\n@@\n # pool settings\n-POOL_SIZE = 5\n+POOL_SIZE = 20\n*** End Patch"},
            "tool_response": "Success. Updated the following files:\nM src/db/pool.py\n"}),
            ),
        ),
        hook(
            &env,
            "codex",
            "PostToolUse",
            &codex(
                &env,
                "cx-1",
                json!({"hook_event_name": "PostToolUse", "turn_id": "t-1",
            "tool_name": "Bash", "tool_use_id": "call_t", "tool_input": {"command": "pytest tests/test_pool.py"},
            "tool_response": "3 passed in 0.12s"}),
            ),
        ),
        hook(
            &env,
            "codex",
            "Stop",
            &codex(
                &env,
                "cx-1",
                json!({"hook_event_name": "Stop", "turn_id": "t-1",
            "stop_hook_active": false, "last_assistant_message": "Raised POOL_SIZE to 20; the pool tests pass."}),
            ),
        ),
    ];
    for a in &answers {
        assert_eq!(a, &json!({}), "Codex gets the empty answer");
    }
    let (platform, tools): (String, i64) = env
        .db()
        .query_row(
            "SELECT s.platform_source, (SELECT COUNT(*) FROM tool_uses) FROM sessions s",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((platform.as_str(), tools), ("codex", 2));
    let titles: Vec<String> = env.rows("SELECT title FROM observations", |r| r.get(0));
    assert!(
        titles
            .iter()
            .any(|t| t.contains("POOL_SIZE") && t.contains("5 → 20")),
        "{titles:?}"
    );
    // The same project's memory for Claude Code, and for the next Codex session, whose answer
    // holds only keys Codex accepts.
    let claude = env.hook(
        "session-start",
        &env.payload(
            "cc-1",
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        ),
    );
    let context = claude["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.contains("POOL_SIZE"), "{context}");
    let next = hook(
        &env,
        "codex",
        "SessionStart",
        &codex(
            &env,
            "cx-2",
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        ),
    );
    assert!(
        next["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("POOL_SIZE")
    );
    let allowed = [
        "continue",
        "stopReason",
        "suppressOutput",
        "systemMessage",
        "decision",
        "reason",
        "hookSpecificOutput",
    ];
    for key in next.as_object().unwrap().keys() {
        assert!(allowed.contains(&key.as_str()), "Codex rejects {key}");
    }
}

#[test]
fn an_unknown_host_or_a_broken_payload_still_answers_and_is_logged() {
    let env = Env::new();
    assert_eq!(
        hook(&env, "vim", "stop", &json!({"session_id": "x"})),
        json!({})
    );
    let out = run_with_stdin(
        env.cmd().args(["hook", "--host", "codex", "SessionStart"]),
        b"not json",
    );
    assert!(out.status.success());
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["hookSpecificOutput"]["additionalContext"], "");
    let log = env.log_text();
    assert!(log.contains("unknown hook host \"vim\""), "{log}");
    assert!(log.contains("invalid hook payload"), "{log}");
}
