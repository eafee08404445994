//! Cursor's answer (cursor.com/docs/agent/hooks): permission events
//! (`beforeShellExecution`, `beforeMCPExecution`, `beforeReadFile`, `preToolUse`)
//! take `permission` (`allow` / `deny` / `ask`) with `user_message` and
//! `agent_message`; `beforeReadFile` takes no `ask` (denied instead);
//! `beforeSubmitPrompt` takes `continue: false` with `user_message`; `stop`
//! takes a `followup_message` that sends the agent on; `sessionStart` and
//! `postToolUse` take `additional_context`. The rest only observe.

use serde_json::{json, Map, Value};

use super::{ask_as_deny, Answer};
use crate::contract::hosts::adapter::Gives;
use crate::contract::hosts::Host;
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::syntax::DecisionKind;

/// The answer for a Cursor event.
pub fn render(event: &Event, d: &Decision) -> Answer {
    let host_event = event.origin.event.as_str();
    let mut top = Map::new();
    let mut notes: Vec<String> = d.errors.iter().map(|e| format!("hookrules: {e}")).collect();
    let reason = d.reason.clone().unwrap_or_default();
    let reason_or = |fallback: &str| {
        if reason.trim().is_empty() {
            fallback.to_string()
        } else {
            reason.clone()
        }
    };
    let caps = Host::Cursor.adapter().caps(host_event);
    // An event that takes `permission`: the one whose allow is an answer.
    let permission_event = caps.allow == Gives::Yes;
    match (d.kind, host_event) {
        (None, _) => {}
        (Some(k), _) if permission_event => {
            let (permission, text) = match k {
                DecisionKind::Allow => ("allow", reason.clone()),
                DecisionKind::Ask if caps.ask == Gives::Yes => {
                    ("ask", reason_or("hookrules asks before this call."))
                }
                DecisionKind::Ask => ("deny", ask_as_deny(Host::Cursor, &reason)),
                _ => ("deny", reason_or("Blocked by hookrules.")),
            };
            top.insert("permission".into(), json!(permission));
            if !text.is_empty() {
                top.insert("user_message".into(), json!(text));
                top.insert("agent_message".into(), json!(text));
            }
        }
        (Some(DecisionKind::Allow), _) => {}
        (Some(_), "beforeSubmitPrompt") => {
            top.insert("continue".into(), json!(false));
            top.insert(
                "user_message".into(),
                json!(reason_or("Blocked by hookrules.")),
            );
        }
        (Some(DecisionKind::Block | DecisionKind::Deny), "stop" | "subagentStop") => {
            top.insert("followup_message".into(), json!(reason_or("Keep going.")));
        }
        (Some(k), _) => notes.push(format!(
            "hookrules: `{}` has no effect on Cursor's {host_event}; ignored",
            k.as_str()
        )),
    }
    super::carry_input_and_context(
        event,
        d,
        ("Cursor", host_event),
        (
            caps.rewrite.then_some("updated_input"),
            caps.context.then_some("additional_context"),
        ),
        &mut top,
        &mut notes,
    );
    if !d.messages.is_empty() && !top.contains_key("user_message") && permission_event {
        top.insert("user_message".into(), json!(d.messages.join("\n")));
    }
    Answer {
        stdout: if top.is_empty() {
            String::new()
        } else {
            Value::Object(top).to_string()
        },
        stderr: notes.join("\n"),
        exit: 0,
    }
}
