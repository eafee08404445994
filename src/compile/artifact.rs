//! The compiled set of a project, stored so `run` reads it instead of building it.
//! (File format to come; for now the set is built in memory.)

use std::collections::BTreeMap;

use super::set::{CompiledSet, Query};
use super::Compiled;
use crate::contract::Event;
use crate::policy::discover::Discovery;
use crate::policy::syntax::FailureMode;

/// A compiled set, ready to answer events.
#[derive(Debug)]
pub enum Loaded {
    /// Built in this process.
    Built(CompiledSet),
}

impl Loaded {
    /// The failure mode when no event can be evaluated.
    pub fn failure(&self) -> FailureMode {
        match self {
            Loaded::Built(s) => s.failure,
        }
    }

    /// What `run` evaluates for one event: its bucket, prefiltered.
    pub fn for_event(&self, event: &Event) -> Compiled {
        match self {
            Loaded::Built(s) => s.for_event(
                event,
                Query {
                    prefilter: true,
                    explain: false,
                },
            ),
        }
    }
}

/// The compiled set for these policies.
pub fn load(discovery: &Discovery, _env: &BTreeMap<String, String>) -> Loaded {
    Loaded::Built(CompiledSet::build(&discovery.find()))
}
