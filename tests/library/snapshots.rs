//! Human-facing output, checked as snapshots: the rendered `check` diagnostics for
//! deliberately broken and tricky policies (`tests/diagnostics/*.toml`), and the
//! `explain` traces of tricky events against the built-in pack (`tests/traces`).
//! `HOOKRULES_BLESS=1 cargo test --test library snapshots::` rewrites the `.snap` files;
//! review the diff before committing.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::cli::{check, explain, Format, Verbosity};
use hookrules::policy::discover::Discovery;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Compare with (or, blessing, write) `path.snap`; returns a mismatch message.
fn snapshot(path: &Path, actual: &str) -> Option<String> {
    let snap = path.with_extension("snap");
    if std::env::var_os("HOOKRULES_BLESS").is_some() {
        std::fs::write(&snap, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&snap).unwrap_or_default();
    (expected != actual).then(|| {
        format!(
            "{} differs:\n--- expected\n{expected}\n--- actual\n{actual}",
            snap.display()
        )
    })
}

#[test]
fn check_diagnostics_match_their_snapshots() {
    let mut problems = vec![];
    for policy in files("tests/diagnostics", "toml") {
        // A relative path, so the snapshot does not depend on where the repo is.
        let rel = policy.strip_prefix(root()).unwrap().to_path_buf();
        let d = Discovery {
            flags: vec![rel],
            ..Discovery::default()
        };
        let mut out = Vec::new();
        let status = std::env::set_current_dir(root())
            .map(|_| check::check(&d, Format::Human, false, &mut out));
        let text = format!(
            "exit status: {}\n\n{}",
            status.unwrap(),
            String::from_utf8(out).unwrap()
        );
        problems.extend(snapshot(&policy, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn explain_traces_match_their_snapshots() {
    let mut problems = vec![];
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    // No cache: nothing is written into a home that is not this test's.
    env.insert("HOOKRULES_CACHE".to_string(), "off".to_string());
    env.insert("HOOKRULES_NOW".to_string(), "1763700000".to_string());
    for fixture in files("tests/traces", "json") {
        let d = Discovery {
            flags: [
                "builtin:destructive",
                "builtin:secrets",
                "builtin:system-paths",
            ]
            .map(PathBuf::from)
            .to_vec(),
            // These three only, as named (the pack would add self-protection).
            no_builtin: true,
            ..Discovery::default()
        };
        let mut out = Vec::new();
        let mut err = Vec::new();
        explain::explain(
            &fixture,
            &d,
            &env.clone().into(),
            Verbosity::Full,
            Format::Human,
            &mut out,
            &mut err,
        );
        let text = String::from_utf8(out).unwrap() + &String::from_utf8(err).unwrap();
        problems.extend(snapshot(&fixture, &text));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_check_snapshot_shows_a_code_and_a_pointer() {
    for snap in files("tests/diagnostics", "snap") {
        let text = std::fs::read_to_string(&snap).unwrap();
        assert!(
            text.contains("HR0") || text.contains("HR1"),
            "{}: no diagnostic code",
            snap.display()
        );
        assert!(
            text.contains("╭─["),
            "{}: no source pointer",
            snap.display()
        );
    }
}
