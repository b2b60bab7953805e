//! A mark left on disk while an observer works on a turn, so that a turn that kills its
//! observer is found out and quarantined instead of killing every later hook too.
//!
//! A stack overflow or an abort cannot be caught, and a hook stopped at its deadline leaves no
//! trace in the database (its transaction is rolled back), so the mark is a small file written
//! before the attempt and removed after it, whatever its result. Removing a file never waits on
//! a database lock, so a live process always clears its own mark; a mark whose process is gone
//! is a failed attempt. Files cost the hook two system calls per turn and no extra transaction.

use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::logging;
use crate::store::Store;
use crate::store::quarantine::{self, Observer};

/// Where the marks live, inside the data dir.
pub(crate) const DIR: &str = "observing";

/// A mark older than this is a failed attempt even when its process id is alive (the id was
/// reused): no turn takes an observer this long.
pub(crate) const STALE_AFTER_MS: i64 = 10 * 60 * 1000;

/// The outcome of asking to start an attempt.
#[derive(Debug)]
enum Begin {
    /// Go ahead; `Attempt::end` when done, whatever happened.
    Go(Attempt),
    /// Another live process is working on this turn right now.
    Busy,
    /// An earlier attempt died: quarantine the turn with this reason, then `Failed::clear`.
    Failed(Failed),
}

/// A running attempt (its mark, when one could be written).
#[derive(Debug)]
pub(crate) struct Attempt {
    mark: Option<PathBuf>,
}

impl Attempt {
    /// Removes the mark: the attempt ended in this process, well or not.
    pub(crate) fn end(self) {
        if let Some(mark) = self.mark {
            let _ = fs::remove_file(mark);
        }
    }
}

/// The mark of an attempt that died.
#[derive(Debug)]
struct Failed {
    reason: String,
    mark: PathBuf,
}

impl Failed {
    /// Removes the dead attempt's mark (once the quarantine is stored).
    pub(crate) fn clear(self) {
        let _ = fs::remove_file(self.mark);
    }
}

/// What an observer does with a turn it is about to work on.
#[derive(Debug)]
pub(crate) enum Start {
    /// Work on it; `Attempt::end` when done, whatever happened.
    Go(Attempt),
    /// Another live process is working on it right now.
    Busy,
    /// An earlier attempt died on it: it is quarantined now (and logged); skip it.
    Quarantined,
}

/// Starts an attempt of `observer` on a turn of `store`, quarantining the turn instead when an
/// earlier attempt died on it.
pub(crate) fn start(
    store: &mut Store,
    observer: Observer,
    turn_id: i64,
    now_ms: i64,
) -> Result<Start> {
    let data_dir = store
        .path()
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    Ok(match begin(&data_dir, observer, turn_id, now_ms) {
        Begin::Go(a) => Start::Go(a),
        Begin::Busy => Start::Busy,
        Begin::Failed(failed) => {
            quarantine_turn(store, observer, turn_id, now_ms, &failed.reason)?;
            failed.clear();
            Start::Quarantined
        }
    })
}

/// Quarantines a turn for `observer` and says so in the log.
pub(crate) fn quarantine_turn(
    store: &mut Store,
    observer: Observer,
    turn_id: i64,
    now_ms: i64,
    reason: &str,
) -> Result<()> {
    store.write(|tx| quarantine::add(tx, turn_id, observer, now_ms, reason))?;
    logging::warn(format!(
        "{} observer: turn {turn_id} quarantined: {reason}; `cmem observe --retry-quarantined` tries it again",
        observer.id()
    ));
    Ok(())
}

fn mark_path(data_dir: &Path, observer: Observer, turn_id: i64) -> PathBuf {
    data_dir
        .join(DIR)
        .join(format!("{}-{turn_id}", observer.id()))
}

/// Starts an attempt of `observer` on a turn, unless an earlier one died or is running.
fn begin(data_dir: &Path, observer: Observer, turn_id: i64, now_ms: i64) -> Begin {
    let mark = mark_path(data_dir, observer, turn_id);
    if let Ok(text) = fs::read_to_string(&mark) {
        return judge_earlier(&text, mark, observer, now_ms);
    }
    match create(&mark, now_ms) {
        Ok(()) => Begin::Go(Attempt { mark: Some(mark) }),
        // Another process made its mark between our look and our write.
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Begin::Busy,
        Err(e) => {
            // A read-only or full disk: observe all the same, only without the safety net.
            crate::logging::debug(format!(
                "cannot mark the observer's attempt ({}): {e}",
                mark.display()
            ));
            Begin::Go(Attempt { mark: None })
        }
    }
}

fn judge_earlier(text: &str, mark: PathBuf, observer: Observer, now_ms: i64) -> Begin {
    let mut parts = text.split_whitespace().map(str::parse::<i64>);
    let pid = parts.next().and_then(Result::ok).unwrap_or(0);
    let started = parts.next().and_then(Result::ok).unwrap_or(0);
    let me = i64::from(std::process::id());
    if pid != me && process_alive(pid) && now_ms.saturating_sub(started) < STALE_AFTER_MS {
        return Begin::Busy;
    }
    let when = jiff::Timestamp::from_millisecond(started)
        .map_or_else(|_| "an unknown time".to_string(), |t| t.to_string());
    Begin::Failed(Failed {
        reason: format!(
            "the {} observer died on this turn (process {pid}, started {when}): a crash, a stack overflow or the hook's deadline",
            observer.id()
        ),
        mark,
    })
}

fn create(mark: &Path, now_ms: i64) -> std::io::Result<()> {
    let open = || OpenOptions::new().write(true).create_new(true).open(mark);
    let mut file = match open() {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            if let Some(dir) = mark.parent() {
                fs::create_dir_all(dir)?;
            }
            open()?
        }
        other => other?,
    };
    writeln!(file, "{} {now_ms}", std::process::id())
}

/// Whether a process with this id exists (one we may not signal exists too).
fn process_alive(pid: i64) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ended_attempt_leaves_no_mark() {
        let dir = tempfile::tempdir().unwrap();
        let Begin::Go(a) = begin(dir.path(), Observer::Rules, 7, 1_000) else {
            panic!("no attempt");
        };
        assert!(mark_path(dir.path(), Observer::Rules, 7).exists());
        a.end();
        assert!(matches!(
            begin(dir.path(), Observer::Rules, 7, 2_000),
            Begin::Go(_)
        ));
    }

    #[test]
    fn a_mark_of_a_dead_process_is_a_failed_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let mark = mark_path(dir.path(), Observer::Rules, 7);
        fs::create_dir_all(mark.parent().unwrap()).unwrap();
        // Above the kernel's pid limit: no such process.
        fs::write(&mark, "2147483632 5\n").unwrap();
        let Begin::Failed(f) = begin(dir.path(), Observer::Rules, 7, 10) else {
            panic!("not failed");
        };
        assert!(f.reason.contains("2147483632"), "{}", f.reason);
        f.clear();
        assert!(!mark.exists());
        // Another observer's marks are its own.
        fs::write(&mark, "2147483632 5\n").unwrap();
        assert!(matches!(
            begin(dir.path(), Observer::External, 7, 10),
            Begin::Go(_)
        ));
    }

    #[test]
    fn a_live_attempt_is_busy_until_it_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let mark = mark_path(dir.path(), Observer::Rules, 7);
        fs::create_dir_all(mark.parent().unwrap()).unwrap();
        let parent = std::os::unix::process::parent_id();
        fs::write(&mark, format!("{parent} 5\n")).unwrap();
        assert!(matches!(
            begin(dir.path(), Observer::Rules, 7, 10),
            Begin::Busy
        ));
        assert!(matches!(
            begin(dir.path(), Observer::Rules, 7, 5 + STALE_AFTER_MS),
            Begin::Failed(_)
        ));
    }
}
