//! What the read gate tells the agent about a file's history (README "The File Read Gate"): the
//! deny reason for a whole-file Read, or the context added to a smaller Read. Both end with a
//! day-grouped timeline of the observations that mention the file.

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::time::{Days, Tz};
use crate::model::{ObsType, Observation};
use crate::text::{clip, one_line};

/// The anchor every deny reason starts with, for evals and logs. (The reference puts its
/// `Current:` line first; cmem's reason starts with the anchor and puts the time just above
/// the timeline it dates.)
pub(crate) const DENY_ANCHOR: &str = "Full-file Read blocked by cmem:";
/// The MCP server is registered as `cmem`, so Claude Code names its tools like this.
pub(crate) const TOOL_PREFIX: &str = "mcp__cmem__";
const MAX_TITLE: usize = 160;
/// The observations that mention a file looked at (newest first), and the most shown.
pub(crate) const CANDIDATES: usize = 40;
const SHOWN: usize = 15;

pub(crate) struct FileHistory<'a> {
    /// The path as the agent wrote it in its Read (used in the suggested calls).
    pub file_path: &'a str,
    /// The path as shown in sentences (relative to the project when inside it).
    pub display: &'a str,
    /// Observations to list, oldest first.
    pub observations: &'a [Observation],
    pub now_ms: i64,
    pub tz: &'a Tz,
}

/// A path inside a double-quoted argument of a suggested call.
fn quoted(path: &str) -> String {
    path.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

fn ids(h: &FileHistory) -> String {
    h.observations
        .iter()
        .map(|o| o.id.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Which of the `CANDIDATES` the history shows, as claude-mem's File Read Gate ranks them: one observation per session (its newest), scored +2 when the file was
/// modified, +2 when the observation names at most 3 files (+1 for 4–8); the best 15 (newest
/// first on ties), shown oldest first.
pub(crate) fn shown(found: Vec<Observation>, spellings: &[String]) -> Vec<Observation> {
    let mut seen_sessions = Vec::new();
    let mut scored: Vec<(i32, Observation)> = Vec::new();
    for o in found {
        if let Some(s) = o.session_id {
            if seen_sessions.contains(&s) {
                continue;
            }
            seen_sessions.push(s);
        }
        let mut score = 0;
        if o.files_modified.iter().any(|f| spellings.contains(f)) {
            score += 2;
        }
        let files = o.files_read.len() + o.files_modified.len();
        score += match files {
            0..=3 => 2,
            4..=8 => 1,
            _ => 0,
        };
        scored.push((score, o));
    }
    // Stable: observations arrive newest first, so ties stay newest first.
    scored.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
    scored.truncate(SHOWN);
    let mut shown: Vec<Observation> = scored.into_iter().map(|(_, o)| o).collect();
    shown.sort_by_key(|o| (o.created_at, o.id));
    shown
}

fn current(h: &FileHistory) -> Line {
    Line::new()
        .push("Current: ", Role::Label)
        .push(h.tz.header(h.now_ms), Role::Time)
}

/// The reason of a denied whole-file Read.
pub(crate) fn deny_reason(h: &FileHistory) -> Doc {
    let path = quoted(h.file_path);
    let mut doc = Doc::default();
    doc.push(
        Block::new(BlockKind::Header)
            .line(Line::new().push(DENY_ANCHOR, Role::Warning).push(
                format!(
                    " {} has prior observations (listed below). Get what you need without reading the whole file:",
                    h.display
                ),
                Role::Text,
            ))
            .line(Line::text(format!(
                "- Current code: call {TOOL_PREFIX}smart_outline(file_path=\"{path}\") for its symbols and line numbers, then {TOOL_PREFIX}smart_unfold(file_path=\"{path}\", symbol_name=\"<name>\") for the ones you need. If those tools are deferred, load them first with ToolSearch (query: \"cmem smart_outline\")."
            )))
            .line(Line::text(format!(
                "- Past work: call {TOOL_PREFIX}get_observations(ids=[{}]) for the observations below that matter (~300 tokens each).",
                ids(h)
            )))
            .line(Line::text(
                "- Exact lines, e.g. before an Edit: Read this file again with offset and limit around the lines smart_outline reports; a partial Read satisfies Edit's read-first rule.",
            ))
            .line(Line::text(
                "The titles below are history from earlier sessions, not the file's current contents.",
            ))
            .line(current(h)),
    );
    timeline(&mut doc, h);
    doc
}

/// The context added to a Read that goes through.
pub(crate) fn context(h: &FileHistory) -> Doc {
    let path = quoted(h.file_path);
    let mut doc = Doc::default();
    doc.push(
        Block::new(BlockKind::Header)
            .line(current(h))
            .line(Line::text(format!(
                "cmem has prior observations of {} (listed below) as supplementary context; the Read result is the full requested section, and these titles are history, not the file's current contents.",
                h.display
            )))
            .line(Line::text(format!(
                "- Details: {TOOL_PREFIX}get_observations(ids=[{}]) (~300 tokens each)",
                ids(h)
            )))
            .line(Line::text(format!(
                "- Structure only, cheaper next time: {TOOL_PREFIX}smart_outline(file_path=\"{path}\") gives symbols and line numbers"
            ))),
    );
    timeline(&mut doc, h);
    doc
}

/// `### Oct 10, 2026` headings and `ID TIME SYMBOL TITLE` rows, oldest first.
fn timeline(doc: &mut Doc, h: &FileHistory) {
    let mut days = Days::default();
    for o in h.observations {
        if let Some(day) = days.heading(h.tz, o.created_at) {
            doc.push(Block::new(BlockKind::DayHeading).line(day.line));
        }
        let t = ObsType::parse(&o.obs_type);
        let title = o.title.as_deref().map(one_line).unwrap_or_default();
        let title = if title.is_empty() {
            "Untitled".to_string()
        } else {
            clip(&title, MAX_TITLE)
        };
        doc.push(
            Block::new(BlockKind::Observation(o.id)).line(
                Line::new()
                    .push(o.id.to_string(), Role::Id)
                    .push(" ", Role::Text)
                    .push(h.tz.row(o.created_at), Role::Time)
                    .push(" ", Role::Text)
                    .push(
                        t.map_or('·', ObsType::symbol).to_string(),
                        Role::TypeSymbol(t),
                    )
                    .push(" ", Role::Text)
                    .push(title, Role::Title),
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObservationBody;

    fn obs(id: i64, at: i64, title: &str) -> Observation {
        Observation {
            id,
            project: "app".into(),
            body: ObservationBody {
                obs_type: "bugfix".into(),
                title: Some(title.into()),
                subtitle: None,
                narrative: None,
                facts: vec![],
                concepts: vec![],
                files_read: vec![],
                files_modified: vec![],
            },
            facts_json: "[]".into(),
            prompt_number: None,
            discovery_tokens: 0,
            created_at: at,
            session_id: None,
            source: "test".into(),
            host: None,
        }
    }

    #[test]
    fn tool_prefix_follows_the_registered_server_name() {
        assert_eq!(
            TOOL_PREFIX,
            format!("mcp__{}__", crate::names::MCP_SERVER_NAME)
        );
    }

    #[test]
    fn deny_reason_layout() {
        let tz = Tz::utc();
        let day = 1_791_791_100_000; // 2026-10-12 07:45 UTC
        let list = [
            obs(3, day - 86_400_000, "Fixed the refill\nrounding"),
            obs(7, day, &"x".repeat(300)),
        ];
        let h = FileHistory {
            file_path: "/w/app/src/a \"b\".rs",
            display: "src/a \"b\".rs",
            observations: &list,
            now_ms: day,
            tz: &tz,
        };
        let text = deny_reason(&h).to_plain();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("Full-file Read blocked by cmem: src/a \"b\".rs has prior"));
        assert_eq!(lines[5], "Current: 2026-10-12 7:45am UTC");
        assert!(text.contains("mcp__cmem__smart_outline(file_path=\"/w/app/src/a \\\"b\\\".rs\")"));
        assert!(text.contains("get_observations(ids=[3, 7])"));
        assert!(text.contains("ToolSearch"));
        assert_eq!(lines[6], "### Oct 11, 2026");
        assert_eq!(lines[7], "3 7:45a ● Fixed the refill rounding");
        assert_eq!(lines[8], "### Oct 12, 2026");
        assert_eq!(lines[9].chars().count(), "7 7:45a ● ".len() - 2 + 160);
        let ctx = context(&h).to_plain();
        assert!(!ctx.contains(DENY_ANCHOR));
        assert!(ctx.contains("supplementary context"));
    }
}
