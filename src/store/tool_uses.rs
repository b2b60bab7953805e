//! Reading raw tool uses (layer 4).

use anyhow::Result;
use rusqlite::{Connection, Row, params};

use crate::model::ToolUse;

pub(crate) const COLUMNS: &str = "id, tool_use_id, content_session_id, project, tool_name, tool_input, tool_response,
     input_bytes, response_bytes, failed, error, cwd, prompt_number, observation_id, duration_ms, created_at_epoch";

pub(crate) fn from_row(r: &Row) -> rusqlite::Result<ToolUse> {
    Ok(ToolUse {
        id: r.get(0)?,
        tool_use_id: r.get(1)?,
        content_session_id: r.get(2)?,
        project: r.get(3)?,
        tool_name: r.get(4)?,
        tool_input: r.get(5)?,
        tool_response: r.get(6)?,
        input_bytes: r.get(7)?,
        response_bytes: r.get(8)?,
        failed: r.get::<_, i64>(9)? != 0,
        error: r.get(10)?,
        cwd: r.get(11)?,
        prompt_number: r.get(12)?,
        observation_id: r.get(13)?,
        duration_ms: r.get(14)?,
        created_at: r.get(15)?,
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
