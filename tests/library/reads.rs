//! What a rule reads, checked statically: the cases in `tests/reads/cases.toml`
//! (each policy with the exact diagnostics it gets for what it reads), and the
//! tables behind the check against what evaluation really produces (fact values,
//! the command object), so the two cannot drift apart.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hookrules::cli::check;
use hookrules::policy::discover::Discovery;

const READ_CODES: &[&str] = &["HR019", "HR020", "HR021", "HR107", "HR113"];

#[derive(serde::Deserialize)]
struct Cases {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    policy: String,
    expect: Vec<String>,
}

#[test]
fn every_case_reports_exactly_what_it_expects() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("tests/reads/cases.toml")).unwrap();
    let cases: Cases = toml::from_str(&text).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut failures = vec![];
    for (i, case) in cases.case.iter().enumerate() {
        let path = dir.path().join(format!("case{i}.toml"));
        std::fs::write(&path, &case.policy).unwrap();
        let report = check::collect(&Discovery {
            flags: vec![path],
            ..Discovery::default()
        });
        let others: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| d.severity() == hookrules::diagnostics::Severity::Error)
            .filter(|d| !READ_CODES.contains(&d.code.code()))
            .map(|d| d.one_line())
            .collect();
        let got: Vec<String> = report
            .diagnostics
            .iter()
            .filter(|d| READ_CODES.contains(&d.code.code()))
            .map(|d| format!("{} {}", d.code.code(), d.snippet().unwrap_or("")))
            .collect();
        if got != case.expect || !others.is_empty() {
            failures.push(format!(
                "{}:\n  expected {:?}\n  got      {:?}\n  other errors {others:?}\n  {}",
                case.name,
                case.expect,
                got,
                report
                    .diagnostics
                    .iter()
                    .map(|d| d.one_line())
                    .collect::<Vec<_>>()
                    .join("\n  ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Every field the check believes a fact has is in what evaluation computes,
/// and the other way round, for each kind with every option on.
#[test]
fn fact_fields_match_what_facts_compute() {
    use hookrules::eval::{facts, Ctx};
    use hookrules::policy::recover;
    use hookrules::source::{Origin, PolicySource};

    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().canonicalize().unwrap();
    std::fs::write(project.join("NOTES.md"), "# Done\n{\"a\": 1}\n").unwrap();
    std::fs::write(project.join("state.json"), "{\"phase\": \"x\"}").unwrap();
    let text = r#"
[facts.file]
kind = "file"
path = "NOTES.md"
headings = ["Done"]
regex = '(?P<word>Done)'
lines = 2
[facts.json]
kind = "file"
path = "state.json"
json = true
[facts.glob]
kind = "glob"
path = "*.md"
[facts.cmd]
kind = "command"
argv = ["true"]
[facts.env]
kind = "env"
vars = ["HOME"]
[facts.markers]
kind = "project_markers"
markers = ["NOTES.md"]
[[rule]]
id = "r"
events = ["Stop"]
context = "{{ facts.file }} {{ facts.json }} {{ facts.glob }} {{ facts.cmd }} {{ facts.env }} {{ facts.markers }}"
"#;
    let src = PolicySource::new(Origin::File("p.toml".into()), text);
    let raw = recover::parse_all(&src).raw.unwrap();
    let v = hookrules::validate::validate_with(&src, &raw, &|_| true, true);
    assert!(v.diagnostics.is_empty(), "{:?}", v.diagnostics);
    let event =
        serde_json::json!({"hook_event_name": "Stop", "cwd": project.display().to_string()});
    let ev = hookrules::contract::Event::from_value(event.clone()).unwrap();
    let mut env = BTreeMap::new();
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        project.display().to_string(),
    );
    env.insert("HOME".to_string(), "/home/x".to_string());
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    );
    let ctx = Ctx::from_env(&ev, env.into(), hookrules::os::clock::Now::at(0));
    assert_eq!(v.policy.facts.len(), 6);
    for (name, f) in &v.policy.facts {
        let rendered = facts::Rendered {
            path: f.path.as_ref().map(|t| t.text.clone()),
            within: None,
            argv: f.argv.iter().map(|t| t.text.clone()).collect(),
            cwd: None,
        };
        let value = facts::compute(f, rendered, &ctx, &event).unwrap();
        let computed: Vec<String> = value
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut believed: Vec<String> = hookrules::validate::reads::fact_fields(f)
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        believed.sort();
        assert_eq!(believed, computed, "fact `{name}`");
    }
}

/// The command object `command.when` sees has exactly the fields the check knows.
#[test]
fn command_object_fields_match_evaluation() {
    let cmds = hookrules::shell::command::parse("FOO=1 sudo rm -rf /tmp/x > out").unwrap();
    let obj = hookrules::eval::command_object(cmds.last().unwrap());
    let keys: Vec<&str> = obj
        .as_object()
        .unwrap()
        .keys()
        .map(|k| k.as_str())
        .collect();
    assert_eq!(keys, hookrules::validate::reads::COMMAND_OBJECT_FIELDS);
}
