//! The event from stdin: read with a size cap, parsed, and checked to be an object
//! with a `hook_event_name`. Every way it can be wrong has its own error.

use std::io::Read;

use crate::contract::events::{self, EventSpec};
use crate::contract::hosts::{self, Hint, Origin};

/// Largest stdin hookrules reads (bytes). Larger input is refused, not truncated.
pub const MAX_INPUT: u64 = 256 * 1024 * 1024;

/// One parsed event.
#[derive(Debug, Clone)]
pub struct Event {
    /// The whole stdin object.
    pub value: serde_json::Value,
    /// `hook_event_name`.
    pub name: String,
    /// What the client accepts for it (a neutral spec for unknown events).
    pub spec: EventSpec,
    /// Is it one of the events this hookrules knows?
    pub known: bool,
    /// The agent that sent it, and its own name for the event.
    pub origin: Origin,
    /// Did normalisation change the agent's envelope (beyond adding `tool_class`
    /// and `host`)? Then the stdin text is not the event's text: whatever reads
    /// the event must read `value`, never stdin.
    pub rewritten: bool,
}

/// Why stdin is not a usable event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputError {
    /// Nothing (or only whitespace) on stdin.
    Empty,
    /// More than [`MAX_INPUT`] bytes.
    TooLarge(u64),
    /// Not UTF-8.
    NotUtf8(usize),
    /// Not JSON (or truncated).
    NotJson(String),
    /// JSON, but not an object.
    NotObject(&'static str),
    /// No agent sends this envelope (or not the one `--host` names).
    Unrecognised(String),
    /// stdin could not be read.
    Io(String),
    /// A known event without what its decision hinges on ([`Event::check_shape`]).
    Malformed {
        /// The event's name.
        event: String,
        /// What is wrong.
        why: String,
    },
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InputError::Empty => write!(
                f,
                "stdin is empty: expected one JSON object from the client"
            ),
            InputError::TooLarge(n) => {
                write!(f, "stdin is larger than {n} bytes; refusing to read it")
            }
            InputError::NotUtf8(at) => {
                write!(f, "stdin is not UTF-8 (invalid byte at offset {at})")
            }
            InputError::NotJson(e) => write!(f, "stdin is not valid JSON: {e}"),
            InputError::NotObject(k) => write!(f, "stdin is JSON {k}, not an object"),
            InputError::Unrecognised(why) => write!(f, "{why}"),
            InputError::Io(e) => write!(f, "cannot read stdin: {e}"),
            InputError::Malformed { event, why } => write!(
                f,
                "this {event} event is malformed ({why}), so no rule can judge it"
            ),
        }
    }
}

impl Event {
    /// Read stdin (or any reader) whole, up to [`MAX_INPUT`].
    pub fn read(r: impl Read) -> Result<Vec<u8>, InputError> {
        let mut buf = Vec::with_capacity(8 * 1024);
        r.take(MAX_INPUT + 1)
            .read_to_end(&mut buf)
            .map_err(|e| InputError::Io(e.to_string()))?;
        if buf.len() as u64 > MAX_INPUT {
            return Err(InputError::TooLarge(MAX_INPUT));
        }
        Ok(buf)
    }

    /// Parse an event from bytes, recognising the agent from the envelope.
    pub fn parse(bytes: &[u8]) -> Result<Event, InputError> {
        Self::parse_with(bytes, Hint::default())
    }

    /// Parse an event from bytes, with what the command line says about its agent.
    pub fn parse_with(bytes: &[u8], hint: Hint<'_>) -> Result<Event, InputError> {
        let text = std::str::from_utf8(bytes).map_err(|e| InputError::NotUtf8(e.valid_up_to()))?;
        if text.trim().is_empty() {
            return Err(InputError::Empty);
        }
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(v) => v,
            // JavaScript's JSON.stringify writes lone surrogates as `\ud83d`, which
            // serde_json refuses; the event must still be evaluated (refusing it
            // would let a trailing escape slip a command past every rule).
            Err(e) => match repair_lone_surrogates(text) {
                Some(fixed) => {
                    serde_json::from_str(&fixed).map_err(|_| InputError::NotJson(e.to_string()))?
                }
                None => return Err(InputError::NotJson(e.to_string())),
            },
        };
        let event = Self::from_value_with(value, hint)?;
        event.check_shape()?;
        Ok(event)
    }

    /// Does the event carry what its decision hinges on, in a shape the rules
    /// can read? A tool event needs its tool's name as a string and its input
    /// as an object (PreToolUse and PermissionRequest: always); a shell tool's
    /// `command` is a string; a file tool's path (`file_path`, NotebookEdit's
    /// `notebook_path`) a string or a list of strings. Anything else about the
    /// event may be missing or odd (agents differ) without changing what a rule
    /// can see. A malformed event is answered with the failure mode, never
    /// judged as an event with nothing in it (which no rule would stop).
    pub fn check_shape(&self) -> Result<(), InputError> {
        let malformed = |why: String| {
            Err(InputError::Malformed {
                event: self.name.clone(),
                why,
            })
        };
        if !(self.known && self.spec.tool_event) {
            return Ok(());
        }
        let shape = |v: &serde_json::Value| match v {
            serde_json::Value::Null => "null",
            serde_json::Value::Bool(_) => "a boolean",
            serde_json::Value::Number(_) => "a number",
            serde_json::Value::String(_) => "a string",
            serde_json::Value::Array(_) => "an array",
            serde_json::Value::Object(_) => "an object",
        };
        let tool = match self.value.get("tool_name") {
            Some(serde_json::Value::String(t)) if !t.is_empty() => t.as_str(),
            Some(serde_json::Value::String(_)) => return malformed("`tool_name` is empty".into()),
            None => return malformed("`tool_name` is missing".into()),
            Some(v) => return malformed(format!("`tool_name` is {}, not a string", shape(v))),
        };
        let decides_before = matches!(self.name.as_str(), "PreToolUse" | "PermissionRequest");
        let input = match self.value.get("tool_input") {
            Some(serde_json::Value::Object(o)) => o,
            None if !decides_before => return Ok(()),
            None => return malformed("`tool_input` is missing".into()),
            Some(v) => return malformed(format!("`tool_input` is {}, not an object", shape(v))),
        };
        let (key, list_ok) = match hosts::class_of(tool) {
            hosts::ToolClass::Shell => ("command", false),
            _ => match tool {
                "Read" | "Write" | "Edit" | "MultiEdit" => ("file_path", true),
                "NotebookEdit" => ("notebook_path", true),
                _ => return Ok(()),
            },
        };
        match input.get(key) {
            Some(serde_json::Value::String(_)) => Ok(()),
            Some(serde_json::Value::Array(items))
                if list_ok && items.iter().all(|i| i.is_string()) =>
            {
                Ok(())
            }
            None => malformed(format!("{tool}'s `tool_input.{key}` is missing")),
            Some(v) => malformed(format!(
                "{tool}'s `tool_input.{key}` is {}, not a string",
                shape(v)
            )),
        }
    }

    /// Wrap an already-parsed value (a fixture), recognising its agent.
    pub fn from_value(value: serde_json::Value) -> Result<Event, InputError> {
        Self::from_value_with(value, Hint::default())
    }

    /// Wrap an already-parsed value: recognise the agent that sent it and turn
    /// its envelope into the canonical event (see [`hosts`]).
    pub fn from_value_with(value: serde_json::Value, hint: Hint<'_>) -> Result<Event, InputError> {
        let kind = match &value {
            serde_json::Value::Object(_) => None,
            serde_json::Value::Array(_) => Some("an array"),
            serde_json::Value::String(_) => Some("a string"),
            serde_json::Value::Number(_) => Some("a number"),
            serde_json::Value::Bool(_) => Some("a boolean"),
            serde_json::Value::Null => Some("null"),
        };
        if let Some(k) = kind {
            return Err(InputError::NotObject(k));
        }
        let recognised =
            hosts::recognise(value, hint).map_err(|e| InputError::Unrecognised(e.to_string()))?;
        let value = recognised.value;
        let name = value
            .get("hook_event_name")
            .and_then(|v| v.as_str())
            .ok_or_else(|| InputError::Unrecognised(hosts::Unrecognised::NoEventName.to_string()))?
            .to_string();
        let (spec, known) = match events::spec(&name) {
            Some(s) => (*s, true),
            None => (events::unknown(), false),
        };
        Ok(Event {
            value,
            name,
            spec,
            known,
            origin: recognised.origin,
            rewritten: recognised.rewritten,
        })
    }

    /// The value of the event's matcher field: `Some(None)` when the event has a
    /// matcher field but the value is missing, `None` when it has no matcher field.
    pub fn matcher_value(&self) -> Option<Option<&str>> {
        let field = self.spec.matcher_field?;
        let v = self.value.get(field).and_then(|v| v.as_str());
        if field == "file_path" {
            return Some(v.map(|p| p.rsplit('/').next().unwrap_or(p)));
        }
        Some(v)
    }

    /// A string field.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.value.get(key).and_then(|v| v.as_str())
    }
}

/// Replace `\uD800`-`\uDFFF` escapes that are not part of a valid surrogate pair
/// with `\uFFFD`. `None` when there is nothing to repair.
pub fn repair_lone_surrogates(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let hex = |i: usize| -> Option<u16> {
        let s = std::str::from_utf8(b.get(i..i + 4)?).ok()?;
        u16::from_str_radix(s, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        // An escape: `\\` and friends are skipped whole.
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let Some(u) = hex(i + 2) else {
            i += 2;
            continue;
        };
        if (0xD800..0xDC00).contains(&u) {
            let paired = b.get(i + 6) == Some(&b'\\')
                && b.get(i + 7) == Some(&b'u')
                && hex(i + 8).is_some_and(|l| (0xDC00..0xE000).contains(&l));
            if paired {
                i += 12;
                continue;
            }
        } else if !(0xDC00..0xE000).contains(&u) {
            i += 6;
            continue;
        }
        out.push_str(&text[last..i]);
        out.push_str("\\uFFFD");
        changed = true;
        i += 6;
        last = i;
    }
    out.push_str(&text[last..]);
    changed.then_some(out)
}

/// Best effort: the event name from bytes that do not parse, so a fail-closed
/// answer can tell a blocking event from one that cannot be blocked.
pub fn sniff_event_name(bytes: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(1 << 20)]);
    let re = regex::Regex::new(r#""hook_event_name"\s*:\s*"([A-Za-z]+)""#).ok()?;
    re.captures(&text).map(|c| c[1].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_are_repaired_and_pairs_kept() {
        let t = r#"{"a":"x \ud83d","b":"\ud83d\ude00","c":"\\ud83d","d":"\udc00y"}"#;
        let fixed = repair_lone_surrogates(t).expect("something to repair");
        let v: serde_json::Value = serde_json::from_str(&fixed).expect("valid after repair");
        assert_eq!(v["a"], "x \u{fffd}");
        assert_eq!(v["b"], "\u{1f600}");
        assert_eq!(v["c"], "\\ud83d", "an escaped backslash is not an escape");
        assert_eq!(v["d"], "\u{fffd}y");
        assert_eq!(repair_lone_surrogates(r#"{"a":"\u00e9"}"#), None);
    }
}
