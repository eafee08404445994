//! Stage 6: the answer the client reads. One JSON object on stdout shaped for the
//! event (reference §2.4), or nothing; exit 0. Exit 2 with stderr is used only when
//! an event that can block must fail closed and no JSON can be built for it.

pub mod claude;
pub mod codex;
pub mod copilot;
pub mod cursor;
pub mod gemini;

use serde_json::{json, Map, Value};

use crate::contract::events::Blocking;
use crate::contract::hosts::adapter::AnswerShape;
use crate::contract::hosts::{self, Hint, Host};
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

/// Build the output for an event from a decision, in the format the agent
/// that sent the event reads ([`AnswerShape`]: one renderer per format).
pub fn render(event: &Event, d: &Decision) -> Answer {
    match event.origin.host.adapter().answer {
        AnswerShape::Claude => claude::render(event, d),
        AnswerShape::Codex => codex::render(event, d),
        AnswerShape::Gemini => gemini::render(event, d),
        AnswerShape::Cursor => cursor::render(event, d),
        AnswerShape::Copilot => copilot::render(event, d),
    }
}

/// The full tool input after the decision's rewrites, in the agent's own field
/// names (a rewrite replaces the input wholesale on every host that has one).
pub fn updated_input(event: &Event, d: &Decision) -> Value {
    let host_input = event.value.get("host").and_then(|h| h.get("tool_input"));
    let host_tool = event
        .value
        .get("host")
        .and_then(|h| h.get("tool_name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let raw_keys = match host_input {
        Some(Value::Object(raw)) => raw.clone(),
        _ => Map::new(),
    };
    let (mut full, own_names) = match (host_input, event.value.get("tool_input")) {
        (Some(Value::Object(raw)), _) => (raw.clone(), true),
        (_, Some(Value::Object(input))) => (input.clone(), false),
        _ => (Map::new(), false),
    };
    for (k, v) in &d.rewrite {
        let key = if own_names {
            hosts::host_input_key(event.origin.host, host_tool, &raw_keys, k)
        } else {
            k.clone()
        };
        set_path(&mut full, &key, Value::String(v.clone()));
    }
    Value::Object(full)
}

/// The decision's context for the model: its parts that are not blank,
/// joined by a blank line; `None` when there is none.
pub fn context_text(d: &Decision) -> Option<String> {
    let parts: Vec<&str> = d
        .context
        .iter()
        .map(String::as_str)
        .filter(|s| !s.trim().is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

/// Put the rewritten input (when the call runs) and the context into `into`
/// under the host's own keys, or say in `notes` that the host's event
/// (`title`'s `host_event`) cannot take them.
pub(crate) fn carry_input_and_context(
    event: &Event,
    d: &Decision,
    (title, host_event): (&str, &str),
    (rewrite_key, context_key): (Option<&str>, Option<&str>),
    into: &mut Map<String, Value>,
    notes: &mut Vec<String>,
) {
    let runs = matches!(d.kind, None | Some(DecisionKind::Allow));
    if runs && !d.rewrite.is_empty() {
        match rewrite_key {
            Some(key) => {
                into.insert(key.into(), updated_input(event, d));
            }
            None => notes.push(format!(
                "hookrules: `rewrite` has no effect on {title}'s {host_event}; ignored"
            )),
        }
    }
    if let Some(text) = context_text(d) {
        match context_key {
            Some(key) => {
                into.insert(key.into(), json!(text));
            }
            None => notes.push(format!(
                "hookrules: {title}'s {host_event} cannot carry context to the model; dropped"
            )),
        }
    }
}

/// The reason shown when a host cannot ask and hookrules denies instead.
pub fn ask_as_deny(host: Host, reason: &str) -> String {
    let why = format!(
        "hookrules would ask before this call, but {} hooks cannot ask: denied. Run it yourself if it is intended.",
        host.title()
    );
    if reason.trim().is_empty() {
        why
    } else {
        format!("{reason}\n({why})")
    }
}

/// The event's `tool_input` (its canonical names) as `d`'s rewrites leave it:
/// what the tool would run with. None when nothing is rewritten or the event
/// has no `tool_input` object.
pub fn rewritten_input(event: &Event, d: &Decision) -> Option<Value> {
    if d.rewrite.is_empty() {
        return None;
    }
    let Some(Value::Object(input)) = event.value.get("tool_input") else {
        return None;
    };
    let mut full = input.clone();
    for (k, v) in &d.rewrite {
        set_path(&mut full, k, Value::String(v.clone()));
    }
    Some(Value::Object(full))
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
/// blocked, a proper block in the agent's shape; with no usable event, exit 2
/// and the reason on stderr (which blocks where blocking is possible on Claude
/// Code, Codex CLI, Gemini CLI and Cursor).
pub fn fail_closed(host: Option<Host>, event_name: Option<&str>, message: &str) -> Answer {
    let reason = format!("hookrules (fail-closed): {message}");
    let event = event_name.and_then(|name| {
        // The envelope names the event where the host's does (else the hint does).
        let value = match host {
            Some(h) if !h.adapter().names_event => json!({}),
            _ => json!({ "hook_event_name": name }),
        };
        Event::from_value_with(
            value,
            Hint {
                host,
                event: Some(name),
            },
        )
        .ok()
        .filter(|e| e.known)
    });
    if let Some(event) = event {
        if event.spec.blocking == Blocking::None {
            return Answer {
                stdout: String::new(),
                stderr: format!("{reason} ({} cannot be blocked)", event.origin.event),
                exit: 0,
            };
        }
        let d = Decision {
            kind: Some(if event.spec.blocking == Blocking::TopLevel {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::hosts::adapter::{Caps, Gives, Outcome};

    /// An event of `host` named `name` as the host would send it (only the name).
    fn event_of(host: Host, name: &str) -> Event {
        let value = match host {
            h if !h.adapter().names_event => json!({}),
            _ => {
                json!({ "hook_event_name": name, "tool_name": "Bash", "tool_input": {"command": "ls"} })
            }
        };
        let hint = Hint {
            host: Some(host),
            event: Some(name),
        };
        Event::from_value_with(value, hint).expect("an event of the host's own table")
    }

    /// One outcome's column of a capability table.
    type Pick = fn(&Caps) -> Gives;

    /// What the rendered answer did with one outcome.
    fn given(host: Host, name: &str, kind: DecisionKind) -> Gives {
        let d = Decision {
            kind: Some(kind),
            reason: Some("R-E-A-S-O-N".into()),
            ..Decision::default()
        };
        let event = event_of(host, name);
        let out = render(&event, &d).stdout;
        if out.trim().is_empty() && kind == DecisionKind::Ask && event.name == "PermissionRequest" {
            // No answer is the ask: the client's own permission prompt decides.
            Gives::Yes
        } else if out.trim().is_empty() {
            Gives::No
        } else if (kind == DecisionKind::Ask && !out.contains("\"ask\""))
            || (kind == DecisionKind::Stop && !out.contains("\"continue\":false"))
        {
            Gives::AsDeny
        } else {
            Gives::Yes
        }
    }

    /// The capabilities the renderers actually honour, read back from their output.
    fn observed(host: Host, name: &str) -> Caps {
        let context = Decision {
            context: vec!["C-O-N-T-E-X-T".into()],
            ..Decision::default()
        };
        let rewrite = Decision {
            kind: Some(DecisionKind::Allow),
            rewrite: vec![("command".into(), "R-E-W-R-I-T-E".into())],
            ..Decision::default()
        };
        let event = event_of(host, name);
        Caps {
            allow: given(host, name, DecisionKind::Allow),
            ask: given(host, name, DecisionKind::Ask),
            deny: given(host, name, DecisionKind::Deny),
            stop: given(host, name, DecisionKind::Stop),
            context: render(&event, &context).stdout.contains("C-O-N-T-E-X-T"),
            rewrite: render(&event, &rewrite).stdout.contains("R-E-W-R-I-T-E"),
        }
    }

    /// Every host's capability table (what `check` warns from) says what its
    /// renderer does, for every event it lists and every outcome, context and
    /// rewrite that Claude Code's contract accepts on the canonical event.
    #[test]
    fn each_hosts_capability_table_is_what_its_answers_do() {
        let mut wrong = vec![];
        for host in Host::ALL {
            for e in host.adapter().event_list() {
                let table = e.caps;
                let seen = observed(host, e.name);
                let contract = crate::contract::events::spec(e.canonical).map(Caps::canonical);
                let accepted = |g: Pick| contract.is_none_or(|c| g(&c) != Gives::No);
                let outcomes: [(Outcome, Pick); 4] = [
                    (Outcome::Allow, |c| c.allow),
                    (Outcome::Ask, |c| c.ask),
                    (Outcome::Deny, |c| c.deny),
                    (Outcome::Stop, |c| c.stop),
                ];
                for (outcome, g) in outcomes {
                    if accepted(g) && g(&table) != g(&seen) {
                        wrong.push(format!(
                            "{} {}: {outcome:?} table {:?}, answer {:?}",
                            host.name(),
                            e.name,
                            g(&table),
                            g(&seen)
                        ));
                    }
                }
                if contract.is_none_or(|c| c.context) && table.context != seen.context {
                    wrong.push(format!(
                        "{} {}: context table {}",
                        host.name(),
                        e.name,
                        table.context
                    ));
                }
                if contract.is_none_or(|c| c.rewrite) && table.rewrite != seen.rewrite {
                    wrong.push(format!(
                        "{} {}: rewrite table {}",
                        host.name(),
                        e.name,
                        table.rewrite
                    ));
                }
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
