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
//! - Composition: a rule with `defer = true` (routing, guidance) stands aside,
//!   with everything it said, when a rule that does not defer decides `ask` or
//!   stricter and at least as strictly as it; among the deferring rules that
//!   decide and remain, only the first (priority order) speaks. So a failed gate
//!   and a handoff never reach the agent together, and "go ahead" guidance never
//!   sits beside a deny. A deferring rule never weakens a decision: it only ever
//!   stands aside for one at least as strict.
//! - An audit rule (`mode = "audit"`) contributes nothing; what it would have
//!   decided is recorded in [`Decision::audit`] for `explain` and the log.

use serde::Serialize;

use crate::eval::{Contribution, Outcome, RuleFailure};
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
    /// The policy of each rule in `determined_by`, in the same order.
    pub policies: Vec<String>,
    /// Every rule that contributed.
    pub matched: Vec<String>,
    /// Deferring rules that matched but stood aside, each with the rule it deferred to.
    pub deferred: Vec<(String, String)>,
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
    /// Audit rules that matched: what each would have decided.
    pub audit: Vec<AuditHit>,
    /// Every rule that failed (typed; `errors` and the fail-closed reasons
    /// are rendered from these), for `hookrules test`.
    #[serde(skip)]
    pub failures: Vec<RuleFailure>,
}

/// An audit rule that matched: evaluated and recorded, but it decided nothing.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct AuditHit {
    /// Rule id.
    pub rule: String,
    /// Its policy.
    pub policy: String,
    /// What it would have decided.
    pub decision: Option<DecisionKind>,
    /// Its rendered reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Decide: combine what evaluation found (contributions in priority order, and
/// failures that were only reported) into one decision.
pub fn decide(outcome: &Outcome) -> Decision {
    Decision {
        failures: outcome.failures.clone(),
        ..combine(&outcome.contributions, outcome.errors.clone())
    }
}

/// Combine contributions (already in priority order) into one decision.
pub fn combine(all: &[Contribution], errors: Vec<String>) -> Decision {
    let audit = all
        .iter()
        .filter(|c| c.audit)
        .map(|c| AuditHit {
            rule: c.rule.clone(),
            policy: c.policy.clone(),
            decision: c.decision,
            reason: c.reason.clone(),
        })
        .collect();
    let enforced: Vec<Contribution> = all.iter().filter(|c| !c.audit).cloned().collect();
    let (kept, deferred) = settle_deferring(&enforced);
    let contributions: Vec<Contribution> = kept.into_iter().cloned().collect();
    let contributions = &contributions[..];
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
        policies: determining.iter().map(|c| c.policy.clone()).collect(),
        matched: enforced.iter().map(|c| c.rule.clone()).collect(),
        deferred,
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
        audit,
        failures: vec![],
    }
}

/// Split contributions into those that speak and the deferring ones that stand
/// aside (each with the rule it stood aside for).
fn settle_deferring(all: &[Contribution]) -> (Vec<&Contribution>, Vec<(String, String)>) {
    let firm = all
        .iter()
        .filter(|c| !c.defer)
        .max_by_key(|c| strictness(c.decision))
        .filter(|c| strictness(c.decision) >= strictness(Some(DecisionKind::Ask)));
    let stands_aside_for =
        |c: &Contribution| firm.filter(|f| strictness(f.decision) >= strictness(c.decision));
    // One routing instruction: of the deferring rules that decide and remain, the
    // strictest, and of those the first in priority order.
    let mut speaker: Option<&Contribution> = None;
    for c in all.iter().filter(|c| c.defer && c.decision.is_some()) {
        if stands_aside_for(c).is_none()
            && speaker.is_none_or(|s| strictness(c.decision) > strictness(s.decision))
        {
            speaker = Some(c);
        }
    }
    let mut kept = vec![];
    let mut deferred = vec![];
    for c in all {
        if !c.defer {
            kept.push(c);
        } else if let Some(f) = stands_aside_for(c) {
            deferred.push((c.rule.clone(), f.rule.clone()));
        } else if let Some(s) = speaker.filter(|s| c.decision.is_some() && !std::ptr::eq(*s, c)) {
            deferred.push((c.rule.clone(), s.rule.clone()));
        } else {
            kept.push(c);
        }
    }
    (kept, deferred)
}

/// One line on how a decision came about, for traces.
pub fn describe(decision: &Decision, contributions: usize) -> String {
    match &decision.kind {
        None if contributions == 0 => "no rule matched: no opinion (empty output)".to_string(),
        None => format!("{contributions} rule(s) matched, none decided: context/messages only"),
        Some(k) => format!(
            "strictest decision `{}` (stop > deny = block > ask > allow), determined by {}{}",
            k.as_str(),
            decision.determined_by.join(", "),
            stood_aside(decision)
        ),
    }
}

fn stood_aside(decision: &Decision) -> String {
    if decision.deferred.is_empty() {
        return String::new();
    }
    let each: Vec<String> = decision
        .deferred
        .iter()
        .map(|(d, f)| format!("{d} (deferred to {f})"))
        .collect();
    format!("; stood aside: {}", each.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(rule: &str, decision: Option<DecisionKind>, defer: bool) -> Contribution {
        Contribution {
            policy: "p".into(),
            rule: rule.into(),
            priority: 0,
            decision,
            defer,
            reason: decision.map(|_| format!("{rule} says so")),
            context: vec![format!("{rule} context")],
            message: None,
            rewrite: vec![],
            audit: false,
        }
    }
    use DecisionKind::*;

    #[test]
    fn an_audit_rule_decides_nothing_and_is_recorded_apart() {
        let audit = Contribution {
            audit: true,
            ..c("new-rule", Some(Deny), false)
        };
        let d = combine(&[audit, c("old", Some(Allow), false)], vec![]);
        assert_eq!(d.kind, Some(Allow));
        assert_eq!(d.determined_by, vec!["old"]);
        assert!(d.reason.as_deref() == Some("old says so") && d.context == vec!["old context"]);
        assert_eq!(d.audit.len(), 1);
        assert_eq!(
            (d.audit[0].rule.as_str(), d.audit[0].decision),
            ("new-rule", Some(Deny))
        );
    }

    #[test]
    fn a_gate_silences_a_handoff() {
        let d = combine(
            &[
                c("tdd-gate", Some(Block), false),
                c("handoff", Some(Block), true),
            ],
            vec![],
        );
        assert_eq!(d.kind, Some(Block));
        assert_eq!(d.determined_by, vec!["tdd-gate"]);
        assert_eq!(d.reason.as_deref(), Some("tdd-gate says so"));
        assert_eq!(d.context, vec!["tdd-gate context"]);
        assert_eq!(
            d.deferred,
            vec![("handoff".to_string(), "tdd-gate".to_string())]
        );
        assert_eq!(d.matched, vec!["tdd-gate", "handoff"]);
    }

    #[test]
    fn guidance_stands_aside_for_a_deny_but_not_for_an_allow_or_nothing() {
        let d = combine(
            &[c("guide", None, true), c("deny", Some(Deny), false)],
            vec![],
        );
        assert_eq!(d.context, vec!["deny context"]);
        let d = combine(
            &[c("guide", None, true), c("ok", Some(Allow), false)],
            vec![],
        );
        assert_eq!(d.context, vec!["guide context", "ok context"]);
        let d = combine(&[c("guide", None, true), c("note", None, false)], vec![]);
        assert_eq!(d.context.len(), 2);
    }

    #[test]
    fn deferring_never_weakens_a_decision() {
        // A deferring block beside a firm ask: the block still wins.
        let d = combine(
            &[c("ask", Some(Ask), false), c("route", Some(Block), true)],
            vec![],
        );
        assert_eq!(d.kind, Some(Block));
        assert_eq!(d.determined_by, vec!["route"]);
        // A deferring deny beside a firm allow: still denied.
        let d = combine(
            &[c("allow", Some(Allow), false), c("d", Some(Deny), true)],
            vec![],
        );
        assert_eq!(d.kind, Some(Deny));
    }

    #[test]
    fn of_two_routes_the_first_speaks_alone() {
        let d = combine(
            &[
                c("phase", Some(Block), true),
                c("handoff", Some(Block), true),
                c("g", None, true),
            ],
            vec![],
        );
        assert_eq!(d.determined_by, vec!["phase"]);
        assert_eq!(d.reason.as_deref(), Some("phase says so"));
        assert_eq!(d.context, vec!["phase context", "g context"]);
        // A stricter later route wins over an earlier milder one.
        let d = combine(&[c("a", Some(Ask), true), c("b", Some(Deny), true)], vec![]);
        assert_eq!(d.determined_by, vec!["b"]);
        assert_eq!(d.deferred, vec![("a".to_string(), "b".to_string())]);
    }
}
