//! Turns an observer gave up on: recorded once, skipped by that observer from then on, listed
//! by `cmem doctor`, and released only on request (`cmem observe --retry-quarantined`).

use anyhow::Result;
use rusqlite::{Connection, params};

/// Which observer a quarantine applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Observer {
    Rules,
    External,
}

impl Observer {
    pub(crate) fn id(self) -> &'static str {
        match self {
            Observer::Rules => "rules",
            Observer::External => "external",
        }
    }
}

/// Quarantines a turn for `observer` (again: the newest reason wins).
pub(crate) fn add(
    conn: &Connection,
    turn_id: i64,
    observer: Observer,
    now_ms: i64,
    reason: &str,
) -> Result<()> {
    conn.execute(
        "INSERT INTO observe_quarantine (prompt_row_id, observer, quarantined_at_epoch, reason)
         VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (prompt_row_id, observer)
         DO UPDATE SET quarantined_at_epoch = excluded.quarantined_at_epoch,
                       reason = excluded.reason",
        params![turn_id, observer.id(), now_ms, reason],
    )?;
    Ok(())
}

/// The SQL condition, on a `user_prompts` row aliased `p`, that the turn is not quarantined for
/// the rule-based observer.
pub(crate) const NOT_QUARANTINED_FOR_RULES: &str = "NOT EXISTS (SELECT 1 FROM observe_quarantine q
     WHERE q.prompt_row_id = p.id AND q.observer = 'rules')";

/// The same for the external observer.
pub(crate) const NOT_QUARANTINED_FOR_EXTERNAL: &str =
    "NOT EXISTS (SELECT 1 FROM observe_quarantine q
     WHERE q.prompt_row_id = p.id AND q.observer = 'external')";

/// One quarantined turn, for `cmem doctor`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub turn_id: i64,
    pub observer: String,
    pub project: String,
    pub content_session_id: String,
    pub prompt_number: i64,
    pub at_ms: i64,
    pub reason: String,
}

/// Every quarantined turn, newest first.
pub(crate) fn list(conn: &Connection) -> Result<Vec<Entry>> {
    let mut stmt = conn.prepare(
        "SELECT q.prompt_row_id, q.observer, s.project, p.content_session_id, p.prompt_number,
                q.quarantined_at_epoch, q.reason
         FROM observe_quarantine q
         JOIN user_prompts p ON p.id = q.prompt_row_id
         JOIN sessions s ON s.id = p.session_id
         ORDER BY q.quarantined_at_epoch DESC, q.prompt_row_id DESC",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok(Entry {
            turn_id: r.get(0)?,
            observer: r.get(1)?,
            project: r.get(2)?,
            content_session_id: r.get(3)?,
            prompt_number: r.get(4)?,
            at_ms: r.get(5)?,
            reason: r.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Lifts the quarantine of the given turns (all when `None`), so the observers try them again.
/// Returns how many quarantine records were removed.
pub(crate) fn release(conn: &Connection, turn_ids: Option<&[i64]>) -> Result<usize> {
    Ok(match turn_ids {
        None => conn.execute("DELETE FROM observe_quarantine", [])?,
        Some(ids) => {
            let mut stmt =
                conn.prepare("DELETE FROM observe_quarantine WHERE prompt_row_id = ?1")?;
            let mut n = 0;
            for id in ids {
                n += stmt.execute(params![id])?;
            }
            n
        }
    })
}
