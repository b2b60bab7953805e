//! Code tools on files nested without end: every language's outline, the MCP smart tools and
//! the hooks survive nesting up to 100,000 levels (no recursion over input-controlled depth, no
//! grammar scanner overrun), and answer the way they answer for any file.

use crate::common;

use std::path::Path;

use crate::common::Env;
use proptest::prelude::*;
use serde_json::{Value, json};

/// How a language nests: a statement around the nesting, an opener and a closer per level,
/// and whether the levels are lines of growing indentation (depth then limited by file size).
struct Nest {
    ext: &'static str,
    prefix: &'static str,
    open: &'static str,
    leaf: &'static str,
    close: &'static str,
    suffix: &'static str,
    indented: bool,
}

const fn n(
    ext: &'static str,
    prefix: &'static str,
    open: &'static str,
    close: &'static str,
    suffix: &'static str,
) -> Nest {
    Nest {
        ext,
        prefix,
        open,
        leaf: "1",
        close,
        suffix,
        indented: false,
    }
}

const fn indented(ext: &'static str, open: &'static str, leaf: &'static str) -> Nest {
    Nest {
        ext,
        prefix: "",
        open,
        leaf,
        close: "",
        suffix: "",
        indented: true,
    }
}

/// At least one expression nesting and one block nesting for every language cmem outlines.
const NESTS: &[Nest] = &[
    n("rs", "fn f() { let x = ", "(", ")", "; }\n"),
    n("rs", "", "mod m { ", "}", "\n"),
    n("py", "x = ", "[", "]", "\n"),
    indented("py", "if x:", "pass"),
    n("js", "const x = ", "[", "]", ";\n"),
    n("js", "", "function f() { ", "}", "\n"),
    n("ts", "let x = ", "(", ")", ";\n"),
    n("ts", "", "namespace A { ", "}", "\n"),
    n("tsx", "const x = ", "<div>", "</div>", ";\n"),
    n("go", "package m\nvar x = ", "(", ")", "\n"),
    n("go", "package m\nfunc f() ", "{", "}", "\n"),
    n("java", "class A { int x = ", "(", ")", "; }\n"),
    n("java", "", "class B { ", "}", "\n"),
    n("kt", "val x = ", "(", ")", "\n"),
    n("kt", "", "class A { ", "}", "\n"),
    n("scala", "object A { val x = ", "(", ")", " }\n"),
    n("swift", "let x = ", "[", "]", "\n"),
    n("swift", "", "class A { ", "}", "\n"),
    n("c", "int x = ", "(", ")", ";\n"),
    n("c", "void f() ", "{", "}", "\n"),
    n("cpp", "", "namespace a { ", "}", "\n"),
    n("php", "<?php\n$x = ", "[", "]", ";\n"),
    n("lua", "x = ", "{", "}", "\n"),
    n("lua", "", "function f() ", "end ", "\n"),
    n("hs", "x = ", "(", ")", "\n"),
    n("zig", "const x = ", "(", ")", ";\n"),
    n("rb", "x = ", "[", "]", "\n"),
    indented("rb", "class A", "end"),
    n("sh", "x=", "$(", ")", "\n"),
    n("sh", "f() ", "{ ", "} ", "\n"),
    n("css", "a { width: ", "calc(", ")", "; }\n"),
    n("css", "", "@media x { ", "}", "\n"),
    n("scss", "", ".a { ", "}", "\n"),
    n("sql", "SELECT ", "(", ")", ";\n"),
    n("json", "", "[", "]", "\n"),
    n("json", "", "{\"a\": ", "}", "\n"),
    n("md", "", ">", "", " quote\n"),
    indented("md", "- item", "- leaf"),
    n("yaml", "y: ", "[", "]", "\n"),
    indented("yaml", "k:", "v"),
    n("toml", "x = ", "[", "]", "\n"),
    n("toml", "y = ", "{a = ", "}", "\n"),
];

/// Lines of growing indentation are limited so the file stays small (2 spaces a level).
const MAX_INDENTED_LEVELS: usize = 3_000;

fn source(nest: &Nest, depth: usize) -> String {
    if nest.indented {
        let depth = depth.min(MAX_INDENTED_LEVELS);
        let mut s = String::new();
        for level in 0..depth {
            s.push_str(&"  ".repeat(level));
            s.push_str(nest.open);
            s.push('\n');
        }
        s.push_str(&"  ".repeat(depth));
        s.push_str(nest.leaf);
        s.push('\n');
        return s;
    }
    format!(
        "{}{}{}{}{}",
        nest.prefix,
        nest.open.repeat(depth),
        nest.leaf,
        nest.close.repeat(depth),
        nest.suffix
    )
}

/// `cmem outline` (or `unfold`) ends normally: an outline, or a clear error (status 1).
fn assert_ends_normally(env: &Env, args: &[&str], what: &str) {
    let out = env.cmd().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{what}: cmem {args:?} ended with {:?}: {stderr}",
        out.status
    );
    assert!(
        !stderr.contains("panicked") && !stderr.contains("overflow"),
        "{what}: {stderr}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, .. ProptestConfig::default() })]

    #[test]
    fn every_language_outlines_any_nesting_depth(which in 0..NESTS.len(), depth in 1usize..100_000) {
        let nest = &NESTS[which];
        let env = Env::new();
        let file = format!("deep.{}", nest.ext);
        std::fs::write(env.project().join(&file), source(nest, depth)).unwrap();
        let what = format!("{} nested {depth} deep by {:?}", nest.ext, nest.open);
        assert_ends_normally(&env, &["outline", &file], &what);
        assert_ends_normally(&env, &["unfold", &file, "f"], &what);
    }
}

/// Every nesting of the table at its full depth once (the random cases pick a few of them).
#[test]
fn every_nesting_at_100000_levels() {
    let env = Env::new();
    for (i, nest) in NESTS.iter().enumerate() {
        let file = format!("deep{i}.{}", nest.ext);
        std::fs::write(env.project().join(&file), source(nest, 100_000)).unwrap();
        assert_ends_normally(&env, &["outline", &file], &file);
    }
}

fn call(id: usize, tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args}})
    .to_string()
}

/// The file (9,000 nested arrays) and one of 100,000 levels, in a workspace the MCP
/// server searches: every smart tool answers every request, and the server lives on.
#[test]
fn the_smart_tools_answer_for_deeply_nested_files() {
    let env = Env::new();
    let ws = env.project();
    std::fs::write(ws.join("f.json"), source(&NESTS[34], 9_000)).unwrap();
    std::fs::write(ws.join("g.json"), source(&NESTS[35], 100_000)).unwrap();
    std::fs::create_dir_all(ws.join("conf")).unwrap();
    let yaml = source(&NESTS[39], 400);
    std::fs::write(ws.join("conf/deep.yaml"), &yaml).unwrap();
    std::fs::write(ws.join("lib.rs"), "pub fn findable() {}\n").unwrap();
    let requests = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
        call(1, "smart_outline", json!({"file_path": "f.json"})),
        call(
            2,
            "smart_unfold",
            json!({"file_path": "f.json", "symbol_name": "a"}),
        ),
        call(3, "smart_outline", json!({"file_path": "g.json"})),
        call(
            4,
            "smart_unfold",
            json!({"file_path": "g.json", "symbol_name": "a"}),
        ),
        call(5, "smart_outline", json!({"file_path": "conf/deep.yaml"})),
        call(6, "smart_search", json!({"query": "findable", "path": "."})),
        json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}).to_string(),
    ];
    let replies = env.mcp_serve(&common::jsonl(&requests));
    assert_eq!(replies.len(), 8, "one answer per request");
    for (i, reply) in replies.iter().enumerate() {
        let v: Value = serde_json::from_slice(reply).unwrap();
        assert_eq!(v["id"], json!(i), "{v}");
        assert!(v.get("result").is_some(), "request {i} failed: {v}");
    }
    let text = |i: usize| {
        let v: Value = serde_json::from_slice(&replies[i]).unwrap();
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert!(text(1).contains("f.json"), "{}", text(1));
    assert!(text(6).contains("findable"), "{}", text(6));
    // The YAML nested past its scanner's limit is refused in words, not by an abort.
    assert!(text(5).contains("Could not parse"), "{}", text(5));
}

/// The hooks that look at files (the read gate before a Read, capture after an Edit) answer
/// for the deep file as for any other.
#[test]
fn the_hooks_answer_for_deeply_nested_files() {
    let env = Env::new();
    let path = env.project().join("f.json");
    let deep = source(&NESTS[34], 9_000);
    std::fs::write(&path, &deep).unwrap();
    let file = path.to_string_lossy().into_owned();
    let read = env.payload(
        "deep",
        json!({"hook_event_name": "PreToolUse", "tool_name": "Read",
               "tool_use_id": "toolu_r", "tool_input": {"file_path": file}}),
    );
    env.hook("pre-tool-use", &read);
    let edit = env.payload(
        "deep",
        json!({"hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_use_id": "toolu_e",
               "tool_input": {"file_path": file, "old_string": "1", "new_string": "2"},
               "tool_response": {"filePath": file, "originalFile": deep}}),
    );
    assert_eq!(env.hook("post-tool-use", &edit), json!({}));
    assert_eq!(env.count("tool_uses"), 1);
    assert!(Path::new(&env.db_path()).exists());
}
