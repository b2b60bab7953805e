//! The rule-based observer end to end: turns built from real Claude Code payloads go through
//! the real hooks (the Stop hook runs the observer), and the stored observations, their tool
//! links and the turn summaries are checked field by field.

use crate::common;

use crate::common::Env;
use serde_json::{Value, json};

/// A real payload with its placeholder paths pointed at the env's project, for one session.
fn payload(env: &Env, name: &str, session: &str, turn: &str, n: usize) -> Value {
    let mut v = env.real_for(
        name,
        session,
        &format!("{session}-{turn}"),
        &format!("toolu_{session}_{turn}_{n}"),
    );
    let map = v.as_object_mut().unwrap();
    map.remove("agent_id");
    map.remove("agent_type");
    v
}

/// One tool event: the fixture and how to adjust it.
struct Step {
    fixture: &'static str,
    tweak: Box<dyn Fn(&mut Value)>,
}

fn step(fixture: &'static str) -> Step {
    Step {
        fixture,
        tweak: Box::new(|_| {}),
    }
}

fn tweaked(fixture: &'static str, f: impl Fn(&mut Value) + 'static) -> Step {
    Step {
        fixture,
        tweak: Box::new(f),
    }
}

fn bash(fixture: &'static str, command: &'static str, out: &'static str) -> Step {
    tweaked(fixture, move |v| {
        v["tool_input"]["command"] = json!(command);
        if v.get("error").is_some() {
            v["error"] = json!(format!("Exit code 101\n{out}"));
        } else {
            v["tool_response"]["stdout"] = json!(out);
        }
    })
}

fn event_of(fixture: &str) -> &'static str {
    if fixture.starts_with("PostToolUseFailure") {
        "post-tool-use-failure"
    } else {
        "post-tool-use"
    }
}

/// Runs a whole turn (prompt, tools, Stop) through the real hooks.
fn run_turn(env: &Env, session: &str, turn: &str, prompt: &str, steps: &[Step], last: &str) {
    let mut p = env.payload(
        session,
        json!({"prompt": prompt, "hook_event_name": "UserPromptSubmit"}),
    );
    p["prompt_id"] = json!(format!("{session}-{turn}"));
    env.hook("user-prompt-submit", &p);
    for (n, s) in steps.iter().enumerate() {
        let mut v = payload(env, s.fixture, session, turn, n);
        (s.tweak)(&mut v);
        assert_eq!(env.hook(event_of(s.fixture), &v), json!({}));
    }
    let mut stop = payload(env, "Stop", session, turn, 99);
    stop["last_assistant_message"] = json!(last);
    assert_eq!(env.hook("stop", &stop), json!({}));
}

#[derive(Debug)]
struct Obs {
    id: i64,
    obs_type: String,
    title: String,
    subtitle: String,
    narrative: String,
    facts: Vec<String>,
    concepts: Vec<String>,
    files_read: Vec<String>,
    files_modified: Vec<String>,
    discovery_tokens: i64,
    source: String,
    tools: Vec<String>,
}

fn list(text: String) -> Vec<String> {
    serde_json::from_str(&text).unwrap()
}

fn observations(env: &Env, session: &str) -> Vec<Obs> {
    let db = env.db();
    let mut stmt = db
        .prepare(
            "SELECT o.id, o.type, o.title, IFNULL(o.subtitle, ''), IFNULL(o.narrative, ''), o.facts,
                    o.concepts, o.files_read, o.files_modified, o.discovery_tokens, o.source
             FROM observations o JOIN sessions s ON s.id = o.session_id
             WHERE s.content_session_id = ?1 ORDER BY o.id",
        )
        .unwrap();
    let mut out: Vec<Obs> = stmt
        .query_map([session], |r| {
            Ok(Obs {
                id: r.get(0)?,
                obs_type: r.get(1)?,
                title: r.get(2)?,
                subtitle: r.get(3)?,
                narrative: r.get(4)?,
                facts: list(r.get(5)?),
                concepts: list(r.get(6)?),
                files_read: list(r.get(7)?),
                files_modified: list(r.get(8)?),
                discovery_tokens: r.get(9)?,
                source: r.get(10)?,
                tools: Vec::new(),
            })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for o in &mut out {
        let mut s = db
            .prepare("SELECT tool_name FROM tool_uses WHERE observation_id = ?1 ORDER BY id")
            .unwrap();
        o.tools = s
            .query_map([o.id], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
    }
    out
}

#[derive(Debug, Default)]
struct Sum {
    request: Option<String>,
    investigated: Option<String>,
    learned: Option<String>,
    completed: Option<String>,
    next_steps: Option<String>,
    notes: Option<String>,
    files_read: Vec<String>,
    files_edited: Vec<String>,
}

fn summaries(env: &Env, session: &str) -> Vec<Sum> {
    let db = env.db();
    let mut stmt = db
        .prepare(
            "SELECT request, investigated, learned, completed, next_steps, notes, files_read, files_edited
             FROM session_summaries m JOIN sessions s ON s.id = m.session_id
             WHERE s.content_session_id = ?1 ORDER BY m.id",
        )
        .unwrap();
    stmt.query_map([session], |r| {
        Ok(Sum {
            request: r.get(0)?,
            investigated: r.get(1)?,
            learned: r.get(2)?,
            completed: r.get(3)?,
            next_steps: r.get(4)?,
            notes: r.get(5)?,
            files_read: list(r.get(6)?),
            files_edited: list(r.get(7)?),
        })
    })
    .unwrap()
    .map(Result::unwrap)
    .collect()
}

fn one(env: &Env, session: &str) -> Obs {
    let mut all = observations(env, session);
    assert_eq!(all.len(), 1, "{all:#?}");
    all.remove(0)
}

const RUST_LIB: &str = "//! Demo.\n\npub fn answer() -> u32 {\n    42\n}\n\npub struct Config {\n    pub limit: u32,\n}\n";

fn read_lib() -> Step {
    tweaked("PostToolUse", |v| {
        let path = v["tool_input"]["file_path"]
            .as_str()
            .unwrap()
            .replace("small.txt", "src/lib.rs");
        v["tool_input"]["file_path"] = json!(path);
        v["tool_response"]["file"] = json!({"filePath": path, "content": RUST_LIB, "numLines": 9, "startLine": 1, "totalLines": 9});
    })
}

#[test]
fn reads_become_one_discovery_naming_files_and_symbols() {
    let env = Env::new();
    run_turn(
        &env,
        "read",
        "1",
        "what does the library define?",
        &[read_lib(), step("PostToolUse"), read_lib()],
        "It defines answer() and Config.",
    );
    let o = one(&env, "read");
    assert_eq!(o.obs_type, "discovery");
    assert_eq!(o.title, "Read src/lib.rs, small.txt");
    assert_eq!(o.subtitle, "Read 2 files.");
    assert_eq!(
        o.facts,
        vec![
            "src/lib.rs: 9 lines; defines answer, Config",
            "small.txt: 3 lines"
        ]
    );
    assert_eq!(o.concepts, vec!["how-it-works"]);
    assert_eq!(o.files_read, vec!["src/lib.rs", "small.txt"]);
    assert!(o.files_modified.is_empty());
    assert_eq!(
        o.tools,
        vec!["Read", "Read", "Read"],
        "every read is linked"
    );
    assert!(o.discovery_tokens > 0);
    assert_eq!(o.source, "rules");
    assert!(
        o.narrative.contains("what does the library define?"),
        "{}",
        o.narrative
    );
    let s = &summaries(&env, "read")[0];
    assert_eq!(s.request.as_deref(), Some("what does the library define?"));
    assert_eq!(
        s.investigated.as_deref(),
        Some("Read src/lib.rs, small.txt.")
    );
    assert_eq!(s.learned, None);
    assert_eq!(s.completed, None);
    assert_eq!(s.next_steps, None);
    assert_eq!(s.notes.as_deref(), Some("It defines answer() and Config."));
    assert_eq!(s.files_read, vec!["src/lib.rs", "small.txt"]);
}

#[test]
fn one_read_names_what_the_file_defines() {
    let env = Env::new();
    run_turn(&env, "r1", "1", "read lib", &[read_lib()], "ok");
    assert_eq!(
        one(&env, "r1").title,
        "Read src/lib.rs: defines answer, Config"
    );
}

#[test]
fn in_another_mode_the_rules_write_that_modes_types() {
    let env = Env::new();
    let config = env.root().join("config/cmem");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[context]\nmode = \"research\"\n",
    )
    .unwrap();
    run_turn(
        &env,
        "edit",
        "1",
        "raise the token refresh window to 300 seconds",
        &[step("PostToolUse.edit")],
        "Done: refresh_window() now returns 300.",
    );
    let o = one(&env, "edit");
    assert_eq!(
        o.obs_type, "finding",
        "research maps the rules' change to finding"
    );
    let ctx = env.run_stdout(&["context", "--cwd", &env.project().to_string_lossy()]);
    assert!(ctx.contains("Mode: Research (research)"), "{ctx}");
    assert!(
        ctx.lines()
            .any(|l| l.contains("\u{25cb} refresh_window in src/auth.rs")),
        "the row carries the research mode's finding symbol:\n{ctx}"
    );
}

#[test]
fn an_edit_names_the_file_the_function_and_the_change() {
    let env = Env::new();
    run_turn(
        &env,
        "edit",
        "1",
        "raise the token refresh window to 300 seconds",
        &[step("PostToolUse.edit")],
        "Done: refresh_window() now returns 300.",
    );
    let o = one(&env, "edit");
    assert_eq!(o.obs_type, "change");
    assert_eq!(o.title, "refresh_window in src/auth.rs: 30 \u{2192} 300");
    assert_eq!(
        o.subtitle,
        "raise the token refresh window to 300 seconds \u{2192} Done: refresh_window() now returns 300.",
        "the turn's own words: the request, then the assistant's statement of what was done"
    );
    assert_eq!(
        o.facts,
        vec![
            "src/auth.rs: 1 line added, 1 removed in 1 edit; changed refresh_window",
            "`30` became `300`"
        ]
    );
    assert_eq!(o.concepts, vec!["what-changed"]);
    assert_eq!(o.files_modified, vec!["src/auth.rs"]);
    assert_eq!(o.tools, vec!["Edit"]);
    let s = &summaries(&env, "edit")[0];
    assert_eq!(
        s.completed.as_deref(),
        Some("refresh_window in src/auth.rs: 30 \u{2192} 300."),
        "completed work in project terms"
    );
    assert_eq!(
        s.notes.as_deref(),
        Some("Done: refresh_window() now returns 300."),
        "the assistant's own words, once"
    );
    assert_eq!(s.files_edited, vec!["src/auth.rs"]);
}

#[test]
fn a_check_that_fails_then_passes_after_an_edit_is_a_bugfix() {
    let env = Env::new();
    run_turn(
        &env,
        "fix",
        "1",
        "make the auth tests pass",
        &[
            read_lib(),
            bash(
                "PostToolUseFailure.bash",
                "cargo test auth::",
                "running 1 test\ntest auth::refresh_window ... FAILED\n\nfailures:\n    expected 300, got 30\n\ntest result: FAILED. 0 passed; 1 failed",
            ),
            step("PostToolUse.edit"),
            bash(
                "PostToolUse.bash",
                "cargo test auth::",
                "running 1 test\ntest auth::refresh_window ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored",
            ),
        ],
        "Fixed. Next steps:\n- add a regression test for the expiry edge\n- update the changelog",
    );
    // The read beside the fix is no row of its own: its fact is the fix's.
    let all = observations(&env, "fix");
    assert_eq!(all.len(), 1, "{all:#?}");
    let fix = &all[0];
    assert_eq!(fix.obs_type, "bugfix");
    assert_eq!(
        fix.title,
        "Fixed refresh_window in src/auth.rs: 30 \u{2192} 300; auth::refresh_window passes"
    );
    assert_eq!(
        fix.subtitle,
        "make the auth tests pass \u{2192} `cargo test auth::` failed, then passed after refresh_window in src/auth.rs changed.",
    );
    assert_eq!(
        fix.facts,
        vec![
            "`cargo test auth::` failed (exit 101): test auth::refresh_window ... FAILED",
            "Failing tests: auth::refresh_window",
            "src/auth.rs: 1 line added, 1 removed in 1 edit; changed refresh_window",
            "`cargo test auth::` passed: test result: ok. 1 passed; 0 failed; 0 ignored",
            "src/lib.rs: 9 lines; defines answer, Config",
        ]
    );
    assert_eq!(fix.concepts, vec!["problem-solution", "what-changed"]);
    assert_eq!(fix.files_modified, vec!["src/auth.rs"]);
    assert_eq!(fix.files_read, vec!["src/lib.rs"]);
    assert_eq!(fix.tools, vec!["Bash", "Edit", "Bash"]);
    let s = &summaries(&env, "fix")[0];
    assert_eq!(
        s.learned.as_deref(),
        Some("`cargo test auth::` failed (exit 101): test auth::refresh_window ... FAILED."),
        "what failed on the way, once"
    );
    assert_eq!(
        s.completed.as_deref(),
        Some("Fixed refresh_window in src/auth.rs: 30 \u{2192} 300; auth::refresh_window passes."),
        "\"Fixed.\" says less than the title"
    );
    assert_eq!(
        s.next_steps.as_deref(),
        Some("add a regression test for the expiry edge; update the changelog.")
    );
    assert_eq!(
        s.notes.as_deref(),
        Some("Fixed."),
        "the next steps are the summary's, not repeated in its notes"
    );
    assert_eq!(s.investigated.as_deref(), Some("Read src/lib.rs."));
}

#[test]
fn writes_create_features_and_update_changes() {
    let env = Env::new();
    run_turn(
        &env,
        "write",
        "1",
        "add a Fresh type and bump the answer",
        &[
            step("PostToolUse.write-create"),
            step("PostToolUse.write-update"),
        ],
        "Done.",
    );
    let all = observations(&env, "write");
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!(all[0].obs_type, "feature");
    assert_eq!(all[0].title, "Created src/new.rs (Fresh)");
    assert_eq!(
        all[0].facts,
        vec!["src/new.rs created (5 lines); defines Fresh"]
    );
    assert_eq!(all[0].files_modified, vec!["src/new.rs"]);
    assert_eq!(all[1].obs_type, "change");
    assert_eq!(all[1].title, "answer in src/lib.rs: 42 \u{2192} 43");
}

#[test]
fn a_refactor_request_types_edits_as_refactors() {
    let env = Env::new();
    run_turn(
        &env,
        "refactor",
        "1",
        "Refactor the auth window code",
        &[step("PostToolUse.edit")],
        "ok",
    );
    let o = one(&env, "refactor");
    assert_eq!(o.obs_type, "refactor");
    assert!(
        o.title
            .starts_with("refresh_window in src/auth.rs: 30 \u{2192} 300"),
        "{}",
        o.title
    );
}

/// One prompt applying the same change to ten files (issue 29): one observation naming the
/// change, the file count and the sites, every file in `files_modified`, the test run after it
/// folded in.
#[test]
fn a_sweep_over_ten_files_is_one_observation() {
    let env = Env::new();
    let mut steps: Vec<Step> = (0..10)
        .map(|i| {
            tweaked("PostToolUse.edit", move |v| {
                let path = v["tool_input"]["file_path"]
                    .as_str()
                    .unwrap()
                    .replace("src/auth.rs", &format!("src/mod{i}.rs"));
                let original = format!(
                    "pub fn f{i}() {{\n    log_event(\"start\");\n    work();\n    log_event(\"done\");\n}}\n"
                );
                v["tool_input"] = json!({"file_path": path, "old_string": "log_event(",
                    "new_string": "tracing::info!(", "replace_all": true});
                v["tool_response"] = json!({"filePath": path, "oldString": "log_event(",
                    "newString": "tracing::info!(", "originalFile": original,
                    "replaceAll": true, "structuredPatch": []});
            })
        })
        .collect();
    steps.push(bash(
        "PostToolUse.bash",
        "cargo test",
        "test result: ok. 12 passed; 0 failed",
    ));
    run_turn(
        &env,
        "sweep",
        "1",
        "Replace every log_event(...) call with tracing::info!(...).",
        &steps,
        "Done: all 20 log_event calls in src/mod0.rs … src/mod9.rs now use tracing::info!.",
    );
    let all = observations(&env, "sweep");
    assert_eq!(all.len(), 1, "{all:#?}");
    let o = &all[0];
    assert!(
        o.title.starts_with(
            "`log_event` \u{2192} `tracing::info!` in 10 files, 20 sites: src/mod0.rs"
        ),
        "{}",
        o.title
    );
    assert!(
        o.title.contains("and "),
        "the first files and how many more: {}",
        o.title
    );
    assert_eq!(o.files_modified.len(), 10, "{o:#?}");
    assert!(
        o.narrative.contains("src/mod9.rs"),
        "all files in the narrative"
    );
    assert_eq!(o.tools.iter().filter(|t| *t == "Edit").count(), 10);
    assert_eq!(
        o.tools.last().map(String::as_str),
        Some("Bash"),
        "the test run folded in"
    );
}

#[test]
fn a_missing_file_is_remembered() {
    let env = Env::new();
    run_turn(
        &env,
        "missing",
        "1",
        "read missing.txt",
        &[step("PostToolUseFailure.read-missing")],
        "It does not exist.",
    );
    let o = one(&env, "missing");
    assert_eq!(o.obs_type, "discovery");
    assert_eq!(o.title, "missing.txt does not exist");
    assert_eq!(
        o.facts,
        vec!["missing.txt could not be read: File does not exist. Note: your current working directory is ".to_string()
            + &env.project().to_string_lossy()
            + "."]
    );
}

#[test]
fn searches_give_patterns_and_hit_counts() {
    let env = Env::new();
    run_turn(
        &env,
        "search",
        "1",
        "where is answer defined?",
        &[
            step("PostToolUse.grep-files"),
            step("PostToolUse.glob"),
            step("PostToolUse.grep-none"),
        ],
        "In src/lib.rs.",
    );
    let o = one(&env, "search");
    assert_eq!(o.obs_type, "discovery");
    assert_eq!(
        o.title,
        "Searched `fn answer` (1 file), `**/*.rs` (2 files), `zzz_nothing` (0 files)"
    );
    assert_eq!(
        o.facts,
        vec![
            "Grep `fn answer`: 1 file (src/lib.rs)",
            "Glob `**/*.rs`: 2 files (src/new.rs, src/lib.rs)",
            "Grep `zzz_nothing`: 0 files",
        ]
    );
    assert_eq!(o.tools, vec!["Grep", "Glob", "Grep"]);
    let s = &summaries(&env, "search")[0];
    assert_eq!(
        s.investigated.as_deref(),
        Some(
            "searched `fn answer` (1 file); searched `**/*.rs` (2 files); searched `zzz_nothing` (0 files)."
        )
    );
}

#[test]
fn a_content_search_counts_lines() {
    let env = Env::new();
    run_turn(
        &env,
        "grepc",
        "1",
        "list functions",
        &[step("PostToolUse.grep-content")],
        "one",
    );
    assert_eq!(one(&env, "grepc").title, "Searched `fn ` (1 line)");
}

#[test]
fn checks_that_pass_or_fail_without_a_fix_are_discoveries() {
    let env = Env::new();
    run_turn(
        &env,
        "pass",
        "1",
        "run the tests",
        &[bash(
            "PostToolUse.bash",
            "cargo test",
            "running 4 tests\n\ntest result: ok. 4 passed; 0 failed; 0 ignored",
        )],
        "All green.",
    );
    let o = one(&env, "pass");
    assert_eq!(o.obs_type, "discovery");
    assert_eq!(o.title, "`cargo test` passes (4 passed)");
    assert_eq!(o.subtitle, "check the window again (`cargo test`).");
    let s = &summaries(&env, "pass")[0];
    assert_eq!(
        s.completed, None,
        "a passing check is the observation's title, not repeated as completed work"
    );

    run_turn(
        &env,
        "fail",
        "1",
        "run the tests",
        &[bash(
            "PostToolUseFailure.bash",
            "npm test",
            "FAIL src/a.test.ts\n  ✕ parses dates (3 ms)\nTests: 1 failed, 3 passed, 4 total",
        )],
        "One test fails.",
    );
    let o = one(&env, "fail");
    // Which test, how many, and how it failed.
    assert_eq!(
        o.title,
        "`npm test` fails (1 failed): parses dates \u{2014} FAIL src/a.test.ts"
    );
    assert_eq!(o.concepts, vec!["problem-solution", "gotcha"]);
    assert!(
        o.facts
            .contains(&"Failing tests: src/a.test.ts, parses dates".to_string()),
        "{:?}",
        o.facts
    );
    let s = &summaries(&env, "fail")[0];
    assert_eq!(
        s.learned, None,
        "the failure is the observation's title, not repeated in the summary"
    );
}

#[test]
fn look_around_commands_join_the_reads() {
    let env = Env::new();
    run_turn(
        &env,
        "look",
        "1",
        "is zzz used?",
        &[step("PostToolUse.bash-no-match")],
        "No.",
    );
    let o = one(&env, "look");
    assert_eq!(o.obs_type, "discovery");
    assert_eq!(o.title, "`grep zzz_nothing src/lib.rs`: No matches found");
    assert_eq!(o.subtitle, "Ran 1 look-around command.");
}

#[test]
fn commits_and_other_changes_by_command() {
    let env = Env::new();
    run_turn(
        &env,
        "commit",
        "1",
        "commit it",
        &[bash(
            "PostToolUse.bash",
            "git add -A && git commit -m \"Raise the refresh window to 300 s\"",
            "[main 1a2b3c4] Raise the refresh window to 300 s\n 1 file changed",
        )],
        "Committed.",
    );
    let o = one(&env, "commit");
    assert_eq!(o.obs_type, "change");
    assert_eq!(
        o.title, "Committed 1a2b3c4 on main (1 file): Raise the refresh window to 300 s",
        "the hash git printed finds the commit again"
    );
    // A chain that continues a cherry-pick, tests and pushes is known by the commit it made.
    run_turn(
        &env,
        "pick",
        "1",
        "cherry pick it onto release/2.4 and push",
        &[bash(
            "PostToolUse.bash",
            "git add CHANGELOG.md && git cherry-pick --continue && go test ./app/auth/... && git push origin release/2.4",
            "[release/2.4 b77d0f3] auth: rotate session id on login\n 2 files changed, 19 insertions(+)\nok  \tgithub.com/acme/portal/app/auth\t0.044s\nTo github.com:acme/portal.git\n   91c2e4a..b77d0f3  release/2.4 -> release/2.4",
        )],
        "Done.",
    );
    let title = one(&env, "pick").title;
    assert!(
        title.starts_with(
            "Cherry-picked onto release/2.4 as b77d0f3 (2 files), pushed: auth: rotate session id on login"
        ),
        "{title}"
    );
    // A push git rejected left the commit on the machine.
    run_turn(
        &env,
        "rejected",
        "1",
        "commit and push",
        &[bash(
            "PostToolUse.bash",
            "git commit -am \"Bump the pool size\" && git push",
            "[main 5e6f7a8] Bump the pool size\n 1 file changed\nTo github.com:acme/portal.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:acme/portal.git'",
        )],
        "The push was rejected.",
    );
    let title = one(&env, "rejected").title;
    assert!(
        title.starts_with("Committed 5e6f7a8 on main (1 file): Bump the pool size"),
        "{title}"
    );
}

#[test]
fn mcp_calls_name_server_tool_arguments_and_result() {
    let env = Env::new();
    run_turn(
        &env,
        "mcp",
        "1",
        "shout hello",
        &[step("PostToolUse.mcp-tool")],
        "HELLO",
    );
    let o = one(&env, "mcp");
    assert_eq!(o.obs_type, "discovery");
    assert_eq!(
        o.title,
        "tiny.echo_upper(text=hello via claude code) \u{2192} HELLO VIA CLAUDE CODE"
    );
    assert_eq!(
        o.facts,
        vec![
            "MCP server tiny, tool echo_upper",
            "Arguments: text=hello via claude code",
            "Result: HELLO VIA CLAUDE CODE"
        ]
    );
    assert_eq!(o.tools, vec!["mcp__tiny__echo_upper"]);
}

#[test]
fn web_fetches_and_searches() {
    let env = Env::new();
    run_turn(
        &env,
        "web",
        "1",
        "look up fts5",
        &[
            step("PostToolUseFailure.webfetch"),
            step("PostToolUse.websearch"),
        ],
        "Could not reach the page.",
    );
    // Look-ups alone are one row, standing for both.
    let all = observations(&env, "web");
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(
        all[0].title,
        "Could not fetch example.com/doc: Unable to verify if domain example.com is safe to fetch. \u{2026}"
    );
    assert_eq!(all[0].concepts, vec!["gotcha"]);
    assert!(
        all[0]
            .facts
            .iter()
            .any(|f| f == "Web search for `rusqlite fts5`")
    );
    assert_eq!(all[0].tools.len(), 2, "{all:#?}");
}

#[test]
fn subagents_and_plans() {
    let env = Env::new();
    run_turn(
        &env,
        "agent",
        "1",
        "explore and plan",
        &[
            step("PostToolUse.agent"),
            tweaked("PostToolUse.mcp-tool", |v| {
                v["tool_name"] = json!("ExitPlanMode");
                v["tool_input"] = json!({"plan": "# Move tokens to the keyring\n\n1. Add a keyring backend\n2. Migrate stored tokens\n- Remove the plaintext file"});
                v["tool_response"] = json!({"plan": "ok"});
            }),
        ],
        "Plan approved.",
    );
    let all = observations(&env, "agent");
    assert_eq!(all.len(), 2, "{all:#?}");
    assert_eq!(
        all[0].title,
        "Subagent (general-purpose) on look around: done"
    );
    assert_eq!(all[1].obs_type, "decision");
    assert_eq!(all[1].title, "Plan: Move tokens to the keyring");
    assert_eq!(
        all[1].facts,
        vec![
            "1. Add a keyring backend",
            "2. Migrate stored tokens",
            "Remove the plaintext file"
        ]
    );
}

#[test]
fn secrets_in_tool_output_leave_a_security_note() {
    let env = Env::new();
    run_turn(
        &env,
        "secret",
        "1",
        "what is in the env file?",
        &[bash(
            "PostToolUse.bash",
            "cat .env",
            "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        )],
        "It holds an AWS key.",
    );
    let all = observations(&env, "secret");
    let note = all
        .iter()
        .find(|o| o.obs_type == "security_note")
        .expect("a security note");
    assert!(note.title.starts_with("Secret ("), "{}", note.title);
    assert!(note.title.ends_with("seen in `cat .env`"), "{}", note.title);
    assert!(note.tools.is_empty(), "a note links no tool use");
    let raw = std::fs::read(env.db_path()).unwrap();
    assert!(!String::from_utf8_lossy(&raw).contains("wJalrXUtnFEMI"));
}

#[test]
fn todo_tools_feed_the_work_state_and_the_summary() {
    let env = Env::new();
    run_turn(
        &env,
        "todo",
        "1",
        "build the parser",
        &[step("PostToolUse.todowrite")],
        "Started on the parser.",
    );
    // A turn that only wrote its to-do list is a plan: its goal, then its steps.
    let plan = one(&env, "todo");
    assert_eq!(plan.obs_type, "decision");
    assert_eq!(
        plan.title,
        "Plan (2 steps): build the parser \u{2014} 1. Write the parser; 2. Add tests"
    );
    assert_eq!(plan.subtitle, "1. Write the parser; 2. Add tests");
    let rows: Vec<(String, String)> = env.rows(
        "SELECT list_name, fields FROM work_state_entries ORDER BY id",
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(
        rows,
        vec![
            (
                "build the parser".into(),
                r#"{"task":"Write the parser","status":"doing"}"#.into()
            ),
            (
                "build the parser".into(),
                r#"{"task":"Add tests","status":"todo"}"#.into()
            ),
        ]
    );
    let s = &summaries(&env, "todo")[0];
    assert_eq!(
        s.next_steps.as_deref(),
        Some("Open to-dos: Write the parser (doing), Add tests (todo).")
    );
    // Task tools (Claude Code's newer to-do tools) land in the same kind of list.
    run_turn(
        &env,
        "tasks",
        "1",
        "ship the observer",
        &[
            step("PostToolUse.task-create"),
            step("PostToolUse.task-update"),
            step("PostToolUse.task-list"),
        ],
        "Working on it.",
    );
    let s = &summaries(&env, "tasks")[0];
    assert_eq!(
        s.next_steps.as_deref(),
        Some("Open to-dos: Ship the observer (doing).")
    );
    let ctx = env
        .cmd()
        .args(["context", "--cwd"])
        .arg(env.project())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&ctx.stdout);
    assert!(text.contains("Still open:"), "{text}");
    assert!(text.contains("[doing] Write the parser"), "{text}");
    assert!(text.contains("[doing] Ship the observer"), "{text}");
}

#[test]
fn a_subagents_todos_stay_out_of_the_work_state() {
    let env = Env::new();
    let mut p = env.payload("sub", json!({"prompt": "go"}));
    p["prompt_id"] = json!("sub-1");
    env.hook("user-prompt-submit", &p);
    let mut v = payload(&env, "PostToolUse.todowrite-subagent", "sub", "1", 0);
    v["agent_id"] = json!("a123");
    env.hook("post-tool-use", &v);
    assert_eq!(env.count("work_state_entries"), 0);
}

#[test]
fn a_turn_left_open_is_observed_when_the_next_prompt_arrives() {
    let env = Env::new();
    let mut p = env.payload("open", json!({"prompt": "first"}));
    p["prompt_id"] = json!("open-1");
    env.hook("user-prompt-submit", &p);
    env.hook(
        "post-tool-use",
        &payload(&env, "PostToolUse.edit", "open", "1", 0),
    );
    assert_eq!(observations(&env, "open").len(), 0, "no Stop yet");
    let mut p = env.payload("open", json!({"prompt": "second"}));
    p["prompt_id"] = json!("open-2");
    env.hook("user-prompt-submit", &p);
    let o = one(&env, "open");
    assert!(o.title.contains("refresh_window"), "{}", o.title);
    assert_eq!(summaries(&env, "open").len(), 1);
}

#[test]
fn session_end_observes_the_last_turn_and_private_turns_leave_nothing() {
    let env = Env::new();
    let mut p = env.payload("end", json!({"prompt": "<private>secret plan</private>"}));
    p["prompt_id"] = json!("end-1");
    env.hook("user-prompt-submit", &p);
    env.hook(
        "post-tool-use",
        &payload(&env, "PostToolUse.edit", "end", "1", 0),
    );
    let mut p = env.payload("end", json!({"prompt": "now read small.txt"}));
    p["prompt_id"] = json!("end-2");
    env.hook("user-prompt-submit", &p);
    env.hook(
        "post-tool-use",
        &payload(&env, "PostToolUse", "end", "2", 1),
    );
    env.hook("session-end", &payload(&env, "SessionEnd", "end", "2", 2));
    let o = one(&env, "end");
    assert_eq!(o.title, "Read small.txt (3 lines)");
    assert_eq!(
        summaries(&env, "end").len(),
        1,
        "the private turn has no summary"
    );
}

#[test]
fn the_same_observation_twice_in_a_session_is_stored_once() {
    let env = Env::new();
    let at = |ms: i64| ("CMEM_NOW_MS", ms.to_string());
    for (turn, ms) in [("1", 1_000_000), ("2", 1_100_000)] {
        let (k, v) = at(ms);
        let mut c = env.cmd();
        c.env(k, &v).args(["hook", "user-prompt-submit"]);
        let mut p = env.payload("dup", json!({"prompt": "read small.txt"}));
        p["prompt_id"] = json!(format!("dup-{turn}"));
        common::run_with_stdin(&mut c, p.to_string().as_bytes());
        let mut c = env.cmd();
        c.env(k, &v).args(["hook", "post-tool-use"]);
        common::run_with_stdin(
            &mut c,
            payload(&env, "PostToolUse", "dup", turn, 0)
                .to_string()
                .as_bytes(),
        );
        let mut c = env.cmd();
        c.env(k, &v).args(["hook", "stop"]);
        common::run_with_stdin(
            &mut c,
            payload(&env, "Stop", "dup", turn, 9).to_string().as_bytes(),
        );
    }
    let o = one(&env, "dup");
    assert_eq!(
        o.tools,
        vec!["Read", "Read"],
        "both reads link to the one observation"
    );
    assert_eq!(summaries(&env, "dup").len(), 2);
}

/// Words of the turn a title may name: file names, symbols, commands, patterns, hosts.
fn specifics(payloads: &[Value]) -> Vec<String> {
    let mut out = Vec::new();
    for p in payloads {
        let input = &p["tool_input"];
        for key in [
            "file_path",
            "pattern",
            "query",
            "url",
            "description",
            "command",
            "text",
        ] {
            if let Some(s) = input[key].as_str() {
                let s = s.to_string();
                out.push(s.rsplit('/').next().unwrap_or(&s).to_string());
                out.extend(s.split_whitespace().take(2).map(String::from));
                if key == "url" {
                    out.push(
                        s.trim_start_matches("https://")
                            .split('/')
                            .next()
                            .unwrap_or("")
                            .into(),
                    );
                }
            }
        }
        if let Some(tool) = p["tool_name"].as_str()
            && let Some(name) = tool
                .strip_prefix("mcp__")
                .and_then(|t| t.rsplit("__").next())
        {
            out.push(name.to_string());
        }
        for f in ["content", "originalFile"] {
            for src in [
                &p["tool_response"]["file"][f],
                &p["tool_response"][f],
                &input[f],
            ] {
                if let Some(text) = src.as_str() {
                    for w in text.split(|c: char| !c.is_alphanumeric() && c != '_') {
                        if w.len() > 2 {
                            out.push(w.to_string());
                        }
                    }
                }
            }
        }
    }
    out.retain(|s| s.len() > 2);
    out
}

#[test]
fn no_title_is_generic() {
    let env = Env::new();
    let fixtures = [
        "PostToolUse",
        "PostToolUse.edit",
        "PostToolUse.bash",
        "PostToolUseFailure.bash",
        "PostToolUse.mcp-tool",
        "PostToolUseFailure.read-missing",
        "PostToolUse.write-create",
        "PostToolUse.write-update",
        "PostToolUse.grep-files",
        "PostToolUse.grep-content",
        "PostToolUse.glob",
        "PostToolUse.bash-no-match",
        "PostToolUseFailure.webfetch",
        "PostToolUse.websearch",
        "PostToolUse.agent",
    ];
    let mut checked = 0;
    for (i, f) in fixtures.iter().enumerate() {
        let session = format!("g{i}");
        run_turn(&env, &session, "1", "do the thing", &[step(f)], "done");
        let payloads = vec![payload(&env, f, &session, "1", 0)];
        let words = specifics(&payloads);
        for o in observations(&env, &session) {
            assert!(
                crate_len(&o.title) <= 120,
                "{f}: title longer than 120: {}",
                o.title
            );
            assert!(
                !o.title.starts_with("Used "),
                "{f}: generic title {}",
                o.title
            );
            assert!(
                words.iter().any(|w| o.title.contains(w.as_str())),
                "{f}: title {:?} names nothing from the turn ({words:?})",
                o.title
            );
            assert!(
                !o.subtitle.is_empty() && !o.narrative.is_empty() && !o.facts.is_empty(),
                "{f}: {o:?}"
            );
            assert!(!o.concepts.is_empty(), "{f}");
            checked += 1;
        }
    }
    assert!(checked >= fixtures.len(), "{checked} observations checked");
}

fn crate_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// A plain PostToolUse (exit 0) whose stdout is `out`.
fn ran_ok(command: &'static str, out: &'static str) -> Step {
    bash("PostToolUse.bash", command, out)
}

#[test]
fn a_check_whose_output_says_it_failed_is_a_failure_whatever_the_event() {
    let env = Env::new();
    let cases: [(&str, &str, &str); 8] = [
        (
            "cargo test auth:: || true",
            "running 1 test\ntest auth::refresh_window ... FAILED\n\nfailures:\n    expected 300, got 30\n\ntest result: FAILED. 0 passed; 1 failed",
            "test auth::refresh_window ... FAILED",
        ),
        (
            "cargo build 2>&1 | tail -3",
            "error[E0425]: cannot find value `windw` in this scope\n --> src/auth.rs:5:5",
            "error[E0425]: cannot find value `windw` in this scope",
        ),
        (
            "python -m pytest -q; true",
            "..F\n=========== 1 failed, 2 passed in 0.04s ===========",
            "=========== 1 failed, 2 passed in 0.04s ===========",
        ),
        (
            "python3 -m unittest tests.test_auth || exit 0",
            "Traceback (most recent call last):\n  File \"tests/test_auth.py\", line 3, in <module>\nImportError: cannot import name 'window'",
            "ImportError: cannot import name 'window'",
        ),
        (
            "npm test || true",
            "npm ERR! Test failed.  See above for more details.",
            "npm ERR! Test failed. See above for more details.",
        ),
        (
            "npx jest --ci || true",
            "FAIL src/auth.test.ts\n  \u{2715} refreshes early (4 ms)\nTests:       1 failed, 3 passed, 4 total",
            "FAIL src/auth.test.ts",
        ),
        (
            "go test ./auth/... || true",
            "--- FAIL: TestRefreshWindow (0.00s)\n    auth_test.go:9: got 30, want 300\nFAIL\nexit status 1",
            "--- FAIL: TestRefreshWindow (0.00s)",
        ),
        (
            "make test; echo \"Exit code $?\"",
            "cc -o t t.c\n./t\nassertion window == 300 failed\nExit code 2",
            "assertion window == 300 failed",
        ),
    ];
    for (n, (command, out, line)) in cases.into_iter().enumerate() {
        let session = format!("outcome{n}");
        let cmd: &'static str = Box::leak(command.to_string().into_boxed_str());
        let text: &'static str = Box::leak(out.to_string().into_boxed_str());
        run_turn(
            &env,
            &session,
            "1",
            "run the auth tests",
            &[ran_ok(cmd, text)],
            "They fail.",
        );
        let o = one(&env, &session);
        assert!(!o.title.contains("passes"), "{command}: {}", o.title);
        assert!(
            o.title.contains(" fails") && o.title.ends_with(line),
            "{command}: {} (wanted the failure line {line:?})",
            o.title
        );
        assert_eq!(o.concepts, vec!["problem-solution", "gotcha"], "{command}");
        assert!(
            o.facts.iter().any(|f| f.contains(" failed")),
            "{command}: {:?}",
            o.facts
        );
        let s = &summaries(&env, &session)[0];
        assert_eq!(
            s.completed, None,
            "{command}: a failure is not completed work"
        );
        // The failure is the observation's title, in the index beside the summary: the
        // summary does not say it again.
        assert!(
            !s.learned.as_deref().is_some_and(|l| l.contains(&o.title)),
            "{command}: {:?}",
            s.learned
        );
    }
}

#[test]
fn a_non_zero_exit_in_a_checks_output_is_its_exit_code() {
    let env = Env::new();
    run_turn(
        &env,
        "exit",
        "1",
        "run the go tests",
        &[ran_ok(
            "go test ./... 2>&1 | tee test.log",
            "--- FAIL: TestX (0.00s)\nFAIL\texample.com/auth\t0.01s\nexit status 2",
        )],
        "Failing.",
    );
    let o = one(&env, "exit");
    assert_eq!(
        o.facts[0],
        "`go test ./... 2>&1 | tee test.log` failed (exit 2): --- FAIL: TestX (0.00s)"
    );
}

#[test]
fn a_check_failing_then_passing_under_plain_post_tool_use_is_a_bugfix() {
    let env = Env::new();
    run_turn(
        &env,
        "truefix",
        "1",
        "make the auth tests pass",
        &[
            ran_ok(
                "cargo test auth:: || true",
                "running 1 test\ntest auth::refresh_window ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed",
            ),
            step("PostToolUse.edit"),
            ran_ok(
                "cargo test auth:: || true",
                "running 1 test\ntest auth::refresh_window ... ok\n\ntest result: ok. 1 passed; 0 failed; 0 ignored",
            ),
        ],
        "Fixed.",
    );
    let all = observations(&env, "truefix");
    assert_eq!(all.len(), 1, "{all:#?}");
    assert_eq!(all[0].obs_type, "bugfix");
    assert_eq!(
        all[0].title,
        "Fixed refresh_window in src/auth.rs: 30 \u{2192} 300; auth::refresh_window passes"
    );
    assert_eq!(all[0].tools, vec!["Bash", "Edit", "Bash"]);
}

/// The text of every code span in `text` (`` `x` `` and ``` `` x `` ```).
fn code_spans(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find('`') {
        let run = rest[start..].len() - rest[start..].trim_start_matches('`').len();
        let ticks = &rest[start..start + run];
        let body = &rest[start + run..];
        let Some(end) = body.find(ticks) else { break };
        out.push(body[..end].to_string());
        rest = &body[end + run..];
    }
    out
}

#[test]
fn quoted_commands_are_the_commands_that_ran_and_titles_cut_no_token() {
    // The session of issue 14: a failing check, the edit, the passing check.
    let env = Env::new();
    let failing = "grep -q '    300' src/auth.rs || { echo 'test auth::refresh_window ... FAILED: expected 300, got 30' >&2; exit 1; }";
    let passing = "grep -q '    300' src/auth.rs && echo 'test auth::refresh_window ... ok'";
    run_turn(
        &env,
        "exact",
        "1",
        "change the refresh window in src/auth.rs from 30 to 300 seconds",
        &[
            step("PostToolUseFailure.bash"),
            step("PostToolUse.edit"),
            step("PostToolUse.bash"),
        ],
        "Fixed: refresh_window() in src/auth.rs now returns 300 seconds.",
    );
    let o = one(&env, "exact");
    assert_eq!(o.obs_type, "bugfix");
    assert_eq!(
        o.title,
        "Fixed refresh_window in src/auth.rs: 30 \u{2192} 300; auth::refresh_window passes",
        "the failing test named, not the command that ran it"
    );
    let mut quoted = 0;
    for field in [&o.title, &o.subtitle, &o.narrative]
        .into_iter()
        .chain(o.facts.iter())
    {
        for span in code_spans(field) {
            if !span.starts_with("grep") {
                continue;
            }
            quoted += 1;
            let head = span.trim_end_matches('\u{2026}').trim_end();
            assert!(
                failing.starts_with(head) || passing.starts_with(head),
                "{span:?} in {field:?} is not the command that ran"
            );
        }
    }
    assert!(
        quoted >= 4,
        "the commands are quoted in the subtitle, the narrative and the facts ({quoted})"
    );
    assert!(
        o.facts
            .iter()
            .any(|f| f.starts_with(&format!("`{failing}` failed (exit 1)"))),
        "{:?}",
        o.facts
    );
    let s = &summaries(&env, "exact")[0];
    assert!(
        s.learned
            .as_deref()
            .is_some_and(|l| l.contains("`grep -q '    300'")),
        "{:?}",
        s.learned
    );
    assert_eq!(s.next_steps, None, "\"Fixed:\" opens no next step");
    let ctx = env
        .cmd()
        .args(["context", "--cwd"])
        .arg(env.project())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&ctx.stdout);
    assert!(
        text.contains("`grep -q '    300'") && !text.contains("' 300'"),
        "the session-start text quotes the command as it ran:\n{text}"
    );
}

#[test]
fn long_titles_drop_words_not_halves_of_them() {
    let env = Env::new();
    run_turn(
        &env,
        "long",
        "1",
        "run that one test",
        &[
            ran_ok(
                "cargo test --package cmem --test observe_rules -- a_check_that_fails_then_passes_after_an_edit_is_a_bugfix --exact",
                "running 1 test\ntest a_check_that_fails_then_passes_after_an_edit_is_a_bugfix ... FAILED\n\nfailures:\n\n---- a_check_that_fails_then_passes_after_an_edit_is_a_bugfix stdout ----\nthread 'a_check_that_fails_then_passes_after_an_edit_is_a_bugfix' panicked at tests/observe_rules.rs:312:5: assertion `left == right` failed\n\ntest result: FAILED. 0 passed; 1 failed",
            ),
            tweaked("PostToolUse.bash", |v| {
                v["tool_input"]["command"] = json!(
                    "./scripts/release-candidate-verification-of-the-whole-workspace.sh --all-targets --locked"
                );
                v["tool_response"]["stdout"] =
                    json!("checked crates/observer/src/rules/very_long_module_name_for_testing.rs");
            }),
        ],
        "One fails.",
    );
    let all = observations(&env, "long");
    assert_eq!(all.len(), 2, "{all:#?}");
    for o in &all {
        assert!(crate_len(&o.title) <= 120, "{}", o.title);
        for word in o.title.split(' ') {
            assert!(
                !word.contains('\u{2026}') || word.trim_matches('`') == "\u{2026}",
                "{:?} cuts {word:?}",
                o.title
            );
        }
    }
    assert!(
        all[0]
            .title
            .starts_with("`cargo \u{2026}` fails (1 failed): ")
            && all[0]
                .title
                .contains(" a_check_that_fails_then_passes_after_an_edit_is_a_bugfix "),
        "the failing test's name is kept whole: {}",
        all[0].title
    );
}

#[test]
fn next_steps_are_taken_from_every_usual_opening() {
    let env = Env::new();
    let cases = [
        (
            "Fixed: refresh_window() in src/auth.rs now returns 300 seconds.\n\nNext: add a test for the expiry edge.",
            "add a test for the expiry edge.",
        ),
        (
            "Done.\n\nTODO: update the changelog",
            "update the changelog.",
        ),
        (
            "Done.\n\n**Remaining:**\n- document the window\n- bump the version",
            "document the window; bump the version.",
        ),
        (
            "Done.\n\n## Follow-up\n\n1. raise the limit in staging",
            "raise the limit in staging.",
        ),
        ("Done. Still to do: the README.", "the README."),
    ];
    for (n, (last, want)) in cases.into_iter().enumerate() {
        let session = format!("next{n}");
        run_turn(
            &env,
            &session,
            "1",
            "raise the window",
            &[step("PostToolUse.edit")],
            last,
        );
        let s = &summaries(&env, &session)[0];
        assert_eq!(s.next_steps.as_deref(), Some(want), "{last}");
    }
}

/// Text beyond the Basic Multilingual Plane (a CJK Extension B character, emoji) is valid
/// JSON and counts two UTF-16 units in the budget: captured, it reaches the agent exactly as
/// written, in the session-start context, the MCP tools and the CLI, with no stand-in.
#[test]
fn a_title_beyond_the_bmp_reaches_the_agent_as_written() {
    let env = Env::new();
    let message = "修复登录 𠮷野家 🍜 的 bug 👩\u{200d}💻";
    let commit = tweaked("PostToolUse.bash", move |v| {
        v["tool_input"]["command"] = json!(format!("git commit -m \"{message}\""));
        v["tool_response"]["stdout"] = json!(format!("[main 1a2b3c4] {message}\n 1 file changed"));
    });
    run_turn(&env, "astral", "1", "commit it", &[commit], "Committed.");
    let o = one(&env, "astral");
    let title = format!("Committed 1a2b3c4 on main (1 file): {message}");
    assert_eq!(o.title, title);

    let start = env.payload(
        "next",
        json!({"hook_event_name": "SessionStart", "source": "startup"}),
    );
    let answer = env.hook("session-start", &start);
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.contains(&title), "{context}");

    let call = |id: u64, name: &str, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": args}})
        .to_string()
    };
    let replies = env.mcp_serve(&common::jsonl(&[
        call(1, "get_observations", json!({"ids": [o.id]})),
        call(2, "search", json!({"query": "bug"})),
        call(3, "mem_search", json!({"query": "bug", "mode": "auto"})),
    ]));
    assert_eq!(replies.len(), 3);
    for (i, reply) in replies.iter().enumerate() {
        let v: Value = serde_json::from_slice(reply).unwrap();
        let text = v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert!(text.contains(&title), "reply {i}: {text}");
    }

    let out = env.run_stdout(&["search", "bug"]);
    assert!(out.contains(&title), "{out}");
}
