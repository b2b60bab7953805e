//! What every transcript line goes through before its reader sees it: parsed as the hooks
//! parse a payload, and given a time when its own is missing or wrong.

use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::{Map, Value};

use super::files::{MAX_LINE_BYTES, skip_line};

/// 2000-01-01: a line stamped earlier was not written by a coding agent (a zeroed clock, a
/// placeholder), and filing it under 1970 would put its session first in every timeline.
const EARLIEST_MS: i64 = 946_684_800_000;
/// How far past now a line's time may be (a clock a little ahead); later is a wrong clock, and
/// kept it would stay "latest" in every timeline for years.
const LATEST_AHEAD_MS: i64 = 86_400_000;

/// A line as a JSON object, read as leniently as a hook payload (lone surrogates, huge numbers
/// and deep nesting repaired), so the import keeps what the live hook would have kept.
pub(super) fn parse(bytes: &[u8]) -> Option<Map<String, Value>> {
    match crate::hook::payload::parse_lenient(bytes, "transcript line") {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// The line's own `timestamp`, when it is one a transcript can have.
pub(super) fn own_time(line: &Map<String, Value>, now_ms: i64) -> Option<i64> {
    let ms = line
        .get("timestamp")?
        .as_str()?
        .parse::<jiff::Timestamp>()
        .ok()?
        .as_millisecond();
    (EARLIEST_MS..=now_ms.saturating_add(LATEST_AHEAD_MS))
        .contains(&ms)
        .then_some(ms)
}

/// The times of one read's lines. A line without a usable time of its own takes the previous
/// line's, else the next one's that has one, else the file's mtime.
pub(super) struct Clock {
    now_ms: i64,
    previous: Option<i64>,
    /// The next usable time, looked up once, when a line first needs it.
    next: Option<Option<i64>>,
    mtime_ms: i64,
}

impl Clock {
    pub(super) fn new(now_ms: i64, mtime_ms: i64) -> Clock {
        // An unknown mtime or one to come is no better a time than now.
        let mtime_ms = if mtime_ms > 0 {
            mtime_ms.min(now_ms)
        } else {
            now_ms
        };
        Clock {
            now_ms,
            previous: None,
            next: None,
            mtime_ms,
        }
    }

    pub(super) fn now_ms(&self) -> i64 {
        self.now_ms
    }

    /// The line's time; `next` finds the next usable one in the file.
    pub(super) fn time(
        &mut self,
        line: &Map<String, Value>,
        next: impl FnOnce() -> Option<i64>,
    ) -> i64 {
        if let Some(ms) = own_time(line, self.now_ms) {
            self.previous = Some(ms);
            return ms;
        }
        if let Some(ms) = self.previous {
            return ms;
        }
        self.next.get_or_insert_with(next).unwrap_or(self.mtime_ms)
    }

    /// A line's time without it counting as the previous one (a line read again for what it
    /// says, not as part of this read).
    pub(super) fn peek(&self, line: &Map<String, Value>) -> i64 {
        own_time(line, self.now_ms).unwrap_or(self.mtime_ms)
    }
}

/// The first line of `path` from byte `from` on that holds one of `needles` and of which
/// `find` makes something (the needles spare parsing lines that cannot hold it). Best effort: a file that cannot be read again yields `None`, and the caller's
/// fallback stands.
pub(super) fn scan<T>(
    path: &Path,
    from: u64,
    needles: &[&[u8]],
    mut find: impl FnMut(&Map<String, Value>) -> Option<T>,
) -> Option<T> {
    let mut file = std::fs::File::open(path).ok()?;
    file.seek(SeekFrom::Start(from)).ok()?;
    let mut lines = BufReader::with_capacity(1 << 16, file);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let n = (&mut lines)
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut buf)
            .ok()?;
        if n == 0 || buf.last() != Some(&b'\n') {
            if n > MAX_LINE_BYTES {
                skip_line(&mut lines).ok()?;
                continue;
            }
            return None;
        }
        if !needles
            .iter()
            .any(|n| buf.windows(n.len()).any(|w| w == *n))
        {
            continue;
        }
        if let Some(found) = parse(&buf[..n - 1]).as_ref().and_then(&mut find) {
            return Some(found);
        }
    }
}

/// The first usable time of a line from byte `from` on.
pub(super) fn next_time(path: &Path, from: u64, now_ms: i64) -> Option<i64> {
    scan(path, from, &[b"\"timestamp\""], |line| {
        own_time(line, now_ms)
    })
}

/// How many lines end before byte `end` (for a line number in a message).
pub(super) fn count_lines(path: &Path, end: u64) -> Option<u64> {
    let file = std::fs::File::open(path).ok()?;
    let mut reader = BufReader::with_capacity(1 << 16, file.take(end));
    let mut count = 0u64;
    loop {
        let chunk = reader.fill_buf().ok()?;
        if chunk.is_empty() {
            return Some(count);
        }
        count += chunk.iter().filter(|b| **b == b'\n').count() as u64;
        let n = chunk.len();
        reader.consume(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NOW: i64 = 1_796_013_832_123;

    fn line(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }

    #[test]
    fn lines_the_hooks_would_repair_are_read() {
        let lone = br#"{"type":"user","message":{"content":"build ok \ud83d"}}"#;
        let parsed = parse(lone).unwrap();
        assert_eq!(parsed["message"]["content"], "build ok \u{fffd}");
        let deep = format!(
            r#"{{"type":"assistant","input":{}1{}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        let parsed = parse(deep.as_bytes()).unwrap();
        assert_eq!(parsed["type"], "assistant");
        assert!(parse(b"[1,2]").is_none());
        assert!(parse(b"{\"type\":\"us").is_none());
    }

    #[test]
    fn a_missing_or_wrong_time_takes_the_previous_then_the_next_then_the_mtime() {
        let mtime = NOW - 3_600_000;
        let good = |t: &str| line(json!({ "timestamp": t }));
        let at_2026 = "2026-11-01T10:00:00Z"
            .parse::<jiff::Timestamp>()
            .unwrap()
            .as_millisecond();
        let mut clock = Clock::new(NOW, mtime);
        let bad = [
            line(json!({})),
            good("yesterday"),
            line(json!({ "timestamp": 1_700_000_000 })),
            good("1970-01-01T00:00:00Z"),
            good("-000001-01-01T00:00:00Z"),
            good("2099-01-01T00:00:00Z"),
        ];
        for b in &bad {
            assert_eq!(clock.time(b, || Some(at_2026)), at_2026, "{b:?}: the next");
        }
        assert_eq!(
            clock.time(&good("2026-11-01T10:00:05Z"), || None),
            at_2026 + 5_000
        );
        for b in &bad {
            assert_eq!(
                clock.time(b, || None),
                at_2026 + 5_000,
                "{b:?}: the previous"
            );
        }
        let mut alone = Clock::new(NOW, mtime);
        assert_eq!(alone.time(&bad[0], || None), mtime);
        let mut future_mtime = Clock::new(NOW, NOW + 86_400_000 * 400);
        assert_eq!(future_mtime.time(&bad[0], || None), NOW);
    }

    #[test]
    fn scans_find_the_next_time_and_count_lines() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("t.jsonl");
        let text = "{\"type\":\"summary\"}\nnot json \"timestamp\"\n{\"timestamp\":\"2026-11-01T10:00:00Z\"}\n";
        std::fs::write(&path, text).unwrap();
        let at = next_time(&path, 0, NOW).unwrap();
        assert_eq!(at, 1_793_527_200_000);
        assert_eq!(next_time(&path, text.len() as u64, NOW), None);
        assert_eq!(count_lines(&path, 19), Some(1));
        assert_eq!(count_lines(&path, text.len() as u64), Some(3));
    }
}
