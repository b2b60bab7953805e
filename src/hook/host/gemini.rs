//! Gemini CLI (`cmem hook --host gemini`, hooks in `~/.gemini/settings.json`): snake_case
//! payloads like Claude Code's with a `timestamp` and no `tool_use_id`; BeforeAgent is the
//! prompt, AfterTool reports failures too (`tool_response.error`), AfterAgent ends the turn
//! with `prompt_response`. Its own tools: read_file, replace, write_file, run_shell_command.
//! Answers are Claude Code's (`hookSpecificOutput.additionalContext`).

use serde_json::{Map, Value, json};

use super::super::HookEvent;
use super::super::payload::Payload;
use super::{absolute, file_input, synthetic_tool_use_id};

pub(super) fn event(name: &str) -> Option<HookEvent> {
    match name {
        "SessionStart" => Some(HookEvent::SessionStart),
        "BeforeAgent" => Some(HookEvent::UserPromptSubmit),
        "AfterTool" => Some(HookEvent::PostToolUse),
        "AfterAgent" => Some(HookEvent::Stop),
        "SessionEnd" => Some(HookEvent::SessionEnd),
        _ => None,
    }
}

/// In a headless run Gemini puts the session-start context in front of the prompt, wrapped:
/// that is cmem's own memory, not what the person typed.
fn strip_injected(prompt: &str) -> &str {
    let mut rest = prompt.trim_start();
    while let Some(after) = rest.strip_prefix("<hook_context>") {
        match after.find("</hook_context>") {
            Some(end) => rest = after[end + "</hook_context>".len()..].trim_start(),
            None => break,
        }
    }
    rest
}

pub(super) fn normalize(event: HookEvent, mut payload: Payload) -> (HookEvent, Vec<Payload>) {
    let p = &mut payload.0;
    let cwd = p.get("cwd").and_then(Value::as_str).map(String::from);
    let mut event = event;
    match event {
        HookEvent::UserPromptSubmit => {
            if let Some(text) = p.get("prompt").and_then(Value::as_str) {
                let typed = strip_injected(text).to_string();
                p.insert("prompt".into(), json!(typed));
            }
        }
        HookEvent::Stop => {
            if let Some(text) = p.remove("prompt_response") {
                p.insert("last_assistant_message".into(), text);
            }
        }
        HookEvent::PostToolUse => {
            let id = synthetic_tool_use_id("gemini", p);
            p.entry("tool_use_id").or_insert(json!(id));
            // An MCP tool is `mcp_<server>_<tool>` here; Claude Code's `mcp__<server>__<tool>`
            // is what the capture rules know (cmem's own memory tools are not stored).
            if let Some(ctx) = p.get("mcp_context").cloned()
                && let (Some(server), Some(tool)) = (
                    ctx.get("server_name").and_then(Value::as_str),
                    ctx.get("tool_name").and_then(Value::as_str),
                )
            {
                p.insert("tool_name".into(), json!(format!("mcp__{server}__{tool}")));
            }
            let response = p.remove("tool_response").unwrap_or(Value::Null);
            let text = response
                .get("llmContent")
                .and_then(crate::text::content_text)
                .unwrap_or_default();
            if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
                event = HookEvent::PostToolUseFailure;
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .map_or_else(|| error.to_string(), String::from);
                p.insert("error".into(), json!(message));
            }
            let is_shell = p.get("tool_name").and_then(Value::as_str) == Some("run_shell_command");
            if is_shell && event == HookEvent::PostToolUse {
                // A command that ran and failed is no error to Gemini: only its output says so.
                let shell = shell_output(&text, response.get("returnDisplay"));
                if let Some(code) = shell.exit.filter(|c| *c != 0) {
                    event = HookEvent::PostToolUseFailure;
                    p.insert(
                        "error".into(),
                        json!(format!("Exit code {code}\n{}", shell.output)),
                    );
                }
                map_tool(p, &shell.output, cwd.as_deref());
            } else {
                map_tool(p, &text, cwd.as_deref());
            }
        }
        _ => {}
    }
    (event, vec![payload])
}

struct Shell {
    output: String,
    exit: Option<i64>,
}

/// What a shell command printed and its exit code: `llmContent` wraps the output as
/// `<untrusted_context>\nOutput: …\nExit Code: N\nProcess Group PGID: …</untrusted_context>`;
/// `returnDisplay` holds the plain output.
fn shell_output(llm: &str, display: Option<&Value>) -> Shell {
    let inner = llm
        .trim()
        .strip_prefix("<untrusted_context>")
        .and_then(|t| t.strip_suffix("</untrusted_context>"))
        .unwrap_or(llm)
        .trim_matches('\n');
    let display = display
        .and_then(Value::as_str)
        .filter(|d| !d.trim().is_empty());
    // Gemini's own lines close the text (`Exit Code: 2`, `Signal: 9`, `Process Group PGID: …`),
    // but a program may print such a line itself (`cat ci/last-run.log`). Where Gemini gave the
    // plain output too, its lines are what follows it; else only lines in Gemini's own order,
    // each once, count.
    let after_output = display.and_then(|d| {
        inner
            .strip_prefix("Output: ")
            .and_then(|rest| rest.strip_prefix(d.trim_end_matches('\n')))
    });
    let (body, trailer): (Vec<&str>, Vec<&str>) = match after_output {
        Some(rest) => (Vec::new(), rest.lines().collect()),
        None => {
            let mut lines: Vec<&str> = inner.lines().collect();
            let mut trailer = Vec::new();
            let mut before = GEMINI_LINES.len();
            while let Some(last) = lines.last() {
                let Some(k) = GEMINI_LINES.iter().position(|k| last.starts_with(*k)) else {
                    break;
                };
                let value = last[GEMINI_LINES[k].len()..].trim();
                // A program's own last line may be `Error: …`: only Gemini's empty one is its.
                if k >= before || (GEMINI_LINES[k] == "Error: " && value != "(none)") {
                    break;
                }
                before = k;
                trailer.push(*last);
                lines.pop();
            }
            (lines, trailer)
        }
    };
    let mut exit = None;
    for line in &trailer {
        if let Some(code) = line.strip_prefix("Exit Code: ") {
            exit = code.trim().parse().ok().or(exit);
        }
    }
    // Killed by a signal: no exit code, and no success either.
    if exit.is_none()
        && trailer.iter().any(|l| {
            l.strip_prefix("Signal: ")
                .is_some_and(|v| !v.trim().is_empty() && v.trim() != "(none)")
        })
    {
        exit = Some(128);
    }
    // A command Gemini cancelled (its timeout, or the user) ran to no result: Gemini says so
    // before anything else.
    let first = inner.lines().next().unwrap_or("");
    if exit.is_none()
        && (first.starts_with("Command was automatically cancelled")
            || first.starts_with("Command was cancelled"))
    {
        exit = Some(124);
    }
    let output = match display {
        Some(d) => d.to_string(),
        None => {
            let body = body.join("\n");
            body.strip_prefix("Output: ").unwrap_or(&body).to_string()
        }
    };
    Shell { output, exit }
}

/// The lines Gemini adds after a command's output, in the order it writes them.
const GEMINI_LINES: &[&str] = &[
    "Error: ",
    "Exit Code: ",
    "Signal: ",
    "Background PIDs: ",
    "Process Group PGID: ",
];

fn map_tool(p: &mut Map<String, Value>, text: &str, cwd: Option<&str>) {
    let input = p.get("tool_input").cloned().unwrap_or(Value::Null);
    let name = p.get("tool_name").and_then(Value::as_str).unwrap_or("");
    let (claude, input, response) = match name {
        "read_file" => {
            let input = file_input(&input, &["file_path", "absolute_path", "path"], cwd, &[]);
            let response =
                json!({"type": "text", "file": {"filePath": input["file_path"], "content": text}});
            ("Read", input, response)
        }
        "replace" => (
            "Edit",
            file_input(
                &input,
                &["file_path", "absolute_path"],
                cwd,
                &[("old_string", "old_string"), ("new_string", "new_string")],
            ),
            json!(text),
        ),
        "write_file" => (
            "Write",
            file_input(
                &input,
                &["file_path", "absolute_path"],
                cwd,
                &[("content", "content")],
            ),
            json!(text),
        ),
        "run_shell_command" => {
            let command = input.get("command").and_then(Value::as_str).unwrap_or("");
            let dir = input
                .get("dir_path")
                .and_then(Value::as_str)
                .map(|d| absolute(d, cwd));
            let command = match dir {
                Some(d) => format!("cd {d} && {command}"),
                None => command.to_string(),
            };
            (
                "Bash",
                json!({ "command": command }),
                json!({ "stdout": text, "stderr": "" }),
            )
        }
        _ => {
            if !p.contains_key("error") {
                p.insert("tool_response".into(), json!(text));
            }
            return;
        }
    };
    p.insert("tool_name".into(), json!(claude));
    p.insert("tool_input".into(), input);
    if !p.contains_key("error") {
        p.insert("tool_response".into(), response);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hook::host::tests::payload;

    #[test]
    fn gemini_payloads_as_claude_code_would_send_them() {
        let (e, out) = normalize(
            HookEvent::UserPromptSubmit,
            payload(
                json!({"session_id": "g", "cwd": "/w", "hook_event_name": "BeforeAgent",
                "prompt": "<hook_context>&lt;memory&gt;</hook_context>\n\nread a.txt"}),
            ),
        );
        assert_eq!(e, HookEvent::UserPromptSubmit);
        assert_eq!(out[0].str("prompt"), Some("read a.txt"));

        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(json!({"session_id": "g", "cwd": "/w", "timestamp": "t",
                "tool_name": "read_file", "tool_input": {"file_path": "a.txt"},
                "tool_response": {"llmContent": "hello\n", "returnDisplay": ""}})),
        );
        assert_eq!(e, HookEvent::PostToolUse);
        let p = &out[0].0;
        assert_eq!(p["tool_name"], "Read");
        assert_eq!(p["tool_input"]["file_path"], "/w/a.txt");
        assert_eq!(p["tool_response"]["file"]["content"], "hello\n");
        assert!(p["tool_use_id"].as_str().unwrap().starts_with("gemini-"));

        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(
                json!({"session_id": "g", "cwd": "/w", "tool_name": "run_shell_command",
                "tool_input": {"command": "cargo test"},
                "tool_response": {"llmContent": "", "error": {"type": "x", "message": "exit 101"}}}),
            ),
        );
        assert_eq!(e, HookEvent::PostToolUseFailure);
        assert_eq!(out[0].str("error"), Some("exit 101"));
        assert_eq!(out[0].0["tool_name"], "Bash");

        let (e, out) = normalize(
            HookEvent::Stop,
            payload(json!({"session_id": "g", "prompt_response": "Done."})),
        );
        assert_eq!(e, HookEvent::Stop);
        assert_eq!(out[0].str("last_assistant_message"), Some("Done."));
        assert_eq!(event("AfterAgent"), Some(HookEvent::Stop));
    }

    #[test]
    fn gemini_shell_exit_codes_unwrapped_output_and_mcp_names() {
        let llm = "<untrusted_context>\nOutput: FAILED (failures=1)\nExit Code: 1\nProcess Group PGID: 979\n</untrusted_context>";
        let (e, out) = normalize(
            HookEvent::PostToolUse,
            payload(
                json!({"session_id": "g", "cwd": "/w", "tool_name": "run_shell_command",
                "tool_input": {"command": "pytest"},
                "tool_response": {"llmContent": llm, "returnDisplay": "FAILED (failures=1)"}}),
            ),
        );
        assert_eq!(e, HookEvent::PostToolUseFailure);
        assert_eq!(
            out[0].str("error"),
            Some("Exit code 1\nFAILED (failures=1)")
        );
        let ok = shell_output(
            "<untrusted_context>\nOutput: 3 passed\nExit Code: 0\nProcess Group PGID: 9\n</untrusted_context>",
            Some(&json!("")),
        );
        assert_eq!((ok.output.as_str(), ok.exit), ("3 passed", Some(0)));
        // Only Gemini's closing lines say how a command ended: a program may print an
        // `Exit Code:` or an `Error:` line of its own.
        let own = shell_output(
            "<untrusted_context>\nOutput: retrying\nExit Code: 2\nretry passed\nError: none here\nProcess Group PGID: 9\n</untrusted_context>",
            None,
        );
        assert_eq!(own.exit, None);
        assert_eq!(
            own.output,
            "retrying\nExit Code: 2\nretry passed\nError: none here"
        );
        let old_format = shell_output(
            "Output: ok\nError: (none)\nExit Code: (none)\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 1",
            None,
        );
        assert_eq!((old_format.output.as_str(), old_format.exit), ("ok", None));
        // Killed, or cancelled at Gemini's timeout: no success.
        let killed = shell_output("Output: running\nSignal: 9\nProcess Group PGID: 1", None);
        assert_eq!(killed.exit, Some(128));
        // A program's own `Exit Code: 0` just above Gemini's, or its last line when it succeeded
        // (Gemini writes no exit line then), is the program's.
        let twice = shell_output(
            "Output: step 1 ok\nExit Code: 0\nExit Code: 2\nProcess Group PGID: 9",
            None,
        );
        assert_eq!(twice.exit, Some(2));
        let shown = shell_output(
            "Output: retry passed\nExit Code: 2\nProcess Group PGID: 7",
            Some(&json!("retry passed\nExit Code: 2")),
        );
        assert_eq!(shown.exit, None);
        assert_eq!(shown.output, "retry passed\nExit Code: 2");
        let failed = shell_output(
            "Output: FAILED\nExit Code: 1\nProcess Group PGID: 7",
            Some(&json!("FAILED")),
        );
        assert_eq!(failed.exit, Some(1));
        let cancelled = shell_output(
            "Command was automatically cancelled because it exceeded the timeout of 5.0 minutes without output.\nOutput: collecting",
            None,
        );
        assert_eq!(cancelled.exit, Some(124));

        let (_, out) = normalize(
            HookEvent::PostToolUse,
            payload(
                json!({"session_id": "g", "cwd": "/w", "tool_name": "mcp_cmem_mem_search",
                "mcp_context": {"server_name": "cmem", "tool_name": "mem_search"},
                "tool_input": {"query": "POOL_SIZE"},
                "tool_response": {"llmContent": [{"text": "found it"}]}}),
            ),
        );
        assert_eq!(out[0].str("tool_name"), Some("mcp__cmem__mem_search"));
        assert_eq!(out[0].0["tool_response"], "found it");
    }
}
