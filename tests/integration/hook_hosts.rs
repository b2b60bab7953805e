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

/// Exit 2 is "block" to Claude Code, Cursor and Gemini: a hook command line the parser refuses
/// still answers and exits 0, and the log says what to fix.
#[test]
fn a_hook_command_line_the_parser_refuses_still_answers() {
    let env = Env::new();
    for args in [
        &["hook", "--host=vim", "SessionStart"][..],
        &["hook", "SessionStart", "--host", "vim"],
        &["hook", "--host", "codex", "SessionStart", "extra"],
        &["hook", "--host", "codex"],
        &["hook"],
    ] {
        let out = run_with_stdin(env.cmd().args(args), b"{}");
        assert!(out.status.success(), "{args:?}: {out:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout).trim(),
            "{}",
            "{args:?}"
        );
    }
    let log = env.log_text();
    assert!(log.contains("unexpected argument 'extra'"), "{log}");
    assert!(log.contains("<EVENT>"), "{log}");
    assert!(log.contains("fix the hook's command"), "{log}");
    // Help is still help.
    let help = env.cmd().args(["hook", "--help"]).output().unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage"));
}

/// One turn of each host in its documented payload shapes: captured into the project's
/// memory, and the next session start answered in the host's own shape with that memory.
#[test]
fn gemini_cursor_and_copilot_turns_are_captured_and_their_starts_carry_the_memory() {
    let env = Env::new();
    let cwd = env.project().to_string_lossy().into_owned();
    let hosts: [(&str, Vec<(&str, Value)>); 3] = [
        (
            "gemini",
            vec![
                (
                    "BeforeAgent",
                    json!({"session_id": "g1", "cwd": cwd, "hook_event_name": "BeforeAgent", "timestamp": "2026-12-05T10:00:00Z",
                    "prompt": "<hook_context>old memory</hook_context>\n\nRaise RETRY_LIMIT in src/net.py from 3 to 5"}),
                ),
                (
                    "AfterTool",
                    json!({"session_id": "g1", "cwd": cwd, "hook_event_name": "AfterTool", "timestamp": "2026-12-05T10:00:02Z",
                    "tool_name": "replace", "tool_input": {"file_path": "src/net.py", "instruction": "raise it", "old_string": "RETRY_LIMIT = 3", "new_string": "RETRY_LIMIT = 5"},
                    "tool_response": {"llmContent": "Successfully modified file", "returnDisplay": ""}}),
                ),
                (
                    "AfterAgent",
                    json!({"session_id": "g1", "cwd": cwd, "hook_event_name": "AfterAgent", "prompt": "…",
                    "prompt_response": "RETRY_LIMIT is 5 now.", "stop_hook_active": false}),
                ),
            ],
        ),
        (
            "cursor",
            vec![
                (
                    "beforeSubmitPrompt",
                    json!({"conversation_id": "k1", "generation_id": "gen1", "hook_event_name": "beforeSubmitPrompt",
                    "workspace_roots": [cwd], "prompt": "Rename fetch_user to load_user in src/users.py"}),
                ),
                (
                    "postToolUse",
                    json!({"conversation_id": "k1", "generation_id": "gen1", "hook_event_name": "postToolUse", "workspace_roots": [cwd],
                    "tool_name": "StrReplace", "tool_input": {"path": "src/users.py", "old_string": "def fetch_user(", "new_string": "def load_user("},
                    "tool_output": "{\"success\":true}", "tool_use_id": "tu1"}),
                ),
                (
                    "afterAgentResponse",
                    json!({"conversation_id": "k1", "generation_id": "gen1", "hook_event_name": "afterAgentResponse",
                    "workspace_roots": [cwd], "text": "Renamed fetch_user to load_user."}),
                ),
                (
                    "stop",
                    json!({"conversation_id": "k1", "generation_id": "gen1", "hook_event_name": "stop",
                    "workspace_roots": [cwd], "status": "completed", "loop_count": 0}),
                ),
            ],
        ),
        (
            "copilot",
            vec![
                (
                    "userPromptSubmitted",
                    json!({"sessionId": "p1", "timestamp": 1796486400000_i64, "cwd": cwd,
                    "prompt": "Set TIMEOUT_S in src/cfg.py to 60"}),
                ),
                (
                    "postToolUse",
                    json!({"sessionId": "p1", "timestamp": 1796486401000_i64, "cwd": cwd, "toolName": "edit",
                    "toolArgs": "{\"path\":\"src/cfg.py\",\"old_str\":\"TIMEOUT_S = 30\",\"new_str\":\"TIMEOUT_S = 60\"}",
                    "toolResult": {"resultType": "success", "textResultForLlm": "File edited"}}),
                ),
                (
                    "agentStop",
                    json!({"sessionId": "p1", "timestamp": 1796486402000_i64, "cwd": cwd, "stopReason": "end_turn"}),
                ),
            ],
        ),
    ];
    for (host, events) in &hosts {
        for (event, payload) in events {
            let answer = hook(&env, host, event, payload);
            let expected = if (*host, *event) == ("cursor", "beforeSubmitPrompt") {
                json!({"continue": true})
            } else {
                json!({})
            };
            assert_eq!(answer, expected, "{host} {event}");
        }
    }
    let rows: Vec<(String, String)> = env.rows(
        "SELECT s.platform_source, p.prompt_text FROM user_prompts p JOIN sessions s ON s.id = p.session_id ORDER BY p.id",
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        rows,
        [
            (
                "gemini".to_string(),
                "Raise RETRY_LIMIT in src/net.py from 3 to 5".to_string()
            ),
            (
                "cursor".to_string(),
                "Rename fetch_user to load_user in src/users.py".to_string()
            ),
            (
                "copilot".to_string(),
                "Set TIMEOUT_S in src/cfg.py to 60".to_string()
            ),
        ]
    );
    let edits: Vec<String> = env.rows(
        "SELECT json_extract(tool_input, '$.file_path') FROM tool_uses WHERE tool_name = 'Edit' ORDER BY id",
        |r| r.get(0),
    );
    assert_eq!(
        edits,
        ["src/net.py", "src/users.py", "src/cfg.py"].map(|f| format!("{cwd}/{f}"))
    );
    // Gemini and Cursor end their turns with the answer; Copilot's agentStop has none.
    let observed = env.count_where("user_prompts", "observed_at_epoch IS NOT NULL");
    assert_eq!(observed, 3);
    let titles: Vec<String> = env.rows("SELECT title FROM observations", |r| r.get(0));
    for needle in ["RETRY_LIMIT", "load_user", "TIMEOUT_S"] {
        assert!(
            titles.iter().any(|t| t.contains(needle)),
            "{needle}: {titles:?}"
        );
    }

    let start = |host: &str, event: &str, payload: Value| hook(&env, host, event, &payload);
    let gemini = start(
        "gemini",
        "SessionStart",
        json!({"session_id": "g2", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    assert!(
        gemini["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("TIMEOUT_S")
    );
    let cursor = start(
        "cursor",
        "sessionStart",
        json!({"conversation_id": "k2", "session_id": "k2", "hook_event_name": "sessionStart", "workspace_roots": [cwd]}),
    );
    assert_eq!(cursor.as_object().unwrap().len(), 1);
    assert!(
        cursor["additional_context"]
            .as_str()
            .unwrap()
            .contains("RETRY_LIMIT")
    );
    let copilot = start(
        "copilot",
        "sessionStart",
        json!({"sessionId": "p2", "timestamp": 1796486500000_i64, "cwd": cwd, "source": "new"}),
    );
    assert_eq!(copilot.as_object().unwrap().len(), 1);
    assert!(
        copilot["additionalContext"]
            .as_str()
            .unwrap()
            .contains("load_user")
    );
    // Copilot CLI before 1.0.22 starts the session again on every prompt: injected once.
    let again = start(
        "copilot",
        "sessionStart",
        json!({"sessionId": "p2", "timestamp": 1796486600000_i64, "cwd": cwd, "source": "new"}),
    );
    assert_eq!(again, json!({}));
}

/// For Cursor agents that run no sessionStart hook (cloud agents): the context as an
/// always-applied project rule, kept current by the sessionEnd hook once it exists.
#[test]
fn cursor_rule_file_holds_the_memory_and_session_end_keeps_it_current() {
    let env = Env::new();
    let cwd = env.project().to_string_lossy().into_owned();
    let turn = |prompt: &str, id: &str, old: &str, new: &str| {
        hook(
            &env,
            "cursor",
            "beforeSubmitPrompt",
            &json!({"conversation_id": "k1", "generation_id": id,
            "hook_event_name": "beforeSubmitPrompt", "workspace_roots": [cwd], "prompt": prompt}),
        );
        hook(
            &env,
            "cursor",
            "postToolUse",
            &json!({"conversation_id": "k1", "generation_id": id, "workspace_roots": [cwd],
            "tool_name": "StrReplace", "tool_input": {"path": "src/a.py", "old_string": old, "new_string": new},
            "tool_output": "{}", "tool_use_id": format!("tu-{id}")}),
        );
        for (event, extra) in [
            ("afterAgentResponse", json!({"text": "Done."})),
            ("stop", json!({"status": "completed"})),
        ] {
            let mut p =
                json!({"conversation_id": "k1", "generation_id": id, "workspace_roots": [cwd]});
            p.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            hook(&env, "cursor", event, &p);
        }
    };
    turn("Set LIMIT_A to 2", "g1", "LIMIT_A = 1", "LIMIT_A = 2");
    let out = env.run_stdout(&["context", "--cursor-rule"]);
    let rule = env.project().join(".cursor/rules/cmem.mdc");
    assert!(out.contains(".cursor/rules/cmem.mdc"), "{out}");
    let text = std::fs::read_to_string(&rule).unwrap();
    assert!(text.starts_with("---\ndescription: "), "{text}");
    assert!(text.contains("\nalwaysApply: true\n---\n"), "{text}");
    assert!(text.contains("LIMIT_A"), "{text}");

    turn("Set LIMIT_B to 3", "g2", "LIMIT_B = 1", "LIMIT_B = 3");
    hook(
        &env,
        "cursor",
        "sessionEnd",
        &json!({"conversation_id": "k1", "session_id": "k1",
        "hook_event_name": "sessionEnd", "workspace_roots": [cwd], "reason": "completed"}),
    );
    let mut refreshed = String::new();
    for _ in 0..100 {
        refreshed = std::fs::read_to_string(&rule).unwrap_or_default();
        if refreshed.contains("LIMIT_B") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(refreshed.contains("LIMIT_B"), "{refreshed}");
}

/// Codex moves a session-start context over about 10 KB into a file, and Copilot caps one at
/// 10 KB: for them the index is fitted into bytes, which Chinese titles fill three times faster.
#[test]
fn codex_and_copilot_get_a_context_that_fits_in_their_bytes() {
    let env = Env::new();
    env.cmd().args(["doctor", "--init"]).output().unwrap();
    let title = "修复高峰期下单接口因连接池耗尽返回 502 的问题，并确保错误分支归还连接，同时把重试上限和超时配置统一到配置中心";
    let inserts: Vec<String> = (0..80)
        .map(|i| {
            format!(
                "INSERT INTO observations (project, type, title, narrative, created_at_epoch, source) \
                 VALUES ('project', 'bugfix', '{title} #{i}', '{title}', {}, 'by-hand')",
                1_796_400_000_000_i64 + i * 60_000
            )
        })
        .collect();
    env.run_ok(&["sql", &inserts.join("; ")]);
    let cwd = env.project().to_string_lossy().into_owned();
    let claude = env.hook(
        "session-start",
        &env.payload(
            "c",
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        ),
    );
    let claude_bytes = claude["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .len();
    assert!(claude_bytes > 9_800, "{claude_bytes}");
    let codex = hook(
        &env,
        "codex",
        "SessionStart",
        &codex(
            &env,
            "x",
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        ),
    );
    let text = codex["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        text.len() <= 9_800 && text.contains("连接池耗尽"),
        "{} bytes",
        text.len()
    );
    let copilot = hook(
        &env,
        "copilot",
        "sessionStart",
        &json!({"sessionId": "y", "cwd": cwd, "source": "new"}),
    );
    let text = copilot["additionalContext"].as_str().unwrap();
    assert!(
        text.len() <= 9_800 && text.contains("连接池耗尽"),
        "{} bytes",
        text.len()
    );
}

/// Cursor's afterAgentResponse comes after every message of the agent, which may go on calling
/// tools: the edit after an intermediate message is part of the turn that `stop` ends.
#[test]
fn a_cursor_turn_ends_at_stop_not_at_the_agents_first_message() {
    let env = Env::new();
    let cwd = env.project().to_string_lossy().into_owned();
    let ids = json!({"conversation_id": "k9", "generation_id": "g9", "workspace_roots": [cwd]});
    let with = |extra: Value| {
        let mut p = ids.clone();
        p.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        p
    };
    hook(
        &env,
        "cursor",
        "beforeSubmitPrompt",
        &with(json!({"prompt": "Rename fetch_user to load_user in src/users.py"})),
    );
    hook(
        &env,
        "cursor",
        "afterAgentResponse",
        &with(json!({"text": "Let me look at the file first."})),
    );
    assert_eq!(
        env.count_where("user_prompts", "ended_at_epoch IS NOT NULL"),
        0
    );
    hook(
        &env,
        "cursor",
        "postToolUse",
        &with(json!({"tool_name": "StrReplace", "tool_use_id": "tu-9",
            "tool_input": {"path": "src/users.py", "old_string": "def fetch_user(", "new_string": "def load_user("},
            "tool_output": "{}"})),
    );
    hook(
        &env,
        "cursor",
        "afterAgentResponse",
        &with(json!({"text": "Renamed fetch_user to load_user."})),
    );
    hook(
        &env,
        "cursor",
        "stop",
        &with(json!({"status": "completed", "loop_count": 0})),
    );
    let titles: Vec<String> = env.rows("SELECT title FROM observations", |r| r.get(0));
    assert!(titles.iter().any(|t| t.contains("load_user")), "{titles:?}");
    let last: Vec<String> = env.rows("SELECT last_assistant_message FROM user_prompts", |r| {
        r.get(0)
    });
    assert_eq!(last, ["Renamed fetch_user to load_user."]);
}

/// One Codex patch may add thousands of files: every edit is stored, in one transaction,
/// where one store write per edit ran into the hook's deadline at about 2,000.
#[test]
fn a_codex_patch_of_thousands_of_files_is_stored_whole() {
    let env = Env::new();
    let mut patch = String::from("*** Begin Patch\n");
    for i in 0..5000 {
        patch.push_str(&format!("*** Add File: gen/f{i}.py\n+X = {i}\n"));
    }
    patch.push_str("*** End Patch");
    hook(
        &env,
        "codex",
        "PostToolUse",
        &codex(
            &env,
            "cx-big",
            json!({"hook_event_name": "PostToolUse", "turn_id": "t-1", "tool_name": "apply_patch",
                "tool_use_id": "call_big", "tool_input": {"command": patch}, "tool_response": "Done!"}),
        ),
    );
    assert_eq!(env.count("tool_uses"), 5000);
}

/// A Stop whose answer is no text still ends the turn, and the log says what was lost.
#[test]
fn a_stop_whose_answer_is_not_text_is_logged() {
    let env = Env::new();
    hook(
        &env,
        "codex",
        "Stop",
        &codex(
            &env,
            "cx-odd",
            json!({"hook_event_name": "Stop", "turn_id": "t-1", "last_assistant_message": 12}),
        ),
    );
    let log = env.log_text();
    assert!(
        log.contains("last_assistant_message is a JSON number where text was expected"),
        "{log}"
    );
}
