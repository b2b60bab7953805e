//! Fitting the session-start context into the host's limit: claude-mem's drop ladder, counted in
//! UTF-16 units (docs/ARCHITECTURE.md, "From the store to the next session start").
//!
//! Claude Code delivers `additionalContext` only up to 10,000 characters counted in UTF-16
//! units; one more and the model gets a 2 KB preview instead. So: render, and while the text is
//! too long apply the first step of a fixed ladder that still applies, then render again. Only
//! whole items go; header, footer and at least one observation always stay.

use super::doc::Doc;
use super::index::{IndexInput, IndexOptions, render};
use crate::model::utf16_len;

/// The host's limit on one hook output.
pub const HOST_LIMIT: usize = 10_000;

/// One thing the budget took out, for humans (the TUI's agent view, `cmem context --json`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Work-state lines replaced by an overflow line (section cap).
    WorkStateLines {
        cut: usize,
    },
    FullNarratives {
        count: usize,
    },
    LastSummary,
    Summaries {
        from: usize,
        to: usize,
    },
    Observations {
        from: usize,
        to: usize,
    },
}

impl Step {
    pub(crate) fn describe(&self) -> String {
        match self {
            Step::WorkStateLines { cut } => {
                format!("cut {cut} work-state line(s) past its 3,000-character cap")
            }
            Step::FullNarratives { count } => {
                format!("dropped the full text of {count} observation(s)")
            }
            Step::LastSummary => "dropped the last-summary block".into(),
            Step::Summaries { from, to } => format!("halved summaries {from} → {to}"),
            Step::Observations { from, to } => format!("halved observations {from} → {to}"),
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct FittedIndex {
    pub doc: Doc,
    pub text: String,
    pub options: IndexOptions,
    pub steps: Vec<Step>,
    /// Nothing was left to drop and the text is still too long (cannot happen with the
    /// row caps of the index; reported rather than hidden).
    pub over_budget: bool,
}

/// Renders the index and reduces it until it is at most `limit` UTF-16 units.
pub(crate) fn fit_index(input: &IndexInput, options: &IndexOptions, limit: usize) -> FittedIndex {
    let mut opts = options.clone();
    opts.observations = opts.observations.min(input.observations.len());
    opts.sessions = opts.sessions.min(input.summaries.len());
    opts.full_count = opts.full_count.min(opts.observations);
    let mut steps = Vec::new();
    loop {
        let doc = render(input, &opts);
        let text = doc.to_plain();
        if utf16_len(&text) <= limit {
            return FittedIndex {
                doc,
                text,
                options: opts,
                steps,
                over_budget: false,
            };
        }
        let has_last_summary = doc
            .blocks
            .iter()
            .any(|b| matches!(b.kind, super::doc::BlockKind::LastSummary(_)));
        if opts.full_count > 0 {
            steps.push(Step::FullNarratives {
                count: opts.full_count,
            });
            opts.full_count = 0;
        } else if opts.show_last_summary && has_last_summary {
            steps.push(Step::LastSummary);
            opts.show_last_summary = false;
        } else if opts.sessions > 0 {
            let (from, to) = halve(&mut opts.sessions);
            steps.push(Step::Summaries { from, to });
        } else if opts.observations > 1 {
            let (from, to) = halve(&mut opts.observations);
            steps.push(Step::Observations { from, to });
        } else {
            return FittedIndex {
                doc,
                text,
                options: opts,
                steps,
                over_budget: true,
            };
        }
    }
}

/// Halves a row count in place; returns it before and after.
fn halve(n: &mut usize) -> (usize, usize) {
    let from = *n;
    *n = from / 2;
    (from, *n)
}
