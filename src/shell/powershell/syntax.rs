//! PowerShell's syntax, as far as the analysis needs it: statements,
//! pipelines, commands with their parameters and arguments, and the
//! expressions that compute arguments.
//!
//! Written from the language reference (learn.microsoft.com, `about_Parsing`,
//! `about_Quoting_Rules`, `about_Special_Characters`, `about_Operators`,
//! `about_Splatting`, `about_Redirection`, `about_Comments`,
//! `about_Pipeline_Chain_Operators`); the claims that decide what runs are
//! cited beside the code that implements them.
//!
//! The parser is strict: anything it does not understand is a [`ParseError`]
//! (the policy's `unparsable_command` then answers: the pack asks), never a
//! partial result. PowerShell itself parses the whole script before running
//! any of it, so a script with a syntax error runs nothing; strictness can only
//! ask about a script PowerShell would have refused too, or about one this
//! parser does not know.

use crate::shell::command::{perr, ParseError, RedirectOp};

/// Deepest nesting of blocks, sub-expressions and parentheses.
pub(super) const MAX_DEPTH: usize = 64;

/// A statement.
#[derive(Debug, Clone)]
pub(super) enum Stmt {
    /// Pipelines joined by `&&` / `||` (a lone pipeline is a chain of one).
    Chain(Chain),
    /// `$x = …`, `$x += …`, `$env:X = …`, `[int]$x = …`.
    Assign {
        target: Expr,
        append: bool,
        value: Box<Stmt>,
        /// Byte offset of the target in the source.
        offset: usize,
    },
    /// `if (…) {…} elseif (…) {…} else {…}`.
    If {
        conds: Vec<(Chain, Vec<Stmt>)>,
        els: Option<Vec<Stmt>>,
    },
    /// `foreach ($x in …) {…}`.
    Foreach {
        var: String,
        items: Chain,
        body: Vec<Stmt>,
    },
    /// `for`, `while`, `do … while/until`: heads run, then the body, any number of times.
    /// `forever`: nothing ends it but a `break` (`while ($true)`, `for (;;)`,
    /// `do { } until ($false)`).
    Loop {
        heads: Vec<Stmt>,
        body: Vec<Stmt>,
        forever: bool,
    },
    /// `switch (…) { pattern {…} … }`: every arm may run.
    Switch {
        subject: Chain,
        arms: Vec<Vec<Stmt>>,
    },
    /// `try {…} catch {…} finally {…}`, `trap {…}`, `param(…)`, named blocks: blocks that may run.
    Blocks(Vec<Vec<Stmt>>),
    /// `function name { … }` / `filter name { … }`.
    Function {
        name: String,
        params: Vec<String>,
        body: Vec<Stmt>,
    },
    /// `return`, `throw`, `exit`, `break`, `continue`, with what they evaluate.
    Flow(Option<Chain>),
    /// `param($a, $b)`: the names a script block or function binds.
    Param(Vec<String>),
}

/// Pipelines joined by `&&` and `||`, possibly run in the background (`&`).
#[derive(Debug, Clone, Default)]
pub(super) struct Chain {
    pub pipelines: Vec<Pipeline>,
    /// For each pipeline but the last: is the next one joined by `&&` (runs
    /// only when this one succeeded)?
    pub and_next: Vec<bool>,
}

/// `a | b | c`.
#[derive(Debug, Clone)]
pub(super) struct Pipeline {
    pub elems: Vec<Elem>,
    pub offset: usize,
}

/// One element of a pipeline.
#[derive(Debug, Clone)]
pub(super) enum Elem {
    /// A command.
    Cmd(Command),
    /// An expression (`$x`, `'text'`, `(Get-Item x).FullName`), with its redirections.
    Expr(Expr, Vec<Redir>),
}

/// How a command is invoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Invoke {
    /// By name.
    Plain,
    /// The call operator `&`.
    Call,
    /// Dot-sourcing `.`.
    Dot,
}

/// A command: its name (a word or an expression after `&`/`.`), arguments and
/// redirections.
#[derive(Debug, Clone)]
pub(super) struct Command {
    pub invoke: Invoke,
    pub name: Expr,
    pub args: Vec<Arg>,
    pub redirects: Vec<Redir>,
    pub offset: usize,
}

/// One argument of a command.
#[derive(Debug, Clone)]
pub(super) enum Arg {
    /// `-Name`, or `-Name:value` (the value in `value`).
    Param { name: String, value: Option<Expr> },
    /// Any other argument.
    Value(Expr),
    /// `@name`: a hashtable's entries are parameters, an array's items arguments.
    Splat(String),
    /// Everything after `--%`, passed to a native program as written.
    Verbatim(String),
    /// `--`: what follows is never a parameter name.
    EndOfParams,
}

/// A redirection (`>`, `>>`, `2>`, `*>`, `<`); stream merges (`2>&1`) are not kept.
#[derive(Debug, Clone)]
pub(super) struct Redir {
    pub op: RedirectOp,
    pub fd: Option<u32>,
    pub target: Expr,
}

/// A piece of an expandable word or string.
#[derive(Debug, Clone)]
pub(super) enum Part {
    /// Literal text; `quoted` when it came from inside quotes (no wildcard, no `~`).
    Text { text: String, quoted: bool },
    /// `$name`, `${name}`, `$env:NAME`.
    Var(String),
    /// `$( … )`.
    Sub(Vec<Stmt>),
}

/// An expression.
#[derive(Debug, Clone)]
pub(super) enum Expr {
    /// A bare word, an expandable string, or a mix (`C:\$x\*`, `"a$b"`).
    Word(Vec<Part>),
    /// A variable on its own (`$x`).
    Var(String),
    /// `$( … )`, `@( … )`.
    Sub(Vec<Stmt>),
    /// `( … )`.
    Paren(Box<Stmt>),
    /// `{ … }`.
    Block(Vec<Stmt>),
    /// `a, b, c`.
    Array(Vec<Expr>),
    /// `@{ k = v; … }`.
    Hash(Vec<(String, Expr)>),
    /// A number.
    Num(String),
    /// `[type]` on its own.
    Type(String),
    /// `x.Name`, `x.Name(args)`, `[t]::Name(args)`.
    Member {
        target: Box<Expr>,
        name: String,
        args: Option<Vec<Expr>>,
    },
    /// `x[i]`.
    Index(Box<Expr>, Box<Expr>),
    /// `a op b` (`-replace`, `+`, `-f`, `-join`, …; the operator lowercased).
    Binary(String, Box<Expr>, Box<Expr>),
    /// `-not x`, `!x`, `-join x`, `[type] x`, `++x`.
    Unary(String, Box<Expr>),
}

/// Parse a script.
pub(super) fn parse(src: &str) -> Result<Vec<Stmt>, ParseError> {
    let mut p = Parser {
        s: src.chars().collect(),
        bytes: vec![],
        i: 0,
        depth: 0,
    };
    p.bytes = byte_offsets(&p.s);
    let stmts = p.statements(&[])?;
    p.skip_space(true);
    if p.i < p.s.len() {
        return Err(p.err("unexpected text"));
    }
    Ok(stmts)
}

fn byte_offsets(s: &[char]) -> Vec<usize> {
    let mut v = Vec::with_capacity(s.len() + 1);
    let mut b = 0;
    for c in s {
        v.push(b);
        b += c.len_utf8();
    }
    v.push(b);
    v
}

/// PowerShell reads these as a dash (`about_Parsing`: the tokenizer accepts
/// the en dash, em dash and horizontal bar wherever `-` starts a parameter or
/// an operator).
pub(super) fn is_dash(c: char) -> bool {
    matches!(c, '-' | '\u{2013}' | '\u{2014}' | '\u{2015}')
}

/// Single quotes, including the typographic ones PowerShell accepts
/// (`about_Quoting_Rules`).
fn is_single_quote(c: char) -> bool {
    matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}')
}

/// Double quotes, including the typographic ones PowerShell accepts.
fn is_double_quote(c: char) -> bool {
    matches!(c, '"' | '\u{201C}' | '\u{201D}' | '\u{201E}')
}

fn is_space(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\u{0B}' | '\u{0C}' | '\u{A0}' | '\u{85}' | '\u{FEFF}'
    ) || (c != '\n' && c != '\r' && c.is_whitespace())
}

fn is_newline(c: char) -> bool {
    c == '\n' || c == '\r'
}

/// Characters that end a bare word in argument mode.
fn ends_word(c: char) -> bool {
    is_space(c)
        || is_newline(c)
        || matches!(c, ';' | '|' | '&' | '(' | ')' | '{' | '}' | ',' | '<' | '>')
}

/// Letters that make up a variable name (`$name`).
fn is_var_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '?' || c == ':'
}

const KEYWORDS: &[&str] = &[
    "if",
    "elseif",
    "else",
    "foreach",
    "for",
    "while",
    "do",
    "until",
    "switch",
    "function",
    "filter",
    "workflow",
    "try",
    "catch",
    "finally",
    "trap",
    "return",
    "throw",
    "exit",
    "break",
    "continue",
    "param",
    "begin",
    "process",
    "end",
    "clean",
    "dynamicparam",
    "data",
    "class",
    "enum",
    "using",
    "configuration",
    "parallel",
    "sequence",
    "inlinescript",
    "in",
];

struct Parser {
    s: Vec<char>,
    bytes: Vec<usize>,
    i: usize,
    depth: usize,
}

impl Parser {
    fn err(&self, what: &str) -> ParseError {
        perr(
            format!("PowerShell: {what}"),
            self.bytes.get(self.i).copied().unwrap_or(0),
        )
    }

    fn peek(&self) -> Option<char> {
        self.s.get(self.i).copied()
    }

    fn peek_at(&self, k: usize) -> Option<char> {
        self.s.get(self.i + k).copied()
    }

    fn offset(&self) -> usize {
        self.bytes.get(self.i).copied().unwrap_or(0)
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("nested too deeply"));
        }
        Ok(())
    }

    /// Skip spaces, comments and line continuations (a backtick before a
    /// newline, `about_Special_Characters`); newlines too when `newlines`.
    fn skip_space(&mut self, newlines: bool) {
        loop {
            match self.peek() {
                Some(c) if is_space(c) => self.i += 1,
                Some(c) if newlines && is_newline(c) => self.i += 1,
                Some('`') if self.peek_at(1).is_some_and(is_newline) => {
                    self.i += 2;
                    if self.peek_at(0) == Some('\n') && self.s.get(self.i - 1) == Some(&'\r') {
                        self.i += 1;
                    }
                }
                Some('#') => {
                    while self.peek().is_some_and(|c| !is_newline(c)) {
                        self.i += 1;
                    }
                }
                Some('<') if self.peek_at(1) == Some('#') => {
                    // `<# … #>` (`about_Comments`).
                    let mut k = self.i + 2;
                    while k + 1 < self.s.len() && !(self.s[k] == '#' && self.s[k + 1] == '>') {
                        k += 1;
                    }
                    self.i = (k + 2).min(self.s.len());
                }
                _ => return,
            }
        }
    }

    fn starts_with(&self, word: &str) -> bool {
        let mut k = self.i;
        for w in word.chars() {
            match self.s.get(k) {
                Some(c) if c.eq_ignore_ascii_case(&w) => k += 1,
                _ => return false,
            }
        }
        true
    }

    /// A keyword at the cursor (followed by something that ends it).
    fn keyword(&self) -> Option<&'static str> {
        let kw = KEYWORDS.iter().find(|k| self.starts_with(k))?;
        let next = self.s.get(self.i + kw.len()).copied();
        // Named blocks and the like are keywords only before their block
        // (`Clean ~` calls a command named Clean).
        if matches!(
            *kw,
            "begin"
                | "process"
                | "end"
                | "clean"
                | "dynamicparam"
                | "parallel"
                | "sequence"
                | "inlinescript"
                | "data"
        ) {
            let mut k = self.i + kw.len();
            while self
                .s
                .get(k)
                .is_some_and(|c| is_space(*c) || is_newline(*c))
            {
                k += 1;
            }
            let ok = self.s.get(k) == Some(&'{')
                || (*kw == "data" && self.s.get(k).is_some_and(|c| is_dash(*c)));
            if !ok {
                return None;
            }
        }
        match next {
            None => Some(kw),
            Some(c)
                if is_space(c)
                    || is_newline(c)
                    || matches!(c, '(' | '{' | ';' | '$' | '\'' | '"' | '-') =>
            {
                Some(kw)
            }
            _ => None,
        }
    }

    fn eat_keyword(&mut self, kw: &str) -> bool {
        if self.keyword() == Some(kw_static(kw)) {
            self.i += kw.len();
            true
        } else {
            false
        }
    }

    /// Statements until one of `closers` (not consumed) or the end.
    fn statements(&mut self, closers: &[char]) -> Result<Vec<Stmt>, ParseError> {
        self.enter()?;
        let mut out = vec![];
        loop {
            self.skip_space(true);
            match self.peek() {
                None => break,
                Some(c) if closers.contains(&c) => break,
                Some(';') => {
                    self.i += 1;
                    continue;
                }
                _ => {}
            }
            let st = self.statement()?;
            let param = matches!(st, Stmt::Param(_));
            out.push(st);
            self.skip_space(false);
            if param {
                continue;
            }
            match self.peek() {
                None => break,
                Some(c) if closers.contains(&c) => break,
                Some(';') => self.i += 1,
                Some(c) if is_newline(c) => self.i += 1,
                Some(_) => return Err(self.err("expected the end of a statement")),
            }
        }
        self.depth -= 1;
        Ok(out)
    }

    fn block(&mut self) -> Result<Vec<Stmt>, ParseError> {
        self.skip_space(true);
        if self.peek() != Some('{') {
            return Err(self.err("expected `{`"));
        }
        self.i += 1;
        let body = self.statements(&['}'])?;
        if self.peek() != Some('}') {
            return Err(self.err("a `{` is never closed"));
        }
        self.i += 1;
        Ok(body)
    }

    /// `( pipeline )` of an `if`, `while`, `switch`, `foreach`.
    /// The value of a loop's condition read from `start` to here (`($true)`,
    /// `(1)`, `( $false )`), when it is a constant.
    fn constant_condition(&self, start: usize) -> Option<bool> {
        let text: String = self
            .s
            .get(start..self.i)?
            .iter()
            .filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')'))
            .collect::<String>()
            .to_ascii_lowercase();
        match text.as_str() {
            "$true" | "1" | "-not$false" | "!$false" => Some(true),
            "$false" | "0" | "$null" => Some(false),
            _ => None,
        }
    }

    fn paren_chain(&mut self) -> Result<Chain, ParseError> {
        self.skip_space(true);
        if self.peek() != Some('(') {
            return Err(self.err("expected `(`"));
        }
        self.i += 1;
        self.skip_space(true);
        let c = if self.peek() == Some(')') {
            Chain::default()
        } else {
            self.chain()?
        };
        self.skip_space(true);
        if self.peek() != Some(')') {
            return Err(self.err("a `(` is never closed"));
        }
        self.i += 1;
        Ok(c)
    }

    fn statement(&mut self) -> Result<Stmt, ParseError> {
        // A label (`:outer foreach …`).
        if self.peek() == Some(':') && self.peek_at(1).is_some_and(|c| c.is_alphabetic()) {
            self.i += 1;
            while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
                self.i += 1;
            }
            self.skip_space(false);
        }
        // Attributes before a param block or a function (`[CmdletBinding()]`).
        while self.peek() == Some('[') {
            let save = self.i;
            self.type_literal()?;
            self.skip_space(true);
            if self.peek() == Some('[')
                || matches!(self.keyword(), Some("param" | "function" | "filter"))
            {
                continue;
            }
            self.i = save;
            break;
        }
        if let Some(kw) = self.keyword() {
            return self.keyword_statement(kw);
        }
        let start = self.i;
        let chain = self.chain()?;
        // An assignment: one expression, then `=` / `+=` / …
        self.skip_space(false);
        if let Some((append, len)) = self.assign_op() {
            if let Some(target) = single_expr(&chain) {
                let offset = chain.pipelines.first().map_or(0, |p| p.offset);
                self.i += len;
                self.skip_space(true);
                let value = self.statement()?;
                return Ok(Stmt::Assign {
                    target,
                    append,
                    value: Box::new(value),
                    offset,
                });
            }
            self.i = start;
            return Err(self.err("cannot assign to this"));
        }
        Ok(Stmt::Chain(chain))
    }

    fn assign_op(&self) -> Option<(bool, usize)> {
        match (self.peek()?, self.peek_at(1)) {
            ('=', Some('=')) => None,
            ('=', _) => Some((false, 1)),
            ('+', Some('=')) => Some((true, 2)),
            ('-' | '*' | '/' | '%', Some('=')) => Some((false, 2)),
            ('?', Some('?')) if self.peek_at(2) == Some('=') => Some((false, 3)),
            _ => None,
        }
    }

    fn keyword_statement(&mut self, kw: &'static str) -> Result<Stmt, ParseError> {
        self.i += kw.len();
        match kw {
            "if" => {
                let mut conds = vec![];
                let c = self.paren_chain()?;
                let b = self.block()?;
                conds.push((c, b));
                let mut els = None;
                loop {
                    let save = self.i;
                    self.skip_space(true);
                    if self.eat_keyword("elseif") {
                        let c = self.paren_chain()?;
                        let b = self.block()?;
                        conds.push((c, b));
                    } else if self.eat_keyword("else") {
                        els = Some(self.block()?);
                        break;
                    } else {
                        self.i = save;
                        break;
                    }
                }
                Ok(Stmt::If { conds, els })
            }
            "foreach" => {
                self.skip_space(false);
                // `foreach -parallel (…)` (workflows)
                while self.peek().is_some_and(is_dash) {
                    self.bare_text();
                    self.skip_space(false);
                }
                if self.peek() != Some('(') {
                    return Err(self.err("expected `(` after foreach"));
                }
                self.i += 1;
                self.skip_space(true);
                let var = match self.primary()? {
                    Expr::Var(v) => v,
                    _ => return Err(self.err("expected a variable in foreach")),
                };
                self.skip_space(true);
                if !self.eat_keyword("in") {
                    return Err(self.err("expected `in`"));
                }
                self.skip_space(true);
                let items = self.chain()?;
                self.skip_space(true);
                if self.peek() != Some(')') {
                    return Err(self.err("a `(` is never closed"));
                }
                self.i += 1;
                let body = self.block()?;
                Ok(Stmt::Foreach { var, items, body })
            }
            "for" => {
                self.skip_space(false);
                if self.peek() != Some('(') {
                    return Err(self.err("expected `(` after for"));
                }
                self.i += 1;
                let mut heads = vec![];
                // `for (init; condition; step)`: no condition runs forever.
                let mut slot = 0;
                let mut condition = false;
                loop {
                    self.skip_space(true);
                    match self.peek() {
                        Some(')') => {
                            self.i += 1;
                            break;
                        }
                        Some(';') => {
                            self.i += 1;
                            slot += 1;
                        }
                        None => return Err(self.err("a `(` is never closed")),
                        _ => {
                            condition |= slot == 1;
                            heads.push(self.statement()?);
                        }
                    }
                }
                let body = self.block()?;
                Ok(Stmt::Loop {
                    heads,
                    body,
                    forever: !condition,
                })
            }
            "while" => {
                let start = self.i;
                let c = self.paren_chain()?;
                let forever = self.constant_condition(start) == Some(true);
                let body = self.block()?;
                Ok(Stmt::Loop {
                    heads: vec![Stmt::Chain(c)],
                    body,
                    forever,
                })
            }
            "do" => {
                let body = self.block()?;
                self.skip_space(true);
                let until = if self.eat_keyword("while") {
                    false
                } else if self.eat_keyword("until") {
                    true
                } else {
                    return Err(self.err("expected `while` or `until` after a do block"));
                };
                let start = self.i;
                let c = self.paren_chain()?;
                let forever = self.constant_condition(start) == Some(!until);
                Ok(Stmt::Loop {
                    heads: vec![Stmt::Chain(c)],
                    body,
                    forever,
                })
            }
            "switch" => {
                // switch [-regex|-wildcard|-exact|-casesensitive|-file] (…) { … }
                loop {
                    self.skip_space(false);
                    if self.peek().is_some_and(is_dash) {
                        let t = self.bare_text().to_ascii_lowercase();
                        if "-file".starts_with(&t) && t.len() > 1 {
                            self.skip_space(false);
                            let e = self.primary()?;
                            let subject = expr_chain(e, self.offset());
                            let arms = self.switch_arms()?;
                            return Ok(Stmt::Switch { subject, arms });
                        }
                        continue;
                    }
                    break;
                }
                let subject = self.paren_chain()?;
                let arms = self.switch_arms()?;
                Ok(Stmt::Switch { subject, arms })
            }
            "function" | "filter" | "workflow" | "configuration" => {
                self.skip_space(false);
                let name = self.bare_text();
                if name.is_empty() {
                    return Err(self.err("expected a function name"));
                }
                self.skip_space(true);
                let mut params = vec![];
                if self.peek() == Some('(') {
                    params = self.param_list()?;
                }
                let body = self.block()?;
                params.extend(declared_params(&body));
                Ok(Stmt::Function { name, params, body })
            }
            "try" | "finally" | "trap" | "begin" | "process" | "end" | "clean" | "dynamicparam"
            | "parallel" | "sequence" | "inlinescript" => {
                let mut blocks = vec![];
                if kw == "trap" {
                    self.skip_space(false);
                    if self.peek() == Some('[') {
                        self.type_literal()?;
                    }
                }
                blocks.push(self.block()?);
                if kw == "try" {
                    loop {
                        let save = self.i;
                        self.skip_space(true);
                        if self.eat_keyword("catch") {
                            loop {
                                self.skip_space(true);
                                if self.peek() == Some('[') {
                                    self.type_literal()?;
                                    self.skip_space(true);
                                    if self.peek() == Some(',') {
                                        self.i += 1;
                                    }
                                    continue;
                                }
                                break;
                            }
                            blocks.push(self.block()?);
                        } else if self.eat_keyword("finally") {
                            blocks.push(self.block()?);
                        } else {
                            self.i = save;
                            break;
                        }
                    }
                }
                Ok(Stmt::Blocks(blocks))
            }
            "data" => {
                self.skip_space(false);
                while self.peek().is_some_and(is_dash)
                    || self.peek().is_some_and(char::is_alphanumeric)
                {
                    self.bare_text();
                    self.skip_space(false);
                }
                Ok(Stmt::Blocks(vec![self.block()?]))
            }
            "param" => {
                self.skip_space(true);
                Ok(Stmt::Param(self.param_list()?))
            }
            "return" | "throw" | "exit" | "break" | "continue" => {
                self.skip_space(false);
                match self.peek() {
                    None | Some(';' | '}' | ')') => Ok(Stmt::Flow(None)),
                    Some(c) if is_newline(c) => Ok(Stmt::Flow(None)),
                    _ => Ok(Stmt::Flow(Some(self.chain()?))),
                }
            }
            "using" => {
                // `using namespace X` / `using module X`: nothing runs.
                while self.peek().is_some_and(|c| !is_newline(c) && c != ';') {
                    self.i += 1;
                }
                Ok(Stmt::Blocks(vec![]))
            }
            _ => Err(self.err(&format!("`{kw}` is not supported here"))),
        }
    }

    fn switch_arms(&mut self) -> Result<Vec<Vec<Stmt>>, ParseError> {
        self.skip_space(true);
        if self.peek() != Some('{') {
            return Err(self.err("expected `{` after switch"));
        }
        self.i += 1;
        let mut arms = vec![];
        loop {
            self.skip_space(true);
            match self.peek() {
                Some('}') => {
                    self.i += 1;
                    break;
                }
                Some(';') => self.i += 1,
                None => return Err(self.err("a switch is never closed")),
                Some('{') => arms.push(self.block()?),
                _ => {
                    // The condition: a value or a script block; then the action.
                    let cond = self.operand()?;
                    if let Expr::Block(b) = cond {
                        arms.push(b);
                    }
                    arms.push(self.block()?);
                }
            }
        }
        Ok(arms)
    }

    /// `( [attr] $a = default, $b )`: the names.
    fn param_list(&mut self) -> Result<Vec<String>, ParseError> {
        self.skip_space(true);
        if self.peek() != Some('(') {
            return Err(self.err("expected `(`"));
        }
        self.i += 1;
        let mut names = vec![];
        loop {
            self.skip_space(true);
            match self.peek() {
                Some(')') => {
                    self.i += 1;
                    break;
                }
                Some(',') => self.i += 1,
                Some('[') => {
                    self.type_literal()?;
                }
                Some('$') => {
                    if let Expr::Var(v) = self.primary()? {
                        names.push(v);
                    }
                    self.skip_space(true);
                    if self.peek() == Some('=') {
                        self.i += 1;
                        self.skip_space(true);
                        let _ = self.expression()?;
                    }
                }
                None => return Err(self.err("a parameter list is never closed")),
                _ => return Err(self.err("unexpected text in a parameter list")),
            }
        }
        Ok(names)
    }

    /// `[type]`, `[type[]]`, `[Parameter(Mandatory)]`: the text inside.
    fn type_literal(&mut self) -> Result<String, ParseError> {
        let start = self.i;
        let mut depth = 0usize;
        loop {
            match self.peek() {
                Some('[') => depth += 1,
                Some(']') => {
                    depth -= 1;
                    if depth == 0 {
                        self.i += 1;
                        break;
                    }
                }
                Some(q) if is_single_quote(q) || is_double_quote(q) => {
                    self.i += 1;
                    while self.peek().is_some_and(|c| c != q) {
                        self.i += 1;
                    }
                }
                None => return Err(self.err("a `[` is never closed")),
                _ => {}
            }
            self.i += 1;
        }
        Ok(self.s[start + 1..self.i - 1].iter().collect())
    }

    /// Pipelines joined by `&&` / `||`, with a trailing `&` (background job).
    fn chain(&mut self) -> Result<Chain, ParseError> {
        let mut c = Chain::default();
        loop {
            c.pipelines.push(self.pipeline()?);
            self.skip_space(false);
            match (self.peek(), self.peek_at(1)) {
                (Some('&'), Some('&')) | (Some('|'), Some('|')) => {
                    c.and_next.push(self.peek() == Some('&'));
                    self.i += 2;
                    self.skip_space(true);
                }
                (Some('&'), _) => {
                    // `… &`: a background job (PowerShell 7); it still runs.
                    self.i += 1;
                    return Ok(c);
                }
                _ => return Ok(c),
            }
        }
    }

    fn pipeline(&mut self) -> Result<Pipeline, ParseError> {
        self.skip_space(false);
        let offset = self.offset();
        let mut elems = vec![];
        loop {
            self.skip_space(false);
            elems.push(self.element()?);
            self.skip_space(false);
            if self.peek() == Some('|') && self.peek_at(1) != Some('|') {
                self.i += 1;
                self.skip_space(true);
                continue;
            }
            break;
        }
        Ok(Pipeline { elems, offset })
    }

    /// Does a command (rather than an expression) start here?
    fn command_starts(&self) -> bool {
        match self.peek() {
            Some('&') => self.peek_at(1) != Some('&'),
            Some('.') => {
                // `. script` (dot-source, a space after) or `.\x` / `./x` / `..\x`.
                !self.peek_at(1).is_some_and(|c| c.is_ascii_digit())
            }
            Some(c) if is_single_quote(c) || is_double_quote(c) => false,
            Some('$' | '(' | '@' | '[' | '{' | '!' | '+' | ',') => false,
            Some(c) if c.is_ascii_digit() => {
                // `7z x`, `2to3 …`: a word with letters is a command name.
                let mut k = self.i;
                while self
                    .s
                    .get(k)
                    .is_some_and(|c| c.is_ascii_digit() || *c == '.')
                {
                    k += 1;
                }
                self.s.get(k).is_some_and(|c| !ends_word(*c))
                    && !self.s.get(k).is_some_and(|c| {
                        matches!(
                            c,
                            'k' | 'K'
                                | 'm'
                                | 'M'
                                | 'g'
                                | 'G'
                                | 't'
                                | 'T'
                                | 'p'
                                | 'P'
                                | 'x'
                                | 'e'
                                | 'E'
                                | 'l'
                                | 'L'
                                | 'd'
                                | 'D'
                        )
                    })
            }
            Some(c) if is_dash(c) => {
                // `-not $x`, `-1`: an expression.
                false
            }
            Some(_) => true,
            None => false,
        }
    }

    fn element(&mut self) -> Result<Elem, ParseError> {
        if self.command_starts() {
            return Ok(Elem::Cmd(self.command()?));
        }
        let e = self.expression()?;
        let mut redirects = vec![];
        loop {
            self.skip_space(false);
            match self.redirection()? {
                Some(Some(r)) => redirects.push(r),
                Some(None) => {}
                None => break,
            }
        }
        Ok(Elem::Expr(e, redirects))
    }

    fn command(&mut self) -> Result<Command, ParseError> {
        let offset = self.offset();
        let mut invoke = Invoke::Plain;
        if self.peek() == Some('&') {
            invoke = Invoke::Call;
            self.i += 1;
            self.skip_space(false);
        } else if self.peek() == Some('.')
            && self.peek_at(1).is_some_and(|c| {
                // `. NAME`, and with nothing between: `.(EXPR)`, `.{ … }`,
                // `.$x`, `.'name'` (a path, `./x.ps1`, `..\x`, is a name)
                is_space(c)
                    || matches!(c, '(' | '{' | '$')
                    || is_single_quote(c)
                    || is_double_quote(c)
            })
        {
            invoke = Invoke::Dot;
            self.i += 1;
            self.skip_space(false);
        }
        let name = if invoke == Invoke::Plain {
            self.argument_word()?
        } else {
            match self.peek() {
                // `& $env:SystemRoot\System32\x.exe`: a variable with text
                // after it, no space between, is one word (a path), as in an
                // argument (about_Parsing, argument mode).
                Some('$') => {
                    let save = self.i;
                    let e = self.primary_postfix()?;
                    if self.peek().is_some_and(|c| !ends_word(c)) {
                        self.i = save;
                        self.argument_word()?
                    } else {
                        e
                    }
                }
                Some('{' | '(') => self.primary_postfix()?,
                Some(c) if is_single_quote(c) || is_double_quote(c) => self.primary_postfix()?,
                _ => self.argument_word()?,
            }
        };
        let mut args = vec![];
        let mut redirects = vec![];
        loop {
            self.skip_space(false);
            let Some(c) = self.peek() else { break };
            if is_newline(c) || matches!(c, ';' | '|' | ')' | '}') {
                break;
            }
            if c == '&' {
                break;
            }
            match self.redirection()? {
                Some(Some(r)) => {
                    redirects.push(r);
                    continue;
                }
                Some(None) => continue,
                None => {}
            }
            if c == '@'
                && self
                    .peek_at(1)
                    .is_some_and(|c| c.is_alphanumeric() || c == '_')
            {
                self.i += 1;
                let mut name = String::new();
                while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
                    name.push(c);
                    self.i += 1;
                }
                args.push(Arg::Splat(name.to_ascii_lowercase()));
                continue;
            }
            if is_dash(c) {
                // `--%`: the rest of the line goes to the program as written
                // (`about_Parsing`, "The stop-parsing token").
                if is_dash(self.peek_at(1).unwrap_or(' ')) && self.peek_at(2) == Some('%') {
                    self.i += 3;
                    let start = self.i;
                    while self.peek().is_some_and(|c| !is_newline(c) && c != '|') {
                        self.i += 1;
                    }
                    args.push(Arg::Verbatim(
                        self.s[start..self.i]
                            .iter()
                            .collect::<String>()
                            .trim()
                            .to_string(),
                    ));
                    continue;
                }
                if is_dash(self.peek_at(1).unwrap_or(' ')) && self.peek_at(2).is_none_or(ends_word)
                {
                    self.i += 2;
                    args.push(Arg::EndOfParams);
                    continue;
                }
                // `-Name` / `-Name:value` (a parameter begins with a dash and a
                // letter, `about_Parameters`).
                if self
                    .peek_at(1)
                    .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '?')
                {
                    let save = self.i;
                    self.i += 1;
                    let mut name = String::new();
                    while let Some(c) = self.peek().filter(|c| {
                        !ends_word(*c)
                            && *c != ':'
                            && !is_single_quote(*c)
                            && !is_double_quote(*c)
                            && *c != '$'
                    }) {
                        name.push(c);
                        self.i += 1;
                    }
                    if self.peek() == Some(':') {
                        self.i += 1;
                        self.skip_space(false);
                        let v = self.operand()?;
                        args.push(Arg::Param {
                            name,
                            value: Some(v),
                        });
                        continue;
                    }
                    if self.peek().is_none_or(ends_word) {
                        args.push(Arg::Param { name, value: None });
                        continue;
                    }
                    // `-foo"bar"`, `-x$y`: an argument, not a parameter.
                    self.i = save;
                }
            }
            args.push(Arg::Value(self.operand()?));
        }
        Ok(Command {
            invoke,
            name,
            args,
            redirects,
            offset,
        })
    }

    /// A redirection at the cursor: `Some(Some(r))` a file redirection,
    /// `Some(None)` a stream merge (`2>&1`), `None` none.
    fn redirection(&mut self) -> Result<Option<Option<Redir>>, ParseError> {
        let save = self.i;
        let mut fd = None;
        match self.peek() {
            Some(c @ '1'..='6') if self.peek_at(1) == Some('>') => {
                fd = c.to_digit(10);
                self.i += 1;
            }
            Some('*') if self.peek_at(1) == Some('>') => self.i += 1,
            Some('>' | '<') => {}
            _ => return Ok(None),
        }
        let op = match (self.peek(), self.peek_at(1)) {
            (Some('>'), Some('>')) => {
                self.i += 2;
                RedirectOp::Append
            }
            (Some('>'), Some('&')) => {
                // `2>&1`
                self.i += 2;
                while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                    self.i += 1;
                }
                return Ok(Some(None));
            }
            (Some('>'), _) => {
                self.i += 1;
                RedirectOp::Write
            }
            (Some('<'), _) => {
                // `<` is reserved in PowerShell: a parse error there.
                self.i = save;
                return Err(self.err("the `<` operator is reserved"));
            }
            _ => {
                self.i = save;
                return Ok(None);
            }
        };
        self.skip_space(false);
        let target = self.operand()?;
        Ok(Some(Some(Redir { op, fd, target })))
    }

    /// One argument in argument mode: a word, a quoted string, a variable, a
    /// sub-expression, an array literal (`a,b`), a script block, a hashtable.
    fn operand(&mut self) -> Result<Expr, ParseError> {
        let first = self.operand_one()?;
        self.skip_space(false);
        if self.peek() == Some(',') {
            let mut items = vec![first];
            while self.peek() == Some(',') {
                self.i += 1;
                self.skip_space(true);
                items.push(self.operand_one()?);
                self.skip_space(false);
            }
            return Ok(Expr::Array(items));
        }
        Ok(first)
    }

    fn operand_one(&mut self) -> Result<Expr, ParseError> {
        match self.peek() {
            Some('(' | '{') => self.primary_postfix(),
            Some('@') if matches!(self.peek_at(1), Some('(' | '{')) => self.primary_postfix(),
            Some('@')
                if self
                    .peek_at(1)
                    .is_some_and(|c| is_single_quote(c) || is_double_quote(c)) =>
            {
                self.primary_postfix()
            }
            Some('$') => {
                // `$x`, `$x.Prop` and `$(…)` glued to more text are one word (`$HOME\x`).
                let start = self.i;
                let e = self.primary_postfix()?;
                if self.peek().is_some_and(|c| !ends_word(c)) {
                    self.i = start;
                    return self.argument_word();
                }
                Ok(e)
            }
            Some(c) if is_single_quote(c) || is_double_quote(c) => {
                let start = self.i;
                let e = self.primary()?;
                if self.peek().is_some_and(|c| !ends_word(c)) {
                    self.i = start;
                    return self.argument_word();
                }
                Ok(e)
            }
            Some(_) => self.argument_word(),
            None => Err(self.err("expected an argument")),
        }
    }

    /// A bare word in argument mode, with quoted parts and variables inside
    /// (`C:\Users\$env:USERNAME\*`, `a"b c"d`).
    fn argument_word(&mut self) -> Result<Expr, ParseError> {
        let mut parts: Vec<Part> = vec![];
        let mut text = String::new();
        let start = self.i;
        while let Some(c) = self.peek() {
            if ends_word(c) {
                break;
            }
            if c == '`' {
                // An escape: the next character is literal (`n` and co. are
                // control characters, `about_Special_Characters`).
                match self.peek_at(1) {
                    Some(n) if is_newline(n) => break,
                    Some(n) => {
                        text.push(escaped(n));
                        self.i += 2;
                        continue;
                    }
                    None => {
                        self.i += 1;
                        continue;
                    }
                }
            }
            if is_single_quote(c) || is_double_quote(c) {
                flush(&mut parts, &mut text, false);
                match self.primary()? {
                    Expr::Word(ps) => parts.extend(ps),
                    _ => return Err(self.err("unexpected string")),
                }
                continue;
            }
            if c == '$' {
                flush(&mut parts, &mut text, false);
                match self.dollar()? {
                    Some(p) => parts.push(p),
                    None => text.push('$'),
                }
                continue;
            }
            text.push(c);
            self.i += 1;
        }
        flush(&mut parts, &mut text, false);
        if self.i == start {
            return Err(self.err("expected a word"));
        }
        Ok(Expr::Word(parts))
    }

    /// Text of a bare word, no expansion (names, switch options).
    fn bare_text(&mut self) -> String {
        let mut t = String::new();
        while let Some(c) = self.peek().filter(|c| !ends_word(*c)) {
            t.push(c);
            self.i += 1;
        }
        t
    }

    /// `$name`, `${name}`, `$env:X`, `$(…)`, `$_`, `$?`, `$$`, `$^`: a part
    /// of a word or string (`None`: a lone `$`, which is literal).
    fn dollar(&mut self) -> Result<Option<Part>, ParseError> {
        debug_assert_eq!(self.peek(), Some('$'));
        match self.peek_at(1) {
            Some('(') => {
                self.i += 2;
                let body = self.statements(&[')'])?;
                if self.peek() != Some(')') {
                    return Err(self.err("a `$(` is never closed"));
                }
                self.i += 1;
                Ok(Some(Part::Sub(body)))
            }
            Some('{') => {
                self.i += 2;
                let mut name = String::new();
                loop {
                    match self.peek() {
                        Some('}') => {
                            self.i += 1;
                            break;
                        }
                        Some('`') => {
                            if let Some(n) = self.peek_at(1) {
                                name.push(n);
                            }
                            self.i += 2;
                        }
                        Some(c) => {
                            name.push(c);
                            self.i += 1;
                        }
                        None => return Err(self.err("a `${` is never closed")),
                    }
                }
                // A file's path (`${C:\Users\Me\notes.txt}`) keeps its case: the
                // file system may tell case apart; a variable's name does not.
                if name.contains(['\\', '/']) {
                    return Ok(Some(Part::Var(name)));
                }
                Ok(Some(Part::Var(name.to_ascii_lowercase())))
            }
            Some('$' | '?' | '^' | '_') => {
                let c = self.peek_at(1).unwrap_or('_');
                self.i += 2;
                if c == '_' {
                    let mut name = String::from("_");
                    while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
                        name.push(c);
                        self.i += 1;
                    }
                    return Ok(Some(Part::Var(name.to_ascii_lowercase())));
                }
                Ok(Some(Part::Var(c.to_string())))
            }
            Some(c) if c.is_alphanumeric() => {
                self.i += 1;
                let mut name = String::new();
                while let Some(c) = self.peek() {
                    if c == ':' {
                        // `$env:X`, `$script:x`; a drive-like `$x:` then a
                        // name; `$x::` is a static member, not part of the name.
                        if self
                            .peek_at(1)
                            .is_some_and(|n| n.is_alphanumeric() || n == '_')
                            && !name.contains(':')
                        {
                            name.push(c);
                            self.i += 1;
                            continue;
                        }
                        break;
                    }
                    if !is_var_char(c) || c == '?' {
                        break;
                    }
                    name.push(c);
                    self.i += 1;
                }
                Ok(Some(Part::Var(name.to_ascii_lowercase())))
            }
            _ => {
                self.i += 1;
                Ok(None)
            }
        }
    }

    /// A full expression (expression mode): binary operators, ranges, arrays.
    fn expression(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut left = self.unary()?;
        loop {
            self.skip_space(false);
            let Some(op) = self.binary_op() else { break };
            self.i += op.1;
            self.skip_space(true);
            let right = self.unary()?;
            left = Expr::Binary(op.0, Box::new(left), Box::new(right));
        }
        self.depth -= 1;
        Ok(left)
    }

    /// The binary operator at the cursor (its lowercase name and length).
    fn binary_op(&self) -> Option<(String, usize)> {
        let c = self.peek()?;
        if c == ',' {
            return Some((",".into(), 1));
        }
        if matches!(c, '+' | '*' | '/' | '%') && self.peek_at(1) != Some('=') {
            if c == '+' && self.peek_at(1) == Some('+') {
                return None;
            }
            return Some((c.to_string(), 1));
        }
        if c == '.' && self.peek_at(1) == Some('.') {
            return Some(("..".into(), 2));
        }
        if c == '?' && self.peek_at(1) == Some('?') && self.peek_at(2) != Some('=') {
            return Some(("??".into(), 2));
        }
        if is_dash(c) {
            let mut k = self.i + 1;
            let mut name = String::new();
            while let Some(ch) = self.s.get(k).filter(|c| c.is_ascii_alphabetic()) {
                name.push(ch.to_ascii_lowercase());
                k += 1;
            }
            if name.is_empty() {
                if self.peek_at(1) != Some('=') && self.peek_at(1) != Some('-') {
                    return Some(("-".into(), 1));
                }
                return None;
            }
            // Only PowerShell's operators: `$x -rf ~` is a parse error
            // ("Unexpected token '-rf'"), not an expression.
            if !is_binary_operator(&name) {
                return None;
            }
            return Some((name, k - self.i));
        }
        None
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.skip_space(false);
        match self.peek() {
            Some('!') => {
                self.i += 1;
                let e = self.unary()?;
                Ok(Expr::Unary("!".into(), Box::new(e)))
            }
            Some(',') => {
                self.i += 1;
                let e = self.unary()?;
                Ok(Expr::Array(vec![e]))
            }
            Some('+' | '-')
                if matches!(self.peek_at(1), Some('+' | '-')) && self.peek_at(1) == self.peek() =>
            {
                self.i += 2;
                let e = self.unary()?;
                Ok(Expr::Unary("++".into(), Box::new(e)))
            }
            Some(c) if is_dash(c) => {
                // `-not x`, `-join x`, `-split x`, `-bnot x`, `-1`.
                let mut k = self.i + 1;
                let mut name = String::new();
                while let Some(ch) = self.s.get(k).filter(|c| c.is_ascii_alphabetic()) {
                    name.push(ch.to_ascii_lowercase());
                    k += 1;
                }
                self.i = k;
                let e = self.unary()?;
                Ok(Expr::Unary(
                    if name.is_empty() { "-".into() } else { name },
                    Box::new(e),
                ))
            }
            Some('[') => {
                // A cast (`[int]$x`) or a type used on its own (`[IO.File]::…`).
                let save = self.i;
                let t = self.type_literal()?;
                if matches!(self.peek(), Some(':')) && self.peek_at(1) == Some(':') {
                    self.i = save;
                    return self.primary_postfix();
                }
                if matches!(self.peek(), Some('.') | Some('[')) {
                    self.i = save;
                    return self.primary_postfix();
                }
                let at = self.i;
                self.skip_space(false);
                match self.peek() {
                    Some('$' | '(' | '@' | '[' | '\'' | '"') => {
                        let e = self.unary()?;
                        Ok(Expr::Unary(format!("[{t}]"), Box::new(e)))
                    }
                    Some(c) if c.is_ascii_digit() || is_single_quote(c) || is_double_quote(c) => {
                        let e = self.unary()?;
                        Ok(Expr::Unary(format!("[{t}]"), Box::new(e)))
                    }
                    _ => {
                        self.i = at;
                        Ok(Expr::Type(t))
                    }
                }
            }
            _ => self.primary_postfix(),
        }
    }

    /// A primary with member accesses, calls and indexes after it.
    fn primary_postfix(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.primary()?;
        loop {
            match (self.peek(), self.peek_at(1)) {
                (Some('.'), Some(c))
                    if c.is_alphabetic()
                        || c == '_'
                        || c == '$'
                        || is_single_quote(c)
                        || is_double_quote(c) =>
                {
                    self.i += 1;
                    e = self.member(e)?;
                }
                (Some('?'), Some('.')) => {
                    self.i += 2;
                    e = self.member(e)?;
                }
                (Some(':'), Some(':')) => {
                    self.i += 2;
                    e = self.member(e)?;
                }
                (Some('+'), Some('+')) | (Some('-'), Some('-'))
                    if !self
                        .peek_at(2)
                        .is_some_and(|c| c.is_alphanumeric() || c == '$') =>
                {
                    // `$i++`, `$i--`.
                    self.i += 2;
                    e = Expr::Unary("++".into(), Box::new(e));
                }
                (Some('['), _) => {
                    self.i += 1;
                    self.skip_space(true);
                    let idx = self.expression()?;
                    self.skip_space(true);
                    if self.peek() != Some(']') {
                        return Err(self.err("a `[` is never closed"));
                    }
                    self.i += 1;
                    e = Expr::Index(Box::new(e), Box::new(idx));
                }
                _ => return Ok(e),
            }
        }
    }

    fn member(&mut self, target: Expr) -> Result<Expr, ParseError> {
        let name = match self.peek() {
            Some('$') => match self.primary()? {
                Expr::Var(v) => format!("${v}"),
                _ => "$".into(),
            },
            Some(c) if is_single_quote(c) || is_double_quote(c) => match self.primary()? {
                Expr::Word(ps) => word_text(&ps).unwrap_or_default(),
                _ => String::new(),
            },
            _ => {
                let mut n = String::new();
                while let Some(c) = self.peek().filter(|c| c.is_alphanumeric() || *c == '_') {
                    n.push(c);
                    self.i += 1;
                }
                n
            }
        };
        let args = if self.peek() == Some('(') {
            self.i += 1;
            let mut args = vec![];
            loop {
                self.skip_space(true);
                match self.peek() {
                    Some(')') => {
                        self.i += 1;
                        break;
                    }
                    Some(',') => self.i += 1,
                    None => return Err(self.err("a `(` is never closed")),
                    _ => {
                        // Arguments are separated by commas: parse each without `,`.
                        let a = self.unary_chain()?;
                        args.push(a);
                    }
                }
            }
            Some(args)
        } else {
            None
        };
        Ok(Expr::Member {
            target: Box::new(target),
            name,
            args,
        })
    }

    /// An expression without top-level commas (a method argument).
    fn unary_chain(&mut self) -> Result<Expr, ParseError> {
        let mut left = self.unary()?;
        loop {
            self.skip_space(true);
            match self.binary_op() {
                Some((op, len)) if op != "," => {
                    self.i += len;
                    self.skip_space(true);
                    let right = self.unary()?;
                    left = Expr::Binary(op, Box::new(left), Box::new(right));
                }
                _ => return Ok(left),
            }
        }
    }

    fn primary(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = self.primary_inner();
        self.depth -= 1;
        r
    }

    fn primary_inner(&mut self) -> Result<Expr, ParseError> {
        let Some(c) = self.peek() else {
            return Err(self.err("expected a value"));
        };
        if is_single_quote(c) {
            self.i += 1;
            let mut t = String::new();
            loop {
                match self.peek() {
                    Some(q) if is_single_quote(q) => {
                        if self.peek_at(1).is_some_and(is_single_quote) {
                            t.push('\'');
                            self.i += 2;
                        } else {
                            self.i += 1;
                            break;
                        }
                    }
                    Some(ch) => {
                        t.push(ch);
                        self.i += 1;
                    }
                    None => return Err(self.err("a `'` is never closed")),
                }
            }
            return Ok(Expr::Word(vec![Part::Text {
                text: t,
                quoted: true,
            }]));
        }
        if is_double_quote(c) {
            self.i += 1;
            return self.expandable(false);
        }
        match c {
            '@' => match self.peek_at(1) {
                Some('(') => {
                    self.i += 2;
                    let body = self.statements(&[')'])?;
                    if self.peek() != Some(')') {
                        return Err(self.err("a `@(` is never closed"));
                    }
                    self.i += 1;
                    Ok(Expr::Sub(body))
                }
                Some('{') => {
                    self.i += 2;
                    self.hashtable()
                }
                Some(q) if is_single_quote(q) || is_double_quote(q) => self.here_string(),
                _ => Err(self.err("unexpected `@`")),
            },
            '$' => match self.dollar()? {
                Some(Part::Var(v)) => Ok(Expr::Var(v)),
                Some(Part::Sub(b)) => Ok(Expr::Sub(b)),
                _ => Ok(Expr::Word(vec![Part::Text {
                    text: "$".into(),
                    quoted: false,
                }])),
            },
            '(' => {
                self.i += 1;
                self.skip_space(true);
                if self.peek() == Some(')') {
                    self.i += 1;
                    return Ok(Expr::Sub(vec![]));
                }
                let st = self.statement()?;
                self.skip_space(true);
                if self.peek() != Some(')') {
                    return Err(self.err("a `(` is never closed"));
                }
                self.i += 1;
                Ok(Expr::Paren(Box::new(st)))
            }
            '{' => Ok(Expr::Block(self.block()?)),
            '[' => Ok(Expr::Type(self.type_literal()?)),
            c if c.is_ascii_digit()
                || (c == '.' && self.peek_at(1).is_some_and(|d| d.is_ascii_digit())) =>
            {
                let mut t = String::new();
                while let Some(ch) = self.peek().filter(|c| {
                    c.is_ascii_alphanumeric() || *c == '.' && self.peek_at(1) != Some('.')
                }) {
                    t.push(ch);
                    self.i += 1;
                }
                Ok(Expr::Num(t))
            }
            _ => {
                // A bare word in expression mode (a method name, `$true`-less
                // literals such as a hashtable key): read as a word.
                let t = self.bare_name();
                if t.is_empty() {
                    return Err(self.err("unexpected character"));
                }
                Ok(Expr::Word(vec![Part::Text {
                    text: t,
                    quoted: false,
                }]))
            }
        }
    }

    fn bare_name(&mut self) -> String {
        let mut t = String::new();
        while let Some(c) = self.peek().filter(|c| {
            c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '\\' | '/' | ':' | '~' | '*' | '?')
        }) {
            t.push(c);
            self.i += 1;
        }
        t
    }

    /// The rest of a `"…"` string (or a here-string body when `here`).
    fn expandable(&mut self, here: bool) -> Result<Expr, ParseError> {
        let mut parts = vec![];
        let mut text = String::new();
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("a `\"` is never closed"));
            };
            if here {
                if is_newline(c) && self.here_end(self.i + 1, '"') {
                    self.i += 1;
                    if self.peek() == Some('\n') && c == '\r' {
                        self.i += 1;
                    }
                    self.i += 2;
                    break;
                }
            } else if is_double_quote(c) {
                if self.peek_at(1).is_some_and(is_double_quote) {
                    text.push('"');
                    self.i += 2;
                    continue;
                }
                self.i += 1;
                break;
            }
            match c {
                '`' => {
                    if let Some(n) = self.peek_at(1) {
                        text.push(escaped(n));
                    }
                    self.i += 2;
                }
                '$' => {
                    flush(&mut parts, &mut text, true);
                    match self.dollar()? {
                        Some(p) => parts.push(p),
                        None => text.push('$'),
                    }
                }
                _ => {
                    text.push(c);
                    self.i += 1;
                }
            }
        }
        flush(&mut parts, &mut text, true);
        if parts.is_empty() {
            parts.push(Part::Text {
                text: String::new(),
                quoted: true,
            });
        }
        Ok(Expr::Word(parts))
    }

    /// Does a here-string end at `k` (`"@` / `'@` at the start of a line)?
    fn here_end(&self, k: usize, q: char) -> bool {
        let mut k = k;
        if self.s.get(k) == Some(&'\n') {
            k += 1;
        }
        self.s.get(k).is_some_and(|c| {
            if q == '"' {
                is_double_quote(*c)
            } else {
                is_single_quote(*c)
            }
        }) && self.s.get(k + 1) == Some(&'@')
    }

    /// `@"…"@` / `@'…'@` (`about_Quoting_Rules`: the opening quote ends its
    /// line, the closing one starts a line).
    fn here_string(&mut self) -> Result<Expr, ParseError> {
        let q = self.peek_at(1).unwrap_or('"');
        self.i += 2;
        while self.peek().is_some_and(is_space) {
            self.i += 1;
        }
        match self.peek() {
            Some('\r') => {
                self.i += 1;
                if self.peek() == Some('\n') {
                    self.i += 1;
                }
            }
            Some('\n') => self.i += 1,
            _ => return Err(self.err("a here-string's opening quote must end its line")),
        }
        if is_double_quote(q) {
            if self.here_end(self.i, '"') {
                self.i += 2;
                return Ok(Expr::Word(vec![Part::Text {
                    text: String::new(),
                    quoted: true,
                }]));
            }
            return self.expandable(true);
        }
        let mut t = String::new();
        if self.here_end(self.i, '\'') {
            self.i += 2;
            return Ok(Expr::Word(vec![Part::Text {
                text: t,
                quoted: true,
            }]));
        }
        loop {
            let Some(c) = self.peek() else {
                return Err(self.err("a here-string is never closed"));
            };
            if is_newline(c) && self.here_end(self.i + 1, '\'') {
                self.i += 1;
                if self.peek() == Some('\n') && c == '\r' {
                    self.i += 1;
                }
                self.i += 2;
                break;
            }
            t.push(c);
            self.i += 1;
        }
        Ok(Expr::Word(vec![Part::Text {
            text: t,
            quoted: true,
        }]))
    }

    /// The rest of `@{ key = value; … }`.
    fn hashtable(&mut self) -> Result<Expr, ParseError> {
        let mut entries = vec![];
        loop {
            self.skip_space(true);
            match self.peek() {
                Some('}') => {
                    self.i += 1;
                    break;
                }
                Some(';') => self.i += 1,
                None => return Err(self.err("a `@{` is never closed")),
                _ => {
                    let key = match self.peek() {
                        Some(c) if is_single_quote(c) || is_double_quote(c) => {
                            match self.primary()? {
                                Expr::Word(ps) => word_text(&ps).unwrap_or_default(),
                                _ => String::new(),
                            }
                        }
                        _ => {
                            let mut k = String::new();
                            while let Some(c) = self
                                .peek()
                                .filter(|c| !is_space(*c) && *c != '=' && !is_newline(*c))
                            {
                                k.push(c);
                                self.i += 1;
                            }
                            k
                        }
                    };
                    self.skip_space(false);
                    if self.peek() != Some('=') {
                        return Err(self.err("expected `=` in a hashtable"));
                    }
                    self.i += 1;
                    self.skip_space(true);
                    let v = match self.statement()? {
                        Stmt::Chain(c) => {
                            single_expr(&c).unwrap_or(Expr::Paren(Box::new(Stmt::Chain(c))))
                        }
                        other => Expr::Paren(Box::new(other)),
                    };
                    entries.push((key, v));
                }
            }
        }
        Ok(Expr::Hash(entries))
    }
}

fn kw_static(kw: &str) -> &'static str {
    KEYWORDS.iter().find(|k| **k == kw).copied().unwrap_or("")
}

fn flush(parts: &mut Vec<Part>, text: &mut String, quoted: bool) {
    if !text.is_empty() {
        parts.push(Part::Text {
            text: std::mem::take(text),
            quoted,
        });
    }
}

/// What a backtick escape stands for (`about_Special_Characters`).
fn escaped(c: char) -> char {
    match c {
        '0' => '\0',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'e' => '\u{1B}',
        'f' => '\u{C}',
        'n' => '\n',
        'r' => '\r',
        't' => '\t',
        'v' => '\u{B}',
        c => c,
    }
}

/// The literal text of word parts, if every part is text.
pub(super) fn word_text(parts: &[Part]) -> Option<String> {
    let mut s = String::new();
    for p in parts {
        match p {
            Part::Text { text, .. } => s.push_str(text),
            _ => return None,
        }
    }
    Some(s)
}

/// The expression of a chain that is one pipeline of one expression.
/// Where the script's top-level statements that are not commands start
/// (byte offsets): assignments (`$x = …`, `$env:X = …`) and pipelines led by
/// an expression (`$p | ConvertTo-Json`, `$files.Count`); and where its
/// top-level commands named by a plain word start, with that word
/// (`Test-Path` of `Test-Path .env`).
pub(super) fn statement_starts(stmts: &[Stmt]) -> (Vec<usize>, Vec<(usize, String)>) {
    let (mut exprs, mut named) = (vec![], vec![]);
    for s in stmts {
        match s {
            Stmt::Assign { offset, .. } => exprs.push(*offset),
            Stmt::Chain(c) => {
                for p in &c.pipelines {
                    if matches!(p.elems.first(), Some(Elem::Expr(..))) {
                        exprs.push(p.offset);
                    }
                    for e in &p.elems {
                        if let Elem::Cmd(Command {
                            invoke: Invoke::Plain,
                            name: Expr::Word(parts),
                            offset,
                            ..
                        }) = e
                        {
                            if let [Part::Text { text, .. }] = parts.as_slice() {
                                named.push((*offset, text.clone()));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (exprs, named)
}

/// PowerShell's binary operators written `-name` (about_Operators,
/// about_Comparison_Operators, about_Logical_Operators, about_Arithmetic_Operators,
/// about_Split, about_Join, about_Type_Operators, about_Format): the comparison
/// ones also with a `c` (case-sensitive) or `i` prefix.
fn is_binary_operator(name: &str) -> bool {
    const OTHER: &[&str] = &[
        "and", "or", "xor", "band", "bor", "bxor", "shl", "shr", "join", "is", "isnot", "as", "f",
    ];
    comparison_operator(name).is_some() || OTHER.contains(&name)
}

/// A comparison operator's name without its case prefix (`ilike` and
/// `clike` are `like`); `None` for any other name.
pub(super) fn comparison_operator(name: &str) -> Option<&'static str> {
    const COMPARISON: &[&str] = &[
        "eq",
        "ne",
        "gt",
        "ge",
        "lt",
        "le",
        "like",
        "notlike",
        "match",
        "notmatch",
        "contains",
        "notcontains",
        "in",
        "notin",
        "replace",
        "split",
    ];
    let find = |o: &str| COMPARISON.iter().copied().find(|k| *k == o);
    find(name).or_else(|| {
        name.strip_prefix('c')
            .or_else(|| name.strip_prefix('i'))
            .and_then(find)
    })
}

fn single_expr(c: &Chain) -> Option<Expr> {
    match c.pipelines.as_slice() {
        [p] => match p.elems.as_slice() {
            [Elem::Expr(e, r)] if r.is_empty() => Some(e.clone()),
            [Elem::Cmd(cmd)]
                if cmd.args.is_empty()
                    && cmd.invoke == Invoke::Plain
                    && cmd.redirects.is_empty() =>
            {
                Some(cmd.name.clone())
            }
            _ => None,
        },
        _ => None,
    }
}

fn expr_chain(e: Expr, offset: usize) -> Chain {
    Chain {
        pipelines: vec![Pipeline {
            elems: vec![Elem::Expr(e, vec![])],
            offset,
        }],
        and_next: vec![],
    }
}

/// Parameters a body declares with `param(…)`.
pub(super) fn declared_params(body: &[Stmt]) -> Vec<String> {
    body.iter()
        .find_map(|s| match s {
            Stmt::Param(names) => Some(names.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Vec<Stmt> {
        parse(s).unwrap_or_else(|e| panic!("{s:?}: {e}"))
    }

    #[test]
    fn parses_what_agents_write() {
        for s in [
            "Remove-Item -Recurse -Force ~",
            "Get-ChildItem -Path . -Filter *.rs | Select-Object -First 5",
            "irm https://x/y | iex",
            "iex (irm https://x/y)",
            "& { Remove-Item -Recurse ~ }",
            ". .\\setup.ps1",
            "cmd /c \"rd /s /q C:\\\"",
            "$p = @{Path='~'; Recurse=$true}; Remove-Item @p",
            "if (Test-Path build) { Remove-Item build -Recurse -Force }",
            "foreach ($d in 'a','b') { Remove-Item $d }",
            "Get-Process | Where-Object { $_.CPU -gt 100 } | Stop-Process",
            "(Get-Content x.txt) -replace 'a','b' | Set-Content x.txt",
            "[IO.Directory]::Delete('C:\\x', $true)",
            "$env:PATH -split ';'",
            "Write-Host \"Home is $HOME and $(Get-Date)\"",
            "git commit -m \"fix: a `\"quoted`\" word\"",
            "dotnet build && dotnet test",
            "npm ci; npm test 2>&1 | Out-File log.txt",
            "function Clean { param($p) Remove-Item $p -Recurse }; Clean ~",
            "[CmdletBinding()]\nparam([Parameter(Mandatory)][string]$Name, [switch]$Force)\nWrite-Host $Name",
            "$i = 0; while ($i -lt 3) { $i++ }",
            "[int]$n = '5'; $n * 2",
            "$content = Get-Content -Path 'src/app.ts' -Raw; $content -replace 'foo', 'bar' | Set-Content -Path 'src/app.ts' -NoNewline",
            "Get-Content package.json | ConvertFrom-Json | ForEach-Object { $_.dependencies.PSObject.Properties.Name }",
            "if ($LASTEXITCODE -ne 0) { exit 1 }",
            "$env:DEBUG='*'; npm start",
            "Get-ChildItem -Recurse -File | Where-Object { $_.Extension -in '.ts', '.tsx' } | Measure-Object -Line",
            "@('a','b') | ForEach-Object { Write-Host $_ }",
            "(Get-Item .).FullName",
            "Write-Host ('{0} files' -f $count)",
            "$x = @{ a = 1; b = @(1,2) }; $x.a",
            "$arr = @(); $arr += 'x'",
            "Set-Location -Path (Split-Path -Parent $MyInvocation.MyCommand.Path)",
            "& 'C:\\Program Files\\Git\\bin\\bash.exe' -c 'ls'",
            "Start-Process -FilePath npm -ArgumentList 'run','dev' -NoNewWindow",
            "[System.IO.File]::Exists('x')",
            "$ErrorActionPreference = 'Stop'",
            "${env:ProgramFiles(x86)}",
            "\"$($env:USERNAME)@$(hostname)\"",
            "Invoke-WebRequest -Uri https://x -Headers @{ Authorization = \"Bearer $token\" }",
            "git log --format='%H %s' -n 5",
            "npx tsc --noEmit 2>&1 | Select-String error",
            "dotnet test --no-build -v q; if (-not $?) { throw 'tests failed' }",
            "$json | ConvertTo-Json -Depth 5 | Out-File -FilePath out.json -Encoding utf8",
            "$files = @(Get-ChildItem *.md); Write-Host \"Found $($files.Count) files\"",
            "gci -r -fi *.json | ? { $_.Length -lt 1kb }",
            "[void](New-Item -ItemType Directory -Path x -Force)",
            "$list = [System.Collections.Generic.List[string]]::new(); $list.Add('a')",
            "'a','b' -join ','",
            "$x ?? 'default'",
            "$obj.Items[0].Name",
            "Write-Host -ForegroundColor Green OK",
            "python -c 'import sys; print(sys.version)'",
            "git diff --name-only HEAD~1 | ForEach-Object { Write-Host \"changed: $_\" }",
            "exit $LASTEXITCODE",
            "try { Remove-Item x } catch { Write-Error $_ } finally { 'done' }",
            "Remove-Item `\n  -Recurse ~",
            "icacls --% /grant x:F; rm -r ~",
            "@'\nRemove-Item ~\n'@ | Out-File x.ps1",
            "$x = 1..10 | ForEach-Object { $_ * 2 }",
            "Start-Process pwsh -ArgumentList '-c','Remove-Item ~ -r' -Wait",
            "switch ($x) { 'a' { rm a } default { rm b } }",
            "<# comment #> Get-Date # trailing",
            "$null = New-Item -ItemType Directory -Force -Path out",
            "Get-ChildItem -Recurse | ? { $_.Length -gt 1MB } | % FullName",
        ] {
            ok(s);
        }
    }

    #[test]
    fn dashes_and_quotes_as_powershell_reads_them() {
        let st = ok("Remove-Item \u{2013}Recurse \u{201C}~\u{201D}");
        let Stmt::Chain(c) = &st[0] else { panic!() };
        let Elem::Cmd(cmd) = &c.pipelines[0].elems[0] else {
            panic!()
        };
        assert!(matches!(&cmd.args[0], Arg::Param { name, .. } if name == "Recurse"));
    }

    #[test]
    fn refuses_what_it_cannot_read() {
        for s in [
            "\"open",
            "Remove-Item (",
            "@{ a = 1",
            "$(",
            "if ($x) {",
            "a < b",
        ] {
            assert!(parse(s).is_err(), "{s:?}");
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let s = "(".repeat(10_000);
        assert!(parse(&s).is_err());
        let s = "{".repeat(10_000);
        assert!(parse(&s).is_err());
    }
}
