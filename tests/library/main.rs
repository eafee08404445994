//! The tests that call hookrules as a library, in-process (the corpora, the
//! shell analysis, the validator, the documentation checks). One test target:
//! every test target links the whole crate, and one link per test file made
//! most of a clean `cargo test`. The tests that run the built binary are in
//! `tests/process/`. Run one file's tests with its module name:
//! `cargo test --test library corpus::`.

mod codes;
mod compiled_equivalence;
mod compose;
mod contract_fields;
mod corpus;
mod decisions;
mod docs;
mod host_contract;
mod hosts;
mod layering;
mod matcher;
mod pack_reasons;
mod parser_differential;
mod pattern_sets;
mod prefilter;
mod reach_policy;
mod reads;
mod rule_failures;
mod schema_sync;
mod seed_sequences;
mod shell_command;
mod shell_path;
mod shell_reach;
mod shell_robustness;
mod snapshots;
mod time_zones;

use std::path::Path;

/// Every Rust file under `tests/` is a module of `tests/library/main.rs` or
/// `tests/process/main.rs`: a file no target names would silently not run, and
/// a file of its own at the top of `tests/` is one more link of the whole crate.
#[test]
fn every_test_file_is_a_module_of_a_target() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut problems = vec![];
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".rs") || (path.join("main.rs").is_file() && !TARGETS.contains(&&*name)) {
            problems.push(format!(
                "tests/{name} is a test target of its own: move it into tests/library/ (in-process) \
                 or tests/process/ (runs the binary) and add `mod {};` to that folder's main.rs",
                name.trim_end_matches(".rs")
            ));
        }
    }
    for target in TARGETS {
        let dir = tests.join(target);
        let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let module = match path.extension() {
                Some(ext) if ext == "rs" => path.file_stem(),
                _ if path.join("mod.rs").is_file() => path.file_name(),
                _ => continue,
            };
            let module = module.unwrap().to_string_lossy();
            if module != "main" && !main.lines().any(|l| l.trim() == format!("mod {module};")) {
                problems.push(format!(
                    "tests/{} is not run: add `mod {module};` to tests/{target}/main.rs",
                    path.strip_prefix(&tests).unwrap().display()
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The test targets, one folder each under `tests/`.
const TARGETS: [&str; 2] = ["library", "process"];
