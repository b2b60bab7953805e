//! Golden outlines, unfolds and missing-symbol answers for every language, through the real
//! binary (`cmem outline`, `cmem unfold`).
//! `UPDATE_GOLDEN=1 cargo test --test integration -- code_outline::` rewrites the golden files
//! after an intended change; review the diff.

use crate::common;

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
        // On the command line it is an error (exit 1) pointing at the outline…
        let (ok, out, err) = cmem(&["unfold", file, "NoSuchSymbol"]);
        assert!(!ok && out.is_empty(), "{file}: {out}");
        assert!(
            err.starts_with(&format!(
                "cmem: error: no symbol \"NoSuchSymbol\" in {file}"
            )) && err.contains(&format!("`cmem outline {file}` lists all ")),
            "{file}: {err}"
        );
        // …the agent's tool answers with what is there.
        let out = cmem::mcp::tools::code::smart_unfold(
            &fixtures(),
            &serde_json::json!({"file_path": file, "symbol_name": "NoSuchSymbol"}),
        )
        .unwrap();
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

/// A Rust file whose symbols have realistic names: `pad` comment lines, `structs` structs,
/// each with an impl block of `methods` methods, then `functions` free functions, each
/// `body` + 5 lines long. Returns the source and every symbol's (name, first line).
fn big_rust_file(
    pad: usize,
    structs: usize,
    methods: usize,
    functions: usize,
    body: usize,
) -> (String, Vec<(String, usize)>) {
    const VERBS: [&str; 10] = [
        "parse", "load", "store", "render", "check", "build", "apply", "merge", "split", "fetch",
    ];
    const NOUNS: [&str; 10] = [
        "header", "session", "record", "buffer", "token", "config", "index", "cursor", "window",
        "layer",
    ];
    let mut names = (0..).map(|i: usize| {
        format!(
            "{}_{}_{}",
            VERBS[i % 10],
            NOUNS[(i / 10) % 10],
            NOUNS[(i / 100 + 3) % 10]
        ) + &if i >= 1000 {
            format!("_{i}")
        } else {
            String::new()
        }
    });
    let mut src = String::new();
    let mut symbols = Vec::new();
    let mut line = 1;
    let mut push = |src: &mut String, text: &str| {
        src.push_str(text);
        src.push('\n');
        line += 1;
        line - 1
    };
    let fn_body = |src: &mut String, push: &mut dyn FnMut(&mut String, &str) -> usize| {
        for k in 0..body {
            push(src, &format!("        let v{k} = input.len() + {k};"));
        }
        push(src, "        todo!()");
    };
    for _ in 0..pad {
        push(&mut src, "// Generated by the outline test.");
    }
    for s in 0..structs {
        let name = format!("RequestHandler{s:02}");
        symbols.push((name.clone(), push(&mut src, &format!("pub struct {name};"))));
        push(&mut src, "");
        symbols.push((name.clone(), push(&mut src, &format!("impl {name} {{"))));
        for _ in 0..methods {
            let m = names.next().unwrap();
            push(&mut src, &format!("    /// Handles {m}."));
            let at = push(
                &mut src,
                &format!("    pub fn {m}(&mut self, input: &[u8]) -> Result<Response, Error> {{"),
            );
            symbols.push((m, at));
            fn_body(&mut src, &mut push);
            push(&mut src, "    }");
            push(&mut src, "");
        }
        push(&mut src, "}");
        push(&mut src, "");
    }
    for _ in 0..functions {
        let f = names.next().unwrap();
        push(&mut src, &format!("/// Computes {f}."));
        let at = push(&mut src, &format!("pub fn {f}(input: &[f64]) -> f64 {{"));
        symbols.push((f, at));
        fn_body(&mut src, &mut push);
        push(&mut src, "}");
        push(&mut src, "");
    }
    (src, symbols)
}

/// Runs `cmem outline` on `source` (as `name`) in a fresh directory; the output and exit.
fn outline_of(name: &str, source: &str) -> (bool, String, String, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(name), source).unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin!("cmem"))
        .env_clear()
        .env("HOME", dir.path())
        .env("CMEM_DATA_DIR", dir.path().join("data"))
        .current_dir(dir.path())
        .args(["outline", name])
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        dir,
    )
}

#[test]
fn big_files_fold_their_outline_to_fit_one_reply() {
    let limit = cmem::view::MAX_REPLY_BYTES;
    // The case (3,500 lines, 700 functions) and 10,000 lines with 1,000 symbols.
    for (what, (src, symbols), form) in [
        (
            "3,500 lines",
            big_rust_file(0, 0, 0, 700, 0),
            "one line per symbol",
        ),
        (
            "10,000 lines",
            big_rust_file(320, 20, 46, 40, 5),
            "1000 symbols, several a line",
        ),
    ] {
        let lines = src.lines().count();
        let (ok, out, err, dir) = outline_of("big.rs", &src);
        assert!(ok && err.is_empty(), "{what}: {err}");
        assert!(out.len() <= limit + 1, "{what}: {} bytes", out.len());
        assert!(!out.contains("shortened"), "{what}: cut\n{out}");
        assert!(
            out.starts_with(&format!(
                "▸ big.rs (rust, {lines} lines)\n  Folded to fit 32 KiB: {form}"
            )),
            "{what}: {out}"
        );
        eprintln!(
            "{what}: {lines} lines, {} symbols, {} bytes",
            symbols.len(),
            out.len()
        );
        // Every symbol is there under its exact name with its first line.
        for (name, line) in &symbols {
            let plain = format!(" {name} (L{line}");
            let packed = format!(" {name} L{line}");
            let container = format!(" {name} (impl, L{line}-");
            assert!(
                out.contains(&plain) || out.contains(&packed) || out.contains(&container),
                "{what}: {name} at {line} missing"
            );
        }
        // The agent's smart_outline replies with the same text.
        let tool = cmem::mcp::tools::code::smart_outline(
            dir.path(),
            &serde_json::json!({"file_path": "big.rs"}),
        )
        .unwrap();
        assert_eq!(format!("{tool}\n"), out, "{what}");
        // And can be unfolded by that name.
        let (name, line) = &symbols[symbols.len() / 2];
        let unfold = Command::new(assert_cmd::cargo::cargo_bin!("cmem"))
            .env_clear()
            .env("HOME", dir.path())
            .env("CMEM_DATA_DIR", dir.path().join("data"))
            .current_dir(dir.path())
            .args(["unfold", "big.rs", name])
            .output()
            .unwrap();
        let text = String::from_utf8(unfold.stdout).unwrap();
        assert!(
            text.starts_with(&format!("// ⌖ big.rs L{}-", line - 1)),
            "{what}: {name}: {text}"
        );
    }
}

#[test]
fn an_outline_that_fits_is_not_folded() {
    let (src, _) = big_rust_file(0, 2, 5, 5, 0);
    let (ok, out, _, _) = outline_of("small.rs", &src);
    assert!(ok);
    assert!(!out.contains("Folded"), "{out}");
    assert!(
        out.contains("    ƒ parse_header_buffer [exported] (L5-7)\n      pub fn parse_header_buffer(&mut self"),
        "{out}"
    );
    let (_, one, _, _) = outline_of("one.rs", "fn main() {}\n");
    assert!(one.starts_with("▸ one.rs (rust, 1 line)\n"), "{one}");
}
