//! `cmem sync`: the same memory on several machines and across a team, through PostgreSQL.
//!
//! Only `cli` reaches this module (tests/integration/layers.rs checks it): hooks never link-call into it
//! and never open a connection. A sync pushes the outbox (rows queued by triggers, see
//! src/store/sql/005_sync.sql) in batches, then pulls other devices' revisions by server
//! sequence. A pushed batch is one server transaction and one local transaction; a pulled
//! batch is stored in short local transactions (see `pull`: hooks of this device wait for
//! none of them long), each moving the cursor to the last row it stored. So a sync killed at
//! any point resumes without duplicates or gaps: a replayed push changes nothing on the
//! server (same hash, or a final tombstone) and a pull's rows and cursor commit together.

pub mod conn;
pub mod deadline;
pub mod local;
pub mod merge;
pub mod server;
pub mod vectors;

use std::collections::HashMap;
use std::fs::File;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use rusqlite::OptionalExtension;

use crate::config::Settings;
use crate::store::Store;
use crate::store::transfer::TABLES;

/// Rows per batch: one server round trip and one local transaction each.
const BATCH: usize = 1000;
const BATCH_BYTES: usize = 8 << 20;

/// What one sync moved.
#[derive(Debug, Default)]
pub(crate) struct Report {
    pub device: String,
    /// The device id this data dir had before it was found copied (this sync made a new one).
    pub copied_from: Option<String>,
    pub pushed: usize,
    pub tombstones: usize,
    /// Rows the server took as new or changed (a replay takes none).
    pub server_changed: u64,
    /// Queued rows not shared (their project is not in `[sync] projects`, or raw tool I/O).
    pub kept_local: usize,
    /// Rows the server refused, and the first reason.
    pub refused: usize,
    pub refusal: Option<String>,
    pub pulled: local::Applied,
    pub behind: i64,
    /// Scrubs made on other devices and applied here.
    pub scrubs_applied: usize,
    /// A push or pull that failed; the other half ran anyway.
    pub errors: Vec<String>,
}

fn batch_size() -> usize {
    std::env::var("CMEM_SYNC_BATCH")
        .ok()
        .and_then(|b| b.parse().ok())
        .filter(|b| *b > 0)
        .unwrap_or(BATCH)
}

/// Test hook: `CMEM_SYNC_ABORT=push:N` dies like `kill -9` after the server committed the Nth
/// push batch and before the local commit; `pull:N` inside the Nth pull's local transaction.
/// Only in builds the tests use (`test-faults` in Cargo.toml): a release build has no way to
/// be told to abort.
#[cfg(any(debug_assertions, feature = "test-faults"))]
fn abort_at(phase: &str, n: usize) {
    if let Ok(spec) = std::env::var("CMEM_SYNC_ABORT")
        && spec.split_once(':') == Some((phase, &n.to_string()))
    {
        std::process::abort();
    }
}

#[cfg(not(any(debug_assertions, feature = "test-faults")))]
fn abort_at(_phase: &str, _n: usize) {}

fn url(settings: &Settings) -> Result<&str> {
    settings.sync.url.as_deref().filter(|u| !u.trim().is_empty()).context(
        "no sync server: set [sync] url in the config file (or CMEM_SYNC_URL), for example postgres://me@db.example.com/cmem?sslmode=verify-full",
    )
}

fn shared(settings: &Settings, table: &str, project: &str) -> bool {
    if table == "tool_uses" && !settings.sync.raw_tool_io {
        return false;
    }
    // A project this machine excludes from memory is not taken from others either.
    if crate::project::is_excluded(Path::new(project), &settings.excluded_projects) {
        return false;
    }
    let p = project.to_lowercase();
    settings
        .sync
        .projects
        .iter()
        .any(|g| crate::project::glob_match(&g.trim().to_lowercase(), &p))
}

pub(crate) fn device_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is valid for its length; gethostname NUL-terminates within it or
    // truncates, and the name is read only up to the first NUL.
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
    let host = String::from_utf8_lossy(&buf[..end]).into_owned();
    if ok && !host.is_empty() {
        host
    } else {
        "unknown-host".into()
    }
}

/// One sync per data dir at a time; `None` when another holds it.
fn lock(data_dir: &Path) -> Result<Option<File>> {
    std::fs::create_dir_all(data_dir)?;
    let path = data_dir.join("sync.lock");
    let f = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(f.try_lock().is_ok().then_some(f))
}

fn open(settings: &Settings) -> Result<Store> {
    Store::open(&settings.db_path())
}

/// What `note_sharing` keys on besides the settings: bumped when a new cmem must queue and
/// pull everything once (2: rows of this device get an explicit mapping, and rows skipped by
/// older pulls while their parent was missing are fetched again).
const SHARING_GENERATION: &str = "2";

/// When what is shared changes, everything is queued and pulled again (both are idempotent).
fn note_sharing(store: &mut Store, settings: &Settings) -> Result<()> {
    let key = format!(
        "{SHARING_GENERATION}|{}|raw={}",
        settings.sync.projects.join("\n"),
        settings.sync.raw_tool_io
    );
    if local::state(&store.conn, "shared")?.as_deref() == Some(key.as_str()) {
        return Ok(());
    }
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    local::queue_all(&tx)?;
    tx.execute("DELETE FROM sync_refused", [])?;
    local::set_state(&tx, "pull_seq", "0")?;
    local::set_state(&tx, "shared", &key)?;
    tx.commit()?;
    Ok(())
}

/// Push, then pull; `None` when another sync of this data dir is running. A push that fails
/// does not stop the pull (nor the reverse): the report lists what failed, and so does the
/// data dir until a sync succeeds (`cmem doctor` reads it there).
pub(crate) fn run(settings: &Settings) -> Result<Option<Report>> {
    let result = run_once(settings);
    let failure = match &result {
        Ok(Some(r)) if !r.errors.is_empty() => Some(r.errors.join("; ")),
        Ok(_) => None,
        Err(e) => Some(format!("{e:#}")),
    };
    if !matches!(result, Ok(None))
        && let Ok(store) = Store::open(&settings.db_path())
    {
        let noted = match failure {
            Some(why) => local::set_state(
                &store.conn,
                "last_error",
                &format!("{}|{why}", crate::clock::now_ms()),
            ),
            None => store
                .conn
                .execute("DELETE FROM sync_state WHERE key = 'last_error'", [])
                .map(|_| ())
                .map_err(Into::into),
        };
        if let Err(e) = noted {
            crate::logging::warn(format!("sync: cannot note the outcome: {e:#}"));
        }
    }
    result
}

fn run_once(settings: &Settings) -> Result<Option<Report>> {
    let url = url(settings)?;
    let target = conn::parse(url)?;
    let data_dir = settings.data_dir();
    let Some(_lock) = lock(&data_dir)? else {
        return Ok(None);
    };
    let mut store = open(settings)?;
    let in_place = crate::store::forget::erases_in_place(&store.conn)?;
    let (me, copied_from) = local::ensure_device(&mut store.conn, &data_dir)?;
    note_sharing(&mut store, settings)?;
    let mut client = conn::connect(&target)?;
    let dog = deadline::Watchdog::start();
    dog.within("the schema check", || server::check(&mut client))?;
    dog.within("the device check", || {
        server::hello(&mut client, &me, &device_name())
    })?;
    let mut report = Report {
        device: me.clone(),
        copied_from,
        ..Report::default()
    };
    let mut link = Link {
        client: &mut client,
        dog: &dog,
    };
    // Scrubs first: one made elsewhere is applied here before this device pushes its rows.
    if let Err(e) = exchange_scrubs(&mut store, &mut link, settings, &me, &mut report) {
        report.errors.push(format!("scrubs: {e:#}"));
    }
    if let Err(e) = push(&mut store, &mut link, settings, &me, &mut report)
        .and_then(|()| order_work_state(&mut store, &mut link))
    {
        report.errors.push(format!("push: {e:#}"));
    }
    if let Err(e) = pull(&mut store, &mut link, settings, &me, &mut report) {
        report.errors.push(format!("pull: {e:#}"));
    }
    // After a failure the count would only wait on the same trouble again.
    if report.errors.is_empty() {
        match dog.within("the count of rows to pull", || {
            server::behind(&mut client, &me, pull_cursor(&store)?)
        }) {
            Ok(n) => report.behind = n,
            Err(e) => report.errors.push(format!("{e:#}")),
        }
    }
    let removed = report.pulled.deleted + report.pulled.updated > 0;
    if removed && !in_place {
        // Forgotten or scrubbed elsewhere, in a database from before deletions erased in place:
        // once, leave no trace the old way; from then on they do.
        let cleaned = crate::store::forget::leave_no_trace(&store.conn)
            .and_then(|()| crate::store::forget::erase_in_place(&store.conn));
        if let Err(e) = cleaned {
            crate::logging::warn(format!("sync: old text may remain in free pages: {e:#}"));
        }
    } else if removed {
        // Forgotten or scrubbed elsewhere and erased in place (forget::erases_in_place); the
        // old pages may still be in the WAL, which this empties. Readers that hold it up only
        // delay that to the next truncating checkpoint: the sync itself went through.
        match crate::store::forget::truncate_wal(&store.conn, 50) {
            Ok(true) => {}
            Ok(false) => crate::logging::warn(
                "sync: other processes kept the WAL from being emptied; old text of rows this sync removed may remain there until the next checkpoint",
            ),
            Err(e) => crate::logging::warn(format!("sync: {e:#}")),
        }
    } else if let Err(e) = store
        .conn
        .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()))
    {
        // Only folds what the sync wrote into the database (without a write lock, which hooks
        // would wait on); the WAL file is truncated by the next process that finds it large.
        crate::logging::warn(format!("sync: cannot checkpoint the database: {e:#}"));
    }
    Ok(Some(report))
}

/// Every synced table's columns and this device's embedding model, for applying pulled
/// documents.
fn shape(store: &Store, settings: &Settings) -> Result<local::Shape> {
    let columns = TABLES
        .iter()
        .map(|t| Ok((*t, crate::store::jsonl::table_columns(&store.conn, t)?)))
        .collect::<Result<HashMap<_, _>>>()?;
    Ok(local::Shape {
        columns,
        model: vectors::Ours::of(settings.data_dir()),
    })
}

fn pull_cursor(store: &Store) -> Result<i64> {
    Ok(local::state(&store.conn, "pull_seq")?
        .and_then(|s| s.parse().ok())
        .unwrap_or(0))
}

/// The connection and the deadline every round trip on it runs under.
struct Link<'a> {
    client: &'a mut postgres::Client,
    dog: &'a deadline::Watchdog,
}

/// A queued row as it goes to the server.
struct Outgoing {
    id: i64,
    upsert: server::Upsert,
    /// Its fields' hashes (the base of the next change once the server holds it).
    fields: Vec<u8>,
    /// The model of the vector it carries.
    vector_model: Option<String>,
    /// Whether it only brings the row's vector.
    vector_only: bool,
}

/// Rounds of a push: a row another device changed since this one's base is merged with the
/// server's revision and pushed again in the next round (a third conflict in a row waits for
/// the next sync).
const PUSH_ROUNDS: usize = 3;

fn push(
    store: &mut Store,
    link: &mut Link,
    settings: &Settings,
    me: &str,
    report: &mut Report,
) -> Result<()> {
    let mut batches = 0;
    for _ in 0..PUSH_ROUNDS {
        let conflicts = push_round(store, link, settings, me, report, &mut batches)?;
        if conflicts.is_empty() {
            break;
        }
        merge_conflicts(store, link, settings, me, &conflicts)?;
    }
    Ok(())
}

/// Sends the scrubs made here and applies those made elsewhere (src/store/fingerprint.rs):
/// each reaches the rows here of the projects this device shares and the scrub's writer may
/// see.
fn exchange_scrubs(
    store: &mut Store,
    link: &mut Link,
    settings: &Settings,
    me: &str,
    report: &mut Report,
) -> Result<()> {
    let ours: Vec<(String, String)> = store
        .conn
        .prepare(
            "SELECT fingerprint, replacement FROM scrub_ops WHERE device IS NULL AND pushed = 0",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if !ours.is_empty() {
        link.dog.within("sending scrubs", || {
            server::push_scrubs(link.client, me, &ours)
        })?;
        let tx = store.conn.transaction()?;
        for (fp, _) in &ours {
            tx.execute(
                "UPDATE scrub_ops SET pushed = 1 WHERE fingerprint = ?1",
                [fp],
            )?;
        }
        tx.commit()?;
    }
    loop {
        let after: i64 = local::state(&store.conn, "scrub_seq")?
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let theirs = link.dog.within("fetching scrubs", || {
            server::pull_scrubs(link.client, after)
        })?;
        let Some(last) = theirs.last().map(|s| s.seq) else {
            return Ok(());
        };
        for s in theirs {
            let known: bool = store.conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM scrub_ops WHERE fingerprint = ?1)",
                [&s.fingerprint],
                |r| r.get(0),
            )?;
            if s.device == me || known {
                continue;
            }
            let fingerprint = match crate::store::fingerprint::Fingerprint::decode(&s.fingerprint) {
                Ok(f) => f,
                Err(e) => {
                    crate::logging::warn(format!("sync: ignored a scrub from {}: {e:#}", s.device));
                    continue;
                }
            };
            let projects = shared_projects(store, settings)?;
            let scope = link.dog.within("a scrub's reach", || {
                server::visible_to(link.client, &projects, &s.role)
            })?;
            crate::store::forget::scrub_from_elsewhere(
                store,
                &crate::store::forget::Pattern::Fingerprints(vec![fingerprint]),
                &s.replacement,
                &scope,
            )?;
            store.conn.execute(
                "INSERT INTO scrub_ops (fingerprint, replacement, device, scope, at, pushed)
                 VALUES (?1, ?2, ?3, ?4, ?5, 1) ON CONFLICT DO NOTHING",
                rusqlite::params![
                    s.fingerprint,
                    s.replacement,
                    s.device,
                    scope.join("\n"),
                    crate::clock::now_ms()
                ],
            )?;
            report.scrubs_applied += 1;
        }
        local::set_state(&store.conn, "scrub_seq", &last.to_string())?;
    }
}

/// The projects of the rows here that this device shares.
fn shared_projects(store: &Store, settings: &Settings) -> Result<Vec<String>> {
    let all: Vec<String> = store
        .conn
        .prepare(
            "SELECT project FROM sessions UNION SELECT project FROM observations
             UNION SELECT project FROM session_summaries UNION SELECT project FROM tool_uses
             UNION SELECT project FROM work_state_entries",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(all
        .into_iter()
        .filter(|p| shared(settings, "observations", p))
        .collect())
}

/// Work-state entries fold in the server's order (src/model/work_state.rs): this device's
/// entries the server holds, and entries pulled before the order was kept, learn their place.
fn order_work_state(store: &mut Store, link: &mut Link) -> Result<()> {
    const TABLE: &str = "work_state_entries";
    let mut after = 0;
    loop {
        let keys: Vec<(i64, String, i64)> = store
            .conn
            .prepare_cached(
                "SELECT local_id, device, remote_id FROM sync_map
                 WHERE tbl = ?1 AND seq IS NULL AND rev IS NOT NULL AND local_id > ?2
                 ORDER BY local_id LIMIT 1000",
            )?
            .query_map(rusqlite::params![TABLE, after], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?
            .collect::<rusqlite::Result<_>>()?;
        let Some(last) = keys.last().map(|k| k.0) else {
            return Ok(());
        };
        after = last;
        let ids: Vec<(String, i64)> = keys.into_iter().map(|(_, d, r)| (d, r)).collect();
        let held = link.dog.within("the work state's order", || {
            server::fetch(link.client, TABLE, &ids)
        })?;
        let tx = store.conn.transaction()?;
        for p in held {
            tx.prepare_cached(
                "UPDATE sync_map SET seq = ?1 WHERE tbl = ?2 AND device = ?3 AND remote_id = ?4 AND seq IS NULL",
            )?
            .execute(rusqlite::params![p.seq, TABLE, p.device, p.remote_id])?;
        }
        tx.commit()?;
    }
}

/// Rows of one table the server holds a newer revision of than the one pushed was based on.
type Conflicts = Vec<(&'static str, Vec<(String, i64)>)>;

/// Fetches the server's revision of each conflicting row and applies it as a pull would:
/// the local change is merged into it (src/sync/merge.rs) and stays queued, now based on it.
fn merge_conflicts(
    store: &mut Store,
    link: &mut Link,
    settings: &Settings,
    me: &str,
    conflicts: &Conflicts,
) -> Result<()> {
    let shape = shape(store, settings)?;
    for (table, keys) in conflicts {
        let theirs = link.dog.within("a fetch of rows changed elsewhere", || {
            server::fetch(link.client, table, keys)
        })?;
        shape
            .model
            .load_if(theirs.iter().any(|p| vectors::carried(p.doc.as_deref())));
        let tx = store
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        local::apply(&tx, me, &theirs, &shape, crate::clock::now_ms())?;
        tx.commit()?;
    }
    Ok(())
}

fn push_round(
    store: &mut Store,
    link: &mut Link,
    settings: &Settings,
    me: &str,
    report: &mut Report,
    batches: &mut usize,
) -> Result<Conflicts> {
    let size = batch_size();
    let mut conflicts = Conflicts::new();
    for table in TABLES {
        let cols = crate::store::jsonl::table_columns(&store.conn, table)?;
        let mut after = 0;
        loop {
            let mut entries = local::queued(&store.conn, table, after, size)?;
            if entries.is_empty() {
                break;
            }
            let mut outgoing = Vec::new();
            let mut tombstones = Vec::new();
            let mut foreign_gone = Vec::new();
            let mut bytes = 0;
            for (n, (id, _)) in entries.iter().enumerate() {
                // Raw tool I/O rows can be large: a batch stops at a few megabytes.
                if bytes > BATCH_BYTES {
                    entries.truncate(n);
                    break;
                }
                let replica = local::replica(&store.conn, me, table, *id)?;
                let doc = local::doc_of(&store.conn, me, table, &cols, *id)?;
                let change = doc.as_ref().map(|d| local::change(&replica, d));
                match doc {
                    None => {
                        if replica.device != me {
                            foreign_gone.push(*id);
                        }
                        tombstones.push((replica.device, table.to_string(), replica.remote));
                    }
                    // Queued again but as the server last had it (a pulled row, a re-queue), or
                    // with a vector of its own where the server's revision carries one.
                    Some(_) if change == Some(local::Change::Nothing) => {}
                    Some(doc) if shared(settings, table, &doc.project) => {
                        bytes += doc.text.len();
                        let vector_model = doc.vector_model().map(String::from);
                        outgoing.push(Outgoing {
                            id: *id,
                            upsert: server::Upsert {
                                device: replica.device,
                                table: table.to_string(),
                                id: replica.remote,
                                project: doc.project,
                                doc: doc.text,
                                hash: doc.hash,
                                base: replica.rev,
                            },
                            vector_model,
                            fields: doc.fields,
                            vector_only: change == Some(local::Change::Vector),
                        })
                    }
                    Some(_) => report.kept_local += 1,
                }
            }
            after = entries.last().map_or(after, |e| e.0);
            let mut outcomes = Vec::new();
            if !outgoing.is_empty() || !tombstones.is_empty() {
                let upserts: Vec<server::Upsert> =
                    outgoing.iter().map(|o| o.upsert.clone()).collect();
                let pushed = match link.dog.within("a push", || {
                    server::push(link.client, me, &upserts, &tombstones)
                }) {
                    Ok(p) => p,
                    // One row the server cannot take must not hold back the others: find it.
                    Err(e) if upserts.len() + tombstones.len() > 1 && !link.client.is_closed() => {
                        crate::logging::warn(format!(
                            "sync: a {table} batch failed, pushing its rows one by one: {e:#}"
                        ));
                        one_by_one(link, me, &upserts, &tombstones)?
                    }
                    Err(e) => return Err(e),
                };
                outcomes = pushed.outcomes;
                report.server_changed += pushed.tombstones;
                *batches += 1;
                abort_at("push", *batches);
            }
            report.tombstones += tombstones.len();
            let tx = store
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            let mut keep = std::collections::HashSet::new();
            for (o, outcome) in outgoing.iter().zip(&outcomes) {
                let u = &o.upsert;
                match outcome {
                    server::Outcome::Written(rev) | server::Outcome::Same(rev) => {
                        if matches!(outcome, server::Outcome::Written(_)) {
                            report.server_changed += 1;
                        }
                        report.pushed += 1;
                        let base = local::Base {
                            rev: *rev,
                            hash: &u.hash,
                            fields: &o.fields,
                            seq: None,
                            vector_model: o.vector_model.as_deref(),
                        };
                        local::remember(&tx, table, (&u.device, u.id), o.id, Some(&base))?;
                    }
                    // Forgotten on another device, and the server vouches for the tombstone (one
                    // from before schema v2, which a teammate could forge, is written over when
                    // the row's own device pushes it: sql/004_unproven_tombstones.sql).
                    server::Outcome::Gone => {
                        report.pulled.deleted += 1;
                        local::gone(&tx, table, &u.device, u.id)?;
                        // Not a forget of this device's to push back: the outbox is off for it.
                        local::set_state(&tx, "outbox", "off")?;
                        local::drop_replica(&tx, table, o.id)?;
                        local::set_state(&tx, "outbox", "on")?;
                    }
                    // Only a vector, and the row moved on since: the pull that follows brings
                    // the server's revision, which keeps its own vector if it has one, or
                    // queues the row again for this one (local::apply). No merge to make.
                    server::Outcome::Conflict(_) if o.vector_only => {}
                    server::Outcome::Conflict(_) => {
                        keep.insert(o.id);
                        match conflicts.last_mut() {
                            Some((t, keys)) if *t == table => keys.push((u.device.clone(), u.id)),
                            _ => conflicts.push((table, vec![(u.device.clone(), u.id)])),
                        }
                    }
                    server::Outcome::Refused(why) => {
                        report.refused += 1;
                        report
                            .refusal
                            .get_or_insert_with(|| format!("{table} {}: {why}", o.id));
                        tx.execute(
                            "INSERT INTO sync_refused (tbl, row_id, why, at) VALUES (?1, ?2, ?3, ?4)
                             ON CONFLICT (tbl, row_id) DO UPDATE SET why = excluded.why, at = excluded.at",
                            rusqlite::params![table, o.id, why, crate::clock::now_ms()],
                        )?;
                    }
                }
            }
            entries.retain(|(id, _)| !keep.contains(id));
            local::sent(&tx, table, &entries)?;
            // Rows pulled later that point at what this device forgot are stored without the
            // link rather than kept for it.
            for (device, _, remote) in &tombstones {
                local::gone(&tx, table, device, *remote)?;
            }
            for id in foreign_gone {
                tx.execute(
                    "DELETE FROM sync_map WHERE tbl = ?1 AND local_id = ?2",
                    rusqlite::params![table, id],
                )?;
            }
            local::set_state(&tx, "last_push", &crate::clock::now_ms().to_string())?;
            tx.commit()?;
        }
    }
    Ok(conflicts)
}

/// A batch the server refused as a whole, pushed row by row: each row that still fails is
/// refused with the server's reason; a lost connection ends the push.
fn one_by_one(
    link: &mut Link,
    me: &str,
    upserts: &[server::Upsert],
    tombstones: &[server::Tombstone],
) -> Result<server::Pushed> {
    let mut out = server::Pushed {
        outcomes: Vec::with_capacity(upserts.len()),
        tombstones: 0,
    };
    for u in upserts {
        let one = std::slice::from_ref(u);
        match link
            .dog
            .within("a push", || server::push(link.client, me, one, &[]))
        {
            Ok(p) => out.outcomes.extend(p.outcomes),
            Err(e) if !link.client.is_closed() => out
                .outcomes
                .push(server::Outcome::Refused(format!("{e:#}"))),
            Err(e) => return Err(e),
        }
    }
    for t in tombstones {
        let one = std::slice::from_ref(t);
        match link
            .dog
            .within("a push", || server::push(link.client, me, &[], one))
        {
            Ok(p) => out.tombstones += p.tombstones,
            Err(e) if !link.client.is_closed() => crate::logging::warn(format!(
                "sync: the server refused the deletion of {} {}: {e:#}",
                t.1, t.2
            )),
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

/// A pull's local writes go in short transactions, so that a hook waiting for the write lock
/// (its busy handler tries again every millisecond) gets it between two of them: each commits
/// after this many rows or this much work, whichever comes first.
const STEP_ROWS: usize = 100;
const STEP_TIME: Duration = Duration::from_millis(5);
/// The pause after each commit: long enough for a waiting hook's next try to fall into it.
const STEP_PAUSE: Duration = Duration::from_millis(2);
/// See `pull`: 200 pages of 4 KiB, below `WAL_CHECKPOINT_BYTES` (1 MiB) in src/store.
const PULL_WAL_PAGES: u32 = 200;
/// The pull's scheduling priority (`nice`), below the hooks' 0.
const PULL_NICENESS: libc::c_int = 10;

fn pull(
    store: &mut Store,
    link: &mut Link,
    settings: &Settings,
    me: &str,
    report: &mut Report,
) -> Result<()> {
    // A cursor past anything the server handed out was moved by a forged row (servers before
    // schema v2 let roles choose `seq`): pull everything again, which is idempotent.
    let last_seq = link
        .dog
        .within("the sequence check", || server::last_seq(link.client))?;
    if pull_cursor(store)? > last_seq {
        crate::logging::warn(
            "sync: the pull cursor was past the server's last sequence number; pulling everything again",
        );
        local::set_state(&store.conn, "pull_seq", "0")?;
    }
    // Hooks of this device run beside the pull and must not wait for it: on a busy machine the
    // scheduler serves them first (the pull is in no hurry; only a privileged process could
    // raise its priority again, and it need not).
    // SAFETY: setpriority has no memory-safety preconditions; a failure leaves the priority.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, PULL_NICENESS);
    }
    // What the pull writes is folded into the database as it goes, by passive checkpoints
    // after the commits that leave the WAL past this many pages (they take no write lock): the
    // WAL stays under the size at which every hook, on exit, would fold it back itself.
    store
        .conn
        .execute_batch(&format!("PRAGMA wal_autocheckpoint = {PULL_WAL_PAGES}"))?;
    let pulled = pull_steps(store, link, settings, me, report);
    store.conn.execute_batch("PRAGMA wal_autocheckpoint = 0")?;
    pulled?;
    report.pulled.waiting = local::kept(&store.conn)?;
    Ok(())
}

fn pull_steps(
    store: &mut Store,
    link: &mut Link,
    settings: &Settings,
    me: &str,
    report: &mut Report,
) -> Result<()> {
    let size = batch_size() as i64;
    let shape = shape(store, settings)?;
    // The model is loaded before a transaction that may store a pulled vector, if one may:
    // hooks wait for the transaction, not for the sync. Kept rows may come out in any step.
    shape.model.load_if(local::kept_carry_vectors(&store.conn)?);
    // Kept rows whose parent came some other way since the last pull (a push maps this
    // device's own rows): one look at all of them, then each step looks only at its own rows.
    let tx = store
        .conn
        .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let kept = local::apply_kept(&tx, me, &shape, crate::clock::now_ms())?;
    tx.commit()?;
    report.pulled.add(kept);
    let mut steps = 0;
    'batches: loop {
        let mut cursor = pull_cursor(store)?;
        let rows = link
            .dog
            .within("a pull", || server::pull(link.client, me, cursor, size))?;
        if rows.is_empty() {
            break;
        }
        shape.model.load_if(
            rows.iter()
                .any(|r| vectors::carried(r.pulled.doc.as_deref())),
        );
        let seqs: Vec<i64> = rows.iter().map(|r| r.seq).collect();
        // The rows to store, in server order; `before[i]`: how many of them come before row i;
        // `place[k]`: where the k-th of them is among all rows.
        let mut wanted = Vec::with_capacity(rows.len());
        let mut before = Vec::with_capacity(rows.len() + 1);
        let mut place = Vec::with_capacity(rows.len());
        for (i, r) in rows.into_iter().enumerate() {
            before.push(wanted.len());
            if shared(settings, &r.pulled.table, &r.pulled.project) {
                wanted.push(r.pulled);
                place.push(i);
            }
        }
        before.push(wanted.len());
        let mut at = 0;
        while at < seqs.len() {
            let tx = store
                .conn
                .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
            // Another sync may have moved the cursor since it was read (the lock file makes
            // that rare); the rows are then already here.
            let now: i64 = local::state(&tx, "pull_seq")?
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            if now != cursor {
                continue 'batches;
            }
            let started = Instant::now();
            let limit = (at + STEP_ROWS).min(seqs.len());
            let (from, to) = (before[at], before[limit]);
            let (mut applied, took) = local::apply_until(
                &tx,
                me,
                &wanted[from..to],
                &shape,
                crate::clock::now_ms(),
                Some(started + STEP_TIME),
            )?;
            // Up to the next row to store: the rows not shared here in between go along.
            let end = if from + took < to {
                place[from + took]
            } else {
                limit
            };
            applied.skipped += (end - at) - took;
            steps += 1;
            abort_at("pull", steps);
            // The cursor moves to the last row this transaction applied, with those rows: a
            // sync killed anywhere resumes right after them.
            cursor = seqs[end - 1];
            local::set_state(&tx, "pull_seq", &cursor.to_string())?;
            local::set_state(&tx, "last_pull", &crate::clock::now_ms().to_string())?;
            tx.commit()?;
            report.pulled.add(applied);
            at = end;
            breathe();
        }
    }
    Ok(())
}

/// Between two of a pull's transactions: pauses for hooks waiting to write.
fn breathe() {
    std::thread::sleep(STEP_PAUSE);
}

/// `cmem sync init`: the server schema (and its row-level security).
pub(crate) fn init(settings: &Settings) -> Result<(String, i32, i32)> {
    let target = conn::parse(url(settings)?)?;
    let mut client = conn::connect(&target)?;
    let (before, after) = server::init(&mut client)?;
    Ok((conn::describe(&target.config), before, after))
}

/// `cmem sync grant ROLE PROJECT`.
pub(crate) fn grant(settings: &Settings, role: &str, project: &str) -> Result<()> {
    let target = conn::parse(url(settings)?)?;
    let mut client = conn::connect(&target)?;
    server::check(&mut client)?;
    server::grant(&mut client, role, project)
}

/// What `cmem sync status` shows.
pub(crate) struct Status {
    pub server: Option<String>,
    pub device: Option<String>,
    pub device_name: String,
    pub last_push: Option<i64>,
    pub last_pull: Option<i64>,
    pub waiting: i64,
    pub pulled_rows: i64,
    /// The last sync's failure (when, why), until a sync succeeds.
    pub last_error: Option<(i64, String)>,
    /// Rows the server refused: how many, and the newest (table, id, why).
    pub refused: i64,
    pub refusal: Option<(String, i64, String)>,
    /// Pulled rows waiting for their parent.
    pub kept: usize,
    /// Revisions of other devices on the server not pulled yet, or why the server could not
    /// be asked.
    pub behind: Option<Result<i64, String>>,
}

pub(crate) fn status(settings: &Settings, ask_server: bool) -> Result<Status> {
    let store = open(settings)?;
    let num = |k: &str| -> Result<Option<i64>> {
        Ok(local::state(&store.conn, k)?.and_then(|v| v.parse().ok()))
    };
    let device = local::state(&store.conn, "device")?;
    let mut st = Status {
        server: settings.sync.url.as_deref().map(conn::redact),
        device: device.clone(),
        device_name: device_name(),
        last_push: num("last_push")?,
        last_pull: num("last_pull")?,
        waiting: local::waiting(&store.conn)?,
        pulled_rows: store
            .conn
            .query_row("SELECT COUNT(*) FROM sync_map", [], |r| r.get(0))?,
        behind: None,
        last_error: local::state(&store.conn, "last_error")?.and_then(|v| {
            let (at, why) = v.split_once('|')?;
            Some((at.parse().ok()?, why.to_string()))
        }),
        refused: store
            .conn
            .query_row("SELECT COUNT(*) FROM sync_refused", [], |r| r.get(0))?,
        refusal: store
            .conn
            .query_row(
                "SELECT tbl, row_id, why FROM sync_refused ORDER BY at DESC LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?,
        kept: local::kept(&store.conn)?,
    };
    if ask_server && let Some(url) = settings.sync.url.as_deref() {
        let cursor = pull_cursor(&store)?;
        let me = device.unwrap_or_default();
        st.behind = Some(
            (|| -> Result<i64> {
                let mut client = conn::connect(&conn::parse(url)?)?;
                server::check(&mut client)?;
                server::behind(&mut client, &me, cursor)
            })()
            .map_err(|e| format!("{e:#}")),
        );
    }
    Ok(st)
}
