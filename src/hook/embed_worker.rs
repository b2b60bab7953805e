//! Records get their vectors in the background: after a turn closes, the hook starts `cmem
//! model backfill --background` detached (its own process group, never waited for), as it
//! starts the external observer. The worker runs at the lowest CPU priority on one core, one
//! per data dir (a lock file), embeds every waiting record newest first, and exits. The hook
//! never loads the model: it looks at a lock file and spawns.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::config::Settings;
use crate::logging;
use crate::store::Store;

const LOCK_FILE: &str = "embed.lock";

fn lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join(LOCK_FILE)
}

/// The backfill lock of `data_dir`, or `None` while another backfill holds it. Released when
/// dropped (or when the holder dies).
pub(crate) fn lock(data_dir: &Path) -> Result<Option<File>> {
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create {}", data_dir.display()))?;
    let path = lock_path(data_dir);
    let file = File::create(&path).with_context(|| format!("cannot create {}", path.display()))?;
    Ok(file.try_lock().is_ok().then_some(file))
}

/// Hook side: starts the worker unless semantic search is off, records embed inside searches
/// (an installed static model), or a worker already runs.
pub(crate) fn maybe_spawn(settings: &Settings) {
    let data_dir = settings.data_dir();
    if !settings.search.semantic
        || !settings.search.background_embedding
        || !crate::embed::uses_built_in(&data_dir)
    {
        return;
    }
    match lock(&data_dir) {
        Ok(Some(_free)) => {}
        Ok(None) => return logging::debug("embedding: a worker already runs"),
        Err(e) => return logging::warn(format!("embedding: {e:#}")),
    }
    match super::detached::spawn(&["model", "backfill", "--background"], &data_dir) {
        Ok(pid) => logging::debug(format!("embedding worker started (pid {pid})")),
        Err(e) => logging::warn(format!("embedding: {e:#}")),
    }
}

/// Worker side (`cmem model backfill --background`): never fails loudly; what went wrong is in
/// the log, and the records wait for the next worker.
pub(crate) fn run(settings: &Settings) {
    // SAFETY: setpriority only changes this process's scheduling priority.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, 19);
    }
    if let Err(e) = work(settings) {
        logging::warn(format!("embedding worker: {e:#}"));
    }
}

fn work(settings: &Settings) -> Result<()> {
    if !settings.search.semantic {
        return Ok(());
    }
    let data_dir = settings.data_dir();
    let db = settings.db_path();
    if !db.exists() {
        return Ok(());
    }
    let model = crate::embed::load(&data_dir)
        .context("the embedding model did not load; records stay found by their words")?;
    let model = &model;
    loop {
        let Some(lock) = lock(&data_dir)? else {
            return Ok(());
        };
        let store = Store::open(&db)?;
        let started = std::time::Instant::now();
        let done = crate::store::vectors::backfill(&store.conn, model, 1, &mut |_| true)?;
        if done > 0 {
            logging::info(format!(
                "embedding worker: {done} record(s) in {:.1?}",
                started.elapsed()
            ));
        }
        drop(lock);
        // A hook may have found the lock held just before it was released: look once more.
        if done == 0 || crate::store::vectors::waiting(&store.conn, model.id())? == 0 {
            return Ok(());
        }
    }
}
