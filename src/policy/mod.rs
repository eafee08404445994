//! Stage 1: finding policy files and reading them into [`syntax::RawPolicy`].

pub mod discover;
pub mod layering;
pub mod log;
pub mod loosening;
pub mod managed;
pub mod parse;
pub mod recover;
pub mod syntax;
pub mod trust;
