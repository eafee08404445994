//! Stage 6: the answer the client reads. One JSON object on stdout shaped for the
//! event (reference §2.4), or nothing; exit 0. Exit 2 with stderr is used only when
//! an event that can block must fail closed and no JSON can be built for it.

use serde_json::{json, Map, Value};

use crate::contract::events::{self, Blocking};
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::syntax::DecisionKind;

/// What to print and how to exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Answer {
    /// stdout (one JSON object, or empty).
    pub stdout: String,
    /// stderr (notes for the user's debug log; the reason on exit 2).
    pub stderr: String,
    /// Exit status.
    pub exit: i32,
}

/// Build the output for an event from a decision.
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
            (Blocking::Permission | Blocking::PermissionRequest, Some(Value::Object(input))) => {
                // updatedInput replaces tool_input wholesale: always send the full object.
                let mut full = input.clone();
                for (k, v) in &d.rewrite {
                    set_path(&mut full, k, Value::String(v.clone()));
                }
                let full = Value::Object(full);
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

    let context: Vec<&str> = d
        .context
        .iter()
        .map(|s| s.as_str())
        .filter(|s| !s.trim().is_empty())
        .collect();
    if !context.is_empty() {
        if spec.context {
            specific.insert("additionalContext".into(), json!(context.join("\n\n")));
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

/// Set a dotted path inside a JSON object, creating objects on the way.
fn set_path(obj: &mut Map<String, Value>, path: &str, v: Value) {
    let mut parts = path.split('.').peekable();
    let mut cur = obj;
    while let Some(p) = parts.next() {
        if parts.peek().is_none() {
            cur.insert(p.to_string(), v);
            return;
        }
        let next = cur
            .entry(p.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !next.is_object() {
            *next = Value::Object(Map::new());
        }
        cur = next.as_object_mut().expect("made an object above");
    }
}

/// The fail-closed answer when evaluation could not happen at all (bad stdin, a
/// policy that does not load and names no event). With a known event that can be
/// blocked, a proper JSON block; with no usable event, exit 2 and the reason on
/// stderr (which blocks where blocking is possible, reference §2.2).
pub fn fail_closed(event_name: Option<&str>, message: &str) -> Answer {
    let reason = format!("hookrules (fail-closed): {message}");
    if let Some(spec) = event_name.and_then(events::spec) {
        if spec.blocking == Blocking::None {
            return Answer {
                stdout: String::new(),
                stderr: format!("{reason} ({} cannot be blocked)", spec.name),
                exit: 0,
            };
        }
        let event = Event::from_value(json!({"hook_event_name": spec.name})).expect("valid object");
        let d = Decision {
            kind: Some(if spec.blocking == Blocking::TopLevel {
                DecisionKind::Block
            } else {
                DecisionKind::Deny
            }),
            reason: Some(reason.clone()),
            ..Decision::default()
        };
        let mut a = render(&event, &d);
        a.stderr = reason;
        return a;
    }
    Answer {
        stdout: String::new(),
        stderr: reason,
        exit: 2,
    }
}

/// The fail-open answer: say what went wrong on stderr, let the client carry on.
pub fn fail_open(message: &str) -> Answer {
    Answer {
        stdout: String::new(),
        stderr: format!("hookrules (fail-open): {message}"),
        exit: 0,
    }
}
