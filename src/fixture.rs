//! Fixtures: an event, optionally with the setup it needs and the outcome expected.
//! At its simplest a fixture is exactly the JSON the client sends on stdin.
//!
//! ```json
//! { "event": { "hook_event_name": "PreToolUse", ... },
//!   "env": { "HOME": "/home/dev" },          // extra environment for the run
//!   "now": 1763700000,                        // pin the clock (unix seconds)
//!   "files": { "a/b.md": "content" },         // created in a temporary project dir ("#!" content: executable)
//!   "expect": {
//!     "decision": "deny",                     // or "none", "allow", "ask", "block", "stop"
//!     "rules": ["rule-id"],                   // the rules that determined it
//!     "output": { ... },                      // the exact stdout JSON (null: empty)
//!     "output_contains": ["text"],            // substrings of stdout
//!     "files": { "path": "exact content" | { "exists": false } | { "contains": "x" } | { "lines": 3 } },
//!     "todo": "why this is a known gap"
//!   } }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

/// A parsed fixture.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fixture {
    /// The event the client sends.
    pub event: Value,
    /// Extra environment variables.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Pinned clock.
    pub now: Option<i64>,
    /// Files to create in the project directory first.
    #[serde(default)]
    pub files: BTreeMap<String, String>,
    /// What should happen.
    pub expect: Option<Expect>,
    /// Free text.
    pub description: Option<String>,
}

/// The expected outcome.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Expected decision (`none` for no decision).
    pub decision: Option<String>,
    /// Rules that determine it.
    pub rules: Option<Vec<String>>,
    /// Exact stdout JSON (`null`: empty stdout).
    #[serde(default, deserialize_with = "some_value")]
    pub output: Option<Value>,
    /// Substrings stdout must contain.
    #[serde(default)]
    pub output_contains: Vec<String>,
    /// Substrings stdout must not contain.
    #[serde(default)]
    pub output_excludes: Vec<String>,
    /// Expected files after the run.
    #[serde(default)]
    pub files: BTreeMap<String, Value>,
    /// A known gap: failures are reported as todo, not as failures.
    pub todo: Option<String>,
}

fn some_value<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Fixture {
    /// Read a fixture file: a bare event, or a fixture object.
    pub fn read(path: &Path) -> Result<Fixture, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::parse(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parse fixture text.
    pub fn parse(text: &str) -> Result<Fixture, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        if v.get("hook_event_name").is_some() {
            return Ok(Fixture {
                event: v,
                env: BTreeMap::new(),
                now: None,
                files: BTreeMap::new(),
                expect: None,
                description: None,
            });
        }
        serde_json::from_value(v).map_err(|e| format!("not a fixture: {e}"))
    }
}
