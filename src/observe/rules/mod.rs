//! The rule-based observer: a turn's tool events in, typed observations out. Deterministic,
//! no model calls. One small file per tool family; this file decides the order in which the
//! rules claim events (a tool use belongs to exactly one observation).

mod agent;
mod files;
mod fold;
mod mcp;
pub mod plan;
mod search;
mod security;
mod shell;
mod web;

use std::time::Duration;

use super::draft::Draft;
use super::event::{Event, Kind};
use crate::store::turns::ToolRow;

/// What the rules see of a turn, and how long one parse of a file may take for them.
pub(crate) struct TurnInput<'a> {
    pub prompt: &'a str,
    pub events: &'a [Event],
    pub tools: &'a [ToolRow],
    pub parse_budget: Duration,
}

/// Which events a rule has already turned into an observation.
pub(crate) struct Claims(Vec<bool>);

impl Claims {
    pub(crate) fn new(n: usize) -> Claims {
        Claims(vec![false; n])
    }

    pub(crate) fn take(&mut self, idx: usize) {
        self.0[idx] = true;
    }

    pub(crate) fn is_free(&self, idx: usize) -> bool {
        !self.0[idx]
    }
}

/// Turns the events of one turn into observations, most significant first.
pub(crate) fn observe(input: &TurnInput) -> Vec<Draft> {
    let mut claims = Claims::new(input.events.len());
    for e in input.events {
        if matches!(e.kind, Kind::WorkState | Kind::Ignored) {
            claims.take(e.idx);
        }
    }
    let mut drafts = Vec::new();
    // A command that failed and later passed tells the whole story of the edits between.
    drafts.extend(shell::fixes(input, &mut claims));
    drafts.extend(files::edits(input, &mut claims));
    drafts.extend(shell::commands(input, &mut claims));
    drafts.extend(files::reads(input, &mut claims));
    drafts.extend(search::searches(input, &mut claims));
    drafts.extend(web::fetches(input, &mut claims));
    drafts.extend(mcp::calls(input, &mut claims));
    drafts.extend(agent::calls(input, &mut claims));
    drafts.extend(security::notes(input));
    fold::fold(drafts)
}

/// One observation per free event that `draft` makes one of: it stands for that event alone,
/// claims it, and tells its facts and the request as its narrative.
fn one_per_event(
    input: &TurnInput,
    claims: &mut Claims,
    draft: impl Fn(&Event) -> Option<Draft>,
) -> Vec<Draft> {
    let mut out = Vec::new();
    for e in input.events {
        if !claims.is_free(e.idx) {
            continue;
        }
        let Some(mut d) = draft(e) else { continue };
        let narrative = format!("{}.{}", d.facts.join(". "), asked(input.prompt));
        d.tool(e.idx);
        claims.take(e.idx);
        out.push(d.narrative(narrative));
    }
    out
}

/// Edited files of the turn, for rules that must not repeat them.
pub(crate) fn edited_paths(events: &[Event]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    for e in events {
        if let Kind::Edit(edit) = &e.kind
            && !out.contains(&edit.path.as_str())
        {
            out.push(&edit.path);
        }
    }
    out
}

/// The prompt, quoted and clipped, for narratives.
pub(crate) fn asked(prompt: &str) -> String {
    let p = crate::text::one_line(prompt);
    if p.is_empty() {
        String::new()
    } else {
        format!(" Request: \u{201c}{}\u{201d}", crate::text::clip(&p, 160))
    }
}
