//! `cmem forget` and `cmem scrub`: remove memory, or a string, so that nothing is left in the
//! database, its WAL or its free pages.

use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::store::forget::{self, Pattern, Selection};
use crate::text::plural;

#[derive(Args)]
pub(crate) struct ForgetArgs {
    /// Observation ids (`123`), summary ids (`S12`) and prompt ids (`P7`), as the index shows them
    ids: Vec<String>,
    /// Everything of this project: sessions, prompts, observations, summaries, tool uses, work state
    #[arg(long, short)]
    project: Vec<String>,
    /// Observations, summaries and prompts matching this full-text query (and their tool uses)
    #[arg(long, short)]
    query: Option<String>,
    /// Only what is older: a date (2026-01-31) or an age (90d, 12w)
    #[arg(long)]
    older_than: Option<String>,
    /// Print what would be removed and change nothing
    #[arg(long)]
    dry_run: bool,
}

/// `2026-01-31` (UTC midnight), an RFC 3339 instant, or an age like `90d` / `12w` / `36h`.
fn print_counts(counts: &[(&str, usize)], dry_run: bool) {
    let total: usize = counts.iter().map(|(_, n)| n).sum();
    let verb = if dry_run { "would remove" } else { "removed" };
    let parts: Vec<String> = counts
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(t, n)| format!("{n} {t}"))
        .collect();
    if total == 0 {
        println!("nothing matches: {verb} 0 rows");
    } else {
        println!(
            "{verb} {}: {}",
            plural(total, "row", "rows"),
            parts.join(", ")
        );
    }
}

pub(crate) fn run_forget(args: &ForgetArgs, face: &super::face::Face) -> Result<ExitCode> {
    let mut sel = Selection {
        projects: args.project.clone(),
        query: args.query.clone(),
        before_ms: args
            .older_than
            .as_deref()
            .map(|t| crate::clock::parse_cutoff(t, face.now_ms()).context("--older-than"))
            .transpose()?,
        ..Selection::default()
    };
    for id in &args.ids {
        sel.add_id(id)?;
    }
    let mut store = face.existing_store()?;
    let counts = forget::forget(&mut store, &sel, args.dry_run)?;
    print_counts(&counts, args.dry_run);
    Ok(ExitCode::SUCCESS)
}

#[derive(Args)]
pub(crate) struct ScrubArgs {
    /// The string to remove everywhere it was stored
    pattern: String,
    /// PATTERN is a regular expression (ASCII classes: \d, \w, \s)
    #[arg(long)]
    regex: bool,
    /// What replaces each match
    #[arg(long, default_value = forget::SCRUBBED)]
    replacement: String,
    /// Print where it occurs and change nothing
    #[arg(long)]
    dry_run: bool,
}

pub(crate) fn run_scrub(args: &ScrubArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    if args.pattern.is_empty() {
        bail!("give a non-empty PATTERN");
    }
    let pattern = if args.regex {
        Pattern::regex(&args.pattern)?
    } else {
        Pattern::Literal(args.pattern.clone())
    };
    let mut store = face.existing_store()?;
    let report = forget::scrub_everywhere(
        &mut store,
        &settings.data_dir(),
        &pattern,
        &args.replacement,
        args.dry_run,
    )?;
    let verb = if args.dry_run {
        "would scrub"
    } else {
        "scrubbed"
    };
    if report.rows.is_empty() {
        println!("not found in the database");
    }
    for (table, col, n) in &report.rows {
        println!("{verb} {n} {table}.{col}");
    }
    for file in &report.files {
        println!("{verb} {}", file.display());
    }
    Ok(ExitCode::SUCCESS)
}
