//! Copilot CLI's answer (docs.github.com, "Hooks configuration"): only
//! `preToolUse` output is read, as top-level `permissionDecision` with
//! `permissionDecisionReason`, and only `deny` is acted on: an `ask` is denied
//! with a reason that says so, an `allow` prints nothing. The other events'
//! output is ignored, so their decisions and context are noted on stderr.

use serde_json::{json, Map, Value};

use super::{ask_as_deny, Answer};
use crate::contract::hosts::adapter::Gives;
use crate::contract::hosts::Host;
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::syntax::DecisionKind;

/// The answer for a Copilot CLI event.
pub fn render(event: &Event, d: &Decision) -> Answer {
    let host_event = event.origin.event.as_str();
    let mut top = Map::new();
    let mut notes: Vec<String> = d.errors.iter().map(|e| format!("hookrules: {e}")).collect();
    let reason = d.reason.clone().unwrap_or_default();
    // The one event whose output Copilot reads (a refusal there).
    let pre = Host::Copilot.adapter().caps(host_event).deny == Gives::Yes;
    match d.kind {
        None | Some(DecisionKind::Allow) => {}
        Some(k) if pre => {
            let text = match k {
                DecisionKind::Ask => ask_as_deny(Host::Copilot, &reason),
                _ if reason.trim().is_empty() => "Blocked by hookrules.".to_string(),
                _ => reason.clone(),
            };
            top.insert("permissionDecision".into(), json!("deny"));
            top.insert("permissionDecisionReason".into(), json!(text));
        }
        Some(k) => notes.push(format!(
            "hookrules: `{}` has no effect on Copilot CLI's {host_event} (its output is ignored); ignored",
            k.as_str()
        )),
    }
    if matches!(d.kind, None | Some(DecisionKind::Allow)) && !d.rewrite.is_empty() {
        notes.push("hookrules: Copilot CLI hooks cannot rewrite a call; `rewrite` ignored".into());
    }
    if super::context_text(d).is_some() {
        notes.push(format!(
            "hookrules: Copilot CLI's {host_event} cannot carry context to the model; dropped"
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
