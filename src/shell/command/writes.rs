//! What a command writes, whoever writes it: the one answer to "which paths
//! does this change" that rules about protected places ask (`paths = …,
//! writes = true`), so a file is judged by where the write lands, not by which
//! program writes it.
//!
//! A write is any of:
//! * an output redirection, of any program (`awk … > f`, `printf … >> f`; the
//!   writes of interpreters' inline code are such redirections);
//! * what [`outputs`] finds: output options (`sort -o`, `curl -o`, `wget -O`,
//!   `dd of=`) and destinations (`cp`, `mv`, `install`, `ln`, `rsync`, `scp`,
//!   `tee`), and what lands inside a destination folder (`cp x DIR/` writes
//!   `DIR/x`; a recursive copy, anything below `DIR`);
//! * every operand of a program that changes its operands (`touch`,
//!   `truncate`, `chmod`, `sed -i`, `perl -pi`, `gawk -i inplace`, `patch`,
//!   editors, …), and what is below them when it recurses (`chmod -R`);
//! * what a program removes, with everything below it when it recurses (`rm
//!   -r`, `mv`'s sources, `find … -delete`, `git rm -r`, `git clean`), and
//!   the places the table of write places ([`roles`]) gives the role
//!   "removed" (`zip -m`, `7z a -sdel`, `cmake -E rm`, `rclone purge`);
//! * unknown names below a folder a program fills (`tar -x -C DIR`, `unzip -d
//!   DIR`, `7z x -oDIR`, `cpio -i`, `wget -P DIR`, `curl -O --output-dir DIR`,
//!   `git clone URL DIR`, `git apply`, `patch -p1`): `DIR/…`, the working
//!   folder when none is named. Named archive members are written by name
//!   (`tar -xf a.tgz .claude/settings.json`). When the command names the
//!   patch or archive that lists them, the write carries it ([`Listing`]), so
//!   the names can be read from disk (`shell::contents`) and judged one by
//!   one.

use super::expand::Field;
use super::extract::find_targets;
use super::links::{acts_on_name, follows_links_below};
use super::outputs::outputs;
use super::roles::{self, Role};
use super::transform::Transform;
use super::{program_is, SimpleCommand};
pub use crate::shell::contents::Kind;
use crate::shell::value::{Piece, Value};

/// One path a command writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The path.
    pub value: Value,
    /// The command acts on the name (a link there is replaced or removed,
    /// not followed).
    pub by_name: bool,
    /// Everything below the path changes too (a recursive removal, move or
    /// change).
    pub below: bool,
    /// The recursion follows the links it meets below the path (`find -L …
    /// -delete`, `chown -R -L`): what they lead to changes too.
    pub through_links: bool,
    /// The file that lists the names written below a folder (a patch, an
    /// archive); `value` is then the unknown names below that folder, what
    /// counts when the list cannot be read.
    pub listed: Option<Listing>,
    /// The write changes the file in place and keeps the rest of it (an
    /// append, an in-place edit, a patch, a change of mode or times); when
    /// false it replaces or removes what is there (`>`, a copy or move onto
    /// it, `rm`, `truncate`, an extraction, a move away).
    pub keeps: bool,
}

/// A patch or archive that names what a command writes below a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The patch or archive, as the command names it.
    pub file: Value,
    /// What kind of list it is.
    pub kind: Kind,
    /// The folder the names are relative to.
    pub into: Value,
    /// Leading components dropped from each name (`tar --strip-components=N`).
    pub strip: usize,
    /// Names keep a leading `/` (`tar -P`, `--absolute-names`): an absolute
    /// member lands where it says, not below the folder.
    pub absolute: bool,
    /// The `--transform` expressions that rewrite each name first (known to
    /// apply: see [`super::transform::Transform::parse`]).
    pub rename: Vec<String>,
    /// The tree lands at `into` only when `into` is no folder on disk (`mv
    /// SRC DST`: into `DST/SRC` when `DST` is a folder, as `DST` when not).
    pub unless_folder: bool,
}

impl Listing {
    /// Where a listed name lands (`into/name`; a leading `/` is dropped, as
    /// tar and unzip do).
    #[must_use]
    pub fn member(&self, name: &str) -> Value {
        if self.absolute && self.strip == 0 && name.starts_with('/') {
            return Value::text(name);
        }
        let mut name = name.trim_start_matches('/');
        for _ in 0..self.strip {
            // A name with fewer components is not extracted: the folder stands for it.
            name = name.split_once('/').map_or(".", |(_, rest)| rest);
        }
        join(&self.into, name.trim_start_matches('/'))
    }

    /// The rewriting of the names read from the list (`tar --transform`),
    /// compiled once, to apply before [`Listing::member`].
    #[must_use]
    pub fn renaming(&self) -> Option<Transform> {
        if self.rename.is_empty() {
            return None;
        }
        Transform::parse(self.rename.iter().map(String::as_str))
    }

    /// Some name below the folder the names land in (what counts for names
    /// that could not be read).
    #[must_use]
    pub fn unknown_below(&self) -> Value {
        self.into.below()
    }
}

/// Programs that change every operand they are given.
const CHANGERS: &[&str] = &[
    "truncate", "touch", "chmod", "chown", "chgrp", "setfacl", "chattr", "mkfifo", "mknod",
    "shred", "dos2unix", "unix2dos", "mkdir", "patch", "vim", "vi", "nvim", "nano", "emacs", "ed",
    "ex", "sudoedit", "visudo", "sponge", "tee",
];

/// Of [`CHANGERS`], those that keep what they change (its content, when
/// they touch only its mode, owner or times, or edit it), unless told
/// otherwise (`tee` and `sponge` replace the file unless `-a`).
const KEEPERS: &[&str] = &[
    "touch", "chmod", "chown", "chgrp", "setfacl", "chattr", "mkfifo", "mknod", "dos2unix",
    "unix2dos", "mkdir", "patch", "vim", "vi", "nvim", "nano", "emacs", "ed", "ex", "sudoedit",
    "visudo",
];

/// Programs that remove what they are given.
const REMOVERS: &[&str] = &[
    "rm",
    "unlink",
    "rmdir",
    "srm",
    "trash",
    "trash-put",
    "shred",
    "wipe",
    "rimraf",
];

/// Does `c` remove or wipe every operand it is given (`rm`, `shred`,
/// `truncate`, `tee` without `-a`)? What it is given is gone, not read: a
/// secret among its operands is not printed (losing it is judged by the
/// rules about deleting secrets).
#[must_use]
pub fn destroys_operands(c: &SimpleCommand) -> bool {
    let p = c.program.as_str();
    let appends = c.flags.iter().any(|f| f == "-a" || f == "--append");
    REMOVERS.contains(&p)
        || (CHANGERS.contains(&p)
            && !KEEPERS.contains(&p)
            && !(matches!(p, "tee" | "sponge") && appends))
}

/// Does `c` edit its operands in place: `sed -i`, `-i.bak`, `-Ei`,
/// `--in-place=.orig`; `perl -pi`, `-i.bak`, `-pie`; `ruby -i`; `yq -i`;
/// gawk's `-i inplace`? A short cluster counts up to the first letter that
/// takes a value (`sed -ie` is `-i` with the suffix `e`; `perl -ei` is code).
#[must_use]
pub fn in_place(c: &SimpleCommand) -> bool {
    in_place_args(&c.program, &c.args)
}

/// [`in_place`] for a program and its words, before they are a command.
#[must_use]
pub fn in_place_args(p: &str, all: &[String]) -> bool {
    let is = |names: &[&str]| names.iter().any(|n| program_is(p, n));
    let args = || all.iter().take_while(|a| *a != "--");
    // The letters that take a value, which end a cluster.
    let valued = if is(&["sed", "gsed"]) {
        "efl"
    } else if is(&["perl"]) {
        "eEIMmxdDC"
    } else if is(&["ruby"]) {
        "eIrECxKTW"
    } else if is(&["yq"]) {
        "eopIP"
    } else if is(&["awk", "gawk"]) {
        return args()
            .zip(args().skip(1).map(Some).chain([None]))
            .any(|(a, next)| {
                a == "-iinplace"
                    || a == "--include=inplace"
                    || ((a == "-i" || a == "--include")
                        && next.is_some_and(|n| n.starts_with("inplace")))
            });
    } else {
        return false;
    };
    args().any(|a| {
        if a == "--in-place" || a == "--inplace" || a.starts_with("--in-place=") {
            return true;
        }
        let Some(letters) = a.strip_prefix('-').filter(|l| !l.starts_with('-')) else {
            return false;
        };
        for ch in letters.chars() {
            if ch == 'i' {
                return true;
            }
            if valued.contains(ch) || !ch.is_ascii_alphanumeric() {
                return false;
            }
        }
        false
    })
}

/// Every path `c` writes.
#[must_use]
pub fn writes(c: &SimpleCommand) -> Vec<Write> {
    let mut out: Vec<Write> = Vec::new();
    let mut listed: Vec<Write> = Vec::new();
    // Set while pushing the writes that keep what they change.
    let keeping = std::cell::Cell::new(false);
    let mut push = |value: Value, by_name: bool, below: bool| {
        let w = Write {
            value,
            by_name,
            below,
            through_links: false,
            listed: None,
            keeps: keeping.get(),
        };
        if !out.contains(&w) {
            out.push(w);
        }
    };
    for r in &c.redirects {
        if r.op != super::RedirectOp::Read && !r.target.is_empty() {
            let appends = matches!(
                r.op,
                super::RedirectOp::Append | super::RedirectOp::ReadWrite
            );
            keeping.set(appends);
            push(r.value.clone(), false, false);
            keeping.set(false);
        }
    }
    let p = c.program.as_str();
    let is = |names: &[&str]| names.iter().any(|n| program_is(p, n));
    let flag = |f: &str| c.flags.iter().any(|x| x == f);
    if dry_run(c) {
        return out;
    }
    let recursive = flag("-r") || flag("-R") || flag("--recursive");
    let operand = |i: usize| c.operand_values.get(i).cloned().unwrap_or_default();
    let n = c.operands.len();

    // Output options and destinations.
    let o = outputs(c);
    let output_dir = option_value(c, &[], &["--output-dir"]);
    for g in &o.glued {
        push(in_dir(output_dir.as_ref(), g), false, false);
    }
    for (i, written) in o.operand.iter().enumerate() {
        if !written {
            continue;
        }
        let dst = in_dir(output_dir.as_ref(), &operand(i));
        if is(&["cp", "mv", "install", "rsync", "scp", "ln", "ditto"]) {
            // What lands inside it when it is a folder.
            let sources: Vec<usize> = (0..n).filter(|j| *j != i && !o.operand[*j]).collect();
            for &s in &sources {
                let src = operand(s);
                let whole = recursive
                    || flag("-a")
                    || flag("--archive")
                    || is(&["mv", "ditto"])
                    || src.literal().is_some_and(|t| t.ends_with('/'));
                let roots = if whole && !is(&["install", "ln"]) {
                    tree_roots(c, &src, &dst, sources.len())
                } else {
                    Vec::new()
                };
                for (into, unless_folder) in roots.iter().cloned() {
                    // Unread (no such tree on disk): the root lands there
                    // itself (a file moved is all its tree), entries below.
                    let mut unread = into.clone();
                    for s in into.below().0 {
                        unread.add(s);
                    }
                    listed.push(Write {
                        value: unread,
                        by_name: false,
                        below: false,
                        through_links: false,
                        keeps: false,
                        listed: Some(Listing {
                            file: src.clone(),
                            kind: Kind::Tree,
                            into,
                            strip: 0,
                            absolute: false,
                            rename: Vec::new(),
                            unless_folder,
                        }),
                    });
                }
                match basename(&src) {
                    Some(b) if !whole => push(join(&dst, &b), false, false),
                    _ if roots.is_empty() => push(dst.below(), false, false),
                    _ => {}
                }
            }
        }
        push(dst, acts_on_name(c, i), false);
    }

    // Programs that change or remove their operands.
    if is(REMOVERS) || is(CHANGERS) || in_place(c) {
        let removes = is(REMOVERS);
        let deep = recursive && !is(&["rmdir"]);
        let appends = is(&["tee", "sponge"]) && (flag("-a") || flag("--append"));
        keeping.set(!removes && (in_place(c) || is(KEEPERS) || appends));
        for (i, v) in c.target_operands() {
            if o.operand.get(i).copied().unwrap_or(false) {
                continue;
            }
            push(v.clone(), removes || acts_on_name(c, i), deep);
        }
        keeping.set(false);
    }
    if is(&["mv"]) {
        for i in (0..n).filter(|i| !o.operand[*i]) {
            push(operand(i), true, true);
        }
    }
    if is(&["link"]) && n == 2 {
        push(operand(1), true, false);
    }
    // What find deletes is what it finds, the same answer `-exec rm {} +`
    // gets ([`find_targets`]): not only the starting points, but the names
    // a `-name` test asks for at any depth (`find . -name '*.toml' -delete`
    // reaches `.claude/hookrules/project.toml`), and everything in them when
    // only negated tests narrow it (`-not -path './.git*'`).
    if is(&["find"]) && flag("-delete") {
        let fields: Vec<Field> = c
            .args
            .iter()
            .zip(&c.values)
            .map(|(text, value)| Field {
                text: text.clone(),
                value: value.clone(),
                content: None,
                printed: None,
            })
            .collect();
        push(find_targets(&fields), acts_on_name(c, 0), true);
    }

    // What the table of roles says the command removes.
    let removed = roles::places(c, Role::Removed);
    for (i, _) in removed.operand.iter().enumerate().filter(|(_, r)| **r) {
        push(operand(i), true, true);
    }
    for v in removed.glued {
        push(v, true, true);
    }

    // Unknown names below a folder.
    for w in filled(c) {
        if w.listed.is_some() {
            listed.push(w);
        } else {
            push(w.value, w.by_name, w.below);
        }
    }
    git_writes(c, &mut push, &mut listed);
    // What git puts back, replaces or takes away outside the command's words
    // (a branch switch, a stash), as git listed it.
    for f in &c.replaced {
        push(Value::text(f), true, false);
    }
    // A recursion told to follow every link it meets changes what the links
    // below lead to.
    if follows_links_below(c) {
        for w in out.iter_mut().filter(|w| w.below) {
            w.through_links = true;
        }
    }
    out.extend(listed);
    out
}

/// Where a whole tree `src` lands when `c` copies, moves or syncs it to
/// `dst`: the folders its entries land in, by each tool's rules (`SRC/.`
/// and a tree copied into a folder: `dst/basename(SRC)`; into a name that
/// does not exist yet: `dst` itself):
/// * `cp -r`, `mv`, `scp -r`: `dst/base` when `dst` is a folder (always with
///   `-t` or several sources), `dst` when it is not (`-T`); both when the
///   disk decides (then `dst` itself is marked [`Listing::unless_folder`]). `SRC/.` lands in `dst`; so does `SRC/` on BSD and macOS.
/// * `rsync`: `SRC/` and `SRC/.` land in `dst`, `SRC` in `dst/base`.
/// * `ditto`: the contents of `SRC` land in `dst`.
///
/// None when `src` is not a known text (its name cannot be told).
fn tree_roots(c: &SimpleCommand, src: &Value, dst: &Value, sources: usize) -> Vec<(Value, bool)> {
    let Some(text) = tail_text(src) else {
        return Vec::new();
    };
    let text = text.as_str();
    let p = c.program.as_str();
    let flag = |f: &str| c.flags.iter().any(|x| x == f);
    let contents =
        text == "." || text.ends_with("/.") || text.ends_with("/./") || program_is(p, "ditto");
    let slash = text.ends_with('/');
    let base = {
        let name = text
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default();
        (!name.is_empty() && name != "." && name != "..").then(|| name.to_string())
    };
    let mut roots: Vec<(Value, bool)> = Vec::new();
    let mut add = |v: Value, unless_folder: bool| {
        if !roots.iter().any(|(r, _)| *r == v) {
            roots.push((v, unless_folder));
        }
    };
    if program_is(p, "rsync") {
        match base {
            Some(b) if !contents && !slash => add(join(dst, &b), false),
            _ => add(dst.clone(), false),
        }
        return roots;
    }
    let into_folder = flag("-t") || flag("--target-directory") || sources > 1;
    let no_folder = flag("-T") || flag("--no-target-directory");
    match base {
        Some(b) if !contents && !no_folder => {
            add(join(dst, &b), false);
            // (a source's trailing `/` means its contents for cp on BSD and
            // macOS, wherever `dst` is; mv moves the folder itself)
            if slash && !program_is(p, "mv") {
                add(dst.clone(), false);
            } else if !into_folder {
                add(dst.clone(), true);
            }
        }
        _ => add(dst.clone(), false),
    }
    roots
}

/// A run that only shows what it would do (`rsync -n`, `git clean -n`,
/// `patch --dry-run`, `git apply --check`): its redirections still write.
fn dry_run(c: &SimpleCommand) -> bool {
    let p = c.program.as_str();
    let flag = |f: &str| c.flags.iter().any(|x| x == f);
    if program_is(p, "rsync") {
        return flag("-n") || flag("--dry-run");
    }
    if program_is(p, "patch") {
        return flag("--dry-run");
    }
    if program_is(p, "git") {
        let sub = c.operands.first().map(String::as_str);
        return match sub {
            Some("clean" | "rm" | "mv") => flag("-n") || flag("--dry-run"),
            Some("apply") => {
                (flag("--check") || flag("--stat") || flag("--numstat") || flag("--summary"))
                    && !flag("--apply")
            }
            _ => false,
        };
    }
    false
}

/// What `c` writes into folders it fills with names the analysis does not
/// know (`DIR/…`, or the names an archive or patch it names lists): the
/// folder role of the table of write places ([`roles`]: `aria2c -d DIR`,
/// `pip download -d DIR`, `unrar x A DIR/`), and the extractors read by code
/// (`tar -x -C DIR`, `unzip -d DIR`, `7z x -oDIR`, `cpio -i`, `wget -P DIR`,
/// `curl -O --output-dir DIR`, `patch`).
#[must_use]
pub fn filled(c: &SimpleCommand) -> Vec<Write> {
    if dry_run(c) {
        return Vec::new();
    }
    let plain = |value: Value| Write {
        value,
        by_name: false,
        below: false,
        through_links: false,
        listed: None,
        keeps: false,
    };
    let mut out: Vec<Write> = filled_folders(c)
        .into_iter()
        .map(|f| match f {
            Filled::Below(d) => plain(d.below()),
            Filled::Named(v) => plain(v),
            Filled::Listed(l) => Write {
                value: l.into.below(),
                by_name: false,
                below: false,
                through_links: false,
                // A patch changes the files it names in place.
                keeps: l.kind == Kind::Patch,
                listed: Some(l),
            },
        })
        .collect();
    let table = roles::places(c, Role::Folder);
    let values = table
        .operand
        .iter()
        .zip(&c.operand_values)
        .filter(|(f, _)| **f)
        .map(|(_, v)| v.clone());
    for v in values.chain(table.glued) {
        let w = plain(v.below());
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A folder a program fills with names the analysis does not know, or a
/// path it writes by name there.
enum Filled {
    Below(Value),
    Named(Value),
    Listed(Listing),
}

fn filled_folders(c: &SimpleCommand) -> Vec<Filled> {
    let p = c.program.as_str();
    let is = |names: &[&str]| names.iter().any(|n| program_is(p, n));
    let flag = |f: &str| c.flags.iter().any(|x| x == f);
    let here = || Value::text(".");
    if is(&["tar", "gtar", "bsdtar"]) {
        return tar(c);
    }
    if is(&["unzip"]) {
        if ["-l", "-t", "-v", "-p", "-Z", "-z"].iter().any(|f| flag(f)) {
            return Vec::new();
        }
        let dir = option_value(c, &["-d"], &[]).unwrap_or_else(here);
        let archive = c.operand_values.first().cloned();
        // Named members (`unzip a.zip .claude/settings.json`) are in the list.
        return vec![match archive {
            Some(file) => Filled::Listed(Listing {
                file,
                kind: Kind::Archive,
                into: dir,
                strip: 0,
                absolute: false,
                rename: Vec::new(),
                unless_folder: false,
            }),
            None => Filled::Below(dir),
        }];
    }
    if is(&["7z", "7za", "7zr", "7zz"]) {
        let extracts = c.operands.first().is_some_and(|s| s == "x" || s == "e");
        if !extracts {
            return Vec::new();
        }
        let dir = glued(c, "-o").unwrap_or_else(here);
        return vec![Filled::Below(dir)];
    }
    if is(&["cpio"]) {
        let extracts = flag("-i")
            || flag("--extract")
            || c.args
                .iter()
                .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains('i'));
        return if extracts {
            vec![Filled::Below(here())]
        } else {
            Vec::new()
        };
    }
    if is(&["wget"]) {
        if flag("-O") || flag("--output-document") || flag("--spider") {
            return Vec::new();
        }
        let dir = option_value(c, &["-P"], &["--directory-prefix"]).unwrap_or_else(here);
        return vec![Filled::Below(dir)];
    }
    if is(&["curl"]) {
        let remote = flag("-O") || flag("--remote-name") || flag("--remote-name-all") || flag("-J");
        if !remote {
            return Vec::new();
        }
        let dir = option_value(c, &[], &["--output-dir"]).unwrap_or_else(here);
        return vec![Filled::Below(dir)];
    }
    let named_input = option_value(c, &["-i"], &["--input"]);
    if is(&["patch"]) && (named_input.is_some() || !c.operands.iter().any(|o| !o.starts_with('-')))
    {
        let dir = option_value(c, &["-d"], &["--directory"]).unwrap_or_else(here);
        let input = named_input.or_else(|| {
            c.redirects
                .iter()
                .find(|r| r.op == super::RedirectOp::Read && r.fd.is_none_or(|fd| fd == 0))
                .map(|r| r.value.clone())
        });
        return vec![match input {
            Some(file) => Filled::Listed(Listing {
                file,
                kind: Kind::Patch,
                into: dir,
                strip: 0,
                absolute: false,
                rename: Vec::new(),
                unless_folder: false,
            }),
            None => Filled::Below(dir),
        }];
    }
    Vec::new()
}

/// `tar -x`: the named members under the folder it extracts into (`-C`,
/// `--directory`, else the working folder), or anything below it.
///
/// Two options change where a member lands beyond that: `-P`
/// (`--absolute-names`) keeps a member's leading `/` and its `..`, so a member
/// named `/home/me/.bashrc` lands there, and an archive whose names cannot be
/// read may write anywhere; `--transform`/`--xform` rewrites each name with a
/// sed expression, so the written names are not the ones in the archive or
/// on the command line: anything below the folder (GNU tar still strips a
/// leading `/` and refuses `..` after the rewrite, unless `-P`).
fn tar(c: &SimpleCommand) -> Vec<Filled> {
    // Options taking a value (short ones also at the end of a cluster).
    const SHORT_VALUE: &[char] = &[
        'f', 'C', 'T', 'X', 'b', 'H', 'K', 'N', 'V', 'g', 'I', 'F', 'L',
    ];
    let mut extract = false;
    let mut to_stdout = false;
    let mut dir: Option<Value> = None;
    let mut file: Option<Value> = None;
    let mut members: Vec<Value> = Vec::new();
    let mut strip = 0usize;
    let mut absolute = false;
    // `--transform` expressions; `None` once one cannot be read.
    let mut rename: Option<Vec<String>> = Some(Vec::new());
    let mut i = 0;
    let value = |i: usize| c.values.get(i).cloned().unwrap_or_default();
    while let Some(a) = c.args.get(i) {
        if let Some(long) = a.strip_prefix("--") {
            let (name, glued) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            match name {
                "extract" | "get" => extract = true,
                "strip-components" | "strip" => {
                    let n = match glued {
                        Some(v) => v.to_string(),
                        None => {
                            i += 1;
                            c.args.get(i).cloned().unwrap_or_default()
                        }
                    };
                    strip = n.trim().parse().unwrap_or(0);
                }
                "to-stdout" | "to-command" => to_stdout = true,
                "absolute-names" => absolute = true,
                "transform" | "xform" => {
                    let expr = match glued {
                        Some(v) => Some(v.to_string()),
                        None => {
                            i += 1;
                            value(i).literal()
                        }
                    };
                    rename = rename.zip(expr).map(|(mut all, e)| {
                        all.push(e);
                        all
                    });
                }
                "directory" => {
                    dir = Some(match glued {
                        Some(v) => Value::text(v),
                        None => {
                            i += 1;
                            value(i)
                        }
                    });
                }
                "file" => {
                    file = Some(match glued {
                        Some(v) => Value::text(v),
                        None => {
                            i += 1;
                            value(i)
                        }
                    });
                }
                "files-from"
                | "exclude-from"
                | "use-compress-program"
                | "newer"
                | "after-date"
                | "label"
                | "owner"
                | "group"
                | "mode"
                | "format"
                    if glued.is_none() =>
                {
                    i += 1;
                }
                _ => {}
            }
        } else if a.starts_with('-') && a.len() > 1 || i == 0 && !a.starts_with('-') {
            // A cluster (`-xzf`, or the old style `xzf` as the first word).
            let letters: Vec<char> = a.trim_start_matches('-').chars().collect();
            let mut takes = 0;
            for (k, ch) in letters.iter().enumerate() {
                match ch {
                    'x' => extract = true,
                    'O' => to_stdout = true,
                    'P' => absolute = true,
                    'C' if k + 1 == letters.len() || i == 0 => {
                        takes += 1;
                        dir = Some(value(i + takes));
                    }
                    'f' if k + 1 == letters.len() || i == 0 => {
                        takes += 1;
                        file = Some(value(i + takes));
                    }
                    c if SHORT_VALUE.contains(c) => {
                        if k + 1 < letters.len() && a.starts_with('-') {
                            break;
                        }
                        takes += 1;
                    }
                    _ => {}
                }
            }
            i += takes;
        } else {
            members.push(value(i));
        }
        i += 1;
    }
    if !extract || to_stdout {
        return Vec::new();
    }
    let dir = dir.unwrap_or_else(|| Value::text("."));
    // Where a name that cannot be known lands: below the folder, or, with
    // `-P`, anywhere.
    let unknown = || {
        if absolute {
            Filled::Below(Value::text("/"))
        } else {
            Filled::Below(dir.clone())
        }
    };
    let Some(rename) = rename.filter(|r| Transform::parse(r.iter().map(String::as_str)).is_some())
    else {
        return vec![unknown()];
    };
    if members.is_empty() {
        return vec![match file {
            Some(file) if file.literal().is_none_or(|f| f != "-") => Filled::Listed(Listing {
                file,
                kind: Kind::Archive,
                into: dir,
                strip,
                absolute,
                rename,
                unless_folder: false,
            }),
            _ => unknown(),
        }];
    }
    members
        .iter()
        .map(|m| match m.literal() {
            Some(t) if !t.contains(['*', '?', '[']) => {
                let t = Transform::parse(rename.iter().map(String::as_str))
                    .map_or(t.clone(), |tr| tr.apply(&t));
                Filled::Named(if absolute && t.starts_with('/') {
                    Value::text(&t)
                } else {
                    join(&dir, t.trim_start_matches('/'))
                })
            }
            _ => unknown(),
        })
        .collect()
}

/// git's subcommands that change the working tree's files: `rm`, `mv`,
/// `restore`, `checkout -- PATH…`, `clean`, `clone URL DIR`, `apply`.
fn git_writes(
    c: &SimpleCommand,
    push: &mut impl FnMut(Value, bool, bool),
    listed: &mut Vec<Write>,
) {
    if !program_is(&c.program, "git") {
        return;
    }
    // The subcommand: the first operand not right after an option taking a
    // value (`-C dir`, `-c k=v`).
    let mut sub: Option<(usize, &str)> = None;
    let mut skip = false;
    let mut operand_at = 0;
    for a in &c.args {
        if skip {
            skip = false;
            operand_at += 1;
            continue;
        }
        if a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" {
            skip = true;
            continue;
        }
        if a.starts_with('-') {
            continue;
        }
        sub = Some((operand_at, a.as_str()));
        break;
    }
    let Some((at, sub)) = sub else {
        return;
    };
    let rest: Vec<Value> = c.operand_values.iter().skip(at + 1).cloned().collect();
    let recursive = c.flags.iter().any(|f| f == "-r");
    match sub {
        "rm" | "mv" => {
            for v in rest {
                push(v, true, sub == "mv" || recursive);
            }
        }
        "restore" => {
            for v in rest {
                push(v, false, true);
            }
        }
        "checkout" => {
            if let Some(dd) = c.args.iter().position(|a| a == "--") {
                for v in c.values.iter().skip(dd + 1) {
                    push(v.clone(), false, true);
                }
            }
        }
        "clean" => {
            if rest.is_empty() {
                push(Value::text(".").below(), false, false);
            }
            for v in rest {
                push(v.below(), false, false);
            }
        }
        "clone" => match rest.as_slice() {
            [_, dir, ..] => push(dir.below(), false, false),
            _ => push(Value::text(".").below(), false, false),
        },
        "apply" | "am" => {
            let into = option_value(c, &[], &["--directory"]).unwrap_or_else(|| Value::text("."));
            let files: Vec<Value> = c
                .args
                .iter()
                .zip(&c.values)
                .skip_while(|(a, _)| a.as_str() != sub)
                .skip(1)
                .filter(|(a, _)| !a.starts_with('-'))
                .map(|(_, v)| v.clone())
                .collect();
            if files.is_empty() {
                push(into.below(), false, false);
            }
            for file in files {
                listed.push(Write {
                    value: into.below(),
                    by_name: false,
                    below: false,
                    through_links: false,
                    keeps: true,
                    listed: Some(Listing {
                        file,
                        kind: Kind::Patch,
                        into: into.clone(),
                        strip: 0,
                        absolute: false,
                        rename: Vec::new(),
                        unless_folder: false,
                    }),
                });
            }
        }
        _ => {}
    }
}

/// The value of an option (`-P DIR`, `-PDIR`, `--directory-prefix=DIR`,
/// `--directory-prefix DIR`), the last one given.
fn option_value(c: &SimpleCommand, short: &[&str], long: &[&str]) -> Option<Value> {
    let mut found = None;
    let mut i = 0;
    while let Some(a) = c.args.get(i) {
        if short.contains(&a.as_str()) || long.contains(&a.as_str()) {
            found = c.values.get(i + 1).cloned();
            i += 1;
        } else if let Some((name, v)) = a.split_once('=').filter(|(n, _)| long.contains(n)) {
            let _ = name;
            found = Some(Value::text(v));
        } else if let Some(s) = short
            .iter()
            .find(|s| a.len() > s.len() && a.starts_with(**s))
        {
            found = Some(Value::text(&a[s.len()..]));
        }
        i += 1;
    }
    found
}

/// The value glued to a short option (`-oDIR`).
fn glued(c: &SimpleCommand, option: &str) -> Option<Value> {
    c.args
        .iter()
        .rev()
        .find_map(|a| a.strip_prefix(option).filter(|v| !v.is_empty()))
        .map(Value::text)
}

/// A relative output under `--output-dir DIR` (curl).
fn in_dir(dir: Option<&Value>, v: &Value) -> Value {
    match dir {
        Some(d) if v.literal().is_some_and(|t| !t.starts_with('/')) => {
            join(d, &v.literal().unwrap_or_default())
        }
        _ => v.clone(),
    }
}

/// The known end of a path, from its last `/` on when that is in plain text
/// (`~/Downloads/kit/.claude` ends `/kit/.claude`; `$D/.claude` ends
/// `/.claude`), the same for every alternative; the whole path when it is
/// all text. None when a name is not known (`$X`, `a$X`).
fn tail_text(v: &Value) -> Option<String> {
    let mut tail: Option<String> = None;
    for s in &v.0 {
        let t = match s.0.as_slice() {
            [] => return None,
            [Piece::Text(t)] => t.clone(),
            [.., Piece::Text(t)] if t.trim_end_matches('/').contains('/') => {
                let trimmed = t.trim_end_matches('/');
                let cut = trimmed.rfind('/').unwrap_or(0);
                t[cut..].to_string()
            }
            _ => return None,
        };
        if tail.as_ref().is_some_and(|x| *x != t) {
            return None;
        }
        tail = Some(t);
    }
    tail
}

/// The last name of a literal path (`a/b/` is `b`).
fn basename(v: &Value) -> Option<String> {
    let t = v.literal()?;
    let name = t.trim_end_matches('/').rsplit('/').next()?;
    (!name.is_empty() && name != "." && name != "..").then(|| name.to_string())
}

/// `dir/name`, for every alternative of `dir`.
fn join(dir: &Value, name: &str) -> Value {
    let mut out = Value::default();
    for s in &dir.0 {
        let mut s = s.clone();
        s.push(Piece::Text(format!("/{name}")));
        out.add(s);
    }
    out
}
