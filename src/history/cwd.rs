//! The working directory of each imported event. The hooks fall back to the importer's own
//! directory (or `$CLAUDE_PROJECT_DIR`) for a payload without one, which would file a past
//! session under whatever project the import ran from; here an event without one takes its
//! file's nearest, and a session whose file names none is left out.

use std::path::Path;

use anyhow::Result;
use serde_json::{Value, json};

use super::{Event, Report};

fn usable(payload: &serde_json::Map<String, Value>) -> Option<&str> {
    payload
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| !c.is_empty())
}

/// Gives each event without a usable cwd the last one this read met (`last`), else the next
/// one in the batch, else the next one in the file after `pos`, else the first in the file.
/// Events still without one are dropped and their sessions named in the report.
pub(super) fn fill(
    events: &mut Vec<Event>,
    last: &mut Option<String>,
    path: &Path,
    pos: u64,
    report: &mut Report,
) -> Result<()> {
    let mut orphans = Vec::new();
    for (i, e) in events.iter_mut().enumerate() {
        match (usable(&e.payload).map(String::from), last.as_ref()) {
            (Some(cwd), _) => *last = Some(cwd),
            (None, Some(cwd)) => {
                e.payload.insert("cwd".into(), json!(cwd));
            }
            (None, None) => orphans.push(i),
        }
    }
    if orphans.is_empty() {
        return Ok(());
    }
    let next = match events.iter().find_map(|e| usable(&e.payload)) {
        Some(cwd) => Some(cwd.to_string()),
        None => match scan(path, pos)? {
            Some(cwd) => Some(cwd),
            None => scan(path, 0)?,
        },
    };
    match next {
        Some(cwd) => {
            for &i in &orphans {
                events[i].payload.insert("cwd".into(), json!(cwd));
            }
            last.get_or_insert(cwd);
        }
        None => drop_orphans(events, &orphans, path, report),
    }
    Ok(())
}

fn drop_orphans(events: &mut Vec<Event>, orphans: &[usize], path: &Path, report: &mut Report) {
    for &i in orphans.iter().rev() {
        let e = events.remove(i);
        let sid = e
            .payload
            .get("session_id")
            .and_then(Value::as_str)
            .unwrap_or("(no id)")
            .to_string();
        let entry = (sid, path.to_path_buf());
        if !report.no_cwd.contains(&entry) {
            report.no_cwd.push(entry);
        }
    }
}

/// The first cwd a line from `from` on names (Claude Code's at the top, Codex's in the
/// payload).
fn scan(path: &Path, from: u64) -> Result<Option<String>> {
    super::scan::ahead(path, from, |line| {
        let payload = line.get("payload").and_then(Value::as_object);
        usable(line)
            .or_else(|| payload.and_then(usable))
            .map(str::to_string)
    })
}
