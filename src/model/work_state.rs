//! Layer 0: folding the append-only `work_state_entries` into lists, as claude-mem folds them.
//!
//! Each entry is a JSON object. An entry with a non-empty `task` updates that task's fields; any
//! other entry updates the list's own state. The latest value of each key wins and `null`
//! clears it (the key stays, so an older value cannot come back, but it is never shown).

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub id: i64,
    pub project: String,
    pub list_name: String,
    pub fields: Map<String, Value>,
    pub created_at: i64,
    /// Its place in the sync server's order, once the server holds it: entries of several
    /// devices fold by it, not by their writers' clocks.
    pub seq: Option<i64>,
}

impl Entry {
    /// The order entries fold in: the server's for synced ones, then the rest by time.
    pub(crate) fn order(&self) -> (bool, i64, i64, i64) {
        (
            self.seq.is_none(),
            self.seq.unwrap_or(0),
            self.created_at,
            self.id,
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Task {
    pub key: String,
    pub fields: Map<String, Value>,
    pub updated_at: i64,
}

impl Task {
    pub(crate) fn status(&self) -> Option<String> {
        self.fields.get("status").and_then(value_text)
    }

    pub(crate) fn is_closed(&self) -> bool {
        is_closed_status(self.status().as_deref())
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct List {
    pub project: String,
    pub name: String,
    /// `name`, or `name [project]` when the same name exists under several projects.
    pub label: String,
    pub state: Map<String, Value>,
    pub state_updated_at: Option<i64>,
    pub tasks: Vec<Task>,
    last_epoch: i64,
    last_id: i64,
}

impl List {
    /// A list whose own state says `status: done` is closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.state
            .get("status")
            .and_then(value_text)
            .is_some_and(|s| s.eq_ignore_ascii_case("done"))
    }
}

fn is_closed_status(status: Option<&str>) -> bool {
    status.is_some_and(|s| s.eq_ignore_ascii_case("done") || s.eq_ignore_ascii_case("dropped"))
}

/// The text of a scalar value (`null` and containers have none).
pub(crate) fn value_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn task_key(fields: &Map<String, Value>) -> Option<String> {
    fields
        .get("task")
        .and_then(value_text)
        .filter(|t| !t.is_empty())
}

/// Folds entries (any order) into lists, most recently written first.
pub fn fold(entries: &[Entry]) -> Vec<List> {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort_by_key(|e| e.order());
    let mut lists: Vec<List> = Vec::new();
    for e in sorted {
        let group = (e.project.to_lowercase(), e.list_name.clone());
        let idx = match lists
            .iter()
            .position(|l| (l.project.to_lowercase(), l.name.clone()) == group)
        {
            Some(i) => i,
            None => {
                lists.push(List {
                    project: e.project.clone(),
                    name: e.list_name.clone(),
                    label: e.list_name.clone(),
                    state: Map::new(),
                    state_updated_at: None,
                    tasks: Vec::new(),
                    last_epoch: e.created_at,
                    last_id: e.id,
                });
                lists.len() - 1
            }
        };
        let list = &mut lists[idx];
        list.last_epoch = e.created_at;
        list.last_id = e.id;
        match task_key(&e.fields) {
            Some(key) => {
                let at = match list.tasks.iter().position(|t| t.key == key) {
                    Some(i) => i,
                    None => {
                        list.tasks.push(Task {
                            key: key.clone(),
                            fields: Map::new(),
                            updated_at: e.created_at,
                        });
                        list.tasks.len() - 1
                    }
                };
                let task = &mut list.tasks[at];
                for (k, v) in &e.fields {
                    task.fields.insert(k.clone(), v.clone());
                }
                task.updated_at = e.created_at;
            }
            None => {
                for (k, v) in &e.fields {
                    list.state.insert(k.clone(), v.clone());
                }
                list.state_updated_at = Some(e.created_at);
            }
        }
    }
    // Same list name under more than one project: say which is which.
    let names: Vec<String> = lists.iter().map(|l| l.name.clone()).collect();
    let projects_per_name = |name: &str| {
        let mut ps: Vec<String> = lists
            .iter()
            .filter(|l| l.name == name)
            .map(|l| l.project.to_lowercase())
            .collect();
        ps.dedup();
        ps.len()
    };
    let ambiguous: Vec<bool> = names.iter().map(|n| projects_per_name(n) > 1).collect();
    for (list, amb) in lists.iter_mut().zip(ambiguous) {
        if amb {
            list.label = format!("{} [{}]", list.name, list.project);
        }
    }
    lists.sort_by_key(|l| std::cmp::Reverse((l.last_epoch, l.last_id)));
    lists
}

/// One visible line of a folded list.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    /// `- <label>[: k=v, …, updated <dur> ago]`
    Header {
        label: String,
        fields: Vec<(String, String)>,
        updated_at: Option<i64>,
    },
    /// `  - [<status>] <task> (k=v, …), updated <dur> ago`
    Task {
        status: Option<String>,
        task: String,
        fields: Vec<(String, String)>,
        updated_at: i64,
        closed: bool,
    },
}

fn visible_fields(map: &Map<String, Value>, skip: &[&str]) -> Vec<(String, String)> {
    map.iter()
        .filter(|(k, _)| !skip.contains(&k.as_str()))
        .filter_map(|(k, v)| match v {
            Value::Null => None,
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {
                value_text(v).map(|t| (k.clone(), t))
            }
            other => Some((k.clone(), other.to_string())),
        })
        .collect()
}

/// The visible lines of one list: closed tasks only with `include_closed`; a closed list keeps
/// its open tasks under a bare header; a list with nothing visible has no lines.
pub(crate) fn lines(list: &List, include_closed: bool) -> Vec<Line> {
    let tasks: Vec<Line> = list
        .tasks
        .iter()
        .filter(|t| include_closed || !t.is_closed())
        .map(|t| Line::Task {
            status: t.status().filter(|s| !s.is_empty()),
            task: t.key.clone(),
            fields: visible_fields(&t.fields, &["task", "status"]),
            updated_at: t.updated_at,
            closed: t.is_closed(),
        })
        .collect();
    let show_state = include_closed || !list.is_closed();
    let state = if show_state {
        visible_fields(&list.state, &["task"])
    } else {
        Vec::new()
    };
    if tasks.is_empty() && state.is_empty() {
        return Vec::new();
    }
    let header = Line::Header {
        label: list.label.clone(),
        updated_at: (!state.is_empty())
            .then_some(list.state_updated_at)
            .flatten(),
        fields: state,
    };
    std::iter::once(header).chain(tasks).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(id: i64, project: &str, list: &str, fields: Value, at: i64) -> Entry {
        Entry {
            id,
            project: project.into(),
            list_name: list.into(),
            fields: fields.as_object().unwrap().clone(),
            created_at: at,
            seq: None,
        }
    }

    /// Renders lines compactly for table-driven assertions.
    fn show(lists: &[List], include_closed: bool) -> Vec<String> {
        lists
            .iter()
            .flat_map(|l| lines(l, include_closed))
            .map(|l| match l {
                Line::Header { label, fields, .. } => {
                    let f: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    if f.is_empty() {
                        format!("- {label}")
                    } else {
                        format!("- {label}: {}", f.join(", "))
                    }
                }
                Line::Task {
                    status,
                    task,
                    fields,
                    ..
                } => {
                    let f: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    let s = status.map(|s| format!("[{s}] ")).unwrap_or_default();
                    let p = if f.is_empty() {
                        String::new()
                    } else {
                        format!(" ({})", f.join(", "))
                    };
                    format!("  - {s}{task}{p}")
                }
            })
            .collect()
    }

    #[test]
    fn fold_table() {
        type Case = (&'static str, Vec<Entry>, bool, Vec<&'static str>);
        let cases: Vec<Case> = vec![
            ("empty", vec![], false, vec![]),
            (
                "latest value wins",
                vec![
                    entry(1, "p", "l", json!({"task": "a", "status": "todo"}), 1),
                    entry(
                        2,
                        "p",
                        "l",
                        json!({"task": "a", "status": "doing", "owner": "me"}),
                        2,
                    ),
                ],
                false,
                vec!["- l", "  - [doing] a (owner=me)"],
            ),
            (
                "null clears and never comes back",
                vec![
                    entry(1, "p", "l", json!({"branch": "x", "phase": 1}), 1),
                    entry(2, "p", "l", json!({"branch": null}), 2),
                ],
                false,
                vec!["- l: phase=1"],
            ),
            (
                "done and dropped tasks are closed",
                vec![
                    entry(1, "p", "l", json!({"task": "a", "status": "done"}), 1),
                    entry(2, "p", "l", json!({"task": "b", "status": "DROPPED"}), 2),
                    entry(3, "p", "l", json!({"task": "c", "status": "todo"}), 3),
                ],
                false,
                vec!["- l", "  - [todo] c"],
            ),
            (
                "include closed",
                vec![
                    entry(1, "p", "l", json!({"task": "a", "status": "done"}), 1),
                    entry(2, "p", "l", json!({"task": "c"}), 2),
                ],
                true,
                vec!["- l", "  - [done] a", "  - c"],
            ),
            (
                "closed list hides its state, keeps open tasks",
                vec![
                    entry(1, "p", "l", json!({"task": "a", "status": "todo"}), 1),
                    entry(2, "p", "l", json!({"status": "done", "note": "shipped"}), 2),
                ],
                false,
                vec!["- l", "  - [todo] a"],
            ),
            (
                "closed list with nothing open has no lines",
                vec![
                    entry(1, "p", "l", json!({"task": "a", "status": "done"}), 1),
                    entry(2, "p", "l", json!({"status": "done"}), 2),
                ],
                false,
                vec![],
            ),
            (
                "most recently written list first",
                vec![
                    entry(1, "p", "old", json!({"k": 1}), 1),
                    entry(2, "p", "new", json!({"k": 2}), 2),
                ],
                false,
                vec!["- new: k=2", "- old: k=1"],
            ),
            (
                "concurrent writers to one list: order by time then id",
                vec![
                    entry(7, "p", "l", json!({"task": "a", "status": "doing"}), 5),
                    entry(6, "p", "l", json!({"task": "a", "status": "todo"}), 5),
                    entry(8, "p", "l", json!({"task": "b", "status": "todo"}), 4),
                ],
                false,
                vec!["- l", "  - [todo] b", "  - [doing] a"],
            ),
            (
                "same name in two projects gets labels; case-insensitive projects merge",
                vec![
                    entry(1, "App", "todo", json!({"k": 1}), 1),
                    entry(2, "app", "todo", json!({"j": 2}), 2),
                    entry(3, "lib", "todo", json!({"k": 3}), 3),
                ],
                false,
                vec!["- todo [lib]: k=3", "- todo [App]: k=1, j=2"],
            ),
            (
                "numeric task names and empty task are state",
                vec![
                    entry(1, "p", "l", json!({"task": 42, "status": "todo"}), 1),
                    entry(2, "p", "l", json!({"task": "", "phase": "x"}), 2),
                ],
                false,
                vec!["- l: phase=x", "  - [todo] 42"],
            ),
        ];
        for (name, entries, closed, want) in cases {
            assert_eq!(show(&fold(&entries), closed), want, "{name}");
        }
    }
}
