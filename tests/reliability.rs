//! Reliability and security of `hookrules run`, tested on the real binary.
//!
//! Each test feeds the process one hostile input, fault or race and checks what
//! the README promises: one JSON answer (or nothing) and exit 0, a clear message
//! on stderr, the policy's own failure mode (`fail-open`: carry on; `fail-closed`:
//! a JSON block for an event that can be blocked, else exit 2 with the reason on
//! stderr), never a panic, never a hang, and nothing read, written or run outside
//! what the policy allows.
//!
//! Every child runs under a 60 s watchdog ([`Sandbox::spawn`]); every answer is
//! checked for "panicked at". Policies are written inline, next to the test that
//! uses them. Only std and `tempfile`: answers are read with the small JSON
//! reader at the end of this file.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_hookrules");
/// No single `hookrules run` may take longer than this.
const WATCHDOG: Duration = Duration::from_secs(60);

// ---------------------------------------------------------------------------
// Policies shared by the stdin tests: one rule that never matches, so every
// visible outcome comes from the failure mode alone.
// ---------------------------------------------------------------------------

const FAIL_OPEN: &str = r#"
[policy]
name = "open"
failure = "fail-open"

[[rule]]
id = "never"
events = ["PreToolUse", "PostToolUse"]
when = { field = "tool_name", equals = "NoSuchTool" }
decision = "deny"
reason = "never"
"#;

const FAIL_CLOSED: &str = r#"
[policy]
name = "closed"
failure = "fail-closed"

[[rule]]
id = "never"
events = ["PreToolUse", "PostToolUse"]
when = { field = "tool_name", equals = "NoSuchTool" }
decision = "deny"
reason = "never"
"#;

/// What a fail-closed policy must answer for an input it cannot evaluate.
#[derive(Debug, Clone, Copy)]
enum Closed {
    /// No usable event name: exit 2, the reason on stderr.
    Exit2,
    /// PreToolUse named: `permissionDecision: deny`.
    Deny,
    /// A top-level blocking event named: `decision: block`.
    Block,
    /// An event that cannot be blocked: nothing on stdout, exit 0.
    NotBlockable,
}

/// Run bad stdin under a fail-open and a fail-closed policy and check both.
fn stdin_fault(input: &[u8], message: &str, closed: Closed) {
    let sb = Sandbox::new();
    let open = sb.policy("open.toml", FAIL_OPEN);
    let out = sb.run(&[&open], input);
    out.assert_fail_open(message);

    let shut = sb.policy("closed.toml", FAIL_CLOSED);
    let out = sb.run(&[&shut], input);
    assert!(
        out.stderr.contains(message),
        "fail-closed: stderr should say {message:?}: {out:?}"
    );
    match closed {
        Closed::Exit2 => out.assert_exit2(message),
        Closed::Deny => {
            let reason = out.assert_denied();
            assert!(
                reason.contains(message),
                "deny reason should say {message:?}: {out:?}"
            );
        }
        Closed::Block => {
            let reason = out.assert_top_level_block();
            assert!(
                reason.contains(message),
                "block reason should say {message:?}: {out:?}"
            );
        }
        Closed::NotBlockable => {
            assert_eq!(out.code, Some(0), "{out:?}");
            assert_eq!(out.stdout, "", "{out:?}");
            assert!(out.stderr.contains("cannot be blocked"), "{out:?}");
        }
    }
}

// ===========================================================================
// stdin
// ===========================================================================

#[test]
fn stdin_empty() {
    stdin_fault(b"", "stdin is empty", Closed::Exit2);
}

#[test]
fn stdin_whitespace_only() {
    stdin_fault(b"  \n\t\r\n   \n", "stdin is empty", Closed::Exit2);
}

#[test]
fn stdin_truncated_json() {
    let full = pre_bash("/p", "ls -la");
    let cut = &full.as_bytes()[..full.len() - 9];
    // The event name can still be read: a proper JSON block for each kind of event.
    stdin_fault(cut, "not valid JSON", Closed::Deny);
    let post = br#"{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":{"stdout":"ab"#;
    stdin_fault(post, "not valid JSON", Closed::Block);
    let start = br#"{"session_id":"s","hook_event_name":"SessionStart","source":"star"#;
    stdin_fault(start, "not valid JSON", Closed::NotBlockable);
    // Cut before the name: nothing to build JSON for.
    stdin_fault(
        br#"{"session_id":"s","cwd":"/tm"#,
        "not valid JSON",
        Closed::Exit2,
    );
}

#[test]
fn stdin_json_array_string_number_null() {
    stdin_fault(
        b"[1, 2, 3]",
        "stdin is JSON an array, not an object",
        Closed::Exit2,
    );
    stdin_fault(
        br#""PreToolUse""#,
        "stdin is JSON a string, not an object",
        Closed::Exit2,
    );
    stdin_fault(
        b"42",
        "stdin is JSON a number, not an object",
        Closed::Exit2,
    );
    stdin_fault(b"null", "stdin is JSON null, not an object", Closed::Exit2);
    stdin_fault(
        b"true",
        "stdin is JSON a boolean, not an object",
        Closed::Exit2,
    );
}

#[test]
fn stdin_object_without_hook_event_name() {
    stdin_fault(
        br#"{"session_id":"s","tool_name":"Bash","tool_input":{"command":"rm -rf /"}}"#,
        "no string `hook_event_name`",
        Closed::Exit2,
    );
    stdin_fault(
        br#"{"hook_event_name":42,"tool_name":"Bash"}"#,
        "no string `hook_event_name`",
        Closed::Exit2,
    );
}

#[test]
fn stdin_invalid_utf8() {
    let mut bytes =
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm "#
            .to_vec();
    bytes.extend_from_slice(&[0xff, 0xfe, 0xc3, 0x28]);
    bytes.extend_from_slice(br#""}}"#);
    stdin_fault(&bytes, "not UTF-8", Closed::Deny);
    stdin_fault(
        &[0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1],
        "not UTF-8",
        Closed::Exit2,
    );
}

#[test]
fn stdin_100_mb_event_is_answered() {
    // A PostToolUse whose tool_response is a 100 MB string, with the needle at
    // the very end: the rule must see all of it and answer, not crash.
    let sb = Sandbox::new();
    let p = sb.policy(
        "big.toml",
        r#"
[policy]
name = "big"
failure = "fail-closed"

[[rule]]
id = "needle"
events = ["PostToolUse"]
matcher = "Bash"
when = { field = "tool_response", contains = "NEEDLE-AT-THE-END" }
decision = "block"
reason = "found the needle in {{ event.tool_name }} output"
"#,
    );
    let mut ev = Vec::with_capacity(101 << 20);
    ev.extend_from_slice(
        br#"{"session_id":"s","cwd":"/","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"yes"},"tool_response":""#,
    );
    ev.resize(ev.len() + (100 << 20), b'y');
    ev.extend_from_slice(br#"NEEDLE-AT-THE-END"}"#);
    let out = sb.run(&[&p], ev);
    let reason = out.assert_top_level_block();
    assert_eq!(reason, "found the needle in Bash output", "{out:?}");
}

#[test]
fn stdin_over_256_mib_is_refused_not_truncated() {
    let sb = Sandbox::new();
    let mut ev = Vec::with_capacity((256 << 20) + 64);
    ev.extend_from_slice(
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":""#,
    );
    ev.resize((256 << 20) + 16, b'x');
    ev.extend_from_slice(br#""}}"#);
    let open = sb.policy("open.toml", FAIL_OPEN);
    sb.run(&[&open], ev.clone()).assert_fail_open("larger than");
    let shut = sb.policy("closed.toml", FAIL_CLOSED);
    sb.run(&[&shut], ev).assert_exit2("larger than");
}

#[test]
fn stdin_deeply_nested_json_does_not_overflow_the_stack() {
    // 100k `[`: no event at all.
    let deep = "[".repeat(100_000);
    stdin_fault(deep.as_bytes(), "not valid JSON", Closed::Exit2);
    // 100k levels inside a PreToolUse, closed properly: still refused, and the
    // event name is still read for a proper deny.
    let nested = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"ls","x":{}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    stdin_fault(nested.as_bytes(), "not valid JSON", Closed::Deny);
    let objects = format!(
        r#"{{"hook_event_name":"PreToolUse","tool_input":{}1{}}}"#,
        r#"{"a":"#.repeat(100_000),
        "}".repeat(100_000)
    );
    stdin_fault(objects.as_bytes(), "not valid JSON", Closed::Deny);
}

#[test]
fn stdin_deeply_nested_shell_command_against_the_builtin_pack() {
    // Valid JSON, hostile shell: the command parser recurses on `$(`, `(`, `{`
    // and `bash -c`. The built-in pack must answer, whatever it decides.
    let sb = Sandbox::new();
    let mut bash_c = String::from("rm -rf /");
    for _ in 0..10 {
        bash_c = format!("bash -c {}", sh_quote(&bash_c));
    }
    for cmd in [
        "$(".repeat(50_000),
        format!("{}ls{}", "$(".repeat(20_000), ")".repeat(20_000)),
        format!("{}ls{}", "(".repeat(50_000), ")".repeat(50_000)),
        "{ ".repeat(50_000),
        "`".repeat(50_000),
        format!("echo {}", "\"$(echo ".repeat(5_000)),
        "a|".repeat(100_000),
        bash_c,
    ] {
        let out = sb.run(
            &[
                Path::new("builtin:destructive"),
                Path::new("builtin:secrets"),
            ],
            pre_bash(&sb.project_s(), &cmd),
        );
        assert_eq!(out.code, Some(0), "{out:?}");
        if !out.stdout.is_empty() {
            parse_json(&out.stdout).unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {out:?}"));
        }
    }
}

#[test]
fn stdin_unknown_event_answers_with_top_level_fields_only() {
    let sb = Sandbox::new();
    let p = sb.policy(
        "future.toml",
        r#"
[policy]
name = "future"
failure = "fail-closed"

[[rule]]
id = "greet"
events = ["+FutureEvent"]
when = { field = "hook_event_name", equals = "FutureEvent" }
decision = "block"
reason = "cannot block what I do not know"
message = "saw {{ event.hook_event_name }}"
context = "context has nowhere to go"
"#,
    );
    let out = sb.run(
        &[&p],
        r#"{"session_id":"s","cwd":"/","hook_event_name":"FutureEvent","payload":{"x":1}}"#,
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let j = out.json();
    assert_eq!(
        j.at("systemMessage").and_then(J::str),
        Some("saw FutureEvent"),
        "{out:?}"
    );
    assert!(
        j.at("hookSpecificOutput").is_none(),
        "no hookSpecificOutput for an unknown event: {out:?}"
    );
    assert!(
        j.at("decision").is_none(),
        "an unknown event cannot be blocked: {out:?}"
    );
    assert!(
        out.stderr.contains("unknown event `FutureEvent`"),
        "{out:?}"
    );
}

#[test]
fn stdin_fields_of_the_wrong_type_against_every_example_policy() {
    // Every field the policies read, with the wrong JSON type, for the events the
    // examples handle. PATH points nowhere so command facts fail fast.
    let sb = Sandbox::new();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut sets: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path().join("policies"))
        .filter(|p| p.is_dir())
        .collect();
    sets.sort();
    assert!(sets.len() >= 5, "{sets:?}");
    let weird = r#""session_id":1.5,"transcript_path":3,"cwd":[],"permission_mode":{},"tool_name":5,"tool_input":"str","tool_response":null,"tool_use_id":false,"agent_id":7,"agent_type":{"a":[]},"agent_transcript_path":[1],"prompt":{"a":1},"source":false,"trigger":0,"stop_hook_active":"yes","last_assistant_message":["x"],"tool_calls":"none""#;
    let names = [
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SubagentStop",
        "SubagentStart",
        "UserPromptSubmit",
        "SessionStart",
        "PreCompact",
        "PermissionRequest",
        "Notification",
    ];
    for set in &sets {
        for name in names {
            let ev = format!(r#"{{"hook_event_name":"{name}",{weird}}}"#);
            let out = sb.run_env(&[set], ev, &[("PATH", "/nonexistent")]);
            assert_eq!(out.code, Some(0), "{} / {name}: {out:?}", set.display());
            if !out.stdout.is_empty() {
                out.json();
            }
        }
    }
}

#[test]
fn stdin_lone_surrogate_escape_is_evaluated_not_failed() {
    // `\ud83d` without its pair is valid JSON grammar (RFC 8259 §8.2), and what
    // JSON.stringify writes for a JS string holding half an emoji. Refusing the
    // event hands the decision to the failure mode: with a fail-open policy, a
    // command the rules deny then runs unchecked.
    let sb = Sandbox::new();
    let p = sb.policy(
        "guard.toml",
        r#"
[policy]
name = "guard"
failure = "fail-open"

[[rule]]
id = "no-rm-rf"
events = ["PreToolUse"]
matcher = "Bash"
when = { field = "tool_input.command", matches = ['rm -rf'] }
decision = "deny"
reason = "no rm -rf"
"#,
    );
    let ev = format!(
        r#"{{"session_id":"s","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"rm -rf ~/work # \ud83d"}}}}"#,
        js(&sb.project_s())
    );
    let out = sb.run(&[&p], ev);
    assert_eq!(
        out.assert_denied(),
        "no rm -rf",
        "the rule was bypassed: {out:?}"
    );
}

#[test]
fn transcript_path_that_is_a_fifo_does_not_hang() {
    // The event names the transcript; a FIFO there (or /dev/tty) must not wedge
    // the hook until the client kills it (which the client treats as "carry on",
    // whatever the policy's failure mode).
    let sb = Sandbox::new();
    let fifo = sb.root.join("transcript.jsonl");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let p = sb.policy(
        "gate.toml",
        r#"
[policy]
name = "gate"
failure = "fail-closed"

[facts.said]
kind = "last_assistant_message"

[[rule]]
id = "claims-done"
events = ["Stop"]
when = { fact = "said", matches = ['(?i)all done'] }
decision = "block"
reason = "prove it"
"#,
    );
    let ev = format!(
        r#"{{"session_id":"s","cwd":{},"hook_event_name":"Stop","transcript_path":{},"stop_hook_active":false}}"#,
        js(&sb.project_s()),
        js(&fifo.display().to_string())
    );
    let out = sb.spawn(&[&p], ev).wait_for(Duration::from_secs(10));
    assert_eq!(out.code, Some(0), "{out:?}");
}

// ===========================================================================
// policies
// ===========================================================================

/// A policy whose one rule denies every Bash command, used next to broken files
/// to show the broken file's failure mode (and only it) decides.
fn broken_policy_case(name: &str, text: &[u8], message: &str) {
    let sb = Sandbox::new();
    let ev = pre_bash(&sb.project_s(), "ls");
    for (mode, expect_block) in [("fail-open", false), ("fail-closed", true)] {
        let mut body = format!("[policy]\nname = \"{name}\"\nfailure = \"{mode}\"\n").into_bytes();
        body.extend_from_slice(text);
        let path = sb.policies.join(format!("{name}-{mode}.toml"));
        std::fs::write(&path, &body).unwrap();
        let out = sb.run(&[&path], ev.as_str());
        assert_eq!(out.code, Some(0), "{mode}: {out:?}");
        if expect_block {
            let reason = out.assert_denied();
            assert!(
                reason.contains(message),
                "{mode}: the reason should say {message:?}: {out:?}"
            );
        } else {
            out.assert_not_blocked();
            assert!(
                out.stderr.contains(message),
                "{mode}: stderr should say {message:?}: {out:?}"
            );
        }
    }
}

#[test]
fn policy_missing_file_fails_closed_and_names_it() {
    // A file that is not there cannot say it is fail-open: fail-closed applies,
    // even next to a healthy fail-open policy.
    let sb = Sandbox::new();
    let open = sb.policy("open.toml", FAIL_OPEN);
    let missing = sb.policies.join("missing.toml");
    let out = sb.run(&[&open, &missing], pre_bash(&sb.project_s(), "ls"));
    let reason = out.assert_denied();
    assert!(reason.contains("missing.toml"), "{out:?}");
    // And for input that cannot be evaluated: exit 2.
    sb.run(&[&open, &missing], "")
        .assert_exit2("stdin is empty");
}

#[test]
fn policy_unreadable_file_fails_closed() {
    let sb = Sandbox::new();
    let ev = pre_bash(&sb.project_s(), "ls");
    // chmod 000. As root the file stays readable: then this half is skipped.
    let p = sb.policy("locked.toml", FAIL_OPEN);
    std::fs::set_permissions(&p, std::os::unix::fs::PermissionsExt::from_mode(0o000)).unwrap();
    if std::fs::read(&p).is_ok() {
        eprintln!("note: running as root, chmod 000 does not stop reads; chmod half skipped");
    } else {
        let reason = sb.run(&[&p], ev.as_str()).assert_denied();
        assert!(reason.contains("locked.toml"), "{reason}");
    }
    // Unreadable even for root: reading /proc/self/mem from offset 0 fails (EIO).
    let out = sb.run(&[Path::new("/proc/self/mem")], ev.as_str());
    let reason = out.assert_denied();
    assert!(
        reason.contains("cannot read policy /proc/self/mem"),
        "{out:?}"
    );
}

#[test]
fn policy_invalid_utf8_honours_its_failure_mode() {
    // README: the `failure` line is honoured even when the rest is broken. A
    // fail-open file with one stray Latin-1 byte in a comment must not block.
    let mut text = b"# caf\xe9 (Latin-1, not UTF-8)\n".to_vec();
    text.extend_from_slice(
        br#"
[[rule]]
id = "never"
events = ["PreToolUse"]
when = { field = "tool_name", equals = "NoSuchTool" }
decision = "deny"
reason = "never"
"#,
    );
    broken_policy_case("latin1", &text, "not UTF-8");
}

#[test]
fn policy_toml_syntax_error_honours_its_failure_mode() {
    broken_policy_case(
        "syntax",
        br#"
[[rule]
id = "r"
events = ["PreToolUse"]
decision = "deny"
"#,
        "HR",
    );
}

#[test]
fn policy_broken_regex_in_a_reachable_rule_honours_its_failure_mode() {
    broken_policy_case(
        "regex",
        br#"
[[rule]]
id = "bad-regex"
events = ["PreToolUse"]
matcher = "Bash"
when = { field = "tool_input.command", matches = ['rm (-rf'] }
decision = "deny"
reason = "should never be seen"
"#,
        "bad-regex",
    );
}

#[test]
fn policy_half_written_file_honours_its_failure_mode() {
    let rules = r#"
[[rule]]
id = "first"
events = ["PreToolUse"]
when = { field = "tool_name", equals = "NoSuchTool" }
decision = "deny"
reason = "never"

[[rule]]
id = "second"
events = ["PreToolUse"]
matcher = "Bash"
when = { field = "tool_input.command", matches = ['^never$'] }
decision = "deny"
reason = "never"
"#;
    // Cut in the middle of the second table: inside an inline table...
    let cut = rules.find("tool_input.co").unwrap() + "tool_input.co".len();
    broken_policy_case("cut-inline", &rules.as_bytes()[..cut], "HR");
    // ...and right after its id: valid TOML, but a rule with no events.
    let cut = rules.find("id = \"second\"").unwrap() + "id = \"second\"\n".len();
    broken_policy_case(
        "cut-table",
        &rules.as_bytes()[..cut],
        "a rule needs `events`",
    );
}

#[test]
fn policy_replaced_while_being_read_gives_one_of_the_two_versions() {
    // A writer replaces the policy (temporary file + rename) between two valid
    // versions as fast as it can while 200 runs read it.
    let sb = Sandbox::new();
    let version = |v: &str, decision: &str| {
        format!(
            r#"
[policy]
name = "live"
failure = "fail-closed"

[[rule]]
id = "live-{v}"
events = ["PreToolUse"]
matcher = "Bash"
when = {{ field = "tool_input.command", matches = ['^ls'] }}
decision = "{decision}"
reason = "version {v}"
"#
        )
    };
    let a = version("A", "deny");
    let b = version("B", "ask");
    let path = sb.policy("live.toml", &a);
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (stop, swaps, path) = (stop.clone(), swaps.clone(), path.clone());
        let tmp = sb.policies.join(".live.toml.tmp");
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !stop.load(Ordering::Relaxed) {
                std::fs::write(&tmp, if i % 2 == 0 { &b } else { &a }).unwrap();
                std::fs::rename(&tmp, &path).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
        })
    };
    let ev = pre_bash(&sb.project_s(), "ls -la");
    let (mut seen_a, mut seen_b) = (0, 0);
    for _ in 0..200 {
        let out = sb.run(&[&path], ev.as_str());
        assert_eq!(out.code, Some(0), "{out:?}");
        let j = out.json();
        let d = j
            .at("hookSpecificOutput.permissionDecision")
            .and_then(J::str);
        let r = j
            .at("hookSpecificOutput.permissionDecisionReason")
            .and_then(J::str);
        match (d, r) {
            (Some("deny"), Some("version A")) => seen_a += 1,
            (Some("ask"), Some("version B")) => seen_b += 1,
            _ => panic!("neither version: {out:?}"),
        }
        assert!(out.stderr.is_empty(), "no errors expected: {out:?}");
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    eprintln!(
        "policy swap: {} renames, answers A={seen_a} B={seen_b}",
        swaps.load(Ordering::Relaxed)
    );
}

// ===========================================================================
// commands
// ===========================================================================

#[test]
fn command_fact_that_sleeps_is_killed_with_its_process_group() {
    for (mode, blocks) in [("fail-closed", true), ("fail-open", false)] {
        let sb = Sandbox::new();
        let marker = unique_sleep();
        let p = sb.policy(
            "slow.toml",
            &format!(
                r#"
[policy]
name = "slow"
failure = "{mode}"

[facts.slow]
kind = "command"
argv = ["sh", "-c", "sleep {marker} & sleep {marker}; echo never"]
timeout_ms = 300

[[rule]]
id = "needs-slow"
events = ["PreToolUse"]
matcher = "Bash"
when = {{ fact = "slow.ok", equals = true }}
decision = "deny"
reason = "the slow command said ok"
"#
            ),
        );
        let out = sb.run(&[&p], pre_bash(&sb.project_s(), "ls"));
        assert!(
            out.took < Duration::from_secs(5),
            "{mode}: took {:?}",
            out.took
        );
        if blocks {
            let reason = out.assert_denied();
            assert!(reason.contains("timed out after 300 ms"), "{out:?}");
        } else {
            out.assert_not_blocked();
            assert!(out.stderr.contains("timed out after 300 ms"), "{out:?}");
        }
        assert_no_survivors(&marker);
    }
}

#[test]
fn run_effect_that_sleeps_is_killed_with_its_process_group() {
    for (mode, blocks) in [("fail-closed", true), ("fail-open", false)] {
        let sb = Sandbox::new();
        let marker = unique_sleep();
        let p = sb.policy(
            "slow.toml",
            &format!(
                r#"
[policy]
name = "slow"
failure = "{mode}"

[[rule]]
id = "allow-and-run"
events = ["PreToolUse"]
matcher = "Bash"
when = {{ field = "tool_input.command", equals = "ls" }}
decision = "allow"

[[rule.effects]]
kind = "run"
argv = ["sh", "-c", "sleep {marker} & sleep {marker}"]
timeout_ms = 300
"#
            ),
        );
        let out = sb.run(&[&p], pre_bash(&sb.project_s(), "ls"));
        assert!(
            out.took < Duration::from_secs(5),
            "{mode}: took {:?}",
            out.took
        );
        if blocks {
            let reason = out.assert_denied();
            assert!(reason.contains("timed out after 300 ms"), "{out:?}");
        } else {
            let j = out.json();
            assert_eq!(
                j.at("hookSpecificOutput.permissionDecision")
                    .and_then(J::str),
                Some("allow"),
                "{out:?}"
            );
            assert!(out.stderr.contains("timed out after 300 ms"), "{out:?}");
        }
        assert_no_survivors(&marker);
    }
}

#[test]
fn command_fact_whose_background_child_holds_stdout_keeps_its_output() {
    // `sh` prints and exits at once, leaving a child that holds stdout open.
    // The fact must return promptly with what was printed, and leave no process.
    let sb = Sandbox::new();
    let marker = unique_sleep();
    let p = sb.policy(
        "bg.toml",
        &format!(
            r#"
[policy]
name = "bg"
failure = "fail-closed"

[facts.bg]
kind = "command"
argv = ["sh", "-c", "sleep {marker} & echo printed-before-exit"]
timeout_ms = 5000

[[rule]]
id = "show"
events = ["PreToolUse"]
matcher = "Bash"
when = {{ fact = "bg.ok", equals = true }}
decision = "deny"
reason = "stdout=[{{{{ facts.bg.stdout | trim }}}}]"
"#
        ),
    );
    let out = sb.run(&[&p], pre_bash(&sb.project_s(), "ls"));
    let survivors = processes_with(&marker);
    kill_all(&survivors);
    assert!(out.took < Duration::from_secs(5), "took {:?}", out.took);
    let reason = out.assert_denied();
    assert_eq!(
        reason, "stdout=[printed-before-exit]",
        "the output was lost: {out:?}"
    );
    assert!(
        survivors.is_empty(),
        "left running after the hook answered: {survivors:?}"
    );
}

// ===========================================================================
// effects
// ===========================================================================

#[test]
fn write_file_is_atomic_under_200_rewrites_of_1_mb() {
    const SIZE: usize = 1 << 20;
    let sb = Sandbox::new();
    let p = sb.policy(
        "writer.toml",
        r#"
[policy]
name = "writer"
failure = "fail-closed"

[[rule]]
id = "save"
events = ["PreToolUse"]
matcher = "Write"
when = { field = "tool_input.file_path", equals = "big.txt" }
decision = "allow"

[[rule.effects]]
kind = "write_file"
path = "state/big.txt"
content = "{{ event.tool_input.content }}"
"#,
    );
    let target = sb.project.join("state/big.txt");
    let stop = Arc::new(AtomicBool::new(false));
    let reader = {
        let (stop, target) = (stop.clone(), target.clone());
        std::thread::spawn(move || {
            let (mut reads, mut torn) = (0usize, vec![]);
            while !stop.load(Ordering::Relaxed) {
                if let Ok(bytes) = std::fs::read(&target) {
                    reads += 1;
                    let whole = bytes.len() == SIZE && bytes.iter().all(|b| *b == bytes[0]);
                    if !whole {
                        torn.push((bytes.len(), bytes.first().copied(), bytes.last().copied()));
                    }
                }
            }
            (reads, torn)
        })
    };
    let workers: Vec<JoinHandle<()>> = (0..2)
        .map(|w| {
            let (p, project) = (p.clone(), sb.project.clone());
            let sb = sb.clone_handle();
            std::thread::spawn(move || {
                for i in 0..100 {
                    let fill = (b'a' + ((w * 100 + i) % 26) as u8) as char;
                    let ev = format!(
                        r#"{{"session_id":"s","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":"big.txt","content":"{}"}}}}"#,
                        js(&project.display().to_string()),
                        fill.to_string().repeat(SIZE)
                    );
                    let out = sb.run(&[&p], ev);
                    assert_eq!(out.code, Some(0), "{out:?}");
                    assert!(out.stdout.contains(r#""permissionDecision":"allow""#), "{out:?}");
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Relaxed);
    let (reads, torn) = reader.join().unwrap();
    eprintln!("write_file: {reads} whole reads during 200 rewrites");
    assert!(torn.is_empty(), "the reader saw partial files: {torn:?}");
    assert!(reads > 0, "the reader never saw the file");
    let left: Vec<_> = std::fs::read_dir(sb.project.join("state"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        left,
        vec![std::ffi::OsString::from("big.txt")],
        "temporary files left behind"
    );
}

#[test]
fn append_jsonl_from_50_processes_at_once_loses_and_interleaves_nothing() {
    const PROCS: usize = 50;
    const LINES: usize = 20;
    let sb = Sandbox::new();
    // One rule, twenty appends: each process writes 20 lines of ~4 KB.
    let mut policy = String::from(
        r#"
[policy]
name = "metrics"
failure = "fail-closed"

[[rule]]
id = "record"
events = ["PostToolUse"]
when = { field = "tool_name", equals = "Bash" }
"#,
    );
    for n in 0..LINES {
        policy.push_str(&format!(
            r#"
[[rule.effects]]
kind = "append_jsonl"
path = "logs/all.jsonl"
record = {{ worker = "{{{{ event.session_id }}}}", n = {n}, pad = "{{{{ event.tool_input.pad }}}}" }}
"#
        ));
    }
    let p = sb.policy("metrics.toml", &policy);
    let children: Vec<Running> = (0..PROCS)
        .map(|w| {
            let pad = ((b'A' + (w % 26) as u8) as char).to_string().repeat(4000);
            let ev = format!(
                r#"{{"session_id":"w{w}","cwd":{},"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{{"command":"true","pad":"{pad}"}},"tool_response":{{}}}}"#,
                js(&sb.project_s())
            );
            sb.spawn(&[&p], ev)
        })
        .collect();
    for c in children {
        let out = c.wait();
        assert_eq!(out.code, Some(0), "{out:?}");
        assert_eq!(out.stdout, "", "{out:?}");
    }
    let text = std::fs::read_to_string(sb.project.join("logs/all.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "last line incomplete");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), PROCS * LINES, "lines lost or split");
    let mut seen = BTreeSet::new();
    for (i, line) in lines.iter().enumerate() {
        let j = parse_json(line)
            .unwrap_or_else(|e| panic!("line {i} is not JSON ({e}): {:.120}", line));
        let worker = j.at("worker").and_then(J::str).expect("worker").to_string();
        let n = j.at("n").and_then(J::num).expect("n") as usize;
        let pad = j.at("pad").and_then(J::str).expect("pad");
        let w: usize = worker[1..].parse().unwrap();
        let want = (b'A' + (w % 26) as u8) as char;
        assert!(
            pad.len() == 4000 && pad.chars().all(|c| c == want),
            "line {i}: pad mixed with another process"
        );
        assert!(seen.insert((worker, n)), "line {i} duplicated");
    }
    assert_eq!(seen.len(), PROCS * LINES);
}

#[test]
fn write_file_content_keeps_its_trailing_newline() {
    // Templates drop one trailing newline by default (minijinja); file content
    // and argv elements must come out exactly as written.
    let sb = Sandbox::new();
    let p = sb.policy(
        "nl.toml",
        r#"
[policy]
name = "nl"
failure = "fail-closed"

[[rule]]
id = "save"
events = ["SessionStart"]
when = { field = "source", exists = true }
context = "canary"

[[rule.effects]]
kind = "write_file"
path = "notes.md"
content = """
# Notes
source: {{ event.source }}
"""
"#,
    );
    let out = sb.run(
        &[&p],
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"SessionStart","source":"startup"}}"#,
            js(&sb.project_s())
        ),
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    let text = std::fs::read_to_string(sb.project.join("notes.md")).unwrap();
    assert_eq!(text, "# Notes\nsource: startup\n");
}

// ===========================================================================
// security
// ===========================================================================

#[test]
fn template_values_never_become_shell_code_or_options() {
    let sb = Sandbox::new();
    let out_dir = sb.outside_s();
    let p = sb.policy(
        "argv.toml",
        r#"
[policy]
name = "argv"
failure = "fail-closed"

[facts.echo]
kind = "command"
argv = ["printf", "<%s>", "{{ event.tool_input.command }}", "--label={{ event.tool_input.description }}"]

[[rule]]
id = "show"
events = ["PreToolUse"]
matcher = "Bash"
when = { fact = "echo.ok", equals = true }
decision = "deny"
reason = "{{ facts.echo.stdout }}"

[[rule.effects]]
kind = "run"
argv = ["sh", "-c", "printf '%s' \"$1\" > effect-arg.txt", "sh", "{{ event.tool_input.command }}"]
"#,
    );
    let hostile = [
        format!("; touch {out_dir}/pwned-semicolon"),
        format!("$(touch {out_dir}/pwned-subst)"),
        format!("`touch {out_dir}/pwned-backtick`"),
        format!("x' ; touch {out_dir}/pwned-quote ; '"),
        format!("--output={out_dir}/pwned-option"),
        format!("a b --output={out_dir}/pwned-split\ntouch {out_dir}/pwned-newline"),
        format!("| touch {out_dir}/pwned-pipe && touch {out_dir}/pwned-and"),
    ];
    for value in &hostile {
        let desc = format!("x --output={out_dir}/pwned-desc");
        let ev = format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":{},"description":{}}}}}"#,
            js(&sb.project_s()),
            js(value),
            js(&desc)
        );
        let _ = std::fs::remove_file(sb.project.join("effect-arg.txt"));
        let out = sb.run(&[&p], ev);
        let reason = out.assert_denied();
        if value.starts_with('-') {
            // A whole argument from event data that would read as an option is
            // refused: the fact fails (fail-closed), nothing runs.
            assert!(
                reason.contains("refusing to pass event data as an option"),
                "{out:?}"
            );
            assert!(!sb.project.join("effect-arg.txt").exists());
        } else {
            // Exactly two arguments reached printf, each verbatim.
            assert_eq!(reason, format!("<{value}><--label={desc}>"), "{out:?}");
            let arg = std::fs::read_to_string(sb.project.join("effect-arg.txt")).unwrap();
            assert_eq!(&arg, value, "the run effect got a different argument");
        }
        sb.assert_outside_untouched();
    }
    // A NUL byte cannot be passed at all: the fact fails (fail-closed), nothing runs.
    let ev = format!(
        r#"{{"session_id":"s","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":"a\u0000; touch {out_dir}/pwned-nul","description":"d"}}}}"#,
        js(&sb.project_s())
    );
    let reason = sb.run(&[&p], ev).assert_denied();
    assert!(reason.contains("failed"), "{reason}");
    sb.assert_outside_untouched();
}

#[test]
fn event_data_after_double_dash_is_an_operand_not_refused() {
    // After `--` nothing is an option: a file really named `-notes.md` must reach
    // the command, not fail the fact (which, fail-closed, blocks the edit).
    let sb = Sandbox::new();
    let p = sb.policy(
        "dd.toml",
        r#"
[policy]
name = "dd"
failure = "fail-closed"

[facts.listed]
kind = "command"
argv = ["ls", "-d", "--", "{{ event.tool_input.file_path }}"]

[[rule]]
id = "exists"
events = ["PreToolUse"]
matcher = "Edit"
when = { fact = "listed.ok", equals = true }
decision = "allow"
reason = "{{ facts.listed.stdout | trim }}"
"#,
    );
    std::fs::write(sb.project.join("-notes.md"), "x").unwrap();
    let ev = format!(
        r#"{{"session_id":"s","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{{"file_path":"-notes.md","old_string":"x","new_string":"y"}}}}"#,
        js(&sb.project_s())
    );
    let out = sb.run(&[&p], ev);
    let j = out.json();
    assert_eq!(
        j.at("hookSpecificOutput.permissionDecision")
            .and_then(J::str),
        Some("allow"),
        "{out:?}"
    );
    assert_eq!(
        j.at("hookSpecificOutput.permissionDecisionReason")
            .and_then(J::str),
        Some("-notes.md"),
        "{out:?}"
    );
}

/// A fail-open policy whose file fact's path is built from `agent_type`.
const SCRATCHPAD_FACT: &str = r#"
[policy]
name = "pad"
failure = "fail-open"

[facts.pad]
kind = "file"
path = ".claude/scratchpad/{{ event.agent_type }}/notes.md"
within = ".claude/scratchpad"
lines = 5

[facts.direct]
kind = "file"
path = "{{ event.last_assistant_message }}"
within = ".claude/scratchpad"
lines = 5

[[rule]]
id = "show-pad"
events = ["SubagentStop"]
when = { fact = "pad.exists", equals = true }
decision = "block"
reason = "pad: {{ facts.pad.head }}"

[[rule]]
id = "show-direct"
events = ["SubagentStop"]
when = { fact = "direct.exists", equals = true }
decision = "block"
reason = "direct: {{ facts.direct.head }}"
"#;

#[test]
fn file_fact_paths_from_event_data_cannot_leave_within() {
    let sb = Sandbox::new();
    let p = sb.policy("pad.toml", SCRATCHPAD_FACT);
    let pads = sb.project.join(".claude/scratchpad");
    std::fs::create_dir_all(pads.join("ok")).unwrap();
    std::fs::write(pads.join("ok/notes.md"), "fine notes").unwrap();
    // Inside the project but outside `within`, and outside the project.
    std::fs::create_dir_all(sb.project.join("etc")).unwrap();
    std::fs::write(sb.project.join("etc/notes.md"), SECRET).unwrap();
    std::fs::write(sb.outside.join("notes.md"), SECRET).unwrap();
    std::os::unix::fs::symlink(&sb.outside, pads.join("link")).unwrap();
    std::os::unix::fs::symlink(sb.outside.join("notes.md"), pads.join("file-link.md")).unwrap();
    let stop = |agent: &str, direct: &str| {
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"SubagentStop","agent_id":"a1","agent_type":{},"last_assistant_message":{},"stop_hook_active":false}}"#,
            js(&sb.project_s()),
            js(agent),
            js(direct)
        )
    };
    // The control: a legal path is read.
    let out = sb.run(&[&p], stop("ok", ".claude/scratchpad/none.md"));
    assert_eq!(out.assert_top_level_block(), "pad: fine notes", "{out:?}");
    let depth = "../".repeat(sb.project.components().count() + 3);
    let outside_abs = sb.outside.join("notes.md").display().to_string();
    // Each case has one hostile path; the other one is legal (and absent).
    let legal = ".claude/scratchpad/none.md";
    for (agent, direct) in [
        ("../../etc", legal),
        ("../../../outside", legal),
        (&format!("{depth}{}", sb.outside.display())[..], legal),
        ("link", legal),
        ("ok\u{0}/../../../../outside", legal),
        ("none", &outside_abs[..]),
        ("none", "../outside/notes.md"),
        ("none", ".claude/scratchpad/file-link.md"),
        ("none", ".claude/scratchpad/link/notes.md"),
        ("none", "/etc/passwd"),
    ] {
        let out = sb.run(&[&p], stop(agent, direct));
        assert!(
            !out.stdout.contains("TOP-SECRET") && !out.stderr.contains("TOP-SECRET"),
            "{agent:?} {direct:?}: read outside: {out:?}"
        );
        assert!(!out.stdout.contains("root:"), "{out:?}");
        out.assert_not_blocked();
        assert!(
            out.stderr.contains("outside") || out.stderr.contains("NUL"),
            "{agent:?} {direct:?}: the refusal should be reported: {out:?}"
        );
    }
}

#[test]
fn include_paths_from_event_data_stay_in_the_project() {
    let sb = Sandbox::new();
    let p = sb.policy(
        "inc.toml",
        r#"
[policy]
name = "inc"
failure = "fail-open"

[[rule]]
id = "include-prompt"
events = ["UserPromptSubmit"]
when = { field = "prompt", exists = true }
include = [{ path = "{{ event.prompt }}", title = "Included" }]
context = "canary"
"#,
    );
    std::fs::create_dir_all(sb.project.join("notes")).unwrap();
    std::fs::write(sb.project.join("notes/ok.md"), "project notes").unwrap();
    std::fs::write(sb.outside.join("secret.md"), SECRET).unwrap();
    std::os::unix::fs::symlink(
        sb.outside.join("secret.md"),
        sb.project.join("notes/link.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(&sb.outside, sb.project.join("notes/dir-link")).unwrap();
    let prompt = |path: &str| {
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"UserPromptSubmit","prompt":{}}}"#,
            js(&sb.project_s()),
            js(path)
        )
    };
    let ctx = |out: &Out| {
        out.json()
            .at("hookSpecificOutput.additionalContext")
            .and_then(J::str)
            .map(String::from)
    };
    let out = sb.run(&[&p], prompt("notes/ok.md"));
    assert_eq!(
        ctx(&out).as_deref(),
        Some("canary\n\nIncluded\nproject notes"),
        "{out:?}"
    );
    let secret_abs = sb.outside.join("secret.md").display().to_string();
    for path in [
        &secret_abs[..],
        "../outside/secret.md",
        "notes/../../outside/secret.md",
        "notes/link.md",
        "notes/dir-link/secret.md",
        "notes/ok.md\u{0}../../outside/secret.md",
        "/etc/passwd",
    ] {
        let out = sb.run(&[&p], prompt(path));
        assert_eq!(ctx(&out).as_deref(), Some("canary"), "{path:?}: {out:?}");
        assert!(
            !out.stdout.contains("TOP-SECRET") && !out.stdout.contains("root:"),
            "{out:?}"
        );
    }
}

#[test]
fn include_newest_glob_does_not_follow_a_symlink_out_of_the_project() {
    let sb = Sandbox::new();
    let p = sb.policy(
        "inc.toml",
        r#"
[policy]
name = "inc"
failure = "fail-open"

[[rule]]
id = "newest-note"
events = ["SessionStart"]
when = { field = "source", equals = "startup" }
include = [{ path = "notes/*.md", newest = true, title = "Latest note" }]
context = "canary"
"#,
    );
    std::fs::create_dir_all(sb.project.join("notes")).unwrap();
    std::fs::write(sb.project.join("notes/old.md"), "an old note").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(sb.outside.join("secret.md"), SECRET).unwrap();
    // A link inside the project, newer than the real note, pointing outside.
    std::os::unix::fs::symlink(
        sb.outside.join("secret.md"),
        sb.project.join("notes/zz-link.md"),
    )
    .unwrap();
    let out = sb.run(
        &[&p],
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"SessionStart","source":"startup"}}"#,
            js(&sb.project_s())
        ),
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(out.stdout.contains("canary"), "{out:?}");
    assert!(
        !out.stdout.contains("TOP-SECRET"),
        "include (newest = true) read a file outside the project through a symlink: {out:?}"
    );
}

/// Effects whose paths come from `agent_type` (fail-open, so nothing blocks).
const EFFECTS_FROM_EVENT: &str = r#"
[policy]
name = "fx"
failure = "fail-open"

[[rule]]
id = "write"
events = ["SubagentStart"]
when = { field = "agent_id", exists = true }
context = "canary"

[[rule.effects]]
kind = "write_file"
path = ".claude/out/{{ event.agent_type }}.txt"
within = ".claude/out"
content = "pwned"

[[rule.effects]]
kind = "write_json"
path = ".claude/out/{{ event.agent_type }}.json"
within = ".claude/out"
record = { pwned = true }

[[rule.effects]]
kind = "append_jsonl"
path = ".claude/out/{{ event.agent_type }}.jsonl"
within = ".claude/out"
record = { pwned = true }

[[rule.effects]]
kind = "delete_file"
path = ".claude/out/{{ event.agent_type }}.victim"
within = ".claude/out"

[[rule.effects]]
kind = "write_file"
path = "{{ event.agent_id }}"
within = ".claude/out"
content = "pwned"
"#;

#[test]
fn effect_paths_from_event_data_cannot_leave_within() {
    let sb = Sandbox::new();
    let p = sb.policy("fx.toml", EFFECTS_FROM_EVENT);
    let out_dir = sb.project.join(".claude/out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::os::unix::fs::symlink(&sb.outside, out_dir.join("link")).unwrap();
    std::fs::write(sb.outside.join("pwned.victim"), "keep me").unwrap();
    std::fs::write(sb.outside.join("existing.txt"), "keep me").unwrap();
    std::os::unix::fs::symlink(
        sb.outside.join("existing.txt"),
        out_dir.join("file-link.txt"),
    )
    .unwrap();
    std::fs::create_dir_all(sb.project.join("src")).unwrap();
    let start = |agent_type: &str, agent_id: &str| {
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"SubagentStart","agent_id":{},"agent_type":{}}}"#,
            js(&sb.project_s()),
            js(agent_id),
            js(agent_type)
        )
    };
    // The control: a legal name is written inside `within`.
    let out = sb.run(&[&p], start("ok", ".claude/out/ok-by-id"));
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out_dir.join("ok.txt").is_file()
            && out_dir.join("ok.json").is_file()
            && out_dir.join("ok-by-id").is_file()
    );
    let before = snapshot(&sb.root);
    let abs = sb.outside.join("pwned-abs").display().to_string();
    for (agent_type, agent_id) in [
        ("../../../outside/pwned", "x"),
        ("../../src/pwned", "x"),
        ("link/pwned", "x"),
        ("file-link", "x"),
        ("ok\u{0}/../../../../outside/pwned", "x"),
        ("x", &abs[..]),
        ("x", "../outside/pwned-id"),
        ("x", ".claude/out/link/pwned-id"),
        ("x", ".claude/out/../../outside/pwned-id"),
    ] {
        let out = sb.run(&[&p], start(agent_type, agent_id));
        assert_eq!(out.code, Some(0), "{out:?}");
        assert!(out.stdout.contains("canary"), "{out:?}");
        let after = snapshot(&sb.root);
        // Inside `within` anything goes; everywhere else nothing may change.
        let inside = format!("{}/", out_dir.display());
        let changed: Vec<_> = after
            .symmetric_difference(&before)
            .filter(|(p, _)| !p.starts_with(&inside))
            .collect();
        assert!(
            changed.is_empty(),
            "{agent_type:?}/{agent_id:?} changed files outside `within`: {changed:?}\n{out:?}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(sb.outside.join("pwned.victim")).unwrap(),
        "keep me"
    );
    assert_eq!(
        std::fs::read_to_string(sb.outside.join("existing.txt")).unwrap(),
        "keep me"
    );
}

#[test]
fn append_jsonl_does_not_follow_a_dangling_symlink_out_of_within() {
    // `.claude/out/log.jsonl` is a symlink to a file that does not exist yet,
    // outside the project. Appending must not create it.
    let sb = Sandbox::new();
    let p = sb.policy(
        "log.toml",
        r#"
[policy]
name = "log"
failure = "fail-open"

[[rule]]
id = "log"
events = ["SessionStart"]
when = { field = "source", exists = true }
context = "canary"

[[rule.effects]]
kind = "append_jsonl"
path = ".claude/out/log.jsonl"
within = ".claude/out"
record = { source = "{{ event.source }}" }
"#,
    );
    let out_dir = sb.project.join(".claude/out");
    std::fs::create_dir_all(&out_dir).unwrap();
    std::os::unix::fs::symlink(sb.outside.join("planted.jsonl"), out_dir.join("log.jsonl"))
        .unwrap();
    let out = sb.run(
        &[&p],
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"SessionStart","source":"startup"}}"#,
            js(&sb.project_s())
        ),
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        !sb.outside.join("planted.jsonl").exists(),
        "append_jsonl wrote outside the project through a dangling symlink: {out:?}"
    );
}

#[test]
fn within_built_from_event_data_cannot_leave_the_project() {
    // `within` is a template too. When it is built from event data it must itself
    // stay inside the project, or confinement means nothing.
    let sb = Sandbox::new();
    let p = sb.policy(
        "pads.toml",
        r#"
[policy]
name = "pads"
failure = "fail-open"

[facts.pad]
kind = "file"
path = ".claude/{{ event.agent_type }}/notes.md"
within = ".claude/{{ event.agent_type }}"
lines = 3

[[rule]]
id = "pad"
events = ["SubagentStop"]
when = { field = "agent_id", exists = true }
decision = "block"
reason = "pad says: {{ facts.pad.head }}"

[[rule.effects]]
kind = "write_file"
path = ".claude/{{ event.agent_type }}/pwned.txt"
within = ".claude/{{ event.agent_type }}"
content = "pwned"
"#,
    );
    std::fs::write(sb.outside.join("notes.md"), SECRET).unwrap();
    let out = sb.run(
        &[&p],
        format!(
            r#"{{"session_id":"s","cwd":{},"hook_event_name":"SubagentStop","agent_id":"a","agent_type":"../../outside","stop_hook_active":false}}"#,
            js(&sb.project_s())
        ),
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        !out.stdout.contains("TOP-SECRET"),
        "a fact read outside the project: {out:?}"
    );
    assert!(
        !sb.outside.join("pwned.txt").exists(),
        "an effect wrote outside the project: {out:?}"
    );
}

#[test]
fn templates_cannot_read_files_or_environment_variables() {
    let sb = Sandbox::new();
    let secret_file = sb.outside.join("secret.txt");
    std::fs::write(&secret_file, SECRET).unwrap();
    let tries = [
        r#"{% include "/etc/passwd" %}"#.to_string(),
        format!(r#"{{% include "{}" %}}"#, secret_file.display()),
        "{% include event.tool_input.file_path %}".to_string(),
        r#"{% import "/etc/passwd" as p %}{{ p }}"#.to_string(),
        r#"{% extends "/etc/passwd" %}"#.to_string(),
        r#"{% from "/etc/passwd" import x %}{{ x }}"#.to_string(),
        "{{ env.HOOKRULES_TEST_SECRET }}".to_string(),
        "{{ HOOKRULES_TEST_SECRET }}".to_string(),
        "{{ environ.HOOKRULES_TEST_SECRET }}{{ os.environ }}".to_string(),
        "{{ debug() }}".to_string(),
        "{{ facts }}{{ rule }}{{ captures }}".to_string(),
        "{{ self }}{{ namespace() }}{{ range(3) | list }}".to_string(),
        "{{ event.__class__ }}{{ ''.__class__ }}".to_string(),
    ];
    let mut policy = String::from("[policy]\nname = \"tpl\"\nfailure = \"fail-open\"\n");
    policy.push_str(
        r#"
[[rule]]
id = "canary"
events = ["PreToolUse"]
when = { field = "tool_name", equals = "Read" }
message = "canary {{ event.tool_name }}"
"#,
    );
    for (i, t) in tries.iter().enumerate() {
        policy.push_str(&format!(
            "\n[[rule]]\nid = \"try-{i}\"\nevents = [\"PreToolUse\"]\nwhen = {{ field = \"tool_name\", equals = \"Read\" }}\nmessage = '''try-{i}: {t}'''\ncontext = '''{t}'''\n"
        ));
    }
    policy.push_str(&format!(
        "\n[[rule]]\nid = \"record\"\nevents = [\"PreToolUse\"]\nwhen = {{ field = \"tool_name\", equals = \"Read\" }}\n\n[[rule.effects]]\nkind = \"append_jsonl\"\npath = \"record.jsonl\"\nrecord = {{ a = '''{}''', b = '''{}''', c = '''{}''' }}\n",
        tries[0], tries[6], tries[9]
    ));
    let p = sb.policy("tpl.toml", &policy);
    let ev = format!(
        r#"{{"session_id":"s","cwd":{},"hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{{"file_path":{}}}}}"#,
        js(&sb.project_s()),
        js(&secret_file.display().to_string())
    );
    let out = sb.run_env(
        &[&p],
        ev,
        &[("HOOKRULES_TEST_SECRET", "ENV-SECRET-VALUE-42")],
    );
    assert_eq!(out.code, Some(0), "{out:?}");
    assert!(
        out.stdout.contains("canary Read"),
        "the control rule should render: {out:?}"
    );
    let all = format!(
        "{}{}{}",
        out.stdout,
        out.stderr,
        std::fs::read_to_string(sb.project.join("record.jsonl")).unwrap_or_default()
    );
    assert!(
        !all.contains("ENV-SECRET-VALUE-42"),
        "an environment variable reached the output: {out:?}"
    );
    assert!(
        !all.contains("TOP-SECRET"),
        "a file reached the output: {out:?}"
    );
    assert!(
        !all.contains("root:"),
        "/etc/passwd reached the output: {out:?}"
    );
    assert!(
        !out.stdout.contains("permissionDecision\":\"deny"),
        "{out:?}"
    );
}

// ===========================================================================
// Harness
// ===========================================================================

const SECRET: &str = "TOP-SECRET outside the project";

/// A temporary root with `project/` (CLAUDE_PROJECT_DIR and cwd), `outside/`
/// (must stay untouched), `home/` and `policies/`.
struct Sandbox {
    _dir: Option<Arc<tempfile::TempDir>>,
    root: PathBuf,
    project: PathBuf,
    outside: PathBuf,
    home: PathBuf,
    policies: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("hookrules-rel-")
            .tempdir()
            .unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in ["project", "outside", "home", "policies"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Sandbox {
            _dir: Some(Arc::new(dir)),
            project: root.join("project"),
            outside: root.join("outside"),
            home: root.join("home"),
            policies: root.join("policies"),
            root,
        }
    }

    /// A handle to the same sandbox for another thread.
    fn clone_handle(&self) -> Sandbox {
        Sandbox {
            _dir: self._dir.clone(),
            root: self.root.clone(),
            project: self.project.clone(),
            outside: self.outside.clone(),
            home: self.home.clone(),
            policies: self.policies.clone(),
        }
    }

    fn project_s(&self) -> String {
        self.project.display().to_string()
    }

    fn outside_s(&self) -> String {
        self.outside.display().to_string()
    }

    fn policy(&self, name: &str, text: &str) -> PathBuf {
        let p = self.policies.join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    fn run(&self, policies: &[&Path], stdin: impl Into<Vec<u8>>) -> Out {
        self.spawn(policies, stdin).wait()
    }

    fn run_env(&self, policies: &[&Path], stdin: impl Into<Vec<u8>>, env: &[(&str, &str)]) -> Out {
        self.spawn_env(policies, stdin, env).wait()
    }

    fn spawn(&self, policies: &[&Path], stdin: impl Into<Vec<u8>>) -> Running {
        self.spawn_env(policies, stdin, &[])
    }

    /// `hookrules run --policies P...` with a clean environment, stdin written
    /// from a thread (so a child that stops reading cannot block the test).
    fn spawn_env(
        &self,
        policies: &[&Path],
        stdin: impl Into<Vec<u8>>,
        env: &[(&str, &str)],
    ) -> Running {
        let mut cmd = Command::new(BIN);
        cmd.arg("run");
        for p in policies {
            cmd.arg("--policies").arg(p);
        }
        cmd.env_clear()
            .env(
                "PATH",
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            )
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join(".config"))
            .env("XDG_STATE_HOME", self.home.join("../hookrules-state"))
            .env("CLAUDE_PROJECT_DIR", &self.project)
            .envs(env.iter().copied())
            .current_dir(&self.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let started = Instant::now();
        let mut child = cmd.spawn().expect("spawn hookrules");
        let mut input = child.stdin.take().unwrap();
        let bytes: Vec<u8> = stdin.into();
        // A child that refuses oversized input closes the pipe early: EPIPE is fine.
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&bytes);
        });
        let stdout = drain(child.stdout.take().unwrap());
        let stderr = drain(child.stderr.take().unwrap());
        Running {
            child,
            started,
            writer,
            stdout,
            stderr,
        }
    }

    /// `outside/` holds only what the test itself put there.
    fn assert_outside_untouched(&self) {
        let names: Vec<String> = std::fs::read_dir(&self.outside)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("pwned"))
            .collect();
        assert!(
            names.is_empty(),
            "files appeared outside the project: {names:?}"
        );
    }
}

fn drain(mut r: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut v = vec![];
        let _ = r.read_to_end(&mut v);
        v
    })
}

/// A running `hookrules run`.
struct Running {
    child: Child,
    started: Instant,
    writer: JoinHandle<()>,
    stdout: JoinHandle<Vec<u8>>,
    stderr: JoinHandle<Vec<u8>>,
}

impl Running {
    /// Wait under the watchdog; a hang kills the child and fails the test.
    fn wait(self) -> Out {
        self.wait_for(WATCHDOG)
    }

    fn wait_for(mut self, limit: Duration) -> Out {
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break s;
            }
            if self.started.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("hookrules run hung: no answer after {limit:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let took = self.started.elapsed();
        let _ = self.writer.join();
        let out = Out {
            code: status.code(),
            stdout: String::from_utf8_lossy(&self.stdout.join().unwrap()).into_owned(),
            stderr: String::from_utf8_lossy(&self.stderr.join().unwrap()).into_owned(),
            took,
        };
        assert!(
            !out.stderr.contains("panicked at"),
            "hookrules panicked: {out:?}"
        );
        assert!(
            out.code.is_some(),
            "hookrules was killed by a signal: {out:?}"
        );
        assert!(
            !out.stderr.contains("internal error"),
            "hookrules caught a panic of its own: {out:?}"
        );
        out
    }
}

/// What a run printed.
struct Out {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    took: Duration,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cut = |s: &str| -> String {
            if s.len() > 1500 {
                let mut end = 1500;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}… ({} bytes)", &s[..end], s.len())
            } else {
                s.to_string()
            }
        };
        write!(
            f,
            "\n  exit: {:?} after {:?}\n  stdout: {}\n  stderr: {}\n",
            self.code,
            self.took,
            cut(&self.stdout),
            cut(&self.stderr)
        )
    }
}

impl Out {
    fn json(&self) -> J {
        parse_json(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not one JSON object ({e}): {self:?}"))
    }

    /// Fail-open: exit 0, nothing on stdout, the problem on stderr.
    fn assert_fail_open(&self, message: &str) {
        assert_eq!(self.code, Some(0), "fail-open must exit 0: {self:?}");
        assert_eq!(self.stdout, "", "fail-open must print nothing: {self:?}");
        assert!(self.stderr.contains("fail-open"), "{self:?}");
        assert!(
            self.stderr.contains(message),
            "stderr should say {message:?}: {self:?}"
        );
    }

    /// Fail-closed with no usable event: exit 2, reason on stderr.
    fn assert_exit2(&self, message: &str) {
        assert_eq!(
            self.code,
            Some(2),
            "fail-closed without an event must exit 2: {self:?}"
        );
        assert_eq!(self.stdout, "", "{self:?}");
        assert!(self.stderr.contains("fail-closed"), "{self:?}");
        assert!(
            self.stderr.contains(message),
            "stderr should say {message:?}: {self:?}"
        );
    }

    /// A PreToolUse deny; returns its reason.
    fn assert_denied(&self) -> String {
        assert_eq!(self.code, Some(0), "{self:?}");
        let j = self.json();
        assert_eq!(
            j.at("hookSpecificOutput.permissionDecision")
                .and_then(J::str),
            Some("deny"),
            "expected a deny: {self:?}"
        );
        assert_eq!(
            j.at("hookSpecificOutput.hookEventName").and_then(J::str),
            Some("PreToolUse")
        );
        j.at("hookSpecificOutput.permissionDecisionReason")
            .and_then(J::str)
            .unwrap_or_default()
            .to_string()
    }

    /// A top-level `decision: block`; returns its reason.
    fn assert_top_level_block(&self) -> String {
        assert_eq!(self.code, Some(0), "{self:?}");
        let j = self.json();
        assert_eq!(
            j.at("decision").and_then(J::str),
            Some("block"),
            "expected a block: {self:?}"
        );
        j.at("reason")
            .and_then(J::str)
            .unwrap_or_default()
            .to_string()
    }

    /// Exit 0 and no deny, ask or block of any kind.
    fn assert_not_blocked(&self) {
        assert_eq!(self.code, Some(0), "{self:?}");
        if self.stdout.is_empty() {
            return;
        }
        let j = self.json();
        assert!(j.at("decision").is_none(), "blocked: {self:?}");
        assert!(j.at("continue").is_none(), "stopped: {self:?}");
        let d = j
            .at("hookSpecificOutput.permissionDecision")
            .and_then(J::str);
        assert!(d.is_none() || d == Some("allow"), "blocked: {self:?}");
    }
}

/// A PreToolUse Bash event.
fn pre_bash(cwd: &str, command: &str) -> String {
    format!(
        r#"{{"session_id":"3f1c2a9e","transcript_path":"/nonexistent/t.jsonl","cwd":{},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":{},"description":"run"}},"tool_use_id":"toolu_1"}}"#,
        js(cwd),
        js(command)
    )
}

/// A JSON string literal.
fn js(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Single-quote for sh.
fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A `sleep` duration no other process on the machine has: `60.<pid><n>`.
fn unique_sleep() -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "60.{}{:04}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Live processes whose command line contains `marker` (zombies have none).
fn processes_with(marker: &str) -> Vec<(u32, String)> {
    let me = std::process::id();
    let mut found = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(marker) {
                found.push((pid, cmd));
            }
        }
    }
    found
}

/// Nothing started with `marker` is still running (allowing 3 s for the kill).
fn assert_no_survivors(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left = processes_with(marker);
        if left.is_empty() {
            return;
        }
        if Instant::now() > deadline {
            kill_all(&left);
            panic!("processes survived the timeout: {left:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Clean up processes this test started (by pid).
fn kill_all(procs: &[(u32, String)]) {
    for (pid, _) in procs {
        let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
    }
}

/// Every file under `dir` with its content (symlinks as `-> target`).
fn snapshot(dir: &Path) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            // hookrules' own decision log (XDG_STATE_HOME, no policy path) is
            // written after every decision; tests/observe.rs covers it.
            if p.ends_with("hookrules-state") {
                continue;
            }
            let ft = e.file_type().unwrap();
            let content = if ft.is_symlink() {
                format!("-> {}", std::fs::read_link(&p).unwrap().display())
            } else if ft.is_dir() {
                stack.push(p.clone());
                "<dir>".into()
            } else {
                String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned()
            };
            out.insert((p.display().to_string(), content));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// A small JSON reader, enough to check answers and JSON lines.
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    /// A dotted path of object keys.
    fn at(&self, path: &str) -> Option<&J> {
        let mut cur = self;
        for k in path.split('.') {
            match cur {
                J::Obj(m) => cur = &m.iter().find(|(key, _)| key == k)?.1,
                _ => return None,
            }
        }
        Some(cur)
    }
    fn str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }
    fn num(&self) -> Option<f64> {
        match self {
            J::Num(n) => Some(*n),
            _ => None,
        }
    }
}

/// Parse exactly one JSON object (surrounding whitespace allowed).
fn parse_json(s: &str) -> Result<J, String> {
    let mut p = Parser {
        s: s.as_bytes(),
        i: 0,
    };
    p.ws();
    let v = p.value(0)?;
    p.ws();
    if p.i != p.s.len() {
        return Err(format!("trailing text at {}", p.i));
    }
    match v {
        J::Obj(_) => Ok(v),
        _ => Err("not an object".into()),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn ws(&mut self) {
        while self.i < self.s.len() && b" \t\r\n".contains(&self.s[self.i]) {
            self.i += 1;
        }
    }
    fn eat(&mut self, c: u8) -> Result<(), String> {
        self.ws();
        if self.s.get(self.i) == Some(&c) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at {}", c as char, self.i))
        }
    }
    fn value(&mut self, depth: usize) -> Result<J, String> {
        if depth > 200 {
            return Err("too deep".into());
        }
        self.ws();
        match self.s.get(self.i).copied() {
            Some(b'{') => {
                self.i += 1;
                let mut m = vec![];
                self.ws();
                if self.s.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(J::Obj(m));
                }
                loop {
                    self.ws();
                    let k = self.string()?;
                    self.eat(b':')?;
                    m.push((k, self.value(depth + 1)?));
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(J::Obj(m));
                        }
                        _ => return Err(format!("bad object at {}", self.i)),
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut a = vec![];
                self.ws();
                if self.s.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(J::Arr(a));
                }
                loop {
                    a.push(self.value(depth + 1)?);
                    self.ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(J::Arr(a));
                        }
                        _ => return Err(format!("bad array at {}", self.i)),
                    }
                }
            }
            Some(b'"') => Ok(J::Str(self.string()?)),
            Some(b't') if self.s[self.i..].starts_with(b"true") => {
                self.i += 4;
                Ok(J::Bool(true))
            }
            Some(b'f') if self.s[self.i..].starts_with(b"false") => {
                self.i += 5;
                Ok(J::Bool(false))
            }
            Some(b'n') if self.s[self.i..].starts_with(b"null") => {
                self.i += 4;
                Ok(J::Null)
            }
            Some(c) if c == b'-' || c.is_ascii_digit() => {
                let start = self.i;
                while self.i < self.s.len() && b"+-.eE0123456789".contains(&self.s[self.i]) {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).unwrap();
                t.parse::<f64>()
                    .map(J::Num)
                    .map_err(|e| format!("bad number {t:?}: {e}"))
            }
            _ => Err(format!("unexpected input at {}", self.i)),
        }
    }
    fn string(&mut self) -> Result<String, String> {
        if self.s.get(self.i) != Some(&b'"') {
            return Err(format!("expected a string at {}", self.i));
        }
        self.i += 1;
        let mut out: Vec<u8> = vec![];
        loop {
            let c = *self.s.get(self.i).ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => return String::from_utf8(out).map_err(|e| e.to_string()),
                b'\\' => {
                    let e = *self.s.get(self.i).ok_or("unterminated escape")?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let hi = self.hex4()?;
                            if (0xd800..0xdc00).contains(&hi) {
                                if !self.s[self.i..].starts_with(b"\\u") {
                                    return Err("lone surrogate".into());
                                }
                                self.i += 2;
                                let lo = self.hex4()?;
                                char::from_u32(0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00))
                                    .ok_or("bad surrogate pair")?
                            } else {
                                char::from_u32(hi).ok_or("bad \\u escape")?
                            }
                        }
                        _ => return Err(format!("bad escape at {}", self.i)),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(format!("control character in string at {}", self.i)),
                c => out.push(c),
            }
        }
    }
    fn hex4(&mut self) -> Result<u32, String> {
        let h = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
        self.i += 4;
        u32::from_str_radix(std::str::from_utf8(h).map_err(|e| e.to_string())?, 16)
            .map_err(|e| e.to_string())
    }
}
