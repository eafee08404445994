//! `hookrules rule [CODE]`: the diagnostic catalogue. Where a code's meaning
//! depends on the client's contract (which decisions each event takes, which
//! events have a matcher field), the details are printed from the same tables the
//! validator uses, so the explanation cannot drift from the behaviour.

use std::io::Write;

use crate::contract::events::{self, EVENTS};
use crate::diagnostics::Code;
use crate::policy::syntax::DecisionKind;

/// Print one code's explanation, or list them all. Exit 2 for an unknown code.
pub fn rule(code: Option<&str>, out: &mut dyn Write) -> i32 {
    match code {
        None => {
            for c in Code::ALL {
                let _ = writeln!(
                    out,
                    "{}  {:<24} {:<8} {}",
                    c.code(),
                    c.name(),
                    format!("{:?}", c.severity()).to_lowercase(),
                    c.title()
                );
            }
            0
        }
        Some(s) => match Code::lookup(s) {
            Some(c) => {
                let _ = write!(out, "{}", explain(c));
                0
            }
            None => {
                let _ = writeln!(out, "no diagnostic code `{s}`; `hookrules rule` lists them");
                2
            }
        },
    }
}

/// The full text `hookrules rule CODE` prints.
pub fn explain(c: Code) -> String {
    let mut s = format!(
        "{} ({}), {:?}\n\n{}\n\n{}\n",
        c.code(),
        c.name(),
        c.severity(),
        c.title(),
        c.explanation()
    );
    if let Some(d) = details(c) {
        s.push('\n');
        s.push_str(&d);
    }
    s
}

/// Details generated from the client's contract, for the codes that depend on it.
fn details(c: Code) -> Option<String> {
    match c {
        Code::DecisionNotSupported => Some(decision_table()),
        Code::MatcherWithoutField => {
            let none: Vec<&str> = EVENTS
                .iter()
                .filter(|e| e.matcher_field.is_none())
                .map(|e| e.name)
                .collect();
            Some(format!(
                "Events without a matcher field: {}.\n",
                none.join(", ")
            ))
        }
        Code::UnknownEvent => {
            let all: Vec<&str> = EVENTS.iter().map(|e| e.name).collect();
            Some(format!(
                "The events the client sends: {}.\n",
                all.join(", ")
            ))
        }
        _ => None,
    }
}

/// Which decisions each event takes, and how each is sent.
pub fn decision_table() -> String {
    let kinds = [
        DecisionKind::Allow,
        DecisionKind::Ask,
        DecisionKind::Deny,
        DecisionKind::Block,
        DecisionKind::Stop,
    ];
    let mut s = String::from(
        "Decisions each event takes (- : an error, the decision would do nothing):\n\n",
    );
    s.push_str(&format!(
        "  {:<20} {:<6} {:<6} {:<6} {:<6} {:<6} sent as\n",
        "event", "allow", "ask", "deny", "block", "stop"
    ));
    for e in EVENTS {
        let marks: Vec<&str> = kinds
            .iter()
            .map(|k| {
                if crate::validate::supports(e, *k) {
                    "yes"
                } else {
                    "-"
                }
            })
            .collect();
        let how = match e.blocking {
            events::Blocking::Permission | events::Blocking::ModelSwitch => {
                "hookSpecificOutput.permissionDecision"
            }
            events::Blocking::PermissionRequest => "hookSpecificOutput.decision.behavior",
            events::Blocking::Elicitation => "hookSpecificOutput.action (accept / decline)",
            events::Blocking::TopLevel => "top-level decision: \"block\"",
            events::Blocking::None => "continue: false (stop) only",
        };
        s.push_str(&format!(
            "  {:<20} {:<6} {:<6} {:<6} {:<6} {:<6} {how}\n",
            e.name, marks[0], marks[1], marks[2], marks[3], marks[4]
        ));
    }
    s
}
