//! Reading user prompts (their project comes from the session).

use anyhow::Result;
use rusqlite::{Connection, Row, params_from_iter};

use crate::model::Prompt;

pub const COLUMNS: &str = "up.id, s.project, up.session_id, up.content_session_id, up.prompt_number, \
     up.prompt_text, up.created_at_epoch, up.ended_at_epoch";
/// Prompts have no project column: it comes from their session.
pub const FROM: &str = "user_prompts up JOIN sessions s ON s.id = up.session_id";

pub fn from_row(r: &Row) -> rusqlite::Result<Prompt> {
    Ok(Prompt {
        id: r.get(0)?,
        project: r.get(1)?,
        session_id: r.get(2)?,
        content_session_id: r.get(3)?,
        prompt_number: r.get(4)?,
        text: r.get(5)?,
        created_at: r.get(6)?,
        ended_at: r.get(7)?,
    })
}

pub fn by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<Prompt>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let marks = vec!["?"; ids.len()].join(",");
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM {FROM} WHERE up.id IN ({marks})"
    ))?;
    let rows = stmt.query_map(params_from_iter(ids), from_row)?;
    let found: Vec<Prompt> = rows.collect::<rusqlite::Result<_>>()?;
    Ok(super::in_order(ids, found, |p| p.id))
}
