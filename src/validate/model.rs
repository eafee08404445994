//! Stage 2: a validated policy. Everything here has been checked: regexes and globs
//! compile, references resolve, events exist, decisions fit their events. Values
//! keep their spans so later stages can still point into the TOML.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::Arc;

use regex::Regex;
use serde::{Deserialize, Serialize};

pub use super::patterns::{ExcludeGlobs, Globs, JsonQuery, MatcherRegex, Regexes};

use crate::policy::syntax::{
    CombineMode, DecisionKind, EffectKind, FactKind, FailureMode, Normalization, Quantifier,
    UnparsableCommand,
};
use crate::shell::command::{Code, SimpleCommand};
use crate::shell::reach::{Class, Classes};
use crate::source::PolicySource;

/// A policy whose selected rules are all valid.
#[derive(Debug)]
pub struct Policy {
    /// `[policy] name`, or the file stem.
    pub name: String,
    /// The text it came from.
    pub source: Arc<PolicySource>,
    /// Fail-open or fail-closed.
    pub failure: FailureMode,
    /// How its rules combine.
    pub combine: CombineMode,
    /// What to do with a command that does not parse.
    pub unparsable: UnparsableCommand,
    /// The zone of `today` and `now`.
    pub zone: crate::os::clock::Zone,
    /// Valid rules (those selected for validation), in file order.
    pub rules: Vec<Arc<Rule>>,
    /// Facts referenced by the rules, by name.
    pub facts: BTreeMap<String, Arc<Fact>>,
}

/// Which events a rule applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum EventScope {
    /// `"*"`.
    All,
    /// These names.
    Named(Vec<String>),
}

/// The client's matcher (reference §3.2).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Matcher {
    /// Omitted, `""` or `"*"`.
    Any,
    /// An exact list, case-sensitive.
    Exact(Vec<String>),
    /// Anything else: an unanchored regex (compiled when first needed).
    Regex(MatcherRegex),
}

/// One rule.
#[derive(Debug, Serialize, Deserialize)]
pub struct Rule {
    /// Unique id.
    pub id: String,
    /// What it is for.
    pub description: Option<String>,
    /// Lower is considered first.
    pub priority: i64,
    /// Labels.
    pub tags: Vec<String>,
    /// `enabled = false` rules are kept (for `check`) but never evaluated.
    pub enabled: bool,
    /// `mode = "audit"` (the rule's, else its policy's): evaluated and logged as
    /// what it would decide, but it decides nothing.
    pub audit: bool,
    /// Events it applies to.
    pub events: EventScope,
    /// The matcher and its text.
    pub matcher: Matcher,
    /// The matcher as written.
    pub matcher_text: Option<String>,
    /// Matchers for single events (`matcher = { Event = "..." }`), with their text.
    pub event_matchers: Vec<(String, Matcher, String)>,
    /// Fires when this holds (absent: always).
    pub when: Option<Condition>,
    /// Does not fire when this holds.
    pub unless: Option<Condition>,
    /// Paths and commands it does not see (`except`).
    pub except: Option<Arc<Except>>,
    /// The decision.
    pub decision: Option<DecisionKind>,
    /// Stands aside for a rule that does not defer (see `decision::combine`).
    pub defer: bool,
    /// Reason template.
    pub reason: Option<Template>,
    /// additionalContext template.
    pub context: Option<Template>,
    /// systemMessage template.
    pub message: Option<Template>,
    /// tool_input field rewrites.
    pub rewrite: Vec<(String, Template)>,
    /// Files read into the context.
    pub include: Vec<Include>,
    /// Side effects.
    pub effects: Vec<Effect>,
    /// Index of the rule in its file (ties on priority go to the earlier rule).
    pub order: usize,
    /// Span of the whole `[[rule]]` table.
    pub span: Range<usize>,
    /// Span of the id value.
    pub id_span: Range<usize>,
    /// Name of the policy it belongs to.
    pub policy: String,
}

/// `except`: cases removed from what one rule sees (README, "Exceptions"); the
/// evaluator subtracts them from its `paths` and `commands` selectors.
#[derive(Debug, Serialize, Deserialize)]
pub struct Except {
    /// Exempt paths, made absolute or anchored (`$PROJECT_DIR/…`, `~/…`, `/…`);
    /// empty: none.
    #[serde(with = "super::patterns::stored::globs")]
    pub paths: Arc<Globs>,
    /// Exempt commands, each as its words (program first).
    pub commands: Vec<Vec<String>>,
    /// Where it was written (`file:line`), for `check` and `explain`.
    pub at: String,
}

impl Rule {
    /// The matcher that applies to an event, and its text.
    pub fn matcher_for(&self, event: &str) -> (&Matcher, Option<&str>) {
        match self.event_matchers.iter().find(|(e, _, _)| e == event) {
            Some((_, m, t)) => (m, Some(t.as_str())),
            None => (&self.matcher, self.matcher_text.as_deref()),
        }
    }

    /// Every template of the rule (texts, rewrites, includes, effect paths,
    /// contents and arguments; record leaves are JSON strings, see `Effect::record`).
    pub fn templates(&self) -> Vec<&Template> {
        let mut all: Vec<&Template> = vec![];
        all.extend(self.reason.iter());
        all.extend(self.context.iter());
        all.extend(self.message.iter());
        all.extend(self.rewrite.iter().map(|(_, t)| t));
        for i in &self.include {
            all.push(&i.path);
            all.extend(i.title.iter());
        }
        for e in &self.effects {
            all.extend(e.path.iter());
            all.extend(e.within.iter());
            all.extend(e.content.iter());
            all.extend(e.argv.iter());
        }
        all
    }
}

/// A text template, compiled in stage 3.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Template {
    /// The template source.
    pub text: String,
    /// Where it is in the TOML.
    pub span: Range<usize>,
}

/// A condition over the event.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum Condition {
    /// All hold (empty: true).
    All(Vec<Condition>),
    /// Any holds (empty: false).
    Any(Vec<Condition>),
    /// Does not hold.
    Not(Box<Condition>),
    /// A named condition (stored once, by number: see `patterns::stored`).
    Ref(#[serde(with = "super::patterns::stored::named")] Arc<NamedCondition>),
    /// A test of selected values.
    Test(Arc<Test>),
}

/// A named condition from `[conditions]`.
#[derive(Debug, Serialize, Deserialize)]
pub struct NamedCondition {
    /// Its name.
    pub name: String,
    /// Its body.
    pub condition: Condition,
}

/// A selector with a test.
#[derive(Debug, Serialize, Deserialize)]
pub struct Test {
    /// What values to test.
    pub selector: Selector,
    /// Normalisation applied to text values before matching.
    pub normalize: Vec<Normalization>,
    /// Any or all values must pass.
    pub quantifier: Quantifier,
    /// The test.
    pub op: Op,
    /// Span of the whole condition.
    pub span: Range<usize>,
    /// The selector as written, for traces (`tool_input.command`).
    pub selector_text: String,
}

/// A dotted field path (`tool_input.command`, `tool_calls.0.tool_name`, `operands.-1`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct FieldPath(pub Vec<Segment>);

/// One step of a field path.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Segment {
    /// An object key.
    Key(String),
    /// An array index (a key that is all digits).
    Index(usize),
    /// An index from the end (`-1` is the last element).
    FromEnd(usize),
}

impl FieldPath {
    /// Parse `a.b.0.c`: keys, indexes (`0`, `-1` from the end), and quoted keys
    /// for names with dots (`markers."package.json"`). Empty segments are an error.
    pub fn parse(s: &str) -> Result<FieldPath, String> {
        if s.is_empty() {
            return Ok(FieldPath(vec![]));
        }
        let mut segs = vec![];
        let mut rest = s;
        loop {
            let (seg, quoted, after) = if let Some(q) = rest.strip_prefix('"') {
                let end = q
                    .find('"')
                    .ok_or_else(|| format!("unclosed quote in field path `{s}`"))?;
                (&q[..end], true, &q[end + 1..])
            } else {
                match rest.find('.') {
                    Some(i) => (&rest[..i], false, &rest[i..]),
                    None => (rest, false, ""),
                }
            };
            segs.push(Self::segment(seg, quoted, s)?);
            if after.is_empty() {
                break;
            }
            rest = after
                .strip_prefix('.')
                .ok_or_else(|| format!("expected `.` after a quoted key in field path `{s}`"))?;
            if rest.is_empty() {
                return Err(format!("field path `{s}` ends with `.`"));
            }
        }
        Ok(FieldPath(segs))
    }

    fn segment(seg: &str, quoted: bool, whole: &str) -> Result<Segment, String> {
        if quoted {
            return Ok(Segment::Key(seg.to_string()));
        }
        if seg.is_empty() {
            return Err(format!("empty segment in field path `{whole}`"));
        }
        if seg.bytes().all(|b| b.is_ascii_digit()) {
            return seg.parse().map(Segment::Index).map_err(|e| format!("{e}"));
        }
        if let Some(n) = seg
            .strip_prefix('-')
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        {
            return match n.parse::<usize>() {
                Ok(0) | Err(_) => Err(format!("bad index `{seg}` in field path `{whole}`")),
                Ok(k) => Ok(Segment::FromEnd(k)),
            };
        }
        Ok(Segment::Key(seg.to_string()))
    }

    /// Look the path up in a JSON value.
    pub fn get<'v>(&self, mut v: &'v serde_json::Value) -> Option<&'v serde_json::Value> {
        for seg in &self.0 {
            v = match (seg, v) {
                (Segment::Key(k), serde_json::Value::Object(m)) => member(m, k)?,
                (Segment::Index(i), serde_json::Value::Array(a)) => a.get(*i)?,
                (Segment::Index(i), serde_json::Value::Object(m)) => m.get(&i.to_string())?,
                (Segment::FromEnd(k), serde_json::Value::Array(a)) => {
                    a.get(a.len().checked_sub(*k)?)?
                }
                _ => return None,
            };
        }
        Some(v)
    }

    /// The first key, if any (`tool_input` for `tool_input.command`).
    pub fn head(&self) -> Option<&str> {
        match self.0.first() {
            Some(Segment::Key(k)) => Some(k),
            _ => None,
        }
    }
}

/// The value of `key` in an object. An event's objects hold a few keys
/// (10 or 11 at the top of a Claude Code event, a few in its tool_input):
/// comparing them, most by length alone, costs less than hashing `key`
/// (~280 instructions a lookup, the most frequent one evaluation makes);
/// a large object is looked up by hash.
pub fn member<'v>(
    m: &'v serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'v serde_json::Value> {
    if m.len() > 16 {
        return m.get(key);
    }
    m.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
}

/// Where a test's values come from.
#[derive(Debug, Serialize, Deserialize)]
pub enum Selector {
    /// One field of the event (or of the command object inside `command`).
    Field(FieldPath),
    /// A JSONPath query into the event.
    JsonPath(JsonQuery),
    /// A fact, with a sub-path into its value.
    Fact {
        /// The fact's name.
        name: String,
        /// Path inside the fact's value.
        path: FieldPath,
    },
    /// The simple commands of a shell command string.
    Commands(FieldPath),
    /// Normalised file paths.
    Paths(PathSelector),
}

/// How `paths = ...` finds its paths.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct PathSelector {
    /// The field holding the path, or the command.
    pub field: FieldPath,
    /// The field is a shell command: take the paths it touches.
    pub from_command: bool,
    /// Only operands of these programs (plus write redirections).
    pub written_by: Option<Vec<String>>,
    /// Operands of these programs are not paths.
    pub skip_programs: Vec<String>,
    /// The values of these programs' options are not paths read.
    #[serde(default)]
    pub skip_options: Vec<ProgramOptions>,
    /// The places these entries name are paths written (only written paths).
    #[serde(default)]
    pub written_through: Vec<ProgramOptions>,
    /// Leave out paths that are only written.
    #[serde(default)]
    pub reads_only: bool,
    /// Only the paths the command writes (`shell::command::writes`).
    #[serde(default)]
    pub writes: bool,
    /// Of those, only the writes that replace or remove what is there (not
    /// in-place changes: `shell::command::Write::keeps`).
    #[serde(default)]
    pub replaces: bool,
    /// Follow symbolic links (default); `false`: paths as spelled.
    pub resolve_symlinks: bool,
}

/// A line of a policy's table of options: a program and places in its
/// command line (`"scp -i -o"`, `"* --output of="`, `"ddrescue @2"`), for
/// `skip_options` and `written_through`.
///
/// The program may name its subcommand (`openssl:x509`, `step:certificate:create`,
/// `openssl:rsa|pkey|ec`: one of them) and the line may hold only when the
/// command has (`+-pubout`) or lacks (`!-text`) an option, has an option with a
/// given value (`+-c=read-keys`: `-c read-keys`, `-cread-keys`,
/// `--command=read-keys` for `+--command=read-keys`), has no options but
/// the listed ones (`=-l =-u`), or has at most so many operands (`#1`): an
/// operand's role often depends on what the program is asked to do
/// (`openssl rsa -in KEY -pubout` prints the public half, `openssl rsa -in
/// KEY` the key itself; `tune2fs -l DEV` reads the device, `tune2fs -L NAME
/// DEV` writes it; `e2label DEV` prints the label, `e2label DEV NEW` writes
/// it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProgramOptions {
    /// The program, as `program` names it (`*`: any program; `python3.*`: a prefix).
    pub program: String,
    /// Its subcommand, word by word, each word one of its `|`-separated
    /// alternatives (empty: any).
    #[serde(default)]
    pub subcommand: Vec<Vec<String>>,
    /// Options the command must have (each of them), as written (`-pubout`,
    /// `--encrypt`; a one-letter option also inside a cluster, `-ec`).
    #[serde(default)]
    pub with: Vec<String>,
    /// Options the command must not have.
    #[serde(default)]
    pub without: Vec<String>,
    /// When not empty, the only options the command may have (besides the
    /// `with` ones): `=-l =-u` holds for `xfs_admin -l -u DEV`, not for
    /// `xfs_admin -l -L NAME DEV`. For read-only forms, where any other option
    /// may change the device.
    #[serde(default)]
    pub only: Vec<String>,
    /// When set, the most operands (words that are not options) the command
    /// may have: `#1` holds for `e2label DEV`, not for `e2label DEV NEW`.
    #[serde(default)]
    pub max_operands: Option<usize>,
    /// Its places, each a [`Slot`](crate::shell::command::options::Slot): an
    /// option as written (`-i`, `--key`, `-key`, a keyword), a word prefix
    /// (`of=`), an operand by position (`@2`, `@-1`), every operand (`@*`),
    /// standard input (`<`).
    pub options: Vec<String>,
}

impl ProgramOptions {
    /// Read an entry: a program (with its subcommand after `:`), then
    /// conditions (`+OPTION`, `!OPTION`, `=OPTION`, `#N`) and one or more
    /// places, separated by spaces. `Err`: the token that is not a place or
    /// a condition (or the entry, when it names no place).
    pub fn parse(entry: &str) -> Result<ProgramOptions, String> {
        use crate::shell::command::options::Slot;
        let mut words = entry.split_whitespace();
        let head = words.next().ok_or_else(|| entry.to_string())?;
        let mut parts = head.split(':');
        let program = parts.next().unwrap_or_default().to_string();
        let subcommand: Vec<Vec<String>> = parts
            .map(|w| w.split('|').map(str::to_string).collect())
            .collect();
        if program.is_empty() || subcommand.iter().flatten().any(String::is_empty) {
            return Err(head.to_string());
        }
        let (mut with, mut without, mut only, mut options) = (vec![], vec![], vec![], vec![]);
        let mut max_operands = None;
        for w in words {
            if let Some(n) = w.strip_prefix('#') {
                max_operands = Some(n.parse::<usize>().map_err(|_| w.to_string())?);
            } else if let Some(o) = w.strip_prefix('+').filter(|o| o.starts_with('-')) {
                with.push(o.to_string());
            } else if let Some(o) = w.strip_prefix('!').filter(|o| o.starts_with('-')) {
                without.push(o.to_string());
            } else if let Some(o) = w.strip_prefix('=').filter(|o| o.starts_with('-')) {
                only.push(o.to_string());
            } else {
                options.push(w.to_string());
            }
        }
        if options.is_empty() {
            return Err(entry.to_string());
        }
        if let Some(bad) = options.iter().find(|o| Slot::parse(o).is_none()) {
            return Err(bad.clone());
        }
        Ok(ProgramOptions {
            program,
            subcommand,
            with,
            without,
            only,
            max_operands,
            options,
        })
    }

    /// Does this entry apply to `program`, whatever its arguments?
    #[must_use]
    pub fn applies_to(&self, program: &str) -> bool {
        self.program == "*" || crate::shell::command::program_is(program, &self.program)
    }

    /// The subcommands this entry names, each spelled out word by word
    /// (`openssl:rsa|pkey` gives `[rsa]` and `[pkey]`); one empty one when it
    /// names none.
    #[must_use]
    pub fn subcommands(&self) -> Vec<Vec<String>> {
        let mut all: Vec<Vec<String>> = vec![vec![]];
        for level in &self.subcommand {
            all = all
                .iter()
                .flat_map(|pre| {
                    level.iter().map(move |w| {
                        let mut p = pre.clone();
                        p.push(w.clone());
                        p
                    })
                })
                .collect();
        }
        all
    }
}

/// Regex list semantics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum RegexMode {
    /// `matches`: any pattern.
    Any,
    /// `matches_all`: every pattern.
    All,
    /// `matches_none`: no pattern.
    None,
}

/// Numeric comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    /// `gt`
    Gt,
    /// `ge`
    Ge,
    /// `lt`
    Lt,
    /// `le`
    Le,
}

/// The test applied to each selected value.
#[derive(Debug, Serialize, Deserialize)]
pub enum Op {
    /// Regexes, matched in one `RegexSet` pass; individual regexes only for captures.
    Regex {
        /// Any, all or none.
        mode: RegexMode,
        /// The patterns (shared by every rule using the same list).
        #[serde(with = "super::patterns::stored::regexes")]
        regexes: Arc<Regexes>,
    },
    /// Globs, matched in one `GlobSet` pass (shared by every rule using the same list).
    Glob(#[serde(with = "super::patterns::stored::globs")] Arc<Globs>),
    /// Equal to a value.
    Equals(#[serde(with = "json_text")] serde_json::Value),
    /// Equal to one of these values.
    OneOf(#[serde(with = "json_text")] Vec<serde_json::Value>),
    /// Present and not null (true) / absent or null (false).
    Exists(bool),
    /// Substring or array element.
    Contains(String),
    /// Numeric comparison.
    Compare(CmpOp, f64),
    /// A test of each simple command (with the `commands` selector).
    Command(Box<CommandTest>),
    /// Location classes of each path (with the `paths` selector).
    Class(ClassTest),
}

impl Op {
    /// Does the test pass when its selector picked nothing (an absent field,
    /// a command that names no path)? Evaluation answers so without looking
    /// further, and `check` takes a field as required by a test that does not.
    pub fn passes_on_nothing(&self) -> bool {
        match self {
            Op::Regex { mode, .. } => *mode == RegexMode::None,
            Op::Exists(b) => !*b,
            Op::Glob(_)
            | Op::Equals(_)
            | Op::OneOf(_)
            | Op::Contains(_)
            | Op::Compare(..)
            | Op::Command(_)
            | Op::Class(_) => false,
        }
    }
}

/// `target_class` / `class`: in one of `any` (or anywhere, when empty) and in
/// none of `none`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassTest {
    /// The classes listed plainly.
    pub any: Classes,
    /// The classes listed with `!`.
    pub none: Classes,
    /// Whether `any` was empty (every place qualifies).
    pub anywhere: bool,
}

impl ClassTest {
    /// Does a place with these classes pass?
    #[must_use]
    pub fn passes(&self, c: Classes) -> bool {
        (self.anywhere || c.meets(self.any)) && !c.meets(self.none)
    }

    /// The first class listed plainly that `c` has.
    #[must_use]
    pub fn which(&self, c: Classes) -> Option<&'static str> {
        Class::ALL
            .iter()
            .find(|(k, _)| self.any.has(*k) && c.has(*k))
            .map(|(_, n)| *n)
    }
}

/// What a `command` test asks of a command's flags and arguments, judged by
/// [`CommandWords::fails`] for evaluation (`eval::values`) and for the
/// prefilter (`compile::reach`: a rule whose program atoms name a command
/// that fails them is not read).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct CommandWords {
    /// Each group must be present (any spelling).
    pub flags_all: Vec<Vec<String>>,
    /// Any of these present (empty: no constraint).
    pub flags_any: Vec<String>,
    /// None of these present.
    pub flags_none: Vec<String>,
    /// Some argument is exactly one of these.
    pub arg_in: Vec<String>,
}

impl CommandWords {
    /// Does it ask nothing?
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.flags_all.is_empty()
            && self.flags_any.is_empty()
            && self.flags_none.is_empty()
            && self.arg_in.is_empty()
    }

    /// The first part `c` fails (`flags_all`, `flags_any`, `flags_none`,
    /// `arg_in`), or `None` when it passes them all.
    #[must_use]
    pub fn fails(&self, c: &SimpleCommand) -> Option<&'static str> {
        words_fail(
            &self.flags_all,
            &self.flags_any,
            &self.flags_none,
            &self.arg_in,
            c,
        )
    }
}

/// [`CommandWords::fails`] of its four lists, however their words are held
/// (an artifact's gate reads them where they lie in its record): words are
/// compared byte for byte.
#[must_use]
pub fn words_fail<S: AsRef<[u8]>>(
    flags_all: &[Vec<S>],
    flags_any: &[S],
    flags_none: &[S],
    arg_in: &[S],
    c: &SimpleCommand,
) -> Option<&'static str> {
    let has = |f: &S| c.flags.iter().any(|x| x.as_bytes() == f.as_ref());
    if !flags_all.iter().all(|group| group.iter().any(has)) {
        return Some("flags_all");
    }
    if !flags_any.is_empty() && !flags_any.iter().any(has) {
        return Some("flags_any");
    }
    if flags_none.iter().any(has) {
        return Some("flags_none");
    }
    if !arg_in.is_empty()
        && !c
            .args
            .iter()
            .any(|a| arg_in.iter().any(|w| w.as_ref() == a.as_bytes()))
    {
        return Some("arg_in");
    }
    None
}

/// A test of one simple command.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct CommandTest {
    /// Program basename in this set (empty: any).
    pub program: Vec<String>,
    /// Leading operands.
    pub subcommand: Vec<String>,
    /// What it asks of the command's flags and arguments.
    pub words: CommandWords,
    /// Some operand, normalised as a path, matches.
    #[serde(with = "super::patterns::stored::opt_globs")]
    pub target_glob: Option<Arc<Globs>>,
    /// Places `target_glob` and `target_class` leave out.
    pub skip_options: Vec<ProgramOptions>,
    /// Some argument matches one of these regexes.
    #[serde(with = "super::patterns::stored::opt_regexes")]
    pub arg_matches: Option<Arc<Regexes>>,
    /// Some operand lies in these location classes.
    pub target_class: Option<ClassTest>,
    /// The program name is (`true`) or is not (`false`) an unknown expansion.
    pub program_unknown: Option<bool>,
    /// Where the code a shell/interpreter runs comes from (empty: no test).
    pub code: Vec<Code>,
    /// Further condition over the command object.
    pub when: Option<Condition>,
}

/// A validated fact.
#[derive(Debug, Serialize, Deserialize)]
pub struct Fact {
    /// Its name.
    pub name: String,
    /// Its kind.
    pub kind: FactKind,
    /// `file`/`glob`: path template.
    pub path: Option<Template>,
    /// Confinement folder (relative to the project dir).
    pub within: Option<Template>,
    /// Required headings.
    pub headings: Vec<String>,
    /// Content regex.
    #[serde(with = "regex_text")]
    pub regex: Option<Regex>,
    /// First N lines.
    pub lines: Option<usize>,
    /// Parse the content as JSON (`json`).
    pub json: bool,
    /// Glob exclusions.
    pub exclude: Option<ExcludeGlobs>,
    /// Command argv templates.
    pub argv: Vec<Template>,
    /// Command timeout.
    pub timeout_ms: u64,
    /// Command cwd template.
    pub cwd: Option<Template>,
    /// Env vars.
    pub vars: Vec<String>,
    /// Marker files.
    pub markers: Vec<String>,
    /// Span of the fact table.
    pub span: Range<usize>,
}

/// A file read into the context.
#[derive(Debug, Serialize, Deserialize)]
pub struct Include {
    /// Path template (may be a glob when `newest`).
    pub path: Template,
    /// First N lines.
    pub lines: Option<usize>,
    /// Heading template.
    pub title: Option<Template>,
    /// Pick the newest match of a glob.
    pub newest: bool,
}

/// A side effect.
#[derive(Debug, Serialize, Deserialize)]
pub struct Effect {
    /// What to do.
    pub kind: EffectKind,
    /// Path template.
    pub path: Option<Template>,
    /// Confinement folder template.
    pub within: Option<Template>,
    /// write_file content.
    pub content: Option<Template>,
    /// Record: a JSON value whose strings are templates.
    #[serde(with = "json_text")]
    pub record: Option<serde_json::Value>,
    /// write_json keys to keep.
    pub keep: Vec<String>,
    /// run argv.
    pub argv: Vec<Template>,
    /// run timeout.
    pub timeout_ms: u64,
    /// Span of the effect table.
    pub span: Range<usize>,
}

/// The texts of a value as tests see them: strings as they are, numbers and
/// booleans printed, arrays flattened, objects as compact JSON, null as nothing.
pub fn texts(v: &serde_json::Value, out: &mut Vec<String>) {
    use serde_json::Value;
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Number(n) => out.push(n.to_string()),
        Value::Bool(b) => out.push(b.to_string()),
        Value::Array(a) => a.iter().for_each(|x| texts(x, out)),
        Value::Object(_) => out.push(v.to_string()),
        Value::Null => {}
    }
}

/// JSON values stored as their JSON text (compact binary formats cannot hold a
/// self-describing value).
mod json_text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<T: Serialize, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_string(v)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }

    pub fn deserialize<'de, T: serde::de::DeserializeOwned, D: Deserializer<'de>>(
        d: D,
    ) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text).map_err(serde::de::Error::custom)
    }
}

/// A regex stored as its source.
mod regex_text {
    use regex::Regex;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(v: &Option<Regex>, s: S) -> Result<S::Ok, S::Error> {
        v.as_ref().map(|r| r.as_str()).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Regex>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|s| Regex::new(&s).map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::ProgramOptions;

    #[test]
    fn table_lines_name_subcommands_conditions_and_places() {
        let p = ProgramOptions::parse("openssl:rsa|pkey +-pubout !-text -in").unwrap();
        assert_eq!(p.program, "openssl");
        assert_eq!(p.subcommands(), [vec!["rsa"], vec!["pkey"]]);
        assert_eq!(
            (p.with.as_slice(), p.without.as_slice()),
            (&["-pubout".to_string()][..], &["-text".to_string()][..])
        );
        assert_eq!(p.options, ["-in"]);
        let p = ProgramOptions::parse("step:certificate:create @*").unwrap();
        assert_eq!(p.subcommands(), [vec!["certificate", "create"]]);
        assert_eq!(
            ProgramOptions::parse("scp -i").unwrap().subcommands(),
            [Vec::<String>::new()]
        );
        // A line must name a place; an empty subcommand word is an error.
        assert_eq!(
            ProgramOptions::parse("gpg +--import").unwrap_err(),
            "gpg +--import"
        );
        assert_eq!(
            ProgramOptions::parse("openssl:|x509 -in").unwrap_err(),
            "openssl:|x509"
        );
        assert_eq!(ProgramOptions::parse("ddrescue @0").unwrap_err(), "@0");
        // `#N`: at most N operands; N is a number.
        let p = ProgramOptions::parse("e2label #1 @*").unwrap();
        assert_eq!(
            (p.max_operands, p.options.as_slice()),
            (Some(1), &["@*".to_string()][..])
        );
        assert_eq!(
            ProgramOptions::parse("e2label #one @*").unwrap_err(),
            "#one"
        );
    }
}
