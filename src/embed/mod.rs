//! Sentence embeddings for semantic search, in the binary and offline.
//!
//! The model is potion-base-8M (Model2Vec, MIT; provenance in assets/model/PROVENANCE.md),
//! quantised to int8 and compiled in, so every install has it and nothing is fetched at run
//! time. It is parsed on first use (~0.1 s) and only by processes that live long enough to
//! pay for it: the MCP server, the TUI and search commands call [`enable`]; hooks never do,
//! and without it search is lexical only.

pub mod model;
pub mod pack;
pub mod vector;
pub mod wordpiece;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) use model::Model;
pub(crate) use vector::Vector;

/// The built-in model's identity as stored beside every vector: a different model re-embeds.
pub(crate) const BUILT_IN_ID: &str = "potion-base-8M/int8";

/// The built-in model (see assets/model/PROVENANCE.md).
pub(crate) static BUILT_IN: &[u8] = include_bytes!("../../assets/model/potion-base-8M.int8.m2v");

/// Where `cmem model install` puts a model that replaces the built-in one.
pub(crate) fn installed_path(data_dir: &std::path::Path) -> std::path::PathBuf {
    data_dir.join("model").join("model.m2v")
}
static ENABLED: AtomicBool = AtomicBool::new(false);
static MODEL: OnceLock<Option<Model>> = OnceLock::new();

/// Lets this process use the model (it is still loaded only when a search needs it).
pub(crate) fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// The model, when this process enabled it and it loads.
pub(crate) fn model() -> Option<&'static Model> {
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    load()
}

/// The model, loaded on first use whether or not this process enabled it (for commands that
/// are about the model itself: `cmem doctor`, the evaluation).
pub(crate) fn load() -> Option<&'static Model> {
    MODEL
        .get_or_init(|| match open() {
            Ok(m) => Some(m),
            Err(e) => {
                crate::logging::error(format!("semantic search is off: {e:#}"));
                None
            }
        })
        .as_ref()
}

/// The installed model when there is one, else the built-in one.
fn open() -> anyhow::Result<Model> {
    let data_dir = crate::config::load_lenient(&mut |_| {}).data_dir();
    let path = installed_path(&data_dir);
    match std::fs::read(&path) {
        Ok(bytes) => {
            let id = installed_id(&bytes);
            // Lives as long as the process, like the built-in table.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            Model::from_packed(&id, bytes).map_err(|e| {
                e.context(format!(
                    "the installed model {} is unusable",
                    path.display()
                ))
            })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            Model::from_packed(BUILT_IN_ID, BUILT_IN)
        }
        Err(e) => Err(anyhow::Error::new(e).context(format!("cannot read {}", path.display()))),
    }
}

/// An installed model's identity: its content, so reinstalling the same file keeps vectors.
pub(crate) fn installed_id(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(bytes);
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("installed/{hex}")
}
