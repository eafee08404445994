//! Which files a command writes through its arguments, the way a redirection
//! writes: the file role of the table of write places ([`roles`]: `sort -o F`,
//! `curl -o F`, `wget -O F`, `uniq IN OUT`, `openssl … -out F`, any program's
//! `--output F`), `dd of=F`, `tee F`, and the destination of `cp`/`mv`/
//! `install`/`ln`/`rsync`/`scp` (last operand, or `-t DIR`). One answer, so a
//! policy that asks "what does this command write" and one that asks "what
//! does it read" see the same.

use super::super::value::{Piece, Sym, Value};
use super::roles::{self, Role};
use super::SimpleCommand;

/// The files a command writes through its arguments.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Outputs {
    /// Parallel to `operands`: the operand is a file the command only writes.
    pub operand: Vec<bool>,
    /// Files named inside an argument (`--output=F`, `of=F`, `-oF`), which are
    /// not operands.
    pub glued: Vec<Value>,
}

impl Outputs {
    /// Is there anything written at all?
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.glued.is_empty() && !self.operand.iter().any(|b| *b)
    }
}

/// The target-folder options of the copiers, whose last operand is then a
/// source (the other written places are the table's, [`roles`]).
fn output_options(program: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match program {
        "cp" | "mv" | "install" | "ln" => (&["-t"], &["--target-directory"]),
        _ => (&[], &[]),
    }
}

/// What `c` writes through its arguments.
#[must_use]
pub fn outputs(c: &SimpleCommand) -> Outputs {
    let program = c.program.to_ascii_lowercase();
    let mut out = Outputs {
        operand: vec![false; c.operands.len()],
        glued: vec![],
    };
    let (short, long) = output_options(&program);
    let mut after_dashdash = false;
    let mut operand_at = 0usize;
    let mut next_is_output = false;
    let mut has_target_option = false;
    for (i, a) in c.args.iter().enumerate() {
        if !after_dashdash && a == "--" {
            after_dashdash = true;
            continue;
        }
        let is_flag = !after_dashdash && a.starts_with('-') && a.len() > 1;
        if is_flag {
            next_is_output = false;
            if short.contains(&a.as_str()) || long.contains(&a.as_str()) {
                next_is_output = true;
                has_target_option |= matches!(a.as_str(), "-t" | "--target-directory");
                continue;
            }
            if let Some((name, _)) = a.split_once('=') {
                if long.contains(&name) {
                    push_glued(&mut out, c.values.get(i), name.len() + 1);
                    has_target_option |= name == "--target-directory";
                }
                continue;
            }
            // `-fsSLo FILE` (a cluster ending in the option) or `-oFILE` (the
            // value glued on).
            if !a.starts_with("--") && program != "openssl" {
                let last = a.chars().last();
                if short
                    .iter()
                    .any(|s| s.len() == 2 && s.chars().nth(1) == last)
                {
                    next_is_output = true;
                } else if let Some(s) = short.iter().find(|s| s.len() == 2 && a.starts_with(**s)) {
                    if &a[2..] != "-" {
                        push_glued(&mut out, c.values.get(i), s.len());
                    }
                }
            }
            continue;
        }
        if operand_at < out.operand.len() {
            if next_is_output && a != "-" {
                out.operand[operand_at] = true;
            } else if program == "dd" && a.starts_with("of=") && a != "of=-" {
                push_glued(&mut out, c.values.get(i), 3);
            }
            operand_at += 1;
        }
        next_is_output = false;
    }
    let n = c.operands.len();
    match program.as_str() {
        "tee" | "sponge" => out.operand.iter_mut().for_each(|b| *b = true),
        "cp" | "mv" | "install" | "ln" | "rsync" | "scp" | "ditto"
            if n >= 2 && !has_target_option =>
        {
            out.operand[n - 1] = true;
        }
        _ => {}
    }
    // find's actions that print into a file (`-fprint FILE`, `-fls FILE`,
    // `-fprintf FILE FORMAT`): its expression is no operand, so the table of
    // roles cannot name them (cause from redteam7).
    if program == "find" {
        for (i, a) in c.args.iter().enumerate() {
            if matches!(a.as_str(), "-fprint" | "-fprint0" | "-fls" | "-fprintf") {
                if let Some(v) = c.values.get(i + 1) {
                    out.glued.push(v.clone());
                }
            }
        }
    }
    // The files the table of roles names.
    let table = roles::places(c, Role::File);
    for (w, t) in out.operand.iter_mut().zip(&table.operand) {
        *w |= *t;
    }
    for g in table.glued {
        if !out.glued.contains(&g) {
            out.glued.push(g);
        }
    }
    out
}

/// The value of `arg` after its first `skip` bytes (`--output=` of `--output=F`).
fn push_glued(out: &mut Outputs, arg: Option<&Value>, skip: usize) {
    let Some(v) = arg else { return };
    let mut rest = Value::default();
    for s in &v.0 {
        let mut left = skip;
        let mut sym = Sym::default();
        for p in &s.0 {
            match p {
                Piece::Text(t) if left > 0 => {
                    let cut = left.min(t.len());
                    left -= cut;
                    if let Some(tail) = t.get(cut..) {
                        sym.push(Piece::Text(tail.to_string()));
                    }
                }
                p if left > 0 => {
                    // The option name itself is never an expansion; give up on it.
                    let _ = p;
                    return;
                }
                p => sym.push(p.clone()),
            }
        }
        if !sym.is_empty() {
            rest.add(sym);
        }
    }
    if !rest.0.is_empty() {
        out.glued.push(rest);
    }
}
