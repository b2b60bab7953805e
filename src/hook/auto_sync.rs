//! After a session ends, `cmem sync --auto` runs detached, like the external observer: its own
//! process group, never waited for. The hook only looks at one file's age (the rate limit) and
//! spawns; it never links against the sync code nor opens a connection. At most one sync runs
//! per data dir (the sync's own lock file).

use std::time::Duration;

use crate::config::Settings;
use crate::logging;

/// At most one automatic sync start per data dir in this interval.
const MIN_INTERVAL: Duration = Duration::from_secs(60);
const STAMP: &str = "sync.auto";

pub(crate) fn maybe_spawn(settings: &Settings) {
    let s = &settings.sync;
    if !s.auto || s.url.is_none() || s.projects.is_empty() {
        return;
    }
    let stamp = settings.data_dir().join(STAMP);
    let recent = std::fs::metadata(&stamp)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age < MIN_INTERVAL);
    if recent {
        logging::debug("sync: started less than a minute ago; not again");
        return;
    }
    if let Err(e) = std::fs::File::create(&stamp) {
        logging::warn(format!("sync: cannot write {}: {e}", stamp.display()));
        return;
    }
    match super::detached::spawn(&["sync", "--auto"], &settings.data_dir()) {
        Ok(pid) => logging::debug(format!("sync started (pid {pid})")),
        Err(e) => logging::warn(format!("sync: {e:#}")),
    }
}
