//! The SQLite half of sync: this data dir's device id, the outbox of rows to push, rows as
//! documents with global references, and applying rows pulled from other devices.

use std::collections::HashMap;

use anyhow::{Context, Result};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{merge, vectors};
use crate::store::fingerprint::{Fingerprint, hex};
use crate::store::jsonl::{REFERENCES, insert_sql, to_json, to_sql};
use crate::store::transfer::TABLES;

pub(crate) fn state(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM sync_state WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .optional()?)
}

pub(crate) fn set_state(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// The device id, made on the first sync: from then on the triggers queue every change, and
/// every row already in the database is queued once. A data dir copied to another machine or
/// another folder gets a new id (`home` differs): two copies under one id would overwrite each
/// other's rows, which share local ids from the copy on. Returns the id, and the one it was
/// copied from when it was made just now for a copy.
pub(crate) fn ensure_device(
    conn: &mut Connection,
    data_dir: &std::path::Path,
) -> Result<(String, Option<String>)> {
    let home = home_of(data_dir);
    if let Some(d) = state(conn, "device")?
        && state(conn, "home")?.as_deref() == Some(home.as_str())
    {
        ensure_triggers(conn)?;
        return Ok((d, None));
    }
    let mut copied_from = None;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let device = match (state(&tx, "device")?, state(&tx, "home")?) {
        (Some(d), Some(h)) if h == home => d,
        // Made before homes were kept: this is its home.
        (Some(d), None) => d,
        (old, _) => {
            let mut bytes = [0u8; 8];
            getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no random device id: {e}"))?;
            let device: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            if let Some(old) = old {
                crate::logging::warn(format!(
                    "sync: this data dir was copied from device {old} (another machine or folder); it syncs as device {device} from now on"
                ));
                set_state(&tx, "copied_from", &old)?;
                copied_from = Some(old);
            }
            set_state(&tx, "device", &device)?;
            device
        }
    };
    set_state(&tx, "home", &home)?;
    set_state(&tx, "outbox", "on")?;
    tx.commit()?;
    ensure_triggers(conn)?;
    Ok((device, copied_from))
}

/// Where a data dir lives: this machine's id and the data dir's real path.
fn home_of(data_dir: &std::path::Path) -> String {
    let machine = ["/etc/machine-id", "/var/lib/dbus/machine-id"]
        .iter()
        .find_map(|p| {
            std::fs::read_to_string(p)
                .ok()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
        })
        .unwrap_or_else(super::device_name);
    let dir = std::fs::canonicalize(data_dir).unwrap_or_else(|_| data_dir.to_path_buf());
    format!("{machine}:{}", dir.display())
}

const TRIGGERS: &str = include_str!("sql/outbox_triggers.sql");

/// Creates the outbox triggers on the first sync, and again when a new cmem brings changed
/// ones (a table added to sync); either way every row is queued once, in the same transaction.
fn ensure_triggers(conn: &mut Connection) -> Result<()> {
    let version: String = Sha256::digest(TRIGGERS.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    if state(conn, "triggers")?.as_deref() == Some(version.as_str()) {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let old: Vec<String> = tx
        .prepare("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync\\_%' ESCAPE '\\'")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for name in old {
        tx.execute_batch(&format!("DROP TRIGGER \"{name}\""))?;
    }
    tx.execute_batch(TRIGGERS)
        .context("cannot create the sync outbox triggers")?;
    queue_all(&tx)?;
    set_state(&tx, "triggers", &version)?;
    tx.commit()?;
    Ok(())
}

/// Queues every row (a first sync, or a change of what is shared).
pub(crate) fn queue_all(tx: &Transaction) -> Result<()> {
    for t in TABLES {
        tx.execute(
            &format!(
                "INSERT INTO sync_outbox (tbl, row_id) SELECT '{t}', id FROM {t} WHERE true
                 ON CONFLICT (tbl, row_id) DO NOTHING"
            ),
            [],
        )?;
    }
    Ok(())
}

/// Pulled rows kept until their parent arrives.
pub(crate) fn kept(conn: &Connection) -> Result<usize> {
    let n: i64 = conn.query_row("SELECT COUNT(*) FROM sync_pending", [], |r| r.get(0))?;
    Ok(n as usize)
}

/// Whether a kept row may carry a vector (`vectors::carried`).
pub(crate) fn kept_carry_vectors(conn: &Connection) -> Result<bool> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM sync_pending WHERE instr(pulled, ?1) > 0)")?
        .query_row([vectors::KEY], |r| r.get(0))?)
}

pub(crate) fn waiting(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM sync_outbox", [], |r| r.get(0))?)
}

/// Up to `limit` queued rows of `table` after `after`: (row id, generation).
pub(crate) fn queued(
    conn: &Connection,
    table: &str,
    after: i64,
    limit: usize,
) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT row_id, gen FROM sync_outbox WHERE tbl = ?1 AND row_id > ?2 ORDER BY row_id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![table, after, limit as i64], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// What sync knows of a local row: its global identity (where it came from, or this device)
/// and, once the server holds it, the revision it was last in step with and its document's
/// hash then.
pub(crate) struct Replica {
    pub device: String,
    pub remote: i64,
    pub rev: Option<i64>,
    pub hash: Option<String>,
    /// Each field's hash in that revision (src/sync/merge.rs).
    pub fields: Option<Vec<u8>>,
    /// The model of the vector that revision carries, when known.
    pub vector_model: Option<String>,
}

pub(crate) fn replica(conn: &Connection, me: &str, table: &str, id: i64) -> Result<Replica> {
    let mut stmt = conn.prepare_cached(
        "SELECT device, remote_id, rev, hash, fields, vector_model FROM sync_map
         WHERE tbl = ?1 AND local_id = ?2",
    )?;
    Ok(stmt
        .query_row(params![table, id], |r| {
            Ok(Replica {
                device: r.get(0)?,
                remote: r.get(1)?,
                rev: r.get(2)?,
                hash: r.get(3)?,
                fields: r.get(4)?,
                vector_model: r.get(5)?,
            })
        })
        .optional()?
        .unwrap_or_else(|| Replica {
            device: me.to_string(),
            remote: id,
            rev: None,
            hash: None,
            fields: None,
            vector_model: None,
        }))
}

/// The global identity of a local row.
pub(crate) fn identity(conn: &Connection, me: &str, table: &str, id: i64) -> Result<(String, i64)> {
    let r = replica(conn, me, table, id)?;
    Ok((r.device, r.remote))
}

/// A server revision a local row is in step with: the base of its next local change.
pub(crate) struct Base<'a> {
    pub rev: i64,
    /// Its document's hash and its fields' hashes.
    pub hash: &'a str,
    pub fields: &'a [u8],
    /// Its place in the server's order, when pulled. The first one a row is seen with stays
    /// (the work state folds by it: a later revision, a scrub, must not move an entry).
    pub seq: Option<i64>,
    /// The model of the vector it carries.
    pub vector_model: Option<&'a str>,
}

/// Records that local row `local` is the replica of `(device, remote)`, in step with `base`
/// (`None`: mapped, not in step with any revision yet). A pulled row is stamped with when it
/// arrived, by this device's clock. A local row already mapped to another identity (the same
/// session reached this device twice) keeps its mapping.
pub(crate) fn remember(
    conn: &Connection,
    table: &str,
    (device, remote): (&str, i64),
    local: i64,
    base: Option<&Base>,
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO sync_map (tbl, device, remote_id, local_id, rev, hash, fields, seq, arrived,
                               vector_model)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, CASE WHEN ?8 IS NULL THEN NULL ELSE ?9 END, ?10)
         ON CONFLICT (tbl, device, remote_id) DO UPDATE
             SET local_id = excluded.local_id, rev = excluded.rev, hash = excluded.hash,
                 fields = excluded.fields, vector_model = excluded.vector_model,
                 seq = COALESCE(sync_map.seq, excluded.seq),
                 arrived = COALESCE(sync_map.arrived, excluded.arrived)
         ON CONFLICT DO NOTHING",
    )?;
    stmt.execute(params![
        table,
        device,
        remote,
        local,
        base.map(|b| b.rev),
        base.map(|b| b.hash),
        base.map(|b| b.fields),
        base.and_then(|b| b.seq),
        crate::clock::now_ms(),
        base.and_then(|b| b.vector_model),
    ])?;
    Ok(())
}

/// A row ready to push: its project (what sharing and row-level security go by), the
/// document (every column but the id, references as `device:id`) and the document's hash.
pub(crate) struct Doc {
    pub project: String,
    pub map: Map<String, Value>,
    pub text: String,
    pub hash: String,
    /// Each field's hash, encoded (src/sync/merge.rs).
    pub fields: Vec<u8>,
}

/// The row as a document, or `None` when it is gone (forgotten: push a tombstone).
pub(crate) fn doc_of(
    conn: &Connection,
    me: &str,
    table: &str,
    cols: &[String],
    id: i64,
) -> Result<Option<Doc>> {
    let list = cols
        .iter()
        .map(|c| format!("\"{c}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let mut stmt = conn.prepare_cached(&format!("SELECT {list} FROM {table} WHERE id = ?1"))?;
    let values: Option<Vec<Sql>> = stmt
        .query_row([id], |r| {
            (0..cols.len()).map(|i| r.get::<_, Sql>(i)).collect()
        })
        .optional()?;
    let Some(values) = values else {
        return Ok(None);
    };
    let mut map = Map::new();
    let mut project = String::new();
    let mut session = None;
    for (c, v) in cols.iter().zip(values) {
        if c == "id" {
            continue;
        }
        if c == "project"
            && let Sql::Text(p) = &v
        {
            project = p.clone();
        }
        if c == "session_id"
            && let Sql::Integer(s) = v
        {
            session = Some(s);
        }
        let reference = REFERENCES
            .iter()
            .find(|(t, col, _)| *t == table && col == c)
            .map(|(_, _, target)| *target);
        let value = match (reference, v) {
            (Some(target), Sql::Integer(local)) => {
                let (device, remote) = identity(conn, me, target, local)?;
                Value::String(format!("{device}:{remote}"))
            }
            // Rows stored before capture removed NUL still hold it; jsonb refuses it.
            (_, Sql::Text(t)) if t.contains('\0') => {
                Value::String(crate::privacy::without_nul(&t).into_owned())
            }
            (_, v) => to_json(v),
        };
        map.insert(c.clone(), value);
    }
    if table == "user_prompts"
        && let Some(s) = session
    {
        project = conn
            .query_row("SELECT project FROM sessions WHERE id = ?1", [s], |r| {
                r.get(0)
            })
            .optional()?
            .unwrap_or_default();
    }
    // Last, after the columns: the vector travels with its record (src/sync/vectors.rs).
    if let Some(v) = vectors::of_row(conn, table, id)? {
        map.insert(vectors::KEY.into(), v);
    }
    Ok(Some(Doc::new(project, map)))
}

/// What a queued row would change on the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// Nothing worth a push: the server holds the row as it is here, or only the vector differs
    /// and the server's revision carries one that stays (src/sync/vectors.rs).
    Nothing,
    /// Only the vector, which the server's revision lacks, or carries of another model than
    /// the built-in one this vector is of.
    Vector,
    /// The row.
    Row,
}

pub(crate) fn change(replica: &Replica, doc: &Doc) -> Change {
    match (replica.hash.as_deref(), replica.fields.as_deref()) {
        (None, _) => Change::Row,
        (Some(h), _) if h == doc.hash => Change::Nothing,
        (Some(_), None) => Change::Row,
        (Some(_), Some(fields)) => {
            let base = merge::decode(Some(fields));
            if merge::differs_beside(&base, &merge::decode(Some(&doc.fields)), vectors::KEY) {
                Change::Row
            } else if merge::has(&base, vectors::KEY)
                && !vectors::replaces(replica.vector_model.as_deref(), doc.vector_model())
            {
                Change::Nothing
            } else {
                Change::Vector
            }
        }
    }
}

impl Doc {
    /// The model of the vector the document carries.
    pub(crate) fn vector_model(&self) -> Option<&str> {
        self.map.get(vectors::KEY)?.get("model")?.as_str()
    }

    pub(crate) fn new(project: String, map: Map<String, Value>) -> Doc {
        // serde_json's map keeps insertion order (preserve_order): the text is the same
        // for the same row, and so is the hash.
        let text = serde_json::to_string(&map).unwrap_or_default();
        let hash = hex(&Sha256::digest(text.as_bytes()));
        let fields = merge::field_hashes(&map);
        Doc {
            project,
            map,
            text,
            hash,
            fields,
        }
    }
}

/// Drops pushed entries from the outbox unless the row changed again since (`gen`).
pub(crate) fn sent(tx: &Transaction, table: &str, entries: &[(i64, i64)]) -> Result<()> {
    let mut stmt =
        tx.prepare_cached("DELETE FROM sync_outbox WHERE tbl = ?1 AND row_id = ?2 AND gen = ?3")?;
    for (id, gen_) in entries {
        stmt.execute(params![table, id, gen_])?;
    }
    Ok(())
}

/// What applying pulled rows needs to know of this data dir: every synced table's columns,
/// and the model whose vectors it keeps.
pub(crate) struct Shape {
    pub columns: HashMap<&'static str, Vec<String>>,
    pub model: vectors::Ours,
}

/// A row revision from the server.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Pulled {
    pub device: String,
    pub table: String,
    pub remote_id: i64,
    pub project: String,
    pub deleted: bool,
    pub doc: Option<String>,
    pub writer: String,
    pub writer_name: String,
    pub writer_role: String,
    pub rev: i64,
    /// Its place in the server's order (kept rows stored before it was known read 0).
    #[serde(default)]
    pub seq: i64,
    /// A tombstone written before server schema v2, when any role could forge one.
    #[serde(default)]
    pub unproven: bool,
}

#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Applied {
    pub inserted: usize,
    pub updated: usize,
    pub deleted: usize,
    /// Rows not shared here, or that cannot be stored.
    pub skipped: usize,
    /// Rows kept until their parent (a prompt's session, …) arrives: after a pull, how many
    /// are kept in all.
    pub waiting: usize,
    /// Revisions refused because they name a local row they are not the replica of.
    pub refused: usize,
}

impl Applied {
    pub(crate) fn add(&mut self, o: Applied) {
        self.inserted += o.inserted;
        self.updated += o.updated;
        self.deleted += o.deleted;
        self.skipped += o.skipped;
        self.refused += o.refused;
    }
}

/// The local row that is the replica of a global identity, if there is one. Only the map
/// says so: a row of this device is mapped once the server holds it (a device id matching
/// proves nothing, anyone can write it).
fn local_id(tx: &Transaction, table: &str, device: &str, remote: i64) -> Result<Option<i64>> {
    let mut stmt = tx.prepare_cached(
        "SELECT local_id FROM sync_map WHERE tbl = ?1 AND device = ?2 AND remote_id = ?3",
    )?;
    Ok(stmt
        .query_row(params![table, device, remote], |r| r.get(0))
        .optional()?)
}

/// The project a local row belongs to (a prompt's is its session's).
fn local_project(tx: &Transaction, table: &str, id: i64) -> Result<Option<String>> {
    let sql = if table == "user_prompts" {
        "SELECT s.project FROM user_prompts p JOIN sessions s ON s.id = p.session_id WHERE p.id = ?1"
            .to_string()
    } else {
        format!("SELECT project FROM {table} WHERE id = ?1")
    };
    Ok(tx
        .prepare_cached(&sql)?
        .query_row([id], |r| r.get(0))
        .optional()?)
}

/// The row already here that a pulled row duplicates (the same session, tool use, prompt or
/// import origin reached both devices): the pulled row is mapped onto it instead.
fn same_row(tx: &Transaction, table: &str, row: &[(String, Sql)]) -> Result<Option<i64>> {
    let get = |c: &str| {
        row.iter()
            .find(|(k, _)| k == c)
            .map(|(_, v)| v.clone())
            .unwrap_or(Sql::Null)
    };
    let keys: &[&[&str]] = match table {
        "sessions" => &[&["platform_source", "content_session_id"], &["origin"]],
        "tool_uses" => &[&["content_session_id", "tool_use_id"], &["origin"]],
        "user_prompts" => &[&["content_session_id", "prompt_id"], &["origin"]],
        "observations" => &[&["session_id", "content_hash"], &["origin"]],
        _ => &[&["origin"]],
    };
    for key in keys {
        let values: Vec<Sql> = key.iter().map(|c| get(c)).collect();
        if values.contains(&Sql::Null) {
            continue;
        }
        let clause = key
            .iter()
            .enumerate()
            .map(|(i, c)| format!("\"{c}\" = ?{}", i + 1))
            .collect::<Vec<_>>()
            .join(" AND ");
        let found = tx
            .query_row(
                &format!("SELECT id FROM {table} WHERE {clause} LIMIT 1"),
                params_from_iter(values.iter()),
                |r| r.get(0),
            )
            .optional()?;
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// What applying one pulled revision came to.
enum Step {
    Inserted,
    Updated,
    Deleted,
    Skipped,
    Refused,
    /// Mapped onto the same row already here (it reached this device twice).
    Mapped,
    /// Its parent `(table, device, id)` is not here yet.
    Waits(&'static str, String, i64),
}

impl Step {
    /// Whether the row is here now, mapped to its identity (kept rows may wait for it).
    fn stores(&self) -> bool {
        matches!(self, Step::Inserted | Step::Updated | Step::Mapped)
    }
}

/// A row's identity as kept rows name the parent they wait for: (table, device, remote id).
type Identity = (String, String, i64);

/// Applies pulled revisions in a transaction the caller commits (with the new cursor), then
/// the kept rows that were waiting for one of the rows it stored.
pub(crate) fn apply(
    tx: &Transaction,
    me: &str,
    rows: &[Pulled],
    shape: &Shape,
    now_ms: i64,
) -> Result<Applied> {
    Ok(apply_until(tx, me, rows, shape, now_ms, None)?.0)
}

/// `apply`, stopping before a row that would likely end after `until` (by the slowest row so
/// far; one row at least): a row can take milliseconds (a forget or a scrub erases its words
/// from the full-text index page by page), and hooks wait for the transaction. Returns how
/// many rows it applied.
pub(crate) fn apply_until(
    tx: &Transaction,
    me: &str,
    rows: &[Pulled],
    shape: &Shape,
    now_ms: i64,
    until: Option<std::time::Instant>,
) -> Result<(Applied, usize)> {
    let mut out = Applied::default();
    let scrubs = known_scrubs(tx)?;
    let mut writers = std::collections::HashSet::new();
    let mut stored = Vec::new();
    let mut taken = 0;
    let mut slowest = std::time::Duration::ZERO;
    // The rows written here came from the server: they are not to be sent back.
    set_state(tx, "outbox", "off")?;
    for p in rows {
        let started = std::time::Instant::now();
        if taken > 0 && until.is_some_and(|u| started + slowest >= u) {
            break;
        }
        taken += 1;
        if p.writer != me && writers.insert(p.writer.as_str()) {
            tx.execute(
                "INSERT INTO sync_devices (device, name, role) VALUES (?1, ?2, ?3)
                 ON CONFLICT (device) DO UPDATE SET name = excluded.name, role = excluded.role",
                params![p.writer, p.writer_name, p.writer_role],
            )?;
        }
        // A newer revision replaces a kept one (or, a tombstone, drops it).
        tx.prepare_cached(
            "DELETE FROM sync_pending WHERE tbl = ?1 AND device = ?2 AND remote_id = ?3",
        )?
        .execute(params![p.table, p.device, p.remote_id])?;
        let step = apply_one(tx, me, p, shape, now_ms, &scrubs)?;
        // Rows kept for a parent that was just forgotten are stored now, without the link.
        if step.stores() || p.deleted {
            stored.push((p.table.clone(), p.device.clone(), p.remote_id));
        }
        tally(tx, &mut out, p, step)?;
        slowest = slowest.max(started.elapsed());
    }
    release(tx, me, stored, shape, now_ms, &scrubs, &mut out)?;
    set_state(tx, "outbox", "on")?;
    Ok((out, taken))
}

/// Applies every kept row whose parent is here by now, however it came (`apply` looks only
/// at the rows it stored itself; a row of this device is mapped when a push shares it): once
/// per pull, since it reads all kept rows.
pub(crate) fn apply_kept(
    tx: &Transaction,
    me: &str,
    shape: &Shape,
    now_ms: i64,
) -> Result<Applied> {
    let mut out = Applied::default();
    let here: Vec<Identity> = tx
        .prepare_cached(
            "SELECT DISTINCT p.wait_tbl, p.wait_device, p.wait_remote FROM sync_pending p
             JOIN sync_map m ON m.tbl = p.wait_tbl AND m.device = p.wait_device AND m.remote_id = p.wait_remote",
        )?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    if here.is_empty() {
        return Ok(out);
    }
    set_state(tx, "outbox", "off")?;
    release(tx, me, here, shape, now_ms, &known_scrubs(tx)?, &mut out)?;
    set_state(tx, "outbox", "on")?;
    Ok(out)
}

/// Applies the kept rows waiting for one of `parents`, and in turn those waiting for them.
/// Looked up by parent (an index), not by scanning every kept row: a pull stores its rows in
/// many short transactions, and a device that joins late can keep thousands of rows at once.
fn release(
    tx: &Transaction,
    me: &str,
    mut parents: Vec<Identity>,
    shape: &Shape,
    now_ms: i64,
    scrubs: &[KnownScrub],
    out: &mut Applied,
) -> Result<()> {
    while let Some((table, device, remote)) = parents.pop() {
        let ready: Vec<String> = tx
            .prepare_cached(
                "SELECT pulled FROM sync_pending WHERE wait_tbl = ?1 AND wait_device = ?2 AND wait_remote = ?3",
            )?
            .query_map(params![table, device, remote], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for text in ready {
            let p: Pulled = serde_json::from_str(&text).context("a kept sync row is unreadable")?;
            tx.prepare_cached(
                "DELETE FROM sync_pending WHERE tbl = ?1 AND device = ?2 AND remote_id = ?3",
            )?
            .execute(params![p.table, p.device, p.remote_id])?;
            let step = apply_one(tx, me, &p, shape, now_ms, scrubs)?;
            if step.stores() {
                parents.push((p.table.clone(), p.device.clone(), p.remote_id));
            }
            tally(tx, out, &p, step)?;
        }
    }
    Ok(())
}

fn tally(tx: &Transaction, out: &mut Applied, p: &Pulled, step: Step) -> Result<()> {
    match step {
        Step::Inserted => out.inserted += 1,
        Step::Updated => out.updated += 1,
        Step::Deleted => out.deleted += 1,
        Step::Skipped => out.skipped += 1,
        Step::Refused => out.refused += 1,
        Step::Mapped => {}
        Step::Waits(table, device, remote) => {
            tx.prepare_cached(
                "INSERT INTO sync_pending (tbl, device, remote_id, wait_tbl, wait_device, wait_remote, pulled)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (tbl, device, remote_id) DO UPDATE SET
                     wait_tbl = excluded.wait_tbl, wait_device = excluded.wait_device,
                     wait_remote = excluded.wait_remote, pulled = excluded.pulled",
            )?
            .execute(params![
                p.table,
                p.device,
                p.remote_id,
                table,
                device,
                remote,
                serde_json::to_string(p)?
            ])?;
            out.waiting += 1;
        }
    }
    Ok(())
}

/// Puts local row `id` of `table` in the outbox (again): the next push sends it.
fn requeue(tx: &Transaction, table: &str, id: i64) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO sync_outbox (tbl, row_id) VALUES (?1, ?2)
         ON CONFLICT (tbl, row_id) DO UPDATE SET gen = gen + 1",
    )?
    .execute(params![table, id])?;
    Ok(())
}

/// Deletes local row `id` of `table`, forgotten elsewhere. Tool uses here that point at a
/// forgotten observation lose the link, as those pulled after it is gone are stored without it.
/// (Rows of a forgotten session stay as before: a prompt cannot be without its session.)
pub(crate) fn drop_replica(tx: &Transaction, table: &str, id: i64) -> Result<()> {
    for (t, col, _) in REFERENCES
        .iter()
        .filter(|(_, _, target)| *target == table && table == "observations")
    {
        tx.execute(
            &format!("UPDATE {t} SET \"{col}\" = NULL WHERE \"{col}\" = ?1"),
            [id],
        )?;
    }
    tx.execute(&format!("DELETE FROM {table} WHERE id = ?1"), [id])?;
    tx.execute(
        "DELETE FROM sync_map WHERE tbl = ?1 AND local_id = ?2",
        params![table, id],
    )?;
    Ok(())
}

/// Notes that the server holds `(device, remote)` of `table` as forgotten.
pub(crate) fn gone(conn: &Connection, table: &str, device: &str, remote: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO sync_gone (tbl, device, remote_id) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
    )?
    .execute(params![table, device, remote])?;
    Ok(())
}

fn is_gone(conn: &Connection, table: &str, device: &str, remote: i64) -> Result<bool> {
    Ok(conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM sync_gone WHERE tbl = ?1 AND device = ?2 AND remote_id = ?3)",
        )?
        .query_row(params![table, device, remote], |r| r.get(0))?)
}

/// A scrub known here: its fingerprint, replacement and the projects it reaches (`None`: all).
pub(crate) struct KnownScrub {
    fingerprint: Fingerprint,
    replacement: String,
    scope: Option<Vec<String>>,
}

fn known_scrubs(conn: &Connection) -> Result<Vec<KnownScrub>> {
    let mut stmt = conn.prepare_cached("SELECT fingerprint, replacement, scope FROM scrub_ops")?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<String>>(2)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (fp, replacement, scope) = row?;
        match Fingerprint::decode(&fp) {
            Ok(fingerprint) => out.push(KnownScrub {
                fingerprint,
                replacement,
                scope: scope.map(|s| s.lines().map(str::to_lowercase).collect()),
            }),
            Err(e) => crate::logging::warn(format!("sync: a scrub kept here is unreadable: {e:#}")),
        }
    }
    Ok(out)
}

/// Re-applies the scrubs known here to a pulled row's text (a device that had not heard of
/// one pushed it); true when something was replaced.
fn scrub_pulled(row: &mut [(String, Sql)], project: &str, scrubs: &[KnownScrub]) -> bool {
    let project = project.to_lowercase();
    let mut changed = false;
    for s in scrubs {
        if s.scope.as_ref().is_some_and(|p| !p.contains(&project)) {
            continue;
        }
        for (_, v) in row.iter_mut() {
            if let Sql::Text(t) = v
                && let Some(new) = s.fingerprint.replace(t, &s.replacement)
            {
                *t = new;
                changed = true;
            }
        }
    }
    changed
}

fn apply_one(
    tx: &Transaction,
    me: &str,
    p: &Pulled,
    shape: &Shape,
    now_ms: i64,
    scrubs: &[KnownScrub],
) -> Result<Step> {
    let Some(table) = TABLES.iter().copied().find(|t| *t == p.table) else {
        return Ok(Step::Skipped);
    };
    let mut here = local_id(tx, table, &p.device, p.remote_id)?;
    if let Some(id) = here {
        match local_project(tx, table, id)? {
            // The server keeps another device's row in its project; a revision that moves it
            // is not this row's.
            Some(project) if !project.eq_ignore_ascii_case(&p.project) => {
                crate::logging::warn(format!(
                    "sync: ignored a revision of {table} {id} from {} that moves it from {project} to {}",
                    p.writer, p.project
                ));
                return Ok(Step::Refused);
            }
            Some(_) => {}
            // Gone here since (forgotten, or with its session): the mapping is stale.
            None => {
                tx.execute(
                    "DELETE FROM sync_map WHERE tbl = ?1 AND local_id = ?2",
                    params![table, id],
                )?;
                here = None;
            }
        }
    }
    if p.device == me && here.is_none() {
        // A revision of a row of this device that this device never shared: forged, or a row
        // forgotten here already. Nothing local is touched.
        return Ok(if p.deleted {
            Step::Skipped
        } else {
            Step::Refused
        });
    }
    if p.deleted && p.unproven && p.device == me {
        // A tombstone from before schema v2, which any role could forge, for a row this device
        // still has: the row stays, and goes out again so the server takes it back
        // (sql/004_unproven_tombstones.sql).
        if let Some(id) = here {
            // Not "as the server last had it" any more: the push sends it whole.
            tx.execute(
                "UPDATE sync_map SET hash = NULL WHERE tbl = ?1 AND local_id = ?2",
                params![table, id],
            )?;
            requeue(tx, table, id)?;
        }
        return Ok(Step::Skipped);
    }
    if p.deleted {
        gone(tx, table, &p.device, p.remote_id)?;
        let Some(id) = here else {
            return Ok(Step::Skipped);
        };
        drop_replica(tx, table, id)?;
        return Ok(Step::Deleted);
    }
    let Some(text) = &p.doc else {
        return Ok(Step::Skipped);
    };
    let pulled: Map<String, Value> = serde_json::from_str(text)
        .with_context(|| format!("the server holds a broken {table} row from {}", p.device))?;
    let cols = &shape.columns[table];
    // A row changed here that the server changed too (a scrub on each side): both changes
    // are kept, and the next push sends the merge based on this revision.
    let merged = match here {
        Some(id) => unpushed_change(tx, me, table, cols, id)?
            .map(|(mine, base)| merge_with(tx, table, cols, &mine, &base, &pulled, &p.project))
            .transpose()?,
        None => None,
    };
    let doc = merged.as_ref().map_or(&pulled, |(m, _)| m);
    let mut row: Vec<(String, Sql)> = Vec::new();
    for c in cols {
        if c == "id" {
            continue;
        }
        let Some(v) = doc.get(c) else { continue };
        let reference = REFERENCES
            .iter()
            .find(|(t, col, _)| *t == table && col == c)
            .map(|(_, _, target)| *target);
        let value = match (reference, v) {
            (Some(target), Value::String(global)) => {
                let Some((device, id)) = global
                    .rsplit_once(':')
                    .and_then(|(d, id)| Some((d, id.parse::<i64>().ok()?)))
                else {
                    row.push((c.clone(), Sql::Null));
                    continue;
                };
                match local_id(tx, target, device, id)? {
                    Some(id) => Sql::Integer(id),
                    None if is_gone(tx, target, device, id)? => {
                        // Its parent was forgotten: a prompt goes with its session, anything
                        // else is kept without the link.
                        if table == "user_prompts" {
                            return Ok(Step::Skipped);
                        }
                        Sql::Null
                    }
                    None => return Ok(Step::Waits(target, device.to_string(), id)),
                }
            }
            (_, v) => to_sql(v),
        };
        row.push((c.clone(), value));
    }
    // A turn another device has not observed yet must not be observed here as well.
    if table == "user_prompts"
        && let Some((_, v)) = row.iter_mut().find(|(k, _)| k == "observed_at_epoch")
        && *v == Sql::Null
    {
        *v = Sql::Integer(now_ms);
    }
    let scrubbed = scrub_pulled(&mut row, &p.project, scrubs);
    let identity = (p.device.as_str(), p.remote_id);
    let (id, step) = match here {
        Some(id) if table == "work_state_entries" => {
            // Append-only by trigger: a new revision (a scrub) replaces the entry whole.
            tx.execute("DELETE FROM work_state_entries WHERE id = ?1", [id])?;
            row.push(("id".into(), Sql::Integer(id)));
            insert(tx, table, &row)?;
            (id, Step::Updated)
        }
        // A revision that changes nothing here (one that only brings a vector, or everything
        // pulled again after a change of what is shared) writes nothing: an UPDATE would
        // rewrite the row's full-text entries and drop its vector for nothing.
        Some(id) if holds(tx, table, id, &row)? => (id, Step::Updated),
        Some(id) => {
            let sets = row
                .iter()
                .enumerate()
                .map(|(i, (k, _))| format!("\"{k}\" = ?{}", i + 2))
                .collect::<Vec<_>>()
                .join(", ");
            let mut values = vec![Sql::Integer(id)];
            values.extend(row.iter().map(|(_, v)| v.clone()));
            // The row's vector goes only if its text changes (the triggers compare old and new).
            tx.execute(
                &format!("UPDATE {table} SET {sets} WHERE id = ?1"),
                params_from_iter(values.iter()),
            )?;
            (id, Step::Updated)
        }
        None => {
            if insert(tx, table, &row)? {
                (tx.last_insert_rowid(), Step::Inserted)
            } else {
                match same_row(tx, table, &row)? {
                    Some(id) => (id, Step::Mapped),
                    None => return Ok(Step::Skipped),
                }
            }
        }
    };
    // The vector the revision carries, when the record has none here.
    vectors::keep_pulled(tx, &shape.model, table, id, &pulled, &p.writer)?;
    if matches!(step, Step::Updated) {
        let theirs = pulled_vector(&pulled);
        let theirs_model = theirs
            .as_ref()
            .and_then(|v| v.get("model")?.as_str().map(String::from));
        let here = vectors::model_here(tx, table, id)?;
        // The server's revision lacks the vector this record has here (its writer had none
        // yet, or is an older cmem), or carries another model's than the built-in one this
        // one is of (src/sync/vectors.rs): it goes out with the next push.
        if here.is_some()
            && (theirs.is_none() || vectors::replaces(theirs_model.as_deref(), here.as_deref()))
        {
            requeue(tx, table, id)?;
        }
    }
    // In step with this revision: the document as it reads here is the base of the next
    // local change (when merged, the pulled revision is the base, not what is stored). Its
    // vector is the one the revision carries, whichever this device keeps.
    let base = match merged {
        Some((_, base)) => Some(base),
        None if scrubbed => Some(in_local_order(cols, &pulled, &p.project)),
        None => match step {
            // What was just inserted, read from what was written rather than from the table
            // (a pull writes thousands of rows; reading each back cost a fifth of its time).
            Step::Inserted => as_inserted(table, cols, &row, &pulled, &p.project),
            _ => None,
        }
        .map_or_else(
            || Ok(doc_of(tx, me, table, cols, id)?.map(|d| with_vector_of(d, &pulled))),
            |d| anyhow::Ok(Some(d)),
        )?,
    };
    if scrubbed {
        // Stored scrubbed, unlike the server's revision: this device sends the scrubbed one.
        requeue(tx, table, id)?;
    }
    let base = base.as_ref().map(|d| Base {
        rev: p.rev,
        hash: &d.hash,
        fields: &d.fields,
        seq: Some(p.seq),
        vector_model: d.vector_model(),
    });
    remember(tx, table, identity, id, base.as_ref())?;
    Ok(step)
}

/// The local row's document and what sync knows of its base, when the row was changed here
/// since it was last in step with the server and that change is still queued.
fn unpushed_change(
    tx: &Transaction,
    me: &str,
    table: &str,
    cols: &[String],
    id: i64,
) -> Result<Option<(Doc, Replica)>> {
    let queued: bool = tx
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM sync_outbox WHERE tbl = ?1 AND row_id = ?2)")?
        .query_row(params![table, id], |r| r.get(0))?;
    if !queued {
        return Ok(None);
    }
    let base = replica(tx, me, table, id)?;
    let Some(mine) = doc_of(tx, me, table, cols, id)? else {
        return Ok(None);
    };
    // A vector made here since is no change to merge: the pulled revision's vector is the one
    // the row goes on with (see `change`).
    let changed = match (base.hash.as_deref(), base.fields.as_deref()) {
        (Some(h), _) if h == mine.hash => false,
        (Some(_), Some(fields)) => merge::differs_beside(
            &merge::decode(Some(fields)),
            &merge::decode(Some(&mine.fields)),
            vectors::KEY,
        ),
        _ => true,
    };
    Ok(changed.then_some((mine, base)))
}

/// This device's document merged with a pulled one, and the pulled one as it reads here (in
/// the local column order: the base the next push is compared with).
fn merge_with(
    tx: &Transaction,
    table: &str,
    cols: &[String],
    mine: &Doc,
    base: &Replica,
    pulled: &Map<String, Value>,
    project: &str,
) -> Result<(Map<String, Value>, Doc)> {
    let atomic: Vec<&str> = REFERENCES
        .iter()
        .filter(|(t, _, _)| *t == table)
        .map(|(_, c, _)| *c)
        .collect();
    // A vector is not a field to merge: the row's vector is the pulled revision's, stored
    // only if the merged text is still the text it was made from.
    let without_vector = |m: &Map<String, Value>| {
        let mut m = m.clone();
        m.shift_remove(vectors::KEY);
        m
    };
    let merged = merge::merge(
        &merge::decode(base.fields.as_deref()),
        &without_vector(&mine.map),
        &without_vector(pulled),
        &atomic,
        &scrub_markers(tx)?,
    );
    Ok((merged, in_local_order(cols, pulled, project)))
}

/// The document of a row just inserted from `row`, as `doc_of` would read it back: `None`
/// when the row leaves a column out (the table's default then decides, so only reading it
/// back tells).
fn as_inserted(
    table: &str,
    cols: &[String],
    row: &[(String, Sql)],
    pulled: &Map<String, Value>,
    project: &str,
) -> Option<Doc> {
    let mut map = Map::new();
    for c in cols.iter().filter(|c| *c != "id") {
        let (_, v) = row.iter().find(|(k, _)| k == c)?;
        let reference = REFERENCES.iter().any(|(t, col, _)| *t == table && col == c);
        let value = match (reference, v) {
            (true, Sql::Integer(_)) => pulled.get(c)?.clone(),
            (_, v) => to_json(v.clone()),
        };
        map.insert(c.clone(), value);
    }
    if let Some(v) = pulled_vector(pulled) {
        map.insert(vectors::KEY.into(), v);
    }
    Some(Doc::new(project.to_string(), map))
}

/// A pulled document as `doc_of` would read it once stored here (the local column order).
fn in_local_order(cols: &[String], pulled: &Map<String, Value>, project: &str) -> Doc {
    let mut in_order: Map<String, Value> = cols
        .iter()
        .filter_map(|c| Some((c.clone(), pulled.get(c)?.clone())))
        .collect();
    if let Some(v) = pulled_vector(pulled) {
        in_order.insert(vectors::KEY.into(), v);
    }
    Doc::new(project.to_string(), in_order)
}

/// The vector a pulled document carries, as `doc_of` would write it.
fn pulled_vector(pulled: &Map<String, Value>) -> Option<Value> {
    pulled
        .get(vectors::KEY)
        .filter(|v| !v.is_null())
        .map(vectors::canonical)
}

/// A local row's document with the pulled revision's vector in place of its own.
fn with_vector_of(doc: Doc, pulled: &Map<String, Value>) -> Doc {
    let theirs = pulled_vector(pulled);
    if theirs.is_none() && !doc.map.contains_key(vectors::KEY) {
        return doc;
    }
    let mut map = doc.map;
    map.shift_remove(vectors::KEY);
    if let Some(v) = theirs {
        map.insert(vectors::KEY.into(), v);
    }
    Doc::new(doc.project, map)
}

/// The replacements this device's scrubs wrote: where a merged text holds one, this device's
/// text wins (src/sync/merge.rs).
pub(crate) fn scrub_markers(conn: &Connection) -> Result<Vec<String>> {
    let mut markers = vec![crate::store::forget::SCRUBBED.to_string()];
    if let Some(more) = state(conn, crate::store::forget::MARKERS_KEY)? {
        markers.extend(more.lines().filter(|l| !l.is_empty()).map(str::to_string));
    }
    Ok(markers)
}

/// Whether local row `id` of `table` already holds these values.
fn holds(tx: &Transaction, table: &str, id: i64, row: &[(String, Sql)]) -> Result<bool> {
    if row.is_empty() {
        return Ok(true);
    }
    let list = row
        .iter()
        .map(|(k, _)| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(", ");
    let mut stmt = tx.prepare_cached(&format!("SELECT {list} FROM {table} WHERE id = ?1"))?;
    let here: Option<Vec<Sql>> = stmt
        .query_row([id], |r| {
            (0..row.len()).map(|i| r.get::<_, Sql>(i)).collect()
        })
        .optional()?;
    Ok(here.is_some_and(|here| here.iter().eq(row.iter().map(|(_, v)| v))))
}

/// `INSERT OR IGNORE`: false when a unique index already holds the row.
fn insert(tx: &Transaction, table: &str, row: &[(String, Sql)]) -> Result<bool> {
    let mut stmt = tx.prepare_cached(&insert_sql(
        "INSERT OR IGNORE",
        table,
        row.iter().map(|(k, _)| k.as_str()),
    ))?;
    let n = stmt
        .execute(params_from_iter(row.iter().map(|(_, v)| v)))
        .with_context(|| format!("cannot store a pulled {table} row"))?;
    Ok(n == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn triggers(conn: &Connection) -> i64 {
        conn.query_row(
            "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync\\_%' ESCAPE '\\'",
            [],
            |r| r.get(0),
        )
        .unwrap()
    }

    #[test]
    fn triggers_come_with_the_first_sync_and_are_renewed_when_they_change() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = crate::store::Store::open(&dir.path().join("cmem.db")).unwrap();
        let conn = &mut store.conn;
        conn.execute(
            "INSERT INTO work_state_entries (project, list_name, fields, created_at_epoch) VALUES ('p', 'l', '{}', 1)",
            [],
        )
        .unwrap();
        assert_eq!(triggers(conn), 0, "a data dir that never synced has none");
        let (device, _) = ensure_device(conn, dir.path()).unwrap();
        assert_eq!(triggers(conn), 19);
        assert_eq!(waiting(conn).unwrap(), 1, "rows from before are queued");
        conn.execute("DELETE FROM sync_outbox", []).unwrap();
        set_state(conn, "triggers", "an older cmem").unwrap();
        assert_eq!(
            ensure_device(conn, dir.path()).unwrap(),
            (device.clone(), None)
        );
        // The same database seen from another folder (a copy) is another device.
        let elsewhere = tempfile::tempdir().unwrap();
        let (copy, from) = ensure_device(conn, elsewhere.path()).unwrap();
        assert_ne!(copy, device);
        assert_eq!(from.as_deref(), Some(device.as_str()));
        assert_eq!(triggers(conn), 19);
        assert_eq!(
            waiting(conn).unwrap(),
            1,
            "changed triggers queue every row again"
        );
    }

    const DIMS: usize = 8;

    /// A device: a memory that has synced once (triggers on), and its device id.
    struct Device {
        _dir: tempfile::TempDir,
        store: crate::store::Store,
        me: String,
    }

    impl Device {
        fn new() -> Device {
            let dir = tempfile::tempdir().unwrap();
            let mut store = crate::store::Store::open(&dir.path().join("cmem.db")).unwrap();
            let (me, _) = ensure_device(&mut store.conn, dir.path()).unwrap();
            Device {
                _dir: dir,
                store,
                me,
            }
        }

        fn conn(&self) -> &Connection {
            &self.store.conn
        }

        fn cols(&self) -> Vec<String> {
            crate::store::jsonl::table_columns(self.conn(), "observations").unwrap()
        }

        fn observe(&self, title: &str) -> i64 {
            crate::store::observations::insert(
                self.conn(),
                &crate::store::observations::NewObservation::sample("p", "bugfix", title, 1),
            )
            .unwrap()
            .unwrap()
        }

        /// Stores a vector for observation `id`, as a backfill would.
        fn embed(&self, id: i64, model: &str, fill: u8) {
            let mut blob = 0.01f32.to_le_bytes().to_vec();
            blob.extend([fill; DIMS]);
            self.conn()
                .execute(
                    "INSERT OR REPLACE INTO record_vectors (kind, record_id, project, model, vector)
                     VALUES (0, ?1, 'p', ?2, ?3)",
                    params![id, model, blob],
                )
                .unwrap();
        }

        fn vector(&self, id: i64) -> Option<(String, Vec<u8>)> {
            self.conn()
                .query_row(
                    "SELECT model, vector FROM record_vectors WHERE kind = 0 AND record_id = ?1",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()
                .unwrap()
        }

        fn doc(&self, id: i64) -> Doc {
            doc_of(self.conn(), &self.me, "observations", &self.cols(), id)
                .unwrap()
                .unwrap()
        }

        /// Observation `id` as the server hands it to other devices: its document through
        /// jsonb, which orders an object's keys by length.
        fn as_pulled(&self, id: i64, rev: i64) -> Pulled {
            let mut map = self.doc(id).map;
            if let Some(Value::Object(v)) = map.get_mut(vectors::KEY) {
                let mut fields: Vec<(String, Value)> = std::mem::take(v).into_iter().collect();
                fields.sort_by(|x, y| x.0.len().cmp(&y.0.len()).then(x.0.cmp(&y.0)));
                *v = fields.into_iter().collect();
            }
            Pulled {
                device: self.me.clone(),
                table: "observations".into(),
                remote_id: id,
                project: "p".into(),
                deleted: false,
                doc: Some(serde_json::to_string(&map).unwrap()),
                writer: self.me.clone(),
                writer_name: "a".into(),
                writer_role: "r".into(),
                rev,
                seq: rev,
                unproven: false,
            }
        }

        /// The server took observation `id` as revision `rev` of this device's document.
        fn pushed(&self, id: i64, rev: i64) {
            let doc = self.doc(id);
            let (device, remote) = identity(self.conn(), &self.me, "observations", id).unwrap();
            let base = Base {
                rev,
                hash: &doc.hash,
                fields: &doc.fields,
                seq: None,
                vector_model: doc.vector_model(),
            };
            remember(
                self.conn(),
                "observations",
                (&device, remote),
                id,
                Some(&base),
            )
            .unwrap();
            self.conn().execute("DELETE FROM sync_outbox", []).unwrap();
        }

        fn pull(&mut self, p: &Pulled, model: &str) -> Applied {
            let shape = Shape {
                columns: TABLES
                    .iter()
                    .map(|t| {
                        (
                            *t,
                            crate::store::jsonl::table_columns(self.conn(), t).unwrap(),
                        )
                    })
                    .collect(),
                model: vectors::Ours::fixed(model, DIMS),
            };
            let me = self.me.clone();
            let tx = self.store.conn.transaction().unwrap();
            let applied = apply(&tx, &me, std::slice::from_ref(p), &shape, 1).unwrap();
            tx.commit().unwrap();
            applied
        }

        fn local_id_of(&self, p: &Pulled) -> i64 {
            self.conn()
                .query_row(
                    "SELECT local_id FROM sync_map WHERE device = ?1 AND remote_id = ?2",
                    params![p.device, p.remote_id],
                    |r| r.get(0),
                )
                .unwrap()
        }

        /// What pushing local observation `id` would change on the server.
        fn change_of(&self, id: i64) -> Change {
            change(
                &replica(self.conn(), &self.me, "observations", id).unwrap(),
                &self.doc(id),
            )
        }

        /// Whether the next push would send local observation `id`.
        fn would_push(&self, id: i64) -> bool {
            let queued = self
                .conn()
                .query_row(
                    "SELECT EXISTS (SELECT 1 FROM sync_outbox WHERE tbl = 'observations' AND row_id = ?1)",
                    [id],
                    |r| r.get::<_, bool>(0),
                )
                .unwrap();
            let replica = replica(self.conn(), &self.me, "observations", id).unwrap();
            queued && change(&replica, &self.doc(id)) != Change::Nothing
        }
    }

    #[test]
    fn a_vector_travels_with_its_row_to_a_device_of_the_same_model() {
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        a.embed(id, "m", 7);
        assert!(a.doc(id).map.contains_key(vectors::KEY));
        let p = a.as_pulled(id, 1);
        assert_eq!(b.pull(&p, "m").inserted, 1);
        let here = b.local_id_of(&p);
        assert_eq!(
            b.vector(here),
            a.vector(id),
            "the same vector, not embedded"
        );
        // In step with the server: the same document, so nothing to push back.
        assert_eq!(b.doc(here).hash, a.doc(id).hash);
        assert!(!b.would_push(here));
        assert_eq!(
            waiting(b.conn()).unwrap(),
            0,
            "a pulled vector queues nothing"
        );
        // Its own vector of the same record (another CPU's rounding) does not go over it.
        b.embed(here, "m", 8);
        assert_eq!(
            waiting(b.conn()).unwrap(),
            1,
            "a vector made here queues its row"
        );
        assert!(!b.would_push(here));
    }

    #[test]
    fn the_built_in_models_vector_replaces_another_once_and_nothing_replaces_it() {
        let built_in = crate::embed::e5::ID;
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        // Embedded before cmem's built-in model changed.
        a.embed(id, "potion-base-8M/int8", 7);
        let p = a.as_pulled(id, 1);
        assert_eq!(b.pull(&p, built_in).inserted, 1);
        let here = b.local_id_of(&p);
        assert_eq!(b.vector(here), None);
        b.embed(here, built_in, 9);
        assert_eq!(
            b.change_of(here),
            Change::Vector,
            "the new built-in model's vector goes to the server, so the team embeds it once"
        );
        b.pushed(here, 2);
        assert_eq!(b.change_of(here), Change::Nothing);
        // Made again here (another CPU's bytes, say): the server's is the built-in model's.
        b.embed(here, built_in, 5);
        assert!(!b.would_push(here));

        // A device on a model of its own never pushes over the built-in model's vector.
        let mut c = Device::new();
        let pb = Pulled {
            doc: Some(serde_json::to_string(&b.doc(here).map).unwrap()),
            ..p.clone()
        };
        c.pull(&pb, "installed-model");
        let there = c.local_id_of(&pb);
        c.embed(there, "installed-model", 3);
        assert!(!c.would_push(there));
    }

    #[test]
    fn a_revision_carrying_another_models_vector_queues_the_built_in_one_again() {
        let built_in = crate::embed::e5::ID;
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        a.embed(id, "installed-model", 7);
        let p = a.as_pulled(id, 1);
        b.pull(&p, built_in);
        let here = b.local_id_of(&p);
        b.embed(here, built_in, 9);
        // Its push was turned away (another revision came first) and dropped from the outbox.
        b.conn().execute("DELETE FROM sync_outbox", []).unwrap();
        assert!(!b.would_push(here));
        let mut p2 = a.as_pulled(id, 2);
        let doc = p2.doc.take().unwrap();
        p2.doc = Some(doc.replace(r#""concepts":"[]""#, r#""concepts":"[\"pool\"]""#));
        assert_eq!(b.pull(&p2, built_in).updated, 1);
        assert!(
            b.would_push(here),
            "the built-in model's vector goes out after all"
        );
        // And a device of another model is not queued by a revision of the built-in one.
        let mut c = Device::new();
        c.pull(&p, "installed-model");
        let there = c.local_id_of(&p);
        c.embed(there, "installed-model", 3);
        c.conn().execute("DELETE FROM sync_outbox", []).unwrap();
        let mut p3 = p2.clone();
        p3.rev = 3;
        p3.doc = Some(serde_json::to_string(&b.doc(here).map).unwrap());
        c.pull(&p3, "installed-model");
        assert!(!c.would_push(there));
    }

    #[test]
    fn only_the_built_in_model_replaces_a_vector_and_only_another_models() {
        let built_in = crate::embed::e5::ID;
        assert!(vectors::replaces(
            Some("potion-base-8M/int8"),
            Some(built_in)
        ));
        assert!(
            vectors::replaces(None, Some(built_in)),
            "synced before the model was kept"
        );
        assert!(!vectors::replaces(Some(built_in), Some(built_in)));
        assert!(!vectors::replaces(Some(built_in), Some("installed-model")));
        assert!(!vectors::replaces(
            Some("potion-base-8M/int8"),
            Some("installed-model")
        ));
        assert!(!vectors::replaces(Some("potion-base-8M/int8"), None));
    }

    #[test]
    fn another_models_vector_is_ignored_and_the_local_one_stays_home() {
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        a.embed(id, "m", 7);
        let p = a.as_pulled(id, 1);
        assert_eq!(b.pull(&p, "other").inserted, 1);
        let here = b.local_id_of(&p);
        assert_eq!(b.vector(here), None);
        b.embed(here, "other", 9);
        assert!(
            !b.would_push(here),
            "two models replacing each other's vector on every sync"
        );
        // A revision that leaves the text as it was keeps the vector made here: one that
        // changes nothing here, and one that changes another column.
        assert_eq!(b.pull(&a.as_pulled(id, 2), "other").updated, 1);
        assert_eq!(b.vector(here).unwrap().0, "other");
        let mut p = a.as_pulled(id, 3);
        let doc = p.doc.take().unwrap();
        p.doc = Some(doc.replace(r#""concepts":"[]""#, r#""concepts":"[\"pool\"]""#));
        assert_ne!(p.doc.as_deref(), Some(doc.as_str()));
        assert_eq!(b.pull(&p, "other").updated, 1);
        assert_eq!(b.vector(here).unwrap().0, "other");
        assert_eq!(
            b.doc(here).map["concepts"],
            Value::String(r#"["pool"]"#.into())
        );
    }

    #[test]
    fn a_vector_made_after_the_push_goes_out_and_replaces_nothing_stale() {
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        a.pushed(id, 1);
        let p = a.as_pulled(id, 1);
        assert_eq!(b.pull(&p, "m").inserted, 1);
        let here = b.local_id_of(&p);
        a.embed(id, "m", 7);
        assert!(a.would_push(id), "the server's revision has no vector");
        assert_eq!(a.change_of(id), Change::Vector);
        a.pushed(id, 2);
        assert_eq!(b.pull(&a.as_pulled(id, 2), "m").updated, 1);
        assert_eq!(b.vector(here), a.vector(id));
        assert!(!b.would_push(here));
        // A revision whose text is not the text here (a scrub here, a merge) brings no vector.
        let mut other = a.as_pulled(id, 3);
        other.doc = other
            .doc
            .map(|d| d.replace("\"Pool leaked\"", "\"Pool leaked again\""));
        assert_eq!(b.pull(&other, "m").updated, 1);
        assert_eq!(b.vector(here), None);
    }

    #[test]
    fn two_devices_that_embedded_one_record_keep_theirs_and_push_neither_over_the_other() {
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        a.pushed(id, 1);
        let p = a.as_pulled(id, 1);
        b.pull(&p, "m");
        let here = b.local_id_of(&p);
        // Both embed it before either syncs (another CPU, other rounding); A's push is first.
        b.embed(here, "m", 8);
        a.embed(id, "m", 7);
        a.pushed(id, 2);
        assert!(b.would_push(here), "B's vector waits in its outbox");
        // The pull is no change to merge, and rewrites nothing: B's vector, as good as A's,
        // stays, and the server keeps A's.
        assert_eq!(b.pull(&a.as_pulled(id, 2), "m").updated, 1);
        assert_eq!(b.vector(here).unwrap().1[4], 8);
        assert!(!b.would_push(here));
    }

    #[test]
    fn a_revision_without_the_vector_a_record_has_here_sends_it_again() {
        let (a, mut b) = (Device::new(), Device::new());
        let id = a.observe("Pool leaked");
        a.embed(id, "m", 7);
        let p = a.as_pulled(id, 1);
        b.pull(&p, "m");
        let here = b.local_id_of(&p);
        // An older cmem (or a device without the vector) writes the row again without it.
        let mut bare = a.as_pulled(id, 2);
        let mut map: Map<String, Value> =
            serde_json::from_str(bare.doc.as_deref().unwrap()).unwrap();
        map.shift_remove(vectors::KEY);
        bare.doc = Some(serde_json::to_string(&map).unwrap());
        assert_eq!(b.pull(&bare, "m").updated, 1);
        assert_eq!(b.vector(here), a.vector(id), "kept here");
        assert!(b.would_push(here));
        assert_eq!(b.change_of(here), Change::Vector);
    }

    #[test]
    fn a_malformed_vector_is_skipped_and_its_row_still_applies() {
        let (a, mut b) = (Device::new(), Device::new());
        for (n, bad) in [
            serde_json::json!("not an object"),
            serde_json::json!({"model": "m", "text_sha256": "00", "base64": "AAAA"}),
            serde_json::json!({"model": "m", "text_sha256": "0".repeat(64), "base64": "A".repeat(1 << 20)}),
        ]
        .into_iter()
        .enumerate()
        {
            let id = a.observe(&format!("Pool leaked {n}"));
            let mut p = a.as_pulled(id, 1);
            let mut map: Map<String, Value> =
                serde_json::from_str(p.doc.as_deref().unwrap()).unwrap();
            map.insert(vectors::KEY.into(), bad);
            p.doc = Some(serde_json::to_string(&map).unwrap());
            assert_eq!(b.pull(&p, "m").inserted, 1, "{map:?}");
            assert_eq!(b.vector(b.local_id_of(&p)), None);
        }
    }
}
