//! Compiles `policies/data/write-places.toml` (where programs write, by the
//! role of an option or operand: a file written, a folder filled, a place
//! removed) into Rust statics for `shell::command::roles`: the rows, and an
//! index by program name (exact names sorted for a binary search, names
//! ending in `*` by prefix, and `*` for any program). A line the analysis
//! could not read fails the build, naming the line.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The table, relative to the crate.
pub const TABLE: &str = "policies/data/write-places.toml";

/// The roles (top-level keys) and the `roles::Role` each stands for.
const ROLES: &[(&str, &str)] = &[
    ("file", "Role::File"),
    ("folder", "Role::Folder"),
    ("removed", "Role::Removed"),
];

/// Read the table and write `$OUT_DIR/write_places.rs`.
pub fn generate() {
    println!("cargo:rerun-if-changed={TABLE}");
    let root = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let text = std::fs::read_to_string(root.join(TABLE))
        .unwrap_or_else(|e| panic!("{TABLE}: cannot read it: {e}"));
    let code = match compile(&text) {
        Ok(code) => code,
        Err(e) => panic!("{TABLE}: {e}"),
    };
    let out = std::path::PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default());
    std::fs::write(out.join("write_places.rs"), code)
        .unwrap_or_else(|e| panic!("cannot write the write places index: {e}"));
}

/// Is `token` a place: an option (`-o`, `--output`, `-out`, a keyword), a
/// word prefix (`of=`), an operand by position (`@2`, `@-1`), every operand
/// (`@*`), the operands from the Nth on (`@2*`), an environment variable
/// (`$CARGO_TARGET_DIR`)?
fn is_place(token: &str) -> bool {
    if token == "@*" {
        return true;
    }
    if let Some(n) = token.strip_prefix('@') {
        let n = n.strip_suffix('*').unwrap_or(n);
        return n.parse::<i64>().is_ok_and(|n| n != 0)
            && !(token.ends_with('*') && n.starts_with('-'));
    }
    if let Some(name) = token.strip_prefix('$') {
        // An environment variable whose value is the place when no option
        // of the row names it (`$CARGO_TARGET_DIR`).
        return !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
    }
    !token.is_empty() && !token.starts_with(['+', '!'])
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn list_lit(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| lit(s)).collect();
    format!("&[{}]", items.join(", "))
}

/// The Rust source of the index.
fn compile(text: &str) -> Result<String, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    let mut rows = String::new();
    let mut exact: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut prefix: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut any: Vec<usize> = Vec::new();
    let mut n = 0usize;
    for (key, value) in &table {
        let role = ROLES
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, r)| *r)
            .ok_or_else(|| format!("unknown key `{key}` (expected `file`, `folder`, `removed`)"))?;
        let lines = value
            .as_array()
            .ok_or_else(|| format!("`{key}` must be a list of lines"))?;
        for line in lines {
            let line = line
                .as_str()
                .ok_or_else(|| format!("`{key}` holds a value that is not a string"))?;
            let at = |e: String| format!("{key} line `{line}`: {e}");
            let mut words = line.split_whitespace();
            let head = words.next().ok_or_else(|| at("empty".into()))?;
            let mut parts = head.split(':');
            let program = parts.next().unwrap_or_default().to_ascii_lowercase();
            // Each word of the subcommand has `|`-separated alternatives;
            // spelled out here, one sequence per combination.
            let mut subs: Vec<Vec<String>> = vec![vec![]];
            for level in parts {
                if level.split('|').any(str::is_empty) {
                    return Err(at(format!("`{head}`: an empty subcommand")));
                }
                subs = subs
                    .iter()
                    .flat_map(|pre| {
                        level.split('|').map(move |w| {
                            let mut p = pre.clone();
                            p.push(w.to_string());
                            p
                        })
                    })
                    .collect();
            }
            if program.is_empty() {
                return Err(at("no program".into()));
            }
            let (mut with, mut without, mut places) = (vec![], vec![], vec![]);
            for w in words {
                if let Some(o) = w.strip_prefix('+') {
                    with.push(o.to_string());
                } else if let Some(o) = w.strip_prefix('!') {
                    without.push(o.to_string());
                } else if is_place(w) {
                    places.push(w.to_string());
                } else {
                    return Err(at(format!("`{w}` is not a place")));
                }
            }
            if let Some(bad) = with.iter().chain(&without).find(|o| !o.starts_with('-')) {
                return Err(at(format!("`{bad}` after + or ! is not an option")));
            }
            if places.is_empty() {
                return Err(at("names no place".into()));
            }
            let subs: Vec<String> = subs
                .iter()
                .filter(|s| !s.is_empty())
                .map(|s| list_lit(s))
                .collect();
            let _ = writeln!(
                rows,
                "    Row {{ role: {role}, subcommands: &[{}], with: {}, without: {}, places: {} }},",
                subs.join(", "),
                list_lit(&with),
                list_lit(&without),
                list_lit(&places),
            );
            if program == "*" {
                any.push(n);
            } else if let Some(p) = program.strip_suffix('*') {
                prefix.entry(p.to_string()).or_default().push(n);
            } else {
                exact.entry(program).or_default().push(n);
            }
            n += 1;
        }
    }
    if n > usize::from(u16::MAX) {
        return Err("too many rows".into());
    }
    let ix = |v: &[usize]| -> String {
        let v: Vec<String> = v.iter().map(usize::to_string).collect();
        format!("&[{}]", v.join(", "))
    };
    let mut out =
        String::from("// Generated by build.rs from policies/data/write-places.toml.\n\n");
    out.push_str("/// Every row, in the table's order.\npub(super) static ROWS: &[Row] = &[\n");
    out.push_str(&rows);
    out.push_str("];\n\n/// The rows of each program (lowercase, sorted by name).\npub(super) static BY_PROGRAM: &[(&str, &[u16])] = &[\n");
    for (p, v) in &exact {
        let _ = writeln!(out, "    ({}, {}),", lit(p), ix(v));
    }
    out.push_str("];\n\n/// The rows of programs named by a prefix (`python3.*`).\npub(super) static BY_PREFIX: &[(&str, &[u16])] = &[\n");
    for (p, v) in &prefix {
        let _ = writeln!(out, "    ({}, {}),", lit(p), ix(v));
    }
    let _ = writeln!(
        out,
        "];\n\n/// The rows of any program (`*`).\npub(super) static ANY: &[u16] = {};",
        ix(&any)
    );
    Ok(out)
}
