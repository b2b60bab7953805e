//! `cmem scrub` and `cmem forget`: afterwards the string is nowhere in the database, its WAL or
//! its shared-memory file (checked with the bytes of the files, like `grep -a`).

use crate::common::Env;
use serde_json::{Value, json};

const MARK: &str = "ZEBRA-PLANET-7731";

/// Which of the database files hold `needle` (`grep -a -l`).
fn files_holding(env: &Env, needle: &str) -> Vec<String> {
    ["cmem.db", "cmem.db-wal", "cmem.db-shm"]
        .iter()
        .filter(|f| {
            std::fs::read(env.data_dir().join(f))
                .map(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes()))
                .unwrap_or(false)
        })
        .map(|f| f.to_string())
        .collect()
}

fn fixture(env: &Env, name: &str, session: &str, n: usize) -> Value {
    env.real_for(
        name,
        session,
        &format!("{session}-1"),
        &format!("toolu_{session}_{n}"),
    )
}

/// A session whose prompt, tool I/O, observations, summary and to-dos all carry `mark`.
fn marked_session(env: &Env, session: &str, mark: &str) {
    let mut p = env.payload(
        session,
        json!({"prompt": format!("find {mark} in the notes")}),
    );
    p["prompt_id"] = json!(format!("{session}-1"));
    env.hook("user-prompt-submit", &p);
    let mut read = fixture(env, "PostToolUse", session, 0);
    read["tool_response"]["file"]["content"] = json!(format!("alpha\n{mark} lives here\n"));
    env.hook("post-tool-use", &read);
    let mut todo = fixture(env, "PostToolUse.todowrite", session, 1);
    todo["tool_input"]["todos"][0]["content"] = json!(format!("Rename {mark}"));
    env.hook("post-tool-use", &todo);
    let mut grep = fixture(env, "PostToolUse.grep-files", session, 2);
    grep["tool_input"]["pattern"] = json!(mark);
    env.hook("post-tool-use", &grep);
    let mut stop = fixture(env, "Stop", session, 3);
    stop["last_assistant_message"] = json!(format!("{mark} is in small.txt"));
    env.hook("stop", &stop);
}

#[test]
fn scrub_leaves_the_string_nowhere() {
    let env = Env::new();
    marked_session(&env, "s1", MARK);
    assert!(
        !files_holding(&env, MARK).is_empty(),
        "the mark was stored first"
    );
    let rows_before = [
        env.count("user_prompts"),
        env.count("observations"),
        env.count("session_summaries"),
        env.count("tool_uses"),
        env.count("work_state_entries"),
    ];
    assert!(rows_before.iter().all(|n| *n > 0), "{rows_before:?}");

    let dry = env.run_stdout(&["scrub", MARK, "--dry-run"]);
    assert!(
        dry.contains("would scrub 1 user_prompts.prompt_text"),
        "{dry}"
    );
    assert!(dry.contains("work_state_entries.fields"), "{dry}");
    assert!(
        !files_holding(&env, MARK).is_empty(),
        "a dry run changes nothing"
    );

    let out = env.run_stdout(&["scrub", MARK]);
    assert!(out.contains("scrubbed 1 tool_uses.tool_response"), "{out}");
    assert_eq!(
        files_holding(&env, MARK),
        Vec::<String>::new(),
        "grep -a finds nothing"
    );
    // Nothing else was lost, and the replacement is there.
    let rows_after = [
        env.count("user_prompts"),
        env.count("observations"),
        env.count("session_summaries"),
        env.count("tool_uses"),
        env.count("work_state_entries"),
    ];
    assert_eq!(rows_before, rows_after);
    let prompt: String = env
        .db()
        .query_row("SELECT prompt_text FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(prompt, "find [SCRUBBED] in the notes");
    // The full-text index no longer finds it either.
    let hits: i64 = env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM user_prompts_fts WHERE user_prompts_fts MATCH 'ZEBRA'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(hits, 0);
}

#[test]
fn scrub_takes_a_regex() {
    let env = Env::new();
    marked_session(&env, "s1", "ticket-48213");
    env.run_stdout(&[
        "scrub",
        "--regex",
        r"ticket-\d{5}",
        "--replacement",
        "ticket-N",
    ]);
    assert!(files_holding(&env, "ticket-48213").is_empty());
    let prompt: String = env
        .db()
        .query_row("SELECT prompt_text FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(prompt, "find ticket-N in the notes");
}

#[test]
fn forgetting_a_project_leaves_nothing_of_it() {
    let env = Env::new();
    marked_session(&env, "s1", MARK);
    // Another project keeps its memory.
    let other = env.root().join("other-project");
    std::fs::create_dir_all(&other).unwrap();
    let mut p = env.payload(
        "s2",
        json!({"prompt": "keep me", "cwd": other.to_string_lossy()}),
    );
    p["prompt_id"] = json!("s2-1");
    env.hook("user-prompt-submit", &p);

    let dry = env.run_stdout(&["forget", "--project", "project", "--dry-run"]);
    assert!(dry.starts_with("would remove"), "{dry}");
    assert!(!files_holding(&env, MARK).is_empty());
    let out = env.run_stdout(&["forget", "--project", "project"]);
    assert!(out.contains("1 sessions"), "{out}");
    assert_eq!(files_holding(&env, MARK), Vec::<String>::new());
    assert_eq!(env.count("sessions"), 1);
    assert_eq!(env.count("user_prompts"), 1);
    assert_eq!(env.count("work_state_entries"), 0);
}

#[test]
fn forgetting_an_observation_takes_its_raw_io_with_it() {
    let env = Env::new();
    marked_session(&env, "s1", MARK);
    let (id, linked): (i64, i64) = env
        .db()
        .query_row(
            "SELECT o.id, COUNT(t.id) FROM observations o JOIN tool_uses t ON t.observation_id = o.id
             WHERE o.id IN (SELECT observation_id FROM tool_uses WHERE tool_name = 'Read')
             GROUP BY o.id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    // A turn that only looked around is one row standing for its Read and its Grep.
    assert_eq!(linked, 2);
    let out = env.run_stdout(&["forget", &id.to_string()]);
    assert_eq!(out.trim(), "removed 3 rows: 1 observations, 2 tool_uses");
    let left: i64 = env
        .db()
        .query_row(
            "SELECT COUNT(*) FROM tool_uses WHERE tool_name = 'Read'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0);
    assert_eq!(env.count("user_prompts"), 1, "the prompt stays");
}

#[test]
fn forgetting_a_prompt_takes_its_turns_raw_io_with_it() {
    let env = Env::new();
    marked_session(&env, "s1", MARK);
    let prompt: i64 = env
        .db()
        .query_row("SELECT id FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    let tool_uses = env.count("tool_uses");
    assert!(tool_uses >= 2, "the Read and the Grep");
    let out = env.run_stdout(&["forget", &format!("P{prompt}")]);
    assert_eq!(
        out.trim(),
        format!(
            "removed {} rows: 1 user_prompts, {tool_uses} tool_uses",
            tool_uses + 1
        )
    );
    assert_eq!(env.count("tool_uses"), 0);
    assert!(
        env.count("observations") > 0,
        "observations are forgotten by their own ids"
    );
    let bad = env.cmd().args(["forget", "Q9"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("P7 for a prompt"));
}

#[test]
fn forgetting_by_query_and_by_age() {
    let env = Env::new();
    marked_session(&env, "s1", MARK);
    let out = env.run_stdout(&["forget", "--query", "ZEBRA", "--dry-run"]);
    assert!(out.contains("1 user_prompts"), "{out}");
    let out = env.run_stdout(&["forget", "--older-than", "2000-01-01"]);
    assert_eq!(out.trim(), "nothing matches: removed 0 rows");
    let out = env.run_stdout(&["forget", "--older-than", "0d"]);
    assert!(out.contains("1 sessions"), "{out}");
    assert_eq!(files_holding(&env, MARK), Vec::<String>::new());
    let bad = env
        .cmd()
        .args(["forget", "--older-than", "soon"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    let none = env.cmd().arg("forget").output().unwrap();
    assert!(String::from_utf8_lossy(&none.stderr).contains("say what to forget"));
}
