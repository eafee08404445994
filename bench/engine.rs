//! In-process benchmark of the library pipeline for one event: policy discovery,
//! parse, validate, compile and evaluate, through `hookrules::engine::run::in_process`
//! (what `hookrules run` does, minus process start-up and the final write).
//!
//!     cargo bench --bench engine            # every case
//!     cargo bench --bench engine -- 10k     # cases whose name contains "10k"
//!
//! Plain `std::time::Instant`, no benchmark framework. Each case runs a few warm-up
//! iterations, then iterates until it has `MAX_ITERS` samples or `BUDGET` has passed
//! (at least `MIN_ITERS`), and prints the median and p99 in microseconds. Timings on
//! a shared machine are noisy: compare medians, and re-run before concluding.
//! Synthetic policies come from `bench/gen_policies.py` (run here if missing).
//! This is a measurement, not a test: nothing is asserted about time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;

const WARMUP: usize = 3;
const MIN_ITERS: usize = 10;
const MAX_ITERS: usize = 2000;
const BUDGET: Duration = Duration::from_secs(3);

struct Case {
    name: String,
    event: Vec<u8>,
    policies: Vec<PathBuf>,
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // `cargo bench` passes `--bench`; the first other argument filters cases.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));

    // An empty project directory, so no project policies are picked up.
    let project =
        std::env::temp_dir().join(format!("hookrules-bench-engine-{}", std::process::id()));
    std::fs::create_dir_all(&project).expect("temp project dir");
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    env.insert("CLAUDE_PROJECT_DIR".into(), project.display().to_string());
    if let Ok(home) = std::env::var("HOME") {
        env.insert("HOME".into(), home);
    }

    let events = root.join("bench/events");
    let ev = |f: &str| std::fs::read(events.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
    let out = root.join("bench/out");
    let (p1k, p10k) = (out.join("policies-1k"), out.join("policies-10k"));
    if !p1k.is_dir() || !p10k.is_dir() {
        let st = std::process::Command::new("python3")
            .arg(root.join("bench/gen_policies.py"))
            .arg("--out")
            .arg(&out)
            .status()
            .expect("python3 bench/gen_policies.py");
        assert!(st.success(), "bench/gen_policies.py failed");
    }

    let builtin = |name: &str, file: &str| Case {
        name: format!("builtin {name}"),
        event: ev(file),
        policies: vec![],
    };
    let synthetic = |name: &str, file: &str, dir: &PathBuf| Case {
        name: name.to_string(),
        event: ev(file),
        policies: vec![dir.clone()],
    };
    let mut cases = vec![
        builtin("PreToolUse Bash (harmless)", "PreToolUse-Bash.json"),
        builtin(
            "PreToolUse Bash (rm -rf /)",
            "PreToolUse-Bash-rm-rf-root.json",
        ),
        builtin("PreToolUse Read", "PreToolUse-Read.json"),
        builtin("PreToolUse Write", "PreToolUse-Write.json"),
        builtin("PostToolUse Bash", "PostToolUse-Bash.json"),
        builtin("SubagentStop", "SubagentStop.json"),
        builtin("SessionStart", "SessionStart-startup.json"),
        synthetic("1k rules PreToolUse Bash", "PreToolUse-Bash.json", &p1k),
        synthetic("1k rules Stop", "Stop.json", &p1k),
        synthetic("10k rules PreToolUse Bash", "PreToolUse-Bash.json", &p10k),
        synthetic("10k rules Stop", "Stop.json", &p10k),
    ];
    // The same calls as another agent sends them: the difference to the Claude Code
    // cases above is the cost of recognising the envelope and normalising it.
    for (name, file) in [
        ("Gemini BeforeTool (harmless)", "PreToolUse-Bash.json"),
        (
            "Gemini BeforeTool (rm -rf /)",
            "PreToolUse-Bash-rm-rf-root.json",
        ),
    ] {
        let mut v: serde_json::Value = serde_json::from_slice(&ev(file)).expect("event JSON");
        v["hook_event_name"] = "BeforeTool".into();
        v["tool_name"] = "run_shell_command".into();
        v["timestamp"] = "2026-11-24T08:00:00.000Z".into();
        cases.push(Case {
            name: format!("builtin {name}"),
            event: serde_json::to_vec(&v).expect("serialise"),
            policies: vec![],
        });
    }
    cases.push(Case {
        name: "builtin PostToolUse Bash, 10 MB stdout".into(),
        event: big_event(&ev("PostToolUse-Bash.json"), 10 * 1024 * 1024),
        policies: vec![],
    });

    println!(
        "{:<42} {:>7} {:>12} {:>12}  decision",
        "case (in-process, in_process)", "iters", "median µs", "p99 µs"
    );
    for case in cases {
        if let Some(f) = &filter {
            if !case.name.contains(f.as_str()) {
                continue;
            }
        }
        let discovery = Discovery {
            flags: case.policies.clone(),
            env: None,
            project_dir: Some(project.clone()),
            user_dir: None,
            // A case that names policies measures them alone (1k/10k rules).
            no_builtin: !case.policies.is_empty(),
            // No state folder: nothing of the project layer is trusted.
            state_home: None,
            ..Discovery::default()
        };
        let once = || {
            let now = Now::current();
            let mut input: &[u8] = &case.event;
            in_process(
                &discovery,
                &mut input,
                &env.clone().into(),
                now,
                Hint::default(),
            )
        };
        let (answer, decision) = once();
        let summary = match &decision {
            Some(d) => {
                let kind = match d.kind {
                    Some(k) => k.as_str(),
                    None if !d.context.is_empty() => "context",
                    None => "none",
                };
                let mut s = format!("{kind} (matched {})", d.matched.len());
                if !d.errors.is_empty() {
                    s += &format!(", {} errors: {}", d.errors.len(), first_line(&d.errors[0]));
                }
                s
            }
            None => format!("no decision: {}", first_line(&answer.stderr)),
        };
        for _ in 1..WARMUP {
            std::hint::black_box(once());
        }
        let mut samples: Vec<f64> = Vec::new();
        let start = Instant::now();
        while samples.len() < MAX_ITERS && (samples.len() < MIN_ITERS || start.elapsed() < BUDGET) {
            let t = Instant::now();
            std::hint::black_box(once());
            samples.push(t.elapsed().as_secs_f64() * 1e6);
        }
        samples.sort_by(|a, b| a.total_cmp(b));
        println!(
            "{:<42} {:>7} {:>12.1} {:>12.1}  {}",
            case.name,
            samples.len(),
            percentile(&samples, 50.0),
            percentile(&samples, 99.0),
            summary
        );
    }
    // What recognising the agent costs on the hot path: parsing a Claude Code event
    // into an `Event` (JSON + recognition + `tool_class` / `host`) against parsing
    // the JSON alone.
    if filter.as_deref().is_none_or(|f| "recognise".contains(f)) {
        let bash = ev("PreToolUse-Bash.json");
        let time = |f: &dyn Fn()| {
            for _ in 0..1000 {
                f();
            }
            let mut samples: Vec<f64> = (0..20)
                .map(|_| {
                    let t = Instant::now();
                    for _ in 0..1000 {
                        f();
                    }
                    t.elapsed().as_secs_f64() * 1e3 // µs per call
                })
                .collect();
            samples.sort_by(|a, b| a.total_cmp(b));
            samples[samples.len() / 2]
        };
        let json_only = time(&|| {
            std::hint::black_box(serde_json::from_slice::<serde_json::Value>(&bash).unwrap());
        });
        let event = time(&|| {
            std::hint::black_box(hookrules::contract::Event::parse(&bash).unwrap());
        });
        println!(
            "{:<42} JSON only {json_only:.2} µs, Event::parse {event:.2} µs: recognition adds {:.2} µs",
            "recognise (PreToolUse Bash, per call)",
            event - json_only
        );
    }
    let _ = std::fs::remove_dir_all(&project);
}

/// Nearest-rank percentile of sorted samples.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("");
    if l.chars().count() > 160 {
        format!("{}…", l.chars().take(160).collect::<String>())
    } else {
        l.to_string()
    }
}

/// The sample PostToolUse Bash event with a `tool_response.stdout` of `size` bytes
/// of log-like text.
fn big_event(sample: &[u8], size: usize) -> Vec<u8> {
    let mut v: serde_json::Value = serde_json::from_slice(sample).expect("sample JSON");
    let mut s = String::with_capacity(size + 128);
    let mut i = 0u64;
    while s.len() < size {
        use std::fmt::Write;
        let _ = writeln!(
            s,
            "[{i:08}] PASS src/module_{}/test_{}.ts (12 ms) ok: all assertions held",
            i % 97,
            i % 13
        );
        i += 1;
    }
    s.truncate(size);
    v["tool_response"]["stdout"] = serde_json::Value::String(s);
    serde_json::to_vec(&v).expect("serialise")
}
