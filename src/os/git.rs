//! What git says about a file in a work tree: whether it came with the
//! repository (tracked) or is the user's own (untracked, and ignored by a
//! rule such as the `*.local.toml` that `init` writes into `.gitignore`).
//!
//! The answer decides whether a personal policy may loosen without
//! `hookrules trust` (`policy::discover::Trusted`), so the repository must not
//! be able to steer it:
//!
//! - the `git` that answers is the system's (`/usr/bin/git`, …), then an
//!   absolute `PATH` folder outside the work tree; never a relative `PATH`
//!   entry or one inside the project, which a repository could fill;
//! - every `GIT_*` variable is removed (a repository's settings `env` could
//!   set `GIT_INDEX_FILE=/dev/null` and make its committed file look
//!   untracked), and `core.fsmonitor` is off (a `.git/config` that came in an
//!   archive must not run a program);
//! - any failure (no git, not a work tree, a folder owned by someone else,
//!   a non-zero exit) is "not the user's own": the file then needs trust, as
//!   before.
//!
//! Cost: two `git` processes, only when a set is built (cache miss) and only
//! for `*.local.toml` files the trust store does not already cover. The files
//! whose change can change the answer ([`Answer::witnesses`]: the index, the
//! repository's exclude file, every `.gitignore` from the top of the work tree
//! down to the file) are stamped into the cached set, so `git add`, a commit
//! or an edited `.gitignore` builds it again.

use std::path::{Path, PathBuf};

/// Where a system's own git lives, tried first.
const SYSTEM_GIT: &[&str] = &[
    "/usr/bin/git",
    "/bin/git",
    "/usr/local/bin/git",
    "/opt/homebrew/bin/git",
];

/// What git said about some files of one work tree.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The files asked about that git neither tracks nor would add (ignored).
    pub untracked_ignored: Vec<PathBuf>,
    /// The files whose change can change the answer.
    pub witnesses: Vec<PathBuf>,
}

/// Ask git, from `dir`, which of `files` (absolute, inside `dir`'s work tree)
/// are untracked and ignored. `None` when git cannot answer.
pub fn untracked_ignored(dir: &Path, files: &[PathBuf]) -> Option<Answer> {
    if files.is_empty() {
        return Some(Answer::default());
    }
    let git = find_git(dir)?;
    let Looked {
        top,
        canon,
        witnesses,
    } = looked_at(&git, dir, files)?;
    let mut args: Vec<String> = [
        "ls-files",
        "-z",
        "--full-name",
        "--others",
        "--ignored",
        "--exclude-standard",
        "--",
    ]
    .map(String::from)
    .to_vec();
    for f in &canon {
        args.push(f.strip_prefix(&top).ok()?.to_str()?.to_string());
    }
    let listed = git_output(
        &git,
        &top,
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
    )?;
    let listed: Vec<PathBuf> = listed
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(|s| top.join(s))
        .collect();
    Some(Answer {
        untracked_ignored: files
            .iter()
            .zip(&canon)
            .filter(|(_, c)| listed.contains(c))
            .map(|(f, _)| f.clone())
            .collect(),
        witnesses,
    })
}

/// What git reads to say whether `files` are tracked or ignored.
struct Looked {
    /// The work tree's top.
    top: PathBuf,
    /// The files, as the kernel names them.
    canon: Vec<PathBuf>,
    /// The index, the repository's exclude file and every `.gitignore` from
    /// the top of the work tree down to each file's folder.
    witnesses: Vec<PathBuf>,
}

/// Where git looks for `files` ([`Looked`]); `None` when git cannot say, or
/// when one of those places holds something other than a regular file (a
/// FIFO, on which git would wait for good; a device; a folder): git is then
/// not asked, and cannot answer.
fn looked_at(git: &Path, dir: &Path, files: &[PathBuf]) -> Option<Looked> {
    let paths = git_output(
        git,
        dir,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--show-toplevel",
            "--git-path",
            "index",
            "--git-path",
            "info/exclude",
        ],
    )?;
    let mut lines = paths.lines().map(PathBuf::from);
    let (top, index, exclude) = (lines.next()?, lines.next()?, lines.next()?);
    // Asked and compared as the kernel names them (the work tree's top is).
    let canon: Vec<PathBuf> = files
        .iter()
        .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let mut witnesses = vec![index, exclude];
    for f in &canon {
        // Every .gitignore from the top of the work tree down to the file's folder.
        let mut dir = f.parent();
        while let Some(d) = dir.filter(|d| d.starts_with(&top)) {
            witnesses.push(d.join(".gitignore"));
            dir = d.parent();
        }
    }
    witnesses.sort();
    witnesses.dedup();
    let regular_or_absent = |w: &PathBuf| match std::fs::metadata(w) {
        Ok(m) => m.is_file(),
        Err(e) => e.kind() == std::io::ErrorKind::NotFound,
    };
    witnesses.iter().all(regular_or_absent).then_some(Looked {
        top,
        canon,
        witnesses,
    })
}

/// Why git does not count a file as the user's own, for telling the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// Git tracks it: it came with the repository, or was added to it.
    Tracked,
    /// Untracked, but no ignore rule covers it: the next `git add -A` commits it.
    NotIgnored,
    /// Git cannot say (no git, not a work tree, a folder owned by someone else,
    /// a FIFO or folder where it reads its index or ignore rules, no answer in time).
    Unknown,
}

/// Where `file` stands with git, asked as [`untracked_ignored`] asks (the
/// system's git, no `GIT_*` variable, no fsmonitor). Run only to explain a
/// file that is not the user's own, never on `run`'s path.
#[must_use]
pub fn standing(file: &Path) -> Standing {
    let (Some(dir), Some(name)) = (file.parent(), file.file_name().and_then(|n| n.to_str())) else {
        return Standing::Unknown;
    };
    let Some(git) = find_git(dir) else {
        return Standing::Unknown;
    };
    if looked_at(&git, dir, &[file.to_path_buf()]).is_none() {
        return Standing::Unknown;
    }
    match git_output(&git, dir, &["ls-files", "-z", "--", name]) {
        None => Standing::Unknown,
        Some(listed) if listed.split('\0').any(|n| n == name) => Standing::Tracked,
        Some(_) => {
            let ignored = git_output(
                &git,
                dir,
                &[
                    "ls-files",
                    "-z",
                    "--others",
                    "--ignored",
                    "--exclude-standard",
                    "--",
                    name,
                ],
            );
            match ignored {
                None => Standing::Unknown,
                Some(l) if l.split('\0').any(|n| n == name) => Standing::Unknown,
                Some(_) => Standing::NotIgnored,
            }
        }
    }
}

/// The system's git, else one in an absolute `PATH` folder outside the work
/// tree around `dir`.
fn find_git(dir: &Path) -> Option<PathBuf> {
    let system = SYSTEM_GIT.iter().map(PathBuf::from);
    let path = std::env::var_os("PATH").unwrap_or_default();
    let on_path = std::env::split_paths(&path)
        .filter(|p| p.is_absolute() && !dir.starts_with(p) && !p.starts_with(dir))
        .map(|p| p.join("git"));
    system.chain(on_path).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// How long git may take to answer. Git opens what it reads as it finds it:
/// a FIFO in the place of a `.gitignore`, the index or a config file stalls
/// it for good, so it is ended then, and "cannot answer" is the answer.
const GIT_TIMEOUT_MS: u64 = 5_000;

/// How long git may take, in all, to say what one of the agent's commands
/// would change ([`WorkTree`]: on `run`'s path, where the answer must come in
/// time).
const LIST_TIMEOUT_MS: u64 = 2_000;

/// A work tree git is asked about on `run`'s path, as [`untracked_ignored`]
/// asks (the system's git, no `GIT_*` variable, no fsmonitor), with one
/// budget of [`LIST_TIMEOUT_MS`] for every question: each gets what is left.
pub struct WorkTree {
    git: PathBuf,
    top: PathBuf,
    start: std::time::Instant,
}

impl WorkTree {
    /// The work tree around `dir`; `None` when git cannot say (no git, not a
    /// work tree, no answer in time).
    #[must_use]
    pub fn open(dir: &Path) -> Option<WorkTree> {
        let git = find_git(dir)?;
        let start = std::time::Instant::now();
        let top = git_output_within(
            &git,
            dir,
            &["rev-parse", "--show-toplevel"],
            LIST_TIMEOUT_MS,
        )?;
        Some(WorkTree {
            git,
            top: PathBuf::from(top.trim_end_matches('\n')),
            start,
        })
    }

    /// The work tree's top folder (absolute).
    #[must_use]
    pub fn top(&self) -> &Path {
        &self.top
    }

    /// `git ARGS` run from the top, within what is left of the budget.
    /// `Err(())` when the budget is spent; `Ok(None)` when git refuses.
    fn ask(&self, args: &[&str]) -> Result<Option<String>, ()> {
        let spent = u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let left = LIST_TIMEOUT_MS
            .checked_sub(spent)
            .filter(|ms| *ms > 0)
            .ok_or(())?;
        Ok(git_output_within(&self.git, &self.top, args, left))
    }

    /// The files git lists for each of `queries` (each an argument list that
    /// prints names relative to the top, separated by NUL: `diff --name-only
    /// -z HEAD B --`, `ls-files -z --others`), as absolute paths, each once.
    /// A query git refuses (a revision that is not there) lists nothing.
    /// `None` when the budget runs out.
    #[must_use]
    pub fn listed(&self, queries: &[Vec<String>]) -> Option<Vec<PathBuf>> {
        let mut out: Vec<PathBuf> = Vec::new();
        for q in queries {
            let args: Vec<&str> = q.iter().map(String::as_str).collect();
            let Some(names) = self.ask(&args).ok()? else {
                continue;
            };
            out.extend(
                names
                    .split('\0')
                    .filter(|n| !n.is_empty())
                    .map(|n| self.top.join(n)),
            );
        }
        out.sort();
        out.dedup();
        Some(out)
    }

    /// The tracked files that `keep` keeps and whose text on disk is not
    /// HEAD's (what `git stash` puts back), as absolute paths. Compared by
    /// blob hash, the file's bytes as they are (`hash-object --no-filters`),
    /// against `ls-tree HEAD`: a clean filter a repository's configuration
    /// names never runs (`git diff HEAD` would run it to hash a file whose
    /// time stamps changed). `None` when git cannot answer in time.
    #[must_use]
    pub fn changed_from_head(&self, keep: impl Fn(&Path) -> bool) -> Option<Vec<PathBuf>> {
        let tracked = self.ask(&["ls-files", "-z", "--full-name"]).ok()??;
        let mut names: Vec<&str> = tracked
            .split('\0')
            .filter(|n| !n.is_empty() && keep(&self.top.join(n)))
            .collect();
        names.dedup();
        if names.is_empty() {
            return Some(Vec::new());
        }
        let mut args = vec!["hash-object", "--no-filters", "--"];
        args.extend(names.iter().copied());
        let on_disk = self.ask(&args).ok()??;
        let mut args = vec!["ls-tree", "-z", "HEAD", "--"];
        args.extend(names.iter().copied());
        let in_head = self.ask(&args).ok()?.unwrap_or_default();
        // `MODE TYPE HASH\tPATH` per entry.
        let head_hash = |name: &str| {
            in_head.split('\0').find_map(|e| {
                let (meta, path) = e.split_once('\t')?;
                (path == name).then(|| meta.rsplit(' ').next().unwrap_or_default().to_string())
            })
        };
        Some(
            names
                .iter()
                .zip(on_disk.lines())
                .filter(|(name, hash)| head_hash(name).as_deref() != Some(hash.trim()))
                .map(|(name, _)| self.top.join(name))
                .collect(),
        )
    }
}

/// Run `git -C dir ARGS` with no `GIT_*` variable and no fsmonitor, for at
/// most [`GIT_TIMEOUT_MS`]; its stdout when it succeeds.
fn git_output(git: &Path, dir: &Path, args: &[&str]) -> Option<String> {
    git_output_within(git, dir, args, GIT_TIMEOUT_MS)
}

/// [`git_output`], for at most `timeout_ms`.
fn git_output_within(git: &Path, dir: &Path, args: &[&str], timeout_ms: u64) -> Option<String> {
    let mut env = crate::os::env::Env::process();
    for (k, _) in std::env::vars_os() {
        if let Some(k) = k.to_str().filter(|k| k.starts_with("GIT_")) {
            env.unset(k);
        }
    }
    let mut argv: Vec<String> = vec![
        git.to_str()?.to_string(),
        "--no-optional-locks".into(),
        "-c".into(),
        "core.fsmonitor=false".into(),
        "-C".into(),
        dir.to_str()?.to_string(),
    ];
    argv.extend(args.iter().map(|a| a.to_string()));
    // Started where this process is: `-C dir` is relative to it, as before.
    let out = crate::os::process::run(&argv, Path::new("."), &env, timeout_ms).ok()?;
    out.ok.then_some(out.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    fn git(dir: &Path, args: &[&str]) {
        let st = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@t")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@t")
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success(), "git {args:?}");
    }

    #[test]
    fn only_an_untracked_ignored_file_is_the_users_own() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path().canonicalize().unwrap();
        let pol = top.join(".claude/hookrules");
        std::fs::create_dir_all(&pol).unwrap();
        git(&top, &["init", "-q"]);
        std::fs::write(top.join(".gitignore"), "*.local.toml\n").unwrap();
        let [mine, committed, loose] =
            ["mine.local.toml", "team.local.toml", "x.toml"].map(|n| pol.join(n));
        for f in [&mine, &committed, &loose] {
            std::fs::write(f, "").unwrap();
        }
        git(&top, &["add", "-f", ".claude/hookrules/team.local.toml"]);
        git(&top, &["commit", "-qm", "x"]);
        let files = vec![mine.clone(), committed.clone(), loose.clone()];
        let a = untracked_ignored(&pol, &files).expect("git answers");
        // Tracked despite the ignore rule, or untracked but not ignored: not own.
        assert_eq!(a.untracked_ignored, vec![mine.clone()]);
        assert!(a.witnesses.contains(&top.join(".gitignore")));
        assert!(a.witnesses.contains(&pol.join(".gitignore")));
        assert!(a.witnesses.iter().any(|w| w.ends_with(".git/index")));

        // Why the others are not: tracked, not ignored.
        assert_eq!(standing(&committed), Standing::Tracked);
        assert_eq!(standing(&loose), Standing::NotIgnored);

        // Not a work tree: git cannot answer, nothing is own.
        let plain = tempfile::tempdir().unwrap();
        let p = plain.path().canonicalize().unwrap().join("a.local.toml");
        std::fs::write(&p, "").unwrap();
        assert_eq!(standing(&p), Standing::Unknown);
        assert_eq!(untracked_ignored(plain.path(), &[p]), None);
    }
}
