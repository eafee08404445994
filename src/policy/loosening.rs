//! What a policy file loosens, or runs: the one classifier behind repository
//! trust ([`super::trust`]), `check`'s list of loosenings and the notice a
//! session gets when a project policy is ignored.
//!
//! A file **loosens** protection when loading it can let through, or stop
//! asking about, something the policies before it (the built-in pack, the
//! user's, earlier project files) would have stopped or asked about:
//!
//! - `[policy] builtin = false` (the whole built-in pack off);
//! - an `[[override]]` that disables a rule, weakens its decision (deny to ask,
//!   anything to allow), puts it in audit mode, reorders a `first-match`
//!   policy, or enables a rule that itself loosens or runs commands;
//! - a rule that reuses the id of an earlier rule (it replaces it);
//! - a rule that answers `allow` (which skips the client's own permission
//!   prompt) or rewrites the tool's input (the call that runs is not the one
//!   judged).
//!
//! - a `[log]` key that records or exports less than the policies before it
//!   (the audit trail), or loosens allow-once: [`LogTable::loosens`] decides
//!   which (`enabled = false`, `export = "off"`, another `dir`, fewer events,
//!   less kept, more redacted, ...).
//!
//! It **runs commands** with a `command` fact (and every rule or named
//! condition that uses it) and with a `run` effect.
//!
//! Everything else only adds: stricter rules, context, messages, logs. That
//! needs no trust. New kinds of exception (an `unless` on an override) are
//! loosenings too: add them to [`classify`], the one place that decides.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Arc;

use super::log::{LogKey, LogTable};
use super::syntax::{
    CombineMode, DecisionKind, EffectKind, FactKind, RawCondition, RawOverride, RawPolicy, RawRule,
    RuleMode, Sp,
};
use crate::source::{Layer, PolicySource};

/// One loosening (or command) in a policy file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loosening {
    /// The file, as shown to users.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// Where in the file.
    pub span: Range<usize>,
    /// What it does.
    pub what: What,
    /// The rule ids it affects (for rules of its own file: that rule).
    pub rules: Vec<String>,
    /// The item of the file it is.
    pub item: Item,
    /// The user has trusted this exact file content, or it is their own.
    pub trusted: bool,
    /// It is in force because the file is the user's own local file (see
    /// `discover::Trusted`), not by a trust record.
    pub own: bool,
}

/// Which item of a file a loosening is (what is left out when untrusted).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Item {
    /// `[policy] builtin = false` (left out by discovery).
    Header,
    /// The n-th `[[rule]]`.
    Rule(usize),
    /// The n-th `[[override]]`.
    Override(usize),
    /// A key of `[log]`.
    Log(LogKey),
}

/// What a loosening does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum What {
    /// `[policy] builtin = false`.
    BuiltinOff,
    /// An override turns rules off.
    Disables,
    /// An override weakens a decision.
    Downgrades {
        /// The decision before.
        from: Option<DecisionKind>,
        /// The decision after.
        to: DecisionKind,
    },
    /// An override puts rules in audit mode (they decide nothing).
    Audits,
    /// An override reorders rules of a first-match policy.
    Reorders,
    /// An override adds an exception to earlier rules (`except`): cases
    /// they no longer see.
    Excepts,
    /// An override enables a rule that loosens or runs commands.
    Enables,
    /// A rule replaces an earlier rule of the same id.
    Replaces {
        /// The layer of the replaced rule.
        layer: Layer,
    },
    /// A rule answers `allow`.
    Allows,
    /// A rule rewrites the tool's input.
    Rewrites,
    /// A rule uses a `command` fact.
    RunsFact {
        /// The fact.
        fact: String,
    },
    /// A rule has a `run` effect.
    RunsEffect,
    /// A `[log]` key records or exports less (or loosens allow-once).
    LogLess {
        /// The key.
        key: LogKey,
    },
}

impl What {
    /// Is it a command, rather than a loosening?
    pub fn runs_command(&self) -> bool {
        matches!(self, What::RunsFact { .. } | What::RunsEffect)
    }

    /// What it does, in words.
    pub fn describe(&self) -> String {
        match self {
            What::BuiltinOff => "turns the whole built-in pack off (`builtin = false`)".into(),
            What::Disables => "disables".into(),
            What::Downgrades { from, to } => format!(
                "changes the decision {} to {}",
                from.map(|d| format!("from {}", d.as_str()))
                    .unwrap_or_else(|| "from none".into()),
                to.as_str()
            ),
            What::Audits => "puts in audit mode (deciding nothing)".into(),
            What::Reorders => "reorders a first-match policy".into(),
            What::Excepts => "adds an exception (`except`) to".into(),
            What::Enables => "enables (a rule that loosens or runs commands)".into(),
            What::Replaces { layer } => {
                format!("replaces the {} rule of the same id", layer.name())
            }
            What::Allows => "answers allow (skipping the client's permission prompt)".into(),
            What::Rewrites => "rewrites the tool's input".into(),
            What::RunsFact { fact } => format!("runs a command (fact `{fact}`)"),
            What::RunsEffect => "runs a command (a `run` effect)".into(),
            What::LogLess { key } => key.loosening().into(),
        }
    }

    /// The sentence `check` and the session notice show.
    pub fn sentence(&self, rules: &[String]) -> String {
        let ids = if rules.is_empty() {
            String::new()
        } else if rules.len() <= 6 {
            rules.join(", ")
        } else {
            format!("{}, … ({} rules)", rules[..6].join(", "), rules.len())
        };
        match self {
            What::BuiltinOff => self.describe(),
            What::LogLess { key } => format!("`[log] {}` {}", key.name(), key.loosening()),
            What::Disables
            | What::Downgrades { .. }
            | What::Audits
            | What::Reorders
            | What::Excepts
            | What::Enables => format!("override {} {ids}", self.describe()),
            _ => format!("rule {ids} {}", self.describe()),
        }
    }
}

/// How a rule's decision ranks: allow < none < ask < deny, block, stop.
fn rank(d: Option<DecisionKind>) -> u8 {
    match d {
        Some(DecisionKind::Allow) => 0,
        None => 1,
        Some(DecisionKind::Ask) => 2,
        Some(DecisionKind::Deny | DecisionKind::Block | DecisionKind::Stop) => 3,
    }
}

/// Which rules an `[[override]]` selects: by id (or id glob), by tag, or both.
#[derive(Debug)]
pub struct Selector {
    id: Option<Result<globset::GlobMatcher, String>>,
    tag: Option<String>,
}

impl Selector {
    /// The selector of an override.
    pub fn of(ov: &RawOverride) -> Selector {
        Selector {
            id: ov.rule.as_ref().map(|r| {
                globset::Glob::new(&r.value)
                    .map(|g| g.compile_matcher())
                    .map_err(|_| r.value.clone())
            }),
            tag: ov.tag.as_ref().map(|t| t.value.clone()),
        }
    }

    /// Does it select this rule?
    pub fn selects(&self, r: &RawRule) -> bool {
        let by_id = |id: &Result<globset::GlobMatcher, String>| match id {
            Ok(m) => m.is_match(&r.id.value),
            Err(exact) => &r.id.value == exact,
        };
        let by_tag = |tag: &String| r.tags.iter().any(|t| t == tag);
        match (&self.id, &self.tag) {
            (Some(id), None) => by_id(id),
            (None, Some(tag)) => by_tag(tag),
            (Some(id), Some(tag)) => by_id(id) && by_tag(tag),
            (None, None) => false,
        }
    }
}

/// The names of a policy's facts and named conditions that run commands:
/// `command` facts, and conditions that use them (directly or through other
/// conditions).
fn commands_of(raw: &RawPolicy) -> BTreeSet<String> {
    let mut tainted: BTreeSet<String> = raw
        .facts
        .iter()
        .filter(|(_, f)| f.value.kind.value == FactKind::Command)
        .map(|(n, _)| format!("fact:{n}"))
        .collect();
    if tainted.is_empty() {
        return tainted;
    }
    loop {
        let before = tainted.len();
        for (name, c) in &raw.conditions {
            let mut used = BTreeSet::new();
            condition_uses(&c.value, &mut used);
            if used.iter().any(|u| tainted.contains(u)) {
                tainted.insert(format!("condition:{name}"));
            }
        }
        if tainted.len() == before {
            return tainted;
        }
    }
}

/// The facts (`fact:NAME`) and named conditions (`condition:NAME`) a condition uses.
fn condition_uses(c: &RawCondition, out: &mut BTreeSet<String>) {
    if let Some(f) = &c.fact {
        let name = f.value.split('.').next().unwrap_or("");
        out.insert(format!("fact:{name}"));
    }
    if let Some(r) = &c.reference {
        out.insert(format!("condition:{}", r.value));
    }
    for list in [&c.all, &c.any].into_iter().flatten() {
        for sub in list {
            condition_uses(&sub.value, out);
        }
    }
    if let Some(n) = &c.not {
        condition_uses(&n.value, out);
    }
    if let Some(w) = c.command.as_ref().and_then(|t| t.value.when.as_ref()) {
        condition_uses(&w.value, out);
    }
}

/// Does a template text name this fact (`facts.NAME`, `facts["NAME"]`)?
fn template_names_fact(text: &str, fact: &str) -> bool {
    text.match_indices(fact).any(|(i, _)| {
        let before = text[..i].trim_end_matches(['"', '\'', '[', ' ', '.']);
        let after = text[i + fact.len()..].chars().next();
        before.ends_with("facts")
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-')
    })
}

/// The command facts a rule uses (by condition, named condition or template).
fn facts_run_by(rule: &RawRule, tainted: &BTreeSet<String>) -> Vec<String> {
    let mut used = BTreeSet::new();
    for c in [&rule.when, &rule.unless].into_iter().flatten() {
        condition_uses(&c.value, &mut used);
    }
    let mut texts: Vec<&str> = vec![];
    texts.extend(rule.reason.as_ref().map(|s| s.value.as_str()));
    texts.extend(rule.context.as_ref().map(|s| s.value.as_str()));
    texts.extend(rule.message.as_ref().map(|s| s.value.as_str()));
    if let Some(rw) = &rule.rewrite {
        texts.extend(rw.value.values().map(|v| v.value.as_str()));
    }
    for inc in &rule.include {
        texts.push(&inc.value.path.value);
        texts.extend(inc.value.title.as_ref().map(|t| t.value.as_str()));
    }
    let mut runs: Vec<String> = vec![];
    for t in tainted {
        let Some(name) = t.strip_prefix("fact:") else {
            continue;
        };
        let via_condition = used
            .iter()
            .any(|u| tainted.contains(u) && u.starts_with("condition:"));
        if used.contains(t) || via_condition || texts.iter().any(|x| template_names_fact(x, name)) {
            runs.push(name.to_string());
        }
    }
    runs
}

/// What a rule of its own does that needs trust: answers allow, rewrites, runs
/// commands.
fn rule_needs(rule: &RawRule, tainted: &BTreeSet<String>) -> Vec<What> {
    let mut out = vec![];
    if rule.decision.as_ref().map(|d| d.value) == Some(DecisionKind::Allow) {
        out.push(What::Allows);
    }
    if rule.rewrite.is_some() {
        out.push(What::Rewrites);
    }
    for fact in facts_run_by(rule, tainted) {
        out.push(What::RunsFact { fact });
    }
    if rule
        .effects
        .iter()
        .any(|e| e.value.kind.value == EffectKind::Run)
    {
        out.push(What::RunsEffect);
    }
    out
}

/// The loosenings and commands of one file (`raw`, from `source`), against the
/// policies loaded before it (`earlier`, in load order, overrides of earlier
/// files already applied). `trusted` is left false; the caller sets it.
pub fn classify(
    source: &Arc<PolicySource>,
    raw: &RawPolicy,
    earlier: &[(Arc<PolicySource>, RawPolicy)],
) -> Vec<Loosening> {
    let file = source.display_name();
    let at = |span: &Range<usize>, what: What, rules: Vec<String>, item: Item| Loosening {
        file: file.clone(),
        line: source.line_col(span.start).0,
        span: span.clone(),
        what,
        rules,
        item,
        trusted: false,
        own: false,
    };
    let mut out = vec![];
    if let Some(b) = &raw.policy.builtin {
        if !b.value {
            out.push(at(&b.span, What::BuiltinOff, vec![], Item::Header));
        }
    }
    // The live rules before this file: id -> layer.
    let mut live: HashMap<&str, Layer> = HashMap::new();
    for (src, p) in earlier {
        for r in &p.rules {
            live.insert(&r.value.id.value, src.layer);
        }
    }
    let tainted = commands_of(raw);
    for (i, r) in raw.rules.iter().enumerate() {
        let id = r.value.id.value.clone();
        if let Some(&layer) = live.get(id.as_str()) {
            out.push(at(
                &r.value.id.span,
                What::Replaces { layer },
                vec![id.clone()],
                Item::Rule(i),
            ));
        }
        for what in rule_needs(&r.value, &tainted) {
            out.push(at(&r.span, what, vec![id.clone()], Item::Rule(i)));
        }
    }
    for (i, o) in raw.overrides.iter().enumerate() {
        let ov = &o.value;
        let sel = Selector::of(ov);
        let mut found: Vec<(What, String)> = vec![];
        for (_, p) in earlier {
            for r in &p.rules {
                if sel.selects(&r.value) {
                    for w in override_loosens(ov, &r.value, p) {
                        found.push((w, r.value.id.value.clone()));
                    }
                }
            }
        }
        // One entry per kind of change, listing every rule it affects.
        let mut kinds: Vec<What> = vec![];
        for (w, _) in &found {
            if !kinds.contains(w) {
                kinds.push(w.clone());
            }
        }
        for w in kinds {
            let rules: Vec<String> = found
                .iter()
                .filter(|(x, _)| *x == w)
                .map(|(_, id)| id.clone())
                .collect();
            out.push(at(&o.span, w, rules, Item::Override(i)));
        }
    }
    if let Some(log) = &raw.log {
        // The log as the files before this one leave it (the managed layer's
        // tables apply last, over everything: not part of it).
        let mut before = LogTable::default();
        for (_, p) in earlier.iter().filter(|(s, _)| s.layer != Layer::Managed) {
            if let Some(l) = &p.log {
                LogTable::from(&l.value).merge(&mut before);
            }
        }
        for key in LogTable::from(&log.value).loosens(&before) {
            let span = log.value.span_of(key).unwrap_or(log.span.clone());
            out.push(at(&span, What::LogLess { key }, vec![], Item::Log(key)));
        }
    }
    out
}

/// How an `[[override]]` loosens one rule it selects, `rule` of `policy`
/// (empty: it only adds: a stricter decision, `enforce`, a tag, a priority
/// outside first-match). Trust ([`classify`]) and the managed layer's pins
/// (`super::layering`) both ask this, so one definition decides both.
pub fn override_loosens(ov: &RawOverride, rule: &RawRule, policy: &RawPolicy) -> Vec<What> {
    let mut out = vec![];
    let enabled = rule.enabled != Some(false);
    if ov.enabled == Some(false) && enabled {
        out.push(What::Disables);
    }
    if ov.enabled == Some(true) && !enabled && !rule_needs(rule, &commands_of(policy)).is_empty() {
        out.push(What::Enables);
    }
    if let Some(d) = &ov.decision {
        let from = rule.decision.as_ref().map(|d| d.value);
        if d.value == DecisionKind::Allow || rank(Some(d.value)) < rank(from) {
            out.push(What::Downgrades { from, to: d.value });
        }
    }
    if ov.mode.as_ref().map(|m| m.value) == Some(RuleMode::Audit)
        && rule.mode.as_ref().map(|m| m.value) != Some(RuleMode::Audit)
    {
        out.push(What::Audits);
    }
    let first_match =
        policy.policy.combine.as_ref().map(|c| c.value) == Some(CombineMode::FirstMatch);
    if ov.priority.is_some() && first_match {
        out.push(What::Reorders);
    }
    // An exception takes cases away from a rule someone else wrote.
    if ov.except.is_some() {
        out.push(What::Excepts);
    }
    out
}

/// Leave out of `raw` what `loosenings` name (an untrusted file): the rules and
/// overrides they are, and the command facts. What is left only adds.
pub fn restrict(raw: &mut RawPolicy, loosenings: &[Loosening]) {
    let rules: BTreeSet<usize> = loosenings
        .iter()
        .filter_map(|l| match l.item {
            Item::Rule(i) => Some(i),
            _ => None,
        })
        .collect();
    let overrides: BTreeSet<usize> = loosenings
        .iter()
        .filter_map(|l| match l.item {
            Item::Override(i) => Some(i),
            _ => None,
        })
        .collect();
    let keep = |set: &BTreeSet<usize>, i: usize| !set.contains(&i);
    let mut n = 0;
    raw.rules.retain(|_| {
        n += 1;
        keep(&rules, n - 1)
    });
    let mut n = 0;
    raw.overrides.retain(|_| {
        n += 1;
        keep(&overrides, n - 1)
    });
    raw.facts
        .retain(|_, f: &mut Sp<super::syntax::RawFact>| f.value.kind.value != FactKind::Command);
    if raw.policy.builtin.as_ref().is_some_and(|b| !b.value) {
        raw.policy.builtin = None;
    }
    if let Some(log) = &mut raw.log {
        for l in loosenings {
            if let Item::Log(key) = l.item {
                log.value.clear(key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    fn parsed(name: &'static str, layer: Layer, text: &str) -> (Arc<PolicySource>, RawPolicy) {
        let src = PolicySource::in_layer(Origin::Builtin(name), text.to_string(), layer);
        let raw = crate::policy::parse::parse(&src).unwrap();
        (src, raw)
    }

    const EARLIER: &str = r#"
[[rule]]
id = "git-discard-work"
tags = ["git"]
events = ["PreToolUse"]
decision = "deny"

[[rule]]
id = "npm-publish"
events = ["PreToolUse"]
decision = "ask"

[[rule]]
id = "auto-ok"
events = ["PreToolUse"]
decision = "allow"
enabled = false
"#;

    fn whats(text: &str) -> Vec<(What, Vec<String>, usize)> {
        let earlier = vec![parsed("b", Layer::Builtin, EARLIER)];
        let (src, raw) = parsed("p", Layer::Project, text);
        classify(&src, &raw, &earlier)
            .into_iter()
            .map(|l| (l.what, l.rules, l.line))
            .collect()
    }

    #[test]
    fn loosenings_are_told_from_what_only_adds() {
        let none: Vec<(What, Vec<String>, usize)> = vec![];
        // Stricter: a new deny (also one with its own exception: it narrows
        // only what this file adds), a raised decision, an added tag, context.
        assert_eq!(
            whats(
                r#"
[[rule]]
id = "mine"
events = ["PreToolUse"]
decision = "deny"

[[rule]]
id = "mine-but-not-build"
events = ["PreToolUse"]
matcher = "Bash"
when = { paths = "tool_input.command", glob = ["**"] }
except = { paths = ["build/**"] }
decision = "deny"

[[rule]]
id = "hint"
events = ["SessionStart"]
context = "be careful"

[[override]]
rule = "npm-publish"
decision = "deny"
add_tags = ["x"]

[[override]]
tag = "git"
enabled = true
"#
            ),
            none
        );
        assert_eq!(
            whats("[[override]]\ntag = \"git\"\nenabled = false\n"),
            vec![(What::Disables, vec!["git-discard-work".to_string()], 1)]
        );
        assert_eq!(
            whats("[[override]]\nrule = \"*\"\ndecision = \"ask\"\n"),
            vec![(
                What::Downgrades {
                    from: Some(DecisionKind::Deny),
                    to: DecisionKind::Ask
                },
                vec!["git-discard-work".to_string()],
                1
            )]
        );
        assert_eq!(
            whats("[[override]]\nrule = \"auto-ok\"\nenabled = true\n")[0].0,
            What::Enables
        );
        assert_eq!(
            whats("[[override]]\nrule = \"npm-*\"\nmode = \"audit\"\n")[0].0,
            What::Audits
        );
        assert_eq!(
            whats("[[rule]]\nid = \"npm-publish\"\nevents = [\"Stop\"]\n")[0].0,
            What::Replaces {
                layer: Layer::Builtin
            }
        );
        assert_eq!(whats("[policy]\nbuiltin = false\n")[0].0, What::BuiltinOff);
        assert_eq!(
            whats("[[override]]\nrule = \"git-discard-work\"\nexcept = { commands = [\"git reset --hard\"] }\n"),
            vec![(What::Excepts, vec!["git-discard-work".to_string()], 1)]
        );
        assert_eq!(
            whats("[[rule]]\nid = \"yes\"\nevents = [\"PreToolUse\"]\ndecision = \"allow\"\n")[0].0,
            What::Allows
        );
    }

    #[test]
    fn a_log_table_that_records_or_exports_less_is_a_loosening_key_by_key() {
        let user = parsed(
            "u",
            Layer::User,
            "[log]\nexport = \"otlp\"\nevents = \"all\"\nallow_once = false\nredact = [\"tool_input.env.*\"]\n",
        );
        let classify_log = |text: &str| {
            let (src, raw) = parsed("p", Layer::Project, text);
            let found = classify(&src, &raw, std::slice::from_ref(&user));
            let keys: Vec<(LogKey, usize)> = found
                .iter()
                .map(|l| match (&l.what, l.item) {
                    (What::LogLess { key }, Item::Log(k)) if *key == k => (k, l.line),
                    other => panic!("{other:?}"),
                })
                .collect();
            (keys, raw, found)
        };
        // What only adds needs no trust.
        let (adds, _, _) = classify_log(
            "[log]\nenabled = true\nexport = \"otlp\"\nevents = \"all\"\nmax_bytes = 50000000\nkeep = 9\nmax_value_chars = 5000\nallow_minutes = 5\nredact = [\"tool_input.env.*\"]\n",
        );
        assert_eq!(adds, vec![]);
        // Every key that records less, exports less or loosens allow-once, on its line.
        let (less, mut raw, found) = classify_log(
            "[[rule]]\nid = \"mine\"\nevents = [\"Stop\"]\n\n[log]\nenabled = false\ndir = \"logs\"\nevents = \"decisions\"\nmax_bytes = 4096\nkeep = 1\nredact = [\"tool_input.command\"]\nredact_values = [\".*\"]\nmax_value_chars = 16\nallow_once = true\nallow_minutes = 600\nexport = \"off\"\n",
        );
        use LogKey::*;
        assert_eq!(
            less,
            vec![
                (Enabled, 6),
                (Dir, 7),
                (Events, 8),
                (MaxBytes, 9),
                (Keep, 10),
                (Redact, 11),
                (RedactValues, 12),
                (MaxValueChars, 13),
                (AllowOnce, 14),
                (AllowMinutes, 15),
                (Export, 16),
            ]
        );
        assert!(found[0]
            .what
            .sentence(&[])
            .contains("`[log] enabled` turns the decision log"));
        // Untrusted: the file keeps its rules and loses those keys.
        restrict(&mut raw, &found);
        assert_eq!(raw.rules.len(), 1);
        let left = LogTable::from(&raw.log.as_ref().unwrap().value);
        assert_eq!(left, LogTable::default());
    }

    #[test]
    fn commands_are_found_through_conditions_and_templates() {
        let text = r#"
[facts.tests]
kind = "command"
argv = ["make", "test"]

[facts.notes]
kind = "file"
path = "NOTES.md"

[conditions]
red = { fact = "tests.ok", equals = false }
also_red = { all = [{ ref = "red" }] }

[[rule]]
id = "by-condition"
events = ["Stop"]
when = { ref = "also_red" }
decision = "block"

[[rule]]
id = "by-template"
events = ["Stop"]
context = "{{ facts.tests.stdout }}"

[[rule]]
id = "by-file-only"
events = ["Stop"]
when = { fact = "notes.exists", equals = true }
context = "notes exist; the tests fact is not used here"

[[rule]]
id = "effect"
events = ["Stop"]
[[rule.effects]]
kind = "run"
argv = ["true"]
"#;
        let got = whats(text);
        let ids: Vec<(&str, &What)> = got.iter().map(|(w, r, _)| (r[0].as_str(), w)).collect();
        assert_eq!(
            ids,
            vec![
                (
                    "by-condition",
                    &What::RunsFact {
                        fact: "tests".into()
                    }
                ),
                (
                    "by-template",
                    &What::RunsFact {
                        fact: "tests".into()
                    }
                ),
                ("effect", &What::RunsEffect),
            ]
        );
        let (src, mut raw) = parsed("p", Layer::Project, text);
        let ls = classify(&src, &raw, &[]);
        restrict(&mut raw, &ls);
        let left: Vec<&str> = raw
            .rules
            .iter()
            .map(|r| r.value.id.value.as_str())
            .collect();
        assert_eq!(left, vec!["by-file-only"]);
        assert!(!raw.facts.contains_key("tests") && raw.facts.contains_key("notes"));
    }
}
