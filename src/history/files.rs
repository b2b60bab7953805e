//! Finding an agent's transcript files and reading each as a stream of whole lines, from
//! where the last import stopped.

use std::collections::{HashSet, VecDeque};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::{Digest, Sha256};

use super::{Line, Options, Report, SkippedFile, Source, replay};
use crate::config::Settings;
use crate::store::Store;
use crate::store::history_files::{self, Mark};

/// Events stored per transaction: big enough to spare a commit per event, small enough that
/// a hook waiting for the lock is not kept long.
const BATCH: usize = 2_000;
/// A line longer than this is not a transcript line anyone wrote by hand or by agent; it is
/// skipped without being held in memory.
const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

#[derive(Default)]
pub(super) struct Found {
    pub files: Vec<PathBuf>,
    pub subagent_files: usize,
    /// Entries that could not be listed or are not files, with why: the others are still read.
    pub failed: Vec<(PathBuf, String)>,
}

/// The agent's own folder of transcripts.
pub(crate) fn default_roots(source: Source) -> Vec<PathBuf> {
    let env_dir = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    match source {
        Source::ClaudeCode => {
            let base = env_dir("CLAUDE_CONFIG_DIR")
                .unwrap_or_else(|| crate::paths::home_dir().join(".claude"));
            vec![base.join("projects")]
        }
        Source::Codex => {
            let base =
                env_dir("CODEX_HOME").unwrap_or_else(|| crate::paths::home_dir().join(".codex"));
            vec![base.join("sessions"), base.join("archived_sessions")]
        }
    }
}

/// Every transcript under `paths` (or the agent's own folder), oldest first, so sessions are
/// replayed in about the order they happened. An entry that cannot be read is named in
/// `failed` and the walk goes on: one locked folder must not keep every other one out.
pub(super) fn discover(source: Source, paths: &[PathBuf]) -> Found {
    let given = !paths.is_empty();
    let roots = if given {
        paths.to_vec()
    } else {
        default_roots(source)
    };
    let mut walk = Walk::default();
    for root in &roots {
        match std::fs::metadata(root) {
            Ok(m) if m.is_file() => walk.file(root.clone()),
            Ok(m) if m.is_dir() => walk.dir(root),
            Ok(_) => walk.found.fail(root, NOT_A_FILE),
            // The agent's own folder is optional: an agent never used has none.
            Err(e) if !given && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => walk.found.fail(root, e),
        }
    }
    // Links last, so that a file reachable without one keeps the path its mark was kept by.
    while let Some(link) = walk.links.pop_front() {
        walk.link(&link);
    }
    let mut found = walk.found;
    let mut dated: Vec<(i64, PathBuf)> = found
        .files
        .drain(..)
        .map(|p| (mtime_ms(&p).unwrap_or(0), p))
        .collect();
    dated.sort();
    dated.dedup_by(|a, b| a.1 == b.1);
    found.files = dated.into_iter().map(|(_, p)| p).collect();
    found
}

const NOT_A_FILE: &str = "not a regular file or folder (a pipe or device cannot be resumed from a mark; copy it to a file)";

impl Found {
    fn fail(&mut self, path: &Path, why: impl std::fmt::Display) {
        self.failed.push((path.to_path_buf(), why.to_string()));
    }
}

/// A walk over transcript folders that follows symbolic links and visits each real file and
/// folder once: a link back up the tree would otherwise loop, and a linked file be read twice.
#[derive(Default)]
struct Walk {
    found: Found,
    /// Canonical paths of the files and folders met.
    seen: HashSet<PathBuf>,
    /// Links met, followed once the tree without them is walked.
    links: VecDeque<PathBuf>,
}

impl Walk {
    /// Whether `path` is met for the first time (by its real path).
    fn first_visit(&mut self, path: &Path) -> bool {
        match std::fs::canonicalize(path) {
            Ok(real) => self.seen.insert(real),
            Err(e) => {
                self.found.fail(path, e);
                false
            }
        }
    }

    fn file(&mut self, path: PathBuf) {
        if self.first_visit(&path) {
            self.found.files.push(path);
        }
    }

    fn dir(&mut self, dir: &Path) {
        if !self.first_visit(dir) {
            return;
        }
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) => {
                return self
                    .found
                    .fail(dir, format!("cannot list this folder: {e}"));
            }
        };
        let mut listed = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => listed.push(entry),
                Err(e) => self
                    .found
                    .fail(dir, format!("cannot list this folder: {e}")),
            }
        }
        // By name, so that the same path is kept for a file every run.
        listed.sort_by_key(std::fs::DirEntry::file_name);
        for entry in &listed {
            self.entry(entry);
        }
    }

    fn entry(&mut self, entry: &std::fs::DirEntry) {
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_symlink() => self.links.push_back(path),
            Ok(kind) => self.kind(&path, kind),
            Err(e) => self.found.fail(&path, e),
        }
    }

    fn link(&mut self, path: &Path) {
        // `metadata` follows the link to what it names.
        match std::fs::metadata(path) {
            Ok(m) => self.kind(path, m.file_type()),
            // A dangling link or a loop of links: worth a word only where a transcript was meant.
            Err(e) if is_transcript(path) => self.found.fail(path, e),
            Err(_) => {}
        }
    }

    fn kind(&mut self, path: &Path, kind: std::fs::FileType) {
        if kind.is_dir() {
            if path.file_name().is_some_and(|n| n == "subagents") {
                self.found.subagent_files += count_jsonl(path);
            } else {
                self.dir(path);
            }
        } else if is_transcript(path) {
            if kind.is_file() {
                self.file(path.to_path_buf());
            } else {
                self.found.fail(path, NOT_A_FILE);
            }
        }
    }
}

fn is_transcript(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "jsonl")
}

fn count_jsonl(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
            .count()
    })
}

fn mtime_ms(path: &Path) -> Option<i64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some(since.as_millis() as i64)
}

/// The hash of the file's first line (of at most 64 KiB): a file replaced by another under the
/// same path starts differently.
fn head_sha256(file: &mut std::fs::File) -> Result<String> {
    file.seek(SeekFrom::Start(0))?;
    let mut head = Vec::new();
    BufReader::new(file.take(64 * 1024)).read_until(b'\n', &mut head)?;
    Ok(crate::store::fingerprint::hex(&Sha256::digest(&head)))
}

/// Skips to just past the next newline without keeping what it passes; the bytes skipped.
fn skip_line(lines: &mut impl BufRead) -> Result<usize> {
    let mut skipped = 0;
    loop {
        let chunk = lines.fill_buf()?;
        if chunk.is_empty() {
            return Ok(skipped);
        }
        match chunk.iter().position(|b| *b == b'\n') {
            Some(i) => {
                lines.consume(i + 1);
                return Ok(skipped + i + 1);
            }
            None => {
                let n = chunk.len();
                lines.consume(n);
                skipped += n;
            }
        }
    }
}

/// How far in the future a file's mtime may be and still be a file written just now (the
/// clocks of a shared disk differ a little).
const CLOCK_SKEW_MS: i64 = 10_000;

/// Whether a file modified at `mtime` belongs to a session still running. An mtime further in
/// the future is a wrong clock or a copy from another machine, not a write under way: such a
/// file would otherwise wait until that date.
fn still_written(opts: &Options, mtime: i64) -> bool {
    let age = opts.now_ms.saturating_sub(mtime);
    opts.settle_ms > 0 && (-CLOCK_SKEW_MS..opts.settle_ms).contains(&age)
}

/// The lines one read skipped, to name the file and its first bad line.
#[derive(Default)]
struct Skips {
    /// Whole lines read so far.
    lines: u64,
    /// 0-based among the lines read, of the first skipped one.
    first: Option<u64>,
    count: usize,
    used: bool,
}

impl Skips {
    fn bad(&mut self) {
        self.first.get_or_insert(self.lines);
        self.count += 1;
    }

    /// The file's entry for the report, if a line was skipped. Lines before the mark are
    /// counted only then, so that an import with nothing to name reads no more than before.
    fn named(&self, path: &Path, start: u64) -> Result<Option<SkippedFile>> {
        let Some(first) = self.first else {
            return Ok(None);
        };
        let before = if start == 0 {
            0
        } else {
            lines_before(path, start)?
        };
        Ok(Some(SkippedFile {
            path: path.to_path_buf(),
            lines: self.count,
            first_line: before + first + 1,
            nothing_usable: start == 0 && !self.used,
        }))
    }
}

/// The newlines in the file's first `end` bytes.
fn lines_before(path: &Path, end: u64) -> Result<u64> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut lines = BufReader::with_capacity(1 << 20, file.take(end));
    let mut count = 0;
    loop {
        let chunk = lines.fill_buf()?;
        if chunk.is_empty() {
            return Ok(count);
        }
        count += chunk.iter().filter(|b| **b == b'\n').count() as u64;
        let n = chunk.len();
        lines.consume(n);
    }
}

/// Reads one file from where the last import stopped: its whole lines become events, the
/// events captures, stored a batch at a time with the file's mark.
pub(super) fn read(
    mut store: Option<&mut Store>,
    source: Source,
    path: &Path,
    settings: &Settings,
    opts: &Options,
    filter: &replay::Filter,
    report: &mut Report,
) -> Result<()> {
    let key = path.to_string_lossy().into_owned();
    let mut file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let meta = file.metadata()?;
    let size = meta.len();
    let mtime = mtime_ms(path).unwrap_or(0);
    if size == 0 {
        return Ok(());
    }
    if still_written(opts, mtime) {
        report.files_active += 1;
        return Ok(());
    }
    let head = head_sha256(&mut file)?;
    let prior = match store.as_deref() {
        Some(s) => history_files::get(&s.conn, &key)?,
        None => None,
    };
    // The same file, unchanged since it was read (its mark may stop short of its end, before
    // a call that never got its result): nothing to read.
    let unchanged = prior
        .as_ref()
        .is_some_and(|m| m.head_sha256 == head && m.size_bytes == size && m.mtime_ms == mtime);
    let start = match prior {
        Some(m) if m.head_sha256 == head && m.read_bytes <= size => m.read_bytes,
        _ => 0,
    };
    if start == size || unchanged {
        report.files_unchanged += 1;
        return Ok(());
    }
    report.files_read += 1;
    // A run that leaves sessions out does not mark the file read: a later full run still
    // imports them (what this one stored is matched by id then, not doubled).
    let marks = !filter.is_partial();
    let mut mark = Mark {
        path: key,
        source: source.key().into(),
        read_bytes: start,
        size_bytes: size,
        mtime_ms: mtime,
        head_sha256: head,
    };
    let mut reader = source.reader(path, opts.now_ms);
    if start > 0 {
        // Read on from a mark, the reader still needs what the file's first line says (a
        // Codex rollout names its session only there); what it makes of it was stored before.
        file.seek(SeekFrom::Start(0))?;
        let mut first = Vec::new();
        BufReader::new((&mut file).take(MAX_LINE_BYTES as u64)).read_until(b'\n', &mut first)?;
        if first.last() == Some(&b'\n') {
            reader.line(&first[..first.len() - 1], &mut Vec::new());
        }
        reader.forget_time();
    }
    file.seek(SeekFrom::Start(start))?;
    let mut lines = BufReader::with_capacity(1 << 20, file.take(size - start));
    let mut events = Vec::new();
    let mut buf = Vec::new();
    let mut pos = start;
    // Where the next run may start: after a line that left no tool call waiting for its result
    // (a result read without its call could not be stored). Lines after it are read again
    // next time and matched by id, not doubled.
    let mut settled = start;
    let mut skips = Skips::default();
    // The last working directory this read met, for events whose line names none.
    let mut cwd = None;
    loop {
        buf.clear();
        let n = (&mut lines)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .with_context(|| format!("cannot read {}", path.display()))?;
        if n == 0 {
            break;
        }
        if buf.last() != Some(&b'\n') {
            if n > MAX_LINE_BYTES {
                // Skip the rest of the giant line without holding it, then go on.
                let skipped = skip_line(&mut lines)?;
                pos += (n + skipped) as u64;
                *report
                    .skipped_lines
                    .entry("a line over 256 MiB")
                    .or_default() += 1;
                skips.bad();
                skips.lines += 1;
                continue;
            }
            // The writer has not finished this line: it is read next time.
            *report
                .skipped_lines
                .entry("an unfinished last line (read next time)")
                .or_default() += 1;
            break;
        }
        pos += n as u64;
        match reader.line(&buf[..n - 1], &mut events) {
            Line::Unreadable(why) => {
                *report.skipped_lines.entry(why).or_default() += 1;
                skips.bad();
            }
            Line::Used => skips.used = true,
            Line::Ignored => {}
        }
        skips.lines += 1;
        if reader.settled() {
            settled = pos;
        }
        if events.len() >= BATCH {
            super::cwd::fill(&mut events, &mut cwd, path, pos, report)?;
            super::time::fill(&mut events, path, pos, mtime, opts.now_ms)?;
            super::time::fill(&mut events, path, pos, mtime, opts.now_ms)?;
            mark.read_bytes = settled;
            replay::store_batch(
                store.as_deref_mut(),
                source,
                std::mem::take(&mut events),
                marks.then_some(&mark),
                settings,
                opts,
                filter,
                report,
            )?;
        }
    }
    reader.finish(&mut events);
    super::cwd::fill(&mut events, &mut cwd, path, pos, report)?;
    super::time::fill(&mut events, path, pos, mtime, opts.now_ms)?;
    if let Some(skipped) = skips.named(path, start)? {
        report.skipped_files.push(skipped);
    }
    mark.read_bytes = settled;
    replay::store_batch(
        store,
        source,
        events,
        marks.then_some(&mark),
        settings,
        opts,
        filter,
        report,
    )
}
