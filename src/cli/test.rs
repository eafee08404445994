//! `hookrules test [DIR…]`: run fixtures and compare with what they expect.
//!
//! A DIR holding `policies/` and `fixtures/` is tested against its own policies,
//! **installed** as a user installs them: copied into each fixture's
//! `.claude/hookrules/`, so the built-in pack stays on beneath them exactly as in
//! a real project. Otherwise fixtures (`*.json`, recursively) run against the
//! usual policy search.
//! Each fixture runs the real `run` path in a fresh temporary project directory:
//! `$PROJECT_DIR` in the fixture is replaced by that directory, `CLAUDE_PROJECT_DIR`
//! and `HOME` (= `$PROJECT_DIR/home`) point into it, and `files` are created first.
//! The last line is `N passed, N failed, N skipped` (skipped = `todo`). A `todo`
//! fixture that passes counts as failed: remove the mark.
//!
//! Fixtures test what the policies under test do, so the installed copies are
//! trusted in the fixture's own throwaway state folder (`$PROJECT_DIR/home/
//! .local/state/hookrules`), never in the user's: whether `run` applies a
//! project policy's loosenings and commands is the user's `hookrules trust`,
//! which `check` reports (HR116).

use std::collections::BTreeSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::cli::fixture::{project_policies, Expect, Fixture, Session};
use crate::cli::style;
use crate::policy::discover::Discovery;
use crate::policy::parse;

/// One fixture's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Everything expected happened.
    Passed,
    /// Something did not; the reasons.
    Failed(Vec<String>),
    /// A `todo` fixture (with whether it would have passed).
    Todo(String, bool),
    /// A fixture with no `expect` (it only has to run).
    Ran,
}

/// Totals.
#[derive(Debug, Default, Clone)]
pub struct Summary {
    /// Passed (including fixtures without expectations that ran).
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Todo.
    pub skipped: usize,
    /// Rules no fixture saw fire.
    pub uncovered: Vec<String>,
    /// Paths named that do not exist or hold no fixture (the run fails).
    pub missing: Vec<PathBuf>,
}

/// Which rules `test` lists when no fixture makes them fire (HR106).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Coverage {
    /// The rules of the policies you wrote (not the built-in pack's).
    #[default]
    Own,
    /// Every rule, the built-in pack's too.
    All,
    /// None.
    None,
}

/// Run fixtures and print a report; returns the exit status (1 on any failure).
pub fn test(dirs: &[PathBuf], base: &Discovery, out: &mut dyn Write) -> i32 {
    test_with(dirs, base, Coverage::Own, out)
}

/// [`test`], listing uncovered rules as `coverage` says.
pub fn test_with(
    dirs: &[PathBuf],
    base: &Discovery,
    coverage: Coverage,
    out: &mut dyn Write,
) -> i32 {
    let summary = run_all_with(dirs, base, coverage, out);
    if !summary.missing.is_empty() {
        return 2;
    }
    i32::from(summary.failed > 0)
}

/// Run fixtures, print per-fixture lines and the summary.
pub fn run_all(dirs: &[PathBuf], base: &Discovery, out: &mut dyn Write) -> Summary {
    run_all_with(dirs, base, Coverage::Own, out)
}

/// [`run_all`], listing uncovered rules as `coverage` says.
pub fn run_all_with(
    dirs: &[PathBuf],
    base: &Discovery,
    coverage: Coverage,
    out: &mut dyn Write,
) -> Summary {
    let mut summary = Summary::default();
    let dirs: Vec<PathBuf> = if dirs.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        dirs.to_vec()
    };
    for dir in &dirs {
        // A path that holds no fixture runs nothing, and a run that tested
        // nothing must not pass (a typo in CI would go green in silence).
        if let Err(e) = std::fs::metadata(dir) {
            let why = match e.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_string(),
                _ => e.to_string(),
            };
            let _ = writeln!(out, "{}   {}: {why}", style::bad("error"), dir.display());
            summary.missing.push(dir.clone());
            continue;
        }
        let (discovery, fixture_root, install) = suite(dir, base);
        let run_with = match &install {
            Some(_) => Discovery {
                flags: vec![],
                ..base.clone()
            },
            None => discovery.clone(),
        };
        let mut fixtures = vec![];
        collect_json(&fixture_root, &mut fixtures);
        fixtures.sort();
        if fixtures.is_empty() {
            let _ = writeln!(
                out,
                "{}   {}: no fixtures (*.json) in it",
                style::bad("error"),
                dir.display()
            );
            summary.missing.push(dir.clone());
            continue;
        }
        let mut covered: BTreeSet<String> = BTreeSet::new();
        for path in &fixtures {
            let verdict = match Fixture::read(path) {
                Ok(fx) => run_one(&fx, &run_with, install.as_deref(), &mut covered),
                Err(e) => Verdict::Failed(vec![e]),
            };
            let name = path.display();
            match &verdict {
                Verdict::Passed | Verdict::Ran => {
                    summary.passed += 1;
                    let _ = writeln!(out, "{}     {name}", style::good("ok"));
                }
                Verdict::Failed(why) => {
                    summary.failed += 1;
                    let _ = writeln!(out, "{}   {name}", style::bad("FAIL"));
                    for w in why {
                        let _ = writeln!(out, "         {}", w.replace('\n', "\n         "));
                    }
                }
                // A `todo` that passes is a failure: the gap it records is gone, and
                // a stale mark would hide the next regression.
                Verdict::Todo(why, true) => {
                    summary.failed += 1;
                    let _ = writeln!(out, "{}   {name}", style::bad("FAIL"));
                    let _ = writeln!(
                        out,
                        "         marked todo ({why}) but it passes: remove `todo`"
                    );
                }
                Verdict::Todo(why, false) => {
                    summary.skipped += 1;
                    let _ = writeln!(out, "{}   {name}: {why}", style::warn("todo"));
                }
            }
        }
        for id in rule_ids(&discovery, coverage) {
            if !covered.contains(&id) {
                let _ = writeln!(
                    out,
                    "{}: no fixture in {} exercises rule `{id}`",
                    style::warn("warning[HR106]"),
                    dir.display()
                );
                summary.uncovered.push(id);
            }
        }
    }
    if !summary.missing.is_empty() {
        let _ = writeln!(
            out,
            "{}: {} path(s) named no fixtures; `hookrules test PATH` takes fixture files, folders of them, or folders holding policies/ and fixtures/",
            style::bad("error"),
            summary.missing.len()
        );
    }
    let failed = format!("{} failed", summary.failed);
    let _ = writeln!(
        out,
        "{} passed, {}, {} skipped",
        summary.passed,
        if summary.failed > 0 {
            style::bad(&failed)
        } else {
            failed
        },
        summary.skipped
    );
    summary
}

/// Policies and fixtures for a DIR: the discovery that names the suite's own rules
/// (for coverage), the fixture folder, and the policy folder to install.
fn suite(dir: &Path, base: &Discovery) -> (Discovery, PathBuf, Option<PathBuf>) {
    let policies = dir.join("policies");
    let fixtures = dir.join("fixtures");
    let (discovery, install) = if policies.is_dir() {
        (
            Discovery {
                flags: vec![policies.clone()],
                ..base.clone()
            },
            Some(policies),
        )
    } else {
        (base.clone(), project_policies(base))
    };
    let root = if fixtures.is_dir() {
        fixtures
    } else {
        dir.to_path_buf()
    };
    (discovery, root, install)
}

fn collect_json(p: &Path, out: &mut Vec<PathBuf>) {
    if p.is_file() {
        if p.extension().is_some_and(|e| e == "json") {
            out.push(p.to_path_buf());
        }
        return;
    }
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.flatten() {
            collect_json(&e.path(), out);
        }
    }
}

fn rule_ids(d: &Discovery, coverage: Coverage) -> Vec<String> {
    let found = d.find();
    let mut ids = vec![];
    for s in &found.sources {
        let builtin = s.layer == crate::source::Layer::Builtin;
        if coverage == Coverage::None || (builtin && coverage == Coverage::Own) {
            continue;
        }
        if let Ok(raw) = parse::parse(s) {
            ids.extend(
                raw.rules
                    .iter()
                    .filter(|r| r.value.enabled != Some(false))
                    .map(|r| r.value.id.value.clone()),
            );
        }
    }
    ids
}

/// Run one fixture in a fresh temporary project directory, with the `*.toml` files
/// of `install` (if any) copied into its `.claude/hookrules/` first.
pub fn run_one(
    fx: &Fixture,
    discovery: &Discovery,
    install: Option<&Path>,
    covered: &mut BTreeSet<String>,
) -> Verdict {
    match Session::open(fx, discovery, install) {
        Ok(session) => run_in(fx, &session, covered),
        Err(e) => Verdict::Failed(vec![e]),
    }
}

fn run_in(fx: &Fixture, session: &Session, covered: &mut BTreeSet<String>) -> Verdict {
    let project = session.project.as_path();
    let pd = project.display().to_string();
    let subst = |s: &str| s.replace("$PROJECT_DIR", &pd);
    let (answer, decision) = session.run();
    if let Some(d) = &decision {
        covered.extend(d.matched.iter().cloned());
    }
    let Some(expect) = &fx.expect else {
        return Verdict::Ran;
    };
    let mut problems = compare(expect, &answer, decision.as_ref(), project, &subst);
    // A rule that failed is often why: say so, as `explain` and the
    // fail-closed reason do (a template error names its file and line).
    if !problems.is_empty() {
        if let Some(d) = &decision {
            problems.extend(d.failures.iter().map(|f| format!("error: {f}")));
        }
    }
    match (&expect.todo, problems.is_empty()) {
        (Some(why), ok) => Verdict::Todo(why.clone(), ok),
        (None, true) => Verdict::Passed,
        (None, false) => Verdict::Failed(problems),
    }
}

/// What `run` answers and decides for a fixture, in a fresh temporary project
/// (as `hookrules test` runs it; `test --new` records it as the expectation).
pub fn observe(
    fx: &Fixture,
    discovery: &Discovery,
) -> Result<(crate::answer::Answer, Option<crate::decision::Decision>), String> {
    let install = project_policies(discovery);
    Session::open(fx, discovery, install.as_deref()).map(|s| s.run())
}

/// Whether a fixture's expected decision names the decision made. `deny` and
/// `block` are one refusal, sent the way each event takes one (HR013): a fixture
/// that says `block` for a PostToolUse a `deny` rule refused is right.
fn same_decision(want: &str, got: &str) -> bool {
    let refusal = |d: &str| matches!(d, "deny" | "block");
    want == got || (refusal(want) && refusal(got))
}

fn compare(
    expect: &Expect,
    answer: &crate::answer::Answer,
    decision: Option<&crate::decision::Decision>,
    project: &Path,
    subst: &dyn Fn(&str) -> String,
) -> Vec<String> {
    let mut problems = vec![];
    if let Some(want) = &expect.decision {
        let got = decision
            .and_then(|d| d.kind)
            .map(|k| k.as_str())
            .unwrap_or("none");
        if !same_decision(want, got) {
            problems.push(format!("decision: expected `{want}`, got `{got}`"));
        }
    }
    if let Some(want) = &expect.rules {
        let got: BTreeSet<&String> = decision
            .map(|d| d.determined_by.iter().collect())
            .unwrap_or_default();
        let want_set: BTreeSet<&String> = want.iter().collect();
        if got != want_set {
            problems.push(format!(
                "determining rules: expected {}, got {}",
                names(want.iter()),
                names(got.into_iter())
            ));
        }
    }
    if let Some(want) = &expect.output {
        let got: Value = if answer.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&answer.stdout).unwrap_or(Value::String(answer.stdout.clone()))
        };
        let want: Value = serde_json::from_str(&subst(&want.to_string())).unwrap_or(want.clone());
        if got != want {
            problems.push(format!("output: expected\n  {want}\ngot\n  {got}"));
        }
    }
    for s in &expect.output_contains {
        if !answer.stdout.contains(&subst(s)) {
            problems.push(format!(
                "output does not contain {}; it is {}",
                quote(s),
                printed(&answer.stdout)
            ));
        }
    }
    for s in &expect.output_excludes {
        if answer.stdout.contains(&subst(s)) {
            problems.push(format!(
                "output contains {}; it is {}",
                quote(s),
                printed(&answer.stdout)
            ));
        }
    }
    for (rel, want) in &expect.files {
        let p = match crate::cli::fixture::inside(project, &subst(rel)) {
            Ok(p) => p,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let content = crate::os::files::read_text(&p).ok();
        match want {
            Value::String(s) => {
                if content.as_deref() != Some(subst(s).as_str()) {
                    problems.push(format!(
                        "file {rel}: expected {}, but {}",
                        quote(&subst(s)),
                        holds(content.as_deref())
                    ));
                }
            }
            Value::Object(m) => {
                if let Some(e) = m.get("exists").and_then(|v| v.as_bool()) {
                    if content.is_some() != e {
                        problems.push(format!(
                            "file {rel}: expected it {}, but {}",
                            if e { "to exist" } else { "not to exist" },
                            holds(content.as_deref())
                        ));
                    }
                }
                if let Some(c) = m.get("contains").and_then(|v| v.as_str()) {
                    if !content.as_deref().unwrap_or("").contains(&subst(c)) {
                        problems.push(format!(
                            "file {rel}: expected it to contain {}, but {}",
                            quote(&subst(c)),
                            holds(content.as_deref())
                        ));
                    }
                }
                if let Some(n) = m.get("lines").and_then(|v| v.as_u64()) {
                    let got = content.as_deref().map(|c| c.lines().count()).unwrap_or(0);
                    if got as u64 != n {
                        problems.push(format!(
                            "file {rel}: expected {n} lines, but {}",
                            match &content {
                                Some(_) => format!("it has {got}"),
                                None => "it does not exist".into(),
                            }
                        ));
                    }
                }
                if let Some(j) = m.get("json") {
                    let got: Option<Value> = content
                        .as_deref()
                        .and_then(|c| serde_json::from_str(c).ok());
                    if !got.as_ref().is_some_and(|g| json_subset(j, g)) {
                        problems.push(format!(
                            "file {rel}: expected JSON holding {j}, but {}",
                            holds(content.as_deref())
                        ));
                    }
                }
            }
            _ => problems.push(format!(
                "file {rel}: expectation must be a string or an object"
            )),
        }
    }
    problems
}

/// A text as a JSON string (escapes visible: `"vm\n"`), shortened when long.
fn quote(s: &str) -> String {
    let shown: String = s.chars().take(300).collect();
    let q = serde_json::to_string(&shown).unwrap_or_default();
    if s.chars().count() > 300 {
        format!("{q}… ({} chars)", s.chars().count())
    } else {
        q
    }
}

/// What a file holds, for a failure message.
fn holds(content: Option<&str>) -> String {
    match content {
        None => "it does not exist".into(),
        Some("") => "it is empty".into(),
        Some(c) => format!("it holds {}", quote(c)),
    }
}

/// What `run` printed, for a failure message.
fn printed(stdout: &str) -> String {
    if stdout.is_empty() {
        "empty (nothing printed)".into()
    } else {
        stdout.chars().take(600).collect()
    }
}

/// Rule ids as a list (`a, b`), or `none`.
fn names<'a>(ids: impl Iterator<Item = &'a String>) -> String {
    let v: Vec<&str> = ids.map(|s| s.as_str()).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

/// Is every key of `want` in `got` with a matching value (recursively)?
fn json_subset(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|gv| json_subset(v, gv))),
        _ => want == got,
    }
}
