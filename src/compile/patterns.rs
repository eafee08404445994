//! Pattern lists compiled only for what can match: each list's required
//! literals are looked for first, and its `RegexSet` or `GlobSet` is built (once
//! per process, shared by every rule using the same patterns) only when one of
//! them occurs in the text at hand. So the 50-glob secret list costs a few
//! substring searches for `npm test`, not a `GlobSet`.

use std::sync::Arc;

use globset::GlobSetBuilder;

use serde::{Deserialize, Serialize};

use super::literals;
use crate::shell::glob::{self, ListPattern, ShellPattern};
use crate::validate::build_glob;
use crate::validate::model::{Globs, Regexes};
use crate::validate::patterns::stored::List;
pub use crate::validate::patterns::PatternError;
use crate::validate::patterns::{CompiledGlobs, CompiledRegexes};

/// A pattern list as a compiled artifact stores it: its patterns, and what is
/// derived from them alone before any set is built (required literals,
/// validity), so a process that reads the list does not derive it again.
#[derive(Debug, Serialize, Deserialize)]
pub enum StoredList {
    /// A regex list.
    Regexes {
        /// The patterns as written.
        sources: Vec<String>,
        /// [`regex_needles`].
        needles: Vec<Option<Vec<String>>>,
    },
    /// A glob list.
    Globs {
        /// The patterns as written.
        sources: Vec<String>,
        /// Matched ignoring case.
        case_insensitive: bool,
        /// [`glob_literals`].
        literals: Vec<Option<String>>,
        /// [`glob_required`].
        required: Option<Vec<String>>,
        /// [`globs_valid`].
        valid: bool,
    },
}

impl StoredList {
    /// A list with everything it stores derived (`None` for a named
    /// condition: the artifact stores its body, see `compile::artifact`).
    pub fn of(list: &List) -> Option<StoredList> {
        Some(match list {
            List::Regexes(r) => StoredList::Regexes {
                sources: r.sources.clone(),
                needles: regex_needles(r).to_vec(),
            },
            List::Globs(g) => StoredList::Globs {
                sources: g.sources.clone(),
                case_insensitive: g.case_insensitive,
                literals: glob_literals(g).to_vec(),
                required: glob_required(g).cloned(),
                valid: globs_valid(g),
            },
            List::Condition(_) => return None,
        })
    }

    /// The list, with what was derived already in its slot (no set is built).
    pub fn into_list(self) -> List {
        match self {
            StoredList::Regexes { sources, needles } => {
                let r = Regexes::unshared(sources);
                let _ = r.slot.needles.set(needles);
                List::Regexes(Arc::new(r))
            }
            StoredList::Globs {
                sources,
                case_insensitive,
                literals,
                required,
                valid,
            } => {
                let g = Globs::unshared(sources, case_insensitive);
                let _ = g.slot.literals.set(literals);
                let _ = g.slot.required.set(required);
                let _ = g.slot.valid.set(valid);
                List::Globs(Arc::new(g))
            }
        }
    }
}

/// The compiled list (compiled now if needed).
pub fn regex_set(r: &Regexes) -> Result<&CompiledRegexes, PatternError> {
    r.slot
        .compiled
        .get_or_init(|| {
            built(Built::Regexes(r.sources.clone()));
            CompiledRegexes::build(&r.sources)
        })
        .as_ref()
        .map_err(|e| e.clone())
}

/// A pattern set this thread compiled: building one is the most expensive
/// thing an event can make hookrules do, so a test keeps count
/// ([`take_built`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Built {
    /// A regex list's set, by its patterns.
    Regexes(Vec<String>),
    /// A glob list's sets (of all its patterns or of some).
    Globs {
        /// The patterns compiled.
        patterns: Vec<String>,
        /// Matched ignoring case.
        case_insensitive: bool,
    },
}

thread_local! {
    static BUILT: std::cell::RefCell<Vec<Built>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn built(what: Built) {
    BUILT.with(|b| b.borrow_mut().push(what));
}

/// The pattern sets this thread compiled since it last asked, in order.
pub fn take_built() -> Vec<Built> {
    BUILT.with(|b| std::mem::take(&mut *b.borrow_mut()))
}

/// Per pattern, literals (of any length) one of which every match contains.
pub fn regex_needles(r: &Regexes) -> &[Option<Vec<String>>] {
    r.slot.needles.get_or_init(|| {
        r.sources
            .iter()
            .map(|p| literals::regex_needles(p))
            .collect()
    })
}

/// Can any pattern of the list match any of the texts? `false` is certain;
/// `true` means the set has to be asked.
pub fn regexes_may_match(r: &Regexes, texts: &[String]) -> bool {
    let required = regex_needles(r);
    if required.iter().any(Option::is_none) {
        return true;
    }
    let lowered: Vec<Vec<u8>> = texts
        .iter()
        .map(|t| t.to_ascii_lowercase().into_bytes())
        .collect();
    required
        .iter()
        .flatten()
        .any(|lits| lowered.iter().any(|t| literals::any_in(lits, t)))
}

/// The sets of some of a list's patterns (in list order).
fn build_globs<'a>(g: &Globs, patterns: impl Iterator<Item = &'a String>) -> CompiledGlobs {
    let patterns: Vec<&String> = patterns.collect();
    built(Built::Globs {
        patterns: patterns.iter().map(|p| p.to_string()).collect(),
        case_insensitive: g.case_insensitive,
    });
    let mut include = GlobSetBuilder::new();
    let mut exclude = GlobSetBuilder::new();
    let mut excludes = 0;
    for pat in patterns {
        let (builder, p) = match pat.strip_prefix('!') {
            Some(p) => {
                excludes += 1;
                (&mut exclude, p)
            }
            None => (&mut include, pat.as_str()),
        };
        let p = if g.case_insensitive {
            p.to_lowercase()
        } else {
            p.to_string()
        };
        builder.add(build_glob(&p, false).map_err(|error| PatternError::Glob {
            pattern: pat.clone(),
            error,
        })?);
    }
    let include = include.build().map_err(PatternError::GlobSet)?;
    let exclude = exclude.build().map_err(PatternError::GlobSet)?;
    Ok((include, (excludes > 0).then_some(exclude)))
}

fn glob_sets(g: &Globs) -> Result<&(globset::GlobSet, Option<globset::GlobSet>), PatternError> {
    g.slot
        .compiled
        .get_or_init(|| build_globs(g, g.sources.iter()))
        .as_ref()
        .map_err(|e| e.clone())
}

/// Per pattern (an exclusion without its `!`), the literal every text it
/// matches contains.
fn glob_literals(g: &Globs) -> &[Option<String>] {
    g.slot.literals.get_or_init(|| {
        g.sources
            .iter()
            .map(|p| literals::of_glob(p.strip_prefix('!').unwrap_or(p)))
            .collect()
    })
}

/// Literals one of which every text an included pattern matches contains.
pub fn glob_required(g: &Globs) -> Option<&Vec<String>> {
    g.slot
        .required
        .get_or_init(|| {
            let mut out = vec![];
            for (pat, lit) in g.sources.iter().zip(glob_literals(g)) {
                if !pat.starts_with('!') {
                    out.push(lit.clone()?);
                }
            }
            literals::finish_globs(out)
        })
        .as_ref()
}

/// For the prefilter (`compile::reach`): per included pattern, a literal
/// every text it matches contains, after a NUL when every such text starts
/// with it (`/dev/sd` of `/dev/sd[a-z]*`: a path in `/home/dev/` does not
/// hold it where it must); `None` when an included pattern has none.
pub fn glob_atoms(g: &Globs) -> Option<Vec<String>> {
    let mut out = vec![];
    for (pat, lit) in g.sources.iter().zip(glob_literals(g)) {
        if pat.starts_with('!') {
            continue;
        }
        let lit = lit.as_ref()?;
        let pat = if g.case_insensitive {
            pat.to_lowercase()
        } else {
            pat.clone()
        };
        let starts = crate::validate::glob_as_matched(&pat)
            .get(..lit.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(lit));
        out.push(if starts {
            format!("\0{lit}")
        } else {
            lit.clone()
        });
    }
    literals::finish_globs(out)
}

/// Does every pattern of the list compile? Only then may a text be matched
/// against some of them: a broken pattern reports itself as soon as a text
/// could match the list, as when the whole list is compiled. Only patterns with
/// classes, braces or escapes are parsed here: the others are literal text,
/// `*`, `?` and `**`, whose one way to be invalid (`**` inside a name) leaves
/// them without a literal, so they are always compiled.
fn globs_valid(g: &Globs) -> bool {
    *g.slot.valid.get_or_init(|| {
        g.sources.iter().all(|pat| {
            let p = pat.strip_prefix('!').unwrap_or(pat);
            if !p.contains(['[', ']', '{', '}', '\\']) {
                return true;
            }
            let p = if g.case_insensitive {
                p.to_lowercase()
            } else {
                p.to_string()
            };
            build_glob(&p, false).is_ok()
        })
    })
}

/// The list as a path's place compares names: ignoring case on a Windows
/// drive or share (`shell::place::ignores_case`: `C:\Users\dev\.GIT\hooks` is
/// the project's `.git/hooks`), as written elsewhere. The case-folded twin
/// is made, with a slot of its own, when a Windows path first meets the list.
pub fn for_place<'g>(g: &'g Globs, path: &str) -> &'g Globs {
    if g.case_insensitive || !crate::shell::place::ignores_case(path) {
        return g;
    }
    g.slot
        .folded
        .get_or_init(|| Arc::new(Globs::unshared(g.sources.clone(), true)))
}

/// Compile now (for `check`).
pub fn force_globs(g: &Globs) -> Result<(), PatternError> {
    glob_sets(g).map(|_| ())
}

/// The texts as a list's patterns see them: lowercased for a
/// case-insensitive list, as they are otherwise (borrowed, not copied).
fn folded<'a>(g: &Globs, texts: &'a [String]) -> std::borrow::Cow<'a, [String]> {
    if g.case_insensitive {
        std::borrow::Cow::Owned(texts.iter().map(|t| t.to_lowercase()).collect())
    } else {
        std::borrow::Cow::Borrowed(texts)
    }
}

/// Does any of `texts` match? A text excluded in one of its forms (a path's
/// `~/…` view, say) is excluded in all: the forms name the same file.
///
/// Only the patterns that can match are compiled: those whose literal occurs in
/// some text (or that have none). A pattern whose literal occurs in no text
/// matches none of them, included or excluded, so the answer is the whole
/// list's; the secret-file list compiles three patterns for `.env`, not 120.
pub fn globs_match(g: &Globs, texts: &[String]) -> Result<bool, PatternError> {
    let texts = folded(g, texts);
    let texts: &[String] = &texts;
    let ascii: Vec<Vec<u8>> = texts
        .iter()
        .map(|t| t.to_ascii_lowercase().into_bytes())
        .collect();
    if let Some(lits) = glob_required(g) {
        if !ascii.iter().any(|t| literals::any_in(lits, t)) {
            // No included pattern can match (a broken pattern still reports
            // itself once a text could match).
            return Ok(false);
        }
    }
    let picked: Vec<u32> = glob_literals(g)
        .iter()
        .enumerate()
        .filter(|(_, lit)| match lit {
            None => true,
            Some(l) => ascii
                .iter()
                .any(|t| memchr::memmem::find(t, l.as_bytes()).is_some()),
        })
        .map(|(i, _)| i as u32)
        .collect();
    let part: Arc<CompiledGlobs>;
    let (include, exclude) = if picked.len() == g.sources.len() || !globs_valid(g) {
        glob_sets(g)?
    } else {
        let mut parts = g.slot.parts.lock().unwrap_or_else(|e| e.into_inner());
        part = parts
            .entry(picked)
            .or_insert_with_key(|picked| {
                Arc::new(build_globs(
                    g,
                    picked.iter().map(|&i| &g.sources[i as usize]),
                ))
            })
            .clone();
        drop(parts);
        part.as_ref().as_ref().map_err(|e| e.clone())?
    };
    if exclude
        .as_ref()
        .is_some_and(|x| texts.iter().any(|t| x.is_match(t)))
    {
        return Ok(false);
    }
    Ok(texts.iter().any(|t| include.is_match(t)))
}

/// Does any of `texts` match, or, when the path is a shell pattern
/// (`patterns`: its marked forms, see `shell::glob`), can the pattern name a
/// path the list names (`cat .e*` names `.env`)? A pattern whose text an
/// exclusion matches (`~/.ssh/*.pub` by `!*.pub`) is excluded, as its text is.
pub fn globs_name(g: &Globs, texts: &[String], patterns: &[String]) -> Result<bool, PatternError> {
    if globs_match(g, texts)? {
        return Ok(true);
    }
    if patterns.is_empty() {
        return Ok(false);
    }
    let lowered = folded(g, texts);
    let shells: Vec<ShellPattern> = patterns
        .iter()
        .filter_map(|p| ShellPattern::parse(p, g.case_insensitive))
        .collect();
    let lists = g.slot.names.get_or_init(|| {
        g.sources
            .iter()
            .map(|p| {
                if p.starts_with('!') {
                    return None;
                }
                ListPattern::parse(&if g.case_insensitive {
                    p.to_lowercase()
                } else {
                    p.clone()
                })
            })
            .collect()
    });
    let named = lists
        .iter()
        .flatten()
        .any(|l| shells.iter().any(|s| glob::names(s, l)));
    Ok(named && !excluded(g, &lowered)?)
}

/// Does an exclusion of the list match one of the (already case-folded)
/// texts? Only the exclusions whose literal occurs are compiled.
fn excluded(g: &Globs, texts: &[String]) -> Result<bool, PatternError> {
    let ascii: Vec<Vec<u8>> = texts
        .iter()
        .map(|t| t.to_ascii_lowercase().into_bytes())
        .collect();
    let picked: Vec<u32> = g
        .sources
        .iter()
        .zip(glob_literals(g))
        .enumerate()
        .filter(|(_, (src, lit))| {
            src.starts_with('!')
                && match lit {
                    None => true,
                    Some(l) => ascii
                        .iter()
                        .any(|t| memchr::memmem::find(t, l.as_bytes()).is_some()),
                }
        })
        .map(|(i, _)| i as u32)
        .collect();
    if picked.is_empty() {
        return Ok(false);
    }
    let part = {
        let mut parts = g.slot.parts.lock().unwrap_or_else(|e| e.into_inner());
        parts
            .entry(picked)
            .or_insert_with_key(|picked| {
                Arc::new(build_globs(
                    g,
                    picked.iter().map(|&i| &g.sources[i as usize]),
                ))
            })
            .clone()
    };
    let (_, exclude) = part.as_ref().as_ref().map_err(|e| e.clone())?;
    Ok(exclude
        .as_ref()
        .is_some_and(|x| texts.iter().any(|t| x.is_match(t))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use regex::{Regex, RegexSetBuilder};

    /// A list compiled without its literal prefilter matches what
    /// `regex::RegexSet` matches (every pattern on every text), and a list
    /// that does not build fails with the error `regex` gives.
    #[test]
    fn a_compiled_list_matches_as_a_regex_set_does() {
        let lists: &[&[&str]] = &[
            &[r"(?i-u)delete|destroy|terminate|undefine|remove|\brm\b|clear-|reset-|uninstall-"],
            &[
                r"(?i)^(get|read)-([a-z0-9]+-)*(secret|key)s?$",
                r"\bSecret\b",
                r"^$",
            ],
            &[
                r"(?i)k=",
                r"\w+",
                r"\d+",
                r"^\s*$",
                r"é+",
                r"(?-u:\w)x",
                r"(?P<who>curl|wget)\s",
            ],
            &[r"a|", r"x*", r"(?m)^b$"],
        ];
        let texts = [
            "rm -rf /",
            "Remove-Item -Recurse ~",
            "REMOVE-ITEM x",
            "Get-Secret",
            "get-vault-keys",
            "\u{212a}=1",
            "K=1",
            "ſecret",
            "",
            "a\nb\n",
            "curl https://x",
            "café é",
            "☃",
            "x_rmdir remove1",
        ];
        for list in lists {
            let sources: Vec<String> = list.iter().map(|s| s.to_string()).collect();
            let ours = CompiledRegexes::build(&sources).unwrap();
            let theirs = RegexSetBuilder::new(&sources).build().unwrap();
            assert_eq!(ours.len(), theirs.len());
            for t in texts {
                let got: Vec<usize> = ours.matching(t).iter().map(|p| p.as_usize()).collect();
                let want: Vec<usize> = theirs.matches(t).iter().collect();
                assert_eq!(got, want, "{list:?} on {t:?}");
                assert_eq!(ours.is_match(t), theirs.is_match(t), "{list:?} on {t:?}");
            }
        }
        for bad in [&["(unclosed"][..], &["ok", "[z-a]"], &[r"\w{1000}{1000}"]] {
            let sources: Vec<String> = bad.iter().map(|s| s.to_string()).collect();
            let Err(PatternError::RegexList { error, .. }) = CompiledRegexes::build(&sources)
            else {
                panic!("{bad:?} builds");
            };
            let want = RegexSetBuilder::new(&sources).build().unwrap_err();
            assert_eq!(error.to_string(), want.to_string());
        }
    }

    /// The whole list compiled at once, as before lists were compiled in parts.
    fn whole(g: &Globs, texts: &[String]) -> Result<bool, PatternError> {
        let texts = folded(g, texts);
        let (include, exclude) = build_globs(g, g.sources.iter())?;
        if exclude.is_some_and(|x| texts.iter().any(|t| x.is_match(t))) {
            return Ok(false);
        }
        Ok(texts.iter().any(|t| include.is_match(t)))
    }

    #[test]
    fn a_regex_list_is_skipped_only_when_no_pattern_can_match() {
        let patterns = [
            r"\( ?\)",
            r"([A-Za-z_:.][A-Za-z0-9_:.-]*)\s*\(\s*\)\s*\{[^}]*\|[^}]*&[^}]*\}",
            r"\(\s*\)\s*\{[^}]*[^&>]&[^}&]*[^&>]&[^}]*\}",
            r"(?i)^--(include|glob|iglob)=\.(e(nv?)?)?([*?\[]|$)",
            r"^of=/dev/(sd|hd|vd)",
            r"(?i)k=",
            r"a.*b",
            r"x?",
            r"[Kk]\$",
        ];
        let texts = [
            "npm test -- --watch=false",
            ":(){ :|:& };:",
            "f() { f | f & }; f",
            "() {",
            "( )",
            "--INCLUDE=.e",
            "of=/dev/sda",
            "K=1",
            "\u{212a}=1",
            "ab",
            "",
            "k$",
        ];
        for p in patterns {
            let r = Regexes::new(vec![p.to_string()]);
            let re = Regex::new(p).unwrap();
            for t in texts {
                let t = vec![t.to_string()];
                if !regexes_may_match(&r, &t) {
                    assert!(!re.is_match(&t[0]), "{p:?} skipped on {t:?}");
                }
            }
        }
        let paren = Regexes::new(vec![r"\( ?\)".to_string()]);
        assert!(!regexes_may_match(&paren, &["npm test".to_string()]));
    }

    /// The secret-file list of the built-in pack, as written.
    fn secret_files() -> Vec<String> {
        let text = crate::policy::discover::builtin_named("secrets")
            .expect("the secrets pack")
            .text
            .to_string();
        let doc: toml::Table = toml::from_str(&text).expect("toml");
        doc["lists"]["secret_files"]
            .as_array()
            .expect("a list")
            .iter()
            .map(|v| v.as_str().expect("a string").to_string())
            .collect()
    }

    #[test]
    fn a_list_compiled_in_parts_answers_as_the_whole_list() {
        let lists = [
            (secret_files(), true),
            (secret_files(), false),
            (
                [
                    "/etc/**",
                    "~/.ssh/**",
                    "*.{pem,KEY}",
                    "!*.pub",
                    "!**/Public/**",
                    "id_*",
                    "a?c",
                    "[ab]x",
                    "**",
                ]
                .map(String::from)
                .to_vec(),
                false,
            ),
            (
                ["src/**/*.rs", "!src/gen/**", "bad**glob", "*.toml"]
                    .map(String::from)
                    .to_vec(),
                false,
            ),
        ];
        let paths = [
            ".env",
            "/home/u/proj/.env",
            "~/proj/.ENV.local",
            ".env.example",
            "docs/.env.md",
            "/home/u/.ssh/id_rsa",
            "~/.ssh/id_rsa.pub",
            "~/.ssh/known_hosts",
            "~/.ssh/config",
            "/etc/passwd",
            "/etc/shadow",
            "/",
            "/etc",
            "server.KEY",
            "cert.pem",
            "ca.pem",
            "secrets.yaml",
            "Secrets.YAML",
            "secrets.yaml.example",
            "k8s/db-secret.yml",
            "credentials",
            "aws/credentials.json",
            "~/.aws/config",
            "README.md",
            "src/main.rs",
            "src/gen/x.rs",
            "Cargo.toml",
            "abc",
            "ax",
            "/proc/1/environ",
            "~/.kube/config",
            "terraform.tfstate.backup",
            "x/Public/key.pem",
            "npm",
            "test",
            "",
        ];
        for (sources, ci) in lists {
            let g = Arc::new(Globs::new(sources, ci));
            // As an artifact stores and reads it back: its literals are not derived again.
            let bytes =
                postcard::to_allocvec(&StoredList::of(&List::Globs(g.clone())).unwrap()).unwrap();
            let List::Globs(read) = postcard::from_bytes::<StoredList>(&bytes)
                .unwrap()
                .into_list()
            else {
                panic!("a glob list")
            };
            assert!(read.slot.literals.get().is_some() && read.slot.valid.get().is_some());
            for a in paths {
                for b in ["", "/tmp/x", "~/.ssh/id_ed25519", "/etc/ssl/private/k"] {
                    let texts: Vec<String> = [a, b]
                        .iter()
                        .filter(|t| !t.is_empty())
                        .map(|t| t.to_string())
                        .collect();
                    // Errors compare by what they say.
                    let said = |r: Result<bool, PatternError>| r.map_err(|e| e.to_string());
                    let want = said(whole(&g, &texts));
                    assert_eq!(
                        said(globs_match(&g, &texts)),
                        want,
                        "{texts:?} in {:?}",
                        g.sources
                    );
                    assert_eq!(said(globs_match(&read, &texts)), want, "stored: {texts:?}");
                }
            }
        }
    }
}
