//! One line of the decision log.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::compile::provenance::Bundle;
use crate::decision::AuditHit;
use crate::policy::syntax::DecisionKind;

/// What a line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `hookrules run` answered an event.
    #[default]
    Decision,
    /// `hookrules allow CODE`: a person allowed a denied call once.
    Allow,
    /// `hookrules run` answered a PostToolUse (or PostToolUseFailure) whose
    /// `tool_use_id` no PreToolUse answer of hookrules had seen: the tool ran
    /// unguarded (see `log::guarded`). Otherwise the same as a decision line.
    Unguarded,
}

impl Kind {
    /// Does the line record an answered event (a decision, or an unguarded call)?
    pub fn answered(self) -> bool {
        matches!(self, Kind::Decision | Kind::Unguarded)
    }
}

/// An allow-once note on a line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AllowNote {
    /// `issued` (a deny carried a code), `granted` (`hookrules allow`), `used` (the
    /// allowed call went through), `forged` (a grant without the user's MAC was
    /// found for the call and ignored: the deny stood), `replayed` (a grant
    /// already used once was put back, and ignored).
    pub action: String,
    /// The allowance's id (derived from the call, never the code itself).
    pub id: String,
    /// Who allowed it (`user@host`, the terminal), for `granted` and `used`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// When the code or the allowance lapses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<String>,
}

/// One log line.
///
/// No `Default`: every place that writes a line (`log::record` for answered
/// events, `cli::allow` for a grant) names every field, so a new field is a
/// compile error wherever a line is made until it is given a value, never a
/// silent empty one. Reading older lines still fills missing fields with their
/// defaults (`#[serde(default)]` per field).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Record {
    /// Format version.
    #[serde(default)]
    pub v: u32,
    /// What it records.
    #[serde(default)]
    pub kind: Kind,
    /// RFC 3339, UTC, milliseconds.
    pub time: String,
    /// The agent that sent the event (`claude`, `codex`, ...; empty in lines of
    /// earlier versions).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub host: String,
    /// `session_id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// `hook_event_name`.
    #[serde(default)]
    pub event: String,
    /// `tool_name`, on tool events.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The decision (null: none).
    #[serde(default)]
    pub decision: Option<DecisionKind>,
    /// The rules that determined it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<String>,
    /// Their policies, in the same order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policies: Vec<String>,
    /// The reason given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Audit rules that matched: what they would have decided.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audit: Vec<AuditHit>,
    /// Failures reported rather than blocking.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// Microseconds from start to answer.
    #[serde(default)]
    pub us: u64,
    /// hookrules' version.
    #[serde(default)]
    pub version: String,
    /// The SHA-256 of the whole policy set that decided (same hash: same
    /// policies; see `compile::provenance`).
    #[serde(default)]
    pub policy_hash: String,
    /// The bundles in that set: the built-in pack, managed policies, policies
    /// that name a version; each with its name, version and hash.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bundles: Vec<Bundle>,
    /// The project directory.
    #[serde(default)]
    pub project: String,
    /// The command, path, URL or prompt, in short (redacted and cut).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Allow-once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allow: Option<AllowNote>,
    /// The event, redacted and cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    /// The record's id ([`new_id`]; empty in lines of earlier versions): the
    /// same in the local log, the spool and every delivery attempt, so a
    /// collector can drop a record it got twice.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub id: String,
}

/// Crockford's base32 alphabet (no I, L, O, U).
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A fresh record id: a ULID (48 bits of `now_ms`, 80 bits from the kernel's
/// random source, Crockford base32, 26 characters; ids sort by time). Empty
/// when the random source cannot be read (the record then has no id).
pub fn new_id(now_ms: i64) -> String {
    let mut random = [0u8; 10];
    if crate::os::state::random(&mut random).is_err() {
        return String::new();
    }
    let mut bits: u128 = u128::from((now_ms.max(0) as u64) & 0xFFFF_FFFF_FFFF) << 80;
    for (i, b) in random.iter().enumerate() {
        bits |= u128::from(*b) << (72 - 8 * i);
    }
    (0..26)
        .map(|i| CROCKFORD[((bits >> (125 - 5 * i)) & 31) as usize] as char)
        .collect()
}

impl Record {
    /// Milliseconds since the epoch (0 when the time does not parse).
    pub fn ms(&self) -> i64 {
        super::time::parse_ms(&self.time).unwrap_or(0)
    }

    /// The decision as a word (`none` for no opinion).
    pub fn decision_word(&self) -> &'static str {
        self.decision.map(|d| d.as_str()).unwrap_or("none")
    }
}

/// The short form of what an event is about: a tool call's command, path, URL or
/// query; a prompt; else the event's matcher field.
pub fn summary_of(event: &Value) -> Option<String> {
    let s = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    if let Some(input) = event.get("tool_input") {
        for k in [
            "command",
            "file_path",
            "notebook_path",
            "path",
            "url",
            "query",
            "pattern",
            "description",
            "prompt",
        ] {
            if let Some(v) = s(input, k) {
                return Some(v);
            }
        }
        return input
            .as_object()
            .and_then(|m| m.values().find_map(|v| v.as_str().map(str::to_string)));
    }
    for k in [
        "prompt",
        "source",
        "trigger",
        "reason",
        "message",
        "agent_type",
    ] {
        if let Some(v) = s(event, k) {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_ids_are_ulids_that_sort_by_time_and_never_repeat() {
        let a = new_id(1_795_867_200_000);
        let b = new_id(1_795_867_200_000);
        let later = new_id(1_795_867_200_001);
        assert_eq!(a.len(), 26);
        assert!(a.bytes().all(|c| CROCKFORD.contains(&c)), "{a}");
        assert_ne!(a, b);
        assert_eq!(a[..10], b[..10], "the same millisecond, the same time part");
        assert!(later > a && later > b);
        // 2026-11-28T12:00:00Z, its time part as the ULID specification encodes it (48 bits, most significant first).
        assert_eq!(&new_id(1_795_867_200_000)[..10], "01M8H0DJG0");
    }
}
