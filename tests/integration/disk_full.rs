//! A full disk, for real: the data dir on a 2 MiB tmpfs filled to the last byte. Hooks still
//! answer, the lost events are counted without growing any file, the log gets one line about
//! them, and `cmem doctor` reports the free space and the count. Skipped (with the reason
//! printed) only where a tmpfs cannot be mounted.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::Env;
use serde_json::json;

/// A mounted tmpfs, unmounted when dropped (also when the test fails).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, size: &str) -> Result<Tmpfs, String> {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
        }
        Ok(Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Writes zeros until the file system says it is full.
fn fill(dir: &Path) {
    let mut f = std::fs::File::create(dir.join("fill")).expect("create the filler");
    let block = vec![0u8; 4096];
    while f.write_all(&block).is_ok() {}
    let _ = f.write_all(&[0u8]); // the last partial block, if any
}

fn tool_use(env: &Env, id: &str) -> serde_json::Value {
    env.payload(
        "s-full",
        json!({"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": id,
               "tool_input": {"command": format!("echo {id}")},
               "tool_response": {"stdout": id}}),
    )
}

#[test]
fn a_full_disk_keeps_hooks_answering_and_counts_what_it_drops() {
    let env = Env::new();
    let _mount = match Tmpfs::mount(&env.data_dir(), "2m") {
        Ok(m) => m,
        Err(why) => {
            eprintln!("skipped: cannot mount a tmpfs here ({why})");
            return;
        }
    };
    env.hook(
        "user-prompt-submit",
        &env.payload(
            "s-full",
            json!({"prompt": "fill the disk", "prompt_id": "p1"}),
        ),
    );
    env.hook("post-tool-use", &tool_use(&env, "before"));
    // A log line now, so the log file has room in its last page when the disk is full.
    env.hook_bytes("stop", b"{not json");
    assert!(
        env.doctor().contains("no event dropped"),
        "{}",
        env.doctor()
    );

    fill(&env.data_dir());
    const SENT: usize = 12;
    for i in 0..SENT {
        // env.hook checks the fail-open contract: exit 0, one JSON object, empty stderr.
        let answer = env.hook("post-tool-use", &tool_use(&env, &format!("full-{i}")));
        assert_eq!(answer, json!({}));
    }
    let answer = env.hook(
        "session-start",
        &env.payload("s-full2", json!({"source": "startup"})),
    );
    assert!(answer["hookSpecificOutput"]["additionalContext"].is_string());

    // The count grew in place: the record is as big as before.
    assert_eq!(
        std::fs::metadata(env.data_dir().join("dropped"))
            .unwrap()
            .len(),
        512
    );
    let report = env.doctor();
    let dropped: usize = report
        .lines()
        .find(|l| l.contains(" disk "))
        .and_then(|l| l.split("; ").nth(1))
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no dropped count in:\n{report}"));
    assert!(report.contains("MiB free"), "{report}");
    assert!(report.contains("No space left on device") || report.contains("disk is full"));
    let log = env.log_text();
    assert_eq!(
        log.matches("dropped so far").count(),
        1,
        "one log line for all drops:\n{log}"
    );

    // Room again: what was dropped is gone, what was spooled is stored, and counts add up.
    std::fs::remove_file(env.data_dir().join("fill")).unwrap();
    env.hook("post-tool-use", &tool_use(&env, "after"));
    let kept = env.count_where("tool_uses", "tool_use_id LIKE 'full-%'") as usize;
    eprintln!("disk full: {SENT} events sent, {dropped} dropped and counted, {kept} kept");
    assert!(dropped >= 1, "{report}");
    assert_eq!(kept + dropped, SENT, "kept {kept}, dropped {dropped}");
    assert_eq!(
        env.count_where("tool_uses", "tool_use_id IN ('before', 'after')"),
        2
    );
}
