//! `rake [TASK…]`: the Ruby a Rakefile runs, judged as `ruby -e` code is.
//!
//! rake loads the Rakefile, then the `.rake` files of `rakelib/` (and, as
//! Rails' `load_tasks` does, `lib/tasks/`): their top-level code runs
//! whatever task is asked. A task's block runs when the task is asked or is
//! a prerequisite of one. So the code judged is every file's top-level code
//! and the blocks of the tasks that run (prerequisites first); other tasks'
//! blocks are left out. Blocks are found by their header (`task :name do`,
//! `task name: [:dep] do`, `task :name => :dep do`, `namespace :db do`, also
//! `file`, `directory`, `multitask`) and the `end` at the header's
//! indentation; a task rake has from elsewhere (a gem) is not read. With no
//! task named, `default` runs. Nothing: `-T`, `-n`, `-P`, `--help`, …

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::super::{interpreted_line, read_script, Found};
use super::{file_text, Text};
use crate::shell::command::inline::Lang as InlineLang;
use crate::shell::command::places::ProjectFile;

/// Task files read per command (the Rakefile and its `.rake` files).
const MAX_FILES: usize = 16;
/// Tasks followed per command (prerequisites included).
const MAX_TASKS: usize = 64;

/// One task: its prerequisites and the lines of its block.
#[derive(Default, Clone)]
struct Task {
    deps: Vec<String>,
    body: Vec<String>,
}

/// The code `rake ARGS` runs, from the Rakefile found from `dir` (or the
/// one `named`: the row's `file_option` and `dir_option` are read by the
/// project-file locator).
pub(super) fn tasks(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    let mut names = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-I" | "--libdir" | "-r" | "--require" | "-R" | "--rakelibdir" | "-j" | "--jobs"
            | "-e" | "--execute" | "-p" | "--execute-print" | "-E" | "--execute-continue" => {
                it.next();
            }
            "-n" | "--dry-run" | "-T" | "--tasks" | "-D" | "--describe" | "-P" | "--prereqs"
            | "-W" | "--where" | "-h" | "--help" | "-V" | "--version" | "-A" | "--all" => {
                return Found::Nothing
            }
            s if s.starts_with('-') || s.contains('=') => {}
            s => names.push(s.split('[').next().unwrap_or(s).to_string()),
        }
    }
    if names.is_empty() {
        names.push("default".into());
    }
    let (path, text) = match file_text(dir, row.files, named) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut texts = vec![text];
    for folder in ["rakelib", "lib/tasks"] {
        for f in rake_files(&root.join(folder)) {
            if texts.len() >= MAX_FILES {
                return Found::Unknown;
            }
            match read_script(&f, false) {
                Ok(Some(t)) => texts.push(t),
                Ok(None) => {}
                Err(()) => return Found::Unknown,
            }
        }
    }
    let mut top = Vec::new();
    let mut tasks = BTreeMap::new();
    for t in &texts {
        read(t, &mut top, &mut tasks);
    }
    let mut code = top.join("\n");
    let mut done = Vec::new();
    for n in &names {
        if !add(&tasks, n, &mut code, &mut done) {
            return Found::Unknown;
        }
    }
    let mut out = Text::new(&root);
    out.line(
        &interpreted_line(InlineLang::Ruby, "ruby", &code, "Rakefile", &[], "/"),
        false,
    );
    out.found(path, names.join(" "))
}

/// Add task `name`'s block (prerequisites first) to `code`.
fn add(
    tasks: &BTreeMap<String, Task>,
    name: &str,
    code: &mut String,
    done: &mut Vec<String>,
) -> bool {
    if done.iter().any(|d| d == name) {
        return true;
    }
    if done.len() >= MAX_TASKS {
        return false;
    }
    done.push(name.to_string());
    let Some(task) = tasks.get(name) else {
        return true;
    };
    for d in &task.deps {
        if !add(tasks, d, code, done) {
            return false;
        }
    }
    for l in &task.body {
        code.push('\n');
        code.push_str(l);
    }
    true
}

/// The `.rake` files of a folder, by name.
fn rake_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rake"))
        .take(MAX_FILES + 1)
        .collect();
    out.sort();
    out
}

/// Read one file's top-level lines and task blocks.
fn read(text: &str, top: &mut Vec<String>, tasks: &mut BTreeMap<String, Task>) {
    // Open namespaces: (their indentation, their prefix).
    let mut spaces: Vec<(usize, String)> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let t = line.trim_start();
        let indent = line.len() - t.len();
        if t.starts_with("end") && spaces.last().is_some_and(|(i, _)| *i == indent) {
            spaces.pop();
            continue;
        }
        if let Some(ns) = namespace(t) {
            spaces.push((indent, ns));
            continue;
        }
        let Some((name, deps, block)) = task_header(t) else {
            top.push(line.to_string());
            continue;
        };
        let prefix: String = spaces.iter().map(|(_, p)| format!("{p}:")).collect();
        let qualify = |n: &str| {
            if n.starts_with('^') || prefix.is_empty() || tasks_has_colon(n) {
                n.trim_start_matches('^').to_string()
            } else {
                format!("{prefix}{n}")
            }
        };
        let name = format!("{prefix}{name}");
        let task = tasks.entry(name).or_default();
        task.deps.extend(deps.iter().map(|d| qualify(d)));
        match block {
            Block::None => {}
            Block::Inline(body) => task.body.push(body),
            Block::Lines => {
                for l in lines.by_ref() {
                    let lt = l.trim_start();
                    if l.len() - lt.len() <= indent && lt.starts_with("end") {
                        break;
                    }
                    task.body.push(l.to_string());
                }
            }
        }
    }
}

fn tasks_has_colon(n: &str) -> bool {
    n.contains(':')
}

/// `namespace :db do`: the namespace's name.
fn namespace(t: &str) -> Option<String> {
    let rest = t.strip_prefix("namespace")?.trim_start();
    let rest = rest.strip_prefix('(').unwrap_or(rest);
    let at = find_block_do(rest)?;
    symbol(rest[..at].trim().trim_end_matches(')'))
}

/// How a task header holds its block.
enum Block {
    None,
    /// `{ … }` on the header's line.
    Inline(String),
    /// `do` … `end`.
    Lines,
}

/// `task :name => [:a, :b] do`, `task name: :a do |t|`, `task "name" { … }`:
/// the name, the prerequisites and the block.
fn task_header(t: &str) -> Option<(String, Vec<String>, Block)> {
    let word = ["task", "multitask", "file", "directory"]
        .into_iter()
        .find(|w| t.starts_with(w) && t[w.len()..].starts_with([' ', '(']))?;
    let rest = t[word.len()..].trim_start().trim_start_matches('(');
    let (head, block) = if let Some(at) = find_block_do(rest) {
        (&rest[..at], Block::Lines)
    } else if let Some(at) = rest.find('{') {
        let body = rest[at + 1..].trim_end().trim_end_matches('}');
        let body = body.trim_start();
        let body = match body.strip_prefix('|') {
            Some(b) => b.split_once('|').map_or(b, |(_, r)| r),
            None => body,
        };
        (&rest[..at], Block::Inline(body.to_string()))
    } else {
        (rest, Block::None)
    };
    let head = head.trim().trim_end_matches(')');
    let (name_part, deps_part) = if let Some((n, d)) = head.split_once("=>") {
        (n.trim(), d.trim())
    } else if let Some(at) = head
        .find(": ")
        .or_else(|| head.strip_suffix(':').map(str::len))
    {
        (&head[..at], head[at + 1..].trim())
    } else {
        (head, "")
    };
    let name = symbol(name_part.trim().trim_end_matches(','))?;
    let deps = deps_part
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .filter_map(|d| symbol(d.trim()))
        .collect();
    Some((name, deps, block))
}

/// Where ` do` starts a block at the end of a header (` do`, ` do |t|`).
fn find_block_do(s: &str) -> Option<usize> {
    let trimmed = s.trim_end();
    if let Some(at) = trimmed.rfind(" do") {
        let after = trimmed[at + 3..].trim();
        if after.is_empty() || (after.starts_with('|') && after.ends_with('|')) {
            return Some(at);
        }
    }
    None
}

/// A task name written as `:name`, `name:` (a key), `"name"` or `'name'`.
fn symbol(s: &str) -> Option<String> {
    let s = s.trim().trim_end_matches(',');
    let name = if let Some(r) = s.strip_prefix(':') {
        r.trim_matches(['"', '\''])
    } else if let Some(r) = s.strip_suffix(':') {
        r
    } else if s.len() >= 2 && (s.starts_with('"') || s.starts_with('\'')) {
        &s[1..s.len() - 1]
    } else {
        s
    };
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ':' | '.' | '/' | '^')))
    .then(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_level_code_and_the_blocks_of_the_tasks_that_run() {
        let text = "require 'rake/clean'\nputs 'loading'\n\ntask default: [:test]\n\ntask :test => :build do\n  sh 'rspec'\nend\n\ntask :build do |t|\n  sh \"make\"\nend\n\nnamespace :db do\n  task :reset do\n    rm_rf Dir.home\n  end\nend\n\ntask(:quick) { sh 'true' }\n";
        let mut top = Vec::new();
        let mut tasks = BTreeMap::new();
        read(text, &mut top, &mut tasks);
        assert_eq!(tasks["default"].deps, vec!["test"]);
        assert_eq!(tasks["test"].deps, vec!["build"]);
        assert_eq!(tasks["db:reset"].body, vec!["    rm_rf Dir.home"]);
        assert_eq!(tasks["quick"].body, vec!["sh 'true' "]);
        let mut code = String::new();
        assert!(add(&tasks, "default", &mut code, &mut Vec::new()));
        assert_eq!(code, "\n  sh \"make\"\n  sh 'rspec'");
        assert!(top.iter().any(|l| l.contains("puts")));
        assert!(!top.iter().any(|l| l.contains("rm_rf")));
    }
}
