//! Where policies come from, in this order (the first that applies wins):
//!
//! 1. `--policies PATH` (a file or a folder; may be given several times);
//! 2. the `HOOKRULES_POLICIES` environment variable (paths separated by `:`);
//! 3. `$CLAUDE_PROJECT_DIR/.claude/hookrules/` if it holds `*.toml` files
//!    (or the current directory's, when `CLAUDE_PROJECT_DIR` is not set);
//! 4. the default pack built into the binary (`policies/*.toml` at build time).
//!
//! A folder contributes its `*.toml` files in file-name order.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::source::{Origin, PolicySource};
use crate::diagnostics::{Code, Diagnostic};

/// The default pack, compiled into the binary.
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "destructive",
        include_str!("../../policies/destructive.toml"),
    ),
    ("secrets", include_str!("../../policies/secrets.toml")),
];

/// The project's policy folder, relative to the project directory.
pub const PROJECT_POLICY_DIR: &str = ".claude/hookrules";

/// Which policy set was chosen, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// From `--policies`.
    Flag,
    /// From `HOOKRULES_POLICIES`.
    Env,
    /// From the project's policy folder.
    Project(PathBuf),
    /// The built-in pack.
    Builtin,
}

/// Inputs to policy discovery, gathered by the CLI (tests pass their own).
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// `--policies` values.
    pub flags: Vec<PathBuf>,
    /// `HOOKRULES_POLICIES`.
    pub env: Option<String>,
    /// `CLAUDE_PROJECT_DIR`, else the current directory.
    pub project_dir: Option<PathBuf>,
}

/// The policy texts that were found, plus problems reading them.
#[derive(Debug, Default)]
pub struct Found {
    /// Readable sources, in load order.
    pub sources: Vec<Arc<PolicySource>>,
    /// Files that could not be read (each names its path).
    pub errors: Vec<Diagnostic>,
    /// Which step of the search order supplied them.
    pub selection: Option<Selection>,
}

impl Discovery {
    /// Find the policy files, following the documented order.
    pub fn find(&self) -> Found {
        if !self.flags.is_empty() {
            return read_paths(&self.flags, Selection::Flag);
        }
        if let Some(env) = self.env.as_deref().filter(|s| !s.trim().is_empty()) {
            let paths: Vec<PathBuf> = env
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect();
            return read_paths(&paths, Selection::Env);
        }
        if let Some(dir) = &self.project_dir {
            let folder = dir.join(PROJECT_POLICY_DIR);
            if folder.is_dir() {
                let found = read_paths(
                    std::slice::from_ref(&folder),
                    Selection::Project(folder.clone()),
                );
                if !found.sources.is_empty() || !found.errors.is_empty() {
                    return found;
                }
            }
        }
        builtin()
    }
}

/// The built-in pack alone.
pub fn builtin() -> Found {
    Found {
        sources: BUILTIN
            .iter()
            .map(|(name, text)| PolicySource::new(Origin::Builtin(name), *text))
            .collect(),
        errors: vec![],
        selection: Some(Selection::Builtin),
    }
}

/// Look a built-in policy up by name (`builtin:destructive` or `destructive`).
pub fn builtin_named(name: &str) -> Option<Arc<PolicySource>> {
    let name = name.strip_prefix("builtin:").unwrap_or(name);
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, t)| PolicySource::new(Origin::Builtin(n), *t))
}

/// Read the given files and folders (folders: their `*.toml`, sorted).
pub fn read_paths(paths: &[PathBuf], selection: Selection) -> Found {
    let mut found = Found {
        selection: Some(selection),
        ..Found::default()
    };
    for path in paths {
        if let Some(src) = path.to_str().and_then(|p| p.strip_prefix("builtin:")) {
            match builtin_named(src) {
                Some(s) => found.sources.push(s),
                None => found.errors.push(Diagnostic::new(
                    Code::Unreadable,
                    format!("there is no built-in policy named `{src}`"),
                )),
            }
            continue;
        }
        if path.is_dir() {
            match toml_files_in(path) {
                Ok(files) => {
                    for f in files {
                        read_one(&f, &mut found);
                    }
                }
                Err(e) => found.errors.push(unreadable(path, &e)),
            }
        } else {
            read_one(path, &mut found);
        }
    }
    found
}

fn read_one(path: &Path, found: &mut Found) {
    match PolicySource::read(path) {
        Ok(s) => found.sources.push(s),
        Err(e) => found.errors.push(unreadable(path, &e)),
    }
}

fn unreadable(path: &Path, e: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::Unreadable,
        format!("cannot read policy {}: {e}", path.display()),
    )
}

/// The `*.toml` files directly inside a folder, sorted by name.
pub fn toml_files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
        .collect();
    files.sort();
    Ok(files)
}
