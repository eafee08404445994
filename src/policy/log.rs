//! `[log]`: the decision log and allow-once settings, as the user wrote them.
//!
//! Every field is optional: a later layer changes only the fields it names,
//! except `redact` and `redact_values`, which add up across layers, so no layer
//! can unmark a field another marked secret. `crate::log::settings` resolves them.
//!
//! The decision log (and the export made from it) is the audit trail, so a
//! lower layer may only add to what the layers above it record and export.
//! [`LogTable::loosens`] is the one definition of what does not only add, per
//! key: `enabled = false`; `export = "off"` over an export; `events =
//! "decisions"` over `"all"`; a `dir` other than the folder in force (the log
//! then goes where the layers above did not put it: into the repository, or
//! nowhere writable); a smaller `max_bytes`, `keep` or `max_value_chars`; any
//! `redact` or `redact_values` not already there (what they match is no longer
//! recorded); and, for allow-once, `allow_once = true` over `false` and a
//! longer `allow_minutes`. From a project or local file these take effect only
//! once the user trusts it (`policy::loosening` lists them with the rule
//! loosenings); below a managed `[log]` table, never.

use schemars::JsonSchema;
use serde::Deserialize;

use super::syntax::Sp;

/// `[log]`.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawLog {
    /// `false`: no decision log for this project (default `true`).
    pub enabled: Option<Sp<bool>>,
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
    pub allow_once: Option<Sp<bool>>,
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
    /// From the managed layer: the last word on every key it names, and
    /// nothing below a managed table may loosen the log ([`LogTable::loosens`]).
    #[serde(default)]
    pub managed: bool,
}

/// Default rotation size.
pub const DEFAULT_MAX_BYTES: u64 = 10_000_000;
/// Default rotated files kept.
pub const DEFAULT_KEEP: u32 = 5;
/// Default cut for long string values.
pub const DEFAULT_MAX_VALUE_CHARS: u32 = 2000;
/// Default lifetime of an allow-once code and of the allowance, in minutes.
pub const DEFAULT_ALLOW_MINUTES: u32 = 15;

/// A key of `[log]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogKey {
    /// `enabled`.
    Enabled,
    /// `dir`.
    Dir,
    /// `events`.
    Events,
    /// `max_bytes`.
    MaxBytes,
    /// `keep`.
    Keep,
    /// `redact`.
    Redact,
    /// `redact_values`.
    RedactValues,
    /// `max_value_chars`.
    MaxValueChars,
    /// `allow_once`.
    AllowOnce,
    /// `allow_minutes`.
    AllowMinutes,
    /// `export`.
    Export,
}

impl LogKey {
    /// The key as written.
    pub fn name(self) -> &'static str {
        match self {
            LogKey::Enabled => "enabled",
            LogKey::Dir => "dir",
            LogKey::Events => "events",
            LogKey::MaxBytes => "max_bytes",
            LogKey::Keep => "keep",
            LogKey::Redact => "redact",
            LogKey::RedactValues => "redact_values",
            LogKey::MaxValueChars => "max_value_chars",
            LogKey::AllowOnce => "allow_once",
            LogKey::AllowMinutes => "allow_minutes",
            LogKey::Export => "export",
        }
    }

    /// What setting it this way does, in words (for `check` and the notice).
    pub fn loosening(self) -> &'static str {
        match self {
            LogKey::Enabled => "turns the decision log (and its export) off",
            LogKey::Dir => "moves the decision log to another folder",
            LogKey::Events => "logs fewer events",
            LogKey::MaxBytes | LogKey::Keep => "keeps less of the decision log",
            LogKey::Redact | LogKey::RedactValues => "leaves more out of logged records",
            LogKey::MaxValueChars => "cuts logged values shorter",
            LogKey::AllowOnce => "turns allow-once codes back on",
            LogKey::AllowMinutes => "lets allow-once codes last longer",
            LogKey::Export => "turns the export off",
        }
    }
}

impl LogTable {
    /// The keys of this table that would record or export less than `before`
    /// (the tables before it, merged with [`LogTable::merge`]), or loosen
    /// allow-once. The module docs list them.
    pub fn loosens(&self, before: &LogTable) -> Vec<LogKey> {
        let mut out = vec![];
        let was_on = before.enabled != Some(false);
        if self.enabled == Some(false) && was_on {
            out.push(LogKey::Enabled);
        }
        if self.dir.is_some() && self.dir != before.dir {
            out.push(LogKey::Dir);
        }
        if self.events == Some(LogEvents::Decisions) && before.events == Some(LogEvents::All) {
            out.push(LogKey::Events);
        }
        let less = |mine: Option<u64>, theirs: Option<u64>, default: u64| {
            mine.is_some_and(|m| m < theirs.unwrap_or(default))
        };
        if less(self.max_bytes, before.max_bytes, DEFAULT_MAX_BYTES) {
            out.push(LogKey::MaxBytes);
        }
        let u = |x: Option<u32>| x.map(u64::from);
        if less(u(self.keep), u(before.keep), u64::from(DEFAULT_KEEP)) {
            out.push(LogKey::Keep);
        }
        if self.redact.iter().any(|r| !before.redact.contains(r)) {
            out.push(LogKey::Redact);
        }
        if self
            .redact_values
            .iter()
            .any(|r| !before.redact_values.contains(r))
        {
            out.push(LogKey::RedactValues);
        }
        let chars = u64::from(DEFAULT_MAX_VALUE_CHARS);
        if less(u(self.max_value_chars), u(before.max_value_chars), chars) {
            out.push(LogKey::MaxValueChars);
        }
        if self.allow_once == Some(true) && before.allow_once == Some(false) {
            out.push(LogKey::AllowOnce);
        }
        let minutes = before.allow_minutes.unwrap_or(DEFAULT_ALLOW_MINUTES);
        if self.allow_minutes.is_some_and(|m| m > minutes) {
            out.push(LogKey::AllowMinutes);
        }
        if self.export == Some(Export::Off) && before.export == Some(Export::Otlp) {
            out.push(LogKey::Export);
        }
        out
    }

    /// This table without `keys`.
    pub fn without(&self, keys: &[LogKey]) -> LogTable {
        let mut t = self.clone();
        for k in keys {
            match k {
                LogKey::Enabled => t.enabled = None,
                LogKey::Dir => t.dir = None,
                LogKey::Events => t.events = None,
                LogKey::MaxBytes => t.max_bytes = None,
                LogKey::Keep => t.keep = None,
                LogKey::Redact => t.redact.clear(),
                LogKey::RedactValues => t.redact_values.clear(),
                LogKey::MaxValueChars => t.max_value_chars = None,
                LogKey::AllowOnce => t.allow_once = None,
                LogKey::AllowMinutes => t.allow_minutes = None,
                LogKey::Export => t.export = None,
            }
        }
        t
    }

    /// Apply this table over `into` (the tables before it): the keys it names
    /// replace theirs, redactions add up.
    pub fn merge(&self, into: &mut LogTable) {
        fn set<T: Clone>(v: &Option<T>, into: &mut Option<T>) {
            if v.is_some() {
                into.clone_from(v);
            }
        }
        set(&self.enabled, &mut into.enabled);
        set(&self.dir, &mut into.dir);
        set(&self.events, &mut into.events);
        set(&self.max_bytes, &mut into.max_bytes);
        set(&self.keep, &mut into.keep);
        set(&self.max_value_chars, &mut into.max_value_chars);
        set(&self.allow_once, &mut into.allow_once);
        set(&self.allow_minutes, &mut into.allow_minutes);
        set(&self.export, &mut into.export);
        for r in &self.redact {
            if !into.redact.contains(r) {
                into.redact.push(r.clone());
            }
        }
        for r in &self.redact_values {
            if !into.redact_values.contains(r) {
                into.redact_values.push(r.clone());
            }
        }
    }
}

impl RawLog {
    /// Where `key` is written (None: it is not).
    pub fn span_of(&self, key: LogKey) -> Option<std::ops::Range<usize>> {
        match key {
            LogKey::Enabled => self.enabled.as_ref().map(|v| v.span.clone()),
            LogKey::Dir => self.dir.as_ref().map(|v| v.span.clone()),
            LogKey::Events => self.events.as_ref().map(|v| v.span.clone()),
            LogKey::MaxBytes => self.max_bytes.as_ref().map(|v| v.span.clone()),
            LogKey::Keep => self.keep.as_ref().map(|v| v.span.clone()),
            LogKey::Redact => self.redact.first().map(|v| v.span.clone()),
            LogKey::RedactValues => self.redact_values.first().map(|v| v.span.clone()),
            LogKey::MaxValueChars => self.max_value_chars.as_ref().map(|v| v.span.clone()),
            LogKey::AllowOnce => self.allow_once.as_ref().map(|v| v.span.clone()),
            LogKey::AllowMinutes => self.allow_minutes.as_ref().map(|v| v.span.clone()),
            LogKey::Export => self.export.as_ref().map(|v| v.span.clone()),
        }
    }

    /// Leave `key` out.
    pub fn clear(&mut self, key: LogKey) {
        match key {
            LogKey::Enabled => self.enabled = None,
            LogKey::Dir => self.dir = None,
            LogKey::Events => self.events = None,
            LogKey::MaxBytes => self.max_bytes = None,
            LogKey::Keep => self.keep = None,
            LogKey::Redact => self.redact.clear(),
            LogKey::RedactValues => self.redact_values.clear(),
            LogKey::MaxValueChars => self.max_value_chars = None,
            LogKey::AllowOnce => self.allow_once = None,
            LogKey::AllowMinutes => self.allow_minutes = None,
            LogKey::Export => self.export = None,
        }
    }
}

impl From<&RawLog> for LogTable {
    fn from(r: &RawLog) -> LogTable {
        LogTable {
            enabled: r.enabled.as_ref().map(|e| e.value),
            dir: r.dir.as_ref().map(|d| d.value.clone()),
            events: r.events.as_ref().map(|e| e.value),
            max_bytes: r.max_bytes.as_ref().map(|m| m.value),
            keep: r.keep.as_ref().map(|k| k.value),
            redact: r.redact.iter().map(|x| x.value.clone()).collect(),
            redact_values: r.redact_values.iter().map(|x| x.value.clone()).collect(),
            max_value_chars: r.max_value_chars.as_ref().map(|m| m.value),
            allow_once: r.allow_once.as_ref().map(|a| a.value),
            allow_minutes: r.allow_minutes.as_ref().map(|m| m.value),
            export: r.export.as_ref().map(|e| e.value),
            managed: false,
        }
    }
}
