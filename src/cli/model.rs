//! `cmem model`: which sentence-embedding model semantic search uses, embedding the records
//! that wait for a vector (`backfill`), and replacing the model with a Model2Vec model from a
//! local directory (nothing is ever downloaded).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use crate::embed;
use crate::view::time::{stopwatch, thousands};

#[derive(Args)]
pub(crate) struct ModelArgs {
    #[command(subcommand)]
    command: Option<ModelCommand>,
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Which model runs, its size and provenance, and how many records have vectors (default)
    Status,
    /// Embed every record that waits for a vector, newest first, with a progress line; can be
    /// interrupted and run again to go on. The hooks start it in the background after a turn
    Backfill {
        /// Run as the hooks' background worker: lowest CPU priority, one core, quietly, and
        /// not at all while another backfill runs
        #[arg(long)]
        background: bool,
    },
    /// Use a Model2Vec model from a local directory (model.safetensors + a BERT WordPiece
    /// tokenizer.json) instead of the built-in one; being a table lookup, it embeds records
    /// at the next search
    Install { dir: PathBuf },
    /// Go back to the built-in model
    Remove,
}

pub(crate) fn run(args: &ModelArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    let installed = embed::installed_path(&settings.data_dir());
    match args.command.as_ref().unwrap_or(&ModelCommand::Status) {
        ModelCommand::Status => status(face, &installed),
        ModelCommand::Backfill { background } => {
            if *background {
                crate::hook::embed_worker::run(settings);
                Ok(ExitCode::SUCCESS)
            } else {
                backfill(face)
            }
        }
        ModelCommand::Install { dir } => {
            let packed = embed::pack::pack_dir(dir)
                .with_context(|| format!("{} is not a usable Model2Vec model", dir.display()))?;
            let id = embed::installed_id(&packed);
            // Check it loads before it replaces anything.
            let leaked: &'static [u8] = Box::leak(packed.clone().into_boxed_slice());
            let model = embed::Model::from_packed(&id, leaked)?;
            let parent = installed.parent().context("the model path has no folder")?;
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
            let tmp = installed.with_extension("m2v.tmp");
            std::fs::write(&tmp, &packed)
                .with_context(|| format!("cannot write {}", tmp.display()))?;
            std::fs::rename(&tmp, &installed)
                .with_context(|| format!("cannot move the model to {}", installed.display()))?;
            println!(
                "installed {id} ({} tokens x {} dimensions, {} bytes) at {}; running MCP servers and browsers pick it up when they restart, and re-embed every record at their first search",
                model.vocabulary(),
                model.dims(),
                packed.len(),
                installed.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        ModelCommand::Remove => {
            match std::fs::remove_file(&installed) {
                Ok(()) => println!(
                    "removed {}; the built-in model is used again",
                    installed.display()
                ),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    println!("no installed model; the built-in one is in use")
                }
                Err(e) => {
                    return Err(anyhow::Error::new(e)
                        .context(format!("cannot remove {}", installed.display())));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn status(face: &super::face::Face, installed: &std::path::Path) -> Result<ExitCode> {
    let settings = face.settings()?;
    let model = embed::load(&settings.data_dir()).context(
        "the embedding model does not load (the log says why); `cmem model remove` returns to the built-in one",
    )?;
    let model = &model;
    println!("model:    {}", model.id());
    println!("about:    {}", model.describe());
    if !embed::uses_built_in(&settings.data_dir()) {
        println!("file:     {}", installed.display());
    }
    println!("shape:    {} dimensions", model.dims());
    println!(
        "search:   {}",
        if settings.search.semantic {
            "semantic + lexical"
        } else {
            "lexical only (search.semantic = false)"
        }
    );
    if let Some(store) = face.store_if_any()? {
        let (with, all) = crate::store::vectors::coverage(&store.conn, model.id())?;
        let rest = if with >= all {
            String::new()
        } else if model.inline() {
            " (the rest are embedded at the next search)".to_string()
        } else {
            format!(
                " ({} wait: `cmem model backfill` embeds them now; until then they are found by their words)",
                thousands(all - with)
            )
        };
        println!(
            "vectors:  {} of {} records{rest}",
            thousands(with),
            thousands(all)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `cmem model backfill` in the foreground: every waiting record, a progress line on stderr.
fn backfill(face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    let model = embed::load(&settings.data_dir()).context(
        "the embedding model does not load (the log says why); `cmem model remove` returns to the built-in one",
    )?;
    let model = &model;
    let Some(store) = face.store_if_any()? else {
        println!("no memory yet: nothing to embed");
        return Ok(ExitCode::SUCCESS);
    };
    // One backfill at a time: a second would embed the same records.
    let _lock = match crate::hook::embed_worker::lock(&settings.data_dir())? {
        Some(lock) => lock,
        None => {
            println!(
                "another backfill is running (the hooks' background one, or another terminal's); it goes on by itself"
            );
            return Ok(ExitCode::SUCCESS);
        }
    };
    let total = crate::store::vectors::waiting(&store.conn, model.id())?;
    if total == 0 {
        println!("every record has its vector ({})", model.id());
        return Ok(ExitCode::SUCCESS);
    }
    let mut bar = Progress::new(total);
    let done = crate::store::vectors::backfill(&store.conn, model, embed::threads(), &mut |n| {
        bar.show(n);
        true
    })?;
    bar.finish();
    let secs = bar.started.elapsed().as_secs_f64();
    println!(
        "embedded {} records in {} ({:.1} a second) with {}",
        thousands(done as i64),
        stopwatch(bar.started.elapsed()),
        done as f64 / secs.max(0.001),
        model.id()
    );
    Ok(ExitCode::SUCCESS)
}

/// A progress line: redrawn in place on a terminal, a line every few seconds otherwise.
struct Progress {
    total: i64,
    started: std::time::Instant,
    last: std::time::Instant,
    terminal: bool,
}

impl Progress {
    fn new(total: i64) -> Progress {
        use std::io::IsTerminal;
        let now = std::time::Instant::now();
        Progress {
            total,
            started: now,
            last: now,
            terminal: std::io::stderr().is_terminal(),
        }
    }

    fn show(&mut self, done: usize) {
        let every = if self.terminal {
            std::time::Duration::from_millis(100)
        } else {
            std::time::Duration::from_secs(5)
        };
        if self.last.elapsed() < every && (done as i64) < self.total {
            return;
        }
        self.last = std::time::Instant::now();
        let elapsed = self.started.elapsed().as_secs_f64();
        let rate = done as f64 / elapsed.max(0.001);
        let left = (self.total - done as i64).max(0) as f64 / rate.max(0.001);
        let width = 24usize;
        let filled = (done as f64 / self.total.max(1) as f64 * width as f64).round() as usize;
        let line = format!(
            "embedding [{}{}] {}/{} records · {rate:.1}/s · {} left",
            "#".repeat(filled.min(width)),
            "-".repeat(width - filled.min(width)),
            thousands(done as i64),
            thousands(self.total),
            stopwatch(std::time::Duration::from_secs_f64(left))
        );
        if self.terminal {
            eprint!("\r\x1b[2K{line}");
        } else {
            eprintln!("{line}");
        }
    }

    fn finish(&self) {
        if self.terminal {
            eprintln!();
        }
    }
}
