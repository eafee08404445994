//! Literals a pattern requires: text that every match of a regex (or glob)
//! contains. They let `run` decide that a rule, or a whole pattern list, cannot
//! match without building a `RegexSet` or `GlobSet`.
//!
//! Literals are compared ASCII-case-insensitively: they are lowercased here and
//! the text they are looked for in is ASCII-lowercased. That is sound under
//! `(?i)` too, because a class is only taken as a literal character when it is
//! exactly one character or one ASCII letter in both cases (`(?i)k` also holds the
//! Kelvin sign, so it is not).

/// Shortest literal worth using.
pub const MIN_LEN: usize = 3;
/// At most this many alternatives (beyond, nothing is required).
pub const MAX_ALTERNATIVES: usize = 64;

/// Literals one of which every match of the regex contains (lowercase), or
/// `None` when nothing useful is known.
pub fn of_regex(pattern: &str) -> Option<Vec<String>> {
    let out: Option<Vec<String>> = regex_needles(pattern)?.iter().map(|s| usable(s)).collect();
    out.and_then(finish)
}

/// Like [`of_regex`], but of any length (`(` for `\( ?\)`): short ones pick
/// rules less well, but tell as surely that a text cannot match.
pub fn regex_needles(pattern: &str) -> Option<Vec<String>> {
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    finish(required(&hir)?)
}

/// The longest literal run of a glob (lowercase) that every path it matches
/// contains (braces, classes and escapes break runs), or `None` (short runs,
/// a pattern that does not compile).
pub fn of_glob(pattern: &str) -> Option<String> {
    // The one other way a glob can be invalid: `**` not a whole path component.
    // An invalid pattern gets no literal, so it still reports itself when used.
    let b = pattern.as_bytes();
    for (i, _) in pattern.match_indices("**") {
        let before = i == 0 || b[i - 1] == b'/';
        let after = i + 2 == b.len() || b[i + 2] == b'/';
        if !before || !after {
            return None;
        }
    }
    if pattern.contains(['{', '}', '[', ']', '\\']) && !balanced(pattern) {
        return None;
    }
    // Braces, classes and escapes are not literal text: the runs between them
    // are (`secret.{yaml,json}` holds `secret.`; `.env\*` holds `.env`). A run
    // is a slice of the pattern; the longest (the last of equal length) wins.
    // (No allocation per run: `run` reads the lists of every rule it decodes.)
    let mut best = (0usize, 0usize);
    let mut run: Option<(usize, usize)> = None;
    let mut end_run = |run: &mut Option<(usize, usize)>| {
        let (s, e) = run.take().unwrap_or((0, 0));
        if e - s >= best.1 - best.0 {
            best = (s, e);
        }
    };
    let mut depth = 0usize;
    let mut chars = pattern.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' | '[' => {
                depth += 1;
                end_run(&mut run);
            }
            '}' | ']' if depth > 0 => depth -= 1,
            '\\' => {
                chars.next();
                end_run(&mut run);
            }
            '*' | '?' => end_run(&mut run),
            c if depth == 0 => {
                let e = i + c.len_utf8();
                run = Some(run.map_or((i, e), |(s, _)| (s, e)));
            }
            _ => {}
        }
    }
    end_run(&mut run);
    Some(&pattern[best.0..best.1])
        .filter(|run| run.len() >= MIN_LEN && run.is_ascii())
        .map(|run| run.to_ascii_lowercase())
}

/// Are a glob's braces and brackets paired, with no escape at its end? (A
/// pattern that is not gets no literal, so compiling it reports the error.)
fn balanced(pattern: &str) -> bool {
    let mut stack = vec![];
    let mut chars = pattern.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.next().is_none() => return false,
            '\\' => {}
            '{' => stack.push('}'),
            '[' if stack.last() != Some(&']') => stack.push(']'),
            '}' | ']' if stack.last() == Some(&c) => {
                stack.pop();
            }
            '}' => return false,
            _ => {}
        }
    }
    stack.is_empty()
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

/// A literal usable as a requirement: long enough, and free of control
/// characters (texts are joined with NUL when searched).
pub fn usable(s: &str) -> Option<String> {
    let ok = s.len() >= MIN_LEN && !s.chars().any(|c| c.is_control());
    ok.then(|| s.to_ascii_lowercase())
}

/// A literal the prefilter can look for (lowercase): not empty, and free of
/// control characters (texts are joined with NUL when searched). A short one
/// keeps more rules than a long one, but a rule with no literal is kept always.
pub fn needle(s: &str) -> Option<String> {
    let ok = !s.is_empty() && !s.chars().any(|c| c.is_control());
    ok.then(|| s.to_ascii_lowercase())
}

/// Sorted, deduplicated, and not too many.
pub fn finish<T: Ord>(mut v: Vec<T>) -> Option<Vec<T>> {
    v.sort();
    v.dedup();
    (!v.is_empty() && v.len() <= MAX_ALTERNATIVES).then_some(v)
}

/// [`finish`] for the literals of a glob list: path lists are long (the secret
/// files), and a few hundred substring searches in a path cost far less than
/// compiling the list.
pub fn finish_globs(mut v: Vec<String>) -> Option<Vec<String>> {
    v.sort();
    v.dedup();
    (!v.is_empty() && v.len() <= 4 * MAX_ALTERNATIVES).then_some(v)
}

/// Does any literal occur in the (already ASCII-lowercased) text?
pub fn any_in(literals: &[String], lowered: &[u8]) -> bool {
    literals
        .iter()
        .any(|l| memchr::memmem::find(lowered, l.as_bytes()).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_literals_are_required_substrings_and_sound_under_case_folding() {
        let v = |s: &[&str]| Some(s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(of_regex(r"\bgit\s+push\b"), v(&["push"]));
        assert_eq!(of_regex(r"(?i)\bhandoff\b.*\bagent\b"), v(&["handoff"]));
        assert_eq!(of_regex(r"deploy|release"), v(&["deploy", "release"]));
        // (?i)s also matches U+017F: the run breaks at `s`, keeping a sound literal.
        assert_eq!(of_regex(r"(?i)secret"), v(&["ecret"]));
        assert_eq!(of_regex(r"(?i)kk"), None, "(?i)k holds the Kelvin sign");
        assert_eq!(of_regex(r"a.*b"), None, "too short");
        assert_eq!(
            of_regex(r"(foo)?bar"),
            v(&["bar"]),
            "an optional part is not required"
        );
        assert_eq!(of_regex(r"\.env"), v(&[".env"]));
    }

    /// `of_glob` as first written (a `String` per run), for comparison.
    fn of_glob_by_runs(pattern: &str) -> Option<String> {
        of_glob(pattern)?; // the same validity checks
        let mut runs = vec![];
        let mut cur = String::new();
        let mut depth = 0usize;
        let mut chars = pattern.chars();
        while let Some(c) = chars.next() {
            match c {
                '{' | '[' => {
                    depth += 1;
                    runs.push(std::mem::take(&mut cur));
                }
                '}' | ']' if depth > 0 => depth -= 1,
                '\\' => {
                    chars.next();
                    runs.push(std::mem::take(&mut cur));
                }
                '*' | '?' => runs.push(std::mem::take(&mut cur)),
                c if depth == 0 => cur.push(c),
                _ => {}
            }
        }
        runs.push(cur);
        runs.into_iter()
            .max_by_key(String::len)
            .filter(|run| run.len() >= MIN_LEN && run.is_ascii())
            .map(|run| run.to_ascii_lowercase())
    }

    #[test]
    fn glob_literals_are_the_longest_run() {
        for p in [
            "abc{de,f}ghi",
            "{x}abc]def",
            "ab\\*cdef\\",
            "[a-z]bcd[e]fgh",
            "**/.git/**",
            "~/.SSH/**",
            "secret.{yaml,yml}",
            "*-secrets.{yaml,yml,json}",
            ".env\\*",
            "écrit*.txt",
            "abc*def",
            "a{b{c}d}efgh",
            "x]yzw",
            "id_rsa*",
            "",
            "*",
            "{a,b}",
            "/etc/ssl/private/**",
        ] {
            let by_runs = if of_glob(p).is_some() {
                of_glob_by_runs(p)
            } else {
                None
            };
            assert_eq!(of_glob(p), by_runs, "{p:?}");
        }
    }

    #[test]
    fn glob_literals() {
        assert_eq!(of_glob("*.pem").as_deref(), Some(".pem"));
        assert_eq!(of_glob("~/.ssh/**").as_deref(), Some("~/.ssh/"));
        assert_eq!(of_glob("id_*").as_deref(), Some("id_"));
        assert_eq!(of_glob("*.{pem,key}"), None);
        assert_eq!(of_glob("*.p?"), None);
        assert_eq!(
            of_glob("secret**.pem"),
            None,
            "`**` inside a name: no literal"
        );
        assert_eq!(of_glob("**/.git/**").as_deref(), Some("/.git/"));
    }
}
