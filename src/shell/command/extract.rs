//! Turn raw commands into [`SimpleCommand`]s: run substitutions first,
//! unwrap wrappers, and re-parse strings that a shell will execute
//! (`bash -c`, `eval`, here-documents and literal text piped into a shell).

use super::syntax::{self, Heredoc, RawCmd, RedirKind, Sub, MAX_DEPTH};
use super::wrappers::{self, Action, MAX_WRAPPERS};
use super::{basename, perr, ParseError, Redirect, SimpleCommand};

pub(crate) fn extract(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    let mut ex = Extractor {
        out: Vec::new(),
        budget: script.len().saturating_mul(32).saturating_add(1 << 16),
    };
    let s = syntax::parse_script(script, 0)?;
    ex.items(&s.items, &s.heredocs, &[])?;
    Ok(ex.out)
}

/// How to translate error offsets of a re-parsed text.
enum OffMap {
    /// The text is a verbatim slice of the enclosing source at this offset.
    Verbatim(usize),
    /// The text was derived (quotes removed, joined…): point at the command.
    At(usize, String),
}

impl OffMap {
    fn apply(&self, e: ParseError) -> ParseError {
        match self {
            OffMap::Verbatim(base) => perr(e.message, base.saturating_add(e.offset)),
            OffMap::At(off, what) => perr(
                format!("{} (at byte {} of the `{what}` text)", e.message, e.offset),
                *off,
            ),
        }
    }

    fn offset(&self) -> usize {
        match self {
            OffMap::Verbatim(o) | OffMap::At(o, _) => *o,
        }
    }
}

/// Per-raw-command context shared by a chain of wrapped commands.
struct Ctx<'a> {
    raw: &'a RawCmd,
    table: &'a [Heredoc],
    pipe_src: Option<&'a RawCmd>,
    redirects: Vec<Redirect>,
}

struct Extractor {
    out: Vec<SimpleCommand>,
    /// Bytes we may still re-parse; bounds work on adversarial input.
    budget: usize,
}

impl Extractor {
    /// Parse `text` as a script nested at `depth` and extract its commands.
    fn nested(
        &mut self,
        text: &str,
        depth: usize,
        via: &[String],
        map: OffMap,
    ) -> Result<(), ParseError> {
        if text.len() > self.budget {
            return Err(perr(
                "script too complex: re-parsing budget exhausted",
                map.offset(),
            ));
        }
        self.budget -= text.len();
        let s = syntax::parse_script(text, depth).map_err(|e| map.apply(e))?;
        let first = self.out.len();
        self.items(&s.items, &s.heredocs, via)
            .map_err(|e| map.apply(e))?;
        for c in self.out.get_mut(first..).unwrap_or_default() {
            c.offset = match &map {
                OffMap::Verbatim(base) => base.saturating_add(c.offset),
                OffMap::At(off, _) => *off,
            };
        }
        Ok(())
    }

    fn items(
        &mut self,
        items: &[RawCmd],
        table: &[Heredoc],
        via: &[String],
    ) -> Result<(), ParseError> {
        for raw in items {
            let mut here_via = via.to_vec();
            here_via.extend(raw.via.iter().cloned());
            // Substitutions run before the command itself.
            let words = raw
                .assigns
                .iter()
                .chain(&raw.words)
                .chain(raw.redirs.iter().map(|r| &r.target));
            for w in words {
                for s in &w.subs {
                    self.sub(s, table, &here_via)?;
                }
            }
            for r in &raw.redirs {
                if let RedirKind::Heredoc(id) = r.kind {
                    for s in table.get(id).map(|h| h.subs.as_slice()).unwrap_or_default() {
                        self.sub(s, table, &here_via)?;
                    }
                }
            }
            if !raw.simple {
                continue;
            }
            let redirects = raw
                .redirs
                .iter()
                .filter_map(|r| match r.kind {
                    RedirKind::File(op) => Some(Redirect {
                        op,
                        fd: r.fd,
                        target: r.target.text.clone(),
                    }),
                    _ => None,
                })
                .collect();
            let ctx = Ctx {
                raw,
                table,
                pipe_src: raw.pipe_from.and_then(|j| items.get(j)),
                redirects,
            };
            let words = raw
                .words
                .iter()
                .flat_map(|w| {
                    if w.plain {
                        brace_expand(&w.text)
                            .into_iter()
                            .flat_map(ifs_split)
                            .collect()
                    } else {
                        vec![w.text.clone()]
                    }
                })
                .collect();
            let assigns = raw
                .assigns
                .iter()
                .filter_map(|w| w.assign.clone())
                .collect();
            self.chain(words, assigns, here_via, &ctx, raw.depth)?;
        }
        Ok(())
    }

    fn sub(&mut self, s: &Sub, table: &[Heredoc], via: &[String]) -> Result<(), ParseError> {
        let mut v = via.to_vec();
        v.push(s.kind.label().to_string());
        let t = s.heredocs.as_deref().unwrap_or(table);
        self.items(&s.items, t, &v)
    }

    /// Emit `words` as a command, then whatever it runs, wrapper by wrapper.
    fn chain(
        &mut self,
        mut words: Vec<String>,
        mut assigns: Vec<(String, String)>,
        mut via: Vec<String>,
        ctx: &Ctx,
        depth: usize,
    ) -> Result<(), ParseError> {
        let off = ctx.raw.offset;
        if depth > MAX_DEPTH {
            return Err(perr(format!("nesting deeper than {MAX_DEPTH} levels"), off));
        }
        let mut hops = 0;
        loop {
            let Some(path) = words.first() else {
                self.out.push(SimpleCommand::build(
                    String::new(),
                    Vec::new(),
                    ctx.redirects.clone(),
                    assigns,
                    via,
                    off,
                ));
                return Ok(());
            };
            let prog = basename(path).to_string();
            let args = words.get(1..).unwrap_or_default();
            let action = wrappers::classify(&prog, args);
            self.out.push(SimpleCommand::build(
                path.clone(),
                args.to_vec(),
                ctx.redirects.clone(),
                assigns.clone(),
                via.clone(),
                off,
            ));
            let extra = match action {
                Action::None => return Ok(()),
                Action::Error(msg) => return Err(perr(msg, off)),
                Action::Exec { skip, assigns } => {
                    words = words.split_off((skip + 1).min(words.len()));
                    assigns
                }
                Action::Replace { words: w, assigns } => {
                    words = w;
                    assigns
                }
                Action::Script { text, label } => {
                    via.push(label.clone());
                    return self.nested(&text, depth + 1, &via, OffMap::At(off, label));
                }
                Action::Stdin => {
                    for (text, kind, map) in stdin_sources(ctx) {
                        let mut v = via.clone();
                        v.push(if kind == "|" {
                            format!("| {prog}")
                        } else {
                            format!("{prog} {kind}")
                        });
                        self.nested(&text, depth + 1, &v, map)?;
                    }
                    return Ok(());
                }
                Action::Many(cmds) => {
                    for (label, ws) in cmds {
                        let mut v = via.clone();
                        v.push(label);
                        self.chain(ws, Vec::new(), v, ctx, depth + 1)?;
                    }
                    return Ok(());
                }
            };
            hops += 1;
            if hops > MAX_WRAPPERS {
                return Err(perr(
                    format!("more than {MAX_WRAPPERS} nested command wrappers"),
                    off,
                ));
            }
            via.push(prog);
            assigns.extend(extra);
            if words.is_empty() {
                return Ok(());
            }
        }
    }
}

/// Scripts a shell in this command would read from stdin: here-documents,
/// here-strings, and literal text piped in by `echo`/`printf`/`cat <<EOF`.
fn stdin_sources(ctx: &Ctx) -> Vec<(String, &'static str, OffMap)> {
    let mut v = Vec::new();
    let off = ctx.raw.offset;
    for r in &ctx.raw.redirs {
        match r.kind {
            RedirKind::Heredoc(id) => {
                if let Some(h) = ctx.table.get(id) {
                    v.push((h.body.clone(), "<<", OffMap::Verbatim(h.offset)));
                }
            }
            RedirKind::HereString => v.push((
                format!("{}\n", r.target.text),
                "<<<",
                OffMap::At(off, "<<<".to_string()),
            )),
            _ => {}
        }
    }
    if let Some(text) = ctx.pipe_src.and_then(|src| literal_output(src, ctx.table)) {
        v.push((text, "|", OffMap::At(off, "piped".to_string())));
    }
    v
}

/// The output of `echo …`, `printf …` or `cat <<EOF`, when statically known.
fn literal_output(src: &RawCmd, table: &[Heredoc]) -> Option<String> {
    if !src.simple {
        return None;
    }
    let (first, rest) = src.words.split_first()?;
    let args: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
    match basename(&first.text) {
        "echo" => {
            let n = args
                .iter()
                .take_while(|a| {
                    a.strip_prefix('-').is_some_and(|f| {
                        !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
                    })
                })
                .count();
            // Over-approximate: some `echo`s interpret escapes, so do we.
            Some(unescape(&args.get(n..).unwrap_or_default().join(" ")))
        }
        "printf" => {
            let mut a = args.as_slice();
            if a.first() == Some(&"--") {
                a = a.get(1..).unwrap_or_default();
            }
            if a.first() == Some(&"-v") {
                a = a.get(2..)?;
            }
            let (fmt, rest) = a.split_first()?;
            Some(printf(fmt, rest))
        }
        "cat" if args.iter().all(|a| a.starts_with('-')) => {
            src.redirs.iter().find_map(|r| match r.kind {
                RedirKind::Heredoc(id) => table.get(id).map(|h| h.body.clone()),
                RedirKind::HereString => Some(format!("{}\n", r.target.text)),
                _ => None,
            })
        }
        _ => None,
    }
}

/// Most words one brace expansion may produce; beyond that (or for words
/// longer than [`MAX_BRACE_LEN`]) the word is left unexpanded.
const MAX_BRACE_WORDS: usize = 32;
const MAX_BRACE_LEN: usize = 4096;

/// Bash brace expansion of an unquoted word: `a{b,c}d` -> `abd acd`,
/// `{1..3}`, `{a..c}`, `{1..9..2}`. It matters because `{rm,-rf,/}` runs `rm`.
fn brace_expand(word: &str) -> Vec<String> {
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

/// Word splitting on an unquoted `$IFS` / `${IFS}` (default IFS assumed):
/// `rm${IFS}-rf${IFS}/` runs `rm -rf /`. Empty fields are dropped.
fn ifs_split(w: String) -> Vec<String> {
    if !w.contains("$IFS") && !w.contains("${IFS}") {
        return vec![w];
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut rest = w.as_str();
    while let Some(c) = rest.chars().next() {
        let skip = if rest.starts_with("${IFS}") {
            6
        } else if rest.starts_with("$IFS")
            && !rest
                .as_bytes()
                .get(4)
                .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            4
        } else {
            0
        };
        if skip > 0 {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
        rest = rest.get(skip.max(c.len_utf8())..).unwrap_or_default();
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Interpret the common backslash escapes of `echo -e` / `printf`.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('\\') => out.push('\\'),
            Some(o) => {
                out.push('\\');
                out.push(o);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A small `printf`: `%s`/`%b`/`%d`… take the next argument, `%%` is `%`,
/// the format is reused while arguments remain. Output is size-capped.
fn printf(fmt: &str, args: &[&str]) -> String {
    let cap = 2 * (fmt.len() + args.iter().map(|a| a.len() + 1).sum::<usize>()) + 64;
    let mut out = String::new();
    let mut ai = 0;
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
            while it
                .peek()
                .is_some_and(|c| matches!(c, '-' | '+' | ' ' | '#' | '0'..='9' | '.'))
            {
                it.next();
            }
            if let Some(conv) = it.next() {
                let arg = args.get(ai).copied().unwrap_or_default();
                ai += 1;
                if conv == 'b' {
                    out.push_str(&unescape(arg));
                } else {
                    out.push_str(arg);
                }
            }
        }
        if ai >= args.len() || ai == before || out.len() > cap {
            break;
        }
    }
    out.truncate(floor_char_boundary(&out, cap));
    unescape(&out)
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
    fn ifs_splitting() {
        let t: &[(&str, &[&str])] = &[
            ("rm${IFS}-rf${IFS}/", &["rm", "-rf", "/"]),
            ("rm$IFS-rf", &["rm", "-rf"]),
            ("$IFS", &[]),
            ("a$IFSX", &["a$IFSX"]),
            ("é${IFS}${IFS}é", &["é", "é"]),
        ];
        for (w, want) in t {
            assert_eq!(ifs_split(w.to_string()), *want, "{w}");
        }
    }

    #[test]
    fn printf_formats() {
        assert_eq!(printf("rm -rf %s\\n", &["/"]), "rm -rf /\n");
        assert_eq!(printf("%s\\n", &["a", "b"]), "a\nb\n");
        assert_eq!(printf("100%%", &[]), "100%");
        assert_eq!(printf("%5.2d|", &["3"]), "3|");
    }
}
