//! `cmd.exe` command lines (`cmd /c "rd /s /q C:\"`): split into commands
//! and words the way cmd reads them, so the built-ins that delete, copy and
//! move (`rd /s`, `del /s`, `copy`, `move`) become their canonical commands
//! and other programs run as named.
//!
//! From the `cmd` reference (learn.microsoft.com, "cmd", "rd", "del", "if",
//! "for"): `&`, `&&`, `||` and `|` separate commands; `^` escapes the next
//! character; double quotes keep spaces; `%NAME%` is an environment variable,
//! expanded when the line is read.

/// A piece of a cmd word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Part {
    /// Literal text.
    Text(String),
    /// `%NAME%` (or `!NAME!`, `%~dp0`, `%%i`: `Var` with the text written).
    Var(String),
}

/// A word: its pieces.
pub(super) type Word = Vec<Part>;

/// Split a command line into commands, each a list of words. Parentheses
/// (blocks of `if`, `for`) are taken as separators: what they hold runs.
/// `delayed`: cmd was started with delayed expansion (`cmd /v:on`), so
/// `!NAME!` is a variable too, read when its command runs.
pub(super) fn commands(line: &str, delayed: bool) -> Vec<Vec<Word>> {
    let mut out: Vec<Vec<Word>> = vec![vec![]];
    let mut word: Word = vec![];
    let mut text = String::new();
    let mut quoted = false;
    let cs: Vec<char> = line.chars().collect();
    let mut i = 0;
    let end_word = |word: &mut Word, text: &mut String, out: &mut Vec<Vec<Word>>| {
        if !text.is_empty() {
            word.push(Part::Text(std::mem::take(text)));
        }
        if !word.is_empty() {
            if let Some(last) = out.last_mut() {
                last.push(std::mem::take(word));
            }
        }
    };
    while let Some(&c) = cs.get(i) {
        i += 1;
        // Variables expand alike inside and outside quotes.
        let var = match c {
            '!' if delayed => Some(bang_var(&cs, &mut i)),
            '%' => Some(var_at(&cs, &mut i)),
            _ => None,
        };
        match var {
            Some(Some(v)) => {
                if !text.is_empty() {
                    word.push(Part::Text(std::mem::take(&mut text)));
                }
                word.push(Part::Var(v));
                continue;
            }
            Some(None) => {
                text.push(c);
                continue;
            }
            None => {}
        }
        if quoted {
            match c {
                '"' => quoted = false,
                c => text.push(c),
            }
            continue;
        }
        match c {
            '^' => {
                if let Some(&n) = cs.get(i) {
                    text.push(n);
                    i += 1;
                }
            }
            '"' => quoted = true,
            ' ' | '\t' | ',' | ';' | '=' if word.is_empty() && text.is_empty() => {}
            ' ' | '\t' => end_word(&mut word, &mut text, &mut out),
            '&' | '|' | '(' | ')' | '\n' | '\r' => {
                end_word(&mut word, &mut text, &mut out);
                if matches!(cs.get(i), Some('&' | '|')) && c != '(' && c != ')' {
                    i += 1;
                }
                if out.last().is_some_and(|l| !l.is_empty()) {
                    out.push(vec![]);
                }
            }
            '>' | '<' => {
                // A redirection: its target is the next word (kept as `>`, target).
                end_word(&mut word, &mut text, &mut out);
                let mut op = c.to_string();
                if cs.get(i) == Some(&'>') {
                    op.push('>');
                    i += 1;
                }
                if cs.get(i) == Some(&'&') {
                    // `2>&1`
                    i += 2;
                    continue;
                }
                if let Some(last) = out.last_mut() {
                    // A stream number before it (`2>`) was its own word.
                    if let Some(prev) = last.last() {
                        if prev == &vec![Part::Text("2".into())]
                            || prev == &vec![Part::Text("1".into())]
                        {
                            last.pop();
                        }
                    }
                    last.push(vec![Part::Text(format!("\u{E020}{op}"))]);
                }
            }
            c => text.push(c),
        }
    }
    end_word(&mut word, &mut text, &mut out);
    out.retain(|c| !c.is_empty());
    out
}

/// `!NAME!` at `i` (after the first `!`), with delayed expansion: the name,
/// with the cursor moved.
fn bang_var(cs: &[char], i: &mut usize) -> Option<String> {
    let start = *i;
    let end = start + cs.get(start..)?.iter().position(|c| *c == '!')?;
    let name: String = cs[start..end].iter().collect();
    if name.is_empty() || name.contains([' ', '"']) {
        return None;
    }
    *i = end + 1;
    Some(name)
}

/// Was cmd started with delayed expansion (`/v:on`, `/v`; the last
/// switch before `/c` counts)? Its switches as written.
pub(super) fn delayed<'a>(switches: impl IntoIterator<Item = &'a str>) -> bool {
    let mut on = false;
    for s in switches {
        let l = s.to_ascii_lowercase();
        if l == "/v" || l == "/v:on" || l == "//v:on" || l == "//v" {
            on = true;
        } else if l == "/v:off" || l == "//v:off" {
            on = false;
        }
    }
    on
}

/// `%NAME%` at `i` (after the first `%`): the name, with the cursor moved.
fn var_at(cs: &[char], i: &mut usize) -> Option<String> {
    // `%%i` / `%i` loop variables and `%~dp0` batch arguments.
    if let Some(&n) = cs.get(*i) {
        if n == '%' {
            *i += 1;
            let mut v = String::from("%%");
            if let Some(&c) = cs.get(*i).filter(|c| c.is_alphanumeric()) {
                v.push(c);
                *i += 1;
            }
            return Some(v);
        }
        if n == '~' || n.is_ascii_digit() {
            let mut v = String::from("%");
            while let Some(&c) = cs.get(*i).filter(|c| c.is_alphanumeric() || **c == '~') {
                v.push(c);
                *i += 1;
            }
            return Some(v);
        }
    }
    let start = *i;
    let mut k = *i;
    while let Some(&c) = cs.get(k) {
        if c == '%' {
            let name: String = cs[start..k].iter().collect();
            if name.is_empty() || name.contains([' ', '"']) {
                return None;
            }
            *i = k + 1;
            return Some(name);
        }
        k += 1;
    }
    None
}

/// Split a Windows command line into arguments (double quotes keep spaces;
/// `""` inside quotes and `\"` are a quote), as programs built with the
/// Microsoft C runtime do.
pub(super) fn split_command_line(s: &str) -> Vec<String> {
    let mut out = vec![];
    let mut cur = String::new();
    let mut quoted = false;
    let mut any = false;
    let cs: Vec<char> = s.chars().collect();
    let mut i = 0;
    while let Some(&c) = cs.get(i) {
        i += 1;
        match c {
            '\\' if cs.get(i) == Some(&'"') => {
                cur.push('"');
                i += 1;
                any = true;
            }
            '"' if quoted && cs.get(i) == Some(&'"') => {
                cur.push('"');
                i += 1;
            }
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' | '\t' if !quoted => {
                if any || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            c => {
                cur.push(c);
                any = true;
            }
        }
    }
    if any || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(line: &str) -> Vec<Vec<String>> {
        commands(line, false)
            .into_iter()
            .map(|c| {
                c.into_iter()
                    .map(|w| {
                        w.into_iter()
                            .map(|p| match p {
                                Part::Text(t) => t,
                                Part::Var(v) => format!("%{v}%"),
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn cmd_lines_split_as_cmd_reads_them() {
        assert_eq!(
            texts(r#"rd /s /q "C:\Program Files\x""#),
            [["rd", "/s", "/q", r"C:\Program Files\x"]]
        );
        assert_eq!(
            texts("cd build && del /f /q *.obj"),
            [vec!["cd", "build"], vec!["del", "/f", "/q", "*.obj"]]
        );
        assert_eq!(texts("echo a^&b"), [["echo", "a&b"]]);
        assert_eq!(
            texts("rd /s /q %USERPROFILE%"),
            [["rd", "/s", "/q", "%USERPROFILE%"]]
        );
        assert_eq!(texts("if exist x (rd /s /q x) else (echo no)").len(), 4);
    }

    #[test]
    fn windows_command_lines_split() {
        assert_eq!(
            split_command_line(r#"-c "Remove-Item ~ -r" x"#),
            ["-c", "Remove-Item ~ -r", "x"]
        );
        assert_eq!(split_command_line(r#"a "" b"#), ["a", "", "b"]);
    }
}
