//! Sentence embeddings for semantic search, in the binary and offline.
//!
//! The model is potion-base-8M (Model2Vec, MIT; provenance in assets/model/PROVENANCE.md),
//! quantised to int8 and compiled in, so every install has it and nothing is fetched at run
//! time. It is parsed on first use (~0.1 s) and only by processes that live long enough to
//! pay for it: the MCP server, the TUI and search commands hand a [`Meaning`] down with their
//! queries; hooks never do, and without it search is lexical only.

pub mod e5;
pub mod model;
pub mod pack;
pub mod vector;
pub mod wordpiece;

use std::sync::OnceLock;

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
static MODEL: OnceLock<Option<Model>> = OnceLock::new();

/// Whether a search may rank by meaning, and where the model is read from. A face that lives long
/// enough to pay for loading the model (the MCP server, the browser, search commands) makes one
/// from its settings and hands it down with each query; hooks never do, and their searches are
/// lexical only. The model itself is read on the first search that needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) enum Meaning {
    #[default]
    Off,
    /// By meaning too, with the model installed in this data dir or the built-in one.
    From(std::path::PathBuf),
}

impl Meaning {
    /// `From(data_dir)` when `semantic` (the `[search] semantic` setting), else `Off`.
    pub(crate) fn when(semantic: bool, data_dir: std::path::PathBuf) -> Meaning {
        if semantic {
            Meaning::From(data_dir)
        } else {
            Meaning::Off
        }
    }

    /// The model, loaded on first use, when ranking by meaning is on and it loads.
    pub(crate) fn model(&self) -> Option<&'static Model> {
        match self {
            Meaning::Off => None,
            Meaning::From(data_dir) => load(data_dir),
        }
    }
}

/// The model installed in `data_dir`, else the built-in one, loaded once per process (one
/// process serves one data dir). For commands about the model itself (`cmem doctor`, `cmem
/// model`, the evaluation) and, through [`Meaning`], for searches.
pub(crate) fn load(data_dir: &std::path::Path) -> Option<&'static Model> {
    MODEL
        .get_or_init(|| match open(data_dir) {
            Ok(m) => Some(m),
            Err(e) => {
                crate::logging::error(format!("semantic search is off: {e:#}"));
                None
            }
        })
        .as_ref()
}

/// The installed model when there is one, else the built-in one.
fn open(data_dir: &std::path::Path) -> anyhow::Result<Model> {
    let path = installed_path(data_dir);
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
