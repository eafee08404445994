//! The managed layer: policies the machine's administrator installs, which
//! nothing below them can loosen.
//!
//! **Where.** `/etc/hookrules/*.toml` on Linux, `/Library/Application
//! Support/hookrules/*.toml` on macOS ([`default_dir`]). Debug builds (the
//! test suite) take the folder from `HOOKRULES_MANAGED_DIR`; release builds
//! never read that variable, since a repository can set a hook's environment.
//!
//! **Whose.** A file loads only when it, its folder and every folder above
//! where they really land are root's and writable by nobody else
//! ([`crate::os::owner`]); `extends` of a managed policy are held to the same.
//! Anything else in the folder is refused, and `check` and `doctor` say which
//! file and why.
//!
//! **Required.** A refused or unreadable policy that says `[managed] required =
//! true`, and a bundle named in `HOOKRULES_MANAGED_REQUIRED` (comma-separated
//! bundle names, set by the administrator in the client's managed settings)
//! that did not load, make every run fail closed, with a message naming the
//! file or bundle: never a silent run without the organisation's rules. A
//! refused file is read for `required = true` only: a file nobody vouches for
//! can add that demand, never take anything away.
//!
//! **Pinned.** The managed layer loads right after the built-in pack. Its rules,
//! and the pack parts it names in `[managed] builtin`, are pinned: an
//! `[[override]]` (by id, glob or tag) or a same-id rule from any other layer
//! (user, project, local, `--policies`, `HOOKRULES_POLICIES`) leaves them as
//! they are, with a note `check --rules` and `explain` show
//! ([`super::layering`]). Pinned pack parts stay loaded under `builtin =
//! false` and `--no-builtin` ([`pin_pack`]). Lower layers still add rules, and
//! the strictest decision wins, so they can only tighten.

use crate::os::env::Env;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::discover::{self, Discovery, Found, BUILTIN};
use super::syntax::{PinBuiltin, RawManaged};
use crate::diagnostics::{Code, Diagnostic};
use crate::os::owner;
use crate::source::{Layer, Origin, PolicySource};

/// The environment variable naming bundles that must load.
pub const REQUIRED_VAR: &str = "HOOKRULES_MANAGED_REQUIRED";

/// The managed folder of this platform, and (debug builds only) the test
/// suite's `HOOKRULES_MANAGED_DIR`.
pub fn default_dir(env: &Env) -> Option<PathBuf> {
    if cfg!(debug_assertions) {
        if let Some(d) = env.get("HOOKRULES_MANAGED_DIR") {
            return (!d.is_empty()).then(|| PathBuf::from(d));
        }
    }
    if cfg!(windows) {
        Some(PathBuf::from(windows_dir(env)))
    } else if cfg!(target_os = "macos") {
        Some(PathBuf::from("/Library/Application Support/hookrules"))
    } else {
        Some(PathBuf::from("/etc/hookrules"))
    }
}

/// `%ProgramData%\hookrules`: `ProgramData` (any letter case, as Windows
/// reads it) when it is a drive path (`D:\ProgramData`), else
/// `C:\ProgramData`. A project file that sets `ProgramData` is ignored before
/// this reads it ([`crate::os::repo_env`]), so a repository cannot move the
/// managed folder.
fn windows_dir(env: &Env) -> String {
    let drive_path = |v: &str| {
        let b = v.as_bytes();
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/')
    };
    // The whole environment: the name in any letter case (Windows only).
    let all = env.vars();
    let base = all
        .iter()
        .find(|(k, v)| k.eq_ignore_ascii_case("ProgramData") && drive_path(v))
        .map(|(_, v)| v.trim_end_matches(['\\', '/']))
        .unwrap_or(r"C:\ProgramData");
    format!(r"{base}\hookrules")
}

/// The bundles `HOOKRULES_MANAGED_REQUIRED` names.
pub fn required_from_env(env: &Env) -> Vec<String> {
    env.get(REQUIRED_VAR)
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// What the managed layer holds, for `check`, `doctor` and the set.
#[derive(Debug, Default, Clone)]
pub struct Report {
    /// The folder, when it exists.
    pub dir: Option<PathBuf>,
    /// Loaded policies: (file, bundle name).
    pub loaded: Vec<(PathBuf, String)>,
    /// Refused files.
    pub refused: Vec<Refused>,
    /// Required bundles that did not load.
    pub missing: Vec<String>,
    /// The pack parts pinned by `[managed] builtin`.
    pub pinned_builtin: Vec<&'static str>,
}

impl Report {
    /// Does the managed layer make every run fail closed?
    pub fn fails_closed(&self) -> bool {
        !self.missing.is_empty() || self.refused.iter().any(|r| r.required)
    }
}

/// A managed file that was not loaded.
#[derive(Debug, Clone)]
pub struct Refused {
    /// The file (or folder).
    pub path: PathBuf,
    /// Why.
    pub why: String,
    /// It was required: runs fail closed.
    pub required: bool,
}

/// The managed layer as read.
#[derive(Debug, Default)]
pub struct Read {
    /// Policies that load, in load order (layer: managed).
    pub sources: Vec<Arc<PolicySource>>,
    /// Failures that make runs fail closed.
    pub errors: Vec<Diagnostic>,
    /// What to show.
    pub report: Report,
}

impl Read {
    /// Nothing managed: no folder, nothing required.
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty() && self.errors.is_empty() && self.report.dir.is_none()
    }
}

/// The header fields the managed layer reads before a policy is parsed.
#[derive(serde::Deserialize, Default)]
struct Head {
    #[serde(default)]
    policy: HeadPolicy,
    managed: Option<RawManaged>,
}
#[derive(serde::Deserialize, Default)]
struct HeadPolicy {
    name: Option<String>,
}

/// A policy's header, leniently: a file that does not parse has none.
fn head(text: &str) -> Head {
    if !text.contains("managed") && !text.contains("name") {
        return Head::default();
    }
    toml::from_str::<Head>(text).unwrap_or_default()
}

/// A policy's bundle name: `[policy] name`, else the file stem (as recorded
/// with every decision, see `compile::provenance`).
fn bundle_name(source: &PolicySource, head: &Head) -> String {
    head.policy.name.clone().unwrap_or_else(|| source.stem())
}

/// Read the managed layer of `d`.
pub fn read(d: &Discovery) -> Read {
    let mut out = Read::default();
    if let Some(dir) = d.managed_dir.as_ref().filter(|dir| dir.exists()) {
        read_dir(dir, d, &mut out);
    }
    for name in &d.managed_required {
        if !out.report.loaded.iter().any(|(_, n)| n == name) {
            out.report.missing.push(name.clone());
        }
    }
    for name in &out.report.missing {
        let place = d
            .managed_dir
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        out.errors.push(failure(format!(
            "the required managed policy `{name}` is not loaded from {place}; every call fails closed until it is installed"
        )));
    }
    out
}

fn read_dir(dir: &Path, d: &Discovery, out: &mut Read) {
    out.report.dir = Some(dir.to_path_buf());
    let folder = owner::admin_owned(dir);
    let mut found = Found::default();
    discover::read_folder(dir, &mut found, |_| Layer::Managed);
    let required_by_env = |name: &str| d.managed_required.iter().any(|n| n == name);
    // A folder anyone could write is said even while it holds nothing: a file
    // dropped there would be refused, and the administrator should know why.
    if let (Err(e), true) = (&folder, found.sources.is_empty() && found.errors.is_empty()) {
        out.report.refused.push(Refused {
            path: dir.to_path_buf(),
            why: e.to_string(),
            required: false,
        });
    }
    for source in found.sources {
        let h = head(&source.text);
        let name = bundle_name(&source, &h);
        let verdict = match &source.origin {
            Origin::File(p) => folder
                .clone()
                .and_then(|()| owner::admin_owned(p))
                .map_err(|e| (p.clone(), e.to_string())),
            Origin::Builtin(_) => Ok(()),
        };
        match verdict {
            Ok(()) => {
                if let Origin::File(p) = &source.origin {
                    out.report.loaded.push((p.clone(), name));
                }
                if let Some(pin) = h.managed.as_ref().and_then(|m| m.builtin.as_ref()) {
                    for part in pinned_parts(pin) {
                        if !out.report.pinned_builtin.contains(&part) {
                            out.report.pinned_builtin.push(part);
                        }
                    }
                }
                out.sources.push(source);
            }
            Err((path, why)) => {
                let required = h.managed.as_ref().and_then(|m| m.required) == Some(true)
                    || required_by_env(&name);
                if required {
                    out.errors.push(failure(format!(
                        "the required managed policy {} is refused: {why}; every call fails closed until it is root's again",
                        path.display()
                    )));
                }
                out.report.refused.push(Refused {
                    path,
                    why,
                    required,
                });
            }
        }
    }
    // Files that could not be read at all: fail closed, as in every layer, when
    // the folder is the administrator's; in a folder anyone can write, they are
    // only reported (nobody vouches for them).
    for e in found.errors {
        if folder.is_ok() {
            out.errors.push(e);
        } else {
            out.report.refused.push(Refused {
                path: dir.to_path_buf(),
                why: e.message.clone(),
                required: false,
            });
        }
    }
}

/// The pack parts a `[managed] builtin` names.
fn pinned_parts(pin: &PinBuiltin) -> Vec<&'static str> {
    match pin {
        PinBuiltin::All(true) => BUILTIN.iter().map(|(n, _)| *n).collect(),
        PinBuiltin::All(false) => vec![],
        PinBuiltin::Parts(names) => BUILTIN
            .iter()
            .map(|(n, _)| *n)
            .filter(|n| {
                names
                    .iter()
                    .any(|x| x.strip_prefix("builtin:").unwrap_or(x) == *n)
            })
            .collect(),
    }
}

/// The policy name of the managed layer's failures (`managed:load`).
pub const FAILURE_NAME: &str = "managed";

/// Is the policy named `name` the managed layer's (one of its bundles, or its
/// failure)?
pub fn is_managed_policy(name: &str, set: &crate::compile::provenance::Provenance) -> bool {
    name == FAILURE_NAME
        || set
            .bundles
            .iter()
            .any(|b| b.layer == Layer::Managed && b.name == name)
}

/// A failure of the managed layer: an unloadable policy with no file of its
/// own (so the broken-file exception, which lets the agent fix a policy it can
/// write, never applies), failing closed.
fn failure(message: String) -> Diagnostic {
    let source = PolicySource::in_layer(Origin::Builtin(FAILURE_NAME), "", Layer::Managed);
    Diagnostic::new(Code::Unreadable, message)
        .at(&source, 0..0)
        .help("`hookrules doctor` shows the managed layer; the administrator installs /etc/hookrules (root-owned, not writable by others)")
}

/// Put the pinned pack parts back when a layer or `--no-builtin` turned the
/// pack off: first, as the pack always loads.
pub fn pin_pack(found: &mut Found, parts: &[&'static str]) {
    let missing: Vec<Arc<PolicySource>> = parts
        .iter()
        .filter(|p| !found.sources.iter().any(|s| s.origin == Origin::Builtin(p)))
        .filter_map(|p| discover::builtin_named(p))
        .collect();
    if missing.is_empty() {
        return;
    }
    let below = std::mem::take(&mut found.sources);
    found.sources = missing;
    found.sources.extend(below);
}

/// Is this source's rule pinned (managed, or a pinned pack part)?
pub fn pinned(source: &PolicySource, pinned_builtin: &[&str]) -> bool {
    match (&source.origin, source.layer) {
        (_, Layer::Managed) => true,
        (Origin::Builtin(name), Layer::Builtin) => pinned_builtin.contains(name),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_windows_folder_is_program_data_s_hookrules() {
        assert_eq!(windows_dir(&env(&[])), r"C:\ProgramData\hookrules");
        assert_eq!(
            windows_dir(&env(&[("ProgramData", r"D:\ProgramData\")])),
            r"D:\ProgramData\hookrules"
        );
        assert_eq!(
            windows_dir(&env(&[("PROGRAMDATA", "E:/Data")])),
            r"E:/Data\hookrules"
        );
        // Not a drive path: the default.
        for v in ["", "ProgramData", r"\\server\share", "/etc", "C:"] {
            assert_eq!(
                windows_dir(&env(&[("ProgramData", v)])),
                r"C:\ProgramData\hookrules",
                "{v}"
            );
        }
    }
}
