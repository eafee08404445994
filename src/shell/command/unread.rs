//! Code in languages the analysis does not read (Starlark, Elixir, Zig,
//! Swift, Clojure, dune, Erlang terms, ninja), judged by what its text shows:
//! the constructs that run a command or delete, listed per language by the
//! `call` rows of `policies/data/code-places.toml`. A scan, not a parser:
//! a construct is found by its name, its command read from the literals it
//! is given; what a value computes is unknown text.
//!
//! Build files in these languages are read by
//! `script_files::project::calls` (what the build may do); code given on
//! the command line (`elixir -e`, `bb -e`) is a place whose language is one
//! of these (`escapes::Dialect::Calls`), where a command computed from
//! values is code nobody can read, as a Lisp's is.

use regex::Regex;

use super::inline::{marked, Effect};
use super::nesting::{Literals, Token};
use super::places::{self, Call, CallCode, CallForm};

/// The text that stands for what only the run knows (a build file's
/// runner reads it as a variable nobody set).
pub(crate) const UNKNOWN: &str = "${HOOKRULES_TASK_UNKNOWN}";

/// The text that stands for the home folder in a command found.
const HOME: &str = "${HOME}";

/// Expressions that are the home folder.
const HOME_EXPRS: &[&str] = &[
    "System.user_home()",
    "System.user_home!()",
    "System.user_home",
    "System.user_home!",
    "NSHomeDirectory()",
    "(System/getProperty \"user.home\")",
    "(System/getenv \"HOME\")",
    "System.get_env(\"HOME\")",
    "os.getenv(\"HOME\")",
];

/// What one construct amounts to.
pub(crate) enum Seen {
    /// A command line (sh).
    Line(String),
    /// A command nobody can read before it runs.
    Unknown,
    /// A script file named from the folder of the file the construct is
    /// in (see [`CallCode::Script`]).
    Script(String),
}

/// What `code` in the `call` language `lang` runs, as effects: each
/// command found as a shell line, a command computed from values (or one
/// the language runs where nothing can be read) as code nobody can read.
pub(crate) fn effects(lang: &str, code: &str) -> Vec<Effect> {
    let rows: Vec<&Call> = places::calls(lang).collect();
    constructs(&rows, code)
        .into_iter()
        .map(|seen| match seen {
            Seen::Line(l) if !l.contains(UNKNOWN) => Effect::Shell(marked(&l)),
            // A file code given on the command line names: nobody read it.
            _ => Effect::Dynamic,
        })
        .collect()
}

/// The constructs of `rows` in `text`, in the order of the rows.
pub(crate) fn constructs(rows: &[&Call], text: &str) -> Vec<Seen> {
    let mut out = Vec::new();
    for row in rows {
        match row.form {
            CallForm::Paren | CallForm::Sexp => {
                for name in row.call {
                    let Some(re) = opening(row.form, name) else {
                        continue;
                    };
                    for m in re.find_iter(text) {
                        // The opening bracket: the last character matched
                        // (`(` of `NAME(`), or the first (`(` of `(NAME`).
                        let open = match row.form {
                            CallForm::Sexp => m.start() + m.as_str().find('(').unwrap_or(0),
                            _ => m.end() - 1,
                        };
                        let inner = Literals::DOUBLE.inside(text, open);
                        let args = match row.form {
                            CallForm::Sexp => sexp_items(inner).into_iter().skip(1).collect(),
                            _ => Literals::QUOTES.list(inner),
                        };
                        out.extend(seen(row, &args, row.form == CallForm::Sexp));
                    }
                }
            }
            CallForm::Line => {
                for name in row.call {
                    let pattern = format!(
                        r"(?m)^[ \t]*{}(?:[ \t]*=[ \t]*|[ \t]+)(.*)$",
                        regex::escape(name)
                    );
                    let Ok(re) = Regex::new(&pattern) else {
                        continue;
                    };
                    for c in re.captures_iter(text) {
                        let line = c.get(1).map_or("", |m| m.as_str()).trim();
                        if !line.is_empty() {
                            out.push(Seen::Line(line.to_string()));
                        }
                    }
                }
            }
            CallForm::Strings => {
                for name in row.call {
                    let Ok(re) = Regex::new(&format!(r"\b{}\b", regex::escape(name))) else {
                        continue;
                    };
                    for m in re.find_iter(text) {
                        let rest = &text[m.end()..];
                        let Some(at) = rest.find(['[', '{', '(']) else {
                            continue;
                        };
                        for s in strings_in(Literals::DOUBLE.inside(rest, at)) {
                            out.extend(seen(row, &[s], false));
                        }
                    }
                }
            }
            CallForm::Word => {
                for name in row.call {
                    out.extend(words_called(row, name, text));
                }
            }
            CallForm::Prefix => {
                let prefix = row.prefix.unwrap_or("");
                for s in strings_in(text) {
                    if let Some(code) =
                        literal(&s).and_then(|t| t.strip_prefix(prefix).map(str::to_string))
                    {
                        out.push(Seen::Line(code));
                    }
                }
            }
        }
    }
    out
}

/// How a `call` language writes strings, where its constructs are found
/// as words: in the Lisps `'` quotes a form (`#'shell-command`), not text.
fn strings_of(lang: &str) -> Literals {
    match lang {
        "lisp" | "c" => Literals::DOUBLE,
        _ => Literals::QUOTES,
    }
}

/// The constructs of a [`CallForm::Word`] row named `name` in `text`: the
/// name as a word outside strings, read from the string literals after it.
fn words_called(row: &Call, name: &str, text: &str) -> Vec<Seen> {
    let lit = strings_of(row.lang);
    let ident = |c: char| c.is_alphanumeric() || matches!(c, '-' | '_' | ':' | '*' | '.');
    let in_string = |at: usize| {
        lit.tokens(text.char_indices()).any(|t| match t {
            Token::Literal { open, close } => open < at && close.is_none_or(|c| at < c),
            Token::Code { .. } => false,
        })
    };
    let mut out = Vec::new();
    for (i, _) in text.match_indices(name) {
        let after_name = &text[i + name.len()..];
        let before = text[..i].chars().next_back();
        if before.is_some_and(ident) || after_name.chars().next().is_some_and(ident) || in_string(i)
        {
            continue;
        }
        // The call's text: after Octave's `(`, up to the close of the
        // bracket around it or the line's end.
        let rest = after_name.trim_start();
        let rest = rest.strip_prefix('(').unwrap_or(rest).trim_start();
        let call = lit.until_unmatched(rest, &['\n']);
        // Its command is read only when a string comes first and nothing
        // joins it to more (`(concat "rm " d)`, `["rm " d]`, `"rm " + d` are
        // built from values).
        let literal = match lit.tokens(rest.char_indices()).next() {
            Some(Token::Literal {
                open: 0,
                close: Some(c),
            }) => !rest[c + 1..]
                .trim_start()
                .starts_with(['+', '.', '*', '&', '|', '/', '-', '[']),
            _ => false,
        };
        let args: Vec<String> = if literal {
            lit.literals(call).iter().map(|l| unquoted(l)).collect()
        } else {
            Vec::new()
        };
        let Some(head) = args.first() else {
            if !matches!(row.code, CallCode::Delete | CallCode::Remove) {
                out.push(Seen::Unknown);
            }
            continue;
        };
        let line = match row.code {
            CallCode::Sh | CallCode::Bash => head.trim().to_string(),
            CallCode::MakeSh => make_substituted(head.trim()),
            CallCode::Argv | CallCode::ProgramArgs => words_line(&args),
            CallCode::Delete | CallCode::Remove => {
                deletion(row, &home_tilde(head), lit.words(call).into_iter().skip(1))
            }
            CallCode::Unknown | CallCode::Script => {
                out.push(Seen::Unknown);
                continue;
            }
        };
        out.push(Seen::Line(line));
    }
    out
}

/// The command a [`CallCode::Delete`] or [`CallCode::Remove`] construct
/// amounts to: `path` removed, with what it holds when the row always
/// recurses or one of the `later` arguments is among its `recursive`.
fn deletion<'a>(row: &Call, path: &str, mut later: impl Iterator<Item = &'a str>) -> String {
    let recursive = row.code == CallCode::Delete
        || later.any(|w| {
            row.recursive
                .contains(&w.trim_matches([',', ';', '"', '\'', ')', ' ']))
        });
    let rm = if recursive { "rm -rf --" } else { "rm -f --" };
    format!("{rm} {}", words_line(&[path.to_string()]))
}

/// A string literal's text: a `"…"` one with its escapes undone, a `'…'`
/// one as written.
fn unquoted(l: &str) -> String {
    let Some(inner) = l.strip_prefix('"').and_then(|r| r.strip_suffix('"')) else {
        return l
            .get(1..l.len().saturating_sub(1))
            .unwrap_or_default()
            .to_string();
    };
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        out.extend(if c == '\\' { chars.next() } else { Some(c) });
    }
    out
}

/// A deleted path whose `~` the language expands (Emacs, Octave) as the
/// home folder.
fn home_tilde(p: &str) -> String {
    match p.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => format!("{HOME}{rest}"),
        _ => p.to_string(),
    }
}

/// The pattern of a construct's opening: `NAME(` (`*.NAME(`: after any
/// receiver) or `(NAME `.
fn opening(form: CallForm, name: &str) -> Option<Regex> {
    let pattern = match (form, name.strip_prefix("*.")) {
        (CallForm::Sexp, _) => format!(r"\(\s*{}[\s)]", regex::escape(name)),
        (_, Some(method)) => format!(r"\.{}\s*\(", regex::escape(method)),
        (_, None) => format!(r"(?:^|[^\w.:]){}\s*\(", regex::escape(name)),
    };
    Regex::new(&pattern).ok()
}

/// What one construct runs, from its arguments.
fn seen(row: &Call, args: &[String], atoms: bool) -> Option<Seen> {
    if row.code == CallCode::Unknown {
        return Some(Seen::Unknown);
    }
    let value = if row.key.is_empty() {
        args.get(row.arg - 1).cloned()?
    } else {
        args.iter().find_map(|a| keyed(a, row.key))?
    };
    if row.code == CallCode::Script {
        // `srcs = ["run.sh"]`, `main = "run.sh"`: a literal name, else a
        // file nobody can name before the run.
        let items = list_items(&value);
        let first = items.first().map_or(value.as_str(), String::as_str);
        return Some(match literal(first.trim()) {
            Some(name) if !name.is_empty() => Seen::Script(name),
            _ => Seen::Unknown,
        });
    }
    let word = |v: &str| text_of(v, atoms);
    Some(Seen::Line(match row.code {
        CallCode::Sh | CallCode::Bash => word(&value),
        CallCode::MakeSh => make_substituted(&word(&value)),
        CallCode::Argv => {
            let words: Vec<String> = if row.rest {
                // Leading option maps (`(shell {:dir "x"} "make")`) are no words.
                args.get(row.arg - 1..)
                    .unwrap_or_default()
                    .iter()
                    .skip_while(|a| a.starts_with('{'))
                    .map(|a| word(a))
                    .collect()
            } else {
                list_items(&value).iter().map(|a| word(a)).collect()
            };
            match words.as_slice() {
                // One string alone: a command line (babashka's `shell "…"`).
                [one] if row.rest && one.contains(' ') => one.clone(),
                _ => words_line(&words),
            }
        }
        CallCode::ProgramArgs => {
            let mut words = vec![word(&value)];
            if let Some(list) = args.get(row.arg) {
                words.extend(list_items(list).iter().map(|a| word(a)));
            }
            words_line(&words)
        }
        CallCode::Delete | CallCode::Remove => deletion(
            row,
            &word(&value),
            args.iter().skip(row.arg).map(String::as_str),
        ),
        CallCode::Unknown | CallCode::Script => return Some(Seen::Unknown),
    }))
}

/// The text the shell gets from a command subject to "Make" variable
/// substitution (bazel's genrule `cmd`): `$$` is a literal `$` (`$$HOME` is
/// the shell's `$HOME`); a variable (`$(location :x)`, `$(SRCS)`, `$@`,
/// `$<`) is a path the build names, in its own trees (a relative path
/// here). An unclosed `$(` is left as written (bazel refuses it).
fn make_substituted(cmd: &str) -> String {
    const BUILD_PATH: &str = "bazel-out/_";
    let chars: Vec<char> = cmd.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if c != '$' {
            out.push(c);
            i += 1;
            continue;
        }
        match chars.get(i + 1) {
            Some('$') => {
                out.push('$');
                i += 2;
            }
            Some('(') => match (i + 2..chars.len()).find(|k| chars[*k] == ')') {
                Some(close) => {
                    out.push_str(BUILD_PATH);
                    i = close + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            },
            Some(n) if !n.is_alphanumeric() && *n != '{' && !n.is_whitespace() => {
                out.push_str(BUILD_PATH);
                i += 2;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// The value of the keyword argument `keys` names in `arg` (`cmd = …`,
/// `command: …`, Zig's `.argv = …`), looking inside a struct or map
/// literal (`.{ .argv = … }`).
fn keyed(arg: &str, keys: &[&str]) -> Option<String> {
    let a = arg.trim().trim_start_matches('.');
    for k in keys {
        if let Some(rest) = a.strip_prefix(k) {
            let rest = rest.trim_start();
            if let Some(v) = rest
                .strip_prefix('=')
                .filter(|r| !r.starts_with('='))
                .or_else(|| rest.strip_prefix(':'))
            {
                return Some(v.trim().to_string());
            }
        }
    }
    let inner = a.strip_prefix('{').or_else(|| a.strip_prefix("%{"))?;
    let inner = inner.strip_suffix('}').unwrap_or(inner);
    Literals::QUOTES
        .list(inner)
        .iter()
        .find_map(|part| keyed(part, keys))
}

/// The items of an s-expression's text, split at blanks outside strings and
/// brackets.
fn sexp_items(s: &str) -> Vec<String> {
    Literals::DOUBLE
        .words(s)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The string literals of `text` (as written, quotes included).
fn strings_in(text: &str) -> Vec<String> {
    Literals::DOUBLE
        .literals(text)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The items of a list literal: `[a, b]`, Zig's `&.{ a, b }`, Elixir's
/// `~w(a b)`, a Clojure vector; a single value is a list of one.
fn list_items(v: &str) -> Vec<String> {
    let t = v.trim();
    if let Some(words) = t.strip_prefix("~w(").or_else(|| t.strip_prefix("~W(")) {
        let words = words.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let words = words.strip_suffix(')').unwrap_or(words);
        return words.split_whitespace().map(|w| format!("{w:?}")).collect();
    }
    let t = t.strip_prefix('&').unwrap_or(t).trim_start();
    let t = t.strip_prefix('.').unwrap_or(t);
    let inner = ["[", "{", "("]
        .iter()
        .find_map(|o| t.strip_prefix(o))
        .map(|s| &s[..s.len().saturating_sub(1)]);
    match inner {
        Some(s) if s.contains(',') || !s.contains(char::is_whitespace) => Literals::QUOTES.list(s),
        Some(s) => sexp_items(s),
        None => vec![t.to_string()],
    }
}

/// The text of a value: a string literal's text (interpolations unknown),
/// a home expression as `${HOME}`, an s-expression's atom as written;
/// anything else (a variable, a call, a concatenation) is unknown.
fn text_of(v: &str, atoms: bool) -> String {
    let t = v.trim();
    if HOME_EXPRS.contains(&t) {
        return HOME.into();
    }
    if let Some(s) = literal(t) {
        return s;
    }
    // `'rm -rf ' + path` (Starlark, Zig's `++`, Elixir's `<>`): each part.
    let parts = concatenated(t);
    if parts.len() > 1 {
        return parts.iter().map(|p| text_of(p, false)).collect();
    }
    if atoms && !t.is_empty() && !t.starts_with(['(', '[', '{']) {
        return interpolations_unknown(t);
    }
    UNKNOWN.into()
}

/// The operands of a string concatenation (`+`, `++`, `<>` outside strings
/// and brackets); one part when `t` is none.
fn concatenated(t: &str) -> Vec<String> {
    Literals::QUOTES
        .split(t, &["++", "+", "<>"])
        .into_iter()
        .map(|p| p.trim().to_string())
        .collect()
}

/// A string literal's text: `"…"`, `'…'`, `"""…"""`, `r"…"`, escapes
/// undone, interpolations (`#{…}`, `%{…}`, `\(…)`, `${…}`) unknown; `None`
/// when `t` is not one literal.
fn literal(t: &str) -> Option<String> {
    let t = t
        .strip_prefix('r')
        .filter(|r| r.starts_with(['"', '\'']))
        .unwrap_or(t);
    let inner = t
        .strip_prefix("\"\"\"")
        .and_then(|s| s.strip_suffix("\"\"\""))
        .or_else(|| t.strip_prefix('"').and_then(|s| s.strip_suffix('"')))
        .or_else(|| t.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))?;
    // A literal ends where its quote does: `"a" + "b"` is not one.
    let q = t.chars().next()?;
    let mut escaped = false;
    for ch in inner.chars() {
        if escaped {
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if ch == q && !t.starts_with("\"\"\"") {
            return None;
        }
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                // Swift's `\(…)`: an interpolation.
                Some('(') => out.push_str("\\("),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    Some(interpolations_unknown(&out))
}

/// `#{…}`, `%{…}` and `\(…)` (Elixir, Ruby, dune, Swift) as unknown text.
fn interpolations_unknown(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    loop {
        let next = ["#{", "%{", "\\("]
            .iter()
            .filter_map(|o| rest.find(o).map(|at| (at, *o)))
            .min();
        let Some((at, open)) = next else {
            break;
        };
        out.push_str(&rest[..at]);
        let close = if open == "\\(" { ')' } else { '}' };
        match rest[at..].find(close) {
            Some(end) => {
                // dune's `%{env:HOME=/tmp}`: the variable.
                let inner = &rest[at + open.len()..at + end];
                match inner
                    .strip_prefix("env:")
                    .map(|v| v.split('=').next().unwrap_or(""))
                {
                    Some(v)
                        if !v.is_empty()
                            && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') =>
                    {
                        out.push_str(&format!("${{{v}}}"));
                    }
                    _ => out.push_str(UNKNOWN),
                }
                rest = &rest[at + end + 1..];
            }
            None => {
                rest = &rest[at..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Words as one command line, each quoted; the unknown text and the home
/// folder in them stay variables the analysis sees.
fn words_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| quoted(w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn quoted(w: &str) -> String {
    let mut out = String::new();
    let mut rest = w;
    while let Some(at) = rest.find("${") {
        let name_end = rest[at + 2..].find('}').map(|e| at + 2 + e);
        let Some(end) = name_end.filter(|e| {
            let name = &rest[at + 2..*e];
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) else {
            break;
        };
        if at > 0 {
            out.push_str(&crate::shell::quote(&rest[..at]));
        }
        out.push('"');
        out.push_str(&rest[at..=end]);
        out.push('"');
        rest = &rest[end + 1..];
    }
    if !rest.is_empty() || out.is_empty() {
        out.push_str(&crate::shell::quote(rest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_lists_and_keywords_are_read_as_written() {
        assert_eq!(literal("'rm -rf ~'").as_deref(), Some("rm -rf ~"));
        assert_eq!(literal("\"a\" + x"), None);
        assert_eq!(
            literal("\"rm -rf #{home}\"").as_deref(),
            Some("rm -rf ${HOOKRULES_TASK_UNKNOWN}")
        );
        assert_eq!(
            list_items("&.{ \"rm\", \"-rf\", \"/\" }"),
            ["\"rm\"", "\"-rf\"", "\"/\""]
        );
        assert_eq!(list_items("~w(rm -rf /)"), ["\"rm\"", "\"-rf\"", "\"/\""]);
        assert_eq!(
            keyed(".{ .allocator = a, .argv = &.{ \"rm\" } }", &["argv"]).as_deref(),
            Some("&.{ \"rm\" }")
        );
        assert_eq!(keyed("cmd = 'x'", &["cmd"]).as_deref(), Some("'x'"));
        assert_eq!(keyed("cmd == 'x'", &["cmd"]), None);
        assert_eq!(
            words_line(&["rm".into(), "-rf".into(), HOME.into()]),
            "rm -rf \"${HOME}\""
        );
    }

    #[test]
    fn make_variables_are_substituted_as_bazel_does() {
        for (cmd, shell_gets) in [
            (
                "rm -rf $$HOME && touch $@",
                "rm -rf $HOME && touch bazel-out/_",
            ),
            (
                "for f in $(SRCS); do cat $$f; done > $@",
                "for f in bazel-out/_; do cat $f; done > bazel-out/_",
            ),
            (
                "cp $(location :src) $(@D)/x",
                "cp bazel-out/_ bazel-out/_/x",
            ),
            ("echo $$$$", "echo $$"),
            ("echo $${HOME}", "echo ${HOME}"),
            ("echo $(unclosed", "echo $(unclosed"),
        ] {
            assert_eq!(make_substituted(cmd), shell_gets, "{cmd}");
        }
    }
}
