//! The managed layer, through the real binary, with real owners and modes: a
//! folder this test (running as root) owns, then hands to another uid
//! (65534, `nobody`) or opens to everyone with chmod. The debug binary takes
//! the folder from `HOOKRULES_MANAGED_DIR` (release builds never read it).
//!
//! Needs root (to own the folder and to chown). Run as another user, each test
//! says so on stderr and checks nothing.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::sandbox::{bash, stdout, tool_event, Sandbox};

/// The organisation's policy: no curl, pinned destructive pack part.
const ACME: &str = r#"
[policy]
name = "acme"
version = "2026.11"

[managed]
builtin = ["destructive"]

[[rule]]
id = "acme-no-curl"
tags = ["acme"]
events = ["PreToolUse"]
matcher = "Bash"
decision = "deny"
reason = "acme: no curl on this fleet"
[rule.when]
commands = "tool_input.command"
command = { program = ["curl"] }

[[rule]]
id = "acme-ask-deploy"
tags = ["acme"]
events = ["PreToolUse"]
matcher = "Bash"
decision = "ask"
reason = "acme: deploys are confirmed"
[rule.when]
commands = "tool_input.command"
command = { program = ["kubectl"], subcommand = ["apply"] }
"#;

const CURL: &str = "curl -o page.html https://example.com";
const WIPE: &str = "rm -rf /";

fn root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !root {
        eprintln!("skipped: the managed layer's tests need root (owners and chown)");
    }
    root
}

fn managed_dir(sb: &Sandbox) -> PathBuf {
    sb.root.join("etc/hookrules")
}

/// Install `text` as `name` in the sandbox's managed folder, root's, 0644 in 0755.
fn install(sb: &Sandbox, name: &str, text: &str) -> PathBuf {
    let dir = managed_dir(sb);
    std::fs::create_dir_all(&dir).unwrap();
    for d in [&sb.root, &sb.root.join("etc"), &dir] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    p
}

fn chown(p: &Path, uid: u32) {
    std::os::unix::fs::chown(p, Some(uid), None).unwrap();
}

fn chmod(p: &Path, mode: u32) {
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn decision(out: &std::process::Output) -> String {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .unwrap_or("none")
        .to_string()
}

fn reason(out: &std::process::Output) -> String {
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// One way a layer below tries to loosen the managed rule or the pinned pack part.
struct Loosening {
    what: &'static str,
    /// (layer file, text): `project`, `local`, `user`, or `flag` / `env` (a file
    /// named by `--policies` / `HOOKRULES_POLICIES`).
    place: &'static str,
    text: &'static str,
    /// `--no-builtin` on the command line.
    no_builtin: bool,
}

const LOOSENINGS: &[Loosening] = &[
    Loosening {
        what: "override by id",
        place: "project",
        text: "[[override]]\nrule = \"acme-no-curl\"\nenabled = false\n[[override]]\nrule = \"delete-root-or-system\"\nenabled = false\n[[override]]\nrule = \"delete-outside-project\"\nenabled = false\n",
        no_builtin: false,
    },
    Loosening {
        what: "override by glob, downgraded to allow",
        place: "project",
        text: "[[override]]\nrule = \"acme-*\"\ndecision = \"allow\"\n[[override]]\nrule = \"delete-*\"\ndecision = \"allow\"\n",
        no_builtin: false,
    },
    Loosening {
        what: "override by tag, audit mode",
        place: "local",
        text: "[[override]]\ntag = \"acme\"\nmode = \"audit\"\n[[override]]\ntag = \"destructive\"\nmode = \"audit\"\n",
        no_builtin: false,
    },
    Loosening {
        what: "reused ids",
        place: "user",
        text: "[[rule]]\nid = \"acme-no-curl\"\nevents = [\"PreToolUse\"]\nmatcher = \"Read\"\ndecision = \"ask\"\n[[rule]]\nid = \"delete-root-or-system\"\nevents = [\"PreToolUse\"]\nmatcher = \"Read\"\ndecision = \"ask\"\n[[rule]]\nid = \"delete-outside-project\"\nevents = [\"PreToolUse\"]\nmatcher = \"Read\"\ndecision = \"ask\"\n",
        no_builtin: false,
    },
    Loosening {
        what: "builtin = false and an override, by --policies",
        place: "flag",
        text: "[policy]\nbuiltin = false\n[[override]]\nrule = \"acme-no-curl\"\nenabled = false\n",
        no_builtin: false,
    },
    Loosening {
        what: "an override by HOOKRULES_POLICIES, and --no-builtin",
        place: "env",
        text: "[[override]]\nrule = \"acme-no-curl\"\nenabled = false\n",
        no_builtin: true,
    },
];

/// Run `cmd` in a sandbox holding `l`; with the managed folder or without.
fn run_loosened(l: &Loosening, managed: bool, cmd: &str) -> std::process::Output {
    let sb = Sandbox::new();
    // Without the managed layer the same rule, from the user's layer (or named
    // first with the loosening), is what the loosening works on: the control,
    // showing that the loosening does loosen.
    let acme = sb.root.join("config/hookrules/00-acme.toml");
    if managed {
        install(&sb, "acme.toml", ACME);
    } else {
        std::fs::write(
            &acme,
            ACME.replace("[managed]\nbuiltin = [\"destructive\"]\n", ""),
        )
        .unwrap();
    }
    let file = sb.root.join("loosen.toml");
    let mut named = vec![];
    if !managed {
        named.push(acme.display().to_string());
    }
    let mut args: Vec<String> = vec![];
    let mut env: Vec<(String, String)> = vec![];
    match l.place {
        // Trusted, so that the control shows the loosening in force.
        "project" => {
            sb.project_policy("loosen.toml", l.text);
            sb.trust();
        }
        "local" => {
            sb.project_policy("loosen.local.toml", l.text);
            sb.trust();
        }
        "user" => drop(sb.user_policy("zz-loosen.toml", l.text)),
        "flag" => {
            std::fs::write(&file, l.text).unwrap();
            named.push(file.display().to_string());
            for n in &named {
                args.push("--policies".into());
                args.push(n.clone());
            }
        }
        "env" => {
            std::fs::write(&file, l.text).unwrap();
            named.push(file.display().to_string());
            env.push(("HOOKRULES_POLICIES".into(), named.join(":")));
        }
        other => unreachable!("{other}"),
    }
    if l.no_builtin {
        args.insert(0, "--no-builtin".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    sb.run_with(&bash(cmd), &args, &env)
}

#[test]
fn a_managed_rule_and_its_pinned_pack_part_survive_every_loosening_from_below() {
    if !root() {
        return;
    }
    for l in LOOSENINGS {
        for cmd in [CURL, WIPE] {
            let out = run_loosened(l, false, cmd);
            assert_ne!(
                decision(&out),
                "deny",
                "{}: {cmd}: control: {}",
                l.what,
                stdout(&out)
            );
            let out = run_loosened(l, true, cmd);
            assert_eq!(
                decision(&out),
                "deny",
                "{}: {cmd}: {}",
                l.what,
                stdout(&out)
            );
            if cmd == CURL {
                assert!(
                    reason(&out).contains("acme: no curl"),
                    "{}: {}",
                    l.what,
                    stdout(&out)
                );
            }
        }
    }
    // builtin = false comes back for the pinned part only: the pack's other
    // parts (secrets) are off, as the project asked.
    let sb = Sandbox::new();
    install(&sb, "acme.toml", ACME);
    sb.project_policy("off.toml", "[policy]\nbuiltin = false\n");
    sb.trust();
    assert_eq!(decision(&sb.run(&bash(WIPE))), "deny");
    let read_key = tool_event(
        "PreToolUse",
        "Read",
        json!({"file_path": sb.root.join("home/.ssh/id_rsa")}),
        "t2",
    );
    assert_ne!(
        decision(&sb.run(&read_key)),
        "deny",
        "secrets is not pinned"
    );
}

#[test]
fn lower_layers_still_add_rules_and_check_explain_doctor_show_what_was_kept() {
    if !root() {
        return;
    }
    let sb = Sandbox::new();
    install(&sb, "acme.toml", ACME);
    // The user's own rule shares the managed rules' tag; a project override
    // by that tag disables both, raises the managed ask to deny, and adds a
    // rule of its own.
    sb.user_policy(
        "mine.toml",
        "[[rule]]\nid = \"mine-no-wget\"\ntags = [\"acme\"]\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\ndecision = \"deny\"\n[rule.when]\ncommands = \"tool_input.command\"\ncommand = { program = [\"wget\"] }\n",
    );
    sb.project_policy(
        "mine.toml",
        "[[override]]\ntag = \"acme\"\nenabled = false\n\n[[override]]\nrule = \"acme-ask-*\"\ndecision = \"deny\"\n\n[[rule]]\nid = \"no-ls\"\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\ndecision = \"deny\"\nreason = \"no ls here\"\n[rule.when]\ncommands = \"tool_input.command\"\ncommand = { program = [\"ls\"] }\n",
    );
    const WGET: &str = "wget https://example.com";
    const DEPLOY: &str = "kubectl apply -f prod.yaml";
    // Untrusted, the project file only adds: the raised decision needs no trust.
    assert_eq!(decision(&sb.run(&bash(WGET))), "deny", "untrusted");
    assert_eq!(decision(&sb.run(&bash(DEPLOY))), "deny", "untrusted");
    sb.trust();
    assert_eq!(
        decision(&sb.run(&bash("ls -la"))),
        "deny",
        "tightening works"
    );
    assert_eq!(
        decision(&sb.run(&bash(DEPLOY))),
        "deny",
        "a stricter decision applies to a pinned rule"
    );
    assert_ne!(
        decision(&sb.run(&bash(WGET))),
        "deny",
        "the same override, trusted, disables the user's rule"
    );
    assert_eq!(
        decision(&sb.run(&bash(CURL))),
        "deny",
        "not the managed one"
    );
    let rules = stdout(&sb.hr(&["check", "--rules"]));
    let line = rules
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("acme-no-curl "))
        .take(2)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(line.contains("managed"), "{rules}");
    assert!(
        line.contains("kept: an override in") && line.contains("mine.toml (project)"),
        "{line}"
    );
    // HR116 says which rules of the trusted loosening the managed layer keeps.
    assert!(
        rules.contains("the managed layer pins acme-no-curl, acme-ask-deploy"),
        "{rules}"
    );
    assert!(
        rules.contains("pinned by the managed layer (`[managed] builtin`)"),
        "{rules}"
    );
    let doctor = stdout(&sb.hr(&["doctor"]));
    assert!(
        doctor.contains("managed layer") && doctor.contains("acme (acme.toml)"),
        "{doctor}"
    );
    assert!(
        doctor.contains("pins the built-in parts destructive"),
        "{doctor}"
    );
    assert!(doctor.contains("pinned rule acme-no-curl kept"), "{doctor}");
    let fixture = sb.root.join("curl.json");
    std::fs::write(&fixture, bash(CURL).to_string()).unwrap();
    let explain = sb.hr(&["explain", "--format", "json", fixture.to_str().unwrap()]);
    let explain = stdout(&explain);
    assert!(explain.contains("acme-no-curl"), "{explain}");
    assert!(explain.contains("kept: an override in"), "{explain}");
}

/// A change to the file system and the change that undoes it.
type Step = Box<dyn Fn()>;

/// Each way a managed file stops being the administrator's: (what, tamper, mend).
fn tamperings(sb: &Sandbox, file: &Path) -> Vec<(&'static str, Step, Step)> {
    let f = file.to_path_buf();
    let dir = managed_dir(sb);
    let user_dir = sb.root.join("home/elsewhere");
    let (f1, f2, f3, f4) = (f.clone(), f.clone(), f.clone(), f.clone());
    let (d1, d2, d3, d4) = (dir.clone(), dir.clone(), dir.clone(), dir.clone());
    let (u1, u2) = (user_dir.clone(), user_dir.clone());
    vec![
        (
            "file owned by another user",
            Box::new(move || chown(&f1, 65534)),
            Box::new(move || chown(&f, 0)) as Step,
        ),
        (
            "file writable by others",
            Box::new(move || chmod(&f2, 0o666)),
            Box::new(move || chmod(&f3, 0o644)),
        ),
        (
            "folder writable by others",
            Box::new(move || chmod(&d1, 0o777)),
            Box::new(move || chmod(&d2, 0o755)),
        ),
        (
            "folder owned by another user",
            Box::new(move || chown(&d3, 65534)),
            Box::new(move || chown(&d4, 0)),
        ),
        (
            "file is a link into a folder another user owns",
            Box::new(move || {
                std::fs::create_dir_all(&u1).unwrap();
                std::fs::rename(&f4, u1.join("acme.toml")).unwrap();
                std::os::unix::fs::symlink(u1.join("acme.toml"), &f4).unwrap();
                chown(&u1, 65534);
            }),
            Box::new(move || {
                let f = u2
                    .parent()
                    .unwrap()
                    .parent()
                    .unwrap()
                    .join("etc/hookrules/acme.toml");
                std::fs::remove_file(&f).unwrap();
                std::fs::rename(u2.join("acme.toml"), &f).unwrap();
            }),
        ),
    ]
}

#[test]
fn a_managed_policy_loads_only_while_root_owns_it_and_nobody_else_can_write() {
    if !root() {
        return;
    }
    let sb = Sandbox::new();
    let file = install(&sb, "acme.toml", ACME);
    // Twice: the second run takes the cached set, which must notice the change.
    for _ in 0..2 {
        assert_eq!(decision(&sb.run(&bash(CURL))), "deny");
    }
    for (what, tamper, mend) in tamperings(&sb, &file) {
        tamper();
        let out = sb.run(&bash(CURL));
        assert_ne!(
            decision(&out),
            "deny",
            "{what}: refused, so not in force: {}",
            stdout(&out)
        );
        let doctor = stdout(&sb.hr(&["doctor"]));
        assert!(
            doctor.contains("managed policy") && doctor.contains("is refused"),
            "{what}: {doctor}"
        );
        let check = sb.hr(&["check"]);
        assert!(!check.status.success(), "{what}: check fails");
        assert!(
            stdout(&check).contains("is not loaded")
                || String::from_utf8_lossy(&check.stderr).contains("is not loaded"),
            "{what}: {check:?}"
        );
        mend();
        assert_eq!(decision(&sb.run(&bash(CURL))), "deny", "{what}: mended");
    }
    // A managed policy's `extends` is held to the same: a user's file is refused.
    let user_file = sb.root.join("home/base.toml");
    std::fs::write(
        &user_file,
        "[[rule]]\nid = \"base-no-wget\"\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\ndecision = \"deny\"\n[rule.when]\ncommands = \"tool_input.command\"\ncommand = { program = [\"wget\"] }\n",
    )
    .unwrap();
    chown(&sb.root.join("home"), 65534);
    install(
        &sb,
        "zz-extends.toml",
        &format!("[policy]\nextends = [\"{}\"]\n", user_file.display()),
    );
    assert_ne!(decision(&sb.run(&bash("wget https://example.com"))), "deny");
    let doctor = stdout(&sb.hr(&["doctor"]));
    assert!(doctor.contains("base.toml is refused"), "{doctor}");
    chown(&sb.root.join("home"), 0);
    chown(&user_file, 0);
    assert_eq!(decision(&sb.run(&bash("wget https://example.com"))), "deny");
    // An empty managed folder anyone can write is reported too.
    let dir = managed_dir(&sb);
    for f in std::fs::read_dir(&dir).unwrap() {
        std::fs::remove_file(f.unwrap().path()).unwrap();
    }
    chmod(&dir, 0o777);
    let doctor = stdout(&sb.hr(&["doctor"]));
    assert!(
        doctor.contains(&format!("managed policy {} is refused", dir.display()))
            && doctor.contains("writable"),
        "{doctor}"
    );
}

#[test]
fn a_required_managed_policy_refused_or_missing_fails_every_call_closed() {
    if !root() {
        return;
    }
    let sb = Sandbox::new();
    let required = ACME.replace("[managed]\n", "[managed]\nrequired = true\n");
    let file = install(&sb, "acme.toml", &required);
    assert_eq!(decision(&sb.run(&bash("ls"))), "none");
    chown(&file, 65534);
    let out = sb.run(&bash("ls"));
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    assert!(
        reason(&out).contains("required managed policy") && reason(&out).contains("acme.toml"),
        "{}",
        stdout(&out)
    );
    assert!(
        !stdout(&out).contains("hookrules allow"),
        "no allow-once code: {}",
        stdout(&out)
    );
    chown(&file, 0);
    assert_eq!(decision(&sb.run(&bash("ls"))), "none");

    // Required by the administrator's environment: the bundle is named, the
    // folder (or the file) is gone.
    let env = [("HOOKRULES_MANAGED_REQUIRED", "acme, beta")];
    let out = sb.run_with(&bash("ls"), &[], &env);
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    assert!(reason(&out).contains("`beta`"), "{}", stdout(&out));
    install(&sb, "beta.toml", "[policy]\nname = \"beta\"\n");
    assert_eq!(decision(&sb.run_with(&bash("ls"), &[], &env)), "none");
    std::fs::remove_dir_all(managed_dir(&sb)).unwrap();
    let out = sb.run_with(&bash("ls"), &[], &env);
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    assert!(reason(&out).contains("`acme`"), "{}", stdout(&out));
    let doctor = stdout(&sb.hr_with(&["doctor"], &env));
    assert!(
        doctor.contains("the required managed policy `acme` is missing"),
        "{doctor}"
    );
    // The prompt is not lost: the user is told.
    let prompt = json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": "UserPromptSubmit", "prompt": "hi"});
    let out = sb.run_with(&prompt, &[], &env);
    assert!(stdout(&out).contains("required managed policy"), "{out:?}");
    assert!(!stdout(&out).contains("\"block\""), "{out:?}");
}

#[test]
fn a_repository_cannot_drop_what_the_client_managed_settings_require() {
    if !root() {
        return;
    }
    let sb = Sandbox::new();
    install(&sb, "beta.toml", "[policy]\nname = \"beta\"\n");
    // The administrator requires `acme` (not installed) in Claude Code's
    // managed settings; the client gives the hook that value.
    let settings = sb.root.join("etc/claude-code/managed-settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    chmod(settings.parent().unwrap(), 0o755);
    std::fs::write(
        &settings,
        r#"{"env": {"HOOKRULES_MANAGED_REQUIRED": "acme", "OTEL_SERVICE_NAME": "x"}}"#,
    )
    .unwrap();
    chmod(&settings, 0o644);
    let env = [("HOOKRULES_MANAGED_REQUIRED", "acme")];
    let out = sb.run_with(&bash("ls"), &[], &env);
    assert_eq!(decision(&out), "deny", "{}", stdout(&out));
    // The repository's settings and .env name the variable too (to empty,
    // or to a bundle that is there), and its policy names itself `acme`.
    let project = sb.project();
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        r#"{"env": {"HOOKRULES_MANAGED_REQUIRED": ""}}"#,
    )
    .unwrap();
    std::fs::write(project.join(".env"), "HOOKRULES_MANAGED_REQUIRED=beta\n").unwrap();
    sb.project_policy("acme.toml", "[policy]\nname = \"acme\"\n");
    for env in [
        [("HOOKRULES_MANAGED_REQUIRED", "acme")],
        [("HOOKRULES_MANAGED_REQUIRED", "")],
    ] {
        let out = sb.run_with(&bash("ls"), &[], &env);
        assert_eq!(decision(&out), "deny", "{}", stdout(&out));
        assert!(reason(&out).contains("`acme`"), "{}", stdout(&out));
    }
    // Managed settings anyone could write are nobody's: the project's naming
    // of the variable makes hookrules ignore it, as for every variable of ours.
    chmod(&settings, 0o666);
    assert_eq!(decision(&sb.run_with(&bash("ls"), &[], &env)), "none");
    chmod(&settings, 0o644);
    chown(&settings, 65534);
    assert_eq!(decision(&sb.run_with(&bash("ls"), &[], &env)), "none");
}

/// A user rule that lets `echo` run as something else.
fn rewriting(to: &str) -> String {
    format!(
        r#"
[[rule]]
id = "user-rewrites-echo"
events = ["PreToolUse"]
matcher = "Bash"
decision = "allow"
reason = "rewritten"
rewrite = {{ command = "{to}" }}
[rule.when]
commands = "tool_input.command"
command = {{ program = ["echo"] }}
"#
    )
}

fn updated_command(out: &std::process::Output) -> Option<String> {
    let v: Value = serde_json::from_slice(&out.stdout).ok()?;
    Some(
        v["hookSpecificOutput"]["updatedInput"]["command"]
            .as_str()?
            .to_string(),
    )
}

#[test]
fn a_rewrite_from_below_is_judged_again_by_the_managed_rules() {
    if !root() {
        return;
    }
    let sb = Sandbox::new();
    let acme = install(&sb, "acme.toml", ACME);
    // Into something a managed rule denies, or asks for: that answer stands,
    // and the rewrite is not sent.
    for (to, want) in [(CURL, "deny"), ("kubectl apply -f prod.yaml", "ask")] {
        sb.user_policy("rewrite.toml", &rewriting(to));
        let out = sb.run(&bash("echo hi"));
        assert_eq!(decision(&out), want, "{}", stdout(&out));
        assert!(reason(&out).contains("acme: "), "{}", stdout(&out));
        assert!(
            reason(&out).contains("user-rewrites-echo"),
            "{}",
            stdout(&out)
        );
        assert_eq!(updated_command(&out), None, "{}", stdout(&out));
    }
    // Into something the managed rules let run: the rewrite goes out.
    sb.user_policy("rewrite.toml", &rewriting("ls -la"));
    let out = sb.run(&bash("echo hi"));
    assert_eq!(decision(&out), "allow", "{}", stdout(&out));
    assert_eq!(updated_command(&out).as_deref(), Some("ls -la"));
    // Without the managed layer, the same rewrite into curl is the user's call.
    sb.user_policy("rewrite.toml", &rewriting(CURL));
    std::fs::remove_file(acme).unwrap();
    let out = sb.run(&bash("echo hi"));
    assert_eq!(
        updated_command(&out).as_deref(),
        Some(CURL),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_managed_deny_carries_no_allow_once_code_and_the_managed_log_settings_win() {
    if !root() {
        return;
    }
    let sb = Sandbox::new();
    install(
        &sb,
        "acme.toml",
        &format!("{ACME}\n[log]\nenabled = true\nallow_once = false\n"),
    );
    sb.project_policy("log.toml", "[log]\nenabled = false\nallow_once = true\n");
    let out = sb.run(&bash(CURL));
    assert_eq!(decision(&out), "deny");
    assert!(
        !stdout(&out).contains("hookrules allow"),
        "{}",
        stdout(&out)
    );
    // The pack's deny follows the managed `[log] allow_once = false` too.
    let out = sb.run(&bash(WIPE));
    assert_eq!(decision(&out), "deny");
    assert!(
        !stdout(&out).contains("hookrules allow"),
        "{}",
        stdout(&out)
    );
    // The log is on, as the managed layer says, whatever the project says.
    assert_eq!(sb.records().len(), 2);

    // Control: without the managed table, the project's settings hold.
    let sb = Sandbox::new();
    install(&sb, "acme.toml", ACME);
    let out = sb.run(&bash(WIPE));
    assert!(
        stdout(&out).contains("hookrules allow"),
        "control: {}",
        stdout(&out)
    );
    let out = sb.run(&bash(CURL));
    assert_eq!(decision(&out), "deny");
    assert!(
        !stdout(&out).contains("hookrules allow"),
        "a managed rule's deny is never lifted: {}",
        stdout(&out)
    );
}

#[test]
fn a_managed_log_table_keeps_the_audit_trail_whatever_is_below_it() {
    if !root() {
        return;
    }
    // README's rollout: the managed policy turns export on.
    let mut sb = Sandbox::new();
    install(
        &sb,
        "acme.toml",
        &format!("{ACME}\n[log]\nexport = \"otlp\"\n"),
    );
    for (k, v) in [
        // The user's own environment would switch the log off.
        ("HOOKRULES_LOG", "off"),
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
    ] {
        sb.env.push((k.into(), v.into()));
    }
    sb.user_policy("mine.toml", "[log]\nkeep = 1\n");
    // A project file that would too, and that the user trusted.
    sb.project_policy("quiet.toml", "[log]\nenabled = false\nexport = \"off\"\n");
    sb.trust();
    let out = sb.run(&bash(CURL));
    assert_eq!(decision(&out), "deny");
    assert_eq!(sb.records().len(), 1, "logged where the managed layer says");
    let spool = sb.root.join("state/hookrules/otlp/spool.jsonl");
    let spooled = std::fs::read_to_string(&spool).unwrap_or_default();
    assert!(spooled.contains("acme-no-curl"), "exported: {spooled}");
    // check says the managed layer keeps it.
    let check = sb.hr(&["check"]);
    let text = format!(
        "{}{}",
        stdout(&check),
        String::from_utf8_lossy(&check.stderr)
    );
    assert!(
        text.contains("quiet.toml:2") && text.contains("pins the decision log"),
        "{text}"
    );
    // doctor says what it kept out.
    let doctor = stdout(&sb.hr(&["doctor"]));
    assert!(
        doctor.contains("pins the decision log")
            && doctor.contains("keep (")
            && doctor.contains("HOOKRULES_LOG"),
        "{doctor}"
    );
}
