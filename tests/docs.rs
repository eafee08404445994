//! `docs/seeds.md` maps every behaviour of the five seed systems to its rules and
//! fixtures. It is generated from the "Behaviours" table of each
//! `examples/*/README.md` (so it cannot drift), and every fixture those tables
//! name must exist. `HOOKRULES_BLESS=1 cargo test --test docs` regenerates it.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("README.md").is_file() && p.join("fixtures").is_dir())
        .collect();
    v.sort();
    v
}

/// The rows of the table under `## Behaviours`.
fn behaviour_rows(readme: &str) -> Vec<String> {
    let mut rows = vec![];
    let mut inside = false;
    for line in readme.lines() {
        if line.starts_with("## ") {
            inside = line.trim() == "## Behaviours";
            continue;
        }
        if inside
            && line.starts_with('|')
            && !line.starts_with("| Behaviour")
            && !line.starts_with("|--")
            && !line.starts_with("| ---")
        {
            rows.push(line.to_string());
        }
    }
    rows
}

fn generate() -> String {
    let mut out = String::from(
        "# The seed systems, behaviour by behaviour\n\n\
         Generated from the \"Behaviours\" table of each `examples/*/README.md` by `tests/docs.rs`\n\
         (`HOOKRULES_BLESS=1 cargo test --test docs`); every fixture named here exists and passes\n\
         (`cargo test --test examples`). Each example's README explains its choices and the seed bugs it\n\
         makes safe.\n\n| Seed | Behaviour | Rule(s) | Fixtures |\n|---|---|---|---|\n",
    );
    for dir in examples() {
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        for row in behaviour_rows(&readme) {
            out.push_str(&format!("| [{name}](../examples/{name}/README.md) {row}\n"));
        }
    }
    out
}

#[test]
fn seeds_doc_is_generated_from_the_example_tables() {
    let path = root().join("docs/seeds.md");
    let want = generate();
    if std::env::var_os("HOOKRULES_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/seeds.md is stale: run HOOKRULES_BLESS=1 cargo test --test docs"
    );
}

#[test]
fn every_example_has_a_behaviour_table_and_its_fixtures_exist() {
    for dir in examples() {
        let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
        let rows = behaviour_rows(&readme);
        assert!(rows.len() >= 5, "{}: no Behaviours table", dir.display());
        for row in rows {
            let cells: Vec<&str> = row.split(" | ").collect();
            let fixtures = cells.last().unwrap();
            for name in fixtures.split('`').skip(1).step_by(2) {
                if name.contains('*') || name.contains(' ') {
                    continue;
                }
                let f = dir.join("fixtures").join(format!("{name}.json"));
                assert!(
                    Path::new(&f).is_file(),
                    "{}: the table names fixture `{name}`, which does not exist",
                    dir.display()
                );
            }
        }
    }
}
