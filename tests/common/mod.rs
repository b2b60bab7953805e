//! Shared helpers for the integration tests: an isolated home + data dir per test, the real
//! binary, and the real SQLite file.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// The demo's end time (2026-11-30 16:00 UTC): the demo data set and every time in it are fixed.
pub const DEMO_NOW: i64 = 1_796_054_400_000;

pub struct Env {
    pub dir: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("home")).unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        Env { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn data_dir(&self) -> PathBuf {
        self.root().join("data")
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    /// A plain project directory (no git) the payloads point at.
    pub fn project(&self) -> PathBuf {
        self.root().join("project")
    }

    pub fn db_path(&self) -> PathBuf {
        self.data_dir().join("cmem.db")
    }

    /// The cmem binary (`bin`) with an environment that cannot see the developer's own setup.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(bin());
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home())
            .env("CMEM_DATA_DIR", self.data_dir())
            .env("XDG_CONFIG_HOME", self.root().join("config"))
            // No embedding process left running after a hook: a test that wants one says so.
            .env("CMEM_SEARCH_BACKGROUND_EMBEDDING", "false")
            .current_dir(self.project());
        c
    }

    /// Runs `cmem hook <event>` with `stdin` and checks the fail-open contract: exit 0, exactly
    /// one JSON object on one line on stdout, nothing on stderr. Returns the parsed answer.
    pub fn hook_bytes(&self, event: &str, stdin: &[u8]) -> Value {
        let out = run_with_stdin(self.cmd().arg("hook").arg(event), stdin);
        assert_fail_open(event, &out)
    }

    pub fn hook(&self, event: &str, payload: &Value) -> Value {
        self.hook_bytes(event, payload.to_string().as_bytes())
    }

    /// Runs one `cmem mcp` server over `input` (stdin closed after it), checks it exits 0, and
    /// returns its reply lines.
    pub fn mcp_serve(&self, input: &[u8]) -> Vec<Vec<u8>> {
        let mut cmd = self.cmd();
        cmd.arg("mcp");
        let out = run_with_stdin(&mut cmd, input);
        assert_eq!(
            out.status.code(),
            Some(0),
            "the server exits 0 at EOF; stderr: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stdout.is_empty() || out.stdout.ends_with(b"\n"));
        out.stdout
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .map(<[u8]>::to_vec)
            .collect()
    }

    /// Runs `cmem ARGS…` and checks it succeeded (its stderr in the failure message).
    pub fn run_ok<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> Output {
        let out = self.cmd().args(args).output().expect("run cmem");
        assert!(
            out.status.success(),
            "cmem {:?}: {}",
            args.iter()
                .map(|a| a.as_ref().to_owned())
                .collect::<Vec<_>>(),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// Builds the demo memory (`cmem demo --no-tui --reset`) at the demo's pinned end time,
    /// with its cache in `cache` (default: this test's own), and returns its data dir.
    pub fn build_demo(&self, cache: Option<&Path>) -> PathBuf {
        let mut cmd = self.cmd();
        cmd.env("CMEM_NOW_MS", DEMO_NOW.to_string())
            .args(["demo", "--no-tui", "--reset"]);
        if let Some(c) = cache {
            cmd.env("XDG_CACHE_HOME", c);
        }
        let out = cmd.output().expect("run cmem demo");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let db = String::from_utf8(out.stdout).unwrap();
        Path::new(db.trim())
            .parent()
            .expect("the demo db is in a dir")
            .to_path_buf()
    }

    /// Runs `cmem ARGS…`, checks it succeeded, and returns its stdout.
    pub fn run_stdout<S: AsRef<std::ffi::OsStr>>(&self, args: &[S]) -> String {
        String::from_utf8(self.run_ok(args).stdout).expect("stdout is UTF-8")
    }

    /// What `cmem doctor` prints, whatever its exit status.
    pub fn doctor(&self) -> String {
        let out = self.cmd().arg("doctor").output().expect("run cmem doctor");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    pub fn db(&self) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open(self.db_path()).expect("open db");
        cmem::store::register_extensions(&conn).expect("cmem's tokenizer");
        conn
    }

    /// Every row `sql` selects, each made into a value by `row`.
    pub fn rows<T>(
        &self,
        sql: &str,
        row: impl FnMut(&rusqlite::Row) -> rusqlite::Result<T>,
    ) -> Vec<T> {
        self.db()
            .prepare(sql)
            .expect("prepare")
            .query_map([], row)
            .expect("query")
            .map(|r| r.expect("read row"))
            .collect()
    }

    pub fn count(&self, table: &str) -> i64 {
        if !self.db_path().exists() {
            return 0;
        }
        self.db()
            .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |r| r.get(0))
            .unwrap_or(0)
    }

    /// Rows of `table` matching the SQL condition `filter`.
    pub fn count_where(&self, table: &str, filter: &str) -> i64 {
        self.db()
            .query_row(
                &format!("SELECT COUNT(*) FROM {table} WHERE {filter}"),
                [],
                |r| r.get(0),
            )
            .expect("count rows")
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(self.data_dir().join("logs/cmem.log")).unwrap_or_default()
    }

    /// A real captured payload (`sample`) with its placeholder paths pointed at this project.
    pub fn real(&self, name: &str) -> Value {
        let project = self.project().to_string_lossy().into_owned();
        let text = sample(name)
            .unwrap_or_else(|| panic!("no payload sample {name}"))
            .to_string()
            .replace("<OUTDIR>/work", &project);
        serde_json::from_str(&text).expect("sample stays JSON")
    }

    /// `real(name)` as one call of one session's turn.
    pub fn real_for(&self, name: &str, session: &str, prompt_id: &str, tool_use_id: &str) -> Value {
        let mut v = self.real(name);
        v["session_id"] = json!(session);
        v["prompt_id"] = json!(prompt_id);
        v["tool_use_id"] = json!(tool_use_id);
        v
    }

    /// A main checkout `<root>/<main>` and its git worktree `<root>/<name>`, laid out as
    /// `git worktree add` leaves them (the worktree's `.git` is a file pointing back). Returns
    /// the worktree.
    pub fn git_worktree(&self, main: &str, name: &str) -> PathBuf {
        let admin = self.root().join(main).join(".git/worktrees").join(name);
        std::fs::create_dir_all(&admin).unwrap();
        let wt = self.root().join(name);
        std::fs::create_dir_all(&wt).unwrap();
        std::fs::write(wt.join(".git"), format!("gitdir: {}\n", admin.display())).unwrap();
        wt
    }

    /// A payload like Claude Code's, for this env's project.
    pub fn payload(&self, session: &str, extra: Value) -> Value {
        cmem::eval::observer::claude_code_payload(&self.home(), &self.project(), session, extra)
    }
}

/// The cmem binary under test (`CMEM_TEST_BIN` overrides it, so CI can run the hook suites
/// against the build scripts/install.sh makes).
pub fn bin() -> PathBuf {
    std::env::var_os("CMEM_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin!("cmem").to_path_buf())
}

/// Request lines as one JSONL input.
pub fn jsonl(requests: &[String]) -> Vec<u8> {
    let mut input = requests.join("\n").into_bytes();
    input.push(b'\n');
    input
}

pub fn run_with_stdin(cmd: &mut Command, stdin: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn cmem");
    let mut pipe = child.stdin.take().expect("stdin");
    let data = stdin.to_vec();
    // Write from a thread: the hook may answer (and exit) before reading everything.
    let writer = std::thread::spawn(move || {
        let _ = pipe.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait cmem");
    let _ = writer.join();
    out
}

pub fn assert_fail_open(label: &str, out: &Output) -> Value {
    assert_eq!(
        out.status.code(),
        Some(0),
        "{label}: exit status {:?}",
        out.status
    );
    let stdout = String::from_utf8(out.stdout.clone()).expect("stdout is UTF-8");
    assert!(
        stdout.ends_with('\n') && stdout.matches('\n').count() == 1,
        "{label}: stdout must be one line, got {stdout:?}"
    );
    assert!(
        out.stderr.is_empty(),
        "{label}: stderr must stay empty, got {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(stdout.trim_end()).expect("stdout is JSON");
    assert!(v.is_object(), "{label}: answer is not an object: {v}");
    v
}

pub fn noop_for(event: &str) -> Value {
    if event == "session-start" {
        json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ""}})
    } else {
        json!({})
    }
}

pub const EVENTS: [&str; 7] = [
    "session-start",
    "user-prompt-submit",
    "pre-tool-use",
    "post-tool-use",
    "post-tool-use-failure",
    "stop",
    "session-end",
];

/// A real captured payload from `../shared/realclient/samples/` (the `stdin` part), when present.
pub fn sample(name: &str) -> Option<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/payloads")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Compares `actual` with `tests/golden/context/<name>.txt`; `UPDATE_GOLDEN=1` rewrites the file
/// instead (after an intended change: read the diff first).
pub fn context_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/context")
        .join(format!("{name}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing {} (run with UPDATE_GOLDEN=1)", path.display()));
    if expected != actual {
        let diff = cmem::cli::jsonfile::unified_diff(&expected, actual, name);
        panic!("{name} differs from {}:\n{diff}", path.display());
    }
}
