//! PowerShell (and the `cmd.exe` lines it starts): the same simple commands
//! as the bash analysis produces, so every rule judges both shells alike.
//!
//! [`parse`] reads a PowerShell script (a `PowerShell` tool call, or the code
//! of `pwsh -c`, `powershell -EncodedCommand`, `Invoke-Expression`) and
//! returns the [`SimpleCommand`]s it would run, in the terms of the bash
//! analysis:
//!
//! * A cmdlet with a canonical twin is reported as that command:
//!   `Remove-Item -Recurse -Force ~` is `rm -r -f ~`, `Get-Content .env` is
//!   `cat .env`, `irm URL | iex` is `curl URL | pwsh` (a download into a
//!   shell), `Stop-Computer` is `shutdown`, `Format-Volume` is `mkfs`,
//!   `Clear-Disk` is `wipefs -a`, `Register-ScheduledTask` and `schtasks
//!   /create` are `crontab -`, `New-Service` is `systemctl link` (a new
//!   service registered) and `-StartupType Automatic` `systemctl enable`, writing a
//!   registry value is a write (`>`) to `/registry/hkcu/…/NAME`. The cmdlet's
//!   name is kept in `program_path` (`when = { field = "program_path",
//!   equals = "Remove-Item" }`). The mapping is data in [`cmdlets`]; it lives
//!   in the analysis, not in the pack, because it is binding, not naming (a
//!   parameter given by a prefix, a position, a splatted hashtable or the
//!   pipeline), and so that a rule written once for `rm` judges both shells.
//! * Other programs (`git`, `npm`, `cmd`, `bash`) are read as the command line
//!   they are, by the bash analysis: `git reset --hard` is the same object in
//!   both shells.
//! * Data-only cmdlets (`Select-Object`, `Get-Process`, …) are reported under
//!   their name with their parameters, no operands; an unknown `Verb-Noun`
//!   under its name with its arguments as operands, as an unknown program's.
//! * Code that runs: script blocks (`&`, `.`, `Invoke-Command`,
//!   `ForEach-Object`), functions at each call with their arguments, code as
//!   text (`Invoke-Expression`, `[scriptblock]::Create`, `pwsh -c`,
//!   `-EncodedCommand` decoded from UTF-16LE base64, `cmd /c`), each with
//!   `code` on the command that runs it; code nobody can read beforehand is
//!   `dynamic` (the pack asks), never allowed in silence.
//! * Windows paths are made canonical ([`paths`]): `C:\Users\dev` is
//!   `/c/Users/dev`, `$env:USERPROFILE`, `%USERPROFILE%`, `~`, `$HOME` are
//!   home, `$env:APPDATA` is `~/AppData/Roaming`.
//!
//! ## Why a hand-written parser
//! tree-sitter-powershell (0.26.6, with tree-sitter 0.26) was measured against
//! this parser (see `/work/notes/pwsh.md` for the commands): it adds about
//! 1.06 MB to a release binary, a C build of its 1.6 MB grammar, and 90–160 k
//! instructions per small command. More important, its grammar reads some
//! lines differently from PowerShell without reporting an error: an en dash
//! before a parameter (`Remove-Item –Recurse ~`, which PowerShell's tokenizer
//! takes as `-Recurse`) is a plain argument to it, so a guard built on it would
//! silently miss the recursion. Its error recovery (ERROR nodes, parsing on)
//! would have to be refused wholesale anyway, since a script PowerShell
//! refuses runs nothing while a recovered tree shows commands. A strict
//! parser written from the language reference, that refuses what it does not
//! know, bounds depth ([`syntax::MAX_DEPTH`]) and work, and tokenizes as
//! PowerShell does (dashes, typographic quotes, backtick escapes, `--%`),
//! fits the analysis better.

mod analyse;
mod cmd;
mod cmdlets;
mod paths;
mod syntax;

use crate::shell::budget;
use crate::shell::command::{over_budget, Code, ParseError, SimpleCommand};
use crate::shell::value::{Piece, Sym, Value};

/// Parse a PowerShell script and return every simple command it would run,
/// in the bash analysis's terms (see the module documentation).
///
/// # Errors
/// [`ParseError`] for anything the parser does not understand (PowerShell
/// would refuse a script with a syntax error, or the analysis cannot say
/// what runs), and for scripts past the analysis's bounds.
///
/// The analysis works within the shell analysis' budget
/// ([`crate::shell::budget`]), as bash's does: a script whose values grow
/// past it (`$a = $a + $a` twenty times) is refused, not read with values
/// cut short.
pub fn parse(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    let _budget = budget::scope();
    let mut a = analyse::Analyser::new(start(), vec![], None);
    a.script(script)?;
    budget::check().map_err(|o| over_budget(o, script.len()))?;
    Ok(a.out)
}

/// What PowerShell makes of the starts of `script`'s top-level statements,
/// to set beside another shell's reading of the same text.
#[derive(Debug, Default)]
pub struct Starts {
    /// Byte offsets of the statements PowerShell reads as assignments or
    /// expressions, which run no program: `$p = …`, `$env:X = …`,
    /// `$p | ConvertTo-Json`, `$files.Count`.
    pub expressions: Vec<usize>,
    /// Byte offsets of the commands PowerShell runs as one of its own cmdlets
    /// by full name (`Test-Path`, `ConvertFrom-Json`; not aliases such as
    /// `rm`, which are programs elsewhere), with the name as written.
    pub cmdlets: Vec<(usize, String)>,
}

/// [`Starts`] of `script`; empty when it does not parse.
#[must_use]
pub fn statement_starts(script: &str) -> Starts {
    let Ok(stmts) = syntax::parse(script) else {
        return Starts::default();
    };
    let (expressions, named) = syntax::statement_starts(&stmts);
    let cmdlets = named
        .into_iter()
        .filter(|(_, name)| {
            name.contains('-')
                && (cmdlets::find(name).is_some_and(|c| c.name.eq_ignore_ascii_case(name))
                    || cmdlets::data(name).is_some())
        })
        .collect();
    Starts {
        expressions,
        cmdlets,
    }
}

fn start() -> Value {
    Value::one(Sym::piece(Piece::Start))
}

/// Is this program a Windows shell whose code this module reads?
#[must_use]
pub fn is_windows_shell(prog: &str) -> bool {
    let p = prog.to_ascii_lowercase();
    let p = p.strip_suffix(".exe").unwrap_or(&p);
    matches!(p, "pwsh" | "powershell" | "pwsh-preview" | "cmd")
}

/// What a Windows shell started from bash runs: where its code comes from
/// (`None`: it runs none, `pwsh -Version`) and the commands of that code.
pub type FromBash = (Option<Code>, Vec<SimpleCommand>);

/// A Windows shell started from a bash command line (`pwsh -c '…'`,
/// `powershell -EncodedCommand …`, `cmd /c …`, `cmd //c …` in Git Bash):
/// where its code comes from and the commands it runs (with `via` and the
/// carrier's offset and directory). `None` when `prog` is not one.
/// `has_input`: the command's standard input is a pipe, a redirection or a
/// here-document (a shell with no command runs it).
///
/// # Errors
/// As [`parse`], for the code it runs.
pub fn from_bash(
    prog: &str,
    args: &[Value],
    cwd: &Value,
    via: &[String],
    offset: usize,
    written: &dyn Fn(&str) -> Option<Option<String>>,
    has_input: bool,
) -> Option<Result<FromBash, ParseError>> {
    // A word whose value is not known is marked, so code made of it is dynamic.
    const UNKNOWN: &str = "\u{E013}";
    if let Some(builtin) = cmd_builtin(prog, args) {
        let words: Vec<String> = args.iter().map(|v| word(v, UNKNOWN)).collect();
        if words.iter().any(|w| w.contains(UNKNOWN)) {
            return None;
        }
        let mut a = analyse::Analyser::new(cwd.clone(), via.to_vec(), Some(offset));
        let line: Vec<String> = std::iter::once(builtin.to_string())
            .chain(words.iter().map(|w| {
                if w.contains(' ') {
                    format!("\"{w}\"")
                } else {
                    w.clone()
                }
            }))
            .collect();
        return Some(a.cmd_script(&line.join(" ")).map(|()| (None, a.out)));
    }
    if let Some(base) = windows_program(prog) {
        // A Windows program started from Git Bash: judged by the words it gets.
        let mut a = analyse::Analyser::new(cwd.clone(), via.to_vec(), Some(offset));
        let words: Vec<analyse::V> = args.iter().map(|v| analyse::V::one(msys_arg(v))).collect();
        return Some(a.native_twin(base, &words, None).map(|_| (None, a.out)));
    }
    if !is_windows_shell(prog) {
        return None;
    }
    let lower = prog.to_ascii_lowercase();
    let lower = lower.strip_suffix(".exe").unwrap_or(&lower).to_string();
    let words: Vec<String> = args.iter().map(|v| word(v, UNKNOWN)).collect();
    let mut a = analyse::Analyser::new(cwd.clone(), via.to_vec(), Some(offset));
    // Files bash wrote earlier in the line (`echo … > z.ps1 && pwsh -File
    // z.ps1`): running one runs their text; text nobody knows is unknown code.
    for w in &words {
        match written(w) {
            Some(Some(text)) => a.scripts.push((analyse::file_name(w), text)),
            Some(None) => a.note_download(&Value::text(w)),
            None => {}
        }
    }
    // `cmd`: the script is cmd's (`Some(delayed expansion)`), else PowerShell's.
    let run = |a: &mut analyse::Analyser, text: &str, code: Code, cmd: Option<bool>| {
        if text.contains(UNKNOWN) {
            return Ok(Some(Code::Dynamic));
        }
        match cmd {
            Some(delayed) => a.cmd_script_with(text, delayed)?,
            None => {
                a.script(text)?;
            }
        }
        Ok(Some(code))
    };
    let code: Result<Option<Code>, ParseError> = if lower == "cmd" {
        // Git Bash turns `/c` into a path; `//c` is how it is written there.
        match words.iter().position(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "/c" | "/k" | "/r" | "//c" | "//k"
            )
        }) {
            Some(k) => {
                let delayed = cmd::delayed(words[..k].iter().map(String::as_str));
                run(
                    &mut a,
                    &words[k + 1..].join(" "),
                    Code::Inline,
                    Some(delayed),
                )
            }
            None => Ok(Some(Code::Dynamic)),
        }
    } else {
        match cli(&lower, &words) {
            Cli::Code(text) => run(&mut a, &text, Code::Inline, None),
            // `-EncodedCommand` is how PowerShell's command line carries a
            // command through other quoting (about_Pwsh): its text is read as
            // any inline code, judged by what it does.
            Cli::Decoded(Some(text)) => run(&mut a, &text, Code::Inline, None),
            Cli::Decoded(None) | Cli::Stdin => Ok(Some(Code::Dynamic)),
            // No command: an interactive shell, as a bare `bash` is; given
            // input (a pipe, a redirection, a here-string), that input is its
            // code, which this analysis does not read.
            Cli::Interactive if !has_input => Ok(None),
            Cli::Interactive => Ok(Some(Code::Dynamic)),
            Cli::File => {
                let script = words.iter().find(|w| {
                    let l = w.to_ascii_lowercase();
                    l.ends_with(".ps1") || l.ends_with(".psm1")
                });
                match script {
                    Some(f) if a.was_downloaded(f) => Ok(Some(Code::Dynamic)),
                    Some(f) => a
                        .run_written(f, &format!("{lower} -File"))
                        .map(|ran| Some(if ran { Code::Written } else { Code::File })),
                    None => Ok(Some(Code::File)),
                }
            }
            Cli::Info => Ok(None),
        }
    };
    Some(code.map(|c| (c, a.out)))
}

/// Windows' own programs whose command line the analysis reads as what it
/// does (`schtasks /create` is `crontab -`, `taskkill /im x` is `pkill -x x`,
/// `vssadmin delete shadows`): started from a bash line (Git Bash), they are
/// judged as from PowerShell. The name as given (`schtasks.exe`, a path).
/// No twin names its own program (the analysis writes each twin as a bash
/// line, read again by the bash analysis, which would come back here).
fn windows_program(prog: &str) -> Option<&'static str> {
    const PROGRAMS: &[&str] = &[
        "reg",
        "schtasks",
        "sc",
        "setx",
        "taskkill",
        "shutdown",
        "robocopy",
        "diskpart",
        "net",
        "net1",
        "wmic",
        "rundll32",
        "cmdkey",
        "icacls",
        "certutil",
        "bitsadmin",
        "msiexec",
        "mshta",
        "regsvr32",
        "cscript",
        "wscript",
        "mofcomp",
        "netsh",
        "ipconfig",
        "logoff",
        "tsdiscon",
    ];
    let name = prog.rsplit(['/', '\\']).next().unwrap_or(prog);
    let name = name.to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    PROGRAMS.iter().find(|p| **p == name).copied()
}

/// A bash word as a native Windows program started from Git Bash gets it.
/// MSYS2 converts the arguments of a program that is not its own: a word
/// `//x` with no further `/` is the escape for a Windows option and arrives
/// as `/x` (msys2-runtime `msys2_path_conv.cc`, `ESCAPED_PATH`: the first
/// `/` dropped, `\` made `/`), so `schtasks //create`, `taskkill //F //IM x`
/// are `/create`, `/F /IM x`; `//server/share` (UNC) and `//:` stay. With
/// `MSYS_NO_PATHCONV=1` (Git for Windows) or `MSYS2_ARG_CONV_EXCL=*` nothing is
/// converted: `/create` arrives as written, and `//create` is judged as
/// `/create` all the same (a program that refuses `//create` runs nothing, so
/// this is stricter only about a command that would fail).
fn msys_arg(v: &Value) -> Value {
    let Some(t) = v.literal() else {
        return v.clone();
    };
    match t.strip_prefix("//") {
        Some(rest) if !rest.starts_with(':') && (rest.starts_with('/') || !rest.contains('/')) => {
            Value::text(&format!("/{}", rest.replace('\\', "/")))
        }
        _ => v.clone(),
    }
}

/// A command of cmd.exe that bash has no program for, written into a bash
/// line (`del /s /q C:\\Users\\dev`, `rd /s /q %USERPROFILE%`, `rmdir /s
/// …`): the name cmd knows it by. The agent meant cmd's command, and a host
/// that hands a Windows `Bash` call to cmd or PowerShell (see
/// `contract::hosts::dialect`) runs it so: judged as cmd would run it.
/// Bash's own `rmdir` (no `/s`) is bash's.
fn cmd_builtin(prog: &str, args: &[Value]) -> Option<&'static str> {
    let s = |v: &Value| v.literal().is_some_and(|t| t.eq_ignore_ascii_case("/s"));
    ["del", "erase", "rd", "rmdir"]
        .into_iter()
        .find(|n| prog.eq_ignore_ascii_case(n))
        .filter(|n| *n != "rmdir" || args.iter().any(s))
}

/// A bash word's value as the text PowerShell gets: the places bash expanded
/// (home, the working folder, the project) marked, so PowerShell's reading
/// keeps them whatever quotes surround them; anything unknown is `unknown`.
fn word(v: &Value, unknown: &str) -> String {
    let [one] = v.0.as_slice() else {
        return unknown.to_string();
    };
    let mut out = String::new();
    for p in &one.0 {
        match p {
            Piece::Text(t) | Piece::Glob(t) => out.push_str(t),
            Piece::Home => out.push(analyse::MARK_HOME),
            Piece::Start => out.push(analyse::MARK_START),
            Piece::Project => out.push(analyse::MARK_PROJECT),
            _ => out.push_str(unknown),
        }
    }
    out
}

/// What `pwsh` / `powershell` is asked to run by its command line
/// (`about_Pwsh`, `about_PowerShell_exe`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cli {
    /// `-Command TEXT…` (and Windows PowerShell's default: the words are a command).
    Code(String),
    /// `-EncodedCommand B64`: the decoded text (`None`: not valid UTF-16LE base64).
    Decoded(Option<String>),
    /// `-File x.ps1` (and pwsh's default for a first word).
    File,
    /// `-Command -` / `-File -`: commands from standard input.
    Stdin,
    /// No command: an interactive shell (or one reading its input).
    Interactive,
    /// `-Version`, `-Help`: prints and exits.
    Info,
}

/// The parameters of pwsh and powershell.exe: canonical name, documented
/// aliases, takes a value.
const CLI: &[(&str, &[&str], bool)] = &[
    ("command", &["c"], false),
    (
        "encodedcommand",
        &["e", "ec", "en", "enc", "enco", "encod", "encode", "encoded"],
        true,
    ),
    ("file", &["f"], true),
    ("commandwithargs", &["cwa"], false),
    ("executionpolicy", &["ex", "ep"], true),
    ("windowstyle", &["w"], true),
    ("workingdirectory", &["wd"], true),
    ("inputformat", &["inp", "if"], true),
    ("outputformat", &["o", "of"], true),
    ("configurationname", &["config"], true),
    ("configurationfile", &[], true),
    ("settingsfile", &["settings"], true),
    ("custompipename", &[], true),
    ("encodedarguments", &["ea", "encodeda"], true),
    ("version", &["v"], true),
    ("psconsolefile", &[], true),
    ("noprofile", &["nop"], false),
    ("noninteractive", &["noni"], false),
    ("nologo", &["nol"], false),
    ("noexit", &["noe"], false),
    ("noprofileloadtime", &[], false),
    ("login", &["l"], false),
    ("interactive", &["i"], false),
    ("sta", &[], false),
    ("mta", &[], false),
    ("help", &["h", "?"], false),
];

/// Read a pwsh / powershell command line (words as the program gets them).
pub(crate) fn cli(prog: &str, words: &[String]) -> Cli {
    let mut i = 0;
    while let Some(w) = words.get(i) {
        let l = w.to_ascii_lowercase();
        let name = l
            .strip_prefix("--")
            .or_else(|| l.strip_prefix('-'))
            .or_else(|| l.strip_prefix('/'));
        let Some(name) = name.filter(|n| !n.is_empty()) else {
            // The first word that is no parameter.
            return if prog == "powershell" {
                Cli::Code(words[i..].join(" "))
            } else if l == "-" {
                Cli::Stdin
            } else {
                Cli::File
            };
        };
        // `-EncodedCommand:B64`: the value after the colon, as PowerShell
        // binds `-Name:value`.
        let (name, attached) = match name.split_once(':') {
            Some((n, v)) => (n, Some(w[w.len() - v.len()..].to_string())),
            None => (name, None),
        };
        let found = CLI
            .iter()
            .find(|(n, aliases, _)| *n == name || aliases.contains(&name))
            .or_else(|| {
                // A prefix: the worse reading when it could be several.
                let cands: Vec<_> = CLI.iter().filter(|(n, _, _)| n.starts_with(name)).collect();
                cands
                    .iter()
                    .find(|(n, _, _)| matches!(*n, "command" | "encodedcommand" | "file"))
                    .or(cands.first())
                    .copied()
            });
        match found {
            Some(("command" | "commandwithargs", _, _)) => {
                let rest = words.get(i + 1..).unwrap_or_default();
                return match rest {
                    [] => Cli::Interactive,
                    [one] if one == "-" => Cli::Stdin,
                    _ => Cli::Code(rest.join(" ")),
                };
            }
            Some(("encodedcommand", _, _)) => {
                return Cli::Decoded(attached.as_ref().or(words.get(i + 1)).and_then(|b| {
                    analyse::base64(b).and_then(|bytes| analyse::decode("unicode", &bytes))
                }));
            }
            Some(("file", _, _)) => {
                return match words.get(i + 1).map(String::as_str) {
                    Some("-") => Cli::Stdin,
                    _ => Cli::File,
                };
            }
            Some(("version" | "help", _, _)) => return Cli::Info,
            Some((_, _, true)) if attached.is_none() => i += 2,
            Some((_, _, true)) => i += 1,
            Some((_, _, false)) | None => i += 1,
        }
    }
    Cli::Interactive
}

#[cfg(test)]
mod tests;
