//! `hookrules check`: every problem in the policies at once.
//!
//! Exit status: 0 when there are no errors (warnings allowed), 1 when any policy
//! has an error, 2 when hookrules itself could not run (bad arguments).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use crate::compile::Templates;
use crate::contract::hosts::Host;
use crate::diagnostics::{render, Code, Diagnostic, Severity};
use crate::policy::discover::Discovery;
use crate::policy::syntax::RawPolicy;
use crate::policy::{layering, recover};
use crate::source::{Layer, PolicySource};
use crate::validate::{self, allowed, lints, reads};

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
    /// Every exception: the cases a rule does not see (`except`).
    pub exceptions: Vec<ExceptionRow>,
    /// Each file's `allow` entries, applied once every diagnostic is in.
    allows: Vec<allowed::Allows>,
    /// Every path built from a template, with the folder it is confined to.
    pub paths: Vec<PathRow>,
    /// The built-in packs, default and opt-in, and whether each is on.
    pub packs: Vec<PackRow>,
}

/// A path built from event data, and where it may lead.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PathRow {
    /// The path template.
    pub path: String,
    /// The folder it stays in, relative to the project (`""`: the whole project).
    pub stays_in: String,
    /// Whether that folder is the policy's `within` (else the literal folder
    /// before the first `{{`).
    pub declared: bool,
    /// `file:line`.
    pub location: String,
    /// `fact NAME`, `rule ID (effect)` or `rule ID (include)`.
    pub used_by: String,
}

/// One built-in pack in `check --rules`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct PackRow {
    /// `builtin:NAME`.
    pub name: String,
    /// `default` (on unless turned off) or `opt-in` (off unless a policy names it).
    pub kind: &'static str,
    /// Loaded for this project.
    pub on: bool,
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
    /// Stands aside for a firm decision (`defer = true`).
    pub defer: bool,
    /// Enabled.
    pub enabled: bool,
    /// Replacements and overrides.
    pub notes: Vec<String>,
    /// The file and the span of the id, for diagnostics about the rule.
    #[serde(skip)]
    pub at: Option<(
        std::sync::Arc<crate::source::PolicySource>,
        std::ops::Range<usize>,
    )>,
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

/// One rule's `except`, as `check` lists it.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ExceptionRow {
    /// The rule.
    pub rule: String,
    /// Paths it does not see, as written.
    pub paths: Vec<String>,
    /// Commands it does not see, as written.
    pub commands: Vec<String>,
    /// `file:line`.
    pub location: String,
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
    collect_with(discovery, &[])
}

/// [`collect`], also reporting rules the fixtures in `fixtures` never see fire
/// (HR106). Warnings the policies `allow` are left out last.
pub fn collect_with(discovery: &Discovery, fixtures: &[std::path::PathBuf]) -> Report {
    let mut report = collect_all(discovery);
    if !fixtures.is_empty() {
        let extra = uncovered(&report, discovery, fixtures);
        report.diagnostics.extend(extra);
    }
    let mut allows = std::mem::take(&mut report.allows);
    for a in &mut allows {
        a.apply(&mut report.diagnostics);
    }
    for a in &allows {
        report.diagnostics.extend(a.unused());
    }
    sort_in_file_order(&mut report);
    report
}

fn collect_all(discovery: &Discovery) -> Report {
    let found = discovery.find();
    let mut report = Report {
        diagnostics: found.errors.clone(),
        packs: pack_rows(&found),
        ..Report::default()
    };
    let mut parsed = vec![];
    // Per file: where a syntax or schema problem was repaired, so that later
    // findings caused by the repair are not reported as well.
    let mut repairs: Vec<(String, recover::Parsed)> = vec![];
    for source in &found.sources {
        report.policies.push(source.display_name());
        let mut p = recover::parse_all(source);
        report.diagnostics.append(&mut p.diagnostics);
        if let Some(raw) = p.raw.take() {
            report.diagnostics.extend(duplicate_ids(source, &raw));
            parsed.push((source.clone(), raw));
        }
        repairs.push((source.display_name(), p));
    }
    let layered = layering::apply(parsed, &found.trusted, &found.managed.pinned_builtin);
    report
        .diagnostics
        .extend(loading_diagnostics(&found, &layered));
    // The other agents this project runs hookrules for: each rule's answers
    // are judged against what they can give (HR118).
    let hosts = discovery
        .project_dir
        .as_deref()
        .map(crate::cli::wiring::wired_hosts)
        .unwrap_or_default();
    for (source, raw) in &layered.policies {
        report.diagnostics.extend(turns_pack_off(source, raw));
        let (mut diags, allows) = policy_diagnostics(source, raw, &layered, &hosts);
        if let Some((_, p)) = repairs.iter().find(|(n, _)| *n == source.display_name()) {
            diags.retain(|d| !p.is_consequence(d));
        }
        diags.sort_by_key(|d| (d.span.as_ref().map(|s| s.start).unwrap_or(0), d.code));
        // The built-in pack under the layers: its lints are for its authors
        // (`check policies/` shows them); a user's override can leave one of its
        // lists unused, which is not the user's to fix.
        let named = match source.origin {
            crate::source::Origin::Builtin(n) => discovery
                .flags
                .iter()
                .any(|f| f.to_str() == Some(&format!("builtin:{n}"))),
            crate::source::Origin::File(_) => false,
        };
        if source.layer == Layer::Builtin && !named {
            diags.retain(|d| d.severity() == Severity::Error);
        }
        report.diagnostics.extend(diags);
        report.allows.push(allows);
        inventory(source, raw, &layered, &mut report);
    }
    // Under `--policies` too: the pack is loaded there as well, unless turned off.
    report.diagnostics.extend(destructive_probe(&found));
    if discovery.flags.is_empty() {
        report.diagnostics.extend(over_timeout(discovery, &found));
    }
    report
}

/// The built-in packs, default and opt-in, and whether each is loaded.
fn pack_rows(found: &crate::policy::discover::Found) -> Vec<PackRow> {
    let loaded = |name: &'static str| {
        found
            .sources
            .iter()
            .any(|s| s.origin == crate::source::Origin::Builtin(name))
    };
    let mut rows = vec![];
    for (table, kind) in [
        (crate::policy::discover::BUILTIN, "default"),
        (crate::policy::discover::OPT_IN, "opt-in"),
    ] {
        for (name, _) in table {
            rows.push(PackRow {
                name: format!("builtin:{name}"),
                kind,
                on: loaded(name),
            });
        }
    }
    rows
}

/// What loading the set as a whole found: managed files refused, the pack
/// turned off, the layers' own findings, local files shipped in the project.
fn loading_diagnostics(
    found: &crate::policy::discover::Found,
    layered: &layering::Layered,
) -> Vec<Diagnostic> {
    let mut out = vec![];
    // Refused managed files that are not required (required ones are already
    // among the errors: they fail every run closed).
    for r in found.managed.refused.iter().filter(|r| !r.required) {
        out.push(
            Diagnostic::new(
                Code::Unreadable,
                format!("managed policy {} is not loaded: {}", r.path.display(), r.why),
            )
            .help("the managed folder and its files must be root's and writable by nobody else (`chown root:root`, `chmod go-w`)"),
        );
    }
    if found.builtin_off_by_flag {
        out.push(
            Diagnostic::new(
                Code::BuiltinOff,
                "the built-in pack is off: `--no-builtin` leaves it out",
            )
            .help("without `--no-builtin`, the pack is loaded under these policies, which can change it by rule id or tag"),
        );
    }
    out.extend(layered.diagnostics.iter().cloned());
    out.extend(crate::policy::discover::shipped_local(found));
    out
}

/// A user's, project's or local policy that turns the whole built-in pack off.
fn turns_pack_off(source: &Arc<PolicySource>, raw: &RawPolicy) -> Option<Diagnostic> {
    let off = raw.policy.builtin.as_ref().filter(|b| !b.value)?;
    matches!(
        source.layer,
        Layer::User | Layer::Project | Layer::Local | Layer::Explicit
    )
    .then(|| {
        Diagnostic::new(Code::BuiltinOff, "this turns the whole built-in pack off")
            .at(source, off.span.clone())
            .label("the built-in pack is off")
            .help("to turn off one part, use [[override]] with its rule id or tag; `hookrules check --rules` lists the pack's rules")
    })
}

/// One policy's findings: validation, its `[[allow]]` entries, lints (per
/// host too), every template, and what each rule and fact reads.
fn policy_diagnostics(
    source: &Arc<PolicySource>,
    raw: &RawPolicy,
    layered: &layering::Layered,
    hosts: &[Host],
) -> (Vec<Diagnostic>, allowed::Allows) {
    let mut diags = vec![];
    let v = validate::validate_with(source, raw, &|_| true, true);
    diags.extend(v.diagnostics.iter().cloned());
    let (allows, bad_allows) = allowed::Allows::of(source, raw);
    diags.extend(bad_allows);
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
    diags.extend(lints::per_host(&v.policy, hosts));
    // Every template of every rule and fact, valid or not: all problems at once.
    let mut templates = Templates::new();
    for t in raw_templates(raw) {
        if let Err(d) = templates.add(0, &v.policy, &t) {
            diags.push(d);
        }
    }
    // What each rule reads: fields, captures, facts, template variables, matchers.
    let of = |t: &crate::validate::model::Template| templates.variables(0, t);
    let of_text = |t: &str| templates.variables_in(t);
    let is_global = |n: &str| templates.is_global(n);
    let vars = reads::TemplateVars {
        of: &of,
        of_text: &of_text,
        is_global: &is_global,
    };
    for rule in &v.policy.rules {
        diags.extend(reads::rule(&v.policy, rule, &vars));
    }
    for fact in v.policy.facts.values() {
        diags.extend(reads::fact(&v.policy, fact, &vars));
    }
    (diags, allows)
}

/// One policy's rules, exceptions, and the paths and commands it names
/// (`check --rules`, `--paths`, `--commands`).
fn inventory(
    source: &Arc<PolicySource>,
    raw: &RawPolicy,
    layered: &layering::Layered,
    report: &mut Report,
) {
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
            matcher: r.matcher.as_ref().map(|m| match &m.value {
                crate::policy::syntax::MatcherSpec::All(t) => t.clone(),
                crate::policy::syntax::MatcherSpec::PerEvent(map) => {
                    let parts: Vec<String> = map.iter().map(|(e, t)| format!("{e}={t}")).collect();
                    format!("{{{}}}", parts.join(", "))
                }
            }),
            decision: r.decision.as_ref().map(|d| d.value.as_str()),
            priority: r.priority.as_ref().map(|p| p.value).unwrap_or(100),
            defer: r.defer.unwrap_or(false),
            enabled: r.enabled.unwrap_or(true),
            notes: layered.notes.get(&r.id.value).cloned().unwrap_or_default(),
            at: Some((source.clone(), r.id.span.clone())),
        });
        let own = r.except.iter().map(|e| (source, e));
        let granted = r.granted.iter().map(|g| (&g.source, &g.except));
        for (written, e) in own.chain(granted) {
            let (line, _) = written.line_col(e.span.start);
            report.exceptions.push(ExceptionRow {
                rule: r.id.value.clone(),
                paths: e.value.paths.iter().map(|p| p.value.clone()).collect(),
                commands: e.value.commands.iter().map(|c| c.value.clone()).collect(),
                location: format!("{}:{line}", written.display_name()),
            });
        }
        for e in &r.effects {
            if let Some(row) = path_row(
                e.value.path.as_ref(),
                e.value.within.as_ref(),
                at(&e.span),
                format!(
                    "rule {} ({} effect)",
                    r.id.value,
                    snake(&format!("{:?}", e.value.kind.value))
                ),
            ) {
                report.paths.push(row);
            }
            if let Some(argv) = &e.value.argv {
                report.commands.push(CommandRow {
                    argv: argv.value.iter().map(|a| a.value.clone()).collect(),
                    location: at(&e.span),
                    used_by: format!("rule {}", r.id.value),
                });
            }
        }
    }
    for r in &raw.rules {
        for i in &r.value.include {
            if let Some(row) = path_row(
                Some(&i.value.path),
                None,
                at(&i.span),
                format!("rule {} (include)", r.value.id.value),
            ) {
                report.paths.push(row);
            }
        }
    }
    for (name, f) in &raw.facts {
        if let Some(row) = path_row(
            f.value.path.as_ref(),
            f.value.within.as_ref(),
            at(&f.span),
            format!("fact {name}"),
        ) {
            report.paths.push(row);
        }
        if let Some(argv) = &f.value.argv {
            report.commands.push(CommandRow {
                argv: argv.value.iter().map(|a| a.value.clone()).collect(),
                location: at(&f.span),
                used_by: format!("fact {name}"),
            });
        }
    }
}

/// By file (load order), then position; diagnostics without a file first.
fn sort_in_file_order(report: &mut Report) {
    let order: Vec<String> = report.policies.clone();
    report.diagnostics.sort_by_key(|d| {
        let file = d
            .source
            .as_ref()
            .map(|s| s.display_name())
            .unwrap_or_default();
        (
            order.iter().position(|p| *p == file).unwrap_or(usize::MAX),
            d.span.as_ref().map(|s| s.start).unwrap_or(0),
        )
    });
}

/// The templates of a raw policy (rules, includes, effects, facts).
fn raw_templates(raw: &crate::policy::syntax::RawPolicy) -> Vec<crate::validate::model::Template> {
    use crate::policy::syntax::Sp;
    use crate::validate::model::Template;
    let t = |s: &Sp<String>| Template {
        text: s.value.clone(),
        span: s.span.clone(),
    };
    let mut out = vec![];
    for r in &raw.rules {
        let r = &r.value;
        out.extend(
            [&r.reason, &r.context, &r.message]
                .into_iter()
                .flatten()
                .map(t),
        );
        if let Some(rw) = &r.rewrite {
            out.extend(rw.value.values().map(t));
        }
        for i in &r.include {
            out.push(t(&i.value.path));
            out.extend(i.value.title.iter().map(t));
        }
        for e in &r.effects {
            let e = &e.value;
            out.extend(
                [&e.path, &e.within, &e.content]
                    .into_iter()
                    .flatten()
                    .map(t),
            );
            if let Some(a) = &e.argv {
                out.extend(a.value.iter().map(t));
            }
        }
    }
    for f in raw.facts.values() {
        let f = &f.value;
        out.extend([&f.path, &f.within, &f.cwd].into_iter().flatten().map(t));
        if let Some(a) = &f.argv {
            out.extend(a.value.iter().map(t));
        }
    }
    out
}

/// Rule ids defined twice in one file (across files, a later one replaces).
fn duplicate_ids(
    source: &std::sync::Arc<crate::source::PolicySource>,
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

/// HR106 for every enabled rule that none of the fixtures in `dirs` sees fire.
pub fn uncovered(
    report: &Report,
    discovery: &Discovery,
    dirs: &[std::path::PathBuf],
) -> Vec<Diagnostic> {
    let mut sink = Vec::new();
    let mut covered = std::collections::BTreeSet::new();
    for dir in dirs {
        let s = super::test::run_all(std::slice::from_ref(dir), discovery, &mut sink);
        let all: std::collections::BTreeSet<&String> = report.rules.iter().map(|r| &r.id).collect();
        for r in all {
            if !s.uncovered.contains(r) {
                covered.insert(r.clone());
            }
        }
    }
    report
        .rules
        .iter()
        .filter(|r| r.enabled && !covered.contains(&r.id))
        .map(|r| {
            let d = Diagnostic::new(
                Code::Uncovered,
                format!("no fixture exercises rule `{}`", r.id),
            )
            .help("add a fixture whose event makes the rule fire (see `hookrules explain`)");
            match &r.at {
                Some((src, span)) => d.at(src, span.clone()),
                None => d,
            }
        })
        .collect()
}

/// Run `check` and print the report.
pub fn check(discovery: &Discovery, format: Format, list_rules: bool, out: &mut dyn Write) -> i32 {
    check_with_fixtures(discovery, format, list_rules, &[], out)
}

/// [`check`], also reporting rules the fixtures in `fixtures` never see fire.
pub fn check_with_fixtures(
    discovery: &Discovery,
    format: Format,
    list_rules: bool,
    fixtures: &[std::path::PathBuf],
    out: &mut dyn Write,
) -> i32 {
    let report = collect_with(discovery, fixtures);
    match format {
        Format::Json => {
            let v = serde_json::json!({
                "policies": report.policies,
                "errors": report.errors(),
                "warnings": report.warnings(),
                "diagnostics": report.diagnostics.iter().map(|d| d.to_json()).collect::<Vec<_>>(),
                "rules": report.rules,
                "packs": report.packs,
                "commands": report.commands,
                "exceptions": report.exceptions,
                "paths": report.paths,
            });
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&v).unwrap_or_default()
            );
        }
        Format::Human => {
            let _ = write!(out, "{}", render(&report.diagnostics, super::style::on()));
            if list_rules {
                let _ = writeln!(out, "built-in packs:");
                for p in &report.packs {
                    let _ = writeln!(
                        out,
                        "  {:<24} {:<8} {}",
                        p.name,
                        p.kind,
                        if p.on { "on" } else { "off" }
                    );
                }
                let _ = writeln!(out, "rules (in load order):");
                for r in &report.rules {
                    let _ = writeln!(
                        out,
                        "  {:<28} {:<8} {:<16} prio {:<4} {}{} [{}] {}",
                        r.id,
                        r.layer,
                        format!(
                            "{}{}",
                            r.decision.unwrap_or("-"),
                            if r.defer { " (defers)" } else { "" }
                        ),
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
            if !report.exceptions.is_empty() {
                let _ = writeln!(out, "exceptions (cases a rule does not see):");
                for e in &report.exceptions {
                    let mut parts = vec![];
                    if !e.paths.is_empty() {
                        parts.push(format!("paths {:?}", e.paths));
                    }
                    if !e.commands.is_empty() {
                        parts.push(format!("commands {:?}", e.commands));
                    }
                    let _ = writeln!(
                        out,
                        "  rule {} except {}  ({})",
                        e.rule,
                        parts.join(", "),
                        e.location
                    );
                }
            }
            if !report.paths.is_empty() {
                let _ = writeln!(
                    out,
                    "paths built from templates, and the folder each cannot leave (symlinks included):"
                );
                for p in &report.paths {
                    let folder = match (p.stays_in.as_str(), p.declared) {
                        ("", _) => "the whole project (set `within` to narrow it)".to_string(),
                        (f, true) => format!("{f}/ (its `within`)"),
                        (f, false) => format!("{f}/ (the folder before its first `{{{{`)"),
                    };
                    let _ = writeln!(
                        out,
                        "  {:?} stays in {folder}  ({}, {})",
                        p.path, p.used_by, p.location
                    );
                }
            }
            let errors = format!("{} error(s)", report.errors());
            let warnings = format!("{} warning(s)", report.warnings());
            use super::style;
            let _ = writeln!(
                out,
                "{}, {} in {} polic{}",
                if report.errors() > 0 {
                    style::bad(&errors)
                } else {
                    style::good(&errors)
                },
                if report.warnings() > 0 {
                    style::warn(&warnings)
                } else {
                    warnings
                },
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
/// Only a change of what the policy files hold counts: reading them (`check`'s
/// own reads, an editor opening one) or touching one changes nothing, so it
/// checks nothing again.
pub fn watch(
    discovery: &Discovery,
    format: Format,
    list_rules: bool,
    fixtures: &[std::path::PathBuf],
    out: &mut dyn Write,
) -> i32 {
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
        // Watch first, then check: a save made while checking is not lost.
        for dir in watch_dirs(discovery) {
            if watched.insert(dir.clone()) {
                if let Err(e) = watcher.watch(&dir, RecursiveMode::NonRecursive) {
                    let _ = writeln!(out, "cannot watch {}: {e}", dir.display());
                }
            }
        }
        let _ = writeln!(
            out,
            "\x1b[2J\x1b[H== hookrules check ({})",
            crate::os::clock::Now::current()
                .stamp(crate::os::clock::Zone::Local)
                .rfc3339
        );
        let checked = policy_contents(&watched);
        check_with_fixtures(discovery, format, list_rules, fixtures, out);
        let _ = out.flush();
        // Wait for a change to a .toml file, let the burst settle, and check again
        // only if some policy file now holds something else.
        loop {
            match rx.recv() {
                Ok(Ok(ev)) if changes_a_policy(&ev) => {
                    while rx.recv_timeout(Duration::from_millis(200)).is_ok() {}
                    if checked != policy_contents(&watched) {
                        break;
                    }
                }
                Ok(_) => continue,
                Err(_) => return 2,
            }
        }
    }
}

/// A file event that can change a policy: a `.toml` file created, written,
/// renamed or removed (not opened, read or closed unwritten).
fn changes_a_policy(ev: &notify::Event) -> bool {
    use notify::EventKind;
    matches!(
        ev.kind,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) | EventKind::Any
    ) && ev
        .paths
        .iter()
        .any(|p| p.extension().is_some_and(|x| x == "toml"))
}

/// What the `.toml` files of the watched folders hold (unreadable ones as their
/// error), by path: the same value means nothing to check again.
fn policy_contents(
    dirs: &std::collections::BTreeSet<std::path::PathBuf>,
) -> Vec<(std::path::PathBuf, Result<Vec<u8>, String>)> {
    let mut out = vec![];
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|x| x == "toml") {
                // Never blocks on a FIFO, a device or a socket named *.toml.
                let content =
                    crate::os::files::read_regular(&path, None).map_err(|e| e.to_string());
                out.push((path, content));
            }
        }
    }
    out.sort();
    out
}

/// The folders whose files make up the policy set.
fn watch_dirs(discovery: &Discovery) -> Vec<std::path::PathBuf> {
    let found = discovery.find();
    let mut dirs: Vec<std::path::PathBuf> = found
        .sources
        .iter()
        .filter_map(|s| match &s.origin {
            crate::source::Origin::File(p) => p.parent().map(|d| d.to_path_buf()),
            crate::source::Origin::Builtin(_) => None,
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

/// `WriteJson` -> `write_json`.
fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// The confinement of one path template, when something can vary it.
fn path_row(
    path: Option<&crate::policy::syntax::Sp<String>>,
    within: Option<&crate::policy::syntax::Sp<String>>,
    location: String,
    used_by: String,
) -> Option<PathRow> {
    let path = path?;
    let literal = crate::os::files::literal_folder(&path.value);
    let (stays_in, declared) = match within {
        Some(w) => (w.value.clone(), true),
        None => (literal?, false),
    };
    Some(PathRow {
        path: path.value.clone(),
        stays_in,
        declared,
        location,
        used_by,
    })
}

/// Commands any active protection must stop: `check` warns (HR112) when the
/// policies `run` would use let one of them through.
const DESTRUCTIVE_PROBES: &[&str] = &["rm -rf /", "rm -rf ~"];

/// HR112: evaluate the probes with the real evaluator (command facts are not
/// run; a probe that needs one is inconclusive and says nothing).
fn destructive_probe(found: &crate::policy::discover::Found) -> Vec<Diagnostic> {
    use crate::policy::syntax::DecisionKind;
    let mut let_through = vec![];
    let set = crate::engine::Set::from_found(found);
    let env: crate::os::env::Env = [
        ("HOME", "/home/user"),
        ("CLAUDE_PROJECT_DIR", "/home/user/project"),
    ]
    .into_iter()
    .collect();
    for command in DESTRUCTIVE_PROBES {
        let value = serde_json::json!({
            "session_id": "hookrules-check", "cwd": "/home/user/project",
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command},
        });
        let Ok(event) = crate::contract::Event::from_value(value) else {
            continue;
        };
        let world = crate::engine::World {
            run_commands: false,
            ..crate::engine::World::new(&env, crate::os::clock::Now::at(0))
        };
        let decision =
            crate::engine::judge(&set, &event, world, &mut crate::eval::trace::NoTrace).decision;
        let inconclusive = decision
            .failures
            .iter()
            .filter_map(|f| f.eval_error())
            .any(crate::eval::EvalError::is_not_run);
        // Self-protection stops the probes too (`rm -rf /` and `rm -rf ~`
        // remove hookrules' own policies), but it is not protection against
        // destructive commands: a decision only it made does not count.
        let only_self_protection = !decision.policies.is_empty()
            && decision.policies.iter().all(|p| p == "self-protection");
        let stopped = !only_self_protection
            && matches!(
                decision.kind,
                Some(
                    DecisionKind::Deny
                        | DecisionKind::Block
                        | DecisionKind::Ask
                        | DecisionKind::Stop
                )
            );
        if !stopped && !inconclusive {
            let_through.push(format!("`{command}`"));
        }
    }
    if let_through.is_empty() {
        return vec![];
    }
    let why = if found.builtin_off_by_flag {
        "the built-in pack is off (`--no-builtin`)".to_string()
    } else if !found.builtin_off.is_empty() {
        let files: Vec<String> = found
            .builtin_off
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        format!(
            "the built-in pack is off (`builtin = false` in {})",
            files.join(", ")
        )
    } else if !found
        .sources
        .iter()
        .any(|s| s.origin == crate::source::Origin::Builtin("destructive"))
    {
        "the built-in `destructive` policy is not loaded".to_string()
    } else {
        "the built-in `destructive` policy's rules for it are disabled, replaced or overridden"
            .to_string()
    };
    vec![Diagnostic::new(
        Code::NoDestructiveProtection,
        format!(
            "no destructive-command protection is active: {} would be allowed; {why}",
            let_through.join(" and ")
        ),
    )
    .help("keep the built-in pack on (remove `builtin = false`), or add a rule that denies these commands; `hookrules explain` shows how one is decided")]
}

/// HR115: events whose commands can take longer than the deadline `run` works
/// to under their registration in the settings files of this project.
fn over_timeout(discovery: &Discovery, found: &crate::policy::discover::Found) -> Vec<Diagnostic> {
    use crate::cli::timeouts;
    let env = crate::os::env::Env::process();
    let files = timeouts::settings_files(discovery.project_dir.as_deref(), &env);
    let registered = timeouts::registrations(&files);
    let mut out = vec![];
    for (event, need) in timeouts::needs(found) {
        let Some(reg) = registered.get(&event) else {
            continue;
        };
        let budget = crate::os::deadline::budget_for_timeout(std::time::Duration::from_secs_f64(
            reg.effective.max(0.001),
        ));
        if u128::from(need.ms) > budget.as_millis() {
            out.push(
                Diagnostic::new(
                    Code::OverTimeout,
                    format!(
                        "{event}: its commands can take {} ({}), but hookrules is registered for it with a {} s timeout in {}, so its answer's deadline is {}",
                        timeouts::seconds(need.ms),
                        need.describe(),
                        reg.effective,
                        reg.file.display(),
                        timeouts::seconds(budget.as_millis() as u64),
                    ),
                )
                .help(format!(
                    "re-run `hookrules init`: it registers {event} with a {} s timeout; or lower the commands' timeout_ms",
                    timeouts::timeout_to_register(&event, Some(&need))
                )),
            );
        }
    }
    out
}
