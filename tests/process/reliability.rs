//! Reliability and security of `hookrules run` (and the authoring commands), on
//! the real binary: faults, hostile input and races.
//!
//! Most cases are data: `tests/reliability/*.toml`, one sandbox and one run per
//! case, checked by the harness in `tests/reliability/harness.rs` (the format is
//! described in `tests/reliability/README.md`). Races and concurrency, which do
//! not fit a table, are the Rust tests at the end of this file.
//!
//! `HOOKRULES_FAULT_TABLE=DIR cargo test --release --test process reliability::` also
//! writes each data file's measured times to `DIR/<file>.tsv`, from which
//! `tests/reliability/fault_table.py DIR` prints the README's fault table.

#[path = "../reliability/harness.rs"]
mod harness;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use harness::{decision_of, Out, Sandbox};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/reliability")
}

/// Run one data file; all its failures at once.
fn data(name: &str) {
    let path = data_dir().join(format!("{name}.toml"));
    let (problems, timings) = harness::run_file(&path);
    if let Ok(dir) = std::env::var("HOOKRULES_FAULT_TABLE") {
        let mut tsv = String::new();
        for t in &timings {
            tsv.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\n",
                t.name,
                t.fault.as_deref().unwrap_or(""),
                t.sees.as_deref().unwrap_or(""),
                t.issue.as_deref().unwrap_or(""),
                t.answered.as_millis(),
                t.exited.as_millis()
            ));
        }
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{name}.tsv")), tsv).unwrap();
    }
    assert!(
        problems.is_empty(),
        "{} problem(s):\n\n{}",
        problems.len(),
        problems.join("\n\n")
    );
}

macro_rules! data_files {
    ($($name:ident),* $(,)?) => {
        $( #[test] fn $name() { data(stringify!($name)); } )*
        const DATA_FILES: &[&str] = &[$(stringify!($name)),*];
    };
}

data_files!(
    stdin,
    policies,
    builtin,
    processes,
    effects,
    confinement,
    templates,
    shell,
    scripts,
    project_files,
    code_files,
    runners,
    deadline
);

#[test]
fn every_data_file_is_run() {
    let mut on_disk: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "toml")
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = DATA_FILES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(on_disk, listed, "add new data files to data_files!");
}

/// The README's fault table is generated from the cases (`fault_table.py`):
/// every case with a `fault` has its row, in file order, with the words of the
/// case and its measured times; no row names a case that does not exist. The
/// times themselves are measured, not checked (see the module doc).
#[test]
fn readme_fault_table_is_the_cases() {
    let readme = std::fs::read_to_string(data_dir().join("../../README.md")).unwrap();
    let (start, end) = ("<!-- fault-table:start -->", "<!-- fault-table:end -->");
    let table = readme
        .split_once(start)
        .and_then(|(_, rest)| rest.split_once(end))
        .map(|(t, _)| t)
        .expect("README.md holds the fault table between fault-table markers");
    let mut expected = vec![];
    let mut files = DATA_FILES.to_vec();
    files.sort();
    for file in files {
        for case in harness::cases(&data_dir().join(format!("{file}.toml"))) {
            let Some(fault) = &case.fault else { continue };
            let issue = case
                .issue
                .as_ref()
                .map(|i| format!(" (#{i})"))
                .unwrap_or_default();
            expected.push(format!(
                "| {fault}{issue} | {} | `{file}.toml`: `{}` |",
                case.sees.as_deref().unwrap_or(""),
                case.name
            ));
        }
    }
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| fault"))
        .collect();
    let mut problems = vec![];
    for (i, want) in expected.iter().enumerate() {
        match rows.get(i) {
            Some(row) if row.starts_with(want.as_str()) => {
                // Then the longest time to an answer and to exit, measured.
                let times: Vec<&str> = row[want.len()..]
                    .split('|')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect();
                let measured = |t: &str| {
                    t.strip_suffix(" ms")
                        .is_some_and(|n| n.parse::<u64>().is_ok())
                };
                if times.len() != 2 || !times.iter().all(|t| measured(t)) {
                    problems.push(format!("row {}: times missing: {row}", i + 1));
                }
            }
            Some(row) => {
                problems.push(format!("row {}:\n  README: {row}\n  cases:  {want}", i + 1))
            }
            None => problems.push(format!("missing row: {want}")),
        }
    }
    for row in rows.iter().skip(expected.len()) {
        problems.push(format!("row for no case: {row}"));
    }
    assert!(
        problems.is_empty(),
        "the README's fault table differs from tests/reliability/*.toml; regenerate it:\n  \
         HOOKRULES_BIN=$PWD/target/release/hookrules HOOKRULES_FAULT_TABLE=/tmp/ft cargo test --test process reliability::\n  \
         python3 tests/reliability/fault_table.py /tmp/ft --write README.md\n\n{}",
        problems.join("\n")
    );
}

// ===========================================================================
// Races and concurrency: not a table.
// ===========================================================================

/// `hookrules run --policies POLICY` on `stdin`.
/// `run` with only the policy at `policy`: these tests are about how that file
/// (and what its rules write) is read and replaced under races, not about the
/// built-in pack, whose compilation would be most of each run's time and keep
/// the races' spinning threads on a core for a minute.
fn run_with(sb: &Sandbox, policy: &Path, stdin: String) -> Out {
    sb.spawn(
        &[
            "run".to_string(),
            "--no-builtin".to_string(),
            "--policies".to_string(),
            policy.display().to_string(),
        ],
        &BTreeMap::new(),
        stdin.into_bytes(),
        false,
    )
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
    sb.write("policies/live.toml", &a);
    let path = sb.path("policies/live.toml");
    let stop = Arc::new(AtomicBool::new(false));
    let swaps = Arc::new(AtomicUsize::new(0));
    let writer = {
        let (stop, swaps, path) = (stop.clone(), swaps.clone(), path.clone());
        let tmp = sb.path("policies/.live.toml.tmp");
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !stop.load(Ordering::Relaxed) {
                std::fs::write(&tmp, if i.is_multiple_of(2) { &b } else { &a }).unwrap();
                std::fs::rename(&tmp, &path).unwrap();
                swaps.fetch_add(1, Ordering::Relaxed);
                i += 1;
            }
        })
    };
    let ev = harness::pre_bash(&sb.project.display().to_string(), "ls -la");
    let (mut seen_a, mut seen_b) = (0, 0);
    for _ in 0..200 {
        let out = run_with(&sb, &path, ev.clone());
        assert_eq!(out.code, Some(0), "{out:?}");
        match decision_of(&out.stdout) {
            (d, r) if d == "deny" && r == "version A" => seen_a += 1,
            (d, r) if d == "ask" && r == "version B" => seen_b += 1,
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

#[test]
fn write_file_is_atomic_under_200_rewrites_of_1_mb() {
    const SIZE: usize = 1 << 20;
    let sb = Arc::new(Sandbox::new());
    sb.write(
        "policies/writer.toml",
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
    let p = sb.path("policies/writer.toml");
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
            let (p, sb) = (p.clone(), sb.clone());
            std::thread::spawn(move || {
                for i in 0..100 {
                    let fill = (b'a' + ((w * 100 + i) % 26) as u8) as char;
                    let ev = serde_json::json!({
                        "session_id": "s", "cwd": sb.project, "hook_event_name": "PreToolUse",
                        "tool_name": "Write",
                        "tool_input": {"file_path": "big.txt", "content": fill.to_string().repeat(SIZE)},
                    });
                    let out = run_with(&sb, &p, ev.to_string());
                    assert_eq!(out.code, Some(0), "{out:?}");
                    assert_eq!(decision_of(&out.stdout).0, "allow", "{out:?}");
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
    let sb = Arc::new(Sandbox::new());
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
    sb.write("policies/metrics.toml", &policy);
    let p = sb.path("policies/metrics.toml");
    let children: Vec<JoinHandle<Out>> = (0..PROCS)
        .map(|w| {
            let (p, sb) = (p.clone(), sb.clone());
            std::thread::spawn(move || {
                let pad = ((b'A' + (w % 26) as u8) as char).to_string().repeat(4000);
                let ev = serde_json::json!({
                    "session_id": format!("w{w}"), "cwd": sb.project,
                    "hook_event_name": "PostToolUse", "tool_name": "Bash",
                    "tool_input": {"command": "true", "pad": pad}, "tool_response": {},
                });
                // The registration's timeout raised (`run --timeout`, as a user
                // may): what this test measures is the appends, not the
                // deadline. Fifty debug builds started at once on two cores
                // (about 0.25 s of CPU each) took over the 10 s default to
                // all read their event, and the watchdog answered first.
                sb.spawn(
                    &[
                        "run".to_string(),
                        "--timeout".to_string(),
                        "120".to_string(),
                        "--policies".to_string(),
                        p.display().to_string(),
                    ],
                    &BTreeMap::new(),
                    ev.to_string().into_bytes(),
                    false,
                )
            })
        })
        .collect();
    for c in children {
        let out = c.join().unwrap();
        assert_eq!(out.code, Some(0), "{out:?}");
        assert_eq!(out.stdout, "", "{out:?}");
    }
    let text = std::fs::read_to_string(sb.project.join("logs/all.jsonl")).unwrap();
    assert!(text.ends_with('\n'), "last line incomplete");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), PROCS * LINES, "lines lost or split");
    let mut seen = BTreeSet::new();
    for (i, line) in lines.iter().enumerate() {
        let j: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("line {i} is not JSON ({e}): {:.120}", line));
        let worker = j["worker"].as_str().expect("worker").to_string();
        let n = j["n"].as_u64().expect("n") as usize;
        let pad = j["pad"].as_str().expect("pad");
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
