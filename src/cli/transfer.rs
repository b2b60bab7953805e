//! `cmem import` and `cmem export`: claude-mem databases and cmem's own JSONL in (agents'
//! transcripts: `history.rs`), JSONL or a
//! Claude-Code-auto-memory markdown folder out.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand, ValueEnum};

use crate::store::transfer::Report;
use crate::store::{Store, claude_mem, jsonl, observations, summaries};
use crate::text::plural;
use crate::view::memory_md;

#[derive(Args)]
pub(crate) struct ImportArgs {
    #[command(subcommand)]
    source: ImportSource,
}

#[derive(Subcommand)]
enum ImportSource {
    /// A claude-mem database (opened read-only; running it again imports only new rows)
    ClaudeMem {
        /// Default: $CLAUDE_MEM_DATA_DIR/claude-mem.db, else ~/.claude-mem/claude-mem.db
        db: Option<PathBuf>,
        /// Print what would be imported, per table and project, and change nothing
        #[arg(long)]
        dry_run: bool,
    },
    /// A file written by `cmem export --format jsonl` (rows already there are skipped)
    Jsonl {
        file: PathBuf,
        #[arg(long)]
        dry_run: bool,
    },
    /// Claude Code's transcripts (~/.claude/projects): past sessions become memory as the hooks
    /// would have recorded them (running it again reads only what the files gained)
    ClaudeCode(super::history::HistoryArgs),
    /// Codex CLI's session rollouts (~/.codex/sessions), the same way
    Codex(super::history::HistoryArgs),
}

fn print_report(what: &str, report: &Report, dry_run: bool) {
    let verb = if dry_run { "would import" } else { "imported" };
    println!("{what}");
    println!(
        "{:<20} {:>8} {:>12} {:>8} {:>8}",
        "table",
        "source",
        if dry_run { "would import" } else { "imported" },
        "already",
        "skipped"
    );
    let mut per_project: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (table, t) in report.ordered() {
        println!(
            "{table:<20} {:>8} {:>12} {:>8} {:>8}",
            t.source, t.imported, t.already, t.skipped
        );
        for (p, n) in &t.by_project {
            per_project
                .entry(p.clone())
                .or_default()
                .push(format!("{n} {table}"));
        }
    }
    if per_project.is_empty() {
        println!("nothing new: {verb} 0 rows");
    } else {
        println!("{verb} per project:");
        for (p, parts) in per_project {
            let name = if p.is_empty() {
                "(no project)".into()
            } else {
                p
            };
            println!("  {name}: {}", parts.join(", "));
        }
    }
}

pub(crate) fn import(args: &ImportArgs, face: &super::face::Face) -> Result<ExitCode> {
    let now = face.now_ms();
    match &args.source {
        ImportSource::ClaudeCode(a) => {
            return super::history::run(crate::history::Source::ClaudeCode, a, face);
        }
        ImportSource::Codex(a) => {
            return super::history::run(crate::history::Source::Codex, a, face);
        }
        ImportSource::ClaudeMem { db, dry_run } => {
            let path = db.clone().unwrap_or_else(claude_mem::default_path);
            // A source that cannot be read fails before cmem's own database is created.
            drop(claude_mem::open_source(&path)?);
            let mut store = face.store()?;
            let report = claude_mem::import(&mut store, &path, *dry_run, now)?;
            if !dry_run {
                store.checkpoint()?;
            }
            let version = report
                .schema_version
                .map(|v| format!(" (claude-mem schema v{v})"))
                .unwrap_or_default();
            print_report(
                &format!("claude-mem database {}{version}", path.display()),
                &report,
                *dry_run,
            );
        }
        ImportSource::Jsonl { file, dry_run } => {
            let f = std::fs::File::open(file)
                .with_context(|| format!("cannot open {}", file.display()))?;
            let mut input = BufReader::new(f);
            // The header is checked before cmem's own database is created.
            let mut header = String::new();
            input
                .read_line(&mut header)
                .with_context(|| format!("cannot read {}", file.display()))?;
            let format = serde_json::from_str::<serde_json::Value>(&header)
                .ok()
                .and_then(|h| h.get("format").and_then(|f| f.as_str()).map(String::from));
            if format.as_deref() != Some(jsonl::FORMAT) {
                bail!(
                    "{} is not a cmem export (its first line has no \"format\": \"{}\"); `cmem export` writes one",
                    file.display(),
                    jsonl::FORMAT
                );
            }
            let mut store = face.store()?;
            let mut input = std::io::Cursor::new(header).chain(input);
            let report = jsonl::import(&mut store, &mut input, *dry_run)?;
            if !dry_run {
                store.checkpoint()?;
            }
            print_report(
                &format!("cmem export {}", file.display()),
                &report,
                *dry_run,
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Every row of every table, one JSON object a line (lossless; `cmem import jsonl` reads it)
    Jsonl,
    /// A folder per project with MEMORY.md and topic files, like Claude Code's auto memory
    Markdown,
}

#[derive(Args)]
pub(crate) struct ExportArgs {
    #[arg(long, value_enum, default_value = "jsonl")]
    format: Format,
    /// jsonl: the file to write (default: standard output). markdown: the folder to write
    /// into (one subfolder per project).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Only these projects (repeat for several; default: all)
    #[arg(long, short)]
    project: Vec<String>,
    /// markdown: keep one project's Claude Code auto-memory folder current (default folder:
    /// ~/.claude/projects/<project path>/memory). Writes only cmem's section of MEMORY.md and
    /// its cmem-*.md files, and refreshes them at every session end from then on
    #[arg(long)]
    keep: bool,
}

/// `--format markdown --keep`: one project, into its auto-memory folder, registered for
/// refreshing at session end.
fn keep(
    args: &ExportArgs,
    settings: &crate::config::Settings,
    store: &Store,
    tz: &crate::view::time::Tz,
) -> Result<ExitCode> {
    if args.project.len() > 1 {
        bail!("--keep keeps one project's folder: give at most one --project");
    }
    let here = crate::project::resolve(&std::env::current_dir()?);
    let keys = match args.project.first() {
        Some(p) => crate::project::ProjectKeys::named(p),
        None => here.clone(),
    };
    let folder = match &args.out {
        Some(dir) => std::path::absolute(dir)?,
        None if args.project.is_empty() => super::keep_memory::default_folder(&here.root),
        None => bail!("--keep with --project needs --out DIR (the folder to keep current)"),
    };
    let obs = observations::recent(&store.conn, &keys.all, usize::MAX >> 1)?;
    let sums = summaries::recent(&store.conn, &keys.all, usize::MAX >> 1)?;
    let kept = super::keep_memory::write(&folder, &keys.primary, &obs, &sums, tz)?;
    crate::store::kept::register(&settings.data_dir(), &keys.primary, &folder)?;
    println!(
        "{}: MEMORY.md (cmem section) + {}; {} changed, {} removed; refreshed at every session end",
        folder.display(),
        plural(kept.topics, "cmem topic file", "cmem topic files"),
        kept.changed,
        kept.removed
    );
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn export(args: &ExportArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    let store = face.existing_store()?;
    match args.format {
        Format::Jsonl if args.keep => bail!("--keep works with --format markdown"),
        Format::Jsonl => {
            let filter = jsonl::Filter {
                projects: args.project.clone(),
            };
            let counts = match &args.out {
                Some(path) => {
                    let mut f = std::io::BufWriter::new(
                        std::fs::File::create(path)
                            .with_context(|| format!("cannot create {}", path.display()))?,
                    );
                    let c = jsonl::export(&store.conn, &filter, &mut f)?;
                    f.flush()?;
                    c
                }
                None => jsonl::export(&store.conn, &filter, &mut super::pipe::stdout())?,
            };
            let total: usize = counts.iter().map(|(_, n)| n).sum();
            let parts: Vec<String> = counts.iter().map(|(t, n)| format!("{n} {t}")).collect();
            eprintln!(
                "exported {}: {}",
                plural(total, "row", "rows"),
                parts.join(", ")
            );
        }
        Format::Markdown if args.keep => return keep(args, settings, &store, face.tz()?),
        Format::Markdown => {
            let Some(dir) = &args.out else {
                bail!("--format markdown writes a folder: give it with --out DIR");
            };
            let tz = face.tz()?;
            let projects = if args.project.is_empty() {
                let mut stmt = store
                    .conn
                    .prepare("SELECT DISTINCT project FROM observations UNION SELECT DISTINCT project FROM session_summaries ORDER BY 1")?;
                stmt.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<rusqlite::Result<Vec<_>>>()?
            } else {
                args.project.clone()
            };
            for project in projects {
                let keys = vec![project.clone()];
                let obs = observations::recent(&store.conn, &keys, usize::MAX >> 1)?;
                let sums = summaries::recent(&store.conn, &keys, usize::MAX >> 1)?;
                let folder = dir.join(memory_md::folder_name(&project));
                std::fs::create_dir_all(&folder)
                    .with_context(|| format!("cannot create {}", folder.display()))?;
                let files = memory_md::render(&project, &obs, &sums, tz);
                for f in &files {
                    std::fs::write(folder.join(&f.name), &f.text).with_context(|| {
                        format!("cannot write {}", folder.join(&f.name).display())
                    })?;
                }
                println!(
                    "{}: MEMORY.md + {}, {}, {}",
                    folder.display(),
                    plural(files.len() - 1, "topic file", "topic files"),
                    plural(obs.len(), "observation", "observations"),
                    plural(sums.len(), "summary", "summaries")
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
