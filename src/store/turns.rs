//! Prompt turns as the observers see them: the closed, not yet observed turns, their raw tool
//! uses, and the bookkeeping that links tool uses to observations and marks turns done.

use anyhow::Result;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::quarantine::{NOT_QUARANTINED_FOR_EXTERNAL, NOT_QUARANTINED_FOR_RULES};

/// One closed prompt turn.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TurnRow {
    /// `user_prompts.id`.
    pub id: i64,
    pub session_id: i64,
    pub content_session_id: String,
    pub project: String,
    /// The session's working directory (tool uses carry their own).
    pub cwd: Option<String>,
    pub prompt_number: i64,
    pub prompt_text: String,
    pub created_at: i64,
    pub ended_at: Option<i64>,
    pub last_assistant_message: Option<String>,
    /// The session's first prompt: what its work-state list is named after.
    pub session_request: Option<String>,
}

/// One raw tool use of a turn.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct ToolRow {
    pub id: i64,
    pub tool_use_id: String,
    pub tool_name: String,
    pub input: Option<String>,
    pub response: Option<String>,
    pub input_bytes: i64,
    pub response_bytes: i64,
    pub failed: bool,
    pub error: Option<String>,
    pub is_interrupt: bool,
    pub cwd: Option<String>,
    pub agent_id: Option<String>,
    pub created_at: i64,
}

impl ToolRow {
    /// Estimated tokens of the raw I/O (4 characters a token, as the reference counts).
    pub(crate) fn raw_tokens(&self) -> i64 {
        let error = self.error.as_ref().map_or(0, |e| e.len() as i64);
        (self.input_bytes + self.response_bytes + error + 3) / 4
    }
}

const TURN_COLUMNS: &str = "p.id, p.session_id, p.content_session_id, s.project, s.cwd, p.prompt_number, \
     p.prompt_text, p.created_at_epoch, p.ended_at_epoch, p.last_assistant_message, s.user_prompt";

fn turn_from_row(r: &Row) -> rusqlite::Result<TurnRow> {
    Ok(TurnRow {
        id: r.get("id")?,
        session_id: r.get("session_id")?,
        content_session_id: r.get("content_session_id")?,
        project: r.get("project")?,
        cwd: r.get("cwd")?,
        prompt_number: r.get("prompt_number")?,
        prompt_text: r.get("prompt_text")?,
        created_at: r.get("created_at_epoch")?,
        ended_at: r.get("ended_at_epoch")?,
        last_assistant_message: r.get("last_assistant_message")?,
        session_request: r.get("user_prompt")?,
    })
}

/// Closed turns no observer has processed yet, oldest first.
pub(crate) fn unobserved(conn: &Connection, limit: usize) -> Result<Vec<TurnRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TURN_COLUMNS} FROM user_prompts p JOIN sessions s ON s.id = p.session_id
         WHERE p.observed_at_epoch IS NULL AND p.ended_at_epoch IS NOT NULL
           AND {NOT_QUARANTINED_FOR_RULES}
         ORDER BY p.ended_at_epoch, p.id LIMIT ?1"
    ))?;
    let rows = stmt.query_map(params![limit as i64], turn_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Whether the turn is still waiting for an observer (re-checked inside the write
/// transaction: two hooks may race for the same turn).
pub(crate) fn is_unobserved(conn: &Connection, id: i64) -> Result<bool> {
    Ok(conn
        .query_row(
            "SELECT 1 FROM user_prompts WHERE id = ?1 AND observed_at_epoch IS NULL",
            params![id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

/// The tool uses of a turn, in the order they happened.
pub(crate) fn tool_uses(conn: &Connection, turn: &TurnRow) -> Result<Vec<ToolRow>> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, tool_use_id, tool_name, tool_input, tool_response, input_bytes, response_bytes,
                failed, error, IFNULL(is_interrupt, 0), cwd, agent_id, created_at_epoch
         FROM tool_uses WHERE session_id = ?1 AND prompt_number = ?2
         ORDER BY created_at_epoch, id",
    )?;
    let rows = stmt.query_map(params![turn.session_id, turn.prompt_number], |r| {
        Ok(ToolRow {
            id: r.get(0)?,
            tool_use_id: r.get(1)?,
            tool_name: r.get(2)?,
            input: r.get(3)?,
            response: r.get(4)?,
            input_bytes: r.get(5)?,
            response_bytes: r.get(6)?,
            failed: r.get::<_, i64>(7)? != 0,
            error: r.get(8)?,
            is_interrupt: r.get::<_, i64>(9)? != 0,
            cwd: r.get(10)?,
            agent_id: r.get(11)?,
            created_at: r.get(12)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Links tool uses to the observation built from them (the first link wins).
pub(crate) fn link(conn: &Connection, tool_row_ids: &[i64], observation_id: i64) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "UPDATE tool_uses SET observation_id = ?2 WHERE id = ?1 AND observation_id IS NULL",
    )?;
    for id in tool_row_ids {
        stmt.execute(params![id, observation_id])?;
    }
    Ok(())
}

pub(crate) fn mark_observed(conn: &Connection, turn_id: i64, at_ms: i64) -> Result<()> {
    conn.execute(
        "UPDATE user_prompts SET observed_at_epoch = ?2 WHERE id = ?1",
        params![turn_id, at_ms],
    )?;
    Ok(())
}

/// Turns the rule-based observer has done but the external observer has not, newest last,
/// observed at or after `since_ms`.
pub(crate) fn awaiting_external(
    conn: &Connection,
    since_ms: i64,
    limit: usize,
) -> Result<Vec<TurnRow>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {TURN_COLUMNS} FROM user_prompts p JOIN sessions s ON s.id = p.session_id
         WHERE p.external_observed_at_epoch IS NULL AND p.observed_at_epoch IS NOT NULL
           AND p.observed_at_epoch >= ?1 AND {NOT_QUARANTINED_FOR_EXTERNAL}
         ORDER BY p.observed_at_epoch, p.id LIMIT ?2"
    ))?;
    let rows = stmt.query_map(params![since_ms, limit as i64], turn_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

pub(crate) fn mark_external_observed(conn: &Connection, turn_id: i64, at_ms: i64) -> Result<()> {
    conn.execute(
        "UPDATE user_prompts SET external_observed_at_epoch = ?2 WHERE id = ?1",
        params![turn_id, at_ms],
    )?;
    Ok(())
}
