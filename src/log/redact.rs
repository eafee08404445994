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

/// A built-in credential pattern: what replaces a match, and lowercase needles
/// one of which (and, where given, one of `also`) every match contains in an
/// ASCII text. Compiling all of them costs more than everything else `run`
/// does, so each is compiled only when its needles occur.
struct Pattern {
    regex: &'static str,
    with: &'static str,
    needles: &'static [&'static str],
    also: &'static [&'static str],
    /// Every match is a needle, more word characters, spaces, then `:` or `=`.
    assigned: bool,
}

const PATTERNS: &[Pattern] = &[
    Pattern {
        regex: r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        with: REDACTED,
        needles: &["akia", "asia"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"\bgh[pousr]_[A-Za-z0-9]{30,}",
        with: REDACTED,
        needles: &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"\bgithub_pat_[A-Za-z0-9_]{30,}",
        with: REDACTED,
        needles: &["github_pat_"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"\bsk-[A-Za-z0-9_\-]{20,}",
        with: REDACTED,
        needles: &["sk-"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"\bxox[abprs]-[A-Za-z0-9\-]{10,}",
        with: REDACTED,
        needles: &["xox"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"-----BEGIN [A-Z ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z ]*PRIVATE KEY-----|\z)",
        with: REDACTED,
        needles: &["private key-----"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"(?i)(\b(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|client[_-]?secret)[A-Za-z0-9_]*\b\s*[:=]\s*)(?:'[^']*'|\x22[^\x22]*\x22|[^\s'\x22&;]+)",
        with: "${1}[redacted]",
        needles: &[
            "password",
            "passwd",
            "secret",
            "token",
            "apikey",
            "api_key",
            "api-key",
            "accesskey",
            "access_key",
            "access-key",
        ],
        also: &[],
        assigned: true,
    },
    Pattern {
        regex: r"(?i)(authorization:\s*(?:bearer|basic|token)\s+)[^\s'\x22]+",
        with: "${1}[redacted]",
        needles: &["authorization:"],
        also: &[],
        assigned: false,
    },
    Pattern {
        regex: r"(://[^/\s:@]+:)[^@\s/]+@",
        with: "${1}[redacted]@",
        needles: &["://"],
        also: &["@"],
        assigned: false,
    },
];

/// The built-in pattern `i`, compiled on first use (None if it did not compile).
fn builtin(i: usize) -> Option<&'static Regex> {
    static RE: [OnceLock<Option<Regex>>; PATTERNS.len()] =
        [const { OnceLock::new() }; PATTERNS.len()];
    RE[i]
        .get_or_init(|| Regex::new(PATTERNS[i].regex).ok())
        .as_ref()
}

/// Can pattern `p` match `s`? `false` is certain. Under `(?i)`, `ſ` and the
/// Kelvin sign match `s` and `k`, so a text that is not all ASCII is always
/// tried.
fn may_match(p: &Pattern, s: &str) -> bool {
    if !s.is_ascii() {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    if p.assigned {
        return p.needles.iter().any(|n| assigned(&lower, n));
    }
    p.needles.iter().any(|n| lower.contains(n))
        && (p.also.is_empty() || p.also.iter().any(|n| lower.contains(n)))
}

/// Is some `needle` in `lower` followed by word characters, white space, then
/// `:` or `=` (as in `API_KEY = …`)? The word characters run to their end: the
/// `\b` after them in the pattern allows no other stop.
fn assigned(lower: &str, needle: &str) -> bool {
    let b = lower.as_bytes();
    lower.match_indices(needle).any(|(at, _)| {
        let mut i = at + needle.len();
        while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
            i += 1;
        }
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == 0x0b) {
            i += 1;
        }
        i < b.len() && (b[i] == b':' || b[i] == b'=')
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
            for (i, p) in PATTERNS.iter().enumerate() {
                if !may_match(p, &s) {
                    continue;
                }
                let Some(re) = builtin(i) else { continue };
                if let std::borrow::Cow::Owned(o) = re.replace_all(&s, p.with) {
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

    /// Every built-in pattern applied in turn, as before patterns had needles.
    fn scrub_all(s: &str) -> String {
        let mut s = s.to_string();
        if looks_sensitive(&s) {
            for p in PATTERNS {
                let re = Regex::new(p.regex).unwrap();
                if let std::borrow::Cow::Owned(o) = re.replace_all(&s, p.with) {
                    s = o;
                }
            }
        }
        s
    }

    #[test]
    fn pattern_needles_never_skip_a_match() {
        // Each credential shape, in the cases and spellings agents and tools
        // print them, next to look-alikes, and with the characters that (?i)
        // folds onto ASCII letters (ſ = s, K = Kelvin sign = k).
        let cases = [
            "export AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE",
            "key ASIAABCDEFGHIJKLMNOP in text",
            "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "GHS_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 (upper case, no match)",
            "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwx",
            "slack xoxb-1234567890-abcdefghij",
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----",
            "-----BEGIN RSA PRIVATE KEY----- cut short",
            "PASSWORD=hunter2 and passwd: 'two words' and Secret = \"x y\"",
            "client_secret:abc; ApiKey=1 api-key=2 API_KEY : 3 AccessKey=4 access-key=5",
            "my token is not printed here",
            "ſecret=hunter2",
            "api_Key=1 secret_\u{212a}ey=2 passwor\u{212a}",
            "Authorization: Bearer eyJhbGciOi.abc.def",
            "AUTHORIZATION:basic dXNlcjpwYXNz",
            "curl https://user:pa55@example.com/x and http://nobody@example.com",
            "postgres://admin:s3cret@db:5432/app",
            "see https://example.com/secret (no credentials)",
            "Blocked by hookrules (secret-file-tool): .env holds secrets",
            "my_secret_name_1 \t\u{0b}= x; TOKEN\n:y; secret-name: z; token_: w",
            "password", "token=", "x=secret", "secretsecret=1 passwordpassword :2",
            "",
        ];
        for c in cases {
            assert_eq!(r(&[], &[]).text(c), scrub_all(&cut(c, 40)), "{c:?}");
            let long = Redactor::new(&[], &[], 10_000);
            assert_eq!(long.text(c), scrub_all(c), "{c:?}");
        }
        assert_eq!(
            Redactor::new(&[], &[], 10_000).text("PASSWORD=hunter2"),
            "PASSWORD=[redacted]"
        );
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
