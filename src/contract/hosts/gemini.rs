//! Google Gemini CLI (docs/hooks/reference.md, docs/tools/*): `BeforeTool`,
//! `AfterTool`, `BeforeAgent`, `AfterAgent`, … with snake_case tool names
//! (`run_shell_command`, `read_file`, `write_file`, `replace`, …) and a
//! `timestamp` on every event. Events without a Claude Code counterpart
//! (`BeforeModel`, `AfterModel`, `BeforeToolSelection`) keep their own name;
//! a policy reaches them with `events = ["+BeforeModel"]`.

use serde_json::{json, Map, Value};

use super::adapter::{Adapter, AlsoRuns, AnswerShape, Call, Caps, Events, Gives, HandlerShape, HostEvent, Install, Sniff, UserFile, ev};
use super::call::TEXT;
use super::{rename_keys, stamp, Host, Origin, Recognised, TimeUnit, Unrecognised};

/// Gemini CLI, as data.
pub const ADAPTER: Adapter = Adapter {
    name: "gemini",
    title: "Gemini CLI",
    aliases: &["gemini-cli"],
    timeout_unit: TimeUnit::Milliseconds,
    events: Events::Own(EVENTS),
    normalise: |obj, _| normalise(obj),
    renames,
    quick_call,
    shell_unnamed: true,
    sniff: Sniff::Shape {
        rank: 0,
        test: |obj, name| name.is_some_and(is_event) && looks_like(obj),
    },
    names_event: true,
    answer: AnswerShape::Gemini,
    also_runs: AlsoRuns::NOTHING,
    install: Some(Install {
        project_file: ".gemini/settings.json",
        user_file: UserFile::Home(".gemini/settings.json"),
        handler: HandlerShape::Named,
        grouped: true,
        versioned: false,
        note: "Restart Gemini CLI; `/hooks` lists what it loaded.",
        project_note: "",
    }),
};

/// A tool call as Gemini CLI sends it to BeforeTool.
fn quick_call(call: &Call, session: &str, cwd: &str) -> Result<Value, String> {
    let (tool, input) = match call {
        Call::Bash(c) => ("run_shell_command", json!({"command": c})),
        Call::Read(p) => ("read_file", json!({"file_path": p})),
        Call::Write(p) => ("write_file", json!({"file_path": p, "content": TEXT})),
        Call::Edit(p) => (
            "replace",
            json!({"file_path": p, "old_string": "hello", "new_string": "hello, world"}),
        ),
    };
    Ok(
        json!({"session_id": session, "transcript_path": "", "cwd": cwd,
           "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00.000Z",
           "tool_name": tool, "tool_input": input}),
    )
}

/// A blocking event: a top-level `decision: "deny"` with `reason` (an `ask` is
/// denied: Gemini has no ask), `continue: false` for a stop.
const BLOCKS: Caps = Caps {
    allow: Gives::No,
    ask: Gives::AsDeny,
    deny: Gives::Yes,
    stop: Gives::Yes,
    context: false,
    rewrite: false,
};

/// Gemini's events (in the order `init --host gemini` registers them) and their
/// canonical names: what an answer can do on each (docs/hooks/reference.md).
const EVENTS: &[HostEvent] = &[
    ev(
        "BeforeTool",
        "PreToolUse",
        Caps {
            allow: Gives::Yes,
            rewrite: true,
            ..BLOCKS
        },
        true,
    ),
    ev(
        "AfterTool",
        "PostToolUse",
        Caps {
            context: true,
            ..BLOCKS
        },
        true,
    ),
    ev(
        "BeforeAgent",
        "UserPromptSubmit",
        Caps {
            context: true,
            ..BLOCKS
        },
        true,
    ),
    ev("AfterAgent", "Stop", BLOCKS, true),
    ev(
        "SessionStart",
        "SessionStart",
        Caps {
            context: true,
            ..Caps::NOTHING
        },
        true,
    ),
    ev("SessionEnd", "SessionEnd", Caps::NOTHING, true),
    ev("PreCompress", "PreCompact", Caps::NOTHING, true),
    ev("Notification", "Notification", Caps::NOTHING, true),
    ev("BeforeModel", "BeforeModel", BLOCKS, false),
    ev("AfterModel", "AfterModel", BLOCKS, false),
    ev(
        "BeforeToolSelection",
        "BeforeToolSelection",
        Caps::NOTHING,
        false,
    ),
];

/// Gemini's tools, their canonical names, and the input keys to rename.
const TOOLS: super::ToolTable = &[
    ("run_shell_command", "Bash", &[]),
    (
        "read_file",
        "Read",
        &[("absolute_path", "file_path"), ("path", "file_path")],
    ),
    ("read_many_files", "Read", &[("paths", "file_path")]),
    ("write_file", "Write", &[("absolute_path", "file_path")]),
    ("replace", "Edit", &[("absolute_path", "file_path")]),
    ("edit", "Edit", &[("absolute_path", "file_path")]),
    ("list_directory", "LS", &[("dir_path", "path")]),
    ("glob", "Glob", &[("dir_path", "path")]),
    ("search_file_content", "Grep", &[("dir_path", "path")]),
    ("grep_search", "Grep", &[("dir_path", "path")]),
    ("web_fetch", "WebFetch", &[]),
    ("google_web_search", "WebSearch", &[]),
];

/// Is this one of Gemini's event names?
pub fn is_event(name: &str) -> bool {
    EVENTS.iter().any(|e| e.name == name)
}

/// Gemini-only event names, or a shared name with Gemini's ISO `timestamp` and
/// snake_case `session_id` (VS Code sends `sessionId`; Claude Code no timestamp).
pub fn looks_like(obj: &Map<String, Value>) -> bool {
    let Some(name) = super::str_of(obj, "hook_event_name") else {
        return false;
    };
    let own = EVENTS
        .iter()
        .any(|e| e.name == name && e.name != e.canonical);
    own || (obj.get("timestamp").is_some_and(Value::is_string)
        && obj.contains_key("session_id")
        && !obj.contains_key("sessionId"))
}

/// Gemini's envelope to the canonical event.
pub fn normalise(mut obj: Map<String, Value>) -> Result<Recognised, Unrecognised> {
    let event = super::str_of(&obj, "hook_event_name")
        .ok_or(Unrecognised::NoEventName)?
        .to_string();
    let canonical = match EVENTS.iter().find(|e| e.name == event) {
        Some(e) => e.canonical.to_string(),
        // Claude Code's name for an event Gemini names otherwise (`PreToolUse`
        // for `BeforeTool`): this handler receives another agent's events (a
        // handler line pasted into the wrong host's file). Kept, it would be an
        // event Gemini cannot block, so every decision would be ignored.
        None if crate::contract::events::spec(&event).is_some() => {
            return Err(Unrecognised::NotFromHost(
                Host::Gemini,
                format!(
                    "`{event}` is Claude Code's name for an event; Gemini CLI sends its own \
                     (`BeforeTool`, `AfterTool`, `BeforeAgent`, `AfterAgent`, …), so this \
                     handler receives another agent's events"
                ),
            ));
        }
        // A newer Gemini event: kept under its own name.
        None => event.clone(),
    };
    obj.insert("hook_event_name".into(), Value::String(canonical.clone()));
    let raw_tool = obj.get("tool_name").cloned();
    let raw_input = obj.get("tool_input").cloned();
    if let Some(name) = raw_tool.as_ref().and_then(Value::as_str) {
        if let Some((_, tool, renames)) = TOOLS.iter().find(|(g, _, _)| *g == name) {
            obj.insert("tool_name".into(), Value::String((*tool).into()));
            if let Some(Value::Object(input)) = obj.get_mut("tool_input") {
                rename_keys(input, renames);
            }
            // run_shell_command runs in `directory` (relative to the project).
            if *tool == "Bash" {
                let dir = obj
                    .get("tool_input")
                    .and_then(|i| i.get("directory").or_else(|| i.get("dir_path")))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if let Some(dir) = dir.filter(|d| !d.is_empty()) {
                    let base = super::str_of(&obj, "cwd").unwrap_or("").to_string();
                    let joined = if dir.starts_with('/') || base.is_empty() {
                        dir
                    } else {
                        format!("{}/{dir}", base.trim_end_matches('/'))
                    };
                    obj.insert("cwd".into(), Value::String(joined));
                }
            }
        }
    }
    match canonical.as_str() {
        "Stop" => {
            if let Some(r) = obj.get("prompt_response").cloned() {
                obj.entry("last_assistant_message").or_insert(r);
            }
            obj.entry("stop_hook_active").or_insert(Value::Bool(false));
        }
        "SessionStart" => {
            if let Some(t) = obj.get("trigger").cloned() {
                obj.entry("source").or_insert(t);
            }
        }
        _ => {}
    }
    stamp(&mut obj, Host::Gemini, &event, raw_tool, raw_input);
    Ok(Recognised {
        value: Value::Object(obj),
        origin: Origin {
            host: Host::Gemini,
            event,
        },
        rewritten: true,
    })
}

/// The input keys renamed for one of Gemini's tools (agent name, canonical name).
pub fn renames(host_tool: &str) -> &'static [(&'static str, &'static str)] {
    TOOLS
        .iter()
        .find(|(g, _, _)| *g == host_tool)
        .map(|(_, _, r)| *r)
        .unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn norm(v: Value) -> Value {
        let Value::Object(o) = v else { unreachable!() };
        normalise(o).unwrap().value
    }

    #[test]
    fn file_tools_carry_file_path() {
        let v = norm(
            json!({"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"absolute_path":"/p/.env"}}),
        );
        assert_eq!(v["tool_name"], "Read");
        assert_eq!(v["tool_input"]["file_path"], "/p/.env");
        assert_eq!(v["tool_class"], "read");
        assert_eq!(v["host"]["tool_name"], "read_file");
        let v = norm(
            json!({"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"/etc/passwd","content":"x"}}),
        );
        assert_eq!(
            (v["tool_name"].as_str(), v["tool_class"].as_str()),
            (Some("Write"), Some("write"))
        );
        let v = norm(
            json!({"hook_event_name":"BeforeTool","tool_name":"read_many_files","tool_input":{"paths":["a",".env"]}}),
        );
        assert_eq!(v["tool_input"]["file_path"], json!(["a", ".env"]));
    }

    #[test]
    fn a_shell_directory_becomes_the_cwd() {
        let v = norm(
            json!({"hook_event_name":"BeforeTool","cwd":"/p","tool_name":"run_shell_command","tool_input":{"command":"rm -rf .","directory":"sub"}}),
        );
        assert_eq!(v["cwd"], "/p/sub");
    }

    #[test]
    fn after_agent_is_a_stop_with_the_answer() {
        let v = norm(
            json!({"hook_event_name":"AfterAgent","prompt":"p","prompt_response":"done","stop_hook_active":true}),
        );
        assert_eq!(v["hook_event_name"], "Stop");
        assert_eq!(v["last_assistant_message"], "done");
        assert_eq!(v["stop_hook_active"], true);
    }

    #[test]
    fn another_agents_event_names_are_refused_newer_gemini_names_kept() {
        let Value::Object(claude) = json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}) else {
            unreachable!()
        };
        let err = normalise(claude).unwrap_err().to_string();
        assert!(err.contains("`PreToolUse` is Claude Code's name"), "{err}");
        let v = norm(json!({"hook_event_name":"AfterSomethingNew","session_id":"s"}));
        assert_eq!(v["hook_event_name"], "AfterSomethingNew");
    }
}
