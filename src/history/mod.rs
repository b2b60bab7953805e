//! `cmem import claude-code|codex`: memory from the sessions agents already keep on disk.
//!
//! A reader per agent turns each transcript line into the events its hooks would have sent, in
//! the hooks' own payload shape (`Event`); the replay sends them through the hooks' capture
//! path — privacy tags, secret redaction, excluded projects, noise tools — into the same
//! tables at the sessions' own times, and the rule observer then makes observations and
//! summaries of the closed turns as it does after a live turn. Files are read as streams of
//! whole lines; how far each was read is kept (`store::history_files`), so a second run reads
//! only what the files gained, and rows a hook already stored are matched by session, prompt
//! and tool-use ids and not doubled.

pub(crate) mod claude_code;
pub(crate) mod codex;
mod cwd;
mod files;
mod replay;
mod scan;
mod time;

pub(crate) use files::default_roots;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use anyhow::Result;
use serde_json::{Map, Value};

use crate::config::Settings;
use crate::store::Store;

/// Whose transcripts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    ClaudeCode,
    Codex,
}

impl Source {
    /// The name in `cmem import <name>` and in `history_files.source`.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Source::ClaudeCode => "claude-code",
            Source::Codex => "codex",
        }
    }

    /// `sessions.platform_source` of what it imports (the hooks' own, for Claude Code).
    pub(crate) fn platform(self) -> &'static str {
        match self {
            Source::ClaudeCode => "claude",
            Source::Codex => "codex",
        }
    }

    fn reader(self, path: &std::path::Path, now_ms: i64) -> Box<dyn Reader> {
        match self {
            Source::ClaudeCode => Box::new(claude_code::Transcript::new(path, now_ms)),
            Source::Codex => Box::new(codex::Rollout::new(path, now_ms)),
        }
    }
}

/// Which hook an event stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Prompt,
    ToolDone,
    ToolFailed,
    TurnEnd,
    SessionEnd,
}

/// One thing a transcript says happened, as the payload of the hook that would have told it.
pub(crate) struct Event {
    pub kind: Kind,
    pub payload: Map<String, Value>,
    pub at_ms: i64,
}

/// What a reader made of one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Line {
    Used,
    /// Bookkeeping: nothing a hook would have been told.
    Ignored,
    /// A line the reader cannot use, and why (counted, never fatal).
    Unreadable(&'static str),
}

/// Reads one file's lines, in order, into events.
pub(crate) trait Reader {
    fn line(&mut self, line: &[u8], events: &mut Vec<Event>) -> Line;
    /// No tool call read so far is still waiting for its result: a next run may start here.
    fn settled(&self) -> bool;
    /// The lines read so far were read by an earlier run (a resumed read replays the first):
    /// their time is not this read's "previous usable time".
    fn forget_time(&mut self);
    /// The end of the file: closes the open turn and the session.
    fn finish(&mut self, events: &mut Vec<Event>);
}

pub(crate) struct Options {
    /// Files or directories; empty means the agent's own folder.
    pub paths: Vec<PathBuf>,
    /// Only sessions of this project (its name, as `cmem` shows it, or a directory in it).
    pub project: Option<String>,
    pub since_ms: Option<i64>,
    pub dry_run: bool,
    pub now_ms: i64,
    /// A file written to less than this long ago belongs to a session still running: it is
    /// left for the hooks (and the next import).
    pub settle_ms: i64,
}

/// What one project gained (or would gain).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Counts {
    pub sessions: BTreeSet<String>,
    pub prompts: usize,
    pub tool_uses: usize,
}

#[derive(Debug, Default)]
pub(crate) struct Report {
    pub files_found: usize,
    pub files_read: usize,
    pub files_unchanged: usize,
    pub files_active: usize,
    /// Subagent transcripts (`<session>/subagents/*.jsonl`): their work reaches memory as the
    /// result of the parent session's Task call.
    pub subagent_files: usize,
    pub per_project: BTreeMap<String, Counts>,
    /// Prompts and tool uses already in memory (a hook captured them, or an earlier import).
    pub already: usize,
    /// Events the capture rules leave out: private turns, excluded projects, noise tools.
    pub not_stored: usize,
    pub other_projects: usize,
    pub before_since: usize,
    /// Lines left out, by why.
    pub skipped_lines: BTreeMap<&'static str, usize>,
    /// Files with skipped lines (not the unfinished last one, read next time), in the order read.
    pub skipped_files: Vec<SkippedFile>,
    /// Sessions left out as their file names no working directory: (session id, file).
    pub no_cwd: Vec<(String, PathBuf)>,
    /// Files that could not be read or stored, with why: the others go on.
    pub failed_files: Vec<(PathBuf, String)>,
    pub turns_observed: usize,
    pub observations: usize,
    pub summaries: usize,
}

impl Report {
    pub(crate) fn sessions(&self) -> usize {
        self.per_project.values().map(|c| c.sessions.len()).sum()
    }

    pub(crate) fn prompts(&self) -> usize {
        self.per_project.values().map(|c| c.prompts).sum()
    }

    pub(crate) fn tool_uses(&self) -> usize {
        self.per_project.values().map(|c| c.tool_uses).sum()
    }

    pub(crate) fn skipped(&self) -> usize {
        self.skipped_lines.values().sum()
    }
}

/// A file some of whose lines were skipped, for the person to look at.
#[derive(Debug)]
pub(crate) struct SkippedFile {
    pub path: PathBuf,
    pub lines: usize,
    /// 1-based, counted from the file's start even when the read began at a mark.
    pub first_line: u64,
    /// Read from its start, not one line of it was usable: not a transcript of this agent, or
    /// damaged throughout. It is marked read all the same, so it is said once, not every run.
    pub nothing_usable: bool,
}

/// The transcripts of one agent on this machine, counted without reading them.
pub(crate) struct Survey {
    pub files: usize,
    /// Claude Code keeps a folder per project; Codex does not say without reading.
    pub projects: Option<usize>,
    pub roots: Vec<PathBuf>,
}

pub(crate) fn survey(source: Source) -> Survey {
    let roots = default_roots(source);
    let files = files::discover(source, &[]).files;
    let projects = (source == Source::ClaudeCode).then(|| {
        files
            .iter()
            .filter_map(|f| f.parent())
            .collect::<BTreeSet<_>>()
            .len()
    });
    Survey {
        files: files.len(),
        projects,
        roots,
    }
}

/// Where an import stands, for a progress line.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Progress {
    Reading {
        files_done: usize,
        files: usize,
        tool_uses: usize,
    },
    Observing {
        turns_done: usize,
    },
}

/// Imports (or, dry, counts) the history of `source`. `store` is `None` on a dry run with no
/// database yet.
pub(crate) fn run(
    mut store: Option<&mut Store>,
    source: Source,
    settings: &Settings,
    opts: &Options,
    progress: &mut dyn FnMut(Progress),
) -> Result<Report> {
    let mut report = Report::default();
    let found = files::discover(source, &opts.paths);
    report.files_found = found.files.len();
    report.subagent_files = found.subagent_files;
    report.failed_files.extend(found.failed);
    let filter = replay::Filter::new(opts);
    for (i, path) in found.files.iter().enumerate() {
        let outcome = files::read(
            store.as_deref_mut(),
            source,
            path,
            settings,
            opts,
            &filter,
            &mut report,
        );
        if let Err(e) = outcome {
            report.failed_files.push((path.clone(), format!("{e:#}")));
        }
        progress(Progress::Reading {
            files_done: i + 1,
            files: found.files.len(),
            tool_uses: report.tool_uses(),
        });
    }
    if let Some(store) = store.filter(|_| !opts.dry_run) {
        observe_all(store, settings, opts.now_ms, &mut report, progress)?;
        store.checkpoint()?;
    }
    Ok(report)
}

/// Runs the rule observer over every closed turn the import left waiting.
fn observe_all(
    store: &mut Store,
    settings: &Settings,
    now_ms: i64,
    report: &mut Report,
    progress: &mut dyn FnMut(Progress),
) -> Result<()> {
    if !settings.observer.rules {
        return Ok(());
    }
    let mode = crate::view::context::active_mode(&settings.context);
    loop {
        let limits = crate::observe::Limits {
            max_turns: 200,
            until: None,
            parse_budget: crate::code::parse::DEFAULT_BUDGET,
        };
        let r = crate::observe::observe_pending(store, limits, &mode, now_ms)?;
        report.turns_observed += r.turns;
        report.observations += r.observations;
        report.summaries += r.summaries;
        progress(Progress::Observing {
            turns_done: report.turns_observed,
        });
        // Quarantined or busy turns are not observed and not counted: stop when a round
        // observed nothing.
        if r.turns == 0 {
            return Ok(());
        }
    }
}
