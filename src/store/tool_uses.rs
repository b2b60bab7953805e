//! Reading raw tool uses (layer 4).

use anyhow::Result;
use rusqlite::{Connection, Row, params};

use crate::model::ToolUse;

pub(crate) const COLUMNS: &str = "id, tool_use_id, content_session_id, project, tool_name, tool_input, tool_response,
     input_bytes, response_bytes, failed, error, cwd, prompt_number, observation_id, duration_ms, created_at_epoch";

pub(crate) fn from_row(r: &Row) -> rusqlite::Result<ToolUse> {
    Ok(ToolUse {
        id: r.get("id")?,
        tool_use_id: r.get("tool_use_id")?,
        content_session_id: r.get("content_session_id")?,
        project: r.get("project")?,
        tool_name: r.get("tool_name")?,
        tool_input: r.get("tool_input")?,
        tool_response: r.get("tool_response")?,
        input_bytes: r.get("input_bytes")?,
        response_bytes: r.get("response_bytes")?,
        failed: r.get::<_, i64>("failed")? != 0,
        error: r.get("error")?,
        cwd: r.get("cwd")?,
        prompt_number: r.get("prompt_number")?,
        observation_id: r.get("observation_id")?,
        duration_ms: r.get("duration_ms")?,
        created_at: r.get("created_at_epoch")?,
    })
}

/// Tool uses by row id, in the order asked.
pub(crate) fn by_ids(conn: &Connection, ids: &[i64]) -> Result<Vec<ToolUse>> {
    super::by_ids(
        conn,
        &format!("SELECT {COLUMNS} FROM tool_uses WHERE id"),
        ids,
        from_row,
        |t| t.id,
    )
}

/// Tool uses by the host's tool_use_id (`toolu_…`).
pub(crate) fn by_tool_use_ids(conn: &Connection, ids: &[String]) -> Result<Vec<ToolUse>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM tool_uses WHERE tool_use_id = ?1 ORDER BY id"
    ))?;
    for id in ids {
        for row in stmt.query_map(params![id], from_row)? {
            out.push(row?);
        }
    }
    Ok(out)
}

/// The raw calls an observation was built from, in call order.
pub(crate) fn by_observation(conn: &Connection, observation_id: i64) -> Result<Vec<ToolUse>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM tool_uses WHERE observation_id = ?1 ORDER BY created_at_epoch, id"
    ))?;
    let rows = stmt.query_map(params![observation_id], from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}
