//! `docker compose up` / `docker compose run SERVICE [CMD]` (and
//! `docker-compose`, `podman compose`, `podman-compose`): each service
//! started, judged as the equivalent `docker run`: its bind mounts (`-v
//! SRC:DST`, the short and the long syntax), `privileged`, `working_dir`,
//! its image and its `entrypoint` and `command` (or the command `run` gives),
//! which the container analysis maps back through the mounts (a service
//! that mounts home and deletes its mount point deletes home).
//!
//! Services of a profile not asked for do not start; the compose file's
//! `${VAR}` interpolation is the shell's (the same text in the `docker run`
//! line).

use std::path::Path;

use serde_json::Value;

use super::super::super::places::ProjectFile;
use super::super::Found;
use super::{file_text, tree, Text, MAX_ENTRIES};

/// compose's own options that take a value.
const COMPOSE_VALUED: &[&str] = &[
    "-f",
    "--file",
    "-p",
    "--project-name",
    "--project-directory",
    "--profile",
    "--env-file",
    "--ansi",
    "--progress",
    "--parallel",
    "-c",
    "--context",
    "-H",
    "--host",
    "--log-level",
];

/// `up`'s and `run`'s options that take a value.
const SUB_VALUED: &[&str] = &[
    "-e",
    "--env",
    "-l",
    "--label",
    "--name",
    "-p",
    "--publish",
    "-u",
    "--user",
    "-w",
    "--workdir",
    "--entrypoint",
    "-v",
    "--volume",
    "--scale",
    "-t",
    "--timeout",
    "--exit-code-from",
    "--attach",
    "--no-attach",
    "--pull",
    "--wait-timeout",
    "--cap-add",
    "--cap-drop",
];

/// The services `up`/`run`/`create`/`start` starts, as `docker run` lines.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    let mut files: Vec<String> = Vec::new();
    let mut profiles: Vec<String> = Vec::new();
    let mut project_dir = None;
    let mut i = 0;
    // compose's options, then its subcommand.
    let sub = loop {
        let Some(a) = args.get(i) else {
            return Found::Nothing;
        };
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        if COMPOSE_VALUED.contains(&name) {
            let v = attached.or_else(|| {
                i += 1;
                args.get(i).cloned()
            });
            match name {
                "-f" | "--file" => files.extend(v),
                "--profile" => profiles.extend(v),
                "--project-directory" => project_dir = v,
                _ => {}
            }
        } else if !name.starts_with('-') {
            break name.to_string();
        }
        i += 1;
    };
    if !matches!(sub.as_str(), "up" | "run" | "create" | "start" | "restart") {
        return Found::Nothing;
    }
    // The subcommand's options, services and (for `run`) command.
    let mut volumes: Vec<String> = Vec::new();
    let mut entrypoint = None;
    let mut workdir = None;
    let mut operands: Vec<String> = Vec::new();
    let mut j = i + 1;
    while let Some(a) = args.get(j) {
        if !operands.is_empty() && sub == "run" {
            operands.push(a.clone());
            j += 1;
            continue;
        }
        if a == "--" {
            operands.extend(args.get(j + 1..).unwrap_or_default().iter().cloned());
            break;
        }
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        if SUB_VALUED.contains(&name) {
            let v = attached.or_else(|| {
                j += 1;
                args.get(j).cloned()
            });
            match name {
                "-v" | "--volume" => volumes.extend(v),
                "--entrypoint" => entrypoint = v,
                "-w" | "--workdir" => workdir = v,
                _ => {}
            }
        } else if !name.starts_with('-') {
            operands.push(a.clone());
        }
        j += 1;
    }
    if files
        .iter()
        .chain(&project_dir)
        .any(|f| f.contains(['$', '`']))
    {
        return Found::Unknown;
    }
    let base = match &project_dir {
        Some(p) => dir.join(p),
        None => dir.to_path_buf(),
    };
    // `-f` first, else `COMPOSE_FILE` (the row's `file_variable`).
    let named = files.first().cloned().or(named.map(str::to_string));
    let (path, text) = match file_text(&base, row.files, named.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let Some(tree) = tree::parse("compose.yaml", &text) else {
        return Found::Nothing;
    };
    let Some(Value::Object(services)) = tree.get("services") else {
        return Found::Nothing;
    };
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let (chosen, command): (Vec<String>, Vec<String>) = if sub == "run" {
        match operands.split_first() {
            Some((s, cmd)) => (vec![s.clone()], cmd.to_vec()),
            None => return Found::Nothing,
        }
    } else {
        (operands.clone(), Vec::new())
    };
    let mut out = Text::new(&root);
    for (name, svc) in services.iter().take(MAX_ENTRIES) {
        if !chosen.is_empty() && !chosen.contains(name) {
            continue;
        }
        if chosen.is_empty() {
            // A service of a profile starts only with that profile.
            let in_profile = match svc.get("profiles") {
                Some(Value::Array(p)) => p
                    .iter()
                    .filter_map(Value::as_str)
                    .any(|p| profiles.iter().any(|q| q == p || q == "*")),
                _ => true,
            };
            if !in_profile {
                continue;
            }
        }
        let line = run_line(
            svc,
            &volumes,
            entrypoint.as_deref(),
            workdir.as_deref(),
            &command,
        );
        out.line(&line, false);
        if out.full() {
            return Found::Unknown;
        }
    }
    out.found(path, format!("{sub} {}", chosen.join(" ")))
}

/// The `docker run` a service amounts to.
fn run_line(
    svc: &Value,
    extra_volumes: &[String],
    entrypoint: Option<&str>,
    workdir: Option<&str>,
    command: &[String],
) -> String {
    let mut line = String::from("docker run --rm");
    if svc.get("privileged") == Some(&Value::Bool(true)) {
        line.push_str(" --privileged");
    }
    let mut volumes: Vec<String> = extra_volumes.to_vec();
    if let Some(Value::Array(vs)) = svc.get("volumes") {
        for v in vs {
            match v {
                Value::String(s) => volumes.push(s.clone()),
                Value::Object(m) => {
                    let source = m.get("source").and_then(Value::as_str);
                    let target = m.get("target").and_then(Value::as_str);
                    if let (Some(s), Some(t)) = (source, target) {
                        volumes.push(format!("{s}:{t}"));
                    }
                }
                _ => {}
            }
        }
    }
    for v in &volumes {
        line.push_str(" -v ");
        line.push_str(&interpolated(v));
    }
    if let Some(w) = workdir.or_else(|| svc.get("working_dir").and_then(Value::as_str)) {
        line.push_str(" -w ");
        line.push_str(&interpolated(w));
    }
    let image = svc
        .get("image")
        .and_then(Value::as_str)
        .unwrap_or("compose-built-image");
    line.push(' ');
    line.push_str(&crate::shell::quote(image));
    let words = |v: Option<&Value>| -> Vec<String> {
        match v {
            // compose splits a string as a shell would, with no shell.
            Some(Value::String(s)) => vec![interpolated_words(s)],
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(Value::as_str)
                .map(interpolated)
                .collect(),
            _ => Vec::new(),
        }
    };
    let entry = match entrypoint {
        Some(e) => vec![interpolated_words(e)],
        None => words(svc.get("entrypoint")),
    };
    let cmd = if command.is_empty() {
        words(svc.get("command"))
    } else {
        command.iter().map(|c| crate::shell::quote(c)).collect()
    };
    for w in entry.iter().chain(&cmd) {
        line.push(' ');
        line.push_str(w);
    }
    line
}

/// One value of the compose file as a word of the `docker run` line: its
/// `${VAR}`/`$VAR` interpolation and a leading `~` as the shell would make
/// them, nothing else run.
fn interpolated(v: &str) -> String {
    let (tilde, rest) = match v.strip_prefix('~') {
        Some(r) if r.is_empty() || r.starts_with(['/', ':']) => ("~", r),
        _ => ("", v),
    };
    let escaped = rest
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('`', "\\`")
        .replace("$(", "\\$(");
    format!("{tilde}\"{escaped}\"")
}

/// A string compose splits into words: the words as the shell splits them,
/// with only interpolation left to expand.
fn interpolated_words(s: &str) -> String {
    crate::shell::command::wrappers::split_words(s)
        .iter()
        .map(|w| interpolated(w))
        .collect::<Vec<_>>()
        .join(" ")
}
