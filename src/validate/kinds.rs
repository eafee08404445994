//! The condition kinds, each defined once: its key in the TOML, how it is
//! found in a raw condition, what it goes with, and the words traces and
//! diagnostics use for it.
//!
//! A condition is a combinator (`all`, `any`, `not`, `ref`) or one selector
//! with one test. Each family is a closed enum with one table row per kind
//! ([`Combinator::ALL`], [`SelectorKind::ALL`], [`TestKind::ALL`]), the way
//! ast-grep's rule variants are: validation reads its key lists from these
//! tables (none is written out by hand), `explain`'s trace names a test by the
//! same key, and the validated model maps back to its kind exhaustively
//! ([`Selector::kind`], [`Op::kind`]), so a new selector or test does not
//! compile until it has a row here, a static read rule (`validate::reads`) and
//! its meaning: a test of texts defines its evaluation and its prefilter need
//! side by side in `compile::test_kinds`; a selector's reader and need are in
//! `eval::values` and `compile::reach`.

use crate::policy::syntax::{FactKind, RawCondition, RawFact, Sp};
use crate::validate::model::{CmpOp, Op, RegexMode, Selector};

/// `all`, `any`, `not`, `ref`: conditions over conditions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combinator {
    /// `all = [...]`: every member holds (empty: true).
    All,
    /// `any = [...]`: some member holds (empty: false).
    Any,
    /// `not = { ... }`.
    Not,
    /// `ref = "name"`: a condition of `[conditions]`.
    Ref,
}

impl Combinator {
    /// Every combinator, in the order diagnostics list them.
    pub const ALL: [Combinator; 4] = [
        Combinator::All,
        Combinator::Any,
        Combinator::Not,
        Combinator::Ref,
    ];

    /// Its key.
    pub fn key(self) -> &'static str {
        match self {
            Combinator::All => "all",
            Combinator::Any => "any",
            Combinator::Not => "not",
            Combinator::Ref => "ref",
        }
    }

    /// Is it written in this condition?
    pub fn written(self, raw: &RawCondition) -> bool {
        match self {
            Combinator::All => raw.all.is_some(),
            Combinator::Any => raw.any.is_some(),
            Combinator::Not => raw.not.is_some(),
            Combinator::Ref => raw.reference.is_some(),
        }
    }
}

/// Where a test's values come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectorKind {
    /// `field = "tool_input.command"`: one field of the event.
    Field,
    /// `jsonpath = "$.…"`: a JSONPath query into the event.
    JsonPath,
    /// `fact = "name.path"`: a fact's value.
    Fact,
    /// `commands = "tool_input.command"`: the simple commands of a shell line.
    Commands,
    /// `paths = "tool_input.file_path"`: normalised paths.
    Paths,
}

impl SelectorKind {
    /// Every selector, in the order diagnostics list them.
    pub const ALL: [SelectorKind; 5] = [
        SelectorKind::Field,
        SelectorKind::JsonPath,
        SelectorKind::Fact,
        SelectorKind::Commands,
        SelectorKind::Paths,
    ];

    /// Its key.
    pub fn key(self) -> &'static str {
        match self {
            SelectorKind::Field => "field",
            SelectorKind::JsonPath => "jsonpath",
            SelectorKind::Fact => "fact",
            SelectorKind::Commands => "commands",
            SelectorKind::Paths => "paths",
        }
    }

    /// Its value in this condition, when it is written there.
    pub fn written(self, raw: &RawCondition) -> Option<&Sp<String>> {
        match self {
            SelectorKind::Field => raw.field.as_ref(),
            SelectorKind::JsonPath => raw.jsonpath.as_ref(),
            SelectorKind::Fact => raw.fact.as_ref(),
            SelectorKind::Commands => raw.commands.as_ref(),
            SelectorKind::Paths => raw.paths.as_ref(),
        }
    }

    /// How a trace names what it selects (`commands of tool_input.command`).
    pub fn trace_words(self) -> &'static str {
        match self {
            SelectorKind::Commands => "commands of",
            other => other.key(),
        }
    }

    /// The selectors written in a condition, in table order.
    pub fn written_in(raw: &RawCondition) -> Vec<SelectorKind> {
        Self::ALL
            .into_iter()
            .filter(|k| k.written(raw).is_some())
            .collect()
    }

    /// `` `field`, `jsonpath`, `fact`, `commands` or `paths` ``.
    pub fn listed() -> String {
        let keys: Vec<String> = Self::ALL.iter().map(|k| format!("`{}`", k.key())).collect();
        match keys.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => keys.concat(),
        }
    }
}

impl Selector {
    /// Its kind.
    pub fn kind(&self) -> SelectorKind {
        match self {
            Selector::Field(_) => SelectorKind::Field,
            Selector::JsonPath(_) => SelectorKind::JsonPath,
            Selector::Fact { .. } => SelectorKind::Fact,
            Selector::Commands(_) => SelectorKind::Commands,
            Selector::Paths(_) => SelectorKind::Paths,
        }
    }
}

/// The test applied to each selected value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestKind {
    /// `matches`: some regex matches.
    Matches,
    /// `matches_all`: every regex matches.
    MatchesAll,
    /// `matches_none`: no regex matches.
    MatchesNone,
    /// `glob`: globs (with `!` exclusions).
    Glob,
    /// `equals`: a value.
    Equals,
    /// `one_of`: one of these values.
    OneOf,
    /// `exists`: present and not null, or not.
    Exists,
    /// `contains`: a substring or an element.
    Contains,
    /// `gt`.
    Gt,
    /// `ge`.
    Ge,
    /// `lt`.
    Lt,
    /// `le`.
    Le,
    /// `command = { … }`: a test of each simple command.
    Command,
    /// `class = [...]`: location classes of each path.
    Class,
}

/// A test that goes with one selector only.
#[derive(Debug, Clone, Copy)]
pub struct Pairing {
    /// The selector.
    pub selector: SelectorKind,
    /// The selector goes with this test only, too.
    pub both_ways: bool,
    /// The error when they are not written together.
    pub message: &'static str,
    /// Its help line.
    pub help: &'static str,
}

impl TestKind {
    /// Every test, in the order diagnostics list them.
    pub const ALL: [TestKind; 14] = [
        TestKind::Matches,
        TestKind::MatchesAll,
        TestKind::MatchesNone,
        TestKind::Glob,
        TestKind::Equals,
        TestKind::OneOf,
        TestKind::Exists,
        TestKind::Contains,
        TestKind::Gt,
        TestKind::Ge,
        TestKind::Lt,
        TestKind::Le,
        TestKind::Command,
        TestKind::Class,
    ];

    /// Its key (also how a trace names it).
    pub fn key(self) -> &'static str {
        match self {
            TestKind::Matches => "matches",
            TestKind::MatchesAll => "matches_all",
            TestKind::MatchesNone => "matches_none",
            TestKind::Glob => "glob",
            TestKind::Equals => "equals",
            TestKind::OneOf => "one_of",
            TestKind::Exists => "exists",
            TestKind::Contains => "contains",
            TestKind::Gt => "gt",
            TestKind::Ge => "ge",
            TestKind::Lt => "lt",
            TestKind::Le => "le",
            TestKind::Command => "command",
            TestKind::Class => "class",
        }
    }

    /// Is it written in this condition?
    pub fn written(self, raw: &RawCondition) -> bool {
        match self {
            TestKind::Matches => raw.matches.is_some(),
            TestKind::MatchesAll => raw.matches_all.is_some(),
            TestKind::MatchesNone => raw.matches_none.is_some(),
            TestKind::Glob => raw.glob.is_some(),
            TestKind::Equals => raw.equals.is_some(),
            TestKind::OneOf => raw.one_of.is_some(),
            TestKind::Exists => raw.exists.is_some(),
            TestKind::Contains => raw.contains.is_some(),
            TestKind::Gt => raw.gt.is_some(),
            TestKind::Ge => raw.ge.is_some(),
            TestKind::Lt => raw.lt.is_some(),
            TestKind::Le => raw.le.is_some(),
            TestKind::Command => raw.command.is_some(),
            TestKind::Class => raw.class.is_some(),
        }
    }

    /// The selector it goes with, when it does not go with every selector.
    pub fn pairing(self) -> Option<Pairing> {
        match self {
            TestKind::Command => Some(Pairing {
                selector: SelectorKind::Commands,
                both_ways: true,
                message: "`commands = ...` goes with a `command = { ... }` test, and only with it",
                help: "e.g. { commands = \"tool_input.command\", command = { program = [\"rm\"] } }",
            }),
            TestKind::Class => Some(Pairing {
                selector: SelectorKind::Paths,
                both_ways: false,
                message: "`class = [...]` tests paths: it goes with a `paths = ...` selector",
                help: "e.g. { paths = \"tool_input.file_path\", class = [\"system\", \"home_top\"] }; in a command test use `target_class`",
            }),
            _ => None,
        }
    }

    /// The regex list semantics, for the three regex tests.
    pub fn regex_mode(self) -> Option<RegexMode> {
        match self {
            TestKind::Matches => Some(RegexMode::Any),
            TestKind::MatchesAll => Some(RegexMode::All),
            TestKind::MatchesNone => Some(RegexMode::None),
            _ => None,
        }
    }

    /// The comparison, for the four numeric tests.
    pub fn comparison(self) -> Option<CmpOp> {
        match self {
            TestKind::Gt => Some(CmpOp::Gt),
            TestKind::Ge => Some(CmpOp::Ge),
            TestKind::Lt => Some(CmpOp::Lt),
            TestKind::Le => Some(CmpOp::Le),
            _ => None,
        }
    }

    /// The tests written in a condition, in table order.
    pub fn written_in(raw: &RawCondition) -> Vec<TestKind> {
        Self::ALL.into_iter().filter(|k| k.written(raw)).collect()
    }

    /// The tests that go with any selector, as a help line lists them.
    pub fn general() -> String {
        Self::ALL
            .into_iter()
            .filter(|k| k.pairing().is_none())
            .map(TestKind::key)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Op {
    /// Its kind.
    pub fn kind(&self) -> TestKind {
        match self {
            Op::Regex { mode, .. } => match mode {
                RegexMode::Any => TestKind::Matches,
                RegexMode::All => TestKind::MatchesAll,
                RegexMode::None => TestKind::MatchesNone,
            },
            Op::Glob(_) => TestKind::Glob,
            Op::Equals(_) => TestKind::Equals,
            Op::OneOf(_) => TestKind::OneOf,
            Op::Exists(_) => TestKind::Exists,
            Op::Contains(_) => TestKind::Contains,
            Op::Compare(op, _) => match op {
                CmpOp::Gt => TestKind::Gt,
                CmpOp::Ge => TestKind::Ge,
                CmpOp::Lt => TestKind::Lt,
                CmpOp::Le => TestKind::Le,
            },
            Op::Command(_) => TestKind::Command,
            Op::Class(_) => TestKind::Class,
        }
    }
}

/// What a kind of fact is called and what it cannot do without.
impl FactKind {
    /// Its `kind = "…"`.
    pub fn key(self) -> &'static str {
        match self {
            FactKind::File => "file",
            FactKind::Glob => "glob",
            FactKind::Command => "command",
            FactKind::Env => "env",
            FactKind::LastAssistantMessage => "last_assistant_message",
            FactKind::ProjectMarkers => "project_markers",
        }
    }

    /// The setting it cannot do without, with an example for the help line,
    /// and whether this fact has it.
    pub fn required(self, f: &RawFact) -> Option<(&'static str, &'static str, bool)> {
        const PATH: &str = "path = \".claude/notes.md\" (relative to the project)";
        match self {
            FactKind::File | FactKind::Glob => Some(("path", PATH, f.path.is_some())),
            FactKind::Command => Some((
                "argv",
                "argv = [\"npm\", \"test\"] (run directly, never through a shell)",
                f.argv.as_ref().is_some_and(|a| !a.value.is_empty()),
            )),
            FactKind::Env => Some((
                "vars",
                "vars = [\"CI\"] (the environment variables templates may read)",
                !f.vars.is_empty(),
            )),
            FactKind::LastAssistantMessage | FactKind::ProjectMarkers => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SelectorKind, TestKind};

    /// The keys are the raw condition's field names, each once: the schema
    /// (generated from `RawCondition`) and these tables agree.
    #[test]
    fn every_key_is_a_field_of_a_raw_condition() {
        let schema = schemars::schema_for!(crate::policy::syntax::RawCondition);
        let props = schema
            .get("properties")
            .and_then(|p| p.as_object())
            .expect("a condition's schema lists its keys");
        let keys: Vec<&str> = SelectorKind::ALL
            .iter()
            .map(|k| k.key())
            .chain(TestKind::ALL.iter().map(|k| k.key()))
            .collect();
        for k in &keys {
            assert!(props.contains_key(*k), "{k} is not a key of a condition");
        }
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), keys.len());
        assert_eq!(
            SelectorKind::listed(),
            "`field`, `jsonpath`, `fact`, `commands` or `paths`"
        );
    }

    /// Each malformed condition, with the error and help validation gives:
    /// the key lists in them come from the tables above.
    #[test]
    fn malformed_conditions_are_named_by_the_tables_keys() {
        use crate::source::{Origin, PolicySource};
        const COMMANDS: &str =
            "`commands = ...` goes with a `command = { ... }` test, and only with it";
        const CLASS: &str = "`class = [...]` tests paths: it goes with a `paths = ...` selector";
        let general = "add one of matches, matches_all, matches_none, glob, equals, one_of, \
                       exists, contains, gt, ge, lt, le; combine several with all = [...]";
        let cases = [
            (
                "{ equals = 1 }",
                "a condition needs a selector (`field`, `jsonpath`, `fact`, `commands` or \
                 `paths`) or a combinator",
            ),
            (
                "{ field = 'a', paths = 'b', exists = true }",
                "a condition can have only one selector, found field, paths",
            ),
            ("{ jsonpath = '$.a' }", "`jsonpath` has nothing to test"),
            (
                "{ field = 'a', le = 2, exists = true }",
                "a condition can have only one test, found exists, le",
            ),
            ("{ field = 'a', command = { program = ['rm'] } }", COMMANDS),
            ("{ commands = 'a', exists = true }", COMMANDS),
            ("{ commands = 'a', class = ['home'] }", COMMANDS),
            ("{ field = 'a', class = ['home'] }", CLASS),
            (
                "{ all = [], field = 'a' }",
                "a condition mixes `all`/`any`/`not`/`ref` with other keys",
            ),
        ];
        for (when, want) in cases {
            let text = format!(
                "[[rule]]\nid = 'r'\nevents = ['PreToolUse']\ndecision = 'deny'\nwhen = {when}\n"
            );
            let source = PolicySource::new(Origin::Builtin("kinds"), text);
            let raw = crate::policy::parse::parse(&source).expect("parses");
            let v = crate::validate::validate(&source, &raw, &|_| true);
            let d = v
                .diagnostics
                .iter()
                .find(|d| d.code == crate::diagnostics::Code::InvalidCondition)
                .unwrap_or_else(|| panic!("{when}: no HR012 in {:?}", v.diagnostics));
            assert_eq!(d.message, want, "{when}");
            if want.contains("only one test") {
                assert_eq!(d.help.as_deref(), Some(general));
            }
        }
    }
}
