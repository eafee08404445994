//! Fixtures: an event, optionally with the setup it needs and the outcome expected.
//! At its simplest a fixture is exactly the JSON the client sends on stdin. The
//! format is documented once, in [`FORMAT`], which `hookrules test --help` prints
//! and the README quotes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::os::clock::Now;
use crate::os::env::Env;
use crate::policy::discover::Discovery;

/// The fixture format, as `hookrules test --help` prints it.
pub const FORMAT: &str = r##"Fixtures
A fixture is a JSON file: the event exactly as the client sends it (what
`hookrules run` reads on stdin), or an object with the event, its setup and what
should happen. Every key but "event" is optional:

  {
    "description": "why this case matters",
    "event": { "hook_event_name": "PreToolUse", "tool_name": "Read",
               "tool_input": { "file_path": "$PROJECT_DIR/.env" } },
    "files": { "notes.md": "text", "bin/check": "#!/bin/sh
exit 0
",
               "state.json": { "content": "{}", "mtime": 1763700000 } },
    "env": { "CI": "1" },
    "now": 1763700000,
    "tz": "UTC",
    "expect": {
      "decision": "deny",
      "rules": ["read-secret-file"],
      "output": { "hookSpecificOutput": { "...": "..." } },
      "output_contains": ["holds secrets"],
      "output_excludes": ["password"],
      "files": { "log.jsonl": { "exists": true, "contains": "Read", "lines": 1,
                                "json": { "tool": "Read" } },
                 "notes.md": "exact content" },
      "todo": "a known gap"
    }
  }

  decision         allow, ask, deny, block, stop, or none (no opinion); deny
                   and block are one refusal, so either matches either
  rules            the rules that determined the decision (any order)
  output           the exact JSON printed on stdout; null: nothing printed
  output_contains  texts stdout must contain; output_excludes: must not
  files            after the run: exact content, or exists / contains / lines /
                   json (a JSON object holding at least these keys)
  todo             a known gap: reported as todo while the fixture fails, and as
                   a failure once it passes (remove the mark then)
  files (setup)    created before the run; content starting with #! is made
                   executable; mtime (unix seconds) for "newest file" rules
  env, now, tz     extra environment, a pinned clock (unix seconds), the hook's
                   time zone (default UTC)

Each fixture runs alone, through the same code as `hookrules run`, in a fresh
temporary project folder: CLAUDE_PROJECT_DIR points at it and HOME at its
`home/` (a fixture's `env` may name another HOME to judge paths in; hookrules'
state stays in the temporary `home/` and no cache is written). $PROJECT_DIR anywhere in the fixture (event, files, env, expectations)
is replaced by that folder's path, so "$PROJECT_DIR/src/main.rs" names a project
file the way the client does (absolute). A UTF-8 byte-order mark is ignored.

A DIR holding policies/ and fixtures/ is tested against its own policies;
otherwise fixtures (*.json, recursively) run against -p or the usual policy
search. `hookrules test --new EVENT.json -o FIXTURE.json` writes a fixture that
expects what the policies decide today. Rules that no fixture makes fire are
listed (HR106); the built-in pack's only with --coverage all. A path that does
not exist or holds no fixture is an error (exit 2): a run that tested nothing
does not pass."##;

/// A parsed fixture.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// The event the client sends.
    pub event: Value,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Pinned clock.
    pub now: Option<i64>,
    /// The hook's local time zone (`TZ`): pinned, so a fixture means the same on
    /// every machine. Default `UTC`.
    pub tz: Option<String>,
    /// Files to create in the project directory first.
    #[serde(default)]
    pub files: BTreeMap<String, FileSpec>,
    /// What should happen.
    pub expect: Option<Expect>,
    /// Free text.
    pub description: Option<String>,
    /// Parsed from a bare event (the JSON the client sends), not a fixture object.
    #[serde(skip)]
    pub bare: bool,
}

/// A fixture made ready to run in a project directory.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The event, with `$PROJECT_DIR` replaced.
    pub event_text: String,
    /// The environment: `CLAUDE_PROJECT_DIR`, `HOME` (= `$PROJECT_DIR/home`), `PATH`,
    /// `TZ` (the fixture's `tz`, default `UTC`), then the fixture's `env`; the
    /// state folder in the project's `home/` and the cache off, always.
    pub env: BTreeMap<String, String>,
}

/// A file a fixture creates: its content, or content with a modification time.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum FileSpec {
    /// Just the content (`#!` content is made executable).
    Text(String),
    /// Content and a modification time (unix seconds), for "newest file" tests.
    Spec {
        /// The content.
        content: String,
        /// Modification time, unix seconds.
        mtime: Option<i64>,
    },
}

/// The expected outcome.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Expected decision (`none` for no decision).
    pub decision: Option<String>,
    /// Rules that determine it.
    pub rules: Option<Vec<String>>,
    /// Exact stdout JSON (`null`: empty stdout).
    #[serde(default, deserialize_with = "some_value")]
    pub output: Option<Value>,
    /// Substrings stdout must contain.
    #[serde(default)]
    pub output_contains: Vec<String>,
    /// Substrings stdout must not contain.
    #[serde(default)]
    pub output_excludes: Vec<String>,
    /// Expected files after the run.
    #[serde(default)]
    pub files: BTreeMap<String, Value>,
    /// A known gap: failures are reported as todo, not as failures.
    pub todo: Option<String>,
}

fn some_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Fixture {
    /// Read a fixture file: a bare event, or a fixture object.
    pub fn read(path: &Path) -> Result<Fixture, String> {
        let text = crate::os::files::read_text(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parse fixture text.
    pub fn parse(text: &str) -> Result<Fixture, String> {
        // Editors on some systems save JSON with a byte-order mark.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if v.get("hook_event_name").is_some() {
            return Ok(Fixture {
                event: v,
                env: BTreeMap::new(),
                now: None,
                tz: None,
                files: BTreeMap::new(),
                expect: None,
                description: None,
                bare: true,
            });
        }
        serde_json::from_value(v).map_err(|e| format!("not a fixture: {e}"))
    }

    /// Create the fixture's files in `project` and build its event text and
    /// environment, with `$PROJECT_DIR` replaced by `project` everywhere.
    pub fn prepare(&self, project: &Path) -> Result<Prepared, String> {
        let pd = project.display().to_string();
        let subst = |s: &str| s.replace("$PROJECT_DIR", &pd);
        for (rel, spec) in &self.files {
            let (content, mtime) = match spec {
                FileSpec::Text(c) => (c, None),
                FileSpec::Spec { content, mtime } => (content, *mtime),
            };
            let p = inside(project, &subst(rel))?;
            if let Some(d) = p.parent() {
                std::fs::create_dir_all(d)
                    .map_err(|e| format!("cannot create {}: {e}", d.display()))?;
            }
            std::fs::write(&p, subst(content))
                .map_err(|e| format!("cannot create {}: {e}", p.display()))?;
            if content.starts_with("#!") {
                use std::os::unix::fs::PermissionsExt;
                let _ = std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755));
            }
            if let Some(t) = mtime {
                let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(t.max(0) as u64);
                std::fs::File::options()
                    .write(true)
                    .open(&p)
                    .and_then(|f| f.set_modified(when))
                    .map_err(|e| format!("cannot set the mtime of {}: {e}", p.display()))?;
            }
        }
        let _ = std::fs::create_dir_all(project.join("home"));
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        env.insert("CLAUDE_PROJECT_DIR".into(), pd.clone());
        env.insert("HOME".into(), format!("{pd}/home"));
        env.insert("PATH".into(), std::env::var("PATH").unwrap_or_default());
        env.insert("TZ".into(), self.tz.clone().unwrap_or_else(|| "UTC".into()));
        for (k, v) in &self.env {
            env.insert(k.clone(), subst(v));
        }
        // hookrules' own state and cache stay in the temporary project, whatever
        // home the fixture judges paths in (`"HOME": "/home/dev"` must not make
        // a key or a cache in a real /home/dev).
        env.insert("XDG_STATE_HOME".into(), format!("{pd}/home/.local/state"));
        env.insert("HOOKRULES_CACHE".into(), "off".into());
        Ok(Prepared {
            event_text: subst(&self.event.to_string()),
            env,
        })
    }
}

/// A fixture made ready to judge in its own temporary project: its files
/// created, the policies to test installed, `$PROJECT_DIR` replaced. `test`
/// runs it and `explain` explains it, from this one preparation, so that what
/// one explains is what the other runs. The project is removed when the
/// session is dropped.
#[derive(Debug)]
pub struct Session {
    /// The temporary project.
    pub project: PathBuf,
    /// The event, with `$PROJECT_DIR` replaced.
    pub event_text: String,
    /// The environment: the fixture's alone (see [`Prepared::env`]), never the
    /// process's.
    pub env: Env,
    /// The clock: the fixture's `now`, else the environment's; local time in the
    /// fixture's zone.
    pub now: Now,
    /// The policies: the search `base` names, in the fixture's own project and
    /// home (never the machine's policy layers).
    pub discovery: Discovery,
}

impl Session {
    /// Prepare `fx` in a fresh temporary project, with the `*.toml` files of
    /// `install` (if any) copied into its `.claude/hookrules/` first.
    pub fn open(fx: &Fixture, base: &Discovery, install: Option<&Path>) -> Result<Session, String> {
        let project = tempdir().map_err(|e| format!("cannot create a temporary directory: {e}"))?;
        let mut session = Session {
            discovery: Discovery {
                project_dir: Some(project.clone()),
                user_dir: Some(project.join("home/.config/hookrules")),
                state_home: Some(fixture_state(&project)),
                ..base.clone()
            },
            project,
            event_text: String::new(),
            env: Env::default(),
            now: Now::at(0),
        };
        if let Some(dir) = install {
            install_policies(dir, &session.project)?;
        }
        let prepared = fx.prepare(&session.project)?;
        let env = Env::from(prepared.env);
        session.now = fx
            .now
            .map(Now::at)
            .unwrap_or_else(|| Now::from_env(&env))
            .with_tz(env.get("TZ").as_deref());
        session.event_text = prepared.event_text;
        session.env = env;
        Ok(session)
    }

    /// What `run` answers and decides for the fixture (side effects run, in
    /// the temporary project).
    pub fn run(&self) -> (crate::answer::Answer, Option<crate::decision::Decision>) {
        crate::engine::run::in_process(
            &self.discovery,
            &mut self.event_text.as_bytes(),
            &self.env,
            self.now.clone(),
            crate::contract::hosts::Hint::default(),
        )
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.project);
    }
}

/// The project's own policy folder, installed into each fixture's project when
/// the policies come from the layers (no `-p`, no `HOOKRULES_POLICIES`): a
/// project's fixtures test the project's policies.
pub fn project_policies(base: &Discovery) -> Option<PathBuf> {
    if !base.flags.is_empty() || base.env.as_deref().is_some_and(|e| !e.trim().is_empty()) {
        return None;
    }
    base.project_dir
        .as_ref()
        .map(|p| p.join(crate::policy::discover::PROJECT_POLICY_DIR))
        .filter(|d| d.is_dir())
}

/// A fixture project's own state folder (its key, the policies it trusts).
fn fixture_state(project: &Path) -> PathBuf {
    project.join("home/.local/state/hookrules")
}

/// Copy a folder's policies into a project's `.claude/hookrules/` (links
/// followed), trusted in the fixture's state folder.
fn install_policies(from: &Path, project: &Path) -> Result<(), String> {
    let to = project.join(".claude/hookrules");
    std::fs::create_dir_all(&to).map_err(|e| format!("cannot create {}: {e}", to.display()))?;
    let entries =
        std::fs::read_dir(from).map_err(|e| format!("cannot read {}: {e}", from.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "toml") {
            let text = crate::os::files::read_text(&p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let installed = to.join(e.file_name());
            std::fs::write(&installed, &text)
                .map_err(|e| format!("cannot install {}: {e}", p.display()))?;
            // The policies under test are trusted in the fixture's own state
            // folder (never the user's): what they loosen is what is tested.
            crate::policy::trust::Store::open(&fixture_state(project))
                .trust(project, &installed, &text, "hookrules test")
                .map_err(|e| format!("cannot trust {}: {e}", installed.display()))?;
        }
    }
    Ok(())
}

/// A fresh, empty, canonical temporary directory (removed by the caller).
pub fn tempdir() -> std::io::Result<std::path::PathBuf> {
    let base = std::env::temp_dir();
    for i in 0..100u32 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let p = base.join(format!(
            "hookrules-fixture-{}-{nanos}-{i}",
            std::process::id()
        ));
        if std::fs::create_dir(&p).is_ok() {
            // Canonical, so paths the engine prints match the fixture's $PROJECT_DIR.
            return p.canonicalize();
        }
    }
    Err(std::io::Error::other("no free temporary directory name"))
}

/// Where a fixture's file (`files`, `expect.files`) lies: inside the fixture's
/// temporary project, or an error. Fixtures are data (a fork's pull request runs
/// them in CI), so `..`, absolute paths elsewhere and symlinks leading out are
/// refused, never written or read.
pub fn inside(project: &Path, rel: &str) -> Result<PathBuf, String> {
    crate::os::files::confine(rel, project, project).map_err(|e| {
        format!("fixture file `{rel}` is refused: {e}; a fixture's `files` and `expect.files` stay inside its temporary project (a relative path, or one under $PROJECT_DIR)")
    })
}
