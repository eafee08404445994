//! Word expansion as the analysis can do it before the command runs: tilde,
//! parameters the command itself assigned (or that are known to be the home
//! folder, the directory, the project), command substitutions whose output is
//! known, field splitting of unquoted expansions, and patterns kept as such.
//! Anything else becomes [`Piece::Unknown`].

use super::state::{State, Var};
use super::syntax::{CommandKind, Param, ParamOp, Part, RedirKind, SubKind, Word};
use super::RedirectOp;
use crate::shell::budget;
use crate::shell::value::{Piece, Sym, Value, MAX_ALTERNATIVES};

/// One field a word expands to.
#[derive(Debug, Clone)]
pub(super) struct Field {
    /// The text an argument list shows: the expanded text when it is fully
    /// known, else the word as written (quotes removed), so `"$HOME"` stays
    /// `$HOME` and a rule listing `$HOME` still matches.
    pub text: String,
    /// What it may be.
    pub value: Value,
    /// When the word is a process substitution (`<(…)`): what it outputs.
    pub content: Option<Value>,
    /// When the word is one substitution that only prints files named
    /// outright (`"$(cat f)"`, `` `cat f g` ``, `$(< f)`, `<(cat f)`): the
    /// files. Code read from such a word is their text, as `sh f` reads it.
    pub printed: Option<Vec<Value>>,
}

impl Field {
    /// A field that is exactly this text.
    pub fn literal(text: &str) -> Field {
        Field {
            text: text.to_string(),
            value: Value::text(text),
            content: None,
            printed: None,
        }
    }
}

/// A value of one parameter: one string, or several fields (`"$@"`).
enum Got {
    One(Value),
    Many(Vec<Value>),
}

/// Fields being built for one alternative: (value, keep even if empty).
#[derive(Clone, Default, PartialEq)]
struct Acc {
    fields: Vec<(Sym, bool)>,
    open: bool,
}

impl Acc {
    fn field(&mut self) -> &mut (Sym, bool) {
        if !self.open || self.fields.is_empty() {
            self.fields.push((Sym::default(), false));
            self.open = true;
        }
        let n = self.fields.len() - 1;
        &mut self.fields[n]
    }

    /// Append without splitting; `keep`: the field exists even if empty.
    fn join(&mut self, s: &Sym, keep: bool) {
        let f = self.field();
        f.0.extend(s);
        f.1 |= keep;
    }

    /// Append an unquoted expansion: split literal text on the characters of
    /// `IFS` (each run of them ends a field).
    fn split(&mut self, s: &Sym, ifs: &str) {
        for p in &s.0 {
            match p {
                Piece::Text(t) => {
                    let mut chunk = String::new();
                    for c in t.chars() {
                        if ifs.contains(c) {
                            if !chunk.is_empty() {
                                self.field().0.push(Piece::Text(std::mem::take(&mut chunk)));
                            }
                            self.open = false;
                        } else {
                            chunk.push(c);
                        }
                    }
                    if !chunk.is_empty() {
                        self.field().0.push(Piece::Text(chunk));
                    }
                }
                // The pattern of an unquoted expansion still globs.
                p => self.field().0.push(p.clone()),
            }
        }
    }

    fn finish(self) -> Vec<Sym> {
        self.fields
            .into_iter()
            .filter(|(s, keep)| *keep || !s.is_empty())
            .map(|(s, _)| s)
            .collect()
    }
}

/// Expands words against a state and the outputs of the word's substitutions.
pub(super) struct Expander<'a> {
    pub state: &'a State,
}

impl Expander<'_> {
    /// The fields of a word used as a command word or argument. `outputs`: what
    /// each of `word.subs` printed (`None`: not computed).
    pub fn fields(&self, word: &Word, outputs: &[Value]) -> Vec<Field> {
        let content = match word.parts.as_slice() {
            [Part::Sub { index, .. }]
                if word.subs.get(*index).is_some_and(|s| {
                    s.kind != super::syntax::SubKind::Dollar
                        && s.kind != super::syntax::SubKind::Backtick
                }) =>
            {
                outputs.get(*index).cloned()
            }
            _ => None,
        };
        let printed = self.printed_files(word);
        let alts = self.expand(&word.parts, outputs, true);
        let literal_word = word.parts.iter().all(|p| matches!(p, Part::Lit { .. }));
        let mut out: Vec<Field> = Vec::new();
        // Alternatives that split into the same number of fields are zipped;
        // otherwise there are as many fields as the longest has, and a shorter
        // one is empty where it has none (the empty word names nothing, and an
        // alternative that expands to no field is never lost: `set $FILES`
        // where FILES may be empty or a list).
        let n = alts.iter().map(Vec::len).max().unwrap_or(0);
        for i in 0..n {
            let mut value = Value::default();
            for a in &alts {
                match a.get(i) {
                    Some(s) => value.add(s.clone()),
                    None => value.add(Sym::default()),
                }
            }
            let text = if literal_word && n == 1 {
                word.text.clone()
            } else {
                match value.literal() {
                    Some(t) => t,
                    None => word.text.clone(),
                }
            };
            out.push(Field {
                text,
                value,
                content: content.clone(),
                printed: printed.clone(),
            });
            if out.len() >= budget::MAX_FIELDS {
                budget::exceed(budget::Over::Fields);
                break;
            }
        }
        out
    }

    /// The files a word that is one substitution prints whole (see
    /// [`Field::printed`]): `cat` of named files, nothing else in the
    /// substitution, or bash's `$(< f)`. Each name is one known field.
    fn printed_files(&self, word: &Word) -> Option<Vec<Value>> {
        let [Part::Sub { index, .. }] = word.parts.as_slice() else {
            return None;
        };
        let s = word.subs.get(*index)?;
        if s.kind == SubKind::ProcOut {
            return None;
        }
        let [and_or] = s.body.items.as_slice() else {
            return None;
        };
        let [c] = and_or.first.cmds.as_slice() else {
            return None;
        };
        if !and_or.rest.is_empty() || and_or.background {
            return None;
        }
        let CommandKind::Simple { assigns, words } = &c.kind else {
            return None;
        };
        let named = |w: &Word| -> Option<Value> {
            if !w.subs.is_empty() || w.text.is_empty() || w.text.starts_with('-') {
                return None;
            }
            match self.fields(w, &[]).as_slice() {
                [one] if !one.value.has_unknown() => Some(one.value.clone()),
                _ => None,
            }
        };
        if !assigns.is_empty() {
            return None;
        }
        match words.split_first() {
            None => match c.redirs.as_slice() {
                [r] if r.kind == RedirKind::File(RedirectOp::Read)
                    && r.fd.is_none_or(|fd| fd == 0) =>
                {
                    Some(vec![named(&r.target)?])
                }
                _ => None,
            },
            Some((prog, args)) if prog.text == "cat" && c.redirs.is_empty() && !args.is_empty() => {
                args.iter().map(named).collect()
            }
            Some(_) => None,
        }
    }

    /// The value of an assignment's right-hand side (`NAME=…`): no splitting,
    /// no globbing, a leading `~` expanded.
    pub fn assignment(&self, word: &Word, outputs: &[Value]) -> Var {
        // `NAME+=…` appends to what NAME holds (the environment's value when
        // the command never set it: unknown): `c=r; c+=m; $c -rf ~` runs rm.
        let appended_to = word
            .assign
            .as_ref()
            .filter(|(name, _)| {
                word.text
                    .get(name.len()..)
                    .is_some_and(|r| r.starts_with("+="))
            })
            .map(|(name, _)| match self.state.vars.get(name) {
                Some(b) => b.var.clone(),
                None => Var::Scalar(Value::unknown(&format!("${name}"))),
            });
        let var = self.assigned(word, outputs);
        match (appended_to, var) {
            (None, var) => var,
            (Some(Var::Array(mut a)), Var::Array(b)) => {
                a.extend(b);
                Var::Array(a)
            }
            (Some(before), Var::Array(b)) => {
                let mut a = vec![before.scalar()];
                a.extend(b);
                Var::Array(a)
            }
            (Some(before), Var::Scalar(v)) => Var::Scalar(before.scalar().concat(&v)),
        }
    }

    /// The value an assignment's right-hand side gives, before `+=` joins it.
    fn assigned(&self, word: &Word, outputs: &[Value]) -> Var {
        if let Some(elems) = &word.array {
            let mut vals = Vec::new();
            for e in elems {
                // Element substitutions are not computed here (they ran).
                for f in self.fields(e, &[]) {
                    vals.push(f.value);
                }
                if vals.len() >= budget::MAX_FIELDS {
                    budget::exceed(budget::Over::Fields);
                    break;
                }
            }
            return Var::Array(vals);
        }
        let mut parts = word.parts.clone();
        // Drop `NAME=` / `NAME+=` / `NAME[i]=` from the first literal part.
        if let Some(Part::Lit { text, .. }) = parts.first_mut() {
            if let Some(eq) = text.find('=') {
                *text = text.get(eq + 1..).unwrap_or_default().to_string();
            }
        }
        let alts = self.expand(&parts, outputs, false);
        let mut v = Value::default();
        for a in alts {
            let mut s = Sym::default();
            for f in a {
                s.extend(&f);
            }
            v.add(s);
        }
        if v.0.is_empty() {
            v.add(Sym::default());
        }
        Var::Scalar(v)
    }

    /// Expand parts into alternatives, each a list of fields. `split`: field
    /// splitting and patterns apply (not in assignments).
    fn expand(&self, parts: &[Part], outputs: &[Value], split: bool) -> Vec<Vec<Sym>> {
        let mut accs = vec![Acc::default()];
        let mut first = true;
        for part in parts {
            let at_start = first;
            first = false;
            match part {
                Part::Lit { text, quoted } => {
                    let s = if *quoted {
                        Sym::text(text)
                    } else {
                        self.unquoted(text, at_start, split)
                    };
                    for a in &mut accs {
                        a.join(&s, true);
                    }
                }
                Part::Param(p) => match self.param(p, outputs) {
                    Got::One(v) => accs = self.append(accs, &v, split && !p.quoted, p.quoted),
                    Got::Many(vs) => {
                        for (i, v) in vs.iter().enumerate() {
                            if i > 0 {
                                for a in &mut accs {
                                    a.open = false;
                                }
                            }
                            accs = self.append(accs, v, split && !p.quoted, p.quoted);
                        }
                    }
                },
                Part::Sub { index, quoted } => {
                    let v = outputs
                        .get(*index)
                        .cloned()
                        .unwrap_or_else(|| Value::unknown("$(…)"));
                    accs = self.append(accs, &v, split && !quoted, *quoted);
                }
                Part::Arith { quoted, .. } => {
                    accs = self.append(accs, &Value::unknown("$((…))"), false, *quoted);
                }
            }
        }
        accs.into_iter().map(Acc::finish).collect()
    }

    /// Every accumulator followed by every alternative of `v` (bounded).
    fn append(&self, mut accs: Vec<Acc>, v: &Value, split: bool, keep: bool) -> Vec<Acc> {
        let ifs = self.ifs();
        if let [s] = v.0.as_slice() {
            // One value: extend in place (no copies, so long words stay linear).
            for a in &mut accs {
                if split {
                    a.split(s, &ifs);
                } else {
                    a.join(s, keep);
                }
            }
            return accs;
        }
        let first = accs.first().cloned().unwrap_or_default();
        let mut out: Vec<Acc> = Vec::new();
        for a in &accs {
            for s in &v.0 {
                let mut b = a.clone();
                if split {
                    b.split(s, &ifs);
                } else {
                    b.join(s, keep);
                }
                if !out.contains(&b) {
                    out.push(b);
                }
            }
        }
        if out.len() > MAX_ALTERNATIVES {
            // Too many combinations: keep the first ones, and one unknown.
            out.truncate(MAX_ALTERNATIVES - 1);
            let mut u = first;
            u.join(&Sym::unknown("(more alternatives)"), true);
            out.push(u);
        }
        if out.is_empty() {
            accs
        } else {
            out
        }
    }

    /// Unquoted literal text: a leading tilde prefix, and pattern characters.
    fn unquoted(&self, text: &str, at_start: bool, split: bool) -> Sym {
        let mut s = Sym::default();
        let mut rest = text;
        // bash expands a tilde after the `=` of an argument that looks like an
        // assignment (`dd of=~/x` writes `$HOME/x`; sh and zsh leave it).
        if at_start {
            let name_len = text
                .char_indices()
                .take_while(|(i, c)| {
                    c.is_ascii_alphabetic() || *c == '_' || (*i > 0 && c.is_ascii_digit())
                })
                .count();
            if name_len > 0 && text[name_len..].starts_with("=~") {
                s.push(Piece::Text(text[..=name_len].to_string()));
                rest = &text[name_len + 1..];
            }
        }
        if at_start {
            if let Some(after) = rest.strip_prefix('~') {
                // The prefix ends at a slash, or a colon (`-v ~:/data` is home).
                let end = after.find(['/', ':']).unwrap_or(after.len());
                let user = &after[..end];
                let tilde = match user {
                    "" => Some(self.home()),
                    "+" => Some(self.state.cwd.0.first().cloned().unwrap_or_default()),
                    "-" => Some(self.state.oldpwd.0.first().cloned().unwrap_or_default()),
                    u if u
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) =>
                    {
                        Some(Sym::piece(Piece::HomeOf(u.to_string())))
                    }
                    _ => None,
                };
                if let Some(t) = tilde {
                    s.extend(&t);
                    rest = &after[end..];
                }
            }
        }
        if !split {
            s.push(Piece::Text(rest.to_string()));
            return s;
        }
        let mut lit = String::new();
        for c in rest.chars() {
            if matches!(c, '*' | '?' | '[') {
                if !lit.is_empty() {
                    s.push(Piece::Text(std::mem::take(&mut lit)));
                }
                s.push(Piece::Glob(c.to_string()));
            } else {
                lit.push(c);
            }
        }
        if !lit.is_empty() {
            s.push(Piece::Text(lit));
        }
        s
    }

    fn home(&self) -> Sym {
        match self.state.vars.get("HOME") {
            Some(b) => b.var.scalar().0.first().cloned().unwrap_or_default(),
            None => Sym::piece(Piece::Home),
        }
    }

    /// The field separators: `IFS` when the command set it to known text
    /// (`IFS=_; $c`), else space, tab and newline.
    fn ifs(&self) -> std::borrow::Cow<'static, str> {
        match self
            .state
            .vars
            .get("IFS")
            .and_then(|b| b.var.scalar().literal())
        {
            Some(t) => t.into(),
            None => " \t\n".into(),
        }
    }

    /// The value of a parameter expansion.
    fn param(&self, p: &Param, outputs: &[Value]) -> Got {
        let label = match &p.op {
            ParamOp::Plain => format!("${}", p.name),
            ParamOp::Indirect => "${!…}".to_string(),
            _ => format!("${{{}…}}", p.name),
        };
        if p.name == "TMPDIR" && !self.state.vars.contains_key("TMPDIR") {
            if let Some(g) = self.tmpdir(&p.op, outputs) {
                return g;
            }
        }
        let known = self.lookup(&p.name);
        match &p.op {
            // A process id (this shell's, its parent's): digits only known
            // when it runs, but a name of one path component, so that
            // `/proc/$$/environ` is judged as `/proc/*/environ` (cause from
            // redteam5) rather than as somewhere below `/proc`.
            ParamOp::Plain
                if known.is_none() && matches!(p.name.as_str(), "$" | "PPID" | "BASHPID") =>
            {
                Got::One(Value::text(&label))
            }
            ParamOp::Plain => known.unwrap_or_else(|| Got::One(Value::unknown(&label))),
            ParamOp::Index(sub) => {
                let var = self.state.vars.get(&p.name).map(|b| &b.var);
                match (var, sub.as_str()) {
                    (Some(Var::Array(a)), "@" | "*") => Got::Many(a.clone()),
                    (Some(Var::Array(a)), n) => match n.parse::<usize>() {
                        Ok(i) => Got::One(a.get(i).cloned().unwrap_or_else(|| Value::text(""))),
                        Err(_) => Got::One(Value::unknown(&label)),
                    },
                    (Some(Var::Scalar(v)), "0" | "@" | "*") => Got::One(v.clone()),
                    (Some(Var::Scalar(_)), _) => Got::One(Value::text("")),
                    (None, _) if p.name == "@" || p.name == "*" => {
                        known.unwrap_or_else(|| Got::One(Value::unknown(&label)))
                    }
                    (None, _) => Got::One(Value::unknown(&label)),
                }
            }
            ParamOp::Default { word, colon, .. } => {
                let w = self.joined(word, outputs);
                match known.map(one) {
                    // Known and non-empty: the value; known empty: the word when
                    // `:-`; unknown: either.
                    Some(v) => match v.literal() {
                        Some(t) if t.is_empty() && *colon => w,
                        Some(_) => v,
                        None => v.union(&w),
                    },
                    None => Value::unknown(&format!("${}", p.name)).union(&w),
                }
                .into()
            }
            ParamOp::Alternative { word, colon } => {
                let w = self.joined(word, outputs);
                match known.map(one) {
                    Some(v) => match v.literal() {
                        Some(t) if t.is_empty() && *colon => Value::text(""),
                        Some(_) => w,
                        None => w.union(&Value::text("")),
                    },
                    None => w.union(&Value::text("")),
                }
                .into()
            }
            // The shell stops before the command when it is unset (or, with
            // `:?`, empty): otherwise it is the plain value.
            ParamOp::Required => {
                known.unwrap_or_else(|| Got::One(Value::unknown(&format!("${}", p.name))))
            }
            // The named variable's value, when the name is known text; each
            // alternative's (`for v in PATH HOME; do … ${!v}`).
            ParamOp::Indirect => {
                let known_unset = known.is_none() && !self.state.vars.contains_key(&p.name);
                let names: Option<Vec<String>> = known.map(one).and_then(|v| {
                    v.0.iter()
                        .map(|s| s.literal().filter(|n| super::env_values::is_name(n)))
                        .collect()
                });
                match names {
                    // A name the line never set (`echo ${!variable}`): one
                    // variable the environment names, unknown as `printenv
                    // "$X"` is; not every variable, as a name read from
                    // input or a command's output may be (`compgen -v |
                    // while read v; do echo ${!v}; done`).
                    _ if known_unset => Got::One(Value::unknown(&format!("${{!{}}}", p.name))),
                    Some(names) if !names.is_empty() => {
                        let mut alternatives = Vec::new();
                        for n in names {
                            let got = self.param(
                                &Param {
                                    name: n,
                                    op: ParamOp::Plain,
                                    quoted: p.quoted,
                                },
                                outputs,
                            );
                            alternatives.extend(one(got).0);
                        }
                        Got::One(Value(alternatives))
                    }
                    _ => Got::One(Value::unknown(&label)),
                }
            }
            ParamOp::Trim {
                pattern,
                suffix,
                longest,
            } => {
                let pat = self.joined(pattern, outputs);
                let value = known.map(one);
                match (value, pat.literal()) {
                    (Some(v), Some(pat)) => {
                        let mut out = Value::default();
                        for s in &v.0 {
                            match trim(s, &pat, *suffix, *longest) {
                                Some(t) => out.add(t),
                                None => return Got::One(Value::unknown(&label)),
                            }
                        }
                        Got::One(out)
                    }
                    _ => Got::One(Value::unknown(&label)),
                }
            }
            ParamOp::Case | ParamOp::Prompt | ParamOp::Other => Got::One(Value::unknown(&label)),
        }
    }

    /// `$TMPDIR`, which the command did not set: a temp root when it is set,
    /// empty when not (most Linux systems leave it unset), so `"$TMPDIR/x"`
    /// may be `/x`: the value is the temp root or unknown. The guarded forms
    /// are the temp root: `${TMPDIR:?}` (the shell stops when it is unset)
    /// and `${TMPDIR:-/tmp}` (a temp root either way).
    fn tmpdir(&self, op: &ParamOp, outputs: &[Value]) -> Option<Got> {
        let root = Value::one(Sym::piece(Piece::TempRoot));
        let unset = Value::unknown("$TMPDIR");
        Some(Got::One(match op {
            ParamOp::Plain => root.union(&unset),
            ParamOp::Required => root,
            ParamOp::Default { word, colon, .. } => {
                let w = self.joined(word, outputs);
                if *colon {
                    root.union(&w)
                } else {
                    // `${TMPDIR-w}`: set but empty stays empty.
                    root.union(&w).union(&unset)
                }
            }
            _ => return None,
        }))
    }

    /// The word of `${X:-word}` as one value.
    fn joined(&self, parts: &[Part], outputs: &[Value]) -> Value {
        let mut v = Value::default();
        for alt in self.expand(parts, outputs, false) {
            let mut s = Sym::default();
            for f in alt {
                s.extend(&f);
            }
            v.add(s);
        }
        if v.0.is_empty() {
            v.add(Sym::default());
        }
        v
    }

    /// What the analysis knows of a parameter, if anything.
    fn lookup(&self, name: &str) -> Option<Got> {
        if let Some(b) = self.state.vars.get(name) {
            return Some(Got::One(b.var.scalar()));
        }
        if let Ok(n) = name.parse::<usize>() {
            // At the top level `$0` is the shell running the command (bash,
            // under the name it was started with).
            if n == 0 && self.state.positional.is_none() {
                return Some(Got::One(Value::text("bash").union(&Value::unknown("$0"))));
            }
            let pos = self.state.positional.as_ref()?;
            return Some(Got::One(
                pos.get(n).cloned().unwrap_or_else(|| Value::text("")),
            ));
        }
        Some(Got::One(match name {
            "@" | "*" => {
                let pos = self.state.positional.as_ref()?;
                return Some(Got::Many(pos.get(1..).unwrap_or_default().to_vec()));
            }
            "#" => {
                let pos = self.state.positional.as_ref()?;
                Value::text(&pos.len().saturating_sub(1).to_string())
            }
            "HOME" => Value::one(Sym::piece(Piece::Home)),
            "PWD" => self.state.cwd.clone(),
            "OLDPWD" => self.state.oldpwd.clone(),
            "CLAUDE_PROJECT_DIR" => Value::one(Sym::piece(Piece::Project)),
            "TMPDIR" => Value::one(Sym::piece(Piece::TempRoot)).union(&Value::unknown("$TMPDIR")),
            "USER" | "LOGNAME" => Value::one(Sym::piece(Piece::Env(name.to_string()))),
            "IFS" => Value::text(" \t\n"),
            // The user's login shell: one that reads `-c` code as `sh` does.
            "SHELL" => Value::text("/bin/sh"),
            // The running bash's own path.
            "BASH" => Value::text("/bin/bash"),
            _ => return None,
        }))
    }
}

/// `${X#pat}` and its kin on one alternative of a known value, when the
/// result can be computed: every piece is text, or the pattern is empty, or a
/// suffix is removed within the text after a folder the analysis names
/// (`${HOME%/}`: a folder's path does not end in `/`). `None`: not known.
fn trim(s: &Sym, pat: &str, suffix: bool, longest: bool) -> Option<Sym> {
    if pat.is_empty() {
        return Some(s.clone());
    }
    if let Some(text) = s.literal() {
        let cut = trim_text(&text, pat, suffix, longest).unwrap_or(text);
        return Some(Sym::text(&cut));
    }
    if !suffix {
        return None;
    }
    // A folder the analysis names (home, the project, the start, the temp
    // root), then text: the suffix is found in the text, or, when the
    // pattern matches only slashes, nowhere (the folder's path ends in a
    // name, and so does text that is not all slashes).
    // The text may hold a pattern (`$(ls *.txt)`): cut as text, it stays one.
    let (head, tail) = s.0.split_at(
        s.0.iter()
            .rposition(|p| !matches!(p, Piece::Text(_) | Piece::Glob(_)))?
            + 1,
    );
    let pattern = tail.iter().any(|p| matches!(p, Piece::Glob(_)));
    if !matches!(
        head.last(),
        Some(Piece::Home | Piece::Project | Piece::Start | Piece::TempRoot)
    ) {
        return None;
    }
    let text: String = tail
        .iter()
        .map(|p| match p {
            Piece::Text(t) | Piece::Glob(t) => t.as_str(),
            _ => "",
        })
        .collect();
    let slashes_only = pat.chars().all(|c| c == '/');
    let cut = match trim_text(&text, pat, true, longest) {
        // A longest match may reach into the folder's path: only a pattern
        // of slashes cannot.
        Some(t) if !longest || slashes_only || !pat.contains('*') => t,
        Some(_) => return None,
        None if slashes_only && !text.ends_with('/') => text.clone(),
        // `${HOME%/*}`: the folder above; `${HOME%%/*}`: the path is
        // absolute, so nothing is left.
        None if pat == "/*" && text.is_empty() && !longest => "/..".to_string(),
        None if pat == "/*" && longest => return Some(Sym::default()),
        None => return None,
    };
    let mut out = Sym(head.to_vec());
    if !cut.is_empty() {
        out.push(if pattern {
            Piece::Glob(cut)
        } else {
            Piece::Text(cut)
        });
    }
    Some(out)
}

/// `text` less the shortest (`longest`: longest) prefix or `suffix` matching
/// the shell pattern `pat`; `None` when none matches (the shell then leaves
/// the text as it is).
fn trim_text(text: &str, pat: &str, suffix: bool, longest: bool) -> Option<String> {
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let order: Box<dyn Iterator<Item = &usize>> = match (suffix, longest) {
        // Prefixes: shortest first is from the start; suffixes: shortest
        // first is from the end.
        (false, false) | (true, true) => Box::new(bounds.iter()),
        (false, true) | (true, false) => Box::new(bounds.iter().rev()),
    };
    for &at in order {
        let (part, rest) = if suffix {
            (&text[at..], &text[..at])
        } else {
            (&text[..at], &text[at..])
        };
        if pattern_matches(pat, part) {
            return Some(rest.to_string());
        }
    }
    None
}

/// Does the shell pattern `pat` (`*`, `?`, `[…]`, `\x`) match all of `s`?
fn pattern_matches(pat: &str, s: &str) -> bool {
    let p: Vec<char> = pat.chars().collect();
    let t: Vec<char> = s.chars().collect();
    // Iterative matching with one backtrack point for the last `*`.
    let (mut pi, mut ti) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, ti));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => class_len(&p[pi..], t[ti]),
            Some('\\') if p.get(pi + 1) == Some(&t[ti]) => Some(2),
            Some(c) if *c == t[ti] && *c != '\\' => Some(1),
            _ => None,
        };
        match step {
            Some(n) => {
                pi += n;
                ti += 1;
            }
            None => match star {
                Some((sp, st)) => {
                    pi = sp + 1;
                    ti = st + 1;
                    star = Some((sp, st + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

/// The length of the bracket expression at the start of `p` when it matches
/// `c` (`[a-z]`, `[!/]`, `[^x]`); `None` when it does not match. A `[`
/// without its `]` is a literal `[`.
fn class_len(p: &[char], c: char) -> Option<usize> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let start = i;
    let mut hit = false;
    while let Some(&x) = p.get(i) {
        if x == ']' && i > start {
            return (hit != negate).then_some(i + 1);
        }
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|e| *e != ']') {
            let e = p[i + 2];
            hit |= x <= c && c <= e;
            i += 3;
        } else {
            hit |= x == c;
            i += 1;
        }
    }
    (c == '[').then_some(1)
}

fn one(g: Got) -> Value {
    match g {
        Got::One(v) => v,
        Got::Many(vs) => {
            let mut out = Value::text("");
            for (i, v) in vs.iter().enumerate() {
                if i > 0 {
                    out = out.concat(&Value::text(" "));
                }
                out = out.concat(v);
            }
            out
        }
    }
}

impl From<Value> for Got {
    fn from(v: Value) -> Got {
        Got::One(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_as_bash_does() {
        // (text, pattern, suffix, longest, result): checked against bash 5.
        let cases = [
            ("/etc/", "/", true, false, "/etc"),
            ("a.tar.gz", ".*", true, false, "a.tar"),
            ("a.tar.gz", ".*", true, true, "a"),
            ("a/b/c", "*/", false, false, "b/c"),
            ("a/b/c", "*/", false, true, "c"),
            ("/usr/local/lib", "/lib", true, false, "/usr/local"),
            ("abc", "x", true, false, "abc"),
            ("abc", "[ab]", false, false, "bc"),
            ("abc", "[!a]*", false, false, "abc"),
            ("a*b", "\\*b", true, false, "a"),
        ];
        for (text, pat, suffix, longest, want) in cases {
            let got = trim_text(text, pat, suffix, longest).unwrap_or_else(|| text.to_string());
            assert_eq!(got, want, "{text} {pat} suffix={suffix} longest={longest}");
        }
    }

    #[test]
    fn trims_a_named_folder_only_where_the_result_is_known() {
        let home = Sym::piece(Piece::Home);
        // `${HOME%/}`, `${HOME%%/}`, `${HOME#}`: home.
        assert_eq!(trim(&home, "/", true, false), Some(home.clone()));
        assert_eq!(trim(&home, "/", true, true), Some(home.clone()));
        assert_eq!(trim(&home, "", false, false), Some(home.clone()));
        // `${HOME%/*}`: the folder above; `${HOME%%/*}`: nothing.
        let mut up = home.clone();
        up.push(Piece::Text("/..".into()));
        assert_eq!(trim(&home, "/*", true, false), Some(up));
        assert_eq!(trim(&home, "/*", true, true), Some(Sym::default()));
        // Within the text after it: `${X%/}` of `$HOME/a/`.
        let mut a = home.clone();
        a.push(Piece::Text("/a/".into()));
        let mut a_trimmed = home.clone();
        a_trimmed.push(Piece::Text("/a".into()));
        assert_eq!(trim(&a, "/", true, false), Some(a_trimmed));
        // A prefix of home, or a suffix reaching into it: not known.
        assert_eq!(trim(&home, "/", false, false), None);
        assert_eq!(trim(&home, "?", true, false), None);
        assert_eq!(trim(&Sym::unknown("$X"), "/", true, false), None);
    }
}
