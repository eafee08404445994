//! Reading a policy with every mistake reported, not only the first.
//!
//! serde stops at the first unknown key or wrong type, so a file with six
//! mistakes would take six `check` runs. Here the text is parsed into a spanned
//! TOML tree first and walked against the policy schema, the JSON Schema that
//! schemars derives from the very serde types in [`super::syntax`] (so the walk
//! and serde cannot disagree about what is allowed). Each problem gets a
//! plain-words diagnostic with the fix, and the tree is repaired so the walk can
//! go on: a misspelled key is renamed to the key it is closest to (`decison` is
//! read as `decision`), a single value where a list belongs is wrapped, a bad
//! value is dropped, a missing required key gets a stand-in. Only then does serde
//! read the repaired tree, with spans into the original text intact.
//!
//! TOML syntax errors are handled line by line: the broken line (or an unclosed
//! bracket's line) is reported and blanked with spaces, keeping every byte offset,
//! and the text parsed again.
//!
//! `run` does not pay for any of this: it parses with serde directly and comes
//! here only when that fails, for the message.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::Deserialize;
use serde_json::Value as Schema;
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

use super::syntax::RawPolicy;
use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::source::PolicySource;

/// A policy read with recovery.
#[derive(Debug)]
pub struct Parsed {
    /// The policy as far as it could be read (None: the text is beyond repair).
    pub raw: Option<RawPolicy>,
    /// Every syntax and schema problem, in file order.
    pub diagnostics: Vec<Diagnostic>,
    /// Byte ranges of items that were repaired with stand-in values, or that hold
    /// a blanked line: later stages' warnings there are consequences of a problem
    /// already reported, and are left out.
    pub repaired: Vec<Range<usize>>,
}

impl Parsed {
    /// Is a later stage's warning a consequence of a repair (and so noise)?
    pub fn is_consequence(&self, d: &Diagnostic) -> bool {
        let Some(span) = &d.span else { return false };
        d.code.severity() == crate::diagnostics::Severity::Warning
            && self
                .repaired
                .iter()
                .any(|r| r.start <= span.start && span.end <= r.end)
    }
}

/// Parse a policy, reporting every problem and keeping what can be kept.
pub fn parse_all(source: &Arc<PolicySource>) -> Parsed {
    let (text, mut diagnostics, blanked) = syntax_pass(source);
    let mut repaired: Vec<Range<usize>> = vec![];
    let Ok(mut root) = DeTable::parse(&text) else {
        return Parsed {
            raw: None,
            diagnostics,
            repaired,
        };
    };
    let schema = policy_schema();
    let mut walker = Walker {
        root: schema,
        source,
        diags: vec![],
        repaired: vec![],
        blanked: &blanked,
        depth: 0,
        item: None,
    };
    let span = root.span();
    let mut value = Spanned::new(span.clone(), DeValue::Table(std::mem::take(root.get_mut())));
    walker.walk(schema, &mut value, &Place::top());
    diagnostics.append(&mut walker.diags);
    repaired.append(&mut walker.repaired);
    // Items that held a blanked line lost a key to a syntax error.
    if let DeValue::Table(t) = value.get_ref() {
        for item in items(t) {
            let item = extent(&text, item);
            if blanked
                .iter()
                .any(|b| item.start <= b.start && b.end <= item.end)
            {
                repaired.push(item);
            }
        }
    }
    let DeValue::Table(table) = value.into_inner() else {
        unreachable!("the root stays a table")
    };
    let raw = match RawPolicy::deserialize(toml::de::Deserializer::from(Spanned::new(span, table)))
    {
        Ok(raw) => Some(raw),
        Err(e) => {
            // The walk missed something serde rejects: report serde's finding.
            diagnostics.push(super::parse::serde_diagnostic(source, &e));
            None
        }
    };
    diagnostics.sort_by_key(|d| d.span.as_ref().map(|s| s.start).unwrap_or(0));
    Parsed {
        raw,
        diagnostics,
        repaired,
    }
}

/// The spans of the rules, facts, conditions and overrides of a document.
fn items(t: &DeTable) -> Vec<Range<usize>> {
    let mut out = vec![];
    for (_, v) in t.iter() {
        match v.get_ref() {
            DeValue::Array(a) => out.extend(a.iter().map(|i| i.span())),
            DeValue::Table(inner) => out.extend(inner.iter().map(|(_, i)| i.span())),
            _ => {}
        }
    }
    out
}

/// Where an item's text ends: for a `[table]` or `[[rule]]` header, at the next
/// header (or the end of the file); for an inline value, its own span.
pub fn extent(text: &str, span: Range<usize>) -> Range<usize> {
    if !text.get(span.clone()).is_some_and(|s| s.starts_with('[')) {
        return span;
    }
    let mut at = text[span.end.min(text.len())..]
        .find('\n')
        .map(|i| span.end + i + 1)
        .unwrap_or(text.len());
    while at < text.len() {
        if text[at..].trim_start_matches([' ', '\t']).starts_with('[') {
            return span.start..at;
        }
        at = text[at..]
            .find('\n')
            .map(|i| at + i + 1)
            .unwrap_or(text.len());
    }
    span.start..text.len()
}

/// The policy schema, as JSON, derived from the serde types.
fn policy_schema() -> &'static Schema {
    static SCHEMA: OnceLock<Schema> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        serde_json::to_value(schemars::schema_for!(RawPolicy)).unwrap_or(Schema::Bool(true))
    })
}

// ---------------------------------------------------------------------------
// Syntax: report each broken line, blank it, parse again.

/// Report TOML syntax errors one line at a time. Returns the text with the
/// broken lines blanked (same length, same line breaks), the errors, and the
/// blanked ranges.
fn syntax_pass(source: &Arc<PolicySource>) -> (String, Vec<Diagnostic>, Vec<Range<usize>>) {
    let mut text = source.text.to_string();
    let mut diags = vec![];
    let mut blanked = vec![];
    // A file broken on more lines than this is reported up to here.
    for _ in 0..64 {
        let err = match DeTable::parse(&text) {
            Ok(_) => break,
            Err(e) => e,
        };
        let at = err.span().unwrap_or(0..0);
        // An unclosed bracket shows up later, wherever the parser gives up:
        // report it where it was opened.
        let (range, d) = match unclosed_bracket(&text) {
            Some(open) if open <= at.start => {
                let line = line_of(&text, open);
                let d = Diagnostic::new(
                    Code::TomlSyntax,
                    format!("this `{}` is never closed", &text[open..open + 1]),
                )
                .at(source, open..open + 1)
                .label("opened here")
                .help(format!(
                    "close it with `{}` at the end of the value",
                    if &text[open..open + 1] == "[" {
                        "]"
                    } else {
                        "}"
                    }
                ));
                (line, d)
            }
            _ => {
                let line = line_of(&text, at.start.min(text.len()));
                let header = text[line.clone()].trim_start().starts_with('[');
                let d = syntax_diagnostic(source, &text, &err, at);
                if header {
                    // A broken table header: the keys under it belong to no
                    // table the walk could judge, so they are skipped with it
                    // (one problem, not one "unknown key" per line).
                    let end = table_end(&text, line.start);
                    (line.start..end, header_diagnostic(d, &text[line.clone()]))
                } else {
                    (line.clone(), d)
                }
            }
        };
        diags.push(d);
        if range.is_empty() || blanked.contains(&range) {
            break;
        }
        blank(&mut text, &range);
        blanked.push(range);
    }
    (text, diags, blanked)
}

/// A syntax error in plain words, with the fix where it is a common one.
fn syntax_diagnostic(
    source: &Arc<PolicySource>,
    text: &str,
    err: &toml::de::Error,
    at: Range<usize>,
) -> Diagnostic {
    let message = err.message().trim();
    let first = message.lines().next().unwrap_or(message);
    if first.contains("escape") {
        let line = line_of(text, at.start.min(text.len()));
        let escape = text.get(at.start.saturating_sub(1)..).unwrap_or("");
        let shown: String = escape.chars().take(2).collect();
        let mut d = Diagnostic::new(
            Code::TomlSyntax,
            format!("`{shown}` is not an escape TOML knows, in a \"...\" string"),
        )
        .at(source, at.start.saturating_sub(1)..at.start + 1)
        .label("read as a TOML escape");
        d = d.help(match basic_string_around(text, &line, at.start) {
            Some(inner) if !inner.contains('\'') => format!(
                "write regexes in single quotes, where a backslash is just a backslash: '{inner}'"
            ),
            _ => "write regexes in single quotes ('\\bfoo\\b'), where a backslash is just a backslash".into(),
        });
        return d;
    }
    let mut d =
        Diagnostic::new(Code::TomlSyntax, format!("not valid TOML: {first}")).at(source, at);
    if first.contains("quoted") {
        d = d.help("text values go in quotes: key = \"value\" (or 'value' for regexes)");
    } else {
        d = d.help("each line is `key = value`, `[table]` or `[[rule]]`; text goes in quotes");
    }
    d
}

/// A syntax error in a table header: the fix, and what happens to its keys.
fn header_diagnostic(mut d: Diagnostic, line: &str) -> Diagnostic {
    let name: String = line
        .trim()
        .trim_matches(['[', ']'])
        .split('#')
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    let fixed = if line.trim_start().starts_with("[[") {
        format!("[[{name}]]")
    } else {
        format!("[{name}]")
    };
    d.set_label("this table header");
    d.set_help(format!(
        "write the header as `{fixed}` on its own line; until then the keys under it are skipped"
    ));
    d
}

/// The content of the `"..."` string on `line` around `at`, as written.
fn basic_string_around<'t>(text: &'t str, line: &Range<usize>, at: usize) -> Option<&'t str> {
    let l = text.get(line.clone())?;
    let rel = at.checked_sub(line.start)?;
    let open = l[..rel].rfind('"')?;
    let close = rel + l[rel..].find('"')?;
    l.get(open + 1..close)
}

/// The byte range of the line holding `at` (without its line break).
fn line_of(text: &str, at: usize) -> Range<usize> {
    let start = text[..at].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let end = text[at..].find('\n').map(|i| at + i).unwrap_or(text.len());
    start..end
}

/// Replace a range with spaces (keeping line breaks and every byte offset).
fn blank(text: &mut String, range: &Range<usize>) {
    let blanked: String = text[range.clone()]
        .chars()
        .map(|c| {
            if c == '\n' {
                "\n".to_string()
            } else {
                " ".repeat(c.len_utf8())
            }
        })
        .collect();
    text.replace_range(range.clone(), &blanked);
}

/// The first `[` or `{` in a value that is never closed.
fn unclosed_bracket(text: &str) -> Option<usize> {
    scan_brackets(text).unclosed
}

/// Where the next table header after `after` starts (`[x]`, `[[x]]`), else the
/// end of the text: the extent of the table whose header is at `after`.
fn table_end(text: &str, after: usize) -> usize {
    scan_brackets(text)
        .headers
        .into_iter()
        .find(|&h| h > after)
        .unwrap_or(text.len())
}

/// What a bracket scan of a TOML text finds.
struct Brackets {
    /// The first `[` or `{` in a value that is never closed.
    unclosed: Option<usize>,
    /// The start of every table header line.
    headers: Vec<usize>,
}

/// Scan a TOML text for brackets. Strings and comments are skipped; a line
/// starting with `[` outside any value is a table header.
fn scan_brackets(text: &str) -> Brackets {
    let b = text.as_bytes();
    let mut stack: Vec<usize> = vec![];
    let mut headers = vec![];
    let mut i = 0;
    let mut line_start = true;
    'scan: while i < b.len() {
        let c = b[i];
        if line_start && stack.is_empty() {
            let rest = &text[i..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            if trimmed.starts_with('[') {
                // A header: skip the line.
                headers.push(i);
                i = text[i..].find('\n').map(|n| i + n + 1).unwrap_or(b.len());
                continue;
            }
        }
        line_start = c == b'\n';
        match c {
            b'#' => {
                i = text[i..].find('\n').map(|n| i + n).unwrap_or(b.len());
                continue;
            }
            b'"' | b'\'' => {
                let triple = text[i..].starts_with(if c == b'"' { "\"\"\"" } else { "'''" });
                let (open, close) = if triple {
                    (3, if c == b'"' { "\"\"\"" } else { "'''" })
                } else {
                    (1, if c == b'"' { "\"" } else { "'" })
                };
                let mut j = i + open;
                loop {
                    let Some(k) = text[j..].find(close) else {
                        break 'scan;
                    };
                    let at = j + k;
                    if !triple && text[j..at].contains('\n') {
                        // An unterminated single-line string: the parser reports it.
                        j = at;
                        break;
                    }
                    if c == b'"' && escaped(b, at) {
                        j = at + 1;
                        continue;
                    }
                    j = at + close.len();
                    break;
                }
                i = j;
                continue;
            }
            b'[' | b'{' => stack.push(i),
            b']' | b'}' => {
                stack.pop();
            }
            _ => {}
        }
        i += 1;
    }
    Brackets {
        unclosed: stack.first().copied(),
        headers,
    }
}

/// Is the byte at `at` preceded by an odd number of backslashes?
fn escaped(b: &[u8], at: usize) -> bool {
    let mut n = 0;
    let mut k = at;
    while k > 0 && b[k - 1] == b'\\' {
        n += 1;
        k -= 1;
    }
    n % 2 == 1
}

// ---------------------------------------------------------------------------
// Schema: walk the tree, report, repair.

/// Where a value sits, for messages.
#[derive(Debug, Clone)]
struct Place {
    /// The key it is under (`priority`), or the list it is an item of.
    key: Option<String>,
    /// What the key is for (the first sentence of its documentation).
    about: Option<String>,
    /// What holds it, in words (`a rule`, `a condition`).
    owner: &'static str,
}

impl Place {
    fn top() -> Place {
        Place {
            key: None,
            about: None,
            owner: "the file",
        }
    }
    fn key(&self) -> String {
        self.key.clone().unwrap_or_else(|| "this value".into())
    }
}

/// What the walk decided about a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// Fine, or repaired.
    Yes,
    /// Reported; the parent removes it.
    No,
}

/// A schema node, normalised.
enum Kind<'s> {
    /// Anything goes.
    Any,
    /// One of these texts.
    Enum(Vec<&'s str>),
    /// One of several shapes (untagged enums).
    Alternatives(Vec<&'s Schema>),
    /// Values of these JSON types, further described by the node.
    Typed(Vec<&'s str>, &'s Schema),
}

struct Walker<'s, 'a> {
    root: &'s Schema,
    source: &'a Arc<PolicySource>,
    diags: Vec<Diagnostic>,
    repaired: Vec<Range<usize>>,
    blanked: &'a [Range<usize>],
    /// Nesting depth of the walk (the file is 0, its items 2).
    depth: usize,
    /// The extent of the top-level item being walked (a rule, a fact, ...).
    item: Option<Range<usize>>,
}

impl<'s> Walker<'s, '_> {
    /// Follow `$ref`s.
    fn resolve(&self, mut s: &'s Schema) -> &'s Schema {
        for _ in 0..16 {
            match s.get("$ref").and_then(|r| r.as_str()) {
                Some(r) => {
                    let name = r.trim_start_matches("#/$defs/");
                    match self.root.get("$defs").and_then(|d| d.get(name)) {
                        Some(t) => s = t,
                        None => return s,
                    }
                }
                None => return s,
            }
        }
        s
    }

    /// The `$defs` name a node refers to (`RawRule`), also through `Option`'s
    /// `anyOf: [{ $ref }, { type: null }]`.
    fn def_name(s: &Schema) -> Option<&str> {
        if let Some(r) = s.get("$ref").and_then(|r| r.as_str()) {
            return Some(r.trim_start_matches("#/$defs/"));
        }
        let branches = s.get("anyOf").and_then(|b| b.as_array())?;
        let real: Vec<&Schema> = branches
            .iter()
            .filter(|b| b.get("type").and_then(|t| t.as_str()) != Some("null"))
            .collect();
        match real.as_slice() {
            [one] => Self::def_name(one),
            _ => None,
        }
    }

    fn kind(&self, schema: &'s Schema) -> Kind<'s> {
        let s = self.resolve(schema);
        let Some(obj) = s.as_object() else {
            return Kind::Any;
        };
        if let Some(branches) = obj
            .get("anyOf")
            .or_else(|| obj.get("oneOf"))
            .and_then(|b| b.as_array())
        {
            let real: Vec<&'s Schema> = branches
                .iter()
                .filter(|b| b.get("type").and_then(|t| t.as_str()) != Some("null"))
                .collect();
            let consts: Vec<&'s str> = real
                .iter()
                .filter_map(|b| self.resolve(b).get("const").and_then(|c| c.as_str()))
                .collect();
            if !real.is_empty() && consts.len() == real.len() {
                return Kind::Enum(consts);
            }
            if real.len() == 1 {
                return self.kind(real[0]);
            }
            return Kind::Alternatives(real);
        }
        if let Some(c) = obj.get("const").and_then(|c| c.as_str()) {
            return Kind::Enum(vec![c]);
        }
        if let Some(e) = obj.get("enum").and_then(|e| e.as_array()) {
            return Kind::Enum(e.iter().filter_map(|v| v.as_str()).collect());
        }
        let types: Vec<&'s str> = match obj.get("type") {
            Some(Schema::String(t)) => vec![t.as_str()],
            Some(Schema::Array(ts)) => ts
                .iter()
                .filter_map(|t| t.as_str())
                .filter(|t| *t != "null")
                .collect(),
            _ => return Kind::Any,
        };
        Kind::Typed(types, s)
    }

    /// Check `v` against `schema`, reporting and repairing.
    fn walk(&mut self, schema: &'s Schema, v: &mut Spanned<DeValue>, place: &Place) -> Keep {
        self.depth += 1;
        if self.depth == 3 {
            self.item = Some(extent(&self.source.text, v.span()));
        }
        let keep = self.walk_inner(schema, v, place);
        if keep == Keep::No {
            self.lost();
        }
        self.depth -= 1;
        keep
    }

    /// Something was left out of the current item: findings of later stages
    /// inside it may be consequences.
    fn lost(&mut self) {
        if let Some(item) = &self.item {
            if !self.repaired.contains(item) {
                self.repaired.push(item.clone());
            }
        }
    }

    fn walk_inner(&mut self, schema: &'s Schema, v: &mut Spanned<DeValue>, place: &Place) -> Keep {
        let owner = Self::def_name(schema).map(owner_words);
        let place = match owner {
            Some(o) => Place {
                owner: o,
                ..place.clone()
            },
            None => place.clone(),
        };
        match self.kind(schema) {
            Kind::Any => Keep::Yes,
            Kind::Enum(allowed) => self.enumeration(&allowed, v, &place),
            Kind::Alternatives(branches) => {
                let fitting: Vec<&'s Schema> = branches
                    .iter()
                    .copied()
                    .filter(|b| match self.kind(b) {
                        Kind::Typed(types, _) => fits(&types, v.get_ref()),
                        Kind::Enum(_) => matches!(v.get_ref(), DeValue::String(_)),
                        _ => true,
                    })
                    .collect();
                match fitting.first() {
                    Some(b) => self.walk(b, v, &place),
                    None => {
                        let wanted: Vec<String> =
                            branches.iter().map(|b| self.describe(b)).collect();
                        self.type_error(&wanted.join(", or "), schema, v, &place);
                        Keep::No
                    }
                }
            }
            Kind::Typed(types, node) => {
                if !fits(&types, v.get_ref()) {
                    return self.mismatch(&types, node, schema, v, &place);
                }
                match v.get_mut() {
                    DeValue::Array(a) => {
                        if let Some(items) = node.get("items") {
                            let item_place = place.clone();
                            let mut kept = DeArray::new();
                            let old = std::mem::replace(a, DeArray::new());
                            for mut item in old.iter().cloned() {
                                if self.walk(items, &mut item, &item_place) == Keep::Yes {
                                    kept.push(item);
                                }
                            }
                            *a = kept;
                        }
                        Keep::Yes
                    }
                    DeValue::Table(_) => self.table(node, v, &place),
                    DeValue::Integer(i) => {
                        let negative = i.as_str().starts_with('-');
                        if negative && node.get("minimum").and_then(|m| m.as_f64()) == Some(0.0) {
                            self.report(
                                Diagnostic::new(
                                    Code::Schema,
                                    format!("`{}` cannot be negative", place.key()),
                                )
                                .at(self.source, v.span())
                                .label("a count or a duration")
                                .help(format!(
                                    "write a number of 0 or more: `{} = 10`",
                                    place.key()
                                )),
                            );
                            return Keep::No;
                        }
                        Keep::Yes
                    }
                    _ => Keep::Yes,
                }
            }
        }
    }

    /// A table against an object schema: unknown keys, then each value, then
    /// required keys.
    fn table(&mut self, node: &'s Schema, v: &mut Spanned<DeValue>, place: &Place) -> Keep {
        let span = v.span();
        let DeValue::Table(t) = v.get_mut() else {
            return Keep::Yes;
        };
        let props = node.get("properties").and_then(|p| p.as_object());
        let extra = node.get("additionalProperties");
        let map_of = extra.filter(|e| e.is_object());
        // Open: `additionalProperties: true`, or neither properties nor a rule
        // for other keys (a free-form table such as an effect's `record`).
        let open = extra == Some(&Schema::Bool(true)) || (props.is_none() && extra.is_none());
        let required: Vec<&str> = node
            .get("required")
            .and_then(|r| r.as_array())
            .map(|r| r.iter().filter_map(|s| s.as_str()).collect())
            .unwrap_or_default();
        let keys: Vec<String> = t.iter().map(|(k, _)| k.get_ref().to_string()).collect();
        let mut handled: Vec<String> = vec![];
        for key in keys {
            let known = props.and_then(|p| p.get(&key));
            let (schema_for, name) = match (known, map_of) {
                (Some(s), _) => (s, key.clone()),
                (None, Some(s)) => (s, key.clone()),
                (None, None) if open => continue,
                (None, None) => {
                    let allowed: Vec<&str> = props
                        .map(|p| p.keys().map(|k| k.as_str()).collect())
                        .unwrap_or_default();
                    let free: Vec<&str> = allowed
                        .iter()
                        .copied()
                        .filter(|k| !t.contains_key(*k))
                        .collect();
                    let suggestion = did_you_mean(&key, free.iter().copied());
                    let (kspan, _) = t
                        .get_key_value(key.as_str())
                        .map(|(k, v)| (k.span(), v.span()))
                        .unwrap_or((span.clone(), span.clone()));
                    let mut d = Diagnostic::new(
                        Code::Schema,
                        format!("unknown key `{key}` in {}", place.owner),
                    )
                    .at(self.source, kspan.clone())
                    .label("not a key here");
                    d = d.help(match suggestion {
                        Some(s) => format!(
                            "did you mean `{s}`? ({} takes: {})",
                            place.owner,
                            allowed.join(", ")
                        ),
                        None => format!("{} takes: {}", place.owner, allowed.join(", ")),
                    });
                    self.report(d);
                    let (old_key, mut value) = t
                        .remove_entry(key.as_str())
                        .expect("the key is in the table");
                    // Read it as the key it was meant to be, and go on checking.
                    if let Some(s) = suggestion {
                        let sub = props.and_then(|p| p.get(s)).expect("suggested from props");
                        let place = Place {
                            key: Some(s.to_string()),
                            about: about(sub),
                            owner: place.owner,
                        };
                        if self.walk(sub, &mut value, &place) == Keep::Yes {
                            t.insert(
                                Spanned::new(old_key.span(), Cow::Owned(s.to_string())),
                                value,
                            );
                        }
                        handled.push(s.to_string());
                    }
                    continue;
                }
            };
            let sub_place = Place {
                key: Some(name),
                about: if known.is_some() {
                    about(schema_for)
                } else {
                    None
                },
                owner: place.owner,
            };
            let keep = match t.get_mut(key.as_str()) {
                Some(value) => self.walk(schema_for, value, &sub_place),
                None => Keep::Yes,
            };
            if keep == Keep::No {
                t.remove(key.as_str());
                handled.push(key.clone());
            }
        }
        let mut keep = Keep::Yes;
        for r in required {
            if t.contains_key(r) {
                continue;
            }
            let whole = extent(&self.source.text, span.clone());
            let silent = handled.iter().any(|h| h == r)
                || self
                    .blanked
                    .iter()
                    .any(|b| whole.start <= b.start && b.end <= whole.end);
            if !silent {
                self.report(
                    Diagnostic::new(Code::Schema, format!("{} needs `{r}`", place.owner))
                        .at(self.source, span.clone())
                        .label(format!("{} without `{r}`", place.owner))
                        .help(format!("add {}", example_for(place.owner, r))),
                );
            }
            match stand_in(place.owner, r, self.source, span.start) {
                Some(value) => {
                    t.insert(
                        Spanned::new(span.clone(), Cow::Owned(r.to_string())),
                        Spanned::new(span.clone(), value),
                    );
                    self.lost();
                }
                None => keep = Keep::No,
            }
        }
        keep
    }

    /// A text that must be one of a few words.
    fn enumeration(&mut self, allowed: &[&str], v: &mut Spanned<DeValue>, place: &Place) -> Keep {
        let DeValue::String(s) = v.get_ref() else {
            let wanted = format!("one of {}", quoted(allowed));
            self.simple_type_error(
                &wanted,
                v,
                place,
                &format!("{} = \"{}\"", place.key(), allowed[0]),
            );
            return Keep::No;
        };
        if allowed.contains(&s.as_ref()) {
            return Keep::Yes;
        }
        let suggestion = did_you_mean(s, allowed.iter().copied());
        let mut d = Diagnostic::new(Code::Schema, format!("`{}` cannot be `{s}`", place.key()))
            .at(self.source, v.span())
            .label("not one of the allowed values");
        d = d.help(match suggestion {
            Some(sug) => format!("did you mean `{sug}`? allowed: {}", quoted(allowed)),
            None => format!("allowed: {}", quoted(allowed)),
        });
        self.report(d);
        match suggestion {
            Some(sug) => {
                *v.get_mut() = DeValue::String(Cow::Owned(sug.to_string()));
                Keep::Yes
            }
            None => Keep::No,
        }
    }

    /// A value of the wrong type: repair what is unambiguous, report all.
    fn mismatch(
        &mut self,
        types: &[&str],
        node: &'s Schema,
        schema: &'s Schema,
        v: &mut Spanned<DeValue>,
        place: &Place,
    ) -> Keep {
        // One value where a list belongs: `events = "Stop"`, `[rule]` for `[[rule]]`.
        if types.contains(&"array") {
            if let Some(items) = node.get("items") {
                let item_fits = match self.kind(items) {
                    Kind::Typed(t, _) => fits(&t, v.get_ref()),
                    Kind::Enum(_) => matches!(v.get_ref(), DeValue::String(_)),
                    _ => true,
                };
                if item_fits {
                    let span = v.span();
                    let shown = self.source.text.get(span.clone()).unwrap_or("").to_string();
                    // A `[name]` table's span is its header.
                    let is_table_header =
                        matches!(v.get_ref(), DeValue::Table(_)) && shown.starts_with('[');
                    let d = if is_table_header {
                        Diagnostic::new(
                            Code::Schema,
                            format!(
                                "`{}` is a list of tables: each one starts with `[[{}]]`",
                                place.key(),
                                place.key()
                            ),
                        )
                        .at(self.source, span.clone())
                        .label("one pair of brackets")
                        .help(format!(
                            "write `[[{}]]` (two pairs of brackets)",
                            place.key()
                        ))
                    } else {
                        Diagnostic::new(Code::Schema, format!("`{}` must be a list", place.key()))
                            .at(self.source, span.clone())
                            .label("a single value")
                            .help(format!(
                                "put it in brackets: {} = [{}]",
                                place.key(),
                                shown.trim()
                            ))
                    };
                    self.report(d);
                    let old = std::mem::replace(v.get_mut(), DeValue::Boolean(false));
                    let mut item = Spanned::new(span.clone(), old);
                    let item_place = place.clone();
                    if self.walk(items, &mut item, &item_place) == Keep::No {
                        return Keep::No;
                    }
                    let mut a = DeArray::new();
                    a.push(item);
                    *v.get_mut() = DeValue::Array(a);
                    return Keep::Yes;
                }
            }
        }
        // A number or true/false where text belongs (`id = 5`): use its text.
        if types == ["string"]
            && matches!(
                v.get_ref(),
                DeValue::Integer(_) | DeValue::Float(_) | DeValue::Boolean(_)
            )
        {
            let shown = self
                .source
                .text
                .get(v.span())
                .unwrap_or("")
                .trim()
                .to_string();
            self.simple_type_error(
                "text in quotes",
                v,
                place,
                &format!("{} = \"{shown}\"", place.key()),
            );
            *v.get_mut() = DeValue::String(Cow::Owned(shown));
            return Keep::Yes;
        }
        let wanted = self.describe(schema);
        self.type_error(&wanted, schema, v, place);
        Keep::No
    }

    fn type_error(
        &mut self,
        wanted: &str,
        schema: &'s Schema,
        v: &Spanned<DeValue>,
        place: &Place,
    ) {
        let example = self.example(schema, v, place);
        self.simple_type_error(wanted, v, place, &example);
    }

    fn simple_type_error(
        &mut self,
        wanted: &str,
        v: &Spanned<DeValue>,
        place: &Place,
        example: &str,
    ) {
        let d = Diagnostic::new(
            Code::Schema,
            format!(
                "`{}` must be {wanted}, not {}",
                place.key(),
                value_words(v.get_ref())
            ),
        )
        .at(self.source, v.span())
        .label(format!("this is {}", value_words(v.get_ref())))
        .help(match &place.about {
            Some(a) => format!("for example: {example}\n`{}`: {a}", place.key()),
            None => format!("for example: {example}"),
        });
        self.report(d);
    }

    /// What a schema accepts, in words.
    fn describe(&self, schema: &'s Schema) -> String {
        match self.kind(schema) {
            Kind::Any => "a value".into(),
            Kind::Enum(v) => format!("one of {}", quoted(&v)),
            Kind::Alternatives(b) => b
                .iter()
                .map(|b| self.describe(b))
                .collect::<Vec<_>>()
                .join(", or "),
            Kind::Typed(types, node) => types
                .iter()
                .map(|t| match *t {
                    "array" => match node.get("items") {
                        Some(items) => format!("a list of {}", plural(&self.describe(items))),
                        None => "a list".into(),
                    },
                    other => type_words(other).to_string(),
                })
                .collect::<Vec<_>>()
                .join(" or "),
        }
    }

    /// `key = example` for a value of the wanted shape; from the value itself when
    /// it only needs its quotes removed.
    fn example(&self, schema: &'s Schema, v: &Spanned<DeValue>, place: &Place) -> String {
        let key = place.key();
        if let DeValue::String(s) = v.get_ref() {
            let wanted_number = matches!(self.kind(schema), Kind::Typed(ref t, _) if t.contains(&"integer") || t.contains(&"number"));
            if wanted_number && s.trim().parse::<f64>().is_ok() {
                return format!("{key} = {} (no quotes)", s.trim());
            }
            if matches!(self.kind(schema), Kind::Typed(ref t, _) if t.contains(&"boolean"))
                && matches!(s.as_ref(), "true" | "false")
            {
                return format!("{key} = {s} (no quotes)");
            }
        }
        match self.kind(schema) {
            Kind::Typed(t, node) => match t.first().copied() {
                Some("integer") => format!("{key} = 10"),
                Some("number") => format!("{key} = 1.5"),
                Some("boolean") => format!("{key} = true"),
                Some("string") => format!("{key} = \"...\""),
                Some("array") => match node.get("items").map(|i| self.kind(i)) {
                    Some(Kind::Typed(it, _)) if it.contains(&"array") => {
                        format!("{key} = [[\"-r\", \"-R\"], [\"-f\"]]")
                    }
                    _ => format!("{key} = [\"...\"]"),
                },
                Some("object") => format!("{key} = {{ ... }}"),
                _ => format!("{key} = ..."),
            },
            Kind::Enum(v) => format!("{key} = \"{}\"", v.first().unwrap_or(&"")),
            _ => format!("{key} = ..."),
        }
    }

    fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

/// The first sentence of a schema node's documentation.
fn about(schema: &Schema) -> Option<String> {
    let d = schema.get("description")?.as_str()?;
    let d = d.replace('\n', " ");
    let first = match d.find(". ") {
        Some(i) => &d[..=i],
        None => d.as_str(),
    };
    Some(first.trim().to_string())
}

/// Does a TOML value have one of these JSON types?
fn fits(types: &[&str], v: &DeValue) -> bool {
    types.iter().any(|t| {
        matches!(
            (*t, v),
            ("string", DeValue::String(_))
                | ("integer", DeValue::Integer(_))
                | ("number", DeValue::Integer(_) | DeValue::Float(_))
                | ("boolean", DeValue::Boolean(_))
                | ("array", DeValue::Array(_))
                | ("object", DeValue::Table(_))
        )
    })
}

fn type_words(t: &str) -> &'static str {
    match t {
        "string" => "text in quotes",
        "integer" => "a whole number",
        "number" => "a number",
        "boolean" => "`true` or `false`",
        "array" => "a list",
        "object" => "a table `{ ... }`",
        _ => "a value",
    }
}

/// `text in quotes` → `texts in quotes`, for "a list of ...".
fn plural(s: &str) -> String {
    match s {
        "text in quotes" => "texts in quotes".into(),
        "a whole number" => "whole numbers".into(),
        "a number" => "numbers".into(),
        "a table `{ ... }`" => "tables".into(),
        other => other.trim_start_matches("a ").to_string() + "s",
    }
}

/// A TOML value, in words, for "must be X, not Y".
fn value_words(v: &DeValue) -> String {
    match v {
        DeValue::String(s) => {
            let shown: String = s.chars().take(40).collect();
            format!("the text \"{shown}\"")
        }
        DeValue::Integer(i) => format!("the number {i}"),
        DeValue::Float(f) => format!("the number {f}"),
        DeValue::Boolean(b) => format!("`{b}`"),
        DeValue::Datetime(d) => format!("the date {d}"),
        DeValue::Array(_) => "a list".into(),
        DeValue::Table(_) => "a table".into(),
    }
}

fn quoted(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The schema's type names, in the words a policy author knows them by.
fn owner_words(def: &str) -> &'static str {
    match def {
        "RawPolicyHeader" => "[policy]",
        "RawRule" => "a rule",
        "RawCondition" => "a condition",
        "RawCommandTest" => "a `command` test",
        "RawFact" => "a fact",
        "RawInclude" => "an `include`",
        "RawEffect" => "an effect",
        "RawOverride" => "an override",
        "PatternItem" => "a list reference",
        "MatcherSpec" => "a rule",
        _ => "this table",
    }
}

/// `key = value` to add for a missing required key.
fn example_for(owner: &str, key: &str) -> String {
    match (owner, key) {
        (_, "id") => {
            "id = \"my-rule\" (unique: it names the rule in decisions and overrides)".into()
        }
        (_, "events") => "events = [\"PreToolUse\"] (or [\"*\"] for every event)".into(),
        ("a fact", "kind") => {
            "kind = \"file\" (or glob, command, env, last_assistant_message, project_markers)"
                .into()
        }
        ("an effect", "kind") => {
            "kind = \"append_jsonl\" (or write_file, write_json, delete_file, run)".into()
        }
        (_, "path") => "path = \".claude/notes.md\"".into(),
        (_, "list") => "list = \"name\" (a list defined under [lists])".into(),
        (_, k) => format!("{k} = ..."),
    }
}

/// A stand-in for a missing required key, so the rest of the item can still be
/// checked; None when the item is better left out.
fn stand_in(owner: &str, key: &str, source: &PolicySource, at: usize) -> Option<DeValue<'static>> {
    match (owner, key) {
        ("a rule", "id") => {
            let (line, _) = source.line_col(at);
            Some(DeValue::String(Cow::Owned(format!(
                "<rule on line {line}>"
            ))))
        }
        ("a rule", "events") => {
            let mut a = DeArray::new();
            a.push(Spanned::new(at..at, DeValue::String(Cow::Borrowed("*"))));
            Some(DeValue::Array(a))
        }
        ("a fact", "kind") => Some(DeValue::String(Cow::Borrowed("last_assistant_message"))),
        ("an `include`", "path") => Some(DeValue::String(Cow::Borrowed(""))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Origin;

    fn check(text: &str) -> Parsed {
        let src = PolicySource::new(Origin::File("p.toml".into()), text);
        parse_all(&src)
    }

    fn messages(p: &Parsed) -> Vec<String> {
        p.diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.snippet().unwrap_or(""), d.message))
            .collect()
    }

    #[test]
    fn two_misspelled_keys_are_both_reported_and_both_read_as_meant() {
        let p = check(
            "[[rule]]\nid = \"a\"\nevents = [\"PreToolUse\"]\nwhen = { commands = \"tool_input.command\", command = { progam = [\"git\"] } }\ndecison = \"deny\"\n",
        );
        assert_eq!(p.diagnostics.len(), 2, "{:?}", messages(&p));
        let raw = p.raw.expect("repaired");
        let rule = &raw.rules[0].value;
        assert_eq!(
            rule.decision.as_ref().map(|d| d.value.as_str()),
            Some("deny")
        );
        let cmd = rule.when.as_ref().unwrap().value.command.as_ref().unwrap();
        assert!(cmd.value.program.is_some());
    }

    #[test]
    fn a_broken_table_header_is_one_problem_and_the_tables_after_it_are_still_read() {
        // The header's own keys (a multi-line array with `[` lines and a `[[` in a
        // string among them) are skipped with it; the next rule is judged as usual.
        let p = check(concat!(
            "[[rule]\n",
            "id = \"a\"\n",
            "events = [\n",
            "  \"PreToolUse\",\n",
            "]\n",
            "when = { field = \"x\", one_of = [\n",
            "  [\"nested\"],\n",
            "] }\n",
            "reason = \"[[not a header]]\"\n",
            "\n",
            "[[rule]]\n",
            "id = \"b\"\n",
            "events = [\"Stop\"]\n",
            "decison = \"block\"\n",
            "\n",
            "[policy\n",
            "name = \"x\"\n",
            "failure = \"fail-open\"\n",
        ));
        let m = messages(&p);
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(m[0].contains("unclosed array table"), "{m:?}");
        assert!(m[1].starts_with("decison: unknown key `decison`"), "{m:?}");
        assert!(m[2].contains("unclosed table"), "{m:?}");
        assert!(
            p.diagnostics[0]
                .help
                .as_deref()
                .unwrap()
                .contains("`[[rule]]`"),
            "{:?}",
            p.diagnostics[0].help
        );
        assert!(p.diagnostics[2]
            .help
            .as_deref()
            .unwrap()
            .contains("`[policy]`"));
        let raw = p.raw.expect("the rest is read");
        assert_eq!(raw.rules.len(), 1);
        assert_eq!(raw.rules[0].value.id.value, "b");
    }

    #[test]
    fn wrong_types_say_what_was_meant_in_plain_words() {
        let p = check(
            "[[rule]]\nid = \"a\"\nevents = \"Stop\"\npriority = \"high\"\nenabled = \"yes\"\n",
        );
        let m = messages(&p);
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(
            m.iter().any(|m| m.contains("`events` must be a list")),
            "{m:?}"
        );
        assert!(
            m.iter()
                .any(|m| m.contains("`priority` must be a whole number, not the text \"high\"")),
            "{m:?}"
        );
        for d in &p.diagnostics {
            assert!(
                !d.message.contains("i64") && !d.message.contains("expected"),
                "{}",
                d.message
            );
            assert!(d.help.is_some());
        }
        // `events` was wrapped, so the rule is still there.
        assert_eq!(p.raw.unwrap().rules[0].value.events.value.len(), 1);
    }

    #[test]
    fn a_number_in_quotes_gets_the_rewrite_without_quotes() {
        let p = check("[[rule]]\nid = \"a\"\nevents = [\"Stop\"]\npriority = \"10\"\n");
        assert!(p.diagnostics[0]
            .help
            .as_deref()
            .unwrap()
            .starts_with("for example: priority = 10 (no quotes)"));
    }

    #[test]
    fn a_bad_enum_value_gets_did_you_mean_and_is_read_as_it() {
        let p = check("[[rule]]\nid = \"a\"\nevents = [\"Stop\"]\ndecision = \"blokc\"\n");
        assert!(p.diagnostics[0]
            .help
            .as_deref()
            .unwrap()
            .contains("did you mean `block`"));
        assert_eq!(
            p.raw.unwrap().rules[0]
                .value
                .decision
                .as_ref()
                .unwrap()
                .value
                .as_str(),
            "block"
        );
    }

    #[test]
    fn a_missing_required_key_is_reported_once() {
        let p =
            check("[[rule]]\nid = \"a\"\ndecision = \"deny\"\n\n[[rule]]\nevents = [\"Stop\"]\n");
        let m = messages(&p);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(p.raw.is_some());
    }

    #[test]
    fn single_brackets_for_rules_point_at_the_header() {
        let p = check("[rule]\nid = \"a\"\nevents = [\"Stop\"]\n");
        assert_eq!(p.diagnostics.len(), 1, "{:?}", messages(&p));
        assert_eq!(p.diagnostics[0].snippet(), Some("[rule]"));
        assert_eq!(p.raw.unwrap().rules.len(), 1);
    }

    #[test]
    fn syntax_errors_on_several_lines_are_all_reported_and_the_rest_is_checked() {
        let p = check(
            "[[rule]]\nid = \"a\"\nevents = [\"PreToolUse\"]\nwhen = { field = \"tool_input.command\", matches = [\"\\dgit\"] }\n\n[[rule]]\nid = \"b\"\nevents = [\"Stop\"\ndecision = \"block\"\n\n[[rule]]\nid = \"c\"\nevents = [\"Stop\"]\ndecison = \"block\"\n",
        );
        let m = messages(&p);
        assert_eq!(m.len(), 3, "{m:?}");
        assert!(
            p.diagnostics[0]
                .help
                .as_deref()
                .unwrap()
                .contains("'\\dgit'"),
            "{m:?}"
        );
        assert_eq!(p.diagnostics[1].snippet(), Some("["));
        assert!(m[2].contains("decison"));
        let raw = p.raw.unwrap();
        assert_eq!(raw.rules.len(), 3);
        // Rule b lost its `events` line to the syntax error: not reported again,
        // and its later warnings are left out.
        assert!(p
            .repaired
            .iter()
            .any(|r| r.contains(&raw.rules[1].span.start)));
    }

    #[test]
    fn unknown_top_level_tables_and_list_references() {
        let p = check("[[rules]]\nid = \"a\"\nevents = [\"Stop\"]\nwhen = { field = \"x\", one_of = [{ lst = \"l\" }] }\n[lists]\nl = [\"a\"]\n");
        let m = messages(&p);
        assert_eq!(m.len(), 2, "{m:?}");
        assert!(p.diagnostics[0].help.as_deref().unwrap().contains("`rule`"));
        assert!(p.diagnostics[1].help.as_deref().unwrap().contains("`list`"));
    }
}
