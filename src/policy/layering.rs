//! Combining policies across files and layers, before validation.
//!
//! Files are taken in load order (user, project, local; a file's `extends` just
//! before it). Then, file by file:
//! 1. a rule whose id was already defined by an earlier file **replaces** it;
//! 2. each `[[override]]` changes the rules loaded before its file, selected by id,
//!    id glob or tag: `enabled`, `priority`, `decision`, `mode`, `add_tags`,
//!    `except` (kept with its file, [`Granted`], for validation to read).
//!
//! Every replacement and override leaves a note on the rule, which `check --rules`
//! and `explain` show, so it is always clear where a rule's behaviour comes from.
//!
//! Before a project-layer file (committed, `*.local.toml`, or extended by
//! them) joins, its loosenings and commands are classified
//! ([`super::loosening::classify`]); unless the user trusted its exact content
//! ([`super::trust`]), they are left out, and the file gets a SessionStart rule
//! that tells the user once per session which file was ignored and what it
//! would have changed.
//!
//! Pinned rules (the managed layer's, and the pack parts it names in
//! `[managed] builtin`; see [`super::managed`]) are loosened by nothing below
//! the managed layer, trusted or not: a same-id rule from another layer is left
//! out instead of replacing them, and an override from another layer applies to
//! them only what [`loosening::override_loosens`] does not call a loosening (a
//! stricter decision, `enforce`, a tag). What trust and the pins refuse is one
//! definition. Each refusal leaves a `kept:` note.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::discover::Trusted;
use super::loosening::{self, Loosening};
use super::syntax::{Granted, RawExcept, RawOverride, RawPolicy, RawRule, Sp};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::{Layer, PolicySource};

/// Policies after layering, with what happened to their rules.
#[derive(Debug, Default)]
pub struct Layered {
    /// The policies, in load order, with replaced rules removed and overrides applied.
    pub policies: Vec<(Arc<PolicySource>, RawPolicy)>,
    /// Rule id to notes (`replaced by …`, `disabled by …`).
    pub notes: BTreeMap<String, Vec<String>>,
    /// Overrides that select nothing.
    pub diagnostics: Vec<Diagnostic>,
    /// Every loosening and command of the project layer, trusted or not (the
    /// untrusted ones were left out).
    pub loosenings: Vec<Loosening>,
}

/// Apply replacements and overrides; leave out what project-layer files that
/// `trusted` does not cover loosen or run, and what any layer below the
/// managed one would loosen of a pinned rule (`pinned_builtin`: the pack parts
/// the managed layer pins, `Found::managed`).
pub fn apply(
    mut policies: Vec<(Arc<PolicySource>, RawPolicy)>,
    trusted: &Trusted,
    pinned_builtin: &[&str],
) -> Layered {
    let mut loosenings = vec![];
    let mut notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut diagnostics = vec![];
    let pinned: Vec<bool> = policies
        .iter()
        .map(|(s, _)| super::managed::pinned(s, pinned_builtin))
        .collect();
    // Live rule ids -> the file defining them; removals wait until they matter
    // (before a file's overrides, and at the end), keeping this linear.
    let mut live: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut pending: Vec<std::collections::HashSet<String>> =
        vec![Default::default(); policies.len()];
    for i in 0..policies.len() {
        // 0. What a project-layer file loosens or runs, and without trust, leave it out.
        if Trusted::needs_trust(policies[i].0.layer) {
            let (head, tail) = policies.split_at_mut(i);
            remove_pending(head, &mut pending[..i]);
            let (src, raw) = &mut tail[0];
            loosenings.extend(judge_project_file(
                src,
                raw,
                head,
                &pinned,
                trusted,
                &mut diagnostics,
            ));
        }
        // 1. Replacement by id (a loosening: a pinned rule is not replaced
        // from below; the same-id rule is left out).
        let managed_here = policies[i].0.layer == Layer::Managed;
        for r in &policies[i].1.rules {
            let id = &r.value.id.value;
            match live.get(id).copied() {
                Some(j) if j < i && pinned[j] && !managed_here => {
                    pending[i].insert(id.clone());
                    let src = &policies[i].0;
                    let what = loosening::What::Replaces {
                        layer: policies[j].0.layer,
                    };
                    notes.entry(id.clone()).or_default().push(format!(
                        "kept: the rule of the same id in {} ({}) is left out: it {}, and this rule is pinned by the managed layer",
                        src.display_name(),
                        src.layer.name(),
                        what.describe()
                    ));
                }
                Some(j) if j < i => {
                    live.insert(id.clone(), i);
                    pending[j].insert(id.clone());
                    let esrc = &policies[j].0;
                    notes.entry(id.clone()).or_default().push(format!(
                        "replaces the rule of the same id in {} ({})",
                        esrc.display_name(),
                        esrc.layer.name()
                    ));
                }
                _ => {
                    live.insert(id.clone(), i);
                }
            }
        }
        if policies[i].1.overrides.is_empty() {
            continue;
        }
        remove_pending(&mut policies[..i], &mut pending[..i]);
        let (head, tail) = policies.split_at_mut(i);
        let (src, raw) = &tail[0];
        let here = format!("{} ({})", src.display_name(), src.layer.name());
        // 2. Overrides of earlier rules.
        for o in &raw.overrides {
            let ov = &o.value;
            let selector = loosening::Selector::of(ov);
            let mut matched = 0;
            for (j, (_, earlier)) in head.iter_mut().enumerate() {
                let guarded = pinned[j] && !managed_here;
                for k in 0..earlier.rules.len() {
                    if !selector.selects(&earlier.rules[k].value) {
                        continue;
                    }
                    matched += 1;
                    // What this override would loosen of a pinned rule stays out.
                    let refused = if guarded {
                        loosening::override_loosens(ov, &earlier.rules[k].value, earlier)
                    } else {
                        vec![]
                    };
                    let r = &mut earlier.rules[k].value;
                    if !refused.is_empty() {
                        let said: Vec<String> = refused.iter().map(|w| w.describe()).collect();
                        notes.entry(r.id.value.clone()).or_default().push(format!(
                            "kept: an override in {here} {} it, left out as this rule is pinned by the managed layer",
                            said.join("; ")
                        ));
                    }
                    let what = apply_override(ov, r, &refused, src);
                    if !what.is_empty() || refused.is_empty() {
                        notes
                            .entry(r.id.value.clone())
                            .or_default()
                            .push(format!("{} by an override in {here}", what.join(", ")));
                    }
                }
            }
            if matched == 0 {
                let sel = match (&ov.rule, &ov.tag) {
                    (Some(r), _) => format!("rule `{}`", r.value),
                    (None, Some(t)) => format!("tag `{}`", t.value),
                    (None, None) => "nothing (give `rule` or `tag`)".into(),
                };
                diagnostics.push(
                    Diagnostic::new(Code::OverrideUnmatched, format!("this override selects {sel}, which matches no rule loaded before this file"))
                        .at(src, o.span.clone())
                        .help("overrides apply to earlier layers and extended files; `hookrules check --rules` lists them"),
                );
            }
        }
    }
    let n = policies.len();
    remove_pending(&mut policies[..n], &mut pending);
    for ((src, raw), _) in policies.iter().zip(&pinned).filter(|(_, p)| **p) {
        if src.layer == Layer::Builtin {
            for r in &raw.rules {
                notes
                    .entry(r.value.id.value.clone())
                    .or_default()
                    .push("pinned by the managed layer (`[managed] builtin`)".into());
            }
        }
    }
    Layered {
        policies,
        notes,
        diagnostics,
        loosenings,
    }
}

/// A project-layer file joins: each thing it loosens or runs gets a
/// diagnostic (saying what a pinned rule keeps); without the user's trust in
/// its exact content they are left out, and a notice rule says so once per
/// session.
fn judge_project_file(
    src: &Arc<PolicySource>,
    raw: &mut RawPolicy,
    head: &[(Arc<PolicySource>, RawPolicy)],
    pinned: &[bool],
    trusted: &Trusted,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<Loosening> {
    let mut found = loosening::classify(src, raw, head);
    let covered = trusted.covers(src);
    let own = trusted.is_own(src);
    for l in &mut found {
        l.trusted = covered;
        l.own = own;
    }
    let managed_log = head
        .iter()
        .any(|(s, p)| s.layer == Layer::Managed && p.log.is_some());
    for l in &found {
        let mut kept: Vec<&str> = l
            .rules
            .iter()
            .filter(|id| {
                head.iter()
                    .zip(pinned)
                    .any(|((_, p), pin)| *pin && p.rules.iter().any(|r| &r.value.id.value == *id))
            })
            .map(String::as_str)
            .collect();
        if managed_log && matches!(l.item, loosening::Item::Log(_)) {
            kept.push("the decision log (its `[log]`)");
        }
        diagnostics.push(loosening_diagnostic(src, l, &kept));
    }
    if !covered && !found.is_empty() {
        loosening::restrict(raw, &found);
        raw.rules.push(notice(src, &found));
    }
    found
}

/// Apply what one override sets to one rule it selects, except what is
/// `refused` (a loosening of a pinned rule); what it changed, as notes say it.
fn apply_override(
    ov: &RawOverride,
    r: &mut RawRule,
    refused: &[loosening::What],
    src: &Arc<PolicySource>,
) -> Vec<String> {
    let refuses = |f: fn(&loosening::What) -> bool| refused.iter().any(f);
    let mut what = vec![];
    if let Some(e) = ov
        .enabled
        .filter(|_| !refuses(|w| matches!(w, loosening::What::Disables | loosening::What::Enables)))
    {
        r.enabled = Some(e);
        what.push(if e {
            "enabled".to_string()
        } else {
            "disabled".to_string()
        });
    }
    if let Some(p) = ov
        .priority
        .as_ref()
        .filter(|_| !refuses(|w| matches!(w, loosening::What::Reorders)))
    {
        r.priority = Some(Sp {
            span: r.id.span.clone(),
            value: p.value,
        });
        what.push(format!("priority {}", p.value));
    }
    if let Some(d) = ov
        .decision
        .as_ref()
        .filter(|_| !refuses(|w| matches!(w, loosening::What::Downgrades { .. })))
    {
        let span = r
            .decision
            .as_ref()
            .map(|d| d.span.clone())
            .unwrap_or(r.id.span.clone());
        r.decision = Some(Sp {
            span,
            value: d.value,
        });
        what.push(format!("decision {}", d.value.as_str()));
    }
    if let Some(m) = ov
        .mode
        .as_ref()
        .filter(|_| !refuses(|w| matches!(w, loosening::What::Audits)))
    {
        r.mode = Some(m.clone());
        what.push(format!("mode {}", m.value.as_str()));
    }
    if let Some(e) = ov
        .except
        .as_ref()
        .filter(|_| !refuses(|w| matches!(w, loosening::What::Excepts)))
    {
        r.granted.push(Granted {
            source: src.clone(),
            except: e.clone(),
        });
        what.push(format!("exception ({})", describe_except(&e.value)));
    }
    for t in &ov.add_tags {
        if !r.tags.contains(t) {
            r.tags.push(t.clone());
        }
        what.push(format!("tag {t}"));
    }
    what
}

/// `paths [..], commands [..]`, as `check` and the notes show an exception.
pub fn describe_except(e: &RawExcept) -> String {
    let mut parts = vec![];
    if !e.paths.is_empty() {
        let p: Vec<&str> = e.paths.iter().map(|p| p.value.as_str()).collect();
        parts.push(format!("paths {p:?}"));
    }
    if !e.commands.is_empty() {
        let c: Vec<&str> = e.commands.iter().map(|c| c.value.as_str()).collect();
        parts.push(format!("commands {c:?}"));
    }
    parts.join(", ")
}

/// `check`'s line for a loosening: where, what, which rules, trusted or not.
/// `pinned`: the rules among them the managed layer keeps as they are,
/// trusted or not.
fn loosening_diagnostic(src: &Arc<PolicySource>, l: &Loosening, pinned: &[&str]) -> Diagnostic {
    let standing = if l.trusted {
        "trusted (you ran `hookrules trust` on this exact content)"
    } else {
        "not trusted, so ignored until you review the file and run `hookrules trust`"
    };
    let kept = if pinned.is_empty() {
        String::new()
    } else {
        format!(
            "; the managed layer pins {}: they stay as they are",
            pinned.join(", ")
        )
    };
    Diagnostic::new(
        Code::Loosening,
        format!("{} — {standing}{kept}", l.what.sentence(&l.rules)),
    )
    .at(src, l.span.clone())
    .help(if l.trusted {
        "a change to the file needs trust again; `hookrules trust --list` shows what you trusted"
    } else if l.own {
        "your own local file, but any program in the project can write one (a build script, an archive, git), so it loosens only once you run `hookrules trust` in your terminal; a change needs trust again"
    } else {
        "a policy from the repository may only add stricter rules until you trust it"
    })
}

/// The rule that tells the user, at SessionStart, that a project policy's
/// loosenings and commands were left out (the client shows `systemMessage` to
/// the user; the model never sees it).
fn notice(src: &PolicySource, found: &[Loosening]) -> Sp<RawRule> {
    let mut lines: Vec<String> = found
        .iter()
        .map(|l| format!("line {}: {}", l.line, l.what.sentence(&l.rules)))
        .collect();
    lines.dedup();
    let text = format!(
        "hookrules: {} is not trusted, so what it loosens or runs is ignored ({}). Review it, then run `hookrules trust` in the project to apply it; `hookrules check` lists it.",
        src.display_name(),
        lines.join("; ")
    );
    let rule = RawRule {
        id: Sp::unspanned(format!("untrusted-policy:{}", src.stem())),
        description: Some("left out until trusted (hookrules trust)".into()),
        priority: None,
        tags: vec!["hookrules-trust".into()],
        enabled: None,
        mode: None,
        events: Sp::unspanned(vec![Sp::unspanned("SessionStart".to_string())]),
        matcher: None,
        when: None,
        unless: None,
        decision: None,
        defer: None,
        reason: None,
        context: None,
        // Literal text: never rendered as a template.
        message: Some(Sp::unspanned(format!("{{% raw %}}{text}{{% endraw %}}"))),
        rewrite: None,
        include: vec![],
        effects: vec![],
        allow: vec![],
        except: None,
        granted: vec![],
    };
    Sp::unspanned(rule)
}

fn remove_pending(
    policies: &mut [(Arc<PolicySource>, RawPolicy)],
    pending: &mut [std::collections::HashSet<String>],
) {
    for ((_, raw), ids) in policies.iter_mut().zip(pending.iter_mut()) {
        if !ids.is_empty() {
            raw.rules.retain(|r| !ids.contains(&r.value.id.value));
            ids.clear();
        }
    }
}
