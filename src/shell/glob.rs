//! Can a shell pattern name a file that a list pattern names?
//!
//! `cat .e*` reads `.env` as surely as `cat .env` does, and `rm -rf .[^.]*`
//! in the project deletes `.git`. The text `.e*` matches no list entry, so the
//! two patterns are compared as patterns: is there a path both accept?
//!
//! Overlap alone is too wide: `*` can be `credentials`, `*.json` can be
//! `credentials.json`, and `cat *.md` or `head *.json` are everyday reading.
//! So a shell pattern *names* a list pattern only when, for some path both
//! accept, it writes out at least as many of the list pattern's fixed
//! characters as it leaves to its wildcards: `.e*` writes `.e` of `.env` and
//! leaves `nv`; `*.pem` writes `.pem`; `~/.ssh/*` leaves only what the list's
//! own `**` leaves; `*.json` writes `.json` but leaves `credentials`, so it
//! does not name `credentials.json`. At a tie (as many written as left), a
//! pattern that also writes characters of its own, where the list pattern has
//! a wildcard, names a family of its own: `image.E??` writes `.e` of `*.env`
//! and leaves `nv`, but its `image` is what it chose (EnCase's `image.E01`…),
//! and `multiple_json_file_*.json` is not after `*_secret.json`; `.e*` and
//! `id_*` write nothing else, so what they narrow to is the secret. A name that starts with `.` and is
//! wildcards after it (`.*`, `.??*`, `.[^.]*`) names every hidden file: the
//! dot is what chooses them, because bash's wildcards never match a leading
//! dot.
//!
//! Only names of folders whose components hold wildcards count (the literal
//! folders around them are where, not what). Shell side: `*`, `?`, `[…]`
//! (bash's rules, a leading dot only by a literal dot), and "anything below"
//! (`find`'s `{}`). List side: globset's syntax (`*`, `?`, `[…]`, `**`,
//! `{a,b}`, `\` escapes); an entry with an escaped wildcard (`'~/\*'`) names the
//! pattern text itself and is left to plain matching.

/// Markers for unquoted pattern characters in a normalised path (see
/// `shell::reach`).
pub const STAR: char = '\u{E001}';
/// `?`.
pub const QUESTION: char = '\u{E002}';
/// `[` (up to the next `]`).
pub const BRACKET: char = '\u{E003}';
/// "Some further names below" (a whole component).
pub const SOMETHING: char = '\u{E000}';
/// A `*` or `?` that is a character of a name (quoted: `rm '*'`), in a
/// path's text matched against a list: no list entry spells it, so an
/// escaped wildcard (`'~/\*'`), which names the pattern, does not match it.
pub const NAME_WILDCARD: char = '\u{E004}';

/// A path whose `*`, `?`, `[` are pattern characters, marked; `None` when it
/// has none.
#[must_use]
pub fn marked(path: &str) -> Option<String> {
    path.contains(['*', '?', '[']).then(|| {
        path.chars()
            .map(|c| match c {
                '*' => STAR,
                '?' => QUESTION,
                '[' => BRACKET,
                c => c,
            })
            .collect()
    })
}

/// Most alternatives a list pattern's braces expand to.
const MAX_BRACES: usize = 64;

/// A set of characters a single position accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Set {
    Any,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Set {
    fn contains(&self, c: char) -> bool {
        match self {
            Set::Any => c != '/',
            Set::Class { negated, ranges } => {
                c != '/' && (ranges.iter().any(|(a, b)| (*a..=*b).contains(&c)) != *negated)
            }
        }
    }
}

/// One position of a pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Lit(char),
    One(Set),
    /// Any run of characters within a name.
    Star,
    /// Any run of characters, `/` included.
    Deep,
}

/// A shell pattern (a normalised path with pattern markers), ready to compare.
#[derive(Debug, Clone)]
pub struct ShellPattern {
    toks: Vec<Tok>,
    /// Per token: the index of its component.
    comp: Vec<usize>,
    /// Per component: starts with a literal `.` (may match a hidden name).
    hidden: Vec<bool>,
    /// Per component: holds a wildcard (its literals count as chosen).
    chosen: Vec<bool>,
    /// Per component: `.` then only wide wildcards (`.*`, `.??*`, `.[^.]*`).
    every_hidden: Vec<bool>,
}

impl ShellPattern {
    /// Parse a marked path. `None` when it holds no pattern at all.
    #[must_use]
    pub fn parse(marked: &str, lowercase: bool) -> Option<ShellPattern> {
        if !marked.contains([STAR, QUESTION, BRACKET, SOMETHING]) {
            return None;
        }
        let text = if lowercase {
            marked.to_lowercase()
        } else {
            marked.to_string()
        };
        let mut p = ShellPattern {
            toks: vec![],
            comp: vec![],
            hidden: vec![false],
            chosen: vec![false],
            every_hidden: vec![false],
        };
        let mut comp = 0usize;
        let mut comp_start = true;
        let mut wide_so_far = true;
        let chars: Vec<char> = text.chars().collect();
        let mut k = 0;
        while k < chars.len() {
            let c = chars[k];
            let tok = match c {
                '/' => {
                    p.finish(comp, wide_so_far);
                    p.toks.push(Tok::Lit('/'));
                    p.comp.push(comp);
                    comp += 1;
                    p.hidden.push(false);
                    p.chosen.push(false);
                    p.every_hidden.push(false);
                    comp_start = true;
                    wide_so_far = true;
                    k += 1;
                    continue;
                }
                STAR => Tok::Star,
                QUESTION => Tok::One(Set::Any),
                SOMETHING => Tok::Deep,
                BRACKET => match class(&chars, k + 1) {
                    Some((set, next)) => {
                        k = next;
                        p.push(set, comp, &mut wide_so_far);
                        comp_start = false;
                        continue;
                    }
                    None => Tok::Lit('['),
                },
                c => Tok::Lit(c),
            };
            if comp_start && tok == Tok::Lit('.') {
                p.hidden[comp] = true;
            } else if matches!(tok, Tok::Lit(c) if c.is_alphanumeric()) {
                wide_so_far = false;
            }
            if !matches!(tok, Tok::Lit(_)) {
                p.chosen[comp] = true;
            }
            p.toks.push(tok);
            p.comp.push(comp);
            comp_start = false;
            k += 1;
        }
        p.finish(comp, wide_so_far);
        Some(p)
    }

    fn push(&mut self, set: Set, comp: usize, wide: &mut bool) {
        // A class of one character is that character.
        let tok = match &set {
            Set::Class {
                negated: false,
                ranges,
            } if ranges.iter().all(|r| *r == (ranges[0].0, ranges[0].0)) => Tok::Lit(ranges[0].0),
            _ => Tok::One(set),
        };
        match tok {
            Tok::Lit(c) if c.is_alphanumeric() => *wide = false,
            Tok::Lit(_) => {}
            _ => self.chosen[comp] = true,
        }
        self.toks.push(tok);
        self.comp.push(comp);
    }

    fn finish(&mut self, comp: usize, wide: bool) {
        let toks: Vec<&Tok> = self
            .toks
            .iter()
            .zip(&self.comp)
            .filter(|(_, c)| **c == comp)
            .map(|(t, _)| t)
            .collect();
        self.every_hidden[comp] = wide
            && self.hidden[comp]
            && toks.len() > 1
            && toks[1..].iter().all(|t| !matches!(t, Tok::Lit(_)))
            && toks.iter().any(|t| matches!(t, Tok::Star));
    }
}

/// `[…]` starting after the `[` at `at`: the set and the index after `]`.
fn class(chars: &[char], at: usize) -> Option<(Set, usize)> {
    let mut k = at;
    let negated = matches!(chars.get(k), Some('!' | '^'));
    if negated {
        k += 1;
    }
    let mut ranges = vec![];
    let mut first = true;
    loop {
        let c = *chars.get(k)?;
        if c == ']' && !first {
            return Some((Set::Class { negated, ranges }, k + 1));
        }
        if c == '/' {
            return None;
        }
        first = false;
        if chars.get(k + 1) == Some(&'-') && chars.get(k + 2).is_some_and(|e| *e != ']') {
            let e = chars[k + 2];
            ranges.push((c, e));
            k += 3;
        } else {
            ranges.push((c, c));
            k += 1;
        }
    }
}

/// A list pattern, as its alternatives (braces expanded).
#[derive(Debug, Clone)]
pub struct ListPattern {
    alts: Vec<Alt>,
}

/// One alternative, and its last name when that is plain text (most are:
/// `.env`, `credentials.json`), which rules most shell patterns out at once.
#[derive(Debug, Clone)]
struct Alt {
    toks: Vec<Tok>,
    last: Option<String>,
}

impl ListPattern {
    /// Parse a list glob (without its `!`), already lowercased when the list
    /// ignores case. `None` for an entry that names pattern text itself
    /// (`'~/\*'`) or that does not parse.
    #[must_use]
    pub fn parse(pat: &str) -> Option<ListPattern> {
        if ["\\*", "\\?", "\\["].iter().any(|e| pat.contains(e)) {
            return None;
        }
        let full = if !pat.contains('/') && pat != "**" && !pat.starts_with(['~', '$']) {
            format!("**/{pat}")
        } else {
            pat.to_string()
        };
        let mut alts = vec![];
        for text in braces(&full)? {
            let toks = list_toks(&text)?;
            let from = toks
                .iter()
                .rposition(|t| *t == Tok::Lit('/'))
                .map_or(0, |k| k + 1);
            let last = toks[from..]
                .iter()
                .map(|t| match t {
                    Tok::Lit(c) => Some(*c),
                    _ => None,
                })
                .collect::<Option<String>>()
                .filter(|l| !l.is_empty());
            alts.push(Alt { toks, last });
        }
        Some(ListPattern { alts })
    }
}

fn braces(p: &str) -> Option<Vec<String>> {
    let chars: Vec<char> = p.chars().collect();
    let mut depth = 0;
    let mut open = None;
    let mut commas = vec![];
    let mut k = 0;
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 1,
            '{' => {
                if depth == 0 {
                    open = Some(k);
                    commas.clear();
                }
                depth += 1;
            }
            ',' if depth == 1 => commas.push(k),
            '}' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    let o = open?;
                    let head: String = chars[..o].iter().collect();
                    let tail: String = chars[k + 1..].iter().collect();
                    let mut bounds = vec![o];
                    bounds.extend(&commas);
                    bounds.push(k);
                    let mut out = vec![];
                    for w in bounds.windows(2) {
                        let mid: String = chars[w[0] + 1..w[1]].iter().collect();
                        for rest in braces(&format!("{head}{mid}{tail}"))? {
                            out.push(rest);
                            if out.len() > MAX_BRACES {
                                return None;
                            }
                        }
                    }
                    return Some(out);
                }
            }
            _ => {}
        }
        k += 1;
    }
    Some(vec![p.to_string()])
}

fn list_toks(p: &str) -> Option<Vec<Tok>> {
    let chars: Vec<char> = p.chars().collect();
    let mut toks = vec![];
    let mut k = 0;
    while k < chars.len() {
        match chars[k] {
            '\\' => {
                toks.push(Tok::Lit(*chars.get(k + 1)?));
                k += 2;
            }
            '*' if chars.get(k + 1) == Some(&'*') => {
                toks.push(Tok::Deep);
                k += 2;
            }
            '*' => {
                toks.push(Tok::Star);
                k += 1;
            }
            '?' => {
                toks.push(Tok::One(Set::Any));
                k += 1;
            }
            '[' => {
                let (set, next) = class(&chars, k + 1)?;
                toks.push(Tok::One(set));
                k = next;
            }
            c => {
                toks.push(Tok::Lit(c));
                k += 1;
            }
        }
    }
    Some(toks)
}

/// Does the shell pattern name a path the list pattern names (see the module
/// documentation)? `view` is the marked path (or one of its `~/…`,
/// `$PROJECT_DIR/…` forms) the shell pattern was parsed from.
#[must_use]
pub fn names(shell: &ShellPattern, list: &ListPattern) -> bool {
    list.alts.iter().any(|alt| {
        alt.last
            .as_deref()
            .is_none_or(|name| shell.last_may_be(name))
            && score(shell, &alt.toks).is_some_and(|s| s <= (0, 0))
    })
}

impl ShellPattern {
    /// Can the last name of the pattern be `name`? (`false` is certain.)
    fn last_may_be(&self, name: &str) -> bool {
        let Some(&last) = self.comp.last() else {
            return false;
        };
        let from = self.comp.iter().position(|c| *c == last).unwrap_or(0);
        let toks = &self.toks[from..];
        if toks.contains(&Tok::Deep) {
            return true;
        }
        let name: Vec<char> = name.chars().collect();
        if name.first() == Some(&'.') && !self.hidden[last] {
            return false;
        }
        // may[k]: the tokens so far can take the first k characters.
        let mut may = vec![false; name.len() + 1];
        may[0] = true;
        for t in toks {
            let mut next = vec![false; name.len() + 1];
            for k in 0..=name.len() {
                if !may[k] {
                    continue;
                }
                if *t == Tok::Star {
                    next[k] = true;
                    for (j, c) in name.iter().enumerate().skip(k) {
                        if *c == '/' {
                            break;
                        }
                        next[j + 1] = true;
                    }
                } else if name.get(k).is_some_and(|c| accepts(t, *c)) {
                    next[k + 1] = true;
                }
            }
            may = next;
        }
        may[name.len()]
    }
}

/// Characters a non-slash witness may be, for two classes.
const PROBE: &[char] = &[
    ' ', '!', '"', '#', '$', '%', '&', '\'', '(', ')', '*', '+', ',', '-', '.', '0', '1', '2', '3',
    '4', '5', '6', '7', '8', '9', ':', ';', '<', '=', '>', '?', '@', 'a', 'b', 'c', 'd', 'e', 'f',
    'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y',
    'z', 'A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', 'J', 'K', 'L', 'M', 'N', 'O', 'P', 'Q', 'R',
    'S', 'T', 'U', 'V', 'W', 'X', 'Y', 'Z', '[', '\\', ']', '^', '_', '`', '{', '|', '}', '~', 'é',
];

/// What one token accepts for one character: `/`, and non-`/` characters.
fn accepts(t: &Tok, c: char) -> bool {
    match t {
        Tok::Lit(l) => *l == c,
        Tok::One(s) => s.contains(c),
        Tok::Star => c != '/',
        Tok::Deep => true,
    }
}

/// The lowest (wildcard-taken fixed characters − written fixed characters)
/// over the paths both accept, then, among those, the fewest characters the
/// shell pattern writes where the list pattern has a wildcard of a name (`*`,
/// `?`, `[…]`: `image` of `image.E??` against `*.env`); `None` when they share
/// no path.
fn score(sp: &ShellPattern, e: &[Tok]) -> Option<(i32, i32)> {
    let p = &sp.toks;
    let (n, m) = (p.len(), e.len());
    const INF: (i32, i32) = (i32::MAX / 2, 0);
    // best[i][j][s]: s = at the start of a name.
    let idx = |i: usize, j: usize, s: usize| (i * (m + 1) + j) * 2 + s;
    let mut best = vec![INF; (n + 1) * (m + 1) * 2];
    best[idx(0, 0, 1)] = (0, 0);
    for i in 0..=n {
        for j in 0..=m {
            for s in [1usize, 0] {
                let v = best[idx(i, j, s)];
                if v >= INF {
                    continue;
                }
                let relax =
                    |i2: usize, j2: usize, s2: usize, w: (i32, i32), best: &mut Vec<(i32, i32)>| {
                        let k = idx(i2, j2, s2);
                        let to = (v.0 + w.0, v.1 + w.1);
                        if to < best[k] {
                            best[k] = to;
                        }
                    };
                // Empty runs.
                if i < n && matches!(p[i], Tok::Star | Tok::Deep) {
                    relax(i + 1, j, s, (0, 0), &mut best);
                }
                if j < m && matches!(e[j], Tok::Star | Tok::Deep) {
                    relax(i, j + 1, s, (0, 0), &mut best);
                }
                if i == n || j == m {
                    continue;
                }
                // One character, taken by both.
                let (pt, et) = (&p[i], &e[j]);
                let pi = if matches!(pt, Tok::Star | Tok::Deep) {
                    i
                } else {
                    i + 1
                };
                let ej = if matches!(et, Tok::Star | Tok::Deep) {
                    j
                } else {
                    j + 1
                };
                let comp = sp.comp[i];
                let p_wild = !matches!(pt, Tok::Lit(_));
                let e_lit = matches!(et, Tok::Lit(_));
                let fixed = if e_lit && p_wild && !sp.every_hidden[comp] {
                    1
                } else if e_lit && !p_wild && sp.chosen[comp] && *pt != Tok::Lit('/') {
                    -1
                } else {
                    0
                };
                let own =
                    i32::from(!p_wild && sp.chosen[comp] && matches!(et, Tok::Star | Tok::One(_)));
                let w = (fixed, own);
                // A `/`.
                if accepts(pt, '/') && accepts(et, '/') && (pi, ej) != (i, j) {
                    relax(pi, ej, 1, w, &mut best);
                }
                // Another character: a leading dot only by a literal dot of
                // a name that starts with one.
                let ok = |c: char| {
                    c != '/'
                        && accepts(pt, c)
                        && accepts(et, c)
                        && !(s == 1
                            && c == '.'
                            && !(sp.hidden[comp] && matches!(pt, Tok::Lit('.'))))
                };
                let witness = match (pt, et) {
                    (Tok::Lit(c), _) | (_, Tok::Lit(c)) => ok(*c),
                    _ => PROBE.iter().any(|c| ok(*c)),
                };
                if witness {
                    relax(pi, ej, 0, w, &mut best);
                }
            }
        }
    }
    let v = best[idx(n, m, 0)].min(best[idx(n, m, 1)]);
    (v < INF).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '*' => STAR,
                '?' => QUESTION,
                '[' => BRACKET,
                '…' => SOMETHING,
                c => c,
            })
            .collect()
    }

    fn named(shell: &str, list: &str) -> bool {
        let sp = ShellPattern::parse(&marked(shell), true).expect("a pattern");
        let lp = ListPattern::parse(&list.to_lowercase()).expect("a list pattern");
        names(&sp, &lp)
    }

    #[test]
    fn patterns_that_spell_the_name_name_it() {
        for (shell, list) in [
            ("/p/.e*", ".env"),
            ("/p/.en?", ".env"),
            ("/p/.[e]nv", ".env"),
            ("/p/.[Ee][Nn][Vv]", ".env"),
            ("/p/.*v", ".env"),
            ("/p/.env*", ".env.*"),
            ("/p/*.pem", "*.pem"),
            ("/p/*.PEM", "*.pem"),
            ("/p/*credentials*", "*credentials.{json,yaml}"),
            ("~/.ssh/id_*", "id_rsa*"),
            ("~/.ssh/*", "~/.ssh/**"),
            ("~/.a*/credentials", "~/.aws/**"),
            ("/h/*/id_rsa", "id_rsa*"),
            // every hidden name
            ("/p/.*", ".env"),
            ("/p/.??*", ".env"),
            ("/p/.[^.]*", "/p/.git"),
            ("/p/.??*", "/p/.claude"),
            ("/p/.[!.]*", ".npmrc"),
            ("/p/.g*", "/p/.git"),
            ("/p/…", "/p/**"),
            // a tie that writes nothing but the secret's characters
            ("/p/*.e*", "*.env"),
            ("/p/_*.json", "*_secret.json"),
        ] {
            assert!(named(shell, list), "{shell} should name {list}");
        }
    }

    #[test]
    fn patterns_that_leave_the_name_to_wildcards_do_not() {
        for (shell, list) in [
            ("/p/*", ".env"),
            ("/p/*", "credentials"),
            ("/p/*.json", "credentials.json"),
            ("/p/*.json", "*service-account*.json"),
            ("/p/*.yaml", "secrets.{yaml,yml}"),
            ("/p/README.*", "*.pem"),
            ("/p/terraform.*", "*.tfstate"),
            ("/p/*.md", ".env"),
            ("/p/src/*.rs", "*.pem"),
            ("/p/.n*", ".npmrc"),
            ("/p/.eslintrc*", ".env"),
            ("/p/.git*", ".git-credentials"),
            ("/p/*env", ".env"),
            ("/p/?env", ".env"),
            ("/p/[.]env", ".env"),
            ("/p/.c*", "/p/.git"),
            ("/p/build/.??*", "/p/.git"),
            ("/p/*.log", "/p/.git"),
            ("/p/…", ".env"),
            // a tie where the pattern also writes a name of its own
            ("/p/data/image.E??", "*.env"),
            ("/p/data/prod.e*", "*.env"),
            (
                "/p/path/to/multiple_json_file_*.json",
                "*_secret.{yaml,yml,json}",
            ),
            ("/p/backup_*.json", "*_secret.json"),
        ] {
            assert!(!named(shell, list), "{shell} should not name {list}");
        }
    }

    #[test]
    fn escaped_wildcards_are_left_to_plain_matching() {
        assert!(ListPattern::parse("~/*/\\*").is_none());
        assert!(ListPattern::parse("$project_dir/.\\*").is_none());
        assert!(ListPattern::parse("secrets.{yaml,yml}").is_some());
    }
}
