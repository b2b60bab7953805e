//! The append-only work-state log.

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::{Map, Value};

use crate::model::work_state::Entry;

/// Every entry of `projects` (case-insensitive), in write order: entries the sync server
/// holds in its order (the same on every device, whatever the writers' clocks said), then
/// the ones not synced yet by their time.
pub(crate) fn entries(conn: &Connection, projects: &[String]) -> Result<Vec<Entry>> {
    let mut stmt = conn.prepare_cached(
        "SELECT w.id, w.project, w.list_name, w.fields, w.created_at_epoch, m.seq
         FROM work_state_entries w
         LEFT JOIN sync_map m ON m.tbl = 'work_state_entries' AND m.local_id = w.id
         WHERE w.project = ?1 COLLATE NOCASE",
    )?;
    let mut out = Vec::new();
    for p in super::distinct_keys(projects) {
        let rows = stmt.query_map(params![p], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, i64>(4)?,
                r.get::<_, Option<i64>>(5)?,
            ))
        })?;
        for row in rows {
            let (id, project, list_name, fields, created_at, seq) = row?;
            // A row whose fields are not an object (written by hand?) is skipped, not fatal.
            if let Ok(Value::Object(fields)) = serde_json::from_str(&fields) {
                out.push(Entry {
                    id,
                    project,
                    list_name,
                    fields,
                    created_at,
                    seq,
                });
            }
        }
    }
    out.sort_by_key(Entry::order);
    Ok(out)
}

pub fn append(
    conn: &Connection,
    project: &str,
    list: &str,
    fields: &Map<String, Value>,
    at_ms: i64,
    source: &str,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO work_state_entries (project, list_name, fields, created_at_epoch, source)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            project,
            list,
            Value::Object(fields.clone()).to_string(),
            at_ms,
            source
        ],
    )
    .context("cannot append to the work state")?;
    Ok(conn.last_insert_rowid())
}
