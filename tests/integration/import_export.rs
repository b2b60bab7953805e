//! Import (claude-mem databases, cmem JSONL) and export (lossless JSONL, the markdown memory
//! folder) through the real binary and real SQLite files.

use std::path::{Path, PathBuf};

use crate::common::Env;
use serde_json::json;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/claude-mem")
        .join(name)
}

fn source_count(db: &Path, table: &str) -> i64 {
    rusqlite::Connection::open(db)
        .unwrap()
        .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// A copy of a fixture database the test may change.
fn copy_fixture(env: &Env, name: &str) -> PathBuf {
    let to = env.root().join(name);
    std::fs::copy(fixture(name), &to).unwrap();
    to
}

#[test]
fn a_claude_mem_database_imports_once_and_renders() {
    let env = Env::new();
    let src = copy_fixture(&env, "claude-mem-13.25.3-n200.db");
    let before = std::fs::read(&src).unwrap();

    let dry = env.run_stdout(&["import", "claude-mem", src.to_str().unwrap(), "--dry-run"]);
    assert!(dry.contains("would import per project:"), "{dry}");
    assert!(
        dry.contains(
            "acme-api: 13 sessions, 26 user_prompts, 141 observations, 18 session_summaries"
        ),
        "{dry}"
    );
    assert_eq!(env.count("observations"), 0, "a dry run changes nothing");

    let out = env.run_stdout(&["import", "claude-mem", src.to_str().unwrap()]);
    for (source, ours) in [
        ("sdk_sessions", "sessions"),
        ("user_prompts", "user_prompts"),
        ("observations", "observations"),
        ("session_summaries", "session_summaries"),
        ("tool_uses", "tool_uses"),
    ] {
        assert_eq!(
            env.count(ours),
            source_count(&src, source),
            "{ours} rows match the source's {source}\n{out}"
        );
    }
    assert_eq!(
        std::fs::read(&src).unwrap(),
        before,
        "the source is only read"
    );

    let again = env.run_stdout(&["import", "claude-mem", src.to_str().unwrap()]);
    assert!(again.contains("nothing new: imported 0 rows"), "{again}");
    assert_eq!(env.count("observations"), 200);

    // Field by field for one row.
    let (title, facts, concepts, session_cs, tokens, source): (String, String, String, String, i64, String) = env
        .db()
        .query_row(
            "SELECT o.title, o.facts, o.concepts, s.content_session_id, o.discovery_tokens, o.source
             FROM observations o JOIN sessions s ON s.id = o.session_id WHERE o.origin LIKE '%:2'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?)),
        )
        .unwrap();
    assert_eq!(title, "Fixed a stale closure in orders route handler");
    assert!(
        facts.starts_with(r#"["Root cause: a stale closure"#),
        "{facts}"
    );
    assert_eq!(concepts, r#"["what-changed", "gotcha"]"#);
    assert_eq!(session_cs, "f29d0da9-953f-48f1-a09f-76b5a170b338");
    assert_eq!(tokens, 7533);
    assert_eq!(source, "import");

    // New rows in the source come in on the next run.
    let c = rusqlite::Connection::open(&src).unwrap();
    c.execute(
        "INSERT INTO observations (memory_session_id, project, type, title, narrative, created_at, created_at_epoch)
         SELECT memory_session_id, project, 'discovery', 'Added later: cache keys are per tenant', 'n', '2026-03-03T00:00:00Z', 1772496000000
         FROM sdk_sessions WHERE id = 1",
        [],
    )
    .unwrap();
    drop(c);
    let later = env.run_stdout(&["import", "claude-mem", src.to_str().unwrap()]);
    assert!(later.contains("acme-api: 1 observations"), "{later}");

    // The imported memory renders as context (and imported turns are not re-observed).
    let ctx = env.run_stdout(&["context", "--project", "acme-api"]);
    assert!(ctx.contains("# [acme-api] recent context"), "{ctx}");
    assert!(
        ctx.contains("Added later: cache keys are per tenant"),
        "{ctx}"
    );
    assert!(ctx.contains("Stats: 50 obs"), "{ctx}");
    let observed = env.run_stdout(&["observe"]);
    assert!(observed.contains("observed 0 turn(s)"), "{observed}");
}

#[test]
fn an_empty_claude_mem_database_imports_nothing_and_a_missing_one_says_so() {
    let env = Env::new();
    let out = env.run_stdout(&[
        "import",
        "claude-mem",
        fixture("claude-mem-13.25.3-empty.db").to_str().unwrap(),
    ]);
    assert!(out.contains("nothing new"), "{out}");
    let missing = env
        .cmd()
        .args(["import", "claude-mem", "/nonexistent/claude-mem.db"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no claude-mem database at"));
}

/// A database with every kind of row: synthetic memory plus a real captured, observed turn.
fn rich_env() -> Env {
    let env = Env::new();
    env.run_stdout(&[
        "dev",
        "generate",
        "--observations",
        "300",
        "--db",
        env.db_path().to_str().unwrap(),
        "--seed",
        "7",
    ]);
    let mut p = env.payload("real", json!({"prompt": "raise the window \u{1F680} 接口"}));
    p["prompt_id"] = json!("real-1");
    env.hook("user-prompt-submit", &p);
    let mut edit = env.real("PostToolUse.edit");
    edit["session_id"] = json!("real");
    edit["prompt_id"] = json!("real-1");
    env.hook("post-tool-use", &edit);
    env.hook(
        "stop",
        &env.payload(
            "real",
            json!({"prompt_id": "real-1", "last_assistant_message": "done"}),
        ),
    );
    env
}

#[test]
fn jsonl_round_trips_byte_for_byte() {
    let env = rich_env();
    let first = env.root().join("first.jsonl");
    env.run_stdout(&["export", "--out", first.to_str().unwrap()]);
    let text = std::fs::read_to_string(&first).unwrap();
    assert!(
        text.starts_with("{\"format\":\"cmem-export\",\"version\":1,\"schema\":"),
        "{}",
        &text[..80]
    );
    for table in [
        "sessions",
        "user_prompts",
        "observations",
        "session_summaries",
        "tool_uses",
        "work_state_entries",
    ] {
        assert!(
            text.contains(&format!("{{\"table\":\"{table}\"")),
            "{table} exported"
        );
    }

    let other = Env::new();
    let out = other.run_stdout(&["import", "jsonl", first.to_str().unwrap()]);
    assert!(out.contains("imported per project:"), "{out}");
    let second = other.root().join("second.jsonl");
    other.run_stdout(&["export", "--out", second.to_str().unwrap()]);
    assert!(
        std::fs::read(&first).unwrap() == std::fs::read(&second).unwrap(),
        "export → import → export is byte-identical"
    );
    let again = other.run_stdout(&["import", "jsonl", first.to_str().unwrap()]);
    assert!(again.contains("nothing new: imported 0 rows"), "{again}");

    // Into a database that already has rows, ids move and references follow.
    let busy = rich_env();
    busy.run_stdout(&["import", "jsonl", first.to_str().unwrap()]);
    let dangling: i64 = busy
        .db()
        .query_row(
            "SELECT COUNT(*) FROM tool_uses WHERE observation_id IS NOT NULL
               AND observation_id NOT IN (SELECT id FROM observations)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(dangling, 0);
}

#[test]
fn a_project_export_holds_only_that_project() {
    let env = rich_env();
    let out = env
        .cmd()
        .args(["export", "--project", "orbit-web"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("\"project\":\"orbit-web\""));
    assert!(!text.contains("\"project\":\"acme-api\""));
}

#[test]
fn markdown_export_keeps_the_index_within_claude_codes_limits() {
    let env = Env::new();
    env.run_stdout(&[
        "dev",
        "generate",
        "--observations",
        "10000",
        "--projects",
        "acme-api",
        "--db",
        env.db_path().to_str().unwrap(),
    ]);
    let dir = env.root().join("memory");
    let out = env.run_stdout(&[
        "export",
        "--format",
        "markdown",
        "--out",
        dir.to_str().unwrap(),
    ]);
    let total: i64 = env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM observations WHERE project = 'acme-api'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(total >= 9_900, "{total} observations");
    assert!(out.contains(&format!("{total} observations")), "{out}");
    let folder = dir.join("acme-api");
    let index = std::fs::read_to_string(folder.join("MEMORY.md")).unwrap();
    assert!(
        index.lines().count() <= 200,
        "{} lines",
        index.lines().count()
    );
    assert!(index.len() <= 25_000, "{} bytes", index.len());
    let mut headings = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name == "MEMORY.md" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("---\nname: "), "{name} has frontmatter");
        headings += text.matches("\n## #").count();
        if name != "sessions.md" && !index.contains("more topic files in this folder") {
            assert!(
                index.contains(&format!("]({name})")),
                "{name} is listed in MEMORY.md"
            );
        }
    }
    assert_eq!(
        headings as i64, total,
        "every observation is in a topic file"
    );
}

#[test]
fn keep_maintains_cmems_part_of_an_auto_memory_folder_and_nothing_else() {
    let env = Env::new();
    env.run_stdout(&[
        "dev",
        "generate",
        "--observations",
        "400",
        "--projects",
        "acme-api",
        "--db",
        env.db_path().to_str().unwrap(),
    ]);
    let folder = env.root().join("memory");
    // A checkout whose project key is the generated project's.
    let checkout = env.root().join("acme-api");
    std::fs::create_dir_all(&checkout).unwrap();
    let keep = || {
        let out = env
            .cmd()
            .current_dir(&checkout)
            .args(["export", "--format", "markdown", "--keep", "--out"])
            .arg(&folder)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    std::fs::create_dir_all(&folder).unwrap();
    // Claude's own index (150 lines) and topic file; a file cmem wrote once but no longer
    // makes; a name in cmem's list that is not cmem's to remove.
    let own: String = (0..150).map(|i| format!("- my note {i}\n")).collect();
    std::fs::write(folder.join("MEMORY.md"), &own).unwrap();
    std::fs::write(folder.join("debugging.md"), "mine").unwrap();
    std::fs::write(folder.join("cmem-gone.md"), "stale").unwrap();
    std::fs::write(folder.join("notes.md"), "mine too").unwrap();
    std::fs::write(folder.join(".cmem-files"), "cmem-gone.md\nnotes.md\n").unwrap();

    let out = keep();
    assert!(out.contains("1 removed"), "{out}");
    let index = std::fs::read_to_string(folder.join("MEMORY.md")).unwrap();
    assert!(
        index.starts_with(&own),
        "Claude's own lines stay first, byte for byte"
    );
    assert!(index.contains("<cmem-context>") && index.trim_end().ends_with("</cmem-context>"));
    assert!(
        index.lines().count() <= 200,
        "{} lines",
        index.lines().count()
    );
    assert!(index.len() <= 25_000);
    assert_eq!(
        std::fs::read_to_string(folder.join("debugging.md")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("notes.md")).unwrap(),
        "mine too"
    );
    assert!(!folder.join("cmem-gone.md").exists());
    let listed = std::fs::read_to_string(folder.join(".cmem-files")).unwrap();
    assert!(!listed.is_empty());
    for name in listed.lines() {
        assert!(
            name.starts_with("cmem-") && folder.join(name).is_file(),
            "{name}"
        );
    }
    // Nothing new: nothing changes.
    let again = keep();
    assert!(again.contains("0 changed, 0 removed"), "{again}");

    // A new observation in a new area; the session end refreshes the folder in the background.
    let store = cmem::store::Store::open(&env.db_path()).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let o = cmem::store::observations::NewObservation {
        project: "acme-api".into(),
        body: cmem::model::ObservationBody {
            obs_type: "feature".into(),
            title: Some("Added the ledger exporter".into()),
            files_modified: vec!["ledger/export.rs".into()],
            ..Default::default()
        },
        created_at: now,
        source: "test".into(),
        ..Default::default()
    };
    cmem::store::observations::insert(&store.conn, &o).unwrap();
    drop(store);
    let mut end = env.payload(
        "s",
        json!({"hook_event_name": "SessionEnd", "reason": "exit"}),
    );
    end["cwd"] = json!(checkout);
    env.hook("session-end", &end);
    let topic = folder.join("cmem-ledger.md");
    let start = std::time::Instant::now();
    while !topic.exists() && start.elapsed() < std::time::Duration::from_secs(20) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(topic.exists(), "the session end refreshed the kept folder");
    let index = std::fs::read_to_string(folder.join("MEMORY.md")).unwrap();
    assert!(index.starts_with(&own));
}
