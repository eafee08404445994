//! `just [RECIPE [ARGS…]]…`: the recipes of the justfile, as shell text.
//!
//! just's reading, bounded and simplified where it cannot matter for what
//! runs: recipes (a header at the start of a line, `name params: deps`, and
//! the indented lines under it), each line in its own shell (leading `@` and
//! `-` dropped), dependencies first and `&&` dependencies after; a recipe
//! whose body starts with `#!` is one script of that interpreter. `{{…}}`
//! interpolations are the justfile's string variables, the recipe's
//! parameters as the command line gives them, `home_directory()`,
//! `env_var('X')`; anything else is what only the run knows. Backticks in
//! assignments run when just reads the justfile, whatever recipe is asked:
//! they come first (uncertain under `set lazy`). With no recipe named, the
//! first recipe runs (or the one marked `[default]`).
//!
//! Nothing: `--list`, `--dry-run`, `--show`, `--summary`, `--help`, …; a
//! recipe the justfile does not have (just stops). Unknown code: a recipe
//! not found while the justfile imports other files or modules.

use std::collections::BTreeMap;
use std::path::Path;

use super::super::{interpreted_line, runner, Found, Runner};
use super::{file_text, Text, UNKNOWN};
use crate::shell::command::places::ProjectFile;

/// Recipes followed per command (dependencies included).
const MAX_RECIPES: usize = 64;

#[derive(Default, Clone)]
struct Recipe {
    /// Parameters: name, default, variadic.
    params: Vec<(String, Option<String>, bool)>,
    deps: Vec<String>,
    after: Vec<String>,
    body: Vec<String>,
}

#[derive(Default)]
struct Justfile {
    vars: BTreeMap<String, String>,
    recipes: BTreeMap<String, Recipe>,
    aliases: BTreeMap<String, String>,
    first: Option<String>,
    default: Option<String>,
    /// Commands backticks in assignments run while just reads the file.
    backticks: Vec<String>,
    imports: bool,
    lazy: bool,
}

/// The code `just ARGS` runs.
pub(super) fn recipes(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut file = None;
    // A justfile named is found from where just is run, not from `-d`.
    let start = dir.to_path_buf();
    let mut dir = dir.to_path_buf();
    let mut words: Vec<String> = Vec::new();
    let mut overrides = BTreeMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-f" | "--justfile" => file = it.next().cloned(),
            s if s.starts_with("--justfile=") => file = Some(s["--justfile=".len()..].into()),
            "-d" | "--working-directory" => {
                if let Some(d) = it.next() {
                    if d.contains(['$', '`']) {
                        return Found::Unknown;
                    }
                    dir = dir.join(d);
                }
            }
            "--set" => {
                if let (Some(k), Some(v)) = (it.next(), it.next()) {
                    overrides.insert(k.clone(), v.clone());
                }
            }
            "--shell" | "--shell-arg" | "--dotenv-filename" | "--dotenv-path" | "--color"
            | "--list-heading" | "--list-prefix" | "--chooser" | "--command-color" => {
                it.next();
            }
            "-n" | "--dry-run" | "-l" | "--list" | "-s" | "--show" | "--summary" | "--dump"
            | "--fmt" | "--edit" | "--init" | "--variables" | "--completions" | "--choose"
            | "-h" | "--help" | "-V" | "--version" | "--groups" | "--man" => return Found::Nothing,
            s if s.starts_with('-') => {}
            s => words.push(s.to_string()),
        }
    }
    if file.is_none() {
        // `just docs/build`: the recipe of that folder's justfile.
        if let Some((d, r)) = words.first().and_then(|w| w.rsplit_once('/')) {
            dir = dir.join(d);
            let r = r.to_string();
            words[0] = r;
        }
    }
    let from = if file.is_some() { &start } else { &dir };
    let (path, text) = match file_text(from, row.files, file.as_deref()) {
        Ok(found) => found,
        Err(found) => return found,
    };
    let mut jf = parse(&text);
    for w in &words {
        if let Some((k, v)) = w.split_once('=').filter(|(k, _)| is_name(k)) {
            overrides.insert(k.to_string(), v.to_string());
        }
    }
    jf.vars.extend(overrides);
    // Recipes and their arguments.
    let mut calls: Vec<(String, Vec<String>)> = Vec::new();
    let mut rest = words.iter().filter(|w| !w.contains('=')).peekable();
    while let Some(w) = rest.next() {
        let name = jf.aliases.get(w).cloned().unwrap_or_else(|| w.clone());
        let Some(recipe) = jf.recipes.get(&name) else {
            return if jf.imports {
                Found::Unknown
            } else {
                Found::Nothing
            };
        };
        let mut given = Vec::new();
        for (_, default, variadic) in &recipe.params {
            if *variadic {
                given.extend(rest.by_ref().cloned());
            } else if let Some(v) = rest.next_if(|_| true) {
                given.push(v.clone());
            } else if default.is_none() {
                // just stops: a parameter with no value.
                return Found::Nothing;
            }
        }
        calls.push((name, given));
    }
    if calls.is_empty() {
        match jf.default.clone().or_else(|| jf.first.clone()) {
            Some(f) => calls.push((f, Vec::new())),
            None => return Found::Nothing,
        }
    }
    let root = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut out = Text::new(&root);
    for b in &jf.backticks {
        out.line(b, jf.lazy);
    }
    let mut done = Vec::new();
    for (name, given) in &calls {
        if !run(&jf, name, given, &mut out, &mut done) {
            return Found::Unknown;
        }
    }
    let entry: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
    out.found(path, entry.join(" "))
}

/// Add recipe `name` (dependencies first) to `out`; `false` past the bounds.
fn run(
    jf: &Justfile,
    name: &str,
    given: &[String],
    out: &mut Text,
    done: &mut Vec<String>,
) -> bool {
    if done.iter().any(|d| d == name) {
        return true;
    }
    if done.len() >= MAX_RECIPES || out.full() {
        return false;
    }
    done.push(name.to_string());
    let Some(recipe) = jf.recipes.get(name) else {
        return true;
    };
    for d in &recipe.deps {
        if !run(jf, d, &[], out, done) {
            return false;
        }
    }
    let mut params = BTreeMap::new();
    let mut given = given.iter();
    for (p, default, variadic) in &recipe.params {
        let value = if *variadic {
            let all: Vec<String> = given.by_ref().cloned().collect();
            Some(all.join(" "))
        } else {
            given
                .next()
                .cloned()
                .or_else(|| default.as_ref().map(|d| value_of(jf, d)))
        };
        params.insert(p.clone(), value.unwrap_or_else(|| UNKNOWN.into()));
    }
    let body: Vec<String> = recipe
        .body
        .iter()
        .map(|l| interpolate(jf, &params, l))
        .collect();
    if body.first().is_some_and(|l| l.starts_with("#!")) {
        let text = body.join("\n");
        match runner(text.as_bytes()) {
            Some(Runner::Shell) => out.line(&text, false),
            Some(Runner::Interpreter(lang, prog)) => {
                out.line(&interpreted_line(lang, &prog, &text, name, &[], "/"), false);
            }
            // Another interpreter: a program the analysis does not read.
            None => {}
        }
    } else {
        for l in &body {
            out.line(l.trim_start_matches(['@', '-']), false);
        }
    }
    for d in &recipe.after {
        if !run(jf, d, &[], out, done) {
            return false;
        }
    }
    true
}

/// A recipe line with its `{{…}}` replaced (`{{{{` is a literal `{{`).
fn interpolate(jf: &Justfile, params: &BTreeMap<String, String>, line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        if rest[at..].starts_with("{{{{") {
            out.push_str("{{");
            rest = &rest[at + 4..];
            continue;
        }
        let Some(end) = rest[at..].find("}}") else {
            rest = &rest[at..];
            break;
        };
        let expr = rest[at + 2..at + end].trim();
        out.push_str(&match params.get(expr) {
            Some(v) => v.clone(),
            None => value_of(jf, expr),
        });
        rest = &rest[at + end + 2..];
    }
    out.push_str(rest);
    out
}

/// The value of a just expression, when the analysis knows it: a string, a
/// variable, the home folder, an environment variable, and their `+` and `/`
/// joins; else what only the run knows.
fn value_of(jf: &Justfile, expr: &str) -> String {
    value_depth(jf, expr, 0)
}

fn value_depth(jf: &Justfile, expr: &str, depth: usize) -> String {
    if depth > 8 {
        return UNKNOWN.into();
    }
    let expr = expr.trim();
    for op in [" + ", " / "] {
        if let Some((a, b)) = split_outside_quotes(expr, op) {
            let sep = if op == " / " { "/" } else { "" };
            return format!(
                "{}{sep}{}",
                value_depth(jf, a, depth + 1),
                value_depth(jf, b, depth + 1)
            );
        }
    }
    if let Some(s) = literal(expr) {
        return s;
    }
    match expr {
        "home_directory()" | "home_dir()" => return "${HOME}".into(),
        "justfile_directory()" | "justfile_dir()" | "invocation_directory()" => {
            return "${PWD}".into()
        }
        _ => {}
    }
    for f in ["env_var(", "env(", "env_var_or_default("] {
        if let Some(inner) = expr.strip_prefix(f).and_then(|r| r.strip_suffix(')')) {
            let name = inner
                .split(',')
                .next()
                .and_then(literal)
                .unwrap_or_default();
            if is_name(&name) {
                return format!("${{{name}}}");
            }
        }
    }
    if let Some(v) = jf.vars.get(expr) {
        return value_depth(jf, v, depth + 1);
    }
    UNKNOWN.into()
}

/// A string literal's text (`'…'`, `"…"`, with just's escapes).
fn literal(expr: &str) -> Option<String> {
    let e = expr.trim();
    for q in ["'''", "\"\"\"", "'", "\""] {
        if e.len() >= 2 * q.len() && e.starts_with(q) && e.ends_with(q) {
            let inner = &e[q.len()..e.len() - q.len()];
            if inner.contains(q) {
                return None;
            }
            return Some(if q.starts_with('"') {
                inner
                    .replace("\\n", "\n")
                    .replace("\\\"", "\"")
                    .replace("\\\\", "\\")
            } else {
                inner.to_string()
            });
        }
    }
    None
}

fn split_outside_quotes<'e>(s: &'e str, op: &str) -> Option<(&'e str, &'e str)> {
    let mut quote = None;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' || c == '`' => quote = Some(c),
            None if s[i..].starts_with(op) => return Some((&s[..i], &s[i + op.len()..])),
            None => {}
        }
    }
    None
}

fn is_name(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && !k.starts_with('-')
}

/// Read a justfile.
fn parse(text: &str) -> Justfile {
    let mut jf = Justfile::default();
    let mut current: Option<(String, Recipe)> = None;
    let mut default_next = false;
    for raw in text.lines() {
        let line = raw.trim_end();
        if let Some((_, recipe)) = current.as_mut() {
            if line.starts_with([' ', '\t']) {
                recipe.body.push(line.trim_start().to_string());
                continue;
            }
            if line.is_empty() {
                continue;
            }
        }
        if let Some((name, recipe)) = current.take() {
            jf.recipes.insert(name, recipe);
        }
        let t = line.trim();
        if t.is_empty() || (t.starts_with('#') && !t.starts_with("#!")) {
            continue;
        }
        if let Some(attrs) = t.strip_prefix('[') {
            default_next |= attrs.contains("default");
            continue;
        }
        let word = t.split_whitespace().next().unwrap_or("");
        match word {
            "set" => {
                jf.lazy |= t.contains("lazy") && !t.contains("false");
                continue;
            }
            "import" | "mod" => {
                jf.imports = true;
                continue;
            }
            "alias" => {
                if let Some((a, target)) = t["alias".len()..].split_once(":=") {
                    jf.aliases
                        .insert(a.trim().to_string(), target.trim().to_string());
                }
                continue;
            }
            _ => {}
        }
        let body = t.strip_prefix("export ").unwrap_or(t);
        if let Some((name, expr)) = body.split_once(":=").filter(|(n, _)| is_name(n.trim())) {
            let expr = expr.trim().to_string();
            jf.backticks.extend(backticks(&expr));
            jf.vars.insert(name.trim().to_string(), expr);
            continue;
        }
        let Some((head, deps)) = header(t) else {
            continue;
        };
        let mut words = head.split_whitespace();
        let name = words
            .next()
            .unwrap_or("")
            .trim_start_matches('@')
            .to_string();
        if !is_name(&name) {
            continue;
        }
        let params = params(words.collect::<Vec<_>>().join(" ").as_str());
        let (before, after) = match deps.split_once("&&") {
            Some((b, a)) => (b, a),
            None => (deps, ""),
        };
        let recipe = Recipe {
            params,
            deps: dep_names(before),
            after: dep_names(after),
            body: Vec::new(),
        };
        if jf.first.is_none() {
            jf.first = Some(name.clone());
        }
        if std::mem::take(&mut default_next) {
            jf.default = Some(name.clone());
        }
        current = Some((name, recipe));
    }
    if let Some((name, recipe)) = current.take() {
        jf.recipes.insert(name, recipe);
    }
    jf
}

/// A recipe header's head and dependencies: split at the first `:` outside
/// quotes not followed by `=`.
fn header(t: &str) -> Option<(&str, &str)> {
    let mut quote = None;
    for (i, c) in t.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == ':' && !t[i + 1..].starts_with('=') => {
                return Some((&t[..i], &t[i + 1..]));
            }
            None => {}
        }
    }
    None
}

/// `a b='x' +rest`: names, defaults, variadic.
fn params(s: &str) -> Vec<(String, Option<String>, bool)> {
    let mut out = Vec::new();
    for w in split_words(s) {
        let (w, variadic) = match w.strip_prefix(['+', '*']) {
            Some(r) => (r.to_string(), true),
            None => (w, false),
        };
        let w = w.trim_start_matches('$');
        match w.split_once('=') {
            Some((n, d)) => out.push((n.to_string(), Some(d.to_string()), variadic)),
            None => out.push((w.to_string(), None, variadic)),
        }
    }
    out
}

/// Words outside quotes.
fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                cur.push(c);
            }
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                cur.push(c);
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `a (b 'x') c`: the recipes named.
fn dep_names(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_call = false;
    for w in split_words(s) {
        if let Some(r) = w.strip_prefix('(') {
            out.push(r.trim_end_matches(')').to_string());
            in_call = !w.ends_with(')');
            continue;
        }
        if in_call {
            in_call = !w.ends_with(')');
            continue;
        }
        out.push(w);
    }
    out.into_iter().filter(|n| is_name(n)).collect()
}

/// The commands of the backticks in an expression.
fn backticks(expr: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = expr;
    while let Some(at) = rest.find('`') {
        let triple = rest[at..].starts_with("```");
        let (open, close) = if triple { (3, "```") } else { (1, "`") };
        let body = &rest[at + open..];
        let Some(end) = body.find(close) else {
            out.push(body.to_string());
            break;
        };
        out.push(body[..end].to_string());
        rest = &body[end + close.len()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipes_dependencies_parameters_and_backticks() {
        let jf = parse(
            "set shell := [\"bash\", \"-c\"]\nout := \"build\"\nrev := `git rev-parse HEAD`\nalias b := build\n\n# Build it\nbuild target='x': gen\n    @echo {{target}} {{out}}\n    -rm -rf {{out}}/tmp\n\ngen:\n  go generate\n\n[private]\nclean *args: && gen\n  rm -rf {{home_directory()}} {{args}}\n",
        );
        assert_eq!(jf.first.as_deref(), Some("build"));
        assert_eq!(jf.backticks, vec!["git rev-parse HEAD"]);
        assert_eq!(jf.aliases.get("b").map(String::as_str), Some("build"));
        let build = &jf.recipes["build"];
        assert_eq!(build.deps, vec!["gen"]);
        assert_eq!(
            build.params,
            vec![("target".into(), Some("'x'".into()), false)]
        );
        assert_eq!(jf.recipes["clean"].after, vec!["gen"]);
        let mut out = Text::default();
        let mut done = Vec::new();
        assert!(run(
            &jf,
            "clean",
            &["a".into(), "b".into()],
            &mut out,
            &mut done
        ));
        assert_eq!(out.out, "(\nrm -rf ${HOME} a b\n)\n(\ngo generate\n)\n");
        let mut out = Text::default();
        assert!(run(&jf, "build", &[], &mut out, &mut Vec::new()));
        assert_eq!(
            out.out,
            "(\ngo generate\n)\n(\necho x build\n)\n(\nrm -rf build/tmp\n)\n"
        );
    }
}
