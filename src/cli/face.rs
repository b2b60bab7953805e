//! What every command gets from the dispatcher: the configuration, read once, strictly (a
//! problem is an error that says what to fix), and only by a command that asks for it.
//! Commands below the dispatcher never read the configuration themselves.

use std::cell::OnceCell;

use anyhow::Result;

use crate::config::{Loaded, Settings};

#[derive(Default)]
pub(crate) struct Face {
    loaded: OnceCell<Loaded>,
}

impl Face {
    /// The configuration file and its settings (with the environment's overrides applied).
    pub(crate) fn loaded(&self) -> Result<&Loaded> {
        if let Some(loaded) = self.loaded.get() {
            return Ok(loaded);
        }
        let loaded = crate::config::load()?;
        Ok(self.loaded.get_or_init(|| loaded))
    }

    pub(crate) fn settings(&self) -> Result<&Settings> {
        Ok(&self.loaded()?.settings)
    }
}
