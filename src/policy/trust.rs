//! Repository trust: which project policies the user has trusted, exactly.
//!
//! A policy in the project layer (`.claude/hookrules/*.toml`, the
//! `*.local.toml` files beside them, and every file they `extends`) comes with
//! the repository, or was written by the agent: its loosenings and the
//! commands it runs ([`super::loosening`]) take effect only once the user has
//! trusted that exact content with `hookrules trust`. Stricter rules need no
//! trust.
//!
//! A `*.local.toml` that git neither tracks nor would add (ignored) is the
//! user's own and needs no trust (`discover::Trusted`, asked of `os::git`);
//! one git tracks, does not ignore, or cannot answer for is treated like the
//! committed files: a clone can carry one (committed despite the `.gitignore`
//! that `init` writes, or in an archive), and hookrules cannot tell it from
//! one the user wrote.
//!
//! A trust is recorded in the user's state folder (`<state>/trust/`), never in
//! the project, as a file named by a MAC (HMAC-SHA256 under the user's key,
//! see `os::state`) of the project it was given in, the policy's absolute path
//! and the SHA-256 of its text: the name cannot be computed without the key,
//! so the file's existence is the proof, and an edited file (another hash),
//! the same text at another path, or the same file pulled into another
//! project (a clone's policy that `extends` a file the user trusted for
//! another project) is untrusted again. The file holds the project, the path,
//! the hash and who trusted it, for `hookrules trust --list`.
//!
//! Records made before trust was bound to a project (`v1`: path and hash
//! only) still count for a file in the session's own project policy folder,
//! where the project is the file's own; nowhere else.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::os::state::{self, KeyError, UserKey};

/// The MAC purpose of records bound to a project.
const TRUST_PURPOSE: &str = "hookrules trust v2";
/// The MAC purpose of records made before trust was bound to a project.
const TRUST_PURPOSE_V1: &str = "hookrules trust v1";

/// The folder of trust records in a state folder.
pub fn trust_dir(state_home: &Path) -> PathBuf {
    state_home.join("trust")
}

/// The SHA-256 of a policy's text, as hex.
pub fn content_hash(text: &str) -> String {
    state::hex(&Sha256::digest(text.as_bytes()))
}

/// The identity a trust is keyed to: the path the policy was found at, with
/// the project above its policy folder resolved (a session that opens the
/// project through a link to it is the same project) and nothing below it:
/// the file at `B/.claude/hookrules/x.local.toml` is B's, even when it, or
/// B's policy folder, is a link to the file another project's trust covers
/// (a clone cannot borrow that trust). A path outside a policy folder (a
/// file a policy `extends`) is the file it resolves to.
pub fn identity(path: &Path) -> PathBuf {
    let abs = crate::os::files::lexical_normalize(&if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    });
    let parts: Vec<_> = abs.components().collect();
    let folder = parts
        .windows(2)
        .rposition(|w| w[0].as_os_str() == ".claude" && w[1].as_os_str() == "hookrules");
    match folder {
        Some(at) => {
            let project: PathBuf = parts[..at].iter().collect();
            let below: PathBuf = parts[at..].iter().collect();
            fs::canonicalize(&project).unwrap_or(project).join(below)
        }
        None => fs::canonicalize(&abs).unwrap_or(abs),
    }
}

/// The project a trust is given in and counts for: the session's project
/// folder, resolved (a session that opens it through a link is the same
/// project).
pub fn project_identity(project: &Path) -> PathBuf {
    // `discover` names the project relative to the working folder when no
    // variable names it (`..`, or the empty path for the folder itself).
    let abs = std::env::current_dir().unwrap_or_default().join(project);
    fs::canonicalize(&abs).unwrap_or_else(|_| crate::os::files::lexical_normalize(&abs))
}

/// One trust record, as stored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Record {
    /// The project the trust was given in (empty: a record made before trust
    /// was bound to a project).
    #[serde(default)]
    pub project: String,
    /// The policy file, absolute.
    pub path: String,
    /// The SHA-256 of the text that was trusted.
    pub sha256: String,
    /// Who trusted it (`user@host`).
    #[serde(default)]
    pub by: String,
    /// When (ms since the epoch).
    #[serde(default)]
    pub time_ms: i64,
}

/// The user's trust store.
#[derive(Debug)]
pub struct Store {
    state_home: PathBuf,
    key: Result<UserKey, KeyError>,
}

impl Store {
    /// The store of a state folder (the key is read, never created, here).
    pub fn open(state_home: &Path) -> Store {
        Store {
            state_home: state_home.to_path_buf(),
            key: UserKey::load(state_home),
        }
    }

    /// Why nothing can be trusted, if so (no key yet is not a problem: then
    /// nothing was trusted yet).
    pub fn problem(&self) -> Option<&KeyError> {
        match &self.key {
            Err(KeyError::Missing(_)) | Ok(_) => None,
            Err(e) => Some(e),
        }
    }

    /// The record's file name: a MAC of the project (none: a `v1` record),
    /// the path and the hash.
    fn name(key: &UserKey, project: Option<&Path>, path: &Path, sha256: &str) -> String {
        let path = path.to_string_lossy();
        let mac = match project {
            Some(project) => key.mac_hex(
                TRUST_PURPOSE,
                &[
                    project.to_string_lossy().as_bytes(),
                    path.as_bytes(),
                    sha256.as_bytes(),
                ],
            ),
            None => key.mac_hex(TRUST_PURPOSE_V1, &[path.as_bytes(), sha256.as_bytes()]),
        };
        format!("{}.json", &mac[..40])
    }

    fn holds(&self, name: &str) -> bool {
        fs::symlink_metadata(trust_dir(&self.state_home).join(name))
            .is_ok_and(|m| m.file_type().is_file())
    }

    /// Has the user trusted this text at this path for this project? A
    /// record made before trust was bound to a project counts only for a file
    /// in the project's own policy folder.
    pub fn is_trusted(&self, project: &Path, path: &Path, text: &str) -> bool {
        let Ok(key) = &self.key else { return false };
        let (project, id, sha) = (
            project_identity(project),
            identity(path),
            content_hash(text),
        );
        self.holds(&Store::name(key, Some(&project), &id, &sha))
            || (id.starts_with(project.join(".claude/hookrules"))
                && self.holds(&Store::name(key, None, &id, &sha)))
    }

    /// Trust this text at this path for this project (the key is created if
    /// there is none).
    pub fn trust(
        &mut self,
        project: &Path,
        path: &Path,
        text: &str,
        by: &str,
    ) -> Result<PathBuf, String> {
        if matches!(self.key, Err(KeyError::Missing(_))) {
            self.key = UserKey::load_or_create(&self.state_home);
        }
        let key = self.key.as_ref().map_err(|e| e.to_string())?;
        let project = project_identity(project);
        let id = identity(path);
        let sha = content_hash(text);
        let dir = trust_dir(&self.state_home);
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let file = dir.join(Store::name(key, Some(&project), &id, &sha));
        let record = Record {
            project: project.display().to_string(),
            path: id.display().to_string(),
            sha256: sha,
            by: by.to_string(),
            time_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_millis() as i64)
                .unwrap_or(0),
        };
        let text = serde_json::to_vec_pretty(&record).map_err(|e| e.to_string())?;
        crate::os::files::write_atomic(&file, &text)
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
        Ok(file)
    }

    /// Every trust record whose name verifies under the key, by path (records
    /// that do not verify are left out: they were not made by `hookrules trust`
    /// with this key).
    pub fn list(&self) -> BTreeMap<String, Vec<Record>> {
        let mut out: BTreeMap<String, Vec<Record>> = BTreeMap::new();
        let Ok(key) = &self.key else { return out };
        let Ok(entries) = fs::read_dir(trust_dir(&self.state_home)) else {
            return out;
        };
        for e in entries.flatten() {
            let Ok(text) = crate::os::files::read_capped(&e.path(), 1 << 16) else {
                continue;
            };
            let Ok(r) = serde_json::from_str::<Record>(&text) else {
                continue;
            };
            let project = Some(Path::new(&r.project)).filter(|_| !r.project.is_empty());
            if Store::name(key, project, Path::new(&r.path), &r.sha256)
                == e.file_name().to_string_lossy()
            {
                out.entry(r.path.clone()).or_default().push(r);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary folder (kept while the guard lives), its path resolved,
    /// and a state folder in it.
    fn folder() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let state = root.join("state");
        (dir, root, state)
    }

    /// A policy file holding `x` at `path`, its folders made.
    fn policy(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, "x").unwrap();
    }

    #[test]
    fn trust_is_for_this_text_at_this_path_under_this_key() {
        let (_dir, root, state) = folder();
        let proj = root.join("proj");
        let p = proj.join(".claude/hookrules/a.toml");
        policy(&p);
        let mut store = Store::open(&state);
        assert!(!store.is_trusted(&proj, &p, "x"), "no key, nothing trusted");
        store.trust(&proj, &p, "x", "me").unwrap();
        let store = Store::open(&state);
        assert!(store.is_trusted(&proj, &p, "x"));
        assert!(!store.is_trusted(&proj, &p, "x "), "another text");
        let q = proj.join(".claude/hookrules/b.toml");
        fs::write(&q, "x").unwrap();
        assert!(!store.is_trusted(&proj, &q, "x"), "the same text elsewhere");
        assert_eq!(store.list().len(), 1);
        // A record whose name was not made with the key is not a trust.
        let forged = trust_dir(&state).join(format!("{}.json", "ab".repeat(20)));
        fs::write(&forged, serde_json::to_vec(&store.list()).unwrap()).unwrap();
        assert_eq!(store.list().len(), 1);
        // Another key (the file was removed and made again): nothing is trusted.
        fs::remove_file(state::key_path(&state)).unwrap();
        UserKey::load_or_create(&state).unwrap();
        assert!(!Store::open(&state).is_trusted(&proj, &p, "x"));
    }

    #[test]
    fn trust_stays_with_the_project_a_file_is_found_in() {
        use std::os::unix::fs::symlink;
        let (_dir, root, state) = folder();
        let a = root.join("a/.claude/hookrules/me.local.toml");
        policy(&a);
        let mut store = Store::open(&state);
        store.trust(&root.join("a"), &a, "x", "me").unwrap();
        let store = Store::open(&state);
        assert!(store.is_trusted(&root.join("a"), &a, "x"));
        // B's file is a link to A's: B's own, untrusted.
        let b = root.join("b/.claude/hookrules/me.local.toml");
        fs::create_dir_all(b.parent().unwrap()).unwrap();
        symlink(&a, &b).unwrap();
        assert!(
            !store.is_trusted(&root.join("b"), &b, "x"),
            "a file link into a trusted file"
        );
        // C's policy folder is a link to A's.
        fs::create_dir_all(root.join("c/.claude")).unwrap();
        symlink(a.parent().unwrap(), root.join("c/.claude/hookrules")).unwrap();
        let c = root.join("c/.claude/hookrules/me.local.toml");
        assert!(
            !store.is_trusted(&root.join("c"), &c, "x"),
            "a folder link into a trusted folder"
        );
        // A itself, opened through a link to the project: the same project.
        symlink(root.join("a"), root.join("a-link")).unwrap();
        let via = root.join("a-link/.claude/hookrules/me.local.toml");
        assert!(
            store.is_trusted(&root.join("a-link"), &via, "x"),
            "the project through a link"
        );
        // A's file pulled into D by D's own policy (`extends`): the trust was
        // given for A, not for D.
        assert!(
            !store.is_trusted(&root.join("d"), &a, "x"),
            "a trusted file extended by another project"
        );
    }

    #[test]
    fn a_shared_file_is_trusted_per_project() {
        let (_dir, root, state) = folder();
        let shared = root.join("team/base.toml");
        policy(&shared);
        let mut store = Store::open(&state);
        store.trust(&root.join("a"), &shared, "x", "me").unwrap();
        let store = Store::open(&state);
        assert!(store.is_trusted(&root.join("a"), &shared, "x"));
        assert!(
            !store.is_trusted(&root.join("b"), &shared, "x"),
            "trusted for A, extended by B"
        );
    }

    #[test]
    fn a_record_made_before_projects_counts_only_in_its_own_project() {
        let (_dir, root, state) = folder();
        let a = root.join("a/.claude/hookrules/me.local.toml");
        policy(&a);
        let key = UserKey::load_or_create(&state).unwrap();
        let name = Store::name(&key, None, &identity(&a), &content_hash("x"));
        fs::create_dir_all(trust_dir(&state)).unwrap();
        let record = Record {
            project: String::new(),
            path: identity(&a).display().to_string(),
            sha256: content_hash("x"),
            by: "me".into(),
            time_ms: 0,
        };
        fs::write(
            trust_dir(&state).join(name),
            serde_json::to_vec(&record).unwrap(),
        )
        .unwrap();
        let store = Store::open(&state);
        assert!(
            store.is_trusted(&root.join("a"), &a, "x"),
            "its own project"
        );
        assert!(
            !store.is_trusted(&root.join("b"), &a, "x"),
            "another project"
        );
        assert_eq!(store.list().len(), 1, "listed");
    }
}
