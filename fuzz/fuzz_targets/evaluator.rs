//! Arbitrary bytes as the event on stdin of `hookrules run`, answered by
//! `engine::run::in_process` against the built-in pack and against each example
//! policy set in `examples/*/policies`. Nothing may panic (`in_process` catches
//! panics in evaluation and turns them into an "internal error" answer: that
//! counts as a crash here too), and the answer must be one JSON object or nothing.
//!
//! Effects write into a scratch project directory (CLAUDE_PROJECT_DIR), emptied
//! now and then; PATH points nowhere, so command facts fail to start instead of
//! running `npm test` or `cargo test` on every input.
#![no_main]

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;
use libfuzzer_sys::fuzz_target;

struct Setup {
    discoveries: Vec<(String, Discovery)>,
    env: hookrules::os::env::Env,
    project: PathBuf,
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let project = std::env::temp_dir().join(format!("hookrules-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&project).expect("scratch project dir");
        let examples = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"));
        let mut discoveries = vec![(
            "builtin".to_string(),
            Discovery {
                flags: vec![
                    PathBuf::from("builtin:destructive"),
                    PathBuf::from("builtin:secrets"),
                    PathBuf::from("builtin:system-paths"),
                ],
                ..Discovery::default()
            },
        )];
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&examples)
            .expect("examples/")
            .filter_map(|e| e.ok().map(|e| e.path().join("policies")))
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for d in dirs {
            discoveries.push((
                d.display().to_string(),
                Discovery {
                    flags: vec![d],
                    ..Discovery::default()
                },
            ));
        }
        let mut env = BTreeMap::new();
        env.insert(
            "CLAUDE_PROJECT_DIR".to_string(),
            project.display().to_string(),
        );
        env.insert("HOME".to_string(), project.display().to_string());
        env.insert(
            "PATH".to_string(),
            "/nonexistent-hookrules-fuzz".to_string(),
        );
        Setup {
            discoveries,
            env: env.into(),
            project,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    use std::sync::atomic::{AtomicU64, Ordering};
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let s = setup();
    if RUNS.fetch_add(1, Ordering::Relaxed) % 2048 == 0 {
        let _ = std::fs::remove_dir_all(&s.project);
        let _ = std::fs::create_dir_all(&s.project);
    }
    for (name, d) in &s.discoveries {
        let (answer, _) = in_process(d, &mut &data[..], &s.env, Now::at(1_790_000_000), Hint::default());
        assert!(
            !answer.stderr.contains("internal error"),
            "{name}: evaluation panicked: {}",
            answer.stderr
        );
        assert!(
            answer.exit == 0 || answer.exit == 2,
            "{name}: exit {}",
            answer.exit
        );
        if !answer.stdout.is_empty() {
            let v: Result<serde_json::Value, _> = serde_json::from_str(&answer.stdout);
            assert!(
                v.as_ref().is_ok_and(|v| v.is_object()),
                "{name}: stdout is not one JSON object: {}",
                answer.stdout
            );
        }
    }
});
