//! Everything that touches the operating system: child processes, files, the clock.
//! Facts and effects go through here, so the safety rules live in one place.

pub mod arena;
pub mod clock;
pub mod deadline;
pub mod env;
pub mod files;
pub mod git;
pub mod owner;
pub mod process;
pub mod repo_env;
pub mod stack;
pub mod start;
pub mod state;
