//! Replaying a transcript's events through the hooks' capture path: the same privacy rules,
//! redaction and project naming as a live hook, into the same tables.

use std::path::Path;

use anyhow::Result;

use super::{Event, Kind, Options, Report, Source};
use crate::config::Settings;
use crate::hook::HookEvent;
use crate::hook::capture;
use crate::hook::payload::Payload;
use crate::store::Store;
use crate::store::history_files::{self, Mark};
use crate::store::ingest::{self, Capture, Outcome};

/// Which sessions an import keeps: `--project` and `--since`.
pub(super) struct Filter {
    project: Option<String>,
    since_ms: Option<i64>,
}

impl Filter {
    pub(super) fn new(opts: &Options) -> Filter {
        // A directory given as the project stands for the project it is in.
        let project = opts.project.as_ref().map(|p| {
            let path = Path::new(p);
            if p.contains('/') && path.is_dir() {
                crate::project::resolve(path).primary
            } else {
                p.clone()
            }
        });
        Filter {
            project,
            since_ms: opts.since_ms,
        }
    }

    /// Whether the run leaves some sessions out.
    pub(super) fn is_partial(&self) -> bool {
        self.project.is_some() || self.since_ms.is_some()
    }
}

fn hook_event(kind: Kind) -> HookEvent {
    match kind {
        Kind::Prompt => HookEvent::UserPromptSubmit,
        Kind::ToolDone => HookEvent::PostToolUse,
        Kind::ToolFailed => HookEvent::PostToolUseFailure,
        Kind::TurnEnd => HookEvent::Stop,
        Kind::SessionEnd => HookEvent::SessionEnd,
    }
}

/// What the events of a batch count for, once stored.
#[derive(Clone, Copy)]
enum Counted {
    Prompt,
    ToolUse,
    Other,
}

fn counted(capture: &Capture) -> Counted {
    match capture {
        Capture::Prompt { text: Some(_), .. } => Counted::Prompt,
        Capture::ToolUse { .. } | Capture::WorkState { tool: Some(_), .. } => Counted::ToolUse,
        _ => Counted::Other,
    }
}

/// Turns a batch of events into captures and stores them with the file's mark in one
/// transaction (on a dry run: counts them).
#[allow(clippy::too_many_arguments)]
pub(super) fn store_batch(
    store: Option<&mut Store>,
    source: Source,
    events: Vec<Event>,
    mark: Option<&Mark>,
    settings: &Settings,
    opts: &Options,
    filter: &Filter,
    report: &mut Report,
) -> Result<()> {
    let mut captures = Vec::with_capacity(events.len());
    for event in events {
        if filter.since_ms.is_some_and(|since| event.at_ms < since) {
            report.before_since += 1;
            continue;
        }
        let kind = event.kind;
        match capture::build(
            hook_event(kind),
            Payload(event.payload),
            settings,
            event.at_ms,
            source.platform(),
        ) {
            Ok(Ok(c)) => {
                if filter
                    .project
                    .as_ref()
                    .is_some_and(|p| *p != c.session().project)
                {
                    report.other_projects += 1;
                    continue;
                }
                captures.push(c);
            }
            Ok(Err(_skip)) => report.not_stored += 1,
            Err(_) => {
                *report
                    .skipped_lines
                    .entry("an event the hooks would reject")
                    .or_default() += 1
            }
        }
    }
    if opts.dry_run {
        for c in &captures {
            let known = match store.as_deref() {
                Some(s) => ingest::already_stored(&s.conn, c)?,
                None => false,
            };
            if known {
                report.already += 1;
            } else {
                tally(report, c, Counted::Other, true);
            }
        }
        return Ok(());
    }
    let Some(store) = store else {
        return Ok(());
    };
    let outcomes = store.write(|tx| {
        let mut outcomes = Vec::with_capacity(captures.len());
        for c in &captures {
            outcomes.push(ingest::apply(tx, c)?);
        }
        if let Some(mark) = mark {
            history_files::save(tx, mark, opts.now_ms)?;
        }
        Ok(outcomes)
    })?;
    for (c, outcome) in captures.iter().zip(outcomes) {
        match outcome {
            Outcome::Stored(_) => tally(report, c, counted(c), false),
            // A to-do call's tool use is stored with the list's change.
            Outcome::Updated if matches!(c, Capture::WorkState { tool: Some(_), .. }) => {
                tally(report, c, Counted::ToolUse, false)
            }
            Outcome::Duplicate if !matches!(counted(c), Counted::Other) => report.already += 1,
            Outcome::SkippedPrivate => report.not_stored += 1,
            _ => {}
        }
    }
    Ok(())
}

/// Adds a capture to its project's counts (`dry`: what it would add).
fn tally(report: &mut Report, c: &Capture, how: Counted, dry: bool) {
    let how = if dry { counted(c) } else { how };
    let session = c.session();
    let counts = report
        .per_project
        .entry(session.project.clone())
        .or_default();
    match how {
        Counted::Prompt => counts.prompts += 1,
        Counted::ToolUse => counts.tool_uses += 1,
        Counted::Other => return,
    }
    counts.sessions.insert(session.content_session_id.clone());
}
