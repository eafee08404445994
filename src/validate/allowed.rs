//! Warnings a policy says are intended: `allow = ["HR104", "may-be-absent"]` in
//! `[policy]` (the whole file) or in a `[[rule]]` (that rule). `check` leaves
//! them out; an entry that names no code, names an error (errors cannot be
//! allowed), or silences nothing is reported itself, so a stale `allow` does not
//! hide the next real warning.

use std::ops::Range;
use std::sync::Arc;

use crate::diagnostics::{did_you_mean, Code, Diagnostic, Severity};
use crate::policy::recover::extent;
use crate::policy::syntax::{RawPolicy, Sp};
use crate::source::PolicySource;

/// One `allow` entry.
#[derive(Debug)]
struct Entry {
    code: Code,
    span: Range<usize>,
    used: bool,
}

/// The `allow` entries of one file.
#[derive(Debug)]
pub struct Allows {
    source: Arc<PolicySource>,
    file: Vec<Entry>,
    /// Each rule's extent in the file and its entries.
    rules: Vec<(Range<usize>, Vec<Entry>)>,
}

impl Allows {
    /// Read the entries of a policy; entries that are not warning codes are
    /// returned as errors.
    pub fn of(source: &Arc<PolicySource>, raw: &RawPolicy) -> (Allows, Vec<Diagnostic>) {
        let mut errors = vec![];
        let file = entries(source, &raw.policy.allow, &mut errors);
        let rules = raw
            .rules
            .iter()
            .filter(|r| !r.value.allow.is_empty())
            .map(|r| {
                (
                    extent(&source.text, r.span.clone()),
                    entries(source, &r.value.allow, &mut errors),
                )
            })
            .collect();
        (
            Allows {
                source: source.clone(),
                file,
                rules,
            },
            errors,
        )
    }

    /// Leave out the warnings this file allows.
    pub fn apply(&mut self, diags: &mut Vec<Diagnostic>) {
        diags.retain(|d| {
            // A loosening is listed whatever the file says: a repository's
            // policy must not hide what it loosens.
            if d.severity() != Severity::Warning || d.code == Code::Loosening {
                return true;
            }
            let here = d
                .source
                .as_ref()
                .is_some_and(|s| Arc::ptr_eq(s, &self.source) || s.origin == self.source.origin);
            if !here {
                return true;
            }
            let at = d.span.clone().unwrap_or(0..0);
            for (extent, entries) in &mut self.rules {
                if extent.start <= at.start && at.end <= extent.end {
                    if let Some(e) = entries.iter_mut().find(|e| e.code == d.code) {
                        e.used = true;
                        return false;
                    }
                }
            }
            if let Some(e) = self.file.iter_mut().find(|e| e.code == d.code) {
                e.used = true;
                return false;
            }
            true
        });
    }

    /// HR114 for entries that silenced nothing.
    pub fn unused(&self) -> Vec<Diagnostic> {
        self.file
            .iter()
            .chain(self.rules.iter().flat_map(|(_, e)| e.iter()))
            .filter(|e| !e.used)
            .map(|e| {
                Diagnostic::new(
                    Code::UnusedAllow,
                    format!(
                        "`allow` lists {}, but nothing here reports it",
                        e.code.code()
                    ),
                )
                .at(&self.source, e.span.clone())
                .label("silences nothing")
                .help("remove it, so the warning shows again if it comes back")
            })
            .collect()
    }
}

fn entries(
    source: &Arc<PolicySource>,
    list: &[Sp<String>],
    errors: &mut Vec<Diagnostic>,
) -> Vec<Entry> {
    let mut out = vec![];
    for item in list {
        match Code::lookup(&item.value) {
            Some(code) if code.severity() == Severity::Warning => out.push(Entry {
                code,
                span: item.span.clone(),
                used: false,
            }),
            Some(code) => errors.push(
                Diagnostic::new(
                    Code::Schema,
                    format!("{} is an error: only warnings can be allowed", code.code()),
                )
                .at(source, item.span.clone())
                .label("an error")
                .help(format!(
                    "fix what it reports (`hookrules rule {}` explains it)",
                    code.code()
                )),
            ),
            None => {
                let names = Code::ALL
                    .iter()
                    .filter(|c| c.severity() == Severity::Warning)
                    .flat_map(|c| [c.code(), c.name()]);
                let mut d = Diagnostic::new(
                    Code::Schema,
                    format!("`{}` is not a diagnostic code", item.value),
                )
                .at(source, item.span.clone())
                .label("not a code");
                d = d.help(match did_you_mean(&item.value, names) {
                    Some(s) => format!("did you mean `{s}`? `hookrules rule` lists the codes"),
                    None => "`hookrules rule` lists the codes (HR101 and up are warnings)".into(),
                });
                errors.push(d);
            }
        }
    }
    out
}
