//! The decisions each event takes: what `check` accepts (HR013, printed by
//! `hookrules rule HR013`) agrees with what `run` answers, for every event of the
//! client and every decision. A decision `check` accepts has an effect in the
//! answer; one it rejects is answered with a note that it was ignored.

use hookrules::answer;
use hookrules::contract::events::EVENTS;
use hookrules::contract::Event;
use hookrules::decision::Decision;
use hookrules::policy::syntax::DecisionKind;
use hookrules::validate::supports;

const KINDS: [DecisionKind; 5] = [
    DecisionKind::Allow,
    DecisionKind::Ask,
    DecisionKind::Deny,
    DecisionKind::Block,
    DecisionKind::Stop,
];

#[test]
fn check_and_run_agree_on_every_event_and_decision() {
    let mut disagree = vec![];
    for spec in EVENTS {
        let event = Event::from_value(serde_json::json!({ "hook_event_name": spec.name })).unwrap();
        for kind in KINDS {
            let d = Decision {
                kind: Some(kind),
                reason: Some("because".into()),
                ..Decision::default()
            };
            let a = answer::render(&event, &d);
            let ignored = a.stderr.contains("no effect") || a.stderr.contains("ignore");
            // `ask` on PermissionRequest leaves the choice to the client's own
            // prompt: no output is the effect.
            let answered = !a.stdout.is_empty()
                || (kind == DecisionKind::Ask && spec.name == "PermissionRequest");
            let effect = answered && !ignored;
            if effect != supports(spec, kind) {
                disagree.push(format!(
                    "{} {}: check says {}, run answers {:?} (stderr {:?})",
                    spec.name,
                    kind.as_str(),
                    if supports(spec, kind) { "ok" } else { "HR013" },
                    a.stdout,
                    a.stderr
                ));
            }
        }
    }
    assert!(disagree.is_empty(), "{}", disagree.join("\n"));
}

#[test]
fn deny_on_stop_blocks_as_the_catalogue_says() {
    let event = Event::from_value(
        serde_json::json!({ "hook_event_name": "Stop", "stop_hook_active": false }),
    )
    .unwrap();
    let d = Decision {
        kind: Some(DecisionKind::Deny),
        reason: Some("tests first".into()),
        ..Decision::default()
    };
    let a = answer::render(&event, &d);
    assert_eq!(a.stdout, r#"{"decision":"block","reason":"tests first"}"#);
    let mut out = Vec::new();
    hookrules::cli::rule(Some("HR013"), &mut out);
    let text = String::from_utf8(out).unwrap();
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("Stop "))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        &cells[..6],
        ["Stop", "-", "-", "yes", "yes", "yes"],
        "{row}"
    );
    assert!(text.contains("`deny` and `block` are the same refusal"));
}
