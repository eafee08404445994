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
use crate::log::record::AllowNote;
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
    let ran = run_with(discovery, stdin, env, now, hint, false);
    (ran.answer, ran.decision)
}

/// What `run` did, for the after-answer phase (allow-once, the decision log).
#[derive(Debug)]
pub struct Ran {
    /// The answer.
    pub answer: Answer,
    /// The decision (None when no event could be evaluated).
    pub decision: Option<Decision>,
    /// The event, when it could be read.
    pub event: Option<Event>,
    /// The compiled set (its `[log]` tables and policy hash).
    pub set: Loaded,
    /// Allow-once: a code issued or an allowance used.
    pub allow: Option<AllowNote>,
    /// A code issued whose record is saved after the answer.
    pub issued: Option<crate::log::allow::Issued>,
}

/// `hookrules run` as the client runs it: [`run_with`], then allow-once (Claude
/// Code's PreToolUse): an allowance the user granted for exactly this call lifts
/// its deny (once), else the deny carries a code for the user. (`test`,
/// `explain` and the in-process callers of [`run`] leave allow-once out: it is
/// state, not policy.)
pub fn run_hook(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    hint: Hint<'_>,
    via_plugin: bool,
) -> Ran {
    let mut ran = run_with(discovery, stdin, env, now, hint, via_plugin);
    if let (Some(event), Some(decision)) = (&ran.event, &mut ran.decision) {
        if event.origin.host != Host::Claude {
            return ran;
        }
        let step = super::allow::on_decision(ran.set.log_tables(), event, env, decision);
        if step.note.is_some() || !step.warnings.is_empty() {
            let mut a = answer::render(event, decision);
            for w in step.warnings {
                if !a.stderr.is_empty() {
                    a.stderr.push('\n');
                }
                a.stderr.push_str(&format!("hookrules: {w}"));
            }
            ran.answer = a;
        }
        ran.allow = step.note;
        ran.issued = step.issued;
    }
    ran
}

/// After the answer is printed: the allow-once code's record, then the decision
/// log. Returns warnings for stderr.
pub fn after_answer(ran: &Ran, us: u64, env: &BTreeMap<String, String>) -> Vec<String> {
    let mut warnings = vec![];
    if let Some(issued) = &ran.issued {
        if let Err(e) = crate::log::allow::save(issued) {
            warnings.push(format!("allow-once code not saved: {e}"));
        }
    }
    let (Some(event), Some(decision)) = (&ran.event, &ran.decision) else {
        return warnings;
    };
    let answered = crate::log::Answered {
        event,
        decision,
        tables: ran.set.log_tables(),
        policy_hash: ran.set.policy_hash(),
        us,
        allow: ran.allow.clone(),
    };
    // The lock is only waited for this long; the line is written regardless.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(200);
    warnings.extend(crate::log::after_answer(&answered, env, deadline));
    warnings
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
) -> Ran {
    let set = artifact::load(discovery, env);
    let (answer, decision, event) =
        decide_input(discovery, &set, stdin, env, now, hint, via_plugin);
    Ran {
        answer,
        decision,
        event,
        set,
        allow: None,
        issued: None,
    }
}

fn decide_input(
    discovery: &Discovery,
    set: &Loaded,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    hint: Hint<'_>,
    via_plugin: bool,
) -> (Answer, Option<Decision>, Option<Event>) {
    let host = hint.host;
    let bytes = match Event::read(stdin) {
        Ok(b) => b,
        Err(e) => {
            return (
                input_failure(set, host, hint.event, &e.to_string()),
                None,
                None,
            )
        }
    };
    let event = match Event::parse_with(&bytes, hint) {
        Ok(ev) => ev,
        Err(e) => {
            let name = sniff_event_name(&bytes);
            let name = hint.event.or(name.as_deref()).map(str::to_string);
            return (
                input_failure(set, host, name.as_deref(), &e.to_string()),
                None,
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
                None,
            );
        }
    }
    // A panic anywhere below is a bug; it must still not wedge the session.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        answer(discovery, set, &event, env, now)
    }));
    match result {
        Ok((a, d)) => (a, Some(d), Some(event)),
        Err(_) => (
            input_failure(
                set,
                Some(event.origin.host),
                Some(&event.origin.event),
                "internal error (a bug in hookrules; please report it)",
            ),
            None,
            Some(event),
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
