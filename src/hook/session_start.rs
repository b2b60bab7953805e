//! SessionStart: inject the work state and the memory index as `additionalContext`.

use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use super::capture;
use super::payload::Payload;
use crate::config::Settings;
use crate::project;
use crate::store::{Store, Wait};
use crate::view::context;

pub(crate) fn answer(
    payload: &Payload,
    settings: &Settings,
    deadline: Instant,
    now: i64,
    max_bytes: Option<usize>,
) -> Result<Option<String>> {
    payload.validate()?;
    let cwd = capture::event_cwd(payload);
    if let Some(skip) = capture::capture_disabled(&cwd, settings) {
        crate::logging::debug(format!("no context: {skip:?}"));
        return Ok(None);
    }
    let keys = project::resolve(&cwd);
    let data_dir = settings.data_dir();
    anyhow::ensure!(
        !data_dir.exists() || data_dir.is_dir(),
        "the data dir {} is not a directory",
        data_dir.display()
    );
    let db = settings.db_path();
    // The hook's one connection, waiting for a busy database no longer than the deadline.
    let store = match db.exists() {
        true => Some(Store::open_with(&db, Wait::Until(deadline))?),
        false => None,
    };
    let conn = store.as_ref().map(|s| &s.conn);
    let mut ctx = context::load_or_empty(
        conn,
        &keys.primary,
        &keys.all,
        &settings.context,
        now,
        false,
    )?;
    // A host that measures its context in bytes (Codex moves a longer one into a file) gets the
    // index fitted again into a smaller limit: Chinese text takes three bytes a character.
    if let Some(max) = max_bytes {
        let mut fitted = settings.context.clone();
        for _ in 0..4 {
            let bytes = ctx.text.len();
            if bytes <= max {
                break;
            }
            // The text's own length in the limit's units, cut in the proportion of bytes over.
            fitted.limit = (ctx.chars() * max / bytes)
                .saturating_sub(100)
                .clamp(1_000.min(fitted.limit), fitted.limit);
            ctx = context::load_or_empty(conn, &keys.primary, &keys.all, &fitted, now, false)?;
        }
    }
    if ctx.over_budget {
        crate::logging::warn(format!(
            "context is over its limit ({} > {})",
            ctx.chars(),
            ctx.limit
        ));
    }
    let mut answer = json!({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": ctx.text}});
    if settings.context.show_user {
        answer["systemMessage"] = ctx.user_summary().into();
    }
    Ok(Some(answer.to_string()))
}
