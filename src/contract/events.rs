//! What the client does with each event: the matcher field, whether and how it can
//! be blocked, and which `hookSpecificOutput` fields it accepts. One table, taken
//! from the hook reference (§1.2, §2.3, §2.4, client 2.1.330).

use super::fields::{self, Field};

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
    /// Event-specific stdin fields (beyond [`fields::COMMON`]).
    pub fields: &'static [Field],
}

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
        fields::PRE_TOOL_USE
    ),
    ev!(
        "PostToolUse",
        Some("tool_name"),
        Wide,
        true,
        TopLevel,
        true,
        fields::POST_TOOL_USE
    ),
    ev!(
        "PostToolUseFailure",
        Some("tool_name"),
        Wide,
        true,
        TopLevel,
        true,
        fields::POST_TOOL_USE_FAILURE
    ),
    ev!(
        "PostToolBatch",
        None,
        Narrow,
        false,
        TopLevel,
        true,
        fields::POST_TOOL_BATCH
    ),
    ev!(
        "Notification",
        Some("notification_type"),
        Wide,
        false,
        None,
        true,
        fields::NOTIFICATION
    ),
    ev!(
        "UserPromptSubmit",
        None,
        Narrow,
        false,
        TopLevel,
        true,
        fields::USER_PROMPT_SUBMIT
    ),
    ev!(
        "UserPromptExpansion",
        Some("command_name"),
        Wide,
        false,
        TopLevel,
        true,
        fields::USER_PROMPT_EXPANSION
    ),
    ev!(
        "SessionStart",
        Some("source"),
        Wide,
        false,
        None,
        true,
        fields::SESSION_START
    ),
    ev!(
        "SessionEnd",
        Some("reason"),
        Wide,
        false,
        None,
        false,
        fields::SESSION_END
    ),
    ev!("Stop", None, Narrow, false, TopLevel, true, fields::STOP),
    ev!(
        "StopFailure",
        Some("error"),
        Narrow,
        false,
        None,
        false,
        fields::STOP_FAILURE
    ),
    ev!(
        "SubagentStart",
        Some("agent_type"),
        Wide,
        false,
        None,
        true,
        fields::SUBAGENT_START
    ),
    ev!(
        "SubagentStop",
        Some("agent_type"),
        Wide,
        false,
        TopLevel,
        true,
        fields::SUBAGENT_STOP
    ),
    ev!(
        "PreCompact",
        Some("trigger"),
        Wide,
        false,
        TopLevel,
        false,
        fields::PRE_COMPACT
    ),
    ev!(
        "PostCompact",
        Some("trigger"),
        Wide,
        false,
        None,
        false,
        fields::POST_COMPACT
    ),
    ev!(
        "PreModelSwitch",
        Some("to_model"),
        Wide,
        false,
        ModelSwitch,
        false,
        fields::MODEL_SWITCH
    ),
    ev!(
        "PostModelSwitch",
        Some("to_model"),
        Wide,
        false,
        None,
        true,
        fields::MODEL_SWITCH
    ),
    ev!(
        "PermissionRequest",
        Some("tool_name"),
        Wide,
        true,
        PermissionRequest,
        false,
        fields::PERMISSION_REQUEST
    ),
    ev!(
        "PermissionDenied",
        Some("tool_name"),
        Wide,
        true,
        None,
        false,
        fields::PERMISSION_DENIED
    ),
    ev!(
        "Setup",
        Some("trigger"),
        Wide,
        false,
        None,
        true,
        fields::SETUP
    ),
    ev!(
        "TeammateIdle",
        None,
        Narrow,
        false,
        TopLevel,
        false,
        fields::TEAMMATE_IDLE
    ),
    ev!(
        "TaskCreated",
        None,
        Narrow,
        false,
        TopLevel,
        false,
        fields::TASK
    ),
    ev!(
        "TaskCompleted",
        None,
        Narrow,
        false,
        TopLevel,
        false,
        fields::TASK
    ),
    ev!(
        "Elicitation",
        Some("mcp_server_name"),
        Wide,
        false,
        Elicitation,
        false,
        fields::ELICITATION
    ),
    ev!(
        "ElicitationResult",
        Some("mcp_server_name"),
        Wide,
        false,
        Elicitation,
        false,
        fields::ELICITATION_RESULT
    ),
    ev!(
        "ConfigChange",
        Some("source"),
        Wide,
        false,
        TopLevel,
        false,
        fields::CONFIG_CHANGE
    ),
    ev!(
        "WorktreeCreate",
        None,
        Narrow,
        false,
        None,
        false,
        fields::WORKTREE_CREATE
    ),
    ev!(
        "WorktreeRemove",
        None,
        Narrow,
        false,
        None,
        false,
        fields::WORKTREE_REMOVE
    ),
    ev!(
        "InstructionsLoaded",
        Some("load_reason"),
        Wide,
        false,
        None,
        false,
        fields::INSTRUCTIONS_LOADED
    ),
    ev!(
        "CwdChanged",
        None,
        Narrow,
        false,
        None,
        false,
        fields::CWD_CHANGED
    ),
    ev!(
        "FileChanged",
        Some("file_path"),
        Narrow,
        false,
        None,
        false,
        fields::FILE_CHANGED
    ),
    ev!(
        "DirectoryAdded",
        Some("source"),
        Wide,
        false,
        None,
        false,
        fields::DIRECTORY_ADDED
    ),
    ev!(
        "MessageDisplay",
        None,
        Narrow,
        false,
        None,
        false,
        fields::MESSAGE_DISPLAY
    ),
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

/// The handler timeout for an event, in seconds (the client's unit, reference
/// §3.1): what `init` registers by default, and what `run` works to when the
/// registration names none (`run --timeout`). An event not listed (a newer or
/// unknown one) gets the interactive path's 10 s.
pub fn default_timeout_secs(event: &str) -> u64 {
    match event {
        // Gates that may run a test suite or a build before letting the agent stop.
        "Stop" | "SubagentStop" | "TaskCompleted" | "TeammateIdle" | "Setup" => 60,
        // Context injection and state saved or restored around compaction.
        "SessionStart" | "PreCompact" | "PostCompact" => 30,
        // SessionEnd hooks share a 1.5 s budget unless a handler sets a timeout (§6 item 12).
        "SessionEnd" => 10,
        // Everything else sits on the interactive path: tool calls, prompts, permissions.
        _ => 10,
    }
}
