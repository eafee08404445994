//! Runners whose file is a script, Python the runner imports, or hooks and
//! CI steps: `direnv allow`/`direnv exec` (`.envrc`, a bash script),
//! `pytest` (every `conftest.py` it imports before any test), `pip install
//! .` (the `setup.py` of each local folder it installs), `lefthook run HOOK`
//! and `overcommit --run` (their hooks' commands), `act` (the `run:` steps of
//! the workflows an event triggers).
//!
//! Each gives the code as shell text ([`Text`]): a script as itself, Python
//! as `python3 -c TEXT` (judged as the same code given inline), a hook's or
//! a step's command line as it is, with the runner's placeholders as what
//! only the run knows.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::super::places::ProjectFile;
use super::super::{read_script, Found};
use super::{file_text, first_operand, tree, unknown_between, Text, MAX_ENTRIES, UNKNOWN};

/// Folders walked below the start for `conftest.py` files.
const MAX_TEST_DIRS: usize = 64;
/// Workflow files read for one `act`.
const MAX_WORKFLOWS: usize = 32;

/// A shell script the runner sources or runs (direnv's `.envrc`): the
/// nearest of the row's files from the folder the command names (`direnv
/// exec DIR`, `direnv allow PATH`) or its own.
pub(super) fn script(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let start = match first_operand(args) {
        Some(p) if p.contains(['$', '`']) => return Found::Unknown,
        Some(p) => dir.join(p),
        None => dir.to_path_buf(),
    };
    let named = super::super::code_file(&start).then(|| start.to_string_lossy().into_owned());
    let from = if start.is_dir() { start.as_path() } else { dir };
    let (path, text) = match file_text(from, row.files, named.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    let prelude = if path.file_name().is_some_and(|n| n == ".envrc") {
        DIRENV_STDLIB
    } else {
        ""
    };
    out.line(&format!("{prelude}{text}"), false);
    out.found(path, String::new())
}

/// direnv's standard library, which an `.envrc` calls (`use nix`, `layout
/// python`, `PATH_add bin`): functions of direnv's own, not programs found
/// on the PATH. (The files they load, `source_env`'s and `dotenv`'s, are
/// not read.)
const DIRENV_STDLIB: &str = "use() { :; }; layout() { :; }; PATH_add() { :; }; path_add() { :; }; \
MANPATH_add() { :; }; load_prefix() { :; }; dotenv() { :; }; dotenv_if_exists() { :; }; \
source_env() { :; }; source_env_if_exists() { :; }; source_up() { :; }; \
source_up_if_exists() { :; }; source_url() { :; }; fetchurl() { :; }; watch_file() { :; }; \
watch_dir() { :; }; env_vars_required() { :; }; log_status() { :; }; log_error() { :; }; \
has() { :; }; expand_path() { :; }; find_up() { :; }; user_rel_path() { :; }; \
strict_env() { :; }; unstrict_env() { :; }; on_git_branch() { :; }; rvm() { :; }; \
direnv_layout_dir() { :; }; semver_search() { :; }; use_nix() { :; }; use_flake() { :; }\n";

/// Python code run as `python3 -c TEXT`, in `dir`.
fn python(out: &mut Text, dir: &Path, text: &str) {
    out.line(
        &format!(
            "cd {} || exit 1\npython3 -c {}",
            crate::shell::quote(&dir.to_string_lossy()),
            crate::shell::quote(text)
        ),
        false,
    );
}

/// Folders pytest does not collect tests from (its `norecursedirs`, and
/// environments nobody writes tests in).
const NOT_COLLECTED: &[&str] = &[
    "build",
    "dist",
    "node_modules",
    "venv",
    "env",
    "site-packages",
    "__pycache__",
    "CVS",
    "_darcs",
    "{arch}",
];

/// Files that mark pytest's root folder (above it no `conftest.py` is read).
const PYTEST_ROOTS: &[&str] = &[
    "pytest.ini",
    ".pytest.ini",
    "pyproject.toml",
    "tox.ini",
    "setup.cfg",
    "setup.py",
    ".git",
];

/// `pytest [PATHS]`: every `conftest.py` it imports before any test runs:
/// those in the folders from the root folder down to each path, and those
/// in the folders it collects below. `--noconftest` imports none.
pub(super) fn conftest(args: &[String], dir: &Path) -> Found {
    let mut paths = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--noconftest" | "--version" | "-V" => return Found::Nothing,
            "-p" | "-c" | "-k" | "-m" | "-o" | "--rootdir" | "--confcutdir" | "--basetemp"
            | "--junitxml" | "--junit-xml" | "--ignore" | "--ignore-glob" | "--deselect" | "-W"
            | "--maxfail" | "--tb" | "-n" | "--numprocesses" | "--durations" | "-r"
            | "--log-level" | "--cov" | "--cov-report" | "--import-mode" | "--capture" => {
                it.next();
            }
            "--" => {
                paths.extend(it.by_ref().cloned());
                break;
            }
            s if s.starts_with('-') => {}
            s => paths.push(s.to_string()),
        }
    }
    if paths.is_empty() {
        paths.push(".".into());
    }
    let mut files: Vec<PathBuf> = Vec::new();
    for p in paths.iter().take(MAX_ENTRIES) {
        if p.contains(['$', '`']) {
            return Found::Unknown;
        }
        // `tests/test_x.py::test_y`: the file's folder.
        let p = p.split("::").next().unwrap_or(p);
        let target = dir.join(p);
        let start = if target.is_dir() {
            target.clone()
        } else {
            match target.parent() {
                Some(d) if d.is_dir() => d.to_path_buf(),
                _ => continue,
            }
        };
        for d in start.ancestors().take(super::MAX_CLIMB) {
            let c = d.join("conftest.py");
            if super::super::code_file(&c) && !files.contains(&c) {
                files.push(c);
            }
            if PYTEST_ROOTS.iter().any(|r| d.join(r).exists()) {
                break;
            }
        }
        if target.is_dir() && !conftests_below(&target, &mut files) {
            return Found::Unknown;
        }
    }
    python_files(files)
}

/// Add the `conftest.py` files in the folders below `dir` that pytest
/// collects; `false` past the bounds.
fn conftests_below(dir: &Path, files: &mut Vec<PathBuf>) -> bool {
    let mut dirs = vec![dir.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = dirs.pop() {
        seen += 1;
        if seen > MAX_TEST_DIRS {
            return false;
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        for n in names {
            if n.starts_with('.') || n.ends_with(".egg") || NOT_COLLECTED.contains(&n.as_str()) {
                continue;
            }
            let sub = d.join(&n);
            let c = sub.join("conftest.py");
            if super::super::code_file(&c) && !files.contains(&c) {
                files.push(c);
                if files.len() > MAX_ENTRIES {
                    return false;
                }
            }
            dirs.push(sub);
        }
    }
    true
}

/// Python files run, each in its folder: their text as `python3 -c`.
fn python_files(files: Vec<PathBuf>) -> Found {
    let Some(first) = files.first().cloned() else {
        return Found::Nothing;
    };
    let mut out = Text::new(first.parent().unwrap_or(Path::new("/")));
    for f in &files {
        match read_script(f, false) {
            Ok(Some(text)) => python(&mut out, f.parent().unwrap_or(Path::new("/")), &text),
            Ok(None) => {}
            Err(()) => return Found::Unknown,
        }
        if out.full() {
            return Found::Unknown;
        }
    }
    out.found(first, String::new())
}

/// `pip install .`, `pip install -e ../lib`, `pip wheel .`: the `setup.py`
/// of each local folder it builds (pip runs it to read the package's
/// metadata and to build it), and of those a requirements file names
/// (`-r requirements.txt` with `-e .`). A name from an index runs code
/// nobody here has (judged as installing a package).
pub(super) fn setup_py(args: &[String], dir: &Path) -> Found {
    let mut folders: Vec<String> = Vec::new();
    let mut requirements = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || attached.clone().or_else(|| it.next().cloned());
        match name {
            "-e" | "--editable" => folders.extend(value()),
            "-r" | "--requirement" => requirements.extend(value()),
            "-c" | "--constraint" | "-t" | "--target" | "-i" | "--index-url"
            | "--extra-index-url" | "--prefix" | "--root" | "--src" | "--upgrade-strategy"
            | "-f" | "--find-links" | "--python-version" | "--platform" | "--only-binary"
            | "--no-binary" | "-C" | "--config-settings" | "--progress-bar" | "--log"
            | "--cache-dir" | "--python" | "-w" | "--wheel-dir" | "-d" | "--dest" | "--report"
            | "--implementation" | "--abi" | "--trusted-host" | "--proxy" => {
                value();
            }
            n if n.starts_with('-') => {}
            n => folders.push(n.to_string()),
        }
    }
    for r in requirements.iter().take(8) {
        if r.contains(['$', '`']) {
            return Found::Unknown;
        }
        let Ok(Some(text)) = read_script(&dir.join(r), false) else {
            continue;
        };
        for line in text.lines() {
            let l = line.trim();
            let l = l
                .strip_prefix("-e ")
                .or_else(|| l.strip_prefix("--editable "))
                .unwrap_or(l)
                .trim();
            if local(l) {
                folders.push(l.to_string());
            }
        }
    }
    let mut files = Vec::new();
    for f in folders.iter().filter(|f| local(f)).take(MAX_ENTRIES) {
        if f.contains(['$', '`']) {
            return Found::Unknown;
        }
        // `.[dev]`: the folder with extras.
        let f = f.split('[').next().unwrap_or(f);
        let setup = dir.join(f).join("setup.py");
        if super::super::code_file(&setup) && !files.contains(&setup) {
            files.push(setup);
        }
    }
    python_files(files)
}

/// A requirement that is a local folder (`.`, `./lib`, `../x`, `/src/x`,
/// `.[dev]`), not a name from an index.
fn local(r: &str) -> bool {
    r == "."
        || r.starts_with("./")
        || r.starts_with("../")
        || r.starts_with('/')
        || r.starts_with(".[")
}

/// The placeholders lefthook fills in a command (the files it works on, the
/// hook's arguments): what only the run knows.
const LEFTHOOK_TEMPLATES: &[&str] = &[
    "{files}",
    "{staged_files}",
    "{push_files}",
    "{all_files}",
    "{cmd}",
    "{lefthook_job_name}",
];

/// `lefthook run HOOK [--commands a,b]`: the hook's commands (`run`), jobs
/// and scripts (`.lefthook/HOOK/NAME`, run by their `runner`), each from
/// the repository's root or its `root`.
pub(super) fn lefthook(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut hook = None;
    let mut only: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || attached.clone().or_else(|| it.next().cloned());
        match name {
            "--commands" | "--command" | "--jobs" | "--job" | "--tags" => {
                only.extend(value().unwrap_or_default().split(',').map(str::to_string));
            }
            "--files" | "--file" | "--exclude" => {
                value();
            }
            n if n.starts_with('-') => {}
            n if hook.is_none() => hook = Some(n.to_string()),
            _ => {}
        }
    }
    let Some(hook) = hook else {
        return Found::Nothing;
    };
    let (path, text) = match file_text(dir, row.files, None) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    let Some(tree) = tree::parse(name.as_deref().unwrap_or(""), &text) else {
        return Found::Nothing;
    };
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let Some(spec) = tree.get(&hook) else {
        return Found::Nothing;
    };
    let mut out = Text::new(&root);
    let wanted = |n: &str| only.is_empty() || only.iter().any(|o| o == n);
    if let Some(Value::Object(cmds)) = spec.get("commands") {
        for (_, c) in cmds.iter().take(MAX_ENTRIES).filter(|(n, _)| wanted(n)) {
            lefthook_job(&mut out, &root, &hook, c);
        }
    }
    if let Some(Value::Object(scripts)) = spec.get("scripts") {
        for (n, s) in scripts.iter().take(MAX_ENTRIES).filter(|(n, _)| wanted(n)) {
            let runner = s.get("runner").and_then(Value::as_str).unwrap_or("");
            lefthook_script(&mut out, &root, &hook, n, runner);
        }
    }
    if let Some(Value::Array(jobs)) = spec.get("jobs") {
        for j in jobs.iter().take(MAX_ENTRIES) {
            let n = j.get("name").and_then(Value::as_str);
            if n.is_none_or(wanted) || only.is_empty() {
                lefthook_job(&mut out, &root, &hook, j);
            }
        }
    }
    out.found(path, hook)
}

/// One lefthook command or job: its `run` line, its `script`, or the jobs
/// of its `group`.
fn lefthook_job(out: &mut Text, root: &Path, hook: &str, job: &Value) {
    let at = match job.get("root").and_then(Value::as_str) {
        Some(r) => root.join(r),
        None => root.to_path_buf(),
    };
    if let Some(run) = job.get("run").and_then(Value::as_str) {
        let mut line = run.to_string();
        for t in LEFTHOOK_TEMPLATES {
            line = line.replace(t, UNKNOWN);
        }
        out.line(
            &format!(
                "cd {} || exit 1\n{line}",
                crate::shell::quote(&at.to_string_lossy())
            ),
            false,
        );
    }
    if let Some(script) = job.get("script").and_then(Value::as_str) {
        let runner = job.get("runner").and_then(Value::as_str).unwrap_or("");
        lefthook_script(out, root, hook, script, runner);
    }
    if let Some(Value::Array(jobs)) = job.get("group").and_then(|g| g.get("jobs")) {
        for j in jobs.iter().take(MAX_ENTRIES) {
            lefthook_job(out, root, hook, j);
        }
    }
}

/// A lefthook script: `.lefthook/HOOK/NAME`, run by its runner (or by its
/// path).
fn lefthook_script(out: &mut Text, root: &Path, hook: &str, name: &str, runner: &str) {
    let path = root.join(".lefthook").join(hook).join(name);
    let path = crate::shell::quote(&path.to_string_lossy());
    let line = if runner.is_empty() {
        path
    } else {
        format!("{runner} {path}")
    };
    out.line(&line, false);
}

/// overcommit's hook types and the git hooks they are.
const OVERCOMMIT_TYPES: &[&str] = &[
    "PreCommit",
    "CommitMsg",
    "PostCheckout",
    "PostCommit",
    "PostMerge",
    "PostRewrite",
    "PrePush",
    "PreRebase",
    "PrepareCommitMsg",
];

/// `overcommit --run [TYPE]`: the `command` of every hook of the
/// configuration (the pre-commit ones unless a type is named).
pub(super) fn overcommit(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    if !args.iter().any(|a| a == "--run" || a == "-r") {
        return Found::Nothing;
    }
    let kind = first_operand(args).map_or("PreCommit".to_string(), |k| {
        let k = k.replace(['-', '_'], "");
        OVERCOMMIT_TYPES
            .iter()
            .find(|t| t.eq_ignore_ascii_case(&k))
            .map_or_else(|| "PreCommit".to_string(), |t| (*t).to_string())
    });
    let (path, text) = match file_text(dir, row.files, None) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let Some(tree) = tree::parse(".overcommit.yml", &text) else {
        return Found::Nothing;
    };
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut out = Text::new(&root);
    if let Some(Value::Object(hooks)) = tree.get(&kind) {
        for (_, h) in hooks.iter().take(MAX_ENTRIES) {
            if h.get("enabled") == Some(&Value::Bool(false)) {
                continue;
            }
            match h.get("command") {
                Some(Value::String(s)) => out.line(s, false),
                Some(Value::Array(words)) => {
                    let words: Vec<String> = words
                        .iter()
                        .filter_map(Value::as_str)
                        .map(crate::shell::quote)
                        .collect();
                    out.line(&words.join(" "), false);
                }
                _ => {}
            }
        }
    }
    out.found(path, kind)
}

/// `act [EVENT]`: the `run:` steps of the jobs of every workflow
/// (`.github/workflows/*.yml`, or `-W PATH`) the event (`push` unless
/// named) triggers, or of the job `-j` names. act runs a step in a
/// container unless a platform maps to `-self-hosted`, where it runs on
/// this machine: in a container a step may not reach what it names, so
/// steps are what the run may do (a deny asks) unless self-hosted.
pub(super) fn workflow(args: &[String], dir: &Path) -> Found {
    let mut event = None;
    let mut job = None;
    let mut named = None;
    let mut host = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || attached.clone().or_else(|| it.next().cloned());
        match name {
            "-l" | "--list" | "-n" | "--dryrun" | "-g" | "--graph" | "-h" | "--help"
            | "--version" | "--validate" | "--bug-report" => return Found::Nothing,
            "-j" | "--job" => job = value(),
            "-W" | "--workflows" => named = value(),
            "-P" | "--platform" => host |= value().is_some_and(|v| v.ends_with("-self-hosted")),
            "-s"
            | "--secret"
            | "--var"
            | "-e"
            | "--eventpath"
            | "--env"
            | "--env-file"
            | "--secret-file"
            | "--var-file"
            | "--input"
            | "--input-file"
            | "-C"
            | "--directory"
            | "-a"
            | "--actor"
            | "--artifact-server-path"
            | "--cache-server-path"
            | "--container-architecture"
            | "--container-options"
            | "--matrix"
            | "--network"
            | "--remote-name"
            | "--defaultbranch"
            | "--github-instance" => {
                value();
            }
            n if n.starts_with('-') => {}
            n if event.is_none() => event = Some(n.to_string()),
            _ => {}
        }
    }
    let event = event.unwrap_or_else(|| "push".into());
    let files = match named {
        Some(n) if n.contains(['$', '`']) => return Found::Unknown,
        Some(n) => {
            let p = dir.join(n);
            if p.is_dir() {
                yaml_files(&p)
            } else {
                vec![p]
            }
        }
        None => match dir
            .ancestors()
            .take(super::MAX_CLIMB)
            .map(|d| d.join(".github").join("workflows"))
            .find(|p| p.is_dir())
        {
            Some(p) => yaml_files(&p),
            None => return Found::Nothing,
        },
    };
    if files.len() > MAX_WORKFLOWS {
        return Found::Unknown;
    }
    let root = files
        .first()
        .and_then(|f| f.ancestors().nth(3))
        .unwrap_or(dir)
        .to_path_buf();
    let mut out = Text::new(&root);
    let mut first = None;
    for f in &files {
        let text = match read_script(f, false) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(()) => return Found::Unknown,
        };
        let Some(tree) = tree::parse("workflow.yml", &text) else {
            continue;
        };
        if job.is_none() && !triggers(&tree, &event) {
            continue;
        }
        let Some(Value::Object(jobs)) = tree.get("jobs") else {
            continue;
        };
        for (name, j) in jobs.iter().take(MAX_ENTRIES) {
            if job.as_deref().is_some_and(|n| n != name) {
                continue;
            }
            let Some(Value::Array(steps)) = j.get("steps") else {
                continue;
            };
            for s in steps.iter().take(MAX_ENTRIES) {
                let Some(run) = s.get("run").and_then(Value::as_str) else {
                    continue;
                };
                let at = match s.get("working-directory").and_then(Value::as_str) {
                    Some(w) => root.join(w),
                    None => root.clone(),
                };
                first.get_or_insert_with(|| f.clone());
                out.line(
                    &format!(
                        "cd {} || exit 1\n{}",
                        crate::shell::quote(&at.to_string_lossy()),
                        unknown_between(run, "${{")
                    ),
                    !host,
                );
                if out.full() {
                    return Found::Unknown;
                }
            }
        }
    }
    match first {
        Some(path) => out.found(path, event),
        None => Found::Nothing,
    }
}

/// The `.yml`/`.yaml` files of a folder, sorted.
fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "yml" || x == "yaml"))
        .take(MAX_WORKFLOWS + 1)
        .collect();
    out.sort();
    out
}

/// Does the workflow's `on` name the event?
fn triggers(tree: &Value, event: &str) -> bool {
    // YAML 1.1 reads a bare `on` key as true.
    let on = tree.get("on").or_else(|| tree.get("true"));
    match on {
        Some(Value::String(s)) => s == event,
        Some(Value::Array(a)) => a.iter().any(|e| e.as_str() == Some(event)),
        Some(Value::Object(m)) => m.contains_key(event),
        _ => false,
    }
}
