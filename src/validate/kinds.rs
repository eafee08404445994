//! The condition kinds, each defined once: its key in the TOML, how it is
//! found in a raw condition, how its value is read and validated, what it
//! goes with, and the words traces and diagnostics use for it.
//!
//! A condition is a combinator (`all`, `any`, `not`, `ref`) or one selector
//! with one test. Each family is a closed enum. Selectors and tests are
//! declared as one row per kind (the `selector_kinds!` and `test_kinds!`
//! tables), the way ast-grep's rule variants are: the enum, its `ALL`, its key (the
//! name of its field in [`RawCondition`], so the two cannot differ), whether
//! it is written, how it is read into the validated model, and the mapping
//! back from the model ([`Selector::kind`], [`Op::kind`]) all come from the
//! row. Validation reads its key lists from `ALL` (none is written out by
//! hand), and the schema, the unknown-key errors and their "did you mean"
//! come from `RawCondition` itself. What a test needs of the event (the
//! prefilter), whether it passes and how a trace shows it are its section
//! of `compile::test_kinds` (a later stage). A selector's reader is in
//! `eval` and its need in `compile::reach`; its static read rule in
//! `validate::reads`.
//!
//! A kind of fact has its key, the setting it cannot do without and what it
//! computes (the shape `check` reads `fact = "name.path"` against) here, in
//! [`FactKind`]'s impl; the computation itself is `eval::facts::compute`,
//! and a test (`tests/library/reads.rs`) holds the two to the same fields.

use super::reads::Node;
use super::{toml_to_json, Validator};
use crate::contract::fields::Presence;
use crate::policy::syntax::{FactKind, RawCondition, RawFact, Sp};
use crate::validate::model::{CmpOp, Fact, Op, RegexMode, Selector};

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

/// Defines [`SelectorKind`] from one row per selector: its variant (with its
/// doc), the field of [`RawCondition`] that holds it (whose name is its key),
/// the validated [`Selector`]s of its kind, how a trace names what it selects,
/// and how its written value is read and validated into a `Selector`
/// (`|validator, condition, value| …`). From the rows come the closed enum,
/// [`SelectorKind::ALL`] (in row order, the order diagnostics list them),
/// [`SelectorKind::key`], [`SelectorKind::written`],
/// [`SelectorKind::trace_words`], [`SelectorKind::read`] and
/// [`Selector::kind`].
macro_rules! selector_kinds {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident: $field:ident for $sel:pat, shown $shown:literal,
        |$v:pat_param, $raw:pat_param, $value:pat_param| $read:expr;
    )*) => {
        /// Where a test's values come from.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum SelectorKind {
            $($(#[doc = $doc])* $kind,)*
        }

        impl SelectorKind {
            /// Every selector, in the order diagnostics list them.
            pub const ALL: [SelectorKind; [$(SelectorKind::$kind),*].len()] =
                [$(SelectorKind::$kind),*];

            /// Its key: the name of its field in a raw condition.
            pub fn key(self) -> &'static str {
                match self {
                    $(SelectorKind::$kind => stringify!($field),)*
                }
            }

            /// Its value in this condition, when it is written there.
            pub fn written(self, raw: &RawCondition) -> Option<&Sp<String>> {
                match self {
                    $(SelectorKind::$kind => raw.$field.as_ref(),)*
                }
            }

            /// How a trace names what it selects (`commands of tool_input.command`).
            pub fn trace_words(self) -> &'static str {
                match self {
                    $(SelectorKind::$kind => $shown,)*
                }
            }

            /// Read and validate it in this condition (diagnostics go to
            /// `v`). `None` when it is not written there or is not valid.
            pub(super) fn read(self, v: &mut Validator<'_>, raw: &RawCondition) -> Option<Selector> {
                match self {
                    $(SelectorKind::$kind => {
                        let $value = raw.$field.as_ref()?;
                        let $v = v;
                        let $raw = raw;
                        $read
                    })*
                }
            }
        }

        impl Selector {
            /// Its kind.
            pub fn kind(&self) -> SelectorKind {
                match self {
                    $($sel => SelectorKind::$kind,)*
                }
            }
        }
    };
}

selector_kinds! {
    /// `field = "tool_input.command"`: one field of the event.
    Field: field for Selector::Field(_), shown "field",
    |v, _, path| v.field_path(path).map(Selector::Field);
    /// `jsonpath = "$.…"`: a JSONPath query into the event.
    JsonPath: jsonpath for Selector::JsonPath(_), shown "jsonpath",
    |v, _, query| v.json_query(query).map(Selector::JsonPath);
    /// `fact = "name.path"`: a fact's value.
    Fact: fact for Selector::Fact { .. }, shown "fact",
    |v, _, fact| v.fact_selector(fact);
    /// `commands = "tool_input.command"`: the simple commands of a shell line.
    Commands: commands for Selector::Commands(_), shown "commands of",
    |v, _, path| v.field_path(path).map(Selector::Commands);
    /// `paths = "tool_input.file_path"`: normalised paths.
    Paths: paths for Selector::Paths(_), shown "paths",
    |v, raw, path| v.path_selector(raw, path);
}

impl SelectorKind {
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

/// Defines [`TestKind`] from one row per test: its variant (with its doc),
/// the field of [`RawCondition`] that holds it (whose name is its key), the
/// validated [`Op`]s of its kind, and how its written value is read and
/// validated into an `Op` (`|validator, condition, value, selector| …`).
/// From the rows come the closed enum, [`TestKind::ALL`] (in row order, the
/// order diagnostics list them), [`TestKind::key`], [`TestKind::written`],
/// [`TestKind::read`] and [`Op::kind`], so none of them is kept by hand.
macro_rules! test_kinds {
    ($(
        $(#[doc = $doc:literal])*
        $kind:ident: $field:ident for $op:pat,
        |$v:pat_param, $raw:pat_param, $value:pat_param, $sel:pat_param| $read:expr;
    )*) => {
        /// The test applied to each selected value.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum TestKind {
            $($(#[doc = $doc])* $kind,)*
        }

        impl TestKind {
            /// Every test, in the order diagnostics list them.
            pub const ALL: [TestKind; [$(TestKind::$kind),*].len()] = [$(TestKind::$kind),*];

            /// Its key (also how a trace names it): the name of its field in
            /// a raw condition.
            pub fn key(self) -> &'static str {
                match self {
                    $(TestKind::$kind => stringify!($field),)*
                }
            }

            /// Is it written in this condition?
            pub fn written(self, raw: &RawCondition) -> bool {
                match self {
                    $(TestKind::$kind => raw.$field.is_some(),)*
                }
            }

            /// Read and validate its value in this condition (diagnostics go
            /// to `v`); `selector` is the condition's selector, for help
            /// lines. `None` when it is not written there or is not valid.
            pub(super) fn read(
                self,
                v: &mut Validator<'_>,
                raw: &RawCondition,
                selector: SelectorKind,
            ) -> Option<Op> {
                match self {
                    $(TestKind::$kind => {
                        let $value = raw.$field.as_ref()?;
                        let $v = v;
                        let $raw = raw;
                        let $sel = selector;
                        $read
                    })*
                }
            }
        }

        impl Op {
            /// Its kind.
            pub fn kind(&self) -> TestKind {
                match self {
                    $($op => TestKind::$kind,)*
                }
            }
        }
    };
}

test_kinds! {
    /// `matches`: some regex matches.
    Matches: matches for Op::Regex { mode: RegexMode::Any, .. },
    |v, raw, list, sel| Some(Op::Regex {
        mode: RegexMode::Any,
        regexes: v.test_regexes(raw, sel, TestKind::Matches, list)?,
    });
    /// `matches_all`: every regex matches.
    MatchesAll: matches_all for Op::Regex { mode: RegexMode::All, .. },
    |v, raw, list, sel| Some(Op::Regex {
        mode: RegexMode::All,
        regexes: v.test_regexes(raw, sel, TestKind::MatchesAll, list)?,
    });
    /// `matches_none`: no regex matches.
    MatchesNone: matches_none for Op::Regex { mode: RegexMode::None, .. },
    |v, raw, list, sel| Some(Op::Regex {
        mode: RegexMode::None,
        regexes: v.test_regexes(raw, sel, TestKind::MatchesNone, list)?,
    });
    /// `glob`: globs (with `!` exclusions).
    Glob: glob for Op::Glob(_),
    |v, raw, list, _| v.globs(list, raw.case_insensitive.unwrap_or(false)).map(Op::Glob);
    /// `equals`: a value.
    Equals: equals for Op::Equals(_),
    |_, _, want, _| Some(Op::Equals(toml_to_json(&want.value)));
    /// `one_of`: one of these values.
    OneOf: one_of for Op::OneOf(_),
    |v, _, list, _| Some(Op::OneOf(
        v.items(list)?.into_iter().map(serde_json::Value::String).collect(),
    ));
    /// `exists`: present and not null, or not.
    Exists: exists for Op::Exists(_),
    |_, _, b, _| Some(Op::Exists(b.value));
    /// `contains`: a substring or an element.
    Contains: contains for Op::Contains(_),
    |_, _, needle, _| Some(Op::Contains(needle.value.clone()));
    /// `gt`.
    Gt: gt for Op::Compare(CmpOp::Gt, _),
    |_, _, x, _| Some(Op::Compare(CmpOp::Gt, x.value));
    /// `ge`.
    Ge: ge for Op::Compare(CmpOp::Ge, _),
    |_, _, x, _| Some(Op::Compare(CmpOp::Ge, x.value));
    /// `lt`.
    Lt: lt for Op::Compare(CmpOp::Lt, _),
    |_, _, x, _| Some(Op::Compare(CmpOp::Lt, x.value));
    /// `le`.
    Le: le for Op::Compare(CmpOp::Le, _),
    |_, _, x, _| Some(Op::Compare(CmpOp::Le, x.value));
    /// `command = { … }`: a test of each simple command.
    Command: command for Op::Command(_),
    |v, _, test, _| v.command_test(test).map(|t| Op::Command(Box::new(t)));
    /// `class = [...]`: location classes of each path.
    Class: class for Op::Class(_),
    |v, _, list, _| v.class_test(list).map(Op::Class);
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

    /// What a fact of this kind computes (`eval::facts::compute`), given its
    /// settings: the shape `check` reads a `fact = "name.path"` against.
    pub(super) fn output(self, f: &Fact) -> Node {
        let text = || Node::Scalar("text");
        let texts = || Node::List(Box::new(Node::Scalar("text")));
        let a = |n: &str, node: Node| (n.to_string(), Presence::Always, node);
        let o = |n: &str, node: Node| (n.to_string(), Presence::Sometimes, node);
        let fields = match self {
            FactKind::File => {
                let mut v = vec![
                    a("path", text()),
                    a("exists", Node::Scalar("true or false")),
                ];
                if !f.headings.is_empty() {
                    v.push(a("has_headings", Node::Scalar("true or false")));
                    v.push(a("missing_headings", texts()));
                }
                if let Some(re) = &f.regex {
                    v.push(a("matches", Node::Scalar("true or false")));
                    v.push(a(
                        "captures",
                        Node::Object {
                            fields: re.capture_names().flatten().map(|n| o(n, text())).collect(),
                            complete: true,
                        },
                    ));
                }
                if f.json {
                    v.push(a("json", Node::Any));
                }
                if f.lines.is_some() {
                    v.push(a("head", text()));
                    v.push(a("lines", texts()));
                }
                v
            }
            FactKind::Glob => vec![
                a("count", Node::Scalar("a number")),
                a("files", texts()),
                o("newest", text()),
            ],
            FactKind::Command => vec![
                a("status", Node::Scalar("a number")),
                a("ok", Node::Scalar("true or false")),
                a("stdout", text()),
                a("stderr", text()),
                a("output", text()),
            ],
            FactKind::Env => f.vars.iter().map(|v| o(v, text())).collect(),
            FactKind::LastAssistantMessage => return Node::Scalar("text"),
            FactKind::ProjectMarkers => f
                .markers
                .iter()
                .map(|m| a(m, Node::Scalar("true or false")))
                .collect(),
        };
        Node::Object {
            fields,
            complete: true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{SelectorKind, TestKind};

    /// The keys are the raw condition's field names, each once, and no serde
    /// rename makes the TOML key differ from the field's name: the schema
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
