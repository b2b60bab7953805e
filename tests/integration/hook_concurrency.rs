//! Many hook processes at once, and a database locked by someone else.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Env;
use serde_json::json;

#[test]
fn thirty_two_concurrent_writers_lose_nothing() {
    let env = Env::new();
    const PROCS: usize = 32;
    const EACH: usize = 50;
    let failures = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for p in 0..PROCS {
            let env = &env;
            let failures = &failures;
            s.spawn(move || {
                for i in 0..EACH {
                    let payload = env.payload(
                        &format!("session-{p}"),
                        json!({"tool_name": "Bash", "tool_use_id": format!("t-{p}-{i}"),
                               "tool_input": {"command": format!("echo {p} {i}")},
                               "tool_response": {"stdout": format!("{p} {i}")}}),
                    );
                    let out = common::run_with_stdin(
                        env.cmd().args(["hook", "post-tool-use"]),
                        payload.to_string().as_bytes(),
                    );
                    if out.status.code() != Some(0) || out.stdout != b"{}\n" {
                        failures.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    }
                }
            });
        }
    });
    assert_eq!(failures.into_inner(), 0, "hook failures");
    // Anything that had to wait in the spool is stored by the next hook.
    env.hook("stop", &env.payload("session-0", json!({})));
    assert_eq!(env.count("tool_uses"), (PROCS * EACH) as i64);
    assert_eq!(env.count("sessions"), PROCS as i64);
    let check: String = env
        .db()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(check, "ok");
}

/// Holds an exclusive lock on the database from another process (Python's sqlite3) for
/// `seconds`, in one of SQLite's two exclusive flavours.
fn hold_lock(
    db: &std::path::Path,
    seconds: f64,
    locking_mode_exclusive: bool,
) -> std::process::Child {
    let script = r#"
import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[3] == "1":
    c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("INSERT INTO work_state_entries (project, list_name, fields, created_at_epoch) VALUES ('lock', 'lock', '{}', 0)")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
c.execute("COMMIT")
"#;
    let mut child = Command::new("python3")
        .args(["-c", script])
        .arg(db)
        .arg(seconds.to_string())
        .arg(if locking_mode_exclusive { "1" } else { "0" })
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is needed for the lock test");
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");
    child
}

fn locked_database_case(locking_mode_exclusive: bool) {
    let env = Env::new();
    // Create the database first so the lock holder has something to lock.
    env.hook(
        "user-prompt-submit",
        &env.payload(
            "s-lock",
            json!({"prompt": "before the lock", "prompt_id": "p0"}),
        ),
    );
    let lock_seconds = 10.0;
    let started = Instant::now();
    let mut holder = hold_lock(&env.db_path(), lock_seconds, locking_mode_exclusive);
    let events = [
        (
            "user-prompt-submit",
            json!({"prompt": "during the lock", "prompt_id": "p1"}),
        ),
        (
            "post-tool-use",
            json!({"prompt_id": "p1", "tool_name": "Read", "tool_use_id": "locked-1", "tool_input": {"file_path": "/a"}}),
        ),
        (
            "post-tool-use-failure",
            json!({"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "locked-2", "error": "Exit code 1"}),
        ),
        (
            "stop",
            json!({"prompt_id": "p1", "last_assistant_message": "done while locked"}),
        ),
        ("session-start", json!({"source": "startup"})),
    ];
    let mut slowest = Duration::ZERO;
    for (event, extra) in &events {
        let t = Instant::now();
        let answer = env.hook(event, &env.payload("s-lock", extra.clone()));
        let took = t.elapsed();
        slowest = slowest.max(took);
        if *event == "session-start" && !locking_mode_exclusive {
            // A writer's lock does not stop WAL readers: the context is still served.
            let ctx = answer["hookSpecificOutput"]["additionalContext"]
                .as_str()
                .unwrap();
            assert!(ctx.contains("recent context"), "{ctx}");
        } else {
            assert_eq!(answer, common::noop_for(event), "{event}");
        }
        assert!(
            took < Duration::from_secs(2),
            "{event} took {took:?} under the lock"
        );
    }
    assert!(
        started.elapsed() < Duration::from_secs_f64(lock_seconds),
        "all hooks ran while the lock was held"
    );
    assert_eq!(holder.wait().unwrap().code(), Some(0));
    let spooled = std::fs::read_to_string(env.data_dir().join("spool.jsonl")).unwrap();
    assert_eq!(
        spooled.lines().count(),
        4,
        "every writing event was spooled"
    );

    env.hook(
        "session-end",
        &env.payload("s-lock", json!({"reason": "other"})),
    );
    let db = env.db();
    let prompts: i64 = db
        .query_row("SELECT COUNT(*) FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    let tools: i64 = db
        .query_row("SELECT COUNT(*) FROM tool_uses", [], |r| r.get(0))
        .unwrap();
    let last: String = db
        .query_row(
            "SELECT last_assistant_message FROM user_prompts WHERE prompt_id = 'p1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let status: String = db
        .query_row("SELECT status FROM sessions", [], |r| r.get(0))
        .unwrap();
    assert_eq!((prompts, tools), (2, 2));
    assert_eq!(last, "done while locked");
    assert_eq!(status, "completed");
    assert_eq!(
        std::fs::read_to_string(env.data_dir().join("spool.jsonl")).unwrap(),
        ""
    );
    eprintln!("slowest hook under the lock: {slowest:?}");
}

#[test]
fn a_write_locked_database_gets_noops_within_two_seconds_then_the_spool_drains() {
    locked_database_case(false);
}

#[test]
fn an_exclusively_locked_database_gets_noops_within_two_seconds_then_the_spool_drains() {
    locked_database_case(true);
}

/// The hard deadline (a timer signal, 1.85 s): a payload that never ends still gets its no-op.
#[test]
fn a_stdin_that_never_closes_gets_the_noop_before_two_seconds() {
    let env = Env::new();
    for event in ["post-tool-use", "session-start"] {
        let mut child = env
            .cmd()
            .args(["hook", event])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Half a payload, and the pipe stays open until the hook has exited.
        let mut stdin = child.stdin.take().unwrap();
        std::io::Write::write_all(&mut stdin, br#"{"session_id": "s", "cwd": "#).unwrap();
        let t = Instant::now();
        let out = child.wait_with_output().unwrap();
        let took = t.elapsed();
        drop(stdin);
        let answer = common::assert_fail_open(event, &out);
        assert_eq!(answer, common::noop_for(event), "{event}");
        assert!(
            took > Duration::from_millis(1500) && took < Duration::from_secs(2),
            "{event} answered after {took:?}"
        );
    }
    let log = env.log_text();
    assert_eq!(
        log.matches("hook deadline reached; answering no-op")
            .count(),
        2,
        "{log}"
    );
    assert!(log.contains("[hook post-tool-use] pid="), "{log}");
}

/// A write still waiting for the lock at the hard deadline (moved to 400 ms, before the busy
/// handler's 1.5 s) is spooled by the signal handler and stored by a later hook.
#[test]
fn a_write_waiting_at_the_hard_deadline_is_spooled_by_the_signal() {
    let env = Env::new();
    // A release build (CI's installed binary) cannot be told to move its deadline; the debug
    // build `cargo test` makes runs this test.
    let version = env.cmd().arg("--version").output().unwrap();
    if !String::from_utf8_lossy(&version.stdout).contains("(with test knobs)") {
        eprintln!("skipped: this cmem build has no test knobs (built without `test-faults`)");
        return;
    }
    env.hook(
        "user-prompt-submit",
        &env.payload("s-hard", json!({"prompt": "first", "prompt_id": "p0"})),
    );
    let mut holder = hold_lock(&env.db_path(), 4.0, false);
    let payload = env.payload(
        "s-hard",
        json!({"prompt_id": "p0", "tool_name": "Bash", "tool_use_id": "hard-1",
               "tool_input": {"command": "cargo test"}, "tool_response": {"stdout": "ok"}}),
    );
    let t = Instant::now();
    let out = common::run_with_stdin(
        env.cmd()
            .env("CMEM_TEST_HARD_DEADLINE_MS", "400")
            .args(["hook", "post-tool-use"]),
        payload.to_string().as_bytes(),
    );
    let took = t.elapsed();
    assert_eq!(common::assert_fail_open("post-tool-use", &out), json!({}));
    assert!(
        took >= Duration::from_millis(400) && took < Duration::from_millis(1400),
        "answered after {took:?}"
    );
    let log = env.log_text();
    assert!(
        log.contains("WARN  [hook post-tool-use]")
            && log.contains("hook deadline reached while writing; the event was spooled"),
        "{log}"
    );
    let spooled = std::fs::read_to_string(env.data_dir().join("spool.jsonl")).unwrap();
    assert_eq!(spooled.lines().count(), 1, "{spooled}");
    assert!(spooled.contains("hard-1"), "{spooled}");

    assert_eq!(holder.wait().unwrap().code(), Some(0));
    env.hook("stop", &env.payload("s-hard", json!({"prompt_id": "p0"})));
    assert_eq!(env.count_where("tool_uses", "tool_use_id = 'hard-1'"), 1);
}
