//! Inline code that reads the environment: where each value it reads goes.
//!
//! Code that reads a variable (`os.environ["T"]`, `$ENV{T}`, `ENV["T"]`,
//! `process.env.T`, `getenv("T")`, `ENVIRON["T"]`, `Sys.getenv("T")`) or the
//! whole environment (`os.environ`, `%ENV`, `process.env`, `getenv()`) and
//! prints, saves or sends it is the shell's `printenv T` (or `env`): the scan
//! reports it as [`Effect::Env`], and the analysis reports that command, so
//! one policy judges every language and the shell alike. Code that *uses* the
//! value stays quiet: passing it to a client as its credential
//! (`OpenAI(api_key=os.environ["T"])`), testing it (`if os.getenv("T")`,
//! `defined $ENV{T}`, `!!process.env.T`), printing its length or the names
//! only (`len(…)`, `.length`, `keys %ENV`, `for k in os.environ`).
//!
//! One walk for every language, with each language's spellings as data
//! ([`roots`]): from a read outward through the brackets around it, the
//! first call that prints, writes or sends decides (a call that reduces the
//! value to a length, a test or the names stops it); a read outside any such
//! call is printed when its statement starts with a printing keyword
//! (`print`, `say`, `puts`, `echo`) or when the interpreter prints the code's
//! result (`node -p`). A value stored in a variable (`t = os.environ["T"]`,
//! `for k, v in os.environ.items()`, `ENV.each { |k, v| … }`) is followed to
//! where that variable goes, a few steps deep. A send records the key the
//! value is given under (`headers={"Authorization": …}`, `auth=…`,
//! `data=…`), so the policy can tell a login from an upload as it does for
//! `curl`.
//!
//! Not a parser: a scan of code with string literals masked (their
//! interpolations kept), so a string that only mentions `os.environ` is data.

use super::{literal_at, mask, matching, Effect, Lang};

/// Where a value the code read from the environment goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sink {
    /// To the output (printed, logged, written to a file).
    Printed,
    /// To another machine, as the value of `place` (`KEY=$NAME`, or
    /// `$NAME` when it is given under no key).
    Sent(String),
}

/// How a language names the environment.
#[derive(Clone, Copy)]
enum Root<'a> {
    /// A map: indexed (`[…]`, Perl's `{…}`), read by a method (`.get(…)`,
    /// `.fetch(…)`), by a member (`process.env.T`), or whole.
    Map(&'a str),
    /// A function of the variable's name (`getenv("T")`); without one, the
    /// whole environment.
    Getter(&'a str),
}

/// The spellings of the environment in `lang`.
fn roots(lang: Lang) -> &'static [Root<'static>] {
    use Root::{Getter, Map};
    match lang {
        Lang::Python => &[Map("environ"), Getter("getenv")],
        Lang::Perl => &[Map("$ENV"), Map("%ENV"), Map("@ENV")],
        Lang::Ruby | Lang::Julia => &[Map("ENV")],
        Lang::Js => &[
            Map("process.env"),
            Map("Bun.env"),
            Map("import.meta.env"),
            Getter("Deno.env.get"),
            Getter("Deno.env.toObject"),
        ],
        Lang::Php => &[Getter("getenv"), Map("$_ENV"), Map("$_SERVER")],
        Lang::Lua => &[Getter("os.getenv")],
        Lang::Awk => &[Map("ENVIRON")],
        Lang::R => &[Getter("Sys.getenv")],
        _ => &[],
    }
}

/// Calls that print or save their arguments (the last part of the name).
const PRINTS: &[&str] = &[
    "print",
    "println",
    "printf",
    "puts",
    "p",
    "pp",
    "pprint",
    "say",
    "echo",
    "print_r",
    "var_dump",
    "var_export",
    "log",
    "info",
    "warn",
    "error",
    "debug",
    "trace",
    "dir",
    "table",
    "write",
    "writeln",
    "writelines",
    "writeLines",
    "cat",
    "message",
    "die",
    "abort",
    "exit",
    "fputs",
    "fwrite",
    "fprintf",
    "syswrite",
    "file_put_contents",
    "writeFileSync",
    "writeFile",
    "appendFileSync",
    "appendFile",
    "write_text",
    "write_bytes",
    "dump",
    "putStrLn",
    "display",
];

/// Calls that send their arguments to another machine.
const SENDS: &[&str] = &[
    "post",
    "put",
    "patch",
    "urlopen",
    "Request",
    "request",
    "fetch",
    "send",
    "sendall",
    "sendto",
    "sendmail",
    "post_form",
    "ajax",
    "curl_exec",
    "http_post_data",
];

/// Clients whose `get(…)` is a request (`requests.get(url, params=…)`).
const GET_CLIENTS: &[&str] = &[
    "requests", "httpx", "axios", "session", "client", "http", "https",
];

/// Calls and words that keep only a length, a test or the names of what
/// they are given.
const REDUCES: &[&str] = &[
    "len",
    "length",
    "strlen",
    "mb_strlen",
    "bool",
    "Boolean",
    "isset",
    "empty",
    "defined",
    "exists",
    "is_null",
    "isNull",
    "hash",
    "sha1",
    "sha256",
    "sha512",
    "md5",
    "blake2b",
    "count",
    "keys",
    "has_key",
    "typeof",
    "not",
    "in",
    "if",
    "elif",
    "unless",
    "while",
    "assert",
    "nchar",
    "is",
    "and",
    "or",
];

/// Calls that hand on the data they are given (conversions, encodings,
/// copies): what reaches their caller is the value.
const TRANSPARENT: &[&str] = &[
    "dict",
    "str",
    "repr",
    "dumps",
    "stringify",
    "entries",
    "values",
    "items",
    "to_h",
    "to_a",
    "to_s",
    "list",
    "tuple",
    "String",
    "format",
    "join",
    "encode",
    "b64encode",
    "encodebytes",
    "urlsafe_b64encode",
    "hexlify",
    "btoa",
    "from",
    "bytes",
    "Buffer",
    "toString",
    "strip",
    "trim",
    "assign",
    "copy",
    "merge",
    "concat",
    "sprintf",
    "inspect",
    "to_json",
    "generate",
    "json_encode",
    "serialize",
    "urlencode",
    "quote",
    "base64_encode",
    "encode64",
    "strict_encode64",
    "pack",
    "reverse",
    "upper",
    "lower",
    "replace",
    "split",
    "slice",
    "substr",
    "substring",
    "sorted",
    "set",
    "sort",
    "map",
    "fromEntries",
    "Object",
    "JSON",
    "new",
    "Array",
    "array",
    "vars",
    "implode",
    "paste",
    "paste0",
    "toJSON",
    "encode_json",
    "Dumper",
    "f",
];

/// For the whole environment only: calls that keep its names (iterating a
/// map gives its keys).
const NAMES_OF_WHOLE: &[&str] = &["list", "sorted", "set", "tuple", "sort"];

/// Suffixes after a read that keep only a length, a test or the names.
const SUFFIX_REDUCES: &[&str] = &[
    ".length",
    ".size",
    ".count",
    ".keys",
    ".key?",
    ".has_key?",
    ".include?",
    ".nil?",
    ".empty?",
    ".present?",
    ".blank?",
    ".each_key",
    ".startswith",
    ".startsWith",
    ".endswith",
    ".endsWith",
    ".includes",
    ".isdigit",
    ".is_a?",
    "==",
    "!=",
    "?",
    " is ",
    " in ",
    ".__len__",
    ".hexdigest",
];

/// Keywords that print the rest of their statement.
const PRINT_WORDS: &[&str] = &[
    "print", "printf", "say", "puts", "p", "pp", "echo", "warn", "die", "raise", "throw", "abort",
];

/// Most reads (and variables holding them) one piece of code is checked for.
const MAX_READS: usize = 64;

/// A read of the environment in the code: where it is and what it names
/// (`None`: the whole environment, or a name nobody can know).
#[derive(Debug, Clone)]
struct Read {
    start: usize,
    end: usize,
    name: Option<String>,
    /// The key the value was given under before it was stored in the
    /// variable read here (`h = {"Authorization": …}`).
    key: Option<String>,
}

/// What the code's reads of the environment do that a policy must see:
/// each value printed or sent, as [`Effect::Env`]. `prints_result`: the
/// interpreter prints the value of the code (`node -p`).
pub(super) fn effects(lang: Lang, code: &str, prints_result: bool) -> Vec<Effect> {
    // Cheap gate: every spelling names `env`/`ENV`/`environ` or `_SERVER`.
    if !(code.contains("env") || code.contains("ENV") || code.contains("_SERVER")) {
        return Vec::new();
    }
    let src: Vec<char> = code.chars().collect();
    let view = view(lang, &src);
    let aliases = aliases(lang, &src, &view);
    let mut all: Vec<Root> = roots(lang).to_vec();
    all.extend(aliases.iter().map(|a| Root::Map(a)));
    let mut reads = find_reads(lang, &src, &view, &all);
    let mut out: Vec<Effect> = Vec::new();
    let mut seen_vars: Vec<String> = Vec::new();
    let mut k = 0;
    while k < reads.len() && k < MAX_READS {
        let r = reads[k].clone();
        k += 1;
        let (dest, key) = destination(&src, &view, &r, prints_result);
        match dest {
            Dest::Sink(sink) => {
                let e = Effect::Env {
                    name: r.name.clone(),
                    sink,
                };
                if !out.contains(&e) {
                    out.push(e);
                }
            }
            Dest::Reduced | Dest::Used => {}
            Dest::Kept => {
                // Where a variable that holds it goes.
                for var in bound_to(lang, &src, &view, &r) {
                    if seen_vars.contains(&var) || seen_vars.len() >= MAX_READS {
                        continue;
                    }
                    seen_vars.push(var.clone());
                    for (start, end) in occurrences(&view, &var) {
                        // A variable holding the whole map, indexed, reads one.
                        let indexed = if r.name.is_none() {
                            named_after(lang, &src, &view, end)
                        } else {
                            None
                        };
                        let (name, end) = match indexed {
                            Some((n, e)) => (n, e),
                            None => (r.name.clone(), end),
                        };
                        reads.push(Read {
                            start,
                            end,
                            name,
                            key: key.clone(),
                        });
                    }
                }
            }
        }
    }
    out
}

/// Where a read's value goes.
enum Dest {
    Sink(Sink),
    /// Reduced to a length, a test or names.
    Reduced,
    /// Handed to a call that is neither a printer nor a sender (a client
    /// that logs in with it, a function of the code's own).
    Used,
    /// Neither: kept as it is, in the statement (and the variable) it is in.
    Kept,
}

/// The code with string literals masked (see [`mask`]), except the
/// expressions they interpolate (`"#{ENV['T']}"`, `` `${process.env.T}` ``,
/// `f"{os.environ['T']}"`, Perl's and PHP's `"$ENV{T}"`), which are code.
fn view(lang: Lang, src: &[char]) -> Vec<char> {
    let mut out = mask(lang, src);
    let mut k = 0;
    while k < src.len() {
        let c = src[k];
        let opens = matches!(c, '\'' | '"') || (c == '`' && matches!(lang, Lang::Js | Lang::Julia));
        if !opens || out[k] != c {
            k += 1;
            continue;
        }
        let Some((_, end)) = literal_at(lang, src, k) else {
            break;
        };
        let fstring = lang == Lang::Python
            && k > 0
            && matches!(src[k - 1], 'f' | 'F')
            && !(k > 1 && (src[k - 2].is_alphanumeric() || src[k - 2] == '_'));
        let interpolates = match lang {
            Lang::Perl | Lang::Php | Lang::Ruby | Lang::Julia => c == '"',
            Lang::Js => c == '`',
            Lang::Python => fstring,
            _ => false,
        };
        if interpolates {
            for (s, e) in interpolations(lang, src, k + 1, end.saturating_sub(1)) {
                let inner = view(lang, &src[s..e]);
                out[s..e].copy_from_slice(&inner);
            }
        }
        k = end.max(k + 1);
    }
    out
}

/// The code regions a literal's text (`from..to`) interpolates.
fn interpolations(lang: Lang, src: &[char], from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut k = from;
    while k < to {
        let c = src[k];
        if c == '\\' {
            k += 2;
            continue;
        }
        let brace = match lang {
            Lang::Ruby => c == '#' && src.get(k + 1) == Some(&'{'),
            Lang::Js | Lang::Julia => c == '$' && src.get(k + 1) == Some(&'{'),
            Lang::Python => c == '{' && src.get(k + 1) != Some(&'{'),
            _ => false,
        };
        if brace {
            let open = if lang == Lang::Python { k } else { k + 1 };
            match matching(src, open).filter(|e| *e <= to) {
                Some(close) => {
                    out.push((open + 1, close));
                    k = close + 1;
                }
                None => break,
            }
            continue;
        }
        // Perl and PHP: `$name`, `${name}`, `@name`, with subscripts.
        let sigil = matches!(lang, Lang::Perl | Lang::Php)
            && (c == '$' || (c == '@' && lang == Lang::Perl))
            && src
                .get(k + 1)
                .is_some_and(|n| n.is_alphabetic() || *n == '_' || *n == '{');
        if sigil {
            let start = k;
            k += 1;
            if src.get(k) == Some(&'{') {
                k = matching(src, k).map_or(to, |e| e + 1);
            }
            while k < to && (src[k].is_alphanumeric() || src[k] == '_' || src[k] == ':') {
                k += 1;
            }
            loop {
                let at = if src.get(k) == Some(&'-') && src.get(k + 1) == Some(&'>') {
                    k + 2
                } else {
                    k
                };
                match src.get(at) {
                    Some('[' | '{') => match matching(src, at).filter(|e| *e < to) {
                        Some(e) => k = e + 1,
                        None => break,
                    },
                    _ => break,
                }
            }
            out.push((start, k.min(to)));
            continue;
        }
        k += 1;
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Names the code gives the map (`from os import environ as e`).
fn aliases(lang: Lang, src: &[char], view: &[char]) -> Vec<String> {
    let mut out = Vec::new();
    if lang == Lang::Python {
        let text: String = view.iter().collect();
        for (at, _) in text.match_indices("environ as ") {
            let from = text[..at].chars().count() + "environ as ".len();
            let name: String = src[from..].iter().take_while(|c| is_ident(**c)).collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
    }
    out
}

/// Every read of the environment through `roots`.
fn find_reads(lang: Lang, src: &[char], view: &[char], roots: &[Root]) -> Vec<Read> {
    let mut out = Vec::new();
    for root in roots {
        let (Root::Map(text) | Root::Getter(text)) = *root;
        let pat: Vec<char> = text.chars().collect();
        let mut k = 0;
        while k + pat.len() <= view.len() && out.len() < MAX_READS {
            if view[k..k + pat.len()] != pat[..] {
                k += 1;
                continue;
            }
            let end = k + pat.len();
            let before_ok = k == 0 || {
                let b = view[k - 1];
                !is_ident(b) && (b != '$' || pat[0] == '$') && b != '%' && b != '@'
            };
            let after_ok = view.get(end).is_none_or(|c| !is_ident(*c));
            if !before_ok || !after_ok {
                k = end;
                continue;
            }
            let read = match root {
                Root::Map(_) => match named_after(lang, src, view, end) {
                    Some((name, e)) => Some(Read {
                        start: k,
                        end: e,
                        name,
                        key: None,
                    }),
                    None if names_only_after(view, end) => None,
                    None => Some(Read {
                        start: k,
                        end,
                        name: None,
                        key: None,
                    }),
                },
                Root::Getter(_) => getter_read(lang, src, view, k, end),
            };
            // The read starts at its receiver (`os.environ`).
            out.extend(read.map(|mut r| {
                while r.start > 1 && view[r.start - 1] == '.' && is_ident(view[r.start - 2]) {
                    r.start -= 1;
                    while r.start > 0 && is_ident(view[r.start - 1]) {
                        r.start -= 1;
                    }
                }
                r
            }));
            k = end;
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// After a map at `end`: an index, a member or a method naming one variable
/// (`["T"]`, `{T}`, `.T`, `.get("T")`, `.fetch("T")`), as the name (`None`
/// when it is not a literal) and the index after it.
fn named_after(
    lang: Lang,
    src: &[char],
    view: &[char],
    end: usize,
) -> Option<(Option<String>, usize)> {
    let mut k = end;
    if lang == Lang::Perl && src.get(k) == Some(&'-') && src.get(k + 1) == Some(&'>') {
        k += 2;
    }
    match view.get(k)? {
        '[' | '{' => {
            let close = matching(src, k)?;
            let inner: String = src[k + 1..close].iter().collect();
            Some((literal_name(lang, inner.trim()), close + 1))
        }
        '.' => {
            let m: String = view[k + 1..].iter().take_while(|c| is_ident(**c)).collect();
            let after = k + 1 + m.chars().count();
            if matches!(m.as_str(), "get" | "fetch" | "pop" | "getenv")
                && view.get(after) == Some(&'(')
            {
                let close = matching(src, after)?;
                let inner: String = src[after + 1..close].iter().collect();
                let first = super::split_args(&inner)
                    .into_iter()
                    .next()
                    .unwrap_or_default();
                return Some((literal_name(lang, &first), close + 1));
            }
            // `process.env.T` (JavaScript's members are the variables).
            let member = lang == Lang::Js
                && !m.is_empty()
                && m.chars()
                    .next()
                    .is_some_and(|c| c.is_alphabetic() || c == '_')
                && view.get(after) != Some(&'(');
            member.then_some((Some(m), after))
        }
        _ => None,
    }
}

/// Does what follows a map at `end` keep only its names (`.keys()`,
/// `.key?(…)`, `.has_key?`)?
fn names_only_after(view: &[char], end: usize) -> bool {
    let rest: String = view[end..(end + 12).min(view.len())].iter().collect();
    [
        ".keys",
        ".key?",
        ".has_key",
        ".include?",
        ".each_key",
        ".__contains__",
    ]
    .iter()
    .any(|s| rest.starts_with(s))
}

/// A getter's read: `getenv("T")` names `T`; `getenv()` (and a name that
/// is not a literal) reads the whole environment.
fn getter_read(lang: Lang, src: &[char], view: &[char], start: usize, end: usize) -> Option<Read> {
    let mut a = end;
    while view.get(a) == Some(&' ') {
        a += 1;
    }
    if view.get(a) != Some(&'(') {
        return None;
    }
    let close = matching(src, a)?;
    let inner: String = src[a + 1..close].iter().collect();
    let first = super::split_args(&inner)
        .into_iter()
        .next()
        .unwrap_or_default();
    let name = if first.trim().is_empty() {
        None
    } else {
        literal_name(lang, first.trim())
    };
    Some(Read {
        start,
        end: close + 1,
        name,
        key: None,
    })
}

/// A variable's name written as a literal (or a Perl bareword).
fn literal_name(lang: Lang, expr: &str) -> Option<String> {
    if lang == Lang::Perl && !expr.is_empty() && expr.chars().all(is_ident) {
        return Some(expr.to_string());
    }
    let chars: Vec<char> = expr.chars().collect();
    let (sym, end) = literal_at(lang, &chars, 0)?;
    (end == chars.len()).then(|| sym.literal()).flatten()
}

/// Where the value read at `r` goes, and the innermost key it is given
/// under on the way (for a value stored and sent later).
fn destination(
    src: &[char],
    view: &[char],
    r: &Read,
    prints_result: bool,
) -> (Dest, Option<String>) {
    if reduced_before(view, r) || reduced_after(view, r.end) {
        return (Dest::Reduced, None);
    }
    let mut key: Option<String> = None;
    let mut pos = r.start;
    loop {
        let (opener, sep, k) = scan_level(src, view, pos);
        // A key inside brackets (`data=…`, `"Authorization": …`); at the
        // statement's level, `t = …` is an assignment.
        if key.is_none() && opener.is_some() && sep.is_none() {
            key = k;
        }
        let Some(o) = opener.filter(|_| sep.is_none()) else {
            // The read's statement: at the top, or after a separator.
            let from = sep.map_or_else(|| opener.map_or(0, |o| o + 1), |s| s + 1);
            let d = statement_dest(view, from, pos);
            let top = opener.is_none() && sep.is_none();
            if matches!(d, Dest::Kept) && prints_result && top {
                return (Dest::Sink(Sink::Printed), key);
            }
            return (d, key);
        };
        if view[o] == '{' && !expression_brace(view, o) {
            return (statement_dest(view, o + 1, pos), key);
        }
        if view[o] != '(' {
            pos = o;
            continue;
        }
        let name = call_name(view, o);
        let last = name.rsplit(['.', ':', '>']).next().unwrap_or(&name);
        if matches!(last, "for" | "foreach")
            || (matches!(last, "while" | "if") && assigns_between(view, o, r.start))
        {
            return (Dest::Kept, key);
        }
        if REDUCES.contains(&last) || (r.name.is_none() && NAMES_OF_WHOLE.contains(&last)) {
            return (Dest::Reduced, None);
        }
        if PRINTS.contains(&last) {
            return (Dest::Sink(Sink::Printed), key);
        }
        if sends(&name, last) {
            let k = r.key.as_deref().or(key.as_deref());
            let place = sent_place(k, r.name.as_deref());
            return (Dest::Sink(Sink::Sent(place)), key);
        }
        if !last.is_empty() && !TRANSPARENT.contains(&last) {
            return (Dest::Used, key);
        }
        pos = o;
    }
}

/// Is there an assignment (`=`, not `==`) between `open` and `at`
/// (`while (my ($k, $v) = each %ENV)`)?
fn assigns_between(view: &[char], open: usize, at: usize) -> bool {
    (open + 1..at).any(|i| {
        view[i] == '='
            && !matches!(view[i - 1], '=' | '!' | '<' | '>')
            && !matches!(view.get(i + 1), Some('=' | '>' | '~'))
    })
}

/// The read at `at` in a statement starting at `from`: printed when a
/// printing keyword heads it or a part of it outside brackets (`print
/// $ENV{T}`, `puts ENV["T"]`, `for (k in ENVIRON) print ENVIRON[k]`).
fn statement_dest(view: &[char], from: usize, at: usize) -> Dest {
    let mut depth = 0i32;
    let mut k = from;
    while k < at {
        let c = view[k];
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if depth <= 0
                && is_ident(c)
                && (k == 0 || !is_ident(view[k - 1]) && view[k - 1] != '.') =>
            {
                let word: String = view[k..at].iter().take_while(|c| is_ident(**c)).collect();
                let len = word.chars().count();
                let after = view[k + len..at].iter().find(|c| **c != ' ');
                let assigned = matches!(after, Some('=' | '.'));
                if PRINT_WORDS.contains(&word.as_str()) && !assigned {
                    return Dest::Sink(Sink::Printed);
                }
                k += len;
                continue;
            }
            _ => {}
        }
        k += 1;
    }
    Dest::Kept
}

/// One level of the walk outward from `pos`: the bracket that opens the
/// level (if any), the last statement separator (`;`, a new line) between it
/// and `pos` (if any), and the key the value at `pos` is given under at this
/// level (`"Authorization": …`, `data=…`), if any.
fn scan_level(
    src: &[char],
    view: &[char],
    pos: usize,
) -> (Option<usize>, Option<usize>, Option<String>) {
    let mut depth = 0usize;
    let mut key: Option<String> = None;
    let mut listed = false;
    let mut sep: Option<usize> = None;
    let mut k = pos;
    while k > 0 {
        k -= 1;
        let c = view[k];
        match c {
            ')' | ']' | '}' => depth += 1,
            '(' | '[' | '{' if depth == 0 => return (Some(k), sep, key),
            '(' | '[' | '{' => depth -= 1,
            ';' | '\n' if depth == 0 && sep.is_none() => sep = Some(k),
            ',' if depth == 0 => listed = true,
            ':' | '=' if depth == 0 && key.is_none() && !listed && sep.is_none() => {
                let prev = k.checked_sub(1).map(|p| view[p]);
                let next = view.get(k + 1).copied();
                let operator = matches!(
                    prev,
                    Some('=' | '!' | '<' | '>' | ':' | '+' | '-' | '*' | '/')
                ) || matches!(next, Some('=' | ':'));
                if !operator {
                    key = key_before(src, view, k);
                }
            }
            '>' if depth == 0 && k > 0 && view[k - 1] == '=' && key.is_none() && !listed => {
                key = key_before(src, view, k - 1);
            }
            _ => {}
        }
    }
    (None, sep, key)
}

/// The key before a `:`/`=`/`=>` at `at`: a name or a string literal.
fn key_before(src: &[char], view: &[char], at: usize) -> Option<String> {
    let mut e = at;
    while e > 0 && view[e - 1] == ' ' {
        e -= 1;
    }
    if e == 0 {
        return None;
    }
    if matches!(src[e - 1], '"' | '\'') {
        let q = src[e - 1];
        let s = (0..e - 1).rev().find(|i| src[*i] == q)?;
        return Some(src[s + 1..e - 1].iter().collect());
    }
    let mut s = e;
    while s > 0 && (is_ident(view[s - 1]) || view[s - 1] == '-') {
        s -= 1;
    }
    (s < e).then(|| src[s..e].iter().collect())
}

/// The name of the call whose `(` (or block) opens at `open`: the dotted
/// chain before it (`requests.post`, `console.log`, `sys.stdout.write`).
fn call_name(view: &[char], open: usize) -> String {
    let mut e = open;
    while e > 0 && view[e - 1] == ' ' {
        e -= 1;
    }
    let mut s = e;
    while s > 0 && (is_ident(view[s - 1]) || matches!(view[s - 1], '.' | ':' | '>' | '-' | '$')) {
        if view[s - 1] == '>' && (s < 2 || view[s - 2] != '-') {
            break;
        }
        s -= 1;
    }
    view[s..e].iter().collect()
}

/// Does a call named `name` (last part `last`) send its arguments off the
/// machine?
fn sends(name: &str, last: &str) -> bool {
    if SENDS.contains(&last) {
        return true;
    }
    last == "get"
        && name
            .split(['.', ':', '>'])
            .next()
            .is_some_and(|c| GET_CLIENTS.contains(&c))
}

/// The place a sent value is given in, as a `curl`-like word the policy's
/// credential places can judge: `KEY=$NAME`, or `$NAME` under no key.
fn sent_place(key: Option<&str>, name: Option<&str>) -> String {
    let value = format!("${}", name.unwrap_or("ENV"));
    match key {
        Some(k) => format!("{k}={value}"),
        None => value,
    }
}

/// Is the `{` at `open` an expression (an object, a dict, a hash: after
/// `(`, `,`, `=`, `:`, `[`, `return`) rather than a block?
fn expression_brace(view: &[char], open: usize) -> bool {
    let mut k = open;
    while k > 0 && view[k - 1] == ' ' {
        k -= 1;
    }
    if k == 0 {
        return false;
    }
    let before: String = view[k.saturating_sub(6)..k].iter().collect();
    matches!(view[k - 1], '(' | ',' | '=' | ':' | '[' | '{') && !before.ends_with("=>")
        || before.ends_with("return")
}

/// Is the read at `start` given to a word that keeps only a length, a test
/// or names (`defined $ENV{T}`, `keys %ENV`, `!process.env.T`, `"T" in
/// os.environ`)?
fn reduced_before(view: &[char], r: &Read) -> bool {
    let mut k = r.start;
    while k > 0 && view[k - 1] == ' ' {
        k -= 1;
    }
    if k > 0 && view[k - 1] == '!' {
        return true;
    }
    let mut s = k;
    while s > 0 && is_ident(view[s - 1]) {
        s -= 1;
    }
    let word: String = view[s..k].iter().collect();
    if word == "in" {
        // `"T" in os.environ`, `for k in os.environ`: the names; but `for k,
        // v in os.environ.items()` iterates the values.
        return r.name.is_none() && view.get(r.end) != Some(&'.');
    }
    REDUCES.contains(&word.as_str())
}

/// Does what follows the read at `end` keep only a length or a test
/// (`.length`, `== "x"`, `? a : b`, `is None`)?
fn reduced_after(view: &[char], end: usize) -> bool {
    let rest: String = view[end..(end + 16).min(view.len())].iter().collect();
    let trimmed = rest.trim_start();
    if trimmed.starts_with("?.") || trimmed.starts_with("??") {
        return false;
    }
    SUFFIX_REDUCES
        .iter()
        .any(|s| rest.starts_with(s) || (!s.starts_with(' ') && trimmed.starts_with(s)))
}

/// The variables a kept read is stored in: the left side of its assignment
/// (`t = …`, `my ($k, $v) = each %ENV`, `const t = …`), the variables of a
/// loop over it (`for k, v in os.environ.items()`, `for (const [k, v] of
/// Object.entries(process.env))`), or the parameters of the block or
/// function an iteration of it runs (`ENV.each { |k, v| … }`,
/// `.forEach(([k, v]) => …)`). Iterating the whole map itself gives its
/// names only.
fn bound_to(lang: Lang, src: &[char], view: &[char], r: &Read) -> Vec<String> {
    // The statement the read is in, at the outermost level its brackets
    // reach (up to a block, a loop's or test's parentheses, a separator).
    let mut pos = r.start;
    let mut from = 0;
    let mut loop_head = false;
    loop {
        let (opener, sep, _) = scan_level(src, view, pos);
        match (opener, sep) {
            (_, Some(s)) => {
                from = s + 1;
                break;
            }
            (Some(o), None) if view[o] == '{' && !expression_brace(view, o) => {
                from = o + 1;
                break;
            }
            (Some(o), None) if view[o] == '(' => {
                let name = call_name(view, o);
                if matches!(name.as_str(), "for" | "foreach" | "while" | "if") {
                    loop_head = matches!(name.as_str(), "for" | "foreach");
                    from = o + 1;
                    break;
                }
                pos = o;
            }
            (Some(o), None) => pos = o,
            (None, None) => break,
        }
    }
    let head: String = view[from..r.start].iter().collect();
    let mut out = Vec::new();
    // A loop: `for VARS in|of …`.
    let for_at = if loop_head {
        Some(0)
    } else {
        head.rfind("for ").map(|f| f + 4)
    };
    if let Some(f) = for_at {
        let tail = &head[f..];
        if let Some(cut) = tail.rfind(" in ").or_else(|| tail.rfind(" of ")) {
            let after: String = view[r.end..].iter().collect();
            let a = after.trim_start();
            let whole_iterated =
                r.name.is_none() && (a.is_empty() || a.starts_with([':', ')', ']']));
            // `for k in os.environ`, `for (k in ENVIRON)`: the names.
            if !(whole_iterated && tail[cut..].starts_with(" in ")) {
                out.extend(idents(&tail[..cut]));
            }
            return out;
        }
    }
    // An assignment: `LHS = …` at the statement's level.
    let chars: Vec<char> = head.chars().collect();
    let mut depth = 0i32;
    for (i, c) in chars.iter().enumerate() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '=' if depth <= 1 => {
                let prev = i.checked_sub(1).map(|p| chars[p]);
                let next = chars.get(i + 1);
                let op = matches!(prev, Some('=' | '!' | '<' | '>'))
                    || matches!(next, Some('=' | '>' | '~'));
                if !op {
                    let lhs: String = chars[..i].iter().collect();
                    out.extend(idents(&lhs));
                    return out;
                }
            }
            _ => {}
        }
    }
    // Parameters of the block or arrow function an iteration over it runs:
    // `ENV.each { |k, v| … }`, `Object.entries(process.env).forEach(([k, v]) => …)`.
    let after: String = view[r.end..(r.end + 160).min(view.len())].iter().collect();
    let Some(it) = ITERATES.iter().filter_map(|m| after.find(m)).min() else {
        return out;
    };
    // Only the read's own chain leads there (closing brackets, members).
    if after[..it]
        .chars()
        .any(|c| matches!(c, '(' | ';' | '\n' | ','))
    {
        return out;
    }
    let rest = &after[it..];
    if lang == Lang::Ruby {
        if let Some(open) = rest.find('|') {
            if let Some(close) = rest[open + 1..].find('|') {
                out.extend(idents(&rest[open + 1..open + 1 + close]));
            }
        }
    } else if let Some(arrow) = rest.find("=>") {
        let before = &rest[..arrow];
        let params = before.find("((").map_or_else(
            || before.rsplit(|c: char| !is_ident(c)).nth(1).unwrap_or(""),
            |p| &before[p..],
        );
        out.extend(idents(params));
    } else if let Some(f) = rest.find("function") {
        if let Some(close) = rest[f..].find(')') {
            out.extend(idents(&rest[f + "function".len()..f + close]));
        }
    }
    out
}

/// Methods that run a block or function on each entry of a map.
const ITERATES: &[&str] = &[
    ".each",
    ".forEach(",
    ".map(",
    ".filter(",
    ".reduce(",
    ".flatMap(",
    ".select",
    ".collect",
    ".sort_by",
    ".find(",
];

/// The variable names in a binding (`my ($k, $v)`, `const [k, v]`, `k, v`).
fn idents(text: &str) -> Vec<String> {
    const NOT_NAMES: &[&str] = &[
        "my", "our", "local", "const", "let", "var", "for", "each", "in", "of",
    ];
    text.split(|c: char| !is_ident(c))
        .filter(|w| {
            !w.is_empty()
                && !NOT_NAMES.contains(w)
                && !w.chars().next().is_some_and(|c| c.is_ascii_digit())
        })
        .map(str::to_string)
        .collect()
}

/// Where a variable occurs in the code (as a whole word, in code or in an
/// interpolation).
fn occurrences(view: &[char], var: &str) -> Vec<(usize, usize)> {
    let pat: Vec<char> = var.chars().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k + pat.len() <= view.len() && out.len() < MAX_READS {
        if view[k..k + pat.len()] == pat[..]
            && (k == 0 || !is_ident(view[k - 1]) && view[k - 1] != '.')
            && view.get(k + pat.len()).is_none_or(|c| !is_ident(*c))
        {
            out.push((k, k + pat.len()));
            k += pat.len();
        } else {
            k += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the code's reads amount to: `printed NAME`, `sent NAME at PLACE`
    /// (`*` for the whole environment).
    fn found(lang: Lang, code: &str, prints_result: bool) -> Vec<String> {
        effects(lang, code, prints_result)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Env { name, sink } => {
                    let n = name.unwrap_or_else(|| "*".into());
                    Some(match sink {
                        Sink::Printed => format!("printed {n}"),
                        Sink::Sent(p) => format!("sent {n} at {p}"),
                    })
                }
                _ => None,
            })
            .collect()
    }

    /// (language, code, what its reads amount to). Cases of every language
    /// and both directions: printed, saved or sent, and used, tested or
    /// reduced to names.
    const CASES: &[(Lang, &str, &[&str])] = &[
        (Lang::Python, "import os; print(os.environ['T_TOKEN'])", &["printed T_TOKEN"]),
        (Lang::Python, "import os; [print(k, v) for k, v in os.environ.items()]", &["printed *"]),
        (Lang::Python, "import os\nfor k in os.environ:\n  print(k)", &[]),
        (Lang::Python, "import os; t = os.getenv('A_KEY'); print(t)", &["printed A_KEY"]),
        (Lang::Python, "import os; print(len(os.environ['A_KEY']))", &[]),
        (Lang::Python, "import os; print('set' if os.environ.get('A_KEY') else 'no')", &[]),
        (Lang::Python, "import os; c = Client(token=os.environ['A']); print(c.me())", &[]),
        (
            Lang::Python,
            "import os,requests; h = {'Authorization': 'Bearer ' + os.environ['T']}; requests.post(u, headers=h)",
            &["sent T at Authorization=$T"],
        ),
        (Lang::Python, "requests.post(u, data=os.environ['T'])", &["sent T at data=$T"]),
        (Lang::Python, "print('os.environ[\"T\"]')", &[]),
        (Lang::Perl, "print $ENV{T}", &["printed T"]),
        (Lang::Perl, "print \"$_=$ENV{$_}\\n\" for keys %ENV", &["printed *"]),
        (Lang::Perl, "while (my ($k, $v) = each %ENV) { print \"$k=$v\\n\" }", &["printed *"]),
        (Lang::Perl, "print length $ENV{T}", &[]),
        (Lang::Ruby, "ENV.each { |k, v| puts \"#{k}=#{v}\" }", &["printed *"]),
        (Lang::Ruby, "puts ENV.keys", &[]),
        (Lang::Js, "const t = process.env.T; console.log(t)", &["printed T"]),
        (Lang::Js, "process.env.T", &[]),
        (Lang::Js, "console.log(Object.keys(process.env))", &[]),
        (Lang::Js, "Object.entries(process.env).forEach(([k, v]) => console.log(k, v))", &["printed *"]),
        (Lang::Js, "new Octokit({auth: process.env.T}).get().then(r => console.log(r.data))", &[]),
        (Lang::Awk, "BEGIN { for (k in ENVIRON) print k \"=\" ENVIRON[k] }", &["printed *"]),
        (Lang::Awk, "BEGIN { for (k in ENVIRON) print k }", &[]),
        (Lang::Php, "echo getenv('T');", &["printed T"]),
        (Lang::Php, "var_dump(getenv());", &["printed *"]),
        (Lang::Lua, "print(os.getenv('T'))", &["printed T"]),
        (Lang::R, "cat(Sys.getenv('T'))", &["printed T"]),
    ];

    #[test]
    fn reads_go_where_the_code_sends_them() {
        for (lang, code, want) in CASES {
            assert_eq!(found(*lang, code, false), *want, "{code}");
        }
    }

    #[test]
    fn a_printed_result_prints_a_bare_read() {
        assert_eq!(found(Lang::Js, "process.env.T", true), ["printed T"]);
        assert_eq!(
            found(Lang::Js, "!!process.env.T", true),
            Vec::<String>::new()
        );
    }
}
