//! What a file held when an observation was made (size, modification time, content id), and
//! whether it still holds it: the facts behind "changed since this was observed".
//!
//! The content id is git's blob id, SHA-1 of `blob <len>\0` and the bytes, computed here (no
//! `git` is spawned). In a git work tree it is the id `git hash-object` gives a file without
//! filters, so `git cat-file -p <id>` shows what the session saw when that content was ever
//! committed or staged; outside git it is simply a content hash. One formula for both keeps
//! one comparison.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use sha1::{Digest, Sha1};

/// Files larger than this are not hashed: a hook must stay cheap (hashing 1 MiB takes about
/// 2 ms), and source files the agent works on are far smaller. Such a file is remembered by
/// size and modification time only, and counts as changed when either moved.
pub(crate) const HASH_CAP: u64 = 1024 * 1024;

/// What was seen of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    pub size: i64,
    /// Nanoseconds since the epoch; `None` when the system could not say (then only the
    /// content can say whether the file moved).
    pub mtime_ns: Option<i64>,
    /// The git blob id (40 hex digits); `None` over `HASH_CAP`.
    pub hash: Option<String>,
}

/// How a file is now, against what was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Now {
    Same,
    Changed,
    Deleted,
}

/// Git's blob id of `bytes`.
pub(crate) fn blob_id(bytes: &[u8]) -> String {
    let mut h = Sha1::new();
    h.update(format!("blob {}\0", bytes.len()).as_bytes());
    h.update(bytes);
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn mtime_ns(meta: &std::fs::Metadata) -> Option<i64> {
    let d = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    i64::try_from(d.as_nanos()).ok()
}

/// `path` opened for reading if it is a regular file. Nothing else is opened: a hook reads
/// paths a payload names, and opening a FIFO (or a terminal) blocks until the hook's deadline.
pub(crate) fn open_regular(path: &Path) -> Option<File> {
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    File::open(path).ok()
}

/// The text of `path` if it is a regular file of UTF-8 (`open_regular`).
pub(crate) fn read_regular(path: &Path) -> Option<String> {
    let mut text = String::new();
    open_regular(path)?.read_to_string(&mut text).ok()?;
    Some(text)
}

/// What the disk holds at `path` now: `None` for anything but a readable regular file.
pub(crate) fn read(path: &Path) -> Option<Seen> {
    let file = open_regular(path)?;
    // The open file's own metadata, so size and time belong to the bytes read.
    let meta = file.metadata().ok()?;
    if meta.len() > HASH_CAP {
        return Some(Seen {
            size: meta.len() as i64,
            mtime_ns: mtime_ns(&meta),
            hash: None,
        });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // A file growing while it is read is cut at the cap; the size kept is what was hashed.
    file.take(HASH_CAP).read_to_end(&mut bytes).ok()?;
    Some(Seen {
        size: bytes.len() as i64,
        mtime_ns: mtime_ns(&meta),
        hash: Some(blob_id(&bytes)),
    })
}

/// Whether `path` still holds what was `seen` (see `Disk::compare`).
#[cfg(test)]
pub(crate) fn compare(seen: &Seen, path: &Path) -> Option<Now> {
    Disk::default().compare(seen, path)
}

/// What one look at the disk found, kept so that a file many rows name is stat'ed once and
/// hashed at most once, and a project root is looked up once.
#[derive(Default)]
pub(crate) struct Disk {
    stats: HashMap<PathBuf, Stat>,
    hashes: HashMap<PathBuf, Option<String>>,
    dirs: HashMap<PathBuf, bool>,
}

#[derive(Clone, Copy)]
enum Stat {
    File {
        size: i64,
        mtime_ns: Option<i64>,
    },
    Gone,
    /// Unreadable, or not a regular file: nothing can be said.
    Unknown,
}

impl Disk {
    /// Whether `dir` is a directory on this machine (a root from elsewhere is not).
    pub(crate) fn is_dir(&mut self, dir: &Path) -> bool {
        if let Some(&known) = self.dirs.get(dir) {
            return known;
        }
        let is = dir.is_dir();
        self.dirs.insert(dir.to_path_buf(), is);
        is
    }

    fn stat(&mut self, path: &Path) -> Stat {
        if let Some(&known) = self.stats.get(path) {
            return known;
        }
        let stat = match std::fs::metadata(path) {
            Ok(m) if m.is_file() => Stat::File {
                size: m.len() as i64,
                mtime_ns: mtime_ns(&m),
            },
            Ok(_) => Stat::Unknown,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Stat::Gone,
            Err(_) => Stat::Unknown,
        };
        self.stats.insert(path.to_path_buf(), stat);
        stat
    }

    /// Whether `path` still holds what was `seen`: a stat first, and the content hashed only
    /// when the size is the same but the time moved (or was never known). `None` when it
    /// cannot be told (unreadable, or no longer a regular file but not gone either).
    pub(crate) fn compare(&mut self, seen: &Seen, path: &Path) -> Option<Now> {
        let (size, mtime) = match self.stat(path) {
            Stat::File { size, mtime_ns } => (size, mtime_ns),
            Stat::Gone => return Some(Now::Deleted),
            Stat::Unknown => return None,
        };
        if size != seen.size {
            return Some(Now::Changed);
        }
        if seen.mtime_ns.is_some() && mtime == seen.mtime_ns {
            return Some(Now::Same);
        }
        let Some(hash) = &seen.hash else {
            // Over the cap and touched: the content cannot be compared cheaply, so it counts
            // as changed (a false mark costs a look; a silent stale memory costs a mistake).
            return Some(Now::Changed);
        };
        let now = self
            .hashes
            .entry(path.to_path_buf())
            .or_insert_with(|| read(path).and_then(|s| s.hash))
            .as_ref()?;
        Some(if now == hash { Now::Same } else { Now::Changed })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_are_gits() {
        // `printf 'hello\n' | git hash-object --stdin` and `git hash-object /dev/null`.
        assert_eq!(
            blob_id(b"hello\n"),
            "ce013625030ba8dba906f756967f9e9ca394464a"
        );
        assert_eq!(blob_id(b""), "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
    }

    #[test]
    fn a_file_is_same_changed_or_deleted() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().to_path_buf();
        let f = dir.join("a.rs");
        std::fs::write(&f, "fn a() {}\n").unwrap();
        let seen = read(&f).unwrap();
        assert_eq!(seen.hash.as_deref(), Some(blob_id(b"fn a() {}\n").as_str()));
        assert_eq!(compare(&seen, &f), Some(Now::Same));
        // Same size, other bytes, and a time the stat cannot tell apart: the hash decides.
        std::fs::write(&f, "fn b() {}\n").unwrap();
        let touched = Seen {
            mtime_ns: Some(0),
            ..seen.clone()
        };
        assert_eq!(compare(&touched, &f), Some(Now::Changed));
        // No time known: the same bytes on disk are the same file.
        let timeless = Seen {
            size: 10,
            mtime_ns: None,
            hash: Some(blob_id(b"fn b() {}\n")),
        };
        assert_eq!(compare(&timeless, &f), Some(Now::Same));
        std::fs::write(&f, "fn longer() {}\n").unwrap();
        assert_eq!(compare(&seen, &f), Some(Now::Changed));
        std::fs::remove_file(&f).unwrap();
        assert_eq!(compare(&seen, &f), Some(Now::Deleted));
        // A directory is nothing to remember or compare.
        assert_eq!(read(&dir), None);
        assert_eq!(compare(&seen, &dir), None);
    }

    #[test]
    fn big_files_are_remembered_by_size_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big.bin");
        std::fs::write(&f, vec![b'x'; HASH_CAP as usize + 1]).unwrap();
        let seen = read(&f).unwrap();
        assert_eq!(
            (seen.size, seen.hash.as_deref()),
            (HASH_CAP as i64 + 1, None)
        );
        assert_eq!(compare(&seen, &f), Some(Now::Same));
        // Touched, same size: it cannot be compared cheaply, so it counts as changed.
        let touched = Seen {
            mtime_ns: Some(0),
            ..seen
        };
        assert_eq!(compare(&touched, &f), Some(Now::Changed));
    }
}
