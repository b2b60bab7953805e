//! Sentence embeddings for semantic search, in the binary and offline.
//!
//! The built-in model is multilingual-e5-small (intfloat, MIT; provenance in
//! assets/model/PROVENANCE-e5.md), 4-bit, compiled in, so every install has it and nothing is
//! fetched at run time. It reads English and Chinese alike and was trained for retrieval, but a
//! record costs tens of milliseconds: records are embedded in the background (`cmem model
//! backfill`, which the hooks start detached when a turn closes) and never while a search
//! waits; a record without its vector yet is found by its words. A Model2Vec model installed
//! with `cmem model install` replaces it; being a table lookup, it embeds missing records
//! inside the search as before.
//!
//! The model is parsed on first use (~60 ms) and only by processes that live long enough to
//! pay for it: the MCP server, the TUI and search commands hand a `store::meaning::Meaning` down with their
//! queries; hooks never do, and without it search is lexical only.

pub use cmem_e5 as e5;
pub mod model;
pub mod pack;
pub mod vector;
pub mod wordpiece;

pub(crate) use model::Model;
pub(crate) use vector::Vector;

/// Where `cmem model install` puts a model that replaces the built-in one.
pub(crate) fn installed_path(data_dir: &std::path::Path) -> std::path::PathBuf {
    data_dir.join("model").join("model.m2v")
}

/// The model semantic search runs: the built-in multilingual encoder, or a static (Model2Vec)
/// model the user installed.
pub(crate) enum Encoder {
    E5(e5::E5),
    Static(Model),
}

impl Encoder {
    pub(crate) fn id(&self) -> &str {
        match self {
            Encoder::E5(_) => e5::ID,
            Encoder::Static(m) => m.id(),
        }
    }

    pub(crate) fn dims(&self) -> usize {
        match self {
            Encoder::E5(m) => m.dims(),
            Encoder::Static(m) => m.dims(),
        }
    }

    /// Whether embedding a record is cheap enough to do inside a search (a table lookup);
    /// otherwise records wait for `cmem model backfill`.
    pub(crate) fn inline(&self) -> bool {
        matches!(self, Encoder::Static(_))
    }

    /// The unit vector of what a person asks; `None` when the model reads nothing in it. Its
    /// first window only, as a record's: a search must answer at once however much was pasted
    /// into it (every window of a 100 KB query took a minute).
    pub(crate) fn query(&self, text: &str) -> Option<Vec<f32>> {
        match self {
            Encoder::E5(m) => Some(m.embed_opening(e5::Role::Query, text)),
            Encoder::Static(m) => m.embed(text),
        }
    }

    /// The unit vector of a stored record's text.
    pub(crate) fn passage(&self, text: &str) -> Option<Vec<f32>> {
        match self {
            Encoder::E5(m) => Some(m.embed_opening(e5::Role::Passage, text)),
            Encoder::Static(m) => m.embed(text),
        }
    }

    /// What the user sees of the model: name, size, licence.
    pub(crate) fn describe(&self) -> String {
        match self {
            Encoder::E5(_) => format!(
                "multilingual-e5-small by intfloat (MIT), 4-bit, English and Chinese vocabulary, built into this binary ({} MB)",
                e5::BUILT_IN_BYTES / 1_000_000
            ),
            Encoder::Static(m) => format!(
                "a Model2Vec model installed with `cmem model install` ({} tokens)",
                m.vocabulary()
            ),
        }
    }
}

/// How many records a foreground embedding works on at once: one per core.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The model installed in `data_dir`, else the built-in one (parsing the built-in one takes
/// about 60 ms), or `None` with the reason in the log. Searches get theirs through the face's
/// `store::meaning::Meaning`; commands about the model itself (`cmem doctor`, `cmem model`,
/// the evaluation, the background embedding) load it here and keep it while they run.
pub(crate) fn load(data_dir: &std::path::Path) -> Option<Encoder> {
    match open(data_dir) {
        Ok(m) => Some(m),
        Err(e) => {
            crate::logging::error(format!("semantic search is off: {e:#}"));
            None
        }
    }
}

/// Whether `data_dir` uses the built-in model (nothing installed), told without loading it:
/// for hooks deciding whether records will wait for a background embedding.
pub(crate) fn uses_built_in(data_dir: &std::path::Path) -> bool {
    !installed_path(data_dir).exists()
}

/// The installed model when there is one, else the built-in one.
fn open(data_dir: &std::path::Path) -> anyhow::Result<Encoder> {
    let path = installed_path(data_dir);
    match std::fs::read(&path) {
        Ok(bytes) => {
            let id = installed_id(&bytes);
            // Lives as long as the process, like the built-in table.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            Model::from_packed(&id, bytes)
                .map(Encoder::Static)
                .map_err(|e| {
                    e.context(format!(
                        "the installed model {} is unusable",
                        path.display()
                    ))
                })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => e5::E5::built_in().map(Encoder::E5),
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
