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
    include_str!("sql/008_cjk_words.sql"),
    include_str!("sql/009_vector_script.sql"),
    include_str!("sql/010_history_files.sql"),
    include_str!("sql/011_vector_triggers_on_change.sql"),
    include_str!("sql/012_observation_files.sql"),
    include_str!("sql/013_sync_vector_model.sql"),
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
    // A step may build a full-text index anew: it erases in place afterwards if it did before.
    let erased_in_place = current > 0 && super::forget::erases_in_place(&tx)?;
    for (i, step) in STEPS.iter().enumerate().skip(current.max(0) as usize) {
        tx.execute_batch(step)
            .with_context(|| format!("migration {} failed on {}", i + 1, path.display()))?;
    }
    if current == 0 || erased_in_place {
        // A new database erases in place from its first row on: nothing in it was ever freed
        // without being zeroed, so it never needs the one cleanup older ones get (see
        // forget::erases_in_place). An index built anew by a step keeps the setting it had.
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
        super::super::tokenizer::register(&conn).unwrap();
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

    /// A database of schema 7 (words indexed by unicode61 alone) finds Chinese words inside
    /// unspaced text once migrated, and its indexes still erase in place.
    #[test]
    fn the_cjk_step_reindexes_what_is_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        super::super::register_extensions(&conn).unwrap();
        for step in &STEPS[..7] {
            conn.execute_batch(step).unwrap();
        }
        super::super::forget::erase_in_place(&conn).unwrap();
        conn.pragma_update(None, "user_version", 7).unwrap();
        conn.execute(
            "INSERT INTO observations (project, type, title, narrative, created_at_epoch)
             VALUES ('p', 'bugfix', '修复连接池泄漏导致的 5xx', 'pgvector做向量搜索', 1)",
            [],
        )
        .unwrap();
        let found = |q: &str| -> i64 {
            conn.query_row(
                "SELECT count(*) FROM observations_fts WHERE observations_fts MATCH ?1",
                [q],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(
            found("\"泄漏\""),
            0,
            "unicode61 alone: a word inside a run is not found"
        );
        migrate(&conn, &path).unwrap();
        assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
        assert_eq!(found("\"泄漏\""), 1);
        assert_eq!(found("\"向量搜索\""), 1);
        assert_eq!(found("\"pgvector\""), 1);
        assert!(super::super::forget::erases_in_place(&conn).unwrap());
    }

    #[test]
    fn refuses_newer_schema() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = Connection::open(&path).unwrap();
        super::super::tokenizer::register(&conn).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        let err = migrate(&conn, &path).unwrap_err().to_string();
        assert!(err.contains("upgrade cmem"), "{err}");
    }
}
