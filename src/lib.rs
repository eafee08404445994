//! hookrules: one fast binary and declarative TOML policies for every Claude Code
//! hook event.
//!
//! The pipeline, one module per stage; each imports only the stages above it in
//! this list (and the shared ground below):
//!
//! 1. [`policy`]: find policy files, parse them into raw serde types with spans,
//!    and layer them (replacement by id, overrides);
//! 2. [`validate`]: check them (every problem collected) into a validated model;
//! 3. [`compile`]: the rules one event can reach, indexed, with their templates;
//! 4. [`eval`]: evaluate one event (facts, conditions, captures), with a tracer;
//! 5. [`decision`]: combine what the matching rules said, and what they ask done;
//! 6. [`answer`]: shape the decision into what the client reads;
//! 7. [`effects`]: run the side effects, after the answer;
//! 8. [`log`]: the decision log (after the answer), and allow-once;
//! 9. [`engine`]: the pipeline assembled once: one event judged
//!    ([`engine::judge`]) for every command, and `hookrules run` as the client
//!    runs it ([`engine::run`]).
//!
//! Shared ground, importing no stage: [`source`] (a policy's text and where it
//! came from), [`diagnostics`] (codes and messages that point into it),
//! [`contract`] (the client's events and the event on stdin), [`shell`] (commands
//! and paths as the shell sees them) and [`os`] (everything that touches the
//! machine). [`cli`] is the command line, a library function the tests call
//! in-process.

#![deny(missing_docs)]

pub mod answer;
pub mod cli;
pub mod compile;
pub mod contract;
pub mod decision;
pub mod diagnostics;
pub mod effects;
pub mod engine;
pub mod eval;
pub mod log;
pub mod os;
pub mod policy;
pub mod shell;
pub mod source;
pub mod validate;
