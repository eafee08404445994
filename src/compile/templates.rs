//! All templates of the reachable rules, in one environment. `check` and the
//! set builder compile them at once (to report errors); `run` registers the
//! texts of its bucket and compiles each template the first time it renders, so
//! an event whose rules do not fire compiles none (and builds no environment).
//!
//! Templates see only what the policy exposes: `event`, `captures`, `facts`,
//! `rule`, `today`, `now`, `project_dir`. There is no loader, no file access and
//! no environment access from inside a template.

use std::cell::{Ref, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap};

use minijinja::{Environment, UndefinedBehavior};

use std::sync::Arc;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::PolicySource;
use crate::validate::model::{Fact, Policy, Rule, Template};

/// A template's name in the environment, and its policy file.
type Named = (String, Arc<PolicySource>);

/// Compiled templates, keyed by (policy index, byte offset in the policy file).
#[derive(Debug)]
pub struct Templates {
    env: RefCell<Option<Environment<'static>>>,
    /// The environment for texts shown to people and the model ([`Shown`]).
    text_env: RefCell<Option<Environment<'static>>>,
    /// Template name and the policy it is in, by (policy index, byte offset):
    /// compiled, or registered and rendered once.
    names: RefCell<HashMap<(usize, usize), Named>>,
    /// Registered, by (policy index, byte offset), with the policy of each
    /// index: a registered template is named and compiled when it is first
    /// rendered, so registering a bucket's rules costs a set insert each
    /// (naming them up front cost `run` ~2.4k instructions a rule, 0.43M for
    /// the 10,000-rule bench set's Bash bucket).
    registered: BTreeSet<(usize, usize)>,
    policies: BTreeMap<usize, Arc<Policy>>,
}

impl Default for Templates {
    fn default() -> Self {
        Self::new()
    }
}

impl Templates {
    /// An empty set of templates.
    pub fn new() -> Self {
        Templates {
            env: RefCell::new(None),
            text_env: RefCell::new(None),
            names: RefCell::new(HashMap::new()),
            registered: BTreeSet::new(),
            policies: BTreeMap::new(),
        }
    }

    /// The environment (made on first use), with `t` added under `name` if
    /// it was only registered.
    fn env_with(&self, name: Option<(&str, &Template)>) -> Ref<'_, Environment<'static>> {
        {
            let mut env = self.env.borrow_mut();
            let env = env.get_or_insert_with(environment);
            if let Some((name, t)) = name.filter(|(n, _)| env.get_template(n).is_err()) {
                // Registered templates were compiled when the set was built.
                let _ = env.add_template_owned(name.to_string(), t.text.clone());
            }
        }
        Ref::map(self.env.borrow(), |e| e.as_ref().expect("made above"))
    }

    fn env(&self) -> Ref<'_, Environment<'static>> {
        self.env_with(None)
    }

    /// Register a template to compile when first rendered (for `run`; errors
    /// were reported when the set was built).
    pub fn register(&mut self, pidx: usize, policy: &Arc<Policy>, t: &Template) {
        if self.registered.insert((pidx, t.span.start)) {
            self.policies.entry(pidx).or_insert_with(|| policy.clone());
        }
    }

    /// Register every template of a rule (see [`Templates::register`]).
    pub fn register_rule(&mut self, pidx: usize, policy: &Arc<Policy>, rule: &Rule) {
        for t in rule.templates() {
            self.register(pidx, policy, t);
        }
    }

    /// Register every template of a fact.
    pub fn register_fact(&mut self, pidx: usize, policy: &Arc<Policy>, f: &Fact) {
        for t in f.path.iter().chain(&f.within).chain(&f.argv).chain(&f.cwd) {
            self.register(pidx, policy, t);
        }
    }
}

/// The name a template is compiled under: its policy and byte offset.
fn template_name(policy: &Policy, t: &Template) -> String {
    format!("{}@{}", policy.name, t.span.start)
}

/// An environment with hookrules' filters.
fn environment() -> Environment<'static> {
    {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Lenient);
        // File contents and records are written exactly as the template says.
        env.set_keep_trailing_newline(true);
        env.set_recursion_limit(64);
        env.add_filter("basename", |s: String| {
            s.rsplit('/')
                .find(|p| !p.is_empty())
                .unwrap_or("")
                .to_string()
        });
        env.add_filter("dirname", |s: String| {
            match s.trim_end_matches('/').rsplit_once('/') {
                Some(("", _)) => "/".to_string(),
                Some((d, _)) => d.to_string(),
                None => ".".to_string(),
            }
        });
        env.add_filter("head", |s: String, n: usize| {
            s.lines().take(n).collect::<Vec<_>>().join("\n")
        });
        env.add_filter("truncate_chars", |s: String, n: usize| {
            if s.chars().count() <= n {
                s
            } else {
                let mut t: String = s.chars().take(n).collect();
                t.push('…');
                t
            }
        });
        env.add_function("regex_match", regex_match);
        env.add_filter("regex_replace", regex_replace);
        env.add_function("regex_replace", regex_replace);
        env.add_filter("slug", |s: String| {
            let mut out = String::new();
            for c in s.to_lowercase().chars() {
                if c.is_ascii_alphanumeric() {
                    out.push(c);
                } else if !out.ends_with('-') && !out.is_empty() {
                    out.push('-');
                }
            }
            out.trim_end_matches('-').to_string()
        });
        env.add_filter("regex_match", regex_match);
        env
    }
}

impl Templates {
    /// Compile one template; the error points at it in the policy.
    pub fn add(&mut self, pidx: usize, policy: &Policy, t: &Template) -> Result<(), Diagnostic> {
        let key = (pidx, t.span.start);
        if self.names.get_mut().contains_key(&key) {
            return Ok(());
        }
        let name = template_name(policy, t);
        self.env();
        let added = self
            .env
            .borrow_mut()
            .as_mut()
            .expect("made by env()")
            .add_template_owned(name.clone(), t.text.clone());
        match added {
            Ok(()) => {
                self.names
                    .get_mut()
                    .insert(key, (name, policy.source.clone()));
                Ok(())
            }
            Err(e) => Err(Diagnostic::new(
                Code::TemplateSyntax,
                format!(
                    "template does not compile: {}",
                    e.detail().unwrap_or(&e.to_string())
                ),
            )
            .at(&policy.source, t.span.clone())
            .help("minijinja syntax: {{ event.tool_input.command }}, {% if ... %}...{% endif %}")),
        }
    }

    /// Compile every template of a rule; returns the errors.
    pub fn add_rule(&mut self, pidx: usize, policy: &Policy, rule: &Rule) -> Vec<Diagnostic> {
        let all = rule.templates();
        let mut errors: Vec<Diagnostic> = all
            .into_iter()
            .filter_map(|t| self.add(pidx, policy, t).err())
            .collect();
        for e in &rule.effects {
            if let Some(record) = &e.record {
                if let Err(d) = self.add_record(pidx, policy, record, e.span.start) {
                    errors.push(d);
                }
            }
        }
        errors
    }

    /// Compile the templates of a fact.
    pub fn add_fact(&mut self, pidx: usize, policy: &Policy, f: &Fact) -> Vec<Diagnostic> {
        let all = f
            .path
            .iter()
            .chain(f.within.iter())
            .chain(f.argv.iter())
            .chain(f.cwd.iter());
        all.filter_map(|t| self.add(pidx, policy, t).err())
            .collect()
    }

    /// A record's string leaves are templates; they are compiled under synthetic keys.
    fn add_record(
        &mut self,
        pidx: usize,
        policy: &Policy,
        v: &serde_json::Value,
        at: usize,
    ) -> Result<(), Diagnostic> {
        let mut err = None;
        visit_strings(v, &mut |s| {
            if err.is_some() || !s.contains("{{") && !s.contains("{%") {
                return;
            }
            if let Err(e) = minijinja::Environment::new().template_from_str(s) {
                err = Some(Diagnostic::new(
                    Code::TemplateSyntax,
                    format!("record template does not compile: {e}"),
                ));
            }
        });
        let _ = (pidx, at);
        match err {
            Some(d) => Err(d.at(&policy.source, at..at + 1)),
            None => Ok(()),
        }
    }

    /// Variables a compiled template reads from its context (dotted, e.g.
    /// `event.tool_input.command`), for the HR107 lint.
    pub fn variables(&self, pidx: usize, t: &Template) -> Vec<String> {
        let Some((name, _)) = self.names.borrow().get(&(pidx, t.span.start)).cloned() else {
            return vec![];
        };
        let env = self.env();
        let Ok(tpl) = env.get_template(&name) else {
            return vec![];
        };
        let mut v: Vec<String> = tpl.undeclared_variables(true).into_iter().collect();
        v.sort();
        v
    }

    /// Is `name` a function or global the environment defines (`regex_match`, `range`)?
    pub fn is_global(&self, name: &str) -> bool {
        self.env().globals().any(|(n, _)| n == name)
    }

    /// The name a template was compiled (or registered) under, and its
    /// policy file.
    fn compiled_name(&self, pidx: usize, t: &Template) -> Result<Named, TemplateError> {
        let key = (pidx, t.span.start);
        if let Some(named) = self.names.borrow().get(&key) {
            return Ok(named.clone());
        }
        match self.policies.get(&pidx) {
            Some(policy) if self.registered.contains(&key) => {
                let named = (template_name(policy, t), policy.source.clone());
                self.names.borrow_mut().insert(key, named.clone());
                Ok(named)
            }
            _ => Err(TemplateError {
                at: Place::Unknown,
                kind: TemplateErrorKind::NotCompiled { byte: t.span.start },
            }),
        }
    }

    /// Render a compiled template. An error names the policy file and the line
    /// of the template it happened on.
    pub fn render(
        &self,
        pidx: usize,
        t: &Template,
        ctx: &minijinja::Value,
    ) -> Result<String, TemplateError> {
        let (name, source) = self.compiled_name(pidx, t)?;
        let env = self.env_with(Some((&name, t)));
        let tpl = env
            .get_template(&name)
            .map_err(|e| TemplateError::located(&source, t, e))?;
        tpl.render(ctx)
            .map_err(|e| TemplateError::located(&source, t, e))
    }

    /// Render a text shown to people or the model (a reason, a message, context):
    /// control characters (ESC, CR, BEL, …), bidi overrides and line
    /// separators in what `{{ … }}` inserts are written as `\u{1b}`-style
    /// escapes, so event data cannot rewrite the terminal or hide text. Newlines
    /// are kept here (reasons show test output); the caller gives event data and
    /// captures with their line breaks already written `\n` (see [`one_line`]).
    /// The template's own text is kept as written.
    pub fn render_text(
        &self,
        pidx: usize,
        t: &Template,
        ctx: &minijinja::Value,
    ) -> Result<String, TemplateError> {
        let (name, source) = self.compiled_name(pidx, t)?;
        let mut slot = self.text_env.borrow_mut();
        let env = slot.get_or_insert_with(|| {
            let mut env = environment();
            env.set_formatter(shown_formatter);
            env
        });
        let key = format!("text:{name}");
        if env.get_template(&key).is_err() {
            env.add_template_owned(key.clone(), t.text.clone())
                .map_err(|e| TemplateError::located(&source, t, e))?;
        }
        let tpl = env
            .get_template(&key)
            .map_err(|e| TemplateError::located(&source, t, e))?;
        tpl.render(ctx)
            .map_err(|e| TemplateError::located(&source, t, e))
    }

    /// The variables a template given as text reads (record leaves), for `check`.
    pub fn variables_in(&self, text: &str) -> Vec<String> {
        match self.env().template_from_str(text) {
            Ok(t) => {
                let mut v: Vec<String> = t.undeclared_variables(true).into_iter().collect();
                v.sort();
                v
            }
            Err(_) => vec![],
        }
    }

    /// Evaluate one expression (a record leaf that is exactly `{{ expr }}`) to
    /// JSON. An error has no place: the caller knows the record's effect.
    pub fn eval_expr(
        &self,
        expr: &str,
        ctx: &minijinja::Value,
    ) -> Result<serde_json::Value, TemplateError> {
        let env = self.env();
        let e = env
            .compile_expression(expr)
            .map_err(TemplateError::unplaced)?;
        let v = e.eval(ctx).map_err(TemplateError::unplaced)?;
        if v.is_undefined() || v.is_none() {
            return Ok(serde_json::Value::Null);
        }
        serde_json::to_value(&v).map_err(|e| TemplateError {
            at: Place::Unknown,
            kind: TemplateErrorKind::NotJson(Arc::new(e)),
        })
    }

    /// Render a template given only as text (record leaves). An error has no
    /// place: the caller knows the record's effect.
    pub fn render_str(&self, text: &str, ctx: &minijinja::Value) -> Result<String, TemplateError> {
        if !text.contains("{{") && !text.contains("{%") {
            return Ok(text.to_string());
        }
        self.env()
            .render_str(text, ctx)
            .map_err(TemplateError::unplaced)
    }
}

/// Where a template (or the effect holding a record) is in its policy file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The policy file, as `check` names it.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}

impl Location {
    /// The place of byte `at` of a policy file.
    pub fn of(source: &PolicySource, at: usize) -> Location {
        let (line, col) = source.line_col(at);
        Location {
            file: source.display_name(),
            line,
            col,
        }
    }
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Where a template error happened, as far as it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Not known (a record leaf rendered from its text alone, before the
    /// evaluator names its effect).
    Unknown,
    /// The line of the template the error is on.
    Template(Location),
    /// The effect whose record holds the template.
    Record(Location),
}

/// A template that did not render: where, and why.
#[derive(Debug, Clone)]
pub struct TemplateError {
    /// Where it is in its policy.
    pub at: Place,
    /// What went wrong.
    pub kind: TemplateErrorKind,
}

/// What went wrong with a template.
#[derive(Debug, Clone)]
pub enum TemplateErrorKind {
    /// The set never compiled or registered it (a bug, not a policy's fault).
    NotCompiled {
        /// Its byte offset in the policy file.
        byte: usize,
    },
    /// minijinja refused it (compiling or rendering).
    Render(Arc<minijinja::Error>),
    /// A record leaf's value cannot be written as JSON.
    NotJson(Arc<serde_json::Error>),
}

impl TemplateError {
    /// A minijinja error at the line of `t` it names, in its policy file.
    fn located(source: &PolicySource, t: &Template, e: minijinja::Error) -> TemplateError {
        let (file, line, col) = locate(source, t, e.line());
        TemplateError {
            at: Place::Template(Location { file, line, col }),
            kind: TemplateErrorKind::Render(Arc::new(e)),
        }
    }

    /// A minijinja error whose place the caller adds.
    fn unplaced(e: minijinja::Error) -> TemplateError {
        TemplateError {
            at: Place::Unknown,
            kind: TemplateErrorKind::Render(Arc::new(e)),
        }
    }

    /// The error, placed at the effect whose record it is in.
    pub fn in_record(self, effect: Location) -> TemplateError {
        TemplateError {
            at: Place::Record(effect),
            ..self
        }
    }

    /// The policy file and line, when known.
    pub fn location(&self) -> Option<&Location> {
        match &self.at {
            Place::Unknown => None,
            Place::Template(l) | Place::Record(l) => Some(l),
        }
    }
}

impl std::fmt::Display for TemplateErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TemplateErrorKind::NotCompiled { byte } => {
                write!(f, "template at byte {byte} was not compiled")
            }
            TemplateErrorKind::Render(e) => f.write_str(&describe(e)),
            TemplateErrorKind::NotJson(e) => write!(f, "{e}"),
        }
    }
}

// Hand-written rather than `thiserror`: the message depends on where the
// template is (`Place`) as well as on what went wrong.
impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.at {
            Place::Unknown => write!(f, "{}", self.kind),
            Place::Template(l) => write!(f, "{l}: template error: {}", self.kind),
            Place::Record(l) => write!(f, "{l}: in the effect's record: {}", self.kind),
        }
    }
}

impl std::error::Error for TemplateError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            TemplateErrorKind::NotCompiled { .. } => None,
            TemplateErrorKind::Render(e) => Some(e.as_ref()),
            TemplateErrorKind::NotJson(e) => Some(e.as_ref()),
        }
    }
}

/// Writes an inserted value with [`neutralize`].
fn shown_formatter(
    out: &mut minijinja::Output<'_>,
    _state: &minijinja::State<'_, '_>,
    value: &minijinja::Value,
) -> Result<(), minijinja::Error> {
    if value.is_undefined() {
        return Ok(());
    }
    out.write_str(&neutralize(&value.to_string()))
        .map_err(|_| minijinja::Error::new(minijinja::ErrorKind::WriteFailure, "write failed"))
}

/// `text` with control characters, bidi controls and line separators written
/// as escapes (`\u{1b}`, `\r`); newlines and tabs are kept.
pub fn neutralize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\r' => out.push_str("\\r"),
            '\u{0}'..='\u{1f}'
            | '\u{7f}'..='\u{9f}'
            | '\u{61c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// `value` with every line break inside its strings written `\n` (as the two
/// characters), for event data shown in reasons, messages and context.
/// Borrowed when nothing changes.
pub fn one_line(value: &serde_json::Value) -> std::borrow::Cow<'_, serde_json::Value> {
    use serde_json::Value as J;
    use std::borrow::Cow;
    fn has_break(v: &J) -> bool {
        match v {
            J::String(s) => s.contains('\n'),
            J::Array(a) => a.iter().any(has_break),
            J::Object(o) => o.values().any(has_break),
            _ => false,
        }
    }
    fn convert(v: &J) -> J {
        match v {
            J::String(s) if s.contains('\n') => J::String(s.replace('\n', "\\n")),
            J::Array(a) => J::Array(a.iter().map(convert).collect()),
            J::Object(o) => J::Object(o.iter().map(|(k, v)| (k.clone(), convert(v))).collect()),
            other => other.clone(),
        }
    }
    if has_break(value) {
        Cow::Owned(convert(value))
    } else {
        Cow::Borrowed(value)
    }
}

/// `regex_match(text, pattern)`: does the regex match? Invalid patterns are an
/// error, not a silent `false`. Compiled regexes are cached per process.
fn regex_match(text: String, pattern: String) -> Result<bool, minijinja::Error> {
    use std::cell::RefCell;
    thread_local! {
        static CACHE: RefCell<HashMap<String, regex::Regex>> = RefCell::new(HashMap::new());
    }
    CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if !c.contains_key(&pattern) {
            let re = regex::Regex::new(&pattern).map_err(|e| {
                minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("invalid regex {pattern:?}: {e}"),
                )
            })?;
            c.insert(pattern.clone(), re);
        }
        Ok(c[&pattern].is_match(&text))
    })
}

/// `regex_replace(text, pattern, replacement)` (`$1`, `${name}` in the replacement).
fn regex_replace(
    text: String,
    pattern: String,
    replacement: String,
) -> Result<String, minijinja::Error> {
    let re = regex::Regex::new(&pattern).map_err(|e| {
        minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("invalid regex {pattern:?}: {e}"),
        )
    })?;
    Ok(re.replace_all(&text, replacement.as_str()).into_owned())
}

/// `file:line:col` of line `tline` (1-based) of a template in its policy file:
/// where that line's text is found inside the template's TOML string, else the
/// string's start.
fn locate(source: &PolicySource, t: &Template, tline: Option<usize>) -> (String, usize, usize) {
    let text = source.full_text();
    let mut at = t.span.start;
    if let Some(n) = tline.filter(|n| *n > 1) {
        let wanted = t.text.lines().nth(n - 1).map(str::trim).unwrap_or("");
        let region = text.get(t.span.clone()).unwrap_or("");
        // Skip the first n-1 lines of the string, then find the line's text.
        let mut from = 0;
        for _ in 0..n - 1 {
            match region[from..].find('\n') {
                Some(i) => from += i + 1,
                None => break,
            }
        }
        match (!wanted.is_empty())
            .then(|| region.get(from..).and_then(|r| r.find(wanted)))
            .flatten()
        {
            Some(i) => at = t.span.start + from + i,
            None if from > 0 => at = t.span.start + from,
            None => {}
        }
    }
    let (line, col) = source.line_col(at);
    (source.display_name(), line, col)
}

fn describe(e: &minijinja::Error) -> String {
    match e.detail() {
        Some(d) => format!("{}: {d}", e.kind()),
        None => e.to_string(),
    }
}

/// Call `f` on every string in a JSON value.
pub fn visit_strings(v: &serde_json::Value, f: &mut dyn FnMut(&str)) {
    match v {
        serde_json::Value::String(s) => f(s),
        serde_json::Value::Array(a) => a.iter().for_each(|x| visit_strings(x, f)),
        serde_json::Value::Object(m) => m.values().for_each(|x| visit_strings(x, f)),
        _ => {}
    }
}
