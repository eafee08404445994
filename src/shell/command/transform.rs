//! `tar --transform` (`--xform`): the sed `s` expressions GNU tar applies to
//! each member's name before it writes it.
//!
//! An expression is `s/REGEX/REPLACEMENT/FLAGS`, any delimiter, several joined
//! by `;` in one option, options applied in the order given (GNU tar manual,
//! "Modifying File and Member Names"). REGEX is a POSIX basic regular
//! expression, or extended with the `x` flag; the flags are `g`, `i`, `x`, a
//! match number, and `r`/`R`/`s`/`S`/`h`/`H` (which kinds of
//! member it applies to: ignored here, so every name is rewritten, the reading
//! that finds more places a member can land). REPLACEMENT has `&` and `\1`–`\9`.
//!
//! Written by hand: the regex crate has no POSIX basic syntax, and the
//! translation is small. What cannot be translated (back-references inside
//! REGEX, GNU's case conversions `\U`, `\L`, …, a match number) makes [`Transform::parse`]
//! return `None`: the names are then unknown, as for an archive that cannot
//! be read.

use regex::{Regex, RegexBuilder};

/// One `s` expression.
#[derive(Debug)]
struct Subst {
    re: Regex,
    /// The replacement as a `regex` expansion template (`${1}`, `$$`).
    with: String,
    global: bool,
}

/// Every expression of every `--transform` option, in order.
#[derive(Debug, Default)]
pub struct Transform(Vec<Subst>);

impl Transform {
    /// The expressions of the options' values, or `None` when one of them is
    /// not an expression this reading can apply.
    #[must_use]
    pub fn parse<'a>(options: impl IntoIterator<Item = &'a str>) -> Option<Transform> {
        let mut out = Vec::new();
        for text in options {
            let mut rest = text;
            loop {
                let (subst, after) = subst(rest)?;
                out.push(subst);
                match after.strip_prefix(';') {
                    Some(r) if !r.trim().is_empty() => rest = r.trim_start(),
                    _ if after.trim().is_empty() || after.trim() == ";" => break,
                    _ => return None,
                }
            }
        }
        Some(Transform(out))
    }

    /// The name a member is written under.
    #[must_use]
    pub fn apply(&self, name: &str) -> String {
        let mut name = name.to_string();
        for s in &self.0 {
            let mut out = String::new();
            let mut last = 0;
            for caps in s.re.captures_iter(&name) {
                let m = caps.get(0).map_or(0..0, |m| m.range());
                out.push_str(&name[last..m.start]);
                caps.expand(&s.with, &mut out);
                last = m.end;
                if !s.global {
                    break;
                }
            }
            out.push_str(&name[last..]);
            name = out;
        }
        name
    }
}

/// One `s` expression at the start of `text`, and what follows it.
fn subst(text: &str) -> Option<(Subst, &str)> {
    let mut chars = text.strip_prefix('s')?.chars();
    let delim = chars.next().filter(|c| *c != '\\' && *c != '\n')?;
    let rest = chars.as_str();
    let (pattern, rest) = field(rest, delim)?;
    let (replacement, rest) = field(rest, delim)?;
    let flags_end = rest.find(';').unwrap_or(rest.len());
    let (flags, after) = rest.split_at(flags_end);
    let (mut global, mut icase, mut extended) = (false, false, false);
    for f in flags.trim().chars() {
        match f {
            'g' => global = true,
            'i' => icase = true,
            'x' => extended = true,
            'r' | 'R' | 's' | 'S' | 'h' | 'H' => {}
            // A match number: GNU tar 1.34 writes names that follow no rule
            // `pkg/.claude/` into `pkg/.clpkg/.claude/`), so the names are
            // unknown.
            _ if f.is_ascii_digit() => return None,
            _ => return None,
        }
    }
    let re = RegexBuilder::new(&regex_of(&pattern, extended)?)
        .case_insensitive(icase)
        .size_limit(1 << 20)
        .build()
        .ok()?;
    let subst = Subst {
        re,
        with: template_of(&replacement)?,
        global,
    };
    Some((subst, after))
}

/// The text up to the next unescaped `delim` (`\delim` is the delimiter
/// itself), and what follows it.
fn field(text: &str, delim: char) -> Option<(String, &str)> {
    let mut out = String::new();
    let mut it = text.char_indices();
    while let Some((i, c)) = it.next() {
        if c == delim {
            return Some((out, &text[i + c.len_utf8()..]));
        }
        if c == '\\' {
            let (_, next) = it.next()?;
            if next != delim {
                out.push('\\');
            }
            out.push(next);
        } else {
            out.push(c);
        }
    }
    None
}

/// A POSIX regular expression (basic, or extended) in the regex crate's
/// syntax.
fn regex_of(posix: &str, extended: bool) -> Option<String> {
    let chars: Vec<char> = posix.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // Where a `*` is literal in a basic expression: at the start, after
    // `\(`, `^` or `\|`.
    let mut at_start = true;
    while let Some(&c) = chars.get(i) {
        let start = at_start;
        at_start = false;
        match c {
            '[' => {
                // A bracket expression, copied; a `]` first in it is literal,
                // a backslash in it is literal.
                out.push('[');
                i += 1;
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str("\\]");
                    i += 1;
                }
                loop {
                    match chars.get(i)? {
                        ']' => break,
                        '[' if matches!(chars.get(i + 1), Some(':' | '.' | '=')) => {
                            let close = chars.get(i + 1).copied()?;
                            let end = (i + 2..chars.len().saturating_sub(1))
                                .find(|&k| chars[k] == close && chars[k + 1] == ']')?;
                            if close != ':' {
                                return None;
                            }
                            out.extend(&chars[i..end + 2]);
                            i = end + 2;
                        }
                        // Literal in POSIX, an escape or a class operator in
                        // the regex crate.
                        '\\' | '[' | '&' | '~' => {
                            out.push('\\');
                            out.push(chars[i]);
                            i += 1;
                        }
                        other => {
                            out.push(*other);
                            i += 1;
                        }
                    }
                }
                out.push(']');
            }
            '\\' => {
                i += 1;
                let e = *chars.get(i)?;
                match e {
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' if !extended => {
                        out.push(e);
                        at_start = e == '(' || e == '|';
                    }
                    '1'..='9' => return None,
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'w' | 'W' | 's' | 'S' | 'b' | 'B' => {
                        out.push('\\');
                        out.push(e);
                    }
                    '<' | '>' | '`' | '\'' => return None,
                    other => out.push_str(&regex::escape(&other.to_string())),
                }
            }
            '(' | ')' | '{' | '}' | '|' | '+' | '?' if !extended => {
                out.push('\\');
                out.push(c);
            }
            '*' if start && !extended => out.push_str("\\*"),
            '^' => {
                out.push('^');
                at_start = true;
            }
            '(' | '|' if extended => {
                out.push(c);
                at_start = true;
            }
            other => out.push(other),
        }
        i += 1;
    }
    Some(out)
}

/// A sed replacement (`&`, `\1`, `\&`, `\n`) as a regex expansion template.
fn template_of(replacement: &str) -> Option<String> {
    let mut out = String::new();
    let mut it = replacement.chars();
    while let Some(c) = it.next() {
        match c {
            '&' => out.push_str("${0}"),
            '$' => out.push_str("$$"),
            '\\' => match it.next()? {
                d @ '0'..='9' => out.push_str(&format!("${{{d}}}")),
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'U' | 'L' | 'u' | 'l' | 'E' => return None,
                '$' => out.push_str("$$"),
                other => out.push(other),
            },
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::Transform;

    fn t(exprs: &[&str], name: &str) -> Option<String> {
        Transform::parse(exprs.iter().copied()).map(|t| t.apply(name))
    }

    #[test]
    fn names_are_rewritten_as_gnu_tar_does() {
        // Each expected name checked with GNU tar 1.34:
        // `tar -tvf A --transform E --show-transformed-names`.
        assert_eq!(
            t(&["s,^lib,.claude,"], "lib/src/a.rs").unwrap(),
            ".claude/src/a.rs"
        );
        assert_eq!(t(&["s/^/vendor\\//"], "a/b").unwrap(), "vendor/a/b");
        assert_eq!(t(&["s|a|X|g"], "a/a/b").unwrap(), "X/X/b");
        assert_eq!(
            t(&["s/\\(.*\\)\\.txt/\\1.md/"], "d/x.txt").unwrap(),
            "d/x.md"
        );
        assert_eq!(t(&["s/(.*)\\.txt/\\1.md/x"], "d/x.txt").unwrap(), "d/x.md");
        assert_eq!(t(&["s/A/b/i"], "a/c").unwrap(), "b/c");
        assert_eq!(t(&["s/x/&&/"], "x").unwrap(), "xx");
        assert_eq!(
            t(&["s/a+/b/"], "aa+").unwrap(),
            "ab",
            "`+` is literal in a basic expression"
        );
        assert_eq!(t(&["s/^a/b/;s/^b/c/"], "a").unwrap(), "c");
        assert_eq!(t(&["s/^a/b/", "s/^b/$HOME/"], "a").unwrap(), "$HOME");
    }

    #[test]
    fn what_cannot_be_applied_is_unknown() {
        assert!(
            t(&["s/\\(a\\)\\1/x/"], "aa").is_none(),
            "back-reference in the pattern"
        );
        assert!(t(&["s/a/\\U&/"], "a").is_none(), "case conversion");
        assert!(t(&["s/a/b"], "a").is_none(), "unterminated");
        assert!(t(&["y/a/b/"], "a").is_none(), "not an s expression");
        assert!(t(&["s/a/b/q"], "a").is_none(), "unknown flag");
        assert!(t(&["s|a|X|2"], "a/a").is_none(), "a match number");
        // tar ends the pattern at the first delimiter, in brackets too, and
        // refuses the rest.
        assert!(t(&["s/[^/]*/top/"], "pkg/.claude").is_none());
    }
}
