//! `cmem sync` against a real PostgreSQL: a throw-away cluster per test (`initdb` + `pg_ctl` in a
//! temp dir, Unix socket only, run as an unprivileged user when the tests run as root). Two data
//! dirs stand for two machines.
//!
//! PostgreSQL's server binaries are looked up in `CMEM_TEST_PG_BIN`, then
//! /usr/lib/postgresql/*/bin, then PATH; without them each test prints why and passes
//! (.ci/run installs them, so CI always runs these).

// Tests and their helpers may unwrap: a panic is a failed test with its reason.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;
mod faults;
mod in_place;
mod vectors;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use common::Env;
use serde_json::{Value, json};

const TEST_USER: &str = "cmemtest";

struct Cluster {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// The OS user the server runs as (`None`: this user).
    run_as: Option<String>,
    /// The database superuser.
    superuser: String,
    port: u16,
    /// The server's options (`pg_ctl start -o`).
    opts: String,
}

fn pg_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CMEM_TEST_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|b| b.join("initdb").exists())
        .collect();
    versions.sort();
    if let Some(b) = versions.pop() {
        return Some(b);
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .find(|p| p.join("initdb").exists() && p.join("pg_ctl").exists())
    })
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

impl Cluster {
    /// A new cluster, or `None` (with a message) when PostgreSQL is not installed here.
    fn start() -> Option<Cluster> {
        Cluster::start_with(5432, |_| String::new())
    }

    /// `settings` gives extra server options, given the cluster's directory (already owned by
    /// the server's user).
    fn start_with(port: u16, settings: impl Fn(&std::path::Path) -> String) -> Option<Cluster> {
        let Some(bin) = pg_bin() else {
            eprintln!(
                "SKIPPED: no PostgreSQL server binaries (initdb, pg_ctl): install the postgresql package (.ci/run does)"
            );
            return None;
        };
        let dir = tempfile::Builder::new()
            .prefix("cmem-pg")
            .tempdir()
            .unwrap();
        let (run_as, superuser) = if is_root() {
            // initdb refuses to run as root. Tests start clusters in parallel: one creates the user.
            static USER: std::sync::OnceLock<()> = std::sync::OnceLock::new();
            USER.get_or_init(|| {
                let exists = Command::new("id")
                    .arg("-u")
                    .arg(TEST_USER)
                    .output()
                    .unwrap();
                if !exists.status.success() {
                    run(Command::new("useradd").args(["--system", "--no-create-home", TEST_USER]));
                }
            });
            run(Command::new("chown").arg(TEST_USER).arg(dir.path()));
            (Some(TEST_USER.to_string()), TEST_USER.to_string())
        } else {
            let me = String::from_utf8(run(Command::new("id").arg("-un")).stdout).unwrap();
            (None, me.trim().to_string())
        };
        // Without TCP the port only names the socket file in this private directory.
        let mut c = Cluster {
            dir,
            bin,
            run_as,
            superuser,
            port,
            opts: String::new(),
        };
        let data = c.dir.path().join("data");
        run(&mut c.pg_cmd(
            "initdb",
            &[
                "-D",
                data.to_str().unwrap(),
                "-U",
                &c.superuser,
                "--auth=trust",
                "--locale=C",
                "-E",
                "UTF8",
                "--no-sync",
            ],
        ));
        let extra = settings(c.dir.path());
        let listen = if extra.contains("listen_addresses") {
            String::new()
        } else {
            "-c listen_addresses=''".to_string()
        };
        let opts = format!(
            "-k {} -p {} {listen} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=16MB -c max_connections=20 {extra}",
            c.dir.path().display(),
            c.port
        );
        c.opts = opts;
        c.pg_ctl("start");
        Some(c)
    }

    fn pg_ctl(&self, action: &str) {
        let data = self.dir.path().join("data");
        let log = self.dir.path().join("log");
        run(&mut self.pg_cmd(
            "pg_ctl",
            &[
                "-D",
                data.to_str().unwrap(),
                "-l",
                log.to_str().unwrap(),
                "-w",
                "-m",
                "fast",
                "-o",
                &self.opts,
                action,
            ],
        ));
    }

    fn pg_cmd(&self, tool: &str, args: &[&str]) -> Command {
        let exe = self.bin.join(tool);
        match &self.run_as {
            Some(user) => {
                let mut c = Command::new("runuser");
                c.arg("-u").arg(user).arg("--").arg(exe).args(args);
                c
            }
            None => {
                let mut c = Command::new(exe);
                c.args(args);
                c
            }
        }
    }

    fn url_as(&self, user: &str, db: &str) -> String {
        format!(
            "host={} port={} user={user} dbname={db} sslmode=disable",
            self.dir.path().display(),
            self.port
        )
    }

    fn url(&self) -> String {
        self.url_as(&self.superuser, "postgres")
    }

    fn client_as(&self, user: &str) -> postgres::Client {
        postgres::Client::connect(&self.url_as(user, "postgres"), postgres::NoTls).unwrap()
    }

    fn client(&self) -> postgres::Client {
        self.client_as(&self.superuser)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.dir.path().join("data");
        let _ = self
            .pg_cmd(
                "pg_ctl",
                &["-D", data.to_str().unwrap(), "-m", "immediate", "stop"],
            )
            .output();
    }
}

/// `cmem` for a data dir with sync configured to share every project.
fn cmem(env: &Env, url: &str) -> Command {
    let mut c = env.cmd();
    c.env("CMEM_SYNC_URL", url)
        .env("CMEM_SYNC_PROJECTS", "*")
        .env("CMEM_SYNC_RAW_TOOL_IO", "true");
    c
}

fn ok(cmd: &mut Command) -> String {
    String::from_utf8(run(cmd).stdout).unwrap()
}

fn sync(env: &Env, url: &str) -> String {
    ok(cmem(env, url).arg("sync"))
}

fn sync_with(env: &Env, url: &str, vars: &[(&str, &str)]) -> String {
    let mut c = cmem(env, url);
    c.arg("sync").envs(vars.iter().copied());
    ok(&mut c)
}

fn generate(env: &Env, n: usize, seed: u64) {
    ok(env.cmd().args([
        "dev",
        "generate",
        "--observations",
        &n.to_string(),
        "--seed",
        &seed.to_string(),
    ]));
}

const TABLES: [&str; 6] = [
    "sessions",
    "user_prompts",
    "observations",
    "session_summaries",
    "tool_uses",
    "work_state_entries",
];

fn counts(env: &Env) -> BTreeMap<&'static str, i64> {
    TABLES.iter().map(|t| (*t, env.count(t))).collect()
}

/// The JSONL export with local ids taken out: ids dropped, references replaced by what they
/// point at, lines sorted.
fn export_without_ids(env: &Env) -> Vec<String> {
    let out = ok(env.cmd().args(["export", "--format", "jsonl"]));
    let rows: Vec<Value> = out
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut sessions = BTreeMap::new();
    let mut observations = BTreeMap::new();
    for r in &rows {
        let id = r["row"]["id"].as_i64().unwrap();
        match r["table"].as_str().unwrap() {
            "sessions" => {
                sessions.insert(id, r["row"]["content_session_id"].clone());
            }
            "observations" => {
                observations.insert(id, json!([r["row"]["title"], r["row"]["created_at_epoch"]]));
            }
            _ => {}
        }
    }
    let mut lines: Vec<String> = rows
        .into_iter()
        .map(|mut r| {
            let row = r["row"].as_object_mut().unwrap();
            row.remove("id");
            if let Some(s) = row.get("session_id").and_then(Value::as_i64) {
                row.insert("session_id".into(), sessions[&s].clone());
            }
            if let Some(o) = row.get("observation_id").and_then(Value::as_i64) {
                row.insert("observation_id".into(), observations[&o].clone());
            }
            r.to_string()
        })
        .collect();
    lines.sort();
    lines
}

fn mcp_call(env: &Env, name: &str, args: Value) -> String {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": name, "arguments": args}});
    let replies = env.mcp_serve(&common::jsonl(&[req.to_string()]));
    let v: Value = serde_json::from_slice(&replies[0]).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn db_bytes(env: &Env) -> Vec<u8> {
    let mut bytes = std::fs::read(env.db_path()).unwrap();
    for ext in ["-wal", "-shm"] {
        let mut p = env.db_path().into_os_string();
        p.push(ext);
        if let Ok(b) = std::fs::read(PathBuf::from(p)) {
            bytes.extend(b);
        }
    }
    bytes
}

fn contains(hay: &[u8], needle: &str) -> bool {
    hay.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn two_devices_end_with_the_union_and_find_each_others_records() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 200, 1);
    generate(&b, 200, 2);
    mcp_call(
        &a,
        "save_memory",
        json!({"title": "Zanzibar rollback plan", "text": "Roll the quokka service back with the zanzibar script."}),
    );
    let (ca, cb) = (counts(&a), counts(&b));

    let init = ok(cmem(&a, &url).args(["sync", "init"]));
    assert!(init.contains("version 0 -> 4"), "{init}");
    for _ in 0..2 {
        sync(&a, &url);
        sync(&b, &url);
    }
    let expected: BTreeMap<_, _> = TABLES.iter().map(|t| (*t, ca[t] + cb[t])).collect();
    assert_eq!(counts(&a), expected, "A holds the union");
    assert_eq!(counts(&b), expected, "B holds the union");
    assert_eq!(export_without_ids(&a), export_without_ids(&b));

    // A third round moves nothing.
    let again = sync(&b, &url);
    assert!(
        again.contains("0 new or changed") && again.contains("pulled 0 new"),
        "{again}"
    );

    let found = mcp_call(&b, "mem_search", json!({"query": "zanzibar quokka"}));
    assert!(found.contains("Zanzibar rollback plan"), "{found}");
    let context = ok(b.cmd().arg("context"));
    assert!(context.contains("Zanzibar rollback plan"), "{context}");
    // The details say who wrote a pulled record (device name and database role).
    let id_in = |env: &Env| -> i64 {
        env.db()
            .query_row(
                "SELECT id FROM observations WHERE title = 'Zanzibar rollback plan'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    let there = mcp_call(&b, "get_observations", json!({"ids": [id_in(&b)]}));
    assert!(
        there.contains("shared by ") && there.contains(&format!("({})", pg.superuser)),
        "{there}"
    );
    let here = mcp_call(&a, "get_observations", json!({"ids": [id_in(&a)]}));
    assert!(
        here.contains("Zanzibar") && !here.contains("shared by"),
        "{here}"
    );

    // Links survive the new ids: every tool use points at an observation of its session.
    let broken: i64 = b
        .db()
        .query_row(
            "SELECT COUNT(*) FROM tool_uses t LEFT JOIN observations o ON o.id = t.observation_id
             WHERE t.observation_id IS NOT NULL AND (o.id IS NULL OR o.session_id IS NOT t.session_id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(broken, 0);

    let status = ok(cmem(&b, &url).args(["sync", "status"]));
    assert!(
        status.contains("waiting:   0 rows") && status.contains("0 rows to pull"),
        "{status}"
    );
}

#[test]
fn forget_and_scrub_reach_the_other_device() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 16, 3);
    mcp_call(
        &a,
        "save_memory",
        json!({"title": "Marmoset deploy note", "text": "The marmoset token lives in vault."}),
    );
    mcp_call(
        &a,
        "save_memory",
        json!({"title": "Capybara cache", "text": "Password is hunter2-capybara for staging."}),
    );
    ok(cmem(&a, &url).args(["sync", "init"]));
    sync(&a, &url);
    sync(&b, &url);
    assert!(contains(&db_bytes(&b), "Marmoset deploy note"));
    assert!(contains(&db_bytes(&b), "hunter2-capybara"));

    let id: i64 = a
        .db()
        .query_row(
            "SELECT id FROM observations WHERE title = 'Marmoset deploy note'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    ok(a.cmd().args(["forget", &id.to_string()]));
    ok(a.cmd().args(["scrub", "hunter2-capybara"]));
    let out = sync(&a, &url);
    assert!(out.contains("1 deletion"), "{out}");
    let out = sync(&b, &url);
    assert!(
        out.contains("1 removed") && out.contains("1 changed"),
        "{out}"
    );

    let bytes = db_bytes(&b);
    assert!(
        !contains(&bytes, "Marmoset deploy note"),
        "forgotten on A, gone from B's files"
    );
    assert!(
        !contains(&bytes, "hunter2-capybara"),
        "scrubbed on A, gone from B's files"
    );
    assert_eq!(
        b.count_where("observations", "narrative LIKE '%[SCRUBBED]%'"),
        1
    );
    // Nor does the server keep it.
    let mut server = pg.client();
    let left: i64 = server
        .query_one(
            "SELECT COUNT(*) FROM cmem.rows WHERE doc::text LIKE '%hunter2-capybara%' OR doc::text LIKE '%Marmoset deploy%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0);
}

/// Two devices scrub different secrets of the same row before either syncs (attack 4 of issue
/// 33): the later push is based on a revision the server moved past, is merged field by field,
/// and neither secret comes back anywhere; a third device that joins afterwards gets the
/// merge. Bob's row, alice's and bob's scrubs (bob with his own replacement text, which alice
/// never saw), each device syncing as its own role. Both scrub by regex: a regex does not
/// travel as an operation, so only the merge keeps both (a literal scrub would also reach the
/// other device as an operation, see the next test).
#[test]
fn two_scrubs_of_one_row_on_two_devices_both_hold() {
    let Some(team) = Team::new() else { return };
    let (alice, bob) = (&team.alice, &team.bob);
    mcp_call(
        bob,
        "save_memory",
        json!({"title": "Staging credentials", "project": "acme-api",
               "text": "Deploy key ALPHA-7431-KEY, database password 密码BRAVO-9902 — rotate both."}),
    );
    team.sync_bob();
    team.sync_alice();
    assert!(contains(&db_bytes(alice), "BRAVO-9902"));

    ok(alice.cmd().args(["scrub", "--regex", "ALPHA-[0-9]+-KEY"]));
    ok(bob.cmd().args([
        "scrub",
        "--regex",
        "BRAVO-[0-9]+",
        "--replacement",
        "<removed>",
    ]));
    team.sync_alice();
    team.sync_bob();
    team.sync_alice();
    // Alice's second machine joins afterwards.
    let laptop = Env::new();
    sync_with(
        &laptop,
        &team.pg.url_as("alice", "postgres"),
        &[("CMEM_SYNC_PROJECTS", "acme-api")],
    );

    let want = "Deploy key [SCRUBBED], database password 密码<removed> — rotate both.";
    for (name, env) in [("alice", alice), ("bob", bob), ("laptop", &laptop)] {
        let bytes = db_bytes(env);
        for secret in ["ALPHA-7431-KEY", "BRAVO-9902"] {
            assert!(!contains(&bytes, secret), "{secret} is back on {name}");
        }
        let narrative: String = env
            .db()
            .query_row(
                "SELECT narrative FROM observations WHERE title = 'Staging credentials'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(narrative, want, "on {name}");
    }
    let mut server = team.pg.client();
    let rows = server
        .query(
            "SELECT doc->>'narrative' FROM cmem.rows WHERE doc->>'title' = 'Staging credentials'",
            &[],
        )
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].get::<_, String>(0), want);
    let leaked: i64 = server
        .query_one(
            "SELECT COUNT(*) FROM cmem.rows WHERE doc::text LIKE '%ALPHA-7431%' OR doc::text LIKE '%BRAVO-9902%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(leaked, 0);
}

/// An MCP tool call on a device whose clock is off by `skew_ms`.
fn mcp_call_at(env: &Env, skew_ms: i64, name: &str, args: Value) -> String {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": name, "arguments": args}});
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let mut cmd = env.cmd();
    cmd.arg("mcp")
        .env("CMEM_NOW_MS", (now + skew_ms).to_string());
    let out = common::run_with_stdin(&mut cmd, &common::jsonl(&[req.to_string()]));
    let v: Value =
        serde_json::from_slice(out.stdout.split(|b| *b == b'\n').next().unwrap()).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Clocks that are wrong do not decide (issue 33): a device two days slow that closes a task
/// after another device opened it leaves it closed everywhere (the work state folds by the
/// server's order), and a device a year ahead that forgets everything "older than 30 days"
/// deletes no row it pulled from others.
#[test]
fn a_wrong_clock_neither_reorders_the_work_state_nor_ages_pulled_rows() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (slow, right, ahead) = (Env::new(), Env::new(), Env::new());
    const DAY: i64 = 86_400_000;
    let write = |env: &Env, skew: i64, status: &str| {
        mcp_call_at(
            env,
            skew,
            "work_state_write",
            json!({"list": "release", "project": "acme", "fields": {"task": "tag v2.0", "status": status}}),
        )
    };
    let read = |env: &Env| {
        mcp_call_at(
            env,
            0,
            "work_state_read",
            json!({"project": "acme", "includeClosed": true}),
        )
    };
    ok(cmem(&right, &url).args(["sync", "init"]));
    write(&right, 0, "doing");
    sync(&right, &url);
    sync(&slow, &url);
    assert!(read(&slow).contains("doing"), "{}", read(&slow));
    write(&slow, -2 * DAY, "done");
    sync(&slow, &url);
    sync(&right, &url);
    for (name, env) in [("slow", &slow), ("right", &right)] {
        let text = read(env);
        assert!(
            text.contains("done") && !text.contains("doing"),
            "the later write closed the task on {name}: {text}"
        );
    }

    generate(&right, 12, 5);
    sync(&right, &url);
    let year_ahead = (std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
        + 365 * DAY)
        .to_string();
    sync_with(&ahead, &url, &[("CMEM_NOW_MS", &year_ahead)]);
    let before = counts(&right);
    assert_eq!(counts(&ahead), before);
    let mut forget = cmem(&ahead, &url);
    forget
        .args(["forget", "--older-than", "30d"])
        .env("CMEM_NOW_MS", &year_ahead);
    ok(&mut forget);
    let mut again = cmem(&ahead, &url);
    again.arg("sync").env("CMEM_NOW_MS", &year_ahead);
    ok(&mut again);
    sync(&right, &url);
    assert_eq!(counts(&right), before, "nothing of the others was deleted");
    assert_eq!(counts(&ahead), before, "nor here");
}

/// A data dir copied to another folder (or machine) and used beside the original: the copy
/// gets a device id of its own, so rows the two write from then on (with the same local ids)
/// do not overwrite each other; both end with both.
#[test]
fn a_copied_data_dir_gets_its_own_device_id_and_overwrites_nothing() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, copy) = (Env::new(), Env::new());
    generate(&a, 8, 11);
    ok(cmem(&a, &url).args(["sync", "init"]));
    sync(&a, &url);
    let device = Team::device(&a);
    a.db()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    std::fs::create_dir_all(copy.data_dir()).unwrap();
    for f in ["cmem.db", "cmem.db-wal", "cmem.db-shm"] {
        let from = a.data_dir().join(f);
        if from.exists() {
            std::fs::copy(&from, copy.data_dir().join(f)).unwrap();
        }
    }
    mcp_call(
        &a,
        "save_memory",
        json!({"title": "Written on the original", "text": "one"}),
    );
    mcp_call(
        &copy,
        "save_memory",
        json!({"title": "Written on the copy", "text": "two"}),
    );
    sync(&a, &url);
    let out = sync(&copy, &url);
    assert!(
        out.contains(&format!("copied from device {device}")),
        "{out}"
    );
    sync(&a, &url);
    assert_ne!(
        Team::device(&copy),
        device,
        "the copy syncs as a new device"
    );
    assert_eq!(Team::device(&a), device, "the original keeps its id");
    for env in [&a, &copy] {
        for title in ["Written on the original", "Written on the copy"] {
            assert_eq!(
                env.count_where("observations", &format!("title = '{title}'")),
                1
            );
        }
    }
    assert_eq!(export_without_ids(&a), export_without_ids(&copy));
}

/// Restoring one's own `cmem export` into a new data dir keeps the rows' identities: syncing
/// it doubles nothing, on it or on any other device.
#[test]
fn a_data_dir_restored_from_an_export_syncs_without_doubling() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b, restored) = (Env::new(), Env::new(), Env::new());
    generate(&a, 10, 21);
    mcp_call(
        &a,
        "work_state_write",
        json!({"list": "release", "project": "acme", "fields": {"task": "tag v2.0", "status": "doing"}}),
    );
    ok(cmem(&a, &url).args(["sync", "init"]));
    sync(&a, &url);
    generate(&b, 6, 22);
    sync(&b, &url);
    sync(&a, &url);
    let before = counts(&a);
    let file = a.root().join("backup.jsonl");
    ok(a.cmd()
        .args(["export", "--format", "jsonl", "--out"])
        .arg(&file));
    ok(restored.cmd().args(["import", "jsonl"]).arg(&file));
    assert_eq!(counts(&restored), before);
    sync(&restored, &url);
    sync(&a, &url);
    sync(&b, &url);
    for (name, env) in [("restored", &restored), ("a", &a), ("b", &b)] {
        assert_eq!(counts(env), before, "nothing doubled on {name}");
    }
    let server_rows: i64 = pg
        .client()
        .query_one("SELECT COUNT(*) FROM cmem.rows WHERE NOT deleted", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        server_rows,
        before.values().sum::<i64>(),
        "nor on the server"
    );
}

/// A scrub travels as an operation every device re-applies (issue 33): it reaches a row the
/// scrubbing device never saw (another device's, not synced yet) and a row pulled after the
/// scrub from a device that pushed it before; the secret itself never travels, only its
/// fingerprint. A teammate's scrub reaches only projects her role is granted.
#[test]
fn a_scrub_reaches_rows_its_device_never_saw_and_only_where_its_writer_may_see() {
    let Some(team) = Team::new() else { return };
    let (alice, bob) = (&team.alice, &team.bob);
    // Bob writes two secrets in acme-api (shared with alice) and one in his orbit-web, and
    // syncs only the first.
    let save = |env: &Env, project: &str, title: &str, text: &str| {
        mcp_call(
            env,
            "save_memory",
            json!({"title": title, "text": text, "project": project}),
        )
    };
    save(
        bob,
        "acme-api",
        "Pushed early",
        "token PUSHED-EARLY-5150 in CI",
    );
    team.sync_bob();
    save(
        bob,
        "acme-api",
        "Not synced yet",
        "token NOT-SYNCED-6262 locally",
    );
    save(
        bob,
        "orbit-web",
        "Bob's own",
        "token PUSHED-EARLY-5150 also here",
    );
    // Alice scrubs both before she has seen either row.
    ok(alice.cmd().args(["scrub", "PUSHED-EARLY-5150"]));
    ok(alice.cmd().args(["scrub", "NOT-SYNCED-6262"]));
    let out = team.sync_alice();
    assert!(
        !contains(&db_bytes(alice), "PUSHED-EARLY-5150"),
        "a pulled row is scrubbed on arrival: {out}"
    );
    let out = team.sync_bob();
    assert!(out.contains("applied 2 scrubs"), "{out}");
    team.sync_alice();
    team.sync_bob();
    for (name, env) in [("alice", alice), ("bob", bob)] {
        let bytes = db_bytes(env);
        assert!(!contains(&bytes, "NOT-SYNCED-6262"), "on {name}");
        assert_eq!(
            env.count_where(
                "observations",
                "project = 'acme-api' AND narrative LIKE '%PUSHED-EARLY%'"
            ),
            0,
            "on {name}"
        );
    }
    assert_eq!(
        bob.count_where(
            "observations",
            "title = 'Not synced yet' AND narrative LIKE '%[SCRUBBED]%'"
        ),
        1
    );
    // Alice is not granted orbit-web: her scrub does not reach bob's row there.
    assert_eq!(
        bob.count_where(
            "observations",
            "project = 'orbit-web' AND narrative LIKE '%PUSHED-EARLY-5150%'"
        ),
        1
    );
    let mut server = team.pg.client();
    let leaked: i64 = server
        .query_one(
            "SELECT COUNT(*) FROM cmem.rows WHERE project = 'acme-api'
             AND (doc::text LIKE '%PUSHED-EARLY-5150%' OR doc::text LIKE '%NOT-SYNCED-6262%')",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(leaked, 0);
    let ops: Vec<String> = server
        .query("SELECT fingerprint || replacement FROM cmem.scrubs", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(ops.len(), 2, "{ops:?}");
    assert!(
        ops.iter()
            .all(|o| !o.contains("5150") && !o.contains("6262"))
    );
}

/// Kills syncs at 24 points (an abort right after the server committed a push batch, inside a
/// pull's transaction, and real `kill -9` after random delays); the next runs finish the job
/// with nothing twice and nothing missing.
#[test]
fn syncs_killed_anywhere_resume_without_duplicates_or_losses() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 120, 4);
    generate(&b, 120, 5);
    ok(cmem(&a, &url).args(["sync", "init"]));
    let mut kills = 0;
    let mut killed = |env: &Env, spec: &str| {
        let out = cmem(env, &url)
            .arg("sync")
            .env("CMEM_SYNC_BATCH", "7")
            .env("CMEM_SYNC_ABORT", spec)
            .output()
            .unwrap();
        // A sync with fewer batches than N left finishes normally.
        if !out.status.success() {
            kills += 1;
        }
    };
    // Pushes first: a run told to die in its pull finishes its push.
    for n in 1..=6 {
        killed(&a, &format!("push:{n}"));
        killed(&b, &format!("push:{n}"));
    }
    for n in 1..=4 {
        killed(&a, &format!("pull:{n}"));
        killed(&b, &format!("pull:{n}"));
    }
    let mut seed = 0x9e37_79b9_u64;
    for i in 0..8 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let env = if i % 2 == 0 { &a } else { &b };
        if i == 4 {
            // New rows while syncs keep dying.
            generate(env, 40, 7);
        }
        let mut child = cmem(env, &url)
            .arg("sync")
            .env("CMEM_SYNC_BATCH", "5")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + seed % 300));
        let _ = child.kill(); // SIGKILL
        if child.wait().unwrap().code().is_none() {
            kills += 1;
        }
    }
    assert!(kills >= 20, "only {kills} syncs were killed");
    let (ca, cb) = (counts(&a), counts(&b));
    for _ in 0..2 {
        sync(&a, &url);
        sync(&b, &url);
    }
    let (ca2, cb2) = (counts(&a), counts(&b));
    assert_eq!(ca2, cb2, "both hold the same rows");
    for t in TABLES {
        assert!(ca2[t] >= ca[t] && cb2[t] >= cb[t]);
    }
    assert_eq!(export_without_ids(&a), export_without_ids(&b));
    let dup: i64 = b
        .db()
        .query_row(
            "SELECT COUNT(*) FROM (SELECT content_session_id, tool_use_id FROM tool_uses GROUP BY 1, 2 HAVING COUNT(*) > 1)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(dup, 0);
    let mut server = pg.client();
    let on_server: i64 = server
        .query_one("SELECT COUNT(*) FROM cmem.rows WHERE NOT deleted", &[])
        .unwrap()
        .get(0);
    assert_eq!(
        on_server,
        ca2.values().sum::<i64>(),
        "the server holds each row once"
    );
}

#[test]
fn an_unreachable_server_fails_fast_with_one_line_and_hooks_do_not_notice() {
    let env = Env::new();
    // Accepts connections (the kernel's backlog) and never answers: the worst case.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "postgres://me@127.0.0.1:{}/cmem?sslmode=disable",
        silent.local_addr().unwrap().port()
    );
    let started = Instant::now();
    let out = cmem(&env, &url).arg("sync").output().unwrap();
    let took = started.elapsed();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("cannot reach the sync server 127.0.0.1:"),
        "{err}"
    );
    assert!(took < Duration::from_secs(8), "took {took:?}");

    // Nothing listening at all.
    let closed = format!("host={} port=1 user=me", env.root().display());
    let out = cmem(&env, &closed).arg("sync").output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("cannot reach the sync server") && err.contains("check"),
        "{err}"
    );

    // A hook with the same settings answers as always and opens no connection.
    let mut hook = cmem(&env, &url);
    hook.args(["hook", "session-start"]);
    let answer = common::run_with_stdin(
        &mut hook,
        env.payload(
            "s1",
            json!({"hook_event_name": "SessionStart", "source": "startup"}),
        )
        .to_string()
        .as_bytes(),
    );
    common::assert_fail_open("session-start", &answer);
}

#[test]
fn a_role_granted_one_project_never_sees_another() {
    let Some(pg) = Cluster::start() else { return };
    let mut admin = pg.client();
    admin
        .batch_execute("CREATE ROLE carol LOGIN; CREATE ROLE dave LOGIN;")
        .unwrap();
    let a = Env::new();
    generate(&a, 24, 6); // acme-api, orbit-web and cmem
    ok(cmem(&a, &pg.url()).args(["sync", "init"]));
    sync(&a, &pg.url());
    ok(cmem(&a, &pg.url()).args(["sync", "grant", "carol", "acme-api"]));

    // Carol's own connection, a hand-written query: only acme-api.
    let mut carol = pg.client_as("carol");
    let projects: Vec<String> = carol
        .query("SELECT DISTINCT project FROM cmem.rows ORDER BY 1", &[])
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(projects, vec!["acme-api"]);
    let other: i64 = carol
        .query_one(
            "SELECT COUNT(*) FROM cmem.rows WHERE project <> 'acme-api'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(other, 0);
    // Nor can she write the table at all (only the push functions write it).
    let err = carol
        .execute(
            "INSERT INTO cmem.rows (device, tbl, local_id, project, doc, hash, writer)
             VALUES ('x', 'observations', 1, 'orbit-web', '{}', 'h', 'x')",
            &[],
        )
        .unwrap_err();
    assert!(format!("{err:?}").contains("permission denied"), "{err:?}");

    // Carol's cmem pulls acme-api only; dave, granted nothing, gets nothing and is told why.
    let c = Env::new();
    sync(&c, &pg.url_as("carol", "postgres"));
    let projects: Vec<String> = c.rows(
        "SELECT DISTINCT project FROM observations ORDER BY 1",
        |r| r.get(0),
    );
    assert_eq!(projects, vec!["acme-api"]);
    // A machine that excludes a project from its memory takes none of it from others.
    let e = Env::new();
    let out = sync_with(&e, &pg.url(), &[("CMEM_EXCLUDED_PROJECTS", "orbit-*")]);
    assert!(out.contains("skipped"), "{out}");
    let projects: Vec<String> = e.rows(
        "SELECT DISTINCT project FROM observations ORDER BY 1",
        |r| r.get(0),
    );
    assert_eq!(projects, vec!["acme-api", "cmem"]);
    let d = Env::new();
    let out = cmem(&d, &pg.url_as("dave", "postgres"))
        .arg("sync")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cmem sync grant"), "{err}");
}

#[test]
fn a_session_end_syncs_in_the_background_at_most_once_a_minute() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let a = Env::new();
    generate(&a, 8, 8);
    ok(cmem(&a, &url).args(["sync", "init"]));
    let session_end = || {
        let mut hook = cmem(&a, &url);
        hook.args(["hook", "session-end"]);
        let payload = a.payload(
            "s-auto",
            json!({"hook_event_name": "SessionEnd", "reason": "exit"}),
        );
        let out = common::run_with_stdin(&mut hook, payload.to_string().as_bytes());
        common::assert_fail_open("session-end", &out);
    };
    let mut server = pg.client();
    let on_server = |server: &mut postgres::Client| -> i64 {
        server
            .query_one("SELECT COUNT(*) FROM cmem.rows", &[])
            .unwrap()
            .get(0)
    };
    session_end();
    let started = Instant::now();
    while on_server(&mut server) == 0 && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        on_server(&mut server) > 0,
        "the background sync pushed nothing"
    );
    let stamp = a.data_dir().join("sync.auto");
    let first = std::fs::metadata(&stamp).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    session_end();
    assert_eq!(
        std::fs::metadata(&stamp).unwrap().modified().unwrap(),
        first,
        "a second session end within a minute starts no second sync"
    );
}

#[test]
fn tls_require_and_verify_full_with_a_root_certificate_and_a_pgpass_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let Some(pg) = Cluster::start_with(port, |dir| {
        let (cert, key) = (dir.join("server.crt"), dir.join("server.key"));
        // A CA, and a certificate it signs for localhost (rustls rejects a CA certificate
        // used as the server's own).
        let ext = dir.join("ext.cnf");
        std::fs::write(
            &ext,
            "subjectAltName=DNS:localhost\nbasicConstraints=CA:FALSE\n",
        )
        .unwrap();
        let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
        let steps: [Vec<String>; 3] = [
            [
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=cmem test CA",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain(["-keyout".into(), p("ca.key"), "-out".into(), p("ca.crt")])
            .collect(),
            [
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-subj",
                "/CN=localhost",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([
                "-keyout".into(),
                p("server.key"),
                "-out".into(),
                p("server.csr"),
            ])
            .collect(),
            ["x509", "-req", "-days", "2", "-CAcreateserial"]
                .iter()
                .map(|s| s.to_string())
                .chain([
                    "-in".into(),
                    p("server.csr"),
                    "-CA".into(),
                    p("ca.crt"),
                    "-CAkey".into(),
                    p("ca.key"),
                    "-out".into(),
                    p("server.crt"),
                    "-extfile".into(),
                    p("ext.cnf"),
                ])
                .collect(),
        ];
        for args in steps {
            let made = Command::new("openssl")
                .args(&args)
                .output()
                .expect("openssl (installed with PostgreSQL's ssl-cert)");
            assert!(
                made.status.success(),
                "{}",
                String::from_utf8_lossy(&made.stderr)
            );
        }
        let hba = dir.join("data/pg_hba.conf");
        // The socket is for the test's own admin connection; TCP needs TLS and a password.
        std::fs::write(
            &hba,
            "local all all trust\nhostnossl all all all reject\nhostssl all all all scram-sha-256\n",
        )
        .unwrap();
        if is_root() {
            run(Command::new("chown").arg(TEST_USER).arg(&cert).arg(&key));
        }
        run(Command::new("chmod").arg("600").arg(&key));
        format!(
            "-c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file={} -c ssl_key_file={}",
            cert.display(),
            key.display()
        )
    }) else {
        return;
    };
    let ca = pg.dir.path().join("ca.crt");
    let user = &pg.superuser;
    let env = Env::new();
    let url = |host: &str, mode: &str| {
        format!(
            "postgres://{user}@{host}:{port}/postgres?sslmode={mode}&sslrootcert={}",
            ca.display()
        )
    };
    pg.client()
        .batch_execute(&format!("ALTER ROLE {user} PASSWORD 'pw-from-pgpass'"))
        .unwrap();
    let out = cmem(&env, &url("localhost", "require"))
        .arg("sync")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("check the user and password"), "{err}");
    // The password comes from ~/.pgpass, as with libpq.
    std::fs::write(
        env.home().join(".pgpass"),
        format!("# host:port:db:user:password\nlocalhost:{port}:postgres:{user}:pw-from-pgpass\n"),
    )
    .unwrap();
    ok(cmem(&env, &url("localhost", "require")).args(["sync", "init"]));
    let out = sync(&env, &url("localhost", "verify-full"));
    assert!(out.contains("pulled 0 new"), "{out}");
    // The server refuses TCP without TLS, so the syncs above were encrypted.
    let out = cmem(&env, &url("localhost", "disable"))
        .arg("sync")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no encryption"));
    // The certificate names localhost, not 127.0.0.1; and without sslrootcert it is unknown.
    let out = cmem(&env, &url("127.0.0.1", "verify-full"))
        .arg("sync")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let plain = format!("postgres://{user}@localhost:{port}/postgres?sslmode=verify-full");
    let out2 = cmem(&env, &plain).arg("sync").output().unwrap();
    assert_eq!(out2.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out2.stderr);
    assert!(
        err.contains("certificate") && err.contains("sslrootcert"),
        "{err}"
    );
}

#[test]
fn work_done_while_the_server_is_down_waits_and_goes_when_it_is_back() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let a = Env::new();
    ok(cmem(&a, &url).args(["sync", "init"]));
    sync(&a, &url);
    pg.pg_ctl("stop");
    generate(&a, 16, 9);
    let started = Instant::now();
    let out = cmem(&a, &url).arg("sync").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("cannot reach the sync server"), "{err}");
    assert!(started.elapsed() < Duration::from_secs(8));
    let status = ok(cmem(&a, &url).args(["sync", "status"]));
    assert!(
        status.contains("on server: unknown: cannot reach"),
        "{status}"
    );
    assert!(!status.contains("waiting:   0 rows"), "{status}");

    pg.pg_ctl("start");
    let out = sync(&a, &url);
    let total: i64 = counts(&a).values().sum();
    assert!(out.contains(&format!("pushed {total} rows")), "{out}");
    assert!(ok(cmem(&a, &url).args(["sync", "status"])).contains("waiting:   0 rows"));
}

/// `cmem doctor` says whether memory is shared from local state only (it never connects; `cmem
/// sync status` asks the server), and never shows the password.
#[test]
fn doctor_tells_the_sync_state_without_asking_the_server() {
    let env = Env::new();
    let off = env.cmd().args(["doctor", "--init"]).output().unwrap();
    let text = String::from_utf8_lossy(&off.stdout).to_string();
    assert!(
        text.lines()
            .any(|l| l.contains("sync") && l.contains("off: memory stays on this machine")),
        "{text}"
    );
    let on = env
        .cmd()
        .args(["doctor"])
        .env(
            "CMEM_SYNC_URL",
            "postgres://alice:hunter2@10.255.255.1:5432/cmem",
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&on.stdout).to_string();
    let line = text
        .lines()
        .find(|l| l.contains(" sync "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("10.255.255.1") && line.contains("never pushed"),
        "{line}"
    );
    assert!(!text.contains("hunter2"), "{text}");
}

/// A team on one server: alice is granted acme-api; bob acme-api and orbit-web, and keeps his
/// `cmem` project to himself (`[sync] projects` does not list it).
struct Team {
    pg: Cluster,
    alice: Env,
    bob: Env,
}

const BOB_SHARES: &str = "acme-api,orbit-web";

impl Team {
    fn new() -> Option<Team> {
        let pg = Cluster::start()?;
        pg.client()
            .batch_execute("CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN;")
            .unwrap();
        let admin = Env::new();
        ok(cmem(&admin, &pg.url()).args(["sync", "init"]));
        for (role, project) in [
            ("alice", "acme-api"),
            ("bob", "acme-api"),
            ("bob", "orbit-web"),
        ] {
            ok(cmem(&admin, &pg.url()).args(["sync", "grant", role, project]));
        }
        let team = Team {
            pg,
            alice: Env::new(),
            bob: Env::new(),
        };
        generate(&team.bob, 60, 11);
        generate(&team.alice, 20, 12);
        team.sync_bob();
        team.sync_alice();
        Some(team)
    }

    fn sync_bob(&self) -> String {
        sync_with(
            &self.bob,
            &self.pg.url_as("bob", "postgres"),
            &[("CMEM_SYNC_PROJECTS", BOB_SHARES)],
        )
    }

    fn sync_alice(&self) -> String {
        sync_with(
            &self.alice,
            &self.pg.url_as("alice", "postgres"),
            &[("CMEM_SYNC_PROJECTS", "acme-api")],
        )
    }

    fn device(env: &Env) -> String {
        env.db()
            .query_row(
                "SELECT value FROM sync_state WHERE key = 'device'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// Bob's observation ids of one project.
    fn bob_ids(&self, table: &str, project: &str) -> Vec<i64> {
        self.bob.rows(
            &format!("SELECT id FROM {table} WHERE project = '{project}' ORDER BY id"),
            |r| r.get(0),
        )
    }

    /// Bob's rows per table and project.
    fn bob_rows(&self) -> BTreeMap<String, i64> {
        let mut out = BTreeMap::new();
        for t in [
            "sessions",
            "observations",
            "session_summaries",
            "work_state_entries",
        ] {
            for (p, n) in self.bob.rows(
                &format!("SELECT project, COUNT(*) FROM {t} GROUP BY 1"),
                |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)),
            ) {
                out.insert(format!("{t}/{p}"), n);
            }
        }
        out.insert("user_prompts".into(), self.bob.count("user_prompts"));
        out
    }
}

/// A server made by its owner, with two roles granted every project: each attack below runs
/// its devices as a teammate's role, not as the owner. Returns (alice's, bob's) settings.
fn two_roles(pg: &Cluster) -> (String, String) {
    pg.client()
        .batch_execute("CREATE ROLE alice LOGIN; CREATE ROLE bob LOGIN;")
        .unwrap();
    let admin = Env::new();
    ok(cmem(&admin, &pg.url()).args(["sync", "init"]));
    for role in ["alice", "bob"] {
        ok(cmem(&admin, &pg.url()).args(["sync", "grant", role, "*"]));
    }
    (pg.url_as("alice", "postgres"), pg.url_as("bob", "postgres"))
}

fn denied(result: Result<u64, postgres::Error>) -> String {
    let err = result.expect_err("the server took a write it must refuse");
    format!("{err:?}")
}

/// Issue 33, attacks 1 and 2: with her own SQL, a teammate tries to delete, overwrite and move
/// bob's rows (of his never-shared project too), forge a sequence number, and rename or claim
/// his device. Everything is refused or changes nothing, and bob's next syncs lose nothing.
#[test]
fn a_teammate_with_her_own_sql_cannot_touch_another_devices_rows() {
    let Some(team) = Team::new() else { return };
    let before = team.bob_rows();
    let bob = Team::device(&team.bob);
    let alice = Team::device(&team.alice);
    let private = team.bob_ids("observations", "cmem");
    let private_sessions = team.bob_ids("sessions", "cmem");
    let orbit = team.bob_ids("observations", "orbit-web");
    let acme = team.bob_ids("observations", "acme-api");
    assert!(!private.is_empty() && !orbit.is_empty() && !acme.is_empty());
    let mut sql = team.pg.client_as("alice");
    let server_before: i64 = team
        .pg
        .client()
        .query_one("SELECT COUNT(*) FROM cmem.rows WHERE NOT deleted", &[])
        .unwrap()
        .get(0);

    // Direct writes: a tombstone for bob's private observation, a forged sequence number, a
    // renamed or claimed device.
    let err = denied(sql.execute(
        "INSERT INTO cmem.rows (device, tbl, local_id, project, deleted, hash, writer)
         VALUES ($1, 'observations', $2, 'acme-api', true, '', $3)",
        &[&bob, &private[0], &alice],
    ));
    assert!(err.contains("permission denied"), "{err}");
    let err = denied(sql.execute(
        "INSERT INTO cmem.rows (device, tbl, local_id, project, doc, hash, writer, seq)
         VALUES ($1, 'observations', 999999, 'acme-api', '{}', 'h', $1, 9223372036854775000)",
        &[&alice],
    ));
    assert!(
        err.contains("permission denied") || err.contains("identity column"),
        "{err}"
    );
    let err = denied(sql.execute(
        "UPDATE cmem.rows SET seq = 9223372036854775000 WHERE device = $1",
        &[&alice],
    ));
    assert!(
        err.contains("permission denied") || err.contains("identity column"),
        "{err}"
    );
    let err = denied(sql.execute(
        "UPDATE cmem.rows SET project = 'acme-api', deleted = true WHERE device = $1",
        &[&bob],
    ));
    assert!(err.contains("permission denied"), "{err}");
    let err = denied(sql.execute(
        "UPDATE cmem.devices SET name = 'pwned', role = 'alice' WHERE device = $1",
        &[&bob],
    ));
    assert!(err.contains("permission denied"), "{err}");
    let err = denied(sql.execute(
        "INSERT INTO cmem.devices (device, name, role) VALUES ('f00d', 'fake', 'bob')",
        &[],
    ));
    assert!(err.contains("permission denied"), "{err}");

    // Through the push functions: pushing as bob's device, creating rows under his identity,
    // moving his rows, and one generate_series of tombstones per table over his ids.
    let err = format!(
        "{:?}",
        sql.query(
            "SELECT * FROM cmem.push_rows($1, ARRAY[$1], ARRAY['observations'], ARRAY[$2::int8],
                 ARRAY['acme-api'], ARRAY['{}'], ARRAY['h'], ARRAY[NULL::int8])",
            &[&bob, &private[0]],
        )
        .unwrap_err()
    );
    assert!(err.contains("is not registered to role alice"), "{err}");
    let verdict = |sql: &mut postgres::Client, id: i64, project: &str| -> String {
        sql.query_one(
            "SELECT outcome FROM cmem.push_rows($1, ARRAY[$2], ARRAY['observations'], ARRAY[$3::int8],
                 ARRAY[$4], ARRAY['{\"title\": \"forged\"}'], ARRAY['forged'], ARRAY[NULL::int8])",
            &[&alice, &bob, &id, &project],
        )
        .unwrap()
        .get(0)
    };
    let v = verdict(&mut sql, private[0], "acme-api");
    assert!(
        v.contains("refused: a new row must be the pushing device's own"),
        "{v}"
    );
    let v = verdict(&mut sql, orbit[0], "acme-api");
    assert!(
        v.contains("refused: project orbit-web is not granted to role alice"),
        "{v}"
    );
    let v = verdict(&mut sql, acme[0], "orbit-web");
    assert!(
        v.contains("refused: project orbit-web is not granted"),
        "{v}"
    );
    let mut taken = 0;
    for t in TABLES {
        let n: i64 = sql
            .query_one(
                "SELECT cmem.push_tombstones($1, array_fill($2::text, ARRAY[5000]),
                     array_fill($3::text, ARRAY[5000]), ARRAY(SELECT generate_series(1, 5000)::int8))",
                &[&alice, &bob, &t],
            )
            .map(|r| r.get(0))
            .unwrap_or_else(|e| panic!("{e:?}"));
        // Only rows of acme-api, the project both share, can be forgotten by her; none of
        // those are in this sweep's count of what must survive below.
        taken += n;
    }
    let server = team.pg.client().query_one(
        "SELECT COUNT(*) FILTER (WHERE deleted AND project <> 'acme-api'), COUNT(*) FILTER (WHERE NOT deleted)
         FROM cmem.rows",
        &[],
    ).unwrap();
    assert_eq!(
        server.get::<_, i64>(0),
        0,
        "no row outside acme-api was forgotten"
    );
    assert_eq!(server.get::<_, i64>(1) + taken, server_before);

    // Bob's next sync: his private and orbit-web rows are intact (acme-api's forgotten rows
    // are gone, as a forget in a shared project is meant to), and pulls still move.
    team.sync_bob();
    let after = team.bob_rows();
    for (k, n) in &before {
        if !k.contains("acme-api") && k != "user_prompts" {
            assert_eq!(after.get(k), Some(n), "{k}: {before:?} -> {after:?}");
        }
    }
    assert_eq!(team.bob_ids("sessions", "cmem"), private_sessions);
    assert_eq!(team.bob_ids("observations", "cmem"), private);
    mcp_call(
        &team.alice,
        "save_memory",
        json!({"title": "Okapi runbook after the attack", "text": "acme-api still syncs.", "project": "acme-api"}),
    );
    team.sync_alice();
    let out = team.sync_bob();
    assert!(out.contains("pulled 1 new"), "{out}");
    assert_eq!(
        team.bob
            .count_where("observations", "title = 'Okapi runbook after the attack'"),
        1
    );
    // Bob's device still carries his name and role.
    let row = team
        .pg
        .client()
        .query_one(
            "SELECT role::text FROM cmem.devices WHERE device = $1",
            &[&bob],
        )
        .unwrap();
    assert_eq!(row.get::<_, String>(0), "bob");
}

/// A server from before schema v2, where a role wrote `cmem.rows` directly: a forged huge
/// `seq` (that froze every puller) is renumbered by `cmem sync init`, a device whose cursor it
/// moved starts over, and a forged tombstone of a row its device never shared deletes nothing.
#[test]
fn upgrading_a_v1_server_repairs_forged_sequence_numbers_and_frozen_cursors() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let mut admin = pg.client();
    admin
        .batch_execute(&format!(
            "CREATE SCHEMA cmem;
             CREATE TABLE cmem.meta (version integer NOT NULL, at timestamptz NOT NULL DEFAULT now());
             {}
             INSERT INTO cmem.meta (version) VALUES (1);",
            include_str!("../../src/sync/sql/001_server.sql")
        ))
        .unwrap();
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 12, 21);
    generate(&b, 12, 22);
    // Both devices get their ids (a v1 server refuses the sync: the schema is too old).
    for env in [&a, &b] {
        let out = cmem(env, &url).arg("sync").output().unwrap();
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("run `cmem sync init` to upgrade"),
            "{out:?}"
        );
    }
    let bob = Team::device(&b);
    let private: i64 = b.rows("SELECT MIN(id) FROM observations", |r| r.get(0))[0];
    admin
        .execute(
            "INSERT INTO cmem.rows (device, tbl, local_id, project, doc, hash, writer, seq)
             VALUES ('ffff', 'observations', 1, 'acme-api', '{\"title\": \"forged far ahead\"}', 'h', 'ffff', 9223372036854775000)",
            &[],
        )
        .unwrap();
    admin
        .execute(
            "INSERT INTO cmem.rows (device, tbl, local_id, project, deleted, hash, writer)
             VALUES ($1, 'observations', $2, 'acme-api', true, '', 'ffff')",
            &[&bob, &private],
        )
        .unwrap();
    // B had pulled the forged row under v1: its cursor sits past everything to come.
    b.db()
        .execute(
            "INSERT INTO sync_state (key, value) VALUES ('pull_seq', '9223372036854775000')
             ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            [],
        )
        .unwrap();

    let init = ok(cmem(&a, &url).args(["sync", "init"]));
    assert!(init.contains("version 1 -> 4"), "{init}");
    let max: i64 = admin
        .query_one("SELECT MAX(seq) FROM cmem.rows", &[])
        .unwrap()
        .get(0);
    assert!(max < 100, "the forged seq was renumbered: {max}");
    let before = counts(&b);
    sync(&a, &url);
    let out = sync(&b, &url);
    let from_a = counts(&a);
    for t in TABLES {
        assert_eq!(counts(&b)[t], before[t] + from_a[t], "{t}: {out}");
    }
    assert_eq!(
        b.count_where("observations", &format!("id = {private}")),
        1,
        "the forged tombstone deleted nothing"
    );
    // Bob still has the row, so his push wrote it over the tombstone a v1 server let anyone
    // write: the server holds it again for every puller.
    let project: String = b.rows(
        &format!("SELECT project FROM observations WHERE id = {private}"),
        |r| r.get::<_, String>(0),
    )[0]
    .clone();
    let row = admin
        .query_one(
            "SELECT deleted, project, unproven FROM cmem.rows
             WHERE device = $1 AND tbl = 'observations' AND local_id = $2",
            &[&bob, &private],
        )
        .unwrap();
    assert!(!row.get::<_, bool>(0), "bob's row is on the server again");
    assert!(!row.get::<_, bool>(2));
    assert_eq!(row.get::<_, String>(1), project);

    // A tombstone from the v1 days that bob pulls rather than meets on a push (he shared the
    // row before it was written): his row stays, and his next push puts it back.
    admin
        .execute(
            "UPDATE cmem.rows SET deleted = true, doc = NULL, hash = '', unproven = true,
                 seq = DEFAULT, writer = 'ffff'
             WHERE device = $1 AND tbl = 'observations' AND local_id = $2",
            &[&bob, &private],
        )
        .unwrap();
    sync(&b, &url);
    assert_eq!(
        b.count_where("observations", &format!("id = {private}")),
        1,
        "a pulled v1 tombstone deleted bob's row"
    );
    sync(&b, &url);
    let deleted: bool = admin
        .query_one(
            "SELECT deleted FROM cmem.rows WHERE device = $1 AND tbl = 'observations' AND local_id = $2",
            &[&bob, &private],
        )
        .unwrap()
        .get(0);
    assert!(!deleted, "bob's next push put the row back on the server");
}

/// Issue 33, attack 3: a session synced while open gets a newer `seq` when it ends, so a
/// device that joins later pulls its prompts and observations first. They wait for it and are
/// linked when it comes: the late device ends identical to the others. A device that skipped
/// rows under an older cmem gets them back on its next sync.
#[test]
fn a_device_that_joins_late_gets_every_prompt_linked_to_its_session() {
    let Some(pg) = Cluster::start() else { return };
    let (url, late_url) = two_roles(&pg);
    let a = Env::new();
    generate(&a, 30, 31);
    sync(&a, &url);
    // Every session ends after it was shared: its new revision comes after its children.
    a.db()
        .execute_batch(
            "UPDATE sessions SET status = 'completed', completed_at_epoch = started_at_epoch + 60000",
        )
        .unwrap();
    sync(&a, &url);
    let late = Env::new();
    let out = sync_with(&late, &late_url, &[("CMEM_SYNC_BATCH", "7")]);
    assert!(!out.contains("kept"), "nothing waits at the end: {out}");
    assert_eq!(counts(&late), counts(&a));
    assert_eq!(export_without_ids(&late), export_without_ids(&a));
    assert_eq!(
        late.count_where("observations", "session_id IS NULL"),
        a.count_where("observations", "session_id IS NULL")
    );

    // An older cmem skipped those prompts: the next sync of a new cmem fetches them again.
    let lost: i64 = late.count("user_prompts");
    {
        let db = late.db();
        db.execute_batch(
            "UPDATE sync_state SET value = 'off' WHERE key = 'outbox';
             DELETE FROM user_prompts;
             UPDATE sync_state SET value = 'on' WHERE key = 'outbox';
             UPDATE sync_state SET value = '*|raw=true' WHERE key = 'shared';",
        )
        .unwrap();
    }
    assert_eq!(late.count("user_prompts"), 0);
    sync(&late, &late_url);
    assert_eq!(late.count("user_prompts"), lost);
    assert_eq!(export_without_ids(&late), export_without_ids(&a));
}

/// A TCP proxy in front of the cluster's socket that forwards until `freeze_after` bytes went
/// to the server, then carries nothing either way while keeping the connections open: a
/// network that stopped carrying packets after the connection was made.
fn freezing_proxy(
    socket: PathBuf,
    freeze_after: usize,
) -> (u16, std::sync::Arc<std::sync::atomic::AtomicBool>) {
    use std::io::{Read, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let frozen = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&frozen);
    std::thread::spawn(move || {
        let sent = Arc::new(AtomicUsize::new(0));
        for client in listener.incoming().flatten() {
            let Ok(server) = std::os::unix::net::UnixStream::connect(&socket) else {
                continue;
            };
            let pump = |mut from: Box<dyn Read + Send>,
                        mut to: Box<dyn Write + Send>,
                        count: Option<Arc<AtomicUsize>>,
                        frozen: Arc<AtomicBool>| {
                std::thread::spawn(move || {
                    let mut buf = [0u8; 8192];
                    loop {
                        let Ok(n) = from.read(&mut buf) else { return };
                        if n == 0 {
                            return;
                        }
                        if let Some(c) = &count
                            && c.fetch_add(n, Ordering::SeqCst) + n > freeze_after
                        {
                            frozen.store(true, Ordering::SeqCst);
                        }
                        while frozen.load(Ordering::SeqCst) {
                            // Hold everything, close nothing (bounded by the test's end).
                            std::thread::sleep(Duration::from_millis(200));
                        }
                        if to.write_all(&buf[..n]).is_err() {
                            return;
                        }
                    }
                });
            };
            let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
            pump(
                Box::new(client),
                Box::new(server),
                Some(Arc::clone(&sent)),
                Arc::clone(&flag),
            );
            pump(Box::new(s2), Box::new(c2), None, Arc::clone(&flag));
        }
    });
    (port, frozen)
}

/// `cmem doctor` with this data dir's sync settings (it exits 1 when something needs fixing).
fn doctor(env: &Env, url: &str) -> String {
    let out = cmem(env, url).arg("doctor").output().unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn finish_within(mut child: std::process::Child, limit: Duration) -> (Output, Duration) {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), started.elapsed())
}

/// Issue 33, attack 5: a partition after the connection is made (here: mid-push, inside the
/// push lock) fails that sync within 30 s with one line saying what to do; the server ends the
/// stuck session, so another device's sync is not held up for longer; nothing is lost.
#[test]
fn a_network_that_stops_mid_push_fails_in_seconds_and_blocks_no_other_device() {
    let Some(pg) = Cluster::start() else { return };
    let (url, b_url) = two_roles(&pg);
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 150, 41);
    generate(&b, 10, 42);
    sync(&b, &b_url);
    let socket = pg.dir.path().join(format!(".s.PGSQL.{}", pg.port));
    let (port, frozen) = freezing_proxy(socket, 60_000);
    let through_proxy =
        format!("host=127.0.0.1 port={port} user=alice dbname=postgres sslmode=disable");
    let child = cmem(&a, &through_proxy)
        .arg("sync")
        .env("CMEM_SYNC_BATCH", "20")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while !frozen.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the push never reached 60 kB"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Another device syncs meanwhile, directly: at most the server's idle limit behind.
    std::thread::sleep(Duration::from_millis(300));
    let other = Instant::now();
    generate(&b, 5, 43);
    let out = sync(&b, &b_url);
    assert!(out.contains("pulled"), "{out}");
    assert!(
        other.elapsed() < Duration::from_secs(30),
        "{:?}",
        other.elapsed()
    );

    let (out, took) = finish_within(child, Duration::from_secs(60));
    assert!(
        took < Duration::from_secs(30),
        "the stuck sync took {took:?}"
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("did not answer") && err.contains("run `cmem sync` again"),
        "{err}"
    );

    // Nothing is lost: both devices converge once the network is back.
    for _ in 0..2 {
        sync(&a, &url);
        sync(&b, &b_url);
    }
    assert_eq!(counts(&a), counts(&b));
    assert_eq!(export_without_ids(&a), export_without_ids(&b));
}

/// Issue 33, attack 5: a lock on `cmem.rows` held by another session, and the push lock held by
/// another device, fail the sync in seconds with a message instead of hanging it; a push that
/// cannot run still lets the pull run.
#[test]
fn locks_held_elsewhere_fail_the_sync_in_seconds_and_the_pull_still_runs() {
    let Some(pg) = Cluster::start() else { return };
    let (a_url, url) = two_roles(&pg);
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 10, 51);
    sync(&a, &a_url);
    generate(&b, 6, 52);

    let mut admin = pg.client();
    let mut tx = admin.transaction().unwrap();
    tx.batch_execute("LOCK TABLE cmem.rows IN ACCESS EXCLUSIVE MODE")
        .unwrap();
    let (out, took) = finish_within(
        cmem(&b, &url)
            .arg("sync")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
        Duration::from_secs(60),
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("lock timeout") && err.contains("try again"),
        "{err}"
    );
    tx.rollback().unwrap();

    // Another device's push holds the push lock: this push waits a bounded time; the pull
    // does not need that lock and brings A's rows.
    admin
        .batch_execute("SELECT pg_advisory_lock(7432650101)")
        .unwrap();
    let (out, took) = finish_within(
        cmem(&b, &url)
            .arg("sync")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap(),
        Duration::from_secs(60),
    );
    assert!(took < Duration::from_secs(30), "{took:?}");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("sync push:") && err.contains("lock timeout"),
        "{err}"
    );
    assert_eq!(
        b.count("observations"),
        counts(&a)["observations"] + 6,
        "the pull ran: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let said = doctor(&b, &url);
    assert!(said.contains("the last sync failed"), "{said}");
    admin
        .batch_execute("SELECT pg_advisory_unlock(7432650101)")
        .unwrap();
    sync(&b, &url);
    assert!(!doctor(&b, &url).contains("the last sync failed"));
}

/// Issue 33, attack 6: a NUL in a saved memory or an old row no longer poisons the outbox, and
/// a row the server refuses is reported by table and id (in the sync's error and in `cmem
/// doctor`) while every other row syncs.
#[test]
fn a_nul_or_a_row_the_server_refuses_holds_back_no_other_row() {
    let Some(pg) = Cluster::start() else { return };
    let (url, b_url) = two_roles(&pg);
    let (a, b) = (Env::new(), Env::new());
    generate(&a, 12, 61);
    mcp_call(
        &a,
        "save_memory",
        json!({"title": "Nul\u{0}byte note", "text": "before\u{0}after"}),
    );
    mcp_call(
        &a,
        "save_memory",
        json!({"title": "Poisoned row", "text": "the server's own check refuses this one"}),
    );
    // A row stored before capture removed NUL.
    a.db()
        .execute(
            "UPDATE observations SET narrative = 'old' || char(0) || 'nul' WHERE id = (SELECT MIN(id) FROM observations)",
            [],
        )
        .unwrap();
    assert_eq!(
        a.count_where("observations", "instr(title, char(0)) > 0"),
        0
    );
    pg.client()
        .batch_execute(
            "CREATE FUNCTION cmem.refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN
                 IF NEW.doc->>'title' = 'Poisoned row' THEN RAISE EXCEPTION 'this server refuses poisoned rows'; END IF;
                 RETURN NEW;
             END $$;
             CREATE TRIGGER refuse_poison BEFORE INSERT OR UPDATE ON cmem.rows
                 FOR EACH ROW EXECUTE FUNCTION cmem.refuse_poison();",
        )
        .unwrap();
    let out = cmem(&a, &url).arg("sync").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    let poisoned: i64 = a.rows(
        "SELECT id FROM observations WHERE title = 'Poisoned row'",
        |r| r.get(0),
    )[0];
    assert!(
        err.contains(&format!("observations {poisoned}"))
            && err.contains("this server refuses poisoned rows"),
        "{err}"
    );
    let said = doctor(&a, &url);
    assert!(
        said.contains("the server refused 1 row")
            && said.contains(&format!("observations {poisoned}")),
        "{said}"
    );
    // The next sync pushes what is new and does not stumble on the refused row again.
    generate(&a, 3, 62);
    sync(&a, &url);
    sync(&b, &b_url);
    assert_eq!(b.count("observations"), a.count("observations") - 1);
    assert_eq!(
        b.count_where("observations", "instr(title, char(0)) > 0"),
        0
    );
    assert_eq!(b.count_where("observations", "title = 'Nulbyte note'"), 1);
    assert_eq!(b.count_where("observations", "narrative = 'oldnul'"), 1);
}

/// A URL read as libpq reads it: the query string's `host` (a socket directory) and `port`
/// replace the authority's `localhost`, which is not tried first.
#[test]
fn a_url_whose_query_string_names_the_socket_and_port_reaches_it() {
    let Some(pg) = Cluster::start_with(5499, |_| String::new()) else {
        return;
    };
    let url = format!(
        "postgresql://{}@localhost/postgres?host={}&port=5499&sslmode=disable",
        pg.superuser,
        pg.dir.path().display()
    );
    let env = Env::new();
    let init = ok(cmem(&env, &url).args(["sync", "init"]));
    let server = format!("{}:5499/postgres", pg.dir.path().display());
    assert!(init.starts_with(&server), "{init}");
    sync(&env, &url);
}
