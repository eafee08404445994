//! `today` and `now` are read in the zone each policy chose (`[policy] time_zone`):
//! the hook's local zone (`TZ` from its environment) or UTC, never the process's
//! own zone, so two policies in one run can differ and fixtures mean the same
//! everywhere.

use std::collections::BTreeMap;

use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;

fn policy(name: &str, zone: Option<&str>) -> String {
    let header = zone
        .map(|z| format!("time_zone = \"{z}\"\n"))
        .unwrap_or_default();
    format!(
        "[policy]\nname = \"{name}\"\n{header}\n[[rule]]\nid = \"{name}-date\"\nevents = [\"SessionStart\"]\ncontext = \"{name}: {{{{ today }}}} {{{{ now }}}}\"\n"
    )
}

fn context_for(tz: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-local.toml"), policy("local", None)).unwrap();
    std::fs::write(dir.path().join("b-utc.toml"), policy("utc", Some("utc"))).unwrap();
    std::fs::write(
        dir.path().join("c-local.toml"),
        policy("explicit", Some("local")),
    )
    .unwrap();
    let mut env = BTreeMap::new();
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        dir.path().display().to_string(),
    );
    if let Some(tz) = tz {
        env.insert("TZ".to_string(), tz.to_string());
    }
    let d = Discovery {
        flags: vec![dir.path().to_path_buf()],
        project_dir: Some(dir.path().to_path_buf()),
        user_dir: Some(dir.path().join("no-user")),
        ..Discovery::default()
    };
    let event =
        r#"{"hook_event_name":"SessionStart","session_id":"s","cwd":"/","source":"startup"}"#;
    // 2025-11-20 23:30:00 UTC.
    let a = in_process(
        &d,
        &mut event.as_bytes(),
        &env.clone().into(),
        Now::at(1763681400).with_tz(tz),
        Hint::default(),
    )
    .0;
    let v: serde_json::Value = serde_json::from_str(&a.stdout).unwrap();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn each_policy_reads_the_clock_in_its_zone() {
    let ctx = context_for(Some("Pacific/Kiritimati"));
    assert!(
        ctx.contains("local: 2025-11-21 2025-11-21T13:30:00+14:00"),
        "{ctx}"
    );
    assert!(
        ctx.contains("explicit: 2025-11-21 2025-11-21T13:30:00+14:00"),
        "{ctx}"
    );
    assert!(
        ctx.contains("utc: 2025-11-20 2025-11-20T23:30:00+00:00"),
        "{ctx}"
    );
    let ctx = context_for(Some("Europe/Berlin"));
    assert!(
        ctx.contains("local: 2025-11-21 2025-11-21T00:30:00+01:00"),
        "{ctx}"
    );
    assert!(
        ctx.contains("utc: 2025-11-20 2025-11-20T23:30:00+00:00"),
        "{ctx}"
    );
    let ctx = context_for(Some("America/Los_Angeles"));
    assert!(
        ctx.contains("local: 2025-11-20 2025-11-20T15:30:00-08:00"),
        "{ctx}"
    );
}

#[test]
fn utc_policy_ignores_the_machine_zone() {
    let ctx = context_for(None);
    assert!(
        ctx.contains("utc: 2025-11-20 2025-11-20T23:30:00+00:00"),
        "{ctx}"
    );
}

#[test]
fn an_unknown_time_zone_choice_is_a_policy_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("p.toml"),
        policy("bad", Some("Europe/Berlin")),
    )
    .unwrap();
    let d = Discovery {
        flags: vec![dir.path().to_path_buf()],
        ..Discovery::default()
    };
    let report = hookrules::cli::check::collect(&d);
    let text: Vec<String> = report.diagnostics.iter().map(|d| d.one_line()).collect();
    assert!(
        text.iter()
            .any(|t| t.contains("time_zone") || t.contains("unknown variant")),
        "{text:?}"
    );
}
