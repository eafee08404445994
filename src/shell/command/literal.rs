//! Text the analysis can compute without running anything: brace expansion,
//! what `echo`/`printf` print, and what common decoders make of literal input
//! (`base64 -d`, `xxd -r -p`, `rev`), so `echo cm0gLXJmIC8K | base64 -d | sh`
//! is read as the `rm -rf /` it runs.

/// Most words one brace expansion may produce; beyond that (or for words
/// longer than [`MAX_BRACE_LEN`]) the word is left unexpanded.
const MAX_BRACE_WORDS: usize = 32;
const MAX_BRACE_LEN: usize = 4096;

/// Bash brace expansion of an unquoted word: `a{b,c}d` -> `abd acd`,
/// `{1..3}`, `{a..c}`, `{1..9..2}`. It matters because `{rm,-rf,/}` runs `rm`.
pub(super) fn brace_expand(word: &str) -> Vec<String> {
    if word.len() > MAX_BRACE_LEN || !word.contains('{') {
        return vec![word.to_string()];
    }
    let mut done = Vec::new();
    let mut todo = vec![word.to_string()];
    while let Some(w) = todo.pop() {
        match expand_one(&w) {
            Some(parts) if done.len() + todo.len() + parts.len() <= MAX_BRACE_WORDS => {
                todo.extend(parts.into_iter().rev());
            }
            _ => done.push(w),
        }
    }
    done
}

/// Expand the leftmost expandable `{…}` of `w` (one level).
fn expand_one(w: &str) -> Option<Vec<String>> {
    let b = w.as_bytes();
    // (open, commas at depth 1) for each unclosed `{`
    let mut stack: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut best: Option<(usize, usize, Vec<usize>)> = None;
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'{' => stack.push((i, Vec::new())),
            b',' => {
                if let Some((_, commas)) = stack.last_mut() {
                    commas.push(i);
                }
            }
            b'}' => {
                let Some((open, commas)) = stack.pop() else {
                    continue;
                };
                let dollar = open > 0 && b.get(open - 1) == Some(&b'$');
                let candidate =
                    !dollar && (!commas.is_empty() || sequence(w.get(open + 1..i)?).is_some());
                if candidate && best.as_ref().is_none_or(|(o, _, _)| open < *o) {
                    best = Some((open, i, commas));
                }
            }
            _ => {}
        }
    }
    let (open, close, commas) = best?;
    let (pre, post) = (w.get(..open)?, w.get(close + 1..)?);
    let alts: Vec<&str> = if commas.is_empty() {
        return Some(
            sequence(w.get(open + 1..close)?)?
                .into_iter()
                .map(|a| format!("{pre}{a}{post}"))
                .collect(),
        );
    } else {
        let mut v = Vec::new();
        let mut from = open + 1;
        for &c in commas.iter().chain(std::iter::once(&close)) {
            v.push(w.get(from..c)?);
            from = c + 1;
        }
        v
    };
    Some(alts.iter().map(|a| format!("{pre}{a}{post}")).collect())
}

/// How many words the brace ranges of `word` make (`{1..100000}`, `{a..z}{1..9}`),
/// however many: the product of each range's count; `None` without a range.
pub(super) fn brace_range_count(word: &str) -> Option<u64> {
    let mut total: Option<u64> = None;
    let mut rest = word;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else {
            break;
        };
        let inner = &after[..close];
        let parts: Vec<&str> = inner.split("..").collect();
        let bounds = |a: &str, z: &str| -> Option<(i64, i64)> {
            match (a.parse::<i64>(), z.parse::<i64>()) {
                (Ok(x), Ok(y)) => Some((x, y)),
                _ => match (a.as_bytes(), z.as_bytes()) {
                    ([x], [y]) if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() => {
                        Some((i64::from(*x), i64::from(*y)))
                    }
                    _ => None,
                },
            }
        };
        let count = match parts.as_slice() {
            [a, z] => bounds(a, z).map(|(x, y)| x.abs_diff(y).saturating_add(1)),
            [a, z, st] => bounds(a, z)
                .zip(st.parse::<i64>().ok())
                .map(|((x, y), st)| (x.abs_diff(y) / st.unsigned_abs().max(1)).saturating_add(1)),
            _ => None,
        };
        if let Some(n) = count {
            total = Some(total.unwrap_or(1).saturating_mul(n));
        }
        rest = &after[close + 1..];
    }
    total
}

/// `{x..y[..step]}` with integers or single ASCII letters.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (a, z, step) = match parts.as_slice() {
        [a, z] => (*a, *z, 1i64),
        [a, z, s] => (*a, *z, s.parse::<i64>().ok()?.checked_abs()?.max(1)),
        _ => return None,
    };
    let (x, y, letters) = match (a.parse::<i64>(), z.parse::<i64>()) {
        (Ok(x), Ok(y)) => (x, y, false),
        _ => match (a.as_bytes(), z.as_bytes()) {
            ([x], [y]) if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() => {
                (i64::from(*x), i64::from(*y), true)
            }
            _ => return None,
        },
    };
    let count = (x.abs_diff(y) / step.unsigned_abs()).saturating_add(1);
    if count > MAX_BRACE_WORDS as u64 {
        return None;
    }
    let dir = if y >= x { step } else { -step };
    let mut out = Vec::new();
    let mut v = x;
    for k in 0..count {
        if k > 0 {
            v = v.checked_add(dir)?;
        }
        out.push(if letters {
            u8::try_from(v).map(|b| char::from(b).to_string()).ok()?
        } else {
            v.to_string()
        });
    }
    Some(out)
}

/// Interpret the backslash escapes of `echo -e` / `printf` / `%b`: `\n`,
/// `\t`, `\\`, `\xHH`, `\0NNN` and `\NNN` octal, `\e`, … (over-approximating:
/// some `echo`s do not interpret them, so we always do).
pub(super) fn unescape(s: &str) -> String {
    unescape_with(s, false)
}

/// `echo`'s escapes (dash's and zsh's `echo`, bash's `echo -e`, `printf %b`):
/// [`unescape`], and `\c` ends the output there.
pub(super) fn unescape_echo(s: &str) -> String {
    unescape_with(s, true)
}

fn unescape_with(s: &str, echo: bool) -> String {
    let mut out: Vec<u8> = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        i += 1;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = b.get(i) else {
            out.push(b'\\');
            break;
        };
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'e' | b'E' => out.push(27),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'\\' => out.push(b'\\'),
            b'c' if echo => break,
            b'x' => {
                let mut v = 0u32;
                let mut n = 0;
                while n < 2 {
                    match b.get(i).and_then(|d| (*d as char).to_digit(16)) {
                        Some(d) => {
                            v = v * 16 + d;
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                if n == 0 {
                    out.extend_from_slice(b"\\x");
                } else {
                    out.push(v as u8);
                }
            }
            b'0'..=b'7' => {
                // `\0NNN` (echo) and `\NNN` (printf): up to three octal digits.
                let mut v = u32::from(e - b'0');
                let max = if e == b'0' { 3 } else { 2 };
                let mut n = 0;
                while n < max {
                    match b.get(i).filter(|d| (b'0'..=b'7').contains(*d)) {
                        Some(d) => {
                            v = v * 8 + u32::from(d - b'0');
                            i += 1;
                            n += 1;
                        }
                        None => break,
                    }
                }
                out.push((v & 0xff) as u8);
            }
            o => {
                out.push(b'\\');
                out.push(o);
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Decode standard or URL-safe base64 (whitespace ignored, padding optional).
/// `None` when the text is not base64 or does not decode to UTF-8.
pub(super) fn base64_decode(text: &str) -> Option<String> {
    let mut bits: u32 = 0;
    let mut n = 0;
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(v);
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Decode the plain hex dump `xxd -r -p` reads (whitespace ignored).
pub(super) fn hex_decode(text: &str) -> Option<String> {
    let digits: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace())
        .map(|c| (c as char).to_digit(16).map(|d| d as u8))
        .collect::<Option<_>>()?;
    let out: Vec<u8> = digits
        .chunks(2)
        .map(|p| p.iter().fold(0, |a, d| a * 16 + d))
        .collect();
    String::from_utf8(out).ok()
}

/// What `rev` prints: every line reversed.
pub(super) fn rev(text: &str) -> String {
    text.split('\n')
        .map(|l| l.chars().rev().collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// ROT13, as `tr 'A-Za-z' 'N-ZA-Mn-za-m'` does it.
pub(super) fn rot13(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'a'..='z' => (((c as u8 - b'a') + 13) % 26 + b'a') as char,
            'A'..='Z' => (((c as u8 - b'A') + 13) % 26 + b'A') as char,
            c => c,
        })
        .collect()
}

/// A small `printf`, as bash's builtin prints: `%s`, `%b`, `%c`, `%d`/`%i`
/// with their flags, width and precision (`%.0s` prints nothing of its
/// argument, `%5.2d` is `   03`; `*` takes them from the arguments), `%%`
/// is `%`, and the format is reused while arguments remain. `None` for a
/// conversion it does not model (`%x`, `%f`, `%q`, `%(…)T`…): its output
/// is not known, so it is never guessed. Output is size-capped.
pub(super) fn printf(fmt: &str, args: &[&str]) -> Option<String> {
    let cap = 2 * (fmt.len() + args.iter().map(|a| a.len() + 1).sum::<usize>()) + 64;
    let mut out = String::new();
    let mut ai = 0;
    let next_arg = |ai: &mut usize| -> &str {
        let a = args.get(*ai).copied().unwrap_or_default();
        *ai += 1;
        a
    };
    loop {
        let before = ai;
        let mut it = fmt.chars().peekable();
        while let Some(c) = it.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            if it.peek() == Some(&'%') {
                it.next();
                out.push('%');
                continue;
            }
            let (mut left, mut zero) = (false, false);
            while let Some(&f) = it
                .peek()
                .filter(|c| matches!(c, '-' | '+' | ' ' | '#' | '0'))
            {
                left |= f == '-';
                zero |= f == '0';
                it.next();
            }
            let mut number = |it: &mut std::iter::Peekable<std::str::Chars<'_>>, ai: &mut usize| {
                if it.peek() == Some(&'*') {
                    it.next();
                    let n: i64 = next_arg(ai).trim().parse().unwrap_or(0);
                    if n < 0 {
                        left = true;
                    }
                    return Some(n.unsigned_abs().min(4096) as usize);
                }
                let mut d = String::new();
                while let Some(&c) = it.peek().filter(|c| c.is_ascii_digit()) {
                    d.push(c);
                    it.next();
                }
                (!d.is_empty()).then(|| d.parse::<usize>().unwrap_or(4096).min(4096))
            };
            let width = number(&mut it, &mut ai).unwrap_or(0);
            let precision = if it.peek() == Some(&'.') {
                it.next();
                Some(number(&mut it, &mut ai).unwrap_or(0))
            } else {
                None
            };
            let Some(conv) = it.next() else {
                out.push('%');
                break;
            };
            let body: String = match conv {
                's' | 'b' => {
                    let a = next_arg(&mut ai);
                    let a = if conv == 'b' {
                        unescape_echo(a)
                    } else {
                        a.to_string()
                    };
                    match precision {
                        Some(p) => a.chars().take(p).collect(),
                        None => a,
                    }
                }
                'c' => next_arg(&mut ai).chars().take(1).collect(),
                'd' | 'i' => {
                    let a = next_arg(&mut ai).trim();
                    let n: i64 = if a.is_empty() { 0 } else { a.parse().ok()? };
                    let digits = n.unsigned_abs().to_string();
                    let digits = match precision {
                        Some(p) if digits.len() < p => "0".repeat(p - digits.len()) + &digits,
                        _ => digits,
                    };
                    let sign = if n < 0 { "-" } else { "" };
                    if zero && !left && precision.is_none() && width > sign.len() + digits.len() {
                        format!(
                            "{sign}{}{digits}",
                            "0".repeat(width - sign.len() - digits.len())
                        )
                    } else {
                        format!("{sign}{digits}")
                    }
                }
                _ => return None,
            };
            let pad = width.saturating_sub(body.chars().count());
            if left {
                out.push_str(&body);
                out.push_str(&" ".repeat(pad));
            } else {
                out.push_str(&" ".repeat(pad));
                out.push_str(&body);
            }
            if out.len() > cap {
                break;
            }
        }
        if ai >= args.len() || ai == before || out.len() > cap {
            break;
        }
    }
    out.truncate(floor_char_boundary(&out, cap));
    Some(unescape(&out))
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    if i >= s.len() {
        return s.len();
    }
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brace_expansion() {
        let t: &[(&str, &[&str])] = &[
            ("{rm,-rf,/}", &["rm", "-rf", "/"]),
            ("a{b,c}d", &["abd", "acd"]),
            (
                "~/.ssh/{id_rsa,config}",
                &["~/.ssh/id_rsa", "~/.ssh/config"],
            ),
            ("{a,b}{1,2}", &["a1", "a2", "b1", "b2"]),
            ("{a,{b,c}}", &["a", "b", "c"]),
            ("{1..3}", &["1", "2", "3"]),
            ("{3..1}", &["3", "2", "1"]),
            ("{1..9..4}", &["1", "5", "9"]),
            ("{r..r}m", &["rm"]),
            ("{a..c}", &["a", "b", "c"]),
            ("{}", &["{}"]),
            ("{a}", &["{a}"]),
            ("${x,y}", &["${x,y}"]),
            ("{1..100}", &["{1..100}"]),
            ("{a,b", &["{a,b"]),
            ("}{a,b}", &["}a", "}b"]),
            ("{1..-9223372036854775808}", &["{1..-9223372036854775808}"]),
            (
                "{-9223372036854775808..9223372036854775807}",
                &["{-9223372036854775808..9223372036854775807}"],
            ),
            (
                "{9223372036854775806..9223372036854775807}",
                &["9223372036854775806", "9223372036854775807"],
            ),
            (
                "{1..3..-9223372036854775808}",
                &["{1..3..-9223372036854775808}"],
            ),
        ];
        for (w, want) in t {
            assert_eq!(brace_expand(w), *want, "{w}");
        }
        let many = "{a,b}".repeat(10);
        assert_eq!(brace_expand(&many).len(), 32);
    }

    #[test]
    fn printf_formats() {
        let p = |f: &str, a: &[&str]| printf(f, a).expect("a modelled format");
        assert_eq!(p("rm -rf %s\\n", &["/"]), "rm -rf /\n");
        assert_eq!(p("%s\\n", &["a", "b"]), "a\nb\n");
        assert_eq!(p("100%%", &[]), "100%");
        assert_eq!(p("%5.2d|", &["3"]), "   03|");
        assert_eq!(p("%-4s|%3s|", &["ab", "c"]), "ab  |  c|");
        assert_eq!(p("%05d", &["-42"]), "-0042");
        assert_eq!(p("%.0s", &["x", "y"]), "");
        assert_eq!(p("( %.0s", &["1", "2", "3"]), "( ( ( ");
        assert_eq!(p("%.2s%c", &["rmdir", "-x"]), "rm-");
        assert_eq!(p("%*s|", &["3", "a"]), "  a|");
        assert_eq!(p("\\x72\\x6d -rf /", &[]), "rm -rf /");
        assert_eq!(p("\\162\\155", &[]), "rm");
        // conversions it does not model are not guessed
        assert_eq!(printf("%x", &["255"]), None);
        assert_eq!(printf("%(%F)T", &["-1"]), None);
        assert_eq!(printf("%d", &["x"]), None);
    }

    #[test]
    fn decoders() {
        assert_eq!(base64_decode("cm0gLXJmIC8K").as_deref(), Some("rm -rf /\n"));
        assert_eq!(base64_decode("cm0gLXJmIC8=").as_deref(), Some("rm -rf /"));
        assert_eq!(base64_decode("not base64!"), None);
        assert_eq!(hex_decode("726d202d7266202f").as_deref(), Some("rm -rf /"));
        assert_eq!(rev("/ fr- mr"), "rm -rf /");
        assert_eq!(rot13("ez -es /"), "rm -rf /");
        assert_eq!(unescape("\\0162m"), "rm");
    }
}
