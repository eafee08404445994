//! Where the files live that decide what an agent may do: hookrules' own
//! (policies, state, cache, the plugin's data, the binary) and each host's
//! hook registrations, at project and user level. `init` writes there,
//! `doctor` and `run --via plugin` read there, and [`guarded`] lists them all
//! for the built-in pack, which asks before the agent changes any of them
//! (`shell::reach`'s `guard_*` classes), whoever writes.
//!
//! Paths only: nothing here touches the disk.

use crate::os::env::Env;
use crate::shell::reach::Wiring;
use std::borrow::Cow;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::hosts::Host;

fn var(env: &Env, name: &str) -> Option<String> {
    env.get(name).filter(|s| !s.is_empty())
}

fn home(env: &Env) -> Option<PathBuf> {
    var(env, "HOME").map(PathBuf::from)
}

/// The project's policies: `.claude/hookrules/`.
#[must_use]
pub fn project_policies(project: &Path) -> PathBuf {
    project.join(".claude/hookrules")
}

/// The user's policies: `$XDG_CONFIG_HOME/hookrules`, else `~/.config/hookrules`.
#[must_use]
pub fn user_policies(env: &Env) -> Option<PathBuf> {
    var(env, "XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home(env).map(|h| h.join(".config")))
        .map(|d| d.join("hookrules"))
}

/// hookrules' state (decision log, allowances, trust, the per-user key):
/// `$XDG_STATE_HOME/hookrules` (an absolute `XDG_STATE_HOME` only), else
/// `~/.local/state/hookrules`.
#[must_use]
pub fn state_home(env: &Env) -> Option<PathBuf> {
    var(env, "XDG_STATE_HOME")
        .filter(|s| s.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| home(env).map(|h| h.join(".local/state")))
        .map(|d| d.join("hookrules"))
}

/// The compiled-set cache: `HOOKRULES_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/hookrules`, else `~/.cache/hookrules` (whether or not
/// `HOOKRULES_CACHE=off` turns it off).
#[must_use]
pub fn cache_home(env: &Env) -> Option<PathBuf> {
    if let Some(d) = var(env, "HOOKRULES_CACHE_DIR") {
        return Some(PathBuf::from(d));
    }
    var(env, "XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| home(env).map(|h| h.join(".cache")))
        .map(|d| d.join("hookrules"))
}

/// Claude Code's user folder: `$CLAUDE_CONFIG_DIR` (relative to `cwd`), else `~/.claude`.
#[must_use]
pub fn claude_user_dir(env: &Env, cwd: &Path) -> Option<PathBuf> {
    match var(env, "CLAUDE_CONFIG_DIR") {
        Some(d) => Some(cwd.join(d)),
        None => home(env).map(|h| h.join(".claude")),
    }
}

/// Claude Code's settings files that register hooks: the user's (`settings.json`,
/// `settings.local.json` in [`claude_user_dir`]) when `user`, else the project's
/// (`.claude/settings.json`, `.claude/settings.local.json`).
#[must_use]
pub fn claude_settings(env: &Env, cwd: &Path, project: &Path, user: bool) -> Vec<PathBuf> {
    let dir = if user {
        claude_user_dir(env, cwd)
    } else {
        Some(project.join(".claude"))
    };
    dir.map(|d| vec![d.join("settings.json"), d.join("settings.local.json")])
        .unwrap_or_default()
}

/// Is `rel`, a path relative to a repository's top, a file that decides
/// which hooks run for the project it is in, whatever its text says: a policy
/// (a file directly in a `hookrules` folder), Claude Code's project settings
/// ([`claude_settings`]: `disableAllHooks`, `hooks` live there), each host's
/// project hook file (its adapter's `project_file`), and every `*.json` VS
/// Code and Copilot read hooks from ([`repository_hooks`]). A git command that
/// adds, replaces or takes one away (a branch switch or merge that brings a
/// `.claude/settings.local.json` with `"disableAllHooks": true`) changes what
/// the guard decides, and is judged as a write of that file.
#[must_use]
pub fn decides_hooks(rel: &Path) -> bool {
    let top = Path::new("");
    if rel
        .parent()
        .and_then(Path::file_name)
        .is_some_and(|d| d == "hookrules")
    {
        return true;
    }
    if claude_settings(&Env::default(), top, top, false)
        .iter()
        .any(|f| f == rel)
    {
        return true;
    }
    if Host::ALL
        .iter()
        .filter_map(|h| h.adapter().install.as_ref())
        .any(|i| Path::new(i.project_file) == rel)
    {
        return true;
    }
    rel.parent() == Some(&repository_hooks(top)) && rel.extension().is_some_and(|e| e == "json")
}

/// The hookrules plugin's data folder, where its launcher remembers the binary
/// it runs: `$CLAUDE_PLUGIN_DATA`, else `~/.cache/hookrules-plugin` (the
/// default of `plugin/bin/hookrules-launch`).
#[must_use]
pub fn plugin_data(env: &Env) -> Option<PathBuf> {
    var(env, "CLAUDE_PLUGIN_DATA")
        .map(PathBuf::from)
        .or_else(|| home(env).map(|h| h.join(".cache/hookrules-plugin")))
}

/// Codex's folder: `$CODEX_HOME`, else `~/.codex`.
#[must_use]
pub fn codex_home(env: &Env) -> Option<PathBuf> {
    var(env, "CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| home(env).map(|h| h.join(".codex")))
}

/// The file `init --host HOST` writes (`--user`: the user's), from the host's
/// adapter. Claude Code's are [`claude_settings`].
///
/// # Errors
/// A host without that file (Copilot and VS Code read hooks only from the
/// repository), or a user file without `HOME`.
pub fn hook_file(host: Host, env: &Env, project: &Path, user: bool) -> Result<PathBuf, String> {
    use crate::contract::hosts::adapter::UserFile;
    let Some(install) = host.adapter().install else {
        return Err("Claude Code is `hookrules init` without --host".into());
    };
    let home = || home(env).ok_or_else(|| "HOME is not set".to_string());
    if !user {
        return Ok(project.join(install.project_file));
    }
    match install.user_file {
        UserFile::Home(file) => Ok(home()?.join(file)),
        UserFile::Var {
            var: name,
            default,
            file,
        } => Ok(match var(env, name) {
            Some(dir) => PathBuf::from(dir),
            None => home()?.join(default),
        }
        .join(file)),
        UserFile::None(why) => Err(format!("{} {why}", host.title())),
    }
}

/// The folder whose every `*.json` VS Code (and Copilot) read hooks from.
#[must_use]
pub fn repository_hooks(project: &Path) -> PathBuf {
    project.join(".github/hooks")
}

/// Codex's config, which holds its trust of project hooks: `$CODEX_HOME/config.toml`.
#[must_use]
pub fn codex_config(env: &Env) -> Option<PathBuf> {
    codex_home(env).map(|c| c.join("config.toml"))
}

/// Where the hookrules binary is: the one running (`exe`), when it is the
/// hookrules binary (named `hookrules`, as every installer names it; a test
/// harness or another program linking the library is not the guard, and its
/// folder, say `/tmp/…/target`, is nothing to protect), and where `install.sh`
/// (`~/.local/bin`) and `cargo install` (`~/.cargo/bin`) put it, which the
/// plugin launcher also looks in; and the file each of those lands on when it
/// is a link (`~/.local/bin/hookrules -> ~/opt/hookrules-0.9/hr`: removing or
/// replacing `hr` removes the guard, whatever its name; cause from redteam5).
#[must_use]
pub fn binaries(env: &Env, exe: Option<&Path>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = exe
        .filter(|p| p.file_stem().is_some_and(|n| n == "hookrules"))
        .map(Path::to_path_buf)
        .into_iter()
        .collect();
    if let Some(h) = home(env) {
        out.push(h.join(".local/bin/hookrules"));
        out.push(h.join(".cargo/bin/hookrules"));
    }
    let landed: Vec<PathBuf> = out
        .iter()
        .filter(|p| std::fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_symlink()))
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect();
    for p in landed {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

/// What a guarded place is, for the built-in pack: which class it gives and
/// the words its reasons use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guard {
    /// Policies, hook registrations, the binary: a change asks the user.
    Config,
    /// What hookrules makes again when it is gone (the compiled-set cache,
    /// the plugin launcher's remembered binary path): a write into it asks,
    /// clearing a folder above it (`rm -rf ~/.cache/*`) does not.
    Regenerable,
    /// hookrules' state (decision log, allowances, trust records).
    State,
    /// The per-user key in the state folder, which authenticates allowances,
    /// trust and the cache: a secret.
    Key,
}

/// A file or folder whose change changes what the agent may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guarded {
    /// Where it is (absolute, as the environment names it).
    pub path: PathBuf,
    /// A folder: everything in it is guarded too.
    pub folder: bool,
    /// Its kind.
    pub guard: Guard,
    /// What it is, for reasons ("Codex's hook file").
    pub what: Cow<'static, str>,
    /// A project-level file, also guarded at the same place under any folder
    /// (another host may take a nested folder for the project): the part
    /// after the project (`.codex/hooks.json`).
    pub anywhere: Option<PathBuf>,
    /// It switches hookrules on, when it is there (a host's hook file, the
    /// binary): removing or replacing it switches the guard off.
    pub wiring: Option<Wiring>,
}

/// Every file and folder that decides what the agent may do, for a project,
/// the environment hookrules runs in, and the binary that runs (`exe`).
///
/// Places the environment moves (`XDG_STATE_HOME`, `HOOKRULES_CACHE_DIR`,
/// `CODEX_HOME`, …) are guarded where it puts them and where they are without
/// it (under `HOME`): a repository can set variables for hooks alone (the
/// `env` of its settings), and the agent's shell need not share them.
#[must_use]
pub fn guarded(env: &Env, cwd: &Path, project: &Path, exe: Option<&Path>) -> Vec<Guarded> {
    guarded_of(env, cwd, project, exe, false)
}

/// The places of [`guarded`] that are the per-user key ([`Guard::Key`]), in
/// its order, without making the others (the key's place is two variables
/// away; the whole list, dozens of places).
#[must_use]
pub fn guarded_keys(env: &Env, cwd: &Path, project: &Path, exe: Option<&Path>) -> Vec<Guarded> {
    guarded_of(env, cwd, project, exe, true)
}

/// [`guarded`], or with `keys_only` its places of the key alone.
fn guarded_of(
    env: &Env,
    cwd: &Path,
    project: &Path,
    exe: Option<&Path>,
    keys_only: bool,
) -> Vec<Guarded> {
    let mut out: Vec<Guarded> = Vec::new();
    let plain: Env = env.get("HOME").map(|h| ("HOME", h)).into_iter().collect();
    let envs = [env, &plain];
    let mut add = |path: Option<PathBuf>,
                   folder: bool,
                   guard: Guard,
                   what: Cow<'static, str>,
                   wiring: Option<Wiring>| {
        let Some(path) = path.filter(|p| p.is_absolute()) else {
            return;
        };
        // Compared as bytes: `Path`'s `==` compares component by component,
        // which cost ~0.3M instructions over this list on every event that
        // names a path (bench/callgrind.sh). The paths are built the same
        // way, so equal places are equal bytes; a missed duplicate would only
        // be checked twice.
        if out
            .iter()
            .any(|g| g.guard == guard && g.path.as_os_str() == path.as_os_str())
        {
            return;
        }
        let anywhere = below(&path, project);
        out.push(Guarded {
            path,
            folder,
            guard,
            what,
            anywhere,
            wiring,
        });
    };
    for env in envs {
        let state = state_home(env);
        add(
            state.as_ref().map(|s| s.join("key")),
            false,
            Guard::Key,
            Cow::Borrowed("hookrules' per-user key"),
            None,
        );
        if keys_only {
            continue;
        }
        add(
            state,
            true,
            Guard::State,
            Cow::Borrowed("hookrules' state (decision log, allowances, trust records)"),
            None,
        );
    }
    if keys_only {
        return where_they_are(out);
    }
    add(
        Some(project_policies(project)),
        true,
        Guard::Config,
        Cow::Borrowed("the project's hookrules policies"),
        None,
    );
    for env in envs {
        add(
            user_policies(env),
            true,
            Guard::Config,
            Cow::Borrowed("the user's hookrules policies"),
            None,
        );
        add(
            cache_home(env),
            true,
            Guard::Regenerable,
            Cow::Borrowed("hookrules' compiled-policy cache"),
            None,
        );
        add(
            plugin_data(env),
            true,
            Guard::Regenerable,
            Cow::Borrowed("the hookrules plugin's data (the binary it runs)"),
            None,
        );
    }
    for bin in binaries(env, exe) {
        add(
            Some(bin),
            false,
            Guard::Config,
            Cow::Borrowed("the hookrules binary"),
            Some(Wiring::Binary),
        );
    }
    for s in claude_settings(env, cwd, project, false) {
        add(
            Some(s),
            false,
            Guard::Config,
            Cow::Borrowed("Claude Code's project settings (they register the hooks)"),
            Some(Wiring::Hooks),
        );
    }
    for env in envs {
        for s in claude_settings(env, cwd, project, true) {
            add(
                Some(s),
                false,
                Guard::Config,
                Cow::Borrowed("Claude Code's user settings (they register the hooks)"),
                Some(Wiring::Hooks),
            );
        }
        add(
            claude_user_dir(env, cwd).map(|d| d.join("plugins")),
            true,
            Guard::Config,
            Cow::Borrowed("Claude Code's plugins (the hooks they register)"),
            None,
        );
    }
    for host in Host::ALL {
        // The project's file does not move with the environment: one, then
        // the user's where each environment puts it.
        let files = std::iter::once(hook_file(host, env, project, false))
            .chain(envs.map(|env| hook_file(host, env, project, true)))
            .filter_map(Result::ok);
        let what: Cow<'static, str> = Cow::Owned(format!("{}'s hook file", host.title()));
        for f in files {
            add(
                Some(f),
                false,
                Guard::Config,
                what.clone(),
                Some(Wiring::Hooks),
            );
        }
    }
    add(
        Some(repository_hooks(project)),
        true,
        Guard::Config,
        Cow::Borrowed("the repository's hook files (Copilot, VS Code)"),
        Some(Wiring::Hooks),
    );
    for env in envs {
        add(
            codex_config(env),
            false,
            Guard::Config,
            Cow::Borrowed("Codex's config (it trusts the project's hooks)"),
            None,
        );
    }
    where_they_are(out)
}

/// `places`, each also where it really is when a link leads there: code the
/// guard does not see (a build script) can move the state folder into the
/// project and leave a link behind, and the key read at its new place is the
/// same secret (integrity25's 48); a user who keeps `~/.config/hookrules` or
/// `~/.claude/settings.json` as a link into a dotfiles repository has the
/// policies and the hooks there too, and a write at that place changes them
/// (integrity30's 19).
fn where_they_are(mut places: Vec<Guarded>) -> Vec<Guarded> {
    let moved: Vec<Guarded> = places
        .iter()
        .filter_map(|g| {
            let real = std::fs::canonicalize(&g.path).ok()?;
            (real != g.path).then(|| Guarded {
                path: real,
                anywhere: None,
                ..g.clone()
            })
        })
        .collect();
    for g in moved {
        if !places
            .iter()
            .any(|p| p.guard == g.guard && p.path == g.path)
        {
            places.push(g);
        }
    }
    places
}

/// `path` below `root`, as [`Path::strip_prefix`] finds it: compared as bytes
/// when both are written plainly (from `/`, no empty, `.` or `..` component,
/// no trailing `/`), as every place here is from a plain environment;
/// component by component otherwise. (Components cost ~1k instructions a
/// path, over the ~40 places listed on every event that names a path.)
fn below(path: &Path, root: &Path) -> Option<PathBuf> {
    let (p, r) = (path.as_os_str().as_bytes(), root.as_os_str().as_bytes());
    if !plain(p) || !plain(r) {
        return path.strip_prefix(root).ok().map(Path::to_path_buf);
    }
    let rest = p.strip_prefix(r)?;
    let rest = match rest {
        [] => rest,
        [b'/', rest @ ..] => rest,
        _ => return None,
    };
    Some(PathBuf::from(std::ffi::OsStr::from_bytes(rest)))
}

/// Written plainly: `/` then names, none empty, `.` or `..` (not `/` itself).
fn plain(path: &[u8]) -> bool {
    match path.split_first() {
        Some((b'/', names)) => names
            .split(|&b| b == b'/')
            .all(|n| !n.is_empty() && n != b"." && n != b".."),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_installed_link_guards_the_binary_it_lands_on() {
        // ~/.local/bin/hookrules -> ~/opt/hookrules-0.9/hr: `hr` is the guard
        // whatever its name (cause from redteam5).
        let home = tempfile::tempdir().unwrap();
        let opt = home.path().join("opt/hookrules-0.9");
        std::fs::create_dir_all(&opt).unwrap();
        std::fs::create_dir_all(home.path().join(".local/bin")).unwrap();
        std::fs::write(opt.join("hr"), b"").unwrap();
        std::os::unix::fs::symlink(opt.join("hr"), home.path().join(".local/bin/hookrules"))
            .unwrap();
        let env: Env = [("HOME".to_string(), home.path().display().to_string())]
            .into_iter()
            .collect();
        let bins = binaries(&env, None);
        let landed = std::fs::canonicalize(opt.join("hr")).unwrap();
        assert!(bins.contains(&landed), "{bins:?}");
        assert!(bins.contains(&home.path().join(".local/bin/hookrules")));
    }

    #[test]
    fn the_plugin_launcher_and_places_agree_on_the_data_folder() {
        let launcher = include_str!("../../plugin/bin/hookrules-launch");
        assert!(
            launcher.contains(r#"data="${CLAUDE_PLUGIN_DATA:-${HOME:-/tmp}/.cache/hookrules-plugin}""#),
            "plugin/bin/hookrules-launch changed where it keeps its data: update places::plugin_data"
        );
    }

    #[test]
    fn places_the_environment_moves_are_guarded_there_and_where_they_are_without_it() {
        let mut env = Env::default();
        env.set("HOME", "/home/u");
        env.set("XDG_STATE_HOME", "/x/state");
        env.set("CODEX_HOME", "/x/codex");
        let project = Path::new("/home/u/p");
        let g = guarded(&env, project, project, None);
        let has =
            |p: &str, guard: Guard| g.iter().any(|x| x.path == Path::new(p) && x.guard == guard);
        assert!(has("/x/state/hookrules", Guard::State));
        assert!(has("/home/u/.local/state/hookrules", Guard::State));
        assert!(has("/x/state/hookrules/key", Guard::Key));
        assert!(has("/home/u/.local/state/hookrules/key", Guard::Key));
        assert!(has("/x/codex/hooks.json", Guard::Config));
        assert!(has("/home/u/.codex/hooks.json", Guard::Config));
        for (i, a) in g.iter().enumerate() {
            assert!(
                !g[..i]
                    .iter()
                    .any(|b| b.path == a.path && b.guard == a.guard),
                "listed twice: {a:?}"
            );
        }
    }

    #[test]
    fn the_keys_alone_are_the_keys_of_the_whole_list() {
        let project = Path::new("/home/u/p");
        let settings: [&[(&str, &str)]; 5] = [
            &[],
            &[("HOME", "/home/u")],
            &[("HOME", "/home/u"), ("XDG_STATE_HOME", "/x/state")],
            &[
                ("HOME", "/home/u"),
                ("XDG_STATE_HOME", "/home/u/.local/state"),
            ],
            &[("HOME", "/home/u"), ("XDG_STATE_HOME", "relative")],
        ];
        for vars in settings {
            let mut env = Env::default();
            for (k, v) in vars {
                env.set(*k, *v);
            }
            let exe = Some(Path::new("/opt/hr/hookrules"));
            let whole: Vec<Guarded> = guarded(&env, project, project, exe)
                .into_iter()
                .filter(|g| g.guard == Guard::Key)
                .collect();
            assert_eq!(guarded_keys(&env, project, project, exe), whole, "{vars:?}");
        }
    }

    #[test]
    fn below_agrees_with_strip_prefix() {
        let paths = [
            "/",
            "/a",
            "/a/",
            "/a/b",
            "/a/b/",
            "/a/bc",
            "/a//b",
            "/a/./b",
            "/a/../a/b",
            "a/b",
            "",
            "/a/b/c/d",
            "/a/b/.",
            "/ab",
        ];
        for p in paths {
            for r in paths {
                let (p, r) = (Path::new(p), Path::new(r));
                assert_eq!(
                    below(p, r),
                    p.strip_prefix(r).ok().map(Path::to_path_buf),
                    "{p:?} below {r:?}"
                );
            }
        }
    }

    #[test]
    fn every_host_file_init_writes_is_guarded() {
        let mut env = Env::default();
        env.set("HOME", "/home/u");
        let project = Path::new("/home/u/p");
        let g = guarded(&env, project, project, Some(Path::new("/opt/hr/hookrules")));
        let has = |p: &str| g.iter().any(|x| x.path == Path::new(p));
        for host in Host::ALL {
            for user in [false, true] {
                if let Ok(f) = hook_file(host, &env, project, user) {
                    assert!(g.iter().any(|x| x.path == f), "{f:?}");
                }
            }
        }
        for p in [
            "/home/u/.local/state/hookrules",
            "/home/u/.local/state/hookrules/key",
            "/home/u/.cache/hookrules",
            "/home/u/.config/hookrules",
            "/home/u/p/.claude/hookrules",
            "/home/u/p/.claude/settings.json",
            "/home/u/p/.claude/settings.local.json",
            "/home/u/.claude/settings.json",
            "/home/u/.codex/hooks.json",
            "/home/u/.codex/config.toml",
            "/home/u/p/.github/hooks",
            "/opt/hr/hookrules",
            "/home/u/.cache/hookrules-plugin",
            "/home/u/.local/bin/hookrules",
            "/home/u/.cargo/bin/hookrules",
        ] {
            assert!(has(p), "{p} is not guarded: {g:#?}");
        }
    }
}
