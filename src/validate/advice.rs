//! Help lines that show the fix, for problems whose fix has a standard shape.

/// The rewrite for a regex the engine refuses because of look-around, which
/// Rust's `regex` crate does not support (it guarantees linear time): the part
/// that must (not) match becomes its own test. `selector` is the condition's
/// selector key and value (`field`, `tool_input.command`) when known, `test` the
/// key holding the regex (`matches`).
pub fn lookaround(pattern: &str, selector: Option<(&str, &str)>, test: &str) -> Option<String> {
    let (start, open_len, negative) = find_lookaround(pattern)?;
    let end = closing_paren(pattern, start)?;
    let inner = &pattern[start + open_len..end];
    let rest = format!("{}{}", &pattern[..start], &pattern[end + 1..]);
    let (sk, sv) = selector.unwrap_or(("field", "..."));
    let sel = format!("{sk} = \"{sv}\"");
    if test != "matches" {
        return Some(format!(
            "Rust regexes have no look-around (they run in linear time); test `{inner}` in a separate condition, with `matches_none` or an `unless`"
        ));
    }
    Some(if negative {
        format!(
            "Rust regexes have no look-around (they run in linear time); move the excluded part into `unless`:\n  when = {{ {sel}, matches = ['{rest}'] }}\n  unless = {{ {sel}, matches = ['{inner}'] }}\n(inside an `all = [...]`: a second test with matches_none = ['{inner}'])"
        )
    } else {
        format!(
            "Rust regexes have no look-around (they run in linear time); require both parts instead:\n  {sel}, matches_all = ['{rest}', '{inner}']"
        )
    })
}

/// The first look-around group: (byte offset, length of its opener, negative?).
fn find_lookaround(p: &str) -> Option<(usize, usize, bool)> {
    let b = p.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        let rest = &p[i..];
        for (opener, negative) in [
            ("(?<!", true),
            ("(?<=", false),
            ("(?!", true),
            ("(?=", false),
        ] {
            if rest.starts_with(opener) {
                return Some((i, opener.len(), negative));
            }
        }
        i += 1;
    }
    None
}

/// The `)` closing the group opened at `start` (escapes and classes skipped).
fn closing_paren(p: &str, start: usize) -> Option<usize> {
    let b = p.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    let mut in_class = false;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'(' if !in_class => depth += 1,
            b')' if !in_class => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::lookaround;

    #[test]
    fn negative_lookahead_becomes_matches_none() {
        let h = lookaround(
            r"\bgit\s+push(?!.*--dry-run)",
            Some(("field", "tool_input.command")),
            "matches",
        )
        .unwrap();
        assert!(
            h.contains(r#"when = { field = "tool_input.command", matches = ['\bgit\s+push'] }"#),
            "{h}"
        );
        assert!(h.contains("matches_none = ['.*--dry-run']"), "{h}");
        assert!(
            h.contains(r#"unless = { field = "tool_input.command", matches = ['.*--dry-run'] }"#),
            "{h}"
        );
    }

    #[test]
    fn lookbehind_and_positive_forms() {
        let h = lookaround(r"(?<!\.)env", None, "matches").unwrap();
        assert!(
            h.contains("matches = ['env']") && h.contains(r"matches_none = ['\.']"),
            "{h}"
        );
        let h = lookaround(r"rm(?=.*-rf)", Some(("commands", "x")), "matches").unwrap();
        assert!(h.contains("matches_all = ['rm', '.*-rf']"), "{h}");
        assert!(lookaround(r"\(?!x", None, "matches").is_none());
    }
}
