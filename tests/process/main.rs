//! The tests that run the built `hookrules` binary as a process (hosts' hook
//! calls, faults, installation, the decision log, org scale), in one test
//! target: every test target links the whole crate, and one link per test file
//! made most of a clean `cargo test`. The in-process tests are in
//! `tests/library/` (which also checks that every file here is a module below).
//! Run one file's tests with its module name: `cargo test --test process trust::`.

mod artifact;
mod authoring;
mod check_watch;
mod doctor;
mod embedded;
mod examples;
mod first_hour;
mod init;
mod install_script;
mod links;
mod observe;
mod one_evaluation;
mod org;
mod panic_stages;
mod plugin;
mod readme_walkthrough;
mod reliability;
mod repo_config;
mod report;
mod self_protection;
mod settings_secrets;
mod support;
mod trust;
