//! The compiled-set artifact changes nothing: answered from the artifact (warm),
//! while building it (cold) and without any cache (the set built in memory),
//! every decision and every byte of output is the same. Checked on every fourth
//! command of the corpus, every reference sample and every seed fixture event,
//! against the built-in pack and the seed policies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::cli::run::run_detailed;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (name, event, is a corpus command)
fn events() -> Vec<(String, Value, bool)> {
    let mut out = vec![];
    let mut corpus_files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    corpus_files.sort();
    let mut cases = vec![];
    for f in &corpus_files {
        let corpus: toml::Table = toml::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        cases.extend(corpus["case"].as_array().unwrap().clone());
    }
    // Every fourth command case of the corpus (about 620, deterministic): enough
    // variety for the index, and the test stays within the CI budget.
    for case in cases
        .iter()
        .filter(|c| c.get("command").is_some())
        .step_by(4)
    {
        let cmd = case["command"].as_str().unwrap();
        out.push((
            cmd.to_string(),
            serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": cmd}, "session_id": "s"}),
            true,
        ));
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/samples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for dir in std::fs::read_dir(root().join("examples")).unwrap() {
        let fx = dir.unwrap().path().join("fixtures");
        if fx.is_dir() {
            files.extend(std::fs::read_dir(fx).unwrap().map(|e| e.unwrap().path()));
        }
    }
    files.sort();
    for f in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
    {
        let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        let mut ev = if v.get("hook_event_name").is_some() {
            v
        } else {
            v["event"].clone()
        };
        // The project is a scratch folder: never let an event point elsewhere.
        if let Some(o) = ev.as_object_mut() {
            o.remove("cwd");
        }
        out.push((f.display().to_string(), ev, false));
    }
    out
}

/// One run in a fresh, empty project at `project` (effects write there, and the
/// three runs compared must start from the same state).
fn answer(
    d: &Discovery,
    ev: &Value,
    cache: Option<&Path>,
    project: &Path,
) -> (String, String, Option<String>) {
    let _ = std::fs::remove_dir_all(project);
    std::fs::create_dir_all(project).unwrap();
    let mut env = BTreeMap::new();
    env.insert(
        "HOME".to_string(),
        project.join("home").display().to_string(),
    );
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        project.display().to_string(),
    );
    match cache {
        Some(dir) => env.insert("HOOKRULES_CACHE_DIR".to_string(), dir.display().to_string()),
        None => env.insert("HOOKRULES_CACHE".to_string(), "off".to_string()),
    };
    let (a, d) = run_detailed(
        d,
        &mut ev.to_string().as_bytes(),
        &env,
        Now::at(1_763_700_000),
    );
    (
        a.stdout,
        a.stderr,
        d.and_then(|d| d.kind).map(|k| k.as_str().to_string()),
    )
}

#[test]
fn the_compiled_artifact_changes_no_answer() {
    let cache = tempfile::tempdir().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("proj");
    let mut policy_sets: Vec<Vec<PathBuf>> = vec![vec![
        "builtin:destructive".into(),
        "builtin:secrets".into(),
        "builtin:system-paths".into(),
        "builtin:persistence".into(),
    ]];
    for dir in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = dir.unwrap().path().join("policies");
        if p.is_dir() {
            policy_sets.push(vec![p]);
        }
    }
    let events = events();
    assert!(events.len() > 700);
    let mut differences = vec![];
    for flags in &policy_sets {
        let d = Discovery {
            flags: flags.clone(),
            ..Discovery::default()
        };
        // The corpus commands against the built-in pack and one seed set; every
        // sample and fixture against every set.
        let corpus = flags.len() == 3 || flags[0].ends_with("001-enforcement-hooks/policies");
        for (i, (name, ev, _)) in events
            .iter()
            .filter(|(_, _, is_corpus)| corpus || !is_corpus)
            .enumerate()
        {
            let off = answer(&d, ev, None, &project);
            // Cold: every 16th event starts from an empty cache.
            if i % 16 == 0 {
                let _ = std::fs::remove_dir_all(cache.path());
            }
            let first = answer(&d, ev, Some(cache.path()), &project);
            let warm = answer(&d, ev, Some(cache.path()), &project);
            if off != first || off != warm {
                differences.push(format!(
                    "{flags:?} {name}:\n  no cache: {off:?}\n  first:    {first:?}\n  warm:     {warm:?}"
                ));
            }
        }
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences[..differences.len().min(10)].join("\n")
    );
    let cached = std::fs::read_dir(cache.path()).unwrap().count();
    assert!(cached >= 1, "the artifacts are written ({cached} files)");
}
