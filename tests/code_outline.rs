//! Golden outlines, unfolds and missing-symbol answers for every language, through the real
//! binary (`cmem outline`, `cmem unfold`). `UPDATE_GOLDEN=1 cargo test --test code_outline`
//! rewrites the golden files after an intended change; review the diff.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// (fixture under tests/fixtures/code, a symbol to unfold, nests symbols, has doc comments).
/// Bash and Lua scripts are flat by nature; JSON has no comments, and the TOML/YAML files
/// keep their comments above sections whose extent the grammar draws differently.
const FIXTURES: &[(&str, &str, bool, bool)] = &[
    ("rate_limiter.rs", "TokenBucketLimiter::check", true, true),
    ("inventory.py", "Warehouse.reserve", true, true),
    ("session_store.ts", "SessionStore.touch", true, true),
    ("server.go", "Server.Start", true, true),
    ("event_bus.js", "EventBus.publish", true, true),
    ("TodoList.tsx", "useTasks", true, true),
    ("OrderService.java", "OrderService.pay", true, true),
    ("ringbuf.c", "rb_write", true, true),
    ("scheduler.cpp", "Scheduler::workerLoop", true, true),
    ("deploy.rb", "Release.roll_out", true, true),
    ("backup.sh", "rotate", false, true),
    ("cache.lua", "Cache:get", false, true),
    (
        "InvoiceController.php",
        "InvoiceController::markPaid",
        true,
        true,
    ),
    ("SyncWorker.kt", "SyncWorker.syncOnce", true, true),
    ("RateCard.scala", "RateCard.price", true, true),
    ("ImageCache.swift", "ImageCache.image", true, true),
    ("Ledger.hs", "mkTransaction", true, true),
    ("allocator.zig", "Arena.alloc", true, true),
    ("dashboard.css", ".card", true, true),
    ("site.scss", ".hero", true, true),
    ("library.sql", "loans", true, true),
    ("package.json", "scripts", true, false),
    ("ci.yml", "jobs", true, false),
    ("ingest.toml", "[database]", true, false),
    ("README.md", "Pipelines", true, false),
];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/code")
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/code")
        .join(name)
}

fn cmem(args: &[&str]) -> (bool, String, String) {
    let env = common::Env::new();
    let out = Command::new(assert_cmd::cargo::cargo_bin!("cmem"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home())
        .env("CMEM_DATA_DIR", env.data_dir())
        .current_dir(fixtures())
        .args(args)
        .output()
        .expect("run cmem");
    (
        out.status.success(),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

fn check_golden(name: &str, actual: &str, failures: &mut Vec<String>) {
    let path = golden(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    match std::fs::read_to_string(&path) {
        Ok(expected) if expected == actual => {}
        Ok(expected) => failures.push(format!(
            "{name} differs from {}:\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )),
        Err(_) => failures.push(format!("{name}: no golden file at {}", path.display())),
    }
}

#[test]
fn outlines_match_their_golden_files() {
    let mut failures = Vec::new();
    for (file, _, nested, docs) in FIXTURES {
        let source = std::fs::read_to_string(fixtures().join(file)).unwrap();
        assert!(
            source.lines().count() >= 150,
            "{file} is shorter than 150 lines"
        );
        let (ok, out, err) = cmem(&["outline", file]);
        assert!(ok && err.is_empty(), "{file}: {err}");
        assert!(
            out.chars().all(|c| (c as u32) < 0x10000),
            "{file}: astral glyph"
        );
        let lang = out.lines().next().unwrap_or("");
        assert!(
            lang.starts_with(&format!("▸ {file} (")) || lang.starts_with(&format!("▹ {file} (")),
            "{file}: {lang}"
        );
        // Real-world shape: nested symbols and doc lines are found.
        let nested_line = |l: &str| {
            l.starts_with("    ")
                && "ƒ◆◇●○▣◈⇢⇠§⌘·#".contains(l.trim_start().chars().next().unwrap_or(' '))
        };
        if *nested {
            assert!(
                out.lines().any(nested_line),
                "{file}: no nested symbol in\n{out}"
            );
        }
        if *docs {
            assert!(out.contains("” "), "{file}: no doc line in\n{out}");
        }
        check_golden(&format!("{file}.outline.txt"), &out, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn unfolds_match_their_golden_files() {
    let mut failures = Vec::new();
    for (file, symbol, _, _) in FIXTURES {
        let (ok, out, err) = cmem(&["unfold", file, symbol]);
        assert!(ok && err.is_empty(), "{file} {symbol}: {err}");
        let first = out.lines().next().unwrap_or("");
        assert!(first.contains(&format!("⌖ {file} L")), "{file}: {first}");
        assert!(out.lines().count() > 2, "{file} {symbol}: {out}");
        check_golden(&format!("{file}.unfold.txt"), &out, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn missing_symbols_list_what_is_there() {
    for (file, symbol, _, _) in FIXTURES {
        let (ok, out, _) = cmem(&["unfold", file, "NoSuchSymbol"]);
        assert!(ok, "{file}");
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines[0],
            format!("Symbol \"NoSuchSymbol\" not found in {file}.")
        );
        assert_eq!(lines[1], "Available symbols:");
        assert!(lines.len() > 5, "{file}: {out}");
        // The symbol the unfold test finds is among the available ones.
        let last = symbol.rsplit(['.', ':']).next().unwrap();
        assert!(out.contains(last), "{file}: {symbol} not listed in\n{out}");
    }
}
