//! `cmem model`: which sentence-embedding model semantic search uses, and replacing it with
//! another Model2Vec model from a local directory (nothing is ever downloaded).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use crate::embed;

#[derive(Args)]
pub(crate) struct ModelArgs {
    #[command(subcommand)]
    command: Option<ModelCommand>,
}

#[derive(Subcommand)]
enum ModelCommand {
    /// Which model runs, its size and provenance, and how many records have vectors (default)
    Status,
    /// Use a Model2Vec model from a local directory (model.safetensors + a BERT WordPiece
    /// tokenizer.json) instead of the built-in one; vectors are rebuilt at the next search
    Install { dir: PathBuf },
    /// Go back to the built-in model
    Remove,
}

pub(crate) fn run(args: &ModelArgs, face: &super::face::Face) -> Result<ExitCode> {
    let settings = face.settings()?;
    let installed = embed::installed_path(&settings.data_dir());
    match args.command.as_ref().unwrap_or(&ModelCommand::Status) {
        ModelCommand::Status => status(face, &installed),
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
    let source = if model.id() == embed::BUILT_IN_ID {
        format!(
            "built into this binary ({} bytes; potion-base-8M by MinishLab, MIT, see assets/model/PROVENANCE.md)",
            embed::BUILT_IN.len()
        )
    } else {
        format!("installed at {}", installed.display())
    };
    println!("model:    {}", model.id());
    println!("source:   {source}");
    println!(
        "shape:    {} tokens x {} dimensions",
        model.vocabulary(),
        model.dims()
    );
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
        println!("vectors:  {with} of {all} records (the rest are embedded at the next search)");
    }
    Ok(ExitCode::SUCCESS)
}
