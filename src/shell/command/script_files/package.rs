//! `npm run X`, `npm test`, `npm install`, `yarn X`, `pnpm X`, `bun run X`
//! (and the lifecycle events `publish`, `pack`, `version`, `rebuild`):
//! the scripts of the nearest `package.json` the package manager runs, as
//! shell text (each in its own `sh -c`, as the managers run them): `preX`,
//! `X`, `postX`, with the arguments given after `--` (npm and yarn 1 run the
//! `pre`/`post` scripts; reading them for every manager errs on the side of
//! what may run). A bare `npm install`/`npm ci`/`yarn`/`pnpm install` runs the
//! package's own install scripts (`preinstall`, `install`, `postinstall`,
//! `prepare`): a cloned repository's `postinstall` is code it brought.
//!
//! Not followed: a workspace's package (`-w`, `--filter`), the scripts of
//! dependencies being installed (`npm install left-pad`: code from the
//! registry), `--ignore-scripts` (runs none).

use std::path::{Path, PathBuf};

use super::{Code, Found, SimpleCommand, MAX_SCRIPT_BYTES};

/// Folders climbed to find `package.json`.
const MAX_CLIMB: usize = 16;

/// yarn's and pnpm's own commands (anything else is a script's name).
const BUILTINS: &[&str] = &[
    "add",
    "audit",
    "autoclean",
    "bin",
    "cache",
    "check",
    "config",
    "create",
    "dedupe",
    "deploy",
    "dlx",
    "doctor",
    "env",
    "exec",
    "explain",
    "fetch",
    "generate-lock-entry",
    "global",
    "help",
    "i",
    "import",
    "info",
    "init",
    "install",
    "licenses",
    "link",
    "list",
    "login",
    "logout",
    "ls",
    "node",
    "npm",
    "outdated",
    "owner",
    "pack",
    "patch",
    "plugin",
    "policies",
    "prune",
    "publish",
    "rebuild",
    "remove",
    "rm",
    "root",
    "search",
    "server",
    "set",
    "setup",
    "store",
    "tag",
    "team",
    "unlink",
    "unplug",
    "up",
    "update",
    "upgrade",
    "version",
    "versions",
    "why",
    "workspace",
    "workspaces",
];

/// Lifecycle scripts run by a command of their own name.
const LIFECYCLE: &[&str] = &["test", "tst", "t", "start", "stop", "restart"];

/// Is the command a package manager that may run a package's scripts?
pub(super) fn runs_scripts(c: &SimpleCommand) -> bool {
    match c.program.as_str() {
        "npm" | "yarn" | "pnpm" => c.code.is_none(),
        // `bun run NAME` runs a file NAME or the script NAME (the table of
        // places takes it for a file: the script is read here).
        "bun" => matches!(c.code, None | Some(Code::File)),
        _ => false,
    }
}

/// bun's own commands (`bun NAME` runs the script NAME otherwise).
const BUN_BUILTINS: &[&str] = &[
    "a",
    "add",
    "audit",
    "build",
    "c",
    "completions",
    "create",
    "discord",
    "exec",
    "help",
    "i",
    "info",
    "init",
    "install",
    "link",
    "outdated",
    "patch",
    "patch-commit",
    "pm",
    "publish",
    "remove",
    "repl",
    "rm",
    "run",
    "test",
    "unlink",
    "update",
    "upgrade",
    "why",
    "x",
];

/// What the manager is asked: the folder to start from, the scripts it runs.
struct Call {
    dir: Option<String>,
    scripts: Vec<String>,
    args: Vec<String>,
}

fn call(prog: &str, args: &[String]) -> Option<Call> {
    let mut dir = None;
    let mut ignore = false;
    let mut words: Vec<&String> = Vec::new();
    let mut rest: Vec<String> = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--" {
            rest.extend(it.by_ref().cloned());
            break;
        }
        let (name, attached) = match a.split_once('=') {
            Some((n, v)) if n.starts_with('-') => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || attached.clone().or_else(|| it.next().cloned());
        match name {
            "--prefix" | "--cwd" | "--dir" | "-C" => dir = value(),
            "--ignore-scripts" => ignore = true,
            "-w" | "--workspace" | "--filter" | "-F" | "-r" | "--recursive" | "--workspaces"
            | "-ws" => return None,
            n if n.starts_with('-') => {}
            _ => words.push(a),
        }
        // yarn and pnpm hand the script every word after its name.
        let named = match words.first().map(|w| w.as_str()) {
            Some("run" | "run-script") => words.len() == 2,
            Some(w) => words.len() == 1 && !BUILTINS.contains(&w) && !LIFECYCLE.contains(&w),
            None => false,
        };
        if named && prog != "npm" {
            rest.extend(it.by_ref().cloned());
            break;
        }
    }
    let (first, after) = match words.split_first() {
        Some((f, a)) => (f.as_str(), a),
        None => ("", &[][..]),
    };
    let run = |name: &str| {
        vec![
            format!("pre{name}"),
            name.to_string(),
            format!("post{name}"),
        ]
    };
    let install = || {
        [
            "preinstall",
            "install",
            "postinstall",
            "prepublish",
            "preprepare",
            "prepare",
            "postprepare",
        ]
        .map(str::to_string)
        .to_vec()
    };
    let lifecycle = |names: &[&str]| names.iter().map(|n| (*n).to_string()).collect::<Vec<_>>();
    let mut scripts = match (prog, first) {
        (_, "run" | "run-script" | "rum" | "urn") => {
            let name = after.first()?;
            run(name)
        }
        ("bun", name) if !name.is_empty() && !BUN_BUILTINS.contains(&name) && after.is_empty() => {
            run(name)
        }
        // bun runs the package's own install scripts too (not its dependencies').
        ("bun", "install" | "i") if after.is_empty() => install(),
        ("bun", _) => return None,
        (_, name) if LIFECYCLE.contains(&name) => {
            let name = match first {
                "tst" | "t" => "test",
                n => n,
            };
            run(name)
        }
        ("npm", "install" | "i" | "ci" | "isntall" | "add") | ("pnpm", "install" | "i")
            if after.is_empty() =>
        {
            install()
        }
        ("yarn", "") | ("yarn", "install") => install(),
        // Other lifecycle events run the package's scripts of their names.
        (_, "publish") => lifecycle(&[
            "prepublishOnly",
            "prepack",
            "prepare",
            "postpack",
            "publish",
            "postpublish",
        ]),
        (_, "pack") => lifecycle(&["prepack", "prepare", "postpack"]),
        ("npm" | "pnpm", "version") if !after.is_empty() => {
            lifecycle(&["preversion", "version", "postversion"])
        }
        (_, "rebuild") => lifecycle(&["preinstall", "install", "postinstall", "prepare"]),
        ("yarn" | "pnpm", name) if !name.is_empty() && !BUILTINS.contains(&name) => run(name),
        _ => return None,
    };
    if ignore {
        // Only the script named runs (no pre, post or install scripts).
        if scripts.len() != 3 || matches!(first, "pack" | "version" | "rebuild") {
            return None;
        }
        scripts = vec![scripts.swap_remove(1)];
    }
    Some(Call {
        dir,
        scripts,
        args: rest,
    })
}

/// Does the command run scripts of the package (not only install others')?
pub(super) fn names_scripts(c: &SimpleCommand) -> bool {
    call(&c.program, &c.args).is_some()
}

/// Is `c` an `npm pkg set` (or pnpm's) that sets only scripts, each
/// `scripts.NAME=TEXT` with its text known?
pub(super) fn sets_scripts(c: &SimpleCommand) -> bool {
    matches!(c.program.as_str(), "npm" | "pnpm")
        && c.operands.first().is_some_and(|o| o == "pkg")
        && c.operands.get(1).is_some_and(|o| o == "set")
        && c.operands.len() > 2
        && c.operands
            .iter()
            .zip(&c.operand_values)
            .skip(2)
            .all(|(o, v)| {
                v.literal().is_some()
                    && o.strip_prefix("scripts.")
                        .and_then(|r| r.split_once('='))
                        .is_some_and(|(name, _)| !name.is_empty() && !name.contains('.'))
            })
        && !c
            .flags
            .iter()
            .any(|f| f.starts_with("--json") || f.starts_with("-w") || f.starts_with("--workspace"))
}

/// The scripts the line's `npm pkg set scripts.NAME=TEXT` commands set
/// ([`sets_scripts`]): the package.json each writes (the nearest at or
/// above where it runs), the name and the text.
pub(super) fn script_sets(cmds: &[SimpleCommand], cwd: &str) -> Vec<(PathBuf, String, String)> {
    let mut out = Vec::new();
    for c in cmds.iter().filter(|c| sets_scripts(c)) {
        let Some(dir) = super::folder(&c.cwd, cwd) else {
            continue;
        };
        let Some(path) = nearest(Path::new(&dir)) else {
            continue;
        };
        for o in c.operands.iter().skip(2) {
            if let Some((name, text)) = o.strip_prefix("scripts.").and_then(|r| r.split_once('=')) {
                out.push((path.clone(), name.to_string(), text.to_string()));
            }
        }
    }
    out
}

/// The scripts the package manager runs, as shell text; `sets` are scripts
/// the line sets first ([`script_sets`]), read in place of the file's.
pub(super) fn scripts(c: &SimpleCommand, cwd: &Path, sets: &[(PathBuf, String, String)]) -> Found {
    let Some(call) = call(&c.program, &c.args) else {
        return Found::Nothing;
    };
    if call.dir.as_deref().is_some_and(|d| d.contains(['$', '`'])) {
        return Found::Unknown;
    }
    let start = match &call.dir {
        Some(d) => cwd.join(d),
        None => cwd.to_path_buf(),
    };
    let Some(path) = nearest(&start) else {
        return Found::Nothing;
    };
    // A package.json the line changes only by setting scripts whose text is
    // known is read as it is on disk, with those scripts set (the caller
    // found no other write of it); absent, it is the scripts set alone.
    let set_here = sets.iter().any(|(p, _, _)| *p == path);
    let read = if set_here {
        super::read_from_disk(&path, false, |_| true).map(|t| t.or_else(|| Some("{}".into())))
    } else {
        super::read_script(&path, false)
    };
    let text = match read {
        Ok(Some(t)) => t,
        Ok(None) => return Found::Nothing,
        Err(()) => return Found::Unknown,
    };
    let Ok(mut json) = serde_json::from_str::<serde_json::Value>(&text) else {
        // npm refuses a package.json it cannot read.
        return Found::Nothing;
    };
    for (_, name, script) in sets.iter().filter(|(p, _, _)| *p == path) {
        if let Some(obj) = json.as_object_mut() {
            let table = obj
                .entry("scripts")
                .or_insert_with(|| serde_json::Value::Object(Default::default()));
            if let Some(t) = table.as_object_mut() {
                t.insert(name.clone(), serde_json::Value::String(script.clone()));
            }
        }
    }
    let Some(table) = json.get("scripts").and_then(|s| s.as_object()) else {
        return Found::Nothing;
    };
    let dir = path.parent().unwrap_or(Path::new("/"));
    let mut out = format!(
        "cd {} || exit 1\n",
        crate::shell::quote(&dir.to_string_lossy())
    );
    let mut any = false;
    let args: Vec<String> = call.args.iter().map(|a| crate::shell::quote(a)).collect();
    for (i, name) in call.scripts.iter().enumerate() {
        let Some(script) = table.get(name) else {
            continue;
        };
        let Some(script) = script.as_str() else {
            return Found::Unknown;
        };
        any = true;
        out.push_str("(\n");
        out.push_str(script);
        // The arguments go to the script named, not its pre and post ones.
        if (call.scripts.len() == 1 || i % 3 == 1) && !args.is_empty() {
            out.push(' ');
            out.push_str(&args.join(" "));
        }
        out.push_str("\n)\n");
        if out.len() as u64 > MAX_SCRIPT_BYTES {
            return Found::Unknown;
        }
    }
    if any {
        let entry = call.scripts.join(" ");
        Found::Text(super::Origin { path, entry }, out)
    } else {
        Found::Nothing
    }
}

/// The nearest `package.json` at or above `dir`.
fn nearest(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .take(MAX_CLIMB)
        .map(|d| d.join("package.json"))
        .find(|p| super::written_by_line(p) || p.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_each_manager_runs() {
        let s = |cmd: &str| -> Option<(Vec<String>, Vec<String>)> {
            let c = crate::shell::command::parse(cmd).unwrap().remove(0);
            call(&c.program, &c.args).map(|c| (c.scripts, c.args))
        };
        let run = |n: &str| vec![format!("pre{n}"), n.to_string(), format!("post{n}")];
        assert_eq!(s("npm run clean"), Some((run("clean"), vec![])));
        assert_eq!(
            s("npm run build -- --prod"),
            Some((run("build"), vec!["--prod".into()]))
        );
        assert_eq!(s("npm test"), Some((run("test"), vec![])));
        assert_eq!(s("npm t"), Some((run("test"), vec![])));
        assert_eq!(s("yarn clean"), Some((run("clean"), vec![])));
        assert_eq!(
            s("yarn run lint --fix"),
            Some((run("lint"), vec!["--fix".into()]))
        );
        assert_eq!(
            s("pnpm deploy:prod x"),
            Some((run("deploy:prod"), vec!["x".into()]))
        );
        assert_eq!(s("npm install").map(|c| c.0.len()), Some(7));
        assert_eq!(s("yarn").map(|c| c.0.len()), Some(7));
        assert_eq!(s("npm install left-pad"), None);
        assert_eq!(s("yarn add left-pad"), None);
        assert_eq!(
            s("npm run clean --ignore-scripts"),
            Some((vec!["clean".into()], vec![]))
        );
        assert_eq!(s("npm install --ignore-scripts"), None);
        assert_eq!(s("npm -w api run clean"), None);
        assert_eq!(s("npm ls"), None);
        assert_eq!(s("npm publish").map(|c| c.0.len()), Some(6));
        assert_eq!(s("yarn pack").map(|c| c.0.len()), Some(3));
        assert_eq!(s("npm version patch").map(|c| c.0.len()), Some(3));
        assert_eq!(s("npm version"), None);
        assert_eq!(s("npm publish --ignore-scripts"), None);
        assert_eq!(s("npm pack --ignore-scripts"), None);
    }
}
