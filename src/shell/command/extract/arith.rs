//! Arithmetic contexts, where bash evaluates text as code.
//!
//! bash evaluates an indexed array's subscript as an arithmetic expression,
//! expanding it first, wherever arithmetic happens: `let`, `(( ))`, `$(( ))`,
//! `$[ ]`, `for (( ))`, the operands of `[[ … -eq … ]]`, what is assigned to a
//! `declare -i` variable, an array element's subscript, and every variable name
//! a builtin takes (`read`, `unset`, `printf -v`, `declare`, `local`, `wait -p`,
//! `[[ -v ]]`, `test -v`). So `let 'a[$(cmd)]=1'` runs `cmd` although it is
//! quoted, and `(( x ))` runs it when `x` holds `a[$(cmd)]`: a variable named in
//! arithmetic is evaluated as arithmetic in turn. (Checked against bash 5.2;
//! `export`, `mapfile`, `getopts`, `[ -eq ]` and `printf %d` refuse such names.)
//!
//! What is read: the subscripts of text that reaches arithmetic, and the values
//! of the variables it names, when the command set them; their substitutions
//! are reported as commands, with `arithmetic` in their `via`. A value nobody
//! knows (`read n; (( n ))`) is data here, not code: asking about every `(( n >
//! 0 ))` on an unknown `n` would ask about most scripts, and the text that could
//! hide a command is the environment's or a file's, not the command's.
//!
//! The same holds for the other place where bash expands a variable's value
//! again: `${x@P}` expands it as a prompt string, running its substitutions.

use super::{Cx, Extractor, Field, OffMap};
use crate::shell::command::syntax::{quoted_subs, CommandKind, RedirKind, Sub, Word};
use crate::shell::command::{ParseError, RedirectOp};

/// Programs whose output is (part of) the text of the files they are given:
/// what they print reaches arithmetic as the file's text.
const FILE_PRINTERS: &[&str] = &[
    "cat", "tac", "head", "tail", "cut", "sed", "awk", "gawk", "mawk", "tr", "sort", "uniq",
    "grep", "egrep", "fgrep", "rg", "jq", "yq", "base64", "xxd", "strings", "rev", "nl", "paste",
    "fold", "column", "less", "more", "envsubst",
];

/// Does what substitution `s` prints include a file's text (`$(cat f)`,
/// `$(< f)`, `` `head -1 f` ``)? A file the kernel writes (`/proc`,
/// `/sys`) holds numbers, not code; a count (`grep -c`, `wc`) is a number.
fn prints_file_text(s: &Sub) -> bool {
    let kernel = |t: &str| {
        ["/proc/", "/sys/", "/dev/"]
            .iter()
            .any(|d| t.starts_with(d))
    };
    s.body.items.iter().any(|and_or| {
        std::iter::once(&and_or.first)
            .chain(and_or.rest.iter().map(|(_, p)| p))
            .filter_map(|p| p.cmds.last())
            .any(|c| {
                let CommandKind::Simple { words, .. } = &c.kind else {
                    return false;
                };
                let reads = |redirs: &[crate::shell::command::syntax::RawRedir]| {
                    redirs.iter().any(|r| {
                        r.kind == RedirKind::File(RedirectOp::Read) && !kernel(&r.target.text)
                    })
                };
                match words.split_first() {
                    // `$(< f)`: the file's text.
                    None => reads(&c.redirs),
                    Some((prog, args)) => {
                        let name = prog.text.rsplit('/').next().unwrap_or_default();
                        if !FILE_PRINTERS.contains(&name)
                            || args
                                .iter()
                                .any(|a| matches!(a.text.as_str(), "-c" | "--count"))
                        {
                            return false;
                        }
                        let files: Vec<&Word> =
                            args.iter().filter(|a| !a.text.starts_with('-')).collect();
                        reads(&c.redirs) || files.iter().any(|a| !kernel(&a.text))
                    }
                }
            })
    })
}

/// How deep variables naming variables are followed (bash allows 1024).
const MAX_ARITH_DEPTH: usize = 8;

/// The contents of the outermost `[…]` of `text`.
fn subscripts(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '[' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    if let Some(s) = text.get(start..i) {
                        out.push(s);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The names `text` refers to (`x`, `$x`, `${x}`), outside subscripts too.
fn names(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let starts = (c.is_ascii_alphabetic() || c == b'_')
            && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
        if starts {
            let s = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            if let Some(n) = text.get(s..i) {
                out.push(n);
            }
            continue;
        }
        i += 1;
    }
    out
}

impl Extractor {
    /// Arithmetic whose text holds a substitution that prints a file's text
    /// (`$(( $(cat f) ))`, `let "x=$(<f)"`, `declare -i n=$(cat f)`,
    /// `read -a 'a[$(cat f)]'`): bash evaluates that text as arithmetic,
    /// and arithmetic runs the substitutions of the subscripts in it
    /// (`a[$(cmd)]`), so the file's text is code nobody has read. It is
    /// reported as an `eval` of unknown text (via `arithmetic`), which the
    /// pack asks about. `raw`: the text as written; `subs`: its
    /// substitutions, when already parsed.
    pub(super) fn arith_file_text(
        &mut self,
        raw: &str,
        subs: Option<&[Sub]>,
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        let found = match subs {
            Some(subs) => subs.iter().any(prints_file_text),
            None if raw.contains("$(") || raw.contains('`') => {
                if raw.len() > self.budget {
                    return Ok(());
                }
                match quoted_subs(raw, 1) {
                    Ok((subs, _)) => subs.iter().any(prints_file_text),
                    Err(_) => false,
                }
            }
            None => false,
        };
        if !found {
            return Ok(());
        }
        let mut via = cx.via.clone();
        via.push("arithmetic (a file's text)".into());
        self.nested(
            "eval \"$ARITHMETIC\"",
            1,
            &via,
            OffMap::At(off, "arithmetic".into()),
            Some(None),
        )?;
        Ok(())
    }

    /// Arithmetic as written in the command (`(( … ))`, `$(( … ))`): its own
    /// substitutions were found when it was parsed; the variables it names
    /// are evaluated in turn.
    pub(super) fn arith_source(
        &mut self,
        text: &str,
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        self.arith_names(text, cx, 0, off)
    }

    /// Text that reaches arithmetic after the shell expanded it (`let`'s
    /// arguments, a `declare -i` value): its subscripts are expanded again,
    /// and the variables it names evaluated.
    pub(super) fn arith_value(
        &mut self,
        text: &str,
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        self.arith_text(text, cx, 0, off)
    }

    /// A variable name a builtin takes: its subscript is arithmetic.
    pub(super) fn arith_name(&mut self, name: &str, cx: &Cx, off: usize) -> Result<(), ParseError> {
        match name.split_once('[') {
            Some((_, rest)) if rest.ends_with(']') => {
                let inner = &rest[..rest.len() - 1];
                self.subscript(inner, cx, 0, off)
            }
            _ => Ok(()),
        }
    }

    fn arith_text(
        &mut self,
        text: &str,
        cx: &Cx,
        depth: usize,
        off: usize,
    ) -> Result<(), ParseError> {
        if depth > MAX_ARITH_DEPTH {
            return Ok(());
        }
        for sub in subscripts(text) {
            self.subscript(sub, cx, depth, off)?;
        }
        self.arith_names(text, cx, depth, off)
    }

    /// A subscript: expanded (its substitutions run), then evaluated.
    fn subscript(
        &mut self,
        sub: &str,
        cx: &Cx,
        depth: usize,
        off: usize,
    ) -> Result<(), ParseError> {
        if depth > MAX_ARITH_DEPTH || sub.len() > self.budget {
            return Ok(());
        }
        if sub.contains(['$', '`']) {
            self.budget -= sub.len();
            let (subs, table) = quoted_subs(sub, 1)?;
            self.arith_file_text(sub, Some(&subs), cx, off)?;
            let mut via = cx.via.clone();
            via.push("arithmetic".into());
            let acx = Cx { table: &table, via };
            let mark = self.out.len();
            for s in &subs {
                self.sub(s, &acx)?;
            }
            for c in self.out.get_mut(mark..).unwrap_or_default() {
                c.offset = off;
            }
        }
        self.arith_text(sub, cx, depth + 1, off)
    }

    /// `${X@P}`: X's value is expanded as a prompt string, so the
    /// substitutions in it run (`x='$(cmd)'; echo "${x@P}"`). An unknown
    /// value is data, as in arithmetic.
    pub(super) fn prompt_source(
        &mut self,
        name: &str,
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        let value = self
            .state
            .vars
            .get(name)
            .and_then(|b| b.var.scalar().literal());
        let Some(v) = value.filter(|v| v.contains(['$', '`'])) else {
            return Ok(());
        };
        if v.len() > self.budget {
            return Ok(());
        }
        self.budget -= v.len();
        let (subs, table) = quoted_subs(&v, 1)?;
        let mut via = cx.via.clone();
        via.push(format!("${{{name}@P}}"));
        let pcx = Cx { table: &table, via };
        let mark = self.out.len();
        for s in &subs {
            self.sub(s, &pcx)?;
        }
        for c in self.out.get_mut(mark..).unwrap_or_default() {
            c.offset = off;
        }
        Ok(())
    }

    fn arith_names(
        &mut self,
        text: &str,
        cx: &Cx,
        depth: usize,
        off: usize,
    ) -> Result<(), ParseError> {
        if depth >= MAX_ARITH_DEPTH {
            return Ok(());
        }
        for name in names(text) {
            let value = self
                .state
                .vars
                .get(name)
                .and_then(|b| b.var.scalar().literal());
            if let Some(v) = value.filter(|v| v.contains('[') && v != text) {
                self.arith_text(&v, cx, depth + 1, off)?;
            }
        }
        Ok(())
    }

    /// The arithmetic a builtin does with its arguments (`let`, names given
    /// to `read`, `unset`, `printf -v`, `declare`, `wait -p`, `test -v`).
    pub(super) fn builtin_arith(
        &mut self,
        prog: &str,
        args: &[Field],
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        let literal = |f: &Field| f.value.literal();
        match prog {
            "let" => {
                for a in args {
                    match literal(a) {
                        Some(t) => self.arith_value(&t, cx, off)?,
                        None => self.arith_file_text(&a.text, None, cx, off)?,
                    }
                }
            }
            "read" | "unset" => {
                let mut i = 0;
                while let Some(a) = args.get(i) {
                    let t = literal(a).unwrap_or_default();
                    if prog == "read" && t.starts_with('-') {
                        // Options with a value: `-a NAME` (a name too), `-p …`, ….
                        if t == "-a" {
                            if let Some(n) = args.get(i + 1).and_then(literal) {
                                self.arith_name(&n, cx, off)?;
                            }
                        }
                        let valued = ["-a", "-p", "-d", "-n", "-N", "-t", "-u", "-i"];
                        i += if valued.contains(&t.as_str()) { 2 } else { 1 };
                        continue;
                    }
                    if !t.starts_with('-') {
                        self.arith_name(&t, cx, off)?;
                    }
                    i += 1;
                }
            }
            "printf" if args.first().and_then(literal).as_deref() == Some("-v") => {
                if let Some(n) = args.get(1).and_then(literal) {
                    self.arith_name(&n, cx, off)?;
                }
            }
            "wait" | "test" | "[" => {
                let flag = if prog == "wait" { "-p" } else { "-v" };
                for (i, a) in args.iter().enumerate() {
                    if literal(a).as_deref() == Some(flag) {
                        if let Some(n) = args.get(i + 1).and_then(literal) {
                            self.arith_name(&n, cx, off)?;
                        }
                    }
                }
            }
            "declare" | "typeset" | "local" | "readonly" | "export" => {
                let opts: String = args
                    .iter()
                    .filter_map(literal)
                    .filter(|t| t.starts_with('-'))
                    .collect();
                for a in args {
                    if opts.contains('i') && literal(a).is_none() {
                        self.arith_file_text(&a.text, None, cx, off)?;
                    }
                    let Some(t) = literal(a).filter(|t| !t.starts_with('-')) else {
                        continue;
                    };
                    let (name, value) = match t.split_once('=') {
                        Some((n, v)) => (n.trim_end_matches('+').to_string(), Some(v.to_string())),
                        None => (t.clone(), None),
                    };
                    self.arith_name(&name, cx, off)?;
                    if let Some(v) = value {
                        if opts.contains('i') {
                            self.arith_value(&v, cx, off)?;
                        }
                        // A reference names a variable: `declare -n r='a[…]'`.
                        if opts.contains('n') {
                            self.arith_name(&v, cx, off)?;
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Assignments (`a[SUB]=v`, `n=v` for a `declare -i n`): an element's
    /// subscript is arithmetic, and so is what an integer variable is given.
    /// `values`: what the shell made of each value, when known.
    pub(super) fn assignment_arith(
        &mut self,
        assigns: &[(String, String)],
        values: &[Option<crate::shell::value::Value>],
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        for (k, (name, raw)) in assigns.iter().enumerate() {
            self.arith_name(name, cx, off)?;
            let base = name.split('[').next().unwrap_or(name);
            if self.state.integers.contains(base) {
                match values.get(k).cloned().flatten().and_then(|v| v.literal()) {
                    Some(t) => self.arith_value(&t, cx, off)?,
                    None => self.arith_file_text(raw, None, cx, off)?,
                }
            }
        }
        Ok(())
    }

    /// `[[ … ]]`: the operands of its arithmetic comparisons, and the names
    /// `-v` takes. `fields`: what each word expanded to.
    pub(super) fn test_arith(
        &mut self,
        words: &[Word],
        fields: &[Option<String>],
        cx: &Cx,
        off: usize,
    ) -> Result<(), ParseError> {
        const OPS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];
        for (i, w) in words.iter().enumerate() {
            if !w.plain {
                continue;
            }
            if OPS.contains(&w.text.as_str()) {
                for k in [i.wrapping_sub(1), i + 1] {
                    match fields.get(k) {
                        Some(Some(t)) => {
                            let t = t.clone();
                            self.arith_value(&t, cx, off)?;
                        }
                        Some(None) => {
                            if let Some(word) = words.get(k) {
                                self.arith_file_text(&word.text, Some(&word.subs), cx, off)?;
                            }
                        }
                        None => {}
                    }
                }
            } else if w.text == "-v" {
                if let Some(Some(t)) = fields.get(i + 1) {
                    let t = t.clone();
                    self.arith_name(&t, cx, off)?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscripts_and_names() {
        assert_eq!(subscripts("a[$(id)]=1 + b[c[2]]"), vec!["$(id)", "c[2]"]);
        assert_eq!(names("x + $y * ${z} - 2"), vec!["x", "y", "z"]);
    }
}
