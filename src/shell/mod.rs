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
    /// the script is unparsable only when neither reads it. A bash command
    /// that is only bash failing to read a PowerShell statement (`$p = …`,
    /// `Test-Path .env`) is left out when PowerShell reads the text cleanly
    /// (see `powershell_explains`): the answer does not come from a reading
    /// that fails where the other one explains the text.
    ///
    /// # Errors
    /// The shell's [`ParseError`] (bash's, when neither reads it).
    pub fn parse(self, script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
        match self {
            Dialect::Bash => command::parse(script),
            Dialect::PowerShell => powershell::parse(script),
            Dialect::Either => match (command::parse(script), powershell::parse(script)) {
                (Ok(mut a), Ok(b)) => {
                    let starts = powershell::statement_starts(script);
                    let setters = a
                        .iter()
                        .any(|c| SETS_VARIABLES.contains(&c.program.as_str()));
                    a.retain(|c| !powershell_explains(c, script, &starts, setters));
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

/// Bash commands that set a variable whose name may not be written in the
/// line as itself (`printf -v "$n"`, `declare`, a sourced file, code run by
/// `eval`): when the bash reading has one, no variable of the line is known to
/// come from before it, and bash's reading of `$p = …` keeps deciding.
const SETS_VARIABLES: &[&str] = &[
    "read",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "printf",
    "mapfile",
    "readarray",
    "let",
    "eval",
    "source",
    ".",
    "getopts",
];

/// Is `c`, a command of the bash reading of a text both shells read, only
/// bash's failure to read a PowerShell statement? Never when it has
/// redirections (bash opens them before it looks the program up) or is run
/// inside something else. It is when PowerShell runs one of its own cmdlets
/// by full name at the same place (`Test-Path .env`): bash finds no program
/// of that name. And it is when PowerShell reads the statement starting there
/// as an assignment or an expression (`$p = Get-Content x`, `$env:X = 1`,
/// `$p | ConvertTo-Json`, `$files.Count`, `"Built $v"`), which runs no
/// program, while bash's program is
/// * a variable the line never sets (`$p`, `${env:X}`): bash would run what it
///   held before the line, or
/// * a quoted word with a space before its first expansion (`"Built $v"`): no
///   program, function or alias has that name;
///
/// and every argument bash gives it is at most a name in the working folder
/// ([`names_here`]). So the answer comes from the shell that reads the text
/// cleanly, while bash's reading still counts wherever the line itself gives
/// a place (`$CMD -f "$HOME"`), sets the variable (`p=rm; $p = …`), or runs
/// anything else.
fn powershell_explains(
    c: &SimpleCommand,
    script: &str,
    starts: &powershell::Starts,
    setters: bool,
) -> bool {
    if !c.via.is_empty() || !c.assignments.is_empty() || !c.redirects.is_empty() {
        return false;
    }
    if starts
        .cmdlets
        .iter()
        .any(|(at, name)| *at == c.offset && c.program_path.eq_ignore_ascii_case(name))
    {
        return true;
    }
    if setters || !c.program_unknown || !starts.expressions.contains(&c.offset) {
        return false;
    }
    let Some(word) = script.get(c.offset..) else {
        return false;
    };
    let program = if let Some(quoted) = word.strip_prefix('"') {
        let literal = &quoted[..quoted.find(['$', '`', '\\', '"']).unwrap_or(quoted.len())];
        literal.contains(' ') && !literal.contains('/')
    } else {
        let rest = word.strip_prefix("${").or_else(|| word.strip_prefix('$'));
        rest.map(name_at)
            .is_some_and(|name| !name.is_empty() && !named_bare(script, name))
    };
    program && c.args.iter().all(|a| names_here(a, script))
}

/// The bash variable name at the start of `text` (`p` of `p.Count`, `env` of
/// `env:X`); empty when none starts there.
fn name_at(text: &str) -> &str {
    let end = text
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '_'))
        .unwrap_or(text.len());
    if text.starts_with(|ch: char| ch.is_ascii_digit()) {
        ""
    } else {
        &text[..end]
    }
}

/// Is `arg` at most a name in the working folder (`=`, `package.json`,
/// `-Recurse`, `*.cs`), never a place of its own: no `/`, `\\`, `~`, drive
/// `:`, substitution; not `.`, `..`, `.git…` or a `.`-led pattern (which
/// matches them)? A variable only as PowerShell's scope syntax that bash
/// reads as a variable the line never sets (`$env:TOKEN`). What a program
/// held in a variable from before the line would get from the line itself.
fn names_here(arg: &str, script: &str) -> bool {
    let mut word = String::new();
    let mut rest = arg.trim_start_matches('-');
    while let Some(at) = rest.find('$') {
        word.push_str(&rest[..at]);
        let name = name_at(&rest[at + 1..]);
        let after = &rest[at + 1 + name.len()..];
        if name.is_empty() || named_bare(script, name) || !after.starts_with(':') {
            return false;
        }
        rest = &after[1..];
    }
    word.push_str(rest);
    let dotted = word.starts_with('.')
        && (word.len() <= 2
            || word.to_ascii_lowercase().starts_with(".git")
            || word.contains(['*', '?', '[']));
    !dotted && !word.contains(['/', '\\', '~', ':', '`'])
}

/// Does `name` occur in `script` as a whole word other than right after `$`
/// or `${` (where bash would set it: `name=…`, `read name`, `for name in`)?
fn named_bare(script: &str, name: &str) -> bool {
    let bytes = script.as_bytes();
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    script.match_indices(name).any(|(i, _)| {
        let end = i + name.len();
        let whole =
            (i == 0 || !is_name(bytes[i - 1])) && bytes.get(end).is_none_or(|b| !is_name(*b));
        // Where bash sets a name: at a word's start (`p=…`, `for p in`,
        // `read "p"`); after `$`/`${` it is used, after `.`, `/`, `\`, `:`,
        // `-` it is part of another word (`tsconfig.json`, `-p`).
        let set_here =
            i == 0 || bytes[i - 1].is_ascii_whitespace() || b";&|(){}!'\"`".contains(&bytes[i - 1]);
        whole && set_here && !(i >= 2 && bytes[i - 1] == b'{' && bytes[i - 2] == b'$')
    })
}
