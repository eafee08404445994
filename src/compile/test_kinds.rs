//! Every test kind, defined once: what a text must contain for the test to
//! pass (the prefilter's need), what the paths a command names must hold
//! (the need of a `paths … from_command` test), whether the texts pass
//! (evaluation) and how a trace shows the test.
//!
//! `matches`, `matches_all`, `matches_none`, `glob`, `equals`, `one_of`,
//! `contains` and the four comparisons apply to the texts of a field, a
//! JSONPath result, a fact or a path. Each has one section below: what it
//! needs, whether it passes, how a trace shows it. [`needs`], [`path_needs`],
//! [`passes`] and [`describe`] only dispatch, with exhaustive matches, so a
//! new test does not compile until it says all four. The prefilter
//! ([`super::reach`]) keeps a rule only when one of the literals [`needs`]
//! gives occurs in the event's text, so a literal must occur in every text
//! list [`passes`] accepts; the unit test below checks that for every kind on
//! passing and failing texts. The tests that are not about texts (`exists`,
//! `command`, `class`) are decided by their selector's reader in
//! `eval::values` and require nothing known here; their sections say how a
//! trace shows them. The key, and how a test's value is read and validated,
//! are its row in `validate::kinds`.

use std::collections::BTreeMap;

use regex_automata::PatternID;
use serde_json::Value;

use super::literals;
use super::patterns::{self, PatternError};
use crate::policy::syntax::{normalized, Normalization};
use crate::shell::reach::Classes;
use crate::validate::model::{ClassTest, CmpOp, CommandTest, Globs, Op, RegexMode, Regexes};

/// The literals one of which a text passing `op` contains, lowercase; `None`
/// when nothing is known (the rule is always a candidate). `normalize` is the
/// test's normalisation, which can turn other characters into a literal's.
pub fn needs(op: &Op, normalize: &[Normalization]) -> Option<Vec<String>> {
    let lits = match op {
        Op::Regex { mode, regexes } => regex_needs(*mode, regexes),
        Op::Glob(globs) => glob_needs(globs),
        Op::Equals(want) => equals_needs(want),
        Op::OneOf(list) => one_of_needs(list),
        Op::Contains(needle) => contains_needs(needle),
        Op::Compare(..) => compare_needs(),
        Op::Exists(_) | Op::Command(_) | Op::Class(_) => None,
    }?;
    let mut folds_dashes = false;
    let mut folds_space = false;
    for n in normalize {
        match n {
            Normalization::Casefold => return None,
            Normalization::Dashes => folds_dashes = true,
            Normalization::Whitespace => folds_space = true,
        }
    }
    let unsafe_literal = |l: &String| {
        literals::needle(l).is_none()
            || folds_dashes && l.contains('-')
            || folds_space && l.contains(char::is_whitespace)
    };
    (!lits.iter().any(unsafe_literal)).then_some(lits)
}

/// Do the texts of one value pass `op`? `texts` are already normalised;
/// `value` is the value they come from (for `equals` on numbers and `contains`
/// on arrays). Named regex groups of a `matches` that passes are captured.
pub fn passes(
    op: &Op,
    normalize: &[Normalization],
    texts: &[String],
    value: &Value,
    captures: &mut BTreeMap<String, String>,
) -> Result<bool, PatternError> {
    Ok(match op {
        Op::Regex { mode, regexes } => regex_passes(*mode, regexes, texts, captures)?,
        Op::Glob(globs) => glob_passes(globs, texts)?,
        Op::Equals(want) => equals_passes(want, texts, value),
        Op::OneOf(list) => one_of_passes(list, texts),
        Op::Contains(needle) => contains_passes(needle, normalize, texts, value),
        Op::Compare(op, x) => compare_passes(*op, *x, value),
        // Decided by the selector's reader (`eval::values::apply`).
        Op::Exists(_) | Op::Command(_) | Op::Class(_) => false,
    })
}

/// What the paths a command names must hold for a `paths … from_command`
/// test to pass.
pub enum PathNeed {
    /// Nothing known: the rule is always a candidate.
    Nothing,
    /// Some path (no path, no match: see `eval::values::apply`).
    SomePath,
    /// Some path with one of these classes (as the test judges it: with
    /// [`Class::PrivateKey`](crate::shell::reach::Class::PrivateKey) when
    /// its content says so).
    Classes(Classes),
    /// Some path with one of these literals (in one of its texts), each
    /// `\0`-prefixed when it must start the text.
    OneOf(Vec<String>),
}

/// What the paths a command names must hold for `op` to pass on them.
pub fn path_needs(op: &Op) -> PathNeed {
    match op {
        Op::Glob(globs) => glob_path_needs(globs),
        Op::Class(c) => class_path_needs(c),
        Op::Regex { .. }
        | Op::Equals(_)
        | Op::OneOf(_)
        | Op::Contains(_)
        | Op::Exists(_)
        | Op::Compare(..)
        | Op::Command(_) => PathNeed::Nothing,
    }
}

/// How a trace shows the test (`matches ["rm\\s"]`, `exists = true`), under
/// its key.
pub fn describe(op: &Op) -> String {
    let key = op.kind().key();
    let what = match op {
        Op::Regex { regexes, .. } => regex_shows(regexes),
        Op::Glob(globs) => glob_shows(globs),
        Op::Equals(want) => equals_shows(want),
        Op::OneOf(list) => one_of_shows(list),
        Op::Contains(needle) => contains_shows(needle),
        Op::Compare(_, x) => compare_shows(*x),
        Op::Exists(b) => exists_shows(*b),
        Op::Class(c) => class_shows(c),
        Op::Command(ct) => command_shows(ct),
    };
    format!("{key} {what}")
}

// --- matches, matches_all, matches_none -------------------------------------

/// Any: one of some regex's literals (every regex must have some). All: the
/// shortest list of one regex (every regex must match). None: nothing.
fn regex_needs(mode: RegexMode, regexes: &Regexes) -> Option<Vec<String>> {
    match mode {
        RegexMode::Any => {
            let mut out = vec![];
            for r in patterns::regex_needles(regexes) {
                out.extend(r.as_ref()?.iter().cloned());
            }
            Some(out)
        }
        RegexMode::All => patterns::regex_needles(regexes)
            .iter()
            .flatten()
            .min_by_key(|l| l.len())
            .cloned(),
        RegexMode::None => None,
    }
}

fn regex_passes(
    mode: RegexMode,
    regexes: &Regexes,
    texts: &[String],
    captures: &mut BTreeMap<String, String>,
) -> Result<bool, PatternError> {
    if !patterns::regexes_may_match(regexes, texts) {
        return Ok(mode == RegexMode::None);
    }
    let c = patterns::regex_set(regexes)?;
    Ok(match mode {
        RegexMode::Any => {
            for text in texts {
                let m = c.matching(text);
                if m.is_empty() {
                    continue;
                }
                for (i, re) in &c.capturing {
                    if !PatternID::new(*i).is_ok_and(|p| m.contains(p)) {
                        continue;
                    }
                    if let Some(caps) = re.captures(text) {
                        for name in re.capture_names().flatten() {
                            if let Some(v) = caps.name(name) {
                                captures
                                    .entry(name.to_string())
                                    .or_insert_with(|| v.as_str().to_string());
                            }
                        }
                    }
                }
                return Ok(true);
            }
            false
        }
        RegexMode::All => {
            let mut seen = vec![false; c.len()];
            for text in texts {
                for i in c.matching(text).iter() {
                    seen[i.as_usize()] = true;
                }
            }
            !texts.is_empty() && seen.iter().all(|b| *b)
        }
        RegexMode::None => texts.iter().all(|text| !c.is_match(text)),
    })
}

fn regex_shows(regexes: &Regexes) -> String {
    format!("{:?}", regexes.sources)
}

// --- glob -------------------------------------------------------------------

/// Nothing, for a field's texts (a path selector's globs have their own need,
/// `patterns::glob_atoms`, judged where the path lands).
fn glob_needs(_: &Globs) -> Option<Vec<String>> {
    None
}

fn glob_passes(globs: &Globs, texts: &[String]) -> Result<bool, PatternError> {
    patterns::globs_match(globs, texts)
}

fn glob_shows(globs: &Globs) -> String {
    format!("{:?}", globs.sources)
}

/// One of the list's required literals in a path's texts; without them,
/// some path.
fn glob_path_needs(globs: &Globs) -> PathNeed {
    match patterns::glob_atoms(globs) {
        Some(lits) => PathNeed::OneOf(lits),
        None => PathNeed::SomePath,
    }
}

// --- equals -----------------------------------------------------------------

/// A string: itself. Other values are not texts the prefilter can look for.
fn equals_needs(want: &Value) -> Option<Vec<String>> {
    want.as_str().and_then(literals::needle).map(|l| vec![l])
}

fn equals_passes(want: &Value, texts: &[String], value: &Value) -> bool {
    let same = match (value, want) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => value == want,
    };
    same || texts.len() == 1 && want.as_str() == Some(texts[0].as_str())
}

fn equals_shows(want: &Value) -> String {
    want.to_string()
}

// --- one_of -----------------------------------------------------------------

/// Each listed string; nothing when one of them is not a string.
fn one_of_needs(list: &[Value]) -> Option<Vec<String>> {
    list.iter()
        .map(|v| v.as_str().and_then(literals::needle))
        .collect()
}

fn one_of_passes(list: &[Value], texts: &[String]) -> bool {
    texts
        .iter()
        .any(|s| list.iter().any(|w| w.as_str() == Some(s.as_str())))
}

fn one_of_shows(list: &[Value]) -> String {
    Value::Array(list.to_vec()).to_string()
}

// --- contains ---------------------------------------------------------------

/// The substring (or the array element, which is one of the value's texts).
fn contains_needs(needle: &str) -> Option<Vec<String>> {
    literals::needle(needle).map(|l| vec![l])
}

fn contains_passes(
    needle: &str,
    normalize: &[Normalization],
    texts: &[String],
    value: &Value,
) -> bool {
    match value {
        Value::Array(a) => a.iter().any(|x| x.as_str() == Some(needle)),
        _ => {
            let n = normalized(needle, normalize);
            texts.iter().any(|s| s.contains(&n))
        }
    }
}

fn contains_shows(needle: &str) -> String {
    format!("{needle:?}")
}

// --- gt, ge, lt, le ---------------------------------------------------------

/// Nothing: a number is not a literal.
fn compare_needs() -> Option<Vec<String>> {
    None
}

fn compare_passes(op: CmpOp, x: f64, value: &Value) -> bool {
    let v = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    v.is_some_and(|v| match op {
        CmpOp::Gt => v > x,
        CmpOp::Ge => v >= x,
        CmpOp::Lt => v < x,
        CmpOp::Le => v <= x,
    })
}

fn compare_shows(x: f64) -> String {
    x.to_string()
}

// --- exists (decided by the selector's reader) -----------------------------

fn exists_shows(b: bool) -> String {
    format!("= {b}")
}

// --- class (decided by the `paths` selector's reader) -----------------------

/// Some path with a class the test lists plainly (a path with none of
/// them fails it, whatever its `!` classes); with none listed, some path.
fn class_path_needs(c: &ClassTest) -> PathNeed {
    match c.anywhere {
        true => PathNeed::SomePath,
        false => PathNeed::Classes(c.any),
    }
}

fn class_shows(c: &ClassTest) -> String {
    let mut names: Vec<String> = c.any.names().iter().map(|n| n.to_string()).collect();
    names.extend(c.none.names().iter().map(|n| format!("!{n}")));
    format!("{names:?}")
}

// --- command (decided by the `commands` selector's reader) ------------------

fn command_shows(ct: &CommandTest) -> String {
    let mut parts = vec![];
    if !ct.program.is_empty() {
        parts.push(format!("program {:?}", ct.program));
    }
    if !ct.subcommand.is_empty() {
        parts.push(format!("subcommand {:?}", ct.subcommand));
    }
    if !ct.words.flags_all.is_empty() {
        parts.push(format!("flags_all {:?}", ct.words.flags_all));
    }
    if !ct.words.flags_any.is_empty() {
        parts.push(format!("flags_any {:?}", ct.words.flags_any));
    }
    if !ct.words.flags_none.is_empty() {
        parts.push(format!("flags_none {:?}", ct.words.flags_none));
    }
    if !ct.words.arg_in.is_empty() {
        parts.push(format!("arg_in {:?}", ct.words.arg_in));
    }
    if let Some(g) = &ct.target_glob {
        parts.push(format!("target_glob {:?}", g.sources));
    }
    if !ct.skip_options.is_empty() {
        parts.push(format!("skip_options ({} lines)", ct.skip_options.len()));
    }
    if let Some(r) = &ct.arg_matches {
        parts.push(format!("arg_matches {:?}", r.sources));
    }
    if let Some(c) = &ct.target_class {
        parts.push(format!("target_class {}", class_shows(c)));
    }
    if let Some(b) = ct.program_unknown {
        parts.push(format!("program_unknown = {b}"));
    }
    if !ct.code.is_empty() {
        let names: Vec<&str> = ct.code.iter().map(|k| k.as_str()).collect();
        parts.push(format!("code {names:?}"));
    }
    if ct.when.is_some() {
        parts.push("when {...}".into());
    }
    format!("{{ {} }}", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;

    use serde_json::json;

    use super::{needs, passes};
    use crate::policy::syntax::{normalized, Normalization};
    use crate::validate::model::{CmpOp, Globs, Op, RegexMode, Regexes};

    /// Every test kind, on texts that pass and texts that do not: whenever the
    /// texts pass, one literal [`needs`] gives occurs in the texts as the event
    /// spells them (before normalisation, in any ASCII case, as the prefilter
    /// searches), so the prefilter never leaves out a rule that would match.
    #[test]
    fn a_text_that_passes_contains_a_literal_the_test_needs() {
        let re = |mode, list: &[&str]| Op::Regex {
            mode,
            regexes: Arc::new(Regexes::new(list.iter().map(|s| s.to_string()).collect())),
        };
        let ops = [
            (
                "matches",
                re(RegexMode::Any, &[r"\brm\s+-rf\b", r"git\s+push"]),
            ),
            ("matches", re(RegexMode::Any, &[r"(?P<who>curl|wget)\s"])),
            ("matches_all", re(RegexMode::All, &[r"ssh", r"id_[a-z]+"])),
            ("matches_none", re(RegexMode::None, &[r"test"])),
            (
                "glob",
                Op::Glob(Arc::new(Globs::new(vec!["**/.env*".into()], false))),
            ),
            ("equals", Op::Equals(json!("Bash"))),
            ("equals", Op::Equals(json!(3))),
            ("one_of", Op::OneOf(vec![json!("Write"), json!("Edit")])),
            ("contains", Op::Contains("--force".into())),
            ("contains", Op::Contains("a  b".into())),
            ("gt", Op::Compare(CmpOp::Gt, 2.0)),
            ("le", Op::Compare(CmpOp::Le, 2.0)),
        ];
        let values = [
            json!("rm -rf build"),
            json!("RM -RF build"),
            json!("git  push origin"),
            json!("curl https://x"),
            json!("ssh -i ~/.ssh/id_rsa host"),
            json!("npm test"),
            json!("/p/.env.local"),
            json!("Bash"),
            json!("bash"),
            json!(3),
            json!(3.0),
            json!("1"),
            json!("Edit"),
            json!(["Write", "x"]),
            json!("git push \u{2013}\u{2013}force"),
            json!("git push --force"),
            json!("a \t b"),
            json!(null),
        ];
        let norms: [&[Normalization]; 4] = [
            &[],
            &[Normalization::Dashes],
            &[Normalization::Whitespace],
            &[Normalization::Casefold],
        ];
        let mut outcomes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        for (kind, op) in &ops {
            for norm in norms {
                let need = needs(op, norm);
                for value in &values {
                    let mut raw = vec![];
                    crate::validate::model::texts(value, &mut raw);
                    let texts: Vec<String> = raw.iter().map(|s| normalized(s, norm)).collect();
                    let ok = passes(op, norm, &texts, value, &mut BTreeMap::new())
                        .expect("patterns compile");
                    let seen = outcomes.entry(kind).or_default();
                    if ok {
                        seen.0 += 1;
                    } else {
                        seen.1 += 1;
                    }
                    let Some(lits) = &need else { continue };
                    if ok {
                        assert!(
                            lits.iter()
                                .any(|l| raw.iter().any(|t| t.to_ascii_lowercase().contains(l))),
                            "{kind} {norm:?} passes {value} without any of {lits:?}"
                        );
                    }
                }
            }
        }
        // Not vacuous: every kind both passed and failed somewhere.
        for (kind, (pass, fail)) in outcomes {
            assert!(pass > 0 && fail > 0, "{kind}: {pass} passes, {fail} fails");
        }
        // And the literals are the ones the prefilter can use.
        assert_eq!(needs(&ops[0].1, &[]).map(|l| l.len()), Some(2));
        assert_eq!(needs(&ops[5].1, &[]), Some(vec!["bash".to_string()]));
        assert_eq!(needs(&ops[5].1, &[Normalization::Casefold]), None);
        assert_eq!(needs(&ops[8].1, &[Normalization::Dashes]), None);
        assert_eq!(needs(&ops[9].1, &[Normalization::Whitespace]), None);
        assert_eq!(needs(&ops[6].1, &[]), None);
    }
}
