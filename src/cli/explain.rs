//! `hookrules explain FIXTURE`: how an event is decided, from the same evaluator
//! `run` uses, with a recording tracer. Nothing is written: side effects are
//! listed, not run.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::answer;
use crate::cli::fixture::Fixture;
use crate::compile::set::{CompiledSet, Query};
use crate::contract::Event;
use crate::decision;
use crate::eval::trace::{Step, Trace, Tracer};
use crate::eval::{self, Ctx};
use crate::policy::discover::Discovery;

use super::{Format, Verbosity};

/// Everything an explanation holds.
#[derive(Debug, serde::Serialize)]
pub struct Explanation {
    /// The event name.
    pub event: String,
    /// Policies consulted.
    pub policies: Vec<String>,
    /// The trace.
    pub steps: Vec<Step>,
    /// The decision.
    pub decision: crate::decision::Decision,
    /// Effects `run` would perform.
    pub effects: Vec<String>,
    /// Where rules came from: replacements and overrides by later layers.
    pub notes: BTreeMap<String, Vec<String>>,
    /// Each policy's file and layer.
    pub sources: Vec<String>,
    /// Exactly what `run` prints on stdout.
    pub stdout: String,
    /// What `run` prints on stderr.
    pub stderr: String,
    /// Its exit status.
    pub exit: i32,
}

/// Explain a full fixture in its own temporary project (see [`explain`]).
fn in_fixture_project(
    fx: &Fixture,
    discovery: &Discovery,
    env: &BTreeMap<String, String>,
    project: &Path,
) -> Result<Explanation, String> {
    let prepared = fx.prepare(project)?;
    let event: serde_json::Value =
        serde_json::from_str(&prepared.event_text).map_err(|e| e.to_string())?;
    let fx = Fixture {
        event,
        env: prepared.env.clone(),
        ..fx.clone()
    };
    let mut env = env.clone();
    env.extend(prepared.env);
    let discovery = Discovery {
        project_dir: Some(project.to_path_buf()),
        user_dir: Some(project.join("home/.config/hookrules")),
        ..discovery.clone()
    };
    explanation(&fx, &discovery, &env)
}

/// Explain one event.
pub fn explanation(
    fixture: &Fixture,
    discovery: &Discovery,
    env: &BTreeMap<String, String>,
) -> Result<Explanation, String> {
    let event = Event::from_value(fixture.event.clone()).map_err(|e| e.to_string())?;
    let found = discovery.find();
    let set = CompiledSet::build(&found);
    let compiled = set.for_event(
        &event,
        Query {
            prefilter: false,
            explain: true,
        },
    );
    let mut env = env.clone();
    env.extend(fixture.env.clone());
    let now = fixture
        .now
        .map(crate::os::clock::Now::at)
        .unwrap_or_else(|| super::clock(&env))
        .with_tz(env.get("TZ").map(String::as_str));
    let ctx = Ctx::from_env(&event, env, now);
    let mut trace = Trace::default();
    let outcome = eval::evaluate(&compiled, &event, &ctx, &mut trace);
    let decision = decision::decide(&outcome);
    trace.step(Step::Combine {
        note: decision::describe(&decision, outcome.contributions.len()),
    });
    let answer = answer::render(&event, &decision);
    Ok(Explanation {
        event: event.name.clone(),
        policies: compiled
            .buckets
            .iter()
            .map(|b| b.policy.source.display_name())
            .collect(),
        steps: trace.steps,
        decision,
        effects: outcome
            .effects
            .iter()
            .map(|e| format!("{} (rule {})", e.describe(), e.rule))
            .collect(),
        notes: compiled.notes.clone(),
        sources: compiled
            .buckets
            .iter()
            .map(|b| {
                format!(
                    "{} ({})",
                    b.policy.source.display_name(),
                    b.policy.source.layer.name()
                )
            })
            .collect(),
        stdout: answer.stdout,
        stderr: answer.stderr,
        exit: answer.exit,
    })
}

/// Run `explain` and print.
pub fn explain(
    fixture: &Path,
    discovery: &Discovery,
    env: &BTreeMap<String, String>,
    verbosity: Verbosity,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let fx = match Fixture::read(fixture) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "hookrules explain: {e}");
            return 2;
        }
    };
    // A full fixture is explained exactly as `hookrules test` runs it: in a fresh
    // temporary project with its files, `$PROJECT_DIR` replaced, its own home and
    // no user layer. A bare event is explained in the real project, as `run` would.
    let tmp = if fx.bare {
        None
    } else {
        match crate::cli::fixture::tempdir() {
            Ok(t) => Some(t),
            Err(e) => {
                let _ = writeln!(
                    err,
                    "hookrules explain: cannot create a temporary directory: {e}"
                );
                return 2;
            }
        }
    };
    let result = match &tmp {
        None => explanation(&fx, discovery, env),
        Some(project) => in_fixture_project(&fx, discovery, env, project),
    };
    if let Some(t) = &tmp {
        let _ = std::fs::remove_dir_all(t);
    }
    let ex = match result {
        Ok(x) => x,
        Err(e) => {
            let _ = writeln!(err, "hookrules explain: {}: {e}", fixture.display());
            return 2;
        }
    };
    match format {
        Format::Json => {
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(&ex).unwrap_or_default()
            );
        }
        Format::Human => {
            let _ = write!(out, "{}", render(&ex, verbosity));
        }
    }
    0
}

/// The human form of an explanation.
pub fn render(ex: &Explanation, verbosity: Verbosity) -> String {
    let mut s = String::new();
    s.push_str(&format!("event     {}\n", ex.event));
    s.push_str(&format!("policies  {}\n", ex.sources.join(", ")));
    let decision = ex
        .decision
        .kind
        .map(|k| k.as_str())
        .unwrap_or("none (no opinion)");
    s.push_str(&format!("decision  {decision}\n"));
    if !ex.decision.determined_by.is_empty() {
        s.push_str(&format!(
            "by        {}\n",
            ex.decision.determined_by.join(", ")
        ));
    }
    if let Some(r) = &ex.decision.reason {
        s.push_str(&format!("reason    {}\n", indent(r, 10)));
    }
    if verbosity != Verbosity::Summary {
        s.push_str("\ntrace\n");
        let mut block: Vec<String> = vec![];
        for step in &ex.steps {
            match step {
                Step::Skipped { rule, why, .. } => {
                    if verbosity == Verbosity::Full {
                        s.push_str(&format!("  - {rule}: skipped by the index ({why})\n"));
                    }
                }
                Step::Broken { rule, errors, .. } => {
                    s.push_str(&format!("  ! {rule}: broken\n"));
                    for e in errors {
                        s.push_str(&format!("      {e}\n"));
                    }
                }
                Step::RuleStart {
                    policy,
                    rule,
                    priority,
                } => {
                    block.clear();
                    block.push(format!(
                        "  rule {rule} (policy {policy}, priority {priority})\n"
                    ));
                }
                Step::Condition {
                    depth,
                    test,
                    saw,
                    result,
                } => {
                    let mark = if *result { "✓" } else { "✗" };
                    let pad = "  ".repeat(*depth + 2);
                    let mut line = format!("{pad}{mark} {test}\n");
                    if !saw.is_empty() {
                        line.push_str(&format!("{pad}    saw {saw}\n"));
                    }
                    if verbosity == Verbosity::Full || !*result || *depth == 0 {
                        block.push(line);
                    }
                }
                Step::Capture { name, value } => {
                    block.push(format!("      capture {name} = {value:?}\n"))
                }
                Step::Fact {
                    name,
                    value,
                    failed,
                } => {
                    let what = if *failed { "FAILED" } else { "=" };
                    block.push(format!("      fact {name} {what} {value}\n"));
                }
                Step::RuleEnd { outcome, .. } => {
                    block.push(format!("    => {outcome}\n"));
                    for l in block.drain(..) {
                        s.push_str(&l);
                    }
                }
                Step::FirstMatchStop { policy, rule } => {
                    s.push_str(&format!("  first-match: policy {policy} stops at {rule}\n"));
                }
                Step::Combine { note } => s.push_str(&format!("\ncombine   {note}\n")),
            }
        }
    }
    if !ex.decision.context.is_empty() {
        s.push_str(&format!(
            "context   {}\n",
            indent(&ex.decision.context.join("\n\n"), 10)
        ));
    }
    if !ex.decision.messages.is_empty() {
        s.push_str(&format!(
            "message   {}\n",
            indent(&ex.decision.messages.join("\n"), 10)
        ));
    }
    for e in &ex.decision.errors {
        s.push_str(&format!("error     {e}\n"));
    }
    if !ex.effects.is_empty() {
        s.push_str(&format!("effects   {}\n", ex.effects.join("\n          ")));
    }
    s.push_str(&format!(
        "\noutput    (what `hookrules run` prints; exit {})\n{}\n",
        ex.exit,
        if ex.stdout.is_empty() {
            "(empty stdout)"
        } else {
            &ex.stdout
        }
    ));
    if !ex.stderr.is_empty() {
        s.push_str(&format!("stderr    {}\n", indent(&ex.stderr, 10)));
    }
    s
}

fn indent(text: &str, n: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(n)))
}
