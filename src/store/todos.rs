//! The agent's own to-do tools (Claude Code's TodoWrite and its task tools) written into the
//! work state, so open items show at the next session start without the agent's cooperation.
//!
//! Each session gets one list, named after the session's request (its first prompt). Only
//! changes are appended: a TodoWrite that repeats the list adds nothing, and an open item a
//! later TodoWrite of the same session leaves out is marked dropped.

use anyhow::Result;
use rusqlite::{OptionalExtension, Transaction, params};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// How long a list name may be (UTF-16 units).
const LIST_NAME_MAX: usize = 60;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct TodoItem {
    pub task: String,
    /// `todo`, `doing`, `done` or `dropped`.
    pub status: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum TodoChange {
    /// TodoWrite: the whole list as it stands now.
    Snapshot { items: Vec<TodoItem> },
    /// TaskCreate / TaskUpdate: one task, known by the host's id.
    Task {
        id: Option<String>,
        subject: Option<String>,
        status: Option<String>,
    },
}

/// Claude Code's to-do statuses in work-state words.
pub(crate) fn status_word(host: &str) -> String {
    match host.trim().to_ascii_lowercase().as_str() {
        "pending" | "todo" | "open" | "" => "todo".into(),
        "in_progress" | "in-progress" | "doing" | "active" => "doing".into(),
        "completed" | "done" | "complete" => "done".into(),
        "deleted" | "cancelled" | "canceled" | "dropped" => "dropped".into(),
        other => other.to_string(),
    }
}

fn is_closed(status: &str) -> bool {
    matches!(status, "done" | "dropped")
}

/// The work-state list of a session: its request, on one line.
pub(crate) fn list_name(session_request: Option<&str>, content_session_id: &str) -> String {
    let words: Vec<&str> = session_request.unwrap_or("").split_whitespace().collect();
    let name = words.join(" ");
    if name.is_empty() {
        let short: String = content_session_id.chars().take(8).collect();
        return format!("session {short}");
    }
    if crate::model::utf16_len(&name) <= LIST_NAME_MAX {
        return name;
    }
    let mut out = String::new();
    for c in name.chars() {
        if crate::model::utf16_len(&out) + c.len_utf16() + 1 > LIST_NAME_MAX {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

struct Known {
    status: String,
    from_this_session: bool,
}

/// The current status of every task of a list, and whether this session last wrote it.
fn known_tasks(
    tx: &Transaction,
    project: &str,
    list: &str,
    session_id: i64,
) -> Result<Vec<(String, Known)>> {
    let mut stmt = tx.prepare_cached(
        "SELECT fields, session_id FROM work_state_entries
         WHERE project = ?1 COLLATE NOCASE AND list_name = ?2 ORDER BY created_at_epoch, id",
    )?;
    let rows = stmt.query_map(params![project, list], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, Option<i64>>(1)?))
    })?;
    let mut out: Vec<(String, Known)> = Vec::new();
    for row in rows {
        let (fields, session) = row?;
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(&fields) else {
            continue;
        };
        let Some(task) = fields.get("task").and_then(Value::as_str) else {
            continue;
        };
        let status = fields.get("status").and_then(Value::as_str);
        let this = session == Some(session_id);
        match out.iter_mut().find(|(t, _)| t == task) {
            Some((_, k)) => {
                if let Some(s) = status {
                    k.status = s.to_string();
                }
                k.from_this_session = this;
            }
            None => out.push((
                task.to_string(),
                Known {
                    status: status.unwrap_or("").to_string(),
                    from_this_session: this,
                },
            )),
        }
    }
    Ok(out)
}

/// Where entries of one change go.
struct Target<'a> {
    project: &'a str,
    list: &'a str,
    session_id: i64,
    at_ms: i64,
}

fn append(tx: &Transaction, to: &Target, task: &str, status: &str, source: &str) -> Result<()> {
    let Target {
        project,
        list,
        session_id,
        at_ms,
    } = *to;
    let mut fields = Map::new();
    fields.insert("task".into(), Value::String(task.to_string()));
    fields.insert("status".into(), Value::String(status.to_string()));
    tx.execute(
        "INSERT INTO work_state_entries (project, list_name, fields, created_at_epoch, source, session_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            project,
            list,
            Value::Object(fields).to_string(),
            at_ms,
            source,
            session_id
        ],
    )?;
    Ok(())
}

/// Appends what changed; returns how many entries were written.
pub(crate) fn apply(
    tx: &Transaction,
    session_id: i64,
    project: &str,
    list: &str,
    change: &TodoChange,
    at_ms: i64,
) -> Result<usize> {
    let known = known_tasks(tx, project, list, session_id)?;
    let to = Target {
        project,
        list,
        session_id,
        at_ms,
    };
    let mut written = 0;
    match change {
        TodoChange::Snapshot { items } => {
            for item in items {
                let current = known.iter().find(|(t, _)| *t == item.task);
                if current.is_none_or(|(_, k)| k.status != item.status) {
                    append(tx, &to, &item.task, &item.status, "todo")?;
                    written += 1;
                }
            }
            for (task, k) in &known {
                let listed = items.iter().any(|i| i.task == *task);
                if !listed && k.from_this_session && !is_closed(&k.status) {
                    append(tx, &to, task, "dropped", "todo")?;
                    written += 1;
                }
            }
        }
        TodoChange::Task {
            id,
            subject,
            status,
        } => {
            let source = format!("task:{}", id.as_deref().unwrap_or(""));
            let previous: Option<String> = match id {
                Some(_) => tx
                    .query_row(
                        "SELECT json_extract(fields, '$.task') FROM work_state_entries
                         WHERE session_id = ?1 AND source = ?2 ORDER BY id DESC LIMIT 1",
                        params![session_id, source],
                        |r| r.get(0),
                    )
                    .optional()?
                    .flatten(),
                None => None,
            };
            let task = subject.clone().or(previous.clone());
            let Some(task) = task else {
                return Ok(0);
            };
            let current = known
                .iter()
                .find(|(t, _)| *t == task)
                .map(|(_, k)| k.status.clone());
            let status = status
                .clone()
                .or(current.clone())
                .unwrap_or_else(|| "todo".into());
            if let Some(old) = previous.filter(|old| *old != task) {
                append(tx, &to, &old, "dropped", &source)?;
                written += 1;
            }
            if current.as_deref() != Some(status.as_str()) || written > 0 {
                append(tx, &to, &task, &status, &source)?;
                written += 1;
            }
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn items(pairs: &[(&str, &str)]) -> TodoChange {
        TodoChange::Snapshot {
            items: pairs
                .iter()
                .map(|(t, s)| TodoItem {
                    task: t.to_string(),
                    status: s.to_string(),
                })
                .collect(),
        }
    }

    fn fields(store: &Store) -> Vec<String> {
        let mut stmt = store
            .conn
            .prepare("SELECT fields FROM work_state_entries ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    #[test]
    fn snapshots_append_only_changes_and_drop_what_disappears() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("t.db")).unwrap();
        let list = list_name(Some("build the\nparser"), "s1");
        assert_eq!(list, "build the parser");
        store
            .write(|tx| {
                apply(
                    tx,
                    1,
                    "p",
                    &list,
                    &items(&[("a", "doing"), ("b", "todo")]),
                    1,
                )?;
                apply(
                    tx,
                    1,
                    "p",
                    &list,
                    &items(&[("a", "doing"), ("b", "todo")]),
                    2,
                )?;
                apply(tx, 1, "p", &list, &items(&[("a", "done")]), 3)?;
                Ok(())
            })
            .unwrap();
        assert_eq!(
            fields(&store),
            vec![
                r#"{"task":"a","status":"doing"}"#,
                r#"{"task":"b","status":"todo"}"#,
                r#"{"task":"a","status":"done"}"#,
                r#"{"task":"b","status":"dropped"}"#,
            ]
        );
    }

    #[test]
    fn task_updates_find_their_task_by_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("t.db")).unwrap();
        store
            .write(|tx| {
                let create = TodoChange::Task {
                    id: Some("1".into()),
                    subject: Some("Ship it".into()),
                    status: None,
                };
                let update = TodoChange::Task {
                    id: Some("1".into()),
                    subject: None,
                    status: Some("doing".into()),
                };
                assert_eq!(apply(tx, 7, "p", "l", &create, 1)?, 1);
                assert_eq!(apply(tx, 7, "p", "l", &update, 2)?, 1);
                Ok(())
            })
            .unwrap();
        assert_eq!(
            fields(&store),
            vec![
                r#"{"task":"Ship it","status":"todo"}"#,
                r#"{"task":"Ship it","status":"doing"}"#
            ]
        );
    }
}
