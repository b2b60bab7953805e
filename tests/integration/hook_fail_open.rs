//! The fail-open contract: whatever arrives on stdin, every hook exits 0 with one valid JSON
//! line, stores nothing for invalid input and loses nothing valid.

use crate::common::{EVENTS, Env, noop_for};
use serde_json::json;

/// Inputs that are not a usable payload for any event.
fn invalid_corpus(env: &Env) -> Vec<(&'static str, Vec<u8>)> {
    let cwd = env.project().to_string_lossy().into_owned();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    vec![
        ("empty", b"".to_vec()),
        ("whitespace", b"  \n\t ".to_vec()),
        ("null", b"null".to_vec()),
        ("array", b"[]".to_vec()),
        ("string", b"\"hello\"".to_vec()),
        ("number", b"42".to_vec()),
        ("empty object", b"{}".to_vec()),
        ("truncated", b"{\"session_id\": \"abc\", \"cwd\": \"/tm".to_vec()),
        ("non-utf8", b"{\"session_id\": \"\xff\xfe\xfd\"}".to_vec()),
        ("binary noise", (0u8..=255).cycle().take(4096).collect()),
        ("trailing garbage", br#"{"session_id":"s"} xyz"#.to_vec()),
        ("two objects", br#"{"session_id":"s"}{"session_id":"t"}"#.to_vec()),
        ("NaN", br#"{"session_id":"s","duration_ms":NaN}"#.to_vec()),
        ("deep nesting", deep.into_bytes()),
        ("session_id number", json!({"session_id": 7, "cwd": cwd}).to_string().into_bytes()),
        ("session_id empty", json!({"session_id": "", "cwd": cwd}).to_string().into_bytes()),
        ("session_id huge", json!({"session_id": "x".repeat(10_000), "cwd": cwd}).to_string().into_bytes()),
        ("session_id control", json!({"session_id": "a\u{0}b", "cwd": cwd}).to_string().into_bytes()),
        ("cwd number", json!({"session_id": "s", "cwd": 12, "prompt": "p", "tool_name": "Read", "tool_use_id": "t"}).to_string().into_bytes()),
        ("tool_name object", json!({"session_id": "s", "cwd": cwd, "tool_name": {"x": 1}, "tool_use_id": "t", "prompt": "p"}).to_string().into_bytes()),
        ("tool_use_id number", json!({"session_id": "s", "cwd": cwd, "tool_name": "Read", "tool_use_id": 5, "prompt": "p"}).to_string().into_bytes()),
        ("prompt_id array", json!({"session_id": "s", "cwd": cwd, "prompt_id": [], "tool_name": "Read", "tool_use_id": "t", "prompt": "p"}).to_string().into_bytes()),
        ("100 MB of junk", vec![b'x'; 100 * 1024 * 1024]),
        ("only a BOM", b"\xEF\xBB\xBF".to_vec()),
    ]
}

/// Inputs invalid only for the events that need a field they lack.
fn event_specific_invalid(env: &Env, event: &str) -> Vec<(&'static str, Vec<u8>)> {
    let cwd = env.project().to_string_lossy().into_owned();
    let base = json!({"session_id": "s-specific", "cwd": cwd});
    let with = |extra: serde_json::Value| {
        let mut v = base.clone();
        v.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        v.to_string().into_bytes()
    };
    match event {
        "user-prompt-submit" => vec![
            ("no prompt", with(json!({}))),
            ("prompt number", with(json!({"prompt": 3}))),
            ("prompt null", with(json!({"prompt": null}))),
        ],
        "post-tool-use" | "post-tool-use-failure" => vec![
            ("no tool_name", with(json!({"tool_use_id": "t"}))),
            ("no tool_use_id", with(json!({"tool_name": "Read"}))),
            (
                "tool_name empty",
                with(json!({"tool_name": " ", "tool_use_id": "t"})),
            ),
        ],
        _ => vec![],
    }
}

#[test]
fn invalid_input_to_every_event_is_a_logged_noop_that_stores_nothing() {
    let env = Env::new();
    let mut cases = 0;
    for event in EVENTS {
        let mut corpus = invalid_corpus(&env);
        corpus.extend(event_specific_invalid(&env, event));
        for (name, bytes) in corpus {
            let answer = env.hook_bytes(event, &bytes);
            assert_eq!(answer, noop_for(event), "{event} / {name}");
            cases += 1;
        }
    }
    assert!(cases >= 25 * 7, "{cases}");
    for table in ["sessions", "user_prompts", "tool_uses"] {
        assert_eq!(env.count(table), 0, "{table} must stay empty");
    }
    assert!(
        env.log_text().contains("invalid hook payload"),
        "reasons are logged"
    );
}

#[test]
fn unusual_but_valid_payloads_are_stored() {
    let env = Env::new();
    let cwd = env.project().to_string_lossy().into_owned();
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(
        json!({"session_id": "v", "cwd": cwd, "prompt": "with a BOM"})
            .to_string()
            .bytes(),
    );
    env.hook_bytes("user-prompt-submit", &bom);
    let valid = [
        (
            "user-prompt-submit",
            json!({"session_id": "v", "cwd": cwd, "prompt": "nul \u{0} and emoji 🦀 and 中文", "extra": {"unknown": [1, 2]}}),
        ),
        (
            "user-prompt-submit",
            json!({"sessionId": "v2", "cwd": cwd, "prompt": ""}),
        ),
        (
            "post-tool-use",
            json!({"session_id": "v", "cwd": cwd, "tool_name": "Bash", "tool_use_id": "string-input", "tool_input": "ls -la", "tool_response": null}),
        ),
        (
            "post-tool-use",
            json!({"session_id": "v", "tool_name": "Read", "tool_use_id": "no-cwd", "tool_input": {}}),
        ),
        (
            "post-tool-use",
            json!({"session_id": "v", "cwd": cwd, "tool_name": "Read", "tool_use_id": "dup-key", "tool_use_id": "dup-key"}),
        ),
        (
            "post-tool-use-failure",
            json!({"session_id": "v", "cwd": cwd, "tool_name": "Bash", "tool_use_id": "no-error-text"}),
        ),
        (
            "post-tool-use",
            json!({"session_id": "v", "cwd": cwd, "tool_name": "Read", "tool_use_id": "big", "tool_response": {"content": "y".repeat(20 * 1024 * 1024)}}),
        ),
        (
            "stop",
            json!({"session_id": "v", "cwd": cwd, "stop_hook_active": true}),
        ),
        ("session-end", json!({"session_id": "v", "cwd": cwd})),
    ];
    for (event, payload) in &valid {
        assert_eq!(
            env.hook(event, payload),
            noop_for(event),
            "{event} {payload:.80}"
        );
    }
    assert_eq!(env.count("user_prompts"), 3);
    assert_eq!(env.count("tool_uses"), 5);
    let media: String = env
        .db()
        .query_row(
            "SELECT prompt_text FROM user_prompts WHERE content_session_id = 'v2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(media, "[media prompt]");
    let status: String = env
        .db()
        .query_row(
            "SELECT status FROM sessions WHERE content_session_id = 'v'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(status, "completed");
}

#[test]
fn unknown_events_are_logged_noops() {
    let env = Env::new();
    let answer = env.hook("Notification", &json!({"session_id": "s"}));
    assert_eq!(answer, json!({}));
    assert!(env.log_text().contains("unknown hook event"));
}

#[test]
fn an_unwritable_data_dir_still_answers() {
    let env = Env::new();
    std::fs::write(env.data_dir(), b"a file where the data dir should be").unwrap();
    for event in EVENTS {
        let p = env.payload(
            "s",
            json!({"prompt": "p", "tool_name": "Read", "tool_use_id": "t"}),
        );
        assert_eq!(env.hook(event, &p), noop_for(event), "{event}");
    }
}

#[test]
fn a_corrupt_database_spools_events_until_it_is_replaced() {
    let env = Env::new();
    std::fs::create_dir_all(env.data_dir()).unwrap();
    std::fs::write(env.db_path(), vec![0x42u8; 8192]).unwrap();
    for i in 0..3 {
        let p = env.payload(
            "s-corrupt",
            json!({"prompt": format!("prompt {i}"), "prompt_id": format!("p{i}")}),
        );
        assert_eq!(env.hook("user-prompt-submit", &p), json!({}));
    }
    let spool = std::fs::read_to_string(env.data_dir().join("spool.jsonl")).unwrap();
    assert_eq!(spool.lines().count(), 3);
    let doctor = env.cmd().arg("doctor").output().unwrap();
    assert_eq!(doctor.status.code(), Some(1));
    let text = String::from_utf8_lossy(&doctor.stdout);
    assert!(text.contains("3 event(s) wait"), "{text}");

    // The user moves the broken file aside; the next hook stores everything, in order.
    std::fs::rename(env.db_path(), env.root().join("broken.db")).unwrap();
    env.hook(
        "user-prompt-submit",
        &env.payload(
            "s-corrupt",
            json!({"prompt": "prompt 3", "prompt_id": "p3"}),
        ),
    );
    let prompts: Vec<(i64, String)> = env.rows(
        "SELECT prompt_number, prompt_text FROM user_prompts ORDER BY id",
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        prompts,
        (0..4)
            .map(|i| (i + 1, format!("prompt {i}")))
            .collect::<Vec<_>>()
    );
    assert_eq!(
        std::fs::read_to_string(env.data_dir().join("spool.jsonl")).unwrap(),
        ""
    );
}
