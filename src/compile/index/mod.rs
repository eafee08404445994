//! The event index of a policy set: which rules each event can reach, without
//! parsing the rules it cannot.
//!
//! For large policy sets, parsing every rule of every file on every hook call is
//! most of the cost. The index records, for each rule, its byte range, id,
//! events, matcher and needles (literals one of which the event must contain for
//! the rule to match). It is built once per set of policy texts, stored in the
//! cache directory under a hash of their content, and used by `run` to build, for
//! each file, a compacted text holding only its prelude and the rules this event
//! can reach. Those go through the normal pipeline (parse, layering, validation,
//! compilation), so the index only ever removes rules that could not have fired.
//! `explain` and `check` never use it.

pub mod needles;
mod sections;
pub mod store;

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::sync::Arc;

use crate::contract::events::ListStyle;
use crate::contract::Event;
use crate::source::PolicySource;
use crate::validate::parse_matcher;

/// Below this total size of policy text, parsing everything is cheaper than the index.
pub const MIN_SET_BYTES: usize = 64 * 1024;
/// Above this stdin size, needles are not searched (large events are rare and
/// their reachable rules few).
const MAX_PREFILTER_INPUT: usize = 1 << 20;

/// The index of a whole policy set, one entry per source, in load order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetIndex {
    /// Per source.
    pub files: Vec<FileIndex>,
}

/// One policy file's index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileIndex {
    /// Text outside any rule.
    pub prelude: Vec<Range<usize>>,
    /// The rules.
    pub rules: Vec<RuleEntry>,
}

/// What the index knows about one rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleEntry {
    /// Byte range of the rule with its sub-tables.
    pub range: Range<usize>,
    /// Its id.
    pub id: String,
    /// Its `events`, as written.
    pub events: Vec<String>,
    /// Its matcher, as written.
    pub matcher: Option<String>,
    /// Atoms one of which the event must have (None: always evaluate).
    pub needles: Option<Vec<needles::Atom>>,
}

/// How `run` uses the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// For sets of at least [`MIN_SET_BYTES`], with a cache directory.
    Auto,
    /// Always (tests prove it changes no decision).
    Always,
    /// Never.
    Off,
}

/// Build the index of a set; `None` if any source does not parse (the full
/// pipeline then reports it under the policy's failure mode).
pub fn build(sources: &[Arc<PolicySource>]) -> Option<SetIndex> {
    let mut files = vec![];
    for s in sources {
        let raw = crate::policy::parse::parse(s).ok()?;
        let sec = sections::split(&s.text);
        if sec.rules.len() != raw.rules.len() {
            return None;
        }
        let rules = raw
            .rules
            .iter()
            .zip(sec.rules)
            .map(|(r, range)| RuleEntry {
                range,
                id: r.value.id.value.clone(),
                events: r
                    .value
                    .events
                    .value
                    .iter()
                    .map(|e| e.value.clone())
                    .collect(),
                // A per-event matcher is not used to select (a superset is safe).
                matcher: r.value.matcher.as_ref().and_then(|m| match &m.value {
                    crate::policy::syntax::MatcherSpec::All(t) => Some(t.clone()),
                    crate::policy::syntax::MatcherSpec::PerEvent(_) => None,
                }),
                needles: needles::for_rule(&r.value, &raw),
            })
            .collect();
        files.push(FileIndex {
            prelude: sec.prelude,
            rules,
        });
    }
    Some(SetIndex { files })
}

/// The index for these sources: from the cache, or built (and cached).
pub fn load_or_build(
    sources: &[Arc<PolicySource>],
    cache: Option<&std::path::Path>,
) -> Option<SetIndex> {
    // The key covers the policy texts and the binary that indexes them (a new
    // build may index differently), so a cached index is never stale.
    let exe_id = binary_identity();
    let mut parts: Vec<&[u8]> = vec![env!("CARGO_PKG_VERSION").as_bytes(), exe_id.as_bytes()];
    let names: Vec<String> = sources.iter().map(|s| s.display_name()).collect();
    for (s, n) in sources.iter().zip(&names) {
        parts.push(n.as_bytes());
        parts.push(s.text.as_bytes());
    }
    let key = store::hash(&parts);
    if let Some(dir) = cache {
        let path = store::path_for(dir, key);
        if let Some(ix) = store::load(&path).filter(|ix| ix.files.len() == sources.len()) {
            return Some(ix);
        }
        let ix = build(sources)?;
        store::save(&path, &ix);
        return Some(ix);
    }
    build(sources)
}

/// Path, size and modification time of the running executable.
fn binary_identity() -> String {
    let exe = std::env::current_exe().ok();
    let meta = exe.as_ref().and_then(|p| p.metadata().ok());
    let mtime = meta
        .as_ref()
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("{:?}|{}|{mtime}", exe, meta.map(|m| m.len()).unwrap_or(0))
}

/// Should the index be used for this set?
pub fn wanted(mode: Mode, sources: &[Arc<PolicySource>], cache: Option<&std::path::Path>) -> bool {
    match mode {
        Mode::Off => false,
        Mode::Always => true,
        // Large sets; and the built-in pack, where the index mostly tells that no
        // rule reaches the event at all (its rules are all PreToolUse).
        Mode::Auto => {
            cache.is_some()
                && (sources.iter().map(|s| s.text.len()).sum::<usize>() >= MIN_SET_BYTES
                    || sources
                        .iter()
                        .all(|s| s.layer == crate::source::Layer::Builtin))
        }
    }
}

/// For each source, a compacted source holding its prelude and the rules this
/// event can reach (by event, matcher, replacement by a later file, needles).
/// `None` when no rule at all can reach the event: nothing needs parsing.
pub fn select(
    index: &SetIndex,
    sources: &[Arc<PolicySource>],
    event: &Event,
    raw: &[u8],
) -> Option<Vec<Arc<PolicySource>>> {
    let use_text = raw.len() <= MAX_PREFILTER_INPUT && needles::prefilter_applies(raw);
    let mut hay = needles::Haystack::new(raw, use_text, &event.value);
    let matcher_value = event.matcher_value();
    // The last file defining each id: an earlier rule with the same id is
    // replaced by it (see policy::layering).
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (i, f) in index.files.iter().enumerate() {
        for r in &f.rules {
            last.insert(r.id.as_str(), i);
        }
    }
    let mut matcher_cache: BTreeMap<&str, bool> = BTreeMap::new();
    let mut out = vec![];
    let mut any_rule = false;
    for (i, (file, source)) in index.files.iter().zip(sources).enumerate() {
        let mut keep: Vec<Range<usize>> = file.prelude.clone();
        for r in &file.rules {
            let reaches = r.events.iter().any(|e| {
                e == "*" || *e == event.name || e.strip_prefix('+') == Some(event.name.as_str())
            });
            if !reaches || last.get(r.id.as_str()).is_some_and(|&j| j > i) {
                continue;
            }
            if let (Some(m), Some(value)) = (&r.matcher, matcher_value) {
                let accepts = *matcher_cache
                    .entry(m.as_str())
                    .or_insert_with(|| matcher_may_accept(m, value));
                if !accepts {
                    continue;
                }
            }
            if let Some(atoms) = &r.needles {
                if !hay.any(atoms) {
                    continue;
                }
            }
            keep.push(r.range.clone());
            any_rule = true;
        }
        keep.sort_by_key(|r| r.start);
        out.push(PolicySource::compacted(source, &keep));
    }
    any_rule.then_some(out)
}

/// Could the matcher accept this value in either list style? (The validated
/// rule applies the exact style later; this only has to be a superset.)
fn matcher_may_accept(m: &str, value: Option<&str>) -> bool {
    [ListStyle::Wide, ListStyle::Narrow]
        .iter()
        .any(|style| match parse_matcher(m, *style) {
            Ok(matcher) => crate::compile::matcher_accepts(&matcher, value),
            Err(_) => true,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_cut_rules_with_their_subtables_and_ignore_headers_in_strings() {
        let text = "#:schema x\n[policy]\nname = \"p\"\n\n[[rule]]\nid = \"a\"\nevents = [\"Stop\"]\n[[rule.effects]]\nkind = \"run\"\n[rule.effects.record]\nx = 1\n\n[[rule]]\nid = \"b\"\nreason = '''\n[[rule]]\n'''\n[lists]\nl = [\"x\"]\n";
        let s = sections::split(text);
        assert_eq!(s.rules.len(), 2);
        assert!(text[s.rules[0].clone()].contains("[rule.effects.record]"));
        assert!(text[s.rules[1].clone()].starts_with("[[rule]]\nid = \"b\""));
        assert!(text[s.rules[1].clone()].ends_with("'''\n"));
        let prelude: String = s.prelude.iter().map(|r| &text[r.clone()]).collect();
        assert!(
            prelude.contains("[policy]")
                && prelude.contains("[lists]")
                && prelude.starts_with("#:schema")
        );
        assert!(!prelude.contains("id = "));
    }

    fn needles_of(pattern: &str) -> Option<Vec<String>> {
        let policy = format!("[[rule]]\nid = \"r\"\nevents = [\"Stop\"]\nwhen = {{ field = \"x\", matches = ['{pattern}'] }}\n");
        let raw: crate::policy::syntax::RawPolicy = toml::from_str(&policy).unwrap();
        needles::for_rule(&raw.rules[0].value, &raw).map(|v| {
            v.into_iter()
                .map(|a| match a {
                    needles::Atom::Text(t) => t,
                    other => panic!("{other:?}"),
                })
                .collect()
        })
    }

    #[test]
    fn needles_are_required_substrings_and_sound_under_case_folding() {
        assert_eq!(needles_of(r"\bgit\s+push\b"), Some(vec!["push".into()]));
        assert_eq!(
            needles_of(r"(?i)\bhandoff\b.*\bagent\b"),
            Some(vec!["handoff".into()])
        );
        assert_eq!(
            needles_of(r"deploy|release"),
            Some(vec!["deploy".into(), "release".into()])
        );
        // (?i)s also matches U+017F: the run breaks at `s`, keeping a sound needle.
        assert_eq!(needles_of(r"(?i)secret"), Some(vec!["ecret".into()]));
        assert_eq!(
            needles_of(r"(?i)kk"),
            None,
            "(?i)k holds the Kelvin sign: no needle"
        );
        assert_eq!(needles_of(r"a.*b"), None, "too short");
        assert_eq!(
            needles_of(r"(foo)?bar"),
            Some(vec!["bar".into()]),
            "an optional part is not required"
        );
    }

    #[test]
    fn store_round_trips() {
        let ix = SetIndex {
            files: vec![FileIndex {
                prelude: vec![0..5, 10..12],
                rules: vec![RuleEntry {
                    range: 5..10,
                    id: "r".into(),
                    events: vec!["PreToolUse".into()],
                    matcher: Some("Bash".into()),
                    needles: Some(vec![
                        needles::Atom::Text("git".into()),
                        needles::Atom::Program {
                            field: "tool_input.command".into(),
                            name: "rm".into(),
                        },
                    ]),
                }],
            }],
        };
        assert_eq!(store::decode(&store::encode(&ix)), Some(ix.clone()));
        let mut bad = store::encode(&ix);
        bad.pop();
        assert_eq!(store::decode(&bad), None, "a truncated index is ignored");
    }
}
