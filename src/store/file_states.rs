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
    let (Some(&low), Some(&high)) = (ids.iter().min(), ids.iter().max()) else {
        return Ok(Vec::new());
    };
    let from_row = |r: &rusqlite::Row| -> rusqlite::Result<FileRow> {
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
    };
    const SELECT: &str =
        "SELECT observation_id, path, root, size, mtime_ns, hash FROM observation_files";
    // The rows a session start shows are the newest of a project: ids close together. One
    // walk of that stretch of the table costs a third of a lookup per id.
    if high - low <= 4 * ids.len() as i64 + 64 {
        let wanted: std::collections::HashSet<i64> = ids.iter().copied().collect();
        let mut stmt =
            conn.prepare_cached(&format!("{SELECT} WHERE observation_id BETWEEN ?1 AND ?2"))?;
        let rows = stmt.query_map(params![low, high], from_row)?;
        let mut out = Vec::new();
        for r in rows {
            let r = r?;
            if wanted.contains(&r.observation_id) {
                out.push(r);
            }
        }
        return Ok(out);
    }
    let mut stmt = conn.prepare_cached(&format!(
        "{SELECT} WHERE observation_id IN (SELECT value FROM json_each(?1))"
    ))?;
    let rows = stmt.query_map([serde_json::json!(ids).to_string()], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Most decisions read for one project (newest rows have few later ones; an old decision in a
/// search result is compared with the nearest this many).
const LATER_DECISIONS: i64 = 2_000;

/// A decision as "superseded by" compares it: when, and what it is about.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Decision {
    pub id: i64,
    pub created_at: i64,
    pub files: Vec<String>,
    pub symbols: Vec<String>,
}

impl Decision {
    /// Whether this decision speaks of one of `files` or `symbols`.
    pub(crate) fn touches(&self, files: &[String], symbols: &[String]) -> bool {
        self.files.iter().any(|f| files.contains(f))
            || self.symbols.iter().any(|s| symbols.contains(s))
    }
}

/// The decisions of `project` (case-insensitive) made at or after `since`, oldest first: one
/// walk of the decisions-only index for all the decisions a view shows.
pub(crate) fn decisions_since(
    conn: &Connection,
    project: &str,
    since: i64,
) -> Result<Vec<Decision>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, created_at_epoch, title, files_read, files_modified FROM observations
         WHERE project = ?1 COLLATE NOCASE AND type = 'decision' AND created_at_epoch >= ?2
         ORDER BY created_at_epoch, id LIMIT ?3",
    )?;
    let rows = stmt.query_map(params![project, since, LATER_DECISIONS], |r| {
        let mut files = json_list(r.get::<_, Option<String>>(3)?.as_deref());
        files.extend(json_list(r.get::<_, Option<String>>(4)?.as_deref()));
        Ok(Decision {
            id: r.get(0)?,
            created_at: r.get(1)?,
            files,
            symbols: code_symbols(
                r.get::<_, Option<String>>(2)?
                    .as_deref()
                    .unwrap_or_default(),
            ),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The nearest decision in `later` (oldest first) made after `(created_at, id)` that speaks of
/// one of `files` or `symbols` (identifiers in backticks in its title): the one that replaced it.
pub(crate) fn superseding(
    later: &[Decision],
    created_at: i64,
    id: i64,
    files: &[String],
    symbols: &[String],
) -> Option<i64> {
    later
        .iter()
        .filter(|d| (d.created_at, d.id) > (created_at, id))
        .find(|d| d.touches(files, symbols))
        .map(|d| d.id)
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
        let a = decision(c, "Cap `retry_budget` at 3", 4, &[]);
        let b = decision(c, "Drop `retry_budget` for backoff", 5, &[]);
        let later = decisions_since(c, "P", 1).unwrap();
        assert_eq!(later.len(), 5);
        let pool = vec!["src/db/pool.rs".to_string()];
        assert_eq!(superseding(&later, 1, first, &pool, &[]), Some(second));
        assert_eq!(superseding(&later, 3, second, &pool, &[]), None);
        let time = vec!["src/time.rs".to_string()];
        assert_eq!(superseding(&later, 2, other, &time, &[]), None);
        // By symbol: two decisions about `retry_budget` that name no file.
        let sym = code_symbols("Cap `retry_budget` at 3");
        assert_eq!(superseding(&later, 4, a, &[], &sym), Some(b));
        assert_eq!(decisions_since(c, "p", 4).unwrap().len(), 2);
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
        // Ids far apart take the other query: the same rows.
        assert_eq!(of_observations(c, &[id, id + 10_000]).unwrap().len(), 1);
        assert!(of_observations(c, &[id + 1]).unwrap().is_empty());
        c.execute("DELETE FROM observations WHERE id = ?1", [id])
            .unwrap();
        assert!(of_observations(c, &[id]).unwrap().is_empty());
    }
}
