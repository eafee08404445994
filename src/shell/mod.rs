//! Seeing commands and paths the way the shell and the file system will.

pub mod command;
pub mod glob;
pub mod path;
pub mod reach;
pub mod value;
