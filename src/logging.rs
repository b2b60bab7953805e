//! A tiny append-only log file under `<data dir>/logs/cmem.log`.
//!
//! Hooks and the MCP server may never print diagnostics on stdout, so everything goes here, one
//! line per entry. `cmem doctor` reads the last errors back. Logging never fails loudly: a log
//! that cannot be written is dropped.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::clock;

const MAX_LOG_BYTES: u64 = 2 * 1024 * 1024;
pub(crate) const LOG_FILE: &str = "cmem.log";

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Level {
    Error,
    Warn,
    Info,
    Debug,
}

impl Level {
    pub(crate) fn parse(text: &str) -> Level {
        match text {
            "error" => Level::Error,
            "warn" => Level::Warn,
            "debug" => Level::Debug,
            _ => Level::Info,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Level::Error => "ERROR",
            Level::Warn => "WARN",
            Level::Info => "INFO",
            Level::Debug => "DEBUG",
        }
    }
}

struct Target {
    file: PathBuf,
    level: Level,
    component: String,
}

static TARGET: OnceLock<Target> = OnceLock::new();

/// Sets where this process logs. Only the first call counts.
pub(crate) fn init(data_dir: &Path, level: Level, component: &str) {
    let _ = TARGET.set(Target {
        file: log_file(data_dir),
        level,
        component: component.to_string(),
    });
}

/// Whether an entry at `level` would be written (no allocation: signal handlers ask too).
pub(crate) fn enabled(level: Level) -> bool {
    TARGET.get().is_some_and(|t| level <= t.level)
}

pub fn log_file(data_dir: &Path) -> PathBuf {
    crate::paths::log_dir(data_dir).join(LOG_FILE)
}

pub(crate) fn error(msg: impl AsRef<str>) {
    write(Level::Error, msg.as_ref());
}

pub(crate) fn warn(msg: impl AsRef<str>) {
    write(Level::Warn, msg.as_ref());
}

pub(crate) fn info(msg: impl AsRef<str>) {
    write(Level::Info, msg.as_ref());
}

pub(crate) fn debug(msg: impl AsRef<str>) {
    write(Level::Debug, msg.as_ref());
}

fn write(level: Level, msg: &str) {
    let Some(target) = TARGET.get() else { return };
    if level > target.level {
        return;
    }
    let mut line = String::new();
    let _ = write_entry(
        &mut line,
        clock::now_ms(),
        level,
        &[&msg.replace('\n', "\\n")],
    );
    line.push('\n');
    let _ = append(&target.file, line.as_bytes());
}

/// One entry, without its newline: `<UTC time> <LEVEL> [<component>] pid=<pid> <message>`,
/// the message given in parts. It never allocates, so the hook's deadline signal handler
/// writes its entries with it too.
pub(crate) fn write_entry(
    out: &mut impl std::fmt::Write,
    now_ms: i64,
    level: Level,
    message: &[&str],
) -> std::fmt::Result {
    let component = TARGET.get().map_or("", |t| t.component.as_str());
    clock::write_utc_iso(out, now_ms)?;
    write!(
        out,
        " {:<5} [{component}] pid={} ",
        level.label(),
        std::process::id()
    )?;
    message.iter().try_for_each(|part| out.write_str(part))
}

fn append(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if std::fs::metadata(file)
        .map(|m| m.len() > MAX_LOG_BYTES)
        .unwrap_or(false)
    {
        let _ = std::fs::rename(file, file.with_extension("log.1"));
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    f.write_all(bytes)
}

/// One parsed log line, for `cmem doctor`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub time: String,
    pub level: String,
    pub component: String,
    pub message: String,
}

/// The last `n` entries at `Warn` or worse, newest last.
pub(crate) fn recent_problems(data_dir: &Path, n: usize) -> Vec<Entry> {
    let text = std::fs::read_to_string(log_file(data_dir)).unwrap_or_default();
    let mut out: Vec<Entry> = text
        .lines()
        .filter_map(parse_line)
        .filter(|e| e.level == "ERROR" || e.level == "WARN")
        .collect();
    let skip = out.len().saturating_sub(n);
    out.drain(..skip);
    out
}

fn parse_line(line: &str) -> Option<Entry> {
    let (time, rest) = line.split_once(' ')?;
    let rest = rest.trim_start();
    let (level, rest) = rest.split_once(' ')?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix('[')?;
    let (component, rest) = rest.split_once("] ")?;
    let message = rest.split_once(' ').map(|(_, m)| m).unwrap_or(rest);
    Some(Entry {
        time: time.to_string(),
        level: level.to_string(),
        component: component.to_string(),
        message: message.replace("\\n", "\n"),
    })
}

/// The message of a panic (its payload), or "(no message)".
pub(crate) fn panic_text(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_written_line() {
        let e = parse_line("2026-11-30T04:43:52.123Z ERROR [hook stop] pid=7 db locked\\nretry")
            .unwrap();
        assert_eq!(e.level, "ERROR");
        assert_eq!(e.component, "hook stop");
        assert_eq!(e.message, "db locked\nretry");
    }
}
