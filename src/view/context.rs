//! The session-start context: the work-state section (layer 0) then the memory index
//! (layer 1), fitted together into the host's limit. The hook, `cmem context`, the MCP tool
//! `session_start_context` and the TUI's agent view all call `session_start`.

use super::budget::{HOST_LIMIT, Step, fit_index};
use super::doc::{BlockKind, Doc};
use super::index::{IndexInput, IndexOptions};
use super::work_state;
use crate::model::utf16_len;
use crate::model::work_state::List;

#[derive(Debug, Clone)]
pub struct SessionStart {
    /// The exact `additionalContext` text.
    pub text: String,
    pub work_state: Doc,
    pub index: Doc,
    pub steps: Vec<Step>,
    pub limit: usize,
    pub over_budget: bool,
    pub options: IndexOptions,
    /// The active mode's id.
    pub mode: String,
    /// What `[context] types`/`concepts` kept, when set.
    pub filter: Option<String>,
    /// Open to-do items across the lists (for the person's summary).
    pub open_todos: usize,
    /// The lists that hold them, most recently written first.
    pub open_lists: Vec<String>,
}

impl SessionStart {
    pub(crate) fn chars(&self) -> usize {
        utf16_len(&self.text)
    }

    /// Observation rows the index shows (after filters and the budget).
    pub(crate) fn shown_observations(&self) -> usize {
        self.count(|k| matches!(k, BlockKind::Observation(_) | BlockKind::FullObservation(_)))
    }

    /// Session (summary) rows the index shows.
    pub(crate) fn shown_sessions(&self) -> usize {
        self.count(|k| matches!(k, BlockKind::Summary(_)))
    }

    /// A few coloured lines for the person (Claude Code's `systemMessage`, which the model does
    /// not get): what was injected, how big, what the budget dropped, what is still open.
    pub(crate) fn user_summary(&self) -> String {
        const CYAN: &str = "\x1b[36m";
        const DIM: &str = "\x1b[2m";
        const YELLOW: &str = "\x1b[33m";
        const RESET: &str = "\x1b[0m";
        let n = |v: usize| super::time::thousands(v as i64);
        let obs = self.shown_observations();
        let sessions = self.shown_sessions();
        let what = if obs + sessions == 0 {
            "no memory of this project yet (recording this session)".to_string()
        } else {
            format!(
                "{} {}, {} {}",
                n(obs),
                crate::text::noun(obs, "observation", "observations"),
                n(sessions),
                crate::text::noun(sessions, "session", "sessions")
            )
        };
        let size = format!("{} of {} chars", n(self.chars()), n(self.limit));
        let mut out = format!(
            "{CYAN}cmem{RESET} injected {what} {DIM}({size}, mode {}){RESET}",
            self.mode
        );
        if let Some(f) = &self.filter {
            out.push_str(&format!("\n{DIM}  only {f}{RESET}"));
        }
        if !self.steps.is_empty() {
            let steps: Vec<String> = self.steps.iter().map(|s| s.describe()).collect();
            out.push_str(&format!("\n{YELLOW}  to fit: {}{RESET}", steps.join("; ")));
        }
        if self.open_todos > 0 {
            let mut lists = self.open_lists.clone();
            let more = lists.len().saturating_sub(3);
            lists.truncate(3);
            let mut names = lists.join(", ");
            if more > 0 {
                names.push_str(&format!(" +{more}"));
            }
            out.push_str(&format!(
                "\n  {} open {} ({names})",
                n(self.open_todos),
                crate::text::noun(self.open_todos, "to-do", "to-dos")
            ));
        }
        out
    }

    fn count(&self, f: impl Fn(&BlockKind) -> bool) -> usize {
        self.index.blocks.iter().filter(|b| f(&b.kind)).count()
    }
}

/// Builds the context. `limit: None` renders everything (`--full`), unfitted.
pub fn session_start(
    lists: &[List],
    index: &IndexInput,
    options: &IndexOptions,
    limit: Option<usize>,
) -> SessionStart {
    let (ws_doc, cut) = work_state::section(lists, index.now_ms);
    let open_todos = lists
        .iter()
        .flat_map(|l| &l.tasks)
        .filter(|t| !t.is_closed())
        .count();
    let open_lists: Vec<String> = lists
        .iter()
        .filter(|l| l.tasks.iter().any(|t| !t.is_closed()))
        .map(|l| crate::text::clip(&crate::text::one_line(&l.label), 40))
        .collect();
    let ws_text = ws_doc.to_plain();
    let mut steps = Vec::new();
    if cut > 0 {
        steps.push(Step::WorkStateLines { cut });
    }
    let (index_doc, index_text, opts, over) = match limit {
        Some(limit) => {
            let limit = limit.min(HOST_LIMIT);
            let room = limit.saturating_sub(utf16_len(&ws_text) + 2);
            let fitted = fit_index(index, options, room);
            steps.extend(fitted.steps);
            (fitted.doc, fitted.text, fitted.options, fitted.over_budget)
        }
        None => {
            let doc = super::index::render(index, options);
            let text = doc.to_plain();
            (doc, text, options.clone(), false)
        }
    };
    SessionStart {
        text: format!("{ws_text}\n\n{index_text}"),
        work_state: ws_doc,
        index: index_doc,
        steps,
        limit: limit.unwrap_or(usize::MAX).min(HOST_LIMIT),
        over_budget: over,
        options: opts,
        mode: index.mode.id.clone(),
        filter: index.filter.map(String::from),
        open_todos,
        open_lists,
    }
}

/// Reads what the context needs from the store and renders it for these project keys.
pub fn load(
    conn: &rusqlite::Connection,
    project_label: &str,
    keys: &[String],
    settings: &crate::config::ContextSettings,
    now_ms: i64,
    full: bool,
) -> anyhow::Result<SessionStart> {
    use crate::store::{observations, summaries, work_state as ws_store};
    let options = options_from(settings, full);
    let tz = super::time::Tz::from_setting(&settings.timezone)?;
    let mode = active_mode(settings);
    let obs = observations::recent_filtered(
        conn,
        keys,
        options.observations,
        &settings.types,
        &settings.concepts,
    )?;
    let filter = filter_text(settings);
    let sums = summaries::recent(conn, keys, options.sessions.saturating_add(1))?;
    let lists = crate::model::work_state::fold(&ws_store::entries(conn, keys)?);
    // Only the rows the index may show are looked at (a stat each; a hash when one moved).
    let marks = super::since::look_or_none(conn, &obs);
    let input = IndexInput {
        project: project_label,
        now_ms,
        tz: &tz,
        observations: &obs,
        summaries: &sums,
        mode: &mode,
        filter: filter.as_deref(),
        marks: &marks,
    };
    Ok(session_start(
        &lists,
        &input,
        &options,
        (!full).then_some(settings.limit),
    ))
}

/// `load` from the database, or `empty` when there is none yet.
pub(crate) fn load_or_empty(
    conn: Option<&rusqlite::Connection>,
    project_label: &str,
    keys: &[String],
    settings: &crate::config::ContextSettings,
    now_ms: i64,
    full: bool,
) -> anyhow::Result<SessionStart> {
    match conn {
        Some(conn) => load(conn, project_label, keys, settings, now_ms, full),
        None => empty(project_label, settings, now_ms),
    }
}

/// The empty context (no database yet): same header, nothing remembered.
fn empty(
    project_label: &str,
    settings: &crate::config::ContextSettings,
    now_ms: i64,
) -> anyhow::Result<SessionStart> {
    let tz = super::time::Tz::from_setting(&settings.timezone)?;
    let mode = active_mode(settings);
    let filter = filter_text(settings);
    let input = IndexInput {
        project: project_label,
        now_ms,
        tz: &tz,
        observations: &[],
        summaries: &[],
        mode: &mode,
        filter: filter.as_deref(),
        marks: &super::since::Marks::none(),
    };
    Ok(session_start(
        &[],
        &input,
        &options_from(settings, false),
        Some(settings.limit),
    ))
}

fn options_from(s: &crate::config::ContextSettings, full: bool) -> IndexOptions {
    let mut options = s.clone();
    if full {
        options.observations = 999_999;
        options.sessions = 999_999;
    }
    options
}

/// The mode of these settings; one that cannot be loaded falls back to `code` with a warning in
/// the log (interactive commands check it first and stop with the reason).
pub(crate) fn active_mode(
    s: &crate::config::ContextSettings,
) -> std::sync::Arc<crate::model::mode::Mode> {
    crate::model::mode::resolve_or_code(&s.mode, &mut |e| crate::logging::warn(e))
}

/// `types bugfix, decision; concepts gotcha` when the settings filter the index.
pub(crate) fn filter_text(s: &crate::config::ContextSettings) -> Option<String> {
    let mut parts = Vec::new();
    if !s.types.is_empty() {
        parts.push(format!("types {}", s.types.join(", ")));
    }
    if !s.concepts.is_empty() {
        parts.push(format!("concepts {}", s.concepts.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}
