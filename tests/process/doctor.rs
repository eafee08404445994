//! `init --host`, `uninstall --host` and `doctor`, in-process on a scratch
//! project and home: each agent's file is written in its shape (kept content,
//! idempotent, undone by uninstall), and doctor reports what is wired, twice,
//! missing, of another version, in the wrong timeout unit, and whether the
//! built-in protection is on.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::cli::doctor::{diagnose, Finding, Level};
use hookrules::cli::init::{self, Context, InitArgs, UninstallArgs};
use hookrules::policy::discover::Discovery;
use serde_json::{json, Value};

struct Scratch {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    ctx: Context,
}

fn scratch() -> Scratch {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), home.display().to_string());
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        project.display().to_string(),
    );
    env.insert("PATH".to_string(), "/usr/bin:/bin".to_string());
    let ctx = Context {
        env: env.into(),
        cwd: project.clone(),
        exe: Some(PathBuf::from(env!("CARGO_BIN_EXE_hookrules"))),
    };
    Scratch {
        _tmp: tmp,
        project,
        home,
        ctx,
    }
}

fn init_host(s: &Scratch, host: &str) -> (i32, String) {
    let args = InitArgs {
        host: Some(host.to_string()),
        ..Default::default()
    };
    let (mut out, mut err) = (vec![], vec![]);
    let code = init::init(&args, &s.ctx, &mut out, &mut err);
    (
        code,
        String::from_utf8_lossy(&out).to_string() + &String::from_utf8_lossy(&err),
    )
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn findings(s: &Scratch) -> Vec<Finding> {
    let d = Discovery {
        flags: vec![],
        env: None,
        project_dir: Some(s.project.clone()),
        user_dir: Some(s.home.join(".config/hookrules")),
        no_builtin: false,
        state_home: None,
        ..Discovery::default()
    };
    diagnose(&s.ctx, &d)
}

fn has(f: &[Finding], level: Level, text: &str) -> bool {
    f.iter().any(|x| x.level == level && x.text.contains(text))
}

fn show(f: &[Finding]) -> String {
    f.iter()
        .map(|x| format!("{:?} {}", x.level, x.text))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn each_host_file_is_written_in_its_shape_kept_and_undone() {
    let s = scratch();
    let gemini = s.project.join(".gemini/settings.json");
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    std::fs::write(
        &gemini,
        r#"{"theme":"dark","hooks":{"BeforeTool":[{"matcher":"write_file","hooks":[{"type":"command","command":"./mine.sh"}]}]}}"#,
    )
    .unwrap();
    for host in ["codex", "gemini", "cursor", "copilot"] {
        let (code, out) = init_host(&s, host);
        assert_eq!(code, 0, "{host}: {out}");
        let (code, out) = init_host(&s, host);
        assert_eq!(code, 0);
        assert!(out.contains("Already set up"), "{host}: {out}");
    }
    let g = read(&gemini);
    assert_eq!(g["theme"], "dark");
    assert_eq!(
        g["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
        "./mine.sh"
    );
    let ours = &g["hooks"]["BeforeTool"][1]["hooks"][0];
    assert!(ours["command"]
        .as_str()
        .unwrap()
        .ends_with(" run --host gemini"));
    assert_eq!(ours["timeout"], 10_000, "Gemini reads milliseconds");
    assert!(s.project.join(".gemini/settings.json.bak").exists());

    let codex = read(&s.project.join(".codex/hooks.json"));
    assert_eq!(codex["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"], 10);
    let cursor = read(&s.project.join(".cursor/hooks.json"));
    assert_eq!(cursor["version"], 1);
    assert!(cursor["hooks"]["beforeShellExecution"][0]["command"]
        .as_str()
        .unwrap()
        .ends_with("run --host cursor"));
    let copilot = read(&s.project.join(".github/hooks/hookrules.json"));
    assert!(copilot["hooks"]["preToolUse"][0]["bash"]
        .as_str()
        .unwrap()
        .ends_with("run --host copilot --event preToolUse"));
    assert_eq!(copilot["hooks"]["preToolUse"][0]["timeoutSec"], 10);

    // VS Code already runs Copilot's file: nothing more is written.
    let (code, out) = init_host(&s, "vscode");
    assert_eq!(code, 0);
    assert!(out.contains("nothing to do"), "{out}");
    assert!(!s
        .project
        .join(".github/hooks/hookrules-vscode.json")
        .exists());

    let f = findings(&s);
    for host in ["Codex CLI", "Gemini CLI", "Cursor", "Copilot CLI"] {
        assert!(
            has(&f, Level::Ok, &format!("{host} (")),
            "{host}:\n{}",
            show(&f)
        );
    }
    // The one error: Codex has not trusted the new hooks yet (it would skip them).
    assert!(
        has(&f, Level::Error, "Codex skips these hooks without a word"),
        "{}",
        show(&f)
    );
    assert!(
        !f.iter()
            .any(|x| x.level == Level::Error && !x.text.contains("Codex skips")),
        "{}",
        show(&f)
    );

    // Uninstall removes ours only.
    let args = UninstallArgs {
        host: Some("gemini".into()),
        ..Default::default()
    };
    let (mut out, mut err) = (vec![], vec![]);
    assert_eq!(init::uninstall(&args, &s.ctx, &mut out, &mut err), 0);
    let g = read(&gemini);
    assert_eq!(g["hooks"]["BeforeTool"].as_array().unwrap().len(), 1);
    assert_eq!(
        g["hooks"]["BeforeTool"][0]["hooks"][0]["command"],
        "./mine.sh"
    );
    assert!(g["hooks"].get("AfterTool").is_none());
    assert_eq!(g["theme"], "dark");

    let (code, out) = init_host(&s, "nonesuch");
    assert_eq!(code, 2);
    assert!(out.contains("unknown --host"), "{out}");
}

#[test]
fn doctor_reports_missing_binaries_duplicates_wrong_units_and_the_protection() {
    let s = scratch();
    let claude = s.project.join(".claude");
    std::fs::create_dir_all(&claude).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    // Project and local settings both register hookrules for PreToolUse.
    for file in ["settings.json", "settings.local.json"] {
        std::fs::write(
            claude.join(file),
            json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": exe, "args": ["run"], "timeout": 10}]}]}}).to_string(),
        )
        .unwrap();
    }
    // Codex with a missing binary and a timeout in milliseconds.
    std::fs::create_dir_all(s.project.join(".codex")).unwrap();
    std::fs::write(
        s.project.join(".codex/hooks.json"),
        json!({"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "/nowhere/hookrules run --host codex", "timeout": 5000}]}]}}).to_string(),
    )
    .unwrap();
    // Gemini with a timeout in seconds where milliseconds are read.
    std::fs::create_dir_all(s.project.join(".gemini")).unwrap();
    std::fs::write(
        s.project.join(".gemini/settings.json"),
        json!({"hooks": {"BeforeTool": [{"hooks": [{"type": "command", "command": format!("{exe} run --host gemini"), "timeout": 10}]}]}}).to_string(),
    )
    .unwrap();
    // A hookrules of another version for Cursor.
    let other = s.home.join("old/hookrules");
    std::fs::create_dir_all(other.parent().unwrap()).unwrap();
    std::fs::write(
        &other,
        "#!/bin/sh\necho 'hookrules 0.0.9 (commit x, release build, t, from source)'\n",
    )
    .unwrap();
    std::fs::set_permissions(&other, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(s.project.join(".cursor")).unwrap();
    std::fs::write(
        s.project.join(".cursor/hooks.json"),
        json!({"version": 1, "hooks": {"beforeShellExecution": [{"command": format!("{} run --host cursor", other.display())}]}}).to_string(),
    )
    .unwrap();

    let f = findings(&s);
    let all = show(&f);
    assert!(has(&f, Level::Warn, "answered twice: PreToolUse"), "{all}");
    assert!(
        has(&f, Level::Error, "/nowhere/hookrules does not exist"),
        "{all}"
    );
    assert!(
        has(&f, Level::Warn, "timeout 5000 is in seconds for Codex CLI"),
        "{all}"
    );
    assert!(
        has(
            &f,
            Level::Warn,
            "timeout 10 is in milliseconds for Gemini CLI"
        ),
        "{all}"
    );
    assert!(has(&f, Level::Warn, "is `hookrules 0.0.9"), "{all}");
    assert!(has(&f, Level::Ok, "built-in protection is on"), "{all}");

    // A project policy that does not keep the built-in pack turns the protection off.
    let pol = s.project.join(".claude/hookrules");
    std::fs::create_dir_all(&pol).unwrap();
    std::fs::write(
        pol.join("project.toml"),
        "[[rule]]\nid = \"note\"\nevents = [\"SessionStart\"]\ncontext = \"hello\"\n",
    )
    .unwrap();
    let f = findings(&s);
    let protected = has(&f, Level::Ok, "built-in protection is on");
    let off = has(&f, Level::Error, "built-in protection is OFF");
    assert!(protected != off, "{}", show(&f));
    // Which one holds depends on whether layers keep the built-in pack on by
    // themselves; doctor must say which, from the policies' own decisions.
    assert!(
        has(
            &f,
            Level::Ok,
            "policies in force (from the user, project and local layers)"
        ),
        "{}",
        show(&f)
    );
}

/// Codex runs a hook only when its hash is trusted in the user's config.toml, and a
/// project's .codex/ only in a trusted project, and skips the rest without a word:
/// doctor says which of hookrules' Codex hooks it will run. (The hash itself is
/// checked against the real client by the unit test in src/cli/codex_trust.rs and,
/// hook by hook, by tests/e2e/codex.)
#[test]
fn codex_hooks_are_checked_against_codexs_trust_record() {
    use hookrules::cli::codex_trust::hook_hash;
    let mut s = scratch();
    let codex_home = s.home.join("codex-home");
    s.ctx
        .env
        .set("CODEX_HOME", codex_home.display().to_string());
    let args = InitArgs {
        host: Some("codex".into()),
        user: true,
        ..Default::default()
    };
    let (mut out, mut err) = (vec![], vec![]);
    assert_eq!(init::init(&args, &s.ctx, &mut out, &mut err), 0);
    let said = String::from_utf8_lossy(&out).to_string();
    assert!(said.contains("open /hooks and trust"), "{said}");
    let hooks_json = codex_home.join("hooks.json");

    // Nothing trusted yet: the tool hooks are skipped, an error.
    let f = findings(&s);
    assert!(
        has(
            &f,
            Level::Error,
            "not trusted: PreToolUse, PermissionRequest"
        ),
        "{}",
        show(&f)
    );
    assert!(
        has(&f, Level::Error, "so no tool call is checked"),
        "{}",
        show(&f)
    );

    // Trust recorded as Codex writes it; one hash stale, one hook turned off.
    let file = read(&hooks_json);
    let mut config = String::from("model = \"x\"\n");
    for (event, groups) in file["hooks"].as_object().unwrap() {
        let handler = &groups[0]["hooks"][0];
        let snake = match event.as_str() {
            "PreToolUse" => "pre_tool_use".to_string(),
            e => e
                .chars()
                .enumerate()
                .flat_map(|(i, c)| {
                    let lower = c.to_ascii_lowercase();
                    if c.is_ascii_uppercase() && i > 0 {
                        vec!['_', lower]
                    } else {
                        vec![lower]
                    }
                })
                .collect(),
        };
        let hash = match event.as_str() {
            "Stop" => "sha256:0000".to_string(),
            _ => hook_hash(event, None, handler).unwrap(),
        };
        config.push_str(&format!(
            "[hooks.state.\"{}:{snake}:0:0\"]\ntrusted_hash = \"{hash}\"\n{}",
            hooks_json.display(),
            if event == "SessionStart" {
                "enabled = false\n"
            } else {
                ""
            }
        ));
    }
    std::fs::write(codex_home.join("config.toml"), &config).unwrap();
    let f = findings(&s);
    let all = show(&f);
    assert!(!has(&f, Level::Error, "Codex skips"), "{all}");
    assert!(
        has(
            &f,
            Level::Warn,
            "changed since you trusted them: Stop; turned off: SessionStart"
        ),
        "{all}"
    );

    // All trusted.
    let config = config
        .replace(
            "sha256:0000",
            &hook_hash("Stop", None, &file["hooks"]["Stop"][0]["hooks"][0]).unwrap(),
        )
        .replace("enabled = false\n", "");
    std::fs::write(codex_home.join("config.toml"), &config).unwrap();
    let f = findings(&s);
    assert!(
        has(&f, Level::Ok, "Codex trusts all 10 of hookrules' hooks"),
        "{}",
        show(&f)
    );

    // A project file: Codex reads it only in a trusted project.
    let args = InitArgs {
        host: Some("codex".into()),
        ..Default::default()
    };
    let (mut out, mut err) = (vec![], vec![]);
    assert_eq!(init::init(&args, &s.ctx, &mut out, &mut err), 0);
    let said = String::from_utf8_lossy(&out).to_string();
    assert!(said.contains("only in a project you trust"), "{said}");
    let f = findings(&s);
    assert!(
        has(&f, Level::Warn, "only in a trusted project"),
        "{}",
        show(&f)
    );
    std::fs::write(
        codex_home.join("config.toml"),
        format!(
            "{config}[projects.\"{}\"]\ntrust_level = \"untrusted\"\n",
            s.project.display()
        ),
    )
    .unwrap();
    let f = findings(&s);
    assert!(
        has(&f, Level::Error, "the project is `untrusted`"),
        "{}",
        show(&f)
    );
}

/// `doctor --format json` through the real binary: the same findings as the text
/// report, line for line, under the documented keys, and the same exit code.
#[test]
fn doctor_json_is_the_text_report_with_stable_keys() {
    let s = scratch();
    let codex_home = s.home.join(".codex");
    let exe = env!("CARGO_BIN_EXE_hookrules");
    let run = |args: &[&str]| {
        std::process::Command::new(exe)
            .args(args)
            .env_clear()
            .env("HOME", &s.home)
            .env("CODEX_HOME", &codex_home)
            .env("PATH", "/usr/bin:/bin")
            .env("NO_COLOR", "1")
            .current_dir(&s.project)
            .output()
            .unwrap()
    };
    // Codex hooks not yet trusted: an error, exit 1 both ways.
    assert!(run(&["init", "--host", "codex", "--user"]).status.success());
    let text = run(&["doctor"]);
    let json = run(&["doctor", "--format", "json"]);
    assert_eq!(text.status.code(), Some(1));
    assert_eq!(json.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&json.stdout).expect("doctor --format json prints JSON");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["version", "ok", "errors", "warnings", "findings"]);
    assert_eq!(v["ok"], false);
    let findings = v["findings"].as_array().unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let lines: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), findings.len(), "{text}\n{v:#}");
    for (line, f) in lines.iter().zip(findings) {
        let keys: Vec<&str> = f.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["level", "check", "path", "message"]);
        let level = f["level"].as_str().unwrap();
        assert!(["ok", "warn", "error"].contains(&level));
        assert_eq!(
            line.split_once(' ').unwrap().0,
            level,
            "the text line's mark is the finding's level"
        );
        assert_eq!(line[5..].trim_start(), f["message"].as_str().unwrap());
    }
    let errors = findings.iter().filter(|f| f["level"] == "error").count();
    let warnings = findings.iter().filter(|f| f["level"] == "warn").count();
    assert_eq!(v["errors"], errors);
    assert_eq!(v["warnings"], warnings);
    assert!(text.contains(&format!("{errors} error(s), {warnings} warning(s)")));
    let hooks_json = codex_home.join("hooks.json").display().to_string();
    let trust = findings
        .iter()
        .find(|f| f["check"] == "codex_trust")
        .expect("a codex_trust finding");
    assert_eq!(trust["level"], "error");
    assert_eq!(trust["path"], hooks_json.as_str());
    assert!(findings
        .iter()
        .any(|f| f["check"] == "wired" && f["path"] == hooks_json.as_str()));
    assert!(findings
        .iter()
        .any(|f| f["check"] == "protection" && f["level"] == "ok" && f["path"].is_null()));
}

/// A FIFO at `p` (whatever was there is removed first).
fn fifo(p: &Path) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(p);
    let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
    assert_eq!(
        unsafe { libc::mkfifo(c.as_ptr(), 0o644) },
        0,
        "{}",
        p.display()
    );
}

/// Every file below `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Run `c` with `input` on its stdin and wait at most `secs`: past that its
/// process group is killed and the test fails (a command that waits on a
/// FIFO never returns by itself).
fn within(
    c: &mut std::process::Command,
    input: &[u8],
    secs: u64,
    what: &str,
) -> std::process::Output {
    use std::io::{Read, Write};
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;
    let start = std::time::Instant::now();
    let mut child = c
        .process_group(0)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(input);
    // Read on threads, so a full pipe cannot stall the child.
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = vec![];
        let _ = stderr.read_to_end(&mut v);
        v
    });
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return std::process::Output {
                status,
                stdout: out.join().unwrap(),
                stderr: err.join().unwrap(),
            };
        }
        if start.elapsed() > std::time::Duration::from_secs(secs) {
            // SAFETY: kill(2) on the process group the child leads.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            panic!("{what} did not finish within {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// The binary with the scratch home and project and nothing else of the
/// environment (no `XDG_*`: state and cache are in the home).
fn hookrules(s: &Scratch, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_hookrules"));
    c.args(args)
        .env_clear()
        .env("HOME", &s.home)
        .env("CLAUDE_PROJECT_DIR", &s.project)
        .env("PATH", "/usr/bin:/bin")
        .env("NO_COLOR", "1")
        .current_dir(&s.project);
    c
}

/// One PreToolUse Bash event through `run` (in time); its answer.
fn run_bash(s: &Scratch, command: &str) -> String {
    let event = json!({
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "session_id": "s", "tool_use_id": "t1",
        "cwd": s.project,
    });
    let o = within(
        &mut hookrules(s, &["run"]),
        event.to_string().as_bytes(),
        10,
        "run",
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// What a command printed, both streams.
fn said(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// `doctor --format json`, in time: its findings.
fn doctor_json(s: &Scratch) -> Vec<Value> {
    let o = within(
        &mut hookrules(s, &["doctor", "--format", "json"]),
        b"",
        10,
        "doctor --format json",
    );
    let v: Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", said(&o)));
    v["findings"].as_array().unwrap().clone()
}

/// A finding other than `ok` about `p` that contains `text`.
fn names(f: &[Value], p: &Path, text: &str) -> bool {
    let p = p.display().to_string();
    f.iter().any(|x| {
        let m = x["message"].as_str().unwrap_or_default();
        x["level"] != "ok" && (x["path"] == p.as_str() || m.contains(&p)) && m.contains(text)
    })
}

/// Issue 30: a FIFO where hookrules reads (or anything else that is not a
/// regular file) never makes a command the user runs wait: `doctor`, `check`,
/// `init`, `uninstall`, `trust`, `log` and `report` finish at once, `doctor`
/// names each hook file, policy, cache and state file that is one (a FIFO
/// `.claude/settings.json` hung it for good), and the hook still denies.
#[test]
fn a_fifo_wherever_the_commands_read_is_named_and_never_waited_on() {
    let s = scratch();
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&s.project)
        .status()
        .unwrap();
    assert!(git.success());
    let o = within(
        &mut hookrules(&s, &["init", "--client-version", "2.1.330"]),
        b"",
        20,
        "init",
    );
    assert!(o.status.success(), "{}", said(&o));
    for host in ["codex", "gemini", "cursor", "copilot"] {
        for user in [&[][..], &["--user"]] {
            let args = [&["init", "--host", host][..], user].concat();
            let _ = within(&mut hookrules(&s, &args), b"", 20, "init --host");
        }
    }
    let pol = s.project.join(".claude/hookrules");
    std::fs::write(
        pol.join("me.local.toml"),
        "[[override]]\nrule = \"*\"\nenabled = false\n",
    )
    .unwrap();
    std::fs::write(pol.join("base.toml"), "extends = [\"shared.toml\"]\n").unwrap();
    std::fs::create_dir_all(s.home.join(".config/hookrules")).unwrap();
    std::fs::write(s.home.join(".config/hookrules/user.toml"), "").unwrap();
    // Old enough to be cached (files changed within 2 s are not).
    std::thread::sleep(std::time::Duration::from_millis(2100));
    let _ = run_bash(&s, "ls");
    assert!(run_bash(&s, "rm -rf /").contains(r#""permissionDecision":"deny""#));
    let state = s.home.join(".local/state/hookrules");
    let of = |dir: &Path, ext: &str| -> Vec<PathBuf> {
        walk(dir)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == ext))
            .collect()
    };
    let cache = of(&s.home.join(".cache/hookrules"), "hrc");
    let log = of(&state.join("projects"), "jsonl");
    assert!(
        !cache.is_empty() && !log.is_empty(),
        "cache {cache:?}, log {log:?}"
    );

    // The settings layers and every host's hook files (the project's and the
    // user's), as doctor lists them.
    let mut hook_files: Vec<PathBuf> = hookrules::cli::wiring::settings_layers(&s.ctx)
        .into_iter()
        .map(|(_, p)| p)
        .collect();
    hook_files.extend(
        hookrules::cli::wiring::agent_files(&s.ctx)
            .into_iter()
            .map(|(_, p)| p),
    );
    hook_files.push(s.project.join(".github/hooks/extra.json"));
    hook_files.sort();
    hook_files.dedup();
    assert!(hook_files.len() >= 10, "{hook_files:?}");
    // Policies: the user's, the project's, a local one, one a policy extends.
    let policies = [
        s.home.join(".config/hookrules/fifo.toml"),
        pol.join("fifo.toml"),
        pol.join("fifo.local.toml"),
        pol.join("shared.toml"),
    ];
    // The cache, the state files, the plugin list, Codex's config, the files
    // git reads to tell whether a local policy is the user's own.
    let integrity = state.join("integrity.jsonl");
    let mut others = vec![
        integrity.clone(),
        s.home.join(".claude/plugins/installed_plugins.json"),
        s.home.join(".codex/config.toml"),
        state.join("trust/0000.json"),
        state.join("allow/granted/0000.json"),
        state.join("guarded/0000.ids"),
        state.join("otlp/spool.jsonl"),
        s.project.join(".gitignore"),
        pol.join(".gitignore"),
        s.project.join(".env"),
    ];
    others.extend(cache.iter().cloned());
    others.extend(log.iter().cloned());
    for p in hook_files.iter().chain(&policies).chain(&others) {
        fifo(p);
    }

    let f = doctor_json(&s);
    let all = serde_json::to_string_pretty(&f).unwrap();
    for p in hook_files.iter().chain(&policies).chain(&cache).chain(&log) {
        assert!(
            names(&f, p, "FIFO"),
            "doctor names the FIFO {}:\n{all}",
            p.display()
        );
    }
    assert!(names(&f, &integrity, "FIFO"), "{all}");
    let o = within(&mut hookrules(&s, &["doctor"]), b"", 10, "doctor");
    assert_eq!(
        o.status.code(),
        Some(1),
        "settings it cannot read are an error"
    );
    let o = within(&mut hookrules(&s, &["check"]), b"", 10, "check");
    assert!(
        said(&o).contains("FIFO"),
        "check names the FIFO policies: {}",
        said(&o)
    );
    for args in [
        &["init", "--client-version", "2.1.330"][..],
        &["init", "--host", "codex"],
        &["uninstall"],
        &["log"],
        &["report"],
    ] {
        let o = within(&mut hookrules(&s, args), b"", 10, &args.join(" "));
        assert!(
            o.status.code() == Some(2) && said(&o).contains("FIFO"),
            "{args:?} says what it refuses: {}",
            said(&o)
        );
    }
    // `trust`, the user's, in a terminal.
    let line = format!("{} trust", env!("CARGO_BIN_EXE_hookrules"));
    let mut c = std::process::Command::new("script");
    c.args(["-qec", &line, "/dev/null"])
        .env_clear()
        .env("HOME", &s.home)
        .env("CLAUDE_PROJECT_DIR", &s.project)
        .env("PATH", "/usr/bin:/bin")
        .env("SHELL", "/bin/sh")
        .current_dir(&s.project);
    let _ = within(&mut c, b"", 10, "trust");
    // The hook answers, fail-safe; also as the plugin.
    assert!(run_bash(&s, "rm -rf /").contains(r#""permissionDecision":"deny""#));
    let event = json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf /"}, "session_id": "s", "cwd": s.project});
    let o = within(
        &mut hookrules(&s, &["run", "--via", "plugin"]),
        event.to_string().as_bytes(),
        10,
        "run --via plugin",
    );
    assert!(
        said(&o).contains(r#""permissionDecision":"deny""#),
        "{}",
        said(&o)
    );
}

/// A handler's program that never answers `--version` (a script named
/// hookrules outside the project) does not hang `doctor` either: after 5 s it is a
/// program that "does not run".
#[test]
fn a_handler_program_that_never_answers_does_not_hang_doctor() {
    let s = scratch();
    let script = s.home.join("tools/hookrules");
    std::fs::create_dir_all(script.parent().unwrap()).unwrap();
    std::fs::write(&script, "#!/bin/sh\nexec sleep 60\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(s.project.join(".claude")).unwrap();
    std::fs::write(
        s.project.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": script, "args": ["run"], "timeout": 10}]}]}})
        .to_string(),
    )
    .unwrap();
    let o = within(&mut hookrules(&s, &["doctor"]), b"", 15, "doctor");
    assert!(
        said(&o).contains(&format!("{} does not run", script.display())),
        "{}",
        said(&o)
    );
}

/// A file of `s`'s project (or anywhere) that is an executable shell script
/// which, when run, leaves `marker` behind.
fn write_script(path: &Path, marker: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\ntouch '{}'\necho 'hookrules 0.0.1'\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `doctor` in a repository just cloned runs none of its code: a hook
/// handler that is a file of the project is named as such, not run to ask
/// its version (it would run with the user's rights the moment they ask
/// whether the guard is on).
#[test]
fn doctor_runs_no_program_of_the_project() {
    let s = scratch();
    let marker = s.home.join("ran");
    let script = s.project.join("tools/hookrules");
    write_script(&script, &marker);
    std::fs::create_dir_all(s.project.join(".claude")).unwrap();
    std::fs::write(
        s.project.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": "./tools/hookrules run", "timeout": 10}]}]}})
        .to_string(),
    )
    .unwrap();
    let o = within(&mut hookrules(&s, &["doctor"]), b"", 15, "doctor");
    assert!(
        !marker.exists(),
        "doctor ran the project's program: {}",
        said(&o)
    );
    assert!(
        said(&o).contains("is a file of the project"),
        "{}",
        said(&o)
    );
}

/// Asking git whether the personal settings file is committed runs neither
/// a `git` the project puts on PATH nor a program the repository's own
/// configuration names (`core.fsmonitor`).
#[test]
fn doctor_runs_no_git_command_the_repository_configures() {
    let s = scratch();
    let marker = s.home.join("ran");
    let git = |args: &[&str]| crate::support::git(&s.project, args);
    std::fs::create_dir_all(s.project.join(".claude")).unwrap();
    std::fs::write(s.project.join(".claude/settings.local.json"), "{}").unwrap();
    git(&["init", "-q"]);
    git(&["add", "-f", ".claude/settings.local.json"]);
    git(&["commit", "-qm", "x"]);
    write_script(&s.project.join("bin/git"), &marker);
    write_script(&s.project.join("monitor"), &marker);
    git(&[
        "config",
        "core.fsmonitor",
        &s.project.join("monitor").display().to_string(),
    ]);
    let path = format!("{}:/usr/bin:/bin", s.project.join("bin").display());
    let o = within(
        hookrules(&s, &["doctor"]).env("PATH", &path),
        b"",
        15,
        "doctor",
    );
    assert!(
        !marker.exists(),
        "doctor ran the repository's code: {}",
        said(&o)
    );
    assert!(
        said(&o).contains(".claude/settings.local.json is committed to git"),
        "the committed personal file is still found: {}",
        said(&o)
    );
}
