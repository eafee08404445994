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
//! * Nothing is expanded — variables, `~`, globs and substitutions stay
//!   text — except brace expansion of unquoted words (`{rm,-rf,/}`,
//!   `~/.ssh/{id_rsa,config}`, `{a..c}`; at most 32 words per word), because
//!   it can build program names and paths; and word splitting on an
//!   unquoted `$IFS`/`${IFS}` (`rm${IFS}-rf${IFS}/` is `rm -rf /`).
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

mod extract;
mod syntax;
mod wrappers;

use std::collections::HashSet;
use std::fmt;

pub use syntax::MAX_DEPTH;
pub use wrappers::MAX_WRAPPERS;

/// Parse `script` and return every simple command it would run, in
/// source/execution order (command substitutions before the command that
/// uses them; a wrapper before the command it wraps).
///
/// Returns `Ok(vec![])` for an empty script or one with only comments.
///
/// # Errors
/// [`ParseError`] (with the byte offset) for any syntax error — unterminated
/// quote, substitution or here-document, missing `fi`/`done`/`esac`, a stray
/// operator — including inside re-parsed strings (`bash -c`, `eval`), and
/// for nesting beyond [`MAX_DEPTH`] or [`MAX_WRAPPERS`].
pub fn parse(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    extract::extract(script)
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
}

impl SimpleCommand {
    pub(crate) fn build(
        program_path: String,
        args: Vec<String>,
        redirects: Vec<Redirect>,
        assignments: Vec<(String, String)>,
        via: Vec<String>,
        offset: usize,
    ) -> Self {
        let (flags, operands) = split_flags(&args);
        SimpleCommand {
            program: basename(&program_path).to_string(),
            program_path,
            args,
            flags,
            operands,
            redirects,
            assignments,
            via,
            offset,
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
}

/// Why a script could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Human-readable description.
    pub message: String,
    /// Byte offset in the top-level script where the problem was found.
    pub offset: usize,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

pub(crate) fn perr(message: impl Into<String>, offset: usize) -> ParseError {
    ParseError {
        message: message.into(),
        offset,
    }
}

/// Does a program name match an item (exact, or a prefix ending in `*`)?
pub fn program_is(program: &str, item: &str) -> bool {
    match item.strip_suffix('*') {
        Some(prefix) => program.starts_with(prefix),
        None => program == item,
    }
}

/// Last `/`-separated component of `path`.
pub(crate) fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Split arguments into (deduplicated) flags and operands.
fn split_flags(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut flags = Vec::new();
    let mut seen = HashSet::new();
    let mut operands = Vec::new();
    let mut after_dd = false;
    let mut add = |f: String, flags: &mut Vec<String>| {
        if seen.insert(f.clone()) {
            flags.push(f);
        }
    };
    for a in args {
        if after_dd {
            operands.push(a.clone());
        } else if a == "--" {
            after_dd = true;
        } else if let Some(long) = a.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or_default();
            add(format!("--{name}"), &mut flags);
        } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
            for ch in short.chars() {
                add(format!("-{ch}"), &mut flags);
            }
        } else {
            operands.push(a.clone());
        }
    }
    (flags, operands)
}
