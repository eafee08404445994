//! Code a project file holds, run by a command named for its runner: `just
//! build` (the justfile's recipe), `task` (Taskfile.yml), `deno task x`
//! (deno.json), `composer test`, `mise run x`, `pdm run x`, `rake`
//! (Rakefile), `tox -e x` (tox.ini), `pre-commit run` (local hooks), `cmake -P
//! x.cmake`, `go generate` (`//go:generate` lines), and the hooks git runs for
//! `git commit`, `git push`, …
//!
//! Which runner reads which file, in which format, is data: the
//! `project_file` rows of `policies/data/code-places.toml` (covering one more
//! runner of a known format is one row). This module reads the file the row
//! names (the nearest going up from the command's folder, through the same
//! bounded, FIFO-safe reader as scripts) and gives the code the command runs
//! as shell text, each command line in its own shell, dependencies first.
//! What the text holds that only the run knows (a template `{{.X}}`, a
//! variable) is a variable nobody set, so the command it is in is uncertain.
//!
//! **Missing and unreadable files.** No file, or an entry the file does not
//! have, runs nothing (the runner stops with an error). A file in a syntax
//! the runner refuses (JSON or TOML that does not parse) runs nothing either.
//! A file that cannot be read whole (a FIFO, a device, past
//! [`MAX_SCRIPT_BYTES`]) when the runner is certain to run code from it is
//! unknown code, as a script is; so is an entry the file does not have while
//! it includes other files the analysis does not read.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::places::{self, Format, ProjectFile};
use super::{read_program, read_script, Found, Origin, SimpleCommand, MAX_SCRIPT_BYTES};

mod bats;
mod build_script;
mod calls;
mod cmake;
mod commands_at;
pub(crate) use commands_at::absent_path;
mod compose;
mod earthfile;
mod hooks;
mod host_commands;
mod just;
mod jvm_build;
mod loaded;
mod notebook;
mod rake;
mod tree;
mod workspaces;

/// Folders climbed to find a project file.
pub(super) const MAX_CLIMB: usize = 16;
/// Entries followed per command (dependencies included).
pub(super) const MAX_ENTRIES: usize = 64;
/// Go files read for one `go generate`.
const MAX_GO_FILES: usize = 256;
/// Folders walked for `go generate ./...`.
const MAX_GO_DIRS: usize = 64;

/// The text that stands for what only the run knows.
pub(super) use crate::shell::command::unread::UNKNOWN;

/// Does the command run code from a project file (a `project_file` row names
/// its program)?
pub(super) fn runs_project_code(c: &SimpleCommand) -> bool {
    !c.program_unknown
        && (places::has_project_files(&c.program.to_ascii_lowercase())
            || python_module(c).is_some_and(|(m, _)| places::has_project_files(&m)))
}

/// The rows of the command, each with the index of its first argument after
/// the row's subcommand.
pub(super) fn rows(c: &SimpleCommand) -> Vec<(&'static ProjectFile, usize)> {
    if let Some((module, at)) = python_module(c) {
        let rest = c.args.get(at..).unwrap_or_default();
        return places::project_files(&module, rest)
            .into_iter()
            .map(|(row, from)| (row, from + at))
            .collect();
    }
    places::project_files(&c.program.to_ascii_lowercase(), &c.args)
}

/// A Python module run as a program (`python3 -m pytest`, `python -m pip
/// install .`): the module's name and the index of its first argument.
fn python_module(c: &SimpleCommand) -> Option<(String, usize)> {
    if super::super::wrappers::interpreter_lang(&c.program)
        != Some(super::super::inline::Lang::Python)
    {
        return None;
    }
    let k = c.args.iter().position(|a| a == "-m")?;
    if c.args[..k].iter().any(|a| !a.starts_with('-')) {
        return None;
    }
    Some((c.args.get(k + 1)?.to_ascii_lowercase(), k + 2))
}

/// Each argument as the shell hands it to the runner, when known (else as
/// written).
fn known_args(c: &SimpleCommand, dir: &Path) -> Vec<String> {
    c.args
        .iter()
        .zip(&c.values)
        .map(|(a, v)| {
            v.known_from(&dir.to_string_lossy())
                .unwrap_or_else(|| a.clone())
        })
        .collect()
}

/// The file the command names for the row to read (`nox -f x.py`,
/// `BUNDLE_GEMFILE=x bundle`), as a path: a file the line itself writes
/// holds text only the run knows.
pub(super) fn named_file(
    c: &SimpleCommand,
    row: &ProjectFile,
    from: usize,
    dir: &Path,
) -> Option<PathBuf> {
    let at = located(c, row, &known_args(c, dir), from, dir).ok()?;
    at.file.map(|f| at.dir.join(f))
}

/// The code one row's file runs for the command, as shell text.
pub(super) fn code(c: &SimpleCommand, row: &ProjectFile, from: usize, dir: &Path) -> Found {
    let args = known_args(c, dir);
    let at = match located(c, row, &args, from, dir) {
        Ok(at) => at,
        Err(found) => return found,
    };
    let (rest, dir, named) = (at.rest.as_slice(), at.dir.as_path(), at.file.as_deref());
    let given = |options: &[&str]| {
        args.iter().any(|a| {
            let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
            options.contains(&name)
        })
    };
    if given(row.no_run) || !(row.run_with.is_empty() || given(row.run_with)) {
        return Found::Nothing;
    }
    match row.format {
        Format::Tree => commands_at::code(row, dir, named),
        Format::Calls => calls::code(row, rest, dir, named),
        Format::EntryPoint => loaded::entry_point(row, rest, dir, named),
        Format::Scripts => scripts(row, rest, dir, named),
        Format::Taskfile => taskfile(row, rest, dir),
        Format::Just => just::recipes(row, rest, dir),
        Format::Rake => rake::tasks(row, rest, dir, named),
        Format::Tox => tox(row, rest, dir),
        Format::PreCommit => pre_commit(row, rest, dir),
        Format::CMake => cmake::code(row, rest, dir),
        Format::GoGenerate => go_generate(rest, dir),
        Format::BuildScript => build_script::code(row, rest, dir, named),
        Format::Script => hooks::script(row, rest, dir),
        Format::Conftest => hooks::conftest(rest, dir),
        Format::SetupPy => hooks::setup_py(rest, dir),
        Format::Lefthook => hooks::lefthook(row, rest, dir),
        Format::Overcommit => hooks::overcommit(row, rest, dir),
        Format::Workflow => hooks::workflow(rest, dir),
        Format::Workspaces => workspaces::code(&c.program.to_ascii_lowercase(), &args, dir),
        Format::Compose => compose::code(row, rest, dir, named),
        Format::JvmBuild => jvm_build::code(row, rest, dir, named),
        Format::Code => loaded::code(row, rest, dir, named),
        Format::Bats => bats::code(rest, dir, named),
        Format::Notebook => notebook::code(row, dir, named),
        Format::Earthfile => earthfile::code(row, rest, dir),
        Format::Terraform
        | Format::NixShell
        | Format::Devcontainer
        | Format::Meson
        | Format::Msbuild => {
            let sub = from.checked_sub(1).and_then(|k| args.get(k));
            host_commands::code(row, sub.map_or("", String::as_str), rest, dir)
        }
        Format::GitHooks => {
            let sub = from.checked_sub(1).and_then(|k| args.get(k));
            git_hooks(c, row, sub.map_or("", String::as_str), rest, dir)
        }
    }
}

/// Where a runner looks for its file: the folder it starts from (the
/// command's, or the one a `dir_option` names), the file a `file_option` or
/// `file_variable` names (from that folder), and the arguments after the
/// row's subcommand without those options and their values.
struct Located {
    dir: PathBuf,
    file: Option<String>,
    rest: Vec<String>,
}

/// Read the row's `dir_option`s, `file_option`s (`-f X`, `--file=X`; a
/// value that starts with `-` is another option) and `file_variable`s (the
/// first of a `:`-separated list, as `COMPOSE_FILE` gives several) from the
/// command: `Err(Unknown)` when one names a file or folder only the run
/// knows.
fn located(
    c: &SimpleCommand,
    row: &ProjectFile,
    args: &[String],
    from: usize,
    dir: &Path,
) -> Result<Located, Found> {
    let mut at = Located {
        dir: dir.to_path_buf(),
        file: None,
        rest: Vec::new(),
    };
    let unknown = |v: &str| v.is_empty() || v.contains(['$', '`']);
    if let Some((_, v)) = c
        .assignments
        .iter()
        .rev()
        .find(|(k, _)| row.file_variable.contains(&k.as_str()))
    {
        let first = v.split(':').next().unwrap_or("");
        if unknown(first) {
            return Err(Found::Unknown);
        }
        at.file = Some(first.to_string());
    }
    let mut k = 0;
    while k < args.len() {
        let a = &args[k];
        if a == "--" {
            at.rest.extend(args[k.max(from)..].iter().cloned());
            break;
        }
        let found = row
            .file_option
            .iter()
            .map(|o| (o, true))
            .chain(row.dir_option.iter().map(|o| (o, false)))
            .find_map(|(o, is_file)| {
                if a == o {
                    let v = args.get(k + 1).filter(|v| !v.starts_with('-'))?;
                    Some((v.clone(), is_file, 2))
                } else {
                    let v = a.strip_prefix(*o)?.strip_prefix('=')?;
                    Some((v.to_string(), is_file, 1))
                }
            });
        match found {
            Some((v, is_file, used)) => {
                if unknown(&v) {
                    return Err(Found::Unknown);
                }
                if is_file {
                    at.file = Some(v);
                } else {
                    at.dir = at.dir.join(v);
                }
                k += used;
            }
            None => {
                if k >= from {
                    at.rest.push(a.clone());
                }
                k += 1;
            }
        }
    }
    if row.file_operand {
        if let Some(k) = places::first_operand(&c.program.to_ascii_lowercase(), &at.rest) {
            let v = at.rest.remove(k);
            if unknown(&v) {
                return Err(Found::Unknown);
            }
            at.file = Some(v);
        }
    }
    Ok(at)
}

/// The nearest of `names` at or above `dir`: a file, or anything else that
/// is not a folder (a FIFO, a device), which the reader then finds cannot
/// be read whole, or a file the command line writes first (its reader then
/// finds it is the line's).
/// A name `*.END` is the first file of the folder (by name) ending so
/// (`*.gemspec`).
pub(super) fn nearest(dir: &Path, names: &[&str]) -> Option<PathBuf> {
    dir.ancestors()
        .take(MAX_CLIMB)
        .flat_map(|d| names.iter().filter_map(move |n| in_folder(d, n)))
        .find(|p| super::written_by_line(p) || std::fs::metadata(p).is_ok_and(|m| !m.is_dir()))
}

/// The path of `name` in `dir` (`*.END`: the first file ending so).
fn in_folder(dir: &Path, name: &str) -> Option<PathBuf> {
    let Some(end) = name.strip_prefix('*') else {
        return Some(dir.join(name));
    };
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with(end) && n.len() > end.len())
        })
        .take(MAX_ENTRIES)
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The file a runner reads: the one the command names (a folder named
/// holds it: `mvn -f backend`), else the nearest of `names`.
pub(super) fn named_or_nearest(dir: &Path, names: &[&str], named: Option<&str>) -> Option<PathBuf> {
    match named {
        Some(n) => {
            let p = dir.join(n);
            if p.is_dir() {
                names
                    .iter()
                    .filter_map(|x| in_folder(&p, x))
                    .find(|x| super::code_file(x))
            } else {
                Some(p)
            }
        }
        None => nearest(dir, names),
    }
}

/// The text of the file `names` finds from `dir` (or `named`, when the
/// command names one): `Err(found)` when there is none to read (`Nothing`) or
/// it cannot be read whole (`Unknown`).
pub(super) fn file_text(
    dir: &Path,
    names: &[&str],
    named: Option<&str>,
) -> Result<(PathBuf, String), Found> {
    let path = match named {
        Some(n) if n.contains(['$', '`']) => return Err(Found::Unknown),
        named => named_or_nearest(dir, names, named).ok_or(Found::Nothing)?,
    };
    match read_script(&path, false) {
        Ok(Some(text)) => Ok((path, text)),
        Ok(None) => Err(Found::Nothing),
        Err(()) => Err(Found::Unknown),
    }
}

/// Shell text: a `cd` to the folder the code runs in, then each line in its
/// own shell.
#[derive(Default)]
pub(super) struct Text {
    out: String,
    lines: usize,
    /// Every line added is what the run may do.
    pub(super) may: bool,
}

impl Text {
    pub(super) fn new(dir: &Path) -> Text {
        Text {
            out: format!(
                "cd {} || exit 1\n",
                crate::shell::quote(&dir.to_string_lossy())
            ),
            lines: 0,
            may: false,
        }
    }

    /// Add a command line; in a branch of the text when the runner may not
    /// run it. Templates (`{{.X}}`) are what only the run knows.
    pub(super) fn line(&mut self, line: &str, uncertain: bool) {
        let uncertain = uncertain || self.may;
        let line = untemplated(line);
        if line.trim().is_empty() {
            return;
        }
        self.lines += 1;
        if uncertain {
            self.out
                .push_str("if [ -n \"$HOOKRULES_TASK_UNKNOWN\" ]; then (\n");
            self.out.push_str(&line);
            self.out.push_str("\n); fi\n");
        } else {
            self.out.push_str("(\n");
            self.out.push_str(&line);
            self.out.push_str("\n)\n");
        }
    }

    /// Is the text past the bound of one script?
    pub(super) fn full(&self) -> bool {
        self.out.len() as u64 > MAX_SCRIPT_BYTES
    }

    /// The text read from `path` for `entry`; `Nothing` when it runs nothing.
    pub(super) fn found(self, path: PathBuf, entry: String) -> Found {
        if self.full() {
            Found::Unknown
        } else if self.lines == 0 {
            Found::Nothing
        } else {
            Found::Text(Origin { path, entry }, self.out)
        }
    }
}

/// `{{…}}` templates as a variable nobody set.
fn untemplated(line: &str) -> String {
    unknown_between(line, "{{")
}

/// Each `OPEN…}}` of `line` (a template, a workflow's `${{ … }}`) as a
/// variable nobody set: only the run knows its value.
pub(super) fn unknown_between(line: &str, open: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(open) {
        out.push_str(&rest[..at]);
        match rest[at..].find("}}") {
            Some(end) => {
                out.push_str(UNKNOWN);
                rest = &rest[at + end + 2..];
            }
            None => {
                rest = &rest[at..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The first operand of `args` (the entry a runner is asked for) and the
/// ones after it.
pub(super) fn first_operand(args: &[String]) -> Option<&String> {
    args.iter().find(|a| !a.starts_with('-'))
}

/// Named command lines under the row's key (`deno task`, `composer`, `mise
/// run`, `pdm run`, `hatch run`, `poe`).
fn scripts(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    let names: Vec<String> = if row.run.is_empty() {
        match first_operand(args).map(String::as_str).or(row.default) {
            Some(n) => vec![n.to_string()],
            None => return Found::Nothing,
        }
    } else {
        row.run.iter().map(|s| (*s).to_string()).collect()
    };
    let (path, text) = match file_text(dir, row.files, named) {
        Ok(found) => found,
        Err(Found::Nothing) if !row.task_dirs.is_empty() => return task_files(row, &names, dir),
        Err(found) => return found,
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(tree) = tree::parse(name.as_deref().unwrap_or(""), &text) else {
        return Found::Nothing;
    };
    let Some(table) = row.key.and_then(|k| tree::at(&tree, k)) else {
        return task_files(row, &names, dir);
    };
    if !row.task_dirs.is_empty() && names.iter().any(|n| table.get(n).is_none()) {
        return task_files(row, &names, dir);
    }
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    let mut seen = Vec::new();
    for n in &names {
        if !entry(table, n, &mut out, &mut seen) {
            return Found::Unknown;
        }
    }
    out.found(path, names.join(" "))
}

/// Entries kept as executable files in the row's `task_dirs` (mise's
/// `.mise/tasks/NAME`; `db:migrate` is `db/migrate`), the nearest going up:
/// each runs by its path.
fn task_files(row: &ProjectFile, names: &[String], dir: &Path) -> Found {
    let mut out = Text::new(dir);
    let mut first = None;
    for n in names {
        let rel = n.replace(':', "/");
        if rel.split('/').any(|p| p.is_empty() || p == "..") {
            continue;
        }
        let wanted: Vec<String> = row.task_dirs.iter().map(|d| format!("{d}/{rel}")).collect();
        let wanted: Vec<&str> = wanted.iter().map(String::as_str).collect();
        if let Some(p) = nearest(dir, &wanted) {
            out.line(&crate::shell::quote(&p.to_string_lossy()), false);
            first.get_or_insert(p);
        }
    }
    match first {
        Some(p) => out.found(p, names.join(" ")),
        None => Found::Nothing,
    }
}

/// Add the command lines of entry `name` of `table` (its dependencies
/// first); `false` past the bounds.
fn entry(table: &Value, name: &str, out: &mut Text, seen: &mut Vec<String>) -> bool {
    if seen.iter().any(|s| s == name) {
        return true;
    }
    if seen.len() >= MAX_ENTRIES || out.full() {
        return false;
    }
    seen.push(name.to_string());
    match table.get(name) {
        Some(v) => commands(table, v, out, seen),
        None => true,
    }
}

/// Keys whose value names entries that run first.
const DEPENDENCY_KEYS: &[&str] = &[
    "deps",
    "depends",
    "dependencies",
    "depends_on",
    "depends-on",
];
/// Keys whose value is what an entry runs: command lines, or entries.
const COMMAND_KEYS: &[&str] = &[
    "cmd",
    "cmds",
    "command",
    "run",
    "shell",
    "script",
    "composite",
    "sequence",
];

/// Add what one entry's value runs: a command line, a list of them, or a
/// table of dependencies and commands; a line naming another entry
/// (composer's `@name`, a `composite`'s name, `{task: name}`, `{ref:
/// name}`) runs that entry.
pub(super) fn commands(table: &Value, v: &Value, out: &mut Text, seen: &mut Vec<String>) -> bool {
    match v {
        Value::String(line) => {
            if let Some(other) = line.strip_prefix('@') {
                let mut words = other.splitn(2, ' ');
                let first = words.next().unwrap_or("");
                if table.get(first).is_some() {
                    return entry(table, first, out, seen);
                }
                // `@php x`, `@composer x`, `@putenv X=1`: the program so named.
                if first != "putenv" {
                    out.line(other, false);
                }
                return true;
            }
            if !line.contains(' ') && table.get(line.as_str()).is_some() && !seen.is_empty() {
                return entry(table, line, out, seen);
            }
            out.line(line, false);
            true
        }
        Value::Array(items) => items.iter().all(|i| commands(table, i, out, seen)),
        Value::Object(map) => {
            for k in DEPENDENCY_KEYS {
                if let Some(deps) = map.get(*k) {
                    let names: Vec<&str> = match deps {
                        Value::String(s) => s.split_whitespace().collect(),
                        Value::Array(a) => a
                            .iter()
                            .filter_map(|d| d.as_str().or_else(|| d.get("task")?.as_str()))
                            .collect(),
                        _ => Vec::new(),
                    };
                    for n in names {
                        if !entry(table, n, out, seen) {
                            return false;
                        }
                    }
                }
            }
            // cargo-make's `command = "rm"` with `args = ["-rf", "x"]`: one command line.
            if let (Some(Value::String(prog)), Some(Value::Array(words))) =
                (map.get("command"), map.get("args"))
            {
                let mut line = expanding_quote(prog);
                for w in words {
                    line.push(' ');
                    line.push_str(&w.as_str().map_or_else(|| UNKNOWN.into(), expanding_quote));
                }
                out.line(&line, false);
                return COMMAND_KEYS
                    .iter()
                    .filter(|k| **k != "command")
                    .filter_map(|k| map.get(*k))
                    .all(|c| commands(table, c, out, seen));
            }
            // mise's `file = "scripts/x.sh"`: a script run by its path.
            if let Some(Value::String(f)) = map.get("file") {
                let f = if f.starts_with('/') {
                    f.clone()
                } else {
                    format!("./{}", f.trim_start_matches("./"))
                };
                out.line(&crate::shell::quote(&f), false);
            }
            for k in ["task", "ref", "run_task"] {
                if let Some(n) = map.get(k).and_then(Value::as_str) {
                    let n = n.split_whitespace().next().unwrap_or("");
                    return entry(table, n, out, seen);
                }
            }
            COMMAND_KEYS
                .iter()
                .filter_map(|k| map.get(*k))
                .all(|c| commands(table, c, out, seen))
        }
        _ => true,
    }
}

/// A word a runner hands a program without a shell, expanding only its
/// `${VAR}`s (cargo-make's `args`): double-quoted, `${…}` left to expand.
fn expanding_quote(word: &str) -> String {
    let mut out = String::from("\"");
    let mut chars = word.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '$' if chars.peek() == Some(&'{') => out.push('$'),
            '"' | '\\' | '`' | '$' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A Taskfile's tasks: those named (all operands before `--`), else
/// `default`.
fn taskfile(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut names = Vec::new();
    let mut file = None;
    let mut dir = dir.to_path_buf();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => break,
            "-t" | "--taskfile" => file = it.next().cloned(),
            "-d" | "--dir" => {
                if let Some(d) = it.next() {
                    if d.contains(['$', '`']) {
                        return Found::Unknown;
                    }
                    dir = dir.join(d);
                }
            }
            "-o" | "--output" | "-c" | "--concurrency" | "-I" | "--interval" => {
                it.next();
            }
            "-l" | "--list" | "-a" | "--list-all" | "-n" | "--dry" | "--summary" | "-i"
            | "--init" | "--version" | "-h" | "--help" | "--status" => return Found::Nothing,
            s if s.starts_with("--taskfile=") => file = Some(s["--taskfile=".len()..].into()),
            s if s.starts_with('-') => {}
            // `task NAME VAR=value`: a variable, not a task.
            s if s.contains('=') => {}
            s => names.push(s.to_string()),
        }
    }
    if names.is_empty() {
        names.push("default".into());
    }
    let (path, text) = match file_text(&dir, row.files, file.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let tree = tree::parse("Taskfile.yml", &text).unwrap_or(Value::Null);
    let table = tree.get("tasks").cloned().unwrap_or(Value::Null);
    let includes = tree.get("includes").is_some();
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    let mut seen = Vec::new();
    for n in &names {
        if table.get(n).is_none() && includes {
            // `task docs:build` from an included Taskfile not read here.
            return Found::Unknown;
        }
        if !entry(&table, n, &mut out, &mut seen) {
            return Found::Unknown;
        }
    }
    out.found(path, names.join(" "))
}

/// tox.ini's commands of the environments `-e` names (else its `envlist`,
/// else `py`): `commands_pre`, `commands`, `commands_post`, from the
/// environment's section or `[testenv]`.
fn tox(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut envs: Vec<String> = Vec::new();
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--" => break,
            "-e" | "--env" => {
                if let Some(v) = it.next() {
                    envs.extend(v.split(',').map(str::to_string));
                }
            }
            "-c" | "--conf" => file = it.next().cloned(),
            "-l" | "--listenvs" | "-a" | "--listenvs-all" | "--version" | "-h" | "--help"
            | "--showconfig" | "--notest" => return Found::Nothing,
            s if s.starts_with("-e") && s.len() > 2 => {
                envs.extend(s[2..].split(',').map(str::to_string));
            }
            _ => {}
        }
    }
    let (path, text) = match file_text(dir, row.files, file.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let ini = ini(&text);
    let get = |section: &str, key: &str| -> Option<String> {
        ini.iter()
            .find(|(s, k, _)| s == section && k == key)
            .map(|(_, _, v)| v.clone())
    };
    if envs.is_empty() {
        envs = get("tox", "envlist")
            .or_else(|| get("tox", "env_list"))
            .map(|l| {
                l.split([',', '\n'])
                    .map(|e| e.trim().to_string())
                    .filter(|e| !e.is_empty())
                    .collect()
            })
            .unwrap_or_else(|| vec!["py".into()]);
    }
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut out = Text::new(&root);
    for env in envs.iter().take(MAX_ENTRIES) {
        // `py3{10,11}` and other factor braces: the base section's commands.
        let section = format!("testenv:{env}");
        for key in ["commands_pre", "commands", "commands_post"] {
            let Some(value) = get(&section, key).or_else(|| get("testenv", key)) else {
                continue;
            };
            for line in value.lines() {
                let line = line.trim().trim_start_matches('-').trim_start();
                let line = tox_substituted(line, &root, env);
                // Other substitutions only the run knows.
                let line = braces_unknown(&line);
                out.line(&line, false);
            }
        }
    }
    out.found(path, envs.join(","))
}

/// A tox command line with tox's substitutions made: the folders it names
/// (`{toxinidir}`, `{tox_root}`, `{toxworkdir}`, `{envdir}`, `{envtmpdir}`,
/// `{homedir}`), the environment's variables (`{env:HOME}`, `{env:X:default}`)
/// as the shell's, `{/}` and `{:}`; others (`{posargs}`) only the run knows.
fn tox_substituted(line: &str, root: &Path, env: &str) -> String {
    let q = |p: &Path| crate::shell::quote(&p.to_string_lossy());
    let work = root.join(".tox");
    let env_dir = work.join(env);
    let mut line = line.to_string();
    for (from, to) in [
        ("{toxinidir}", q(root)),
        ("{tox_root}", q(root)),
        ("{toxworkdir}", q(&work)),
        ("{work_dir}", q(&work)),
        ("{envdir}", q(&env_dir)),
        ("{env_dir}", q(&env_dir)),
        ("{envtmpdir}", q(&env_dir.join("tmp"))),
        ("{env_tmp_dir}", q(&env_dir.join("tmp"))),
        ("{envname}", crate::shell::quote(env)),
        ("{env_name}", crate::shell::quote(env)),
        ("{homedir}", "\"$HOME\"".to_string()),
        ("{/}", "/".to_string()),
        ("{:}", ":".to_string()),
    ] {
        line = line.replace(from, &to);
    }
    // `{env:NAME}` and `{env:NAME:default}`: the variable, as the shell has it.
    let mut out = String::new();
    let mut rest = line.as_str();
    while let Some(at) = rest.find("{env:") {
        out.push_str(&rest[..at]);
        let body = &rest[at + 5..];
        match body.find('}') {
            Some(end) => {
                let (name, default) = match body[..end].split_once(':') {
                    Some((n, d)) => (n, Some(d)),
                    None => (&body[..end], None),
                };
                let ok =
                    !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                match (ok, default) {
                    (true, Some(d)) if !d.contains(['"', '$', '`', '\\']) => {
                        out.push_str(&format!("\"${{{name}:-{d}}}\""));
                    }
                    (true, None) => out.push_str(&format!("\"${{{name}}}\"")),
                    _ => out.push_str(UNKNOWN),
                }
                rest = &body[end + 1..];
            }
            None => {
                rest = &rest[at..];
                break;
            }
        }
    }
    out.push_str(rest);
    out.replace("{posargs}", UNKNOWN)
}

/// tox's `{…}` substitutions left after the known ones, as unknown text.
fn braces_unknown(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        match rest[at..].find('}') {
            // (`${NAME}`: the shell's, from the substitutions above.)
            Some(end) if !rest[at + 1..at + end].contains(' ') && !out.ends_with('$') => {
                out.push_str(UNKNOWN);
                rest = &rest[at + end + 1..];
            }
            _ => {
                out.push('{');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// An INI file's `(section, key, value)`s; a value goes on over indented
/// lines (joined with newlines), comments (`#`, `;`) dropped.
fn ini(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut section = String::new();
    for raw in text.lines() {
        let t = raw.trim();
        if t.is_empty() || t.starts_with(['#', ';']) {
            continue;
        }
        if raw.starts_with([' ', '\t']) {
            if let Some(last) = out.last_mut().filter(|l| l.0 == section) {
                last.2.push('\n');
                last.2.push_str(t);
            }
            continue;
        }
        if let Some(s) = t.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
            section = s.trim().to_string();
            continue;
        }
        if let Some((k, v)) = t.split_once(['=', ':']) {
            out.push((section.clone(), k.trim().to_string(), v.trim().to_string()));
        }
    }
    out
}

/// The stages a hook runs in when it names none, and the stage `pre-commit
/// run` runs.
const DEFAULT_STAGE: &str = "pre-commit";

/// `.pre-commit-config.yaml`'s local hooks that run a command of the project
/// (`language: system` or `script`, and their newer names `unsupported`,
/// `unsupported_script`): `pre-commit run [HOOK]`, `pre-commit hook-impl
/// --hook-type=STAGE` (what `git commit` runs once `pre-commit install` set
/// it up). Hooks from other repositories are installed packages, judged by
/// their names.
fn pre_commit(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut only = None;
    let mut stage = DEFAULT_STAGE.to_string();
    let mut file = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || attached.clone().or_else(|| it.next().cloned());
        match name {
            "--hook-stage" | "--hook-type" => stage = value().unwrap_or_default(),
            "-c" | "--config" => file = value(),
            "--from-ref"
            | "--to-ref"
            | "--source"
            | "--origin"
            | "-s"
            | "-o"
            | "--remote-branch"
            | "--local-branch"
            | "--remote-name"
            | "--remote-url"
            | "--commit-msg-filename"
            | "--prepare-commit-message-source"
            | "--commit-object-name"
            | "--checkout-type"
            | "--is-squash-merge"
            | "--rewrite-command"
            | "--hook-dir" => {
                value();
            }
            "--files" => {
                // Every word after it is a file.
                break;
            }
            n if n.starts_with('-') => {}
            n if only.is_none() => only = Some(n.to_string()),
            _ => {}
        }
    }
    let stage = match stage.as_str() {
        "commit" => "pre-commit".to_string(),
        "push" => "pre-push".to_string(),
        s => s.to_string(),
    };
    let (path, text) = match file_text(dir, row.files, file.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let tree = tree::parse(".pre-commit-config.yaml", &text).unwrap_or(Value::Null);
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut out = Text::new(&root);
    let repos = tree.get("repos").and_then(Value::as_array);
    let hooks = repos
        .into_iter()
        .flatten()
        .filter(|r| r.get("repo").and_then(Value::as_str) == Some("local"))
        .filter_map(|r| r.get("hooks").and_then(Value::as_array))
        .flatten();
    for hook in hooks.take(MAX_ENTRIES) {
        let id = hook.get("id").and_then(Value::as_str).unwrap_or("");
        let alias = hook.get("alias").and_then(Value::as_str);
        if only.as_deref().is_some_and(|o| o != id && Some(o) != alias) {
            continue;
        }
        if only.is_none() {
            let stages: Vec<&str> = match hook.get("stages") {
                Some(Value::Array(s)) => s.iter().filter_map(Value::as_str).collect(),
                Some(Value::String(s)) => vec![s.as_str()],
                _ => vec![DEFAULT_STAGE],
            };
            let stages: Vec<&str> = stages
                .iter()
                .map(|s| match *s {
                    "commit" => "pre-commit",
                    "push" => "pre-push",
                    s => s,
                })
                .collect();
            if !stages.contains(&stage.as_str()) {
                continue;
            }
        }
        let language = hook.get("language").and_then(Value::as_str).unwrap_or("");
        let Some(entry) = hook.get("entry").and_then(Value::as_str) else {
            continue;
        };
        let args: Vec<String> = match hook.get("args") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(crate::shell::quote)
                .collect(),
            _ => Vec::new(),
        };
        let mut line = match language {
            "system" | "unsupported" => entry.to_string(),
            // A script of the repository, run by its path from the root.
            "script" | "unsupported_script" => format!("./{}", entry.trim_start_matches("./")),
            _ => continue,
        };
        for a in args {
            line.push(' ');
            line.push_str(&a);
        }
        out.line(&line, false);
    }
    out.found(path, only.unwrap_or(stage))
}

/// The `//go:generate` lines of the Go files `go generate` reads: the
/// package in the folder (or those the operands name; `./...` walks down).
/// go runs each line's words itself, without a shell; `$GOFILE`,
/// `$GOPACKAGE` and the like are the environment go sets.
fn go_generate(args: &[String], dir: &Path) -> Found {
    let mut operands = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-n" => return Found::Nothing,
            "-run" | "-skip" | "-tags" | "-C" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            s => operands.push(s.to_string()),
        }
    }
    if operands.is_empty() {
        operands.push(".".into());
    }
    let mut files = Vec::new();
    for op in &operands {
        if op.contains(['$', '`']) {
            return Found::Unknown;
        }
        if op.ends_with(".go") {
            files.push(dir.join(op));
            continue;
        }
        let (base, walk) = match op.strip_suffix("/...") {
            Some(b) => (b, true),
            None if op == "..." => (".", true),
            None => (op.as_str(), false),
        };
        // An import path (`example.com/x/...`) is a package anywhere.
        if !base.starts_with('.') && !base.starts_with('/') {
            return Found::Unknown;
        }
        if !go_files(&dir.join(base), walk, &mut files) {
            return Found::Unknown;
        }
    }
    let mut out = Text::new(dir);
    let mut first = None;
    for f in &files {
        if crate::shell::budget::check().is_err() {
            return Found::Unknown;
        }
        let Some(text) = read_go_file(f) else {
            return Found::Unknown;
        };
        let folder = f.parent().unwrap_or(dir);
        let package = text
            .lines()
            .find_map(|l| l.strip_prefix("package "))
            .map(|p| crate::shell::quote(p.trim()))
            .unwrap_or_else(|| format!("\"{UNKNOWN}\""));
        for line in text.lines() {
            let Some(cmd) = line.strip_prefix("//go:generate ") else {
                continue;
            };
            first.get_or_insert_with(|| f.clone());
            let name = f
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let line = format!(
                "cd {} || exit 1\nGOFILE={} GOPACKAGE={package} {}",
                crate::shell::quote(&folder.to_string_lossy()),
                crate::shell::quote(&name),
                cmd.replace("$DOLLAR", "\\$")
            );
            out.line(&line, false);
            if out.full() {
                return Found::Unknown;
            }
        }
    }
    match first {
        Some(path) => out.found(path, operands.join(" ")),
        None => Found::Nothing,
    }
}

/// Bytes read of one Go file: generated Go files are often larger than a
/// script, and a directive may be anywhere in one.
const MAX_GO_FILE_BYTES: u64 = 1 << 20;

/// The text of a Go file (a regular file, read whole up to
/// [`MAX_GO_FILE_BYTES`]); `None` when it cannot be read whole.
fn read_go_file(path: &Path) -> Option<String> {
    use std::io::Read;
    if super::written_by_line(path) {
        return None;
    }
    let f = crate::os::files::open_regular(path).ok()?;
    let mut bytes = Vec::new();
    f.take(MAX_GO_FILE_BYTES + 1).read_to_end(&mut bytes).ok()?;
    (bytes.len() as u64 <= MAX_GO_FILE_BYTES).then(|| String::from_utf8_lossy(&bytes).into_owned())
}

/// Add the `.go` files of `dir` (and below it when `walk`, skipping
/// `vendor`, `testdata` and hidden folders) to `files`; `false` past the
/// bounds.
fn go_files(dir: &Path, walk: bool, files: &mut Vec<PathBuf>) -> bool {
    let mut dirs = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = dirs.pop() {
        seen += 1;
        if seen > MAX_GO_DIRS {
            return false;
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut names: Vec<(String, bool)> = entries
            .filter_map(Result::ok)
            .map(|e| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        names.sort();
        for (name, is_dir) in names {
            if is_dir {
                if walk && !name.starts_with(['.', '_']) && name != "vendor" && name != "testdata" {
                    dirs.push(d.join(&name));
                }
            } else if name.ends_with(".go") {
                files.push(d.join(&name));
                if files.len() > MAX_GO_FILES {
                    return false;
                }
            }
        }
    }
    true
}

/// The hooks git runs for the subcommand (the row's `run`), from the
/// repository's hooks folder (`core.hooksPath`, else `.git/hooks`): each an
/// executable file run by its path, read as a script is (a shell's, or an
/// interpreter's the analysis reads). `--no-verify` (`-n` for commit) skips
/// the hooks it names.
fn git_hooks(
    c: &SimpleCommand,
    row: &ProjectFile,
    sub: &str,
    args: &[String],
    dir: &Path,
) -> Found {
    let no_verify = args
        .iter()
        .any(|a| a == "--no-verify" || (sub == "commit" && a == "-n"));
    let skipped: &[&str] = if no_verify {
        &["pre-commit", "commit-msg", "pre-push", "pre-merge-commit"]
    } else {
        &[]
    };
    let Some((hooks, root)) = super::super::repo_config::hooks_folder(c, dir) else {
        return Found::Nothing;
    };
    let mut out = Text::new(&root);
    let mut first = None;
    for hook in row.run.iter().filter(|h| !skipped.contains(h)) {
        let path = hooks.join(hook);
        if !executable(&path) {
            continue;
        }
        // husky (9): `core.hooksPath` is `.husky/_`, whose hooks run the
        // project's `.husky/HOOK` with `sh -e`.
        let husky = hooks
            .file_name()
            .is_some_and(|n| n == "_")
            .then(|| hooks.parent().map(|p| p.join(hook)))
            .flatten()
            .filter(|p| super::code_file(p));
        if let Some(own) = husky {
            first.get_or_insert_with(|| own.clone());
            out.line(
                &format!("sh -e {}", crate::shell::quote(&own.to_string_lossy())),
                false,
            );
            continue;
        }
        match read_program(&path, true) {
            Ok(Some(_)) => {}
            Ok(None) => continue,
            Err(()) => return Found::Unknown,
        }
        first.get_or_insert_with(|| path.clone());
        out.line(&crate::shell::quote(&path.to_string_lossy()), false);
    }
    match first {
        Some(path) => out.found(path, row.run.join(" ")),
        None => Found::Nothing,
    }
}

/// Is `path` a file git would run (executable by someone)?
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
