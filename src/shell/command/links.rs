//! Links and names: which operands a command acts on by name (so a link
//! there is not followed: `rm -rf link` removes the link), and which links it
//! makes (`ln -s T L`, `cp -s`, hard links), which later commands of the same
//! line then go through (`ln -s / out && rm -rf out/*` deletes `/*`).

use super::{program_is, SimpleCommand};
use crate::shell::links::{Base, MadeLink, Place};
use crate::shell::value::Value;

/// Does `c` act on operand `i` by its name, leaving a link there unfollowed?
/// `rm`, `unlink`, `rmdir` and `mv`'s sources remove or move the name; `ln`
/// replaces its link name; `find` does not follow its starting points unless
/// told (`-L`, `-H`, `-follow`); `chown -h`, `chgrp -h`, `touch -h` change the
/// link itself. Everything else opens the file, following the link.
#[must_use]
pub fn acts_on_name(c: &SimpleCommand, i: usize) -> bool {
    let p = c.program.as_str();
    let n = c.operands.len();
    let has = |f: &str| c.flags.iter().any(|x| x == f);
    if ["rm", "unlink", "rmdir", "trash", "trash-put"]
        .iter()
        .any(|x| program_is(p, x))
    {
        return true;
    }
    if program_is(p, "mv") {
        return has("-t") || has("--target-directory") || i + 1 < n;
    }
    if program_is(p, "ln") {
        return !has("-t") && !has("--target-directory") && n >= 2 && i + 1 == n;
    }
    if program_is(p, "find") {
        let before_start = c
            .args
            .iter()
            .take_while(|a| a.starts_with('-') && !a.starts_with("--") && a.len() == 2);
        return !before_start.into_iter().any(|a| a == "-L" || a == "-H") && !has("-follow");
    }
    if ["chown", "chgrp", "touch"].iter().any(|x| program_is(p, x)) {
        return has("-h") || has("--no-dereference");
    }
    false
}

/// Does `c` recurse below its operands following every link it meets, so
/// that what those links lead to changes too? `find -L` / `-follow` that
/// deletes (`-delete`, or runs a remover on what it finds), and `chown`,
/// `chgrp`, `chmod` with `-R` and `-L`.
#[must_use]
pub fn follows_links_below(c: &SimpleCommand) -> bool {
    let p = c.program.as_str();
    let has = |f: &str| c.flags.iter().any(|x| x == f);
    if program_is(p, "find") {
        let before_start = c
            .args
            .iter()
            .take_while(|a| a.starts_with('-') && !a.starts_with("--") && a.len() == 2);
        let follows = before_start.into_iter().any(|a| a == "-L") || has("-follow");
        return follows && has("-delete");
    }
    ["chown", "chgrp", "chmod"].iter().any(|x| program_is(p, x))
        && (has("-R") || has("--recursive"))
        && has("-L")
}

/// Is operand `i` of `c` what a link it makes holds (`ln -s T L`'s `T`,
/// `cp -s`'s sources, a hard link's target)? The command does not open it:
/// `ln -s ~/.ssh k` reads nothing; what goes through `k` later is judged
/// where it lands.
#[must_use]
pub fn is_link_text(c: &SimpleCommand, i: usize) -> bool {
    let Some(kind) = kind(c) else {
        return false;
    };
    let Some(v) = c.operand_values.get(i) else {
        return false;
    };
    let w = Words::read(c, kind);
    let targets: &[Value] = match (&w.folder, w.operands.as_slice()) {
        (Some(_), ops) => ops,
        (None, [t]) if kind == Kind::Ln => std::slice::from_ref(t),
        (None, [targets @ .., _]) => targets,
        (None, []) => &[],
    };
    // The same value at another position (a name that is also a target) is
    // not told apart: both are then link texts, which only leaves a path out
    // that the link's own name already names.
    targets.contains(v) && w.folder.as_ref() != Some(v)
}

fn kind(c: &SimpleCommand) -> Option<Kind> {
    let p = c.program.as_str();
    if program_is(p, "ln") || program_is(p, "gln") {
        Some(Kind::Ln)
    } else if (program_is(p, "cp") || program_is(p, "gcp"))
        && c.flags.iter().any(|f| f == "-s" || f == "--symbolic-link")
    {
        Some(Kind::CpSymbolic)
    } else if program_is(p, "link") {
        Some(Kind::Link)
    } else {
        None
    }
}

/// The links `c` makes, in the order it makes them.
#[must_use]
pub fn made_by(c: &SimpleCommand) -> Vec<MadeLink> {
    let Some(kind) = kind(c) else {
        return Vec::new();
    };
    let words = Words::read(c, kind);
    let symbolic = match kind {
        Kind::Ln => words.symbolic,
        Kind::CpSymbolic => true,
        Kind::Link => false,
    };
    let base = if symbolic && !words.relative {
        Base::LinkFolder
    } else {
        Base::Cwd(c.cwd.clone())
    };
    let link = |name: Value, target: &Value, place: Place| MadeLink {
        name,
        cwd: c.cwd.clone(),
        target: target.clone(),
        base: base.clone(),
        place,
    };
    let ops = &words.operands;
    if let Some(dir) = &words.folder {
        return ops
            .iter()
            .map(|t| link(dir.clone(), t, Place::Folder))
            .collect();
    }
    match ops.as_slice() {
        [] => Vec::new(),
        [t] if kind == Kind::Ln => vec![link(Value::text("."), t, Place::Folder)],
        [_] => Vec::new(),
        [t, name] => {
            let place = if words.no_folder {
                Place::Name
            } else if name
                .0
                .iter()
                .all(|s| s.literal().is_some_and(|l| l.ends_with('/')))
            {
                Place::Folder
            } else {
                Place::AsDisk
            };
            vec![link(name.clone(), t, place)]
        }
        [targets @ .., dir] => targets
            .iter()
            .map(|t| link(dir.clone(), t, Place::Folder))
            .collect(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ln,
    CpSymbolic,
    Link,
}

/// The words of a link-making command, read with its options' arities.
#[derive(Default)]
struct Words {
    symbolic: bool,
    relative: bool,
    no_folder: bool,
    folder: Option<Value>,
    operands: Vec<Value>,
}

impl Words {
    fn read(c: &SimpleCommand, kind: Kind) -> Words {
        let mut w = Words::default();
        let value = |i: usize| c.values.get(i).cloned().unwrap_or_default();
        let mut i = 0;
        let mut after_dd = false;
        while let Some(a) = c.args.get(i) {
            if after_dd || a == "-" || !a.starts_with('-') {
                w.operands.push(value(i));
            } else if a == "--" {
                after_dd = true;
            } else if let Some(long) = a.strip_prefix("--") {
                let (name, glued) = match long.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (long, None),
                };
                match name {
                    "symbolic" | "symbolic-link" => w.symbolic = true,
                    "relative" => w.relative = true,
                    "no-target-directory" => w.no_folder = true,
                    "target-directory" => match glued {
                        Some(v) => w.folder = Some(Value::text(v)),
                        None => {
                            i += 1;
                            w.folder = Some(value(i));
                        }
                    },
                    "suffix" if glued.is_none() => i += 1,
                    _ => {}
                }
            } else {
                // A cluster of short options; `-t` and `-S` take a value, the
                // rest of the word or the next one.
                for (at, ch) in a.char_indices().skip(1) {
                    match ch {
                        's' if kind != Kind::CpSymbolic => w.symbolic = true,
                        'r' if kind == Kind::Ln => w.relative = true,
                        'T' => w.no_folder = true,
                        't' | 'S' => {
                            let rest = &a[at + 1..];
                            let v = if rest.is_empty() {
                                i += 1;
                                value(i)
                            } else {
                                Value::text(rest)
                            };
                            if ch == 't' {
                                w.folder = Some(v);
                            }
                            break;
                        }
                        _ => {}
                    }
                }
            }
            i += 1;
        }
        w
    }
}
