//! A compiled set stored on disk, so `run` reads the rules one event reaches
//! instead of parsing, validating and compiling every policy on every call.
//!
//! One file per policy search (`--policies`, `HOOKRULES_POLICIES`, or the layers
//! of one project and user), in the cache folder. It is never trusted as is:
//!
//! - **fresh**: it records what it was built from (each policy file and each
//!   folder searched: device, inode, size, modification and change times; a
//!   folder or file that was absent), and the hookrules binary that built it. A
//!   `stat` of each must give the same answer, else it is rebuilt. Files changed
//!   within two seconds of a build are not cached at all (their time stamps
//!   cannot tell a second change in the same tick);
//! - **the user's own**: the header and every record carry a 128-bit tag that
//!   only the holder of the user's key can compute: SipHash-2-4-128 under keys
//!   derived from the per-user key by HMAC-SHA256 (`os::state::FastMac`; the key
//!   is in the user's state folder). The header's tag covers the header; a
//!   record's tag covers the header's tag, what the record is (rule N, list
//!   N, or a record an authenticated span points to), its offset and its
//!   bytes, and is checked when the record is read. Anything that
//!   does not check out (a changed byte with every hash recomputed, a truncated
//!   file, another set's or another user's file, a folder or FIFO in its place)
//!   makes `run` build the set from the policies, exactly as without a cache,
//!   and replace the file. A file whose header is well-formed but whose tag does
//!   not verify is also recorded as an integrity event (`doctor` reports it):
//!   hookrules never writes one.
//!
//! Why per record, and not one MAC over the file: `run` reads only the records
//! one event reaches (tens of kilobytes of a set that can be megabytes), so the
//! MAC is computed over exactly the bytes that are read, and its cost grows with
//! what the event needs, not with the set. A record's tag is bound to the
//! header's, so records cannot be moved between artifacts. The spans of the
//! rules and lists are in an index after the records, which no tag covers:
//! each rule's and list's record is bound to its number instead, so a span
//! changed in the index leads to a record that does not verify, and `run`
//! reads only the spans of the rules it evaluates (in the header, the
//! 10k-rule bench set's spans were 134 KB that every event authenticated and
//! decoded: ~1.3M instructions). Why SipHash and not
//! HMAC-SHA256 for the bytes: HMAC-SHA256 over those bytes doubled `run`'s
//! instructions for a cached project set under `bench/callgrind.sh` (software
//! SHA-256, ~25 instructions a byte, as on CPUs without the SHA extensions);
//! SipHash-2-4 is a PRF made for authenticating data under a 128-bit secret key
//! at a few instructions a byte, and its keys come from the user's key through
//! HMAC-SHA256, never stored. The key file is read once per process.
//!
//! The built-in pack alone (no policy in any layer, the most common case) needs
//! no file at all: its artifact is generated ahead of time into
//! `policies/builtin.hrset` (`HOOKRULES_BLESS=1 cargo test --test process embedded::`),
//! embedded in the binary and read by the same reader ([`Bytes`]). Instead of
//! stamps it records its key, the format's version ([`FORMAT_VERSION`]) and a
//! hash of the built-in policies' text ([`EMBEDDED_KEY`]): a binary whose key
//! differs never uses it, and compiles the pack as without it.
//!
//! The embedded pack is part of the binary and needs no key: its header and
//! records carry a public 128-bit hash ([`hash`]), which detects damage; whoever
//! can change the binary can change anything.
//!
//! Layout: `MAGIC`, header length (u32), header hash (u128), header (postcard),
//! then records, each a hash (u128) and a postcard body: one per event entry
//! of the reach table (which holds the spans of its groups of rules, one
//! record each, and a group's large lists in records of their own, see
//! below), one per rule, one per pattern list or named condition, one
//! per policy's head (its name, modes and the span of its facts) and one per
//! policy's facts, and the layering notes; then the index (the span of each
//! rule, then of each list, then of each policy's head: offset u64 and length
//! u32). A policy's head is read only when the event reaches one of its rules
//! (in the header, the 10k-rule bench set's 200 heads were half of the bytes
//! every event authenticated and most of what it decoded).
//!
//! A group's record holds its prefilter; its rules' numbers, the pieces of
//! its program names and literals (one per first byte) and the rules of a
//! command that does not parse or of a text too large to search are records
//! of their own (`flat::Part`), read only by an event that uses them: the
//! 10k-rule bench set's Bash group was one record of 131 KB that every Bash
//! event authenticated (~0.56M instructions) to look at a few entries.
//!
//! A rule's record starts with its gate (`reach::gate`: the program atoms,
//! with the flags and arguments they ask for, that `run` judges before it
//! reads the rest); then the numbers of the pattern lists and named
//! conditions it uses (its lists and `ref`s are numbers into the list
//! records, see `validate::patterns::stored`) and the rule, in a record of
//! their own when it has a gate (a rule its gate leaves out costs the gate's
//! bytes: the 10k-rule bench set's `npm test` reached 82 rules by their
//! program and judged 31); a list's record holds its patterns and their
//! required literals (`patterns::StoredList`), a named condition's the
//! numbers it uses and its body; each is read once per process.
//!
//! The header's stamps are read where they lie ([`Stamps`]).

use crate::os::env::Env;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use super::flat::{Body, Keyed, Parts, Span, Texts, Word, Words};
use super::patterns::StoredList;
use super::provenance::Provenance;
use super::reach::{
    self, CommandPaths, EventEntry, Gate, GateView, Reached, RuleId, Shells, StoredEntry,
};
use super::set::{assemble, CompiledSet, Query, SetRule};
use super::Compiled;
use crate::contract::Event;
use crate::os::clock::Zone;
use crate::os::state::{FastMac, UserKey};
use crate::policy::discover::{Discovery, PROJECT_POLICY_DIR};
use crate::policy::log::LogTable;
use crate::policy::syntax::{CombineMode, FailureMode, UnparsableCommand};
use crate::source::{Layer, Origin, PolicySource};
use crate::validate::model::{Fact, NamedCondition, Policy};
use crate::validate::patterns::stored::{self, List, Numbering};

const MAGIC: &[u8; 8] = b"HRSET011";
/// The purpose the user's key is used for here (see `os::state`).
const CACHE_PURPOSE: &str = "hookrules cache v1";
/// Files whose time stamps are this close to the build are not cached (ns).
const RACY_NS: i128 = 2_000_000_000;
/// Largest artifact read (bytes).
const MAX_ARTIFACT: u64 = 1 << 30;

/// The built-in pack, compiled ahead of time (see the module's documentation).
pub static EMBEDDED: &[u8] = include_bytes!("../../policies/builtin.hrset");
/// What the embedded artifact records as its search.
const EMBEDDED_SEARCH: &str = "the built-in pack";
/// The version of what the compiler writes for a given policy text: the
/// layout of the stored types (a field, a variant, their order) and the
/// compiled values themselves (the prefilter's atoms, a list's literals).
///
/// This is the contract that keys the embedded pack ([`EMBEDDED_KEY`]):
/// together with the built-in policies' text it must determine the bytes of
/// `policies/builtin.hrset`. A change to the compiler that changes those bytes
/// for the same policies bumps it (`tests/process/embedded.rs` fails, and refuses to
/// re-bless, until it does), so a pack generated by another compiler is never
/// read as current; a change that does not (a comment, a refactor, a new
/// function) needs neither a bump nor a re-bless. Cache files are keyed by the
/// binary that built them and do not depend on it.
pub const FORMAT_VERSION: u32 = 19;

/// What the embedded artifact records as its builder: the format's version and
/// a hash of the built-in policies' names and texts, exactly as the pack is
/// compiled from them ([`discover::BUILTIN`](crate::policy::discover::BUILTIN)
/// and the opt-in packs they may extend), computed when hookrules is compiled.
pub const EMBEDDED_KEY: &str = match std::str::from_utf8(&embedded_key::BYTES) {
    Ok(key) => key,
    Err(_) => panic!("the embedded key is ASCII"),
};

/// [`EMBEDDED_KEY`], built at compile time: `format VVVVVVVV policies HASH`
/// (hexadecimal), so `run` compares it without computing anything.
mod embedded_key {
    use crate::policy::discover::{BUILTIN, OPT_IN};

    const HEAD: &[u8] = b"format ";
    const MID: &[u8] = b" policies ";
    const LEN: usize = HEAD.len() + 8 + MID.len() + 32;

    pub(super) const BYTES: [u8; LEN] =
        key(super::FORMAT_VERSION, policies_hash(&[BUILTIN, OPT_IN]));

    /// FNV-1a, 128 bits, over each name and text, each preceded by its length.
    pub(super) const fn policies_hash(packs: &[&[(&str, &str)]]) -> u128 {
        let mut h: u128 = 0x6c62272e07bb014262b821756295c58d;
        let mut p = 0;
        while p < packs.len() {
            let mut i = 0;
            while i < packs[p].len() {
                let (name, text) = packs[p][i];
                h = eat(h, name.as_bytes());
                h = eat(h, text.as_bytes());
                i += 1;
            }
            p += 1;
        }
        h
    }

    const fn eat(mut h: u128, bytes: &[u8]) -> u128 {
        const PRIME: u128 = 0x0000000001000000000000000000013B;
        h = (h ^ bytes.len() as u128).wrapping_mul(PRIME);
        let mut i = 0;
        while i < bytes.len() {
            h = (h ^ bytes[i] as u128).wrapping_mul(PRIME);
            i += 1;
        }
        h
    }

    const fn key(version: u32, hash: u128) -> [u8; LEN] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; LEN];
        let mut at = 0;
        let mut i = 0;
        while i < HEAD.len() {
            out[at] = HEAD[i];
            (at, i) = (at + 1, i + 1);
        }
        i = 0;
        while i < 8 {
            out[at] = HEX[((version >> (28 - 4 * i)) & 0xf) as usize];
            (at, i) = (at + 1, i + 1);
        }
        i = 0;
        while i < MID.len() {
            out[at] = MID[i];
            (at, i) = (at + 1, i + 1);
        }
        i = 0;
        while i < 32 {
            out[at] = HEX[((hash >> (124 - 4 * i)) & 0xf) as usize];
            (at, i) = (at + 1, i + 1);
        }
        out
    }
}

/// A compiled set, ready to answer events.
#[derive(Debug)]
pub enum Loaded {
    /// Built in this process.
    Built(Box<CompiledSet>),
    /// Read from a verified artifact (a cache file, or the built-in pack
    /// embedded in the binary), record by record.
    Stored(Box<Artifact>),
}

/// Where `run`'s compiled set came from (for `doctor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetOrigin {
    /// Compiled from the policies in this process.
    Built,
    /// The built-in pack compiled into the binary.
    Embedded,
    /// A cache file.
    Cache(PathBuf),
}

impl Loaded {
    /// The failure mode when no event can be evaluated.
    pub fn failure(&self) -> FailureMode {
        match self {
            Loaded::Built(s) => s.failure,
            Loaded::Stored(a) => a.header.failure,
        }
    }

    /// The `[log]` tables of the set, in load order.
    pub fn log_tables(&self) -> &[LogTable] {
        match self {
            Loaded::Built(s) => &s.log,
            Loaded::Stored(a) => &a.header.log,
        }
    }

    /// The SHA-256 of the policies the set was built from, and its bundles.
    pub fn provenance(&self) -> &Provenance {
        match self {
            Loaded::Built(s) => &s.provenance,
            Loaded::Stored(a) => &a.header.provenance,
        }
    }

    /// Where the set came from.
    pub fn origin(&self) -> SetOrigin {
        match self {
            Loaded::Built(_) => SetOrigin::Built,
            Loaded::Stored(a) => match &a.bytes {
                Bytes::Static(_) => SetOrigin::Embedded,
                Bytes::File(_, path) => SetOrigin::Cache(path.clone()),
            },
        }
    }

    /// What `run` evaluates for one event: its bucket, prefiltered (`paths`:
    /// the paths commands name, as evaluation sees them). An artifact record
    /// that does not verify falls back to building the set.
    pub fn for_event(
        &self,
        event: &Event,
        fallback: &dyn Fn() -> CompiledSet,
        paths: &dyn CommandPaths,
    ) -> Compiled {
        let query = Query {
            prefilter: true,
            explain: false,
        };
        match self {
            Loaded::Built(s) => s.for_event_with(event, query, Some(paths)),
            Loaded::Stored(a) => match a.for_event(event, paths) {
                Some(c) => c,
                None => fallback().for_event_with(event, query, Some(paths)),
            },
        }
    }
}

/// What a set was built from, as `stat` saw it when it was built.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    path: String,
    meta: Option<Meta>,
}

/// (device, inode, size, mtime ns, ctime ns); None when absent.
type Meta = (u64, u64, u64, i128, i128);

/// `stat` of `path`, as `std::fs::metadata` reads it (links followed).
///
/// With glibc, a call of `stat64` itself: `run` checks the stamp of each
/// policy file on every event, and `std::fs::metadata` (a `statx`, its
/// result converted, a copy of the path made C's) cost ~300 instructions
/// a path (~60k for the 204 stamps of the 10,000-rule bench set; callgrind).
/// The same fields, the same values; `stat64` is a symbol the binary binds
/// anyway (the standard library's fallback).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn meta_of(path: &Path) -> Option<Meta> {
    use std::os::unix::ffi::OsStrExt;
    let mut c = path.as_os_str().as_bytes().to_vec();
    c.push(0);
    meta_of_c(&c)
}

/// [`meta_of`] the path whose bytes, then a NUL, are `path` (as C takes it).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
// The fields' types differ between targets (32-bit ones have 32-bit times).
#[allow(clippy::useless_conversion)]
fn meta_of_c(path: &[u8]) -> Option<Meta> {
    // A path with a NUL byte has no `stat` (as `std` says too).
    let name = std::ffi::CStr::from_bytes_with_nul(path).ok()?;
    let mut st = std::mem::MaybeUninit::<libc::stat64>::uninit();
    // SAFETY: `name` is NUL-terminated and `st` is room for a `stat64`,
    // which the call fills when it returns 0.
    if unsafe { libc::stat64(name.as_ptr(), st.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: filled (above).
    let st = unsafe { st.assume_init() };
    let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
    Some((
        u64::from(st.st_dev),
        u64::from(st.st_ino),
        st.st_size as u64,
        ns(i64::from(st.st_mtime), i64::from(st.st_mtime_nsec)),
        ns(i64::from(st.st_ctime), i64::from(st.st_ctime_nsec)),
    ))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn meta_of_c(path: &[u8]) -> Option<Meta> {
    use std::os::unix::ffi::OsStrExt;
    let path = path.strip_suffix(&[0])?;
    if path.contains(&0) {
        return None;
    }
    meta_of(Path::new(std::ffi::OsStr::from_bytes(path)))
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn meta_of(path: &Path) -> Option<Meta> {
    std::fs::metadata(path).ok().map(|m| {
        (
            m.dev(),
            m.ino(),
            m.size(),
            i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
        )
    })
}

impl Stamp {
    /// The stamp of `path`; `None` when its name is not UTF-8 (a header
    /// holds text: such a set is not cached).
    fn of(path: &Path) -> Option<Stamp> {
        Some(Stamp {
            path: path.to_str()?.to_string(),
            meta: meta_of(path),
        })
    }
}

/// A header's stamps, checked where they lie in its bytes: each path
/// front-coded (how many bytes it shares with the path before it, then the
/// rest: the policy files of a folder share its name), and what `stat` said
/// of each, fixed-width ([`Seen`]), compared as bytes. (Decoded into a list
/// of paths and tuples of varints, the 10,000-rule bench set's 204 stamps
/// cost ~0.13M instructions on every event, and their paths, whole, were
/// 11 KB of the header every event authenticates.)
#[derive(Debug, Default, Serialize, Deserialize)]
struct Stamps<'a> {
    #[serde(borrow)]
    shared: Words<'a, u32>,
    #[serde(borrow)]
    rests: Texts<'a>,
    #[serde(borrow)]
    seen: Words<'a, Seen>,
}

impl Stamps<'static> {
    fn new(stamps: &[Stamp]) -> Stamps<'static> {
        let mut before = "";
        let mut shared = vec![];
        let mut rests = vec![];
        for s in stamps {
            let mut n = before
                .bytes()
                .zip(s.path.bytes())
                .take_while(|(a, b)| a == b)
                .count();
            while !s.path.is_char_boundary(n) {
                n -= 1;
            }
            shared.push(n as u32);
            rests.push(&s.path[n..]);
            before = &s.path;
        }
        Stamps {
            shared: shared.into_iter().collect(),
            rests: rests.into_iter().collect(),
            seen: stamps.iter().map(|s| Seen::of(s.meta)).collect(),
        }
    }
}

impl Stamps<'_> {
    /// Does `stat` still see what it saw, of every path? (A damaged list
    /// does not hold.)
    fn hold(&self) -> bool {
        let (shared, seen) = (self.shared.run(), self.seen.run());
        if shared.len() != self.rests.len() || seen.len() != self.rests.len() {
            return false;
        }
        // The paths' bytes, as `stat` takes them (checked to be UTF-8 one
        // by one, the 10,000-rule bench set's 204 paths cost ~25k
        // instructions more than the whole list checked when decoded),
        // made where they are, each followed by the NUL C wants (copied
        // to add it, ~6k instructions more).
        let mut path: Vec<u8> = vec![0];
        for ((n, rest), was) in shared.iter().zip(self.rests.iter_bytes()).zip(seen.iter()) {
            path.pop();
            if n as usize > path.len() {
                return false;
            }
            path.truncate(n as usize);
            path.extend_from_slice(rest);
            path.push(0);
            if Seen::of(meta_of_c(&path)) != was {
                return false;
            }
        }
        true
    }
}

/// What `stat` said of a path, fixed-width: present (1) or absent (0), then
/// device, inode, size (u64) and modification and change times (ns, i128),
/// little-endian.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Seen([u8; 57]);

impl Seen {
    fn of(meta: Option<Meta>) -> Seen {
        let mut b = [0u8; 57];
        if let Some((dev, ino, size, mtime, ctime)) = meta {
            b[0] = 1;
            b[1..9].copy_from_slice(&dev.to_le_bytes());
            b[9..17].copy_from_slice(&ino.to_le_bytes());
            b[17..25].copy_from_slice(&size.to_le_bytes());
            b[25..41].copy_from_slice(&mtime.to_le_bytes());
            b[41..57].copy_from_slice(&ctime.to_le_bytes());
        }
        Seen(b)
    }
}

impl Word for Seen {
    const SIZE: usize = 57;
    fn read(bytes: &[u8]) -> Self {
        let mut b = [0u8; 57];
        b.copy_from_slice(&bytes[..57]);
        Seen(b)
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0);
    }
}

/// What a policy brings to the rules of it an event reaches (its record,
/// [`Role::Policy`]).
#[derive(Debug, Serialize, Deserialize)]
struct PolicyHead {
    name: String,
    display: String,
    layer: Layer,
    builtin: Option<String>,
    failure: FailureMode,
    combine: CombineMode,
    unparsable: UnparsableCommand,
    /// `time_zone = "utc"` (else local).
    utc: bool,
    facts: Span,
}

/// An artifact's header. Its lists of spans (one per rule, list and event)
/// are read in place ([`super::flat`]): the embedded pack's borrow the
/// binary's bytes; a cache file's own a copy of them.
#[derive(Debug, Serialize, Deserialize)]
struct Header<'a> {
    search: String,
    /// What built it: the hookrules binary (a cache file), or the format's
    /// version and the policies' text (the embedded pack, [`EMBEDDED_KEY`]).
    binary: String,
    #[serde(borrow)]
    stamps: Stamps<'a>,
    failure: FailureMode,
    /// How many rules (numbered from 0), pattern lists (by number) and
    /// policies (in load order) the index holds.
    rules: u32,
    lists: u32,
    policies: u32,
    /// Where the index is (after the records): the span of each rule, then
    /// of each list, then of each policy's head, fixed-width ([`Span`]s).
    index: u64,
    /// Each event's entry (one span each), by name.
    #[serde(borrow)]
    events: Keyed<'a, Span>,
    other: Span,
    notes: Span,
    /// The `[log]` tables and the provenance, for the decision log.
    log: Vec<LogTable>,
    provenance: Provenance,
}

impl Header<'_> {
    /// The same header, owning its lists; its stamps, checked by then
    /// ([`Artifact::verify`]), are left behind.
    fn into_owned(self) -> Header<'static> {
        Header {
            rules: self.rules,
            lists: self.lists,
            policies: self.policies,
            index: self.index,
            events: self.events.into_owned(),
            search: self.search,
            binary: self.binary,
            stamps: Stamps::default(),
            failure: self.failure,
            other: self.other,
            notes: self.notes,
            log: self.log,
            provenance: self.provenance,
        }
    }

    /// How many spans the index holds.
    fn spans(&self) -> u64 {
        u64::from(self.rules) + u64::from(self.lists) + u64::from(self.policies)
    }

    /// What the record of span `n` of the index is.
    fn role(&self, n: u32) -> Option<Role> {
        if n < self.rules {
            return Some(Role::Rule(n));
        }
        let n = n - self.rules;
        if n < self.lists {
            return Some(Role::List(n));
        }
        let n = n - self.lists;
        (n < self.policies).then_some(Role::Policy(n))
    }

    /// The span of an event's entry.
    fn event(&self, name: &str) -> Option<Span> {
        self.events.get(name).and_then(|spans| spans.get(0))
    }

    /// Every event entry's span, the one for other events last.
    fn event_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.events
            .iter()
            .filter_map(|(_, spans)| spans.get(0))
            .chain([self.other])
    }
}

/// Where an artifact's bytes are: one reader for both.
#[derive(Debug)]
enum Bytes {
    /// A cache file (read at offsets), and its path.
    File(File, PathBuf),
    /// Bytes in the binary.
    Static(&'static [u8]),
}

impl Bytes {
    fn len(&self) -> Option<u64> {
        match self {
            Bytes::File(f, _) => f.metadata().ok().map(|m| m.len()),
            Bytes::Static(b) => Some(b.len() as u64),
        }
    }

    /// `len` bytes at `at` (borrowed from the binary, read from a file).
    fn at(&self, at: u64, len: usize) -> Option<Cow<'static, [u8]>> {
        match self {
            Bytes::File(f, _) => {
                let mut v = vec![0u8; len];
                f.read_exact_at(&mut v, at).ok()?;
                Some(Cow::Owned(v))
            }
            Bytes::Static(b) => {
                let start = usize::try_from(at).ok()?;
                b.get(start..start.checked_add(len)?).map(Cow::Borrowed)
            }
        }
    }
}

/// A record of the list table: a pattern list, or a named condition, whose
/// body follows in the record (read after the entries it uses).
#[derive(Debug, Serialize, Deserialize)]
enum Entry {
    /// A pattern list.
    List(StoredList),
    /// A named condition, and the numbers of the entries its body uses.
    Condition {
        /// Sorted, distinct.
        used: Vec<u32>,
    },
}

/// How tags are made and checked: the public hash (the embedded pack), or the
/// user's key (cache files).
#[derive(Debug, Clone)]
pub enum Seal {
    /// The public hash: detects damage, not a forger.
    Public,
    /// MACs under keys derived from the user's key: the header's, the records'.
    Keyed {
        /// For the header.
        header: FastMac,
        /// For the records (each bound to the header's tag).
        records: FastMac,
    },
}

impl Seal {
    /// The seal of cache files under the user's key (one key derivation).
    pub fn keyed(key: &UserKey) -> Seal {
        let [header, records] = key.fast_pair(CACHE_PURPOSE);
        Seal::Keyed { header, records }
    }
}

/// The tag of a header.
fn header_tag(seal: &Seal, head: &[u8]) -> [u8; 16] {
    match seal {
        Seal::Public => hash(0, &[MAGIC, head]).to_le_bytes(),
        Seal::Keyed { header, .. } => header.tag(&[MAGIC, head]),
    }
}

/// What a record is, bound into its tag: rule `n`, list `n`, policy `n`'s
/// head, or a record found through a span that is itself authenticated (in
/// the header, or in another record). The index of the rules', lists' and
/// policies' spans is not: a span
/// changed there leads to a record whose tag was made for another place or
/// another rule, and does not verify, so the index costs nothing to check
/// and `run` reads only the spans of the rules it evaluates.
#[derive(Debug, Clone, Copy)]
enum Role {
    Rule(u32),
    List(u32),
    Policy(u32),
    Placed,
}

impl Role {
    fn bytes(self) -> [u8; 8] {
        match self {
            Role::Rule(n) => u64::from(n),
            Role::List(n) => (1 << 32) | u64::from(n),
            Role::Policy(n) => (2 << 32) | u64::from(n),
            Role::Placed => u64::MAX,
        }
        .to_le_bytes()
    }
}

/// What checks the records of one artifact, bound to its header's tag.
#[derive(Debug, Clone)]
enum RecordSeal {
    Public(u128),
    Keyed(FastMac),
}

impl RecordSeal {
    fn new(seal: &Seal, header: [u8; 16]) -> RecordSeal {
        match seal {
            Seal::Public => RecordSeal::Public(u128::from_le_bytes(header)),
            Seal::Keyed { records, .. } => RecordSeal::Keyed(records.then(&[&header])),
        }
    }

    fn tag(&self, role: Role, at: u64, body: &[u8]) -> [u8; 16] {
        let parts: [&[u8]; 3] = [&role.bytes(), &at.to_le_bytes(), body];
        match self {
            RecordSeal::Public(key) => hash(*key, &parts).to_le_bytes(),
            RecordSeal::Keyed(k) => k.tag(&parts),
        }
    }

    fn verify(&self, role: Role, at: u64, body: &[u8], tag: &[u8]) -> bool {
        let parts: [&[u8]; 3] = [&role.bytes(), &at.to_le_bytes(), body];
        match self {
            RecordSeal::Public(key) => hash(*key, &parts).to_le_bytes()[..] == *tag,
            RecordSeal::Keyed(k) => k.verify(&parts, tag),
        }
    }
}

/// Why a cache file was not used (for `doctor` and the integrity record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// There is none.
    Absent,
    /// Something other than a regular file is in its place: what (a folder,
    /// a FIFO, a symbolic link, …).
    NotAFile(String),
    /// Not an artifact, or cut short: damage (hookrules writes a whole file,
    /// then renames it into place).
    Damaged,
    /// Well-formed, but its header's tag does not verify under the user's
    /// key: changed by something other than hookrules (or made under another
    /// key). Not used at all, and replaced.
    Forged,
    /// Its header verifies, but a record does not (a byte changed in it, or a
    /// span of the index changed): `run` uses the records that verify and
    /// builds the set from the policies for an event that reaches one that
    /// does not; the file stays until what it was built from changes.
    Records,
    /// Made under the user's key for another policy search (another
    /// project's set, moved or copied under this one's name).
    Other,
    /// Made by another hookrules binary (another build, another version of
    /// the format): the usual state after an upgrade, until the next `run`.
    OtherBuild,
    /// Its policies (or the trust store) changed since it was built.
    Stale,
    /// There is no usable key (see `os::state::KeyError`).
    NoKey(String),
}

/// An open, verified artifact.
#[derive(Debug)]
pub struct Artifact {
    bytes: Bytes,
    header: Header<'static>,
    seal: RecordSeal,
    /// Where the records start.
    base: u64,
    /// The index's bytes (see [`Role`]): borrowed from the binary; a cache
    /// file's read once, when a rule is first read.
    index: OnceLock<Option<Cow<'static, [u8]>>>,
    /// Pattern lists read so far, by number.
    lists: Mutex<Vec<Option<List>>>,
}

/// Where artifacts live: `HOOKRULES_CACHE_DIR`, else `$XDG_CACHE_HOME/hookrules`,
/// else `~/.cache/hookrules`. `HOOKRULES_CACHE=off` turns the cache off.
pub fn cache_dir(env: &Env) -> Option<PathBuf> {
    if env
        .get("HOOKRULES_CACHE")
        .is_some_and(|v| v == "off" || v == "0")
    {
        return None;
    }
    crate::contract::places::cache_home(env)
}

/// What identifies a policy search (the artifact records it and must match).
///
/// Each piece is written as it is, after its length, so no two searches
/// write the same key: a path that is UTF-8 as its text, another as
/// `{:?}` writes it (marked `~`), an absent one as `-`, a list after its
/// count. (Written with `{:?}` whole, paths escaped character by
/// character, the key cost ~18k instructions of every `run` that reads a
/// cache file.)
fn search_key(discovery: &Discovery) -> String {
    use std::fmt::Write;
    fn text(key: &mut String, s: &str) {
        let _ = write!(key, "|{}:", s.len());
        key.push_str(s);
    }
    fn path(key: &mut String, p: Option<&Path>) {
        match p.map(|p| (p, p.to_str())) {
            None => key.push_str("|-"),
            Some((_, Some(s))) => text(key, s),
            Some((p, None)) => {
                key.push_str("|~");
                text(key, &format!("{p:?}"));
            }
        }
    }
    let d = discovery;
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut key = String::with_capacity(256);
    let _ = write!(key, "{}", d.flags.len());
    for f in &d.flags {
        path(&mut key, Some(f));
    }
    match &d.env {
        Some(e) => text(&mut key, e),
        None => key.push_str("|-"),
    }
    path(&mut key, d.project_dir.as_deref());
    path(&mut key, d.user_dir.as_deref());
    key.push_str(if d.no_builtin { "|1" } else { "|0" });
    path(&mut key, Some(&cwd));
    path(&mut key, d.state_home.as_deref());
    path(&mut key, d.managed_dir.as_deref());
    let _ = write!(key, "|{}", d.managed_required.len());
    for m in &d.managed_required {
        text(&mut key, m);
    }
    key
}

/// The artifact file of a policy search.
pub fn path_for(dir: &Path, discovery: &Discovery) -> PathBuf {
    file_of(dir, &search_key(discovery))
}

/// The artifact file of a search key ([`search_key`]).
fn file_of(dir: &Path, search: &str) -> PathBuf {
    dir.join(format!("{:032x}.hrc", hash(0, &[search.as_bytes()])))
}

/// The compiled set for a policy search: from its artifact when that verifies,
/// else built (and the artifact written, when the cache is on).
///
/// The built-in pack alone comes from the binary ([`EMBEDDED`]), unless
/// `HOOKRULES_EMBEDDED=off` (for tests and measurements) or it does not verify.
pub fn load(discovery: &Discovery, env: &Env) -> Loaded {
    if embedded_wanted(discovery, env) {
        if let Some(a) = Artifact::embedded(EMBEDDED) {
            return Loaded::Stored(Box::new(a));
        }
    }
    let (Some(dir), Some(state)) = (cache_dir(env), crate::os::state::state_home(env)) else {
        return Loaded::Built(Box::new(CompiledSet::build(&discovery.find())));
    };
    // No usable key, no cache: every call builds the set (`doctor` says why).
    let Ok(key) = UserKey::load_or_create(&state) else {
        return Loaded::Built(Box::new(CompiledSet::build(&discovery.find())));
    };
    let seal = Seal::keyed(&key);
    // The key is made once: it formats the whole search (~18k instructions).
    let search = search_key(discovery);
    let path = file_of(&dir, &search);
    match Artifact::open(&path, &search, &seal) {
        Ok(a) => return Loaded::Stored(Box::new(a)),
        Err(Refused::Forged) => crate::os::state::record_integrity(
            &state,
            "cache-forged",
            &path,
            "a compiled-set cache file whose tags do not verify under your key was found and not used; the set was built from the policies",
        ),
        Err(_) => {}
    }
    let (set, stamps) = build_stamped(discovery);
    if let Some(bytes) =
        stamps.and_then(|stamps| encode(&set, search, binary_identity(), stamps, &seal))
    {
        let _ = crate::os::files::write_atomic(&path, &bytes);
    }
    Loaded::Built(Box::new(set))
}

/// Where [`load`] would take the set from, without building it (`doctor`);
/// the embedded pack counts only if every record verifies, a cache file only if
/// every record verifies under the user's key.
pub fn origin(discovery: &Discovery, env: &Env) -> SetOrigin {
    if embedded_wanted(discovery, env)
        && Artifact::embedded(EMBEDDED).is_some_and(|a| a.check_all())
    {
        return SetOrigin::Embedded;
    }
    match cache_check(discovery, env) {
        Some((path, None)) => SetOrigin::Cache(path),
        _ => SetOrigin::Built,
    }
}

/// The cache file of a policy search, and why it would not be used (None: it
/// would be, every record verified). None when there is no cache or no state
/// folder.
pub fn cache_check(discovery: &Discovery, env: &Env) -> Option<(PathBuf, Option<Refused>)> {
    let path = path_for(&cache_dir(env)?, discovery);
    let key = match UserKey::load(&crate::os::state::state_home(env)?) {
        Ok(k) => k,
        Err(e) => return Some((path, Some(Refused::NoKey(e.to_string())))),
    };
    let why = match Artifact::open(&path, &search_key(discovery), &Seal::keyed(&key)) {
        Ok(a) if a.check_all() => None,
        Ok(_) => Some(Refused::Records),
        Err(why) => Some(why),
    };
    Some((path, why))
}

/// Is the set the built-in pack alone, and the embedded one not turned off?
pub fn embedded_wanted(discovery: &Discovery, env: &Env) -> bool {
    discovery.builtin_alone() && env.get("HOOKRULES_EMBEDDED").is_none_or(|v| v != "off")
}

/// Build the set, with the stamps of what it was built from (None when a
/// source changed too recently to be cached safely).
fn build_stamped(discovery: &Discovery) -> (CompiledSet, Option<Vec<Stamp>>) {
    let start = now_ns();
    let found = discovery.find();
    let set = CompiledSet::build(&found);
    let mut paths: Vec<PathBuf> = searched(discovery);
    // What made a local file the user's own (git's index, the .gitignores).
    paths.extend(found.trusted.witnesses().iter().cloned());
    for s in &found.sources {
        if let Origin::File(p) = &s.origin {
            paths.push(p.clone());
        }
    }
    paths.sort();
    paths.dedup();
    let Some(stamps) = paths
        .iter()
        .map(|p| Stamp::of(p))
        .collect::<Option<Vec<_>>>()
    else {
        return (set, None);
    };
    let racy = stamps
        .iter()
        .filter_map(|s| s.meta)
        .any(|(_, _, _, m, c)| m.max(c) >= start - RACY_NS);
    let readable = found.errors.is_empty();
    (set, (!racy && readable).then_some(stamps))
}

/// The folders and files a policy search looks at.
fn searched(d: &Discovery) -> Vec<PathBuf> {
    // The managed folder and every folder above it: a change of owner or mode
    // changes a ctime, so the set is built again and the ownership checked again.
    let mut v: Vec<PathBuf> = d
        .managed_dir
        .iter()
        .flat_map(|m| m.ancestors().map(Path::to_path_buf))
        .collect();
    if !d.flags.is_empty() {
        v.extend(
            d.flags
                .iter()
                .filter(|p| !p.to_string_lossy().starts_with("builtin:"))
                .cloned(),
        );
        return v;
    }
    if let Some(env) = d.env.as_deref().filter(|s| !s.trim().is_empty()) {
        v.extend(
            env.split(':')
                .filter(|s| !s.is_empty() && !s.starts_with("builtin:"))
                .map(PathBuf::from),
        );
        return v;
    }
    v.extend(d.user_dir.clone());
    if let Some(p) = &d.project_dir {
        v.push(p.join(PROJECT_POLICY_DIR));
        // Trust given or taken back changes what a project policy may do.
        v.extend(d.state_home.as_deref().map(crate::policy::trust::trust_dir));
    }
    v
}

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i128)
        .unwrap_or(0)
}

/// Path, size and modification time of the running executable: a new build
/// may compile differently, so its artifacts are its own.
fn binary_identity() -> String {
    let exe = std::env::current_exe().ok();
    let meta = exe.as_ref().and_then(|p| p.metadata().ok());
    let (size, mtime) = meta
        .map(|m| (m.size(), m.mtime_nsec() + m.mtime() * 1_000_000_000))
        .unwrap_or((0, 0));
    format!(
        "{} {:?} {size} {mtime}",
        env!("CARGO_PKG_VERSION"),
        exe.unwrap_or_default()
    )
}

/// A 128-bit keyed hash (two seeded multiply-xor lanes over 8-byte words).
/// Not cryptographic: it detects damage and edits, not a forger who rebuilds it.
///
/// Both lanes are fed in one pass over the bytes (the same values as a pass
/// per lane: the embedded pack's records, ~14 KB for a Bash event, are
/// read once).
pub fn hash(key: u128, parts: &[&[u8]]) -> u128 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    #[inline(always)]
    fn step(h: u64, w: u64, r: u32) -> u64 {
        (h ^ w).wrapping_mul(K).rotate_left(r)
    }
    fn fin(mut h: u64) -> u64 {
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
    let (a, b) = ((key >> 64) as u64, key as u64);
    let (mut x, mut y) = ((a ^ 1) ^ K, (b ^ 0x1234_5678_9abc_def0) ^ K);
    for p in parts {
        let n = p.len() as u64;
        x = step(x, n, 29);
        y = step(y, n, 29);
        let mut chunks = p.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            x = step(x, w, 31);
            y = step(y, w, 31);
        }
        for &byte in chunks.remainder() {
            x = step(x, u64::from(byte), 7);
            y = step(y, u64::from(byte), 7);
        }
    }
    (u128::from(fin(x)) << 64) | u128::from(fin(y))
}

/// The artifact of the built-in pack, as this build compiles it: what
/// `policies/builtin.hrset` must hold (`tests/process/embedded.rs` compares them).
pub fn embedded_artifact() -> Option<Vec<u8>> {
    let set = CompiledSet::build(&crate::policy::discover::builtin());
    encode(
        &set,
        EMBEDDED_SEARCH.into(),
        EMBEDDED_KEY.into(),
        vec![],
        &Seal::Public,
    )
}

/// Encode a set; `None` if some part does not serialize (then nothing is cached).
fn encode(
    set: &CompiledSet,
    search: String,
    binary: String,
    stamps: Vec<Stamp>,
    seal: &Seal,
) -> Option<Vec<u8>> {
    let mut body: Vec<u8> = vec![];
    let mut records: Vec<(Span, Role)> = vec![];
    // Each record: 16 bytes for its hash (filled in below), then its bytes.
    let mut put = |role: Role, bytes: Vec<u8>| -> Span {
        let at = body.len() as u64;
        let len = bytes.len() as u32;
        body.extend_from_slice(&[0; 16]);
        body.extend_from_slice(&bytes);
        records.push(((at, len), role));
        (at, len)
    };
    let ser = |v: &dyn erased::Ser| v.bytes();
    // Each rule: its gate, then the numbers of the lists it uses and the
    // rule; a gated rule's in a record of its own, which its span (after the
    // gate) leads to: a rule its gate leaves out costs the gate's bytes.
    let mut numbering = Numbering::default();
    let mut rules: Vec<Span> = vec![];
    for (id, r) in set.rules.iter().enumerate() {
        let rule = stored::numbering(&mut numbering, || ser(r))?;
        let mut body = ser(&numbering.take_used())?;
        body.extend_from_slice(&rule);
        let gate: Option<&Gate> = set.table.gates.get(id).and_then(Option::as_ref);
        let mut record = ser(&gate)?;
        match gate {
            Some(_) => record.extend_from_slice(&ser(&put(Role::Placed, body))?),
            None => record.extend_from_slice(&body),
        }
        rules.push(put(Role::Rule(rules.len() as u32), record));
    }
    // The table: lists and named conditions, numbered as the rules met them;
    // a condition's body may number more of them, so the table grows as it
    // is written.
    let mut lists: Vec<Span> = vec![];
    let mut n = 0;
    while let Some(list) = numbering.lists.get(n).cloned() {
        let record = match &list {
            List::Condition(c) => {
                let body = stored::numbering(&mut numbering, || ser(&**c))?;
                let mut record = ser(&Entry::Condition {
                    used: numbering.take_used(),
                })?;
                record.extend_from_slice(&body);
                record
            }
            List::Regexes(_) | List::Globs(_) => ser(&Entry::List(StoredList::of(&list)?))?,
        };
        lists.push(put(Role::List(lists.len() as u32), record));
        n += 1;
    }
    // An entry: the spans of its groups of rules, each a record, with its
    // large lists in records of their own (`Reached::apart`).
    let mut entry = |e: &EventEntry| -> Option<Span> {
        let groups: EventEntry<Span> = e.try_map(|r| {
            let bytes = ser(r)?;
            let mut group: Reached<'_> = postcard::from_bytes(&bytes).ok()?;
            group.apart(&mut |part| put(Role::Placed, part))?;
            Some(put(Role::Placed, ser(&group)?))
        })?;
        Some(put(Role::Placed, ser(&StoredEntry::new(&groups))?))
    };
    let mut events: BTreeMap<String, Span> = BTreeMap::new();
    for (k, e) in &set.table.events {
        events.insert(k.clone(), entry(e)?);
    }
    let other = entry(&set.table.other)?;
    let notes = put(Role::Placed, ser(&set.notes)?);
    let mut policies: Vec<Span> = vec![];
    for p in &set.policies {
        let facts: BTreeMap<&String, &Fact> =
            p.facts.iter().map(|(k, v)| (k, v.as_ref())).collect();
        let head = ser(&PolicyHead {
            name: p.name.clone(),
            display: p.source.display_name(),
            layer: p.source.layer,
            builtin: match &p.source.origin {
                Origin::Builtin(n) => Some(n.to_string()),
                Origin::File(_) => None,
            },
            failure: p.failure,
            combine: p.combine,
            unparsable: p.unparsable,
            utc: p.zone == Zone::Utc,
            facts: put(Role::Placed, ser(&facts)?),
        })?;
        policies.push(put(Role::Policy(policies.len() as u32), head));
    }
    // The index, after the records.
    let index = body.len() as u64;
    let (rule_count, list_count) = (rules.len() as u32, lists.len() as u32);
    let policy_count = policies.len() as u32;
    for span in rules.into_iter().chain(lists).chain(policies) {
        span.write(&mut body);
    }
    let header = Header {
        search,
        binary,
        stamps: Stamps::new(&stamps),
        failure: set.failure,
        rules: rule_count,
        lists: list_count,
        policies: policy_count,
        index,
        events: Keyed::new(events.into_iter().map(|(name, span)| (name, vec![span]))),
        other,
        notes,
        log: set.log.clone(),
        provenance: set.provenance.clone(),
    };
    let head = postcard::to_allocvec(&header).ok()?;
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&head);
    out.extend_from_slice(&body);
    seal_all(&mut out, &records, seal);
    Some(out)
}

/// Write the header's tag and every record's (each bound to the header's and
/// covering its offset, so a record cannot be edited, moved or taken from
/// another artifact).
fn seal_all(out: &mut [u8], records: &[(Span, Role)], seal: &Seal) {
    let head_len = u32::from_le_bytes([out[8], out[9], out[10], out[11]]) as usize;
    let tag = header_tag(seal, &out[28..28 + head_len]);
    out[12..28].copy_from_slice(&tag);
    let records_seal = RecordSeal::new(seal, tag);
    let base = 28 + head_len;
    for &((at, len), role) in records {
        let start = base + at as usize;
        let t = records_seal.tag(role, at, &out[start + 16..start + 16 + len as usize]);
        out[start..start + 16].copy_from_slice(&t);
    }
}

/// Recompute every tag of an artifact whose bytes were edited, as a forger who
/// knows the format would: with [`Seal::Public`] (what anyone can compute) or
/// a key of their own. `tests/process/artifact.rs` uses it to show that no such file is
/// used, and, with the user's own key, that the edit would have mattered.
/// `None` when the header does not decode.
#[doc(hidden)]
pub fn reseal(bytes: &[u8], seal: &Seal) -> Option<Vec<u8>> {
    let head_len = u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?) as usize;
    let header: Header<'_> = postcard::from_bytes(bytes.get(28..28 + head_len)?).ok()?;
    let base = 28 + head_len;
    let record = |span: Span| -> Option<&[u8]> {
        let start = base + span.0 as usize + 16;
        bytes.get(start..start + span.1 as usize)
    };
    let mut spans: Vec<(Span, Role)> = vec![];
    let index = base + usize::try_from(header.index).ok()?;
    for n in 0..u32::try_from(header.spans()).ok()? {
        let at = index + n as usize * 12;
        let span = <Span as Word>::read(bytes.get(at..at + 12)?);
        let role = header.role(n)?;
        if let Role::Policy(_) = role {
            let head: PolicyHead = postcard::from_bytes(record(span)?).ok()?;
            spans.push((head.facts, Role::Placed));
        }
        if let Role::Rule(_) = role {
            let (gate, rest): (Option<Gate>, &[u8]) =
                postcard::take_from_bytes(record(span)?).ok()?;
            if gate.is_some() {
                spans.push((postcard::from_bytes(rest).ok()?, Role::Placed));
            }
        }
        spans.push((span, role));
    }
    for e in header.event_spans() {
        spans.push((e, Role::Placed));
        let entry: StoredEntry<'_> = postcard::from_bytes(record(e)?).ok()?;
        for g in entry.groups()? {
            spans.push((g, Role::Placed));
            let group: Reached<'_> = postcard::from_bytes(record(g)?).ok()?;
            spans.extend(group.spans().into_iter().map(|p| (p, Role::Placed)));
        }
    }
    spans.push((header.notes, Role::Placed));
    let mut out = bytes.to_vec();
    seal_all(&mut out, &spans, seal);
    Some(out)
}

/// Where an artifact's index lies, for tests that edit it: the spans of its
/// rules, of its lists and of its policies' heads, 12 bytes each, in that
/// order. `None` when the header does not decode.
#[doc(hidden)]
pub fn index_of(bytes: &[u8]) -> Option<Index> {
    let head_len = u32::from_le_bytes(bytes.get(8..12)?.try_into().ok()?) as usize;
    let header: Header<'_> = postcard::from_bytes(bytes.get(28..28 + head_len)?).ok()?;
    let start = 28 + head_len + usize::try_from(header.index).ok()?;
    let at = |n: u32| start + n as usize * 12;
    let (rules, lists) = (header.rules, header.rules + header.lists);
    Some(Index {
        rules: at(0)..at(rules),
        lists: at(rules)..at(lists),
        policies: at(lists)..at(lists + header.policies),
    })
}

/// The parts of an artifact's index ([`index_of`]), as byte ranges.
#[doc(hidden)]
#[derive(Debug)]
pub struct Index {
    /// The rules' spans.
    pub rules: std::ops::Range<usize>,
    /// The pattern lists' and named conditions' spans.
    pub lists: std::ops::Range<usize>,
    /// The policies' heads' spans.
    pub policies: std::ops::Range<usize>,
}

mod erased {
    /// Anything postcard can encode, behind one object type.
    pub trait Ser {
        fn bytes(&self) -> Option<Vec<u8>>;
    }
    impl<T: serde::Serialize> Ser for T {
        fn bytes(&self) -> Option<Vec<u8>> {
            postcard::to_allocvec(self).ok()
        }
    }
}

impl Artifact {
    /// Open and verify a cache file's header and freshness; why not, if it is
    /// missing, not a regular file, damaged, forged, another's, or stale.
    fn open(path: &Path, search: &str, seal: &Seal) -> Result<Artifact, Refused> {
        // Never block on a FIFO, never follow a link planted in the cache.
        let not_a_file = || {
            use std::os::unix::fs::FileTypeExt;
            let what = match std::fs::symlink_metadata(path).map(|m| m.file_type()) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Refused::Absent,
                Ok(t) if t.is_symlink() => "a symbolic link",
                Ok(t) if t.is_dir() => "a folder",
                Ok(t) if t.is_fifo() => "a FIFO (named pipe)",
                Ok(t) if t.is_socket() => "a socket",
                Ok(t) if t.is_char_device() || t.is_block_device() => "a device",
                Ok(_) => "a file hookrules cannot open",
                Err(_) => "something hookrules cannot look at",
            };
            Refused::NotAFile(what.into())
        };
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(path)
            .map_err(|_| not_a_file())?;
        if !file.metadata().map_err(|_| not_a_file())?.is_file() {
            return Err(not_a_file());
        }
        Artifact::verify(
            Bytes::File(file, path.to_path_buf()),
            search,
            &binary_identity(),
            seal,
        )
    }

    /// The embedded built-in pack in `bytes` (the binary's [`EMBEDDED`], or a
    /// copy a test damaged); `None` if damaged or generated for another key
    /// than this binary was built from.
    pub fn embedded(bytes: &'static [u8]) -> Option<Artifact> {
        Artifact::verify(
            Bytes::Static(bytes),
            EMBEDDED_SEARCH,
            EMBEDDED_KEY,
            &Seal::Public,
        )
        .ok()
    }

    /// Check an artifact's header: its tag, its search, what built it.
    fn verify(bytes: Bytes, search: &str, binary: &str, seal: &Seal) -> Result<Artifact, Refused> {
        let damaged = Refused::Damaged;
        let len = bytes.len().ok_or(Refused::Absent)?;
        if !(32..=MAX_ARTIFACT).contains(&len) {
            return Err(damaged);
        }
        let fixed = bytes.at(0, 28).ok_or(Refused::Damaged)?;
        if &fixed[..8] != MAGIC {
            // Another version of the format (`HRSET` and its number).
            if fixed[..5] == MAGIC[..5] && fixed[5..8].iter().all(u8::is_ascii_digit) {
                return Err(Refused::OtherBuild);
            }
            return Err(damaged);
        }
        let head_len = u32::from_le_bytes([fixed[8], fixed[9], fixed[10], fixed[11]]) as u64;
        if 28 + head_len > len {
            return Err(damaged);
        }
        let head = bytes.at(28, head_len as usize).ok_or(Refused::Damaged)?;
        let tag = header_tag(seal, &head);
        // Compared in constant time: every byte, whatever the first difference.
        let differ = tag
            .iter()
            .zip(&fixed[12..28])
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        if differ != 0 {
            return Err(Refused::Forged);
        }
        // The embedded pack's lists borrow the binary; a file's are copied.
        let checked = |header: &Header<'_>| {
            if header.search != search {
                return Err(Refused::Other);
            }
            if header.binary != binary {
                return Err(Refused::OtherBuild);
            }
            // The index must lie in the file (its spans are checked as they
            // are used).
            let index_end = header
                .spans()
                .checked_mul(12)
                .and_then(|n| n.checked_add(header.index)?.checked_add(28 + head_len));
            if index_end.is_none_or(|end| end > len) {
                return Err(Refused::Damaged);
            }
            // What it was built from must be as it was.
            if !header.stamps.hold() {
                return Err(Refused::Stale);
            }
            Ok(())
        };
        // Read in place: the embedded pack's header borrows the binary; a
        // file's is checked where it lies, then its lists copied.
        let header: Header<'static> = match head {
            Cow::Borrowed(head) => {
                let header = postcard::from_bytes(head).map_err(|_| Refused::Forged)?;
                checked(&header)?;
                header
            }
            Cow::Owned(head) => {
                let header: Header<'_> =
                    postcard::from_bytes(&head).map_err(|_| Refused::Forged)?;
                checked(&header)?;
                header.into_owned()
            }
        };
        let lists = Mutex::new(vec![None; header.lists as usize]);
        Ok(Artifact {
            bytes,
            header,
            seal: RecordSeal::new(seal, tag),
            base: 28 + head_len,
            index: OnceLock::new(),
            lists,
        })
    }

    /// Does every record verify and decode? (`doctor`; `run` checks only
    /// the records it reads.)
    pub fn check_all(&self) -> bool {
        let h = &self.header;
        let events = h.event_spans().all(|span| {
            let groups = self.record(Role::Placed, span.0, span.1).and_then(|bytes| {
                postcard::from_bytes::<StoredEntry<'_>>(&bytes)
                    .ok()?
                    .groups()
            });
            groups.is_some_and(|groups| {
                groups.iter().all(|g| {
                    self.record(Role::Placed, g.0, g.1)
                        .and_then(|bytes| {
                            postcard::from_bytes::<Reached<'_>>(&bytes)
                                .ok()?
                                .read_all(self)
                        })
                        .is_some()
                })
            })
        });
        let policies = (0..h.policies).all(|n| {
            self.policy(n)
                .and_then(|p| self.read::<BTreeMap<String, Fact>>(p.facts))
                .is_some()
        });
        // Every record, the empty notes `for_event` skips included.
        let notes = self
            .read::<BTreeMap<String, Vec<String>>>(h.notes)
            .is_some();
        let rules = (0..h.rules).all(|id| self.rule(id).is_some());
        events && policies && notes && rules
    }

    /// A rule: its lists and named conditions (each read once), then the rule
    /// with them.
    fn rule(&self, id: RuleId) -> Option<SetRule> {
        self.gated_rule(id, |_| true)?
    }

    /// A rule, if `pass` passes its gate ([`reach::gate`]; `Some(None)` when
    /// it does not: then nothing more of it is decoded).
    fn gated_rule(
        &self,
        id: RuleId,
        pass: impl FnOnce(&GateView<'_>) -> bool,
    ) -> Option<Option<SetRule>> {
        if id >= self.header.rules {
            return None;
        }
        let (at, len) = self.span(id as usize)?;
        let bytes = self.record(Role::Rule(id), at, len)?;
        // The gate is judged before it is walked ([`GateView::peek`]).
        let body: Body;
        let rest = match GateView::peek(&bytes)? {
            Ok(gate) if !pass(&gate) => return Some(None),
            Ok(gate) => {
                let (_, rest) = gate.split()?;
                let (at, len): Span = postcard::from_bytes(rest).ok()?;
                body = self.record(Role::Placed, at, len)?;
                &body[..]
            }
            Err(rest) => rest,
        };
        let (used, rest): (Vec<u32>, &[u8]) = postcard::take_from_bytes(rest).ok()?;
        let mut lists = self.lists.lock().unwrap_or_else(|e| e.into_inner());
        for n in used {
            self.entry(&mut lists, n, 0)?;
        }
        stored::resolving(&mut lists, || postcard::from_bytes(rest).ok()).map(Some)
    }

    /// Read entry `n` of the list table into `lists` (with the entries a
    /// named condition uses first), unless it is there.
    fn entry(&self, lists: &mut Vec<Option<List>>, n: u32, depth: usize) -> Option<()> {
        let n = n as usize;
        if lists.get(n)?.is_some() {
            return Some(());
        }
        // Conditions refer to each other without cycles (validation), so no
        // chain is longer than the table.
        if depth > lists.len() {
            return None;
        }
        let list = u32::try_from(n).ok().filter(|&n| n < self.header.lists)?;
        let (at, len) = self.span(self.header.rules as usize + n)?;
        let bytes = self.record(Role::List(list), at, len)?;
        let (entry, rest): (Entry, &[u8]) = postcard::take_from_bytes(&bytes).ok()?;
        let list = match entry {
            Entry::List(list) => list.into_list(),
            Entry::Condition { used } => {
                for u in used {
                    self.entry(lists, u, depth + 1)?;
                }
                let c: NamedCondition =
                    stored::resolving(lists, || postcard::from_bytes(rest).ok())?;
                List::Condition(Arc::new(c))
            }
        };
        lists[n] = Some(list);
        Some(())
    }

    /// Policy `n`'s head.
    fn policy(&self, n: u32) -> Option<PolicyHead> {
        if n >= self.header.policies {
            return None;
        }
        let h = &self.header;
        let (at, len) = self.span(h.rules as usize + h.lists as usize + n as usize)?;
        let bytes = self.record(Role::Policy(n), at, len)?;
        postcard::from_bytes(&bytes).ok()
    }

    fn read<T: serde::de::DeserializeOwned>(&self, span: Span) -> Option<T> {
        let (at, len) = span;
        let bytes = self.record(Role::Placed, at, len)?;
        postcard::from_bytes(&bytes).ok()
    }

    /// Span `n` of the index (the rules', then the lists'), not yet
    /// checked: the record it leads to is ([`Role`]).
    fn span(&self, n: usize) -> Option<Span> {
        let index = self
            .index
            .get_or_init(|| {
                let h = &self.header;
                let len = usize::try_from(h.spans()).ok()?.checked_mul(12)?;
                self.bytes.at(self.base.checked_add(h.index)?, len)
            })
            .as_deref()?;
        let at = n.checked_mul(12)?;
        index.get(at..at.checked_add(12)?).map(<Span as Word>::read)
    }

    /// A record's bytes, checked against its tag, made for what it is.
    fn record(&self, role: Role, at: u64, len: u32) -> Option<Body> {
        let bytes = self
            .bytes
            .at(self.base.checked_add(at)?, 16 + len as usize)?;
        let (tag, body) = bytes.split_at(16);
        if !self.seal.verify(role, at, body, tag) {
            return None;
        }
        Some(Body(bytes))
    }

    /// The bucket of one event, read record by record; `None` if any record
    /// does not verify.
    pub fn for_event(&self, event: &Event, paths: &dyn CommandPaths) -> Option<Compiled> {
        let span = self.header.event(&event.name).unwrap_or(self.header.other);
        let entry = self.record(Role::Placed, span.0, span.1)?;
        let (group, refused) = postcard::from_bytes::<StoredEntry<'_>>(&entry)
            .ok()?
            .pick(event)?;
        // Read in place: its lists borrow the record's bytes.
        let bytes = self.record(Role::Placed, group.0, group.1)?;
        let group: Reached<'_> = postcard::from_bytes(&bytes).ok()?;
        let mut shells = Shells::new();
        let ids: Vec<RuleId> =
            group.bucket(event, &refused, Some(&mut shells), Some(paths), self)?;
        let mut rules: Vec<SetRule> = Vec::with_capacity(ids.len());
        let mut commands = reach::GateCommands::new(reach::field_commands(event, &mut shells));
        for &id in &ids {
            rules.extend(self.gated_rule(id, |g| g.holds(&mut commands))?);
        }
        drop(commands);
        // The policies of these rules, in load order, and nothing of the
        // others: each rule is renumbered to its policy's place among them.
        let mut used: Vec<usize> = rules.iter().map(|r| r.policy).collect();
        used.sort_unstable();
        used.dedup();
        let mut policies = Vec::with_capacity(used.len());
        for &n in &used {
            let p = self.policy(u32::try_from(n).ok()?)?;
            // An empty map is one byte, as the head (authenticated) says:
            // nothing to read.
            let facts: BTreeMap<String, Fact> = if p.facts.1 > 1 {
                self.read(p.facts)?
            } else {
                BTreeMap::new()
            };
            let builtin = crate::policy::discover::BUILTIN
                .iter()
                .find(|(n, _)| Some(*n) == p.builtin.as_deref());
            let origin = match builtin {
                Some((n, _)) => Origin::Builtin(n),
                None => Origin::File(PathBuf::from(&p.display)),
            };
            policies.push(Arc::new(Policy {
                name: p.name,
                source: PolicySource::in_layer(origin, "", p.layer),
                failure: p.failure,
                combine: p.combine,
                unparsable: p.unparsable,
                zone: if p.utc { Zone::Utc } else { Zone::Local },
                rules: vec![],
                facts: facts.into_iter().map(|(k, v)| (k, Arc::new(v))).collect(),
            }));
        }
        for r in &mut rules {
            r.policy = used.binary_search(&r.policy).ok()?;
        }
        let notes: BTreeMap<String, Vec<String>> = if self.header.notes.1 > 1 {
            self.read(self.header.notes)?
        } else {
            BTreeMap::new()
        };
        let refs: Vec<&SetRule> = rules.iter().collect();
        Some(assemble(&policies, &refs, &notes, shells))
    }
}

/// The parts of a group kept in records of their own (`Reached::apart`):
/// found through spans in the group's record, which is authenticated.
impl Parts for Artifact {
    fn part(&self, (at, len): Span) -> Option<Body> {
        self.record(Role::Placed, at, len)
    }
}

/// Read a whole file (for tests that tamper with artifacts).
pub fn read_all(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut v = vec![];
    File::open(path)?.read_to_end(&mut v)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::{embedded_key::policies_hash, EMBEDDED_KEY, FORMAT_VERSION};
    use crate::policy::discover::{BUILTIN, OPT_IN};

    /// What `run` sees of a path is what `std::fs::metadata` sees: a file,
    /// a folder, a link (followed), a long path, one that is absent, one
    /// with a NUL byte.
    #[test]
    fn a_stamp_is_what_std_metadata_says() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.toml");
        std::fs::write(&file, "x = 1\n").unwrap();
        let link = dir.path().join("l.toml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        let mut long = dir.path().to_path_buf();
        for _ in 0..6 {
            long.push("d".repeat(100));
        }
        std::fs::create_dir_all(&long).unwrap();
        let paths = [
            file.clone(),
            link,
            dir.path().to_path_buf(),
            long,
            dir.path().join("absent.toml"),
            std::path::PathBuf::from("a\0b"),
        ];
        for p in paths {
            let want = std::fs::metadata(&p).ok().map(|m| {
                (
                    m.dev(),
                    m.ino(),
                    m.size(),
                    i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
                    i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec()),
                )
            });
            assert_eq!(super::meta_of(&p), want, "{}", p.display());
        }
        assert!(super::meta_of(&file).is_some());
    }

    #[test]
    fn the_embedded_key_is_the_format_version_and_the_policies_text() {
        let hash = policies_hash(&[BUILTIN, OPT_IN]);
        assert_eq!(
            EMBEDDED_KEY,
            format!("format {FORMAT_VERSION:08x} policies {hash:032x}")
        );
        // One byte more in one text, or a part renamed, is another key.
        let (name, text) = BUILTIN[0];
        let longer = format!("{text}\n");
        for changed in [[(name, longer.as_str())], [("renamed", text)]] {
            let mut packs: Vec<&[(&str, &str)]> = vec![&changed, &BUILTIN[1..]];
            packs.push(OPT_IN);
            assert_ne!(policies_hash(&packs), hash);
        }
    }
}
