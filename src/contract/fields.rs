//! What the client sends: the fields of each event, of each tool's `tool_input`
//! and `tool_response`, and the values each event's matcher field takes, as the
//! hook reference describes them (§1.1, §1.2, §4; client 2.1.330). `check` reads
//! these tables to tell a field a rule reads that cannot exist (an error) from one
//! that is only sometimes there (a warning). `tests/library/contract_fields.rs` checks
//! every reference sample against them.

/// Whether a field is always sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Always present.
    Always,
    /// Optional (or null) in the reference.
    Sometimes,
}

/// The shape of a value.
#[derive(Debug, Clone, Copy)]
pub enum Shape {
    /// A string.
    Text,
    /// A number.
    Number,
    /// `true` / `false`.
    Bool,
    /// An object whose fields the reference lists completely.
    Object(&'static [Field]),
    /// An object with these fields and possibly others.
    OpenObject(&'static [Field]),
    /// A list of values of one shape.
    List(&'static Shape),
    /// `tool_input`: the shape depends on the tool ([`tool_input`]).
    ToolInput,
    /// `tool_response` (PostToolUse): the shape depends on the tool ([`tool_response`]).
    ToolResponse,
    /// Not described by the reference.
    Any,
}

/// One field of an object.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Its key.
    pub name: &'static str,
    /// Always sent, or not.
    pub presence: Presence,
    /// Its value.
    pub shape: Shape,
}

impl Field {
    /// Look a field up by name.
    pub fn find<'f>(fields: &'f [Field], name: &str) -> Option<&'f Field> {
        fields.iter().find(|f| f.name == name)
    }
}

/// An always-present field.
const fn a(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        presence: Presence::Always,
        shape,
    }
}

/// An optional field.
const fn o(name: &'static str, shape: Shape) -> Field {
    Field {
        name,
        presence: Presence::Sometimes,
        shape,
    }
}

use Shape::{Any, Bool, Number, Text};

const TEXTS: Shape = Shape::List(&Text);
const ANYS: Shape = Shape::List(&Any);

/// Fields every event may carry (`BaseHookInput`, reference §1.1).
pub const COMMON: &[Field] = &[
    a("session_id", Text),
    a("transcript_path", Text),
    a("cwd", Text),
    o("prompt_id", Text),
    o("permission_mode", Text),
    o("agent_id", Text),
    o("agent_type", Text),
    o("effort", Shape::Object(&[a("level", Text)])),
    a("hook_event_name", Text),
    // Added by hookrules to every event, whichever agent sent it (contract/hosts):
    // the agent, its own event name, and the tool name and input as it sent them.
    a("host", HOST),
];

const HOST: Shape = Shape::Object(&[
    a("name", Text),
    a("event", Text),
    o("tool_name", Text),
    o("tool_input", Any),
]);

const MCP_SERVER: Shape = Shape::Object(&[a("name", Text), a("source", Text)]);

/// PreToolUse.
pub const PRE_TOOL_USE: &[Field] = &[
    a("tool_name", Text),
    a("tool_class", Text),
    a("tool_input", Shape::ToolInput),
    a("tool_use_id", Text),
    o("mcp_server", MCP_SERVER),
];
/// PostToolUse.
pub const POST_TOOL_USE: &[Field] = &[
    a("tool_name", Text),
    a("tool_class", Text),
    a("tool_input", Shape::ToolInput),
    a("tool_response", Shape::ToolResponse),
    a("tool_use_id", Text),
    o("duration_ms", Number),
    o("mcp_server", MCP_SERVER),
];
/// PostToolUseFailure.
pub const POST_TOOL_USE_FAILURE: &[Field] = &[
    a("tool_name", Text),
    a("tool_class", Text),
    a("tool_input", Shape::ToolInput),
    a("tool_use_id", Text),
    a("error", Text),
    o("is_interrupt", Bool),
    o("duration_ms", Number),
    o("mcp_server", MCP_SERVER),
];
/// PostToolBatch: each call's `tool_input` is that call's tool's (not known statically).
pub const POST_TOOL_BATCH: &[Field] = &[a(
    "tool_calls",
    Shape::List(&Shape::Object(&[
        a("tool_name", Text),
        a("tool_input", Any),
        a("tool_use_id", Text),
        o("tool_response", Any),
    ])),
)];
/// Notification.
pub const NOTIFICATION: &[Field] = &[
    a("message", Text),
    a("notification_type", Text),
    o("title", Text),
];
/// UserPromptSubmit.
pub const USER_PROMPT_SUBMIT: &[Field] = &[
    a("prompt", Text),
    o("source", Text),
    o("session_title", Text),
];
/// UserPromptExpansion.
pub const USER_PROMPT_EXPANSION: &[Field] = &[
    a("expansion_type", Text),
    a("command_name", Text),
    a("command_args", Text),
    o("command_source", Text),
    a("prompt", Text),
];
/// SessionStart.
pub const SESSION_START: &[Field] = &[
    a("source", Text),
    o("model", Text),
    o("session_title", Text),
    o("seconds_since_last_response", Number),
    o("context_tokens", Number),
    o("prompt_cache_likely_expired", Bool),
    o("estimated_cache_write_usd", Number),
];
/// SessionEnd.
pub const SESSION_END: &[Field] = &[a("reason", Text)];
/// Stop.
pub const STOP: &[Field] = &[
    a("stop_hook_active", Bool),
    o("last_assistant_message", Text),
    o("background_tasks", ANYS),
    o("session_crons", ANYS),
];
/// StopFailure.
pub const STOP_FAILURE: &[Field] = &[
    a("error", Text),
    o("error_details", Any),
    o("last_assistant_message", Text),
];
/// SubagentStart: `agent_id` and `agent_type` are always sent here.
pub const SUBAGENT_START: &[Field] = &[a("agent_id", Text), a("agent_type", Text)];
/// SubagentStop.
pub const SUBAGENT_STOP: &[Field] = &[
    a("stop_hook_active", Bool),
    a("agent_id", Text),
    a("agent_type", Text),
    a("agent_transcript_path", Text),
    o("last_assistant_message", Text),
    o("background_tasks", ANYS),
    o("session_crons", ANYS),
];
/// PreCompact (`custom_instructions` may be null).
pub const PRE_COMPACT: &[Field] = &[a("trigger", Text), o("custom_instructions", Text)];
/// PostCompact.
pub const POST_COMPACT: &[Field] = &[a("trigger", Text), a("compact_summary", Text)];
/// Pre/PostModelSwitch.
pub const MODEL_SWITCH: &[Field] = &[
    a("from_model", Text),
    a("to_model", Text),
    o("requested_model", Text),
    a("source", Text),
    a("context_tokens", Number),
    a("prompt_cache_warm", Bool),
    a("cache_ttl", Text),
    a("estimated_cache_write_usd", Number),
    a("pricing", Text),
];
/// PermissionRequest (no `tool_use_id`).
pub const PERMISSION_REQUEST: &[Field] = &[
    a("tool_name", Text),
    a("tool_class", Text),
    a("tool_input", Shape::ToolInput),
    o("permission_suggestions", ANYS),
    o("mcp_server", MCP_SERVER),
];
/// PermissionDenied.
pub const PERMISSION_DENIED: &[Field] = &[
    a("tool_name", Text),
    a("tool_class", Text),
    a("tool_input", Shape::ToolInput),
    a("tool_use_id", Text),
    a("reason", Text),
    o("mcp_server", MCP_SERVER),
];
/// Setup.
pub const SETUP: &[Field] = &[a("trigger", Text)];
/// TeammateIdle.
pub const TEAMMATE_IDLE: &[Field] = &[a("teammate_name", Text), o("team_name", Text)];
/// TaskCreated / TaskCompleted.
pub const TASK: &[Field] = &[
    a("task_id", Text),
    a("task_subject", Text),
    o("task_description", Text),
    o("teammate_name", Text),
    o("team_name", Text),
];
/// Elicitation.
pub const ELICITATION: &[Field] = &[
    a("mcp_server_name", Text),
    a("message", Text),
    o("mode", Text),
    o("url", Text),
    o("elicitation_id", Text),
    o("requested_schema", Any),
];
/// ElicitationResult.
pub const ELICITATION_RESULT: &[Field] = &[
    a("mcp_server_name", Text),
    a("action", Text),
    o("elicitation_id", Text),
    o("mode", Text),
    o("content", Any),
];
/// ConfigChange.
pub const CONFIG_CHANGE: &[Field] = &[a("source", Text), o("file_path", Text)];
/// WorktreeCreate.
pub const WORKTREE_CREATE: &[Field] = &[a("name", Text)];
/// WorktreeRemove.
pub const WORKTREE_REMOVE: &[Field] = &[a("worktree_path", Text)];
/// InstructionsLoaded.
pub const INSTRUCTIONS_LOADED: &[Field] = &[
    a("file_path", Text),
    a("memory_type", Text),
    a("load_reason", Text),
    o("globs", TEXTS),
    o("trigger_file_path", Text),
    o("parent_file_path", Text),
];
/// CwdChanged.
pub const CWD_CHANGED: &[Field] = &[a("old_cwd", Text), a("new_cwd", Text)];
/// FileChanged.
pub const FILE_CHANGED: &[Field] = &[a("file_path", Text), a("event", Text)];
/// DirectoryAdded.
pub const DIRECTORY_ADDED: &[Field] = &[a("directory", Text), a("source", Text)];
/// MessageDisplay.
pub const MESSAGE_DISPLAY: &[Field] = &[
    a("turn_id", Text),
    a("message_id", Text),
    a("index", Number),
    a("final", Bool),
    a("delta", Text),
];

/// The client's built-in tools (reference §4, `BUILTIN_TOOL_NAMES`; not exhaustive).
pub const TOOLS: &[&str] = &[
    "Agent",
    "Artifact",
    "AskUserQuestion",
    "Bash",
    "ClaudeDesign",
    "CronCreate",
    "CronDelete",
    "CronList",
    "Edit",
    "EndConversation",
    "EnterPlanMode",
    "EnterWorktree",
    "ExitPlanMode",
    "ExitWorktree",
    "Glob",
    "Grep",
    "ListAgents",
    "ListMcpResourcesTool",
    "LSP",
    "Monitor",
    "NotebookEdit",
    "OfferChromeSetup",
    "PowerShell",
    "Projects",
    "propose_skills",
    "PushNotification",
    "Read",
    "ReadMcpResourceDirTool",
    "ReadMcpResourceTool",
    "ReadNotifications",
    "RemoteTrigger",
    "ReportFindings",
    "ScheduleWakeup",
    "SendFeedback",
    "SendMessage",
    "SendUserFile",
    "SendUserMessage",
    "SetGoal",
    "ShareOnboardingGuide",
    "ShowOnboardingRolePicker",
    "Skill",
    "SubagentHandback",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskStop",
    "TaskUpdate",
    "TodoWrite",
    "ToolSearch",
    "WaitForMcpServers",
    "WebFetch",
    "WebSearch",
    "Workflow",
    "Write",
];

/// Tool names a matcher may still carry: removed tools (`MultiEdit`, harmless in
/// a matcher list, reference §4) and the legacy aliases of §3.2.
pub const LEGACY_TOOLS: &[&str] = &[
    "MultiEdit",
    "Task",
    "KillShell",
    "KillBash",
    "ListPeers",
    "Brief",
    "ListMcpResources",
    "ReadMcpResource",
];

/// The current name of a legacy tool name (`Task` → `Agent`).
pub fn current_tool_name(name: &str) -> &str {
    match name {
        "Task" => "Agent",
        "KillShell" | "KillBash" => "TaskStop",
        "ListPeers" => "ListAgents",
        "Brief" => "SendUserMessage",
        "ListMcpResources" => "ListMcpResourcesTool",
        "ReadMcpResource" => "ReadMcpResourceTool",
        other => other,
    }
}

/// A tool's input, when the reference describes it: `(fields, complete?)`.
/// MCP tools and tools the reference does not describe give `None`.
pub fn tool_input(tool: &str) -> Option<(&'static [Field], bool)> {
    Some(match current_tool_name(tool) {
        "Bash" => (
            {
                const F: &[Field] = &[
                    a("command", Text),
                    o("description", Text),
                    o("timeout", Number),
                    o("run_in_background", Bool),
                    o("dangerouslyDisableSandbox", Bool),
                ];
                F
            },
            true,
        ),
        "Read" => (
            {
                const F: &[Field] = &[
                    a("file_path", Text),
                    o("offset", Number),
                    o("limit", Number),
                    o("pages", Text),
                    o("allow_large", Bool),
                ];
                F
            },
            true,
        ),
        "Write" => (
            {
                const F: &[Field] = &[a("file_path", Text), a("content", Text)];
                F
            },
            true,
        ),
        "Edit" => (
            {
                const F: &[Field] = &[
                    a("file_path", Text),
                    a("old_string", Text),
                    a("new_string", Text),
                    o("replace_all", Bool),
                    // A Codex patch seen as an Edit: the files its
                    // `*** Delete File:` lines delete.
                    o("deleted", TEXTS),
                ];
                F
            },
            true,
        ),
        "MultiEdit" => (
            {
                const F: &[Field] = &[
                    a("file_path", Text),
                    a(
                        "edits",
                        Shape::List(&Shape::Object(&[
                            a("old_string", Text),
                            a("new_string", Text),
                            o("replace_all", Bool),
                        ])),
                    ),
                ];
                F
            },
            true,
        ),
        "Grep" => (
            {
                const F: &[Field] = &[
                    a("pattern", Text),
                    o("path", Text),
                    o("glob", Text),
                    o("output_mode", Text),
                    o("-B", Number),
                    o("-A", Number),
                    o("-C", Number),
                    o("context", Number),
                    o("-n", Bool),
                    o("-i", Bool),
                    o("-o", Bool),
                    o("type", Text),
                    o("head_limit", Number),
                    o("offset", Number),
                    o("multiline", Bool),
                ];
                F
            },
            true,
        ),
        "Glob" => (
            {
                const F: &[Field] = &[a("pattern", Text), o("path", Text)];
                F
            },
            true,
        ),
        "WebFetch" => (
            {
                const F: &[Field] = &[a("url", Text), a("prompt", Text), o("offset", Number)];
                F
            },
            true,
        ),
        "WebSearch" => (
            {
                const F: &[Field] = &[
                    a("query", Text),
                    o("allowed_domains", TEXTS),
                    o("blocked_domains", TEXTS),
                ];
                F
            },
            true,
        ),
        "Agent" => (
            {
                const F: &[Field] = &[
                    a("description", Text),
                    a("prompt", Text),
                    o("subagent_type", Text),
                    o("model", Text),
                    o("effort", Any),
                    o("run_in_background", Bool),
                    o("name", Text),
                    o("isolation", Text),
                    o("team_name", Text),
                    o("mode", Text),
                ];
                F
            },
            true,
        ),
        "NotebookEdit" => (
            {
                const F: &[Field] = &[
                    a("notebook_path", Text),
                    a("new_source", Text),
                    o("cell_id", Text),
                    o("cell_type", Text),
                    o("edit_mode", Text),
                ];
                F
            },
            true,
        ),
        "TodoWrite" => (
            {
                const F: &[Field] = &[a(
                    "todos",
                    Shape::List(&Shape::Object(&[
                        a("content", Text),
                        a("status", Text),
                        a("activeForm", Text),
                    ])),
                )];
                F
            },
            true,
        ),
        "TaskStop" => (
            {
                const F: &[Field] = &[o("task_id", Text), o("shell_id", Text)];
                F
            },
            true,
        ),
        // An open object; hooks also receive the injected plan.
        "ExitPlanMode" => (
            {
                const F: &[Field] = &[o("plan", Text), o("planFilePath", Text)];
                F
            },
            false,
        ),
        "AskUserQuestion" => (
            {
                const F: &[Field] = &[
                    a("questions", ANYS),
                    o("answers", Any),
                    o("annotations", Any),
                    o("metadata", Any),
                ];
                F
            },
            true,
        ),
        _ => return None,
    })
}

/// A tool's `tool_response` in PostToolUse, when the reference shows it. Always
/// open: tools add optional fields.
pub fn tool_response(tool: &str) -> Option<&'static [Field]> {
    Some(match current_tool_name(tool) {
        "Bash" => {
            const F: &[Field] = &[
                a("stdout", Text),
                a("stderr", Text),
                a("interrupted", Bool),
                a("isImage", Bool),
                o("noOutputExpected", Bool),
                o("backgroundTaskId", Text),
                o("returnCodeInterpretation", Text),
                o("persistedOutputPath", Text),
            ];
            F
        }
        "Write" => {
            const F: &[Field] = &[
                a("type", Text),
                a("filePath", Text),
                a("content", Text),
                a("structuredPatch", ANYS),
                o("originalFile", Text),
                o("userModified", Bool),
            ];
            F
        }
        "Edit" => {
            const F: &[Field] = &[
                a("filePath", Text),
                a("oldString", Text),
                a("newString", Text),
                o("originalFile", Text),
                a("structuredPatch", ANYS),
                o("userModified", Bool),
                o("replaceAll", Bool),
                o("contentNotInModelContext", Bool),
            ];
            F
        }
        "Read" => {
            const F: &[Field] = &[
                a("type", Text),
                o(
                    "file",
                    Shape::OpenObject(&[
                        a("filePath", Text),
                        a("content", Text),
                        a("numLines", Number),
                        a("startLine", Number),
                        a("totalLines", Number),
                    ]),
                ),
            ];
            F
        }
        "Glob" => {
            const F: &[Field] = &[
                a("filenames", TEXTS),
                o("durationMs", Number),
                a("numFiles", Number),
                a("truncated", Bool),
                o("totalMatches", Number),
                o("countIsComplete", Bool),
            ];
            F
        }
        "Grep" => {
            const F: &[Field] = &[
                a("mode", Text),
                a("numFiles", Number),
                a("filenames", TEXTS),
                o("content", Text),
                o("numLines", Number),
                o("totalLines", Number),
            ];
            F
        }
        // Synchronous (`status: completed`) and background (`async_launched`) results.
        "Agent" => {
            const F: &[Field] = &[
                a("status", Text),
                o("prompt", Text),
                a("agentId", Text),
                o("agentType", Text),
                o("toolsUsed", ANYS),
                o(
                    "content",
                    Shape::List(&Shape::OpenObject(&[a("type", Text), o("text", Text)])),
                ),
                o("resolvedModel", Text),
                o("totalDurationMs", Number),
                o("totalTokens", Number),
                o("totalToolUseCount", Number),
                o("usage", Any),
                o("toolStats", Any),
                o("canContinueAgent", Bool),
                o("isAsync", Bool),
                o("description", Text),
                o("outputFile", Text),
                o("canReadOutputFile", Bool),
            ];
            F
        }
        _ => return None,
    })
}

/// The values an event's matcher field takes, when the reference lists them all
/// (`source` on SessionStart: startup, resume, ...). `None`: free text (tool
/// names are checked against [`TOOLS`]).
pub fn matcher_values(event: &str) -> Option<&'static [&'static str]> {
    Some(match event {
        "SessionStart" => &["startup", "resume", "clear", "compact", "fork"],
        "Setup" => &["init", "maintenance"],
        "InstructionsLoaded" => &[
            "session_start",
            "nested_traversal",
            "path_glob_match",
            "include",
            "compact",
        ],
        "PreCompact" | "PostCompact" => &["manual", "auto"],
        "SessionEnd" => &[
            "clear",
            "resume",
            "logout",
            "prompt_input_exit",
            "other",
            "bypass_permissions_disabled",
        ],
        "StopFailure" => &[
            "authentication_failed",
            "oauth_org_not_allowed",
            "account_on_hold",
            "verification_required",
            "billing_error",
            "rate_limit",
            "overloaded",
            "invalid_request",
            "model_not_found",
            "server_error",
            "unknown",
            "max_output_tokens",
            "cloud_credential_error",
        ],
        "ConfigChange" => &[
            "user_settings",
            "project_settings",
            "local_settings",
            "policy_settings",
            "skills",
        ],
        "DirectoryAdded" => &["slash_command", "register_repo_root"],
        _ => return None,
    })
}
