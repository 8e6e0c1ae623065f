//! `created_at` between bundles (RFC 3339 text) and the `DATETIME` column (UTC, no zone).
//!
//! The agent's `created_at` column has no time zone; groundcheck stores UTC. Bundles may carry any offset;
//! exports always say `Z`. The stored form is `YYYY-MM-DD HH:MM:SS.ffffff`, which every
//! engine parses and which sorts as text.

/// Why a `created_at` text is not a date-time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a date-time (expected RFC 3339, e.g. 2026-11-30T10:00:01Z)")]
pub struct TimestampError(pub String);

/// Parses `YYYY-MM-DD[T ]HH:MM:SS[.fraction][Z|±HH:MM]` into the stored UTC form.
pub fn to_stored(text: &str) -> Result<String, TimestampError> {
    let (seconds, micros) = parse(text).ok_or_else(|| TimestampError(text.to_string()))?;
    let (days, secs) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    Ok(format!("{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{micros:06}", secs / 3600, secs / 60 % 60, secs % 60))
}

/// Parses the same RFC 3339 forms as [`to_stored`] into nanoseconds since the Unix epoch (to
/// the microsecond), as OTLP's `timeUnixNano` counts; times before 1970 are refused, since
/// OTLP reads 0 as "no time".
pub fn to_unix_nanos(text: &str) -> Result<u64, TimestampError> {
    let refused = || TimestampError(text.to_string());
    let (seconds, micros) = parse(text).ok_or_else(refused)?;
    let seconds = u64::try_from(seconds).map_err(|_| refused())?;
    let micros = u64::try_from(micros).map_err(|_| refused())?;
    seconds.checked_mul(1_000_000_000).and_then(|n| n.checked_add(micros * 1000)).ok_or_else(refused)
}

/// Seconds since the Unix epoch (UTC) and the microseconds past them.
fn parse(text: &str) -> Option<(i64, i64)> {
    let b = text.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let s = text.get(range)?;
        s.bytes().all(|c| c.is_ascii_digit()).then(|| s.parse().ok())?
    };
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &text[19..];
    let mut micros = 0i64;
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let padded: String = frac[..digits].chars().chain(std::iter::repeat('0')).take(6).collect();
        micros = padded.parse().ok()?;
        rest = &frac[digits..];
    }
    let offset_minutes = match rest {
        "" | "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let hm = &rest[1..];
            if hm.len() != 5 || hm.as_bytes()[2] != b':' {
                return None;
            }
            let (h, m): (i64, i64) = (hm[..2].parse().ok()?, hm[3..].parse().ok()?);
            sign * (h * 60 + m)
        }
    };
    let valid = (1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && hour < 24
        && minute < 60
        && second < 60;
    if !valid {
        return None;
    }
    let seconds =
        days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
    Some((seconds, micros))
}

/// The stored form (or what an engine prints for the column) as RFC 3339 UTC, fraction
/// trimmed: `2026-11-30 10:00:01.500000` → `2026-11-30T10:00:01.5Z`.
pub fn to_rfc3339(stored: &str) -> String {
    let (date_time, fraction) = stored.split_once('.').unwrap_or((stored, ""));
    let fraction = fraction.trim_end_matches('0');
    let date_time = date_time.replacen(' ', "T", 1);
    if fraction.is_empty() {
        format!("{date_time}Z")
    } else {
        format!("{date_time}.{fraction}Z")
    }
}

/// The current UTC time in stored form (for `verified_at`).
pub fn now_stored() -> String {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    let seconds = i64::try_from(since_epoch.as_secs()).unwrap_or(0);
    let (days, secs) = (seconds.div_euclid(86_400), seconds.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}.{:06}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        since_epoch.subsec_micros()
    )
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

// Howard Hinnant's civil-date algorithms.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_utc() {
        assert_eq!(to_stored("2026-11-30T10:00:01Z").unwrap(), "2026-11-30 10:00:01.000000");
        assert_eq!(to_stored("2026-11-30 10:00:01.5").unwrap(), "2026-11-30 10:00:01.500000");
        assert_eq!(to_stored("2026-12-01T01:30:00+08:00").unwrap(), "2026-11-30 17:30:00.000000");
        assert_eq!(to_stored("2026-12-31T23:30:00-01:00").unwrap(), "2027-01-01 00:30:00.000000");
        assert_eq!(to_stored("2028-02-29T00:00:00.123456789Z").unwrap(), "2028-02-29 00:00:00.123456");
    }

    #[test]
    fn unix_nanos_count_from_the_epoch_in_utc() {
        assert_eq!(to_unix_nanos("1970-01-01T00:00:00Z").unwrap(), 0);
        assert_eq!(to_unix_nanos("2018-12-13T14:51:00.3Z").unwrap(), 1_544_712_660_300_000_000);
        assert_eq!(to_unix_nanos("2018-12-13T15:51:00.3+01:00").unwrap(), 1_544_712_660_300_000_000);
        assert!(to_unix_nanos("1969-12-31T23:59:59Z").is_err());
        assert!(to_unix_nanos("tomorrow").is_err());
    }

    #[test]
    fn nonsense_is_refused() {
        for bad in [
            "",
            "yesterday",
            "2026-02-30T00:00:00Z",
            "2026-11-30T24:00:00Z",
            "2026-11-30T10:00:01+8",
            "2026-11-30T10:00:01.",
        ] {
            assert!(to_stored(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn rfc3339_round_trip() {
        assert_eq!(to_rfc3339("2026-11-30 10:00:01.000000"), "2026-11-30T10:00:01Z");
        assert_eq!(to_rfc3339("2026-11-30 10:00:01.500000"), "2026-11-30T10:00:01.5Z");
        assert_eq!(
            to_stored(&to_rfc3339("2026-11-30 10:00:01.250000")).unwrap(),
            "2026-11-30 10:00:01.250000"
        );
    }
}
