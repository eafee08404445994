//! Every stdin sample from the reference, under policies that make every event
//! say everything it can (each decision, context, messages, rewrites), produces
//! output the client accepts (reference §2.1, §2.4): exactly one JSON object or
//! nothing, exit 0, only known top-level keys, `hookSpecificOutput` only on events
//! that have a variant, with the right `hookEventName` and only that variant's
//! fields, and valid enum values.
//!
//! The allowed shapes below are transcribed from the reference independently of
//! `src/host/events.rs`, so a mistake there is caught here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process_with;
use hookrules::engine::Set;
use hookrules::os::clock::Now;
use hookrules::os::env::Env;
use hookrules::policy::discover::Discovery;
use serde_json::Value;

const TOP_LEVEL: &[&str] = &[
    "continue",
    "stopReason",
    "suppressOutput",
    "systemMessage",
    "decision",
    "reason",
    "terminalSequence",
    "hookSpecificOutput",
];

/// Reference §2.4: `hookSpecificOutput` variants and their fields.
fn variant_fields(event: &str) -> Option<&'static [&'static str]> {
    Some(match event {
        "PreToolUse" => &[
            "permissionDecision",
            "permissionDecisionReason",
            "updatedInput",
            "additionalContext",
        ],
        "PermissionRequest" => &["decision"],
        "PermissionDenied" => &["retry"],
        "UserPromptSubmit" => &[
            "additionalContext",
            "sessionTitle",
            "suppressOriginalPrompt",
        ],
        "UserPromptExpansion" => &["additionalContext", "suppressOriginalPrompt"],
        "SessionStart" => &[
            "additionalContext",
            "initialUserMessage",
            "sessionTitle",
            "watchPaths",
            "reloadSkills",
        ],
        "Setup" | "SubagentStart" | "PostToolUseFailure" | "PostToolBatch" | "Stop"
        | "SubagentStop" | "Notification" | "PostModelSwitch" => &["additionalContext"],
        "PostToolUse" => &[
            "additionalContext",
            "updatedToolOutput",
            "updatedMCPToolOutput",
            "classifierContext",
        ],
        "PreModelSwitch" => &["permissionDecision", "permissionDecisionReason"],
        "Elicitation" | "ElicitationResult" => &["action", "content"],
        "CwdChanged" | "FileChanged" => &["watchPaths"],
        "WorktreeCreate" => &["worktreePath"],
        "MessageDisplay" => &["displayContent"],
        _ => return None,
    })
}

/// Reference §2.4: events for which top-level `decision: "block"` is the block.
fn top_level_block(event: &str) -> bool {
    matches!(
        event,
        "UserPromptSubmit" | "UserPromptExpansion" | "PostToolUse" | "PostToolUseFailure" | "PostToolBatch"
            | "Stop" | "SubagentStop" | "ConfigChange" | "PreCompact" | "TaskCreated" | "PreModelSwitch"
            // Bcr set (reference §2.3): block-style like Stop.
            | "TaskCompleted" | "TeammateIdle"
    )
}

fn samples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("samples at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    assert!(
        v.len() >= 50,
        "expected the reference's samples, found {}",
        v.len()
    );
    v
}

/// The test's environment: a home that is not this machine's, and no cache,
/// so nothing is written into a home that is not this test's.
fn env() -> Env {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    env.insert("HOOKRULES_CACHE".to_string(), "off".to_string());
    env.into()
}

/// The built-in pack plus `tests/policies/POLICY`, loaded once.
fn load(policy: &str) -> Set {
    let d = Discovery {
        flags: vec![Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/policies")
            .join(policy)],
        ..Discovery::default()
    };
    Set::load(&d, &env())
}

/// One event answered by a loaded set.
fn answer(set: &Set, stdin: &[u8]) -> hookrules::answer::Answer {
    in_process_with(
        set,
        &mut &stdin[..],
        &env(),
        Now::at(1_763_700_000),
        Hint::default(),
    )
    .0
}

fn run_with(policy: &str, stdin: &[u8]) -> hookrules::answer::Answer {
    answer(&load(policy), stdin)
}

/// Check one answer against the contract; returns the problems.
fn contract_problems(event: &str, stdout: &str, exit: i32) -> Vec<String> {
    let mut p = vec![];
    if exit != 0 {
        p.push(format!("exit {exit}"));
    }
    if stdout.is_empty() {
        return p;
    }
    let v: Value = match serde_json::from_str(stdout) {
        Ok(v) => v,
        Err(e) => return vec![format!("stdout is not one JSON document: {e}")],
    };
    let Some(obj) = v.as_object() else {
        return vec!["stdout is not an object".into()];
    };
    if stdout.trim().lines().count() != 1 {
        p.push("stdout is more than one line".into());
    }
    for k in obj.keys() {
        if !TOP_LEVEL.contains(&k.as_str()) {
            p.push(format!("unknown top-level key {k}"));
        }
    }
    if let Some(d) = obj.get("decision") {
        if d != "block" {
            p.push(format!(
                "top-level decision {d} (only \"block\" is current)"
            ));
        }
        if event == "PreToolUse" {
            p.push("deprecated top-level decision on PreToolUse".into());
        } else if !top_level_block(event) {
            p.push(format!(
                "top-level decision on {event}, which has no such block"
            ));
        }
    }
    if let Some(c) = obj.get("continue") {
        if !c.is_boolean() {
            p.push("continue is not a boolean".into());
        }
    }
    for k in ["systemMessage", "reason", "stopReason"] {
        if obj.get(k).is_some_and(|v| !v.is_string()) {
            p.push(format!("{k} is not a string"));
        }
    }
    if let Some(h) = obj.get("hookSpecificOutput") {
        match variant_fields(event) {
            None => p.push(format!("hookSpecificOutput on {event}, which has no variant (the whole JSON would be dropped)")),
            Some(fields) => {
                let h = h.as_object().expect("object");
                if h.get("hookEventName").and_then(|n| n.as_str()) != Some(event) {
                    p.push(format!("hookEventName {:?} != {event}", h.get("hookEventName")));
                }
                for k in h.keys().filter(|k| *k != "hookEventName") {
                    if !fields.contains(&k.as_str()) {
                        p.push(format!("field {k} not in the {event} variant"));
                    }
                }
                if let Some(pd) = h.get("permissionDecision") {
                    let ok = if event == "PreModelSwitch" { ["allow", "deny", "ask"].as_slice() } else { ["allow", "deny", "ask", "defer"].as_slice() };
                    if !pd.as_str().is_some_and(|s| ok.contains(&s)) {
                        p.push(format!("invalid permissionDecision {pd}"));
                    }
                }
                if let Some(d) = h.get("decision") {
                    let b = d.get("behavior").and_then(|b| b.as_str());
                    if !matches!(b, Some("allow" | "deny")) {
                        p.push(format!("invalid PermissionRequest decision {d}"));
                    }
                }
                if let Some(a) = h.get("action") {
                    if !a.as_str().is_some_and(|s| ["accept", "decline", "cancel"].contains(&s)) {
                        p.push(format!("invalid action {a}"));
                    }
                }
                if let Some(u) = h.get("updatedInput") {
                    if !u.is_object() {
                        p.push("updatedInput is not an object".into());
                    }
                }
            }
        }
    }
    p
}

#[test]
fn every_sample_under_every_decision_produces_accepted_output() {
    let mut problems = vec![];
    let mut non_empty = 0;
    for policy in [
        "every-event.toml",
        "decide-deny.toml",
        "decide-block.toml",
        "decide-ask.toml",
        "decide-allow.toml",
        "decide-stop.toml",
    ] {
        let set = load(policy);
        for sample in samples() {
            let bytes = std::fs::read(&sample).unwrap();
            let event: Value = serde_json::from_slice(&bytes).unwrap();
            let name = event["hook_event_name"].as_str().unwrap().to_string();
            let a = answer(&set, &bytes);
            if !a.stdout.is_empty() {
                non_empty += 1;
            }
            for p in contract_problems(&name, &a.stdout, a.exit) {
                problems.push(format!(
                    "{policy} {}: {p}\n    stdout: {}",
                    sample.file_name().unwrap().to_string_lossy(),
                    a.stdout
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // Every event has at least a systemMessage to say, so nothing may be silent.
    assert_eq!(
        non_empty,
        6 * samples().len(),
        "some events printed nothing"
    );
}

#[test]
fn updated_input_is_the_full_tool_input() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples/PreToolUse-Bash.json"),
    )
    .unwrap();
    let a = run_with("every-event.toml", &bytes);
    let v: Value = serde_json::from_str(&a.stdout).unwrap();
    let u = &v["hookSpecificOutput"]["updatedInput"];
    assert_eq!(
        u["command"], "npm test -- --watch=false",
        "untouched fields are kept"
    );
    assert_eq!(u["description"], "rewritten");
}

#[test]
fn deny_on_pre_tool_use_uses_the_current_wrapper() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples/PreToolUse-Bash.json"),
    )
    .unwrap();
    let a = run_with("decide-deny.toml", &bytes);
    let v: Value = serde_json::from_str(&a.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    assert_eq!(
        v["hookSpecificOutput"]["permissionDecisionReason"],
        "reason: deny"
    );
    assert_eq!(
        v["hookSpecificOutput"]["additionalContext"],
        "context: deny"
    );
    assert_eq!(v["systemMessage"], "message: deny");
    assert!(v.get("decision").is_none());
}

#[test]
fn stop_on_pre_tool_use_also_denies_so_the_tool_does_not_run() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples/PreToolUse-Bash.json"),
    )
    .unwrap();
    let a = run_with("decide-stop.toml", &bytes);
    let v: Value = serde_json::from_str(&a.stdout).unwrap();
    assert_eq!(v["continue"], false);
    assert_eq!(v["stopReason"], "reason: stop");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
}

#[test]
fn block_style_events_use_top_level_decision() {
    for (sample, event) in [
        ("Stop.json", "Stop"),
        ("SubagentStop.json", "SubagentStop"),
        ("PreCompact.json", "PreCompact"),
        ("UserPromptSubmit.json", "UserPromptSubmit"),
    ] {
        let bytes = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/samples")
                .join(sample),
        )
        .unwrap();
        let a = run_with("decide-block.toml", &bytes);
        let v: Value = serde_json::from_str(&a.stdout).unwrap();
        assert_eq!(v["decision"], "block", "{event}");
        assert_eq!(v["reason"], "reason: block", "{event}");
        if event == "PreCompact" {
            assert!(
                v.get("hookSpecificOutput").is_none(),
                "PreCompact has no variant"
            );
        }
    }
}

#[test]
fn permission_request_deny_uses_decision_behavior() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/samples/PermissionRequest-Write.json"),
    )
    .unwrap();
    let a = run_with("decide-deny.toml", &bytes);
    let v: Value = serde_json::from_str(&a.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["decision"]["behavior"], "deny");
    assert_eq!(
        v["hookSpecificOutput"]["decision"]["message"],
        "reason: deny"
    );
}
