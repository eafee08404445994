//! Export over OpenTelemetry, through the real binary, to a receiver that
//! decodes with the official OTLP bindings (`otlp_receiver.py`: PyPI
//! `opentelemetry-proto`, protobuf's strict JSON parser). `.ci/run` installs
//! the package; without it these tests fail and say so.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

    /// The records once `n` have arrived (the deliverer a run starts sends
    /// them after the run exited); what arrived when 60 s passed otherwise.
    fn wait_for(&self, n: usize) -> Vec<Value> {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let got = self.records();
            if got.len() >= n || Instant::now() >= until {
                return got;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
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

/// The export spool's folder.
fn spool(sb: &Sandbox) -> PathBuf {
    sb.root.join("state/hookrules/otlp")
}

/// Wait (60 s at most) until a deliverer recorded a failure and none holds
/// `send.lock` (three looks in a row, 100 ms apart).
fn failed_and_quiet(sb: &Sandbox) {
    let until = Instant::now() + Duration::from_secs(60);
    let mut free = 0;
    while free < 3 && Instant::now() < until {
        let failed = std::fs::read_to_string(spool(sb).join("state.json"))
            .is_ok_and(|s| s.contains("\"failing\":true"));
        let unlocked =
            std::fs::File::open(spool(sb).join("send.lock")).is_ok_and(|f| f.try_lock().is_ok());
        free = if failed && unlocked { free + 1 } else { 0 };
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(free, 3, "no deliverer failed, or one is still at work");
}

/// A fixed clock (ms), so the deliverers' pause never ends unless a run says
/// it is later.
const T0: &str = "1790000000000";
const T1: &str = "1790000600000";

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
        let local = sb.records();
        let got = rx.wait_for(local.len());
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
        // The record's id, the same in the local log and the collector (to
        // drop a record delivered twice).
        assert_eq!(logged.id.len(), 26, "{logged:?}");
        assert_eq!(attr(wipe, "log.record.uid"), logged.id.as_str());
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
    let mut said = 0;
    let mut run = |id: &str, now: &str| {
        let out = sb.run_with(&with_id("rm -rf /", id), &[], &[("HOOKRULES_NOW", now)]);
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
            "the answer does not wait for the collector: {out:?}"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        said += err.matches("kept in the spool").count();
        assert!(!err.contains("did not start"), "{err}");
    };
    for i in 0..5 {
        run(&format!("toolu_down_{i}"), T0);
    }
    failed_and_quiet(&sb);
    let doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("5 decision(s) waiting"), "{doctor}");
    assert!(doctor.contains("refused"), "the last failure: {doctor}");
    let rx = Receiver::start(&sb.root.join("received.jsonl"), Some(port), 200);
    // Later than the pause: this run starts a deliverer, which sends all six.
    run("toolu_back", T1);
    let ids = |got: Vec<Value>| -> Vec<String> {
        let mut ids: Vec<String> = got
            .iter()
            .map(|r| {
                attr(r, "hookrules.tool_use_id")
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        ids.sort();
        ids
    };
    let mut want: Vec<String> = (0..5).map(|i| format!("toolu_down_{i}")).collect();
    want.push("toolu_back".into());
    want.sort();
    assert_eq!(ids(rx.wait_for(6)), want, "each decision once");
    run("toolu_after", T1);
    let got = ids(rx.wait_for(7));
    assert_eq!(got.len(), 7, "{got:?}");
    let until = Instant::now() + Duration::from_secs(60);
    let mut doctor = String::new();
    while Instant::now() < until && !doctor.contains("0 decision(s) waiting") {
        std::thread::sleep(Duration::from_millis(100));
        doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    }
    assert!(doctor.contains("0 decision(s) waiting"), "{doctor}");
    assert_eq!(ids(rx.records()).len(), 7, "nothing twice");
    // The outage was said on stderr once, by one run, not by every run.
    assert_eq!(said, 1);
}

#[test]
fn a_collector_that_never_answers_holds_no_run_the_deliverer_waits_after_it() {
    let mut sb = Sandbox::new();
    // A collector that takes the request and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", silent.local_addr().unwrap());
    exporting(&mut sb, &endpoint, "http/protobuf");
    sb.env
        .push(("OTEL_EXPORTER_OTLP_TIMEOUT".into(), "120000".into()));
    // The client reads the answer to the end of stdout and stderr: had the
    // deliverer kept either, this would wait for its two minutes.
    let out = sb.run(&with_id("rm -rf /", "toolu_silent"));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\"deny\""),
        "{out:?}"
    );
    // The run has exited; its deliverer is connected and still waiting.
    let (mut conn, _) = silent.accept().unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut request = vec![0; 64 * 1024];
    let n = conn.read(&mut request).unwrap();
    assert!(
        String::from_utf8_lossy(&request[..n]).starts_with("POST /v1/logs"),
        "{:?}",
        String::from_utf8_lossy(&request[..n])
    );
    conn.set_read_timeout(Some(Duration::from_secs(2))).unwrap();
    let mut rest = vec![0; 64 * 1024];
    loop {
        match conn.read(&mut rest) {
            Ok(0) => panic!("the deliverer gave up while the run was answered"),
            Ok(_) => continue,
            Err(e) => {
                assert!(
                    matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ),
                    "{e}"
                );
                break;
            }
        }
    }
    let doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("1 decision(s) waiting"), "{doctor}");
    // The collector hangs up: the deliverer fails, keeps the record, ends.
    drop(conn);
    failed_and_quiet(&sb);
    let doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    assert!(doctor.contains("1 decision(s) waiting"), "{doctor}");
}

#[test]
fn a_collector_that_rejects_the_records_does_not_hold_the_spool_and_hookrules_export_delivers() {
    let mut sb = Sandbox::new();
    let rejecting = Receiver::start(&sb.root.join("rejected.jsonl"), None, 400);
    exporting(&mut sb, &rejecting.endpoint(), "http/protobuf");
    sb.run(&with_id("rm -rf /", "toolu_rejected"));
    let until = Instant::now() + Duration::from_secs(60);
    let mut doctor = String::new();
    while Instant::now() < until && !doctor.contains("1 rejected") {
        std::thread::sleep(Duration::from_millis(100));
        doctor = String::from_utf8_lossy(&sb.hr(&["doctor"]).stdout).into_owned();
    }
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
    // A fixed clock: the deliverers the runs start stay paused after the
    // first failure; `hookrules export` by hand does not wait for the pause.
    sb.env.push(("HOOKRULES_NOW".into(), T0.into()));
    sb.run(&with_id("rm -rf /", "toolu_1"));
    sb.run(&tool_event(
        "PreToolUse",
        "Bash",
        json!({"command": "rm -rf ~"}),
        "toolu_2",
    ));
    failed_and_quiet(&sb);
    let rx = Receiver::start(&sb.root.join("received.jsonl"), Some(port), 200);
    let out = sb.hr(&["export"]);
    assert!(out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("2 delivered"),
        "{out:?}"
    );
    assert_eq!(rx.records().len(), 2);
}
