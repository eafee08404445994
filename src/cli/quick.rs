//! Quick checks without hand-written JSON: `hookrules explain --bash CMD` (or
//! `--read`, `--write`, `--edit PATH`) and `hookrules test --bash CMD --expect
//! deny|ask|allow`. The call is built as the agent (`--host`, default Claude
//! Code) would send it from the current folder, recognised like any event,
//! and judged by the engine with the policies `run` finds here, in this
//! environment: what `run` would decide for that call in this project.

use crate::os::env::Env;
use std::io::Write;
use std::path::Path;

use crate::contract::hosts::call::{envelope, Call};
use crate::contract::hosts::{Hint, Host};
use crate::contract::Event;
use crate::os::files::lexical_normalize;
use crate::policy::discover::Discovery;
use crate::policy::syntax::DecisionKind;

/// The flags that name a call instead of a fixture.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct QuickArgs {
    /// A shell command, as the agent would run it from the current folder
    /// (instead of a fixture).
    #[arg(long, value_name = "CMD", group = "call")]
    pub bash: Option<String>,
    /// A file the agent would read (relative to the current folder).
    #[arg(long, value_name = "PATH", group = "call")]
    pub read: Option<String>,
    /// A file the agent would write.
    #[arg(long, value_name = "PATH", group = "call")]
    pub write: Option<String>,
    /// A file the agent would edit.
    #[arg(long, value_name = "PATH", group = "call")]
    pub edit: Option<String>,
    /// The agent sending the call: claude (default), codex, gemini, cursor,
    /// copilot, vscode; its own envelope, recognised and answered as `run`
    /// does for it.
    #[arg(long, value_name = "NAME", requires = "call")]
    pub host: Option<String>,
}

impl QuickArgs {
    /// The call the flags name, if any (clap lets through at most one).
    pub fn call(&self, cwd: &Path) -> Option<Call> {
        // As an agent sends it: absolute, `..` and `.` resolved in the text.
        let abs = |p: &String| lexical_normalize(&cwd.join(p)).display().to_string();
        if let Some(c) = &self.bash {
            return Some(Call::Bash(c.clone()));
        }
        if let Some(p) = &self.read {
            return Some(Call::Read(abs(p)));
        }
        if let Some(p) = &self.write {
            return Some(Call::Write(abs(p)));
        }
        self.edit.as_ref().map(|p| Call::Edit(abs(p)))
    }
}

/// The event for `call` from `host` in `cwd`.
pub fn event(call: &Call, host: Option<&str>, cwd: &Path) -> Result<Event, String> {
    let host = match host {
        None => Host::Claude,
        Some(h) => Host::parse(h).ok_or_else(|| {
            format!(
                "unknown --host `{h}`; one of: {}",
                Host::ALL.map(Host::name).join(", ")
            )
        })?,
    };
    let value = envelope(host, call, &cwd.display().to_string())?;
    Event::from_value_with(
        value,
        Hint {
            host: Some(host),
            event: None,
        },
    )
    .map_err(|e| e.to_string())
}

/// What `--expect` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Expected {
    /// Refused.
    Deny,
    /// The user is asked.
    Ask,
    /// Goes ahead: a rule allows it, or no rule objects.
    Allow,
}

impl Expected {
    fn holds(self, kind: Option<DecisionKind>) -> bool {
        match self {
            Expected::Deny => matches!(
                kind,
                Some(DecisionKind::Deny | DecisionKind::Block | DecisionKind::Stop)
            ),
            Expected::Ask => kind == Some(DecisionKind::Ask),
            Expected::Allow => matches!(kind, None | Some(DecisionKind::Allow)),
        }
    }
}

/// `hookrules test --bash CMD --expect X`: one line, exit 0 when the decision
/// is the one expected, 1 when not, 2 when the call cannot be built.
pub fn test(
    args: &QuickArgs,
    expect: Expected,
    discovery: &Discovery,
    env: &Env,
    cwd: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let Some(call) = args.call(cwd) else {
        let _ = writeln!(
            err,
            "hookrules test: --expect needs a call: --bash CMD, --read, --write or --edit PATH"
        );
        return 2;
    };
    let event = match event(&call, args.host.as_deref(), cwd) {
        Ok(e) => e,
        Err(e) => {
            let _ = writeln!(err, "hookrules test: {e}");
            return 2;
        }
    };
    let ex =
        super::explain::explanation(&event, discovery, env, crate::os::clock::Now::from_env(env));
    let d = &ex.decision;
    let got = match d.kind {
        None => "allow (no rule objects)".to_string(),
        Some(k) => format!("{} (by {})", k.as_str(), d.determined_by.join(", ")),
    };
    let host = args
        .host
        .as_deref()
        .map(|h| format!(" from {h}"))
        .unwrap_or_default();
    if expect.holds(d.kind) {
        let _ = writeln!(out, "ok     {}{host}: {got}", call.describe());
        0
    } else {
        let _ = writeln!(
            out,
            "FAIL   {}{host}: expected {}, got {got}",
            call.describe(),
            format!("{expect:?}").to_lowercase()
        );
        if let Some(r) = &d.reason {
            let _ = writeln!(out, "         {r}");
        }
        1
    }
}
