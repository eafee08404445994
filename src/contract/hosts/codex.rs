//! OpenAI Codex CLI (`codex-rs/hooks`, schemas under `codex-rs/hooks/schema/generated/`):
//! hooks.json in Claude Code's shape, events with Claude Code's names, and stdin
//! with Claude Code's fields plus `turn_id` and `model`. Two differences matter:
//! shell calls may carry `command` as an argv array, and file changes arrive as one
//! `apply_patch` call whose patch names the files it adds, updates, moves and
//! deletes. The patch becomes a canonical `Write` (only new files) or `Edit`
//! whose `tool_input.file_path` lists every file it writes, so the secrets and
//! system-path rules judge each of them.

use serde_json::{json, Map, Value};

use super::adapter::{Adapter, AlsoRuns, AnswerShape, Call, Caps, Events, Gives, HandlerShape, HostEvent, Install, Sniff, UserFile, ev};
use super::{stamp, Host, Origin, Recognised, TimeUnit, Unrecognised};

/// Codex CLI, as data.
pub const ADAPTER: Adapter = Adapter {
    name: "codex",
    title: "Codex CLI",
    aliases: &["codex-cli"],
    timeout_unit: TimeUnit::Seconds,
    events: Events::Own(EVENTS),
    normalise: |obj, _| normalise(obj),
    renames: |_| &[],
    // Codex (0.169) runs a hook only once its hash is trusted in the user's
    // config.toml, and reads a project's .codex/ only in a trusted project; it
    // skips the rest without a word, `codex exec` included.
    quick_call,
    shell_unnamed: true,
    sniff: Sniff::Shape {
        rank: 2,
        test: |obj, _| looks_like(obj),
    },
    names_event: true,
    answer: AnswerShape::Codex,
    also_runs: AlsoRuns::NOTHING,
    install: Some(Install {
        project_file: ".codex/hooks.json",
        user_file: UserFile::Var {
            var: "CODEX_HOME",
            default: ".codex",
            file: "hooks.json",
        },
        handler: HandlerShape::Command,
        grouped: true,
        versioned: false,
        note: "Codex skips a hook until you trust it, silently: start `codex`, open /hooks and trust hookrules' hooks (again after the command in them changes).",
        project_note: " It reads .codex/ only in a project you trust (its trust prompt, or `trust_level = \"trusted\"` for the project in ~/.codex/config.toml).",
    }),
};

/// A tool call as Codex CLI sends it to PreToolUse: its shell tool, and
/// `apply_patch` for writes and edits.
fn quick_call(call: &Call, session: &str, cwd: &str) -> Result<Value, String> {
    let (tool, input) = match call {
        Call::Read(_) => return Err(
            "Codex CLI has no file-read tool (it reads through its shell): try --bash 'cat PATH'"
                .into(),
        ),
        Call::Bash(c) => ("Bash", json!({"command": c})),
        Call::Write(p) => (
            "apply_patch",
            json!({"command": format!(
            "*** Begin Patch\n*** Add File: {p}\n+hello\n*** End Patch\n")}),
        ),
        Call::Edit(p) => (
            "apply_patch",
            json!({"command": format!(
            "*** Begin Patch\n*** Update File: {p}\n@@\n-hello\n+hello, world\n*** End Patch\n")}),
        ),
    };
    Ok(
        json!({"session_id": session, "transcript_path": null, "cwd": cwd,
           "hook_event_name": "PreToolUse", "turn_id": "t1", "model": "gpt-5-codex",
           "permission_mode": "default", "tool_use_id": "call_1",
           "tool_name": tool, "tool_input": input}),
    )
}

/// A top-level `decision: "block"` event, as in Claude Code.
const BLOCKS: Caps = Caps {
    allow: Gives::No,
    ask: Gives::No,
    deny: Gives::Yes,
    stop: Gives::Yes,
    context: true,
    rewrite: false,
};

/// An event that cannot be blocked, as in Claude Code: `continue: false` only.
const OBSERVES: Caps = Caps {
    stop: Gives::Yes,
    ..Caps::NOTHING
};

/// Codex's events (its `HookEventName`, in the order `init --host codex`
/// registers them) and what an answer can do on each: Claude Code's contract,
/// less what `codex-rs/hooks/src/engine/output_parser.rs` refuses (see `answer::codex`).
const EVENTS: &[HostEvent] = &[
    ev(
        "PreToolUse",
        "PreToolUse",
        Caps {
            allow: Gives::No,
            ask: Gives::AsDeny,
            deny: Gives::Yes,
            stop: Gives::AsDeny,
            context: true,
            rewrite: true,
        },
        true,
    ),
    ev(
        "PermissionRequest",
        "PermissionRequest",
        Caps {
            allow: Gives::Yes,
            ask: Gives::Yes,
            deny: Gives::Yes,
            stop: Gives::Yes,
            context: false,
            rewrite: false,
        },
        true,
    ),
    ev("PostToolUse", "PostToolUse", BLOCKS, true),
    ev("UserPromptSubmit", "UserPromptSubmit", BLOCKS, true),
    ev("Stop", "Stop", BLOCKS, true),
    ev(
        "SessionStart",
        "SessionStart",
        Caps {
            context: true,
            ..OBSERVES
        },
        true,
    ),
    ev(
        "PreCompact",
        "PreCompact",
        Caps {
            context: false,
            ..BLOCKS
        },
        true,
    ),
    ev("PostCompact", "PostCompact", OBSERVES, true),
    ev(
        "SubagentStart",
        "SubagentStart",
        Caps {
            context: true,
            ..OBSERVES
        },
        true,
    ),
    ev("SubagentStop", "SubagentStop", BLOCKS, true),
    ev("StopFailure", "StopFailure", Caps::NOTHING, false),
];

/// Codex sends `turn_id` on every turn-scoped event and `model` beside it;
/// Claude Code sends neither on these events.
pub fn looks_like(obj: &Map<String, Value>) -> bool {
    let Some(name) = super::str_of(obj, "hook_event_name") else {
        return false;
    };
    EVENTS.iter().any(|e| e.name == name)
        && obj.get("turn_id").is_some_and(Value::is_string)
        && (obj.get("model").is_some_and(Value::is_string)
            || obj.get("transcript_path").is_some_and(Value::is_null))
}

/// Codex's envelope to the canonical event.
pub fn normalise(mut obj: Map<String, Value>) -> Result<Recognised, Unrecognised> {
    let event = super::str_of(&obj, "hook_event_name")
        .ok_or(Unrecognised::NoEventName)?
        .to_string();
    let raw_tool = obj.get("tool_name").cloned();
    let raw_input = obj.get("tool_input").cloned();
    let mut rewritten = false;
    match raw_tool.as_ref().and_then(Value::as_str) {
        Some("apply_patch") => {
            let patch = raw_input.as_ref().and_then(patch_text).unwrap_or_default();
            let (tool, input) = patch_as_files(&patch);
            obj.insert("tool_name".into(), Value::String(tool.into()));
            obj.insert("tool_input".into(), Value::Object(input));
            rewritten = true;
        }
        Some("Bash" | "shell" | "local_shell" | "exec_command" | "shell_command") => {
            if let Some(Value::Object(input)) = obj.get_mut("tool_input") {
                if let Some(Value::Array(argv)) = input.get("command") {
                    let joined = join_argv(argv);
                    input.insert("command".into(), Value::String(joined));
                }
                if !input.contains_key("command") {
                    if let Some(cmd) = input.get("cmd").cloned() {
                        input.insert("command".into(), cmd);
                    }
                }
            }
            obj.insert("tool_name".into(), Value::String("Bash".into()));
            rewritten = raw_tool.as_ref().and_then(Value::as_str) != Some("Bash")
                || raw_input != obj.get("tool_input").cloned();
        }
        _ => {}
    }
    stamp(
        &mut obj,
        Host::Codex,
        &event,
        raw_tool,
        rewritten.then_some(raw_input).flatten(),
    );
    Ok(Recognised {
        value: Value::Object(obj),
        origin: Origin {
            host: Host::Codex,
            event,
        },
        rewritten,
    })
}

/// The patch text of an `apply_patch` input: the first string holding a patch
/// (`command`, `input`, `patch`), else the first string.
fn patch_text(input: &Value) -> Option<String> {
    match input {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => {
            let strings: Vec<&str> = ["command", "input", "patch"]
                .iter()
                .filter_map(|k| match o.get(*k) {
                    Some(Value::String(s)) => Some(s.as_str()),
                    Some(Value::Array(a)) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .find(|s| s.contains("*** Begin Patch")),
                    _ => None,
                })
                .collect();
            strings
                .iter()
                .find(|s| s.contains("*** Begin Patch"))
                .or(strings.first())
                .map(|s| s.to_string())
        }
        _ => None,
    }
}

/// The files a patch writes: `(canonical tool, tool_input)`. `Write` when it only
/// adds files, else `Edit`; `file_path` is one path or the list of all of them.
pub fn patch_as_files(patch: &str) -> (&'static str, Map<String, Value>) {
    let mut paths: Vec<String> = vec![];
    let mut deleted: Vec<String> = vec![];
    let mut only_adds = true;
    let mut added = String::new();
    // The lines an update adds and removes, as an Edit's new and old text.
    let mut new_lines = String::new();
    let mut old_lines = String::new();
    let mut in_add = false;
    let mut in_update = false;
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        let header = |p: &str| line.strip_prefix(p).map(|s| s.trim().to_string());
        if let Some(p) = header("*** Add File:") {
            paths.push(p);
            in_add = true;
            in_update = false;
            continue;
        }
        if let Some(p) = header("*** Delete File:") {
            deleted.push(p.clone());
            paths.push(p);
            only_adds = false;
            in_add = false;
            in_update = false;
            continue;
        }
        if let Some(p) = header("*** Update File:").or_else(|| header("*** Move to:")) {
            paths.push(p);
            only_adds = false;
            in_add = false;
            in_update = true;
            continue;
        }
        if line.starts_with("*** ") {
            in_add = false;
            in_update = false;
            continue;
        }
        if in_add {
            if let Some(l) = line.strip_prefix('+') {
                added.push_str(l);
                added.push('\n');
            }
        } else if in_update {
            if let Some(l) = line.strip_prefix('+') {
                new_lines.push_str(l);
                new_lines.push('\n');
            } else if let Some(l) = line.strip_prefix('-') {
                old_lines.push_str(l);
                old_lines.push('\n');
            }
        }
    }
    paths.dedup();
    let mut input = Map::new();
    let file_path = match paths.len() {
        0 => None,
        1 => Some(Value::String(paths[0].clone())),
        _ => Some(Value::Array(
            paths.iter().cloned().map(Value::String).collect(),
        )),
    };
    if let Some(fp) = file_path {
        input.insert("file_path".into(), fp);
    }
    let tool = if only_adds && !paths.is_empty() {
        input.insert("content".into(), Value::String(added));
        "Write"
    } else {
        // What the updates add is judged as an Edit's new text (a
        // `fsmonitor =` added to .git/config), what the adds write with it.
        let mut new_string = added;
        new_string.push_str(&new_lines);
        input.insert("new_string".into(), Value::String(new_string));
        input.insert("old_string".into(), Value::String(old_lines));
        "Edit"
    };
    if !deleted.is_empty() {
        input.insert(
            "deleted".into(),
            Value::Array(deleted.into_iter().map(Value::String).collect()),
        );
    }
    input.insert("patch".into(), Value::String(patch.to_string()));
    (tool, input)
}

/// An argv array as one shell command line (each word quoted where needed), so
/// `["bash", "-lc", "rm -rf /"]` is judged like `bash -lc 'rm -rf /'`.
fn join_argv(argv: &[Value]) -> String {
    argv.iter()
        .map(|w| {
            let w = w
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| w.to_string());
            if !w.is_empty()
                && w.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c))
            {
                w
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_patch_is_seen_as_every_file_it_writes() {
        let patch = "*** Begin Patch\n*** Update File: src/a.rs\n@@\n-x\n+y\n*** Add File: .env\n+KEY=1\n*** Delete File: old.txt\n*** End Patch\n";
        let (tool, input) = patch_as_files(patch);
        assert_eq!(tool, "Edit");
        assert_eq!(input["file_path"], json!(["src/a.rs", ".env", "old.txt"]));
        // What the update adds is the Edit's new text (the added file's
        // lines with it); what it deletes is listed.
        assert_eq!(input["new_string"], "KEY=1\ny\n");
        assert_eq!(input["old_string"], "x\n");
        assert_eq!(input["deleted"], json!(["old.txt"]));
        let (tool, input) =
            patch_as_files("*** Begin Patch\n*** Add File: notes/a.md\n+hello\n*** End Patch");
        assert_eq!(tool, "Write");
        assert_eq!(input["file_path"], "notes/a.md");
        assert_eq!(input["content"], "hello\n");
    }

    #[test]
    fn argv_commands_are_joined_as_the_shell_would_read_them() {
        let obj = json!({"hook_event_name":"PreToolUse","turn_id":"t","model":"m","tool_name":"Bash",
            "tool_input":{"command":["bash","-lc","rm -rf /"]}});
        let Value::Object(o) = obj else {
            unreachable!()
        };
        let r = normalise(o).unwrap();
        assert_eq!(r.value["tool_input"]["command"], "bash -lc 'rm -rf /'");
        assert_eq!(r.value["host"]["tool_input"]["command"][2], "rm -rf /");
    }
}
