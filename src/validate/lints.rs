//! Warnings about policy bugs that are valid TOML and valid rules: rules that match
//! everything or nothing, shadowed first-match rules, unused definitions, Stop
//! blocks that ignore `stop_hook_active`, context that cannot reach the model.

use std::sync::Arc;

use super::headings;
use super::model::{Condition, EventScope, Matcher, Op, Policy, Rule, Selector};
use super::Validated;
use crate::contract::events;
use crate::contract::hosts::adapter::{Caps, Gives, Outcome};
use crate::contract::hosts::Host;
use crate::diagnostics::{Code, Diagnostic};
use crate::policy::syntax::{CombineMode, DecisionKind, RawPolicy};

/// Lint a fully validated policy (all rules selected).
pub fn lint(v: &Validated, raw: &RawPolicy) -> Vec<Diagnostic> {
    let p = &v.policy;
    let src = &p.source;
    let mut out = vec![];
    for (name, l) in &raw.lists {
        if !v.used.contains(&format!("list:{name}")) {
            out.push(
                Diagnostic::new(Code::Unused, format!("list `{name}` is never used"))
                    .help("delete it, or use it; if it is kept on purpose, allow = [\"HR104\"] in [policy]")
                    .at(src, l.span.clone()),
            );
        }
    }
    for (name, c) in &raw.conditions {
        if !v.used.contains(&format!("condition:{name}")) {
            out.push(
                Diagnostic::new(Code::Unused, format!("condition `{name}` is never used"))
                    .help("delete it, or use it; if it is kept on purpose, allow = [\"HR104\"] in [policy]")
                    .at(src, c.span.clone()),
            );
        }
    }
    for (name, f) in &raw.facts {
        if !v.used.contains(&format!("fact:{name}")) {
            out.push(
                Diagnostic::new(Code::Unused, format!("fact `{name}` is never used"))
                    .help("delete it, or use it; if it is kept on purpose, allow = [\"HR104\"] in [policy]")
                    .at(src, f.span.clone()),
            );
        }
    }
    for f in raw.facts.values() {
        for entry in &f.value.headings {
            if let (_, Some(problem)) = headings::Wanted::parse(&entry.value) {
                out.push(
                    Diagnostic::new(Code::HeadingNeverMatches, problem.message(&entry.value))
                        .label("never found as written")
                        .help(problem.help())
                        .at(src, entry.span.clone()),
                );
            }
        }
    }
    for rule in &p.rules {
        lint_rule(p, rule, &mut out);
    }
    if p.combine == CombineMode::FirstMatch {
        shadowed(p, &mut out);
    }
    out
}

fn lint_rule(p: &Policy, rule: &Arc<Rule>, out: &mut Vec<Diagnostic>) {
    let src = &p.source;
    let at = |code, msg: String| Diagnostic::new(code, msg).at(src, rule.id_span.clone());
    if !rule.enabled {
        out.push(
            at(Code::NeverFires, format!("rule `{}` is disabled", rule.id))
                .help("delete it, or remove `enabled = false`"),
        );
    } else if rule.when.as_ref().is_some_and(never_matches) {
        out.push(
            at(
                Code::NeverFires,
                format!("rule `{}` has a condition that can never hold", rule.id),
            )
            .help("an empty `any = []` matches nothing"),
        );
    } else if let Matcher::Exact(v) = &rule.matcher {
        if v.is_empty() {
            out.push(at(
                Code::NeverFires,
                format!("rule `{}` has an empty matcher list", rule.id),
            ));
        }
    }
    if rule.events == EventScope::All
        && matches!(rule.matcher, Matcher::Any)
        && rule.event_matchers.is_empty()
        && rule.when.is_none()
        && rule.unless.is_none()
    {
        out.push(
            at(
                Code::MatchesEverything,
                format!("rule `{}` fires on every event", rule.id),
            )
            .help("narrow `events`, add a `matcher`, or add a `when` condition"),
        );
    }
    let names: Vec<&str> = match &rule.events {
        EventScope::All => vec![],
        EventScope::Named(v) => v.iter().map(|s| s.as_str()).collect(),
    };
    let blocks = matches!(
        rule.decision,
        Some(DecisionKind::Block | DecisionKind::Deny)
    );
    if blocks
        && names.iter().any(|n| *n == "Stop" || *n == "SubagentStop")
        && !mentions_field(rule.when.as_ref(), "stop_hook_active")
        && !mentions_field(rule.unless.as_ref(), "stop_hook_active")
    {
        out.push(at(Code::StopLoop, format!("rule `{}` blocks Stop/SubagentStop without checking `stop_hook_active`", rule.id))
            .help("add { field = \"stop_hook_active\", equals = false } to release after one block, if that is what you want"));
    }
    for n in &names {
        let Some(spec) = events::spec(n) else {
            continue;
        };
        if (rule.context.is_some() || !rule.include.is_empty()) && !spec.context {
            out.push(at(
                Code::ContextDropped,
                format!(
                    "{n} cannot carry context to the model; rule `{}`'s context is dropped there",
                    rule.id
                ),
            )
            .help("use `message` to tell the user instead, or give the context on an event that carries it (SessionStart `compact` follows compaction)"));
        }
        if !rule.rewrite.is_empty() && !matches!(*n, "PreToolUse" | "PermissionRequest") {
            out.push(
                at(
                    Code::ContextDropped,
                    format!("`rewrite` has no effect on {n}"),
                )
                .help("`rewrite` changes a tool's input: it applies on PreToolUse (and PermissionRequest with `allow`)"),
            );
        }
    }
}

/// An empty `any` (or a condition made only of them) never matches.
fn never_matches(c: &Condition) -> bool {
    match c {
        Condition::Any(v) => v.iter().all(never_matches),
        Condition::All(v) => v.iter().any(never_matches),
        Condition::Ref(n) => never_matches(&n.condition),
        Condition::Not(_) | Condition::Test(_) => false,
    }
}

fn mentions_field(c: Option<&Condition>, field: &str) -> bool {
    let Some(c) = c else { return false };
    match c {
        Condition::All(v) | Condition::Any(v) => v.iter().any(|c| mentions_field(Some(c), field)),
        Condition::Not(c) => mentions_field(Some(c), field),
        Condition::Ref(n) => mentions_field(Some(&n.condition), field),
        Condition::Test(t) => match (&t.selector, &t.op) {
            (Selector::Field(p), _) => p.head() == Some(field),
            (_, Op::Command(_)) => false,
            _ => t.selector_text.contains(field),
        },
    }
}

/// In a first-match policy, a rule with no condition and no matcher shadows every
/// later-priority rule on the same events.
fn shadowed(p: &Policy, out: &mut Vec<Diagnostic>) {
    let mut rules: Vec<&Arc<Rule>> = p.rules.iter().filter(|r| r.enabled).collect();
    rules.sort_by_key(|r| (r.priority, r.order));
    for (i, early) in rules.iter().enumerate() {
        if early.when.is_some()
            || early.unless.is_some()
            || !matches!(early.matcher, Matcher::Any)
            || !early.event_matchers.is_empty()
        {
            continue;
        }
        for late in &rules[i + 1..] {
            let covered = match (&early.events, &late.events) {
                (EventScope::All, _) => true,
                (EventScope::Named(a), EventScope::Named(b)) => b.iter().all(|e| a.contains(e)),
                _ => false,
            };
            if covered {
                out.push(
                    Diagnostic::new(
                        Code::Shadowed,
                        format!(
                            "rule `{}` is never reached: `{}` always matches first",
                            late.id, early.id
                        ),
                    )
                    .at(&p.source, late.id_span.clone())
                    .help(format!(
                        "give `{}` a condition, or a lower priority number than {}",
                        late.id, early.priority
                    )),
                );
            }
        }
    }
}

/// HR118: for each rule and each host in `hosts` (the agents the project has
/// registered hookrules for) that the rule does not exclude by `host.name`, the
/// answers Claude Code's contract takes on the rule's events but the host's
/// events that map to them drop (the host's capability table, its adapter's).
pub fn per_host(p: &Policy, hosts: &[Host]) -> Vec<Diagnostic> {
    let mut out = vec![];
    for rule in p.rules.iter().filter(|r| r.enabled) {
        let EventScope::Named(names) = &rule.events else {
            continue;
        };
        let named = named_hosts(rule.when.as_ref());
        for &host in hosts {
            if named.as_ref().is_some_and(|n| !n.contains(&host)) {
                continue;
            }
            let lost = dropped(rule, names, host);
            if lost.is_empty() {
                continue;
            }
            let what: Vec<String> = lost
                .iter()
                .map(|(answer, on)| format!("{answer} on {}", on.join(", ")))
                .collect();
            out.push(
                Diagnostic::new(
                    Code::HostCannotDecide,
                    format!(
                        "{} cannot give rule `{}`'s {}",
                        host.title(),
                        rule.id,
                        what.join("; ")
                    ),
                )
                .help(format!(
                    "{} drops that answer there and goes on without it; narrow the rule with `when = {{ field = \"host.name\", one_of = [...] }}`, or allow = [\"HR118\"] on it",
                    host.title()
                ))
                .at(&p.source, rule.id_span.clone()),
            );
        }
    }
    out
}

/// The rule's answers the host drops, each with the host's events it drops them on.
fn dropped(rule: &Rule, names: &[String], host: Host) -> Vec<(String, Vec<&'static str>)> {
    let mut lost: Vec<(String, Vec<&'static str>)> = vec![];
    let mut note =
        |answer: String, on: &'static str| match lost.iter_mut().find(|(a, _)| *a == answer) {
            Some((_, v)) => v.push(on),
            None => lost.push((answer, vec![on])),
        };
    for e in host.adapter().registered() {
        if !names.iter().any(|n| n == e.canonical) {
            continue;
        }
        let Some(spec) = events::spec(e.canonical) else {
            continue;
        };
        let contract = Caps::canonical(spec);
        if let Some(kind) = rule.decision {
            let outcome = Outcome::from(kind);
            // An allow that rewrites is given with the rewrite (Codex reads no other).
            let rewrites = outcome == Outcome::Allow && !rule.rewrite.is_empty() && e.caps.rewrite;
            if contract.gives(outcome) != Gives::No
                && e.caps.gives(outcome) == Gives::No
                && !rewrites
            {
                note(format!("`{}`", kind.as_str()), e.name);
            }
        }
        let context = rule.context.is_some() || !rule.include.is_empty();
        if context && contract.context && !e.caps.context {
            note("context".into(), e.name);
        }
        if !rule.rewrite.is_empty() && contract.rewrite && !e.caps.rewrite {
            note("`rewrite`".into(), e.name);
        }
    }
    lost
}

/// The hosts a rule's `when` confines it to (`host.name` equals or one of, at
/// the top or under `all`), if it names any.
fn named_hosts(c: Option<&Condition>) -> Option<Vec<Host>> {
    match c? {
        Condition::All(v) => v.iter().find_map(|c| named_hosts(Some(c))),
        Condition::Ref(n) => named_hosts(Some(&n.condition)),
        Condition::Test(t) if t.selector_text == "host.name" => {
            let names: Vec<&serde_json::Value> = match &t.op {
                Op::Equals(v) => vec![v],
                Op::OneOf(v) => v.iter().collect(),
                _ => return None,
            };
            Some(
                names
                    .into_iter()
                    .filter_map(|v| {
                        let name = v.as_str()?;
                        Host::ALL.into_iter().find(|h| h.name() == name)
                    })
                    .collect(),
            )
        }
        _ => None,
    }
}
