//! Where a path really lands: its symbolic links followed, on the file system
//! and among the links the command itself makes a moment before.
//!
//! A repository that ships `out -> ../..` makes `rm -rf out/*` a deletion of
//! `/`; `ln -s ~/.ssh k && cat k/id_rsa` reads a key. [`Resolver::resolve`]
//! walks an absolute path component by component, the way the kernel does:
//! a component that is a link is replaced by the link's text (from `/` when it
//! is absolute, else from the folder the link is in), and `..` after a link
//! goes up from where the link led, not from where it was spelled.
//!
//! Choices:
//! * **The last component** is followed or not as the caller says: `open`
//!   follows it (reads, writes, `chmod`), `rm`, `mv`, `unlink` and `find`'s
//!   starting points act on the link itself. A trailing `/` makes it a folder
//!   the kernel must enter, so it is followed (`rm -rf out/` empties the
//!   target, as GNU rm does).
//! * **Bounded.** At most [`MAX_FOLLOWS`] links per path (Linux's own limit):
//!   a loop or a longer chain is [`Resolved::unknown`]. At most
//!   [`MAX_LOOKUPS`] `lstat`/`readlink` calls per event (the hook runs under a
//!   deadline, maybe on a network file system); each path prefix is looked up
//!   once per event ([`Resolver`] caches), so a command costs one `lstat` per
//!   distinct component. Past the budget a path is `unknown`, never taken as
//!   safe. `lstat` never opens a file: a FIFO or a device cannot block it.
//! * **Where the walk stops.** At a component that does not exist (the rest is
//!   appended as spelled; links the command made are still seen there), at one
//!   the hook may not look into (permission denied: judged as spelled), at a
//!   pattern (`*`, `?`, `[`: the names it matches are the shell's to find) and
//!   at `/proc`: `/proc/self`, `/dev/fd/N` and `/dev/stdout` name the process
//!   that opens them, which is the command, not the hook, so they stay as
//!   spelled.
//! * **Text, not bytes.** A link whose text is not UTF-8 is judged as spelled.
//! * **Hard links are the same file.** A file the command opens that has
//!   more than one name (`lstat`'s link count) is looked up, by device and
//!   inode, among the files of the places whose names matter
//!   ([`Resolver::same_file`]: the guarded places and the folders secrets are
//!   kept in, listed once per event and only when such a file is met): a
//!   project file that is a hard link to `~/.ssh/id_ed25519` is that key.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::shell::glob::{BRACKET, QUESTION, SOMETHING, STAR};
use crate::shell::value::Value;

/// Most links followed for one path (Linux's `MAXSYMLINKS`).
pub const MAX_FOLLOWS: usize = 40;

/// Most `lstat`/`readlink` calls for one event.
pub const MAX_LOOKUPS: usize = 256;

/// Paths longer than this are not looked up (`PATH_MAX`).
const MAX_PATH: usize = 4096;

/// Most names listed when looking for the other names of a hard-linked file
/// (one event): past it a name is not found, which judges the file by the
/// name the command gave (as before hard links were looked at).
pub const MAX_IDENTITIES: usize = 4096;

/// A file's identity on this machine: a hard link is another name for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    /// The device (`st_dev`).
    pub dev: u64,
    /// The inode (`st_ino`).
    pub ino: u64,
}

/// What the file system holds at a path, as far as the walk cares.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    /// Nothing (or a component on the way is not a folder).
    Missing,
    /// A folder.
    Folder,
    /// A file, a device, a FIFO: anything that is neither a folder nor a link.
    Other,
    /// A regular file with more than one name (hard links).
    Shared(FileId),
    /// A symbolic link, with its text.
    Link(String),
    /// A link made earlier in the same command whose target nobody can know.
    LinkUnknown,
    /// The hook may not look (permission denied, an I/O error, a link whose
    /// text is not UTF-8).
    Unseen,
    /// Not looked up: the event's budget is spent.
    OverBudget,
}

/// A link a command makes (`ln -s TARGET NAME`, `cp -s`, a hard link), as the
/// analysis knows it before the command runs: [`SimpleCommand::made`]
/// (`crate::shell::command::SimpleCommand`) lists those made earlier in the
/// same command line, and `shell::reach` places them on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MadeLink {
    /// The link's name as the command spells it (relative to `cwd`).
    pub name: Value,
    /// Where the command ran.
    pub cwd: Value,
    /// What the link holds, as written.
    pub target: Value,
    /// What a relative `target` is relative to.
    pub base: Base,
    /// Whether the link is `name` or goes into the folder `name`.
    pub place: Place,
}

/// Where a link goes, given the name a command gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// At the name itself (`ln -sT T L`, `link T L`).
    Name,
    /// Into the folder of that name, named after the target (`ln -s T DIR/`,
    /// `ln -t DIR T…`, `ln -s T` into the working folder).
    Folder,
    /// Into it when it is a folder on disk, else at the name (`ln -s T L`).
    AsDisk,
}

/// What a link's relative target is relative to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// The folder the link is in (a symbolic link's text).
    LinkFolder,
    /// The folder the command ran in (`ln -r`, a hard link: the command
    /// opened the target there).
    Cwd(Value),
}

/// A link the command makes before the path is used (`ln -s T L`), placed on
/// this machine: an absolute path and the link's text (`None`: not known
/// before it runs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Made {
    /// Where the link is (absolute, its folders resolved).
    pub path: String,
    /// What it holds: an absolute path, or one relative to the link's folder.
    pub to: Option<String>,
}

/// A path after its links were followed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The path the kernel would reach (normalised, absolute).
    pub path: String,
    /// Some link was followed on the way.
    pub followed: bool,
    /// Where it lands cannot be known before the command runs: a loop, a
    /// chain longer than [`MAX_FOLLOWS`], a link to an unknown place, or a
    /// lookup past the event's budget.
    pub unknown: bool,
    /// The path is a folder on disk (after following its links).
    pub is_folder: bool,
    /// The last component is a regular file with other names (hard links):
    /// its identity, to find them ([`Resolver::same_file`]).
    pub shared: Option<FileId>,
}

/// Follows links for one event, remembering every lookup.
///
/// Cloning shares the cache (one event, one view of the file system).
#[derive(Clone)]
pub struct Resolver {
    inner: Arc<Mutex<Inner>>,
}

struct Inner {
    enabled: bool,
    nodes: HashMap<String, Node>,
    lookups: usize,
    /// The names of the files in the places whose names matter, by
    /// identity: listed when a hard-linked file is first met.
    identities: Option<HashMap<FileId, String>>,
}

impl Default for Resolver {
    fn default() -> Self {
        Resolver::new(true)
    }
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("Resolver")
            .field("enabled", &inner.enabled)
            .field("lookups", &inner.lookups)
            .finish_non_exhaustive()
    }
}

impl Resolver {
    /// A resolver that looks at the file system (`enabled`), or one that
    /// only sees the links a command makes (for callers that must not touch
    /// the disk).
    #[must_use]
    pub fn new(enabled: bool) -> Resolver {
        Resolver {
            inner: Arc::new(Mutex::new(Inner {
                enabled,
                nodes: HashMap::new(),
                lookups: 0,
                identities: None,
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Is the last component of this absolute, normalised path a link (on
    /// disk; one cached lookup)?
    #[must_use]
    pub fn is_link(&self, path: &str) -> bool {
        matches!(self.lock().lookup(path), Node::Link(_))
    }

    /// How many `lstat`/`readlink` calls this event made so far.
    #[must_use]
    pub fn lookups(&self) -> usize {
        self.lock().lookups
    }

    /// Follow the links of an absolute path (it may hold `.`, `..`, `//` and
    /// pattern markers). `follow_last`: the last component is followed too
    /// (a trailing `/` always makes it so). `made`: links the command made
    /// before this use, latest last; they hide what the disk holds there.
    #[must_use]
    pub fn resolve(&self, path: &str, follow_last: bool, made: &[Made]) -> Resolved {
        let mut out: Vec<String> = Vec::new();
        // Components still to walk, last first.
        let mut todo: Vec<String> = components_reversed(path);
        let mut followed = false;
        let mut unknown = false;
        let mut follows = 0usize;
        // Past a missing component only the command's own links can exist.
        let mut on_disk = true;
        let mut is_folder = false;
        let mut shared = None;
        let mut inner = self.lock();
        while let Some(c) = todo.pop() {
            match c.as_str() {
                "" | "." => continue,
                ".." => {
                    out.pop();
                    continue;
                }
                _ => {}
            }
            is_folder = false;
            shared = None;
            if c.contains([STAR, QUESTION, BRACKET, SOMETHING]) {
                out.push(c);
                append_lexically(&mut out, todo);
                break;
            }
            // A trailing `/` left an empty component: not the last one.
            if todo.is_empty() && !follow_last {
                out.push(c);
                break;
            }
            // Past the part that exists, with no link made by the line, what
            // is left is as spelled (and costs no join per component: a path
            // of 50,000 components is linear, not quadratic).
            if !on_disk && made.is_empty() {
                out.push(c);
                continue;
            }
            let here = joined(&out, &c);
            let node = match made.iter().rev().find(|m| m.path == here) {
                Some(m) => match &m.to {
                    Some(t) => Node::Link(t.clone()),
                    None => Node::LinkUnknown,
                },
                None if on_disk => inner.lookup(&here),
                None => Node::Missing,
            };
            match node {
                Node::Folder => {
                    is_folder = true;
                    out.push(c);
                }
                Node::Other => out.push(c),
                Node::Shared(id) => {
                    shared = Some(id);
                    out.push(c);
                }
                Node::Missing => {
                    on_disk = false;
                    out.push(c);
                }
                Node::Unseen => {
                    out.push(c);
                    append_lexically(&mut out, todo);
                    break;
                }
                Node::OverBudget | Node::LinkUnknown => {
                    unknown = true;
                    out.push(c);
                    append_lexically(&mut out, todo);
                    break;
                }
                Node::Link(to) => {
                    let from_proc = |p: &str| p == "/proc" || p.starts_with("/proc/");
                    let target_abs = to.starts_with('/');
                    if from_proc(&here) || target_abs && from_proc(&normal(&to)) {
                        // `/dev/stdout -> /proc/self/fd/1`: the command's own.
                        out.push(c);
                        continue;
                    }
                    follows += 1;
                    if follows > MAX_FOLLOWS {
                        unknown = true;
                        out.push(c);
                        append_lexically(&mut out, todo);
                        break;
                    }
                    followed = true;
                    if target_abs {
                        out.clear();
                    }
                    todo.extend(components_reversed(&to));
                }
            }
        }
        Resolved {
            path: format!("/{}", out.join("/")),
            followed,
            unknown,
            is_folder: is_folder || out.is_empty(),
            shared,
        }
    }

    /// Another name of the file `id` among `places` (absolute folders, whose
    /// files are listed, and files), `None` when it has none there. The
    /// places are listed once per event, the first time this is asked, and
    /// only their own entries (no descent): a `readdir` gives each entry's
    /// inode without opening it, and a hard link lies on the same device as
    /// the file, so an entry counts when its folder is on `id`'s device.
    /// At most [`MAX_IDENTITIES`] names are kept.
    #[must_use]
    pub fn same_file(&self, id: FileId, places: impl FnOnce() -> Vec<String>) -> Option<String> {
        let mut inner = self.lock();
        if !inner.enabled {
            return None;
        }
        inner
            .identities
            .get_or_insert_with(|| identities(&places()))
            .get(&id)
            .cloned()
    }
}

/// The files at `places` (a folder's entries, or the file itself), by
/// identity; the first name of a file wins.
fn identities(places: &[String]) -> HashMap<FileId, String> {
    use std::os::unix::fs::{DirEntryExt, MetadataExt};
    let mut out: HashMap<FileId, String> = HashMap::new();
    let add = |out: &mut HashMap<FileId, String>, id: FileId, path: String| {
        if out.len() < MAX_IDENTITIES {
            out.entry(id).or_insert(path);
        }
    };
    for place in places {
        let Ok(m) = std::fs::symlink_metadata(place) else {
            continue;
        };
        let dev = m.dev();
        if m.is_file() {
            add(&mut out, FileId { dev, ino: m.ino() }, place.clone());
            continue;
        }
        if !m.is_dir() {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(place) else {
            continue;
        };
        for e in entries.take(MAX_IDENTITIES).flatten() {
            if out.len() >= MAX_IDENTITIES {
                return out;
            }
            // A folder or a link is not a hard link to a file; `d_type`
            // answers without a `stat` on most file systems.
            if e.file_type().is_ok_and(|t| t.is_dir() || t.is_symlink()) {
                continue;
            }
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            let path = format!("{}/{name}", place.trim_end_matches('/'));
            add(&mut out, FileId { dev, ino: e.ino() }, path);
        }
    }
    out
}

impl Inner {
    /// What is at `path`, from the cache or one `lstat` (and a `readlink` for
    /// a link).
    fn lookup(&mut self, path: &str) -> Node {
        if !self.enabled {
            return Node::Missing;
        }
        if let Some(n) = self.nodes.get(path) {
            return n.clone();
        }
        if path.len() > MAX_PATH {
            return Node::Unseen;
        }
        if self.lookups >= MAX_LOOKUPS {
            return Node::OverBudget;
        }
        self.lookups += 1;
        let node = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_symlink() => {
                if self.lookups >= MAX_LOOKUPS {
                    return Node::OverBudget;
                }
                self.lookups += 1;
                match std::fs::read_link(path) {
                    Ok(t) => match t.into_os_string().into_string() {
                        Ok(s) if !s.is_empty() => Node::Link(s),
                        _ => Node::Unseen,
                    },
                    Err(_) => Node::Unseen,
                }
            }
            Ok(m) if m.is_dir() => Node::Folder,
            Ok(m) if m.is_file() && std::os::unix::fs::MetadataExt::nlink(&m) > 1 => {
                Node::Shared(FileId {
                    dev: std::os::unix::fs::MetadataExt::dev(&m),
                    ino: std::os::unix::fs::MetadataExt::ino(&m),
                })
            }
            Ok(_) => Node::Other,
            Err(e) => match e.kind() {
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory => Node::Missing,
                _ => Node::Unseen,
            },
        };
        self.nodes.insert(path.to_string(), node.clone());
        node
    }
}

/// The components of `path`, last first; a trailing `/` leaves an empty one.
fn components_reversed(path: &str) -> Vec<String> {
    let mut v: Vec<String> = path.split('/').map(str::to_string).collect();
    // `a/b` splits to [a, b]; `/a/b` to ["", a, b]; `a/` to [a, ""].
    if path.starts_with('/') {
        v.remove(0);
    }
    v.reverse();
    v
}

/// Append what is left of a walk as spelled (`..` still goes up).
fn append_lexically(out: &mut Vec<String>, mut todo: Vec<String>) {
    while let Some(c) = todo.pop() {
        match c.as_str() {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            _ => out.push(c),
        }
    }
}

fn joined(out: &[String], c: &str) -> String {
    let mut s = String::with_capacity(out.iter().map(|x| x.len() + 1).sum::<usize>() + c.len() + 1);
    for x in out {
        s.push('/');
        s.push_str(x);
    }
    s.push('/');
    s.push_str(c);
    s
}

/// An absolute path with `.`, `..` and `//` resolved lexically.
fn normal(p: &str) -> String {
    let mut out = Vec::new();
    append_lexically(&mut out, components_reversed(p));
    format!("/{}", out.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn made(path: &str, to: Option<&str>) -> Made {
        Made {
            path: path.into(),
            to: to.map(str::to_string),
        }
    }

    #[test]
    fn follows_links_on_disk_and_goes_up_from_where_they_lead() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let root = root.to_str().unwrap();
        std::fs::create_dir_all(format!("{root}/p/real/sub")).unwrap();
        symlink("../..", format!("{root}/p/real/sub/up")).unwrap();
        symlink("real/sub", format!("{root}/p/out")).unwrap();
        let r = Resolver::default();
        let got = r.resolve(&format!("{root}/p/out/x"), true, &[]);
        assert_eq!(got.path, format!("{root}/p/real/sub/x"));
        assert!(got.followed && !got.unknown);
        // `..` after a link leaves from where it led.
        assert_eq!(
            r.resolve(&format!("{root}/p/out/../y"), true, &[]).path,
            format!("{root}/p/real/y")
        );
        assert_eq!(
            r.resolve(&format!("{root}/p/out/up/q"), true, &[]).path,
            format!("{root}/p/q")
        );
        // The last component: as asked, unless a `/` follows it.
        assert_eq!(
            r.resolve(&format!("{root}/p/out"), false, &[]).path,
            format!("{root}/p/out")
        );
        assert_eq!(
            r.resolve(&format!("{root}/p/out/"), false, &[]).path,
            format!("{root}/p/real/sub")
        );
        // A pattern stops the walk; what comes before it is followed.
        let star = format!("{root}/p/out/{STAR}");
        assert_eq!(
            r.resolve(&star, false, &[]).path,
            format!("{root}/p/real/sub/{STAR}")
        );
    }

    #[test]
    fn loops_and_long_chains_are_unknown_and_lookups_are_bounded() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let root = root.to_str().unwrap();
        symlink("b", format!("{root}/a")).unwrap();
        symlink("a", format!("{root}/b")).unwrap();
        let r = Resolver::default();
        let got = r.resolve(&format!("{root}/a/x"), true, &[]);
        assert!(got.unknown, "{got:?}");
        // Each prefix is looked up once per event, the loop included.
        let before = r.lookups();
        let again = r.resolve(&format!("{root}/a/x"), true, &[]);
        assert_eq!(r.lookups(), before);
        assert_eq!(again, got);
        // The event's budget ends as unknown, not as the spelled path.
        for i in 0..MAX_LOOKUPS {
            let _ = r.resolve(&format!("{root}/missing-{i}"), true, &[]);
        }
        let late = r.resolve(&format!("{root}/a"), true, &[]);
        assert!(late.unknown);
        let fresh = r.resolve(&format!("{root}/never-seen/x"), true, &[]);
        assert!(fresh.unknown, "{fresh:?}");
    }

    #[test]
    fn links_the_command_made_count_even_where_the_disk_has_nothing() {
        let r = Resolver::new(false);
        let m = [made("/w/p/out", Some("../.."))];
        assert_eq!(r.resolve("/w/p/out/x", true, &m).path, "/x");
        // Made inside a folder the command also made (missing on disk).
        let m = [made("/w/p/new/k", Some("/home/u/.ssh"))];
        assert_eq!(
            r.resolve("/w/p/new/k/id_rsa", true, &m).path,
            "/home/u/.ssh/id_rsa"
        );
        // The latest link at a path wins; an unknown target is unknown.
        let m = [made("/w/o", Some("/tmp")), made("/w/o", None)];
        assert!(r.resolve("/w/o/x", true, &m).unknown);
        // /proc is the command's own view.
        let m = [made("/w/so", Some("/proc/self/fd/1"))];
        assert_eq!(r.resolve("/w/so", true, &m).path, "/w/so");
    }

    #[test]
    fn a_hard_link_is_found_among_the_places_that_matter() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let root = root.to_str().unwrap();
        std::fs::create_dir_all(format!("{root}/h/.ssh")).unwrap();
        std::fs::create_dir_all(format!("{root}/p")).unwrap();
        std::fs::write(format!("{root}/h/.ssh/id_rsa"), "k").unwrap();
        std::fs::write(format!("{root}/p/plain"), "x").unwrap();
        std::fs::hard_link(format!("{root}/h/.ssh/id_rsa"), format!("{root}/p/k")).unwrap();
        let r = Resolver::default();
        let places = || vec![format!("{root}/h"), format!("{root}/h/.ssh")];
        let got = r.resolve(&format!("{root}/p/k"), true, &[]);
        let id = got.shared.expect("two names");
        assert_eq!(
            r.same_file(id, places),
            Some(format!("{root}/h/.ssh/id_rsa"))
        );
        // A file with one name has no identity to look up.
        assert_eq!(
            r.resolve(&format!("{root}/p/plain"), true, &[]).shared,
            None
        );
        // The places are listed once: a later question does not list again.
        assert_eq!(
            r.same_file(id, Vec::new),
            Some(format!("{root}/h/.ssh/id_rsa"))
        );
        // A resolver that must not touch the disk finds nothing.
        assert_eq!(Resolver::new(false).same_file(id, places), None);
    }

    #[test]
    fn a_fifo_is_looked_at_not_opened() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().canonicalize().unwrap();
        let fifo = root.join("f");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let r = Resolver::default();
        let got = r.resolve(fifo.to_str().unwrap(), true, &[]);
        assert_eq!(got.path, fifo.to_str().unwrap());
    }
}
