//! Reading and writing turn/session summaries.

use anyhow::Result;
use rusqlite::{Connection, Row, params};
use serde_json::json;

use crate::model::{Summary, SummaryBody, json_list};

pub(crate) const COLUMNS: &str = "id, project, request, investigated, learned, completed, next_steps, notes, \
     files_read, files_edited, prompt_number, discovery_tokens, created_at_epoch, session_id";

pub(crate) fn from_row(r: &Row) -> rusqlite::Result<Summary> {
    Ok(Summary {
        id: r.get("id")?,
        project: r.get("project")?,
        body: SummaryBody {
            request: r.get("request")?,
            investigated: r.get("investigated")?,
            learned: r.get("learned")?,
            completed: r.get("completed")?,
            next_steps: r.get("next_steps")?,
            notes: r.get("notes")?,
            files_read: json_list(r.get::<_, Option<String>>("files_read")?.as_deref()),
            files_edited: json_list(r.get::<_, Option<String>>("files_edited")?.as_deref()),
        },
        prompt_number: r.get("prompt_number")?,
        discovery_tokens: r.get("discovery_tokens")?,
        created_at: r.get("created_at_epoch")?,
        session_id: r.get("session_id")?,
    })
}

/// The newest `limit` summaries of any of `projects`, newest first.
pub(crate) fn recent(conn: &Connection, projects: &[String], limit: usize) -> Result<Vec<Summary>> {
    super::newest_per_project(
        conn,
        &format!("SELECT {COLUMNS} FROM session_summaries"),
        projects,
        limit,
        from_row,
        |s| (s.created_at, s.id),
    )
}

/// Summaries by id, in the order asked.
pub(crate) fn by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<Summary>> {
    super::by_ids(
        conn,
        &format!("SELECT {COLUMNS} FROM session_summaries WHERE id"),
        ids,
        from_row,
        |s| s.id,
    )
}

/// The summary that closes the turn a record made at `at` in `session` belongs to: the
/// session's first summary written at or after it (a turn's summary follows its observations),
/// else the session's last one.
pub(crate) fn closing(conn: &Connection, session: i64, at: i64) -> Result<Option<Summary>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM session_summaries WHERE session_id = ?1
         ORDER BY created_at_epoch < ?2, abs(created_at_epoch - ?2), id LIMIT 1"
    ))?;
    let mut rows = stmt.query_map(params![session, at], from_row)?;
    Ok(rows.next().transpose()?)
}

/// What a new summary is made of (observers, imports, the generator).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewSummary {
    pub session_id: Option<i64>,
    pub project: String,
    pub body: SummaryBody,
    pub prompt_number: Option<i64>,
    pub discovery_tokens: i64,
    pub created_at: i64,
    pub source: String,
}

pub fn insert(conn: &Connection, s: &NewSummary) -> Result<i64> {
    let b = &s.body;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO session_summaries (session_id, project, request, investigated, learned, completed,
             next_steps, notes, files_read, files_edited, prompt_number, discovery_tokens, created_at_epoch, source)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    )?;
    stmt.execute(params![
        s.session_id,
        s.project,
        b.request,
        b.investigated,
        b.learned,
        b.completed,
        b.next_steps,
        b.notes,
        json!(b.files_read).to_string(),
        json!(b.files_edited).to_string(),
        s.prompt_number,
        s.discovery_tokens,
        s.created_at,
        s.source,
    ])?;
    Ok(conn.last_insert_rowid())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[test]
    fn the_closing_summary_is_the_first_at_or_after_a_record_else_the_last() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("t.db")).unwrap();
        let c = &store.conn;
        c.execute(
            "INSERT INTO sessions (content_session_id, project, started_at_epoch, status)
             VALUES ('s', 'p', 1, 'completed')",
            [],
        )
        .unwrap();
        let session = c.last_insert_rowid();
        let at = |t: i64| {
            insert(
                c,
                &NewSummary {
                    session_id: Some(session),
                    project: "p".into(),
                    created_at: t,
                    source: "t".into(),
                    ..Default::default()
                },
            )
            .unwrap()
        };
        let (first, second, third) = (at(40), at(60), at(90));
        let closing_id = |t| closing(c, session, t).unwrap().map(|s| s.id);
        assert_eq!(closing_id(50), Some(second)); // the turn's own summary, not a later one
        assert_eq!(closing_id(60), Some(second));
        assert_eq!(closing_id(10), Some(first));
        assert_eq!(closing_id(95), Some(third)); // the turn has none yet: the session's last
        assert_eq!(closing(c, session + 1, 50).unwrap(), None);
    }
}
