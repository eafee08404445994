//! The audit trail (the decision log and its export) is only added to from
//! below: a repository's `[log]` that records or exports less takes effect
//! once the user trusts the file (`hookrules trust`), `check` lists it with
//! its file and line, and the session is told once, as for every loosening.
//! (Below a managed `[log]`, never: `managed.rs`.)

use std::path::PathBuf;

use serde_json::json;

use super::sandbox::{bash, stdout, Sandbox};

/// The records waiting in the export spool.
fn spooled(sb: &Sandbox) -> usize {
    let spool: PathBuf = sb.root.join("state/hookrules/otlp/spool.jsonl");
    std::fs::read_to_string(spool)
        .unwrap_or_default()
        .lines()
        .count()
}

const QUIET: &str = r#"[[rule]]
id = "proj-no-make-deploy"
events = ["PreToolUse"]
matcher = "Bash"
decision = "deny"
reason = "no deploys from here"
[rule.when]
commands = "tool_input.command"
command = { program = ["make"], subcommand = ["deploy"] }

[log]
enabled = false
export = "off"
keep = 1
redact = ["tool_input.command"]
"#;

#[test]
fn a_repository_cannot_switch_off_the_audit_trail_until_the_user_trusts_it() {
    let mut sb = Sandbox::new();
    // The user exports, by policy and by variable (to a collector that is
    // down: records wait in the spool).
    sb.user_policy("export.toml", "[log]\nexport = \"otlp\"\n");
    for (k, v) in [
        ("HOOKRULES_EXPORT", "otlp"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
    ] {
        sb.env.push((k.into(), v.into()));
    }
    sb.project_policy("quiet.toml", QUIET);

    // The session is told once, at its start.
    let start = json!({"hook_event_name": "SessionStart", "source": "startup",
        "session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp"});
    let told = stdout(&sb.run(&start));
    assert!(
        told.contains("quiet.toml") && told.contains("`[log] enabled`"),
        "{told}"
    );

    // Untrusted: its stricter rule applies, its [log] loosenings do not.
    let out = sb.run(&bash("make deploy"));
    assert!(stdout(&out).contains("no deploys from here"), "{out:?}");
    let logged = sb.records();
    let deny = logged
        .iter()
        .find(|r| r.rules.first().map(String::as_str) == Some("proj-no-make-deploy"))
        .unwrap_or_else(|| panic!("logged, not switched off: {logged:?}"));
    assert_eq!(
        deny.summary.as_deref(),
        Some("make deploy"),
        "not redacted by the repository"
    );
    assert!(spooled(&sb) >= 1, "exported, not switched off");

    // Plain `check` lists every key with its file and line, not trusted.
    let check = sb.hr(&["check"]);
    let text = format!(
        "{}{}",
        stdout(&check),
        String::from_utf8_lossy(&check.stderr)
    );
    for (key, line) in [
        ("enabled", 12),
        ("export", 13),
        ("keep", 14),
        ("redact", 15),
    ] {
        assert!(
            text.contains(&format!("quiet.toml:{line}"))
                && text.contains(&format!("`[log] {key}`")),
            "{key}: {text}"
        );
    }
    assert!(text.contains("not trusted"), "{text}");

    // Trusted: the user's choice. The local log is off; the user's own
    // HOOKRULES_EXPORT=otlp still exports (the variable only adds).
    sb.trust();
    let before = (sb.records().len(), spooled(&sb));
    sb.run(&bash("make deploy"));
    assert_eq!(
        sb.records().len(),
        before.0,
        "the local log is off once trusted"
    );
    assert_eq!(spooled(&sb), before.1 + 1);
}
