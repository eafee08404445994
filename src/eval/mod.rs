//! Stage 4: evaluating one event against the compiled bucket.
//!
//! The same code serves `run` (with [`trace::NoTrace`]) and `explain` (with a
//! recording [`trace::Trace`]): there is no second implementation of matching.

pub mod broken;
mod error;
pub mod except;
pub mod facts;
mod include;
pub mod outcome;
pub mod trace;
mod values;

use crate::os::env::Env;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;

use crate::compile::templates::TemplateError;
use crate::compile::Compiled;
pub use crate::contract::Event;
use crate::os::clock::Now;
use crate::os::files;
use crate::policy::syntax::{
    CombineMode, DecisionKind, EffectKind, FailureMode, UnparsableCommand,
};
use crate::shell;
pub use crate::shell::command::command_object;
use crate::validate::model::{Condition, Fact, Rule, Template, Test};
pub use error::EvalError;
pub use outcome::{Contribution, Pending, PendingEffect, RuleError, RuleFailure};
use trace::{abridge, RuleOutcome, Step, Tracer};
pub use values::{Located, Twins};

/// What evaluation may know about the world besides the event.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The project ([`crate::contract::project::resolve`] from the event's `cwd`).
    pub project_dir: PathBuf,
    /// The event's `cwd` (relative paths in tool input resolve against it).
    pub cwd: PathBuf,
    /// `$HOME`, for `~` in paths.
    pub home: Option<String>,
    /// Environment variables (only `env` facts can read them).
    pub env_vars: Env,
    /// The clock.
    pub now: Now,
    /// Whether `command` facts run (false for `check`'s probes: a fact that
    /// needs one then fails with [`facts::FactError::NotRun`]).
    pub run_commands: bool,
    /// The answer's deadline: command facts are cut to fit it.
    pub deadline: crate::os::deadline::Deadline,
    /// What location classes are judged against (cwd, home, project, temp).
    pub reach: shell::reach::Env,
    /// Where the event's shell values were found to point.
    pub located: values::Located,
    /// The same context judging fewer classes of place, for what reads
    /// fewer (`Ctx::judging`).
    pub twins: values::Twins,
}

impl Ctx {
    /// Build the context for an event from the process environment.
    pub fn from_env(event: &Event, env_vars: Env, now: Now) -> Ctx {
        let process_cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
        // A Windows path (`C:\Users\dev\proj`, from an agent on Windows) in
        // the one spelling the shell analysis reads (`/c/Users/dev/proj`).
        let posix = |p: &str| shell::place::posix(p).unwrap_or_else(|| p.to_string());
        // Both are made absolute: confinement checks compare absolute paths.
        let cwd = process_cwd.join(posix(event.str("cwd").unwrap_or("")));
        let project_dir = crate::contract::project::resolve(&env_vars, Some(&cwd));
        // Windows sets USERPROFILE, and HOME only under Git Bash.
        let home = env_vars
            .get("HOME")
            .or_else(|| env_vars.get("USERPROFILE"))
            .filter(|h| !h.is_empty())
            .map(|h| posix(&h));
        // An event from Windows whose process environment names no Windows
        // home (a hook run by another machine's harness, a service account):
        // the profile folder the working folder lies in is the user's home.
        let cwd_text = cwd.display().to_string();
        let home = match home {
            Some(h) if shell::place::ignores_case(&h) => Some(h),
            other if shell::place::ignores_case(&cwd_text) && !cwd_text.starts_with("/mnt/") => {
                shell::place::profile_of(&cwd_text).or(other)
            }
            other => other,
        };
        let reach = shell::reach::Env {
            cwd: cwd.display().to_string(),
            home: home.clone(),
            project: project_dir.display().to_string(),
            // Windows names its temp folder in TEMP (or TMP), Git Bash in TMPDIR.
            tmpdir: env_vars
                .get("TMPDIR")
                .filter(|t| !t.is_empty())
                .or_else(|| {
                    ["TEMP", "TMP"]
                        .iter()
                        .find_map(|k| env_vars.get(k).and_then(|t| shell::place::posix(&t)))
                }),
            user: env_vars
                .get("USER")
                .or_else(|| env_vars.get("LOGNAME"))
                .filter(|u| !u.is_empty()),
            links: shell::links::Resolver::default(),
            guards: guards(&env_vars, &cwd, &project_dir),
            judged: shell::reach::Judged::All,
        };
        Ctx {
            project_dir,
            cwd,
            home,
            env_vars,
            now,
            run_commands: true,
            deadline: crate::os::deadline::Deadline::none(),
            reach,
            located: values::Located::default(),
            twins: values::Twins::default(),
        }
    }
}

/// The places that decide what the agent may do (`contract::places::guarded`),
/// listed when a path is first classified (the key's places alone when only
/// they are needed, `shell::reach::Judged::Key`).
fn guards(env: &Env, cwd: &Path, project: &Path) -> shell::reach::Guards {
    use crate::contract::places;
    let env = env.clone();
    let (cwd, project) = (cwd.to_path_buf(), project.to_path_buf());
    let made = move |keys_only: bool| {
        let exe = std::env::current_exe().ok();
        let list = match keys_only {
            false => places::guarded(&env, &cwd, &project, exe.as_deref()),
            true => places::guarded_keys(&env, &cwd, &project, exe.as_deref()),
        };
        list.into_iter().filter_map(guard).collect()
    };
    let made = Arc::new(made);
    let keys = Arc::clone(&made);
    shell::reach::Guards::new(move || made(false), move || keys(true))
}

/// A guarded place as the shell analysis compares it (`None`: a path that
/// is not text or does not normalise).
fn guard(g: crate::contract::places::Guarded) -> Option<shell::reach::Guard> {
    use crate::contract::places;
    let path = g.path.to_str()?;
    let at = if shell::path::is_normal(path) {
        path.to_string()
    } else {
        shell::path::normalize(path, "/", None).ok()?
    };
    Some(shell::reach::Guard {
        path: at.to_ascii_lowercase(),
        at,
        folder: g.folder,
        class: match g.guard {
            places::Guard::Config | places::Guard::Regenerable => shell::reach::Class::GuardConfig,
            places::Guard::State => shell::reach::Class::GuardState,
            places::Guard::Key => shell::reach::Class::GuardKey,
        },
        regenerable: g.guard == places::Guard::Regenerable,
        wires: g.wiring.map(|kind| shell::reach::Wires::new(kind, g.path)),
        what: g.what,
        anywhere: g.anywhere.and_then(|a| {
            let a = a.to_str()?;
            let mut s = String::with_capacity(a.len() + 1);
            s.push('/');
            s.push_str(a);
            s.make_ascii_lowercase();
            Some(s)
        }),
    })
}

/// Inside `command.when`: the command and its object, which the condition's
/// selectors read.
#[derive(Clone, Copy)]
struct Within<'a> {
    object: &'a Value,
    command: &'a shell::command::SimpleCommand,
}

/// Everything evaluation produced for one event.
#[derive(Debug, Default)]
pub struct Outcome {
    /// What each contributing rule said, in priority order.
    pub contributions: Vec<Contribution>,
    /// Failures that were reported rather than blocking (fail-open policies,
    /// audit rules), rendered from [`Outcome::failures`].
    pub errors: Vec<String>,
    /// Every rule that failed, whatever its policy's failure mode made of it.
    pub failures: Vec<RuleFailure>,
    /// Side effects to run.
    pub effects: Vec<Pending>,
}

/// How one rule came out.
enum RuleResult {
    Matched(BTreeMap<String, String>),
    NotMatched,
    Failed(EvalError),
}

/// Evaluate an event.
pub fn evaluate<T: Tracer>(
    compiled: &Compiled,
    event: &Event,
    ctx: &Ctx,
    tracer: &mut T,
) -> Outcome {
    let mut ev = Evaluator {
        compiled,
        event,
        ctx,
        tracer,
        facts: HashMap::new(),
        fact_stack: vec![],
        shell: compiled.shells.clone(),
        dialect: crate::contract::hosts::dialect(&event.value),
        unparsable: None,
        base: None,
        event_value: None,
        event_line_value: None,
        stamps: HashMap::new(),
        except: None,
        excepted: vec![],
        certain_only: false,
        saw_uncertain: false,
    };
    ev.run()
}

struct Evaluator<'a, T: Tracer> {
    compiled: &'a Compiled,
    event: &'a Event,
    ctx: &'a Ctx,
    tracer: &'a mut T,
    facts: HashMap<(usize, String), Result<Value, EvalError>>,
    fact_stack: Vec<String>,
    shell: HashMap<String, Result<Arc<Vec<shell::command::SimpleCommand>>, String>>,
    /// The shell the event's commands are written for (one answer per event,
    /// asked by every command test).
    dialect: shell::Dialect,
    /// Set when a structured command test met a command that does not parse.
    unparsable: Option<String>,
    /// The template context without captures/rule, built on first render.
    base: Option<Value>,
    /// The event as a template value, converted once (it may be megabytes).
    event_value: Option<minijinja::Value>,
    /// The same with line breaks in its strings shown as `\n`, for texts.
    event_line_value: Option<minijinja::Value>,
    /// `today` / `now`, per zone, computed on first use.
    stamps: HashMap<crate::os::clock::Zone, crate::os::clock::Stamp>,
    /// The `except` of the rule being evaluated (see [`except`]).
    except: Option<Arc<crate::validate::model::Except>>,
    /// What that `except` took out so far, for the trace.
    excepted: Vec<String>,
    /// Commands are read without the ones a script only may run
    /// ([`shell::command::SimpleCommand::uncertain`]).
    certain_only: bool,
    /// A command read for this event is one a script only may run.
    saw_uncertain: bool,
}

/// (priority, policy index, file order) of a contribution, for global ordering.
type Order = (i64, usize, usize);

/// What evaluation has found so far.
#[derive(Default)]
struct Found {
    contributions: Vec<(Order, Contribution, Vec<Pending>)>,
    errors: Vec<String>,
    failures: Vec<RuleFailure>,
}

impl<T: Tracer> Evaluator<'_, T> {
    fn run(&mut self) -> Outcome {
        let mut found = Found::default();
        // The files of the policies broken for this event (see `broken`).
        let broken_files: Vec<PathBuf> = self
            .compiled
            .buckets
            .iter()
            .filter(|b| !b.broken.is_empty())
            .filter_map(|b| match &b.policy.source.origin {
                crate::source::Origin::File(p) => Some(p.clone()),
                crate::source::Origin::Builtin(_) => None,
            })
            .collect();
        for (pidx, bucket) in self.compiled.buckets.iter().enumerate() {
            let policy = &bucket.policy;
            if self.tracer.enabled() {
                for (rule, why) in &bucket.skipped {
                    self.tracer.step(Step::Skipped {
                        policy: policy.name.clone(),
                        rule: rule.id.clone(),
                        why: why.clone(),
                    });
                }
            }
            for (id, what) in &bucket.broken {
                let what = what.clone();
                if self.tracer.enabled() {
                    self.tracer.step(Step::Broken {
                        policy: policy.name.clone(),
                        rule: id.clone(),
                        errors: what.clone(),
                    });
                }
                let failure = RuleFailure {
                    policy: policy.name.clone(),
                    rule: id.clone(),
                    error: RuleError::Broken(what),
                };
                self.broken(pidx, failure, &broken_files, &mut found);
            }
            for rule in &bucket.rules {
                if self.tracer.enabled() {
                    self.tracer.step(Step::RuleStart {
                        policy: policy.name.clone(),
                        rule: rule.id.clone(),
                        priority: rule.priority,
                    });
                }
                self.unparsable = None;
                let result = self.rule(pidx, rule);
                let order = (rule.priority, pidx, rule.order);
                if let Some(err) = self.unparsable.take() {
                    if policy.unparsable != UnparsableCommand::Regex {
                        let decision = if policy.unparsable == UnparsableCommand::Deny {
                            DecisionKind::Deny
                        } else {
                            DecisionKind::Ask
                        };
                        let c = synthetic(
                            policy.name.clone(),
                            format!("{}:unparsable-command", policy.name),
                            rule.priority,
                            decision,
                            format!("hookrules could not parse this shell command ({err}), and policy `{}` treats unparsable commands as `{}`. Rewrite it in plain shell syntax.", policy.name, decision.as_str()),
                        );
                        let c = Contribution {
                            audit: rule.audit,
                            ..c
                        };
                        if !found.contributions.iter().any(|(_, f, _)| f.rule == c.rule) {
                            found.contributions.push((order, c, vec![]));
                        }
                    }
                }
                let failed = |error| RuleFailure {
                    policy: policy.name.clone(),
                    rule: rule.id.clone(),
                    error,
                };
                match result {
                    RuleResult::NotMatched => self.end(rule, RuleOutcome::NotMatched),
                    RuleResult::Failed(e) => {
                        if self.tracer.enabled() {
                            self.end(rule, RuleOutcome::Failed(e.clone()));
                        }
                        let failure = failed(RuleError::Condition(e));
                        self.failure(pidx, order, failure, rule.audit, &mut found);
                    }
                    RuleResult::Matched(captures) => {
                        self.end(rule, RuleOutcome::Matched);
                        let step = self.uncertain_step(pidx, rule);
                        if step == Standing::Down && rule.decision == Some(DecisionKind::Ask) {
                            // An ask earned only by what a script may do.
                            continue;
                        }
                        match self.contribution(pidx, rule, &captures) {
                            Ok((mut c, effects)) => {
                                if step == Standing::Down {
                                    may_only(&mut c);
                                }
                                found.contributions.push((order, c, effects));
                            }
                            Err(e) => {
                                let failure = failed(RuleError::Render(e));
                                self.failure(pidx, order, failure, rule.audit, &mut found);
                            }
                        }
                        // An audit rule decides nothing, so it does not end a
                        // first-match policy either.
                        if policy.combine == CombineMode::FirstMatch && !rule.audit {
                            if self.tracer.enabled() {
                                self.tracer.step(Step::FirstMatchStop {
                                    policy: policy.name.clone(),
                                    rule: rule.id.clone(),
                                });
                            }
                            break;
                        }
                    }
                }
            }
        }
        let mut all = found.contributions;
        all.sort_by_key(|(o, _, _)| *o);
        let contributions: Vec<Contribution> = all.iter().map(|(_, c, _)| c.clone()).collect();
        let effects = all.into_iter().flat_map(|(_, _, e)| e).collect();
        Outcome {
            contributions,
            errors: found.errors,
            failures: found.failures,
            effects,
        }
    }

    /// Did the rule match only because of commands a script may run or not
    /// ([`shell::command::SimpleCommand::uncertain`])? Then what it decides
    /// goes one step down: a deny asks, an ask is left out. Asked only of a
    /// deny or an ask, after commands read from a script; the rule is
    /// evaluated again without them.
    fn uncertain_step(&mut self, pidx: usize, rule: &Rule) -> Standing {
        if !self.saw_uncertain
            || rule.audit
            || !matches!(rule.decision, Some(DecisionKind::Deny | DecisionKind::Ask))
        {
            return Standing::Same;
        }
        self.certain_only = true;
        let again = self.rule(pidx, rule);
        self.certain_only = false;
        self.unparsable = None;
        match again {
            RuleResult::Matched(_) | RuleResult::Failed(_) => Standing::Same,
            RuleResult::NotMatched => Standing::Down,
        }
    }

    fn end(&mut self, rule: &Rule, outcome: RuleOutcome) {
        if self.tracer.enabled() {
            self.tracer.step(Step::RuleEnd {
                rule: rule.id.clone(),
                outcome,
            });
        }
    }

    /// A rule (or a whole file) that did not load: in a fail-closed policy, as
    /// [`broken::when_broken`] says for this event; else as any failure.
    fn broken(
        &mut self,
        pidx: usize,
        failure: RuleFailure,
        broken_files: &[PathBuf],
        found: &mut Found,
    ) {
        let order = (i64::MIN, pidx, 0);
        let policy = self.compiled.buckets[pidx].policy.clone();
        if policy.failure != FailureMode::FailClosed {
            return self.failure(pidx, order, failure, false, found);
        }
        match broken::when_broken(self.event, &self.ctx.cwd, broken_files) {
            broken::WhenBroken::Refuse => self.failure(pidx, order, failure, false, found),
            broken::WhenBroken::LetThrough(why) => {
                found.errors.push(format!(
                    "{failure} (policy `{}` is fail-closed, but this goes ahead: {why})",
                    policy.name
                ));
                found.failures.push(failure);
            }
            broken::WhenBroken::Tell => {
                let id = format!("{}:broken", policy.name);
                if !found.contributions.iter().any(|(_, c, _)| c.rule == id) {
                    let problems = match &failure.error {
                        RuleError::Broken(what) => what.as_slice(),
                        _ => &[],
                    };
                    let first = problems.first().map_or("", String::as_str);
                    let message =
                        broken::message(&policy.name, first, problems.len().saturating_sub(1));
                    let c = Contribution {
                        decision: None,
                        reason: None,
                        message: Some(message),
                        ..synthetic(
                            policy.name.clone(),
                            id,
                            order.0,
                            DecisionKind::Allow,
                            String::new(),
                        )
                    };
                    found.contributions.push((order, c, vec![]));
                }
                found.errors.push(format!(
                    "{failure} (policy `{}` is fail-closed; {} is not blocked: the user is told)",
                    policy.name, self.event.name
                ));
                found.failures.push(failure);
            }
        }
    }

    /// A failure: a block in a fail-closed policy, a reported error in a
    /// fail-open one or for an audit rule (which decides nothing).
    fn failure(
        &mut self,
        pidx: usize,
        order: Order,
        failure: RuleFailure,
        audit: bool,
        found: &mut Found,
    ) {
        let policy = &self.compiled.buckets[pidx].policy;
        match policy.failure {
            _ if audit => found.errors.push(failure.audit_note()),
            FailureMode::FailOpen => found.errors.push(failure.fail_open_note()),
            FailureMode::FailClosed => {
                let decision =
                    if self.event.spec.blocking == crate::contract::events::Blocking::TopLevel {
                        DecisionKind::Block
                    } else {
                        DecisionKind::Deny
                    };
                let c = synthetic(
                    policy.name.clone(),
                    failure.rule.clone(),
                    order.0,
                    decision,
                    failure.fail_closed_reason(),
                );
                found.contributions.push((order, c, vec![]));
            }
        }
        found.failures.push(failure);
    }

    fn rule(&mut self, pidx: usize, rule: &Rule) -> RuleResult {
        self.except = rule.except.clone();
        let result = self.rule_conditions(pidx, rule);
        // `explain` shows every exception of a rule it evaluates, with what it
        // took out of this event, or that it took nothing.
        if let (Some(ex), true) = (self.except.take(), self.tracer.enabled()) {
            let removed = std::mem::take(&mut self.excepted);
            self.tracer.step(Step::Except {
                at: ex.at.clone(),
                not_seen: removed,
            });
        }
        result
    }

    fn rule_conditions(&mut self, pidx: usize, rule: &Rule) -> RuleResult {
        let mut captures = BTreeMap::new();
        if let Some(when) = &rule.when {
            match self.condition(pidx, when, 0, &mut captures, None) {
                Ok(true) => {}
                Ok(false) => return RuleResult::NotMatched,
                Err(e) => return RuleResult::Failed(e),
            }
        }
        if let Some(unless) = &rule.unless {
            match self.condition(pidx, unless, 0, &mut BTreeMap::new(), None) {
                Ok(false) => {}
                Ok(true) => return RuleResult::NotMatched,
                Err(e) => return RuleResult::Failed(e),
            }
        }
        RuleResult::Matched(captures)
    }

    /// Evaluate a condition. `object` is the command (and its object) inside
    /// `command.when`.
    fn condition(
        &mut self,
        pidx: usize,
        c: &Condition,
        depth: usize,
        captures: &mut BTreeMap<String, String>,
        object: Option<Within<'_>>,
    ) -> Result<bool, EvalError> {
        match c {
            Condition::All(v) => {
                for c in v {
                    if !self.condition(pidx, c, depth + 1, captures, object)? {
                        return Ok(false);
                    }
                }
                Ok(true)
            }
            Condition::Any(v) => {
                for c in v {
                    if self.condition(pidx, c, depth + 1, captures, object)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Condition::Not(c) => {
                let r = !self.condition(pidx, c, depth + 1, &mut BTreeMap::new(), object)?;
                if self.tracer.enabled() {
                    self.tracer.step(Step::Condition {
                        depth,
                        test: "not".into(),
                        saw: String::new(),
                        result: r,
                    });
                }
                Ok(r)
            }
            Condition::Ref(n) => {
                let r = self.condition(pidx, &n.condition, depth + 1, captures, object)?;
                if self.tracer.enabled() {
                    self.tracer.step(Step::Condition {
                        depth,
                        test: format!("ref {}", n.name),
                        saw: String::new(),
                        result: r,
                    });
                }
                Ok(r)
            }
            Condition::Test(t) => self.test(pidx, t, depth, captures, object),
        }
    }

    fn test(
        &mut self,
        pidx: usize,
        t: &Arc<Test>,
        depth: usize,
        captures: &mut BTreeMap<String, String>,
        object: Option<Within<'_>>,
    ) -> Result<bool, EvalError> {
        let selected = self.select(pidx, t, object)?;
        let (result, saw) = values::apply(
            t,
            &selected,
            self.ctx,
            captures,
            self.tracer.enabled(),
            &mut |cmd_test, command, caps| {
                // Nested condition over a command object.
                match &cmd_test.when {
                    Some(w) => {
                        let object = command_object(command);
                        let within = Within {
                            object: &object,
                            command,
                        };
                        self.condition(pidx, w, depth + 1, caps, Some(within))
                    }
                    None => Ok(true),
                }
            },
        )?;
        if self.tracer.enabled() {
            self.tracer.step(Step::Condition {
                depth,
                test: values::describe(t),
                saw: abridge(&saw, 200),
                result,
            });
            for (k, v) in captures.iter() {
                self.tracer.step(Step::Capture {
                    name: k.clone(),
                    value: abridge(v, 120),
                });
            }
        }
        Ok(result)
    }

    /// What the test's selector yields, less what the rule's `except` removes.
    fn select(
        &mut self,
        pidx: usize,
        t: &Test,
        object: Option<Within<'_>>,
    ) -> Result<values::Selected, EvalError> {
        let selected = self.select_all(pidx, t, object)?;
        let Some(ex) = self.except.clone() else {
            return Ok(selected);
        };
        let (kept, removed) = match selected {
            values::Selected::Commands(cmds) => {
                let (gone, kept): (Vec<_>, Vec<_>) = cmds
                    .iter()
                    .cloned()
                    .partition(|c| except::exempt_command(&ex, c, self.ctx));
                if gone.is_empty() {
                    return Ok(values::Selected::Commands(cmds));
                }
                let removed = gone
                    .iter()
                    .map(values::describe_command)
                    .collect::<Vec<_>>();
                (values::Selected::Commands(Arc::new(kept)), removed)
            }
            values::Selected::Paths(paths) => {
                let (gone, kept): (Vec<_>, Vec<_>) = paths
                    .into_iter()
                    .partition(|p| except::exempt_path(&ex, p, self.ctx));
                let removed = gone.into_iter().map(|p| p.path).collect::<Vec<_>>();
                (values::Selected::Paths(kept), removed)
            }
            other => return Ok(other),
        };
        if self.tracer.enabled() {
            for r in removed {
                if !self.excepted.contains(&r) {
                    self.excepted.push(r);
                }
            }
        }
        Ok(kept)
    }

    fn select_all(
        &mut self,
        pidx: usize,
        t: &Test,
        object: Option<Within<'_>>,
    ) -> Result<values::Selected, EvalError> {
        use crate::validate::model::Selector;
        let root = object.map_or(&self.event.value, |w| w.object);
        Ok(match &t.selector {
            Selector::Field(p) => {
                values::Selected::Values(p.get(root).cloned().into_iter().collect())
            }
            Selector::JsonPath(q) => {
                let query = q.query().map_err(EvalError::JsonPath)?;
                let found = jsonpath_rust::query::js_path_process(query, root)
                    .map_err(EvalError::JsonPath)?;
                values::Selected::Values(found.into_iter().map(|r| r.val().clone()).collect())
            }
            Selector::Fact { name, path } => {
                let v = self.fact(pidx, name)?;
                values::Selected::Values(path.get(&v).cloned().into_iter().collect())
            }
            Selector::Commands(p) => match p.get(root).and_then(|v| v.as_str()) {
                None => values::Selected::Commands(Arc::new(vec![])),
                Some(text) => match self.parse_shell(text) {
                    Ok(cmds) => values::Selected::Commands(cmds),
                    Err(e) => {
                        self.unparsable = Some(e.clone());
                        values::Selected::Unparsable(e)
                    }
                },
            },
            Selector::Paths(ps) => {
                let raw = ps.field.get(root).cloned();
                if ps.from_command {
                    let Some(text) = raw.as_ref().and_then(|v| v.as_str()) else {
                        return Ok(values::Selected::Paths(vec![]));
                    };
                    // Only a `class` test reads the classes of place, and
                    // only those it names ([`Ctx::judging`]; the prefilter
                    // judged the same paths so). A trace shows a class
                    // test's paths with all their classes.
                    let judging = match &t.op {
                        crate::validate::model::Op::Class(_) if self.tracer.enabled() => self.ctx,
                        crate::validate::model::Op::Class(ct) => {
                            self.ctx.judging(ct.any.union(ct.none))
                        }
                        _ => self.ctx.judging(shell::reach::Classes::default()),
                    };
                    return Ok(match self.parse_shell(text) {
                        Ok(cmds) => {
                            values::Selected::Paths(values::paths_from_commands(&cmds, ps, judging))
                        }
                        Err(e) => {
                            self.unparsable = Some(e.clone());
                            values::Selected::Unparsable(e)
                        }
                    });
                }
                // An event field's paths, as the prefilter sees them.
                if object.is_none() {
                    return Ok(values::Selected::Paths(
                        raw.map_or_else(Vec::new, |v| values::field_paths(&v, ps, self.ctx)),
                    ));
                }
                let mut texts: Vec<String> = vec![];
                if let Some(v) = raw {
                    values::texts(&v, &mut texts);
                }
                // A command's operand (`command.when`) is a word the shell
                // did not expand: `*`, `?`, `[` in it are a pattern (`grep
                // KEY .en*`), not a name as in a tool's path.
                let patterns = object.is_some();
                let made = object.map_or(&[][..], |w| &w.command.made[..]);
                let picked = texts
                    .iter()
                    .filter(|p| !p.is_empty())
                    .map(|p| {
                        // An operand the command acts on by name (`mv link
                        // x`) keeps its last link unfollowed.
                        let by_name = object.is_some_and(|w| {
                            let c = w.command;
                            let mut at = c.operands.iter().enumerate().filter(|(_, o)| *o == p);
                            at.clone().next().is_some()
                                && at.all(|(i, _)| shell::command::acts_on_name(c, i))
                        });
                        // A relative operand is in the folder the command
                        // runs in (`cd .. && mv proj x` moves the project).
                        // (Not an absolute, home, variable or Windows
                        // spelling: `C:\x`, `\\server\share`.)
                        let relative = !p.starts_with(['/', '~', '$', '\\'])
                            && p.as_bytes().get(1) != Some(&b':');
                        let moved = object
                            .filter(|_| relative)
                            .and_then(|w| shell::reach::moved_to(&w.command.cwd, &self.ctx.reach));
                        let joined = moved.map(|d| format!("{}/{p}", d.trim_end_matches('/')));
                        let p = joined.as_deref().unwrap_or(p);
                        let mut t =
                            values::tool_path(p, self.ctx, ps.resolve_symlinks, !by_name, made);
                        if patterns {
                            t.pattern = crate::shell::glob::marked(&t.path);
                            if let Some(s) = t.spelled.as_deref_mut() {
                                s.pattern = crate::shell::glob::marked(&s.path);
                            }
                        }
                        t
                    })
                    .collect();
                values::Selected::Paths(picked)
            }
        })
    }

    fn parse_shell(
        &mut self,
        text: &str,
    ) -> Result<Arc<Vec<shell::command::SimpleCommand>>, String> {
        let cwd = crate::compile::reach::event_cwd(self.event);
        let cmds = crate::compile::reach::parse_shell(&mut self.shell, text, self.dialect, cwd)?;
        if !cmds.iter().any(|c| c.uncertain) {
            return Ok(cmds);
        }
        self.saw_uncertain = true;
        if !self.certain_only {
            return Ok(cmds);
        }
        Ok(Arc::new(
            cmds.iter().filter(|c| !c.uncertain).cloned().collect(),
        ))
    }

    fn fact(&mut self, pidx: usize, name: &str) -> Result<Value, EvalError> {
        let key = (pidx, name.to_string());
        if let Some(v) = self.facts.get(&key) {
            return v.clone();
        }
        if self.fact_stack.iter().any(|n| n == name) {
            return Err(EvalError::FactCycle {
                fact: name.to_string(),
            });
        }
        let policy = &self.compiled.buckets[pidx].policy;
        let Some(fact) = policy.facts.get(name).cloned() else {
            return Err(EvalError::UnknownFact {
                fact: name.to_string(),
            });
        };
        self.fact_stack.push(name.to_string());
        let result = self.compute_fact(pidx, &fact);
        self.fact_stack.pop();
        if self.tracer.enabled() {
            let (value, failed) = match &result {
                Ok(v) => (abridge(&v.to_string(), 300), false),
                // The step names the fact already.
                Err(EvalError::Fact { fact, cause }) if fact == name => (cause.to_string(), true),
                Err(e) => (e.to_string(), true),
            };
            self.tracer.step(Step::Fact {
                name: name.to_string(),
                value,
                failed,
            });
        }
        self.facts.insert(key, result.clone());
        result
    }

    fn compute_fact(&mut self, pidx: usize, f: &Fact) -> Result<Value, EvalError> {
        let ctx = self.template_ctx(pidx, None, &BTreeMap::new(), &fact_templates(f))?;
        let r = |t: &Option<Template>, s: &mut Self| -> Result<Option<String>, EvalError> {
            t.as_ref()
                .map(|t| s.compiled.templates.render(pidx, t, &ctx))
                .transpose()
                .map_err(EvalError::from)
        };
        // Without `within`, a path stays in the literal folder before its first `{{`.
        let within = match r(&f.within, self)? {
            Some(w) => Some(w),
            None => f.path.as_ref().and_then(|p| files::literal_folder(&p.text)),
        };
        let rendered = facts::Rendered {
            path: r(&f.path, self)?,
            within,
            argv: render_argv(&self.compiled.templates, pidx, &f.argv, &ctx)?,
            cwd: r(&f.cwd, self)?,
        };
        facts::compute(f, rendered, self.ctx, &self.event.value).map_err(|cause| EvalError::Fact {
            fact: f.name.clone(),
            cause,
        })
    }

    /// The template context: event, facts named by the templates, captures, rule.
    fn template_ctx(
        &mut self,
        pidx: usize,
        rule: Option<&Rule>,
        captures: &BTreeMap<String, String>,
        templates: &[&str],
    ) -> Result<minijinja::Value, EvalError> {
        let mut needed: Vec<String> = templates
            .iter()
            .flat_map(|t| crate::validate::facts_named_in(t))
            .collect();
        needed.sort();
        needed.dedup();
        let mut fact_values = serde_json::Map::new();
        for name in needed {
            let v = self.fact(pidx, &name)?;
            fact_values.insert(name, v);
        }
        if self.base.is_none() {
            self.base = Some(serde_json::json!({
                "project_dir": self.ctx.project_dir.display().to_string(),
                "cwd": self.ctx.cwd.display().to_string(),
            }));
        }
        // `today` and `now` in the zone this policy chose, computed once per zone.
        let zone = self.compiled.buckets[pidx].policy.zone;
        let now = self.ctx.now.clone();
        let stamp = self
            .stamps
            .entry(zone)
            .or_insert_with(|| now.stamp(zone))
            .clone();
        let base = self.base.as_ref().expect("set above");
        let rule_v = rule.map(|r| {
            serde_json::json!({
                "id": r.id, "description": r.description, "priority": r.priority,
                "tags": r.tags, "policy": r.policy,
            })
        });
        let event = self
            .event_value
            .get_or_insert_with(|| minijinja::Value::from_serialize(&self.event.value))
            .clone();
        Ok(minijinja::context! {
            event => event,
            facts => minijinja::Value::from_serialize(&fact_values),
            captures => minijinja::Value::from_serialize(captures),
            rule => minijinja::Value::from_serialize(&rule_v),
            today => stamp.today,
            now => stamp.rfc3339,
            ..minijinja::Value::from_serialize(base)
        })
    }

    fn contribution(
        &mut self,
        pidx: usize,
        rule: &Rule,
        captures: &BTreeMap<String, String>,
    ) -> Result<(Contribution, Vec<Pending>), EvalError> {
        let all = rule_templates(rule);
        let ctx = self.template_ctx(pidx, Some(rule), captures, &all)?;
        // Reasons, messages and context show event data (and captures taken
        // from it) on one line: a line break in a tool input is written `\n`,
        // so a command cannot forge a line of its own (`SYSTEM: …`) in what the
        // model and the user read. Facts (test output) keep their lines.
        let event_line = self
            .event_line_value
            .get_or_insert_with(|| {
                minijinja::Value::from_serialize(crate::compile::templates::one_line(
                    &self.event.value,
                ))
            })
            .clone();
        let line_captures: BTreeMap<&String, String> = captures
            .iter()
            .map(|(k, v)| (k, v.replace('\n', "\\n")))
            .collect();
        let text_ctx = minijinja::context! {
            event => event_line,
            captures => minijinja::Value::from_serialize(&line_captures),
            ..ctx.clone()
        };
        let tpl = &self.compiled.templates;
        if rule.audit {
            // Only what it would decide and why: no context, messages, rewrites
            // or effects reach the client or the disk.
            let reason = rule
                .reason
                .as_ref()
                .map(|t| {
                    tpl.render_text(pidx, t, &text_ctx)
                        .map(|s| s.trim_end().to_string())
                })
                .transpose()?;
            let policy = &self.compiled.buckets[pidx].policy;
            return Ok((
                Contribution {
                    policy: policy.name.clone(),
                    rule: rule.id.clone(),
                    priority: rule.priority,
                    decision: rule.decision,
                    reason,
                    context: vec![],
                    message: None,
                    rewrite: vec![],
                    defer: rule.defer,
                    audit: true,
                },
                vec![],
            ));
        }
        // Texts for people and the model lose trailing whitespace; file contents,
        // records and arguments keep theirs.
        // What `{{ … }}` inserts into them cannot control the terminal or
        // hide text (see `Templates::render_text`).
        let text = |t: &Option<Template>| {
            t.as_ref()
                .map(|t| tpl.render_text(pidx, t, &text_ctx))
                .transpose()
                .map(|o| o.map(|s| s.trim_end().to_string()))
        };
        let reason = text(&rule.reason)?;
        let mut context: Vec<String> = text(&rule.context)?
            .into_iter()
            .filter(|s| !s.trim().is_empty())
            .collect();
        context.extend(self.includes(pidx, rule, &ctx)?);
        let message = text(&rule.message)?.filter(|s| !s.trim().is_empty());
        let mut rewrite = vec![];
        for (k, t) in &rule.rewrite {
            rewrite.push((k.clone(), tpl.render(pidx, t, &ctx)?));
        }
        let effects = self.effects(pidx, rule, &ctx)?;
        let policy = &self.compiled.buckets[pidx].policy;
        Ok((
            Contribution {
                policy: policy.name.clone(),
                rule: rule.id.clone(),
                priority: rule.priority,
                decision: rule.decision,
                defer: rule.defer,
                reason,
                context,
                message,
                rewrite,
                audit: false,
            },
            effects,
        ))
    }

    /// The files a rule's `include` reads into the context, each under its
    /// heading (a file that cannot be read is left out).
    fn includes(
        &self,
        pidx: usize,
        rule: &Rule,
        ctx: &minijinja::Value,
    ) -> Result<Vec<String>, EvalError> {
        let tpl = &self.compiled.templates;
        let mut context = vec![];
        for inc in &rule.include {
            let path = tpl.render(pidx, &inc.path, ctx)?;
            let title = inc
                .title
                .as_ref()
                .map(|t| tpl.render(pidx, t, ctx))
                .transpose()?
                .map(|s| s.trim_end().to_string());
            let within = files::literal_folder(&inc.path.text);
            let within = within.as_deref();
            if let Some(body) =
                include::read_include(&path, within, inc.lines, inc.newest, self.ctx)
            {
                let heading = title.unwrap_or_else(|| path.clone());
                context.push(format!("{heading}\n{body}"));
            }
        }
        Ok(context)
    }

    /// A rule's effects, rendered, to run once the decision is made.
    fn effects(
        &self,
        pidx: usize,
        rule: &Rule,
        ctx: &minijinja::Value,
    ) -> Result<Vec<Pending>, EvalError> {
        let tpl = &self.compiled.templates;
        let policy = &self.compiled.buckets[pidx].policy;
        let render =
            |t: &Option<Template>| t.as_ref().map(|t| tpl.render(pidx, t, ctx)).transpose();
        let mut effects = vec![];
        for e in &rule.effects {
            // Record leaves are rendered from text: say which effect they are in.
            let at_effect = |err: TemplateError| {
                err.in_record(crate::compile::templates::Location::of(
                    &policy.source,
                    e.span.start,
                ))
            };
            let path = render(&e.path)?;
            // Without `within`, a path stays in the literal folder before its first `{{`.
            let within = match render(&e.within)? {
                Some(w) => Some(w),
                None => e.path.as_ref().and_then(|p| files::literal_folder(&p.text)),
            };
            let effect = match e.kind {
                EffectKind::WriteFile => PendingEffect::WriteFile {
                    content: render(&e.content)?.unwrap_or_default(),
                },
                EffectKind::WriteJson => PendingEffect::WriteJson {
                    record: render_record(tpl, e.record.as_ref(), ctx).map_err(at_effect)?,
                    keep: e.keep.clone(),
                },
                EffectKind::AppendJsonl => PendingEffect::AppendJsonl {
                    record: render_record(tpl, e.record.as_ref(), ctx).map_err(at_effect)?,
                },
                EffectKind::DeleteFile => PendingEffect::DeleteFile,
                EffectKind::Run => PendingEffect::Run {
                    argv: render_argv(tpl, pidx, &e.argv, ctx)?,
                    timeout_ms: e.timeout_ms,
                },
            };
            effects.push(Pending {
                rule: rule.id.clone(),
                policy: policy.name.clone(),
                failure: policy.failure,
                path,
                within,
                effect,
            });
        }
        Ok(effects)
    }
}

/// How a rule's decision stands after commands a script may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Standing {
    /// As the rule says.
    Same,
    /// One step down: only what a script may do matched.
    Down,
}

/// A deny earned only by what a script may do asks, and says so.
fn may_only(c: &mut Contribution) {
    if c.decision != Some(DecisionKind::Deny) {
        return;
    }
    c.decision = Some(DecisionKind::Ask);
    let reason = c.reason.take().unwrap_or_default();
    let reason = reason
        .strip_prefix("Blocked by hookrules")
        .map_or(reason.clone(), |r| format!("hookrules{r}"));
    c.reason = Some(format!(
        "{reason} (A script this command runs may do this, in a branch, a loop, a function or a trap, or with a value only its run knows: confirm that it should.)"
    ));
}

fn synthetic(
    policy: String,
    rule: String,
    priority: i64,
    decision: DecisionKind,
    reason: String,
) -> Contribution {
    Contribution {
        policy,
        rule,
        priority,
        decision: Some(decision),
        defer: false,
        reason: Some(reason),
        context: vec![],
        message: None,
        rewrite: vec![],
        audit: false,
    }
}

fn rule_templates(rule: &Rule) -> Vec<&str> {
    let mut v: Vec<&str> = rule
        .templates()
        .into_iter()
        .map(|t| t.text.as_str())
        .collect();
    for e in &rule.effects {
        if let Some(r) = &e.record {
            collect_strings(r, &mut v);
        }
    }
    v
}

fn collect_strings<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

fn fact_templates(f: &Fact) -> Vec<&str> {
    f.path
        .iter()
        .chain(f.within.iter())
        .chain(f.argv.iter())
        .chain(f.cwd.iter())
        .map(|t| t.text.as_str())
        .collect()
}

/// `expr` when `s` is exactly `{{ expr }}` (one expression, nothing around it).
fn single_expression(s: &str) -> Option<&str> {
    let inner = s.trim().strip_prefix("{{")?.strip_suffix("}}")?;
    (!inner.contains("{{") && !inner.contains("}}") && !inner.contains("{%"))
        .then(|| inner.trim_matches(|c| c == '-' || c == ' '))
}

/// Render argv templates. An argument whose template does not itself start with
/// `-` but renders to something that does is refused: event data must not be able
/// to smuggle an option into a command.
fn render_argv(
    tpl: &crate::compile::Templates,
    pidx: usize,
    argv: &[Template],
    ctx: &minijinja::Value,
) -> Result<Vec<String>, EvalError> {
    // After a literal `--`, arguments are operands: a leading `-` is data there.
    let mut operands = false;
    argv.iter()
        .map(|t| {
            let s = tpl.render(pidx, t, ctx)?;
            let was_operand = operands;
            if t.text == "--" {
                operands = true;
            }
            if s.starts_with('-') && !t.text.starts_with('-') && !was_operand {
                return Err(EvalError::OptionArgument {
                    template: t.text.clone(),
                    rendered: s,
                });
            }
            if s.contains('\0') {
                return Err(EvalError::NulArgument);
            }
            Ok(s)
        })
        .collect()
}

/// Render the string leaves of a record. A leaf that is exactly one `{{ expr }}`
/// keeps the type of its value (numbers, booleans, null, lists, objects);
/// any other leaf renders to a string.
fn render_record(
    tpl: &crate::compile::Templates,
    record: Option<&Value>,
    ctx: &minijinja::Value,
) -> Result<Value, TemplateError> {
    fn walk(
        tpl: &crate::compile::Templates,
        v: &Value,
        ctx: &minijinja::Value,
    ) -> Result<Value, TemplateError> {
        Ok(match v {
            Value::String(s) => match single_expression(s) {
                Some(expr) => tpl.eval_expr(expr, ctx)?,
                None => Value::String(tpl.render_str(s, ctx)?),
            },
            Value::Array(a) => Value::Array(
                a.iter()
                    .map(|x| walk(tpl, x, ctx))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| Ok((k.clone(), walk(tpl, x, ctx)?)))
                    .collect::<Result<_, TemplateError>>()?,
            ),
            other => other.clone(),
        })
    }
    record.map(|r| walk(tpl, r, ctx)).unwrap_or(Ok(Value::Null))
}
