//! Gemini CLI's answer (docs/hooks/reference.md): a top-level `decision`
//! (`allow` / `deny`) with `reason`, `continue` / `stopReason`, `systemMessage`,
//! and `hookSpecificOutput` with `tool_input` (merged into the call's arguments)
//! or `additionalContext`. Gemini has no `ask`: an ask is denied with a reason
//! that says so. Exit 0 always; exit 2 is only the last-resort fail-closed path.
//!
//! - BeforeTool: deny blocks the call and the reason goes to the model;
//! - AfterTool: deny replaces the tool's result with the reason;
//! - BeforeAgent: deny blocks the prompt; AfterAgent: deny makes the agent go
//!   on with the reason as its next prompt (a Stop block);
//! - SessionStart, SessionEnd, Notification, PreCompress cannot be blocked.

use serde_json::{json, Map, Value};

use super::{ask_as_deny, Answer};
use crate::contract::hosts::adapter::Gives;
use crate::contract::hosts::Host;
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::syntax::DecisionKind;

/// The answer for a Gemini CLI event.
pub fn render(event: &Event, d: &Decision) -> Answer {
    let host_event = event.origin.event.as_str();
    let mut top = Map::new();
    let mut specific = Map::new();
    let mut notes: Vec<String> = d.errors.iter().map(|e| format!("hookrules: {e}")).collect();
    let reason = d.reason.clone().unwrap_or_default();
    let caps = Host::Gemini.adapter().caps(host_event);
    let can_block = caps.deny == Gives::Yes;
    match d.kind {
        None => {}
        Some(DecisionKind::Allow) if caps.allow == Gives::Yes => {
            top.insert("decision".into(), json!("allow"));
        }
        Some(DecisionKind::Allow) => {}
        Some(k) if can_block => {
            let text = match k {
                DecisionKind::Ask => ask_as_deny(Host::Gemini, &reason),
                _ if reason.trim().is_empty() => "Blocked by hookrules.".to_string(),
                _ => reason.clone(),
            };
            top.insert("decision".into(), json!("deny"));
            top.insert("reason".into(), json!(text));
            if k == DecisionKind::Stop {
                top.insert("continue".into(), json!(false));
                top.insert("stopReason".into(), json!(text));
            }
        }
        Some(k) => notes.push(format!(
            "hookrules: `{}` has no effect on Gemini's {host_event} (it cannot be blocked); ignored",
            k.as_str()
        )),
    }
    super::carry_input_and_context(
        event,
        d,
        ("Gemini", host_event),
        (
            caps.rewrite.then_some("tool_input"),
            caps.context.then_some("additionalContext"),
        ),
        &mut specific,
        &mut notes,
    );
    if !d.messages.is_empty() {
        top.insert("systemMessage".into(), json!(d.messages.join("\n")));
    }
    if !specific.is_empty() {
        let mut wrapped = Map::new();
        wrapped.insert("hookEventName".into(), json!(host_event));
        wrapped.extend(specific);
        top.insert("hookSpecificOutput".into(), Value::Object(wrapped));
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
