//! The domain: observation types and concepts, and the rows the views render.

pub mod mode;
pub mod since;
pub mod work_state;

use serde::{Deserialize, Serialize};

/// claude-mem's nine observation types (the `code` mode's), with BMP symbols.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObsType {
    Bugfix,
    Feature,
    Refactor,
    Change,
    Discovery,
    Decision,
    SecurityAlert,
    SecurityNote,
    Sensitive,
}

impl ObsType {
    pub(crate) const ALL: [ObsType; 9] = [
        ObsType::Bugfix,
        ObsType::Feature,
        ObsType::Refactor,
        ObsType::Change,
        ObsType::Discovery,
        ObsType::Decision,
        ObsType::SecurityAlert,
        ObsType::SecurityNote,
        ObsType::Sensitive,
    ];

    /// A type of work that changes the project (as opposed to finding something out or
    /// deciding it).
    pub(crate) fn changes_code(self) -> bool {
        matches!(
            self,
            ObsType::Bugfix | ObsType::Feature | ObsType::Refactor | ObsType::Change
        )
    }

    pub fn id(self) -> &'static str {
        match self {
            ObsType::Bugfix => "bugfix",
            ObsType::Feature => "feature",
            ObsType::Refactor => "refactor",
            ObsType::Change => "change",
            ObsType::Discovery => "discovery",
            ObsType::Decision => "decision",
            ObsType::SecurityAlert => "security_alert",
            ObsType::SecurityNote => "security_note",
            ObsType::Sensitive => "sensitive",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<ObsType> {
        let t = text.trim().to_ascii_lowercase().replace('-', "_");
        ObsType::ALL.into_iter().find(|o| o.id() == t)
    }

    pub(crate) fn symbol(self) -> char {
        match self {
            ObsType::Bugfix => '●',
            ObsType::Feature => '◆',
            ObsType::Refactor => '↻',
            ObsType::Change => '✓',
            ObsType::Discovery => '○',
            ObsType::Decision => '⚖',
            ObsType::SecurityAlert => '⚠',
            ObsType::SecurityNote => '⚷',
            ObsType::Sensitive => '⊘',
        }
    }

    #[cfg(test)] // only the tests here ask
    /// The symbol of the per-row work-token figure.
    pub(crate) fn work_symbol(self) -> char {
        match self {
            ObsType::Discovery => '⌕',
            ObsType::Decision => '⚖',
            ObsType::SecurityAlert => '⚠',
            ObsType::SecurityNote => '⚷',
            ObsType::Sensitive => '⊘',
            _ => '⚒',
        }
    }
}

/// The symbol of a stored type string; types cmem does not know get a neutral dot.
pub(crate) fn type_symbol(type_id: &str) -> char {
    ObsType::parse(type_id).map_or('·', ObsType::symbol)
}

/// The marker of a session (summary) row.
pub(crate) const SESSION_SYMBOL: char = '◎';

/// claude-mem's seven observation concepts (the `code` mode's).
pub(crate) const CONCEPTS: [&str; 7] = [
    "how-it-works",
    "why-it-exists",
    "what-changed",
    "problem-solution",
    "gotcha",
    "pattern",
    "trade-off",
];

/// What an observation says, wherever it lives: parsed from an observer's XML, about to be
/// stored, or read back. Defined once so that a new field is one edit here (plus its column).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ObservationBody {
    /// A type id (`bugfix`, …); unknown types are kept as written. (`type` as the reference
    /// and the evaluation sets write it.)
    #[serde(alias = "type")]
    pub obs_type: String,
    pub title: Option<String>,
    pub subtitle: Option<String>,
    pub narrative: Option<String>,
    pub facts: Vec<String>,
    pub concepts: Vec<String>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
}

/// One observation as the views need it: its body plus where and when it was stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub id: i64,
    pub project: String,
    #[serde(flatten)]
    pub body: ObservationBody,
    /// The stored JSON text of `facts`, kept because token economics measure it.
    pub facts_json: String,
    pub prompt_number: Option<i64>,
    pub discovery_tokens: i64,
    pub created_at: i64,
    pub session_id: Option<i64>,
    pub source: String,
    /// The agent whose session it came from (`sessions.platform_source`: claude, codex, …),
    /// when the query asked for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}

/// The name a person knows an agent by, for a `sessions.platform_source`.
pub fn host_name(platform: &str) -> &str {
    match platform {
        "claude" => "Claude Code",
        "codex" => "Codex",
        "gemini" => "Gemini CLI",
        "cursor" => "Cursor",
        "copilot" => "Copilot CLI",
        other => other,
    }
}

/// A stored observation reads as its body (`o.title`), so the views need not spell `o.body`.
impl std::ops::Deref for Observation {
    type Target = ObservationBody;
    fn deref(&self) -> &ObservationBody {
        &self.body
    }
}

impl Observation {
    /// Estimated tokens to read this observation, as claude-mem estimates them: characters of
    /// title, subtitle, narrative and the facts JSON stringified once more, over four.
    pub(crate) fn read_tokens(&self) -> i64 {
        let len = |s: &Option<String>| s.as_deref().map_or(0, utf16_len);
        let facts = serde_json::to_string(&self.facts_json).unwrap_or_default();
        let chars =
            len(&self.title) + len(&self.subtitle) + len(&self.narrative) + utf16_len(&facts);
        chars.div_ceil(4) as i64
    }
}

/// What a turn summary says, wherever it lives: built by the rules, parsed from an observer's
/// XML, about to be stored, or read back. Defined once, like `ObservationBody`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryBody {
    pub request: Option<String>,
    pub investigated: Option<String>,
    pub learned: Option<String>,
    pub completed: Option<String>,
    pub next_steps: Option<String>,
    pub notes: Option<String>,
    pub files_read: Vec<String>,
    pub files_edited: Vec<String>,
}

/// One turn/session summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub id: i64,
    pub project: String,
    #[serde(flatten)]
    pub body: SummaryBody,
    pub prompt_number: Option<i64>,
    pub discovery_tokens: i64,
    pub created_at: i64,
    pub session_id: Option<i64>,
}

/// A stored summary reads as its body (`s.request`).
impl std::ops::Deref for Summary {
    type Target = SummaryBody;
    fn deref(&self) -> &SummaryBody {
        &self.body
    }
}

/// One user prompt (a turn's request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Prompt {
    pub id: i64,
    pub project: String,
    pub session_id: i64,
    pub content_session_id: String,
    pub prompt_number: i64,
    pub text: String,
    pub created_at: i64,
    pub ended_at: Option<i64>,
}

/// One raw tool call (layer 4) as stored: capped, redacted JSON text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct ToolUse {
    pub id: i64,
    pub tool_use_id: String,
    pub content_session_id: String,
    pub project: String,
    pub tool_name: String,
    pub tool_input: Option<String>,
    pub tool_response: Option<String>,
    pub input_bytes: i64,
    pub response_bytes: i64,
    pub failed: bool,
    pub error: Option<String>,
    pub cwd: Option<String>,
    pub prompt_number: Option<i64>,
    pub observation_id: Option<i64>,
    pub duration_ms: Option<i64>,
    pub created_at: i64,
}

/// The three kinds of records search and timelines mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Observation,
    Summary,
    Prompt,
}

impl Kind {
    /// The id as agents see it: `12`, `S3`, `P7`.
    pub fn display_id(self, id: i64) -> String {
        match self {
            Kind::Observation => id.to_string(),
            Kind::Summary => format!("S{id}"),
            Kind::Prompt => format!("P{id}"),
        }
    }

    /// Parses `12`, `S3`, `P7` (also `#12`, `#S3`).
    pub fn parse_id(text: &str) -> Option<(Kind, i64)> {
        let t = text.trim().trim_start_matches('#');
        let (kind, digits) = match t.chars().next()? {
            'S' | 's' => (Kind::Summary, &t[1..]),
            'P' | 'p' => (Kind::Prompt, &t[1..]),
            _ => (Kind::Observation, t),
        };
        let id: i64 = digits.parse().ok()?;
        (id > 0).then_some((kind, id))
    }

    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Observation => "observation",
            Kind::Summary => "summary",
            Kind::Prompt => "prompt",
        }
    }
}

/// A row of an index or timeline: what step 1 and 2 of a search disclose.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct IndexRow {
    pub kind: Kind,
    pub id: i64,
    pub project: String,
    pub title: String,
    pub obs_type: Option<String>,
    pub created_at: i64,
    pub session_id: Option<i64>,
    /// Read/work token figures for observations (legacy search table).
    pub read_tokens: i64,
    pub work_tokens: i64,
    /// What happened since (a file changed, a later decision), when a face looked
    /// (`view::since::fill_rows`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<since::Since>,
}

/// Parses a stored JSON array of strings; anything else counts as empty.
pub(crate) fn json_list(text: Option<&str>) -> Vec<String> {
    text.and_then(|t| serde_json::from_str::<Vec<serde_json::Value>>(t).ok())
        .map(|v| {
            v.into_iter()
                .filter_map(|x| match x {
                    serde_json::Value::String(s) => Some(s),
                    serde_json::Value::Null => None,
                    other => Some(other.to_string()),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Length in UTF-16 code units: what Claude Code (JavaScript) counts.
pub fn utf16_len(text: &str) -> usize {
    // One UTF-16 unit per character, two for characters of four UTF-8 bytes (lead byte ≥ 0xF0).
    text.bytes()
        .map(|b| usize::from((b & 0xC0) != 0x80) + usize::from(b >= 0xF0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_len_counts_like_javascript() {
        for s in ["", "abc", "é", "接口", "😀", "a😀b🇩🇪", "e\u{301}"] {
            assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s}");
        }
    }
}
