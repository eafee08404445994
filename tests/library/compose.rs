//! Users install several seed systems together. Every pair of examples has a
//! folder `examples/compose/A+B/` whose `policies/` links exactly both packs'
//! policy files and whose `fixtures/` run with them installed (beside the built-in
//! pack, as in a real project); and no two examples define the same rule id (a
//! later file would silently replace it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::cli::test::run_all;
use hookrules::policy::discover::Discovery;

fn examples() -> Vec<(String, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut v: Vec<(String, PathBuf)> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("policies").is_dir())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            (name[..3].to_string(), p)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn every_pair_of_examples_has_passing_composition_fixtures() {
    let ex = examples();
    assert!(ex.len() >= 5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/compose");
    let mut problems = vec![];
    let mut report = vec![];
    for i in 0..ex.len() {
        for j in i + 1..ex.len() {
            let dir = root.join(format!("{}+{}", ex[i].0, ex[j].0));
            if !dir.join("fixtures").is_dir() {
                problems.push(format!("no composition fixtures for {}", dir.display()));
                continue;
            }
            let mut want: Vec<String> = vec![];
            for e in [&ex[i].1, &ex[j].1] {
                for f in std::fs::read_dir(e.join("policies")).unwrap() {
                    let f = f.unwrap().path();
                    want.push(std::fs::read_to_string(&f).unwrap());
                }
            }
            let mut have: Vec<String> = std::fs::read_dir(dir.join("policies"))
                .map(|rd| {
                    rd.map(|f| std::fs::read_to_string(f.unwrap().path()).unwrap())
                        .collect()
                })
                .unwrap_or_default();
            want.sort();
            have.sort();
            if want != have {
                problems.push(format!(
                    "{}/policies must link exactly the policies of both examples",
                    dir.display()
                ));
            }
            let mut out = vec![];
            let s = run_all(std::slice::from_ref(&dir), &Discovery::default(), &mut out);
            report.extend(out);
            if s.failed > 0 || s.passed == 0 {
                problems.push(format!(
                    "{}: {} passed, {} failed",
                    dir.display(),
                    s.passed,
                    s.failed
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n\n{}",
        problems.join("\n"),
        String::from_utf8_lossy(&report)
    );
}

#[test]
fn no_two_examples_define_the_same_rule_id() {
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    let mut clashes = vec![];
    for (name, dir) in examples() {
        for f in std::fs::read_dir(dir.join("policies")).unwrap() {
            let text = std::fs::read_to_string(f.unwrap().path()).unwrap();
            let raw: toml::Value = toml::from_str(&text).unwrap();
            for r in raw
                .get("rule")
                .and_then(|r| r.as_array())
                .into_iter()
                .flatten()
            {
                let id = r["id"].as_str().unwrap().to_string();
                if let Some(other) = seen.insert(id.clone(), name.clone()) {
                    if other != name {
                        clashes.push(format!("`{id}` in {other} and {name}"));
                    }
                }
            }
        }
    }
    assert!(
        clashes.is_empty(),
        "installed together, one would replace the other: {clashes:?}"
    );
}
