//! `cmem sync`, `cmem sync status`, `cmem sync init`, `cmem sync grant`: sharing memory
//! through PostgreSQL (src/sync). Never reached from a hook.

use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::{Args, Subcommand};

use crate::text::plural;

#[derive(Args)]
pub(crate) struct SyncArgs {
    #[command(subcommand)]
    command: Option<SyncCommand>,
    /// The run a session end starts in the background: quiet, reports to the log
    #[arg(long, hide = true)]
    auto: bool,
}

#[derive(Subcommand)]
enum SyncCommand {
    /// Server, device id, last push and pull, rows waiting
    Status {
        /// Do not ask the server how much is waiting there
        #[arg(long)]
        offline: bool,
    },
    /// Create or upgrade the server schema and its row-level-security policies (once per
    /// server, as a role that may create schemas)
    Init,
    /// Let a database role read and write one project's rows (`*`: all); run as the role that
    /// ran `init`
    Grant { role: String, project: String },
}

fn when(ms: Option<i64>) -> String {
    match ms {
        Some(ms) => crate::clock::format_utc_iso(ms),
        None => "never".into(),
    }
}

/// The detached run after a session end: one line in the log, never an error exit.
fn auto(settings: &crate::config::Settings) {
    use crate::logging;
    logging::init(
        &settings.data_dir(),
        logging::Level::parse(&settings.log_level),
        "sync",
    );
    match crate::sync::run(settings) {
        Ok(Some(r)) => {
            logging::info(format!(
                "sync: pushed {} row(s) and {} deletion(s); pulled {} new, {} changed, {} removed",
                r.pushed, r.tombstones, r.pulled.inserted, r.pulled.updated, r.pulled.deleted
            ));
            for e in &r.errors {
                logging::warn(format!("sync: {e}"));
            }
        }
        Ok(None) => logging::debug("sync: another sync is running"),
        Err(e) => logging::warn(format!("sync: {e:#}")),
    }
}

pub(crate) fn run(args: &SyncArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    match &args.command {
        None if args.auto => auto(settings),
        None => {
            // What a sync skips without failing (a pulled row's vector that does not read
            // right, a revision that names the wrong row) is told in the log, as for `--auto`.
            crate::logging::init(
                &settings.data_dir(),
                crate::logging::Level::parse(&settings.log_level),
                "sync",
            );
            let Some(r) = crate::sync::run(settings)? else {
                bail!(
                    "another `cmem sync` is running for {}; try again when it is done",
                    settings.data_dir().display()
                );
            };
            if let Some(old) = &r.copied_from {
                println!(
                    "this data dir was copied from device {old} (another machine or folder): it syncs as device {} from now on",
                    r.device
                );
            }
            let p = &r.pulled;
            println!(
                "pushed {} ({} new or changed on the server), {}; {} not shared",
                plural(r.pushed, "row", "rows"),
                r.server_changed,
                plural(r.tombstones, "deletion", "deletions"),
                r.kept_local
            );
            println!(
                "pulled {} new, {} changed, {} removed, {} skipped; {} still on the server",
                p.inserted, p.updated, p.deleted, p.skipped, r.behind
            );
            if r.scrubs_applied > 0 {
                println!(
                    "applied {} made on other devices",
                    plural(r.scrubs_applied, "scrub", "scrubs")
                );
            }
            if p.waiting > 0 {
                println!(
                    "kept {} until their parent arrives (a prompt before its session)",
                    plural(p.waiting, "pulled row", "pulled rows")
                );
            }
            if p.refused > 0 {
                println!(
                    "ignored {} naming a row of this machine it is not the copy of (see the log)",
                    plural(p.refused, "pulled revision", "pulled revisions")
                );
            }
            if r.refused > 0 {
                eprintln!(
                    "cmem: the server refused {}: {}",
                    plural(r.refused, "row", "rows"),
                    r.refusal.as_deref().unwrap_or("no reason given")
                );
            }
            if settings.sync.projects.is_empty() {
                eprintln!(
                    "cmem: no project is shared yet: list them in [sync] projects (globs; \"*\" for all)"
                );
            }
            for e in &r.errors {
                eprintln!("cmem: sync {e}");
            }
            if !r.errors.is_empty() || r.refused > 0 {
                return Ok(ExitCode::FAILURE);
            }
        }
        Some(SyncCommand::Status { offline }) => {
            let s = crate::sync::status(settings, !offline)?;
            println!(
                "server:    {}",
                s.server
                    .as_deref()
                    .unwrap_or("none ([sync] url is not set)")
            );
            println!(
                "device:    {} ({})",
                s.device
                    .as_deref()
                    .unwrap_or("none yet (made by the first sync)"),
                s.device_name
            );
            println!(
                "shared:    {}{}",
                if settings.sync.projects.is_empty() {
                    "no project ([sync] projects is empty)".to_string()
                } else {
                    settings.sync.projects.join(", ")
                },
                if settings.sync.raw_tool_io {
                    ", with raw tool I/O"
                } else {
                    ""
                }
            );
            println!("last push: {}", when(s.last_push));
            println!("last pull: {}", when(s.last_pull));
            // The outbox holds every changed row; a push sends those of shared projects.
            println!(
                "waiting:   {} changed since the last push{}",
                plural(s.waiting as usize, "row", "rows"),
                if settings.sync.projects.is_empty() {
                    " (none goes: no project is shared)"
                } else {
                    " (those of shared projects go)"
                }
            );
            println!(
                "pulled:    {} from other devices",
                plural(s.pulled_rows as usize, "row", "rows")
            );
            if s.kept > 0 {
                println!(
                    "kept:      {} waiting for their parent to be pulled",
                    plural(s.kept, "row", "rows")
                );
            }
            if let Some((table, id, why)) = &s.refusal {
                println!(
                    "refused:   {} by the server (newest: {table} {id}: {why})",
                    plural(s.refused as usize, "row", "rows")
                );
            }
            if let Some((at, why)) = &s.last_error {
                println!("failed:    {} {why}", when(Some(*at)));
            }
            match s.behind {
                Some(Ok(n)) => println!("on server: {} to pull", plural(n as usize, "row", "rows")),
                Some(Err(e)) => println!("on server: unknown: {e}"),
                None => {}
            }
        }
        Some(SyncCommand::Init) => {
            let (server, before, after) = crate::sync::init(settings)?;
            if before == after {
                println!("{server}: the cmem schema is at version {after} already");
            } else {
                println!(
                    "{server}: cmem schema version {before} -> {after} (rows, devices, grants, row-level security)"
                );
            }
        }
        Some(SyncCommand::Grant { role, project }) => {
            crate::sync::grant(settings, role, project)?;
            println!("{role} may now read and write the rows of project {project}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
