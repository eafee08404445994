//! Build files in a language the analysis does not read (bazel's and buck's
//! Starlark, Elixir's `mix.exs`, Zig's `build.zig`, Swift's `Package.swift`,
//! Clojure's `project.clj` and `bb.edn`, dune files, Erlang's
//! `rebar.config`, ninja's `build.ninja`), judged by what can be seen in
//! their text: the constructs that run a command or delete, listed per
//! language by the `call` rows of `policies/data/code-places.toml`
//! (`genrule(cmd = …)`, `repository_ctx.execute([…])`, `System.cmd(…)`,
//! `b.addSystemCommand(&.{…})`, `(run …)`, a ninja rule's `command = …`).
//!
//! **Why not ask on every build.** These files are the project's own build,
//! run many times a day; a guard that asks on each build is switched off.
//! Which rule or action of them runs is the build tool's decision (and most
//! actions run in its sandbox), so each construct found is what the run
//! *may* do: a literal destructive command there asks, an ordinary one
//! (`cp $< $@`, `git describe`) is quiet. A construct whose command is
//! computed (a variable, a concatenation) holds that part as unknown text,
//! the same as a build script's `rm -rf "$BUILD_DIR"`: rule sets compute
//! nearly all their commands, and asking on each would ask on every build.
//! A `code = "unknown"` row is a construct that runs a command whose text
//! cannot be read at all where the build file does not normally run one
//! (a `Process` in a Swift manifest): the command asks.
//!
//! A file that cannot be read whole, or more files than [`MAX_FILES`] to
//! walk, is unknown code, as a script is.

use std::path::{Path, PathBuf};

use super::super::super::places::{self, Call, ProjectFile};
use super::super::super::unread::{constructs, Seen};
use super::super::{read_script, Found};
use super::{named_or_nearest, Text};

/// Files read for one command (the nearest of `files` and those walked).
const MAX_FILES: usize = 256;
/// Folders walked below the root.
const MAX_DIRS: usize = 512;
/// Constructs judged per command.
const MAX_FOUND: usize = 256;

/// The commands the constructs of the row's files may run.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Found::Nothing;
    }
    let Some(lang) = row.calls else {
        return Found::Nothing;
    };
    let Some(first) = named_or_nearest(dir, row.files, named) else {
        return Found::Nothing;
    };
    let root = first.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut paths = vec![first.clone()];
    if !row.walk.is_empty() && walk(&root, row.walk, &mut paths).is_err() {
        return Found::Unknown;
    }
    let rows: Vec<&Call> = places::calls(lang).collect();
    let mut out = Text::new(&root);
    let mut count = 0;
    for p in &paths {
        if crate::shell::budget::check().is_err() {
            return Found::Unknown;
        }
        let text = match read_script(p, false) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(()) => return Found::Unknown,
        };
        for seen in constructs(&rows, &text) {
            count += 1;
            match seen {
                Seen::Line(l) if count <= MAX_FOUND => out.line(&l, true),
                Seen::Script(name) if count <= MAX_FOUND => match script_path(&root, p, &name) {
                    Some(rel) => out.line(&crate::shell::quote(&format!("./{rel}")), true),
                    None => return Found::Unknown,
                },
                _ => return Found::Unknown,
            }
        }
        if out.full() {
            return Found::Unknown;
        }
    }
    out.found(first, String::new())
}

/// The path from `root` of a script a construct of `file` names: a label
/// from the root (`//tools:run.sh`), or a name from the file's folder
/// (`run.sh`, `:run.sh`, `sub/run.sh`). `None` for a name that leaves the
/// root or is another repository's (`@repo//…`).
fn script_path(root: &Path, file: &Path, name: &str) -> Option<String> {
    let (base, rel) = match name.strip_prefix("//") {
        Some(label) => (
            root.to_path_buf(),
            label
                .replacen(':', "/", 1)
                .trim_start_matches('/')
                .to_string(),
        ),
        None => (
            file.parent()?.to_path_buf(),
            name.trim_start_matches(':').to_string(),
        ),
    };
    if name.starts_with('@') || rel.split('/').any(|p| p == "..") || rel.starts_with('/') {
        return None;
    }
    let full = base.join(rel.trim_start_matches('/'));
    let from_root = full.strip_prefix(root).ok()?;
    Some(from_root.to_string_lossy().into_owned())
}

/// Add the files below `root` whose names one of `names` matches (`BUILD`,
/// `*.bzl`: an ending) to `paths`, folders in name order, skipping hidden
/// ones, build outputs and installed packages; `Err` past the bounds.
fn walk(root: &Path, names: &[&str], paths: &mut Vec<PathBuf>) -> Result<(), ()> {
    let matches = |n: &str| {
        names.iter().any(|x| match x.strip_prefix('*') {
            Some(end) => n.ends_with(end),
            None => n == *x,
        })
    };
    let mut dirs = vec![root.to_path_buf()];
    let mut seen = 0;
    while let Some(d) = dirs.pop() {
        seen += 1;
        if seen > MAX_DIRS {
            return Err(());
        }
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        let mut found: Vec<(String, bool)> = entries
            .filter_map(Result::ok)
            .map(|e| {
                let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
                (e.file_name().to_string_lossy().into_owned(), is_dir)
            })
            .collect();
        found.sort();
        for (name, is_dir) in found.into_iter().rev() {
            let p = d.join(&name);
            if is_dir {
                let output = name.starts_with(['.', '_'])
                    || name.starts_with("bazel-")
                    || matches!(name.as_str(), "node_modules" | "target" | "buck-out");
                if !output {
                    dirs.push(p);
                }
            } else if matches(&name) && !paths.contains(&p) {
                paths.push(p);
                if paths.len() > MAX_FILES {
                    return Err(());
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_names_from_the_build_file() {
        let root = Path::new("/w");
        let file = Path::new("/w/tools/BUILD");
        for (name, want) in [
            ("run.sh", Some("tools/run.sh")),
            (":run.sh", Some("tools/run.sh")),
            ("sub/run.sh", Some("tools/sub/run.sh")),
            ("//ops:wipe.sh", Some("ops/wipe.sh")),
            ("//:top.sh", Some("top.sh")),
            ("../../etc/x.sh", None),
            ("@other//x:y.sh", None),
        ] {
            assert_eq!(script_path(root, file, name).as_deref(), want, "{name}");
        }
    }
}
