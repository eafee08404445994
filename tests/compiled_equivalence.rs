//! The compiled-set artifact changes nothing: answered from the artifact (warm),
//! while building it (cold), without any cache (the set built in memory), and
//! for the built-in pack alone from the pack embedded in the binary, every
//! decision and every byte of output is the same. Checked on every fourth
//! command of the corpus, every reference sample and every seed fixture event,
//! against the built-in pack and the seed policies.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::compile::artifact::{self, SetOrigin};
use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process;
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

/// Where `run` takes its compiled set from.
#[derive(Clone, Copy)]
enum From<'a> {
    /// Built from the policies (no cache, nothing embedded).
    Policies,
    /// The cache in this folder.
    Cache(&'a Path),
    /// The built-in pack embedded in the binary (no cache).
    Embedded,
}

fn env_for(project: &Path, from: From) -> BTreeMap<String, String> {
    let mut env = BTreeMap::new();
    env.insert(
        "HOME".to_string(),
        project.join("home").display().to_string(),
    );
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        project.display().to_string(),
    );
    // The user's state (its key signs the cache) outlives the project, which
    // each run starts afresh.
    env.insert(
        "XDG_STATE_HOME".to_string(),
        project.with_file_name("state").display().to_string(),
    );
    match from {
        From::Cache(dir) => {
            env.insert("HOOKRULES_CACHE_DIR".to_string(), dir.display().to_string())
        }
        From::Policies | From::Embedded => {
            env.insert("HOOKRULES_CACHE".to_string(), "off".to_string())
        }
    };
    if !matches!(from, From::Embedded) {
        env.insert("HOOKRULES_EMBEDDED".to_string(), "off".to_string());
    }
    env
}

/// One run in a fresh, empty project at `project` (effects write there, and the
/// runs compared must start from the same state).
fn answer(
    d: &Discovery,
    ev: &Value,
    from: From,
    project: &Path,
) -> (String, String, Option<String>) {
    let _ = std::fs::remove_dir_all(project);
    std::fs::create_dir_all(project).unwrap();
    let env = env_for(project, from);
    let (a, d) = in_process(
        d,
        &mut ev.to_string().as_bytes(),
        &env,
        Now::at(1_763_700_000),
        Hint::default(),
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
    // The built-in pack alone (no policy in any layer: `run` takes it from the
    // binary), then each seed's policies (over the pack).
    let mut policy_sets: Vec<Discovery> = vec![Discovery {
        project_dir: Some(project.clone()),
        user_dir: Some(project.join("home/.config/hookrules")),
        ..Discovery::default()
    }];
    for dir in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = dir.unwrap().path().join("policies");
        if p.is_dir() {
            policy_sets.push(Discovery {
                flags: vec![p],
                ..Discovery::default()
            });
        }
    }
    std::fs::create_dir_all(&project).unwrap();
    let origin = |d: &Discovery, from| artifact::load(d, &env_for(&project, from)).origin();
    assert_eq!(origin(&policy_sets[0], From::Embedded), SetOrigin::Embedded);
    assert_eq!(origin(&policy_sets[0], From::Policies), SetOrigin::Built);
    let events = events();
    assert!(events.len() > 700);
    let mut differences = vec![];
    for (n, d) in policy_sets.iter().enumerate() {
        let builtin_alone = n == 0;
        // The corpus commands against the built-in pack and one seed set; every
        // sample and fixture against every set.
        let corpus = builtin_alone || d.flags[0].ends_with("001-enforcement-hooks/policies");
        // The corpus commands of the built-in pack: every eighth (the CI budget;
        // its answers from the TOML are compiled anew for each).
        for (i, (name, ev, _)) in events
            .iter()
            .enumerate()
            .filter(|(j, (_, _, is_corpus))| !is_corpus || corpus && (!builtin_alone || j % 2 == 0))
            .map(|(_, e)| e)
            .enumerate()
        {
            let off = answer(d, ev, From::Policies, &project);
            // Cold: every 16th event starts from an empty cache.
            if i % 16 == 0 {
                let _ = std::fs::remove_dir_all(cache.path());
            }
            let first = answer(d, ev, From::Cache(cache.path()), &project);
            let warm = answer(d, ev, From::Cache(cache.path()), &project);
            let embedded = if builtin_alone {
                answer(d, ev, From::Embedded, &project)
            } else {
                off.clone()
            };
            if off != first || off != warm || off != embedded {
                differences.push(format!(
                    "{:?} {name}:\n  no cache: {off:?}\n  first:    {first:?}\n  warm:     {warm:?}\n  embedded: {embedded:?}",
                    d.flags
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
