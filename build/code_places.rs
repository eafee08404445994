//! Compiles `policies/data/code-places.toml` (the places that take code: options,
//! configuration keys, operands, standard input and variables whose text a
//! shell, git or a tool runs) into Rust statics for `shell::command::places`:
//! the rows, an index by program name and one by variable name, sorted so a
//! lookup is a binary search. A row the analysis could not read (an unknown key
//! or language, two places in one row) fails the build, naming the row.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The table, relative to the crate.
pub const TABLE: &str = "policies/data/code-places.toml";

/// `lang` names and the `places::Lang` each stands for.
const LANGS: &[(&str, &str)] = &[
    ("sh", "Lang::Sh"),
    ("bash", "Lang::Bash"),
    ("sh-or-bool", "Lang::ShOrBool"),
    ("sh-each", "Lang::ShEach"),
    ("sh-like", "Lang::ShLike"),
    ("argv", "Lang::Argv"),
    ("absent", "Lang::Absent"),
    ("removed", "Lang::Removed"),
    ("process", "Lang::Process"),
    ("argv-rest", "Lang::ArgvRest"),
    ("argv-commas", "Lang::ArgvCommas"),
    ("prompt", "Lang::Prompt"),
    ("sh-file", "Lang::ShFile"),
    ("file", "Lang::File"),
    ("bash-function", "Lang::BashFunction"),
    ("git-alias", "Lang::GitAlias"),
    ("git-helper", "Lang::GitHelper"),
    ("hg-alias", "Lang::HgAlias"),
    ("hg-hook", "Lang::HgHook"),
    ("powershell", "Lang::PowerShell"),
    ("python", "Lang::Inline(InlineLang::Python)"),
    ("perl", "Lang::Inline(InlineLang::Perl)"),
    ("ruby", "Lang::Inline(InlineLang::Ruby)"),
    ("js", "Lang::Inline(InlineLang::Js)"),
    ("php", "Lang::Inline(InlineLang::Php)"),
    ("lua", "Lang::Inline(InlineLang::Lua)"),
    ("r", "Lang::Inline(InlineLang::R)"),
    ("julia", "Lang::Inline(InlineLang::Julia)"),
    ("awk", "Lang::Inline(InlineLang::Awk)"),
    ("sed", "Lang::Inline(InlineLang::Sed)"),
    ("vim", "Lang::Inline(InlineLang::Vim)"),
    ("applescript", "Lang::Inline(InlineLang::AppleScript)"),
    ("make", "Lang::Inline(InlineLang::Make)"),
    ("bang", "Lang::Escape(Dialect::Bang)"),
    ("psql", "Lang::Escape(Dialect::Psql)"),
    ("mysql", "Lang::Escape(Dialect::Mysql)"),
    ("sqlite", "Lang::Escape(Dialect::Sqlite)"),
    ("gdb", "Lang::Escape(Dialect::Gdb)"),
    ("lldb", "Lang::Escape(Dialect::Lldb)"),
    ("tcl", "Lang::Escape(Dialect::Tcl)"),
    ("m4", "Lang::Escape(Dialect::M4)"),
    ("dc", "Lang::Escape(Dialect::Dc)"),
    ("gnuplot", "Lang::Escape(Dialect::Gnuplot)"),
    ("rpm", "Lang::Escape(Dialect::Rpm)"),
    ("tex", "Lang::Escape(Dialect::Tex)"),
    ("socat", "Lang::Escape(Dialect::Socat)"),
    ("screen", "Lang::Escape(Dialect::Screen)"),
    ("tmux-keys", "Lang::Escape(Dialect::TmuxKeys)"),
    ("lessopen", "Lang::Escape(Dialect::LessOpen)"),
    ("tmux-command", "Lang::Escape(Dialect::TmuxCommand)"),
    ("git-ext", "Lang::Escape(Dialect::GitExt)"),
    ("preload", "Lang::Loaded(Load::Preload)"),
    ("node-options", "Lang::Loaded(Load::NodeOptions)"),
    ("java-options", "Lang::Loaded(Load::JavaOptions)"),
    ("perl-options", "Lang::Loaded(Load::PerlOptions)"),
    ("ruby-options", "Lang::Loaded(Load::RubyOptions)"),
    ("python-path", "Lang::Loaded(Load::PythonPath)"),
    ("less-options", "Lang::LessOptions"),
];

/// `format` names of project files and the `places::Format` each stands for.
const FORMATS: &[(&str, &str)] = &[
    ("scripts", "Format::Scripts"),
    ("taskfile", "Format::Taskfile"),
    ("just", "Format::Just"),
    ("rake", "Format::Rake"),
    ("tox", "Format::Tox"),
    ("pre-commit", "Format::PreCommit"),
    ("cmake", "Format::CMake"),
    ("go-generate", "Format::GoGenerate"),
    ("git-hooks", "Format::GitHooks"),
    ("build-script", "Format::BuildScript"),
    ("script", "Format::Script"),
    ("conftest", "Format::Conftest"),
    ("setup-py", "Format::SetupPy"),
    ("lefthook", "Format::Lefthook"),
    ("overcommit", "Format::Overcommit"),
    ("workflow", "Format::Workflow"),
    ("workspaces", "Format::Workspaces"),
    ("compose", "Format::Compose"),
    ("jvm-build", "Format::JvmBuild"),
    ("code", "Format::Code"),
    ("terraform", "Format::Terraform"),
    ("nix-shell", "Format::NixShell"),
    ("devcontainer", "Format::Devcontainer"),
    ("meson", "Format::Meson"),
    ("msbuild", "Format::Msbuild"),
    ("tree", "Format::Tree"),
    ("calls", "Format::Calls"),
    ("entry-point", "Format::EntryPoint"),
    ("bats", "Format::Bats"),
    ("notebook", "Format::Notebook"),
    ("earthfile", "Format::Earthfile"),
];

/// Read the table and write `$OUT_DIR/code_places.rs`.
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
    std::fs::write(out.join("code_places.rs"), code)
        .unwrap_or_else(|e| panic!("cannot write the code places index: {e}"));
}

/// One or several strings (`"x"` or `["x", "y"]`).
fn strings(v: &toml::Value, what: &str) -> Result<Vec<String>, String> {
    match v {
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(a) => a
            .iter()
            .map(|x| match x {
                toml::Value::String(s) => Ok(s.clone()),
                _ => Err(format!("`{what}` holds a value that is not a string")),
            })
            .collect(),
        _ => Err(format!("`{what}` must be a string or a list of strings")),
    }
}

fn lit(s: &str) -> String {
    format!("{s:?}")
}

fn opt_lit(s: Option<&String>) -> String {
    match s {
        Some(s) => format!("Some({})", lit(s)),
        None => "None".into(),
    }
}

fn list_lit(v: &[String]) -> String {
    let items: Vec<String> = v.iter().map(|s| lit(s)).collect();
    format!("&[{}]", items.join(", "))
}

/// How a `program` row says a program reads its arguments.
struct ProgramSyntax {
    subcommands: bool,
    /// Options that take values, and how many.
    valued: Vec<(String, usize)>,
    /// Operands before the subcommand.
    targets: usize,
}

/// The Rust source of the index.
fn compile(text: &str) -> Result<String, String> {
    let table: toml::Table = text.parse().map_err(|e| format!("not TOML: {e}"))?;
    for key in table.keys() {
        if !matches!(key.as_str(), "program" | "place" | "project_file" | "call") {
            return Err(format!(
                "unknown top-level key `{key}` (expected `program`, `place`, `project_file`, `call`)"
            ));
        }
    }
    let mut out = String::from("// Generated by build.rs from policies/data/code-places.toml.\n\n");
    let call_langs = calls(&table, &mut out)?;

    // How programs read their arguments.
    let mut programs: BTreeMap<String, ProgramSyntax> = BTreeMap::new();
    for (i, row) in rows(&table, "program")?.iter().enumerate() {
        let at = |e: String| format!("program row {}: {e}", i + 1);
        let mut name = None;
        let mut subs = false;
        let mut valued = Vec::new();
        let mut targets = 0usize;
        for (k, v) in row.iter() {
            match k.as_str() {
                "name" => name = Some(strings(v, k).map_err(at)?),
                "subcommands" => {
                    subs = v
                        .as_bool()
                        .ok_or_else(|| at("`subcommands` is true or false".into()))?
                }
                "targets" => {
                    targets = v
                        .as_integer()
                        .and_then(|n| usize::try_from(n).ok())
                        .ok_or_else(|| at("`targets` is a number from 0".into()))?
                }
                "valued" => {
                    for o in strings(v, k).map_err(at)? {
                        let (name, n) = match o.split_once(':') {
                            Some((name, n)) => (
                                name.to_string(),
                                n.parse().map_err(|_| {
                                    at(format!("`{o}`: the count after `:` is not a number"))
                                })?,
                            ),
                            None => (o.clone(), 1),
                        };
                        if !name.starts_with('-') {
                            return Err(at(format!("`{o}` in `valued` is not an option")));
                        }
                        valued.push((name, n));
                    }
                }
                _ => return Err(at(format!("unknown key `{k}`"))),
            }
        }
        if targets > 0 && !subs {
            return Err(at("`targets` goes with `subcommands = true`".into()));
        }
        for n in name.ok_or_else(|| at("no `name`".into()))? {
            if programs
                .insert(
                    n.to_ascii_lowercase(),
                    ProgramSyntax {
                        subcommands: subs,
                        valued: valued.clone(),
                        targets,
                    },
                )
                .is_some()
            {
                return Err(at(format!("`{n}` is described twice")));
            }
        }
    }
    out.push_str("/// How programs read their arguments, by name (sorted).\npub(super) static PROGRAMS: &[(&str, Syntax)] = &[\n");
    for (name, p) in &programs {
        let (subs, valued, targets) = (p.subcommands, &p.valued, p.targets);
        let v: Vec<String> = valued
            .iter()
            .map(|(o, n)| format!("({}, {n})", lit(o)))
            .collect();
        let _ = writeln!(
            out,
            "    ({}, Syntax {{ subcommands: {subs}, valued: &[{}], targets: {targets} }}),",
            lit(name),
            v.join(", ")
        );
    }
    out.push_str("];\n\n");

    // The places.
    let mut places = String::new();
    let mut by_program: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    let mut variables: BTreeMap<String, String> = BTreeMap::new();
    let mut patterns: Vec<(String, String)> = Vec::new();
    let mut n = 0usize;
    for (i, row) in rows(&table, "place")?.iter().enumerate() {
        let at = |e: String| format!("place row {}: {e}", i + 1);
        let get = |k: &str| row.get(k);
        let known = [
            "program",
            "subcommand",
            "option",
            "key",
            "prefix",
            "config",
            "operand",
            "rest",
            "stdin",
            "variable",
            "lang",
            "runs",
            "file",
            "flag",
            "unless",
            "dashdash",
            "kwarg",
        ];
        if let Some(k) = row.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(at(format!("unknown key `{k}`")));
        }
        let lang_name = get("lang")
            .and_then(|v| v.as_str())
            .ok_or_else(|| at("no `lang`".into()))?;
        // A `call` language: its constructs (`elixir -e CODE`).
        let lang = LANGS
            .iter()
            .find(|(n, _)| *n == lang_name)
            .map(|(_, r)| (*r).to_string())
            .or_else(|| {
                call_langs
                    .iter()
                    .any(|c| c == lang_name)
                    .then(|| format!("Lang::Escape(Dialect::Calls({}))", lit(lang_name)))
            })
            .ok_or_else(|| at(format!("unknown language `{lang_name}`")))?;
        if lang == "Lang::Process" {
            return Err(at(format!(
                "`lang = \"{lang_name}\"` is a tree file's entry, not a place"
            )));
        }
        let wheres: Vec<&str> = ["option", "config", "operand", "stdin", "variable"]
            .into_iter()
            .filter(|k| row.contains_key(*k))
            .collect();
        if wheres.len() != 1 {
            return Err(at(
                "exactly one of `option`, `config`, `operand`, `stdin`, `variable`".into(),
            ));
        }
        let text = |k: &str| -> Result<Option<String>, String> {
            match get(k) {
                None => Ok(None),
                Some(v) => v
                    .as_str()
                    .map(|s| Some(s.to_string()))
                    .ok_or_else(|| at(format!("`{k}` must be a string"))),
            }
        };
        if wheres[0] == "variable" {
            if row.contains_key("program") || row.contains_key("subcommand") {
                return Err(at("a `variable` row names no program".into()));
            }
            let name = text("variable")?.unwrap_or_default();
            if name.contains('*') {
                patterns.push((name.clone(), lang.to_string()));
            } else if variables.insert(name.clone(), lang.to_string()).is_some() {
                return Err(at(format!("variable `{name}` is listed twice")));
            }
            continue;
        }
        let programs_of_row = strings(
            get("program").ok_or_else(|| at("no `program`".into()))?,
            "program",
        )
        .map_err(at)?;
        let subcommands: Vec<Vec<String>> = match get("subcommand") {
            None => Vec::new(),
            Some(v) => strings(v, "subcommand")
                .map_err(at)?
                .iter()
                .map(|s| s.split_whitespace().map(str::to_string).collect())
                .collect(),
        };
        let key = text("key")?;
        let prefix = text("prefix")?;
        let runs = text("runs")?;
        if runs.is_some() && lang_name != "argv" {
            return Err(at("`runs` goes with `lang = \"argv\"`".into()));
        }
        let rest = match get("rest") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| at("`rest` is true or false".into()))?,
        };
        if rest && wheres[0] != "operand" {
            return Err(at("`rest` goes with `operand`".into()));
        }
        let flags = match get("flag") {
            None => Vec::new(),
            Some(v) => strings(v, "flag").map_err(at)?,
        };
        let unless = match get("unless") {
            None => Vec::new(),
            Some(v) => strings(v, "unless").map_err(at)?,
        };
        let dashdash = match get("dashdash") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| at("`dashdash` is true or false".into()))?,
        };
        let kwarg = text("kwarg")?;
        if (dashdash || kwarg.is_some()) && wheres[0] != "operand" {
            return Err(at("`dashdash` and `kwarg` go with `operand`".into()));
        }
        let file = match get("file") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| at("`file` is true or false".into()))?,
        };
        if file && !matches!(wheres[0], "option" | "operand") {
            return Err(at("`file` goes with `option` or `operand`".into()));
        }
        if key.is_some() && wheres[0] != "option" {
            return Err(at("`key` goes with `option`".into()));
        }
        let where_ = match wheres[0] {
            "option" => {
                let names = strings(
                    get("option").unwrap_or(&toml::Value::Boolean(false)),
                    "option",
                )
                .map_err(at)?;
                // `+`: a command given as the rest of a `+` word (`less +CMD`).
                if let Some(bad) = names
                    .iter()
                    .find(|o| *o != "+" && (!o.starts_with('-') || o.len() < 2))
                {
                    return Err(at(format!("`{bad}` is not an option")));
                }
                format!(
                    "At::Option {{ names: {}, key: {}, prefix: {} }}",
                    list_lit(&names),
                    opt_lit(key.as_ref()),
                    opt_lit(prefix.as_ref())
                )
            }
            "config" => {
                let k = text("config")?.unwrap_or_default();
                format!(
                    "At::Config {{ key: {}, prefix: {} }}",
                    lit(&k.to_ascii_lowercase()),
                    opt_lit(prefix.as_ref())
                )
            }
            "operand" => {
                let k = get("operand")
                    .and_then(toml::Value::as_integer)
                    .filter(|k| *k >= 1)
                    .ok_or_else(|| at("`operand` is a number from 1".into()))?;
                format!(
                    "At::Operand {{ n: {k}, rest: {rest}, dashdash: {dashdash}, kwarg: {} }}",
                    opt_lit(kwarg.as_ref())
                )
            }
            _ => {
                if get("stdin").and_then(toml::Value::as_bool) != Some(true) {
                    return Err(at("`stdin` is true".into()));
                }
                "At::Stdin".to_string()
            }
        };
        let subs: Vec<String> = subcommands.iter().map(|s| list_lit(s)).collect();
        let _ = writeln!(
            places,
            "    Place {{ subcommand: &[{}], at: {where_}, lang: {lang}, runs: {}, file: {file}, flag: {}, unless: {} }},",
            subs.join(", "),
            opt_lit(runs.as_ref()),
            list_lit(&flags),
            list_lit(&unless),
        );
        for p in programs_of_row {
            by_program
                .entry(p.to_ascii_lowercase())
                .or_default()
                .push(n);
        }
        n += 1;
    }
    if n > usize::from(u16::MAX) {
        return Err("too many rows".into());
    }
    out.push_str("/// Every place that takes code, in the table's order.\npub(super) static PLACES: &[Place] = &[\n");
    out.push_str(&places);
    out.push_str("];\n\n/// The places of each program (sorted by name).\npub(super) static BY_PROGRAM: &[(&str, &[u16])] = &[\n");
    for (p, ix) in &by_program {
        let ix: Vec<String> = ix.iter().map(usize::to_string).collect();
        let _ = writeln!(out, "    ({}, &[{}]),", lit(p), ix.join(", "));
    }
    out.push_str("];\n\n/// Variables whose value is code (sorted by name).\npub(super) static VARIABLES: &[(&str, Lang)] = &[\n");
    for (name, lang) in &variables {
        let _ = writeln!(out, "    ({}, {lang}),", lit(name));
    }
    out.push_str("];\n\n/// Variables whose value is code, by a pattern of their name (`*`: any text).\npub(super) static VARIABLE_PATTERNS: &[(&str, Lang)] = &[\n");
    for (name, lang) in &patterns {
        let _ = writeln!(out, "    ({}, {lang}),", lit(name));
    }
    out.push_str("];\n");
    project_files(&table, &call_langs, &mut out)?;
    Ok(out)
}

/// The `project_file` rows: `PROJECT_FILES`, sorted by program name (a
/// program's rows in the table's order).
fn project_files(
    table: &toml::Table,
    call_langs: &[String],
    out: &mut String,
) -> Result<(), String> {
    let mut rows_out: Vec<(String, usize, String)> = Vec::new();
    for (i, row) in rows(table, "project_file")?.iter().enumerate() {
        let at = |e: String| format!("project_file row {}: {e}", i + 1);
        let known = [
            "program",
            "subcommand",
            "files",
            "format",
            "key",
            "run",
            "default",
            "lang",
            "file_option",
            "dir_option",
            "file_variable",
            "file_operand",
            "calls",
            "walk",
            "commands",
            "may_commands",
            "task_dirs",
            "no_run",
            "run_with",
        ];
        if let Some(k) = row.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(at(format!("unknown key `{k}`")));
        }
        let list = |k: &str| -> Result<Vec<String>, String> {
            row.get(k)
                .map_or(Ok(Vec::new()), |v| strings(v, k))
                .map_err(at)
        };
        let programs = list("program")?;
        if programs.is_empty() {
            return Err(at("no `program`".into()));
        }
        let files = list("files")?;
        let format_name = row
            .get("format")
            .and_then(|v| v.as_str())
            .ok_or_else(|| at("no `format`".into()))?;
        let format = FORMATS
            .iter()
            .find(|(n, _)| *n == format_name)
            .map(|(_, r)| *r)
            .ok_or_else(|| at(format!("unknown format `{format_name}`")))?;
        let file_operand = match row.get("file_operand") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => return Err(at("`file_operand` must be true or false".into())),
        };
        let needs_files = !file_operand
            && !matches!(
                format_name,
                "go-generate" | "git-hooks" | "conftest" | "setup-py" | "workflow" | "workspaces"
            );
        if needs_files && files.is_empty() {
            return Err(at("no `files`".into()));
        }
        let key = match row.get("key") {
            None => None,
            Some(v) => Some(
                v.as_str()
                    .ok_or_else(|| at("`key` must be a string".into()))?
                    .to_string(),
            ),
        };
        if key.is_some() != matches!(format_name, "scripts" | "entry-point") {
            return Err(at(
                "`key` goes with `format = \"scripts\"` or `\"entry-point\"`, which need it".into(),
            ));
        }
        let calls = string_key(row, "calls").map_err(at)?;
        if calls.is_some() != (format_name == "calls") {
            return Err(at(
                "`calls` goes with `format = \"calls\"`, which needs it".into()
            ));
        }
        if let Some(c) = &calls {
            if !call_langs.contains(c) {
                return Err(at(format!(
                    "`calls = \"{c}\"`: no `call` row has `lang = \"{c}\"`"
                )));
            }
        }
        let paths = |k: &str| -> Result<Vec<String>, String> {
            let Some(v) = row.get(k) else {
                return Ok(Vec::new());
            };
            if format_name != "tree" {
                return Err(at(format!("`{k}` goes with `format = \"tree\"`")));
            }
            let t = v
                .as_table()
                .ok_or_else(|| at(format!("`{k}` must be a table of paths")))?;
            let mut found = Vec::new();
            for (path, lang) in t {
                let name = lang.as_str().unwrap_or("");
                let l = LANGS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, r)| (*r).to_string())
                    .filter(|r| {
                        r == "Lang::Sh"
                            || r == "Lang::Argv"
                            || r == "Lang::Absent"
                            || r == "Lang::Process"
                            || r.starts_with("Lang::Inline(")
                    })
                    .ok_or_else(|| {
                        at(format!(
                            "`{k}.\"{path}\"`: a command is sh, argv, absent, process or an interpreter's file"
                        ))
                    })?;
                found.push(format!("({}, {l})", lit(path)));
            }
            Ok(found)
        };
        let commands = paths("commands")?;
        let may_commands = paths("may_commands")?;
        if format_name == "tree" && commands.is_empty() && may_commands.is_empty() {
            return Err(at(
                "`format = \"tree\"` needs `commands` or `may_commands`".into()
            ));
        }
        let string = |k: &str| -> Result<Option<String>, String> {
            match row.get(k) {
                None => Ok(None),
                Some(v) => v
                    .as_str()
                    .map(|s| Some(s.to_string()))
                    .ok_or_else(|| at(format!("`{k}` must be a string"))),
            }
        };
        let default = string("default")?;
        if row.contains_key("task_dirs") && format_name != "scripts" {
            return Err(at("`task_dirs` goes with `format = \"scripts\"`".into()));
        }
        // `walk` names files read in every folder below (`calls`), or files a
        // runner finds by walking there (a cargo workspace's `build.rs`,
        // pytest's `conftest.py`): one the command line writes is code only
        // the run knows.
        if row.contains_key("walk") && !matches!(format_name, "calls" | "build-script" | "conftest")
        {
            return Err(at(
                "`walk` goes with `format = \"calls\"`, `\"build-script\"` or `\"conftest\"`"
                    .into(),
            ));
        }
        if default.is_some() && format_name != "scripts" {
            return Err(at("`default` goes with `format = \"scripts\"`".into()));
        }
        let lang = match string("lang")? {
            None => None,
            Some(name) => Some(
                LANGS
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, r)| (*r).to_string())
                    .filter(|r| r.starts_with("Lang::Inline(") || r == "Lang::Sh")
                    .ok_or_else(|| at(format!("`lang = \"{name}\"`: a project file's code is sh or an interpreter's language")))?,
            ),
        };
        if lang.is_some() != (format_name == "code") {
            return Err(at(
                "`lang` goes with `format = \"code\"`, which needs it".into()
            ));
        }
        let subs: Vec<String> = list("subcommand")?
            .iter()
            .map(|s| {
                let words: Vec<String> = s.split_whitespace().map(str::to_string).collect();
                list_lit(&words)
            })
            .collect();
        let options = |k: &str| -> Result<Vec<String>, String> {
            let found = list(k)?;
            match found
                .iter()
                .find(|o| !o.starts_with('-') || o.contains('='))
            {
                Some(bad) => Err(at(format!("`{bad}` in `{k}` is not an option"))),
                None => Ok(found),
            }
        };
        let names_file =
            row.contains_key("file_option") || row.contains_key("file_variable") || file_operand;
        if names_file
            && !matches!(
                format_name,
                "scripts"
                    | "code"
                    | "jvm-build"
                    | "build-script"
                    | "compose"
                    | "tree"
                    | "calls"
                    | "entry-point"
                    | "bats"
                    | "notebook"
                    | "rake"
            )
        {
            return Err(at(format!(
                "`format = \"{format_name}\"` reads its own options: no `file_option` or `file_variable`"
            )));
        }
        let text = format!(
            "ProjectFile {{ subcommand: &[{}], files: {}, format: {format}, key: {}, run: {}, default: {}, lang: {}, file_option: {}, dir_option: {}, file_variable: {}, file_operand: {file_operand}, calls: {}, walk: {}, commands: &[{}], may_commands: &[{}], task_dirs: {}, no_run: {}, run_with: {} }}",
            subs.join(", "),
            list_lit(&files),
            opt_lit(key.as_ref()),
            list_lit(&list("run")?),
            opt_lit(default.as_ref()),
            lang.map_or_else(|| "None".to_string(), |l| format!("Some({l})")),
            list_lit(&options("file_option")?),
            list_lit(&options("dir_option")?),
            list_lit(&list("file_variable")?),
            opt_lit(calls.as_ref()),
            list_lit(&list("walk")?),
            commands.join(", "),
            may_commands.join(", "),
            list_lit(&list("task_dirs")?),
            list_lit(&options("no_run")?),
            list_lit(&options("run_with")?),
        );
        for p in programs {
            rows_out.push((p.to_ascii_lowercase(), i, text.clone()));
        }
    }
    rows_out.sort();
    out.push_str("\n/// Project files whose code a runner runs, by program (sorted).\npub(super) static PROJECT_FILES: &[(&str, ProjectFile)] = &[\n");
    for (p, _, text) in &rows_out {
        let _ = writeln!(out, "    ({}, {text}),", lit(p));
    }
    out.push_str("];\n");
    Ok(())
}

/// A key whose value is a string, when there.
fn string_key(row: &toml::Table, k: &str) -> Result<Option<String>, String> {
    match row.get(k) {
        None => Ok(None),
        Some(v) => v
            .as_str()
            .map(|s| Some(s.to_string()))
            .ok_or_else(|| format!("`{k}` must be a string")),
    }
}

/// `form` names of `call` rows and the `places::CallForm` each stands for.
const CALL_FORMS: &[(&str, &str)] = &[
    ("paren", "CallForm::Paren"),
    ("sexp", "CallForm::Sexp"),
    ("line", "CallForm::Line"),
    ("strings", "CallForm::Strings"),
    ("prefix", "CallForm::Prefix"),
    ("word", "CallForm::Word"),
];

/// `code` names of `call` rows and the `places::CallCode` each stands for.
const CALL_CODES: &[(&str, &str)] = &[
    ("sh", "CallCode::Sh"),
    ("bash", "CallCode::Bash"),
    ("make-sh", "CallCode::MakeSh"),
    ("argv", "CallCode::Argv"),
    ("program-args", "CallCode::ProgramArgs"),
    ("delete", "CallCode::Delete"),
    ("remove", "CallCode::Remove"),
    ("unknown", "CallCode::Unknown"),
    ("script", "CallCode::Script"),
];

/// The `call` rows: `CALLS`, in the table's order; returns the languages
/// they name.
fn calls(table: &toml::Table, out: &mut String) -> Result<Vec<String>, String> {
    let mut langs: Vec<String> = Vec::new();
    out.push_str("\n/// Constructs of languages the analysis does not read that run a command.\npub(super) static CALLS: &[Call] = &[\n");
    for (i, row) in rows(table, "call")?.iter().enumerate() {
        let at = |e: String| format!("call row {}: {e}", i + 1);
        let known = [
            "lang",
            "form",
            "call",
            "arg",
            "key",
            "rest",
            "code",
            "prefix",
            "recursive",
        ];
        if let Some(k) = row.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(at(format!("unknown key `{k}`")));
        }
        let lang = string_key(row, "lang")
            .map_err(at)?
            .ok_or_else(|| at("no `lang`".into()))?;
        let form_name = string_key(row, "form")
            .map_err(at)?
            .unwrap_or_else(|| "paren".into());
        let form = CALL_FORMS
            .iter()
            .find(|(n, _)| *n == form_name)
            .map(|(_, r)| *r)
            .ok_or_else(|| at(format!("unknown form `{form_name}`")))?;
        let code_name = string_key(row, "code")
            .map_err(at)?
            .ok_or_else(|| at("no `code`".into()))?;
        let code = CALL_CODES
            .iter()
            .find(|(n, _)| *n == code_name)
            .map(|(_, r)| *r)
            .ok_or_else(|| at(format!("unknown code `{code_name}`")))?;
        let names = match row.get("call") {
            Some(v) => strings(v, "call").map_err(at)?,
            None => Vec::new(),
        };
        let keys = match row.get("key") {
            Some(v) => strings(v, "key").map_err(at)?,
            None => Vec::new(),
        };
        let prefix = string_key(row, "prefix").map_err(at)?;
        if (form_name == "prefix") != prefix.is_some() {
            return Err(at(
                "`prefix` goes with `form = \"prefix\"`, which needs it".into()
            ));
        }
        if form_name != "prefix" && names.is_empty() {
            return Err(at("no `call`".into()));
        }
        let arg = match row.get("arg") {
            None => 1,
            Some(toml::Value::Integer(n)) if *n >= 1 => *n as usize,
            Some(_) => return Err(at("`arg` must be a number from 1".into())),
        };
        let rest = match row.get("rest") {
            None => false,
            Some(toml::Value::Boolean(b)) => *b,
            Some(_) => return Err(at("`rest` must be true or false".into())),
        };
        let recursive = match row.get("recursive") {
            Some(v) => strings(v, "recursive").map_err(at)?,
            None => Vec::new(),
        };
        if !recursive.is_empty() && code_name != "remove" {
            return Err(at("`recursive` goes with `code = \"remove\"`".into()));
        }
        if form_name == "word" && (rest || !keys.is_empty() || arg != 1) {
            return Err(at(
                "`form = \"word\"` reads the literals after the name: no `arg`, `key` or `rest`"
                    .into(),
            ));
        }
        let _ = writeln!(
            out,
            "    Call {{ lang: {}, form: {form}, call: {}, arg: {arg}, key: {}, rest: {rest}, code: {code}, prefix: {}, recursive: {} }},",
            lit(&lang),
            list_lit(&names),
            list_lit(&keys),
            opt_lit(prefix.as_ref()),
            list_lit(&recursive),
        );
        if !langs.contains(&lang) {
            langs.push(lang);
        }
    }
    out.push_str("];\n");
    Ok(langs)
}

/// The rows of a top-level array of tables.
fn rows<'a>(table: &'a toml::Table, key: &str) -> Result<Vec<&'a toml::Table>, String> {
    match table.get(key) {
        None => Ok(Vec::new()),
        Some(toml::Value::Array(a)) => a
            .iter()
            .enumerate()
            .map(|(i, r)| {
                r.as_table()
                    .ok_or_else(|| format!("{key} row {}: not a table", i + 1))
            })
            .collect(),
        Some(_) => Err(format!("`{key}` must be a list of tables")),
    }
}
