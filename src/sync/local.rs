//! The SQLite half of sync: this data dir's device id, the outbox of rows to push, rows as
//! documents with global references, and applying rows pulled from other devices.

use std::collections::HashMap;

use anyhow::{Context, Result};
use rusqlite::types::Value as Sql;
use rusqlite::{Connection, OptionalExtension, Transaction, params, params_from_iter};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::store::jsonl::{REFERENCES, insert_sql, to_json, to_sql};
use crate::store::transfer::TABLES;

pub fn state(conn: &Connection, key: &str) -> Result<Option<String>> {
    Ok(conn
        .query_row("SELECT value FROM sync_state WHERE key = ?1", [key], |r| {
            r.get(0)
        })
        .optional()?)
}

pub fn set_state(conn: &Connection, key: &str, value: &str) -> Result<()> {
    conn.execute(
        "INSERT INTO sync_state (key, value) VALUES (?1, ?2)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        params![key, value],
    )?;
    Ok(())
}

/// The device id, made on the first sync: from then on the triggers queue every change, and
/// every row already in the database is queued once.
pub fn ensure_device(conn: &mut Connection) -> Result<String> {
    if let Some(d) = state(conn, "device")? {
        ensure_triggers(conn)?;
        return Ok(d);
    }
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    if let Some(d) = state(&tx, "device")? {
        drop(tx);
        ensure_triggers(conn)?;
        return Ok(d);
    }
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no random device id: {e}"))?;
    let device: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    set_state(&tx, "device", &device)?;
    set_state(&tx, "outbox", "on")?;
    tx.commit()?;
    ensure_triggers(conn)?;
    Ok(device)
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
pub fn queue_all(tx: &Transaction) -> Result<()> {
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

pub fn waiting(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM sync_outbox", [], |r| r.get(0))?)
}

/// Up to `limit` queued rows of `table` after `after`: (row id, generation).
pub fn queued(conn: &Connection, table: &str, after: i64, limit: usize) -> Result<Vec<(i64, i64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT row_id, gen FROM sync_outbox WHERE tbl = ?1 AND row_id > ?2 ORDER BY row_id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![table, after, limit as i64], |r| {
        Ok((r.get(0)?, r.get(1)?))
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The global identity of a local row: where it came from, or this device.
pub fn identity(conn: &Connection, me: &str, table: &str, id: i64) -> Result<(String, i64)> {
    let mut stmt = conn.prepare_cached(
        "SELECT device, remote_id FROM sync_map WHERE tbl = ?1 AND local_id = ?2",
    )?;
    Ok(stmt
        .query_row(params![table, id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .unwrap_or_else(|| (me.to_string(), id)))
}

/// A row ready to push: its project (what sharing and row-level security go by), the
/// document (every column but the id, references as `device:id`) and the document's hash.
pub struct Doc {
    pub project: String,
    pub text: String,
    pub hash: String,
}

/// The row as a document, or `None` when it is gone (forgotten: push a tombstone).
pub fn doc(
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
    let text = Value::Object(map).to_string();
    let hash = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Some(Doc {
        project,
        text,
        hash,
    }))
}

/// Drops pushed entries from the outbox unless the row changed again since (`gen`).
pub fn sent(tx: &Transaction, table: &str, entries: &[(i64, i64)]) -> Result<()> {
    let mut stmt =
        tx.prepare_cached("DELETE FROM sync_outbox WHERE tbl = ?1 AND row_id = ?2 AND gen = ?3")?;
    for (id, gen_) in entries {
        stmt.execute(params![table, id, gen_])?;
    }
    Ok(())
}

/// A row revision from the server.
pub struct Pulled {
    pub device: String,
    pub table: String,
    pub remote_id: i64,
    pub project: String,
    pub deleted: bool,
    pub doc: Option<String>,
    pub writer: String,
    pub writer_name: String,
    pub writer_role: String,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Applied {
    pub inserted: usize,
    pub updated: usize,
    pub deleted: usize,
    /// Rows not shared here, or that cannot be stored (a prompt whose session never came).
    pub skipped: usize,
}

/// Where a global identity lives locally, if it does.
fn local_id(
    tx: &Transaction,
    me: &str,
    table: &str,
    device: &str,
    remote: i64,
) -> Result<Option<i64>> {
    if device == me {
        let mut stmt = tx.prepare_cached(&format!("SELECT id FROM {table} WHERE id = ?1"))?;
        return Ok(stmt.query_row([remote], |r| r.get(0)).optional()?);
    }
    let mut stmt = tx.prepare_cached(
        "SELECT local_id FROM sync_map WHERE tbl = ?1 AND device = ?2 AND remote_id = ?3",
    )?;
    Ok(stmt
        .query_row(params![table, device, remote], |r| r.get(0))
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

/// Applies pulled revisions in one transaction the caller commits (with the new cursor).
pub fn apply(
    tx: &Transaction,
    me: &str,
    rows: &[Pulled],
    columns: &HashMap<&'static str, Vec<String>>,
    now_ms: i64,
) -> Result<Applied> {
    let mut out = Applied::default();
    let mut writers = std::collections::HashSet::new();
    // The rows written here came from the server: they are not to be sent back.
    set_state(tx, "outbox", "off")?;
    for p in rows {
        let Some(table) = TABLES.iter().copied().find(|t| *t == p.table) else {
            out.skipped += 1;
            continue;
        };
        if p.writer != me && writers.insert(p.writer.as_str()) {
            tx.execute(
                "INSERT INTO sync_devices (device, name, role) VALUES (?1, ?2, ?3)
                 ON CONFLICT (device) DO UPDATE SET name = excluded.name, role = excluded.role",
                params![p.writer, p.writer_name, p.writer_role],
            )?;
        }
        let here = local_id(tx, me, table, &p.device, p.remote_id)?;
        if p.deleted {
            if let Some(id) = here {
                tx.execute(&format!("DELETE FROM {table} WHERE id = ?1"), [id])?;
                out.deleted += 1;
            }
            continue;
        }
        let Some(text) = &p.doc else {
            out.skipped += 1;
            continue;
        };
        let doc: Map<String, Value> = serde_json::from_str(text)
            .with_context(|| format!("the server holds a broken {table} row from {}", p.device))?;
        let mut row: Vec<(String, Sql)> = Vec::new();
        let mut orphan = false;
        for c in &columns[table] {
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
                    let resolved = match global.rsplit_once(':') {
                        Some((device, id)) => match id.parse::<i64>() {
                            Ok(id) => local_id(tx, me, target, device, id)?,
                            Err(_) => None,
                        },
                        None => None,
                    };
                    match resolved {
                        Some(id) => Sql::Integer(id),
                        None => {
                            orphan |= table == "user_prompts";
                            Sql::Null
                        }
                    }
                }
                (_, v) => to_sql(v),
            };
            row.push((c.clone(), value));
        }
        if orphan {
            out.skipped += 1;
            continue;
        }
        // A turn another device has not observed yet must not be observed here as well.
        if table == "user_prompts"
            && let Some((_, v)) = row.iter_mut().find(|(k, _)| k == "observed_at_epoch")
            && *v == Sql::Null
        {
            *v = Sql::Integer(now_ms);
        }
        match here {
            Some(id) if table == "work_state_entries" => {
                // Append-only by trigger: a new revision (a scrub) replaces the entry whole.
                tx.execute("DELETE FROM work_state_entries WHERE id = ?1", [id])?;
                row.push(("id".into(), Sql::Integer(id)));
                insert(tx, table, &row)?;
                out.updated += 1;
            }
            Some(id) => {
                let sets = row
                    .iter()
                    .enumerate()
                    .map(|(i, (k, _))| format!("\"{k}\" = ?{}", i + 2))
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut values = vec![Sql::Integer(id)];
                values.extend(row.iter().map(|(_, v)| v.clone()));
                tx.execute(
                    &format!("UPDATE {table} SET {sets} WHERE id = ?1"),
                    params_from_iter(values.iter()),
                )?;
                out.updated += 1;
            }
            None => {
                let id = if insert(tx, table, &row)? {
                    out.inserted += 1;
                    Some(tx.last_insert_rowid())
                } else {
                    let same = same_row(tx, table, &row)?;
                    if same.is_none() {
                        out.skipped += 1;
                    }
                    same
                };
                if let Some(id) = id
                    && p.device != me
                {
                    tx.execute(
                        "INSERT INTO sync_map (tbl, device, remote_id, local_id) VALUES (?1, ?2, ?3, ?4)
                         ON CONFLICT DO NOTHING",
                        params![table, p.device, p.remote_id, id],
                    )?;
                }
            }
        }
    }
    set_state(tx, "outbox", "on")?;
    Ok(out)
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
        let device = ensure_device(conn).unwrap();
        assert_eq!(triggers(conn), 18);
        assert_eq!(waiting(conn).unwrap(), 1, "rows from before are queued");
        conn.execute("DELETE FROM sync_outbox", []).unwrap();
        set_state(conn, "triggers", "an older cmem").unwrap();
        assert_eq!(ensure_device(conn).unwrap(), device);
        assert_eq!(triggers(conn), 18);
        assert_eq!(
            waiting(conn).unwrap(),
            1,
            "changed triggers queue every row again"
        );
    }
}
