//! Stage 3: a policy set compiled once, and the rules one event can reach.
//!
//! [`set::CompiledSet`] holds the layered, validated policies of one project with
//! the table of which rules each event reaches ([`reach`]); `run` loads it from a
//! verified artifact ([`artifact`]) or builds it, and asks it for the bucket of
//! one event. Pattern lists compile on first use, after their literal prefilters
//! ([`patterns`]); templates compile on first render ([`templates`]).

pub mod artifact;
pub mod flat;
pub mod literals;
pub mod patterns;
pub mod provenance;
pub mod reach;
pub mod set;
pub mod templates;
pub mod test_kinds;

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::validate::model::{Policy, Rule};
pub use templates::Templates;

/// The rules of one policy that can apply to one event.
#[derive(Debug)]
pub struct Bucket {
    /// The validated policy.
    pub policy: Arc<Policy>,
    /// Rules that reach the event, by (priority, file order).
    pub rules: Vec<Arc<Rule>>,
    /// Rules in scope of the event that are left out, with the reason (for `explain`).
    pub skipped: Vec<(Arc<Rule>, String)>,
    /// Rules for this event that could not be validated or compiled, with their
    /// errors (one line each, with file:line).
    pub broken: Vec<(String, Vec<String>)>,
}

/// Everything evaluation needs for one event.
#[derive(Debug)]
pub struct Compiled {
    /// One bucket per policy, in load order.
    pub buckets: Vec<Bucket>,
    /// Every template of every reachable rule and fact.
    pub templates: Templates,
    /// Where rules came from: replacements and overrides by later layers.
    pub notes: BTreeMap<String, Vec<String>>,
    /// Shell commands the prefilter already parsed.
    pub shells: reach::Shells,
}
