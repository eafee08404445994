//! fish's code as the sh the analysis reads.
//!
//! `fish -c TEXT` runs fish's language, whose blocks differ from sh's: `for
//! f in *.txt; echo $f; end`, `if test -d x; …; else if …; …; end`, `begin;
//! …; end`, `function name; …; end`, and a bare `(cmd)` is a command
//! substitution. Text that sh refuses is translated here statement by
//! statement into the sh it means, so the commands it runs are judged as
//! any others; what has no sh form here (`switch`, a block left open, a
//! quote left open) gives `None`, and the caller treats the text as code it
//! cannot read.

/// The sh for fish code `text`, or `None` when it uses what is not
/// translated.
pub(super) fn to_sh(text: &str) -> Option<String> {
    let mut out = String::new();
    // The closers of the blocks open here.
    let mut open: Vec<&'static str> = Vec::new();
    for statement in statements(text)? {
        let s = statement.trim();
        if s.is_empty() || s.starts_with('#') {
            continue;
        }
        let (word, rest) = match s.split_once(char::is_whitespace) {
            Some((w, r)) => (w, r.trim_start()),
            None => (s, ""),
        };
        let line = match word {
            "for" | "while" => {
                open.push("done");
                format!("{word} {}; do", substitutions(rest)?)
            }
            "if" => {
                open.push("fi");
                format!("if {}; then", substitutions(rest)?)
            }
            "else" => match rest.strip_prefix("if") {
                Some(cond) if cond.starts_with(char::is_whitespace) => {
                    format!("elif {}; then", substitutions(cond.trim_start())?)
                }
                _ if rest.is_empty() => "else".to_string(),
                _ => format!("else {}", substitutions(rest)?),
            },
            "begin" => {
                open.push("}");
                match rest {
                    "" => "{".to_string(),
                    r => format!("{{ {}", substitutions(r)?),
                }
            }
            "function" => {
                let name = rest.split_whitespace().next()?;
                if !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_-.".contains(c))
                {
                    return None;
                }
                open.push("}");
                format!("{name}() {{")
            }
            "end" if rest.is_empty() => open.pop()?.to_string(),
            "and" | "or" => substitutions(rest)?,
            "not" => format!("! {}", substitutions(rest)?),
            "switch" | "case" => return None,
            _ => substitutions(s)?,
        };
        out.push_str(&line);
        out.push('\n');
    }
    open.is_empty().then_some(out)
}

/// The statements of fish text: split at `;` and line ends outside quotes,
/// parentheses and comments. `None` for a quote or parenthesis left open.
fn statements(text: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut depth = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                cur.push(c);
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    cur.push(c);
                }
                '\\' => {
                    cur.push(c);
                    if let Some(n) = chars.next() {
                        cur.push(n);
                    }
                }
                '(' => {
                    depth += 1;
                    cur.push(c);
                }
                ')' => {
                    depth = depth.checked_sub(1)?;
                    cur.push(c);
                }
                '#' if depth == 0 && cur.trim().is_empty() => {
                    // A comment to the line's end.
                    for n in chars.by_ref() {
                        if n == '\n' {
                            break;
                        }
                    }
                }
                ';' | '\n' if depth == 0 => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            },
        }
    }
    if quote.is_some() || depth != 0 {
        return None;
    }
    out.push(cur);
    Some(out)
}

/// A statement with fish's bare `(cmd)` substitutions written as sh's
/// `$(cmd)` (inside them too), and fish's single-quote escapes (`\'`)
/// written as sh's (`'\''`). `None` for text not translated.
fn substitutions(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut prev: Option<char> = None;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some('\'') => match c {
                '\\' if matches!(chars.peek(), Some('\'')) => {
                    chars.next();
                    out.push_str("'\\''");
                }
                '\\' if matches!(chars.peek(), Some('\\')) => {
                    chars.next();
                    out.push('\\');
                }
                '\'' => {
                    quote = None;
                    out.push(c);
                }
                _ => out.push(c),
            },
            Some(q) => {
                out.push(c);
                if c == '\\' {
                    out.extend(chars.next());
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    out.push(c);
                }
                '\\' => {
                    out.push(c);
                    out.extend(chars.next());
                }
                '(' if prev != Some('$') => out.push_str("$("),
                _ => out.push(c),
            },
        }
        prev = Some(c);
    }
    quote.is_none().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::to_sh;

    #[test]
    fn fish_blocks_are_the_sh_they_mean() {
        for (fish, sh) in [
            (
                "for f in tests/*; echo $f; end",
                "for f in tests/*; do\necho $f\ndone\n",
            ),
            (
                "if test -d build; rm -rf build; else if test -f x; echo x; else; echo no; end",
                "if test -d build; then\nrm -rf build\nelif test -f x; then\necho x\nelse\necho no\nfi\n",
            ),
            ("begin; cd /; end", "{\ncd /\n}\n"),
            ("function wipe; rm -rf ~; end; wipe", "wipe() {\nrm -rf ~\n}\nwipe\n"),
            ("rm -rf (echo ~); and echo ok", "rm -rf $(echo ~)\necho ok\n"),
            ("echo $(date) 'it\\'s'", "echo $(date) 'it'\\''s'\n"),
            ("while true\n  sleep 1 # wait\nend", "while true; do\nsleep 1 # wait\ndone\n"),
        ] {
            assert_eq!(to_sh(fish).as_deref(), Some(sh), "{fish}");
        }
        for unknown in [
            "switch $x; case a; rm -rf ~; end",
            "for f in *; echo",
            "echo 'open",
            "end",
        ] {
            assert_eq!(to_sh(unknown), None, "{unknown}");
        }
    }
}
