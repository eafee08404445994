//! `hookrules allow CODE` (see [`crate::log::allow`] for the design, the
//! allow-once step of `run`, and its guards against the agent).

use crate::os::env::Env;
use std::io::Write;

use crate::log::allow::{self, Granted};
use crate::log::record::{AllowNote, Kind, Record};

/// `hookrules allow` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct AllowArgs {
    /// The code a deny showed you (like K7QX-2MPD).
    pub code: String,
}

/// Who is allowing (or trusting): `user@host` and the terminal.
pub fn who(env: &Env) -> String {
    let user = env
        .get("USER")
        .or_else(|| env.get("LOGNAME"))
        .unwrap_or_else(|| format!("uid {}", unsafe { libc::getuid() }));
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    // SAFETY: ttyname on stdin; the pointer is read at once.
    let tty = unsafe {
        let p = libc::ttyname(0);
        if p.is_null() {
            String::new()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    format!("{user}@{host} on {tty}")
}

/// Is this the agent rather than a person? Claude Code sets `CLAUDECODE` for the
/// commands it runs, and they have no terminal.
pub fn refusal(env: &Env, stdin_is_tty: bool) -> Option<&'static str> {
    if env.get("CLAUDECODE").is_some_and(|v| !v.is_empty()) {
        return Some("this is running inside Claude Code (CLAUDECODE is set): only you may allow a denied call, from your own terminal, never the agent");
    }
    if !stdin_is_tty {
        return Some("run this in your own terminal (stdin is not a terminal): only you may allow a denied call, never the agent or a script");
    }
    None
}

/// `hookrules allow CODE`.
pub fn run(
    args: &AllowArgs,
    env: &Env,
    stdin_is_tty: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if let Some(why) = refusal(env, stdin_is_tty) {
        let _ = writeln!(err, "hookrules allow: refused: {why}.");
        return 3;
    }
    let Some(state) = crate::os::state::state_home(env) else {
        let _ = writeln!(
            err,
            "hookrules allow: no state folder (set HOME or XDG_STATE_HOME)"
        );
        return 2;
    };
    let now = crate::os::clock::Now::from_env(env).ms;
    let (path, p) = match allow::pending(&state, &args.code, now) {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(err, "hookrules allow: {e}");
            return 1;
        }
    };
    // The code names its project: its policies say how long an allowance
    // lasts and where its log is, wherever this command runs.
    let mut env = env.clone();
    if !p.project.is_empty() {
        env.set("CLAUDE_PROJECT_DIR", p.project.clone());
    }
    let env = &env;
    let located = match super::log::locate(&super::log::Where::default(), env) {
        Ok(l) => l,
        Err(e) => {
            let _ = writeln!(err, "hookrules allow: {e}");
            return 2;
        }
    };
    let g = Granted {
        id: p.id.clone(),
        by: who(env),
        summary: p.summary.clone(),
        rules: p.rules.clone(),
        expires_ms: now + i64::from(located.settings.allow_minutes) * 60_000,
        mac: String::new(),
    };
    if let Err(e) = allow::grant(&state, &path, &g) {
        let _ = writeln!(err, "hookrules allow: {e}");
        return 2;
    }
    // A grant is not an answer: no host sent an event, no policy set decided,
    // no time was spent answering and no event is kept; those fields say so.
    let record = Record {
        v: 1,
        kind: Kind::Allow,
        time: crate::log::time::format_ms(now),
        host: String::new(),
        session: p.session.clone(),
        event: "PreToolUse".into(),
        tool: Some(p.tool.clone()),
        decision: None,
        rules: p.rules.clone(),
        policies: Vec::new(),
        reason: None,
        audit: Vec::new(),
        errors: Vec::new(),
        us: 0,
        version: env!("CARGO_PKG_VERSION").into(),
        policy_hash: String::new(),
        bundles: Vec::new(),
        project: located.project.display().to_string(),
        summary: Some(p.summary.clone()),
        allow: Some(AllowNote {
            action: "granted".into(),
            id: p.id.clone(),
            by: Some(g.by.clone()),
            expires: Some(crate::log::time::format_ms(g.expires_ms)),
        }),
        input: None,
        id: crate::log::record::new_id(now),
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(2);
    if let (true, Some(dir)) = (located.settings.enabled, located.settings.dir.as_deref()) {
        if let Err(e) = crate::log::append(&located.settings, dir, &record, deadline) {
            let _ = writeln!(err, "hookrules allow: decision log: {e}");
        }
    }
    let _ = writeln!(
        out,
        "allowed once, for {} min: {} `{}` (denied by {}) in {}.\nAsk the agent to run it again; the next identical call goes through, once.",
        located.settings.allow_minutes,
        p.tool,
        p.summary,
        p.rules.join(", "),
        located.project.display()
    );
    0
}
