//! git's autocorrect: an unknown subcommand runs as the command git corrects
//! it to.
//!
//! With `help.autocorrect` on (`immediate`, `prompt`, a negative number or a
//! delay in tenths of a second; `0`, `show`, `never`, false: off), git runs
//! `git psuh --force origin main` as `git push --force origin main`. The
//! setting comes from `-c help.autocorrect=…`, `--config-env`, the
//! `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` and
//! `GIT_CONFIG_PARAMETERS` variables the command sets, or the repository's
//! configuration (read as `repo_config` reads it; the user's own files are
//! not read, as there).
//!
//! Which command git picks is help.c's `help_unknown_cmd`: every command gets
//! a score, its weighted Damerau-Levenshtein distance from the typed word
//! (a swap costs 0, a substitution 2, an insertion 1, a deletion 3) plus 1,
//! or 0 when it is one of the common commands and starts with the typed
//! word; git runs the command with the best score when it is the only one
//! with that score and the score is under 7. [`add_autocorrected`] adds,
//! after each such git command, the command git runs instead (its `via`
//! says so), so every rule judges `push`. An alias the line defines (`-c
//! alias.X=…`) is a known command, not a typo.

use std::path::Path;

use super::SimpleCommand;

/// git 2.47's commands (`git help -a`, the commands without the guides).
#[rustfmt::skip]
const COMMANDS: &[&str] = &[
    "add", "am", "annotate", "apply", "archimport", "archive", "bisect", "blame", "branch", "bugreport", "bundle",
    "cat-file", "check-attr", "check-ignore", "check-mailmap", "check-ref-format", "checkout", "checkout-index",
    "cherry", "cherry-pick", "citool", "clean", "clone", "column", "commit", "commit-graph", "commit-tree", "config",
    "count-objects", "credential", "credential-cache", "credential-store", "cvsexportcommit", "cvsimport", "cvsserver",
    "daemon", "describe", "diagnose", "diff", "diff-files", "diff-index", "diff-tree", "difftool", "fast-export",
    "fast-import", "fetch", "fetch-pack", "filter-branch", "fmt-merge-msg", "for-each-ref", "for-each-repo",
    "format-patch", "fsck", "gc", "get-tar-commit-id", "gitk", "gitweb", "grep", "gui", "hash-object", "help", "hook",
    "http-backend", "imap-send", "index-pack", "init", "instaweb", "interpret-trailers", "log", "ls-files",
    "ls-remote", "ls-tree", "mailinfo", "mailsplit", "maintenance", "merge", "merge-base", "merge-file",
    "merge-index", "merge-one-file", "merge-tree", "mergetool", "mktag", "mktree", "multi-pack-index", "mv",
    "name-rev", "notes", "p4", "pack-objects", "pack-redundant", "pack-refs", "patch-id", "prune", "prune-packed",
    "pull", "push", "quiltimport", "range-diff", "read-tree", "rebase", "reflog", "refs", "remote", "repack",
    "replace", "replay", "request-pull", "rerere", "reset", "restore", "rev-list", "rev-parse", "revert", "rm",
    "scalar", "send-email", "send-pack", "sh-i18n", "sh-setup", "shortlog", "show", "show-branch", "show-index",
    "show-ref", "sparse-checkout", "stash", "status", "stripspace", "submodule", "svn", "switch", "symbolic-ref",
    "tag", "unpack-file", "unpack-objects", "update-index", "update-ref", "update-server-info", "var",
    "verify-commit", "verify-pack", "verify-tag", "version", "whatchanged", "worktree", "write-tree",
];

/// The common commands (`git help`): a typed prefix of one scores best.
const COMMON: &[&str] = &[
    "add", "bisect", "branch", "clone", "commit", "diff", "fetch", "grep", "init", "log", "merge",
    "mv", "pull", "push", "rebase", "reset", "restore", "rm", "show", "status", "switch", "tag",
];

/// A score git corrects to is under this (help.c's `SIMILARITY_FLOOR`).
const SIMILARITY_FLOOR: usize = 7;

/// git's `levenshtein(a, b, 0, 2, 1, 3)`: the cost of turning `a` into `b`
/// with swaps of adjacent characters (0), substitutions (2), insertions (1)
/// and deletions (3).
fn distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let (swap, sub, ins, del) = (0, 2, 1, 3);
    let mut row0 = vec![0usize; b.len() + 1];
    let mut row1: Vec<usize> = (0..=b.len()).map(|j| j * ins).collect();
    let mut row2 = vec![0usize; b.len() + 1];
    for i in 0..a.len() {
        row2[0] = (i + 1) * del;
        for j in 0..b.len() {
            let mut v = row1[j] + sub * usize::from(a[i] != b[j]);
            if i > 0 && j > 0 && a[i - 1] == b[j] && a[i] == b[j - 1] && v > row0[j - 1] + swap {
                v = row0[j - 1] + swap;
            }
            v = v.min(row1[j + 1] + del).min(row2[j] + ins);
            row2[j + 1] = v;
        }
        std::mem::swap(&mut row0, &mut row1);
        std::mem::swap(&mut row1, &mut row2);
    }
    row1[b.len()]
}

/// The command git runs for the unknown word `typed`, when it corrects it.
fn corrected(typed: &str) -> Option<&'static str> {
    if typed.is_empty() || COMMANDS.contains(&typed) {
        return None;
    }
    let score = |c: &str| {
        if COMMON.contains(&c) && c.starts_with(typed) {
            0
        } else {
            distance(typed, c) + 1
        }
    };
    let best = COMMANDS.iter().map(|c| score(c)).min()?;
    let mut at_best = COMMANDS.iter().filter(|c| score(c) == best);
    let only = at_best.next()?;
    (at_best.next().is_none() && best < SIMILARITY_FLOOR).then_some(*only)
}

/// Does a `help.autocorrect` value make git run the corrected command?
fn runs_corrected(value: &str) -> bool {
    let v = value.trim().to_ascii_lowercase();
    !matches!(
        v.as_str(),
        "" | "0" | "show" | "never" | "false" | "no" | "off"
    )
}

/// The `help.autocorrect` value the command gives git itself (`-c`,
/// `--config-env`, the variables it sets), the last one winning.
fn given_setting(c: &SimpleCommand, words: &[String]) -> Option<String> {
    let mut found = None;
    for (k, v) in &c.assignments {
        if let Some(n) = k.strip_prefix("GIT_CONFIG_KEY_") {
            if v.eq_ignore_ascii_case("help.autocorrect") {
                let value = format!("GIT_CONFIG_VALUE_{n}");
                found = c
                    .assignments
                    .iter()
                    .find(|(k2, _)| *k2 == value)
                    .map(|(_, v2)| v2.clone())
                    .or(found);
            }
        } else if k == "GIT_CONFIG_PARAMETERS" {
            let lower = v.to_ascii_lowercase();
            if let Some(at) = lower.find("help.autocorrect'='") {
                let rest = &v[at + "help.autocorrect'='".len()..];
                found = Some(rest.split('\'').next().unwrap_or_default().to_string());
            }
        }
    }
    let mut i = 0;
    while let Some(a) = words.get(i) {
        match a.as_str() {
            "-c" => {
                if let Some((k, v)) = words.get(i + 1).and_then(|kv| kv.split_once('=')) {
                    if k.eq_ignore_ascii_case("help.autocorrect") {
                        found = Some(v.to_string());
                    }
                }
                i += 2;
            }
            a if a.starts_with("--config-env=") => {
                let kv = &a["--config-env=".len()..];
                if kv
                    .split_once('=')
                    .is_some_and(|(k, _)| k.eq_ignore_ascii_case("help.autocorrect"))
                {
                    // the value is in a variable the analysis may not know: on
                    found = Some("1".to_string());
                }
                i += 1;
            }
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    found
}

/// Where git's subcommand is in `words`, when there is one.
fn subcommand_at(words: &[String]) -> Option<usize> {
    let mut i = 0;
    while let Some(a) = words.get(i) {
        match a.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
            | "--config-env" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    None
}

/// Does the command define `name` as an alias (`-c alias.NAME=…`)?
fn defines_alias(words: &[String], name: &str) -> bool {
    let key = format!("alias.{name}=");
    words
        .iter()
        .any(|w| w.len() > key.len() && w[..key.len()].eq_ignore_ascii_case(&key))
}

/// Add, after each `git` command whose unknown subcommand git would correct,
/// the command git runs instead. `cwd` is the event's directory: the
/// repository's configuration there is read for the setting too.
pub fn add_autocorrected(cmds: &mut Vec<SimpleCommand>, cwd: Option<&str>) {
    if !cmds.iter().any(|c| c.program == "git") {
        return;
    }
    let mut out = Vec::with_capacity(cmds.len());
    for c in cmds.drain(..) {
        let extra = if c.program == "git" && !c.program_unknown {
            correction(&c, cwd)
        } else {
            None
        };
        out.push(c);
        out.extend(extra);
    }
    *cmds = out;
}

/// The command git runs instead of `c`, when it corrects its subcommand.
fn correction(c: &SimpleCommand, cwd: Option<&str>) -> Option<SimpleCommand> {
    let at = subcommand_at(&c.args)?;
    let typed = c.args.get(at)?;
    let fixed = corrected(typed)?;
    if defines_alias(&c.args, typed) {
        return None;
    }
    let setting = given_setting(c, &c.args).or_else(|| {
        let dir = cwd.filter(|d| d.starts_with('/'))?;
        super::repo_config::setting(c, Path::new(dir), "help.autocorrect")
    })?;
    if !runs_corrected(&setting) {
        return None;
    }
    let mut args = c.args.clone();
    args[at] = fixed.to_string();
    let mut values = c.values.clone();
    if let Some(v) = values.get_mut(at) {
        *v = super::Value::text(fixed);
    }
    let mut via = c.via.clone();
    via.push(format!("git help.autocorrect ({typed} runs {fixed})"));
    let mut n = SimpleCommand::with_values(
        c.program_path.clone(),
        args,
        values,
        c.redirects.clone(),
        c.assignments.clone(),
        via,
        c.offset,
    );
    n.cwd = c.cwd.clone();
    Some(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_corrects_as_help_c_does() {
        let cases = [
            ("psuh", Some("push")),
            ("rset", Some("reset")),
            ("claen", Some("clean")),
            // `clen` is as near `clean` as `clone` (`en` swapped): git runs neither
            ("clen", None),
            ("stauts", Some("status")),
            ("comit", Some("commit")),
            ("chekcout", Some("checkout")),
            ("brnch", Some("branch")),
            ("pus", Some("push")),
            ("claen", Some("clean")),
            // `clen` is as near `clean` as `clone` (`en` swapped): git runs neither
            ("clen", None),
            // a prefix of a common command scores best (`rest` is `restore`)
            ("rest", Some("restore")),
            // known commands and words too far from any
            ("push", None),
            ("frobnicate", None),
        ];
        for (typed, want) in cases {
            assert_eq!(corrected(typed), want, "{typed}");
        }
    }

    #[test]
    fn only_a_setting_that_runs_the_correction_counts() {
        for on in ["immediate", "prompt", "1", "-1", "20", "true"] {
            assert!(runs_corrected(on), "{on}");
        }
        for off in ["0", "never", "show", "false", ""] {
            assert!(!runs_corrected(off), "{off}");
        }
    }
}
