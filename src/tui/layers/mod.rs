//! The kinds of layer the browser stacks, each a component in its own file: its state, what
//! it asks the worker for and how the worker answers (`load`, run on the worker thread), how
//! it takes the answer, the keys it does not offer, and what it draws besides its rows. The
//! rows, cursor, scroll and `/` filter every layer shares are `layer.rs`'s; the app only
//! stacks layers and routes keys.
//!
//! Adding a kind: a file here implementing `Behaviour`, its line in `kinds!` below, and the
//! place that opens it (a row's `Target::Layer`, or `nav.rs`).

pub mod agent;
pub mod detail;
pub mod file;
pub mod index;
pub mod page;
pub mod raw;
pub mod search;
pub mod timeline;
pub mod work_history;
pub mod work_state;

use std::path::PathBuf;

use anyhow::Result;
use ratatui::Frame;
use ratatui::layout::Rect;
use rusqlite::Connection;

use super::keymap::{Action, Keymap};
use super::theme::Theme;
use crate::config::ContextSettings;
use crate::model::Kind;
use crate::view::time::Tz;
use detail::Detail;
use page::{ContextText, Page, Reply, Row, Target};
use raw::Raw;

/// What a layer's `load` gets besides the connection (the worker thread owns it).
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub tz: Tz,
    pub now_ms: i64,
    pub context: ContextSettings,
    /// The data dir: a scrub also rewrites its spool and log.
    pub data_dir: PathBuf,
    /// Whether `s` searches by meaning too; the model loads on the first search.
    pub meaning: crate::store::meaning::Meaning,
}

/// Where a row's `target` leads unless its layer says otherwise: a record to its detail, a
/// tool use to its raw I/O, a row leading to a layer of its own to that layer.
pub(crate) fn open(target: &Target) -> Component {
    match target {
        Target::Record(kind, id) => Detail::new(*kind, *id).into(),
        Target::ToolUse(id) => Raw { id: *id }.into(),
        Target::Layer(component) => (**component).clone(),
    }
}

/// What `a` shows on a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AgentView {
    /// The layer's own agent text (the reply of the MCP tool an agent calls for it).
    OwnText,
    /// The session-start text of the scope (the index's).
    SessionStart,
    /// The layer is the agent view: `a` goes back.
    Leave,
}

/// The behaviour of a kind of layer. The defaults fit a document layer that replaces its rows
/// with each page.
pub(crate) trait Behaviour {
    /// Its name in the status line.
    fn name(&self) -> &'static str;

    /// Its title when opened (breadcrumb and frame).
    fn title(&self) -> String;

    /// Worker thread: what fills the layer (a page, a text, or why there is none).
    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply>;

    /// List layers move between rows that lead somewhere and cut long rows; document layers
    /// move line by line and wrap.
    fn is_list(&self) -> bool {
        false
    }

    /// Whether the selected record is previewed beside the list on wide terminals.
    fn previews(&self) -> bool {
        false
    }

    /// Its breadcrumb, given its title.
    fn crumb(&self, title: &str) -> String {
        title.to_string()
    }

    /// The title on its frame, given its title.
    fn frame_title(&self, title: &str) -> String {
        format!(" {title} ")
    }

    /// What it says while it has no rows.
    fn empty_text(&self, _keymap: &Keymap) -> String {
        "Nothing here.".into()
    }

    /// The key that would leave this layer rather than act on it (the footer leaves it out).
    fn leaving_action(&self) -> Option<Action> {
        None
    }

    /// The record it is about: deleting that record closes the layer.
    fn about(&self) -> Option<(Kind, i64)> {
        None
    }

    /// The layer a row's `target` opens from here.
    fn open(&self, target: &Target) -> Component {
        open(target)
    }

    fn agent_view(&self) -> AgentView {
        AgentView::OwnText
    }

    /// Takes a page's rows (the layer takes the rest of the page).
    fn take_page(&mut self, rows: &mut Vec<Row>, page: Page, _tz: &Tz) {
        *rows = page.rows;
    }

    /// Takes a budgeted text (the agent view's session-start text).
    fn take_context(&mut self, _context: ContextText) {}

    /// Paged layers: the observations and summaries in all pages, once counted.
    fn total(&self) -> Option<(i64, i64)> {
        None
    }

    /// Paged layers: whether another page can be asked for.
    fn has_more(&self) -> bool {
        false
    }

    /// A record of `kind` left `rows`: fix what the layer keeps about them.
    fn forgot(&mut self, _rows: &mut Vec<Row>, _kind: Kind) {}

    /// Lines drawn above the rows (the agent view's budget meter).
    fn banner_height(&self) -> u16 {
        0
    }

    fn draw_banner(&self, _f: &mut Frame, _area: Rect, _theme: &Theme) {}
}

/// Declares the kinds once: the `Component` enum holding each kind's state, its `LayerKind`
/// tag, and the dispatch to each kind's `Behaviour`.
macro_rules! kinds {
    ($($kind:ident($state:ty),)*) => {
        /// A layer's kind with the state that kind keeps.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Component {
            $($kind($state),)*
        }

        /// A layer's kind alone.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum LayerKind {
            $($kind,)*
        }

        impl Component {
            pub fn kind(&self) -> LayerKind {
                match self {
                    $(Component::$kind(_) => LayerKind::$kind,)*
                }
            }

            pub(crate) fn behaviour(&self) -> &dyn Behaviour {
                match self {
                    $(Component::$kind(k) => k,)*
                }
            }

            pub(crate) fn behaviour_mut(&mut self) -> &mut dyn Behaviour {
                match self {
                    $(Component::$kind(k) => k,)*
                }
            }
        }

        $(impl From<$state> for Component {
            fn from(k: $state) -> Component {
                Component::$kind(k)
            }
        })*
    };
}

kinds! {
    Index(index::Index),
    Timeline(timeline::Timeline),
    Detail(detail::Detail),
    Raw(raw::Raw),
    WorkState(work_state::WorkState),
    WorkHistory(work_history::WorkHistory),
    Agent(agent::Agent),
    Search(search::Search),
    File(file::File),
}
