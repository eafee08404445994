//! Commands a tool's project file runs on this machine, in files written in
//! the tool's own language, which this reads for the forms that run a
//! command:
//!
//! - terraform (`*.tf`): an `external` data source's `program` runs at
//!   `plan`, `apply`, `refresh`, `destroy`, `console` and `import`; a
//!   `local-exec` provisioner's `command` (sh) at `apply` and `destroy`,
//!   when its resource is created or destroyed: what the run may do;
//! - a nix shell (`nix develop`: `flake.nix`; `nix-shell`: the file named,
//!   `shell.nix` or `default.nix`): `shellHook`, bash that runs in the
//!   shell before anything else (several shells' hooks: each may run);
//! - a dev container (`devcontainer up`): `initializeCommand`, run on this
//!   machine before the container starts (a string is sh, a list a
//!   command's words, an object several commands);
//! - meson (`meson.build`, and the `subdir()`s it reads): `run_command(…)`
//!   runs when the build is configured (`meson setup`, `meson configure`;
//!   another subcommand may reconfigure: what the run may do);
//! - MSBuild (`dotnet build`, `msbuild`: the project files of the folder and
//!   the `Directory.Build.props`/`.targets` above it): an `Exec` task's
//!   `Command` (sh) runs when its target does: what the run may do.
//!
//! A value only the run knows (an interpolation `${…}`, a property `$(…)`,
//! a variable) is unknown text; a file that cannot be read whole is unknown
//! code.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use regex::Regex;
use serde_json::Value;

use super::super::super::nesting::Literals;
use super::super::super::places::{Format, ProjectFile};
use super::super::{read_script, Found};
use super::{file_text, nearest, tree, Text, MAX_CLIMB, MAX_ENTRIES, UNKNOWN};

/// Files of one folder read for one command (`*.tf`, project files).
const MAX_FILES: usize = 64;

/// The commands the row's file runs for the command.
pub(super) fn code(row: &ProjectFile, sub: &str, args: &[String], dir: &Path) -> Found {
    if args.iter().any(|a| {
        matches!(
            a.as_str(),
            "-h" | "-help" | "--help" | "--version" | "-version"
        )
    }) {
        return Found::Nothing;
    }
    match row.format {
        Format::Terraform => terraform(sub, dir),
        Format::NixShell => nix_shell(row, args, dir),
        Format::Devcontainer => devcontainer(row, args, dir),
        Format::Meson => meson(sub, args, dir),
        Format::Msbuild => msbuild(row, dir),
        _ => Found::Nothing,
    }
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|_| Regex::new("$^").expect("empty")))
}

/// The files of `dir` whose names end with one of `ends` (sorted, at most
/// [`MAX_FILES`]; `Err` past it).
fn files_ending(dir: &Path, ends: &[&str]) -> Result<Vec<PathBuf>, ()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut out: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| ends.iter().any(|e| n.ends_with(e)))
        })
        .take(MAX_FILES + 1)
        .collect();
    if out.len() > MAX_FILES {
        return Err(());
    }
    out.sort();
    Ok(out)
}

/// The texts of `paths` (`Err`: one cannot be read whole).
fn texts(paths: &[PathBuf]) -> Result<Vec<(PathBuf, String)>, ()> {
    let mut out = Vec::new();
    for p in paths {
        if let Some(t) = read_script(p, false)? {
            out.push((p.clone(), t));
        }
    }
    Ok(out)
}

/// A double-quoted string's text (HCL, nix, JSON-like): escapes undone,
/// `${…}` interpolations as unknown text; `None` when `s` is not one.
fn quoted(s: &str) -> Option<String> {
    let inner = s.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            // `$${` is a literal `${` in HCL.
            '$' if chars.peek() == Some(&'$') => {
                chars.next();
                out.push('$');
            }
            '$' if chars.peek() == Some(&'{') => {
                let inner = skip_interpolation(&mut chars);
                // terraform's folders: the module's, the root module's, the
                // working one (the commands run in the folder read).
                match inner.trim() {
                    "path.module" | "path.root" | "path.cwd" => out.push('.'),
                    _ => out.push_str(UNKNOWN),
                }
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// Skip `{…}` (nested braces) after a `$`: the text inside.
fn skip_interpolation(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) -> String {
    let mut depth = 0usize;
    let mut inner = String::new();
    for c in chars.by_ref() {
        match c {
            '{' => {
                depth += 1;
                if depth == 1 {
                    continue;
                }
            }
            '}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return inner;
                }
            }
            _ => {}
        }
        inner.push(c);
    }
    inner
}

/// Words as one sh command line, each quoted (no shell runs them).
fn words_line(words: &[String]) -> String {
    words
        .iter()
        .map(|w| {
            if w.contains(UNKNOWN) {
                // Keep the unknown part a variable the analysis sees.
                format!("\"{}\"", w.replace('"', "\\\""))
            } else {
                crate::shell::quote(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// terraform's `external` programs and `local-exec` commands in the
/// folder's `*.tf` files.
fn terraform(sub: &str, dir: &Path) -> Found {
    static DATA: OnceLock<Regex> = OnceLock::new();
    static PROGRAM: OnceLock<Regex> = OnceLock::new();
    static LOCAL_EXEC: OnceLock<Regex> = OnceLock::new();
    static COMMAND: OnceLock<Regex> = OnceLock::new();
    let reads_data = matches!(
        sub,
        "plan" | "apply" | "refresh" | "destroy" | "console" | "import"
    );
    let provisions = matches!(sub, "apply" | "destroy");
    if !reads_data {
        return Found::Nothing;
    }
    let Ok(paths) = files_ending(dir, &[".tf"]) else {
        return Found::Unknown;
    };
    let Ok(files) = texts(&paths) else {
        return Found::Unknown;
    };
    let mut out = Text::new(dir);
    let data = re(&DATA, r#"data\s+"external"\s+"[^"]*"\s*\{"#);
    let program = re(&PROGRAM, r"(?m)^\s*program\s*=\s*\[");
    let local_exec = re(&LOCAL_EXEC, r#"provisioner\s+"local-exec"\s*\{"#);
    let command = re(
        &COMMAND,
        r#"(?m)^\s*command\s*=\s*(?:("(?:[^"\\]|\\.)*")|<<-?\s*([A-Za-z_]+)\s*\n)"#,
    );
    for (_, text) in &files {
        for m in data.find_iter(text) {
            let body = Literals::DOUBLE.inside(text, m.end() - 1);
            if let Some(p) = program.find(body) {
                let list = Literals::QUOTES.until_unmatched(&body[p.end()..], &[]);
                let words: Vec<String> = Literals::QUOTES
                    .list(list)
                    .iter()
                    .map(|w| quoted(w).unwrap_or_else(|| UNKNOWN.to_string()))
                    .collect();
                out.line(&words_line(&words), false);
            }
        }
        if !provisions {
            continue;
        }
        for m in local_exec.find_iter(text) {
            let body = Literals::DOUBLE.inside(text, m.end() - 1);
            if let Some(c) = command.captures(body) {
                let line = match (c.get(1), c.get(2)) {
                    (Some(s), _) => quoted(s.as_str()).unwrap_or_default(),
                    (None, Some(tag)) => {
                        heredoc(&body[c.get(0).map_or(0, |m| m.end())..], tag.as_str())
                    }
                    _ => String::new(),
                };
                out.line(&line, true);
            }
        }
        if out.full() {
            return Found::Unknown;
        }
    }
    out.found(dir.join("main.tf"), sub.to_string())
}

/// An HCL heredoc's text up to the line holding only `tag`, interpolations
/// as unknown text.
fn heredoc(rest: &str, tag: &str) -> String {
    let mut lines = Vec::new();
    for l in rest.lines() {
        if l.trim() == tag {
            break;
        }
        lines.push(l);
    }
    let body = lines.join("\n");
    quoted(&format!(
        "\"{}\"",
        body.replace('\\', "\\\\").replace('"', "\\\"")
    ))
    .unwrap_or(body)
}

/// A nix shell's `shellHook`s.
fn nix_shell(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    static HOOK: OnceLock<Regex> = OnceLock::new();
    // `nix-shell -p PKGS` builds a shell of packages, no file; `nix-shell
    // FILE` reads FILE.
    if args
        .iter()
        .any(|a| matches!(a.as_str(), "-p" | "--packages" | "-E" | "--expr"))
    {
        return Found::Nothing;
    }
    let named = args
        .iter()
        .find(|a| !a.starts_with('-') && (a.ends_with(".nix") || a.starts_with("./")))
        .map(String::as_str);
    let (path, text) = match file_text(dir, row.files, named.filter(|n| n.ends_with(".nix"))) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let hook = re(&HOOK, r"\bshellHook\s*=\s*");
    let hooks: Vec<String> = hook
        .find_iter(&text)
        .filter_map(|m| nix_string(&text[m.end()..]))
        .take(MAX_ENTRIES)
        .collect();
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    let several = hooks.len() > 1;
    for h in &hooks {
        out.line(h, several);
    }
    out.found(path, String::new())
}

/// A nix string at the start of `s`: `''…''` (an indented string: `'''`
/// is `''`, `''$` is `$`, `''\X` is X escaped) or `"…"`; interpolations as
/// unknown text.
fn nix_string(s: &str) -> Option<String> {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix("''") {
        let mut out = String::new();
        let mut chars = rest.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\'' if chars.peek() == Some(&'\'') => {
                    chars.next();
                    match chars.peek() {
                        Some('\'') => {
                            chars.next();
                            out.push_str("''");
                        }
                        Some('$') => {
                            chars.next();
                            out.push('$');
                        }
                        Some('\\') => {
                            chars.next();
                            match chars.next() {
                                Some('n') => out.push('\n'),
                                Some('t') => out.push('\t'),
                                Some(o) => out.push(o),
                                None => {}
                            }
                        }
                        _ => return Some(dedent(&out)),
                    }
                }
                '$' if chars.peek() == Some(&'{') => {
                    skip_interpolation(&mut chars);
                    out.push_str(UNKNOWN);
                }
                c => out.push(c),
            }
        }
        return Some(dedent(&out));
    }
    if s.starts_with('"') {
        let mut end = None;
        let mut escaped = false;
        for (i, c) in s.char_indices().skip(1) {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                end = Some(i);
                break;
            }
        }
        return quoted(&s[..=end?]);
    }
    // A variable or an expression: only the run knows it.
    Some(UNKNOWN.to_string())
}

/// An indented string's lines without their common indentation.
fn dedent(s: &str) -> String {
    let indent = s
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    s.lines()
        .map(|l| l.get(indent..).unwrap_or(l.trim_start()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A dev container's `initializeCommand`.
fn devcontainer(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut start = dir.to_path_buf();
    let mut config = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, value) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        match name {
            "--workspace-folder" | "--config" => {
                let Some(v) = value.or_else(|| it.next().cloned()) else {
                    continue;
                };
                if v.contains(['$', '`']) {
                    return Found::Unknown;
                }
                if name == "--config" {
                    config = Some(v);
                } else {
                    start = dir.join(v);
                }
            }
            _ => {}
        }
    }
    let (path, text) = match file_text(&start, row.files, config.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let Some(tree) = tree::parse("devcontainer.json", &text) else {
        return Found::Nothing;
    };
    let mut out = Text::new(&start);
    let mut add = |v: &Value| match v {
        Value::String(line) => out.line(&devcontainer_vars(line), false),
        Value::Array(words) => {
            let words: Vec<String> = words
                .iter()
                .map(|w| {
                    w.as_str()
                        .map_or_else(|| UNKNOWN.to_string(), devcontainer_vars)
                })
                .collect();
            out.line(&words_line(&words), false);
        }
        _ => {}
    };
    match tree.get("initializeCommand") {
        Some(Value::Object(named)) => named.values().for_each(&mut add),
        Some(v) => add(v),
        None => {}
    }
    out.found(path, "initializeCommand".into())
}

/// A dev container's variables as the shell's: `${localEnv:NAME}` (with or
/// without a default) is `${NAME}`, `${localWorkspaceFolder}` the folder the
/// command runs in; any other (`${containerEnv:X}`, `${devcontainerId}`)
/// only the run knows.
fn devcontainer_vars(text: &str) -> String {
    static VAR: OnceLock<Regex> = OnceLock::new();
    re(
        &VAR,
        r"\$\{([A-Za-z]+)(?::([A-Za-z_][A-Za-z0-9_]*))?(?::[^}]*)?\}",
    )
    .replace_all(text, |c: &regex::Captures<'_>| {
        match (c.get(1).map(|m| m.as_str()), c.get(2)) {
            (Some("localEnv"), Some(name)) => format!("${{{}}}", name.as_str()),
            (Some("localWorkspaceFolder"), None) => "$PWD".to_string(),
            _ => UNKNOWN.to_string(),
        }
    })
    .into_owned()
}

/// meson's `run_command(…)` calls in `meson.build` and its `subdir()`s.
fn meson(sub: &str, args: &[String], dir: &Path) -> Found {
    static RUN_COMMAND: OnceLock<Regex> = OnceLock::new();
    static SUBDIR: OnceLock<Regex> = OnceLock::new();
    let configures = matches!(sub, "setup" | "configure" | "");
    if !configures && !matches!(sub, "compile" | "test" | "install" | "dist") {
        return Found::Nothing;
    }
    // `meson setup BUILD [SOURCE]`: the source folder is the second operand.
    let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    let source = match (sub, operands.get(1)) {
        ("setup" | "", Some(s)) if !s.contains(['$', '`']) => dir.join(s),
        _ => dir.to_path_buf(),
    };
    let Some(first) = nearest(&source, &["meson.build"]) else {
        return Found::Nothing;
    };
    let root = first.parent().unwrap_or(Path::new("/")).to_path_buf();
    let run_command = re(&RUN_COMMAND, r"\brun_command\s*\(");
    let subdir = re(&SUBDIR, r#"\bsubdir\s*\(\s*'([^'$]*)'"#);
    let mut out = Text::new(&root);
    let mut queue = vec![root.clone()];
    let mut read = 0;
    while let Some(d) = queue.pop() {
        read += 1;
        if read > MAX_FILES {
            return Found::Unknown;
        }
        let text = match read_script(&d.join("meson.build"), false) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(()) => return Found::Unknown,
        };
        for m in run_command.find_iter(&text) {
            let call = Literals::QUOTES.until_unmatched(&text[m.end()..], &[]);
            let words: Vec<String> = Literals::QUOTES
                .list(call)
                .iter()
                .filter(|a| !a.contains(':') || a.starts_with(['\'', '"']))
                .map(|w| meson_string(w).unwrap_or_else(|| UNKNOWN.to_string()))
                .collect();
            // A list given as one argument: `run_command(['rm', …])`.
            let words = match words.as_slice() {
                [one] if one == UNKNOWN && call.trim_start().starts_with('[') => Literals::QUOTES
                    .list(Literals::QUOTES.until_unmatched(&call.trim_start()[1..], &[]))
                    .iter()
                    .map(|w| meson_string(w).unwrap_or_else(|| UNKNOWN.to_string()))
                    .collect(),
                _ => words,
            };
            out.line(&words_line(&words), !configures);
        }
        for c in subdir.captures_iter(&text) {
            if let Some(s) = c.get(1) {
                queue.push(d.join(s.as_str()));
            }
        }
        if out.full() {
            return Found::Unknown;
        }
    }
    out.found(first, sub.to_string())
}

/// A meson string literal (`'…'`, escapes undone); `None` for anything else.
fn meson_string(s: &str) -> Option<String> {
    let inner = s.trim().strip_prefix('\'')?.strip_suffix('\'')?;
    Some(inner.replace("\\'", "'").replace("\\\\", "\\"))
}

/// MSBuild's `Exec` commands in the folder's project files and the
/// `Directory.Build.props`/`.targets` above it.
fn msbuild(row: &ProjectFile, dir: &Path) -> Found {
    static EXEC: OnceLock<Regex> = OnceLock::new();
    let Ok(mut paths) = files_ending(dir, row.files) else {
        return Found::Unknown;
    };
    for name in ["Directory.Build.props", "Directory.Build.targets"] {
        if let Some(p) = dir
            .ancestors()
            .take(MAX_CLIMB)
            .map(|d| d.join(name))
            .find(|p| super::super::code_file(p))
        {
            if !paths.contains(&p) {
                paths.push(p);
            }
        }
    }
    let Ok(files) = texts(&paths) else {
        return Found::Unknown;
    };
    let exec = re(&EXEC, r#"(?s)<Exec\b[^>]*?\bCommand\s*=\s*"([^"]*)""#);
    let mut out = Text::new(dir);
    for (_, text) in &files {
        for c in exec.captures_iter(text) {
            let line = xml_text(c.get(1).map_or("", |m| m.as_str()));
            out.line(&line, true);
        }
        if out.full() {
            return Found::Unknown;
        }
    }
    let first = paths.first().cloned().unwrap_or_else(|| dir.to_path_buf());
    out.found(first, String::new())
}

/// An XML attribute's text: entities undone, MSBuild's `$(…)`, `@(…)` and
/// `%(…)` as unknown text.
fn xml_text(s: &str) -> String {
    static PROPERTY: OnceLock<Regex> = OnceLock::new();
    let s = s
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#10;", "\n")
        .replace("&#13;", "")
        .replace("&amp;", "&");
    re(&PROPERTY, r"[$@%]\([^)]*\)")
        .replace_all(&s, regex::NoExpand(UNKNOWN))
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nix_strings_are_read_with_their_escapes() {
        let hook =
            nix_string("''\n    echo hi\n    rm -rf ''${HOME}/x ${pkgs.foo}\n  '';").unwrap();
        assert_eq!(hook, format!("\necho hi\nrm -rf ${{HOME}}/x {UNKNOWN}\n"));
        assert_eq!(nix_string(r#""echo \"a\"";"#).unwrap(), "echo \"a\"");
        assert_eq!(nix_string("myHook;").unwrap(), UNKNOWN);
    }

    #[test]
    fn hcl_strings_and_lists() {
        assert_eq!(
            quoted(r#""rm -rf ${var.dir}/x""#).unwrap(),
            format!("rm -rf {UNKNOWN}/x")
        );
        assert_eq!(quoted(r#""${path.module}/x.sh""#).unwrap(), "./x.sh");
        assert_eq!(quoted(r#""a $${b}""#).unwrap(), "a ${b}");
        assert_eq!(
            Literals::QUOTES.list(r#""sh", "-c", "x, y""#),
            ["\"sh\"", "\"-c\"", "\"x, y\""]
        );
    }

    #[test]
    fn devcontainer_variables_are_the_shell_s() {
        assert_eq!(
            devcontainer_vars("mkdir -p ${localEnv:HOME}/x ${localEnv:T:/tmp} ${localWorkspaceFolder} ${containerEnv:P}"),
            format!("mkdir -p ${{HOME}}/x ${{T}} $PWD {UNKNOWN}")
        );
    }

    #[test]
    fn msbuild_text_undoes_entities_and_hides_properties() {
        assert_eq!(
            xml_text("rm -rf &quot;$(OutDir)&quot; &amp;&amp; echo %(X.Y)"),
            format!("rm -rf \"{UNKNOWN}\" && echo {UNKNOWN}")
        );
    }
}
