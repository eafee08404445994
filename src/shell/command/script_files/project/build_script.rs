//! `cargo build` (and `check`, `test`, `run`, …) compiles and runs the
//! package's build script (`build.rs`, or the `build` key of `Cargo.toml`)
//! before anything else: Rust code of the project, run by an everyday
//! command. Each package of the workspace the nearest `Cargo.toml` names
//! (itself, and its `members`) has its own.
//!
//! Not a parser of Rust: a scan for what reaches outside the build, as the
//! shell commands it amounts to: a `Command::new(PROGRAM)` with the `.arg(…)`
//! and `.args([…])` chained after it runs that program with those words;
//! `remove_dir_all(P)` is `rm -rf P`, `remove_file(P)` is `rm -f P`. A value
//! is known when it is a string literal, the home folder (`env::var("HOME")`,
//! `home_dir()`), `Path::new`/`PathBuf::from` of one, or a `let` binding of
//! one; anything else is what only the build knows (so the command it is in
//! is uncertain). Comments and strings are not searched. Dependencies' build
//! scripts are code from the registry, judged by the command's name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::super::{read_script, Found};
use super::{named_or_nearest, Text, UNKNOWN};
use crate::shell::command::nesting::Literals;
use crate::shell::command::places::ProjectFile;

/// Packages whose build script is read per command.
const MAX_PACKAGES: usize = 32;
/// Effects reported per build script.
const MAX_EFFECTS: usize = 64;

/// The code the build scripts of the workspace run.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    if args.iter().any(|a| a == "--help" || a == "-h") {
        return Found::Nothing;
    }
    let Some(manifest) = named_or_nearest(dir, row.files, named) else {
        return Found::Nothing;
    };
    let mut scripts = Vec::new();
    let root = manifest.parent().unwrap_or(Path::new("/")).to_path_buf();
    let Some(table) = manifest_table(&manifest) else {
        return Found::Nothing;
    };
    if let Some(s) = build_script(&root, &table) {
        scripts.push(s);
    }
    for member in members(&root, &table) {
        if scripts.len() >= MAX_PACKAGES {
            return Found::Unknown;
        }
        let path = member.join("Cargo.toml");
        if let Some(s) = manifest_table(&path).and_then(|t| build_script(&member, &t)) {
            scripts.push(s);
        }
    }
    let mut out = Text::new(&root);
    let mut first = None;
    for s in &scripts {
        let text = match read_script(s, false) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(()) => return Found::Unknown,
        };
        first.get_or_insert_with(|| s.clone());
        for line in effects(&text) {
            out.line(&line, false);
        }
    }
    match first {
        Some(path) => out.found(path, "build script".into()),
        None => Found::Nothing,
    }
}

fn manifest_table(path: &Path) -> Option<toml::Table> {
    match read_script(path, false) {
        Ok(Some(t)) => t.parse().ok(),
        _ => None,
    }
}

/// The build script of the package of `table` in `dir`: `package.build`
/// (`false`: none), else `build.rs` when it is there.
fn build_script(dir: &Path, table: &toml::Table) -> Option<PathBuf> {
    let package = table.get("package")?;
    match package.get("build") {
        Some(toml::Value::Boolean(false)) => None,
        Some(toml::Value::String(p)) => Some(dir.join(p)),
        _ => Some(dir.join("build.rs")).filter(|p| super::super::code_file(p)),
    }
}

/// The folders of a workspace's members (`dir/*` lists the folder).
fn members(root: &Path, table: &toml::Table) -> Vec<PathBuf> {
    let Some(list) = table
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(toml::Value::as_array)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in list.iter().filter_map(toml::Value::as_str) {
        match m.strip_suffix("/*") {
            Some(parent) => {
                if let Ok(entries) = std::fs::read_dir(root.join(parent)) {
                    let mut dirs: Vec<PathBuf> = entries
                        .filter_map(Result::ok)
                        .map(|e| e.path())
                        .filter(|p| p.join("Cargo.toml").is_file())
                        .take(MAX_PACKAGES + 1)
                        .collect();
                    dirs.sort();
                    out.extend(dirs);
                }
            }
            None if !m.contains(['*', '?', '[']) => out.push(root.join(m)),
            None => {}
        }
        if out.len() > MAX_PACKAGES {
            break;
        }
    }
    out
}

/// What a build script's text does outside the build, as shell lines.
fn effects(text: &str) -> Vec<String> {
    let src: Vec<char> = text.chars().collect();
    let masked = mask(&src);
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < src.len() && out.len() < MAX_EFFECTS {
        if word_at(&masked, i, "let ") {
            // `let [mut] NAME[: T] = EXPR;`
            let mut k = skip_space(&masked, i + 4);
            if word_at(&masked, k, "mut ") {
                k = skip_space(&masked, k + 4);
            }
            let name: String = masked[k..]
                .iter()
                .take_while(|c| c.is_alphanumeric() || **c == '_')
                .collect();
            let semi = find_char(&masked, k, ';').unwrap_or(src.len());
            let eq = (k..semi).find(|j| {
                masked[*j] == '='
                    && masked.get(j + 1) != Some(&'=')
                    && !matches!(masked[j - 1], '=' | '!' | '<' | '>')
            });
            if let Some(eq) = eq {
                let expr: String = src[eq + 1..semi].iter().collect();
                vars.insert(name, value(&expr, &vars));
                // The expression may itself do something.
                i = eq + 1;
                continue;
            }
        }
        if word_at(&masked, i, "Command::new(") {
            let open = i + "Command::new".len();
            let Some(close) = matching(&masked, open) else {
                break;
            };
            let arg: String = src[open + 1..close].iter().collect();
            let mut words = vec![value(&arg, &vars)];
            let mut k = close + 1;
            // The chain after it: `.arg(x)`, `.args([x, y])`.
            loop {
                let j = skip_space(&masked, k);
                if masked.get(j) != Some(&'.') {
                    break;
                }
                let name_start = skip_space(&masked, j + 1);
                let name: String = masked[name_start..]
                    .iter()
                    .take_while(|c| c.is_alphanumeric() || **c == '_')
                    .collect();
                let paren = skip_space(&masked, name_start + name.chars().count());
                if masked.get(paren) != Some(&'(') {
                    break;
                }
                let Some(end) = matching(&masked, paren) else {
                    break;
                };
                let inner: String = src[paren + 1..end].iter().collect();
                match name.as_str() {
                    "arg" => words.push(value(&inner, &vars)),
                    "args" => {
                        let list = inner
                            .trim()
                            .trim_start_matches('&')
                            .trim_start_matches("vec!")
                            .trim();
                        match list.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                            Some(items) => {
                                for item in split_top(items) {
                                    words.push(value(&item, &vars));
                                }
                            }
                            None => words.push(format!("\"{UNKNOWN}\"")),
                        }
                    }
                    _ => {}
                }
                k = end + 1;
            }
            out.push(words.join(" "));
            i = k;
            continue;
        }
        for (call, verb) in [
            ("remove_dir_all(", "rm -rf --"),
            ("remove_file(", "rm -f --"),
            ("remove_dir(", "rmdir --"),
        ] {
            if word_at(&masked, i, call) {
                let open = i + call.len() - 1;
                if let Some(close) = matching(&masked, open) {
                    let arg: String = src[open + 1..close].iter().collect();
                    out.push(format!("{verb} {}", value(&arg, &vars)));
                    i = close;
                }
                break;
            }
        }
        i += 1;
    }
    out
}

/// The shell word for a Rust expression's value.
fn value(expr: &str, vars: &BTreeMap<String, String>) -> String {
    let e = expr.trim().trim_start_matches('&').trim();
    let e = e
        .strip_suffix(".unwrap()")
        .or_else(|| e.strip_suffix(".clone()"))
        .or_else(|| e.strip_suffix(".to_string()"))
        .unwrap_or(e)
        .trim();
    let e = e.split(".expect(").next().unwrap_or(e).trim();
    if let Some(s) = string_literal(e) {
        return crate::shell::quote(&s);
    }
    for wrapper in [
        "Path::new(",
        "PathBuf::from(",
        "OsStr::new(",
        "String::from(",
    ] {
        // `Path::new(x)`, `std::path::Path::new(x)`.
        let Some(at) = e.find(wrapper) else { continue };
        let head = &e[..at];
        if (head.is_empty() || head.ends_with("::")) && e.ends_with(')') {
            return value(&e[at + wrapper.len()..e.len() - 1], vars);
        }
    }
    let compact: String = e.chars().filter(|c| !c.is_whitespace()).collect();
    let home = [
        "env::var(\"HOME\")",
        "std::env::var(\"HOME\")",
        "env::var_os(\"HOME\")",
        "std::env::var_os(\"HOME\")",
        "home_dir()",
        "dirs::home_dir()",
        "home::home_dir()",
        "std::env::home_dir()",
        "env::home_dir()",
    ];
    if home
        .iter()
        .any(|h| compact == *h || compact.ends_with(&format!("::{h}")))
    {
        return "\"${HOME}\"".into();
    }
    if compact.chars().all(|c| c.is_alphanumeric() || c == '_') {
        if let Some(v) = vars.get(&compact) {
            return v.clone();
        }
    }
    format!("\"{UNKNOWN}\"")
}

/// A Rust string literal's text (`"…"` with escapes, `r"…"`, `r#"…"#`).
fn string_literal(e: &str) -> Option<String> {
    if let Some(raw) = e.strip_prefix('r') {
        let hashes = raw.chars().take_while(|c| *c == '#').count();
        let close = format!("\"{}", "#".repeat(hashes));
        let body = raw[hashes..]
            .strip_prefix('"')?
            .strip_suffix(close.as_str())?;
        return Some(body.to_string());
    }
    let body = e.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('"') => out.push('"'),
                Some('\\') => out.push('\\'),
                Some(o) => {
                    out.push('\\');
                    out.push(o);
                }
                None => {}
            }
        } else if c == '"' {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

/// Comments blanked and string literals' insides blanked (same length), so
/// names are found in code only.
fn mask(src: &[char]) -> Vec<char> {
    let mut out = src.to_vec();
    let mut k = 0;
    while k < src.len() {
        let c = src[k];
        if c == '/' && src.get(k + 1) == Some(&'/') {
            while k < src.len() && src[k] != '\n' {
                out[k] = ' ';
                k += 1;
            }
            continue;
        }
        if c == '/' && src.get(k + 1) == Some(&'*') {
            while k < src.len() && !(src[k] == '*' && src.get(k + 1) == Some(&'/')) {
                out[k] = ' ';
                k += 1;
            }
            for o in out.iter_mut().skip(k).take(2) {
                *o = ' ';
            }
            k += 2;
            continue;
        }
        if c == '"' {
            // A raw string's `r#"` was seen as code; its body is text.
            let hashes = (0..k).rev().take_while(|j| src[*j] == '#').count();
            let raw = k > hashes && src[k - hashes - 1] == 'r';
            let mut j = k + 1;
            while j < src.len() {
                if !raw && src[j] == '\\' {
                    j += 2;
                    continue;
                }
                if src[j] == '"' && (0..hashes).all(|h| src.get(j + 1 + h) == Some(&'#')) {
                    break;
                }
                j += 1;
            }
            for o in out.iter_mut().take(j.min(src.len())).skip(k + 1) {
                *o = ' ';
            }
            k = j + 1;
            continue;
        }
        // A char literal holding a quote (`'"'`).
        if c == '\'' && src.get(k + 2) == Some(&'\'') {
            out[k + 1] = ' ';
            k += 3;
            continue;
        }
        k += 1;
    }
    out
}

/// Does `word` start at `i`, not inside a longer name?
fn word_at(masked: &[char], i: usize, word: &str) -> bool {
    let before_ok = i == 0 || !(masked[i - 1].is_alphanumeric() || masked[i - 1] == '_');
    before_ok
        && word
            .chars()
            .enumerate()
            .all(|(k, c)| masked.get(i + k) == Some(&c))
}

fn skip_space(masked: &[char], mut i: usize) -> usize {
    while masked.get(i).is_some_and(|c| c.is_whitespace()) {
        i += 1;
    }
    i
}

fn find_char(masked: &[char], from: usize, c: char) -> Option<usize> {
    (from..masked.len()).find(|k| masked[*k] == c)
}

/// The index of the bracket closing the one at `open` (strings and comments
/// are masked already).
fn matching(masked: &[char], open: usize) -> Option<usize> {
    Literals::NONE.close_in_chars(masked, open)
}

/// Items of a list's inside, split at top-level commas (outside strings and
/// comments), as written.
fn split_top(s: &str) -> Vec<String> {
    let src: Vec<char> = s.chars().collect();
    let masked: String = mask(&src).into_iter().collect();
    // The mask keeps each character's place, not its width: each part's
    // characters are taken from `src` by count.
    let mut from = 0;
    let mut out: Vec<String> = Literals::NONE
        .split(&masked, &[","])
        .into_iter()
        .map(|part| {
            let n = part.chars().count();
            let item = src.get(from..from + n).unwrap_or_default().iter().collect();
            from += n + 1;
            item
        })
        .collect();
    if out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_deletes_of_a_build_script() {
        let text = r#"use std::process::Command;
// Command::new("rm") in a comment
fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let out = std::env::var("OUT_DIR").unwrap();
    let home = std::env::var("HOME").unwrap();
    Command::new("git").args(["rev-parse", "HEAD"]).output().unwrap();
    Command::new("sh").arg("-c").arg("rm -rf ~").status().unwrap();
    std::fs::remove_dir_all(&home).ok();
    let _ = std::fs::remove_file(Path::new(&out).join("x"));
    let s = "remove_dir_all(\"/\")";
}
"#;
        assert_eq!(
            effects(text),
            vec![
                "git rev-parse HEAD".to_string(),
                "sh -c 'rm -rf ~'".to_string(),
                "rm -rf -- \"${HOME}\"".to_string(),
                format!("rm -f -- \"{UNKNOWN}\""),
            ]
        );
    }
}
