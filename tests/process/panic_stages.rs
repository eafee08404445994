//! A panic anywhere in `hookrules run` still ends in the failure mode's answer,
//! through the real process (stdin, stdout, exit status): a bug must never
//! wedge the session nor let a tool call through with no answer (a crash exits
//! 101 with no JSON, which Claude Code treats as a non-blocking error).
//!
//! The panics are injected with `HOOKRULES_TEST_PANIC=STAGE`, a switch compiled
//! into debug builds only (`engine::run::inject`).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hookrules");

fn run(project: &Path, stage: &str, command: &str, args: &[&str]) -> Output {
    let event = serde_json::json!({
        "session_id": "s", "transcript_path": "/t", "cwd": project,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "t1",
    });
    let mut child = Command::new(BIN)
        .arg("run")
        .args(args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", project.join("home"))
        .env("CLAUDE_PROJECT_DIR", project)
        .env("XDG_STATE_HOME", project.join("state"))
        .env("HOOKRULES_CACHE_DIR", project.join("cache"))
        .env("HOOKRULES_TEST_PANIC", stage)
        // The panic's answer, not the deadline's, even on a loaded machine.
        .env("HOOKRULES_DEADLINE_MS", "600000")
        .current_dir(project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A run that ends before it reads its input closes the pipe early.
    let _ = child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes());
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Claude Code's PreToolUse deny, as JSON on stdout with exit 0.
fn denies(out: &Output) -> Option<String> {
    let v: Value = serde_json::from_slice(&out.stdout).ok()?;
    let h = &v["hookSpecificOutput"];
    (out.status.code() == Some(0)
        && h["hookEventName"] == "PreToolUse"
        && h["permissionDecision"] == "deny")
        .then(|| {
            h["permissionDecisionReason"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
}

#[test]
fn a_panic_before_the_answer_gives_the_fail_closed_answer() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("home")).unwrap();
    // Before the event is read, its name is not known: exit 2 with the reason
    // on stderr is Claude Code's block for any event.
    for stage in ["load", "read", "host"] {
        let out = run(project.path(), stage, "ls", &[]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stage}: {stderr}");
        assert!(out.stdout.is_empty(), "{stage}: {}", text(&out.stdout));
        assert!(
            stderr.contains("hookrules (fail-closed): internal error"),
            "{stage}: {stderr}"
        );
        assert!(
            stderr.contains(&format!("injected for a test at stage `{stage}`")),
            "{stage}: {stderr}"
        );
    }
    // Named on the command line (as `init` registers other hosts), the event
    // is known from the start: the answer is the event's own deny.
    for stage in ["load", "read", "host"] {
        let out = run(
            project.path(),
            stage,
            "ls",
            &["--host", "claude", "--event", "PreToolUse"],
        );
        let reason = denies(&out)
            .unwrap_or_else(|| panic!("{stage}: {} / {}", text(&out.stdout), text(&out.stderr)));
        assert!(reason.contains("internal error"), "{stage}: {reason}");
    }
    // Once the event is read: a harmless command is denied (fail-closed), with
    // the reason the user and the agent can act on.
    for stage in ["evaluate", "allow-once"] {
        let out = run(project.path(), stage, "ls", &[]);
        let reason = denies(&out)
            .unwrap_or_else(|| panic!("{stage}: {} / {}", text(&out.stdout), text(&out.stderr)));
        assert!(
            reason.contains("hookrules (fail-closed): internal error"),
            "{stage}: {reason}"
        );
        assert!(text(&out.stderr).contains("please report it"), "{stage}");
    }
}

#[test]
fn a_panic_after_the_answer_keeps_the_answer() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("home")).unwrap();
    // The decision log and the side effects run after the answer is printed: a
    // panic there leaves the answer as it was (a deny here, logged), with the
    // answer's exit status, and says so on stderr.
    for stage in ["log", "effects"] {
        let out = run(project.path(), stage, "rm -rf /", &[]);
        let reason = denies(&out)
            .unwrap_or_else(|| panic!("{stage}: {} / {}", text(&out.stdout), text(&out.stderr)));
        assert!(!reason.contains("internal error"), "{stage}: {reason}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains("internal error"), "{stage}: {stderr}");
        assert!(
            stderr.contains(&format!("stage `{stage}`")),
            "{stage}: {stderr}"
        );
    }
    // ... and a harmless command stays allowed in silence.
    let out = run(project.path(), "effects", "ls", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn without_a_panic_the_switch_changes_nothing() {
    let project = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(project.path().join("home")).unwrap();
    let out = run(project.path(), "no-such-stage", "ls", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
}
