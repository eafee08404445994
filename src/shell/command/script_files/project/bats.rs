//! bats test files (`format = "bats"`): bash with `@test "name" { … }`
//! blocks, which bats runs, between the file's `setup`/`teardown` functions.
//! Each block is judged as the brace group it amounts to; bats's own helpers
//! (`run CMD`, `load`, `skip`) are given as what they do (`run` runs its
//! words). A folder named runs every `.bats` file in it.

use std::path::Path;

use regex::Regex;

use super::super::{read_script, Found};
use super::{first_operand, Text, MAX_ENTRIES};

/// bats's functions, as the shell text they amount to.
const BATS_HELPERS: &str = "run() { \"$@\"; }; load() { :; }; bats_load_library() { :; }; \
skip() { :; }; bats_require_minimum_version() { :; }\n";

/// The functions bats calls around the tests, when the file defines them.
const HOOKS: &[&str] = &["setup_file", "setup", "teardown", "teardown_file"];

/// The code `bats ARGS` runs: the files named (or the `.bats` files of the
/// folders named), as bash.
pub(super) fn code(args: &[String], dir: &Path, named: Option<&str>) -> Found {
    let start = match named.or(first_operand(args).map(String::as_str)) {
        Some(p) if p.contains(['$', '`']) => return Found::Unknown,
        Some(p) => dir.join(p),
        None => return Found::Nothing,
    };
    let files = if start.is_dir() {
        let mut found: Vec<_> = std::fs::read_dir(&start)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "bats"))
                    .take(MAX_ENTRIES)
                    .collect()
            })
            .unwrap_or_default();
        found.sort();
        found
    } else {
        vec![start.clone()]
    };
    let mut out = Text::new(dir);
    for file in &files {
        match read_script(file, false) {
            Ok(Some(text)) => out.line(&format!("{BATS_HELPERS}{}", as_bash(&text)), false),
            Ok(None) => {}
            Err(()) => return Found::Unknown,
        }
    }
    out.found(start, String::new())
}

/// A bats file as the bash it runs: each `@test "…" {` opens a brace group,
/// and the setup and teardown functions it defines are called.
fn as_bash(text: &str) -> String {
    static TEST: std::sync::OnceLock<Option<Regex>> = std::sync::OnceLock::new();
    let test = TEST.get_or_init(|| Regex::new(r"(?m)^[ \t]*@test[ \t]+.*\{[ \t]*$").ok());
    let mut out = match test {
        Some(re) => re.replace_all(text, "{").into_owned(),
        None => text.to_string(),
    };
    for hook in HOOKS {
        let defined = out.lines().any(|l| {
            let l = l.trim_start();
            let l = l.strip_prefix("function ").unwrap_or(l).trim_start();
            l.strip_prefix(hook)
                .is_some_and(|r| r.trim_start().starts_with(['(', '{']))
        });
        if defined {
            out.push('\n');
            out.push_str(hook);
        }
    }
    out
}
