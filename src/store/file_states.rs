//! What observations saw of the files they name (`observation_files`), and the later decision
//! that replaced a decision: the stored half of "changed since" and "superseded by". Whether a
//! file still holds what was seen is the caller's question (`file_state::compare`).

use anyhow::Result;
use rusqlite::{Connection, params};

use crate::file_state::Seen;
use crate::model::json_list;

/// One file an observation saw.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FileRow {
    pub observation_id: i64,
    /// As the observation names it.
    pub path: String,
    /// The directory a relative `path` is resolved against.
    pub root: String,
    pub seen: Seen,
}

/// Records what observation `id` saw of `path` (a later record of the same pair replaces it:
/// a duplicate observation seen again is about the file as it is now).
pub(crate) fn record(
    conn: &Connection,
    id: i64,
    path: &str,
    root: &str,
    seen: &Seen,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT OR REPLACE INTO observation_files (observation_id, path, root, size, mtime_ns, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![id, path, root, seen.size, seen.mtime_ns, seen.hash])?;
    Ok(())
}

/// The files the observations `ids` saw, in no particular order.
pub(crate) fn of_observations(conn: &Connection, ids: &[i64]) -> Result<Vec<FileRow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT observation_id, path, root, size, mtime_ns, hash FROM observation_files
         WHERE observation_id IN (SELECT value FROM json_each(?1))",
    )?;
    let rows = stmt.query_map([serde_json::json!(ids).to_string()], |r| {
        Ok(FileRow {
            observation_id: r.get(0)?,
            path: r.get(1)?,
            root: r.get(2)?,
            seen: Seen {
                size: r.get(3)?,
                mtime_ns: r.get(4)?,
                hash: r.get(5)?,
            },
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Most later decisions looked at for one decision (newest rows have few; an old one in a
/// search result is bounded by this).
const LATER_DECISIONS: i64 = 500;

/// A decision of the same project made after `(created_at, id)` that speaks of one of `files`
/// or of one of `symbols` (identifiers in backticks in its title): the nearest such, which
/// replaced it.
pub(crate) fn superseding_decision(
    conn: &Connection,
    project: &str,
    created_at: i64,
    id: i64,
    files: &[String],
    symbols: &[String],
) -> Result<Option<i64>> {
    if files.is_empty() && symbols.is_empty() {
        return Ok(None);
    }
    let mut stmt = conn.prepare_cached(
        "SELECT id, title, files_read, files_modified FROM observations
         WHERE project = ?1 COLLATE NOCASE AND type = 'decision'
           AND (created_at_epoch > ?2 OR (created_at_epoch = ?2 AND id > ?3))
         ORDER BY created_at_epoch, id LIMIT ?4",
    )?;
    let mut rows = stmt.query(params![project, created_at, id, LATER_DECISIONS])?;
    while let Some(r) = rows.next()? {
        let title: Option<String> = r.get(1)?;
        let shares_file = [2, 3].into_iter().any(|col| {
            json_list(r.get::<_, Option<String>>(col).ok().flatten().as_deref())
                .iter()
                .any(|f| files.contains(f))
        });
        let shares_symbol = title
            .as_deref()
            .is_some_and(|t| code_symbols(t).iter().any(|s| symbols.contains(s)));
        if shares_file || shares_symbol {
            return Ok(Some(r.get(0)?));
        }
    }
    Ok(None)
}

/// The identifiers a title names in backticks (`` `pool_size` ``, `` `Pool::get` ``): what a
/// decision is about when it names no file. Paths and prose in backticks are not symbols.
pub(crate) fn code_symbols(title: &str) -> Vec<String> {
    title
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|s| {
            s.len() >= 3
                && s.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | ':' | '.'))
                && s.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                && !s.contains('/')
        })
        .map(String::from)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::observations::{self, NewObservation};

    fn decision(conn: &Connection, title: &str, at: i64, files: &[&str]) -> i64 {
        let mut o = NewObservation::sample("p", "decision", title, at);
        o.body.files_modified = files.iter().map(|f| f.to_string()).collect();
        observations::insert(conn, &o).unwrap().unwrap()
    }

    #[test]
    fn a_later_decision_on_the_same_file_or_symbol_supersedes() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let first = decision(c, "Keep the pool at 10", 1, &["src/db/pool.rs"]);
        let other = decision(c, "Use jiff for time", 2, &["src/time.rs"]);
        let second = decision(c, "Raise the pool to 30", 3, &["src/db/pool.rs"]);
        let files = vec!["src/db/pool.rs".to_string()];
        assert_eq!(
            superseding_decision(c, "P", 1, first, &files, &[]).unwrap(),
            Some(second)
        );
        assert_eq!(
            superseding_decision(c, "p", 3, second, &files, &[]).unwrap(),
            None
        );
        let time = vec!["src/time.rs".to_string()];
        assert_eq!(
            superseding_decision(c, "p", 2, other, &time, &[]).unwrap(),
            None
        );
        // By symbol: two decisions about `retry_budget` that name no file.
        let a = decision(c, "Cap `retry_budget` at 3", 4, &[]);
        let b = decision(c, "Drop `retry_budget` for backoff", 5, &[]);
        let sym = code_symbols("Cap `retry_budget` at 3");
        assert_eq!(
            superseding_decision(c, "p", 4, a, &[], &sym).unwrap(),
            Some(b)
        );
    }

    #[test]
    fn symbols_are_identifiers_in_backticks() {
        assert_eq!(
            code_symbols("Use `Pool::get` not `src/a.rs` or `x` or `two words`; `max_conns`"),
            vec!["Pool::get", "max_conns"]
        );
    }

    #[test]
    fn file_rows_go_with_their_observation() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        let id = decision(c, "Keep it", 1, &["a.rs"]);
        let seen = Seen {
            size: 1,
            mtime_ns: Some(1),
            hash: None,
        };
        record(c, id, "a.rs", "/nowhere", &seen).unwrap();
        record(c, id, "a.rs", "/nowhere", &seen).unwrap();
        assert_eq!(of_observations(c, &[id]).unwrap().len(), 1);
        c.execute("DELETE FROM observations WHERE id = ?1", [id])
            .unwrap();
        assert!(of_observations(c, &[id]).unwrap().is_empty());
    }
}
