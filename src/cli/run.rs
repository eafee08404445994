//! `hookrules run`: one event in, one answer out. Never panics, never hangs on
//! its own account; every failure goes through the policies' failure mode.

use std::collections::BTreeMap;
use std::io::Read;

use crate::answer::{self, Answer};
use crate::compile::artifact::{self, Loaded};
use crate::contract::event::sniff_event_name;
use crate::contract::events::Blocking;
use crate::contract::hosts::{Hint, Host};
use crate::contract::Event;
use crate::decision::Decision;
use crate::effects;
use crate::eval::{self, trace::NoTrace, Ctx};
use crate::os::clock::Now;
use crate::policy::discover::Discovery;
use crate::policy::syntax::{DecisionKind, FailureMode};

/// Answer one event read from `stdin`.
pub fn run(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
) -> Answer {
    run_detailed(discovery, stdin, env, now).0
}

/// [`run`], also returning the decision (None when no event could be evaluated).
pub fn run_detailed(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
) -> (Answer, Option<Decision>) {
    run_hinted(discovery, stdin, env, now, Hint::default())
}

/// [`run_detailed`] for an agent named on the command line (`--host`, `--event`).
pub fn run_hinted(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    hint: Hint<'_>,
) -> (Answer, Option<Decision>) {
    run_with(discovery, stdin, env, now, hint, false)
}

/// [`run_hinted`]; `via_plugin`: called by the Claude Code plugin's launcher,
/// which stays quiet when a settings layer already runs hookrules for the event.
pub fn run_with(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    hint: Hint<'_>,
    via_plugin: bool,
) -> (Answer, Option<Decision>) {
    let set = artifact::load(discovery, env);
    let host = hint.host;
    let bytes = match Event::read(stdin) {
        Ok(b) => b,
        Err(e) => return (input_failure(&set, host, hint.event, &e.to_string()), None),
    };
    let event = match Event::parse_with(&bytes, hint) {
        Ok(ev) => ev,
        Err(e) => {
            let name = sniff_event_name(&bytes);
            let name = hint.event.or(name.as_deref()).map(str::to_string);
            return (
                input_failure(&set, host, name.as_deref(), &e.to_string()),
                None,
            );
        }
    };
    if via_plugin && event.origin.host == Host::Claude {
        if let Some(path) = crate::cli::wiring::settings_answer(env, &event.name) {
            let note = format!(
                "hookrules plugin: {} already runs hookrules for {}; the plugin stays quiet so the event is answered once",
                path.display(),
                event.name
            );
            return (
                Answer {
                    stdout: String::new(),
                    stderr: note,
                    exit: 0,
                },
                None,
            );
        }
    }
    // A panic anywhere below is a bug; it must still not wedge the session.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        answer(discovery, &set, &event, env, now)
    }));
    match result {
        Ok((a, d)) => (a, Some(d)),
        Err(_) => (
            input_failure(
                &set,
                Some(event.origin.host),
                Some(&event.origin.event),
                "internal error (a bug in hookrules; please report it)",
            ),
            None,
        ),
    }
}

fn answer(
    discovery: &Discovery,
    set: &Loaded,
    event: &Event,
    env: &BTreeMap<String, String>,
    now: Now,
) -> (Answer, Decision) {
    let rebuild = || crate::compile::set::CompiledSet::build(&discovery.find());
    let compiled = set.for_event(event, &rebuild);
    let ctx = Ctx::from_env(event, env.clone(), now);
    let outcome = eval::evaluate(&compiled, event, &ctx, &mut NoTrace);
    let mut decision = crate::decision::decide(&outcome);
    for f in effects::apply(&outcome.effects, &ctx) {
        let msg = format!("effect of rule `{}` failed: {}", f.rule, f.error);
        match f.failure {
            FailureMode::FailOpen => decision.errors.push(format!(
                "{msg} (policy `{}` is fail-open: ignored)",
                f.policy
            )),
            FailureMode::FailClosed => block_for_failure(&mut decision, event, &msg, &f.policy),
        }
    }
    (answer::render(event, &decision), decision)
}

/// A fail-closed effect failure makes the outcome a block (where the event can be blocked).
fn block_for_failure(d: &mut crate::decision::Decision, event: &Event, msg: &str, policy: &str) {
    let kind = if event.spec.blocking == Blocking::TopLevel {
        DecisionKind::Block
    } else {
        DecisionKind::Deny
    };
    if crate::decision::strictness(d.kind) < crate::decision::strictness(Some(kind)) {
        d.kind = Some(kind);
        d.reason = None;
        d.rewrite.clear();
    }
    let text = format!("hookrules: {msg}. Policy `{policy}` is fail-closed.");
    d.reason = Some(match d.reason.take() {
        Some(r) => format!("{r}\n{text}"),
        None => text,
    });
    d.determined_by.push(format!("{policy}:effect-failure"));
}

/// `event_name` is the agent's own name for the event, when it can be read.
fn input_failure(set: &Loaded, host: Option<Host>, event_name: Option<&str>, msg: &str) -> Answer {
    match set.failure() {
        FailureMode::FailOpen => answer::fail_open(msg),
        FailureMode::FailClosed => answer::fail_closed(host, event_name, msg),
    }
}
