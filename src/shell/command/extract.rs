//! Turn a parsed script into [`SimpleCommand`]s, following the shell as it
//! runs: substitutions first, wrappers unwrapped, strings that a shell will
//! execute re-parsed (`bash -c`, `eval`, here-documents, text piped into a
//! shell, files written a moment before, functions and aliases defined in the
//! same command), and the shell's state (directory, variables, positional
//! parameters) carried along `&&`, `||`, subshells and bodies that may not run,
//! so every command knows where it runs and what its words may be.

use std::rc::Rc;

use super::container;
use super::emit;
use super::env_values::{self, Reach};
use super::expand::{Expander, Field};
use super::inline::{self, Effect, Lang};
use super::literal::{self, brace_expand};
use super::places;
use super::roles;
use super::state::{add_links, join, Func, State, Var, Written};
use super::syntax::{
    self, AndOr, Command, CommandKind, Conn, Heredoc, List, Param, ParamOp, Part, Pipeline,
    RedirKind, Sub, SubKind, Word, MAX_DEPTH, MAX_REPARSE,
};
use super::wrappers::{self, Action, MAX_WRAPPERS};
use super::{
    basename, git_subcommand, over_budget, perr, program_name, Code, ParseError, ParseErrorKind,
    Redirect, RedirectOp, SimpleCommand,
};
use crate::shell::budget;
use crate::shell::links::MadeLink;
use crate::shell::place;
use crate::shell::value::{Piece, Sym, Value};

mod arith;
mod captured;
mod code;

pub(crate) fn extract(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    // A quote left open: the shell refuses the line it opens on and runs
    // nothing from it on (zsh: nothing at all). The script is judged as if
    // the agent had closed the quote at the end, the way it will retry it:
    // an open quote neither hides a delete (`rm -rf ~; echo "x`) nor makes
    // plain text ask (`echo "rm -rf /`). When closing does not make it
    // parse, the error stands (the policy's unparsable answer).
    let mut closed: Option<String> = None;
    for _ in 0..MAX_QUOTE_CLOSES {
        let text = closed.as_deref().unwrap_or(script);
        match extract_complete(text) {
            Err(e) if e.kind == ParseErrorKind::UnclosedQuote => {
                let closer = match text.as_bytes().get(e.offset) {
                    Some(b'$') => '\'',
                    Some(&q @ (b'\'' | b'"' | b'`')) => char::from(q),
                    _ => return Err(e),
                };
                let mut t = text.to_string();
                t.push(closer);
                closed = Some(t);
            }
            r => return r,
        }
    }
    extract_complete(closed.as_deref().unwrap_or(script))
}

/// How many open quotes [`extract`] closes at the end of a script (each
/// close re-parses it).
const MAX_QUOTE_CLOSES: usize = 4;

/// The commands of a script that must parse as a whole.
fn extract_complete(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    let mut ex = Extractor {
        out: Vec::new(),
        budget: script.len().saturating_mul(32).saturating_add(1 << 16),
        work: script.len().saturating_mul(4).saturating_add(1 << 16),
        state: Rc::new(State::start()),
        calls: 0,
        reparses: 0,
        active: Vec::new(),
        forks: 0,
        guards: 0,
        background_jobs: 0,
        repeats: 1,
        input_lines: None,
        input_text: None,
        dash: false,
        captured: Vec::new(),
        captured_before: 0,
        traps: Vec::new(),
    };
    let s = syntax::parse_script(script, 0)?;
    let cx = Cx {
        table: &s.heredocs,
        via: Vec::new(),
    };
    ex.list(&s.body, &cx)?;
    ex.run_traps();
    Ok(ex.out)
}

/// How to translate error offsets of a re-parsed text.
#[derive(Clone)]
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

/// Where a list is: its here-document table and how we got there.
struct Cx<'a> {
    table: &'a [Heredoc],
    via: Vec<String>,
}

impl Cx<'_> {
    fn with_via(&self, label: &str) -> Cx<'_> {
        let mut via = self.via.clone();
        via.push(label.to_string());
        Cx {
            table: self.table,
            via,
        }
    }
}

/// Programs that decode or unscramble text (`base64 -d`, `xxd -r`, `rev`,
/// `tr` for rot13, `openssl enc -d`, decompressors): what they print as a
/// command word hides the command from a reader.
const DECODERS: &[&str] = &[
    "base64", "gbase64", "base32", "basenc", "xxd", "openssl", "rev", "tr", "uudecode", "gunzip",
    "zcat", "gzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "brotli",
];

/// Is the last path component of a program word (its name) made of a
/// command substitution's output (`$(…)`, `` `…` ``) in some alternative?
fn name_from_output(v: &Value) -> bool {
    v.0.iter().any(|s| {
        let start =
            s.0.iter()
                .rposition(|p| matches!(p, Piece::Text(t) | Piece::Glob(t) if t.contains('/')))
                .map_or(0, |k| k + 1);
        s.0.get(start..)
            .unwrap_or_default()
            .iter()
            .any(|p| matches!(p, Piece::Unknown(l) if l.starts_with("$(…)")))
    })
}

/// What a command's standard input is, as far as the analysis knows.
#[derive(Clone)]
enum Input {
    /// Not redirected or piped.
    None,
    /// Output of the previous command of a pipeline, when known.
    Known(Value),
    /// Text a decoder made of known input (`… | base64 -d`).
    Decoded(String),
    /// Output nobody can know beforehand (`curl …`).
    Unknown,
    /// The content of files on disk, not read here (`cat scripts/setup.sh |
    /// sh`): the files, when the command names them outright.
    File(Vec<Value>),
}

/// The states after a command, split by its exit status (`None`: that
/// outcome cannot happen, e.g. after `exit`).
struct Exit {
    ok: Option<Rc<State>>,
    fail: Option<Rc<State>>,
}

impl Exit {
    fn same(s: &Rc<State>) -> Exit {
        Exit {
            ok: Some(s.clone()),
            fail: Some(s.clone()),
        }
    }
}

/// A command's effect and output.
struct Ran {
    exit: Exit,
    /// What it prints on standard output, when known.
    output: Option<Value>,
    /// The output was decoded from known input.
    decoded: bool,
    /// The output is the content of files the analysis does not read here
    /// (`cat scripts/setup.sh`): as trusted as the files, not unknown. The
    /// files, when named outright.
    file: Option<Vec<Value>>,
}

/// An interpreter's inline code: its language, the arguments holding code,
/// and whether it also reads code from standard input.
struct InlineCode {
    lang: Lang,
    codes: Vec<usize>,
    stdin: bool,
}

/// Per-simple-command context shared by a chain of wrapped commands.
struct Link<'a> {
    cmd: &'a Command,
    redirects: Vec<Redirect>,
    stdin: Input,
    /// What a here-document or here-string feeds the command, with its label.
    here: Option<(String, &'static str, OffMap)>,
    /// What a process substitution read as standard input prints (`sh < <(…)`).
    read_from: Option<Value>,
    /// Lines the previous element of a pipeline prints, when known.
    input_lines: Option<u64>,
    /// What the previous element of a pipeline printed, all of it, when that
    /// is `echo` or `printf` of one known value or the names `ls`, `find` or
    /// `fd` list (for `xargs`; a here-document or here-string is `here`).
    input_text: Option<Printed>,
    /// A here-string's value as data (`xargs rm -rf <<< ~`: home, not the
    /// text `~`); `here` holds it as the text a shell would read as code.
    here_data: Option<Value>,
    /// An unquoted here-document's text as the outer shell expands it, when
    /// it expands values the line does not know (`here` holds it as written,
    /// which a shell reading it expands alike; any other reader gets this).
    here_value: Option<Value>,
}

/// The grammar of the shell that reads re-parsed text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Grammar {
    /// The shell the text is already in (`eval`, an alias, `source`).
    Same,
    /// bash (and the other shells, read as bash).
    Bash,
    /// `/bin/sh`: read as bash, and as dash where the two differ.
    Sh,
    /// zsh: read as bash once its glob qualifiers are read as zsh reads
    /// them ([`super::zsh`]).
    Zsh,
}

impl Grammar {
    /// The grammar of a shell program.
    fn of(prog: &str) -> Grammar {
        match prog.to_ascii_lowercase().as_str() {
            "sh" | "dash" | "ash" | "posh" => Grammar::Sh,
            "zsh" => Grammar::Zsh,
            "eval" | "source" | "." | "trap" => Grammar::Same,
            _ => Grammar::Bash,
        }
    }
}

/// What the analysis knows of a makefile.
enum Makefile {
    /// Its text.
    Text(String),
    /// Written or produced at run time: nobody can read it beforehand.
    Unknown,
    /// A file on disk, not read (as `bash script.sh`).
    OnDisk,
}

/// A command's redirections, and what the analysis knows of its input.
struct Redirs {
    list: Vec<Redirect>,
    /// The value of a here-string's word.
    here_string: Option<Value>,
    /// What `< <(…)` prints.
    read_from: Option<Value>,
}

struct Extractor {
    out: Vec<SimpleCommand>,
    /// Bytes we may still re-parse; bounds work on adversarial input.
    budget: usize,
    /// Commands we may still follow (function calls, aliases and wrappers
    /// multiply them); bounds work on adversarial input.
    work: usize,
    /// The shell's state before the next command.
    state: Rc<State>,
    /// Nesting of function calls and alias expansions being followed.
    calls: usize,
    /// Nesting of re-parsed strings being read (`bash -c`, `eval`, …).
    reparses: usize,
    /// Functions being called (a recursive call is not followed again), with
    /// [`Extractor::forks`] and [`Extractor::guards`] when each was called.
    active: Vec<(String, usize, usize)>,
    /// Branches, loop bodies and `&&`/`||` parts the current command is in.
    guards: usize,
    /// New processes the current command is nested in (`&`, pipelines,
    /// subshells, substitutions).
    forks: usize,
    /// In the background: how many times the loops around the `&` start the
    /// job the current command is in (0: not in the background).
    background_jobs: u64,
    /// How many times the enclosing loops run the current command.
    repeats: u64,
    /// Lines the previous element of a pipeline prints, when its program
    /// says (`yes`: without end, `seq 1 N`: N).
    input_lines: Option<u64>,
    /// What the previous element of a pipeline printed, when it is `echo`
    /// or `printf` of one known value (`printf '%s\0' ~`: home, a NUL), or
    /// the names a listing prints (see [`Printed`]).
    input_text: Option<Printed>,
    /// Re-parsed text is read as dash reads it (see [`Extractor::nested_sh`]).
    dash: bool,
    /// The commands that printed into each substitution whose value is
    /// unknown, by the number the value names (see [`captured`]).
    captured: Vec<Vec<SimpleCommand>>,
    /// How many were captured before the current simple command started.
    captured_before: usize,
    /// The code `trap` set, run when the script ends ([`Extractor::run_traps`]).
    traps: Vec<Trap>,
}

/// The code a `trap` sets: the shell runs it later (at exit, on a signal),
/// with the variables it then holds, so it is read once the script is read.
struct Trap {
    text: String,
    via: Vec<String>,
    depth: usize,
    map: OffMap,
    /// The `trap` command's index in `out`.
    at: usize,
}

impl Extractor {
    /// Read the code the script's traps run, with the variables the script
    /// leaves (`trap 'rm -rf "$tmp"' EXIT; tmp=$(mktemp -d)` removes the
    /// temp folder, `trap 'rm -rf "$d"' EXIT; d=~` home). Code that does not
    /// parse, or runs a program nobody can name, is unknown code.
    fn run_traps(&mut self) {
        for _ in 0..MAX_WRAPPERS {
            let traps = std::mem::take(&mut self.traps);
            if traps.is_empty() {
                return;
            }
            for t in traps {
                let mark = self.out.len();
                let saved = self.state.clone();
                if self
                    .nested_as(Grammar::Same, &t.text, t.depth, &t.via, t.map, None)
                    .is_err()
                {
                    self.out.truncate(mark);
                    self.state = saved;
                    self.set_code(t.at, Code::Dynamic);
                } else if self.ran_unknown_program(mark) {
                    self.set_code(t.at, Code::Dynamic);
                }
            }
        }
    }

    fn tick(&mut self, at: usize) -> Result<(), ParseError> {
        budget::check().map_err(|o| over_budget(o, at))?;
        match self.work.checked_sub(1) {
            Some(w) => {
                self.work = w;
                Ok(())
            }
            None => Err(perr("script too complex: too many commands to follow", at)),
        }
    }

    /// Parse `text` as a script nested at `depth` and extract its commands in
    /// the current state (`eval`, `source`) or a child shell's.
    fn nested(
        &mut self,
        text: &str,
        depth: usize,
        via: &[String],
        map: OffMap,
        child: Option<Option<Vec<Value>>>,
    ) -> Result<Option<Value>, ParseError> {
        if text.len() > self.budget {
            return Err(perr(
                "script too complex: re-parsing budget exhausted",
                map.offset(),
            ));
        }
        self.budget -= text.len();
        if self.reparses >= MAX_REPARSE {
            return Err(map.apply(perr(
                format!("nesting deeper than {MAX_REPARSE} re-parsed levels"),
                0,
            )));
        }
        self.reparses += 1;
        let out = self.reparsed(text, depth, via, map, child);
        self.reparses -= 1;
        out
    }

    /// [`Extractor::nested`] once its bounds are checked.
    fn reparsed(
        &mut self,
        text: &str,
        depth: usize,
        via: &[String],
        map: OffMap,
        child: Option<Option<Vec<Value>>>,
    ) -> Result<Option<Value>, ParseError> {
        let s = syntax::parse_script_as(text, depth, self.dash).map_err(|e| map.apply(e))?;
        let first = self.out.len();
        let saved = self.state.clone();
        let is_child = child.is_some();
        if let Some(positional) = child {
            self.state = Rc::new(saved.child(positional));
        }
        let cx = Cx {
            table: &s.heredocs,
            via: via.to_vec(),
        };
        let out = self.list(&s.body, &cx).map_err(|e| map.apply(e))?;
        if is_child {
            self.restore(saved);
        }
        for c in self.out.get_mut(first..).unwrap_or_default() {
            c.offset = match &map {
                OffMap::Verbatim(base) => base.saturating_add(c.offset),
                OffMap::At(off, _) => *off,
            };
        }
        Ok(out)
    }

    /// [`Extractor::nested`] in a shell that reads with `grammar`: bash's; or
    /// `/bin/sh`'s, read as bash and, where dash (Debian's and Ubuntu's
    /// `/bin/sh`) reads the text differently (`((…))`, `$'…'`, `$"…"`), also
    /// as dash, so the commands of both readings are judged (a reading dash
    /// rejects runs nothing); or the same shell's (`eval`, an alias).
    fn nested_as(
        &mut self,
        grammar: Grammar,
        text: &str,
        depth: usize,
        via: &[String],
        map: OffMap,
        child: Option<Option<Vec<Value>>>,
    ) -> Result<Option<Value>, ParseError> {
        let saved_dash = self.dash;
        if grammar != Grammar::Same {
            self.dash = false;
        }
        let differs = grammar == Grammar::Sh
            && (text.contains("((") || text.contains("$'") || text.contains("$\""));
        // zsh's glob qualifiers (`*.md(N)`, `*(D)`) read as zsh does.
        let zsh_text = match grammar {
            Grammar::Zsh => super::zsh::as_bash(text),
            _ => None,
        };
        let text = zsh_text.as_deref().unwrap_or(text);
        let mark = self.out.len();
        let saved = self.state.clone();
        let mut out = self.nested(text, depth, via, map.clone(), child.clone());
        if differs {
            // The dash reading too; when bash would refuse the text, it is
            // dash's reading alone that runs.
            if out.is_err() {
                self.out.truncate(mark);
                self.state = saved.clone();
            }
            let dash_mark = self.out.len();
            self.dash = true;
            let dash = self.nested(text, depth, via, map, child);
            if dash.is_err() {
                self.out.truncate(dash_mark);
                self.state = saved;
            }
            if out.is_err() && dash.is_ok() {
                out = dash;
            }
        }
        self.dash = saved_dash;
        out
    }

    /// The commands from `mark` on are given the variables the line exported
    /// before them (`export CLAUDE_CONFIG_DIR=/tmp/x; claude`), as a program
    /// started with them would be (`X=… claude`): their `assignments` hold
    /// them, the command's own prefix ones winning.
    fn inherit_exports(&mut self, mark: usize) {
        let exported: Vec<(String, String)> = self
            .state
            .vars
            .iter()
            .filter(|(_, b)| b.exported)
            .map(|(n, b)| {
                let v = b.var.scalar();
                (n.clone(), v.literal().unwrap_or_else(|| v.to_string()))
            })
            .collect();
        if exported.is_empty() {
            return;
        }
        for sc in self.out.get_mut(mark..).unwrap_or_default() {
            if sc.program.is_empty() {
                continue;
            }
            let own = std::mem::take(&mut sc.assignments);
            let mut all: Vec<(String, String)> = exported
                .iter()
                .filter(|(n, _)| !own.iter().any(|(o, _)| o == n))
                .cloned()
                .collect();
            all.extend(own);
            sc.assignments = all;
        }
    }

    /// Go back to `saved` after a subshell; files it wrote stay written.
    fn restore(&mut self, saved: Rc<State>) {
        let inner = std::mem::replace(&mut self.state, saved);
        self.restore_files(&inner);
    }

    /// Run a list; returns the output of its last command when known.
    fn list(&mut self, list: &List, cx: &Cx) -> Result<Option<Value>, ParseError> {
        let mut output = None;
        for ao in &list.items {
            output = self.and_or(ao, cx)?;
        }
        Ok(output)
    }

    fn and_or(&mut self, ao: &AndOr, cx: &Cx) -> Result<Option<Value>, ParseError> {
        if !ao.background {
            return self.and_or_waited(ao, cx);
        }
        // `… &`: a new process the shell does not wait for, started as many
        // times as the loops around it run.
        self.forks += 1;
        let saved = std::mem::replace(&mut self.background_jobs, self.repeats);
        let r = self.and_or_waited(ao, cx);
        self.forks -= 1;
        self.background_jobs = saved;
        r
    }

    fn and_or_waited(&mut self, ao: &AndOr, cx: &Cx) -> Result<Option<Value>, ParseError> {
        let start = self.state.clone();
        let first = self.pipeline(&ao.first, cx)?;
        let (mut ok, mut fail) = (first.exit.ok, first.exit.fail);
        let mut output = first.output;
        for (conn, p) in &ao.rest {
            let input = match conn {
                Conn::And => ok.clone(),
                Conn::Or => fail.clone(),
            };
            // A branch that cannot run is still read (the model may be wrong).
            self.state = input.unwrap_or_else(|| start.clone());
            let r = self.guarded(|ex| ex.pipeline(p, cx))?;
            output = r.output;
            match conn {
                Conn::And => {
                    ok = r.exit.ok;
                    fail = join(fail, r.exit.fail);
                }
                Conn::Or => {
                    ok = join(ok, r.exit.ok);
                    fail = r.exit.fail;
                }
            }
        }
        let end = join(ok, fail).unwrap_or_else(|| start.clone());
        if ao.background {
            self.state = start;
            self.restore_files(&end);
        } else {
            self.state = end;
        }
        Ok(output)
    }

    /// What a child shell or subshell did to the file system stays done:
    /// the files it wrote, the links it made.
    fn restore_files(&mut self, inner: &State) {
        if inner.files != self.state.files || inner.links != self.state.links {
            let mut s = (*self.state).clone();
            s.files
                .extend(inner.files.iter().map(|(k, v)| (k.clone(), v.clone())));
            add_links(&mut s.links, &inner.links);
            self.state = Rc::new(s);
        }
    }

    fn pipeline(&mut self, p: &Pipeline, cx: &Cx) -> Result<Ran, ParseError> {
        match p.cmds.as_slice() {
            [] => Ok(Ran {
                exit: Exit::same(&self.state),
                output: None,
                decoded: false,
                file: None,
            }),
            [one] => self.command(one, Input::None, cx),
            cmds => {
                // Every element runs in a subshell.
                self.forks += 1;
                let r = self.pipeline_elements(cmds, cx);
                self.forks -= 1;
                self.input_lines = None;
                self.input_text = None;
                r
            }
        }
    }

    fn pipeline_elements(&mut self, cmds: &[Command], cx: &Cx) -> Result<Ran, ParseError> {
        let start = self.state.clone();
        // `start` plus the files every element wrote (`… | tee f`).
        let mut after = start.clone();
        let mut stdin = Input::None;
        let mut last = None;
        let mut prev: Option<&Command> = None;
        let mut produced: Option<std::ops::Range<usize>> = None;
        let mut printed: Option<Printed> = None;
        // Earlier elements whose output the elements since passed on as it
        // came (`env | sort | grep x`: grep reads what env printed).
        let mut passed: Vec<std::ops::Range<usize>> = Vec::new();
        // Readers that every command of `passed` already sends its output to
        // (`None`: no command there yet): a later reader among them adds
        // nothing, so `cat | cat | … | cat` is not walked again at every
        // element (that walk made a long pipeline quadratic).
        let mut sent: Option<Vec<String>> = None;
        // The element whose lines the next one reads, through elements that
        // pass some of them on as they came (`SimpleCommand::input_lines_of`).
        let mut lines_of: Option<String> = None;
        for c in cmds {
            self.state = start.clone();
            self.input_lines = prev.and_then(printed_lines);
            let before = printed.clone();
            self.input_text = printed.take();
            prev = Some(c);
            let first = self.out.len();
            let r = self.command(c, stdin, cx)?;
            let own_input = reads_own_input(c);
            if let Some(src) = lines_of.as_ref().filter(|_| !own_input) {
                for sc in self.out.get_mut(first..).unwrap_or_default() {
                    if in_this_process(&sc.via, &cx.via) && !sc.program.is_empty() {
                        sc.input_lines_of = Some(src.clone());
                    }
                }
            }
            if own_input || !keeps_whole_lines(c) {
                lines_of = written_words(c);
            }
            printed = printed_text(c, &r);
            if printed.is_none() && keeps_whole_lines(c) {
                printed = before.map(Printed::some_of);
            }
            let readers: Vec<String> = self.out[first..]
                .iter()
                .filter(|sc| in_this_process(&sc.via, &cx.via) && !sc.program.is_empty())
                .map(|sc| sc.program.clone())
                .collect();
            // What the previous element printed, this one reads.
            if let Some(range) = produced.take() {
                let known = sent
                    .as_ref()
                    .is_some_and(|s| readers.iter().all(|r| s.contains(r)));
                if !known {
                    for earlier in &passed {
                        self.output_passed_to(earlier.clone(), &cx.via, &readers);
                    }
                    if let Some(s) = sent.as_mut() {
                        s.extend(
                            readers
                                .iter()
                                .filter(|r| !s.contains(r))
                                .cloned()
                                .collect::<Vec<_>>(),
                        );
                    }
                }
                let passes_on = !readers.is_empty()
                    && readers.iter().all(|p| PASS_THROUGH.contains(&p.as_str()));
                self.output_read_by(range.clone(), &cx.via, &readers, None);
                if passes_on {
                    let theirs = self.passed_on_to(range.clone(), &cx.via);
                    sent = Some(match sent.take() {
                        Some(s) if !passed.is_empty() => s
                            .into_iter()
                            .filter(|r| theirs.as_ref().is_none_or(|t| t.contains(r)))
                            .collect(),
                        _ => theirs.unwrap_or_default(),
                    });
                    passed.push(range);
                } else {
                    passed.clear();
                    sent = None;
                }
            }
            produced = Some(first..self.out.len());
            stdin = match (&r.output, r.decoded) {
                (Some(v), true) => match v.literal() {
                    Some(t) => Input::Decoded(t),
                    None => Input::Known(v.clone()),
                },
                (Some(v), false) => Input::Known(v.clone()),
                (None, _) if r.file.is_some() => Input::File(r.file.clone().unwrap_or_default()),
                (None, _) => Input::Unknown,
            };
            // What the element left (its own effect included).
            let inner =
                join(r.exit.ok.clone(), r.exit.fail.clone()).unwrap_or_else(|| self.state.clone());
            self.state = after;
            self.restore_files(&inner);
            after = self.state.clone();
            last = Some(r);
        }
        let end = self.state.clone();
        Ok(Ran {
            exit: Exit::same(&end),
            output: last.as_ref().and_then(|r| r.output.clone()),
            decoded: last.as_ref().is_some_and(|r| r.decoded),
            file: last.as_ref().and_then(|r| r.file.clone()),
        })
    }

    fn command(&mut self, c: &Command, stdin: Input, cx: &Cx) -> Result<Ran, ParseError> {
        self.tick(c.offset)?;
        if c.depth > MAX_DEPTH || syntax::stack_low(c.depth) {
            return Err(perr(
                format!("nesting deeper than {MAX_DEPTH} levels"),
                c.offset,
            ));
        }
        let start = self.state.clone();
        let plain = |s: &Rc<State>| Ran {
            exit: Exit::same(s),
            output: None,
            decoded: false,
            file: None,
        };
        let ran = match &c.kind {
            CommandKind::Simple { assigns, words } => {
                return self.simple(c, assigns, words, stdin, cx);
            }
            CommandKind::Subshell(list) => {
                self.forks += 1;
                let out = self.list(list, cx);
                self.forks -= 1;
                let out = out?;
                let inner = self.state.clone();
                self.state = start.clone();
                self.restore_files(&inner);
                Ran {
                    exit: Exit::same(&self.state),
                    output: out,
                    decoded: false,
                    file: None,
                }
            }
            CommandKind::Group(list) => {
                let out = self.list(list, cx)?;
                Ran {
                    exit: Exit::same(&self.state),
                    output: out,
                    decoded: false,
                    file: None,
                }
            }
            CommandKind::If { arms, otherwise } => {
                let mut ends = None;
                for (cond, body) in arms {
                    self.list(cond, cx)?;
                    let after_cond = self.state.clone();
                    self.guarded(|ex| ex.list(body, cx))?;
                    ends = join(ends, Some(self.state.clone()));
                    self.state = after_cond;
                }
                if let Some(e) = otherwise {
                    self.guarded(|ex| ex.list(e, cx))?;
                }
                ends = join(ends, Some(self.state.clone()));
                self.state = ends.unwrap_or(start);
                plain(&self.state)
            }
            CommandKind::Loop { cond, body, until } => {
                let times = if endless(cond, *until) { u64::MAX } else { 1 };
                self.repeated(times, |ex| {
                    ex.list(cond, cx)?;
                    ex.guarded(|ex| ex.list(body, cx))
                })?;
                self.state = join(Some(start), Some(self.state.clone()))
                    .unwrap_or_else(|| self.state.clone());
                plain(&self.state)
            }
            CommandKind::For { var, words, body } => {
                let mut times = 1u64;
                let value = match words {
                    Some(words) => {
                        let mut v = Value::default();
                        let mut n = 0u64;
                        for w in words {
                            let fields = self.word_fields(w, cx)?;
                            n = n.saturating_add(word_count(w, fields.len()));
                            for f in fields {
                                for s in f.value.0 {
                                    v.add(s);
                                }
                            }
                        }
                        times = n.max(1);
                        v
                    }
                    None => self.positional_all(),
                };
                let mut s = (*self.state).clone();
                if !value.0.is_empty() {
                    s.set(var, Var::Scalar(value), false);
                }
                self.state = Rc::new(s);
                self.repeated(times, |ex| ex.guarded(|ex| ex.list(body, cx)))?;
                self.state = join(Some(start), Some(self.state.clone()))
                    .unwrap_or_else(|| self.state.clone());
                plain(&self.state)
            }
            CommandKind::ArithFor { head, subs, body } => {
                for s in subs {
                    self.sub(s, cx)?;
                }
                self.arith_file_text(head, Some(subs), cx, c.offset)?;
                self.arith_source(head, cx, c.offset)?;
                self.repeated(arith_for_count(head), |ex| {
                    ex.guarded(|ex| ex.list(body, cx))
                })?;
                self.state = join(Some(start), Some(self.state.clone()))
                    .unwrap_or_else(|| self.state.clone());
                plain(&self.state)
            }
            CommandKind::Case { subject, arms } => {
                self.word_fields(subject, cx)?;
                let mut ends = Some(self.state.clone());
                for (patterns, body) in arms {
                    let before = self.state.clone();
                    for p in patterns {
                        self.word_fields(p, cx)?;
                    }
                    self.guarded(|ex| ex.list(body, cx))?;
                    ends = join(ends, Some(self.state.clone()));
                    self.state = before;
                }
                self.state = ends.unwrap_or(start);
                plain(&self.state)
            }
            CommandKind::Function { name, body } => {
                // Read the body where it is defined (it may run), then keep it
                // for calls.
                let fcx = cx.with_via(&format!("{name}()"));
                let saved = self.state.clone();
                self.guarded(|ex| ex.command(body, Input::None, &fcx))?;
                self.state = saved;
                let mut s = (*self.state).clone();
                s.funcs
                    .insert(name.clone(), Func(Rc::new((**body).clone())));
                self.state = Rc::new(s);
                plain(&self.state)
            }
            CommandKind::Arith { text, subs } => {
                for s in subs {
                    self.sub(s, cx)?;
                }
                self.arith_file_text(text, Some(subs), cx, c.offset)?;
                self.arith_source(text, cx, c.offset)?;
                plain(&self.state)
            }
            CommandKind::Test(words) => {
                let mut texts = Vec::with_capacity(words.len());
                for w in words {
                    let f = self.word_fields(w, cx)?;
                    texts.push(join_fields(&f).and_then(|v| v.literal()));
                }
                self.test_arith(words, &texts, cx, c.offset)?;
                plain(&self.state)
            }
        };
        // Redirections of a compound command: a command with no program.
        if !c.redirs.is_empty() {
            let redirects = self.redirects(c, cx)?.list;
            let mut sc = SimpleCommand::with_values(
                String::new(),
                Vec::new(),
                Vec::new(),
                redirects,
                Vec::new(),
                cx.via.clone(),
                c.offset,
            );
            sc.cwd = self.state.cwd.clone();
            sc.made = self.state.links.clone();
            self.push(sc);
        }
        Ok(ran)
    }

    /// Add a command found, marked [`SimpleCommand::guarded`] when a branch,
    /// a loop body, `&&`/`||` or a function's definition holds it.
    /// What the line's environment holds, for the commands from `mark` on,
    /// in the variables that name a place their program writes or removes
    /// (`CARGO_TARGET_DIR=~ cargo clean`, `export GOMODCACHE=~; go clean
    /// -modcache`): an assignment on the command, else a variable exported
    /// earlier in the line. One given through a wrapper (`env X=… cmd`) is
    /// taken as written when it is plain text, else as unknown. Variables
    /// the user's own environment holds are the user's choice: not recorded.
    fn env_places(&mut self, mark: usize, assigned: &[(String, Var, &Word)]) {
        let end = self.out.len();
        for at in mark..end {
            let Some(sc) = self.out.get(at) else { break };
            if sc.program.is_empty() {
                continue;
            }
            let mut found = Vec::new();
            for name in roles::place_variables(&sc.program) {
                let value = assigned
                    .iter()
                    .rev()
                    .find(|(n, _, _)| base_name(n) == name)
                    .map(|(_, var, _)| var.scalar())
                    .or_else(|| {
                        let (_, text) = sc.assignments.iter().rev().find(|(n, _)| n == name)?;
                        let plain = !text.is_empty()
                            && !text.starts_with('~')
                            && !text.contains(['$', '`', '*', '?', '[']);
                        Some(if plain {
                            Value::text(text)
                        } else {
                            Value::unknown(&format!("${name}"))
                        })
                    })
                    .or_else(|| {
                        let b = self.state.vars.get(name).filter(|b| b.exported)?;
                        Some(b.var.scalar())
                    });
                if let Some(v) = value {
                    found.push((name, v));
                }
            }
            if found.is_empty() {
                continue;
            }
            // What it removes is reported as `rm -rf PLACE` when the command
            // was pushed; a place only the environment names is reported now.
            // (Asked before the values are set: the places options name.)
            let by_options = roles::places(sc, roles::Role::Removed);
            let named_by_options =
                !by_options.glued.is_empty() || by_options.operand.contains(&true);
            let (via, off) = (sc.via.clone(), sc.offset);
            if let Some(sc) = self.out.get_mut(at) {
                sc.env_places = found;
            }
            if !named_by_options {
                self.side_removals(at, &via, off);
            }
        }
    }

    fn push(&mut self, mut sc: SimpleCommand) {
        sc.guarded |= self.guards > 0;
        self.out.push(sc);
    }

    /// Run `f` as a part that may not run (a branch, a loop body, after `&&`
    /// or `||`, a function's body where it is defined).
    fn guarded<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        self.guards += 1;
        let r = f(self);
        self.guards -= 1;
        r
    }

    /// Run `f` with the current command repeated `times` more.
    fn repeated<T>(
        &mut self,
        times: u64,
        f: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        let saved = self.repeats;
        self.repeats = saved.saturating_mul(times);
        let r = f(self);
        self.repeats = saved;
        r
    }

    /// Run a substitution (in a subshell); returns what it prints, if known.
    fn sub(&mut self, s: &Sub, cx: &Cx) -> Result<Option<Value>, ParseError> {
        let table = s.heredocs.as_deref().unwrap_or(cx.table);
        let scx = Cx {
            table,
            via: {
                let mut v = cx.via.clone();
                v.push(s.kind.label().to_string());
                v
            },
        };
        let saved = self.state.clone();
        self.forks += 1;
        let out = self.list(&s.body, &scx);
        self.forks -= 1;
        let out = out?;
        let inner = std::mem::replace(&mut self.state, saved);
        self.restore_files(&inner);
        // Command substitution drops trailing newlines.
        Ok(out.map(|v| trim_newlines(&v)))
    }

    /// The commands of `range` that print into `base`'s process (not into a
    /// substitution of their own, nor into a later element of their own
    /// pipeline) print into `readers`: the next element of a pipeline, or the
    /// command whose word `word` holds their substitution.
    fn output_read_by(
        &mut self,
        range: std::ops::Range<usize>,
        base: &[String],
        readers: &[String],
        word: Option<&str>,
    ) {
        for sc in self.out.get_mut(range).unwrap_or_default() {
            if !sc.output_to.is_empty() {
                continue;
            }
            let prints_here = match word {
                // In the word's own substitution, directly.
                Some(_) => {
                    sc.via.get(base.len()).is_some_and(|l| is_substitution(l))
                        && sc.via.starts_with(base)
                        && in_this_process(&sc.via[base.len() + 1..], &[])
                }
                None => in_this_process(&sc.via, base),
            };
            if prints_here {
                sc.output_to = readers.to_vec();
                sc.output_in = word.map(str::to_string);
            }
        }
    }

    /// The readers that every command of `range` which
    /// [`Self::output_passed_to`] would extend already sends its output to
    /// (`None`: no such command).
    fn passed_on_to(&self, range: std::ops::Range<usize>, base: &[String]) -> Option<Vec<String>> {
        let mut common: Option<Vec<String>> = None;
        for sc in self.out.get(range).unwrap_or_default() {
            if sc.output_in.is_none() && !sc.output_to.is_empty() && in_this_process(&sc.via, base)
            {
                common = Some(match common {
                    None => sc.output_to.clone(),
                    Some(c) => c.into_iter().filter(|r| sc.output_to.contains(r)).collect(),
                });
            }
        }
        common
    }

    /// The commands of `range` whose output an element that passes it on
    /// (see [`PASS_THROUGH`]) read: `readers` read it too.
    fn output_passed_to(
        &mut self,
        range: std::ops::Range<usize>,
        base: &[String],
        readers: &[String],
    ) {
        for sc in self.out.get_mut(range).unwrap_or_default() {
            if sc.output_in.is_none() && !sc.output_to.is_empty() && in_this_process(&sc.via, base)
            {
                for r in readers {
                    if !sc.output_to.contains(r) {
                        sc.output_to.push(r.clone());
                    }
                }
            }
        }
    }

    /// Run a word's substitutions, then expand it.
    fn word_fields(&mut self, w: &Word, cx: &Cx) -> Result<Vec<Field>, ParseError> {
        let outputs = self.outputs(w, cx)?;
        let fields = self.expand_word(w, &outputs);
        budget::check().map_err(|o| over_budget(o, w.offset))?;
        Ok(fields)
    }

    /// Expand a word whose substitutions printed `outputs`; an unquoted word
    /// first goes through brace expansion (`{rm,-rf,/}` is three words).
    fn expand_word(&self, w: &Word, outputs: &[Value]) -> Vec<Field> {
        let ex = Expander { state: &self.state };
        if w.plain && w.text.contains('{') && w.subs.is_empty() {
            let texts = brace_expand(&w.text);
            if texts.len() != 1 || texts[0] != w.text {
                let mut fields = Vec::new();
                for t in texts {
                    match syntax::word_from_text(&t) {
                        Some(word) => fields.extend(ex.fields(&word, &[])),
                        None => fields.push(Field::literal(&t)),
                    }
                }
                return fields;
            }
        }
        ex.fields(w, outputs)
    }

    /// What each substitution of a word prints (unknown ones as unknown).
    fn outputs(&mut self, w: &Word, cx: &Cx) -> Result<Vec<Value>, ParseError> {
        // Arithmetic in the word (`$(( x ))`, `${a[x]}`) evaluates the
        // variables it names.
        for p in &w.parts {
            match p {
                Part::Arith { text, .. } => {
                    self.arith_file_text(text, None, cx, w.offset)?;
                    self.arith_source(text, cx, w.offset)?;
                }
                Part::Param(Param {
                    op: ParamOp::Index(i),
                    ..
                }) => self.arith_source(i, cx, w.offset)?,
                Part::Param(Param {
                    op: ParamOp::Prompt,
                    name,
                    ..
                }) => self.prompt_source(name, cx, w.offset)?,
                _ => {}
            }
        }
        let mut outputs = Vec::with_capacity(w.subs.len());
        for s in &w.subs {
            let label = match s.kind {
                SubKind::Dollar | SubKind::Backtick => "$(…)",
                SubKind::ProcIn => "<(…)",
                SubKind::ProcOut => ">(…)",
            };
            let first = self.out.len();
            let out = match self.sub(s, cx)? {
                Some(v) => v,
                None if matches!(s.kind, SubKind::Dollar | SubKind::Backtick) => {
                    self.captured_output(first, &cx.via, label)
                }
                None => Value::unknown(label),
            };
            outputs.push(out);
        }
        if let Some(elems) = &w.array {
            for e in elems {
                self.outputs(e, cx)?;
            }
        }
        Ok(outputs)
    }

    fn redirects(&mut self, c: &Command, cx: &Cx) -> Result<Redirs, ParseError> {
        let mut out = Vec::new();
        let mut here_string = None;
        let mut read_from = None;
        for r in &c.redirs {
            match r.kind {
                RedirKind::File(op) => {
                    let f = self.word_fields(&r.target, cx)?;
                    let value = f
                        .first()
                        .map(|f| f.value.clone())
                        .unwrap_or_else(|| Value::text(""));
                    if op == RedirectOp::Read {
                        // `< <(…)`: what the process substitution prints.
                        read_from = f.first().and_then(|f| f.content.clone());
                    }
                    out.push(Redirect {
                        op,
                        fd: r.fd,
                        target: r.target.text.clone(),
                        value,
                    });
                }
                RedirKind::Heredoc(id) => {
                    let subs = cx
                        .table
                        .get(id)
                        .map(|h| h.subs.as_slice())
                        .unwrap_or_default();
                    for s in subs {
                        self.sub(s, cx)?;
                    }
                }
                RedirKind::HereString => {
                    let f = self.word_fields(&r.target, cx)?;
                    // A here-string is one word: bash does not split it
                    // (the analysis did, for an unquoted expansion).
                    here_string = Some(join_fields(&f).unwrap_or_else(|| Value::unknown("<<<")));
                }
                RedirKind::Dup => {}
            }
        }
        Ok(Redirs {
            list: out,
            here_string,
            read_from,
        })
    }

    /// A simple command. The outputs its own substitutions capture are its
    /// own words' (see [`captured`]): only values captured before it started
    /// carry commands into what it prints.
    fn simple(
        &mut self,
        c: &Command,
        assigns: &[Word],
        words: &[Word],
        stdin: Input,
        cx: &Cx,
    ) -> Result<Ran, ParseError> {
        let outer = std::mem::replace(&mut self.captured_before, self.captured.len());
        let r = self.simple_command(c, assigns, words, stdin, cx);
        self.captured_before = outer;
        r
    }

    fn simple_command(
        &mut self,
        c: &Command,
        assigns: &[Word],
        words: &[Word],
        stdin: Input,
        cx: &Cx,
    ) -> Result<Ran, ParseError> {
        // What the previous element of a pipeline prints (for `xargs`).
        let input_lines = self.input_lines.take();
        let input_text = self.input_text.take();
        // Substitutions run first: in assignments, then words, then redirections.
        // (Each word's substitutions are remembered: what they print, this
        // command reads.)
        let mut substituted = Vec::new();
        let mut assign_vals = Vec::new();
        for w in assigns {
            let first = self.out.len();
            let outs = self.outputs(w, cx)?;
            substituted.push((first..self.out.len(), w));
            let var = Expander { state: &self.state }.assignment(w, &outs);
            let name = w.assign.as_ref().map(|a| a.0.clone()).unwrap_or_default();
            assign_vals.push((name, var, w));
        }
        let mut fields = Vec::new();
        let mut word_outs = Vec::with_capacity(words.len());
        // The command word is text a decoder printed (`$(echo … | base64 -d)`):
        // code hidden behind an encoding, whatever it decodes to.
        let mut word_decoded = false;
        for (k, w) in words.iter().enumerate() {
            let first = self.out.len();
            let outs = self.outputs(w, cx)?;
            if k == 0 {
                word_decoded = self.out.get(first..).unwrap_or_default().iter().any(|sc| {
                    sc.via.len() == cx.via.len() + 1
                        && sc.via.starts_with(&cx.via)
                        && sc.via.last().is_some_and(|l| is_substitution(l))
                        && DECODERS.contains(&sc.program.as_str())
                });
            }
            substituted.push((first..self.out.len(), w));
            fields.extend(self.expand_word(w, &outs));
            word_outs.push(outs);
        }
        let reader = fields
            .first()
            .map(|f| basename(&f.text).to_string())
            .unwrap_or_default();
        // (`eval "$(tool init)"` reads its own word again: the rules about
        // shells judge what eval runs.)
        let name_printed = cx.via.last().is_none_or(|l| l != "eval")
            && words.first().is_some_and(|w| {
                w.subs
                    .iter()
                    .any(|s| matches!(s.kind, SubKind::Dollar | SubKind::Backtick))
            })
            && fields.first().is_some_and(|f| name_from_output(&f.value));
        for (range, w) in substituted {
            self.output_read_by(range, &cx.via, std::slice::from_ref(&reader), Some(&w.text));
        }
        let first = self.out.len();
        let Redirs {
            list: redirects,
            here_string,
            read_from,
        } = self.redirects(c, cx)?;
        // A here-string's substitutions (`<<< "$(…)"`) feed the command too.
        let redirected = first..self.out.len();
        self.output_read_by(redirected, &cx.via, std::slice::from_ref(&reader), Some(""));
        if !c.redirs.is_empty() {
            self.env_values_in_input(c, cx, here_string.as_ref(), &reader);
        }
        let (here, stdin) = match here_input(c, cx, &self.state, here_string.as_ref()) {
            Some(Some(h)) => (Some(h), stdin),
            // A here-string nobody can read beforehand is unknown input.
            Some(None) => (None, Input::Unknown),
            None => (None, stdin),
        };
        let assignments: Vec<(String, String)> =
            assigns.iter().filter_map(|w| w.assign.clone()).collect();

        let assign_values: Vec<Option<Value>> = assign_vals
            .iter()
            .map(|(_, var, _)| Some(var.scalar()))
            .collect();
        if fields.is_empty() {
            // Only assignments and redirections: the variables stay set.
            let mut s = (*self.state).clone();
            for (name, var, _) in assign_vals {
                s.set(base_name(&name), var, false);
            }
            for r in &redirects {
                if r.op != RedirectOp::Read {
                    remember_file(&mut s, r, None);
                }
            }
            self.state = Rc::new(s);
            let mut sc = SimpleCommand::with_values(
                String::new(),
                Vec::new(),
                Vec::new(),
                redirects,
                assignments.clone(),
                cx.via.clone(),
                c.offset,
            );
            sc.cwd = self.state.cwd.clone();
            sc.made = self.state.links.clone();
            self.push(sc);
            let at = self.out.len() - 1;
            let link = Link {
                cmd: c,
                redirects: Vec::new(),
                stdin: Input::None,
                here: None,
                here_data: None,
                here_value: None,
                read_from: None,
                input_lines: None,
                input_text: None,
            };
            self.variable_code(at, &assignments, &assign_values, &cx.via, &link, c.depth)?;
            self.assignment_arith(&assignments, &assign_values, cx, c.offset)?;
            return Ok(Ran {
                exit: Exit::same(&self.state),
                output: None,
                decoded: false,
                file: None,
            });
        }

        // An alias defined earlier in the command.
        if let Some(w) = words.first().filter(|w| w.plain) {
            if let Some(text) = self.state.aliases.get(&w.text).cloned() {
                if self.calls < MAX_REPARSE {
                    let mut script = text;
                    for f in fields.get(1..).unwrap_or_default() {
                        script.push(' ');
                        script.push_str(&requote(f));
                    }
                    let via = {
                        let mut v = cx.via.clone();
                        v.push(format!("alias {}", w.text));
                        v
                    };
                    self.calls += 1;
                    let out = self.nested(
                        &script,
                        c.depth + 1,
                        &via,
                        OffMap::At(c.offset, format!("alias {}", w.text)),
                        None,
                    );
                    self.calls -= 1;
                    let output = out?;
                    return Ok(Ran {
                        exit: Exit::same(&self.state),
                        output,
                        decoded: false,
                        file: None,
                    });
                }
            }
        }

        let link = Link {
            cmd: c,
            redirects,
            stdin: stdin.clone(),
            input_text,
            here,
            here_data: here_string.clone(),
            here_value: heredoc_value(c, cx, &self.state),
            read_from,
            input_lines,
        };
        // What the top-level program does, worked out before it is emitted
        // (it runs in the state before its own effect) and applied after.
        let prog = fields
            .first()
            .and_then(|f| f.value.literal())
            .map(|t| basename(&t).to_ascii_lowercase())
            .unwrap_or_default();
        let args = fields.get(1..).unwrap_or_default();
        // `CDPATH` for `cd`: set for it alone (`CDPATH=/ cd etc`) or in the shell.
        let cdpath = matches!(prog.as_str(), "cd" | "pushd" | "chdir")
            .then(|| {
                assign_vals
                    .iter()
                    .rev()
                    .find(|(name, _, _)| base_name(name) == "CDPATH")
                    .map(|(_, var, _)| var.scalar())
                    .or_else(|| self.state.vars.get("CDPATH").map(|b| b.var.scalar()))
            })
            .flatten();
        // What `read` reads: a pipe's known text, else a here-string or a
        // here-document (`read -r d <<< dist` sets `d` to `dist`).
        let read_input = link
            .input_text
            .as_ref()
            .map(|p| p.text.clone())
            .or_else(|| match link.here_data.as_ref().map(|v| v.0.as_slice()) {
                Some([one]) => Some(one.clone()),
                Some(_) => None,
                None => link.here.as_ref().map(|(t, _, _)| Sym::text(t)),
            });
        let effect = self.builtin(
            &prog,
            args,
            words,
            &word_outs,
            cdpath.as_ref(),
            read_input.as_ref(),
        );
        let output = self.output_of(&prog, args, &stdin, &link);
        // `cat FILE…` of files named outright prints them: code read from it
        // is a script file, like `sh FILE`.
        let printed_files = (output.is_none()
            && prog == "cat"
            && link.redirects.is_empty()
            && args.iter().any(|a| !a.text.starts_with('-'))
            && args.iter().all(|a| {
                a.text.starts_with('-')
                    || (a.text != "-"
                        && !a.value.has_unknown()
                        && !a
                            .value
                            .literal()
                            .is_some_and(|t| self.state.files.contains_key(&file_key(&t))))
            }))
        .then(|| {
            args.iter()
                .filter(|a| !a.text.starts_with('-'))
                .map(|a| a.value.clone())
                .collect::<Vec<Value>>()
        });
        let content = output.as_ref().map(|(v, _)| v.clone());
        let mut writes: Vec<(String, Written)> = Vec::new();
        for r in link.redirects.iter().filter(|r| r.op != RedirectOp::Read) {
            if let Some(t) = r.value.literal() {
                let w = if r.op == RedirectOp::Write && r.fd.is_none_or(|fd| fd == 1) {
                    written(content.as_ref())
                } else {
                    Written::Unknown
                };
                writes.push((file_key(&t), w));
            }
        }
        let by_operands = written_operands(&prog, args);
        for f in &by_operands {
            if let Some(t) = f.value.literal() {
                let c = if prog == "tee" {
                    content.as_ref()
                } else {
                    None
                };
                writes.push((file_key(&t), written(c)));
            }
        }
        // Any other program's files, by the table of write places, when it is
        // given a URL (`aria2c -o F URL`, `axel -o F URL`, `rclone copyurl URL
        // F`): they hold what the network gave, so a script run from one is
        // unknown code (cause from redteam5). `gcc -o app main.c` builds from
        // the project's files and is not one.
        if by_operands.is_empty()
            && args.iter().any(|a| a.text.contains("://"))
            && roles::may_write_files(&prog, args.iter().map(|a| a.text.as_str()))
        {
            writes.extend(
                roles::written_files(&prog, args)
                    .into_iter()
                    .map(|t| (file_key(&t), Written::Unknown)),
            );
        }
        writes.extend(
            remote_named(&prog, args)
                .into_iter()
                .map(|t| (file_key(&t), Written::Unknown)),
        );
        if let Some(dir) = unpacked_unknown(&prog, args, &stdin, &self.state.files) {
            writes.push((filled_key(&dir), Written::Unknown));
        }
        let call = match self.state.funcs.get(&prog) {
            Some(Func(body))
                if self.calls < MAX_REPARSE && !self.active.iter().any(|(n, ..)| *n == prog) =>
            {
                Some((
                    body.clone(),
                    args.iter().map(|a| a.value.clone()).collect::<Vec<_>>(),
                ))
            }
            _ => None,
        };

        // Builtins that do arithmetic with their arguments (see `arith`).
        let arith_args = matches!(
            prog.as_str(),
            "let"
                | "read"
                | "unset"
                | "printf"
                | "wait"
                | "test"
                | "["
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
                | "export"
        )
        .then(|| args.to_vec());
        let mark = self.out.len();
        self.chain(
            fields,
            assignments.clone(),
            cx.via.clone(),
            &link,
            c.depth,
            false,
        )?;
        // The program's own name is what a program prints (`$(curl …)`,
        // `$(cat cmd.txt) x`, `/usr/bin/$(…)`), not a folder before a name
        // (`$(npm bin)/eslint`): unknown code, whatever its arguments. (Text
        // `eval` runs is judged by the rules about shells.)
        let code = if word_decoded {
            Some(Code::Decoded)
        } else if name_printed {
            Some(Code::Dynamic)
        } else {
            None
        };
        if let Some(code) = code {
            let mut top = self.out.get_mut(mark..).unwrap_or_default().iter_mut();
            if let Some(sc) = top.find(|sc| sc.via == cx.via) {
                if sc.code.is_none() && (code == Code::Decoded || sc.program_unknown) {
                    sc.code = Some(code);
                }
            }
        }
        self.env_places(mark, &assign_vals);
        self.inherit_exports(mark);
        let made: Vec<MadeLink> = self
            .out
            .get(mark..)
            .unwrap_or_default()
            .iter()
            .flat_map(super::links::made_by)
            .collect();
        // Variables that hold code, set for the command or in the shell.
        self.variable_code(mark, &assignments, &assign_values, &cx.via, &link, c.depth)?;
        // Arithmetic a builtin does with its arguments, and in assignments.
        if let Some(a) = &arith_args {
            self.builtin_arith(&prog, a, cx, c.offset)?;
        }
        self.assignment_arith(&assignments, &assign_values, cx, c.offset)?;
        if matches!(
            prog.as_str(),
            "export" | "declare" | "typeset" | "local" | "readonly"
        ) {
            let set: Vec<(String, String)> = words
                .iter()
                .skip(1)
                .filter_map(|w| w.assign.clone())
                .collect();
            self.variable_code(mark, &set, &[], &cx.via, &link, c.depth)?;
        }

        let mut exit = effect.unwrap_or_else(|| Exit::same(&self.state));
        // A function defined earlier in the command: follow the call.
        if let Some((body, values)) = call {
            let mut p = vec![self
                .state
                .positional
                .as_ref()
                .and_then(|p| p.first().cloned())
                .unwrap_or_else(|| Value::unknown("$0"))];
            p.extend(values);
            let saved_pos = self.state.positional.clone();
            let mut s = (*self.state).clone();
            s.positional = Some(p);
            self.state = Rc::new(s);
            let fcx = cx.with_via(&prog);
            self.calls += 1;
            self.active.push((prog.clone(), self.forks, self.guards));
            let r = self.command(&body, stdin.clone(), &fcx);
            self.active.pop();
            self.calls -= 1;
            r?;
            let mut s = (*self.state).clone();
            s.positional = saved_pos;
            self.state = Rc::new(s);
            exit = Exit::same(&self.state);
        }
        // Files it wrote and links it made, whatever its exit status.
        if !writes.is_empty() || !made.is_empty() {
            let with_files = |st: Option<Rc<State>>| {
                st.map(|st| {
                    let mut s = (*st).clone();
                    s.files.extend(writes.iter().cloned());
                    add_links(&mut s.links, &made);
                    Rc::new(s)
                })
            };
            exit = Exit {
                ok: with_files(exit.ok),
                fail: with_files(exit.fail),
            };
        }
        let (output, decoded) = match output {
            // A redirected standard output is not the command's output.
            Some(_)
                if link
                    .redirects
                    .iter()
                    .any(|r| r.op != RedirectOp::Read && r.fd.is_none_or(|fd| fd == 1)) =>
            {
                (None, false)
            }
            Some((v, d)) => (Some(v), d),
            None => (None, false),
        };
        let file = printed_files;
        Ok(Ran {
            exit,
            output,
            decoded,
            file,
        })
    }

    /// What a builtin does to the shell (`cd`, `export`, `read`, `alias`, …),
    /// as the states after it succeeds and fails; `None` for other programs.
    fn builtin(
        &self,
        prog: &str,
        args: &[Field],
        words: &[Word],
        word_outs: &[Vec<Value>],
        cdpath: Option<&Value>,
        input: Option<&Sym>,
    ) -> Option<Exit> {
        let changed = |s: State| Some(Exit::same(&Rc::new(s)));
        match prog {
            "cd" | "pushd" | "popd" | "chdir" => Some(self.change_dir(prog, args, cdpath)),
            "exit" | "return" | "logout" => Some(Exit {
                ok: None,
                fail: None,
            }),
            "exec" if args.iter().any(|a| !a.text.starts_with('-')) => Some(Exit {
                ok: None,
                fail: None,
            }),
            "export" | "declare" | "typeset" | "local" | "readonly" => {
                let export = prog == "export" || args.iter().any(|a| a.text == "-x");
                let integer = args
                    .iter()
                    .any(|a| a.text.starts_with('-') && a.text.contains('i'));
                let mut s = (*self.state).clone();
                // `export -f f`, `declare -fx f`: child shells get the function.
                let flags: String = args
                    .iter()
                    .filter(|a| a.text.starts_with('-'))
                    .map(|a| a.text.as_str())
                    .collect();
                if flags.contains('f') && (prog == "export" || flags.contains('x')) {
                    for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                        s.exported_funcs.insert(a.text.clone());
                    }
                }
                if integer {
                    for w in words.iter().skip(1).filter(|w| !w.text.starts_with('-')) {
                        let name = match &w.assign {
                            Some((n, _)) => n.clone(),
                            None => w.text.clone(),
                        };
                        s.integers.insert(base_name(&name).to_string());
                    }
                }
                // `declare -n p=x`: `$p` is whatever `x` holds when it is read,
                // which later assignments may change: unknown.
                let nameref = prog != "export" && flags.contains('n');
                for (w, outs) in words.iter().zip(word_outs).skip(1) {
                    if nameref && !w.text.starts_with('-') {
                        let name = match &w.assign {
                            Some((n, _)) => n.clone(),
                            None => w.text.clone(),
                        };
                        let name = base_name(&name).to_string();
                        let value = Value::unknown(&format!("${name}"));
                        s.set(&name, Var::Scalar(value), export);
                    } else if w.assign.is_some() {
                        let var = Expander { state: &s }.assignment(w, outs);
                        let name = w.assign.as_ref().map(|a| a.0.clone()).unwrap_or_default();
                        s.set(base_name(&name), var, export);
                    } else if export && !w.text.starts_with('-') {
                        if let Some(b) = s.vars.get_mut(&w.text) {
                            b.exported = true;
                        }
                    }
                }
                changed(s)
            }
            "unset" => {
                let mut s = (*self.state).clone();
                let funcs = args.iter().any(|a| a.text == "-f");
                for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                    if funcs {
                        s.funcs.remove(&a.text);
                    } else {
                        s.set(&a.text, Var::Scalar(Value::text("")), false);
                    }
                }
                changed(s)
            }
            "read" | "mapfile" | "readarray" | "getopts" => {
                let mut s = (*self.state).clone();
                let mut names: Vec<&str> = Vec::new();
                // How `read` ends a line: a newline, or `-d C` (`-d ''`: a NUL).
                let mut split = Some(wrappers::XargsSplit::Delimiter('\n'));
                let mut i = 0;
                while let Some(a) = args.get(i) {
                    if a.text.starts_with('-') {
                        // Options with a value: `-a NAME`, `-p prompt`, `-d`, `-n`, `-t`, `-u`.
                        if matches!(a.text.as_str(), "-a") {
                            if let Some(n) = args.get(i + 1) {
                                names.push(&n.text);
                            }
                            split = None;
                            i += 2;
                            continue;
                        }
                        if a.text == "-d" {
                            split = args.get(i + 1).and_then(|d| d.value.literal()).map(|d| {
                                wrappers::XargsSplit::Delimiter(d.chars().next().unwrap_or('\0'))
                            });
                        }
                        if matches!(a.text.as_str(), "-n" | "-N" | "-u") {
                            split = None;
                        }
                        if matches!(
                            a.text.as_str(),
                            "-p" | "-d"
                                | "-n"
                                | "-N"
                                | "-t"
                                | "-u"
                                | "-i"
                                | "-C"
                                | "-c"
                                | "-O"
                                | "-s"
                        ) {
                            i += 2;
                            continue;
                        }
                    } else {
                        names.push(&a.text);
                    }
                    i += 1;
                }
                if prog == "getopts" {
                    names = names.into_iter().skip(1).take(1).collect();
                }
                if names.is_empty() {
                    names.push(if prog == "read" { "REPLY" } else { "MAPFILE" });
                }
                // One name `read` gives a line of what a pipe hands it, when
                // the analysis knows the names printed there (`find ~ -type
                // f | while read f; do rm "$f"; done`): any one of them.
                let lines = match (prog, names.as_slice(), split, input) {
                    ("read", [_], Some(split), Some(text)) => wrappers::xargs_values(text, split),
                    _ => None,
                };
                // What was read (not the environment's value of the name).
                for n in names {
                    let read = match &lines {
                        Some(items) if !items.is_empty() => {
                            items.iter().fold(Value::default(), |mut v, item| {
                                v.add(item.clone());
                                v
                            })
                        }
                        _ => Value::unknown(&format!("${n} (input)")),
                    };
                    s.set(n, Var::Scalar(read), false);
                }
                changed(s)
            }
            "alias" => {
                let mut s = (*self.state).clone();
                for a in args {
                    if let Some((n, v)) = a.text.split_once('=') {
                        s.aliases.insert(n.to_string(), v.to_string());
                    }
                }
                changed(s)
            }
            // `hash -p PATH NAME…`: NAME runs PATH (`hash -p /bin/rm ls; ls`);
            // `hash -d NAME`, `hash -r` forget.
            "hash" => {
                let mut s = (*self.state).clone();
                let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
                if texts.contains(&"-r") {
                    s.hashed.clear();
                }
                let forget = texts.contains(&"-d");
                match texts.iter().position(|t| *t == "-p") {
                    Some(k) => {
                        let path = texts.get(k + 1).copied().unwrap_or_default();
                        for name in texts.iter().skip(k + 2).filter(|t| !t.starts_with('-')) {
                            s.hashed.insert((*name).to_string(), path.to_string());
                        }
                    }
                    None if forget => {
                        for name in texts.iter().filter(|t| !t.starts_with('-')) {
                            s.hashed.remove(*name);
                        }
                    }
                    None => {}
                }
                changed(s)
            }
            "unalias" => {
                let mut s = (*self.state).clone();
                for a in args {
                    s.aliases.remove(&a.text);
                }
                changed(s)
            }
            "printf" if args.first().is_some_and(|a| a.text == "-v") => {
                if let Some(name) = args.get(1) {
                    let v = printf_value(args.get(2..).unwrap_or_default());
                    let mut s = (*self.state).clone();
                    s.set(&name.text, Var::Scalar(v), false);
                    changed(s)
                } else {
                    None
                }
            }
            "set" => {
                if let Some(k) = args.iter().position(|a| a.text == "--") {
                    let mut s = (*self.state).clone();
                    let zero = s
                        .positional
                        .as_ref()
                        .and_then(|p| p.first().cloned())
                        .unwrap_or_else(|| Value::unknown("$0"));
                    let mut p = vec![zero];
                    p.extend(
                        args.get(k + 1..)
                            .unwrap_or_default()
                            .iter()
                            .map(|a| a.value.clone()),
                    );
                    s.positional = Some(p);
                    changed(s)
                } else {
                    None
                }
            }
            "shift" => {
                let n = args
                    .first()
                    .and_then(|a| a.text.parse::<usize>().ok())
                    .unwrap_or(1);
                let mut s = (*self.state).clone();
                if let Some(p) = s.positional.as_mut() {
                    let keep = p.first().cloned();
                    let rest: Vec<Value> = p.iter().skip(1 + n).cloned().collect();
                    *p = keep.into_iter().chain(rest).collect();
                }
                changed(s)
            }
            _ => None,
        }
    }

    /// `cd` / `pushd` / `popd`: the states after success and failure.
    ///
    /// With `CDPATH` set, a relative folder that does not start with `.` or
    /// `..` is looked for in each of its folders first (bash's `cd`, POSIX):
    /// `CDPATH=/ cd etc` is `cd /etc` when there is one, else `./etc`; both
    /// are kept. A `CDPATH` nobody can read makes such a folder unknown.
    fn change_dir(&self, prog: &str, args: &[Field], cdpath: Option<&Value>) -> Exit {
        let old = self.state.cwd.clone();
        let operands: Vec<&Field> = args
            .iter()
            .filter(|a| !(a.text.starts_with('-') && a.text.len() > 1) || a.text == "-")
            .collect();
        let mut s = (*self.state).clone();
        let target = match prog {
            "popd" => match s.dirs.pop() {
                Some(d) => d,
                None => Value::unknown("popd"),
            },
            _ => match operands.first() {
                None if prog == "pushd" => match s.dirs.pop() {
                    Some(d) => d,
                    None => Value::unknown("pushd"),
                },
                None => Value::one(Sym::piece(Piece::Home)),
                Some(f) if f.text == "-" => self.state.oldpwd.clone(),
                Some(f) => f.value.clone(),
            },
        };
        if prog == "pushd" {
            s.dirs.push(old.clone());
        }
        s.cwd = resolve_dir(&old, &target);
        let searched = prog != "popd"
            && target.literal().is_some_and(|t| {
                !t.is_empty()
                    && !t.starts_with('/')
                    && t != "-"
                    && ![".", ".."]
                        .iter()
                        .any(|d| t == *d || t.starts_with(&format!("{d}/")))
            });
        if let Some(cdpath) = cdpath.filter(|_| searched) {
            // Each alternative's folders, split at `:` in its text; a folder
            // the analysis names (`CDPATH=$HOME`) is kept whole.
            for list in &cdpath.0 {
                for entry in split_at_colons(list) {
                    if entry.has_unknown() {
                        s.cwd = s.cwd.clone().union(&Value::unknown("CDPATH"));
                        continue;
                    }
                    let from = resolve_dir(&old, &Value::one(entry));
                    s.cwd = s.cwd.clone().union(&resolve_dir(&from, &target));
                }
            }
        }
        s.oldpwd = old;
        Exit {
            ok: Some(Rc::new(s)),
            fail: Some(self.state.clone()),
        }
    }

    /// `$@` of the current shell, as one value.
    fn positional_all(&self) -> Value {
        match &self.state.positional {
            Some(p) => {
                let mut v = Value::default();
                for x in p.iter().skip(1) {
                    v = v.union(x);
                }
                v
            }
            None => Value::unknown("$@"),
        }
    }

    /// What a command prints, when the analysis can tell (and whether it was
    /// decoded from known input).
    fn output_of(
        &self,
        prog: &str,
        args: &[Field],
        stdin: &Input,
        link: &Link,
    ) -> Option<(Value, bool)> {
        let cwd = &self.state.cwd;
        let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
        let known_in = || -> Option<String> {
            match (&link.here, stdin) {
                // A here-string's data is its value (`<<< ~` is home).
                (Some(_), _) if link.here_data.is_some() => link
                    .here_data
                    .as_ref()
                    .and_then(Value::literal)
                    .map(|l| format!("{l}\n")),
                (Some((t, _, _)), _) => Some(t.clone()),
                (None, Input::Known(v)) => v.literal(),
                (None, Input::Decoded(t)) => Some(t.clone()),
                _ => None,
            }
        };
        Some(match prog {
            "echo" => {
                let n = texts
                    .iter()
                    .take_while(|a| {
                        a.strip_prefix('-').is_some_and(|f| {
                            !f.is_empty() && f.chars().all(|c| matches!(c, 'n' | 'e' | 'E'))
                        })
                    })
                    .count();
                let v = join_fields(args.get(n..).unwrap_or_default())?;
                // bash's echo prints backslashes as they are unless given `-e`;
                // zsh's and dash's (`sh -c`) interpret them (`\n`, `\c`, `\0NNN`):
                // both, unless a flag says which.
                let flags: String = texts.get(..n).unwrap_or_default().concat();
                // (a pattern prints the names it matches: kept as the pattern)
                match v.literal().filter(|_| !has_pattern(&v)) {
                    Some(t) => {
                        let escaped = literal::unescape_echo(&t);
                        let out = match flags.rfind(['e', 'E']).and_then(|k| flags.get(k..=k)) {
                            Some("e") => Value::text(&escaped),
                            Some(_) => Value::text(&t),
                            None => Value::text(&t).union(&Value::text(&escaped)),
                        };
                        (out, false)
                    }
                    None => (v, false),
                }
            }
            "printf" if texts.first() != Some(&"-v") => (printf_value(args), false),
            "pwd" => (cwd.clone(), false),
            // `tee` passes its input on (and writes it to its files).
            "tee" => match (&link.here, stdin) {
                (None, Input::Known(v)) => (v.clone(), false),
                _ => (
                    Value::text(&known_in()?),
                    link.here.is_none() && matches!(stdin, Input::Decoded(_)),
                ),
            },
            // Where a link there leads (`readlink keys` prints `~/.ssh`).
            "realpath" | "readlink" | "grealpath" | "greadlink" => {
                let f = args.iter().find(|a| !a.text.starts_with('-'))?;
                (resolve_dir(cwd, &f.value).followed(), false)
            }
            "dirname" => {
                let f = args.iter().find(|a| !a.text.starts_with('-'))?;
                (
                    resolve_dir(cwd, &f.value).concat(&Value::text("/..")),
                    false,
                )
            }
            "basename" => {
                let f = args.iter().find(|a| !a.text.starts_with('-'))?;
                let t = f.value.literal()?;
                (Value::text(basename(t.trim_end_matches('/'))), false)
            }
            "git" if texts.contains(&"rev-parse") && texts.contains(&"--show-toplevel") => {
                (Value::one(Sym::piece(Piece::Project)), false)
            }
            // Python's per-user folders (`python3 -m site --user-site`): where
            // a `.pth` file runs at every Python start.
            p if (p == "python" || p.starts_with("python3") || p.starts_with("python2"))
                && texts.windows(2).any(|w| w == ["-m", "site"]) =>
            {
                let mut place = Sym::piece(Piece::Home);
                if texts.contains(&"--user-site") {
                    place.push(Piece::Text("/.local/lib/".into()));
                    place.push(Piece::Glob("python*".into()));
                    place.push(Piece::Text("/site-packages".into()));
                } else if texts.contains(&"--user-base") {
                    place.push(Piece::Text("/.local".into()));
                } else {
                    return None;
                }
                (Value::one(place), false)
            }
            "mktemp" | "gmktemp" => (mktemp(cwd, args), false),
            // Names git lists (tracked, changed, untracked files) are relative
            // to the folder it runs in: names below it (`rm $(git ls-files
            // --deleted)`). Pointed at another repository (`-C`, `--git-dir`),
            // they are that repository's: not known here.
            "git" if git_lists_names(&texts) => (cwd.below(), false),
            "ls" | "gls" => (ls_output(cwd, args)?, false),
            // The paths it finds: what `-exec … {}` would get (`cat $(find .
            // -name '.env*')` reads what `.env*` names).
            "find"
                if !texts
                    .iter()
                    .any(|a| a.starts_with("-printf") || a.starts_with("-fprint")) =>
            {
                (resolve_dir(cwd, &find_targets(args)), false)
            }
            // What `fd` prints when nothing narrows it: every name there (a
            // pattern's names are found only when it runs).
            "fd" | "fdfind" if !texts.iter().any(|a| wrappers::FD_EXEC.contains(a)) => {
                let found = fd_targets(args);
                let every = found
                    .0
                    .iter()
                    .any(|s| matches!(s.0.last(), Some(Piece::Glob(g)) if g == "*"));
                if !every {
                    return None;
                }
                (resolve_dir(cwd, &found), false)
            }
            "whoami" | "logname" => (Value::one(Sym::piece(Piece::Env("USER".into()))), false),
            "id" if texts.contains(&"-un") || (texts.contains(&"-u") && texts.contains(&"-n")) => {
                (Value::one(Sym::piece(Piece::Env("USER".into()))), false)
            }
            "which" | "command" | "type" => {
                let name = texts.iter().rev().find(|a| !a.starts_with('-'))?;
                (Value::text(&format!("/usr/bin/{}", basename(name))), false)
            }
            // Version managers and toolchains that print the path of the
            // program they are asked about (`$(pyenv which python) -m pytest`).
            "pyenv" | "rbenv" | "nodenv" | "goenv" | "jenv" | "plenv" | "asdf" | "mise" | "rtx"
            | "rustup"
                if texts.first() == Some(&"which") =>
            {
                let name = texts.iter().skip(1).rev().find(|a| !a.starts_with('-'))?;
                (Value::text(&format!("/usr/bin/{}", basename(name))), false)
            }
            "xcrun" if texts.iter().any(|a| matches!(*a, "-f" | "--find")) => {
                let name = texts.iter().rev().find(|a| !a.starts_with('-'))?;
                (Value::text(&format!("/usr/bin/{}", basename(name))), false)
            }
            "cat" if texts.iter().all(|a| a.starts_with('-') || *a == "-") => match &link.here {
                // A here-string prints its value (`cat <<< ~`: home).
                Some(_)
                    if link
                        .here_data
                        .as_ref()
                        .is_some_and(|v| v.literal().is_none()) =>
                {
                    (link.here_data.clone()?, false)
                }
                Some(_) if link.here_value.is_some() => (link.here_value.clone()?, false),
                Some((t, _, _)) => (Value::text(t), false),
                None => match stdin {
                    Input::Known(v) => (v.clone(), false),
                    Input::Decoded(t) => (Value::text(t), true),
                    _ => return None,
                },
            },
            "cat" => {
                let f = args.iter().find(|a| !a.text.starts_with('-'))?;
                let key = file_key(&f.value.literal()?);
                match self.state.files.get(&key)? {
                    Written::Text(t) => (t.clone(), false),
                    Written::Unknown => return None,
                }
            }
            "base64" | "gbase64" | "openssl"
                if texts
                    .iter()
                    .any(|a| matches!(*a, "-d" | "--decode" | "-D" | "-di" | "-id")) =>
            {
                let t = known_in()?;
                (Value::text(&literal::base64_decode(&t)?), true)
            }
            "base32" => return None,
            "xxd" if texts.contains(&"-r") => {
                let t = known_in()?;
                (Value::text(&literal::hex_decode(&t)?), true)
            }
            "rev" if args.is_empty() => (Value::text(&literal::rev(&known_in()?)), true),
            "tr" if texts.len() == 2
                && matches!(texts[0], "A-Za-z" | "a-zA-Z" | "[A-Za-z]")
                && matches!(texts[1], "N-ZA-Mn-za-m" | "n-za-mN-ZA-M") =>
            {
                (Value::text(&literal::rot13(&known_in()?)), true)
            }
            _ => return None,
        })
    }

    /// The command a container runs (`docker run … IMAGE CMD…`): reported
    /// with `PROG run` in its `via`, starting in the container's working
    /// folder with the container's home, and every path of it (and of what it
    /// runs) mapped back through the bind mounts (see `container`).
    #[allow(clippy::too_many_arguments)]
    fn container(
        &mut self,
        arg_fields: &[Field],
        cmd: &[usize],
        mounts: &[container::MountArg],
        workdir: Option<(usize, usize)>,
        privileged: bool,
        prog: &str,
        mut via: Vec<String>,
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let mut view = container::View {
            mounts: vec![],
            privileged,
        };
        for m in mounts {
            let Some(f) = arg_fields.get(m.arg) else {
                continue;
            };
            for (dst, src) in container::mounts_of(&f.value, m) {
                let host = resolve_dir(&self.state.cwd, &Value::one(src));
                view.mounts.push((dst, host));
            }
        }
        let fields: Vec<Field> = cmd
            .iter()
            .filter_map(|i| arg_fields.get(*i).cloned())
            .collect();
        let saved = self.state.clone();
        let mut inside = (*self.state).clone();
        inside.cwd = match workdir.and_then(|(i, skip)| arg_fields.get(i).map(|f| (f, skip))) {
            Some((f, 0)) => f.value.clone(),
            Some((f, skip)) => Value::text(f.text.get(skip..).unwrap_or_default()),
            None => Value::one(Sym::piece(Piece::Contained(
                "(the image's working folder)".into(),
            ))),
        };
        inside.set("HOME", Var::Scalar(Value::text("/root")), true);
        self.state = Rc::new(inside);
        via.push(format!("{prog} run"));
        let mark = self.out.len();
        let r = self.chain(fields, Vec::new(), via, link, depth + 1, false);
        self.state = saved;
        r?;
        for c in &mut self.out[mark..] {
            view.map_command(c, &link.redirects);
        }
        Ok(())
    }

    /// Emit `fields` as a command, then whatever it runs, wrapper by wrapper.
    /// `from_input`: operands are added from input (`xargs`).
    fn chain(
        &mut self,
        mut fields: Vec<Field>,
        mut assigns: Vec<(String, String)>,
        mut via: Vec<String>,
        link: &Link,
        depth: usize,
        mut from_input: bool,
    ) -> Result<(), ParseError> {
        let off = link.cmd.offset;
        if depth > MAX_DEPTH || syntax::stack_low(depth) {
            return Err(perr(format!("nesting deeper than {MAX_DEPTH} levels"), off));
        }
        let mut hops = 0;
        // Set by `xargs -P 0`: it starts its commands all at once, once per
        // input line (1 when the count is not known).
        let mut unlimited: Option<u64> = None;
        loop {
            self.tick(off)?;
            let Some(first) = fields.first() else {
                return Ok(());
            };
            // A program name with several known spellings: follow each.
            if first.value.0.len() > 1 {
                let alts = first.value.0.clone();
                let mut any_unknown = false;
                for a in alts {
                    match a.literal() {
                        Some(t) => {
                            let mut f = fields.clone();
                            f[0] = Field::literal(&t);
                            self.chain(
                                f,
                                assigns.clone(),
                                via.clone(),
                                link,
                                depth + 1,
                                from_input,
                            )?;
                        }
                        None => any_unknown = true,
                    }
                }
                if !any_unknown {
                    return Ok(());
                }
            }
            // `hash -p PATH NAME` earlier in this shell: NAME runs PATH.
            if !first.text.contains('/') {
                if let Some(p) = self.state.hashed.get(&first.text).cloned() {
                    if p != first.text {
                        hops += 1;
                        if hops > MAX_WRAPPERS {
                            return Err(perr(
                                format!("more than {MAX_WRAPPERS} nested command wrappers"),
                                off,
                            ));
                        }
                        via.push(format!("hash -p {}", first.text));
                        fields[0] = Field::literal(&p);
                        continue;
                    }
                }
            }
            let path = first.text.clone();
            // The running shell's own binary (`/proc/self/exe`, `/proc/$$/exe`).
            let running_shell = matches!(
                path.as_str(),
                "/proc/self/exe" | "/proc/thread-self/exe" | "/proc/$$/exe" | "/proc/${$}/exe"
            );
            // A program word the shell globs (`/???/r?`) names whatever it
            // matches when the command runs: unknown, like `$X`.
            let globbed = first.value.0.iter().any(|s| {
                s.0.iter().enumerate().any(|(k, p)| match p {
                    Piece::Glob(t) if t == "[" => s.0[k + 1..]
                        .iter()
                        .any(|q| matches!(q, Piece::Text(t) | Piece::Glob(t) if t.contains(']'))),
                    Piece::Glob(_) => true,
                    _ => false,
                })
            });
            let program_unknown =
                !running_shell && (globbed || first.value.0.iter().any(|s| s.literal().is_none()));
            let prog = if running_shell {
                "bash".to_string()
            } else {
                program_name(&path).to_string()
            };
            let arg_fields = fields.get(1..).unwrap_or_default();
            let texts: Vec<String> = arg_fields.iter().map(|f| f.text.clone()).collect();
            let values: Vec<Value> = arg_fields.iter().map(|f| f.value.clone()).collect();
            let action = if program_unknown {
                Action::None
            } else {
                wrappers::classify(&prog, &texts)
            };
            let mut sc = SimpleCommand::with_values(
                path.clone(),
                texts.clone(),
                values,
                link.redirects.clone(),
                assigns.clone(),
                via.clone(),
                off,
            );
            sc.cwd = self.state.cwd.clone();
            sc.made = self.state.links.clone();
            if running_shell {
                sc.program = prog.clone();
            }
            sc.program_unknown = program_unknown;
            sc.operands_from_input = from_input;
            sc.background_jobs = match unlimited {
                Some(lines) => self.repeats.saturating_mul(lines),
                None => self.background_jobs,
            };
            let name = prog.to_ascii_lowercase();
            // A call of the function it is in, from a new process, that
            // nothing in the body guards (a base case makes recursion end).
            sc.forks_itself = self.active.iter().any(|(n, forks, guards)| {
                *n == name && self.forks > *forks && self.guards == *guards
            });
            self.push(sc);
            let at = self.out.len() - 1;
            if !program_unknown {
                if let Some(reach) = env_values::reach_of(&name) {
                    self.env_values_in_args(reach, &name, arg_fields, &via, link, off);
                } else if name == "printenv" {
                    // `printenv NAME` of a variable the line exported.
                    let values: Vec<Value> = texts
                        .iter()
                        .filter_map(|n| self.state.vars.get(n))
                        .map(|b| b.var.scalar())
                        .collect();
                    let into = captured::Into::Printed(&link.redirects);
                    for v in &values {
                        self.captured_reached(v, "printenv", &into, &via);
                    }
                }
            }
            if !program_unknown && places::has_places(&name) {
                self.code_places(at, &name, arg_fields, &texts, &assigns, &via, link, depth)?;
            }
            if !program_unknown {
                self.side_removals(at, &via, off);
                if !path.contains('/')
                    && !SHELL_BUILTINS.contains(&path.as_str())
                    && self.path_has_unseen_folder(&assigns)
                {
                    self.set_code(at, Code::Dynamic);
                }
            }
            // The wrapper's name in `via`, unless it says otherwise.
            let mut via_label: Option<&str> = None;
            let extra = match action {
                Action::None => {
                    // A Windows shell (`pwsh -c`, `powershell -EncodedCommand`,
                    // `cmd /c`): its code read as the shell it is.
                    let arg_values: Vec<Value> =
                        arg_fields.iter().map(|f| f.value.clone()).collect();
                    let mut v = via.clone();
                    v.push(format!("{prog} -c"));
                    if let Some(r) = self.windows_shell(at, &prog, &arg_values, &v, link, off) {
                        return r;
                    }
                    // An interpreter given code inline or on its input.
                    if let Some((lang, codes, stdin)) = wrappers::interpreter(&prog, &texts) {
                        let code = InlineCode { lang, codes, stdin };
                        self.inline_code(
                            at,
                            &code,
                            arg_fields,
                            &prog,
                            &via,
                            link,
                            depth,
                            Code::Inline,
                        )?;
                        return Ok(());
                    }
                    // An interpreter running a file this line wrote (`echo …
                    // > x.py; python3 x.py`): the text written is its code,
                    // read as the same text given inline.
                    if let Some((lang, written)) = wrappers::interpreter_script(&prog, &texts)
                        .and_then(|(lang, k)| Some((lang, self.written_code(arg_fields.get(k)?)?)))
                    {
                        let code = InlineCode {
                            lang,
                            codes: vec![0],
                            stdin: false,
                        };
                        let args = [written];
                        self.inline_code(
                            at,
                            &code,
                            &args,
                            &prog,
                            &via,
                            link,
                            depth,
                            Code::Written,
                        )?;
                        return Ok(());
                    }
                    // A file written earlier in this command, run by path.
                    if self.written_unknown(&path) {
                        // Downloaded or produced at run time (`curl -o x.sh …
                        // && ./x.sh`): nobody has read it.
                        self.set_code(at, Code::Dynamic);
                    } else if let Some(text) = self.written_script(&path) {
                        let mut v = via.clone();
                        v.push(format!("{prog} (written)"));
                        let map = OffMap::At(off, prog.clone());
                        let grammar = shebang_grammar(&text);
                        self.emitted(
                            at,
                            &text,
                            Code::Written,
                            depth + 1,
                            &v,
                            map,
                            Some(None),
                            grammar,
                        )?;
                    }
                    // A program that takes a command as its trailing words
                    // (`my-tool --retry 3 rm -rf ~`): when those words are a
                    // destructive command, it may run them; judged one step
                    // down (a deny asks), since many programs only take
                    // such words as data.
                    if let Some(k) = trailing_command(&prog, arg_fields) {
                        let mark = self.out.len();
                        let mut v = via.clone();
                        v.push(format!("{prog} (trailing words)"));
                        let words = arg_fields.get(k..).unwrap_or_default().to_vec();
                        self.chain(words, Vec::new(), v, link, depth + 1, false)?;
                        for c in self.out.get_mut(mark..).unwrap_or_default() {
                            c.uncertain = true;
                        }
                    }
                    // A program given `-c TEXT` whose options the analysis
                    // does not know (`foosh -c 'rm -rf ~'`): shells take their
                    // code so, so when TEXT is a shell command line that
                    // destroys, it may run it; judged one step down, since
                    // for many programs `-c` takes something else.
                    if let Some(text) = shell_like_option(&prog, arg_fields) {
                        let mark = self.out.len();
                        let saved = self.state.clone();
                        let mut v = via.clone();
                        v.push(format!("{prog} -c (a shell's code?)"));
                        let map = OffMap::At(off, format!("{prog} -c"));
                        let parsed =
                            self.nested_as(Grammar::Sh, &text, depth + 1, &v, map, Some(None));
                        let destroys = self.out.get(mark..).unwrap_or_default().iter().any(|c| {
                            TRAILING_DESTRUCTIVE.contains(&c.program.as_str())
                                || c.program.starts_with("mkfs.")
                        });
                        if parsed.is_err() || !destroys {
                            self.out.truncate(mark);
                            self.state = saved;
                        } else {
                            for c in self.out.get_mut(mark..).unwrap_or_default() {
                                c.uncertain = true;
                            }
                        }
                    }
                    return Ok(());
                }
                Action::Error(msg) => return Err(perr(msg, off)),
                Action::Exec { skip, assigns } => {
                    fields = fields.split_off((skip + 1).min(fields.len()));
                    assigns
                }
                Action::ReplaceIn {
                    words: w,
                    assigns: extra,
                    dir,
                } => {
                    // The command runs in that folder; this shell stays where
                    // it is.
                    let dir = match dir {
                        Ok(k) => arg_fields
                            .get(k)
                            .map_or_else(|| Value::unknown("env -C"), |f| f.value.clone()),
                        Err(t) => self.split_string_word(&t).value,
                    };
                    let rest: Vec<Field> = w
                        .iter()
                        .filter_map(|o| match o {
                            Ok(k) => arg_fields.get(*k).cloned(),
                            Err(t) => Some(self.split_string_word(t)),
                        })
                        .collect();
                    via.push(prog.to_ascii_lowercase());
                    self.variable_code(at, &extra, &[], &via, link, depth)?;
                    assigns.extend(extra);
                    let mut s = (*self.state).clone();
                    s.cwd = resolve_dir(&s.cwd, &dir);
                    let saved = std::mem::replace(&mut self.state, Rc::new(s));
                    let r = self.chain(rest, assigns, via, link, depth + 1, from_input);
                    self.state = saved;
                    return r;
                }
                Action::Replace { words: w, assigns } => {
                    fields = w
                        .iter()
                        .filter_map(|o| match o {
                            Ok(k) => arg_fields.get(*k).cloned(),
                            Err(t) => Some(self.split_string_word(t)),
                        })
                        .collect();
                    assigns
                }
                Action::Script {
                    text,
                    label,
                    from,
                    positional,
                } => {
                    let code_fields = arg_fields.get(from.clone()).unwrap_or_default();
                    let known = code_fields.iter().all(|f| f.value.literal().is_some());
                    // Code that starts with an unknown value (`bash -c "$X"`,
                    // `xargs -I{} sh -c '{}'`) is unknown code.
                    let starts_unknown = code_fields.first().is_some_and(|f| {
                        f.value
                            .0
                            .iter()
                            .any(|s| matches!(s.0.first(), Some(Piece::Unknown(_))))
                    });
                    // Code that is the text of files on disk (`sh -c "$(cat
                    // f)"`, `eval "$(< f)"`) runs what they hold, as `sh f`
                    // does: read from disk later, by `script_files`.
                    if let [Field {
                        printed: Some(files),
                        content: None,
                        ..
                    }] = code_fields
                    {
                        let on_disk = files.iter().all(|v| {
                            v.literal()
                                .is_some_and(|t| written_at(&self.state.files, &t).is_none())
                        });
                        if on_disk && !matches!(label.as_str(), "trap" | "ssh (remote command)") {
                            self.set_code(at, Code::File);
                            self.stdin_files(at, files, places::Lang::Sh);
                            return Ok(());
                        }
                    }
                    self.set_code(at, Code::Inline);
                    via.push(label.clone());
                    let same_shell = matches!(label.as_str(), "eval" | "trap");
                    let child = if same_shell {
                        None
                    } else {
                        Some(match positional {
                            Some(p) if !from_input => Some(
                                arg_fields
                                    .get(p..)
                                    .unwrap_or_default()
                                    .iter()
                                    .map(|f| f.value.clone())
                                    .collect(),
                            ),
                            _ => None,
                        })
                    };
                    let mark = self.out.len();
                    let remote = label == "ssh (remote command)";
                    // The shell that reads the text: `sh -c` is /bin/sh, and so
                    // are the shells `watch`, `flock -c` and `script -c` start;
                    // `eval` and `trap` read it in this shell.
                    let grammar = match label.as_str() {
                        "watch" | "flock -c" | "script -c" => Grammar::Sh,
                        _ if same_shell => Grammar::Same,
                        _ => Grammar::of(&prog),
                    };
                    if label == "trap" {
                        if !known && starts_unknown {
                            self.set_code(at, Code::Dynamic);
                        }
                        self.traps.push(Trap {
                            text,
                            via,
                            depth: depth + 1,
                            map: OffMap::At(off, label),
                            at,
                        });
                        return Ok(());
                    }
                    let map = OffMap::At(off, label);
                    let saved = self.state.clone();
                    // fish's own blocks (`for …; …; end`), which sh refuses,
                    // are read as the sh they mean.
                    let fish = (prog == "fish"
                        && super::syntax::parse_script(&text, depth + 1).is_err())
                    .then(|| super::fish::to_sh(&text))
                    .flatten();
                    let (grammar, text) = match fish {
                        Some(sh) => (Grammar::Bash, sh),
                        None => (grammar, text),
                    };
                    if let Err(e) =
                        self.nested_as(grammar, &text, depth + 1, &via, map.clone(), child.clone())
                    {
                        // A text the shell refuses runs only the complete
                        // commands before the refused one (`watch cls meth
                        // '"5".equals(p[0])'`: nothing); a shell of another
                        // family (fish's `a(b)` is a substitution, a remote
                        // login shell) is not known to refuse it.
                        let sh_family = grammar == Grammar::Sh || prog.eq_ignore_ascii_case("bash");
                        let runs = (sh_family && !remote)
                            .then(|| runs_before_refusal(&text, depth + 1, grammar == Grammar::Sh))
                            .flatten();
                        let Some(before) = runs else { return Err(e) };
                        self.out.truncate(mark);
                        self.state = saved;
                        if !before.trim().is_empty() {
                            self.nested_as(grammar, before, depth + 1, &via, map, child)?;
                        }
                    }
                    // Unknown text in the code is data (`bash -c "echo $X"`)
                    // unless it decides what runs (`bash -c "$X"`, `eval
                    // "$(…)"`): then the code itself is unknown. Known text
                    // that runs a program the analysis cannot name (`sh -c
                    // '$CMD'`: the variable is the child's, from the
                    // environment) is unknown code the same way.
                    if (!known && starts_unknown) || self.ran_unknown_program(mark) {
                        self.set_code(at, Code::Dynamic);
                    }
                    if remote {
                        self.remote_shell_input(mark, link, depth)?;
                    }
                    return Ok(());
                }
                Action::Stdin => {
                    self.stdin_script(at, &prog, &via, link, depth)?;
                    return Ok(());
                }
                Action::File(i) => {
                    self.file_script(at, &prog, arg_fields.get(i), &via, link, depth)?;
                    return Ok(());
                }
                Action::Find(cmds) => {
                    let fd = matches!(prog.as_str(), "fd" | "fdfind");
                    let targets = if fd {
                        fd_targets(arg_fields)
                    } else {
                        find_targets(arg_fields)
                    };
                    let placeholder = |t: &str| {
                        if fd {
                            ["{}", "{/}", "{//}", "{.}", "{/.}"]
                                .iter()
                                .any(|p| t.contains(p))
                        } else {
                            t.contains("{}")
                        }
                    };
                    for (label, range) in cmds {
                        let mut v = via.clone();
                        v.push(label);
                        let mut ws: Vec<Field> = arg_fields
                            .get(range)
                            .unwrap_or_default()
                            .iter()
                            .map(|f| {
                                if !placeholder(&f.text) {
                                    f.clone()
                                } else if fd || f.text == "{}" {
                                    Field {
                                        text: f.text.clone(),
                                        value: targets.clone(),
                                        content: None,
                                        printed: None,
                                    }
                                } else {
                                    // `{}` inside a word (`{}/`, `{}.bak`): each
                                    // name in its place, so `-exec rm -rf {}/`
                                    // goes through a link it finds.
                                    let value = targets.0.iter().fold(Value::default(), |v, t| {
                                        v.union(&substituted(&f.value, "{}", t))
                                    });
                                    Field {
                                        text: f.text.clone(),
                                        value,
                                        content: None,
                                        printed: None,
                                    }
                                }
                            })
                            .collect();
                        // fd adds the path last when no word asks for it.
                        if fd && !ws.iter().any(|f| placeholder(&f.text)) {
                            ws.push(Field {
                                text: "{}".into(),
                                value: targets.clone(),
                                content: None,
                                printed: None,
                            });
                        }
                        self.chain(ws, Vec::new(), v, link, depth + 1, false)?;
                    }
                    return Ok(());
                }
                Action::Xargs {
                    skip,
                    replace,
                    split,
                } => {
                    if xargs_unlimited(&texts[..skip.min(texts.len())]) {
                        unlimited = Some(link.input_lines.unwrap_or(1));
                    }
                    fields = fields.split_off((skip + 1).min(fields.len()));
                    // Known input (`echo /etc | xargs rm -rf`): the command
                    // it runs, with the operands it reads.
                    // A here-string is data whose pieces (home, the project)
                    // are kept; one that may hold several values, or unknown
                    // ones, is input nobody knows beforehand.
                    let items = match (&link.here_data, &link.here) {
                        (Some(v), _) => match v.0.as_slice() {
                            [one] => Some(one.clone()),
                            _ => None,
                        },
                        (None, Some((t, _, _))) => Some(Sym::text(t)),
                        (None, None) => link.input_text.as_ref().map(|p| p.text.clone()),
                    }
                    .and_then(|t| wrappers::xargs_values(&t, split));
                    match (replace, items) {
                        // `-I`: one command per item, the string replaced
                        // by it in each word.
                        (Some(r), Some(items)) => {
                            via.push("xargs (known input)".into());
                            for item in &items {
                                let ws: Vec<Field> = fields
                                    .iter()
                                    .map(|f| match f.value.literal() {
                                        _ if !f.text.contains(r.as_str()) => f.clone(),
                                        Some(t) => replaced(&t, r.as_str(), item),
                                        // (`~/{}`: home stays home)
                                        None => Field {
                                            value: substituted(&f.value, r.as_str(), item),
                                            ..f.clone()
                                        },
                                    })
                                    .collect();
                                self.chain(
                                    ws,
                                    assigns.clone(),
                                    via.clone(),
                                    link,
                                    depth + 1,
                                    false,
                                )?;
                            }
                            return Ok(());
                        }
                        (None, Some(items)) => {
                            fields.extend(items.iter().map(field_of));
                            // Names a search finds are where it looked, which
                            // ones only when it runs: still input from a pipe.
                            if !link.input_text.as_ref().is_some_and(|p| p.found) {
                                via_label = Some("xargs (known input)");
                            }
                        }
                        (Some(r), None) => {
                            for f in &mut fields {
                                if f.text.contains(r.as_str()) {
                                    // Only the replaced part is unknown:
                                    // `packages/{}` stays under `packages`,
                                    // `~/{}` under home.
                                    f.value = substituted(
                                        &f.value,
                                        r.as_str(),
                                        &Sym::piece(Piece::Unknown("(input from xargs)".into())),
                                    );
                                }
                            }
                        }
                        (None, None) => from_input = true,
                    }
                    Vec::new()
                }
                Action::Parallel { cmd, inputs } => {
                    self.parallel(at, arg_fields, cmd, inputs, &via, link, depth)?;
                    return Ok(());
                }
                Action::Container {
                    cmd,
                    mounts,
                    workdir,
                    privileged,
                } => {
                    self.container(
                        arg_fields, &cmd, &mounts, workdir, privileged, &prog, via, link, depth,
                    )?;
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
            via.push(via_label.map_or_else(|| prog.to_ascii_lowercase(), str::to_string));
            // Variables the wrapper sets for the command (`env EDITOR=… git`).
            self.variable_code(at, &extra, &[], &via, link, depth)?;
            assigns.extend(extra);
            if fields.is_empty() {
                return Ok(());
            }
        }
    }

    /// What an interpreter's inline code does, reported as the commands it
    /// amounts to: shell-outs parsed as shell, deletes as `rm`, reads as `cat`,
    /// each with the interpreter in its `via`.
    #[allow(clippy::too_many_arguments)]
    fn inline_code(
        &mut self,
        at: usize,
        code: &InlineCode,
        args: &[Field],
        prog: &str,
        via: &[String],
        link: &Link,
        depth: usize,
        kind: Code,
    ) -> Result<(), ParseError> {
        let mut texts: Vec<String> = Vec::new();
        let mut dynamic = false;
        if code.lang == Lang::Make {
            // Makefiles named by `-f`, else the default names.
            let named: Vec<Field> = if code.codes.is_empty() && !code.stdin {
                // In the folder `-C DIR` names (the last one given, relative
                // to the one before: GNU make reads them in turn).
                let mut dir = String::new();
                let mut words = args.iter().map(|a| a.text.as_str());
                while let Some(a) = words.next() {
                    let d = match a {
                        "-C" | "--directory" => words.next(),
                        _ => a
                            .strip_prefix("--directory=")
                            .or_else(|| a.strip_prefix("-C").filter(|d| !d.is_empty())),
                    };
                    if let Some(d) = d {
                        dir = if d.starts_with('/') || dir.is_empty() {
                            format!("{}/", d.trim_end_matches('/'))
                        } else {
                            format!("{dir}{}/", d.trim_end_matches('/'))
                        };
                    }
                }
                ["GNUmakefile", "makefile", "Makefile"]
                    .iter()
                    .map(|n| Field::literal(&format!("{dir}{n}")))
                    .collect()
            } else {
                code.codes
                    .iter()
                    .filter_map(|i| args.get(*i).cloned())
                    .collect()
            };
            for f in &named {
                match self.makefile(f) {
                    Makefile::Text(t) => texts.push(t),
                    Makefile::Unknown => dynamic = true,
                    Makefile::OnDisk => {}
                }
            }
        }
        for i in &code.codes {
            if code.lang == Lang::Make {
                break;
            }
            let Some(f) = args.get(*i) else {
                continue;
            };
            let Some(first) = f.value.0.first() else {
                continue;
            };
            // Unknown text in a sed, awk, vim or make script is data unless it
            // reaches a place that runs it (`s///e`, `system(…)`): their
            // scanners say so. An interpreter's code with unknown text in it
            // is unknown code.
            let scanned = matches!(code.lang, Lang::Sed | Lang::Awk | Lang::Vim | Lang::Make);
            dynamic |= f.value.0.len() > 1 || (first.has_unknown() && !scanned);
            let mut t = inline::code_text(first);
            if t.starts_with("--") {
                if let Some((_, rest)) = t.split_once('=') {
                    t = rest.to_string();
                }
            } else if code.lang == Lang::Vim {
                if let Some(rest) = t.strip_prefix('+') {
                    t = rest.to_string();
                }
            }
            texts.push(t);
        }
        if code.stdin {
            if let Some(v) = &link.here_value {
                // `python3 <<EOF … $X … EOF`: the text the outer shell expands.
                match v.0.as_slice() {
                    [one] => {
                        dynamic |= one.has_unknown();
                        texts.push(inline::code_text(one));
                    }
                    _ => dynamic = true,
                }
            } else if let Some((text, _, _)) = &link.here {
                texts.push(text.clone());
            } else if let Some(r) = link.redirects.iter().find(|r| r.op == RedirectOp::Read) {
                // `python3 < tools/x.py`: the file's text, read from disk later.
                self.set_code(at, Code::File);
                self.stdin_files(
                    at,
                    std::slice::from_ref(&r.value),
                    places::Lang::Inline(code.lang),
                );
            } else {
                match &link.stdin {
                    Input::Known(v) => match v.0.as_slice() {
                        [one] => {
                            dynamic |= one.has_unknown();
                            texts.push(inline::code_text(one));
                        }
                        _ => dynamic = true,
                    },
                    Input::Decoded(t) => texts.push(t.clone()),
                    Input::Unknown => dynamic = true,
                    Input::File(files) => {
                        self.set_code(at, Code::File);
                        self.stdin_files(at, files, places::Lang::Inline(code.lang));
                    }
                    Input::None => {}
                }
            }
        }
        if !texts.is_empty() || dynamic {
            self.set_code(at, if dynamic { Code::Dynamic } else { kind });
        }
        let label = format!("{} (code)", prog.to_ascii_lowercase());
        let mut v = via.to_vec();
        v.push(label.clone());
        // `node -p CODE`, `node -pe CODE`, `--print=CODE`: the value of the
        // code is printed.
        let prints_result = code.lang == Lang::Js
            && code.codes.iter().any(|i| {
                let flag = i
                    .checked_sub(1)
                    .and_then(|p| args.get(p))
                    .map(|f| f.text.as_str());
                let own = args.get(*i).map(|f| f.text.as_str());
                own.is_some_and(|t| t.starts_with("--print="))
                    || flag.is_some_and(|f| {
                        f == "--print"
                            || f.strip_prefix('-')
                                .is_some_and(|c| !c.starts_with('-') && c.contains('p'))
                    })
            });
        for t in &texts {
            let found = inline::scan_printing(code.lang, t, prints_result);
            self.effects(at, found, &v, link, depth)?;
        }
        Ok(())
    }

    /// Report what code does (its `effects`) as the commands it amounts to,
    /// with `via` (which ends in the code's label): shell text parsed as
    /// shell, words as a command, deletes as `rm`, reads as `cat`, writes as
    /// `> PATH`. Effects nobody can read make the code at `at` dynamic.
    fn effects(
        &mut self,
        at: usize,
        effects: Vec<Effect>,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let off = link.cmd.offset;
        let label = via.last().cloned().unwrap_or_default();
        for e in effects {
            match e {
                Effect::Shell(sym) => {
                    let text = inline::shell_text(&sym);
                    let mark = self.out.len();
                    let map = OffMap::At(off, label.clone());
                    // `os.system`, `system`, backticks: `/bin/sh -c`.
                    let read = self.nested_as(Grammar::Sh, &text, depth + 1, via, map, Some(None));
                    if read.is_err() {
                        // Text we cannot read as shell runs anyway.
                        self.out.truncate(mark);
                        self.set_code(at, Code::Dynamic);
                    } else if self.ran_unknown_program(mark) {
                        // `system("$CMD")`: the shell-out runs what a value holds.
                        self.set_code(at, Code::Dynamic);
                    }
                }
                Effect::Words(ws) => {
                    let fields: Vec<Field> = ws
                        .into_iter()
                        .map(|value| Field {
                            text: value.literal().unwrap_or_else(|| value.to_string()),
                            value,
                            content: None,
                            printed: None,
                        })
                        .collect();
                    self.chain(fields, Vec::new(), via.to_vec(), link, depth + 1, false)?;
                }
                Effect::Delete { recursive, path } => {
                    let flag = if recursive { "-rf" } else { "-f" };
                    self.synth("rm", Some(flag), path, via, off);
                }
                Effect::Read(path) => self.synth("cat", None, path, via, off),
                Effect::Write { path, append } => self.synth_write(path, append, via, off),
                Effect::Dynamic => self.set_code(at, Code::Dynamic),
                Effect::Env { name, sink } => self.env_read(name, sink, via, link, off),
            }
        }
        Ok(())
    }

    /// A value inline code read from the environment and printed, saved or
    /// sent (see [`inline::EnvSink`]), reported as `printenv NAME` (`printenv`
    /// for the whole environment) as the shell's own spellings are: printed
    /// where the interpreter's output goes, or sent by the interpreter with
    /// the place it is given in.
    fn env_read(
        &mut self,
        name: Option<String>,
        sink: inline::EnvSink,
        via: &[String],
        link: &Link,
        off: usize,
    ) {
        let (args, values): (Vec<String>, Vec<Value>) = match &name {
            Some(n) => (vec![n.clone()], vec![Value::text(n)]),
            None => (Vec::new(), Vec::new()),
        };
        let mut v = via.to_vec();
        v.push(format!("(value of ${})", name.as_deref().unwrap_or("ENV")));
        let redirects = match sink {
            inline::EnvSink::Printed => link.redirects.clone(),
            inline::EnvSink::Sent(_) => Vec::new(),
        };
        let mut sc = SimpleCommand::with_values(
            "printenv".into(),
            args,
            values,
            redirects,
            Vec::new(),
            v,
            off,
        );
        if let inline::EnvSink::Sent(place) = sink {
            let label = via.last().map_or("", String::as_str);
            sc.output_to = vec![label.trim_end_matches(" (code)").to_string()];
            sc.output_in = Some(place);
        }
        sc.cwd = self.state.cwd.clone();
        self.push(sc);
    }

    /// The text of a makefile `make` reads: a process substitution's output
    /// (`make -f <(printf …)`) or a file written earlier in the command, as
    /// [`emit::script_text`] reads it; a file on disk is not read.
    fn makefile(&self, f: &Field) -> Makefile {
        // Unknown parts of a makefile may be whole rules: the file is unknown.
        let known = |v: &Value| match emit::script_text(v).filter(|_| !v.has_unknown()) {
            Some(t) => Makefile::Text(t),
            None => Makefile::Unknown,
        };
        if let Some(content) = &f.content {
            return known(content);
        }
        let Some(path) = f.value.literal() else {
            return if f.value.has_unknown() {
                Makefile::Unknown
            } else {
                Makefile::OnDisk
            };
        };
        let path = ["--file=", "--makefile=", "-f"]
            .iter()
            .find_map(|p| path.strip_prefix(p))
            .unwrap_or(&path);
        match written_at(&self.state.files, path) {
            Some(Written::Text(v)) => known(v),
            Some(Written::Unknown) => Makefile::Unknown,
            None => Makefile::OnDisk,
        }
    }

    /// Report a write that inline code does as the shell's `> PATH` (`>>` when
    /// appending): a command with no program, so the rules about redirections
    /// judge it by where it writes.
    fn synth_write(&mut self, path: Value, append: bool, via: &[String], off: usize) {
        let r = Redirect {
            op: if append {
                RedirectOp::Append
            } else {
                RedirectOp::Write
            },
            fd: None,
            target: path.literal().unwrap_or_else(|| path.to_string()),
            value: path,
        };
        let mut sc = SimpleCommand::with_values(
            String::new(),
            Vec::new(),
            Vec::new(),
            vec![r],
            Vec::new(),
            via.to_vec(),
            off,
        );
        sc.cwd = self.state.cwd.clone();
        sc.made = self.state.links.clone();
        self.push(sc);
    }

    /// Does the PATH a bare program name is looked up in (the command's own
    /// `PATH=…` prefix, else the shell's) put a relative folder (`.`, an
    /// empty entry, `tools`, `./bin`) or a temp folder anyone can write
    /// (`/tmp`, `/var/tmp`, `/dev/shm`) before the inherited PATH? Then the
    /// program that runs is whatever file is there (`PATH=.:$PATH ls` runs
    /// `./ls`), code the analysis cannot see. Shell builtins and functions
    /// are not looked up.
    fn path_has_unseen_folder(&self, assigns: &[(String, String)]) -> bool {
        let text = match assigns.iter().rev().find(|(n, _)| n == "PATH") {
            Some((_, v)) => v.clone(),
            None => match self.state.vars.get("PATH") {
                Some(b) => b.var.scalar().to_string(),
                None => return false,
            },
        };
        unseen_path_folder(&text)
    }

    /// What the command at `at` removes as a side effect, by the role the
    /// table of write places gives an operand (`zip -m A SRC`, `7z a -sdel`,
    /// `cmake -E rm -rf DIR`, `rclone purge DIR`, `rclone sync SRC DST`):
    /// reported as `rm -rf PLACE`, so it is judged exactly as that removal.
    fn side_removals(&mut self, at: usize, via: &[String], off: usize) {
        let Some(c) = self.out.get(at) else {
            return;
        };
        let found = roles::places(c, roles::Role::Removed);
        if found.glued.is_empty() && !found.operand.iter().any(|r| *r) {
            return;
        }
        let removed: Vec<Value> = found
            .operand
            .iter()
            .zip(&c.operand_values)
            .filter(|(r, _)| **r)
            .map(|(_, v)| v.clone())
            .chain(found.glued)
            .collect();
        let mut v = via.to_vec();
        v.push(format!("{} (removes)", c.program));
        for place in removed {
            self.synth("rm", Some("-rf"), place, &v, off);
        }
    }

    /// The environment values a printer or a sender reaches with its
    /// arguments, reported as `printenv NAME` (see [`env_values`]): a
    /// printer's go where its output goes (its redirections, the next
    /// element of its pipeline); a sender's go to the program, with the word
    /// (after the option it is the value of) as the place they are used in.
    fn env_values_in_args(
        &mut self,
        reach: Reach,
        prog: &str,
        args: &[Field],
        via: &[String],
        link: &Link,
        off: usize,
    ) {
        if !args.iter().any(|a| a.text.contains('$')) {
            return;
        }
        for (i, a) in args.iter().enumerate() {
            if !a.text.contains('$') {
                continue;
            }
            // The word a sender uses the value in, after the option it is
            // the value of (`-d $T`, `-H Authorization: Bearer $T`).
            let place = || {
                let option = i
                    .checked_sub(1)
                    .and_then(|p| args.get(p))
                    .filter(|p| p.text.starts_with('-') && !p.text.contains('='));
                match option {
                    Some(o) => format!("{} {}", o.text, a.text),
                    None => a.text.clone(),
                }
            };
            let into = match reach {
                Reach::Printed => captured::Into::Printed(&link.redirects),
                Reach::Sent => captured::Into::Program {
                    program: prog,
                    place: Some(place()),
                },
            };
            self.captured_reached(&a.value, prog, &into, via);
            // `${!name}` of a name only known when it runs is any variable's
            // value: reported as `printenv`, the whole environment (cause from
            // redteam5: `compgen -v | while read v; do echo "${!v}"; done`).
            let names: Vec<Option<String>> = env_values::names_in(&a.value)
                .into_iter()
                .map(Some)
                .chain(env_values::any_variable_in(&a.value).then_some(None))
                .collect();
            for name in names {
                let mut v = via.to_vec();
                let (shown, shown_values) = match &name {
                    Some(n) => {
                        v.push(format!("{prog} (value of ${n})"));
                        (vec![n.clone()], vec![Value::text(n)])
                    }
                    None => {
                        v.push(format!("{prog} (value of ${{!…}})"));
                        (Vec::new(), Vec::new())
                    }
                };
                let redirects = match reach {
                    Reach::Printed => link.redirects.clone(),
                    Reach::Sent => Vec::new(),
                };
                let mut sc = SimpleCommand::with_values(
                    "printenv".into(),
                    shown,
                    shown_values,
                    redirects,
                    Vec::new(),
                    v,
                    off,
                );
                if reach == Reach::Sent {
                    sc.output_to = vec![prog.to_string()];
                    sc.output_in = Some(place());
                }
                sc.cwd = self.state.cwd.clone();
                self.push(sc);
            }
        }
    }

    /// The environment values a here-string or an unquoted here-document
    /// feeds `reader` (`cat <<< "$T"`, `docker login --password-stdin <<<
    /// "$T"`), reported as `printenv NAME` printing into it.
    fn env_values_in_input(
        &mut self,
        c: &Command,
        cx: &Cx,
        here_string: Option<&Value>,
        reader: &str,
    ) {
        let mut names = Vec::new();
        // Values the command line assigned that the input holds.
        let mut assigned: Vec<Value> = Vec::new();
        for r in &c.redirs {
            match r.kind {
                RedirKind::HereString if r.target.text.contains('$') => {
                    if let Some(v) = here_string {
                        names = env_values::names_in(v);
                        assigned.push(v.clone());
                    }
                }
                RedirKind::Heredoc(id) => {
                    if let Some(h) = cx
                        .table
                        .get(id)
                        .filter(|h| h.expand && h.body.contains('$'))
                    {
                        names =
                            env_values::names_in_text(&h.body, |n| self.state.vars.contains_key(n));
                        assigned.extend(
                            env_values::names_in_text(&h.body, |_| false)
                                .iter()
                                .filter_map(|n| self.state.vars.get(n))
                                .map(|b| b.var.scalar()),
                        );
                    }
                }
                _ => {}
            }
        }
        let into = captured::Into::Program {
            program: reader,
            place: None,
        };
        for v in &assigned {
            self.captured_reached(v, "<<<", &into, &cx.via);
        }
        for name in names {
            let mut v = cx.via.clone();
            v.push(format!("<<< (value of ${name})"));
            let mut sc = SimpleCommand::with_values(
                "printenv".into(),
                vec![name.clone()],
                vec![Value::text(&name)],
                Vec::new(),
                Vec::new(),
                v,
                c.offset,
            );
            sc.output_to = vec![reader.to_string()];
            sc.cwd = self.state.cwd.clone();
            self.push(sc);
        }
    }

    /// Report a command that inline code amounts to (`rm -rf PATH`, `cat PATH`).
    fn synth(
        &mut self,
        program: &str,
        flag: Option<&str>,
        path: Value,
        via: &[String],
        off: usize,
    ) {
        let mut args = Vec::new();
        let mut values = Vec::new();
        if let Some(f) = flag {
            args.push(f.to_string());
            values.push(Value::text(f));
        }
        args.push(path.literal().unwrap_or_else(|| path.to_string()));
        values.push(path);
        let mut sc = SimpleCommand::with_values(
            program.to_string(),
            args,
            values,
            Vec::new(),
            Vec::new(),
            via.to_vec(),
            off,
        );
        sc.cwd = self.state.cwd.clone();
        sc.made = self.state.links.clone();
        self.push(sc);
    }

    /// A word of an `env -S` string, read as the shell would read it in a
    /// command line: `${HOME}` (which env expands) is the home folder, and so
    /// is `~`, which GNU env leaves as is; judging the string as the command
    /// line it spells out is stricter than env only there, and nobody means a
    /// folder named `~` when writing `env -S 'rm -rf ~'`.
    fn split_string_word(&self, t: &str) -> Field {
        if let Some(w) = syntax::word_from_text(t).filter(|w| w.subs.is_empty()) {
            if let [one] = (Expander { state: &self.state }).fields(&w, &[]).as_slice() {
                return Field {
                    text: t.to_string(),
                    value: one.value.clone(),
                    content: None,
                    printed: None,
                };
            }
        }
        Field::literal(t)
    }

    /// Did a command reported since `mark` have a program nobody knows
    /// (`$X`, `$(…)`)? Then the code around it decides what runs at run time.
    fn ran_unknown_program(&self, mark: usize) -> bool {
        self.out
            .get(mark..)
            .unwrap_or_default()
            .iter()
            .any(|c| c.program_unknown)
    }

    /// Run the script a producer emitted (`text`, see [`emit::script_text`])
    /// as the code of the command at `at`, which came from `code`. Text that
    /// is not one known script, or whose unknown parts decide what runs, is
    /// dynamic code.
    #[allow(clippy::too_many_arguments)]
    fn emitted(
        &mut self,
        at: usize,
        text: &Value,
        code: Code,
        depth: usize,
        via: &[String],
        map: OffMap,
        child: Option<Option<Vec<Value>>>,
        grammar: Grammar,
    ) -> Result<(), ParseError> {
        // A few texts, each known (`echo 'a\nb'`: bash prints the backslash,
        // dash and zsh a newline): each is read.
        let scripts: Option<Vec<String>> = match text.0.as_slice() {
            [_] => emit::script_text(text).map(|s| vec![s]),
            alts if alts.len() <= 4 => alts
                .iter()
                .map(|a| emit::script_text(&Value::one(a.clone())))
                .collect(),
            _ => None,
        };
        let Some(scripts) = scripts else {
            self.set_code(at, Code::Dynamic);
            return Ok(());
        };
        self.set_code(at, code);
        let mark = self.out.len();
        for script in &scripts {
            self.nested_as(grammar, script, depth, via, map.clone(), child.clone())?;
        }
        if text.has_unknown() && self.ran_unknown_program(mark) {
            self.set_code(at, Code::Dynamic);
        }
        Ok(())
    }

    /// Record where the code of the command at `at` comes from; a command
    /// with code from several places keeps the one that asks most (dynamic,
    /// then decoded, a file, written, inline).
    /// `prog ARGS` when `prog` is a Windows shell or program (`pwsh -c`,
    /// `cmd /c`, a `.exe` from Git Bash): its commands, read as that shell
    /// reads them, join the line's (`None`: `prog` is none of them).
    pub(super) fn windows_shell(
        &mut self,
        at: usize,
        prog: &str,
        args: &[Value],
        via: &[String],
        link: &Link,
        off: usize,
    ) -> Option<Result<(), ParseError>> {
        let files = &self.state.files;
        let written = |p: &str| match files.get(&file_key(p)) {
            Some(Written::Text(t)) => Some(t.literal()),
            Some(Written::Unknown) => Some(None),
            None => None,
        };
        let has_input = link.here.is_some()
            || !matches!(link.stdin, Input::None)
            || link.redirects.iter().any(|r| r.op == RedirectOp::Read);
        let r = crate::shell::powershell::from_bash(
            prog,
            args,
            &self.state.cwd,
            via,
            off,
            &written,
            has_input,
        )?;
        let (code, mut cmds) = match r {
            Ok(found) => found,
            Err(e) => return Some(Err(e)),
        };
        if let Some(code) = code {
            self.set_code(at, code);
        }
        // Links bash made before go into the Windows shell too.
        for c in cmds.iter_mut().filter(|_| !self.state.links.is_empty()) {
            let mut made = self.state.links.clone();
            made.append(&mut c.made);
            c.made = made;
        }
        for c in cmds {
            self.push(c);
        }
        Some(Ok(()))
    }

    fn set_code(&mut self, at: usize, code: Code) {
        fn rank(c: Code) -> u8 {
            match c {
                Code::Inline => 0,
                Code::Written => 1,
                Code::File => 2,
                Code::Decoded => 3,
                Code::Dynamic => 4,
            }
        }
        if let Some(c) = self.out.get_mut(at) {
            if c.code.is_none_or(|old| rank(old) <= rank(code)) {
                c.code = Some(code);
            }
        }
    }

    /// The text of a script file written earlier in this command, run by
    /// path (`./x.sh`, `/tmp/x.sh`).
    fn written_unknown(&self, path: &str) -> bool {
        path.contains('/') && matches!(written_at(&self.state.files, path), Some(Written::Unknown))
    }

    /// The text a file operand holds when this line wrote it with known
    /// text, as the field of code it is.
    fn written_code(&self, file: &Field) -> Option<Field> {
        let path = file.value.literal()?;
        match written_at(&self.state.files, &path)? {
            Written::Text(t) => Some(Field {
                text: path,
                value: t.clone(),
                content: None,
                printed: None,
            }),
            Written::Unknown => None,
        }
    }

    fn written_script(&self, path: &str) -> Option<Value> {
        if !path.contains('/') {
            return None;
        }
        match written_at(&self.state.files, path)? {
            Written::Text(t) => Some(t.clone()),
            Written::Unknown => None,
        }
    }

    /// A remote command that is a shell reading its script from standard
    /// input (`ssh host 'bash -s' <<EOF`, `ssh host sudo sh < <(…)`) reads
    /// ssh's input: that is its code.
    fn remote_shell_input(
        &mut self,
        mark: usize,
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let has_input = link.here.is_some()
            || !matches!(link.stdin, Input::None)
            || link.redirects.iter().any(|r| r.op == RedirectOp::Read);
        if !has_input {
            return Ok(());
        }
        let shell = (mark..self.out.len()).find(|k| {
            self.out.get(*k).is_some_and(|c| {
                c.code.is_none()
                    && wrappers::SHELLS.contains(&c.program.to_ascii_lowercase().as_str())
            })
        });
        if let Some(k) = shell {
            let (prog, via) = match self.out.get(k) {
                Some(c) => (c.program.to_ascii_lowercase(), c.via.clone()),
                None => return Ok(()),
            };
            self.stdin_script(k, &prog, &via, link, depth)?;
        }
        Ok(())
    }

    /// A shell reading its script from standard input.
    fn stdin_script(
        &mut self,
        at: usize,
        prog: &str,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let off = link.cmd.offset;
        let mut v = via.to_vec();
        if let Some((text, kind, map)) = &link.here {
            self.set_code(at, Code::Inline);
            v.push(format!("{prog} {kind}"));
            let mark = self.out.len();
            self.nested_as(
                Grammar::of(prog),
                text,
                depth + 1,
                &v,
                map.clone(),
                Some(None),
            )?;
            if self.ran_unknown_program(mark) {
                // `bash <<< "$CMD"`: the text only says "run what CMD holds".
                self.set_code(at, Code::Dynamic);
            }
            return Ok(());
        }
        // `sh < file`
        if let Some(r) = link.redirects.iter().find(|r| r.op == RedirectOp::Read) {
            let f = Field {
                text: r.target.clone(),
                value: r.value.clone(),
                content: link.read_from.clone(),
                printed: None,
            };
            self.file_script(at, prog, Some(&f), via, link, depth)?;
            self.stdin_files(at, std::slice::from_ref(&r.value), places::Lang::Sh);
            return Ok(());
        }
        match &link.stdin {
            Input::None => {}
            Input::Known(val) => {
                v.push(format!("| {prog}"));
                let map = OffMap::At(off, "piped".into());
                let grammar = Grammar::of(prog);
                self.emitted(
                    at,
                    val,
                    Code::Inline,
                    depth + 1,
                    &v,
                    map,
                    Some(None),
                    grammar,
                )?;
            }
            Input::Decoded(text) => {
                self.set_code(at, Code::Decoded);
                v.push(format!("| {prog}"));
                self.nested_as(
                    Grammar::of(prog),
                    text,
                    depth + 1,
                    &v,
                    OffMap::At(off, "decoded".into()),
                    Some(None),
                )?;
            }
            Input::Unknown => self.set_code(at, Code::Dynamic),
            Input::File(files) => {
                self.set_code(at, Code::File);
                self.stdin_files(at, files, places::Lang::Sh);
            }
        }
        Ok(())
    }

    /// The command at `at` reads its code in `lang` from these files on
    /// its standard input (read from disk later, by `script_files`): those
    /// whose names are known, when the command's code is a file on disk.
    pub(super) fn stdin_files(&mut self, at: usize, files: &[Value], lang: places::Lang) {
        let Some(c) = self.out.get_mut(at) else {
            return;
        };
        if c.code != Some(Code::File) {
            return;
        }
        c.code_files.extend(files.iter().map(|v| (v.clone(), lang)));
    }

    /// A shell (or `source`) running a script file.
    fn file_script(
        &mut self,
        at: usize,
        prog: &str,
        file: Option<&Field>,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let Some(file) = file else {
            return Ok(());
        };
        let off = link.cmd.offset;
        let same_shell = matches!(prog, "source" | ".");
        let mut v = via.to_vec();
        let child = if same_shell { None } else { Some(None) };
        if let (Some(_), Some(files)) = (&file.content, &file.printed) {
            // `source <(cat f)`: the file's text, as `source f` reads it.
            if files.iter().all(|v| {
                v.literal()
                    .is_some_and(|t| written_at(&self.state.files, &t).is_none())
            }) {
                self.set_code(at, Code::File);
                self.stdin_files(at, files, places::Lang::Sh);
                return Ok(());
            }
        }
        if let Some(content) = &file.content {
            // `bash <(…)`, `source <(…)`
            v.push(format!("{prog} <()"));
            let map = OffMap::At(off, "<()".into());
            let grammar = Grammar::of(prog);
            return self.emitted(
                at,
                content,
                Code::Inline,
                depth + 1,
                &v,
                map,
                child,
                grammar,
            );
        }
        let Some(path) = file.value.literal() else {
            // `source ~/.bashrc` is a file on disk; `source "$X"` is unknown.
            let code = if file.value.has_unknown() {
                Code::Dynamic
            } else {
                Code::File
            };
            self.set_code(at, code);
            return Ok(());
        };
        if matches!(
            path.as_str(),
            "/dev/stdin" | "-" | "/dev/fd/0" | "/proc/self/fd/0"
        ) {
            return self.stdin_script(at, prog, via, link, depth);
        }
        // `bash /dev/fd/3 3<<'EOF' … EOF`: the here-document on that
        // descriptor is the script (when it is the command's only one).
        let fd = path
            .strip_prefix("/dev/fd/")
            .or_else(|| path.strip_prefix("/proc/self/fd/"))
            .and_then(|n| n.parse::<u32>().ok());
        if let Some(n) = fd {
            let mut heres = link
                .cmd
                .redirs
                .iter()
                .filter(|r| matches!(r.kind, RedirKind::Heredoc(_) | RedirKind::HereString));
            if let (Some(h), None) = (heres.next(), heres.next()) {
                if h.fd == Some(n) {
                    return self.stdin_script(at, prog, via, link, depth);
                }
            }
        }
        match written_at(&self.state.files, &path).cloned() {
            Some(Written::Text(text)) => {
                v.push(format!("{prog} (written)"));
                let map = OffMap::At(off, path);
                // `bash x.sh` reads it as bash whatever its first line says.
                let grammar = Grammar::of(prog);
                self.emitted(at, &text, Code::Written, depth + 1, &v, map, child, grammar)?;
            }
            Some(Written::Unknown) => self.set_code(at, Code::Dynamic),
            None => self.set_code(at, Code::File),
        }
        Ok(())
    }

    /// `parallel CMD… ::: inputs`: one command per input (a single command
    /// word is a shell command line; no command: each input is one).
    #[allow(clippy::too_many_arguments)]
    fn parallel(
        &mut self,
        at: usize,
        args: &[Field],
        cmd: std::ops::Range<usize>,
        inputs: Option<Vec<usize>>,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let words = args.get(cmd).unwrap_or_default();
        if words.is_empty() && inputs.is_none() {
            // Command lines read from files (`parallel :::: jobs.txt`), as
            // `sh jobs.txt` reads them.
            self.set_code(at, Code::File);
            return Ok(());
        }
        let from_stdin = inputs.is_none();
        let inputs: Vec<Field> = match inputs {
            Some(ix) => ix.iter().filter_map(|i| args.get(*i).cloned()).collect(),
            // Spelled as a variable nobody set, so the command line re-parses.
            None => vec![Field {
                text: "{}".into(),
                value: Value::unknown("${__hookrules_unknown}"),
                content: None,
                printed: None,
            }],
        };
        let mut v = via.to_vec();
        v.push("parallel".into());
        for input in inputs.iter().take(8) {
            if words.is_empty() {
                // No command: the input is one, unknown code when nobody can
                // read it first (`parallel ::: "$X"`).
                self.set_code(at, Code::Inline);
                let mark = self.out.len();
                self.nested_as(
                    Grammar::Sh,
                    &input.text,
                    depth + 1,
                    &v,
                    OffMap::At(link.cmd.offset, "parallel".into()),
                    Some(None),
                )?;
                if input.value.literal().is_none() || self.ran_unknown_program(mark) {
                    self.set_code(at, Code::Dynamic);
                }
            } else if let Some(one) = words
                .first()
                .filter(|w| words.len() == 1 && !plain_name(&w.text))
            {
                // One word of shell text (`parallel 'gzip {}'`): a command
                // line; a plain program name is a command of one word, below.
                let text = if one.text.contains("{}") {
                    one.text.replace("{}", &requote(input))
                } else {
                    format!("{} {}", one.text, requote(input))
                };
                self.nested_as(
                    Grammar::Sh,
                    &text,
                    depth + 1,
                    &v,
                    OffMap::At(link.cmd.offset, "parallel".into()),
                    Some(None),
                )?;
            } else {
                let mut ws: Vec<Field> = words.to_vec();
                let mut replaced = false;
                // What parallel read from its input, as xargs's (a word, not
                // text to re-parse here).
                let input = if from_stdin {
                    Field {
                        value: Value::unknown("(input from parallel)"),
                        ..input.clone()
                    }
                } else {
                    input.clone()
                };
                for f in &mut ws {
                    if f.text.contains("{}") {
                        *f = input.clone();
                        replaced = true;
                    }
                }
                if !replaced {
                    ws.push(input);
                }
                self.chain(ws, Vec::new(), v.clone(), link, depth + 1, false)?;
            }
        }
        Ok(())
    }
}

/// A program's name or path and nothing else (`make`, `./build.sh`).
fn plain_name(t: &str) -> bool {
    !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '/' | '+' | '-'))
}

/// The shell a script run by its path reads with: its `#!` line's
/// (`#!/bin/sh`, `#!/usr/bin/env sh` is `/bin/sh`); without one, bash runs it
/// itself.
fn shebang_grammar(text: &Value) -> Grammar {
    let first = text
        .0
        .first()
        .and_then(|s| s.0.first())
        .and_then(|p| match p {
            Piece::Text(t) => t.lines().next().map(str::to_string),
            _ => None,
        })
        .unwrap_or_default();
    match first.strip_prefix("#!") {
        Some(line) => {
            let mut words = line.split_whitespace();
            let prog = words.next().map(basename).unwrap_or_default();
            let prog = if prog == "env" {
                words.find(|w| !w.starts_with('-')).unwrap_or_default()
            } else {
                prog
            };
            match Grammar::of(prog) {
                Grammar::Same => Grammar::Bash,
                g => g,
            }
        }
        None => Grammar::Bash,
    }
}

/// What a here-document or here-string gives a command on standard input.
/// A here-string's text is what its word expands to (`bash <<< "$(echo …)"`
/// feeds the echoed text), read as [`emit::script_text`]; `Some(None)` when it
/// is not known before the command runs.
fn here_input(
    c: &Command,
    cx: &Cx,
    state: &State,
    here_string: Option<&Value>,
) -> Option<Option<(String, &'static str, OffMap)>> {
    for r in &c.redirs {
        match r.kind {
            RedirKind::Heredoc(id) => {
                let h = cx.table.get(id)?;
                let body = if h.expand {
                    expand_heredoc(&h.body, state).unwrap_or_else(|| h.body.clone())
                } else {
                    h.body.clone()
                };
                let map = if body == h.body {
                    OffMap::Verbatim(h.offset)
                } else {
                    OffMap::At(c.offset, "<<".into())
                };
                return Some(Some((body, "<<", map)));
            }
            RedirKind::HereString => {
                let text = match here_string {
                    Some(v) => v.literal().or_else(|| emit::script_text(v)),
                    None => Some(r.target.text.clone()),
                };
                return Some(text.map(|text| {
                    (
                        format!("{text}\n"),
                        "<<<",
                        OffMap::At(c.offset, "<<<".into()),
                    )
                }));
            }
            _ => {}
        }
    }
    None
}

/// The text an unquoted-delimiter here-document of `c` expands to, when
/// that is not all known (a variable the line did not set, a command's
/// output): a value with those parts unknown. `None` for a quoted delimiter,
/// a body with nothing to expand, or one whose expansion is known text.
fn heredoc_value(c: &Command, cx: &Cx, state: &State) -> Option<Value> {
    let h = c.redirs.iter().find_map(|r| match r.kind {
        RedirKind::Heredoc(id) => cx.table.get(id),
        _ => None,
    })?;
    if !h.expand || !h.body.contains(['$', '`']) {
        return None;
    }
    let word = syntax::word_from_text(&format!("\"{}\"", h.body.replace('"', "\\\"")))?;
    let f = Expander { state }.fields(&word, &[]);
    let v = f.first()?.value.clone();
    v.literal().is_none().then_some(v)
}

/// An unquoted-delimiter here-document with its `$NAME`s replaced, when every
/// one of them has a known literal value (else `None`: read it as written).
fn expand_heredoc(body: &str, state: &State) -> Option<String> {
    if !body.contains('$') {
        return None;
    }
    let word = syntax::word_from_text(&format!("\"{}\"", body.replace('"', "\\\"")))?;
    if word
        .parts
        .iter()
        .any(|p| matches!(p, Part::Sub { .. } | Part::Arith { .. }))
    {
        return None;
    }
    let f = Expander { state }.fields(&word, &[]);
    f.first().and_then(|f| f.value.literal())
}

/// The directory `target` names, seen from `cwd` (alternatives of both).
fn resolve_dir(cwd: &Value, target: &Value) -> Value {
    let mut out = Value::default();
    for t in &target.0 {
        // A folder in Windows's spelling (`cd 'C:\'`, `cd %USERPROFILE%` in
        // Git Bash) is where it names, as for every other path (`shell::place`).
        let respelled = match t.0.first() {
            Some(Piece::Text(s)) => crate::shell::place::word(s, false).map(|mut w| {
                for p in &t.0[1..] {
                    w.push(p.clone());
                }
                w
            }),
            _ => None,
        };
        let t = respelled.as_ref().unwrap_or(t);
        let absolute = match t.0.first() {
            Some(Piece::Text(s)) | Some(Piece::Glob(s)) => s.starts_with('/'),
            Some(
                Piece::Home | Piece::HomeOf(_) | Piece::Start | Piece::Project | Piece::TempRoot,
            ) => true,
            // An unknown start may be absolute or not: the result is unknown.
            Some(Piece::Unknown(_) | Piece::Env(_)) => true,
            Some(Piece::Below | Piece::Followed) | None => false,
            Some(Piece::Contained(_)) => true,
        };
        if absolute {
            out.add(t.clone());
        } else {
            for c in &cwd.0 {
                let mut s = c.clone();
                if !t.is_empty() {
                    s.push(Piece::Text("/".into()));
                    s.extend(t);
                }
                out.add(s);
            }
        }
    }
    if out.0.is_empty() {
        out = cwd.clone();
    }
    // A directory spelled longer than any real one is not followed further
    // (keeps `cd a; cd a; …` linear).
    for s in &mut out.0 {
        let len: usize =
            s.0.iter()
                .map(|p| match p {
                    Piece::Text(t) | Piece::Glob(t) => t.len(),
                    _ => 8,
                })
                .sum();
        if len > MAX_PATH_TEXT || s.0.len() > MAX_OUTPUT_PIECES {
            *s = Sym::unknown("(a directory too long to follow)");
        }
    }
    out
}

/// Longest directory text followed (`PATH_MAX` on Linux).
const MAX_PATH_TEXT: usize = 4096;

/// The names `find` hands on: what `-exec … {}` gets, what it prints. A test
/// that narrows by name, path, time, size, owner or permissions leaves
/// something below a starting point (and a name a `-name` asks for, directly
/// in it); a test of type or depth does not narrow what is there: `find .
/// -type f` is every file there, as `./*` names them, and the starting point
/// itself is among the names when its type and depth let it through. (find
/// lists hidden names too; those stay "something below", as a recursive
/// `grep -r` over the folder reads them: a wide `./.*` would name every
/// secret file there, which `grep TODO $(find . -type f)` is not about.)
/// Where find's expression starts: after its options (`-H`, `-L`, `-P`,
/// `-D DEBUG`, `-O LEVEL`) and its starting points.
fn find_expression_at(words: &[&str]) -> (usize, usize) {
    let mut i = 0;
    while let Some(a) = words.get(i) {
        match *a {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            o if o.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let roots_at = i.min(words.len());
    while let Some(a) = words.get(i) {
        if a.starts_with('-') || matches!(*a, "(" | "!" | ")" | ",") {
            break;
        }
        i += 1;
    }
    (roots_at, i.min(words.len()))
}

/// find's own expression: its words but the commands `-exec … ;` runs
/// (a test after one still narrows: `-exec echo {} \; -name '*.o' -delete`).
fn find_own<'a>(expression: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut in_exec = false;
    for &t in expression {
        if in_exec {
            in_exec = !matches!(t, ";" | "+");
        } else if wrappers::FIND_EXEC.contains(&t) {
            in_exec = true;
        } else {
            out.push(t);
        }
    }
    out
}

/// Does find's expression (`find_own`) hand on only some of what lies below
/// its starting points? A test narrows unless it is negated (`-not -path
/// './.git*'` keeps everything else); deleting only links (`-type l`,
/// `-xtype l`, with no `-o` beside it) leaves the files they lead to. The
/// one answer to this question: the analysis's targets and the command
/// object's `find_narrowed` (what policies read) both come from here.
fn find_narrows(own: &[&str]) -> bool {
    const NARROW: &[&str] = &[
        "-name",
        "-iname",
        "-path",
        "-ipath",
        "-regex",
        "-iregex",
        "-wholename",
        "-iwholename",
        "-newer",
        "-mtime",
        "-mmin",
        "-atime",
        "-amin",
        "-ctime",
        "-cmin",
        "-size",
        "-user",
        "-group",
        "-perm",
        "-empty",
        "-links",
        "-inum",
        "-samefile",
        "-lname",
        "-ilname",
        "-uid",
        "-gid",
        "-nouser",
        "-nogroup",
    ];
    let negated = |k: usize| k > 0 && matches!(own[k - 1], "!" | "-not");
    let links_only = !own.iter().any(|t| matches!(*t, "-o" | "-or" | ","))
        && own
            .windows(2)
            .enumerate()
            .any(|(k, w)| matches!(w[0], "-type" | "-xtype") && w[1] == "l" && !negated(k));
    // A pattern every name matches keeps everything (`-name '*'`, `-regex '.*'`).
    let everything = |k: usize| match (own[k], own.get(k + 1).copied()) {
        ("-name" | "-iname" | "-path" | "-ipath" | "-wholename" | "-iwholename", Some(p)) => {
            p.chars().all(|c| c == '*')
        }
        ("-regex" | "-iregex", Some(p)) => matches!(p, ".*" | "^.*" | ".*$" | "^.*$"),
        _ => false,
    };
    links_only
        || own.iter().enumerate().any(|(k, t)| {
            (NARROW.contains(t) || t.starts_with("-newer")) && !negated(k) && !everything(k)
        })
}

/// [`find_narrows`] for a find command's words (after its program).
#[must_use]
pub(super) fn find_narrowed(args: &[String]) -> bool {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, expr_at) = find_expression_at(&words);
    find_narrows(&find_own(&words[expr_at..]))
}

pub(super) fn find_targets(args: &[Field]) -> Value {
    let words: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let (roots_at, i) = find_expression_at(&words);
    let mut roots: Vec<Value> = args[roots_at..i].iter().map(|a| a.value.clone()).collect();
    if roots.is_empty() {
        roots.push(Value::text("."));
    }
    let own = find_own(&words[i..]);
    let value_of = |test: &str| {
        own.windows(2)
            .filter(|w| w[0] == test)
            .map(|w| w[1])
            .collect::<Vec<&str>>()
    };
    let narrowed = find_narrows(&own);
    // The starting point itself: a folder, at depth 0.
    let types: Vec<&str> = value_of("-type")
        .into_iter()
        .chain(value_of("-xtype"))
        .collect();
    let itself = types.iter().all(|t| t.contains('d'))
        && value_of("-mindepth")
            .iter()
            .all(|d| d.trim_start_matches('0').is_empty());
    // What is below it: not with `-maxdepth 0`.
    let content = value_of("-maxdepth")
        .iter()
        .all(|d| !d.trim_start_matches('0').is_empty());
    let deep = value_of("-maxdepth")
        .iter()
        .all(|d| d.parse::<u64>().map_or(true, |d| d > 1));
    // A `-path`-style test (not negated, with no `-o` beside it) whose
    // pattern starts with a folder (`-path './dist/*'`) keeps the search
    // below that folder: where names are looked for at any depth.
    let alternatives = own.iter().any(|t| matches!(*t, "-o" | "-or" | ","));
    let searched_in: Option<String> = (!alternatives)
        .then(|| {
            own.windows(2).enumerate().find_map(|(k, w)| {
                let negated = k > 0 && matches!(own[k - 1], "!" | "-not");
                if negated || !matches!(w[0], "-path" | "-ipath" | "-wholename" | "-iwholename") {
                    return None;
                }
                let literal = &w[1][..w[1].find(['*', '?', '[', '\\']).unwrap_or(w[1].len())];
                let folder = literal.rsplit_once('/').map(|(f, _)| f)?;
                (!folder.is_empty()).then(|| folder.to_string())
            })
        })
        .flatten();
    // Names a `-name`/`-iname` test asks for (not negated): what the command
    // is handed may be a file of that name directly in a starting point, so a
    // rule about the name (`.env*`) or the place (`~/Documents`) sees it.
    let names: Vec<&str> = own
        .windows(2)
        .enumerate()
        .filter(|(k, w)| {
            matches!(w[0], "-name" | "-iname") && !(*k > 0 && matches!(own[k - 1], "!" | "-not"))
        })
        .map(|(_, w)| w[1])
        .collect();
    // `find ~/.ssh -name '*.pub' -exec cat {} +` hands on only names that
    // match: nothing else below the starting point reaches the command.
    let by_name_only =
        !names.is_empty() && !alternatives && !own.iter().any(|t| matches!(*t, "!" | "-not"));
    let mut out = Value::default();
    for r in roots {
        for s in r.0 {
            if !narrowed && itself {
                out.add(s.clone());
            }
            if !narrowed && content {
                let mut every = s.clone();
                every.push(Piece::Text("/".into()));
                every.push(Piece::Glob("*".into()));
                out.add(every);
            }
            for name in &names {
                // A name with no pattern in it is that name (`-name homelink`:
                // a link there is followed as any written name is).
                let piece = if name.contains(['*', '?', '[']) {
                    Piece::Glob((*name).to_string())
                } else {
                    Piece::Text((*name).to_string())
                };
                let mut named = s.clone();
                named.push(Piece::Text("/".into()));
                named.push(piece.clone());
                out.add(named);
                // And at any depth below (hidden folders too), unless
                // `-maxdepth 1` keeps it to the starting point's own names.
                if deep {
                    let mut below = searched_in.as_deref().map_or_else(|| s.clone(), Sym::text);
                    below.push(Piece::Below);
                    below.push(Piece::Text("/".into()));
                    below.push(piece);
                    out.add(below);
                }
            }
            // Something below it, unless a name test (with no alternative and
            // no negation anywhere) says what every name handed on is.
            if !by_name_only {
                let mut below = s;
                below.push(Piece::Below);
                out.add(below);
            }
        }
    }
    out
}

/// Is this `git ls-files` of every tracked file below where it runs: no
/// pathspec, no filter (`--deleted`, `--others`, `-m`), nothing but names?
fn lists_every_tracked_file(words: &[Word]) -> bool {
    let texts: Vec<&str> = words.iter().skip(1).map(|w| w.text.as_str()).collect();
    match texts.iter().position(|t| *t == "ls-files") {
        Some(at) => {
            texts[..at].is_empty()
                && texts[at + 1..].iter().all(|t| {
                    matches!(
                        *t,
                        "-z" | "-c" | "--cached" | "--full-name" | "--recurse-submodules"
                    )
                })
        }
        None => false,
    }
}

/// Does this git command print only file names, relative to the folder it
/// runs in (`ls-files`, `diff --name-only`)?
fn git_lists_names(texts: &[&str]) -> bool {
    let owned: Vec<String> = texts.iter().map(|t| (*t).to_string()).collect();
    let sub = git_subcommand(&owned);
    let elsewhere = texts
        .iter()
        .take_while(|t| Some(**t) != sub)
        .any(|t| *t == "-C" || t.starts_with("--git-dir") || t.starts_with("--work-tree"));
    if elsewhere {
        return false;
    }
    match sub {
        Some("ls-files") => true,
        Some("diff" | "diff-tree" | "diff-index" | "diff-files") => texts.contains(&"--name-only"),
        _ => false,
    }
}

/// What `ls` prints: the names it is given (with `-d`, or a pattern's
/// matches), and the names in a folder it lists, bare: the folder it runs in
/// by default, so `rm -rf $(ls)` is `rm -rf *` (and, with `-a`/`-A`, `.*`
/// too). A bare name from another folder's listing names something in the
/// folder the command runs in, if anything: judged as any name there. A long
/// listing (`-l`) prints more than names: not known.
fn ls_output(cwd: &Value, args: &[Field]) -> Option<Value> {
    let mut dirs_only = false;
    let mut hidden = false;
    let mut names = Vec::new();
    let mut lists_folder = false;
    let mut i = 0;
    let mut options = true;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        i += 1;
        if options && t == "--" {
            options = false;
        } else if options && t.starts_with("--") {
            match t {
                "--directory" => dirs_only = true,
                "--all" | "--almost-all" => hidden = true,
                _ if t.starts_with("--format") && t != "--format=single-column" => return None,
                _ => {}
            }
        } else if options && t.len() > 1 && t.starts_with('-') {
            let flags = &t[1..];
            if flags.contains([
                'l', 'n', 'g', 'o', 's', 'i', 'm', 'x', 'C', 'F', 'p', 'Q', 'b',
            ]) {
                return None;
            }
            dirs_only |= flags.contains('d');
            hidden |= flags.contains(['a', 'A']);
            // Options whose value is the next word.
            if flags.ends_with(['I', 'w', 'T']) {
                i += 1;
            }
        } else {
            // A pattern names what it matches; a plain name may be a folder
            // whose names are listed.
            lists_folder |= !t.contains(['*', '?', '[']) || t.ends_with('/');
            names.push(resolve_dir(cwd, &a.value));
        }
    }
    let mut out = Value::default();
    let lists_here = names.is_empty() || lists_folder && !dirs_only;
    if names.is_empty() && dirs_only {
        return Some(cwd.clone());
    }
    for n in names {
        out = out.union(&n);
    }
    if lists_here {
        let globs: &[&str] = if hidden { &["*", ".*"] } else { &["*"] };
        for g in globs {
            for s in &cwd.0 {
                let mut s = s.clone();
                s.push(Piece::Text("/".into()));
                s.push(Piece::Glob((*g).to_string()));
                out.add(s);
            }
        }
    }
    Some(out)
}

/// What `fd [PATTERN] [PATH…]` finds: names below its starting points (the
/// folder it runs in by default, `--search-path`), hidden ones only with
/// `-H`/`-u`. With no pattern that narrows (none, `.`, `''`, `^`) and no
/// extension, size, time or owner test, every name there (a type or depth
/// test leaves every file, or every folder): `PATH/*` (and `PATH/.*` with
/// hidden names), as `rm -rf PATH/*` would name them.
fn fd_targets(args: &[Field]) -> Value {
    // Options whose value is the next word (or follows `=`).
    const VALUED: &[&str] = &[
        "-t",
        "--type",
        "-e",
        "--extension",
        "-E",
        "--exclude",
        "-d",
        "--max-depth",
        "--min-depth",
        "--exact-depth",
        "-S",
        "--size",
        "--changed-within",
        "--changed-before",
        "--change-newer-than",
        "--change-older-than",
        "--newer",
        "--older",
        "-o",
        "--owner",
        "--search-path",
        "--base-directory",
        "-j",
        "--threads",
        "-c",
        "--color",
        "--max-results",
        "--ignore-file",
        "--path-separator",
        "--batch-size",
        "--format",
        "--and",
    ];
    // Tests that keep some names out.
    const NARROW: &[&str] = &[
        "-e",
        "--extension",
        "-S",
        "--size",
        "--changed-within",
        "--changed-before",
        "--change-newer-than",
        "--change-older-than",
        "--newer",
        "--older",
        "-o",
        "--owner",
        "--max-results",
        "-1",
        "--and",
    ];
    let mut positional: Vec<&Field> = Vec::new();
    let mut search: Vec<Value> = Vec::new();
    let mut hidden = false;
    let mut narrowed = false;
    let mut i = 0;
    let mut options = true;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        i += 1;
        if wrappers::FD_EXEC.contains(&t) {
            break;
        }
        if !options || t == "-" || !t.starts_with('-') {
            positional.push(a);
            continue;
        }
        if t == "--" {
            options = false;
            continue;
        }
        let (name, attached) = match t.split_once('=') {
            Some((n, _)) if t.starts_with("--") => (n, true),
            _ => (t, false),
        };
        let short = !name.starts_with("--");
        // Short flags run together (`-Hu`, `-te`): each counts; the last may
        // take the next word.
        let names: Vec<String> = if short {
            name.chars().skip(1).map(|c| format!("-{c}")).collect()
        } else {
            vec![name.to_string()]
        };
        for n in &names {
            hidden |= matches!(n.as_str(), "-H" | "--hidden" | "-u" | "--unrestricted");
            narrowed |= NARROW.contains(&n.as_str());
        }
        let last = names.last().map(String::as_str).unwrap_or("");
        if VALUED.contains(&last) && !attached {
            if let Some(v) = args.get(i) {
                if last == "--search-path" || last == "--base-directory" {
                    search.push(v.value.clone());
                }
                i += 1;
            }
        }
    }
    let pattern = positional.first().map(|f| f.text.as_str());
    narrowed |= pattern.is_some_and(|p| !matches!(p, "" | "." | "^" | ".*" | "^.*$" | "*"));
    let mut roots: Vec<Value> = positional.iter().skip(1).map(|f| f.value.clone()).collect();
    roots.extend(search);
    if roots.is_empty() {
        roots.push(Value::text("."));
    }
    let mut out = Value::default();
    for r in roots {
        for s in r.0 {
            if !narrowed {
                for g in if hidden { &["*", ".*"][..] } else { &["*"][..] } {
                    let mut every = s.clone();
                    every.push(Piece::Text("/".into()));
                    every.push(Piece::Glob((*g).to_string()));
                    out.add(every);
                }
            }
            let mut below = s;
            below.push(Piece::Below);
            out.add(below);
        }
    }
    out
}

/// `mktemp [-d] [-p DIR | --tmpdir[=DIR] | -t] [TEMPLATE]`: a new name in the
/// temp root (or in DIR, or relative to the directory for a bare template).
fn mktemp(cwd: &Value, args: &[Field]) -> Value {
    let mut dir: Option<Value> = None;
    let mut template: Option<&Field> = None;
    let mut tmpdir = false;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let t = a.text.as_str();
        if t == "-p" || t == "--tmpdir" && args.get(i + 1).is_some_and(|n| !n.text.starts_with('-'))
        {
            dir = args.get(i + 1).map(|f| f.value.clone());
            i += 2;
            continue;
        }
        if let Some(d) = t.strip_prefix("--tmpdir=") {
            dir = Some(Value::text(d));
        } else if t == "-t" || t == "--tmpdir" {
            tmpdir = true;
        } else if !t.starts_with('-') {
            template = Some(a);
        }
        i += 1;
    }
    let temp_root = Value::one(Sym::piece(Piece::TempRoot));
    let name = template.map_or_else(|| Value::text("tmp.XXXXXXXXXX"), |f| f.value.clone());
    let base = match (dir, template) {
        (Some(d), _) => d,
        (None, None) => temp_root,
        (None, Some(_)) if tmpdir => temp_root,
        (None, Some(f)) => {
            // A bare template is relative to the directory unless absolute.
            return resolve_dir(cwd, &f.value);
        }
    };
    resolve_dir(cwd, &base.concat(&Value::text("/")).concat(&name))
}

/// Most pieces a computed output may hold (beyond, it is unknown): outputs only
/// matter when they are small enough to be a path, a name or a script.
const MAX_OUTPUT_PIECES: usize = 64;

/// Fields joined with spaces, as `echo` prints them (`None` when too big).
fn join_fields(fields: &[Field]) -> Option<Value> {
    if fields.iter().all(|f| f.value.0.len() == 1) {
        let mut s = Sym::default();
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                s.push(Piece::Text(" ".into()));
            }
            s.extend(&f.value.0[0]);
            if s.0.len() > MAX_OUTPUT_PIECES {
                return None;
            }
        }
        return Some(Value::one(s));
    }
    if fields.len() > MAX_OUTPUT_PIECES {
        return None;
    }
    let mut v = Value::text("");
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            v = v.concat(&Value::text(" "));
        }
        v = v.concat(&f.value);
    }
    Some(v)
}

/// A `via` label of a substitution (its output becomes words or a file name).
fn is_substitution(label: &str) -> bool {
    matches!(label, "$()" | "``" | "<()" | ">()")
}

/// Does a command reached through `via` print into the same place as the
/// commands at `base` (through wrappers, functions, `bash -c`, but no
/// substitution)?
fn in_this_process(via: &[String], base: &[String]) -> bool {
    via.starts_with(base) && !via[base.len()..].iter().any(|l| is_substitution(l))
}

/// What `printf FMT ARGS…` prints, when the format is known.
fn printf_value(args: &[Field]) -> Value {
    let mut a = args;
    if a.first().is_some_and(|f| f.text == "--") {
        a = a.get(1..).unwrap_or_default();
    }
    let Some((fmt, rest)) = a.split_first() else {
        return Value::text("");
    };
    let Some(fmt) = fmt.value.literal() else {
        return Value::unknown("$(printf …)");
    };
    // (a pattern prints the names it matches: kept as the pattern, below)
    let literal: Option<Vec<String>> = rest
        .iter()
        .map(|f| f.value.literal().filter(|_| !has_pattern(&f.value)))
        .collect();
    if let Some(lits) = literal {
        let refs: Vec<&str> = lits.iter().map(String::as_str).collect();
        return match literal::printf(&fmt, &refs) {
            Some(t) => Value::text(&t),
            None => Value::unknown("$(printf …)"),
        };
    }
    // `printf '%s' "$X"`: the argument's value.
    if fmt == "%s" && rest.len() == 1 {
        return rest[0].value.clone();
    }
    // `printf 'rm -rf %s\n' ~`: format with a stand-in character for each
    // argument that is not literal, then put its value back.
    // (A width or precision would cut or pad the stand-in, not the value.)
    if rest.len() > PRINTF_STAND_INS
        || rest.iter().any(|f| f.value.0.len() != 1)
        || has_width_or_precision(&fmt)
    {
        return Value::unknown("$(printf …)");
    }
    let stand_in = |i: usize| char::from_u32(0xE020 + i as u32).unwrap_or('\u{E020}');
    let texts: Vec<String> = rest
        .iter()
        .enumerate()
        .map(|(i, f)| {
            f.value
                .literal()
                .filter(|_| !has_pattern(&f.value))
                .unwrap_or_else(|| stand_in(i).to_string())
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut out = Sym::default();
    let Some(printed) = literal::printf(&fmt, &refs) else {
        return Value::unknown("$(printf …)");
    };
    for c in printed.chars() {
        match (0..rest.len()).find(|i| stand_in(*i) == c) {
            Some(i) => out.extend(&rest[i].value.0[0]),
            None => out.push(Piece::Text(c.to_string())),
        }
    }
    Value::one(out)
}

/// Does a printf format hold a conversion with a width or precision (`%.0s`,
/// `%5s`, `%*d`)?
fn has_width_or_precision(fmt: &str) -> bool {
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            if b.get(i + 1) == Some(&b'%') {
                i += 2;
                continue;
            }
            let mut j = i + 1;
            while j < b.len() && matches!(b[j], b'-' | b'+' | b' ' | b'#' | b'0') {
                j += 1;
            }
            if j < b.len() && (b[j].is_ascii_digit() || matches!(b[j], b'.' | b'*')) {
                return true;
            }
            i = j;
        } else {
            i += 1;
        }
    }
    false
}

/// Does the value hold a shell pattern (`*`, `?`, `[…]` unquoted), which the
/// shell replaces with the names it matches?
fn has_pattern(v: &Value) -> bool {
    v.0.iter()
        .any(|s| s.0.iter().any(|p| matches!(p, Piece::Glob(_))))
}

/// Most non-literal `printf` arguments put back into its output.
const PRINTF_STAND_INS: usize = 16;

fn trim_newlines(v: &Value) -> Value {
    Value(
        v.0.iter()
            .map(|s| {
                let mut s = s.clone();
                if let Some(Piece::Text(t)) = s.0.last_mut() {
                    while t.ends_with('\n') {
                        t.pop();
                    }
                    if t.is_empty() {
                        s.0.pop();
                    }
                }
                s
            })
            .collect(),
    )
}

/// `NAME` of `NAME`, `NAME[i]`.
fn base_name(name: &str) -> &str {
    name.split('[').next().unwrap_or(name)
}

/// The key a written file is remembered by: its path as written, without a
/// leading `./`.
fn file_key(path: &str) -> String {
    let mut p = path;
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    p.to_string()
}

fn written(content: Option<&Value>) -> Written {
    match content {
        Some(v) => Written::Text(v.clone()),
        None => Written::Unknown,
    }
}

/// Remember what a redirection writes (appending makes it unknown).
fn remember_file(s: &mut State, r: &Redirect, content: Option<&Value>) {
    if let Some(t) = r.value.literal() {
        let w = if r.op == RedirectOp::Write && r.fd.is_none_or(|fd| fd == 1) {
            written(content)
        } else {
            Written::Unknown
        };
        s.files.insert(file_key(&t), w);
    }
}

/// The marker key of a folder the command filled with files nobody can
/// know (`curl … | tar x -C DIR`): every path below it is [`Written::Unknown`].
fn filled_key(dir: &str) -> String {
    let d = file_key(dir);
    let d = d.trim_end_matches('/');
    format!("{}/\u{E000}", if d.is_empty() { "." } else { d })
}

/// What the command wrote at `path` earlier in the line: the file itself,
/// or, below a folder it filled with unknown files, something nobody can
/// know.
fn written_at<'a>(
    files: &'a std::collections::BTreeMap<String, Written>,
    path: &str,
) -> Option<&'a Written> {
    static UNKNOWN: Written = Written::Unknown;
    let key = file_key(path);
    if let Some(w) = files.get(&key) {
        return Some(w);
    }
    if !files.keys().any(|k| k.ends_with('\u{E000}')) {
        return None;
    }
    let mut p = key.as_str();
    loop {
        let parent = match p.rsplit_once('/') {
            Some(("", _)) => return None,
            Some((a, _)) => a,
            None if p.starts_with('/') => return None,
            None => ".",
        };
        if files.contains_key(&filled_key(parent)) {
            return Some(&UNKNOWN);
        }
        if parent == "." {
            return None;
        }
        p = parent;
    }
}

/// The folder an archive whose content nobody knows is unpacked into
/// (`curl … | tar xz`, `tar xf a.tgz -C x` of an `a.tgz` downloaded earlier
/// in the line, `unzip a.zip`, `7z x a.7z`, `git clone URL DIR`): its files
/// did not exist before the command ran. `None`: not such a command.
fn unpacked_unknown(
    prog: &str,
    args: &[Field],
    stdin: &Input,
    files: &std::collections::BTreeMap<String, Written>,
) -> Option<String> {
    if !matches!(
        prog,
        "tar" | "gtar" | "bsdtar" | "unzip" | "7z" | "7za" | "7zz" | "git"
    ) {
        return None;
    }
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let downloaded =
        |f: &str| f.contains("://") || matches!(written_at(files, f), Some(Written::Unknown));
    let value_of = |short: char, long: &str| -> Option<String> {
        for (i, t) in texts.iter().enumerate() {
            if let Some(v) = t.strip_prefix(&format!("--{long}=")) {
                return Some(v.to_string());
            }
            if *t == format!("--{long}") {
                return texts.get(i + 1).map(|v| (*v).to_string());
            }
            // `-C DIR`, `-CDIR`, `-xzf A` (a cluster ending in the letter).
            let cluster = t.strip_prefix('-').filter(|c| !c.starts_with('-'));
            let bare = (i == 0 && !t.starts_with('-') && prog.ends_with("tar")).then_some(*t);
            if let Some(c) = cluster.or(bare) {
                if let Some(at) = c.find(short) {
                    let rest = &c[at + 1..];
                    if rest.is_empty() {
                        // The value follows (the first cluster's `f` in
                        // `tar xzf A`: the next word).
                        return texts.get(i + 1).map(|v| (*v).to_string());
                    }
                    if c.chars().take(at).all(|x| x.is_ascii_alphabetic()) && short == 'C' {
                        return Some(rest.to_string());
                    }
                }
            }
        }
        None
    };
    match prog {
        "tar" | "gtar" | "bsdtar" => {
            let first = texts.first().copied().unwrap_or_default();
            let extracts = texts
                .iter()
                .any(|t| matches!(*t, "-x" | "--extract" | "--get"))
                || (!first.starts_with("--") && first.trim_start_matches('-').contains('x'));
            if !extracts {
                return None;
            }
            let unknown = match value_of('f', "file") {
                Some(a) if a != "-" => downloaded(&a),
                _ => matches!(stdin, Input::Unknown),
            };
            unknown.then(|| value_of('C', "directory").unwrap_or_else(|| ".".into()))
        }
        "unzip" => {
            let archive = texts.iter().find(|t| !t.starts_with('-'))?;
            downloaded(archive).then(|| {
                texts
                    .iter()
                    .position(|t| *t == "-d")
                    .and_then(|i| texts.get(i + 1))
                    .map_or_else(|| ".".into(), |d| (*d).to_string())
            })
        }
        "7z" | "7za" | "7zz" => {
            let (cmd, rest) = texts.split_first()?;
            if !matches!(*cmd, "x" | "e") {
                return None;
            }
            let archive = rest.iter().find(|t| !t.starts_with('-'))?;
            downloaded(archive).then(|| {
                rest.iter()
                    .find_map(|t| t.strip_prefix("-o"))
                    .map_or_else(|| ".".into(), str::to_string)
            })
        }
        "git" => {
            let at = texts.iter().position(|t| *t == "clone")?;
            let ops: Vec<&str> = texts[at + 1..]
                .iter()
                .copied()
                .filter(|t| !t.starts_with('-'))
                .collect();
            let url = ops.first()?;
            match ops.get(1) {
                Some(dir) => Some((*dir).to_string()),
                None => {
                    let base = url.trim_end_matches('/').rsplit(['/', ':']).next()?;
                    Some(base.strip_suffix(".git").unwrap_or(base).to_string())
                }
            }
        }
        _ => None,
    }
}

/// Files a downloader names after the URL (`wget URL`, `curl -O URL`, in
/// `-P DIR` / `--output-dir DIR`): what the network gave.
fn remote_named(prog: &str, args: &[Field]) -> Vec<String> {
    if prog != "wget" && prog != "curl" {
        return Vec::new();
    }
    let texts: Vec<&str> = args.iter().map(|a| a.text.as_str()).collect();
    let short = |c: char| {
        texts
            .iter()
            .any(|t| t.starts_with('-') && !t.starts_with("--") && t[1..].contains(c))
    };
    let long = |n: &str| {
        texts
            .iter()
            .position(|t| *t == n || t.starts_with(&format!("{n}=")))
            .map(|i| {
                texts[i]
                    .split_once('=')
                    .map(|(_, v)| v.to_string())
                    .or_else(|| texts.get(i + 1).map(|v| (*v).to_string()))
            })
    };
    let (named, dir) = match prog {
        "wget" => (
            !short('O') && long("--output-document").is_none(),
            long("--directory-prefix").flatten().or_else(|| {
                texts
                    .iter()
                    .position(|t| *t == "-P")
                    .and_then(|i| texts.get(i + 1).map(|v| (*v).to_string()))
            }),
        ),
        "curl" => (
            short('O') || long("--remote-name").is_some() || long("--remote-name-all").is_some(),
            long("--output-dir").flatten(),
        ),
        _ => return Vec::new(),
    };
    if !named {
        return Vec::new();
    }
    texts
        .iter()
        .filter(|t| t.contains("://"))
        .filter_map(|u| {
            let path = u.split(['?', '#']).next().unwrap_or(u);
            let base = path
                .split_once("://")?
                .1
                .split_once('/')?
                .1
                .rsplit('/')
                .next()?;
            let base = if base.is_empty() { "index.html" } else { base };
            Some(match &dir {
                Some(d) => format!("{}/{base}", d.trim_end_matches('/')),
                None => base.to_string(),
            })
        })
        .collect()
}

/// Files a program writes through its operands (content unknown, except
/// `tee`'s).
fn written_operands<'a>(prog: &str, args: &'a [Field]) -> Vec<&'a Field> {
    let opt_value = |names: &[&str]| -> Vec<&'a Field> {
        let mut out = Vec::new();
        for (i, a) in args.iter().enumerate() {
            // `-o F`, and a cluster ending in it (`-sSLo F`, `-qO F`).
            let cluster = a.text.len() > 2
                && !a.text.starts_with("--")
                && a.text.starts_with('-')
                && a.text.chars().skip(1).all(|c| c.is_ascii_alphabetic())
                && names
                    .iter()
                    .any(|n| n.len() == 2 && a.text.ends_with(&n[1..]));
            if names.contains(&a.text.as_str()) || cluster {
                if let Some(f) = args.get(i + 1) {
                    out.push(f);
                }
            }
        }
        out
    };
    match prog {
        "tee" => args.iter().filter(|a| !a.text.starts_with('-')).collect(),
        // A FIFO's content is whatever another process writes into it.
        "mkfifo" | "mknod" => args
            .iter()
            .filter(|a| !a.text.starts_with('-'))
            .take(1)
            .collect(),
        "curl" => opt_value(&["-o", "--output"]),
        "wget" => opt_value(&["-O", "--output-document"]),
        "cp" | "mv" | "install" | "ln" | "rsync" | "scp" => args
            .iter()
            .rev()
            .find(|a| !a.text.starts_with('-'))
            .into_iter()
            .collect(),
        // An edit in place (`sed -i 's|x|rm -rf ~|' build.sh`): the files
        // then hold what the script made of them, which the line does not
        // show, so a later run of one runs code nobody has read.
        "sed" | "gsed" | "perl" | "ruby"
            if super::writes::in_place_args(
                prog,
                &args.iter().map(|a| a.text.clone()).collect::<Vec<_>>(),
            ) =>
        {
            let script_given = args.iter().any(|a| {
                matches!(
                    a.text.as_str(),
                    "-e" | "-E" | "-f" | "--expression" | "--file"
                ) || a.text.starts_with("--expression=")
                    || a.text.starts_with("--file=")
            });
            let mut out = Vec::new();
            let mut value_next = false;
            let mut script_left = !script_given;
            for a in args {
                let t = a.text.as_str();
                if value_next {
                    value_next = false;
                } else if matches!(t, "-e" | "-E" | "-f" | "--expression" | "--file") {
                    value_next = true;
                } else if t.starts_with('-') && t.len() > 1 {
                } else if script_left {
                    script_left = false;
                } else {
                    out.push(a);
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

/// Does a loop's condition never end it (`while true`, `while :`, `while [ 1
/// ]`, `until false`)?
fn endless(cond: &List, until: bool) -> bool {
    let [ao] = cond.items.as_slice() else {
        return false;
    };
    let [c] = ao.first.cmds.as_slice() else {
        return false;
    };
    if !ao.rest.is_empty() {
        return false;
    }
    let CommandKind::Simple { assigns, words } = &c.kind else {
        return false;
    };
    let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
    assigns.is_empty()
        && if until {
            matches!(texts.as_slice(), ["false"])
        } else {
            matches!(
                texts.as_slice(),
                ["true"] | [":"] | ["[", "1", "]"] | ["test", "1"] | ["/bin/true"]
            )
        }
}

/// How many times a `for` word makes its loop run: its fields, or the count
/// of a brace range (`{1..100000}`, left unexpanded past a limit) or of a
/// `$(seq …)` in it.
fn word_count(w: &Word, fields: usize) -> u64 {
    let mut n = fields as u64;
    if w.plain {
        if let Some(r) = literal::brace_range_count(&w.text) {
            n = n.max(r);
        }
    }
    for s in &w.subs {
        if matches!(s.kind, SubKind::Dollar | SubKind::Backtick) {
            if let Some(k) = list_printed_lines(&s.body) {
                n = n.max(k);
            }
        }
    }
    n
}

/// Lines a list prints when it is one command whose program says how many
/// (`seq`, `yes`).
fn list_printed_lines(l: &List) -> Option<u64> {
    let [ao] = l.items.as_slice() else {
        return None;
    };
    match ao.first.cmds.as_slice() {
        [c] if ao.rest.is_empty() => printed_lines(c),
        _ => None,
    }
}

/// What a pipeline element printed, all of it (for `xargs` and `read`).
#[derive(Debug, Clone)]
struct Printed {
    text: Sym,
    /// Names a search found (`find`, `fd`): where they are is known, which
    /// ones only when it runs, so what reads them still reads a pipe.
    found: bool,
}

impl Printed {
    /// Text known before the line runs (`echo`, `printf`, `ls`).
    fn known(text: Sym) -> Printed {
        Printed { text, found: false }
    }

    /// Some of these lines, which ones known only when it runs (what `grep
    /// -v pub` or `tail -n +5` passes on): a name a pattern stood for is
    /// then some name there (`~/.ssh/id_*` is some file in `~/.ssh`, `*` some
    /// name here), never all of them; a name written out stays itself.
    fn some_of(self) -> Printed {
        let mut out = Sym::default();
        let mut line: Vec<Piece> = Vec::new();
        let flush = |line: &mut Vec<Piece>, out: &mut Sym| {
            let mut tail_start = None;
            for (k, p) in line.iter().enumerate().rev() {
                if let Piece::Text(t) = p {
                    if let Some(slash) = t.rfind('/') {
                        tail_start = Some((k, slash));
                        break;
                    }
                }
            }
            let from = tail_start.map_or(0, |(k, _)| k);
            let patterned = line[from..].iter().any(|p| matches!(p, Piece::Glob(_)));
            if patterned {
                match tail_start {
                    Some((k, slash)) => {
                        for p in &line[..k] {
                            out.push(p.clone());
                        }
                        if let Some(Piece::Text(t)) = line.get(k) {
                            out.push(Piece::Text(t[..slash].to_string()));
                        }
                    }
                    None => out.push(Piece::Text(".".into())),
                }
                out.push(Piece::Below);
            } else {
                for p in line.drain(..) {
                    out.push(p);
                }
            }
            line.clear();
        };
        for p in self.text.0 {
            match p {
                Piece::Text(t) if t.contains(['\n', '\0']) => {
                    let mut rest = t.as_str();
                    while let Some(at) = rest.find(['\n', '\0']) {
                        if !rest[..at].is_empty() {
                            line.push(Piece::Text(rest[..at].to_string()));
                        }
                        flush(&mut line, &mut out);
                        out.push(Piece::Text(rest[at..=at].to_string()));
                        rest = &rest[at + 1..];
                    }
                    if !rest.is_empty() {
                        line.push(Piece::Text(rest.to_string()));
                    }
                }
                p => line.push(p),
            }
        }
        flush(&mut line, &mut out);
        Printed {
            text: out,
            found: true,
        }
    }
}

/// The text a pipeline element prints when it is `echo` or `printf` of known
/// text (`printf '/usr/share\0'`): what the next element reads, all of it.
fn printed_text(c: &Command, r: &Ran) -> Option<Printed> {
    let CommandKind::Simple { words, .. } = &c.kind else {
        return None;
    };
    let prog = basename(&words.first()?.text);
    if r.decoded || r.file.is_some() {
        return None;
    }
    match (prog, r.output.as_ref()?.0.as_slice()) {
        ("echo" | "printf", [one]) => Some(Printed::known(one.clone())),
        // `ls` prints the names it lists, one a line (to a pipe).
        ("ls" | "gls", _) => ls_printed(words.get(1..).unwrap_or_default()).map(Printed::known),
        // `git ls-files` with no pathspec or filter prints every tracked file
        // here: the whole of it (`git ls-files -z | xargs -0 rm -f`).
        ("git", _) if lists_every_tracked_file(words) => Some(Printed {
            text: Sym::piece(Piece::Glob("*".into())),
            found: true,
        }),
        // `find` and `fd` print the names they find, one a line (NUL after
        // each with `-print0`/`-0`), unless an action prints something else
        // or runs a command whose output goes to the pipe too.
        ("find" | "gfind" | "fd" | "fdfind", names) => {
            let texts: Vec<&str> = words.iter().skip(1).map(|w| w.text.as_str()).collect();
            let find = matches!(prog, "find" | "gfind");
            let acts = |t: &&str| {
                if find {
                    wrappers::FIND_EXEC.contains(t)
                        || matches!(*t, "-ls" | "-fls" | "-delete" | "-quit")
                        || t.starts_with("-printf")
                        || t.starts_with("-fprint")
                } else {
                    wrappers::FD_EXEC.contains(t)
                        || matches!(*t, "-l" | "--list-details" | "--format")
                }
            };
            // A name a `-name` test asks for stands for files there now; what
            // the line may make before find runs is not on disk yet, so such
            // a listing stays input nobody knows (as before find was read).
            let named = names
                .iter()
                .any(|s| s.0.iter().any(|p| matches!(p, Piece::Glob(g) if g != "*")))
                || (find
                    && texts
                        .windows(2)
                        .any(|w| matches!(w[0], "-name" | "-iname") && w[1] != "*"));
            if texts.iter().any(acts) || named {
                return None;
            }
            let nul = texts.iter().any(|t| {
                if find {
                    *t == "-print0"
                } else {
                    matches!(*t, "-0" | "--print0")
                }
            });
            let mut out = Sym::default();
            for (k, name) in names.iter().enumerate() {
                if k > 0 {
                    out.push(Piece::Text(if nul { "\0" } else { "\n" }.into()));
                }
                for p in &name.0 {
                    out.push(p.clone());
                }
            }
            Some(Printed {
                text: out,
                found: true,
            })
        }
        _ => None,
    }
}

/// Does this pipeline element print some of the lines it reads, each as it
/// came (`grep -v pub`, `sort`, `head -1`)? What it passes on is then part of
/// what the element before printed, so the names a listing printed still
/// reach the element after it (`ls ~/.ssh/id_* | grep -v pub | xargs cat`
/// opens the keys). Options that print something else (a count, numbers, a
/// part of a line, file names) or a file operand of `cat` do not pass it on.
fn keeps_whole_lines(c: &Command) -> bool {
    let CommandKind::Simple { words, .. } = &c.kind else {
        return false;
    };
    let Some(first) = words.first() else {
        return false;
    };
    let args: Vec<&str> = words.iter().skip(1).map(|w| w.text.as_str()).collect();
    match basename(&first.text) {
        "sort" | "uniq" | "tac" | "shuf" => !args.iter().any(|a| matches!(*a, "-c" | "--count")),
        "cat" => args.is_empty() || args == ["-"],
        "head" | "tail" => args.iter().all(|a| {
            !a.starts_with('-') || a.starts_with("-n") || a[1..].bytes().all(|b| b.is_ascii_digit())
        }),
        // `sed '/x/d'`, `sed -e '/x/d' -e '$d'`, `sed -n '/x/p'`: no file, no
        // other option (`-i`, `-f`, `-z`)
        "sed" | "gsed" => {
            let (mut quiet, mut scripts, mut k) = (false, vec![], 0);
            while let Some(a) = args.get(k) {
                match *a {
                    "-n" | "--quiet" | "--silent" => quiet = true,
                    "-E" | "-r" | "--regexp-extended" | "-u" | "--unbuffered" | "--posix" => {}
                    "-e" | "--expression" => {
                        k += 1;
                        scripts.push(args.get(k).copied().unwrap_or(""));
                    }
                    "-ne" | "-En" | "-nE" if k + 1 < args.len() => {
                        quiet |= a.contains('n');
                        k += 1;
                        scripts.push(args[k]);
                    }
                    a if a.starts_with('-') => return false,
                    a if scripts.is_empty() => scripts.push(a),
                    _ => return false,
                }
                k += 1;
            }
            !scripts.is_empty() && scripts.iter().all(|s| sed_keeps_lines(s, quiet))
        }
        // `awk '!/x/'`, `awk '/x/'`: a pattern alone prints the lines it matches
        "awk" | "gawk" | "mawk" | "nawk" => match args.as_slice() {
            [program] => {
                let p = program.trim();
                let p = p.strip_prefix('!').map_or(p, str::trim_start);
                p.len() >= 2
                    && p.starts_with('/')
                    && p.ends_with('/')
                    && sed_keeps_lines(&format!("{p}d"), false)
            }
            _ => false,
        },
        "grep" | "egrep" | "fgrep" => {
            let mut operands = 0;
            let mut k = 0;
            while let Some(a) = args.get(k) {
                match *a {
                    "-e" | "--regexp" => k += 1,
                    "-v" | "-i" | "-E" | "-F" | "-G" | "-P" | "-w" | "-x" | "-s"
                    | "--invert-match" | "--ignore-case" => {}
                    a if a.starts_with('-')
                        && a.len() > 1
                        && !a[1..].bytes().all(|b| b"viEFGPwxs".contains(&b)) =>
                    {
                        return false
                    }
                    a if a.starts_with('-') && a.len() > 1 => {}
                    _ => operands += 1,
                }
                k += 1;
            }
            let pattern_given = args.iter().any(|a| matches!(*a, "-e" | "--regexp"));
            operands <= usize::from(!pattern_given)
        }
        _ => false,
    }
}

/// Does this element read something of its own in place of the pipe (`<
/// file`, a here-document, a here-string)?
fn reads_own_input(c: &Command) -> bool {
    c.redirs.iter().any(|r| match r.kind {
        RedirKind::File(op) => {
            matches!(op, RedirectOp::Read | RedirectOp::ReadWrite) && r.fd.is_none_or(|f| f == 0)
        }
        RedirKind::Heredoc(_) | RedirKind::HereString => r.fd.is_none_or(|f| f == 0),
        RedirKind::Dup => r.fd == Some(0),
    })
}

/// A simple command's words as written, joined by spaces (`crontab -l`).
fn written_words(c: &Command) -> Option<String> {
    let CommandKind::Simple { assigns, words } = &c.kind else {
        return None;
    };
    (assigns.is_empty() && !words.is_empty()).then(|| {
        words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// Is `script` a `sed` script that only deletes lines (or, `quiet`, only
/// prints some): each command an address or range (a line number, `$`, a
/// `/regex/` or `\cregexc`, optionally negated with `!`) and `d` (`p`)?
/// (`sed '/nightly/d'`, `sed -n '/^#/!p'`.)
fn sed_keeps_lines(script: &str, quiet: bool) -> bool {
    let b = script.as_bytes();
    let mut i = 0;
    let mut commands = 0;
    let skip = |i: &mut usize, also: &[u8]| {
        while b
            .get(*i)
            .is_some_and(|c| c.is_ascii_whitespace() || also.contains(c))
        {
            *i += 1;
        }
    };
    // One address; `None` when the text there is no address.
    let address = |mut i: usize| -> Option<usize> {
        match b.get(i)? {
            b'$' => Some(i + 1),
            c if c.is_ascii_digit() => {
                while b.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
                Some(i)
            }
            b'/' | b'\\' => {
                let delim = if b[i] == b'\\' {
                    i += 1;
                    *b.get(i)?
                } else {
                    b'/'
                };
                i += 1;
                loop {
                    match b.get(i)? {
                        b'\\' => i += 2,
                        c if *c == delim => break,
                        b'\n' => return None,
                        _ => i += 1,
                    }
                }
                i += 1;
                while b.get(i).is_some_and(|c| matches!(c, b'I' | b'M')) {
                    i += 1;
                }
                Some(i)
            }
            _ => None,
        }
    };
    loop {
        skip(&mut i, b";");
        if i >= b.len() {
            break;
        }
        let Some(mut at) = address(i) else {
            return false;
        };
        if b.get(at) == Some(&b',') {
            match address(at + 1) {
                Some(end) => at = end,
                None => return false,
            }
        }
        i = at;
        skip(&mut i, b"");
        if b.get(i) == Some(&b'!') {
            i += 1;
            skip(&mut i, b"");
        }
        match b.get(i) {
            Some(b'd') if !quiet => {}
            Some(b'p') if quiet => {}
            _ => return false,
        }
        i += 1;
        commands += 1;
        skip(&mut i, b"");
        if !matches!(b.get(i), None | Some(b';' | b'\n')) {
            return false;
        }
    }
    commands > 0
}

/// What `ls` prints to a pipe, as the words it is given say (the options
/// [`ls_output`] reads; called when it could tell the output): a folder's
/// entries bare (`*`, and `.*` with `-a`/`-A`: the folder it runs in by
/// default; another folder's bare names name something in the folder the
/// command runs in, if anything), a pattern's matches as written
/// (`src/*.rs`), a name given with `-d` as written. `ls | xargs rm -rf` is
/// `rm -rf *`; `ls DIR | xargs -I{} rm -rf DIR/{}` is `rm -rf DIR/*`. `None`
/// for a word the analysis cannot read (`$DIR`).
fn ls_printed(words: &[Word]) -> Option<Sym> {
    let (mut dirs_only, mut hidden, mut options) = (false, false, true);
    let mut operands: Vec<&str> = vec![];
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let t = w.text.as_str();
        i += 1;
        if options && t == "--" {
            options = false;
        } else if options && t.starts_with("--") {
            dirs_only |= t == "--directory";
            hidden |= matches!(t, "--all" | "--almost-all");
        } else if options && t.len() > 1 && t.starts_with('-') {
            dirs_only |= t.contains('d');
            hidden |= t.contains(['a', 'A']);
            if t.ends_with(['I', 'w', 'T']) {
                i += 1;
            }
        } else {
            operands.push(t);
        }
    }
    if operands.iter().any(|t| {
        t.contains(['$', '`', '\\']) || t.starts_with('~') && !t.starts_with("~/") && *t != "~"
    }) {
        return None;
    }
    // A name as written; `~` is home.
    let name = |t: &str| match t.strip_prefix('~') {
        Some(rest) => {
            let mut s = Sym::piece(Piece::Home);
            s.push(Piece::Text(rest.to_string()));
            s
        }
        None => Sym::text(t),
    };
    let entries = |out: &mut Vec<Sym>| {
        out.push(Sym::piece(Piece::Glob("*".into())));
        if hidden {
            out.push(Sym::piece(Piece::Glob(".*".into())));
        }
    };
    let mut names: Vec<Sym> = vec![];
    if operands.is_empty() {
        entries(&mut names);
    }
    for t in operands {
        if t.contains(['*', '?', '[']) {
            // The pattern in the last part (`src/*.o`, `*/`), its folder as written.
            let (dir, pattern) = match t.trim_end_matches('/').rsplit_once('/') {
                Some((d, _)) if !d.contains(['*', '?', '[']) => (d, &t[d.len() + 1..]),
                _ => ("", t),
            };
            let mut s = if dir.is_empty() && !t.starts_with('/') {
                Sym::default()
            } else {
                name(&format!("{dir}/"))
            };
            s.push(Piece::Glob(pattern.to_string()));
            names.push(s);
        } else {
            names.push(name(t));
            if !dirs_only {
                entries(&mut names);
            }
        }
    }
    let mut out = Sym::default();
    for (k, name) in names.iter().enumerate() {
        if k > 0 {
            out.push(Piece::Text("\n".into()));
        }
        for p in &name.0 {
            out.push(p.clone());
        }
    }
    Some(out)
}

/// The folders of a `CDPATH` value: split at the `:`s of its text, empty
/// ones left out.
fn split_at_colons(list: &Sym) -> Vec<Sym> {
    let mut out = Vec::new();
    let mut cur = Sym::default();
    for p in &list.0 {
        match p {
            Piece::Text(t) => {
                for (i, part) in t.split(':').enumerate() {
                    if i > 0 && !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    if !part.is_empty() {
                        cur.push(Piece::Text(part.to_string()));
                    }
                }
            }
            p => cur.push(p.clone()),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Programs a command's trailing words may be for (they run what comes after
/// their own options), when it names one of them: removers, wipers and
/// changers of modes and owners.
const TRAILING_DESTRUCTIVE: &[&str] = &[
    "rm", "rmdir", "shred", "srm", "wipe", "dd", "mkfs", "wipefs", "truncate", "chmod", "chown",
    "chgrp",
];

/// Programs whose words are data, never a command they run (a message, a
/// pattern, a page to show, a package's name).
const WORDS_ARE_DATA: &[&str] = &[
    "true",
    "false",
    ":",
    "yes",
    "exit",
    "return",
    "shift",
    "wait",
    "echo",
    "printf",
    "print",
    "man",
    "tldr",
    "info",
    "help",
    "whatis",
    "apropos",
    "which",
    "type",
    "whereis",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "git",
    "alias",
    "complete",
    "compgen",
    "history",
    "fc",
    "logger",
    "notify-send",
    "say",
    "espeak",
    "cowsay",
    "figlet",
    "banner",
    "apt",
    "apt-get",
    "brew",
    "dnf",
    "yum",
    "pip",
    "pip3",
    "npm",
    "cargo",
    "gem",
    "hash",
    "test",
    "[",
    "[[",
    "expr",
    "read",
    "local",
    "declare",
    "export",
    "set",
    "unset",
    "readonly",
    "let",
];

/// Where a destructive command starts among `args`, the words after a
/// program the analysis does not unwrap: the first word naming one of
/// [`TRAILING_DESTRUCTIVE`] (as written, not quoted into one word) followed
/// by at least one more word, after at least one word of the program's own.
fn trailing_command(prog: &str, args: &[Field]) -> Option<usize> {
    if WORDS_ARE_DATA.contains(&prog) || TRAILING_DESTRUCTIVE.contains(&prog) {
        return None;
    }
    let k = args.iter().position(|a| {
        let name = a.text.rsplit('/').next().unwrap_or_default();
        TRAILING_DESTRUCTIVE.contains(&name) || name.starts_with("mkfs.")
    })?;
    (k + 1 < args.len()).then_some(k)
}

/// How many earlier lines [`runs_before_refusal`] tries.
const MAX_REFUSAL_LINES: usize = 32;

/// The part of a shell text that runs when the shell refuses a token of it
/// ([`ParseErrorKind::Refused`]): the lines before the complete command the
/// token is in (the longest run of whole lines before it that parses;
/// empty: nothing runs). bash and dash parse a complete command, up to its
/// line's end, before they run it, and a non-interactive shell exits at a
/// syntax error. `None` when the text fails otherwise, or parses; with
/// `dash`, both readings must refuse it at the same place.
fn runs_before_refusal(text: &str, depth: usize, dash: bool) -> Option<&str> {
    let refused_at = |as_dash: bool| match syntax::parse_script_as(text, depth, as_dash) {
        Err(e) if e.kind == ParseErrorKind::Refused => Some(e.offset),
        _ => None,
    };
    let at = refused_at(false)?;
    if dash && refused_at(true)? != at {
        return None;
    }
    let mut end = text.get(..at)?.rfind('\n');
    for _ in 0..MAX_REFUSAL_LINES {
        let Some(nl) = end else { return Some("") };
        let before = text.get(..=nl)?;
        let parses = syntax::parse_script_as(before, depth, false).is_ok()
            && (!dash || syntax::parse_script_as(before, depth, true).is_ok());
        if parses {
            return Some(before);
        }
        end = text.get(..nl)?.rfind('\n');
    }
    None
}

/// The text after `-c` of a program the code-places table does not know and
/// whose words are not data, when it is known and more than one word (a
/// command line, not a name or a number).
fn shell_like_option(prog: &str, args: &[Field]) -> Option<String> {
    if WORDS_ARE_DATA.contains(&prog)
        || places::has_places(prog)
        || wrappers::interpreter_lang(prog).is_some()
    {
        return None;
    }
    let k = args
        .iter()
        .take_while(|a| a.text != "--")
        .position(|a| a.text == "-c")?;
    let text = args.get(k + 1)?.value.literal()?;
    text.trim()
        .contains([' ', '\t', ';', '&', '|'])
        .then_some(text)
}

/// A field that is this value (an operand `xargs` read).
fn field_of(s: &Sym) -> Field {
    // (a pattern stays one: `echo * | xargs rm` hands rm the names `*` matches)
    let pattern = s.0.iter().any(|p| matches!(p, Piece::Glob(_)));
    match s.literal().filter(|_| !pattern) {
        Some(t) => Field::literal(&t),
        None => Field {
            text: s.to_string(),
            value: Value::one(s.clone()),
            content: None,
            printed: None,
        },
    }
}

/// `xargs -I R`: the value `v` with each `R` in its text replaced by `item`;
/// its other pieces (home, the project, unknown parts) stay.
fn substituted(v: &Value, r: &str, item: &Sym) -> Value {
    let alternatives = v.0.iter().map(|alt| {
        let mut s = Sym::default();
        for p in &alt.0 {
            let (text, glob) = match p {
                Piece::Text(t) if t.contains(r) => (t, false),
                Piece::Glob(t) if t.contains(r) => (t, true),
                _ => {
                    s.push(p.clone());
                    continue;
                }
            };
            for (i, part) in text.split(r).enumerate() {
                if i > 0 {
                    s.extend(item);
                }
                if !part.is_empty() {
                    s.push(if glob {
                        Piece::Glob(part.into())
                    } else {
                        Piece::Text(part.into())
                    });
                }
            }
        }
        s
    });
    Value(alternatives.collect())
}

/// `xargs -I R`: the word `t` with each `R` replaced by `item`.
fn replaced(t: &str, r: &str, item: &Sym) -> Field {
    let mut s = Sym::default();
    for (i, part) in t.split(r).enumerate() {
        if i > 0 {
            s.extend(item);
        }
        if !part.is_empty() {
            s.push(Piece::Text(part.into()));
        }
    }
    field_of(&s)
}

/// Lines a command prints, when its program says: `yes` without end, `seq
/// [FIRST [STEP]] LAST` (literal numbers) that many.
fn printed_lines(c: &Command) -> Option<u64> {
    let CommandKind::Simple { words, .. } = &c.kind else {
        return None;
    };
    let (prog, args) = words.split_first()?;
    match basename(&prog.text) {
        "yes" => Some(u64::MAX),
        "seq" | "gseq" => {
            let nums: Vec<f64> = args
                .iter()
                .filter(|a| !(a.text.starts_with('-') && a.text.parse::<f64>().is_err()))
                .map(|a| a.text.parse::<f64>().ok())
                .collect::<Option<_>>()?;
            let (first, step, last) = match nums.as_slice() {
                [l] => (1.0, 1.0, *l),
                [f, l] => (*f, 1.0, *l),
                [f, s, l] => (*f, *s, *l),
                _ => return None,
            };
            if step == 0.0 {
                return Some(u64::MAX);
            }
            let n = ((last - first) / step).floor() + 1.0;
            // `as` saturates: a huge count is u64::MAX, a negative one 0.
            Some(if n.is_finite() { n as u64 } else { u64::MAX })
        }
        _ => None,
    }
}

/// How many times `for ((HEAD))` runs its body: without end when the
/// condition is empty (`;;`) or constant true, N for `i < N` / `i <= N` with
/// a literal N (from 0), else once (not known).
fn arith_for_count(head: &str) -> u64 {
    let parts: Vec<&str> = head.split(';').collect();
    let [_, cond, _] = parts.as_slice() else {
        return 1;
    };
    let cond: String = cond.chars().filter(|c| !c.is_whitespace()).collect();
    if cond.is_empty() || cond == "1" || cond == "true" {
        return u64::MAX;
    }
    for (op, extra) in [("<=", 1u64), ("<", 0)] {
        if let Some((_, n)) = cond.split_once(op) {
            return n.parse::<u64>().map_or(1, |n| n.saturating_add(extra));
        }
    }
    1
}

/// `xargs -P 0` / `--max-procs=0`: as many processes at once as it can.
fn xargs_unlimited(opts: &[String]) -> bool {
    opts.iter().enumerate().any(|(i, a)| {
        matches!(a.as_str(), "-P0" | "--max-procs=0")
            || (matches!(a.as_str(), "-P" | "--max-procs")
                && opts.get(i + 1).is_some_and(|n| n == "0"))
    })
}

/// A field written back as shell text that re-parses to the same value: a
/// known text quoted, else the value's shell spelling (`$HOME/x`).
fn requote(f: &Field) -> String {
    match f.value.literal() {
        Some(t) => crate::shell::quote(&t),
        None => match f.value.0.as_slice() {
            [one] => one.to_string(),
            _ => crate::shell::quote(&f.text),
        },
    }
}

/// bash's builtins: found without looking at PATH.
/// Programs in a pipeline that pass on what they read, reordered or cut
/// but as it came: the element after them reads it too (`env | sort | grep
/// x`, `gh auth token | head -1 | docker login --password-stdin`).
const PASS_THROUGH: &[&str] = &["sort", "uniq", "tac", "head", "tail", "cat", "nl", "column"];

const SHELL_BUILTINS: &[&str] = &[
    ".",
    ":",
    "[",
    "alias",
    "bg",
    "bind",
    "break",
    "builtin",
    "caller",
    "cd",
    "command",
    "compgen",
    "complete",
    "compopt",
    "continue",
    "declare",
    "dirs",
    "disown",
    "echo",
    "enable",
    "eval",
    "exec",
    "exit",
    "export",
    "false",
    "fc",
    "fg",
    "getopts",
    "hash",
    "help",
    "history",
    "jobs",
    "kill",
    "let",
    "local",
    "logout",
    "mapfile",
    "popd",
    "printf",
    "pushd",
    "pwd",
    "read",
    "readarray",
    "readonly",
    "return",
    "set",
    "shift",
    "shopt",
    "source",
    "suspend",
    "test",
    "times",
    "trap",
    "true",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "unalias",
    "unset",
    "wait",
];

/// A PATH value (as written, `.:$PATH`) that puts a relative or temp folder
/// before the inherited PATH (`$PATH`, `${PATH}`, or anything unknown).
fn unseen_path_folder(text: &str) -> bool {
    let text = text.trim_matches(['"', '\'']);
    for entry in text.split(':') {
        if entry.contains("PATH") {
            // The inherited PATH: what follows it comes after the system's.
            return false;
        }
        if entry.starts_with("$TMPDIR") {
            return true;
        }
        if entry.starts_with('$') && !entry.starts_with("$HOME") {
            // A folder known only when it runs (`$PWD/bin`, `$(npm bin)`).
            continue;
        }
        let relative =
            !(entry.starts_with('/') || entry.starts_with('~') || entry.starts_with("$HOME"));
        let temp = place::shared_temp(entry).is_some();
        if relative || temp {
            return true;
        }
    }
    false
}
