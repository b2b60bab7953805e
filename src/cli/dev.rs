//! `cmem dev …`: developer tools (synthetic data); hidden from the main help.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use crate::store::Store;
use crate::synth::{self, Plan};

#[derive(Args)]
pub struct DevArgs {
    #[command(subcommand)]
    command: DevCommand,
}

#[derive(Subcommand)]
enum DevCommand {
    /// Fill a database with reproducible synthetic memory (observations, summaries, prompts,
    /// tool uses, work state) across the projects acme-api, orbit-web and cmem
    Generate {
        #[arg(long, default_value_t = 1000)]
        observations: usize,
        /// Database to write (default: the data dir's)
        #[arg(long)]
        db: Option<PathBuf>,
        #[arg(long, default_value_t = 42)]
        seed: u64,
        /// How many days the data spans, ending now (or at --end-ms)
        #[arg(long, default_value_t = 60)]
        days: i64,
        #[arg(long)]
        end_ms: Option<i64>,
        /// Only these projects (comma-separated)
        #[arg(long, value_delimiter = ',')]
        projects: Vec<String>,
    },
    /// Draw the browser on the demo data set into SVG files (scripts/screenshots.sh)
    Screenshots {
        #[arg(long, default_value = "screenshots")]
        out: PathBuf,
    },
}

pub fn run(args: &DevArgs) -> Result<ExitCode> {
    match &args.command {
        DevCommand::Generate {
            observations,
            db,
            seed,
            days,
            end_ms,
            projects,
        } => {
            let path = match db {
                Some(p) => p.clone(),
                None => crate::config::load()?.settings.db_path(),
            };
            let mut store = Store::open(&path)?;
            let plan = Plan {
                observations: *observations,
                seed: *seed,
                end_ms: end_ms.unwrap_or_else(crate::clock::now_ms),
                days: *days,
                projects: projects.clone(),
            };
            let started = std::time::Instant::now();
            let g = synth::generate(&mut store.conn, &plan)?;
            store.checkpoint()?;
            println!(
                "{}: {} observations, {} summaries, {} prompts, {} tool uses, {} sessions, {} work-state entries in {:.1?}",
                path.display(),
                g.observations,
                g.summaries,
                g.prompts,
                g.tool_uses,
                g.sessions,
                g.work_state_entries,
                started.elapsed()
            );
            Ok(ExitCode::SUCCESS)
        }
        DevCommand::Screenshots { out } => super::tui::screenshots(out),
    }
}
