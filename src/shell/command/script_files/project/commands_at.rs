//! Commands kept at known places of a JSON, YAML or TOML file (`format =
//! "tree"`): skaffold's custom build commands and hooks, goreleaser's and
//! helmfile's hooks, cdk's `app`, an Ansible playbook's `shell`/`command`
//! tasks, poetry's build script. The row's `commands` and `may_commands`
//! name the places as paths (`build/artifacts/*/custom/buildCommand`: `/`
//! between keys, `*` any key or item) with the language of what is there:
//!
//! - `sh`: a string is a command line; a list, one line per item; a table,
//!   its `cmd`/`command` (+ `args`)/`run`… as a package script's is read;
//! - `argv`: a list is one command's words (`["sh", "-c", "…"]`);
//! - an interpreter's language (`python`): the value names a file of code
//!   it runs (`python3 build.py`).
//!
//! Templates (`{{ … }}`) are what only the run knows.

use std::path::Path;

use serde_json::Value;

use super::super::super::inline::Lang as InlineLang;
use super::super::super::places::{Lang, ProjectFile};
use super::super::super::wrappers::interpreter_program;
use super::super::Found;
use super::{commands, file_text, tree, Text, MAX_ENTRIES, UNKNOWN};

/// The commands at the row's places of its file.
pub(super) fn code(row: &ProjectFile, dir: &Path, named: Option<&str>) -> Found {
    let (path, text) = match file_text(dir, row.files, named) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let Some(tree) = tree::parse(&name, &text) else {
        return Found::Nothing;
    };
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    for (places, may) in [(row.commands, false), (row.may_commands, true)] {
        for (at, lang) in places {
            for v in select(&tree, at).into_iter().take(MAX_ENTRIES) {
                if !add(&mut out, v, *lang, may) {
                    return Found::Unknown;
                }
            }
        }
    }
    out.found(path, String::new())
}

/// The values at a `/`-separated path (`*`: every key or item).
fn select<'v>(tree: &'v Value, at: &str) -> Vec<&'v Value> {
    let mut found = vec![tree];
    for key in at.split('/') {
        found = found
            .into_iter()
            .flat_map(|v| -> Vec<&Value> {
                match (key, v) {
                    ("*", Value::Object(m)) => m.values().collect(),
                    ("*", Value::Array(a)) => a.iter().collect(),
                    (k, Value::Object(m)) => m.get(k).into_iter().collect(),
                    (k, Value::Array(a)) => k
                        .parse::<usize>()
                        .ok()
                        .and_then(|i| a.get(i))
                        .into_iter()
                        .collect(),
                    _ => Vec::new(),
                }
            })
            .collect();
    }
    found
}

/// Add the command(s) of one value; `false` past the bounds.
fn add(out: &mut Text, v: &Value, lang: Lang, may: bool) -> bool {
    let word = |w: &Value| match w {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => UNKNOWN.to_string(),
    };
    match (lang, v) {
        (Lang::Argv, Value::Array(words)) => {
            let line: Vec<String> = words.iter().map(|w| quoted(&word(w))).collect();
            out.line(&line.join(" "), may);
            true
        }
        (Lang::Inline(l), Value::String(file)) => {
            let prog = interpreter_program(l).unwrap_or(match l {
                InlineLang::Python => "python3",
                _ => "sh",
            });
            out.line(&format!("{prog} {}", crate::shell::quote(file)), may);
            true
        }
        (Lang::Argv | Lang::Sh, _) => {
            let before = out.may;
            out.may = may;
            let ok = commands(&Value::Null, v, out, &mut Vec::new());
            out.may = before;
            ok
        }
        _ => true,
    }
}

/// A word as sh text; a template in it stays unknown text.
fn quoted(w: &str) -> String {
    if w.contains("{{") {
        format!("\"{}\"", w.replace(['"', '\\', '`', '$'], "_"))
    } else {
        crate::shell::quote(w)
    }
}
