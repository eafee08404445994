//! Needles: literals of which at least one must occur in the event for a rule to
//! be able to match. They let `run` skip, without parsing or compiling, the rules
//! of a large policy set that cannot match the event at hand.
//!
//! Soundness comes first: a needle is only derived where the raw event text must
//! contain it whenever the condition holds. So needles come only from regex,
//! equality and substring tests on plain event fields; never from facts, from
//! `commands` or `paths` selectors (the shell removes quotes, `r""m` is `rm`),
//! from normalised values (case folding or dash folding changes the text), or from
//! literals with characters JSON may escape. `not`, and `any` with a member that
//! has no needles, give no needles. Callers skip the prefilter entirely when the
//! raw event contains `\u` or `\/` escapes.
//!
//! One assumption: a number is tested as text the way serde_json prints it,
//! which for the plain decimal integers the client writes is the same text as
//! in the raw event. A number written in exponent form (`1e3`) would print
//! differently; the client never writes one, and a rule that regex-matches the
//! digits of a numeric field is better written with `gt`/`lt` anyway.

use crate::policy::syntax::{PatternItem, RawCondition, RawPolicy, RawRule, Sp};

/// Shortest needle worth using.
const MIN_LEN: usize = 3;
/// At most this many alternatives per rule (beyond, the rule is always evaluated).
const MAX_ALTERNATIVES: usize = 64;

/// Something the event must have for a rule to be able to match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// This text occurs in the event (ASCII-lowercased on both sides).
    Text(String),
    /// The shell command in this field runs this program (as the engine's own
    /// shell parser sees it; a trailing `*` is a prefix, as in `program` lists).
    Program {
        /// Dotted field path of the command string.
        field: String,
        /// Program name.
        name: String,
    },
}

impl Atom {
    fn weight(&self) -> usize {
        match self {
            Atom::Text(s) => s.len(),
            Atom::Program { .. } => 8,
        }
    }
}

/// The atoms of a rule (one of them must hold): `None` means always evaluate.
pub fn for_rule(rule: &RawRule, policy: &RawPolicy) -> Option<Vec<Atom>> {
    let when = rule.when.as_ref()?;
    condition(&when.value, policy, 0)
}

fn condition(c: &RawCondition, p: &RawPolicy, depth: usize) -> Option<Vec<Atom>> {
    if depth > 16 {
        return None;
    }
    if let Some(all) = &c.all {
        // Any member's needles will do: take the most selective (fewest, then longest).
        return all
            .iter()
            .filter_map(|m| condition(&m.value, p, depth + 1))
            .min_by_key(|n| {
                (
                    n.len(),
                    usize::MAX - n.iter().map(Atom::weight).min().unwrap_or(0),
                )
            });
    }
    if let Some(any) = &c.any {
        if any.is_empty() {
            return None;
        }
        let mut out = vec![];
        for m in any {
            out.extend(condition(&m.value, p, depth + 1)?);
        }
        return finish(out);
    }
    if c.not.is_some() {
        return None;
    }
    if let Some(r) = &c.reference {
        let named = p.conditions.get(&r.value)?;
        return condition(&named.value, p, depth + 1);
    }
    // `commands` with a program list: the programs, checked on the parsed command.
    if let (Some(field), Some(test)) = (&c.commands, &c.command) {
        let programs = test.value.program.as_ref()?;
        let names = expand(programs, p)?;
        let atoms: Vec<Atom> = names
            .into_iter()
            .map(|name| Atom::Program {
                field: field.value.clone(),
                name,
            })
            .collect();
        return finish(atoms);
    }
    // Only plain event fields, unnormalised.
    if c.field.is_none() && c.jsonpath.is_none() {
        return None;
    }
    use crate::policy::syntax::Normalization;
    // Case folding may turn non-ASCII text into ASCII letters: no needles then.
    // Dash and whitespace folding only matter to needles holding dashes or spaces.
    if c.normalize
        .iter()
        .any(|n| n.value == Normalization::Casefold)
    {
        return None;
    }
    let folds_dashes = c.normalize.iter().any(|n| n.value == Normalization::Dashes);
    let folds_space = c
        .normalize
        .iter()
        .any(|n| n.value == Normalization::Whitespace);
    let plain = |v: Option<Vec<String>>| {
        v.filter(|n| {
            n.iter().all(|s| {
                !(folds_dashes && s.contains('-') || folds_space && s.contains(char::is_whitespace))
            })
        })
    };
    plain(test_needles(c, p)).map(|v| v.into_iter().map(Atom::Text).collect())
}

fn test_needles(c: &RawCondition, p: &RawPolicy) -> Option<Vec<String>> {
    if let Some(list) = &c.matches {
        let mut out = vec![];
        for pat in expand(list, p)? {
            out.extend(regex_needles(&pat)?);
        }
        return finish(out);
    }
    if let Some(list) = &c.matches_all {
        return expand(list, p)?
            .iter()
            .filter_map(|pat| regex_needles(pat))
            .min_by_key(|n| n.len());
    }
    if let Some(v) = &c.equals {
        return v
            .value
            .as_str()
            .and_then(|s| literal(&s.to_ascii_lowercase()))
            .map(|s| vec![s]);
    }
    if let Some(list) = &c.one_of {
        let mut out = vec![];
        for s in expand(list, p)? {
            out.push(literal(&s.to_ascii_lowercase())?);
        }
        return finish(out);
    }
    if let Some(s) = &c.contains {
        return literal(&s.value.to_ascii_lowercase()).map(|s| vec![s]);
    }
    None
}

/// A pattern list with `{ list = ".." }` items expanded.
fn expand(list: &Sp<Vec<Sp<PatternItem>>>, p: &RawPolicy) -> Option<Vec<String>> {
    let mut out = vec![];
    for item in &list.value {
        match &item.value {
            PatternItem::Literal(s) => out.push(s.clone()),
            PatternItem::List { list } => {
                out.extend(p.lists.get(list)?.value.iter().map(|s| s.value.clone()))
            }
        }
    }
    Some(out)
}

/// Substrings one of which every match of the regex contains, compared
/// ASCII-case-insensitively (needles are lowercased, the event is ASCII-lowercased).
fn regex_needles(pattern: &str) -> Option<Vec<String>> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    let req = required(&hir)?;
    let out: Option<Vec<String>> = req.into_iter().map(|s| literal(&s)).collect();
    out.and_then(finish)
}

/// What every match of `h` contains: one of these strings (lowercase ASCII
/// letters stand for either case). `None`: nothing is known.
fn required(h: &regex_syntax::hir::Hir) -> Option<Vec<String>> {
    use regex_syntax::hir::HirKind;
    match h.kind() {
        HirKind::Literal(l) => std::str::from_utf8(&l.0)
            .ok()
            .map(|s| vec![s.to_ascii_lowercase()]),
        HirKind::Class(_) => single_char(h).map(|c| vec![c.to_string()]),
        HirKind::Capture(c) => required(&c.sub),
        HirKind::Repetition(r) if r.min >= 1 => required(&r.sub),
        HirKind::Alternation(branches) => {
            let mut out = vec![];
            for b in branches {
                out.extend(required(b)?);
            }
            Some(out)
        }
        HirKind::Concat(items) => {
            // Candidates: each maximal run of single-string items (zero-width
            // assertions are transparent), and each item's own requirement.
            let mut best: Option<Vec<String>> = None;
            let mut consider = |cand: Vec<String>| {
                let score = |v: &Vec<String>| {
                    (
                        v.iter().map(|s| s.len()).min().unwrap_or(0),
                        usize::MAX - v.len(),
                    )
                };
                if best.as_ref().is_none_or(|b| score(&cand) > score(b)) {
                    best = Some(cand);
                }
            };
            let mut run = String::new();
            for it in items {
                match single_string(it) {
                    Some(s) => run.push_str(&s),
                    None if zero_width(it) => {}
                    None => {
                        if !run.is_empty() {
                            consider(vec![std::mem::take(&mut run)]);
                        }
                        if let Some(r) = required(it) {
                            consider(r);
                        }
                    }
                }
            }
            if !run.is_empty() {
                consider(vec![run]);
            }
            best
        }
        _ => None,
    }
}

/// The text of a node that always matches exactly one string (lowercased).
fn single_string(h: &regex_syntax::hir::Hir) -> Option<String> {
    use regex_syntax::hir::HirKind;
    match h.kind() {
        HirKind::Literal(l) => std::str::from_utf8(&l.0)
            .ok()
            .map(|s| s.to_ascii_lowercase()),
        HirKind::Class(_) => single_char(h).map(String::from),
        HirKind::Capture(c) => single_string(&c.sub),
        HirKind::Concat(items) => {
            let mut s = String::new();
            for it in items {
                if zero_width(it) {
                    continue;
                }
                s.push_str(&single_string(it)?);
            }
            Some(s)
        }
        _ => None,
    }
}

/// A class that is one character, or exactly one ASCII letter in both cases
/// (`[Kk]` yes; `(?i)k`, which also holds the Kelvin sign, no).
fn single_char(h: &regex_syntax::hir::Hir) -> Option<char> {
    use regex_syntax::hir::{Class, HirKind};
    let HirKind::Class(class) = h.kind() else {
        return None;
    };
    let chars: Vec<char> = match class {
        Class::Unicode(u) => {
            let mut v = vec![];
            for r in u.iter() {
                if (r.end() as u32) - (r.start() as u32) > 2 {
                    return None;
                }
                v.extend(r.start()..=r.end());
            }
            v
        }
        Class::Bytes(b) => {
            let mut v = vec![];
            for r in b.iter() {
                if r.end() - r.start() > 2 || r.end() > 0x7f {
                    return None;
                }
                v.extend((r.start()..=r.end()).map(char::from));
            }
            v
        }
    };
    match chars.as_slice() {
        [c] => Some(c.to_ascii_lowercase()),
        [a, b]
            if a.is_ascii_alphabetic() && a.to_ascii_lowercase() == *b
                || b.is_ascii_alphabetic() && b.to_ascii_lowercase() == *a =>
        {
            Some(a.to_ascii_lowercase())
        }
        _ => None,
    }
}

fn zero_width(h: &regex_syntax::hir::Hir) -> bool {
    matches!(
        h.kind(),
        regex_syntax::hir::HirKind::Look(_) | regex_syntax::hir::HirKind::Empty
    )
}

/// A literal usable as a needle: long enough, and made only of characters that
/// JSON writes as they are (no control characters, quotes, backslashes or `/`,
/// which some encoders escape).
fn literal(s: &str) -> Option<String> {
    let ok = s.len() >= MIN_LEN
        && s.chars()
            .all(|c| !c.is_control() && !matches!(c, '"' | '\\' | '/'));
    ok.then(|| s.to_string())
}

fn finish<T: Ord>(mut v: Vec<T>) -> Option<Vec<T>> {
    v.sort();
    v.dedup();
    (!v.is_empty() && v.len() <= MAX_ALTERNATIVES).then_some(v)
}

/// Is it safe to judge this raw event by needles at all?
pub fn prefilter_applies(raw: &[u8]) -> bool {
    memchr::memmem::find(raw, b"\\u").is_none() && memchr::memmem::find(raw, b"\\/").is_none()
}

/// What a rule's atoms are checked against: the event, ASCII-lowercased, and the
/// programs of each command field (parsed on demand, once per field).
pub struct Haystack<'e> {
    lowered: Vec<u8>,
    use_text: bool,
    event: &'e serde_json::Value,
    programs: std::collections::HashMap<String, Option<Vec<String>>>,
}

impl<'e> Haystack<'e> {
    /// `use_text`: whether text atoms may be judged (see `prefilter_applies`).
    pub fn new(raw: &[u8], use_text: bool, event: &'e serde_json::Value) -> Self {
        Haystack {
            lowered: if use_text {
                raw.to_ascii_lowercase()
            } else {
                vec![]
            },
            use_text,
            event,
            programs: Default::default(),
        }
    }

    /// Can one of the atoms hold? (Unknown means yes.)
    pub fn any(&mut self, atoms: &[Atom]) -> bool {
        atoms.iter().any(|a| match a {
            Atom::Text(n) => {
                !self.use_text || memchr::memmem::find(&self.lowered, n.as_bytes()).is_some()
            }
            Atom::Program { field, name } => {
                let event = self.event;
                let progs = self.programs.entry(field.clone()).or_insert_with(|| {
                    let path = crate::validate::model::FieldPath::parse(field).ok()?;
                    let text = path.get(event)?.as_str()?;
                    crate::shell::command::parse(text)
                        .ok()
                        .map(|cmds| cmds.into_iter().map(|c| c.program).collect())
                });
                match progs {
                    // A missing field runs nothing; an unparsable command may run anything.
                    Some(list) => list
                        .iter()
                        .any(|p| crate::shell::command::program_is(p, name)),
                    None => {
                        let path = crate::validate::model::FieldPath::parse(field).ok();
                        path.and_then(|p| p.get(event).map(|v| v.is_string()))
                            .unwrap_or(false)
                    }
                }
            }
        })
    }
}
