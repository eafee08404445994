//! Pattern lists as the validated model holds them: their sources, and slots
//! that stage 3 fills when a list is first needed (see `compile::patterns`).
//!
//! Building a `RegexSet` or `GlobSet` is by far the most expensive thing hookrules
//! does, and most lists are never needed for a given event. So validation only
//! checks that patterns compile (eagerly in `check`), and keeps their sources;
//! `compile::patterns` looks for their required literals first and builds a set
//! only when one of them occurs. Lists with the same patterns share one slot, so
//! rules that use the same named list compile it once between them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use globset::GlobSet;
use regex::Regex;
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;
use regex_automata::{meta, Input, MatchKind, PatternSet};
use serde::{Deserialize, Serialize, Serializer};

/// A fast hash for the tables that share slots between equal lists: every rule
/// read from a compiled set looks its lists up here, and SipHash over a
/// 120-pattern list costs more than the rest of reading it. (Policy text is
/// the user's own; no flooding to defend against.)
#[derive(Default)]
struct ListHasher(u64);

impl std::hash::Hasher for ListHasher {
    fn write(&mut self, bytes: &[u8]) {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
            self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(K);
        }
        for &b in chunks.remainder() {
            self.0 = (self.0.rotate_left(5) ^ u64::from(b)).wrapping_mul(K);
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Shared<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<ListHasher>>;

/// What stage 3 makes of a regex list, shared by every list with the same sources.
#[derive(Debug, Default)]
pub struct RegexSlot {
    /// The compiled set (or why it did not compile).
    pub compiled: OnceLock<Result<CompiledRegexes, PatternError>>,
    /// Per pattern, literals one of which every match contains (None: unknown).
    pub needles: OnceLock<Vec<Option<Vec<String>>>>,
}

/// A list of regexes, matched in one `RegexSet` pass. (Stored as a number
/// into a list table: see [`stored`].)
#[derive(Debug)]
pub struct Regexes {
    /// The patterns as written.
    pub sources: Vec<String>,
    /// Filled by `compile::patterns`.
    pub slot: Arc<RegexSlot>,
}

/// A compiled regex list.
#[derive(Debug)]
pub struct CompiledRegexes {
    /// All patterns, one pass: what `regex::RegexSet` holds, built by
    /// [`CompiledRegexes::build`].
    set: meta::Regex,
    /// Patterns with named groups, by set index, for captures.
    pub capturing: Vec<(usize, Regex)>,
}

impl CompiledRegexes {
    /// The list compiled: one automaton for every pattern, configured as
    /// `regex::RegexSetBuilder` configures it (same syntax, limits, match
    /// semantics and errors) except for its literal prefilter. A list is only
    /// ever asked about a text after hookrules' own search found one of its
    /// literals there (`compile::patterns::regexes_may_match`), so the
    /// prefilter would look for the same literals again, and building it is
    /// most of the build: a case-insensitive alternation of words (`(?i)delete|
    /// destroy|…`) spells out every ASCII case of every word, an Aho-Corasick
    /// automaton of thousands of strings (2.6M of 3.2M instructions for the
    /// pack's `resource-delete` words; 0.44M without). Matching without it
    /// stays linear in the text.
    pub fn build(sources: &[String]) -> Result<CompiledRegexes, PatternError> {
        let config = meta::Config::new()
            .nfa_size_limit(Some(10 * (1 << 20)))
            .hybrid_cache_capacity(2 * (1 << 20))
            .match_kind(MatchKind::All)
            .utf8_empty(true)
            .which_captures(WhichCaptures::None)
            .auto_prefilter(false);
        let set = meta::Builder::new()
            .configure(config)
            .syntax(syntax::Config::new().utf8(true))
            .build_many(sources)
            .map_err(|e| PatternError::RegexList {
                sources: sources.to_vec(),
                error: regex_error(e),
            })?;
        let mut capturing = vec![];
        for (i, s) in sources.iter().enumerate() {
            if s.contains("(?P<") || s.contains("(?<") {
                let re = Regex::new(s).map_err(|error| PatternError::Regex {
                    pattern: s.clone(),
                    error,
                })?;
                if re.capture_names().flatten().next().is_some() {
                    capturing.push((i, re));
                }
            }
        }
        Ok(CompiledRegexes { set, capturing })
    }

    /// The number of patterns.
    pub fn len(&self) -> usize {
        self.set.pattern_len()
    }

    /// Is the list empty?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Does some pattern match `text`?
    pub fn is_match(&self, text: &str) -> bool {
        self.set.is_match(text)
    }

    /// The patterns (by list index) that match `text`.
    pub fn matching(&self, text: &str) -> PatternSet {
        let mut found = PatternSet::new(self.set.pattern_len());
        self.set
            .which_overlapping_matches(&Input::new(text), &mut found);
        found
    }
}

/// A build error as `regex` reports it (its `Error::from_meta_build_error`,
/// which is private): a size limit, or the message of what went wrong.
fn regex_error(e: meta::BuildError) -> regex::Error {
    match (e.size_limit(), e.syntax_error()) {
        (Some(limit), _) => regex::Error::CompiledTooBig(limit),
        (None, Some(syntax)) => regex::Error::Syntax(syntax.to_string()),
        (None, None) => regex::Error::Syntax(e.to_string()),
    }
}

impl Regexes {
    /// A list; its slot is shared with every other list of the same patterns.
    pub fn new(sources: Vec<String>) -> Self {
        static TABLE: OnceLock<Mutex<Shared<Vec<String>, Arc<RegexSlot>>>> = OnceLock::new();
        let mut table = TABLE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let slot = match table.get(&sources) {
            Some(slot) => slot.clone(),
            None => table.entry(sources.clone()).or_default().clone(),
        };
        Regexes { sources, slot }
    }

    /// A list with a slot of its own (read from a list table, whose lists are
    /// already distinct).
    pub fn unshared(sources: Vec<String>) -> Self {
        Regexes {
            sources,
            slot: Default::default(),
        }
    }
}

/// What stage 3 makes of a glob list.
#[derive(Debug, Default)]
pub struct GlobSlot {
    /// Included and excluded (`!pattern`) sets.
    pub compiled: OnceLock<CompiledGlobs>,
    /// Literals one of which every included match contains (None: unknown).
    pub required: OnceLock<Option<Vec<String>>>,
    /// Per pattern (an exclusion without its `!`), the literal every text it
    /// matches contains (None: unknown).
    pub literals: OnceLock<Vec<Option<String>>>,
    /// Does every pattern compile? (A list whose patterns do is compiled in
    /// parts: only the patterns whose literals occur.)
    pub valid: OnceLock<bool>,
    /// The sets of the patterns picked for a text (by pattern index).
    pub parts: Mutex<HashMap<Vec<u32>, Arc<CompiledGlobs>>>,
    /// The included patterns as `shell::glob` compares them with a shell
    /// pattern (`None`: an exclusion, or one left to plain matching).
    pub names: OnceLock<Vec<Option<crate::shell::glob::ListPattern>>>,
    /// The same patterns matched ignoring case, for a place on a Windows
    /// drive (`compile::patterns::for_place`), made when first needed.
    pub folded: OnceLock<Arc<Globs>>,
}

/// Included and excluded (`!pattern`) sets of a glob list (or of some of its
/// patterns), or why they did not compile.
pub type CompiledGlobs = Result<(GlobSet, Option<GlobSet>), PatternError>;

/// Why a pattern list did not compile when it was first needed (`check`
/// reports these before `run` meets them). It lives beside the slots that
/// cache it; `compile::patterns`, which fills them, re-exports it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum PatternError {
    /// The list's `RegexSet` did not build.
    #[error("invalid regex in {sources:?}: {error}")]
    RegexList {
        /// The list's patterns as written.
        sources: Vec<String>,
        /// What the regex crate said.
        #[source]
        error: regex::Error,
    },
    /// One regex (with named groups, compiled alone for its captures).
    #[error("invalid regex {pattern:?}: {error}")]
    Regex {
        /// The pattern as written.
        pattern: String,
        /// What the regex crate said.
        #[source]
        error: regex::Error,
    },
    /// One glob (an exclusion keeps its `!`).
    #[error("invalid glob {pattern:?}: {error}")]
    Glob {
        /// The pattern as written.
        pattern: String,
        /// What globset said.
        #[source]
        error: globset::Error,
    },
    /// The `GlobSet` of valid globs did not build.
    #[error("{0}")]
    GlobSet(#[source] globset::Error),
}

/// Glob patterns with `.gitignore`-style exclusions: a text matches when some
/// pattern matches it and no `!pattern` does. (Stored as a number into a list
/// table: see [`stored`].)
#[derive(Debug)]
pub struct Globs {
    /// The patterns as written (exclusions keep their `!`).
    pub sources: Vec<String>,
    /// Match ignoring case (both sides are lowercased, which keeps globset's
    /// fast literal and extension strategies).
    pub case_insensitive: bool,
    /// Filled by `compile::patterns`.
    pub slot: Arc<GlobSlot>,
}

impl Globs {
    /// A list; its slot is shared with every other list of the same patterns.
    pub fn new(sources: Vec<String>, case_insensitive: bool) -> Self {
        type Table = Shared<(Vec<String>, bool), Arc<GlobSlot>>;
        static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
        let mut table = TABLE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let key = (sources, case_insensitive);
        let slot = match table.get(&key) {
            Some(slot) => slot.clone(),
            None => table.entry(key.clone()).or_default().clone(),
        };
        let (sources, case_insensitive) = key;
        Globs {
            sources,
            case_insensitive,
            slot,
        }
    }

    /// A list with a slot of its own (read from a list table, whose lists are
    /// already distinct).
    pub fn unshared(sources: Vec<String>, case_insensitive: bool) -> Self {
        Globs {
            sources,
            case_insensitive,
            slot: Default::default(),
        }
    }
}

/// A matcher regex, compiled when a value no rule names is first tested.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "String")]
pub struct MatcherRegex {
    /// The regex as written.
    pub source: String,
    compiled: OnceLock<Result<Regex, String>>,
}

impl MatcherRegex {
    /// A matcher regex to compile later.
    pub fn new(source: String) -> Self {
        MatcherRegex {
            source,
            compiled: OnceLock::new(),
        }
    }

    /// A matcher regex already compiled.
    pub fn compiled(re: Regex) -> Self {
        let m = Self::new(re.as_str().to_string());
        let _ = m.compiled.set(Ok(re));
        m
    }

    /// The regex (compiled now if needed).
    pub fn get(&self) -> Result<&Regex, &String> {
        self.compiled
            .get_or_init(|| Regex::new(&self.source).map_err(|e| e.to_string()))
            .as_ref()
    }
}

impl From<String> for MatcherRegex {
    fn from(s: String) -> Self {
        MatcherRegex::new(s)
    }
}

impl Serialize for MatcherRegex {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.source.serialize(s)
    }
}

/// A glob fact's exclusions, with their sources.
#[derive(Debug, Deserialize)]
#[serde(try_from = "Vec<String>")]
pub struct ExcludeGlobs {
    /// The patterns as written.
    pub sources: Vec<String>,
    /// The compiled set.
    pub set: GlobSet,
}

impl TryFrom<Vec<String>> for ExcludeGlobs {
    type Error = String;
    fn try_from(sources: Vec<String>) -> Result<Self, String> {
        let mut b = globset::GlobSetBuilder::new();
        for g in &sources {
            b.add(super::build_glob(g, false).map_err(|e| e.to_string())?);
        }
        let set = b.build().map_err(|e| e.to_string())?;
        Ok(ExcludeGlobs { sources, set })
    }
}

impl Serialize for ExcludeGlobs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.sources.serialize(s)
    }
}

/// A JSONPath query with its text.
///
/// Read from a compiled set, it is parsed when first used: a rule read for an
/// event often never reaches its `jsonpath` test (the file tools' rules test the
/// path first), and parsing the pack's query cost ~86k instructions per rule on
/// every Write (`bench/callgrind.sh`, pre-write). Its text was parsed when the
/// set was validated; a stored record is authenticated, so it still parses.
#[derive(Debug, Deserialize)]
#[serde(from = "String")]
pub struct JsonQuery {
    /// The query as written.
    pub text: String,
    /// The parsed query, when first asked for.
    parsed: OnceLock<Result<jsonpath_rust::parser::model::JpQuery, JsonPathError>>,
}

type JsonPathError = jsonpath_rust::parser::errors::JsonPathError;

impl JsonQuery {
    /// Parse a query now (validation: its error is the user's to see).
    pub fn parse(text: String) -> Result<JsonQuery, JsonPathError> {
        let query = jsonpath_rust::parser::parse_json_path(&text)?;
        Ok(JsonQuery {
            text,
            parsed: OnceLock::from(Ok(query)),
        })
    }

    /// The parsed query (parsed on first use).
    pub fn query(&self) -> Result<&jsonpath_rust::parser::model::JpQuery, JsonPathError> {
        self.parsed
            .get_or_init(|| jsonpath_rust::parser::parse_json_path(&self.text))
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl From<String> for JsonQuery {
    fn from(text: String) -> Self {
        JsonQuery {
            text,
            parsed: OnceLock::new(),
        }
    }
}

impl Serialize for JsonQuery {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(s)
    }
}

/// Pattern lists and named conditions stored once and referred to by number.
///
/// The rules of a compiled artifact use the same few lists many times (the
/// secret-file list, 120 globs, in seven places of two rules), and what a list
/// needs before any set is built (its required literals) depends only on its
/// patterns. So a rule stores each list as a number into a table the artifact
/// keeps beside its rules, with each list once (and, in stage 3, its literals).
/// Named conditions go into the same table: a rule that refers to one in each
/// of its branches (`secret-printing-command`, 119 times) would otherwise hold
/// its body 119 times, and `run` would decode it 119 times.
/// A model holding pattern lists or references serializes only inside
/// [`numbering`] and deserializes only inside [`resolving`]; anywhere else it
/// is an error.
pub mod stored {
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::sync::Arc;

    use serde::{de, ser, Deserialize, Deserializer, Serialize, Serializer};

    use super::{Globs, Regexes};
    use crate::validate::model::NamedCondition;

    /// One entry of a table: a pattern list, or a named condition.
    #[derive(Debug, Clone)]
    pub enum List {
        /// A regex list.
        Regexes(Arc<Regexes>),
        /// A glob list.
        Globs(Arc<Globs>),
        /// A named condition (`[conditions]`): every `ref` to it is its number,
        /// so a rule that refers to it a hundred times stores (and a reader
        /// decodes) its body once, as validation shares it in memory.
        Condition(Arc<NamedCondition>),
    }

    impl List {
        /// The slot's address: equal lists share a slot, so this names the
        /// list; a named condition is named by its own address (validation
        /// makes one per name and policy).
        fn key(&self) -> usize {
            match self {
                List::Regexes(r) => Arc::as_ptr(&r.slot) as *const u8 as usize,
                List::Globs(g) => Arc::as_ptr(&g.slot) as *const u8 as usize,
                List::Condition(c) => Arc::as_ptr(c) as *const u8 as usize,
            }
        }
    }

    /// The lists met while serializing, numbered in order of first use.
    #[derive(Debug, Default)]
    pub struct Numbering {
        /// Every list, by number.
        pub lists: Vec<List>,
        by_key: HashMap<usize, u32>,
        /// The numbers used since [`Numbering::take_used`] last ran (sorted, distinct).
        used: Vec<u32>,
    }

    impl Numbering {
        fn number(&mut self, list: List) -> u32 {
            let n = *self.by_key.entry(list.key()).or_insert_with(|| {
                self.lists.push(list);
                (self.lists.len() - 1) as u32
            });
            if let Err(at) = self.used.binary_search(&n) {
                self.used.insert(at, n);
            }
            n
        }

        /// The numbers of the lists used since the last call.
        pub fn take_used(&mut self) -> Vec<u32> {
            std::mem::take(&mut self.used)
        }
    }

    thread_local! {
        static NUMBERING: RefCell<Option<Numbering>> = const { RefCell::new(None) };
        static RESOLVING: RefCell<Option<Vec<Option<List>>>> = const { RefCell::new(None) };
    }

    /// Puts a table back where it came from, even if `f` panics.
    struct Restore<'a, T: Default, F: Fn() -> Option<T>> {
        into: &'a mut T,
        take: F,
    }

    impl<T: Default, F: Fn() -> Option<T>> Drop for Restore<'_, T, F> {
        fn drop(&mut self) {
            *self.into = (self.take)().unwrap_or_default();
        }
    }

    /// Run `f` (which serializes) with pattern lists written as numbers into `table`.
    pub fn numbering<R>(table: &mut Numbering, f: impl FnOnce() -> R) -> R {
        NUMBERING.with(|t| *t.borrow_mut() = Some(std::mem::take(table)));
        let _restore = Restore {
            into: table,
            take: || NUMBERING.with(|t| t.borrow_mut().take()),
        };
        f()
    }

    /// Run `f` (which deserializes) with list numbers read from `lists` (a
    /// number whose entry is `None` or missing is an error).
    pub fn resolving<R>(lists: &mut Vec<Option<List>>, f: impl FnOnce() -> R) -> R {
        RESOLVING.with(|t| *t.borrow_mut() = Some(std::mem::take(lists)));
        let _restore = Restore {
            into: lists,
            take: || RESOLVING.with(|t| t.borrow_mut().take()),
        };
        f()
    }

    fn write<S: Serializer>(list: List, s: S) -> Result<S::Ok, S::Error> {
        let n = NUMBERING
            .with(|t| t.borrow_mut().as_mut().map(|t| t.number(list)))
            .ok_or_else(|| ser::Error::custom("a pattern list outside a list table"))?;
        n.serialize(s)
    }

    fn read<'de, D: Deserializer<'de>>(d: D) -> Result<List, D::Error> {
        let n = u32::deserialize(d)?;
        RESOLVING
            .with(|t| {
                t.borrow()
                    .as_ref()
                    .and_then(|t| t.get(n as usize).cloned().flatten())
            })
            .ok_or_else(|| de::Error::custom(format!("pattern list {n} is not in the table")))
    }

    /// `#[serde(with)]` for `Arc<Regexes>`.
    pub mod regexes {
        use super::*;
        /// Write the list's number.
        pub fn serialize<S: Serializer>(r: &Arc<Regexes>, s: S) -> Result<S::Ok, S::Error> {
            write(List::Regexes(r.clone()), s)
        }
        /// Read a number; the list it names.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Regexes>, D::Error> {
            match read(d)? {
                List::Regexes(r) => Ok(r),
                _ => Err(de::Error::custom("another entry where regexes belong")),
            }
        }
    }

    /// `#[serde(with)]` for `Arc<Globs>`.
    pub mod globs {
        use super::*;
        /// Write the list's number.
        pub fn serialize<S: Serializer>(g: &Arc<Globs>, s: S) -> Result<S::Ok, S::Error> {
            write(List::Globs(g.clone()), s)
        }
        /// Read a number; the list it names.
        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<Globs>, D::Error> {
            match read(d)? {
                List::Globs(g) => Ok(g),
                _ => Err(de::Error::custom("another entry where globs belong")),
            }
        }
    }

    /// `#[serde(with)]` for `Arc<NamedCondition>` (a `ref`).
    pub mod named {
        use super::*;
        /// Write the condition's number.
        pub fn serialize<S: Serializer>(c: &Arc<NamedCondition>, s: S) -> Result<S::Ok, S::Error> {
            write(List::Condition(c.clone()), s)
        }
        /// Read a number; the condition it names.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Arc<NamedCondition>, D::Error> {
            match read(d)? {
                List::Condition(c) => Ok(c),
                _ => Err(de::Error::custom(
                    "a pattern list where a condition belongs",
                )),
            }
        }
    }

    /// `#[serde(with)]` for `Option<Arc<Regexes>>`.
    pub mod opt_regexes {
        use super::*;
        #[derive(Serialize, Deserialize)]
        struct W(#[serde(with = "super::regexes")] Arc<Regexes>);
        /// Write the list's number, if any.
        pub fn serialize<S: Serializer>(r: &Option<Arc<Regexes>>, s: S) -> Result<S::Ok, S::Error> {
            r.clone().map(W).serialize(s)
        }
        /// Read an optional number.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Arc<Regexes>>, D::Error> {
            Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
        }
    }

    /// `#[serde(with)]` for `Option<Arc<Globs>>`.
    pub mod opt_globs {
        use super::*;
        #[derive(Serialize, Deserialize)]
        struct W(#[serde(with = "super::globs")] Arc<Globs>);
        /// Write the list's number, if any.
        pub fn serialize<S: Serializer>(g: &Option<Arc<Globs>>, s: S) -> Result<S::Ok, S::Error> {
            g.clone().map(W).serialize(s)
        }
        /// Read an optional number.
        pub fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<Option<Arc<Globs>>, D::Error> {
            Ok(Option::<W>::deserialize(d)?.map(|w| w.0))
        }
    }
}
