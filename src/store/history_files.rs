//! How far `cmem import claude-code|codex` has read each transcript file (`history_files`).

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, params};

/// One file's mark: the bytes read (whole lines only) and what the file was when read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Mark {
    pub path: String,
    pub source: String,
    pub read_bytes: u64,
    pub size_bytes: u64,
    pub mtime_ms: i64,
    pub head_sha256: String,
}

pub(crate) fn get(conn: &Connection, path: &str) -> Result<Option<Mark>> {
    Ok(conn
        .prepare_cached(
            "SELECT path, source, read_bytes, size_bytes, mtime_ms, head_sha256
             FROM history_files WHERE path = ?1",
        )?
        .query_row(params![path], |r| {
            Ok(Mark {
                path: r.get(0)?,
                source: r.get(1)?,
                read_bytes: r.get::<_, i64>(2)?.max(0) as u64,
                size_bytes: r.get::<_, i64>(3)?.max(0) as u64,
                mtime_ms: r.get(4)?,
                head_sha256: r.get(5)?,
            })
        })
        .optional()?)
}

pub(crate) fn save(conn: &Connection, mark: &Mark, now_ms: i64) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO history_files (path, source, read_bytes, size_bytes, mtime_ms, head_sha256, imported_at_epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
         ON CONFLICT (path) DO UPDATE SET source = excluded.source, read_bytes = excluded.read_bytes,
             size_bytes = excluded.size_bytes, mtime_ms = excluded.mtime_ms,
             head_sha256 = excluded.head_sha256, imported_at_epoch = excluded.imported_at_epoch",
    )?
    .execute(params![
        mark.path,
        mark.source,
        mark.read_bytes as i64,
        mark.size_bytes as i64,
        mark.mtime_ms,
        mark.head_sha256,
        now_ms
    ])?;
    Ok(())
}
