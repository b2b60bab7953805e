//! Scripted sessions and the Claude Code hook payloads they become.
//!
//! A script says what a person asked and what the agent did (read a file, edit it, run a
//! command, keep a to-do list); `Project::payloads` turns it into the payloads Claude Code
//! sends, in the recorded shapes of `tests/fixtures/payloads/`, with the fields Claude Code
//! derives from the files (an Edit's `originalFile` and `structuredPatch`, a Read's content, a
//! Grep's matching lines) taken from the project's files as the session left them. An edit
//! whose `old_string` is not in the file is an error: a script cannot drift from its code.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use serde_json::{Value, json};

/// One tool call of a turn.
pub enum Step {
    Read(&'static str),
    Edit {
        path: &'static str,
        old: &'static str,
        new: &'static str,
    },
    Write {
        path: &'static str,
        content: &'static str,
    },
    /// A shell command; `Err` output makes it a PostToolUseFailure.
    Bash {
        command: &'static str,
        description: &'static str,
        output: std::result::Result<&'static str, &'static str>,
    },
    /// A literal Grep over the project's files (content mode, with line numbers).
    Grep(&'static str),
    Glob {
        pattern: &'static str,
        files: &'static [&'static str],
    },
    /// TodoWrite with the whole list: (task, status).
    Todos(&'static [(&'static str, &'static str)]),
    TaskCreate {
        id: &'static str,
        subject: &'static str,
    },
    TaskUpdate {
        id: &'static str,
        status: &'static str,
    },
    WebFetch {
        url: &'static str,
        prompt: &'static str,
        result: &'static str,
    },
    /// A subagent (the Agent tool) and its final report.
    Agent {
        description: &'static str,
        prompt: &'static str,
        report: &'static str,
    },
}

pub struct Turn {
    pub prompt: &'static str,
    pub steps: Vec<Step>,
    /// The assistant's last message (Stop's `last_assistant_message`).
    pub reply: &'static str,
}

pub struct Session {
    /// Days before the demo's last day (1 = the day before "now").
    pub days_ago: i64,
    /// Start time that day, in minutes after midnight UTC.
    pub minute: i64,
    /// `claude --continue`: the previous session goes on (same session id, so the same
    /// to-do list).
    pub resume: bool,
    pub turns: Vec<Turn>,
}

pub struct Project {
    pub name: &'static str,
    /// The files as the first session finds them: (path relative to the project, contents).
    pub files: Vec<(&'static str, &'static str)>,
    pub sessions: Vec<Session>,
}

/// Shorthands the session scripts are written in.
pub(crate) fn read(path: &'static str) -> Step {
    Step::Read(path)
}

pub(crate) fn edit(path: &'static str, old: &'static str, new: &'static str) -> Step {
    Step::Edit { path, old, new }
}

pub(crate) fn write(path: &'static str, content: &'static str) -> Step {
    Step::Write { path, content }
}

pub(crate) fn bash(command: &'static str, description: &'static str, stdout: &'static str) -> Step {
    Step::Bash {
        command,
        description,
        output: Ok(stdout),
    }
}

pub(crate) fn fails(command: &'static str, description: &'static str, error: &'static str) -> Step {
    Step::Bash {
        command,
        description,
        output: Err(error),
    }
}

pub(crate) fn turn(prompt: &'static str, steps: Vec<Step>, reply: &'static str) -> Turn {
    Turn {
        prompt,
        steps,
        reply,
    }
}

/// A session `days_ago` days before the demo's last day, starting at `hh:mm` UTC.
pub(crate) fn session(days_ago: i64, hh: i64, mm: i64, turns: Vec<Turn>) -> Session {
    Session {
        days_ago,
        minute: hh * 60 + mm,
        resume: false,
        turns,
    }
}

/// The previous session, continued `days_ago` days before the demo's last day at `hh:mm`.
pub(crate) fn resumed(days_ago: i64, hh: i64, mm: i64, turns: Vec<Turn>) -> Session {
    Session {
        resume: true,
        ..session(days_ago, hh, mm, turns)
    }
}

/// One hook call: the event's `cmem hook` name, its payload, and when it happens.
pub struct Event {
    pub hook: &'static str,
    pub payload: Value,
    pub at_ms: i64,
}

const DAY_MS: i64 = 86_400_000;
/// Where the demo's projects live: not a real directory, so nothing on the machine shapes the
/// data set (no git root above it, no files read).
pub(crate) const HOME: &str = "/home/dev";

pub(crate) fn project_dir(name: &str) -> String {
    format!("{HOME}/{name}")
}

/// A stable UUID-shaped id for `text` (FNV-1a, twice), so the data set is byte-identical.
fn uuid(text: &str) -> String {
    let hash = |seed: u64| {
        text.bytes().fold(seed, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    };
    let (a, b) = (hash(0xcbf2_9ce4_8422_2325), hash(0x8422_2325_cbf2_9ce4));
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0xfff,
        b >> 52,
        b & 0xffff_ffff_ffff
    )
}

impl Project {
    /// Every hook call of every session, in order, for a demo that ends at `end_ms`.
    pub fn payloads(&self, end_ms: i64) -> Result<Vec<Event>> {
        let mut files: BTreeMap<String, String> = self
            .files
            .iter()
            .map(|(p, c)| (p.to_string(), c.to_string()))
            .collect();
        let dir = project_dir(self.name);
        let midnight = end_ms.div_euclid(DAY_MS) * DAY_MS;
        let mut out = Vec::new();
        let mut sid = String::new();
        for (s, session) in self.sessions.iter().enumerate() {
            if !(session.resume && s > 0) {
                sid = uuid(&format!("{}/session/{s}", self.name));
            }
            let source = if session.resume { "resume" } else { "startup" };
            let mut at = midnight - session.days_ago * DAY_MS + session.minute * 60_000;
            let base = json!({
                "session_id": sid,
                "transcript_path": format!("{HOME}/.claude/projects/{}/{sid}.jsonl", dir.replace('/', "-")),
                "cwd": dir,
            });
            let with = |fields: Value| {
                let mut v = base.clone();
                if let (Some(v), Some(f)) = (v.as_object_mut(), fields.as_object()) {
                    v.extend(f.clone());
                }
                v
            };
            out.push(Event {
                hook: "session-start",
                payload: with(json!({"hook_event_name": "SessionStart", "source": source})),
                at_ms: at,
            });
            for (t, turn) in session.turns.iter().enumerate() {
                let pid = uuid(&format!("{}/prompt/{s}/{t}", self.name));
                at += 20_000;
                out.push(Event {
                    hook: "user-prompt-submit",
                    payload: with(json!({
                        "prompt_id": pid, "permission_mode": "default",
                        "hook_event_name": "UserPromptSubmit", "prompt": turn.prompt,
                    })),
                    at_ms: at,
                });
                for (n, step) in turn.steps.iter().enumerate() {
                    let (tool, input, response) =
                        tool_call(step, &dir, &mut files).map_err(|e| {
                            anyhow::anyhow!("{} session {s} turn {t} step {n}: {e}", self.name)
                        })?;
                    // Time passes with what the call carries, so a day reads like work.
                    let took = 4_000 + (input.to_string().len() as i64 % 50) * 1_000;
                    at += took;
                    let mut fields = json!({
                        "prompt_id": pid, "permission_mode": "default",
                        "tool_name": tool, "tool_input": input,
                        "tool_use_id": format!("toolu_{}", &uuid(&format!("{pid}/{n}")).replace('-', "")[..24]),
                        "duration_ms": took / 10,
                    });
                    let hook = match response {
                        Ok(r) => {
                            fields["hook_event_name"] = json!("PostToolUse");
                            fields["tool_response"] = r;
                            "post-tool-use"
                        }
                        Err(e) => {
                            fields["hook_event_name"] = json!("PostToolUseFailure");
                            fields["error"] = json!(e);
                            fields["is_interrupt"] = json!(false);
                            "post-tool-use-failure"
                        }
                    };
                    out.push(Event {
                        hook,
                        payload: with(fields),
                        at_ms: at,
                    });
                }
                at += 30_000;
                out.push(Event {
                    hook: "stop",
                    payload: with(json!({
                        "prompt_id": pid, "permission_mode": "default",
                        "hook_event_name": "Stop", "stop_hook_active": false,
                        "last_assistant_message": turn.reply,
                    })),
                    at_ms: at,
                });
                at += 90_000;
            }
            out.push(Event {
                hook: "session-end",
                payload: with(
                    json!({"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"}),
                ),
                at_ms: at,
            });
        }
        Ok(out)
    }
}

type Call = (&'static str, Value, std::result::Result<Value, String>);

/// The tool's name, input and response (or error) for `step`, updating `files` as it writes.
fn tool_call(step: &Step, dir: &str, files: &mut BTreeMap<String, String>) -> Result<Call> {
    let abs = |p: &str| format!("{dir}/{p}");
    Ok(match step {
        Step::Read(path) => {
            let Some(content) = files.get(*path) else {
                bail!("Read of {path}, which the project does not have");
            };
            let lines = content.lines().count();
            (
                "Read",
                json!({"file_path": abs(path)}),
                Ok(json!({"type": "text", "file": {
                    "filePath": abs(path), "content": content,
                    "numLines": lines, "startLine": 1, "totalLines": lines,
                }})),
            )
        }
        Step::Edit { path, old, new } => {
            let Some(before) = files.get(*path).cloned() else {
                bail!("Edit of {path}, which the project does not have");
            };
            if before.matches(old).count() != 1 {
                bail!(
                    "Edit of {path}: old_string occurs {} times, not once: {old:?}",
                    before.matches(old).count()
                );
            }
            let after = before.replacen(old, new, 1);
            let response = json!({
                "filePath": abs(path), "oldString": old, "newString": new,
                "originalFile": before,
                "structuredPatch": structured_patch(&before, &after),
                "userModified": false, "replaceAll": false,
            });
            files.insert(path.to_string(), after);
            (
                "Edit",
                json!({"file_path": abs(path), "old_string": old, "new_string": new, "replace_all": false}),
                Ok(response),
            )
        }
        Step::Write { path, content } => {
            let before = files.insert(path.to_string(), content.to_string());
            let patch = before
                .as_deref()
                .map_or(json!([]), |b| structured_patch(b, content));
            (
                "Write",
                json!({"file_path": abs(path), "content": content}),
                Ok(json!({
                    "type": if before.is_some() { "update" } else { "create" },
                    "filePath": abs(path), "content": content,
                    "structuredPatch": patch, "originalFile": before,
                    "userModified": false,
                })),
            )
        }
        Step::Bash {
            command,
            description,
            output,
        } => {
            let input = json!({"command": command, "description": description});
            match output {
                Ok(stdout) => (
                    "Bash",
                    input,
                    Ok(json!({
                        "stdout": stdout, "stderr": "", "interrupted": false,
                        "isImage": false, "noOutputExpected": false,
                    })),
                ),
                Err(error) => ("Bash", input, Err(format!("Exit code 101\n{error}"))),
            }
        }
        Step::Grep(pattern) => {
            let mut lines = Vec::new();
            let mut names = Vec::new();
            for (path, content) in files.iter() {
                for (i, line) in content.lines().enumerate() {
                    if line.contains(pattern) {
                        lines.push(format!("{path}:{}:{line}", i + 1));
                        if !names.contains(path) {
                            names.push(path.clone());
                        }
                    }
                }
            }
            (
                "Grep",
                json!({"pattern": pattern, "path": dir, "output_mode": "content", "-n": true}),
                Ok(json!({
                    "mode": "content", "numFiles": names.len(), "filenames": [],
                    "content": lines.join("\n"), "numLines": lines.len(),
                })),
            )
        }
        Step::Glob { pattern, files } => (
            "Glob",
            json!({"pattern": pattern}),
            Ok(json!({
                "filenames": files, "durationMs": 9, "numFiles": files.len(),
                "truncated": false,
            })),
        ),
        Step::Todos(items) => {
            let todos: Vec<Value> = items
                .iter()
                .map(
                    |(task, status)| json!({"content": task, "status": status, "activeForm": task}),
                )
                .collect();
            (
                "TodoWrite",
                json!({"todos": todos}),
                Ok(json!({"oldTodos": [], "newTodos": todos})),
            )
        }
        Step::TaskCreate { id, subject } => (
            "TaskCreate",
            json!({"subject": subject, "description": subject, "activeForm": subject}),
            Ok(json!({"task": {"id": id, "subject": subject, "description": subject}})),
        ),
        Step::TaskUpdate { id, status } => (
            "TaskUpdate",
            json!({"taskId": id, "status": status}),
            Ok(json!({
                "success": true, "taskId": id, "updatedFields": ["status"],
                "statusChange": {"from": "pending", "to": status},
            })),
        ),
        Step::WebFetch {
            url,
            prompt,
            result,
        } => (
            "WebFetch",
            json!({"url": url, "prompt": prompt}),
            Ok(json!({
                "bytes": result.len() * 12, "code": 200, "codeText": "OK",
                "result": result, "durationMs": 1_240, "url": url,
            })),
        ),
        Step::Agent {
            description,
            prompt,
            report,
        } => (
            "Agent",
            json!({"description": description, "prompt": prompt, "subagent_type": "general-purpose"}),
            Ok(json!({
                "status": "completed", "prompt": prompt,
                "agentType": "general-purpose",
                "content": [{"type": "text", "text": report}],
                "totalDurationMs": 48_000, "totalToolUseCount": 9,
            })),
        ),
    })
}

/// Hunks with three lines of context around each change, as Claude Code sends them (a line
/// diff by longest common subsequence; removed lines before added ones).
pub fn structured_patch(before: &str, after: &str) -> Value {
    const CONTEXT: usize = 3;
    let old: Vec<&str> = before.lines().collect();
    let new: Vec<&str> = after.lines().collect();
    let (n, m) = (old.len(), new.len());
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            ops.push((' ', old[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push(('-', old[i]));
            i += 1;
        } else {
            ops.push(('+', new[j]));
            j += 1;
        }
    }
    let changes: Vec<usize> = (0..ops.len()).filter(|&k| ops[k].0 != ' ').collect();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for &k in &changes {
        match groups.last_mut() {
            Some((_, last)) if k - *last <= 2 * CONTEXT => *last = k,
            _ => groups.push((k, k)),
        }
    }
    let hunks: Vec<Value> = groups
        .iter()
        .map(|&(first, last)| {
            let start = first.saturating_sub(CONTEXT);
            let end = (last + CONTEXT + 1).min(ops.len());
            let count = |range: &[(char, &str)], side: char| {
                range
                    .iter()
                    .filter(|(c, _)| *c == ' ' || *c == side)
                    .count()
            };
            let hunk = &ops[start..end];
            json!({
                "oldStart": count(&ops[..start], '-') + 1,
                "oldLines": count(hunk, '-'),
                "newStart": count(&ops[..start], '+') + 1,
                "newLines": count(hunk, '+'),
                "lines": hunk.iter().map(|(c, l)| format!("{c}{l}")).collect::<Vec<_>>(),
            })
        })
        .collect();
    Value::Array(hunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patch_has_context_and_counts() {
        let p = structured_patch("a\nb\nc\nd\n", "a\nb\nC\nd\n");
        assert_eq!(
            p,
            json!([{"oldStart": 1, "oldLines": 4, "newStart": 1, "newLines": 4,
                "lines": [" a", " b", "-c", "+C", " d"]}])
        );
    }

    #[test]
    fn an_edit_must_find_its_old_string_once() {
        let mut files = BTreeMap::from([("f.rs".to_string(), "fn a() {}\n".to_string())]);
        let bad = Step::Edit {
            path: "f.rs",
            old: "fn b",
            new: "fn c",
        };
        assert!(tool_call(&bad, "/p", &mut files).is_err());
        let good = Step::Edit {
            path: "f.rs",
            old: "fn a",
            new: "fn c",
        };
        assert!(tool_call(&good, "/p", &mut files).is_ok());
        assert_eq!(files["f.rs"], "fn c() {}\n");
    }
}
