//! One evaluation for every command: for every fixture of every seed system in
//! `examples/`, `explain`, `test` and `replay` decide what `run` decided.
//!
//! The setup is a newcomer's: a project whose own policies sit in
//! `.claude/hookrules/`, and fixtures kept elsewhere. For each fixture:
//!
//! - `run`: the real binary, in the fixture's prepared project (its files, its
//!   environment, its clock), writing the decision log;
//! - `test`: what `hookrules test FIXTURE` runs for it (the project's policies
//!   installed in a fresh project);
//! - `explain`: `hookrules explain FIXTURE --format json`;
//! - `replay`: `hookrules replay LOG --json` over the line `run` logged, from
//!   the fixture's environment, in its project as it was before `run`
//!   (prepared again at the same path, since `run`'s side effects change it).
//!
//! Each must give `run`'s decision and determining rules.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use hookrules::cli::fixture::{project_policies, Fixture, Session};
use hookrules::cli::log::Paint;
use hookrules::cli::replay::{self, ReplayArgs};
use hookrules::cli::{explain, test, Format, Verbosity};
use hookrules::log::record::Record;
use hookrules::policy::discover::Discovery;
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_hookrules");

/// Every event logged, values uncut, so that replay reads what run judged.
const LOG_POLICY: &str = r#"
[policy]
name = "log-every-event"

[log]
events = "all"
max_value_chars = 1000000
"#;

fn fixtures(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            fixtures(&p, out);
        } else if p.extension().is_some_and(|x| x == "json") {
            out.push(p);
        }
    }
}

/// A decision as its kind and sorted determining rules.
fn said(kind: Option<&str>, rules: &[String]) -> String {
    let mut rules = rules.to_vec();
    rules.sort();
    format!("{} by [{}]", kind.unwrap_or("none"), rules.join(", "))
}

/// Copy a folder's `*.toml` files into a project's `.claude/hookrules/`.
fn install(policies: &Path, project: &Path) {
    let to = project.join(".claude/hookrules");
    std::fs::create_dir_all(&to).unwrap();
    for e in std::fs::read_dir(policies).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "toml") {
            std::fs::copy(&p, to.join(p.file_name().unwrap())).unwrap();
        }
    }
    std::fs::write(to.join("zz-log.toml"), LOG_POLICY).unwrap();
}

/// `run`, as the client runs it: the binary, the fixture's environment only;
/// returns the line it logged.
fn run(session: &Session, fx: &Fixture, log: &Path) -> Record {
    let mut cmd = Command::new(BIN);
    cmd.arg("run")
        .env_clear()
        .envs(session.env.vars())
        .env("HOOKRULES_LOG", log)
        // Agreement, not speed, is tested: a loaded machine must not turn a
        // decision into the deadline's answer.
        .env("HOOKRULES_DEADLINE_MS", "600000")
        .current_dir(&session.project)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(now) = fx.now {
        cmd.env("HOOKRULES_NOW", now.to_string());
    }
    let out = crate::support::feed_bytes(&mut cmd, session.event_text.as_bytes());
    let text = std::fs::read_to_string(log.join("decisions.jsonl")).unwrap_or_else(|e| {
        panic!(
            "run logged nothing ({e}); stdout {} stderr {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1, "one line per run: {text}");
    serde_json::from_str(lines[0]).unwrap()
}

/// One example as a user has it: a project whose own policies are the
/// example's, and the search, environment and policy folder that go with it.
struct Example {
    base: Discovery,
    env: BTreeMap<String, String>,
    install_dir: PathBuf,
}

impl Example {
    /// The user's project for the example `dir`, made under `scratch`.
    fn set_up(dir: &Path, scratch: &Path) -> Example {
        let user_project = scratch.join(dir.file_name().unwrap());
        install(&dir.join("policies"), &user_project);
        std::fs::create_dir_all(user_project.join("home")).unwrap();
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        env.insert(
            "CLAUDE_PROJECT_DIR".into(),
            user_project.display().to_string(),
        );
        env.insert(
            "HOME".into(),
            user_project.join("home").display().to_string(),
        );
        env.insert("PATH".into(), std::env::var("PATH").unwrap_or_default());
        let base = Discovery {
            project_dir: Some(user_project.clone()),
            user_dir: Some(user_project.join("home/.config/hookrules")),
            ..Discovery::default()
        };
        let install_dir = project_policies(&base).expect("the project's policies are found");
        Example {
            base,
            env,
            install_dir,
        }
    }
}

/// `run`, `replay`, `test` and `explain` for the fixture at `path` (the `n`th,
/// its log and kept state under `scratch`); each disagreement with `run` is
/// added to `disagreements`. Returns whether replay had only a redacted event.
fn check(
    ex: &Example,
    root: &Path,
    path: &Path,
    n: usize,
    scratch: &Path,
    disagreements: &mut Vec<String>,
) -> bool {
    let name = path.strip_prefix(root).unwrap().display().to_string();
    let fx = Fixture::read(path).unwrap();
    let mut approximate = false;

    // run, in the fixture's project; then the project made again as it
    // was before run (its side effects undone) for replay.
    let session = Session::open(&fx, &ex.base, Some(&ex.install_dir)).unwrap();
    let log = scratch.join("logs").join(n.to_string());
    let logged = run(&session, &fx, &log);
    let ran = said(logged.decision.map(|k| k.as_str()), &logged.rules);
    // The fixture's state folder (its key and the trust given to the
    // policies under test) is kept: replay judges under the trust run
    // had, else the project's policies are untrusted there.
    let state = session.project.join("home/.local/state/hookrules");
    let kept = scratch.join("state-kept").join(n.to_string());
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::rename(&state, &kept).unwrap();
    std::fs::remove_dir_all(&session.project).unwrap();
    std::fs::create_dir(&session.project).unwrap();
    install(&ex.install_dir, &session.project);
    fx.prepare(&session.project).unwrap();
    let _ = std::fs::remove_dir_all(&state);
    std::fs::create_dir_all(state.parent().unwrap()).unwrap();
    std::fs::rename(&kept, &state).unwrap();

    // replay the line run logged, from the fixture's environment (a
    // replay re-reads facts, so it runs where run ran).
    let args = ReplayArgs {
        log: Some(log.clone()),
        policies: vec![],
        since: None,
        fail_on: vec![],
        show: 30,
        json: true,
    };
    let (mut out, mut err) = (Vec::new(), Vec::new());
    replay::run(&args, &session.env, Paint(false), &mut out, &mut err);
    let r: Value = serde_json::from_slice(&out)
        .unwrap_or_else(|e| panic!("{name}: replay: {e}: {}", String::from_utf8_lossy(&err)));
    assert_eq!(r["replayed"], 1, "{name}: {r}");
    if let Some(c) = r["changes"].as_array().and_then(|c| c.first()) {
        let rules: Vec<String> = serde_json::from_value(c["now_rules"].clone()).unwrap();
        let replayed = said(c["now"].as_str(), &rules);
        if c["approximate"] == true {
            // Logged redacted (a secret in the event): replayed as logged.
            approximate = true;
        } else if replayed != ran {
            disagreements.push(format!("{name}: run {ran}, replay {replayed}"));
        }
    }
    drop(session);

    // test
    let (_, decision) = test::observe(&fx, &ex.base).unwrap();
    let tested = decision
        .map(|d| said(d.kind.map(|k| k.as_str()), &d.determined_by))
        .unwrap_or_else(|| "no decision".into());
    if tested != ran {
        disagreements.push(format!("{name}: run {ran}, test {tested}"));
    }

    // explain
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = explain::explain(
        path,
        &ex.base,
        &ex.env.clone().into(),
        Verbosity::Summary,
        Format::Json,
        &mut out,
        &mut err,
    );
    assert_eq!(code, 0, "{name}: {}", String::from_utf8_lossy(&err));
    let ex: Value = serde_json::from_slice(&out).unwrap();
    let rules: Vec<String> =
        serde_json::from_value(ex["decision"]["determined_by"].clone()).unwrap();
    let explained = said(ex["decision"]["kind"].as_str(), &rules);
    if explained != ran {
        disagreements.push(format!("{name}: run {ran}, explain {explained}"));
    }
    approximate
}

/// The fixtures are checked on every core: each worker has its own copy of
/// every example's user project under its own scratch folder, and each fixture
/// its own temporary project, log and kept state, so workers share no file.
#[test]
fn explain_test_and_replay_decide_what_run_decided() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("policies").is_dir() && p.join("fixtures").is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5, "the five seed systems: {dirs:?}");
    // Every fixture, as (its example, its path).
    let mut jobs: Vec<(usize, PathBuf)> = vec![];
    for (d, dir) in dirs.iter().enumerate() {
        let mut list = vec![];
        fixtures(&dir.join("fixtures"), &mut list);
        list.sort();
        jobs.extend(list.into_iter().map(|p| (d, p)));
    }
    let scratch = tempfile::tempdir().unwrap();
    let next = AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (dirs, jobs, next, root) = (&dirs, &jobs, &next, &root);
    let found: Vec<(usize, usize, Vec<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let scratch = scratch.path().join(format!("worker-{w}"));
                s.spawn(move || {
                    let examples: Vec<Example> =
                        dirs.iter().map(|d| Example::set_up(d, &scratch)).collect();
                    let (mut checked, mut approximate, mut disagreements) = (0, 0, vec![]);
                    while let Some((d, path)) = jobs.get(next.fetch_add(1, Relaxed)) {
                        let n = checked;
                        if check(&examples[*d], root, path, n, &scratch, &mut disagreements) {
                            approximate += 1;
                        }
                        checked += 1;
                    }
                    (checked, approximate, disagreements)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let checked: usize = found.iter().map(|f| f.0).sum();
    let approximate: usize = found.iter().map(|f| f.1).sum();
    let mut disagreements: Vec<String> = found.into_iter().flat_map(|f| f.2).collect();
    disagreements.sort();
    assert_eq!(checked, jobs.len(), "every fixture checked once");
    assert!(checked >= 300, "every example fixture: {checked}");
    assert!(
        approximate * 10 < checked,
        "{approximate} of {checked} replayed from a redacted event"
    );
    assert!(
        disagreements.is_empty(),
        "{} of {checked} fixtures decided differently:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
}
