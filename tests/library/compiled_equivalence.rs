//! The compiled-set artifact changes nothing: answered from the artifact (warm),
//! while building it (cold), without any cache (the set built in memory), and
//! for the built-in pack alone from the pack embedded in the binary, every
//! decision and every byte of output is the same. Checked on every fourth
//! command of the corpus, every reference sample and every seed fixture event,
//! against the built-in pack and the seed policies.
//!
//! Each policy set is loaded once in each of those ways, and every event is
//! answered by each loaded set (`in_process_with`): what differs between them
//! is where the rules are read from, which the loaded set holds.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::compile::artifact::{self, SetOrigin};
use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process_with;
use hookrules::engine::Set;
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

/// One answer in a fresh, empty project at `project` (effects write there, and
/// the answers compared must start from the same state), from a set loaded
/// once for every event.
fn answer(set: &Set, ev: &Value, from: From, project: &Path) -> (String, String, Option<String>) {
    let _ = std::fs::remove_dir_all(project);
    std::fs::create_dir_all(project).unwrap();
    let env = env_for(project, from);
    let (a, d) = in_process_with(
        set,
        &mut ev.to_string().as_bytes(),
        &env.clone().into(),
        Now::at(1_763_700_000),
        Hint::default(),
    );
    (
        a.stdout,
        a.stderr,
        d.and_then(|d| d.kind).map(|k| k.as_str().to_string()),
    )
}

/// The set `run` loads with `from` in a fresh, empty project, and where it came
/// from.
fn load(d: &Discovery, from: From, project: &Path) -> (Set, SetOrigin) {
    let _ = std::fs::remove_dir_all(project);
    std::fs::create_dir_all(project).unwrap();
    let set = Set::load(d, &env_for(project, from).into());
    let origin = set.loaded().origin();
    (set, origin)
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
    let origin = |d: &Discovery, from| artifact::load(d, &env_for(&project, from).into()).origin();
    assert_eq!(origin(&policy_sets[0], From::Embedded), SetOrigin::Embedded);
    assert_eq!(origin(&policy_sets[0], From::Policies), SetOrigin::Built);
    let events = events();
    assert!(events.len() > 700);
    let mut differences = vec![];
    for (n, d) in policy_sets.iter().enumerate() {
        let builtin_alone = n == 0;
        // Each set is loaded once per way `run` can take it, then answers every
        // event: built from the policies (no cache), built while writing the
        // cache (cold: an empty cache), read from that cache (warm), and for
        // the built-in pack alone the pack embedded in the binary.
        let (off, o) = load(d, From::Policies, &project);
        assert_eq!(o, SetOrigin::Built, "{:?}", d.flags);
        let _ = std::fs::remove_dir_all(cache.path());
        let (cold, o) = load(d, From::Cache(cache.path()), &project);
        assert_eq!(o, SetOrigin::Built, "{:?}: the cache was empty", d.flags);
        let (warm, o) = load(d, From::Cache(cache.path()), &project);
        assert!(
            matches!(o, SetOrigin::Cache(_)),
            "{:?}: the set is read from the cache its cold load wrote ({o:?})",
            d.flags
        );
        let embedded = builtin_alone.then(|| {
            let (set, o) = load(d, From::Embedded, &project);
            assert_eq!(o, SetOrigin::Embedded);
            set
        });
        // The corpus commands against the built-in pack and one seed set; every
        // sample and fixture against every set.
        let corpus = builtin_alone || d.flags[0].ends_with("001-enforcement-hooks/policies");
        // The corpus commands of the built-in pack: every eighth.
        for (i, (name, ev, _)) in events
            .iter()
            .enumerate()
            .filter(|(j, (_, _, is_corpus))| !is_corpus || corpus && (!builtin_alone || j % 2 == 0))
            .map(|(_, e)| e)
            .enumerate()
        {
            let cache_dir = From::Cache(cache.path());
            let off = answer(&off, ev, From::Policies, &project);
            // Every 16th event also from the set built while writing the cache.
            let first = if i % 16 == 0 {
                answer(&cold, ev, cache_dir, &project)
            } else {
                off.clone()
            };
            let warm = answer(&warm, ev, cache_dir, &project);
            let embedded = match &embedded {
                Some(set) => answer(set, ev, From::Embedded, &project),
                None => off.clone(),
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
