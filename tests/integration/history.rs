//! `cmem import claude-code`: transcripts Claude Code wrote (tests/fixtures/transcripts, from
//! real headless sessions) become the memory the hooks would have made — once, however often
//! the import runs, with the capture rules of a live hook.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use serde_json::json;

use crate::common::Env;

const FIX_SESSION: &str = "befb39d8-c70b-4ba8-a1ef-2d43ec0568d4";
const FIX_PROMPT: &str = "77fe85e6-a1e6-4c81-8cdb-b3d87ebc4d8f";

/// Writes a fixture transcript where Claude Code keeps them in this env's home, with the env's
/// project as the session's working directory, last written an hour ago.
fn transcript(env: &Env, fixture: &str, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/transcripts/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("__WORK__", &env.project().to_string_lossy());
    let dir = env.home().join(".claude/projects/-project");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    settle(&path);
    path
}

/// Makes a file look written an hour ago (a transcript written to in the last two minutes
/// belongs to a running session and is left for later).
fn settle(path: &std::path::Path) {
    let f = std::fs::File::options().append(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
}

fn append(path: &std::path::Path, text: &str) {
    use std::io::Write;
    let mut f = std::fs::File::options().append(true).open(path).unwrap();
    f.write_all(text.as_bytes()).unwrap();
    drop(f);
    settle(path);
}

/// A user prompt line and the answer's line, in Claude Code's shapes.
fn turn_lines(env: &Env, session: &str, prompt_id: &str, prompt: &str, answer: &str) -> String {
    let cwd = env.project().to_string_lossy().into_owned();
    let user = json!({"parentUuid": null, "isSidechain": false, "promptId": prompt_id, "type": "user",
        "message": {"role": "user", "content": prompt}, "uuid": format!("u-{prompt_id}"),
        "timestamp": "2026-12-05T19:00:00.000Z", "cwd": cwd, "sessionId": session, "version": "2.1.332"});
    let assistant = json!({"parentUuid": format!("u-{prompt_id}"), "isSidechain": false, "type": "assistant",
        "message": {"id": "msg_x", "type": "message", "role": "assistant", "content": [{"type": "text", "text": answer}]},
        "uuid": format!("a-{prompt_id}"), "timestamp": "2026-12-05T19:00:05.000Z", "cwd": cwd,
        "sessionId": session, "version": "2.1.332"});
    format!("{user}\n{assistant}\n")
}

fn counts(env: &Env) -> (i64, i64, i64) {
    (
        env.count("user_prompts"),
        env.count("tool_uses"),
        env.count("observations"),
    )
}

#[test]
fn a_transcript_becomes_the_memory_its_hooks_would_have_made_once() {
    let env = Env::new();
    transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let dry = env.run_stdout(&["import", "claude-code", "--dry-run"]);
    assert!(
        dry.contains("would import 1 session, 1 prompt, 4 tool uses"),
        "{dry}"
    );
    assert!(!env.db_path().exists(), "a dry run created the database");

    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(
        out.contains("imported 1 session, 1 prompt, 4 tool uses → "),
        "{out}"
    );
    let titles: Vec<String> = env.rows("SELECT title FROM observations", |r| r.get(0));
    assert!(
        titles
            .iter()
            .any(|t| t.contains("refresh_window") && t.contains("30 → 300")),
        "{titles:?}"
    );
    // At the session's own time, under the hooks' platform and project name.
    let (at, platform, project): (i64, String, String) = env
        .db()
        .query_row(
            "SELECT p.created_at_epoch, s.platform_source, s.project FROM user_prompts p
             JOIN sessions s ON s.id = p.session_id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!(at, 1_796_495_451_025);
    assert_eq!((platform.as_str(), project.as_str()), ("claude", "project"));
    let failed = env.count_where("tool_uses", "failed = 1 AND error LIKE 'Exit code 1%'");
    assert_eq!(failed, 1, "the failing check is a failed tool use");
    let context = env.run_stdout(&["context"]);
    assert!(context.contains("refresh_window"), "{context}");

    let before = counts(&env);
    let again = env.run_stdout(&["import", "claude-code"]);
    assert!(
        again.contains("1 unchanged since the last import"),
        "{again}"
    );
    assert_eq!(counts(&env), before);
}

#[test]
fn a_session_the_hooks_captured_is_there_once() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let hooked = |extra| env.payload(FIX_SESSION, extra);
    env.hook(
        "user-prompt-submit",
        &hooked(json!({"prompt_id": FIX_PROMPT, "prompt": "Tokens expire before we refresh them: change the refresh window in src/auth.rs from 30 to 300 seconds, and check it before and after."})),
    );
    env.hook(
        "post-tool-use",
        &hooked(json!({"prompt_id": FIX_PROMPT, "tool_name": "Read", "tool_use_id": "toolu_stub000005",
            "tool_input": {"file_path": format!("{}/src/auth.rs", env.project().display())},
            "tool_response": {"type": "text", "file": {"filePath": "src/auth.rs", "content": "    30\n"}}})),
    );
    let out = env.run_stdout(&["import", "claude-code", path.to_str().unwrap()]);
    assert!(
        out.contains("already in memory (captured by the hooks or an earlier import): 2 prompts and tool uses"),
        "{out}"
    );
    assert_eq!(env.count("sessions"), 1);
    assert_eq!(env.count("user_prompts"), 1);
    assert_eq!(env.count("tool_uses"), 4);
}

#[test]
fn a_second_run_reads_only_what_a_file_gained_and_skips_broken_lines() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    env.run_stdout(&["import", "claude-code"]);
    let (prompts, tools, observations) = counts(&env);
    let first_observed: i64 = env
        .db()
        .query_row("SELECT MAX(observed_at_epoch) FROM user_prompts", [], |r| {
            r.get(0)
        })
        .unwrap();

    // The session goes on (a later prompt), with a line that is not JSON and a last line the
    // writer has not finished.
    let next = turn_lines(
        &env,
        FIX_SESSION,
        "p-2",
        "Why is the refresh window 300 seconds now?",
        "Because tokens expired before they were refreshed.",
    );
    append(
        &path,
        &format!("{next}not json at all\n{{\"type\":\"user\",\"sessionId\""),
    );
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("read 1 of 1"), "{out}");
    assert!(
        out.contains(
            "skipped 2 lines: 1 an unfinished last line (read next time), 1 not a JSON object"
        ),
        "{out}"
    );
    assert_eq!(counts(&env).0, prompts + 1);
    assert_eq!(counts(&env).1, tools);
    assert!(counts(&env).2 >= observations);
    let first_observed_after: i64 = env
        .db()
        .query_row(
            "SELECT observed_at_epoch FROM user_prompts WHERE prompt_number = 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        first_observed_after, first_observed,
        "the first turn was read again"
    );
    // Unchanged since: not read again; the unfinished line is read once it is finished.
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("1 unchanged"), "{out}");
    append(&path, ":\"x\"}\n");
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("read 1 of 1"), "{out}");
    assert!(!out.contains("skipped"), "{out}");
}

#[test]
fn private_text_and_secrets_in_a_transcript_never_reach_the_database() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let key = "sk-ant-api03-Zq7XkP2mVb9LwR4tYs8NcD1fGh6JuE3oIa5";
    let cwd = env.project().to_string_lossy().into_owned();
    let lines = [
        json!({"type": "user", "promptId": "p-s", "sessionId": "s-secret", "cwd": cwd, "timestamp": "2026-12-05T19:00:00Z",
            "message": {"role": "user", "content": "check the deploy env <private>the admin password is Tr0ub4dor-77</private>"}}),
        json!({"type": "assistant", "sessionId": "s-secret", "cwd": cwd, "timestamp": "2026-12-05T19:00:01Z",
            "message": {"content": [{"type": "tool_use", "id": "t-s", "name": "Bash", "input": {"command": "cat deploy.env"}}]}}),
        json!({"type": "user", "promptId": "p-s", "sessionId": "s-secret", "cwd": cwd, "timestamp": "2026-12-05T19:00:02Z",
            "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t-s", "content": format!("ANTHROPIC_API_KEY={key}")}]},
            "toolUseResult": {"stdout": format!("ANTHROPIC_API_KEY={key}"), "stderr": "", "interrupted": false}}),
        json!({"type": "user", "promptId": "p-p", "sessionId": "s-secret", "cwd": cwd, "timestamp": "2026-12-05T19:01:00Z",
            "message": {"role": "user", "content": "<private>rotate Tr0ub4dor-77 everywhere</private>"}}),
        json!({"type": "assistant", "sessionId": "s-secret", "cwd": cwd, "timestamp": "2026-12-05T19:01:01Z",
            "message": {"content": [{"type": "text", "text": "Rotated Tr0ub4dor-77."}]}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path.with_file_name("secret.jsonl"), text).unwrap();
    settle(&path.with_file_name("secret.jsonl"));
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("imported 2 sessions"), "{out}");
    assert_eq!(
        env.count_where("tool_uses", "tool_input LIKE '%deploy.env%'"),
        1
    );
    drop(env.db());
    for entry in std::fs::read_dir(env.data_dir()).unwrap() {
        let file = entry.unwrap().path();
        if file.is_file() {
            let bytes = std::fs::read(&file).unwrap();
            for secret in [key.as_bytes(), b"Tr0ub4dor-77".as_slice()] {
                assert!(
                    !bytes.windows(secret.len()).any(|w| w == secret),
                    "{} holds {}",
                    file.display(),
                    String::from_utf8_lossy(secret)
                );
            }
        }
    }
}

#[test]
fn filters_leave_files_unread_and_a_chinese_session_imports_like_an_english_one() {
    let env = Env::new();
    transcript(&env, "claude-code-pool-zh.jsonl", "zh.jsonl");
    transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let out = env.run_stdout(&["import", "claude-code", "--project", "elsewhere"]);
    assert!(out.contains("imported 0 sessions"), "{out}");
    let out = env.run_stdout(&["import", "claude-code", "--since", "2027-01-01"]);
    assert!(out.contains("imported 0 sessions"), "{out}");
    // Neither run marked the files read.
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("imported 2 sessions"), "{out}");
    let titles: Vec<String> = env.rows("SELECT title FROM observations", |r| r.get(0));
    assert!(titles.iter().any(|t| t.contains("POOL_SIZE")), "{titles:?}");
    let found = env.run_stdout(&["search", "--lexical", "耗尽"]);
    assert!(found.contains("连接池耗尽"), "{found}");
}

#[test]
fn a_file_of_garbage_is_counted_and_the_others_are_imported() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let junk = path.with_file_name("junk.jsonl");
    std::fs::write(&junk, b"\x00\xff\xfe garbage\n[1,2,3]\n{\"no\":\"type\"}\n").unwrap();
    settle(&junk);
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("read 2 of 2"), "{out}");
    assert!(out.contains("imported 1 session"), "{out}");
    assert!(out.contains("skipped 3 lines"), "{out}");
    let missing = env
        .cmd()
        .args(["import", "claude-code", "/no/such/transcript.jsonl"])
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("/no/such/transcript.jsonl"),
        "{missing:?}"
    );
}

/// Puts the Codex fixtures where Codex keeps its rollouts, last written an hour ago.
fn codex_rollouts(env: &Env) {
    let dir = env.home().join(".codex/sessions/2026/11/20");
    std::fs::create_dir_all(&dir).unwrap();
    let fixtures = format!(
        "{}/tests/fixtures/transcripts/codex",
        env!("CARGO_MANIFEST_DIR")
    );
    for entry in std::fs::read_dir(fixtures).unwrap() {
        let from = entry.unwrap().path();
        let to = dir.join(from.file_name().unwrap());
        std::fs::copy(&from, &to).unwrap();
        settle(&to);
    }
}

#[test]
fn codex_rollouts_of_three_generations_become_memory_with_their_failed_calls() {
    let env = Env::new();
    codex_rollouts(&env);
    let out = env.run_stdout(&["import", "codex"]);
    assert!(
        out.contains("imported 5 sessions, 6 prompts, 24 tool uses"),
        "{out}"
    );
    // The same fix in the current, the legacy and the late-2025 format: the same memory.
    let fixed: Vec<String> = env.rows(
        "SELECT title FROM observations WHERE project = 'shop-api' AND type = 'bugfix'",
        |r| r.get(0),
    );
    assert_eq!(fixed.len(), 3, "{fixed:?}");
    assert!(
        fixed
            .iter()
            .all(|t| t.contains("POOL_SIZE") && t.contains("5 → 20") && t.contains("passes")),
        "{fixed:?}"
    );
    // A command that was not found, a failing test and an apply_patch Codex refused are failed
    // tool uses (Codex's hooks never see the last one).
    assert_eq!(
        env.count_where("tool_uses", "failed = 1 AND error LIKE 'Exit code 127%'"),
        3
    );
    assert_eq!(
        env.count_where(
            "tool_uses",
            "failed = 1 AND tool_name = 'apply_patch' AND error LIKE 'apply_patch verification failed%'"
        ),
        1
    );
    assert_eq!(env.count_where("sessions", "platform_source = 'codex'"), 5);
    // Only the person's prompts: no AGENTS.md, environment or developer text.
    let prompts: Vec<String> = env.rows("SELECT prompt_text FROM user_prompts", |r| r.get(0));
    assert!(
        prompts
            .iter()
            .all(|p| !p.contains("AGENTS.md") && !p.contains("<environment_context>")),
        "{prompts:?}"
    );
    assert!(
        prompts.iter().any(|p| p.contains("连接池耗尽")),
        "{prompts:?}"
    );
    let edit: String = env
        .db()
        .query_row(
            "SELECT tool_input FROM tool_uses WHERE tool_name = 'Edit' AND project = 'order-service'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(edit.contains("max_size=50"), "{edit}");

    let before = counts(&env);
    let again = env.run_stdout(&["import", "codex"]);
    assert!(again.contains("nothing new"), "{again}");
    assert_eq!(counts(&env), before);
}

#[test]
fn doctor_and_install_name_the_history_on_disk_and_install_imports_it_when_asked() {
    let env = Env::new();
    transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    codex_rollouts(&env);
    let doctor = env.doctor();
    assert!(
        doctor.contains("memory is empty; 1 past Claude Code session of 1 project in ~/.claude/projects: `cmem import claude-code`"),
        "{doctor}"
    );
    assert!(
        doctor.contains("5 past Codex sessions in ~/.codex/sessions: `cmem import codex`"),
        "{doctor}"
    );
    let installed = env.run_stdout(&["install"]);
    assert!(
        installed.contains("cmem: found 1 past Claude Code session"),
        "{installed}"
    );
    assert_eq!(env.count("user_prompts"), 0, "install imported unasked");
    let imported = env.run_stdout(&["install", "--import-history"]);
    assert!(imported.contains("imported 1 session"), "{imported}");
    assert!(imported.contains("imported 5 sessions"), "{imported}");
    assert!(!env.doctor().contains("memory is empty"));
}

/// A Codex session continued after an import (`codex resume` appends to the same rollout): the
/// next import reads the new turn under the same session, though only the first line names it.
#[test]
fn a_codex_rollout_continued_after_an_import_keeps_its_session() {
    let env = Env::new();
    let text = std::fs::read_to_string(format!(
        "{}/tests/fixtures/transcripts/codex/rollout-c-two-turns-tui-0.171.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let dir = env.home().join(".codex/sessions/2026/11/25");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("rollout-c.jsonl");
    std::fs::write(&path, format!("{}\n", lines[..33].join("\n"))).unwrap();
    settle(&path);
    let out = env.run_stdout(&["import", "codex"]);
    assert!(out.contains("imported 1 session, 1 prompt"), "{out}");
    append(&path, &format!("{}\n", lines[33..].join("\n")));
    let out = env.run_stdout(&["import", "codex"]);
    assert!(out.contains("1 prompt"), "{out}");
    assert!(!out.contains("before its session_meta"), "{out}");
    let sessions: Vec<(String, i64)> = env.rows(
        "SELECT s.content_session_id, COUNT(p.id) FROM sessions s JOIN user_prompts p ON p.session_id = s.id GROUP BY s.id",
        |r| Ok((r.get(0)?, r.get(1)?)),
    );
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    assert_eq!(sessions[0].1, 2);
}

/// A tool call still waiting for its result when the import ran (a permission prompt left
/// open): the next import, after the result came, stores the call with it.
#[test]
fn a_call_waiting_for_its_result_is_read_again_once_the_result_is_there() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let cwd = env.project().to_string_lossy().into_owned();
    let call = json!({"type": "assistant", "sessionId": FIX_SESSION, "cwd": cwd, "timestamp": "2026-12-05T19:10:00Z",
        "message": {"content": [{"type": "tool_use", "id": "toolu_late", "name": "Bash", "input": {"command": "cargo test auth"}}]}});
    let prompt = json!({"type": "user", "promptId": "p-late", "sessionId": FIX_SESSION, "cwd": cwd,
        "timestamp": "2026-12-05T19:09:59Z", "message": {"role": "user", "content": "run the auth tests"}});
    append(&path, &format!("{prompt}\n{call}\n"));
    env.run_stdout(&["import", "claude-code"]);
    assert_eq!(
        env.count_where("tool_uses", "tool_use_id = 'toolu_late'"),
        0
    );
    let result = json!({"type": "user", "promptId": "p-late", "sessionId": FIX_SESSION, "cwd": cwd,
        "timestamp": "2026-12-05T19:12:00Z", "toolUseResult": {"stdout": "test result: ok. 6 passed", "stderr": ""},
        "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_late", "content": "test result: ok. 6 passed"}]}});
    append(&path, &format!("{result}\n"));
    env.run_stdout(&["import", "claude-code"]);
    assert_eq!(
        env.count_where("tool_uses", "tool_use_id = 'toolu_late'"),
        1
    );
    assert_eq!(env.count("user_prompts"), 2);
    // Unchanged since: nothing is read again.
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("1 unchanged"), "{out}");
}

/// A line the live hook would have repaired (a lone surrogate, which Node writes when it cuts
/// a string inside an emoji) is imported, not dropped with its prompt.
#[test]
fn a_line_the_hooks_would_repair_is_imported() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    env.run_stdout(&["import", "claude-code"]);
    let prompts = counts(&env).0;
    let next = turn_lines(
        &env,
        FIX_SESSION,
        "p-emoji",
        "Ship it EMOJI_CUT now",
        "Shipped.",
    )
    .replace("EMOJI_CUT", "\\ud83d");
    append(&path, &next);
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(!out.contains("skipped"), "{out}");
    assert_eq!(counts(&env).0, prompts + 1);
    let text: Vec<String> = env.rows(
        "SELECT prompt_text FROM user_prompts WHERE prompt_id = 'p-emoji'",
        |r| r.get(0),
    );
    assert_eq!(text, ["Ship it \u{fffd} now"]);
}

/// A missing path, a pipe and a dangling link are each named and skipped: the transcripts
/// beside them are still imported, and the run ends in failure so a script notices.
#[test]
fn a_bad_entry_is_named_and_skipped_and_the_rest_is_imported() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let dir = path.parent().unwrap().to_path_buf();
    let dangling = dir.join("gone.jsonl");
    std::os::unix::fs::symlink(env.root().join("nowhere.jsonl"), &dangling).unwrap();
    let fifo = env.root().join("pipe.jsonl");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let missing = env.root().join("missing.jsonl");
    let out = env
        .cmd()
        .args(["import", "claude-code"])
        .arg(&dir)
        .arg(&missing)
        .arg(&fifo)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{out:?}");
    assert!(stdout.contains("imported 1 session"), "{stdout}\n{stderr}");
    for bad in [&dangling, &missing, &fifo] {
        let named = format!("cmem: could not import {}:", bad.display());
        assert!(stderr.contains(&named), "{bad:?} not named: {stderr}");
    }
    assert_eq!(env.count("user_prompts"), 1);
}

/// A transcript or a project folder that is a symbolic link is imported like the real thing,
/// once, and a link back up the tree does not loop.
#[test]
fn linked_transcripts_and_folders_are_followed_once() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("proj")).unwrap();
    std::fs::write(
        elsewhere.join("zh.jsonl"),
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/transcripts/claude-code-pool-zh.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
        .replace("__WORK__", &env.project().to_string_lossy()),
    )
    .unwrap();
    settle(&elsewhere.join("zh.jsonl"));
    let other = turn_lines(
        &env,
        "s-linked-dir",
        "p-linked-dir",
        "Linked folder",
        "Yes.",
    );
    std::fs::write(elsewhere.join("proj/s.jsonl"), other).unwrap();
    settle(&elsewhere.join("proj/s.jsonl"));
    let projects = path.parent().unwrap().parent().unwrap().to_path_buf();
    let dir = path.parent().unwrap();
    std::os::unix::fs::symlink(elsewhere.join("zh.jsonl"), dir.join("linked.jsonl")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("proj"), projects.join("-linked")).unwrap();
    // A loop, and a second link to a file already found.
    std::os::unix::fs::symlink(&projects, elsewhere.join("proj/up")).unwrap();
    std::os::unix::fs::symlink(&path, dir.join("again.jsonl")).unwrap();
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(out.contains("read 3 of 3"), "{out}");
    assert!(out.contains("imported 3 sessions"), "{out}");
    let again = env.run_stdout(&["import", "claude-code"]);
    assert!(again.contains("3 unchanged"), "{again}");
}

/// A transcript whose mtime is in the future (a wrong clock, a copy from another machine) is
/// not "still being written" until that date.
#[test]
fn a_transcript_dated_in_the_future_is_imported() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let f = std::fs::File::options().append(true).open(&path).unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(86_400))
        .unwrap();
    let out = env.run_stdout(&["import", "claude-code"]);
    assert!(!out.contains("still being written"), "{out}");
    assert!(out.contains("imported 1 session"), "{out}");
}

/// Skipped lines are named by file and first bad line; a file with nothing usable is said so
/// once, and not read (nor reported) again while it does not change.
#[test]
fn skipped_lines_name_their_file_and_line_and_a_useless_file_is_reported_once() {
    let env = Env::new();
    let path = transcript(&env, "claude-code-refresh-window.jsonl", "fix.jsonl");
    let good_lines = std::fs::read_to_string(&path).unwrap().lines().count();
    env.run_stdout(&["import", "claude-code"]);
    append(&path, "not json\n{\"no\":\"type\"}\n");
    let junk = path.with_file_name("junk.jsonl");
    std::fs::write(&junk, b"[1]\n\n{\"no\":\"type\"}\n").unwrap();
    settle(&junk);
    let out = env.run_stdout(&["import", "claude-code"]);
    let fix_named = format!(
        "{}: 2 lines, first at line {}",
        path.display(),
        good_lines + 1
    );
    assert!(out.contains(&fix_named), "{fix_named:?} not in {out}");
    let junk_named = format!("{}: nothing usable", junk.display());
    assert!(out.contains(&junk_named), "{junk_named:?} not in {out}");
    let again = env.run_stdout(&["import", "claude-code"]);
    assert!(!again.contains("junk.jsonl"), "{again}");
    assert!(again.contains("2 unchanged"), "{again}");
}

/// A line without a cwd takes the one its file names nearest; a session whose file names
/// none is left out and said so, never filed under the directory the import ran from.
#[test]
fn a_line_without_cwd_takes_its_files_and_a_session_without_any_is_left_out() {
    let env = Env::new();
    let dir = env.home().join(".claude/projects/-project");
    std::fs::create_dir_all(&dir).unwrap();
    let strip = |text: String| {
        text.lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.as_object_mut().unwrap().remove("cwd");
                format!("{v}\n")
            })
            .collect::<String>()
    };
    // The first turn names no cwd, the second does.
    let first = strip(turn_lines(
        &env,
        "s-late-cwd",
        "p-a",
        "First prompt",
        "One.",
    ));
    let second = turn_lines(&env, "s-late-cwd", "p-b", "Second prompt", "Two.");
    let late = dir.join("late.jsonl");
    std::fs::write(&late, format!("{first}{second}")).unwrap();
    settle(&late);
    let none = dir.join("none.jsonl");
    std::fs::write(
        &none,
        strip(turn_lines(
            &env,
            "s-no-cwd",
            "p-c",
            "Where am I",
            "Nowhere.",
        )),
    )
    .unwrap();
    settle(&none);
    let elsewhere = env.root().join("importer-dir");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let out = env
        .cmd()
        .args(["import", "claude-code"])
        .current_dir(&elsewhere)
        .env("CLAUDE_PROJECT_DIR", &elsewhere)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{out:?}");
    let cwds: Vec<String> = env.rows("SELECT DISTINCT cwd FROM sessions", |r| r.get(0));
    assert_eq!(
        cwds,
        [env.project().to_string_lossy().into_owned()],
        "{stdout}"
    );
    assert_eq!(env.count("user_prompts"), 2, "{stdout}");
    assert!(stdout.contains("s-no-cwd"), "{stdout}");
    assert!(stdout.contains(&none.display().to_string()), "{stdout}");
}

/// A line without a usable time (missing, unparseable, before 2000 or far in the future)
/// takes the previous usable one, else the next, else the file's mtime: no 1970, no 2099.
#[test]
fn a_line_without_a_usable_time_takes_its_neighbours_or_the_files() {
    let env = Env::new();
    let dir = env.home().join(".claude/projects/-project");
    std::fs::create_dir_all(&dir).unwrap();
    let set_time = |text: String, times: [Option<&str>; 2]| {
        text.lines()
            .zip(times)
            .map(|(l, t)| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                let o = v.as_object_mut().unwrap();
                match t {
                    Some(t) => o.insert("timestamp".into(), json!(t)),
                    None => o.remove("timestamp"),
                };
                format!("{v}\n")
            })
            .collect::<String>()
    };
    let a = set_time(
        turn_lines(&env, "s-time", "p-a", "First", "One."),
        [None, Some("2026-12-05T19:00:05Z")],
    );
    let b = set_time(
        turn_lines(&env, "s-time", "p-b", "Second", "Two."),
        [Some("2099-01-01T00:00:00Z"), Some("1970-01-01T00:00:00Z")],
    );
    let timed = dir.join("timed.jsonl");
    std::fs::write(&timed, format!("{a}{b}")).unwrap();
    settle(&timed);
    let c = set_time(
        turn_lines(&env, "s-untimed", "p-c", "Third", "Three."),
        [Some("not a time"), None],
    );
    let untimed = dir.join("untimed.jsonl");
    std::fs::write(&untimed, c).unwrap();
    settle(&untimed);
    env.run_stdout(&["import", "claude-code"]);
    let at = |id: &str| -> i64 {
        env.rows(
            &format!("SELECT created_at_epoch FROM user_prompts WHERE prompt_id = '{id}'"),
            |r| r.get(0),
        )[0]
    };
    let answer_ms = 1_796_497_205_000; // 2026-12-05T19:00:05Z
    assert_eq!(at("p-a"), answer_ms);
    assert_eq!(at("p-b"), answer_ms);
    let hour_ago = (SystemTime::now() - Duration::from_secs(3600))
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    assert!((at("p-c") - hour_ago).abs() < 60_000, "{}", at("p-c"));
    let starts: Vec<i64> = env.rows("SELECT started_at_epoch FROM sessions", |r| r.get(0));
    let ends: Vec<Option<i64>> = env.rows("SELECT ended_at_epoch FROM user_prompts", |r| r.get(0));
    assert!(
        starts
            .iter()
            .all(|t| *t > 946_684_800_000 && *t < hour_ago + 120_000),
        "{starts:?}"
    );
    assert!(
        ends.iter().flatten().all(|t| *t < hour_ago + 120_000),
        "{ends:?}"
    );
}
