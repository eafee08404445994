//! Values that carry what a command printed: a secret is judged by where it
//! goes, whatever variable it passes through.
//!
//! `T=$(gh auth token); echo "$T"` prints the token exactly as `echo "$(gh
//! auth token)"` does, and `T=$(vault read …); curl -d "$T" …` uploads it.
//! The pack judges a command that prints a secret by where its output goes
//! (`printed`: not into a program that logs in with it, nor into a variable),
//! so a substitution assigned to a variable is a use, not a print. What makes
//! the variable's later use a print is the *value*, not its name: the value a
//! `$( )` or backquote substitution gives, when nobody can know its text, names
//! the commands that printed into it ([`Value::captured`]), and that name goes
//! wherever the value goes (another variable, a longer word, an exported
//! variable a child shell reads). Where such a value is printed (`echo`,
//! `printf`, `printenv NAME`, a here-string or here-document read by a
//! program) or sent (`curl -d`), those commands are reported again, their
//! output going there: each policy that judges the command by where its output
//! goes answers for the variable's spelling as for the command's.
//!
//! Cost: nothing unless a substitution's output is unknown and a command
//! printed into it; then a copy of those commands (at most
//! [`MAX_PRINTERS`] for each of [`MAX_CAPTURED`] substitutions a command line).

use super::{in_this_process, is_substitution, Extractor};
use crate::shell::command::{Redirect, RedirectOp, SimpleCommand};
use crate::shell::value::Value;

/// Most substitutions whose printing commands a command line keeps (past it,
/// a substitution's value is plain unknown).
const MAX_CAPTURED: usize = 64;

/// Most commands kept for one substitution.
const MAX_PRINTERS: usize = 8;

/// Where a value holding captured output goes.
pub(super) enum Into<'a> {
    /// Printed (by `echo`, `printf`, `printenv`) where these redirections send
    /// the printer's output (the terminal, a file, the next element of its
    /// pipeline).
    Printed(&'a [Redirect]),
    /// Read by `program`: on its standard input (`place` is `None`), or as
    /// (part of) the word `place` (`-d $T`, `-H Authorization: Bearer $T`).
    Program {
        program: &'a str,
        place: Option<String>,
    },
}

impl Extractor {
    /// The value of a `$( )` or backquote substitution whose text nobody can
    /// know, run from `base` with its commands from `first` on in the output:
    /// unknown, naming the commands that printed into it (if any).
    pub(super) fn captured_output(&mut self, first: usize, base: &[String], shown: &str) -> Value {
        if self.captured.len() >= MAX_CAPTURED {
            return Value::unknown(shown);
        }
        let printers: Vec<SimpleCommand> = self
            .out
            .get(first..)
            .unwrap_or_default()
            .iter()
            .filter(|sc| prints_into_substitution(sc, base))
            .take(MAX_PRINTERS)
            .cloned()
            .collect();
        if printers.is_empty() {
            return Value::unknown(shown);
        }
        self.captured.push(printers);
        Value::captured(shown, self.captured.len() - 1)
    }

    /// Report the commands whose output `value` holds again, their output
    /// going `into` (with `by`, the program that prints or reads the value,
    /// in their `via`).
    pub(super) fn captured_reached(
        &mut self,
        value: &Value,
        by: &str,
        into: &Into<'_>,
        via: &[String],
    ) {
        // The command's own substitutions (`echo "$(gh auth token)"`) were
        // judged printing into it already.
        for id in value.captured_ids() {
            if id >= self.captured_before {
                continue;
            }
            let Some(cmds) = self.captured.get(id).cloned() else {
                continue;
            };
            for mut sc in cmds {
                let mut v = via.to_vec();
                v.push(format!("{by} (what `{}` printed)", sc.program));
                sc.via = v;
                match into {
                    Into::Printed(redirects) => {
                        sc.redirects.extend(redirects.iter().cloned());
                        sc.output_to = Vec::new();
                        sc.output_in = None;
                    }
                    Into::Program { program, place } => {
                        sc.output_to = vec![(*program).to_string()];
                        sc.output_in = place.clone();
                    }
                }
                self.push(sc);
            }
        }
    }
}

/// Does `sc` (reached from `base`) print into the substitution it is in, and
/// not into a pipe, a file or a substitution of its own?
fn prints_into_substitution(sc: &SimpleCommand, base: &[String]) -> bool {
    !sc.program.is_empty()
        && sc.output_to.is_empty()
        && !sc.redirects.iter().any(|r| {
            matches!(r.op, RedirectOp::Write | RedirectOp::Append) && r.fd.is_none_or(|fd| fd == 1)
        })
        && sc.via.starts_with(base)
        && sc.via.get(base.len()).is_some_and(|l| is_substitution(l))
        && in_this_process(sc.via.get(base.len() + 1..).unwrap_or_default(), &[])
}
