//! `cmem tui` and `cmem demo`: the terminal browser, on your memory or on the demo data set.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

use crate::project;
use crate::tui::{self, Launch};

#[derive(Args)]
pub(crate) struct TuiArgs {
    /// Open on this project key instead of the current directory's
    #[arg(long, short)]
    project: Option<String>,
    // The help names the built-in themes from their one list.
    #[arg(long, help = theme_help())]
    theme: Option<String>,
    /// List the available themes and exit
    #[arg(long)]
    list_themes: bool,
}

#[derive(Args)]
pub(crate) struct DemoArgs {
    /// Rebuild the demo data set even if one exists
    #[arg(long)]
    reset: bool,
    /// Theme (see `cmem tui --list-themes`)
    #[arg(long)]
    theme: Option<String>,
    /// Only create the demo data and print where it is
    #[arg(long)]
    no_tui: bool,
}

fn theme_help() -> String {
    format!(
        "Theme: {}, or a file in <config dir>/themes",
        tui::theme::built_in_names()
    )
}

fn theme_name(arg: &Option<String>, settings: &crate::config::Settings) -> String {
    arg.clone().unwrap_or_else(|| settings.tui.theme.clone())
}

pub(crate) fn run(args: &TuiArgs, face: &super::face::Face) -> Result<ExitCode> {
    if args.list_themes {
        for name in tui::theme::available() {
            println!("{name}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let loaded = face.loaded()?;
    let keys = project::chosen(args.project.as_deref(), None)?;
    let db = loaded.settings.db_path();
    if !db.exists() {
        bail!(
            "no memory yet at {}: it is created by the first hook (run `cmem install`), or try the browser on the demo data with `cmem demo`",
            db.display()
        );
    }
    tui::run(Launch {
        db,
        project: keys.primary.clone(),
        project_keys: keys.all,
        theme: theme_name(&args.theme, &loaded.settings),
        settings: loaded.settings.clone(),
        config_file: loaded.file.clone(),
    })?;
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn demo(args: &DemoArgs, face: &super::face::Face) -> Result<ExitCode> {
    let loaded = face.loaded()?;
    let dir = crate::demo::dir();
    let db = crate::demo::ensure(&dir, face.now_ms(), args.reset)?;
    if args.no_tui {
        println!("{}", db.display());
        return Ok(ExitCode::SUCCESS);
    }
    let project = crate::demo::PROJECT.to_string();
    tui::run(Launch {
        db,
        project_keys: vec![project.clone()],
        project,
        theme: theme_name(&args.theme, &loaded.settings),
        settings: loaded.settings.clone(),
        config_file: loaded.file.clone(),
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `cmem dev screenshots`: draws the demo into SVG files (scripts/screenshots.sh makes PNGs).
pub(crate) fn screenshots(out: &std::path::Path) -> Result<ExitCode> {
    let shots = crate::tui::harness::screenshots(out)?;
    for s in shots {
        println!("{}", s.display());
    }
    Ok(ExitCode::SUCCESS)
}
