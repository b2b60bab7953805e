//! `cmem context`: the exact session-start text, for humans and scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::json;

use crate::project::{self, ProjectKeys};
use crate::view::context;

#[derive(Args)]
pub(crate) struct ContextArgs {
    /// Render for this project key instead of the one the directory belongs to
    #[arg(long, short)]
    project: Option<String>,
    /// Render for the project of this directory (default: the current directory)
    #[arg(long)]
    cwd: Option<PathBuf>,
    /// Everything, without fitting into the limit
    #[arg(long)]
    full: bool,
    /// Print JSON: the text plus its length, the limit and what the budget dropped
    #[arg(long)]
    json: bool,
    /// The per-file index instead: a table per file (ID, time, type, title, ~tokens to read),
    /// for the whole project or for the files under DIR
    #[arg(long, value_name = "DIR")]
    by_file: Option<Option<PathBuf>>,
    /// With --by-file: at most this many observations (default: [context] observations)
    #[arg(long, requires = "by_file")]
    limit: Option<usize>,
    /// Write the context into the project's always-applied Cursor rule,
    /// .cursor/rules/cmem.mdc, for Cursor agents that run no sessionStart hook (cloud agents);
    /// Cursor's sessionEnd hook keeps an existing one current
    #[arg(long, conflicts_with_all = ["json", "by_file"])]
    cursor_rule: bool,
}

pub(crate) fn run(args: &ContextArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    if let Some(dir) = &args.by_file {
        return by_file(args, dir.as_deref(), face);
    }
    let keys = project::chosen(args.project.as_deref(), args.cwd.as_deref())?;
    // A mode that cannot load stops here with the reason; hooks fall back to `code` instead.
    crate::model::mode::resolve(&settings.context.mode)?;
    let store = face.store_if_any()?;
    let ctx = context::load_or_empty(
        store.as_ref().map(|s| &s.conn),
        &keys.primary,
        &keys.all,
        &settings.context,
        face.now_ms(),
        args.full,
    )?;
    if args.cursor_rule {
        let path = crate::hook::host::write_cursor_rule(&keys.root, &ctx.text)?;
        println!("wrote {}", path.display());
        return Ok(ExitCode::SUCCESS);
    }
    if args.json {
        let out = json!({
            "project": keys.primary,
            "keys": keys.all,
            "chars": ctx.chars(),
            "limit": if args.full { None } else { Some(ctx.limit) },
            "over_budget": ctx.over_budget,
            "mode": ctx.mode,
            "filter": {
                "types": settings.context.types,
                "concepts": settings.context.concepts,
            },
            "shown": {
                "observations": ctx.shown_observations(),
                "sessions": ctx.shown_sessions(),
            },
            "dropped": ctx.steps.iter().map(|s| json!({"step": s, "text": s.describe()})).collect::<Vec<_>>(),
            "text": ctx.text,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{}", ctx.text);
    }
    Ok(ExitCode::SUCCESS)
}

fn by_file(
    args: &ContextArgs,
    dir: Option<&std::path::Path>,
    face: &super::face::Face,
) -> Result<ExitCode> {
    let settings = face.settings()?;
    crate::model::mode::resolve(&settings.context.mode)?;
    let (keys, rel) = if let Some(dir) = dir {
        dir_keys(dir, args.project.as_deref())?
    } else {
        let keys = project::chosen(args.project.as_deref(), args.cwd.as_deref())?;
        (keys, String::new())
    };
    let store = face.store_if_any()?;
    let limit = args.limit.unwrap_or(settings.context.observations);
    let text = crate::view::by_file::load(
        store.as_ref().map(|s| &s.conn),
        &keys,
        &rel,
        &settings.context,
        limit,
    )?;
    if args.json {
        let out = json!({"project": keys.primary, "dir": rel, "chars": crate::model::utf16_len(&text), "text": text});
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The project of a directory and the directory's path relative to the project root.
pub(crate) fn dir_keys(
    dir: &std::path::Path,
    project: Option<&str>,
) -> Result<(ProjectKeys, String)> {
    let abs =
        std::path::absolute(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    anyhow::ensure!(
        abs.is_dir(),
        "{} is not a directory (give the directory whose files the table is about)",
        dir.display()
    );
    let resolved = project::resolve(&abs);
    let rel = abs
        .strip_prefix(&resolved.root)
        .map(|r| r.to_string_lossy().trim_matches('/').to_string())
        .unwrap_or_default();
    let keys = match project {
        Some(p) => ProjectKeys {
            primary: p.to_string(),
            all: vec![p.to_string()],
            root: resolved.root,
        },
        None => resolved,
    };
    Ok((keys, rel))
}
