//! The lexer: tokens, words with their parts, here-documents and the scripts
//! nested in words (`$( )`, backquotes, `<( )`, `${ }`), parsed in place.

use std::mem;

use super::syntax::{
    parse_script_as, Heredoc, Param, ParamOp, Parser, Part, Pending, RawRedir, RedirKind, Sub,
    SubKind, Word,
};
use super::{perr, unclosed_quote, ParseError, RedirectOp};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
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
    pub(super) fn symbol(self) -> &'static str {
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
pub(super) enum ROp {
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
pub(super) enum Tok {
    Word(Word),
    Op(Op, usize),
    Redir(ROp, Option<u32>, usize),
    Newline(usize),
    Eof(usize),
}

impl Tok {
    pub(super) fn offset(&self) -> usize {
        match self {
            Tok::Word(w) => w.offset,
            Tok::Op(_, o) | Tok::Redir(_, _, o) | Tok::Newline(o) | Tok::Eof(o) => *o,
        }
    }

    pub(super) fn describe(&self) -> String {
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

pub(super) fn lossy(bytes: Vec<u8>) -> String {
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

fn is_name_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_'
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// A word being lexed: its quote-removed text, its parts, its substitutions.
#[derive(Default)]
pub(super) struct WordBuf {
    text: Vec<u8>,
    parts: Vec<Part>,
    subs: Vec<Sub>,
    /// Literal bytes not yet turned into a `Part::Lit` (and whether quoted).
    lit: Vec<u8>,
    lit_quoted: bool,
}

impl WordBuf {
    /// Literal text, also added to the word's text.
    fn lit(&mut self, bytes: &[u8], quoted: bool) {
        self.text.extend_from_slice(bytes);
        if bytes.is_empty() {
            return;
        }
        if quoted != self.lit_quoted {
            self.flush();
            self.lit_quoted = quoted;
        }
        self.lit.extend_from_slice(bytes);
    }

    /// A non-literal part (its text is added separately).
    fn part(&mut self, p: Part) {
        self.flush();
        self.parts.push(p);
    }

    fn flush(&mut self) {
        if !self.lit.is_empty() {
            let text = lossy(mem::take(&mut self.lit));
            self.parts.push(Part::Lit {
                text,
                quoted: self.lit_quoted,
            });
        }
    }

    /// Finish the current parts and take them (text and substitutions stay).
    fn take_parts(&mut self) -> Vec<Part> {
        self.flush();
        mem::take(&mut self.parts)
    }
}

impl Parser<'_> {
    pub(super) fn parse_redirect(&mut self) -> Result<RawRedir, ParseError> {
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

    pub(super) fn lex(&mut self) -> Result<Tok, ParseError> {
        self.skip_blank();
        let at = self.pos;
        let Some(c) = self.byte(at) else {
            // A here-document whose body never started: bash and dash take
            // an empty body (with a warning) and run the line.
            self.read_heredocs()?;
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
                    // No delimiter line: bash and dash end the body at the end
                    // of the input (with a warning) and run it.
                    break self.end.max(body_start);
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
                    expand: p.expand,
                };
            }
        }
        Ok(())
    }

    /// Find the `))` closing an arithmetic expression whose body starts at
    /// `from`, by paren counting. `None` if it does not close that way.
    pub(super) fn arith_end(&self, from: usize) -> Option<usize> {
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
    pub(super) fn scan_region(
        &mut self,
        from: usize,
        to: usize,
        at: usize,
    ) -> Result<Vec<Sub>, ParseError> {
        self.enter(at)?;
        let saved_end = self.end;
        self.end = to.min(saved_end);
        self.pos = from;
        let mut buf = WordBuf::default();
        while let Some(c) = self.byte(self.pos) {
            match c {
                b'\\' => self.pos += 2,
                b'$' => self.lex_dollar(&mut buf, true)?,
                b'`' => self.lex_backtick(&mut buf, false)?,
                _ => self.pos += 1,
            }
        }
        self.end = saved_end;
        self.pos = to;
        self.leave();
        Ok(buf.subs)
    }

    /// A bash extended pattern (`!(*.md)`, `@(a|b)`, `?(x)`, `*(x)`,
    /// `+(x)`; `shopt -s extglob`): the group up to its closing parenthesis
    /// is part of the word. It stands for any name (`*`) where it is judged,
    /// since `!(keep)` matches nearly everything: `rm -rf !(node_modules)` is
    /// judged as `rm -rf *`.
    fn lex_extglob(&mut self, buf: &mut WordBuf, op: u8) -> Result<(), ParseError> {
        let at = self.pos;
        let mut depth = 0usize;
        let mut j = at + 1;
        while let Some(c) = self.byte(j) {
            match c {
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'\\' => j += 1,
                b'\n' => return Err(perr("unterminated extended pattern", at)),
                _ => {}
            }
            j += 1;
        }
        if depth != 0 || j >= self.end {
            return Err(perr("unterminated extended pattern", at));
        }
        // `@(x)` with one plain alternative is that text; anything else may
        // match any name.
        let inner = self.src.get(at + 2..j).unwrap_or_default();
        let plain = op == b'@'
            && !inner
                .iter()
                .any(|c| matches!(c, b'|' | b'*' | b'?' | b'[' | b'(' | b'!' | b'\\'));
        if plain {
            buf.lit(inner, false);
        } else {
            buf.lit(b"*", false);
        }
        self.pos = j + 1;
        Ok(())
    }

    fn lex_word(&mut self) -> Result<Word, ParseError> {
        let start = self.pos;
        let mut buf = WordBuf::default();
        let mut array = None;
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
                    self.lex_cmdsub(&mut buf, kind, false)?;
                }
                b'(' => {
                    let so_far = self.src.get(start..self.pos).unwrap_or_default();
                    if self.pos > start && assign_eq(so_far) == Some(self.pos - start - 1) {
                        array = Some(self.lex_array(&mut buf)?);
                    } else {
                        break;
                    }
                }
                b'\\' => match self.byte(self.pos + 1) {
                    Some(b'\n') => self.pos += 2,
                    Some(n) => {
                        buf.lit(&[n], true);
                        self.pos += 2;
                    }
                    None => {
                        buf.lit(b"\\", false);
                        self.pos += 1;
                    }
                },
                b'\'' => {
                    let q = self.pos;
                    let rest = self.src.get(q + 1..self.end).unwrap_or_default();
                    let Some(len) = rest.iter().position(|&c| c == b'\'') else {
                        return Err(unclosed_quote("unterminated single quote", q));
                    };
                    buf.lit(&rest[..len], true);
                    self.pos = q + 1 + len + 1;
                }
                b'"' => self.lex_dquote(&mut buf)?,
                b'$' => self.lex_dollar(&mut buf, false)?,
                b'`' => self.lex_backtick(&mut buf, false)?,
                b'!' | b'@' | b'?' | b'*' | b'+' if self.byte(self.pos + 1) == Some(b'(') => {
                    self.lex_extglob(&mut buf, c)?;
                }
                _ => {
                    buf.lit(&[c], false);
                    self.pos += 1;
                }
            }
        }
        if self.pos == start {
            return Err(perr("unexpected character", start));
        }
        let raw = self.src.get(start..self.pos).unwrap_or_default();
        let mut parts = buf.take_parts();
        if parts.is_empty() && raw.iter().any(|c| matches!(c, b'\'' | b'"')) {
            // `""`, `''`: an empty argument, which the program does receive.
            parts.push(Part::Lit {
                text: String::new(),
                quoted: true,
            });
        }
        let text = buf.text;
        let plain = raw == text.as_slice();
        let assign = assign_eq(raw).and_then(|eq| {
            let eq = if text.get(..=eq) == raw.get(..=eq) {
                eq
            } else {
                // Quotes inside an element's subscript (`a['$(x)']=1`): still
                // an assignment, whose subscript is quote-removed.
                let br = raw.iter().position(|&c| c == b'[')?;
                if br >= eq || text.get(..br) != raw.get(..br) {
                    return None;
                }
                let t = text.get(br..)?;
                t.windows(2)
                    .position(|w| w == b"]=")
                    .map(|k| br + k + 1)
                    .or_else(|| t.windows(3).position(|w| w == b"]+=").map(|k| br + k + 2))?
            };
            let name_end = if text.get(eq.wrapping_sub(1)) == Some(&b'+') {
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
            parts,
            subs: buf.subs,
            array,
        })
    }

    /// `NAME=( elem … )`: the elements are words (their substitutions run).
    fn lex_array(&mut self, buf: &mut WordBuf) -> Result<Vec<Word>, ParseError> {
        let start = self.pos;
        self.enter(start)?;
        self.pos += 1;
        buf.lit(b"(", true);
        let mut elems = Vec::new();
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
                    buf.lit(b")", true);
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
                    if !elems.is_empty() {
                        buf.lit(b" ", true);
                    }
                    buf.lit(w.text.as_bytes(), true);
                    // The element keeps its own substitutions (they run when
                    // the assignment is expanded).
                    elems.push(w);
                }
            }
        }
        self.leave();
        Ok(elems)
    }

    /// At `"`: a double-quoted string.
    fn lex_dquote(&mut self, buf: &mut WordBuf) -> Result<(), ParseError> {
        let q = self.pos;
        self.pos += 1;
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(unclosed_quote("unterminated double quote", q));
            };
            match c {
                b'"' => {
                    self.pos += 1;
                    return Ok(());
                }
                b'\\' => match self.byte(self.pos + 1) {
                    Some(n @ (b'$' | b'`' | b'"' | b'\\')) => {
                        buf.lit(&[n], true);
                        self.pos += 2;
                    }
                    Some(b'\n') => self.pos += 2,
                    _ => {
                        buf.lit(b"\\", true);
                        self.pos += 1;
                    }
                },
                b'$' => self.lex_dollar(buf, true)?,
                b'`' => self.lex_backtick(buf, true)?,
                _ => {
                    buf.lit(&[c], true);
                    self.pos += 1;
                }
            }
        }
    }

    /// At `$`: ANSI-C / locale strings, substitutions, arithmetic, parameters.
    fn lex_dollar(&mut self, buf: &mut WordBuf, in_dq: bool) -> Result<(), ParseError> {
        let start = self.pos;
        match self.byte(start + 1) {
            Some(b'\'') if !in_dq && !self.dash => self.lex_ansi_c(buf),
            Some(b'"') if !in_dq && !self.dash => {
                self.pos += 1;
                self.lex_dquote(buf)
            }
            Some(b'(') => {
                if self.byte(start + 2) == Some(b'(') {
                    if let Some(close) = self.arith_end(start + 3) {
                        let text =
                            lossy(self.src.get(start + 3..close).unwrap_or_default().to_vec());
                        let subs = self.scan_region(start + 3, close, start)?;
                        buf.subs.extend(subs);
                        self.pos = close + 2;
                        buf.text
                            .extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
                        buf.part(Part::Arith {
                            text,
                            quoted: in_dq,
                        });
                        return Ok(());
                    }
                }
                self.lex_cmdsub(buf, SubKind::Dollar, in_dq)
            }
            // `$[ … ]`: bash's old spelling of `$(( … ))` (not dash's).
            Some(b'[') if !self.dash => {
                let mut depth = 0usize;
                let mut i = start + 2;
                let close = loop {
                    match self.byte(i) {
                        None => return Err(perr("unterminated `$[`: missing `]`", start)),
                        Some(b'[') => depth += 1,
                        Some(b']') if depth == 0 => break i,
                        Some(b']') => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                };
                let text = lossy(self.src.get(start + 2..close).unwrap_or_default().to_vec());
                let subs = self.scan_region(start + 2, close, start)?;
                buf.subs.extend(subs);
                self.pos = close + 1;
                buf.text
                    .extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
                buf.part(Part::Arith {
                    text,
                    quoted: in_dq,
                });
                Ok(())
            }
            Some(b'{') => self.lex_param(buf, in_dq),
            Some(c) if is_name_start(c) => {
                let mut end = start + 2;
                while self.byte(end).is_some_and(is_name_char) {
                    end += 1;
                }
                self.simple_param(buf, start, start + 1, end, in_dq);
                Ok(())
            }
            Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => {
                self.simple_param(buf, start, start + 1, start + 2, in_dq);
                Ok(())
            }
            _ => {
                buf.lit(b"$", in_dq);
                self.pos += 1;
                Ok(())
            }
        }
    }

    /// `$NAME` / `$1` / `$@`: the name is `[name_at, end)`.
    fn simple_param(
        &mut self,
        buf: &mut WordBuf,
        start: usize,
        name_at: usize,
        end: usize,
        in_dq: bool,
    ) {
        let name = lossy(self.src.get(name_at..end).unwrap_or_default().to_vec());
        buf.text
            .extend_from_slice(self.src.get(start..end).unwrap_or_default());
        buf.part(Part::Param(Param {
            name,
            op: ParamOp::Plain,
            quoted: in_dq,
        }));
        self.pos = end;
    }

    /// At `$(`, `<(` or `>(`: parse the embedded script in place.
    fn lex_cmdsub(
        &mut self,
        buf: &mut WordBuf,
        kind: SubKind,
        in_dq: bool,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 2;
        self.enter(start)?;
        let saved_peek = self.peeked.take();
        let body = self.parse_list()?;
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
        self.leave();
        buf.text
            .extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
        buf.subs.push(Sub {
            kind,
            body,
            heredocs: None,
        });
        buf.part(Part::Sub {
            index: buf.subs.len() - 1,
            quoted: in_dq,
        });
        Ok(())
    }

    /// At `${`: a parameter expansion. The text keeps it verbatim; the part
    /// says what it does; substitutions inside run.
    fn lex_param(&mut self, buf: &mut WordBuf, in_dq: bool) -> Result<(), ParseError> {
        let start = self.pos;
        self.enter(start)?;
        self.pos += 2;
        let mark = buf.text.len();
        let outer = buf.take_parts();
        let (name, op) = self.param_body(buf, in_dq, start)?;
        buf.parts = outer;
        self.leave();
        buf.text.truncate(mark);
        buf.text
            .extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
        buf.part(Part::Param(Param {
            name,
            op,
            quoted: in_dq,
        }));
        Ok(())
    }

    /// Inside `${`: the name and the operation, up to and past the closing `}`.
    fn param_body(
        &mut self,
        buf: &mut WordBuf,
        in_dq: bool,
        start: usize,
    ) -> Result<(String, ParamOp), ParseError> {
        let p = self.pos;
        let special = self.byte(p).is_some_and(|c| b"@*#?$!-".contains(&c));
        let prefixed = matches!(self.byte(p), Some(b'#' | b'!'))
            && self.byte(p + 1).is_some_and(|c| c != b'}');
        let mut end = p;
        if !prefixed {
            if self.byte(p).is_some_and(is_name_start) {
                while self.byte(end).is_some_and(is_name_char) {
                    end += 1;
                }
            } else if self.byte(p).is_some_and(|c| c.is_ascii_digit()) {
                while self.byte(end).is_some_and(|c| c.is_ascii_digit()) {
                    end += 1;
                }
            } else if special {
                end = p + 1;
            }
        }
        // `${!NAME}`: the variable whose name NAME holds.
        if self.byte(p) == Some(b'!') && self.byte(p + 1).is_some_and(is_name_start) {
            let mut e = p + 1;
            while self.byte(e).is_some_and(is_name_char) {
                e += 1;
            }
            if self.byte(e) == Some(b'}') {
                let name = lossy(self.src.get(p + 1..e).unwrap_or_default().to_vec());
                self.pos = e + 1;
                return Ok((name, ParamOp::Indirect));
            }
        }
        let name = lossy(self.src.get(p..end).unwrap_or_default().to_vec());
        if name.is_empty() {
            self.skip_param(buf, in_dq, start)?;
            return Ok((name, ParamOp::Other));
        }
        self.pos = end;
        let mut index = None;
        if self.byte(self.pos) == Some(b'[') {
            // The subscript's end: the `]` that closes it (brackets and
            // substitutions inside count).
            let open = self.pos;
            let mut depth = 0usize;
            let mut i = open + 1;
            let mut close = None;
            while let Some(c) = self.byte(i) {
                match c {
                    b'[' => depth += 1,
                    b']' if depth == 0 => {
                        close = Some(i);
                        break;
                    }
                    b']' => depth -= 1,
                    b'$' if self.byte(i + 1) == Some(b'(') => {
                        depth += 1;
                        i += 1;
                    }
                    b'(' => depth += 1,
                    b')' => depth = depth.saturating_sub(1),
                    _ => {}
                }
                i += 1;
            }
            if let Some(close) = close {
                index = Some(lossy(
                    self.src.get(open + 1..close).unwrap_or_default().to_vec(),
                ));
                // An indexed array's subscript is arithmetic: its
                // substitutions run even when quoted (`${a['$(cmd)']}`).
                let subs = self.scan_region(open + 1, close, open)?;
                buf.subs.extend(subs);
                self.pos = close + 1;
            }
        }
        let c0 = self.byte(self.pos);
        let c1 = self.byte(self.pos + 1);
        let (op_len, kind) = match (c0, c1) {
            (Some(b'}'), _) => {
                self.pos += 1;
                return Ok((name, index.map_or(ParamOp::Plain, ParamOp::Index)));
            }
            (Some(b':'), Some(b'-')) => (2, b'-'),
            (Some(b':'), Some(b'=')) => (2, b'='),
            (Some(b':'), Some(b'+')) => (2, b'+'),
            (Some(b':'), Some(b'?')) => (2, b'?'),
            (Some(b'-'), _) => (1, b'-'),
            (Some(b'?'), _) => (1, b'?'),
            (Some(b'='), _) => (1, b'='),
            (Some(b'+'), _) => (1, b'+'),
            (Some(b'#' | b'%'), _) if index.is_none() => {
                let suffix = c0 == Some(b'%');
                let longest = c1 == c0;
                self.pos += if longest { 2 } else { 1 };
                let pattern = self.param_word(buf, in_dq, start)?;
                return Ok((
                    name,
                    ParamOp::Trim {
                        pattern,
                        suffix,
                        longest,
                    },
                ));
            }
            (Some(b'^' | b',' | b'~'), _) if index.is_none() => {
                self.skip_param(buf, in_dq, start)?;
                return Ok((name, ParamOp::Case));
            }
            (Some(b'@'), Some(b'P'))
                if index.is_none() && self.byte(self.pos + 2) == Some(b'}') =>
            {
                self.skip_param(buf, in_dq, start)?;
                return Ok((name, ParamOp::Prompt));
            }
            _ => {
                self.skip_param(buf, in_dq, start)?;
                return Ok((name, ParamOp::Other));
            }
        };
        if index.is_some() {
            self.skip_param(buf, in_dq, start)?;
            return Ok((name, ParamOp::Other));
        }
        let colon = op_len == 2;
        self.pos += op_len;
        let word = self.param_word(buf, in_dq, start)?;
        Ok((
            name,
            match kind {
                b'+' => ParamOp::Alternative { word, colon },
                b'?' => ParamOp::Required,
                _ => ParamOp::Default {
                    word,
                    colon,
                    assign: kind == b'=',
                },
            },
        ))
    }

    /// The word of `${X:-word}` up to and past `}`, as parts.
    fn param_word(
        &mut self,
        buf: &mut WordBuf,
        in_dq: bool,
        start: usize,
    ) -> Result<Vec<Part>, ParseError> {
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(perr("unterminated `${`: missing `}`", start));
            };
            match c {
                b'}' => {
                    self.pos += 1;
                    return Ok(buf.take_parts());
                }
                b'\\' => {
                    if let Some(n) = self.byte(self.pos + 1) {
                        buf.lit(&[n], true);
                    }
                    self.pos += 2;
                }
                b'\'' if !in_dq => {
                    let rest = self.src.get(self.pos + 1..self.end).unwrap_or_default();
                    let Some(len) = rest.iter().position(|&c| c == b'\'') else {
                        return Err(perr("unterminated single quote", self.pos));
                    };
                    buf.lit(&rest[..len], true);
                    self.pos += len + 2;
                }
                b'"' => self.lex_dquote(buf)?,
                b'$' => self.lex_dollar(buf, in_dq)?,
                b'`' => self.lex_backtick(buf, in_dq)?,
                _ => {
                    buf.lit(&[c], in_dq);
                    self.pos += 1;
                }
            }
        }
    }

    /// Skip to and past the `}` of a `${` whose operation is not computed
    /// (substitutions inside still run).
    fn skip_param(
        &mut self,
        buf: &mut WordBuf,
        in_dq: bool,
        start: usize,
    ) -> Result<(), ParseError> {
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
                b'"' => self.lex_dquote(buf)?,
                b'$' => self.lex_dollar(buf, in_dq)?,
                b'`' => self.lex_backtick(buf, in_dq)?,
                _ => self.pos += 1,
            }
        }
        buf.take_parts();
        Ok(())
    }

    /// At `` ` ``: unescape the body and parse it as its own script.
    fn lex_backtick(&mut self, buf: &mut WordBuf, in_dq: bool) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut inner = Vec::new();
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(unclosed_quote("unterminated backquote", start));
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
        buf.text
            .extend_from_slice(self.src.get(start..self.pos).unwrap_or_default());
        let inner = lossy(inner);
        let script = parse_script_as(&inner, self.depth + 1, self.dash).map_err(|e| {
            perr(
                format!("in backquoted command: {}", e.message),
                (start + 1 + e.offset).min(self.pos),
            )
        })?;
        buf.subs.push(Sub {
            kind: SubKind::Backtick,
            body: script.body,
            heredocs: Some(script.heredocs),
        });
        buf.part(Part::Sub {
            index: buf.subs.len() - 1,
            quoted: in_dq,
        });
        Ok(())
    }

    /// At `$'`: ANSI-C quoted string with backslash escapes.
    fn lex_ansi_c(&mut self, buf: &mut WordBuf) -> Result<(), ParseError> {
        let q = self.pos;
        self.pos += 2;
        // bash truncates the string at a NUL byte.
        let mut out = Vec::new();
        loop {
            let Some(c) = self.byte(self.pos) else {
                return Err(unclosed_quote("unterminated `$'` string", q));
            };
            self.pos += 1;
            match c {
                b'\'' => break,
                b'\\' => {
                    let Some(e) = self.byte(self.pos) else {
                        return Err(unclosed_quote("unterminated `$'` string", q));
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
                                    let mut b = [0u8; 4];
                                    out.extend_from_slice(ch.encode_utf8(&mut b).as_bytes());
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
        let kept = out.iter().position(|b| *b == 0).unwrap_or(out.len());
        buf.lit(out.get(..kept).unwrap_or_default(), true);
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
