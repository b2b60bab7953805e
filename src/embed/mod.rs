//! Sentence embeddings for semantic search, in the binary and offline.
//!
//! The model is potion-base-8M (Model2Vec, MIT; provenance in assets/model/PROVENANCE.md),
//! quantised to int8 and compiled in, so every install has it and nothing is fetched at run
//! time. It is parsed on first use (~0.1 s) and only by processes that live long enough to
//! pay for it: the MCP server, the TUI and search commands call [`enable`]; hooks never do,
//! and without it search is lexical only.

pub mod model;
pub mod vector;
pub mod wordpiece;

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

pub use model::Model;
pub use vector::Vector;

/// The model's identity as stored beside every vector: a different model re-embeds.
pub const MODEL_ID: &str = "potion-base-8M/int8";

static PACKED: &[u8] = include_bytes!("../../assets/model/potion-base-8M.int8.m2v");
static ENABLED: AtomicBool = AtomicBool::new(false);
static MODEL: OnceLock<Option<Model>> = OnceLock::new();

/// Lets this process use the model (it is still loaded only when a search needs it).
pub fn enable() {
    ENABLED.store(true, Ordering::Relaxed);
}

/// The model, when this process enabled it and it loads.
pub fn model() -> Option<&'static Model> {
    if !ENABLED.load(Ordering::Relaxed) {
        return None;
    }
    load()
}

/// The model, loaded on first use whether or not this process enabled it (for commands that
/// are about the model itself: `cmem doctor`, the evaluation).
pub fn load() -> Option<&'static Model> {
    MODEL
        .get_or_init(|| match Model::from_packed(PACKED) {
            Ok(m) => Some(m),
            Err(e) => {
                crate::logging::error(format!("semantic search is off: {e:#}"));
                None
            }
        })
        .as_ref()
}
