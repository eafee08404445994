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
use regex::{Regex, RegexSet};
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
    pub compiled: OnceLock<Result<CompiledRegexes, String>>,
    /// Per pattern, literals one of which every match contains (None: unknown).
    pub required: OnceLock<Vec<Option<Vec<String>>>>,
}

/// A list of regexes, matched in one `RegexSet` pass.
#[derive(Debug, Deserialize)]
#[serde(from = "Vec<String>")]
pub struct Regexes {
    /// The patterns as written.
    pub sources: Vec<String>,
    /// Filled by `compile::patterns`.
    pub slot: Arc<RegexSlot>,
}

/// A compiled regex list.
#[derive(Debug)]
pub struct CompiledRegexes {
    /// All patterns, one pass.
    pub set: RegexSet,
    /// Patterns with named groups, by set index, for captures.
    pub capturing: Vec<(usize, Regex)>,
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
}

impl From<Vec<String>> for Regexes {
    fn from(sources: Vec<String>) -> Self {
        Regexes::new(sources)
    }
}

impl Serialize for Regexes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.sources.serialize(s)
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
}

/// Included and excluded (`!pattern`) sets of a glob list (or of some of its
/// patterns), or why they did not compile.
pub type CompiledGlobs = Result<(GlobSet, Option<GlobSet>), String>;

/// Glob patterns with `.gitignore`-style exclusions: a text matches when some
/// pattern matches it and no `!pattern` does.
#[derive(Debug, Deserialize)]
#[serde(from = "(Vec<String>, bool)")]
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
}

impl From<(Vec<String>, bool)> for Globs {
    fn from((sources, ci): (Vec<String>, bool)) -> Self {
        Globs::new(sources, ci)
    }
}

impl Serialize for Globs {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        (&self.sources, self.case_insensitive).serialize(s)
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
#[derive(Debug, Deserialize)]
#[serde(try_from = "String")]
pub struct JsonQuery {
    /// The query as written.
    pub text: String,
    /// The parsed query.
    pub query: jsonpath_rust::parser::model::JpQuery,
}

impl TryFrom<String> for JsonQuery {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        let query = jsonpath_rust::parser::parse_json_path(&text).map_err(|e| e.to_string())?;
        Ok(JsonQuery { text, query })
    }
}

impl Serialize for JsonQuery {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.text.serialize(s)
    }
}
