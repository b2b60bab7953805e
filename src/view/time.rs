//! Human-readable times in the configured time zone, in the layouts the context uses.

use anyhow::Result;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ZonedDateTime};

use super::doc::{Line, Role};

#[derive(Debug, Clone)]
pub struct Tz(TimeZone);

impl Tz {
    /// `local` (or empty) is the system zone (`TZ` is honoured); anything else is an IANA name
    /// such as `Europe/Berlin` or `UTC`.
    pub(crate) fn from_setting(name: &str) -> Result<Tz> {
        crate::clock::load_zone(name)
            .map(Tz)
            .map_err(anyhow::Error::msg)
    }

    pub fn utc() -> Tz {
        Tz(TimeZone::UTC)
    }

    fn at(&self, ms: i64) -> ZonedDateTime {
        Timestamp::from_millisecond(ms)
            .unwrap_or(Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(self.0.clone())
    }

    /// `2026-10-12 3:45pm GMT+8` (the context header).
    pub(crate) fn header(&self, ms: i64) -> String {
        let z = self.at(ms);
        format!(
            "{} {}",
            z.strftime("%Y-%m-%d %-I:%M%P"),
            zone_label(&z.strftime("%Z").to_string())
        )
    }

    /// `3:45p` (an index row).
    pub(crate) fn row(&self, ms: i64) -> String {
        let z = self.at(ms);
        let ampm = if z.hour() < 12 { 'a' } else { 'p' };
        format!("{}{ampm}", z.strftime("%-I:%M"))
    }

    /// `Oct 10, 2026` (a day heading).
    pub(crate) fn day(&self, ms: i64) -> String {
        self.at(ms).strftime("%b %-d, %Y").to_string()
    }

    /// A value that is equal for two instants on the same local day.
    pub(crate) fn day_key(&self, ms: i64) -> i32 {
        let d = self.at(ms).date();
        i32::from(d.year()) * 1000 + i32::from(d.day_of_year())
    }

    /// The first millisecond of `date` in this zone.
    pub(crate) fn start_of_day(&self, date: jiff::civil::Date) -> Option<i64> {
        date.to_zoned_datetime(self.0.clone())
            .ok()
            .map(|z| z.timestamp().as_millisecond())
    }

    /// `Oct 10, 8:45 PM` (a summary row).
    pub(crate) fn month_day_time(&self, ms: i64) -> String {
        self.at(ms).strftime("%b %-d, %-I:%M %p").to_string()
    }
}

/// Where rows in time order cross into another local day. Every day-grouped list asks it
/// before each row: the index, the timeline, a file's history, and the browser's index (which
/// meets its days a page at a time, so the state outlives one call).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Days {
    last: Option<i32>,
}

/// A new day's `### Oct 10, 2026` heading; `follows` says rows of another day came before it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DayHeading {
    pub line: Line,
    pub follows: bool,
}

impl Days {
    /// The heading a row at `ms` needs: `None` while the day stays the same.
    pub(crate) fn heading(&mut self, tz: &Tz, ms: i64) -> Option<DayHeading> {
        let day = tz.day_key(ms);
        if self.last == Some(day) {
            return None;
        }
        let follows = self.last.is_some();
        self.last = Some(day);
        Some(DayHeading {
            line: Line::new().push(tz.day(ms), Role::Heading(3)),
            follows,
        })
    }
}

/// `+08` → `GMT+8`, `-0330` → `GMT-3:30`; names (`UTC`, `PST`) stay.
fn zone_label(abbrev: &str) -> String {
    let Some(sign) = abbrev.chars().next().filter(|c| *c == '+' || *c == '-') else {
        return abbrev.to_string();
    };
    let digits: String = abbrev[1..].chars().filter(char::is_ascii_digit).collect();
    let (h, m) = match digits.len() {
        0..=2 => (digits.parse::<u32>().unwrap_or(0), 0),
        _ => (
            digits[..digits.len() - 2].parse::<u32>().unwrap_or(0),
            digits[digits.len() - 2..].parse::<u32>().unwrap_or(0),
        ),
    };
    if m == 0 {
        format!("GMT{sign}{h}")
    } else {
        format!("GMT{sign}{h}:{m:02}")
    }
}

/// `2026-10-10 07:00 UTC` (the mem_search index).
pub(crate) fn utc_minute(ms: i64) -> String {
    Tz::utc().at(ms).strftime("%Y-%m-%d %H:%M UTC").to_string()
}

/// `5 minutes`, `about 2 hours`, `about 3 days` (claude-mem's rounding).
pub(crate) fn describe_duration(ms: i64) -> String {
    let minutes = ((ms.max(0) as f64) / 60_000.0).round().max(1.0) as i64;
    if minutes < 60 {
        return format!("{minutes} minute{}", if minutes == 1 { "" } else { "s" });
    }
    let hours = (minutes as f64 / 60.0).round() as i64;
    if hours < 48 {
        return format!("about {hours} hour{}", if hours == 1 { "" } else { "s" });
    }
    format!("about {} days", (hours as f64 / 24.0).round() as i64)
}

/// `45 s`, `3 min 20 s`, `2 h 5 min`: a task's elapsed or remaining time, to the second where
/// that still matters (`describe_duration` rounds to minutes).
pub(crate) fn stopwatch(d: std::time::Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

/// `252,004`: en-US thousands separators.
pub fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stopwatch_reads_to_the_second_then_the_minute() {
        let at = |s| stopwatch(std::time::Duration::from_secs(s));
        assert_eq!(at(7), "7 s");
        assert_eq!(at(200), "3 min 20 s");
        assert_eq!(at(7_500), "2 h 5 min");
    }

    #[test]
    fn layouts() {
        let tz = Tz::from_setting("Asia/Shanghai").unwrap();
        let ms = 1_791_791_100_000; // 2026-10-12T07:45:00Z
        assert_eq!(tz.header(ms), "2026-10-12 3:45pm CST");
        assert_eq!(tz.row(ms), "3:45p");
        assert_eq!(tz.day(ms), "Oct 12, 2026");
        assert_eq!(tz.month_day_time(ms), "Oct 12, 3:45 PM");
        assert_eq!(utc_minute(ms), "2026-10-12 07:45 UTC");
        let utc = Tz::utc();
        assert_eq!(utc.row(ms - 7 * 3_600_000 - 45 * 60_000), "12:00a");
        assert_eq!(utc.row(ms + 4 * 3_600_000 + 15 * 60_000), "12:00p");
    }

    #[test]
    fn days_head_each_new_day_once() {
        let tz = Tz::utc();
        let ms = 1_791_791_100_000; // 2026-10-12T07:45:00Z
        let mut days = Days::default();
        let first = days.heading(&tz, ms).unwrap();
        assert_eq!(first.line.plain(), "### Oct 12, 2026");
        assert!(!first.follows);
        assert_eq!(days.heading(&tz, ms + 3_600_000), None);
        let next = days.heading(&tz, ms + 86_400_000).unwrap();
        assert!(next.follows && next.line.plain().ends_with("Oct 13, 2026"));
    }

    #[test]
    fn zone_labels_and_numbers() {
        assert_eq!(zone_label("+08"), "GMT+8");
        assert_eq!(zone_label("-0330"), "GMT-3:30");
        assert_eq!(zone_label("PDT"), "PDT");
        assert_eq!(thousands(252_004), "252,004");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(describe_duration(0), "1 minute");
        assert_eq!(describe_duration(5 * 60_000), "5 minutes");
        assert_eq!(describe_duration(90 * 60_000), "about 2 hours");
        assert_eq!(describe_duration(72 * 3_600_000), "about 3 days");
    }

    #[test]
    fn unknown_zone_is_a_clear_error() {
        let err = Tz::from_setting("Mars/Olympus").unwrap_err().to_string();
        assert!(err.contains("Mars/Olympus"), "{err}");
    }
}
