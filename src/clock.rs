//! Wall-clock time in epoch milliseconds, with a test override.
//!
//! `CMEM_NOW_MS` pins "now" so golden tests and fixtures are reproducible; it is a developer knob,
//! not a user setting.

use std::time::{SystemTime, UNIX_EPOCH};

pub fn now_ms() -> i64 {
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
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
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
pub fn format_utc_iso(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let (y, mo, d) = civil_from_days(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    format!(
        "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        sod / 3600,
        (sod % 3600) / 60,
        sod % 60
    )
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
}
