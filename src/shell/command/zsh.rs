//! zsh text read as zsh where its syntax is not bash's: glob qualifiers.
//!
//! zsh lets a pattern end with a parenthesised list of qualifiers that filter
//! or order what it matches: `*.md(N)` (no error when nothing matches),
//! `*(.)` (plain files), `*(/)` (folders), `*(D)` (dot files too),
//! `*(om[1,3])` (the three newest), `**/*(.:t)` (modifiers after `:`). bash
//! rejects such a word (`*.md(N)` is a syntax error) or reads it as an
//! extended pattern (`*(D)`), so `zsh -c 'ls ~/**/*.md(N) | head'` failed to
//! parse and asked. [`as_bash`] blanks each qualifier list that only filters
//! or orders (same length, so offsets hold): what runs, and on which
//! patterns, is then judged from the rest of the word (`rm -rf ~/*(D)` is
//! `rm -rf ~/*`, every entry of home).
//!
//! A qualifier list that runs code has that code judged where it runs: `e`
//! and a delimited string (`*(e:'rm -rf ~':)`, also as a sort key
//! `oe:…:`) runs the string for each file, and is read as `$(eval 'rm -rf
//! ~')`; `+name` calls a function for each file, read as `$(name)`. Anything
//! this reading does not know (`|`, spaces, quotes outside such a string) is
//! left as written: bash then refuses the text, and it asks.

/// `text` with every glob qualifier list read as zsh reads it, or `None`
/// when it has none: a list that only filters or orders is blanked (same
/// length); the code a list runs is put in its place as a command
/// substitution, so it is judged where it is: `e:'CODE':` becomes `$(eval
/// 'CODE')`, `+name` becomes `$(name)`.
pub(super) fn as_bash(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    // The current word (since the last unquoted delimiter) has characters.
    let mut in_word = false;
    let mut prev: u8 = b' ';
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\\' => {
                i += 2;
                in_word = true;
                prev = b'a';
                continue;
            }
            b'\'' | b'"' => {
                i = quote_end(bytes, i) + 1;
                in_word = true;
                prev = c;
                continue;
            }
            b'(' if in_word && !matches!(prev, b'$' | b'=' | b'<' | b'>') => {
                if let Some((end, code)) = qualifier(bytes, i) {
                    out.push_str(text.get(copied..i)?);
                    if code.is_empty() {
                        out.push_str(&" ".repeat(end + 1 - i));
                    } else {
                        out.push(' ');
                        out.push_str(&code.join(" "));
                    }
                    copied = end + 1;
                    i = end + 1;
                    in_word = false;
                    prev = b' ';
                    continue;
                }
            }
            b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'<' | b'>' | b'(' | b')' | b'{' | b'}' => {
                in_word = false
            }
            _ => in_word = true,
        }
        prev = c;
        i += 1;
    }
    if copied == 0 {
        return None;
    }
    out.push_str(text.get(copied..)?);
    Some(out)
}

/// The index of the quote closing the one at `open` (`'…'`, or `"…"` with
/// its backslash escapes), or the end of `bytes`.
fn quote_end(bytes: &[u8], open: usize) -> usize {
    let q = bytes[open];
    let mut j = open + 1;
    while j < bytes.len() && bytes[j] != q {
        j += if q == b'"' && bytes[j] == b'\\' { 2 } else { 1 };
    }
    j.min(bytes.len())
}

/// A qualifier list opening at `open` that ends its word: the index of its
/// `)`, and the commands its code runs (`$(eval …)`, `$(name)`; none for a
/// list that only filters or orders). `None` for anything else (a group of
/// alternatives, a function definition's `()`, text this reading does not
/// know).
fn qualifier(bytes: &[u8], open: usize) -> Option<(usize, Vec<String>)> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut j = open + 1;
    if bytes.get(j..j + 2) == Some(b"#q") {
        j += 2;
    }
    let first = j;
    let mut code = Vec::new();
    let mut modifiers = false;
    loop {
        let b = *bytes.get(j)?;
        match b {
            b')' => break,
            // `e` and a delimited string of code (also as a sort key, `oe`)
            b'e' if !modifiers => {
                let d = *bytes.get(j + 1)?;
                let close = match d {
                    b'(' => b')',
                    b'{' => b'}',
                    b'[' => b']',
                    b'<' => b'>',
                    b if b.is_ascii_alphanumeric() || b.is_ascii_whitespace() => return None,
                    b => b,
                };
                let mut k = j + 2;
                while k < bytes.len() && bytes[k] != close {
                    k = if matches!(bytes[k], b'\'' | b'"') {
                        quote_end(bytes, k) + 1
                    } else {
                        k + 1
                    };
                }
                let string = text.get(j + 2..k)?;
                code.push(format!("$(eval {string})"));
                j = k + 1;
            }
            // `+name` calls a function; `+10` is a size or time compared
            b'+' if !modifiers && bytes.get(j + 1).is_some_and(|c| !c.is_ascii_digit()) => {
                let end = bytes[j + 1..]
                    .iter()
                    .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b':')))
                    .map_or(bytes.len(), |p| j + 1 + p);
                let name = text.get(j + 1..end)?;
                if name.is_empty() {
                    return None;
                }
                code.push(format!("$({name})"));
                j = end;
            }
            b':' => {
                modifiers = true;
                j += 1;
            }
            b if b.is_ascii_alphanumeric() || b"./@=%^*,[]-+~".contains(&b) => j += 1,
            _ => return None,
        }
    }
    if j == first {
        return None;
    }
    let after = bytes.get(j + 1).copied();
    after
        .is_none_or(|b| b" \t\n;&|)<>".contains(&b))
        .then_some((j, code))
}

#[cfg(test)]
mod tests {
    use super::as_bash;

    #[test]
    fn qualifiers_that_filter_or_order_are_blanked() {
        let cases = [
            ("ls ~/**/*.md(N) | head", "(N)"),
            ("ls *(.)", "(.)"),
            ("ls -d *(/)", "(/)"),
            ("ls -t *(om[1,3])", "(om[1,3])"),
            ("rm -rf ~/*(D)", "(D)"),
            ("print -l **/*(.:t)", "(.:t)"),
            ("ls *(#qN)", "(#qN)"),
            ("ls *(Lk+10)", "(Lk+10)"),
            ("ls -d */(N);echo x", "(N)"),
        ];
        for (zsh, list) in cases {
            let bash = zsh.replacen(list, &" ".repeat(list.len()), 1);
            assert_eq!(as_bash(zsh).as_deref(), Some(bash.as_str()), "{zsh}");
        }
    }

    #[test]
    fn code_in_qualifiers_is_put_where_it_runs() {
        let cases = [
            ("ls *(e:'rm -rf ~':)", "ls * $(eval 'rm -rf ~')"),
            ("ls *(e{rm -rf ~})", "ls * $(eval rm -rf ~)"),
            ("ls *(oe:x:)", "ls * $(eval x)"),
            ("ls *(N+cleanup) | wc -l", "ls * $(cleanup) | wc -l"),
        ];
        for (zsh, bash) in cases {
            assert_eq!(as_bash(zsh).as_deref(), Some(bash), "{zsh}");
        }
    }

    #[test]
    fn other_parentheses_stay() {
        let cases = [
            "echo $(ls)",
            "arr=(a b c)",
            "f() { ls; }",
            "diff <(ls) <(ls -a)",
            "echo '*(N)'",
            "echo \"*(N)\"",
            "ls (a|b).txt",
            "ls *(N)x",
        ];
        for zsh in cases {
            assert_eq!(as_bash(zsh), None, "{zsh}");
        }
    }
}
