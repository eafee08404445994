//! Claude Code: the canonical shape itself (reference §1). Only `tool_class` and
//! `host` are added.

use serde_json::{json, Map, Value};

use super::adapter::{Adapter, AlsoRuns, AnswerShape, Call, Events, Sniff};
use super::call::claude_shape;
use super::{stamp, Host, Origin, Recognised, TimeUnit, Unrecognised};

/// Claude Code, as data: the canonical contract itself (`init` without
/// `--host` installs it, so no event is registered here).
pub const ADAPTER: Adapter = Adapter {
    name: "claude",
    title: "Claude Code",
    aliases: &["claude-code", "claudecode"],
    timeout_unit: TimeUnit::Seconds,
    events: Events::Canonical { registered: &[] },
    normalise: |obj, _| normalise(obj),
    renames: |_| &[],
    quick_call,
    shell_unnamed: false,
    sniff: Sniff::Fallback,
    names_event: true,
    answer: AnswerShape::Claude,
    also_runs: AlsoRuns::NOTHING,
    install: None,
};

/// A tool call as Claude Code sends it to PreToolUse.
fn quick_call(call: &Call, session: &str, cwd: &str) -> Result<Value, String> {
    let (tool, input) = claude_shape(call);
    Ok(
        json!({"session_id": session, "transcript_path": "", "cwd": cwd,
           "hook_event_name": "PreToolUse", "permission_mode": "default",
           "tool_name": tool, "tool_input": input}),
    )
}

/// Claude Code's envelope is the canonical event.
pub fn normalise(mut obj: Map<String, Value>) -> Result<Recognised, Unrecognised> {
    let event = super::str_of(&obj, "hook_event_name")
        .ok_or(Unrecognised::NoEventName)?
        .to_string();
    let raw_tool = obj.get("tool_name").cloned();
    stamp(&mut obj, Host::Claude, &event, raw_tool, None);
    Ok(Recognised {
        value: Value::Object(obj),
        origin: Origin {
            host: Host::Claude,
            event,
        },
        rewritten: false,
    })
}
