//! Pattern lists compiled on first use.
//!
//! Building a `RegexSet` or `GlobSet` is by far the most expensive thing hookrules
//! does, and most patterns are never needed for a given event (a rule about `rm`
//! never looks at its target globs when the command is `ls`). So `run` validates
//! pattern syntax lazily: each list is compiled the first time a condition needs
//! it, once per process. `check` calls [`Regexes::force`] / [`Globs::force`] on
//! everything, so its diagnostics still point at the offending character.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use globset::{GlobSet, GlobSetBuilder};
use regex::{Regex, RegexSet, RegexSetBuilder};

/// A list of regexes, matched in one `RegexSet` pass.
#[derive(Debug)]
pub struct Regexes {
    /// The patterns as written.
    pub sources: Vec<String>,
    compiled: OnceLock<Result<CompiledRegexes, String>>,
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
    /// A list to compile later.
    pub fn new(sources: Vec<String>) -> Self {
        Regexes {
            sources,
            compiled: OnceLock::new(),
        }
    }

    /// The shared instance for these patterns: rules that use the same list
    /// (a named list, typically) compile it once between them.
    pub fn interned(sources: Vec<String>) -> Arc<Self> {
        static TABLE: OnceLock<Mutex<HashMap<Vec<String>, Arc<Regexes>>>> = OnceLock::new();
        let mut t = TABLE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        t.entry(sources.clone())
            .or_insert_with(|| Arc::new(Regexes::new(sources)))
            .clone()
    }

    /// The compiled list (compiled now if needed).
    pub fn get(&self) -> Result<&CompiledRegexes, String> {
        self.compiled
            .get_or_init(|| {
                let set = RegexSetBuilder::new(&self.sources)
                    .build()
                    .map_err(|e| format!("invalid regex in {:?}: {e}", self.sources))?;
                let mut capturing = vec![];
                for (i, s) in self.sources.iter().enumerate() {
                    if s.contains("(?P<") || s.contains("(?<") {
                        let re = Regex::new(s).map_err(|e| format!("invalid regex {s:?}: {e}"))?;
                        if re.capture_names().flatten().next().is_some() {
                            capturing.push((i, re));
                        }
                    }
                }
                Ok(CompiledRegexes { set, capturing })
            })
            .as_ref()
            .map_err(|e| e.clone())
    }

    /// Compile now (for `check`).
    pub fn force(&self) -> Result<(), String> {
        self.get().map(|_| ())
    }
}

/// Glob patterns with `.gitignore`-style exclusions: a text matches when some
/// pattern matches it and no `!pattern` does.
#[derive(Debug)]
pub struct Globs {
    /// The patterns as written (exclusions keep their `!`).
    pub sources: Vec<String>,
    /// Match ignoring case (both sides are lowercased, which keeps globset's
    /// fast literal and extension strategies).
    pub case_insensitive: bool,
    compiled: OnceLock<Result<(GlobSet, Option<GlobSet>), String>>,
}

impl Globs {
    /// A list to compile later.
    pub fn new(sources: Vec<String>, case_insensitive: bool) -> Self {
        Globs {
            sources,
            case_insensitive,
            compiled: OnceLock::new(),
        }
    }

    /// The shared instance for these patterns (see [`Regexes::interned`]).
    pub fn interned(sources: Vec<String>, case_insensitive: bool) -> Arc<Self> {
        type Table = HashMap<(Vec<String>, bool), Arc<Globs>>;
        static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
        let mut t = TABLE
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        t.entry((sources.clone(), case_insensitive))
            .or_insert_with(|| Arc::new(Globs::new(sources, case_insensitive)))
            .clone()
    }

    fn get(&self) -> Result<&(GlobSet, Option<GlobSet>), String> {
        self.compiled
            .get_or_init(|| {
                let mut include = GlobSetBuilder::new();
                let mut exclude = GlobSetBuilder::new();
                let mut excludes = 0;
                for pat in &self.sources {
                    let (builder, p) = match pat.strip_prefix('!') {
                        Some(p) => {
                            excludes += 1;
                            (&mut exclude, p)
                        }
                        None => (&mut include, pat.as_str()),
                    };
                    let p = if self.case_insensitive {
                        p.to_lowercase()
                    } else {
                        p.to_string()
                    };
                    builder.add(
                        super::build_glob(&p, false)
                            .map_err(|e| format!("invalid glob {pat:?}: {e}"))?,
                    );
                }
                let include = include.build().map_err(|e| e.to_string())?;
                let exclude = exclude.build().map_err(|e| e.to_string())?;
                Ok((include, (excludes > 0).then_some(exclude)))
            })
            .as_ref()
            .map_err(|e| e.clone())
    }

    /// Compile now (for `check`).
    pub fn force(&self) -> Result<(), String> {
        self.get().map(|_| ())
    }

    /// Does any of `texts` match? A text excluded in one of its forms (a path's
    /// `~/…` view, say) is excluded in all: the forms name the same file.
    pub fn any_match(&self, texts: &[String]) -> Result<bool, String> {
        let (include, exclude) = self.get()?;
        let lowered: Vec<String>;
        let texts: &[String] = if self.case_insensitive {
            lowered = texts.iter().map(|t| t.to_lowercase()).collect();
            &lowered
        } else {
            texts
        };
        if exclude
            .as_ref()
            .is_some_and(|x| texts.iter().any(|t| x.is_match(t)))
        {
            return Ok(false);
        }
        Ok(texts.iter().any(|t| include.is_match(t)))
    }
}
