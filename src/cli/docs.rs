//! `hookrules completions SHELL` and `hookrules man`: shell completion scripts
//! (clap_complete) and manual pages (clap_mangen), both generated from the same
//! command-line definition as `--help`, so they cannot drift from it. With
//! `--install` each writes its files where the user's shell and `man` look
//! without configuration; `install.sh` and the Claude Code plugin call that.

use crate::os::env::Env;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{CommandFactory, ValueEnum};
use clap_complete::Shell;

use super::Cli;
use crate::os::files;

/// The shells `completions` writes scripts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CompletionShell {
    /// bash (bash-completion 2 loads it from the user's data folder).
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
    /// Elvish.
    Elvish,
    /// PowerShell.
    Powershell,
}

impl CompletionShell {
    fn shell(self) -> Shell {
        match self {
            CompletionShell::Bash => Shell::Bash,
            CompletionShell::Zsh => Shell::Zsh,
            CompletionShell::Fish => Shell::Fish,
            CompletionShell::Elvish => Shell::Elvish,
            CompletionShell::Powershell => Shell::PowerShell,
        }
    }
}

/// The completion script for `shell`.
pub fn completion_script(shell: CompletionShell) -> Vec<u8> {
    let mut out = vec![];
    clap_complete::generate(shell.shell(), &mut Cli::command(), "hookrules", &mut out);
    out
}

/// Where the user's tools look for completions and manual pages, from the
/// environment (XDG base directories, else the defaults under HOME).
struct Places {
    data: PathBuf,
    config: PathBuf,
}

impl Places {
    fn from_env(env: &Env) -> Option<Places> {
        let home = env.get("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
        let xdg = |name: &str, default: &str| {
            env.get(name)
                .filter(|d| Path::new(d).is_absolute())
                .map(PathBuf::from)
                .or_else(|| home.as_ref().map(|h| h.join(default)))
        };
        Some(Places {
            data: xdg("XDG_DATA_HOME", ".local/share")?,
            config: xdg("XDG_CONFIG_HOME", ".config")?,
        })
    }
    /// Each installed completion script: the shell, and the file.
    fn completions(&self) -> [(CompletionShell, PathBuf); 3] {
        [
            (
                CompletionShell::Bash,
                self.data.join("bash-completion/completions/hookrules"),
            ),
            (
                CompletionShell::Zsh,
                self.data.join("zsh/site-functions/_hookrules"),
            ),
            (
                CompletionShell::Fish,
                self.config.join("fish/completions/hookrules.fish"),
            ),
        ]
    }
    fn man1(&self) -> PathBuf {
        self.data.join("man/man1")
    }
}

/// `hookrules completions SHELL` (print) or `--install` (bash, zsh and fish,
/// into the user's folders).
pub fn completions(
    shell: Option<CompletionShell>,
    install: bool,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if !install {
        let Some(shell) = shell else {
            let _ = writeln!(err, "hookrules completions: name a shell (bash, zsh, fish, elvish, powershell), or --install");
            return 2;
        };
        return match out.write_all(&completion_script(shell)) {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "hookrules completions: {e}");
                1
            }
        };
    }
    let Some(places) = Places::from_env(env) else {
        let _ = writeln!(err, "hookrules completions --install: HOME is not set");
        return 2;
    };
    let mut status = 0;
    for (shell, path) in places.completions() {
        status |= write_file(&path, &completion_script(shell), out, err);
    }
    if status == 0 {
        let _ = writeln!(
            out,
            "zsh: add `fpath+=({})` before `compinit` in ~/.zshrc if that folder is not on fpath yet",
            places.data.join("zsh/site-functions").display()
        );
    }
    status
}

/// The manual pages: `hookrules.1` and one `hookrules-COMMAND.1` per command.
pub fn man_pages() -> std::io::Result<Vec<(String, Vec<u8>)>> {
    let mut cmd = Cli::command();
    // Building names each command for its page (`hookrules-check`).
    cmd.build();
    let mut pages = vec![];
    let mut main = vec![];
    clap_mangen::Man::new(cmd.clone()).render(&mut main)?;
    pages.push(("hookrules.1".to_string(), main));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub
            .get_display_name()
            .map(str::to_string)
            .unwrap_or_else(|| format!("hookrules-{}", sub.get_name()));
        let mut page = vec![];
        clap_mangen::Man::new(sub.clone()).render(&mut page)?;
        pages.push((format!("{name}.1"), page));
    }
    Ok(pages)
}

/// `hookrules man` (print hookrules(1)), `--dir DIR` (write every page there)
/// or `--install` (into the user's manual folder).
pub fn man(
    dir: Option<&Path>,
    install: bool,
    env: &Env,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let pages = match man_pages() {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(err, "hookrules man: {e}");
            return 1;
        }
    };
    let dir = match (dir, install) {
        (Some(d), _) => d.to_path_buf(),
        (None, true) => match Places::from_env(env) {
            Some(p) => p.man1(),
            None => {
                let _ = writeln!(err, "hookrules man --install: HOME is not set");
                return 2;
            }
        },
        (None, false) => {
            let main = pages.first().map(|p| p.1.as_slice()).unwrap_or_default();
            return i32::from(out.write_all(main).is_err());
        }
    };
    let mut status = 0;
    for (name, page) in &pages {
        status |= write_file(&dir.join(name), page, out, err);
    }
    status
}

/// Write one file atomically (creating its folder), saying where.
fn write_file(path: &Path, content: &[u8], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| files::write_atomic(path, content));
    match written {
        Ok(()) => {
            let _ = writeln!(out, "wrote {}", path.display());
            0
        }
        Err(e) => {
            let _ = writeln!(err, "cannot write {}: {e}", path.display());
            1
        }
    }
}
