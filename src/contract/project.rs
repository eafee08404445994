//! Which project an event belongs to: one answer, asked by everything that
//! needs it (policy discovery, evaluation, the decision log, allow-once,
//! `replay`), so that they never disagree about the project root.
//!
//! The client names the project in `CLAUDE_PROJECT_DIR` (Claude Code always
//! sets it for a hook; Gemini CLI sets it too). Without it (a person running
//! `hookrules` in a terminal, a host that does not set it), the project is found
//! from a starting folder up: the event's `cwd`, else the process's folder.
//!
//! A Windows path (an agent on Windows) is read in the one spelling the shell
//! analysis reads (`C:\Users\dev\proj` is `/c/Users/dev/proj`).

use crate::os::env::Env;
use std::path::{Path, PathBuf};

use crate::shell::place::posix as posix_path;

/// A project's policy folder, relative to the project (`.claude/hookrules`).
pub const POLICY_DIR: &str = ".claude/hookrules";

/// The project folder, absolute: `CLAUDE_PROJECT_DIR` (relative to the
/// process's folder when it is relative), else [`root_from`] `start` (relative
/// to the process's folder; None: the process's folder itself).
pub fn resolve(env: &Env, start: Option<&Path>) -> PathBuf {
    let absolute = |p: &Path| {
        if p.is_absolute() {
            p.to_path_buf()
        } else {
            std::env::current_dir()
                .unwrap_or_else(|_| PathBuf::from("/"))
                .join(p)
        }
    };
    let posix = |p: &str| posix_path(p).unwrap_or_else(|| p.to_string());
    if let Some(dir) = env.get("CLAUDE_PROJECT_DIR").filter(|s| !s.is_empty()) {
        return absolute(Path::new(&posix(&dir)));
    }
    let start = match start {
        Some(s) => absolute(s),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/")),
    };
    let home = env.get("HOME").map(|h| PathBuf::from(posix(&h)));
    root_from(&start, home.as_deref())
}

/// The project a folder belongs to when `CLAUDE_PROJECT_DIR` is not set: the
/// repository root (the nearest folder, from `start` up, holding `.git`), else
/// the outermost folder holding `.claude/hookrules/`, else `start`. The walk
/// stops at the home folder, whose `.claude/` is the client's user
/// configuration, not a project.
///
/// A `.claude/hookrules/` inside the project (a dependency under
/// `node_modules/`, a vendored package, a sub-folder the agent made) is the
/// project's content, never the project: were the nearest one the project, a
/// session whose folder is inside such a dependency (Codex and Cursor set no
/// `CLAUDE_PROJECT_DIR`) would leave the real project's policies, and the
/// trust given to them, for the dependency's.
pub fn root_from(start: &Path, home: Option<&Path>) -> PathBuf {
    let mut with_policies = None;
    for dir in start.ancestors() {
        if home.is_some_and(|h| h == dir) {
            break;
        }
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
        if dir.join(POLICY_DIR).is_dir() {
            with_policies = Some(dir);
        }
    }
    with_policies.unwrap_or(start).to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_is_the_repository_not_a_folder_with_policies_inside_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let dep = root.join("repo/node_modules/dep");
        std::fs::create_dir_all(dep.join(POLICY_DIR)).unwrap();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/.claude/hookrules")).unwrap();
        assert_eq!(root_from(&dep, None), root.join("repo"));
        assert_eq!(root_from(&dep.join("lib"), None), root.join("repo"));
        // Without git: the outermost folder with policies.
        std::fs::remove_dir_all(root.join("repo/.git")).unwrap();
        assert_eq!(root_from(&dep, None), root.join("repo"));
        std::fs::remove_dir_all(root.join("repo/.claude")).unwrap();
        assert_eq!(root_from(&dep, None), dep, "alone, it is its own project");
        // Never the home folder.
        assert_eq!(root_from(&dep, Some(&root.join("repo"))), dep);
    }
}
