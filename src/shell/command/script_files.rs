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
//! file nobody may read runs nothing (the shell refuses it), and adds nothing,
//! except a script missing from a folder any process writes into (`/tmp`):
//! something outside the line may put it there before it runs, unread
//! (`bash < /tmp/setup.sh`, `. /tmp/env.sh`), so it is unknown code.
//!
//! **Interpreters' script files.** `python3 tools/clean.py`, `node build.js`,
//! `perl x.pl`, `ruby x.rb`, `php x.php` (and `./x.py` whose first line names
//! one of them) run a file in a language the analysis reads inline: the file's
//! text is judged exactly as the same text given with `-c`/`-e`/`-r`
//! (`python3 -c TEXT`), certain and uncertain as above (a delete whose path
//! the script computes is uncertain).
//!
//! **Code that runs other code of the same file.** A package script that runs
//! `npm run prep` reads `package.json` again for `prep`; what is read once per
//! command line is an entry of a file ([`Origin`]: a script, make's goals), so
//! only the same entry again (a loop) is skipped.
//!
//! Installed software's scripts (`/usr`, `/etc`, `/opt`, package caches) are
//! not read ([`INSTALLED`]): they are programs the system provides, judged by
//! their names. A file run by path (`./x`) is read only when its first line
//! names a POSIX shell (`#!/bin/sh`, `#!/usr/bin/env bash`, …) or it has none
//! (the calling shell then runs it itself), or names an interpreter whose code
//! the analysis reads; any other program or a binary is a program like any
//! other.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::inline::Lang as InlineLang;
use super::places::Lang;
use super::wrappers::{code_flags, interpreter_lang, interpreter_program, interpreter_script};
use super::{Code, SimpleCommand};

mod make;
mod package;
mod project;
use crate::shell::budget::{self, Limits};
use crate::shell::place;
use crate::shell::value::{Piece, Value};
pub(crate) use project::absent_path;

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
    // A link the line makes holds what it leads to, on disk: read there.
    let _written = WrittenScope::enter(&written_files(cmds, cwd, false));
    let script_sets = package::script_sets(cmds, cwd);
    let written = written_files(cmds, cwd, true);
    // What the line writes besides the scripts `npm pkg set` sets, whose
    // text is known (`npm pkg set scripts.clean='rm -rf dist' && npm run
    // clean` runs `rm -rf dist`).
    let written_unknown = if script_sets.is_empty() {
        written.clone()
    } else {
        let others: Vec<SimpleCommand> = cmds
            .iter()
            .filter(|c| !package::sets_scripts(c))
            .cloned()
            .collect();
        written_files(&others, cwd, true)
    };
    let mut reader = Reader {
        written,
        written_unknown,
        script_sets,
        fetched: fetched_folders(cmds, cwd),
        start: PathBuf::from(cwd),
        ..Reader::default()
    };
    *cmds = reader.expand(std::mem::take(cmds), cwd);
}

/// The files the command line writes (`> f`, `>> f`, `tee f`, the target of
/// `cp`/`mv`, and of `ln` with `links`), as absolute paths: a runner's file
/// among them holds text only the run knows when the runner reads it.
pub(super) fn written_files(cmds: &[SimpleCommand], cwd: &str, links: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for c in cmds {
        let Some(dir) = folder(&c.cwd, cwd) else {
            continue;
        };
        let dir = Path::new(&dir);
        let targets = c
            .redirects
            .iter()
            .filter(|r| !matches!(r.op, super::RedirectOp::Read))
            .map(|r| &r.value);
        let operands: Vec<&Value> = match c.program.as_str() {
            "tee" => c.operand_values.iter().collect(),
            "cp" | "mv" | "install" => c.operand_values.last().into_iter().collect(),
            "ln" if links => c.operand_values.last().into_iter().collect(),
            // A download's output file (`curl -o F`, `wget -O F`).
            "curl" | "wget" => c
                .args
                .iter()
                .zip(c.values.iter().skip(1))
                .filter(|(a, _)| {
                    matches!(a.as_str(), "-o" | "--output" | "-O" | "--output-document")
                        && !(c.program == "curl" && a.as_str() == "-O")
                })
                .map(|(_, v)| v)
                .collect(),
            // An edit in place (`sed -i … package.json`): what it leaves only
            // the run knows.
            _ if super::writes::in_place(c) => c.target_operands().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        // `npm pkg set|delete` rewrites the package's package.json.
        let pkg = matches!(c.program.as_str(), "npm" | "pnpm")
            && c.operands.first().is_some_and(|o| o == "pkg")
            && c.operands
                .get(1)
                .is_some_and(|o| matches!(o.as_str(), "set" | "delete" | "fix"));
        if pkg {
            out.push(dir.join("package.json"));
        }
        for v in targets.chain(operands) {
            if let Some(p) = v.known_from(&dir.to_string_lossy()) {
                out.push(dir.join(p));
            }
        }
    }
    out
}

/// The folders the command line fills with files it fetches or unpacks
/// (`git clone URL [DIR]`, `gh repo clone`, `hg clone`, `tar -x -C DIR`,
/// `unzip -d DIR`), as absolute paths: code a runner reads there is the
/// download's, which only the run knows. An archive unpacked where the
/// command runs fills the folders below it (its top folder: `tar xz && cd
/// tool-1.2 && make`); the folder itself keeps the project's own files
/// (`tar xzf data.tgz && python3 train.py`): `true` with such a folder.
fn fetched_folders(cmds: &[SimpleCommand], cwd: &str) -> Vec<(PathBuf, bool)> {
    /// git clone's and hg clone's options that take a value.
    const CLONE_VALUED: &[&str] = &[
        "-b",
        "--branch",
        "-o",
        "--origin",
        "-c",
        "--config",
        "--depth",
        "--reference",
        "--reference-if-able",
        "-u",
        "--upload-pack",
        "--template",
        "--separate-git-dir",
        "-j",
        "--jobs",
        "--filter",
        "--shallow-since",
        "--shallow-exclude",
        "--bundle-uri",
        "-r",
        "--rev",
        "-U",
        "--updaterev",
        "-e",
        "--ssh",
    ];
    let mut out = Vec::new();
    for c in cmds {
        let Some(dir) = folder(&c.cwd, cwd) else {
            continue;
        };
        let base = Path::new(&dir);
        // Each argument as the shell hands it over, when known.
        let words: Vec<Option<String>> = c.values.iter().map(|v| v.known_from(&dir)).collect();
        let word = |k: usize| words.get(k).cloned().flatten();
        let sub_words: &[&str] = match c.program.as_str() {
            "git" | "hg" | "svn" => &["clone", "checkout", "co"],
            "gh" => &["repo"],
            _ => &[],
        };
        let mut into: Option<(PathBuf, bool)> = None;
        if !sub_words.is_empty() {
            let Some(at) = c.args.iter().position(|a| sub_words.contains(&a.as_str())) else {
                continue;
            };
            if c.program == "git" && c.args[at] != "clone" {
                continue;
            }
            let from = if c.program == "gh" {
                // `gh repo clone REPO [DIR]`
                if c.args.get(at + 1).map(String::as_str) != Some("clone") {
                    continue;
                }
                at + 2
            } else {
                at + 1
            };
            let mut operands = Vec::new();
            let mut k = from;
            while k < c.args.len() {
                let a = &c.args[k];
                if a == "--" {
                    operands.extend((k + 1..c.args.len()).map(&word));
                    break;
                }
                if CLONE_VALUED.contains(&a.as_str()) {
                    k += 2;
                    continue;
                }
                if !a.starts_with('-') {
                    operands.push(word(k));
                }
                k += 1;
            }
            let dest = match (operands.first(), operands.get(1)) {
                (_, Some(Some(d))) => d.clone(),
                (Some(Some(url)), None) => {
                    let name = url
                        .trim_end_matches('/')
                        .rsplit(['/', ':'])
                        .next()
                        .unwrap_or("");
                    name.strip_suffix(".git").unwrap_or(name).to_string()
                }
                // A folder nobody knows: the command's own, and below.
                _ => String::new(),
            };
            into = Some((base.join(dest), false));
        } else if matches!(
            c.program.as_str(),
            "tar" | "gtar" | "bsdtar" | "unzip" | "7z" | "7za"
        ) {
            let extracts = match c.program.as_str() {
                "unzip" => true,
                "7z" | "7za" => c.args.first().is_some_and(|a| a == "x" || a == "e"),
                _ => c.args.iter().any(|a| {
                    a == "--extract"
                        || a == "--get"
                        || (!a.starts_with("--")
                            && a.trim_start_matches('-')
                                .starts_with(|ch: char| ch.is_ascii_alphabetic())
                            && a.trim_start_matches('-').contains('x')
                            && (a.starts_with('-') || c.args.first() == Some(a)))
                }),
            };
            if !extracts {
                continue;
            }
            let named = c
                .args
                .iter()
                .position(|a| matches!(a.as_str(), "-C" | "--directory" | "-d"));
            let dest = match named {
                Some(k) => word(k + 1).unwrap_or_default(),
                None => c
                    .args
                    .iter()
                    .zip(0..)
                    .find_map(|(a, k)| a.strip_prefix("--directory=").map(|_| k))
                    .and_then(|k| word(k).map(|w| w["--directory=".len()..].to_string()))
                    .unwrap_or_default(),
            };
            let here = dest.is_empty() || dest == ".";
            into = Some((base.join(dest), here));
        }
        if let Some(p) = into {
            out.push(p);
        }
    }
    out
}

/// The scripts read for one command line.
#[derive(Default)]
struct Reader {
    /// How many.
    read: usize,
    /// The code being read, outermost first.
    stack: Vec<Origin>,
    /// The files the command line writes ([`written_files`]).
    written: Vec<PathBuf>,
    /// The same, but for the scripts `npm pkg set` sets ([`script_sets`]).
    written_unknown: Vec<PathBuf>,
    /// The scripts `npm pkg set scripts.NAME=TEXT` sets: the package.json,
    /// the name, the text.
    script_sets: Vec<(PathBuf, String, String)>,
    /// The folders it fetches or unpacks files into ([`fetched_folders`]),
    /// each with whether only the folders below it are the download's.
    fetched: Vec<(PathBuf, bool)>,
    /// The folder the session works in (the event's directory).
    start: PathBuf,
}

impl Reader {
    /// Does the line write a file named one of `names` (`*.END`: an ending)
    /// in `dir`, a folder above it or one below it (the files a runner walks,
    /// `BUILD`, `*.bzl`)?
    fn writes_walked(&self, dir: &Path, names: &[&str]) -> bool {
        self.written.iter().any(|w| {
            let named = w.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                names.iter().any(|x| match x.strip_prefix('*') {
                    Some(end) => n.ends_with(end),
                    None => n == *x,
                })
            });
            named
                && w.parent()
                    .is_some_and(|p| p.starts_with(dir) || dir.starts_with(p))
        })
    }

    /// Does the line write a file named one of `names` in `dir` or a folder
    /// above it (where the runner looks for its file)?
    fn writes_one_of(&self, dir: &Path, names: &[&str]) -> bool {
        self.written.iter().any(|w| {
            w.file_name()
                .is_some_and(|n| names.iter().any(|x| Path::new(x).file_name() == Some(n)))
                && w.parent().is_some_and(|p| dir.starts_with(p))
        })
    }
}

/// Where code was read: a file, and the entry of it that runs (a package's
/// script, make's goals; empty for a whole script). `npm run build` whose
/// script runs `npm run prep` reads the same file for another entry; the same
/// entry again is a loop, read once.
#[derive(Clone, PartialEq, Eq)]
struct Origin {
    path: PathBuf,
    entry: String,
}

impl Origin {
    fn file(path: PathBuf) -> Origin {
        Origin {
            path,
            entry: String::new(),
        }
    }
}

impl Reader {
    fn expand(&mut self, cmds: Vec<SimpleCommand>, cwd: &str) -> Vec<SimpleCommand> {
        let mut out = Vec::with_capacity(cmds.len());
        for mut c in cmds {
            let extra = if may_run_script(&c) {
                match self.script_commands(&c, cwd) {
                    Script::Runs(origins, found) => {
                        let depth = self.stack.len();
                        self.stack.extend(origins);
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
    /// The code read from these places runs these commands (marked as
    /// theirs).
    Runs(Vec<Origin>, Vec<SimpleCommand>),
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
            || package::runs_scripts(c)
            || project::runs_project_code(c)
            || (c.code.is_none() && interpreter_script(&c.program, &c.args).is_some()))
}

/// What a command runs from disk, in the order it runs it.
enum Source<'c> {
    /// A shell script (its name as written, its arguments, and whether it is
    /// run by its path: then its first line may name another interpreter).
    Shell(String, &'c [Value], bool),
    /// A script file given to an interpreter (`python3 tools/clean.py`): the
    /// language, the program, the file's name as written, its arguments.
    Interpreted(InlineLang, &'c str, String, &'c [Value]),
    /// `make`'s recipes.
    Make,
    /// A package's scripts (`npm run X`).
    Package,
    /// Code a project file holds for its runner (a `project_file` row of
    /// the code-places table), with the index of the first argument after
    /// the row's subcommand.
    Project(&'static super::places::ProjectFile, usize),
    /// A file of code in a tool's language, read on its standard input or
    /// named by an option (`psql db < drop.sql`, `psql -f drop.sql`): the
    /// language and the file's name as written.
    Code(super::places::Lang, String),
}

/// The language a file's name says its code is in (`x.py`, `x.ts`, `x.sh`).
pub(super) fn file_lang(name: &str) -> Option<Lang> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "sh" | "bash" => Lang::Sh,
        "py" | "pyw" => Lang::Inline(InlineLang::Python),
        "js" | "mjs" | "cjs" | "ts" | "mts" | "cts" | "jsx" | "tsx" => Lang::Inline(InlineLang::Js),
        "rb" => Lang::Inline(InlineLang::Ruby),
        "pl" | "pm" => Lang::Inline(InlineLang::Perl),
        "php" => Lang::Inline(InlineLang::Php),
        "lua" => Lang::Inline(InlineLang::Lua),
        "r" => Lang::Inline(InlineLang::R),
        "jl" => Lang::Inline(InlineLang::Julia),
        "awk" => Lang::Inline(InlineLang::Awk),
        "vim" => Lang::Inline(InlineLang::Vim),
        _ => return None,
    })
}

/// The start-up file a program reads first, named by a variable the command
/// sets literally: `BASH_ENV=FILE bash …`, `ENV=FILE sh -i`, zsh's
/// `$ZDOTDIR/.zshenv` (read by every zsh) and Python's `PYTHONSTARTUP`.
fn startup_file(c: &SimpleCommand) -> Option<Source<'static>> {
    if c.code != Some(Code::File) {
        return None;
    }
    let python = interpreter_lang(&c.program) == Some(InlineLang::Python);
    let var = match c.program.as_str() {
        "bash" => "BASH_ENV",
        "sh" | "dash" | "ash" | "ksh" | "mksh" | "posh" => "ENV",
        "zsh" => "ZDOTDIR",
        _ if python => "PYTHONSTARTUP",
        _ => return None,
    };
    let (_, file) = c.assignments.iter().rev().find(|(k, _)| k == var)?;
    if file.is_empty() || file.contains(['$', '`', '<', '>', '(', '\\']) {
        return None;
    }
    Some(match var {
        "ZDOTDIR" => Source::Shell(
            format!("{}/.zshenv", file.trim_end_matches('/')),
            &[],
            false,
        ),
        "PYTHONSTARTUP" => Source::Interpreted(InlineLang::Python, "python3", file.clone(), &[]),
        _ => Source::Shell(file.clone(), &[], false),
    })
}

/// The sources of the code `c` runs: a start-up file, then the script the
/// operand after a shell's options names, `source`'s first operand, or the
/// program itself; or `make`'s recipes, or a package's scripts.
fn sources<'c>(c: &'c SimpleCommand, cwd: &str) -> Vec<Source<'c>> {
    let mut out = Vec::new();
    if let Some(source) = startup_file(c) {
        out.push(source);
    }
    // Code read from files on standard input or named by an option.
    for (v, lang) in &c.code_files {
        let Some(name) = v.known_from(cwd) else {
            continue;
        };
        // A file named where any program may be (`uv run x.py`, `deno run
        // x.ts`): in the language its name says.
        let lang = match (lang, file_lang(&name)) {
            (Lang::File, Some(l)) => l,
            _ => *lang,
        };
        out.push(match lang {
            Lang::Sh | Lang::Bash => Source::Shell(name, &[], false),
            Lang::Inline(l) => {
                Source::Interpreted(l, interpreter_program(l).unwrap_or(&c.program), name, &[])
            }
            _ => Source::Code(lang, name),
        });
    }
    if project::runs_project_code(c) {
        out.extend(
            project::rows(c)
                .into_iter()
                .map(|(row, from)| Source::Project(row, from)),
        );
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
    } else if let Some((lang, at)) = interpreter_script(&c.program, &c.args)
        .filter(|_| c.code.is_none() && c.args.len() == c.values.len())
    {
        // The file is the operand at `at`; what follows is its arguments.
        let args = c.values.get(at + 1..).unwrap_or_default();
        if let Some(name) = c.values.get(at).and_then(|v| v.known_from(cwd)) {
            out.push(Source::Interpreted(lang, &c.program, name, args));
        }
    } else if (c.code == Some(Code::File) && c.code_files.is_empty())
        || matches!(c.program.as_str(), "source" | ".")
    {
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
        let sources = sources(c, cwd);
        // Code read in a folder the line fetches (`git clone URL && cd repo
        // && make`): the download's, which only the run knows. (git's own
        // hooks are not fetched: a clone does not bring them.)
        let fetched = self
            .fetched
            .iter()
            .any(|(f, below)| dir.starts_with(f) && !(*below && dir == *f));
        if fetched
            && sources.iter().any(|s| {
                !matches!(s, Source::Project(row, _) if row.format == super::places::Format::GitHooks)
            })
        {
            return Script::Unknown;
        }
        let mut origins = Vec::new();
        let mut found = Vec::new();
        for source in sources {
            let (origin, line) = match source {
                Source::Shell(name, args, by_path) => {
                    let path = dir.join(&name);
                    if installed(&path) || self.stack.contains(&Origin::file(path.clone())) {
                        continue;
                    }
                    if self.unread_shared(&path) {
                        return Script::Unknown;
                    }
                    let (text, runner) = match read_program(&path, by_path) {
                        Ok(Some(found)) => found,
                        Ok(None) => continue,
                        Err(()) => return Script::Unknown,
                    };
                    let line = match runner {
                        Runner::Shell if c.program == "zsh" || zsh_script(&text) => {
                            code_line("zsh -c", &text, &name, args, cwd)
                        }
                        Runner::Shell => code_line("bash -c", &text, &name, args, cwd),
                        Runner::Interpreter(lang, prog) => {
                            interpreted_line(lang, &prog, &text, &name, args, cwd)
                        }
                    };
                    (Origin::file(path), line)
                }
                Source::Interpreted(lang, prog, name, args) => {
                    let path = dir.join(&name);
                    if installed(&path) {
                        continue;
                    }
                    if self.written.contains(&path) || self.unread_shared(&path) {
                        // Written by the line itself: its text is the run's.
                        return Script::Unknown;
                    }
                    let text = match read_script(&path, false) {
                        Ok(Some(text)) => text,
                        Ok(None) => continue,
                        Err(()) => return Script::Unknown,
                    };
                    let line = interpreted_line(lang, prog, &text, &name, args, cwd);
                    (Origin::file(path), line)
                }
                Source::Code(lang, name) => {
                    let path = dir.join(&name);
                    if installed(&path) {
                        continue;
                    }
                    if self.written.contains(&path) || self.unread_shared(&path) {
                        return Script::Unknown;
                    }
                    let text = match read_script(&path, false) {
                        Ok(Some(text)) => text,
                        Ok(None) => continue,
                        Err(()) => return Script::Unknown,
                    };
                    (Origin::file(path), place_line(&c.program, lang, &text))
                }
                Source::Make => match make::recipes(c, &dir) {
                    Found::Text(origin, text) => {
                        let line = format!("sh -c {} make", crate::shell::quote(&text));
                        (origin, line)
                    }
                    Found::Nothing => continue,
                    Found::Unknown => return Script::Unknown,
                },
                Source::Project(row, from)
                    if self.writes_one_of(&dir, row.files)
                        || self.writes_walked(&dir, row.walk)
                        || project::named_file(c, row, from, &dir)
                            .is_some_and(|p| self.written.contains(&p))
                        || (row.format == super::places::Format::GitHooks
                            && self.written.iter().any(|w| {
                                w.file_name()
                                    .is_some_and(|n| row.run.iter().any(|h| n == *h))
                            })) =>
                {
                    return Script::Unknown
                }
                Source::Package
                    if package::names_scripts(c)
                        && self.written_unknown.iter().any(|w| {
                            w.file_name().is_some_and(|n| n == "package.json")
                                && w.parent().is_some_and(|p| dir.starts_with(p))
                        }) =>
                {
                    return Script::Unknown
                }
                Source::Project(row, from) => match project::code(c, row, from, &dir) {
                    Found::Text(origin, text) => {
                        let line = format!(
                            "sh -c {} {}",
                            crate::shell::quote(&text),
                            crate::shell::quote(&c.program)
                        );
                        (origin, line)
                    }
                    Found::Nothing => continue,
                    Found::Unknown => return Script::Unknown,
                },
                Source::Package => match package::scripts(c, &dir, &self.script_sets) {
                    Found::Text(origin, text) => {
                        let line = format!("sh -c {} npm", crate::shell::quote(&text));
                        (origin, line)
                    }
                    Found::Nothing => continue,
                    Found::Unknown => return Script::Unknown,
                },
            };
            if self.stack.contains(&origin) {
                continue;
            }
            let Some(cmds) = self.run(c, &origin.path, &line) else {
                return Script::Unknown;
            };
            origins.push(origin);
            found.extend(cmds);
        }
        if origins.is_empty() {
            Script::Nothing
        } else {
            Script::Runs(origins, found)
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
    /// Shell text, read from that entry of that file.
    Text(Origin, String),
    /// Nothing from a file of the project.
    Nothing,
    /// Code that cannot be known whole before it runs.
    Unknown,
}

/// `PROGRAM FLAG TEXT NAME ARGS…`: the command line that runs `text` as the
/// file `name` with its arguments as the command line spells them.
fn code_line(program_and_flag: &str, text: &str, name: &str, args: &[Value], cwd: &str) -> String {
    let mut line = format!(
        "{program_and_flag} {} {}",
        crate::shell::quote(text),
        crate::shell::quote(name)
    );
    for a in args {
        line.push(' ');
        line.push_str(&spelled(a, cwd));
    }
    line
}

/// The command line that runs an interpreter's script file as inline code
/// (`python3 -c TEXT`, `node -e TEXT`, `php -r TEXT`), so the file is judged
/// exactly as the same text typed after the flag. Its first line (`#!…`)
/// and PHP's opening tag are no code.
fn interpreted_line(
    lang: InlineLang,
    prog: &str,
    text: &str,
    name: &str,
    args: &[Value],
    cwd: &str,
) -> String {
    let text = match text.strip_prefix("#!") {
        Some(rest) => rest.find('\n').map_or("", |at| &rest[at..]),
        None => text,
    };
    let text = text.trim_start();
    let text = text.strip_prefix("<?php").unwrap_or(text);
    let flag = code_flags(lang).first().copied().unwrap_or("-e");
    let head = format!("{} {flag}", crate::shell::quote(prog));
    code_line(&head, text, name, args, cwd)
}

/// The command line that runs `text` as the code `prog` reads in `lang`:
/// given to the program's option for inline code in that language when the
/// table has one (`psql -c TEXT`, `mysql -e TEXT`: what rules read in a
/// command's words), else on its standard input (`at <<'EOF' … EOF`).
fn place_line(prog: &str, lang: Lang, text: &str) -> String {
    let prog_q = crate::shell::quote(prog);
    let line = if let Some(flag) = super::places::inline_option(&prog.to_ascii_lowercase(), lang) {
        format!("{prog_q} {flag} {}", crate::shell::quote(text))
    } else {
        let mut delim = String::from("HOOKRULES_EOF");
        while text.lines().any(|l| l == delim) {
            delim.push('_');
        }
        format!("{prog_q} <<'{delim}'\n{text}\n{delim}\n")
    };
    // In a shell of its own, so that the program is one of the commands the
    // file's code runs.
    format!("sh -c {}", crate::shell::quote(&line))
}

/// What runs a file run by its path.
enum Runner {
    /// A POSIX shell (its first line names one, or it has none).
    Shell,
    /// An interpreter whose code the analysis reads (`#!/usr/bin/env
    /// python3`), by its language and program name.
    Interpreter(InlineLang, String),
}

/// The text of the program at `path` and what runs it: a shell script (read
/// as [`read_script`] reads it), or, run by its path, a script of an
/// interpreter whose code the analysis reads; `Ok(None)` for any other
/// program (a binary, another interpreter's script).
fn read_program(path: &Path, by_path: bool) -> Result<Option<(String, Runner)>, ()> {
    if !by_path {
        return Ok(read_script(path, false)?.map(|t| (t, Runner::Shell)));
    }
    let Some(text) = read_script_if(path, true, |head| runner(head).is_some())? else {
        return Ok(None);
    };
    Ok(runner(text.as_bytes()).map(|r| (text, r)))
}

thread_local! {
    /// The files the command line being read writes, lexically normal
    /// (see [`WrittenScope`]).
    static WRITTEN: std::cell::RefCell<Vec<PathBuf>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// While the scripts of one command line are read, the files the line
/// writes: a runner that reads one of them (`printf … > x.cmake && cmake -P
/// x.cmake`, a `package.json` written before `npm install --prefix d`) reads
/// what the line wrote, not what is on disk as it is judged, so its code is
/// unknown (every reader of code goes through [`read_script_if`] or
/// [`written_by_line`]). Kept per thread because the readers of each file
/// format are free functions; the previous list comes back on drop.
struct WrittenScope(Vec<PathBuf>);

impl WrittenScope {
    fn enter(written: &[PathBuf]) -> WrittenScope {
        let normal = written
            .iter()
            .map(|p| crate::os::files::lexical_normalize(p))
            .collect();
        WrittenScope(WRITTEN.with(|w| std::mem::replace(&mut *w.borrow_mut(), normal)))
    }
}

impl Drop for WrittenScope {
    fn drop(&mut self) {
        let before = std::mem::take(&mut self.0);
        WRITTEN.with(|w| *w.borrow_mut() = before);
    }
}

/// Is there a file of code at `path` for a runner to read: a file on disk,
/// or one the command line writes before the runner reads it?
pub(super) fn code_file(path: &Path) -> bool {
    written_by_line(path) || path.is_file()
}

/// Does the command line being read write the file at `path` (absolute)?
pub(super) fn written_by_line(path: &Path) -> bool {
    WRITTEN.with(|w| {
        let w = w.borrow();
        !w.is_empty() && w.contains(&crate::os::files::lexical_normalize(path))
    })
}

/// The text of the script at `path`: `Ok(None)` when the shell would run
/// nothing from it (not there, a directory, unreadable, `/dev/null`, or run
/// by path and not a shell script), `Err` when its text cannot be known
/// whole (a FIFO, a device, a socket, longer than [`MAX_SCRIPT_BYTES`], a
/// file the line itself writes first, or a read that fails).
fn read_script(path: &Path, by_path: bool) -> Result<Option<String>, ()> {
    read_script_if(path, by_path, |head| {
        !by_path || matches!(runner(head), Some(Runner::Shell))
    })
}

/// [`read_script`], read only when the file's first bytes pass `wanted`.
fn read_script_if(
    path: &Path,
    by_path: bool,
    wanted: impl Fn(&[u8]) -> bool,
) -> Result<Option<String>, ()> {
    if written_by_line(path) {
        return Err(());
    }
    read_from_disk(path, by_path, wanted)
}

/// [`read_script_if`] of the text on disk now, whether or not the line
/// writes the file (for a caller that knows what the line writes there).
fn read_from_disk(
    path: &Path,
    by_path: bool,
    wanted: impl Fn(&[u8]) -> bool,
) -> Result<Option<String>, ()> {
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
    if !wanted(&bytes) {
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

impl Reader {
    /// A file of code that is not there as the line is judged, in a folder
    /// any process may write into, and that the line itself does not write:
    /// text that something outside this line puts there before it runs (a
    /// download left running in the background, another session, a tool's
    /// generated script), which nobody has read, so unknown code. A file
    /// missing anywhere else runs nothing (the shell refuses it): the
    /// project's `source venv/bin/activate` before the venv exists, also
    /// when the session's own folder lies in a temp folder.
    fn unread_shared(&self, path: &Path) -> bool {
        // Strictly inside a shared temp folder (not the folder itself).
        let shared =
            |d: &Path| place::shared_temp(&d.to_string_lossy()).is_some_and(|r| !r.is_empty());
        let own = shared(&self.start) && path.starts_with(&self.start);
        shared(path)
            && !own
            && !self.written.iter().any(|w| w == path)
            && matches!(std::fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound)
    }
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

/// Does the script's first line name zsh (`#!/bin/zsh`, `#!/usr/bin/env
/// zsh`)? zsh reads it, with its own glob qualifiers.
fn zsh_script(text: &str) -> bool {
    let Some(line) = text.lines().next().and_then(|l| l.strip_prefix("#!")) else {
        return false;
    };
    let mut words = line.split_whitespace();
    let mut prog = words.next().unwrap_or("").rsplit('/').next().unwrap_or("");
    if prog == "env" {
        prog = words
            .find(|w| !w.starts_with('-') && !w.contains('='))
            .unwrap_or("");
    }
    prog == "zsh"
}

/// What runs a file run by its path: a POSIX shell when its first line names
/// one or it has none and is text (the calling shell runs it), an
/// interpreter whose code the analysis reads when the line names one;
/// `None` for anything else.
fn runner(head: &[u8]) -> Option<Runner> {
    let Some(interp) = head.strip_prefix(b"#!") else {
        return (!head.contains(&0)).then_some(Runner::Shell);
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
    if SHELLS.contains(&prog) {
        return Some(Runner::Shell);
    }
    let lang = interpreter_lang(prog)?;
    interpreter_script(prog, &["x".to_string()])
        .map(|_| Runner::Interpreter(lang, prog.to_string()))
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
