//! What an event makes hookrules compile. Building a regex or glob set costs
//! from a few hundred thousand to millions of instructions, more than the rest
//! of judging an event: an everyday event builds no regex set (the literals
//! its lists need are not in its text, so no list is asked), and no event
//! builds the same set twice.
//!
//! The events are the bench's (`bench/events/`, what `bench/callgrind.sh`
//! measures), judged by the built-in pack as `run` reads it from the binary.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::compile::patterns::{take_built, Built};
use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process_with;
use hookrules::engine::Set;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;

/// A bench event (or the harmless Bash event with another command) and the
/// sets judging it may build.
struct Case {
    event: &'static str,
    /// The command instead of the bench event's.
    command: Option<&'static str>,
    /// Regex sets, at most (`None`: any number).
    regex_sets: Option<usize>,
    /// Glob sets (of a whole list or of the patterns a text picks), at most.
    glob_sets: Option<usize>,
    /// A pattern some set built must contain (the guard's control: what is
    /// built is seen).
    built: Option<&'static str>,
}

const fn everyday(event: &'static str, glob_sets: usize) -> Case {
    Case {
        event,
        command: None,
        regex_sets: Some(0),
        glob_sets: Some(glob_sets),
        built: None,
    }
}

const CASES: &[Case] = &[
    everyday("PreToolUse-Bash", 0),
    everyday("PreToolUse-PowerShell", 0),
    everyday("PostToolUse-Bash", 0),
    everyday("SessionStart-startup", 0),
    everyday("Stop", 0),
    everyday("SubagentStop", 0),
    // An absolute path: the system paths' lists (`/**`, `/{etc,usr,…}`) are
    // matched against it.
    everyday("PreToolUse-Write", 2),
    // Reading `.env`: the secret-file globs.
    Case {
        command: None,
        event: "PreToolUse-Read",
        regex_sets: Some(0),
        glob_sets: None,
        built: Some(".env"),
    },
    // `rm` is one of resource-delete's words (`\brm\b`): its set is built.
    Case {
        command: None,
        event: "PreToolUse-Bash-rm-rf-root",
        regex_sets: None,
        glob_sets: None,
        built: Some("delete|destroy"),
    },
    Case {
        command: None,
        event: "PreToolUse-PowerShell-rm-home",
        regex_sets: None,
        glob_sets: None,
        built: Some("delete|destroy"),
    },
    // Two commands ask resource-delete's lists each: built once.
    Case {
        event: "PreToolUse-Bash",
        command: Some("gh release delete v1 --yes && openstack server delete web"),
        regex_sets: None,
        glob_sets: None,
        built: Some("(delete|destroy|terminate)$"),
    },
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_for(project: &Path) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("HOME".into(), project.join("home").display().to_string()),
        ("CLAUDE_PROJECT_DIR".into(), project.display().to_string()),
        (
            "XDG_STATE_HOME".into(),
            project.join("state").display().to_string(),
        ),
        ("HOOKRULES_CACHE".into(), "off".into()),
    ])
}

fn patterns(b: &Built) -> &[String] {
    match b {
        Built::Regexes(p) => p,
        Built::Globs { patterns, .. } => patterns,
    }
}

#[test]
fn everyday_events_build_no_regex_set_and_no_set_is_built_twice() {
    let scratch = tempfile::tempdir().unwrap();
    let project = scratch.path().join("proj");
    std::fs::create_dir_all(&project).unwrap();
    let discovery = Discovery {
        project_dir: Some(project.clone()),
        user_dir: Some(project.join("home/.config/hookrules")),
        ..Discovery::default()
    };
    let env = env_for(&project).into();
    let mut wrong = vec![];
    for case in CASES {
        let name = case.event;
        let text =
            std::fs::read_to_string(root().join(format!("bench/events/{name}.json"))).unwrap();
        let mut event: serde_json::Value = serde_json::from_str(&text).unwrap();
        if let Some(command) = case.command {
            event["tool_input"]["command"] = command.into();
        }
        let name = format!("{name} {:?}", event["tool_input"]["command"]);
        let event = event.to_string().into_bytes();
        // A set of its own, as `run` loads one per event.
        let set = Set::load(&discovery, &env);
        let _ = take_built();
        let (answer, _) = in_process_with(
            &set,
            &mut event.as_slice(),
            &env,
            Now::at(1_763_700_000),
            Hint::default(),
        );
        let built = take_built();
        let regexes = built
            .iter()
            .filter(|b| matches!(b, Built::Regexes(_)))
            .count();
        let globs = built.len() - regexes;
        if case.regex_sets.is_some_and(|most| regexes > most)
            || case.glob_sets.is_some_and(|most| globs > most)
        {
            wrong.push(format!(
                "{name}: {regexes} regex and {globs} glob sets built, {:?} and {:?} at most: {built:?}",
                case.regex_sets, case.glob_sets
            ));
        }
        for (i, b) in built.iter().enumerate() {
            if built[..i].contains(b) {
                wrong.push(format!("{name}: built twice: {b:?}"));
            }
        }
        if let Some(pattern) = case.built {
            if !built
                .iter()
                .any(|b| patterns(b).iter().any(|p| p.contains(pattern)))
            {
                wrong.push(format!(
                    "{name}: no set with {pattern:?} built: {built:?} (answer {answer:?})"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
