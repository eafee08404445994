//! Monorepo runners that run a package script in every package of a
//! workspace: `turbo run build`, `nx run-many -t build` / `nx build app`,
//! `lerna run build`, `yarn workspaces foreach run build`, `npm run build
//! --workspaces`, `pnpm -r run build`. The workspace's packages are the
//! folders its manifest lists (`pnpm-workspace.yaml`'s `packages`,
//! `lerna.json`'s `packages`, `package.json`'s `workspaces`); each
//! package's script of that name (or nx's `project.json` target command)
//! runs in the package's folder, as `npm run` runs it.
//!
//! A filter (`--filter`, `--scope`, `-p`, a project named to nx) picks some
//! packages the analysis does not evaluate: their scripts are what the run
//! may do (a deny asks).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::{read_script, Found};
use super::{tree, Text, MAX_ENTRIES};

/// Packages read for one command.
const MAX_PACKAGES: usize = 64;
/// Folders listed to expand the workspace's patterns.
const MAX_LISTED: usize = 256;

/// What the runner is asked: the scripts (targets), and whether a filter
/// picks among the packages.
struct Ask {
    scripts: Vec<String>,
    filtered: bool,
}

/// The scripts `prog args…` runs in a workspace's packages; `None` when it
/// runs none of them (a listing, a single package's script).
fn ask(prog: &str, args: &[String]) -> Option<Ask> {
    let mut words: Vec<String> = Vec::new();
    let mut targets: Vec<String> = Vec::new();
    let mut filtered = false;
    let mut recursive = false;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || attached.clone().or_else(|| it.next().cloned());
        match name {
            "-t" | "--target" | "--targets" if prog == "nx" => {
                targets.extend(value().unwrap_or_default().split(',').map(str::to_string));
            }
            "--filter" | "-F" | "--scope" | "--ignore" | "--projects" | "-p" | "--include"
            | "--exclude" | "--from" | "--since" => {
                filtered = true;
                value();
            }
            "-w" | "--workspace" if prog == "npm" => {
                filtered = true;
                recursive = true;
                value();
            }
            "--workspaces" | "-ws" | "-r" | "--recursive" => recursive = true,
            "--concurrency" | "-c" | "--parallel" | "--output-logs" | "--cache-dir"
            | "--log-order" | "--graph" | "--env-mode" | "--stream" | "--jobs" | "-j" | "--cwd"
            | "--dir" | "-C"
                if !matches!(name, "--stream" | "--parallel" | "-c") || attached.is_some() =>
            {
                value();
            }
            n if n.starts_with('-') => {}
            _ => words.push(a.clone()),
        }
    }
    let w: Vec<&str> = words.iter().map(String::as_str).collect();
    let scripts: Vec<String> = match (prog, w.as_slice()) {
        ("turbo", ["run", rest @ ..]) => rest.iter().map(|s| (*s).to_string()).collect(),
        ("turbo", [first, ..])
            if !matches!(
                *first,
                "prune"
                    | "login"
                    | "logout"
                    | "link"
                    | "unlink"
                    | "gen"
                    | "generate"
                    | "ls"
                    | "info"
                    | "daemon"
                    | "telemetry"
                    | "bin"
                    | "query"
                    | "scan"
                    | "watch"
                    | "boundaries"
            ) =>
        {
            w.iter().map(|s| (*s).to_string()).collect()
        }
        ("nx", ["run-many" | "affected", ..]) => targets.clone(),
        ("nx", ["run", target]) => {
            filtered = true;
            vec![target.rsplit(':').next().unwrap_or(target).to_string()]
        }
        ("nx", [target, _project]) if !NX_OWN.contains(target) => {
            filtered = true;
            vec![(*target).to_string()]
        }
        ("lerna", ["run", rest @ ..]) => {
            rest.first().map(|s| (*s).to_string()).into_iter().collect()
        }
        ("yarn", ["workspaces", "foreach", rest @ ..]) => match rest {
            ["run", s, ..] | [s, ..] => vec![(*s).to_string()],
            [] => Vec::new(),
        },
        ("npm" | "pnpm", ["run" | "run-script" | "rum" | "urn", s, ..]) if recursive => {
            vec![(*s).to_string()]
        }
        ("npm" | "pnpm", [s @ ("test" | "start" | "stop" | "restart" | "t" | "tst"), ..])
            if recursive =>
        {
            vec![if matches!(*s, "t" | "tst") {
                "test".into()
            } else {
                (*s).to_string()
            }]
        }
        ("pnpm", [s, ..])
            if recursive
                && !matches!(
                    *s,
                    "install"
                        | "i"
                        | "add"
                        | "exec"
                        | "update"
                        | "up"
                        | "remove"
                        | "rm"
                        | "list"
                        | "ls"
                        | "publish"
                        | "why"
                        | "outdated"
                ) =>
        {
            vec![(*s).to_string()]
        }
        _ => return None,
    };
    let scripts: Vec<String> = scripts
        .into_iter()
        .map(|s| s.rsplit('#').next().unwrap_or(&s).to_string())
        .filter(|s| !s.is_empty() && !s.starts_with('-'))
        .collect();
    (!scripts.is_empty()).then_some(Ask { scripts, filtered })
}

/// nx's own commands (anything else first is a target: `nx build app`).
const NX_OWN: &[&str] = &[
    "add",
    "affected",
    "connect",
    "daemon",
    "format",
    "format:check",
    "format:write",
    "g",
    "generate",
    "graph",
    "import",
    "init",
    "list",
    "migrate",
    "release",
    "repair",
    "report",
    "reset",
    "show",
    "sync",
    "view-logs",
    "watch",
    "exec",
];

/// The scripts the runner runs in each package of the workspace.
pub(super) fn code(prog: &str, args: &[String], dir: &Path) -> Found {
    let Some(ask) = ask(prog, args) else {
        return Found::Nothing;
    };
    let Some((root, patterns)) = workspace(dir) else {
        return Found::Nothing;
    };
    let Some(packages) = expand(&root, &patterns) else {
        return Found::Unknown;
    };
    let mut out = Text::new(&root);
    let mut first = None;
    for pkg in &packages {
        for s in &ask.scripts {
            let Some(line) = script_of(pkg, s) else {
                continue;
            };
            first.get_or_insert_with(|| pkg.join("package.json"));
            out.line(
                &format!(
                    "cd {} || exit 1\n{line}",
                    crate::shell::quote(&pkg.to_string_lossy())
                ),
                ask.filtered,
            );
            if out.full() {
                return Found::Unknown;
            }
        }
    }
    match first {
        Some(path) => out.found(path, ask.scripts.join(" ")),
        None => Found::Nothing,
    }
}

/// A package's script `name` (`package.json`), or the command of its nx
/// target (`project.json`'s `targets.NAME.options.command(s)`).
fn script_of(pkg: &Path, name: &str) -> Option<String> {
    let json = |f: &str| -> Option<Value> {
        let text = read_script(&pkg.join(f), false).ok()??;
        tree::parse(f, &text)
    };
    if let Some(s) = json("package.json")
        .as_ref()
        .and_then(|p| p.get("scripts")?.get(name)?.as_str().map(str::to_string))
    {
        return Some(s);
    }
    let project = json("project.json")?;
    let options = project.get("targets")?.get(name)?.get("options")?;
    if let Some(c) = options.get("command").and_then(Value::as_str) {
        return Some(c.to_string());
    }
    let lines: Vec<String> = options
        .get("commands")?
        .as_array()?
        .iter()
        .filter_map(|c| {
            c.as_str()
                .or_else(|| c.get("command")?.as_str())
                .map(str::to_string)
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The workspace's root and its package patterns: the nearest
/// `pnpm-workspace.yaml`, `lerna.json` or `package.json` with `workspaces`
/// at or above `dir`.
fn workspace(dir: &Path) -> Option<(PathBuf, Vec<String>)> {
    for d in dir.ancestors().take(super::MAX_CLIMB) {
        let read = |f: &str| -> Option<Value> {
            let text = read_script(&d.join(f), false).ok()??;
            tree::parse(f, &text)
        };
        let strings = |v: Option<&Value>| -> Vec<String> {
            v.and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default()
        };
        if let Some(p) = read("pnpm-workspace.yaml") {
            return Some((d.to_path_buf(), strings(p.get("packages"))));
        }
        if let Some(l) = read("lerna.json") {
            let mut pats = strings(l.get("packages"));
            if pats.is_empty() {
                pats.push("packages/*".into());
            }
            return Some((d.to_path_buf(), pats));
        }
        if let Some(p) = read("package.json") {
            match p.get("workspaces") {
                Some(Value::Array(_)) => {
                    return Some((d.to_path_buf(), strings(p.get("workspaces"))))
                }
                Some(w @ Value::Object(_)) => {
                    return Some((d.to_path_buf(), strings(w.get("packages"))))
                }
                _ => {}
            }
        }
        if d.join(".git").exists() {
            break;
        }
    }
    None
}

/// The package folders the patterns name (`packages/*`, `apps/**`, `tools/cli`;
/// `!x` left out), each with a `package.json` or `project.json`; `None` past
/// the bounds.
fn expand(root: &Path, patterns: &[String]) -> Option<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut listed = 0;
    let excluded: Vec<String> = patterns
        .iter()
        .filter_map(|p| p.strip_prefix('!'))
        .map(|p| p.trim_end_matches('/').to_string())
        .collect();
    for pat in patterns
        .iter()
        .filter(|p| !p.starts_with('!'))
        .take(MAX_ENTRIES)
    {
        if pat.contains(['$', '`']) {
            return None;
        }
        let pat = pat.trim_start_matches("./").trim_end_matches('/');
        let (base, deep) = match pat.find('*') {
            Some(at) => {
                let base = pat[..at].trim_end_matches('/');
                (base.to_string(), pat[at..].starts_with("**"))
            }
            None => (pat.to_string(), false),
        };
        let mut dirs = vec![(root.join(&base), 0usize)];
        let literal = !pat.contains('*');
        while let Some((d, depth)) = dirs.pop() {
            if literal {
                out.push(d);
                break;
            }
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            let mut subs: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().is_some_and(|n| {
                        !n.to_string_lossy().starts_with('.') && n != "node_modules"
                    })
                })
                .collect();
            listed += subs.len();
            if listed > MAX_LISTED {
                return None;
            }
            subs.sort();
            for s in subs {
                if deep && depth < 3 {
                    dirs.push((s.clone(), depth + 1));
                }
                out.push(s);
            }
        }
    }
    out.retain(|p| {
        let rel = p
            .strip_prefix(root)
            .map(|r| r.to_string_lossy().into_owned())
            .unwrap_or_default();
        !excluded
            .iter()
            .any(|e| rel == *e || (e.ends_with('*') && rel.starts_with(e.trim_end_matches('*'))))
            && (p.join("package.json").is_file() || p.join("project.json").is_file())
    });
    out.sort();
    out.dedup();
    (out.len() <= MAX_PACKAGES).then_some(out)
}
