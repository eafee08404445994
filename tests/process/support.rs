//! What the process tests share: one event fed to one `hookrules` process.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Run `command` with `event` on its standard input and collect what it
/// wrote. A panic message on stderr fails the test: hookrules answers every
/// event, it never panics on one.
pub fn feed(command: &mut Command, event: &Value) -> Output {
    feed_bytes(command, event.to_string().as_bytes())
}

/// [`feed`] with any bytes on the standard input.
pub fn feed_bytes(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{out:?}"
    );
    out
}

/// A temp folder laid out as a user's machine: `home/` is `$HOME`,
/// `home/proj/` the project and every event's cwd, and the folders hookrules
/// keeps its state, policies and cache in are set by the environment to
/// folders of the sandbox (`places`), so the real `hookrules run` judges real
/// files and links.
pub struct Sandbox {
    _tmp: tempfile::TempDir,
    /// The sandbox's folder (canonical: no link above it).
    pub root: std::path::PathBuf,
    places: Vec<(&'static str, &'static str)>,
}

impl Sandbox {
    /// The folders `dirs` and the files `files` (relative to the root), and
    /// the environment variables `places` naming folders of the sandbox
    /// (`("XDG_STATE_HOME", "state")`).
    pub fn new(
        dirs: &[&str],
        files: &[(&str, &str)],
        places: &[(&'static str, &'static str)],
    ) -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        for d in dirs.iter().chain(&["home/proj"]) {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for (_, d) in places {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for (f, text) in files {
            std::fs::write(root.join(f), text).unwrap();
        }
        Sandbox {
            _tmp: tmp,
            root,
            places: places.to_vec(),
        }
    }

    /// A symbolic link at `at` (relative to the project) to `to`, as written.
    pub fn link(&self, to: &str, at: &str) {
        std::os::unix::fs::symlink(to, self.project().join(at)).unwrap();
    }

    /// A hard link at `at` (in the project) to `to` (relative to the
    /// sandbox's root).
    pub fn hard_link(&self, to: &str, at: &str) {
        std::fs::hard_link(self.root.join(to), self.project().join(at)).unwrap();
    }

    /// The project.
    pub fn project(&self) -> std::path::PathBuf {
        self.root.join("home/proj")
    }

    /// A place in the sandbox, absolute.
    pub fn at(&self, rel: &str) -> String {
        self.root.join(rel).to_string_lossy().into_owned()
    }

    /// `hookrules run` on one event, in the project, with only the sandbox's
    /// environment: the verdict read from the host's own answer
    /// ([`verdict`]) and the answer's text.
    pub fn run(&self, event: &Value) -> (String, String) {
        let mut command = Command::new(env!("CARGO_BIN_EXE_hookrules"));
        command
            .arg("run")
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("USER", "dev")
            .env("CLAUDE_PROJECT_DIR", self.project());
        for (var, dir) in &self.places {
            command.env(var, self.root.join(dir));
        }
        let out = feed(&mut command, event);
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        assert_eq!(out.status.code(), Some(0), "{event}: {stdout} {stderr}");
        (verdict(&stdout), stdout)
    }

    /// Claude Code's Bash call.
    pub fn bash(&self, command: &str) -> Value {
        serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash", "session_id": "s",
            "cwd": self.project(), "tool_input": { "command": command },
        })
    }

    /// A PreToolUse event of Claude Code's `PowerShell` tool in the project.
    pub fn powershell(&self, command: &str) -> Value {
        serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "PowerShell", "session_id": "s",
            "cwd": self.project(), "tool_input": { "command": command },
        })
    }
}

/// The verdict in any host's answer: `deny`, `ask` or `allow` (no answer);
/// a deny that says hookrules would have asked, on a host that cannot ask,
/// is `ask`.
pub fn verdict(stdout: &str) -> String {
    let Ok(v) = serde_json::from_str::<Value>(stdout) else {
        return "allow".into();
    };
    let decision = [
        "/hookSpecificOutput/permissionDecision",
        "/decision",
        "/permission",
        "/permissionDecision",
    ]
    .iter()
    .find_map(|p| v.pointer(p).and_then(Value::as_str))
    .unwrap_or("allow");
    let reason = [
        "/hookSpecificOutput/permissionDecisionReason",
        "/reason",
        "/agent_message",
        "/permissionDecisionReason",
    ]
    .iter()
    .find_map(|p| v.pointer(p).and_then(Value::as_str))
    .unwrap_or("");
    if decision == "deny" && reason.contains("hookrules would ask before this call") {
        "ask".into()
    } else {
        decision.to_string()
    }
}

/// `git ARGS` in `dir`, as a test sets a repository up: no user or system
/// configuration, a fixed author; panics when git fails.
pub fn git(dir: &std::path::Path, args: &[&str]) {
    let st = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("git runs");
    assert!(st.success(), "git {args:?}");
}
