//! The worker protocol: what the browser asks for (`Request`), what it gets back (`Reply`,
//! a `Page` of `Row`s), and where a row leads (`Target`). `worker.rs` answers.

use crate::model::Kind;
use crate::view;

use super::highlight::HlLine;

pub(crate) use crate::store::browse::{Cursor, IndexQuery, ProjectCount};

/// Rows in an index page (and hits in a search).
pub const PAGE: usize = 200;

/// Where a row leads when opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Record(Kind, i64),
    ToolUse(i64),
    /// A work-state list: (project, list name).
    WorkList(String, String),
}

/// What a row draws: a line of the shared views, or a highlighted line of code (scopes the
/// theme maps) after a prefix (the view's indent).
#[derive(Debug, Clone, PartialEq)]
pub enum RowText {
    View(view::Line),
    Code { indent: String, pieces: HlLine },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub text: RowText,
    pub target: Option<Target>,
}

impl Row {
    pub(crate) fn view(line: view::Line) -> Row {
        Row {
            text: RowText::View(line),
            target: None,
        }
    }

    pub(crate) fn to(mut self, target: Target) -> Row {
        self.target = Some(target);
        self
    }

    /// The row's words as shown (what the fuzzy filter matches).
    pub fn display(&self) -> String {
        match &self.text {
            RowText::View(l) => super::render::display_text(l),
            RowText::Code { indent, pieces } => {
                let mut s = indent.clone();
                for (t, _) in pieces {
                    s.push_str(t);
                }
                s
            }
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    IndexPage {
        query: IndexQuery,
        after: Option<Cursor>,
        /// Also count the rows (first page only).
        count: bool,
    },
    Projects,
    /// The session-start text for these keys (the agent view of the index).
    Context {
        label: String,
        keys: Vec<String>,
    },
    WorkState {
        keys: Vec<String>,
    },
    WorkHistory {
        project: String,
        list: String,
    },
    Timeline {
        kind: Kind,
        id: i64,
    },
    Detail {
        kind: Kind,
        id: i64,
    },
    /// The same as `Detail`, for the preview pane: only the newest one queued is served.
    Preview {
        kind: Kind,
        id: i64,
    },
    Raw {
        id: i64,
    },
    Search {
        text: String,
        keys: Vec<String>,
    },
    /// Deletes a record the way `cmem forget ID` does (with its raw tool I/O).
    Forget {
        kind: Kind,
        id: i64,
    },
    /// Replaces a string everywhere cmem stored it, the way `cmem scrub` does; `dry_run`
    /// only counts.
    Scrub {
        pattern: String,
        dry_run: bool,
    },
}

/// What a layer shows: rows, and the plain text the agent would get for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Page {
    pub rows: Vec<Row>,
    /// `(kind, id, time)` of each row's record, for day headings across pages.
    pub next: Option<Cursor>,
    pub total: Option<(i64, i64)>,
    pub agent_text: Option<String>,
    /// The row to put the cursor on first.
    pub focus: Option<usize>,
    /// Index pages: the time of each row (headings are added where the day changes).
    pub times: Vec<i64>,
    /// Files the record touched (absolute when its session's directory is known), for `e`.
    pub files: Vec<std::path::PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ContextText {
    pub text: String,
    pub chars: usize,
    pub limit: usize,
    pub steps: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Reply {
    Page(Page),
    Projects(Vec<ProjectCount>),
    Context(ContextText),
    /// The thing asked for does not exist (a jump to an unknown id).
    Missing(String),
    Error(String),
    /// A record was deleted; `removed` says what went ("1 observations, 2 tool_uses"), empty
    /// when it was already gone.
    Forgotten {
        kind: Kind,
        id: i64,
        removed: String,
    },
    /// Where a scrub replaced (or, on a dry run, would replace) the pattern: `rows` rows and
    /// `files` files of the data dir, `places` naming the table columns and files.
    Scrubbed {
        pattern: String,
        dry_run: bool,
        rows: usize,
        files: usize,
        places: String,
    },
}

/// What a scrub from the browser writes in place of the text (as `cmem scrub` does).
pub(crate) use crate::store::forget::SCRUBBED;
