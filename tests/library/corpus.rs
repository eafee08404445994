//! The protection packs' promise, as data.
//!
//! Every `tests/corpus/<family>.toml` holds the cases of one family (the file
//! name is the family): Bash commands (`command = '…'`) and file-tool calls
//! (`tool = "Read"`, …), each with the verdict the built-in default pack must
//! reach. `tests/corpus/packs/<pack>.toml` does the same for an opt-in pack,
//! evaluated with the default pack plus `builtin:<pack>`. Each case becomes a
//! PreToolUse event answered in-process by `engine::run::in_process`; no decision at all
//! counts as "allow".
//!
//! A case may carry `todo = "needs <feature>"`: a known gap of the engine. A todo
//! case that gets the wrong verdict is reported, not failed; a todo case that
//! gets the *right* verdict fails the run, so a todo is removed as soon as the
//! feature lands and can never go stale.
//!
//! The report prints every mismatch (file:line, the input, expected, got, the
//! rules that decided), and per family: correct, dangerous-passed (expected
//! deny/ask, got allow), over-blocked (expected allow, got deny/ask),
//! wrong-strength (deny where ask was expected or the reverse).
//!
//! The README's family tables are generated from the corpus
//! (`HOOKRULES_BLESS=1 cargo test --test library corpus::` rewrites them).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process_with;
use hookrules::engine::Set;
use hookrules::os::clock::Now;
use hookrules::os::env::Env;
use hookrules::policy::discover::{self, Discovery, Selection};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use serde_spanned::Spanned;

const HOME: &str = "/home/dev";
const PROJECT: &str = "/home/dev/myproj";
const WIN_HOME: &str = r"C:\Users\dev";
const WIN_PROJECT: &str = r"C:\Users\dev\myproj";
const NOW: i64 = 1_763_700_000;
const MIN_COMMANDS: usize = 1500;
const MIN_PATHS: usize = 300;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    /// One line for the README table: what the family covers.
    description: String,
    case: Vec<Spanned<Case>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    /// A Bash command (exclusive with `tool` and `powershell`).
    command: Option<String>,
    /// A PowerShell command: Claude Code's `PowerShell` tool (exclusive with
    /// `command` and `tool`).
    powershell: Option<String>,
    /// Run on Windows: cwd and project `C:\Users\dev\myproj`, home
    /// `C:\Users\dev` (USERPROFILE, as Windows sets it).
    #[serde(default)]
    windows: bool,
    /// Send the call through this agent's envelope instead of Claude Code's:
    /// `codex` (its `Bash` tool, whose shell is not said), `copilot` (its
    /// `powershell` tool with a `powershell` case, else `bash`; `view`,
    /// `create`, `edit` for Read, Write, Edit), `vscode` (`run_in_terminal`,
    /// `read_file`, `create_file`, `replace_string_in_file`).
    host: Option<String>,
    /// A file tool (exclusive with `command`).
    tool: Option<Tool>,
    /// An MCP tool's full name (`mcp__server__tool`), called with `input`
    /// (exclusive with `command` and `tool`).
    mcp: Option<String>,
    /// The MCP tool's input.
    input: Option<Value>,
    file_path: Option<String>,
    path: Option<String>,
    pattern: Option<String>,
    /// Grep's file filter (`glob`).
    glob: Option<String>,
    /// Write's `content` (default `hello\n`).
    content: Option<String>,
    /// Edit's `new_string` (default `hello, world`).
    new_string: Option<String>,
    /// The event's cwd (default: the project).
    cwd: Option<String>,
    /// The project folder (default `/home/dev/myproj`): a project in a temp
    /// folder (`/tmp/work`) is judged where it is.
    project: Option<String>,
    expect: Expect,
    why: String,
    /// A known gap: "needs <feature>".
    todo: Option<String>,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[serde(rename_all = "lowercase")]
enum Expect {
    Deny,
    Ask,
    Allow,
}

impl Expect {
    fn as_str(self) -> &'static str {
        match self {
            Expect::Deny => "deny",
            Expect::Ask => "ask",
            Expect::Allow => "allow",
        }
    }
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
enum Tool {
    Read,
    Write,
    Edit,
    Grep,
    Glob,
}

/// One case ready to run.
struct Prepared {
    location: String,
    shown: String,
    is_command: bool,
    expect: Expect,
    why: String,
    todo: Option<String>,
    event: Value,
    /// The machine is Windows (see `Case::windows`).
    windows: bool,
    /// The project folder, when not the default (see `Case::project`).
    project: Option<String>,
}

/// One family: a corpus file.
struct Family {
    name: String,
    description: String,
    cases: Vec<Prepared>,
}

/// What the pack said about one event.
struct Outcome {
    verdict: String,
    determined_by: Vec<String>,
    notes: Vec<String>,
}

/// How a verdict compares with the expected one.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Grade {
    Correct,
    DangerousPassed,
    OverBlocked,
    WrongStrength,
    NoDecision,
}

fn grade(expect: Expect, got: &str) -> Grade {
    match (expect, got) {
        (e, g) if e.as_str() == g => Grade::Correct,
        (Expect::Deny | Expect::Ask, "allow") => Grade::DangerousPassed,
        (Expect::Allow, "deny" | "ask") => Grade::OverBlocked,
        (_, "deny" | "ask") => Grade::WrongStrength,
        _ => Grade::NoDecision,
    }
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

/// Load one family file; malformed cases go to `problems`.
fn load(path: &Path, problems: &mut Vec<String>) -> Family {
    let rel = path
        .strip_prefix(corpus_dir().parent().unwrap().parent().unwrap())
        .unwrap_or(path)
        .display()
        .to_string();
    let name = path.file_stem().unwrap().to_string_lossy().to_string();
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let file: File = toml::from_str(&text).unwrap_or_else(|e| panic!("{rel} is not valid: {e}"));
    if file.description.trim().is_empty() || file.description.contains('|') {
        problems.push(format!("{rel}: `description` must be one line without `|`"));
    }
    let mut cases = vec![];
    for c in file.case {
        let location = format!("{rel}:{}", line_of(&text, c.span().start));
        let c = c.into_inner();
        match prepare(&c) {
            Ok((shown, is_command, event)) => {
                if c.why.trim().is_empty() {
                    problems.push(format!("{location}: empty `why`"));
                }
                if c.todo.as_deref().is_some_and(|t| !t.starts_with("needs ")) {
                    problems.push(format!("{location}: a todo reads \"needs <feature>\""));
                }
                cases.push(Prepared {
                    location,
                    shown,
                    is_command,
                    expect: c.expect,
                    why: c.why,
                    todo: c.todo,
                    event,
                    windows: c.windows,
                    project: c.project.clone(),
                });
            }
            Err(e) => problems.push(format!("{location}: {e}")),
        }
    }
    Family {
        name,
        description: file.description.trim().to_string(),
        cases,
    }
}

/// The event for a case, how to show it, and whether it is a command.
fn prepare(c: &Case) -> Result<(String, bool, Value), String> {
    let cwd = c
        .cwd
        .as_deref()
        .or(c.project.as_deref())
        .unwrap_or(if c.windows { WIN_PROJECT } else { PROJECT });
    let mut shown = String::new();
    let (command, tool) = match (&c.command, &c.powershell) {
        (Some(_), Some(_)) => return Err("a case has one of `command` and `powershell`".into()),
        (Some(cmd), None) => (Some(cmd), "Bash"),
        (None, Some(ps)) => {
            shown.push_str("PowerShell: ");
            (Some(ps), "PowerShell")
        }
        (None, None) => (None, "Bash"),
    };
    if c.mcp.is_some() != c.input.is_some() {
        return Err("an MCP case has both `mcp` and `input`".into());
    }
    if let (Some(name), Some(input)) = (&c.mcp, &c.input) {
        if command.is_some() || c.tool.is_some() || c.host.is_some() {
            return Err("an MCP case takes no `command`, `tool` or `host`".into());
        }
        let _ = write!(shown, "{name} {input}");
        let event = json!({
            "hook_event_name": "PreToolUse",
            "tool_name": name,
            "tool_input": input,
            "cwd": cwd,
            "session_id": "s",
        });
        return Ok((shown, false, event));
    }
    let (is_command, tool_name, input) = match (command, c.tool) {
        (Some(cmd), None) => {
            if cmd.trim().is_empty() {
                return Err("empty command".into());
            }
            if c.file_path.is_some()
                || c.path.is_some()
                || c.pattern.is_some()
                || c.glob.is_some()
                || c.content.is_some()
                || c.new_string.is_some()
            {
                return Err("a command case takes no tool fields".into());
            }
            shown.push_str(cmd);
            (true, tool.to_string(), json!({ "command": cmd }))
        }
        (None, Some(tool)) => {
            let input = tool_input(tool, c)?;
            let _ = write!(shown, "{tool:?}");
            for (k, v) in [
                ("file_path", &c.file_path),
                ("path", &c.path),
                ("pattern", &c.pattern),
                ("glob", &c.glob),
                ("content", &c.content),
                ("new_string", &c.new_string),
            ] {
                if let Some(v) = v {
                    let _ = write!(shown, " {k}={v:?}");
                }
            }
            (false, format!("{tool:?}"), Value::Object(input))
        }
        _ => return Err("a case has exactly one of `command` and `tool`".into()),
    };
    if let Some(cwd) = &c.cwd {
        let _ = write!(shown, "  (cwd {cwd})");
    }
    if let Some(project) = &c.project {
        let _ = write!(shown, "  (project {project})");
    }
    if c.windows {
        shown.push_str("  (Windows)");
    }
    let event = match c.host.as_deref() {
        None => json!({
            "hook_event_name": "PreToolUse",
            "tool_name": tool_name,
            "tool_input": input,
            "cwd": cwd,
            "session_id": "s",
        }),
        Some("codex") if tool_name == "Bash" => {
            shown.push_str("  (Codex)");
            json!({
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": input,
                "cwd": cwd,
                "session_id": "s",
                "turn_id": "t",
                "model": "gpt-5",
                "permission_mode": "default",
                "tool_use_id": "c",
                "transcript_path": null,
            })
        }
        Some("copilot") if is_command => {
            shown.push_str("  (Copilot CLI)");
            let tool = if tool_name == "PowerShell" {
                "powershell"
            } else {
                "bash"
            };
            json!({
                "timestamp": 1_704_614_600_000u64,
                "cwd": cwd,
                "toolName": tool,
                "toolArgs": input.to_string(),
            })
        }
        Some("copilot") => {
            // Copilot CLI's file tools: `view`, `create`, `edit` with `path`.
            shown.push_str("  (Copilot CLI)");
            let (tool, args) = match c.tool {
                Some(Tool::Read) => ("view", json!({ "path": input["file_path"] })),
                Some(Tool::Write) => (
                    "create",
                    json!({ "path": input["file_path"], "file_text": input["content"] }),
                ),
                Some(Tool::Edit) => (
                    "edit",
                    json!({ "path": input["file_path"], "old_str": input["old_string"],
                            "new_str": input["new_string"] }),
                ),
                _ => return Err("copilot sends commands, Read, Write and Edit".into()),
            };
            json!({
                "timestamp": 1_704_614_600_000u64,
                "cwd": cwd,
                "toolName": tool,
                "toolArgs": args.to_string(),
            })
        }
        Some("vscode") => {
            // VS Code's agent tools, camelCase inputs.
            shown.push_str("  (VS Code)");
            let (tool, args) = match (c.tool, is_command) {
                (_, true) => ("run_in_terminal", json!({ "command": input["command"] })),
                (Some(Tool::Read), _) => ("read_file", json!({ "filePath": input["file_path"] })),
                (Some(Tool::Write), _) => (
                    "create_file",
                    json!({ "filePath": input["file_path"], "content": input["content"] }),
                ),
                (Some(Tool::Edit), _) => (
                    "replace_string_in_file",
                    json!({ "filePath": input["file_path"], "oldString": input["old_string"],
                            "newString": input["new_string"] }),
                ),
                _ => return Err("vscode sends commands, Read, Write and Edit".into()),
            };
            json!({
                "hookEventName": "PreToolUse",
                "tool_name": tool,
                "tool_input": args,
                "cwd": cwd,
                "sessionId": "s",
                "timestamp": "2026-01-01T00:00:00Z",
            })
        }
        Some(h) => {
            return Err(format!(
                "host `{h}` is not one this corpus sends (codex with a command, copilot, vscode)"
            ))
        }
    };
    Ok((shown, is_command, event))
}

/// The tool_input a real call carries, or why the case is malformed.
fn tool_input(tool: Tool, c: &Case) -> Result<Map<String, Value>, String> {
    let mut input = Map::new();
    for (k, v) in [
        ("file_path", &c.file_path),
        ("path", &c.path),
        ("pattern", &c.pattern),
        ("glob", &c.glob),
        ("content", &c.content),
        ("new_string", &c.new_string),
    ] {
        if let Some(v) = v {
            input.insert(k.to_string(), Value::String(v.clone()));
        }
    }
    let (needs, allowed): (&[&str], &[&str]) = match tool {
        Tool::Read => (&["file_path"], &["file_path"]),
        Tool::Write => (&["file_path"], &["file_path", "content"]),
        Tool::Edit => (&["file_path"], &["file_path", "new_string"]),
        Tool::Grep | Tool::Glob => (&["pattern"], &["pattern", "path", "glob"]),
    };
    for k in needs {
        if !input.contains_key(*k) {
            return Err(format!("{tool:?} needs `{k}`"));
        }
    }
    if let Some(k) = input.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("{tool:?} does not take `{k}`"));
    }
    match tool {
        Tool::Write => {
            input.entry("content").or_insert_with(|| json!("hello\n"));
        }
        Tool::Edit => {
            input.insert("old_string".into(), json!("hello"));
            input
                .entry("new_string")
                .or_insert_with(|| json!("hello, world"));
        }
        _ => {}
    }
    Ok(input)
}

/// The built-in default pack alone (no flags, no layers), or the default pack
/// plus one opt-in pack.
fn discovery(pack: Option<&str>) -> Discovery {
    let flags = match pack {
        None => vec![],
        Some(p) => discover::BUILTIN
            .iter()
            .map(|(n, _)| *n)
            .chain([p])
            .map(|n| PathBuf::from(format!("builtin:{n}")))
            .collect(),
    };
    Discovery {
        flags,
        env: None,
        project_dir: None,
        user_dir: None,
        no_builtin: false,
        state_home: None,
        ..Discovery::default()
    }
}

/// The sets one run of the families judges with, one per setting (Windows or
/// not, the project): loaded once each, as `run` loads one per process. A
/// case is judged by `in_process_with`, the rest of what `in_process` does.
type Sets = HashMap<(bool, Option<String>), Set>;

fn evaluate(
    sets: &mut Sets,
    d: &Discovery,
    event: &Value,
    windows: bool,
    project: Option<&str>,
) -> Outcome {
    let mut env = BTreeMap::new();
    // No cache: nothing is written into the corpus's home.
    env.insert("HOOKRULES_CACHE".to_string(), "off".to_string());
    if windows {
        env.insert("USERPROFILE".to_string(), WIN_HOME.to_string());
        env.insert("CLAUDE_PROJECT_DIR".to_string(), WIN_PROJECT.to_string());
    } else {
        env.insert("HOME".to_string(), HOME.to_string());
        env.insert(
            "CLAUDE_PROJECT_DIR".to_string(),
            project.unwrap_or(PROJECT).to_string(),
        );
    }
    let bytes = serde_json::to_vec(event).expect("event serialises");
    let env: Env = env.into();
    let set = sets
        .entry((windows, project.map(str::to_string)))
        .or_insert_with(|| Set::load(d, &env));
    let (answer, decision) = in_process_with(
        set,
        &mut bytes.as_slice(),
        &env,
        Now::at(NOW),
        Hint::default(),
    );
    match decision {
        None => Outcome {
            verdict: "no decision (input or internal failure)".to_string(),
            determined_by: vec![],
            notes: vec![
                format!("stdout: {}", answer.stdout.trim()),
                format!("stderr: {}", answer.stderr.trim()),
            ],
        },
        Some(d) => Outcome {
            verdict: d.kind.map_or("allow", |k| k.as_str()).to_string(),
            determined_by: d.determined_by,
            notes: d.errors,
        },
    }
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Per-family scores.
#[derive(Default, Clone, Copy)]
struct Score {
    cases: usize,
    correct: usize,
    dangerous_passed: usize,
    over_blocked: usize,
    wrong_strength: usize,
    no_decision: usize,
    todo_open: usize,
}

impl Score {
    fn add(&mut self, g: Grade, todo: bool) {
        self.cases += 1;
        match g {
            Grade::Correct => self.correct += 1,
            Grade::DangerousPassed => self.dangerous_passed += 1,
            Grade::OverBlocked => self.over_blocked += 1,
            Grade::WrongStrength => self.wrong_strength += 1,
            Grade::NoDecision => self.no_decision += 1,
        }
        if todo && g != Grade::Correct {
            self.todo_open += 1;
        }
    }
    fn plus(mut self, o: Score) -> Score {
        self.cases += o.cases;
        self.correct += o.correct;
        self.dangerous_passed += o.dangerous_passed;
        self.over_blocked += o.over_blocked;
        self.wrong_strength += o.wrong_strength;
        self.no_decision += o.no_decision;
        self.todo_open += o.todo_open;
        self
    }
}

/// Run a set of families against one discovery; print the report; return
/// (failures, report lines).
fn run_families(title: &str, d: &Discovery, families: &[Family]) -> usize {
    let mut mismatches = String::new();
    let mut todos = String::new();
    let mut stale = String::new();
    let mut failures = 0usize;
    let mut table = String::new();
    let mut total = Score::default();
    let _ = writeln!(
        table,
        "{:<22}{:>7}{:>9}{:>11}{:>9}{:>10}{:>6}",
        "family", "cases", "correct", "dangerous", "over-", "wrong", "todo"
    );
    let _ = writeln!(
        table,
        "{:<22}{:>7}{:>9}{:>11}{:>9}{:>10}{:>6}",
        "", "", "", "passed", "blocked", "strength", "open"
    );
    let mut sets = Sets::new();
    for fam in families {
        let mut score = Score::default();
        for case in &fam.cases {
            let out = evaluate(
                &mut sets,
                d,
                &case.event,
                case.windows,
                case.project.as_deref(),
            );
            let g = grade(case.expect, &out.verdict);
            score.add(g, case.todo.is_some());
            let by = if out.determined_by.is_empty() {
                "(no rule)".to_string()
            } else {
                out.determined_by.join(", ")
            };
            let entry = |s: &mut String, head: &str| {
                let _ = writeln!(
                    s,
                    "{}: {head}expected {}, got {} [determined by: {by}]",
                    case.location,
                    case.expect.as_str(),
                    out.verdict,
                );
                let _ = writeln!(s, "{}", indent(&case.shown, "    | "));
                let _ = writeln!(s, "    why: {}", case.why);
                for n in &out.notes {
                    let _ = writeln!(s, "{}", indent(n, "    note: "));
                }
            };
            match (&case.todo, g) {
                (None, Grade::Correct) => {}
                (None, _) => {
                    failures += 1;
                    entry(&mut mismatches, "");
                }
                (Some(t), Grade::Correct) => {
                    failures += 1;
                    entry(
                        &mut stale,
                        &format!("todo \"{t}\" now passes: remove the todo; "),
                    );
                }
                (Some(t), _) => entry(&mut todos, &format!("todo \"{t}\": ")),
            }
        }
        let _ = writeln!(
            table,
            "{:<22}{:>7}{:>9}{:>11}{:>9}{:>10}{:>6}",
            fam.name,
            score.cases,
            score.correct,
            score.dangerous_passed,
            score.over_blocked,
            score.wrong_strength + score.no_decision,
            score.todo_open
        );
        total = total.plus(score);
    }
    let _ = writeln!(
        table,
        "{:<22}{:>7}{:>9}{:>11}{:>9}{:>10}{:>6}",
        "total",
        total.cases,
        total.correct,
        total.dangerous_passed,
        total.over_blocked,
        total.wrong_strength + total.no_decision,
        total.todo_open
    );
    println!("##### {title}");
    if !mismatches.is_empty() {
        println!("=== mismatches (all of them) ===\n{mismatches}");
    }
    if !stale.is_empty() {
        println!("=== todos that now pass (remove the todo) ===\n{stale}");
    }
    if !todos.is_empty() {
        println!("=== open todos (known gaps, not failures) ===\n{todos}");
    }
    println!("=== per family ===\n{table}");
    failures
}

fn default_families(problems: &mut Vec<String>) -> Vec<Family> {
    toml_files(&corpus_dir())
        .iter()
        .map(|p| load(p, problems))
        .collect()
}

fn pack_families(problems: &mut Vec<String>) -> Vec<Family> {
    toml_files(&corpus_dir().join("packs"))
        .iter()
        .map(|p| load(p, problems))
        .collect()
}

fn check_duplicates(families: &[Family], problems: &mut Vec<String>) {
    let mut seen: BTreeMap<(String, String), &str> = BTreeMap::new();
    for f in families {
        for c in &f.cases {
            let key = (c.shown.clone(), c.event["cwd"].to_string());
            if let Some(first) = seen.insert(key, &c.location) {
                problems.push(format!("{}: duplicate of {first}", c.location));
            }
        }
    }
}

#[test]
fn default_pack_corpus() {
    // The corpus's home is not on this machine: what the disk says of a path
    // there (a link, a key's content, nothing there yet) would change
    // decisions from machine to machine.
    assert!(
        !Path::new(HOME).exists(),
        "{HOME} exists on this machine: the corpus judges a home that is not on disk \
         (rows read as if its files were there); remove it, or run the corpus elsewhere"
    );
    let d = discovery(None);
    assert_eq!(
        d.find().selection,
        Some(Selection::Builtin),
        "the corpus must run against the built-in pack only"
    );
    let mut problems = vec![];
    let families = default_families(&mut problems);
    check_duplicates(&families, &mut problems);

    let all = || families.iter().flat_map(|f| &f.cases);
    let commands = all().filter(|c| c.is_command).count();
    let paths = all().filter(|c| !c.is_command).count();
    let harmless = all().filter(|c| c.expect == Expect::Allow).count();
    let total = commands + paths;
    if commands < MIN_COMMANDS {
        problems.push(format!(
            "{commands} command cases, want at least {MIN_COMMANDS}"
        ));
    }
    if paths < MIN_PATHS {
        problems.push(format!(
            "{paths} tool-path cases, want at least {MIN_PATHS}"
        ));
    }
    if harmless * 2 <= total {
        problems.push(format!(
            "{harmless} of {total} cases are harmless (allow); more than half must be"
        ));
    }

    let failures = run_families("default pack", &d, &families);
    if !problems.is_empty() {
        println!("=== corpus problems ===");
        for p in &problems {
            println!("{p}");
        }
    }
    println!("{commands} commands, {paths} tool paths, {harmless} harmless");
    assert!(
        problems.is_empty() && failures == 0,
        "{failures} corpus cases failed (wrong verdict, or a todo that now passes) and {} \
         corpus problems (listed above, each with file:line)",
        problems.len()
    );
}

#[test]
fn opt_in_pack_corpus() {
    let mut problems = vec![];
    let families = pack_families(&mut problems);
    check_duplicates(&families, &mut problems);
    let mut failures = 0;
    for f in &families {
        assert!(
            discover::builtin_named(&f.name).is_some(),
            "tests/corpus/packs/{}.toml names no built-in pack",
            f.name
        );
        assert!(
            discover::OPT_IN.iter().any(|(n, _)| *n == f.name),
            "{} is not an opt-in pack (discover::OPT_IN)",
            f.name
        );
        let d = discovery(Some(&f.name));
        failures += run_families(
            &format!("default pack + builtin:{}", f.name),
            &d,
            std::slice::from_ref(f),
        );
    }
    for p in &problems {
        println!("{p}");
    }
    assert!(
        problems.is_empty() && failures == 0,
        "{failures} opt-in pack cases failed and {} corpus problems (listed above)",
        problems.len()
    );
}

/// The README table of families: name, what it covers, and counts.
fn family_table(families: &[Family], link_dir: &str) -> String {
    let mut out = String::from(
        "| family | covers | commands | tool paths | deny | ask | allow | todo |\n\
         |---|---|--:|--:|--:|--:|--:|--:|\n",
    );
    let mut sum = [0usize; 6];
    for f in families {
        let n = |p: &dyn Fn(&Prepared) -> bool| f.cases.iter().filter(|c| p(c)).count();
        let row = [
            n(&|c| c.is_command),
            n(&|c| !c.is_command),
            n(&|c| c.expect == Expect::Deny),
            n(&|c| c.expect == Expect::Ask),
            n(&|c| c.expect == Expect::Allow),
            n(&|c| c.todo.is_some()),
        ];
        for (s, r) in sum.iter_mut().zip(row) {
            *s += r;
        }
        let _ = writeln!(
            out,
            "| [`{0}`]({link_dir}{0}.toml) | {1} | {2} | {3} | {4} | {5} | {6} | {7} |",
            f.name, f.description, row[0], row[1], row[2], row[3], row[4], row[5]
        );
    }
    let _ = writeln!(
        out,
        "| **total** | | **{}** | **{}** | **{}** | **{}** | **{}** | **{}** |",
        sum[0], sum[1], sum[2], sum[3], sum[4], sum[5]
    );
    out
}

/// Replace the text between `<!-- NAME -->` and `<!-- /NAME -->`.
fn splice(readme: &str, name: &str, body: &str) -> Option<String> {
    let open = format!("<!-- {name} -->\n");
    let close = format!("<!-- /{name} -->");
    let start = readme.find(&open)? + open.len();
    let end = start + readme[start..].find(&close)?;
    Some(format!("{}{body}{}", &readme[..start], &readme[end..]))
}

#[test]
fn readme_tables_are_generated_from_the_corpus() {
    let mut problems = vec![];
    let default = family_table(&default_families(&mut problems), "tests/corpus/");
    let packs = family_table(&pack_families(&mut problems), "tests/corpus/packs/");
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let want = splice(&readme, "corpus-families", &default)
        .and_then(|r| splice(&r, "corpus-packs", &packs))
        .expect("README.md has <!-- corpus-families --> and <!-- corpus-packs --> sections");
    if std::env::var_os("HOOKRULES_BLESS").is_some() && want != readme {
        std::fs::write(&path, &want).unwrap();
        return;
    }
    assert!(
        want == readme,
        "the README's corpus tables are stale: run HOOKRULES_BLESS=1 cargo test --test library corpus::\n\
         want:\n{default}\n{packs}"
    );
}
