//! One reading of code text for the languages the analysis reads in part
//! (script one-liners, build files, Lisp, HCL, macro languages): string
//! literals and nested brackets are honoured, so that a list splits at its
//! top level, a bracket finds its match and a call's text ends where the call
//! does.
//!
//! Hand-written on purpose: each language's grammar is out of reach, and these
//! questions need only its strings and its brackets. What differs between the
//! languages is how they write strings ([`Literals`]); everything else is one
//! walk ([`Literals::tokens`]).

use std::iter::Peekable;

/// How a language writes string literals, as far as nesting needs to know.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Literals {
    /// Characters that open a string literal (the same character closes it).
    quotes: &'static [char],
}

impl Literals {
    /// `'…'`, `"…"` and `` `…` ``: the script languages (Python, Ruby, Perl,
    /// JavaScript, PHP, Lua, R, Julia).
    pub(crate) const SCRIPT: Self = Self {
        quotes: &['\'', '"', '`'],
    };
    /// `'…'` and `"…"`: build files (Gradle, sbt, HCL, Nix, Meson, Zig),
    /// Elixir.
    pub(crate) const QUOTES: Self = Self {
        quotes: &['\'', '"'],
    };
    /// `"…"` only: Lisp and Clojure (where `'` quotes a form), HCL and Nix
    /// blocks.
    pub(crate) const DOUBLE: Self = Self { quotes: &['"'] };
    /// No strings: macro languages (m4, rpm, TeX) and text whose strings are
    /// already masked.
    pub(crate) const NONE: Self = Self { quotes: &[] };

    /// The walk: each character outside string literals with its depth, and
    /// each string literal whole. A backslash inside a literal escapes the
    /// character after it. `chars` are (index, character) pairs, the indices
    /// being whatever the caller counts in (bytes of a `str`, places in a
    /// `[char]`).
    pub(crate) fn tokens<I: Iterator<Item = (usize, char)>>(self, chars: I) -> Tokens<I> {
        Tokens {
            chars: chars.peekable(),
            quotes: self.quotes,
            depth: 0,
        }
    }

    /// Byte index in `text` of the bracket that closes the one at `open`
    /// (`(`, `[` or `{`); `None` when there is none there or it is never
    /// closed. Only brackets of its kind count, so that stray brackets of
    /// another kind (a `case` pattern's `)` in shell text inside a block)
    /// do not end it early.
    pub(crate) fn close_in(self, text: &str, open: usize) -> Option<usize> {
        self.close(text.get(open..)?.char_indices().map(|(i, c)| (open + i, c)))
    }

    /// [`Literals::close_in`] for text held as characters: the place in `src`
    /// of the bracket that closes the one at `open`.
    pub(crate) fn close_in_chars(self, src: &[char], open: usize) -> Option<usize> {
        self.close(src.iter().copied().enumerate().skip(open))
    }

    /// The text inside the bracket at byte `open` of `text`, up to its match
    /// (or to the end when it is never closed).
    pub(crate) fn inside(self, text: &str, open: usize) -> &str {
        let rest = text.get(open + 1..).unwrap_or("");
        match self.close_in(text, open) {
            Some(close) => &text[open + 1..close],
            None => rest,
        }
    }

    fn close(self, mut chars: impl Iterator<Item = (usize, char)>) -> Option<usize> {
        let (open, close) = match chars.next()?.1 {
            '(' => ('(', ')'),
            '[' => ('[', ']'),
            '{' => ('{', '}'),
            _ => return None,
        };
        let mut level = 1usize;
        self.tokens(chars).find_map(|t| match t {
            Token::Code { ch, .. } if ch == open => {
                level += 1;
                None
            }
            Token::Code { at, ch, .. } if ch == close => {
                level -= 1;
                (level == 0).then_some(at)
            }
            _ => None,
        })
    }

    /// The parts of `text` between top-level separators (outside literals
    /// and brackets), as written (not trimmed). Where several of `seps` start
    /// at one place, the first listed is the one taken (list `++` before
    /// `+`). A separator that starts the text is a prefix (`-x`, `+x`, `.5`),
    /// not a separator.
    pub(crate) fn split<'a>(self, text: &'a str, seps: &[&str]) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut start = 0;
        for t in self.tokens(text.char_indices()) {
            let Token::Code { at, depth: 0, .. } = t else {
                continue;
            };
            if at == 0 || at < start {
                continue;
            }
            if let Some(sep) = seps.iter().find(|s| text[at..].starts_with(**s)) {
                out.push(&text[start..at]);
                start = at + sep.len();
            }
        }
        out.push(&text[start..]);
        out
    }

    /// The items of a comma-separated list (call arguments, a list literal,
    /// a map), each trimmed; a trailing comma adds no item.
    pub(crate) fn list(self, text: &str) -> Vec<String> {
        let mut items: Vec<String> = self
            .split(text, &[","])
            .into_iter()
            .map(|p| p.trim().to_string())
            .collect();
        if items.last().is_some_and(String::is_empty) {
            items.pop();
        }
        items
    }

    /// The items of an s-expression's text (or any list written with blanks
    /// between its items): split at top-level blanks.
    pub(crate) fn words(self, text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        let mut start = None;
        for t in self.tokens(text.char_indices()) {
            match t {
                Token::Code { at, ch, depth: 0 } if ch.is_whitespace() => {
                    if let Some(s) = start.take() {
                        out.push(&text[s..at]);
                    }
                }
                Token::Code { at, .. } | Token::Literal { open: at, .. } => {
                    start.get_or_insert(at);
                }
            }
        }
        if let Some(s) = start {
            out.push(&text[s..]);
        }
        out
    }

    /// The text up to where its enclosing call, list or block ends (a `)`,
    /// `]` or `}` it did not open) or up to a top-level character of `stops`
    /// (a statement's `;`), all of it when neither comes.
    pub(crate) fn until_unmatched<'a>(self, text: &'a str, stops: &[char]) -> &'a str {
        let end = self.tokens(text.char_indices()).find_map(|t| match t {
            Token::Code { at, depth, ch } if depth < 0 || (depth == 0 && stops.contains(&ch)) => {
                Some(at)
            }
            _ => None,
        });
        &text[..end.unwrap_or(text.len())]
    }

    /// The string literals of `text` that are closed, as written (quotes
    /// included).
    pub(crate) fn literals(self, text: &str) -> Vec<&str> {
        self.tokens(text.char_indices())
            .filter_map(|t| match t {
                Token::Literal {
                    open,
                    close: Some(close),
                } => Some(&text[open..=close]),
                _ => None,
            })
            .collect()
    }
}

/// One step of the walk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Token {
    /// A character outside string literals, at `depth`: how many brackets are
    /// open around it. A bracket stands at the depth of the text around it;
    /// below 0 comes after a close that nothing in the text opened.
    Code { at: usize, ch: char, depth: i32 },
    /// A string literal from its opening quote at `open` to its closing one
    /// at `close` (`None` when the text ends inside it).
    Literal { open: usize, close: Option<usize> },
}

/// The walk of [`Literals::tokens`].
pub(crate) struct Tokens<I: Iterator<Item = (usize, char)>> {
    chars: Peekable<I>,
    quotes: &'static [char],
    depth: i32,
}

impl<I: Iterator<Item = (usize, char)>> Iterator for Tokens<I> {
    type Item = Token;

    fn next(&mut self) -> Option<Token> {
        let (at, ch) = self.chars.next()?;
        if self.quotes.contains(&ch) {
            let mut escaped = false;
            let close = self.chars.by_ref().find_map(|(i, c)| {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == ch {
                    return Some(i);
                }
                None
            });
            return Some(Token::Literal { open: at, close });
        }
        let depth = match ch {
            '(' | '[' | '{' => {
                self.depth += 1;
                self.depth - 1
            }
            ')' | ']' | '}' => {
                self.depth -= 1;
                self.depth
            }
            _ => self.depth,
        };
        Some(Token::Code { at, ch, depth })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_at_their_top_level_only() {
        let cases: &[(Literals, &str, &[&str])] = &[
            (
                Literals::SCRIPT,
                "'a', f(b, c), [d, e]",
                &["'a'", "f(b, c)", "[d, e]"],
            ),
            (
                Literals::SCRIPT,
                r#""x, \"y\", z", w"#,
                &[r#""x, \"y\", z""#, "w"],
            ),
            (Literals::SCRIPT, "`a,b`, c,", &["`a,b`", "c"]),
            (
                Literals::QUOTES,
                "'sh', '-c', 'x, y'",
                &["'sh'", "'-c'", "'x, y'"],
            ),
            (Literals::DOUBLE, "'a, b'", &["'a", "b'"]),
            (Literals::SCRIPT, "", &[]),
            (Literals::SCRIPT, "a,,b", &["a", "", "b"]),
        ];
        for (lit, text, want) in cases {
            assert_eq!(lit.list(text), *want, "{text}");
        }
    }

    #[test]
    fn separators_are_found_outside_literals_and_brackets() {
        let cases: &[(&str, &str, &[&str])] = &[
            ("a + 'b+c' + f(d + e)", "+", &["a ", " 'b+c' ", " f(d + e)"]),
            ("+x", "+", &["+x"]),
            ("a || b || c", "||", &["a ", " b ", " c"]),
            ("a|||b", "||", &["a", "|b"]),
        ];
        for (text, sep, want) in cases {
            assert_eq!(Literals::SCRIPT.split(text, &[sep]), *want, "{text}");
        }
        assert_eq!(
            Literals::QUOTES.split("'a' ++ b <> \"+\" + c", &["++", "+", "<>"]),
            ["'a' ", " b ", " \"+\" ", " c"]
        );
    }

    #[test]
    fn a_bracket_closes_at_its_match_of_its_kind() {
        let cases: &[(Literals, &str, usize, Option<usize>)] = &[
            (Literals::SCRIPT, "f(a, ')', (b))", 1, Some(13)),
            (Literals::SCRIPT, "f(a", 1, None),
            (Literals::SCRIPT, "f(a)", 0, None),
            (Literals::DOUBLE, "{ case x in a) y;; esac }", 0, Some(24)),
            (Literals::NONE, "%(echo \")\")", 1, Some(8)),
            (Literals::SCRIPT, r#"("\")")"#, 0, Some(6)),
        ];
        for (lit, text, open, want) in cases {
            assert_eq!(lit.close_in(text, *open), *want, "{text}");
            let chars: Vec<char> = text.chars().collect();
            assert_eq!(lit.close_in_chars(&chars, *open), *want, "{text}");
        }
        assert_eq!(Literals::DOUBLE.inside("x { a } y", 2), " a ");
        assert_eq!(Literals::DOUBLE.inside("x { a", 2), " a");
    }

    #[test]
    fn a_call_ends_where_it_closes_or_at_a_stop() {
        let cases: &[(&str, &[char], &str)] = &[
            ("'a', f(b)) + c", &[], "'a', f(b)"),
            ("'a;b'; c", &[';'], "'a;b'"),
            ("[a; b]; c", &[';'], "[a; b]"),
            ("a, b", &[';'], "a, b"),
        ];
        for (text, stops, want) in cases {
            assert_eq!(
                Literals::QUOTES.until_unmatched(text, stops),
                *want,
                "{text}"
            );
        }
    }

    #[test]
    fn words_and_literals() {
        assert_eq!(
            Literals::DOUBLE.words("  call-process \"rm -rf\" nil (list 1 2)\n t"),
            ["call-process", "\"rm -rf\"", "nil", "(list 1 2)", "t"]
        );
        assert_eq!(
            Literals::DOUBLE.literals(r#"["a \" b", x, "c", "open"#),
            [r#""a \" b""#, r#""c""#]
        );
    }
}
