//! `hookrules run`: one event in, one answer out, in time.
//!
//! The order of work, all of it inside one [`Deadline`] below the client's
//! timeout for the event (see [`Budget`]):
//!
//! 1. load the policy set, read the event and judge it ([`super::judge`]):
//!    facts are cut to fit the deadline, and a [`Watchdog`] answers with the
//!    policies' failure mode if anything else stalls;
//! 2. allow-once (Claude Code's PreToolUse deny): an allowance the user granted
//!    for exactly this call lifts the deny, else the deny carries a code;
//! 3. print the answer, then close stdout: nothing after this can change it;
//! 4. the work after the answer, within what is left: the allow-once record and
//!    the decision log, then the side effects, whose failures are reported on
//!    stderr. Nothing after the answer decides whether or what the answer is.
//!
//! Never hangs, and a panic anywhere (a bug) still ends in the failure mode's
//! answer: the process's panic hook hands the answer for the event as known so
//! far to the watchdog, which prints it and ends the process
//! ([`deadline::on_panic`]); after the answer, the answer stands.
//!
//! Two entry points: [`process`] (the binary) and [`in_process`] (tests,
//! benches, the fuzzer: no watchdog, no allow-once, no log; [`in_process_with`]
//! judges many events against one loaded set).

use crate::os::env::Env;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{judge, Judged, Set, World};
use crate::answer::{self, Answer};
use crate::compile::Compiled;
use crate::contract::event::sniff_event_name;
use crate::contract::events::default_timeout_secs;
use crate::contract::hosts::{Hint, Host};
use crate::contract::Event;
use crate::decision::Decision;
use crate::effects;
use crate::eval::{trace::NoTrace, Ctx, Pending};
use crate::log::allow::Issued;
use crate::log::record::AllowNote;
use crate::os::clock::Now;
use crate::os::deadline::{self, Deadline, Reply, Watchdog};
use crate::os::process as os_process;
use crate::policy::discover::Discovery;
use crate::policy::syntax::{DecisionKind, FailureMode};

/// Where the answer's time budget comes from, in order:
/// `HOOKRULES_DEADLINE_MS` (exact, for tests and for users who know better),
/// `run --timeout SECONDS` (the `timeout` of the registration, which `init`
/// writes into the handler's arguments too), else the event's default timeout
/// ([`default_timeout_secs`]). A timeout becomes a budget less a margin
/// ([`deadline::budget_for_timeout`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Budget {
    /// No deadline (in-process callers: `test`, `explain`, the tests).
    Unlimited,
    /// Exactly this long.
    Exact(Duration),
    /// The client's timeout for this handler.
    Timeout(Duration),
    /// The event's default timeout.
    EventDefault,
}

impl Budget {
    /// From `run --timeout` and the environment.
    pub fn from_args(timeout_secs: Option<f64>, env: &Env) -> Budget {
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
                event.map(default_timeout_secs).unwrap_or(10),
            ))),
        }
    }
}

/// Finds the Claude Code settings file that already runs hookrules for an
/// event (given the environment and the event's name), if any.
pub type WiredFor = fn(&Env, &str) -> Option<PathBuf>;

/// How `hookrules run` was called.
#[derive(Debug, Clone, Copy, Default)]
pub struct Invocation<'a> {
    /// The agent and event named on the command line.
    pub hint: Hint<'a>,
    /// Called by the Claude Code plugin's launcher: how to find a settings layer
    /// that already runs hookrules for an event (the plugin then stays quiet,
    /// so the event is answered once). Where hookrules is wired is the
    /// installer's knowledge, so the command line passes it in.
    pub via_plugin: Option<WiredFor>,
    /// `--timeout SECONDS`.
    pub timeout_secs: Option<f64>,
    /// What the session is told once, at SessionStart (`systemMessage`):
    /// variables of hookrules' that a project file set, and that were ignored
    /// ([`crate::os::repo_env`]).
    pub notice: Option<&'a str>,
}

/// The watchdog and the clock it runs on: it learns the event and the failure
/// mode as they become known, so that what it prints if the deadline passes
/// (or a panic ends the run) is the right fail-closed (or fail-open) answer.
#[derive(Debug, Clone, Copy)]
struct Guard<'w> {
    /// The watchdog (None in-process).
    watchdog: Option<&'w Watchdog>,
    /// The budget.
    budget: Budget,
    /// When the process started.
    start: Instant,
}

impl Guard<'_> {
    /// No deadline, no watchdog.
    fn unlimited() -> Guard<'static> {
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
    fn learn(&self, mode: FailureMode, event: Option<&str>, origin: (Option<Host>, Option<&str>)) {
        let Some(w) = self.watchdog else { return };
        let deadline = self.deadline_for(event);
        w.set_deadline(deadline);
        let budget = self
            .budget
            .for_event(event)
            .map(|b| format!("{} ms", b.as_millis()))
            .unwrap_or_default();
        let msg = format!(
            "no answer within the deadline ({budget}{}, kept below the client's timeout so that this answer still arrives) or within the memory the process may use; the work that was still running was ended. `hookrules check` lists the commands a policy runs and their timeouts",
            event.map(|e| format!(" for {e}")).unwrap_or_default()
        );
        let a = rendering(|| failure_answer(mode, origin.0, origin.1, &msg));
        w.set_fallback(reply(&a));
        know(mode, origin.0, origin.1);
    }
}

/// Tell the panic hook the failure mode and the event as known so far.
fn know(mode: FailureMode, host: Option<Host>, event: Option<&str>) {
    if let Ok(mut known) = KNOWN.try_lock() {
        *known = Some(Known {
            mode,
            host,
            event: event.map(str::to_string),
        });
    }
}

/// What the panic hook knows of the run so far, to answer with.
struct Known {
    mode: FailureMode,
    host: Option<Host>,
    event: Option<String>,
}

/// The event and failure mode as far as known (set by [`Guard::learn`]).
static KNOWN: Mutex<Option<Known>> = Mutex::new(None);
/// Set while a failure answer is rendered: a panic there is answered with the
/// watchdog's ready-made fallback, not by rendering again.
static RENDERING: AtomicBool = AtomicBool::new(false);

fn rendering<R>(f: impl FnOnce() -> R) -> R {
    RENDERING.store(true, SeqCst);
    let r = f();
    RENDERING.store(false, SeqCst);
    r
}

/// Route every panic of `hookrules run` to the watchdog: the failure mode's
/// answer for the event as known so far (rendered here, outside any signal
/// handler), with the panic on stderr. See [`deadline::on_panic`].
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let note = format!(
            "hookrules: internal error (a bug in hookrules; please report it): {}",
            info.to_string().replace('\n', " ")
        );
        let known = if RENDERING.load(SeqCst) {
            None
        } else {
            KNOWN.try_lock().ok().and_then(|k| {
                k.as_ref().map(|k| {
                    failure_answer(
                        k.mode,
                        k.host,
                        k.event.as_deref(),
                        "internal error (a bug in hookrules; please report it)",
                    )
                })
            })
        };
        deadline::on_panic(known.as_ref().map(reply).as_ref(), &note);
        // No watchdog running: say it as the default hook would.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{note}\n").as_bytes());
    }));
}

/// For tests only: a panic at a named stage of `run`
/// (`HOOKRULES_TEST_PANIC=STAGE`), so that tests can prove every stage ends in
/// the failure mode's answer. Compiled into debug builds only: a release binary
/// has no such switch.
#[cfg(debug_assertions)]
fn inject(stage: &str, env: &Env) {
    if env.get("HOOKRULES_TEST_PANIC").is_some_and(|s| s == stage) {
        panic!("injected for a test at stage `{stage}`");
    }
}

#[cfg(not(debug_assertions))]
#[inline(always)]
fn inject(_: &str, _: &Env) {}

fn reply(a: &Answer) -> Reply {
    Reply {
        stdout: a.stdout.clone(),
        stderr: a.stderr.clone(),
        exit: a.exit,
    }
}

/// What `run` decided, and what is left to do once the answer is printed.
#[derive(Debug)]
struct Ran {
    /// What to print.
    answer: Answer,
    /// The decision (None when no event could be evaluated).
    decision: Option<Decision>,
    /// The event, when it could be read.
    event: Option<Event>,
    /// The policy set (its `[log]` tables and provenance).
    set: Set,
    /// The run's clock.
    now: Now,
    /// Allow-once: a code issued or an allowance used.
    allow: Option<AllowNote>,
    /// A code issued whose record is saved after the answer.
    issued: Option<Issued>,
    /// The side effects, for after the answer.
    after: AfterAnswer,
    /// Time spent in reads of stdin: waiting for the client to write the
    /// event is not hookrules' latency.
    stdin_wait: Duration,
}

/// A reader that adds up the time its reads take.
struct Waited<'a> {
    inner: &'a mut dyn Read,
    spent: Duration,
}

impl<'a> Waited<'a> {
    fn new(inner: &'a mut dyn Read) -> Waited<'a> {
        Waited {
            inner,
            spent: Duration::ZERO,
        }
    }
}

impl Read for Waited<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let t = Instant::now();
        let n = self.inner.read(buf);
        self.spent += t.elapsed();
        n
    }
}

/// The side effects, run after the answer is printed within what is left of the
/// deadline (see [`after_answer`] for the whole after-answer phase: allow-once,
/// the decision log, then these).
#[derive(Debug, Default)]
struct AfterAnswer {
    /// Side effects of the rules that contributed, in order.
    effects: Vec<Pending>,
    /// The evaluation context (project directory, environment) they run in.
    ctx: Option<Ctx>,
    /// The rules the event was evaluated with: freed after the answer (by
    /// `hookrules run`: at exit, see [`process`]).
    compiled: Option<Compiled>,
}

impl AfterAnswer {
    /// Run the side effects; return notes for stderr (failures, and what was
    /// cut short).
    fn run(&self, deadline: Deadline) -> Vec<String> {
        let mut notes = vec![];
        if let Some(ctx) = &self.ctx {
            inject("effects", &ctx.env_vars);
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

/// Answer one event read from `stdin` in this process, side effects included
/// (their failures are added to the answer's stderr); no watchdog, no
/// allow-once, no log. The decision is None when no event could be evaluated.
pub fn in_process(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &Env,
    now: Now,
    hint: Hint<'_>,
) -> (Answer, Option<Decision>) {
    inject("load", env);
    in_process_with(&Set::load(discovery, env), stdin, env, now, hint)
}

/// [`in_process`] with a set already loaded ([`Set::load`]): many events
/// judged against one set without loading it again for each (tests, benches).
pub fn in_process_with(
    set: &Set,
    stdin: &mut dyn Read,
    env: &Env,
    now: Now,
    hint: Hint<'_>,
) -> (Answer, Option<Decision>) {
    let inv = Invocation {
        hint,
        ..Invocation::default()
    };
    let (mut answer, decision, _, after) =
        decide_input(set, stdin, env, now, &inv, &Guard::unlimited());
    let notes = after.run(Deadline::none());
    if !notes.is_empty() {
        if !answer.stderr.is_empty() {
            answer.stderr.push('\n');
        }
        answer.stderr.push_str(&notes.join("\n"));
    }
    (answer, decision)
}

/// `hookrules run` as a process: judge under the watchdog, allow-once, print
/// the answer, close stdout, do the work after the answer, return the exit
/// status.
pub fn process(discovery: &Discovery, env: &Env, inv: Invocation<'_>) -> i32 {
    let start = Instant::now();
    crate::os::arena::start();
    os_process::become_subreaper();
    let provisional = Guard {
        watchdog: None,
        budget: Budget::from_args(inv.timeout_secs, env),
        start,
    };
    let watchdog = Watchdog::start(
        provisional.deadline_for(None),
        reply(&answer::fail_closed(
            inv.hint.host,
            inv.hint.event,
            "no answer within the deadline, before the event was read",
        )),
        os_process::end_all,
    );
    install_panic_hook();
    know(FailureMode::FailClosed, inv.hint.host, inv.hint.event);
    let guard = Guard {
        watchdog: Some(&watchdog),
        ..provisional
    };
    let now = Now::from_env(env);
    let mut ran = decide(
        discovery,
        &mut std::io::stdin().lock(),
        env,
        now,
        &inv,
        &guard,
    );
    allow_once(&mut ran, env);
    session_notice(&mut ran, inv.notice);
    // Under the plugin, nothing to say is `{}`: its launcher answers the
    // fail-closed answer itself when the binary it ran printed no JSON object
    // (a broken or substituted binary), so the genuine one always prints one.
    if inv.via_plugin.is_some() && ran.answer.exit == 0 && ran.answer.stdout.trim().is_empty() {
        ran.answer.stdout = "{}\n".into();
    }
    // The process ends right after: freeing the event's rules one allocation at
    // a time would cost more than evaluating a harmless command (~0.3M
    // instructions for the built-in pack, callgrind); exit returns the memory.
    let rules = ran.after.compiled.take();
    // The latency logged is the time hookrules took, not the time the client
    // took to write the event: from the start, less the reads of stdin.
    let us = start.elapsed().saturating_sub(ran.stdin_wait).as_micros() as u64;
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

/// Allow-once, Claude Code's PreToolUse deny only: an allowance the user
/// granted for exactly this call lifts its deny (once), else the deny carries a
/// code for the user. (`test`, `explain` and [`in_process`] leave it out: it is
/// state, not policy.)
fn allow_once(ran: &mut Ran, env: &Env) {
    inject("allow-once", env);
    let (Some(event), Some(decision), Some(ctx)) = (&ran.event, &mut ran.decision, &ran.after.ctx)
    else {
        return;
    };
    if event.origin.host != Host::Claude {
        return;
    }
    // A deny of the managed layer (its rules, or its failing closed) is the
    // administrator's: nobody below lifts it, not even once. (Pinned parts of
    // the pack follow `[log] allow_once`, which a managed policy sets last.)
    let managed = crate::policy::managed::is_managed_policy;
    let provenance = ran.set.provenance();
    if decision.policies.iter().any(|p| managed(p, provenance)) {
        return;
    }
    let step = crate::log::allow::on_decision(
        ran.set.log_tables(),
        event,
        &ctx.project_dir,
        ran.now.ms,
        env,
        decision,
    );
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

/// At SessionStart, tell the user `notice` (the client shows `systemMessage`
/// to the user; the model never sees it).
fn session_notice(ran: &mut Ran, notice: Option<&str>) {
    let (Some(notice), Some(event), Some(decision)) = (notice, &ran.event, &mut ran.decision)
    else {
        return;
    };
    if event.name != "SessionStart" {
        return;
    }
    decision.messages.push(notice.to_string());
    let mut a = answer::render(event, decision);
    if !ran.answer.stderr.is_empty() {
        a.stderr = std::mem::take(&mut ran.answer.stderr);
    }
    ran.answer = a;
}

/// After the answer is printed, within `deadline`: the allow-once code's
/// record, the decision log, then the side effects. `us`: how long the answer
/// took, for the log. Returns notes for stderr.
fn after_answer(ran: Ran, us: u64, env: &Env, deadline: Deadline) -> Vec<String> {
    let mut notes = vec![];
    if let Some(issued) = &ran.issued {
        if let Err(e) = crate::log::allow::save(issued) {
            notes.push(format!("hookrules: allow-once code not saved: {e}"));
        }
    }
    if let (Some(event), Some(decision), Some(ctx)) = (&ran.event, &ran.decision, &ran.after.ctx) {
        inject("log", env);
        let answered = crate::log::Answered {
            event,
            decision,
            project: &ctx.project_dir,
            now_ms: ran.now.ms,
            tables: ran.set.log_tables(),
            provenance: ran.set.provenance(),
            us,
            allow: ran.allow.clone(),
        };
        // The lock is only waited for this long (and never past the deadline);
        // the line is written regardless.
        let wait = deadline.cap(Duration::from_millis(200), Duration::ZERO).0;
        // The export (when on) waits this long at most for the spool's lock
        // (the delivery is a process of its own), cut to leave the side
        // effects their share of what is left.
        let export = deadline
            .cap(crate::log::export::BUDGET, deadline::reserve(&deadline))
            .0;
        let now = Instant::now();
        for w in crate::log::after_answer(&answered, env, now + wait, now + export) {
            notes.push(format!("hookrules: decision log: {w}"));
        }
    }
    notes.extend(ran.after.run(deadline));
    // The process ends right after (see `process`): nothing of the run is
    // freed, neither the set (~50k instructions for a cache file of 10,000
    // rules) nor the context, the event and the decision (~15k for a
    // harmless Bash; bench/callgrind.sh). Nothing in them holds a file,
    // a lock or a process: the effects have run, the log is written.
    std::mem::forget(ran);
    notes
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

/// Load the set, read the event and judge it, telling `guard` what it learns;
/// the side effects are left in [`Ran::after`].
fn decide(
    discovery: &Discovery,
    stdin: &mut dyn Read,
    env: &Env,
    now: Now,
    inv: &Invocation<'_>,
    guard: &Guard,
) -> Ran {
    inject("load", env);
    let set = Set::load(discovery, env);
    let hint = inv.hint;
    guard.learn(set.failure(), None, (hint.host, hint.event));
    let mut stdin = Waited::new(stdin);
    let (answer, decision, event, after) =
        decide_input(&set, &mut stdin, env, now.clone(), inv, guard);
    Ran {
        stdin_wait: stdin.spent,
        answer,
        decision,
        event,
        set,
        now,
        allow: None,
        issued: None,
        after,
    }
}

/// What deciding one input produced.
type Decided = (Answer, Option<Decision>, Option<Event>, AfterAnswer);

fn decide_input(
    set: &Set,
    stdin: &mut dyn Read,
    env: &Env,
    now: Now,
    inv: &Invocation<'_>,
    guard: &Guard,
) -> Decided {
    let hint = inv.hint;
    let host = hint.host;
    let failed = |answer: Answer| (answer, None, None, AfterAnswer::default());
    inject("read", env);
    let bytes = match Event::read(stdin) {
        Ok(b) => b,
        Err(e) => return failed(input_failure(set, host, hint.event, &e.to_string())),
    };
    inject("host", env);
    let event = match Event::parse_with(&bytes, hint) {
        Ok(ev) => ev,
        Err(e) => {
            let name = sniff_event_name(&bytes);
            let name = hint.event.or(name.as_deref()).map(str::to_string);
            return failed(input_failure(set, host, name.as_deref(), &e.to_string()));
        }
    };
    // The text is parsed: its memory (up to 256 MiB) goes back before evaluating,
    // which may need as much again under a memory limit (`ulimit -v`).
    drop(bytes);
    if let (Some(wired), Host::Claude) = (inv.via_plugin, event.origin.host) {
        if let Some(path) = wired(env, &event.name) {
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
        set.failure(),
        Some(&event.name),
        (Some(event.origin.host), Some(&event.origin.event)),
    );
    let world = World {
        deadline: guard.deadline_for(Some(&event.name)),
        ..World::new(env, now)
    };
    // A panic below is a bug; it must still not wedge the session. In the
    // process, the panic hook answers first; in-process, this does.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        inject("evaluate", env);
        judge(set, &event, world, &mut NoTrace)
    }));
    match result {
        Ok(Judged {
            decision,
            answer,
            effects,
            ctx,
            compiled,
        }) => (
            answer,
            Some(decision),
            Some(event),
            AfterAnswer {
                effects,
                ctx: Some(ctx),
                compiled: Some(compiled),
            },
        ),
        Err(_) => failed(input_failure(
            set,
            Some(event.origin.host),
            Some(&event.origin.event),
            "internal error (a bug in hookrules; please report it)",
        )),
    }
}

/// `event_name` is the agent's own name for the event, when it can be read.
fn input_failure(set: &Set, host: Option<Host>, event_name: Option<&str>, msg: &str) -> Answer {
    failure_answer(set.failure(), host, event_name, msg)
}

fn failure_answer(
    mode: FailureMode,
    host: Option<Host>,
    event_name: Option<&str>,
    msg: &str,
) -> Answer {
    match mode {
        FailureMode::FailOpen => answer::fail_open(msg),
        FailureMode::FailClosed => answer::fail_closed(host, event_name, msg),
    }
}
