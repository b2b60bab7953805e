//! Reading and writing turn/session summaries.

use anyhow::Result;
use rusqlite::{Connection, Row, params};
use serde_json::json;

use crate::model::{Summary, SummaryBody, json_list};

pub const COLUMNS: &str = "id, project, request, investigated, learned, completed, next_steps, notes, \
     files_read, files_edited, prompt_number, discovery_tokens, created_at_epoch, session_id";

pub fn from_row(r: &Row) -> rusqlite::Result<Summary> {
    Ok(Summary {
        id: r.get(0)?,
        project: r.get(1)?,
        body: SummaryBody {
            request: r.get(2)?,
            investigated: r.get(3)?,
            learned: r.get(4)?,
            completed: r.get(5)?,
            next_steps: r.get(6)?,
            notes: r.get(7)?,
            files_read: json_list(r.get::<_, Option<String>>(8)?.as_deref()),
            files_edited: json_list(r.get::<_, Option<String>>(9)?.as_deref()),
        },
        prompt_number: r.get(10)?,
        discovery_tokens: r.get(11)?,
        created_at: r.get(12)?,
        session_id: r.get(13)?,
    })
}

/// The newest `limit` summaries of any of `projects`, newest first.
pub fn recent(conn: &Connection, projects: &[String], limit: usize) -> Result<Vec<Summary>> {
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
pub fn by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<Summary>> {
    super::by_ids(
        conn,
        &format!("SELECT {COLUMNS} FROM session_summaries WHERE id"),
        ids,
        from_row,
        |s| s.id,
    )
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
