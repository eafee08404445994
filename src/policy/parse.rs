//! TOML text to [`RawPolicy`], with syntax and schema errors pointing into the text.

use std::sync::Arc;

use super::syntax::RawPolicy;
use crate::diagnostics::{did_you_mean, Code, Diagnostic};
use crate::source::PolicySource;

/// Parse one policy. TOML syntax errors and schema errors (unknown keys, wrong
/// types) come back as one diagnostic pointing at the offending text.
pub fn parse(source: &Arc<PolicySource>) -> Result<RawPolicy, Diagnostic> {
    toml::from_str::<RawPolicy>(&source.text).map_err(|e| diagnostic_for(source, &e))
}

fn diagnostic_for(source: &Arc<PolicySource>, e: &toml::de::Error) -> Diagnostic {
    let message = e.message().trim().to_string();
    let span = e.span().unwrap_or(0..0);
    // Syntax errors come from the TOML parser itself; everything it could parse but
    // serde rejected is a schema error.
    let is_schema = message.starts_with("unknown field")
        || message.starts_with("missing field")
        || message.starts_with("invalid type")
        || message.starts_with("unknown variant")
        || message.starts_with("data did not match")
        || message.starts_with("invalid value")
        || message.starts_with("invalid length");
    let code = if is_schema {
        Code::Schema
    } else {
        Code::TomlSyntax
    };
    let mut d = Diagnostic::new(code, first_line(&message).to_string()).at(source, span);
    if let Some(help) = schema_help(&message) {
        d = d.help(help);
    } else if code == Code::TomlSyntax {
        d = d.help(
            "regexes are easiest in literal strings: '\\bfoo\\b' (single quotes, no escapes)",
        );
    }
    d
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or(s)
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
