//! `cmem search` and `cmem show`: the memory's search and its records on the command line.
//! Search ranks as `mem_search`, the `search` tool and the TUI's `s` do (words and meaning, one
//! scale) and prints the `search` tool's table; show prints what `get_observations` returns.
//! A person sees what the agent would be shown.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::model::IndexRow;
use crate::project;
use crate::search::{self, Query};
use crate::view::replies::{self, NO_MEMORY, RecordOrder, SEARCH_LIMIT};

#[derive(Args)]
pub(crate) struct SearchArgs {
    /// What to look for: words, a question, identifiers (`refresh_window`, `src/auth.rs`)
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// Search this project key (repeatable; default: the project of the current directory)
    #[arg(long, short)]
    project: Vec<String>,
    /// Search the project of this directory instead of the current one
    #[arg(long, conflicts_with = "project")]
    cwd: Option<PathBuf>,
    /// Search every project
    #[arg(long, short = 'a', conflicts_with_all = ["project", "cwd"])]
    all_projects: bool,
    /// How many rows to print (1-100)
    #[arg(long, short = 'n', default_value_t = SEARCH_LIMIT as i64, allow_negative_numbers = true)]
    limit: i64,
    /// Only observations, summaries or prompts, or one observation type (bugfix, decision, …)
    #[arg(long, short = 't', value_name = "TYPE")]
    r#type: Option<String>,
    /// Match words only, without the embedding model (as when `[search] semantic = false`)
    #[arg(long)]
    lexical: bool,
    /// Print the rows as one JSON array
    #[arg(long)]
    json: bool,
}

/// Exit codes as `grep` and `rg` have them, so scripts can tell a miss from a failure.
const NOTHING_FOUND: u8 = 1;
const FAILED: u8 = 2;

pub(crate) fn run(args: &SearchArgs, face: &super::face::Face) -> Result<ExitCode> {
    grep_exit(search_memory(args, face))
}

/// A failure prints as every command's does but exits `FAILED`, not 1 (which says "nothing
/// found"); a closed pipe stays main's to treat. A busy database says what to do about it.
fn grep_exit(result: Result<ExitCode>) -> Result<ExitCode> {
    match result {
        Err(e) if !super::pipe::is_closed_stdout(&e) => {
            eprintln!("cmem: error: {e:#}");
            if is_busy(&e) {
                eprintln!(
                    "cmem: another process is writing to the memory; retry in a moment (`--lexical` searches without writing)"
                );
            }
            Ok(ExitCode::from(FAILED))
        }
        other => other,
    }
}

fn is_busy(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(f, _))
                if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    })
}

fn search_memory(args: &SearchArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    if !(1..=100).contains(&args.limit) {
        bail!("--limit {}: give a number from 1 to 100", args.limit);
    }
    let text = args.query.join(" ");
    if text.trim().is_empty() {
        bail!("the query is empty: give words, a question or an identifier to look for");
    }
    let projects = if args.all_projects {
        Vec::new()
    } else if !args.project.is_empty() {
        args.project.clone()
    } else {
        if let Some(dir) = &args.cwd {
            anyhow::ensure!(
                dir.is_dir(),
                "--cwd {}: not a directory (give a directory of the project to search)",
                dir.display()
            );
        }
        project::chosen(None, args.cwd.as_deref())
            .context("cannot resolve the project's directory")?
            .all
    };
    let mut query = Query {
        text: Some(text),
        projects,
        limit: args.limit as usize,
        ..Default::default()
    };
    if let Some(t) = &args.r#type {
        query = query.of_type(t).map_err(anyhow::Error::msg)?;
    }
    query.meaning = crate::store::meaning::Meaning::when(
        settings.search.semantic && !args.lexical,
        settings.data_dir(),
    );
    let Some(store) = face.store_if_any()? else {
        eprintln!("{NO_MEMORY}");
        return Ok(ExitCode::from(NOTHING_FOUND));
    };
    // A search may embed records, and says in the log when it could not.
    crate::logging::init(
        &settings.data_dir(),
        crate::logging::Level::parse(&settings.log_level),
        "search",
    );
    let mut rows: Vec<IndexRow> = search::search(&store.conn, &query)?
        .into_iter()
        .map(|h| h.row)
        .collect();
    crate::view::since::fill_rows(&store.conn, &mut rows)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&replies::rows_json(&rows))?
        );
    } else {
        let semantic = query.meaning.model().is_some();
        println!(
            "{}",
            replies::search_for_a_person(&query, &rows, semantic, face.tz()?)
        );
    }
    Ok(if rows.is_empty() {
        ExitCode::from(NOTHING_FOUND)
    } else {
        ExitCode::SUCCESS
    })
}

#[derive(Args)]
pub(crate) struct ShowArgs {
    /// Observation ids (`123`), summary ids (`S12`) and prompt ids (`P7`), as search shows them
    #[arg(required = true, value_name = "ID")]
    ids: Vec<String>,
}

/// At most this many records per run (each is cut at the agent's 6,000 bytes too).
const SHOW_MAX: usize = 50;

pub(crate) fn show(args: &ShowArgs, face: &super::face::Face) -> Result<ExitCode> {
    grep_exit(show_records(args, face))
}

fn show_records(args: &ShowArgs, face: &super::face::Face) -> Result<ExitCode> {
    let mut ids = Vec::new();
    for text in &args.ids {
        match crate::model::Kind::parse_id(text) {
            Some(id) if !ids.contains(&id) => ids.push(id),
            Some(_) => {}
            None => bail!(
                "{text:?} is not an id: give 123 (an observation), S12 (a summary) or P7 (a prompt)"
            ),
        }
    }
    if ids.len() > SHOW_MAX {
        bail!("{} ids: give at most {SHOW_MAX} at a time", ids.len());
    }
    let Some(store) = face.store_if_any()? else {
        eprintln!("{NO_MEMORY}");
        return Ok(ExitCode::from(NOTHING_FOUND));
    };
    let (text, missing) = replies::records_and_missing(
        &store.conn,
        &ids,
        ids.len(),
        None,
        RecordOrder::AsGiven,
        face.tz()?,
    )?;
    println!("{text}");
    Ok(if missing.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(NOTHING_FOUND)
    })
}
