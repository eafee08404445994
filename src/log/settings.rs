//! Where the log goes and what it holds: the `[log]` tables of the loaded policies
//! (each later layer changing the fields it names; `redact` lists adding up), then
//! the user's environment (`HOOKRULES_EXPORT=otlp` turns export on;
//! `HOOKRULES_LOG`: `off`, or a folder), then the managed layer's tables, which
//! have the last word on every key they name.
//!
//! When the managed layer has a `[log]` table, it pins the audit trail: nothing
//! below it (user and project tables, trusted or not, and the environment) may
//! record or export less ([`LogTable::loosens`]); what would is left out and
//! listed in [`Settings::kept`]. A project file's loosenings of the log were
//! already left out at compile time unless the user trusted it
//! (`policy::loosening`). A repository cannot set `HOOKRULES_*` at all
//! (`os::repo_env`).
//!
//! Only files that mention a `log` table are parsed for it, so a policy set without
//! one costs nothing here.

use crate::os::env::Env;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use crate::policy::discover::Trusted;
use crate::policy::log::{Export, LogEvents, LogTable, RawLog};
use crate::source::{Layer, PolicySource};
use crate::validate::model::FieldPath;

pub use crate::policy::log::{
    DEFAULT_ALLOW_MINUTES, DEFAULT_KEEP, DEFAULT_MAX_BYTES, DEFAULT_MAX_VALUE_CHARS,
};

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
    /// What the managed layer's `[log]` kept out: settings from below it that
    /// would have recorded or exported less (`HOOKRULES_LOG=off`, `enabled = false`
    /// in a user policy, ...), as `key = value (where)`.
    pub kept: Vec<String>,
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

/// The `[log]` tables of the policies `found` holds, as the compiled set keeps
/// them (for the commands that read the log; `run` has them in its compiled
/// set): the managed layer's last and marked; from a project-layer file the user
/// has not trusted, what would loosen the log left out. A table that does not
/// read is left out (`check` reports it).
pub fn tables_of(found: &crate::policy::discover::Found) -> Vec<LogTable> {
    let managed = |s: &&Arc<PolicySource>| s.layer == Layer::Managed;
    let mut before = LogTable::default();
    let mut tables = vec![];
    for s in found.sources.iter().filter(|s| !managed(s)) {
        let Some(t) = table_of(s) else {
            continue;
        };
        let t = if Trusted::needs_trust(s.layer) && !found.trusted.covers(s) {
            t.without(&t.loosens(&before))
        } else {
            t
        };
        t.merge(&mut before);
        tables.push(t);
    }
    for s in found.sources.iter().filter(managed) {
        tables.extend(table_of(s).map(|t| LogTable { managed: true, ..t }));
    }
    tables
}

/// The `[log]` table of one policy text, if it has one that reads.
fn table_of(s: &PolicySource) -> Option<LogTable> {
    if !mentions_log(s.full_text()) {
        return None;
    }
    let raw = toml::from_str::<OnlyLog>(s.full_text()).ok()?.log?;
    Some(LogTable::from(&raw))
}

/// The settings for a project from its `[log]` tables (load order, the
/// managed layer's last) and the environment (see the module docs).
pub fn resolve(tables: &[LogTable], project_dir: &Path, env: &Env) -> Settings {
    let pinned = tables.iter().any(|t| t.managed);
    let mut kept = vec![];
    let mut merged = LogTable::default();
    let mut below = |t: &LogTable, from: &str, merged: &mut LogTable| {
        let loosens = if pinned { t.loosens(merged) } else { vec![] };
        for k in &loosens {
            kept.push(format!("{} ({from})", k.name()));
        }
        t.without(&loosens).merge(merged);
    };
    for t in tables.iter().filter(|t| !t.managed) {
        below(t, "a policy below the managed layer", &mut merged);
    }
    // The user's environment (a repository's settings cannot set it:
    // `os::repo_env`). The variable only turns export on.
    let mut from_env = LogTable::default();
    if env.get("HOOKRULES_EXPORT").is_some_and(|v| v == "otlp") {
        from_env.export = Some(Export::Otlp);
    }
    match env.get("HOOKRULES_LOG").as_deref() {
        Some("off") | Some("0") | Some("false") => from_env.enabled = Some(false),
        Some(dir) if !dir.is_empty() => from_env.dir = Some(dir.to_string()),
        _ => {}
    }
    below(&from_env, "HOOKRULES_LOG or HOOKRULES_EXPORT", &mut merged);
    for t in tables.iter().filter(|t| t.managed) {
        t.merge(&mut merged);
    }
    let mut s = settings_of(&merged, project_dir, env);
    s.kept = kept;
    s
}

/// The settings a merged table gives.
fn settings_of(t: &LogTable, project_dir: &Path, env: &Env) -> Settings {
    let mut problems = vec![];
    let mut redact = vec![];
    for r in &t.redact {
        match FieldPath::parse(r) {
            Ok(p) => redact.push(p),
            Err(e) => problems.push(format!("[log] redact: {e}")),
        }
    }
    let dir = match &t.dir {
        Some(d) => Some(expand(d, project_dir, env)),
        None => default_dir(project_dir, env),
    };
    Settings {
        enabled: t.enabled != Some(false) && dir.is_some(),
        dir,
        events: t.events.unwrap_or_default(),
        max_bytes: t.max_bytes.unwrap_or(DEFAULT_MAX_BYTES).max(4096),
        keep: t.keep.unwrap_or(DEFAULT_KEEP).max(1),
        redact,
        redact_values: t.redact_values.clone(),
        max_value_chars: (t.max_value_chars.unwrap_or(DEFAULT_MAX_VALUE_CHARS) as usize).max(16),
        allow_once: t.allow_once != Some(false),
        allow_minutes: t
            .allow_minutes
            .unwrap_or(DEFAULT_ALLOW_MINUTES)
            .clamp(1, 24 * 60),
        export: t.export == Some(Export::Otlp),
        problems,
        kept: vec![],
    }
}

/// `~/x` and relative paths (against the project directory).
fn expand(p: &str, project_dir: &Path, env: &Env) -> PathBuf {
    if let (Some(rest), Some(home)) = (p.strip_prefix("~/"), env.get("HOME")) {
        return PathBuf::from(home).join(rest);
    }
    project_dir.join(p)
}

/// `$XDG_STATE_HOME/hookrules` (default `~/.local/state/hookrules`): see
/// [`crate::os::state::state_home`].
pub fn state_home(env: &Env) -> Option<PathBuf> {
    crate::os::state::state_home(env)
}

/// The default log folder of a project: `<state home>/projects/<slug>`, where the
/// slug is the project path made readable plus a hash (two paths never share one).
pub fn default_dir(project_dir: &Path, env: &Env) -> Option<PathBuf> {
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

    fn tables(sources: &[&PolicySource]) -> Vec<LogTable> {
        sources.iter().filter_map(|s| table_of(s)).collect()
    }

    fn managed(text: &str) -> LogTable {
        let s = PolicySource::new(Origin::Builtin("m"), text);
        LogTable {
            managed: true,
            ..table_of(&s).unwrap()
        }
    }

    #[test]
    fn a_managed_log_table_pins_the_audit_trail_against_everything_below_it() {
        let user = PolicySource::new(
            Origin::Builtin("u"),
            "[log]\nenabled = false\nexport = \"off\"\nkeep = 1\nredact = [\"tool_input.command\"]\nevents = \"all\"\n",
        );
        let mut t = tables(&[&user]);
        t.push(managed("[log]\nexport = \"otlp\"\n"));
        let mut e = env();
        e.set("HOOKRULES_LOG", "off");
        let s = resolve(&t, Path::new("/p"), &e);
        assert!(s.enabled && s.export, "{s:?}");
        assert_eq!(s.keep, DEFAULT_KEEP);
        assert!(s.redact.is_empty());
        assert_eq!(s.events, LogEvents::All, "what only adds still applies");
        let kept: Vec<&str> = s
            .kept
            .iter()
            .map(|k| k.split(' ').next().unwrap())
            .collect();
        assert_eq!(
            kept,
            ["enabled", "keep", "redact", "enabled"],
            "{:?}",
            s.kept
        );
        assert!(s.kept[3].contains("HOOKRULES_LOG"));
        // Another folder from the environment is not the managed layer's either.
        let mut e = env();
        e.set("HOOKRULES_LOG", "/tmp/elsewhere");
        let s = resolve(&t, Path::new("/p"), &e);
        assert_ne!(s.dir, Some(PathBuf::from("/tmp/elsewhere")));
        // The managed layer's own word stands, also over the environment.
        let mut e = env();
        e.set("HOOKRULES_EXPORT", "otlp");
        let off = [managed("[log]\nexport = \"off\"\nenabled = false\n")];
        let s = resolve(&off, Path::new("/p"), &e);
        assert!(!s.enabled && !s.export);
        // Without a managed table, the user's environment and policies decide.
        let s = resolve(&tables(&[&user]), Path::new("/p"), &e);
        assert!(!s.enabled && s.export && s.kept.is_empty());
    }

    fn env() -> Env {
        [("HOME", "/home/me")].into_iter().collect()
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
        let s = resolve(&tables(&[&a, &b]), Path::new("/p"), &env());
        assert!(s.enabled);
        assert_eq!(s.events, LogEvents::All);
        assert_eq!(s.dir, Some(PathBuf::from("/p/logs")));
        assert_eq!(s.redact.len(), 2);
        assert_eq!(s.max_value_chars, 100);
        let off = PolicySource::new(Origin::Builtin("c"), "[log]\nenabled = false\n");
        assert!(!resolve(&tables(&[&off]), Path::new("/p"), &env()).enabled);
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
        e.set("HOOKRULES_LOG", "off");
        assert!(!resolve(&[], Path::new("/p"), &e).enabled);
    }
}
