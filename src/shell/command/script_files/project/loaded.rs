//! A file of code the runner loads whole before it runs anything (`format =
//! "code"`): a noxfile or invoke's `tasks.py` (Python), a gulpfile (JS), a
//! Gemfile or a Vagrantfile (Ruby), an SConstruct. Loading runs the file's
//! top-level code, whatever the command asks; an entry's function runs when
//! the command names it. The code is judged as the same code given inline
//! (`python3 -c TEXT`, `ruby -e TEXT`), as a Rakefile's is.
//!
//! In Python, where a function's body is known by its indentation, the
//! top-level code is what the run does; the bodies of the functions the
//! command names (`nox -s tests`, `invoke clean`: `def tests`, `def clean`,
//! `_` and `-` alike) are what it does too; the other functions' bodies are
//! what the run may do (a helper the named one calls, a session nox runs when
//! none is named), so a destructive line there asks. Each body is judged
//! with the file's top-level imports and assignments, which it may use. In
//! other languages the whole file is what the run does.
//!
//! Nothing: `--list`, `-l`, `--help`, `-h`, `--version`, `-V` (the runner
//! only lists or prints).

use std::path::Path;

use super::super::{interpreted_line, Found};
use super::{file_text, Text};
use crate::shell::command::inline::Lang as InlineLang;
use crate::shell::command::places::{Lang, ProjectFile};
use crate::shell::command::wrappers::interpreter_program;

/// Options with which a runner only lists its entries or prints its help.
const ONLY_LISTS: &[&str] = &["-l", "--list", "-h", "--help", "-V", "--version"];

/// The code the row's file runs for the command.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    if args.iter().any(|a| ONLY_LISTS.contains(&a.as_str())) {
        return Found::Nothing;
    }
    let names: Vec<&str> = args
        .iter()
        .take_while(|a| *a != "--")
        .filter(|a| !a.starts_with('-') && !a.contains('='))
        .map(String::as_str)
        .collect();
    let (path, text) = match file_text(dir, row.files, named) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let file = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut out = Text::new(&root);
    match row.lang {
        Some(Lang::Inline(InlineLang::Python)) => python_lines(&mut out, &text, &file, &names),
        Some(Lang::Inline(lang)) => {
            let Some(prog) = interpreter_program(lang) else {
                return Found::Unknown;
            };
            out.line(&interpreted_line(lang, prog, &text, &file, &[], "/"), false);
        }
        Some(Lang::Sh) => out.line(&text, false),
        _ => return Found::Unknown,
    }
    out.found(path, names.join(" "))
}

/// A Python file's code as lines of `out`: its top-level code and the
/// functions `names` names run, the other functions may run.
fn python_lines(out: &mut Text, text: &str, file: &str, names: &[&str]) {
    let parts = python_parts(text, names);
    let line = |code: &str| interpreted_line(InlineLang::Python, "python3", code, file, &[], "/");
    out.line(&line(&parts.top), false);
    if !parts.named.trim().is_empty() {
        out.line(
            &line(&format!("{}\n{}", parts.bindings, parts.named)),
            false,
        );
    }
    if !parts.others.trim().is_empty() {
        out.line(
            &line(&format!("{}\n{}", parts.bindings, parts.others)),
            true,
        );
    }
}

/// The Python entry point a runner runs by name (`poetry run NAME`, `uv run
/// NAME`: `[tool.poetry.scripts]`, `[project.scripts]`, pdm's `{call =
/// …}`): `package.module:function` is the module's file of the project
/// (`package/module.py`, its `__init__.py`, or under `src/`), loaded (its
/// top-level code runs) and the function called. A name the table does not
/// have is another program (`poetry run pytest`), judged by its name.
pub(super) fn entry_point(
    row: &ProjectFile,
    args: &[String],
    dir: &Path,
    named: Option<&str>,
) -> Found {
    let Some(name) = super::first_operand(args) else {
        return Found::Nothing;
    };
    let (path, text) = match file_text(dir, row.files, named) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let file_name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let Some(tree) = super::tree::parse(&file_name, &text) else {
        return Found::Nothing;
    };
    let spec = match row
        .key
        .and_then(|k| super::tree::at(&tree, k))
        .and_then(|t| t.get(name))
    {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => match v.get("call").and_then(serde_json::Value::as_str) {
            Some(s) => s.to_string(),
            None => return Found::Nothing,
        },
        None => return Found::Nothing,
    };
    // `pkg.mod:main [extra]`, pdm's `pkg.mod:main(arg)`.
    let spec = spec.split(['[', ' ']).next().unwrap_or("");
    let (module, function) = spec.split_once(':').unwrap_or((spec, ""));
    let function = function.split(['(', '.']).next().unwrap_or("").trim();
    if module.is_empty()
        || !module
            .chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
    {
        return Found::Nothing;
    }
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let rel = module.replace('.', "/");
    let found = ["", "src/"]
        .iter()
        .flat_map(|base| {
            [
                format!("{base}{rel}.py"),
                format!("{base}{rel}/__init__.py"),
            ]
        })
        .map(|p| root.join(p))
        .find(|p| super::super::code_file(p));
    let Some(module_path) = found else {
        return Found::Nothing;
    };
    let text = match super::super::read_script(&module_path, false) {
        Ok(Some(t)) => t,
        Ok(None) => return Found::Nothing,
        Err(()) => return Found::Unknown,
    };
    let file = module_path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut out = Text::new(&root);
    python_lines(&mut out, &text, &file, &[function]);
    out.found(module_path, name.clone())
}

/// A Python file's code split by what runs it.
#[derive(Default, Debug, PartialEq)]
struct PythonParts {
    /// Top-level code (run on load), with the functions' bodies left out.
    top: String,
    /// Top-level imports and assignments, which a function's body may use.
    bindings: String,
    /// The bodies of the functions the command names.
    named: String,
    /// The bodies of the other functions.
    others: String,
}

/// Split Python `text`: a top-level `def NAME(` (or `async def`) opens a
/// function whose body is the indented (or blank) lines after it.
fn python_parts(text: &str, names: &[&str]) -> PythonParts {
    let mut parts = PythonParts::default();
    // The body being read: is it named, and its indentation (from its
    // first line).
    let mut body: Option<(bool, Option<usize>)> = None;
    for line in text.lines() {
        let indented = line.starts_with([' ', '\t']) || line.trim().is_empty();
        if let Some((named, indent)) = &mut body {
            if indented {
                let lead = line.len() - line.trim_start().len();
                if !line.trim().is_empty() && indent.is_none() {
                    *indent = Some(lead);
                }
                let cut = lead.min(indent.unwrap_or(0));
                let into = if *named {
                    &mut parts.named
                } else {
                    &mut parts.others
                };
                into.push_str(&line[cut..]);
                into.push('\n');
                continue;
            }
            body = None;
        }
        let head = line.strip_prefix("async ").unwrap_or(line);
        if let Some(name) = head.strip_prefix("def ").and_then(|r| r.split('(').next()) {
            body = Some((names.iter().any(|n| entry_is(n, name.trim())), None));
            continue;
        }
        parts.top.push_str(line);
        parts.top.push('\n');
        let t = line.trim_start();
        if !indented && (t.starts_with("import ") || t.starts_with("from ") || is_assignment(t)) {
            parts.bindings.push_str(line);
            parts.bindings.push('\n');
        }
    }
    parts
}

/// Does the entry a command names (`clean-build`, nox's `tests-3.11` and
/// `tests(django='4.2')`, invoke's `docs.build`) name the function `name`
/// (`clean_build`, `tests`, `build`)?
fn entry_is(entry: &str, name: &str) -> bool {
    let name = name.replace('_', "-").to_ascii_lowercase();
    let whole = entry.split('(').next().unwrap_or(entry);
    let last = whole.rsplit('.').next().unwrap_or(whole);
    [whole, last].iter().any(|e| {
        let e = e.replace('_', "-").to_ascii_lowercase();
        e == name
            || e.strip_prefix(&name)
                .and_then(|rest| rest.strip_prefix('-'))
                .is_some_and(|v| v.starts_with(|c: char| c.is_ascii_digit()))
    })
}

/// `NAME = …`, `A, B = …` (not `==`).
fn is_assignment(t: &str) -> bool {
    let Some(at) = t.find('=') else {
        return false;
    };
    let (lhs, rest) = t.split_at(at);
    !rest.starts_with("==")
        && !lhs.is_empty()
        && lhs.chars().all(|c| {
            c.is_alphanumeric() || matches!(c, '_' | ',' | ' ' | '.' | '[' | ']' | '"' | '\'')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_splits_top_level_named_and_other_functions() {
        let text = "import os\nHOME = os.path.expanduser('~')\n\n@task\ndef clean(c):\n    c.run('rm -rf build')\n\ndef nuke_all(c):\n    if True:\n        c.run('rm -rf ~')\nprint('loaded')\n";
        let p = python_parts(text, &["clean"]);
        assert_eq!(p.named, "c.run('rm -rf build')\n\n");
        assert_eq!(p.others, "if True:\n    c.run('rm -rf ~')\n");
        assert!(p.top.contains("print('loaded')") && !p.top.contains("c.run"));
        assert_eq!(p.bindings, "import os\nHOME = os.path.expanduser('~')\n");
        let p = python_parts(text, &["nuke-all"]);
        assert!(p.named.contains("rm -rf ~") && p.others.contains("rm -rf build"));
    }

    #[test]
    fn entries_name_functions_as_runners_spell_them() {
        assert!(entry_is("clean-build", "clean_build"));
        assert!(entry_is("tests-3.11", "tests"));
        assert!(entry_is("tests(python='3.12')", "tests"));
        assert!(entry_is("docs.build", "build"));
        assert!(!entry_is("testsuite", "tests"));
        assert!(!entry_is("lint", "tests"));
        assert!(!entry_is("clean-all", "clean"));
    }
}
