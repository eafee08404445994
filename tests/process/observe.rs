//! The decision log, audit mode, `log`, `replay`, `report` and `allow`, tested on
//! logs written by the real `hookrules run` processes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use hookrules::log::record::Record;
use serde_json::{json, Value};

const BIN: &str = env!("CARGO_BIN_EXE_hookrules");

/// A project, a home and a state folder of its own; no user policies.
struct Sandbox {
    _tmp: tempfile::TempDir,
    root: PathBuf,
}

impl Sandbox {
    fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        for d in ["proj/.claude/hookrules", "home", "state", "config"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Sandbox { _tmp: tmp, root }
    }

    fn project(&self) -> PathBuf {
        self.root.join("proj")
    }

    /// Write a project policy, trusted by the user as written (these tests are
    /// about the log; `tests/process/trust.rs` is about trust).
    fn policy(&self, name: &str, text: &str) {
        let path = self.project().join(".claude/hookrules").join(name);
        std::fs::write(&path, text).unwrap();
        hookrules::policy::trust::Store::open(&self.root.join("state/hookrules"))
            .trust(&self.project(), &path, text, "test")
            .unwrap();
    }

    fn cmd(&self, args: &[&str]) -> Command {
        self.program(BIN, args)
    }

    fn program(&self, program: &str, args: &[&str]) -> Command {
        let mut c = Command::new(program);
        c.args(args)
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("XDG_STATE_HOME", self.root.join("state"))
            .env("XDG_CONFIG_HOME", self.root.join("config"))
            .env("CLAUDE_PROJECT_DIR", self.project())
            // These tests are about what the log records, not about the
            // deadline: a far one, so a loaded machine (fifty debug processes
            // at once) cannot turn a decision into the deadline's answer.
            .env("HOOKRULES_DEADLINE_MS", "60000");
        c
    }

    /// `hookrules run` with this event; the clock pinned at `now` when given.
    fn run(&self, event: &Value, now: Option<i64>) -> Output {
        let mut c = self.cmd(&["run"]);
        if let Some(t) = now {
            c.env("HOOKRULES_NOW", t.to_string());
        }
        crate::support::feed(&mut c, event)
    }

    /// Another `hookrules` command.
    fn hr(&self, args: &[&str], now: Option<i64>) -> Output {
        let mut c = self.cmd(args);
        if let Some(t) = now {
            c.env("HOOKRULES_NOW", t.to_string());
        }
        c.stdin(Stdio::null()).output().unwrap()
    }

    /// The log folder (the only project folder under the state home).
    fn log_dir(&self) -> PathBuf {
        let projects = self.root.join("state/hookrules/projects");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&projects)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        dirs.pop().unwrap()
    }

    fn records(&self) -> Vec<Record> {
        records_in(&self.log_dir())
    }
}

fn records_in(dir: &Path) -> Vec<Record> {
    let mut out = vec![];
    for line in hookrules::log::store::read_lines(dir).unwrap() {
        out.push(serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}")));
    }
    out
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn bash(cmd: &str, session: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": cmd, "description": "x"}, "tool_use_id": "toolu_1"})
}

fn tool(name: &str, input: Value, session: &str) -> Value {
    json!({"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": "PreToolUse", "tool_name": name,
        "tool_input": input, "tool_use_id": "toolu_2"})
}

/// The built-in pack plus a project rule that asks before `git push`.
const PROJECT: &str = r#"
[policy]
name = "project"
extends = ["builtin:destructive", "builtin:secrets"]

[[rule]]
id = "ask-before-push"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["git"], subcommand = ["push"] } }
decision = "ask"
reason = "Pushing needs a person."
"#;

const T0: i64 = 1_795_000_000; // 2026-11-18T...

#[test]
fn run_logs_decisions_not_silence_and_log_shows_them_newest_last_with_filters() {
    let sb = Sandbox::new();
    sb.policy("project.toml", PROJECT);
    let events = [
        (bash("rm -rf /", "s-one"), T0),
        (bash("ls -la", "s-one"), T0 + 60),
        (bash("git push origin main", "s-one"), T0 + 120),
        (
            tool("Read", json!({"file_path": "/tmp/.env"}), "s-two"),
            T0 + 3 * 3600,
        ),
        (bash("cat ~/.ssh/id_rsa", "s-two"), T0 + 4 * 3600),
    ];
    for (ev, t) in &events {
        let out = sb.run(ev, Some(*t));
        assert!(out.status.success());
    }
    let recs = sb.records();
    // `ls -la` got no decision: not logged.
    let words: Vec<(&str, String)> = recs
        .iter()
        .map(|r| (r.decision_word(), r.summary.clone().unwrap_or_default()))
        .collect();
    assert_eq!(
        words,
        vec![
            ("deny", "rm -rf /".to_string()),
            ("ask", "git push origin main".to_string()),
            ("deny", "/tmp/.env".to_string()),
            ("deny", "cat ~/.ssh/id_rsa".to_string()),
        ]
    );
    let r = &recs[0];
    assert_eq!(r.rules, vec!["delete-root-or-system"]);
    assert_eq!(r.policies, vec!["destructive"]);
    assert_eq!(r.session.as_deref(), Some("s-one"));
    assert_eq!(r.time, "2026-11-18T11:06:40.000Z");
    assert!(
        r.us > 0
            && r.reason
                .as_deref()
                .unwrap()
                .contains("the root or a system folder")
    );
    assert_eq!(
        r.input.as_ref().unwrap()["tool_input"]["command"],
        "rm -rf /"
    );
    assert_eq!(r.policy_hash.len(), 64, "a SHA-256 of the policy set");
    assert_eq!(r.project, sb.project().to_string_lossy());

    let now = Some(T0 + 5 * 3600);
    let table = stdout(&sb.hr(&["log"], now));
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("TIME (UTC)"), "{table}");
    assert!(
        lines[1].contains("deny")
            && lines[1].contains("delete-root-or-system")
            && lines[1].contains("rm -rf /"),
        "{table}"
    );
    assert!(
        lines[4].contains("cat ~/.ssh/id_rsa"),
        "newest last: {table}"
    );
    assert!(!table.contains("\x1b["), "plain in a pipe");

    let since = stdout(&sb.hr(&["log", "--since", "2h"], now));
    assert_eq!(
        since.lines().filter(|l| l.contains("PreToolUse")).count(),
        2,
        "{since}"
    );
    let asks = stdout(&sb.hr(&["log", "--decision", "ask"], now));
    assert!(
        asks.contains("ask-before-push") && !asks.contains("rm-recursive"),
        "{asks}"
    );
    let by_rule = stdout(&sb.hr(&["log", "--rule", "secret-*"], now));
    assert_eq!(
        by_rule.lines().filter(|l| l.contains("PreToolUse")).count(),
        2,
        "{by_rule}"
    );
    let by_session = stdout(&sb.hr(&["log", "--session", "s-tw"], now));
    assert_eq!(
        by_session
            .lines()
            .filter(|l| l.contains("PreToolUse"))
            .count(),
        2
    );
    let json_lines = stdout(&sb.hr(&["log", "--json", "-n", "1"], now));
    let last: Record = serde_json::from_str(json_lines.trim()).unwrap();
    assert_eq!(last.summary.as_deref(), Some("cat ~/.ssh/id_rsa"));
    let bad = sb.hr(&["log", "--decision", "maybe"], now);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected one of"));
}

#[test]
fn every_event_is_logged_when_configured_and_secret_fields_are_redacted() {
    let sb = Sandbox::new();
    sb.policy(
        "project.toml",
        &format!(
            "{PROJECT}\n[log]\nevents = \"all\"\nredact = [\"tool_input.content\"]\nmax_value_chars = 50\n"
        ),
    );
    // Wait out the cache's two-second window, so the runs below read the set
    // (and its [log] table) from the compiled artifact, as `run` does day to day.
    std::thread::sleep(std::time::Duration::from_millis(2200));
    sb.run(&bash("true", "s"), Some(T0 - 1));
    let cache = sb.root.join("home/.cache/hookrules");
    assert!(
        std::fs::read_dir(&cache).is_ok_and(|mut d| d.next().is_some()),
        "an artifact was written to {cache:?}"
    );
    sb.run(&bash("ls", "s"), Some(T0));
    sb.run(
        &tool(
            "Write",
            json!({"file_path": "/tmp/notes.md", "content": "db password is hunter2"}),
            "s",
        ),
        Some(T0 + 1),
    );
    sb.run(
        &bash(
            &format!(
                "echo {} && curl -H 'Authorization: Bearer eyJhbGciOi.x.y' https://api",
                "a".repeat(10)
            ),
            "s",
        ),
        Some(T0 + 2),
    );
    sb.run(&bash(&"x".repeat(500), "s"), Some(T0 + 3));
    let recs = sb.records();
    assert_eq!(recs.len(), 5, "every event, decisions or not");
    let recs = &recs[1..];
    assert_eq!(recs[0].decision, None);
    let write = recs[1].input.as_ref().unwrap();
    assert_eq!(write["tool_input"]["content"], "[redacted]");
    let raw = std::fs::read_to_string(sb.log_dir().join("decisions.jsonl")).unwrap();
    assert!(
        !raw.contains("hunter2") && !raw.contains("eyJhbGciOi"),
        "{raw}"
    );
    let long = recs[3].input.as_ref().unwrap()["tool_input"]["command"]
        .as_str()
        .unwrap();
    assert!(
        long.starts_with(&"x".repeat(50)) && long.contains("450 more bytes cut"),
        "{long}"
    );
}

#[test]
fn a_log_that_cannot_be_written_is_a_warning_and_changes_no_answer() {
    let sb = Sandbox::new();
    sb.policy("project.toml", PROJECT);
    let decision = |out: &Output| -> (Value, Value) {
        let v: Value = serde_json::from_str(&stdout(out)).unwrap();
        let h = &v["hookSpecificOutput"];
        (
            h["permissionDecision"].clone(),
            h["permissionDecisionReason"].clone(),
        )
    };
    let want = decision(&sb.run(&bash("rm -rf /", "s"), None));
    // A FIFO where the log file goes: the hook must neither hang nor change its answer.
    let dir = sb.log_dir();
    std::fs::remove_file(dir.join("decisions.jsonl")).unwrap();
    let c = std::ffi::CString::new(dir.join("decisions.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let started = std::time::Instant::now();
    let out = sb.run(&bash("rm -rf /", "s"), None);
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    assert_eq!(decision(&out), want);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("decision log") && err.contains("not a regular file"),
        "{err}"
    );
    // Off: nothing written, no warning.
    let sb = Sandbox::new();
    sb.policy(
        "project.toml",
        &format!("{PROJECT}\n[log]\nenabled = false\n"),
    );
    let out = sb.run(&bash("rm -rf /", "s"), None);
    assert_eq!(decision(&out), want);
    assert!(out.stderr.is_empty());
    // Allow-once still keeps its codes in the state folder; the log is off.
    assert!(sb.root.join("state/hookrules/allow/pending").is_dir());
    assert!(
        !sb.root.join("state/hookrules/projects").exists(),
        "no log folder"
    );
}

/// 50 hook processes at once, each logging 8 denials whose lines are longer than
/// 4 KiB (PIPE_BUF does not apply to regular files), while the file rotates
/// every few dozen lines: every line arrives, whole, exactly once.
#[test]
fn fifty_concurrent_writers_with_long_lines_and_rotation_lose_and_tear_nothing() {
    let sb = Sandbox::new();
    sb.policy(
        "guard.toml",
        r#"
[[rule]]
id = "deny-marked"
events = ["PreToolUse"]
matcher = "Bash"
when = { field = "tool_input.command", matches = ['^writer-'] }
decision = "deny"
reason = "marked"

[log]
max_bytes = 200000
keep = 1000
max_value_chars = 20000
"#,
    );
    const WRITERS: usize = 50;
    const EACH: usize = 8;
    let pad = "p".repeat(6000);
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let events: Vec<Value> = (0..EACH)
                .map(|i| bash(&format!("writer-{w:02}-{i} {pad}"), "s"))
                .collect();
            let cmds: Vec<Command> = (0..EACH).map(|_| sb.cmd(&["run"])).collect();
            std::thread::spawn(move || {
                for (mut c, ev) in cmds.into_iter().zip(events) {
                    let out = crate::support::feed(&mut c, &ev);
                    assert!(
                        out.stderr.is_empty(),
                        "{}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let dir = sb.log_dir();
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert!(files > 5, "the log rotated under load ({files} files)");
    let lines = hookrules::log::store::read_lines(&dir).unwrap();
    let mut seen = BTreeSet::new();
    for l in &lines {
        assert!(l.len() > 6000, "a whole line is longer than 4 KiB");
        let r: Record = serde_json::from_str(l).unwrap_or_else(|e| panic!("torn line ({e})"));
        let cmd = r.summary.unwrap();
        assert!(
            seen.insert(cmd[..11].to_string()),
            "duplicate {}",
            &cmd[..11]
        );
    }
    assert_eq!(seen.len(), WRITERS * EACH, "every line arrived");
}

#[test]
fn audit_rules_log_what_they_would_decide_and_let_the_action_go_ahead() {
    let sb = Sandbox::new();
    sb.policy(
        "project.toml",
        r#"
[policy]
name = "project"
extends = ["builtin:destructive"]
combine = "first-match"

[[rule]]
id = "no-npm-publish"
mode = "audit"
priority = 1
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "deny"
reason = "Publishing goes through CI."
context = "never shown: audit rules add nothing"

[[rule]]
id = "publish-note"
priority = 2
events = ["PreToolUse"]
matcher = "Bash"
when = { field = "tool_input.command", matches = ['publish'] }
context = "a later first-match rule still runs after an audit rule"

[[override]]
rule = "git-discard-work"
mode = "audit"
"#,
    );
    // The audit rule matches: no deny reaches the client, and the next
    // first-match rule still contributes.
    let out = sb.run(&bash("npm publish --access public", "s"), Some(T0));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"].get("permissionDecision"),
        None,
        "{answer}"
    );
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"],
        "a later first-match rule still runs after an audit rule"
    );
    // A built-in rule put in audit mode by an override.
    let out = sb.run(&bash("git reset --hard HEAD~3", "s"), Some(T0 + 1));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    // Enforced rules still enforce.
    let out = sb.run(&bash("rm -rf /", "s"), Some(T0 + 2));
    assert!(stdout(&out).contains("\"deny\""));

    let recs = sb.records();
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0].decision, None);
    assert_eq!(recs[0].audit[0].rule, "no-npm-publish");
    assert_eq!(
        recs[0].audit[0].reason.as_deref(),
        Some("Publishing goes through CI.")
    );
    assert_eq!(recs[1].audit[0].rule, "git-discard-work");
    assert!(recs[2].audit.is_empty());

    let table = stdout(&sb.hr(&["log"], None));
    assert!(
        table.contains("└ audit would deny  no-npm-publish"),
        "{table}"
    );
    let audits = stdout(&sb.hr(&["log", "--decision", "audit"], None));
    assert_eq!(
        audits.lines().filter(|l| l.contains("PreToolUse")).count(),
        2,
        "{audits}"
    );

    // explain shows the audit decision apart from the decision.
    let fixture = sb.root.join("publish.json");
    std::fs::write(&fixture, bash("npm publish", "s").to_string()).unwrap();
    let ex = stdout(&sb.hr(
        &["explain", fixture.to_str().unwrap(), "-v", "summary"],
        None,
    ));
    assert!(ex.contains("decision  none"), "{ex}");
    assert!(
        ex.contains("audit     would deny: no-npm-publish (policy project"),
        "{ex}"
    );
}

#[test]
fn a_policy_in_audit_mode_decides_nothing_and_a_rule_can_opt_back_in() {
    let sb = Sandbox::new();
    sb.policy(
        "rollout.toml",
        r#"
[policy]
mode = "audit"

[[rule]]
id = "no-curl"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["curl"] } }
decision = "deny"
reason = "no curl"

[[rule]]
id = "no-wget"
mode = "enforce"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["wget"] } }
decision = "deny"
reason = "no wget"
"#,
    );
    assert!(stdout(&sb.run(&bash("curl https://x", "s"), None)).is_empty());
    assert!(stdout(&sb.run(&bash("wget https://x", "s"), None)).contains("no wget"));
    let recs = sb.records();
    assert_eq!(recs[0].audit[0].rule, "no-curl");
    assert_eq!(recs[1].rules, vec!["no-wget"]);
}

#[test]
fn replay_shows_what_an_edited_policy_would_change_and_fails_on_the_lines_named() {
    let sb = Sandbox::new();
    sb.policy(
        "project.toml",
        &format!("{PROJECT}\n[log]\nevents = \"all\"\n"),
    );
    for (i, cmd) in [
        "rm -rf /",
        "git push origin main",
        "npm publish",
        "ls",
        "rm -rf /",
    ]
    .iter()
    .enumerate()
    {
        sb.run(&bash(cmd, "s"), Some(T0 + i as i64));
    }
    // Replaying under the same policies changes nothing.
    let same = sb.hr(&["replay", "--fail-on", "loosened,tightened,rules"], None);
    assert_eq!(same.status.code(), Some(0), "{}", stdout(&same));
    assert!(
        stdout(&same).contains("replayed 5 logged event(s)"),
        "{}",
        stdout(&same)
    );
    assert!(
        stdout(&same).contains("unchanged           5"),
        "{}",
        stdout(&same)
    );

    // The edit: pushing no longer asks, rm -rf / only asks, npm publish is denied.
    sb.policy(
        "project.toml",
        r#"
[policy]
name = "project"
extends = ["builtin:destructive", "builtin:secrets"]

[[rule]]
id = "no-npm-publish"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "deny"
reason = "CI publishes."

[[override]]
rule = "delete-root-or-system"
decision = "ask"

[log]
events = "all"
"#,
    );
    let out = sb.hr(&["replay"], None);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "no --fail-on: exit 0\n{text}");
    assert!(text.contains("unchanged           1"), "{text}");
    assert!(text.contains("loosened            3"), "{text}");
    assert!(text.contains("tightened           1"), "{text}");
    assert!(
        text.contains("delete-root-or-system            loosened 2"),
        "{text}"
    );
    assert!(
        text.contains("ask-before-push                  loosened 1"),
        "{text}"
    );
    assert!(
        text.contains("no-npm-publish                   tightened 1"),
        "{text}"
    );
    assert!(
        text.contains("deny  -> ask   delete-root-or-system -> delete-root-or-system,self-config-shell,delete-outside-project  rm -rf /"),
        "{text}"
    );
    assert_eq!(
        sb.hr(&["replay", "--fail-on", "loosened"], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        sb.hr(&["replay", "--fail-on", "tightened"], None)
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        sb.hr(&["replay", "--fail-on", "rules"], None).status.code(),
        Some(0)
    );
    let json: Value = serde_json::from_str(&stdout(&sb.hr(&["replay", "--json"], None))).unwrap();
    assert_eq!(json["counts"]["loosened"], 3);
    assert_eq!(json["per_rule"]["no-npm-publish"]["tightened"], 1);
    // The log itself is untouched by a replay.
    assert_eq!(sb.records().len(), 5);
}

fn allow_code(answer: &str) -> String {
    let v: Value = serde_json::from_str(answer).unwrap();
    let msg = v["systemMessage"]
        .as_str()
        .unwrap_or_else(|| panic!("no code: {answer}"));
    let at = msg.find("hookrules allow ").unwrap() + "hookrules allow ".len();
    msg[at..at + 9].to_string()
}

#[test]
fn allow_once_lets_exactly_the_denied_call_through_once_and_only_from_a_terminal() {
    let sb = Sandbox::new();
    sb.policy(
        "project.toml",
        r#"
[policy]
extends = ["builtin:destructive"]

[[rule]]
id = "no-deploy"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["make"], subcommand = ["deploy"] } }
decision = "deny"
reason = "Deploys go through CI."
"#,
    );
    let deploy = bash("make deploy ENV=staging", "s");
    let first = stdout(&sb.run(&deploy, Some(T0)));
    let v: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
    let code = allow_code(&first);
    // The code is for the user only: not in the reason the model reads, not in the log.
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap();
    assert!(!reason.contains(&code), "{reason}");
    let raw: String = std::fs::read_to_string(sb.log_dir().join("decisions.jsonl")).unwrap();
    assert!(!raw.contains(&code) && !raw.contains(&code.replace('-', "")));
    assert_eq!(sb.records()[0].allow.as_ref().unwrap().action, "issued");

    // The agent's way in: no terminal, or inside Claude Code.
    let piped = sb.hr(&["allow", &code], Some(T0 + 10));
    assert_eq!(piped.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&piped.stderr).contains("refused"));
    let inside = sb
        .program(
            "script",
            &["-qec", &format!("{BIN} allow {code}"), "/dev/null"],
        )
        .env("CLAUDECODE", "1")
        .env("HOOKRULES_NOW", (T0 + 10).to_string())
        .output()
        .unwrap();
    assert_eq!(inside.status.code(), Some(3), "{inside:?}");

    // The user, in a terminal (a real pty from `script`).
    let user = sb
        .program(
            "script",
            &[
                "-qec",
                &format!("{BIN} allow {}", code.to_lowercase()),
                "/dev/null",
            ],
        )
        .env("USER", "alice")
        .env("HOOKRULES_NOW", (T0 + 20).to_string())
        .output()
        .unwrap();
    assert_eq!(user.status.code(), Some(0), "{user:?}");
    assert!(stdout(&user).contains("allowed once"), "{}", stdout(&user));
    // The code is spent.
    let again = sb
        .program(
            "script",
            &["-qec", &format!("{BIN} allow {code}"), "/dev/null"],
        )
        .env("HOOKRULES_NOW", (T0 + 21).to_string())
        .output()
        .unwrap();
    assert_ne!(again.status.code(), Some(0));

    // Another call is still denied; the allowed one goes through once.
    let other = stdout(&sb.run(&bash("make deploy ENV=production", "s"), Some(T0 + 30)));
    assert!(other.contains("\"deny\""), "{other}");
    let through = stdout(&sb.run(&deploy, Some(T0 + 40)));
    let v: Value = serde_json::from_str(&through).unwrap();
    assert_eq!(
        v["hookSpecificOutput"].get("permissionDecision"),
        None,
        "{through}"
    );
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .contains("allowed once by alice@"),
        "{through}"
    );
    let once_more = stdout(&sb.run(&deploy, Some(T0 + 50)));
    assert!(once_more.contains("\"deny\""), "only once: {once_more}");

    // The log says who allowed what.
    let recs = sb.records();
    let granted = recs
        .iter()
        .find(|r| r.kind == hookrules::log::record::Kind::Allow)
        .unwrap();
    assert!(granted
        .allow
        .as_ref()
        .unwrap()
        .by
        .as_deref()
        .unwrap()
        .starts_with("alice@"));
    assert_eq!(granted.summary.as_deref(), Some("make deploy ENV=staging"));
    // Like every line, the grant has its own id, which a collector uses to
    // drop a record delivered twice.
    assert_eq!(granted.id.len(), 26, "{granted:?}");
    assert!(recs
        .iter()
        .all(|r| r.id != granted.id || std::ptr::eq(r, granted)));
    let used = recs
        .iter()
        .find(|r| r.allow.as_ref().is_some_and(|a| a.action == "used"))
        .unwrap();
    assert_eq!(used.decision, None);
    let table = stdout(&sb.hr(&["log"], None));
    assert!(
        table.contains("allowed") && table.contains("└ allow-once used by alice@"),
        "{table}"
    );

    // A code lapses.
    let late = stdout(&sb.run(&bash("make deploy ENV=dev", "s"), Some(T0 + 100)));
    let code = allow_code(&late);
    let lapsed = sb
        .program(
            "script",
            &["-qec", &format!("{BIN} allow {code}"), "/dev/null"],
        )
        .env("HOOKRULES_NOW", (T0 + 100 + 16 * 60).to_string())
        .output()
        .unwrap();
    assert!(stdout(&lapsed).contains("lapsed"), "{lapsed:?}");
}

#[test]
fn the_default_pack_denies_the_agent_allowing_itself_or_writing_hookrules_state() {
    let sb = Sandbox::new();
    for cmd in [
        "hookrules allow K7QX-2MPD",
        "sudo ~/.cargo/bin/hookrules allow K7QX2MPD",
        "bash -c 'hookrules allow K7QX-2MPD'",
        "python3 -c 'import subprocess; subprocess.run([\"hookrules\", \"allow\", \"K7QX2MPD\"])'",
        "script -qc 'hookrules allow K7QX2MPD' /dev/null",
        "echo '{}' > ~/.local/state/hookrules/projects/p/allow/granted/abc.json",
        "cp /tmp/g.json ~/.local/state/hookrules/projects/p/allow/granted/",
    ] {
        let out = stdout(&sb.run(&bash(cmd, "s"), None));
        assert!(
            out.contains("\"deny\"") && out.contains("self-"),
            "{cmd}: {out}"
        );
    }
    let home = sb.root.join("home");
    let write = tool(
        "Write",
        json!({"file_path": home.join(".local/state/hookrules/projects/p/allow/granted/x.json"), "content": "{}"}),
        "s",
    );
    let mut write = write;
    write["cwd"] = json!(home);
    assert!(stdout(&sb.run(&write, None)).contains("self-state-tool"));
    for fine in [
        "hookrules log --decision deny",
        "grep -rn 'hookrules allow' README.md",
        "cat ~/.local/state/hookrules/projects/p/decisions.jsonl",
    ] {
        let out = stdout(&sb.run(&bash(fine, "s"), None));
        assert!(!out.contains("\"deny\""), "{fine}: {out}");
    }
}
