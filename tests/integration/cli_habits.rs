//! What a person at a shell expects of any command: a closed pipe ends it quietly, a failed
//! command leaves nothing behind, `doctor` says how to put cmem on the PATH.

use std::process::Stdio;

use crate::common::Env;

/// An environment with synthetic memory, an export of it and a big source file.
fn seeded() -> Env {
    let env = Env::new();
    env.run_ok(&["dev", "generate", "--observations", "300"]);
    let export = env.root().join("all.jsonl");
    env.run_ok(&[
        std::ffi::OsStr::new("export"),
        "--out".as_ref(),
        export.as_os_str(),
    ]);
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
        vec!["search", "--all-projects", "token"],
        vec!["show", "1", "2", "3"],
        vec!["config"],
        vec!["config", "--defaults"],
        vec!["config", "--path"],
        vec!["doctor"],
        vec!["export"],
        vec!["import", "jsonl", &export, "--dry-run"],
        vec!["forget", "--project", "acme-api", "--dry-run"],
        vec!["scrub", "the", "--dry-run"],
        vec!["sql", "SELECT title FROM observations"],
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

#[test]
fn doctor_says_how_to_run_cmem_when_it_is_not_on_the_path() {
    let env = Env::new();
    let exe = std::path::PathBuf::from(assert_cmd::cargo::cargo_bin!("cmem"))
        .canonicalize()
        .unwrap();
    let doctor = |path: &std::path::Path| {
        let out = env.cmd().env("PATH", path).arg("doctor").output().unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    // Not on the PATH (as under `cargo run` before any install): the full path, and how to
    // put it there.
    let empty = env.root().join("empty-bin");
    std::fs::create_dir_all(&empty).unwrap();
    let text = doctor(&empty);
    assert!(
        text.contains(&format!("→ run `{} install`", exe.display())),
        "{text}"
    );
    assert!(
        text.contains("`cmem` is not on your PATH yet")
            && text.contains("scripts/install.sh (or `cargo install --path .`)"),
        "{text}"
    );
    // This binary on the PATH: plain `cmem`.
    let bin = env.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(&exe, bin.join("cmem")).unwrap();
    let text = doctor(&bin);
    assert!(text.contains("→ run `cmem install`"), "{text}");
    assert!(!text.contains("PATH"), "{text}");
    // Another cmem on the PATH: said so.
    let other = env.root().join("other-bin");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("cmem"), "#!/bin/sh\n").unwrap();
    let text = doctor(&other);
    assert!(
        text.contains(&format!(
            "`cmem` on your PATH is {}, not this binary",
            other.join("cmem").display()
        )),
        "{text}"
    );
}

#[test]
fn a_failed_import_creates_no_database() {
    let env = Env::new();
    std::fs::write(env.root().join("bad.jsonl"), "{\"x\": 1}\n").unwrap();
    std::fs::write(env.root().join("fake.db"), "not a database").unwrap();
    for (args, says) in [
        (
            vec![
                "claude-mem".to_string(),
                "/nonexistent/claude-mem.db".into(),
            ],
            "no claude-mem database at /nonexistent/claude-mem.db",
        ),
        (
            vec![
                "claude-mem".into(),
                env.root().join("fake.db").to_string_lossy().into_owned(),
            ],
            "is not a readable SQLite database",
        ),
        (
            vec![
                "jsonl".into(),
                env.root().join("bad.jsonl").to_string_lossy().into_owned(),
            ],
            "is not a cmem export",
        ),
    ] {
        let out = env.cmd().arg("import").args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("cmem: error: ") && err.contains(says),
            "{args:?}: {err}"
        );
        assert!(
            !env.db_path().exists(),
            "{args:?} created {}",
            env.db_path().display()
        );
    }
}
