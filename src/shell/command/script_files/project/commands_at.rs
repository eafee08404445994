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
        (Lang::Absent, v) => {
            if let Some(path) = absent_path(v) {
                // Ansible expands a leading `~` of a path.
                let path = match path.strip_prefix("~/") {
                    Some(rest) => format!("~/{}", quoted(rest)),
                    None if path == "~" => "~".to_string(),
                    None => quoted(&path),
                };
                out.line(&format!("rm -rf -- {path}"), may);
            }
            true
        }
        (Lang::Process, Value::Object(app)) => {
            if let Some(line) = process_line(app) {
                out.line(&line, may);
            }
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

/// The command line of a declared process (pm2's `{ script, interpreter,
/// args }`): the interpreter named (`none`: the script is a program), else
/// the one its ending says pm2 picks, else the script is a program (`npm`,
/// `bash`) run with the args. A string of args is split as words are.
fn process_line(app: &serde_json::Map<String, Value>) -> Option<String> {
    let script = app.get("script").and_then(Value::as_str)?;
    let named = app
        .get("interpreter")
        .or_else(|| app.get("exec_interpreter"))
        .and_then(Value::as_str)
        .filter(|i| !i.is_empty());
    let by_ending = || {
        let ext = script.rsplit_once('.')?.1;
        Some(match ext {
            "js" | "cjs" | "mjs" | "ts" => "node",
            "py" => "python3",
            "sh" => "bash",
            "rb" => "ruby",
            "php" => "php",
            "pl" => "perl",
            _ => return None,
        })
    };
    let interpreter = match named {
        Some("none") => None,
        Some(i) => Some(i),
        None => by_ending(),
    };
    let mut line = match interpreter {
        Some(i) => {
            let file = if script.starts_with('/') || script.starts_with("./") {
                script.to_string()
            } else {
                format!("./{script}")
            };
            format!("{} {}", quoted(i), quoted(&file))
        }
        None => quoted(script),
    };
    match app.get("args") {
        Some(Value::String(s)) => {
            line.push(' ');
            line.push_str(s);
        }
        Some(Value::Array(words)) => {
            for w in words {
                line.push(' ');
                line.push_str(&quoted(w.as_str().unwrap_or(UNKNOWN)));
            }
        }
        _ => {}
    }
    Some(line)
}

/// The path a file task deletes: its `path` (or `dest`, `name`) when its
/// `state` is `absent`, from a table or from `key=value` words
/// (`path=/x state=absent`).
pub(crate) fn absent_path(v: &Value) -> Option<String> {
    let get = |k: &str| -> Option<String> {
        match v {
            Value::Object(m) => m.get(k).and_then(Value::as_str).map(str::to_string),
            Value::String(s) => s.split_whitespace().find_map(|w| {
                let (key, val) = w.split_once('=')?;
                (key == k).then(|| val.trim_matches(['"', '\'']).to_string())
            }),
            _ => None,
        }
    };
    if get("state")?.trim() != "absent" {
        return None;
    }
    ["path", "dest", "name"].iter().find_map(|k| get(k))
}

/// A word as sh text; a template in it stays unknown text.
fn quoted(w: &str) -> String {
    if w.contains("{{") {
        format!("\"{}\"", w.replace(['"', '\\', '`', '$'], "_"))
    } else {
        crate::shell::quote(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (a file task or a declared process, the command line it amounts to)
    const ENTRIES: &[(Lang, &str, Option<&str>)] = &[
        (
            Lang::Absent,
            r#"{"path": "/etc", "state": "absent"}"#,
            Some("rm -rf -- /etc"),
        ),
        (
            Lang::Absent,
            r#"{"dest": "~/.ssh", "state": "absent"}"#,
            Some("rm -rf -- ~/.ssh"),
        ),
        (
            Lang::Absent,
            r#""path=/srv/app state=absent mode=0755""#,
            Some("rm -rf -- /srv/app"),
        ),
        (
            Lang::Absent,
            r#"{"path": "/etc", "state": "directory"}"#,
            None,
        ),
        (Lang::Absent, r#""path=/etc state=touch""#, None),
        (
            Lang::Process,
            r#"{"script": "w.py", "args": ["--once"]}"#,
            Some("python3 ./w.py --once"),
        ),
        (
            Lang::Process,
            r#"{"script": "./job", "interpreter": "bash"}"#,
            Some("bash ./job"),
        ),
        (
            Lang::Process,
            r#"{"script": "npm", "args": "run start"}"#,
            Some("npm run start"),
        ),
        (
            Lang::Process,
            r#"{"script": "x.sh", "interpreter": "none"}"#,
            Some("x.sh"),
        ),
        (Lang::Process, r#"{"name": "no script"}"#, None),
    ];

    #[test]
    fn file_tasks_and_declared_processes() {
        for (lang, json, want) in ENTRIES {
            let v: Value = serde_json::from_str(json).unwrap();
            let got = match (lang, &v) {
                (Lang::Process, Value::Object(app)) => process_line(app),
                _ => absent_path(&v).map(|p| match p.strip_prefix("~/") {
                    Some(rest) => format!("rm -rf -- ~/{}", quoted(rest)),
                    None => format!("rm -rf -- {}", quoted(&p)),
                }),
            };
            assert_eq!(got.as_deref(), *want, "{json}");
        }
    }
}
