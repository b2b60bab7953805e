//! The write side of capture: every event a hook stores is one `Capture`, applied idempotently
//! in one transaction. Because a `Capture` is plain data, a hook that cannot get the database in
//! time appends it to the spool and a later hook applies it unchanged.

use anyhow::Result;
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};

/// Same cleaned prompt text within this window counts as a duplicate (claude-mem's 10 s).
pub(crate) const PROMPT_DEDUPE_WINDOW_MS: i64 = 10_000;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct SessionRef {
    pub content_session_id: String,
    pub platform_source: String,
    pub project: String,
    pub cwd: Option<String>,
    pub transcript_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolUse {
    pub tool_use_id: String,
    pub tool_name: String,
    pub tool_input: Option<String>,
    pub tool_response: Option<String>,
    pub input_bytes: u64,
    pub response_bytes: u64,
    pub failed: bool,
    pub error: Option<String>,
    pub is_interrupt: Option<bool>,
    pub prompt_id: Option<String>,
    pub agent_id: Option<String>,
    pub agent_type: Option<String>,
    pub duration_ms: Option<i64>,
    pub content_hash: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Capture {
    /// A submitted prompt; `text: None` means everything in it was private, so the whole turn is.
    Prompt {
        session: SessionRef,
        prompt_id: Option<String>,
        text: Option<String>,
        at_ms: i64,
    },
    ToolUse {
        session: SessionRef,
        tool: Box<ToolUse>,
        at_ms: i64,
    },
    /// The assistant finished answering a prompt (Stop). With `closes` false it only said
    /// something and may go on working (Cursor's afterAgentResponse comes after every
    /// message): the text is kept, the turn stays open for the tool uses still to come.
    TurnEnd {
        session: SessionRef,
        prompt_id: Option<String>,
        last_assistant_message: Option<String>,
        at_ms: i64,
        #[serde(default = "closes_by_default")]
        closes: bool,
    },
    SessionEnd {
        session: SessionRef,
        reason: Option<String>,
        at_ms: i64,
    },
    /// A to-do tool call (TodoWrite, TaskCreate, TaskUpdate): its change to the session's
    /// work-state list, and the raw tool use when that is stored too.
    WorkState {
        session: SessionRef,
        prompt_id: Option<String>,
        change: super::todos::TodoChange,
        tool: Option<Box<ToolUse>>,
        at_ms: i64,
    },
}

fn closes_by_default() -> bool {
    true
}

impl Capture {
    /// Whether storing this ends a turn, so that the observer has work: a prompt closes the
    /// one before it, a session's end its last.
    pub(crate) fn closes_a_turn(&self) -> bool {
        match self {
            Capture::Prompt { .. } | Capture::SessionEnd { .. } => true,
            Capture::TurnEnd { closes, .. } => *closes,
            Capture::ToolUse { .. } | Capture::WorkState { .. } => false,
        }
    }

    /// The session the event belongs to.
    pub(crate) fn session(&self) -> &SessionRef {
        match self {
            Capture::Prompt { session, .. }
            | Capture::ToolUse { session, .. }
            | Capture::TurnEnd { session, .. }
            | Capture::SessionEnd { session, .. }
            | Capture::WorkState { session, .. } => session,
        }
    }
}

/// Whether a prompt or tool use is already stored (matched as `apply` matches them: a prompt by
/// its id, a tool use by its session and id), for a dry run's counts.
pub(crate) fn already_stored(conn: &rusqlite::Connection, capture: &Capture) -> Result<bool> {
    let (sql, id) = match capture {
        Capture::Prompt {
            prompt_id: Some(id),
            ..
        } => (
            "SELECT 1 FROM user_prompts WHERE content_session_id = ?1 AND prompt_id = ?2",
            id.as_str(),
        ),
        Capture::ToolUse { tool, .. }
        | Capture::WorkState {
            tool: Some(tool), ..
        } => (
            "SELECT 1 FROM tool_uses WHERE content_session_id = ?1 AND tool_use_id = ?2",
            tool.tool_use_id.as_str(),
        ),
        _ => return Ok(false),
    };
    Ok(conn
        .prepare_cached(sql)?
        .query_row(
            params![capture.session().content_session_id, id],
            |_| Ok(()),
        )
        .optional()?
        .is_some())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Stored(i64),
    Updated,
    Duplicate,
    SkippedPrivate,
    NothingToDo,
}

struct SessionRow {
    id: i64,
    prompt_counter: i64,
    current_prompt_id: Option<String>,
    current_turn_private: bool,
}

impl SessionRow {
    /// From a row whose first columns are `id, prompt_counter, current_prompt_id,
    /// current_turn_private`.
    fn from_row(r: &rusqlite::Row) -> rusqlite::Result<SessionRow> {
        Ok(SessionRow {
            id: r.get(0)?,
            prompt_counter: r.get(1)?,
            current_prompt_id: r.get(2)?,
            current_turn_private: r.get::<_, i64>(3)? != 0,
        })
    }

    /// Whether an event of `prompt_id` belongs to the open private turn.
    fn in_private_turn(&self, prompt_id: Option<&str>) -> bool {
        self.current_turn_private
            && match (prompt_id, self.current_prompt_id.as_deref()) {
                (Some(p), Some(current)) => p == current,
                _ => true,
            }
    }
}

fn upsert_session(tx: &Transaction, s: &SessionRef, at_ms: i64) -> Result<SessionRow> {
    // Most events come from a session already stored exactly so: reading it first spares the
    // write of its row and both its index pages on every tool use.
    let known = tx
        .query_row(
            "SELECT id, prompt_counter, current_prompt_id, current_turn_private,
                    cwd IS NOT NULL, transcript_path, started_at_epoch
             FROM sessions WHERE platform_source = ?1 AND content_session_id = ?2",
            params![s.platform_source, s.content_session_id],
            |r| {
                let row = SessionRow::from_row(r)?;
                let has_cwd: bool = r.get(4)?;
                let transcript: Option<String> = r.get(5)?;
                let started: i64 = r.get(6)?;
                let unchanged = (has_cwd || s.cwd.is_none())
                    && (s.transcript_path.is_none() || s.transcript_path == transcript)
                    && started <= at_ms;
                Ok(unchanged.then_some(row))
            },
        )
        .optional()?
        .flatten();
    if let Some(row) = known {
        return Ok(row);
    }
    let row = tx.query_row(
        "INSERT INTO sessions (content_session_id, platform_source, project, cwd, transcript_path, started_at_epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (platform_source, content_session_id) DO UPDATE SET
             cwd = COALESCE(sessions.cwd, excluded.cwd),
             transcript_path = COALESCE(excluded.transcript_path, sessions.transcript_path),
             started_at_epoch = MIN(sessions.started_at_epoch, excluded.started_at_epoch)
         RETURNING id, prompt_counter, current_prompt_id, current_turn_private",
        params![
            s.content_session_id,
            s.platform_source,
            s.project,
            s.cwd,
            s.transcript_path,
            at_ms
        ],
        SessionRow::from_row,
    )?;
    Ok(row)
}

fn find_session(tx: &Transaction, s: &SessionRef) -> Result<Option<SessionRow>> {
    Ok(tx
        .query_row(
            "SELECT id, prompt_counter, current_prompt_id, current_turn_private FROM sessions
             WHERE platform_source = ?1 AND content_session_id = ?2",
            params![s.platform_source, s.content_session_id],
            SessionRow::from_row,
        )
        .optional()?)
}

pub(crate) fn apply(tx: &Transaction, capture: &Capture) -> Result<Outcome> {
    match capture {
        Capture::Prompt {
            session,
            prompt_id,
            text,
            at_ms,
        } => apply_prompt(tx, session, prompt_id.as_deref(), text.as_deref(), *at_ms),
        Capture::ToolUse {
            session,
            tool,
            at_ms,
        } => apply_tool_use(tx, session, tool, *at_ms),
        Capture::TurnEnd {
            session,
            prompt_id,
            last_assistant_message,
            at_ms,
            closes,
        } => apply_turn_end(
            tx,
            session,
            prompt_id.as_deref(),
            last_assistant_message.as_deref(),
            (*closes).then_some(*at_ms),
        ),
        Capture::SessionEnd {
            session,
            reason,
            at_ms,
        } => apply_session_end(tx, session, reason.as_deref(), *at_ms),
        Capture::WorkState {
            session,
            prompt_id,
            change,
            tool,
            at_ms,
        } => apply_work_state(
            tx,
            session,
            prompt_id.as_deref(),
            change,
            tool.as_deref(),
            *at_ms,
        ),
    }
}

fn apply_work_state(
    tx: &Transaction,
    session: &SessionRef,
    prompt_id: Option<&str>,
    change: &super::todos::TodoChange,
    tool: Option<&ToolUse>,
    at_ms: i64,
) -> Result<Outcome> {
    let s = upsert_session(tx, session, at_ms)?;
    if s.in_private_turn(prompt_id) {
        return Ok(Outcome::SkippedPrivate);
    }
    if let Some(tool) = tool {
        apply_tool_use(tx, session, tool, at_ms)?;
    }
    let request: Option<String> = tx.query_row(
        "SELECT user_prompt FROM sessions WHERE id = ?1",
        params![s.id],
        |r| r.get(0),
    )?;
    let list = super::todos::list_name(request.as_deref(), &session.content_session_id);
    let written = super::todos::apply(tx, s.id, &session.project, &list, change, at_ms)?;
    Ok(if written == 0 {
        Outcome::Duplicate
    } else {
        Outcome::Updated
    })
}

fn apply_prompt(
    tx: &Transaction,
    session: &SessionRef,
    prompt_id: Option<&str>,
    text: Option<&str>,
    at_ms: i64,
) -> Result<Outcome> {
    let s = upsert_session(tx, session, at_ms)?;
    let Some(text) = text else {
        tx.execute(
            "UPDATE sessions SET current_prompt_id = ?2, current_turn_private = 1 WHERE id = ?1",
            params![s.id, prompt_id],
        )?;
        return Ok(Outcome::SkippedPrivate);
    };
    if let Some(pid) = prompt_id {
        let known: Option<i64> = tx
            .query_row(
                "SELECT id FROM user_prompts WHERE content_session_id = ?1 AND prompt_id = ?2",
                params![session.content_session_id, pid],
                |r| r.get(0),
            )
            .optional()?;
        if known.is_some() {
            return Ok(Outcome::Duplicate);
        }
    }
    let recent_duplicate: Option<i64> = tx
        .query_row(
            "SELECT id FROM user_prompts WHERE session_id = ?1 AND prompt_text = ?2
               AND created_at_epoch BETWEEN ?3 AND ?4 LIMIT 1",
            params![
                s.id,
                text,
                at_ms - PROMPT_DEDUPE_WINDOW_MS,
                at_ms + PROMPT_DEDUPE_WINDOW_MS
            ],
            |r| r.get(0),
        )
        .optional()?;
    if recent_duplicate.is_some() {
        tx.execute(
            "UPDATE sessions SET current_turn_private = 0 WHERE id = ?1",
            params![s.id],
        )?;
        return Ok(Outcome::Duplicate);
    }
    let number: i64 = tx.query_row(
        "SELECT COUNT(*) + 1 FROM user_prompts WHERE session_id = ?1",
        params![s.id],
        |r| r.get(0),
    )?;
    // A new prompt closes whatever turn was still open in this session.
    tx.execute(
        "UPDATE user_prompts SET ended_at_epoch = ?2 WHERE session_id = ?1 AND ended_at_epoch IS NULL",
        params![s.id, at_ms],
    )?;
    tx.execute(
        "INSERT INTO user_prompts (session_id, content_session_id, prompt_id, prompt_number, prompt_text, created_at_epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![s.id, session.content_session_id, prompt_id, number, text, at_ms],
    )?;
    let id = tx.last_insert_rowid();
    tx.execute(
        "UPDATE sessions SET prompt_counter = MAX(prompt_counter, ?2), current_prompt_id = ?3,
             current_turn_private = 0, user_prompt = COALESCE(user_prompt, ?4),
             status = 'active', completed_at_epoch = NULL
         WHERE id = ?1",
        params![s.id, number, prompt_id, text],
    )?;
    Ok(Outcome::Stored(id))
}

fn apply_tool_use(
    tx: &Transaction,
    session: &SessionRef,
    tool: &ToolUse,
    at_ms: i64,
) -> Result<Outcome> {
    let s = upsert_session(tx, session, at_ms)?;
    if s.in_private_turn(tool.prompt_id.as_deref()) {
        return Ok(Outcome::SkippedPrivate);
    }
    let prompt_number: Option<i64> = match &tool.prompt_id {
        Some(pid) => tx
            .query_row(
                "SELECT prompt_number FROM user_prompts WHERE content_session_id = ?1 AND prompt_id = ?2",
                params![session.content_session_id, pid],
                |r| r.get(0),
            )
            .optional()?,
        None => None,
    }
    .or((s.prompt_counter > 0).then_some(s.prompt_counter));
    let inserted = tx.execute(
        "INSERT INTO tool_uses (tool_use_id, content_session_id, session_id, project, platform_source,
             tool_name, tool_input, tool_response, input_bytes, response_bytes, failed, error, is_interrupt,
             cwd, prompt_number, prompt_id, agent_type, agent_id, duration_ms, content_hash, created_at_epoch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)
         ON CONFLICT (content_session_id, tool_use_id) DO NOTHING",
        params![
            tool.tool_use_id,
            session.content_session_id,
            s.id,
            session.project,
            session.platform_source,
            tool.tool_name,
            tool.tool_input,
            tool.tool_response,
            tool.input_bytes as i64,
            tool.response_bytes as i64,
            tool.failed,
            tool.error,
            tool.is_interrupt,
            session.cwd,
            prompt_number,
            tool.prompt_id,
            tool.agent_type,
            tool.agent_id,
            tool.duration_ms,
            tool.content_hash,
            at_ms
        ],
    )?;
    Ok(if inserted == 0 {
        Outcome::Duplicate
    } else {
        Outcome::Stored(tx.last_insert_rowid())
    })
}

fn apply_turn_end(
    tx: &Transaction,
    session: &SessionRef,
    prompt_id: Option<&str>,
    last_message: Option<&str>,
    ended_at_ms: Option<i64>,
) -> Result<Outcome> {
    let Some(s) = find_session(tx, session)? else {
        return Ok(Outcome::NothingToDo);
    };
    if s.in_private_turn(prompt_id) {
        return Ok(Outcome::SkippedPrivate);
    }
    let by_id: Option<i64> = match prompt_id {
        Some(pid) => tx
            .query_row(
                "SELECT id FROM user_prompts WHERE content_session_id = ?1 AND prompt_id = ?2",
                params![session.content_session_id, pid],
                |r| r.get(0),
            )
            .optional()?,
        None => None,
    };
    let target = match by_id {
        Some(id) => Some(id),
        None => tx
            .query_row(
                "SELECT id FROM user_prompts WHERE session_id = ?1 ORDER BY prompt_number DESC LIMIT 1",
                params![s.id],
                |r| r.get(0),
            )
            .optional()?,
    };
    let Some(prompt_row) = target else {
        return Ok(Outcome::NothingToDo);
    };
    tx.execute(
        "UPDATE user_prompts SET ended_at_epoch = COALESCE(ended_at_epoch, ?2),
             last_assistant_message = COALESCE(?3, last_assistant_message)
         WHERE id = ?1",
        params![prompt_row, ended_at_ms, last_message],
    )?;
    Ok(Outcome::Updated)
}

fn apply_session_end(
    tx: &Transaction,
    session: &SessionRef,
    reason: Option<&str>,
    at_ms: i64,
) -> Result<Outcome> {
    let Some(s) = find_session(tx, session)? else {
        return Ok(Outcome::NothingToDo);
    };
    tx.execute(
        "UPDATE sessions SET status = 'completed', completed_at_epoch = ?2, end_reason = ?3 WHERE id = ?1",
        params![s.id, at_ms, reason],
    )?;
    tx.execute(
        "UPDATE user_prompts SET ended_at_epoch = ?2 WHERE session_id = ?1 AND ended_at_epoch IS NULL",
        params![s.id, at_ms],
    )?;
    Ok(Outcome::Updated)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn session(cwd: Option<&str>, transcript: Option<&str>) -> SessionRef {
        SessionRef {
            content_session_id: "s1".into(),
            platform_source: "claude".into(),
            project: "p".into(),
            cwd: cwd.map(String::from),
            transcript_path: transcript.map(String::from),
        }
    }

    fn stored(store: &Store) -> (Option<String>, Option<String>, i64, i64) {
        store
            .conn
            .query_row(
                "SELECT cwd, transcript_path, started_at_epoch, COUNT(*) FROM sessions",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap()
    }

    #[test]
    fn session_merge_keeps_first_cwd_newest_transcript_and_earliest_start() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("t.db")).unwrap();
        let mut upsert =
            |s: SessionRef, at: i64| store.write(|tx| upsert_session(tx, &s, at)).unwrap().id;
        let id = upsert(session(None, None), 2_000);
        // Unchanged, later: the read-first path returns the same row.
        assert_eq!(upsert(session(None, None), 3_000), id);
        // Each field that would change takes the write path.
        assert_eq!(upsert(session(Some("/a"), None), 3_000), id);
        assert_eq!(upsert(session(Some("/b"), Some("/t1")), 3_000), id);
        assert_eq!(upsert(session(None, Some("/t2")), 1_000), id);
        assert_eq!(upsert(session(Some("/c"), Some("/t2")), 4_000), id);
        assert_eq!(
            stored(&store),
            (Some("/a".into()), Some("/t2".into()), 1_000, 1)
        );
    }
}
