//! Stage 8, after the answer: the decision log, and allow-once.
//!
//! `run` appends one JSON line per event that got a decision (a deny, an ask, an
//! allow, a block, ...), an audit hit or an error; with `[log] events = "all"`,
//! one per event. The line is written after the answer is printed, never changes
//! it, and a log that cannot be written is a warning on stderr. `hookrules log`,
//! `replay` and `report` read it.
//!
//! - [`settings`]: where the log goes and what it holds (policy `[log]` tables);
//! - [`record`]: the line's format;
//! - [`redact`]: what of the event is kept (secrets out, long values cut);
//! - [`store`]: the files, concurrent appends and rotation;
//! - [`time`]: timestamps and spans;
//! - [`allow`]: allow-once codes and allowances;
//! - [`guarded`]: which tool calls hookrules answered before they ran, and
//!   which ran unguarded;
//! - [`export`], [`otlp`]: the same records sent to an OpenTelemetry collector,
//!   through a bounded spool.

pub mod allow;
pub mod export;
pub mod guarded;
pub mod otlp;
pub mod record;
pub mod redact;
pub mod settings;
pub mod store;
pub mod time;

use crate::os::env::Env;
use std::path::Path;
use std::time::Instant;

use crate::compile::provenance::Provenance;
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::log::{LogEvents, LogTable};
use record::{AllowNote, Kind, Record};
use settings::Settings;

/// Longest line written; beyond it the event itself is left out of the line.
pub const MAX_LINE_BYTES: usize = 256 * 1024;

/// What `run` knows once it has answered.
#[derive(Debug)]
pub struct Answered<'a> {
    /// The event.
    pub event: &'a Event,
    /// The decision.
    pub decision: &'a Decision,
    /// The project the event was evaluated in (the record's `project`, which
    /// `replay` evaluates in again).
    pub project: &'a Path,
    /// When the event was answered: the clock evaluation read.
    pub now_ms: i64,
    /// The `[log]` tables of the policies, in load order.
    pub tables: &'a [LogTable],
    /// The policy set's hash and bundles.
    pub provenance: &'a Provenance,
    /// Microseconds from start to answer.
    pub us: u64,
    /// Allow-once, when a code was issued or an allowance used.
    pub allow: Option<AllowNote>,
}

/// Should this answer be logged (in the local log when it is on, in the
/// export when that is on: one does not need the other)? (`unguarded`: a tool
/// call ran without a PreToolUse answer, always logged.)
pub fn wanted(s: &Settings, a: &Answered, unguarded: bool) -> bool {
    (s.enabled || s.export)
        && (unguarded
            || s.events == LogEvents::All
            || a.decision.kind.is_some()
            || !a.decision.audit.is_empty()
            || !a.decision.errors.is_empty()
            || a.allow.is_some())
}

/// The line for an answered event.
pub fn record(s: &Settings, a: &Answered) -> Record {
    let red = redact::Redactor::new(&s.redact, &s.redact_values, s.max_value_chars);
    let input = red.event(&a.event.value);
    let summary = record::summary_of(&input).map(|t| one_line(&t, 300));
    Record {
        v: 1,
        kind: Kind::Decision,
        time: time::format_ms(a.now_ms),
        host: a.event.origin.host.name().to_string(),
        session: a.event.str("session_id").map(str::to_string),
        event: a.event.name.clone(),
        tool: a.event.str("tool_name").map(str::to_string),
        decision: a.decision.kind,
        rules: a.decision.determined_by.clone(),
        policies: a.decision.policies.clone(),
        reason: a.decision.reason.as_deref().map(|r| red.text(r)),
        audit: a
            .decision
            .audit
            .iter()
            .map(|h| crate::decision::AuditHit {
                reason: h.reason.as_deref().map(|r| red.text(r)),
                ..h.clone()
            })
            .collect(),
        errors: a.decision.errors.iter().map(|e| red.text(e)).collect(),
        us: a.us,
        version: env!("CARGO_PKG_VERSION").to_string(),
        policy_hash: a.provenance.hash.clone(),
        bundles: a.provenance.bundles.clone(),
        project: a.project.to_string_lossy().into_owned(),
        summary,
        allow: a.allow.clone(),
        input: Some(input),
        id: record::new_id(a.now_ms),
    }
}

/// A record as one line, within [`MAX_LINE_BYTES`] (the event is left out of a
/// line that would be longer).
pub fn to_line(r: &Record) -> Vec<u8> {
    let line = serde_json::to_vec(r).unwrap_or_default();
    if line.len() <= MAX_LINE_BYTES {
        return line;
    }
    let mut r = r.clone();
    r.input = Some(serde_json::json!({
        "omitted": format!("the event is too large to log ({} bytes after cutting)", line.len())
    }));
    serde_json::to_vec(&r).unwrap_or_default()
}

/// Append a record to the log in `dir`.
pub fn append(s: &Settings, dir: &Path, r: &Record, deadline: Instant) -> Result<(), String> {
    let rot = store::Rotation {
        max_bytes: s.max_bytes,
        keep: s.keep,
    };
    store::append(dir, &to_line(r), rot, deadline).map_err(|e| {
        format!(
            "could not write {}: {e}",
            dir.join(store::CURRENT).display()
        )
    })
}

/// After the answer is printed: log it, and export it, if the settings say so.
/// `deadline` bounds the wait for the log's lock; `export_by` the export.
/// Returns warnings for stderr; never fails.
pub fn after_answer(a: &Answered, env: &Env, deadline: Instant, export_by: Instant) -> Vec<String> {
    let s = settings::resolve(a.tables, a.project, env);
    let mut warnings = s.problems.clone();
    if !s.enabled && !s.export {
        return warnings;
    }
    let seen = match settings::state_home(env) {
        Some(home) => guarded::after_answer(&home, a.event).unwrap_or_else(|e| {
            warnings.push(format!("unguarded-call index: {e}"));
            guarded::Seen::NotJudged
        }),
        None => guarded::Seen::NotJudged,
    };
    let unguarded = seen == guarded::Seen::Unguarded;
    if !wanted(&s, a, unguarded) {
        return warnings;
    }
    let mut r = record(&s, a);
    if unguarded {
        r.kind = Kind::Unguarded;
    }
    if let (true, Some(dir)) = (s.enabled, s.dir.as_deref()) {
        if let Err(e) = append(&s, dir, &r, deadline) {
            warnings.push(e);
        }
    }
    if s.export {
        warnings.extend(export::after_answer(&r, env, a.now_ms, export_by));
    }
    warnings
}

/// Text on one line, cut to `max` characters, as the terminal will show it:
/// control characters become spaces, and the invisible characters that
/// reorder or hide text (bidirectional overrides and isolates, zero-width
/// spaces and joiners, the byte-order mark: a logged command can carry them to
/// make `rm -rf ~` read as something else) are shown by their code point,
/// `<U+202E>`, and never reach the terminal.
pub fn one_line(s: &str, max: usize) -> String {
    let mut flat = String::with_capacity(s.len());
    for (shown, c) in s.chars().enumerate() {
        if shown == max {
            flat.push('…');
            return flat;
        }
        if c.is_control() {
            flat.push(' ');
        } else if hides_text(c) {
            flat.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            flat.push(c);
        }
    }
    flat
}

/// Does `c` reorder or hide the text around it when shown (Unicode's
/// bidirectional controls, zero-width characters, the byte-order mark)?
fn hides_text(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{180E}' | '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{FEFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::one_line;

    #[test]
    fn a_logged_command_cannot_reorder_or_hide_what_the_terminal_shows() {
        // `rm -rf ~ #` shown reversed after a right-to-left override.
        let cmd = "echo ok \u{202E}~ fr- mr\u{202C} \u{200B}done";
        let shown = one_line(cmd, 100);
        assert_eq!(shown, "echo ok <U+202E>~ fr- mr<U+202C> <U+200B>done");
        assert!(!shown.chars().any(|c| c == '\u{202E}' || c == '\u{200B}'));
        // Control characters (an escape sequence's ESC, a newline) become spaces.
        assert_eq!(one_line("a\u{1b}[2Jb\nc", 100), "a [2Jb c");
        // Cut after `max` characters, each escape counted as one.
        assert_eq!(one_line("ab\u{2066}cd", 3), "ab<U+2066>…");
        assert_eq!(one_line("abc", 3), "abc");
    }
}
