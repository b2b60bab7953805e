//! "Stale memory says so" end to end: a turn edits a file through the real hooks; the file is
//! changed (or deleted) afterwards; the session-start index, `cmem search`, `cmem show` and the
//! MCP tools say so. A root missing on this machine is never marked, and a decision replaced by
//! a later one on the same file says `superseded by #N`.

use crate::common;

use crate::common::Env;
use serde_json::{Value, json};

const AFTER: &str = "//! Token handling.\n\n/// Seconds before expiry at which a token is refreshed.\npub fn refresh_window() -> u64 {\n    300\n}\n";

/// One turn through the real hooks: the Edit of `src/auth.rs` (the file on disk holds what
/// the edit left), then Stop. Returns the observation's id.
fn edit_turn(env: &Env) -> i64 {
    std::fs::create_dir_all(env.project().join("src")).unwrap();
    std::fs::write(env.project().join("src/auth.rs"), AFTER).unwrap();
    let mut p = env.payload(
        "s1",
        json!({"prompt": "raise the refresh window to 300", "hook_event_name": "UserPromptSubmit"}),
    );
    p["prompt_id"] = json!("s1-1");
    env.hook("user-prompt-submit", &p);
    let edit = env.real_for("PostToolUse.edit", "s1", "s1-1", "toolu_s1_1");
    assert_eq!(env.hook("post-tool-use", &edit), json!({}));
    let mut stop = env.real_for("Stop", "s1", "s1-1", "toolu_s1_99");
    stop["last_assistant_message"] = json!("Done: refresh_window() now returns 300.");
    assert_eq!(env.hook("stop", &stop), json!({}));
    env.db()
        .query_row(
            "SELECT id FROM observations WHERE files_modified LIKE '%src/auth.rs%'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}

fn context(env: &Env) -> String {
    env.run_stdout(&["context"])
}

fn show(env: &Env, id: i64) -> String {
    env.run_stdout(&["show", &id.to_string()])
}

fn row(text: &str, id: i64) -> &str {
    text.lines()
        .find(|l| l.starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no row {id} in:\n{text}"))
}

#[test]
fn a_file_changed_since_is_marked_in_the_index_search_and_details() {
    let env = Env::new();
    let id = edit_turn(&env);
    let (root, size, hash): (String, i64, String) = env
        .db()
        .query_row(
            "SELECT root, size, hash FROM observation_files WHERE observation_id = ?1 AND path = 'src/auth.rs'",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(root, env.project().to_string_lossy());
    assert_eq!(size, AFTER.len() as i64);
    // What `git hash-object` says of the file the edit left.
    assert_eq!(hash, "528d9c177e361af33d4e2b4151e8e8a389f9c13d");

    // Unchanged: no mark anywhere, and no legend entry.
    let before = context(&env);
    assert!(!row(&before, id).contains('\u{25B3}'), "{before}");
    assert!(!before.contains("file-changed"), "{before}");
    assert!(!show(&env, id).contains("since this was observed"));

    // Changed outside any session: the row, the legend, the details and search say so.
    std::fs::write(
        env.project().join("src/auth.rs"),
        AFTER.replace("300", "600"),
    )
    .unwrap();
    let after = context(&env);
    assert!(row(&after, id).ends_with(" \u{25B3}"), "{after}");
    assert!(after.contains(" \u{25B3}file-changed"), "{after}");
    let details = show(&env, id);
    assert!(
        details
            .lines()
            .any(|l| l == "src/auth.rs changed since this was observed"),
        "{details}"
    );
    let found = env.run_stdout(&["search", "refresh_window"]);
    assert!(found.contains("\u{25B3} file changed since"), "{found}");
    // The agent's tools: get_observations says it, mem_search's index marks the row.
    let reply = env.mcp_serve(&common::jsonl(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        format!(r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"get_observations","arguments":{{"ids":[{id}]}}}}}}"#),
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"mem_search","arguments":{"query":"refresh_window","mode":"guided"}}}"#.into(),
    ]));
    let text = |line: &[u8]| -> String {
        let v: Value = serde_json::from_slice(line).unwrap();
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let got = text(&reply[1]);
    assert!(
        got.contains("src/auth.rs changed since this was observed"),
        "{got}"
    );
    let index = text(&reply[2]);
    assert!(
        index
            .lines()
            .any(|l| l.starts_with(&format!("- [{id}] "))
                && l.contains("\u{25B3} file changed since")),
        "{index}"
    );

    // Deleted: said as such.
    std::fs::remove_file(env.project().join("src/auth.rs")).unwrap();
    assert!(
        show(&env, id)
            .lines()
            .any(|l| l == "src/auth.rs deleted since this was observed")
    );
}

#[test]
fn a_root_missing_on_this_machine_is_not_marked() {
    let env = Env::new();
    let id = edit_turn(&env);
    // As a database copied to another machine sees it: the project is not there.
    env.db()
        .execute(
            "UPDATE observation_files SET root = '/nonexistent/cmem-elsewhere', size = size + 1",
            [],
        )
        .unwrap();
    assert!(!row(&context(&env), id).contains('\u{25B3}'));
    assert!(!show(&env, id).contains("since this was observed"));
}

#[test]
fn a_decision_replaced_by_a_later_one_on_the_same_file_says_so() {
    let env = Env::new();
    env.run_ok(&["dev", "generate", "--observations", "1"]);
    let db = env.db();
    let project = env
        .project()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let insert = |title: &str, at: i64, files: &str| -> i64 {
        db.execute(
            "INSERT INTO observations (project, type, title, files_modified, created_at_epoch, source)
             VALUES (?1, 'decision', ?2, ?3, ?4, 'agent')",
            rusqlite::params![project, title, files, at],
        )
        .unwrap();
        db.last_insert_rowid()
    };
    let now = 1_800_000_000_000;
    let first = insert("Keep the pool at 10", now, r#"["src/db/pool.rs"]"#);
    let unrelated = insert("Use jiff for times", now + 1, r#"["src/time.rs"]"#);
    let second = insert("Raise the pool to 30", now + 2, r#"["src/db/pool.rs"]"#);
    assert!(
        show(&env, first)
            .lines()
            .any(|l| l == format!("superseded by #{second}"))
    );
    assert!(!show(&env, unrelated).contains("superseded"));
    assert!(!show(&env, second).contains("superseded"));
    let index = context(&env);
    assert!(
        row(&index, first).ends_with(&format!("(superseded by #{second})")),
        "{index}"
    );
}
