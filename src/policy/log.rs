//! `[log]`: the decision log and allow-once settings, as the user wrote them.
//!
//! Every field is optional: a later layer changes only the fields it names
//! (`enabled = false` in a `*.local.toml` turns the log off for one person),
//! except `redact` and `redact_values`, which add up across layers, so no layer
//! can unmark a field another marked secret. `crate::log::settings` resolves them.

use schemars::JsonSchema;
use serde::Deserialize;

use super::syntax::Sp;

/// `[log]`.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawLog {
    /// `false`: no decision log for this project (default `true`).
    pub enabled: Option<bool>,
    /// The folder the log files go in: relative to the project directory, `~/...`, or
    /// absolute. Default `$XDG_STATE_HOME/hookrules/projects/<project>/`
    /// (`~/.local/state/...`).
    pub dir: Option<Sp<String>>,
    /// `decisions` (default): events that got a decision, an audit hit, an error or
    /// a message. `all`: every event.
    pub events: Option<Sp<LogEvents>>,
    /// Rotate when the current file passes this size in bytes (default 10 MB).
    pub max_bytes: Option<Sp<u64>>,
    /// Rotated files kept (`decisions.1.jsonl` ... `decisions.N.jsonl`; default 5).
    pub keep: Option<Sp<u32>>,
    /// Fields of the event that hold secrets: dotted paths, `*` for any key or
    /// element (`tool_input.env.*`). Their values are logged as `[redacted]`.
    #[serde(default)]
    pub redact: Vec<Sp<String>>,
    /// Regexes: text they match, in any logged string, is replaced by `[redacted]`
    /// (on top of the built-in token patterns).
    #[serde(default)]
    pub redact_values: Vec<Sp<String>>,
    /// String values longer than this many characters are cut (default 2000).
    pub max_value_chars: Option<Sp<u32>>,
    /// `false`: denies carry no allow-once code (default `true`).
    pub allow_once: Option<bool>,
    /// How long an allow-once code, and then the allowance, stays valid, in minutes
    /// (default 15).
    pub allow_minutes: Option<Sp<u32>>,
    /// `otlp`: send every logged decision to an OpenTelemetry collector, configured
    /// by the standard `OTEL_EXPORTER_OTLP_*` variables; `off` (default).
    pub export: Option<Sp<Export>>,
}

/// `[log] export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Export {
    /// No export.
    Off,
    /// OTLP over HTTP (protobuf or JSON).
    Otlp,
}

/// Which events the log records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum LogEvents {
    /// Events with a decision, an audit hit, an error or a message.
    #[default]
    Decisions,
    /// Every event.
    All,
}

/// A `[log]` table without its spans, as the compiled set keeps it (so `run`
/// reads the log settings from the set, not from the policy files).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct LogTable {
    /// See [`RawLog`].
    pub enabled: Option<bool>,
    /// See [`RawLog`].
    pub dir: Option<String>,
    /// See [`RawLog`].
    pub events: Option<LogEvents>,
    /// See [`RawLog`].
    pub max_bytes: Option<u64>,
    /// See [`RawLog`].
    pub keep: Option<u32>,
    /// See [`RawLog`].
    pub redact: Vec<String>,
    /// See [`RawLog`].
    pub redact_values: Vec<String>,
    /// See [`RawLog`].
    pub max_value_chars: Option<u32>,
    /// See [`RawLog`].
    pub allow_once: Option<bool>,
    /// See [`RawLog`].
    pub allow_minutes: Option<u32>,
    /// See [`RawLog`].
    pub export: Option<Export>,
}

impl From<&RawLog> for LogTable {
    fn from(r: &RawLog) -> LogTable {
        LogTable {
            enabled: r.enabled,
            dir: r.dir.as_ref().map(|d| d.value.clone()),
            events: r.events.as_ref().map(|e| e.value),
            max_bytes: r.max_bytes.as_ref().map(|m| m.value),
            keep: r.keep.as_ref().map(|k| k.value),
            redact: r.redact.iter().map(|x| x.value.clone()).collect(),
            redact_values: r.redact_values.iter().map(|x| x.value.clone()).collect(),
            max_value_chars: r.max_value_chars.as_ref().map(|m| m.value),
            allow_once: r.allow_once,
            allow_minutes: r.allow_minutes.as_ref().map(|m| m.value),
            export: r.export.as_ref().map(|e| e.value),
        }
    }
}
