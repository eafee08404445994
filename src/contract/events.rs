//! What the client does with each event: the matcher field, whether and how it can
//! be blocked, and which `hookSpecificOutput` fields it accepts. One table, taken
//! from the hook reference (§1.2, §2.3, §2.4, client 2.1.330).

/// How an event can be blocked or decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blocking {
    /// PreToolUse: `hookSpecificOutput.permissionDecision` allow / ask / deny.
    Permission,
    /// PermissionRequest: `hookSpecificOutput.decision.behavior` allow / deny.
    PermissionRequest,
    /// PreModelSwitch: `hookSpecificOutput.permissionDecision` allow / ask / deny.
    ModelSwitch,
    /// Elicitation / ElicitationResult: `hookSpecificOutput.action`.
    Elicitation,
    /// Top-level `decision: "block"` + `reason`.
    TopLevel,
    /// Cannot be blocked (only `continue: false` stops).
    None,
}

/// Which characters the client accepts in an exact-list matcher for this event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListStyle {
    /// `[A-Za-z0-9_|, -]`, split on `|` or `,`, whitespace trimmed.
    Wide,
    /// `[A-Za-z0-9_|]`, split on `|`.
    Narrow,
}

/// One event the client sends.
#[derive(Debug, Clone, Copy)]
pub struct EventSpec {
    /// `hook_event_name`.
    pub name: &'static str,
    /// The stdin field the client's matcher is tested against, if any.
    pub matcher_field: Option<&'static str>,
    /// Matcher list syntax.
    pub list_style: ListStyle,
    /// Carries `tool_name` / `tool_input`.
    pub tool_event: bool,
    /// How it can be blocked.
    pub blocking: Blocking,
    /// `hookSpecificOutput.additionalContext` is accepted.
    pub context: bool,
    /// Event-specific stdin fields (beyond the common ones).
    pub fields: &'static [&'static str],
}

/// Fields every event may carry.
pub const COMMON_FIELDS: &[&str] = &[
    "session_id",
    "transcript_path",
    "cwd",
    "prompt_id",
    "permission_mode",
    "agent_id",
    "agent_type",
    "effort",
    "hook_event_name",
];

const TOOL: &[&str] = &["tool_name", "tool_input", "tool_use_id", "mcp_server"];
const TASK: &[&str] = &[
    "task_id",
    "task_subject",
    "task_description",
    "teammate_name",
    "team_name",
];

macro_rules! ev {
    ($name:literal, $m:expr, $ls:ident, $tool:literal, $b:ident, $ctx:literal, $fields:expr) => {
        EventSpec {
            name: $name,
            matcher_field: $m,
            list_style: ListStyle::$ls,
            tool_event: $tool,
            blocking: Blocking::$b,
            context: $ctx,
            fields: $fields,
        }
    };
}

/// Every event of client 2.1.330 (reference §1).
pub const EVENTS: &[EventSpec] = &[
    ev!(
        "PreToolUse",
        Some("tool_name"),
        Wide,
        true,
        Permission,
        true,
        TOOL
    ),
    ev!(
        "PostToolUse",
        Some("tool_name"),
        Wide,
        true,
        TopLevel,
        true,
        &[
            "tool_name",
            "tool_input",
            "tool_use_id",
            "mcp_server",
            "tool_response",
            "duration_ms"
        ]
    ),
    ev!(
        "PostToolUseFailure",
        Some("tool_name"),
        Wide,
        true,
        TopLevel,
        true,
        &[
            "tool_name",
            "tool_input",
            "tool_use_id",
            "mcp_server",
            "error",
            "is_interrupt",
            "duration_ms"
        ]
    ),
    ev!(
        "PostToolBatch",
        None,
        Narrow,
        false,
        TopLevel,
        true,
        &["tool_calls"]
    ),
    ev!(
        "Notification",
        Some("notification_type"),
        Wide,
        false,
        None,
        true,
        &["message", "notification_type", "title"]
    ),
    ev!(
        "UserPromptSubmit",
        None,
        Narrow,
        false,
        TopLevel,
        true,
        &["prompt", "source", "session_title"]
    ),
    ev!(
        "UserPromptExpansion",
        Some("command_name"),
        Wide,
        false,
        TopLevel,
        true,
        &[
            "expansion_type",
            "command_name",
            "command_args",
            "command_source",
            "prompt"
        ]
    ),
    ev!(
        "SessionStart",
        Some("source"),
        Wide,
        false,
        None,
        true,
        &[
            "source",
            "model",
            "session_title",
            "seconds_since_last_response",
            "context_tokens",
            "prompt_cache_likely_expired",
            "estimated_cache_write_usd"
        ]
    ),
    ev!(
        "SessionEnd",
        Some("reason"),
        Wide,
        false,
        None,
        false,
        &["reason"]
    ),
    ev!(
        "Stop",
        None,
        Narrow,
        false,
        TopLevel,
        true,
        &[
            "stop_hook_active",
            "last_assistant_message",
            "background_tasks",
            "session_crons"
        ]
    ),
    ev!(
        "StopFailure",
        Some("error"),
        Narrow,
        false,
        None,
        false,
        &["error", "error_details", "last_assistant_message"]
    ),
    ev!(
        "SubagentStart",
        Some("agent_type"),
        Wide,
        false,
        None,
        true,
        &[]
    ),
    ev!(
        "SubagentStop",
        Some("agent_type"),
        Wide,
        false,
        TopLevel,
        true,
        &[
            "stop_hook_active",
            "agent_transcript_path",
            "last_assistant_message",
            "background_tasks",
            "session_crons"
        ]
    ),
    ev!(
        "PreCompact",
        Some("trigger"),
        Wide,
        false,
        TopLevel,
        false,
        &["trigger", "custom_instructions"]
    ),
    ev!(
        "PostCompact",
        Some("trigger"),
        Wide,
        false,
        None,
        false,
        &["trigger", "compact_summary"]
    ),
    ev!(
        "PreModelSwitch",
        Some("to_model"),
        Wide,
        false,
        ModelSwitch,
        false,
        MODEL
    ),
    ev!(
        "PostModelSwitch",
        Some("to_model"),
        Wide,
        false,
        None,
        true,
        MODEL
    ),
    ev!(
        "PermissionRequest",
        Some("tool_name"),
        Wide,
        true,
        PermissionRequest,
        false,
        &[
            "tool_name",
            "tool_input",
            "permission_suggestions",
            "mcp_server"
        ]
    ),
    ev!(
        "PermissionDenied",
        Some("tool_name"),
        Wide,
        true,
        None,
        false,
        &[
            "tool_name",
            "tool_input",
            "tool_use_id",
            "reason",
            "mcp_server"
        ]
    ),
    ev!(
        "Setup",
        Some("trigger"),
        Wide,
        false,
        None,
        true,
        &["trigger"]
    ),
    ev!(
        "TeammateIdle",
        None,
        Narrow,
        false,
        TopLevel,
        false,
        &["teammate_name", "team_name"]
    ),
    ev!("TaskCreated", None, Narrow, false, TopLevel, false, TASK),
    ev!("TaskCompleted", None, Narrow, false, TopLevel, false, TASK),
    ev!(
        "Elicitation",
        Some("mcp_server_name"),
        Wide,
        false,
        Elicitation,
        false,
        &[
            "mcp_server_name",
            "message",
            "mode",
            "url",
            "elicitation_id",
            "requested_schema"
        ]
    ),
    ev!(
        "ElicitationResult",
        Some("mcp_server_name"),
        Wide,
        false,
        Elicitation,
        false,
        &[
            "mcp_server_name",
            "action",
            "elicitation_id",
            "mode",
            "content"
        ]
    ),
    ev!(
        "ConfigChange",
        Some("source"),
        Wide,
        false,
        TopLevel,
        false,
        &["source", "file_path"]
    ),
    ev!(
        "WorktreeCreate",
        None,
        Narrow,
        false,
        None,
        false,
        &["name"]
    ),
    ev!(
        "WorktreeRemove",
        None,
        Narrow,
        false,
        None,
        false,
        &["worktree_path"]
    ),
    ev!(
        "InstructionsLoaded",
        Some("load_reason"),
        Wide,
        false,
        None,
        false,
        &[
            "file_path",
            "memory_type",
            "load_reason",
            "globs",
            "trigger_file_path",
            "parent_file_path"
        ]
    ),
    ev!(
        "CwdChanged",
        None,
        Narrow,
        false,
        None,
        false,
        &["old_cwd", "new_cwd"]
    ),
    ev!(
        "FileChanged",
        Some("file_path"),
        Narrow,
        false,
        None,
        false,
        &["file_path", "event"]
    ),
    ev!(
        "DirectoryAdded",
        Some("source"),
        Wide,
        false,
        None,
        false,
        &["directory", "source"]
    ),
    ev!(
        "MessageDisplay",
        None,
        Narrow,
        false,
        None,
        false,
        &["turn_id", "message_id", "index", "final", "delta"]
    ),
];

const MODEL: &[&str] = &[
    "from_model",
    "to_model",
    "requested_model",
    "source",
    "context_tokens",
    "prompt_cache_warm",
    "cache_ttl",
    "estimated_cache_write_usd",
    "pricing",
];

/// Events whose output the client ignores entirely (reference §2.3: "StopFailure
/// ignores all output"): no decision, not even `stop`, has an effect there.
pub const OUTPUT_IGNORED: &[&str] = &["StopFailure"];

/// Look up a known event.
pub fn spec(name: &str) -> Option<&'static EventSpec> {
    EVENTS.iter().find(|e| e.name == name)
}

/// The spec used for an event this client version does not know: no matcher, no
/// `hookSpecificOutput`, no blocking; only top-level fields are printed.
pub fn unknown() -> EventSpec {
    EventSpec {
        name: "",
        matcher_field: None,
        list_style: ListStyle::Narrow,
        tool_event: false,
        blocking: Blocking::None,
        context: false,
        fields: &[],
    }
}

/// Legacy tool names the client also tests matchers against (reference §3.2).
pub fn tool_aliases(tool: &str) -> &'static [&'static str] {
    match tool {
        "Agent" => &["Task"],
        "TaskStop" => &["KillShell", "KillBash"],
        "ListAgents" => &["ListPeers"],
        "SendUserMessage" => &["Brief"],
        "ListMcpResourcesTool" => &["ListMcpResources"],
        "ReadMcpResourceTool" => &["ReadMcpResource"],
        _ => &[],
    }
}
