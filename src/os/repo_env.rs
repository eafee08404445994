//! hookrules' own environment is the user's, never a repository's.
//!
//! hookrules reads a few environment variables as configuration: every
//! `HOOKRULES_*` (the policies to load, the clock, the deadline, the cache,
//! the log) and the folders it derives its own from (`HOME`, `XDG_CONFIG_HOME`
//! for the user's policies, `XDG_STATE_HOME` for the key, allowances and trust,
//! `XDG_CACHE_HOME`, `XDG_DATA_HOME`). A repository can set them for every
//! process of the session, hooks included, without running anything: Claude
//! Code applies the `env` of `.claude/settings.json` and
//! `.claude/settings.local.json`; Gemini CLI loads `.gemini/.env` or `.env`.
//! Such a value could swap the policies, point the state folder at a key and
//! grants the repository ships, drop the user's own policies, pin the clock
//! or shrink the deadline. The `OTEL_*` variables that configure hookrules'
//! export (`OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`,
//! `OTEL_RESOURCE_ATTRIBUTES`) count as ours too: a repository's value would
//! send the decisions the user or the administrator export to a collector of
//! the repository's choosing (and away from theirs). The client's own
//! telemetry still reads them; only hookrules ignores them.
//!
//! So a variable of ours that a project file sets is ignored, whatever its
//! value: hookrules runs as if it were unset (`HOME`: the account's home from
//! the password database), and says so (SessionStart, `doctor`). The user sets
//! these in their own shell or `~/.claude/settings.json`. The project is
//! `CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR` and the current folder.
//!
//! The client's managed settings are the administrator's, and win: Claude
//! Code gives a hook the `env` value of `managed-settings.json` whatever a
//! project's settings say, so where a project file names a variable of ours
//! that the managed settings set too, hookrules takes the managed value
//! (`HOOKRULES_MANAGED_REQUIRED`, `HOOKRULES_EXPORT`): a repository cannot
//! drop what the administrator demands. The file counts only while root owns
//! it and nobody else can write it ([`crate::os::owner`]).
//!
//! Cost on `run`: the project files are read only when they exist, and a
//! settings file is parsed only when its text names one of our variables; the
//! managed settings are read only when a project file named one.

use crate::os::env::Env;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The folder variables hookrules derives its own folders from.
const FOLDERS: &[&str] = &[
    "HOME",
    "XDG_CONFIG_HOME",
    "XDG_STATE_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
];

/// Is `name` one of hookrules' own variables? `ProgramData` (any letter case,
/// as Windows reads it) names the managed folder on Windows; the `OTEL_*`
/// variables [`export_target`] names, where the export goes.
pub fn ours(name: &str) -> bool {
    name.starts_with("HOOKRULES_")
        || FOLDERS.contains(&name)
        || name.eq_ignore_ascii_case("ProgramData")
        || export_target(name)
}

/// Does this `OTEL_*` variable say where, and as what, hookrules' export is
/// sent (`log::otlp` reads these)?
pub fn export_target(name: &str) -> bool {
    name.starts_with("OTEL_EXPORTER_OTLP_")
        || name == "OTEL_SERVICE_NAME"
        || name == "OTEL_RESOURCE_ATTRIBUTES"
}

/// A variable a project file set, ignored.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Ignored {
    /// The variable.
    pub name: String,
    /// The project file that sets it.
    pub file: PathBuf,
}

impl Ignored {
    /// `HOOKRULES_POLICIES (set by /p/.claude/settings.json)`.
    pub fn shown(&self) -> String {
        format!("{} (set by {})", self.name, self.file.display())
    }
}

/// The project files that set environment variables for the session, in the
/// project folders `env` names (and `cwd`).
fn project_files(env: &Env, cwd: Option<&Path>) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"]
        .iter()
        .filter_map(|k| env.get(k).filter(|v| v.starts_with('/')))
        .map(PathBuf::from)
        .collect();
    roots.extend(cwd.map(Path::to_path_buf));
    // Paths compared as bytes (`PathBuf`'s `==` compares component by
    // component: ~17k instructions here on every event). Two spellings of
    // one folder only cost a second read of its files.
    roots.dedup_by(|a, b| a.as_os_str() == b.as_os_str());
    let mut files: Vec<PathBuf> = vec![];
    for root in roots {
        for rel in [
            ".claude/settings.json",
            ".claude/settings.local.json",
            ".gemini/.env",
            ".env",
        ] {
            let f = root.join(rel);
            if !files.iter().any(|g| g.as_os_str() == f.as_os_str()) {
                files.push(f);
            }
        }
    }
    files
}

/// The names of ours that `file` sets (a settings file's `env` object; a
/// `.env` file's `NAME=` lines). An unreadable or malformed file sets nothing
/// here; the client would not apply it either. A FIFO, device or socket is
/// not read (and not waited on).
fn set_by(file: &Path) -> Vec<String> {
    let Some(text) = read_text(file) else {
        return vec![];
    };
    // The common case costs one substring search: no name of ours in the text.
    if !text.contains("HOOKRULES_")
        && !text.contains("OTEL_")
        && !FOLDERS.iter().any(|f| text.contains(f))
        && !text.to_ascii_lowercase().contains("programdata")
    {
        return vec![];
    }
    let is_json = file.extension().is_some_and(|e| e == "json");
    if is_json {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            return vec![];
        };
        return v
            .get("env")
            .and_then(|e| e.as_object())
            .map(|o| o.keys().filter(|k| ours(k)).cloned().collect())
            .unwrap_or_default();
    }
    text.lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let line = line.strip_prefix("export ").unwrap_or(line).trim_start();
            let (name, _) = line.split_once('=')?;
            let name = name.trim();
            ours(name).then(|| name.to_string())
        })
        .collect()
}

/// The account's home folder, from the password database (not `HOME`).
fn account_home() -> Option<String> {
    // SAFETY: getpwuid_r with a buffer we own; the result points into it.
    unsafe {
        let mut pwd: libc::passwd = std::mem::zeroed();
        let mut buf = vec![0 as libc::c_char; 4096];
        let mut out: *mut libc::passwd = std::ptr::null_mut();
        let rc = libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr(),
            buf.len(),
            &mut out,
        );
        if rc != 0 || out.is_null() || pwd.pw_dir.is_null() {
            return None;
        }
        let dir = std::ffi::CStr::from_ptr(pwd.pw_dir).to_str().ok()?;
        (dir.starts_with('/')).then(|| dir.to_string())
    }
}

/// Leave out of `env` every variable of ours that a project file sets (see
/// the module docs); `HOME` becomes the account's home. Returns what was left
/// out. `cwd`: the current folder.
pub fn user_only(env: &mut Env, cwd: Option<&Path>) -> Vec<Ignored> {
    let mut ignored: Vec<Ignored> = vec![];
    for file in project_files(env, cwd) {
        for name in set_by(&file) {
            if !ignored.iter().any(|i| i.name == name) {
                ignored.push(Ignored {
                    name,
                    file: file.clone(),
                });
            }
        }
    }
    let admin = if ignored.is_empty() {
        BTreeMap::new()
    } else {
        managed_values(env)
    };
    for i in &ignored {
        if let Some(v) = admin.get(&i.name) {
            env.set(i.name.clone(), v.clone());
        } else if i.name == "HOME" {
            match account_home() {
                Some(home) => env.set("HOME", home),
                None => env.unset("HOME"),
            };
        } else if i.name.eq_ignore_ascii_case("ProgramData") {
            // Windows reads `ProgramData` in any letter case.
            for k in env.vars().into_keys() {
                if k.eq_ignore_ascii_case(&i.name) {
                    env.unset(&k);
                }
            }
        } else {
            env.unset(&i.name);
        }
    }
    ignored
}

/// The client's managed settings file: Claude Code's `managed-settings.json`
/// (debug builds, the test suite: the file `HOOKRULES_CLIENT_SETTINGS` names).
fn managed_settings_file(env: &Env) -> PathBuf {
    if cfg!(debug_assertions) {
        if let Some(f) = env.get("HOOKRULES_CLIENT_SETTINGS") {
            return PathBuf::from(f);
        }
    }
    if cfg!(target_os = "macos") {
        PathBuf::from("/Library/Application Support/ClaudeCode/managed-settings.json")
    } else {
        PathBuf::from("/etc/claude-code/managed-settings.json")
    }
}

/// A settings or `.env` file's text: a regular file of at most 4 MiB (else
/// nothing: the files the client reads are small).
fn read_text(file: &Path) -> Option<String> {
    let bytes = super::files::read_regular(file, Some(4 << 20)).ok()?;
    String::from_utf8(bytes).ok()
}

/// The variables of ours the client's managed settings set (`env`), when the
/// file is the administrator's (root's, writable by nobody else).
fn managed_values(env: &Env) -> BTreeMap<String, String> {
    let file = managed_settings_file(env);
    if !file.exists() || super::owner::admin_owned(&file).is_err() {
        return BTreeMap::new();
    }
    let Some(text) = read_text(&file) else {
        return BTreeMap::new();
    };
    serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|v| v.get("env")?.as_object().cloned())
        .map(|o| {
            o.into_iter()
                .filter(|(k, _)| ours(k))
                .filter_map(|(k, v)| Some((k, v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

/// What the session is told about ignored variables (None: nothing ignored).
pub fn notice(ignored: &[Ignored]) -> Option<String> {
    if ignored.is_empty() {
        return None;
    }
    let shown: Vec<String> = ignored.iter().map(Ignored::shown).collect();
    Some(format!(
        "hookrules: ignored {}: a project file cannot configure hookrules (its policies, state, clock, deadline or where it exports decisions); set it in your own shell or ~/.claude/settings.json if you mean it.",
        shown.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ours_are_hookrules_variables_and_the_folders_ours_derive_from() {
        for n in [
            "HOOKRULES_POLICIES",
            "HOOKRULES_NOW",
            "HOOKRULES_DEADLINE_MS",
            "HOME",
            "XDG_STATE_HOME",
            "XDG_CONFIG_HOME",
            "ProgramData",
            "PROGRAMDATA",
        ] {
            assert!(ours(n), "{n}");
        }
        assert!(ours("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT") && ours("OTEL_RESOURCE_ATTRIBUTES"));
        for n in [
            "PATH",
            "OTEL_SDK_DISABLED",
            "HOOKRULES",
            "XDG_RUNTIME_DIR",
            "MY_HOOKRULES_X",
            "LANG",
        ] {
            assert!(!ours(n), "{n}");
        }
    }

    #[test]
    fn a_variable_a_project_file_sets_is_left_out_and_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join(".claude")).unwrap();
        std::fs::create_dir_all(p.join(".gemini")).unwrap();
        std::fs::write(
            p.join(".claude/settings.json"),
            r#"{"env": {"HOOKRULES_POLICIES": "x.toml", "FOO": "1"}, "note": "XDG_CACHE_HOME"}"#,
        )
        .unwrap();
        std::fs::write(
            p.join(".gemini/.env"),
            "# comment\nexport XDG_STATE_HOME=/tmp/s\nBAR=2\n",
        )
        .unwrap();
        std::fs::write(p.join(".env"), "HOME = /tmp/h\n").unwrap();
        let mut env: Env = [
            ("HOOKRULES_POLICIES", "x.toml"),
            ("XDG_STATE_HOME", "/tmp/s"),
            ("XDG_CACHE_HOME", "/c"),
            ("HOME", "/tmp/h"),
            ("FOO", "1"),
            ("CLAUDE_PROJECT_DIR", p.to_str().unwrap()),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let ignored = user_only(&mut env, None);
        let names: Vec<&str> = ignored.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["HOOKRULES_POLICIES", "XDG_STATE_HOME", "HOME"]);
        assert!(!env.contains("HOOKRULES_POLICIES"));
        assert!(!env.contains("XDG_STATE_HOME"));
        assert_eq!(
            env.get("XDG_CACHE_HOME").unwrap(),
            "/c",
            "named in text, not set: kept"
        );
        assert_eq!(env.get("FOO").unwrap(), "1", "not ours");
        assert_ne!(env.get("HOME").as_deref(), Some("/tmp/h"));
        assert!(notice(&ignored)
            .unwrap()
            .contains("HOOKRULES_POLICIES (set by "));
    }

    #[test]
    fn a_project_cannot_move_the_windows_managed_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".env"), "PROGRAMDATA=D:\\mine\n").unwrap();
        let mut env: Env = [
            ("ProgramData", "D:\\mine"),
            ("CLAUDE_PROJECT_DIR", dir.path().to_str().unwrap()),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let ignored = user_only(&mut env, None);
        assert_eq!(ignored.len(), 1, "{ignored:?}");
        assert!(!env.contains("ProgramData"));
    }

    #[test]
    fn a_project_cannot_send_the_export_elsewhere_unless_the_managed_settings_agree() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join(".claude")).unwrap();
        std::fs::write(
            p.join(".claude/settings.json"),
            r#"{"env": {"OTEL_EXPORTER_OTLP_ENDPOINT": "https://collector.example", "OTEL_EXPORTER_OTLP_HEADERS": "x=1", "OTEL_METRICS_EXPORTER": "otlp"}}"#,
        )
        .unwrap();
        let mut env: Env = [
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://collector.example"),
            ("OTEL_EXPORTER_OTLP_HEADERS", "x=1"),
            ("OTEL_METRICS_EXPORTER", "otlp"),
            ("CLAUDE_PROJECT_DIR", p.to_str().unwrap()),
            // No managed settings file on this path.
            (
                "HOOKRULES_CLIENT_SETTINGS",
                "/nonexistent/managed-settings.json",
            ),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let ignored = user_only(&mut env, None);
        let names: Vec<&str> = ignored.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(
            names,
            ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS"]
        );
        assert!(!env.contains("OTEL_EXPORTER_OTLP_ENDPOINT"));
        assert_eq!(
            env.get("OTEL_METRICS_EXPORTER").unwrap(),
            "otlp",
            "not the export's"
        );
    }

    #[test]
    fn without_project_files_nothing_changes() {
        let dir = tempfile::tempdir().unwrap();
        let mut env: Env = [
            ("HOOKRULES_POLICIES", "x.toml"),
            ("HOME", "/home/u"),
            ("CLAUDE_PROJECT_DIR", dir.path().to_str().unwrap()),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let before = env.clone();
        assert!(user_only(&mut env, Some(dir.path())).is_empty());
        assert_eq!(env, before);
    }
}
