//! Today's date and the current time, in the time zone a policy chose: the
//! hook's local zone (as `date` prints it, so scratchpad paths match what a person
//! sees) or UTC.
//!
//! The local zone is the hook's own: `TZ` from the environment the client gave
//! the hook (an IANA name such as `Europe/Berlin`, `:NAME`, a file path, or a
//! POSIX rule such as `CET-1CEST,M3.5.0,M10.5.0/3`), else the machine's
//! `/etc/localtime`, else UTC. It is read from the environment map, never from
//! the process's global state, so fixtures can pin it and tests run in parallel.
//! Nothing is read until a template actually uses `today` or `now`.

use crate::os::env::Env;
use std::time::{SystemTime, UNIX_EPOCH};

use jiff::tz::TimeZone;
use jiff::Timestamp;

/// Which zone a policy's `today` and `now` are in (`[policy] time_zone`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Zone {
    /// The hook's local zone (`TZ`, else the machine's).
    #[default]
    Local,
    /// UTC.
    Utc,
}

/// A moment, and the local zone it is read in. One per command: the same
/// moment is what evaluation sees, what the decision log records and what
/// allow-once compares expiry times with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Now {
    /// Seconds since the Unix epoch.
    pub unix: i64,
    /// Milliseconds since the Unix epoch (the same moment, for the log).
    pub ms: i64,
    /// `TZ` of the hook's environment (None: the machine's zone).
    pub tz: Option<String>,
}

/// A moment's calendar form in one zone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// `YYYY-MM-DD`.
    pub today: String,
    /// RFC 3339 with offset (`2026-11-21T19:45:12+01:00`).
    pub rfc3339: String,
}

impl Now {
    /// The current time, read in the machine's zone.
    pub fn current() -> Now {
        let ms = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_millis() as i64)
            .unwrap_or(0);
        Now {
            unix: ms.div_euclid(1000),
            ms,
            tz: None,
        }
    }

    /// A fixed time (fixtures pin the clock with `now`, or `HOOKRULES_NOW`).
    pub fn at(unix: i64) -> Now {
        Now {
            unix,
            ms: unix.saturating_mul(1000),
            tz: None,
        }
    }

    /// The clock of a command: `HOOKRULES_NOW` (unix seconds) pins it for
    /// fixtures and tests, else the current time; local means the zone `TZ`
    /// names.
    pub fn from_env(env: &Env) -> Now {
        let now = match env.get("HOOKRULES_NOW").and_then(|s| s.parse::<i64>().ok()) {
            Some(t) => Now::at(t),
            None => Now::current(),
        };
        now.with_tz(env.get("TZ").as_deref())
    }

    /// The same moment, with local meaning the zone `tz` names (the hook's `TZ`).
    pub fn with_tz(mut self, tz: Option<&str>) -> Now {
        self.tz = tz.filter(|s| !s.is_empty()).map(String::from);
        self
    }

    /// The calendar form in `zone`.
    pub fn stamp(&self, zone: Zone) -> Stamp {
        let tz = match zone {
            Zone::Utc => TimeZone::UTC,
            Zone::Local => local_zone(self.tz.as_deref()),
        };
        let ts = Timestamp::from_second(self.unix).unwrap_or(Timestamp::UNIX_EPOCH);
        let z = ts.to_zoned_datetime(tz);
        Stamp {
            today: z.strftime("%Y-%m-%d").to_string(),
            rfc3339: z.strftime("%Y-%m-%dT%H:%M:%S%:z").to_string(),
        }
    }
}

/// The zone `TZ` names, as the C library reads it; a value that names no zone is UTC
/// (as glibc does), and an unset `TZ` is the machine's zone.
pub fn local_zone(tz: Option<&str>) -> TimeZone {
    let Some(spec) = tz else {
        return std::fs::read("/etc/localtime")
            .ok()
            .and_then(|b| TimeZone::tzif("Local", &b).ok())
            .or_else(|| TimeZone::try_system().ok())
            .unwrap_or(TimeZone::UTC);
    };
    let name = spec.strip_prefix(':').unwrap_or(spec);
    if name.starts_with('/') {
        return std::fs::read(name)
            .ok()
            .and_then(|b| TimeZone::tzif(name, &b).ok())
            .unwrap_or(TimeZone::UTC);
    }
    if name.eq_ignore_ascii_case("UTC") || name == "Z" {
        return TimeZone::UTC;
    }
    // An IANA name: read its one file (the whole database is never scanned); names
    // that could climb out of the zone folder are not names.
    if !name.is_empty() && !name.split('/').any(|c| c == ".." || c.is_empty()) {
        let dir = std::env::var_os("TZDIR").unwrap_or_else(|| "/usr/share/zoneinfo".into());
        let file = std::path::Path::new(&dir).join(name);
        if let Some(tz) = std::fs::read(file)
            .ok()
            .and_then(|b| TimeZone::tzif(name, &b).ok())
        {
            return tz;
        }
        if let Ok(tz) = TimeZone::get(name) {
            return tz;
        }
    }
    TimeZone::posix(name).unwrap_or(TimeZone::UTC)
}

#[cfg(test)]
mod tests {
    use super::*;

    // 2025-11-20 23:30:00 UTC.
    const T: i64 = 1763681400;

    #[test]
    fn far_apart_zones_disagree_on_the_date() {
        let at = |tz: &str| Now::at(T).with_tz(Some(tz)).stamp(Zone::Local);
        assert_eq!(at("UTC").today, "2025-11-20");
        assert_eq!(at("UTC").rfc3339, "2025-11-20T23:30:00+00:00");
        // UTC+14: already the next day.
        assert_eq!(at("Pacific/Kiritimati").today, "2025-11-21");
        assert_eq!(
            at("Pacific/Kiritimati").rfc3339,
            "2025-11-21T13:30:00+14:00"
        );
        assert_eq!(at("Europe/Berlin").rfc3339, "2025-11-21T00:30:00+01:00");
        // UTC-10.
        assert_eq!(at("Pacific/Honolulu").today, "2025-11-20");
        // POSIX rule, and a leading colon.
        assert_eq!(at("CET-1CEST,M3.5.0,M10.5.0/3").today, "2025-11-21");
        assert_eq!(at(":Europe/Berlin").today, "2025-11-21");
    }

    #[test]
    fn utc_is_utc_whatever_the_local_zone() {
        let s = Now::at(T)
            .with_tz(Some("Pacific/Kiritimati"))
            .stamp(Zone::Utc);
        assert_eq!(s.today, "2025-11-20");
        assert_eq!(s.rfc3339, "2025-11-20T23:30:00+00:00");
    }

    #[test]
    fn names_that_leave_the_zone_folder_or_name_nothing_are_utc() {
        for bad in ["../../etc/passwd", "Nowhere/Special", "", "Europe//Berlin"] {
            let s = Now::at(T).with_tz(Some(bad)).stamp(Zone::Local);
            if !bad.is_empty() {
                assert_eq!(s.rfc3339, "2025-11-20T23:30:00+00:00", "{bad}");
            }
        }
    }
}
