//! Where the log goes and what it holds: the `[log]` tables of the loaded policies
//! (each later layer changing the fields it names; `redact` lists adding up), then
//! `HOOKRULES_LOG` (`off`, or a folder) from the environment.
//!
//! Only files that mention a `log` table are parsed for it, so a policy set without
//! one costs nothing here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::policy::log::{LogEvents, LogTable, RawLog};
use crate::source::PolicySource;
use crate::validate::model::FieldPath;

/// Default rotation size.
pub const DEFAULT_MAX_BYTES: u64 = 10_000_000;
/// Default rotated files kept.
pub const DEFAULT_KEEP: u32 = 5;
/// Default cut for long string values.
pub const DEFAULT_MAX_VALUE_CHARS: usize = 2000;
/// Default lifetime of an allow-once code and of the allowance, in minutes.
pub const DEFAULT_ALLOW_MINUTES: u32 = 15;

/// The resolved log settings.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Write the log at all.
    pub enabled: bool,
    /// The folder (None: no state folder could be found, so no log).
    pub dir: Option<PathBuf>,
    /// Which events.
    pub events: LogEvents,
    /// Rotation size.
    pub max_bytes: u64,
    /// Rotated files kept.
    pub keep: u32,
    /// Fields marked secret.
    pub redact: Vec<FieldPath>,
    /// Extra regexes whose matches are redacted.
    pub redact_values: Vec<String>,
    /// Cut string values longer than this.
    pub max_value_chars: usize,
    /// Denies carry allow-once codes.
    pub allow_once: bool,
    /// Lifetime of codes and allowances.
    pub allow_minutes: u32,
    /// Send logged decisions to an OpenTelemetry collector (`[log] export`,
    /// `HOOKRULES_EXPORT=otlp`).
    pub export: bool,
    /// Problems met while reading the settings (reported as warnings).
    pub problems: Vec<String>,
}

#[derive(Deserialize)]
struct OnlyLog {
    log: Option<RawLog>,
}

/// Does this policy text have a `[log]` table (or a top-level `log = ...`)?
fn mentions_log(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"log").is_some()
        && text.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with("[log]")
                || l.strip_prefix("log")
                    .is_some_and(|r| r.trim_start().starts_with('='))
        })
}

/// The `[log]` tables of policy sources, in load order (for the commands that
/// read the log; `run` has them in its compiled set). A table that does not
/// read is left out (`check` reports it).
pub fn tables_from_sources(sources: &[Arc<PolicySource>]) -> Vec<LogTable> {
    // The managed layer's tables last, as in the compiled set: theirs is the last word.
    let managed = |s: &&Arc<PolicySource>| s.layer == crate::source::Layer::Managed;
    sources
        .iter()
        .filter(|s| !managed(s))
        .chain(sources.iter().filter(managed))
        .filter(|s| mentions_log(s.full_text()))
        .filter_map(|s| toml::from_str::<OnlyLog>(s.full_text()).ok()?.log)
        .map(|raw| LogTable::from(&raw))
        .collect()
}

/// The settings for a project from its `[log]` tables (load order) and the
/// environment.
pub fn resolve(
    tables: &[LogTable],
    project_dir: &Path,
    env: &BTreeMap<String, String>,
) -> Settings {
    let mut s = Settings {
        enabled: true,
        dir: default_dir(project_dir, env),
        events: LogEvents::Decisions,
        max_bytes: DEFAULT_MAX_BYTES,
        keep: DEFAULT_KEEP,
        redact: vec![],
        redact_values: vec![],
        max_value_chars: DEFAULT_MAX_VALUE_CHARS,
        allow_once: true,
        allow_minutes: DEFAULT_ALLOW_MINUTES,
        export: false,
        problems: vec![],
    };
    for t in tables {
        apply(&mut s, t, project_dir, env);
    }
    // The variable only turns export on: a policy's `export = "off"` (the
    // managed layer's has the last word) is how it is turned off.
    if env.get("HOOKRULES_EXPORT").is_some_and(|v| v == "otlp") {
        s.export = true;
    }
    match env.get("HOOKRULES_LOG").map(String::as_str) {
        Some("off") | Some("0") | Some("false") => s.enabled = false,
        Some(dir) if !dir.is_empty() => s.dir = Some(expand(dir, project_dir, env)),
        _ => {}
    }
    if s.dir.is_none() {
        s.enabled = false;
    }
    s
}

fn apply(s: &mut Settings, t: &LogTable, project_dir: &Path, env: &BTreeMap<String, String>) {
    if let Some(e) = t.enabled {
        s.enabled = e;
    }
    if let Some(d) = &t.dir {
        s.dir = Some(expand(d, project_dir, env));
    }
    if let Some(e) = t.events {
        s.events = e;
    }
    if let Some(m) = t.max_bytes {
        s.max_bytes = m.max(4096);
    }
    if let Some(k) = t.keep {
        s.keep = k.max(1);
    }
    for r in &t.redact {
        match FieldPath::parse(r) {
            Ok(p) => s.redact.push(p),
            Err(e) => s.problems.push(format!("[log] redact: {e}")),
        }
    }
    s.redact_values.extend(t.redact_values.iter().cloned());
    if let Some(m) = t.max_value_chars {
        s.max_value_chars = (m as usize).max(16);
    }
    if let Some(a) = t.allow_once {
        s.allow_once = a;
    }
    if let Some(m) = t.allow_minutes {
        s.allow_minutes = m.clamp(1, 24 * 60);
    }
    if let Some(e) = t.export {
        s.export = e == crate::policy::log::Export::Otlp;
    }
}

/// `~/x` and relative paths (against the project directory).
fn expand(p: &str, project_dir: &Path, env: &BTreeMap<String, String>) -> PathBuf {
    if let (Some(rest), Some(home)) = (p.strip_prefix("~/"), env.get("HOME")) {
        return PathBuf::from(home).join(rest);
    }
    project_dir.join(p)
}

/// `$XDG_STATE_HOME/hookrules` (default `~/.local/state/hookrules`): see
/// [`crate::os::state::state_home`].
pub fn state_home(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    crate::os::state::state_home(env)
}

/// The default log folder of a project: `<state home>/projects/<slug>`, where the
/// slug is the project path made readable plus a hash (two paths never share one).
pub fn default_dir(project_dir: &Path, env: &BTreeMap<String, String>) -> Option<PathBuf> {
    Some(state_home(env)?.join("projects").join(slug(project_dir)))
}

/// `/home/me/src/app` -> `home-me-src-app-1a2b3c4d`.
pub fn slug(project_dir: &Path) -> String {
    let text = project_dir.to_string_lossy();
    let mut readable: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    if readable.len() > 60 {
        readable = readable[readable.len() - 60..]
            .trim_start_matches('-')
            .to_string();
    }
    let h = crate::compile::artifact::hash(0, &[text.as_bytes()]);
    format!("{readable}-{:08x}", (h as u32))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Origin, PolicySource};

    fn env() -> BTreeMap<String, String> {
        [("HOME".to_string(), "/home/me".to_string())].into()
    }

    #[test]
    fn later_layers_change_fields_and_redactions_add_up() {
        let a = PolicySource::new(
            Origin::Builtin("a"),
            "[log]\nevents = \"all\"\nredact = [\"tool_input.content\"]\nmax_value_chars = 100\n",
        );
        let b = PolicySource::new(
            Origin::Builtin("b"),
            "[[rule]]\nid = \"x\"\nevents = [\"Stop\"]\n[log]\ndir = \"logs\"\nredact = [\"tool_input.env.*\"]\n",
        );
        let s = resolve(&tables_from_sources(&[a, b]), Path::new("/p"), &env());
        assert!(s.enabled);
        assert_eq!(s.events, LogEvents::All);
        assert_eq!(s.dir, Some(PathBuf::from("/p/logs")));
        assert_eq!(s.redact.len(), 2);
        assert_eq!(s.max_value_chars, 100);
        let off = PolicySource::new(Origin::Builtin("c"), "[log]\nenabled = false\n");
        assert!(!resolve(&tables_from_sources(&[off]), Path::new("/p"), &env()).enabled);
    }

    #[test]
    fn default_folder_is_per_project_under_the_state_home() {
        let s = resolve(&[], Path::new("/home/me/src/app"), &env());
        let dir = s.dir.unwrap();
        assert!(dir
            .to_string_lossy()
            .starts_with("/home/me/.local/state/hookrules/projects/home-me-src-app-"));
        assert_ne!(slug(Path::new("/a/b-c")), slug(Path::new("/a/b/c")));
        let mut e = env();
        e.insert("HOOKRULES_LOG".into(), "off".into());
        assert!(!resolve(&[], Path::new("/p"), &e).enabled);
    }
}
