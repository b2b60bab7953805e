//! Capture hooks against the real binary and a real SQLite file.

use crate::common;

use crate::common::Env;
use serde_json::{Value, json};

#[test]
fn real_payloads_of_a_read_session_are_stored() {
    let env = Env::new();
    for (event, name) in [
        ("session-start", "SessionStart"),
        ("user-prompt-submit", "UserPromptSubmit"),
        ("pre-tool-use", "PreToolUse"),
        ("post-tool-use", "PostToolUse"),
        ("stop", "Stop"),
        ("session-end", "SessionEnd"),
    ] {
        let answer = env.hook(event, &env.real(name));
        if event == "session-start" {
            let ctx = answer["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap();
            assert!(
                ctx.contains("# [work] recent context") || ctx.contains("recent context"),
                "{ctx}"
            );
        } else {
            assert_eq!(answer, common::noop_for(event), "{event}");
        }
    }
    let db = env.db();
    let (project, status, counter): (String, String, i64) = db
        .query_row(
            "SELECT project, status, prompt_counter FROM sessions",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(project, "project");
    assert_eq!(status, "completed");
    assert_eq!(counter, 1);
    let (text, ended, last): (String, Option<i64>, Option<String>) = db
        .query_row(
            "SELECT prompt_text, ended_at_epoch, last_assistant_message FROM user_prompts",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(text, "please read small.txt");
    assert!(ended.is_some());
    assert_eq!(last.as_deref(), Some("Read it. Done."));
    let (tool, response, prompt_number): (String, String, i64) = db
        .query_row(
            "SELECT tool_name, tool_response, prompt_number FROM tool_uses",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(tool, "Read");
    assert!(response.contains("SMALL_FILE_CONTENT_MARKER"));
    assert_eq!(prompt_number, 1);
}

#[test]
fn failed_tool_calls_are_stored_with_their_error() {
    let env = Env::new();
    env.hook(
        "post-tool-use-failure",
        &env.real("PostToolUseFailure.bash"),
    );
    env.hook("post-tool-use", &env.real("PostToolUse.bash"));
    let rows: Vec<(i64, Option<String>, Option<String>)> = env.rows(
        "SELECT failed, error, tool_response FROM tool_uses ORDER BY id",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, 1);
    assert!(
        rows[0]
            .1
            .as_deref()
            .unwrap()
            .contains("FAILED: expected 300, got 30")
    );
    assert!(rows[0].2.is_none());
    assert_eq!(rows[1].0, 0);
    assert!(
        rows[1]
            .2
            .as_deref()
            .unwrap()
            .contains("refresh_window ... ok")
    );
}

#[test]
fn prompts_are_numbered_and_duplicates_within_ten_seconds_skipped() {
    let env = Env::new();
    let prompt = |text: &str, at: i64| {
        let mut c = env.cmd();
        c.env("CMEM_NOW_MS", at.to_string())
            .arg("hook")
            .arg("user-prompt-submit");
        let p = env.payload(
            "s1",
            json!({"prompt": text, "hook_event_name": "UserPromptSubmit"}),
        );
        common::assert_fail_open(
            "prompt",
            &common::run_with_stdin(&mut c, p.to_string().as_bytes()),
        );
    };
    prompt("first", 1_000_000);
    prompt("first", 1_005_000); // duplicate within 10 s
    prompt("second", 1_006_000);
    prompt("first", 1_020_000); // same text, later: a new turn
    let rows: Vec<(i64, String)> = env.rows(
        "SELECT prompt_number, prompt_text FROM user_prompts ORDER BY id",
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        rows,
        vec![
            (1, "first".into()),
            (2, "second".into()),
            (3, "first".into())
        ]
    );
}

#[test]
fn a_private_prompt_makes_the_whole_turn_private() {
    let env = Env::new();
    let p = |extra: Value| env.payload("s-priv", extra);
    env.hook(
        "user-prompt-submit",
        &p(json!({"prompt": "public question", "prompt_id": "p1"})),
    );
    env.hook(
        "user-prompt-submit",
        &p(json!({"prompt": "<private>all of it</private>", "prompt_id": "p2"})),
    );
    env.hook(
        "post-tool-use",
        &p(
            json!({"prompt_id": "p2", "tool_name": "Read", "tool_use_id": "t-private",
                  "tool_input": {"file_path": "/etc/hosts"}, "tool_response": "x"}),
        ),
    );
    env.hook(
        "stop",
        &p(json!({"prompt_id": "p2", "last_assistant_message": "private answer"})),
    );
    env.hook(
        "user-prompt-submit",
        &p(json!({"prompt": "public again", "prompt_id": "p3"})),
    );
    env.hook(
        "post-tool-use",
        &p(
            json!({"prompt_id": "p3", "tool_name": "Read", "tool_use_id": "t-public",
                  "tool_input": {"file_path": "/etc/hostname"}, "tool_response": "y"}),
        ),
    );
    let db = env.db();
    let prompts: Vec<String> = env.rows("SELECT prompt_text FROM user_prompts ORDER BY id", |r| {
        r.get(0)
    });
    assert_eq!(prompts, vec!["public question", "public again"]);
    let tools: Vec<(String, i64)> = env
        .rows("SELECT tool_use_id, prompt_number FROM tool_uses", |r| {
            Ok((r.get(0)?, r.get(1)?))
        });
    assert_eq!(tools, vec![("t-public".to_string(), 2)]);
    let leaked: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM user_prompts WHERE last_assistant_message LIKE '%private answer%'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(leaked, 0);
}

#[test]
fn tool_uses_are_idempotent_and_noise_and_own_tools_skipped() {
    let env = Env::new();
    let tool = |name: &str, id: &str| {
        env.payload(
            "s2",
            json!({"tool_name": name, "tool_use_id": id, "tool_input": {"q": 1}, "tool_response": {"ok": true}}),
        )
    };
    env.hook("post-tool-use", &tool("Grep", "t1"));
    env.hook("post-tool-use", &tool("Grep", "t1"));
    env.hook("post-tool-use", &tool("TodoWrite", "t2"));
    env.hook("post-tool-use", &tool("mcp__cmem__mem_search", "t3"));
    env.hook("post-tool-use", &tool("mcp__cmem__smart_outline", "t4"));
    env.hook(
        "post-tool-use",
        &env.payload(
            "s2",
            json!({"tool_name": "Read", "tool_use_id": "t5",
                   "tool_input": {"file_path": "/home/u/.claude/session-memory/notes.md"}}),
        ),
    );
    let ids: Vec<String> = env.rows("SELECT tool_use_id FROM tool_uses ORDER BY id", |r| {
        r.get(0)
    });
    assert_eq!(ids, vec!["t1", "t4"]);
}

#[test]
fn skip_list_is_configurable_by_file_and_env() {
    let env = Env::new();
    let cfg = env.root().join("config/cmem/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "[capture]\nskip_tools = [\"Grep\"]\n").unwrap();
    let run = |tool: &str, id: &str, env_skip: Option<&str>| {
        let mut c = env.cmd();
        if let Some(v) = env_skip {
            c.env("CMEM_SKIP_TOOLS", v);
        }
        c.args(["hook", "post-tool-use"]);
        let p = env.payload("s3", json!({"tool_name": tool, "tool_use_id": id}));
        common::assert_fail_open(
            "skip",
            &common::run_with_stdin(&mut c, p.to_string().as_bytes()),
        );
    };
    run("Grep", "a", None); // skipped by the file
    run("TodoWrite", "b", None); // the file replaced the default list
    run("Glob", "c", Some("Glob")); // env beats file
    run("Grep", "d", Some("Glob"));
    let ids: Vec<String> = env.rows("SELECT tool_use_id FROM tool_uses ORDER BY id", |r| {
        r.get(0)
    });
    assert_eq!(ids, vec!["b", "d"]);
}

#[test]
fn large_tool_io_is_capped_with_a_marker_and_hashed_before_the_cut() {
    let env = Env::new();
    let big = "line of file content\n".repeat(20_000); // ~420 KB
    let p = |id: &str, tail: &str| {
        env.payload(
            "s4",
            json!({"tool_name": "Read", "tool_use_id": id, "tool_input": {"file_path": "/x.rs"},
                   "tool_response": {"file": {"content": format!("{big}{tail}")}}}),
        )
    };
    env.hook("post-tool-use", &p("a", "end-A"));
    env.hook("post-tool-use", &p("b", "end-B"));
    let rows: Vec<(String, i64, String)> = env.rows(
        "SELECT tool_response, response_bytes, content_hash FROM tool_uses ORDER BY id",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    );
    for (response, bytes, _) in &rows {
        assert!(response.len() <= 64 * 1024, "{}", response.len());
        assert!(response.contains("…[truncated: "), "no marker");
        assert!(*bytes > 400_000);
    }
    assert_ne!(rows[0].2, rows[1].2, "hash must cover what the cap cut off");
}

#[test]
fn excluded_projects_store_nothing() {
    let env = Env::new();
    for (var, value) in [
        ("CMEM_EXCLUDED_PROJECTS", "proj*"),
        ("CMEM_EXCLUDED_PROJECTS", "/**/project"),
    ] {
        let mut c = env.cmd();
        c.env(var, value).args(["hook", "user-prompt-submit"]);
        let p = env.payload("s5", json!({"prompt": "hello"}));
        common::assert_fail_open(
            "excluded",
            &common::run_with_stdin(&mut c, p.to_string().as_bytes()),
        );
    }
    assert_eq!(env.count("user_prompts"), 0);
    env.hook(
        "user-prompt-submit",
        &env.payload("s5", json!({"prompt": "hello"})),
    );
    assert_eq!(env.count("user_prompts"), 1);
}

#[test]
fn worktrees_write_under_parent_slash_worktree() {
    let env = Env::new();
    let wt = env.git_worktree("acme", "feature-x");
    std::fs::create_dir_all(wt.join("src")).unwrap();
    let mut p = env.payload("s6", json!({"prompt": "in a worktree"}));
    p["cwd"] = json!(wt.join("src").to_string_lossy());
    env.hook("user-prompt-submit", &p);
    let project: String = env
        .db()
        .query_row("SELECT project FROM sessions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(project, "acme/feature-x");
}

#[test]
fn a_broken_config_file_is_logged_and_defaults_are_used() {
    let env = Env::new();
    let cfg = env.root().join("config/cmem/config.toml");
    std::fs::create_dir_all(cfg.parent().unwrap()).unwrap();
    std::fs::write(&cfg, "[capture]\nskip_toolz = 1\n").unwrap();
    env.hook(
        "user-prompt-submit",
        &env.payload("s7", json!({"prompt": "still captured"})),
    );
    assert_eq!(env.count("user_prompts"), 1);
    let log = env.log_text();
    assert!(
        log.contains("config.toml") && log.contains("line 2"),
        "{log}"
    );
    // The CLI, unlike hooks, refuses a broken file and says where it is broken.
    let out = env.cmd().arg("config").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 2") && err.contains("capture.skip_toolz"),
        "{err}"
    );
}
