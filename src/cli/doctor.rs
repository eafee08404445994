//! `hookrules doctor`: is hookrules wired where the user thinks, once, with a
//! binary that exists and is this version, with timeouts in the host's unit, and
//! which policies are in force with the built-in protection on?
//!
//! Every finding is a line with a mark: `ok`, `warn` (works, but probably not as
//! meant) or `error` (something does not run or is not protected). Exit 1 when
//! there is an error, else 0.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::init::Context;
use crate::cli::wiring::{self, Place, Wired};
use crate::contract::hosts::Host;
use crate::os::clock::Now;
use crate::os::env::Env;
use crate::policy::discover::Discovery;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// As it should be.
    Ok,
    /// Works, probably not as meant.
    Warn,
    /// Does not run, or does not protect.
    Error,
}

/// What a finding is about: a stable name, for `--format json` (README, "doctor").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Check {
    /// This binary: version and where it is.
    Binary,
    /// A hook file hookrules is registered in, and how many events it answers.
    Wired,
    /// A hook file the agent cannot read.
    HookFile,
    /// A handler's binary: missing, not running, another version.
    HandlerBinary,
    /// A timeout in the wrong unit for the agent.
    TimeoutUnit,
    /// Events answered more than once.
    AnsweredTwice,
    /// The Claude Code plugin.
    Plugin,
    /// The binary the plugin's launcher finds.
    PluginLauncher,
    /// Whether Codex trusts (so runs) hookrules' hooks.
    CodexTrust,
    /// Whether Codex reads the project's `.codex/` (a trusted project).
    CodexProjectTrust,
    /// hookrules is wired nowhere.
    NotWired,
    /// The policies in force, or a policy that cannot be read.
    Policies,
    /// Whether the built-in protection is on.
    Protection,
    /// The user's key and the state it authenticates: forged allowances,
    /// trust records or cache files found (and refused).
    Integrity,
    /// What the repository sets around hookrules: variables of hookrules'
    /// (ignored), hooks switched off, personal files committed.
    Repository,
    /// Tool calls that ran without a PreToolUse answer (the project's log).
    Unguarded,
    /// Export to an OpenTelemetry collector: where, and the spool.
    Export,
    /// The managed layer (`/etc/hookrules`): loaded, refused, required, pinned.
    Managed,
}

impl Check {
    /// The name in `--format json`.
    pub fn name(self) -> &'static str {
        match self {
            Check::Binary => "binary",
            Check::Wired => "wired",
            Check::HookFile => "hook_file",
            Check::HandlerBinary => "handler_binary",
            Check::TimeoutUnit => "timeout_unit",
            Check::AnsweredTwice => "answered_twice",
            Check::Plugin => "plugin",
            Check::PluginLauncher => "plugin_launcher",
            Check::CodexTrust => "codex_trust",
            Check::CodexProjectTrust => "codex_project_trust",
            Check::NotWired => "not_wired",
            Check::Policies => "policies",
            Check::Protection => "protection",
            Check::Integrity => "integrity",
            Check::Repository => "repository",
            Check::Unguarded => "unguarded",
            Check::Export => "export",
            Check::Managed => "managed",
        }
    }
}

impl Level {
    /// The name in `--format json`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Ok => "ok",
            Level::Warn => "warn",
            Level::Error => "error",
        }
    }
}

/// One finding.
#[derive(Debug, Clone)]
pub struct Finding {
    /// How serious.
    pub level: Level,
    /// What it is about.
    pub check: Check,
    /// The file it is about, when it is about one.
    pub path: Option<PathBuf>,
    /// What was found (the text report's line).
    pub text: String,
}

fn push(out: &mut Vec<Finding>, check: Check, level: Level, text: impl Into<String>) {
    out.push(Finding {
        level,
        check,
        path: None,
        text: text.into(),
    });
}

fn push_at(
    out: &mut Vec<Finding>,
    check: Check,
    path: &Path,
    level: Level,
    text: impl Into<String>,
) {
    out.push(Finding {
        level,
        check,
        path: Some(path.to_path_buf()),
        text: text.into(),
    });
}

/// Check one place's handlers: binary present and of this version, timeouts in
/// the host's unit. Whether it has any hookrules handler.
fn check_wired(w: &Wired, host: Host, ctx: &Context, me: &str, out: &mut Vec<Finding>) -> bool {
    let where_ = format!("{} ({})", w.place.title(), w.path.display());
    if let Some(e) = &w.unreadable {
        push_at(
            out,
            Check::HookFile,
            &w.path,
            Level::Error,
            if e.starts_with("cannot be read") {
                format!("{where_}: {e}; hookrules does not read it, and no hook in it can be relied on: put a regular JSON file there (`hookrules init` writes one)")
            } else {
                format!("{where_}: {e}; the agent ignores its hooks")
            },
        );
        return false;
    }
    if w.handlers.is_empty() {
        return false;
    }
    let events: BTreeSet<&str> = w.handlers.iter().map(|h| h.event.as_str()).collect();
    push_at(
        out,
        Check::Wired,
        &w.path,
        Level::Ok,
        format!("{where_}: hookrules answers {} event(s)", events.len()),
    );
    let programs: BTreeSet<&str> = w.handlers.iter().map(|h| h.program.as_str()).collect();
    for program in programs {
        if program.contains("CLAUDE_PLUGIN_ROOT") {
            continue;
        }
        if let Err(problem) = wiring::check_program(program, ctx, me) {
            let level = match problem {
                wiring::ProgramProblem::OtherVersion { .. }
                | wiring::ProgramProblem::InProject(_) => Level::Warn,
                _ => Level::Error,
            };
            push_at(
                out,
                Check::HandlerBinary,
                &w.path,
                level,
                format!("{where_}: {problem}"),
            );
        }
    }
    let mut reported = BTreeSet::new();
    for h in &w.handlers {
        if let Some(t) = h.timeout {
            if let Some(problem) = wiring::timeout_unit_problem(host, t) {
                if reported.insert(problem.clone()) {
                    push_at(
                        out,
                        Check::TimeoutUnit,
                        &w.path,
                        Level::Warn,
                        format!("{where_}: {}: {problem}", h.event),
                    );
                }
            }
        }
    }
    true
}

/// The installed hookrules Claude Code plugins (`plugins/installed_plugins.json`).
fn installed_plugin(ctx: &Context, out: &mut Vec<Finding>) -> Option<(PathBuf, String)> {
    let base = match ctx.env.get("CLAUDE_CONFIG_DIR").filter(|s| !s.is_empty()) {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(ctx.env.get("HOME")?).join(".claude"),
    };
    let path = base.join("plugins/installed_plugins.json");
    // Never blocks on a FIFO, a device or a socket in the file's place.
    let text = match crate::os::files::read_text(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => {
            push_at(
                out,
                Check::Plugin,
                &path,
                Level::Warn,
                format!(
                    "{} cannot be read: {e}; whether the Claude Code plugin is installed is not known",
                    path.display()
                ),
            );
            return None;
        }
    };
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let text = v.to_string();
    let key = text.find("\"hookrules@")?;
    let name = text[key + 1..].split('"').next()?.to_string();
    Some((path, name))
}

/// Run the checks (tests call this with their own context).
pub fn diagnose(ctx: &Context, discovery: &Discovery) -> Vec<Finding> {
    let me = crate::cli::VERSION;
    let mut out = vec![];
    push(
        &mut out,
        Check::Binary,
        Level::Ok,
        format!(
            "this binary: hookrules {me} at {}",
            ctx.exe
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "?".into())
        ),
    );
    let (mut wired, answered) = claude_settings(ctx, me, &mut out);
    wired |= plugin(ctx, me, &answered, &mut out);
    wired |= other_agents(ctx, me, &mut out);
    if !wired {
        push(&mut out, Check::NotWired, Level::Warn, "hookrules is not wired anywhere: run `hookrules init` (or `init --host NAME`), or install the Claude Code plugin");
    }
    let found = discovery.find();
    policies_in_force(&found, &mut out);
    export(ctx, discovery, &found, &mut out);
    managed(&found, &mut out);
    compiled_set(ctx, discovery, &mut out);
    builtin_protection(ctx, discovery, &mut out);
    loosenings(discovery, &mut out);
    integrity(ctx, &mut out);
    repository(ctx, &found, &mut out);
    unguarded(ctx, &mut out);
    out
}

/// Claude Code's settings layers: whether each runs this hookrules, and
/// which events each answers (an event answered by two layers runs twice).
/// Whether one is wired, and the layers answering each event.
fn claude_settings(
    ctx: &Context,
    me: &str,
    out: &mut Vec<Finding>,
) -> (bool, BTreeMap<String, Vec<String>>) {
    let mut wired = false;
    let mut answered: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (place, path) in wiring::settings_layers(ctx) {
        let Some(w) = wiring::read(place.clone(), &path) else {
            continue;
        };
        wired |= check_wired(&w, Host::Claude, ctx, me, out);
        for h in &w.handlers {
            answered
                .entry(h.event.clone())
                .or_default()
                .push(place.title());
        }
    }
    let twice: Vec<String> = answered
        .iter()
        .filter(|(_, places)| places.len() > 1)
        .map(|(e, p)| format!("{e} ({})", p.join(" + ")))
        .collect();
    if !twice.is_empty() {
        push(
            out,
            Check::AnsweredTwice,
            Level::Warn,
            format!(
                "hookrules is registered in more than one settings layer, so these events are answered twice: {}; keep one (`hookrules uninstall` or `uninstall --user`)",
                twice.join(", ")
            ),
        );
    }

    (wired, answered)
}

/// The Claude Code plugin: installed, quiet where a settings layer answers,
/// and whether its launcher finds a hookrules of its version. Whether it is
/// installed.
fn plugin(
    ctx: &Context,
    me: &str,
    answered: &BTreeMap<String, Vec<String>>,
    out: &mut Vec<Finding>,
) -> bool {
    let Some((path, name)) = installed_plugin(ctx, out) else {
        return false;
    };
    push_at(
        out,
        Check::Plugin,
        &path,
        Level::Ok,
        format!(
            "Claude Code plugin {name} is installed ({})",
            path.display()
        ),
    );
    if !answered.is_empty() {
        push(out, Check::Plugin, Level::Ok, format!(
            "the plugin stays quiet on the {} event(s) a settings layer answers, so nothing is answered twice",
            answered.len()
        ));
    }
    // As plugin/bin/hookrules-launch looks: the user's HOOKRULES_BIN, the
    // install places, then a system install on PATH (never a hookrules in a
    // PATH folder the user can write: it is not run, not even here).
    let home = ctx.env.get("HOME").map(PathBuf::from);
    let launcher_finds = ctx
        .env
        .get("HOOKRULES_BIN")
        .map(PathBuf::from)
        .or_else(|| {
            [".local/bin/hookrules", ".cargo/bin/hookrules"]
                .iter()
                .filter_map(|rel| home.as_ref().map(|h| h.join(rel)))
                .find(|p| p.is_file())
        })
        .or_else(|| {
            wiring::resolve_program("hookrules", ctx).filter(|p| {
                use crate::os::files::writable_by_me;
                p.is_absolute() && !writable_by_me(p) && !p.parent().is_some_and(writable_by_me)
            })
        });
    match launcher_finds.as_deref().and_then(|p| wiring::version_of(p).map(|v| (p.to_path_buf(), v))) {
        Some((p, v)) if wiring::same_version(&v, me) => push(out, Check::PluginLauncher, Level::Ok, format!("the plugin's launcher finds {} ({v})", p.display())),
        Some((p, v)) => push(out, Check::PluginLauncher, Level::Error, format!("the plugin's launcher looks for the plugin's version; {} is `{v}`: if that is not the plugin's version, policies are NOT enforced", p.display())),
        None => push(out, Check::PluginLauncher, Level::Error, "the plugin's launcher finds no hookrules binary (HOOKRULES_BIN, ~/.local/bin, ~/.cargo/bin, a system install on PATH; not a PATH folder you can write): every event says policies are NOT enforced"),
    }
    true
}

/// The other agents' hook files: whether each runs this hookrules (Codex:
/// whether the hooks are trusted), and VS Code running it more than once.
/// Whether one is wired.
fn other_agents(ctx: &Context, me: &str, out: &mut Vec<Finding>) -> bool {
    let mut wired = false;
    let mut seen = BTreeSet::new();
    for (host, path) in wiring::agent_files(ctx) {
        if !seen.insert(path.clone()) {
            continue;
        }
        if let Some(w) = wiring::read(Place::Agent(host), &path) {
            let here = check_wired(&w, host, ctx, me, out);
            if here && host == Host::Codex {
                codex_trust(&w, ctx, out);
            }
            wired |= here;
        }
    }
    let vscode_files: Vec<String> = out
        .iter()
        .filter(|f| f.text.contains("/.github/hooks/") && f.text.contains("hookrules answers"))
        .map(|f| {
            f.text
                .split(" (")
                .nth(1)
                .unwrap_or("")
                .split(')')
                .next()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    if vscode_files.len() > 1 {
        push(out, Check::AnsweredTwice, Level::Warn, format!(
            "VS Code runs every .github/hooks/*.json, so it runs hookrules more than once per event ({}); keep one (`hookrules uninstall --host vscode`)",
            vscode_files.join(", ")
        ));
    }

    wired
}

/// The policies in force, where they come from, and the pack turned off.
fn policies_in_force(found: &crate::policy::discover::Found, out: &mut Vec<Finding>) {
    for e in &found.errors {
        push(
            out,
            Check::Policies,
            Level::Error,
            format!("policy: {}", e.message),
        );
    }
    let names: Vec<String> = found
        .sources
        .iter()
        .map(|s| format!("{} [{}]", s.display_name(), s.layer.name()))
        .collect();
    use crate::policy::discover::Selection;
    let from = match found.selection {
        Some(Selection::Flag) => "from --policies",
        Some(Selection::Env) => "from HOOKRULES_POLICIES",
        Some(Selection::Layers) => "from the user, project and local layers",
        Some(Selection::Builtin) => "the built-in pack: no policy in any layer",
        None => "none found",
    };
    push(
        out,
        Check::Policies,
        Level::Ok,
        format!(
            "policies in force ({from}): {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        ),
    );
    if found.builtin_off_by_flag {
        push(
            out,
            Check::Policies,
            Level::Warn,
            "the built-in pack is off: `--no-builtin` leaves it out",
        );
    }
    for f in &found.builtin_off {
        push(
            out,
            Check::Policies,
            Level::Warn,
            format!(
                "the built-in pack is off: `builtin = false` in {}",
                f.display()
            ),
        );
    }
}

/// Export: where decisions go, and what the spool holds (said when export is
/// on, or when records still wait from when it was).
fn export(
    ctx: &Context,
    discovery: &Discovery,
    found: &crate::policy::discover::Found,
    out: &mut Vec<Finding>,
) {
    use crate::log::export::{self, SPOOL_MAX_BYTES};
    let project = discovery
        .project_dir
        .clone()
        .unwrap_or_else(|| ctx.cwd.clone());
    let tables = crate::log::settings::tables_of(found);
    let settings = crate::log::settings::resolve(&tables, &project, &ctx.env);
    if !settings.kept.is_empty() {
        push(
            out,
            Check::Managed,
            Level::Ok,
            format!(
                "the managed layer's [log] pins the decision log; kept out from below: {}",
                settings.kept.join(", ")
            ),
        );
    }
    let on = settings.export;
    let Some(dir) = export::spool_dir(&ctx.env) else {
        return;
    };
    let st = export::status(&dir);
    if !on && st.waiting == 0 {
        return;
    }
    let target = crate::log::otlp::Target::from_env(&ctx.env);
    let protocol = match target.protocol {
        crate::log::otlp::Protocol::Json => "http/json",
        crate::log::otlp::Protocol::Protobuf => "http/protobuf",
    };
    let mut text = format!(
        "export {}: OTLP {protocol} to {}; {} decision(s) waiting in {} ({} KiB of {} MiB), {} sent, {} rejected, {} dropped (spool full) since the last delivery ({} before it)",
        if on { "on" } else { "off" },
        target.url,
        st.waiting,
        dir.display(),
        st.bytes / 1024,
        SPOOL_MAX_BYTES >> 20,
        st.state.sent,
        st.state.rejected,
        st.dropped,
        st.state.dropped,
    );
    if let (true, Some(e)) = (
        st.state.failing || st.state.rejected > 0,
        &st.state.last_error,
    ) {
        text.push_str(&format!(
            "; last failure {}: {e}",
            crate::log::time::format_ms(st.state.last_error_ms)
        ));
    }
    for p in &target.problems {
        text.push_str(&format!("; {p}"));
    }
    let level = if st.dropped > 0 || (st.state.failing && st.waiting > 0) || !on {
        Level::Warn
    } else {
        Level::Ok
    };
    push(out, Check::Export, level, text);
}

/// The managed layer: what it loaded and pins, what it refused and why, the
/// required bundles that are missing, and every attempt below it to change a
/// pinned rule (said only when there is a managed layer).
fn managed(found: &crate::policy::discover::Found, out: &mut Vec<Finding>) {
    let m = &found.managed;
    if let Some(dir) = &m.dir {
        let names: Vec<String> = m
            .loaded
            .iter()
            .map(|(p, n)| {
                format!(
                    "{n} ({})",
                    p.file_name().unwrap_or_default().to_string_lossy()
                )
            })
            .collect();
        let pins = if m.pinned_builtin.is_empty() {
            String::new()
        } else {
            format!("; pins the built-in parts {}", m.pinned_builtin.join(", "))
        };
        push_at(
            out,
            Check::Managed,
            dir,
            Level::Ok,
            format!(
                "managed layer {}: {}{pins}",
                dir.display(),
                if names.is_empty() {
                    "no policy loaded".to_string()
                } else {
                    names.join(", ")
                }
            ),
        );
    }
    for r in &m.refused {
        push_at(
            out,
            Check::Managed,
            &r.path,
            Level::Error,
            format!(
                "managed policy {} is refused: {}{}",
                r.path.display(),
                r.why,
                if r.required {
                    " (required: every call fails closed)"
                } else {
                    " (its rules are not in force)"
                }
            ),
        );
    }
    for name in &m.missing {
        push(
            out,
            Check::Managed,
            Level::Error,
            format!("the required managed policy `{name}` is missing: every call fails closed"),
        );
    }
    if m.dir.is_some() {
        let set = crate::compile::set::CompiledSet::build(found);
        for (id, notes) in &set.notes {
            for n in notes.iter().filter(|n| n.starts_with("kept:")) {
                push(
                    out,
                    Check::Managed,
                    Level::Warn,
                    format!("pinned rule {id} kept: {}", n.trim_start_matches("kept: ")),
                );
            }
        }
    }
}

/// How far back `doctor` looks for unguarded tool calls.
const UNGUARDED_DAYS: i64 = 7;

/// Tool calls of the last days that ran without a PreToolUse answer, from the
/// project's log (see `log::guarded`).
fn unguarded(ctx: &Context, out: &mut Vec<Finding>) {
    let Ok(located) = super::log::locate(&super::log::Where::default(), &ctx.env) else {
        return;
    };
    // A folder that is not there yet reads as empty; a log file that is not a
    // regular file (a FIFO put there) is refused without waiting, and said.
    let records = match super::log::read(&located.path) {
        Ok((records, _)) => records,
        Err(e) => {
            push_at(
                out,
                Check::Unguarded,
                &located.path,
                Level::Warn,
                format!("the decision log cannot be read ({e}), so tool calls that ran without a PreToolUse answer cannot be listed; put the log file back as a regular file (or remove it)"),
            );
            return;
        }
    };
    let since = crate::os::clock::Now::from_env(&ctx.env).ms - UNGUARDED_DAYS * 86_400_000;
    let recent: Vec<&crate::log::record::Record> = records
        .iter()
        .filter(|r| r.kind == crate::log::record::Kind::Unguarded && r.ms() >= since)
        .collect();
    let Some(last) = recent.last() else {
        push(
            out,
            Check::Unguarded,
            Level::Ok,
            format!("no unguarded tool call in the last {UNGUARDED_DAYS} days (every PostToolUse logged had its PreToolUse answered)"),
        );
        return;
    };
    push(
        out,
        Check::Unguarded,
        Level::Warn,
        format!(
            "{} tool call(s) in the last {UNGUARDED_DAYS} days ran with no PreToolUse answer from hookrules for their tool_use_id (the client skipped the hook, it timed out and failed open, or hookrules was not wired then); the latest: {} {} {} `{}`. `hookrules log --decision unguarded` lists them",
            recent.len(),
            last.time.get(..19).unwrap_or(&last.time).replace('T', " "),
            last.event,
            last.tool.as_deref().unwrap_or("-"),
            crate::log::one_line(last.summary.as_deref().unwrap_or(""), 60),
        ),
    );
}

/// What the project's files set around hookrules: its variables (ignored by
/// `run`, see `os::repo_env`), `disableAllHooks` (no hook runs at all), and
/// personal files the repository ships: a `*.local.toml` git tracks or does
/// not ignore is the repository's and needs trust like any project policy
/// (the same warnings as `check`'s HR119), a committed
/// `.claude/settings.local.json`.
fn repository(ctx: &Context, found: &crate::policy::discover::Found, out: &mut Vec<Finding>) {
    let project = ctx.project_dir();
    let mut env: Env = [("CLAUDE_PROJECT_DIR", project.display().to_string())]
        .into_iter()
        .collect();
    for i in crate::os::repo_env::user_only(&mut env, None) {
        push_at(
            out,
            Check::Repository,
            &i.file,
            Level::Warn,
            format!(
                "{} sets {} for the agent's sessions (and its hooks); hookrules ignores it there, because a repository must not configure its guard: set it in your own shell or ~/.claude/settings.json if you mean it",
                i.file.display(),
                i.name
            ),
        );
    }
    let mut settings = vec![
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
    ];
    settings.extend(ctx.user_settings().ok());
    for f in settings {
        // A settings file that is not a regular file is reported with the
        // hook files (`claude_settings`), and never waited on here.
        let off = crate::os::files::read_text(&f)
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .is_some_and(|v| v.get("disableAllHooks") == Some(&serde_json::Value::Bool(true)));
        if off {
            push_at(
                out,
                Check::Repository,
                &f,
                Level::Error,
                format!(
                    "{} sets \"disableAllHooks\": true: Claude Code runs no hook in this project, hookrules included, so nothing is guarded; remove it",
                    f.display()
                ),
            );
        }
    }
    for d in crate::policy::discover::shipped_local(found) {
        let file = match d.source.as_ref().map(|s| &s.origin) {
            Some(crate::source::Origin::File(p)) => p.clone(),
            _ => project.clone(),
        };
        let help = d.help.as_deref().unwrap_or_default();
        push_at(
            out,
            Check::Repository,
            &file,
            Level::Warn,
            format!("{} ({}); {help}", d.message, d.code.code()),
        );
    }
    for f in committed_personal_files(&project) {
        push_at(
            out,
            Check::Repository,
            &project.join(&f),
            Level::Warn,
            format!(
                "{f} is committed to git, though it is a personal file: it comes with every clone, so hookrules treats it as the repository's (what it loosens or runs needs `hookrules trust`); `git rm --cached {f}` if it is yours"
            ),
        );
    }
}

/// The personal settings file (`.claude/settings.local.json`) when git
/// tracks it in `project`; none without git. (Personal policies: HR119.)
fn committed_personal_files(project: &Path) -> Vec<String> {
    // Asked as the guard asks git (`os::git::standing`: the system's git,
    // no `GIT_*` variable, no fsmonitor, in time): a repository's own `git`
    // on PATH or its configured programs never run.
    let f = ".claude/settings.local.json";
    (crate::os::git::standing(&project.join(f)) == crate::os::git::Standing::Tracked)
        .then(|| f.to_string())
        .into_iter()
        .collect()
}

/// What the project's policies loosen or run, and whether the user trusted it.
fn loosenings(discovery: &Discovery, out: &mut Vec<Finding>) {
    let set = crate::compile::set::CompiledSet::build(&discovery.find());
    let mut untrusted: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut trusted = 0;
    for l in &set.loosenings {
        if l.trusted {
            trusted += 1;
        } else {
            untrusted.entry(&l.file).or_default().push(format!(
                "line {}: {}",
                l.line,
                l.what.sentence(&l.rules)
            ));
        }
    }
    for (file, lines) in &untrusted {
        push_at(
            out,
            Check::Policies,
            Path::new(file),
            Level::Warn,
            format!(
                "{file} is not trusted, so what it loosens or runs is ignored: {}; review it, then run `hookrules trust` in the project",
                lines.join("; ")
            ),
        );
    }
    if trusted > 0 {
        push(
            out,
            Check::Policies,
            Level::Ok,
            format!("{trusted} loosening(s) or command(s) of the project's policies are in force, trusted by you (`hookrules check` lists them)"),
        );
    }
}

/// The user's key, and what was refused because it did not verify under it.
fn integrity(ctx: &Context, out: &mut Vec<Finding>) {
    use crate::os::state::{self, KeyError, UserKey};
    let Some(home) = state::state_home(&ctx.env) else {
        return;
    };
    let key = state::key_path(&home);
    match UserKey::load(&home) {
        Ok(_) => push_at(
            out,
            Check::Integrity,
            &key,
            Level::Ok,
            format!(
                "key: {} (private; it signs allowances, trusted policies and the cache)",
                key.display()
            ),
        ),
        Err(KeyError::Missing(_)) => {}
        Err(e) => push_at(out, Check::Integrity, &key, Level::Error, e.to_string()),
    }
    // The record of what was refused: a FIFO (or anything but a regular file)
    // in its place would hide it; refused without waiting, and said.
    let record = home.join(state::INTEGRITY_FILE);
    if let Err(e) = crate::os::files::open_regular(&record) {
        if e.kind() != std::io::ErrorKind::NotFound {
            push_at(
                out,
                Check::Integrity,
                &record,
                Level::Warn,
                format!(
                    "{} cannot be read ({e}): the forged allowances, trust records or cache files hookrules refused are recorded there, and cannot be listed; remove it (hookrules makes it again), and find what put it there",
                    record.display()
                ),
            );
        }
    }
    let events = state::integrity_events(&home, 20);
    if events.is_empty() {
        return;
    }
    let lines: Vec<String> = events
        .iter()
        .rev()
        .take(5)
        .map(|e| {
            format!(
                "{} {} ({}): {}",
                crate::log::time::format_ms(e.time_ms as i64),
                e.what,
                e.path,
                e.detail
            )
        })
        .collect();
    push_at(
        out,
        Check::Integrity,
        &home.join(state::INTEGRITY_FILE),
        Level::Warn,
        format!(
            "{} forged allowance(s), trust record(s) or cache file(s) were found and refused (they were not made by hookrules under your key; something wrote them); the latest:\n    {}",
            events.len(),
            lines.join("\n    ")
        ),
    );
}

/// Where `run` takes the compiled set from: the built-in pack in the binary,
/// the cache, or the policies (each call, until the cache has it).
fn compiled_set(ctx: &Context, discovery: &Discovery, out: &mut Vec<Finding>) {
    use crate::compile::artifact::{self, SetOrigin};
    let (level, text) = match artifact::origin(discovery, &ctx.env) {
        SetOrigin::Embedded => (
            Level::Ok,
            "compiled set: the built-in pack, pre-compiled into this binary".to_string(),
        ),
        SetOrigin::Cache(p) => (
            Level::Ok,
            format!("compiled set: from the cache, {}", p.display()),
        ),
        SetOrigin::Built if artifact::embedded_wanted(discovery, &ctx.env) => (
            Level::Warn,
            "compiled set: the built-in pack pre-compiled into this binary does not verify (generated from other sources than the binary was built from, or damaged); `run` compiles the pack from its policies, correct but slower".to_string(),
        ),
        SetOrigin::Built => (
            Level::Ok,
            "compiled set: compiled from the policies (the next `run` caches it, unless HOOKRULES_CACHE=off)".to_string(),
        ),
    };
    push(out, Check::Policies, level, text);
    use crate::compile::artifact::Refused;
    let Some((path, Some(refused))) = artifact::cache_check(discovery, &ctx.env) else {
        return;
    };
    // Read by the reader `run` uses (`artifact::cache_check`): what it
    // refuses here, `run` refuses too. A warning, as every cache refused:
    // `run` never uses it, so nothing is turned off (README, doctor: an
    // error is what does not run or does not protect).
    let message = match refused {
        Refused::Forged => format!(
            "compiled-set cache {} does not verify under your key: it was changed by something other than hookrules (a changed byte, or made under another key); `run` does not use it (it builds the set from the policies and replaces the file on its next call). Nothing is turned off; find what writes into {}",
            path.display(),
            path.parent().unwrap_or(&path).display()
        ),
        Refused::Records => format!(
            "compiled-set cache {} does not verify under your key: a record in it was changed by something other than hookrules; `run` never uses a record that does not verify (an event that reaches one is judged by the set built from the policies), but keeps the file until the policies change. Nothing is turned off; remove it (`rm {}`) and the next call rebuilds it, and find what writes into {}",
            path.display(),
            crate::shell::quote(&path.display().to_string()),
            path.parent().unwrap_or(&path).display()
        ),
        Refused::NoKey(why) => format!("the compiled-set cache is not used: {why}"),
        Refused::Damaged => format!(
            "compiled-set cache {} is unusable: it is cut short or damaged (hookrules writes it whole, never in part), so something else changed it; `run` does not use it: it builds the set from the policies and rebuilds the file on its next call. Nothing is turned off; if this comes back, find what writes into {}",
            path.display(),
            path.parent().unwrap_or(&path).display()
        ),
        Refused::Other => format!(
            "compiled-set cache {} holds the set of another policy search (another project's, moved or copied under this one's name); `run` does not use it: it builds this project's set from the policies and rebuilds the file on its next call. Nothing is turned off; if this comes back, find what writes into {}",
            path.display(),
            path.parent().unwrap_or(&path).display()
        ),
        Refused::NotAFile(what) => format!(
            "compiled-set cache {} is {what}, not a regular file; `run` does not use it (nor read through it) and builds the set from the policies instead, on every call while it is there (a link is replaced by the next call). Nothing is turned off; remove it (`rm -r {}`), and find what put it there",
            path.display(),
            crate::shell::quote(&path.display().to_string())
        ),
        // Nothing there yet, made by another build, or older than the
        // policies: rebuilt as a matter of course.
        Refused::Absent | Refused::OtherBuild | Refused::Stale => return,
    };
    push_at(out, Check::Integrity, &path, Level::Warn, message);
}

/// Will Codex run the hookrules hooks of this file? It skips untrusted ones
/// (and a project's `.codex/` in an untrusted project) without a word.
fn codex_trust(w: &Wired, ctx: &Context, out: &mut Vec<Finding>) {
    use crate::cli::codex_trust::{self as ct, Trust};
    let where_ = format!("{} ({})", w.place.title(), w.path.display());
    let Some(config_path) = ct::config_path(&ctx.env) else {
        return;
    };
    let config = match ct::read_config(&config_path) {
        Ok(c) => c,
        Err(e) => {
            push_at(
                out,
                Check::CodexTrust,
                &w.path,
                Level::Warn,
                format!("{where_}: cannot tell whether Codex trusts these hooks: {e}"),
            );
            return;
        }
    };
    let project_file = ctx.project_dir().join(".codex/hooks.json");
    if w.path == project_file {
        let project = ctx.project_dir();
        match ct::project_trust(config.as_ref(), &project).as_deref() {
            Some("trusted") => {}
            Some(level) => push_at(out, Check::CodexProjectTrust, &w.path, Level::Error, format!(
                "{where_}: Codex does not read {}/.codex/: the project is `{level}` in {}; trust it (or use `init --host codex --user`)",
                project.display(), config_path.display()
            )),
            None => push_at(out, Check::CodexProjectTrust, &w.path, Level::Warn, format!(
                "{where_}: Codex reads {}/.codex/ only in a trusted project, and {} records no trust for it: answer Codex's trust prompt (or use `init --host codex --user`)",
                project.display(), config_path.display()
            )),
        }
    }
    let hooks = ct::hookrules_hooks(&w.path, config.as_ref());
    let of = |want: fn(&Trust) -> bool| -> Vec<String> {
        hooks
            .iter()
            .filter(|h| want(&h.trust))
            .map(|h| h.event.clone())
            .collect()
    };
    let untrusted = of(|t| matches!(t, Trust::Untrusted));
    let modified = of(|t| matches!(t, Trust::Modified));
    let disabled = of(|t| matches!(t, Trust::Disabled));
    let unknown: Vec<String> = hooks
        .iter()
        .filter_map(|h| match &h.trust {
            Trust::Unknown(why) => Some(format!("{} ({why})", h.event)),
            _ => None,
        })
        .collect();
    let trusted = of(|t| matches!(t, Trust::Trusted)).len();
    if untrusted.is_empty() && modified.is_empty() && disabled.is_empty() && unknown.is_empty() {
        push_at(
            out,
            Check::CodexTrust,
            &w.path,
            Level::Ok,
            format!(
                "{where_}: Codex trusts all {trusted} of hookrules' hooks ({})",
                config_path.display()
            ),
        );
        return;
    }
    let mut parts = vec![];
    if !untrusted.is_empty() {
        parts.push(format!("not trusted: {}", untrusted.join(", ")));
    }
    if !modified.is_empty() {
        parts.push(format!(
            "changed since you trusted them: {}",
            modified.join(", ")
        ));
    }
    if !disabled.is_empty() {
        parts.push(format!("turned off: {}", disabled.join(", ")));
    }
    let skipped: Vec<&String> = untrusted.iter().chain(&modified).chain(&disabled).collect();
    if !skipped.is_empty() {
        let tools = skipped
            .iter()
            .any(|e| e.as_str() == "PreToolUse" || e.as_str() == "PermissionRequest");
        push_at(out, Check::CodexTrust, &w.path, if tools { Level::Error } else { Level::Warn }, format!(
            "{where_}: Codex skips these hooks without a word ({}){}: start `codex`, open /hooks and trust them",
            parts.join("; "),
            if tools { ", so no tool call is checked" } else { "" }
        ));
    }
    if !unknown.is_empty() {
        push_at(
            out,
            Check::CodexTrust,
            &w.path,
            Level::Warn,
            format!(
                "{where_}: cannot tell whether Codex trusts {}: check /hooks in Codex",
                unknown.join(", ")
            ),
        );
    }
}

/// Is the built-in protection on? Asked of the policies themselves: probe events
/// the built-in pack denies are run through them.
fn builtin_protection(ctx: &Context, discovery: &Discovery, out: &mut Vec<Finding>) {
    let home = ctx.env.get("HOME").unwrap_or_else(|| "/root".into());
    let project = ctx.project_dir().display().to_string();
    let probes = [
        (
            "destructive",
            serde_json::json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":project,"session_id":"doctor"}),
        ),
        (
            "secrets",
            serde_json::json!({"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":format!("{home}/.ssh/id_rsa")},"cwd":project,"session_id":"doctor"}),
        ),
        (
            "system-paths",
            serde_json::json!({"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/etc/passwd","content":"x"},"cwd":project,"session_id":"doctor"}),
        ),
    ];
    let mut off = vec![];
    let set = crate::engine::Set::build(discovery);
    let now = Now::from_env(&ctx.env);
    for (pack, event) in probes {
        // Judged as `explain` does: no effects run, nothing is logged.
        let denied = crate::contract::Event::from_value(event).is_ok_and(|event| {
            let world = crate::engine::World::new(&ctx.env, now.clone());
            let judged =
                crate::engine::judge(&set, &event, world, &mut crate::eval::trace::NoTrace);
            matches!(
                judged.decision.kind,
                Some(
                    crate::policy::syntax::DecisionKind::Deny
                        | crate::policy::syntax::DecisionKind::Stop
                )
            )
        });
        if !denied {
            off.push(pack);
        }
    }
    if off.is_empty() {
        push(out, Check::Protection, Level::Ok, "built-in protection is on: `rm -rf /`, reading ~/.ssh/id_rsa and writing /etc/passwd are denied");
    } else {
        push(out, Check::Protection, Level::Error, format!(
            "built-in protection is OFF for: {} (a probe the built-in pack denies was not denied); add `extends = [\"builtin:{}\"]` to a policy, or remove what turns it off",
            off.join(", "),
            off[0]
        ));
    }
}

/// The report as JSON: the same findings as the text report, in the same order
/// (README, "doctor": the keys are stable).
pub fn to_json(findings: &[Finding]) -> serde_json::Value {
    let count = |l: Level| findings.iter().filter(|f| f.level == l).count();
    serde_json::json!({
        "version": crate::cli::VERSION,
        "ok": count(Level::Error) == 0,
        "errors": count(Level::Error),
        "warnings": count(Level::Warn),
        "findings": findings.iter().map(|f| serde_json::json!({
            "level": f.level.name(),
            "check": f.check.name(),
            "path": f.path.as_ref().map(|p| p.display().to_string()),
            "message": f.text,
        })).collect::<Vec<_>>(),
    })
}

/// `hookrules doctor [--format json]`. Exit 1 when there is an error, else 0.
pub fn doctor(
    ctx: &Context,
    discovery: &Discovery,
    format: crate::cli::Format,
    out: &mut dyn Write,
) -> i32 {
    let findings = diagnose(ctx, discovery);
    let errors = findings.iter().filter(|f| f.level == Level::Error).count();
    if format == crate::cli::Format::Json {
        let text = serde_json::to_string_pretty(&to_json(&findings)).unwrap_or_default();
        let _ = writeln!(out, "{text}");
        return i32::from(errors > 0);
    }
    for f in &findings {
        let mark = match f.level {
            Level::Ok => "ok   ",
            Level::Warn => "warn ",
            Level::Error => "error",
        };
        let _ = writeln!(out, "{mark} {}", f.text);
    }
    let warnings = findings.iter().filter(|f| f.level == Level::Warn).count();
    let _ = writeln!(out, "\n{errors} error(s), {warnings} warning(s)");
    i32::from(errors > 0)
}
