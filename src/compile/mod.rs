//! Stage 3: the validated rules one event can reach, ready to evaluate.
//!
//! Only the bucket for the event's name and matcher value is compiled: rules are
//! filtered by event before they are even validated (see [`crate::compile::load`]), then by
//! the client's matcher here, and sorted by priority. Templates are compiled into
//! one minijinja environment; a template that does not compile breaks its rule.

pub mod index;
pub mod load;
pub mod templates;

use std::sync::Arc;

use crate::contract::events::tool_aliases;
use crate::diagnostics::Diagnostic;
use crate::validate::model::{Matcher, Policy, Rule};
pub use templates::Templates;

/// The rules of one policy that can apply to one event.
#[derive(Debug)]
pub struct Bucket {
    /// The validated policy.
    pub policy: Policy,
    /// Rules that reach the event, by (priority, file order).
    pub rules: Vec<Arc<Rule>>,
    /// Rules skipped by the index, with the reason (for `explain`).
    pub skipped: Vec<(Arc<Rule>, String)>,
    /// Rules for this event that could not be validated or compiled.
    pub broken: Vec<(String, Vec<Diagnostic>)>,
}

/// Everything `run` needs for one event.
#[derive(Debug)]
pub struct Compiled {
    /// One bucket per policy, in load order.
    pub buckets: Vec<Bucket>,
    /// Every template of every reachable rule and fact.
    pub templates: Templates,
    /// Where rules came from: replacements and overrides by later layers.
    pub notes: std::collections::BTreeMap<String, Vec<String>>,
}

/// Does the client's matcher accept this value (and its legacy aliases)?
pub fn matcher_accepts(m: &Matcher, value: Option<&str>) -> bool {
    match m {
        Matcher::Any => true,
        Matcher::Exact(names) => value.is_some_and(|v| {
            names
                .iter()
                .any(|n| n == v || tool_aliases(v).contains(&n.as_str()))
        }),
        Matcher::Regex(re) => {
            value.is_some_and(|v| re.is_match(v) || tool_aliases(v).iter().any(|a| re.is_match(a)))
        }
    }
}

/// Build the bucket for an event from validated policies.
///
/// `matcher_value` is the event's matcher field (tool name, source, ...), or `None`
/// for events without one (their rules' matchers are then ignored, as the client does).
pub fn compile(
    policies: Vec<(Policy, crate::validate::BrokenRules)>,
    event: &str,
    matcher_value: Option<Option<&str>>,
) -> Compiled {
    let mut templates = Templates::new();
    let mut buckets = vec![];
    for (pidx, (policy, mut broken)) in policies.into_iter().enumerate() {
        let mut rules = vec![];
        let mut skipped = vec![];
        for rule in &policy.rules {
            if !rule.enabled {
                skipped.push((rule.clone(), "disabled".to_string()));
                continue;
            }
            if !rule.events.includes(event) {
                skipped.push((rule.clone(), format!("not for {event}")));
                continue;
            }
            if let Some(value) = matcher_value {
                let (matcher, text) = rule.matcher_for(event);
                if !matcher_accepts(matcher, value) {
                    skipped.push((
                        rule.clone(),
                        format!(
                            "matcher `{}` does not accept `{}`",
                            text.unwrap_or(""),
                            value.unwrap_or("")
                        ),
                    ));
                    continue;
                }
            }
            let errors = templates.add_rule(pidx, &policy, rule);
            if errors.is_empty() {
                rules.push(rule.clone());
            } else {
                broken.push((rule.id.clone(), errors));
            }
        }
        // Facts are shared by rules; a fact template that fails to compile surfaces
        // when the fact is computed.
        for fact in policy.facts.values() {
            let _ = templates.add_fact(pidx, &policy, fact);
        }
        rules.sort_by_key(|r| (r.priority, r.order));
        buckets.push(Bucket {
            policy,
            rules,
            skipped,
            broken,
        });
    }
    Compiled {
        buckets,
        templates,
        notes: Default::default(),
    }
}
