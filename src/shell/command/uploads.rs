//! Which files a request command sends, named inside an argument: curl's
//! `-d @F`, `--data-binary @F`, `-F name=@F` / `-F 'name=<F;type=…'`,
//! wget's `--post-file=F` / `--body-file=F`, httpie's and xh's `@F`,
//! `name@F`, `name=@F`, `name:=@F`. The file is opened and its bytes leave
//! the machine, so it is read where it lands (a link in the project to
//! `~/.ssh/id_rsa` is the key), as `curl -T F` (an operand) already is.

use super::super::value::{Piece, Sym, Value};
use super::SimpleCommand;

/// How a program names a file it sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sender {
    /// curl: `@F` (a data option's value, or glued: `-d@F`), `NAME=@F` and
    /// `NAME=<F` (a form field; `;type=…` and the like after it).
    Curl,
    /// wget: `--post-file=F`, `--body-file=F` (the separate value is an operand).
    Wget,
    /// httpie and xh: `@F` (the body), `NAME@F` (a file field), `NAME=@F`,
    /// `NAME:=@F` (a field's text or JSON read from F).
    Httpie,
}

fn sender(program: &str) -> Option<Sender> {
    match program.to_ascii_lowercase().as_str() {
        "curl" | "curl.exe" => Some(Sender::Curl),
        "wget" | "wget2" => Some(Sender::Wget),
        "http" | "https" | "xh" | "xhs" | "httpie" => Some(Sender::Httpie),
        _ => None,
    }
}

/// The files `c` sends, named inside its arguments (each as what it may be).
#[must_use]
pub fn uploads(c: &SimpleCommand) -> Vec<Value> {
    let Some(how) = sender(&c.program) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, a) in c.args.iter().enumerate() {
        let Some(at) = file_at(how, a) else { continue };
        if let Some(v) = c.values.get(i).and_then(|v| file_in(v, at)) {
            out.push(v);
        }
    }
    out
}

/// Where the file's name starts in argument `a`, when it names one.
fn file_at(how: Sender, a: &str) -> Option<usize> {
    let at = match how {
        Sender::Curl => {
            if let Some(rest) = a.strip_prefix('@') {
                (!rest.is_empty()).then_some(1)?
            } else if let Some(rest) = a.strip_prefix("-d").or_else(|| a.strip_prefix("-F")) {
                // glued short options: `-d@F`, `-Fname=@F`
                glued_field(rest).map(|k| a.len() - rest.len() + k)?
            } else if a.starts_with('-') {
                return None;
            } else {
                field(a, &["=@", "=<"])?
            }
        }
        Sender::Wget => ["--post-file=", "--body-file="]
            .iter()
            .find(|p| a.starts_with(*p))
            .map(|p| p.len())?,
        Sender::Httpie => {
            if a.starts_with('-') {
                return None;
            }
            if a.starts_with('@') {
                1
            } else {
                field(a, &[":=@", "=@", "@"])?
            }
        }
    };
    (at < a.len()).then_some(at)
}

/// `-d@F` after `-d`, `-Fname=@F` after `-F`: where F starts in `rest`.
fn glued_field(rest: &str) -> Option<usize> {
    if rest.starts_with('@') {
        return Some(1);
    }
    field(rest, &["=@", "=<"])
}

/// `NAME<sep>F` with a plain field name (no `/`, `:` of a URL, space): where F starts.
fn field(a: &str, seps: &[&str]) -> Option<usize> {
    let k = a.find(|ch: char| !(ch.is_ascii_alphanumeric() || "_.-[]".contains(ch)))?;
    if k == 0 {
        return None;
    }
    let rest = a.get(k..)?;
    seps.iter()
        .find(|s| rest.starts_with(*s))
        .map(|s| k + s.len())
}

/// The file's name in `v` from byte `at` on, up to a `;` (curl's `;type=…`).
/// The part before it is always literal text; a value whose part before it
/// is not is given up.
fn file_in(v: &Value, at: usize) -> Option<Value> {
    let mut out = Value::default();
    for s in &v.0 {
        let mut left = at;
        let mut sym = Sym::default();
        let mut ended = false;
        for p in &s.0 {
            if ended {
                break;
            }
            match p {
                Piece::Text(t) if left > 0 => {
                    let cut = left.min(t.len());
                    left -= cut;
                    if let Some(tail) = t.get(cut..) {
                        push_until_semicolon(&mut sym, tail, &mut ended);
                    }
                }
                _ if left > 0 => return None,
                Piece::Text(t) => push_until_semicolon(&mut sym, t, &mut ended),
                p => sym.push(p.clone()),
            }
        }
        if !sym.is_empty() {
            out.add(sym);
        }
    }
    (!out.0.is_empty()).then_some(out)
}

fn push_until_semicolon(sym: &mut Sym, t: &str, ended: &mut bool) {
    let part = match t.find(';') {
        Some(k) => {
            *ended = true;
            &t[..k]
        }
        None => t,
    };
    if !part.is_empty() {
        sym.push(Piece::Text(part.to_string()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_a_sent_file_is_named() {
        let cases: &[(Sender, &str, Option<usize>)] = &[
            (Sender::Curl, "@key.txt", Some(1)),
            (Sender::Curl, "f=@assets/k.txt", Some(3)),
            (Sender::Curl, "f=<notes.txt", Some(3)),
            (Sender::Curl, "-d@k", Some(3)),
            (Sender::Curl, "-Ff=@k", Some(5)),
            (Sender::Curl, "https://user@host/x", None),
            (Sender::Curl, "--data-binary", None),
            (Sender::Curl, "name=value", None),
            (Sender::Curl, "@", None),
            (Sender::Wget, "--post-file=k", Some(12)),
            (Sender::Wget, "--post-data=x", None),
            (Sender::Httpie, "file@k", Some(5)),
            (Sender::Httpie, "data:=@k.json", Some(7)),
            (Sender::Httpie, "@body.json", Some(1)),
            (Sender::Httpie, "example.org/x", None),
        ];
        for (how, a, want) in cases {
            assert_eq!(file_at(*how, a), *want, "{how:?} {a}");
        }
    }
}
