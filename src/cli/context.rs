//! `cmem context`: the exact session-start text, for humans and scripts.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use serde_json::json;

use crate::project::{self, ProjectKeys};
use crate::store::Wait;
use crate::view::context;

#[derive(Args)]
pub struct ContextArgs {
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
}

pub fn run(args: &ContextArgs) -> Result<ExitCode> {
    let settings = crate::config::load()?.settings;
    let keys = match (&args.project, &args.cwd) {
        (Some(p), _) => ProjectKeys::named(p),
        (None, Some(dir)) => project::resolve(&std::path::absolute(dir)?),
        (None, None) => project::resolve(&std::env::current_dir()?),
    };
    // A mode that cannot load stops here with the reason; hooks fall back to `code` instead.
    crate::model::mode::resolve(&settings.context.mode)?;
    let now = crate::clock::now_ms();
    let db = settings.db_path();
    let ctx = context::from_db(&db, Wait::Normal, &keys, &settings.context, now, args.full)?;
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
