//! The first hour of a new user, through the real binary (issue 27): the
//! behaviours a newcomer meets before reading the fine print.
//!
//! Data first: every folder of `tests/first_hour/` that holds `policies/` and
//! `fixtures/` is run with `hookrules test FOLDER` and must pass whole (headings as
//! people write them, …). The process-level contracts that a fixture cannot state
//! (exit statuses, stderr) are the functions below.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hookrules"))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// `hookrules ARGS` in `cwd`, with a clean environment and `home` as HOME.
fn hookrules(cwd: &Path, home: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(bin());
    c.args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home.join(".config"))
        .env("XDG_STATE_HOME", home.join(".local/state"))
        .env("HOOKRULES_CACHE", "off");
    c
}

/// The user trusts the project's policies as they are (`hookrules trust`, in
/// a terminal: script(1) gives it one). A project policy's exception for
/// someone else's rule is a loosening, applied only once trusted.
fn trust(p: &Project) {
    let line = format!("{} trust", bin().display());
    let out = Command::new("script")
        .args(["-qec", &line, "/dev/null"])
        .current_dir(&p.root)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("SHELL", "/bin/sh")
        .env("HOME", &p.home)
        .env("XDG_CONFIG_HOME", p.home.join(".config"))
        .env("XDG_STATE_HOME", p.home.join(".local/state"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

#[test]
fn every_first_hour_fixture_folder_passes_through_hookrules_test() {
    let home = tempfile::tempdir().unwrap();
    let mut folders = 0;
    for entry in std::fs::read_dir(root().join("tests/first_hour")).unwrap() {
        let dir = entry.unwrap().path();
        if !(dir.join("policies").is_dir() && dir.join("fixtures").is_dir()) {
            continue;
        }
        folders += 1;
        let out = hookrules(&root(), home.path(), &["test", dir.to_str().unwrap()])
            .output()
            .unwrap();
        let said = text(&out);
        assert!(out.status.success(), "{}:\n{said}", dir.display());
        assert!(
            said.contains(" passed, 0 failed") && !said.contains("\n0 passed"),
            "{}:\n{said}",
            dir.display()
        );
    }
    assert!(folders > 0, "no fixture folders under tests/first_hour");
}

/// A project folder (`.git`, `.claude/hookrules/NAME`) and a home beside it.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Project {
    fn new(policies: &[(&str, &str)]) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("shop");
        let home = base.join("home");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join(".claude/hookrules")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        for (name, text) in policies {
            std::fs::write(root.join(".claude/hookrules").join(name), text).unwrap();
        }
        Project {
            _dir: dir,
            root,
            home,
        }
    }
    fn hookrules(&self, args: &[&str]) -> Command {
        hookrules(&self.root, &self.home, args)
    }
}

/// One unclosed `[[rule]` is one problem: its keys are skipped with it instead of
/// each being "unknown in the file" (with a help line suggesting a wrong fix).
#[test]
fn an_unclosed_table_header_is_one_error_not_a_cascade() {
    let p = Project::new(&[(
        "release.toml",
        "[[rule]\nid = \"release-asks\"\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\n\
         when = { commands = \"tool_input.command\", command = { program = [\"npm\"], subcommand = [\"publish\"] } }\n\
         decision = \"ask\"\nreason = \"publishing\"\n",
    )]);
    let out = p.hookrules(&["check"]).output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("1 error(s), 0 warning(s)"), "{said}");
    assert!(said.contains("write the header as `[[rule]]`"), "{said}");
    assert!(!said.contains("unknown key"), "{said}");
}

/// `hookrules completions bash` prints a script that real bash completes with:
/// commands, and each command's options.
#[test]
fn completions_bash_completes_commands_and_options_in_bash() {
    let home = tempfile::tempdir().unwrap();
    let script = hookrules(&root(), home.path(), &["completions", "bash"])
        .output()
        .unwrap();
    assert!(script.status.success(), "{}", text(&script));
    let path = home.path().join("hookrules.bash");
    std::fs::write(&path, &script.stdout).unwrap();
    let complete = |words: &str| {
        let probe = format!(
            "source {}; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             COMP_LINE=\"${{COMP_WORDS[*]}}\"; COMP_POINT=${{#COMP_LINE}}; \
             _hookrules hookrules \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display()
        );
        let o = Command::new("bash")
            .args(["--norc", "-c", &probe])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let commands = complete("hookrules ch");
    assert_eq!(commands.trim(), "check", "{commands}");
    let all = complete("hookrules ''");
    for cmd in ["run", "explain", "test", "completions", "man"] {
        assert!(all.lines().any(|l| l == cmd), "{cmd} missing: {all}");
    }
    let options = complete("hookrules check --fo");
    assert_eq!(options.trim(), "--format", "{options}");
}

/// `hookrules man` prints hookrules(1); `--dir` writes a page per command that
/// `man` renders.
#[test]
fn man_pages_render_in_man() {
    let home = tempfile::tempdir().unwrap();
    let page = hookrules(&root(), home.path(), &["man"]).output().unwrap();
    assert!(page.status.success());
    let page = String::from_utf8_lossy(&page.stdout);
    assert!(page.contains(".TH hookrules 1"), "{page:.300}");
    for cmd in [
        "hookrules\\-check(1)",
        "hookrules\\-explain(1)",
        "hookrules\\-completions(1)",
    ] {
        assert!(page.contains(cmd), "{cmd} not listed");
    }
    let dir = home.path().join("man1");
    let o = hookrules(
        &root(),
        home.path(),
        &["man", "--dir", dir.to_str().unwrap()],
    )
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", text(&o));
    if Command::new("man").arg("--version").output().is_err() {
        eprintln!("no `man` here: rendering not checked");
        return;
    }
    let rendered = Command::new("man")
        .args(["-P", "cat", "-l"])
        .arg(dir.join("hookrules-check.1"))
        .env("MANWIDTH", "100")
        .output()
        .unwrap();
    let rendered = String::from_utf8_lossy(&rendered.stdout);
    assert!(
        rendered.contains("hookrules-check - Lint policies"),
        "{rendered}"
    );
    assert!(rendered.contains("--watch"), "{rendered}");
}

/// `init --command` names a program the hooks will run: one that cannot be found
/// or does not run is written (it may be installed next) with a warning, never
/// silently; the real binary gets none. Also for other agents' hook files.
#[test]
fn init_warns_about_a_command_it_cannot_find() {
    let p = Project::new(&[]);
    let me = bin();
    for (args, warned) in [
        (
            vec![
                "init",
                "--command",
                "hookrluse",
                "--client-version",
                "2.1.330",
            ],
            Some("`hookrluse` is not on PATH"),
        ),
        (
            vec![
                "init",
                "--command",
                "./bin/hookrules",
                "--client-version",
                "2.1.330",
            ],
            Some("does not exist"),
        ),
        (
            vec![
                "init",
                "--command",
                me.to_str().unwrap(),
                "--client-version",
                "2.1.330",
            ],
            None,
        ),
        (
            vec![
                "init",
                "--host",
                "gemini",
                "--command",
                "/opt/none/hookrules",
            ],
            Some("/opt/none/hookrules does not exist"),
        ),
        (
            vec![
                "init",
                "--host",
                "gemini",
                "--command",
                me.to_str().unwrap(),
            ],
            None,
        ),
    ] {
        let out = p
            .hookrules(&args)
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .output()
            .unwrap();
        let said = text(&out);
        assert!(out.status.success(), "{args:?}: {said}");
        match warned {
            Some(w) => assert!(
                said.lines()
                    .any(|l| l.contains("warning: --command: ") && l.contains(w)),
                "{args:?}: {said}"
            ),
            None => assert!(!said.contains("warning: --command"), "{args:?}: {said}"),
        }
    }
}

/// `hookrules run` in the project with `event` on stdin: (stdout as JSON or
/// Null, stderr).
fn run_event(p: &Project, event: &serde_json::Value) -> (serde_json::Value, String) {
    run_event_with(p, event, &[])
}

/// [`run_event`] with more environment.
fn run_event_with(
    p: &Project,
    event: &serde_json::Value,
    env: &[(&str, &str)],
) -> (serde_json::Value, String) {
    let out = crate::support::feed(
        p.hookrules(&["run"])
            .env("CLAUDE_PROJECT_DIR", &p.root)
            .envs(env.iter().copied()),
        event,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let json = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (json, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// A fail-closed policy with one typo hurts as little as it can while staying
/// safe (README, "Failure modes"): tool calls stay refused, except a write or
/// edit of the broken file itself; a Stop is blocked once and a continuing one
/// let go; a prompt and a session start go ahead, and the user is told the file,
/// the line and `hookrules check`.
#[test]
fn a_broken_policy_refuses_tool_calls_but_does_not_wedge_the_session() {
    use serde_json::json;
    let p = Project::new(&[(
        "team.toml",
        "[[rule]\nid = \"release-asks\"\nevents = [\"PreToolUse\"]\ndecision = \"ask\"\n",
    )]);
    let file = p.root.join(".claude/hookrules/team.toml");
    let base = |name: &str| json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": p.root, "hook_event_name": name});
    let with = |name: &str, extra: serde_json::Value| {
        let mut e = base(name);
        e.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        e
    };
    let told = |v: &serde_json::Value| {
        let m = v["systemMessage"].as_str().unwrap_or("");
        m.contains("policy `team` is broken")
            && m.contains("team.toml:1:")
            && m.contains("hookrules check")
    };
    let refused = |v: &serde_json::Value| {
        v["decision"] == "block" || v["hookSpecificOutput"]["permissionDecision"] == "deny"
    };
    // Tool calls: refused.
    for (tool, input) in [
        ("Bash", json!({"command": "ls"})),
        ("Read", json!({"file_path": p.root.join("README.md")})),
        (
            "Edit",
            json!({"file_path": p.root.join("src/main.rs"), "old_string": "a", "new_string": "b"}),
        ),
        // The broken file and another one in one call: no exception.
        (
            "Edit",
            json!({"file_path": [file.clone(), p.root.join("src/main.rs")], "old_string": "a", "new_string": "b"}),
        ),
    ] {
        let (v, _) = run_event(
            &p,
            &with(
                "PreToolUse",
                json!({"tool_name": tool, "tool_input": input}),
            ),
        );
        assert!(refused(&v), "{tool} {input}: {v}");
    }
    // The edit that fixes it: not refused by the broken policy; the built-in
    // self-protection pack still asks (it is hookrules' configuration).
    for (tool, input) in [
        (
            "Edit",
            json!({"file_path": file, "old_string": "[[rule]", "new_string": "[[rule]]"}),
        ),
        (
            "Write",
            json!({"file_path": ".claude/hookrules/team.toml", "content": "[[rule]]\n"}),
        ),
    ] {
        let (v, stderr) = run_event(
            &p,
            &with(
                "PreToolUse",
                json!({"tool_name": tool, "tool_input": input}),
            ),
        );
        assert_eq!(
            v["hookSpecificOutput"]["permissionDecision"], "ask",
            "{tool}: {v}"
        );
        assert!(!v.to_string().contains("is broken"), "{v}");
        assert!(
            stderr.contains("it writes only the broken policy file"),
            "{stderr}"
        );
    }
    // Stop: blocked once, then let go with a note.
    let (v, _) = run_event(&p, &with("Stop", json!({"stop_hook_active": false})));
    assert!(refused(&v), "{v}");
    let (v, _) = run_event(&p, &with("Stop", json!({"stop_hook_active": true})));
    assert!(!refused(&v) && told(&v), "{v}");
    let (v, _) = run_event(
        &p,
        &with(
            "SubagentStop",
            json!({"stop_hook_active": true, "agent_type": "x", "agent_id": "a"}),
        ),
    );
    assert!(!refused(&v) && told(&v), "{v}");
    // A prompt and a session start: never blocked, the user is told.
    let (v, _) = run_event(
        &p,
        &with("UserPromptSubmit", json!({"prompt": "fix the policy"})),
    );
    assert!(!refused(&v) && told(&v), "{v}");
    let (v, _) = run_event(&p, &with("SessionStart", json!({"source": "startup"})));
    assert!(!refused(&v) && told(&v), "{v}");
}

/// `check` shows every exception, and reports an exception entry it cannot
/// apply safely (a word only known at run time, two commands, a `!` path, a
/// variable other than $HOME/$PROJECT_DIR, nothing listed) as an error.
#[test]
fn check_lists_exceptions_and_rejects_entries_it_cannot_apply_safely() {
    let rule = |except: &str| {
        format!(
            "[[rule]]\nid = \"r\"\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\n\
             when = {{ commands = \"tool_input.command\", command = {{ program = [\"rm\"] }} }}\n\
             except = {except}\ndecision = \"deny\"\nreason = \"no\"\n"
        )
    };
    let p = Project::new(&[(
        "ok.toml",
        &rule("{ paths = [\"dist\"], commands = [\"rm -rf ./dist\"] }"),
    )]);
    let out = p.hookrules(&["check"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains("exceptions (cases a rule does not see):")
            && said.contains("rule r except paths [\"dist\"], commands [\"rm -rf ./dist\"]  (.claude/hookrules/ok.toml:6)"),
        "{said}"
    );
    for (bad, why) in [
        (
            "{ commands = [\"rm -rf $DIR\"] }",
            "only known when it runs",
        ),
        (
            "{ commands = [\"rm -rf a && rm -rf b\"] }",
            "2 commands, not one",
        ),
        (
            "{ commands = [\"rm -rf a > log\"] }",
            "not one plain command",
        ),
        ("{ paths = [\"!dist\"] }", "no `!` exclusions"),
        ("{ paths = [\"$TMPDIR/x\"] }", "only $PROJECT_DIR and $HOME"),
        ("{ }", "`except` lists nothing"),
    ] {
        let p = Project::new(&[("bad.toml", &rule(bad))]);
        let out = p.hookrules(&["check"]).output().unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(1), "{bad}: {said}");
        assert!(said.contains(why), "{bad}: {said}");
    }
}

/// An `[[override]]` narrows a built-in rule with `except`: `check` lists the
/// exception at the override's line and notes it on the rule, `explain` shows
/// what the rule did not see. A bad entry is the override file's error: `check`
/// points into that file, tool calls are refused (fail-closed) naming it, and
/// an edit of that file is the one tool call that goes ahead.
#[test]
fn an_override_narrows_a_built_in_rule_and_a_bad_one_breaks_its_own_file() {
    use serde_json::json;
    let team =
        "[[override]]\nrule = \"delete-outside-project\"\nexcept = { paths = [\"/srv/builds/**\"] }\n";
    let p = Project::new(&[("team.toml", team)]);
    trust(&p);
    let out = p.hookrules(&["check", "--rules"]).output().unwrap();
    let said = text(&out);
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(
            "rule delete-outside-project except paths [\"/srv/builds/**\"]  (.claude/hookrules/team.toml:3)"
        ) && said.contains("exception (paths [\"/srv/builds/**\"]) by an override in .claude/hookrules/team.toml (project)"),
        "{said}"
    );

    let bash = |command: &str| {
        json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": p.root,
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}})
    };
    // A home outside the project and outside /tmp (both are not "outside").
    let home = [("HOME", "/home/dev")];
    let event = p.root.join("event.json");
    let cache = "rm -rf /srv/builds/2025-01";
    std::fs::write(&event, bash(cache).to_string()).unwrap();
    let out = p
        .hookrules(&["explain", event.to_str().unwrap()])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .envs(home)
        .output()
        .unwrap();
    let said = text(&out);
    assert!(
        said.contains("/.claude/hookrules/team.toml:3)")
            && said.contains(&format!("not seen: {cache}")),
        "{said}"
    );
    let (v, _) = run_event_with(&p, &bash(cache), &home);
    assert_eq!(
        v,
        serde_json::Value::Null,
        "the exception is not applied: {v}"
    );
    let (v, _) = run_event_with(&p, &bash("rm -rf /srv/builds/2025-01 /srv/www/old"), &home);
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");

    let bad = team.replace("/srv/builds/**", "$TMPDIR/**");
    std::fs::write(p.root.join(".claude/hookrules/team.toml"), &bad).unwrap();
    // The user trusts the edited file too (untrusted, the override would be
    // left out whole, its bad entry with it).
    trust(&p);
    let out = p.hookrules(&["check"]).output().unwrap();
    let said = text(&out);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains("team.toml:3:") && said.contains("only $PROJECT_DIR and $HOME"),
        "{said}"
    );
    let (v, _) = run_event(&p, &bash("ls"));
    let why = v["hookSpecificOutput"]["permissionDecisionReason"].to_string();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    assert!(
        why.contains("team.toml:3:") && why.contains("hookrules check"),
        "{why}"
    );
    let fix = json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": p.root,
        "hook_event_name": "PreToolUse", "tool_name": "Edit",
        "tool_input": {"file_path": p.root.join(".claude/hookrules/team.toml"),
                       "old_string": "$TMPDIR", "new_string": "/srv/builds"}});
    let (v, stderr) = run_event(&p, &fix);
    assert_ne!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    assert!(
        stderr.contains("it writes only the broken policy file"),
        "{stderr}"
    );
}

/// Quick checks without JSON: `explain --bash/--read/--write/--edit` and `test
/// --bash CMD --expect X` judge the call as `run` would in the project the
/// current folder is in (a subfolder too: its own policies count), for every
/// agent `--host` names; `test` exits 1 when the decision is not the one
/// expected, 2 when the call cannot be built.
#[test]
fn quick_checks_judge_a_typed_call_in_the_current_project_for_every_host() {
    let p = Project::new(&[(
        "release.toml",
        "[[rule]]\nid = \"release-asks\"\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\n\
         when = { commands = \"tool_input.command\", command = { program = [\"npm\"], subcommand = [\"publish\"] } }\n\
         decision = \"ask\"\nreason = \"publishing\"\n",
    )]);
    let sub = p.root.join("packages/web");
    std::fs::create_dir_all(&sub).unwrap();
    let quick = |args: &[&str]| {
        let out = hookrules(&sub, &p.home, args).output().unwrap();
        (out.status.code(), text(&out))
    };
    let (code, said) = quick(&["explain", "--bash", "npm publish"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("decision  ask") && said.contains("by        release-asks"),
        "{said}"
    );
    let (code, said) = quick(&["explain", "--read", "../../.env", "-v", "summary"]);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains("decision  deny") && said.contains(&format!("{}/.env", p.root.display())),
        "{said}"
    );

    for host in ["claude", "codex", "gemini", "cursor", "copilot", "vscode"] {
        for (call, expect) in [
            (["--bash", "npm publish"], "ask"),
            (["--bash", "git reset --hard"], "deny"),
            (["--bash", "ls -la"], "allow"),
            (["--write", "/etc/cron.d/x"], "deny"),
            (["--edit", "index.ts"], "allow"),
        ] {
            let mut args = vec!["test", call[0], call[1], "--expect", expect, "--host", host];
            let (code, said) = quick(&args);
            assert_eq!(code, Some(0), "{args:?}: {said}");
            assert!(said.starts_with("ok "), "{args:?}: {said}");
            let wrong = if expect == "allow" { "deny" } else { "allow" };
            args[4] = wrong;
            let (code, said) = quick(&args);
            assert_eq!(code, Some(1), "{args:?}: {said}");
            assert!(
                said.starts_with("FAIL ") && said.contains(&format!("expected {wrong}")),
                "{args:?}: {said}"
            );
        }
    }
    let (code, said) = quick(&[
        "test", "--read", ".env", "--expect", "deny", "--host", "codex",
    ]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("Codex CLI has no file-read tool"), "{said}");
    let (code, said) = quick(&["test", "--bash", "ls"]);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("needs --expect"), "{said}");
}

/// `test` on a path that does not exist, or holds no fixture, fails with a
/// message naming it, also beside a folder that passes: a run that tested
/// nothing (a typo in CI) never goes green.
#[test]
fn test_on_a_path_with_no_fixtures_fails() {
    let p = Project::new(&[]);
    std::fs::create_dir_all(p.root.join("empty")).unwrap();
    std::fs::write(p.root.join("notes.txt"), "not a fixture").unwrap();
    let good = root().join("tests/first_hour/headings");
    for (args, named, why) in [
        (vec!["test", "fixturez"], "fixturez", "does not exist"),
        (vec!["test", "empty"], "empty", "no fixtures"),
        (vec!["test", "notes.txt"], "notes.txt", "no fixtures"),
        (
            vec!["test", good.to_str().unwrap(), "fixturez"],
            "fixturez",
            "does not exist",
        ),
    ] {
        let out = p.hookrules(&args).output().unwrap();
        let said = text(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {said}");
        assert!(
            said.contains(&format!("{named}: {why}")),
            "{args:?}: {said}"
        );
    }
    let out = p
        .hookrules(&["test", good.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
}

/// A known tool event without what its decision hinges on (a tool name, an
/// input object, a shell command as a string, a file tool's path) is answered
/// with the failure mode and a clear message on stderr, never allowed in
/// silence; the same calls well formed, and shapes agents really send (Codex's
/// argv array, a patch's list of paths), are judged as usual.
#[test]
fn a_malformed_tool_event_gets_the_failure_mode_not_silence() {
    use serde_json::json;
    let p = Project::new(&[]);
    let ev = |name: &str, extra: serde_json::Value| {
        let mut v = json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": p.root,
                           "hook_event_name": name});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        v
    };
    for (event, why) in [
        (
            ev("PreToolUse", json!({"tool_input": {"command": "ls"}})),
            "`tool_name` is missing",
        ),
        (
            ev("PreToolUse", json!({"tool_name": 7, "tool_input": {}})),
            "`tool_name` is a number",
        ),
        (
            ev("PreToolUse", json!({"tool_name": "Bash"})),
            "`tool_input` is missing",
        ),
        (
            ev(
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": "ls"}),
            ),
            "`tool_input` is a string",
        ),
        (
            ev(
                "PreToolUse",
                json!({"tool_name": "Bash", "tool_input": {"command": ["ls"]}}),
            ),
            "`tool_input.command` is an array",
        ),
        (
            ev("PreToolUse", json!({"tool_name": "Bash", "tool_input": {}})),
            "`tool_input.command` is missing",
        ),
        (
            ev(
                "PermissionRequest",
                json!({"tool_name": "Read", "tool_input": {"file_path": 5}}),
            ),
            "`tool_input.file_path` is a number",
        ),
        (
            ev(
                "PreToolUse",
                json!({"tool_name": "Write", "tool_input": {"content": "x"}}),
            ),
            "`tool_input.file_path` is missing",
        ),
    ] {
        let (v, stderr) = run_event(&p, &event);
        let refused = v["hookSpecificOutput"]["permissionDecision"] == "deny"
            || v["hookSpecificOutput"]["decision"]["behavior"] == "deny";
        assert!(refused, "{event}: {v}");
        assert!(
            stderr.contains("malformed") && stderr.contains(why),
            "{event}: {stderr}"
        );
    }
    let file = p.root.join("notes.md");
    for event in [
        ev(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}}),
        ),
        ev(
            "PreToolUse",
            json!({"tool_name": "Read", "tool_input": {"file_path": file}}),
        ),
        ev(
            "PreToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": ["ls", "-la"]},
                                "turn_id": "t1", "model": "gpt-5-codex"}),
        ),
        ev(
            "PreToolUse",
            json!({"tool_name": "Edit", "tool_input": {"file_path": [file, file],
                                "old_string": "a", "new_string": "b"}}),
        ),
        ev(
            "PostToolUse",
            json!({"tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_response": {}}),
        ),
        ev("Stop", json!({"stop_hook_active": false})),
    ] {
        let (v, stderr) = run_event(&p, &event);
        assert_eq!(v, serde_json::Value::Null, "{event}: {v} {stderr}");
        assert!(!stderr.contains("malformed"), "{event}: {stderr}");
    }
}

/// The latency in the decision log is the time hookrules took, not the time the
/// client took to write the event: a client that writes stdin 1.5 s after
/// starting the hook does not make the logged latency 1.5 s (before: it did,
/// and `report` showed medians of hundreds of ms for a 2 ms answer).
#[test]
fn logged_latency_leaves_out_the_wait_for_stdin() {
    use std::io::Write;
    let p = Project::new(&[]);
    let event = serde_json::json!({"session_id": "s", "transcript_path": "/tmp/t.jsonl",
        "cwd": p.root, "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "git reset --hard"}});
    let mut child = p
        .hookrules(&["run"])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    stdin.write_all(event.to_string().as_bytes()).unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("deny"));
    let out = p.hookrules(&["log", "--json"]).output().unwrap();
    let said = text(&out);
    let record: serde_json::Value = said
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no log record: {said}"));
    let us = record["us"].as_u64().unwrap_or_else(|| panic!("{record}"));
    // Counted, the wait alone is 1.5 s; the answer itself may take most of a
    // second on a loaded 2-core machine, so the bound is just below the wait.
    assert!(
        us < 1_400_000,
        "logged {us} µs: the 1.5 s wait for stdin is counted"
    );
}
