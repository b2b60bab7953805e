//! Golden JSON-RPC transcripts against the real `cmem mcp` binary.
//!
//! A transcript (`tests/mcp/*.jsonl`) is a conversation: `> {json}` is sent, each following
//! `< {json}` is an expected reply, `! raw TEXT` sends TEXT as is, `! clock MS` moves the
//! server's clock, `! eof` closes stdin (the server must exit 0 with nothing more said).
//! Cursors differ per run: replies are compared with every `ms_…` cursor replaced by
//! `<<CURSOR n>>` (numbered by first appearance), and requests may use `<<CURSOR n>>`.
//! `UPDATE_GOLDEN=1` rewrites the expected replies.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use crate::common::Env;
use serde_json::Value;

const NOW: i64 = 1_791_791_100_000;

struct Server {
    child: Child,
    replies: Receiver<String>,
    cursors: Vec<String>,
    /// The test's temp dir, shown as `<ROOT>` in replies (it differs per run).
    root: String,
}

impl Server {
    fn start(env: &Env, clock: &std::path::Path) -> Server {
        let project = env.root().join("acme-api");
        std::fs::create_dir_all(&project).unwrap();
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("cmem"))
            .arg("mcp")
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", env.home())
            .env("CMEM_DATA_DIR", env.data_dir())
            .env("XDG_CONFIG_HOME", env.root().join("config"))
            .env("CMEM_CLOCK_FILE", clock)
            .env("CMEM_CONTEXT_TIMEZONE", "UTC")
            .current_dir(&project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn cmem mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let root = env
            .root()
            .canonicalize()
            .unwrap_or(env.root().to_path_buf());
        Server {
            child,
            replies: rx,
            cursors: Vec::new(),
            root: root.to_string_lossy().into_owned(),
        }
    }

    fn send(&mut self, line: &str) {
        let mut text = line.to_string();
        for (i, c) in self.cursors.iter().enumerate() {
            text = text.replace(&format!("<<CURSOR {}>>", i + 1), c);
        }
        let stdin = self.child.stdin.as_mut().expect("stdin open");
        stdin.write_all(text.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next reply with its cursors numbered.
    fn reply(&mut self) -> String {
        let raw = self
            .replies
            .recv_timeout(Duration::from_secs(10))
            .expect("the server answered within 10 s");
        let re = regex::Regex::new("ms_[A-Za-z0-9_-]{24}").unwrap();
        for m in re.find_iter(&raw) {
            if !self.cursors.iter().any(|c| c == m.as_str()) {
                self.cursors.push(m.as_str().to_string());
            }
        }
        let mut out = raw.replace(&self.root, "<ROOT>");
        for (i, c) in self.cursors.iter().enumerate() {
            out = out.replace(c, &format!("<<CURSOR {}>>", i + 1));
        }
        out
    }

    fn no_more_replies(&self) {
        if let Ok(extra) = self.replies.recv_timeout(Duration::from_millis(300)) {
            panic!("unexpected reply: {extra}");
        }
    }
}

fn fixture(env: &Env) {
    let end_ms = (NOW - 3_600_000).to_string();
    env.run_ok(&[
        "dev",
        "generate",
        "--observations",
        "40",
        "--seed",
        "11",
        "--projects",
        "acme-api",
        "--end-ms",
        &end_ms,
    ]);
    // A source file in the checkout, for the code tools.
    let src = env.root().join("acme-api/src");
    std::fs::create_dir_all(&src).unwrap();
    std::fs::write(
        src.join("pool.rs"),
        "//! Connection pooling.\n\n/// A pool of database connections.\npub struct Pool {\n    size: usize,\n}\n\nimpl Pool {\n    /// Takes a connection, waiting if none is free.\n    pub fn acquire(&self) -> usize {\n        self.size\n    }\n}\n",
    )
    .unwrap();
}

fn run(name: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/mcp")
        .join(format!("{name}.jsonl"));
    let script = std::fs::read_to_string(&path).unwrap();
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let env = Env::new();
    fixture(&env);
    let clock = env.root().join("clock");
    std::fs::write(&clock, NOW.to_string()).unwrap();
    let mut server = Server::start(&env, &clock);
    let mut rewritten = Vec::new();
    let lines: Vec<&str> = script.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        let expected_count = lines[i..]
            .iter()
            .take_while(|l| l.starts_with("< "))
            .count();
        if let Some(req) = line.strip_prefix("> ") {
            rewritten.push(line.to_string());
            server.send(req);
        } else if let Some(raw) = line.strip_prefix("! raw ") {
            rewritten.push(line.to_string());
            server.send(raw);
        } else if let Some(ms) = line.strip_prefix("! clock ") {
            rewritten.push(line.to_string());
            std::fs::write(&clock, ms.trim()).unwrap();
            continue;
        } else if line.trim() == "! eof" {
            rewritten.push(line.to_string());
            drop(server.child.stdin.take());
            let status = server.child.wait().unwrap();
            assert_eq!(status.code(), Some(0), "{name}: exit after EOF");
            continue;
        } else {
            if !line.starts_with("< ") {
                rewritten.push(line.to_string());
            }
            continue;
        }
        if update {
            // The placeholder `<` lines say how many replies to expect; record them.
            for _ in 0..expected_count {
                rewritten.push(format!("< {}", server.reply()));
            }
            if expected_count == 0 {
                server.no_more_replies();
            }
            i += expected_count;
            continue;
        }
        for k in 0..expected_count {
            let expected: Value = serde_json::from_str(&lines[i + k][2..]).unwrap();
            let actual_text = server.reply();
            let actual: Value = serde_json::from_str(&actual_text).unwrap();
            assert_eq!(
                actual, expected,
                "{name}: reply to line {i}\n  got: {actual_text}"
            );
        }
        if expected_count == 0 {
            server.no_more_replies();
        }
        i += expected_count;
    }
    if update {
        std::fs::write(&path, rewritten.join("\n") + "\n").unwrap();
    }
}

#[test]
fn legacy_handshake() {
    run("legacy_handshake");
}

#[test]
fn stateless_revision() {
    run("stateless");
}

#[test]
fn every_tool() {
    run("tools");
}

#[test]
fn mem_search_steps_and_errors() {
    run("mem_search");
}

/// The text of the tool result in a reply line.
fn tool_text(reply: &str) -> (String, bool) {
    let v: Value = serde_json::from_str(reply).unwrap();
    (
        v["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_string(),
        v["result"]["isError"].as_bool().unwrap_or(false),
    )
}

fn call(server: &mut Server, id: u64, args: Value) -> (String, bool) {
    let req = serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                                 "params": {"name": "mem_search", "arguments": args}});
    server.send(&req.to_string());
    tool_text(&server.reply())
}

/// The real cursor behind `<<CURSOR n>>` in the last replies.
fn cursor(server: &Server, n: usize) -> String {
    server.cursors[n - 1].clone()
}

fn assert_refused(what: &str, (text, is_error): (String, bool), code: &str) {
    assert!(is_error, "{what}: not an error: {text}");
    assert!(text.contains(&format!("{code} - ")), "{what}: {text}");
    // Nothing of the memory is disclosed by a refusal.
    for leak in ["src/", "handles", "Changed", "observation ·"] {
        assert!(!text.contains(leak), "{what} disclosed {leak:?}: {text}");
    }
}

#[test]
fn cursors_cannot_be_forged_replayed_elsewhere_or_kept_forever() {
    let env = Env::new();
    fixture(&env);
    let clock = env.root().join("clock");
    std::fs::write(&clock, NOW.to_string()).unwrap();
    let mut a = Server::start(&env, &clock);
    let (index, _) = call(&mut a, 1, serde_json::json!({"query": "checkout latency"}));
    assert!(index.contains("Continue with: <<CURSOR 1>>"), "{index}");
    let real = cursor(&a, 1);

    // One character changed.
    let mut forged = real.clone().into_bytes();
    let last = forged.len() - 1;
    forged[last] = if forged[last] == b'A' { b'B' } else { b'A' };
    let forged = String::from_utf8(forged).unwrap();
    assert_refused(
        "forged cursor",
        call(
            &mut a,
            2,
            serde_json::json!({"continuation": forged, "selectedIds": ["12"]}),
        ),
        "invalid_continuation",
    );

    // The genuine cursor, replayed to a server of another checkout (another project dir).
    let other_dir = env.root().join("other-project");
    std::fs::create_dir_all(&other_dir).unwrap();
    let mut b = Command::new(assert_cmd::cargo::cargo_bin!("cmem"));
    b.arg("mcp")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", env.home())
        .env("CMEM_DATA_DIR", env.data_dir())
        .env("CMEM_CLOCK_FILE", &clock)
        .current_dir(&other_dir);
    let req = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "mem_search", "arguments": {"continuation": real, "selectedIds": ["12"]}}});
    let out = common::run_with_stdin(&mut b, format!("{req}\n").as_bytes());
    let reply = String::from_utf8(out.stdout).unwrap();
    assert_refused(
        "replayed cursor",
        tool_text(reply.trim()),
        "invalid_continuation",
    );

    // An id that the index never disclosed, then a changed query.
    assert_refused(
        "undisclosed id",
        call(
            &mut a,
            3,
            serde_json::json!({"continuation": real, "selectedIds": ["33"]}),
        ),
        "invalid_selection",
    );
    assert_refused(
        "changed query",
        call(
            &mut a,
            4,
            serde_json::json!({"continuation": real, "query": "pool", "selectedIds": ["12"]}),
        ),
        "scope_changed",
    );

    // 1,025 more searches: the first cursor is evicted (1,024 kept).
    for i in 0..1025 {
        let (text, err) = call(
            &mut a,
            10 + i,
            serde_json::json!({"query": "token refresh"}),
        );
        assert!(!err, "{text}");
    }
    assert_refused(
        "evicted cursor",
        call(
            &mut a,
            5000,
            serde_json::json!({"continuation": real, "selectedIds": ["12"]}),
        ),
        "invalid_continuation",
    );
    // A recent one still works.
    let recent = cursor(&a, a.cursors.len());
    let (text, err) = call(
        &mut a,
        5001,
        serde_json::json!({"continuation": recent, "selectedIds": []}),
    );
    assert!(
        !err && text.contains("Search stopped at your request."),
        "{text}"
    );

    // Past the TTL.
    std::fs::write(&clock, (NOW + 15 * 60 * 1000 + 1).to_string()).unwrap();
    assert_refused(
        "expired cursor",
        call(
            &mut a,
            5002,
            serde_json::json!({"continuation": recent, "selectedIds": []}),
        ),
        "expired_continuation",
    );
}
