//! `hookrules run`: one event in, one answer out, in time.
//!
//! The order of work, all of it inside one [`Deadline`] below the client's
//! timeout for the event (see [`Budget`]):
//!
//! 1. read the event and decide ([`decide`]): facts are cut to fit the deadline,
//!    and a [`Watchdog`] answers with the policies' failure mode if anything else
//!    stalls;
//! 2. print the answer, then close stdout: nothing after this can change it;
//! 3. the work after the answer ([`after_answer`]), within what is left: the
//!    allow-once record and the decision log, then the side effects, whose
//!    failures are reported on stderr. Nothing after the answer decides whether
//!    or what the answer is.
//!
//! Never panics, never hangs; every failure goes through the failure mode.

use std::collections::BTreeMap;
use std::io::Read;
use std::time::{Duration, Instant};

use crate::answer::{self, Answer};
use crate::compile::artifact::{self, Loaded};
use crate::contract::event::sniff_event_name;
use crate::contract::hosts::{Hint, Host};
use crate::contract::Event;
use crate::decision::Decision;
use crate::effects;
use crate::eval::{self, trace::NoTrace, Ctx, Pending};
use crate::log::record::AllowNote;
use crate::os::clock::Now;
use crate::os::deadline::{self, Deadline, Reply, Watchdog};
use crate::os::process;
use crate::policy::discover::Discovery;
use crate::policy::syntax::{DecisionKind, FailureMode};

/// Where the answer's time budget comes from, in order:
/// `HOOKRULES_DEADLINE_MS` (exact, for tests and for users who know better),
/// `run --timeout SECONDS` (the `timeout` of the registration, which `init`
/// writes into the handler's arguments too), else the timeout `init` registers
/// for the event by default ([`crate::cli::init::timeout_for`]). A timeout
/// becomes a budget less a margin ([`deadline::budget_for_timeout`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// No deadline (in-process callers: `test`, `explain`, the tests).
    Unlimited,
    /// Exactly this long.
    Exact(Duration),
    /// The client's timeout for this handler.
    Timeout(Duration),
    /// The timeout `init` registers for the event.
    EventDefault,
}

impl Budget {
    /// From `run --timeout` and the environment.
    pub fn from_args(timeout_secs: Option<f64>, env: &BTreeMap<String, String>) -> Budget {
        if let Some(ms) = env
            .get("HOOKRULES_DEADLINE_MS")
            .and_then(|s| s.trim().parse::<u64>().ok())
        {
            return Budget::Exact(Duration::from_millis(ms));
        }
        match timeout_secs.filter(|s| s.is_finite() && *s > 0.0) {
            Some(s) => Budget::Timeout(Duration::from_secs_f64(s.min(86_400.0))),
            None => Budget::EventDefault,
        }
    }

    /// The budget for an event (None: not known yet; the shortest default applies).
    pub fn for_event(&self, event: Option<&str>) -> Option<Duration> {
        match self {
            Budget::Unlimited => None,
            Budget::Exact(d) => Some(*d),
            Budget::Timeout(t) => Some(deadline::budget_for_timeout(*t)),
            Budget::EventDefault => Some(deadline::budget_for_timeout(Duration::from_secs(
                event.map(crate::cli::init::timeout_for).unwrap_or(10),
            ))),
        }
    }
}

/// The watchdog and the clock it runs on, for [`decide`]: it learns the event and
/// the failure mode as they become known, so that what it prints if the deadline
/// passes is the right fail-closed (or fail-open) answer.
#[derive(Debug, Clone, Copy)]
pub struct Guard<'w> {
    /// The watchdog (None in-process).
    pub watchdog: Option<&'w Watchdog>,
    /// The budget.
    pub budget: Budget,
    /// When the process started.
    pub start: Instant,
}

impl Guard<'_> {
    /// No deadline, no watchdog.
    pub fn unlimited() -> Guard<'static> {
        Guard {
            watchdog: None,
            budget: Budget::Unlimited,
            start: Instant::now(),
        }
    }

    fn deadline_for(&self, event: Option<&str>) -> Deadline {
        match self.budget.for_event(event) {
            Some(b) => Deadline::at(self.start, b),
            None => Deadline::none(),
        }
    }

    /// `event`: the canonical event name (for the budget); `origin`: the agent
    /// and its own name for the event (for the answer's shape).
    fn learn(
        &self,
        set: Option<&Loaded>,
        event: Option<&str>,
        origin: (Option<Host>, Option<&str>),
    ) {
        let Some(w) = self.watchdog else { return };
        let deadline = self.deadline_for(event);
        w.set_deadline(deadline);
        let budget = self
            .budget
            .for_event(event)
            .map(|b| format!("{} ms", b.as_millis()))
            .unwrap_or_default();
        let msg = format!(
            "no answer within the deadline ({budget}{}, kept below the client's timeout so that this answer still arrives); the work that was still running was ended. `hookrules check` lists the commands a policy runs and their timeouts",
            event.map(|e| format!(" for {e}")).unwrap_or_default()
        );
        let a = match set.map(Loaded::failure) {
            Some(FailureMode::FailOpen) => answer::fail_open(&msg),
            _ => answer::fail_closed(origin.0, origin.1, &msg),
        };
        w.set_fallback(reply(&a));
    }
}

fn reply(a: &Answer) -> Reply {
    Reply {
        stdout: a.stdout.clone(),
        stderr: a.stderr.clone(),
        exit: a.exit,
    }
}

/// What `run` decided, and what is left to do once the answer is printed.
#[derive(Debug)]
pub struct Ran {
    /// What to print.
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
    /// The side effects, for after the answer.
    pub after: AfterAnswer,
}

/// The side effects, run after the answer is printed within what is left of the
/// deadline (see [`after_answer`] for the whole after-answer phase: allow-once,
/// the decision log, then these). A new step after the answer takes the
/// deadline and returns notes for stderr, and goes into [`after_answer`].
#[derive(Debug, Default)]
pub struct AfterAnswer {
    /// Side effects of the rules that contributed, in order.
    pub effects: Vec<Pending>,
    /// The evaluation context (project directory, environment) they run in.
    pub ctx: Option<Ctx>,
    /// The rules the event was evaluated with: freed after the answer (by
    /// `hookrules run`: at exit, see [`main`]).
    pub compiled: Option<crate::compile::Compiled>,
}

impl AfterAnswer {
    /// Run the steps; return notes for stderr (failures, and what was cut short).
    pub fn run(self, deadline: Deadline) -> Vec<String> {
        let mut notes = vec![];
        if let Some(ctx) = &self.ctx {
            for f in effects::apply(&self.effects, ctx, deadline) {
                let mode = match f.failure {
                    FailureMode::FailOpen => "fail-open",
                    FailureMode::FailClosed => "fail-closed",
                };
                notes.push(format!(
                    "hookrules: effect of rule `{}` failed: {} (policy `{}`, {mode}; effects run after the answer, which they cannot change)",
                    f.rule, f.error, f.policy
                ));
            }
        }
        notes
    }
}

/// Answer one event read from `stdin`, side effects included (in-process use).
pub fn run(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
) -> Answer {
    run_detailed(discovery, stdin, env, now).0
}

/// [`run`], also returning the decision (None when no event could be evaluated).
/// Side effects run after the decision, as in `hookrules run`; their failures
/// are added to the answer's stderr.
pub fn run_detailed(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
) -> (Answer, Option<Decision>) {
    run_hinted(discovery, stdin, env, now, Hint::default())
}

/// [`run_detailed`] for an agent named on the command line (`--host`, `--event`).
/// Side effects run after the decision, as in `hookrules run`; their failures
/// are added to the answer's stderr.
pub fn run_hinted(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    hint: Hint<'_>,
) -> (Answer, Option<Decision>) {
    let ran = run_with(discovery, stdin, env, now, hint, false);
    let (mut answer, decision) = (ran.answer, ran.decision);
    let notes = ran.after.run(Deadline::none());
    if !notes.is_empty() {
        if !answer.stderr.is_empty() {
            answer.stderr.push('\n');
        }
        answer.stderr.push_str(&notes.join("\n"));
    }
    (answer, decision)
}

/// [`run_hinted`]; `via_plugin`: called by the Claude Code plugin's launcher,
/// which stays quiet when a settings layer already runs hookrules for the event.
/// The side effects are left in [`Ran::after`].
pub fn run_with(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    hint: Hint<'_>,
    via_plugin: bool,
) -> Ran {
    let inv = Invocation {
        hint,
        via_plugin,
        timeout_secs: None,
    };
    decide(discovery, stdin, env, now, &inv, &Guard::unlimited())
}

/// `hookrules run` as the client runs it: [`decide`], then allow-once (Claude
/// Code's PreToolUse): an allowance the user granted for exactly this call lifts
/// its deny (once), else the deny carries a code for the user. (`test`,
/// `explain` and the in-process callers of [`run`] leave allow-once out: it is
/// state, not policy.)
pub fn run_hook(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    inv: &Invocation<'_>,
    guard: &Guard,
) -> Ran {
    let mut ran = decide(discovery, stdin, env, now, inv, guard);
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

/// After the answer is printed, within `deadline`: the allow-once code's
/// record, the decision log, then the side effects. `us`: how long the answer
/// took, for the log. Returns notes for stderr.
pub fn after_answer(
    ran: Ran,
    us: u64,
    env: &BTreeMap<String, String>,
    deadline: Deadline,
) -> Vec<String> {
    let mut notes = vec![];
    if let Some(issued) = &ran.issued {
        if let Err(e) = crate::log::allow::save(issued) {
            notes.push(format!("hookrules: allow-once code not saved: {e}"));
        }
    }
    if let (Some(event), Some(decision)) = (&ran.event, &ran.decision) {
        let answered = crate::log::Answered {
            event,
            decision,
            tables: ran.set.log_tables(),
            provenance: ran.set.provenance(),
            us,
            allow: ran.allow.clone(),
        };
        // The lock is only waited for this long (and never past the deadline);
        // the line is written regardless.
        let wait = deadline
            .cap(
                std::time::Duration::from_millis(200),
                std::time::Duration::ZERO,
            )
            .0;
        for w in crate::log::after_answer(&answered, env, Instant::now() + wait) {
            notes.push(format!("hookrules: decision log: {w}"));
        }
    }
    notes.extend(ran.after.run(deadline));
    notes
}

/// How `hookrules run` was called.
#[derive(Debug, Clone, Copy, Default)]
pub struct Invocation<'a> {
    /// The agent and event named on the command line.
    pub hint: Hint<'a>,
    /// Called by the Claude Code plugin's launcher.
    pub via_plugin: bool,
    /// `--timeout SECONDS`.
    pub timeout_secs: Option<f64>,
}

/// `hookrules run` as a process: decide under the watchdog, print the answer,
/// close stdout, do the work after the answer, return the exit status.
pub fn main(
    discovery: &Discovery,
    env: &BTreeMap<String, String>,
    now: Now,
    inv: Invocation<'_>,
) -> i32 {
    let start = Instant::now();
    crate::os::arena::start();
    process::become_subreaper();
    let guard_budget = Budget::from_args(inv.timeout_secs, env);
    let provisional = Guard {
        watchdog: None,
        budget: guard_budget,
        start,
    };
    let watchdog = Watchdog::start(
        provisional.deadline_for(None),
        reply(&answer::fail_closed(
            inv.hint.host,
            inv.hint.event,
            "no answer within the deadline, before the event was read",
        )),
        process::end_all,
    );
    let guard = Guard {
        watchdog: Some(&watchdog),
        ..provisional
    };
    let mut ran = run_hook(
        discovery,
        &mut std::io::stdin().lock(),
        env,
        now,
        &inv,
        &guard,
    );
    // The process ends right after: freeing the event's rules one allocation at
    // a time would cost more than evaluating a harmless command (~0.3M
    // instructions for the built-in pack, callgrind); exit returns the memory.
    let rules = ran.after.compiled.take();
    let us = start.elapsed().as_micros() as u64;
    let mut exit = ran.answer.exit;
    if let Err(e) = watchdog.answer(&reply(&ran.answer)) {
        exit = unwritten_exit(ran.decision.as_ref());
        watchdog.set_exit(exit);
        let reason = ran
            .decision
            .as_ref()
            .and_then(|d| d.reason.clone())
            .unwrap_or_default();
        stderr_line(&format!(
            "hookrules: the answer could not be written to stdout ({e}); exit {exit}{}",
            if reason.is_empty() {
                String::new()
            } else {
                format!(". {reason}")
            }
        ));
    }
    deadline::close_stdout();
    for note in after_answer(ran, us, env, watchdog.deadline()) {
        stderr_line(&note);
    }
    watchdog.finish();
    std::mem::forget(rules);
    exit
}

/// The exit status when the answer could not be written: 2 where the answer
/// would have stopped something (the client then blocks, with stderr as the
/// reason), else 1 (a non-blocking error the user sees).
fn unwritten_exit(decision: Option<&Decision>) -> i32 {
    match decision.and_then(|d| d.kind) {
        Some(DecisionKind::Deny | DecisionKind::Block | DecisionKind::Ask | DecisionKind::Stop) => {
            2
        }
        _ => 1,
    }
}

fn stderr_line(s: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{s}");
}

/// Read the event and decide, telling `guard` what it learns; the side effects
/// are left in [`Decided::after`].
pub fn decide(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    inv: &Invocation<'_>,
    guard: &Guard,
) -> Ran {
    let set = artifact::load(discovery, env);
    let hint = inv.hint;
    guard.learn(Some(&set), None, (hint.host, hint.event));
    let (answer, decision, event, after) =
        decide_input(discovery, &set, stdin, env, now, inv, guard);
    Ran {
        answer,
        decision,
        event,
        set,
        allow: None,
        issued: None,
        after,
    }
}

/// What deciding one input produced.
type Decided = (Answer, Option<Decision>, Option<Event>, AfterAnswer);

fn decide_input(
    discovery: &Discovery,
    set: &Loaded,
    stdin: &mut dyn Read,
    env: &BTreeMap<String, String>,
    now: Now,
    inv: &Invocation<'_>,
    guard: &Guard,
) -> Decided {
    let hint = inv.hint;
    let host = hint.host;
    let failed = |answer: Answer| (answer, None, None, AfterAnswer::default());
    let bytes = match Event::read(stdin) {
        Ok(b) => b,
        Err(e) => return failed(input_failure(set, host, hint.event, &e.to_string())),
    };
    let event = match Event::parse_with(&bytes, hint) {
        Ok(ev) => ev,
        Err(e) => {
            let name = sniff_event_name(&bytes);
            let name = hint.event.or(name.as_deref()).map(str::to_string);
            return failed(input_failure(set, host, name.as_deref(), &e.to_string()));
        }
    };
    if inv.via_plugin && event.origin.host == Host::Claude {
        if let Some(path) = crate::cli::wiring::settings_answer(env, &event.name) {
            let note = format!(
                "hookrules plugin: {} already runs hookrules for {}; the plugin stays quiet so the event is answered once",
                path.display(),
                event.name
            );
            return failed(Answer {
                stdout: String::new(),
                stderr: note,
                exit: 0,
            });
        }
    }
    guard.learn(
        Some(set),
        Some(&event.name),
        (Some(event.origin.host), Some(&event.origin.event)),
    );
    let deadline = guard.deadline_for(Some(&event.name));
    // A panic anywhere below is a bug; it must still not wedge the session.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        evaluate(discovery, set, &event, env, now, deadline)
    }));
    match result {
        Ok((answer, decision, after)) => (answer, Some(decision), Some(event), after),
        Err(_) => failed(input_failure(
            set,
            Some(event.origin.host),
            Some(&event.origin.event),
            "internal error (a bug in hookrules; please report it)",
        )),
    }
}

fn evaluate(
    discovery: &Discovery,
    set: &Loaded,
    event: &Event,
    env: &BTreeMap<String, String>,
    now: Now,
    deadline: Deadline,
) -> (Answer, Decision, AfterAnswer) {
    let rebuild = || crate::compile::set::CompiledSet::build(&discovery.find());
    let mut ctx = Ctx::from_env(event, env.clone(), now);
    ctx.deadline = deadline;
    let compiled = set.for_event(event, &rebuild, &ctx);
    let mut outcome = eval::evaluate(&compiled, event, &ctx, &mut NoTrace);
    let decision = crate::decision::decide(&outcome);
    let effects = std::mem::take(&mut outcome.effects);
    (
        answer::render(event, &decision),
        decision,
        AfterAnswer {
            effects,
            ctx: Some(ctx),
            compiled: Some(compiled),
        },
    )
}

/// `event_name` is the agent's own name for the event, when it can be read.
fn input_failure(set: &Loaded, host: Option<Host>, event_name: Option<&str>, msg: &str) -> Answer {
    match set.failure() {
        FailureMode::FailOpen => answer::fail_open(msg),
        FailureMode::FailClosed => answer::fail_closed(host, event_name, msg),
    }
}
