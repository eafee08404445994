//! Stage 5: combining what the matching rules said into one decision.
//!
//! The rules, in one place:
//! - Every policy is evaluated. In a `combine = "all"` policy every matching rule
//!   contributes; in a `first-match` policy only the first matching rule by
//!   (priority, file order) does.
//! - The strictest decision wins: stop > deny = block > ask > allow > none, the
//!   order the client itself uses when it merges hooks (reference §2.5).
//! - The rules whose decision is the winning one *determine* it; their reasons
//!   are joined (priority order) into the reason.
//! - Context, user messages and included files of every contributing rule
//!   accumulate in priority order, whatever the decision.
//! - Rewrites of `tool_input` apply only when the outcome lets the tool run; for a
//!   field rewritten by several rules, the highest-priority rule wins.
//! - A rule that fails (a fact fails, a template errors, a command times out) in a
//!   fail-closed policy contributes a block naming the failure; in a fail-open
//!   policy it contributes nothing and the failure is reported.

use serde::Serialize;

use crate::eval::{Contribution, Outcome};
use crate::policy::syntax::DecisionKind;

/// How strict a decision is (higher wins).
pub fn strictness(d: Option<DecisionKind>) -> u8 {
    match d {
        None => 0,
        Some(DecisionKind::Allow) => 1,
        Some(DecisionKind::Ask) => 2,
        Some(DecisionKind::Deny | DecisionKind::Block) => 3,
        Some(DecisionKind::Stop) => 4,
    }
}

/// The combined decision, with its reasons.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Decision {
    /// The winning decision (None: no opinion).
    pub kind: Option<DecisionKind>,
    /// Rules whose decision is the winning one.
    pub determined_by: Vec<String>,
    /// Every rule that contributed.
    pub matched: Vec<String>,
    /// The reason (reasons of the determining rules, joined).
    pub reason: Option<String>,
    /// Context for the model, in priority order.
    pub context: Vec<String>,
    /// Messages for the user, in priority order.
    pub messages: Vec<String>,
    /// tool_input field rewrites to apply (empty when the tool will not run).
    pub rewrite: Vec<(String, String)>,
    /// Failures that were reported rather than blocking (fail-open), and notes.
    pub errors: Vec<String>,
}

/// Decide: combine what evaluation found (contributions in priority order, and
/// failures that were only reported) into one decision.
pub fn decide(outcome: &Outcome) -> Decision {
    combine(&outcome.contributions, outcome.errors.clone())
}

/// Combine contributions (already in priority order) into one decision.
pub fn combine(contributions: &[Contribution], errors: Vec<String>) -> Decision {
    let top = contributions
        .iter()
        .map(|c| strictness(c.decision))
        .max()
        .unwrap_or(0);
    let determining: Vec<&Contribution> = contributions
        .iter()
        .filter(|c| top > 0 && strictness(c.decision) == top)
        .collect();
    let kind = determining.first().and_then(|c| c.decision);
    let reasons: Vec<&str> = determining
        .iter()
        .filter_map(|c| c.reason.as_deref())
        .collect();
    let runs = matches!(kind, None | Some(DecisionKind::Allow));
    let mut rewrite: Vec<(String, String)> = vec![];
    if runs {
        for c in contributions {
            for (k, v) in &c.rewrite {
                if !rewrite.iter().any(|(k2, _)| k2 == k) {
                    rewrite.push((k.clone(), v.clone()));
                }
            }
        }
    }
    Decision {
        kind,
        determined_by: determining.iter().map(|c| c.rule.clone()).collect(),
        matched: contributions.iter().map(|c| c.rule.clone()).collect(),
        reason: (!reasons.is_empty()).then(|| reasons.join("\n")),
        context: contributions
            .iter()
            .flat_map(|c| c.context.iter().cloned())
            .collect(),
        messages: contributions
            .iter()
            .filter_map(|c| c.message.clone())
            .collect(),
        rewrite,
        errors,
    }
}

/// One line on how a decision came about, for traces.
pub fn describe(decision: &Decision, contributions: usize) -> String {
    match &decision.kind {
        None if contributions == 0 => "no rule matched: no opinion (empty output)".to_string(),
        None => format!("{contributions} rule(s) matched, none decided: context/messages only"),
        Some(k) => format!(
            "strictest decision `{}` (stop > deny = block > ask > allow), determined by {}",
            k.as_str(),
            decision.determined_by.join(", ")
        ),
    }
}
