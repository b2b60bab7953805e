//! The worker protocol: what the browser asks for (`Request`) and what it gets back (a
//! `Reply`, a `Page` of `Row`s, each maybe leading to a `Target`). The page types live with the
//! layers (`layers/page.rs`: a row may lead to a layer); a layer's own `load` or `worker.rs`
//! answers.

use crate::model::Kind;

use super::layers::Component;

pub use super::layers::page::{ContextText, PAGE, Row, RowText, Target};
pub(crate) use super::layers::page::{IndexQuery, Page, Reply};

#[derive(Debug, Clone, PartialEq)]
pub enum Request {
    /// What fills a layer of this kind (its next page, for a paged one).
    Load(Component),
    Projects,
    /// A record's detail for the preview pane: only the newest one queued is served.
    Preview {
        kind: Kind,
        id: i64,
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

/// What a scrub from the browser writes in place of the text (as `cmem scrub` does).
pub(crate) use crate::store::forget::SCRUBBED;
