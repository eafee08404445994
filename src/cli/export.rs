//! `hookrules export`: deliver the decisions waiting in the export spool to the
//! OpenTelemetry collector now (as every exporting run does after its answer),
//! for a timer or by hand after the collector was down. See `log::export`.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

use crate::log::export::{self, Delivered};
use crate::log::otlp::Target;

/// How long `hookrules export` keeps delivering.
const LIMIT: Duration = Duration::from_secs(30);

/// Deliver the spool; 0 when nothing is left waiting, 1 otherwise.
pub fn run(env: &BTreeMap<String, String>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(dir) = export::spool_dir(env) else {
        let _ = writeln!(
            err,
            "hookrules export: no state folder (set HOME or XDG_STATE_HOME)"
        );
        return 1;
    };
    let target = Target::from_env(env);
    for p in &target.problems {
        let _ = writeln!(err, "hookrules export: {p}");
    }
    let now = crate::os::clock::Now::from_env(env).ms;
    let d: Delivered = export::deliver(&dir, &target, now, Instant::now() + LIMIT);
    let _ = writeln!(
        out,
        "{} delivered to {}, {} rejected by it, {} waiting{}",
        d.sent,
        target.url,
        d.rejected,
        export::status(&dir).waiting,
        d.note.map(|n| format!(" ({n})")).unwrap_or_default()
    );
    i32::from(d.more)
}
