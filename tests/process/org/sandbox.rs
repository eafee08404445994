//! A scratch machine for one test: a project, a home, config, state and cache
//! folders of its own, and `hookrules` run as a process in it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use hookrules::log::record::Record;
use serde_json::{json, Value};

pub const BIN: &str = env!("CARGO_BIN_EXE_hookrules");

pub struct Sandbox {
    _tmp: tempfile::TempDir,
    pub root: PathBuf,
    /// Extra environment for every command.
    pub env: Vec<(String, String)>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().to_path_buf();
        for d in [
            "proj/.claude/hookrules",
            "home",
            "state",
            "config/hookrules",
            "cache",
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Sandbox {
            _tmp: tmp,
            root,
            env: vec![],
        }
    }

    pub fn project(&self) -> PathBuf {
        self.root.join("proj")
    }

    /// Write a project policy.
    pub fn project_policy(&self, name: &str, text: &str) -> PathBuf {
        let p = self.project().join(".claude/hookrules").join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    /// Write a user policy.
    pub fn user_policy(&self, name: &str, text: &str) -> PathBuf {
        let p = self.root.join("config/hookrules").join(name);
        std::fs::write(&p, text).unwrap();
        p
    }

    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(self.project())
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", self.root.join("home"))
            .env("XDG_STATE_HOME", self.root.join("state"))
            .env("XDG_CONFIG_HOME", self.root.join("config"))
            .env("XDG_CACHE_HOME", self.root.join("cache"))
            .env("CLAUDE_PROJECT_DIR", self.project())
            // The managed folder (debug builds only): absent unless a test installs it.
            .env("HOOKRULES_MANAGED_DIR", self.root.join("etc/hookrules"))
            // The client's managed settings (debug builds only): absent unless installed.
            .env(
                "HOOKRULES_CLIENT_SETTINGS",
                self.root.join("etc/claude-code/managed-settings.json"),
            );
        for (k, v) in &self.env {
            c.env(k, v);
        }
        c
    }

    /// `hookrules run` with this event (and extra arguments).
    pub fn run_with(&self, event: &Value, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut all = vec!["run"];
        all.extend_from_slice(args);
        let mut c = self.cmd(&all);
        for (k, v) in env {
            c.env(k, v);
        }
        crate::support::feed(&mut c, event)
    }

    pub fn run(&self, event: &Value) -> Output {
        self.run_with(event, &[], &[])
    }

    /// Another `hookrules` command.
    pub fn hr(&self, args: &[&str]) -> Output {
        self.cmd(args).stdin(Stdio::null()).output().unwrap()
    }

    /// The user trusts the project's policies as they are now (`hookrules
    /// trust` in a terminal: script(1) gives it one).
    pub fn trust(&self) {
        let line = format!("{BIN} trust");
        let c = self.cmd(&[]);
        let out = Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .current_dir(self.project())
            .env_clear()
            .envs(c.get_envs().filter_map(|(k, v)| Some((k, v?))))
            .env("SHELL", "/bin/sh")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "hookrules trust: {out:?}");
    }

    /// Another `hookrules` command, with extra environment.
    pub fn hr_with(&self, args: &[&str], env: &[(&str, &str)]) -> Output {
        let mut c = self.cmd(args);
        for (k, v) in env {
            c.env(k, v);
        }
        c.stdin(Stdio::null()).output().unwrap()
    }

    /// The log folder (the only project folder under the state home).
    pub fn log_dir(&self) -> PathBuf {
        let projects = self.root.join("state/hookrules/projects");
        let mut dirs: Vec<PathBuf> = std::fs::read_dir(&projects)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(dirs.len(), 1, "{dirs:?}");
        dirs.pop().unwrap()
    }

    pub fn records(&self) -> Vec<Record> {
        records_in(&self.log_dir())
    }

    /// The newest record.
    pub fn last(&self) -> Record {
        self.records().pop().expect("a record")
    }
}

pub fn records_in(dir: &Path) -> Vec<Record> {
    hookrules::log::store::read_lines(dir)
        .unwrap()
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A Claude Code event about a tool.
pub fn tool_event(event: &str, tool: &str, input: Value, id: &str) -> Value {
    json!({"session_id": "s-1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
        "hook_event_name": event, "tool_name": tool,
        "tool_input": input, "tool_use_id": id})
}

/// A Claude Code PreToolUse of Bash.
pub fn bash(cmd: &str) -> Value {
    tool_event(
        "PreToolUse",
        "Bash",
        json!({"command": cmd, "description": "x"}),
        "toolu_1",
    )
}
