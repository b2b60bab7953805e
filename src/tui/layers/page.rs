//! What a layer is filled with: rows and where each leads (a row may lead to a layer, hence
//! their place here), the worker's pages and replies.

use crate::model::Kind;
use crate::tui::highlight::HlLine;
use crate::view::{self, Doc};

use super::Component;

pub(crate) use crate::store::browse::{Cursor, IndexQuery, ProjectCount};

/// Rows in an index page (and hits in a search).
pub const PAGE: usize = 200;

/// Where a row leads when opened.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Record(Kind, i64),
    ToolUse(i64),
    /// A layer of its own (a work-state list's history).
    Layer(Box<Component>),
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
            RowText::View(l) => crate::tui::render::display_text(l),
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

impl Page {
    /// A page of `rows` and nothing else.
    pub(crate) fn of_rows(rows: Vec<Row>) -> Page {
        Page {
            rows,
            next: None,
            total: None,
            agent_text: None,
            focus: None,
            times: Vec::new(),
            files: Vec::new(),
        }
    }

    /// The rows of a document (records lead to themselves, the rest is text), with the
    /// document's plain text as the agent text.
    pub(crate) fn of_doc(doc: &Doc) -> Page {
        let mut rows = Vec::new();
        for b in &doc.blocks {
            let target = match b.kind {
                view::BlockKind::Observation(id) | view::BlockKind::FullObservation(id) => {
                    Some(Target::Record(Kind::Observation, id))
                }
                view::BlockKind::Summary(id) => Some(Target::Record(Kind::Summary, id)),
                view::BlockKind::Prompt(id) => Some(Target::Record(Kind::Prompt, id)),
                view::BlockKind::ToolUse(id) => Some(Target::ToolUse(id)),
                _ => None,
            };
            for l in &b.lines {
                let mut row = Row::view(l.clone());
                if !l.spans.is_empty() {
                    row.target = target.clone();
                }
                rows.push(row);
            }
        }
        let mut page = Page::of_rows(rows);
        page.agent_text = Some(doc.to_plain());
        page
    }

    /// The same page with no row leading anywhere.
    pub(crate) fn untargeted(mut self) -> Page {
        for r in self.rows.iter_mut() {
            r.target = None;
        }
        self
    }
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
