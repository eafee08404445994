//! Commands a repository's own git configuration runs.
//!
//! git reads `.git/config` of the repository it runs in, and some of its keys
//! are commands (`core.fsmonitor` runs at every `git status`, `core.pager`,
//! `diff.external`, filters, aliases with `!`, …; the places are the git
//! `config` rows of `policies/data/code-places.toml`). A repository handed to the
//! agent (an archive, a copy, a folder another tool prepared) can carry such a
//! file, so the text it names is read here and judged as the commands it is,
//! as if it were given with `git -c KEY=VALUE`: the code is on disk, not
//! unseen.
//!
//! What is read: for each `git` command whose directory is known (the event's
//! `cwd`, then `cd` and `git -C`), the first `.git` found going up, its
//! `config` (a `.git` file's `gitdir:` and that folder's `commondir` are
//! followed), and files it includes (`include.path`, two levels deep). At
//! most [`MAX_CONFIG_BYTES`] of each file. The user's own files
//! (`~/.gitconfig`, `/etc/gitconfig`) are not read: what the user set is not
//! the repository's doing.

use std::path::{Path, PathBuf};

use super::places;
use super::SimpleCommand;
use crate::shell::value::Value;

/// Bytes read of one configuration file.
pub const MAX_CONFIG_BYTES: u64 = 64 * 1024;
/// Folders looked at going up for a `.git`.
const MAX_UP: usize = 64;
/// Code-taking keys judged per repository.
const MAX_KEYS: usize = 32;

/// Add, after each `git` command of `cmds` that runs in a repository whose
/// configuration holds code, the commands that code runs (their `via` names
/// the key and the file). `cwd` is the event's directory.
pub fn add_repository_code(cmds: &mut Vec<SimpleCommand>, cwd: &str) {
    written_configuration(cmds, cwd);
    add_configured_code(cmds, "git", cwd, |c| {
        let mut extra: Vec<SimpleCommand> = git_dir_of(c, cwd)
            .map(|dir| repository_code(c, &dir))
            .unwrap_or_default();
        extra.extend(named_config_code(c, cwd));
        extra
    });
}

/// A `git` command that runs after the same line wrote a configuration file
/// it reads (`printf '[alias]\n up = !…' >> .git/config && git up`, the same
/// into `~/.gitconfig` or the file `GIT_CONFIG_GLOBAL` names) runs what the
/// line wrote, not what is on disk now: unknown code ([`Code::Dynamic`]).
fn written_configuration(cmds: &mut [SimpleCommand], cwd: &str) {
    if !cwd.starts_with('/') || !cmds.iter().any(|c| c.program == "git") {
        return;
    }
    let norm = |p: &Path| crate::os::files::lexical_normalize(p);
    let written: Vec<PathBuf> = super::script_files::written_files(cmds, cwd, true)
        .iter()
        .map(|p| norm(p))
        .collect();
    if written.is_empty() {
        return;
    }
    let home = std::env::var("HOME").unwrap_or_default();
    let mut user: Vec<PathBuf> = Vec::new();
    if home.starts_with('/') {
        user.push(Path::new(&home).join(".gitconfig"));
        user.push(Path::new(&home).join(".config/git/config"));
    }
    for c in cmds
        .iter_mut()
        .filter(|c| c.program == "git" && !c.program_unknown)
    {
        // Every folder it may start in (`cd sub && …; git up`: either).
        let dirs: Vec<PathBuf> = c
            .cwd
            .0
            .iter()
            .filter_map(|s| super::script_files::folder(&Value::one(s.clone()), cwd))
            .map(PathBuf::from)
            .collect();
        let mut read: Vec<PathBuf> = user.clone();
        for dir in &dirs {
            read.extend(git_dir_from(c, dir.clone()).and_then(|d| config_file(&d)));
            for var in CONFIG_VARIABLES {
                if let Some((_, file)) = c.assignments.iter().rev().find(|(k, _)| k == var) {
                    read.push(dir.join(file));
                }
            }
        }
        if read.iter().any(|r| written.contains(&norm(r))) {
            c.code = Some(super::Code::Dynamic);
        }
    }
}

/// Add, after each command of `cmds` that runs `program` (known, not a
/// variable), the commands `code` finds in that program's configuration
/// (git's here, cargo's in `cargo_config`). `cwd` is the event's directory;
/// a relative one reads nothing.
pub(super) fn add_configured_code(
    cmds: &mut Vec<SimpleCommand>,
    program: &str,
    cwd: &str,
    code: impl Fn(&SimpleCommand) -> Vec<SimpleCommand>,
) {
    if !cwd.starts_with('/') || !cmds.iter().any(|c| c.program == program) {
        return;
    }
    let mut out = Vec::with_capacity(cmds.len());
    for c in cmds.drain(..) {
        let extra = if c.program == program && !c.program_unknown {
            code(&c)
        } else {
            Vec::new()
        };
        out.push(c);
        out.extend(extra);
    }
    *cmds = out;
}

/// The folder a `git` command runs in, when known: its directory, then
/// `-C DIR` options.
fn git_dir_of(c: &SimpleCommand, cwd: &str) -> Option<PathBuf> {
    git_dir_from(c, PathBuf::from(super::script_files::folder(&c.cwd, cwd)?))
}

/// The folder a `git` command started in `dir` runs in: `dir`, then its
/// `-C DIR` options.
fn git_dir_from(c: &SimpleCommand, mut dir: PathBuf) -> Option<PathBuf> {
    let mut args = c.args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-C" => {
                let d = args.next()?;
                dir = dir.join(d);
            }
            // Options before the subcommand that take a value.
            "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" => {
                args.next();
            }
            s if s.starts_with('-') => {}
            _ => break,
        }
    }
    Some(dir)
}

/// The variables that name a configuration file git reads instead of the
/// user's or the system's (`GIT_CONFIG_GLOBAL=FILE git …`): set by the
/// command, they are its doing, read like the repository's.
const CONFIG_VARIABLES: &[&str] = &["GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"];

/// The commands the code-taking keys of a configuration file the command
/// names through [`CONFIG_VARIABLES`] run (the file read from disk, relative
/// to the command's folder).
fn named_config_code(c: &SimpleCommand, cwd: &str) -> Vec<SimpleCommand> {
    let mut out = Vec::new();
    for var in CONFIG_VARIABLES {
        let Some((_, file)) = c.assignments.iter().rev().find(|(k, _)| k == var) else {
            continue;
        };
        if file.is_empty() || file == "/dev/null" || file.contains(['$', '`']) {
            continue;
        }
        let Some(dir) = super::script_files::folder(&c.cwd, cwd) else {
            continue;
        };
        let home = std::env::var("HOME").unwrap_or_default();
        let path = match file.strip_prefix("~/") {
            Some(rest) if !home.is_empty() => Path::new(&home).join(rest),
            _ => Path::new(&dir).join(file),
        };
        let label = format!("{} (configuration named by {var})", path.display());
        out.extend(config_code(c, &path, &label));
    }
    out
}

/// The commands the code-taking keys of the configuration of the repository
/// `dir` is in run, as `git -c KEY=VALUE` would run them.
fn repository_code(c: &SimpleCommand, dir: &Path) -> Vec<SimpleCommand> {
    let Some(config) = config_file(dir) else {
        return Vec::new();
    };
    let label = format!("{} (repository configuration)", config.display());
    config_code(c, &config, &label)
}

/// The commands the code-taking keys of the configuration file `config`
/// run, as `git -c KEY=VALUE` would run them; `label` heads their `via`.
fn config_code(c: &SimpleCommand, config: &Path, label: &str) -> Vec<SimpleCommand> {
    let mut entries = Vec::new();
    read_config(config, 0, &mut entries);
    // An alias runs only when it is called: the one this command calls.
    let sub = c.operands.first().map(|s| format!("alias.{s}"));
    let code: Vec<&(String, String)> = entries
        .iter()
        .filter(|(k, _)| !k.starts_with("alias.") || sub.as_ref() == Some(k))
        .filter(|(k, _)| places::config("git", k).is_some())
        .take(MAX_KEYS)
        .collect();
    if code.is_empty() {
        return Vec::new();
    }
    // `git -c K=V … [ALIAS]`: the alias called is followed.
    let mut script = String::from("git");
    for (k, v) in &code {
        script.push_str(" -c ");
        script.push_str(&crate::shell::quote(&format!("{k}={v}")));
    }
    if let Some(alias) = code.iter().find_map(|(k, _)| k.strip_prefix("alias.")) {
        script.push(' ');
        script.push_str(&crate::shell::quote(alias));
    }
    let label = label.to_string();
    match super::parse(&script) {
        Ok(found) => found
            .into_iter()
            .filter(|f| !f.via.is_empty())
            .map(|mut f| {
                f.offset = c.offset;
                f.via.insert(0, label.clone());
                f.via.splice(1..1, c.via.iter().cloned());
                f
            })
            .collect(),
        // Code that does not parse runs anyway: the synthetic command says
        // so as unknown code of an `eval`.
        Err(_) => match super::parse("eval \"$REPOSITORY_CONFIG\"") {
            Ok(found) => found
                .into_iter()
                .map(|mut f| {
                    f.offset = c.offset;
                    f.via.insert(0, label.clone());
                    f
                })
                .collect(),
            Err(_) => Vec::new(),
        },
    }
}

/// The value of configuration `key` (lowercase section and name) in the
/// repository a `git` command in the folder `dir` runs in (its `-C` options
/// followed, includes read), the last one winning.
pub(super) fn setting(c: &SimpleCommand, dir: &Path, key: &str) -> Option<String> {
    let dir = git_dir_of(c, &dir.to_string_lossy())?;
    let config = config_file(&dir)?;
    let mut entries = Vec::new();
    read_config(&config, 0, &mut entries);
    entries
        .into_iter()
        .rev()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v)
}

/// The folder git runs hooks from for a `git` command in the folder `dir`
/// (its `-C` options followed), and the top of the working tree they run in:
/// `core.hooksPath` of the repository's configuration (relative to the top,
/// `~/` the home folder), else the `hooks` folder of its git folder.
pub(super) fn hooks_folder(c: &SimpleCommand, dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let dir = git_dir_of(c, &dir.to_string_lossy())?;
    let (_, common) = git_dirs(&dir)?;
    let top = work_tree_top(&dir)?;
    let mut entries = Vec::new();
    read_config(&common.join("config"), 0, &mut entries);
    // `git -c core.hooksPath=DIR …` comes after the files.
    let mut args = c.args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-c" => {
                if let Some((k, v)) = args.next().and_then(|kv| kv.split_once('=')) {
                    entries.push((k.to_ascii_lowercase(), v.to_string()));
                }
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" => {
                args.next();
            }
            s if s.starts_with('-') => {}
            _ => break,
        }
    }
    let set = entries
        .iter()
        .rev()
        .find(|(k, _)| k == "core.hookspath")
        .map(|(_, v)| v.clone());
    let hooks = match set {
        Some(v) if v.contains(['$', '`']) => return None,
        Some(v) => match v.strip_prefix("~/") {
            Some(rest) => PathBuf::from(std::env::var("HOME").ok()?).join(rest),
            None => top.join(v),
        },
        None => common.join("hooks"),
    };
    Some((hooks, top))
}

/// The top of the working tree `dir` is in: the first folder going up that
/// holds a `.git` (a folder, or a worktree's file).
fn work_tree_top(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .take(MAX_UP)
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// The configuration file of the repository `dir` is in (see [`git_dirs`]).
fn config_file(dir: &Path) -> Option<PathBuf> {
    git_dirs(dir).map(|(_, common)| common.join("config"))
}

/// The git folders of the repository `dir` is in: the first `.git` going up
/// (a folder, or a file naming the folder with `gitdir:`; a worktree's own
/// `HEAD` is there), and the common folder a worktree's names (its `config`).
fn git_dirs(dir: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut d = Some(dir);
    for _ in 0..MAX_UP {
        let here = d?;
        let dot_git = here.join(".git");
        if let Ok(meta) = std::fs::metadata(&dot_git) {
            let git_dir = if meta.is_dir() {
                dot_git
            } else {
                let text = read_limited(&dot_git)?;
                let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
                here.join(target)
            };
            let common = read_limited(&git_dir.join("commondir"))
                .map(|t| git_dir.join(t.trim()))
                .unwrap_or_else(|| git_dir.clone());
            return Some((git_dir, common));
        }
        d = here.parent();
    }
    None
}

/// Options of `git push` that push other refs than the current branch's
/// (or print what they would push): the command names its refs.
const PUSH_NAMES_ITS_REFS: &[&str] = &[
    "--all",
    "--branches",
    "--mirror",
    "--tags",
    "--follow-tags",
    "-d",
    "--delete",
    "--prune",
];

/// Options of `git push` that take a value as the next word.
const PUSH_VALUED: &[&str] = &[
    "--repo",
    "--receive-pack",
    "--exec",
    "-o",
    "--push-option",
    "--signed",
];

/// Name the refspec of each `git push` of `cmds` that names none, as git
/// finds it: the current branch (the repository's `HEAD`) pushed to its
/// upstream (`branch.NAME.merge`, else the same name) on its remote
/// (`branch.NAME.pushRemote`, `remote.pushDefault`, `branch.NAME.remote`,
/// else `origin`). `git push --force` is then judged as `git push --force
/// origin main` when the branch is `main`, and as a push of the feature
/// branch it is on otherwise. Nothing changes when the branch is not known
/// (no repository found, a detached `HEAD`, a folder only known at run
/// time): the rules judge the push as naming no branch. `cwd` is the event's
/// directory.
pub fn name_push_refspecs(cmds: &mut [SimpleCommand], cwd: &str) {
    if !cwd.starts_with('/') {
        return;
    }
    for c in cmds.iter_mut() {
        if c.program != "git" || c.program_unknown {
            continue;
        }
        let Some(push_at) = c.args.iter().position(|a| a == "push") else {
            continue;
        };
        // `push` must be the subcommand: only options before it.
        let before = &c.args[..push_at];
        let mut k = 0;
        let mut is_sub = true;
        while k < before.len() {
            match before[k].as_str() {
                "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" => {
                    k += 2
                }
                s if s.starts_with('-') => k += 1,
                _ => {
                    is_sub = false;
                    break;
                }
            }
        }
        if !is_sub || k != push_at {
            continue;
        }
        let rest = &c.args[push_at + 1..];
        let mut operands = 0;
        let mut skip = false;
        let mut names_refs = false;
        for a in rest {
            if skip {
                skip = false;
                continue;
            }
            if PUSH_VALUED.contains(&a.as_str()) {
                skip = true;
            } else if PUSH_NAMES_ITS_REFS.contains(&a.as_str()) || a == "--" {
                names_refs = true;
            } else if !a.starts_with('-') {
                operands += 1;
            }
        }
        if names_refs || operands > 1 || rest.iter().any(|a| a.contains(['$', '`'])) {
            continue;
        }
        let Some(dir) = git_dir_of(c, cwd) else {
            continue;
        };
        let Some((git_dir, common)) = git_dirs(&dir) else {
            continue;
        };
        let Some(branch) = read_limited(&git_dir.join("HEAD")).and_then(|h| {
            h.trim()
                .strip_prefix("ref: refs/heads/")
                .map(str::to_string)
        }) else {
            continue;
        };
        let mut entries = Vec::new();
        read_config(&common.join("config"), 0, &mut entries);
        let get = |key: &str| {
            entries
                .iter()
                .rev()
                .find(|(k, _)| k.eq_ignore_ascii_case(key) || *k == key)
                .map(|(_, v)| v.clone())
        };
        let remote = get(&format!("branch.{branch}.pushremote"))
            .or_else(|| get("remote.pushdefault"))
            .or_else(|| get(&format!("branch.{branch}.remote")))
            .unwrap_or_else(|| "origin".to_string());
        let upstream = get(&format!("branch.{branch}.merge"))
            .map(|m| m.strip_prefix("refs/heads/").unwrap_or(&m).to_string())
            .unwrap_or_else(|| branch.clone());
        let refspec = if upstream == branch {
            branch
        } else {
            format!("{branch}:{upstream}")
        };
        let mut add = Vec::new();
        if operands == 0 {
            add.push(remote);
        }
        add.push(refspec);
        for a in add {
            c.values.push(crate::shell::value::Value::text(&a));
            c.operand_values.push(crate::shell::value::Value::text(&a));
            c.operands.push(a.clone());
            c.args.push(a);
        }
    }
}

/// The text of a configuration file (at most [`MAX_CONFIG_BYTES`]; git's and
/// cargo's alike); a FIFO, device or socket is not read (and not waited on).
pub(crate) fn read_limited(path: &Path) -> Option<String> {
    use std::io::Read;
    let f = crate::os::files::open_regular(path).ok()?;
    let mut buf = Vec::new();
    f.take(MAX_CONFIG_BYTES).read_to_end(&mut buf).ok()?;
    Some(String::from_utf8_lossy(&buf).into_owned())
}

/// The `key = value` entries of a git configuration file, keys as git names
/// them (`section.subsection.key`, section and key lowercase), included
/// files' in their place.
fn read_config(path: &Path, depth: usize, out: &mut Vec<(String, String)>) {
    let Some(text) = read_limited(path) else {
        return;
    };
    for (k, v) in parse_config(&text) {
        if k == "include.path" || (k.starts_with("includeif.") && k.ends_with(".path")) {
            if depth < 2 {
                let inc = path.parent().unwrap_or(Path::new("/")).join(&v);
                read_config(&inc, depth + 1, out);
            }
            continue;
        }
        out.push((k, v));
    }
}

/// Parse git's configuration syntax (sections, `"…"` values with `\`
/// escapes, `#`/`;` comments, lines continued with `\`).
fn parse_config(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut section = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        if let Some(rest) = t.strip_prefix('[') {
            let Some((head, _)) = rest.split_once(']') else {
                continue;
            };
            section = match head.split_once(char::is_whitespace) {
                Some((name, sub)) => {
                    let sub = sub.trim().trim_matches('"').replace("\\\"", "\"");
                    format!("{}.{sub}", name.to_ascii_lowercase())
                }
                None => match head.split_once('.') {
                    Some((name, sub)) => format!("{}.{}", name.to_ascii_lowercase(), sub),
                    None => head.to_ascii_lowercase(),
                },
            };
            continue;
        }
        if t.is_empty() || t.starts_with(['#', ';']) || section.is_empty() {
            continue;
        }
        let (name, raw) = match t.split_once('=') {
            Some((n, v)) => (n.trim(), v),
            None => (t.trim(), ""),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            continue;
        }
        let mut raw = raw.to_string();
        while raw.ends_with('\\') && !raw.ends_with("\\\\") {
            raw.pop();
            match lines.next() {
                Some(next) => raw.push_str(next),
                None => break,
            }
        }
        let value = if t.contains('=') {
            value(&raw)
        } else {
            "true".to_string()
        };
        out.push((format!("{section}.{}", name.to_ascii_lowercase()), value));
    }
    out
}

/// A value as git reads it: quotes removed, escapes decoded, a comment
/// outside quotes dropped, outer blanks trimmed.
fn value(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('b') => {
                    out.pop();
                }
                Some(o) => out.push(o),
                None => {}
            },
            '#' | ';' if !quoted => break,
            c => out.push(c),
        }
    }
    out.trim_end().to_string()
}

/// Git's commands that replace the working tree's files (`stash`, `switch`
/// and `checkout` to another commit, `merge`, `rebase`, `cherry-pick`,
/// `revert`, `reset --keep|--merge|--hard`, `read-tree -u`): git is asked
/// which files they would put back, replace or take away
/// ([`crate::os::git::WorkTree`]), and those on disk now whose text names
/// hookrules (a host's settings or hook file that registers it) or that lie
/// in a policy folder ([`guard_file`]) are the command's
/// [`SimpleCommand::replaced`]: the rules judge them as any other
/// replacement of the files that switch the guard on (`git stash -u` takes
/// an untracked `.claude/settings.json` away; `git switch` to a branch
/// without it removes a tracked one), and so are the files `decides_hooks`
/// (given a path relative to the work tree's top) names whatever their text
/// (a merge that brings a `.claude/settings.local.json` saying
/// `"disableAllHooks": true`). Other files are left out, so a branch switch
/// that changes other files is no write the guard asks about. Nothing when
/// git cannot answer in time, or a word the answer depends on is not known
/// before the command runs.
pub fn name_checked_out(cmds: &mut [SimpleCommand], cwd: &str, decides_hooks: fn(&Path) -> bool) {
    if !cwd.starts_with('/') {
        return;
    }
    for c in cmds.iter_mut() {
        if c.program != "git" || c.program_unknown {
            continue;
        }
        let Some(sub) = subcommand_of(c) else {
            continue;
        };
        let Some((queries, worktree)) =
            checkout_queries(c, &sub).filter(|(q, w)| !q.is_empty() || *w)
        else {
            continue;
        };
        if c.args
            .iter()
            .any(|a| a.starts_with("--git-dir") || a.starts_with("--work-tree"))
        {
            continue;
        }
        let Some(dir) = git_dir_of(c, cwd) else {
            continue;
        };
        let Some(tree) = crate::os::git::WorkTree::open(&dir) else {
            continue;
        };
        let Some(mut files) = tree.listed(&queries) else {
            continue;
        };
        let top = tree.top().to_path_buf();
        let guarded = |f: &Path| guard_file(f) || f.strip_prefix(&top).is_ok_and(decides_hooks);
        if worktree {
            let Some(changed) = tree.changed_from_head(guarded) else {
                continue;
            };
            files.extend(changed);
        }
        c.replaced = files
            .into_iter()
            .filter(|f| guarded(f))
            .filter_map(|f| f.to_str().map(str::to_string))
            .collect();
        c.replaced.sort();
        c.replaced.dedup();
    }
}

/// A git command's subcommand: its first word after the options before it
/// (and their values).
fn subcommand_of(c: &SimpleCommand) -> Option<String> {
    let mut args = c.args.iter();
    while let Some(a) = args.next() {
        match a.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env" => {
                args.next();
            }
            s if s.starts_with('-') => {}
            s => return Some(s.to_string()),
        }
    }
    None
}

/// Is the file at `path` one git may not change unseen: a file that names
/// hookrules ([`names_hookrules`]), or one directly in a folder named
/// `hookrules`, as every policy file is (`.claude/hookrules/x.toml`,
/// `~/.config/hookrules/x.toml`, also where a link to one leads: a dotfiles
/// repository): a stash or a branch switch that puts back, adds or takes
/// away a policy changes what the guard decides. The rules judge each where
/// it lands (a policy folder is `guard_config`; a folder that merely shares
/// the name is not).
fn guard_file(path: &Path) -> bool {
    path.parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "hookrules")
        || names_hookrules(path)
}

/// Does the file at `path` name hookrules (its first [`MAX_CONFIG_BYTES`],
/// read by [`read_limited`], which never waits on a FIFO or a device)? The
/// one answer to "does this hook file switch hookrules on", for
/// `shell::reach::Wires` and for what git would replace here.
pub(crate) fn names_hookrules(path: &Path) -> bool {
    read_limited(path).is_some_and(|t| t.to_ascii_lowercase().contains("hookrules"))
}

/// What to ask git for the files a working-tree command changes: `diff
/// --name-only` between two commits, `ls-files` of what a stash takes, and
/// whether the tracked files changed since HEAD go too (a stash: compared by
/// [`crate::os::git::WorkTree::changed_from_head`], never by a diff against the
/// working tree, which would run a repository's clean filters). `None` when a
/// word the answer depends on is not known.
fn checkout_queries(c: &SimpleCommand, sub: &str) -> Option<(Vec<Vec<String>>, bool)> {
    let at = c.args.iter().position(|a| a == sub)?;
    let words: Vec<&str> = c
        .args
        .iter()
        .zip(&c.values)
        .skip(at + 1)
        .map(|(a, v)| v.literal().map(|_| a.as_str()))
        .collect::<Option<Vec<_>>>()?;
    // What differs between two commits, or between one and the working tree.
    let diff = |revs: &[&str]| -> Vec<String> {
        let mut d: Vec<String> = ["diff", "--name-only", "-z", "--no-renames"]
            .map(String::from)
            .to_vec();
        d.extend(revs.iter().map(|r| (*r).to_string()));
        d.push("--".into());
        d
    };
    let has = |o: &[&str]| words.iter().any(|w| o.contains(w));
    // Operands, without the values of the options that take one.
    let operands = |valued: &[&str]| -> Vec<String> {
        let mut out = Vec::new();
        let mut skip = false;
        for w in &words {
            if skip {
                skip = false;
            } else if *w == "--" {
                break;
            } else if valued.contains(w) {
                skip = true;
            } else if !w.starts_with('-') || *w == "-" {
                out.push(if *w == "-" {
                    "@{-1}".to_string()
                } else {
                    (*w).to_string()
                });
            }
        }
        out
    };
    let mut q = Vec::new();
    let mut worktree = false;
    match sub {
        "stash" => {
            let action = operands(&["-m", "--message", "--pathspec-from-file"]);
            match action.first().map(String::as_str) {
                None | Some("push" | "save") => {
                    worktree = true;
                    if has(&["-u", "--include-untracked", "-a", "--all"]) {
                        let mut ls: Vec<String> = ["ls-files", "-z", "--full-name", "--others"]
                            .map(String::from)
                            .to_vec();
                        if !has(&["-a", "--all"]) {
                            ls.push("--exclude-standard".into());
                        }
                        q.push(ls);
                    }
                }
                Some("pop" | "apply") => {
                    let s = action.get(1).cloned().unwrap_or_else(|| "stash@{0}".into());
                    q.push(diff(&[&format!("{s}^1"), &s]));
                    q.push(
                        ["ls-tree", "-r", "-z", "--name-only", &format!("{s}^3")]
                            .map(String::from)
                            .to_vec(),
                    );
                }
                _ => {}
            }
        }
        "switch" | "checkout" => {
            let valued = [
                "-c",
                "-C",
                "-b",
                "-B",
                "--create",
                "--force-create",
                "--orphan",
                "--conflict",
            ];
            // `git switch --orphan` empties the working tree of tracked
            // files; `git checkout --orphan NEW [START]` leaves it as a
            // checkout of START would (HEAD's: nothing changes).
            if sub == "switch" && has(&["--orphan"]) {
                q.push(["ls-files", "-z", "--full-name"].map(String::from).to_vec());
                return Some((q, worktree));
            }
            // `git checkout -- PATH…` is read as paths (by the caller).
            if sub == "checkout" && words.first() == Some(&"--") {
                return Some((q, worktree));
            }
            if let Some(to) = operands(&valued).first() {
                q.push(diff(&["HEAD", to]));
            }
        }
        "merge" | "rebase" => {
            let valued = [
                "-m",
                "-s",
                "-X",
                "--strategy",
                "--strategy-option",
                "--onto",
                "-F",
                "--file",
                "--exec",
                "-x",
            ];
            for to in operands(&valued) {
                q.push(diff(&[&format!("HEAD...{to}")]));
            }
            if let Some(onto) = words
                .iter()
                .position(|w| *w == "--onto")
                .and_then(|i| words.get(i + 1))
            {
                q.push(diff(&["HEAD", onto]));
            }
        }
        "cherry-pick" | "revert" => {
            for x in operands(&["-m", "--mainline", "-X", "--strategy-option", "--strategy"]) {
                if x.contains("..") {
                    q.push(diff(&[&x]));
                } else {
                    q.push(diff(&[&format!("{x}^"), &x]));
                }
            }
        }
        "reset" if has(&["--hard", "--keep", "--merge"]) => {
            let to = operands(&[])
                .first()
                .cloned()
                .unwrap_or_else(|| "HEAD".into());
            q.push(diff(&["HEAD", &to]));
            // and, with --hard, every tracked change made since HEAD
            worktree = has(&["--hard"]);
        }
        "read-tree" if has(&["-u"]) => {
            for t in operands(&["--prefix", "--index-output"]) {
                q.push(diff(&["HEAD", &t]));
            }
        }
        // A sparse checkout takes out of the working tree every tracked file
        // its patterns leave out (`set src`: `.claude/` goes), and puts back
        // what it then includes: any tracked file may come or go (`list`,
        // `check-rules` only read).
        "sparse-checkout"
            if operands(&[]).first().is_some_and(|a| {
                matches!(a.as_str(), "set" | "add" | "init" | "reapply" | "disable")
            }) =>
        {
            q.push(["ls-files", "-z", "--full-name"].map(String::from).to_vec());
        }
        _ => {}
    }
    Some((q, worktree))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configuration_syntax() {
        let text =
            "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"rm -rf ~\" ; a comment\n\
                    [alias]\n\tst = status\n\tx = !sh -c \\\"echo hi\\\"\n\
                    [filter \"lfs\"]\n\tsmudge = git-lfs smudge -- %f\n\
                    [Diff.Tool]\n\tCmd = a \\\n b\n\tbare\n";
        let got = parse_config(text);
        let want = [
            ("core.repositoryformatversion", "0"),
            ("core.fsmonitor", "rm -rf ~"),
            ("alias.st", "status"),
            ("alias.x", "!sh -c \"echo hi\""),
            ("filter.lfs.smudge", "git-lfs smudge -- %f"),
            ("diff.Tool.cmd", "a  b"),
            ("diff.Tool.bare", "true"),
        ];
        let want: Vec<(String, String)> = want
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(got, want);
    }
}
