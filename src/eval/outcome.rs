//! What evaluation found: each matching rule's say, and the side effects it
//! rendered. The `decision` stage combines the first; the `effects` stage runs
//! the second after the answer.

use serde::Serialize;
use serde_json::Value;

use super::EvalError;
use crate::policy::syntax::{DecisionKind, FailureMode};

/// One matching rule's say, before combining.
#[derive(Debug, Clone, Serialize)]
pub struct Contribution {
    /// Policy name.
    pub policy: String,
    /// Rule id (or a synthetic id like `policy:failure`).
    pub rule: String,
    /// Its priority.
    pub priority: i64,
    /// Its decision.
    pub decision: Option<DecisionKind>,
    /// It stands aside for rules that do not defer.
    pub defer: bool,
    /// Rendered reason.
    pub reason: Option<String>,
    /// Rendered context pieces (context, then included files).
    pub context: Vec<String>,
    /// Rendered user message.
    pub message: Option<String>,
    /// Rendered tool_input rewrites.
    pub rewrite: Vec<(String, String)>,
    /// An audit rule: what it would decide is recorded, but it decides nothing.
    pub audit: bool,
}

/// A rendered side effect, waiting to run.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The rule it belongs to.
    pub rule: String,
    /// The policy it belongs to.
    pub policy: String,
    /// That policy's failure mode.
    pub failure: FailureMode,
    /// Rendered path (relative to the project dir, or absolute).
    pub path: Option<String>,
    /// Rendered confinement folder.
    pub within: Option<String>,
    /// What to do.
    pub effect: PendingEffect,
}

/// What a pending effect does.
#[derive(Debug, Clone)]
pub enum PendingEffect {
    /// Write a file atomically.
    WriteFile {
        /// Content.
        content: String,
    },
    /// Write a JSON object atomically, keeping listed keys of the existing file.
    WriteJson {
        /// The new object.
        record: Value,
        /// Keys to keep from the existing file.
        keep: Vec<String>,
    },
    /// Append one JSON line.
    AppendJsonl {
        /// The record.
        record: Value,
    },
    /// Delete a file.
    DeleteFile,
    /// Run a command.
    Run {
        /// Program and arguments.
        argv: Vec<String>,
        /// Timeout.
        timeout_ms: u64,
    },
}

impl Pending {
    /// A short description, for traces and `test`.
    pub fn describe(&self) -> String {
        let p = self.path.as_deref().unwrap_or("");
        match &self.effect {
            PendingEffect::WriteFile { .. } => format!("write_file {p}"),
            PendingEffect::WriteJson { .. } => format!("write_json {p}"),
            PendingEffect::AppendJsonl { .. } => format!("append_jsonl {p}"),
            PendingEffect::DeleteFile => format!("delete_file {p}"),
            PendingEffect::Run { argv, .. } => format!("run {argv:?}"),
        }
    }
}

/// A rule that failed, and how: the one value `run`'s fail-closed reason, the
/// reported errors of a fail-open policy, `explain` and `hookrules test`
/// render from.
#[derive(Debug, Clone)]
pub struct RuleFailure {
    /// The policy.
    pub policy: String,
    /// The rule.
    pub rule: String,
    /// How it failed.
    pub error: RuleError,
}

/// How a rule failed.
#[derive(Debug, Clone)]
pub enum RuleError {
    /// It could not be loaded (the problems `check` reports).
    Broken(Vec<String>),
    /// Its `when` or `unless` could not be evaluated.
    Condition(EvalError),
    /// It matched, but what it says could not be rendered.
    Render(EvalError),
}

impl RuleFailure {
    /// The evaluation error, unless the rule is broken.
    pub fn eval_error(&self) -> Option<&EvalError> {
        match &self.error {
            RuleError::Broken(_) => None,
            RuleError::Condition(e) | RuleError::Render(e) => Some(e),
        }
    }

    /// The reason of the block a fail-closed policy answers with.
    pub fn fail_closed_reason(&self) -> String {
        format!(
            "hookrules: {self}. Policy `{}` is fail-closed, so this is blocked until the policy is fixed (`hookrules check`).",
            self.policy
        )
    }

    /// The error a fail-open policy reports.
    pub fn fail_open_note(&self) -> String {
        format!("{self} (policy `{}` is fail-open: ignored)", self.policy)
    }

    /// The error an audit rule reports (it decides nothing, failed or not).
    pub fn audit_note(&self) -> String {
        format!("{self} (audit rule: reported only)")
    }
}

// Hand-written rather than `thiserror`: the message depends on the inner
// `RuleError` and its source is found through `eval_error`.
impl std::fmt::Display for RuleFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rule = &self.rule;
        match &self.error {
            RuleError::Broken(what) => write!(
                f,
                "rule `{rule}` of policy `{}` is broken: {}",
                self.policy,
                what.join("; ")
            ),
            RuleError::Condition(e) => write!(f, "rule `{rule}` failed: {e}"),
            RuleError::Render(e) => {
                write!(f, "rule `{rule}` matched but could not be rendered: {e}")
            }
        }
    }
}

impl std::error::Error for RuleFailure {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.eval_error().map(|e| e as _)
    }
}
