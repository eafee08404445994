//! Cursor (cursor.com/docs/agent/hooks): camelCase event names, one event per
//! action family (`beforeShellExecution` with `command`, `beforeReadFile` with
//! `file_path`, `beforeMCPExecution` with `tool_name` / `tool_input`), a generic
//! `preToolUse` whose tools are named `Shell`, `Read`, `Write`, …, and
//! `conversation_id` / `workspace_roots` instead of `session_id` / `cwd`.

use serde_json::{json, Map, Value};

use super::adapter::{Adapter, AlsoRuns, AnswerShape, Call, Caps, Events, Gives, HandlerShape, HostEvent, Install, Sniff, UserFile, ev};
use super::call::TEXT;
use super::{rename_keys, stamp, Host, Origin, Recognised, TimeUnit, Unrecognised};

/// Cursor, as data.
pub const ADAPTER: Adapter = Adapter {
    name: "cursor",
    title: "Cursor",
    aliases: &[],
    timeout_unit: TimeUnit::Seconds,
    events: Events::Own(EVENTS),
    normalise: |obj, _| normalise(obj),
    renames: |_| INPUT_KEYS,
    quick_call,
    shell_unnamed: true,
    sniff: Sniff::Shape {
        rank: 1,
        test: |_, name| name.is_some_and(is_event),
    },
    names_event: true,
    answer: AnswerShape::Cursor,
    also_runs: AlsoRuns::NOTHING,
    install: Some(Install {
        project_file: ".cursor/hooks.json",
        user_file: UserFile::Home(".cursor/hooks.json"),
        handler: HandlerShape::Bare,
        grouped: false,
        versioned: true,
        note: "Restart Cursor; the Hooks tab of its settings shows what it loaded.",
        project_note: "",
    }),
};

/// A tool call as Cursor sends it: `beforeShellExecution`, `beforeReadFile`,
/// and `preToolUse` for its edit tools.
fn quick_call(call: &Call, session: &str, cwd: &str) -> Result<Value, String> {
    Ok(match call {
        Call::Bash(c) => {
            json!({"hook_event_name": "beforeShellExecution", "command": c, "cwd": cwd,
                   "conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]})
        }
        Call::Read(p) => {
            json!({"hook_event_name": "beforeReadFile", "file_path": p, "content": "",
                   "conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]})
        }
        Call::Write(p) | Call::Edit(p) => {
            let tool = if matches!(call, Call::Write(_)) {
                "Write"
            } else {
                "StrReplace"
            };
            json!({"hook_event_name": "preToolUse", "tool_name": tool,
                   "tool_input": {"path": p, "contents": TEXT},
                   "conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]})
        }
    })
}

/// A permission event: `permission` allow / ask / deny with `user_message` and
/// `agent_message` (a stop is a deny).
const PERMISSION: Caps = Caps {
    allow: Gives::Yes,
    ask: Gives::Yes,
    deny: Gives::Yes,
    stop: Gives::AsDeny,
    context: false,
    rewrite: false,
};

/// Only `additional_context`.
const CONTEXT: Caps = Caps {
    context: true,
    ..Caps::NOTHING
};

/// `stop` / `subagentStop`: a block is a `followup_message` that sends the agent on.
const FOLLOW_UP: Caps = Caps {
    deny: Gives::Yes,
    ..Caps::NOTHING
};

/// Cursor's events (in the order `init --host cursor` registers them), their
/// canonical names, and what an answer can do on each (cursor.com/docs/agent/hooks).
const EVENTS: &[HostEvent] = &[
    ev(
        "preToolUse",
        "PreToolUse",
        Caps {
            rewrite: true,
            ..PERMISSION
        },
        true,
    ),
    ev("beforeShellExecution", "PreToolUse", PERMISSION, true),
    ev("beforeMCPExecution", "PreToolUse", PERMISSION, true),
    ev(
        "beforeReadFile",
        "PreToolUse",
        Caps {
            ask: Gives::AsDeny,
            ..PERMISSION
        },
        true,
    ),
    ev("postToolUse", "PostToolUse", CONTEXT, true),
    ev("afterFileEdit", "PostToolUse", Caps::NOTHING, true),
    ev(
        "beforeSubmitPrompt",
        "UserPromptSubmit",
        Caps {
            allow: Gives::No,
            ask: Gives::AsDeny,
            deny: Gives::Yes,
            stop: Gives::Yes,
            context: false,
            rewrite: false,
        },
        true,
    ),
    ev("stop", "Stop", FOLLOW_UP, true),
    ev("sessionStart", "SessionStart", CONTEXT, true),
    ev("afterShellExecution", "PostToolUse", Caps::NOTHING, false),
    ev("afterMCPExecution", "PostToolUse", Caps::NOTHING, false),
    ev(
        "postToolUseFailure",
        "PostToolUseFailure",
        Caps::NOTHING,
        false,
    ),
    ev("sessionEnd", "SessionEnd", Caps::NOTHING, false),
    ev("subagentStart", "SubagentStart", CONTEXT, false),
    ev("subagentStop", "SubagentStop", FOLLOW_UP, false),
    ev("preCompact", "PreCompact", Caps::NOTHING, false),
    ev(
        "afterAgentResponse",
        "afterAgentResponse",
        Caps::NOTHING,
        false,
    ),
    ev(
        "afterAgentThought",
        "afterAgentThought",
        Caps::NOTHING,
        false,
    ),
    ev(
        "beforeTabFileRead",
        "beforeTabFileRead",
        Caps::NOTHING,
        false,
    ),
    ev("afterTabFileEdit", "afterTabFileEdit", Caps::NOTHING, false),
];

/// Cursor's `preToolUse` tool names and their canonical names.
const TOOLS: &[(&str, &str)] = &[
    ("Shell", "Bash"),
    ("Terminal", "Bash"),
    ("Read", "Read"),
    ("Write", "Write"),
    ("Edit", "Edit"),
    ("StrReplace", "Edit"),
    ("MultiEdit", "Edit"),
    ("Delete", "Edit"),
    ("Grep", "Grep"),
    ("Glob", "Glob"),
    ("LS", "LS"),
    ("WebFetch", "WebFetch"),
    ("WebSearch", "WebSearch"),
];

const INPUT_KEYS: &[(&str, &str)] = &[
    ("path", "file_path"),
    ("target_file", "file_path"),
    ("filePath", "file_path"),
    ("contents", "content"),
];

/// Is this one of Cursor's event names?
pub fn is_event(name: &str) -> bool {
    EVENTS.iter().any(|e| e.name == name)
}

/// Cursor's envelope to the canonical event.
pub fn normalise(mut obj: Map<String, Value>) -> Result<Recognised, Unrecognised> {
    let event = super::str_of(&obj, "hook_event_name")
        .ok_or(Unrecognised::NoEventName)?
        .to_string();
    let Some(canonical) = EVENTS.iter().find(|e| e.name == event).map(|e| e.canonical) else {
        return Err(Unrecognised::NotFromHost(
            Host::Cursor,
            format!("`{event}` is not one of Cursor's hook events"),
        ));
    };
    let raw_tool = obj.get("tool_name").cloned();
    let raw_input = obj.get("tool_input").cloned();
    obj.insert("hook_event_name".into(), Value::String(canonical.into()));
    if !obj.contains_key("cwd") {
        if let Some(root) = obj
            .get("workspace_roots")
            .and_then(|r| r.get(0))
            .and_then(Value::as_str)
        {
            obj.insert("cwd".into(), Value::String(root.to_string()));
        }
    }
    if let Some(c) = obj.get("conversation_id").cloned() {
        obj.entry("session_id").or_insert(c);
    }
    let mut input = Map::new();
    let tool: Option<String> = match event.as_str() {
        "beforeShellExecution" | "afterShellExecution" => {
            if let Some(c) = obj.get("command").cloned() {
                input.insert("command".into(), c);
            }
            if let Some(o) = obj.get("output").cloned() {
                obj.insert("tool_response".into(), serde_json::json!({ "stdout": o }));
            }
            Some("Bash".into())
        }
        "beforeReadFile" => {
            if let Some(p) = obj.get("file_path").cloned() {
                input.insert("file_path".into(), p);
            }
            Some("Read".into())
        }
        "afterFileEdit" => {
            if let Some(p) = obj.get("file_path").cloned() {
                input.insert("file_path".into(), p);
            }
            if let Some(e) = obj.get("edits").cloned() {
                input.insert("edits".into(), e);
            }
            Some("Edit".into())
        }
        "beforeMCPExecution" | "afterMCPExecution" => {
            let name = raw_tool.as_ref().and_then(Value::as_str).unwrap_or("tool");
            // The input may arrive as a JSON text.
            match &raw_input {
                Some(Value::String(s)) => {
                    if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s) {
                        input = o;
                    }
                }
                Some(Value::Object(o)) => input = o.clone(),
                _ => {}
            }
            Some(if name.starts_with("mcp__") {
                name.to_string()
            } else {
                format!("mcp__cursor__{name}")
            })
        }
        "preToolUse" | "postToolUse" | "postToolUseFailure" => {
            if let Some(Value::Object(o)) = &raw_input {
                input = o.clone();
                rename_keys(&mut input, INPUT_KEYS);
            }
            raw_tool.as_ref().and_then(Value::as_str).map(|t| {
                TOOLS
                    .iter()
                    .find(|(c, _)| *c == t)
                    .map(|(_, k)| (*k).to_string())
                    .or_else(|| t.strip_prefix("MCP:").map(|m| format!("mcp__cursor__{m}")))
                    .unwrap_or_else(|| t.to_string())
            })
        }
        "stop" => {
            let looped = obj
                .get("loop_count")
                .and_then(Value::as_u64)
                .is_some_and(|n| n > 0);
            obj.entry("stop_hook_active").or_insert(Value::Bool(looped));
            None
        }
        _ => None,
    };
    if let Some(t) = tool {
        obj.insert("tool_name".into(), Value::String(t));
        obj.insert("tool_input".into(), Value::Object(input));
    }
    stamp(&mut obj, Host::Cursor, &event, raw_tool, raw_input);
    Ok(Recognised {
        value: Value::Object(obj),
        origin: Origin {
            host: Host::Cursor,
            event,
        },
        rewritten: true,
    })
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
    fn read_and_generic_tool_events() {
        let v = norm(
            json!({"hook_event_name":"beforeReadFile","file_path":"/p/.env","content":"K=1","workspace_roots":["/p"],"conversation_id":"c"}),
        );
        assert_eq!(
            (
                v["tool_name"].as_str(),
                v["tool_input"]["file_path"].as_str()
            ),
            (Some("Read"), Some("/p/.env"))
        );
        assert_eq!(v["cwd"], "/p");
        assert_eq!(v["session_id"], "c");
        let v = norm(
            json!({"hook_event_name":"preToolUse","tool_name":"Write","tool_input":{"path":"/etc/hosts","contents":"x"}}),
        );
        assert_eq!(v["tool_name"], "Write");
        assert_eq!(v["tool_input"]["file_path"], "/etc/hosts");
        let v = norm(
            json!({"hook_event_name":"beforeMCPExecution","tool_name":"query","tool_input":"{\"sql\":\"drop table x\"}"}),
        );
        assert_eq!(v["tool_name"], "mcp__cursor__query");
        assert_eq!(v["tool_input"]["sql"], "drop table x");
        assert_eq!(v["tool_class"], "mcp");
    }
}
