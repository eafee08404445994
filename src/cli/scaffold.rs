//! `hookrules test --new EVENT.json [-o FIXTURE.json]`: a fixture from an event
//! (the JSON the client sends, or a fixture `explain` reads), expecting what the
//! policies decide today. Run it once, read what it recorded, keep it: from then
//! on `hookrules test` fails when the decision changes.
//!
//! The event is made portable the way fixtures are written by hand: the project
//! folder (as evaluation finds it: `CLAUDE_PROJECT_DIR`, else from the event's
//! `cwd` up, see [`crate::contract::project`]) becomes `$PROJECT_DIR`,
//! and the home folder `$PROJECT_DIR/home`, which is where a fixture's `HOME`
//! points when it runs. The decision is recorded from that portable fixture, run
//! exactly as `hookrules test` will run it.

use crate::os::env::Env;
use std::io::{Read, Write};
use std::path::Path;

use serde_json::{Map, Value};

use crate::cli::fixture::Fixture;
use crate::policy::discover::Discovery;

/// Write a fixture for the event in `input` (`-`: stdin) to `out_path`, or print
/// it. Exit 0, or 2 when the input is unusable or the file exists already.
pub fn new_fixture(
    input: &Path,
    out_path: Option<&Path>,
    discovery: &Discovery,
    env: &Env,
    stdin: &mut dyn Read,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let text = match read_input(input, stdin) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(err, "hookrules test --new: {e}");
            return 2;
        }
    };
    let fixture = match portable(&text, env) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "hookrules test --new: {}: {e}", input.display());
            return 2;
        }
    };
    let (_, decision) = match crate::cli::test::observe(&fixture, discovery) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "hookrules test --new: {e}");
            return 2;
        }
    };
    let decided = decision
        .as_ref()
        .and_then(|d| d.kind)
        .map(|k| k.as_str())
        .unwrap_or("none");
    let rules: Vec<String> = decision
        .as_ref()
        .map(|d| d.determined_by.clone())
        .unwrap_or_default();
    let json = render(&fixture, decided, &rules, input);
    let summary = format!(
        "expects `{decided}`{}",
        if rules.is_empty() {
            String::new()
        } else {
            format!(", determined by {}", rules.join(", "))
        }
    );
    match out_path {
        None => {
            let _ = writeln!(out, "{json}");
            let _ = writeln!(err, "hookrules test --new: the fixture {summary}");
            0
        }
        Some(p) => match write_new(p, &json) {
            Ok(()) => {
                let _ = writeln!(
                    out,
                    "wrote {}: {summary}; `hookrules test {}` runs it",
                    p.display(),
                    p.parent()
                        .filter(|d| !d.as_os_str().is_empty())
                        .unwrap_or(Path::new("."))
                        .display()
                );
                0
            }
            Err(e) => {
                let _ = writeln!(err, "hookrules test --new: {}: {e}", p.display());
                2
            }
        },
    }
}

fn read_input(input: &Path, stdin: &mut dyn Read) -> Result<String, String> {
    if input == Path::new("-") {
        let mut s = String::new();
        stdin
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read stdin: {e}"))?;
        return Ok(s);
    }
    crate::os::files::read_text(input).map_err(|e| format!("cannot read {}: {e}", input.display()))
}

/// The input as a fixture whose paths name the project as `$PROJECT_DIR`.
fn portable(text: &str, env: &Env) -> Result<Fixture, String> {
    let fx = Fixture::parse(text)?;
    if !fx.bare || text.contains("$PROJECT_DIR") {
        return Ok(Fixture { expect: None, ..fx });
    }
    // The project as evaluation finds it (from the event's `cwd`).
    let cwd = fx.event.get("cwd").and_then(|c| c.as_str()).map(Path::new);
    let project = Some(
        crate::contract::project::resolve(env, cwd)
            .display()
            .to_string(),
    );
    let mut event_text = fx.event.to_string();
    if let Some(p) = project.filter(|p| p.len() > 1) {
        event_text = replace_dir(&event_text, p.trim_end_matches('/'), "$PROJECT_DIR");
    }
    if let Some(h) = env.get("HOME").filter(|h| h.len() > 1) {
        event_text = replace_dir(&event_text, h.trim_end_matches('/'), "$PROJECT_DIR/home");
    }
    let event: Value = serde_json::from_str(&event_text)
        .map_err(|e| format!("not JSON after substitution: {e}"))?;
    Ok(Fixture {
        event,
        expect: None,
        ..fx
    })
}

/// Replace `dir` where it is a whole path or a path's leading folders (followed
/// by `/`, a quote or the end), not a prefix of a longer name.
fn replace_dir(text: &str, dir: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(dir) {
        let after = &rest[i + dir.len()..];
        let whole = after.is_empty() || after.starts_with(['/', '"']);
        out.push_str(&rest[..i]);
        out.push_str(if whole { with } else { dir });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The fixture as pretty JSON: description, setup, event, expectation.
fn render(fx: &Fixture, decided: &str, rules: &[String], input: &Path) -> String {
    let mut m = Map::new();
    let what = describe_event(&fx.event);
    m.insert(
        "description".into(),
        Value::String(fx.description.clone().unwrap_or_else(|| {
            format!(
                "{what}: recorded by `hookrules test --new` from {}; check that `{decided}` is what you want",
                input.display()
            )
        })),
    );
    if !fx.files.is_empty() {
        let files: Map<String, Value> = fx
            .files
            .iter()
            .map(|(k, v)| {
                let v = match v {
                    crate::cli::fixture::FileSpec::Text(t) => Value::String(t.clone()),
                    crate::cli::fixture::FileSpec::Spec { content, mtime } => {
                        let mut o = Map::new();
                        o.insert("content".into(), Value::String(content.clone()));
                        if let Some(t) = mtime {
                            o.insert("mtime".into(), Value::from(*t));
                        }
                        Value::Object(o)
                    }
                };
                (k.clone(), v)
            })
            .collect();
        m.insert("files".into(), Value::Object(files));
    }
    if !fx.env.is_empty() {
        m.insert(
            "env".into(),
            Value::Object(
                fx.env
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect(),
            ),
        );
    }
    if let Some(n) = fx.now {
        m.insert("now".into(), Value::from(n));
    }
    if let Some(tz) = &fx.tz {
        m.insert("tz".into(), Value::String(tz.clone()));
    }
    m.insert("event".into(), fx.event.clone());
    let mut expect = Map::new();
    expect.insert("decision".into(), Value::String(decided.to_string()));
    if !rules.is_empty() {
        expect.insert(
            "rules".into(),
            Value::Array(rules.iter().map(|r| Value::String(r.clone())).collect()),
        );
    }
    m.insert("expect".into(), Value::Object(expect));
    serde_json::to_string_pretty(&Value::Object(m)).unwrap_or_default()
}

/// `PreToolUse Bash: rm -rf build` and the like, for the description.
fn describe_event(ev: &Value) -> String {
    let name = ev["hook_event_name"].as_str().unwrap_or("event");
    let tool = ev["tool_name"].as_str();
    let detail = ev["tool_input"]["command"]
        .as_str()
        .or_else(|| ev["tool_input"]["file_path"].as_str())
        .or_else(|| ev["prompt"].as_str())
        .or_else(|| ev["source"].as_str());
    let mut s = name.to_string();
    if let Some(t) = tool {
        s.push(' ');
        s.push_str(t);
    }
    if let Some(d) = detail {
        let short: String = d.chars().take(60).collect();
        s.push_str(": ");
        s.push_str(&short);
    }
    s
}

/// Create `path` with `text`, never replacing an existing file and never
/// leaving half of one: the text is written to a temporary file beside it, then
/// linked into place (which fails if the name is taken).
fn write_new(path: &Path, text: &str) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if path.exists() {
        return Err("exists already; choose another name, or delete it first".into());
    }
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        std::process::id()
    ));
    std::fs::write(&tmp, format!("{text}\n")).map_err(|e| e.to_string())?;
    let linked = std::fs::hard_link(&tmp, path);
    let _ = std::fs::remove_file(&tmp);
    linked.map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => {
            "exists already; choose another name, or delete it first".to_string()
        }
        _ => e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::replace_dir;

    #[test]
    fn only_whole_folders_are_replaced() {
        let t = r#"{"a":"/home/u/proj/x","b":"/home/u/project2","c":"/home/u/proj"}"#;
        assert_eq!(
            replace_dir(t, "/home/u/proj", "$P"),
            r#"{"a":"$P/x","b":"/home/u/project2","c":"$P"}"#
        );
    }
}
