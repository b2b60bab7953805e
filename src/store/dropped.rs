//! The count of events a hook accepted but could neither store nor spool (a full disk, a spool
//! at its cap, a data dir that cannot be written), for `cmem doctor`.
//!
//! A full disk is the usual cause, so the count lives in a small file of fixed size, made while
//! there is room (after a capture is stored) and later only rewritten in place: rewriting
//! allocated bytes needs no free space (on ext4, xfs, tmpfs; not on copy-on-write file
//! systems). The same record says when the log last got a line about it, so a full disk does
//! not write (or try to write) a log line per event.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The record's size in bytes: never changes, so rewriting it never grows the file.
const RECORD_LEN: usize = 512;
const HEADER: &str = "cmem dropped events v1";
/// Drops are logged at most this often (the count goes on in the record).
pub(crate) const LOG_EVERY_MS: i64 = 10 * 60 * 1000;

pub(crate) fn path(data_dir: &Path) -> PathBuf {
    data_dir.join("dropped")
}

/// What the record holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Drops {
    pub count: u64,
    pub first_ms: i64,
    pub last_ms: i64,
    /// When the log last got a line about drops (0: never).
    pub logged_ms: i64,
    /// Why the last event was dropped (cut to fit the record).
    pub reason: String,
}

impl Drops {
    fn encode(&self) -> Vec<u8> {
        let head = format!(
            "{HEADER}\ncount={:020}\nfirst_ms={:020}\nlast_ms={:020}\nlogged_ms={:020}\nreason=",
            self.count, self.first_ms, self.last_ms, self.logged_ms
        );
        let room = RECORD_LEN - head.len() - 1;
        let reason = self.reason.replace(['\n', '\r'], " ");
        let mut cut = reason.len().min(room);
        while !reason.is_char_boundary(cut) {
            cut -= 1;
        }
        let mut out = head.into_bytes();
        out.extend_from_slice(&reason.as_bytes()[..cut]);
        out.resize(RECORD_LEN - 1, b' ');
        out.push(b'\n');
        out
    }

    fn decode(bytes: &[u8]) -> Drops {
        let text = String::from_utf8_lossy(bytes);
        let mut d = Drops::default();
        for line in text.lines() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let number = || value.trim().parse().unwrap_or(0);
            match key {
                "count" => d.count = value.trim().parse().unwrap_or(0),
                "first_ms" => d.first_ms = number(),
                "last_ms" => d.last_ms = number(),
                "logged_ms" => d.logged_ms = number(),
                "reason" => d.reason = value.trim_end().to_string(),
                _ => {}
            }
        }
        d
    }
}

/// Makes the record if it does not exist yet (one `stat` when it does).
pub(crate) fn ensure(data_dir: &Path) -> Result<()> {
    let path = path(data_dir);
    if path.exists() {
        return Ok(());
    }
    let mut file = OpenOptions::new().write(true).create_new(true).open(&path);
    match &mut file {
        Ok(f) => f
            .write_all(&Drops::default().encode())
            .with_context(|| format!("cannot write {}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(anyhow::anyhow!("cannot create {}: {e}", path.display())),
    }
}

/// Counts one dropped event. Returns the updated record and whether this drop should be
/// logged (the first one, then at most every `LOG_EVERY_MS`); the record then says it was.
pub(crate) fn record(data_dir: &Path, now_ms: i64, reason: &str) -> Result<(Drops, bool)> {
    let _ = ensure(data_dir);
    let path = path(data_dir);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    let mut d = read_from(&mut file)?;
    d.count += 1;
    if d.first_ms == 0 {
        d.first_ms = now_ms;
    }
    d.last_ms = now_ms;
    d.reason = reason.to_string();
    let log = d.logged_ms == 0 || now_ms - d.logged_ms >= LOG_EVERY_MS;
    if log {
        d.logged_ms = now_ms;
    }
    let bytes = d.encode();
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&bytes)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok((Drops::decode(&bytes), log))
}

/// The record, if there is one.
pub(crate) fn read(data_dir: &Path) -> Option<Drops> {
    let mut file = File::open(path(data_dir)).ok()?;
    read_from(&mut file).ok()
}

fn read_from(file: &mut File) -> Result<Drops> {
    let mut bytes = Vec::with_capacity(RECORD_LEN);
    file.take(RECORD_LEN as u64 * 2).read_to_end(&mut bytes)?;
    Ok(Drops::decode(&bytes))
}

/// Bytes free for an unprivileged writer on the file system holding `path`.
pub(crate) fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statvfs is a valid out-parameter; `c` is NUL-terminated.
    let mut s: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(c.as_ptr(), &mut s) } != 0 {
        return None;
    }
    Some(s.f_bavail as u64 * s.f_frsize as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_keeps_its_size_and_logs_once_per_window() {
        let dir = tempfile::tempdir().unwrap();
        ensure(dir.path()).unwrap();
        let file = path(dir.path());
        assert_eq!(std::fs::metadata(&file).unwrap().len(), RECORD_LEN as u64);
        let (d, log) = record(dir.path(), 1_000, "disk full").unwrap();
        assert!(log);
        assert_eq!(d.count, 1);
        let (_, log) = record(dir.path(), 2_000, &"é".repeat(1000)).unwrap();
        assert!(!log);
        let (d, log) = record(dir.path(), 1_000 + LOG_EVERY_MS, "again\nx").unwrap();
        assert!(log);
        assert_eq!(std::fs::metadata(&file).unwrap().len(), RECORD_LEN as u64);
        assert_eq!(read(dir.path()).unwrap(), d);
        assert_eq!(d.count, 3);
        assert_eq!(d.first_ms, 1_000);
        assert_eq!(d.reason, "again x");
    }
}
