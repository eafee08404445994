//! Stage 9: the engine, the pipeline assembled once.
//!
//! One event is judged in one place, [`judge`]: the rules the event reaches
//! ([`Set`]), the context it is evaluated in (the project, the environment, the
//! clock, the deadline), evaluation with a tracer, the decision and the answer
//! the client reads. `hookrules run` ([`run`]), `explain`, `test`, `check`,
//! `doctor` and `replay` all call it, so none of them can decide an event
//! differently from the others; they differ only in the tracer they pass (a
//! recording one for `explain`) and in what they do with the result.
//!
//! Imports every stage above it (policy discovery, compile, eval, decision,
//! answer, effects, log) and the shared ground; only [`crate::cli`] imports it.

pub mod run;

use crate::os::env::Env;

use crate::answer::{self, Answer};
use crate::compile::artifact::{self, Loaded};
use crate::compile::provenance::Provenance;
use crate::compile::set::{CompiledSet, Query};
use crate::compile::Compiled;
use crate::contract::Event;
use crate::decision::{self, Decision};
use crate::eval::trace::{Step, Tracer};
use crate::eval::{self, Ctx, Pending};
use crate::os::clock::Now;
use crate::os::deadline::Deadline;
use crate::policy::discover::{Discovery, Found};
use crate::policy::log::LogTable;
use crate::policy::syntax::FailureMode;

/// The policy set events are judged with.
#[derive(Debug)]
pub struct Set {
    loaded: Loaded,
    /// Where a stored set's policies are found again, should one of its records
    /// not verify (a set built in this process never needs it).
    rebuild_from: Discovery,
}

impl Set {
    /// The set `run` uses: the built-in pack embedded in the binary, or a
    /// verified compiled set from the cache, else compiled now (and cached).
    pub fn load(discovery: &Discovery, env: &Env) -> Set {
        Set {
            loaded: artifact::load(discovery, env),
            rebuild_from: discovery.clone(),
        }
    }

    /// The policies `discovery` finds, compiled now (`explain`, `test`,
    /// `doctor`, `replay`: no cache is read or written).
    pub fn build(discovery: &Discovery) -> Set {
        Set::from_found(&discovery.find())
    }

    /// Policies already found, compiled now (`check`).
    pub fn from_found(found: &Found) -> Set {
        Set {
            loaded: Loaded::Built(Box::new(CompiledSet::build(found))),
            rebuild_from: Discovery::default(),
        }
    }

    /// The failure mode when no event can be evaluated.
    pub fn failure(&self) -> FailureMode {
        self.loaded.failure()
    }

    /// The `[log]` tables of the set, in load order.
    pub fn log_tables(&self) -> &[LogTable] {
        self.loaded.log_tables()
    }

    /// The policy set's hash and bundles (what the log records with a decision).
    pub fn provenance(&self) -> &Provenance {
        self.loaded.provenance()
    }

    /// The compiled set itself.
    pub fn loaded(&self) -> &Loaded {
        &self.loaded
    }

    /// The rules one event reaches: prefiltered for a judgement, every rule in
    /// scope (with why the index leaves some out) for an explanation.
    fn for_event(&self, event: &Event, ctx: &Ctx, explain: bool) -> Compiled {
        let rebuild = || CompiledSet::build(&self.rebuild_from.find());
        if explain {
            let query = Query {
                prefilter: false,
                explain: true,
            };
            return match &self.loaded {
                Loaded::Built(s) => s.for_event(event, query),
                Loaded::Stored(_) => rebuild().for_event(event, query),
            };
        }
        self.loaded.for_event(event, &rebuild, ctx)
    }
}

/// What a judgement may know about the world besides the event.
#[derive(Debug, Clone)]
pub struct World<'a> {
    /// The environment the client gave the hook.
    pub env: &'a Env,
    /// The clock.
    pub now: Now,
    /// The answer's deadline: command facts are cut to fit it.
    pub deadline: Deadline,
    /// Whether `command` facts run (`check`'s probes run none).
    pub run_commands: bool,
}

impl<'a> World<'a> {
    /// `env` at `now`, with no deadline, commands run.
    pub fn new(env: &'a Env, now: Now) -> World<'a> {
        World {
            env,
            now,
            deadline: Deadline::none(),
            run_commands: true,
        }
    }
}

/// One event judged.
#[derive(Debug)]
pub struct Judged {
    /// The decision, with its reasons.
    pub decision: Decision,
    /// What the client reads (stdout, stderr, exit status).
    pub answer: Answer,
    /// The side effects the contributing rules ask for, in order (run after the
    /// answer by `run`; listed by `explain`).
    pub effects: Vec<Pending>,
    /// The context the event was evaluated in (its project, environment, clock).
    pub ctx: Ctx,
    /// The rules the event reached.
    pub compiled: Compiled,
}

/// A rewrite of `tool_input` that a rule outside the managed layer proposed is
/// judged again by the managed layer, since the tool would run with the
/// rewritten input, which the managed rules never saw. When a managed rule asks
/// or denies (or stricter) on it, that stands beside the first judgement (the
/// strictest wins, and an outcome that stops the tool drops the rewrite).
/// Empty: nothing to judge again (no rewrite, only the managed layer's own, or
/// no managed layer), or nothing stricter than allow said about the rewrite.
fn managed_judge_rewrite(
    set: &Set,
    event: &Event,
    ctx: &Ctx,
    outcome: &eval::Outcome,
    first: &Decision,
) -> Vec<eval::Contribution> {
    use crate::policy::managed::is_managed_policy;
    if first.rewrite.is_empty() {
        return vec![];
    }
    let provenance = set.provenance();
    let managed = |policy: &str| is_managed_policy(policy, provenance);
    let from_below = outcome
        .contributions
        .iter()
        .any(|c| !c.rewrite.is_empty() && !managed(&c.policy));
    if !from_below
        || !provenance
            .bundles
            .iter()
            .any(|b| b.layer == crate::source::Layer::Managed)
    {
        return vec![];
    }
    let Some(input) = answer::rewritten_input(event, first) else {
        return vec![];
    };
    let mut value = event.value.clone();
    value["tool_input"] = input;
    let rewritten = Event {
        value,
        ..event.clone()
    };
    let by: Vec<&str> = outcome
        .contributions
        .iter()
        .filter(|c| !c.rewrite.is_empty())
        .map(|c| c.rule.as_str())
        .collect();
    let note = format!("the input as rule {} rewrote it", by.join(", "));
    stricter_on(set, &rewritten, ctx, &managed, &note)
}

/// An MCP tool that is a shell or a local file tool is judged as the built-in
/// calls it stands for too ([`crate::contract::stand_in`]): what the rules
/// say about those calls, stricter than allow, stands beside the first
/// judgement (the strictest wins). Empty: the tool stands for nothing, or
/// nothing stricter than allow was said about what it stands for.
fn stand_in_judge(set: &Set, event: &Event, ctx: &Ctx) -> Vec<eval::Contribution> {
    let tool = event.str("tool_name").unwrap_or_default();
    let mut stricter = vec![];
    for other in crate::contract::stand_in::stand_ins(event) {
        let name = other.str("tool_name").unwrap_or_default();
        let note = format!("{tool} does what {name} does, and was judged as that call");
        stricter.extend(stricter_on(set, &other, ctx, &|_| true, &note));
    }
    stricter
}

/// What the rules of the policies `keep` accepts say about `other` (an event
/// judged beside the first: its input as rewritten, or the call it stands
/// for), stricter than allow, each reason followed by `note`.
fn stricter_on(
    set: &Set,
    other: &Event,
    ctx: &Ctx,
    keep: &dyn Fn(&str) -> bool,
    note: &str,
) -> Vec<eval::Contribution> {
    let mut again_ctx = Ctx::from_env(other, ctx.env_vars.clone(), ctx.now.clone());
    again_ctx.deadline = ctx.deadline;
    again_ctx.run_commands = ctx.run_commands;
    let compiled = set.for_event(other, &again_ctx, false);
    let again = eval::evaluate(&compiled, other, &again_ctx, &mut eval::trace::NoTrace);
    again
        .contributions
        .into_iter()
        .filter(|c| !c.audit && keep(&c.policy))
        .filter(|c| {
            decision::strictness(c.decision)
                > decision::strictness(Some(crate::policy::syntax::DecisionKind::Allow))
        })
        .map(|mut c| {
            c.reason = Some(format!("{} ({note})", c.reason.unwrap_or_default()));
            c
        })
        .collect()
}

/// Judge one event: the one place where context, rules, evaluation, decision
/// and answer are put together. A recording `tracer` also gets every rule in
/// scope (the index's reasons for leaving some out) and the combining step.
pub fn judge<T: Tracer>(set: &Set, event: &Event, world: World<'_>, tracer: &mut T) -> Judged {
    let mut ctx = Ctx::from_env(event, world.env.clone(), world.now);
    ctx.deadline = world.deadline;
    ctx.run_commands = world.run_commands;
    let compiled = set.for_event(event, &ctx, tracer.enabled());
    let mut outcome = eval::evaluate(&compiled, event, &ctx, tracer);
    let mut decision = decision::decide(&outcome);
    let mut beside = managed_judge_rewrite(set, event, &ctx, &outcome, &decision);
    beside.extend(stand_in_judge(set, event, &ctx));
    let beside_rules: Vec<String> = beside.iter().map(|c| c.rule.clone()).collect();
    if !beside.is_empty() {
        let mut all = outcome.contributions.clone();
        all.extend(beside);
        decision = Decision {
            failures: decision.failures.clone(),
            ..decision::combine(&all, decision.errors.clone())
        };
    }
    if tracer.enabled() {
        let mut note = decision::describe(&decision, outcome.contributions.len());
        if !beside_rules.is_empty() {
            note.push_str(&format!(
                "; judged beside this call (its input as rewritten, or the built-in call an MCP tool stands for): {}",
                beside_rules.join(", ")
            ));
        }
        tracer.step(Step::Combine { note });
    }
    let answer = answer::render(event, &decision);
    Judged {
        decision,
        answer,
        effects: std::mem::take(&mut outcome.effects),
        ctx,
        compiled,
    }
}
