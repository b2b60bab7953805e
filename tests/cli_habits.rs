//! What a person at a shell expects of any command: a closed pipe ends it quietly, a failed
//! command leaves nothing behind, `doctor` says how to put cmem on the PATH.

mod common;

use std::process::Stdio;

use common::Env;

/// An environment with synthetic memory, an export of it and a big source file.
fn seeded() -> Env {
    let env = Env::new();
    let out = env
        .cmd()
        .args(["dev", "generate", "--observations", "300"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = env
        .cmd()
        .args(["export", "--out"])
        .arg(env.root().join("all.jsonl"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut src = String::new();
    for i in 0..3000 {
        src.push_str(&format!(
            "/// Item {i}.\npub fn item_{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n\n"
        ));
    }
    std::fs::write(env.project().join("big.rs"), src).unwrap();
    env
}

/// Every command that prints, with arguments that make it print something.
fn printing_commands(env: &Env) -> Vec<Vec<String>> {
    let export = env.root().join("all.jsonl").to_string_lossy().into_owned();
    [
        vec!["outline", "big.rs"],
        vec!["unfold", "big.rs", "item_1500"],
        vec!["symbols", "item"],
        vec!["context", "--project", "acme-api"],
        vec!["config"],
        vec!["config", "--defaults"],
        vec!["config", "--path"],
        vec!["doctor"],
        vec!["export"],
        vec!["import", "jsonl", &export, "--dry-run"],
        vec!["forget", "--project", "acme-api", "--dry-run"],
        vec!["scrub", "the", "--dry-run"],
        vec!["observe"],
        vec!["install", "--dry-run"],
        vec!["uninstall"],
        vec!["demo", "--no-tui"],
        vec!["tui", "--list-themes"],
        vec!["dev", "syntax-tree", "big.rs"],
        vec!["--help"],
        vec!["outline", "--help"],
        vec!["--version"],
    ]
    .into_iter()
    .map(|a| a.into_iter().map(String::from).collect())
    .collect()
}

#[test]
fn a_closed_pipe_ends_every_command_quietly() {
    let env = seeded();
    for args in printing_commands(&env) {
        // The command does print something when someone reads…
        let open = env.cmd().args(&args).output().unwrap();
        assert!(!open.stdout.is_empty(), "cmem {args:?} printed nothing");
        // …and when nobody does (the reading end is closed before it starts, so its first
        // write fails), it ends with status 0 or 141 and says nothing.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = env
            .cmd()
            .args(&args)
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0) | Some(141)),
            "cmem {args:?}: {:?} {stderr}",
            out.status
        );
        assert!(stderr.is_empty(), "cmem {args:?}: {stderr}");
    }
}

#[test]
fn hook_and_mcp_keep_their_own_closed_pipe_handling() {
    let env = Env::new();
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let mut child = env
        .cmd()
        .args(["hook", "session-start"])
        .stdin(Stdio::piped())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let payload = env.payload(
            "s1",
            serde_json::json!({"hook_event_name": "SessionStart", "source": "startup"}),
        );
        let _ = child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes());
    }
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "hooks always exit 0");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
