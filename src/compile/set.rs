//! A policy set compiled once: every layered, validated policy of one project,
//! with the table of which rules each event reaches. `run` gets it from a
//! verified artifact or builds it (and stores the artifact); everything that asks
//! which rules an event reaches (`run`, `explain`, `test`, `check`) asks
//! [`CompiledSet::for_event`].

use std::collections::BTreeMap;
use std::sync::Arc;

use super::provenance::{self, Provenance};
use super::reach::{self, RuleId, RuleInfo, Table};
use super::{Bucket, Compiled, Templates};
use crate::contract::{events, Event};
use crate::diagnostics::Diagnostic;
use crate::policy::discover::Found;
use crate::policy::log::LogTable;
use crate::policy::syntax::{CombineMode, FailureMode, RawPolicy, UnparsableCommand};
use crate::policy::{layering, parse};
use crate::source::{Layer, Origin, PolicySource};
use crate::validate::model::{EventScope, Policy, Rule};
use crate::validate::{self, sniff_failure_mode};

/// A compiled policy set.
#[derive(Debug)]
pub struct CompiledSet {
    /// The policies, in load order (a policy that could not be loaded has no rules).
    pub policies: Vec<Arc<Policy>>,
    /// Every rule, by id: in policy order, then file order.
    pub rules: Vec<SetRule>,
    /// Which rules each event reaches.
    pub table: Table,
    /// Where rules came from: replacements and overrides by later layers.
    pub notes: BTreeMap<String, Vec<String>>,
    /// The failure mode when no event can be evaluated (bad stdin).
    pub failure: FailureMode,
    /// The `[log]` tables, in load order (the decision log's settings).
    pub log: Vec<LogTable>,
    /// The SHA-256 of the policy set and its bundles, recorded with every decision.
    pub provenance: Provenance,
    /// What project-layer policies loosen or run, trusted or not (the
    /// untrusted ones were left out; see `policy::loosening`).
    pub loosenings: Vec<crate::policy::loosening::Loosening>,
}

/// One rule of a set: valid, or broken with its errors.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct SetRule {
    /// Index of its policy.
    pub policy: usize,
    /// Its id.
    pub id: String,
    /// The rule; `None` when it did not validate (it then breaks every event its
    /// `events` name, whatever its matcher).
    pub rule: Option<Arc<Rule>>,
    /// Its events (as written, for a rule that did not validate).
    pub scope: EventScope,
    /// Errors (validation or templates), one line each; empty when usable.
    pub errors: Vec<String>,
}

/// How a bucket is asked for.
#[derive(Debug, Clone, Copy, Default)]
pub struct Query {
    /// Leave out rules whose requirements the event does not meet (`run`).
    pub prefilter: bool,
    /// Say why rules in scope are left out (`explain`).
    pub explain: bool,
}

impl CompiledSet {
    /// Parse, layer, validate and compile everything `found` holds.
    pub fn build(found: &Found) -> CompiledSet {
        let mut set = CompiledSet {
            policies: vec![],
            rules: vec![],
            table: Table::default(),
            notes: BTreeMap::new(),
            failure: overall_failure_mode(found),
            log: vec![],
            provenance: Provenance::default(),
            loosenings: vec![],
        };
        for d in &found.errors {
            set.add_unloadable(None, d);
        }
        let mut parsed = vec![];
        for source in &found.sources {
            match parse::parse(source) {
                Ok(raw) => parsed.push((source.clone(), raw)),
                Err(d) => set.add_unloadable(Some(source), &d),
            }
        }
        set.provenance = provenance_of(found, &parsed);
        let layered = layering::apply(parsed, &found.trusted, &found.managed.pinned_builtin);
        // The managed layer's `[log]` tables come last, so theirs is the last word.
        let mut managed_log = vec![];
        for (source, raw) in &layered.policies {
            set.add_policy(source, raw);
            let table = raw.log.as_ref().map(|l| LogTable::from(&l.value));
            if source.layer == Layer::Managed {
                managed_log.extend(table.map(|t| LogTable { managed: true, ..t }));
            } else {
                set.log.extend(table);
            }
        }
        set.log.extend(managed_log);
        set.notes = layered.notes;
        set.loosenings = layered.loosenings;
        set.index();
        set
    }

    /// Build the reach table from the rules.
    pub fn index(&mut self) {
        let infos: Vec<RuleInfo<'_>> = self
            .rules
            .iter()
            .map(|r| RuleInfo {
                // A rule whose templates did not compile is always a candidate:
                // it reports itself wherever its matcher lets it.
                rule: r.rule.as_deref(),
                scope: &r.scope,
                always: !r.errors.is_empty(),
            })
            .collect();
        let known: Vec<&str> = events::EVENTS.iter().map(|e| e.name).collect();
        self.table = Table::build(&infos, &known);
    }

    fn add_unloadable(&mut self, source: Option<&Arc<PolicySource>>, d: &Diagnostic) {
        let source = source
            .cloned()
            .or_else(|| d.source.clone())
            .unwrap_or_else(|| PolicySource::new(Origin::Builtin("unreadable"), ""));
        let failure = sniff_failure_mode(&source.text).unwrap_or(FailureMode::FailClosed);
        let name = source.stem();
        self.rules.push(SetRule {
            policy: self.policies.len(),
            id: format!("{name}:load"),
            rule: None,
            scope: EventScope::All,
            errors: vec![d.one_line()],
        });
        self.policies.push(Arc::new(Policy {
            name,
            source,
            failure,
            combine: CombineMode::All,
            unparsable: UnparsableCommand::Regex,
            zone: Default::default(),
            rules: vec![],
            facts: Default::default(),
        }));
    }

    fn add_policy(&mut self, source: &Arc<PolicySource>, raw: &RawPolicy) {
        let pidx = self.policies.len();
        let v = validate::validate(source, raw, &|_| true);
        // Rules that did not validate reach the events they name; a broken
        // `[[override]]` (`override:LINE`) reaches every event, as a file that
        // does not load.
        for (id, errors) in &v.broken_rules {
            let events = raw
                .rules
                .iter()
                .find(|r| r.value.id.value == *id)
                .map(|r| {
                    r.value
                        .events
                        .value
                        .iter()
                        .map(|e| e.value.as_str())
                        .collect()
                })
                .unwrap_or_else(|| vec!["*"]);
            self.rules.push(SetRule {
                policy: pidx,
                id: id.clone(),
                rule: None,
                scope: scope_as_written(events),
                errors: errors.iter().map(Diagnostic::one_line).collect(),
            });
        }
        let mut templates = Templates::new();
        for rule in &v.policy.rules {
            let errors = templates.add_rule(pidx, &v.policy, rule);
            self.rules.push(SetRule {
                policy: pidx,
                id: rule.id.clone(),
                rule: Some(rule.clone()),
                scope: rule.events.clone(),
                errors: errors.iter().map(Diagnostic::one_line).collect(),
            });
        }
        self.policies.push(Arc::new(v.policy));
    }

    /// What one event can reach, ready to evaluate.
    pub fn for_event(&self, event: &Event, query: Query) -> Compiled {
        self.for_event_with(event, query, None)
    }

    /// [`Self::for_event`], with the paths of commands known to the prefilter.
    pub fn for_event_with(
        &self,
        event: &Event,
        query: Query,
        paths: Option<&dyn reach::CommandPaths>,
    ) -> Compiled {
        let mut shells = reach::Shells::new();
        let entry = self.table.entry(&event.name);
        let mut ids = entry.bucket(event, query.prefilter.then_some(&mut shells), paths);
        if query.prefilter {
            let mut commands = reach::field_commands(event, &mut shells);
            ids.retain(|&id| match self.table.gates.get(id as usize) {
                Some(Some(gate)) => gate.holds(&mut commands),
                _ => true,
            });
        }
        self.compile(event, &ids, query, shells)
    }

    /// The buckets of these rules (ids sorted), one per policy.
    pub fn compile(
        &self,
        event: &Event,
        ids: &[RuleId],
        query: Query,
        shells: reach::Shells,
    ) -> Compiled {
        let rules: Vec<&SetRule> = ids.iter().map(|&id| &self.rules[id as usize]).collect();
        let mut compiled = assemble(&self.policies, &rules, &self.notes, shells);
        if query.explain {
            for r in &self.rules {
                if let Some(rule) = &r.rule {
                    if !reach::in_scope(&rule.events, &event.name) {
                        continue;
                    }
                    if let Some(why) = reach::left_out(rule, event) {
                        compiled.buckets[r.policy].skipped.push((rule.clone(), why));
                    }
                }
            }
        }
        compiled
    }
}

/// One bucket per policy from the rules an event reaches (in id order).
pub fn assemble(
    policies: &[Arc<Policy>],
    rules: &[&SetRule],
    notes: &BTreeMap<String, Vec<String>>,
    shells: reach::Shells,
) -> Compiled {
    let mut buckets: Vec<Bucket> = policies
        .iter()
        .map(|p| Bucket {
            policy: p.clone(),
            rules: vec![],
            skipped: vec![],
            broken: vec![],
        })
        .collect();
    let mut templates = Templates::new();
    for r in rules {
        let bucket = &mut buckets[r.policy];
        match &r.rule {
            Some(rule) if r.errors.is_empty() => {
                templates.register_rule(r.policy, &bucket.policy, rule);
                bucket.rules.push(rule.clone());
            }
            _ => bucket.broken.push((r.id.clone(), r.errors.clone())),
        }
    }
    for (pidx, b) in buckets.iter_mut().enumerate() {
        b.rules.sort_by_key(|r| (r.priority, r.order));
        if !b.rules.is_empty() {
            for fact in b.policy.facts.values() {
                templates.register_fact(pidx, &b.policy, fact);
            }
        }
    }
    Compiled {
        buckets,
        templates,
        notes: notes.clone(),
        shells,
    }
}

/// The scope of a rule's `events` as written (`*`, names, `+Future`).
fn scope_as_written(events: Vec<&str>) -> EventScope {
    if events.contains(&"*") {
        return EventScope::All;
    }
    EventScope::Named(
        events
            .into_iter()
            .map(|e| e.strip_prefix('+').unwrap_or(e).to_string())
            .collect(),
    )
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

/// The provenance of what `found` holds (`parsed`: the sources that parsed).
fn provenance_of(found: &Found, parsed: &[(Arc<PolicySource>, RawPolicy)]) -> Provenance {
    let parts: Vec<provenance::Part<'_>> = found
        .sources
        .iter()
        .map(|source| provenance::Part {
            source,
            raw: parsed
                .iter()
                .find(|(s, _)| Arc::ptr_eq(s, source))
                .map(|(_, raw)| raw),
        })
        .collect();
    let unloadable: Vec<String> = found.errors.iter().map(Diagnostic::one_line).collect();
    Provenance::of(&parts, &unloadable)
}
