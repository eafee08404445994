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
const TEXT: &str = "hello\n";

/// `call` as `host` sends it from `cwd` (absolute); an error when the agent has
/// no such tool.
pub fn envelope(host: Host, call: &Call, cwd: &str) -> Result<Value, String> {
    let session = "hookrules-quick-check";
    Ok(match (host, call) {
        (Host::Claude, _) => {
            let (tool, input) = claude_shape(call);
            json!({"session_id": session, "transcript_path": "", "cwd": cwd,
                   "hook_event_name": "PreToolUse", "permission_mode": "default",
                   "tool_name": tool, "tool_input": input})
        }
        (Host::Codex, Call::Read(_)) => return Err(
            "Codex CLI has no file-read tool (it reads through its shell): try --bash 'cat PATH'"
                .into(),
        ),
        (Host::Codex, _) => {
            let (tool, input) = match call {
                Call::Bash(c) => ("Bash", json!({"command": c})),
                Call::Write(p) => (
                    "apply_patch",
                    json!({"command": format!(
                    "*** Begin Patch\n*** Add File: {p}\n+hello\n*** End Patch\n")}),
                ),
                Call::Edit(p) | Call::Read(p) => (
                    "apply_patch",
                    json!({"command": format!(
                    "*** Begin Patch\n*** Update File: {p}\n@@\n-hello\n+hello, world\n*** End Patch\n")}),
                ),
            };
            json!({"session_id": session, "transcript_path": null, "cwd": cwd,
                   "hook_event_name": "PreToolUse", "turn_id": "t1", "model": "gpt-5-codex",
                   "permission_mode": "default", "tool_use_id": "call_1",
                   "tool_name": tool, "tool_input": input})
        }
        (Host::Gemini, _) => {
            let (tool, input) = match call {
                Call::Bash(c) => ("run_shell_command", json!({"command": c})),
                Call::Read(p) => ("read_file", json!({"file_path": p})),
                Call::Write(p) => ("write_file", json!({"file_path": p, "content": TEXT})),
                Call::Edit(p) => (
                    "replace",
                    json!({"file_path": p, "old_string": "hello", "new_string": "hello, world"}),
                ),
            };
            json!({"session_id": session, "transcript_path": "", "cwd": cwd,
                   "hook_event_name": "BeforeTool", "timestamp": "2026-01-01T00:00:00.000Z",
                   "tool_name": tool, "tool_input": input})
        }
        (Host::Cursor, Call::Bash(c)) => {
            json!({"hook_event_name": "beforeShellExecution", "command": c, "cwd": cwd,
                   "conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]})
        }
        (Host::Cursor, Call::Read(p)) => {
            json!({"hook_event_name": "beforeReadFile", "file_path": p, "content": "",
                   "conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]})
        }
        (Host::Cursor, Call::Write(p) | Call::Edit(p)) => {
            let tool = if matches!(call, Call::Write(_)) {
                "Write"
            } else {
                "StrReplace"
            };
            json!({"hook_event_name": "preToolUse", "tool_name": tool,
                   "tool_input": {"path": p, "contents": TEXT},
                   "conversation_id": session, "generation_id": "g", "workspace_roots": [cwd]})
        }
        (Host::Copilot, _) => {
            let (tool, args) = match call {
                Call::Bash(c) => ("bash", json!({"command": c, "description": "quick check"})),
                Call::Read(p) => ("view", json!({"path": p})),
                Call::Write(p) => ("create", json!({"path": p, "file_text": TEXT})),
                Call::Edit(p) => (
                    "edit",
                    json!({"path": p, "old_str": "hello", "new_str": "hello, world"}),
                ),
            };
            json!({"timestamp": 1_767_225_600_000u64, "cwd": cwd, "toolName": tool,
                   "toolArgs": args.to_string()})
        }
        (Host::VsCode, _) => {
            let (tool, input) = match call {
                Call::Bash(c) => (
                    "run_in_terminal",
                    json!({"command": c, "explanation": "quick check", "isBackground": false}),
                ),
                Call::Read(p) => (
                    "read_file",
                    json!({"filePath": p, "startLine": 1, "endLine": 50}),
                ),
                Call::Write(p) => ("create_file", json!({"filePath": p, "content": TEXT})),
                Call::Edit(p) => (
                    "replace_string_in_file",
                    json!({"filePath": p, "oldString": "hello", "newString": "hello, world"}),
                ),
            };
            json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
                   "tool_use_id": "t", "sessionId": session,
                   "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})
        }
    })
}

/// Claude Code's tool and input for a call.
fn claude_shape(call: &Call) -> (&'static str, Value) {
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
