//! Will Codex run hookrules' hooks? Codex (0.169) runs a hook from a
//! `hooks.json` only when the user's `config.toml` records its hash as trusted,
//! and reads a project's `.codex/` only in a trusted project; everything else
//! it skips without a word, `codex exec` included (docs/hosts.md, "Codex's
//! trust"; proven against the real client by `tests/e2e/codex`).
//!
//! The record: `[hooks.state."<hooks.json>:<event>:<group>:<handler>"]` with
//! `trusted_hash` (and `enabled`), the event in snake case. The hash: SHA-256
//! of the compact JSON, keys sorted, of `{"event_name", "hooks": [the one
//! normalized handler], "matcher"?}`, a normalized handler being
//! `{"async", "command", "timeout" (600 when absent, at least 1), "type"}`.

use crate::os::env::Env;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Whether Codex runs one hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// Its hash is recorded as trusted: Codex runs it.
    Trusted,
    /// A hash is recorded, but another: the hook changed since it was trusted.
    Modified,
    /// No trust recorded.
    Untrusted,
    /// Turned off (`enabled = false`).
    Disabled,
    /// A handler shape whose hash hookrules does not know how Codex computes.
    Unknown(String),
}

/// One hookrules handler in a Codex hook file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookTrust {
    /// The event as written (`PreToolUse`).
    pub event: String,
    /// Codex's key for it.
    pub key: String,
    /// Whether Codex runs it.
    pub trust: Trust,
}

/// `PreToolUse` → `pre_tool_use`.
fn snake(event: &str) -> String {
    let mut s = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// Codex's trust hash of one command handler of a matcher group, or why it
/// cannot be told.
pub fn hook_hash(event: &str, matcher: Option<&str>, handler: &Value) -> Result<String, String> {
    let h = handler.as_object().ok_or("the handler is not an object")?;
    if h.get("type").and_then(Value::as_str) != Some("command") {
        return Err("not a command handler".into());
    }
    if let Some(k) = h
        .keys()
        .find(|k| !["type", "command", "timeout", "async", "commandWindows"].contains(&k.as_str()))
    {
        return Err(format!("the handler has `{k}`"));
    }
    let command = h
        .get("command")
        .and_then(Value::as_str)
        .ok_or("no command")?;
    let timeout = match h.get("timeout") {
        None => 600,
        Some(t) => t
            .as_u64()
            .ok_or("the timeout is not a whole number")?
            .max(1),
    };
    let is_async = match h.get("async") {
        None => false,
        Some(a) => a.as_bool().ok_or("`async` is not true/false")?,
    };
    // Keys in sorted order (the map keeps insertion order): Codex hashes canonical JSON.
    let mut normalized = Map::new();
    normalized.insert("async".into(), Value::Bool(is_async));
    normalized.insert("command".into(), Value::String(command.into()));
    normalized.insert("timeout".into(), Value::from(timeout));
    normalized.insert("type".into(), Value::String("command".into()));
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::String(snake(event)));
    identity.insert(
        "hooks".into(),
        Value::Array(vec![Value::Object(normalized)]),
    );
    if let Some(m) = matcher {
        identity.insert("matcher".into(), Value::String(m.into()));
    }
    let text = serde_json::to_string(&Value::Object(identity)).unwrap_or_default();
    let digest = Sha256::digest(text.as_bytes());
    Ok(format!(
        "sha256:{}",
        digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    ))
}

/// The user's Codex config (`$CODEX_HOME/config.toml`, else `~/.codex/config.toml`).
pub fn config_path(env: &Env) -> Option<PathBuf> {
    crate::contract::places::codex_config(env)
}

/// Read a Codex config; `Ok(None)` when there is none.
pub fn read_config(path: &Path) -> Result<Option<toml::Table>, String> {
    // Never blocks on a FIFO, a device or a socket in the file's place.
    match crate::os::files::read_text(path) {
        Ok(text) => text
            .parse::<toml::Table>()
            .map(Some)
            .map_err(|e| format!("{} is not valid TOML: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// hookrules' handlers in a Codex hook file and whether Codex runs each.
pub fn hookrules_hooks(hooks_json: &Path, config: Option<&toml::Table>) -> Vec<HookTrust> {
    let Some(file) = crate::os::files::read_text(hooks_json)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
    else {
        return vec![];
    };
    let state = config
        .and_then(|c| c.get("hooks"))
        .and_then(|h| h.get("state"))
        .and_then(toml::Value::as_table);
    let mut out = vec![];
    let Some(events) = file.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in events {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            for (i, handler) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if !crate::contract::hosts::Host::Codex.runs_hookrules(handler, None) {
                    continue;
                }
                let key = format!("{}:{}:{g}:{i}", hooks_json.display(), snake(event));
                let record = state.and_then(|s| s.get(&key));
                let trusted = record
                    .and_then(|r| r.get("trusted_hash"))
                    .and_then(toml::Value::as_str);
                let enabled = record
                    .and_then(|r| r.get("enabled"))
                    .and_then(toml::Value::as_bool);
                let trust = if enabled == Some(false) {
                    Trust::Disabled
                } else {
                    match (hook_hash(event, matcher, handler), trusted) {
                        (_, None) => Trust::Untrusted,
                        (Ok(h), Some(t)) if h == t => Trust::Trusted,
                        (Ok(_), Some(_)) => Trust::Modified,
                        (Err(why), Some(_)) => Trust::Unknown(why),
                    }
                };
                out.push(HookTrust {
                    event: event.clone(),
                    key,
                    trust,
                });
            }
        }
    }
    out
}

/// The project's trust level in the Codex config, looked up for the project
/// folder and the git repository around it (`trusted`, `untrusted`), if any.
pub fn project_trust(config: Option<&toml::Table>, project: &Path) -> Option<String> {
    let projects = config?.get("projects")?.as_table()?;
    let repo = project.ancestors().find(|d| d.join(".git").exists());
    [Some(project), repo].into_iter().flatten().find_map(|dir| {
        projects
            .get(&dir.display().to_string())?
            .get("trust_level")?
            .as_str()
            .map(str::to_string)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The hash the real client (`codex app-server` 0.169.0, `hooks/list`) reported
    /// for this handler: tests/e2e/codex asserts the same for every hook it installs.
    #[test]
    fn hash_matches_the_client() {
        let h = json!({"type": "command", "command": "/work/wt/hosts2/target/debug/hookrules run --host codex", "timeout": 10});
        assert_eq!(
            hook_hash("PreToolUse", None, &h).unwrap(),
            "sha256:abaa25064626f6408d0aac249ca10c6fc2c1a777f4f839fd6763e0497218610d"
        );
        assert_eq!(
            hook_hash("PostToolUse", None, &h).unwrap(),
            "sha256:235e2d6a7425d8f312f88c43ffc8d4e0d7d8f28ca9d9281f1315268189a5b6a9"
        );
    }

    #[test]
    fn unknown_shapes_are_not_guessed() {
        let h = json!({"type": "command", "command": "x", "statusMessage": "checking"});
        assert!(hook_hash("PreToolUse", None, &h).is_err());
        let h = json!({"type": "command", "command": "x", "timeout": 2.5});
        assert!(hook_hash("PreToolUse", None, &h).is_err());
        assert!(hook_hash("PreToolUse", None, &json!({"type": "prompt"})).is_err());
    }

    #[test]
    fn snake_case_events() {
        assert_eq!(snake("PreToolUse"), "pre_tool_use");
        assert_eq!(snake("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(snake("Stop"), "stop");
    }
}
