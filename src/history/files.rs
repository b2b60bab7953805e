//! Finding an agent's transcript files and reading each as a stream of whole lines, from
//! where the last import stopped.

use std::collections::{BTreeSet, HashSet};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{Event, Line, Options, Reader, Report, Skipped, Source, lines, replay};
use crate::config::Settings;
use crate::store::Store;
use crate::store::history_files::{self, Mark};

/// Events stored per transaction: big enough to spare a commit per event, small enough that
/// a hook waiting for the lock is not kept long.
const BATCH: usize = 2_000;
/// A line longer than this is not a transcript line anyone wrote by hand or by agent; it is
/// skipped without being held in memory.
pub(super) const MAX_LINE_BYTES: usize = 256 * 1024 * 1024;

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
            Ok(_) => walk.fail(root, NOT_A_FILE),
            // The agent's folder is optional: an agent never used has none.
            Err(e) if !given && e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => walk.fail(root, e),
        }
    }
    let mut dated: Vec<(i64, PathBuf)> = walk
        .found
        .files
        .drain(..)
        .map(|p| (mtime_ms(&p).unwrap_or(0), p))
        .collect();
    dated.sort();
    walk.found.files = dated.into_iter().map(|(_, p)| p).collect();
    walk.found
}

const NOT_A_FILE: &str = "not a regular file or folder (a pipe or device cannot be resumed from a mark; copy it to a file)";

/// A walk over transcript folders that follows symbolic links, and visits each real file and
/// folder once (a link back up the tree would otherwise loop, and a linked file be read twice).
struct Walk {
    found: Found,
    seen: HashSet<PathBuf>,
}

impl Default for Walk {
    fn default() -> Walk {
        Walk {
            found: Found {
                files: Vec::new(),
                subagent_files: 0,
                failed: Vec::new(),
            },
            seen: HashSet::new(),
        }
    }
}

impl Walk {
    fn fail(&mut self, path: &Path, why: impl std::fmt::Display) {
        self.found
            .failed
            .push((path.to_path_buf(), why.to_string()));
    }

    /// Whether `path` is met for the first time (by its real path).
    fn first_visit(&mut self, path: &Path) -> bool {
        match std::fs::canonicalize(path) {
            Ok(real) => self.seen.insert(real),
            Err(e) => {
                self.fail(path, e);
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
            Err(e) => return self.fail(dir, format!("cannot list this folder: {e}")),
        };
        let mut listed = Vec::new();
        for entry in entries {
            match entry {
                Ok(entry) => listed.push(entry),
                Err(e) => self.fail(dir, format!("cannot list this folder: {e}")),
            }
        }
        // By name, so that of a file and a link to it the same one is kept every run.
        listed.sort_by_key(std::fs::DirEntry::file_name);
        for entry in &listed {
            self.entry(entry);
        }
    }

    fn entry(&mut self, entry: &std::fs::DirEntry) {
        let path = entry.path();
        let transcript = path.extension().is_some_and(|e| e == "jsonl");
        // `metadata` follows a link to what it names.
        let kind = match std::fs::metadata(&path) {
            Ok(m) => m.file_type(),
            // A dangling link or a link loop: worth a word only where a transcript was meant.
            Err(e) if transcript => return self.fail(&path, e),
            Err(_) => return,
        };
        if kind.is_dir() {
            if entry.file_name() == "subagents" {
                self.found.subagent_files += count_jsonl(&path);
            } else {
                self.dir(&path);
            }
        } else if transcript && kind.is_file() {
            self.file(path);
        } else if transcript {
            self.fail(&path, NOT_A_FILE);
        }
    }
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

/// Bytes before a mark whose hash the mark keeps beside the first line's.
const TAIL_BYTES: u64 = 4096;

/// The hash of the (at most 4 KiB) bytes just before `end`.
fn tail_sha256(path: &Path, end: u64) -> Result<String> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(path)?;
    let from = end.saturating_sub(TAIL_BYTES);
    let mut tail = vec![0; (end - from) as usize];
    file.read_exact_at(&mut tail, from)?;
    Ok(crate::store::fingerprint::hex(&Sha256::digest(&tail)))
}

/// What a mark keeps to know the file again (in its `head_sha256`): the first line's hash and,
/// after a colon, the hash of the bytes just before the mark. A file replaced by another that
/// starts with the same line (a `summary` line, a restored backup) differs there, and is then
/// read from its start instead of from the old file's offset. `:open` after them: the read left
/// a turn open, so the file is read again even unchanged, to close it once its session is over.
fn identity(head: &str, path: &Path, read_bytes: u64, open: bool) -> Result<String> {
    let tail = tail_sha256(path, read_bytes)?;
    Ok(match open {
        true => format!("{head}:{tail}:{OPEN}"),
        false => format!("{head}:{tail}"),
    })
}

const OPEN: &str = "open";

fn same_head(mark: &Mark, head: &str) -> bool {
    mark.head_sha256.split(':').next() == Some(head)
}

fn left_open(mark: &Mark) -> bool {
    mark.head_sha256.split(':').nth(2) == Some(OPEN)
}

/// Whether the file is the one the mark was made on, grown: a next read may start at the mark.
/// A mark from before the tail was kept has only the first line to go by.
fn continues(mark: &Mark, head: &str, path: &Path, size: u64) -> Result<bool> {
    if !same_head(mark, head) || mark.read_bytes > size {
        return Ok(false);
    }
    match mark.head_sha256.split(':').nth(1) {
        Some(tail) => Ok(tail_sha256(path, mark.read_bytes)? == tail),
        None => Ok(true),
    }
}

/// Skips to just past the next newline without keeping what it passes; the bytes skipped.
pub(super) fn skip_line(lines: &mut impl BufRead) -> Result<usize> {
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

/// How far in the future a file's mtime may be and still be a file written just now (clocks of
/// a shared disk differ a little).
const CLOCK_SKEW_MS: i64 = 10_000;
/// A file not written to for this long belongs to a session that is over: the turn still open
/// at its end is closed. A more recent one may be waiting on a permission prompt or a long
/// tool run, and closing its turn would cut the turn's ending off (the next run could not
/// reopen it).
const QUIET_MS: i64 = 30 * 60_000;

/// Whether a file modified at `mtime` belongs to a session still running. An mtime further in
/// the future is a wrong clock or a copy from another machine, not a write under way: such a
/// file would otherwise wait until that date.
fn still_written(opts: &Options, mtime: i64) -> bool {
    let age = opts.now_ms.saturating_sub(mtime);
    opts.settle_ms > 0 && (-CLOCK_SKEW_MS..opts.settle_ms).contains(&age)
}

/// Whether the file's session is over (see `QUIET_MS`). An mtime in the future tells nothing
/// of the session: it is taken as over, or its last turn would wait for that date.
fn quiet(opts: &Options, mtime: i64) -> bool {
    let age = opts.now_ms.saturating_sub(mtime);
    !(-CLOCK_SKEW_MS..QUIET_MS).contains(&age)
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
    let size = file.metadata()?.len();
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
    let unchanged = prior.as_ref().is_some_and(|m| {
        same_head(m, &head) && m.size_bytes == size && m.mtime_ms == mtime && !left_open(m)
    });
    // How far the last run read: lines before it are read again only for the turn they
    // belong to, and what was wrong with them was said then.
    let (start, seen_until) = match &prior {
        Some(m) if !unchanged && continues(m, &head, path, size)? => (m.read_bytes, m.size_bytes),
        _ => (0, 0),
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
    let head = mark.head_sha256.clone();
    let mut pass = Pass::new(source, path, start, lines::Clock::new(opts.now_ms, mtime));
    pass.seen_until = seen_until;
    let mut reader = source.reader(path);
    if start > 0 {
        pass.replay_first_line(&mut file, reader.as_mut())?;
    }
    file.seek(SeekFrom::Start(start))?;
    let mut lines = BufReader::with_capacity(1 << 20, file.take(size - start));
    let mut events = Vec::new();
    let mut buf = Vec::new();
    let mut pos = start;
    // Where the next run may start: before the turn still open and any tool call still waiting
    // for its result (a result read without its call could not be stored, a turn's end without
    // its prompt would be lost). Lines after it are read again next time and matched by id,
    // not doubled.
    let mut settled = start;
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
                pass.lines += 1;
                pass.skip("a line over 256 MiB", pos, true, report);
                continue;
            }
            // The writer has not finished this line: it is read next time.
            pass.lines += 1;
            pass.skip(
                "an unfinished last line (read next time)",
                u64::MAX,
                false,
                report,
            );
            break;
        }
        let from = pos;
        pos += n as u64;
        pass.line(
            &buf[..n - 1],
            (from, pos),
            reader.as_mut(),
            &mut events,
            report,
        );
        settled = reader.resume_from().unwrap_or(pos);
        if events.len() >= BATCH {
            mark.read_bytes = settled;
            mark.head_sha256 = identity(&head, path, settled, true)?;
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
    let before = events.len();
    let left_open = reader.finish(&mut events, quiet(opts, mtime));
    pass.place(&mut events, before);
    if !pass.done(report) {
        // Nothing in the file could be used: it is not marked read, and the next run says so
        // again, rather than the file being taken as imported.
        return Ok(());
    }
    mark.read_bytes = settled;
    mark.head_sha256 = identity(&head, path, settled, left_open)?;
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

/// One read of one file: what each line goes through besides its reader (parsing, its time,
/// a working directory when it names none), and what the read left out, for the report.
struct Pass<'a> {
    source: Source,
    path: &'a Path,
    start: u64,
    clock: lines::Clock,
    /// The last working directory a line named.
    cwd: Option<String>,
    /// The first one the file names anywhere, looked up once, when an event first needs it.
    first_cwd: Option<Option<String>>,
    /// Lines read since `start`.
    lines: u64,
    /// Lines ending before this were read by the last run, which said what was wrong with them.
    seen_until: u64,
    /// Lines the reader used or knew to ignore.
    used: usize,
    /// Lines that could not be used (an unfinished last line is not one).
    bad: usize,
    skipped: Option<Skipped>,
    /// Sessions left out for want of any working directory.
    unplaced: BTreeSet<String>,
}

impl<'a> Pass<'a> {
    fn new(source: Source, path: &'a Path, start: u64, clock: lines::Clock) -> Pass<'a> {
        Pass {
            source,
            path,
            start,
            clock,
            cwd: None,
            first_cwd: None,
            lines: 0,
            seen_until: 0,
            used: 0,
            bad: 0,
            skipped: None,
            unplaced: BTreeSet::new(),
        }
    }

    /// Read on from a mark, the reader still needs what the file's first line says (a Codex
    /// rollout names its session only there); what it makes of it was stored before.
    fn replay_first_line(
        &mut self,
        file: &mut std::fs::File,
        reader: &mut dyn Reader,
    ) -> Result<()> {
        file.seek(SeekFrom::Start(0))?;
        let mut first = Vec::new();
        BufReader::new(file.take(MAX_LINE_BYTES as u64)).read_until(b'\n', &mut first)?;
        if first.last() == Some(&b'\n')
            && let Some(line) = lines::parse(&first[..first.len() - 1])
        {
            let at_ms = self.clock.peek(&line);
            reader.line(&line, at_ms, 0, &mut Vec::new());
        }
        Ok(())
    }

    /// One whole line, from byte `from` to `end`.
    fn line(
        &mut self,
        bytes: &[u8],
        (from, end): (u64, u64),
        reader: &mut dyn Reader,
        events: &mut Vec<Event>,
        report: &mut Report,
    ) {
        self.lines += 1;
        let Some(line) = lines::parse(bytes) else {
            return self.skip("not a JSON object", end, true, report);
        };
        if let Some(cwd) = self.source.line_cwd(&line) {
            self.cwd = Some(cwd.to_string());
        }
        let (path, now_ms) = (self.path, self.clock.now_ms());
        let at_ms = self
            .clock
            .time(&line, || lines::next_time(path, from, now_ms));
        let before = events.len();
        match reader.line(&line, at_ms, from, events) {
            Line::Unreadable(why) => self.skip(why, end, true, report),
            Line::Used | Line::Ignored => self.used += 1,
        }
        self.place(events, before);
    }

    /// Counts the line just read, ending at byte `end`, as left out; the first is named in the
    /// report by its line number. `bad`: not merely unfinished.
    fn skip(&mut self, why: &'static str, end: u64, bad: bool, report: &mut Report) {
        self.bad += usize::from(bad);
        if end <= self.seen_until {
            return;
        }
        *report.skipped_lines.entry(why).or_default() += 1;
        if let Some(s) = self.skipped.as_mut() {
            s.lines += 1;
            return;
        }
        // Counted only now: most reads skip nothing, and a read from a mark would have to
        // go through everything before it.
        let before = match self.start {
            0 => 0,
            start => lines::count_lines(self.path, start).unwrap_or(0),
        };
        self.skipped = Some(Skipped {
            path: self.path.to_path_buf(),
            lines: 1,
            first_line: before + self.lines,
            first_why: why,
        });
    }

    /// Gives the events from `from` on a working directory when theirs is missing: the last
    /// one a line named, else the first one in the file. The hooks would take the importer's
    /// own directory, which says nothing of where the session ran. A session in a file that
    /// names none anywhere is left out: its project cannot be told.
    fn place(&mut self, events: &mut Vec<Event>, from: usize) {
        let tail = events.split_off(from);
        for mut event in tail {
            if let Some(cwd) = event_cwd(&event) {
                // A Codex call's own workdir: the best guess for the events that follow.
                self.cwd = Some(cwd.to_string());
                events.push(event);
                continue;
            }
            if self.cwd.is_none() {
                self.cwd = self.first_cwd();
            }
            if let Some(cwd) = &self.cwd {
                event
                    .payload
                    .insert("cwd".into(), Value::from(cwd.as_str()));
                events.push(event);
            } else if let Some(id) = event.payload.get("session_id").and_then(Value::as_str) {
                self.unplaced.insert(id.to_string());
            }
        }
    }

    fn first_cwd(&mut self) -> Option<String> {
        let (path, source) = (self.path, self.source);
        self.first_cwd
            .get_or_insert_with(|| {
                let needles: [&[u8]; 2] = [b"\"cwd\"", b"\"runtime_workspace_roots\""];
                lines::scan(path, 0, &needles, |l| source.line_cwd(l).map(String::from))
            })
            .clone()
    }

    /// Puts what the read left out in the report; whether anything in the file could be used
    /// (a file read from its start where every line failed could not).
    fn done(self, report: &mut Report) -> bool {
        report.sessions_without_cwd.extend(
            self.unplaced
                .into_iter()
                .map(|id| (self.path.to_path_buf(), id)),
        );
        let usable = self.start > 0 || self.used > 0 || self.bad == 0;
        if let Some(s) = self.skipped {
            if !usable {
                let why = format!(
                    "no line could be used (line {}: {}); it is not marked read, and the next import tries it again",
                    s.first_line, s.first_why
                );
                report.unusable_files.push((s.path.clone(), why));
            }
            report.skipped_in.push(s);
        }
        usable
    }
}

fn event_cwd(event: &Event) -> Option<&str> {
    event
        .payload
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| !c.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(now_ms: i64, settle_ms: i64) -> Options {
        Options {
            paths: Vec::new(),
            project: None,
            since_ms: None,
            dry_run: false,
            now_ms,
            settle_ms,
        }
    }

    #[test]
    fn only_a_recent_mtime_not_a_future_one_means_still_written() {
        let now = 1_796_013_832_123;
        let o = opts(now, 120_000);
        assert!(still_written(&o, now - 60_000));
        assert!(still_written(&o, now + 2_000), "a little clock skew");
        assert!(!still_written(&o, now - 180_000));
        assert!(!still_written(&o, now + 86_400_000), "a date to come");
        assert!(!still_written(&o, i64::MAX));
        assert!(!still_written(&opts(now, 0), now), "--include-running");
    }

    fn names(paths: &[PathBuf], root: &Path) -> Vec<String> {
        let mut names: Vec<String> = paths
            .iter()
            .map(|p| p.strip_prefix(root).unwrap_or(p).display().to_string())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn links_are_followed_once_and_bad_entries_are_named_without_stopping_the_walk() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("projects");
        let elsewhere = tmp.path().join("elsewhere");
        std::fs::create_dir_all(root.join("p1")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::fs::write(root.join("p1/a.jsonl"), "{}\n").unwrap();
        std::fs::write(elsewhere.join("b.jsonl"), "{}\n").unwrap();
        std::fs::write(tmp.path().join("c.jsonl"), "{}\n").unwrap();
        let link = |from: PathBuf, to: PathBuf| std::os::unix::fs::symlink(from, to);
        link(elsewhere.clone(), root.join("linked-dir")).unwrap();
        link(tmp.path().join("c.jsonl"), root.join("p1/linked.jsonl")).unwrap();
        link(root.join("p1/a.jsonl"), root.join("p1/same-as-a.jsonl")).unwrap();
        link(root.clone(), root.join("p1/loop")).unwrap();
        link(
            tmp.path().join("gone.jsonl"),
            root.join("p1/dangling.jsonl"),
        )
        .unwrap();
        let fifo = std::process::Command::new("mkfifo")
            .arg(root.join("p1/pipe.jsonl"))
            .status()
            .unwrap();
        assert!(fifo.success());
        let missing = tmp.path().join("missing.jsonl");

        let found = discover(Source::ClaudeCode, &[root.clone(), missing.clone()]);
        assert_eq!(
            names(&found.files, &root),
            ["linked-dir/b.jsonl", "p1/a.jsonl", "p1/linked.jsonl"]
        );
        let failed: Vec<PathBuf> = found.failed.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(
            names(&failed, &root),
            [
                missing.display().to_string(),
                "p1/dangling.jsonl".into(),
                "p1/pipe.jsonl".into()
            ],
            "{:?}",
            found.failed
        );
    }
}
