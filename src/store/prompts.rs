//! Reading user prompts (their project comes from the session).

use anyhow::Result;
use rusqlite::{Connection, Row};

use crate::model::Prompt;

pub(crate) const COLUMNS: &str = "up.id, s.project, up.session_id, up.content_session_id, up.prompt_number, \
     up.prompt_text, up.created_at_epoch, up.ended_at_epoch";
/// Prompts have no project column: it comes from their session.
pub(crate) const FROM: &str = "user_prompts up JOIN sessions s ON s.id = up.session_id";

pub(crate) fn from_row(r: &Row) -> rusqlite::Result<Prompt> {
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

pub(crate) fn by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<Prompt>> {
    super::by_ids(
        conn,
        &format!("SELECT {COLUMNS} FROM {FROM} WHERE up.id"),
        ids,
        from_row,
        |p| p.id,
    )
}
