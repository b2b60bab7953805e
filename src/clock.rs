//! Wall-clock time in epoch milliseconds, with a test override.
//!
//! `CMEM_NOW_MS` pins "now" so golden tests and fixtures are reproducible, and
//! `CMEM_CLOCK_FILE` names a file holding "now" that is re-read on every call, so a test can
//! move a long-running process (the MCP server) through time. Both are developer knobs, not
//! user settings.

use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};

pub(crate) fn now_ms() -> i64 {
    if let Some(from_file) = std::env::var_os("CMEM_CLOCK_FILE")
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| t.trim().parse::<i64>().ok())
    {
        return from_file;
    }
    if let Some(fixed) = std::env::var("CMEM_NOW_MS")
        .ok()
        .and_then(|v| v.trim().parse::<i64>().ok())
    {
        return fixed;
    }
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Days since 1970-01-01 → (year, month, day) in the proleptic Gregorian calendar
/// (Howard Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// `2026-11-30T04:43:52.123Z`: UTC, for logs and machine-readable output.
pub(crate) fn format_utc_iso(ms: i64) -> String {
    let mut out = String::with_capacity(24);
    let _ = write_utc_iso(&mut out, ms);
    out
}

/// `format_utc_iso` without allocating (the hook's deadline signal handler logs with it).
pub(crate) fn write_utc_iso(out: &mut impl std::fmt::Write, ms: i64) -> std::fmt::Result {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    write!(
        out,
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
}

/// Loads a time zone without scanning the whole tz database (jiff's lookup walks every file
/// under /usr/share/zoneinfo, which costs a hook milliseconds): `local` (or empty) reads `TZ`
/// or /etc/localtime; a name reads its one TZif file. Falls back to jiff's own lookup.
pub(crate) fn load_zone(name: &str) -> Result<jiff::tz::TimeZone, String> {
    use jiff::tz::TimeZone;
    let name = name.trim();
    if name.eq_ignore_ascii_case("utc") {
        return Ok(TimeZone::UTC);
    }
    if is_local(name) {
        let tz = std::env::var("TZ").ok().filter(|t| !t.trim().is_empty());
        return Ok(match tz {
            Some(t) => {
                let t = t.trim().trim_start_matches(':');
                let from_file = if t.starts_with('/') {
                    std::fs::read(t)
                        .ok()
                        .and_then(|d| TimeZone::tzif(t, &d).ok())
                } else {
                    zone_file(t)
                };
                from_file
                    .or_else(|| TimeZone::posix(t).ok())
                    .unwrap_or_else(TimeZone::system)
            }
            None => std::fs::read("/etc/localtime")
                .ok()
                .and_then(|d| TimeZone::tzif("localtime", &d).ok())
                .unwrap_or_else(TimeZone::system),
        });
    }
    zone_file(name)
        .or_else(|| TimeZone::get(name).ok())
        .ok_or_else(|| {
            format!("unknown time zone {name:?} (use local or an IANA name such as Europe/Berlin)")
        })
}

fn is_local(name: &str) -> bool {
    name.is_empty() || name.eq_ignore_ascii_case("local")
}

/// Whether `load_zone(name)` cannot fail: `utc`, and `local` (it falls back to the system zone).
pub(crate) fn zone_always_loads(name: &str) -> bool {
    let name = name.trim();
    is_local(name) || name.eq_ignore_ascii_case("utc")
}

fn zone_file(name: &str) -> Option<jiff::tz::TimeZone> {
    let safe = !name.is_empty()
        && !name.contains("..")
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/_+-".contains(c));
    if !safe {
        return None;
    }
    let dir = std::env::var("TZDIR").unwrap_or_else(|_| "/usr/share/zoneinfo".into());
    let data = std::fs::read(std::path::Path::new(&dir).join(name)).ok()?;
    jiff::tz::TimeZone::tzif(name, &data).ok()
}

const CUTOFF_FORMS: &str =
    "give a date (2026-01-31), an instant (2026-01-31T12:00:00Z) or an age (90d, 12w, 36h)";

/// An instant given as a date (2026-01-31), an instant (2026-01-31T12:00:00Z) or an age before
/// `now_ms` (90d, 12w, 36h), in milliseconds.
pub(crate) fn parse_cutoff(text: &str, now_ms: i64) -> Result<i64> {
    let t = text.trim();
    if let Some(ms) = parse_age(t, now_ms)? {
        return Ok(ms);
    }
    if let Ok(ts) = t.parse::<jiff::Timestamp>() {
        return Ok(ts.as_millisecond());
    }
    if let Ok(date) = t.parse::<jiff::civil::Date>() {
        let ts = date
            .to_zoned_datetime(jiff::tz::TimeZone::UTC)
            .context("date out of range")?
            .timestamp();
        return Ok(ts.as_millisecond());
    }
    bail!("{t:?}: {CUTOFF_FORMS}")
}

/// `90d`, `12w`, `36h` as the instant that long before `now_ms`; `None` when `t` is no age.
/// A signed age is refused, not read as a cutoff in the future (`forget --older-than=-5d`
/// would then select everything), and so is one reaching past the calendar's range (it
/// overflowed).
fn parse_age(t: &str, now_ms: i64) -> Result<Option<i64>> {
    let unit_ms: i64 = match t.chars().last() {
        Some('d') => 86_400_000,
        Some('w') => 7 * 86_400_000,
        Some('h') => 3_600_000,
        _ => return Ok(None),
    };
    let number = &t[..t.len() - 1];
    if number.starts_with(['-', '+']) && number[1..].bytes().all(|b| b.is_ascii_digit()) {
        bail!("{t:?}: an age counts back from now and takes no sign; {CUTOFF_FORMS}");
    }
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(None);
    }
    let cutoff = number
        .parse::<i64>()
        .ok()
        .and_then(|n| n.checked_mul(unit_ms))
        .and_then(|back| now_ms.checked_sub(back))
        .filter(|ms| jiff::Timestamp::from_millisecond(*ms).is_ok());
    match cutoff {
        Some(ms) => Ok(Some(ms)),
        None => bail!(
            "{t:?}: that age reaches before year -9999; give a smaller age (3650d is ten years) or a date (2026-01-31)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_utc_iso(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_utc_iso(1_796_013_832_123),
            "2026-11-30T04:43:52.123Z"
        );
        assert_eq!(format_utc_iso(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn cutoffs() {
        let now = 10 * 86_400_000;
        assert_eq!(parse_cutoff("3d", now).unwrap(), 7 * 86_400_000);
        assert_eq!(parse_cutoff("1970-01-02", now).unwrap(), 86_400_000);
        assert_eq!(parse_cutoff("1970-01-01T00:00:01Z", now).unwrap(), 1000);
        assert!(parse_cutoff("soon", now).is_err());
    }

    #[test]
    fn signed_and_overflowing_ages_are_refused_with_what_to_give() {
        let now = 1_796_013_832_123;
        for signed in ["-5d", "+5d", "-1h", "-0w"] {
            let e = parse_cutoff(signed, now).unwrap_err().to_string();
            assert!(
                e.contains("takes no sign") && e.contains("90d"),
                "{signed}: {e}"
            );
        }
        for huge in ["9999999999999d", "99999999999999999999d", "5000000w"] {
            let e = parse_cutoff(huge, now).unwrap_err().to_string();
            assert!(e.contains("give a smaller age"), "{huge}: {e}");
        }
        assert_eq!(parse_cutoff("0d", now).unwrap(), now);
        assert_eq!(parse_cutoff("3650d", now).unwrap(), now - 3650 * 86_400_000);
        assert!(parse_cutoff("d", now).is_err());
    }
}
