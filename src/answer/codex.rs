//! Codex CLI's answer: Claude Code's shape, minus what Codex refuses
//! (`codex-rs/hooks/src/engine/output_parser.rs`). Codex treats an output it
//! does not support as a failed hook and runs the tool, so every such field is
//! turned into what Codex does honour:
//! - PreToolUse `ask` is unsupported: it becomes `deny`, with a reason that says so;
//! - PreToolUse `allow` without `updatedInput` is unsupported: nothing is printed;
//! - PreToolUse `continue: false` / `stopReason` are unsupported: a stop is a deny;
//! - `deny` and `decision: "block"` need a non-empty reason;
//! - PermissionRequest `updatedInput` is unsupported: a rewrite there is dropped.

use serde_json::Value;

use super::{ask_as_deny, Answer};
use crate::contract::hosts::adapter::{Gives, Outcome};
use crate::contract::hosts::Host;
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::syntax::DecisionKind;

/// The answer for a Codex CLI event.
pub fn render(event: &Event, d: &Decision) -> Answer {
    let mut d = d.clone();
    let mut notes = vec![];
    let caps = Host::Codex.adapter().caps(&event.origin.event);
    match d.kind.map(|k| (k, caps.gives(Outcome::from(k)))) {
        Some((DecisionKind::Ask, Gives::AsDeny)) => {
            d.kind = Some(DecisionKind::Deny);
            d.reason = Some(ask_as_deny(Host::Codex, d.reason.as_deref().unwrap_or("")));
        }
        Some((DecisionKind::Stop, Gives::AsDeny)) => d.kind = Some(DecisionKind::Deny),
        Some((DecisionKind::Allow, Gives::No)) if d.rewrite.is_empty() && caps.rewrite => {
            d.kind = None;
            notes.push("hookrules: Codex has no hook `allow` (only a rewrite); left to Codex's own approval".to_string());
        }
        _ => {}
    }
    if !caps.rewrite && event.name == "PermissionRequest" && !d.rewrite.is_empty() {
        d.rewrite.clear();
        notes.push("hookrules: Codex ignores a PermissionRequest rewrite; dropped".to_string());
    }
    if matches!(
        d.kind,
        Some(DecisionKind::Deny | DecisionKind::Block | DecisionKind::Stop)
    ) && d.reason.as_deref().unwrap_or("").trim().is_empty()
    {
        d.reason = Some("Blocked by hookrules.".to_string());
    }
    let mut a = super::claude::render(event, &d);
    if event.name == "PreToolUse" {
        if let Ok(Value::Object(mut top)) = serde_json::from_str::<Value>(&a.stdout) {
            top.remove("continue");
            top.remove("stopReason");
            a.stdout = if top.is_empty() {
                String::new()
            } else {
                Value::Object(top).to_string()
            };
        }
    }
    if !notes.is_empty() {
        notes.insert(0, std::mem::take(&mut a.stderr));
        a.stderr = notes
            .into_iter()
            .filter(|n| !n.is_empty())
            .collect::<Vec<_>>()
            .join("\n");
    }
    a
}
