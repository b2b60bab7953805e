//! The agents whose hooks `cmem hook --host <host> <event>` answers. Each adapter maps its
//! host's event names and payload into the Claude Code shape the capture code handles, and
//! writes cmem's answer back in its host's shape, with only the keys that host accepts (Codex
//! refuses an answer with a key it does not know). One file per host.

mod codex;
mod copilot;
mod cursor;
mod gemini;

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use super::HookEvent;
use super::payload::Payload;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Host {
    Claude,
    Codex,
    Gemini,
    Cursor,
    Copilot,
}

impl Host {
    pub(crate) const ALL: [Host; 5] = [
        Host::Claude,
        Host::Codex,
        Host::Gemini,
        Host::Cursor,
        Host::Copilot,
    ];

    pub(crate) fn parse(name: &str) -> Option<Host> {
        let name = name.trim();
        Host::ALL
            .into_iter()
            .find(|h| h.name().eq_ignore_ascii_case(name))
            .or(match name.to_ascii_lowercase().as_str() {
                "claude-code" => Some(Host::Claude),
                "gemini-cli" => Some(Host::Gemini),
                "copilot-cli" => Some(Host::Copilot),
                _ => None,
            })
    }

    /// The name in `--host` and in `sessions.platform_source`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Host::Claude => "claude",
            Host::Codex => "codex",
            Host::Gemini => "gemini",
            Host::Cursor => "cursor",
            Host::Copilot => "copilot",
        }
    }

    /// cmem's event for the name the host's hook configuration passes (cmem's own names,
    /// `session-start` …, work for every host).
    pub(crate) fn event(self, name: &str) -> Option<HookEvent> {
        let own = HookEvent::parse(name);
        match self {
            Host::Claude | Host::Codex => own,
            Host::Gemini => gemini::event(name).or(own),
            Host::Cursor => cursor::event(name).or(own),
            Host::Copilot => copilot::event(name).or(own),
        }
    }

    /// The answer that changes nothing, in the host's shape.
    pub(crate) fn noop(self, event: HookEvent) -> &'static str {
        match self {
            Host::Claude | Host::Codex => event.noop_json(),
            Host::Cursor if event == HookEvent::UserPromptSubmit => r#"{"continue":true}"#,
            Host::Gemini | Host::Cursor | Host::Copilot => "{}",
        }
    }

    /// The host's payload as the Claude Code event and payloads the capture code handles:
    /// usually one; a Codex `apply_patch` that changed several places is one `Edit` (or
    /// `Write`) each; a tool call the host reports as done but that failed is a failure.
    pub(crate) fn normalize(self, event: HookEvent, payload: Payload) -> (HookEvent, Vec<Payload>) {
        match self {
            Host::Claude => (event, vec![payload]),
            Host::Codex => codex::normalize(event, payload),
            Host::Gemini => gemini::normalize(event, payload),
            Host::Cursor => cursor::normalize(event, payload),
            Host::Copilot => copilot::normalize(event, payload),
        }
    }

    /// cmem's answer (Claude Code's shape) in the host's.
    pub(crate) fn answer(self, event: HookEvent, claude: &str) -> String {
        match self {
            Host::Claude => claude.to_string(),
            Host::Codex => codex::answer(event, &without_colours(claude)),
            // Gemini reads Claude Code's keys and ignores the ones it does not know.
            Host::Gemini => without_colours(claude),
            Host::Cursor => context_of(claude).map_or_else(
                || self.noop(event).to_string(),
                |c| json!({ "additional_context": c }).to_string(),
            ),
            Host::Copilot => context_of(claude).map_or_else(
                || self.noop(event).to_string(),
                |c| json!({ "additionalContext": c }).to_string(),
            ),
        }
    }

    /// The most bytes of context the host takes in full: Codex puts a session-start context
    /// over about 2,500 tokens (10 KB, by its bytes-over-four count) into a file instead, and
    /// Copilot caps a hook's context at 10 KB. `None`: the character limit alone.
    pub(crate) fn context_bytes(self) -> Option<usize> {
        match self {
            Host::Codex | Host::Copilot => Some(9_800),
            Host::Claude | Host::Gemini | Host::Cursor => None,
        }
    }

    /// Whether this host may start a session more than once (Copilot CLI before 1.0.22 fired
    /// sessionStart on every prompt): the memory is injected at the first start only.
    pub(crate) fn injects_once(self) -> bool {
        self == Host::Copilot
    }
}

/// Cursor's always-applied project rule holding cmem's context (for agents that run no
/// sessionStart hook, such as Cursor's cloud agents).
pub(crate) fn cursor_rule_path(root: &std::path::Path) -> std::path::PathBuf {
    root.join(".cursor").join("rules").join("cmem.mdc")
}

/// Writes the context into the project's Cursor rule (only when it changed); its path.
pub(crate) fn write_cursor_rule(
    root: &std::path::Path,
    context: &str,
) -> anyhow::Result<std::path::PathBuf> {
    use anyhow::Context;
    let path = cursor_rule_path(root);
    let text = format!(
        "---\ndescription: What earlier sessions in this project did, from cmem's memory (written by `cmem context --cursor-rule`, kept current by cmem's Cursor sessionEnd hook)\nalwaysApply: true\n---\n\n{}\n",
        context.trim_end()
    );
    if std::fs::read_to_string(&path).ok().as_deref() == Some(text.as_str()) {
        return Ok(path);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    // Beside it, then renamed: Cursor never reads half a rule.
    let tmp = path.with_extension("mdc.cmem-tmp");
    std::fs::write(&tmp, &text)
        .and_then(|()| std::fs::rename(&tmp, &path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// At a Cursor session's end: rewrites the project's rule, when there is one, in a detached
/// process (the hook does not wait for it).
pub(crate) fn refresh_cursor_rule(cwd: &std::path::Path, data_dir: &std::path::Path) {
    use std::os::unix::process::CommandExt;
    let root = crate::project::resolve(cwd).root;
    if !cursor_rule_path(&root).exists() {
        return;
    }
    let spawned = std::env::current_exe().and_then(|exe| {
        std::process::Command::new(exe)
            .args(["context", "--cursor-rule", "--cwd"])
            .arg(cwd)
            .env("CMEM_DATA_DIR", data_dir)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .process_group(0)
            .spawn()
    });
    if let Err(e) = spawned {
        crate::logging::warn(format!("cannot refresh the Cursor rule: {e}"));
    }
}

fn start_marker(data_dir: &std::path::Path, host: Host, session: &str) -> (std::path::PathBuf, u8) {
    let digest = Sha256::digest(session.as_bytes());
    let hex = crate::store::fingerprint::hex(&digest);
    (
        data_dir
            .join("host-sessions")
            .join(format!("{}-{}", host.name(), &hex[..24])),
        digest[0],
    )
}

/// Whether `host` was already given the memory at a start of `session` (a marker file per
/// session under `host-sessions/`).
pub(crate) fn started(data_dir: &std::path::Path, host: Host, session: &str) -> bool {
    start_marker(data_dir, host, session).0.exists()
}

/// Marks `session` as given its memory; markers older than a week are swept now and then.
pub(crate) fn mark_started(data_dir: &std::path::Path, host: Host, session: &str) {
    let (marker, first_byte) = start_marker(data_dir, host, session);
    let Some(dir) = marker.parent() else {
        return;
    };
    // Without a marker the memory is injected again at the next start: better twice than never.
    if std::fs::create_dir_all(dir).is_ok()
        && std::fs::write(&marker, b"").is_ok()
        && first_byte == 0
    {
        sweep(dir);
    }
}

fn sweep(dir: &std::path::Path) {
    let week = std::time::Duration::from_secs(7 * 24 * 3600);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > week);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The answer with its `systemMessage` in plain text: Claude Code shows the person its colours,
/// Codex and Gemini print the escape codes raw.
fn without_colours(claude: &str) -> String {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(claude) else {
        return claude.to_string();
    };
    let Some(Value::String(message)) = map.get("systemMessage") else {
        return claude.to_string();
    };
    let plain = crate::text::without_ansi(message).into_owned();
    map.insert("systemMessage".into(), json!(plain));
    Value::Object(map).to_string()
}

/// The context a Claude Code answer injects, if any.
fn context_of(claude: &str) -> Option<String> {
    let v: Value = serde_json::from_str(claude).ok()?;
    v.pointer("/hookSpecificOutput/additionalContext")?
        .as_str()
        .filter(|c| !c.is_empty())
        .map(String::from)
}

/// Moves `from` to `to` in a payload when `to` is absent.
fn rename(p: &mut Map<String, Value>, from: &str, to: &str) {
    if !p.contains_key(to)
        && let Some(v) = p.remove(from)
    {
        p.insert(to.into(), v);
    }
}

/// An absolute path for a tool's file argument (hosts pass paths relative to the cwd).
fn absolute(path: &str, cwd: Option<&str>) -> String {
    match cwd {
        Some(dir) if !path.starts_with('/') && !path.is_empty() => {
            format!(
                "{}/{}",
                dir.trim_end_matches('/'),
                path.trim_start_matches("./")
            )
        }
        _ => path.to_string(),
    }
}

/// A tool use id for hosts that send none: stable for the same call, so a repeated delivery
/// is stored once.
fn synthetic_tool_use_id(host: &str, p: &Map<String, Value>) -> String {
    let mut h = Sha256::new();
    for key in ["timestamp", "tool_name", "tool_input"] {
        h.update(p.get(key).map(Value::to_string).unwrap_or_default());
        h.update([0]);
    }
    let hex = crate::store::fingerprint::hex(&h.finalize());
    format!("{host}-{}", &hex[..16])
}

/// A file tool's input in Claude Code's shape: `{"file_path": …}` plus the other keys given.
fn file_input(
    input: &Value,
    path_keys: &[&str],
    cwd: Option<&str>,
    extra: &[(&str, &str)],
) -> Value {
    let path = path_keys
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .unwrap_or("");
    let mut out = json!({ "file_path": absolute(path, cwd) });
    for (from, to) in extra {
        if let Some(v) = input.get(*from) {
            out[*to] = v.clone();
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn payload(v: Value) -> Payload {
        match v {
            Value::Object(m) => Payload(m),
            _ => panic!("an object expected"),
        }
    }

    #[test]
    fn hosts_by_name_and_their_answers_to_a_context() {
        assert_eq!(Host::parse("CODEX"), Some(Host::Codex));
        assert_eq!(Host::parse("claude-code"), Some(Host::Claude));
        assert_eq!(Host::parse("gemini-cli"), Some(Host::Gemini));
        assert_eq!(Host::parse("vim"), None);
        let claude = r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"memory"},"systemMessage":"m"}"#;
        let e = HookEvent::SessionStart;
        assert_eq!(
            Host::Cursor.answer(e, claude),
            r#"{"additional_context":"memory"}"#
        );
        assert_eq!(
            Host::Copilot.answer(e, claude),
            r#"{"additionalContext":"memory"}"#
        );
        assert_eq!(Host::Gemini.answer(e, claude), claude);
        let coloured = r#"{"systemMessage":"\u001b[36mcmem\u001b[0m injected 3 rows"}"#;
        assert_eq!(
            Host::Gemini.answer(e, coloured),
            r#"{"systemMessage":"cmem injected 3 rows"}"#
        );
        assert_eq!(
            Host::Cursor.answer(HookEvent::UserPromptSubmit, "{}"),
            r#"{"continue":true}"#
        );
    }
}
