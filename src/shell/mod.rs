//! Seeing commands and paths the way the shell and the file system will.
//!
//! Two shells are read: bash ([`command`]) and PowerShell ([`powershell`]),
//! which reports the same [`command::SimpleCommand`] objects, so one rule
//! judges both. [`Dialect`] says which one a command is in.

pub mod budget;
pub mod command;
pub mod contents;
pub mod glob;
pub mod links;
pub mod path;
pub mod place;
pub mod powershell;
pub mod reach;
pub mod value;

/// `text` as one shell word that re-parses to the same text: bare when it
/// holds nothing the shell treats specially, quoted otherwise (the `shlex`
/// crate's POSIX quoting). A NUL, which no shell word can hold, is kept inside
/// single quotes as is.
pub fn quote(text: &str) -> String {
    match shlex::try_quote(text) {
        Ok(q) => q.into_owned(),
        Err(_) => format!("'{}'", text.replace('\'', "'\\''")),
    }
}

use command::{ParseError, SimpleCommand};

/// The shell a command string is written for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// bash (and sh, zsh, Git Bash).
    Bash,
    /// PowerShell (Windows PowerShell 5.1 and PowerShell 7).
    PowerShell,
    /// Not known: either one may run it (an agent's shell tool on Windows
    /// that does not say which shell it starts). Both readings count.
    Either,
}

impl Dialect {
    /// The simple commands `script` runs in this dialect. For [`Dialect::Either`],
    /// the commands of both readings; a reading that does not parse runs
    /// nothing in that shell (both shells refuse a line they cannot parse), so
    /// the script is unparsable only when neither reads it.
    ///
    /// # Errors
    /// The shell's [`ParseError`] (bash's, when neither reads it).
    pub fn parse(self, script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
        match self {
            Dialect::Bash => command::parse(script),
            Dialect::PowerShell => powershell::parse(script),
            Dialect::Either => match (command::parse(script), powershell::parse(script)) {
                (Ok(mut a), Ok(b)) => {
                    a.extend(b);
                    Ok(a)
                }
                (Ok(a), Err(_)) => Ok(a),
                (Err(_), Ok(b)) => Ok(b),
                (Err(e), Err(_)) => Err(e),
            },
        }
    }
}
