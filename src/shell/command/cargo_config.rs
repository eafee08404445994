//! Commands a project's cargo configuration runs.
//!
//! cargo reads `.cargo/config.toml` (or `.cargo/config`) in the folder it
//! runs in and in every folder above it, and some of its keys name programs
//! it runs: `target.<triple or cfg(…)>.runner` runs each binary `cargo run`,
//! `cargo test` and `cargo bench` build; `build.rustc`, `build.rustc-wrapper`,
//! `build.rustc-workspace-wrapper` and `build.rustdoc` run instead of the
//! compiler, `target.<…>.linker` links. A cloned repository can carry such a
//! file, so what it names is read here and judged as the command it is, as
//! the variables that set the same places (`CARGO_TARGET_<TRIPLE>_RUNNER`,
//! `RUSTC_WRAPPER`: rows of `policies/data/code-places.toml`) are: the
//! program with its arguments (`runner = ["sh", "-c", "…"]`, or a string
//! cargo splits at whitespace), with the file in the command's `via`.
//!
//! What is read: for each `cargo` command whose folder is known (the event's
//! `cwd`, then `cd`), the configuration files going up from it (at most
//! [`MAX_UP`] folders), each at most [`MAX_CONFIG_BYTES`](super::repo_config::MAX_CONFIG_BYTES) and only a regular
//! file. The user's own (`$CARGO_HOME/config.toml`) is not read: what the
//! user set is not the project's doing. A file that is not TOML runs nothing
//! (cargo refuses it). `--config KEY=VALUE` and `--config FILE` on the
//! command line are read the same way.

use std::path::{Path, PathBuf};

use super::repo_config::{add_configured_code, read_limited};
use super::SimpleCommand;

/// Folders looked at going up for `.cargo/`.
const MAX_UP: usize = 64;
/// Programs judged per `cargo` command.
const MAX_PROGRAMS: usize = 16;

/// The keys of `[build]` that name a program cargo runs.
const BUILD_PROGRAMS: &[&str] = &[
    "rustc",
    "rustc-wrapper",
    "rustc-workspace-wrapper",
    "rustdoc",
];
/// The keys of a `[target.…]` table that name a program cargo runs.
const TARGET_PROGRAMS: &[&str] = &["runner", "linker"];

/// Add, after each `cargo` command of `cmds` that runs in a folder whose
/// cargo configuration names programs, the commands those programs are (their
/// `via` names the key and the file). `cwd` is the event's directory.
pub fn add_cargo_config_code(cmds: &mut Vec<SimpleCommand>, cwd: &str) {
    add_configured_code(cmds, "cargo", cwd, |c| {
        super::script_files::folder(&c.cwd, cwd)
            .map(|dir| configured_code(c, Path::new(&dir)))
            .unwrap_or_default()
    });
}

/// The commands the programs of the configuration files above `dir` are.
fn configured_code(c: &SimpleCommand, dir: &Path) -> Vec<SimpleCommand> {
    let mut found = Vec::new();
    // `--config KEY=VALUE` on the command line (TOML, dotted keys:
    // `--config "target.x86_64-unknown-linux-gnu.runner='sh -c …'"`), which
    // cargo reads before any file; `--config FILE` names another file.
    let given = c
        .args
        .iter()
        .enumerate()
        .filter_map(|(k, a)| match a.strip_prefix("--config") {
            Some("") => c.args.get(k + 1).map(String::as_str),
            Some(v) => v.strip_prefix('='),
            None => None,
        });
    for value in given {
        let table = if value.contains('=') {
            value.parse::<toml::Table>().ok()
        } else {
            read_limited(&dir.join(value)).and_then(|t| t.parse::<toml::Table>().ok())
        };
        for (key, words) in table.as_ref().map(programs).unwrap_or_default() {
            if found.len() < MAX_PROGRAMS {
                found.push((format!("--config {key}"), words));
            }
        }
    }
    for file in config_files(dir) {
        let Some(text) = read_limited(&file) else {
            continue;
        };
        let Ok(table) = text.parse::<toml::Table>() else {
            continue;
        };
        for (key, words) in programs(&table) {
            if found.len() < MAX_PROGRAMS {
                found.push((format!("{} {key}", file.display()), words));
            }
        }
    }
    let mut out = Vec::new();
    for (label, words) in found {
        let script: Vec<String> = words.iter().map(|w| crate::shell::quote(w)).collect();
        let Ok(cmds) = super::parse(&script.join(" ")) else {
            continue;
        };
        out.extend(cmds.into_iter().map(|mut f| {
            f.offset = c.offset;
            f.via.insert(0, format!("{label} (cargo configuration)"));
            f.via.splice(1..1, c.via.iter().cloned());
            f
        }));
    }
    out
}

/// The programs a configuration table names, each as its words, with the
/// key that names it (`build.rustc-wrapper`, `target.x86_64-….runner`).
fn programs(table: &toml::Table) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    if let Some(build) = table.get("build").and_then(toml::Value::as_table) {
        for k in BUILD_PROGRAMS {
            if let Some(words) = build.get(*k).and_then(words_of) {
                out.push((format!("build.{k}"), words));
            }
        }
    }
    if let Some(targets) = table.get("target").and_then(toml::Value::as_table) {
        for (name, t) in targets {
            let Some(t) = t.as_table() else { continue };
            for k in TARGET_PROGRAMS {
                if let Some(words) = t.get(*k).and_then(words_of) {
                    out.push((format!("target.{name}.{k}"), words));
                }
            }
        }
    }
    out
}

/// A program given as a string (split at whitespace, as cargo splits a
/// runner) or an array of words; `{ path = …, args = … }` is not cargo's.
fn words_of(v: &toml::Value) -> Option<Vec<String>> {
    let words: Vec<String> = match v {
        toml::Value::String(s) => s.split_whitespace().map(str::to_string).collect(),
        toml::Value::Array(a) => a
            .iter()
            .map(|w| w.as_str().map(str::to_string))
            .collect::<Option<_>>()?,
        _ => return None,
    };
    (!words.is_empty()).then_some(words)
}

/// The configuration files cargo reads in `dir` and above it, nearest first.
fn config_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut d = Some(dir);
    for _ in 0..MAX_UP {
        let Some(here) = d else { break };
        for name in ["config.toml", "config"] {
            let f = here.join(".cargo").join(name);
            if f.is_file() {
                out.push(f);
                break;
            }
        }
        d = here.parent();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runners_wrappers_and_linkers_are_programs() {
        let t: toml::Table = r#"
            [build]
            rustc-wrapper = "sccache"
            jobs = 4
            [target.x86_64-unknown-linux-gnu]
            runner = ["sh", "-c", "rm -rf ~"]
            linker = "clang"
            [target.'cfg(unix)']
            runner = "qemu-aarch64 -L /usr/aarch64-linux-gnu"
            rustflags = ["-C", "target-cpu=native"]
        "#
        .parse()
        .unwrap();
        let got = programs(&t);
        assert_eq!(
            got[0],
            ("build.rustc-wrapper".into(), vec!["sccache".into()])
        );
        assert!(got.contains(&(
            "target.x86_64-unknown-linux-gnu.runner".into(),
            vec!["sh".into(), "-c".into(), "rm -rf ~".into()]
        )));
        assert!(got.contains(&(
            "target.cfg(unix).runner".into(),
            vec![
                "qemu-aarch64".into(),
                "-L".into(),
                "/usr/aarch64-linux-gnu".into()
            ]
        )));
        assert_eq!(got.len(), 4);
    }
}
