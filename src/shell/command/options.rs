//! Where a policy's table of options points in a command.
//!
//! The built-in pack keeps what it knows about programs' options as data, one
//! line per tool: `"scp -i -o"` (the values of `scp`'s `-i` and `-o` are files
//! it *uses*), `"* --output of="` (any program writes the value of `--output`,
//! and of a `of=` word), `"ddrescue @2"` (its second operand is written). This
//! module finds those places in one command: which operands, and which values
//! glued into a word (`--output=F`, `of=F`, `-oF`).

use super::SimpleCommand;
use crate::shell::value::{Piece, Sym, Value};

/// One token of a table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot<'a> {
    /// An option (`-i`, `--key`, `-key`) or a keyword (`private-key`): the next
    /// word is its value; `--key=V` and, for a one-letter option, `-iV` carry
    /// it glued. A long option may be a family: `*` stands for one or more
    /// characters of the name (`--*-key`: `--zfs-key`, `--server-key`).
    Option(&'a str),
    /// A word prefix (`of=`): the rest of a word that starts with it.
    Prefix(&'a str),
    /// An operand by position: 1 is the first, -1 the last. Operands that
    /// are numbers or sizes (`512`, `4M`: an option's value) are not counted.
    Operand(i64),
    /// Every operand (`@*`).
    Operands,
    /// The operands from the Nth on (`@2*`: all but the first).
    From(usize),
    /// What the program reads on standard input (`<`).
    Stdin,
}

impl<'a> Slot<'a> {
    /// Read one token (`-i`, `of=`, `@2`, `@-1`, `@*`, `@2*`, `<`); `None`
    /// for `@` without a non-zero number.
    #[must_use]
    pub fn parse(token: &'a str) -> Option<Slot<'a>> {
        match token {
            "@*" => return Some(Slot::Operands),
            "<" => return Some(Slot::Stdin),
            _ => {}
        }
        if let Some(n) = token.strip_prefix('@') {
            if let Some(from) = n.strip_suffix('*') {
                return from
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n != 0)
                    .map(Slot::From);
            }
            return n.parse::<i64>().ok().filter(|n| *n != 0).map(Slot::Operand);
        }
        if token.len() > 1 && token.ends_with('=') && !token.starts_with('-') {
            return Some(Slot::Prefix(token));
        }
        (!token.is_empty()).then_some(Slot::Option(token))
    }
}

/// The places of `slots` in `c`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Found {
    /// Parallel to `c.operands`: the operand is one of the places.
    pub operand: Vec<bool>,
    /// Values glued into a word (`--output=F`, `of=F`, `-oF`).
    pub glued: Vec<Value>,
}

/// Find the places `slots` name in `c`.
///
/// An option is matched as a whole word; a cluster of short flags ending in a
/// listed one-letter option takes the next word too (`ssh -vi KEY`). After
/// `--` every word is an operand, never an option's value.
#[must_use]
pub fn find(c: &SimpleCommand, slots: &[Slot<'_>]) -> Found {
    let mut found = Found {
        operand: vec![false; c.operands.len()],
        glued: vec![],
    };
    let mut after_dashdash = false;
    let mut next_is_value = false;
    let mut operand_at = 0usize;
    let is_option = |a: &str| {
        slots
            .iter()
            .any(|s| matches!(s, Slot::Option(o) if option_is(o, a)))
    };
    for (i, a) in c.args.iter().enumerate() {
        if !after_dashdash && a == "--" {
            after_dashdash = true;
            next_is_value = false;
            continue;
        }
        let is_flag = !after_dashdash && a.starts_with('-') && a.len() > 1;
        if is_flag {
            next_is_value = is_option(a) || ends_cluster(a, slots);
            if !next_is_value {
                if let Some(skip) = glued_at(a, slots) {
                    if let Some(v) = c.values.get(i).and_then(|v| after(v, skip)) {
                        found.glued.push(v);
                    }
                }
            }
            continue;
        }
        if let Some(slot) = found.operand.get_mut(operand_at) {
            *slot = next_is_value;
        }
        operand_at += 1;
        if !after_dashdash {
            if let Some(Slot::Prefix(p)) = slots
                .iter()
                .find(|s| matches!(s, Slot::Prefix(p) if a.starts_with(p) && a.len() > p.len()))
            {
                if let Some(v) = c.values.get(i).and_then(|v| after(v, p.len())) {
                    found.glued.push(v);
                }
            }
        }
        // A keyword option (`wg set wg0 private-key FILE`) is an operand itself.
        next_is_value = !after_dashdash && is_option(a);
    }
    // Operands by position, not counting numbers and sizes (option values).
    let counted: Vec<usize> = c
        .operands
        .iter()
        .enumerate()
        .filter(|(_, o)| !is_number_or_size(o))
        .map(|(i, _)| i)
        .collect();
    if slots.contains(&Slot::Operands) {
        found.operand.iter_mut().for_each(|o| *o = true);
    }
    for s in slots {
        if let Slot::From(n) = *s {
            for &i in counted.iter().skip(n - 1) {
                found.operand[i] = true;
            }
        }
        if let Slot::Operand(n) = *s {
            let at = if n > 0 {
                usize::try_from(n - 1).ok()
            } else {
                usize::try_from(-n)
                    .ok()
                    .and_then(|k| counted.len().checked_sub(k))
            };
            if let Some(&i) = at.and_then(|k| counted.get(k)) {
                found.operand[i] = true;
            }
        }
    }
    found
}

/// Is `option` among the command's arguments before `--`: as a whole word,
/// with a glued value (`--field=x`), or, for a one-letter option, inside a
/// cluster of flags (`-ec` has `-c`)?
#[must_use]
pub fn has_option(c: &SimpleCommand, option: &str) -> bool {
    let short = option.len() == 2 && !option.starts_with("--");
    c.args.iter().take_while(|a| *a != "--").any(|a| {
        option_is(option, a)
            || a.split_once('=')
                .is_some_and(|(name, _)| option_is(option, name))
            || (short && a.len() > 2 && !a.starts_with("--") && {
                let letters = &a[1..];
                letters.chars().all(|ch| ch.is_ascii_alphanumeric())
                    && option.chars().nth(1).is_some_and(|l| letters.contains(l))
            })
    })
}

/// Does the command meet a table's option condition: `-pubout` (the option
/// is there, as [`has_option`] finds it) or `-c=read-keys` (the option with
/// that value: `-c read-keys`, `-cread-keys`, `--command=read-keys` or
/// `--command read-keys` for `--command=read-keys`; `-c=read-keys|read-reservation`:
/// one of the values)?
#[must_use]
pub fn meets(c: &SimpleCommand, condition: &str) -> bool {
    let Some((option, value)) = condition.get(1..).and_then(|rest| {
        rest.split_once('=')
            .map(|(o, v)| (&condition[..o.len() + 1], v))
    }) else {
        return has_option(c, condition);
    };
    let short = option.len() == 2 && !option.starts_with("--");
    let mut words = c.args.iter().take_while(|a| *a != "--").peekable();
    while let Some(a) = words.next() {
        let is_value = |v: &str| value.split('|').any(|one| one == v);
        if a == option {
            if words.peek().is_some_and(|v| is_value(v)) {
                return true;
            }
            continue;
        }
        let glued = a.strip_prefix(option).and_then(|rest| match short {
            true => Some(rest),
            false => rest.strip_prefix('='),
        });
        if glued.is_some_and(is_value) {
            return true;
        }
    }
    false
}

/// Are the command's options (before `--`) only those of `allowed`: each a
/// whole word listed, a listed long option with a glued value (`--opt=V`), or
/// a cluster of listed one-letter options (`-lu` for `-l` and `-u`)? Operands
/// and options' values (words without a dash) are not options. A word that is
/// none of these (an option not listed, a value glued to a short option)
/// fails: the form is not the one the table describes.
#[must_use]
pub fn options_only<S: AsRef<str>>(c: &SimpleCommand, allowed: &[S]) -> bool {
    let listed = |o: &str| allowed.iter().any(|a| a.as_ref() == o);
    c.args
        .iter()
        .take_while(|a| *a != "--")
        .filter(|a| a.starts_with('-') && a.len() > 1)
        .all(|a| {
            if listed(a) {
                return true;
            }
            if let Some((name, _)) = a.split_once('=').filter(|_| a.starts_with("--")) {
                return listed(name);
            }
            !a.starts_with("--")
                && a[1..].chars().all(|l| {
                    let mut one = [0u8; 4];
                    let letter = l.encode_utf8(&mut one);
                    allowed.iter().any(|o| {
                        o.as_ref()
                            .strip_prefix('-')
                            .is_some_and(|rest| rest == letter)
                    })
                })
        })
}

/// Parallel to `c.operands`: is the operand the value of one of `options`?
#[must_use]
pub fn option_values(c: &SimpleCommand, options: &[&str]) -> Vec<bool> {
    let slots: Vec<Slot<'_>> = options.iter().map(|o| Slot::Option(o)).collect();
    find(c, &slots).operand
}

/// `-vi` ends in `-i`, a listed one-letter option: the next word is its value.
fn ends_cluster(flag: &str, slots: &[Slot<'_>]) -> bool {
    let Some(letters) = flag.strip_prefix('-') else {
        return false;
    };
    if letters.starts_with('-')
        || letters.len() < 2
        || !letters.chars().all(|c| c.is_ascii_alphanumeric())
    {
        return false;
    }
    letters.chars().last().is_some_and(|last| {
        slots.iter().any(|s| {
            matches!(s, Slot::Option(o) if o.len() == 2 && o.starts_with('-') && o.ends_with(last))
        })
    })
}

/// Where a value glued into a flag starts: after `--output=` for a listed
/// `--output`, after `-o` in `-oFILE` for a listed one-letter `-o`.
fn glued_at(flag: &str, slots: &[Slot<'_>]) -> Option<usize> {
    if let Some((name, _)) = flag.split_once('=') {
        return slots
            .iter()
            .any(|s| matches!(s, Slot::Option(o) if option_is(o, name)))
            .then_some(name.len() + 1);
    }
    if flag.starts_with("--") || flag.len() <= 2 {
        return None;
    }
    let short = flag.get(..2)?;
    slots.contains(&Slot::Option(short)).then_some(2)
}

/// Is the word `a` the option `pattern` names: the same word, or, for a long
/// option with `*` in it (`--*-key`), one whose name has one or more
/// characters (no `=`) where each `*` stands?
fn option_is(pattern: &str, a: &str) -> bool {
    if pattern == a {
        return true;
    }
    if !pattern.starts_with("--") || !pattern.contains('*') || a.contains('=') {
        return false;
    }
    let mut parts = pattern.split('*');
    let Some(mut rest) = parts.next().and_then(|first| a.strip_prefix(first)) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (k, part) in parts.iter().enumerate() {
        let last = k + 1 == parts.len();
        // At least one character for the `*`, then the next fixed part: the
        // last one at the end of the word, the others at their first place.
        let found = match last {
            true => rest
                .len()
                .checked_sub(part.len())
                .filter(|at| *at >= 1 && rest.ends_with(part)),
            false => rest.get(1..).and_then(|r| r.find(part)).map(|at| at + 1),
        };
        let Some(at) = found else {
            return false;
        };
        rest = &rest[at + part.len()..];
    }
    true
}

/// `512`, `4M`, `1GiB`, `0x200`: a number, never a path.
fn is_number_or_size(s: &str) -> bool {
    let digits = s.trim_start_matches(|c: char| c.is_ascii_digit());
    digits.len() < s.len() && digits.len() <= 3 && digits.chars().all(|c| c.is_ascii_alphabetic())
}

/// The value of a word after its first `skip` bytes (`--output=` of
/// `--output=F`); `None` when the cut falls in an expansion or leaves nothing.
fn after(v: &Value, skip: usize) -> Option<Value> {
    let mut rest = Value::default();
    for s in &v.0 {
        let mut left = skip;
        let mut sym = Sym::default();
        for p in &s.0 {
            match p {
                Piece::Text(t) if left > 0 => {
                    let cut = left.min(t.len());
                    left -= cut;
                    sym.push(Piece::Text(t.get(cut..)?.to_string()));
                }
                _ if left > 0 => return None,
                p => sym.push(p.clone()),
            }
        }
        if !sym.is_empty() {
            rest.add(sym);
        }
    }
    (!rest.0.is_empty()).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(cmd: &str, entry: &str) -> Vec<String> {
        let c = crate::shell::command::parse(cmd).unwrap().remove(0);
        let slots: Vec<Slot<'_>> = entry.split(' ').filter_map(Slot::parse).collect();
        let f = find(&c, &slots);
        let mut out: Vec<String> = f
            .operand
            .iter()
            .zip(&c.operands)
            .filter(|(v, _)| **v)
            .map(|(_, o)| o.clone())
            .collect();
        out.extend(f.glued.iter().map(ToString::to_string));
        out
    }

    #[test]
    fn conditions_with_values_and_lists_of_allowed_options() {
        let c = |cmd: &str| crate::shell::command::parse(cmd).unwrap().remove(0);
        for cmd in [
            "blkpr -c read-keys /dev/sdb",
            "blkpr -cread-keys /dev/sdb",
            "blkpr -c read-reservation /dev/sdb",
        ] {
            assert!(meets(&c(cmd), "-c=read-keys|read-reservation"), "{cmd}");
        }
        assert!(!meets(&c("blkpr -c register /dev/sdb"), "-c=read-keys"));
        assert!(!meets(&c("blkpr -- -c read-keys"), "-c=read-keys"));
        assert!(meets(
            &c("blkpr --command=read-keys d"),
            "--command=read-keys"
        ));
        assert!(meets(
            &c("blkpr --command read-keys d"),
            "--command=read-keys"
        ));
        assert!(!meets(
            &c("blkpr --commandread-keys d"),
            "--command=read-keys"
        ));
        let allowed = ["-l", "-u", "--print-label"];
        for cmd in [
            "x -l d",
            "x -lu d",
            "x --print-label d",
            "x d",
            "x -l -- -L d",
        ] {
            assert!(options_only(&c(cmd), &allowed), "{cmd}");
        }
        for cmd in [
            "x -l -L n d",
            "x -lL n d",
            "x --print-label=1 --set d",
            "x -c 0 d",
        ] {
            assert!(!options_only(&c(cmd), &allowed), "{cmd}");
        }
    }

    #[test]
    fn a_family_of_long_options_is_named_with_a_star() {
        assert_eq!(
            places(
                "grub-mount --zfs-key /data/zfs.key /dev/sdb /mnt",
                "--*-key"
            ),
            ["/data/zfs.key"]
        );
        assert_eq!(places("x --server-key=s.key y", "--*-key"), ["s.key"]);
        assert_eq!(
            places("x --sign-key-file k.pem y", "--*-key-file"),
            ["k.pem"]
        );
        // the star stands for at least one character; the rest is fixed
        assert!(places("x --key k.pem y", "--*-key").is_empty());
        assert!(places("x --keys k.pem", "--*-key").is_empty());
        assert!(places("x --zfs-keyring k", "--*-key").is_empty());
        assert!(places("x -zfs-key k", "--*-key").is_empty());
        assert!(places("x --a-b-c k", "--*-*-c").len() == 1);
        let c = |cmd: &str| crate::shell::command::parse(cmd).unwrap().remove(0);
        assert!(has_option(&c("gpg --export-key k"), "--export-*"));
        assert!(has_option(&c("x --print-key=k"), "--print-*"));
        assert!(!has_option(&c("x --printer k"), "--print-*"));
        assert!(!has_option(&c("x -- --print-key k"), "--print-*"));
    }

    #[test]
    fn options_take_the_next_word_or_a_glued_value() {
        assert_eq!(
            places("scp -i ~/.ssh/k dist.tgz h:/tmp", "-i"),
            ["~/.ssh/k"]
        );
        assert_eq!(places("ssh -vi key host uptime", "-i"), ["key"]);
        // getopt: `-i` takes the rest of its word (`-iv` is the file `v`).
        assert_eq!(places("ssh -iv key host", "-i"), ["v"]);
        assert_eq!(
            places("openssl req -new -key s.key -out s.csr", "-key"),
            ["s.key"]
        );
        assert_eq!(
            places("docker run --env-file .env -p 80:80 img", "--env-file"),
            [".env"]
        );
        assert_eq!(
            places("wg set wg0 private-key ./wg.key", "private-key"),
            ["./wg.key"]
        );
        assert_eq!(places("foo --output=/dev/sdb x", "--output"), ["/dev/sdb"]);
        assert_eq!(places("foo -o/dev/sdb x", "-o"), ["/dev/sdb"]);
        assert_eq!(places("dcfldd if=x.img of=/dev/sdb", "of="), ["/dev/sdb"]);
        // After `--`, words are operands, not values.
        assert!(places("tool -- -i key", "-i").is_empty());
        assert!(places("tool -- of=/dev/sdb", "of=").is_empty());
        // A flag between the option and the next operand takes the value's place.
        assert!(places("cmd -i -v file", "-i").is_empty());
    }

    #[test]
    fn operands_by_position_skip_numbers_and_sizes() {
        assert_eq!(
            places("ddrescue -f /dev/sda /dev/sdb map", "@2"),
            ["/dev/sdb"]
        );
        assert_eq!(
            places("ddrescue -b 4096 /dev/sda img.dd map", "@2"),
            ["img.dd"]
        );
        assert_eq!(
            places("qemu-img convert -O raw a.qcow2 /dev/sdb", "@-1"),
            ["/dev/sdb"]
        );
        assert!(places("cp", "@-1").is_empty());
        assert!(Slot::parse("@0").is_none());
        assert_eq!(Slot::parse("@-2"), Some(Slot::Operand(-2)));
    }

    #[test]
    fn every_operand_and_standard_input() {
        assert_eq!(
            places("step certificate create CA ca.crt ca.key", "@*"),
            ["certificate", "create", "CA", "ca.crt", "ca.key"]
        );
        assert_eq!(Slot::parse("@*"), Some(Slot::Operands));
        assert_eq!(Slot::parse("<"), Some(Slot::Stdin));
        // Standard input is not an argument: the caller looks at redirections.
        assert!(places("kubeseal --format yaml", "<").is_empty());
    }
}
