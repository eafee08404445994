//! What a broken fail-closed policy does to each event: as little harm as it can
//! while staying safe. A policy is broken when a rule of it, or the whole file,
//! does not load (the problems `hookrules check` reports); its rules then cannot
//! say what they would have said.
//!
//! - **Tool calls** stay refused: the tool is where damage happens, and the
//!   broken rule might have been the one that stops it. One exception: a write
//!   or edit of the broken policy file itself (and nothing else) goes ahead, so
//!   the agent can fix the typo; every other rule still judges it (the built-in
//!   self-protection pack asks before it).
//! - **Stop / SubagentStop** are blocked once, so the agent hears it and can fix
//!   the file; one that is already continuing because of a block
//!   (`stop_hook_active`) is let go with a note, never blocked again.
//! - **SessionStart and UserPromptSubmit** are never blocked: the user is told,
//!   with the file, the line and `hookrules check`, and the prompt goes ahead (a
//!   refused prompt is lost, and it carries no tool call).
//! - **Every other event** is refused where it can be, as before.
//!
//! A failure at run time (a fact or template that fails in a policy that loaded)
//! keeps the policy's failure mode as it is: it is not a broken file.

use std::path::{Path, PathBuf};

use crate::contract::event::Event;
use crate::os::files::lexical_normalize;

/// How a broken fail-closed policy answers an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhenBroken {
    /// Refused (deny, or block where the event takes a block).
    Refuse,
    /// Not refused; the reason goes to stderr.
    LetThrough(&'static str),
    /// Not refused; the user is told in a message.
    Tell,
}

/// The answer for `event`, given the files of the policies broken for it.
pub fn when_broken(event: &Event, cwd: &Path, broken_files: &[PathBuf]) -> WhenBroken {
    match event.name.as_str() {
        "SessionStart" | "UserPromptSubmit" => WhenBroken::Tell,
        "Stop" | "SubagentStop" if event.value.get("stop_hook_active") == Some(&true.into()) => {
            WhenBroken::Tell
        }
        _ if event.spec.tool_event && edits_only(event, cwd, broken_files) => {
            WhenBroken::LetThrough("it writes only the broken policy file, so it can be fixed")
        }
        _ => WhenBroken::Refuse,
    }
}

/// Is the tool a file write or edit whose every path is one of `files`?
fn edits_only(event: &Event, cwd: &Path, files: &[PathBuf]) -> bool {
    let class = event.value.get("tool_class").and_then(|c| c.as_str());
    if !matches!(class, Some("write" | "edit")) || files.is_empty() {
        return false;
    }
    let input = event.value.get("tool_input");
    let mut paths = vec![];
    for key in ["file_path", "notebook_path", "path"] {
        match input.and_then(|i| i.get(key)) {
            Some(serde_json::Value::String(p)) => paths.push(p.as_str()),
            Some(serde_json::Value::Array(list)) => {
                for p in list {
                    match p.as_str() {
                        Some(p) => paths.push(p),
                        None => return false,
                    }
                }
            }
            Some(_) => return false,
            None => {}
        }
    }
    let files: Vec<PathBuf> = files.iter().map(|f| absolute(f, cwd)).collect();
    !paths.is_empty()
        && paths
            .iter()
            .all(|p| files.contains(&absolute(Path::new(p), cwd)))
}

/// A path made absolute against `cwd`, `.` and `..` resolved as written (a link
/// is not followed: a path that is not the file's own spelling gets no pass).
fn absolute(p: &Path, cwd: &Path) -> PathBuf {
    lexical_normalize(&cwd.join(p))
}

/// The message the user gets on an event a broken policy does not refuse: the
/// first problem (it names the file and line), and `hookrules check`.
pub fn message(policy: &str, first_problem: &str, more: usize) -> String {
    let more = match more {
        0 => String::new(),
        1 => " (and 1 more problem)".to_string(),
        n => format!(" (and {n} more problems)"),
    };
    format!(
        "hookrules: policy `{policy}` is broken: {first_problem}{more}. Until it is fixed its rules are not enforced and tool calls are denied (edits of the broken file excepted). Run `hookrules check` to see every problem."
    )
}
