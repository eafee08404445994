//! Lexer and recursive-descent parser for the part of the bash grammar needed
//! to locate commands.
//!
//! The output is deliberately flat: compound commands are dissolved into the
//! simple commands they contain ([`RawCmd`]), in source order. Scripts nested
//! inside words (`$( )`, backquotes, `<( )`) hang off the [`Word`] that holds
//! them. Interpreting what a command *does* (wrappers, `bash -c`, …) is left
//! to `extract`.

use super::{perr, ParseError, RedirectOp};
use std::mem;

/// Maximum nesting of subshells, groups, compound commands, substitutions,
/// parameter expansions and re-parsed strings (`bash -c`, `eval`, …).
pub const MAX_DEPTH: usize = 16;

/// A shell word: its text with quotes removed, plus the scripts it embeds.
#[derive(Debug, Clone)]
pub(crate) struct Word {
    /// Quote-removed text; expansions are kept verbatim.
    pub text: String,
    /// Byte offset of the word in the source.
    pub offset: usize,
    /// No quoting, escaping or line continuation: may be a reserved word.
    pub plain: bool,
    /// `NAME=value` split, when the word has assignment form.
    pub assign: Option<(String, String)>,
    /// Command/process substitutions found in the word.
    pub subs: Vec<Sub>,
}

impl Word {
    fn synthetic(offset: usize, subs: Vec<Sub>) -> Word {
        Word {
            text: String::new(),
            offset,
            plain: false,
            assign: None,
            subs,
        }
    }
}

/// Kind of embedded script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SubKind {
    Dollar,
    Backtick,
    ProcIn,
    ProcOut,
}

impl SubKind {
    pub fn label(self) -> &'static str {
        match self {
            SubKind::Dollar => "$()",
            SubKind::Backtick => "``",
            SubKind::ProcIn => "<()",
            SubKind::ProcOut => ">()",
        }
    }
}

/// A script embedded in a word.
#[derive(Debug, Clone)]
pub(crate) struct Sub {
    pub kind: SubKind,
    pub items: Vec<RawCmd>,
    /// Own here-document table (backquotes are parsed as a separate text);
    /// `None` means the enclosing table.
    pub heredocs: Option<Vec<Heredoc>>,
}

/// What a redirection does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirKind {
    File(RedirectOp),
    /// `n>&m`, `n<&m`, `n>&-`.
    Dup,
    /// Index into the here-document table.
    Heredoc(usize),
    HereString,
}

#[derive(Debug, Clone)]
pub(crate) struct RawRedir {
    pub kind: RedirKind,
    pub fd: Option<u32>,
    pub target: Word,
}

/// A here-document body.
#[derive(Debug, Clone, Default)]
pub(crate) struct Heredoc {
    pub body: String,
    /// Byte offset of the body in the source.
    pub offset: usize,
    /// Substitutions in an unquoted-delimiter body (the outer shell runs them).
    pub subs: Vec<Sub>,
}

/// A simple command, or (`simple == false`) a holder for words of compound
/// syntax (`for` lists, `case` words, `[[ ]]`) whose substitutions still run.
#[derive(Debug, Clone, Default)]
pub(crate) struct RawCmd {
    pub simple: bool,
    pub assigns: Vec<Word>,
    pub words: Vec<Word>,
    pub redirs: Vec<RawRedir>,
    pub offset: usize,
    /// Parser nesting depth at which the command was found.
    pub depth: usize,
    /// Index (same list) of the simple command piped into this one.
    pub pipe_from: Option<usize>,
    /// Enclosing function definitions, as `name()`.
    pub via: Vec<String>,
}

/// Result of parsing one text.
pub(crate) struct Script {
    pub items: Vec<RawCmd>,
    pub heredocs: Vec<Heredoc>,
}

/// Parse `src` (already at nesting `depth`) into raw commands.
pub(crate) fn parse_script(src: &str, depth: usize) -> Result<Script, ParseError> {
    if depth > MAX_DEPTH {
        return Err(too_deep(0));
    }
    let mut p = Parser {
        src: src.as_bytes(),
        pos: 0,
        end: src.len(),
        depth,
        peeked: None,
        heredocs: Vec::new(),
        pending: Vec::new(),
        func_via: Vec::new(),
    };
    let mut items = Vec::new();
    p.parse_list(&mut items)?;
    match p.next()? {
        Tok::Eof(_) => Ok(Script {
            items,
            heredocs: p.heredocs,
        }),
        t => Err(perr(format!("unexpected {}", t.describe()), t.offset())),
    }
}

fn too_deep(at: usize) -> ParseError {
    perr(format!("nesting deeper than {MAX_DEPTH} levels"), at)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Semi,
    Amp,
    AndIf,
    OrIf,
    Pipe,
    PipeAmp,
    LParen,
    RParen,
    DSemi,
    SemiAmp,
    DSemiAmp,
}

impl Op {
    fn symbol(self) -> &'static str {
        match self {
            Op::Semi => ";",
            Op::Amp => "&",
            Op::AndIf => "&&",
            Op::OrIf => "||",
            Op::Pipe => "|",
            Op::PipeAmp => "|&",
            Op::LParen => "(",
            Op::RParen => ")",
            Op::DSemi => ";;",
            Op::SemiAmp => ";&",
            Op::DSemiAmp => ";;&",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ROp {
    Less,
    Great,
    DGreat,
    Clobber,
    LessGreat,
    DLess,
    DLessDash,
    TLess,
    LessAnd,
    GreatAnd,
    AndGreat,
    AndDGreat,
}

#[derive(Debug)]
enum Tok {
    Word(Word),
    Op(Op, usize),
    Redir(ROp, Option<u32>, usize),
    Newline(usize),
    Eof(usize),
}

impl Tok {
    fn offset(&self) -> usize {
        match self {
            Tok::Word(w) => w.offset,
            Tok::Op(_, o) | Tok::Redir(_, _, o) | Tok::Newline(o) | Tok::Eof(o) => *o,
        }
    }

    fn describe(&self) -> String {
        match self {
            Tok::Word(w) => {
                let t: String = w.text.chars().take(30).collect();
                format!("word `{t}`")
            }
            Tok::Op(op, _) => format!("`{}`", op.symbol()),
            Tok::Redir(..) => "redirection".to_string(),
            Tok::Newline(_) => "newline".to_string(),
            Tok::Eof(_) => "end of input".to_string(),
        }
    }
}

/// Words that are reserved when plain and in command position.
const RESERVED: &[&str] = &[
    "{", "}", "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "select",
    "in", "case", "esac", "function", "[[", "!", "time",
];

/// Reserved words that end a command list.
const CLOSERS: &[&str] = &["}", "then", "elif", "else", "fi", "do", "done", "esac"];

struct Pending {
    id: usize,
    delim: Vec<u8>,
    strip_tabs: bool,
    expand: bool,
    at: usize,
}

struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
    /// Exclusive limit of the region being parsed (a here-doc body or
    /// arithmetic region while scanning for substitutions).
    end: usize,
    depth: usize,
    peeked: Option<Tok>,
    heredocs: Vec<Heredoc>,
    pending: Vec<Pending>,
    func_via: Vec<String>,
}

fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Index of `=` when `raw` starts with `NAME=`, `NAME+=` or `NAME[…]=`.
fn assign_eq(raw: &[u8]) -> Option<usize> {
    let first = *raw.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let mut i = 1;
    while raw
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
    {
        i += 1;
    }
    if raw.get(i) == Some(&b'[') {
        i += raw.get(i..)?.iter().position(|&c| c == b']')? + 1;
    }
    if raw.get(i) == Some(&b'+') {
        i += 1;
    }
    (raw.get(i) == Some(&b'=')).then_some(i)
}

impl Parser<'_> {
    // ----- small helpers -------------------------------------------------

    fn byte(&self, i: usize) -> Option<u8> {
        if i < self.end {
            self.src.get(i).copied()
        } else {
            None
        }
    }

    fn enter(&mut self, at: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(too_deep(at))
        } else {
            Ok(())
        }
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    fn next(&mut self) -> Result<Tok, ParseError> {
        match self.peeked.take() {
            Some(t) => Ok(t),
            None => self.lex(),
        }
    }

    fn peek(&mut self) -> Result<&Tok, ParseError> {
        if self.peeked.is_none() {
            let t = self.lex()?;
            self.peeked = Some(t);
        }
        match &self.peeked {
            Some(t) => Ok(t),
            None => Err(perr("internal parser error", self.pos)),
        }
    }

    fn peek_kw(&mut self) -> Result<Option<&'static str>, ParseError> {
        Ok(match self.peek()? {
            Tok::Word(w) if w.plain => RESERVED.iter().copied().find(|k| *k == w.text),
            _ => None,
        })
    }

    fn peek_op(&mut self) -> Result<Option<Op>, ParseError> {
        Ok(match self.peek()? {
            Tok::Op(o, _) => Some(*o),
            _ => None,
        })
    }

    fn peek_text_is(&mut self, s: &str) -> Result<bool, ParseError> {
        Ok(matches!(self.peek()?, Tok::Word(w) if w.plain && w.text == s))
    }

    fn skip_newlines(&mut self) -> Result<(), ParseError> {
        while matches!(self.peek()?, Tok::Newline(_)) {
            self.next()?;
        }
        Ok(())
    }

    fn expect_kw(&mut self, kw: &str, construct: &str, at: usize) -> Result<(), ParseError> {
        match self.next()? {
            Tok::Word(w) if w.plain && w.text == kw => Ok(()),
            Tok::Eof(_) => Err(perr(
                format!("unterminated `{construct}`: missing `{kw}`"),
                at,
            )),
            t => Err(perr(
                format!("expected `{kw}` in `{construct}`, found {}", t.describe()),
                t.offset(),
            )),
        }
    }

    fn expect_op(&mut self, op: Op, construct: &str, at: usize) -> Result<(), ParseError> {
        match self.next()? {
            Tok::Op(o, _) if o == op => Ok(()),
            Tok::Eof(_) => Err(perr(
                format!("unterminated `{construct}`: missing `{}`", op.symbol()),
                at,
            )),
            t => Err(perr(
                format!(
                    "expected `{}` to close `{construct}`, found {}",
                    op.symbol(),
                    t.describe()
                ),
                t.offset(),
            )),
        }
    }

    fn other(&self, at: usize, words: Vec<Word>) -> RawCmd {
        RawCmd {
            simple: false,
            words,
            offset: at,
            depth: self.depth,
            via: self.func_via.clone(),
            ..RawCmd::default()
        }
    }

    // ----- grammar ---------------------------------------------------------

    /// `list := and_or ((';' | '&' | newline) and_or)*`; stops before `)`,
    /// `;;`, a closing reserved word or end of input. Returns how many
    /// and-or lists were parsed.
    fn parse_list(&mut self, out: &mut Vec<RawCmd>) -> Result<usize, ParseError> {
        let mut n = 0;
        loop {
            self.skip_newlines()?;
            if self.at_list_end()? {
                return Ok(n);
            }
            self.parse_and_or(out)?;
            n += 1;
            match self.peek()? {
                Tok::Op(Op::Semi | Op::Amp, _) | Tok::Newline(_) => {
                    self.next()?;
                }
                _ => return Ok(n),
            }
        }
    }

    fn at_list_end(&mut self) -> Result<bool, ParseError> {
        Ok(match self.peek()? {
            Tok::Eof(_) => true,
            Tok::Op(Op::RParen | Op::DSemi | Op::SemiAmp | Op::DSemiAmp, _) => true,
            Tok::Word(w) => w.plain && CLOSERS.contains(&w.text.as_str()),
            _ => false,
        })
    }

    /// A non-empty list (bash rejects empty bodies).
    fn body(&mut self, out: &mut Vec<RawCmd>, construct: &str) -> Result<(), ParseError> {
        if self.parse_list(out)? == 0 {
            let t = self.peek()?;
            return Err(perr(
                format!(
                    "expected a command in `{construct}`, found {}",
                    t.describe()
                ),
                t.offset(),
            ));
        }
        Ok(())
    }

    fn parse_and_or(&mut self, out: &mut Vec<RawCmd>) -> Result<(), ParseError> {
        self.parse_pipeline(out)?;
        while let Some(op @ (Op::AndIf | Op::OrIf)) = self.peek_op()? {
            let t = self.next()?;
            self.skip_newlines()?;
            if self.at_list_end()? {
                return Err(perr(
                    format!("expected a command after `{}`", op.symbol()),
                    t.offset(),
                ));
            }
            self.parse_pipeline(out)?;
        }
        Ok(())
    }

    fn parse_pipeline(&mut self, out: &mut Vec<RawCmd>) -> Result<(), ParseError> {
        let mut prefixed = false;
        loop {
            match self.peek_kw()? {
                Some("!") => {}
                Some("time") => {
                    self.next()?;
                    if self.peek_text_is("-p")? {
                        self.next()?;
                    }
                    prefixed = true;
                    continue;
                }
                _ => break,
            }
            self.next()?;
            prefixed = true;
        }
        if prefixed
            && (self.at_list_end()?
                || matches!(
                    self.peek()?,
                    Tok::Newline(_) | Tok::Op(Op::Semi | Op::Amp | Op::AndIf | Op::OrIf, _)
                ))
        {
            return Ok(());
        }
        let mut prev = self.parse_command(out)?;
        while let Some(Op::Pipe | Op::PipeAmp) = self.peek_op()? {
            self.next()?;
            self.skip_newlines()?;
            let cur = self.parse_command(out)?;
            if let (Some(p), Some(c)) = (prev, cur) {
                if let Some(cmd) = out.get_mut(c) {
                    cmd.pipe_from = Some(p);
                }
            }
            prev = cur;
        }
        Ok(())
    }

    /// Parse one command; returns the index in `out` of the simple command
    /// it produced, if it was a simple command.
    fn parse_command(&mut self, out: &mut Vec<RawCmd>) -> Result<Option<usize>, ParseError> {
        let at = self.peek()?.offset();
        if self.peek_op()? == Some(Op::LParen) {
            self.next()?;
            if self.byte(self.pos) == Some(b'(') {
                if let Some(close) = self.arith_end(self.pos + 1) {
                    let subs = self.scan_region(self.pos + 1, close, at)?;
                    self.pos = close + 2;
                    out.push(self.other(at, vec![Word::synthetic(at, subs)]));
                    self.compound_redirs(out, at)?;
                    return Ok(None);
                }
            }
            self.enter(at)?;
            if self.parse_list(out)? == 0 {
                return Err(perr("empty subshell `( )`", at));
            }
            self.expect_op(Op::RParen, "(", at)?;
            self.leave();
            self.compound_redirs(out, at)?;
            return Ok(None);
        }
        match self.peek_kw()? {
            Some("{") => {
                self.next()?;
                self.enter(at)?;
                self.body(out, "{")?;
                self.expect_kw("}", "{", at)?;
                self.leave();
            }
            Some("if") => {
                self.next()?;
                self.enter(at)?;
                self.body(out, "if")?;
                self.expect_kw("then", "if", at)?;
                self.body(out, "if")?;
                loop {
                    match self.peek_kw()? {
                        Some("elif") => {
                            self.next()?;
                            self.body(out, "elif")?;
                            self.expect_kw("then", "elif", at)?;
                            self.body(out, "elif")?;
                        }
                        Some("else") => {
                            self.next()?;
                            self.body(out, "else")?;
                            self.expect_kw("fi", "if", at)?;
                            break;
                        }
                        _ => {
                            self.expect_kw("fi", "if", at)?;
                            break;
                        }
                    }
                }
                self.leave();
            }
            Some(kw @ ("while" | "until")) => {
                self.next()?;
                self.enter(at)?;
                self.body(out, kw)?;
                self.expect_kw("do", kw, at)?;
                self.body(out, kw)?;
                self.expect_kw("done", kw, at)?;
                self.leave();
            }
            Some(kw @ ("for" | "select")) => {
                self.next()?;
                self.enter(at)?;
                self.parse_for_head(out, kw, at)?;
                self.skip_newlines()?;
                self.expect_kw("do", kw, at)?;
                self.body(out, kw)?;
                self.expect_kw("done", kw, at)?;
                self.leave();
            }
            Some("case") => {
                self.next()?;
                self.enter(at)?;
                self.parse_case(out, at)?;
                self.leave();
            }
            Some("function") => {
                self.next()?;
                let name = match self.next()? {
                    Tok::Word(w) => w.text,
                    t => {
                        return Err(perr(
                            format!("expected a function name, found {}", t.describe()),
                            t.offset(),
                        ))
                    }
                };
                if self.peek_op()? == Some(Op::LParen) {
                    self.next()?;
                    self.expect_op(Op::RParen, "function", at)?;
                }
                self.skip_newlines()?;
                self.func_body(out, &name)?;
                return Ok(None);
            }
            Some("[[") => {
                self.next()?;
                let mut words = Vec::new();
                loop {
                    match self.next()? {
                        Tok::Word(w) if w.plain && w.text == "]]" => break,
                        Tok::Word(w) => words.push(w),
                        Tok::Eof(_) => return Err(perr("unterminated `[[`: missing `]]`", at)),
                        _ => {}
                    }
                }
                out.push(self.other(at, words));
            }
            Some(kw) if CLOSERS.contains(&kw) => {
                let t = self.next()?;
                return Err(perr(format!("unexpected {}", t.describe()), t.offset()));
            }
            _ => return self.parse_simple(out),
        }
        self.compound_redirs(out, at)?;
        Ok(None)
    }

    /// After `for NAME` / `select NAME` / `for ((…))`, up to (not incl.) `do`.
    fn parse_for_head(
        &mut self,
        out: &mut Vec<RawCmd>,
        kw: &str,
        at: usize,
    ) -> Result<(), ParseError> {
        if self.peek_op()? == Some(Op::LParen) && self.byte(self.pos) == Some(b'(') {
            self.next()?;
            let close = self
                .arith_end(self.pos + 1)
                .ok_or_else(|| perr(format!("unterminated `{kw} ((`"), at))?;
            let subs = self.scan_region(self.pos + 1, close, at)?;
            self.pos = close + 2;
            out.push(self.other(at, vec![Word::synthetic(at, subs)]));
            self.skip_newlines()?;
            if self.peek_op()? == Some(Op::Semi) {
                self.next()?;
            }
            return Ok(());
        }
        match self.next()? {
            Tok::Word(_) => {}
            t => {
                return Err(perr(
                    format!(
                        "expected a variable name after `{kw}`, found {}",
                        t.describe()
                    ),
                    t.offset(),
                ))
            }
        }
        self.skip_newlines()?;
        let mut words = Vec::new();
        if self.peek_kw()? == Some("in") {
            self.next()?;
            loop {
                match self.next()? {
                    Tok::Word(w) => words.push(w),
                    Tok::Op(Op::Semi, _) | Tok::Newline(_) => break,
                    Tok::Eof(_) => {
                        return Err(perr(format!("unterminated `{kw}`: missing `do`"), at))
                    }
                    t => {
                        return Err(perr(
                            format!("unexpected {} in `{kw}` word list", t.describe()),
                            t.offset(),
                        ))
                    }
                }
            }
        } else if self.peek_op()? == Some(Op::Semi) {
            self.next()?;
        }
        out.push(self.other(at, words));
        Ok(())
    }

    /// After `case`: `WORD in [(]pat[|pat]…) list ;; … esac`.
    fn parse_case(&mut self, out: &mut Vec<RawCmd>, at: usize) -> Result<(), ParseError> {
        let subject = match self.next()? {
            Tok::Word(w) => w,
            t => {
                return Err(perr(
                    format!("expected a word after `case`, found {}", t.describe()),
                    t.offset(),
                ))
            }
        };
        out.push(self.other(at, vec![subject]));
        self.skip_newlines()?;
        self.expect_kw("in", "case", at)?;
        loop {
            self.skip_newlines()?;
            if self.peek_kw()? == Some("esac") {
                self.next()?;
                return Ok(());
            }
            if matches!(self.peek()?, Tok::Eof(_)) {
                return Err(perr("unterminated `case`: missing `esac`", at));
            }
            if self.peek_op()? == Some(Op::LParen) {
                self.next()?;
            }
            let mut patterns = Vec::new();
            loop {
                match self.next()? {
                    Tok::Word(w) => patterns.push(w),
                    t => {
                        return Err(perr(
                            format!("expected a `case` pattern, found {}", t.describe()),
                            t.offset(),
                        ))
                    }
                }
                match self.next()? {
                    Tok::Op(Op::Pipe, _) => {}
                    Tok::Op(Op::RParen, _) => break,
                    t => {
                        return Err(perr(
                            format!("expected `)` after `case` pattern, found {}", t.describe()),
                            t.offset(),
                        ))
                    }
                }
            }
            out.push(self.other(at, patterns));
            self.parse_list(out)?;
            match self.peek_op()? {
                Some(Op::DSemi | Op::SemiAmp | Op::DSemiAmp) => {
                    self.next()?;
                }
                _ if self.peek_kw()? == Some("esac") => {}
                _ => {
                    let t = self.next()?;
                    if let Tok::Eof(_) = t {
                        return Err(perr("unterminated `case`: missing `esac`", at));
                    }
                    return Err(perr(
                        format!("expected `;;` or `esac`, found {}", t.describe()),
                        t.offset(),
                    ));
                }
            }
        }
    }

    fn func_body(&mut self, out: &mut Vec<RawCmd>, name: &str) -> Result<(), ParseError> {
        let ok = self.peek_op()? == Some(Op::LParen)
            || matches!(
                self.peek_kw()?,
                Some("{" | "if" | "while" | "until" | "for" | "select" | "case" | "[[")
            );
        if !ok {
            let t = self.next()?;
            return Err(perr(
                format!(
                    "expected a function body for `{name}`, found {}",
                    t.describe()
                ),
                t.offset(),
            ));
        }
        // The body is a compound command, which counts its own nesting level.
        self.func_via.push(format!("{name}()"));
        self.parse_command(out)?;
        self.func_via.pop();
        Ok(())
    }

    /// Redirections after a compound command become a word-less command.
    fn compound_redirs(&mut self, out: &mut Vec<RawCmd>, at: usize) -> Result<(), ParseError> {
        let mut redirs = Vec::new();
        while matches!(self.peek()?, Tok::Redir(..)) {
            redirs.push(self.parse_redirect()?);
        }
        if !redirs.is_empty() {
            out.push(RawCmd {
                simple: true,
                redirs,
                offset: at,
                depth: self.depth,
                via: self.func_via.clone(),
                ..RawCmd::default()
            });
        }
        Ok(())
    }

    fn parse_simple(&mut self, out: &mut Vec<RawCmd>) -> Result<Option<usize>, ParseError> {
        let at = self.peek()?.offset();
        let mut cmd = RawCmd {
            simple: true,
            offset: at,
            depth: self.depth,
            via: self.func_via.clone(),
            ..RawCmd::default()
        };
        loop {
            match self.peek()? {
                Tok::Word(_) => {
                    if let Tok::Word(w) = self.next()? {
                        if cmd.words.is_empty() && w.assign.is_some() {
                            cmd.assigns.push(w);
                            continue;
                        }
                        cmd.words.push(w);
                    }
                    if cmd.words.len() == 1
                        && cmd.assigns.is_empty()
                        && cmd.redirs.is_empty()
                        && self.peek_op()? == Some(Op::LParen)
                    {
                        // `name() compound-command`
                        self.next()?;
                        self.expect_op(Op::RParen, "function definition", at)?;
                        self.skip_newlines()?;
                        let name = cmd.words.pop().map(|w| w.text).unwrap_or_default();
                        self.func_body(out, &name)?;
                        return Ok(None);
                    }
                }
                Tok::Redir(..) => {
                    let r = self.parse_redirect()?;
                    cmd.redirs.push(r);
                }
                _ => break,
            }
        }
        if cmd.words.is_empty() && cmd.assigns.is_empty() && cmd.redirs.is_empty() {
            let t = self.next()?;
            return Err(perr(
                format!("expected a command, found {}", t.describe()),
                t.offset(),
            ));
        }
        out.push(cmd);
        Ok(Some(out.len() - 1))
    }

    fn parse_redirect(&mut self) -> Result<RawRedir, ParseError> {
        let (op, fd, at) = match self.next()? {
            Tok::Redir(op, fd, at) => (op, fd, at),
            t => return Err(perr("expected a redirection", t.offset())),
        };
        let target = match self.next()? {
            Tok::Word(w) => w,
            t => {
                return Err(perr(
                    format!("expected a word after redirection, found {}", t.describe()),
                    t.offset(),
                ))
            }
        };
        let kind = match op {
            ROp::Less => RedirKind::File(RedirectOp::Read),
            ROp::Great | ROp::Clobber | ROp::AndGreat => RedirKind::File(RedirectOp::Write),
            ROp::DGreat | ROp::AndDGreat => RedirKind::File(RedirectOp::Append),
            ROp::LessGreat => RedirKind::File(RedirectOp::ReadWrite),
            ROp::TLess => RedirKind::HereString,
            ROp::DLess | ROp::DLessDash => {
                let id = self.heredocs.len();
                self.heredocs.push(Heredoc::default());
                self.pending.push(Pending {
                    id,
                    delim: target.text.as_bytes().to_vec(),
                    strip_tabs: op == ROp::DLessDash,
                    expand: target.plain,
                    at,
                });
                RedirKind::Heredoc(id)
            }
            ROp::LessAnd | ROp::GreatAnd => {
                let t = target.text.as_str();
                let digits = t.trim_end_matches('-');
                if digits.bytes().all(|b| b.is_ascii_digit()) {
                    RedirKind::Dup
                } else if op == ROp::GreatAnd {
                    RedirKind::File(RedirectOp::Write)
                } else {
                    RedirKind::File(RedirectOp::Read)
                }
            }
        };
        Ok(RawRedir { kind, fd, target })
    }

    // ----- lexer -------------------------------------------------------------

    fn skip_blank(&mut self) {
        loop {
            match self.byte(self.pos) {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.byte(self.pos + 1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    let rest = self.src.get(self.pos..self.end).unwrap_or_default();
                    self.pos += rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                }
                _ => break,
            }
        }
    }

    fn op(&mut self, op: Op, len: usize, at: usize) -> Tok {
        self.pos = at + len;
        Tok::Op(op, at)
    }

    fn lex(&mut self) -> Result<Tok, ParseError> {
        self.skip_blank();
        let at = self.pos;
        let Some(c) = self.byte(at) else {
            if let Some(p) = self.pending.first() {
                let d = String::from_utf8_lossy(&p.delim);
                return Err(perr(
                    format!("here-document not terminated: missing delimiter line `{d}`"),
                    p.at,
                ));
            }
            return Ok(Tok::Eof(at));
        };
        let n1 = self.byte(at + 1);
        let n2 = self.byte(at + 2);
        Ok(match c {
            b'\n' => {
                self.pos += 1;
                self.read_heredocs()?;
                Tok::Newline(at)
            }
            b';' => match (n1, n2) {
                (Some(b';'), Some(b'&')) => self.op(Op::DSemiAmp, 3, at),
                (Some(b';'), _) => self.op(Op::DSemi, 2, at),
                (Some(b'&'), _) => self.op(Op::SemiAmp, 2, at),
                _ => self.op(Op::Semi, 1, at),
            },
            b'&' => match (n1, n2) {
                (Some(b'&'), _) => self.op(Op::AndIf, 2, at),
                (Some(b'>'), Some(b'>')) => {
                    self.pos = at + 3;
                    Tok::Redir(ROp::AndDGreat, None, at)
                }
                (Some(b'>'), _) => {
                    self.pos = at + 2;
                    Tok::Redir(ROp::AndGreat, None, at)
                }
                _ => self.op(Op::Amp, 1, at),
            },
            b'|' => match n1 {
                Some(b'|') => self.op(Op::OrIf, 2, at),
                Some(b'&') => self.op(Op::PipeAmp, 2, at),
                _ => self.op(Op::Pipe, 1, at),
            },
            b'(' => self.op(Op::LParen, 1, at),
            b')' => self.op(Op::RParen, 1, at),
            b'<' | b'>' if n1 == Some(b'(') => Tok::Word(self.lex_word()?),
            b'<' | b'>' => self.lex_redir_op(None, at),
            b'0'..=b'9' => {
                let mut j = at;
                while matches!(self.byte(j), Some(b'0'..=b'9')) {
                    j += 1;
                }
                if matches!(self.byte(j), Some(b'<' | b'>')) && self.byte(j + 1) != Some(b'(') {
                    let fd = std::str::from_utf8(self.src.get(at..j).unwrap_or_default())
                        .ok()
                        .and_then(|s| s.parse().ok());
                    self.pos = j;
                    self.lex_redir_op(fd, at)
                } else {
                    Tok::Word(self.lex_word()?)
                }
            }
            _ => Tok::Word(self.lex_word()?),
        })
    }

    /// At `<` or `>`: lex the redirection operator.
    fn lex_redir_op(&mut self, fd: Option<u32>, at: usize) -> Tok {
        let p = self.pos;
        let (op, len) = match (self.byte(p), self.byte(p + 1), self.byte(p + 2)) {
            (Some(b'<'), Some(b'<'), Some(b'<')) => (ROp::TLess, 3),
            (Some(b'<'), Some(b'<'), Some(b'-')) => (ROp::DLessDash, 3),
            (Some(b'<'), Some(b'<'), _) => (ROp::DLess, 2),
            (Some(b'<'), Some(b'>'), _) => (ROp::LessGreat, 2),
            (Some(b'<'), Some(b'&'), _) => (ROp::LessAnd, 2),
            (Some(b'<'), _, _) => (ROp::Less, 1),
            (_, Some(b'>'), _) => (ROp::DGreat, 2),
            (_, Some(b'|'), _) => (ROp::Clobber, 2),
            (_, Some(b'&'), _) => (ROp::GreatAnd, 2),
            _ => (ROp::Great, 1),
        };
        self.pos = p + len;
        Tok::Redir(op, fd, at)
    }

    /// After a newline: consume the bodies of pending here-documents.
    fn read_heredocs(&mut self) -> Result<(), ParseError> {
        for p in mem::take(&mut self.pending) {
            let body_start = self.pos;
            let body_end = loop {
                if self.pos >= self.end {
                    let d = String::from_utf8_lossy(&p.delim);
                    return Err(perr(
                        format!("here-document not terminated: missing delimiter line `{d}`"),
                        p.at,
                    ));
                }
                let ls = self.pos;
                let rest = self.src.get(ls..self.end).unwrap_or_default();
                let le = ls + rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
                let mut line = self.src.get(ls..le).unwrap_or_default();
                if p.strip_tabs {
                    while let [b'\t', tail @ ..] = line {
                        line = tail;
                    }
                }
                self.pos = if le < self.end { le + 1 } else { le };
                if line == p.delim.as_slice() {
                    break ls;
                }
            };
            let after = self.pos;
            let subs = if p.expand {
                self.scan_region(body_start, body_end, p.at)?
            } else {
                Vec::new()
            };
            self.pos = after;
            let body = lossy(
                self.src
                    .get(body_start..body_end)
                    .unwrap_or_default()
                    .to_vec(),
            );
            if let Some(h) = self.heredocs.get_mut(p.id) {
                *h = Heredoc {
                    body,
                    offset: body_start,
                    subs,
                };
            }
        }
        Ok(())
    }

    /// Find the `))` closing an arithmetic expression whose body starts at
    /// `from`, by paren counting. `None` if it does not close that way.
    fn arith_end(&self, from: usize) -> Option<usize> {
        let mut depth = 0usize;
        let mut i = from;
        while let Some(c) = self.byte(i) {
            match c {
                b'(' => depth += 1,
                b')' if depth == 0 => {
                    return (self.byte(i + 1) == Some(b')')).then_some(i);
                }
                b')' => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Collect substitutions in `[from, to)` treating it like the inside of
    /// double quotes (here-doc bodies, arithmetic). Leaves `pos` at `to`.
    fn scan_region(&mut self, from: usize, to: usize, at: usize) -> Result<Vec<Sub>, ParseError> {
        self.enter(at)?;
        let saved_end = self.end;
        let saved_func = mem::take(&mut self.func_via);
        self.end = to.min(saved_end);
        self.pos = from;
        let mut subs = Vec::new();
        let mut scratch = Vec::new();
        while let Some(c) = self.byte(self.pos) {
            match c {
                b'\\' => self.pos += 2,
                b'$' => self.lex_dollar(&mut scratch, &mut subs, true)?,
                b'`' => self.lex_backtick(&mut scratch, &mut subs, false)?,
                _ => self.pos += 1,
            }
            scratch.clear();
        }
        self.end = saved_end;
        self.func_via = saved_func;
        self.pos = to;
        self.leave();
        Ok(subs)
    }

    fn lex_word(&mut self) -> Result<Word, ParseError> {
        let start = self.pos;
        let mut text = Vec::new();
        let mut subs = Vec::new();
        while let Some(c) = self.byte(self.pos) {
            match c {
                b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b')' => break,
                b'<' | b'>' => {
                    if self.byte(self.pos + 1) != Some(b'(') {
                        break;
                    }
                    let kind = if c == b'<' {
                        SubKind::ProcIn
                    } else {
                        SubKind::ProcOut
                    };
                    self.lex_cmdsub(&mut text, &mut subs, kind)?;
                }
                b'(' => {
                    let so_far = self.src.get(start..self.pos).unwrap_or_default();
                    if self.pos > start && assign_eq(so_far) == Some(self.pos - start - 1) {
                        self.lex_array(&mut text, &mut subs)?;
                    } else {
                        break;
                    }
                }
                b'\\' => match self.byte(self.pos + 1) {
                    Some(b'\n') => self.pos += 2,
                    Some(n) => {
                        text.push(n);
                        self.pos += 2;
                    }
                    None => {
                        text.push(b'\\');
                        self.pos += 1;
                    }
                },
                b'\'' => {
                    let q = self.pos;
                    let rest = self.src.get(q + 1..self.end).unwrap_or_default();
                    let Some(len) = rest.iter().position(|&c| c == b'\'') else {
                        return Err(perr("unterminated single quote", q));
                    };
                    text.extend_from_slice(&rest[..len]);
                    self.pos = q + 1 + len + 1;
                }
                b'"' => self.lex_dquote(&mut text, &mut subs)?,
                b'$' => self.lex_dollar(&mut text, &mut subs, false)?,
                b'`' => self.lex_backtick(&mut text, &mut subs, false)?,
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
        if self.pos == start {
            return Err(perr("unexpected character", start));
        }
        let raw = self.src.get(start..self.pos).unwrap_or_default();
        let plain = raw == text.as_slice();
        let assign = assign_eq(raw).and_then(|eq| {
            if text.get(..=eq) != raw.get(..=eq) {
                return None;
            }
            let name_end = if raw.get(eq.wrapping_sub(1)) == Some(&b'+') {
                eq - 1
            } else {
                eq
            };
            let name = String::from_utf8_lossy(text.get(..name_end)?).into_owned();
            let value = String::from_utf8_lossy(text.get(eq + 1..)?).into_owned();
            Some((name, value))
        });
        Ok(Word {
            text: lossy(text),
            offset: start,
            plain,
            assign,
            subs,
        })
    }

    /// `NAME=( elem … )`: the elements are words (their substitutions run).
    fn lex_array(&mut self, text: &mut Vec<u8>, subs: &mut Vec<Sub>) -> Result<(), ParseError> {
        let start = self.pos;
        self.enter(start)?;
        self.pos += 1;
        text.push(b'(');
        let mut first = true;
        loop {
            loop {
                self.skip_blank();
                if self.byte(self.pos) == Some(b'\n') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            match self.byte(self.pos) {
                None => return Err(perr("unterminated array assignment `(`", start)),
                Some(b')') => {
                    self.pos += 1;
                    text.push(b')');
                    break;
                }
                Some(b';' | b'&' | b'|' | b'(') => {
                    return Err(perr("unexpected operator in array assignment", self.pos))
                }
                Some(b'<' | b'>') if self.byte(self.pos + 1) != Some(b'(') => {
                    return Err(perr("unexpected redirection in array assignment", self.pos))
                }
                Some(_) => {
                    let w = self.lex_word()?;
                    if !first {
                        text.push(b' ');
                    }
                    first = false;
                    text.extend_from_slice(w.text.as_bytes());
                    subs.extend(w.subs);
                }
            }
        }
        self.leave();
        Ok(())
    }

    /// At `"`: a double-quoted string.
    fn lex_dquote(&mut self, text: &mut Vec<u8>, subs: &mut Vec<Sub>) -> Result<(), ParseError> {
        let q = self.pos;
        self.pos += 1;
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(perr("unterminated double quote", q));
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => match self.byte(self.pos + 1) {
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        text.push(n);
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        text.push(b'\\');
                        self.pos += 1;
                    }
                },
                b'$' => self.lex_dollar(text, subs, true)?,
                b'`' => self.lex_backtick(text, subs, true)?,
                _ => {
                    text.push(c);
                    self.pos += 1;
                }
            }
        }
    }

    /// At `$`: ANSI-C / locale strings, substitutions, arithmetic, `${…}`.
    fn lex_dollar(
        &mut self,
        text: &mut Vec<u8>,
        subs: &mut Vec<Sub>,
        in_dq: bool,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        match self.byte(start + 1) {
            Some(b'\'') if !in_dq => self.lex_ansi_c(text),
            Some(b'"') if !in_dq => {
                self.pos += 1;
                self.lex_dquote(text, subs)
            }
            Some(b'(') => {
                if self.byte(start + 2) == Some(b'(') {
                    if let Some(close) = self.arith_end(start + 3) {
                        subs.extend(self.scan_region(start + 3, close, start)?);
                        self.pos = close + 2;
                        text.extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
                        return Ok(());
                    }
                }
                self.lex_cmdsub(text, subs, SubKind::Dollar)
            }
            Some(b'{') => self.lex_param(text, subs, in_dq),
            _ => {
                text.push(b'$');
                self.pos += 1;
                Ok(())
            }
        }
    }

    /// At `$(`, `<(` or `>(`: parse the embedded script in place.
    fn lex_cmdsub(
        &mut self,
        text: &mut Vec<u8>,
        subs: &mut Vec<Sub>,
        kind: SubKind,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 2;
        self.enter(start)?;
        let saved_func = mem::take(&mut self.func_via);
        let saved_peek = self.peeked.take();
        let mut items = Vec::new();
        self.parse_list(&mut items)?;
        let opener = match kind {
            SubKind::ProcIn => "<(",
            SubKind::ProcOut => ">(",
            _ => "$(",
        };
        match self.next()? {
            Tok::Op(Op::RParen, _) => {}
            Tok::Eof(_) => {
                return Err(perr(format!("unterminated `{opener}`: missing `)`"), start))
            }
            t => {
                return Err(perr(
                    format!("expected `)` to close `{opener}`, found {}", t.describe()),
                    t.offset(),
                ))
            }
        }
        self.peeked = saved_peek;
        self.func_via = saved_func;
        self.leave();
        text.extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
        subs.push(Sub {
            kind,
            items,
            heredocs: None,
        });
        Ok(())
    }

    /// At `${`: parameter expansion, kept as text; substitutions inside run.
    fn lex_param(
        &mut self,
        text: &mut Vec<u8>,
        subs: &mut Vec<Sub>,
        in_dq: bool,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        self.enter(start)?;
        self.pos += 2;
        let mark = text.len();
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(perr("unterminated `${`: missing `}`", start));
            };
            match c {
                b'}' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => self.pos += 2,
                b'\'' if !in_dq => {
                    let rest = self.src.get(self.pos + 1..self.end).unwrap_or_default();
                    let Some(len) = rest.iter().position(|&c| c == b'\'') else {
                        return Err(perr("unterminated single quote", self.pos));
                    };
                    self.pos += len + 2;
                }
                b'"' => self.lex_dquote(text, subs)?,
                b'$' => self.lex_dollar(text, subs, in_dq)?,
                b'`' => self.lex_backtick(text, subs, in_dq)?,
                _ => self.pos += 1,
            }
        }
        self.leave();
        text.truncate(mark);
        text.extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
        Ok(())
    }

    /// At `` ` ``: unescape the body and parse it as its own script.
    fn lex_backtick(
        &mut self,
        text: &mut Vec<u8>,
        subs: &mut Vec<Sub>,
        in_dq: bool,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = Vec::new();
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(perr("unterminated backquote", start));
            };
            match c {
                b'`' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => match self.byte(self.pos + 1) {
                    Some(n @ (b'$' | b'`' | b'\\')) => {
                        inner.push(n);
                        self.pos += 2;
                    }
                    Some(b'"') if in_dq => {
                        inner.push(b'"');
                        self.pos += 2;
                    }
                    Some(n) => {
                        inner.extend_from_slice(&[b'\\', n]);
                        self.pos += 2;
                    }
                    None => {
                        inner.push(b'\\');
                        self.pos += 1;
                    }
                },
                _ => {
                    inner.push(c);
                    self.pos += 1;
                }
            }
        }
        text.extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
        let inner = lossy(inner);
        let script = parse_script(&inner, self.depth + 1).map_err(|e| {
            perr(
                format!("in backquoted command: {}", e.message),
                (start + 1 + e.offset).min(self.pos),
            )
        })?;
        subs.push(Sub {
            kind: SubKind::Backtick,
            items: script.items,
            heredocs: Some(script.heredocs),
        });
        Ok(())
    }

    /// At `$'`: ANSI-C quoted string with backslash escapes.
    fn lex_ansi_c(&mut self, text: &mut Vec<u8>) -> Result<(), ParseError> {
        let q = self.pos;
        self.pos += 2;
        // bash truncates the string at a NUL byte.
        let mut out = Vec::new();
        let mut nul = false;
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(perr("unterminated `$'` string", q));
            };
            self.pos += 1;
            match c {
                b'\'' => break,
                b'\\' => {
                    let Some(e) = self.byte(self.pos) else {
                        return Err(perr("unterminated `$'` string", q));
                    };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b't' => out.push(b'\t'),
                        b'r' => out.push(b'\r'),
                        b'a' => out.push(7),
                        b'b' => out.push(8),
                        b'e' | b'E' => out.push(27),
                        b'f' => out.push(12),
                        b'v' => out.push(11),
                        b'\\' | b'\'' | b'"' | b'?' => out.push(e),
                        b'x' => match self.digits(16, 2) {
                            Some(v) => out.push(v as u8),
                            None => out.extend_from_slice(b"\\x"),
                        },
                        b'u' | b'U' => {
                            let max = if e == b'u' { 4 } else { 8 };
                            match self.digits(16, max).and_then(char::from_u32) {
                                Some(ch) => {
                                    let mut buf = [0u8; 4];
                                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                                }
                                None => out.extend_from_slice(&[b'\\', e]),
                            }
                        }
                        b'0'..=b'7' => {
                            self.pos -= 1;
                            let v = self.digits(8, 3).unwrap_or(0);
                            out.push((v & 0xff) as u8);
                        }
                        b'c' => match self.byte(self.pos) {
                            Some(x) if x != b'\'' => {
                                self.pos += 1;
                                out.push(x & 0x1f);
                            }
                            _ => out.extend_from_slice(b"\\c"),
                        },
                        other => out.extend_from_slice(&[b'\\', other]),
                    }
                }
                _ => out.push(c),
            }
        }
        for b in out {
            nul |= b == 0;
            if !nul {
                text.push(b);
            }
        }
        Ok(())
    }

    /// Up to `max` digits in `radix` at `pos`; `None` if there are none.
    fn digits(&mut self, radix: u32, max: usize) -> Option<u32> {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < max {
            let Some(d) = self
                .byte(self.pos)
                .and_then(|b| (b as char).to_digit(radix))
            else {
                break;
            };
            v = v.wrapping_mul(radix).wrapping_add(d);
            self.pos += 1;
            n += 1;
        }
        (n > 0).then_some(v)
    }
}
