//! A PostToolUse (or PostToolUseFailure) whose `tool_use_id` no PreToolUse
//! answer of hookrules saw is logged as `unguarded`; `report`, `log` and
//! `doctor` show them.

use serde_json::{json, Value};

use super::sandbox::{stdout, tool_event, Sandbox};
use hookrules::log::record::Kind;

fn pre(id: &str) -> Value {
    tool_event("PreToolUse", "Bash", json!({"command": "ls -la"}), id)
}

fn post(id: &str) -> Value {
    let mut e = tool_event("PostToolUse", "Bash", json!({"command": "ls -la"}), id);
    e["tool_response"] = json!({"stdout": "", "stderr": "", "interrupted": false});
    e
}

fn failure(id: &str) -> Value {
    let mut e = tool_event(
        "PostToolUseFailure",
        "Write",
        json!({"file_path": "/tmp/x.txt", "content": "hi"}),
        id,
    );
    e["error"] = json!("Exit code 1");
    e
}

/// Codex's envelope (Claude-shaped, with `turn_id` and `model`).
fn codex_post(id: &str) -> Value {
    json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
        "tool_input": {"command": "cargo build"}, "tool_response": "ok",
        "session_id": "s-1", "turn_id": "t", "model": "gpt-5", "cwd": "/tmp",
        "permission_mode": "default", "tool_use_id": id, "transcript_path": null})
}

/// A sandbox whose runs get two minutes: what is tested is the index, not the
/// time limit, and a loaded machine can starve a debug build past the default
/// deadline (the run then answers without writing its log line).
fn sandbox() -> Sandbox {
    let mut sb = Sandbox::new();
    sb.env
        .push(("HOOKRULES_DEADLINE_MS".into(), "120000".into()));
    sb
}

fn unguarded(sb: &Sandbox) -> Vec<(String, String, String)> {
    match std::fs::read_dir(sb.root.join("state/hookrules/projects")) {
        Err(_) => vec![],
        Ok(_) => sb
            .records()
            .into_iter()
            .filter(|r| r.kind == Kind::Unguarded)
            .map(|r| {
                let id = r.input.as_ref().unwrap()["tool_use_id"]
                    .as_str()
                    .unwrap()
                    .to_string();
                (r.event, r.tool.unwrap_or_default(), id)
            })
            .collect(),
    }
}

#[test]
fn a_post_without_its_pre_answered_is_logged_as_unguarded_and_nothing_else_is() {
    let sb = sandbox();
    // Answered before it ran: nothing to log (a harmless call, no decision).
    sb.run(&pre("toolu_01A"));
    let out = sb.run(&post("toolu_01A"));
    assert!(out.status.success());
    assert_eq!(unguarded(&sb), vec![]);

    // Never answered: the answer is the same (nothing to say), the line says unguarded.
    let out = sb.run(&post("toolu_01B"));
    assert!(out.status.success());
    assert_eq!(stdout(&out).trim(), "", "the answer does not change");
    let out = sb.run(&failure("toolu_01C"));
    assert!(out.status.success());
    assert_eq!(
        unguarded(&sb),
        vec![
            ("PostToolUse".into(), "Bash".into(), "toolu_01B".into()),
            (
                "PostToolUseFailure".into(),
                "Write".into(),
                "toolu_01C".into()
            ),
        ]
    );
    let r = sb.last();
    assert_eq!(r.summary.as_deref(), Some("/tmp/x.txt"));
    assert_eq!(r.host, "claude");
    assert_eq!(r.policy_hash.len(), 64);
    let line = hookrules::log::store::read_lines(&sb.log_dir())
        .unwrap()
        .pop()
        .unwrap();
    assert!(line.contains("\"kind\":\"unguarded\""), "{line}");

    // Another session's answer for the same id does not count for this one,
    // and a PreToolUse answered after the call does not either.
    let mut other = pre("toolu_01D");
    other["session_id"] = json!("s-2");
    sb.run(&other);
    sb.run(&post("toolu_01D"));
    assert_eq!(unguarded(&sb).len(), 3);

    // No log, no judging.
    sb.run_with(&post("toolu_01E"), &[], &[("HOOKRULES_LOG", "off")]);
    assert_eq!(unguarded(&sb).len(), 3);
}

#[test]
fn concurrent_hooks_lose_no_answered_id() {
    let sb = sandbox();
    sb.run(&pre("toolu_warm"));
    // 24 calls at once, each a PreToolUse then its PostToolUse, as parallel
    // tool calls of one message run; then 6 posts nobody answered.
    let threads: Vec<_> = (0..24)
        .map(|i| {
            // What is tested is the index, not the time limit: a loaded
            // machine may starve a debug build past the default deadline.
            let run = || {
                let mut c = sb.cmd(&["run"]);
                c.env("HOOKRULES_DEADLINE_MS", "120000");
                c
            };
            let (a, b) = (run(), run());
            let id = format!("toolu_par{i:02}");
            std::thread::spawn(move || {
                for (mut c, ev) in [(a, pre(&id)), (b, post(&id))] {
                    use std::io::Write;
                    let mut child = c
                        .stdin(std::process::Stdio::piped())
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::piped())
                        .spawn()
                        .unwrap();
                    child
                        .stdin
                        .take()
                        .unwrap()
                        .write_all(ev.to_string().as_bytes())
                        .unwrap();
                    let out = child.wait_with_output().unwrap();
                    assert!(out.status.success(), "{out:?}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert_eq!(unguarded(&sb), vec![]);
    for i in 0..6 {
        sb.run(&post(&format!("toolu_lone{i}")));
    }
    assert_eq!(unguarded(&sb).len(), 6);
}

#[test]
fn report_counts_them_per_host_and_event_and_log_and_doctor_show_them() {
    let sb = sandbox();
    sb.run(&post("toolu_1"));
    sb.run(&post("toolu_2"));
    sb.run(&failure("toolu_3"));
    let out = sb.run(&codex_post("call_4"));
    assert!(out.status.success(), "{out:?}");
    // A denied call is still a decision, not an unguarded one.
    sb.run(&tool_event(
        "PreToolUse",
        "Bash",
        json!({"command": "rm -rf /"}),
        "toolu_5",
    ));

    let report = stdout(&sb.hr(&["report"]));
    assert!(
        report.contains("unguarded tool calls: 4 ran with no PreToolUse answer"),
        "{report}"
    );
    let count = |what: &str| {
        report
            .lines()
            .find(|l| l.trim_end().ends_with(what) && l.trim_start().starts_with(char::is_numeric))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("{what}:\n{report}"))
    };
    assert_eq!(count("claude PostToolUse"), 2);
    assert_eq!(count("claude PostToolUseFailure"), 1);
    assert_eq!(count("codex PostToolUse"), 1);

    let listed = stdout(&sb.hr(&["log", "--decision", "unguarded"]));
    let rows: Vec<&str> = listed.lines().filter(|l| l.contains("unguarded")).collect();
    assert_eq!(rows.len(), 4, "{listed}");
    assert!(!listed.contains("rm -rf /"), "{listed}");

    let doctor = sb.hr(&["doctor", "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&doctor)).unwrap();
    let finding = v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["check"] == "unguarded")
        .unwrap_or_else(|| panic!("{v:#}"));
    assert_eq!(finding["level"], "warn");
    let text = finding["message"].as_str().unwrap();
    assert!(text.starts_with("4 tool call(s)"), "{text}");
    assert!(text.contains("cargo build"), "the latest: {text}");

    // A clean project: doctor says so.
    let clean = Sandbox::new();
    let doctor = clean.hr(&["doctor", "--format", "json"]);
    let v: Value = serde_json::from_str(&stdout(&doctor)).unwrap();
    assert!(v["findings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f["check"] == "unguarded" && f["level"] == "ok"));
}
