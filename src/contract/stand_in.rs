//! The built-in tool an MCP tool's call stands for.
//!
//! An MCP server can give the agent its own shell (`execute_command`,
//! `run_command`, `start_process`, …) or its own file tools (`read_file`,
//! `write_file`, `move_file`, …). The built-in pack judges `Bash`, `Read`,
//! `Write` and `Edit`; an MCP tool named `mcp__server__execute_command` matches
//! none of its rules, so `rm -rf ~` sent through it would run unjudged: a
//! destructive command let through on a technicality.
//!
//! The call is therefore judged twice: as itself (rules that name the MCP
//! tool keep matching it) and as the built-in call it stands for, and the
//! strictest decision wins (`engine::judge`). The stand-in is recognised by two
//! things together, so that an ordinary MCP tool is never read as a shell:
//! - the tool's own name (after `mcp__server__`), split into words, says what
//!   it does (a shell word, a read word, a write word, an edit word);
//! - its input carries what that built-in tool reads: a command text for a
//!   shell, a local path for a file tool.
//!
//! A file tool that names a remote place (`owner`/`repo`, a `url`, a
//! `bucket`, …) reads or writes there, not on this machine, and stands for
//! nothing here.

use serde_json::{Map, Value};

use super::Event;

/// What an MCP tool does, by the words of its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Runs a command: it stands for `Bash` (or `PowerShell`).
    Shell,
    /// Reads a file: `Read`.
    Read,
    /// Creates, replaces, moves or deletes a file: `Write`.
    Write,
    /// Changes part of a file: `Edit`.
    Edit,
    /// Copies a file: a `Read` of its source and a `Write` of its destination.
    Copy,
}

/// Words of a tool's name that say it runs a command.
const SHELL_WORDS: &[&str] = &[
    "exec",
    "execute",
    "run",
    "shell",
    "bash",
    "sh",
    "zsh",
    "terminal",
    "command",
    "cmd",
    "powershell",
    "pwsh",
    "spawn",
    "process",
];
/// The input fields that hold a shell tool's command text.
const COMMAND_FIELDS: &[&str] = &[
    "command",
    "cmd",
    "command_line",
    "commandLine",
    "shell_command",
    "shellCommand",
];
/// The input fields that hold a shell tool's arguments (after its command).
const ARGS_FIELDS: &[&str] = &["args", "arguments", "argv"];
/// Words of a name that say it writes, moves or deletes a file.
const WRITE_WORDS: &[&str] = &[
    "write",
    "create",
    "save",
    "put",
    "append",
    "move",
    "rename",
    "delete",
    "remove",
    "mkdir",
    "touch",
    "overwrite",
];
/// Words of a name that say it copies: its source is read, its destination
/// written.
const COPY_WORDS: &[&str] = &["copy", "cp", "duplicate"];
/// Words of a name that say it changes part of a file.
const EDIT_WORDS: &[&str] = &["edit", "replace", "patch", "insert", "update", "modify"];
/// Words of a name that say it reads a file's text (an upload reads the file it
/// sends away).
const READ_WORDS: &[&str] = &[
    "read", "view", "cat", "open", "get", "head", "tail", "show", "load", "upload", "send",
    "attach",
];
/// Words of a name that say it only looks at names or metadata, not text.
const METADATA_WORDS: &[&str] = &[
    "list", "tree", "search", "find", "stat", "info", "exists", "size", "metadata", "glob",
];
/// The input fields that hold a local path.
const PATH_FIELDS: &[&str] = &[
    "path",
    "file_path",
    "filePath",
    "file",
    "filename",
    "absolute_path",
    "paths",
    "files",
    "source",
    "destination",
    "target",
];
/// The input fields that hold what a write puts in the file.
const CONTENT_FIELDS: &[&str] = &["content", "contents", "text", "file_text", "data"];
/// Input fields that say a file tool works on a remote place.
const REMOTE_FIELDS: &[&str] = &[
    "owner",
    "repo",
    "repository",
    "url",
    "uri",
    "bucket",
    "host",
    "hostname",
    "project_id",
];

/// The words of a tool's own name (`startProcess` and `start_process` are
/// `start`, `process`), lower case.
fn words(name: &str) -> Vec<String> {
    let mut out = vec![];
    let mut word = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        word.extend(ch.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// What the tool named `own` (its name after `mcp__server__`) does.
fn kind(own: &str) -> Option<Kind> {
    let w = words(own);
    let has = |set: &[&str]| w.iter().any(|x| set.contains(&x.as_str()));
    if has(SHELL_WORDS) {
        return Some(Kind::Shell);
    }
    if has(COPY_WORDS) {
        return Some(Kind::Copy);
    }
    if has(WRITE_WORDS) {
        return Some(Kind::Write);
    }
    if has(EDIT_WORDS) {
        return Some(Kind::Edit);
    }
    if has(READ_WORDS) && !has(METADATA_WORDS) {
        return Some(Kind::Read);
    }
    None
}

/// A shell tool's command text: its command field, followed by its
/// arguments (quoted as a shell reads them) when they are given apart.
fn command_text(input: &Map<String, Value>) -> Option<String> {
    let command = COMMAND_FIELDS.iter().find_map(|f| input.get(*f))?;
    let mut words: Vec<String> = match command {
        Value::String(s) => vec![s.clone()],
        // An argv array: each element one word.
        Value::Array(a) => a
            .iter()
            .map(|v| v.as_str().map(quote))
            .collect::<Option<Vec<_>>>()?,
        _ => return None,
    };
    if let Some(Value::Array(args)) = ARGS_FIELDS.iter().find_map(|f| input.get(*f)) {
        for a in args {
            words.push(quote(a.as_str()?));
        }
    }
    let text = words.join(" ");
    (!text.trim().is_empty()).then_some(text)
}

fn quote(word: &str) -> String {
    shlex::try_quote(word).map_or_else(|_| word.to_string(), |q| q.into_owned())
}

/// The local paths a file tool names in `fields` (each path field; a list
/// field's texts): one value, or a list when there are several.
fn paths(input: &Map<String, Value>, fields: &[&str]) -> Option<Value> {
    let mut out = vec![];
    for f in fields {
        match input.get(*f) {
            Some(Value::String(s)) if !s.is_empty() => out.push(Value::String(s.clone())),
            Some(Value::Array(a)) => out.extend(
                a.iter()
                    .filter(|v| v.as_str().is_some_and(|s| !s.is_empty()))
                    .cloned(),
            ),
            _ => {}
        }
    }
    match out.len() {
        0 => None,
        1 => out.pop(),
        _ => Some(Value::Array(out)),
    }
}

/// The built-in calls an MCP tool's call stands for, each as an event of the
/// same name, session and folder: none for any other tool, or an MCP tool that
/// is not a shell or a local file tool; two for a copy (its source read, its
/// destination written).
pub fn stand_ins(event: &Event) -> Vec<Event> {
    let Some(tool) = event.str("tool_name") else {
        return vec![];
    };
    let Some(own) = tool
        .strip_prefix("mcp__")
        .and_then(|t| t.rsplit("__").next())
    else {
        return vec![];
    };
    let Some(input) = event.value.get("tool_input").and_then(Value::as_object) else {
        return vec![];
    };
    let calls = kind(own).map_or(vec![], |k| calls(k, own, input));
    calls
        .into_iter()
        .filter_map(|(name, tool_input)| as_event(event, name, tool_input))
        .collect()
}

/// The built-in tools and inputs a tool of `kind` called with `input` stands for.
fn calls(kind: Kind, own: &str, input: &Map<String, Value>) -> Vec<(&'static str, Value)> {
    use serde_json::json;
    if kind == Kind::Shell {
        let pwsh = words(own).iter().any(|x| x == "powershell" || x == "pwsh");
        let name = if pwsh { "PowerShell" } else { "Bash" };
        return command_text(input).map_or(vec![], |c| vec![(name, json!({ "command": c }))]);
    }
    if REMOTE_FIELDS.iter().any(|f| input.contains_key(*f)) {
        return vec![];
    }
    let content = CONTENT_FIELDS
        .iter()
        .find_map(|f| input.get(*f).and_then(Value::as_str))
        .unwrap_or("");
    if kind == Kind::Copy {
        let from = paths(
            input,
            &["source", "src", "from", "path", "file_path", "filePath"],
        );
        let to = paths(input, &["destination", "dest", "target", "to", "new_path"]);
        let mut out = vec![];
        if let Some(p) = from {
            out.push(("Read", json!({ "file_path": p })));
        }
        if let Some(p) = to {
            out.push(("Write", json!({ "file_path": p, "content": content })));
        }
        return out;
    }
    let Some(file_path) = paths(input, PATH_FIELDS) else {
        return vec![];
    };
    vec![match kind {
        Kind::Read => ("Read", json!({ "file_path": file_path })),
        Kind::Write => (
            "Write",
            json!({ "file_path": file_path, "content": content }),
        ),
        _ => (
            "Edit",
            json!({ "file_path": file_path, "old_string": "", "new_string": content }),
        ),
    }]
}

/// `event` with another tool and input.
fn as_event(event: &Event, name: &str, tool_input: Value) -> Option<Event> {
    let mut value = event.value.clone();
    let obj = value.as_object_mut()?;
    obj.insert("tool_name".into(), Value::String(name.into()));
    obj.insert("tool_input".into(), tool_input);
    obj.insert(
        "tool_class".into(),
        Value::String(super::hosts::class_of(name).name().into()),
    );
    Some(Event {
        value,
        rewritten: true,
        ..event.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(tool: &str, input: Value) -> Event {
        let v = serde_json::json!({
            "hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/p",
            "tool_name": tool, "tool_input": input,
        });
        Event::parse(v.to_string().as_bytes()).unwrap()
    }

    fn all(tool: &str, input: Value) -> Vec<(String, Value)> {
        stand_ins(&event(tool, input))
            .into_iter()
            .map(|e| {
                (
                    e.str("tool_name").unwrap().to_string(),
                    e.value["tool_input"].clone(),
                )
            })
            .collect()
    }

    fn stands_for(tool: &str, input: Value) -> Option<(String, Value)> {
        let mut all = all(tool, input);
        assert!(all.len() <= 1, "{tool}: {all:?}");
        all.pop()
    }

    #[test]
    fn shell_tools_stand_for_bash_with_their_command_text() {
        let cases = [
            (
                "mcp__desktop-commander__start_process",
                serde_json::json!({"command": "rm -rf ~", "timeout_ms": 5000}),
                "rm -rf ~",
            ),
            (
                "mcp__shell__execute_command",
                serde_json::json!({"command": "ls"}),
                "ls",
            ),
            (
                "mcp__cursor__runCommand",
                serde_json::json!({"cmd": "make"}),
                "make",
            ),
            (
                "mcp__term__run",
                serde_json::json!({"command": "rm", "args": ["-rf", "my dir"]}),
                "rm -rf 'my dir'",
            ),
            (
                "mcp__x__exec",
                serde_json::json!({"command": ["rm", "-rf", "/"]}),
                "rm -rf /",
            ),
        ];
        for (tool, input, text) in cases {
            let (name, input) = stands_for(tool, input).unwrap_or_else(|| panic!("{tool}"));
            assert_eq!(name, "Bash", "{tool}");
            assert_eq!(input["command"], text, "{tool}");
        }
        let (name, _) = stands_for(
            "mcp__win__run_powershell",
            serde_json::json!({"command": "Remove-Item -Recurse ~"}),
        )
        .unwrap();
        assert_eq!(name, "PowerShell");
    }

    #[test]
    fn file_tools_stand_for_read_write_and_edit_of_local_paths() {
        let (n, i) = stands_for(
            "mcp__filesystem__read_text_file",
            serde_json::json!({"path": "/home/u/.ssh/id_ed25519"}),
        )
        .unwrap();
        assert_eq!(
            (n.as_str(), &i["file_path"]),
            ("Read", &Value::from("/home/u/.ssh/id_ed25519"))
        );
        let (n, i) = stands_for(
            "mcp__filesystem__read_multiple_files",
            serde_json::json!({"paths": ["a", "b"]}),
        )
        .unwrap();
        assert_eq!(
            (n.as_str(), i["file_path"].as_array().map(Vec::len)),
            ("Read", Some(2))
        );
        let (n, i) = stands_for(
            "mcp__filesystem__write_file",
            serde_json::json!({"path": "/home/u/.bashrc", "content": "x"}),
        )
        .unwrap();
        assert_eq!((n.as_str(), &i["content"]), ("Write", &Value::from("x")));
        let (n, i) = stands_for(
            "mcp__filesystem__move_file",
            serde_json::json!({"source": "a", "destination": "b"}),
        )
        .unwrap();
        assert_eq!(
            (n.as_str(), i["file_path"].as_array().map(Vec::len)),
            ("Write", Some(2))
        );
        let (n, _) = stands_for(
            "mcp__fs__edit_file",
            serde_json::json!({"path": "a", "edits": []}),
        )
        .unwrap();
        assert_eq!(n, "Edit");
        let copy = all(
            "mcp__fs__copy_file",
            serde_json::json!({"source": "/etc/hosts", "destination": "hosts"}),
        );
        assert_eq!(copy.len(), 2);
        assert_eq!(
            (copy[0].0.as_str(), &copy[0].1["file_path"]),
            ("Read", &Value::from("/etc/hosts"))
        );
        assert_eq!(
            (copy[1].0.as_str(), &copy[1].1["file_path"]),
            ("Write", &Value::from("hosts"))
        );
        let (n, _) = stands_for(
            "mcp__slack__upload_file",
            serde_json::json!({"file": "/home/u/.aws/credentials", "channels": "c"}),
        )
        .unwrap();
        assert_eq!(n, "Read");
    }

    #[test]
    fn other_tools_stand_for_nothing() {
        let none = [
            // A tool that runs something, but no command text.
            (
                "mcp__db__run_query",
                serde_json::json!({"query": "select 1"}),
            ),
            // A remote file.
            (
                "mcp__github__get_file_contents",
                serde_json::json!({"owner": "o", "repo": "r", "path": ".env"}),
            ),
            (
                "mcp__github__create_or_update_file",
                serde_json::json!({"owner": "o", "repo": "r", "path": "a", "content": "x"}),
            ),
            // Names and metadata only.
            (
                "mcp__filesystem__list_directory",
                serde_json::json!({"path": "/home/u/.ssh"}),
            ),
            (
                "mcp__filesystem__get_file_info",
                serde_json::json!({"path": "/home/u/.ssh/id_rsa"}),
            ),
            // Not a file or shell tool at all.
            (
                "mcp__memory__add_observations",
                serde_json::json!({"observations": []}),
            ),
            // Built-in tools are themselves.
            ("Bash", serde_json::json!({"command": "ls"})),
        ];
        for (tool, input) in none {
            assert_eq!(stands_for(tool, input), None, "{tool}");
        }
    }

    #[test]
    fn words_split_snake_kebab_and_camel_case() {
        assert_eq!(words("startProcess"), ["start", "process"]);
        assert_eq!(words("read_text-file"), ["read", "text", "file"]);
        assert_eq!(words("getURLContent"), ["get", "urlcontent"]);
    }
}
