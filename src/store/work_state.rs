//! The append-only work-state log.

use anyhow::{Context, Result};
use rusqlite::{Connection, params};
use serde_json::{Map, Value};

use crate::model::work_state::Entry;

/// Every entry of `projects` (case-insensitive), in write order.
pub fn entries(conn: &Connection, projects: &[String]) -> Result<Vec<Entry>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, project, list_name, fields, created_at_epoch FROM work_state_entries
         WHERE project = ?1 COLLATE NOCASE ORDER BY created_at_epoch, id",
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
            ))
        })?;
        for row in rows {
            let (id, project, list_name, fields, created_at) = row?;
            // A row whose fields are not an object (written by hand?) is skipped, not fatal.
            if let Ok(Value::Object(fields)) = serde_json::from_str(&fields) {
                out.push(Entry {
                    id,
                    project,
                    list_name,
                    fields,
                    created_at,
                });
            }
        }
    }
    out.sort_by_key(|e| (e.created_at, e.id));
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
