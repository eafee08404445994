//! The one answer to "which rules can this event reach".
//!
//! A compiled set keeps, per event name, the enabled rules whose `events` include
//! it, split by the value of the event's matcher field (the client's matcher
//! semantics live here and nowhere else), and a prefilter: what each rule
//! requires of the event before it can match (a program its shell command runs,
//! a literal a field's text contains). Requirements are derived from the
//! compiled conditions with exhaustive matches, so a new selector or test kind
//! does not compile until it says what it requires (`Need::Always` is always
//! safe). `run` asks for the bucket with the prefilter applied; `explain` asks
//! for the same bucket without it, so it can show every rule's trace.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::flat::{InPlace, Keyed, Part, Parts, Run, Shards, Span, Texts, Words};
use super::literals;
use super::test_kinds::PathNeed;
use crate::contract::events::tool_aliases;
use crate::contract::Event;
use crate::policy::syntax::Quantifier;
use crate::shell::command::{
    command_object_with, program_is, subcommand_matches, Code, Facts, SimpleCommand,
};
use crate::shell::reach::{Classes, Judged};
use crate::shell::Dialect;
use crate::validate::model::{
    texts, CommandTest, CommandWords, Condition, EventScope, FieldPath, Matcher, Op, PathSelector,
    ProgramOptions, Rule, Segment, Selector, Test,
};

/// A rule's index in its compiled set.
pub type RuleId = u32;

/// Does the client's matcher accept this value (or one of its legacy aliases)?
pub fn accepts(m: &Matcher, value: Option<&str>) -> bool {
    match m {
        Matcher::Any => true,
        Matcher::Exact(names) => value.is_some_and(|v| {
            names
                .iter()
                .any(|n| n == v || tool_aliases(v).contains(&n.as_str()))
        }),
        Matcher::Regex(re) => value.is_some_and(|v| {
            re.get()
                .is_ok_and(|re| re.is_match(v) || tool_aliases(v).iter().any(|a| re.is_match(a)))
        }),
    }
}

/// Do a rule's `events` include this event?
pub fn in_scope(scope: &EventScope, event: &str) -> bool {
    match scope {
        EventScope::All => true,
        EventScope::Named(v) => v.iter().any(|e| e == event),
    }
}

/// Why a rule in scope of an event is not in its bucket (for `explain`); `None`
/// when it is.
pub fn left_out(rule: &Rule, event: &Event) -> Option<String> {
    if !rule.enabled {
        return Some("disabled".into());
    }
    if !in_scope(&rule.events, &event.name) {
        return Some(format!("not for {}", event.name));
    }
    let value = event.matcher_value()?;
    let (matcher, text) = rule.matcher_for(&event.name);
    (!accepts(matcher, value)).then(|| {
        format!(
            "matcher `{}` does not accept `{}`",
            text.unwrap_or(""),
            value.unwrap_or("")
        )
    })
}

/// Something the event must have for a rule to be able to match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Atom {
    /// A text of this event field (as conditions see it) contains this literal,
    /// compared ASCII-case-insensitively.
    Text {
        /// The field.
        field: FieldPath,
        /// Lowercase literal.
        literal: String,
    },
    /// The shell command in this field runs this program (a trailing `*` is a
    /// prefix, as in `program` lists) with this subcommand (as a `command`
    /// test's `subcommand` finds it; empty: any).
    Program {
        /// The field holding the command.
        field: FieldPath,
        /// Program name.
        name: String,
        /// Its leading operands (`["token", "create"]`).
        subcommand: Vec<String>,
        /// What the tests that want this program ask of the command's flags
        /// and arguments, any of which will do (empty: some test asks for
        /// nothing more). The bucket's lists leave them out; a rule's
        /// [`gate`] judges them before the rule is read.
        words: Vec<Arc<Asks>>,
    },
    /// The shell command in this field runs a program whose name is an
    /// unknown expansion (`$CMD -rf /`).
    UnknownProgram {
        /// The field holding the command.
        field: FieldPath,
    },
    /// The shell command in this field runs code that comes from here.
    Code {
        /// The field holding the command.
        field: FieldPath,
        /// Where the code comes from.
        code: Code,
    },
    /// A command of the shell command in this field has, in this field of
    /// its command object (what `command = { when = … }` sees:
    /// [`command_object`]), a text containing this literal, compared
    /// ASCII-case-insensitively.
    Within {
        /// The field holding the command.
        field: FieldPath,
        /// The field of the command object.
        inner: FieldPath,
        /// Lowercase literal.
        literal: String,
    },
    /// A text of a path this `paths = …, from_command = true` selector picks
    /// (as the test sees it: see [`CommandPaths`]; the test's own selector
    /// without what only leaves paths out, [`picks_at_least`]) contains this
    /// literal, compared ASCII-case-insensitively.
    Path {
        /// The selector (shared by the atoms of one test: a selector holds
        /// whole option tables, too big to copy per literal).
        selector: Arc<PathSelector>,
        /// Lowercase literal; after a NUL, the text starts with it
        /// ([`super::patterns::glob_atoms`]).
        literal: String,
    },
    /// This `paths = …, from_command = true` selector picks some path (a
    /// `glob` or `class` test passes no path when there is none).
    AnyPath {
        /// The selector.
        selector: Arc<PathSelector>,
    },
    /// This `paths = …, from_command = true` selector picks a path with one
    /// of these classes (as a `class` test judges it: [`PathsSeen`]).
    Class {
        /// The selector.
        selector: Arc<PathSelector>,
        /// The classes.
        classes: Classes,
    },
    /// The event has this field (a branch of an `any` whose tests read it and
    /// cannot pass without it, [`required`]: a file tool's `file_path` in a
    /// rule for shells and file tools is not there on a shell call).
    Present {
        /// The field.
        field: FieldPath,
    },
}

impl Atom {
    fn weight(&self) -> usize {
        match self {
            Atom::Text { literal, .. }
            | Atom::Within { literal, .. }
            | Atom::Path { literal, .. } => literal.len(),
            Atom::Program { .. }
            | Atom::UnknownProgram { .. }
            | Atom::Code { .. }
            | Atom::AnyPath { .. }
            | Atom::Class { .. } => 8,
            Atom::Present { .. } => 1,
        }
    }

    /// The event field the atom looks at: it is found only in an event that
    /// has the field.
    fn field(&self) -> &FieldPath {
        match self {
            Atom::Text { field, .. }
            | Atom::Program { field, .. }
            | Atom::UnknownProgram { field }
            | Atom::Code { field, .. }
            | Atom::Within { field, .. }
            | Atom::Present { field } => field,
            Atom::Path { selector, .. }
            | Atom::AnyPath { selector }
            | Atom::Class { selector, .. } => &selector.field,
        }
    }
}

/// The paths a command names, as a later stage sees them: for the prefilter
/// of `paths = …, from_command = true` tests. Evaluation implements it (its
/// context knows the directories paths resolve against), so the prefilter
/// looks at exactly the texts and classes the test will judge; without it,
/// every rule with such an atom is a candidate.
pub trait CommandPaths {
    /// What a test of `selector` sees of the paths these commands name, as
    /// far as the classes `wanted` go: with the classes only a file's
    /// content gives when it holds one
    /// ([`Class::PrivateKey`](crate::shell::reach::Class::PrivateKey), [`Class::Credentials`](crate::shell::reach::Class::Credentials)), which cost a read of each file;
    /// the classes it does not hold may be left out ([`Judged`]).
    /// `facts` were made for `commands` (and answer what each writes once
    /// for every selector).
    fn paths_seen(
        &self,
        commands: &[SimpleCommand],
        facts: &Facts,
        selector: &PathSelector,
        wanted: Classes,
    ) -> PathsSeen;

    /// The same, for the paths an event field holds (`paths =
    /// "tool_input.file_path"`).
    fn field_paths_seen(
        &self,
        value: &serde_json::Value,
        selector: &PathSelector,
        wanted: Classes,
    ) -> PathsSeen;
}

/// What a test sees of the paths a selector picks.
#[derive(Debug, Default)]
pub struct PathsSeen {
    /// The texts of every form of each path, before any normalisation;
    /// `None` when a test may match a path by more than its texts (a shell
    /// pattern operand).
    pub texts: Option<Vec<String>>,
    /// The classes of the paths, all together, as a `class` test judges
    /// each (where it lands).
    pub classes: Classes,
}

/// What a rule requires of an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Need {
    /// Nothing known: always evaluate it.
    Always,
    /// One of these atoms.
    AnyOf(Vec<Atom>),
}

/// What a rule requires of an event: one of its atoms, and every one of its
/// fields. Both come from its `when` (`unless` can only remove matches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Needs {
    /// One of these atoms.
    pub atoms: Need,
    /// Fields the event must have, sorted: the ones its atoms do not already
    /// look at (an atom is found only in an event with its field).
    pub fields: Vec<FieldPath>,
}

/// What a rule requires.
pub fn needs(rule: &Rule) -> Needs {
    let Some(when) = &rule.when else {
        return Needs {
            atoms: Need::Always,
            fields: vec![],
        };
    };
    let atoms = condition(when, 0, On::Event);
    let mut fields: Vec<FieldPath> = required(when, 0).into_iter().collect();
    if let Need::AnyOf(atoms) = &atoms {
        fields.retain(|f| atoms.iter().any(|a| a.field() != f));
    }
    Needs { atoms, fields }
}

/// What one `command` test asks of a command that runs its program with its
/// subcommand: its flags and arguments ([`CommandWords`]), and, for its
/// `arg_matches`, literals one of which some argument must contain
/// (lowercase, compared ASCII-case-insensitively, as
/// `patterns::regexes_may_match` looks for them; empty: none known, or no
/// `arg_matches`). (Without them, the 10,000-rule bench set's `npm test`
/// read, decoded and judged 23 rules whose `arg_matches` literal
/// (`--prod-f007_36`) no argument has.)
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Asks {
    /// Its flags and arguments.
    pub words: CommandWords,
    /// The literals of its `arg_matches` (see above).
    pub arg_literals: Vec<String>,
}

impl Asks {
    /// What `ct` asks beyond its program and subcommand.
    fn of(ct: &CommandTest) -> Asks {
        let arg_literals = match &ct.arg_matches {
            Some(r) => {
                let needles = super::patterns::regex_needles(r);
                match needles.iter().all(Option::is_some) {
                    true => {
                        let mut all: Vec<String> =
                            needles.iter().flatten().flatten().cloned().collect();
                        all.sort();
                        all.dedup();
                        // An empty literal is in every argument.
                        match all.iter().any(String::is_empty) {
                            true => vec![],
                            false => all,
                        }
                    }
                    false => vec![],
                }
            }
            None => vec![],
        };
        Asks {
            words: ct.words.clone(),
            arg_literals,
        }
    }

    /// Does it ask nothing?
    fn is_empty(&self) -> bool {
        self.words.is_empty() && self.arg_literals.is_empty()
    }

    /// Does `c` have what it asks (as the `command` test judges the
    /// words, and as `patterns::regexes_may_match` the arguments)?
    fn met(&self, c: &SimpleCommand) -> bool {
        self.words.fails(c).is_none()
            && (self.arg_literals.is_empty()
                || c.args.iter().any(|a| {
                    self.arg_literals
                        .iter()
                        .any(|l| contains_lowercase(a.as_bytes(), l.as_bytes()))
                }))
    }
}

/// Does `text`, ASCII-lowercased, contain `literal` (lowercase)? As
/// `literals::any_in` finds a literal in a lowercased text, without the
/// lowercased copy.
fn contains_lowercase(text: &[u8], literal: &[u8]) -> bool {
    literal.is_empty()
        || text.windows(literal.len()).any(|w| {
            w.iter()
                .zip(literal)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        })
}

/// What a rule's record tells before the rest of it is read ([`gate`]): the
/// programs its `command` tests want, with the subcommand and the flags and
/// arguments each asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Gate(Vec<GateEntry>);

/// Programs of one field's shell command, with what a command that runs one
/// must have.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct GateEntry {
    field: FieldPath,
    /// As a `program` list has them (a trailing `*` is a prefix).
    programs: Vec<String>,
    subcommand: Vec<String>,
    /// Any of these will do (empty: nothing more).
    words: Vec<Arc<Asks>>,
}

/// A rule's gate: when every atom of its need ([`needs`]) is a program atom
/// and one of them asks for flags or arguments ([`CommandWords`]), those
/// atoms. The bucket's lists find the rule by its program and subcommand
/// alone; a rule none of whose atoms a command of the event holds for, with
/// its words, cannot match ([`Gate::holds`]), and that costs a few words
/// decoded instead of the whole rule (the 10,000-rule bench set's `npm
/// test` reached 82 rules by their program, most of which ask for flags or
/// arguments it does not have).
pub fn gate(needs: &Needs) -> Option<Gate> {
    let Need::AnyOf(atoms) = &needs.atoms else {
        return None;
    };
    let mut entries: Vec<GateEntry> = vec![];
    let mut words_asked = false;
    for a in atoms {
        let Atom::Program {
            field,
            name,
            subcommand,
            words,
        } = a
        else {
            return None;
        };
        words_asked |= !words.is_empty();
        let same = |e: &&mut GateEntry| {
            e.field == *field && e.subcommand == *subcommand && e.words == *words
        };
        match entries.iter_mut().find(same) {
            Some(e) => e.programs.push(name.clone()),
            None => entries.push(GateEntry {
                field: field.clone(),
                programs: vec![name.clone()],
                subcommand: subcommand.clone(),
                words: words.clone(),
            }),
        }
    }
    words_asked.then_some(Gate(entries))
}

impl Gate {
    /// Does a command of the event run one of its programs with the
    /// subcommand and one of the words asked for, as the `command` test
    /// judges them (`program_is`, `subcommand_matches`,
    /// [`CommandWords::fails`])? `commands` gives a field's commands
    /// (`None`: the event has no command there; `Err`: it does not parse,
    /// and may run anything).
    pub fn holds(&self, commands: &mut dyn FnMut(&FieldPath) -> Option<Parsed>) -> bool {
        self.0.iter().any(|e| match commands(&e.field) {
            None => false,
            Some(Err(_)) => true,
            Some(Ok(cmds)) => cmds.iter().any(|c| {
                e.programs.iter().any(|p| program_is(&c.program, p))
                    && subcommand_matches(c, &e.subcommand)
                    && (e.words.is_empty() || e.words.iter().any(|w| w.met(c)))
            }),
        })
    }
}

/// A rule's [`Gate`] read where it lies in the rule's record (the same
/// bytes, as postcard lays them out): its programs, subcommands and words
/// compared as bytes where they lie, as [`CommandWords::fails`] compares
/// them. Decoded into owned strings, the gates of the 82 rules the
/// 10,000-rule bench set's `npm test` reaches by its program cost ~0.24M
/// instructions (an allocation, a copy, a UTF-8 check and a free per word),
/// to find the 31 whose words the command has; decoded by serde into
/// borrowed views, still ~0.16M (a vector per list, a UTF-8 check per text).
#[derive(Debug, Clone, Copy)]
pub struct GateView<'a>(&'a [u8]);

/// Postcard's encoding, read in place: varints (LEB128), byte strings (a
/// varint length, then the bytes), sequences (a varint count, then the
/// items). Every read is bounds-checked (`None`: the bytes do not decode).
#[derive(Debug, Clone, Copy)]
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    /// A varint of at most `max` bytes (postcard's: 10 for a u64, 5 for a u32).
    #[inline]
    fn varint(&mut self, max: usize) -> Option<u64> {
        // (Counts and lengths are mostly below 128: one byte.)
        match self.0.split_first() {
            Some((&b, rest)) if b < 0x80 => {
                self.0 = rest;
                Some(u64::from(b))
            }
            _ => self.long_varint(max),
        }
    }

    #[cold]
    fn long_varint(&mut self, max: usize) -> Option<u64> {
        let mut v: u64 = 0;
        for i in 0..max {
            let (&b, rest) = self.0.split_first()?;
            self.0 = rest;
            v |= u64::from(b & 0x7f).checked_shl(7 * i as u32)?;
            if b & 0x80 == 0 {
                // The last byte holds what is left of the value's bits
                // (postcard refuses more).
                let left = if max == 10 { 1 } else { 0x0f };
                return (i + 1 < max || b <= left).then_some(v);
            }
        }
        None
    }

    #[inline]
    fn count(&mut self) -> Option<usize> {
        usize::try_from(self.varint(10)?).ok()
    }

    #[inline]
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.count()?;
        if n > self.0.len() {
            return None;
        }
        let (b, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(b)
    }

    /// The bytes read since `before` (a copy of this cursor, earlier).
    fn since(self, before: Cursor<'a>) -> Cursor<'a> {
        Cursor(&before.0[..before.0.len() - self.0.len()])
    }

    /// Skip a list of texts.
    fn skip_texts(&mut self) -> Option<()> {
        for _ in 0..self.count()? {
            self.bytes()?;
        }
        Some(())
    }

    /// A list of texts: its bytes (the count first).
    fn text_list(&mut self) -> Option<Cursor<'a>> {
        let before = *self;
        self.skip_texts()?;
        Some(self.since(before))
    }

    /// The texts of a list ([`Self::text_list`]).
    fn texts(self) -> impl Iterator<Item = &'a [u8]> {
        let mut c = self;
        let n = c.count().unwrap_or(0);
        (0..n).map_while(move |_| c.bytes())
    }

    /// A [`Segment`] ([`SegmentView`]): its variant, then a text or a number.
    fn segment(&mut self) -> Option<SegmentView<'a>> {
        Some(match self.varint(5)? {
            0 => SegmentView::Key(self.bytes()?),
            1 => SegmentView::Index(self.count()?),
            2 => SegmentView::FromEnd(self.count()?),
            _ => return None,
        })
    }

    /// Skip a list of [`Asks`]: each its [`CommandWords`] (`flags_all`,
    /// lists of texts; `flags_any`, `flags_none`, `arg_in`, texts), then
    /// its `arg_literals` (texts).
    fn skip_words(&mut self) -> Option<()> {
        for _ in 0..self.count()? {
            for _ in 0..self.count()? {
                self.skip_texts()?;
            }
            self.skip_texts()?;
            self.skip_texts()?;
            self.skip_texts()?;
            self.skip_texts()?;
        }
        Some(())
    }

    /// A [`GateEntry`]: its field, programs, subcommand and words, each
    /// skipped (their bytes).
    fn entry(&mut self) -> Option<[Cursor<'a>; 4]> {
        let before = *self;
        for _ in 0..self.count()? {
            self.segment()?;
        }
        let field = self.since(before);
        let programs = self.text_list()?;
        let subcommand = self.text_list()?;
        let before = *self;
        self.skip_words()?;
        Some([field, programs, subcommand, self.since(before)])
    }

    /// Skip a [`GateEntry`].
    fn skip_entry(&mut self) -> Option<()> {
        for _ in 0..self.count()? {
            self.segment()?;
        }
        self.skip_texts()?;
        self.skip_texts()?;
        self.skip_words()
    }
}

/// A [`Segment`] of a [`FieldPath`] in place (the same variants, in order).
#[derive(Debug, Clone, Copy)]
enum SegmentView<'a> {
    Key(&'a [u8]),
    Index(usize),
    FromEnd(usize),
}

impl SegmentView<'_> {
    /// The segment (`None`: a key that is not UTF-8).
    fn owned(&self) -> Option<Segment> {
        Some(match self {
            SegmentView::Key(k) => Segment::Key(std::str::from_utf8(k).ok()?.to_string()),
            SegmentView::Index(i) => Segment::Index(*i),
            SegmentView::FromEnd(i) => Segment::FromEnd(*i),
        })
    }
}

/// [`program_is`] of a name given as bytes (a valid UTF-8 text's, as a gate
/// stores it): the same answer. (When the bytes of `program` up to the
/// prefix's length equal the prefix's but for ASCII case, they end where one
/// of its characters ends, as `program_is` requires.)
fn program_is_bytes(program: &str, item: &[u8]) -> bool {
    let program = program.as_bytes();
    match item.strip_suffix(b"*") {
        Some(prefix) => program
            .get(..prefix.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(prefix)),
        None => program.eq_ignore_ascii_case(item),
    }
}

impl<'a> GateView<'a> {
    /// The gate (`Option<Gate>`, as postcard lays it out) at the start of
    /// `bytes`, and the bytes after it (`None`: they do not decode).
    pub fn take(bytes: &'a [u8]) -> Option<(Option<GateView<'a>>, &'a [u8])> {
        match GateView::peek(bytes)? {
            Ok(gate) => {
                let (gate, rest) = gate.split()?;
                Some((Some(gate), rest))
            }
            Err(rest) => Some((None, rest)),
        }
    }

    /// The gate at the start of `bytes`, not yet walked (`Err`: there is
    /// none, and the bytes after its absence): its view runs to the end of
    /// `bytes`, past the gate ([`Self::holds`] reads only the gate's
    /// entries), and [`Self::split`] finds where it ends. A rule its gate
    /// leaves out needs no more than that: walked first to find its end,
    /// the 72 gates that refuse `npm test` in the 10,000-rule bench set
    /// cost ~36k instructions more.
    pub fn peek(bytes: &'a [u8]) -> Option<Result<GateView<'a>, &'a [u8]>> {
        let (&tag, rest) = bytes.split_first()?;
        match tag {
            0 => Some(Err(rest)),
            1 => Some(Ok(GateView(rest))),
            _ => None,
        }
    }

    /// The gate alone, and the bytes after it (`None`: it does not decode).
    pub fn split(self) -> Option<(GateView<'a>, &'a [u8])> {
        let mut c = Cursor(self.0);
        for _ in 0..c.count()? {
            c.skip_entry()?;
        }
        Some((GateView(c.since(Cursor(self.0)).0), c.0))
    }

    /// [`Gate::holds`], of the gate in place. (A gate that does not decode
    /// holds: the rule is then judged, as a rule without a gate is.)
    pub fn holds<F: FnMut(&FieldPath) -> Option<Parsed>>(
        &self,
        commands: &mut GateCommands<F>,
    ) -> bool {
        self.try_holds(commands).unwrap_or(true)
    }

    fn try_holds<F: FnMut(&FieldPath) -> Option<Parsed>>(
        &self,
        commands: &mut GateCommands<F>,
    ) -> Option<bool> {
        let mut c = Cursor(self.0);
        for _ in 0..c.count()? {
            let [field, programs, subcommand, words] = c.entry()?;
            let held = match commands.of(field)? {
                None => false,
                Some(Err(_)) => true,
                Some(Ok(cmds)) => {
                    let sub: Option<Vec<&str>> = subcommand
                        .texts()
                        .map(|t| std::str::from_utf8(t).ok())
                        .collect();
                    let sub = sub?;
                    cmds.iter().any(|cmd| {
                        programs.texts().any(|p| program_is_bytes(&cmd.program, p))
                            && subcommand_matches(cmd, &sub)
                            && words_pass(words, cmd)
                    })
                }
            };
            if held {
                return Some(true);
            }
        }
        Some(false)
    }
}

/// Do the words of a gate's entry (a list of [`Asks`] in place) let `c`
/// through: none asked for, or one whose flags, arguments and argument
/// literals it has, as [`Asks::met`] judges them? (Words that do not decode
/// let it through.)
fn words_pass(words: Cursor<'_>, c: &SimpleCommand) -> bool {
    let mut w = words;
    let n = match w.count() {
        Some(0) | None => return true,
        Some(n) => n,
    };
    (0..n).any(|_| words_met(&mut w, c).unwrap_or(true))
}

/// Does `c` have what one [`Asks`] in place asks (`w` is moved past it)? As
/// `words_fail`: every group of `flags_all` has one of its flags (an empty
/// group none), one of `flags_any` if any, none of `flags_none`, and an
/// argument of `arg_in` if any; and as [`Asks::met`], an argument with one
/// of its `arg_literals` if any.
fn words_met(w: &mut Cursor<'_>, c: &SimpleCommand) -> Option<bool> {
    let has = |f: &[u8]| c.flags.iter().any(|x| x.as_bytes() == f);
    let mut met = true;
    for _ in 0..w.count()? {
        let mut group_has = false;
        for _ in 0..w.count()? {
            group_has |= has(w.bytes()?);
        }
        met &= group_has;
    }
    let (mut any, mut any_has) = (false, false);
    for _ in 0..w.count()? {
        any = true;
        any_has |= has(w.bytes()?);
    }
    met &= !any || any_has;
    for _ in 0..w.count()? {
        met &= !has(w.bytes()?);
    }
    let (mut args, mut arg_has) = (false, false);
    for _ in 0..w.count()? {
        let word = w.bytes()?;
        args = true;
        arg_has |= c.args.iter().any(|a| a.as_bytes() == word);
    }
    met &= !args || arg_has;
    // `arg_literals`: one in some argument.
    let (mut literals, mut literal_has) = (false, false);
    for _ in 0..w.count()? {
        let literal = w.bytes()?;
        literals = true;
        literal_has |= c
            .args
            .iter()
            .any(|a| contains_lowercase(a.as_bytes(), literal));
    }
    Some(met && (!literals || literal_has))
}

/// The commands of an event's fields, for the gates of its rules: the
/// field of the gate before is asked once (most gates name the same one,
/// `tool_input.command`; looked up and found among the parsed commands
/// again for each of 82 gates, ~60k instructions).
pub struct GateCommands<F> {
    commands: F,
    /// The last field asked, as a gate stores it, and its commands.
    last: Option<(Vec<u8>, Option<Parsed>)>,
}

impl<F: FnMut(&FieldPath) -> Option<Parsed>> GateCommands<F> {
    /// Over `commands` ([`field_commands`]).
    pub fn new(commands: F) -> Self {
        GateCommands {
            commands,
            last: None,
        }
    }

    /// The commands of the field whose segments `field` holds in place
    /// (`None`: they do not decode).
    fn of(&mut self, field: Cursor<'_>) -> Option<Option<Parsed>> {
        if let Some((last, parsed)) = &self.last {
            if last[..] == *field.0 {
                return Some(parsed.clone());
            }
        }
        let mut c = field;
        let n = c.count()?;
        let path = FieldPath(
            (0..n)
                .map(|_| c.segment()?.owned())
                .collect::<Option<Vec<Segment>>>()?,
        );
        let parsed = (self.commands)(&path);
        self.last = Some((field.0.to_vec(), parsed.clone()));
        Some(parsed)
    }
}

/// The commands of an event's field, for a [`Gate`]: parsed once per event
/// (`shells`), as the prefilter and evaluation parse them.
pub fn field_commands<'s>(
    event: &'s Event,
    shells: &'s mut Shells,
) -> impl FnMut(&FieldPath) -> Option<Parsed> + 's {
    let dialect = crate::contract::hosts::dialect(&event.value);
    let cwd = event_cwd(event);
    move |field| {
        let text = field.get(&event.value)?.as_str()?;
        Some(parse_shell(shells, text, dialect, cwd))
    }
}

/// The event fields a condition cannot hold without: those a test reads that
/// does not pass on nothing (`exists = false`, `matches_none` do), through
/// `all` (each member's) and `any` (every member's). Evaluation selects nothing
/// from a field the event lacks (`eval::values::apply`), and a `commands` or
/// `paths` selector nothing from a command or path that is not there; the
/// test then gives its answer on nothing. (`not` requires nothing; a
/// command's `when` reads the command's object, not the event.)
pub fn required(c: &Condition, depth: usize) -> BTreeSet<FieldPath> {
    if depth > 16 {
        return BTreeSet::new();
    }
    match c {
        Condition::All(members) => members
            .iter()
            .flat_map(|m| required(m, depth + 1))
            .collect(),
        Condition::Any(members) => {
            let mut each = members.iter().map(|m| required(m, depth + 1));
            let first = each.next().unwrap_or_default();
            each.fold(first, |common, m| {
                common.intersection(&m).cloned().collect()
            })
        }
        Condition::Not(_) => BTreeSet::new(),
        Condition::Ref(named) => required(&named.condition, depth + 1),
        Condition::Test(t) => {
            let field = match &t.selector {
                Selector::Field(p) | Selector::Commands(p) => Some(p),
                Selector::Paths(ps) => Some(&ps.field),
                Selector::JsonPath(_) | Selector::Fact { .. } => None,
            };
            field
                .filter(|_| !t.op.passes_on_nothing())
                .cloned()
                .into_iter()
                .collect()
        }
    }
}

/// What a condition is judged on: the event, or the object of one of its
/// commands (a `command = { when = … }`), whose fields are not the event's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum On {
    Event,
    Command,
}

fn condition(c: &Condition, depth: usize, on: On) -> Need {
    if depth > 16 {
        return Need::Always;
    }
    match c {
        // Any member's atoms will do: take the most selective (fewest, then longest).
        Condition::All(members) => members
            .iter()
            .filter_map(|m| match condition(m, depth + 1, on) {
                Need::AnyOf(v) => Some(v),
                Need::Always => None,
            })
            .min_by_key(|v| {
                (
                    v.len(),
                    usize::MAX - v.iter().map(Atom::weight).min().unwrap_or(0),
                )
            })
            .map_or(Need::Always, Need::AnyOf),
        Condition::Any(members) => {
            let mut out = vec![];
            for m in members {
                match condition(m, depth + 1, on) {
                    Need::AnyOf(v) => out.extend(v),
                    // Nothing known of its texts: the field it reads will do.
                    Need::Always => match required(m, depth + 1).into_iter().next() {
                        Some(field) => out.push(Atom::Present { field }),
                        None => return Need::Always,
                    },
                }
            }
            finish(out)
        }
        Condition::Not(_) => Need::Always,
        Condition::Ref(named) => condition(&named.condition, depth + 1, on),
        Condition::Test(t) => test(t, depth, on),
    }
}

/// At most this many atoms per rule (a path list's literals, the secret files'
/// say, with the programs of the rule's other tests).
const MAX_ATOMS: usize = 4 * literals::MAX_ALTERNATIVES;

fn finish(mut atoms: Vec<Atom>) -> Need {
    atoms.sort();
    atoms.dedup();
    merge_words(&mut atoms);
    if atoms.len() > MAX_ATOMS {
        // Too many: the programs alone, whatever their subcommands and
        // words, are fewer and still required.
        for a in &mut atoms {
            if let Atom::Program {
                subcommand, words, ..
            } = a
            {
                subcommand.clear();
                words.clear();
            }
        }
        atoms.sort();
        atoms.dedup();
        merge_words(&mut atoms);
    }
    if atoms.is_empty() || atoms.len() > MAX_ATOMS {
        return Need::Always;
    }
    Need::AnyOf(atoms)
}

/// One program atom per field, program and subcommand (sorted `atoms`
/// have them next to each other): the words of each, any of which will do,
/// or none when one of them asks for none.
fn merge_words(atoms: &mut Vec<Atom>) {
    atoms.dedup_by(|later, kept| match (later, kept) {
        (
            Atom::Program {
                field: f,
                name: n,
                subcommand: s,
                words: more,
            },
            Atom::Program {
                field,
                name,
                subcommand,
                words,
            },
        ) if f == field && n == name && s == subcommand => {
            match more.is_empty() || words.is_empty() {
                true => words.clear(),
                false => {
                    words.append(more);
                    words.dedup();
                }
            }
            true
        }
        _ => false,
    });
}

fn test(t: &Test, depth: usize, on: On) -> Need {
    // Any: some value passes; All: every value passes and there is one. Either
    // way some value's texts pass the test.
    match t.quantifier {
        Quantifier::Any | Quantifier::All => {}
    }
    let field = match &t.selector {
        Selector::Field(p) => p,
        Selector::Commands(p) => {
            return match &t.op {
                // A list that names every program (`"*"`) requires none:
                // what the rest of the test requires will do.
                Op::Command(ct) if !ct.program.is_empty() && !any_program(&ct.program) => {
                    let asks = Asks::of(ct);
                    let words: Vec<Arc<Asks>> = match asks.is_empty() {
                        true => vec![],
                        false => vec![Arc::new(asks)],
                    };
                    finish(
                        ct.program
                            .iter()
                            .map(|name| Atom::Program {
                                field: p.clone(),
                                name: name.clone(),
                                subcommand: ct.subcommand.clone(),
                                words: words.clone(),
                            })
                            .collect(),
                    )
                }
                Op::Command(ct) if ct.program_unknown == Some(true) => {
                    finish(vec![Atom::UnknownProgram { field: p.clone() }])
                }
                Op::Command(ct) if !ct.code.is_empty() => finish(
                    ct.code
                        .iter()
                        .map(|&code| Atom::Code {
                            field: p.clone(),
                            code,
                        })
                        .collect(),
                ),
                // A command passes only when its object meets `when`: what
                // that requires of the object's texts, some command's object
                // must have.
                Op::Command(ct) => match ct
                    .when
                    .as_ref()
                    .map(|w| condition(w, depth + 1, On::Command))
                {
                    Some(Need::AnyOf(atoms)) => within(p, atoms),
                    Some(Need::Always) | None => Need::Always,
                },
                _ => Need::Always,
            };
        }
        Selector::Paths(ps) => return paths_test(t, ps, on),
        Selector::JsonPath(_) | Selector::Fact { .. } => return Need::Always,
    };
    // What a passing text must contain, from the test's own definition.
    let Some(lits) = super::test_kinds::needs(&t.op, &t.normalize) else {
        return Need::Always;
    };
    finish(
        lits.into_iter()
            .map(|literal| Atom::Text {
                field: field.clone(),
                literal,
            })
            .collect(),
    )
}

/// Does a `program` list accept every program (`"*"`: a prefix of none)?
fn any_program(names: &[String]) -> bool {
    names.iter().any(|n| n == "*")
}

/// What a `command = { when = … }` test requires of the event: the texts
/// `when` requires of a command object, in some command of the field's
/// shell command. Only text atoms carry over (a `commands` or `paths`
/// selector inside `when` names the object's fields, not the event's).
fn within(field: &FieldPath, atoms: Vec<Atom>) -> Need {
    let atoms: Option<Vec<Atom>> = atoms
        .into_iter()
        .map(|a| match a {
            Atom::Text {
                field: inner,
                literal,
            } => Some(Atom::Within {
                field: field.clone(),
                inner,
                literal,
            }),
            Atom::Program { .. }
            | Atom::UnknownProgram { .. }
            | Atom::Code { .. }
            | Atom::Within { .. }
            | Atom::Path { .. }
            | Atom::AnyPath { .. }
            | Atom::Class { .. }
            | Atom::Present { .. } => None,
        })
        .collect();
    atoms.map_or(Need::Always, finish)
}

/// What a `paths` test requires, of the paths a command names or an event
/// field holds: for a glob test, one of the list's required literals in one
/// of their texts (a list without them: some path); for a `class` test, a
/// path of one of its classes. (Paths of a command object's field, and
/// other tests, require nothing known.)
fn paths_test(t: &Test, ps: &PathSelector, on: On) -> Need {
    // Links are followed through one cache per event, so the prefilter sees
    // the paths the test will (where they land and as spelled).
    if on == On::Command && !ps.from_command || !t.normalize.is_empty() {
        return Need::Always;
    }
    match t.quantifier {
        Quantifier::Any | Quantifier::All => {}
    }
    let need = super::test_kinds::path_needs(&t.op);
    if let PathNeed::Nothing = need {
        return Need::Always;
    }
    // One copy of the selector for all the test's atoms.
    let ps = Arc::new(picks_at_least(ps));
    // No path, no match (see `eval::values::apply`).
    let any_path = || {
        finish(vec![Atom::AnyPath {
            selector: ps.clone(),
        }])
    };
    let lits = match need {
        PathNeed::Nothing => return Need::Always,
        PathNeed::SomePath => return any_path(),
        PathNeed::Classes(classes) => {
            return finish(vec![Atom::Class {
                selector: ps,
                classes,
            }])
        }
        PathNeed::OneOf(lits) => lits,
    };
    // Every included pattern's literal, or nothing is known.
    let atoms: Option<Vec<Atom>> = lits
        .iter()
        .map(|l| {
            let (start, l) = match l.strip_prefix('\0') {
                Some(l) => ("\0", l),
                None => ("", l.as_str()),
            };
            literals::needle(l).map(|literal| Atom::Path {
                selector: ps.clone(),
                literal: format!("{start}{literal}"),
            })
        })
        .collect();
    atoms.map_or_else(any_path, finish)
}

/// The selector the prefilter looks through for a `paths … from_command`
/// test: the test's own without what only leaves paths out (`skip_programs`:
/// their operands; `skip_options`: option values, a standard input a table
/// says is used, a file handed over to the next command; see
/// `eval::values::paths_from_commands`). It picks every path the test's
/// selector picks, and more, so an atom it does not find the test cannot
/// match. Selectors that differ only there are one in the bucket's record
/// (one look at the command for all of them), and the record holds no copy
/// of their program and option tables (5.5 KB of the pack's secret-reading
/// selector, decoded on every Bash event).
fn picks_at_least(ps: &PathSelector) -> PathSelector {
    PathSelector {
        skip_programs: vec![],
        skip_options: vec![],
        ..ps.clone()
    }
}

/// Where each rule of a set can apply.
#[derive(Debug, Default)]
pub struct Table {
    /// Per event named by some rule (and every event the client sends).
    pub events: BTreeMap<String, EventEntry>,
    /// For any other event: the rules with `events = ["*"]`.
    pub other: EventEntry,
    /// Each rule's [`gate`], by id: what its record tells before the rest of
    /// it is read.
    pub gates: Vec<Option<Gate>>,
}

/// The rules of one event, by its matcher value. `R` is how each group of
/// rules is held: [`Reached`] in memory; an artifact keeps each group in a
/// record of its own, so an event reads only the group it reaches.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct EventEntry<R = Reached<'static>> {
    /// Every enabled rule in scope (when the event has no matcher field).
    pub rules: R,
    /// The rules for each matcher value some rule names (and legacy aliases).
    pub by_value: BTreeMap<String, R>,
    /// For other values: rules whose matcher accepts any value, and rules
    /// with a regex matcher (in `regex_value`, tested then).
    pub other_value: R,
    /// The rules of `other_value` with a regex matcher.
    pub regex_value: Vec<(RuleId, String)>,
    /// When the event lacks its matcher field.
    pub missing: R,
}

/// A group of rules one event can reach, with what they require of it.
///
/// An artifact's record of it is read in place ([`super::flat`]): its lists
/// borrow the record's bytes.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Reached<'a> {
    /// The rules, in id order (read only without the prefilter, whose
    /// candidates are among them).
    #[serde(borrow)]
    pub ids: Part<Words<'a, RuleId>>,
    /// What they require of the event.
    #[serde(borrow)]
    pub prefilter: Prefilter<'a>,
}

/// A bucket-level prefilter: candidates in one look at each field.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Prefilter<'a> {
    /// Rules that are always candidates.
    #[serde(borrow)]
    pub always: Words<'a, RuleId>,
    /// Program atoms, per command field.
    #[serde(borrow)]
    pub programs: Vec<FieldPrograms<'a>>,
    /// Text atoms, per field.
    #[serde(borrow)]
    pub texts: Vec<FieldLiterals<'a>>,
    /// Path atoms, per selector.
    #[serde(borrow)]
    pub paths: Vec<PathLiterals<'a>>,
    /// Fields the event has, or must have.
    #[serde(borrow)]
    pub fields: Vec<FieldPresence<'a>>,
}

/// A field's presence: an atom of some rules, a requirement of others.
#[derive(Debug, Serialize, Deserialize)]
pub struct FieldPresence<'a> {
    /// The field.
    pub field: FieldPath,
    /// Rules with an atom [`Atom::Present`] of it: candidates when the event
    /// has it.
    #[serde(borrow)]
    pub present: Words<'a, RuleId>,
    /// Rules that cannot match without it ([`Needs::fields`]), sorted: left
    /// out when the event lacks it.
    #[serde(borrow)]
    pub required: Words<'a, RuleId>,
}

/// Literals a path a selector picks must contain, with the rules that want each.
#[derive(Debug, Serialize, Deserialize)]
pub struct PathLiterals<'a> {
    /// The selector (in an artifact's group, without its option tables:
    /// see `tables`).
    pub selector: PathSelector,
    /// The selector's option tables (`written_through`, `skip_options`),
    /// kept apart from it in an artifact's group ([`OptionTables`]); empty
    /// in a set built in this process.
    #[serde(borrow)]
    pub tables: OptionTables<'a>,
    /// Lowercase literal, rules.
    #[serde(borrow)]
    pub literals: Shards<'a, RuleId>,
    /// Rules wanting some path here, whatever it is.
    #[serde(borrow)]
    pub any: Words<'a, RuleId>,
    /// Rules wanting a path with one of some classes here, per set of
    /// classes.
    pub classes: Vec<(Classes, Vec<RuleId>)>,
    /// Every rule with a literal or some-path atom here (when the paths'
    /// texts are not known).
    #[serde(borrow)]
    pub by_texts: Part<Words<'a, RuleId>>,
    /// Every rule with an atom here (when the paths are not known).
    #[serde(borrow)]
    pub all: Part<Words<'a, RuleId>>,
}

/// A path selector's option tables as an artifact's group keeps them: each
/// entry (`written_through`'s, then `skip_options`') as postcard writes a
/// [`ProgramOptions`], decoded only when its program is one a command of
/// the event runs (or any program, `*`). Every use of an entry asks first
/// whether it applies to the command's program
/// ([`ProgramOptions::applies_to`]), so the entries of other programs
/// change nothing; one `written_through` entry is kept when none applies,
/// since a selector with that table picks only the paths commands write.
/// (Decoded whole, the 27 `written_through` entries of one of the pack's
/// Bash selectors cost ~33k instructions on every Bash event.)
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct OptionTables<'a> {
    /// How many of `entries` are `written_through`'s.
    through: u32,
    /// Each entry's bytes.
    #[serde(borrow)]
    entries: Texts<'a>,
}

impl OptionTables<'_> {
    /// Take the option tables out of `selector`.
    fn take(selector: &mut PathSelector) -> Option<OptionTables<'static>> {
        let through = std::mem::take(&mut selector.written_through);
        let skip = std::mem::take(&mut selector.skip_options);
        let mut entries = vec![];
        for e in through.iter().chain(&skip) {
            entries.push(postcard::to_allocvec(e).ok()?);
        }
        Some(OptionTables {
            through: u32::try_from(through.len()).ok()?,
            entries: Texts::of_bytes(entries),
        })
    }

    /// `selector` with its tables back: every entry, or with `commands`,
    /// only the entries for their programs (`None`: an entry does not
    /// decode).
    fn selector<'s>(
        &self,
        selector: &'s PathSelector,
        commands: Option<&[SimpleCommand]>,
    ) -> Option<std::borrow::Cow<'s, PathSelector>> {
        if self.entries.is_empty() {
            return Some(std::borrow::Cow::Borrowed(selector));
        }
        let mut s = selector.clone();
        let through = self.through as usize;
        for i in 0..self.entries.len() {
            let bytes = self.entries.bytes(i)?;
            let wanted = commands.is_none_or(|cmds| {
                // A ProgramOptions begins with its program.
                let program = program_of(bytes);
                program.is_none_or(|p| {
                    p == b"*" || cmds.iter().any(|c| program_is_bytes(&c.program, p))
                })
            });
            if !wanted {
                continue;
            }
            let entry: ProgramOptions = postcard::from_bytes(bytes).ok()?;
            match i < through {
                true => s.written_through.push(entry),
                false => s.skip_options.push(entry),
            }
        }
        if through > 0 && s.written_through.is_empty() {
            s.written_through
                .push(postcard::from_bytes(self.entries.bytes(0)?).ok()?);
        }
        Some(std::borrow::Cow::Owned(s))
    }
}

/// The program at the start of an entry's bytes (a postcard string: its
/// length, then its bytes); `None` when they do not read as one.
fn program_of(bytes: &[u8]) -> Option<&[u8]> {
    let mut c = Cursor(bytes);
    c.bytes()
}

/// Programs a field's command must run, with the rules that want each (and
/// the subcommand each wants, a number into `subcommands`).
#[derive(Debug, Serialize, Deserialize)]
pub struct FieldPrograms<'a> {
    /// The field.
    pub field: FieldPath,
    /// Exact names, lowercase.
    #[serde(borrow)]
    pub exact: Shards<'a, (RuleId, u32)>,
    /// `prefix*` names.
    #[serde(borrow)]
    pub prefixes: Keyed<'a, (RuleId, u32)>,
    /// The words of the subcommands wanted, one after the other.
    #[serde(borrow)]
    pub subcommand_words: Texts<'a>,
    /// Where each subcommand's words end in `subcommand_words`; the first
    /// is none (any).
    #[serde(borrow)]
    pub subcommands: Words<'a, u32>,
    /// Rules wanting a program whose name is an unknown expansion.
    #[serde(borrow)]
    pub unknown: Words<'a, RuleId>,
    /// Rules wanting code from one of these places.
    pub code: Vec<(Code, Vec<RuleId>)>,
    /// Literals in fields of a command's object, per field of the object.
    #[serde(borrow)]
    pub within: Vec<FieldLiterals<'a>>,
    /// Every rule with an atom here (when the command does not parse).
    #[serde(borrow)]
    pub all: Part<Words<'a, RuleId>>,
}

/// A field's program atoms while a prefilter is built.
struct ProgramsBuilder {
    field: FieldPath,
    /// The subcommands wanted, each once; the first is none (any).
    subcommands: Vec<Vec<String>>,
    unknown: Vec<RuleId>,
    code: Vec<(Code, Vec<RuleId>)>,
    all: Vec<RuleId>,
}

impl ProgramsBuilder {
    fn new(field: FieldPath) -> ProgramsBuilder {
        ProgramsBuilder {
            field,
            subcommands: vec![vec![]],
            unknown: vec![],
            code: vec![],
            all: vec![],
        }
    }

    /// The number of a subcommand (added if new).
    fn subcommand(&mut self, words: &[String]) -> u32 {
        let n = match self.subcommands.iter().position(|s| s == words) {
            Some(n) => n,
            None => {
                self.subcommands.push(words.to_vec());
                self.subcommands.len() - 1
            }
        };
        n as u32
    }
}

impl FieldPrograms<'_> {
    /// Does this command run with the subcommand numbered `n`?
    fn runs(&self, c: &SimpleCommand, n: u32) -> bool {
        if n == 0 {
            return true;
        }
        let ends = self.subcommands.run();
        let start = ends.get(n as usize - 1);
        let words: Option<Vec<&str>> = start.zip(ends.get(n as usize)).and_then(|(lo, hi)| {
            (lo..hi)
                .map(|i| self.subcommand_words.get(i as usize))
                .collect()
        });
        // A damaged list wants any subcommand.
        words.is_none_or(|sub| subcommand_matches(c, &sub))
    }
}

/// Literals a field's text must contain, with the rules that want each.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct FieldLiterals<'a> {
    /// The field.
    pub field: FieldPath,
    /// Lowercase literal, rules.
    #[serde(borrow)]
    pub literals: Shards<'a, RuleId>,
    /// Every rule with a literal here (when the text is too large to search).
    #[serde(borrow)]
    pub all: Part<Words<'a, RuleId>>,
}

impl FieldLiterals<'_> {
    /// Add the rules whose literal a text of this field of `root` contains
    /// (`None`: a part of the list does not verify).
    fn search(
        &self,
        root: &serde_json::Value,
        out: &mut Vec<RuleId>,
        parts: &dyn Parts,
    ) -> Option<()> {
        let Some(value) = self.field.get(root) else {
            return Some(());
        };
        let mut found = vec![];
        texts(value, &mut found);
        let size: usize = found.iter().map(|t| t.len() + 1).sum();
        if size > MAX_SEARCH {
            out.extend(self.all.get(parts)?.iter());
            return Some(());
        }
        let mut hay = Vec::with_capacity(size);
        for t in &found {
            hay.extend_from_slice(t.as_bytes());
            hay.push(0);
        }
        hay.make_ascii_lowercase();
        search(&self.literals, &hay, out, parts)
    }
}

/// Above this many bytes of field text, literals are not searched (every rule
/// with a literal there is a candidate).
const MAX_SEARCH: usize = 1 << 20;

/// Add the rules of every literal `hay` contains. A bucket looks for a few
/// hundred literals in the texts of one event, most of them short (a command
/// line, its paths): there each place of the text is looked up among the
/// sorted literals ([`Keyed::found_in`], ~0.1M instructions fewer than a pass
/// over the text per literal for a harmless Bash command). A long text is
/// searched for each literal (`memmem`), whose cost grows with the text alone.
fn search(
    literals: &Shards<'_, RuleId>,
    hay: &[u8],
    out: &mut Vec<RuleId>,
    parts: &dyn Parts,
) -> Option<()> {
    if hay.len() <= LOOKUP_MAX {
        return literals.found_in(hay, parts, |ids| out.extend(ids.iter()));
    }
    literals.each(parts, |literal, ids| {
        if memchr::memmem::find(hay, literal.as_bytes()).is_some() {
            out.extend(ids.iter());
        }
    })
}

/// Texts up to this many bytes are searched place by place
/// ([`Keyed::found_in`]), longer ones literal by literal.
const LOOKUP_MAX: usize = 2048;

/// What `Table::build` needs to know of each rule.
pub struct RuleInfo<'r> {
    /// The rule (None: it did not compile; it reaches the events of `scope`).
    pub rule: Option<&'r Rule>,
    /// Its events.
    pub scope: &'r EventScope,
    /// Always a candidate (a rule that reports errors wherever it reaches).
    pub always: bool,
}

impl Table {
    /// Build the table of a set's rules (index = rule id). `known` events get an
    /// entry even when no rule names them.
    pub fn build(rules: &[RuleInfo<'_>], known: &[&str]) -> Table {
        let mut names: BTreeSet<String> = known.iter().map(|s| s.to_string()).collect();
        for r in rules {
            if let EventScope::Named(v) = r.scope {
                names.extend(v.iter().cloned());
            }
        }
        let needs: Vec<Needs> = rules
            .iter()
            .map(|r| match r.rule {
                Some(rule) if !r.always => needs(rule),
                _ => Needs {
                    atoms: Need::Always,
                    fields: vec![],
                },
            })
            .collect();
        let mut table = Table::default();
        for name in names {
            let entry = EventEntry::build(rules, &needs, Some(&name));
            table.events.insert(name, entry);
        }
        table.other = EventEntry::build(rules, &needs, None);
        table.gates = needs.iter().map(gate).collect();
        table
    }

    /// The entry for an event.
    pub fn entry(&self, event: &str) -> &EventEntry {
        self.events.get(event).unwrap_or(&self.other)
    }
}

impl EventEntry {
    fn build(rules: &[RuleInfo<'_>], needs: &[Needs], event: Option<&str>) -> EventEntry {
        let mut e = EventEntry::default();
        let reached = |ids: Vec<RuleId>| Reached {
            prefilter: Prefilter::build(&ids, needs),
            ids: Part::Here(ids.into_iter().collect()),
        };
        let mut values: BTreeSet<String> = BTreeSet::new();
        let mut ids = vec![];
        for (id, r) in rules.iter().enumerate() {
            let reaches = match event {
                Some(name) => in_scope(r.scope, name),
                None => *r.scope == EventScope::All,
            };
            if !reaches || r.rule.is_some_and(|rule| !rule.enabled) {
                continue;
            }
            ids.push(id as RuleId);
            if let (Some(rule), Some(name)) = (r.rule, event) {
                if let Matcher::Exact(v) = rule.matcher_for(name).0 {
                    values.extend(v.iter().cloned());
                }
            }
        }
        // Legacy names: a value whose alias a matcher names.
        for v in ["Agent", "TaskStop", "ListAgents", "SendUserMessage"]
            .into_iter()
            .chain(["ListMcpResourcesTool", "ReadMcpResourceTool"])
        {
            if tool_aliases(v).iter().any(|a| values.contains(*a)) {
                values.insert(v.to_string());
            }
        }
        let matcher = |id: RuleId| -> Option<&Matcher> {
            let rule = rules[id as usize].rule?;
            Some(event.map_or(&rule.matcher, |n| rule.matcher_for(n).0))
        };
        for v in values {
            let bucket: Vec<RuleId> = ids
                .iter()
                .copied()
                .filter(|&id| matcher(id).is_none_or(|m| accepts(m, Some(&v))))
                .collect();
            e.by_value.insert(v, reached(bucket));
        }
        let (mut other, mut missing) = (vec![], vec![]);
        for &id in &ids {
            match matcher(id) {
                None | Some(Matcher::Any) => other.push(id),
                Some(Matcher::Regex(r)) => {
                    other.push(id);
                    e.regex_value.push((id, r.source.clone()));
                }
                Some(Matcher::Exact(_)) => {}
            }
            if matcher(id).is_none_or(|m| accepts(m, None)) {
                missing.push(id);
            }
        }
        e.other_value = reached(other);
        e.missing = reached(missing);
        e.rules = reached(ids);
        e
    }
}

impl<R> EventEntry<R> {
    /// The same entry with each group held another way (`None` if one fails).
    pub fn try_map<S>(&self, mut f: impl FnMut(&R) -> Option<S>) -> Option<EventEntry<S>> {
        let mut by_value = BTreeMap::new();
        for (k, r) in &self.by_value {
            by_value.insert(k.clone(), f(r)?);
        }
        Some(EventEntry {
            rules: f(&self.rules)?,
            by_value,
            other_value: f(&self.other_value)?,
            regex_value: self.regex_value.clone(),
            missing: f(&self.missing)?,
        })
    }

    /// The group an event reaches by its matcher value, and the rules of it
    /// whose regex matcher does not accept the value.
    pub fn pick(&self, event: &Event) -> (&R, Vec<RuleId>) {
        match event.matcher_value() {
            None => (&self.rules, vec![]),
            Some(None) => (&self.missing, vec![]),
            Some(Some(v)) => match self.by_value.get(v) {
                Some(r) => (r, vec![]),
                None => {
                    let regexes = self.regex_value.iter().map(|(id, s)| (*id, s.as_str()));
                    (&self.other_value, refused(regexes, v))
                }
            },
        }
    }
}

/// The rules of these whose regex matcher (its source) does not accept
/// `value`.
fn refused<'s>(regexes: impl Iterator<Item = (RuleId, &'s str)>, value: &str) -> Vec<RuleId> {
    regexes
        .filter(|(_, source)| {
            let m = Matcher::Regex(crate::validate::model::MatcherRegex::new(
                source.to_string(),
            ));
            !accepts(&m, Some(value))
        })
        .map(|(id, _)| id)
        .collect()
}

/// An event's entry as an artifact stores it: the span of each group's
/// record, read in place (a lookup of the matcher value is a binary search
/// in the record's bytes; nothing is decoded into maps and strings).
#[derive(Debug, Serialize, Deserialize)]
pub struct StoredEntry<'a> {
    /// [`EventEntry::rules`].
    pub rules: Span,
    /// [`EventEntry::by_value`], by value (sorted).
    #[serde(borrow)]
    pub by_value: Keyed<'a, Span>,
    /// [`EventEntry::other_value`].
    pub other_value: Span,
    /// [`EventEntry::regex_value`]: the rules, and each one's source.
    #[serde(borrow)]
    pub regex_ids: Words<'a, RuleId>,
    /// The source of each of `regex_ids`.
    #[serde(borrow)]
    pub regex_sources: Texts<'a>,
    /// [`EventEntry::missing`].
    pub missing: Span,
}

impl StoredEntry<'static> {
    /// The stored form of an entry whose groups are at these spans.
    pub fn new(e: &EventEntry<Span>) -> StoredEntry<'static> {
        StoredEntry {
            rules: e.rules,
            by_value: Keyed::new(e.by_value.iter().map(|(k, s)| (k.clone(), vec![*s]))),
            other_value: e.other_value,
            regex_ids: e.regex_value.iter().map(|(id, _)| *id).collect(),
            regex_sources: e.regex_value.iter().map(|(_, s)| s).collect(),
            missing: e.missing,
        }
    }
}

impl StoredEntry<'_> {
    /// [`EventEntry::pick`], read in place (`None`: a damaged entry).
    pub fn pick(&self, event: &Event) -> Option<(Span, Vec<RuleId>)> {
        Some(match event.matcher_value() {
            None => (self.rules, vec![]),
            Some(None) => (self.missing, vec![]),
            Some(Some(v)) => match self.by_value.get(v) {
                Some(spans) => (spans.get(0)?, vec![]),
                None => {
                    if self.regex_ids.run().len() != self.regex_sources.len() {
                        return None;
                    }
                    let regexes = self.regex_ids.iter().zip(self.regex_sources.iter());
                    (self.other_value, refused(regexes, v))
                }
            },
        })
    }

    /// The span of every group (`None`: a damaged entry).
    pub fn groups(&self) -> Option<Vec<Span>> {
        let mut out = vec![self.rules, self.other_value, self.missing];
        for (_, spans) in self.by_value.iter() {
            out.push(spans.get(0)?);
        }
        (out.len() == 3 + self.by_value.len()).then_some(out)
    }
}

impl EventEntry {
    /// The rules an event reaches, in id order: by its matcher value, and with
    /// `prefilter`, only those whose requirements the event meets.
    pub fn bucket(
        &self,
        event: &Event,
        prefilter: Option<&mut Shells>,
        paths: Option<&dyn CommandPaths>,
    ) -> Vec<RuleId> {
        let (reached, refused) = self.pick(event);
        // A group built in this process holds every part in place: nothing
        // is read, so nothing fails to verify. (Were it to, every rule of
        // the group would be a candidate.)
        reached
            .bucket(event, &refused, prefilter, paths, &InPlace)
            .or_else(|| reached.bucket(event, &refused, None, None, &InPlace))
            .unwrap_or_default()
    }
}

impl Reached<'_> {
    /// Its rules but the `refused`, and with `prefilter`, only those whose
    /// requirements the event meets (`None`: a part it reads from `parts`
    /// does not verify).
    pub fn bucket(
        &self,
        event: &Event,
        refused: &[RuleId],
        prefilter: Option<&mut Shells>,
        paths: Option<&dyn CommandPaths>,
        parts: &dyn Parts,
    ) -> Option<Vec<RuleId>> {
        match prefilter {
            None => Some(
                self.ids
                    .get(parts)?
                    .iter()
                    .filter(|id| !refused.contains(id))
                    .collect(),
            ),
            // The prefilter was built from the group's rules: its candidates
            // are among them, and `ids` is not read.
            Some(shells) => {
                let mut wanted = self.prefilter.candidates(event, shells, paths, parts)?;
                wanted.retain(|id| !refused.contains(id));
                Some(wanted)
            }
        }
    }

    /// Put the group's large lists in records of their own ([`Part`]),
    /// read only by the events that use them: its rules, the pieces of its
    /// program names and literals, and the rules of a command that does not
    /// parse or a text too large to search.
    pub fn apart(&mut self, put: &mut dyn FnMut(Vec<u8>) -> Span) -> Option<()> {
        self.ids.apart(put)?;
        let p = &mut self.prefilter;
        for fp in &mut p.programs {
            fp.exact.apart(put)?;
            fp.all.apart(put)?;
        }
        for fl in &mut p.texts {
            fl.literals.apart(put)?;
            fl.all.apart(put)?;
        }
        for pl in &mut p.paths {
            pl.literals.apart(put)?;
            pl.by_texts.apart(put)?;
            pl.all.apart(put)?;
            pl.tables = OptionTables::take(&mut pl.selector)?;
        }
        Some(())
    }

    /// The spans of the parts kept apart ([`Self::apart`]).
    pub fn spans(&self) -> Vec<Span> {
        let p = &self.prefilter;
        let mut out: Vec<Span> = self.ids.span().into_iter().collect();
        for fp in &p.programs {
            out.extend(fp.exact.spans().into_iter().chain(fp.all.span()));
        }
        for fl in &p.texts {
            out.extend(fl.literals.spans().into_iter().chain(fl.all.span()));
        }
        for pl in &p.paths {
            out.extend(pl.literals.spans());
            out.extend(pl.by_texts.span().into_iter().chain(pl.all.span()));
        }
        out
    }

    /// Read every part kept apart (`None`: one does not verify or decode).
    pub fn read_all(&self, parts: &dyn Parts) -> Option<()> {
        let p = &self.prefilter;
        self.ids.get(parts)?;
        for fp in &p.programs {
            fp.exact.read_all(parts)?;
            fp.all.get(parts)?;
        }
        for fl in &p.texts {
            fl.literals.read_all(parts)?;
            fl.all.get(parts)?;
        }
        for pl in &p.paths {
            pl.literals.read_all(parts)?;
            pl.by_texts.get(parts)?;
            pl.all.get(parts)?;
            pl.tables.selector(&pl.selector, None)?;
        }
        Some(())
    }
}

/// A shell command's simple commands, or why it does not parse.
pub type Parsed = Result<Arc<Vec<SimpleCommand>>, String>;

/// Shell commands parsed during the prefilter, kept for evaluation.
pub type Shells = HashMap<String, Parsed>;

/// The longest command the shell analysis reads, in bytes. Its cost grows with
/// the words of a command (about 650 bytes of memory and 1.6 µs per byte of
/// `echo a a a …`), so past this a command is unparsable and the policy's
/// `unparsable_command` choice answers (the pack asks): bounded memory and time
/// for any input, never a command let through unchecked. An agent's single
/// tool call stays far below it (its output limit is a few hundred KB).
pub const MAX_SHELL_BYTES: usize = 256 * 1024;

/// The event's directory (`cwd`), where its commands start.
pub fn event_cwd(event: &Event) -> Option<&str> {
    match &event.value {
        serde_json::Value::Object(m) => crate::validate::model::member(m, "cwd")?.as_str(),
        _ => None,
    }
}

/// Parse a shell command once per event. A command over [`MAX_SHELL_BYTES`] or
/// holding a NUL byte is unparsable (bash and the client cannot agree on
/// what such a command is: argv strings end at a NUL). Scripts run from disk
/// are followed by the commands they certainly run
/// ([`crate::shell::command::add_script_code`]), and `git` commands by what
/// their repository's configuration runs
/// ([`crate::shell::command::add_repository_code`]) and by the command
/// git's autocorrect runs for a mistyped subcommand
/// ([`crate::shell::command::add_autocorrected`]), a `git push` that names
/// no branch by the one it pushes
/// ([`crate::shell::command::name_push_refspecs`]), `cargo` commands by
/// the programs their `.cargo/config.toml` names
/// ([`crate::shell::command::add_cargo_config_code`]; `cwd` is the event's).
pub fn parse_shell(
    shells: &mut Shells,
    text: &str,
    dialect: Dialect,
    cwd: Option<&str>,
) -> Result<Arc<Vec<SimpleCommand>>, String> {
    if text.len() > MAX_SHELL_BYTES {
        return Err(format!(
            "the command is {} bytes, more than the {MAX_SHELL_BYTES} bytes the shell analysis reads",
            text.len()
        ));
    }
    if let Some(at) = text.find('\0') {
        return Err(format!(
            "the command holds a NUL byte (at byte {at}), which no shell is given as written"
        ));
    }
    // Bash commands are keyed by their text; others by a prefix no command
    // has (a NUL byte was refused above).
    let key: std::borrow::Cow<'_, str> = match dialect {
        Dialect::Bash => text.into(),
        Dialect::PowerShell => format!("\0PowerShell\0{text}").into(),
        Dialect::Either => format!("\0Either\0{text}").into(),
    };
    if let Some(r) = shells.get(key.as_ref()) {
        return r.clone();
    }
    let r = dialect
        .parse(text)
        .map(|mut cmds| {
            crate::shell::command::add_autocorrected(&mut cmds, cwd);
            if let Some(cwd) = cwd {
                crate::shell::command::add_script_code(&mut cmds, cwd);
                crate::shell::command::add_repository_code(&mut cmds, cwd);
                crate::shell::command::name_push_refspecs(&mut cmds, cwd);
                crate::shell::command::name_checked_out(
                    &mut cmds,
                    cwd,
                    crate::contract::places::decides_hooks,
                );
                crate::shell::command::add_cargo_config_code(&mut cmds, cwd);
                crate::shell::command::add_startup_code(&mut cmds, cwd);
            }
            Arc::new(cmds)
        })
        .map_err(|e| e.to_string());
    shells.insert(key.into_owned(), r.clone());
    r
}

/// Exact and `prefix*` program names of one field, with the rules (and
/// subcommand numbers) that want each.
type Names = BTreeMap<String, Vec<(RuleId, u32)>>;

/// Literals, with the rules that want each.
type Literals = BTreeMap<String, Vec<RuleId>>;

/// A bucket's atoms gathered per field and selector, before they become a
/// [`Prefilter`]. The maps borrow their fields and selectors from the rules'
/// needs; each is copied once into the prefilter (a selector holds whole
/// option tables: copying it for every atom was most of a set's build).
#[derive(Default)]
struct Gathered<'n> {
    always: Vec<RuleId>,
    programs: BTreeMap<&'n FieldPath, ProgramsBuilder>,
    texts: BTreeMap<&'n FieldPath, Literals>,
    paths: BTreeMap<&'n PathSelector, Literals>,
    any_path: BTreeMap<&'n PathSelector, Vec<RuleId>>,
    classes: BTreeMap<&'n PathSelector, Vec<(Classes, Vec<RuleId>)>>,
    /// Literals in command objects' fields, per command field.
    within: BTreeMap<&'n FieldPath, BTreeMap<&'n FieldPath, Literals>>,
    /// Exact program names per field, flattened into each field's `Keyed`
    /// lists at the end.
    exact: BTreeMap<&'n FieldPath, Names>,
    /// `prefix*` program names per field, likewise.
    prefixes: BTreeMap<&'n FieldPath, Names>,
    /// Per field: the rules with its presence as an atom, and the rules that
    /// require it.
    fields: BTreeMap<&'n FieldPath, (Vec<RuleId>, Vec<RuleId>)>,
}

impl<'n> Gathered<'n> {
    /// The programs of a command field.
    fn programs_of(&mut self, field: &'n FieldPath) -> &mut ProgramsBuilder {
        self.programs
            .entry(field)
            .or_insert_with(|| ProgramsBuilder::new(field.clone()))
    }

    /// One atom of rule `id`.
    fn add(&mut self, id: RuleId, atom: &'n Atom) {
        match atom {
            Atom::Program {
                field,
                name,
                subcommand,
                words: _,
            } => {
                let fp = self.programs_of(field);
                let wanted = (id, fp.subcommand(subcommand));
                fp.all.push(id);
                match name.strip_suffix('*') {
                    Some(_) => self
                        .prefixes
                        .entry(field)
                        .or_default()
                        .entry(name.clone())
                        .or_default()
                        .push(wanted),
                    // Program names compare ASCII-case-insensitively
                    // (`program_is`): exact names are kept lowercase.
                    None => self
                        .exact
                        .entry(field)
                        .or_default()
                        .entry(name.to_ascii_lowercase())
                        .or_default()
                        .push(wanted),
                }
            }
            Atom::UnknownProgram { field } => {
                let fp = self.programs_of(field);
                fp.unknown.push(id);
                fp.all.push(id);
            }
            Atom::Code { field, code } => {
                let fp = self.programs_of(field);
                match fp.code.iter_mut().find(|(c, _)| c == code) {
                    Some((_, v)) => v.push(id),
                    None => fp.code.push((*code, vec![id])),
                }
                fp.all.push(id);
            }
            Atom::Within {
                field,
                inner,
                literal,
            } => {
                self.programs_of(field).all.push(id);
                self.within
                    .entry(field)
                    .or_default()
                    .entry(inner)
                    .or_default()
                    .entry(literal.clone())
                    .or_default()
                    .push(id);
            }
            Atom::AnyPath { selector } => {
                self.paths.entry(selector.as_ref()).or_default();
                self.any_path.entry(selector.as_ref()).or_default().push(id);
            }
            Atom::Class { selector, classes } => {
                self.paths.entry(selector.as_ref()).or_default();
                let wanted = self.classes.entry(selector.as_ref()).or_default();
                match wanted.iter_mut().find(|(c, _)| c == classes) {
                    Some((_, ids)) => ids.push(id),
                    None => wanted.push((*classes, vec![id])),
                }
            }
            Atom::Text { field, literal } => self
                .texts
                .entry(field)
                .or_default()
                .entry(literal.clone())
                .or_default()
                .push(id),
            Atom::Path { selector, literal } => self
                .paths
                .entry(selector.as_ref())
                .or_default()
                .entry(literal.clone())
                .or_default()
                .push(id),
            Atom::Present { field } => self.fields.entry(field).or_default().0.push(id),
        }
    }

    /// Each field's presence: as an atom, as a requirement.
    fn fields(&mut self) -> Vec<FieldPresence<'static>> {
        std::mem::take(&mut self.fields)
            .into_iter()
            .map(|(field, (mut present, mut required))| {
                present.sort_unstable();
                present.dedup();
                required.sort_unstable();
                required.dedup();
                FieldPresence {
                    field: field.clone(),
                    present: present.into_iter().collect(),
                    required: required.into_iter().collect(),
                }
            })
            .collect()
    }

    /// Each command field's programs, with the literals its command objects'
    /// fields must contain.
    fn programs(&mut self) -> Vec<FieldPrograms<'static>> {
        let mut out = vec![];
        for mut b in std::mem::take(&mut self.programs).into_values() {
            b.all.sort_unstable();
            b.all.dedup();
            let mut fp = FieldPrograms {
                field: b.field,
                exact: Shards::default(),
                prefixes: Keyed::default(),
                subcommand_words: b.subcommands.iter().flatten().collect(),
                subcommands: b
                    .subcommands
                    .iter()
                    .scan(0, |end, words| {
                        *end += words.len() as u32;
                        Some(*end)
                    })
                    .collect(),
                unknown: b.unknown.into_iter().collect(),
                code: b.code,
                within: vec![],
                all: Part::Here(b.all.into_iter().collect()),
            };
            for (inner, lits) in self.within.remove(&fp.field).unwrap_or_default() {
                let (literals, all) = by_literal(lits);
                fp.within.push(FieldLiterals {
                    field: inner.clone(),
                    literals,
                    all: Part::Here(all),
                });
            }
            if let Some(names) = self.exact.remove(&fp.field) {
                fp.exact = Shards::new(names);
            }
            if let Some(names) = self.prefixes.remove(&fp.field) {
                fp.prefixes = Keyed::new(names);
            }
            out.push(fp);
        }
        out
    }

    /// Each field's literals.
    fn texts(&mut self) -> Vec<FieldLiterals<'static>> {
        std::mem::take(&mut self.texts)
            .into_iter()
            .map(|(field, lits)| {
                let (literals, all) = by_literal(lits);
                FieldLiterals {
                    field: field.clone(),
                    literals,
                    all: Part::Here(all),
                }
            })
            .collect()
    }

    /// Each path selector's literals, and the rules that want some path.
    ///
    /// Selectors that differ only in their `written_by` programs merge into
    /// one with all their programs: it picks every path each of them picks
    /// (an operand of one more program, and nothing else changes), so the
    /// prefilter stays a superset, and it is searched once instead of once
    /// per list (a set whose policies each name their own list of programs
    /// had ~130 selectors in its Bash bucket, ~8k instructions each on every
    /// Bash event).
    fn paths(&mut self) -> Vec<PathLiterals<'static>> {
        type Merged = (
            BTreeSet<String>,
            Literals,
            Vec<RuleId>,
            BTreeMap<Classes, Vec<RuleId>>,
        );
        let mut merged: BTreeMap<PathSelector, Merged> = BTreeMap::new();
        for (selector, lits) in std::mem::take(&mut self.paths) {
            let mut key = selector.clone();
            let programs = key.written_by.as_mut().map(std::mem::take);
            let m = merged.entry(key).or_default();
            m.0.extend(programs.into_iter().flatten());
            for (literal, ids) in lits {
                m.1.entry(literal).or_default().extend(ids);
            }
            m.2.extend(self.any_path.remove(selector).unwrap_or_default());
            for (classes, ids) in self.classes.remove(selector).unwrap_or_default() {
                m.3.entry(classes).or_default().extend(ids);
            }
        }
        let mut out = vec![];
        for (mut selector, (programs, mut lits, mut any, classes)) in merged {
            if let Some(list) = selector.written_by.as_mut() {
                *list = programs.into_iter().collect();
            }
            for ids in lits.values_mut() {
                ids.sort_unstable();
                ids.dedup();
            }
            let (literals, literal_rules) = by_literal(lits);
            any.sort_unstable();
            any.dedup();
            let mut by_texts: Vec<RuleId> =
                literal_rules.iter().chain(any.iter().copied()).collect();
            by_texts.sort_unstable();
            by_texts.dedup();
            let classes: Vec<(Classes, Vec<RuleId>)> = classes
                .into_iter()
                .map(|(c, mut ids)| {
                    ids.sort_unstable();
                    ids.dedup();
                    (c, ids)
                })
                .collect();
            let mut all: Vec<RuleId> = by_texts.to_vec();
            all.extend(classes.iter().flat_map(|(_, ids)| ids.iter().copied()));
            all.sort_unstable();
            all.dedup();
            out.push(PathLiterals {
                selector,
                tables: OptionTables::default(),
                literals,
                any: any.into_iter().collect(),
                classes,
                by_texts: Part::Here(by_texts.into_iter().collect()),
                all: Part::Here(all.into_iter().collect()),
            });
        }
        out
    }
}

/// Literals keyed for search, and every rule that wants one of them.
fn by_literal(lits: Literals) -> (Shards<'static, RuleId>, Words<'static, RuleId>) {
    let mut all: Vec<RuleId> = lits.values().flatten().copied().collect();
    all.sort_unstable();
    all.dedup();
    (Shards::new(lits), all.into_iter().collect())
}

impl Prefilter<'static> {
    fn build(ids: &[RuleId], needs: &[Needs]) -> Prefilter<'static> {
        let mut g = Gathered::default();
        for &id in ids {
            let needs = &needs[id as usize];
            match &needs.atoms {
                Need::Always => g.always.push(id),
                Need::AnyOf(atoms) => atoms.iter().for_each(|a| g.add(id, a)),
            }
            for f in &needs.fields {
                g.fields.entry(f).or_default().1.push(id);
            }
        }
        Prefilter {
            always: std::mem::take(&mut g.always).into_iter().collect(),
            programs: g.programs(),
            texts: g.texts(),
            paths: g.paths(),
            fields: g.fields(),
        }
    }
}

impl Prefilter<'_> {
    /// The candidate rules for an event, sorted. Path atoms are looked for
    /// only with `paths` (else their rules are candidates).
    pub fn candidates<'e>(
        &self,
        event: &'e Event,
        shells: &mut Shells,
        paths: Option<&dyn CommandPaths>,
        parts: &dyn Parts,
    ) -> Option<Vec<RuleId>> {
        let mut out: Vec<RuleId> = self.always.iter().collect();
        // The requirements of the fields the event lacks.
        let mut lacking: Vec<Run<'_, RuleId>> = vec![];
        for fp in &self.fields {
            if fp.field.get(&event.value).is_some() {
                out.extend(fp.present.iter());
            } else if !fp.required.is_empty() {
                lacking.push(fp.required.run());
            }
        }
        let dialect = crate::contract::hosts::dialect(&event.value);
        let cwd = event_cwd(event);
        // The commands of the field's text last parsed: the program lists
        // and the path lists of a group mostly read the same field (the
        // pack's Bash group: seven lists, `tool_input.command`), and each
        // look in `shells` hashes the whole text.
        let mut last: Option<(&str, Parsed)> = None;
        let mut parse = |shells: &mut Shells, text: &'e str| -> Parsed {
            match &last {
                Some((t, r)) if std::ptr::eq(*t, text) => r.clone(),
                _ => {
                    let r = parse_shell(shells, text, dialect, cwd);
                    last = Some((text, r.clone()));
                    r
                }
            }
        };
        for fp in &self.programs {
            let Some(text) = fp.field.get(&event.value).and_then(|v| v.as_str()) else {
                // No command: it runs nothing.
                continue;
            };
            match parse(shells, text) {
                Ok(cmds) => {
                    for c in cmds.iter() {
                        // Whether `c` runs each subcommand, asked once per
                        // subcommand: the ids of a program share a few
                        // (`subcommand_matches` looks the program's options
                        // up: ~0.8k instructions, 25 times for the
                        // 10,000-rule bench set's `npm test`).
                        let mut known: Vec<Option<bool>> = vec![];
                        let mut runs = |(id, sub): (RuleId, u32)| {
                            if sub == 0 {
                                return Some(id);
                            }
                            if known.is_empty() {
                                known = vec![None; fp.subcommands.run().len()];
                            }
                            // A number past the table: `runs` says what a
                            // damaged one wants.
                            let ran = match known.get_mut(sub as usize) {
                                Some(k) => *k.get_or_insert_with(|| fp.runs(c, sub)),
                                None => fp.runs(c, sub),
                            };
                            ran.then_some(id)
                        };
                        if let Some(ids) = fp.exact.get(&c.program.to_ascii_lowercase(), parts)? {
                            out.extend(ids.iter().filter_map(&mut runs));
                        }
                        for (prefix, ids) in fp.prefixes.iter_bytes() {
                            if program_is_bytes(&c.program, prefix) {
                                out.extend(ids.iter().filter_map(&mut runs));
                            }
                        }
                        if c.program_unknown {
                            out.extend(fp.unknown.iter());
                        }
                        for (code, ids) in &fp.code {
                            if c.code == Some(*code) {
                                out.extend_from_slice(ids);
                            }
                        }
                        if !fp.within.is_empty() {
                            // Only the members some literal is looked for in.
                            let wanted =
                                |key: &str| fp.within.iter().any(|fl| fl.field.head() == Some(key));
                            let object = command_object_with(c, &wanted);
                            for fl in &fp.within {
                                fl.search(&object, &mut out, parts)?;
                            }
                        }
                    }
                }
                // A command that does not parse may run anything.
                Err(_) => out.extend(fp.all.get(parts)?.iter()),
            }
        }
        for fl in &self.texts {
            fl.search(&event.value, &mut out, parts)?;
        }
        // A private key is known by its content, read only when a rule of a
        // list asks for it; where a path lies is judged only as far as the
        // classes its rules ask for go (`Judged`). The lists that judge more
        // come first: the others take their answers for the same paths.
        // (The candidates are the same in any order.)
        let mut lists: Vec<(Classes, &PathLiterals<'_>)> = self
            .paths
            .iter()
            .map(|pl| {
                let wanted = pl
                    .classes
                    .iter()
                    .fold(Classes::default(), |all, (c, _)| all.union(*c));
                (wanted, pl)
            })
            .collect();
        lists.sort_by_key(|(wanted, _)| Judged::wanting(*wanted));
        let mut facts: Vec<(Arc<Vec<SimpleCommand>>, Facts)> = vec![];
        for (wanted, pl) in lists {
            let seen = if pl.selector.from_command {
                let Some(text) = pl.selector.field.get(&event.value).and_then(|v| v.as_str())
                else {
                    // No command: it names no path.
                    continue;
                };
                let (Some(paths), Ok(cmds)) = (paths, parse(shells, text)) else {
                    // Paths not known, or a command that does not parse
                    // (which names any path).
                    out.extend(pl.all.get(parts)?.iter());
                    continue;
                };
                // The facts of these commands, made once (the list is
                // held, so no other list can take its place).
                let at = match facts.iter().position(|(c, _)| Arc::ptr_eq(c, &cmds)) {
                    Some(at) => at,
                    None => {
                        facts.push((cmds.clone(), Facts::new(cmds.len())));
                        facts.len() - 1
                    }
                };
                let selector = pl.tables.selector(&pl.selector, Some(&cmds))?;
                paths.paths_seen(&cmds, &facts[at].1, &selector, wanted)
            } else {
                let Some(value) = pl.selector.field.get(&event.value) else {
                    // No field: no path.
                    continue;
                };
                let Some(paths) = paths else {
                    out.extend(pl.all.get(parts)?.iter());
                    continue;
                };
                let selector = pl.tables.selector(&pl.selector, None)?;
                paths.field_paths_seen(value, &selector, wanted)
            };
            for (classes, ids) in &pl.classes {
                if seen.classes.meets(*classes) {
                    out.extend_from_slice(ids);
                }
            }
            // A glob test compares ASCII-lowercased texts, lowercased first
            // when it ignores case (`K`, the Kelvin sign, becomes `k`): both.
            let Some(texts) = seen.texts else {
                out.extend(pl.by_texts.get(parts)?.iter());
                continue;
            };
            if texts.is_empty() {
                // No path: no literal in one, and not some path.
                continue;
            }
            out.extend(pl.any.iter());
            // Each text after a NUL, so a literal after a NUL is found at
            // the start of one.
            // (An ASCII text once: its two forms are the same.)
            let mut hay = vec![0];
            for t in texts {
                hay.extend_from_slice(t.to_ascii_lowercase().as_bytes());
                hay.push(0);
                if !t.is_ascii() {
                    hay.extend_from_slice(t.to_lowercase().to_ascii_lowercase().as_bytes());
                    hay.push(0);
                }
            }
            search(&pl.literals, &hay, &mut out, parts)?;
        }
        out.sort_unstable();
        out.dedup();
        if !lacking.is_empty() {
            out.retain(|&id| !lacking.iter().any(|r| r.contains(id)));
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::{search, InPlace, Reached, RuleId, Shards, Shells, LOOKUP_MAX};
    use std::collections::BTreeMap;

    /// Claude Code's Bash call of `command`, in /tmp.
    fn bash_event(command: &str) -> crate::contract::Event {
        crate::contract::Event::from_value(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "cwd": "/tmp",
        }))
        .unwrap()
    }

    /// Every string over `alphabet` of up to `n` characters.
    fn strings(alphabet: &[&str], n: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..n {
            last = last
                .iter()
                .flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}")))
                .collect();
            all.extend(last.iter().cloned());
        }
        all
    }

    /// Every part a group puts apart is one `spans` names and `read_all`
    /// reads (what `reseal` re-tags and `doctor` checks), and a group read
    /// back with its parts apart gives each event of the pack's examples the
    /// candidates it gives in place.
    #[test]
    fn a_group_with_its_parts_apart_names_reads_and_answers_as_in_place() {
        use crate::compile::flat::{Body, Parts, Span};
        use std::cell::RefCell;
        struct Records(RefCell<Vec<Vec<u8>>>, std::cell::Cell<usize>);
        impl Parts for Records {
            fn part(&self, (at, _): Span) -> Option<Body> {
                self.1.set(self.1.get() + 1);
                let mut b = vec![0u8; 16];
                b.extend(self.0.borrow().get(at as usize)?);
                Some(Body(b.into()))
            }
        }
        let set = crate::compile::set::CompiledSet::build(&crate::policy::discover::builtin());
        let entry = set.table.entry("PreToolUse");
        let bash = entry.by_value.get("Bash").expect("a Bash group");
        let records = Records(RefCell::new(vec![]), std::cell::Cell::new(0));
        let bytes = postcard::to_allocvec(bash).unwrap();
        let mut apart: Reached<'_> = postcard::from_bytes(&bytes).unwrap();
        let mut put_spans = vec![];
        apart
            .apart(&mut |b| {
                let mut r = records.0.borrow_mut();
                r.push(b);
                let span = ((r.len() - 1) as u64, 0);
                put_spans.push(span);
                span
            })
            .unwrap();
        assert!(put_spans.len() > 10, "{}", put_spans.len());
        let stored = postcard::to_allocvec(&apart).unwrap();
        assert!(
            stored.len() * 4 < bytes.len(),
            "{} of {}",
            stored.len(),
            bytes.len()
        );
        let read: Reached<'_> = postcard::from_bytes(&stored).unwrap();
        assert_eq!(read.spans(), put_spans);
        read.read_all(&records).unwrap();
        assert_eq!(records.1.get(), put_spans.len(), "each read once");
        for command in [
            "npm test",
            "rm -rf /",
            "cat ~/.ssh/id_rsa",
            "git push --force",
            "ls 'a",
        ] {
            let event = bash_event(command);
            let fresh: Reached<'_> = postcard::from_bytes(&stored).unwrap();
            let got = fresh
                .bucket(&event, &[], Some(&mut Shells::new()), None, &records)
                .unwrap();
            let want = bash
                .bucket(&event, &[], Some(&mut Shells::new()), None, &InPlace)
                .unwrap();
            assert_eq!(got, want, "{command}");
            assert!(!want.is_empty(), "{command}");
        }
    }

    /// A rule whose `command` test has an `arg_matches` is gated by its
    /// literals: a command none of whose arguments has one (ASCII case
    /// aside) does not read the rule; one that has it does, read in place
    /// or not; a regex without a known literal gates nothing.
    #[test]
    fn a_gate_refuses_a_command_without_an_arg_matches_literal() {
        let policy = |regex: &str| {
            format!(
                r#"
[policy]
name = "t"

[[rule]]
id = "r"
events = ["PreToolUse"]
matcher = "Bash"
when = {{ commands = "tool_input.command", command = {{ program = ["npm"], arg_matches = ['{regex}'] }} }}
decision = "deny"
reason = "r"
"#
            )
        };
        let gate_of = |regex: &str| {
            let mut found = crate::policy::discover::builtin();
            found.sources = vec![crate::source::PolicySource::new(
                crate::source::Origin::File("/t/t.toml".into()),
                policy(regex),
            )];
            let set = crate::compile::set::CompiledSet::build(&found);
            set.table.gates.into_iter().flatten().next()
        };
        assert!(gate_of("[0-9]+").is_none(), "no literal: no gate");
        let gate = gate_of("^--Prod-x1").expect("a gate of its literal");
        for (command, want) in [
            ("npm test -- --watch=false", false),
            ("npm publish --prod-x1", true),
            ("npm publish --PROD-X1=yes", true),
            ("npm publish other --prod-x", false),
            ("yarn publish --prod-x1", false),
        ] {
            let event = bash_event(command);
            let mut shells = Shells::new();
            let mut commands = super::field_commands(&event, &mut shells);
            assert_eq!(gate.holds(&mut commands), want, "{command}");
            let bytes = postcard::to_allocvec(&Some(&gate)).unwrap();
            let (view, rest) = super::GateView::take(&bytes).unwrap();
            assert!(rest.is_empty());
            let mut shells = Shells::new();
            let mut viewed = super::GateCommands::new(super::field_commands(&event, &mut shells));
            assert_eq!(view.unwrap().holds(&mut viewed), want, "{command}");
        }
    }

    /// A gate read in place ([`super::GateView`]) from the bytes the gate
    /// stores answers as the gate does, for every gate of the pack and
    /// commands that pass and fail their programs, subcommands and words.
    #[test]
    fn a_gate_read_in_place_holds_as_the_gate_does() {
        let set = crate::compile::set::CompiledSet::build(&crate::policy::discover::builtin());
        let gates: Vec<_> = set.table.gates.iter().flatten().collect();
        assert!(!gates.is_empty(), "the pack has gated rules");
        let (mut held, mut refused) = (0, 0);
        for command in [
            "npm test -- --watch=false",
            "git push --force origin main",
            "git push origin main",
            "git reset --hard HEAD~1",
            "rm -rf /",
            "rm -r build",
            "docker system prune -a --volumes",
            "kubectl delete ns prod --all",
            "terraform destroy -auto-approve",
            "chmod -R 777 /",
            "find / -delete",
            "dd if=/dev/zero of=/dev/sda",
            "ls 'a",
        ] {
            let event = bash_event(command);
            let mut shells = Shells::new();
            let mut commands = super::field_commands(&event, &mut shells);
            let mut shells2 = Shells::new();
            let mut viewed = super::GateCommands::new(super::field_commands(&event, &mut shells2));
            for gate in &gates {
                let bytes = postcard::to_allocvec(&Some(*gate)).unwrap();
                let (view, rest) = super::GateView::take(&bytes).unwrap();
                assert!(rest.is_empty());
                let want = gate.holds(&mut commands);
                assert_eq!(
                    view.unwrap().holds(&mut viewed),
                    want,
                    "{command}: {gate:?}"
                );
                if want {
                    held += 1;
                } else {
                    refused += 1;
                }
            }
        }
        assert!(held > 0 && refused > 0, "{held} held, {refused} refused");
    }

    /// A program name compared as a gate's bytes is compared as `program_is`
    /// compares it: exact names and prefixes, any ASCII case, not ASCII.
    #[test]
    fn a_program_compared_as_bytes_is_as_program_is_says() {
        let names = [
            "npm", "NPM", "npx", "n", "", "*", "np*", "NP*", "é", "É", "éa", "é*", "e*",
            "a\u{301}", "kubectl", "kube*", "Kube*", "git-*", "git-lfs",
        ];
        for program in names {
            for item in names {
                assert_eq!(
                    super::program_is_bytes(program, item.as_bytes()),
                    crate::shell::command::program_is(program, item),
                    "{program:?} {item:?}"
                );
            }
        }
    }

    /// The search finds exactly the literals the text contains, short texts
    /// (place by place) and long ones (literal by literal) alike: literals
    /// that are prefixes of each other, after a NUL, empty, not ASCII.
    #[test]
    fn search_finds_the_literals_memmem_finds() {
        let alphabet = ["a", "b", "\0", "é"];
        let literals = strings(&alphabet, 3);
        let hays = strings(&alphabet, 4);
        let long = "ab".repeat(LOOKUP_MAX) + "\0éa";
        let mut seed: u64 = 7;
        for round in 0..24 {
            // A different subset of the literals each round (an LCG).
            let mut map: BTreeMap<String, Vec<RuleId>> = BTreeMap::new();
            for (i, l) in literals.iter().enumerate() {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                if round == 0 || (seed >> 33).is_multiple_of(3) {
                    map.insert(l.clone(), vec![i as RuleId]);
                }
            }
            let keyed = Shards::new(map.clone());
            for hay in hays.iter().chain([&long]) {
                let mut got = vec![];
                search(&keyed, hay.as_bytes(), &mut got, &InPlace).unwrap();
                got.sort_unstable();
                let mut want: Vec<RuleId> = map
                    .iter()
                    .filter(|(l, _)| memchr::memmem::find(hay.as_bytes(), l.as_bytes()).is_some())
                    .flat_map(|(_, ids)| ids.iter().copied())
                    .collect();
                want.sort_unstable();
                assert_eq!(got, want, "{hay:?} in round {round}");
            }
        }
    }
}
