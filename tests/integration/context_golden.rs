//! `cmem context` output, byte for byte, for fixed data, a fixed clock and a fixed time zone.
//! Run with `UPDATE_GOLDEN=1` to rewrite the expected files after an intended change.

use crate::common;

use crate::common::Env;
use cmem::model::{ObservationBody, SummaryBody};
use cmem::store::observations::{self, NewObservation};
use cmem::store::summaries::{self, NewSummary};
use cmem::store::{Store, work_state};
use serde_json::json;

/// 2026-10-12 15:45 in Asia/Shanghai (07:45 UTC), the seed chapter's example time.
const NOW: i64 = 1_791_791_100_000;
const HOUR: i64 = 3_600_000;

fn golden(name: &str, actual: &str) {
    common::context_golden(name, actual);
}

fn context(env: &Env, args: &[&str], tz: &str) -> String {
    let out = env
        .cmd()
        .env("CMEM_NOW_MS", NOW.to_string())
        .env("CMEM_CONTEXT_TIMEZONE", tz)
        .arg("context")
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn obs(project: &str, t: &str, title: &str, at: i64, tokens: i64) -> NewObservation {
    NewObservation {
        project: project.into(),
        body: ObservationBody {
            obs_type: t.into(),
            title: Some(title.into()),
            subtitle: Some(format!("{title}.")),
            narrative: Some(format!("What happened: {title}.")),
            facts: vec![format!("{title} (fact)")],
            concepts: vec!["how-it-works".into()],
            ..Default::default()
        },
        discovery_tokens: tokens,
        created_at: at,
        source: "test".into(),
        ..Default::default()
    }
}

#[test]
fn empty_project() {
    let env = Env::new();
    golden(
        "empty",
        &context(&env, &["--project", "my-app"], "Asia/Shanghai"),
    );
}

#[test]
fn seed_example_four_observations_and_a_summary() {
    let env = Env::new();
    let store = Store::open(&env.db_path()).unwrap();
    let base = NOW - 2 * 24 * HOUR; // Oct 10
    for (t, title, h) in [
        ("decision", "选用 pgvector 做向量搜索", 0),
        ("bugfix", "修复连接池泄漏导致的 5xx", 1),
        ("discovery", "Worker 端口按 uid 取模计算", 2),
        ("change", "JWT 验证改为异步", 3),
    ] {
        observations::insert(&store.conn, &obs("my-app", t, title, base + h * HOUR, 1650)).unwrap();
    }
    summaries::insert(
        &store.conn,
        &NewSummary {
            project: "my-app".into(),
            body: SummaryBody {
                request: Some("给 auth 模块加刷新令牌".into()),
                investigated: Some("现有 JWT 签发流程".into()),
                learned: Some("签发是同步的".into()),
                completed: Some("改为异步签发".into()),
                next_steps: Some("补刷新令牌接口测试".into()),
                ..Default::default()
            },
            created_at: base + 5 * HOUR,
            source: "test".into(),
            ..Default::default()
        },
    )
    .unwrap();
    drop(store);
    golden(
        "seed-example",
        &context(&env, &["--project", "my-app"], "Asia/Shanghai"),
    );
}

#[test]
fn fifty_observations_from_the_generator() {
    let env = Env::new();
    let generated = env
        .cmd()
        .args([
            "dev",
            "generate",
            "--observations",
            "80",
            "--seed",
            "7",
            "--projects",
            "orbit-web",
        ])
        .args(["--end-ms", &(NOW - HOUR).to_string()])
        .output()
        .unwrap();
    assert!(generated.status.success());
    let text = context(&env, &["--project", "orbit-web"], "America/Los_Angeles");
    let rows = text
        .lines()
        .filter(|l| {
            l.split(' ')
                .next()
                .is_some_and(|w| w.parse::<i64>().is_ok())
        })
        .count();
    assert_eq!(rows, 50, "the index lists the 50 newest observations");
    golden("fifty", &text);
}

#[test]
fn work_state_with_open_and_closed_items() {
    let env = Env::new();
    let store = Store::open(&env.db_path()).unwrap();
    let w = |list: &str, fields: serde_json::Value, at: i64| {
        work_state::append(
            &store.conn,
            "my-app",
            list,
            fields.as_object().unwrap(),
            at,
            "agent",
        )
        .unwrap();
    };
    w(
        "auth-refactor",
        json!({"task": "刷新令牌接口", "status": "todo"}),
        NOW - 3 * HOUR,
    );
    w(
        "auth-refactor",
        json!({"task": "刷新令牌接口", "status": "doing"}),
        NOW - 60_000,
    );
    w(
        "auth-refactor",
        json!({"task": "补集成测试", "status": "todo", "owner": "me"}),
        NOW - 90_000,
    );
    w(
        "auth-refactor",
        json!({"task": "remove old tokens", "status": "done"}),
        NOW - 2 * HOUR,
    );
    w(
        "auth-refactor",
        json!({"branch": "feat/refresh", "ticket": null}),
        NOW - 30 * 60_000,
    );
    w(
        "release-1.2",
        json!({"task": "changelog", "status": "dropped"}),
        NOW - 26 * HOUR,
    );
    w("release-1.2", json!({"status": "done"}), NOW - 25 * HOUR);
    observations::insert(
        &store.conn,
        &obs(
            "my-app",
            "feature",
            "Refresh tokens issued on login",
            NOW - 4 * HOUR,
            900,
        ),
    )
    .unwrap();
    drop(store);
    golden(
        "work-state",
        &context(&env, &["--project", "my-app"], "UTC"),
    );
}

#[test]
fn worktree_reads_both_keys() {
    let env = Env::new();
    let wt = env.git_worktree("acme", "feature-x");
    let store = Store::open(&env.db_path()).unwrap();
    observations::insert(
        &store.conn,
        &obs(
            "acme",
            "discovery",
            "Main checkout: pool size is 20",
            NOW - 5 * HOUR,
            1200,
        ),
    )
    .unwrap();
    observations::insert(
        &store.conn,
        &obs(
            "ACME/feature-x",
            "change",
            "Worktree: raised pool size to 40",
            NOW - 2 * HOUR,
            800,
        ),
    )
    .unwrap();
    observations::insert(
        &store.conn,
        &obs("other", "change", "Unrelated project", NOW - HOUR, 800),
    )
    .unwrap();
    work_state::append(
        &store.conn,
        "acme",
        "todo",
        json!({"task": "shared list", "status": "todo"})
            .as_object()
            .unwrap(),
        NOW - HOUR,
        "agent",
    )
    .unwrap();
    work_state::append(
        &store.conn,
        "acme/feature-x",
        "todo",
        json!({"task": "worktree list", "status": "doing"})
            .as_object()
            .unwrap(),
        NOW - 30 * 60_000,
        "agent",
    )
    .unwrap();
    drop(store);
    let text = context(&env, &["--cwd", wt.to_str().unwrap()], "UTC");
    assert!(!text.contains("Unrelated project"));
    golden("worktree", &text);
}

#[test]
fn the_hook_injects_the_same_text_as_cmem_context() {
    let env = Env::new();
    let store = Store::open(&env.db_path()).unwrap();
    observations::insert(
        &store.conn,
        &obs(
            "project",
            "bugfix",
            "Fixed the flaky login test",
            NOW - HOUR,
            3000,
        ),
    )
    .unwrap();
    drop(store);
    let cli = context(&env, &[], "UTC");
    let mut cmd = env.cmd();
    cmd.env("CMEM_NOW_MS", NOW.to_string())
        .env("CMEM_CONTEXT_TIMEZONE", "UTC")
        .args(["hook", "session-start"]);
    let payload = env.payload(
        "s",
        json!({"hook_event_name": "SessionStart", "source": "startup"}),
    );
    let out = common::run_with_stdin(&mut cmd, payload.to_string().as_bytes());
    let answer = common::assert_fail_open("session-start", &out);
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap(),
        cli.trim_end_matches('\n')
    );
}

#[test]
fn json_output_reports_length_limit_and_dropped_items() {
    let env = Env::new();
    let store = Store::open(&env.db_path()).unwrap();
    for i in 0..50 {
        let mut o = obs(
            "big",
            "discovery",
            &format!("observation {i} {}", "long title words ".repeat(15)),
            NOW - (60 - i) * 60_000,
            500,
        );
        o.body.narrative = Some("narrative ".repeat(400));
        observations::insert(&store.conn, &o).unwrap();
    }
    drop(store);
    let out = env
        .cmd()
        .env("CMEM_NOW_MS", NOW.to_string())
        .env("CMEM_CONTEXT_FULL_COUNT", "5")
        .args(["context", "--project", "big", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["chars"].as_u64().unwrap() <= 10_000);
    assert_eq!(v["limit"], 10_000);
    let steps: Vec<String> = v["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["step"]["step"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(steps[0], "full_narratives", "{steps:?}");
    assert!(steps.contains(&"observations".to_string()), "{steps:?}");
    // --full skips fitting.
    let full = env
        .cmd()
        .env("CMEM_NOW_MS", NOW.to_string())
        .args(["context", "--project", "big", "--full", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&full.stdout).unwrap();
    assert!(v["chars"].as_u64().unwrap() > 10_000);
    assert!(v["limit"].is_null());
}

/// `context()` with extra environment variables.
fn context_env(env: &Env, vars: &[(&str, &str)], args: &[&str]) -> String {
    let mut cmd = env.cmd();
    cmd.env("CMEM_NOW_MS", NOW.to_string())
        .env("CMEM_CONTEXT_TIMEZONE", "UTC");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = cmd.arg("context").args(args).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Mixed observations: code types, research types, one type no mode knows, several concepts.
fn mixed_store(env: &Env) {
    let store = Store::open(&env.db_path()).unwrap();
    let base = NOW - 6 * HOUR;
    for (i, (t, title, concept)) in [
        (
            "question",
            "Does WAL mode survive a crash mid-checkpoint?",
            "background",
        ),
        ("source", "Read the SQLite WAL documentation", "method"),
        (
            "bugfix",
            "Fixed the checkpoint starvation under load",
            "problem-solution",
        ),
        (
            "finding",
            "Checkpoints never run while a reader holds a snapshot",
            "gotcha",
        ),
        (
            "contradiction",
            "Blog post says WAL needs fsync; docs disagree",
            "limitation",
        ),
        (
            "hunch",
            "Maybe the busy timeout is too short",
            "open-question",
        ),
        (
            "decision",
            "Keep synchronous=NORMAL in WAL mode",
            "trade-off",
        ),
        (
            "conclusion",
            "WAL survives crashes; only the last commits may roll back",
            "result",
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut o = obs("lab", t, title, base + i as i64 * 20 * 60_000, 800);
        o.body.concepts = vec![concept.into()];
        observations::insert(&store.conn, &o).unwrap();
    }
}

#[test]
fn index_in_the_research_mode() {
    let env = Env::new();
    mixed_store(&env);
    let text = context_env(&env, &[("CMEM_MODE", "research")], &["--project", "lab"]);
    assert!(text.contains("Mode: Research (research)"), "{text}");
    // The research types get their own symbols; code and unknown types are kept, with a dot.
    assert!(text.contains("≠ Blog post"), "{text}");
    assert!(text.contains("· Fixed the checkpoint"), "{text}");
    assert!(text.contains("· Maybe the busy timeout"), "{text}");
    golden("mode-research", &text);
}

#[test]
fn index_in_an_override_mode_and_a_user_override() {
    let env = Env::new();
    mixed_store(&env);
    let de = context_env(&env, &[("CMEM_MODE", "code--de")], &["--project", "lab"]);
    assert!(de.contains("Mode: Code-Entwicklung (code--de)"), "{de}");
    golden("mode-code-de", &de);

    // A user override in the config dir: a symbol changed, a type added, the rest inherited.
    let dir = env.root().join("config/cmem/modes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("code--lab.json"),
        r#"{"name": "Code + lab notes",
            "observation_types": [
              {"id": "decision", "emoji": "▶"},
              {"id": "hunch", "label": "Hunch", "emoji": "~", "work_emoji": "⌕"}]}"#,
    )
    .unwrap();
    let lab = context_env(&env, &[("CMEM_MODE", "code--lab")], &["--project", "lab"]);
    assert!(lab.contains("▶ Keep synchronous=NORMAL"), "{lab}");
    assert!(lab.contains("~ Maybe the busy timeout"), "{lab}");
    assert!(lab.contains("● Fixed the checkpoint"), "inherited: {lab}");
    golden("mode-user-override", &lab);

    // A broken mode stops `cmem context` with the reason, and `cmem config` names it too.
    std::fs::write(
        dir.join("code--astral.json"),
        r#"{"observation_types": [{"id": "bugfix", "emoji": "🔴"}]}"#,
    )
    .unwrap();
    let out = env
        .cmd()
        .env("CMEM_MODE", "code--astral")
        .args(["context", "--project", "lab"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Basic Multilingual Plane"), "{err}");
    // The hook falls back to the code mode and still injects the memory.
    let payload = env.payload(
        "s",
        json!({"hook_event_name": "SessionStart", "source": "startup"}),
    );
    let mut cmd = env.cmd();
    cmd.env("CMEM_MODE", "code--astral")
        .args(["hook", "session-start"]);
    let answer = common::assert_fail_open(
        "session-start",
        &common::run_with_stdin(&mut cmd, payload.to_string().as_bytes()),
    );
    let ctx = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(ctx.contains("Mode: Code Development (code)"), "{ctx}");

    let config = env.run_stdout(&["config"]);
    assert!(
        config.contains("# mode:        Code Development (code): 9 types, 7 concepts; built-in"),
        "{config}"
    );
}

#[test]
fn filtered_index_lists_only_the_chosen_types_and_concepts() {
    let env = Env::new();
    mixed_store(&env);
    let vars = [
        ("CMEM_CONTEXT_TYPES", "decision,bugfix,finding"),
        ("CMEM_CONTEXT_CONCEPTS", "trade-off, gotcha"),
    ];
    let text = context_env(&env, &vars, &["--project", "lab"]);
    assert!(
        text.contains("Showing only: types decision, bugfix, finding; concepts trade-off, gotcha")
    );
    assert!(text.contains("Keep synchronous=NORMAL"), "{text}");
    assert!(text.contains("Checkpoints never run"), "{text}");
    assert!(
        !text.contains("Fixed the checkpoint"),
        "bugfix lacks the concepts: {text}"
    );
    golden("filtered", &text);
    let json = context_env(&env, &vars, &["--project", "lab", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["shown"]["observations"], 2, "{v}");
    assert_eq!(
        v["filter"]["types"],
        json!(["decision", "bugfix", "finding"])
    );
    assert_eq!(v["mode"], "code");
    let all = context_env(&env, &[], &["--project", "lab", "--json"]);
    let all: serde_json::Value = serde_json::from_str(&all).unwrap();
    assert_eq!(all["shown"]["observations"], 8);
    assert!(all["chars"].as_u64() > v["chars"].as_u64());
}

#[test]
fn the_person_gets_a_short_coloured_summary_the_model_does_not() {
    let env = Env::new();
    let store = Store::open(&env.db_path()).unwrap();
    for i in 0..3 {
        observations::insert(
            &store.conn,
            &obs(
                "project",
                "bugfix",
                &format!("Fix number {i}"),
                NOW - (5 - i) * HOUR,
                900,
            ),
        )
        .unwrap();
    }
    for (task, status) in [
        ("write the test", "todo"),
        ("ship it", "doing"),
        ("old", "done"),
    ] {
        work_state::append(
            &store.conn,
            "project",
            "release",
            json!({"task": task, "status": status}).as_object().unwrap(),
            NOW - HOUR,
            "agent",
        )
        .unwrap();
    }
    drop(store);
    let payload = env.payload(
        "s",
        json!({"hook_event_name": "SessionStart", "source": "startup"}),
    );
    let run = |show: Option<&str>| {
        let mut cmd = env.cmd();
        cmd.env("CMEM_NOW_MS", NOW.to_string())
            .env("CMEM_CONTEXT_TIMEZONE", "UTC")
            .env("CMEM_CONTEXT_TYPES", "bugfix")
            .args(["hook", "session-start"]);
        if let Some(v) = show {
            cmd.env("CMEM_CONTEXT_SHOW_USER", v);
        }
        common::assert_fail_open(
            "session-start",
            &common::run_with_stdin(&mut cmd, payload.to_string().as_bytes()),
        )
    };
    let answer = run(None);
    let ctx = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    let msg = answer["systemMessage"].as_str().expect("on by default");
    let chars = ctx.encode_utf16().count();
    let expected = format!(
        "\x1b[36mcmem\x1b[0m injected 3 observations, 0 sessions \x1b[2m({} of 10,000 chars, mode code)\x1b[0m\n\
         \x1b[2m  only types bugfix\x1b[0m\n  2 open to-dos (release)",
        cmem::view::time::thousands(chars as i64)
    );
    assert_eq!(msg, expected);
    assert!(msg.lines().count() <= 4);
    assert!(
        !ctx.contains("injected"),
        "the person's copy stays out of the model's text"
    );
    let off = run(Some("false"));
    assert!(off.get("systemMessage").is_none(), "{off}");
    assert_eq!(off["hookSpecificOutput"], answer["hookSpecificOutput"]);
}
