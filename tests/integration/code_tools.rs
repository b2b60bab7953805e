//! The smart tools as the CLI and the MCP handlers serve them: same text, workspace
//! confinement for the agent's three tools (not for a person's CLI), search behaviour.

use std::path::Path;
use std::process::Command;

use cmem::mcp::tools::code::{self as tools, TOOLS};
use serde_json::{Value, json};

struct Ws {
    dir: tempfile::TempDir,
}

impl Ws {
    /// A workspace `ws/` with sources, a secret file beside it, and a symlink out.
    fn new() -> Ws {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src/nested")).unwrap();
        std::fs::create_dir_all(ws.join("node_modules/dep")).unwrap();
        std::fs::write(
            ws.join("src/store.rs"),
            "/// The store.\npub struct Store;\n\nimpl Store {\n    /// Opens it.\n    pub fn open() -> Store {\n        Store\n    }\n}\n",
        )
        .unwrap();
        std::fs::write(
            ws.join("src/nested/cache.py"),
            "class StoreCache:\n    \"\"\"Caches stores.\"\"\"\n\n    def open_store(self):\n        return None\n",
        )
        .unwrap();
        std::fs::write(
            ws.join("node_modules/dep/index.js"),
            "function storeThing() {}\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("secret.rs"), "pub fn secret_store() {}\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(dir.path().join("secret.rs"), ws.join("src/link.rs")).unwrap();
        Ws { dir }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("ws")
    }

    fn cli(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::new(assert_cmd::cargo::cargo_bin!("cmem"))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("CMEM_DATA_DIR", self.dir.path().join("data"))
            .current_dir(self.root())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }
}

fn call(name: &str, root: &Path, args: Value) -> Result<String, tools::ToolError> {
    let tool = TOOLS.iter().find(|t| t.name == name).unwrap();
    (tool.call)(root, &args)
}

#[test]
fn agent_tools_stay_in_the_workspace_while_the_cli_reads_any_path() {
    let ws = Ws::new();
    let secret = ws.dir.path().join("secret.rs");
    let outside = [
        "../secret.rs".to_string(),
        "src/../../secret.rs".to_string(),
        secret.to_string_lossy().into_owned(),
        #[cfg(unix)]
        "src/link.rs".to_string(),
    ];
    for bad in &outside {
        for (tool, args) in [
            ("smart_outline", json!({"file_path": bad})),
            (
                "smart_unfold",
                json!({"file_path": bad, "symbol_name": "secret_store"}),
            ),
            ("smart_search", json!({"query": "secret", "path": bad})),
        ] {
            let err = call(tool, &ws.root(), args).unwrap_err();
            assert!(
                err.0.contains("outside the workspace"),
                "{tool} {bad}: {err}"
            );
            assert!(
                !err.0.contains("secret_store"),
                "{tool} {bad}: leaked {err}"
            );
        }
        // A person at a shell reads whatever they can read.
        for (args, expect) in [
            (
                vec!["outline", bad.as_str()],
                "ƒ secret_store [exported] (L1)",
            ),
            (
                vec!["unfold", bad.as_str(), "secret_store"],
                "pub fn secret_store() {}",
            ),
            (
                vec!["symbols", "secret", bad.as_str()],
                "function secret_store (",
            ),
        ] {
            let (code, out, err) = ws.cli(&args);
            assert_eq!(code, 0, "{args:?}: {err}");
            assert!(err.is_empty(), "{args:?}: {err}");
            assert!(out.contains(expect), "{args:?}: {out}");
        }
    }
    // Search never follows a symlink out of the workspace, nor into dependency directories.
    let text = call("smart_search", &ws.root(), json!({"query": "store"})).unwrap();
    assert!(!text.contains("secret_store"), "{text}");
    assert!(!text.contains("storeThing"), "{text}");
}

#[test]
fn cli_and_tools_give_the_same_text() {
    let ws = Ws::new();
    let (code, out, _) = ws.cli(&["outline", "src/store.rs"]);
    assert_eq!(code, 0);
    let tool = call(
        "smart_outline",
        &ws.root(),
        json!({"file_path": "src/store.rs"}),
    )
    .unwrap();
    assert_eq!(out, format!("{tool}\n"));
    assert!(tool.starts_with("▸ src/store.rs (rust, 9 lines)"), "{tool}");
    assert!(tool.contains("  ◆ Store [exported] (L2)\n"), "{tool}");
    assert!(tool.contains("    ƒ open [exported] (L6-8)\n"), "{tool}");

    let (_, out, _) = ws.cli(&["unfold", "src/store.rs", "Store.open"]);
    let tool = call(
        "smart_unfold",
        &ws.root(),
        json!({"file_path": "src/store.rs", "symbol_name": "Store::open"}),
    )
    .unwrap();
    assert_eq!(out, format!("{tool}\n"));
    assert_eq!(
        tool,
        "// ⌖ src/store.rs L5-8\n    /// Opens it.\n    pub fn open() -> Store {\n        Store\n    }"
    );

    let (_, out, _) = ws.cli(&["symbols", "store", "--max-results", "2"]);
    let tool = call(
        "smart_search",
        &ws.root(),
        json!({"query": "store", "max_results": 2}),
    )
    .unwrap();
    assert_eq!(out, format!("{tool}\n"));
}

#[test]
fn search_ranks_names_and_filters_files() {
    let ws = Ws::new();
    let text = call("smart_search", &ws.root(), json!({"query": "store"})).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "⌕ Smart Search: \"store\"");
    assert!(lines[1].starts_with("Scanned 2 files in ."), "{text}");
    let matches: Vec<&str> = lines
        .iter()
        .skip_while(|l| !l.starts_with("── Matching Symbols"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with("    "))
        .copied()
        .collect();
    // The exact name first; a prefix before a mere substring.
    assert_eq!(matches[0], "  struct Store (src/store.rs:2)", "{text}");
    assert!(text.contains("── Folded File Views ──") && text.contains("── Actions ──"));
    assert!(text.contains("smart_unfold(file_path=\"src/store.rs\", symbol_name=\"Store\")"));

    let only_py = call(
        "smart_search",
        &ws.root(),
        json!({"query": "store", "file_pattern": "*.py"}),
    )
    .unwrap();
    assert!(
        only_py.contains("StoreCache") && !only_py.contains("src/store.rs"),
        "{only_py}"
    );
    let sub = call(
        "smart_search",
        &ws.root(),
        json!({"query": "open", "path": "src/nested"}),
    )
    .unwrap();
    assert!(
        sub.contains("method StoreCache.open_store (src/nested/cache.py:4)"),
        "{sub}"
    );
    let none = call("smart_search", &ws.root(), json!({"query": "zzzz"})).unwrap();
    assert!(none.contains("found 0 matching symbols") && none.contains("No symbol matches"));
}

#[test]
fn unknown_language_and_missing_files_are_clear_errors() {
    let ws = Ws::new();
    std::fs::write(ws.root().join("notes.txt"), "hello").unwrap();
    let err = call(
        "smart_outline",
        &ws.root(),
        json!({"file_path": "notes.txt"}),
    )
    .unwrap_err();
    assert!(err.0.starts_with("Could not parse notes.txt."), "{err}");
    let err = call(
        "smart_outline",
        &ws.root(),
        json!({"file_path": "src/missing.rs"}),
    )
    .unwrap_err();
    assert_eq!(err.0, "File not found: \"src/missing.rs\".");
    let (code, _, err) = ws.cli(&["unfold", "src/store.rs"]);
    assert_eq!(code, 2, "clap usage error: {err}");
    // Every CLI error has the same prefix and exits 1.
    for args in [
        vec!["outline", "notes.txt"],
        vec!["outline", "src/missing.rs"],
        vec!["unfold", "src/missing.rs", "Store"],
        vec!["unfold", "src/store.rs", "nope"],
        vec!["symbols", "store", "no/such/dir"],
    ] {
        let (code, out, err) = ws.cli(&args);
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(err.starts_with("cmem: error: "), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn a_missing_symbol_is_an_error_on_the_cli_naming_near_ones() {
    let ws = Ws::new();
    let (code, out, err) = ws.cli(&["unfold", "src/store.rs", "Store::opne"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert_eq!(
        err,
        "cmem: error: no symbol \"Store::opne\" in src/store.rs. Near names: Store::open (L6); `cmem outline src/store.rs` lists all 3 symbols.\n"
    );
    let (code, _, err) = ws.cli(&["unfold", "src/store.rs", "zzzzzzzz"]);
    assert_eq!(code, 1);
    assert_eq!(
        err,
        "cmem: error: no symbol \"zzzzzzzz\" in src/store.rs; `cmem outline src/store.rs` lists all 3 symbols.\n"
    );
    // The agent's tool still answers with every symbol there is.
    let text = call(
        "smart_unfold",
        &ws.root(),
        json!({"file_path": "src/store.rs", "symbol_name": "zzzzzzzz"}),
    )
    .unwrap();
    assert!(text.starts_with("Symbol \"zzzzzzzz\" not found in src/store.rs."));
    assert!(text.contains("ƒ Store::open (L6-8)"), "{text}");
}
