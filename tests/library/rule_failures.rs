//! A rule that fails is one typed value: `run`'s fail-closed reason, a
//! fail-open policy's reported error and `explain`'s trace are rendered from
//! it, so what they say cannot drift apart and a caller can ask what failed
//! (a `command` fact's timeout, say) without reading text.

use std::collections::BTreeMap;
use std::path::Path;

use hookrules::compile::set::{CompiledSet, Query};
use hookrules::contract::Event;
use hookrules::eval::facts::FactError;
use hookrules::eval::trace::{NoTrace, RuleOutcome, Step, Trace};
use hookrules::eval::{self, Ctx, EvalError, Outcome, RuleError};
use hookrules::policy::discover::Discovery;

/// Evaluate `ls` in Bash against one policy (no built-in pack), as `run` does
/// and as `explain` does.
fn evaluate(project: &Path, policy: &str) -> (Outcome, Outcome, Vec<Step>) {
    let dir = project.join("policies");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("p.toml"), policy).unwrap();
    let found = Discovery {
        flags: vec![dir],
        no_builtin: true,
        ..Discovery::default()
    }
    .find();
    let set = CompiledSet::build(&found);
    let event = Event::from_value(serde_json::json!({
        "session_id": "s", "cwd": project.display().to_string(),
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "ls"},
    }))
    .unwrap();
    let mut env = BTreeMap::new();
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        project.display().to_string(),
    );
    env.insert(
        "PATH".to_string(),
        std::env::var("PATH").unwrap_or_default(),
    );
    let ctx = Ctx::from_env(&event, env.into(), hookrules::os::clock::Now::at(0));
    let run = eval::evaluate(
        &set.for_event(&event, Query::default()),
        &event,
        &ctx,
        &mut NoTrace,
    );
    let mut trace = Trace::default();
    let explained = eval::evaluate(
        &set.for_event(
            &event,
            Query {
                prefilter: false,
                explain: true,
            },
        ),
        &event,
        &ctx,
        &mut trace,
    );
    (run, explained, trace.steps)
}

const SLOW: &str = r#"
[policy]
name = "slow"
failure = "FAILURE"

[facts.tests]
kind = "command"
argv = ["sleep", "5"]
timeout_ms = 200

[[rule]]
id = "needs-tests"
events = ["PreToolUse"]
matcher = "Bash"
when = { fact = "tests.ok", equals = false }
decision = "deny"
reason = "tests fail"
"#;

#[test]
fn a_command_fact_timeout_is_a_timeout_in_the_fail_closed_reason_and_the_trace() {
    let project = tempfile::tempdir().unwrap();
    let (run, explained, steps) = evaluate(project.path(), &SLOW.replace("FAILURE", "fail-closed"));
    let [failure] = &run.failures[..] else {
        panic!("one failure: {:?}", run.failures)
    };
    let RuleError::Condition(e) = &failure.error else {
        panic!("{failure:?}")
    };
    assert!(e.is_timeout(), "{e:?}");
    let EvalError::Fact {
        fact,
        cause: FactError::Timeout { argv, after_ms, .. },
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(
        (fact.as_str(), argv.join(" "), *after_ms),
        ("tests", "sleep 5".into(), 200)
    );
    // The block says so, from the same value.
    let reason = run.contributions[0].reason.clone().unwrap();
    assert_eq!(reason, failure.fail_closed_reason());
    assert!(
        reason
            .contains("rule `needs-tests` failed: fact `tests`: `sleep 5`: timed out after 200 ms"),
        "{reason}"
    );
    // `explain` evaluates the same way and ends the rule on the same error.
    assert_eq!(
        explained.contributions[0].reason.as_deref(),
        Some(reason.as_str())
    );
    let ended = steps.iter().find_map(|s| match s {
        Step::RuleEnd {
            outcome: RuleOutcome::Failed(e),
            ..
        } => Some(e),
        _ => None,
    });
    assert!(ended.is_some_and(EvalError::is_timeout), "{steps:?}");
    assert!(steps.iter().any(|s| matches!(
        s,
        Step::Fact { name, value, failed: true } if name == "tests" && value.starts_with("`sleep 5`: timed out")
    )));
}

#[test]
fn a_fail_open_policy_reports_the_same_failure_and_decides_nothing() {
    let project = tempfile::tempdir().unwrap();
    let (run, _, _) = evaluate(project.path(), &SLOW.replace("FAILURE", "fail-open"));
    assert!(run.contributions.is_empty(), "{:?}", run.contributions);
    let [failure] = &run.failures[..] else {
        panic!("one failure: {:?}", run.failures)
    };
    assert!(failure.eval_error().is_some_and(EvalError::is_timeout));
    assert_eq!(run.errors, vec![failure.fail_open_note()]);
}
