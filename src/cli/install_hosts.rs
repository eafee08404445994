//! `hookrules init --host NAME` / `uninstall --host NAME`: register (or remove)
//! `hookrules run --host NAME` in another agent's hook file, keeping everything
//! else in it. Where each host's file is, its handler shape, events and timeout
//! unit come from the host's adapter (`contract::hosts::*::ADAPTER`; the files
//! through `contract::places::hook_file`, which the built-in pack also guards),
//! after its published contract (docs/hosts.md); which handlers are hookrules'
//! from `contract::hosts::handler`.
//!
//! VS Code also reads `.claude/settings.json`: when that already runs hookrules,
//! `init --host vscode` writes nothing (the events would be answered twice).
//! Writes are atomic, the old file is kept as `*.bak`, and running it again
//! changes nothing.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use crate::cli::init::Context;
use crate::contract::hosts::adapter::HandlerShape;
use crate::contract::hosts::Host;
use crate::os::files::write_atomic;

/// The hook file for a host (`contract::places::hook_file`, from the host's
/// adapter: where it reads hooks, which the built-in pack also guards).
pub fn file_for(host: Host, ctx: &Context, user: bool) -> Result<PathBuf, String> {
    crate::contract::places::hook_file(host, &ctx.env, &ctx.project_dir(), user)
}

/// The handler for one event, in the host's shape.
fn handler(host: Host, shape: HandlerShape, exe: &str, event: &str, seconds: u64) -> Value {
    let mut cmd = format!("{} run --host {}", crate::shell::quote(exe), host.name());
    match shape {
        HandlerShape::PerShell => {
            cmd.push_str(&format!(" --event {event}"));
            json!({"type": "command", "bash": cmd, "powershell": cmd, "timeoutSec": seconds})
        }
        HandlerShape::Named => {
            json!({"type": "command", "name": "hookrules", "command": cmd, "timeout": seconds * 1000})
        }
        HandlerShape::Bare => json!({"command": cmd, "timeout": seconds}),
        HandlerShape::Command => json!({"type": "command", "command": cmd, "timeout": seconds}),
    }
}

fn load(path: &std::path::Path) -> Result<(Map<String, Value>, Option<String>), String> {
    // Never blocks on a FIFO, a device or a socket in the file's place.
    match crate::os::files::read_text(path) {
        Ok(text) if text.trim().is_empty() => Ok((Map::new(), Some(text))),
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(o)) => Ok((o, Some(text))),
            Ok(_) => Err(format!(
                "{} is not a JSON object; nothing changed",
                path.display()
            )),
            Err(e) => Err(format!(
                "{} is not valid JSON ({e}); nothing changed",
                path.display()
            )),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((Map::new(), None)),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

fn save(
    path: &std::path::Path,
    old: Option<&str>,
    root: &Map<String, Value>,
) -> Result<(), String> {
    let text =
        serde_json::to_string_pretty(&Value::Object(root.clone())).unwrap_or_default() + "\n";
    if old == Some(text.as_str()) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    if let Some(old) = old {
        let mut bak = path.as_os_str().to_owned();
        bak.push(".bak");
        write_atomic(&PathBuf::from(bak), old.as_bytes())
            .map_err(|e| format!("cannot back up {}: {e}; nothing changed", path.display()))?;
    }
    write_atomic(path, text.as_bytes()).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Remove hookrules' entries from every event of a hooks object (those
/// running `installed` too); drop emptied events.
fn strip(hooks: &mut Map<String, Value>, host: Host, installed: Option<&str>) -> usize {
    let mut removed = 0;
    for list in hooks.values_mut() {
        if let Value::Array(a) = list {
            let before = a.len();
            a.retain(|e| !host.entry_runs_hookrules(e, installed));
            removed += before - a.len();
        }
    }
    hooks.retain(|_, v| !v.as_array().is_some_and(|a| a.is_empty()));
    removed
}

/// The first of the other hosts' hook files that `host` also runs (its
/// [`AlsoRuns`](crate::contract::hosts::adapter::AlsoRuns)) that runs hookrules.
fn also_runs_hookrules(host: Host, ctx: &Context) -> Result<Option<PathBuf>, String> {
    for &other in host.adapter().also_runs.hosts {
        let found = if other.adapter().install.is_none() {
            // The canonical host: `init` without --host, its settings files.
            crate::cli::wiring::settings_registers(&ctx.env, "PreToolUse")
        } else {
            let file = file_for(other, ctx, false)?;
            crate::cli::wiring::read(crate::cli::wiring::Place::Agent(other), &file)
                .filter(|w| !w.handlers.is_empty())
                .map(|w| w.path)
        };
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// `init --host NAME`.
pub fn init(
    host: Host,
    user: bool,
    dry_run: bool,
    command: Option<&str>,
    ctx: &Context,
    out: &mut dyn Write,
) -> Result<(), String> {
    // A host that also runs other hosts' hook files (VS Code: Claude Code's
    // settings and Copilot CLI's .github/hooks file, whose envelopes hookrules
    // recognises as its own) would answer its events twice from one more file.
    if let Some(p) = also_runs_hookrules(host, ctx)? {
        let _ = writeln!(out, "{} already runs hookrules through {} ({} reads that file, and hookrules recognises its events there); nothing to do.", host.title(), p.display(), host.title());
        return Ok(());
    }
    let path = file_for(host, ctx, user)?;
    let spec = host
        .adapter()
        .install
        .ok_or("Claude Code is `hookrules init` without --host")?;
    let exe = match command {
        Some(c) => c.to_string(),
        None => ctx
            .exe
            .as_ref()
            .and_then(|p| p.canonicalize().ok().or(Some(p.clone())))
            .map(|p| p.display().to_string())
            .ok_or("cannot tell where this binary is; pass --command PATH")?,
    };
    let (mut root, old) = load(&path)?;
    if spec.versioned {
        root.entry("version").or_insert(json!(1));
    }
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Value::Object(hooks) = hooks else {
        return Err(format!(
            "`hooks` in {} is not an object; nothing changed",
            path.display()
        ));
    };
    strip(hooks, host, Some(&exe));
    let events = host.adapter().registered();
    for event in &events {
        let h = handler(host, spec.handler, &exe, event.name, event.timeout_secs());
        let entry = if spec.grouped {
            json!({"hooks": [h]})
        } else {
            h
        };
        match hooks
            .entry(event.name.to_string())
            .or_insert_with(|| json!([]))
        {
            Value::Array(a) => a.push(entry),
            other => *other = json!([entry]),
        }
    }
    let new = serde_json::to_string_pretty(&Value::Object(root.clone())).unwrap_or_default() + "\n";
    if dry_run {
        let _ = writeln!(
            out,
            "{}",
            crate::cli::init::unified_diff(
                old.as_deref().unwrap_or(""),
                &new,
                &path.display().to_string(),
                &path.display().to_string()
            )
        );
        return Ok(());
    }
    let unchanged = old.as_deref() == Some(new.as_str());
    save(&path, old.as_deref(), &root)?;
    let _ = writeln!(
        out,
        "{} {}: `{} run --host {}` for {} events ({} timeouts).",
        if unchanged {
            "Already set up:"
        } else {
            "Registered hookrules in"
        },
        path.display(),
        exe,
        host.name(),
        events.len(),
        match host.timeout_unit() {
            crate::contract::hosts::TimeUnit::Seconds => "seconds",
            crate::contract::hosts::TimeUnit::Milliseconds => "millisecond",
        }
    );
    if command.is_some() {
        if let Err(problem) = crate::cli::wiring::check_program(&exe, ctx, crate::cli::VERSION) {
            let _ = writeln!(out, "warning: --command: {problem}");
        }
    }
    let project_note = if user { "" } else { spec.project_note };
    let note = format!("{}{project_note}", spec.note);
    let _ = writeln!(out, "{note} Then run `hookrules doctor`.");
    Ok(())
}

/// `uninstall --host NAME`.
pub fn uninstall(
    host: Host,
    user: bool,
    dry_run: bool,
    ctx: &Context,
    out: &mut dyn Write,
) -> Result<(), String> {
    let path = file_for(host, ctx, user)?;
    let (mut root, old) = load(&path)?;
    let Some(old_text) = old else {
        let _ = writeln!(out, "{} does not exist; nothing to remove.", path.display());
        return Ok(());
    };
    let removed = match root.get_mut("hooks") {
        Some(Value::Object(h)) => strip(h, host, None),
        _ => 0,
    };
    if root
        .get("hooks")
        .is_some_and(|h| h.as_object().is_some_and(Map::is_empty))
    {
        root.remove("hooks");
    }
    let new = serde_json::to_string_pretty(&Value::Object(root.clone())).unwrap_or_default() + "\n";
    if dry_run {
        let _ = writeln!(
            out,
            "{}",
            crate::cli::init::unified_diff(
                &old_text,
                &new,
                &path.display().to_string(),
                &path.display().to_string()
            )
        );
        return Ok(());
    }
    if removed == 0 {
        let _ = writeln!(
            out,
            "{}: no hookrules handler; nothing changed.",
            path.display()
        );
        return Ok(());
    }
    save(&path, Some(&old_text), &root)?;
    let _ = writeln!(
        out,
        "Removed {removed} hookrules handler(s) from {}.",
        path.display()
    );
    Ok(())
}
