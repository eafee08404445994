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

use std::collections::BTreeMap;
use std::sync::Arc;

use super::syntax::{Granted, RawExcept, RawPolicy, Sp};
use crate::diagnostics::{Code, Diagnostic};
use crate::source::PolicySource;

/// Policies after layering, with what happened to their rules.
#[derive(Debug, Default)]
pub struct Layered {
    /// The policies, in load order, with replaced rules removed and overrides applied.
    pub policies: Vec<(Arc<PolicySource>, RawPolicy)>,
    /// Rule id to notes (`replaced by …`, `disabled by …`).
    pub notes: BTreeMap<String, Vec<String>>,
    /// Overrides that select nothing.
    pub diagnostics: Vec<Diagnostic>,
}

/// Apply replacements and overrides.
pub fn apply(mut policies: Vec<(Arc<PolicySource>, RawPolicy)>) -> Layered {
    let mut notes: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut diagnostics = vec![];
    // Live rule ids -> the file defining them; removals wait until they matter
    // (before a file's overrides, and at the end), keeping this linear.
    let mut live: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut pending: Vec<std::collections::HashSet<String>> =
        vec![Default::default(); policies.len()];
    for i in 0..policies.len() {
        // 1. Replacement by id.
        for r in &policies[i].1.rules {
            let id = &r.value.id.value;
            if let Some(j) = live.insert(id.clone(), i) {
                if j < i {
                    pending[j].insert(id.clone());
                    let esrc = &policies[j].0;
                    notes.entry(id.clone()).or_default().push(format!(
                        "replaces the rule of the same id in {} ({})",
                        esrc.display_name(),
                        esrc.layer.name()
                    ));
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
            let by_id = ov.rule.as_ref().map(|r| {
                globset::Glob::new(&r.value)
                    .map(|g| g.compile_matcher())
                    .map_err(|_| r.value.clone())
            });
            let mut matched = 0;
            for (_, earlier) in head.iter_mut() {
                for rule in earlier.rules.iter_mut() {
                    let r = &mut rule.value;
                    let selected = match (&by_id, &ov.tag) {
                        (Some(Ok(m)), None) => m.is_match(&r.id.value),
                        (Some(Err(exact)), None) => &r.id.value == exact,
                        (None, Some(tag)) => r.tags.iter().any(|t| t == &tag.value),
                        (Some(Ok(m)), Some(tag)) => {
                            m.is_match(&r.id.value) && r.tags.iter().any(|t| t == &tag.value)
                        }
                        (Some(Err(exact)), Some(tag)) => {
                            &r.id.value == exact && r.tags.iter().any(|t| t == &tag.value)
                        }
                        (None, None) => false,
                    };
                    if !selected {
                        continue;
                    }
                    matched += 1;
                    let mut what = vec![];
                    if let Some(e) = ov.enabled {
                        r.enabled = Some(e);
                        what.push(if e {
                            "enabled".to_string()
                        } else {
                            "disabled".to_string()
                        });
                    }
                    if let Some(p) = &ov.priority {
                        r.priority = Some(Sp {
                            span: r.id.span.clone(),
                            value: p.value,
                        });
                        what.push(format!("priority {}", p.value));
                    }
                    if let Some(d) = &ov.decision {
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
                    if let Some(m) = &ov.mode {
                        r.mode = Some(m.clone());
                        what.push(format!("mode {}", m.value.as_str()));
                    }
                    if let Some(e) = &ov.except {
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
                    notes
                        .entry(r.id.value.clone())
                        .or_default()
                        .push(format!("{} by an override in {here}", what.join(", ")));
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
    Layered {
        policies,
        notes,
        diagnostics,
    }
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
