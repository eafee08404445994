//! `hookrules init` / `hookrules uninstall` against real files in temporary folders,
//! called in-process with their own environment (and one run of the real binary).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use hookrules::cli::check;
use hookrules::cli::init::{
    self, events_for, unified_diff, Context, InitArgs, UninstallArgs, STARTER_POLICY,
};
use hookrules::policy::discover::{Discovery, Selection};
use serde_json::Value;

/// A temporary machine: a project, a home, and a hookrules binary outside the project.
struct Machine {
    _dir: tempfile::TempDir,
    root: PathBuf,
    project: PathBuf,
    home: PathBuf,
    exe: PathBuf,
}

impl Machine {
    fn new() -> Machine {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (project, home, bin) = (root.join("project"), root.join("home"), root.join("bin"));
        for d in [&project, &home, &bin] {
            fs::create_dir_all(d).unwrap();
        }
        let exe = bin.join("hookrules");
        fs::write(&exe, "").unwrap();
        Machine {
            _dir: dir,
            root,
            project,
            home,
            exe,
        }
    }

    /// No `claude` on PATH.
    fn ctx(&self) -> Context {
        let env: BTreeMap<String, String> = [
            ("CLAUDE_PROJECT_DIR", self.project.to_str().unwrap()),
            ("HOME", self.home.to_str().unwrap()),
            ("PATH", ""),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        Context {
            env: env.into(),
            cwd: self.project.clone(),
            exe: Some(self.exe.clone()),
        }
    }

    fn settings(&self) -> PathBuf {
        self.project.join(".claude/settings.json")
    }

    fn starter(&self) -> PathBuf {
        self.project.join(".claude/hookrules/project.toml")
    }
}

fn exe_str(m: &Machine) -> String {
    m.exe.to_str().unwrap().to_string()
}

fn init_with(ctx: &Context, args: &InitArgs) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = init::init(args, ctx, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn uninstall_with(ctx: &Context, args: &UninstallArgs) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = init::uninstall(args, ctx, &mut out, &mut err);
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(p).unwrap()).unwrap()
}

fn event_keys(settings: &Value) -> Vec<String> {
    settings["hooks"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect()
}

/// Handlers of one event whose command is `command`.
fn ours<'v>(settings: &'v Value, event: &str, command: &str) -> Vec<&'v Value> {
    settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().unwrap())
        .filter(|h| h["command"] == command)
        .collect()
}

/// Pretty JSON the way serde_json writes it (two spaces, trailing newline).
fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap() + "\n"
}

/// A settings file with other hooks, other commands in hookrules' events, and keys
/// hookrules knows nothing about, in a deliberate (non-alphabetical) order.
fn existing_settings() -> Value {
    serde_json::from_str(
        r#"{
  "model": "opus",
  "permissions": { "allow": ["Bash(cargo test:*)"], "deny": ["Read(./.env)"] },
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ],
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "/opt/guard.sh", "timeout": 5, "statusMessage": "guarding" } ] },
      { "matcher": "Write|Edit", "hooks": [ { "type": "prompt", "prompt": "check $ARGUMENTS" } ] }
    ],
    "WorktreeCreate": [ { "hooks": [ { "type": "command", "command": "/opt/jj-worktree" } ] } ],
    "FutureEvent": [ { "hooks": [ { "type": "command", "command": "x" } ] } ]
  },
  "zzzUnknown": { "b": 1, "a": [true, null, 1.5] },
  "env": { "FOO": "bar" }
}"#,
    )
    .unwrap()
}

// ---------------------------------------------------------------------------

#[test]
fn empty_project_gets_every_event_and_a_starter_that_keeps_the_pack() {
    let m = Machine::new();
    let (code, out, err) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0, "{out}{err}");
    let s = read_json(&m.settings());
    let expected = events_for(None);
    assert_eq!(event_keys(&s), expected);
    assert_eq!(
        expected.len(),
        28,
        "2.1.197's 30 events minus the worktree pair"
    );
    for e in ["PreModelSwitch", "PostModelSwitch", "DirectoryAdded"] {
        assert!(
            !expected.contains(&e),
            "{e} needs a known client >= 2.1.330"
        );
    }
    assert!(!expected.contains(&"WorktreeCreate") && !expected.contains(&"WorktreeRemove"));
    for e in &expected {
        let h = ours(&s, e, &exe_str(&m));
        assert_eq!(h.len(), 1, "{e}");
        let t = h[0]["timeout"].as_u64().unwrap();
        assert_eq!(
            h[0]["args"],
            serde_json::json!(["run", "--timeout", t.to_string()]),
            "run knows the timeout, so its deadline fits it"
        );
        assert!(
            s["hooks"][e][0].get("matcher").is_none(),
            "no matcher: rules carry their own"
        );
    }
    let t = |e: &str| ours(&s, e, &exe_str(&m))[0]["timeout"].as_u64().unwrap();
    assert_eq!(
        (
            t("PreToolUse"),
            t("PermissionRequest"),
            t("UserPromptSubmit")
        ),
        (10, 10, 10)
    );
    assert_eq!((t("Stop"), t("SubagentStop")), (60, 60));
    assert_eq!((t("SessionStart"), t("PreCompact")), (30, 30));
    assert!(
        (2..=60).contains(&t("SessionEnd")),
        "SessionEnd needs an explicit timeout (default budget 1.5 s)"
    );
    assert!(out.contains("client: unknown"), "{out}");
    assert!(out.contains("--client-version"), "{out}");
    assert!(out.contains("hookrules check") && out.contains("hookrules explain"));
    assert!(
        !m.project.join(".claude/settings.json.bak").exists(),
        "nothing to back up"
    );

    // The project folder adds to the pack, which stays on.
    assert_eq!(fs::read_to_string(m.starter()).unwrap(), STARTER_POLICY);
    let discovery = Discovery {
        project_dir: Some(m.project.clone()),
        ..Discovery::default()
    };
    let found = discovery.find();
    assert!(!matches!(found.selection, Some(Selection::Builtin)));
    let report = check::collect(&discovery);
    assert_eq!(report.errors(), 0, "{:?}", report.diagnostics);
    for (name, _) in hookrules::policy::discover::BUILTIN {
        assert!(
            report.policies.iter().any(|p| p.contains(name)),
            "{name} in {:?}",
            report.policies
        );
    }
    assert_eq!(
        report.policies.len(),
        hookrules::policy::discover::BUILTIN.len() + 1,
        "{:?}",
        report.policies
    );
}

#[test]
fn the_commented_example_rule_is_valid_once_uncommented() {
    let m = Machine::new();
    let text: String = STARTER_POLICY
        .lines()
        .map(|l| {
            let rule_line = l.starts_with("# [[rule]]")
                || l.starts_with("# id")
                || l.starts_with("# description")
                || l.starts_with("# events")
                || l.starts_with("# matcher")
                || l.starts_with("# when")
                || l.starts_with("# decision")
                || l.starts_with("# reason");
            if rule_line {
                l.trim_start_matches("# ").to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    assert!(text.contains("\n[[rule]]\nid = \"ask-before-publish\""));
    let dir = m.project.join(".claude/hookrules");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("project.toml"), text).unwrap();
    let report = check::collect(&Discovery {
        project_dir: Some(m.project.clone()),
        ..Discovery::default()
    });
    assert_eq!(report.errors(), 0, "{:?}", report.diagnostics);
    let discovery = Discovery {
        project_dir: Some(m.project.clone()),
        ..Discovery::default()
    };
    let event = r#"{"session_id":"s","transcript_path":"/t","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo publish --dry-run"},"tool_use_id":"t1"}"#;
    let answer = hookrules::engine::run::in_process(
        &discovery,
        &mut event.as_bytes(),
        &Default::default(),
        hookrules::os::clock::Now::at(0),
        hookrules::contract::hosts::Hint::default(),
    )
    .0;
    let v: Value = serde_json::from_str(&answer.stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "ask", "{v}");
}

#[test]
fn client_version_decides_the_newer_events() {
    let m = Machine::new();
    let args = InitArgs {
        client_version: Some("2.1.330".into()),
        ..InitArgs::default()
    };
    let (code, out, _) = init_with(&m.ctx(), &args);
    assert_eq!(code, 0);
    let keys = event_keys(&read_json(&m.settings()));
    assert_eq!(keys.len(), 31, "{keys:?}");
    for e in ["PreModelSwitch", "PostModelSwitch", "DirectoryAdded"] {
        assert!(keys.iter().any(|k| k == e), "{e}");
    }
    assert!(out.contains("2.1.330 (--client-version)"), "{out}");

    // The same file, told the client is 2.1.197: our handlers leave the newer events.
    let args = InitArgs {
        client_version: Some("2.1.197".into()),
        ..InitArgs::default()
    };
    let (code, out, _) = init_with(&m.ctx(), &args);
    assert_eq!(code, 0, "{out}");
    let keys = event_keys(&read_json(&m.settings()));
    assert_eq!(keys.len(), 28, "{keys:?}");
    assert!(out.contains("removing 1 hookrules handler(s) from PreModelSwitch"));

    let bad = InitArgs {
        client_version: Some("latest".into()),
        ..InitArgs::default()
    };
    let before = fs::read(m.settings()).unwrap();
    let (code, _, err) = init_with(&m.ctx(), &bad);
    assert_eq!(code, 2);
    assert!(err.contains("--client-version"), "{err}");
    assert_eq!(fs::read(m.settings()).unwrap(), before);
}

#[test]
fn detects_the_client_version_with_claude_on_path_and_the_flag_wins() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let bin = m.root.join("clientbin");
    fs::create_dir_all(&bin).unwrap();
    let claude = bin.join("claude");
    fs::write(&claude, "#!/bin/sh\necho '2.1.330 (Claude Code)'\n").unwrap();
    fs::set_permissions(&claude, fs::Permissions::from_mode(0o755)).unwrap();
    let mut ctx = m.ctx();
    ctx.env
        .set("PATH", format!("{}:/usr/bin:/bin", bin.display()));

    let args = InitArgs {
        dry_run: true,
        ..InitArgs::default()
    };
    let (code, out, _) = init_with(&ctx, &args);
    assert_eq!(code, 0);
    assert!(out.contains("2.1.330 (from `claude --version`)"), "{out}");
    assert!(out.contains("\"PreModelSwitch\""), "{out}");

    let args = InitArgs {
        dry_run: true,
        client_version: Some("2.1.250".into()),
        ..InitArgs::default()
    };
    let (_, out, _) = init_with(&ctx, &args);
    assert!(out.contains("2.1.250 (--client-version)"), "{out}");
    assert!(!out.contains("\"PreModelSwitch\""), "{out}");
}

#[test]
fn existing_hooks_and_unknown_keys_are_kept_in_order() {
    let m = Machine::new();
    let original = pretty(&existing_settings());
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), &original).unwrap();

    let (code, out, err) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0, "{out}{err}");
    let s = read_json(&m.settings());
    let top: Vec<&String> = s.as_object().unwrap().keys().collect();
    assert_eq!(top, ["model", "permissions", "hooks", "zzzUnknown", "env"]);
    assert_eq!(s["zzzUnknown"], existing_settings()["zzzUnknown"]);
    assert_eq!(s["permissions"], existing_settings()["permissions"]);
    let keys = event_keys(&s);
    assert_eq!(
        keys[..4],
        ["Stop", "PreToolUse", "WorktreeCreate", "FutureEvent"]
    );
    assert_eq!(keys.len(), 4 + 28 - 2, "Stop and PreToolUse existed");
    // The other commands in hookrules' events stay, first, untouched.
    let old = existing_settings();
    assert_eq!(s["hooks"]["PreToolUse"][0], old["hooks"]["PreToolUse"][0]);
    assert_eq!(s["hooks"]["PreToolUse"][1], old["hooks"]["PreToolUse"][1]);
    assert_eq!(s["hooks"]["PreToolUse"].as_array().unwrap().len(), 3);
    assert_eq!(s["hooks"]["Stop"][0], old["hooks"]["Stop"][0]);
    assert_eq!(ours(&s, "Stop", &exe_str(&m)).len(), 1);
    assert_eq!(s["hooks"]["WorktreeCreate"], old["hooks"]["WorktreeCreate"]);
    assert_eq!(s["hooks"]["FutureEvent"], old["hooks"]["FutureEvent"]);
    // Backup of the exact old bytes.
    let bak = m.project.join(".claude/settings.json.bak");
    assert_eq!(fs::read_to_string(&bak).unwrap(), original);
    assert!(out.contains("backup:"), "{out}");
}

#[test]
fn a_second_run_changes_nothing_and_says_so() {
    let m = Machine::new();
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), pretty(&existing_settings())).unwrap();
    assert_eq!(init_with(&m.ctx(), &InitArgs::default()).0, 0);
    let first = fs::read(m.settings()).unwrap();
    let bak = fs::read(m.project.join(".claude/settings.json.bak")).unwrap();
    fs::write(m.starter(), "# mine\n").unwrap();

    let (code, out, _) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0);
    assert_eq!(fs::read(m.settings()).unwrap(), first, "byte-identical");
    assert_eq!(
        fs::read(m.project.join(".claude/settings.json.bak")).unwrap(),
        bak,
        "no new backup"
    );
    assert!(out.contains("already set up"), "{out}");
    assert!(out.contains("unchanged"), "{out}");
    assert_eq!(
        fs::read_to_string(m.starter()).unwrap(),
        "# mine\n",
        "starter never overwritten"
    );
    assert!(out.contains("kept"), "{out}");
}

#[test]
fn handlers_registered_another_way_are_recognised() {
    let m = Machine::new();
    let settings = serde_json::json!({ "hooks": {
        "PreToolUse": [ { "hooks": [ { "type": "command", "command": "/old/place/hookrules", "args": ["run", "--policies", "p"], "timeout": 3 } ] } ],
        "Stop": [ { "hooks": [ { "type": "command", "command": "hookrules run" } ] } ],
        "PostToolUse": [ { "hooks": [ { "type": "command", "command": "/x/not-hookrules", "args": ["run"] } ] } ],
        "SessionStart": [ { "hooks": [ { "type": "command", "command": "/x/hookrules", "args": ["check"] } ] } ]
    }});
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), pretty(&settings)).unwrap();
    let (code, out, _) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0);
    let s = read_json(&m.settings());
    // Kept, with `run --timeout` brought in line with its timeout (3 s), so the
    // answer's deadline fits it.
    assert_eq!(
        s["hooks"]["PreToolUse"],
        serde_json::json!([ { "hooks": [ { "type": "command", "command": "/old/place/hookrules", "args": ["run", "--timeout", "3", "--policies", "p"], "timeout": 3 } ] } ]),
    );
    assert_eq!(
        s["hooks"]["Stop"], settings["hooks"]["Stop"],
        "shell form recognised"
    );
    assert_eq!(s["hooks"]["PostToolUse"].as_array().unwrap().len(), 2);
    assert_eq!(s["hooks"]["SessionStart"].as_array().unwrap().len(), 2);
    assert!(out.contains("/old/place/hookrules"), "{out}");
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let m = Machine::new();
    let original = pretty(&existing_settings());
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), &original).unwrap();
    let args = InitArgs {
        dry_run: true,
        ..InitArgs::default()
    };
    let (code, out, _) = init_with(&m.ctx(), &args);
    assert_eq!(code, 0);
    assert_eq!(fs::read_to_string(m.settings()).unwrap(), original);
    assert!(!m.project.join(".claude/settings.json.bak").exists());
    assert!(!m.project.join(".claude/hookrules").exists());
    let settings = m.settings().display().to_string();
    assert!(out.contains(&format!("--- {settings}\n+++ {settings}\n@@ -")));
    assert!(out.contains(&format!("+            \"command\": \"{}\",", exe_str(&m))));
    assert!(
        out.contains("\n     \"PreToolUse\": [\n"),
        "context lines: {out}"
    );
    assert!(out.contains("+++ ") && out.contains("project.toml"));
    assert!(out.contains("+name = \"project\""));
    assert!(!out
        .lines()
        .any(|l| l.starts_with('-') && !l.starts_with("---")));

    // A project without settings: the diff starts from /dev/null, and nothing is created.
    let m = Machine::new();
    let (_, out, _) = init_with(&m.ctx(), &args);
    assert!(out.contains("--- /dev/null"), "{out}");
    assert!(!m.project.join(".claude").exists());
}

#[test]
fn uninstall_after_init_restores_the_original_exactly() {
    let m = Machine::new();
    let original = pretty(&existing_settings());
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), &original).unwrap();
    let args = InitArgs {
        client_version: Some("2.1.330".into()),
        ..InitArgs::default()
    };
    assert_eq!(init_with(&m.ctx(), &args).0, 0);
    let installed = fs::read_to_string(m.settings()).unwrap();

    let dry = UninstallArgs {
        dry_run: true,
        ..UninstallArgs::default()
    };
    let (code, out, _) = uninstall_with(&m.ctx(), &dry);
    assert_eq!(code, 0);
    assert_eq!(fs::read_to_string(m.settings()).unwrap(), installed);
    assert!(out.contains("@@ -") && out.contains("-            \"args\": ["));

    let (code, out, err) = uninstall_with(&m.ctx(), &UninstallArgs::default());
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(fs::read_to_string(m.settings()).unwrap(), original);
    assert_eq!(
        fs::read_to_string(m.project.join(".claude/settings.json.bak")).unwrap(),
        installed
    );
    assert!(m.starter().exists(), "the policy folder stays");
    assert!(
        out.contains("left") && out.contains(".claude/hookrules"),
        "{out}"
    );
    assert!(out.contains("removing 31 hookrules handler(s)"), "{out}");

    let (code, out, _) = uninstall_with(&m.ctx(), &UninstallArgs::default());
    assert_eq!(code, 0);
    assert!(out.contains("no hookrules handlers found"), "{out}");
    assert_eq!(fs::read_to_string(m.settings()).unwrap(), original);
}

#[test]
fn uninstall_of_a_fresh_install_leaves_no_hooks_key() {
    let m = Machine::new();
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), "{\n  \"model\": \"opus\"\n}\n").unwrap();
    init_with(&m.ctx(), &InitArgs::default());
    uninstall_with(&m.ctx(), &UninstallArgs::default());
    assert_eq!(
        fs::read_to_string(m.settings()).unwrap(),
        "{\n  \"model\": \"opus\"\n}\n"
    );
}

#[test]
fn malformed_settings_are_an_error_and_stay_untouched() {
    for (text, says) in [
        ("{ \"hooks\": ", "not valid JSON"),
        ("// comment\n{}", "not valid JSON"),
        ("[1, 2]", "JSON object"),
        ("{\"hooks\": []}", "`hooks` must be an object"),
        (
            "{\"hooks\": {\"PreToolUse\": {\"hooks\": []}}}",
            "`hooks.PreToolUse` must be a list",
        ),
    ] {
        let m = Machine::new();
        fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
        fs::write(m.settings(), text).unwrap();
        let (code, out, err) = init_with(&m.ctx(), &InitArgs::default());
        assert_eq!(code, 2, "{text}: {out}");
        assert!(err.contains(says), "{text}: {err}");
        assert!(err.contains("settings.json"), "names the file: {err}");
        assert_eq!(fs::read_to_string(m.settings()).unwrap(), text);
        assert!(!m.project.join(".claude/settings.json.bak").exists());
        assert!(
            !m.project.join(".claude/hookrules").exists(),
            "no starter either"
        );
        let (code, _, err) = uninstall_with(&m.ctx(), &UninstallArgs::default());
        assert_eq!(code, 2, "{err}");
        assert_eq!(fs::read_to_string(m.settings()).unwrap(), text);
    }
}

#[test]
fn user_install_uses_home_and_leaves_the_project_alone() {
    let m = Machine::new();
    // Even a binary inside the current project gets an absolute path in user settings.
    let exe = m.project.join("bin/hookrules");
    fs::create_dir_all(exe.parent().unwrap()).unwrap();
    fs::write(&exe, "").unwrap();
    let mut ctx = m.ctx();
    ctx.exe = Some(exe.clone());
    let args = InitArgs {
        user: true,
        ..InitArgs::default()
    };
    let (code, out, err) = init_with(&ctx, &args);
    assert_eq!(code, 0, "{out}{err}");
    let user = m.home.join(".claude/settings.json");
    let s = read_json(&user);
    assert_eq!(ours(&s, "PreToolUse", exe.to_str().unwrap()).len(), 1);
    assert!(
        !m.project.join(".claude").exists(),
        "no project settings, no starter"
    );

    // A later project init warns that hookrules would run twice.
    let (_, out, _) = init_with(&ctx, &InitArgs::default());
    assert!(out.contains("run it twice"), "{out}");

    let (code, _, _) = uninstall_with(
        &ctx,
        &UninstallArgs {
            user: true,
            ..UninstallArgs::default()
        },
    );
    assert_eq!(code, 0);
    assert_eq!(read_json(&user), serde_json::json!({}));
    assert!(m.home.join(".claude/settings.json.bak").exists());
}

#[test]
fn a_binary_inside_the_project_is_named_through_claude_project_dir() {
    let m = Machine::new();
    let exe = m.project.join("tools/bin/hookrules");
    fs::create_dir_all(exe.parent().unwrap()).unwrap();
    fs::write(&exe, "").unwrap();
    let mut ctx = m.ctx();
    ctx.exe = Some(exe);
    assert_eq!(init_with(&ctx, &InitArgs::default()).0, 0);
    let s = read_json(&m.settings());
    assert_eq!(
        ours(&s, "Stop", "${CLAUDE_PROJECT_DIR}/tools/bin/hookrules").len(),
        1
    );

    // --command: `$CLAUDE_PROJECT_DIR` is spelled with braces (the exec form substitutes
    // only those); relative paths become absolute; a bare name is left for PATH.
    for given in [
        "$CLAUDE_PROJECT_DIR/x/hookrules",
        "hookrules",
        "./vendor/hookrules",
    ] {
        let m = Machine::new();
        let args = InitArgs {
            command: Some(given.into()),
            ..InitArgs::default()
        };
        assert_eq!(init_with(&m.ctx(), &args).0, 0);
        let expected = match given {
            "./vendor/hookrules" => m.project.join("vendor/hookrules").display().to_string(),
            _ => given.replace("$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}"),
        };
        assert_eq!(
            ours(&read_json(&m.settings()), "PreToolUse", &expected).len(),
            1,
            "{given}"
        );
    }
}

#[test]
fn indentation_permissions_and_symlinks_are_respected() {
    use std::os::unix::fs::PermissionsExt;
    let m = Machine::new();
    let dotfiles = m.root.join("dotfiles");
    fs::create_dir_all(&dotfiles).unwrap();
    let real = dotfiles.join("settings.json");
    fs::write(&real, "{\n    \"model\": \"opus\"\n}\n").unwrap();
    fs::set_permissions(&real, fs::Permissions::from_mode(0o600)).unwrap();
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, m.settings()).unwrap();

    let (code, out, err) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        fs::symlink_metadata(m.settings())
            .unwrap()
            .file_type()
            .is_symlink(),
        "the link stays a link"
    );
    let text = fs::read_to_string(&real).unwrap();
    assert!(
        text.starts_with("{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PreToolUse\""),
        "{text}"
    );
    assert_eq!(
        fs::metadata(&real).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let bak = m.project.join(".claude/settings.json.bak");
    assert_eq!(
        fs::read_to_string(&bak).unwrap(),
        "{\n    \"model\": \"opus\"\n}\n"
    );
    assert_eq!(
        fs::metadata(&bak).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(out.contains("symlink"), "{out}");
}

#[test]
fn existing_policies_get_no_starter() {
    let m = Machine::new();
    let dir = m.project.join(".claude/hookrules");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("guards.toml"), "[policy]\nname = \"guards\"\n").unwrap();
    let (code, out, _) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0);
    assert!(!m.starter().exists());
    assert!(out.contains("already holds policies"), "{out}");
}

/// Reference §3.1: `hooks` maps event names to lists of matcher groups; a group has
/// an optional string `matcher` and a `hooks` list; a command handler has `type`,
/// `command`, exec-form `args` (strings) and an integer `timeout` in seconds.
#[test]
fn produced_settings_have_the_shape_of_reference_3_1() {
    let m = Machine::new();
    fs::create_dir_all(m.settings().parent().unwrap()).unwrap();
    fs::write(m.settings(), pretty(&existing_settings())).unwrap();
    let args = InitArgs {
        client_version: Some("2.1.330".into()),
        ..InitArgs::default()
    };
    assert_eq!(init_with(&m.ctx(), &args).0, 0);
    let s = read_json(&m.settings());
    let known: Vec<&str> = hookrules::contract::events::EVENTS
        .iter()
        .map(|e| e.name)
        .collect();
    let mut handlers = 0;
    for (event, groups) in s["hooks"].as_object().unwrap() {
        assert!(
            known.contains(&event.as_str()) || event == "FutureEvent",
            "{event}"
        );
        for g in groups.as_array().expect("a list of groups") {
            let g = g.as_object().expect("a group is an object");
            assert!(g.keys().all(|k| k == "matcher" || k == "hooks"), "{g:?}");
            if let Some(mt) = g.get("matcher") {
                assert!(mt.is_string());
            }
            for h in g["hooks"].as_array().expect("a hooks list") {
                let t = h["type"].as_str().expect("type");
                if h["command"] != exe_str(&m) {
                    continue;
                }
                handlers += 1;
                assert_eq!(t, "command");
                let keys: Vec<&String> = h.as_object().unwrap().keys().collect();
                assert_eq!(keys, ["type", "command", "args", "timeout"]);
                assert!(h["args"].as_array().unwrap().iter().all(Value::is_string));
                let timeout = h["timeout"].as_u64().expect("an integer timeout");
                assert!(
                    (1..=120).contains(&timeout),
                    "{event}: {timeout} (seconds, not ms)"
                );
            }
        }
    }
    assert_eq!(handlers, 31);
}

#[test]
fn the_diff_is_unified() {
    let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
    let new = "a\nb\nc\nD\ne\nf\ng\nh\ni\nj\nk\n";
    assert_eq!(
        unified_diff(old, new, "x", "y"),
        "--- x\n+++ y\n@@ -1,10 +1,11 @@\n a\n b\n c\n-d\n+D\n e\n f\n g\n h\n i\n j\n+k\n"
    );
    let old: String = (1..=20).map(|i| format!("{i}\n")).collect();
    let new: String = (1..=20)
        .filter(|i| *i != 18)
        .map(|i| match i {
            3 => "three\n".to_string(),
            i => format!("{i}\n"),
        })
        .collect();
    assert_eq!(
        unified_diff(&old, &new, "x", "y"),
        "--- x\n+++ y\n@@ -1,6 +1,6 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n@@ -15,6 +15,5 @@\n 15\n 16\n 17\n-18\n 19\n 20\n"
    );
    // A one-line range is written without its count, as GNU diff writes it.
    assert_eq!(
        unified_diff("", "x\n", "/dev/null", "y"),
        "--- /dev/null\n+++ y\n@@ -0,0 +1 @@\n+x\n"
    );
    assert_eq!(unified_diff(old.as_str(), old.as_str(), "x", "y"), "");
}

/// The real binary: init in a fresh project, the registered command answers an event
/// with the pack (which stays on under the starter), then uninstall.
#[test]
fn the_binary_installs_answers_and_uninstalls() {
    use std::process::Command;
    let m = Machine::new();
    let bin = Path::new(env!("CARGO_BIN_EXE_hookrules"));
    let run = |args: &[&str]| {
        Command::new(bin)
            .args(args)
            .current_dir(&m.project)
            .env_clear()
            .env("HOME", &m.home)
            .env("PATH", "/usr/bin:/bin")
            .output()
            .unwrap()
    };
    let out = run(&["init", "--client-version", "2.1.330"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let s = read_json(&m.settings());
    let h = &s["hooks"]["PreToolUse"][0]["hooks"][0];
    assert_eq!(
        h["command"],
        bin.canonicalize().unwrap().to_str().unwrap(),
        "the running binary, canonicalised"
    );

    // Run the handler exactly as the client would: command + args, event on stdin.
    let argv: Vec<String> = h["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    let event = fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/events/bash-rm-rf-root.json"),
    )
    .unwrap();
    let answer = crate::support::feed_bytes(
        Command::new(h["command"].as_str().unwrap())
            .args(&argv)
            .current_dir(&m.root)
            .env_clear()
            .env("CLAUDE_PROJECT_DIR", &m.project)
            .env("HOME", &m.home),
        &event,
    );
    let v: Value = serde_json::from_slice(&answer.stdout).expect("one JSON object");
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");

    let out = run(&["init"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("already set up"));
    let bad = run(&["init", "--client-version", "x"]);
    assert_eq!(bad.status.code(), Some(2));

    let out = run(&["uninstall"]);
    assert!(out.status.success());
    assert_eq!(read_json(&m.settings()), serde_json::json!({}));
    assert!(m.starter().exists());
}

/// A Stop gate whose test run can take `ms`.
fn gate(ms: u64) -> String {
    format!(
        r#"
[facts.tests]
kind = "command"
argv = ["npm", "test"]
timeout_ms = {ms}

[[rule]]
id = "tests-before-stop"
events = ["Stop"]
when = {{ all = [{{ field = "stop_hook_active", equals = false }}, {{ fact = "tests.ok", equals = false }}] }}
decision = "block"
reason = "the tests fail"
"#
    )
}

#[test]
fn timeouts_fit_the_policies_commands_and_follow_their_changes() {
    // Issue 14 item 8: a Stop gate that runs the tests for up to 120 s used to be
    // registered with 60 s; the client then killed the hook and the gate failed
    // open with no word.
    let m = Machine::new();
    let dir = m.project.join(".claude/hookrules");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("gate.toml"), gate(120_000)).unwrap();
    let (code, out, _) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0, "{out}");
    let s = read_json(&m.settings());
    let stop = ours(&s, "Stop", &exe_str(&m))[0];
    let t = stop["timeout"].as_u64().unwrap();
    assert!(
        (122..=140).contains(&t),
        "Stop fits 120 s of tests plus the margin: {t}"
    );
    assert_eq!(
        stop["args"],
        serde_json::json!(["run", "--timeout", t.to_string()])
    );
    assert!(out.contains("Stop:") && out.contains("fact tests"), "{out}");
    // Events the gate does not reach keep their defaults.
    let pre = ours(&s, "PreToolUse", &exe_str(&m))[0];
    assert_eq!(pre["timeout"], 10);
    // check agrees: nothing exceeds its registration.
    let d = Discovery {
        project_dir: Some(m.project.clone()),
        ..Discovery::default()
    };
    let codes = |d: &Discovery| -> Vec<&'static str> {
        check::collect(d)
            .diagnostics
            .iter()
            .map(|x| x.code.code())
            .collect()
    };
    assert!(!codes(&d).contains(&"HR115"), "{:?}", codes(&d));

    // The gate grows to 300 s: check says the registration no longer fits...
    fs::write(dir.join("gate.toml"), gate(300_000)).unwrap();
    let report = check::collect(&d);
    let hr113: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|x| x.code.code() == "HR115")
        .collect();
    assert_eq!(hr113.len(), 1, "{:?}", report.diagnostics);
    assert!(
        hr113[0].message.contains("Stop") && hr113[0].message.contains("300 s"),
        "{}",
        hr113[0].message
    );
    // ...and re-running init updates the registration.
    let (code, out, _) = init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(code, 0, "{out}");
    let s = read_json(&m.settings());
    let stop = ours(&s, "Stop", &exe_str(&m))[0];
    let t2 = stop["timeout"].as_u64().unwrap();
    assert!(t2 >= 302, "{t2}");
    assert_eq!(
        stop["args"],
        serde_json::json!(["run", "--timeout", t2.to_string()])
    );
    assert!(out.contains(&format!("timeout {t}s -> {t2}s")), "{out}");
    assert!(!codes(&d).contains(&"HR115"));
    // A third run changes nothing.
    let before = fs::read(m.settings()).unwrap();
    init_with(&m.ctx(), &InitArgs::default());
    assert_eq!(fs::read(m.settings()).unwrap(), before);
}
