//! Turning a hook payload into a `Capture`: which events are stored, for which project, and
//! the privacy rules (tags, redaction, private turns, excluded projects, noise tools).

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde_json::Value;

use super::event::HookEvent;
use super::fields;
use super::payload::Payload;
use crate::config::Settings;
use crate::names::{MCP_SERVER_NAME, MEMORY_TOOLS};
use crate::privacy;
use crate::project;
use crate::store::ingest::{Capture, SessionRef, ToolUse};

/// Why an event was deliberately not stored (logged at debug level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Skip {
    ExcludedProject,
    Internal,
    NoiseTool(String),
    OwnMemoryTool(String),
    SessionMemoryFile,
    TaskNotification,
    NotCaptured,
}

/// Memory tools of the reference's servers that cmem does not register (reference: capture).
const REFERENCE_ONLY_MEMORY_TOOLS: &[&str] = &["observation_search"];

pub(crate) fn is_own_memory_tool(tool_name: &str) -> bool {
    let Some(rest) = tool_name.strip_prefix("mcp__") else {
        return tool_name.starts_with("memory_") || other_hosts_own_tool(tool_name);
    };
    let Some((server, tool)) = rest.rsplit_once("__") else {
        return false;
    };
    let server = server.to_ascii_lowercase();
    let ours = [MCP_SERVER_NAME, "claude-mem", "claude_mem", "mcp-search"]
        .iter()
        .any(|s| server.contains(s));
    (ours && (MEMORY_TOOLS.contains(&tool) || REFERENCE_ONLY_MEMORY_TOOLS.contains(&tool)))
        || tool.starts_with("memory_")
}

/// cmem's tools as other agents name MCP tools: Copilot CLI `<server>-<tool>` (`cmem-mem_search`),
/// Cursor `MCP:<tool>` without the server (only the names no other server is likely to use).
fn other_hosts_own_tool(tool_name: &str) -> bool {
    if let Some(tool) = tool_name.strip_prefix("MCP:") {
        return MEMORY_TOOLS.contains(&tool) && !matches!(tool, "search" | "timeline");
    }
    [MCP_SERVER_NAME, "claude-mem", "claude_mem"]
        .iter()
        .any(|server| {
            tool_name
                .strip_prefix(server)
                .and_then(|rest| rest.strip_prefix(['-', '_', '/', ':', '.']))
                .is_some_and(|tool| MEMORY_TOOLS.contains(&tool))
        })
}

/// The working directory of the event: the payload's, else the project dir Claude Code
/// exports, else our own.
pub(crate) fn event_cwd(payload: &Payload) -> PathBuf {
    payload
        .str("cwd")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("CLAUDE_PROJECT_DIR").map(PathBuf::from))
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_default()
}

/// Whether capture, context and gating are off for this cwd.
pub(crate) fn capture_disabled(cwd: &Path, settings: &Settings) -> Option<Skip> {
    if std::env::var("CMEM_INTERNAL").is_ok_and(|v| v == "1") {
        return Some(Skip::Internal);
    }
    if cwd.starts_with(settings.data_dir().join("observer-sessions")) {
        return Some(Skip::Internal);
    }
    if project::is_excluded(cwd, &settings.excluded_projects) {
        return Some(Skip::ExcludedProject);
    }
    None
}

fn session_ref(payload: &Payload, cwd: &Path, platform: &str) -> Result<SessionRef> {
    let keys = project::resolve(cwd);
    Ok(SessionRef {
        content_session_id: payload.session_id()?.to_string(),
        platform_source: platform.into(),
        project: without_secrets(&keys.primary),
        cwd: Some(without_secrets(&cwd.to_string_lossy())).filter(|c| !c.is_empty()),
        transcript_path: payload.str("transcript_path").map(without_secrets),
    })
}

/// An id or a path as stored: a host's ids (Codex's turn ids, Cursor's generation ids) and
/// the paths it sends are free text, and a key pasted into one was stored whole.
fn without_secrets(text: &str) -> String {
    crate::privacy::redact(text).into_owned()
}

/// Builds the capture for a writing event of an agent (`platform`: `sessions.platform_source`,
/// `claude`, `codex`, …). `Ok(Err(skip))` means "valid, deliberately not stored"; `Err` means
/// the payload is invalid.
pub(crate) fn build(
    event: HookEvent,
    mut payload: Payload,
    settings: &Settings,
    now_ms: i64,
    platform: &str,
) -> Result<std::result::Result<Capture, Skip>> {
    // Validate first so an invalid payload is reported as such even when excluded.
    payload.validate()?;
    let cwd = event_cwd(&payload);
    if let Some(skip) = capture_disabled(&cwd, settings) {
        return Ok(Err(skip));
    }
    let session = session_ref(&payload, &cwd, platform)?;
    let max = settings.capture.max_field_bytes;
    let capture = match event {
        HookEvent::UserPromptSubmit => {
            let Some(raw) = payload.0.get("prompt") else {
                bail!("payload has no prompt");
            };
            let Some(raw) = raw.as_str() else {
                bail!("prompt is not a string");
            };
            if is_only_task_notification(raw) {
                return Ok(Err(Skip::TaskNotification));
            }
            let text = if raw.trim().is_empty() {
                Some("[media prompt]".to_string())
            } else if privacy::strip_tags(raw).is_empty() {
                None
            } else {
                Some(fields::store_text(raw, max).text)
            };
            Capture::Prompt {
                session,
                prompt_id: payload.str("prompt_id").map(without_secrets),
                text,
                at_ms: now_ms,
            }
        }
        HookEvent::PostToolUse | HookEvent::PostToolUseFailure => {
            let tool_name = without_secrets(payload.required_id("tool_name")?);
            let tool_use_id = without_secrets(payload.required_id("tool_use_id")?);
            // A to-do tool becomes work state even when its raw I/O is noise; a subagent's
            // to-dos are its own scratch list and stay out of the session's.
            let todo = (event == HookEvent::PostToolUse
                && payload.agent_field("agent_id").is_none())
            .then(|| {
                crate::observe::todo::change(
                    &tool_name,
                    payload.0.get("tool_input"),
                    payload.0.get("tool_response"),
                )
            })
            .flatten();
            let noise = settings.capture.skip_tools.iter().any(|t| t == &tool_name);
            if noise && todo.is_none() {
                return Ok(Err(Skip::NoiseTool(tool_name)));
            }
            if is_own_memory_tool(&tool_name) {
                return Ok(Err(Skip::OwnMemoryTool(tool_name)));
            }
            let input = payload.take("tool_input");
            if touches_session_memory(&tool_name, input.as_ref()) {
                return Ok(Err(Skip::SessionMemoryFile));
            }
            let failed = event == HookEvent::PostToolUseFailure;
            let response = if failed {
                None
            } else {
                payload.take("tool_response")
            };
            let io = fields::prepare_tool_io(&tool_name, input, response, max);
            let error = failed.then(|| {
                let text = payload.str("error").unwrap_or("tool call failed");
                fields::store_text(text, max).text
            });
            let tool = Box::new(ToolUse {
                tool_use_id,
                input_bytes: io.input.as_ref().map_or(0, |s| s.original_bytes),
                response_bytes: io.response.as_ref().map_or(0, |s| s.original_bytes),
                tool_input: io.input.map(|s| s.text),
                tool_response: io.response.map(|s| s.text),
                content_hash: io.content_hash,
                failed,
                error,
                is_interrupt: payload.bool("is_interrupt"),
                prompt_id: payload.str("prompt_id").map(without_secrets),
                agent_id: payload.agent_field("agent_id"),
                agent_type: payload.agent_field("agent_type"),
                duration_ms: payload.i64("duration_ms"),
                tool_name,
            });
            match todo {
                Some(change) => Capture::WorkState {
                    prompt_id: tool.prompt_id.clone(),
                    tool: (!noise).then_some(tool),
                    session,
                    change,
                    at_ms: now_ms,
                },
                None => Capture::ToolUse {
                    session,
                    tool,
                    at_ms: now_ms,
                },
            }
        }
        HookEvent::Stop => {
            // The turn still ends (the agent stopped), but an answer of another type is lost:
            // say so rather than store an empty answer without a word.
            if let Some(odd) = payload
                .0
                .get("last_assistant_message")
                .filter(|v| !v.is_string() && !v.is_null())
            {
                crate::logging::warn(format!(
                    "Stop: last_assistant_message is a JSON {} where text was expected; the turn ends without its answer",
                    super::payload::kind(odd)
                ));
            }
            Capture::TurnEnd {
                closes: payload.bool("turn_continues") != Some(true),
                prompt_id: payload.str("prompt_id").map(without_secrets),
                last_assistant_message: payload
                    .str("last_assistant_message")
                    .map(|m| fields::store_text(m, max).text)
                    .filter(|m| !m.is_empty()),
                session,
                at_ms: now_ms,
            }
        }
        HookEvent::SessionEnd => Capture::SessionEnd {
            reason: payload
                .str("reason")
                .map(|r| fields::store_text(r, 1024).text.chars().take(64).collect())
                .filter(|r: &String| !r.is_empty()),
            session,
            at_ms: now_ms,
        },
        HookEvent::SessionStart | HookEvent::PreToolUse => return Ok(Err(Skip::NotCaptured)),
    };
    Ok(Ok(capture))
}

fn is_only_task_notification(prompt: &str) -> bool {
    let t = prompt.trim();
    t.starts_with("<task-notification>") && t.ends_with("</task-notification>")
}

/// Claude Code's own session-memory files are bookkeeping, not work (claude-mem skips them too).
fn touches_session_memory(tool_name: &str, input: Option<&Value>) -> bool {
    matches!(
        tool_name,
        "Edit" | "Write" | "Read" | "NotebookEdit" | "MultiEdit"
    ) && input
        .and_then(|i| i.get("file_path").or_else(|| i.get("notebook_path")))
        .and_then(Value::as_str)
        .is_some_and(|p| p.contains("session-memory"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_memory_tools_are_recognised() {
        assert!(is_own_memory_tool("mcp__cmem__mem_search"));
        assert!(is_own_memory_tool(
            "mcp__plugin_cmem_cmem__get_observations"
        ));
        assert!(is_own_memory_tool(
            "mcp__plugin_claude-mem_mcp-search__search"
        ));
        assert!(is_own_memory_tool("memory_add"));
        assert!(!is_own_memory_tool("mcp__cmem__smart_outline"));
        assert!(!is_own_memory_tool("mcp__github__search"));
        assert!(!is_own_memory_tool("Read"));
        // Copilot CLI and Cursor name MCP tools their own way.
        assert!(is_own_memory_tool("cmem-mem_search"));
        assert!(is_own_memory_tool("cmem-timeline"));
        assert!(is_own_memory_tool("MCP:mem_search"));
        assert!(is_own_memory_tool("MCP:work_state_write"));
        assert!(!is_own_memory_tool("MCP:search"));
        assert!(!is_own_memory_tool("github-mcp-server-search"));
        assert!(!is_own_memory_tool("cmem-smart_outline"));
    }
}
