//! The agents whose hooks hookrules answers, and how each one's envelope becomes
//! the canonical event the policies see.
//!
//! The canonical shape is Claude Code's (reference §1, §4): `hook_event_name`
//! from its event table, `tool_name` from its tool names (`Bash`, `Read`,
//! `Write`, `Edit`, `WebFetch`, `mcp__server__tool`, …) and `tool_input` with its
//! field names (`command`, `file_path`, `content`, `old_string`, …). A policy
//! written for Claude Code (the built-in pack matches `Bash` and
//! `tool_input.command`) therefore protects every host unchanged: Gemini CLI's
//! `run_shell_command`, VS Code's `run_in_terminal`, Cursor's
//! `beforeShellExecution` and Copilot CLI's `bash` all arrive as `Bash` with
//! `tool_input.command`; Claude Code's `PowerShell` and Copilot CLI's
//! `powershell` as `PowerShell` (the pack matches `Bash|PowerShell`; which
//! shell reads the command is [`dialect`]).
//!
//! Every canonical event also carries:
//! - `tool_class` (tool events): `shell`, `read`, `write`, `edit`, `web`, `mcp`
//!   or `other`, so one condition covers a family of tools on every host
//!   (`when = { field = "tool_class", one_of = ["write", "edit"] }`);
//! - `host`: `{ name, event, tool_name, tool_input }`, the agent and what it sent
//!   before normalisation, so rules can still match raw names
//!   (`when = { field = "host.tool_name", equals = "replace" }`).
//!
//! Recognition happens once, before any policy sees the event; the answer is
//! shaped for the same host (`answer/`, one file per host). An envelope that no
//! host sends is refused with a message that says so, never silently allowed.

pub mod adapter;
pub mod call;
pub mod handler;

use serde_json::{Map, Value};

use adapter::{Adapter, Sniff};

/// The registry: one line per host, its variant and its file (which holds its
/// [`Adapter`], everything hookrules knows about it). Adding a host is its
/// file plus one line here; the order is the order `doctor` and `init --host`
/// list them.
macro_rules! registry {
    ($($variant:ident => $file:ident,)*) => {
        $(pub mod $file;)*

        /// An agent whose hooks hookrules can answer (what it is: [`Host::adapter`]).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Host {
            $(
                #[doc = concat!("The agent of `", stringify!($file), ".rs`.")]
                $variant,
            )*
        }

        impl Host {
            /// Every host, in registry order.
            pub const ALL: [Host; [$(stringify!($variant)),*].len()] = [$(Host::$variant),*];

            /// Everything hookrules knows about the host, as data.
            pub fn adapter(self) -> &'static Adapter {
                match self {
                    $(Host::$variant => &$file::ADAPTER,)*
                }
            }
        }
    };
}

registry! {
    Claude => claude,
    Codex => codex,
    Gemini => gemini,
    Cursor => cursor,
    Copilot => copilot,
    VsCode => vscode,
}

impl Host {
    /// The name used on the command line and in `host.name`.
    pub fn name(self) -> &'static str {
        self.adapter().name
    }

    /// The product name, for messages.
    pub fn title(self) -> &'static str {
        self.adapter().title
    }

    /// Parse a `--host` value (its name or one of its aliases, in any case).
    pub fn parse(s: &str) -> Option<Host> {
        let s = s.to_ascii_lowercase();
        Host::ALL.into_iter().find(|h| {
            let a = h.adapter();
            a.name == s || a.aliases.contains(&s.as_str())
        })
    }

    /// The unit the host's config writes hook timeouts in.
    pub fn timeout_unit(self) -> TimeUnit {
        self.adapter().timeout_unit
    }
}

/// A unit of time in a host's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Milliseconds,
}

/// The family a tool belongs to, the same on every host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolClass {
    /// Runs a shell command.
    Shell,
    /// Reads or searches files.
    Read,
    /// Creates or overwrites files.
    Write,
    /// Changes part of a file.
    Edit,
    /// Fetches or searches the web.
    Web,
    /// A tool of an MCP server.
    Mcp,
    /// Anything else.
    Other,
}

impl ToolClass {
    /// Its name in `tool_class`.
    pub fn name(self) -> &'static str {
        match self {
            ToolClass::Shell => "shell",
            ToolClass::Read => "read",
            ToolClass::Write => "write",
            ToolClass::Edit => "edit",
            ToolClass::Web => "web",
            ToolClass::Mcp => "mcp",
            ToolClass::Other => "other",
        }
    }

    /// Every class name, for documentation and lints.
    pub const NAMES: [&'static str; 7] = ["shell", "read", "write", "edit", "web", "mcp", "other"];
}

/// The class of a canonical (Claude Code) tool name.
pub fn class_of(canonical_tool: &str) -> ToolClass {
    if canonical_tool.starts_with("mcp__") {
        return ToolClass::Mcp;
    }
    match canonical_tool {
        "Bash" | "PowerShell" => ToolClass::Shell,
        "Read" | "Grep" | "Glob" | "LS" | "NotebookRead" => ToolClass::Read,
        "Write" => ToolClass::Write,
        "Edit" | "MultiEdit" | "NotebookEdit" => ToolClass::Edit,
        "WebFetch" | "WebSearch" => ToolClass::Web,
        _ => ToolClass::Other,
    }
}

/// Which shell a tool event's command is written for: Claude Code's
/// `PowerShell` tool (and the tools mapped to it: Copilot CLI's `powershell`)
/// is PowerShell; the shell tool of an agent that does not say which shell it
/// starts (Codex, Gemini CLI, Cursor, VS Code), on Windows (a `cwd` with a
/// drive letter or a UNC path), may be either; everything else is bash.
/// Claude Code's and Copilot CLI's `Bash` tools run bash (Git Bash on Windows).
pub fn dialect(event: &Value) -> crate::shell::Dialect {
    use crate::shell::Dialect;
    match event.get("tool_name").and_then(Value::as_str) {
        Some("PowerShell") => return Dialect::PowerShell,
        Some("Bash") => {}
        _ => return Dialect::Bash,
    }
    let unnamed = event
        .get("host")
        .and_then(|h| h.get("name"))
        .and_then(Value::as_str)
        .and_then(Host::parse)
        .is_some_and(|h| h.adapter().shell_unnamed);
    let windows = event
        .get("cwd")
        .and_then(Value::as_str)
        .is_some_and(crate::shell::place::is_windows_path);
    if unnamed && windows {
        Dialect::Either
    } else {
        Dialect::Bash
    }
}

/// Where an event came from, kept beside the canonical event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The agent.
    pub host: Host,
    /// The agent's own event name (`BeforeTool`, `beforeShellExecution`, `preToolUse`, …).
    pub event: String,
}

/// What recognition made of one stdin object.
#[derive(Debug, Clone)]
pub struct Recognised {
    /// The canonical event (Claude Code's shape, plus `tool_class` and `host`).
    pub value: Value,
    /// Where it came from.
    pub origin: Origin,
    /// Was anything beyond the added `tool_class` / `host` changed?
    pub rewritten: bool,
}

/// Why an envelope could not be recognised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unrecognised {
    /// Nothing says which agent sent it or which event it is.
    NoEventName,
    /// `--host` names an agent whose envelope this is not.
    NotFromHost(Host, String),
}

impl std::fmt::Display for Unrecognised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unrecognised::NoEventName => {
                let titles = |named: bool| -> Vec<&str> {
                    Host::ALL
                        .iter()
                        .map(|h| h.adapter())
                        .filter(|a| a.names_event == named)
                        .map(|a| a.title)
                        .collect()
                };
                let names: Vec<&str> = Host::ALL.iter().map(|h| h.name()).collect();
                write!(
                    f,
                    "stdin is not a hook event hookrules recognises: no string `hook_event_name` \
                     ({}) and not the envelope of {}; pass `--host NAME` ({}) if the agent is one \
                     of these",
                    titles(true).join(", "),
                    titles(false).join(" or "),
                    names.join(", ")
                )
            }
            Unrecognised::NotFromHost(h, why) => {
                write!(f, "stdin is not a {} hook event: {why}", h.title())
            }
        }
    }
}

/// Hints from the command line (`run --host NAME --event NAME`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Hint<'a> {
    /// The agent the handler was installed for.
    pub host: Option<Host>,
    /// The agent's event name, for agents that do not send it (Copilot CLI).
    pub event: Option<&'a str>,
}

/// Recognise the agent from the envelope (or the hint) and build the canonical event.
pub fn recognise(value: Value, hint: Hint<'_>) -> Result<Recognised, Unrecognised> {
    let Value::Object(obj) = value else {
        return Err(Unrecognised::NoEventName);
    };
    let named = obj.contains_key("hook_event_name") || obj.contains_key("hookEventName");
    let host = match hint.host {
        // A named envelope under the handler of a host that never names its
        // events is another host's (VS Code runs Copilot CLI's hook files with
        // its own envelope).
        Some(h) if named && !h.adapter().names_event => {
            sniff(&obj).ok_or(Unrecognised::NoEventName)?
        }
        Some(h) => h,
        None => sniff(&obj).ok_or(Unrecognised::NoEventName)?,
    };
    (host.adapter().normalise)(obj, hint.event)
}

/// Which agent sent this object, judged from its shape alone: the host whose
/// [`Sniff::Shape`] claims it (the lowest rank first), else, for a named
/// envelope, the canonical host ([`Sniff::Fallback`]).
pub fn sniff(obj: &Map<String, Value>) -> Option<Host> {
    let name = obj
        .get("hook_event_name")
        .or_else(|| obj.get("hookEventName"))
        .and_then(Value::as_str);
    let claimed = Host::ALL
        .into_iter()
        .filter_map(|h| match h.adapter().sniff {
            Sniff::Shape { rank, test } if test(obj, name) => Some((rank, h)),
            _ => None,
        })
        .min_by_key(|(rank, _)| *rank)
        .map(|(_, h)| h);
    claimed.or_else(|| {
        name?;
        Host::ALL
            .into_iter()
            .find(|h| matches!(h.adapter().sniff, Sniff::Fallback))
    })
}

/// The fields every canonical event gets: `tool_class` (tool events) and `host`.
/// `raw_tool` / `raw_input` are what the agent sent before normalisation.
pub(crate) fn stamp(
    obj: &mut Map<String, Value>,
    host: Host,
    host_event: &str,
    raw_tool: Option<Value>,
    raw_input: Option<Value>,
) {
    if let Some(tool) = obj.get("tool_name").and_then(Value::as_str) {
        let class = class_of(tool);
        obj.insert("tool_class".into(), Value::String(class.name().into()));
    }
    let mut h = Map::new();
    h.insert("name".into(), Value::String(host.name().into()));
    h.insert("event".into(), Value::String(host_event.into()));
    if let Some(t) = raw_tool {
        h.insert("tool_name".into(), t);
    }
    if let Some(i) = raw_input {
        h.insert("tool_input".into(), i);
    }
    obj.insert("host".into(), Value::Object(h));
}

/// The agent's own name for a canonical `tool_input` key of one of its tools
/// (`file_path` of Gemini's `read_file` is `absolute_path` when it sent that),
/// so a rewrite is sent back in the names the agent reads.
pub fn host_input_key(
    host: Host,
    host_tool: &str,
    raw_input: &Map<String, Value>,
    key: &str,
) -> String {
    (host.adapter().renames)(host_tool)
        .iter()
        .find(|(from, to)| *to == key && raw_input.contains_key(*from))
        .map(|(from, _)| (*from).to_string())
        .unwrap_or_else(|| key.to_string())
}

/// Rename keys of an object (`filePath` → `file_path`), keeping existing canonical keys.
pub(crate) fn rename_keys(input: &mut Map<String, Value>, pairs: &[(&str, &str)]) {
    for (from, to) in pairs {
        if input.contains_key(*to) {
            continue;
        }
        if let Some(v) = input.remove(*from) {
            input.insert((*to).to_string(), v);
        }
    }
}

/// A host's tool table: (its tool name, the canonical name, input keys renamed
/// from the host's name to the canonical one).
pub(crate) type ToolTable = &'static [(
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
)];

/// A string field, for building messages.
pub(crate) fn str_of<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon(v: Value) -> Recognised {
        recognise(v, Hint::default()).expect("recognised")
    }

    #[test]
    fn every_host_shell_call_becomes_bash_with_command() {
        let cases = [
            (
                Host::Claude,
                json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"session_id":"s","cwd":"/p"}),
            ),
            (
                Host::Codex,
                json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"session_id":"s","turn_id":"t","model":"gpt-5","cwd":"/p","permission_mode":"default","tool_use_id":"c","transcript_path":null}),
            ),
            (
                Host::Gemini,
                json!({"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf /"},"session_id":"s","cwd":"/p","timestamp":"2026-01-01T00:00:00Z","transcript_path":"/t"}),
            ),
            (
                Host::Cursor,
                json!({"hook_event_name":"beforeShellExecution","command":"rm -rf /","cwd":"/p","conversation_id":"c","generation_id":"g","workspace_roots":["/p"]}),
            ),
            (
                Host::Copilot,
                json!({"timestamp":1704614600000u64,"cwd":"/p","toolName":"bash","toolArgs":"{\"command\":\"rm -rf /\",\"description\":\"x\"}"}),
            ),
            (
                Host::VsCode,
                json!({"hook_event_name":"PreToolUse","tool_name":"run_in_terminal","tool_input":{"command":"rm -rf /","explanation":"x","isBackground":false},"sessionId":"s","timestamp":"2026-01-01T00:00:00Z","cwd":"/p","tool_use_id":"t"}),
            ),
        ];
        for (host, v) in cases {
            let r = canon(v);
            assert_eq!(r.origin.host, host, "{:?}", r.value);
            assert_eq!(r.value["hook_event_name"], "PreToolUse", "{host:?}");
            assert_eq!(r.value["tool_name"], "Bash", "{host:?}");
            assert_eq!(r.value["tool_input"]["command"], "rm -rf /", "{host:?}");
            assert_eq!(r.value["tool_class"], "shell", "{host:?}");
            assert_eq!(r.value["host"]["name"], host.name());
        }
    }

    #[test]
    fn a_named_envelope_under_a_copilot_handler_is_read_as_what_it_is() {
        // VS Code running Copilot's .github/hooks file.
        let v = json!({"hook_event_name":"PreToolUse","tool_name":"create_file","tool_input":{"filePath":"/p/.env"},"sessionId":"s"});
        let r = recognise(
            v,
            Hint {
                host: Some(Host::Copilot),
                event: Some("preToolUse"),
            },
        )
        .unwrap();
        assert_eq!(r.origin.host, Host::VsCode);
        assert_eq!(r.value["tool_input"]["file_path"], "/p/.env");
    }

    #[test]
    fn each_shell_tool_is_read_in_its_shell() {
        use crate::shell::Dialect;
        let cases = [
            (
                json!({"hook_event_name":"PreToolUse","tool_name":"PowerShell","tool_input":{"command":"Get-Date"},"session_id":"s","cwd":"C:\\Users\\dev\\p"}),
                Dialect::PowerShell,
            ),
            (
                json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s","cwd":"C:\\Users\\dev\\p"}),
                Dialect::Bash,
            ),
            (
                json!({"timestamp":1704614600000u64,"cwd":"C:\\p","toolName":"powershell","toolArgs":{"command":"Get-Date"}}),
                Dialect::PowerShell,
            ),
            (
                json!({"timestamp":1704614600000u64,"cwd":"C:\\p","toolName":"bash","toolArgs":"{\"command\":\"ls\"}"}),
                Dialect::Bash,
            ),
            (
                json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s","turn_id":"t","model":"gpt-5","cwd":"C:\\Users\\dev\\p"}),
                Dialect::Either,
            ),
            (
                json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"session_id":"s","turn_id":"t","model":"gpt-5","cwd":"/home/dev/p"}),
                Dialect::Bash,
            ),
            (
                json!({"hook_event_name":"PreToolUse","tool_name":"run_in_terminal","tool_input":{"command":"ls","explanation":"x","isBackground":false},"sessionId":"s","cwd":"D:/work/p"}),
                Dialect::Either,
            ),
        ];
        for (v, want) in cases {
            let r = canon(v.clone());
            assert_eq!(dialect(&r.value), want, "{v}");
        }
    }

    #[test]
    fn an_object_no_agent_sends_is_refused() {
        for v in [
            json!({}),
            json!({"tool_name":"Bash","tool_input":{"command":"rm -rf /"}}),
            json!({"event":"PreToolUse"}),
        ] {
            assert_eq!(
                recognise(v.clone(), Hint::default()).err(),
                Some(Unrecognised::NoEventName),
                "{v}"
            );
        }
    }
}
