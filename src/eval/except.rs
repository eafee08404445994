//! A rule's `except`: the cases it does not see. The evaluator takes them out
//! of what the rule's `paths` and `commands` selectors yield, before any test
//! runs, so an exception removes exactly those cases and nothing else (`rm -rf
//! ./dist && rm -rf ~` still shows the rule the second command).
//!
//! Only what is known counts: a path or a word that depends on something only
//! known when the command runs is never exempt, nor is a command that runs
//! somewhere other than the event's folder (after a `cd`), writes through a
//! redirection, or takes more operands from its input (`xargs`).

use super::values::path_views;
use super::Ctx;
use crate::compile::patterns;
use crate::shell::command::SimpleCommand;
use crate::shell::reach::{self, Class, Target};
use crate::shell::value::{Piece, Sym, Value as ShellValue};
use crate::validate::model::Except;

/// Is this path one the exception lists? A shell pattern (`dist/*.log`) is,
/// when the list covers every name below the folder its wildcards start in
/// (`dist/**`): whatever the pattern matches is then listed too.
pub fn exempt_path(ex: &Except, t: &Target, ctx: &Ctx) -> bool {
    if ex.paths.sources.is_empty() || t.classes.has(Class::Unknown) {
        return false;
    }
    let path = match &t.pattern {
        None => t.path.clone(),
        Some(_) => {
            let wild = t.path.find(['*', '?', '[']).unwrap_or(t.path.len());
            let Some(slash) = t.path[..wild].rfind('/') else {
                return false;
            };
            // Two levels of a name no folder has: only `…/**` lists them.
            format!("{}/\u{E000}/\u{E000}", &t.path[..slash])
        }
    };
    patterns::globs_match(
        patterns::for_place(&ex.paths, &path),
        &path_views(&path, ctx),
    )
    .unwrap_or(false)
}

/// Is this simple command one the exception lists, or one whose every path
/// it lists?
pub fn exempt_command(ex: &Except, c: &SimpleCommand, ctx: &Ctx) -> bool {
    if c.program_unknown || c.operands_from_input {
        return false;
    }
    listed(ex, c) || all_paths_exempt(ex, c, ctx)
}

/// Written out in the list, word for word, in the event's folder?
fn listed(ex: &Except, c: &SimpleCommand) -> bool {
    if !c.redirects.is_empty() || c.cwd != ShellValue::one(Sym::piece(Piece::Start)) {
        return false;
    }
    let words: Option<Vec<String>> = c
        .values
        .iter()
        .map(|v| v.literal().filter(|_| !v.has_unknown()))
        .collect();
    let Some(words) = words else {
        return false;
    };
    ex.commands.iter().any(|want| {
        want.len() == words.len() + 1
            && want[0].eq_ignore_ascii_case(&c.program)
            && want[1..] == words[..]
    })
}

/// Does it touch at least one path, and is every path it touches (operands and
/// redirections, from where it runs) exempt?
fn all_paths_exempt(ex: &Except, c: &SimpleCommand, ctx: &Ctx) -> bool {
    if ex.paths.sources.is_empty() {
        return false;
    }
    let mut targets = vec![];
    for v in &c.operand_values {
        targets.extend(reach::targets(v, &c.cwd, &ctx.reach));
    }
    for r in &c.redirects {
        targets.extend(reach::targets(&r.value, &c.cwd, &ctx.reach));
    }
    !targets.is_empty() && targets.iter().all(|t| exempt_path(ex, t, ctx))
}
