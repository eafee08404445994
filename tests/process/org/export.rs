//! Export over OpenTelemetry, through the real binary, to a receiver that
//! decodes with the official OTLP bindings (`otlp_receiver.py`: PyPI
//! `opentelemetry-proto`, protobuf's strict JSON parser). `.ci/run` installs
//! the package; without it these tests fail and say so.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

use super::sandbox::{bash, tool_event, Sandbox};

/// A receiver process, ended when dropped.
struct Receiver {
    child: Child,
    port: u16,
    out: PathBuf,
}

impl Receiver {
    fn start(out: &Path, port: Option<u16>, status: u16) -> Receiver {
        let script =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/process/org/otlp_receiver.py");
        let mut cmd = Command::new("python3");
        cmd.arg(&script)
            .arg(out)
            .args(["--status", &status.to_string()]);
        if let Some(p) = port {
            cmd.args(["--port", &p.to_string()]);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap_or_else(|_| {
            let _ = child.kill();
            panic!(
                "the OTLP receiver did not start (is `opentelemetry-proto` installed? `python3 -m pip install opentelemetry-proto`): {line:?}"
            )
        });
        Receiver {
            child,
            port,
            out: out.to_path_buf(),
        }
    }

    fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every line received so far.
    fn lines(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The decoded records; panics on a request that did not decode.
    fn records(&self) -> Vec<Value> {
        let lines = self.lines();
        for l in &lines {
            assert!(l.get("error").is_none(), "a request did not decode: {l}");
        }
        lines
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on (bound, then let go).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn exporting(sb: &mut Sandbox, endpoint: &str, protocol: &str) {
    sb.env.extend(
        [
            ("HOOKRULES_EXPORT", "otlp"),
            ("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", protocol),
            ("OTEL_SERVICE_NAME", "agents"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "team=core%20infra,deployment.environment=dev",
            ),
            ("OTEL_EXPORTER_OTLP_HEADERS", "authorization=Bearer%20t0ken"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string())),
    );
}

fn with_id(cmd: &str, id: &str) -> Value {
    let mut e = bash(cmd);
    e["tool_use_id"] = json!(id);
    e
}

fn attr<'a>(r: &'a Value, k: &str) -> &'a Value {
    &r["attributes"][k]
}

#[test]
fn decisions_arrive_as_otlp_log_records_in_json_and_protobuf() {
    for protocol in ["http/json", "http/protobuf"] {
        let mut sb = Sandbox::new();
        let rx = Receiver::start(&sb.root.join("received.jsonl"), None, 200);
        exporting(&mut sb, &rx.endpoint(), protocol);
        // Every event is logged, so every one is exported (a harmless call too).
        sb.user_policy("log.toml", "[log]\nevents = \"all\"\n");
        let secret = "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789' https://api.github.com/user";
        let out = sb.run(&with_id("rm -rf /", "toolu_wipe"));
        assert!(String::from_utf8_lossy(&out.stdout).contains("deny"));
        sb.run(&with_id(secret, "toolu_secret"));
        let prompt = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl",
            "cwd": "/tmp", "hook_event_name": "UserPromptSubmit", "prompt": "hello"});
        sb.run(&prompt);
        let got = rx.records();
        let local = sb.records();
        assert_eq!(
            got.len(),
            local.len(),
            "{protocol}: one per logged decision: {got:#?}"
        );
        let wipe = got
            .iter()
            .find(|r| attr(r, "hookrules.tool_use_id") == "toolu_wipe")
            .unwrap_or_else(|| panic!("{protocol}: {got:#?}"));
        assert_eq!(
            attr(wipe, "hookrules.rule.id"),
            "delete-root-or-system",
            "{wipe}"
        );
        assert_eq!(attr(wipe, "hookrules.decision"), "deny");
        assert_eq!(attr(wipe, "hookrules.hook.event"), "PreToolUse");
        assert_eq!(attr(wipe, "gen_ai.tool.name"), "Bash");
        assert_eq!(attr(wipe, "hookrules.host"), "claude");
        assert_eq!(attr(wipe, "session.id"), "s-1");
        assert_eq!(
            attr(wipe, "hookrules.project"),
            sb.project().display().to_string().as_str()
        );
        let logged = local
            .iter()
            .find(|r| r.rules.first().map(String::as_str) == Some("delete-root-or-system"))
            .unwrap();
        assert_eq!(
            attr(wipe, "hookrules.policy.hash"),
            logged.policy_hash.as_str()
        );
        assert!(
            attr(wipe, "hookrules.latency_us").as_i64().is_some(),
            "{wipe}"
        );
        assert_eq!(wipe["event_name"], "hookrules.decision");
        assert_eq!(wipe["severity_text"], "WARN");
        assert_eq!(wipe["severity_number"], 13);
        assert_eq!(
            wipe["time_unix_nano"].as_u64().unwrap() / 1_000_000,
            logged.ms() as u64
        );
        assert_eq!(wipe["resource"]["service.name"], "agents");
        assert_eq!(wipe["resource"]["team"], "core infra");
        assert_eq!(wipe["scope"][0], "hookrules");
        assert_eq!(wipe["headers"]["authorization"], "Bearer t0ken");
        let expected_type = if protocol == "http/json" {
            "application/json"
        } else {
            "application/x-protobuf"
        };
        assert_eq!(wipe["content_type"], expected_type);
        // Redaction is the local log's: the token is in neither.
        let s = got
            .iter()
            .find(|r| attr(r, "hookrules.tool_use_id") == "toolu_secret")
            .unwrap_or_else(|| panic!("{protocol}: {got:#?}"));
        assert_eq!(attr(s, "hookrules.decision"), "none");
        assert_eq!(s["severity_text"], "INFO");
        let text = s.to_string();
        assert!(!text.contains("ghp_abcdefghij"), "{text}");
        let logged = local
            .iter()
            .find(|r| {
                r.summary
                    .as_deref()
                    .is_some_and(|s| s.contains("api.github.com"))
            })
            .unwrap();
        assert_eq!(
            attr(s, "hookrules.summary"),
            logged.summary.as_deref().unwrap()
        );
        assert!(
            logged.summary.as_deref().unwrap().contains("[redacted]"),
            "{logged:?}"
        );
        assert!(
            got.iter()
                .any(|r| attr(r, "hookrules.hook.event") == "UserPromptSubmit"),
            "{got:#?}"
        );
    }
}

#[test]
fn decisions_made_while_the_collector_is_down_arrive_once_it_is_back_and_only_once() {
    let mut sb = Sandbox::new();
    let port = free_port();
    exporting(&mut sb, &format!("http://127.0.0.1:{port}"), "http/json");
    for i in 0..5 {
        let out = sb.run(&with_id("rm -rf /", &format!("toolu_down_{i}")));
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
            "the answer does not wait for the collector: {out:?}"
        );
    }
    let doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("5 decision(s) waiting"), "{doctor}");
    let rx = Receiver::start(&sb.root.join("received.jsonl"), Some(port), 200);
    sb.run(&with_id("rm -rf /", "toolu_back"));
    let ids = |rx: &Receiver| -> Vec<String> {
        rx.records()
            .iter()
            .map(|r| {
                attr(r, "hookrules.tool_use_id")
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect()
    };
    let mut got = ids(&rx);
    got.sort();
    let mut want: Vec<String> = (0..5).map(|i| format!("toolu_down_{i}")).collect();
    want.push("toolu_back".into());
    want.sort();
    assert_eq!(got, want, "each decision once");
    sb.run(&with_id("rm -rf /", "toolu_after"));
    assert_eq!(ids(&rx).len(), 7, "{:?}", ids(&rx));
    let doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("0 decision(s) waiting"), "{doctor}");
}

#[test]
fn a_collector_that_rejects_the_records_does_not_hold_the_spool_and_hookrules_export_delivers() {
    let mut sb = Sandbox::new();
    let rejecting = Receiver::start(&sb.root.join("rejected.jsonl"), None, 400);
    exporting(&mut sb, &rejecting.endpoint(), "http/protobuf");
    sb.run(&with_id("rm -rf /", "toolu_rejected"));
    let doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("0 decision(s) waiting"), "{doctor}");
    assert!(doctor.contains("1 rejected"), "{doctor}");
    drop(rejecting);

    // Down, then up: `hookrules export` delivers without waiting for a hook.
    let port = free_port();
    let mut sb = Sandbox::new();
    exporting(
        &mut sb,
        &format!("http://127.0.0.1:{port}"),
        "http/protobuf",
    );
    sb.run(&with_id("rm -rf /", "toolu_1"));
    sb.run(&tool_event(
        "PreToolUse",
        "Bash",
        json!({"command": "rm -rf ~"}),
        "toolu_2",
    ));
    let rx = Receiver::start(&sb.root.join("received.jsonl"), Some(port), 200);
    let out = sb.hr(&["export"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 delivered"),
        "{out:?}"
    );
    assert_eq!(rx.records().len(), 2);
}
