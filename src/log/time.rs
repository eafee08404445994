//! Times in the log: RFC 3339 in UTC with milliseconds (`2026-11-24T08:45:11.123Z`),
//! which sort as text, and spans such as `2h` for `--since`. Dates are jiff's;
//! spans stay hand-written: `--since` takes plain units (`7d` is 7 × 24 h, `1w`
//! 7 days) where jiff's spans are calendar-aware and need a reference date.

use jiff::Timestamp;

/// `2026-11-24T08:45:11.123Z` (jiff's RFC 3339, always three fractional
/// digits). Times beyond jiff's range (years -9999..=9999) are clamped to it.
pub fn format_ms(ms: i64) -> String {
    let t = Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        Timestamp::MIN
    } else {
        Timestamp::MAX
    });
    format!("{t:.3}")
}

/// Parse what [`format_ms`] writes (also without milliseconds, with a
/// `+HH:MM` offset, or with no offset: UTC); `None` for anything else.
pub fn parse_ms(s: &str) -> Option<i64> {
    if let Ok(t) = s.parse::<Timestamp>() {
        return Some(t.as_millisecond());
    }
    let civil = s.parse::<jiff::civil::DateTime>().ok()?;
    Some(
        jiff::tz::Offset::UTC
            .to_timestamp(civil)
            .ok()?
            .as_millisecond(),
    )
}

/// A span such as `90s`, `30m`, `2h`, `7d`, `1w`, in milliseconds.
pub fn parse_span(s: &str) -> Result<i64, String> {
    let s = s.trim();
    let split = s
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| format!("`{s}`: give a unit (s, m, h, d, w), e.g. 2h"))?;
    let (n, unit) = s.split_at(split);
    let n: i64 = n
        .parse()
        .map_err(|_| format!("`{s}`: expected a number then a unit, e.g. 2h"))?;
    let per = match unit {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return Err(format!("`{s}`: unknown unit `{unit}` (s, m, h, d, w)")),
    };
    Ok(n.saturating_mul(per).saturating_mul(1000))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_reads_offsets() {
        for ms in [
            0,
            1_795_000_000_123,
            951_782_400_000, /* 2000-02-29 */
            -1,
        ] {
            assert_eq!(parse_ms(&format_ms(ms)), Some(ms), "{}", format_ms(ms));
        }
        assert_eq!(format_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(
            parse_ms("2026-11-24T10:45:11+02:00"),
            parse_ms("2026-11-24T08:45:11.000Z")
        );
        assert_eq!(parse_ms("yesterday"), None);
        assert_eq!(parse_span("2h"), Ok(7_200_000));
        assert!(parse_span("2").is_err() && parse_span("2y").is_err());
    }
}
