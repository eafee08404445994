//! GitHub Copilot CLI (docs.github.com, "Hooks configuration"): hooks in
//! `.github/hooks/*.json`; stdin carries `timestamp` (ms), `cwd` and the event's
//! own fields but **no event name**, so the installed handler names it
//! (`hookrules run --host copilot --event preToolUse`); without that the event
//! is told from its fields. Tool calls are `toolName` (`bash`, `view`, `create`,
//! `edit`, …) with `toolArgs` as a JSON **text**.

use serde_json::{json, Map, Value};

use super::adapter::{Adapter, AlsoRuns, AnswerShape, Call, Caps, Events, Gives, HandlerShape, HostEvent, Install, Sniff, UserFile, ev};
use super::call::TEXT;
use super::{rename_keys, stamp, Host, Origin, Recognised, TimeUnit, Unrecognised};

/// Copilot CLI, as data.
pub const ADAPTER: Adapter = Adapter {
    name: "copilot",
    title: "Copilot CLI",
    aliases: &["copilot-cli", "github-copilot"],
    timeout_unit: TimeUnit::Seconds,
    events: Events::Own(EVENTS),
    normalise,
    renames,
    quick_call,
    shell_unnamed: false,
    sniff: Sniff::Shape {
        rank: 0,
        test: |obj, name| name.is_none() && looks_like(obj),
    },
    names_event: false,
    answer: AnswerShape::Copilot,
    also_runs: AlsoRuns::NOTHING,
    install: Some(Install {
        project_file: ".github/hooks/hookrules.json",
        user_file: UserFile::None(
            "reads hooks from the repository (.github/hooks/); run without --user",
        ),
        handler: HandlerShape::PerShell,
        grouped: false,
        versioned: true,
        note: "Copilot CLI reads .github/hooks/ at start; commit the file for the coding agent.",
        project_note: "",
    }),
};

/// A tool call as Copilot CLI sends it to preToolUse (no event name, no
/// session; `toolArgs` is a JSON string).
fn quick_call(call: &Call, _session: &str, cwd: &str) -> Result<Value, String> {
    let (tool, args) = match call {
        Call::Bash(c) => ("bash", json!({"command": c, "description": "quick check"})),
        Call::Read(p) => ("view", json!({"path": p})),
        Call::Write(p) => ("create", json!({"path": p, "file_text": TEXT})),
        Call::Edit(p) => (
            "edit",
            json!({"path": p, "old_str": "hello", "new_str": "hello, world"}),
        ),
    };
    Ok(
        json!({"timestamp": 1_767_225_600_000u64, "cwd": cwd, "toolName": tool,
           "toolArgs": args.to_string()}),
    )
}

/// Copilot's events (in the order `init --host copilot` registers them), their
/// canonical names, and what an answer can do on each: only `preToolUse`'s
/// output is read, and there only `deny` is acted on.
const EVENTS: &[HostEvent] = &[
    ev(
        "preToolUse",
        "PreToolUse",
        Caps {
            allow: Gives::No,
            ask: Gives::AsDeny,
            deny: Gives::Yes,
            stop: Gives::AsDeny,
            context: false,
            rewrite: false,
        },
        true,
    ),
    ev("postToolUse", "PostToolUse", Caps::NOTHING, true),
    ev(
        "userPromptSubmitted",
        "UserPromptSubmit",
        Caps::NOTHING,
        true,
    ),
    ev("sessionStart", "SessionStart", Caps::NOTHING, true),
    ev("sessionEnd", "SessionEnd", Caps::NOTHING, true),
    ev("errorOccurred", "errorOccurred", Caps::NOTHING, false),
    ev("agentStop", "Stop", Caps::NOTHING, false),
    ev("subagentStop", "SubagentStop", Caps::NOTHING, false),
];

/// Copilot's tools, their canonical names, and the argument keys to rename.
const TOOLS: super::ToolTable = &[
    ("bash", "Bash", &[]),
    ("powershell", "PowerShell", &[]),
    ("write_bash", "Bash", &[("input", "command")]),
    ("write_powershell", "PowerShell", &[("input", "command")]),
    ("view", "Read", &[("path", "file_path")]),
    ("read", "Read", &[("path", "file_path")]),
    (
        "create",
        "Write",
        &[("path", "file_path"), ("file_text", "content")],
    ),
    (
        "edit",
        "Edit",
        &[
            ("path", "file_path"),
            ("old_str", "old_string"),
            ("new_str", "new_string"),
        ],
    ),
    (
        "str_replace",
        "Edit",
        &[
            ("path", "file_path"),
            ("old_str", "old_string"),
            ("new_str", "new_string"),
        ],
    ),
    (
        "str_replace_editor",
        "Edit",
        &[
            ("path", "file_path"),
            ("old_str", "old_string"),
            ("new_str", "new_string"),
        ],
    ),
    ("glob", "Glob", &[]),
    ("grep", "Grep", &[]),
    ("web_fetch", "WebFetch", &[]),
    ("fetch", "WebFetch", &[]),
];

/// A Copilot CLI envelope: no event name, a millisecond `timestamp` and the fields
/// of one of its events.
pub fn looks_like(obj: &Map<String, Value>) -> bool {
    obj.get("timestamp").is_some_and(Value::is_number) && infer_event(obj).is_some()
}

fn infer_event(obj: &Map<String, Value>) -> Option<&'static str> {
    Some(if obj.contains_key("toolResult") {
        "postToolUse"
    } else if obj.contains_key("toolName") {
        "preToolUse"
    } else if obj.contains_key("error") {
        "errorOccurred"
    } else if obj.contains_key("prompt") {
        "userPromptSubmitted"
    } else if obj.contains_key("initialPrompt") || obj.contains_key("source") {
        "sessionStart"
    } else if obj.contains_key("reason") {
        "sessionEnd"
    } else {
        return None;
    })
}

/// Copilot's envelope to the canonical event.
pub fn normalise(
    mut obj: Map<String, Value>,
    event_hint: Option<&str>,
) -> Result<Recognised, Unrecognised> {
    let event = match event_hint {
        Some(e) => e.to_string(),
        None => match super::str_of(&obj, "hook_event_name").or_else(|| infer_event(&obj)) {
            Some(e) => e.to_string(),
            None => return Err(Unrecognised::NoEventName),
        },
    };
    let canonical = EVENTS
        .iter()
        .find(|e| e.name.eq_ignore_ascii_case(&event))
        .map(|e| e.canonical)
        .ok_or_else(|| {
            Unrecognised::NotFromHost(
                Host::Copilot,
                format!("`{event}` is not one of Copilot CLI's hook events"),
            )
        })?;
    obj.insert("hook_event_name".into(), Value::String(canonical.into()));
    let raw_tool = obj
        .get("toolName")
        .or_else(|| obj.get("tool_name"))
        .cloned();
    let raw_input = obj
        .get("toolArgs")
        .or_else(|| obj.get("tool_input"))
        .cloned();
    if let Some(name) = raw_tool.as_ref().and_then(Value::as_str) {
        let mut input = match &raw_input {
            Some(Value::String(s)) => match serde_json::from_str::<Value>(s) {
                Ok(Value::Object(o)) => o,
                // Arguments that are not a JSON object are still judged, as text.
                _ => {
                    let mut m = Map::new();
                    m.insert("args".into(), Value::String(s.clone()));
                    m
                }
            },
            Some(Value::Object(o)) => o.clone(),
            _ => Map::new(),
        };
        let canonical_tool = match TOOLS.iter().find(|(c, _, _)| *c == name) {
            Some((_, tool, renames)) => {
                rename_keys(&mut input, renames);
                (*tool).to_string()
            }
            None => name.to_string(),
        };
        obj.insert("tool_name".into(), Value::String(canonical_tool));
        obj.insert("tool_input".into(), Value::Object(input));
    }
    if let Some(r) = obj.get("toolResult").cloned() {
        obj.insert("tool_response".into(), r);
    }
    stamp(&mut obj, Host::Copilot, &event, raw_tool, raw_input);
    Ok(Recognised {
        value: Value::Object(obj),
        origin: Origin {
            host: Host::Copilot,
            event,
        },
        rewritten: true,
    })
}

/// The argument keys renamed for one of Copilot's tools (agent name, canonical name).
pub fn renames(host_tool: &str) -> &'static [(&'static str, &'static str)] {
    TOOLS
        .iter()
        .find(|(c, _, _)| *c == host_tool)
        .map(|(_, _, r)| *r)
        .unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_args_text_is_parsed_and_renamed() {
        let Value::Object(o) = json!({"timestamp":1,"cwd":"/p","toolName":"create","toolArgs":"{\"path\":\"/etc/cron.d/x\",\"file_text\":\"* * * * * root sh\"}"})
        else {
            unreachable!()
        };
        let r = normalise(o, None).unwrap();
        assert_eq!(r.origin.event, "preToolUse");
        assert_eq!(r.value["tool_name"], "Write");
        assert_eq!(r.value["tool_input"]["file_path"], "/etc/cron.d/x");
        assert_eq!(r.value["tool_class"], "write");
    }

    #[test]
    fn the_event_hint_wins_and_unknown_events_are_refused() {
        let Value::Object(o) = json!({"timestamp":1,"cwd":"/p","prompt":"hi"}) else {
            unreachable!()
        };
        assert!(normalise(o.clone(), Some("bogus")).is_err());
        let r = normalise(o, Some("userPromptSubmitted")).unwrap();
        assert_eq!(r.value["hook_event_name"], "UserPromptSubmit");
    }
}
