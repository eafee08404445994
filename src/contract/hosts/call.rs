//! One tool call as each agent sends it to a PreToolUse-like hook: the
//! envelopes `hookrules explain --bash CMD` and `hookrules test --bash CMD`
//! build, so a quick check goes through the same recognition
//! ([`super::recognise`]) and the same answer as that agent's real event.
//! The shapes are those of `super::*`'s sources (and tests/library/hosts.rs).

use serde_json::{json, Value};

use super::Host;

/// A call a person types on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// A shell command.
    Bash(String),
    /// Read a file (an absolute path).
    Read(String),
    /// Write a new file.
    Write(String),
    /// Edit a file.
    Edit(String),
}

impl Call {
    /// `bash \`CMD\``, `read PATH`, …, for messages.
    pub fn describe(&self) -> String {
        match self {
            Call::Bash(c) => format!("bash `{c}`"),
            Call::Read(p) => format!("read {p}"),
            Call::Write(p) => format!("write {p}"),
            Call::Edit(p) => format!("edit {p}"),
        }
    }
}

/// The text a quick check writes or edits in (the rules judge where, not what).
pub const TEXT: &str = "hello\n";

/// `call` as `host` sends it from `cwd` (absolute); an error when the agent has
/// no such tool. Each host's shape is its adapter's `quick_call`.
pub fn envelope(host: Host, call: &Call, cwd: &str) -> Result<Value, String> {
    (host.adapter().quick_call)(call, "hookrules-quick-check", cwd)
}

/// Claude Code's tool and input for a call (the shape VS Code and Codex
/// borrow parts of).
pub fn claude_shape(call: &Call) -> (&'static str, Value) {
    match call {
        Call::Bash(c) => ("Bash", json!({"command": c})),
        Call::Read(p) => ("Read", json!({"file_path": p})),
        Call::Write(p) => ("Write", json!({"file_path": p, "content": TEXT})),
        Call::Edit(p) => (
            "Edit",
            json!({"file_path": p, "old_string": "hello", "new_string": "hello, world"}),
        ),
    }
}
