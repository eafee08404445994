//! VS Code agent hooks (code.visualstudio.com/docs/agents/reference/hooks-reference):
//! Claude Code's event names and output, read from `.github/hooks/*.json` and
//! also from `.claude/settings.json`, but VS Code's own tool names
//! (`run_in_terminal`, `create_file`, `replace_string_in_file`, `read_file`, …)
//! with camelCase inputs (`filePath`, `oldString`), a `timestamp` and `sessionId`.
//! A project that ran `hookrules init` is therefore already answering VS Code:
//! these envelopes are told apart by their tool names and fields, and their
//! inputs renamed, so file rules fire there too.

use serde_json::{json, Map, Value};

use super::adapter::{Adapter, AlsoRuns, AnswerShape, Call, Events, HandlerShape, Install, Sniff, UserFile};
use super::call::TEXT;
use super::{rename_keys, stamp, Host, Origin, Recognised, TimeUnit, Unrecognised};

/// VS Code, as data: Claude Code's events and answers.
pub const ADAPTER: Adapter = Adapter {
    name: "vscode",
    title: "VS Code",
    aliases: &["vs-code", "code"],
    timeout_unit: TimeUnit::Seconds,
    events: Events::Canonical {
        registered: &[
            "PreToolUse",
            "PostToolUse",
            "UserPromptSubmit",
            "SessionStart",
            "Stop",
            "SubagentStart",
            "SubagentStop",
            "PreCompact",
        ],
    },
    normalise: |obj, _| normalise(obj),
    renames: |_| INPUT_KEYS,
    quick_call,
    shell_unnamed: true,
    sniff: Sniff::Shape {
        // After Codex: VS Code also has a tool named `apply_patch`.
        rank: 3,
        test: |obj, name| name.is_some() && looks_like(obj),
    },
    names_event: true,
    answer: AnswerShape::Claude,
    also_runs: AlsoRuns {
        hosts: &[Host::Claude, Host::Copilot],
        repository_hooks: true,
    },
    install: Some(Install {
        project_file: ".github/hooks/hookrules-vscode.json",
        user_file: UserFile::None(
            "reads hooks from the repository (.github/hooks/); run without --user",
        ),
        handler: HandlerShape::Command,
        grouped: false,
        versioned: false,
        note: "VS Code reads .github/hooks/ (agent hooks must be enabled in its settings).",
        project_note: "",
    }),
};

/// A tool call as VS Code sends it to PreToolUse: its own tool names and
/// camelCase inputs.
fn quick_call(call: &Call, session: &str, cwd: &str) -> Result<Value, String> {
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
    Ok(
        json!({"hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
           "tool_use_id": "t", "sessionId": session,
           "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd}),
    )
}

/// VS Code's tools and their canonical names.
const TOOLS: &[(&str, &str)] = &[
    ("run_in_terminal", "Bash"),
    ("runTerminalCommand", "Bash"),
    ("runInTerminal", "Bash"),
    ("create_file", "Write"),
    ("createFile", "Write"),
    ("create_directory", "Write"),
    ("replace_string_in_file", "Edit"),
    ("multi_replace_string_in_file", "Edit"),
    ("insert_edit_into_file", "Edit"),
    ("edit_file", "Edit"),
    ("editFiles", "Edit"),
    ("edit_notebook_file", "Edit"),
    ("apply_patch", "Edit"),
    ("read_file", "Read"),
    ("readFile", "Read"),
    ("list_dir", "LS"),
    ("file_search", "Glob"),
    ("grep_search", "Grep"),
    ("fetch_webpage", "WebFetch"),
    ("fetch", "WebFetch"),
];

const INPUT_KEYS: &[(&str, &str)] = &[
    ("filePath", "file_path"),
    ("dirPath", "file_path"),
    ("files", "file_path"),
    ("oldString", "old_string"),
    ("newString", "new_string"),
    ("urls", "url"),
];

/// A VS Code envelope: one of its tool names, or its camelCase `sessionId` /
/// `hookEventName`.
pub fn looks_like(obj: &Map<String, Value>) -> bool {
    let tool = super::str_of(obj, "tool_name");
    tool.is_some_and(|t| TOOLS.iter().any(|(v, _)| *v == t))
        || obj.contains_key("sessionId")
        || obj.contains_key("hookEventName")
}

/// VS Code's envelope to the canonical event.
pub fn normalise(mut obj: Map<String, Value>) -> Result<Recognised, Unrecognised> {
    let event = super::str_of(&obj, "hook_event_name")
        .or_else(|| super::str_of(&obj, "hookEventName"))
        .ok_or(Unrecognised::NoEventName)?
        .to_string();
    obj.insert("hook_event_name".into(), Value::String(event.clone()));
    rename_keys(
        &mut obj,
        &[
            ("sessionId", "session_id"),
            ("toolName", "tool_name"),
            ("toolInput", "tool_input"),
        ],
    );
    let raw_tool = obj.get("tool_name").cloned();
    let raw_input = obj.get("tool_input").cloned();
    if let Some(name) = raw_tool.as_ref().and_then(Value::as_str) {
        let canonical = TOOLS.iter().find(|(v, _)| *v == name).map(|(_, c)| *c);
        if let Some(Value::Object(input)) = obj.get_mut("tool_input") {
            rename_keys(input, INPUT_KEYS);
            // Several files in one call: every path is judged.
            if let Some(Value::Array(reps)) = input.get("replacements") {
                let paths: Vec<Value> = reps
                    .iter()
                    .filter_map(|r| r.get("filePath").or_else(|| r.get("file_path")).cloned())
                    .collect();
                if !paths.is_empty() && !input.contains_key("file_path") {
                    input.insert("file_path".into(), Value::Array(paths));
                }
            }
            if name == "apply_patch" {
                if let Some(text) = input.get("input").and_then(Value::as_str) {
                    let (_, files) = super::codex::patch_as_files(text);
                    if let Some(fp) = files.get("file_path") {
                        input.insert("file_path".into(), fp.clone());
                    }
                }
            }
        }
        if let Some(c) = canonical {
            obj.insert("tool_name".into(), Value::String(c.into()));
        }
    }
    stamp(&mut obj, Host::VsCode, &event, raw_tool, raw_input);
    Ok(Recognised {
        value: Value::Object(obj),
        origin: Origin {
            host: Host::VsCode,
            event,
        },
        rewritten: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn camel_case_file_tools_become_canonical() {
        let Value::Object(o) = json!({"hook_event_name":"PreToolUse","tool_name":"create_file","tool_input":{"filePath":"/p/.env","content":"K=1"},"sessionId":"s","timestamp":"t"})
        else {
            unreachable!()
        };
        let v = normalise(o).unwrap().value;
        assert_eq!(v["tool_name"], "Write");
        assert_eq!(v["tool_input"]["file_path"], "/p/.env");
        assert_eq!(v["session_id"], "s");
        assert_eq!(v["host"]["tool_input"]["filePath"], "/p/.env");
        let Value::Object(o) = json!({"hookEventName":"PreToolUse","tool_name":"multi_replace_string_in_file","tool_input":{"replacements":[{"filePath":"a.rs"},{"filePath":"/etc/hosts"}]}})
        else {
            unreachable!()
        };
        let v = normalise(o).unwrap().value;
        assert_eq!(v["tool_input"]["file_path"], json!(["a.rs", "/etc/hosts"]));
    }
}
