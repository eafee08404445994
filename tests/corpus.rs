//! The default pack's promise, as data.
//!
//! `tests/corpus/commands.toml` (Bash commands) and `tests/corpus/paths.toml`
//! (Read / Write / Edit / Grep / Glob inputs) list cases with the verdict the
//! built-in pack must reach. Each case becomes a PreToolUse event, is answered
//! in-process by `run_detailed` with the built-in pack, and its verdict is
//! compared with `expect` (no decision at all counts as "allow").
//!
//! Every mismatch is collected and reported at once (file:line, the input,
//! expected, got, the determining rules), with counts per expectation and a
//! confusion table; the test fails at the end if there was any mismatch.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::PathBuf;

use hookrules::cli::run::run_detailed;
use hookrules::os::clock::Now;
use hookrules::policy::discover::{Discovery, Selection};
use serde::Deserialize;
use serde_json::{json, Map, Value};
use serde_spanned::Spanned;

const HOME: &str = "/home/dev";
const PROJECT: &str = "/home/dev/myproj";
const NOW: i64 = 1_763_700_000;
const MIN_COMMANDS: usize = 330;
const MIN_PATHS: usize = 110;
const VERDICTS: [&str; 3] = ["deny", "ask", "allow"];

#[derive(Deserialize)]
struct File<C> {
    case: Vec<Spanned<C>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CommandCase {
    command: String,
    expect: Expect,
    why: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathCase {
    tool: Tool,
    file_path: Option<String>,
    path: Option<String>,
    pattern: Option<String>,
    cwd: Option<String>,
    expect: Expect,
    why: String,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq)]
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

/// One case ready to run: where it came from, how to show it, its event.
struct Prepared {
    location: String,
    shown: String,
    expect: Expect,
    why: String,
    event: Value,
}

/// What the pack said about one event.
struct Outcome {
    verdict: String,
    determined_by: Vec<String>,
    notes: Vec<String>,
}

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn load<C: for<'de> Deserialize<'de>>(name: &str) -> (String, Vec<(usize, C)>) {
    let path = corpus_dir().join(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let file: File<C> =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid: {e}", path.display()));
    let cases = file
        .case
        .into_iter()
        .map(|c| (line_of(&text, c.span().start), c.into_inner()))
        .collect();
    (name.to_string(), cases)
}

fn bash_event(command: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": { "command": command },
        "cwd": PROJECT,
        "session_id": "s",
    })
}

/// The tool_input a real call carries, or why the case is malformed.
fn tool_input(c: &PathCase) -> Result<Map<String, Value>, String> {
    let mut input = Map::new();
    let mut put = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            input.insert(k.to_string(), Value::String(v.clone()));
        }
    };
    put("file_path", &c.file_path);
    put("path", &c.path);
    put("pattern", &c.pattern);
    let (needs, allowed): (&[&str], &[&str]) = match c.tool {
        Tool::Read | Tool::Write | Tool::Edit => (&["file_path"], &["file_path"]),
        Tool::Grep | Tool::Glob => (&["pattern"], &["pattern", "path"]),
    };
    for k in needs {
        if !input.contains_key(*k) {
            return Err(format!("{:?} needs `{k}`", c.tool));
        }
    }
    if let Some(k) = input.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!("{:?} does not take `{k}`", c.tool));
    }
    match c.tool {
        Tool::Write => {
            input.insert("content".into(), json!("hello\n"));
        }
        Tool::Edit => {
            input.insert("old_string".into(), json!("hello"));
            input.insert("new_string".into(), json!("hello, world"));
        }
        _ => {}
    }
    Ok(input)
}

fn path_event(c: &PathCase, input: Map<String, Value>) -> Value {
    json!({
        "hook_event_name": "PreToolUse",
        "tool_name": format!("{:?}", c.tool),
        "tool_input": input,
        "cwd": c.cwd.as_deref().unwrap_or(PROJECT),
        "session_id": "s",
    })
}

fn show_path_case(c: &PathCase) -> String {
    let mut s = format!("{:?}", c.tool);
    for (k, v) in [
        ("file_path", &c.file_path),
        ("path", &c.path),
        ("pattern", &c.pattern),
    ] {
        if let Some(v) = v {
            let _ = write!(s, " {k}={v:?}");
        }
    }
    if let Some(cwd) = &c.cwd {
        let _ = write!(s, " (cwd {cwd})");
    }
    s
}

fn discovery() -> Discovery {
    // No flags, no HOOKRULES_POLICIES, no project folder: the built-in pack,
    // whatever `.claude/hookrules` folders exist on this machine.
    Discovery {
        flags: vec![],
        env: None,
        project_dir: None,
        user_dir: None,
        no_builtin: false,
    }
}

fn evaluate(d: &Discovery, event: &Value) -> Outcome {
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), HOME.to_string());
    env.insert("CLAUDE_PROJECT_DIR".to_string(), PROJECT.to_string());
    let bytes = serde_json::to_vec(event).expect("event serialises");
    let (answer, decision) = run_detailed(d, &mut bytes.as_slice(), &env, Now::at(NOW));
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

#[test]
fn default_pack_corpus() {
    let d = discovery();
    assert_eq!(
        d.find().selection,
        Some(Selection::Builtin),
        "the corpus must run against the built-in pack only"
    );

    let mut problems: Vec<String> = Vec::new();
    let mut groups: Vec<(String, Vec<Prepared>)> = Vec::new();

    let (name, cases) = load::<CommandCase>("commands.toml");
    if cases.len() < MIN_COMMANDS {
        problems.push(format!(
            "{name}: {} cases, want at least {MIN_COMMANDS}",
            cases.len()
        ));
    }
    let mut seen = BTreeMap::new();
    let mut prepared = Vec::new();
    for (line, c) in cases {
        let location = format!("{name}:{line}");
        if c.why.trim().is_empty() {
            problems.push(format!("{location}: empty `why`"));
        }
        if c.command.trim().is_empty() {
            problems.push(format!("{location}: empty command"));
        }
        if let Some(first) = seen.insert(c.command.clone(), location.clone()) {
            problems.push(format!("{location}: duplicate of {first}"));
        }
        prepared.push(Prepared {
            location,
            shown: c.command.clone(),
            expect: c.expect,
            why: c.why,
            event: bash_event(&c.command),
        });
    }
    groups.push((name, prepared));

    let (name, cases) = load::<PathCase>("paths.toml");
    if cases.len() < MIN_PATHS {
        problems.push(format!(
            "{name}: {} cases, want at least {MIN_PATHS}",
            cases.len()
        ));
    }
    let mut seen = BTreeMap::new();
    let mut prepared = Vec::new();
    for (line, c) in cases {
        let location = format!("{name}:{line}");
        if c.why.trim().is_empty() {
            problems.push(format!("{location}: empty `why`"));
        }
        let shown = show_path_case(&c);
        if let Some(first) = seen.insert(shown.clone(), location.clone()) {
            problems.push(format!("{location}: duplicate of {first}"));
        }
        match tool_input(&c) {
            Ok(input) => prepared.push(Prepared {
                location,
                event: path_event(&c, input),
                shown,
                expect: c.expect,
                why: c.why,
            }),
            Err(e) => problems.push(format!("{location}: {e}")),
        }
    }
    groups.push((name, prepared));

    let mut report = String::new();
    let mut mismatches = 0usize;
    let mut total = 0usize;
    let mut summary = String::new();
    for (name, cases) in &groups {
        // expected -> got -> count
        let mut table: BTreeMap<&str, BTreeMap<String, usize>> = BTreeMap::new();
        let mut got_columns: BTreeSet<String> = VERDICTS.iter().map(|s| s.to_string()).collect();
        let mut file_mismatches = 0usize;
        for case in cases {
            total += 1;
            let out = evaluate(&d, &case.event);
            *table
                .entry(case.expect.as_str())
                .or_default()
                .entry(out.verdict.clone())
                .or_default() += 1;
            got_columns.insert(out.verdict.clone());
            if out.verdict == case.expect.as_str() {
                continue;
            }
            file_mismatches += 1;
            let by = if out.determined_by.is_empty() {
                "(no rule)".to_string()
            } else {
                out.determined_by.join(", ")
            };
            let _ = writeln!(
                report,
                "{}: expected {}, got {} [determined by: {by}]",
                case.location,
                case.expect.as_str(),
                out.verdict,
            );
            let _ = writeln!(report, "{}", indent(&case.shown, "    | "));
            let _ = writeln!(report, "    why: {}", case.why);
            for n in &out.notes {
                let _ = writeln!(report, "{}", indent(n, "    note: "));
            }
        }
        mismatches += file_mismatches;

        let counts: Vec<String> = VERDICTS
            .iter()
            .map(|v| {
                let n: usize = table.get(v).map_or(0, |row| row.values().sum());
                format!("{v} {n}")
            })
            .collect();
        let _ = writeln!(
            summary,
            "{name}: {} cases ({}), {} as expected, {file_mismatches} mismatched",
            cases.len(),
            counts.join(", "),
            cases.len() - file_mismatches,
        );
        let _ = write!(summary, "    {:<16}", "expected \\ got");
        for g in &got_columns {
            let _ = write!(summary, "{g:>8}");
        }
        let _ = writeln!(summary);
        for v in VERDICTS {
            let _ = write!(summary, "    {v:<16}");
            for g in &got_columns {
                let n = table.get(v).and_then(|r| r.get(g)).copied().unwrap_or(0);
                let _ = write!(summary, "{n:>8}");
            }
            let _ = writeln!(summary);
        }
    }

    if !problems.is_empty() {
        println!("=== corpus problems ===");
        for p in &problems {
            println!("{p}");
        }
        println!();
    }
    if !report.is_empty() {
        println!("=== mismatches (all of them) ===");
        print!("{report}");
        println!();
    }
    println!("=== summary ===");
    print!("{summary}");
    println!("total: {total} cases, {mismatches} mismatched");

    assert!(
        problems.is_empty() && mismatches == 0,
        "{mismatches} of {total} corpus cases got the wrong verdict and {} corpus problems \
         (listed above, each with file:line)",
        problems.len()
    );
}
