//! What a rule can read, checked before it runs.
//!
//! Everything a rule reads is known statically: the fields of each event and of
//! each tool's input and response (from the client's contract,
//! [`crate::contract::fields`]), the named groups of the rule's regexes (its
//! `captures`), the value each fact computes, the `rule` object, and the command
//! object inside `command.when`. So `check` can tell, for every field a condition
//! selects, every variable a template reads and every key a `rewrite` sets:
//!
//! - it **cannot exist** for any event, tool or fact the rule applies to: an error
//!   (HR019, or HR020 for captures) with did-you-mean; under fail-closed it would
//!   deny or render empty on every matching call;
//! - it exists **only sometimes**: on some of the rule's events, for some of the
//!   tools its matcher admits, or optional in the reference: a warning (HR107).
//!   Conditions on optional fields are normal (`exists` tests them), so those warn
//!   only when the field is missing for a whole event or tool; templates also warn
//!   for optional fields they do not guard with `{% if %}` or `default`.
//!
//! Matchers are checked against the client's names (HR021 for a near miss such
//! as `Bassh`, HR113 for a name the client does not list).

use std::collections::BTreeSet;
use std::ops::Range;

use crate::contract::events::{self, EventSpec};
use crate::contract::fields::{self, Field, Presence, Shape};
use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::validate::model::{
    Condition, EventScope, Fact, Matcher, Op, Policy, RegexMode, Rule, Segment, Selector, Template,
};

/// How templates are read: the caller compiles them (stage 3 owns templates).
pub struct TemplateVars<'a> {
    /// The variables a rule's template reads, dotted (`event.tool_input.command`).
    pub of: &'a dyn Fn(&Template) -> Vec<String>,
    /// The same for a template given as text (record leaves).
    pub of_text: &'a dyn Fn(&str) -> Vec<String>,
    /// Is this a function or global of the template environment (`regex_match`)?
    pub is_global: &'a dyn Fn(&str) -> bool,
}

/// Top-level names a template can use, with what each holds.
pub const TEMPLATE_ROOTS: &[&str] = &[
    "event",
    "captures",
    "facts",
    "rule",
    "today",
    "now",
    "project_dir",
    "cwd",
];

/// Check what a rule reads and what its matchers name.
pub fn rule(policy: &Policy, rule: &Rule, vars: &TemplateVars) -> Vec<Diagnostic> {
    let mut r = Reader {
        policy,
        rule: Some(rule),
        scope: Scope::of(rule),
        captured: BTreeSet::new(),
        uncaptured: BTreeSet::new(),
        out: vec![],
        in_record: false,
        present: BTreeSet::new(),
    };
    if let Some(w) = &rule.when {
        r.collect_captures(w, true);
    }
    if let Some(u) = &rule.unless {
        r.collect_captures(u, false);
    }
    if let Some(w) = &rule.when {
        r.condition(w, Within::default());
    }
    // An exception that applies to some events or tools only is normal.
    if let Some(u) = &rule.unless {
        r.condition(
            u,
            Within {
                any: true,
                ..Within::default()
            },
        );
    }
    if let Some(w) = &rule.when {
        required_fields(w, &mut r.present);
    }
    for t in rule.templates() {
        for var in (vars.of)(t) {
            r.template_var(&var, t, vars);
        }
    }
    r.in_record = true;
    for e in &rule.effects {
        if let Some(record) = &e.record {
            let mut texts = vec![];
            json_strings(record, &mut texts);
            for text in texts {
                for var in (vars.of_text)(&text) {
                    let t = Template {
                        text: text.clone(),
                        span: e.span.clone(),
                    };
                    r.template_var(&var, &t, vars);
                }
            }
        }
    }
    r.in_record = false;
    r.rewrites();
    r.matchers();
    let mut seen = BTreeSet::new();
    r.out.retain(|d| {
        seen.insert((
            d.code,
            d.span.clone().map(|s| (s.start, s.end)),
            d.message.clone(),
        ))
    });
    r.out
}

/// Event fields a condition requires to hold: tests other than `exists = false`
/// reached from the top through `all` only.
fn required_fields(c: &Condition, out: &mut BTreeSet<String>) {
    match c {
        Condition::All(v) => v.iter().for_each(|c| required_fields(c, out)),
        Condition::Ref(n) => required_fields(&n.condition, out),
        Condition::Test(t) => {
            let needs = !t.op.passes_on_nothing();
            if let (Selector::Field(p), true) = (&t.selector, needs) {
                out.insert(p.0.iter().map(seg_text).collect::<Vec<_>>().join("."));
            }
        }
        Condition::Any(_) | Condition::Not(_) => {}
    }
}

/// Check what a fact's templates read: facts are computed once per event, for
/// whichever rule asks first, so they see no `captures` and no `rule`.
pub fn fact(policy: &Policy, fact: &Fact, vars: &TemplateVars) -> Vec<Diagnostic> {
    let mut out = vec![];
    let templates = fact
        .path
        .iter()
        .chain(fact.within.iter())
        .chain(fact.argv.iter())
        .chain(fact.cwd.iter());
    for t in templates {
        for var in (vars.of)(t) {
            let root = var.split('.').next().unwrap_or("");
            if root == "captures" || root == "rule" {
                let at = crate::validate::span_within(&policy.source.text, &t.span, &t.text, root);
                out.push(
                    Diagnostic::new(
                        Code::UnknownField,
                        format!("fact `{}` cannot read `{root}`: facts are computed once per event, for any rule", fact.name),
                    )
                    .at(&policy.source, at)
                    .label("always empty here")
                    .help("pass the value through the event instead, or move this text into the rule's own templates"),
                );
            } else if !TEMPLATE_ROOTS.contains(&root) && !(vars.is_global)(root) {
                out.push(unknown_root(policy, t, root));
            }
        }
    }
    out
}

fn unknown_root(policy: &Policy, t: &Template, root: &str) -> Diagnostic {
    let at = crate::validate::span_within(&policy.source.text, &t.span, &t.text, root);
    let mut d = Diagnostic::new(
        Code::UnknownField,
        format!("templates have no variable `{root}`"),
    )
    .at(&policy.source, at)
    .label("not a template variable");
    d = d.help(match did_you_mean(root, TEMPLATE_ROOTS.iter().copied()) {
        Some(s) => format!(
            "did you mean `{s}`? templates see: {}",
            TEMPLATE_ROOTS.join(", ")
        ),
        None => format!("templates see: {}", TEMPLATE_ROOTS.join(", ")),
    });
    d
}

// ---------------------------------------------------------------------------
// Shapes

/// A value's shape (owned: facts and captures are described per policy).
#[derive(Debug, Clone)]
pub(super) enum Node {
    Scalar(&'static str),
    Any,
    List(Box<Node>),
    Object {
        fields: Vec<(String, Presence, Node)>,
        /// Every field is listed: any other key is a mistake.
        complete: bool,
    },
    /// An object whose keys are data (a command's `option_values`, keyed by
    /// the options it was given): any key may be there or not, and each value
    /// has this shape.
    Map(Box<Node>),
    ToolInput,
    ToolResponse,
}

fn node(shape: &Shape) -> Node {
    match shape {
        Shape::Text => Node::Scalar("text"),
        Shape::Number => Node::Scalar("a number"),
        Shape::Bool => Node::Scalar("true or false"),
        Shape::Any => Node::Any,
        Shape::List(item) => Node::List(Box::new(node(item))),
        Shape::Object(f) => object(f, true),
        Shape::OpenObject(f) => object(f, false),
        Shape::ToolInput => Node::ToolInput,
        Shape::ToolResponse => Node::ToolResponse,
    }
}

fn object(fields: &[Field], complete: bool) -> Node {
    Node::Object {
        fields: fields
            .iter()
            .map(|f| (f.name.to_string(), f.presence, node(&f.shape)))
            .collect(),
        complete,
    }
}

/// The stdin object of one event: its own fields, then the common ones (an
/// event's own entry wins: `agent_type` is always sent on SubagentStart).
fn event_node(spec: &EventSpec) -> Node {
    let mut fields: Vec<(String, Presence, Node)> = spec
        .fields
        .iter()
        .map(|f| (f.name.to_string(), f.presence, node(&f.shape)))
        .collect();
    for f in fields::COMMON {
        if !fields.iter().any(|(n, _, _)| n == f.name) {
            fields.push((f.name.to_string(), f.presence, node(&f.shape)));
        }
    }
    // Events are open objects (new optional fields appear often), but a near
    // miss of a listed field is still a typo.
    Node::Object {
        fields,
        complete: false,
    }
}

/// The fields of the command object `command = { when = ... }` sees
/// (`shell::command::command_object`; `tests/library/reads.rs` keeps the two in step).
pub const COMMAND_OBJECT_FIELDS: &[&str] = &[
    "program",
    "program_path",
    "args",
    "flags",
    "operands",
    "subcommand_words",
    "option_values",
    "redirects",
    "via",
    "assignments",
    "cwd",
    "program_unknown",
    "operands_from_input",
    "code",
    "forks_itself",
    "background_jobs",
    "output_to",
    "output_in",
    "input_lines_of",
    "find_narrowed",
    "stdout_to",
];

/// The command object `command = { when = ... }` sees (`shell::command::command_object`).
fn command_node() -> Node {
    let texts = || Node::List(Box::new(Node::Scalar("text")));
    Node::Object {
        fields: vec![
            ("program".into(), Presence::Always, Node::Scalar("text")),
            (
                "program_path".into(),
                Presence::Always,
                Node::Scalar("text"),
            ),
            ("args".into(), Presence::Always, texts()),
            ("flags".into(), Presence::Always, texts()),
            ("operands".into(), Presence::Always, texts()),
            ("subcommand_words".into(), Presence::Always, texts()),
            (
                "option_values".into(),
                Presence::Always,
                Node::Map(Box::new(texts())),
            ),
            (
                "redirects".into(),
                Presence::Always,
                Node::List(Box::new(Node::Object {
                    fields: vec![
                        ("op".into(), Presence::Always, Node::Scalar("text")),
                        ("target".into(), Presence::Always, Node::Scalar("text")),
                    ],
                    complete: true,
                })),
            ),
            ("via".into(), Presence::Always, texts()),
            (
                "assignments".into(),
                Presence::Always,
                Node::Object {
                    fields: vec![],
                    complete: false,
                },
            ),
            ("cwd".into(), Presence::Always, Node::Scalar("text")),
            (
                "program_unknown".into(),
                Presence::Always,
                Node::Scalar("true or false"),
            ),
            (
                "operands_from_input".into(),
                Presence::Always,
                Node::Scalar("true or false"),
            ),
            ("code".into(), Presence::Sometimes, Node::Scalar("text")),
            (
                "forks_itself".into(),
                Presence::Always,
                Node::Scalar("true or false"),
            ),
            (
                "background_jobs".into(),
                Presence::Always,
                Node::Scalar("a number"),
            ),
            ("output_to".into(), Presence::Always, texts()),
            (
                "output_in".into(),
                Presence::Sometimes,
                Node::Scalar("text"),
            ),
            (
                "input_lines_of".into(),
                Presence::Sometimes,
                Node::Scalar("text"),
            ),
            (
                "find_narrowed".into(),
                Presence::Always,
                Node::Scalar("true or false"),
            ),
            (
                "stdout_to".into(),
                Presence::Sometimes,
                Node::Scalar("text"),
            ),
        ],
        complete: true,
    }
}

/// The `rule` template variable.
fn rule_node() -> Node {
    Node::Object {
        fields: vec![
            ("id".into(), Presence::Always, Node::Scalar("text")),
            (
                "description".into(),
                Presence::Sometimes,
                Node::Scalar("text"),
            ),
            (
                "priority".into(),
                Presence::Always,
                Node::Scalar("a number"),
            ),
            (
                "tags".into(),
                Presence::Always,
                Node::List(Box::new(Node::Scalar("text"))),
            ),
            ("policy".into(), Presence::Always, Node::Scalar("text")),
        ],
        complete: true,
    }
}

/// What a fact computes (`eval::facts::compute`), given its settings.
pub fn fact_fields(f: &Fact) -> Vec<(String, bool)> {
    match f.kind.output(f) {
        Node::Object { fields, .. } => fields
            .into_iter()
            .map(|(n, p, _)| (n, p == Presence::Always))
            .collect(),
        _ => vec![],
    }
}

/// Which settings make a fact value field exist, for help lines.
fn fact_setting_for(field: &str) -> Option<&'static str> {
    match field {
        "has_headings" | "missing_headings" => Some("headings = [...]"),
        "matches" | "captures" => Some("regex = '...'"),
        "head" | "lines" => Some("lines = N"),
        "json" => Some("json = true"),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Lookups

/// What a lookup found.
#[derive(Debug, Clone)]
enum Found {
    Always,
    /// There sometimes. `partial`: missing for a whole event or tool (not just
    /// optional); `why` says where it is.
    Sometimes {
        partial: bool,
        why: String,
    },
    /// Cannot be there.
    Never(Missing),
    /// Not described (an open value).
    Unknown,
}

#[derive(Debug, Clone)]
struct Missing {
    /// What lacks the key (`the tool_input of Bash`).
    container: String,
    /// The key.
    key: String,
    /// The path up to the key, as the rule wrote it.
    path: String,
    /// A close name that can be there, as a full path.
    near: Option<String>,
    /// The keys that can be there.
    known: Vec<String>,
    /// The container's keys are all known: this is certainly a mistake.
    certain: bool,
    /// A note on why (`a file fact has `lines` only with `lines = N``).
    note: Option<String>,
}

/// The tools a rule's matcher admits on one tool event.
#[derive(Debug, Clone)]
struct Tools {
    names: Vec<String>,
    /// Tools beyond `names` may match (MCP tools, tools the client adds).
    open: bool,
    /// No matcher: every tool, so a field only some tools have is expected.
    every: bool,
}

impl Tools {
    fn of(m: &Matcher) -> Tools {
        let known = fields::TOOLS.iter().chain(fields::LEGACY_TOOLS.iter());
        match m {
            Matcher::Any => Tools {
                names: fields::TOOLS.iter().map(|s| s.to_string()).collect(),
                open: true,
                every: true,
            },
            Matcher::Exact(names) => {
                // A misspelled tool (reported as HR021) is read as the tool it is
                // closest to, so what the rule reads is still checked.
                let all: Vec<&str> = known.copied().collect();
                let mut v: Vec<String> = names
                    .iter()
                    .map(|n| {
                        let meant = if all.contains(&n.as_str()) {
                            n.as_str()
                        } else {
                            did_you_mean(n, all.iter().copied()).unwrap_or(n)
                        };
                        fields::current_tool_name(meant).to_string()
                    })
                    .collect();
                v.sort();
                v.dedup();
                Tools {
                    names: v,
                    open: false,
                    every: false,
                }
            }
            Matcher::Regex(re) => {
                let mut v: Vec<String> = known
                    .filter(|n| re.get().is_ok_and(|re| re.is_match(n)))
                    .map(|n| fields::current_tool_name(n).to_string())
                    .collect();
                v.sort();
                v.dedup();
                Tools {
                    names: v,
                    open: true,
                    every: false,
                }
            }
        }
    }
}

/// The events (and, on tool events, the tools) a rule applies to.
#[derive(Clone)]
struct Scope {
    /// (event, tools its matcher admits there).
    events: Vec<(&'static EventSpec, Option<Tools>)>,
    /// `events = ["*"]`: "only on some events" is expected, not a warning.
    all: bool,
    /// Some event is unknown (`+FutureEvent`): nothing can be said.
    unknown: bool,
}

impl Scope {
    /// The scope inside an `all = [...]` whose tests pin `hook_event_name` or
    /// `tool_name` (`{ field = "hook_event_name", equals = "PostToolUse" }`).
    fn narrowed(&self, siblings: &[Condition]) -> Scope {
        let mut s = self.clone();
        for c in siblings {
            let Condition::Test(t) = c else { continue };
            let Selector::Field(p) = &t.selector else {
                continue;
            };
            let values: Vec<String> = match &t.op {
                Op::Equals(serde_json::Value::String(v)) => vec![v.clone()],
                Op::OneOf(v) => v
                    .iter()
                    .filter_map(|x| x.as_str().map(|s| s.to_string()))
                    .collect(),
                _ => continue,
            };
            match p.0.as_slice() {
                [Segment::Key(k)] if k == "hook_event_name" => {
                    s.events.retain(|(e, _)| values.iter().any(|v| v == e.name));
                    s.all = false;
                }
                [Segment::Key(k)] if k == "tool_name" => {
                    for (_, tools) in s.events.iter_mut() {
                        if let Some(t) = tools {
                            let mut names: Vec<String> = values
                                .iter()
                                .map(|v| fields::current_tool_name(v).to_string())
                                .collect();
                            names.sort();
                            names.dedup();
                            *t = Tools {
                                names,
                                open: false,
                                every: false,
                            };
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }

    fn of(rule: &Rule) -> Scope {
        let (names, all): (Vec<&str>, bool) = match &rule.events {
            EventScope::All => (events::EVENTS.iter().map(|e| e.name).collect(), true),
            EventScope::Named(v) => (v.iter().map(|s| s.as_str()).collect(), false),
        };
        let mut unknown = false;
        let mut evs = vec![];
        for n in names {
            match events::spec(n) {
                Some(spec) => {
                    let tools = spec.tool_event.then(|| Tools::of(rule.matcher_for(n).0));
                    evs.push((spec, tools));
                }
                None => unknown = true,
            }
        }
        Scope {
            events: evs,
            all,
            unknown,
        }
    }
}

/// A path's steps, as text.
fn seg_text(s: &Segment) -> String {
    match s {
        Segment::Key(k) => k.clone(),
        Segment::Index(i) => i.to_string(),
        Segment::FromEnd(k) => format!("-{k}"),
    }
}

fn join(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// Look a path up in a shape. `prefix` is the path so far, `container` names the
/// value being looked into.
fn lookup(
    n: &Node,
    segs: &[Segment],
    tools: Option<&Tools>,
    prefix: &str,
    container: &str,
) -> Found {
    let Some(first) = segs.first() else {
        return Found::Always;
    };
    let rest = &segs[1..];
    match n {
        Node::Any => Found::Unknown,
        Node::ToolInput | Node::ToolResponse => {
            let input = matches!(n, Node::ToolInput);
            let Some(tools) = tools else {
                return Found::Unknown;
            };
            let what = if input { "tool_input" } else { "tool_response" };
            let mut alts = vec![];
            for t in &tools.names {
                let shape = if input {
                    fields::tool_input(t).map(|(f, complete)| object(f, complete))
                } else {
                    fields::tool_response(t).map(|f| object(f, false))
                };
                let found = match shape {
                    Some(s) => lookup(&s, segs, None, prefix, &format!("the {what} of {t}")),
                    None => Found::Unknown,
                };
                alts.push((t.clone(), found));
            }
            if tools.open {
                // Tools beyond the known ones may have it: only a near miss of a
                // known field is a mistake.
                alts.push(("other tools".into(), Found::Unknown));
            }
            combine(alts, tools.every, "tools")
        }
        Node::List(item) => match first {
            Segment::Index(_) | Segment::FromEnd(_) => lookup(
                item,
                rest,
                tools,
                &join(prefix, &seg_text(first)),
                container,
            ),
            Segment::Key(k) => Found::Never(Missing {
                container: format!("`{prefix}` (a list)"),
                key: k.clone(),
                path: join(prefix, k),
                near: None,
                known: vec![],
                certain: true,
                note: Some(format!("`{prefix}` is a list: index it, as `{prefix}.0`")),
            }),
        },
        Node::Scalar(kind) => Found::Never(Missing {
            container: format!("`{prefix}`"),
            key: seg_text(first),
            path: join(prefix, &seg_text(first)),
            near: None,
            known: vec![],
            certain: true,
            note: Some(format!("`{prefix}` is {kind}: it has no fields")),
        }),
        Node::Map(value) => {
            let path = join(prefix, &seg_text(first));
            match lookup(value, rest, tools, &path, &format!("`{path}`")) {
                Found::Always => Found::Sometimes {
                    partial: false,
                    why: format!("`{path}` is there only when {container} has that key"),
                },
                found => found,
            }
        }
        Node::Object { fields, complete } => {
            let key = seg_text(first);
            match fields.iter().find(|(n, _, _)| *n == key) {
                Some((_, presence, sub)) => {
                    let path = join(prefix, &key);
                    let inner = lookup(sub, rest, tools, &path, &format!("`{path}`"));
                    match (presence, inner) {
                        (Presence::Sometimes, Found::Always) => Found::Sometimes {
                            partial: false,
                            why: format!("`{path}` is optional in {container}"),
                        },
                        (_, found) => found,
                    }
                }
                None => {
                    let names: Vec<&str> = fields.iter().map(|(n, _, _)| n.as_str()).collect();
                    Found::Never(Missing {
                        container: container.to_string(),
                        key: key.clone(),
                        path: join(prefix, &key),
                        near: did_you_mean(&key, names.iter().copied()).map(|s| join(prefix, s)),
                        known: names.iter().map(|s| s.to_string()).collect(),
                        certain: *complete,
                        note: None,
                    })
                }
            }
        }
    }
}

/// Combine what a lookup found over alternatives (events, or tools). `all`: the
/// alternatives are every event (a rule for `*`), where a field that only some
/// have is expected.
fn combine(alts: Vec<(String, Found)>, all: bool, what: &str) -> Found {
    if alts.is_empty() {
        return Found::Unknown;
    }
    let present: Vec<&String> = alts
        .iter()
        .filter(|(_, f)| !matches!(f, Found::Never(_)))
        .map(|(n, _)| n)
        .collect();
    let absent: Vec<&String> = alts
        .iter()
        .filter(|(_, f)| matches!(f, Found::Never(_)))
        .map(|(n, _)| n)
        .collect();
    if present.is_empty() {
        // Missing everywhere: the most telling miss (one with a near name).
        let mut misses: Vec<Missing> = alts
            .into_iter()
            .filter_map(|(_, f)| match f {
                Found::Never(m) => Some(m),
                _ => None,
            })
            .collect();
        let certain = misses.iter().all(|m| m.certain);
        let best = misses.iter().position(|m| m.near.is_some()).unwrap_or(0);
        let mut m = misses.swap_remove(best);
        m.certain = certain;
        return Found::Never(m);
    }
    if alts.iter().all(|(_, f)| matches!(f, Found::Unknown)) {
        return Found::Unknown;
    }
    if !absent.is_empty() && !all {
        let real: Vec<&String> = present
            .iter()
            .copied()
            .filter(|n| *n != "other tools")
            .collect();
        let shown = |v: &[&String]| v.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ");
        return Found::Sometimes {
            partial: true,
            why: if real.is_empty() {
                format!(
                    "none of the {what} the reference describes has it (not {})",
                    shown(&absent)
                )
            } else {
                format!(
                    "only {} ha{} it, not {}",
                    shown(&real),
                    if real.len() == 1 { "s" } else { "ve" },
                    shown(&absent)
                )
            },
        };
    }
    if all {
        // A rule for every event (or tool) reads what some of them have.
        return Found::Always;
    }
    // Present everywhere it can be: sometimes if it is sometimes anywhere.
    for (_, f) in &alts {
        if let Found::Sometimes { .. } = f {
            return f.clone();
        }
    }
    if alts.iter().any(|(_, f)| matches!(f, Found::Always)) {
        Found::Always
    } else {
        Found::Unknown
    }
}

// ---------------------------------------------------------------------------
// The reader

/// Where a condition sits.
#[derive(Debug, Clone, Copy, Default)]
struct Within {
    /// Inside `command = { when = ... }`: fields are the command object's.
    command: bool,
    /// Inside an `any`: a field missing for some events or tools is expected
    /// (another branch covers them).
    any: bool,
}

struct Reader<'a> {
    policy: &'a Policy,
    rule: Option<&'a Rule>,
    scope: Scope,
    /// Capture names the rule's `when` can set.
    captured: BTreeSet<String>,
    /// Group names that never become captures (in `unless`, `not`, `matches_all`, ...).
    uncaptured: BTreeSet<String>,
    out: Vec<Diagnostic>,
    /// Reading a record's leaves: an absent value becomes `null` there, which is fine.
    in_record: bool,
    /// Event fields the rule's `when` requires, so present whenever it fires.
    present: BTreeSet<String>,
}

impl Reader<'_> {
    /// A field of the event, for every event (and tool) of the rule.
    fn event_field(&self, segs: &[Segment]) -> Found {
        if self.scope.unknown {
            return Found::Unknown;
        }
        let alts = self
            .scope
            .events
            .iter()
            .map(|(spec, tools)| {
                (
                    spec.name.to_string(),
                    lookup(
                        &event_node(spec),
                        segs,
                        tools.as_ref(),
                        "",
                        &format!("the {} event", spec.name),
                    ),
                )
            })
            .collect();
        combine(alts, self.scope.all, "events")
    }

    fn condition(&mut self, c: &Condition, at: Within) {
        match c {
            Condition::All(v) => {
                let narrowed = self.scope.narrowed(v);
                let outer = std::mem::replace(&mut self.scope, narrowed);
                v.iter().for_each(|c| self.condition(c, at));
                self.scope = outer;
            }
            Condition::Any(v) => v
                .iter()
                .for_each(|c| self.condition(c, Within { any: true, ..at })),
            Condition::Not(c) => self.condition(c, at),
            // Named conditions are checked where they are used: the scope is the rule's.
            Condition::Ref(n) => self.condition(&n.condition, at),
            Condition::Test(t) => {
                let segs = match &t.selector {
                    Selector::Field(p) | Selector::Commands(p) => Some(p.0.clone()),
                    Selector::Paths(ps) => Some(ps.field.0.clone()),
                    Selector::Fact { name, path } => {
                        if let Some(f) = self.policy.facts.get(name) {
                            let found =
                                lookup(&f.kind.output(f), &path.0, None, name, &fact_words(f));
                            self.report(found, &t.selector_text, &t.span, at);
                        }
                        None
                    }
                    Selector::JsonPath(_) => None,
                };
                if let Some(segs) = segs {
                    let found = if at.command {
                        lookup(&command_node(), &segs, None, "", "the command object")
                    } else {
                        self.event_field(&segs)
                    };
                    self.report(found, &t.selector_text, &t.span, at);
                }
                if let Op::Command(ct) = &t.op {
                    if let Some(w) = &ct.when {
                        self.condition(
                            w,
                            Within {
                                command: true,
                                ..at
                            },
                        );
                    }
                }
            }
        }
    }

    /// A location class test captures `target` and `target_class` (and
    /// `target_spelled`, empty unless a link moved the target; `target_guard`,
    /// what a guarded place is, empty for others).
    fn class_captures(&mut self, captured: bool) {
        for name in ["target", "target_class", "target_spelled", "target_guard"] {
            if captured {
                self.captured.insert(name.to_string());
            } else {
                self.uncaptured.insert(name.to_string());
            }
        }
    }

    /// Named groups of `matches` in `when` become captures; others never do.
    fn collect_captures(&mut self, c: &Condition, captured: bool) {
        match c {
            Condition::All(v) | Condition::Any(v) => {
                v.iter().for_each(|c| self.collect_captures(c, captured))
            }
            Condition::Not(c) => self.collect_captures(c, false),
            Condition::Ref(n) => self.collect_captures(&n.condition, captured),
            Condition::Test(t) => match &t.op {
                Op::Regex { mode, regexes } => {
                    for s in &regexes.sources {
                        for name in group_names(s) {
                            if captured && *mode == RegexMode::Any {
                                self.captured.insert(name);
                            } else {
                                self.uncaptured.insert(name);
                            }
                        }
                    }
                }
                Op::Command(ct) => {
                    if let Some(r) = &ct.arg_matches {
                        for s in &r.sources {
                            self.uncaptured.extend(group_names(s));
                        }
                    }
                    if ct.target_class.is_some() {
                        self.class_captures(captured);
                    }
                    if let Some(w) = &ct.when {
                        self.collect_captures(w, captured);
                    }
                }
                Op::Class(_) => self.class_captures(captured),
                _ => {}
            },
        }
    }

    fn template_var(&mut self, var: &str, t: &Template, vars: &TemplateVars) {
        let parts: Vec<&str> = var.split('.').collect();
        let root = parts[0];
        let segs: Vec<Segment> = parts[1..]
            .iter()
            .map(|p| {
                crate::validate::model::FieldPath::parse(p)
                    .ok()
                    .and_then(|f| f.0.into_iter().next())
                    .unwrap_or(Segment::Key(p.to_string()))
            })
            .collect();
        let found = match root {
            "event" => self.event_field(&segs),
            "captures" => match segs.first() {
                None => Found::Always,
                Some(s) => {
                    let name = seg_text(s);
                    if self.captured.contains(&name) {
                        Found::Always
                    } else {
                        self.missing_capture(&name, t);
                        return;
                    }
                }
            },
            "facts" => match segs.first() {
                None => Found::Always,
                Some(s) => {
                    let name = seg_text(s);
                    match self.policy.facts.get(&name) {
                        // An unknown fact is reported by the validator (HR010).
                        None => return,
                        Some(f) => lookup(
                            &f.kind.output(f),
                            &segs[1..],
                            None,
                            &format!("facts.{name}"),
                            &fact_words(f),
                        ),
                    }
                }
            },
            "rule" => lookup(&rule_node(), &segs, None, "rule", "`rule`"),
            "today" | "now" | "project_dir" | "cwd" => {
                lookup(&Node::Scalar("text"), &segs, None, root, root)
            }
            _ if (vars.is_global)(root) => Found::Always,
            _ => {
                self.out.push(unknown_root(self.policy, t, root));
                return;
            }
        };
        let shown = if root == "event" {
            parts[1..].join(".")
        } else {
            var.to_string()
        };
        // Optional fact values and captures are the policy's own business; an
        // event field the rule's `when` requires is there whenever it fires.
        let required = root == "event"
            && self
                .present
                .iter()
                .any(|p| shown == *p || shown.starts_with(&format!("{p}.")));
        let guarded = is_guarded(&t.text, var) || (root != "event" && root != "rule") || required;
        self.report_template(found, var, &shown, t, guarded);
    }

    fn missing_capture(&mut self, name: &str, t: &Template) {
        let at = crate::validate::span_within(
            &self.policy.source.text,
            &t.span,
            &t.text,
            &format!("captures.{name}"),
        );
        let known: Vec<&str> = self.captured.iter().map(|s| s.as_str()).collect();
        let mut d = Diagnostic::new(
            Code::UnknownCapture,
            format!("`captures.{name}`: no regex of this rule's `when` names a group `{name}`"),
        )
        .at(&self.policy.source, at)
        .label("always empty");
        let help = if self.uncaptured.contains(name) {
            format!("only `matches` in `when` capture; `(?P<{name}>...)` here is in an `unless`, a `not`, `matches_all`, `matches_none` or `arg_matches`")
        } else {
            match did_you_mean(name, known.iter().copied()) {
                Some(s) => format!(
                    "did you mean `captures.{s}`? this rule captures: {}",
                    known.join(", ")
                ),
                None if known.is_empty() => {
                    format!("name a group in a `matches` regex of `when`: '(?P<{name}>...)'")
                }
                None => format!(
                    "this rule captures: {}; name a group with '(?P<{name}>...)'",
                    known.join(", ")
                ),
            }
        };
        d = d.help(help);
        self.out.push(d);
    }

    fn report_template(
        &mut self,
        found: Found,
        var: &str,
        shown: &str,
        t: &Template,
        guarded: bool,
    ) {
        let at = crate::validate::span_within(&self.policy.source.text, &t.span, &t.text, var);
        match found {
            Found::Sometimes { why, .. } if !guarded && !self.in_record => self.out.push(
                Diagnostic::new(Code::TemplateVariable, format!("`{var}` may be absent: {why}"))
                    .at(&self.policy.source, at)
                    .label("renders empty when absent")
                    .help(format!("guard it: {{% if {var} %}}...{{% endif %}}, or {{{{ {var} | default(\"...\") }}}}")),
            ),
            Found::Never(m) => {
                let d = self.missing(&m, var, shown, at);
                self.out.push(d);
            }
            _ => {}
        }
    }

    /// Report a lookup made by a condition (`field = ...`, `fact = ...`).
    fn report(&mut self, found: Found, selector: &str, cond: &Range<usize>, within: Within) {
        let at = quoted_within(&self.policy.source.text, cond, selector);
        match found {
            Found::Sometimes { partial: true, why } if !within.any => self.out.push(
                Diagnostic::new(Code::TemplateVariable, format!("`{selector}` may be absent: {why}"))
                    .at(&self.policy.source, at)
                    .label("the condition does not hold where it is absent")
                    .help("narrow `events` or the `matcher` to where it exists, or test it with `exists = true` first"),
            ),
            Found::Never(m) => {
                let d = self.missing(&m, selector, selector, at);
                self.out.push(d);
            }
            _ => {}
        }
    }

    /// A field that cannot be there: an error when certain or a near miss,
    /// else a warning (a value the reference may not list completely).
    fn missing(&self, m: &Missing, written: &str, shown: &str, at: Range<usize>) -> Diagnostic {
        let near = m.near.as_ref().map(|n| {
            // Keep how the rule wrote the path's start (`event.` in templates).
            let lead = written.strip_suffix(shown).unwrap_or("");
            let rest = shown.strip_prefix(&m.path).unwrap_or("");
            format!("{lead}{n}{rest}")
        });
        let error = m.certain || near.is_some();
        let code = if error {
            Code::UnknownField
        } else {
            Code::TemplateVariable
        };
        let message = if error {
            format!(
                "`{written}` cannot exist: {} has no `{}`",
                m.container, m.key
            )
        } else {
            format!(
                "`{written}` may never be present: {} has no `{}` in the reference",
                m.container, m.key
            )
        };
        let mut help = match (&near, &m.note) {
            (Some(n), _) => format!("did you mean `{n}`?"),
            (None, Some(note)) => note.clone(),
            (None, None) if m.known.is_empty() => String::new(),
            (None, None) => format!("{} has: {}", m.container, m.known.join(", ")),
        };
        if near.is_some() && !m.known.is_empty() {
            help.push_str(&format!(" ({} has: {})", m.container, m.known.join(", ")));
        }
        if let Some(setting) = fact_setting_for(&m.key) {
            if m.container.starts_with("fact ") {
                help = format!("add `{setting}` to the fact to compute `{}`", m.key);
            }
        }
        let mut d = Diagnostic::new(code, message)
            .at(&self.policy.source, at)
            .label(if error {
                "cannot exist here"
            } else {
                "not in the reference"
            });
        if !help.is_empty() {
            d = d.help(help);
        }
        d
    }

    /// `rewrite = { KEY = ... }`: KEY is a field of the tool's input.
    fn rewrites(&mut self) {
        let Some(rule) = self.rule else { return };
        for (key, t) in &rule.rewrite {
            let segs: Vec<Segment> = key
                .split('.')
                .map(|k| Segment::Key(k.to_string()))
                .collect();
            let mut path = vec![Segment::Key("tool_input".into())];
            path.extend(segs);
            let found = self.event_field(&path);
            if let Found::Never(m) = found {
                if m.certain || m.near.is_some() {
                    let at = key_span_before(&self.policy.source.text, &t.span, key);
                    let near = m
                        .near
                        .as_ref()
                        .map(|n| n.trim_start_matches("tool_input.").to_string());
                    let mut d = Diagnostic::new(
                        Code::UnknownField,
                        format!(
                            "`rewrite` sets `{key}`, which {} does not have",
                            m.container
                        ),
                    )
                    .at(&self.policy.source, at)
                    .label("not a field of the tool's input");
                    if let Some(n) = near {
                        d = d.help(format!("did you mean `{n}`?"));
                    }
                    self.out.push(d);
                }
            }
        }
    }

    /// Matchers name tools (or sources, triggers, ...) the client sends.
    fn matchers(&mut self) {
        let Some(rule) = self.rule else { return };
        let text = self.policy.source.full_text().clone();
        for (spec, _) in &self.scope.events {
            let (m, written) = rule.matcher_for(spec.name);
            let Some(written) = written else { continue };
            let at = quoted_after(&text, rule.span.start, written).unwrap_or(rule.id_span.clone());
            let values: Option<Vec<&str>> = if spec.tool_event {
                Some(
                    fields::TOOLS
                        .iter()
                        .chain(fields::LEGACY_TOOLS.iter())
                        .copied()
                        .collect(),
                )
            } else {
                fields::matcher_values(spec.name).map(|v| v.to_vec())
            };
            let Some(values) = values else { continue };
            let what = if spec.tool_event {
                "tool".to_string()
            } else {
                format!("{} {}", spec.name, spec.matcher_field.unwrap_or("value"))
            };
            match m {
                Matcher::Exact(names) => {
                    for n in names {
                        if values.contains(&n.as_str()) {
                            continue;
                        }
                        let d = if spec.tool_event && n.starts_with("mcp__") {
                            if n.trim_start_matches("mcp__").contains("__") {
                                continue;
                            }
                            Diagnostic::new(Code::UnknownMatcherValue, format!("`{n}` matches no tool: MCP tools are named mcp__<server>__<tool>"))
                                .help(format!("to match every tool of the server, use a regex: matcher = \"{n}__.*\""))
                        } else if let Some(near) = did_you_mean(n, values.iter().copied()) {
                            Diagnostic::new(
                                Code::UnknownMatcherValue,
                                format!("`{n}` is not a {what} the client sends"),
                            )
                            .help(format!(
                                "did you mean `{near}`? matchers are exact and case-sensitive"
                            ))
                        } else if spec.tool_event {
                            Diagnostic::new(Code::UnknownTool, format!("`{n}` is not one of the client's tools"))
                                .help("a tool of a newer client or a plugin is fine (allow = [\"HR113\"] on the rule); otherwise check the spelling: matchers are exact and case-sensitive")
                        } else {
                            Diagnostic::new(
                                Code::UnknownMatcherValue,
                                format!("`{n}` is never a {what}"),
                            )
                            .help(format!("the client sends: {}", values.join(", ")))
                        };
                        // `at` is inside the quotes; span_within wants the quoted string.
                        let quoted = at.start.saturating_sub(1)..at.end + 1;
                        let at = crate::validate::span_within(&text, &quoted, written, n);
                        self.out
                            .push(d.at(&self.policy.source, at).label("never matches"));
                    }
                }
                Matcher::Regex(re) => {
                    let hits = values
                        .iter()
                        .any(|v| re.get().is_ok_and(|re| re.is_match(v)));
                    let mcp = written.contains("mcp");
                    if !(hits || spec.tool_event && mcp) {
                        let mut d = Diagnostic::new(
                            Code::UnknownTool,
                            format!("matcher `{written}` matches no {what} the client names"),
                        )
                        .at(&self.policy.source, at.clone())
                        .label("an unanchored regex over the name");
                        d = d.help(if spec.tool_event && written.contains('(') {
                            "a matcher selects the tool by its name only; test arguments in `when` (e.g. { commands = \"tool_input.command\", command = { program = [\"git\"] } })".to_string()
                        } else {
                            format!("the client sends: {}", values.join(", "))
                        });
                        self.out.push(d);
                    }
                }
                Matcher::Any => {}
            }
        }
    }
}

/// Every string inside a JSON value (a record's templates).
fn json_strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_strings(x, out)),
        serde_json::Value::Object(m) => m.values().for_each(|x| json_strings(x, out)),
        _ => {}
    }
}

fn fact_words(f: &Fact) -> String {
    format!("fact `{}` (kind {})", f.name, f.kind.key())
}

/// The names of the named groups of a regex (`(?P<name>` and `(?<name>`).
pub fn group_names(pattern: &str) -> Vec<String> {
    let b = pattern.as_bytes();
    let mut out = vec![];
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        let rest = &pattern[i..];
        let open = if rest.starts_with("(?P<") {
            4
        } else if rest.starts_with("(?<") && !rest.starts_with("(?<=") && !rest.starts_with("(?<!")
        {
            3
        } else {
            i += 1;
            continue;
        };
        if let Some(end) = rest[open..].find('>') {
            out.push(rest[open..open + end].to_string());
        }
        i += open;
    }
    out
}

/// Is `var` tested before use: named in an `{% if %}`, or used in an
/// expression with a fallback (`or`, `if ... else`, `default`)?
fn is_guarded(text: &str, var: &str) -> bool {
    let compact: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut rest = compact.as_str();
    while let Some(i) = rest.find('{') {
        let after = &rest[i..];
        let (close, is_tag) = if after.starts_with("{%") {
            ("%}", true)
        } else if after.starts_with("{{") {
            ("}}", false)
        } else {
            rest = &after[1..];
            continue;
        };
        let end = after.find(close).map(|e| e + 2).unwrap_or(after.len());
        let body = &after[2..end.saturating_sub(2).max(2)];
        if body.contains(var) {
            let b = body.trim_start_matches('-').trim_start();
            if is_tag && (b.starts_with("if ") || b.starts_with("elif ")) {
                return true;
            }
            if [" or ", " if ", "default", "| d(", "|d("]
                .iter()
                .any(|g| body.contains(g))
            {
                return true;
            }
        }
        rest = &after[end..];
    }
    false
}

/// The span of `"value"` (or `'value'`) inside `within`, without the quotes.
fn quoted_within(text: &str, within: &Range<usize>, value: &str) -> Range<usize> {
    let Some(hay) = text.get(within.clone()) else {
        return within.clone();
    };
    for q in ['"', '\''] {
        let needle = format!("{q}{value}{q}");
        if let Some(i) = hay.find(&needle) {
            let s = within.start + i + 1;
            return s..s + value.len();
        }
    }
    within.clone()
}

/// The first `"value"` after `from`, within the next 4 KiB.
fn quoted_after(text: &str, from: usize, value: &str) -> Option<Range<usize>> {
    let end = (from + 4096).min(text.len());
    let hay = text.get(from..end).or_else(|| text.get(from..))?;
    for q in ['"', '\''] {
        let needle = format!("{q}{value}{q}");
        if let Some(i) = hay.find(&needle) {
            let s = from + i + 1;
            return Some(s..s + value.len());
        }
    }
    None
}

/// The span of a table key written just before a value (`comand = "..."`).
fn key_span_before(text: &str, value: &Range<usize>, key: &str) -> Range<usize> {
    let start = value.start.saturating_sub(200);
    match text.get(start..value.start).and_then(|h| h.rfind(key)) {
        Some(i) => start + i..start + i + key.len(),
        None => value.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::{group_names, is_guarded};

    #[test]
    fn group_names_skip_lookaround_and_escapes() {
        assert_eq!(group_names(r"(?P<a>x)(?<b>y)(?<=z)\(?P<c>"), vec!["a", "b"]);
    }

    #[test]
    fn guards() {
        assert!(is_guarded(
            "{% if event.x %}{{ event.x }}{% endif %}",
            "event.x"
        ));
        assert!(is_guarded("{{ event.x | default('n') }}", "event.x"));
        assert!(is_guarded("{{ event.y or event.x }}", "event.x"));
        assert!(is_guarded("{{ 'a' if event.y else event.x }}", "event.x"));
        assert!(!is_guarded("{{ event.x }} {{ event.y or 1 }}", "event.x"));
        assert!(!is_guarded("{{ event.x }}", "event.x"));
    }
}
