//! Issue 33, point 6: a pull that removes text (another device's `cmem forget` or `cmem scrub`)
//! erases it where it was, without rebuilding the full-text indexes or vacuuming the file
//! (which held hooks off the database for as long as that took), and leaves no copy of it in
//! the database, its WAL or its shared-memory file: not in free space left by the hooks' own
//! writes either.

use serde_json::json;

use super::common::Env;
use super::{Cluster, cmem, contains, db_bytes, generate, ok, sync};

const SECRET: &str = "quagga-ledger-0815";

/// A turn on `env` through the real hooks whose prompt and tool output name `words`.
fn turn(env: &Env, session: &str, n: usize, words: &str) {
    let prompt_id = format!("{session}-p{n}");
    let mut p = env.payload(
        session,
        json!({"hook_event_name": "UserPromptSubmit", "prompt": format!("look into {words}, step {n}")}),
    );
    p["prompt_id"] = json!(prompt_id);
    env.hook("user-prompt-submit", &p);
    for k in 0..3 {
        let mut t = env.real_for(
            "PostToolUse.bash",
            session,
            &prompt_id,
            &format!("toolu_{session}_{n}_{k}"),
        );
        t["tool_response"]["stdout"] = json!(format!("{words} shows up in step {n}.{k}"));
        env.hook("post-tool-use", &t);
    }
    let mut s = env.real("Stop");
    s["session_id"] = json!(session);
    s["prompt_id"] = json!(prompt_id);
    s["last_assistant_message"] = json!(format!("Looked into {words}."));
    env.hook("stop", &s);
}

fn fts_secure_delete(env: &Env) -> Vec<i64> {
    [
        "observations_fts",
        "session_summaries_fts",
        "user_prompts_fts",
    ]
    .iter()
    .map(|fts| {
        env.rows(
            &format!("SELECT v FROM {fts}_config WHERE k = 'secure-delete'"),
            |r| r.get(0),
        )
        .pop()
        .unwrap_or(0)
    })
    .collect()
}

/// The hooks of A write the secret and keep writing (the observer rewrites the turn's rows,
/// pages split, full-text segments merge); B scrubs it; A's pull of the scrub leaves it
/// nowhere in A's files.
#[test]
fn a_pulled_scrub_leaves_no_copy_of_the_text_even_where_hooks_moved_it() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b) = (Env::new(), Env::new());
    ok(cmem(&a, &url).args(["sync", "init"]));
    for n in 0..12 {
        turn(&a, &format!("s{}", n % 3), n, SECRET);
        turn(&a, &format!("s{}", n % 3), 100 + n, "the parser");
    }
    sync(&a, &url);
    sync(&b, &url);
    assert!(contains(&db_bytes(&b), SECRET));
    assert_eq!(fts_secure_delete(&a), vec![1, 1, 1], "a new database");

    ok(b.cmd().args(["scrub", SECRET]));
    sync(&b, &url);
    let out = sync(&a, &url);
    assert!(
        out.contains("changed") && !out.contains(" 0 changed"),
        "{out}"
    );
    assert!(
        !contains(&db_bytes(&a), SECRET),
        "scrubbed on B, nowhere in A's files"
    );
    assert_eq!(
        a.count_where("user_prompts", "prompt_text LIKE '%[SCRUBBED]%'"),
        12
    );
}

/// A database from before pulls erased in place (its indexes without FTS5's secure-delete, its
/// free space possibly holding text deleted back then) is cleaned the old way once, by the first
/// pull that removes text; from then on it erases in place.
#[test]
fn a_database_from_before_is_cleaned_once_by_the_first_pull_that_removes_text() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 16, 71);
    turn(&a, "old", 1, SECRET);
    ok(cmem(&a, &url).args(["sync", "init"]));
    sync(&a, &url);
    sync(&b, &url);
    for fts in [
        "observations_fts",
        "session_summaries_fts",
        "user_prompts_fts",
    ] {
        b.db()
            .execute(
                &format!("INSERT INTO {fts} ({fts}, rank) VALUES ('secure-delete', 0)"),
                [],
            )
            .unwrap();
    }
    assert_eq!(fts_secure_delete(&b), vec![0, 0, 0]);
    turn(&a, "new", 2, "the parser");
    sync(&a, &url);
    let out = sync(&b, &url);
    assert!(out.contains("0 changed, 0 removed"), "{out}");
    assert_eq!(
        fts_secure_delete(&b),
        vec![0, 0, 0],
        "a pull that removes nothing leaves it as it is"
    );

    ok(a.cmd().args(["scrub", SECRET]));
    sync(&a, &url);
    sync(&b, &url);
    assert!(!contains(&db_bytes(&b), SECRET));
    assert_eq!(fts_secure_delete(&b), vec![1, 1, 1]);
}
