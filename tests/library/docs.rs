//! The documentation tells the truth:
//! - `docs/seeds.md`, the seed-by-seed traceability table, stays in step with the
//!   examples: every fixture it names exists, every rule / fact / condition / list
//!   it names exists in that example's policies (or the built-in pack), every
//!   fixture written from a seed (`fixtures/seed/`) is named by a row, every row
//!   has a fixture or a reason, and the totals it states are counted from its rows;
//! - each example's README "Behaviours" table names fixtures that exist;
//! - links in the repository's Markdown stay inside the repository and resolve.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn examples() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("README.md").is_file() && p.join("policies").is_dir())
        .collect();
    v.sort();
    v
}

/// Names a set of policy files defines, by kind.
#[derive(Default)]
struct Names {
    rules: BTreeSet<String>,
    facts: BTreeSet<String>,
    conditions: BTreeSet<String>,
    lists: BTreeSet<String>,
    policies: BTreeSet<String>,
}

fn names_in(dir: &Path, into: &mut Names) {
    for f in std::fs::read_dir(dir).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let v: toml::Value = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
        for r in v
            .get("rule")
            .and_then(|r| r.as_array())
            .into_iter()
            .flatten()
        {
            into.rules.insert(r["id"].as_str().unwrap().to_string());
        }
        let keys = |k: &str| -> Vec<String> {
            v.get(k)
                .and_then(|t| t.as_table())
                .map(|t| t.keys().cloned().collect())
                .unwrap_or_default()
        };
        into.facts.extend(keys("facts"));
        into.conditions.extend(keys("conditions"));
        into.lists.extend(keys("lists"));
        if let Some(n) = v
            .get("policy")
            .and_then(|p| p.get("name"))
            .and_then(|n| n.as_str())
        {
            into.policies.insert(n.to_string());
        }
    }
}

/// One row of a seed table.
struct Row {
    seed: String,
    id: String,
    done_by: String,
    fixtures: String,
}

fn rows(doc: &str) -> Vec<Row> {
    let mut out = vec![];
    let mut seed = None;
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            seed = Some(h[..3].to_string());
            continue;
        }
        let Some(s) = &seed else { continue };
        if !line.starts_with("| ") || line.starts_with("| # ") {
            continue;
        }
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        assert_eq!(
            cells.len(),
            5,
            "a row of docs/seeds.md needs 5 cells: {line}"
        );
        out.push(Row {
            seed: s.clone(),
            id: cells[0].to_string(),
            done_by: cells[3].to_string(),
            fixtures: cells[4].to_string(),
        });
    }
    out
}

fn ticked(cell: &str) -> Vec<(String, String)> {
    // (word before the backticked text, backticked text)
    let mut out = vec![];
    let parts: Vec<&str> = cell.split('`').collect();
    for i in (1..parts.len()).step_by(2) {
        let before = parts[i - 1].split_whitespace().last().unwrap_or("");
        out.push((before.trim_matches('(').to_string(), parts[i].to_string()));
    }
    out
}

fn is_rule_like(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() > 1
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

fn is_done(r: &Row) -> bool {
    !r.done_by.starts_with("not done") && !r.fixtures.starts_with("not done")
}

#[test]
fn seed_traceability_table_matches_the_examples() {
    let doc = std::fs::read_to_string(root().join("docs/seeds.md")).unwrap();
    let rows = rows(&doc);
    let mut builtin = Names::default();
    names_in(&root().join("policies"), &mut builtin);
    let mut by_seed: BTreeMap<String, (PathBuf, Names)> = BTreeMap::new();
    for dir in examples() {
        let name = dir.file_name().unwrap().to_string_lossy()[..3].to_string();
        let mut n = Names::default();
        names_in(&dir.join("policies"), &mut n);
        by_seed.insert(name, (dir, n));
    }
    let mut problems = vec![];
    let mut named: BTreeSet<PathBuf> = BTreeSet::new();
    let mut ids = BTreeSet::new();
    for r in &rows {
        if !ids.insert(r.id.clone()) {
            problems.push(format!("{}: duplicate row id", r.id));
        }
        let Some((dir, names)) = by_seed.get(&r.seed) else {
            problems.push(format!("{}: no example for seed {}", r.id, r.seed));
            continue;
        };
        // The fixtures column: fixtures that exist, or a reason.
        if let Some(reason) = r.fixtures.strip_prefix("not done:") {
            if reason.split_whitespace().count() < 2 {
                problems.push(format!("{}: `not done` needs a reason", r.id));
            }
        } else {
            let fixtures = ticked(&r.fixtures);
            if fixtures.is_empty() {
                problems.push(format!("{}: no fixture and no reason", r.id));
            }
            for (_, f) in fixtures {
                let path = match f.strip_prefix("compose/") {
                    Some(rest) => {
                        let (pair, name) = rest.split_once('/').unwrap_or((rest, ""));
                        root().join(format!("examples/compose/{pair}/fixtures/{name}.json"))
                    }
                    None => dir.join("fixtures").join(format!("{f}.json")),
                };
                if !path.is_file() {
                    problems.push(format!(
                        "{}: fixture `{f}` does not exist ({})",
                        r.id,
                        path.display()
                    ));
                }
                named.insert(path);
            }
        }
        if r.done_by.starts_with("not done") && !r.done_by.contains(':') {
            problems.push(format!("{}: `not done` needs a reason", r.id));
        }
        // The done-by column: every name it gives exists.
        for (before, name) in ticked(&r.done_by) {
            let ok = match before.as_str() {
                "fact" | "facts" => names.facts.contains(&name),
                "condition" | "conditions" => names.conditions.contains(&name),
                "list" => names.lists.contains(&name),
                "policy" => names.policies.contains(&name),
                "builtin" => builtin.rules.contains(&name),
                _ if is_rule_like(&name) => {
                    names.rules.contains(&name) || builtin.rules.contains(&name)
                }
                _ => true,
            };
            if !ok {
                problems.push(format!(
                    "{}: `{name}` ({before}) is not defined by {} or the built-in pack",
                    r.id,
                    dir.display()
                ));
            }
        }
    }
    // Every fixture written from a seed is named by some row.
    for (dir, _) in by_seed.values() {
        let seed_dir = dir.join("fixtures/seed");
        for f in std::fs::read_dir(&seed_dir).into_iter().flatten() {
            let p = f.unwrap().path();
            if !named.contains(&p) {
                problems.push(format!(
                    "{} is named by no row of docs/seeds.md",
                    p.display()
                ));
            }
        }
    }
    // The totals line is counted from the rows.
    let done = rows.iter().filter(|r| is_done(r)).count();
    let want = format!(
        "Totals: **{} rows: {done} done, {} not done.**",
        rows.len(),
        rows.len() - done
    );
    if !doc.contains(&want) {
        problems.push(format!("docs/seeds.md must say: {want}"));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// When the seed documents are beside the repository (`../shared/seeds`, as in CI
/// and on the development machine; or `HOOKRULES_SEEDS`), every cited line range
/// exists in its seed.
#[test]
fn cited_seed_lines_exist() {
    let seeds = std::env::var_os("HOOKRULES_SEEDS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("../shared/seeds"));
    let Ok(entries) = std::fs::read_dir(&seeds) else {
        eprintln!("SKIPPED: no seed documents at {}", seeds.display());
        return;
    };
    let mut lengths = BTreeMap::new();
    for e in entries {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy()[..3].to_string();
        lengths.insert(name, std::fs::read_to_string(&p).unwrap().lines().count());
    }
    let doc = std::fs::read_to_string(root().join("docs/seeds.md")).unwrap();
    for line in doc.lines().filter(|l| l.starts_with("| 00")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let seed = &cells[0][..3];
        let len = lengths[seed];
        for range in cells[1].split(", ") {
            if range.starts_with('(') {
                continue;
            }
            for n in range.split('-') {
                let n: usize = n
                    .parse()
                    .unwrap_or_else(|_| panic!("{}: bad line `{range}`", cells[0]));
                assert!(
                    n >= 1 && n <= len,
                    "{}: seed {seed} has {len} lines, not {n}",
                    cells[0]
                );
            }
        }
    }
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

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with('.') || name == "target" || name == "node_modules" {
            continue;
        }
        if p.is_dir() {
            markdown_files(&p, out);
        } else if name.ends_with(".md") {
            out.push(p);
        }
    }
}

#[test]
fn markdown_links_stay_inside_the_repository_and_resolve() {
    let repo = root().canonicalize().unwrap();
    let mut files = vec![];
    markdown_files(&repo, &mut files);
    let mut problems = vec![];
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or("");
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let resolved = f.parent().unwrap().join(target);
            match resolved.canonicalize() {
                Ok(p) if p.starts_with(&repo) => {}
                Ok(p) => problems.push(format!(
                    "{}: `{target}` leaves the repository ({})",
                    f.display(),
                    p.display()
                )),
                Err(_) => problems.push(format!("{}: `{target}` does not exist", f.display())),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// `docs/threat-model.md` states only guarantees a test proves: every row of its
/// guarantee tables names at least one test (`path::name`), and every test it
/// names exists: a `fn name(` in a Rust file, a `name = "…"` case in a
/// reliability table.
#[test]
fn threat_model_guarantees_name_tests_that_exist() {
    let doc = std::fs::read_to_string(root().join("docs/threat-model.md")).unwrap();
    let refs = |cell: &str| -> Vec<(String, String)> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .filter_map(|r| r.split_once("::"))
            .map(|(f, n)| (f.to_string(), n.to_string()))
            .collect()
    };
    let mut problems = vec![];
    let mut rows = 0;
    for line in doc.lines() {
        let cells: Vec<&str> = line.split(" | ").collect();
        if !line.starts_with("| ") || cells.len() != 2 || line.starts_with("| guarantee") {
            continue;
        }
        rows += 1;
        let named = refs(cells[1]);
        if named.is_empty() {
            problems.push(format!("no test named: {line}"));
        }
        for (file, name) in named {
            let text = std::fs::read_to_string(root().join(&file)).unwrap_or_default();
            let found = if file.ends_with(".toml") {
                text.contains(&format!("name = \"{name}\""))
            } else {
                text.contains(&format!("fn {name}("))
            };
            if !found {
                problems.push(format!("{file}::{name} does not exist"));
            }
        }
    }
    assert!(
        rows >= 15,
        "the guarantee tables were not found ({rows} rows)"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    assert!(
        readme.contains("(docs/threat-model.md)"),
        "the README links the threat model"
    );
}
