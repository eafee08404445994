//! Environment variables whose *value* a command prints or sends.
//!
//! A variable the command line never assigns is the environment's: its value
//! is only known when the command runs, and may be a token. Where that value
//! reaches the output or the network, the analysis reports the command it
//! amounts to, `printenv NAME`, next to the command that does it, so a policy
//! answers one question for every spelling (and PowerShell's `$env:NAME`,
//! which reports the same command): is `NAME` a secret's name, and does what
//! prints it reach the conversation? Which names mark a credential is the
//! policy's data, not this module's.
//!
//! The places a value reaches the output or the network:
//! * the arguments of a program that prints them (`echo`, `printf`);
//! * the arguments of a program that sends them off the machine (`curl`,
//!   `wget`, `nc`, …), each with the word it is part of (and the option it is
//!   the value of), so a policy can tell a credential the request logs in with
//!   (`-H "Authorization: Bearer $T"`, `-u user:$T`) from data it uploads
//!   (`-d "$T"`);
//! * a here-string or here-document, which is the standard input of the
//!   command it feeds (`cat <<< "$T"` prints it, `docker login
//!   --password-stdin <<< "$T"` logs in with it).
//!
//! Expansions that do not give the value are not reported: its length
//! (`${#T}`), a test of whether it is set (`${T:+set}`, `[ -n "$T" ]`).
//! Programs that take the value as an argument and use it (`mysql -p"$PW"`,
//! `sshpass -p "$PW"`, `git clone https://x:$T@host/…`) are not reported
//! either: they do not print it.
//!
//! Cost: a string comparison of the program name per command; the values
//! are only read for the printers and senders, and only when a `$` is there.

use super::super::value::{Piece, Value};

/// Programs that print their arguments.
const PRINTERS: &[&str] = &["echo", "printf", "print"];

/// Programs that send their arguments off the machine.
const SENDERS: &[&str] = &[
    "curl", "wget", "http", "https", "xh", "httpie", "nc", "ncat", "netcat", "socat", "telnet",
];

/// How a program treats the environment values in its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reach {
    /// It prints them (where its output goes decides who sees them).
    Printed,
    /// It sends them to another machine.
    Sent,
}

/// How `program` (lowercase) treats the values in its arguments, if it
/// prints or sends them.
#[must_use]
pub(super) fn reach_of(program: &str) -> Option<Reach> {
    if PRINTERS.contains(&program) {
        Some(Reach::Printed)
    } else if SENDERS.contains(&program) {
        Some(Reach::Sent)
    } else {
        None
    }
}

/// The environment variables whose value (or a part of it: `${T:0:8}`,
/// `${T#prefix}`) `v` holds, in order, each once: the analysis keeps such an
/// expansion as an unknown piece named `$NAME` or `${NAME…}`.
#[must_use]
pub(super) fn names_in(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in &v.0 {
        for p in &s.0 {
            if let Piece::Unknown(label) = p {
                if let Some(n) = name_of(label) {
                    if !out.iter().any(|o| o == n) {
                        out.push(n.to_string());
                    }
                }
            }
        }
    }
    out
}

/// Does `v` hold the value of a variable whose name is only known when it
/// runs (`${!name}` with `name` read from input): any variable, secrets
/// included, as a dump of the environment gives them.
#[must_use]
pub(super) fn any_variable_in(v: &Value) -> bool {
    v.0.iter().any(|s| {
        s.0.iter()
            .any(|p| matches!(p, Piece::Unknown(l) if l == "${!…}"))
    })
}

/// The variable an unknown piece's label names: `$NAME` or `${NAME…}`.
fn name_of(label: &str) -> Option<&str> {
    let rest = label.strip_prefix('$')?;
    let name = match rest.strip_prefix('{') {
        Some(r) => r.strip_suffix("…}")?,
        None => rest,
    };
    is_name(name).then_some(name)
}

/// A shell variable's name (not a positional or special parameter).
#[must_use]
pub(super) fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variables a here-document's text expands (`$NAME`, `${NAME}`,
/// `${NAME…}`), when its delimiter is unquoted; `known` says which the
/// command assigned (those are not the environment's).
#[must_use]
pub(super) fn names_in_text(text: &str, known: impl Fn(&str) -> bool) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            i += 2;
            continue;
        }
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let braced = bytes.get(start) == Some(&b'{');
        let from = if braced { start + 1 } else { start };
        let mut end = from;
        while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
            end += 1;
        }
        let name = &text[from..end];
        // `${#T}` and `${T:+x}` do not give the value.
        let gives_value =
            !braced || !text[end..].starts_with(":+") && !text[end..].starts_with('+');
        if is_name(name) && gives_value && !known(name) && !out.iter().any(|o| o == name) {
            out.push(name.to_string());
        }
        i = end.max(i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::value::Sym;

    #[test]
    fn names_come_from_unknown_expansions_only() {
        let mut s = Sym::text("token=");
        s.push(Piece::Unknown("$GITHUB_TOKEN".into()));
        s.push(Piece::Unknown("${NPM_TOKEN…}".into()));
        s.push(Piece::Unknown("$(…)".into()));
        s.push(Piece::Unknown("${…}".into()));
        s.push(Piece::Unknown("$1".into()));
        assert_eq!(names_in(&Value::one(s)), ["GITHUB_TOKEN", "NPM_TOKEN"]);
    }

    #[test]
    fn here_document_names_skip_lengths_tests_and_escapes() {
        let t = "a $A ${B} ${C:0:3} ${#D} ${E:+set} \\$F $A $$";
        assert_eq!(names_in_text(t, |n| n == "B"), ["A", "C"]);
    }
}
