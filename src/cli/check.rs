//! `hookrules check`: every problem in the policies at once.
//!
//! Exit status: 0 when there are no errors (warnings allowed), 1 when any policy
//! has an error, 2 when hookrules itself could not run (bad arguments).

use std::collections::BTreeMap;
use std::io::Write;

use crate::compile::Templates;
use crate::diagnostics::{render_plain, Code, Diagnostic, Severity};
use crate::policy::discover::Discovery;
use crate::policy::{layering, parse};
use crate::validate::{self, lints};

use super::Format;

/// Everything `check` found.
#[derive(Debug, Default)]
pub struct Report {
    /// Diagnostics, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Policies looked at.
    pub policies: Vec<String>,
    /// Every rule, with where it came from.
    pub rules: Vec<RuleRow>,
    /// Every command the policies can run (command facts and `run` effects).
    pub commands: Vec<CommandRow>,
}

/// One rule in `check --rules`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RuleRow {
    /// Rule id.
    pub id: String,
    /// `file:line`.
    pub location: String,
    /// Layer of its file.
    pub layer: &'static str,
    /// Events.
    pub events: Vec<String>,
    /// Matcher as written.
    pub matcher: Option<String>,
    /// Decision.
    pub decision: Option<&'static str>,
    /// Priority.
    pub priority: i64,
    /// Enabled.
    pub enabled: bool,
    /// Replacements and overrides.
    pub notes: Vec<String>,
}

/// A command a policy can run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CommandRow {
    /// The argv templates.
    pub argv: Vec<String>,
    /// `file:line`.
    pub location: String,
    /// `fact NAME` or `rule ID`.
    pub used_by: String,
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
    let mut parsed = vec![];
    for source in &found.sources {
        report.policies.push(source.display_name());
        match parse::parse(source) {
            Ok(raw) => {
                report.diagnostics.extend(duplicate_ids(source, &raw));
                parsed.push((source.clone(), raw));
            }
            Err(d) => report.diagnostics.push(d),
        }
    }
    let layered = layering::apply(parsed);
    report
        .diagnostics
        .extend(layered.diagnostics.iter().cloned());
    for (source, raw) in &layered.policies {
        let v = validate::validate_with(source, raw, &|_| true, true);
        let mut diags = v.diagnostics.clone();
        // A rule an override disabled is disabled on purpose: no HR102 for it.
        let disabled_on_purpose = |d: &Diagnostic| {
            d.code == Code::NeverFires
                && layered.notes.iter().any(|(id, notes)| {
                    d.message == format!("rule `{id}` is disabled")
                        && notes.iter().any(|n| n.starts_with("disabled"))
                })
        };
        diags.extend(
            lints::lint(&v, raw)
                .into_iter()
                .filter(|d| !disabled_on_purpose(d)),
        );
        let mut templates = Templates::new();
        for rule in &v.policy.rules {
            diags.extend(templates.add_rule(0, &v.policy, rule));
        }
        for fact in v.policy.facts.values() {
            diags.extend(templates.add_fact(0, &v.policy, fact));
        }
        diags.sort_by_key(|d| (d.span.as_ref().map(|s| s.start).unwrap_or(0), d.code));
        report.diagnostics.extend(diags);
        let at = |span: &std::ops::Range<usize>| {
            let (line, _) = source.line_col(span.start);
            format!("{}:{line}", source.display_name())
        };
        for r in &raw.rules {
            let r = &r.value;
            report.rules.push(RuleRow {
                id: r.id.value.clone(),
                location: at(&r.id.span),
                layer: source.layer.name(),
                events: r.events.value.iter().map(|e| e.value.clone()).collect(),
                matcher: r.matcher.as_ref().map(|m| m.value.clone()),
                decision: r.decision.as_ref().map(|d| d.value.as_str()),
                priority: r.priority.as_ref().map(|p| p.value).unwrap_or(100),
                enabled: r.enabled.unwrap_or(true),
                notes: layered.notes.get(&r.id.value).cloned().unwrap_or_default(),
            });
            for e in &r.effects {
                if let Some(argv) = &e.value.argv {
                    report.commands.push(CommandRow {
                        argv: argv.value.iter().map(|a| a.value.clone()).collect(),
                        location: at(&e.span),
                        used_by: format!("rule {}", r.id.value),
                    });
                }
            }
        }
        for (name, f) in &raw.facts {
            if let Some(argv) = &f.value.argv {
                report.commands.push(CommandRow {
                    argv: argv.value.iter().map(|a| a.value.clone()).collect(),
                    location: at(&f.span),
                    used_by: format!("fact {name}"),
                });
            }
        }
    }
    report
}

/// Rule ids defined twice in one file (across files, a later one replaces).
fn duplicate_ids(
    source: &std::sync::Arc<crate::policy::source::PolicySource>,
    raw: &crate::policy::syntax::RawPolicy,
) -> Vec<Diagnostic> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut out = vec![];
    for r in &raw.rules {
        let id = &r.value.id;
        if let Some(first) = seen.get(id.value.as_str()) {
            let (line, _) = source.line_col(*first);
            out.push(
                Diagnostic::new(Code::DuplicateRuleId, format!("rule id `{}` is already used on line {line} of this file", id.value))
                    .at(source, id.span.clone())
                    .help("rule ids are unique within a file; to replace a rule of another file, define it in a later layer"),
            );
        } else {
            seen.insert(&id.value, id.span.start);
        }
    }
    out
}

/// Run `check` and print the report.
pub fn check(discovery: &Discovery, format: Format, list_rules: bool, out: &mut dyn Write) -> i32 {
    let report = collect(discovery);
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "policies": report.policies,
                "errors": report.errors(),
                "warnings": report.warnings(),
                "diagnostics": report.diagnostics.iter().map(|d| d.to_json()).collect::<Vec<_>>(),
                "rules": report.rules,
                "commands": report.commands,
            });
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&v).unwrap_or_default()
            );
        }
        Format::Human => {
            let _ = write!(out, "{}", render_plain(&report.diagnostics));
            if list_rules {
                let _ = writeln!(out, "rules (in load order):");
                for r in &report.rules {
                    let _ = writeln!(
                        out,
                        "  {:<28} {:<8} {:<9} prio {:<4} {}{} [{}] {}",
                        r.id,
                        r.layer,
                        r.decision.unwrap_or("-"),
                        r.priority,
                        r.events.join(","),
                        r.matcher
                            .as_ref()
                            .map(|m| format!(" matcher {m}"))
                            .unwrap_or_default(),
                        r.location,
                        if r.enabled { "" } else { "(disabled)" },
                    );
                    for n in &r.notes {
                        let _ = writeln!(out, "  {:<28} {n}", "");
                    }
                }
            }
            if !report.commands.is_empty() {
                let _ = writeln!(
                    out,
                    "commands these policies can run (a trust decision, like any hook):"
                );
                for c in &report.commands {
                    let _ = writeln!(out, "  {:?}  ({}, {})", c.argv, c.used_by, c.location);
                }
            }
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

/// `check --watch`: check, then check again after every save, until interrupted.
/// Folders are watched (not files), so editors that save by renaming a temporary
/// file over the original are seen; bursts of events within 200 ms count once.
pub fn watch(discovery: &Discovery, format: Format, list_rules: bool, out: &mut dyn Write) -> i32 {
    use notify::{RecursiveMode, Watcher};
    use std::sync::mpsc;
    use std::time::Duration;

    let (tx, rx) = mpsc::channel();
    let mut watcher = match notify::recommended_watcher(move |res| {
        let _ = tx.send(res);
    }) {
        Ok(w) => w,
        Err(e) => {
            let _ = writeln!(out, "hookrules check --watch: cannot watch files: {e}");
            return 2;
        }
    };
    let mut watched: std::collections::BTreeSet<std::path::PathBuf> = Default::default();
    loop {
        let _ = writeln!(
            out,
            "\x1b[2J\x1b[H== hookrules check ({})",
            crate::os::clock::Now::current().rfc3339
        );
        check(discovery, format, list_rules, out);
        let _ = out.flush();
        for dir in watch_dirs(discovery) {
            if watched.insert(dir.clone()) {
                if let Err(e) = watcher.watch(&dir, RecursiveMode::NonRecursive) {
                    let _ = writeln!(out, "cannot watch {}: {e}", dir.display());
                }
            }
        }
        // Wait for a change to a .toml file, then let the burst settle.
        loop {
            match rx.recv() {
                Ok(Ok(ev))
                    if ev
                        .paths
                        .iter()
                        .any(|p| p.extension().is_some_and(|x| x == "toml")) =>
                {
                    break
                }
                Ok(_) => continue,
                Err(_) => return 2,
            }
        }
        while rx.recv_timeout(Duration::from_millis(200)).is_ok() {}
    }
}

/// The folders whose files make up the policy set.
fn watch_dirs(discovery: &Discovery) -> Vec<std::path::PathBuf> {
    let found = discovery.find();
    let mut dirs: Vec<std::path::PathBuf> = found
        .sources
        .iter()
        .filter_map(|s| match &s.origin {
            crate::policy::source::Origin::File(p) => p.parent().map(|d| d.to_path_buf()),
            crate::policy::source::Origin::Builtin(_) => None,
        })
        .collect();
    dirs.extend(discovery.flags.iter().filter(|p| p.is_dir()).cloned());
    if let Some(p) = &discovery.project_dir {
        let d = p.join(crate::policy::discover::PROJECT_POLICY_DIR);
        if d.is_dir() {
            dirs.push(d);
        }
    }
    if let Some(u) = discovery.user_dir.as_ref().filter(|u| u.is_dir()) {
        dirs.push(u.clone());
    }
    dirs.sort();
    dirs.dedup();
    dirs
}
