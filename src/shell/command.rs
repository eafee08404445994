//! Find every simple command a bash script would run.
//!
//! [`parse`] reads a script the way bash would (quoting, lists, pipelines,
//! compound commands, here-documents, substitutions) and returns the simple
//! commands it contains, outermost first. It also looks *through* commands
//! that run other commands — `sudo`, `env`, `xargs`, `find -exec`,
//! `bash -c STR`, `eval`, shells fed a here-document or `echo … |` — and
//! reports both the wrapper and the wrapped command, so a policy sees
//! `rm` in `sudo bash -c "cd / && rm -rf *"` but not in `echo "rm -rf /"`.
//!
//! Choices worth knowing:
//! * Arguments keep their text as the program receives it, quotes removed,
//!   with expansions the analysis cannot finish kept as written (`"$HOME"`
//!   stays `$HOME`); alongside, [`SimpleCommand::values`] holds what each may
//!   be ([`Value`]): variables the command itself assigned, `~`, `$PWD`,
//!   `$(pwd)`, known substitutions, field splitting and brace expansion of
//!   unquoted words (`{rm,-rf,/}`, `rm${IFS}-rf`), and the directory each
//!   command runs in, followed through `cd` across `&&`, `||` and subshells.
//! * `[[ … ]]`, `(( … ))` and the keywords `!` / `time` (at the start of a
//!   pipeline) are syntax, not programs: they are not reported, but command
//!   substitutions inside them are.
//! * A command made only of assignments and/or redirections (`> f`, `X=1`),
//!   and the redirections of a compound command (`{ …; } > f`,
//!   `done < f`), are reported as a command whose `program` is empty.
//! * `flags` lists each flag once (duplicates dropped), in first-seen order;
//!   a `--` separator is neither a flag nor an operand.
//! * Any syntax error, anywhere (including inside a `bash -c` string), makes
//!   the whole parse fail: no partial results.
//! * Nesting (subshells, compound commands, substitutions, re-parsed strings)
//!   deeper than [`MAX_DEPTH`], or wrapper chains longer than
//!   [`MAX_WRAPPERS`], is an error.

mod cargo_config;
mod container;
mod emit;
mod env_values;
mod escapes;
mod expand;
mod extract;
mod fish;
mod git_autocorrect;
mod help;
mod inline;
mod lex;
mod links;
mod literal;
mod long_options;
mod nesting;
pub mod options;
mod outputs;
mod places;
mod remote;
mod repo_config;
pub mod roles;
mod script_files;
mod startup_files;
mod state;
mod syntax;
mod transform;
mod unread;
mod uploads;
mod wrappers;
mod writes;
mod zsh;

use std::collections::HashSet;

use super::budget::{self, Over};
use super::value::{Piece, Value};

pub use cargo_config::add_cargo_config_code;
pub use git_autocorrect::add_autocorrected;
pub use links::{acts_on_name, follows_links_below, is_link_text, made_by};
pub use outputs::{outputs, Outputs};
pub(crate) use repo_config::names_hookrules;
pub use repo_config::{add_repository_code, name_checked_out, name_push_refspecs};
pub use script_files::add_script_code;
pub use startup_files::add_startup_code;
pub use syntax::MAX_DEPTH;
pub use transform::Transform;
pub use uploads::uploads;
pub use wrappers::MAX_WRAPPERS;
pub use writes::{destroys_operands, filled, in_place, writes, Listing, Write};

/// Parse `script` and return every simple command it would run, in
/// source/execution order (command substitutions before the command that
/// uses them; a wrapper before the command it wraps).
///
/// Returns `Ok(vec![])` for an empty script or one with only comments.
/// A quote of the script's own text left open is judged as if closed at
/// the end (the shell refuses the line and runs nothing from it on; the
/// agent will retry it closed): `echo "rm -rf /` is an echo, while in
/// `rm -rf ~; echo "x` the delete counts.
///
/// # Errors
/// [`ParseError`] (with the byte offset) for any syntax error — a quote
/// left open in a re-parsed string, an unterminated substitution or
/// here-document, missing `fi`/`done`/`esac`, a stray
/// operator — including inside re-parsed strings (`bash -c`, `eval`), and
/// for nesting beyond [`MAX_DEPTH`] or [`MAX_WRAPPERS`].
pub fn parse(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    let _budget = budget::scope();
    let cmds = extract::extract(script)?;
    budget::check().map_err(|o| over_budget(o, script.len()))?;
    Ok(cmds)
}

/// The command as a JSON object, for `command = { when = … }` conditions,
/// their prefilter (`compile::reach`) and traces.
pub fn command_object(c: &SimpleCommand) -> serde_json::Value {
    command_object_with(c, &|_| true)
}

/// [`command_object`] with only the members whose key is `wanted`, each
/// the same value, in the same order: the prefilter looks for literals in
/// a few of them (a harmless Bash command's object, whole, cost ~12k
/// instructions, most of it members no literal is looked for in).
pub fn command_object_with(c: &SimpleCommand, wanted: &dyn Fn(&str) -> bool) -> serde_json::Value {
    use serde_json::{json, Value};
    let members: [(&str, &dyn Fn() -> Value); 21] = [
        ("program", &|| json!(c.program)),
        ("program_path", &|| json!(c.program_path)),
        ("args", &|| json!(c.args)),
        ("flags", &|| json!(c.flags)),
        ("operands", &|| json!(c.operands)),
        ("subcommand_words", &|| json!(subcommand_words(c))),
        ("option_values", &|| json!(option_values(c))),
        ("redirects", &|| {
            json!(c
                .redirects
                .iter()
                .map(|r| json!({"op": format!("{:?}", r.op).to_lowercase(), "target": r.target}))
                .collect::<Vec<_>>())
        }),
        ("via", &|| json!(c.via)),
        ("assignments", &|| {
            json!(c
                .assignments
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect::<serde_json::Map<_, _>>())
        }),
        ("cwd", &|| json!(c.cwd.to_string())),
        ("program_unknown", &|| json!(c.program_unknown)),
        ("operands_from_input", &|| json!(c.operands_from_input)),
        ("code", &|| json!(c.code.map(|k| k.as_str()))),
        ("forks_itself", &|| json!(c.forks_itself)),
        ("background_jobs", &|| json!(c.background_jobs)),
        ("output_to", &|| json!(c.output_to)),
        ("output_in", &|| json!(c.output_in)),
        ("input_lines_of", &|| json!(c.input_lines_of)),
        ("find_narrowed", &|| {
            json!(c.program == "find" && extract::find_narrowed(&c.args))
        }),
        ("stdout_to", &|| {
            json!(c
                .redirects
                .iter()
                .rev()
                .find(|r| {
                    matches!(r.op, RedirectOp::Write | RedirectOp::Append)
                        && r.fd.is_none_or(|fd| fd == 1)
                })
                .map(|r| r.target.clone()))
        }),
    ];
    let mut m = serde_json::Map::new();
    for (key, value) in members {
        if wanted(key) {
            m.insert(key.to_string(), value());
        }
    }
    Value::Object(m)
}

/// What [`writes`], [`outputs`] and [`filled`] say of each command of one
/// list, each asked once: they depend on the command alone, and the
/// prefilter asks them of the same commands for each path selector (a
/// harmless Bash command: ~16k instructions of the 102k its six selectors
/// cost, callgrind). For the list it was made for only (`at` is a command's
/// place in it); a place past its end is answered afresh.
#[derive(Default)]
pub struct Facts(Vec<CommandFacts>);

#[derive(Default)]
struct CommandFacts {
    writes: std::sync::OnceLock<Vec<Write>>,
    outputs: std::sync::OnceLock<Outputs>,
    filled: std::sync::OnceLock<Vec<Write>>,
}

impl Facts {
    /// For a list of `n` commands.
    #[must_use]
    pub fn new(n: usize) -> Facts {
        Facts(
            std::iter::repeat_with(CommandFacts::default)
                .take(n)
                .collect(),
        )
    }

    /// [`writes`] of command `at`, `c`.
    pub fn writes(&self, at: usize, c: &SimpleCommand) -> std::borrow::Cow<'_, [Write]> {
        match self.0.get(at) {
            Some(f) => f.writes.get_or_init(|| writes(c)).as_slice().into(),
            None => writes(c).into(),
        }
    }

    /// [`outputs`] of command `at`, `c`.
    pub fn outputs(&self, at: usize, c: &SimpleCommand) -> std::borrow::Cow<'_, Outputs> {
        match self.0.get(at) {
            Some(f) => std::borrow::Cow::Borrowed(f.outputs.get_or_init(|| outputs(c))),
            None => std::borrow::Cow::Owned(outputs(c)),
        }
    }

    /// [`filled`] of command `at`, `c`.
    pub fn filled(&self, at: usize, c: &SimpleCommand) -> std::borrow::Cow<'_, [Write]> {
        match self.0.get(at) {
            Some(f) => f.filled.get_or_init(|| filled(c)).as_slice().into(),
            None => filled(c).into(),
        }
    }
}

/// One simple command (program plus arguments) found in a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Basename of the program after unwrapping wrappers and removing quotes:
    /// "rm" for `/bin/rm`, `\rm`, `'rm'`, `r""m`. Empty for a command that is
    /// only assignments/redirections.
    pub program: String,
    /// The program word as written, quotes removed (e.g. "/bin/rm").
    pub program_path: String,
    /// All words after the program, quotes/escapes removed the way the shell
    /// removes them. Variables are NOT expanded: `"$HOME"` stays `$HOME`,
    /// `${HOME}` stays `${HOME}`, `~` stays `~`; command substitutions stay as
    /// their text (e.g. `$(pwd)`).
    pub args: Vec<String>,
    /// Flags from `args`: combined short flags split (`-rf` -> `-r`, `-f`),
    /// long flags kept (`--force`; `--foo=bar` -> `--foo`), nothing after a
    /// `--` argument counts as a flag. A lone `-` is not a flag. Each flag is
    /// listed once.
    pub flags: Vec<String>,
    /// Args that are not flags (including everything after `--`, but not the
    /// `--` itself). A value following a flag (like `-m msg`) is also listed
    /// here; the parser cannot know option arity.
    pub operands: Vec<String>,
    /// File redirections attached to this command (`> f`, `>> f`, `< f`,
    /// `2> f`, `&> f`, `>| f`, `<> f`). `2>&1`-style fd duplications and
    /// here-documents are not file targets. Wrapped commands share the
    /// redirections of their wrapper.
    pub redirects: Vec<Redirect>,
    /// Leading `VAR=value` assignments (and those given to `env`/`sudo`);
    /// a wrapped command also inherits its wrappers' assignments.
    pub assignments: Vec<(String, String)>,
    /// How we got here, outermost first, e.g. `["sudo", "bash -c", "$()"]`.
    /// Entries: a wrapper's name (`sudo`, `xargs`, `find -exec`, `eval`,
    /// `watch`, `trap`), `bash -c`, `bash <<` / `bash <<<` (here-doc or
    /// here-string fed to a shell), `| bash` (literal text piped into a
    /// shell), `$()`, ``` `` ``` (backquotes), `<()`, `>()`, and `f()` for a
    /// function body.
    pub via: Vec<String>,
    /// Byte offset in the top-level script of the command (for text found in
    /// a re-parsed string, the offset of the command that carried it).
    pub offset: usize,
    /// What each argument may be when the command runs, parallel to `args`
    /// (`"$HOME"/x` is the home folder then `/x`; `$1` is unknown).
    pub values: Vec<Value>,
    /// What each operand may be, parallel to `operands`.
    pub operand_values: Vec<Value>,
    /// The directory the command runs in (the event's `cwd`, moved by `cd`,
    /// `pushd`, `popd` earlier in the same shell).
    pub cwd: Value,
    /// The program word is an expansion the analysis cannot know (`$x -rf /`,
    /// `${CMD} …`, `$(get-tool) …`).
    pub program_unknown: bool,
    /// More operands are read from input when it runs (`xargs rm`).
    pub operands_from_input: bool,
    /// For shells, interpreters, `eval` and `source`: where the code they run
    /// comes from. `None` for other programs.
    pub code: Option<Code>,
    /// A call of the function it is in, from a new process (in the
    /// background, a pipeline, a subshell or a substitution), that no branch,
    /// loop or `&&`/`||` in the body guards: each call starts another without
    /// end, a fork bomb (`f(){ f | f & }; f`). A call in the same process
    /// (`f(){ f; }`) or behind a base case (`[ $1 -gt 0 ] && f $(($1-1)) &`)
    /// is not.
    pub forks_itself: bool,
    /// For a command run in the background (after `&`, its own or an
    /// enclosing list's, or by `xargs -P 0`): how many such jobs the loops
    /// around the `&` start, all at once. A `for` over N words, a brace range
    /// `{1..N}`, `$(seq N)`, `for ((…; i<N; …))` or `seq N | xargs -P 0`
    /// start N; a loop that never ends (`while true`, `while :`, `until
    /// false`, `for ((;;))`, `yes | xargs -P 0`) [`u64::MAX`]; a loop whose
    /// count is not known counts once (`while true; do x; done &` starts
    /// one job). 0 when not in the background.
    pub background_jobs: u64,
    /// The programs that read what this command prints: the next element of its
    /// pipeline (`gh auth token | docker login --password-stdin`), or the
    /// command a `$( )` or backquote substitution of it is a word of (`curl -H
    /// "Authorization: Bearer $(gcloud auth print-access-token)"`); `""` when
    /// the substitution is assigned to a variable (`T=$(…)`). Empty when its
    /// output goes to the terminal (or a file it is redirected to).
    pub output_to: Vec<String>,
    /// For an element of a pipeline: the earlier element whose output it
    /// reads, through elements that only pass some of its lines on as they
    /// came (`grep -v x`, `sed '/x/d'`, `sort`), as that element's words
    /// were written (`crontab -l | grep -v nightly | crontab -`: `crontab
    /// -l`). What it reads is then nothing but lines that command printed.
    /// `None` when it reads anything else (its own redirection, a
    /// here-document) or is no element of a pipeline.
    pub input_lines_of: Option<String>,
    /// For a command in a substitution: the word the substitution is part of,
    /// as written (`Authorization: Bearer $(gcloud auth print-access-token)`).
    pub output_in: Option<String>,
    /// Links made earlier in the same command line (`ln -s / out && rm -rf
    /// out/*`), which paths of this command go through.
    pub made: Vec<crate::shell::links::MadeLink>,
    /// It runs only on some of the ways through its script: in a branch
    /// (`if`, `case`), a loop body, after `&&` or `||`, or read where a
    /// function is defined. What a script run from disk may do, as against
    /// what it certainly does (see [`add_script_code`]).
    pub guarded: bool,
    /// Found in a script read from disk, which may run it or not: it is in a
    /// branch, a loop, after `&&`/`||`, a function's definition or a trap, or
    /// a value of it depends on the script's run (its environment, input,
    /// a command's output, which branch ran). The evaluator judges what only
    /// such commands earn one step down: a deny asks, an ask is left out.
    /// Commands of the line itself are never uncertain.
    pub uncertain: bool,
    /// Files on disk whose text the command runs as code, in the language
    /// of the place that reads it: a shell's or a client's standard input
    /// (`sh < cmds.txt`, `cat x | sh`, `psql db < drop.sql`) or an option
    /// naming a file of code (`psql -f drop.sql`). `script_files` reads
    /// them as it reads a script given by name.
    pub(crate) code_files: Vec<(Value, places::Lang)>,
    /// Environment variables the line sets for the command (`X=… cmd`, an
    /// earlier `export X=…`) that name a place its program writes or removes
    /// (`CARGO_TARGET_DIR` for `cargo clean`: `$NAME` in
    /// `policies/data/write-places.toml`), with what each holds then.
    pub(crate) env_places: Vec<(&'static str, Value)>,
    /// Files on disk, outside the command's words, that it puts back,
    /// replaces or takes away, as git lists them: a branch switch, a stash,
    /// a merge changing a settings file that registers hookrules
    /// ([`repo_config::name_checked_out`]). Absolute.
    pub(crate) replaced: Vec<String>,
}

/// Where the code a shell, an interpreter, `eval` or `source` runs comes from.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Code {
    /// Literal text in the command (`bash -c '…'`, a here-document, `echo … |
    /// sh`): its commands are reported, with this command in their `via`.
    Inline,
    /// Text decoded from literal input (`echo … | base64 -d | sh`): reported
    /// too, but hiding code behind an encoding is itself a warning sign.
    Decoded,
    /// A file written earlier in the same command (`echo … > x.sh; sh x.sh`):
    /// its commands are reported.
    Written,
    /// A script file the analysis does not read (`bash deploy.sh`).
    File,
    /// Text produced at run time that nobody can read beforehand (`curl … |
    /// sh`, `eval "$(…)"`, `source <(…)`, `bash -c "$X"`).
    Dynamic,
}

impl Code {
    /// The name used in policies.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Inline => "inline",
            Code::Decoded => "decoded",
            Code::Written => "written",
            Code::File => "file",
            Code::Dynamic => "dynamic",
        }
    }

    /// The source a policy names.
    #[must_use]
    pub fn parse(name: &str) -> Option<Code> {
        [
            Code::Inline,
            Code::Decoded,
            Code::Written,
            Code::File,
            Code::Dynamic,
        ]
        .into_iter()
        .find(|c| c.as_str() == name)
    }

    /// Every name, for validation and documentation.
    pub const NAMES: &'static [&'static str] = &["inline", "decoded", "written", "file", "dynamic"];
}

impl SimpleCommand {
    /// The values of the operands that name files the command acts on: all
    /// operands, except the scripts `sed` takes as words (its first operand
    /// without `-e`/`-f`, else the word after each `-e`/`-f`), which are code,
    /// not paths (`sed -i '/^DEBUG/d' config.py` edits `config.py`, not `/`).
    pub fn target_values(&self) -> impl Iterator<Item = &Value> {
        self.target_operands().map(|(_, v)| v)
    }

    /// [`SimpleCommand::target_values`] with the index of each operand.
    pub fn target_operands(&self) -> impl Iterator<Item = (usize, &Value)> {
        let scripts = if program_is(&self.program, "sed") || program_is(&self.program, "gsed") {
            let (_, at) = split_flags(&self.program, &self.args);
            sed_scripts(&self.args, &at)
        } else {
            vec![]
        };
        self.operand_values
            .iter()
            .enumerate()
            .filter(move |(i, _)| !scripts.contains(i))
    }

    pub(crate) fn with_values(
        program_path: String,
        args: Vec<String>,
        values: Vec<Value>,
        redirects: Vec<Redirect>,
        assignments: Vec<(String, String)>,
        via: Vec<String>,
        offset: usize,
    ) -> Self {
        let program = program_name(&program_path).to_string();
        let (mut args, mut values) = (args, values);
        spell_out_long_options(&program, &mut args, &mut values);
        help::help_request(&program, &mut args, &mut values);
        let (flags, operand_at) = split_flags(&program, &args);
        let operands = operand_at
            .iter()
            .filter_map(|i| args.get(*i).cloned())
            .collect();
        let operand_values = operand_at
            .iter()
            .map(|i| values.get(*i).cloned().unwrap_or_default())
            .collect();
        SimpleCommand {
            program,
            program_path,
            args,
            flags,
            operands,
            redirects,
            assignments,
            via,
            offset,
            values,
            operand_values,
            cwd: Value::one(super::value::Sym::piece(super::value::Piece::Start)),
            program_unknown: false,
            operands_from_input: false,
            code: None,
            forks_itself: false,
            guarded: false,
            uncertain: false,
            background_jobs: 0,
            output_to: Vec::new(),
            input_lines_of: None,
            output_in: None,
            made: Vec::new(),
            code_files: Vec::new(),
            env_places: Vec::new(),
            replaced: Vec::new(),
        }
    }
}

/// What a file redirection does to its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RedirectOp {
    /// `>`, `>|`, `&>`, `>& file`: truncate/create and write.
    Write,
    /// `>>`, `&>>`: append.
    Append,
    /// `<`: read.
    Read,
    /// `<>`: open read-write (creates the file).
    ReadWrite,
}

/// A redirection to or from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// Kind of access.
    pub op: RedirectOp,
    /// Explicit file descriptor (`2>` gives `Some(2)`); `None` when omitted
    /// or for `&>` (stdout and stderr).
    pub fd: Option<u32>,
    /// The target word, quotes removed, not expanded.
    pub target: String,
    /// What the target may be when the command runs.
    pub value: Value,
}

/// Why a script could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (at byte {offset})")]
pub struct ParseError {
    /// Human-readable description.
    pub message: String,
    /// Byte offset in the top-level script where the problem was found.
    pub offset: usize,
    /// What kind of problem it is.
    pub kind: ParseErrorKind,
}

/// The kinds of [`ParseError`] that change what runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseErrorKind {
    /// A quote (`'`, `"`, `$'`, `` ` ``) of the script's own text is never
    /// closed. bash and dash then run the lines before the one the quote
    /// opens on and nothing from that line on; zsh runs nothing at all.
    /// [`parse`] judges the script as if the quote were closed at the end.
    /// Raised by the lexer of the top-level text only: a quote left open in
    /// a re-parsed text (`bash -c '…'`, a backquoted command) fails that
    /// inner shell while the command around it still runs.
    UnclosedQuote,
    /// A token no shell of the sh family accepts where it stands, whatever
    /// its options: a `(` after a simple command's words (`echo a(b)`,
    /// `watch cls meth '"5".equals(p[0])'`; not an extglob's `@(`, which is
    /// part of its word, nor `name()`, a function). bash and dash refuse the
    /// whole complete command it is in and run nothing from there on
    /// (a non-interactive shell exits), so only the complete commands on the
    /// lines before it run. Raised by the parser of one text; a re-parsed
    /// text's error is [`ParseErrorKind::Other`] to the text around it.
    Refused,
    /// The analysis went past its budget of memory and work
    /// ([`crate::shell::budget`]): a value built to grow, an expansion to
    /// millions of words.
    OverBudget,
    /// Anything else: the analysis cannot say what runs.
    Other,
}

pub(crate) fn perr(message: impl Into<String>, offset: usize) -> ParseError {
    ParseError {
        message: message.into(),
        offset,
        kind: ParseErrorKind::Other,
    }
}

/// The analysis went past its budget at `offset`.
pub(crate) fn over_budget(what: Over, offset: usize) -> ParseError {
    ParseError {
        kind: ParseErrorKind::OverBudget,
        ..perr(format!("too large to analyse: {}", what.describe()), offset)
    }
}

/// A token at `offset` that no shell accepts there ([`ParseErrorKind::Refused`]).
pub(crate) fn refused(message: impl Into<String>, offset: usize) -> ParseError {
    ParseError {
        kind: ParseErrorKind::Refused,
        ..perr(message, offset)
    }
}

/// A quote of the lexed text opened at `offset` and never closed.
pub(crate) fn unclosed_quote(message: &str, offset: usize) -> ParseError {
    ParseError {
        kind: ParseErrorKind::UnclosedQuote,
        ..perr(message, offset)
    }
}

/// Does a program name match an item (exact, or a prefix ending in `*`)?
///
/// Names compare ASCII-case-insensitively, always: the default file systems of
/// macOS and Windows find `/bin/rm` for `RM` and `/usr/bin/sudo` for `SUDO`,
/// and on a case-sensitive system a program spelled differently rarely
/// exists, so matching it anyway costs nothing.
pub fn program_is(program: &str, item: &str) -> bool {
    match item.strip_suffix('*') {
        Some(prefix) => program
            .get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix)),
        None => program.eq_ignore_ascii_case(item),
    }
}

/// Does `c` run code whose effects its words do not tell: a shell, `eval` or
/// `source` (whatever the code's source), or an interpreter (`python3
/// show.py`, `node -e …`, `awk`): what it does with a file it is given is up
/// to that code.
#[must_use]
pub fn runs_code(c: &SimpleCommand) -> bool {
    c.code.is_some() || wrappers::interpreter_lang(&c.program).is_some()
}

/// The operands that are shell text, not paths: a shell's `-c` text (`bash
/// -c 'ssh-add KEY; git push'`) and the value of an option that takes a
/// shell command (`rsync -e 'ssh -i KEY'`, `scp -S PROG`, `sshfs -o
/// ssh_command=…`, from the places that take code). Their commands are
/// judged themselves, as the key given to `ssh -i` is; the text is no file
/// the program opens.
#[must_use]
pub fn shell_text_operands(c: &SimpleCommand) -> Vec<usize> {
    let prog = c.program.to_ascii_lowercase();
    let mut at: Vec<usize> = wrappers::shell_text_arg(&prog, &c.args)
        .into_iter()
        .collect();
    if places::has_places(&prog) {
        at.extend(places::find(&prog, &c.args).into_iter().filter_map(|f| {
            match (f.source, f.lang) {
                (
                    places::Source::Arg { arg, .. },
                    places::Lang::Sh | places::Lang::Bash | places::Lang::ShOrBool,
                ) => Some(arg),
                _ => None,
            }
        }));
    }
    if at.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut after_dashdash = false;
    let mut operand = 0;
    for (i, a) in c.args.iter().enumerate() {
        let is_flag = !after_dashdash && a.starts_with('-') && a.len() > 1;
        if at.contains(&i) && !is_flag {
            out.push(operand);
        }
        if !after_dashdash && a == "--" {
            after_dashdash = true;
        } else if !is_flag {
            operand += 1;
        }
    }
    out
}

/// Where the subcommand starts: the first operand not directly after a short flag
/// (so `git -C dir push` finds `push`, and `git commit -m push` does not), or a
/// later one when every operand before it directly follows a long option, which
/// may be that option's value (`aws --profile prod secretsmanager
/// get-secret-value`, `kubectl --namespace prod get secret`). The answer of a
/// `command` test's `subcommand`, and of the prefilter's (`compile::reach`).
///
/// A program whose options the code-places table lists (`docker`, `docker
/// compose`, `git`) is read by them instead: `docker compose -f config up`
/// runs `up`, and `git -P reset --hard` runs `reset`.
pub fn subcommand_matches<S: AsRef<str>>(c: &SimpleCommand, sub: &[S]) -> bool {
    if sub.is_empty() {
        return true;
    }
    let name = program_name(&c.program);
    let name = if name.bytes().any(|b| b.is_ascii_uppercase()) {
        std::borrow::Cow::Owned(name.to_ascii_lowercase())
    } else {
        std::borrow::Cow::Borrowed(name)
    };
    places::subcommand_path(&name, &c.args, sub, leading_words_match)
        .unwrap_or_else(|| leading_words_match(&c.args, sub))
}

/// The operands that can be words of a subcommand path: every operand but
/// one written directly after an option without `=`, which may be that
/// option's value (`tgutil -m delete --text x`, `tool --mode delete`: a mode,
/// not a `delete` subcommand; `openstack --os-cloud prod server delete web`
/// has `server delete web`), as [`subcommand_matches`] reads a short option's
/// value. Words after `--` are operands whatever comes before them. The
/// command object's `subcommand_words`: a rule for any program (whose options
/// it cannot know) finds a verb of its path there.
pub fn subcommand_words(c: &SimpleCommand) -> Vec<&str> {
    let mut out = Vec::new();
    let mut after_option = false;
    let mut after_dashdash = false;
    for a in &c.args {
        if !after_dashdash && a == "--" {
            after_dashdash = true;
            continue;
        }
        let is_option = !after_dashdash && a.starts_with('-') && a.len() > 1;
        if is_option {
            after_option = !a.contains('=');
            continue;
        }
        if !after_option || after_dashdash {
            out.push(a.as_str());
        }
        after_option = false;
    }
    out
}

/// The values a command's long options may take, by option: the text after
/// `=` (`--query=id`), or the next word when it is no option itself
/// (`--query id`; for a program whose options are not known, that word may
/// be an operand instead). The command object's `option_values`: a rule
/// judges what one option selects (`--query`) apart from the subcommand's
/// words (`az keyvault secret show --query id`).
pub fn option_values(c: &SimpleCommand) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    let mut args = c.args.iter().peekable();
    while let Some(a) = args.next() {
        if a == "--" {
            break;
        }
        let Some(long) = a.strip_prefix("--").filter(|l| !l.is_empty()) else {
            continue;
        };
        let (name, value) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (
                long,
                args.next_if(|next| !next.starts_with('-') || next.len() == 1)
                    .cloned(),
            ),
        };
        if let Some(v) = value {
            if let serde_json::Value::Array(list) = out
                .entry(format!("--{name}"))
                .or_insert_with(|| serde_json::Value::Array(vec![]))
            {
                list.push(serde_json::Value::String(v));
            }
        }
    }
    out
}

/// [`subcommand_matches`] for a program whose options are not known: `sub`
/// among the leading operands of `args`, as described there.
fn leading_words_match<S: AsRef<str>>(args: &[String], sub: &[S]) -> bool {
    if sub.is_empty() {
        return true;
    }
    let mut prev_short_flag = false;
    let mut prev_long_flag = false;
    // Leading operands, each with "directly after a long option without `=`".
    let mut words: Vec<(&str, bool)> = vec![];
    let mut after_dashdash = false;
    for a in args {
        if !after_dashdash && a == "--" {
            after_dashdash = true;
            continue;
        }
        let is_flag = !after_dashdash && a.starts_with('-') && a.len() > 1;
        if is_flag {
            prev_short_flag = !a.starts_with("--") && a.len() == 2;
            prev_long_flag = a.starts_with("--") && !a.contains('=');
            if words.iter().any(|(_, value)| !value) {
                break;
            }
            continue;
        }
        if prev_short_flag && words.is_empty() {
            prev_short_flag = false;
            continue;
        }
        words.push((a.as_str(), prev_long_flag));
        prev_long_flag = false;
        prev_short_flag = false;
        if words.iter().filter(|(_, value)| !value).count() >= sub.len() {
            break;
        }
    }
    (0..words.len()).any(|start| {
        words[..start].iter().all(|(_, value)| *value)
            && words.len() >= start + sub.len()
            && words[start..start + sub.len()]
                .iter()
                .zip(sub)
                .all(|((a, _), b)| *a == b.as_ref())
    })
}

/// Last `/`-separated component of `path`.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The program a command path names: its last component, without a
/// Windows `.exe` (Git Bash runs `git.exe` for `git` and `git` for
/// `git.exe`: `git.exe reset --hard` is `git reset --hard`).
pub(crate) fn program_name(path: &str) -> &str {
    let b = basename(path);
    match b.len().checked_sub(4) {
        Some(k) if k > 0 && b.is_char_boundary(k) && b[k..].eq_ignore_ascii_case(".exe") => &b[..k],
        _ => b,
    }
}

/// Split arguments into (deduplicated) flags and the indexes of operands.
///
/// `find` is read the way it reads itself: its options are whole words
/// (`-delete`, `-name`), and what a `-exec … ;` runs is the executed
/// command's, not `find`'s (that command is reported on its own).
/// Which operands (positions in `operand_at`, the argument index of each
/// operand) of a `sed` command are scripts: the word after each `-e`/`-f` (or
/// `--expression`/`--file`), else the first operand when no script was given
/// by option. In a cluster, `i` takes the rest as its suffix (`-ie` is
/// in-place with suffix `e`); `e`/`f` take the rest, or the next word when
/// they end the cluster.
fn sed_scripts(args: &[String], operand_at: &[usize]) -> Vec<usize> {
    let mut words = vec![];
    let mut by_option = false;
    for (k, a) in args.iter().enumerate() {
        if a == "--" {
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or_default();
            if matches!(name, "expression" | "file") {
                by_option = true;
                if !long.contains('=') {
                    words.push(k + 1);
                }
            }
        } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            for (i, ch) in short.char_indices() {
                match ch {
                    'i' => break,
                    'e' | 'f' => {
                        by_option = true;
                        if i + 1 == short.len() {
                            words.push(k + 1);
                        }
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    if by_option {
        operand_at
            .iter()
            .enumerate()
            .filter(|(_, at)| words.contains(at))
            .map(|(i, _)| i)
            .collect()
    } else if operand_at.is_empty() {
        vec![]
    } else {
        vec![0]
    }
}

/// git's own options that take the next word as their value (`-C DIR`, `-c K=V`).
const GIT_OPTIONS_WITH_VALUE: &[&str] = &[
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--exec-path",
    "--config-env",
];

/// git's subcommand: the first word that is not an option of git itself
/// or its value (`git -C dir -c k=v --no-pager reset` is `reset`).
fn git_subcommand(args: &[String]) -> Option<&str> {
    let values = git_option_values(args);
    args.iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with('-') && !values.contains(i))
        .map(|(_, a)| a.as_str())
}

/// The positions of the values of git's own options before its subcommand
/// (`web` in `git -C web clean -fdx build/`): values, not operands, so the
/// subcommand is git's first operand however git is pointed at a repository.
fn git_option_values(args: &[String]) -> Vec<usize> {
    let mut values = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            a if GIT_OPTIONS_WITH_VALUE.contains(&a) => {
                values.push(i + 1);
                i += 2;
            }
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    values
}

/// Write out each long option the program accepts abbreviated (`curl
/// --upload-fi F` is `curl --upload-file F`, `rm --rec` is `rm --recursive`;
/// see [`long_options`]), in the arguments and their values, so every rule
/// and table judges the option the program runs with. Words after `--` are
/// operands. Only a word starting with `--` is looked up.
fn spell_out_long_options(program: &str, args: &mut [String], values: &mut [Value]) {
    if !args.iter().any(|a| a.len() > 3 && a.starts_with("--")) {
        return;
    }
    let sub = if program.eq_ignore_ascii_case("git") {
        git_subcommand(args).map(str::to_string)
    } else {
        None
    };
    for (i, a) in args.iter_mut().enumerate() {
        if a == "--" {
            break;
        }
        let Some(spelled) = long_options::written_out(program, sub.as_deref(), a) else {
            continue;
        };
        let name_len = a.split('=').next().unwrap_or_default().len();
        let was = a[..name_len].to_string();
        let now = spelled[..spelled.len() - (a.len() - name_len)].to_string();
        *a = spelled;
        if let Some(v) = values.get_mut(i) {
            for sym in &mut v.0 {
                if let Some(Piece::Text(t)) = sym.0.first_mut() {
                    if let Some(rest) = t.strip_prefix(&was) {
                        *t = format!("{now}{rest}");
                    }
                }
            }
        }
    }
}

/// The short options of `program` that take a value, where a cluster's rest
/// is that value (getopt's rule): netcat's family, whose proxy options
/// (`-Xconnect`, `-xproxy:8080`) would otherwise spell `-e` and `-c`.
fn short_valued(program: &str) -> &'static str {
    let base = program.rsplit('/').next().unwrap_or(program);
    match base {
        "nc" | "netcat" | "ncat" | "nc.openbsd" | "nc.traditional" => "IiMmOPpsTVwXxeqgGoc",
        _ => "",
    }
}

fn split_flags(program: &str, args: &[String]) -> (Vec<String>, Vec<usize>) {
    let mut flags = Vec::new();
    let mut seen = HashSet::new();
    let mut operands = Vec::new();
    let mut after_dd = false;
    let mut add = |f: String, flags: &mut Vec<String>| {
        if seen.insert(f.clone()) {
            flags.push(f);
        }
    };
    if program_is(program, "find") {
        // `find [-H|-L|-P|-D x|-Ox]… [starting-point…] [expression]`: the
        // operands are the starting points; the flags, the primaries.
        let mut i = 0;
        while let Some(a) = args.get(i) {
            match a.as_str() {
                "-H" | "-L" | "-P" => i += 1,
                "-D" => i += 2,
                o if o.starts_with("-O") => i += 1,
                _ => break,
            }
        }
        while let Some(a) = args.get(i) {
            if a.starts_with('-') || matches!(a.as_str(), "(" | "!" | ")" | ",") {
                break;
            }
            operands.push(i);
            i += 1;
        }
        while let Some(a) = args.get(i) {
            if wrappers::FIND_EXEC.contains(&a.as_str()) {
                add(a.clone(), &mut flags);
                i = wrappers::find_exec_end(args, i + 1) + 1;
                continue;
            }
            if a.len() > 1 && a.starts_with('-') {
                add(a.clone(), &mut flags);
            }
            i += 1;
        }
        return (flags, operands);
    }
    let (sub, option_values) = if program.eq_ignore_ascii_case("git") {
        (git_subcommand(args), git_option_values(args))
    } else {
        (None, vec![])
    };
    for (i, a) in args.iter().enumerate() {
        if option_values.contains(&i) {
            continue;
        }
        if after_dd {
            operands.push(i);
        } else if a == "--" {
            after_dd = true;
        } else if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or_default();
            // An abbreviation the program accepts is the option it stands for.
            let name = long_options::full_name(program, sub, name).unwrap_or(name);
            add(format!("--{name}"), &mut flags);
        } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            // Letters are flags; from the first other character on it is a
            // value (`-j"$(nproc)"`, `-I/usr/include`), and so is what follows
            // an option known to take one (`nc -Xconnect`).
            let valued = short_valued(program);
            for ch in short.chars().take_while(char::is_ascii_alphanumeric) {
                add(format!("-{ch}"), &mut flags);
                if valued.contains(ch) {
                    break;
                }
            }
        } else {
            operands.push(i);
        }
    }
    (flags, operands)
}

#[cfg(test)]
mod sed_tests {
    use super::*;

    fn scripts(cmd: &str) -> Vec<String> {
        let args: Vec<String> = cmd.split(' ').map(String::from).collect();
        let (_, at) = split_flags("sed", &args);
        sed_scripts(&args, &at)
            .into_iter()
            .map(|i| args[at[i]].clone())
            .collect()
    }

    #[test]
    fn sed_scripts_are_not_targets() {
        assert_eq!(scripts("-i /^DEBUG/d config.py"), ["/^DEBUG/d"]);
        assert_eq!(scripts("-i.bak s/a/b/ f g"), ["s/a/b/"]);
        assert_eq!(scripts("-i -e /x/d -e /y/d f"), ["/x/d", "/y/d"]);
        assert_eq!(scripts("-ne /x/p f"), ["/x/p"]);
        // `-ie`: in place with the suffix `e`; the script is the first operand.
        assert_eq!(scripts("-ie /x/d f"), ["/x/d"]);
        // Options after the file: the file is still a target.
        assert_eq!(scripts("-i /home/u/.bashrc -e s/a/b/"), ["s/a/b/"]);
        assert_eq!(
            scripts("-i --expression=/x/d /etc/hosts"),
            Vec::<String>::new()
        );
        assert_eq!(scripts("-i -f script.sed /etc/hosts"), ["script.sed"]);
    }
}

#[cfg(test)]
mod git_option_tests {
    use super::*;

    fn operands(cmd: &str) -> Vec<String> {
        let args: Vec<String> = cmd.split(' ').map(String::from).collect();
        let (_, at) = split_flags("git", &args);
        at.into_iter().map(|i| args[i].clone()).collect()
    }

    #[test]
    fn values_of_gits_own_options_are_not_operands() {
        assert_eq!(operands("-C web clean -fdx build/"), ["clean", "build/"]);
        assert_eq!(operands("-c core.pager=cat --git-dir .git log -1"), ["log"]);
        // After the subcommand, the same words are the subcommand's.
        assert_eq!(operands("commit -C HEAD~1 -c x"), ["commit", "HEAD~1", "x"]);
        assert_eq!(operands("-C"), Vec::<String>::new());
    }
}
