//! `cmem import claude-code` and `cmem import codex`: past sessions from the transcripts the
//! agents keep, as the hooks would have recorded them.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::Args;

use crate::history::{self, Progress, Report, Source};
use crate::text::plural;
use crate::view::time::thousands;

/// A transcript written to within this long belongs to a session still running.
const SETTLE: Duration = Duration::from_secs(120);

#[derive(Args)]
pub(crate) struct HistoryArgs {
    /// Transcript files or directories (default: the agent's own folder)
    paths: Vec<PathBuf>,
    /// Only sessions of this project (its name as `cmem` shows it, or a directory in it)
    #[arg(long)]
    project: Option<String>,
    /// Only what happened since: a date (2026-01-31), an instant, or an age (90d, 12w, 36h)
    #[arg(long)]
    since: Option<String>,
    /// Count what would be imported, per project, and change nothing
    #[arg(long)]
    dry_run: bool,
    /// Also read transcripts written to in the last two minutes (sessions still running)
    #[arg(long)]
    include_running: bool,
}

pub(crate) fn run(
    source: Source,
    args: &HistoryArgs,
    face: &super::face::Face,
) -> Result<ExitCode> {
    let settings = face.settings()?;
    crate::logging::init(
        &settings.data_dir(),
        crate::logging::Level::parse(&settings.log_level),
        "import",
    );
    let since_ms = args
        .since
        .as_deref()
        .map(|t| crate::clock::parse_cutoff(t, face.now_ms()))
        .transpose()
        .context("--since")?;
    let opts = history::Options {
        paths: args.paths.clone(),
        project: args.project.clone(),
        since_ms,
        dry_run: args.dry_run,
        now_ms: face.now_ms(),
        settle_ms: if args.include_running {
            0
        } else {
            SETTLE.as_millis() as i64
        },
    };
    let mut line = ProgressLine::new();
    let report = if args.dry_run {
        let mut store = face.store_if_any()?;
        history::run(store.as_deref_mut(), source, settings, &opts, &mut |p| {
            line.show(p)
        })?
    } else {
        let mut store = face.store()?;
        history::run(Some(&mut store), source, settings, &opts, &mut |p| {
            line.show(p)
        })?
    };
    line.finish();
    print_report(source, &report, args.dry_run);
    if report.files_found == 0 {
        let where_ = if args.paths.is_empty() {
            history::default_roots(source)
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        } else {
            "the paths given".into()
        };
        println!("no transcripts found in {where_}");
    }
    if !args.dry_run && report.observations + report.summaries > 0 {
        crate::hook::embed_worker::maybe_spawn(settings);
    }
    Ok(if report.failed_files.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// One sentence on the past sessions of `source` found on disk, with the command that imports
/// them; `None` when there are none.
pub(crate) fn found_sentence(source: Source) -> Option<String> {
    let survey = history::survey(source);
    if survey.files == 0 {
        return None;
    }
    let (agent, command) = match source {
        Source::ClaudeCode => ("Claude Code", "cmem import claude-code"),
        Source::Codex => ("Codex", "cmem import codex"),
    };
    let root = survey
        .roots
        .iter()
        .find(|r| r.exists())
        .map(|r| crate::paths::tilde(r))
        .unwrap_or_default();
    let projects = survey
        .projects
        .map(|n| format!(" of {}", plural(n, "project", "projects")))
        .unwrap_or_default();
    Some(format!(
        "{} past {agent} {}{projects} in {root}: `{command}` turns them into memory",
        thousands(survey.files as i64),
        if survey.files == 1 {
            "session"
        } else {
            "sessions"
        },
    ))
}

/// After `cmem install`: imports the history when asked, else says what there is to import.
pub(crate) fn after_install(import: bool, face: &super::face::Face) -> Result<()> {
    for source in [Source::ClaudeCode, Source::Codex] {
        if import {
            if history::survey(source).files > 0 {
                println!("cmem: importing past sessions ({})", source.key());
                let args = HistoryArgs {
                    paths: Vec::new(),
                    project: None,
                    since: None,
                    dry_run: false,
                    include_running: false,
                };
                run(source, &args, face)?;
            }
        } else if let Some(found) = found_sentence(source) {
            println!(
                "cmem: found {found} (nothing is imported unless you ask; `cmem install --import-history` does it now)"
            );
        }
    }
    Ok(())
}

fn print_report(source: Source, r: &Report, dry_run: bool) {
    let what = match source {
        Source::ClaudeCode => "Claude Code transcript",
        Source::Codex => "Codex rollout",
    };
    let mut read = format!(
        "read {} of {}",
        thousands(r.files_read as i64),
        plural(r.files_found, what, &format!("{what}s"))
    );
    if r.files_unchanged > 0 {
        read.push_str(&format!(
            "; {} unchanged since the last import",
            thousands(r.files_unchanged as i64)
        ));
    }
    if r.files_active > 0 {
        read.push_str(&format!(
            "; {} still being written (left for the hooks; run again later, or --include-running)",
            thousands(r.files_active as i64)
        ));
    }
    println!("{read}");
    let counts = format!(
        "{}, {}, {}",
        plural(r.sessions(), "session", "sessions"),
        plural(r.prompts(), "prompt", "prompts"),
        plural(r.tool_uses(), "tool use", "tool uses"),
    );
    if dry_run {
        println!("would import {counts} (nothing was changed)");
    } else if r.files_read == 0 && r.files_found > 0 && r.failed_files.is_empty() {
        println!("nothing new: imported 0 sessions");
    } else {
        println!(
            "imported {counts} → {}, {}",
            plural(r.observations, "observation", "observations"),
            plural(r.summaries, "summary", "summaries")
        );
    }
    for (project, c) in &r.per_project {
        if c.prompts + c.tool_uses == 0 {
            continue;
        }
        println!(
            "  {project}: {}, {}, {}",
            plural(c.sessions.len(), "session", "sessions"),
            plural(c.prompts, "prompt", "prompts"),
            plural(c.tool_uses, "tool use", "tool uses")
        );
    }
    if r.already > 0 {
        println!(
            "already in memory (captured by the hooks or an earlier import): {}",
            plural(r.already, "prompt or tool use", "prompts and tool uses")
        );
    }
    if r.not_stored > 0 {
        println!(
            "left out by the capture rules (private turns, excluded projects, noise tools): {}",
            plural(r.not_stored, "event", "events")
        );
    }
    if r.other_projects + r.before_since > 0 {
        println!(
            "left out by --project/--since: {} (these transcripts are not marked as read)",
            plural(r.other_projects + r.before_since, "event", "events")
        );
    }
    if r.skipped() > 0 {
        let why: Vec<String> = r
            .skipped_lines
            .iter()
            .map(|(why, n)| format!("{n} {why}"))
            .collect();
        println!(
            "skipped {}: {}",
            plural(r.skipped(), "line", "lines"),
            why.join(", ")
        );
        print_skipped_files(r);
    }
    for (session, path) in &r.no_cwd {
        println!(
            "left out: session {session} in {}: its transcript names no working directory, so its project is unknown",
            path.display()
        );
    }
    if r.subagent_files > 0 {
        println!(
            "not read: {} (a subagent's work is in its session as the Task call's result)",
            plural(
                r.subagent_files,
                "subagent transcript",
                "subagent transcripts"
            )
        );
    }
    for (path, why) in &r.failed_files {
        eprintln!("cmem: could not import {}: {why}", path.display());
    }
}

/// Files named with skipped lines: at most this many, so a folder of foreign files does not
/// bury the report.
const SKIPPED_FILES_SHOWN: usize = 20;

/// Where the skipped lines are, so the person can look at them.
fn print_skipped_files(r: &Report) {
    for f in r.skipped_files.iter().take(SKIPPED_FILES_SHOWN) {
        let lines = plural(f.lines, "line", "lines");
        if f.nothing_usable {
            println!(
                "  {}: nothing usable ({lines} skipped, first at line {}; not read again unless it grows)",
                f.path.display(),
                f.first_line
            );
        } else {
            println!(
                "  {}: {lines}, first at line {}",
                f.path.display(),
                f.first_line
            );
        }
    }
    let more = r.skipped_files.len().saturating_sub(SKIPPED_FILES_SHOWN);
    if more > 0 {
        println!("  … and {} more", plural(more, "file", "files"));
    }
}

/// One progress line on a terminal's stderr, redrawn in place; nothing when not a terminal.
struct ProgressLine {
    terminal: bool,
    last: Option<Instant>,
    drawn: bool,
}

impl ProgressLine {
    fn new() -> ProgressLine {
        ProgressLine {
            terminal: std::io::stderr().is_terminal(),
            last: None,
            drawn: false,
        }
    }

    fn show(&mut self, p: Progress) {
        if !self.terminal
            || self
                .last
                .is_some_and(|t| t.elapsed() < Duration::from_millis(100))
        {
            return;
        }
        self.last = Some(Instant::now());
        let line = match p {
            Progress::Reading {
                files_done,
                files,
                tool_uses,
            } => {
                let width = 24usize;
                let filled = (files_done * width / files.max(1)).min(width);
                format!(
                    "reading [{}{}] {}/{} transcripts · {} tool uses",
                    "#".repeat(filled),
                    "-".repeat(width - filled),
                    thousands(files_done as i64),
                    thousands(files as i64),
                    thousands(tool_uses as i64)
                )
            }
            Progress::Observing { turns_done } => {
                format!("observing · {} turns", thousands(turns_done as i64))
            }
        };
        eprint!("\r\x1b[2K{line}");
        self.drawn = true;
    }

    fn finish(&self) {
        if self.drawn {
            eprint!("\r\x1b[2K");
        }
    }
}
