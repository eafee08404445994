//! Seed behaviours that span several events in one project: what one hook writes,
//! a later hook reads. A fixture is one event; these run the real `run` path
//! event after event in one temporary project, as the client would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;
use serde_json::{json, Value};

struct Project {
    dir: PathBuf,
    policies: Vec<PathBuf>,
}

impl Project {
    fn new(examples: &[&str]) -> Project {
        let dir = hookrules::cli::fixture::tempdir().unwrap();
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        Project {
            dir,
            policies: examples
                .iter()
                .map(|e| root.join(e).join("policies"))
                .collect(),
        }
    }

    /// Send one event; returns stdout as JSON (Null when empty).
    fn send(&self, event: Value) -> Value {
        let pd = self.dir.display().to_string();
        let text = event.to_string().replace("$PROJECT_DIR", &pd);
        let mut env = BTreeMap::new();
        env.insert("CLAUDE_PROJECT_DIR".to_string(), pd.clone());
        env.insert("HOME".to_string(), format!("{pd}/home"));
        env.insert("TZ".to_string(), "UTC".to_string());
        let d = Discovery {
            flags: self.policies.clone(),
            project_dir: Some(self.dir.clone()),
            user_dir: Some(self.dir.join("home/.config/hookrules")),
            ..Discovery::default()
        };
        let (answer, _) = in_process(
            &d,
            &mut text.as_bytes(),
            &env.clone().into(),
            Now::at(1763700000),
            Hint::default(),
        );
        if answer.stdout.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(&answer.stdout).unwrap()
        }
    }

    fn write(&self, rel: &str, content: &str) {
        let p = self.dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, content).unwrap();
    }

    fn read_json(&self, rel: &str) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.dir.join(rel)).unwrap()).unwrap()
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Seed 001 "PreCompact Hook (v2.1)": the active agent name saved before compaction
/// is the agent that started (SubagentStart), and SessionStart after compaction
/// injects it, then deletes the recovery file. The agent is written by one rule and
/// read by another: this fails if the reader depends on how the writer orders keys.
#[test]
fn seed_001_active_agent_survives_compaction() {
    let p = Project::new(&["001-enforcement-hooks"]);
    p.send(json!({
        "hook_event_name": "SubagentStart", "session_id": "s1", "cwd": "$PROJECT_DIR",
        "transcript_path": "$PROJECT_DIR/s1.jsonl",
        "agent_id": "a9", "agent_type": "theme-development-agent"
    }));
    p.send(json!({
        "hook_event_name": "PreCompact", "session_id": "s1", "cwd": "$PROJECT_DIR",
        "transcript_path": "$PROJECT_DIR/s1.jsonl", "trigger": "auto", "custom_instructions": ""
    }));
    let saved = p.read_json(".claude/compact-recovery.json");
    assert_eq!(saved["active_agent"], "theme-development-agent", "{saved}");
    assert_eq!(saved["active_agent_id"], "a9", "{saved}");
    let out = p.send(json!({
        "hook_event_name": "SessionStart", "session_id": "s1", "cwd": "$PROJECT_DIR",
        "transcript_path": "$PROJECT_DIR/s1.jsonl", "source": "compact"
    }));
    let ctx = out["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("");
    assert!(ctx.contains("theme-development-agent"), "{out}");
    assert!(
        !p.dir.join(".claude/compact-recovery.json").exists(),
        "the recovery file is deleted after it was injected"
    );
}

/// The same state file written by hand in another key order and layout is read the same.
#[test]
fn seed_001_active_agent_read_whatever_the_key_order() {
    let p = Project::new(&["001-enforcement-hooks"]);
    p.write(
        ".claude-collective/state/active-agent.json",
        r#"{"started_at":"x","session_id":"s","agent_type":"research-agent","agent_id":"z1"}"#,
    );
    p.send(json!({
        "hook_event_name": "PreCompact", "session_id": "s1", "cwd": "$PROJECT_DIR",
        "transcript_path": "$PROJECT_DIR/s1.jsonl", "trigger": "manual", "custom_instructions": ""
    }));
    let saved = p.read_json(".claude/compact-recovery.json");
    assert_eq!(saved["active_agent"], "research-agent");
    assert_eq!(saved["active_agent_id"], "z1");
}
