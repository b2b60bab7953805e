//! Deleting and scrubbing from the browser: the questions asked before, the status while the
//! worker changes the database, and what each answer means for the screen. The same code as
//! `cmem forget` and `cmem scrub` does the work (in `worker.rs`, on the worker thread).

use super::data::{Reply, Request, SCRUBBED};
use super::overlays::confirm::Confirm;
use crate::model::Kind;
use crate::text::plural;

/// The question before deleting `kind` `id`.
pub(crate) fn ask_delete(kind: Kind, id: i64) -> Confirm {
    let what = format!("{} {}", kind.label(), kind.display_id(id));
    let takes = match kind {
        Kind::Observation => "with the raw tool I/O it was built from",
        Kind::Summary => "the turn's summary only",
        Kind::Prompt => "with its turn's raw tool I/O",
    };
    Confirm {
        question: format!("Delete {what}?"),
        detail: format!("{takes}; like `cmem forget {}`", kind.display_id(id)),
        request: Request::Forget { kind, id },
    }
}

/// `x` then Enter: count where the text occurs first (the answer asks for a yes).
pub(crate) fn plan_scrub(text: String) -> Option<Request> {
    (!text.is_empty()).then_some(Request::Scrub {
        pattern: text,
        dry_run: true,
    })
}

/// The status line while `request` runs.
pub(crate) fn doing(request: &Request) -> String {
    match request {
        Request::Forget { kind, id } => format!("deleting {}…", kind.display_id(*id)),
        Request::Scrub { dry_run: true, .. } => "looking for it…".to_string(),
        _ => "scrubbing…".to_string(),
    }
}

/// What the answer to a delete or scrub does to the screen.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Done {
    /// The record is gone: close the layers about it, drop its rows everywhere.
    Forgotten { kind: Kind, id: i64, status: String },
    /// A dry run found the text: ask before replacing it.
    Ask(Confirm),
    /// Rows changed: reload, then say `status` (an error when `.1`).
    Reload(String, bool),
    /// Nothing changed: say so.
    Say(String, bool),
    /// Not an answer to a change.
    Nothing,
}

pub(crate) fn done(reply: Reply) -> Done {
    match reply {
        Reply::Forgotten { kind, id, removed } => {
            let what = format!("{} {}", kind.label(), kind.display_id(id));
            Done::Forgotten {
                kind,
                id,
                status: if removed.is_empty() {
                    format!("{what} was already gone")
                } else {
                    format!("deleted {what} ({removed})")
                },
            }
        }
        Reply::Scrubbed {
            pattern,
            dry_run: true,
            rows,
            files,
            places,
        } => {
            if rows + files == 0 {
                Done::Say(
                    format!(
                        "“{pattern}” is not in the database, the spool or the log: nothing to scrub"
                    ),
                    false,
                )
            } else {
                Done::Ask(Confirm {
                    question: format!(
                        "Replace “{pattern}” with {SCRUBBED} in {}?",
                        rows_and_files(rows, files)
                    ),
                    detail: places,
                    request: Request::Scrub {
                        pattern,
                        dry_run: false,
                    },
                })
            }
        }
        Reply::Scrubbed {
            rows,
            files,
            places,
            ..
        } => Done::Reload(
            format!("scrubbed {}: {places}", rows_and_files(rows, files)),
            false,
        ),
        Reply::Missing(m) => Done::Say(m, true),
        // A failure after the commit (the WAL could not be emptied) still changed rows: show
        // the database as it is now.
        Reply::Error(m) => Done::Reload(m, true),
        Reply::Page(_) | Reply::Projects(_) | Reply::Context(_) => Done::Nothing,
    }
}

/// "3 rows", "1 file", "3 rows and 1 file".
fn rows_and_files(rows: usize, files: usize) -> String {
    match (rows, files) {
        (r, 0) => plural(r, "row", "rows"),
        (0, f) => plural(f, "file", "files"),
        (r, f) => format!(
            "{} and {}",
            plural(r, "row", "rows"),
            plural(f, "file", "files")
        ),
    }
}
