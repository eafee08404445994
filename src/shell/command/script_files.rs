//! Shell code run from disk by name, read from disk.
//!
//! `bash scripts/clean.sh`, `sh x.sh`, `. ./env.sh`, `./deploy.sh`, the
//! start-up file of `BASH_ENV=FILE bash …` / `ENV=FILE sh -i`, `make TARGET`
//! (its recipes: [`make`]) and `npm run X` / `yarn X` / `pnpm X` (the
//! package's scripts: [`package`]) run text that is not on the command line
//! but is on disk before the command runs: the agent may have written it a
//! moment before with a file tool, whose write was harmless by itself, or a
//! cloned repository brought it. So the text is read here and judged as the
//! commands it runs, as if given with `bash -c TEXT SCRIPT ARGS…` (its `$0`
//! and arguments as the command line gives them; an argument the line does
//! not know stays unknown).
//!
//! **Certain and uncertain.** A script's command is *certain* when the script
//! runs it whichever way it goes, exactly as written: at the top level of the
//! script (no branch, loop body, `&&`/`||`, function definition or trap holds
//! it) and with every value known and single (no variable the environment,
//! the input, a command's output or one branch of several decides). Certain
//! commands are judged like the line's own. Every other command is marked
//! [`SimpleCommand::uncertain`]: the script *may* run it. The evaluator judges
//! what only uncertain commands earn one step down (`eval`): a deny asks, an
//! ask is left out. So `rm -rf ~` at the top of a script is denied, the same
//! line in an `if` asks, and the `rm -rf "$BUILD_DIR"` of every build script
//! (which asks on a command line, where the agent chose the variable) is left
//! to the script.
//!
//! **Unknown code.** A script that cannot be read as a whole before it runs
//! is code nobody can see, and the command that runs it is marked
//! [`Code::Dynamic`] (the pack asks): a FIFO or a device where the script
//! should be, a script over [`MAX_SCRIPT_BYTES`], one that does not parse, one
//! past the [`MAX_SCRIPTS`]-th or [`MAX_NESTING`] deep, and every script once
//! the budget is spent. The budget is for all the scripts of one command
//! line: [`BUDGET_TIME`] of time and [`BUDGET_HELD`] / [`BUDGET_SPENT`] of
//! memory on top of the command's own analysis; past it, the answer is an ask
//! on time, never a late one. A script that is not there, a directory or a
//! file nobody may read runs nothing (the shell refuses it), and adds nothing.
//!
//! Installed software's scripts (`/usr`, `/etc`, `/opt`, package caches) are
//! not read ([`INSTALLED`]): they are programs the system provides, judged by
//! their names. A file run by path (`./x`) is read only when its first line
//! names a POSIX shell (`#!/bin/sh`, `#!/usr/bin/env bash`, …) or it has none
//! (the calling shell then runs it itself); another interpreter's script or
//! a binary is a program like any other.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{Code, SimpleCommand};

mod make;
mod package;
use crate::shell::budget::{self, Limits};
use crate::shell::value::{Piece, Value};

/// Bytes read of one script; a longer one is unknown code.
pub const MAX_SCRIPT_BYTES: u64 = 64 * 1024;
/// Bytes read first, to tell a shell script from a program.
const HEAD_BYTES: u64 = 512;
/// Scripts read per command line; more are unknown code.
pub const MAX_SCRIPTS: usize = 8;
/// Scripts run by scripts, followed this deep; deeper ones are unknown code.
pub const MAX_NESTING: usize = 3;
/// Time the analysis of one command line's scripts may take (a debug build
/// of hookrules analyses about ten times slower, and gets ten times more).
pub const BUDGET_TIME: Duration = if cfg!(debug_assertions) {
    Duration::from_millis(500)
} else {
    Duration::from_millis(50)
};
/// Memory it may hold at once, beyond the command's own analysis.
pub const BUDGET_HELD: usize = 32 << 20;
/// Memory it may allocate in all: the work, counted the same on every
/// machine (the time is the bound of last resort on a slow or loaded one).
pub const BUDGET_SPENT: usize = 64 << 20;

/// Shells whose script operand is a file they run.
const SHELLS: &[&str] = &["bash", "sh", "dash", "zsh", "ksh", "mksh", "ash"];

/// Add, after each command of `cmds` that runs a shell script from disk,
/// the commands the script runs (their `via` names the script; see the
/// module's documentation for which are [`SimpleCommand::uncertain`]). A
/// script that cannot be read whole marks its command [`Code::Dynamic`].
/// `cwd` is the event's directory.
pub fn add_script_code(cmds: &mut Vec<SimpleCommand>, cwd: &str) {
    if !cwd.starts_with('/') || !cmds.iter().any(may_run_script) {
        return;
    }
    let _budget = budget::scope_within(Limits {
        held: BUDGET_HELD,
        spent: BUDGET_SPENT,
        deadline: Instant::now().checked_add(BUDGET_TIME),
    });
    let mut reader = Reader::default();
    *cmds = reader.expand(std::mem::take(cmds), cwd);
}

/// The scripts read for one command line.
#[derive(Default)]
struct Reader {
    /// How many.
    read: usize,
    /// The scripts being read, outermost first.
    stack: Vec<PathBuf>,
}

impl Reader {
    fn expand(&mut self, cmds: Vec<SimpleCommand>, cwd: &str) -> Vec<SimpleCommand> {
        let mut out = Vec::with_capacity(cmds.len());
        for mut c in cmds {
            let extra = if may_run_script(&c) {
                match self.script_commands(&c, cwd) {
                    Script::Runs(paths, found) => {
                        let depth = self.stack.len();
                        self.stack.extend(paths);
                        let found = self.expand(found, cwd);
                        self.stack.truncate(depth);
                        found
                    }
                    Script::Nothing => Vec::new(),
                    Script::Unknown => {
                        c.code = Some(Code::Dynamic);
                        Vec::new()
                    }
                }
            } else {
                Vec::new()
            };
            out.push(c);
            out.extend(extra);
        }
        out
    }
}

/// What a command that may run a script runs.
enum Script {
    /// The files at these paths run these commands (marked as theirs).
    Runs(Vec<PathBuf>, Vec<SimpleCommand>),
    /// No script of the project: not there, a directory, unreadable,
    /// installed software, another interpreter's or a binary.
    Nothing,
    /// A script whose text cannot be known whole before it runs.
    Unknown,
}

/// Could the command run a script file: a shell given a file, `source`/`.`,
/// a program named by a path, a start-up file named by `BASH_ENV`/`ENV`, or
/// `make` and the package managers' script runners?
fn may_run_script(c: &SimpleCommand) -> bool {
    !c.program_unknown
        && (c.code == Some(Code::File)
            || matches!(c.program.as_str(), "source" | ".")
            || (c.program_path.contains('/') && c.code.is_none())
            || make::runs_make(c)
            || package::runs_scripts(c))
}

/// What a command runs from disk, in the order it runs it.
enum Source<'c> {
    /// A shell script (its name as written, its arguments, and whether it is
    /// run by its path).
    Shell(String, &'c [Value], bool),
    /// `make`'s recipes.
    Make,
    /// A package's scripts (`npm run X`).
    Package,
}

/// The start-up file a shell reads first (`BASH_ENV=FILE bash …`, `ENV=FILE
/// sh -i`), when the command names it literally.
fn startup_file(c: &SimpleCommand) -> Option<String> {
    if c.code != Some(Code::File) {
        return None;
    }
    let var = match c.program.as_str() {
        "bash" => "BASH_ENV",
        "sh" | "dash" | "ash" | "ksh" | "mksh" | "posh" => "ENV",
        _ => return None,
    };
    let (_, file) = c.assignments.iter().rev().find(|(k, _)| k == var)?;
    (!file.is_empty() && !file.contains(['$', '`', '<', '>', '(', '\\'])).then(|| file.clone())
}

/// The sources of the code `c` runs: a start-up file, then the script the
/// operand after a shell's options names, `source`'s first operand, or the
/// program itself; or `make`'s recipes, or a package's scripts.
fn sources<'c>(c: &'c SimpleCommand, cwd: &str) -> Vec<Source<'c>> {
    let mut out = Vec::new();
    if let Some(file) = startup_file(c) {
        out.push(Source::Shell(file, &[], false));
    }
    if make::runs_make(c) {
        out.push(Source::Make);
    } else if package::runs_scripts(c) {
        out.push(Source::Package);
    } else if c.program_path.contains('/')
        && c.code.is_none()
        && !SHELLS.contains(&c.program.as_str())
    {
        // `./deploy.sh a b`: the program's own path; read only for a shell's
        // first line.
        out.push(Source::Shell(
            c.program_path.clone(),
            c.operand_values.as_slice(),
            true,
        ));
    } else if c.code == Some(Code::File) || matches!(c.program.as_str(), "source" | ".") {
        if let Some((script, args)) = c.operand_values.split_first() {
            if let Some(name) = script.known_from(cwd) {
                out.push(Source::Shell(name, args, false));
            }
        }
    }
    out
}

impl Reader {
    /// The commands of the code `c` runs from disk. A script that runs
    /// itself, or one that runs it, is read once: the second time runs the
    /// same commands.
    fn script_commands(&mut self, c: &SimpleCommand, cwd: &str) -> Script {
        let Some(dir) = folder(&c.cwd, cwd) else {
            return Script::Nothing;
        };
        let dir = PathBuf::from(dir);
        let mut paths = Vec::new();
        let mut found = Vec::new();
        for source in sources(c, cwd) {
            let (path, line) = match source {
                Source::Shell(name, args, by_path) => {
                    let path = dir.join(&name);
                    if installed(&path) || self.stack.contains(&path) {
                        continue;
                    }
                    let text = match read_script(&path, by_path) {
                        Ok(Some(text)) => text,
                        Ok(None) => continue,
                        Err(()) => return Script::Unknown,
                    };
                    let mut line = format!(
                        "bash -c {} {}",
                        crate::shell::quote(&text),
                        crate::shell::quote(&name)
                    );
                    for a in args {
                        line.push(' ');
                        line.push_str(&spelled(a, cwd));
                    }
                    (path, line)
                }
                Source::Make => match make::recipes(c, &dir) {
                    Found::Text(path, text) => {
                        let line = format!("sh -c {} make", crate::shell::quote(&text));
                        (path, line)
                    }
                    Found::Nothing => continue,
                    Found::Unknown => return Script::Unknown,
                },
                Source::Package => match package::scripts(c, &dir) {
                    Found::Text(path, text) => {
                        let line = format!("sh -c {} npm", crate::shell::quote(&text));
                        (path, line)
                    }
                    Found::Nothing => continue,
                    Found::Unknown => return Script::Unknown,
                },
            };
            if self.stack.contains(&path) {
                continue;
            }
            let Some(cmds) = self.run(c, &path, &line) else {
                return Script::Unknown;
            };
            paths.push(path);
            found.extend(cmds);
        }
        if paths.is_empty() {
            Script::Nothing
        } else {
            Script::Runs(paths, found)
        }
    }

    /// The commands of `line` (`bash -c TEXT NAME ARGS…`), the code read from
    /// `path`, marked as its; `None` past the bounds or when it does not parse.
    fn run(&mut self, c: &SimpleCommand, path: &Path, line: &str) -> Option<Vec<SimpleCommand>> {
        self.read += 1;
        if self.read > MAX_SCRIPTS || self.stack.len() >= MAX_NESTING || budget::check().is_err() {
            return None;
        }
        let found = super::parse(line).ok()?;
        let label = format!("{} (script file)", path.to_string_lossy());
        Some(
            found
                .into_iter()
                .filter(|f| !f.via.is_empty())
                .map(|mut f| {
                    f.uncertain |= c.uncertain || !certain(&f);
                    f.offset = c.offset;
                    f.via.insert(0, label.clone());
                    f.via.splice(1..1, c.via.iter().cloned());
                    f
                })
                .collect(),
        )
    }
}

/// What `make` or a package manager would run.
enum Found {
    /// Shell text, read from the file at the path.
    Text(PathBuf, String),
    /// Nothing from a file of the project.
    Nothing,
    /// Code that cannot be known whole before it runs.
    Unknown,
}

/// The text of the script at `path`: `Ok(None)` when the shell would run
/// nothing from it (not there, a directory, unreadable, `/dev/null`, or run
/// by path and not a shell script), `Err` when its text cannot be known
/// whole (a FIFO, a device, a socket, longer than [`MAX_SCRIPT_BYTES`], or a
/// read that fails).
fn read_script(path: &Path, by_path: bool) -> Result<Option<String>, ()> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    // A program run by its path is a regular file (execve refuses anything
    // else); a shell reads whatever it is given.
    if meta.is_dir() || path == Path::new("/dev/null") || (by_path && !meta.is_file()) {
        return Ok(None);
    }
    if !meta.is_file() {
        return Err(());
    }
    let mut f = match crate::os::files::open_regular(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => return Ok(None),
        Err(_) => return Err(()),
    };
    let mut bytes = Vec::new();
    (&mut f)
        .take(HEAD_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|_| ())?;
    if by_path && !runs_in_a_shell(&bytes) {
        return Ok(None);
    }
    f.take(MAX_SCRIPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|_| ())?;
    if bytes.len() as u64 > MAX_SCRIPT_BYTES {
        return Err(());
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Folders of installed software: their scripts are programs the system
/// provides (`/usr/sbin/update-ca-certificates`), judged by their names like
/// any program, not by how they are written; the agent cannot plant one
/// there without a write the pack already judges.
const INSTALLED: &[&str] = &[
    "/usr/",
    "/bin/",
    "/sbin/",
    "/lib/",
    "/lib64/",
    "/etc/",
    "/opt/",
    "/snap/",
    "/nix/",
    "/System/",
    "/Library/",
    "/Applications/",
    "/var/lib/",
];

fn installed(path: &Path) -> bool {
    let p = path.to_string_lossy();
    INSTALLED.iter().any(|i| p.starts_with(i))
        || [".cargo/registry/", ".rustup/", "node_modules/"]
            .iter()
            .any(|i| p.contains(i))
}

/// Does the script certainly run the command, exactly as written: outside
/// every branch, loop, `&&`/`||`, function definition and trap, with its
/// program, operands, redirections and directory known and single?
fn certain(f: &SimpleCommand) -> bool {
    let single = |v: &Value| v.0.len() == 1 && !v.has_unknown();
    !f.guarded
        && !f.via.iter().any(|v| v == "trap")
        && !f.program_unknown
        && !f.operands_from_input
        && f.values.iter().all(single)
        && f.redirects.iter().all(|r| single(&r.value))
        && single(&f.cwd)
}

/// Does a file run by path go to a POSIX shell: its first line names one, or
/// it has none and is text (the calling shell runs it)?
fn runs_in_a_shell(head: &[u8]) -> bool {
    let Some(interp) = head.strip_prefix(b"#!") else {
        return !head.contains(&0);
    };
    let first = String::from_utf8_lossy(interp);
    let first = first.lines().next().unwrap_or("");
    let mut words = first.split_whitespace();
    let mut prog = words.next().unwrap_or("").rsplit('/').next().unwrap_or("");
    if prog == "env" {
        prog = words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .unwrap_or("");
    }
    SHELLS.contains(&prog)
}

/// An argument as the script's command line spells it: its text, the home
/// folder, the project and the temp root as the variables that name them; a
/// value with several alternatives or a part nobody knows is unknown.
fn spelled(v: &Value, cwd: &str) -> String {
    const UNKNOWN: &str = "\"$HOOKRULES_UNKNOWN_ARGUMENT\"";
    let [s] = v.0.as_slice() else {
        return UNKNOWN.into();
    };
    let mut out = String::new();
    for p in &s.0 {
        match p {
            Piece::Text(t) => out.push_str(&crate::shell::quote(t)),
            Piece::Start => out.push_str(&crate::shell::quote(cwd)),
            Piece::Home => out.push_str("\"$HOME\""),
            Piece::Project => out.push_str("\"$CLAUDE_PROJECT_DIR\""),
            Piece::TempRoot => out.push_str("\"$TMPDIR\""),
            _ => return UNKNOWN.into(),
        }
    }
    if out.is_empty() {
        out.push_str("''");
    }
    out
}

/// A directory value as an absolute path, when known.
pub(super) fn folder(v: &Value, cwd: &str) -> Option<String> {
    v.known_from(cwd).filter(|d| d.starts_with('/'))
}
