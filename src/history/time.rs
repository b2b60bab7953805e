//! When each imported event happened. A line's own time is used only when it is plausible: a
//! missing or unparseable one would become 1970, a far-future one would sort a session first
//! in every timeline until that date.
//!
//! A line without a usable time takes the last usable time of the same read (the reader keeps
//! it), else the next usable line's, else the file's mtime. A read resumed from a mark has not
//! seen the lines before it, so there the next line's time (else the mtime) is what a line at
//! the start of the read gets; a first full read could have given it the previous one's.

use std::path::Path;

use anyhow::Result;
use serde_json::{Map, Value};

use super::Event;

/// An event's time before a usable one is known (`fill` replaces it).
pub(crate) const UNKNOWN: i64 = i64::MIN;
/// 2000-01-01T00:00:00Z: no agent transcript is older; earlier times are placeholders.
const EARLIEST_MS: i64 = 946_684_800_000;
/// How far past the import a time may be (clocks differ, time zones are mistaken).
const AHEAD_MS: i64 = 86_400_000;

/// The line's `timestamp`, if it is one a transcript written before `now_ms` can hold.
pub(crate) fn line_ms(line: &Map<String, Value>, now_ms: i64) -> Option<i64> {
    let ms = line
        .get("timestamp")
        .and_then(Value::as_str)?
        .parse::<jiff::Timestamp>()
        .ok()?
        .as_millisecond();
    (EARLIEST_MS..=now_ms.saturating_add(AHEAD_MS))
        .contains(&ms)
        .then_some(ms)
}

/// Gives each event still `UNKNOWN` the next known time in the batch, else the next usable
/// time in the file after `pos`, else `mtime_ms`.
pub(super) fn fill(
    events: &mut [Event],
    path: &Path,
    pos: u64,
    mtime_ms: i64,
    now_ms: i64,
) -> Result<()> {
    let mut next = None;
    for e in events.iter_mut().rev() {
        if e.at_ms == UNKNOWN {
            if next.is_none() {
                next = Some(scan(path, pos, now_ms)?.unwrap_or(mtime_ms));
            }
            e.at_ms = next.unwrap_or(mtime_ms);
        } else {
            next = Some(e.at_ms);
        }
    }
    Ok(())
}

/// The first usable time a line from `from` on holds.
fn scan(path: &Path, from: u64, now_ms: i64) -> Result<Option<i64>> {
    super::scan::ahead(path, from, |line| line_ms(line, now_ms))
}
