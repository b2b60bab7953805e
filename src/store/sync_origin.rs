//! Who wrote a record that `cmem sync` pulled from another device (src/sync keeps the tables).

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

/// `name (role)` of the device a pulled row came from; `None` for rows written here (the map
/// holds those too, once the server has them).
pub(crate) fn written_by(conn: &Connection, table: &str, id: i64) -> Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT COALESCE(d.name, m.device), d.role FROM sync_map m
         LEFT JOIN sync_devices d ON d.device = m.device
         WHERE m.tbl = ?1 AND m.local_id = ?2
           AND m.device IS NOT (SELECT value FROM sync_state WHERE key = 'device')",
    )?;
    Ok(stmt
        .query_row(params![table, id], |r| {
            let name: String = r.get(0)?;
            let role: Option<String> = r.get(1)?;
            Ok(match role {
                Some(role) => format!("{name} ({role})"),
                None => name,
            })
        })
        .optional()?)
}
