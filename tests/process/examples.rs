//! Every seed system in `examples/` passes its own fixtures with `hookrules test`,
//! in-process, exactly as a user runs it; and its policies lint without errors.

use std::path::{Path, PathBuf};

use hookrules::cli::check;
use hookrules::cli::test::run_all;
use hookrules::policy::discover::Discovery;

fn example_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("policies").is_dir() && p.join("fixtures").is_dir())
        .collect();
    dirs.sort();
    assert!(
        dirs.len() >= 5,
        "expected the five seed systems, found {dirs:?}"
    );
    dirs
}

#[test]
fn every_example_passes_its_fixtures() {
    let mut report = Vec::new();
    let mut failed = vec![];
    for dir in example_dirs() {
        let mut out = Vec::new();
        let summary = run_all(std::slice::from_ref(&dir), &Discovery::default(), &mut out);
        report.extend_from_slice(&out);
        // `todo` fixtures (known gaps) are allowed; one that passes is a failure.
        if summary.failed > 0 || summary.passed == 0 {
            failed.push(format!(
                "{}: {} passed, {} failed, {} todo",
                dir.display(),
                summary.passed,
                summary.failed,
                summary.skipped
            ));
        }
        if !summary.uncovered.is_empty() {
            failed.push(format!(
                "{}: rules no fixture exercises: {:?}",
                dir.display(),
                summary.uncovered
            ));
        }
    }
    assert!(
        failed.is_empty(),
        "{}\n\n{}",
        failed.join("\n"),
        String::from_utf8_lossy(&report)
    );
}

#[test]
fn every_example_lints_without_errors() {
    for dir in example_dirs() {
        let d = Discovery {
            flags: vec![dir.join("policies")],
            ..Discovery::default()
        };
        let report = check::collect(&d);
        let errors: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity() == hookrules::diagnostics::Severity::Error)
            .map(|d| d.one_line())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", dir.display());
    }
}

#[test]
fn a_todo_fixture_that_passes_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("policies")).unwrap();
    std::fs::create_dir_all(dir.path().join("fixtures")).unwrap();
    std::fs::write(
        dir.path().join("policies/p.toml"),
        "[[rule]]\nid = \"ctx\"\nevents = [\"SessionStart\"]\ncontext = \"hello\"\n",
    )
    .unwrap();
    let fixture = |todo: &str, decision: &str| {
        format!(
            r#"{{"event": {{"hook_event_name": "SessionStart", "source": "startup", "cwd": "/"}},
                 "expect": {{"decision": "{decision}", "todo": "{todo}"}}}}"#
        )
    };
    std::fs::write(
        dir.path().join("fixtures/gap.json"),
        fixture("a real gap", "deny"),
    )
    .unwrap();
    let mut out = vec![];
    let s = run_all(&[dir.path().to_path_buf()], &Discovery::default(), &mut out);
    assert_eq!(
        (s.failed, s.skipped),
        (0, 1),
        "{}",
        String::from_utf8_lossy(&out)
    );
    std::fs::write(
        dir.path().join("fixtures/stale.json"),
        fixture("fixed long ago", "none"),
    )
    .unwrap();
    let mut out = vec![];
    let s = run_all(&[dir.path().to_path_buf()], &Discovery::default(), &mut out);
    let text = String::from_utf8_lossy(&out);
    assert_eq!((s.failed, s.skipped), (1, 1), "{text}");
    assert!(
        text.contains("marked todo (fixed long ago) but it passes"),
        "{text}"
    );
}

/// The built-in pack stays on beneath every example however its policies are
/// loaded: copied into `.claude/hookrules/` (the fixtures' own
/// `builtin-rm-rf-root-still-denied`), and named with `--policies`, which loads
/// exactly what it names (each example names the pack with `extends`). Through the
/// real binary, as a user or another tool runs it.
#[test]
fn every_example_named_with_policies_still_denies_wide_deletes() {
    let bin = env!("CARGO_BIN_EXE_hookrules");
    let project = tempfile::tempdir().unwrap();
    let cwd = project.path().to_str().unwrap();
    let commands = [
        "rm -rf /",
        "rm -rf ~",
        "sudo rm -rf --no-preserve-root /",
        "cd / && rm -fr *",
    ];
    let mut failures = vec![];
    for dir in example_dirs() {
        let policies = dir.join("policies");
        for command in commands {
            let event = serde_json::json!({
                "hook_event_name": "PreToolUse", "session_id": "s", "cwd": cwd,
                "transcript_path": format!("{cwd}/t.jsonl"),
                "tool_name": "Bash", "tool_input": { "command": command },
            });
            let out = crate::support::feed(
                std::process::Command::new(bin)
                    .args(["run", "-p"])
                    .arg(&policies)
                    .env("CLAUDE_PROJECT_DIR", cwd)
                    .env("HOOKRULES_DEADLINE_MS", "20000"),
                &event,
            );
            let stdout = String::from_utf8_lossy(&out.stdout);
            if !stdout.contains(r#""permissionDecision":"deny""#) {
                failures.push(format!(
                    "{} with `{command}`: {stdout}{}",
                    dir.display(),
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}
