//! Where hookrules is wired: Claude Code's settings layers, the Claude Code
//! plugin, and the other agents' hook files. `doctor` lists them all; `run --via
//! plugin` asks only whether a settings layer already answers the event, so a
//! settings.json install and a plugin install of the same project never both
//! answer (the settings one wins: it names its binary explicitly).

use crate::os::env::Env;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::init::Context;
use crate::contract::hosts::{Host, TimeUnit};

/// A place hookrules can be wired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// Claude Code `~/.claude/settings.json` (or `$CLAUDE_CONFIG_DIR`).
    UserSettings,
    /// Claude Code `.claude/settings.json`.
    ProjectSettings,
    /// Claude Code `.claude/settings.local.json`.
    LocalSettings,
    /// An installed hookrules Claude Code plugin.
    Plugin,
    /// Another agent's hook file.
    Agent(Host),
}

impl Place {
    /// For people.
    pub fn title(&self) -> String {
        match self {
            Place::UserSettings => "Claude Code user settings".into(),
            Place::ProjectSettings => "Claude Code project settings".into(),
            Place::LocalSettings => "Claude Code local settings".into(),
            Place::Plugin => "Claude Code plugin".into(),
            Place::Agent(h) => h.title().into(),
        }
    }
}

/// One hookrules handler found in a config file.
#[derive(Debug, Clone, PartialEq)]
pub struct Handler {
    /// The host's event key it is registered under.
    pub event: String,
    /// The program it runs (first word of a shell command, or `command` in exec form).
    pub program: String,
    /// The timeout as written (in the host's unit), if any.
    pub timeout: Option<f64>,
}

/// One config file and the hookrules handlers in it.
#[derive(Debug, Clone, PartialEq)]
pub struct Wired {
    /// Which place.
    pub place: Place,
    /// The file.
    pub path: PathBuf,
    /// The handlers.
    pub handlers: Vec<Handler>,
    /// The file exists but could not be read as JSON: why (`not valid JSON
    /// (…)`, or `cannot be read: it is a FIFO (named pipe), …`).
    pub unreadable: Option<String>,
}

/// The three Claude Code settings layers for a project.
pub fn settings_layers(ctx: &Context) -> Vec<(Place, PathBuf)> {
    let mut v = vec![];
    if let Ok(user) = ctx.user_settings() {
        v.push((Place::UserSettings, user));
    }
    let project =
        crate::contract::places::claude_settings(&ctx.env, &ctx.cwd, &ctx.project_dir(), false);
    v.extend(
        [Place::ProjectSettings, Place::LocalSettings]
            .into_iter()
            .zip(project),
    );
    v
}

/// Does a Claude Code settings layer register `hookrules run` for this event?
/// The first such file (`init --host vscode` asks: VS Code reads it too).
pub fn settings_registers(env: &Env, event: &str) -> Option<PathBuf> {
    settings_handler(env, event, |_, h| Host::Claude.runs_hookrules(h, None))
}

/// Does a Claude Code settings layer already answer this event as the plugin
/// would, so that `run --via plugin` may stay quiet (the event answered once)?
/// Only a handler that certainly does: this very binary (its path, or its
/// name found first on `PATH`), with `run` alone or with the `--timeout`
/// `init` writes ([`runs_as_plugin`]; no `--no-builtin`, no `--policies`),
/// for every tool (no matcher, `""` or
/// `*`; no `if`), in the foreground every time (not `async`, not `once`),
/// with at least the plugin's timeout. A handler that names hookrules but
/// would not run, or would answer less (a missing binary, a repository's own
/// script named hookrules, a flag, a matcher that never fires), leaves the
/// plugin answering: being named is not answering.
pub fn settings_answer(env: &Env, event: &str) -> Option<PathBuf> {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())?;
    settings_handler(env, event, |group, h| {
        answers_as_plugin(group, h, &exe, env)
    })
}

/// The plugin's own timeout for every event (`plugin/hooks/hooks.json`).
const PLUGIN_TIMEOUT_SECS: f64 = 10.0;

fn answers_as_plugin(group: &Value, h: &Value, exe: &Path, env: &Env) -> bool {
    let every_tool = match group.get("matcher") {
        None => true,
        Some(Value::String(m)) => m.is_empty() || m == "*",
        Some(_) => false,
    };
    let flag = |k: &str| h.get(k).and_then(Value::as_bool) == Some(true);
    if !every_tool
        || h.get("if").is_some()
        || flag("async")
        || flag("asyncRewake")
        || flag("once")
        || h.get("timeout")
            .is_some_and(|t| t.as_f64().is_none_or(|t| t < PLUGIN_TIMEOUT_SECS))
        || !Host::Claude.runs_hookrules(h, None)
    {
        return false;
    }
    let Some(cmd) = h.get("command").and_then(Value::as_str) else {
        return false;
    };
    let client_timeout = h
        .get("timeout")
        .and_then(Value::as_f64)
        .unwrap_or(crate::cli::timeouts::CLIENT_DEFAULT_TIMEOUT);
    let program = match h.get("args") {
        Some(Value::Array(a)) => a
            .iter()
            .map(Value::as_str)
            .collect::<Option<Vec<&str>>>()
            .is_some_and(|words| runs_as_plugin(&words, client_timeout))
            .then_some(cmd),
        _ => {
            let words: Vec<&str> = cmd.split_whitespace().collect();
            words
                .split_first()
                .filter(|(_, rest)| runs_as_plugin(rest, client_timeout))
                .map(|(program, _)| program.trim_matches(['"', '\'']))
        }
    };
    program.is_some_and(|p| runs_this_binary(p, exe, env))
}

/// Are these the words of a handler that answers as the plugin does: `run`
/// alone, or `run --timeout N` as `init` writes it (the client's timeout, so
/// the answer's deadline fits it), with N at least the plugin's timeout (no
/// less time to answer) and at most the handler's own (an answer that comes
/// after the client gave up is none)? Any other word (`--no-builtin`,
/// `--policies`, `--host`) answers otherwise.
fn runs_as_plugin(words: &[&str], client_timeout: f64) -> bool {
    match words {
        ["run"] => true,
        ["run", "--timeout", n] => n
            .parse::<f64>()
            .is_ok_and(|n| n.is_finite() && (PLUGIN_TIMEOUT_SECS..=client_timeout).contains(&n)),
        _ => false,
    }
}

/// Is `program`, as the client would start it, this very executable?
fn runs_this_binary(program: &str, exe: &Path, env: &Env) -> bool {
    if program.contains(['$', '`', '~']) {
        return false;
    }
    let found = if program.contains('/') {
        Path::new(program)
            .is_absolute()
            .then(|| PathBuf::from(program))
    } else {
        env.get("PATH").and_then(|path| {
            path.split(':')
                .filter(|d| !d.is_empty())
                .map(|d| Path::new(d).join(program))
                .find(|p| {
                    use std::os::unix::fs::PermissionsExt;
                    p.metadata()
                        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
                })
        })
    };
    found
        .and_then(|p| p.canonicalize().ok())
        .is_some_and(|p| p == exe)
}

/// The first settings layer with a handler for `event` that `pick` accepts
/// (given its group and the handler).
fn settings_handler(
    env: &Env,
    event: &str,
    pick: impl Fn(&Value, &Value) -> bool,
) -> Option<PathBuf> {
    let ctx = Context {
        env: env.clone(),
        cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        exe: None,
    };
    settings_layers(&ctx).into_iter().find_map(|(_, path)| {
        // Never blocks: a FIFO, device or socket in a settings file's place is
        // no handler (see `crate::os::files::open_regular`).
        let text = crate::os::files::read_text(&path).ok()?;
        let v: Value = serde_json::from_str(&text).ok()?;
        let groups = v.get("hooks")?.get(event)?.as_array()?;
        groups
            .iter()
            .any(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_some_and(|hs| hs.iter().any(|h| pick(g, h)))
            })
            .then_some(path)
    })
}

/// Read a file of Claude Code's hooks shape (`{"hooks": {Event: [{hooks: [...]}]}}`,
/// also used by Codex, Gemini CLI and VS Code) or of Cursor's / Copilot's
/// (`{"version": 1, "hooks": {event: [handler, …]}}`) and list hookrules' handlers.
pub fn read(place: Place, path: &Path) -> Option<Wired> {
    let host = match place {
        Place::Agent(host) => host,
        Place::UserSettings | Place::ProjectSettings | Place::LocalSettings | Place::Plugin => {
            Host::Claude
        }
    };
    let unreadable = |why: String| {
        Some(Wired {
            place: place.clone(),
            path: path.to_path_buf(),
            handlers: vec![],
            unreadable: Some(why),
        })
    };
    // Only a regular file is read, without blocking: a FIFO, a device or a
    // socket in its place is reported, never waited on.
    let text = match crate::os::files::read_text(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => return unreadable(format!("cannot be read: {e}")),
    };
    let v: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return unreadable(format!("not valid JSON ({e})")),
    };
    let mut handlers = vec![];
    if let Some(hooks) = v.get("hooks").and_then(Value::as_object) {
        for (event, entries) in hooks {
            for entry in entries.as_array().into_iter().flatten() {
                // Grouped ({matcher, hooks: [...]}) or flat (Cursor, Copilot).
                let inner: Vec<&Value> = match entry.get("hooks").and_then(Value::as_array) {
                    Some(list) => list.iter().collect(),
                    None => vec![entry],
                };
                for h in inner {
                    if let Some(program) = host.hookrules_program(h, None) {
                        handlers.push(Handler {
                            event: event.clone(),
                            program,
                            timeout: h
                                .get("timeout")
                                .or_else(|| h.get("timeoutSec"))
                                .and_then(Value::as_f64),
                        });
                    }
                }
            }
        }
    }
    Some(Wired {
        place,
        path: path.to_path_buf(),
        handlers,
        unreadable: None,
    })
}

/// The hook files of the other agents, for a project and a home folder.
pub fn agent_files(ctx: &Context) -> Vec<(Host, PathBuf)> {
    use crate::contract::places;
    let project = ctx.project_dir();
    let mut v = vec![];
    for user in [false, true] {
        for host in Host::ALL {
            if let Ok(f) = places::hook_file(host, &ctx.env, &project, user) {
                v.push((host, f));
            }
        }
    }
    // A host that runs every .github/hooks/*.json (VS Code): the files there
    // that are no host's own are its.
    let folder_host = Host::ALL
        .into_iter()
        .find(|h| h.adapter().also_runs.repository_hooks);
    if let (Some(host), Ok(rd)) = (
        folder_host,
        std::fs::read_dir(places::repository_hooks(&project)),
    ) {
        let mut extra: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter(|p| !v.iter().any(|(_, f)| f == p))
            .collect();
        extra.sort();
        v.extend(extra.into_iter().map(|p| (host, p)));
    }
    v
}

/// The other agents whose hook files in this project run hookrules, in
/// [`Host::ALL`] order: the hosts `check` judges each rule's answers for (HR118).
pub fn wired_hosts(project: &Path) -> Vec<Host> {
    let ctx = Context {
        env: Env::default(),
        cwd: project.to_path_buf(),
        exe: None,
    };
    let wired: Vec<Host> = agent_files(&ctx)
        .into_iter()
        .filter(|(host, path)| {
            read(Place::Agent(*host), path).is_some_and(|w| !w.handlers.is_empty())
        })
        .map(|(host, _)| host)
        .collect();
    Host::ALL
        .into_iter()
        .filter(|h| wired.contains(h))
        .collect()
}

/// A timeout written in the wrong unit for the host: milliseconds where seconds
/// are read (`5000` is 83 minutes) or seconds where milliseconds are (`10` ms).
pub fn timeout_unit_problem(host: Host, timeout: f64) -> Option<String> {
    match host.timeout_unit() {
        TimeUnit::Seconds if timeout >= 1000.0 => Some(format!(
            "timeout {timeout} is in seconds for {} ({:.0} minutes): milliseconds written where seconds are read?",
            host.title(),
            timeout / 60.0
        )),
        TimeUnit::Milliseconds if timeout < 100.0 => Some(format!(
            "timeout {timeout} is in milliseconds for {}: seconds written where milliseconds are read?",
            host.title()
        )),
        _ => None,
    }
}

/// Why a handler's program would not answer as this hookrules does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramProblem {
    /// A bare name that no folder of PATH holds.
    NotOnPath(String),
    /// A path where there is no file.
    Missing(PathBuf),
    /// A file that does not run (not executable, or `--version` fails).
    DoesNotRun(PathBuf),
    /// A file of the project (it came with the repository): not run to ask
    /// its version, since running it would run the repository's code.
    InProject(PathBuf),
    /// A hookrules of another version.
    OtherVersion {
        /// Where.
        path: PathBuf,
        /// What it says it is.
        version: String,
    },
}

impl std::fmt::Display for ProgramProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProgramProblem::NotOnPath(p) => write!(
                f,
                "`{p}` is not on PATH: these hooks fail and nothing is enforced"
            ),
            ProgramProblem::Missing(p) => write!(
                f,
                "{} does not exist: these hooks fail and nothing is enforced",
                p.display()
            ),
            ProgramProblem::DoesNotRun(p) => write!(f, "{} does not run", p.display()),
            ProgramProblem::InProject(p) => write!(
                f,
                "{} is a file of the project, so it comes with the repository: not run to ask its version (that would run the repository's code); a hook that runs it runs whatever the repository holds",
                p.display()
            ),
            ProgramProblem::OtherVersion { path, version } => write!(
                f,
                "{} is `{version}`, this is `hookrules {}`",
                path.display(),
                crate::cli::VERSION
            ),
        }
    }
}

/// A handler's program as a path: absolute, under `${CLAUDE_PROJECT_DIR}`,
/// relative to the project, or found on PATH (`None`: a bare name PATH lacks).
pub fn resolve_program(program: &str, ctx: &Context) -> Option<PathBuf> {
    if let Some(rest) = program
        .strip_prefix("${CLAUDE_PROJECT_DIR}")
        .or_else(|| program.strip_prefix("$CLAUDE_PROJECT_DIR"))
    {
        return Some(ctx.project_dir().join(rest.trim_start_matches('/')));
    }
    let p = Path::new(program);
    if p.is_absolute() {
        return Some(p.to_path_buf());
    }
    if program.contains('/') {
        return Some(ctx.project_dir().join(p));
    }
    let path = ctx.env.get("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|c| c.is_file())
}

/// The version line another binary prints (`None`: it does not run, or does
/// not answer within 5 s).
pub fn version_of(program: &Path) -> Option<String> {
    // In time: a handler's program is whatever the hook file names (a
    // repository's script too), and one that never answers must not hang
    // `doctor` or `init`; then it "does not run".
    let argv = [program.to_str()?.to_string(), "--version".to_string()];
    let out = crate::os::process::run(&argv, Path::new("."), &Env::process(), 5_000).ok()?;
    out.ok.then(|| out.stdout.trim().to_string())
}

/// Is the program at `path` (where links lead) inside the project folder? A
/// project that holds the home folder (a project opened at `~`) holds every
/// installed binary too, so there nothing is "of the project".
fn in_project(path: &Path, ctx: &Context) -> bool {
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let project = canon(&ctx.project_dir());
    if ctx
        .env
        .get("HOME")
        .filter(|h| !h.is_empty())
        .is_some_and(|h| canon(Path::new(&h)).starts_with(&project))
    {
        return false;
    }
    canon(path).starts_with(&project)
}

/// `hookrules 0.1.0 (commit …)` and `0.1.0 (commit …)`: the same version number?
pub fn same_version(line: &str, me: &str) -> bool {
    let num = |s: &str| {
        s.trim_start_matches("hookrules ")
            .split_whitespace()
            .next()
            .unwrap_or("")
            .to_string()
    };
    num(line) == num(me)
}

/// Will the hook's program run, as this hookrules (`me`: its `--version` line)?
/// Asked by `doctor` of every handler and by `init` of the command it writes.
pub fn check_program(program: &str, ctx: &Context, me: &str) -> Result<(), ProgramProblem> {
    let path =
        resolve_program(program, ctx).ok_or_else(|| ProgramProblem::NotOnPath(program.into()))?;
    if !path.is_file() {
        return Err(ProgramProblem::Missing(path));
    }
    if in_project(&path, ctx) {
        return Err(ProgramProblem::InProject(path));
    }
    match version_of(&path) {
        None => Err(ProgramProblem::DoesNotRun(path)),
        Some(version) if !same_version(&version, me) => {
            Err(ProgramProblem::OtherVersion { path, version })
        }
        Some(_) => Ok(()),
    }
}
