//! `hookrules explain FIXTURE`: how an event is decided, from the same evaluator
//! `run` uses, with a recording tracer. Nothing is written: side effects are
//! listed, not run.

use crate::os::env::Env;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::cli::fixture::{project_policies, Fixture, Session};
use crate::contract::Event;
use crate::engine::{self, Set, World};
use crate::eval::trace::{RuleOutcome, Step, Trace};
use crate::os::clock::Now;
use crate::policy::discover::Discovery;

use super::{style, Format, Verbosity};

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

/// Explain one event: judged by the engine ([`crate::engine::judge`]), as `run`
/// judges it, with a recording tracer.
pub fn explanation(event: &Event, discovery: &Discovery, env: &Env, now: Now) -> Explanation {
    let set = Set::build(discovery);
    let mut trace = Trace::default();
    let judged = engine::judge(&set, event, World::new(env, now), &mut trace);
    let compiled = &judged.compiled;
    Explanation {
        event: event.name.clone(),
        policies: compiled
            .buckets
            .iter()
            .map(|b| b.policy.source.display_name())
            .collect(),
        steps: trace.steps,
        effects: judged
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
        decision: judged.decision,
        stdout: judged.answer.stdout,
        stderr: judged.answer.stderr,
        exit: judged.answer.exit,
    }
}

/// Explain a fixture: a full fixture exactly as `hookrules test` runs it (the
/// same [`Session`]: a fresh temporary project with its files and the
/// project's own policies, `$PROJECT_DIR` replaced, its own home, no user
/// layer); a bare event in the real project, as `run` would see it.
fn explain_fixture(fx: &Fixture, discovery: &Discovery, env: &Env) -> Result<Explanation, String> {
    // A malformed event is not judged by any rule: `run` answers it with the
    // failure mode (see `Event::check_shape`), and explain says so.
    let shaped = |event: Event| {
        event.check_shape().map_err(|e| {
            format!("{e}; `hookrules run` answers it with the failure mode, before any rule")
        })?;
        Ok::<Event, String>(event)
    };
    if fx.bare {
        let event = Event::from_value(fx.event.clone()).map_err(|e| e.to_string())?;
        let event = shaped(event)?;
        return Ok(explanation(&event, discovery, env, Now::from_env(env)));
    }
    let install = project_policies(discovery);
    let session = Session::open(fx, discovery, install.as_deref())?;
    let value: serde_json::Value =
        serde_json::from_str(&session.event_text).map_err(|e| e.to_string())?;
    let event = shaped(Event::from_value(value).map_err(|e| e.to_string())?)?;
    Ok(explanation(
        &event,
        &session.discovery,
        &session.env,
        session.now.clone(),
    ))
}

/// Run `explain` and print. `fixture` is a file, or `-` for stdin; `rule`
/// narrows the trace to one rule, shown in full.
#[allow(clippy::too_many_arguments)]
pub fn explain(
    fixture: &Path,
    discovery: &Discovery,
    env: &Env,
    verbosity: Verbosity,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    explain_with(
        &Subject::Fixture(fixture.to_path_buf()),
        None,
        &mut std::io::empty(),
        discovery,
        env,
        verbosity,
        format,
        out,
        err,
    )
}

/// [`explain`], with a rule filter and the stdin to read `-` from.
#[allow(clippy::too_many_arguments)]
pub fn explain_with(
    subject: &Subject,
    rule: Option<&str>,
    stdin: &mut dyn std::io::Read,
    discovery: &Discovery,
    env: &Env,
    verbosity: Verbosity,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let fixture = match subject {
        Subject::Fixture(f) => f.as_path(),
        Subject::Call(args) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            let event = args
                .call(&cwd)
                .ok_or_else(|| "name a fixture, or a call: --bash, --read, --write, --edit".into())
                .and_then(|call| super::quick::event(&call, args.host.as_deref(), &cwd));
            return match event {
                Ok(event) => {
                    let ex = explanation(&event, discovery, env, Now::from_env(env));
                    print(&ex, rule, verbosity, format, out, err)
                }
                Err(e) => {
                    let _ = writeln!(err, "hookrules explain: {e}");
                    2
                }
            };
        }
    };
    let read = if fixture == Path::new("-") {
        let mut text = String::new();
        stdin
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read stdin: {e}"))
            .and_then(|_| Fixture::parse(&text).map_err(|e| format!("stdin: {e}")))
    } else {
        Fixture::read(fixture)
    };
    let fx = match read {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "hookrules explain: {e}");
            return 2;
        }
    };
    match explain_fixture(&fx, discovery, env) {
        Ok(ex) => print(&ex, rule, verbosity, format, out, err),
        Err(e) => {
            let _ = writeln!(err, "hookrules explain: {}: {e}", fixture.display());
            2
        }
    }
}

/// What `explain` explains: a fixture file (`-`: stdin), or a call named on
/// the command line (`--bash CMD`, …; see [`super::quick`]).
#[derive(Debug, Clone)]
pub enum Subject {
    /// A fixture.
    Fixture(std::path::PathBuf),
    /// A call.
    Call(super::quick::QuickArgs),
}

/// Print an explanation (all of it, or one rule), in a format.
fn print(
    ex: &Explanation,
    rule: Option<&str>,
    verbosity: Verbosity,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if let Some(id) = rule {
        let known = rule_ids(ex);
        if !known.iter().any(|k| k == id) {
            let near = crate::diagnostics::did_you_mean(id, known.iter().map(|s| s.as_str()));
            let _ = writeln!(
                err,
                "hookrules explain: no rule `{id}` in the policies{}",
                match near {
                    Some(n) => format!("; did you mean `{n}`?"),
                    None => " (`hookrules check --rules` lists them)".into(),
                }
            );
            return 2;
        }
    }
    match format {
        Format::Json => {
            let _ = writeln!(
                out,
                "{}",
                serde_json::to_string_pretty(ex).unwrap_or_default()
            );
        }
        Format::Human => {
            let _ = write!(out, "{}", render_for(ex, verbosity, rule));
        }
    }
    0
}

/// Every rule id the trace mentions.
fn rule_ids(ex: &Explanation) -> Vec<String> {
    let mut ids: Vec<String> = ex
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Skipped { rule, .. }
            | Step::Broken { rule, .. }
            | Step::RuleStart { rule, .. } => Some(rule.clone()),
            _ => None,
        })
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

/// One evaluated rule's part of the trace.
struct Block<'a> {
    header: String,
    steps: Vec<&'a Step>,
    outcome: Option<&'a RuleOutcome>,
}

impl Block<'_> {
    fn matched(&self) -> bool {
        matches!(self.outcome, Some(RuleOutcome::Matched))
    }
    fn failed(&self) -> bool {
        matches!(self.outcome, Some(RuleOutcome::Failed(_)))
    }
    /// How it ended, as the trace writes it.
    fn outcome(&self) -> String {
        self.outcome.map(|o| o.to_string()).unwrap_or_default()
    }
    /// Did some test of the rule hold, a command get past its program, or its
    /// exception take a case out? Then it came close.
    fn close(&self) -> bool {
        !self.matched()
            && self.steps.iter().any(|s| match s {
                Step::Condition { result: true, .. } => true,
                Step::Condition { saw, .. } => saw.contains("(program ✓"),
                Step::Except { not_seen, .. } => !not_seen.is_empty(),
                _ => false,
            })
    }
}

/// The human form of an explanation.
pub fn render(ex: &Explanation, verbosity: Verbosity) -> String {
    render_for(ex, verbosity, None)
}

/// The human form, narrowed to one rule (shown in full) when `rule` is given.
pub fn render_for(ex: &Explanation, verbosity: Verbosity, rule: Option<&str>) -> String {
    let mut s = String::new();
    s.push_str(&format!("event     {}\n", ex.event));
    s.push_str(&format!("policies  {}\n", ex.sources.join(", ")));
    let decision = ex
        .decision
        .kind
        .map(|k| k.as_str())
        .unwrap_or("none (no opinion)");
    s.push_str(&format!("decision  {}\n", style::decision(decision)));
    if !ex.decision.determined_by.is_empty() {
        s.push_str(&format!(
            "by        {}\n",
            ex.decision.determined_by.join(", ")
        ));
    }
    if let Some(r) = &ex.decision.reason {
        s.push_str(&format!("reason    {}\n", indent(r, 10)));
    }
    // Audit rules decide nothing; what they would have decided is shown apart.
    for a in &ex.decision.audit {
        let would = a.decision.map(|k| k.as_str()).unwrap_or("none");
        s.push_str(&format!(
            "audit     would {would}: {} (policy {}, mode = \"audit\": the action goes ahead)\n",
            a.rule, a.policy
        ));
        if let Some(r) = &a.reason {
            s.push_str(&format!("          {}\n", indent(r, 10)));
        }
    }
    match (rule, verbosity) {
        (Some(id), _) => {
            s.push_str(&format!("\nrule {id}\n"));
            trace(ex, &mut s, Verbosity::Full, Some(id));
        }
        (None, Verbosity::Summary) => {}
        (None, Verbosity::Close) => close_view(ex, &mut s),
        (None, v) => {
            s.push_str("\ntrace\n");
            trace(ex, &mut s, v, None);
        }
    }
    tail(ex, &mut s);
    s
}

/// The default view: the rules that matched (with the tests that held), the
/// rules that came close (some test held), errors, and a count of the rest.
fn close_view(ex: &Explanation, s: &mut String) {
    let blocks = blocks(ex);
    let skipped = ex
        .steps
        .iter()
        .filter(|st| matches!(st, Step::Skipped { .. }))
        .count();
    for st in &ex.steps {
        if let Step::Broken { rule, errors, .. } = st {
            s.push_str(&format!("\nbroken    {rule}\n"));
            for e in errors {
                s.push_str(&format!("          {e}\n"));
            }
        }
    }
    let matched: Vec<&Block> = blocks
        .iter()
        .filter(|b| b.matched() || b.failed())
        .collect();
    let close: Vec<&Block> = blocks.iter().filter(|b| b.close() && !b.failed()).collect();
    s.push_str("\nmatched   ");
    if matched.is_empty() {
        s.push_str("no rule\n");
    }
    for (i, b) in matched.iter().enumerate() {
        if i > 0 {
            s.push_str("          ");
        }
        s.push_str(&format!("{}  => {}\n", b.header, b.outcome()));
        let held = b
            .steps
            .iter()
            .filter(|st| matches!(st, Step::Condition { result: true, .. }));
        for st in held.take(4) {
            if let Step::Condition { test, saw, .. } = st {
                s.push_str(&format!(
                    "            {} {}\n",
                    style::good("✓"),
                    short(test, 110)
                ));
                if !saw.is_empty() {
                    s.push_str(&format!("                saw {}\n", short(saw, 100)));
                }
            }
        }
        for st in &b.steps {
            match st {
                Step::Capture { name, value } => {
                    s.push_str(&format!("            capture {name} = {value:?}\n"))
                }
                Step::Except { at, not_seen } => except_lines(s, at, not_seen, "            "),
                _ => {}
            }
        }
    }
    if !close.is_empty() {
        s.push_str("close     ");
        for (i, b) in close.iter().enumerate() {
            if i > 0 {
                s.push_str("          ");
            }
            s.push_str(&format!("{}  => {}\n", b.header, b.outcome()));
            for st in &b.steps {
                if let Step::Condition {
                    test, saw, result, ..
                } = st
                {
                    let mark = if *result {
                        style::good("✓")
                    } else {
                        style::bad("✗")
                    };
                    s.push_str(&format!("            {mark} {}\n", short(test, 110)));
                    if !*result && !saw.is_empty() {
                        s.push_str(&format!("                saw {}\n", short(saw, 100)));
                    }
                }
                if let Step::Except { at, not_seen } = st {
                    except_lines(s, at, not_seen, "            ");
                }
            }
        }
    }
    let rest = blocks.len() - matched.len() - close.len();
    s.push_str(&format!(
        "others    {rest} rule(s) evaluated with no test holding, {skipped} not for this event or tool; `-v` shows every rule, `--rule ID` one\n"
    ));
    if let Some(Step::Combine { note }) = ex
        .steps
        .iter()
        .rev()
        .find(|st| matches!(st, Step::Combine { .. }))
    {
        s.push_str(&format!("\ncombine   {note}\n"));
    }
}

fn blocks(ex: &Explanation) -> Vec<Block<'_>> {
    let mut out = vec![];
    let mut cur: Option<Block> = None;
    for st in &ex.steps {
        match st {
            Step::RuleStart {
                policy,
                rule,
                priority,
            } => {
                cur = Some(Block {
                    header: format!("{rule} (policy {policy}, priority {priority})"),
                    steps: vec![],
                    outcome: None,
                })
            }
            Step::RuleEnd { outcome, .. } => {
                if let Some(mut b) = cur.take() {
                    b.outcome = Some(outcome);
                    out.push(b);
                }
            }
            other => {
                if let Some(b) = cur.as_mut() {
                    b.steps.push(other);
                }
            }
        }
    }
    out
}

/// The trace, at a verbosity (`Failures`: every evaluated rule with the tests
/// that failed; `Full`: everything), optionally of one rule only.
fn trace(ex: &Explanation, s: &mut String, verbosity: Verbosity, only: Option<&str>) {
    let mut block: Vec<String> = vec![];
    let mut current: Option<&str> = None;
    let keep = |rule: &str| only.is_none_or(|o| o == rule);
    for step in &ex.steps {
        match step {
            Step::Skipped { rule, why, .. } => {
                if verbosity == Verbosity::Full && keep(rule) {
                    s.push_str(&format!("  - {rule}: skipped by the index ({why})\n"));
                }
            }
            Step::Broken { rule, errors, .. } => {
                if keep(rule) {
                    s.push_str(&format!("  ! {rule}: broken\n"));
                    for e in errors {
                        s.push_str(&format!("      {e}\n"));
                    }
                }
            }
            Step::RuleStart {
                policy,
                rule,
                priority,
            } => {
                current = Some(rule);
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
                let mark = if *result {
                    style::good("✓")
                } else {
                    style::bad("✗")
                };
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
            Step::Except { at, not_seen } => {
                let mut lines = String::new();
                except_lines(&mut lines, at, not_seen, "    ");
                block.push(lines);
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
                if current.is_some_and(keep) {
                    for l in block.drain(..) {
                        s.push_str(&l);
                    }
                }
                block.clear();
                current = None;
            }
            Step::FirstMatchStop { policy, rule } => {
                if keep(rule) {
                    s.push_str(&format!("  first-match: policy {policy} stops at {rule}\n"));
                }
            }
            Step::Combine { note } => s.push_str(&format!("\ncombine   {note}\n")),
        }
    }
}

/// A rule's exception, and what it took out of this event.
fn except_lines(s: &mut String, at: &str, not_seen: &[String], pad: &str) {
    s.push_str(&format!("{pad}except ({at})\n"));
    if not_seen.is_empty() {
        s.push_str(&format!("{pad}    nothing in this event is listed\n"));
    }
    for n in not_seen {
        s.push_str(&format!("{pad}    not seen: {}\n", short(n, 100)));
    }
}

/// Context, messages, errors, effects and the exact output.
fn tail(ex: &Explanation, s: &mut String) {
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
}

/// A long test description or value, shortened for the default view.
fn short(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut t: String = text.chars().take(max).collect();
    t.push('…');
    t
}

fn indent(text: &str, n: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(n)))
}
