//! What every command gets from the dispatcher: the configuration (read once, strictly: a
//! problem is an error that says what to fix), the time zone, the clock and the database —
//! each made once, and only for a command that asks for it. Commands below the dispatcher
//! never read the configuration or open the database themselves.

use std::cell::{OnceCell, RefCell, RefMut};

use anyhow::Result;

use crate::config::{Loaded, Settings};
use crate::store::Store;
use crate::view::time::Tz;

#[derive(Default)]
pub(crate) struct Face {
    loaded: OnceCell<Loaded>,
    tz: OnceCell<Tz>,
    now_ms: OnceCell<i64>,
    store: RefCell<Option<Store>>,
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

    /// The time zone of `[context] timezone`.
    pub(crate) fn tz(&self) -> Result<&Tz> {
        if let Some(tz) = self.tz.get() {
            return Ok(tz);
        }
        let tz = Tz::from_setting(&self.settings()?.context.timezone)?;
        Ok(self.tz.get_or_init(|| tz))
    }

    /// The time the command runs at: one reading of the clock for everything it does.
    pub(crate) fn now_ms(&self) -> i64 {
        *self.now_ms.get_or_init(crate::clock::now_ms)
    }

    /// The database, created if there is none yet and migrated (commands that write memory).
    pub(crate) fn store(&self) -> Result<RefMut<'_, Store>> {
        self.open(Store::open)
    }

    /// The database as it is, neither created nor migrated, or an error saying how one comes
    /// to be (commands that change or export memory: with no database there is nothing to
    /// change, and creating one would hide that).
    pub(crate) fn existing_store(&self) -> Result<RefMut<'_, Store>> {
        self.open(Store::open_existing)
    }

    /// The database, migrated, or `None` while there is none yet (an empty memory, not an
    /// error: for commands that only read).
    pub(crate) fn store_if_any(&self) -> Result<Option<RefMut<'_, Store>>> {
        let open = self.store.borrow().is_some();
        if !open && !self.settings()?.db_path().exists() {
            return Ok(None);
        }
        self.store().map(Some)
    }

    fn open(&self, how: fn(&std::path::Path) -> Result<Store>) -> Result<RefMut<'_, Store>> {
        let mut slot = self.store.borrow_mut();
        if slot.is_none() {
            *slot = Some(how(&self.settings()?.db_path())?);
        }
        RefMut::filter_map(slot, Option::as_mut)
            .map_err(|_| anyhow::anyhow!("the database was not opened"))
    }
}
