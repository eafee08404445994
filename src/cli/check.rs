//! `hookrules check`: every problem in the policies at once.
//!
//! Exit status: 0 when there are no errors (warnings allowed), 1 when any policy
//! has an error, 2 when hookrules itself could not run (bad arguments).

use std::collections::BTreeMap;
use std::io::Write;

use crate::compile::Templates;
use crate::diagnostics::{render_plain, Code, Diagnostic, Severity};
use crate::policy::discover::Discovery;
use crate::policy::parse;
use crate::validate::{self, lints};

use super::Format;

/// Everything `check` found.
#[derive(Debug, Default)]
pub struct Report {
    /// Diagnostics, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Policies looked at.
    pub policies: Vec<String>,
}

impl Report {
    /// Number of errors.
    pub fn errors(&self) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity() == Severity::Error)
            .count()
    }
    /// Number of warnings.
    pub fn warnings(&self) -> usize {
        self.diagnostics.len() - self.errors()
    }
}

/// Check the policies discovery finds.
pub fn collect(discovery: &Discovery) -> Report {
    let found = discovery.find();
    let mut report = Report {
        diagnostics: found.errors.clone(),
        ..Report::default()
    };
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    for source in &found.sources {
        report.policies.push(source.display_name());
        let raw = match parse::parse(source) {
            Ok(r) => r,
            Err(d) => {
                report.diagnostics.push(d);
                continue;
            }
        };
        let v = validate::validate_with(source, &raw, &|_| true, true);
        let mut diags = v.diagnostics.clone();
        diags.extend(lints::lint(&v, &raw));
        let mut templates = Templates::new();
        for rule in &v.policy.rules {
            diags.extend(templates.add_rule(0, &v.policy, rule));
        }
        for fact in v.policy.facts.values() {
            diags.extend(templates.add_fact(0, &v.policy, fact));
        }
        for r in &raw.rules {
            let id = &r.value.id;
            if let Some(first) = ids.get(&id.value) {
                diags.push(
                    Diagnostic::new(
                        Code::DuplicateRuleId,
                        format!("rule id `{}` is already used in {first}", id.value),
                    )
                    .at(source, id.span.clone())
                    .help("rule ids must be unique across all loaded policies"),
                );
            } else {
                ids.insert(id.value.clone(), source.display_name());
            }
        }
        diags.sort_by_key(|d| (d.span.as_ref().map(|s| s.start).unwrap_or(0), d.code));
        report.diagnostics.extend(diags);
    }
    report
}

/// Run `check` and print the report.
pub fn check(discovery: &Discovery, format: Format, out: &mut dyn Write) -> i32 {
    let report = collect(discovery);
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "policies": report.policies,
                "errors": report.errors(),
                "warnings": report.warnings(),
                "diagnostics": report.diagnostics.iter().map(|d| d.to_json()).collect::<Vec<_>>(),
            });
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&v).unwrap_or_default()
            );
        }
        Format::Human => {
            let _ = write!(out, "{}", render_plain(&report.diagnostics));
            let _ = writeln!(
                out,
                "{} error(s), {} warning(s) in {} polic{}",
                report.errors(),
                report.warnings(),
                report.policies.len(),
                if report.policies.len() == 1 {
                    "y"
                } else {
                    "ies"
                }
            );
        }
    }
    i32::from(report.errors() > 0)
}
