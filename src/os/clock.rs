//! Today's date and the current time, in the machine's local time zone (as `date`
//! prints them), so scratchpad paths match what a person sees.

use std::time::{SystemTime, UNIX_EPOCH};

/// A moment, with its local calendar form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Now {
    /// `YYYY-MM-DD`, local.
    pub today: String,
    /// RFC 3339 with offset, local (`2026-11-21T19:45:12+00:00`).
    pub rfc3339: String,
    /// Seconds since the Unix epoch.
    pub unix: i64,
}

impl Now {
    /// The current time.
    pub fn current() -> Now {
        let unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        Self::at(unix)
    }

    /// A fixed time (fixtures pin the clock with `HOOKRULES_NOW`).
    pub fn at(unix: i64) -> Now {
        let t: libc::time_t = unix as libc::time_t;
        // SAFETY: localtime_r writes into the tm we own and reads the time_t we pass.
        let mut tm: libc::tm = unsafe { std::mem::zeroed() };
        let ok = unsafe { !libc::localtime_r(&t, &mut tm).is_null() };
        if !ok {
            return Now {
                today: "1970-01-01".into(),
                rfc3339: "1970-01-01T00:00:00+00:00".into(),
                unix,
            };
        }
        let off = tm.tm_gmtoff;
        let sign = if off < 0 { '-' } else { '+' };
        let (oh, om) = (off.abs() / 3600, (off.abs() % 3600) / 60);
        let today = format!(
            "{:04}-{:02}-{:02}",
            tm.tm_year + 1900,
            tm.tm_mon + 1,
            tm.tm_mday
        );
        let rfc3339 = format!(
            "{today}T{:02}:{:02}:{:02}{sign}{oh:02}:{om:02}",
            tm.tm_hour, tm.tm_min, tm.tm_sec
        );
        Now {
            today,
            rfc3339,
            unix,
        }
    }
}
