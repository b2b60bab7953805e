//! The external observer (`observer.command`) with a fake command that answers valid XML,
//! malformed XML, nothing, or sleeps past the timeout: the Stop hook returns without waiting
//! every time, and the stored observations end up the XML's or stay the rule-based ones.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::Env;
use serde_json::{Value, json};

fn fake_observer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/observer/fake_observer.sh")
}

struct Setup {
    env: Env,
    seen: PathBuf,
    mode: &'static str,
}

impl Setup {
    fn new(mode: &'static str) -> Setup {
        let env = Env::new();
        let seen = env.root().join("observer-saw");
        std::fs::create_dir_all(&seen).unwrap();
        Setup { env, seen, mode }
    }

    fn hook(&self, event: &str, payload: &Value) -> Value {
        let mut c = self.env.cmd();
        c.env(
            "CMEM_OBSERVER_COMMAND",
            format!(
                "sh {} {} {}",
                fake_observer().display(),
                self.mode,
                self.seen.display()
            ),
        )
        .env("CMEM_OBSERVER_TIMEOUT_SECS", "3")
        .args(["hook", event]);
        let out = common::run_with_stdin(&mut c, payload.to_string().as_bytes());
        common::assert_fail_open(event, &out)
    }

    fn payload(&self, name: &str, session: &str, n: usize) -> Value {
        self.env.real_for(
            name,
            session,
            &format!("{session}-p"),
            &format!("toolu_{session}_{n}"),
        )
    }

    /// A turn that edits src/auth.rs, closed by Stop.
    fn turn(&self, session: &str) {
        let mut p = self
            .env
            .payload(session, json!({"prompt": "raise the refresh window"}));
        p["prompt_id"] = json!(format!("{session}-p"));
        self.hook("user-prompt-submit", &p);
        self.hook(
            "post-tool-use",
            &self.payload("PostToolUse.edit", session, 0),
        );
        assert_eq!(
            self.hook("stop", &self.payload("Stop", session, 1)),
            json!({})
        );
    }

    fn count(&self, prefix: &str) -> usize {
        std::fs::read_dir(&self.seen)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(prefix)
            })
            .count()
    }

    fn observations(&self) -> Vec<(String, String, String)> {
        self.env.rows(
            "SELECT type, title, source FROM observations ORDER BY id",
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
    }

    fn externally_done(&self) -> usize {
        self.env
            .db()
            .query_row(
                "SELECT COUNT(*) FROM user_prompts WHERE external_observed_at_epoch IS NOT NULL",
                [],
                |r| r.get::<_, i64>(0),
            )
            .unwrap() as usize
    }

    /// Polls until `n` turns are marked done by the external observer (or fails after 30 s).
    fn wait_external(&self, n: usize) {
        let until = Instant::now() + Duration::from_secs(30);
        while self.externally_done() < n {
            assert!(Instant::now() < until, "external observer never finished");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Whether the log comes to hold `text` within 10 s (the worker logs a turn's outcome just
    /// after it marks the turn done).
    fn logged(&self, text: &str) -> bool {
        let until = Instant::now() + Duration::from_secs(10);
        while !self.env.log_text().contains(text) {
            if Instant::now() >= until {
                return false;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        true
    }
}

const RULE_TITLE: &str = "refresh_window in src/auth.rs: 30 \u{2192} 300";

/// Right after the Stop hook returned, the observer is still running and the rule-based
/// result is what is stored: the hook did not wait.
fn assert_hook_did_not_wait(s: &Setup) {
    let until = Instant::now() + Duration::from_secs(20);
    while s.count("started.") == 0 {
        assert!(Instant::now() < until, "the observer was never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(s.count("started."), 1, "the observer was started once");
    assert_eq!(
        s.count("finished."),
        0,
        "the hook returned while the observer ran"
    );
    assert_eq!(s.externally_done(), 0);
    assert_eq!(
        s.observations(),
        vec![("change".into(), RULE_TITLE.into(), "rules".into())]
    );
}

#[test]
fn valid_xml_replaces_the_rule_based_result() {
    let s = Setup::new("valid");
    s.turn("v");
    assert_hook_did_not_wait(&s);
    s.wait_external(1);
    assert_eq!(
        s.observations(),
        vec![(
            "decision".into(),
            "Chose a 300 s token refresh window in src/auth.rs".into(),
            "observer".into()
        )]
    );
    let db = s.env.db();
    let (facts, concepts, files, linked): (String, String, String, i64) = db
        .query_row(
            "SELECT facts, concepts, files_modified,
                    (SELECT COUNT(*) FROM tool_uses t WHERE t.observation_id = o.id)
             FROM observations o",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(
        facts,
        r#"["refresh_window in src/auth.rs returns 300","30 s caused early logouts"]"#
    );
    assert_eq!(concepts, r#"["trade-off","what-changed"]"#);
    assert_eq!(files, r#"["src/auth.rs"]"#);
    assert_eq!(
        linked, 1,
        "the Edit is linked to the observer's observation"
    );
    let (learned, source): (String, String) = db
        .query_row("SELECT learned, source FROM session_summaries", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(learned, "A 30 s window logged users out early");
    assert_eq!(source, "observer");
    // What the command got on stdin: the reference's turn format, and it ran as internal.
    let stdin = std::fs::read_to_string(s.seen.join("stdin.0")).unwrap();
    assert!(
        stdin.contains("<user_request>raise the refresh window</user_request>"),
        "{stdin}"
    );
    assert!(
        stdin.contains("<what_happened>Edit</what_happened>"),
        "{stdin}"
    );
    assert!(
        stdin.contains("\"old_string\": \"pub fn refresh_window()"),
        "{stdin}"
    );
    assert_eq!(
        std::fs::read_to_string(s.seen.join("env.0"))
            .unwrap()
            .trim(),
        "CMEM_INTERNAL=1"
    );
}

/// A turn whose observer (`mode` of the fake) answers nothing usable keeps the rule-based
/// observation, and the log says `why`.
fn assert_rules_kept(mode: &'static str, session: &str, why: &str) {
    let s = Setup::new(mode);
    s.turn(session);
    assert_hook_did_not_wait(&s);
    s.wait_external(1);
    assert_eq!(
        s.observations(),
        vec![("change".into(), RULE_TITLE.into(), "rules".into())]
    );
    assert!(s.logged(why), "{}", s.env.log_text());
}

#[test]
fn malformed_xml_keeps_the_rule_based_result() {
    assert_rules_kept("malformed", "m", "no valid observation or summary XML");
}

#[test]
fn an_empty_reply_keeps_the_rule_based_result() {
    assert_rules_kept("empty", "e", "the command printed nothing");
}

#[test]
fn a_command_past_its_timeout_is_killed_and_one_worker_runs_at_a_time() {
    let s = Setup::new("sleep");
    s.turn("a");
    assert_hook_did_not_wait(&s);
    // A second turn while the first command sleeps: its hook finds the worker running and
    // leaves the turn to it, so still only one command runs.
    s.turn("b");
    assert_eq!(s.count("started."), 1, "one observer per data dir");
    s.wait_external(2);
    assert_eq!(
        s.count("started."),
        2,
        "the running worker took the second turn too"
    );
    assert_eq!(
        s.count("finished."),
        0,
        "both commands were killed at the timeout"
    );
    for n in 0..2 {
        let pid = std::fs::read_to_string(s.seen.join(format!("started.{n}"))).unwrap();
        // Gone, or a zombie waiting for a parent that is not a real init to reap it.
        let state = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .ok()
            .and_then(|s| s.rsplit(')').next().map(|r| r.trim().chars().next()))
            .flatten();
        assert!(
            matches!(state, None | Some('Z')),
            "the timed-out command {pid} still runs ({state:?})"
        );
    }
    let obs = s.observations();
    assert!(
        obs.iter()
            .all(|(_, title, source)| title == RULE_TITLE && source == "rules"),
        "{obs:?}"
    );
    assert!(s.logged("timed out after 3 s"), "{}", s.env.log_text());
}
