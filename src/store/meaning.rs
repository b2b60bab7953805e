//! Whether a search may rank by meaning, and what it keeps for that: the model, the vectors in
//! memory and whether this face's first search looked for records without a vector. A face
//! that lives long enough to pay for loading the model (the MCP server, the browser, search
//! commands) makes one from its settings at its entry and hands it down with each query;
//! clones share its state, and another face's is its own. Hooks never make one: their
//! searches are lexical only.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};

use super::vector_cache::Cache;
use crate::embed::Encoder;

#[derive(Clone, Default)]
pub(crate) enum Meaning {
    #[default]
    Off,
    On(Arc<Semantic>),
}

pub(crate) struct Semantic {
    /// Where an installed model would be (else the built-in one is used).
    data_dir: PathBuf,
    /// Read on the first search that needs it.
    model: OnceLock<Option<Encoder>>,
    /// The vectors of the database searched, read once and then only what is new.
    pub(crate) vectors: Mutex<Option<Cache>>,
    /// Whether the first hybrid search with a table-lookup model embedded every record that
    /// had no vector (later ones look only at newer records).
    pub(crate) full_pass: AtomicBool,
}

impl Meaning {
    /// On when `semantic` (the `[search] semantic` setting), with the model of `data_dir`.
    pub(crate) fn when(semantic: bool, data_dir: PathBuf) -> Meaning {
        if semantic {
            Meaning::On(Arc::new(Semantic {
                data_dir,
                model: OnceLock::new(),
                vectors: Mutex::new(None),
                full_pass: AtomicBool::new(false),
            }))
        } else {
            Meaning::Off
        }
    }

    pub(crate) fn semantic(&self) -> Option<&Semantic> {
        match self {
            Meaning::Off => None,
            Meaning::On(semantic) => Some(semantic),
        }
    }

    /// The model, loaded on first use, when ranking by meaning is on and it loads.
    pub(crate) fn model(&self) -> Option<&Encoder> {
        self.semantic()?.model()
    }
}

impl Semantic {
    pub(crate) fn model(&self) -> Option<&Encoder> {
        self.model
            .get_or_init(|| crate::embed::load(&self.data_dir))
            .as_ref()
    }
}

impl std::fmt::Debug for Meaning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Meaning::Off => write!(f, "Off"),
            Meaning::On(s) => write!(f, "On({})", s.data_dir.display()),
        }
    }
}
