//! What of the event goes into the log: long strings cut, fields a policy marks
//! secret (`[log] redact`) replaced, and text that looks like a credential
//! (built-in token patterns, plus `[log] redact_values`) replaced wherever it is.

use std::sync::OnceLock;

use regex::Regex;
use serde_json::{Map, Value};

use crate::validate::model::{FieldPath, Segment};

/// The replacement text.
pub const REDACTED: &str = "[redacted]";

/// Lowercase needles: a string holding none of them cannot match a built-in
/// pattern, so most strings are never run through the regexes.
const NEEDLES: &[&str] = &[
    "akia",
    "asia",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "github_pat_",
    "sk-",
    "xox",
    "private key",
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "api-key",
    "access_key",
    "authorization",
    "://",
];

/// Built-in credential patterns, with what replaces a match.
fn builtin() -> &'static [(Regex, &'static str)] {
    static RE: OnceLock<Vec<(Regex, &'static str)>> = OnceLock::new();
    RE.get_or_init(|| {
        let pats: &[(&str, &str)] = &[
            (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", REDACTED),
            (r"\bgh[pousr]_[A-Za-z0-9]{30,}", REDACTED),
            (r"\bgithub_pat_[A-Za-z0-9_]{30,}", REDACTED),
            (r"\bsk-[A-Za-z0-9_\-]{20,}", REDACTED),
            (r"\bxox[abprs]-[A-Za-z0-9\-]{10,}", REDACTED),
            (
                r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
                REDACTED,
            ),
            (
                r"(?i)(\b(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)[A-Za-z0-9_]*\b\s*[:=]\s*)(?:'[^']*'|\x22[^\x22]*\x22|[^\s'\x22&;]+)",
                "${1}[redacted]",
            ),
            (r"(?i)(authorization:\s*(?:bearer|basic|token)\s+)[^\s'\x22]+", "${1}[redacted]"),
            (r"(://[^/\s:@]+:)[^@\s/]+@", "${1}[redacted]@"),
        ];
        pats.iter()
            .filter_map(|(p, with)| Regex::new(p).ok().map(|r| (r, *with)))
            .collect()
    })
}

/// How to copy an event into the log.
pub struct Redactor {
    fields: Vec<FieldPath>,
    extra: Vec<Regex>,
    max_chars: usize,
}

impl Redactor {
    /// From the resolved settings; a bad extra regex is left out (and reported by
    /// `check`).
    pub fn new(fields: &[FieldPath], extra: &[String], max_chars: usize) -> Redactor {
        Redactor {
            fields: fields.to_vec(),
            extra: extra.iter().filter_map(|p| Regex::new(p).ok()).collect(),
            max_chars,
        }
    }

    /// The event as logged.
    pub fn event(&self, event: &Value) -> Value {
        let mut v = self.copy(event);
        for f in &self.fields {
            mark(&mut v, &f.0);
        }
        v
    }

    /// A string as logged (cut, credentials replaced).
    pub fn text(&self, s: &str) -> String {
        let cut = cut(s, self.max_chars);
        self.scrub(cut)
    }

    fn copy(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.copy(x)).collect()),
            Value::Object(m) => {
                let mut out = Map::with_capacity(m.len());
                for (k, x) in m {
                    out.insert(k.clone(), self.copy(x));
                }
                Value::Object(out)
            }
            other => other.clone(),
        }
    }

    fn scrub(&self, s: String) -> String {
        let mut s = s;
        if looks_sensitive(&s) {
            for (re, with) in builtin() {
                if let std::borrow::Cow::Owned(o) = re.replace_all(&s, *with) {
                    s = o;
                }
            }
        }
        for re in &self.extra {
            if let std::borrow::Cow::Owned(o) = re.replace_all(&s, REDACTED) {
                s = o;
            }
        }
        s
    }
}

fn looks_sensitive(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    NEEDLES.iter().any(|n| lower.contains(n))
}

/// The first `max` characters, with a note of how much was cut.
fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        None => s.to_string(),
        Some((i, _)) => format!("{}… [{} more bytes cut]", &s[..i], s.len() - i),
    }
}

/// Replace the value(s) at `path` (`*`: any key or element) with `[redacted]`.
fn mark(v: &mut Value, path: &[Segment]) {
    let Some((first, rest)) = path.split_first() else {
        *v = Value::String(REDACTED.to_string());
        return;
    };
    match (first, v) {
        (Segment::Key(k), Value::Object(m)) if k == "*" => {
            for x in m.values_mut() {
                mark(x, rest);
            }
        }
        (Segment::Key(k), Value::Array(a)) if k == "*" => {
            for x in a.iter_mut() {
                mark(x, rest);
            }
        }
        (Segment::Key(k), Value::Object(m)) => {
            if let Some(x) = m.get_mut(k) {
                mark(x, rest);
            }
        }
        (Segment::Index(i), Value::Array(a)) => {
            if let Some(x) = a.get_mut(*i) {
                mark(x, rest);
            }
        }
        (Segment::FromEnd(k), Value::Array(a)) => {
            let n = a.len();
            if let Some(x) = n.checked_sub(*k).and_then(|i| a.get_mut(i)) {
                mark(x, rest);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn r(fields: &[&str], extra: &[&str]) -> Redactor {
        let f: Vec<FieldPath> = fields
            .iter()
            .map(|p| FieldPath::parse(p).unwrap())
            .collect();
        let e: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
        Redactor::new(&f, &e, 40)
    }

    #[test]
    fn marked_fields_and_wildcards_are_redacted() {
        let ev = json!({"tool_input": {"content": "hunter2", "env": {"A": "1", "B": "2"},
            "edits": [{"new_string": "x", "file_path": "/a"}, {"new_string": "y"}]}});
        let out = r(
            &[
                "tool_input.content",
                "tool_input.env.*",
                "tool_input.edits.*.new_string",
            ],
            &[],
        )
        .event(&ev);
        assert_eq!(
            out,
            json!({"tool_input": {"content": "[redacted]", "env": {"A": "[redacted]", "B": "[redacted]"},
                "edits": [{"new_string": "[redacted]", "file_path": "/a"}, {"new_string": "[redacted]"}]}})
        );
    }

    #[test]
    fn credential_looking_text_is_redacted_wherever_it_is() {
        let red = Redactor::new(&[], &[], 10_000);
        let cases = [
            ("export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
            ("curl -H 'Authorization: Bearer abc.def.ghi' x", "abc.def.ghi"),
            ("git clone https://bob:s3cr3tpw@github.com/x/y", "s3cr3tpw"),
            ("mysql --password=Tr0ub4dor x", "Tr0ub4dor"),
            ("API_KEY=\"zzz yyy\" ./deploy", "zzz yyy"),
            ("gh auth login --with-token ghp_0123456789abcdefghijABCDEFGHIJ012345", "ghp_0123456789"),
            ("ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "abcdefghijklmnop"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----", "b3BlbnNza"),
        ];
        for (text, secret) in cases {
            let out = red.text(text);
            assert!(!out.contains(secret), "{text:?} -> {out:?}");
            assert!(out.contains(REDACTED), "{out}");
        }
        assert_eq!(red.text("rm -rf build/"), "rm -rf build/");
        assert_eq!(
            red.text("cat tokens.md"),
            "cat tokens.md",
            "a word alone is not a secret"
        );
    }

    #[test]
    fn long_values_are_cut_and_extra_patterns_apply() {
        let out = r(&[], &[r"\bemployee-\d+\b"])
            .event(&json!({"a": "x".repeat(100), "b": "see employee-4411 now"}));
        assert_eq!(
            out["a"],
            json!(format!("{}… [60 more bytes cut]", "x".repeat(40)))
        );
        assert_eq!(out["b"], json!("see [redacted] now"));
    }
}
