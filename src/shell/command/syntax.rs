//! The part of the bash grammar needed to know what a script runs, as a tree.
//!
//! [`parse_script`] turns text into a [`Script`]: lists of and-or lists of
//! pipelines of commands, compound commands kept as such, so that `extract` can
//! follow the shell's state through `&&`, `||`, subshells and bodies that may not
//! run (`cd build && rm -rf ./*` runs in `build`; `(cd /); rm -rf *` does not).
//! Words keep their parts (literal text, quoted or not, parameters,
//! substitutions), and scripts nested in words (`$( )`, backquotes, `<( )`) hang
//! off the [`Word`] that holds them. The lexer is in `lex`.

use super::lex::{Op, Tok};
use super::{perr, refused, ParseError, RedirectOp};

/// Maximum nesting of subshells, groups, compound commands, substitutions,
/// parameter expansions and re-parsed strings (`bash -c`, `eval`, …): deeper
/// than people write (a generated script of 100 nested `if`s parses). The
/// deepest construct per level, a function defined in a function, overflows
/// 8 MiB ([`crate::os::stack::MIN`]) at about 140 levels in a debug build;
/// [`stack_low`] turns what is left of that risk into an error.
pub const MAX_DEPTH: usize = 128;

/// Maximum nesting of re-parsed strings (`bash -c`, `eval`, an `ssh` command
/// line) among the [`MAX_DEPTH`] levels: each is parsed again, as bash and as
/// dash, so this bounds the work more than the stack.
pub const MAX_REPARSE: usize = 16;

/// Nesting up to which the stack is not looked at: every construct fits
/// [`MAX_REPARSE`] levels on a 2 MiB thread.
const STACK_UNCHECKED: usize = 16;

/// What must be left of the stack to go one level deeper (a level of the
/// heaviest construct takes about 60 KiB in a debug build).
const STACK_RESERVE: usize = 512 << 10;

/// Is the stack too short to go one level deeper than `depth`? Only looked at
/// beyond [`STACK_UNCHECKED`] levels, so a usual command pays nothing (the
/// first look finds the thread's stack, once).
pub(crate) fn stack_low(depth: usize) -> bool {
    depth > STACK_UNCHECKED && stacker::remaining_stack().is_some_and(|left| left < STACK_RESERVE)
}

/// A shell word: its text with quotes removed, its parts, and the scripts it
/// embeds.
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
    /// The word piece by piece, for expansion.
    pub parts: Vec<Part>,
    /// Command/process substitutions found in the word (`Part::Sub` indexes).
    pub subs: Vec<Sub>,
    /// `NAME=( … )`: the element words.
    pub array: Option<Vec<Word>>,
}

/// One piece of a word.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Literal text. `quoted`: inside quotes or escaped, so neither a glob, nor
    /// a `~`, nor split into fields.
    Lit { text: String, quoted: bool },
    /// `$NAME`, `${NAME…}`, `$1`, `$@`, …
    Param(Param),
    /// `$( )`, backquotes, `<( )`, `>( )`: index into [`Word::subs`].
    Sub { index: usize, quoted: bool },
    /// `$(( ))` (or `$[ ]`): a number the analysis does not compute; `text` is
    /// the expression as written.
    Arith { text: String, quoted: bool },
}

/// A parameter expansion.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Param {
    /// Variable name, positional number or special parameter (`@`, `*`, `#`, …).
    pub name: String,
    /// What is done with its value.
    pub op: ParamOp,
    /// Inside double quotes (no field splitting, no globbing).
    pub quoted: bool,
}

/// What a parameter expansion does with the value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum ParamOp {
    /// `$X`, `${X}`.
    Plain,
    /// `${X:-w}`, `${X-w}`; `assign` for `${X:=w}`, `${X=w}`.
    Default {
        word: Vec<Part>,
        colon: bool,
        assign: bool,
    },
    /// `${X:+w}`, `${X+w}`.
    Alternative { word: Vec<Part>, colon: bool },
    /// `${X:?msg}`, `${X?msg}`: the value, or the shell stops with `msg`.
    Required,
    /// `${X#p}`, `${X##p}` (`suffix: false`), `${X%p}`, `${X%%p}`: the
    /// value less the shortest (or `longest`) prefix or suffix matching the
    /// pattern.
    Trim {
        pattern: Vec<Part>,
        suffix: bool,
        longest: bool,
    },
    /// `${X^^}`, `${X,,}`, `${X^}`, `${X,}`, `${X~~}`: letter case changed.
    Case,
    /// `${X[@]}`, `${X[*]}`, `${X[N]}`: the subscript.
    Index(String),
    /// `${X@P}`: the value expanded as a prompt string (its `$(…)` run).
    Prompt,
    /// `${!X}`: the value of the variable whose name `X` holds.
    Indirect,
    /// `${#X}`, `${!X}`, `${X/p/r}`, `${X:1:2}`, …: not computed.
    Other,
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
    pub body: List,
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
    /// The delimiter was unquoted: the body is expanded (`$X`, `$( )`).
    pub expand: bool,
}

/// `a; b & c`: and-or lists run one after the other.
#[derive(Debug, Clone, Default)]
pub(crate) struct List {
    pub items: Vec<AndOr>,
}

/// `a && b || c`, possibly run in the background (`&`).
#[derive(Debug, Clone)]
pub(crate) struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(Conn, Pipeline)>,
    pub background: bool,
}

/// How a pipeline joins the one before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Conn {
    /// `&&`: runs when the previous one succeeded.
    And,
    /// `||`: runs when the previous one failed.
    Or,
}

/// `a | b | c` (a `!` or `time` prefix is dropped; `time` alone is empty).
#[derive(Debug, Clone, Default)]
pub(crate) struct Pipeline {
    pub cmds: Vec<Command>,
}

/// One command of a pipeline, with the redirections that apply to all of it.
#[derive(Debug, Clone)]
pub(crate) struct Command {
    pub kind: CommandKind,
    pub redirs: Vec<RawRedir>,
    pub offset: usize,
    /// Parser nesting depth at which the command was found.
    pub depth: usize,
}

/// Simple and compound commands.
#[derive(Debug, Clone)]
pub(crate) enum CommandKind {
    /// Assignments, then words (either may be empty, not both with no redirection).
    Simple {
        assigns: Vec<Word>,
        words: Vec<Word>,
    },
    /// `( list )`.
    Subshell(List),
    /// `{ list; }`.
    Group(List),
    /// `if c; then b; elif c2; then b2; else e; fi`.
    If {
        arms: Vec<(List, List)>,
        otherwise: Option<List>,
    },
    /// `while c; do b; done` / `until c; do b; done` (`until`).
    Loop { cond: List, body: List, until: bool },
    /// `for v in words; do b; done` / `select …`; `words == None` is `"$@"`.
    For {
        var: String,
        words: Option<Vec<Word>>,
        body: List,
    },
    /// `for ((a; b; c)); do b; done`: the head's text and substitutions, and
    /// the body.
    ArithFor {
        head: String,
        subs: Vec<Sub>,
        body: List,
    },
    /// `case w in p|q) list ;; … esac`.
    Case {
        subject: Box<Word>,
        arms: Vec<(Vec<Word>, List)>,
    },
    /// `name() body` / `function name body`.
    Function { name: String, body: Box<Command> },
    /// `(( … ))`: the expression as written, and the substitutions inside.
    Arith { text: String, subs: Vec<Sub> },
    /// `[[ … ]]`: words (their substitutions run).
    Test(Vec<Word>),
}

/// Result of parsing one text.
#[derive(Debug)]
pub(crate) struct Script {
    pub body: List,
    pub heredocs: Vec<Heredoc>,
}

/// Parse `src` (already at nesting `depth`) as bash reads it.
pub(crate) fn parse_script(src: &str, depth: usize) -> Result<Script, ParseError> {
    parse_script_as(src, depth, false)
}

/// Parse `src` as bash reads it, or (`dash`) as dash does where the two read
/// the same text differently: dash has no `((…))` command (`((cmd))` is two
/// nested subshells that run `cmd`), and no `$'…'` or `$"…"` quoting (the `$`
/// is a character and the quotes are ordinary quotes). Checked against dash
/// 0.5.12, Debian's and Ubuntu's `/bin/sh`.
pub(crate) fn parse_script_as(src: &str, depth: usize, dash: bool) -> Result<Script, ParseError> {
    if depth > MAX_DEPTH || stack_low(depth) {
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
        dash,
    };
    let body = p.parse_list()?;
    match p.next()? {
        Tok::Eof(_) => Ok(Script {
            body,
            heredocs: p.heredocs,
        }),
        t => Err(perr(format!("unexpected {}", t.describe()), t.offset())),
    }
}

/// The command and process substitutions of `text` read the way the shell
/// reads the inside of double quotes, where quotes do not hide them: an array
/// subscript that arithmetic evaluates (`let 'a[$(cmd)]'`), a prompt string.
/// Also returns the here-document table they use.
pub(crate) fn quoted_subs(
    text: &str,
    depth: usize,
) -> Result<(Vec<Sub>, Vec<Heredoc>), ParseError> {
    let mut p = Parser {
        src: text.as_bytes(),
        pos: 0,
        end: text.len(),
        depth,
        peeked: None,
        heredocs: Vec::new(),
        pending: Vec::new(),
        dash: false,
    };
    let subs = p.scan_region(0, text.len(), 0)?;
    Ok((subs, p.heredocs))
}

/// Lex `text` as exactly one word (`None` if it is not one word).
pub(crate) fn word_from_text(text: &str) -> Option<Word> {
    let mut p = Parser {
        src: text.as_bytes(),
        pos: 0,
        end: text.len(),
        depth: 0,
        peeked: None,
        heredocs: Vec::new(),
        pending: Vec::new(),
        dash: false,
    };
    match p.lex().ok()? {
        Tok::Word(w) if p.pos == text.len() => Some(w),
        _ => None,
    }
}

pub(super) fn too_deep(at: usize) -> ParseError {
    perr(format!("nesting deeper than {MAX_DEPTH} levels"), at)
}

/// Words that are reserved when plain and in command position.
const RESERVED: &[&str] = &[
    "{", "}", "if", "then", "elif", "else", "fi", "while", "until", "do", "done", "for", "select",
    "in", "case", "esac", "function", "[[", "!", "time",
];

/// Reserved words that end a command list.
const CLOSERS: &[&str] = &["}", "then", "elif", "else", "fi", "do", "done", "esac"];

/// A here-document whose body is read after the next newline.
pub(super) struct Pending {
    pub id: usize,
    pub delim: Vec<u8>,
    pub strip_tabs: bool,
    pub expand: bool,
    pub at: usize,
}

pub(super) struct Parser<'a> {
    pub src: &'a [u8],
    pub pos: usize,
    /// Exclusive limit of the region being parsed (a here-doc body or
    /// arithmetic region while scanning for substitutions).
    pub end: usize,
    pub depth: usize,
    pub peeked: Option<Tok>,
    pub heredocs: Vec<Heredoc>,
    pub pending: Vec<Pending>,
    /// Read as dash does (see [`parse_script_as`]).
    pub dash: bool,
}

impl Parser<'_> {
    // ----- small helpers -------------------------------------------------

    pub(super) fn byte(&self, i: usize) -> Option<u8> {
        if i < self.end {
            self.src.get(i).copied()
        } else {
            None
        }
    }

    pub(super) fn enter(&mut self, at: usize) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH || stack_low(self.depth) {
            Err(too_deep(at))
        } else {
            Ok(())
        }
    }

    pub(super) fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    pub(super) fn next(&mut self) -> Result<Tok, ParseError> {
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

    pub(super) fn expect_op(
        &mut self,
        op: Op,
        construct: &str,
        at: usize,
    ) -> Result<(), ParseError> {
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

    fn command(&self, kind: CommandKind, at: usize) -> Command {
        Command {
            kind,
            redirs: Vec::new(),
            offset: at,
            depth: self.depth,
        }
    }

    // ----- grammar ---------------------------------------------------------

    /// `list := and_or ((';' | '&' | newline) and_or)*`; stops before `)`,
    /// `;;`, a closing reserved word or end of input.
    pub(super) fn parse_list(&mut self) -> Result<List, ParseError> {
        let mut list = List::default();
        loop {
            self.skip_newlines()?;
            if self.at_list_end()? {
                return Ok(list);
            }
            let mut and_or = self.parse_and_or()?;
            match self.peek()? {
                Tok::Op(op @ (Op::Semi | Op::Amp), _) => {
                    and_or.background = *op == Op::Amp;
                    self.next()?;
                    list.items.push(and_or);
                }
                Tok::Newline(_) => {
                    self.next()?;
                    list.items.push(and_or);
                }
                _ => {
                    list.items.push(and_or);
                    return Ok(list);
                }
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
    fn body(&mut self, construct: &str) -> Result<List, ParseError> {
        let list = self.parse_list()?;
        if list.items.is_empty() {
            let t = self.peek()?;
            return Err(perr(
                format!(
                    "expected a command in `{construct}`, found {}",
                    t.describe()
                ),
                t.offset(),
            ));
        }
        Ok(list)
    }

    fn parse_and_or(&mut self) -> Result<AndOr, ParseError> {
        let first = self.parse_pipeline()?;
        let mut rest = Vec::new();
        while let Some(op @ (Op::AndIf | Op::OrIf)) = self.peek_op()? {
            let t = self.next()?;
            self.skip_newlines()?;
            if self.at_list_end()? {
                return Err(perr(
                    format!("expected a command after `{}`", op.symbol()),
                    t.offset(),
                ));
            }
            let conn = if op == Op::AndIf { Conn::And } else { Conn::Or };
            rest.push((conn, self.parse_pipeline()?));
        }
        Ok(AndOr {
            first,
            rest,
            background: false,
        })
    }

    fn parse_pipeline(&mut self) -> Result<Pipeline, ParseError> {
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
            return Ok(Pipeline::default());
        }
        let mut cmds = vec![self.parse_command()?];
        while let Some(Op::Pipe | Op::PipeAmp) = self.peek_op()? {
            self.next()?;
            self.skip_newlines()?;
            cmds.push(self.parse_command()?);
        }
        Ok(Pipeline { cmds })
    }

    /// Parse one command (simple or compound, with its redirections).
    fn parse_command(&mut self) -> Result<Command, ParseError> {
        let at = self.peek()?.offset();
        if self.peek_op()? == Some(Op::LParen) {
            self.next()?;
            if !self.dash && self.byte(self.pos) == Some(b'(') {
                if let Some(close) = self.arith_end(self.pos + 1) {
                    let text = String::from_utf8_lossy(
                        self.src.get(self.pos + 1..close).unwrap_or_default(),
                    )
                    .into_owned();
                    let subs = self.scan_region(self.pos + 1, close, at)?;
                    self.pos = close + 2;
                    return self.with_redirs(self.command(CommandKind::Arith { text, subs }, at));
                }
            }
            self.enter(at)?;
            let list = self.parse_list()?;
            if list.items.is_empty() {
                return Err(perr("empty subshell `( )`", at));
            }
            self.expect_op(Op::RParen, "(", at)?;
            self.leave();
            return self.with_redirs(self.command(CommandKind::Subshell(list), at));
        }
        if self.peek_text_is("coproc")? {
            return self.parse_coproc(at);
        }
        let kind = match self.peek_kw()? {
            Some("{") => {
                self.next()?;
                self.enter(at)?;
                let list = self.body("{")?;
                self.expect_kw("}", "{", at)?;
                self.leave();
                CommandKind::Group(list)
            }
            Some("if") => {
                self.next()?;
                self.enter(at)?;
                let mut arms = Vec::new();
                let cond = self.body("if")?;
                self.expect_kw("then", "if", at)?;
                arms.push((cond, self.body("if")?));
                let mut otherwise = None;
                loop {
                    match self.peek_kw()? {
                        Some("elif") => {
                            self.next()?;
                            let cond = self.body("elif")?;
                            self.expect_kw("then", "elif", at)?;
                            arms.push((cond, self.body("elif")?));
                        }
                        Some("else") => {
                            self.next()?;
                            otherwise = Some(self.body("else")?);
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
                CommandKind::If { arms, otherwise }
            }
            Some(kw @ ("while" | "until")) => {
                self.next()?;
                self.enter(at)?;
                let cond = self.body(kw)?;
                self.expect_kw("do", kw, at)?;
                let body = self.body(kw)?;
                self.expect_kw("done", kw, at)?;
                self.leave();
                CommandKind::Loop {
                    cond,
                    body,
                    until: kw == "until",
                }
            }
            Some(kw @ ("for" | "select")) => {
                self.next()?;
                self.enter(at)?;
                let kind = self.parse_for(kw, at)?;
                self.leave();
                kind
            }
            Some("case") => {
                self.next()?;
                self.enter(at)?;
                let kind = self.parse_case(at)?;
                self.leave();
                kind
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
                return self.func_body(name, at);
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
                CommandKind::Test(words)
            }
            Some(kw) if CLOSERS.contains(&kw) => {
                let t = self.next()?;
                return Err(perr(format!("unexpected {}", t.describe()), t.offset()));
            }
            _ => return self.parse_simple(),
        };
        self.with_redirs(self.command(kind, at))
    }

    /// `coproc [NAME] compound-command` / `coproc simple-command`: the
    /// command runs in the background, in a subshell joined to the shell by a
    /// pipe (reported as a subshell holding a background job). A name is only
    /// read before a compound command, as bash does.
    fn parse_coproc(&mut self, at: usize) -> Result<Command, ParseError> {
        self.next()?;
        if let Tok::Word(w) = self.peek()? {
            let name = w.plain
                && w.text
                    .bytes()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
                && w.text
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || c == b'_')
                && !RESERVED.contains(&w.text.as_str());
            if name && self.compound_follows() {
                self.next()?;
            }
        }
        self.enter(at)?;
        let body = self.parse_command()?;
        self.leave();
        let job = AndOr {
            first: Pipeline { cmds: vec![body] },
            rest: Vec::new(),
            background: true,
        };
        self.with_redirs(self.command(CommandKind::Subshell(List { items: vec![job] }), at))
    }

    /// Does a compound command start at the source position (after the
    /// token just peeked)?
    fn compound_follows(&self) -> bool {
        let rest = self.src.get(self.pos..self.end).unwrap_or_default();
        let rest = match rest.iter().position(|c| !matches!(c, b' ' | b'\t')) {
            Some(k) => &rest[k..],
            None => return false,
        };
        if rest.first() == Some(&b'(') {
            return true;
        }
        ["{", "if", "while", "until", "for", "select", "case", "[["]
            .iter()
            .any(|kw| {
                rest.starts_with(kw.as_bytes())
                    && rest
                        .get(kw.len())
                        .is_none_or(|c| matches!(c, b' ' | b'\t' | b'\n' | b';' | b'('))
            })
    }

    /// After `for` / `select`: `NAME [in words…]; do body done`, or `((…))`.
    fn parse_for(&mut self, kw: &str, at: usize) -> Result<CommandKind, ParseError> {
        if self.peek_op()? == Some(Op::LParen) && self.byte(self.pos) == Some(b'(') {
            self.next()?;
            let close = self
                .arith_end(self.pos + 1)
                .ok_or_else(|| perr(format!("unterminated `{kw} ((`"), at))?;
            let head =
                String::from_utf8_lossy(self.src.get(self.pos + 1..close).unwrap_or_default())
                    .into_owned();
            let subs = self.scan_region(self.pos + 1, close, at)?;
            self.pos = close + 2;
            self.skip_newlines()?;
            if self.peek_op()? == Some(Op::Semi) {
                self.next()?;
            }
            self.skip_newlines()?;
            let body = self.loop_body(kw, at)?;
            return Ok(CommandKind::ArithFor { head, subs, body });
        }
        let var = match self.next()? {
            Tok::Word(w) => w.text,
            t => {
                return Err(perr(
                    format!(
                        "expected a variable name after `{kw}`, found {}",
                        t.describe()
                    ),
                    t.offset(),
                ))
            }
        };
        self.skip_newlines()?;
        let mut words = None;
        if self.peek_kw()? == Some("in") {
            self.next()?;
            let mut list = Vec::new();
            loop {
                match self.next()? {
                    Tok::Word(w) => list.push(w),
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
            words = Some(list);
        } else if self.peek_op()? == Some(Op::Semi) {
            self.next()?;
        }
        self.skip_newlines()?;
        let body = self.loop_body(kw, at)?;
        Ok(CommandKind::For { var, words, body })
    }

    /// A `for`/`select` loop's body: `do list done`, or bash's and zsh's
    /// other spelling `{ list; }` (bash's grammar takes both; dash refuses
    /// the braces, and then runs none of the line, so reading them costs no
    /// command that runs).
    fn loop_body(&mut self, kw: &str, at: usize) -> Result<List, ParseError> {
        if self.peek_kw()? == Some("{") {
            self.next()?;
            let body = self.body("{")?;
            self.expect_kw("}", kw, at)?;
            return Ok(body);
        }
        self.expect_kw("do", kw, at)?;
        let body = self.body(kw)?;
        self.expect_kw("done", kw, at)?;
        Ok(body)
    }

    /// After `case`: `WORD in [(]pat[|pat]…) list ;; … esac`.
    fn parse_case(&mut self, at: usize) -> Result<CommandKind, ParseError> {
        let subject = match self.next()? {
            Tok::Word(w) => w,
            t => {
                return Err(perr(
                    format!("expected a word after `case`, found {}", t.describe()),
                    t.offset(),
                ))
            }
        };
        self.skip_newlines()?;
        self.expect_kw("in", "case", at)?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines()?;
            if self.peek_kw()? == Some("esac") {
                self.next()?;
                return Ok(CommandKind::Case {
                    subject: Box::new(subject),
                    arms,
                });
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
            let list = self.parse_list()?;
            arms.push((patterns, list));
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

    fn func_body(&mut self, name: String, at: usize) -> Result<Command, ParseError> {
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
        let body = self.parse_command()?;
        Ok(self.command(
            CommandKind::Function {
                name,
                body: Box::new(body),
            },
            at,
        ))
    }

    /// Redirections after a compound command.
    fn with_redirs(&mut self, mut cmd: Command) -> Result<Command, ParseError> {
        while matches!(self.peek()?, Tok::Redir(..)) {
            cmd.redirs.push(self.parse_redirect()?);
        }
        Ok(cmd)
    }

    fn parse_simple(&mut self) -> Result<Command, ParseError> {
        let at = self.peek()?.offset();
        let mut assigns = Vec::new();
        let mut words: Vec<Word> = Vec::new();
        let mut redirs = Vec::new();
        loop {
            match self.peek()? {
                Tok::Word(_) => {
                    if let Tok::Word(w) = self.next()? {
                        if words.is_empty() && w.assign.is_some() {
                            assigns.push(w);
                            continue;
                        }
                        words.push(w);
                    }
                    if words.len() == 1
                        && assigns.is_empty()
                        && redirs.is_empty()
                        && self.peek_op()? == Some(Op::LParen)
                    {
                        // `name() compound-command`; `name(x`: refused.
                        self.next()?;
                        if self.peek_op()? != Some(Op::RParen) {
                            let t = self.next()?;
                            return Err(refused(
                                format!("unexpected {} in a function definition", t.describe()),
                                t.offset(),
                            ));
                        }
                        self.expect_op(Op::RParen, "function definition", at)?;
                        self.skip_newlines()?;
                        let name = words.pop().map(|w| w.text).unwrap_or_default();
                        return self.func_body(name, at);
                    }
                }
                Tok::Redir(..) => {
                    let r = self.parse_redirect()?;
                    redirs.push(r);
                }
                _ => break,
            }
        }
        if words.is_empty() && assigns.is_empty() && redirs.is_empty() {
            let t = self.next()?;
            return Err(perr(
                format!("expected a command, found {}", t.describe()),
                t.offset(),
            ));
        }
        // `a b(c)`: a `(` after the words (a function's `name()` was taken
        // above) is refused by bash and dash alike.
        if !words.is_empty() && self.peek_op()? == Some(Op::LParen) {
            let t = self.next()?;
            return Err(refused(format!("unexpected {}", t.describe()), t.offset()));
        }
        let mut cmd = self.command(CommandKind::Simple { assigns, words }, at);
        cmd.redirs = redirs;
        Ok(cmd)
    }
}
