//! hookrules: one fast binary and declarative TOML policies for every Claude Code
//! hook event.
//!
//! The pipeline, one module per stage:
//!
//! 1. [`policy`]: find policy files and parse them into raw serde types with spans;
//! 2. [`validate`]: check them (every problem collected) into a validated model;
//! 3. [`compile`]: keep the rules the event can reach, compile their templates;
//! 4. [`eval`]: evaluate one event (facts, conditions, captures), with a tracer;
//! 5. [`decision`]: combine what the matching rules said;
//! 6. [`host`]: shape the answer the client reads.
//!
//! [`effects`] runs side effects, [`shell`] sees commands and paths the way the
//! shell will, [`os`] holds everything that touches the machine, and [`cli`] is
//! the command line, a library function the tests call in-process.

#![deny(missing_docs)]

pub mod cli;
pub mod compile;
pub mod decision;
pub mod diagnostics;
pub mod effects;
pub mod eval;
pub mod fixture;
pub mod host;
pub mod index;
pub mod load;
pub mod os;
pub mod policy;
pub mod shell;
pub mod validate;
