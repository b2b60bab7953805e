//! The spool: captures that could not reach the database in time, one JSON line each, applied
//! by the next process that gets the write lock. Nothing a hook accepted is lost to a lock.
//!
//! Appenders and the ingester take an exclusive `flock` on the spool file; a second lock file
//! makes sure only one process ingests at a time, so lines are applied and removed exactly once
//! (and applying twice would be harmless anyway: every capture is idempotent).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::Store;
use super::ingest::{self, Capture};
use crate::paths;

/// A spool larger than this stops growing (and says so in the log) rather than fill the disk.
pub(crate) const MAX_SPOOL_BYTES: u64 = 64 * 1024 * 1024;

/// One spool line: written with a borrowed capture, read back with an owned one.
#[derive(Debug, Serialize, Deserialize)]
struct Line<C> {
    v: u32,
    spooled_at: i64,
    capture: C,
}

fn ingest_lock_path(data_dir: &Path) -> PathBuf {
    data_dir.join("spool.lock")
}

fn rejected_path(data_dir: &Path) -> PathBuf {
    data_dir.join("spool.rejected.jsonl")
}

/// Appends a capture to the spool.
pub(crate) fn append(data_dir: &Path, capture: &Capture, now_ms: i64) -> Result<()> {
    let _deferred = crate::signals::defer();
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create the data dir {}", data_dir.display()))?;
    let path = paths::spool_path(data_dir);
    let line = line(capture, now_ms)?;
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("cannot open the spool {}", path.display()))?;
    file.lock()
        .with_context(|| format!("cannot lock the spool {}", path.display()))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    anyhow::ensure!(
        len + line.len() as u64 <= MAX_SPOOL_BYTES,
        "the spool {} is full ({len} bytes); the database has been unreachable for long: run `cmem doctor`",
        path.display()
    );
    if let Err(e) = file.write_all(&line) {
        // A disk that filled up mid-line leaves part of it: cut it off, or the next line
        // would be glued to it and both be rejected.
        let _ = file.set_len(len);
        return Err(e).with_context(|| format!("cannot write the spool {}", path.display()));
    }
    Ok(())
}

/// A capture as one spool line, newline included: what `append` writes (and what a hook that
/// reaches its hard deadline writes from its signal handler, where nothing may allocate).
pub(crate) fn line(capture: &Capture, now_ms: i64) -> Result<Vec<u8>> {
    let mut line = serde_json::to_vec(&Line {
        v: 1,
        spooled_at: now_ms,
        capture,
    })?;
    line.push(b'\n');
    Ok(line)
}

/// Waits for (and then holds, until the file is dropped) the lock ingesters take, so the spool
/// can be rewritten without an ingester trimming a byte count it measured before.
pub(crate) fn lock_ingest(data_dir: &Path) -> Result<File> {
    let path = ingest_lock_path(data_dir);
    std::fs::create_dir_all(data_dir)
        .with_context(|| format!("cannot create the data dir {}", data_dir.display()))?;
    let guard = File::create(&path).with_context(|| format!("cannot open {}", path.display()))?;
    guard
        .lock()
        .with_context(|| format!("cannot lock {}", path.display()))?;
    Ok(guard)
}

/// How many captures wait in the spool.
pub(crate) fn backlog(data_dir: &Path) -> usize {
    std::fs::read(paths::spool_path(data_dir))
        .map(|b| b.iter().filter(|c| **c == b'\n').count())
        .unwrap_or(0)
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IngestReport {
    pub applied: usize,
    pub rejected: usize,
}

/// Applies every spooled capture in one transaction, then removes them from the spool.
/// Returns quietly when the spool is empty or another process is ingesting it.
pub(crate) fn ingest(store: &mut Store, data_dir: &Path) -> Result<IngestReport> {
    let path = paths::spool_path(data_dir);
    match std::fs::metadata(&path) {
        Ok(m) if m.len() > 0 => {}
        _ => return Ok(IngestReport::default()),
    }
    let guard = File::create(ingest_lock_path(data_dir))?;
    if guard.try_lock().is_err() {
        return Ok(IngestReport::default());
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open the spool {}", path.display()))?;

    let bytes = locked_read(&mut file)?;
    let consumed = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let mut captures = Vec::new();
    let mut rejected = Vec::new();
    for raw in bytes[..consumed].split(|b| *b == b'\n') {
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Line<Capture>>(raw) {
            Ok(line) => captures.push(line.capture),
            Err(_) => rejected.push(raw.to_vec()),
        }
    }
    // One bad line must not block the rest forever: each capture gets a savepoint, and one
    // that fails for a reason other than the database itself is set aside.
    let mut applied = 0;
    let failed = store.write(|tx| {
        let mut failed = Vec::new();
        for (i, c) in captures.iter().enumerate() {
            tx.execute_batch("SAVEPOINT spooled")?;
            match ingest::apply(tx, c) {
                Ok(_) => {
                    tx.execute_batch("RELEASE spooled")?;
                    applied += 1;
                }
                Err(e) if is_environmental(&e) => return Err(e),
                Err(_) => {
                    tx.execute_batch("ROLLBACK TO spooled; RELEASE spooled")?;
                    failed.push(i);
                }
            }
        }
        Ok(failed)
    })?;
    for i in failed {
        rejected.push(serde_json::to_vec(&captures[i]).unwrap_or_default());
    }
    if !rejected.is_empty() {
        let mut out = OpenOptions::new()
            .create(true)
            .append(true)
            .open(rejected_path(data_dir))?;
        for r in &rejected {
            out.write_all(r)?;
            out.write_all(b"\n")?;
        }
    }
    remove_prefix(&mut file, consumed)?;
    drop(guard);
    Ok(IngestReport {
        applied,
        rejected: rejected.len(),
    })
}

/// Errors that say the database cannot be written now (as opposed to a bad record).
fn is_environmental(e: &anyhow::Error) -> bool {
    use rusqlite::ErrorCode::*;
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(f, _)) if matches!(
                f.code,
                DatabaseBusy | DatabaseLocked | DiskFull | SystemIoFailure | ReadOnly
                    | CannotOpen | NotADatabase | DatabaseCorrupt | OutOfMemory
            )
        )
    })
}

fn locked_read(file: &mut File) -> Result<Vec<u8>> {
    let _deferred = crate::signals::defer();
    file.lock()?;
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    let read = file.read_to_end(&mut bytes);
    file.unlock()?;
    read?;
    Ok(bytes)
}

/// Drops the first `n` bytes, keeping whatever appenders wrote after our read.
fn remove_prefix(file: &mut File, n: usize) -> Result<()> {
    let _deferred = crate::signals::defer();
    file.lock()?;
    let result = (|| -> Result<()> {
        let mut all = Vec::new();
        file.seek(SeekFrom::Start(0))?;
        file.read_to_end(&mut all)?;
        let tail = all.get(n..).unwrap_or_default().to_vec();
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&tail)?;
        file.flush()?;
        Ok(())
    })();
    file.unlock()?;
    result
}
