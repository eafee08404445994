//! `hookrules export`: deliver the decisions waiting in the export spool to the
//! OpenTelemetry collector now (as every exporting run does after its answer),
//! for a timer or by hand after the collector was down; with `--background`,
//! what a run starts after its answer. See `log::export`.

use crate::os::env::Env;
use std::io::Write;
use std::time::Instant;

use crate::log::export::{self, Delivered, Pause, LIMIT};
use crate::log::otlp::Target;
use crate::os::clock::Now;

/// Deliver the spool; 0 when nothing is left waiting, 1 otherwise.
/// `background`: as a run's deliverer (no output, the pause kept).
pub fn run(env: &Env, background: bool, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let Some(dir) = export::spool_dir(env) else {
        let _ = writeln!(
            err,
            "hookrules export: no state folder (set HOME or XDG_STATE_HOME)"
        );
        return 1;
    };
    let target = Target::from_env(env);
    if background {
        export::deliver_in_background(&dir, &target, || Now::from_env(env).ms);
        return 0;
    }
    for p in &target.problems {
        let _ = writeln!(err, "hookrules export: {p}");
    }
    let now = Now::from_env(env).ms;
    let d: Delivered = export::deliver(&dir, &target, now, Instant::now() + LIMIT, Pause::Ignore);
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
