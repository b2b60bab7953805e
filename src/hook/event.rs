//! The Claude Code hook events cmem handles, under both spellings.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum HookEvent {
    SessionStart,
    UserPromptSubmit,
    PreToolUse,
    PostToolUse,
    PostToolUseFailure,
    Stop,
    SessionEnd,
}

impl HookEvent {
    pub(crate) const ALL: [HookEvent; 7] = [
        HookEvent::SessionStart,
        HookEvent::UserPromptSubmit,
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::Stop,
        HookEvent::SessionEnd,
    ];

    /// Accepts `session-start`, `SessionStart`, `session_start`, `sessionstart`, ….
    pub(crate) fn parse(text: &str) -> Option<HookEvent> {
        let key: String = text
            .chars()
            .filter(|c| *c != '-' && *c != '_')
            .flat_map(char::to_lowercase)
            .collect();
        HookEvent::ALL
            .into_iter()
            .find(|e| e.host_name().eq_ignore_ascii_case(&key))
    }

    /// The subcommand spelling: `cmem hook post-tool-use`.
    pub(crate) fn cli_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "session-start",
            HookEvent::UserPromptSubmit => "user-prompt-submit",
            HookEvent::PreToolUse => "pre-tool-use",
            HookEvent::PostToolUse => "post-tool-use",
            HookEvent::PostToolUseFailure => "post-tool-use-failure",
            HookEvent::Stop => "stop",
            HookEvent::SessionEnd => "session-end",
        }
    }

    /// Claude Code's own name, as used in settings.json.
    pub(crate) fn host_name(self) -> &'static str {
        match self {
            HookEvent::SessionStart => "SessionStart",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::Stop => "Stop",
            HookEvent::SessionEnd => "SessionEnd",
        }
    }

    /// The answer that changes nothing. SessionStart gets an explicit empty context because
    /// some hosts reject a bare `{}` there (Codex does).
    pub(crate) fn noop_json(self) -> &'static str {
        match self {
            HookEvent::SessionStart => {
                r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":""}}"#
            }
            _ => "{}",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_both_spellings() {
        for e in HookEvent::ALL {
            assert_eq!(HookEvent::parse(e.cli_name()), Some(e));
            assert_eq!(HookEvent::parse(e.host_name()), Some(e));
        }
        assert_eq!(
            HookEvent::parse("post_tool_use_failure"),
            Some(HookEvent::PostToolUseFailure)
        );
        assert_eq!(HookEvent::parse("Notification"), None);
    }
}
