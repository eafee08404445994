//! The README's walk-through (write a rule, break it, fix it, write its fixture,
//! test it) is run as written: each ```` ```toml file=PATH ```` or
//! ```` ```json file=PATH ```` block is written into a fresh project, and each
//! `$ command` line of a ```` ```console ```` block is run with the real binary
//! (from a subfolder-free project root, without `CLAUDE_PROJECT_DIR`, colours
//! off), its output compared with the lines below it. In expected output, a
//! line `...` stands for any lines, and `[..]` for any part of a line.
//!
//! Also: the fixture format the README shows is the one `hookrules test --help`
//! prints.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The walk-through section's fenced blocks: (info string, body).
fn blocks(section: &str) -> Vec<(String, String)> {
    let mut out = vec![];
    let mut lines = section.lines();
    while let Some(l) = lines.next() {
        let Some(info) = l.strip_prefix("```") else {
            continue;
        };
        let mut body = vec![];
        for b in lines.by_ref() {
            if b.starts_with("```") {
                break;
            }
            body.push(b);
        }
        out.push((info.trim().to_string(), body.join("\n")));
    }
    out
}

/// Does `got` match `want` (with `...` lines and `[..]` wildcards)?
fn matches(want: &[&str], got: &[&str]) -> bool {
    match want.split_first() {
        None => got.is_empty(),
        Some((&"...", rest)) => (0..=got.len()).any(|skip| matches(rest, &got[skip..])),
        Some((w, rest)) => !got.is_empty() && line_matches(w, got[0]) && matches(rest, &got[1..]),
    }
}

fn line_matches(want: &str, got: &str) -> bool {
    let parts: Vec<&str> = want.split("[..]").collect();
    if parts.len() == 1 {
        return want.trim_end() == got.trim_end();
    }
    let mut at = 0;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            if !got.starts_with(p) {
                return false;
            }
            at = p.len();
        } else if i == parts.len() - 1 {
            return got.trim_end().len() >= at && got.trim_end()[at..].ends_with(p.trim_end());
        } else {
            match got[at..].find(p) {
                Some(k) => at += k + p.len(),
                None => return false,
            }
        }
    }
    true
}

fn run(cmd: &str, project: &Path) -> String {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_hookrules"));
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .current_dir(project)
        .env_clear()
        .env("PATH", path)
        .env("HOME", project.join("home"))
        .env("NO_COLOR", "1")
        .env("HOOKRULES_CACHE", "off")
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn the_readme_walkthrough_runs_as_written() {
    let text = readme();
    let start = text
        .find("### Walk-through: write a rule, break it, fix it, test it")
        .expect("the README has the walk-through");
    let end = text[start + 4..]
        .find("\n## ")
        .map(|i| start + 4 + i)
        .unwrap_or(text.len());
    let section = &text[start..end];
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(project.join("home")).unwrap();
    let mut files = 0;
    let mut commands = 0;
    let mut failures = vec![];
    for (info, body) in blocks(section) {
        if let Some(path) = info
            .split_whitespace()
            .find_map(|w| w.strip_prefix("file="))
        {
            let p = project.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, format!("{body}\n")).unwrap();
            files += 1;
        } else if info == "console" {
            // `$ cmd` lines, each followed by its expected output.
            let mut steps: Vec<(String, Vec<&str>)> = vec![];
            for line in body.lines() {
                match line.strip_prefix("$ ") {
                    Some(cmd) => steps.push((cmd.to_string(), vec![])),
                    None => steps
                        .last_mut()
                        .expect("output after a command")
                        .1
                        .push(line),
                }
            }
            for (cmd, want) in steps {
                commands += 1;
                let got = run(&cmd, &project);
                let got_lines: Vec<&str> = got.trim_end_matches('\n').lines().collect();
                if !matches(&want, &got_lines) {
                    failures.push(format!(
                        "$ {cmd}\n--- README says\n{}\n--- got\n{got}",
                        want.join("\n")
                    ));
                }
            }
        }
    }
    assert!(
        files >= 3 && commands >= 5,
        "the walk-through lost its steps"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn the_readme_shows_the_fixture_format_test_help_prints() {
    let text = readme();
    assert!(
        text.contains(hookrules::cli::fixture::FORMAT),
        "README.md must quote the fixture format of `hookrules test --help` (src/cli/fixture.rs FORMAT) verbatim"
    );
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_hookrules"));
    let help = Command::new(bin).args(["test", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for line in hookrules::cli::fixture::FORMAT
        .lines()
        .filter(|l| !l.trim().is_empty())
    {
        assert!(help.contains(line.trim()), "`test --help` lacks: {line}");
    }
}

#[test]
fn wildcards() {
    assert!(line_matches("a [..] c", "a bbb c"));
    assert!(line_matches(
        "0 error(s) in [..] policies",
        "0 error(s) in 5 policies"
    ));
    assert!(!line_matches("a [..] c", "a bbb d"));
    assert!(matches(&["x", "...", "z"], &["x", "y", "y", "z"]));
    assert!(!matches(&["x", "z"], &["x", "y", "z"]));
}
