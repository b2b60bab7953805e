//! The File Read Gate through the real binary: every condition flipped on its own.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::Env;
use cmem::model::ObservationBody;
use cmem::store::Store;
use cmem::store::observations::{NewObservation, insert};
use serde_json::{Value, json};

const BIG: usize = 48_600;

fn code(bytes: usize) -> String {
    let line = "pub const CMEM_READ_GATE_MARKER: [u8; 16] = *b\"0123456789abcdef\"; // filler\n";
    line.repeat(bytes / line.len() + 1)[..bytes].to_string()
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Stores an observation of `files` (read) for `project`, newer than any file written so far.
fn observe(env: &Env, project: &str, title: &str, read: &[&str], modified: &[&str]) -> i64 {
    let store = Store::open(&env.db_path()).unwrap();
    insert(
        &store.conn,
        &NewObservation {
            project: project.into(),
            body: ObservationBody {
                obs_type: "discovery".into(),
                title: Some(title.into()),
                files_read: read.iter().map(|s| s.to_string()).collect(),
                files_modified: modified.iter().map(|s| s.to_string()).collect(),
                ..Default::default()
            },
            created_at: now_ms() + 5_000,
            source: "test".into(),
            ..Default::default()
        },
    )
    .unwrap()
    .unwrap()
}

fn read(env: &Env, session: &str, input: Value, extra: Value) -> Value {
    let mut p = env.payload(
        session,
        json!({"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": input, "tool_use_id": "toolu_1"}),
    );
    if let (Some(map), Value::Object(extra)) = (p.as_object_mut(), extra) {
        map.extend(extra);
    }
    env.hook("pre-tool-use", &p)
}

/// A project with `src/big.rs` (48,600 bytes) that the memory has seen.
fn gated() -> (Env, PathBuf) {
    let env = Env::new();
    let big = env.project().join("src/big.rs");
    write(&big, &code(BIG));
    observe(
        &env,
        "project",
        "Read src/big.rs: the filler constants",
        &["src/big.rs"],
        &[],
    );
    (env, big)
}

fn is_deny(v: &Value) -> bool {
    v["hookSpecificOutput"]["permissionDecision"] == "deny"
}

fn context_of(v: &Value) -> Option<&str> {
    v["hookSpecificOutput"]["additionalContext"].as_str()
}

fn path_input(p: &Path) -> Value {
    json!({"file_path": p.to_string_lossy()})
}

#[test]
fn whole_file_read_of_a_known_big_source_file_is_denied() {
    let (env, big) = gated();
    let v = read(&env, "s1", path_input(&big), json!({}));
    assert!(is_deny(&v), "{v}");
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    let lines: Vec<&str> = reason.lines().collect();
    assert!(
        lines[0].starts_with("Full-file Read blocked by cmem: src/big.rs has prior observations"),
        "{reason}"
    );
    assert!(lines[5].starts_with("Current: "), "{reason}");
    assert!(reason.contains(&format!(
        "mcp__cmem__smart_outline(file_path=\"{}\")",
        big.display()
    )));
    assert!(reason.contains("mcp__cmem__smart_unfold("));
    assert!(reason.contains("ToolSearch"));
    assert!(reason.contains("offset and limit"));
    assert!(reason.contains("get_observations(ids=[1])"));
    assert!(reason.contains("history from earlier sessions, not the file's current contents"));
    assert!(reason.contains("\n### "), "day heading: {reason}");
    assert!(reason.contains("1 ") && reason.contains("○ Read src/big.rs: the filler constants"));
    assert!(v["hookSpecificOutput"].get("additionalContext").is_none());
    // Every whole-file Read is denied, not only the first of the session.
    assert!(is_deny(&read(&env, "s1", path_input(&big), json!({}))));
    // A relative file_path and an absolute path in memory work too.
    let env2 = Env::new();
    let big2 = env2.project().join("src/big.rs");
    write(&big2, &code(BIG));
    observe(&env2, "project", "abs", &[], &[&big2.to_string_lossy()]);
    assert!(is_deny(&read(
        &env2,
        "s1",
        json!({"file_path": "src/big.rs"}),
        json!({})
    )));
}

#[test]
fn each_deny_condition_flipped_alone_lets_the_read_through() {
    let (env, big) = gated();
    let base = path_input(&big);
    // 1. a subagent's Read
    assert_eq!(
        read(
            &env,
            "s1",
            base.clone(),
            json!({"agent_id": "a1", "agent_type": "Explore"})
        ),
        json!({})
    );
    // 2. the gate setting
    let mut p = env.payload("s1", json!({"tool_name": "Read", "tool_input": base}));
    p["hook_event_name"] = json!("PreToolUse");
    let out = common::run_with_stdin(
        env.cmd()
            .env("CMEM_GATE_ENABLED", "false")
            .args(["hook", "pre-tool-use"]),
        p.to_string().as_bytes(),
    );
    assert_eq!(common::assert_fail_open("disabled", &out), json!({}));
    // 3. not a single file_path (several paths, or another tool)
    assert_eq!(
        read(
            &env,
            "s1",
            json!({"file_path": big.to_string_lossy(), "filePaths": [big.to_string_lossy()]}),
            json!({})
        ),
        json!({})
    );
    assert_eq!(
        read(&env, "s1", base.clone(), json!({"tool_name": "Glob"})),
        json!({})
    );
    // offset 1 is still the whole file; offset 2 is not
    assert!(is_deny(&read(
        &env,
        "s1",
        json!({"file_path": big.to_string_lossy(), "offset": 1}),
        json!({})
    )));
    assert!(is_deny(&read(
        &env,
        "s1",
        json!({"file_path": big.to_string_lossy(), "offset": "1"}),
        json!({})
    )));
    let v = read(
        &env,
        "s2",
        json!({"file_path": big.to_string_lossy(), "offset": 2}),
        json!({}),
    );
    assert!(!is_deny(&v) && context_of(&v).is_some(), "{v}");
    // a limit that covers the file still reads it whole; a smaller one does not
    assert!(is_deny(&read(
        &env,
        "s1",
        json!({"file_path": big.to_string_lossy(), "limit": 2000}),
        json!({})
    )));
    let v = read(
        &env,
        "s3",
        json!({"file_path": big.to_string_lossy(), "offset": 1, "limit": 100}),
        json!({}),
    );
    assert!(!is_deny(&v) && context_of(&v).is_some(), "{v}");
}

#[test]
fn language_size_and_place_conditions() {
    // A markdown file of the same size with history: context, never a deny.
    let (env, _) = gated();
    let md = env.project().join("docs/guide.md");
    write(
        &md,
        &"# Guide\n\nSome prose about the filler.\n".repeat(1300),
    );
    observe(&env, "project", "Read the guide", &["docs/guide.md"], &[]);
    let v = read(&env, "s1", path_input(&md), json!({}));
    assert!(!is_deny(&v) && context_of(&v).is_some(), "{v}");
    // An unknown extension: context only.
    let txt = env.project().join("notes.txt");
    write(&txt, &code(BIG));
    observe(&env, "project", "Read notes", &["notes.txt"], &[]);
    let v = read(&env, "s1", path_input(&txt), json!({}));
    assert!(!is_deny(&v) && context_of(&v).is_some(), "{v}");
    // Below the deny size: context only; below the context size: nothing.
    let mid = env.project().join("src/mid.rs");
    write(&mid, &code(20_000));
    let small = env.project().join("src/small.rs");
    write(&small, &code(1_000));
    observe(
        &env,
        "project",
        "mid and small",
        &["src/mid.rs", "src/small.rs"],
        &[],
    );
    let v = read(&env, "s1", path_input(&mid), json!({}));
    assert!(!is_deny(&v) && context_of(&v).is_some(), "{v}");
    assert_eq!(read(&env, "s1", path_input(&small), json!({})), json!({}));
    // The threshold is a setting.
    let big = env.project().join("src/big.rs");
    let p = {
        let mut p = env.payload(
            "s9",
            json!({"tool_name": "Read", "tool_input": path_input(&big)}),
        );
        p["hook_event_name"] = json!("PreToolUse");
        p
    };
    let out = common::run_with_stdin(
        env.cmd()
            .env("CMEM_GATE_DENY_MIN_BYTES", "100000")
            .args(["hook", "pre-tool-use"]),
        p.to_string().as_bytes(),
    );
    let v = common::assert_fail_open("threshold", &out);
    assert!(!is_deny(&v) && context_of(&v).is_some(), "{v}");

    // A file outside the cwd (its history stored under its absolute path): never denied.
    let outside = env.root().join("elsewhere/big.rs");
    write(&outside, &code(BIG));
    observe(
        &env,
        "project",
        "outside file",
        &[&outside.to_string_lossy()],
        &[],
    );
    let v = read(&env, "s1", path_input(&outside), json!({}));
    assert!(!is_deny(&v), "{v}");
    // A symlink inside the project that points outside: not denied either.
    #[cfg(unix)]
    {
        let link = env.project().join("src/link.rs");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        observe(&env, "project", "link", &["src/link.rs"], &[]);
        let v = read(&env, "s4", path_input(&link), json!({}));
        assert!(!is_deny(&v), "{v}");
    }
}

#[test]
fn history_conditions() {
    // No history: nothing. History of another project only: nothing.
    let env = Env::new();
    let big = env.project().join("src/big.rs");
    write(&big, &code(BIG));
    assert_eq!(read(&env, "s1", path_input(&big), json!({})), json!({}));
    observe(
        &env,
        "other-project",
        "someone else's big.rs",
        &["src/big.rs"],
        &[],
    );
    assert_eq!(read(&env, "s1", path_input(&big), json!({})), json!({}));
    observe(&env, "project", "ours", &["src/big.rs"], &[]);
    assert!(is_deny(&read(&env, "s1", path_input(&big), json!({}))));

    // Modified after the newest observation: never denied (and no stale context).
    let env = Env::new();
    let big = env.project().join("src/big.rs");
    write(&big, &code(BIG));
    let store = Store::open(&env.db_path()).unwrap();
    insert(
        &store.conn,
        &NewObservation {
            project: "project".into(),
            body: ObservationBody {
                obs_type: "change".into(),
                title: Some("old".into()),
                files_modified: vec!["src/big.rs".into()],
                ..Default::default()
            },
            created_at: now_ms() - 60_000,
            source: "test".into(),
            ..Default::default()
        },
    )
    .unwrap();
    drop(store);
    assert_eq!(read(&env, "s1", path_input(&big), json!({})), json!({}));
}

#[test]
fn context_is_injected_once_per_session_until_something_new_is_observed() {
    let (env, _) = gated();
    let mid = env.project().join("src/mid.rs");
    write(&mid, &code(20_000));
    let first = observe(&env, "project", "Refactored mid", &[], &["src/mid.rs"]);
    let v = read(&env, "s1", path_input(&mid), json!({}));
    let ctx = context_of(&v).expect("context");
    assert!(ctx.starts_with("Current: "), "{ctx}");
    assert!(ctx.contains("supplementary context"));
    assert!(ctx.contains(&format!("get_observations(ids=[{first}])")));
    assert!(
        ctx.contains("↻ Refactored mid") || ctx.contains("○ Refactored mid"),
        "{ctx}"
    );
    assert!(
        v["hookSpecificOutput"].get("permissionDecision").is_none(),
        "never an explicit allow"
    );
    assert_eq!(
        read(&env, "s1", path_input(&mid), json!({})),
        json!({}),
        "once per session"
    );
    assert!(
        context_of(&read(&env, "s2", path_input(&mid), json!({}))).is_some(),
        "another session"
    );
    let second = observe(&env, "project", "Fixed mid", &["src/mid.rs"], &[]);
    let v = read(&env, "s1", path_input(&mid), json!({}));
    let ctx = context_of(&v).expect("a newer observation is news");
    assert!(ctx.contains(&format!("{first}, {second}")), "{ctx}");
    assert!(env.data_dir().join("read-gate-seen").is_dir());
}

#[test]
fn ranking_keeps_fifteen_and_shows_them_oldest_first() {
    let (env, big) = gated();
    for i in 0..30 {
        let many: Vec<String> = (0..10).map(|k| format!("src/f{k}.rs")).collect();
        let mut read_files: Vec<&str> = many.iter().map(String::as_str).collect();
        read_files.push("src/big.rs");
        if i % 3 == 0 {
            observe(
                &env,
                "project",
                &format!("focused {i}"),
                &[],
                &["src/big.rs"],
            );
        } else {
            observe(&env, "project", &format!("broad {i}"), &read_files, &[]);
        }
    }
    let v = read(&env, "s1", path_input(&big), json!({}));
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    let rows: Vec<&str> = reason
        .lines()
        .filter(|l| {
            l.split(' ')
                .next()
                .is_some_and(|w| w.parse::<i64>().is_ok())
        })
        .collect();
    assert_eq!(rows.len(), 15, "{reason}");
    // The ten focused edits (modified, one file) outrank the broad reads.
    assert_eq!(
        rows.iter().filter(|r| r.contains("focused")).count(),
        10,
        "{reason}"
    );
    let ids: Vec<i64> = rows
        .iter()
        .map(|r| r.split(' ').next().unwrap().parse().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort();
    assert_eq!(ids, sorted, "oldest first");
}

#[test]
fn excluded_projects_and_missing_database_are_left_alone() {
    let (env, big) = gated();
    let mut p = env.payload(
        "s1",
        json!({"tool_name": "Read", "tool_input": path_input(&big)}),
    );
    p["hook_event_name"] = json!("PreToolUse");
    let out = common::run_with_stdin(
        env.cmd()
            .env("CMEM_EXCLUDED_PROJECTS", "proj*")
            .args(["hook", "pre-tool-use"]),
        p.to_string().as_bytes(),
    );
    assert_eq!(common::assert_fail_open("excluded", &out), json!({}));
    let fresh = Env::new();
    let big = fresh.project().join("src/big.rs");
    write(&big, &code(BIG));
    assert_eq!(read(&fresh, "s1", path_input(&big), json!({})), json!({}));
    assert!(
        !fresh.db_path().exists(),
        "the gate never creates a database"
    );
}
