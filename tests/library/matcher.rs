//! Matchers follow the client's semantics (reference §3.2), for all of a rule's
//! events or one per event: `matcher = { PostToolUse = "Task", SubagentStop = "*" }`.

use std::path::{Path, PathBuf};

use hookrules::cli::check;
use hookrules::contract::hosts::Hint;
use hookrules::diagnostics::Code;
use hookrules::engine::run::in_process;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;
use serde_json::json;

fn policy(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.toml");
    std::fs::write(&p, text).unwrap();
    (dir, p)
}

fn fired(p: &Path, event: serde_json::Value) -> Vec<String> {
    let d = Discovery {
        flags: vec![p.to_path_buf()],
        ..Discovery::default()
    };
    let (_, d) = in_process(
        &d,
        &mut event.to_string().as_bytes(),
        &Default::default(),
        Now::at(0),
        Hint::default(),
    );
    d.map(|d| d.matched).unwrap_or_default()
}

const PER_EVENT: &str = r#"
[[rule]]
id = "agent-done"
events = ["PostToolUse", "SubagentStop"]
matcher = { PostToolUse = "Task" }
message = "agent finished"
"#;

#[test]
fn a_per_event_matcher_applies_to_its_event_only() {
    let (_d, p) = policy(PER_EVENT);
    // `Task` matches the current name `Agent` (legacy alias).
    assert_eq!(
        fired(
            &p,
            json!({"hook_event_name": "PostToolUse", "tool_name": "Agent"})
        ),
        vec!["agent-done"]
    );
    assert!(fired(
        &p,
        json!({"hook_event_name": "PostToolUse", "tool_name": "Bash"})
    )
    .is_empty());
    // SubagentStop is not named in the table: not constrained.
    assert_eq!(
        fired(
            &p,
            json!({"hook_event_name": "SubagentStop", "agent_type": "x"})
        ),
        vec!["agent-done"]
    );
}

#[test]
fn the_same_rule_with_one_matcher_would_miss_subagent_stop() {
    let (_d, p) =
        policy(&PER_EVENT.replace("matcher = { PostToolUse = \"Task\" }", "matcher = \"Task\""));
    // On SubagentStop the matcher is tested against agent_type, as the client does.
    assert!(fired(
        &p,
        json!({"hook_event_name": "SubagentStop", "agent_type": "x"})
    )
    .is_empty());
}

#[test]
fn per_event_matchers_are_validated() {
    let (_d, p) = policy(
        "[[rule]]\nid = \"a\"\nevents = [\"PostToolUse\"]\nmatcher = { PreToolUse = \"Bash\" }\nmessage = \"x\"\n\n[[rule]]\nid = \"b\"\nevents = [\"Stop\", \"PostToolUse\"]\nmatcher = { Stop = \"x\" }\nmessage = \"x\"\n",
    );
    let report = check::collect(&Discovery {
        flags: vec![p],
        ..Discovery::default()
    });
    let codes: Vec<(Code, String)> = report
        .diagnostics
        .iter()
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert!(
        codes.iter().any(|(c, m)| *c == Code::MatcherWithoutField
            && m.contains("PreToolUse, which is not one of the rule's events")),
        "{codes:?}"
    );
    assert!(
        codes.iter().any(
            |(c, m)| *c == Code::MatcherWithoutField && m.contains("Stop has no matcher field")
        ),
        "{codes:?}"
    );
}
