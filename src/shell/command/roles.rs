//! Where programs write, by the role of an option or an operand, from the
//! table `policies/data/write-places.toml` (compiled into the binary by
//! build.rs): a file written (`iconv -o F`, `go build -o F`, `split IN
//! PREFIX`), a folder filled (`aria2c -d DIR`, `pip download -d DIR`), a place
//! removed (`zip -m ARCHIVE SRC…`, `cmake -E rm -rf DIR`, `rclone purge DIR`).
//! [`super::outputs`] and [`super::writes`] read it, so every rule that asks
//! what a command writes sees the same answer.

use super::super::value::Value;
use super::options::{self, Found, Slot};
use super::{subcommand_matches, SimpleCommand};

/// What a place is to the program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A file it writes.
    File,
    /// A folder it fills with names it chooses.
    Folder,
    /// A place it removes, with everything below it.
    Removed,
}

/// One line of the table.
#[derive(Debug)]
pub(super) struct Row {
    role: Role,
    /// The subcommands it holds for, each spelled out (empty: any).
    subcommands: &'static [&'static [&'static str]],
    /// Options the command must have.
    with: &'static [&'static str],
    /// Options the command must not have.
    without: &'static [&'static str],
    /// The places ([`Slot`] tokens).
    places: &'static [&'static str],
}

include!(concat!(env!("OUT_DIR"), "/write_places.rs"));

/// The rows that may apply to a program: its own, its prefix's, any program's.
fn rows_of(program: &str) -> impl Iterator<Item = &'static Row> {
    let lower = program.to_ascii_lowercase();
    let own = BY_PROGRAM
        .binary_search_by(|(name, _)| (*name).cmp(lower.as_str()))
        .ok()
        .map_or(&[][..], |i| BY_PROGRAM[i].1);
    let by_prefix = BY_PREFIX
        .iter()
        .filter(move |(p, _)| lower.starts_with(p))
        .flat_map(|(_, ix)| ix.iter());
    own.iter()
        .chain(by_prefix)
        .chain(ANY.iter())
        .filter_map(|&i| ROWS.get(usize::from(i)))
}

/// Does a row hold for `c`: its subcommand (as [`subcommand_matches`] finds
/// it, or as the first operands: `cmake -E rm`), the options it must have and
/// lack?
fn applies(row: &Row, c: &SimpleCommand) -> bool {
    let sub_ok = row.subcommands.is_empty()
        || row.subcommands.iter().any(|sub| {
            c.operands.len() >= sub.len() && c.operands.iter().zip(sub.iter()).all(|(a, b)| a == b)
                || {
                    let owned: Vec<String> = sub.iter().map(|w| (*w).to_string()).collect();
                    subcommand_matches(c, &owned)
                }
        });
    sub_ok
        && row.with.iter().all(|o| options::has_option(c, o))
        && !row.without.iter().any(|o| options::has_option(c, o))
}

/// The name of an environment variable a place token stands for
/// (`$CARGO_TARGET_DIR`), or `None` for an option or operand.
fn variable(token: &str) -> Option<&str> {
    token.strip_prefix('$')
}

/// The environment variables that name a place for `program` (rows with
/// `$NAME`), for the analysis to record what the line sets them to.
#[must_use]
pub(super) fn place_variables(program: &str) -> Vec<&'static str> {
    rows_of(program)
        .flat_map(|r| r.places.iter().filter_map(|p| variable(p)))
        .collect()
}

/// The places of `role` in `c`, from the table's rows for its program. An
/// environment variable's value (`$NAME`) is a place when no option or
/// operand of the rows names one: the option wins, as the programs do.
#[must_use]
pub fn places(c: &SimpleCommand, role: Role) -> Found {
    let rows: Vec<&Row> = rows_of(&c.program)
        .filter(|r| r.role == role && applies(r, c))
        .collect();
    let slots: Vec<Slot<'static>> = rows
        .iter()
        .flat_map(|r| r.places.iter())
        .filter(|p| variable(p).is_none())
        .filter_map(|p| Slot::parse(p))
        .collect();
    let mut found = if slots.is_empty() {
        Found {
            operand: vec![false; c.operands.len()],
            glued: vec![],
        }
    } else {
        options::find(c, &slots)
    };
    if !found.operand.contains(&true) && found.glued.is_empty() {
        let names = rows
            .iter()
            .flat_map(|r| r.places.iter())
            .filter_map(|p| variable(p));
        for name in names {
            if let Some((_, v)) = c.env_places.iter().find(|(n, _)| *n == name) {
                found.glued.push(v.clone());
            }
        }
    }
    if slots.is_empty() {
        return found;
    }
    // `-` is standard output, not a file.
    for (w, o) in found.operand.iter_mut().zip(&c.operands) {
        *w &= o != "-";
    }
    found.glued.retain(|v| v.literal().is_none_or(|t| t != "-"));
    found
}

/// Can the table name a file `program` writes: it has rows of its own or
/// by prefix, or an argument is an option the row for any program reads
/// (`--output`, `--out-file`, …)? Cheap, for every command.
#[must_use]
pub(super) fn may_write_files<'a>(program: &str, mut args: impl Iterator<Item = &'a str>) -> bool {
    let lower = program.to_ascii_lowercase();
    BY_PROGRAM
        .binary_search_by(|(name, _)| (*name).cmp(lower.as_str()))
        .is_ok()
        || BY_PREFIX.iter().any(|(p, _)| lower.starts_with(p))
        || args.any(|a| a.starts_with("--out"))
}

/// The files (as written, literal ones) that `program args…` writes by the
/// table's file role.
#[must_use]
pub(super) fn written_files(program: &str, args: &[super::expand::Field]) -> Vec<String> {
    let c = SimpleCommand::with_values(
        program.to_string(),
        args.iter().map(|a| a.text.clone()).collect(),
        args.iter().map(|a| a.value.clone()).collect(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        0,
    );
    let found = places(&c, Role::File);
    found
        .operand
        .iter()
        .zip(&c.operand_values)
        .filter(|(w, _)| **w)
        .map(|(_, v)| v)
        .chain(found.glued.iter())
        .filter_map(Value::literal)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(cmd: &str, role: Role) -> Vec<String> {
        let c = crate::shell::command::parse(cmd).unwrap().remove(0);
        let f = places(&c, role);
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
    fn the_table_names_files_folders_and_removals_by_role() {
        assert_eq!(
            at("iconv -f latin1 -t utf-8 -o /etc/motd n.txt", Role::File),
            ["/etc/motd"]
        );
        assert_eq!(at("go build -o bin/app ./cmd/app", Role::File), ["bin/app"]);
        assert!(at("go vet -o x ./...", Role::File).is_empty());
        assert_eq!(
            at("split -b 1M backup.tar /etc/part-", Role::File),
            ["/etc/part-"]
        );
        assert!(at("split -l 10 data.csv", Role::File).is_empty());
        assert_eq!(
            at("base64 -d p.b64 --output=/usr/bin/x", Role::File),
            ["/usr/bin/x"]
        );
        assert!(at("curl -s -o - https://x", Role::File).is_empty());
        assert!(at("grep -o x /etc/hosts", Role::File).is_empty());
        assert_eq!(
            at("aria2c --dir=/usr/bin https://x", Role::Folder),
            ["/usr/bin"]
        );
        assert_eq!(at("unrar x a.rar /etc/", Role::Folder), ["/etc/"]);
        assert_eq!(
            at("zip -rm backup.zip ~/Documents", Role::Removed),
            ["~/Documents"]
        );
        assert!(at("zip -r backup.zip ~/Documents", Role::Removed).is_empty());
        assert_eq!(at("cmake -E rm -rf build", Role::Removed), ["build"]);
        assert_eq!(at("7z a -sdel logs.7z logs/", Role::Removed), ["logs/"]);
        assert_eq!(at("rclone sync remote:empty ~", Role::Removed), ["~"]);
        assert!(at("rclone copy remote:x ./x", Role::Removed).is_empty());
        assert_eq!(at("aws s3 sync s3://b/e ~ --delete", Role::Removed), ["~"]);
    }
}
