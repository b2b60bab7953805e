//! `cmem demo --no-tui`: the demo memory is what `cmem hook …` writes for the scripted sessions,
//! and it is the same bytes every time it is built.

use crate::common;

use std::path::{Path, PathBuf};

use crate::common::Env;

const NOW: i64 = common::DEMO_NOW;

/// Builds the demo with its cache in `cache` and returns its data dir.
fn build_demo(env: &Env, cache: &Path) -> PathBuf {
    let data = env.build_demo(Some(cache));
    assert!(data.starts_with(cache), "{}", data.display());
    data
}

fn export(env: &Env, data: &Path) -> Vec<u8> {
    let out = env
        .cmd()
        .env("CMEM_NOW_MS", NOW.to_string())
        .env("CMEM_DATA_DIR", data)
        .args(["export", "--format", "jsonl"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

#[test]
fn rebuilding_the_demo_gives_byte_identical_exports() {
    let env = Env::new();
    let first = export(&env, &build_demo(&env, &env.root().join("cache-a")));
    let again = export(&env, &build_demo(&env, &env.root().join("cache-a")));
    let elsewhere = export(&env, &build_demo(&env, &env.root().join("cache-b")));
    let text = String::from_utf8_lossy(&first);
    assert!(text.lines().count() > 150, "{} lines", text.lines().count());
    assert!(text.contains("Changed Pool::release in src/db/pool.rs"));
    assert!(first == again, "a rebuild in the same place differs");
    assert!(first == elsewhere, "a build in another cache dir differs");
}

/// The demo builder calls the hook handler in-process; spawning `cmem hook <event>` for every
/// scripted payload, at its time, must store exactly the same memory.
#[test]
fn the_demo_is_what_the_hook_binary_writes_for_the_scripts() {
    let env = Env::new();
    let demo = export(&env, &build_demo(&env, &env.root().join("cache")));

    let mut events = Vec::new();
    for project in cmem::demo::projects() {
        events.extend(project.payloads(NOW).unwrap());
    }
    events.sort_by_key(|e| e.at_ms);
    assert!(events.len() > 100, "{} events", events.len());
    for e in &events {
        let out = common::run_with_stdin(
            env.cmd()
                .env("CMEM_NOW_MS", e.at_ms.to_string())
                .args(["hook", e.hook]),
            e.payload.to_string().as_bytes(),
        );
        assert!(out.status.success() && out.stderr.is_empty(), "{}", e.hook);
    }
    let replayed = export(&env, &env.data_dir());
    assert!(
        demo == replayed,
        "{}",
        cmem::cli::jsonfile::unified_diff(
            &String::from_utf8_lossy(&demo),
            &String::from_utf8_lossy(&replayed),
            "export"
        )
    );
}
