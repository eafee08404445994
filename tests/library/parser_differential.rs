//! Every line bash accepts, the shell analysis parses (issue 30, item 6).
//!
//! `tests/parser/` holds real commands written from many tools' documented
//! examples and lines exercising bash's grammar (see its README). Each entry
//! goes to `bash -n` (parse, do not run) and to `shell::command::parse`: an
//! entry bash accepts must parse, since a command that does not parse asks
//! whatever it does; and every entry must be one bash accepts, so the corpus
//! holds commands, not typos. Without bash the test says so on stderr and
//! passes (it cannot compare with nothing).

use std::path::PathBuf;
use std::process::{Command, Stdio};

use hookrules::shell::command::parse;

fn corpus() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/parser");
    let mut out = Vec::new();
    for name in ["commands.txt", "syntax.txt", "scripts.txt"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("corpus file");
        if name == "scripts.txt" {
            for (i, e) in text.split("\n----\n").enumerate() {
                let e = e.trim_matches('\n');
                if !e.is_empty() {
                    out.push((format!("{name} entry {}", i + 1), e.to_string()));
                }
            }
        } else {
            for (i, line) in text.lines().enumerate() {
                if !line.trim().is_empty() && !line.starts_with("# ") {
                    out.push((format!("{name}:{}", i + 1), line.to_string()));
                }
            }
        }
    }
    out
}

/// `bash -n -c TEXT`: does bash accept it?
fn bash_accepts(text: &str) -> bool {
    Command::new("bash")
        .args(["-n", "-c", text])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn every_line_bash_accepts_parses() {
    if Command::new("bash")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        eprintln!(
            "SKIPPED every_line_bash_accepts_parses: `bash` is not installed, so there is \
             nothing to compare the parser with. Install bash to run this test."
        );
        return;
    }
    let entries = corpus();
    assert!(
        entries.len() > 1000,
        "the corpus holds {} entries",
        entries.len()
    );
    // bash -n once per entry, on every core.
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let chunk = entries.len().div_ceil(threads);
    let accepted: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = entries
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|(_, e)| bash_accepts(e))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a bash -n thread"))
            .collect()
    });
    let mut rejected = Vec::new();
    let mut failed = Vec::new();
    for ((at, text), ok) in entries.iter().zip(&accepted) {
        if !ok {
            rejected.push(format!("{at}: {text}"));
        } else if let Err(e) = parse(text) {
            failed.push(format!(
                "{at}: {e}\n    | {}",
                text.replace('\n', "\n    | ")
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{} of {} entries that bash accepts do not parse:\n{}",
        failed.len(),
        entries.len(),
        failed.join("\n")
    );
    assert!(
        rejected.is_empty(),
        "entries bash rejects (the corpus holds real commands):\n{}",
        rejected.join("\n")
    );
}
