//! Every code in the diagnostic catalogue has a fixture that produces it and a
//! snapshot of what `check` says about it, in `tests/diagnostics/codes/`, so the
//! catalogue (`hookrules rule`), the docs and the behaviour cannot drift apart.
//! A code without a fixture fails here, and so does a fixture that no longer
//! produces its code. `HOOKRULES_BLESS=1 cargo test --test library codes::` rewrites the
//! snapshots; review the diff.
//!
//! A fixture is `HRxxx-name.toml` (checked as `hookrules check FILE`), or a folder
//! `HRxxx-name/` checked as a project: its `.claude/hookrules/` through the
//! layers, with its `fixtures/` (if any) as `check --fixtures`.
//!
//! Also here: a file with ten deliberate mistakes of ten kinds gets all ten
//! reported in one run.

use std::path::{Path, PathBuf};

use hookrules::cli::check;
use hookrules::diagnostics::{render_plain, Code, Severity};
use hookrules::policy::discover::Discovery;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn codes_dir() -> PathBuf {
    root().join("tests/diagnostics/codes")
}

/// The fixture (file or folder) for a code, if any.
fn fixture_for(code: Code) -> Option<PathBuf> {
    let want = format!("{}-{}", code.code(), code.name());
    [
        codes_dir().join(format!("{want}.toml")),
        codes_dir().join(&want),
    ]
    .into_iter()
    .find(|p| p.exists())
}

/// Check a fixture as a user would; the report and its text with paths relative
/// to the repository.
fn check_fixture(path: &Path) -> (check::Report, String) {
    let (discovery, fixtures) = if path.is_dir() {
        let fixtures: Vec<PathBuf> = Some(path.join("fixtures"))
            .filter(|f| f.is_dir())
            .into_iter()
            .collect();
        (
            Discovery {
                project_dir: Some(path.to_path_buf()),
                user_dir: Some(path.join("home/.config/hookrules")),
                ..Discovery::default()
            },
            fixtures,
        )
    } else {
        (
            Discovery {
                flags: vec![path.to_path_buf()],
                ..Discovery::default()
            },
            vec![],
        )
    };
    let mut report = check::collect_with(&discovery, &fixtures);
    let prefix = format!("{}/", root().display());
    // Paths relative to the repository before rendering, so that where the
    // checkout lies changes neither the text nor where its lines wrap.
    for d in &mut report.diagnostics {
        d.message = d.message.replace(&prefix, "");
        d.help = d.help.take().map(|h| h.replace(&prefix, ""));
        d.label = d.label.take().map(|l| l.replace(&prefix, ""));
    }
    let text = render_plain(&report.diagnostics).replace(&prefix, "");
    (report, text)
}

fn snapshot(path: &Path, actual: &str) -> Option<String> {
    if std::env::var_os("HOOKRULES_BLESS").is_some() {
        std::fs::write(path, actual).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    (expected != actual).then(|| {
        format!(
            "{} differs:\n--- expected\n{expected}\n--- actual\n{actual}",
            path.display()
        )
    })
}

#[test]
fn every_code_has_a_fixture_that_produces_it_and_a_snapshot() {
    let mut problems = vec![];
    for code in Code::ALL {
        let Some(fixture) = fixture_for(*code) else {
            problems.push(format!(
                "{} ({}) has no fixture: add tests/diagnostics/codes/{}-{}.toml (or a project folder of that name) that produces it",
                code.code(),
                code.name(),
                code.code(),
                code.name()
            ));
            continue;
        };
        let (report, text) = check_fixture(&fixture);
        let produced: Vec<&hookrules::diagnostics::Diagnostic> = report
            .diagnostics
            .iter()
            .filter(|d| d.code == *code)
            .collect();
        if produced.is_empty() {
            problems.push(format!(
                "{}: its fixture no longer produces it; it reports:\n{text}",
                code.code()
            ));
            continue;
        }
        // What `hookrules rule CODE` says heads the snapshot, so a change to the
        // catalogue shows next to the behaviour it describes.
        let mut rule = Vec::new();
        hookrules::cli::rule(Some(code.code()), &mut rule);
        let rule = String::from_utf8(rule).unwrap();
        let title = rule.lines().take(3).collect::<Vec<_>>().join("\n");
        let actual = format!(
            "$ hookrules rule {}\n{title}\n\n$ hookrules check {}\n{text}{} error(s), {} warning(s)\n",
            code.code(),
            fixture.strip_prefix(root()).unwrap().display(),
            report.errors(),
            report.warnings()
        );
        let snap = codes_dir().join(format!("{}-{}.snap", code.code(), code.name()));
        problems.extend(snapshot(&snap, &actual));
        // The severity the catalogue gives is the one reported.
        for d in produced {
            if d.severity() != code.severity() {
                problems.push(format!("{}: reported with another severity", code.code()));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn every_fixture_in_the_codes_folder_belongs_to_a_code() {
    for entry in std::fs::read_dir(codes_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let stem = name.trim_end_matches(".toml").trim_end_matches(".snap");
        let known = Code::ALL
            .iter()
            .any(|c| stem == format!("{}-{}", c.code(), c.name()));
        assert!(
            known,
            "{name}: not named after a code of the catalogue (HRxxx-name)"
        );
    }
}

#[test]
fn ten_deliberate_mistakes_are_all_reported_in_one_run() {
    let (report, text) = check_fixture(&root().join("tests/diagnostics/ten-mistakes.toml"));
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.code()).collect();
    assert_eq!(
        codes,
        [
            "HR104", "HR001", "HR002", "HR002", "HR019", "HR007", "HR021", "HR020", "HR003",
            "HR013"
        ],
        "{text}"
    );
    // Errors and the warning, together; each with a help line that shows the fix.
    assert_eq!((report.errors(), report.warnings()), (9, 1));
    for d in &report.diagnostics {
        assert!(d.help.is_some(), "{}: no help line", d.one_line());
        assert!(d.location().is_some(), "{}: no location", d.one_line());
        for rust in ["i64", "f64", "expected one of", "invalid type", "Sp<"] {
            assert!(!d.message.contains(rust), "{}: Rust's words", d.one_line());
        }
    }
    assert!(report
        .diagnostics
        .iter()
        .any(|d| d.severity() == Severity::Warning));
}
