//! TOML text to [`RawPolicy`], with syntax and schema errors pointing into the text.
//!
//! [`parse`] is the fast path `run` takes: serde reads the text directly. When it
//! fails, [`recover::parse_all`](super::recover::parse_all) reads the file again
//! to report the problem in plain words; `check` always goes through `parse_all`,
//! which reports every problem of the file at once.

use std::sync::Arc;

use super::recover;
use super::syntax::RawPolicy;
use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::source::PolicySource;

/// Parse one policy. On failure, the first problem (in file order), in plain words.
pub fn parse(source: &Arc<PolicySource>) -> Result<RawPolicy, Diagnostic> {
    match toml::from_str::<RawPolicy>(&source.text) {
        Ok(raw) => Ok(raw),
        Err(e) => {
            let all = recover::parse_all(source);
            Err(all
                .diagnostics
                .into_iter()
                .next()
                .unwrap_or_else(|| serde_diagnostic(source, &e)))
        }
    }
}

/// A diagnostic for an error serde reported (used when the schema walk in
/// `recover` did not catch the problem first).
pub fn serde_diagnostic(source: &Arc<PolicySource>, e: &toml::de::Error) -> Diagnostic {
    let message = e.message().trim().to_string();
    let span = e.span().unwrap_or(0..0);
    // Syntax errors come from the TOML parser itself; everything it could parse but
    // serde rejected is a schema error.
    let is_schema = [
        "unknown field",
        "missing field",
        "invalid type",
        "unknown variant",
        "data did not match",
        "invalid value",
        "invalid length",
    ]
    .iter()
    .any(|p| message.starts_with(p));
    let code = if is_schema {
        Code::Schema
    } else {
        Code::TomlSyntax
    };
    let first = message.lines().next().unwrap_or(&message);
    let mut d = Diagnostic::new(code, plain_words(first)).at(source, span);
    if let Some(help) = schema_help(&message) {
        d = d.help(help);
    } else if code == Code::TomlSyntax {
        d = d.help(
            "regexes are easiest in literal strings: '\\bfoo\\b' (single quotes, no escapes)",
        );
    }
    d
}

/// serde's type names in the words a policy author uses.
fn plain_words(message: &str) -> String {
    let mut m = message.to_string();
    for (rust, plain) in [
        ("expected i64", "expected a whole number"),
        ("expected u64", "expected a whole number of 0 or more"),
        ("expected usize", "expected a whole number of 0 or more"),
        ("expected f64", "expected a number"),
        ("expected a string", "expected text in quotes"),
        ("expected a boolean", "expected `true` or `false`"),
        ("expected a sequence", "expected a list"),
        ("expected a map", "expected a table"),
        ("invalid type: string", "wrong type: the text"),
        ("invalid type: integer", "wrong type: the number"),
        ("invalid type: floating point", "wrong type: the number"),
        ("invalid type: boolean", "wrong type:"),
        ("invalid type: sequence", "wrong type: a list"),
        ("invalid type: map", "wrong type: a table"),
        ("unknown field", "unknown key"),
        ("missing field", "missing key"),
        ("unknown variant", "unknown value"),
    ] {
        m = m.replace(rust, plain);
    }
    m
}

/// Turn serde's "unknown field `x`, expected one of `a`, `b`" into a did-you-mean.
fn schema_help(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown variant `"))?;
    let (word, expected) = rest.split_once('`')?;
    let allowed: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    if allowed.is_empty() {
        return None;
    }
    Some(match did_you_mean(word, allowed.iter().copied()) {
        Some(s) => format!("did you mean `{s}`? allowed here: {}", allowed.join(", ")),
        None => format!("allowed here: {}", allowed.join(", ")),
    })
}
