//! Embedded, ordered, idempotent migrations keyed on `PRAGMA user_version`.

use std::path::Path;

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, TransactionBehavior};

/// Step N brings the schema from version N-1 to N.
const STEPS: &[&str] = &[
    include_str!("sql/001_init.sql"),
    include_str!("sql/002_origin.sql"),
    include_str!("sql/003_quarantine.sql"),
    include_str!("sql/004_vectors.sql"),
    include_str!("sql/005_sync.sql"),
    include_str!("sql/006_sync_authority.sql"),
    include_str!("sql/007_sync_merge.sql"),
];

pub const SCHEMA_VERSION: i64 = STEPS.len() as i64;

fn version(conn: &Connection) -> Result<i64> {
    Ok(conn.query_row("PRAGMA user_version", [], |r| r.get(0))?)
}

pub(crate) fn migrate(conn: &Connection, path: &Path) -> Result<()> {
    let current = version(conn)?;
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    if current > SCHEMA_VERSION {
        bail!(
            "{} has schema version {current}, newer than this cmem understands ({SCHEMA_VERSION}); upgrade cmem",
            path.display()
        );
    }
    // Another process may be migrating right now: take the write lock, then look again.
    let tx = rusqlite::Transaction::new_unchecked(conn, TransactionBehavior::Immediate)
        .context("cannot lock the database to migrate it")?;
    let current = version(&tx)?;
    for (i, step) in STEPS.iter().enumerate().skip(current.max(0) as usize) {
        tx.execute_batch(step)
            .with_context(|| format!("migration {} failed on {}", i + 1, path.display()))?;
    }
    if current == 0 {
        // A new database erases in place from its first row on: nothing in it was ever freed
        // without being zeroed, so it never needs the one cleanup older ones get (see
        // forget::erases_in_place).
        super::forget::erase_in_place(&tx)?;
    }
    tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    tx.commit()
        .with_context(|| format!("cannot commit the migration of {}", path.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        migrate(&conn, &path).unwrap();
        assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
        migrate(&conn, &path).unwrap();
        let fts: i64 = conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE name LIKE '%_fts'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(fts, 3);
    }

    #[test]
    fn refuses_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        let err = migrate(&conn, &path).unwrap_err().to_string();
        assert!(err.contains("upgrade cmem"), "{err}");
    }
}
