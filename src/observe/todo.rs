//! Claude Code's to-do tools as work-state changes: TodoWrite carries the whole list, the task
//! tools (TaskCreate, TaskUpdate) one task at a time. Read at capture time, so the open items
//! are in the work state as soon as the agent writes them.

use serde_json::Value;

use crate::privacy;
use crate::store::todos::{TodoChange, TodoItem, status_word};

fn text(v: Option<&Value>) -> Option<String> {
    let t = privacy::clean_text(v?.as_str()?);
    Some(t).filter(|t| !t.is_empty())
}

/// The work-state change a to-do tool call makes, if any.
pub(crate) fn change(
    tool_name: &str,
    input: Option<&Value>,
    response: Option<&Value>,
) -> Option<TodoChange> {
    let input = input?;
    match tool_name {
        "TodoWrite" => {
            let todos = input.get("todos")?.as_array()?;
            let items = todos
                .iter()
                .filter_map(|t| {
                    Some(TodoItem {
                        task: text(t.get("content").or_else(|| t.get("subject")))?,
                        status: status_word(t.get("status").and_then(Value::as_str).unwrap_or("")),
                    })
                })
                .collect();
            Some(TodoChange::Snapshot { items })
        }
        "TaskCreate" => Some(TodoChange::Task {
            id: response
                .and_then(|r| r.get("task"))
                .and_then(|t| t.get("id"))
                .and_then(id_text),
            subject: Some(text(input.get("subject"))?),
            status: Some("todo".into()),
        }),
        "TaskUpdate" => Some(TodoChange::Task {
            id: input.get("taskId").and_then(id_text),
            subject: text(input.get("subject")),
            status: input.get("status").and_then(Value::as_str).map(status_word),
        }),
        _ => None,
    }
}

fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn todo_write_becomes_a_snapshot() {
        let input = json!({"todos": [
            {"content": "Write the parser", "status": "in_progress", "activeForm": "Writing"},
            {"content": "Add tests", "status": "pending"},
            {"content": "", "status": "pending"}
        ]});
        let Some(TodoChange::Snapshot { items }) = change("TodoWrite", Some(&input), None) else {
            panic!("no snapshot")
        };
        assert_eq!(
            items,
            vec![
                TodoItem {
                    task: "Write the parser".into(),
                    status: "doing".into()
                },
                TodoItem {
                    task: "Add tests".into(),
                    status: "todo".into()
                },
            ]
        );
    }

    #[test]
    fn task_tools_become_task_changes() {
        let create = change(
            "TaskCreate",
            Some(&json!({"subject": "Ship", "description": "x"})),
            Some(&json!({"task": {"id": "1", "subject": "Ship"}})),
        );
        assert_eq!(
            create,
            Some(TodoChange::Task {
                id: Some("1".into()),
                subject: Some("Ship".into()),
                status: Some("todo".into())
            })
        );
        let update = change(
            "TaskUpdate",
            Some(&json!({"taskId": "1", "status": "completed"})),
            None,
        );
        assert_eq!(
            update,
            Some(TodoChange::Task {
                id: Some("1".into()),
                subject: None,
                status: Some("done".into())
            })
        );
        assert_eq!(change("TaskList", Some(&json!({})), None), None);
    }
}
