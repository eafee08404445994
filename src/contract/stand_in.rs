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
//! nothing here. A local delete or move also stands for the `rm -r` or `mv`
//! it is; SQL given to a database's tool for `psql -c SQL`; a remote delete of
//! a whole resource for a CLI's delete subcommand (see `docs/hosts.md`).

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
    "cli_command",
    "cliCommand",
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
/// Words of a name that say it deletes: a local delete also stands for `rm`
/// of its paths, so the deletion rules judge where they lie (home, the
/// project's `.git`, …) as they do for the shell.
const DELETE_WORDS: &[&str] = &[
    "delete", "remove", "rm", "unlink", "rmdir", "trash", "erase",
];
/// Words of a name that say it moves: a local move also stands for `mv`.
const MOVE_WORDS: &[&str] = &["move", "mv", "rename"];
/// Words of a name that say it removes a remote resource.
const REMOVING_WORDS: &[&str] = &[
    "delete",
    "destroy",
    "drop",
    "terminate",
    "remove",
    "purge",
    "undefine",
    "uninstall",
    "wipe",
];
/// What a remote delete removes for good when it names one of these (a
/// repository, a namespace, a bucket, a database, a VM, …): a whole resource,
/// not an entry in one (`delete_comment`, `delete_entities` of a memory
/// store, `delete_file` of a repository are changes the resource keeps).
const RESOURCE_WORDS: &[&str] = &[
    "repository",
    "repositories",
    "repo",
    "repos",
    "namespace",
    "namespaces",
    "cluster",
    "clusters",
    "bucket",
    "buckets",
    "database",
    "databases",
    "db",
    "table",
    "tables",
    "collection",
    "collections",
    "index",
    "indexes",
    "indices",
    "instance",
    "instances",
    "server",
    "servers",
    "volume",
    "volumes",
    "project",
    "projects",
    "stack",
    "stacks",
    "deployment",
    "deployments",
    "environment",
    "environments",
    "app",
    "apps",
    "application",
    "applications",
    "service",
    "services",
    "function",
    "functions",
    "droplet",
    "droplets",
    "vm",
    "vms",
    "machine",
    "machines",
    "pool",
    "pools",
    "snapshot",
    "snapshots",
    "backup",
    "backups",
    "schema",
    "schemas",
    "keyspace",
    "topic",
    "topics",
    "queue",
    "queues",
    "zone",
    "zones",
    "domain",
    "domains",
    "release",
    "releases",
    "organization",
    "organisation",
    "org",
    "workspace",
    "workspaces",
    "branch",
    "site",
    "sites",
    "secret",
    "secrets",
];
/// Input fields that name the kind of resource a generic tool acts on
/// (`kubectl_delete` with `resourceType = "namespace"`).
const RESOURCE_TYPE_FIELDS: &[&str] =
    &["resourceType", "resource_type", "resource", "kind", "type"];
/// Input fields that hold SQL text whatever the tool is called.
const SQL_FIELDS: &[&str] = &["sql", "statement", "sql_query", "sqlQuery", "sqlStatement"];
/// Input fields that hold SQL text when the server or tool is a database's.
const QUERY_FIELDS: &[&str] = &["query", "queries"];
/// Words of a server's or a tool's name that say it runs SQL on a database.
const DATABASE_WORDS: &[&str] = &[
    "sql",
    "postgres",
    "postgresql",
    "pg",
    "psql",
    "mysql",
    "mariadb",
    "sqlite",
    "sqlite3",
    "duckdb",
    "database",
    "db",
    "supabase",
    "neon",
    "snowflake",
    "bigquery",
    "clickhouse",
    "mssql",
    "sqlserver",
    "oracle",
    "cockroach",
    "cockroachdb",
    "planetscale",
    "turso",
    "d1",
    "redshift",
    "athena",
    "trino",
    "presto",
    "databricks",
    "timescale",
    "tidb",
    "yugabyte",
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
    let server = tool
        .strip_prefix("mcp__")
        .and_then(|t| t.split("__").next())
        .unwrap_or("");
    let kind = kind(own);
    let mut calls = kind.map_or(vec![], |k| calls(k, own, input));
    if kind != Some(Kind::Shell) {
        calls.extend(cli_call(server, own, input));
    }
    calls.extend(sql(server, own, input));
    calls.extend(remote_delete(server, own, input));
    calls
        .into_iter()
        .filter_map(|(name, tool_input)| as_event(event, name, tool_input))
        .collect()
}

/// A tool that runs the program its own or its server's name names (`call_aws`
/// with `cli_command: "aws s3 rb …"`, a `kubectl` server's `apply` with
/// `command: "kubectl delete …"`): its command text is that program's command
/// line, so it stands for `Bash`, though no word of its name says "shell".
fn cli_call(server: &str, own: &str, input: &Map<String, Value>) -> Vec<(&'static str, Value)> {
    let Some(text) = command_text(input) else {
        return vec![];
    };
    let first = shlex::split(&text)
        .and_then(|w| w.into_iter().next())
        .unwrap_or_default();
    let program = first.rsplit('/').next().unwrap_or("").to_lowercase();
    let named = words(own)
        .into_iter()
        .chain(words(server))
        .any(|w| w.len() > 1 && w == program);
    if named {
        vec![("Bash", serde_json::json!({ "command": text }))]
    } else {
        vec![]
    }
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
    let mut shell = vec![];
    if kind == Kind::Write {
        shell.extend(local_delete_or_move(own, input, &file_path));
    }
    shell.push(match kind {
        Kind::Read => ("Read", json!({ "file_path": file_path })),
        Kind::Write => (
            "Write",
            json!({ "file_path": file_path, "content": content }),
        ),
        _ => (
            "Edit",
            json!({ "file_path": file_path, "old_string": "", "new_string": content }),
        ),
    });
    shell
}

/// A path as one shell word that means the same path: quoted, except a
/// leading `~` or `~/`, which a file tool's server expands to home as the
/// shell does.
fn path_word(p: &str) -> String {
    match p.strip_prefix('~') {
        Some("") => "~".into(),
        Some(rest) if rest.starts_with('/') => format!("~/{}", quote(&rest[1..])),
        _ => quote(p),
    }
}

/// The `rm -r` a local delete tool stands for, or the `mv` a local move
/// stands for, beside its `Write`: the shell's rules judge a deletion or a
/// move by where its paths lie, which a write of the same paths does not say.
/// Recursive whatever the tool is called: a server's `delete_file` given a
/// folder may remove it with what is in it, and for a file `rm -r` is `rm`.
fn local_delete_or_move(
    own: &str,
    input: &Map<String, Value>,
    all: &Value,
) -> Option<(&'static str, Value)> {
    let w = words(own);
    let has = |set: &[&str]| w.iter().any(|x| set.contains(&x.as_str()));
    let texts = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => vec![path_word(s)],
            Value::Array(a) => a.iter().filter_map(Value::as_str).map(path_word).collect(),
            _ => vec![],
        }
    };
    if has(MOVE_WORDS) {
        let from = paths(
            input,
            &["source", "src", "from", "path", "old_path", "oldPath"],
        )?;
        let to = paths(
            input,
            &["destination", "dest", "target", "to", "new_path", "newPath"],
        )?;
        let mut argv = vec!["mv".to_string(), "--".into()];
        argv.extend(texts(&from));
        argv.extend(texts(&to));
        return Some(("Bash", serde_json::json!({ "command": argv.join(" ") })));
    }
    if has(DELETE_WORDS) {
        let mut argv = vec!["rm".to_string(), "-r".into(), "--".into()];
        argv.extend(texts(all));
        return Some(("Bash", serde_json::json!({ "command": argv.join(" ") })));
    }
    None
}

/// The database client an MCP tool that runs SQL stands for (`psql -c
/// SQL`), so the database rules judge the statement: a tool with an SQL
/// field, or a `query` field of a database's server or tool. A `query` of
/// any other tool is a search, not SQL.
fn sql(server: &str, own: &str, input: &Map<String, Value>) -> Option<(&'static str, Value)> {
    let database = words(server)
        .iter()
        .chain(&words(own))
        .any(|w| DATABASE_WORDS.contains(&w.as_str()));
    let fields = SQL_FIELDS
        .iter()
        .chain(QUERY_FIELDS.iter().filter(|_| database));
    let text = fields.filter_map(|f| input.get(*f)).find_map(|v| match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(a) => {
            let all: Option<Vec<&str>> = a.iter().map(Value::as_str).collect();
            all.map(|q| q.join(";\n"))
        }
        _ => None,
    })?;
    (!text.trim().is_empty()).then(|| {
        (
            "Bash",
            serde_json::json!({ "command": format!("psql -c {}", quote(&text)) }),
        )
    })
}

/// A tool whose name removes a named remote resource (`delete_repository`,
/// `drop_database`, `kubectl_delete` of a `namespace`) stands for that
/// resource's CLI deleting it, as `mcp-SERVER delete RESOURCE`: the pack's
/// rule for any program's delete subcommand judges it. A local file tool's
/// delete is judged as `rm` instead.
fn remote_delete(
    server: &str,
    own: &str,
    input: &Map<String, Value>,
) -> Option<(&'static str, Value)> {
    let w = words(own);
    if !w.iter().any(|x| REMOVING_WORDS.contains(&x.as_str())) {
        return None;
    }
    let local = !REMOTE_FIELDS.iter().any(|f| input.contains_key(*f))
        && paths(input, PATH_FIELDS).is_some();
    if local {
        return None;
    }
    let typed = RESOURCE_TYPE_FIELDS
        .iter()
        .filter_map(|f| input.get(*f).and_then(Value::as_str))
        .flat_map(words);
    let resource = w
        .iter()
        .cloned()
        .chain(typed)
        .find(|x| RESOURCE_WORDS.contains(&x.as_str()))?;
    let program: String = server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    Some((
        "Bash",
        serde_json::json!({ "command": format!("mcp-{program} delete {resource}") }),
    ))
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
        let (n, i) = all(
            "mcp__filesystem__move_file",
            serde_json::json!({"source": "a", "destination": "b"}),
        )
        .pop()
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
            // A tool that runs something, but no command text or SQL.
            ("mcp__tasks__run_job", serde_json::json!({"job": "nightly"})),
            // A search's query is not SQL.
            (
                "mcp__search__query",
                serde_json::json!({"query": "delete from the docs"}),
            ),
            // Removing an entry of a resource, not the resource.
            (
                "mcp__memory__delete_entities",
                serde_json::json!({"entityNames": ["x"]}),
            ),
            (
                "mcp__github__delete_file",
                serde_json::json!({"owner": "o", "repo": "r", "path": "a"}),
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
    fn local_deletes_and_moves_stand_for_rm_and_mv_beside_their_write() {
        let del = all(
            "mcp__filesystem__delete_directory",
            serde_json::json!({"path": "~/work dir"}),
        );
        assert_eq!(del[0].0, "Bash");
        assert_eq!(del[0].1["command"], "rm -r -- ~/'work dir'");
        assert_eq!(del[1].0, "Write");
        let del = all(
            "mcp__fs__remove",
            serde_json::json!({"path": "/p/a", "recursive": true}),
        );
        assert_eq!(del[0].1["command"], "rm -r -- /p/a");
        let del = all("mcp__fs__delete_file", serde_json::json!({"path": "a.txt"}));
        assert_eq!(del[0].1["command"], "rm -r -- a.txt");
        let mv = all(
            "mcp__filesystem__move_file",
            serde_json::json!({"source": "/p/.git", "destination": "/tmp/x"}),
        );
        assert_eq!(mv[0].1["command"], "mv -- /p/.git /tmp/x");
        assert_eq!(mv[1].0, "Write");
    }

    #[test]
    fn sql_tools_stand_for_a_database_client_running_their_sql() {
        for (tool, input) in [
            (
                "mcp__postgres__query",
                serde_json::json!({"sql": "DROP TABLE users"}),
            ),
            (
                "mcp__sqlite__write_query",
                serde_json::json!({"query": "DROP TABLE users"}),
            ),
            (
                "mcp__supabase__execute_sql",
                serde_json::json!({"project_id": "p", "query": "DROP TABLE users"}),
            ),
            (
                "mcp__any__run",
                serde_json::json!({"statement": "DROP TABLE users"}),
            ),
        ] {
            let (n, i) = stands_for(tool, input).unwrap_or_else(|| panic!("{tool}"));
            assert_eq!(
                (n.as_str(), &i["command"]),
                ("Bash", &Value::from("psql -c 'DROP TABLE users'")),
                "{tool}"
            );
        }
    }

    #[test]
    fn remote_deletes_of_a_whole_resource_stand_for_a_cli_delete() {
        let (n, i) = stands_for(
            "mcp__github__delete_repository",
            serde_json::json!({"owner": "o", "repo": "r"}),
        )
        .unwrap();
        assert_eq!(
            (n.as_str(), &i["command"]),
            ("Bash", &Value::from("mcp-github delete repository"))
        );
        let (_, i) = stands_for(
            "mcp__kubernetes__kubectl_delete",
            serde_json::json!({"resourceType": "namespace", "name": "prod"}),
        )
        .unwrap();
        assert_eq!(i["command"], "mcp-kubernetes delete namespace");
    }

    #[test]
    fn words_split_snake_kebab_and_camel_case() {
        assert_eq!(words("startProcess"), ["start", "process"]);
        assert_eq!(words("read_text-file"), ["read", "text", "file"]);
        assert_eq!(words("getURLContent"), ["get", "urlcontent"]);
    }
}
