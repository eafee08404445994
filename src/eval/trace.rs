//! Tracing: the evaluator reports what it does to a [`Tracer`]. `run` passes
//! [`NoTrace`], whose methods are empty and inlined away; `explain` passes a
//! [`Trace`], which records the tree it prints.

use serde::Serialize;

use super::EvalError;

/// Receives evaluation steps.
pub trait Tracer {
    /// Whether steps are recorded at all (callers skip building descriptions when not).
    fn enabled(&self) -> bool;
    /// A step.
    fn step(&mut self, step: Step);
}

/// Records nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Tracer for NoTrace {
    #[inline(always)]
    fn enabled(&self) -> bool {
        false
    }
    #[inline(always)]
    fn step(&mut self, _: Step) {}
}

/// One evaluation step.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Step {
    /// The index left a rule out before evaluating it.
    Skipped {
        /// Policy name.
        policy: String,
        /// Rule id.
        rule: String,
        /// Why.
        why: String,
    },
    /// A rule that could not be loaded.
    Broken {
        /// Policy name.
        policy: String,
        /// Rule id.
        rule: String,
        /// The errors.
        errors: Vec<String>,
    },
    /// A rule is about to be evaluated.
    RuleStart {
        /// Policy name.
        policy: String,
        /// Rule id.
        rule: String,
        /// Its priority.
        priority: i64,
    },
    /// One condition, with what it saw.
    Condition {
        /// Nesting depth (0 = the rule's `when`).
        depth: usize,
        /// What it tests.
        test: String,
        /// The value(s) it saw.
        saw: String,
        /// Its result.
        result: bool,
    },
    /// A named capture.
    Capture {
        /// Group name.
        name: String,
        /// Captured text.
        value: String,
    },
    /// A fact was computed.
    Fact {
        /// Fact name.
        name: String,
        /// Its value (abridged) or error.
        value: String,
        /// Did it fail?
        failed: bool,
    },
    /// The rule's `except`, and what it took out of this event.
    Except {
        /// Where it is written (`file:line`, one per file).
        at: String,
        /// The cases the rule did not see (empty: none was listed).
        not_seen: Vec<String>,
    },
    /// The rule's result.
    RuleEnd {
        /// Rule id.
        rule: String,
        /// matched / not matched / error (written as those words).
        outcome: RuleOutcome,
    },
    /// First-match stopped here.
    FirstMatchStop {
        /// Policy name.
        policy: String,
        /// The rule that matched.
        rule: String,
    },
    /// How the decision was combined.
    Combine {
        /// Explanation.
        note: String,
    },
}

/// How a rule's evaluation ended. Written (and serialized) as `matched`, `not
/// matched`, or `error: ` and the error.
#[derive(Debug, Clone)]
pub enum RuleOutcome {
    /// Its conditions held.
    Matched,
    /// They did not.
    NotMatched,
    /// They could not be evaluated.
    Failed(EvalError),
}

impl std::fmt::Display for RuleOutcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RuleOutcome::Matched => f.write_str("matched"),
            RuleOutcome::NotMatched => f.write_str("not matched"),
            RuleOutcome::Failed(e) => write!(f, "error: {e}"),
        }
    }
}

impl Serialize for RuleOutcome {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Records every step, for `explain`.
#[derive(Debug, Default, Clone, Serialize)]
pub struct Trace {
    /// Steps in order.
    pub steps: Vec<Step>,
}

impl Tracer for Trace {
    fn enabled(&self) -> bool {
        true
    }
    fn step(&mut self, step: Step) {
        self.steps.push(step);
    }
}

/// Shorten a value for display in a trace.
pub fn abridge(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max).collect();
    t.push_str(&format!("… ({} chars)", s.chars().count()));
    t
}
