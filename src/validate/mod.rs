//! Stage 2: [`RawPolicy`] to a validated [`Policy`], collecting every problem.
//!
//! Validation is per rule: `run` validates only the rules the current event can
//! reach (and what they reference), `check` validates everything. A rule with an
//! error is left out of the policy and named in [`Validated::broken_rules`], so the
//! policy's failure mode can apply to it.

pub mod advice;
pub mod allowed;
pub mod headings;
pub mod kinds;
pub mod lints;
pub mod model;
pub mod patterns;
pub mod reads;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Arc;

use globset::{GlobBuilder, GlobSetBuilder};
use regex::Regex;

use crate::contract::events::{self, EventSpec, ListStyle};
use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::policy::syntax::*;
use crate::shell::command::Code as CodeSource;
use crate::shell::reach::{Class, Classes};
use crate::source::PolicySource;
use kinds::{Combinator, SelectorKind, TestKind};
use model::*;

/// Rules left out because of errors, each with its errors.
pub type BrokenRules = Vec<(String, Vec<Diagnostic>)>;

/// The result of validating one policy.
#[derive(Debug)]
pub struct Validated {
    /// The usable part.
    pub policy: Policy,
    /// Every problem found (errors and warnings).
    pub diagnostics: Vec<Diagnostic>,
    /// Selected rules left out because of errors, with those errors.
    pub broken_rules: BrokenRules,
    /// Names of lists, conditions and facts that were used.
    pub used: BTreeSet<String>,
}

/// Validate the rules of `raw` for which `select` is true.
pub fn validate(
    source: &Arc<PolicySource>,
    raw: &RawPolicy,
    select: &dyn Fn(&RawRule) -> bool,
) -> Validated {
    validate_with(source, raw, select, false)
}

/// [`validate`], compiling every pattern now when `eager` (for `check`); otherwise
/// patterns compile on first use and a bad one fails its rule then.
pub fn validate_with(
    source: &Arc<PolicySource>,
    raw: &RawPolicy,
    select: &dyn Fn(&RawRule) -> bool,
    eager: bool,
) -> Validated {
    let mut v = Validator {
        eager,
        source: source.clone(),
        raw,
        diags: vec![],
        named: HashMap::new(),
        resolving: vec![],
        facts: BTreeMap::new(),
        used: BTreeSet::new(),
        regex_place: None,
        failed: HashMap::new(),
        inherited: vec![],
    };
    let header = &raw.policy;
    let name = header
        .name
        .as_ref()
        .map(|n| n.value.clone())
        .unwrap_or_else(|| source.stem());
    let mut rules = vec![];
    let mut broken = vec![];
    for (order, r) in raw.rules.iter().enumerate() {
        if !select(&r.value) {
            continue;
        }
        let before = v.error_count();
        let first = v.diags.len();
        v.inherited.clear();
        let mut rule = v.rule(r, order, &name);
        if let (Some(rule), None) = (&mut rule, &r.value.mode) {
            rule.audit = header.mode.as_ref().map(|m| m.value) == Some(RuleMode::Audit);
        }
        match rule {
            Some(rule) if v.error_count() == before && v.inherited.is_empty() => {
                rules.push(Arc::new(rule))
            }
            _ => {
                let mut errors: Vec<Diagnostic> = v.diags[first..]
                    .iter()
                    .filter(|d| d.severity() == crate::diagnostics::Severity::Error)
                    .cloned()
                    .collect();
                errors.append(&mut v.inherited);
                broken.push((r.id.value.clone(), errors));
            }
        }
    }
    broken.extend(v.override_excepts());
    if eager {
        if let Some(log) = &raw.log {
            v.log_table(&log.value);
        }
    }
    let policy = Policy {
        name,
        source: source.clone(),
        failure: header.failure.as_ref().map(|f| f.value).unwrap_or_default(),
        combine: header.combine.as_ref().map(|f| f.value).unwrap_or_default(),
        unparsable: header
            .unparsable_command
            .as_ref()
            .map(|f| f.value)
            .unwrap_or_default(),
        zone: match header.time_zone.as_ref().map(|z| z.value) {
            Some(crate::policy::syntax::TimeZoneChoice::Utc) => crate::os::clock::Zone::Utc,
            _ => crate::os::clock::Zone::Local,
        },
        rules,
        facts: v
            .facts
            .iter()
            .filter_map(|(k, f)| f.clone().map(|f| (k.clone(), f)))
            .collect(),
    };
    Validated {
        policy,
        diagnostics: v.diags,
        broken_rules: broken,
        used: v.used,
    }
}

/// Read the failure mode from a policy text even when the rest of it is broken,
/// so a broken policy can still honour its own `failure` choice.
pub fn sniff_failure_mode(text: &str) -> Option<FailureMode> {
    let re = Regex::new(r#"(?m)^\s*failure\s*=\s*["']fail-(open|closed)["']"#).ok()?;
    let c = re.captures(text)?;
    Some(if &c[1] == "open" {
        FailureMode::FailOpen
    } else {
        FailureMode::FailClosed
    })
}

struct Validator<'a> {
    /// Compile patterns now (for `check`) rather than on first use.
    eager: bool,
    source: Arc<PolicySource>,
    raw: &'a RawPolicy,
    diags: Vec<Diagnostic>,
    /// Named conditions already resolved (None: failed).
    named: HashMap<String, Option<Arc<NamedCondition>>>,
    /// Names being resolved, for cycle detection.
    resolving: Vec<String>,
    facts: BTreeMap<String, Option<Arc<Fact>>>,
    used: BTreeSet<String>,
    /// The selector (key, value) and test key of the regexes being compiled, for
    /// help lines that show the rewrite.
    regex_place: Option<(String, String, &'static str)>,
    /// The errors of named conditions and facts that failed (`condition:NAME`,
    /// `fact:NAME`): every rule using one is broken by them, not only the first.
    failed: HashMap<String, Vec<Diagnostic>>,
    /// Errors the current rule inherits from definitions that failed earlier.
    inherited: Vec<Diagnostic>,
}

impl Validator<'_> {
    fn errors_since(&self, first: usize) -> Vec<Diagnostic> {
        self.diags[first..]
            .iter()
            .filter(|d| d.severity() == crate::diagnostics::Severity::Error)
            .cloned()
            .collect()
    }

    fn error_count(&self) -> usize {
        self.diags
            .iter()
            .filter(|d| d.severity() == crate::diagnostics::Severity::Error)
            .count()
    }

    fn err(&mut self, code: Code, span: Range<usize>, msg: impl Into<String>) -> &mut Diagnostic {
        let d = Diagnostic::new(code, msg).at(&self.source, span);
        self.diags.push(d);
        self.diags.last_mut().expect("just pushed")
    }

    fn rule(&mut self, r: &Sp<RawRule>, order: usize, policy: &str) -> Option<Rule> {
        let raw = &r.value;
        let events = self.events(&raw.events);
        let specs: Vec<&'static EventSpec> = match &events {
            EventScope::All => vec![],
            EventScope::Named(v) => v.iter().filter_map(|e| events::spec(e)).collect(),
        };
        let matcher = self.matcher(raw.matcher.as_ref(), &events, &specs);
        if let Some(d) = &raw.decision {
            for spec in &specs {
                if !supports(spec, d.value) {
                    let takes: Vec<&str> = [
                        DecisionKind::Allow,
                        DecisionKind::Ask,
                        DecisionKind::Deny,
                        DecisionKind::Block,
                        DecisionKind::Stop,
                    ]
                    .into_iter()
                    .filter(|k| supports(spec, *k))
                    .map(|k| k.as_str())
                    .collect();
                    let help = if takes.is_empty() {
                        format!(
                            "the client ignores all output of {}; remove `decision`",
                            spec.name
                        )
                    } else if spec.blocking == events::Blocking::None {
                        format!(
                            "{} cannot be blocked; use `context` or `message`, or `decision = \"stop\"` to end the turn (`hookrules rule HR013` lists what each event takes)",
                            spec.name
                        )
                    } else {
                        format!(
                            "{} takes {} (`hookrules rule HR013` lists what each event takes)",
                            spec.name,
                            takes
                                .iter()
                                .map(|k| format!("`{k}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    };
                    self.err(
                        Code::DecisionNotSupported,
                        d.span.clone(),
                        format!(
                            "decision `{}` has no effect on {}",
                            d.value.as_str(),
                            spec.name
                        ),
                    )
                    .set_help(help);
                }
            }
        }
        let when = raw.when.as_ref().and_then(|c| self.condition(c));
        let unless = raw.unless.as_ref().and_then(|c| self.condition(c));
        let except = self.except(raw);
        // A condition (or exception) that did not validate must never be dropped
        // silently (the rule would then match everything, or nothing).
        let conditions_ok = raw.when.is_some() == when.is_some()
            && raw.unless.is_some() == unless.is_some()
            && except.is_ok();
        let except = except.ok().flatten();
        let tpl = |s: &Option<Sp<String>>| s.as_ref().map(template);
        let reason = tpl(&raw.reason);
        let context = tpl(&raw.context);
        let message = tpl(&raw.message);
        for t in [&reason, &context, &message].into_iter().flatten() {
            self.facts_in_template(t);
        }
        let mut rewrite = vec![];
        if let Some(rw) = &raw.rewrite {
            for (k, t) in &rw.value {
                let t = template(t);
                self.facts_in_template(&t);
                rewrite.push((k.clone(), t));
            }
        }
        let include = raw
            .include
            .iter()
            .map(|i| {
                let path = template(&i.path);
                self.facts_in_template(&path);
                Include {
                    path,
                    lines: i.lines,
                    title: i.title.as_ref().map(template),
                    newest: i.newest.unwrap_or(false),
                }
            })
            .collect();
        let effects = raw.effects.iter().filter_map(|e| self.effect(e)).collect();
        if !conditions_ok {
            if self.inherited.is_empty() {
                let d = Diagnostic::new(
                    Code::InvalidCondition,
                    "a condition of this rule has errors",
                )
                .at(&self.source, r.span.clone());
                self.inherited.push(d);
            }
            return None;
        }
        Some(Rule {
            id: raw.id.value.clone(),
            description: raw.description.clone(),
            priority: raw.priority.as_ref().map(|p| p.value).unwrap_or(100),
            tags: raw.tags.clone(),
            enabled: raw.enabled.unwrap_or(true),
            audit: raw.mode.as_ref().map(|m| m.value) == Some(RuleMode::Audit),
            events,
            matcher: matcher.0,
            matcher_text: matcher.1,
            event_matchers: matcher.2,
            when,
            unless,
            except,
            decision: raw.decision.as_ref().map(|d| d.value),
            defer: raw.defer.unwrap_or(false),
            reason,
            context,
            message,
            rewrite,
            include,
            effects,
            order,
            span: r.span.clone(),
            id_span: raw.id.span.clone(),
            policy: policy.to_string(),
        })
    }

    /// The rule's `except` and those overrides granted it, as one exception.
    /// A bad entry of the rule's own `except` breaks the rule (never quietly
    /// wider or narrower than written); a granted one that does not validate is
    /// left out whole: its errors belong to the override's file, which
    /// [`Validator::override_excepts`] reports and breaks.
    fn except(&mut self, raw: &RawRule) -> Result<Option<Arc<Except>>, ()> {
        let mut paths = vec![];
        let mut commands = vec![];
        let mut at = vec![];
        let mut add = |source: &PolicySource, e: &Sp<RawExcept>, part: ExceptPart| {
            paths.extend(part.paths);
            commands.extend(part.commands);
            let (line, _) = source.line_col(e.span.start);
            at.push(format!("{}:{line}", source.display_name()));
        };
        if let Some(e) = &raw.except {
            match except_part(e) {
                Ok(part) => add(&self.source, e, part),
                Err(problems) => {
                    for (code, span, msg, help) in problems {
                        self.err(code, span, msg).set_help(help);
                    }
                    return Err(());
                }
            }
        }
        for g in &raw.granted {
            if let Ok(part) = except_part(&g.except) {
                add(&g.source, &g.except, part);
            }
        }
        if at.is_empty() {
            return Ok(None);
        }
        Ok(Some(Arc::new(Except {
            paths: Arc::new(Globs::new(paths, false)),
            commands,
            at: at.join(", "),
        })))
    }

    /// The `except` of each of this file's `[[override]]`s: every entry
    /// checked here, in this file. One that does not validate is one broken
    /// item of this file (`override:LINE`), which makes the file's failure mode
    /// apply, and is not added to any rule.
    fn override_excepts(&mut self) -> BrokenRules {
        let mut broken = vec![];
        for o in &self.raw.overrides {
            let Some(e) = &o.value.except else { continue };
            let Err(problems) = except_part(e) else {
                continue;
            };
            let first = self.diags.len();
            for (code, span, msg, help) in problems {
                self.err(code, span, msg).set_help(help);
            }
            let (line, _) = self.source.line_col(o.span.start);
            broken.push((format!("override:{line}"), self.diags[first..].to_vec()));
        }
        broken
    }

    fn events(&mut self, evs: &Sp<Vec<Sp<String>>>) -> EventScope {
        if evs.value.is_empty() {
            self.err(Code::MissingEvents, evs.span.clone(), "`events` is empty")
                .set_help("list the events, e.g. events = [\"PreToolUse\"], or [\"*\"] for all");
            return EventScope::Named(vec![]);
        }
        let mut names = vec![];
        for e in &evs.value {
            if e.value == "*" {
                return EventScope::All;
            }
            if let Some(future) = e.value.strip_prefix('+') {
                names.push(future.to_string());
                continue;
            }
            if events::spec(&e.value).is_none() {
                let all = events::EVENTS.iter().map(|s| s.name);
                let help = match did_you_mean(&e.value, all) {
                    Some(s) => format!(
                        "did you mean `{s}`? (a newer client's event: write `+{}`)",
                        e.value
                    ),
                    None => format!("a newer client's event can be named as `+{}`", e.value),
                };
                self.err(
                    Code::UnknownEvent,
                    e.span.clone(),
                    format!("unknown event `{}`", e.value),
                )
                .set_label("not an event the client sends")
                .set_help(help);
                continue;
            }
            names.push(e.value.clone());
        }
        EventScope::Named(names)
    }

    /// The matcher for all events, or per event. Returns the matcher for all
    /// events with its text, and the per-event matchers.
    #[allow(clippy::type_complexity)]
    fn matcher(
        &mut self,
        m: Option<&Sp<MatcherSpec>>,
        scope: &EventScope,
        specs: &[&'static EventSpec],
    ) -> (Matcher, Option<String>, Vec<(String, Matcher, String)>) {
        let Some(m) = m else {
            return (Matcher::Any, None, vec![]);
        };
        match &m.value {
            MatcherSpec::All(text) => {
                let (matcher, text) = self.one_matcher(text, &m.span, scope, specs);
                (matcher, text, vec![])
            }
            MatcherSpec::PerEvent(map) => {
                let mut per = vec![];
                for (event, text) in map {
                    let in_scope = match scope {
                        EventScope::All => true,
                        EventScope::Named(v) => v.contains(event),
                    };
                    if !in_scope {
                        self.err(
                            Code::MatcherWithoutField,
                            m.span.clone(),
                            format!(
                                "the matcher names {event}, which is not one of the rule's events"
                            ),
                        )
                        .set_help("per-event matchers are keyed by the rule's own `events`");
                        continue;
                    }
                    let spec: Vec<&'static EventSpec> = events::spec(event).into_iter().collect();
                    let named = EventScope::Named(vec![event.clone()]);
                    let (matcher, _) = self.one_matcher(text, &m.span, &named, &spec);
                    per.push((event.clone(), matcher, text.clone()));
                }
                (Matcher::Any, None, per)
            }
        }
    }

    fn one_matcher(
        &mut self,
        text_in: &str,
        span: &Range<usize>,
        scope: &EventScope,
        specs: &[&'static EventSpec],
    ) -> (Matcher, Option<String>) {
        let text = text_in.trim();
        if text.is_empty() || text == "*" {
            return (Matcher::Any, Some(text_in.to_string()));
        }
        if let EventScope::Named(names) = scope {
            let all_known = names.iter().all(|n| events::spec(n).is_some());
            if all_known && !specs.is_empty() && specs.iter().all(|s| s.matcher_field.is_none()) {
                let names: Vec<&str> = specs.iter().map(|s| s.name).collect();
                self.err(
                    Code::MatcherWithoutField,
                    span.clone(),
                    format!(
                        "{} has no matcher field; the client ignores matchers on it",
                        names.join(", ")
                    ),
                )
                .set_help(
                    "remove `matcher`, or test a field with `when = { field = \"...\", ... }`",
                );
            }
        }
        let style = if specs.iter().all(|s| s.list_style == ListStyle::Wide) {
            ListStyle::Wide
        } else {
            ListStyle::Narrow
        };
        match parse_matcher(text_in, style) {
            Ok(matcher) => (matcher, Some(text_in.to_string())),
            Err(e) => {
                self.err(
                    Code::InvalidRegex,
                    span.clone(),
                    format!("matcher is not a valid regex: {e}"),
                )
                .set_help("the client matches nothing with an invalid matcher regex");
                (Matcher::Any, Some(text_in.to_string()))
            }
        }
    }

    fn condition(&mut self, c: &Sp<RawCondition>) -> Option<Condition> {
        let raw = &c.value;
        let span = c.span.clone();
        let combinators = Combinator::ALL.iter().filter(|k| k.written(raw)).count();
        let selectors = SelectorKind::written_in(raw);
        let tests = TestKind::written_in(raw);

        if combinators > 0 {
            if combinators > 1 || !selectors.is_empty() || !tests.is_empty() {
                self.err(
                    Code::InvalidCondition,
                    span,
                    "a condition mixes `all`/`any`/`not`/`ref` with other keys",
                )
                .set_help("nest them: all = [{ ... }, { ... }]");
                return None;
            }
            if let Some(list) = &raw.all {
                let v: Vec<_> = list.iter().filter_map(|c| self.condition(c)).collect();
                return (v.len() == list.len()).then_some(Condition::All(v));
            }
            if let Some(list) = &raw.any {
                let v: Vec<_> = list.iter().filter_map(|c| self.condition(c)).collect();
                return (v.len() == list.len()).then_some(Condition::Any(v));
            }
            if let Some(n) = &raw.not {
                return self.condition(n).map(|c| Condition::Not(Box::new(c)));
            }
            if let Some(r) = &raw.reference {
                return self.named_condition(r).map(Condition::Ref);
            }
        }
        if selectors.len() != 1 {
            let msg = if selectors.is_empty() {
                format!(
                    "a condition needs a selector ({}) or a combinator",
                    SelectorKind::listed()
                )
            } else {
                format!(
                    "a condition can have only one selector, found {}",
                    selectors
                        .iter()
                        .map(|k| k.key())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            self.err(Code::InvalidCondition, span, msg)
                .set_help("e.g. { field = \"tool_input.command\", matches = ['\\brm\\b'] }");
            return None;
        }
        let selector_kind = selectors[0];
        if tests.len() != 1 {
            let msg = if tests.is_empty() {
                format!("`{}` has nothing to test", selector_kind.key())
            } else {
                format!(
                    "a condition can have only one test, found {}",
                    tests.iter().map(|k| k.key()).collect::<Vec<_>>().join(", ")
                )
            };
            self.err(Code::InvalidCondition, span, msg)
                .set_help(format!(
                    "add one of {}; combine several with all = [...]",
                    TestKind::general()
                ));
            return None;
        }
        // A test that goes with one selector only (and, both ways, a selector
        // that goes with that test only), in table order.
        let pairing = TestKind::ALL
            .into_iter()
            .filter_map(|k| k.pairing().map(|p| (k, p)))
            .find(|(k, p)| {
                let (is_test, is_selector) = (tests[0] == *k, selector_kind == p.selector);
                if p.both_ways {
                    is_test != is_selector
                } else {
                    is_test && !is_selector
                }
            })
            .map(|(_, p)| p);
        if let Some(p) = pairing {
            self.err(Code::InvalidCondition, span, p.message)
                .set_help(p.help);
            return None;
        }
        let selector = selector_kind.read(self, raw)?;
        let selector_text = selector_kind
            .written(raw)
            .map(|s| s.value.clone())
            .unwrap_or_default();
        let op = tests[0].read(self, raw, selector_kind)?;
        Some(Condition::Test(Arc::new(Test {
            selector,
            normalize: raw.normalize.iter().map(|n| n.value).collect(),
            quantifier: raw.quantifier.as_ref().map(|q| q.value).unwrap_or_default(),
            op,
            span,
            selector_text,
        })))
    }

    /// `[log]`: redacted fields are field paths (`*` for any key), extra
    /// redactions are regexes. (Read again by `run` after the answer; checked here.)
    fn log_table(&mut self, log: &crate::policy::log::RawLog) {
        for f in &log.redact {
            self.field_path(f);
        }
        for r in &log.redact_values {
            if let Err(e) = Regex::new(&r.value) {
                self.err(
                    Code::InvalidRegex,
                    r.span.clone(),
                    format!("invalid regex: {e}"),
                )
                .set_help("regexes use Rust `regex` syntax; write them in literal strings ('...')");
            }
        }
    }

    fn field_path(&mut self, s: &Sp<String>) -> Option<FieldPath> {
        match FieldPath::parse(&s.value) {
            Ok(p) => Some(p),
            Err(e) => {
                self.err(Code::InvalidCondition, s.span.clone(), e)
                    .set_help(
                    "a dotted path like `tool_input.command`; for anything fancier use `jsonpath`",
                );
                None
            }
        }
    }

    /// A `jsonpath = …` query.
    fn json_query(&mut self, written: &Sp<String>) -> Option<JsonQuery> {
        match JsonQuery::parse(written.value.clone()) {
            Ok(query) => Some(query),
            Err(e) => {
                self.err(
                    Code::InvalidJsonPath,
                    written.span.clone(),
                    format!("invalid JSONPath: {e}"),
                )
                .set_help("JSONPath starts at `$`, e.g. `$.tool_calls[*].tool_name`");
                None
            }
        }
    }

    /// A `fact = "name.path"` selector: a fact of `[facts]` and a path into
    /// its value.
    fn fact_selector(&mut self, f: &Sp<String>) -> Option<Selector> {
        let (name, rest) = f.value.split_once('.').unwrap_or((&f.value, ""));
        self.fact(name, f.span.clone())?;
        let path = match FieldPath::parse(rest) {
            Ok(p) => p,
            Err(e) => {
                self.err(Code::InvalidCondition, f.span.clone(), e);
                return None;
            }
        };
        Some(Selector::Fact {
            name: name.to_string(),
            path,
        })
    }

    /// `paths = …` and the settings that go with it.
    fn path_selector(&mut self, raw: &RawCondition, p: &Sp<String>) -> Option<Selector> {
        let field = self.field_path(p)?;
        let written_by = match &raw.written_by {
            Some(l) => Some(self.items(l)?),
            None => None,
        };
        let skip_programs = match &raw.skip_programs {
            Some(l) => self.items(l)?,
            None => vec![],
        };
        let skip_options = match &raw.skip_options {
            Some(l) => self.program_options(l)?,
            None => vec![],
        };
        let written_through = match &raw.written_through {
            Some(l) => self.program_options(l)?,
            None => vec![],
        };
        let writes = raw.writes.unwrap_or(false);
        let replaces = raw.replaces.unwrap_or(false);
        if replaces && !writes {
            self.err(
                Code::InvalidCondition,
                p.span.clone(),
                "`replaces = true` narrows the paths a command writes: it goes with `writes = true`",
            );
            return None;
        }
        Some(Selector::Paths(PathSelector {
            field,
            from_command: raw.from_command.unwrap_or(false),
            written_by,
            skip_programs,
            skip_options,
            written_through,
            reads_only: raw.reads_only.unwrap_or(false),
            writes,
            replaces,
            resolve_symlinks: raw.resolve_symlinks.unwrap_or(true),
        }))
    }

    /// A regex test's list, with its selector and key kept for the help
    /// lines of its errors.
    fn test_regexes(
        &mut self,
        raw: &RawCondition,
        selector: SelectorKind,
        test: TestKind,
        list: &Sp<Vec<Sp<PatternItem>>>,
    ) -> Option<Arc<Regexes>> {
        self.regex_place = selector
            .written(raw)
            .map(|v| (selector.key().to_string(), v.value.clone(), test.key()));
        self.regexes(list)
    }

    /// A list of location classes, `!` for exclusions.
    fn class_test(&mut self, list: &Sp<Vec<Sp<String>>>) -> Option<ClassTest> {
        let mut t = ClassTest::default();
        let mut ok = true;
        for item in &list.value {
            let (neg, name) = match item.value.strip_prefix('!') {
                Some(n) => (true, n),
                None => (false, item.value.as_str()),
            };
            match Class::parse(name) {
                Some(c) if neg => t.none.add(c),
                Some(c) => t.any.add(c),
                None => {
                    ok = false;
                    let names = Class::ALL.iter().map(|(_, n)| *n);
                    let help = match did_you_mean(name, names) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!(
                            "location classes: {}",
                            Class::ALL
                                .iter()
                                .map(|(_, n)| *n)
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    };
                    self.err(
                        Code::InvalidCondition,
                        item.span.clone(),
                        format!("unknown location class `{name}`"),
                    )
                    .set_help(help);
                }
            }
        }
        t.anywhere = t.any == Classes::default();
        ok.then_some(t)
    }

    fn command_test(&mut self, c: &Sp<RawCommandTest>) -> Option<CommandTest> {
        let raw = &c.value;
        let mut t = CommandTest::default();
        let mut ok = true;
        if let Some(p) = &raw.program {
            match self.items(p) {
                Some(v) => t.program = v,
                None => ok = false,
            }
        }
        if let Some(s) = &raw.subcommand {
            t.subcommand = s.value.iter().map(|s| s.value.clone()).collect();
        }
        self.flags_seen(raw, &t.program);
        if let Some(f) = &raw.flags_all {
            t.words.flags_all = f.value.iter().map(|g| g.value.clone()).collect();
        }
        if let Some(f) = &raw.flags_any {
            t.words.flags_any = f.value.iter().map(|g| g.value.clone()).collect();
        }
        if let Some(f) = &raw.flags_none {
            t.words.flags_none = f.value.iter().map(|g| g.value.clone()).collect();
        }
        if let Some(a) = &raw.arg_in {
            match self.items(a) {
                Some(v) => t.words.arg_in = v,
                None => ok = false,
            }
        }
        if let Some(g) = &raw.target_glob {
            match self.globs(g, false) {
                Some(s) => t.target_glob = Some(s),
                None => ok = false,
            }
        }
        if let Some(l) = &raw.skip_options {
            match self.program_options(l) {
                Some(v) => t.skip_options = v,
                None => ok = false,
            }
        }
        if let Some(r) = &raw.arg_matches {
            self.regex_place = None;
            match self.regexes(r) {
                Some(r) => t.arg_matches = Some(r),
                None => ok = false,
            }
        }
        if let Some(c) = &raw.target_class {
            match self.class_test(c) {
                Some(ct) => t.target_class = Some(ct),
                None => ok = false,
            }
        }
        t.program_unknown = raw.program_unknown;
        if let Some(list) = &raw.code {
            for item in &list.value {
                match CodeSource::parse(&item.value) {
                    Some(c) => t.code.push(c),
                    None => {
                        ok = false;
                        let help =
                            match did_you_mean(&item.value, CodeSource::NAMES.iter().copied()) {
                                Some(s) => format!("did you mean `{s}`?"),
                                None => format!("one of: {}", CodeSource::NAMES.join(", ")),
                            };
                        self.err(
                            Code::InvalidCondition,
                            item.span.clone(),
                            format!("unknown code source `{}`", item.value),
                        )
                        .set_help(help);
                    }
                }
            }
        }
        if let Some(w) = &raw.when {
            match self.condition(w) {
                Some(cond) => t.when = Some(cond),
                None => ok = false,
            }
        }
        ok.then_some(t)
    }

    /// Warn about a `flags_*` entry the command's flags never hold (`-?`,
    /// `-rf`, `-delete`: a single-dash word is split into its letters), and
    /// about a one-letter `flags_none` entry on a program whose options are
    /// single-dash words, where the letter is also one of theirs (`-h` in
    /// `-hashes`): see [`Code::FlagNeverSeen`].
    fn flags_seen(&mut self, raw: &RawCommandTest, programs: &[String]) {
        let mut entries: Vec<(&str, Range<usize>, bool)> = vec![];
        for group in raw.flags_all.iter().flat_map(|f| &f.value) {
            entries.extend(
                group
                    .value
                    .iter()
                    .map(|f| (f.as_str(), group.span.clone(), false)),
            );
        }
        for (list, none) in [(&raw.flags_any, false), (&raw.flags_none, true)] {
            entries.extend(
                list.iter()
                    .flat_map(|f| &f.value)
                    .map(|e| (e.value.as_str(), e.span.clone(), none)),
            );
        }
        // `find`'s primaries are whole words (`-delete`, `-name`).
        let whole_words = programs
            .iter()
            .any(|p| crate::shell::command::program_is(p, "find"));
        let worded = programs.iter().find(|p| single_dash_words(p)).cloned();
        for (f, span, none) in entries {
            let word = format!("`{{ field = \"args\", one_of = [\"{f}\"] }}`");
            if let Some(why) = never_a_flag(f).filter(|_| !whole_words) {
                let help = match f.len() > 2 && f[1..].bytes().all(|b| b.is_ascii_alphanumeric()) {
                    true => format!("name its letters one by one (`-{}`), or test the word itself: {word} in `when`", &f[1..2]),
                    false => format!("test the word itself: {word} in `when`"),
                };
                self.err(
                    Code::FlagNeverSeen,
                    span,
                    format!("`{f}` is never one of a command's flags: {why}"),
                )
                .set_help(help);
            } else if let (true, Some(p)) = (none && is_letter_flag(f), &worded) {
                self.err(
                    Code::FlagNeverSeen,
                    span,
                    format!("`{f}` is also a letter of `{p}`'s single-dash options (its words are split into letters), so this excludes them too"),
                )
                .set_help(format!("exclude the word itself: `when = {{ not = {word} }}`"));
            }
        }
    }

    /// Expand a pattern list (literals and `{ list = ".." }` references).
    fn items(&mut self, list: &Sp<Vec<Sp<PatternItem>>>) -> Option<Vec<String>> {
        Some(
            self.spanned_items(list)?
                .into_iter()
                .map(|(s, _)| s)
                .collect(),
        )
    }

    /// Read a `skip_options` or `written_through` list: each entry a program and
    /// places in its command line.
    fn program_options(&mut self, list: &Sp<Vec<Sp<PatternItem>>>) -> Option<Vec<ProgramOptions>> {
        let mut out = vec![];
        let mut ok = true;
        for (entry, span) in self.spanned_items(list)? {
            match ProgramOptions::parse(&entry) {
                Ok(p) => out.push(p),
                Err(bad) => {
                    ok = false;
                    self.err(
                        Code::InvalidCondition,
                        span,
                        format!(
                            "`{entry}`: `{bad}` is not a place in a command line: write the program (`openssl:x509` with its subcommand), then conditions (`+-pubout`, `!-text`) and options (`-i`, `--output`), word prefixes (`of=`), operand positions (`@2`, `@-1`, `@*`) or standard input (`<`)"
                        ),
                    );
                }
            }
        }
        ok.then_some(out)
    }

    /// Expand a pattern list, keeping the span of each item's text.
    fn spanned_items(
        &mut self,
        list: &Sp<Vec<Sp<PatternItem>>>,
    ) -> Option<Vec<(String, Range<usize>)>> {
        let mut out = vec![];
        let mut ok = true;
        for item in &list.value {
            match &item.value {
                PatternItem::Literal(s) => out.push((s.clone(), item.span.clone())),
                PatternItem::List { list: name } => match self.raw.lists.get(name) {
                    Some(l) => {
                        self.used.insert(format!("list:{name}"));
                        out.extend(l.value.iter().map(|s| (s.value.clone(), s.span.clone())));
                    }
                    None => {
                        ok = false;
                        let help = did_you_mean(name, self.raw.lists.keys().map(|s| s.as_str()))
                            .map(|s| format!("did you mean `{s}`?"))
                            .unwrap_or_else(|| "define it under [lists]".into());
                        self.err(
                            Code::UnknownReference,
                            item.span.clone(),
                            format!("unknown list `{name}`"),
                        )
                        .set_help(help);
                    }
                },
            }
        }
        ok.then_some(out)
    }

    /// A regex list. In eager mode (`check`) every pattern is compiled now, with
    /// diagnostics at the offending character; otherwise compilation waits for
    /// first use.
    fn regexes(&mut self, list: &Sp<Vec<Sp<PatternItem>>>) -> Option<Arc<Regexes>> {
        let items = self.spanned_items(list)?;
        if self.eager {
            let mut ok = true;
            for (pat, span) in &items {
                match Regex::new(pat) {
                    Ok(_) => {
                        // Deterministic: a pattern whose automaton does not fit a
                        // small budget is slow to compile on every first use.
                        let small = regex::RegexBuilder::new(pat)
                            .size_limit(SLOW_REGEX_BYTES)
                            .build();
                        if small.is_err() {
                            self.err(Code::SlowRegex, span.clone(), "this regex compiles into a large automaton")
                                .set_help("prefer ASCII classes ((?-u:\\w), [0-9]) and small repetition counts ({0,40} of a Unicode class is large)");
                        }
                    }
                    Err(e) => {
                        ok = false;
                        let (sub, msg) = regex_error_span(&self.source.text, span, pat, &e);
                        let place = self.regex_place.take();
                        let lookaround = advice::lookaround(
                            pat,
                            place.as_ref().map(|(k, v, _)| (k.as_str(), v.as_str())),
                            place.as_ref().map(|p| p.2).unwrap_or("arg_matches"),
                        );
                        self.regex_place = place;
                        self.err(Code::InvalidRegex, sub, msg).set_help(lookaround.unwrap_or_else(|| {
                            "regexes use Rust `regex` syntax; write them in literal strings ('...')".into()
                        }));
                    }
                }
            }
            if !ok {
                return None;
            }
        }
        let regexes = Arc::new(Regexes::new(items.into_iter().map(|(s, _)| s).collect()));
        if self.eager {
            if let Err(patterns::PatternError::RegexList { error, .. }) =
                patterns::CompiledRegexes::build(&regexes.sources)
            {
                self.err(
                    Code::InvalidRegex,
                    list.span.clone(),
                    format!("the patterns do not build together: {error}"),
                );
                return None;
            }
        }
        Some(regexes)
    }

    fn globs(
        &mut self,
        list: &Sp<Vec<Sp<PatternItem>>>,
        case_insensitive: bool,
    ) -> Option<Arc<Globs>> {
        let items = self.spanned_items(list)?;
        if self.eager {
            let mut ok = true;
            for (pat, span) in &items {
                if let Err(e) = build_glob(pat.strip_prefix('!').unwrap_or(pat), false) {
                    ok = false;
                    self.err(
                        Code::InvalidGlob,
                        span.clone(),
                        format!("invalid glob: {e}"),
                    )
                    .set_help("globset syntax: *, **, ?, [abc], {a,b}; a leading ! excludes");
                }
            }
            if !ok {
                return None;
            }
        }
        let globs = Arc::new(Globs::new(
            items.into_iter().map(|(s, _)| s).collect(),
            case_insensitive,
        ));
        if self.eager {
            let mut set = GlobSetBuilder::new();
            for p in &globs.sources {
                let p = p.strip_prefix('!').unwrap_or(p);
                let p = if case_insensitive {
                    p.to_lowercase()
                } else {
                    p.to_string()
                };
                if let Ok(g) = build_glob(&p, false) {
                    set.add(g);
                }
            }
            if let Err(e) = set.build() {
                self.err(Code::InvalidGlob, list.span.clone(), e.to_string());
                return None;
            }
        }
        Some(globs)
    }

    fn named_condition(&mut self, r: &Sp<String>) -> Option<Arc<NamedCondition>> {
        let name = r.value.clone();
        if let Some(done) = self.named.get(&name) {
            if done.is_none() {
                let errs = self.failed.get(&format!("condition:{name}")).cloned();
                self.inherited.extend(errs.unwrap_or_default());
            }
            return done.clone();
        }
        if self.resolving.contains(&name) {
            let mut chain = self.resolving.clone();
            chain.push(name.clone());
            self.err(
                Code::ReferenceCycle,
                r.span.clone(),
                format!("condition cycle: {}", chain.join(" -> ")),
            )
            .set_help("a named condition cannot refer back to itself");
            return None;
        }
        let Some(raw) = self.raw.conditions.get(&name) else {
            let help = did_you_mean(&name, self.raw.conditions.keys().map(|s| s.as_str()))
                .map(|s| format!("did you mean `{s}`?"))
                .unwrap_or_else(|| "define it under [conditions]".into());
            self.err(
                Code::UnknownReference,
                r.span.clone(),
                format!("unknown condition `{name}`"),
            )
            .set_help(help);
            return None;
        };
        self.used.insert(format!("condition:{name}"));
        self.resolving.push(name.clone());
        let first = self.diags.len();
        let cond = self.condition(raw);
        if cond.is_none() {
            let errs = self.errors_since(first);
            self.failed.insert(format!("condition:{name}"), errs);
        }
        self.resolving.pop();
        let result = cond.map(|condition| {
            Arc::new(NamedCondition {
                name: name.clone(),
                condition,
            })
        });
        self.named.insert(name, result.clone());
        result
    }

    fn facts_in_template(&mut self, t: &Template) {
        for name in facts_named_in(&t.text) {
            self.fact(&name, t.span.clone());
        }
    }

    fn fact(&mut self, name: &str, at: Range<usize>) -> Option<Arc<Fact>> {
        if let Some(f) = self.facts.get(name) {
            if f.is_none() {
                let errs = self.failed.get(&format!("fact:{name}")).cloned();
                self.inherited.extend(errs.unwrap_or_default());
            }
            return f.clone();
        }
        let first = self.diags.len();
        let fact = self.new_fact(name, at);
        if fact.is_none() {
            let errs = self.errors_since(first);
            self.failed.insert(format!("fact:{name}"), errs);
        }
        fact
    }

    fn new_fact(&mut self, name: &str, at: Range<usize>) -> Option<Arc<Fact>> {
        let Some(raw) = self.raw.facts.get(name) else {
            let help = did_you_mean(name, self.raw.facts.keys().map(|s| s.as_str()))
                .map(|s| format!("did you mean `{s}`?"))
                .unwrap_or_else(|| format!("define it under [facts.{name}]"));
            self.err(Code::UnknownReference, at, format!("unknown fact `{name}`"))
                .set_help(help);
            self.facts.insert(name.to_string(), None);
            return None;
        };
        self.used.insert(format!("fact:{name}"));
        // Insert a placeholder first: facts may name other facts in their templates.
        self.facts.insert(name.to_string(), None);
        let f = &raw.value;
        let ok = match f.kind.value.required(f) {
            Some((what, example, false)) => {
                self.err(
                    Code::InvalidFact,
                    raw.span.clone(),
                    format!("fact `{name}` of kind `{}` needs `{what}`", f.kind.key())
                        .to_lowercase(),
                )
                .set_help(format!("add {example}"));
                false
            }
            Some((_, _, true)) | None => true,
        };
        let regex = match &f.regex {
            Some(r) => match Regex::new(&r.value) {
                Ok(re) => Some(re),
                Err(e) => {
                    let (sub, msg) = regex_error_span(&self.source.text, &r.span, &r.value, &e);
                    self.err(Code::InvalidRegex, sub, msg);
                    return None;
                }
            },
            None => None,
        };
        let exclude = if f.exclude.is_empty() {
            None
        } else {
            for g in &f.exclude {
                match build_glob(&g.value, false) {
                    Ok(_) => {}
                    Err(e) => {
                        self.err(
                            Code::InvalidGlob,
                            g.span.clone(),
                            format!("invalid glob: {e}"),
                        );
                        return None;
                    }
                }
            }
            ExcludeGlobs::try_from(
                f.exclude
                    .iter()
                    .map(|g| g.value.clone())
                    .collect::<Vec<_>>(),
            )
            .ok()
        };
        if !ok {
            return None;
        }
        let fact = Fact {
            name: name.to_string(),
            kind: f.kind.value,
            path: f.path.as_ref().map(template),
            within: f.within.as_ref().map(template),
            headings: f.headings.iter().map(|h| h.value.clone()).collect(),
            regex,
            lines: f.lines,
            json: f.json.unwrap_or(false),
            exclude,
            argv: f
                .argv
                .as_ref()
                .map(|a| a.value.iter().map(template).collect())
                .unwrap_or_default(),
            timeout_ms: f.timeout_ms.unwrap_or(10_000),
            cwd: f.cwd.as_ref().map(template),
            vars: f.vars.clone(),
            markers: if f.markers.is_empty() {
                DEFAULT_MARKERS.iter().map(|s| s.to_string()).collect()
            } else {
                f.markers.clone()
            },
            span: raw.span.clone(),
        };
        for t in fact
            .path
            .iter()
            .chain(fact.argv.iter())
            .chain(fact.cwd.iter())
        {
            self.facts_in_template(t);
        }
        let fact = Arc::new(fact);
        self.facts.insert(name.to_string(), Some(fact.clone()));
        Some(fact)
    }

    fn effect(&mut self, e: &Sp<RawEffect>) -> Option<Effect> {
        let raw = &e.value;
        let kind = raw.kind.value;
        let missing = match kind {
            EffectKind::WriteFile => [
                ("path", raw.path.is_some()),
                ("content", raw.content.is_some()),
            ]
            .to_vec(),
            EffectKind::WriteJson | EffectKind::AppendJsonl => [
                ("path", raw.path.is_some()),
                ("record", raw.record.is_some()),
            ]
            .to_vec(),
            EffectKind::DeleteFile => [("path", raw.path.is_some())].to_vec(),
            EffectKind::Run => [(
                "argv",
                raw.argv.as_ref().is_some_and(|a| !a.value.is_empty()),
            )]
            .to_vec(),
        };
        let missing: Vec<&str> = missing
            .into_iter()
            .filter(|(_, ok)| !ok)
            .map(|(n, _)| n)
            .collect();
        if !missing.is_empty() {
            self.err(
                Code::InvalidEffect,
                e.span.clone(),
                format!(
                    "effect `{}` needs {}",
                    effect_name(kind),
                    missing.join(" and ")
                ),
            )
            .set_help(format!(
                "add {}",
                missing
                    .iter()
                    .map(|m| match *m {
                        "path" => "path = \".claude/log.jsonl\"",
                        "record" =>
                            "record = { ts = \"{{ now }}\", tool = \"{{ event.tool_name }}\" }",
                        "content" => "content = \"...\"",
                        _ => "argv = [\"notify-send\", \"{{ event.tool_name }}\"]",
                    })
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
            return None;
        }
        let effect = Effect {
            kind,
            path: raw.path.as_ref().map(template),
            within: raw.within.as_ref().map(template),
            content: raw.content.as_ref().map(template),
            record: raw
                .record
                .as_ref()
                .map(|r| toml_to_json(&toml::Value::Table(r.value.clone()))),
            keep: raw.keep.clone(),
            argv: raw
                .argv
                .as_ref()
                .map(|a| a.value.iter().map(template).collect())
                .unwrap_or_default(),
            timeout_ms: raw.timeout_ms.unwrap_or(10_000),
            span: e.span.clone(),
        };
        let mut texts: Vec<String> = vec![];
        for t in effect
            .path
            .iter()
            .chain(effect.content.iter())
            .chain(effect.argv.iter())
        {
            texts.push(t.text.clone());
        }
        if let Some(r) = &effect.record {
            texts.push(r.to_string());
        }
        for t in texts {
            for name in facts_named_in(&t) {
                self.fact(&name, e.span.clone());
            }
        }
        Some(effect)
    }
}

/// The snake_case name of an effect kind.
pub fn effect_name(k: EffectKind) -> &'static str {
    match k {
        EffectKind::WriteFile => "write_file",
        EffectKind::WriteJson => "write_json",
        EffectKind::AppendJsonl => "append_jsonl",
        EffectKind::DeleteFile => "delete_file",
        EffectKind::Run => "run",
    }
}

/// Compiled-size budget (bytes) above which a regex gets HR105.
const SLOW_REGEX_BYTES: usize = 256 * 1024;

/// Markers looked for by a `project_markers` fact that lists none.
pub const DEFAULT_MARKERS: &[&str] = &[
    "package.json",
    "Cargo.toml",
    "pyproject.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "tsconfig.json",
    "requirements.txt",
    "setup.py",
];

fn template(s: &Sp<String>) -> Template {
    Template {
        text: s.value.clone(),
        span: s.span.clone(),
    }
}

/// Names `X` in `facts.X` / `facts["X"]` inside a template (a plain scan: this
/// runs for every template of every reachable rule).
pub fn facts_named_in(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut v = vec![];
    let mut from = 0;
    while let Some(i) = text[from..].find("facts").map(|i| i + from) {
        from = i + 5;
        let word_start = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if !word_start {
            continue;
        }
        let rest = &text[i + 5..];
        let name: String = if let Some(r) = rest.strip_prefix('.') {
            r.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        } else if let Some(r) = rest.strip_prefix('[') {
            let r = r.trim_start();
            match r.chars().next() {
                Some(q @ ('"' | '\'')) => r[1..].split(q).next().unwrap_or("").to_string(),
                _ => String::new(),
            }
        } else {
            String::new()
        };
        if !name.is_empty() && !name.starts_with(|c: char| c.is_ascii_digit()) {
            v.push(name);
        }
    }
    v.sort();
    v.dedup();
    v
}

/// Build one glob. Patterns without `/` match the file name anywhere (`.env`,
/// `*.pem`), as in `.gitignore`; others match the whole (normalised) path. A
/// pattern that starts with `~` or `$` names a path view (`~` is home itself,
/// `$PROJECT_DIR` the project itself), so it is anchored even without a `/`.
pub fn build_glob(pat: &str, case_insensitive: bool) -> Result<globset::Glob, globset::Error> {
    GlobBuilder::new(&glob_as_matched(pat))
        .literal_separator(true)
        .case_insensitive(case_insensitive)
        .backslash_escape(true)
        .build()
}

/// A glob as it is matched against a whole path: a pattern without a `/`
/// (other than `**`, `~…` and `$…`) names a file in any folder (`**/NAME`).
pub fn glob_as_matched(pat: &str) -> std::borrow::Cow<'_, str> {
    if !pat.contains('/') && pat != "**" && !pat.starts_with(['~', '$']) {
        format!("**/{pat}").into()
    } else {
        pat.into()
    }
}

/// One `except` table, checked: its paths as globs, its commands as words.
struct ExceptPart {
    paths: Vec<String>,
    commands: Vec<Vec<String>>,
}

/// A problem with an `except` entry: code, where, message, help.
type ExceptProblem = (Code, Range<usize>, String, &'static str);

/// Check every entry of one `except` table.
fn except_part(e: &Sp<RawExcept>) -> Result<ExceptPart, Vec<ExceptProblem>> {
    let mut problems = vec![];
    let mut paths = vec![];
    for p in &e.value.paths {
        match except_path(&p.value).and_then(|anchored| {
            build_glob(&anchored, false)
                .map(|_| anchored)
                .map_err(|err| format!("invalid glob: {err}"))
        }) {
            Ok(anchored) => paths.push(anchored),
            Err(why) => problems.push((
                Code::InvalidGlob,
                p.span.clone(),
                why,
                "write a path inside the project (`dist`, `build/**`), under home (`~/.cache/x/**`) or absolute (`/opt/cache/**`)",
            )),
        }
    }
    let mut commands = vec![];
    for c in &e.value.commands {
        match except_command(&c.value) {
            Ok(words) => commands.push(words),
            Err(why) => problems.push((
                Code::InvalidCondition,
                c.span.clone(),
                why,
                "write one plain command in full, as it runs: `rm -rf ./dist` (no variables, substitutions, redirections, `;`, `&&` or pipes)",
            )),
        }
    }
    if e.value.paths.is_empty() && e.value.commands.is_empty() {
        problems.push((
            Code::InvalidCondition,
            e.span.clone(),
            "`except` lists nothing".into(),
            "add paths = [\"dist\"] or commands = [\"rm -rf ./dist\"], or remove it",
        ));
    }
    if problems.is_empty() {
        Ok(ExceptPart { paths, commands })
    } else {
        Err(problems)
    }
}

/// An `except` path as the glob it is matched as: relative paths are inside the
/// project (`dist` is `$PROJECT_DIR/dist`), `$HOME/x` is `~/x`; a trailing `/`
/// is dropped.
fn except_path(p: &str) -> Result<String, String> {
    let p = p.trim();
    if p.is_empty() {
        return Err("an empty path".into());
    }
    if p.starts_with('!') {
        return Err(format!(
            "`{p}`: an exception lists what the rule does not see; it has no `!` exclusions"
        ));
    }
    let p = p.strip_suffix('/').filter(|s| !s.is_empty()).unwrap_or(p);
    if let Some(rest) = p.strip_prefix("$HOME") {
        return Ok(format!("~{rest}"));
    }
    if p.starts_with("$PROJECT_DIR") || p.starts_with('/') || p.starts_with('~') {
        return Ok(p.to_string());
    }
    if p.starts_with('$') {
        return Err(format!(
            "`{p}`: only $PROJECT_DIR and $HOME can start an exception's path"
        ));
    }
    Ok(format!("$PROJECT_DIR/{}", p.trim_start_matches("./")))
}

/// An `except` command as its words: one simple command, every word literal,
/// no redirection, not inside anything.
fn except_command(text: &str) -> Result<Vec<String>, String> {
    let cmds = crate::shell::command::parse(text)
        .map_err(|e| format!("`{text}` is not a command hookrules can read: {e}"))?;
    let [c] = cmds.as_slice() else {
        return Err(format!("`{text}` is {} commands, not one", cmds.len()));
    };
    if !c.via.is_empty() || !c.redirects.is_empty() || c.program_unknown || c.program.is_empty() {
        return Err(format!("`{text}` is not one plain command"));
    }
    let mut words = vec![c.program.clone()];
    for v in &c.values {
        match v.literal() {
            Some(w) if !v.has_unknown() => words.push(w),
            _ => {
                return Err(format!(
                    "`{text}` has a word that is only known when it runs"
                ))
            }
        }
    }
    Ok(words)
}

/// Parse a matcher the way the client does (reference §3.2).
pub fn parse_matcher(text: &str, style: ListStyle) -> Result<Matcher, regex::Error> {
    let t = text.trim();
    if t.is_empty() || t == "*" {
        return Ok(Matcher::Any);
    }
    let exact = match style {
        ListStyle::Wide => t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_|, -".contains(&b)),
        ListStyle::Narrow => t
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_|".contains(&b)),
    };
    if exact {
        let parts = t
            .split(['|', ','])
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        return Ok(Matcher::Exact(parts));
    }
    Regex::new(text).map(|re| Matcher::Regex(MatcherRegex::compiled(re)))
}

/// Convert a TOML value to JSON (datetimes become strings).
pub fn toml_to_json(v: &toml::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        toml::Value::String(s) => J::String(s.clone()),
        toml::Value::Integer(i) => J::from(*i),
        toml::Value::Float(f) => serde_json::Number::from_f64(*f)
            .map(J::Number)
            .unwrap_or(J::Null),
        toml::Value::Boolean(b) => J::Bool(*b),
        toml::Value::Datetime(d) => J::String(d.to_string()),
        toml::Value::Array(a) => J::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => J::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

/// Point a regex error at the offending character inside the TOML string when
/// the string maps one to one (literal strings, or basic strings without escapes).
fn regex_error_span(
    text: &str,
    span: &Range<usize>,
    pat: &str,
    e: &regex::Error,
) -> (Range<usize>, String) {
    let raw = text.get(span.clone()).unwrap_or("");
    let inner_start = if raw.starts_with("'''") || raw.starts_with("\"\"\"") {
        Some(span.start + 3)
    } else if raw.starts_with('\'') || (raw.starts_with('"') && !raw.contains('\\')) {
        Some(span.start + 1)
    } else {
        None
    };
    let detail = syntax_error_offsets(pat);
    let summary = match &detail {
        Some((_, _, m)) => format!("invalid regex: {m}"),
        None => format!(
            "invalid regex: {}",
            e.to_string().lines().last().unwrap_or("")
        ),
    };
    match (inner_start, detail) {
        (Some(start), Some((a, b, _))) if text.get(start..start + pat.len()) == Some(pat) => (
            start + a..start + b.max(a + 1).min(pat.len().max(a + 1)),
            summary,
        ),
        _ => (span.clone(), summary),
    }
}

/// The span of `needle` inside the TOML string at `span` holding `value`, when the
/// string maps one to one onto the source (literal strings, or basic strings with
/// no escapes); else the whole string.
pub fn span_within(text: &str, span: &Range<usize>, value: &str, needle: &str) -> Range<usize> {
    let raw = text.get(span.clone()).unwrap_or("");
    let start = if raw.starts_with("'''") || raw.starts_with("\"\"\"") {
        span.start + 3 + usize::from(value.starts_with('\n') && raw.get(3..4) == Some("\n"))
    } else if raw.starts_with('\'') || (raw.starts_with('"') && !raw.contains('\\')) {
        span.start + 1
    } else {
        return span.clone();
    };
    let body = text.get(start..).unwrap_or("");
    match (
        body.starts_with(value.trim_start_matches('\n')) || body.starts_with(value),
        body.find(needle),
    ) {
        (true, Some(i)) if i < value.len() + 1 => start + i..start + i + needle.len(),
        _ => span.clone(),
    }
}

fn syntax_error_offsets(pat: &str) -> Option<(usize, usize, String)> {
    let ast = regex_syntax::ast::parse::Parser::new().parse(pat);
    match ast {
        Err(e) => Some((
            e.span().start.offset,
            e.span().end.offset,
            e.kind().to_string(),
        )),
        Ok(ast) => match regex_syntax::hir::translate::Translator::new().translate(pat, &ast) {
            Err(e) => Some((
                e.span().start.offset,
                e.span().end.offset,
                e.kind().to_string(),
            )),
            Ok(_) => None,
        },
    }
}

/// Does a decision have an effect on this event? (`hookrules rule HR013` prints
/// this as a table; `tests/library/decisions.rs` checks it against what `run` answers.)
pub fn supports(spec: &events::EventSpec, decision: DecisionKind) -> bool {
    use events::Blocking;
    use DecisionKind as D;
    if events::OUTPUT_IGNORED.contains(&spec.name) {
        return false;
    }
    match decision {
        D::Stop => true,
        D::Allow | D::Ask => {
            matches!(
                spec.blocking,
                Blocking::Permission
                    | Blocking::ModelSwitch
                    | Blocking::PermissionRequest
                    | Blocking::Elicitation
            ) && !(decision == D::Ask && spec.blocking == Blocking::Elicitation)
        }
        D::Deny | D::Block => spec.blocking != Blocking::None,
    }
}

/// Why a `flags_*` entry is never among a command's flags (`None`: it can be):
/// a single dash and a character that is not a letter or digit (`-?`), or
/// more than one letter (`-rf`, `-hashes`), which the command's flags hold
/// split (see [`Code::FlagNeverSeen`]).
fn never_a_flag(f: &str) -> Option<&'static str> {
    let rest = f.strip_prefix('-').filter(|r| !r.starts_with('-'))?;
    let mut chars = rest.chars();
    match (chars.next(), chars.next()) {
        (None, _) => Some("a lone `-` is an operand"),
        (Some(c), _) if !c.is_ascii_alphanumeric() => {
            Some("only letters and digits after a single dash are flags")
        }
        (Some(_), Some(_)) => Some("a single-dash word is split into one flag per letter"),
        _ => None,
    }
}

/// `-h`: one letter or digit after a single dash.
fn is_letter_flag(f: &str) -> bool {
    f.len() == 2 && f.starts_with('-') && f.as_bytes()[1].is_ascii_alphanumeric()
}

/// Programs whose options are single-dash words (`-hashes`, `-chdir=DIR`,
/// `-auto-approve`), so a one-letter flag test also sees their letters:
/// impacket's scripts, Go's flag package (terraform, packer, vault, consul,
/// nomad, go), the JVM's tools, ffmpeg, openssl, qemu, X11's and
/// ImageMagick's. A name with `*` is a prefix.
const SINGLE_DASH_WORDS: &[&str] = &[
    "impacket-*",
    "secretsdump.py",
    "psexec.py",
    "smbexec.py",
    "wmiexec.py",
    "atexec.py",
    "dcomexec.py",
    "reg.py",
    "GetUserSPNs.py",
    "GetNPUsers.py",
    "getTGT.py",
    "ntlmrelayx.py",
    "smbclient.py",
    "mssqlclient.py",
    "terraform",
    "tofu",
    "terragrunt",
    "packer",
    "vault",
    "consul",
    "nomad",
    "go",
    "java",
    "javac",
    "jar",
    "keytool",
    "ffmpeg",
    "ffprobe",
    "ffplay",
    "openssl",
    "qemu-*",
    "xterm",
    "xrandr",
    "convert",
    "magick",
    "mogrify",
];

/// Does `program` (a rule's program entry, maybe a prefix with `*`) take
/// single-dash words?
fn single_dash_words(program: &str) -> bool {
    let name = program.trim_end_matches('*');
    SINGLE_DASH_WORDS.iter().any(|w| {
        crate::shell::command::program_is(name, w)
            || w.strip_suffix('*')
                .is_some_and(|pre| name.eq_ignore_ascii_case(pre))
    })
}

#[cfg(test)]
mod tests {
    use super::facts_named_in;

    #[test]
    fn facts_named_in_finds_dotted_and_indexed_names_only() {
        let t = r#"{{ facts.a.b }} {{ facts['b c'] }} {{ myfacts.x }} {% if facts["d"] %}{{ facts.a }}{% endif %} facts.9"#;
        assert_eq!(facts_named_in(t), vec!["a", "b c", "d"]);
        assert!(facts_named_in("no facts here").is_empty());
    }
}
