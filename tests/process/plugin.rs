//! The Claude Code plugin in this repository (`.claude-plugin/marketplace.json`,
//! `plugin/`): its manifest agrees with the crate, its hooks cover every event
//! `init` registers, and its launcher, run as the client runs it, finds the
//! binary of its version, answers visibly and never blocks without one, and
//! stays quiet where a settings.json handler already answers.
//! (tests/e2e runs the plugin inside the real client.)

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json(path: &str) -> Value {
    let text = std::fs::read_to_string(repo().join(path)).expect(path);
    serde_json::from_str(&text).expect(path)
}

#[test]
fn manifests_name_the_crate_version_and_the_plugin_folder() {
    let version = env!("CARGO_PKG_VERSION");
    let plugin = json("plugin/.claude-plugin/plugin.json");
    assert_eq!(plugin["name"], "hookrules");
    assert_eq!(plugin["version"], version);
    let market = json(".claude-plugin/marketplace.json");
    let entry = &market["plugins"][0];
    assert_eq!(entry["name"], "hookrules");
    assert_eq!(entry["source"], "./plugin");
    assert_eq!(entry["version"], version);
    let launcher = std::fs::read_to_string(repo().join("plugin/bin/hookrules-launch")).unwrap();
    assert!(
        launcher.contains(&format!("VERSION=\"{version}\"")),
        "the launcher looks for another version than the crate's"
    );
}

#[test]
fn hooks_cover_every_event_init_registers_on_any_client() {
    let hooks = json("plugin/hooks/hooks.json");
    let hooks = hooks["hooks"].as_object().expect("hooks object");
    let mut got: Vec<&str> = hooks.keys().map(String::as_str).collect();
    got.sort();
    // Events every client with plugins knows (an unknown event key can disable
    // the whole file on an older client, reference §6 item 3).
    let mut want = hookrules::cli::init::events_for(None);
    want.sort();
    assert_eq!(got, want);
    for (event, groups) in hooks {
        let h = &groups[0]["hooks"][0];
        assert_eq!(h["type"], "command", "{event}");
        assert_eq!(
            h["command"], "\"${CLAUDE_PLUGIN_ROOT}/bin/hookrules-launch\" run --via plugin",
            "{event}"
        );
        let t = h["timeout"].as_u64().expect("timeout");
        assert!(
            (1..=600).contains(&t),
            "{event}: timeout {t} is not seconds"
        );
        assert!(
            groups[0].get("matcher").is_none(),
            "{event}: rules carry their own matchers"
        );
    }
}

/// Run the launcher as the client would: shell form, plugin variables set.
fn launch(
    home: &Path,
    path_env: &str,
    extra: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
) -> Output {
    launch_with(&mut launch_in(home), home, path_env, extra, args, stdin)
}

/// The launcher's command, started in `cwd`.
fn launch_in(cwd: &Path) -> Command {
    let mut c = Command::new("/bin/sh");
    c.current_dir(cwd);
    c
}

fn launch_with(
    c: &mut Command,
    home: &Path,
    path_env: &str,
    extra: &[(&str, &str)],
    args: &[&str],
    stdin: &[u8],
) -> Output {
    c.arg("-c")
        .arg("\"$CLAUDE_PLUGIN_ROOT/bin/hookrules-launch\" \"$@\"")
        .arg("launch")
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", path_env)
        .env("CLAUDE_PLUGIN_ROOT", repo().join("plugin"))
        .env("CLAUDE_PLUGIN_DATA", home.join("plugin-data"))
        .env("CLAUDE_PROJECT_DIR", home.join("project"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in extra {
        c.env(k, v);
    }
    let mut child = c.spawn().unwrap();
    // A launcher that fails before reading stdin closes the pipe: not an error here.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

const RM: &[u8] = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"/tmp","session_id":"s"}"#;

#[test]
fn without_a_binary_every_event_gets_a_visible_note_and_nothing_is_blocked() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join("project")).unwrap();
    let o = launch(home, "/usr/bin:/bin", &[], &["run", "--via", "plugin"], RM);
    assert_eq!(o.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let msg = v["systemMessage"].as_str().expect("systemMessage");
    assert!(msg.contains("policies are NOT enforced"), "{msg}");
    assert!(
        msg.contains("no hookrules 0.1.0 binary was found") || msg.contains("not 0.1.0"),
        "{msg}"
    );
    assert!(
        v.get("hookSpecificOutput").is_none() && v.get("decision").is_none(),
        "{v}"
    );

    // A hookrules of another version on PATH is named, and not used.
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let fake = bin.join("hookrules");
    std::fs::write(
        &fake,
        "#!/bin/sh\necho 'hookrules 9.9.9 (commit x, release build, t, from source)'\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let o = launch(home, &path, &[], &["run", "--via", "plugin"], RM);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    // In a folder the user can write: named, not run (not even for its version).
    assert!(
        v["systemMessage"].as_str().unwrap().contains("is not used"),
        "{v}"
    );

    // Slash commands say so and fail.
    let o = launch(home, "/usr/bin:/bin", &[], &["check"], b"");
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cargo install"));
}

#[test]
fn with_the_binary_of_its_version_the_launcher_runs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join("project")).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    for extra in [vec![("HOOKRULES_BIN", exe)], vec![]] {
        if extra.is_empty() {
            // Found where install.sh puts it instead.
            std::fs::create_dir_all(home.join(".local/bin")).unwrap();
            std::os::unix::fs::symlink(exe, home.join(".local/bin/hookrules")).unwrap();
        }
        let o = launch(
            home,
            "/usr/bin:/bin",
            &extra,
            &["run", "--via", "plugin"],
            RM,
        );
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
        let _ = std::fs::remove_dir_all(home.join("plugin-data"));
    }
    // The found path is remembered; a vanished binary is looked for again.
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[("HOOKRULES_BIN", exe)],
        &["run"],
        RM,
    );
    assert!(o.status.success());
    let cached = std::fs::read_to_string(home.join("plugin-data/hookrules-0.1.0.path")).unwrap();
    assert_eq!(cached.trim(), exe);
}

/// The first SessionStart of a version installs shell completions and manual
/// pages (as install.sh does); tool calls do not, and later sessions do not again.
#[test]
fn the_first_session_start_installs_completions_and_manual_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join("project")).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    let page = home.join(".local/share/man/man1/hookrules.1");
    let bash = home.join(".local/share/bash-completion/completions/hookrules");
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[("HOOKRULES_BIN", exe)],
        &["run", "--via", "plugin"],
        RM,
    );
    assert!(o.status.success());
    assert!(
        !page.exists() && !bash.exists(),
        "a tool call installed files"
    );
    let env_file = home.join("env");
    let start =
        br#"{"hook_event_name":"SessionStart","source":"startup","cwd":"/tmp","session_id":"s"}"#;
    let with = [
        ("HOOKRULES_BIN", exe),
        ("CLAUDE_ENV_FILE", env_file.to_str().unwrap()),
    ];
    let o = launch(
        home,
        "/usr/bin:/bin",
        &with,
        &["run", "--via", "plugin"],
        start,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        std::fs::read_to_string(&page).unwrap().starts_with(".ie"),
        "not a man page"
    );
    assert!(std::fs::read_to_string(&bash)
        .unwrap()
        .contains("_hookrules()"));
    assert!(home
        .join(".config/fish/completions/hookrules.fish")
        .exists());
    // Once per version: a page the user removed stays removed.
    std::fs::remove_file(&page).unwrap();
    let o = launch(
        home,
        "/usr/bin:/bin",
        &with,
        &["run", "--via", "plugin"],
        start,
    );
    assert!(o.status.success());
    assert!(!page.exists());
}

#[test]
fn a_settings_json_install_answers_and_the_plugin_stays_quiet() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    std::fs::write(
        project.join(".claude/settings.json"),
        serde_json::json!({"hooks": {"PreToolUse": [{"hooks": [
            {"type": "command", "command": exe, "args": ["run"], "timeout": 10}]}]}})
        .to_string(),
    )
    .unwrap();
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[("HOOKRULES_BIN", exe)],
        &["run", "--via", "plugin"],
        RM,
    );
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "{}",
        "quiet is an empty answer, not none"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("stays quiet"));
    // An event the settings file does not register is still answered by the plugin.
    let stop =
        br#"{"hook_event_name":"UserPromptSubmit","prompt":"hi","cwd":"/tmp","session_id":"s"}"#;
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[("HOOKRULES_BIN", exe)],
        &["run", "--via", "plugin"],
        stop,
    );
    assert!(!String::from_utf8_lossy(&o.stderr).contains("stays quiet"));
}

/// Being named hookrules is not answering: a settings handler that would not
/// run, or would answer less than the plugin, leaves the plugin answering
/// (issue 26: a committed project handler silenced it).
#[test]
fn a_settings_handler_that_would_not_answer_as_the_plugin_does_not_silence_it() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(project.join("tools")).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    // The repository's own program named hookrules, answering nothing.
    let fake = project.join("tools/hookrules");
    std::fs::write(&fake, "#!/bin/sh\ncat >/dev/null\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let fake = fake.to_str().unwrap();
    let handler = |command: &str, args: Value| {
        let mut h = serde_json::json!({"type": "command", "command": command, "timeout": 10});
        if !args.is_null() {
            h["args"] = args;
        }
        h
    };
    let group = |h: Value| serde_json::json!({"hooks": [h]});
    let cases = [
        (
            "a binary that is not there",
            group(handler(
                "/nonexistent/hookrules",
                serde_json::json!(["run"]),
            )),
        ),
        (
            "the repository's own hookrules",
            group(handler(fake, serde_json::json!(["run"]))),
        ),
        (
            "--no-builtin",
            group(handler(exe, serde_json::json!(["run", "--no-builtin"]))),
        ),
        (
            "shell form with a flag",
            group(handler(
                &format!("{exe} run --policies /dev/null"),
                Value::Null,
            )),
        ),
        (
            "a matcher that never fires",
            serde_json::json!({"matcher": "NeverFires", "hooks": [handler(exe, serde_json::json!(["run"]))]}),
        ),
        (
            "an if filter",
            group({
                let mut h = handler(exe, serde_json::json!(["run"]));
                h["if"] = "Bash(nothing *)".into();
                h
            }),
        ),
        (
            "async",
            group({
                let mut h = handler(exe, serde_json::json!(["run"]));
                h["async"] = true.into();
                h
            }),
        ),
        (
            "a timeout too short to answer",
            group({
                let mut h = handler(exe, serde_json::json!(["run"]));
                h["timeout"] = 0.001.into();
                h
            }),
        ),
    ];
    for (what, g) in cases {
        std::fs::write(
            project.join(".claude/settings.json"),
            serde_json::json!({"hooks": {"PreToolUse": [g]}}).to_string(),
        )
        .unwrap();
        let o = launch(
            home,
            "/usr/bin:/bin",
            &[("HOOKRULES_BIN", exe)],
            &["run", "--via", "plugin"],
            RM,
        );
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(!stderr.contains("stays quiet"), "{what}: {stderr}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(
            out.contains(r#""permissionDecision":"deny""#),
            "{what}: the plugin answers: {out}"
        );
    }
    // Found on PATH under its name, with `run` alone: it answers as the plugin
    // would, so the plugin stays quiet (the event is answered once).
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(exe, bin.join("hookrules")).unwrap();
    std::fs::write(
        project.join(".claude/settings.json"),
        serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": "hookrules run"}]}]}})
        .to_string(),
    )
    .unwrap();
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let o = launch(
        home,
        &path,
        &[("HOOKRULES_BIN", exe)],
        &["run", "--via", "plugin"],
        RM,
    );
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("stays quiet"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// Issue 30: beside the handler `hookrules init` writes (exec form, `run
/// --timeout N` with N its own timeout), the plugin stays quiet, as the README
/// says, so each event is answered once (it answered too: `--timeout` made the
/// handler look like another). A `--timeout` that gives it less time than the
/// plugin has, or more than the client waits, or another flag beside it, and
/// the plugin answers.
#[test]
fn beside_the_handler_init_writes_the_plugin_stays_quiet() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    let init = Command::new(exe)
        .args(["init", "--client-version", "2.1.330"])
        .env_clear()
        .env("HOME", home)
        .env("CLAUDE_PROJECT_DIR", &project)
        .env("PATH", "/usr/bin:/bin")
        .current_dir(&project)
        .output()
        .unwrap();
    assert!(init.status.success(), "{init:?}");
    let settings = project.join(".claude/settings.json");
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    let handler = written["hooks"]["PreToolUse"][0]["hooks"][0].clone();
    assert_eq!(
        handler["args"],
        serde_json::json!(["run", "--timeout", "10"]),
        "what init writes: {handler}"
    );
    let plugin = || {
        launch(
            home,
            "/usr/bin:/bin",
            &[("HOOKRULES_BIN", exe)],
            &["run", "--via", "plugin"],
            RM,
        )
    };
    let o = plugin();
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        "{}",
        "quiet beside init's handler: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("stays quiet"));
    // The handler itself answers: it denies.
    let mut c = Command::new(exe);
    c.args(
        handler["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap()),
    )
    .env_clear()
    .env("HOME", home)
    .env("CLAUDE_PROJECT_DIR", &project)
    .env("PATH", "/usr/bin:/bin")
    .current_dir(&project);
    let o = crate::support::feed_bytes(&mut c, RM);
    assert!(denies(&o), "{o:?}");

    let with = |args: Value, timeout: Value, command: &str| {
        let mut w = written.clone();
        for groups in w["hooks"].as_object_mut().unwrap().values_mut() {
            let h = &mut groups[0]["hooks"][0];
            h["command"] = command.into();
            h["args"] = args.clone();
            h["timeout"] = timeout.clone();
            if args.is_null() {
                h.as_object_mut().unwrap().remove("args");
            }
        }
        std::fs::write(&settings, w.to_string()).unwrap();
    };
    let quiet = |o: &Output| String::from_utf8_lossy(&o.stderr).contains("stays quiet");
    // Shell form, as written by hand: the same words.
    with(Value::Null, 10.into(), &format!("{exe} run --timeout 10"));
    assert!(quiet(&plugin()), "shell form of init's handler");
    with(
        serde_json::json!(["run", "--timeout", "30"]),
        60.into(),
        exe,
    );
    assert!(quiet(&plugin()), "more time, within the client's");
    for (what, args, timeout) in [
        (
            "less time than the plugin",
            serde_json::json!(["run", "--timeout", "1"]),
            10,
        ),
        (
            "more than the client waits",
            serde_json::json!(["run", "--timeout", "60"]),
            10,
        ),
        (
            "another flag beside it",
            serde_json::json!(["run", "--timeout", "10", "--no-builtin"]),
            10,
        ),
        ("no value", serde_json::json!(["run", "--timeout"]), 10),
        (
            "not a number",
            serde_json::json!(["run", "--timeout", "ten"]),
            10,
        ),
    ] {
        with(args, timeout.into(), exe);
        let o = plugin();
        assert!(
            !quiet(&o) && denies(&o),
            "{what}: the plugin answers: {o:?}"
        );
    }
}

/// Issue 30: a FIFO where the launcher or `run --via plugin` reads (the
/// project's settings files, the remembered path) never makes an event wait:
/// the binary is found, it answers, and it denies.
#[test]
fn a_fifo_in_place_of_the_settings_or_the_remembered_path_is_not_waited_on() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(home.join("plugin-data")).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    for p in [
        project.join(".claude/settings.json"),
        project.join(".claude/settings.local.json"),
        home.join(format!(
            "plugin-data/hookrules-{}.path",
            env!("CARGO_PKG_VERSION")
        )),
    ] {
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    }
    // In time, or `timeout` ends it (exit 124).
    let mut c = Command::new("/usr/bin/timeout");
    c.args(["-k", "1", "10", "/bin/sh"]).current_dir(home);
    let o = launch_with(
        &mut c,
        home,
        "/usr/bin:/bin",
        &[("HOOKRULES_BIN", exe)],
        &["run", "--via", "plugin"],
        RM,
    );
    assert_ne!(o.status.code(), Some(124), "the launcher waited on a FIFO");
    assert!(denies(&o), "{o:?}");
}

/// A repository's settings can set variables for every hook (`env`): the
/// binary it names there, or a PATH it sets, does not become the guard.
#[test]
fn a_binary_the_repository_names_in_its_settings_env_is_not_used() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("project");
    std::fs::create_dir_all(project.join(".claude")).unwrap();
    std::fs::create_dir_all(home.join(".local/bin")).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    std::os::unix::fs::symlink(exe, home.join(".local/bin/hookrules")).unwrap();
    // The repository's own "hookrules 0.1.0", answering nothing.
    let fake = project.join("tools/hookrules");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(
        &fake,
        "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'hookrules 0.1.0 (x)'; exit 0; }\ncat >/dev/null\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let tools = fake.parent().unwrap().display().to_string();
    let fake = fake.display().to_string();
    let path = format!("{tools}:/usr/bin:/bin");
    let denied =
        |o: &Output| String::from_utf8_lossy(&o.stdout).contains(r#""permissionDecision":"deny""#);
    // Control: set by the user, HOOKRULES_BIN chooses the binary (here, the
    // do-nothing one, which the launcher then answers for, fail-closed); a
    // PATH folder the user can write does not.
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[("HOOKRULES_BIN", &fake)],
        &["run", "--via", "plugin"],
        RM,
    );
    assert!(!denied(&o), "the user's HOOKRULES_BIN is used");
    assert_eq!(o.status.code(), Some(2), "and its silence is blocked");
    std::fs::remove_dir_all(home.join("plugin-data")).ok();
    let o = launch(home, &path, &[], &["run", "--via", "plugin"], RM);
    assert!(denied(&o), "a writable PATH folder does not choose");
    // Set by the project's settings (as the client applies them to hooks).
    for (name, extra, path) in [
        (
            "HOOKRULES_BIN",
            vec![("HOOKRULES_BIN", fake.as_str())],
            "/usr/bin:/bin",
        ),
        ("PATH", vec![], path.as_str()),
    ] {
        std::fs::remove_dir_all(home.join("plugin-data")).ok();
        let value = if name == "PATH" {
            path.to_string()
        } else {
            fake.clone()
        };
        std::fs::write(
            project.join(".claude/settings.local.json"),
            serde_json::json!({"env": {name: value}}).to_string(),
        )
        .unwrap();
        let o = launch(home, path, &extra, &["run", "--via", "plugin"], RM);
        assert!(
            denied(&o),
            "{name} from the repository: {} {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

/// A program named hookrules that prints this version and then does `body`;
/// it leaves `ran` behind when it is run for anything but its version.
fn fake(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let ran = path.with_extension("ran");
    std::fs::write(
        path,
        format!(
            "#!/bin/sh\n[ \"$1\" = --version ] && {{ echo 'hookrules 0.1.0 (x)'; exit 0; }}\n: > '{}'\ncat >/dev/null\n{body}\n",
            ran.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn ran(path: &Path) -> bool {
    path.with_extension("ran").exists()
}

fn denies(o: &Output) -> bool {
    String::from_utf8_lossy(&o.stdout).contains(r#""permissionDecision":"deny""#)
}

/// Which binary answers is decided by nothing a process can write for the
/// launcher: the path it remembers is used only while it is one of the places
/// an install puts hookrules, and a `hookrules` in a PATH folder the user can
/// write (or a relative one) is never run, not even for its version.
#[test]
fn the_remembered_path_and_planted_binaries_do_not_choose_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    let project = home.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let exe = env!("CARGO_BIN_EXE_hookrules");
    std::fs::create_dir_all(home.join(".local/bin")).unwrap();
    std::os::unix::fs::symlink(exe, home.join(".local/bin/hookrules")).unwrap();
    let cache = home.join("plugin-data/hookrules-0.1.0.path");
    let o = launch(home, "/usr/bin:/bin", &[], &["run", "--via", "plugin"], RM);
    assert!(denies(&o), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        std::fs::read_to_string(&cache).unwrap().trim(),
        home.join(".local/bin/hookrules").to_str().unwrap()
    );

    // The remembered path pointed elsewhere: at /bin/true, at a binary of one's
    // own in the plugin's data (printing the right version), at a script.
    let planted = home.join("plugin-data/bin/hookrules");
    fake(&planted, "echo '{}'");
    for other in [
        "/bin/true".into(),
        planted.clone(),
        home.join("x/hookrules"),
    ] {
        std::fs::write(&cache, format!("{}\n", other.display())).unwrap();
        let o = launch(home, "/usr/bin:/bin", &[], &["run", "--via", "plugin"], RM);
        assert!(denies(&o), "remembered {}: {:?}", other.display(), o);
    }
    assert!(!ran(&planted), "the planted binary ran");
    // Nor is the plugin's data folder a place binaries are taken from at a
    // SessionStart, when the launcher looks again.
    let env_file = home.join("env");
    let start =
        br#"{"hook_event_name":"SessionStart","source":"startup","cwd":"/tmp","session_id":"s"}"#;
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[("CLAUDE_ENV_FILE", env_file.to_str().unwrap())],
        &["run", "--via", "plugin"],
        start,
    );
    assert!(o.status.success(), "{o:?}");
    assert!(!ran(&planted), "the planted binary ran at SessionStart");

    // A hookrules planted earlier on PATH: in a folder the user can write, in a
    // relative folder (the project's tools/), in the project's node_modules.
    let in_home = home.join("bin/hookrules");
    let relative = project.join("tools/hookrules");
    let in_project = project.join("node_modules/.bin/hookrules");
    for f in [&in_home, &relative, &in_project] {
        fake(f, "echo '{}'");
    }
    let path = format!(
        "{}:tools:{}:/usr/bin:/bin",
        in_home.parent().unwrap().display(),
        in_project.parent().unwrap().display()
    );
    std::fs::remove_file(&cache).unwrap();
    let mut c = launch_in(&project);
    let o = launch_with(&mut c, home, &path, &[], &["run", "--via", "plugin"], RM);
    assert!(denies(&o), "{o:?}");
    // Without the installed binary: not enforced, said, and still not run.
    std::fs::remove_file(home.join(".local/bin/hookrules")).unwrap();
    let mut c = launch_in(&project);
    let o = launch_with(&mut c, home, &path, &[], &["run", "--via", "plugin"], RM);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("NOT enforced") && out.contains("is not used"),
        "{out}"
    );
    for f in [&in_home, &relative, &in_project] {
        assert!(!ran(f), "{} ran", f.display());
    }
}

/// A binary that leaves an event without an answer (no JSON object, no exit 2
/// of its own) gets the fail-closed answer from the launcher: exit 2 with the
/// reason, the client's "block" for every event that can block.
#[test]
fn a_binary_that_gives_no_answer_is_answered_fail_closed_by_the_launcher() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path();
    std::fs::create_dir_all(home.join("project")).unwrap();
    let installed = home.join(".local/bin/hookrules");
    let events: [&[u8]; 4] = [
        RM,
        br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"cwd":"/tmp","session_id":"s"}"#,
        br#"{"hook_event_name":"UserPromptSubmit","prompt":"hi","cwd":"/tmp","session_id":"s"}"#,
        br#"{"hook_event_name":"Stop","stop_hook_active":false,"cwd":"/tmp","session_id":"s"}"#,
    ];
    for (what, body) in [
        ("nothing, exit 0 (/bin/true)", "exit 0"),
        ("an error exit", "exit 1"),
        (
            "the loader's exit",
            "echo 'error while loading shared libraries' >&2; exit 127",
        ),
        ("killed", "kill -9 $$"),
        ("text, not JSON", "echo allow"),
        ("half an object", "printf '{\"hookSpecificOutput\":'"),
    ] {
        fake(&installed, body);
        for ev in events {
            let o = launch(home, "/usr/bin:/bin", &[], &["run", "--via", "plugin"], ev);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{what}: {o:?}");
            assert!(
                err.contains("gave no answer") && err.contains("fail-closed"),
                "{what}: {err}"
            );
        }
    }
    // The genuine binary always answers: a JSON object (`{}` when it has
    // nothing to say), or its own exit 2 (stdin that is not JSON).
    std::fs::remove_file(&installed).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_hookrules"), &installed).unwrap();
    let harmless = br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"cwd":"/tmp","session_id":"s"}"#;
    for ev in [&harmless[..], events[2], events[3]] {
        let o = launch(home, "/usr/bin:/bin", &[], &["run", "--via", "plugin"], ev);
        assert_eq!(o.status.code(), Some(0), "{o:?}");
        let v: Value = serde_json::from_slice(&o.stdout).expect("a JSON object");
        assert!(v.is_object(), "{v}");
    }
    let o = launch(
        home,
        "/usr/bin:/bin",
        &[],
        &["run", "--via", "plugin"],
        b"not json",
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&o.stderr).contains("gave no answer"));
}
