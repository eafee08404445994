//! Pattern lists compiled only for what can match: each list's required
//! literals are looked for first, and its `RegexSet` or `GlobSet` is built (once
//! per process, shared by every rule using the same patterns) only when one of
//! them occurs in the text at hand. So the 50-glob secret list costs a few
//! substring searches for `npm test`, not a `GlobSet`.

use globset::GlobSetBuilder;
use regex::{Regex, RegexSetBuilder};

use super::literals;
use crate::validate::build_glob;
use crate::validate::model::{Globs, Regexes};
use crate::validate::patterns::CompiledRegexes;

/// The compiled list (compiled now if needed).
pub fn regex_set(r: &Regexes) -> Result<&CompiledRegexes, String> {
    r.slot
        .compiled
        .get_or_init(|| {
            let set = RegexSetBuilder::new(&r.sources)
                .build()
                .map_err(|e| format!("invalid regex in {:?}: {e}", r.sources))?;
            let mut capturing = vec![];
            for (i, s) in r.sources.iter().enumerate() {
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

/// Per pattern, literals one of which every match contains.
pub fn regex_required(r: &Regexes) -> &[Option<Vec<String>>] {
    r.slot
        .required
        .get_or_init(|| r.sources.iter().map(|p| literals::of_regex(p)).collect())
}

/// Can any pattern of the list match any of the texts? `false` is certain;
/// `true` means the set has to be asked.
pub fn regexes_may_match(r: &Regexes, texts: &[String]) -> bool {
    let required = regex_required(r);
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

fn glob_sets(g: &Globs) -> Result<&(globset::GlobSet, Option<globset::GlobSet>), String> {
    g.slot
        .compiled
        .get_or_init(|| {
            let mut include = GlobSetBuilder::new();
            let mut exclude = GlobSetBuilder::new();
            let mut excludes = 0;
            for pat in &g.sources {
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
                builder
                    .add(build_glob(&p, false).map_err(|e| format!("invalid glob {pat:?}: {e}"))?);
            }
            let include = include.build().map_err(|e| e.to_string())?;
            let exclude = exclude.build().map_err(|e| e.to_string())?;
            Ok((include, (excludes > 0).then_some(exclude)))
        })
        .as_ref()
        .map_err(|e| e.clone())
}

/// Literals one of which every text an included pattern matches contains.
fn glob_required(g: &Globs) -> Option<&Vec<String>> {
    g.slot
        .required
        .get_or_init(|| {
            let mut out = vec![];
            for pat in g.sources.iter().filter(|p| !p.starts_with('!')) {
                out.push(literals::of_glob(pat)?);
            }
            literals::finish_globs(out)
        })
        .as_ref()
}

/// Compile now (for `check`).
pub fn force_globs(g: &Globs) -> Result<(), String> {
    glob_sets(g).map(|_| ())
}

/// Does any of `texts` match? A text excluded in one of its forms (a path's
/// `~/…` view, say) is excluded in all: the forms name the same file.
pub fn globs_match(g: &Globs, texts: &[String]) -> Result<bool, String> {
    let lowered: Vec<String>;
    let texts: &[String] = if g.case_insensitive {
        lowered = texts.iter().map(|t| t.to_lowercase()).collect();
        &lowered
    } else {
        texts
    };
    if let Some(lits) = glob_required(g) {
        let hit = texts
            .iter()
            .any(|t| literals::any_in(lits, t.to_ascii_lowercase().as_bytes()));
        if !hit {
            // No included pattern can match (a broken pattern still reports
            // itself once a text could match).
            return Ok(false);
        }
    }
    let (include, exclude) = glob_sets(g)?;
    if exclude
        .as_ref()
        .is_some_and(|x| texts.iter().any(|t| x.is_match(t)))
    {
        return Ok(false);
    }
    Ok(texts.iter().any(|t| include.is_match(t)))
}
