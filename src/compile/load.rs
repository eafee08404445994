//! Stages 1 to 3 for one event: read the policies, parse them, validate only the
//! rules the event can reach, compile that bucket. A policy that cannot be read
//! or parsed becomes a bucket with no rules and one broken entry, so its failure
//! mode applies exactly like a broken rule's.

use std::sync::Arc;

use crate::compile::index;
use crate::compile::{self, Compiled};
use crate::contract::Event;
use crate::diagnostics::Diagnostic;
use crate::policy::discover::Found;
use crate::policy::syntax::{CombineMode, FailureMode, RawRule, UnparsableCommand};
use crate::policy::{layering, parse};
use crate::source::{Origin, PolicySource};
use crate::validate::{self, model::Policy, sniff_failure_mode};

/// Does a raw rule name this event (or `*`, or `+Event`)?
pub fn rule_reaches(raw: &RawRule, event: &str) -> bool {
    raw.events.value.iter().any(|e| {
        let e = e.value.as_str();
        e == "*" || e == event || e.strip_prefix('+') == Some(event)
    })
}

/// How `run` loads: whether to use the index, where it is cached, and the raw
/// event (for needles).
#[derive(Debug, Clone, Copy)]
pub struct Options<'a> {
    /// Index use.
    pub index: index::Mode,
    /// Cache directory for the index.
    pub cache: Option<&'a std::path::Path>,
    /// The event as read from stdin.
    pub raw: &'a [u8],
}

/// Load and compile what an event can reach, reading every rule (for `explain`).
pub fn for_event(found: &Found, event: &Event) -> Compiled {
    for_event_with(
        found,
        event,
        &Options {
            index: index::Mode::Off,
            cache: None,
            raw: &[],
        },
    )
}

/// Load and compile what an event can reach; with the index, rules the event
/// cannot reach are not even parsed.
pub fn for_event_with(found: &Found, event: &Event, opts: &Options) -> Compiled {
    let mut policies: Vec<(Policy, crate::validate::BrokenRules)> = vec![];
    for d in &found.errors {
        policies.push(broken_policy(None, d.clone()));
    }
    let indexed = index::wanted(opts.index, &found.sources, opts.cache)
        .then(|| index::load_or_build(&found.sources, opts.cache))
        .flatten()
        .map(|ix| index::select(&ix, &found.sources, event, opts.raw));
    if let Some(None) = indexed {
        // No rule of any policy can reach this event.
        return compile::compile(policies, &event.name, event.matcher_value());
    }
    let sources = indexed
        .as_ref()
        .and_then(|s| s.as_ref())
        .unwrap_or(&found.sources);
    let mut parsed = vec![];
    for source in sources {
        match parse::parse(source) {
            Ok(raw) => parsed.push((source.clone(), raw)),
            Err(d) => policies.push(broken_policy(Some(source), d)),
        }
    }
    let layered = layering::apply(parsed);
    for (source, raw) in &layered.policies {
        let select = |r: &RawRule| rule_reaches(r, &event.name);
        let v = validate::validate(source, raw, &select);
        policies.push((v.policy, v.broken_rules));
    }
    let mut compiled = compile::compile(policies, &event.name, event.matcher_value());
    compiled.notes = layered.notes;
    compiled
}

/// A stand-in for a policy that could not be loaded at all.
fn broken_policy(
    source: Option<&Arc<PolicySource>>,
    d: Diagnostic,
) -> (Policy, crate::validate::BrokenRules) {
    let source = source
        .cloned()
        .or_else(|| d.source.clone())
        .unwrap_or_else(|| PolicySource::new(Origin::Builtin("unreadable"), ""));
    let failure = sniff_failure_mode(&source.text).unwrap_or(FailureMode::FailClosed);
    let name = source.stem();
    let policy = Policy {
        name: name.clone(),
        source,
        failure,
        combine: CombineMode::All,
        unparsable: UnparsableCommand::Regex,
        zone: Default::default(),
        rules: vec![],
        facts: Default::default(),
    };
    (policy, vec![(format!("{name}:load"), vec![d])])
}

/// The failure mode that applies when no event can be evaluated (bad stdin):
/// fail-open only if every policy says so.
pub fn overall_failure_mode(found: &Found) -> FailureMode {
    if !found.errors.is_empty() {
        return FailureMode::FailClosed;
    }
    let all_open = found
        .sources
        .iter()
        .all(|s| sniff_failure_mode(&s.text) == Some(FailureMode::FailOpen));
    if all_open && !found.sources.is_empty() {
        FailureMode::FailOpen
    } else {
        FailureMode::FailClosed
    }
}
