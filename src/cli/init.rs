//! `hookrules init` and `hookrules uninstall`: register hookrules as the command for
//! every hook event in a Claude Code settings file, and take it out again.
//!
//! Decisions (reference = `claude-code-hooks.md`):
//!
//! - **Which events.** Every event in [`crate::contract::events::EVENTS`] except
//!   `WorktreeCreate` and `WorktreeRemove`: a handler on either *replaces* the client's
//!   own git worktree handling (§1.2; the client asks only whether any handler is
//!   configured), and hookrules prints no worktree path. `PreModelSwitch`,
//!   `PostModelSwitch` and `DirectoryAdded` are missing from 2.1.197 (§1) and it is not
//!   known which release added them, so they are registered only for a client known to
//!   be 2.1.330 or newer. An unknown event can make an older client ignore every hook in
//!   the file (§6 item 3), which would switch the guards off, whereas a missing event
//!   only loses model-switch and add-dir rules; so when the version cannot be found the
//!   30 events of 2.1.197 are registered and the output says how to add the other three.
//!   `--client-version` wins over `claude --version` (the user knows which client runs).
//! - **Command.** `--command` as given (`~/` expanded, relative paths made absolute,
//!   `$CLAUDE_PROJECT_DIR` spelled `${CLAUDE_PROJECT_DIR}`, a bare name left for `PATH`);
//!   else the running binary, canonicalised; for a project install whose binary lives
//!   inside the project, `${CLAUDE_PROJECT_DIR}/…`: the exec form substitutes only the
//!   braced placeholder, and a relative path breaks after `cd` (§3.3, §6 item 5).
//! - **Handlers.** Exec form `{"type": "command", "command": …, "args": ["run"],
//!   "timeout": N}` (§7), timeout in seconds (§6 item 13), no matcher, one new matcher
//!   group appended to each event's list. An existing hookrules handler (command
//!   basename `hookrules`, first argument `run`; or the shell form `hookrules run …`) is
//!   left exactly as it is, so a second run changes nothing.
//! - **Files.** The settings are edited as a JSON object with key order kept; the
//!   indentation of the existing file is reused. Nothing is written when nothing
//!   changes. Before a write, the old bytes go to `settings.json.bak` beside the file
//!   (replacing an older backup); the new file is written atomically (temporary file +
//!   rename) with the old file's permissions. A `settings.json` that is a symlink is
//!   written through: the link stays, its target gets the new content.
//! - **Errors.** A settings file that is not UTF-8 JSON, not an object, whose `hooks` is
//!   not an object, or whose event entries are not lists: exit 2, nothing written.

use crate::os::env::Env;
use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::contract::events::EVENTS;
use crate::contract::hosts::Host;
use crate::os::files::{lexical_normalize, write_atomic};
use crate::policy::discover::{toml_files_in, PROJECT_POLICY_DIR};

/// The newest client whose event list was checked (reference §0): every event in
/// [`EVENTS`] exists from this version on.
pub const ALL_EVENTS_FROM: (u32, u32, u32) = (2, 1, 330);
/// The oldest client whose event list was checked (reference §1).
pub const OLDEST_CHECKED: (u32, u32, u32) = (2, 1, 197);
/// Events that 2.1.197 does not have (reference §1).
pub const NEWER_EVENTS: &[&str] = &["PreModelSwitch", "PostModelSwitch", "DirectoryAdded"];
/// Events never registered: a handler there replaces the client's git worktree handling.
pub const NOT_REGISTERED: &[&str] = &["WorktreeCreate", "WorktreeRemove"];
/// The starter policy, relative to the project's policy folder.
pub const STARTER_NAME: &str = "project.toml";

/// The starter policy written into `.claude/hookrules/`.
pub const STARTER_POLICY: &str = r##"# Policies for this project, read by hookrules (`hookrules check` lints them).
#
# These rules add to hookrules' built-in pack (destructive commands, secrets,
# system folders, hookrules' own configuration), which stays on. To turn part of
# it off, use [[override]] with a rule id or tag (`hookrules check --rules` lists
# them); personal changes go in an uncommitted `*.local.toml` next to this file.
[policy]
name = "project"
# Opt-in packs, off until named here:
# extends = ["builtin:containers", "builtin:publishing"]

# An example rule: remove the leading "# " from the lines below to turn it on.
#
# [[rule]]
# id = "ask-before-publish"
# description = "Publishing a package cannot be taken back."
# events = ["PreToolUse"]
# matcher = "Bash"
# when = { commands = "tool_input.command", command = { program = ["npm", "pnpm", "yarn", "cargo"], subcommand = ["publish"] } }
# decision = "ask"
# reason = "hookrules (project): `{{ event.tool_input.command }}` publishes a package. Confirm with the user first."
"##;

/// `hookrules init` options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct InitArgs {
    /// Install into the user settings (`$CLAUDE_CONFIG_DIR` or `~/.claude`, `settings.json`)
    /// instead of the project's `.claude/settings.json`.
    #[arg(long)]
    pub user: bool,
    /// Print the changes as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The Claude Code version to register events for (default: ask `claude --version`).
    #[arg(long, value_name = "X.Y.Z")]
    pub client_version: Option<String>,
    /// The command the client runs (default: this binary; `${CLAUDE_PROJECT_DIR}/…` when it
    /// lives inside the project).
    #[arg(long, value_name = "PATH")]
    pub command: Option<String>,
    /// Install into another agent's hooks instead: codex, gemini, cursor, copilot,
    /// vscode (see src/cli/install_hosts.rs).
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
}

/// `hookrules uninstall` options.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct UninstallArgs {
    /// Remove from the user settings instead of the project's.
    #[arg(long)]
    pub user: bool,
    /// Print the changes as a diff; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Remove from another agent's hooks instead (codex, gemini, cursor, copilot, vscode).
    #[arg(long, value_name = "NAME")]
    pub host: Option<String>,
}

/// What the commands see of the machine (tests pass their own).
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The environment: `CLAUDE_PROJECT_DIR`, `HOME`, `CLAUDE_CONFIG_DIR`, `PATH`.
    pub env: Env,
    /// The current directory.
    pub cwd: PathBuf,
    /// The running binary (the default command).
    pub exe: Option<PathBuf>,
}

impl Context {
    /// The running process's view.
    pub fn from_process(env: &Env) -> Context {
        Context {
            env: env.clone(),
            cwd: std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
            exe: std::env::current_exe().ok(),
        }
    }

    fn var(&self, name: &str) -> Option<String> {
        self.env.get(name).filter(|s| !s.is_empty())
    }

    /// `$CLAUDE_PROJECT_DIR`, else the current directory.
    pub fn project_dir(&self) -> PathBuf {
        match self.var("CLAUDE_PROJECT_DIR") {
            Some(d) => lexical_normalize(&self.cwd.join(d)),
            None => self.cwd.clone(),
        }
    }

    /// The user settings file: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`.
    pub fn user_settings(&self) -> Result<PathBuf, Failure> {
        match crate::contract::places::claude_user_dir(&self.env, &self.cwd) {
            Some(d) => Ok(lexical_normalize(&d).join("settings.json")),
            None => Err(Failure(
                "HOME is not set, so the user settings cannot be found".into(),
            )),
        }
    }

    fn settings_path(&self, user: bool) -> Result<PathBuf, Failure> {
        if user {
            return self.user_settings();
        }
        let project = self.project_dir();
        if !project.is_dir() {
            return Err(Failure(format!(
                "the project folder {} does not exist (CLAUDE_PROJECT_DIR, else the current directory)",
                project.display()
            )));
        }
        Ok(project.join(".claude").join("settings.json"))
    }
}

/// Why a command stopped without writing (exit 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure(pub String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

// ---------------------------------------------------------------------------
// Client versions and events

/// `X.Y.Z` from text such as `2.1.330 (Claude Code)` or `v2.1.330`.
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    text.split_whitespace().find_map(|word| {
        let word = word.strip_prefix('v').unwrap_or(word);
        let mut parts = word.splitn(3, '.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let rest = parts.next()?;
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        Some((major, minor, digits.parse().ok()?))
    })
}

/// The events to register for a client version (`None`: unknown).
pub fn events_for(version: Option<(u32, u32, u32)>) -> Vec<&'static str> {
    let all = version.is_some_and(|v| v >= ALL_EVENTS_FROM);
    EVENTS
        .iter()
        .map(|e| e.name)
        .filter(|n| !NOT_REGISTERED.contains(n))
        .filter(|n| all || !NEWER_EVENTS.contains(n))
        .collect()
}

fn version_text(v: (u32, u32, u32)) -> String {
    format!("{}.{}.{}", v.0, v.1, v.2)
}

/// Which version was used and how it was found.
struct Version {
    version: Option<(u32, u32, u32)>,
    note: String,
}

fn resolve_version(args: &InitArgs, ctx: &Context) -> Result<Version, Failure> {
    if let Some(text) = &args.client_version {
        let v = parse_version(text).ok_or_else(|| {
            Failure(format!(
                "--client-version wants a version like 2.1.330, not `{text}`"
            ))
        })?;
        return Ok(Version {
            version: Some(v),
            note: format!("{} (--client-version)", version_text(v)),
        });
    }
    match detect_version(ctx) {
        Ok(v) => Ok(Version {
            version: Some(v),
            note: format!("{} (from `claude --version`)", version_text(v)),
        }),
        Err(why) => Ok(Version {
            version: None,
            note: format!("unknown ({why})"),
        }),
    }
}

fn detect_version(ctx: &Context) -> Result<(u32, u32, u32), String> {
    let path = ctx
        .var("PATH")
        .unwrap_or_default()
        .split(':')
        .filter(|d| !d.is_empty())
        .map(|d| Path::new(d).join("claude"))
        .find(|p| is_executable(p))
        .ok_or("`claude` is not on PATH")?;
    let argv = [path.to_string_lossy().into_owned(), "--version".to_string()];
    let out = crate::os::process::run(&argv, &ctx.cwd, &ctx.env, 10_000)
        .map_err(|e| format!("`claude --version`: {e}"))?;
    if !out.ok {
        return Err(format!("`claude --version` failed: {}", out.stderr.trim()));
    }
    parse_version(&out.stdout).ok_or_else(|| {
        format!(
            "`claude --version` printed no version: {:?}",
            out.stdout.trim()
        )
    })
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

// ---------------------------------------------------------------------------
// The command

fn resolve_command(
    args: &InitArgs,
    ctx: &Context,
    project: Option<&Path>,
) -> Result<String, Failure> {
    let utf8 = |p: &Path| {
        p.to_str()
            .map(str::to_string)
            .ok_or_else(|| Failure(format!("{} is not valid UTF-8", p.display())))
    };
    if let Some(c) = args.command.as_deref().map(str::trim) {
        if c.is_empty() {
            return Err(Failure("--command is empty".into()));
        }
        if let Some(rest) = c.strip_prefix("$CLAUDE_PROJECT_DIR") {
            return Ok(format!("${{CLAUDE_PROJECT_DIR}}{rest}"));
        }
        if c.starts_with("${CLAUDE_PROJECT_DIR}") || !c.contains('/') {
            return Ok(c.to_string());
        }
        let path =
            match c.strip_prefix("~/") {
                Some(rest) => PathBuf::from(ctx.var("HOME").ok_or_else(|| {
                    Failure("--command starts with ~/ but HOME is not set".into())
                })?)
                .join(rest),
                None => PathBuf::from(c),
            };
        return utf8(&lexical_normalize(&ctx.cwd.join(path)));
    }
    let exe = ctx
        .exe
        .as_ref()
        .ok_or_else(|| Failure("cannot tell where this binary is; pass --command PATH".into()))?;
    let exe = exe.canonicalize().unwrap_or_else(|_| exe.clone());
    if let Some(project) = project {
        let project = project
            .canonicalize()
            .unwrap_or_else(|_| project.to_path_buf());
        if let Ok(rel) = exe.strip_prefix(&project) {
            return Ok(format!("${{CLAUDE_PROJECT_DIR}}/{}", utf8(rel)?));
        }
    }
    utf8(&exe)
}

/// The handler hookrules registers for one event, with the client's timeout in
/// seconds; `run --timeout` gets the same value, so the answer's deadline is
/// known to fit it (see `engine::run`).
pub fn handler(command: &str, timeout: u64) -> Value {
    json!({ "type": "command", "command": command, "args": ["run", "--timeout", timeout.to_string()], "timeout": timeout })
}

/// Bring an existing hookrules handler to at least `need` seconds (when its
/// policies' commands need more than it has), and its `run --timeout` in line
/// with its `timeout`. Returns (old, new) when it changed.
fn update_handler(h: &mut Value, need: Option<u64>) -> Option<(f64, f64)> {
    let o = h.as_object_mut()?;
    let old = o
        .get("timeout")
        .and_then(Value::as_f64)
        .unwrap_or(crate::cli::timeouts::CLIENT_DEFAULT_TIMEOUT);
    let new = old.max(need.unwrap_or(0) as f64);
    let mut changed = false;
    if new != old {
        o.insert("timeout".into(), json!(new as u64));
        changed = true;
    }
    // Exec form: `run --timeout N` (N = the timeout); a shell-form command is left
    // as written (its deadline then comes from the event's default).
    if let Some(Value::Array(args)) = o.get_mut("args") {
        let wanted = (new as u64).to_string();
        let at = args.iter().position(|a| a.as_str() == Some("--timeout"));
        match at {
            Some(i) if args.get(i + 1).and_then(Value::as_str) == Some(wanted.as_str()) => {}
            Some(i) => {
                if i + 1 < args.len() {
                    args[i + 1] = json!(wanted);
                } else {
                    args.push(json!(wanted));
                }
                changed = true;
            }
            None => {
                args.splice(1..1, [json!("--timeout"), json!(wanted)]);
                changed = true;
            }
        }
    }
    changed.then_some((old, new))
}

// ---------------------------------------------------------------------------
// The settings file

/// A settings file read for editing.
struct Settings {
    /// The path as named (messages, backup).
    path: PathBuf,
    /// Where the content lives (the symlink's target, if it is one).
    target: PathBuf,
    /// Its bytes, if it exists.
    original: Option<Vec<u8>>,
    root: Map<String, Value>,
    indent: Vec<u8>,
    perms: Option<fs::Permissions>,
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn load(path: &Path) -> Result<Settings, Failure> {
    let shown = path.display();
    let is_link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    let target = if is_link {
        fs::canonicalize(path).map_err(|e| {
            Failure(format!(
                "{shown} is a symlink whose target cannot be resolved: {e}"
            ))
        })?
    } else {
        path.to_path_buf()
    };
    let original = match crate::os::files::read_regular(&target, None) {
        Ok(b) => Some(b),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(Failure(format!("cannot read {shown}: {e}"))),
    };
    let perms = fs::metadata(&target).ok().map(|m| m.permissions());
    let text = match &original {
        Some(b) => std::str::from_utf8(b)
            .map_err(|e| Failure(format!("{shown} is not UTF-8: {e}")))?
            .to_string(),
        None => String::new(),
    };
    let root = if text.trim().is_empty() {
        Map::new()
    } else {
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                return Err(Failure(format!(
                    "{shown} must hold a JSON object, but it holds {}",
                    kind(&other)
                )))
            }
            Err(e) => return Err(Failure(format!("{shown} is not valid JSON: {e}"))),
        }
    };
    match root.get("hooks") {
        None | Some(Value::Object(_)) => {}
        Some(v) => {
            return Err(Failure(format!(
                "in {shown}, `hooks` must be an object keyed by event name (reference §3.1), but it is {}",
                kind(v)
            )))
        }
    }
    if let Some(Value::Object(hooks)) = root.get("hooks") {
        for (event, list) in hooks {
            if !list.is_array() {
                return Err(Failure(format!(
                    "in {shown}, `hooks.{event}` must be a list of matcher groups (reference §3.1), but it is {}",
                    kind(list)
                )));
            }
        }
    }
    Ok(Settings {
        indent: detect_indent(&text),
        path: path.to_path_buf(),
        target,
        original,
        root,
        perms,
    })
}

/// The indentation unit of a pretty-printed JSON file (two spaces if there is none).
fn detect_indent(text: &str) -> Vec<u8> {
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.chars()
                .take_while(|c| *c == ' ' || *c == '\t')
                .collect::<String>()
        })
        .find(|ws| !ws.is_empty())
        .unwrap_or_else(|| "  ".into())
        .into_bytes()
}

fn render(root: &Map<String, Value>, indent: &[u8]) -> String {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(indent);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    // A map of JSON values always serialises.
    let _ = root.serialize(&mut ser);
    buf.push(b'\n');
    String::from_utf8(buf).unwrap_or_default()
}

impl Settings {
    fn old_text(&self) -> String {
        self.original
            .as_deref()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    fn backup_path(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_os_string();
        name.push(".bak");
        self.path.with_file_name(name)
    }

    /// Back the old bytes up, then write the new text atomically. Returns the backup.
    fn commit(&self, text: &str) -> Result<Option<PathBuf>, Failure> {
        let mut backup = None;
        if let Some(old) = &self.original {
            let bak = self.backup_path();
            write_atomic(&bak, old).map_err(|e| {
                Failure(format!(
                    "cannot write the backup {}: {e}; nothing changed",
                    bak.display()
                ))
            })?;
            if let Some(p) = &self.perms {
                let _ = fs::set_permissions(&bak, p.clone());
            }
            backup = Some(bak);
        }
        write_atomic(&self.target, text.as_bytes())
            .map_err(|e| Failure(format!("cannot write {}: {e}", self.target.display())))?;
        if let Some(p) = &self.perms {
            let _ = fs::set_permissions(&self.target, p.clone());
        }
        Ok(backup)
    }
}

/// Remove hookrules handlers (from `only` events, or all), then the matcher groups and
/// event entries that this left empty (and `hooks` itself). Returns (event, count).
fn remove_handlers(root: &mut Map<String, Value>, only: Option<&[&str]>) -> Vec<(String, usize)> {
    let Some(Value::Object(hooks)) = root.get_mut("hooks") else {
        return vec![];
    };
    let mut removed = vec![];
    let mut emptied = vec![];
    for (event, list) in hooks.iter_mut() {
        if only.is_some_and(|o| !o.contains(&event.as_str())) {
            continue;
        }
        let Value::Array(groups) = list else { continue };
        let mut n = 0;
        groups.retain_mut(|g| {
            let Some(Value::Array(hs)) = g.get_mut("hooks") else {
                return true;
            };
            let before = hs.len();
            hs.retain(|h| !Host::Claude.runs_hookrules(h, None));
            let k = before - hs.len();
            n += k;
            !(k > 0 && hs.is_empty())
        });
        if n > 0 {
            removed.push((event.clone(), n));
            if groups.is_empty() {
                emptied.push(event.clone());
            }
        }
    }
    for e in &emptied {
        hooks.shift_remove(e);
    }
    if !removed.is_empty() && hooks.is_empty() {
        root.shift_remove("hooks");
    }
    removed
}

/// Commands of the hookrules handlers registered for an event.
fn hookrules_commands(list: &Value, command: Option<&str>) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|h| Host::Claude.runs_hookrules(h, command))
        .filter_map(|h| h.get("command").and_then(Value::as_str).map(str::to_string))
        .collect()
}

/// Does this file register hookrules anywhere?
fn registers_hookrules(path: &Path) -> bool {
    let Ok(text) = crate::os::files::read_text(path) else {
        return false;
    };
    let Ok(v) = serde_json::from_str::<Value>(&text) else {
        return false;
    };
    v.get("hooks")
        .and_then(Value::as_object)
        .is_some_and(|h| h.values().any(|l| !hookrules_commands(l, None).is_empty()))
}

/// A unified diff of two texts by lines (three lines of context), or "" if
/// they hold the same lines.
pub fn unified_diff(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    if old.lines().eq(new.lines()) {
        return String::new();
    }
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(old_name, new_name)
        .to_string()
}

fn diff_names(s: &Settings) -> (String, String) {
    let shown = s.path.display().to_string();
    match s.original {
        Some(_) => (shown.clone(), shown),
        None => ("/dev/null".into(), shown),
    }
}

// ---------------------------------------------------------------------------
// init

/// `--host NAME` for an agent other than Claude Code: run `f` for it (exit 0, or
/// 2 with the message). `None`: no `--host`, or `--host claude`.
fn other_host(
    host: Option<&str>,
    err: &mut dyn Write,
    f: impl FnOnce(crate::contract::hosts::Host) -> Result<(), String>,
) -> Option<i32> {
    let name = host?;
    let Some(h) = Host::parse(name) else {
        let _ = writeln!(
            err,
            "hookrules: unknown --host `{name}`; one of: {}",
            Host::ALL.map(Host::name).join(", ")
        );
        return Some(2);
    };
    if h == Host::Claude {
        return None;
    }
    Some(match f(h) {
        Ok(()) => 0,
        Err(e) => {
            let _ = writeln!(err, "hookrules: {e}");
            2
        }
    })
}

/// `hookrules init`: 0 done (or nothing to do); 2 on an error, with nothing written
/// (unless the message says the settings were updated before the starter failed).
pub fn init(args: &InitArgs, ctx: &Context, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    if let Some(r) = other_host(args.host.as_deref(), err, |h| {
        crate::cli::install_hosts::init(
            h,
            args.user,
            args.dry_run,
            args.command.as_deref(),
            ctx,
            out,
        )
    }) {
        return r;
    }
    match init_inner(args, ctx, out) {
        Ok(()) => 0,
        Err(f) => {
            let _ = writeln!(err, "hookrules init: {f}");
            2
        }
    }
}

fn init_inner(args: &InitArgs, ctx: &Context, out: &mut dyn Write) -> Result<(), Failure> {
    let path = ctx.settings_path(args.user)?;
    let project = (!args.user).then(|| ctx.project_dir());
    let version = resolve_version(args, ctx)?;
    let command = resolve_command(args, ctx, project.as_deref())?;
    let mut settings = load(&path)?;
    // The policies this registration serves: the project's (or, for --user, the
    // user layer's), over the built-in pack.
    let discovery = crate::policy::discover::Discovery {
        project_dir: project.clone(),
        env: None,
        ..crate::cli::discovery(vec![], &ctx.env)
    };
    let needs = crate::cli::timeouts::needs(&discovery.find());
    let plan = register(&mut settings, &version, &command, &needs)?;

    let shown = path.display();
    let w = &mut *out;
    let _ = writeln!(w, "hookrules init: {shown}");
    report_client(&version, w);
    let _ = writeln!(w, "  command: {command} run");
    let _ = writeln!(
        w,
        "  not registered: {} (a handler there replaces the client's own git worktree handling)",
        NOT_REGISTERED.join(", ")
    );
    report_plan(&plan, &version, &command, &needs, w);
    report_warnings(args, ctx, &settings, &path, &command, w);

    let new_text = render(&settings.root, &settings.indent);
    let changed = plan.changes() || settings.original.is_none();
    let starter = project.as_deref().map(starter_plan).transpose()?;
    if args.dry_run {
        dry_run(
            &settings,
            &new_text,
            changed,
            starter.as_ref(),
            project.as_deref(),
            w,
        );
        return Ok(());
    }
    write_settings(&settings, &new_text, changed, w)?;
    write_starter(starter.as_ref(), ctx, &shown.to_string(), w)?;
    if let Some(p) = project.as_deref() {
        write_ignore(p, &shown.to_string(), w)?;
    }
    let _ = writeln!(w, "Next:");
    let _ = writeln!(
        w,
        "  1. restart Claude Code: it reads hooks when a session starts (`/hooks` lists them)"
    );
    let _ = writeln!(
        w,
        "  2. hookrules check                          lint the policies"
    );
    let _ = writeln!(
        w,
        "  3. hookrules explain --bash 'rm -rf ~'      see how a command is decided (or EVENT.json)"
    );
    Ok(())
}

/// What `init` does to the settings' hooks, event by event.
struct Plan {
    /// Events that get a hookrules handler.
    added: Vec<&'static str>,
    /// Events that already had one.
    kept: Vec<&'static str>,
    /// Events whose handler runs hookrules from another path (`EVENT (command)`).
    other_command: Vec<String>,
    /// Handlers whose timeout changed: (event, old, new) in seconds.
    updated: Vec<(&'static str, f64, f64)>,
    /// Handlers removed from events the client does not have: (event, how many).
    dropped: Vec<(String, usize)>,
    /// The timeout each event is registered with.
    timeouts: BTreeMap<&'static str, u64>,
}

impl Plan {
    /// Does the settings file change?
    fn changes(&self) -> bool {
        !self.added.is_empty() || !self.dropped.is_empty() || !self.updated.is_empty()
    }

    fn timeout(&self, event: &str) -> u64 {
        self.timeouts.get(event).copied().unwrap_or_default()
    }
}

/// Register hookrules for every event the client has (keeping handlers that
/// run it already, updating their timeouts where the policies need more), and
/// take it out of events the client is known to lack (§6 item 3).
fn register(
    settings: &mut Settings,
    version: &Version,
    command: &str,
    needs: &BTreeMap<String, crate::cli::timeouts::Need>,
) -> Result<Plan, Failure> {
    let events = events_for(version.version);
    let timeouts: BTreeMap<&'static str, u64> = events
        .iter()
        .map(|&e| {
            (
                e,
                crate::cli::timeouts::timeout_to_register(e, needs.get(e)),
            )
        })
        .collect();
    let hooks = settings
        .root
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| Failure("`hooks` is not an object".into()))?;
    let (mut added, mut kept, mut other_command, mut updated) = (vec![], vec![], vec![], vec![]);
    for &event in &events {
        let want = timeouts[event];
        let list = hooks.entry(event).or_insert_with(|| Value::Array(vec![]));
        let existing = hookrules_commands(list, Some(command));
        if existing.is_empty() {
            if let Value::Array(groups) = list {
                groups.push(json!({ "hooks": [handler(command, want)] }));
            }
            added.push(event);
            continue;
        }
        if !existing.iter().any(|c| c == command) {
            other_command.push(format!("{event} ({})", existing[0]));
        }
        let handlers = list
            .as_array_mut()
            .into_iter()
            .flatten()
            .filter_map(|g| g.get_mut("hooks").and_then(Value::as_array_mut))
            .flatten()
            .filter(|h| Host::Claude.runs_hookrules(h, Some(command)));
        for h in handlers {
            let need = needs.contains_key(event).then_some(want);
            if let Some((old, new)) = update_handler(h, need) {
                updated.push((event, old, new));
            }
        }
        kept.push(event);
    }
    let unsupported: Vec<&str> = NEWER_EVENTS
        .iter()
        .copied()
        .filter(|e| version.version.is_some() && !events.contains(e))
        .collect();
    let dropped = remove_handlers(&mut settings.root, Some(&unsupported));
    if settings.root.get("hooks").is_none() {
        settings
            .root
            .insert("hooks".into(), Value::Object(Map::new()));
    }
    Ok(Plan {
        added,
        kept,
        other_command,
        updated,
        dropped,
        timeouts,
    })
}

/// Which client the events were chosen for, and what that leaves out.
fn report_client(version: &Version, w: &mut dyn Write) {
    let _ = writeln!(w, "  client: {}", version.note);
    match version.version {
        Some(v) if v >= ALL_EVENTS_FROM => {}
        Some(v) => {
            let _ = writeln!(
                w,
                "  {} left out: clients before {} may not know them, and an unknown event can switch off every hook in the file (reference §6 item 3)",
                NEWER_EVENTS.join(", "),
                version_text(ALL_EVENTS_FROM)
            );
            if v < OLDEST_CHECKED {
                let _ = writeln!(
                    w,
                    "  warning: hookrules was not checked against clients older than {}; if hooks stop firing, update Claude Code",
                    version_text(OLDEST_CHECKED)
                );
            }
        }
        None => {
            let _ = writeln!(
                w,
                "  registering the events of client {} (without {}); rerun with --client-version X.Y.Z to add them on {} or newer",
                version_text(OLDEST_CHECKED),
                NEWER_EVENTS.join(", "),
                version_text(ALL_EVENTS_FROM)
            );
        }
    }
}

/// The events added, kept, updated and removed, with the timeouts and why.
fn report_plan(
    plan: &Plan,
    version: &Version,
    command: &str,
    needs: &BTreeMap<String, crate::cli::timeouts::Need>,
    w: &mut dyn Write,
) {
    if !plan.added.is_empty() {
        let _ = writeln!(
            w,
            "  adding {} event(s): {}",
            plan.added.len(),
            plan.added
                .iter()
                .map(|e| format!("{e} {}s", plan.timeout(e)))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !plan.kept.is_empty() {
        let _ = writeln!(
            w,
            "  already registered: {} event(s){}",
            plan.kept.len(),
            if plan.updated.is_empty() {
                ", left as they are"
            } else {
                ""
            }
        );
    }
    for (event, old, new) in &plan.updated {
        let why = needs
            .get(*event)
            .map(|n| {
                format!(
                    " (its commands can take {}: {})",
                    crate::cli::timeouts::seconds(n.ms),
                    n.describe()
                )
            })
            .unwrap_or_default();
        if old == new {
            let _ = writeln!(w, "  {event}: run --timeout set to its timeout, {new}s");
        } else {
            let _ = writeln!(w, "  {event}: timeout {old}s -> {new}s{why}");
        }
    }
    for (event, n) in needs {
        if plan.added.contains(&event.as_str())
            && plan.timeout(event) > crate::contract::events::default_timeout_secs(event)
        {
            let _ = writeln!(
                w,
                "  {event}: {}s, since its commands can take {} ({})",
                plan.timeout(event),
                crate::cli::timeouts::seconds(n.ms),
                n.describe()
            );
        }
    }
    if !plan.other_command.is_empty() {
        let _ = writeln!(
            w,
            "  note: {} event(s) run hookrules from another path, kept: {}; `hookrules uninstall` then `hookrules init` switches them to {command}",
            plan.other_command.len(),
            plan.other_command.join(", ")
        );
    }
    for (event, n) in &plan.dropped {
        let _ = writeln!(
            w,
            "  removing {n} hookrules handler(s) from {event}, which client {} does not have",
            version.version.map(version_text).unwrap_or_default()
        );
    }
}

/// What could keep the registration from working: hooks switched off, a
/// program that is not there, a path teammates lack, a second registration.
fn report_warnings(
    args: &InitArgs,
    ctx: &Context,
    settings: &Settings,
    path: &Path,
    command: &str,
    w: &mut dyn Write,
) {
    if settings.root.get("disableAllHooks") == Some(&Value::Bool(true)) {
        let _ = writeln!(
            w,
            "  warning: this file sets \"disableAllHooks\": true, so no hook runs"
        );
    }
    if args.command.is_some() {
        // Written anyway (it may be installed next), but never silently: a
        // handler whose program is missing fails every hook.
        if let Err(problem) = crate::cli::wiring::check_program(command, ctx, crate::cli::VERSION) {
            let _ = writeln!(w, "  warning: --command: {problem}");
        }
    }
    if command.starts_with('/') && !args.user {
        let _ = writeln!(
            w,
            "  note: {command} is a path on this machine; if .claude/settings.json is shared, teammates need hookrules there too (or use --command)"
        );
    }
    if args.user {
        return;
    }
    if let Ok(user) = ctx.user_settings() {
        if user == path {
            let _ = writeln!(
                w,
                "  note: this project's settings file is also your user settings file"
            );
        } else if registers_hookrules(&user) {
            let _ = writeln!(
                w,
                "  warning: {} also registers hookrules, so each event would run it twice; `hookrules uninstall --user` removes that",
                user.display()
            );
        }
    }
}

/// `--dry-run`: the diffs of what would be written, and nothing written.
fn dry_run(
    settings: &Settings,
    new_text: &str,
    changed: bool,
    starter: Option<&Starter>,
    project: Option<&Path>,
    w: &mut dyn Write,
) {
    let _ = writeln!(w, "dry run: nothing is written");
    if changed {
        let (a, b) = diff_names(settings);
        let _ = write!(
            w,
            "{}",
            unified_diff(&settings.old_text(), new_text, &a, &b)
        );
    } else {
        let _ = writeln!(
            w,
            "{}: already set up, would stay unchanged",
            settings.path.display()
        );
    }
    match starter {
        Some(Starter::Create(file)) => {
            let _ = write!(
                w,
                "{}",
                unified_diff("", STARTER_POLICY, "/dev/null", &file.display().to_string())
            );
        }
        other => starter_report(other, w),
    }
    if let Some(p) = project {
        if let Some(note) = ignore_plan(p) {
            let _ = writeln!(
                w,
                "would add `{LOCAL_PATTERN}` to {} ({note})",
                ignore_file(p).display()
            );
        }
    }
}

/// Write the settings (with a backup), or say they are already set up.
fn write_settings(
    settings: &Settings,
    new_text: &str,
    changed: bool,
    w: &mut dyn Write,
) -> Result<(), Failure> {
    let shown = settings.path.display();
    if !changed {
        let _ = writeln!(
            w,
            "  already set up: every event has a hookrules handler; {shown} unchanged"
        );
        return Ok(());
    }
    let backup = settings.commit(new_text)?;
    if let Some(b) = backup {
        let _ = writeln!(w, "  backup: {}", b.display());
    }
    if settings.target != settings.path {
        let _ = writeln!(
            w,
            "  {shown} is a symlink: wrote its target {}",
            settings.target.display()
        );
    }
    let _ = writeln!(w, "  wrote {shown}");
    Ok(())
}

/// Create the starter policy, trusted as written, or say why there is none.
fn write_starter(
    starter: Option<&Starter>,
    ctx: &Context,
    shown: &str,
    w: &mut dyn Write,
) -> Result<(), Failure> {
    let Some(Starter::Create(file)) = starter else {
        starter_report(starter, w);
        return Ok(());
    };
    create_new(file, STARTER_POLICY).map_err(|e| {
        Failure(format!(
            "{shown} was updated, but {} could not be created: {e}",
            file.display()
        ))
    })?;
    let _ = writeln!(
        w,
        "  created {} (adds to the built-in pack; edit it to add rules)",
        file.display()
    );
    // The starter as written is trusted: what it holds is hookrules'
    // own text (an edit that loosens needs `hookrules trust`).
    if let Some(state) = crate::os::state::state_home(&ctx.env) {
        let mut store = crate::policy::trust::Store::open(&state);
        // The starter is `PROJECT/.claude/hookrules/NAME` (`starter_plan`).
        let project = file.ancestors().nth(3).unwrap_or(file);
        if let Err(e) = store.trust(project, file, STARTER_POLICY, "hookrules init") {
            let _ = writeln!(w, "  note: the starter policy is not trusted: {e}");
        }
    }
    Ok(())
}

/// Keep personal policies out of version control, where that is not so yet.
fn write_ignore(project: &Path, shown: &str, w: &mut dyn Write) -> Result<(), Failure> {
    if ignore_plan(project).is_none() {
        return Ok(());
    }
    let file = ignore_file(project);
    ignore_local(&file).map_err(|e| {
        Failure(format!(
            "{shown} was updated, but {} could not be written: {e}",
            file.display()
        ))
    })?;
    let _ = writeln!(
        w,
        "  added `{LOCAL_PATTERN}` to {} (personal policies stay out of version control)",
        file.display()
    );
    Ok(())
}

fn starter_report(starter: Option<&Starter>, w: &mut dyn Write) {
    match starter {
        Some(Starter::Create(_)) => {}
        Some(Starter::Exists(file)) => {
            let _ = writeln!(w, "  kept {} as it is", file.display());
        }
        Some(Starter::OtherPolicies(dir)) => {
            let _ = writeln!(
                w,
                "  {} already holds policies: no starter written (they add to the built-in pack)",
                dir.display()
            );
        }
        None => {
            let _ = writeln!(
                w,
                "  policies: the built-in pack, plus ~/.config/hookrules/*.toml and each project's {PROJECT_POLICY_DIR}/*.toml"
            );
        }
    }
}

enum Starter {
    Create(PathBuf),
    Exists(PathBuf),
    OtherPolicies(PathBuf),
}

fn starter_plan(project: &Path) -> Result<Starter, Failure> {
    let dir = project.join(PROJECT_POLICY_DIR);
    let file = dir.join(STARTER_NAME);
    if fs::symlink_metadata(&file).is_ok() {
        return Ok(Starter::Exists(file));
    }
    if dir.is_dir() {
        let found = toml_files_in(&dir)
            .map_err(|e| Failure(format!("cannot read {}: {e}", dir.display())))?;
        if !found.is_empty() {
            return Ok(Starter::OtherPolicies(dir));
        }
    }
    Ok(Starter::Create(file))
}

/// The local layer's files, kept out of version control.
const LOCAL_PATTERN: &str = "*.local.toml";

/// Where the ignore rule goes: the policy folder's own `.gitignore`, so it
/// travels with the folder and leaves the project's `.gitignore` alone.
fn ignore_file(project: &Path) -> PathBuf {
    project.join(PROJECT_POLICY_DIR).join(".gitignore")
}

/// Why the ignore rule is needed (None: it is there already).
fn ignore_plan(project: &Path) -> Option<&'static str> {
    // Never blocks on a FIFO, a device or a socket in the file's place (then
    // `ignore_local` says what it is).
    match crate::os::files::read_text(&ignore_file(project)) {
        Ok(text) if text.lines().any(|l| l.trim() == LOCAL_PATTERN) => None,
        Ok(_) => Some("the file exists without it"),
        Err(_) => Some("a new file"),
    }
}

/// Add the ignore rule: a new file, or one line appended to an existing one.
fn ignore_local(file: &Path) -> std::io::Result<()> {
    match crate::os::files::read_text(file) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => create_new(
            file,
            &format!("# hookrules: *.local.toml are personal policies (the local layer)\n{LOCAL_PATTERN}\n"),
        ),
        Err(e) => Err(e),
        Ok(text) => {
            use std::os::unix::fs::OpenOptionsExt;
            // Not blocking either if a FIFO was put there since it was read.
            let mut f = fs::OpenOptions::new()
                .append(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(file)?;
            let sep = if text.is_empty() || text.ends_with('\n') { "" } else { "\n" };
            f.write_all(format!("{sep}{LOCAL_PATTERN}\n").as_bytes())?;
            f.sync_all()
        }
    }
}

/// Create a file that must not exist yet (never overwrites).
fn create_new(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut f = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)?;
    f.write_all(text.as_bytes())?;
    f.sync_all()
}

// ---------------------------------------------------------------------------
// uninstall

/// `hookrules uninstall`: 0 done (or nothing to remove), 2 nothing written because of an error.
pub fn uninstall(
    args: &UninstallArgs,
    ctx: &Context,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if let Some(r) = other_host(args.host.as_deref(), err, |h| {
        crate::cli::install_hosts::uninstall(h, args.user, args.dry_run, ctx, out)
    }) {
        return r;
    }
    match uninstall_inner(args, ctx, out) {
        Ok(()) => 0,
        Err(f) => {
            let _ = writeln!(err, "hookrules uninstall: {f}");
            2
        }
    }
}

fn uninstall_inner(args: &UninstallArgs, ctx: &Context, w: &mut dyn Write) -> Result<(), Failure> {
    let path = ctx.settings_path(args.user)?;
    let shown = path.display();
    let _ = writeln!(w, "hookrules uninstall: {shown}");
    let mut settings = load(&path)?;
    let removed = remove_handlers(&mut settings.root, None);
    if removed.is_empty() {
        let _ = writeln!(w, "  no hookrules handlers found; {shown} unchanged");
    } else {
        let n: usize = removed.iter().map(|(_, n)| n).sum();
        let _ = writeln!(
            w,
            "  removing {n} hookrules handler(s) from {} event(s); other hooks stay",
            removed.len()
        );
        let new_text = render(&settings.root, &settings.indent);
        if args.dry_run {
            let _ = writeln!(w, "dry run: nothing is written");
            let (a, b) = diff_names(&settings);
            let _ = write!(
                w,
                "{}",
                unified_diff(&settings.old_text(), &new_text, &a, &b)
            );
        } else {
            if let Some(b) = settings.commit(&new_text)? {
                let _ = writeln!(w, "  backup: {}", b.display());
            }
            let _ = writeln!(w, "  wrote {shown}");
            let _ = writeln!(w, "  restart Claude Code for the change to take effect");
        }
    }
    if !args.user {
        let dir = ctx.project_dir().join(PROJECT_POLICY_DIR);
        if dir.is_dir() {
            let _ = writeln!(
                w,
                "  left {} alone (your policies); delete it yourself if you no longer want it",
                dir.display()
            );
        }
    }
    Ok(())
}
