//! Claude Code's answer (reference §2.4): one JSON object shaped for the event.
//! VS Code reads the same shape; Codex CLI reads a stricter subset of it
//! (`codex.rs`).

use serde_json::{json, Map, Value};

use super::{updated_input, Answer};
use crate::contract::events::{self, Blocking};
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::syntax::DecisionKind;

/// The answer for an event in Claude Code's shape.
pub fn render(event: &Event, d: &Decision) -> Answer {
    let spec = &event.spec;
    let mut top = Map::new();
    let mut specific = Map::new();
    let mut notes: Vec<String> = d.errors.iter().map(|e| format!("hookrules: {e}")).collect();
    let reason = d.reason.clone().unwrap_or_default();
    let runs = matches!(d.kind, None | Some(DecisionKind::Allow));

    match d.kind {
        None => {}
        Some(DecisionKind::Stop) => {
            top.insert("continue".into(), json!(false));
            top.insert("stopReason".into(), json!(reason));
            // continue:false alone lets a pending tool run (reference §2.3).
            if spec.blocking == Blocking::Permission {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
        }
        Some(k @ (DecisionKind::Deny | DecisionKind::Block)) => match spec.blocking {
            Blocking::Permission | Blocking::ModelSwitch => {
                specific.insert("permissionDecision".into(), json!("deny"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            Blocking::PermissionRequest => {
                specific.insert(
                    "decision".into(),
                    json!({"behavior": "deny", "message": reason}),
                );
            }
            Blocking::Elicitation => {
                specific.insert("action".into(), json!("decline"));
            }
            Blocking::TopLevel => {
                top.insert("decision".into(), json!("block"));
                top.insert("reason".into(), json!(reason));
            }
            Blocking::None => notes.push(format!(
                "hookrules: `{}` has no effect on {} (it cannot be blocked); ignored",
                k.as_str(),
                event.name
            )),
        },
        Some(DecisionKind::Ask) => match spec.blocking {
            Blocking::Permission | Blocking::ModelSwitch => {
                specific.insert("permissionDecision".into(), json!("ask"));
                specific.insert("permissionDecisionReason".into(), json!(reason));
            }
            // Not deciding lets the client show its own permission prompt.
            Blocking::PermissionRequest => {}
            _ => notes.push(format!(
                "hookrules: `ask` has no effect on {}; ignored",
                event.name
            )),
        },
        Some(DecisionKind::Allow) => match spec.blocking {
            Blocking::Permission | Blocking::ModelSwitch => {
                specific.insert("permissionDecision".into(), json!("allow"));
                if !reason.is_empty() {
                    specific.insert("permissionDecisionReason".into(), json!(reason));
                }
            }
            Blocking::PermissionRequest => {
                specific.insert("decision".into(), json!({"behavior": "allow"}));
            }
            Blocking::Elicitation => {
                specific.insert("action".into(), json!("accept"));
            }
            _ => {}
        },
    }

    if runs && !d.rewrite.is_empty() {
        match (spec.blocking, event.value.get("tool_input")) {
            (Blocking::Permission | Blocking::PermissionRequest, Some(Value::Object(_))) => {
                // updatedInput replaces tool_input wholesale: always send the full object.
                let full = updated_input(event, d);
                if spec.blocking == Blocking::Permission {
                    specific.insert("updatedInput".into(), full);
                } else if let Some(Value::Object(dec)) = specific.get_mut("decision") {
                    dec.insert("updatedInput".into(), full);
                } else {
                    notes.push("hookrules: a PermissionRequest rewrite needs `decision = \"allow\"`; ignored".into());
                }
            }
            _ => notes.push(format!(
                "hookrules: `rewrite` has no effect on {}; ignored",
                event.name
            )),
        }
    }

    if let Some(context) = super::context_text(d) {
        if spec.context {
            specific.insert("additionalContext".into(), json!(context));
        } else {
            notes.push(format!(
                "hookrules: {} cannot carry context to the model; dropped",
                event.name
            ));
        }
    }
    if !d.messages.is_empty() {
        top.insert("systemMessage".into(), json!(d.messages.join("\n")));
    }
    if !specific.is_empty() {
        let mut wrapped = Map::new();
        wrapped.insert("hookEventName".into(), json!(event.name));
        wrapped.extend(specific);
        top.insert("hookSpecificOutput".into(), Value::Object(wrapped));
    }
    if d.kind.is_some() && events::OUTPUT_IGNORED.contains(&event.name.as_str()) {
        notes.push(format!(
            "hookrules: the client ignores all output of {}; the decision has no effect",
            event.name
        ));
    }
    if !event.known {
        notes.push(format!(
            "hookrules: unknown event `{}`: answered with top-level fields only",
            event.name
        ));
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
