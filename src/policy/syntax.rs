//! Stage 1: the policy file as the user wrote it.
//!
//! These are plain serde types that mirror the TOML one to one. Every value a
//! diagnostic may need to point at is wrapped in [`Sp`], which keeps its byte
//! range in the file. Unknown keys are rejected (`deny_unknown_fields`), and
//! there is no `flatten` anywhere, so serde reports the exact key at fault.
//! Nothing here is interpreted: that is the job of `validate`.
//!
//! The JSON Schema in `schemas/` is generated from these same types.

use std::collections::BTreeMap;
use std::ops::Range;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A value with the byte range it came from in the policy file.
#[derive(Debug, Clone, PartialEq)]
pub struct Sp<T> {
    /// Byte range in the source text.
    pub span: Range<usize>,
    /// The value itself.
    pub value: T,
}

impl<T> Sp<T> {
    /// A value with no source location (built-in defaults, tests).
    pub fn unspanned(value: T) -> Self {
        Sp { span: 0..0, value }
    }
}

impl<T> std::ops::Deref for Sp<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Sp<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = serde_spanned::Spanned::<T>::deserialize(d)?;
        let span = s.span();
        Ok(Sp {
            span,
            value: s.into_inner(),
        })
    }
}

impl<T: JsonSchema> JsonSchema for Sp<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
    fn inline_schema() -> bool {
        T::inline_schema()
    }
}

/// One policy file.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPolicy {
    /// Settings that apply to the whole file.
    #[serde(default)]
    pub policy: RawPolicyHeader,
    /// Named lists of patterns or values, referenced as `{ list = "name" }`.
    #[serde(default)]
    pub lists: BTreeMap<String, Sp<Vec<Sp<String>>>>,
    /// Named conditions, referenced as `{ ref = "name" }`.
    #[serde(default)]
    pub conditions: BTreeMap<String, Sp<RawCondition>>,
    /// Named facts: things looked up beyond stdin, computed only when used.
    #[serde(default)]
    pub facts: BTreeMap<String, Sp<RawFact>>,
    /// The rules, in file order.
    #[serde(default, rename = "rule")]
    pub rules: Vec<Sp<RawRule>>,
    /// Changes to rules of policies loaded earlier (earlier layers, or files this
    /// one extends): turn them off, or change single fields.
    #[serde(default, rename = "override")]
    pub overrides: Vec<Sp<RawOverride>>,
    /// `[log]`: the decision log (where, what, how much, which fields are secret)
    /// and allow-once codes. Later layers change single fields of earlier ones.
    pub log: Option<Sp<super::log::RawLog>>,
    /// `[managed]`: what a policy of the managed folder (`/etc/hookrules/`)
    /// requires. Anywhere else it has no effect.
    pub managed: Option<Sp<RawManaged>>,
}

/// `[managed]`: a managed policy's demands on every run of the machine.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawManaged {
    /// `true`: this policy must load. If it is not root-owned, not readable, or
    /// does not parse, every run fails closed instead of running without it.
    pub required: Option<bool>,
    /// The parts of the built-in pack that nothing below the managed layer may
    /// turn off or change: `true` for the whole pack, or a list of part names
    /// (`["destructive", "secrets"]`). They stay loaded under `builtin = false`
    /// and `--no-builtin`, and overrides or same-id rules below leave them as
    /// they are.
    pub builtin: Option<PinBuiltin>,
}

/// `[managed] builtin`: the whole pack, or parts of it by name.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PinBuiltin {
    /// `true`: every part; `false`: none.
    All(bool),
    /// These parts.
    Parts(Vec<String>),
}

/// `[[override]]`: change rules loaded before this file. Select them by `rule` (an
/// id, or a glob over ids such as `git-*`) or by `tag`; then set fields.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawOverride {
    /// A rule id, or a glob over rule ids (`git-*`).
    pub rule: Option<Sp<String>>,
    /// Every rule with this tag.
    pub tag: Option<Sp<String>>,
    /// `false` turns the selected rules off.
    pub enabled: Option<bool>,
    /// A new priority.
    pub priority: Option<Sp<i64>>,
    /// A new decision (e.g. `ask` instead of `deny`).
    pub decision: Option<Sp<DecisionKind>>,
    /// Tags added to the selected rules.
    #[serde(default)]
    pub add_tags: Vec<String>,
    /// `audit`: the selected rules are evaluated and logged, but decide nothing.
    pub mode: Option<Sp<RuleMode>>,
    /// Narrow exceptions added to the selected rules: paths and commands they do
    /// not see (README, "Exceptions"); every other case stays as they say.
    pub except: Option<Sp<RawExcept>>,
}

/// `[policy]`: file-wide settings.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawPolicyHeader {
    /// Name shown in traces and diagnostics; defaults to the file name.
    pub name: Option<Sp<String>>,
    /// This policy's version (`"2.1.0"`): a policy that names one is a bundle,
    /// recorded with its name, version and hash in every decision.
    pub version: Option<Sp<String>>,
    /// What this policy is for.
    pub description: Option<String>,
    /// `fail-closed` (default) or `fail-open`: what happens when this policy cannot be
    /// loaded, a fact it needs fails, or a command it runs times out.
    pub failure: Option<Sp<FailureMode>>,
    /// `all` (default): every matching rule contributes and the strictest decision wins.
    /// `first-match`: rules are tried in priority order and the first that matches decides alone.
    pub combine: Option<Sp<CombineMode>>,
    /// Other policies loaded before this one: paths relative to this file, or
    /// `builtin:NAME`. Cycles are an error.
    #[serde(default)]
    pub extends: Vec<Sp<String>>,
    /// What to do with a Bash command that cannot be parsed: `deny`, `ask`, or
    /// `regex` (default: only raw-text conditions can match it).
    pub unparsable_command: Option<Sp<UnparsableCommand>>,
    /// The zone of `today` and `now` in this policy's templates: `local` (default: the
    /// hook's `TZ`, else the machine's zone) or `utc`.
    pub time_zone: Option<Sp<TimeZoneChoice>>,
    /// `false` turns the whole built-in pack off (in the user, project or local
    /// layer; `check` says so). By default it stays on under every layer; parts of
    /// it are turned off with `[[override]]` by id or tag.
    pub builtin: Option<Sp<bool>>,
    /// Warnings that are intended in this file, by code or name (`["HR104",
    /// "may-be-absent"]`): `check` does not report them here.
    #[serde(default)]
    pub allow: Vec<Sp<String>>,
    /// `enforce` (default) or `audit`: every rule of this file is evaluated and
    /// logged as what it would decide, but the action goes ahead.
    pub mode: Option<Sp<RuleMode>>,
}

/// `[policy] time_zone`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum TimeZoneChoice {
    /// The hook's local zone (`TZ` in its environment, else the machine's).
    #[default]
    Local,
    /// Coordinated Universal Time.
    Utc,
}

/// Whether a rule's decision counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RuleMode {
    /// The rule decides.
    #[default]
    Enforce,
    /// The rule is evaluated and logged ("would deny"), but decides nothing: its
    /// decision, reason, context, messages, rewrites and effects are left out.
    Audit,
}

impl RuleMode {
    /// The name as written in policies.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleMode::Enforce => "enforce",
            RuleMode::Audit => "audit",
        }
    }
}

/// What a policy does when something it depends on fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum FailureMode {
    /// Block the event (where it can be blocked) with a message naming the failure.
    #[default]
    FailClosed,
    /// Skip what failed, report it on stderr and in traces, and carry on.
    FailOpen,
}

/// How the matching rules of one policy are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum CombineMode {
    /// Every matching rule contributes; the strictest decision wins.
    #[default]
    All,
    /// The matching rule with the lowest priority number decides alone.
    FirstMatch,
}

/// What to do with a shell command that does not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "kebab-case")]
pub enum UnparsableCommand {
    /// Deny the tool call, saying the command could not be understood.
    Deny,
    /// Ask the user.
    Ask,
    /// Structured command conditions see nothing; raw regex conditions still apply.
    #[default]
    Regex,
}

/// `[[rule]]`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawRule {
    /// Unique id, used in traces, decisions, overrides and fixtures.
    pub id: Sp<String>,
    /// What the rule is for.
    pub description: Option<String>,
    /// Lower numbers are considered first and win ties. Default 100.
    pub priority: Option<Sp<i64>>,
    /// Free-form labels, usable to disable groups of rules.
    #[serde(default)]
    pub tags: Vec<String>,
    /// `false` turns the rule off without deleting it.
    pub enabled: Option<bool>,
    /// `audit`: evaluated and logged as what it would decide, but decides nothing.
    /// Default: the policy's `mode`.
    pub mode: Option<Sp<RuleMode>>,
    /// Events the rule applies to, by `hook_event_name`; `"*"` for every event.
    pub events: Sp<Vec<Sp<String>>>,
    /// The client's matcher, applied to the event's matcher field (the tool name on
    /// tool events, `source` on SessionStart, `agent_type` on Subagent events, ...):
    /// an exact `A|B` list, or else an unanchored regex. `Task` also matches `Agent`.
    pub matcher: Option<Sp<MatcherSpec>>,
    /// The condition under which the rule fires. Absent: always.
    pub when: Option<Sp<RawCondition>>,
    /// An exception: when this holds, the rule does not fire even if `when` does.
    pub unless: Option<Sp<RawCondition>>,
    /// Narrow exceptions: paths and commands this rule does not see (README,
    /// "Exceptions"); every other case stays as the rule says.
    pub except: Option<Sp<RawExcept>>,
    /// Exceptions other files' `[[override]]`s added to this rule, each with the
    /// file it is written in (set by layering, never read from TOML).
    #[serde(skip)]
    #[schemars(skip)]
    pub granted: Vec<Granted>,
    /// The decision: allow, deny, ask, block or stop.
    pub decision: Option<Sp<DecisionKind>>,
    /// `true`: this rule routes or guides ("hand off to X", "go ahead, but delegate")
    /// and stands aside, with its reason, context and message, when a rule that
    /// does not defer decides the event `ask` or stricter (and at least as strictly
    /// as this one). Among deferring rules that decide, only the first in priority
    /// order speaks. Installed packs then never tell the agent two things at once.
    pub defer: Option<bool>,
    /// Why (template). Sent as the deny/block reason, the stop reason, etc.
    pub reason: Option<Sp<String>>,
    /// Context for the model (template), sent as `additionalContext`.
    pub context: Option<Sp<String>>,
    /// A message for the user (template), sent as `systemMessage`.
    pub message: Option<Sp<String>>,
    /// Replacement values for fields of `tool_input` (templates). The full input is sent.
    pub rewrite: Option<Sp<BTreeMap<String, Sp<String>>>>,
    /// Files read into the context, in order.
    #[serde(default)]
    pub include: Vec<Sp<RawInclude>>,
    /// Side effects, run in order after the decision is made.
    #[serde(default)]
    pub effects: Vec<Sp<RawEffect>>,
    /// Warnings that are intended for this rule, by code or name (`["HR107"]`):
    /// `check` does not report them for it.
    #[serde(default)]
    pub allow: Vec<Sp<String>>,
}

/// `except = { paths = [...], commands = [...] }`: cases removed from what one
/// rule sees, the way Falco's `exceptions` subtract matches inside a rule.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawExcept {
    /// Paths the rule does not see, as globs: `dist`, `build/**` (relative: inside
    /// the project), `~/.cache/tool/**`, `/opt/cache/**`. Exact letter case. A
    /// shell command whose every path is listed is not seen either.
    #[serde(default)]
    pub paths: Vec<Sp<String>>,
    /// Commands the rule does not see, written out in full as they run
    /// (`rm -rf ./dist`): each simple command of a shell line is compared word
    /// by word, and only when it runs in the event's folder with every word
    /// known and no redirection.
    #[serde(default)]
    pub commands: Vec<Sp<String>>,
}

/// An `except` an `[[override]]` added to a rule of an earlier file.
#[derive(Debug, Clone)]
pub struct Granted {
    /// The file holding the override (its spans point into this text).
    pub source: std::sync::Arc<crate::source::PolicySource>,
    /// The exception as written there.
    pub except: Sp<RawExcept>,
}

/// A matcher for all the rule's events, or one per event
/// (`{ PostToolUse = "Task", SubagentStop = "*" }`; events not named are not
/// constrained).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum MatcherSpec {
    /// The same matcher for every event of the rule.
    All(String),
    /// A matcher per event name.
    PerEvent(BTreeMap<String, String>),
}

/// A decision a rule can make.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Deserialize,
    serde::Serialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum DecisionKind {
    /// Let it proceed (and, on PreToolUse, skip the permission prompt).
    Allow,
    /// Ask the user.
    Ask,
    /// Refuse (tool calls, permission requests, model switches).
    Deny,
    /// Block (prompts, stops, post-tool feedback, compaction, ...).
    Block,
    /// Stop the whole session (`continue: false`).
    Stop,
}

impl From<DecisionKind> for crate::contract::hosts::adapter::Outcome {
    /// A policy's decision, as a host's capability table sees it (`block` is `deny`).
    fn from(kind: DecisionKind) -> Self {
        use crate::contract::hosts::adapter::Outcome as D;
        match kind {
            DecisionKind::Allow => D::Allow,
            DecisionKind::Ask => D::Ask,
            DecisionKind::Deny | DecisionKind::Block => D::Deny,
            DecisionKind::Stop => D::Stop,
        }
    }
}

impl DecisionKind {
    /// The name as written in policies.
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionKind::Allow => "allow",
            DecisionKind::Ask => "ask",
            DecisionKind::Deny => "deny",
            DecisionKind::Block => "block",
            DecisionKind::Stop => "stop",
        }
    }
}

/// A condition. Exactly one of the combinators (`all`, `any`, `not`, `ref`), or one
/// selector (`field`, `jsonpath`, `fact`, `commands`, `paths`) with one test.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawCondition {
    /// All of these hold.
    pub all: Option<Vec<Sp<RawCondition>>>,
    /// At least one of these holds.
    pub any: Option<Vec<Sp<RawCondition>>>,
    /// This does not hold.
    pub not: Option<Box<Sp<RawCondition>>>,
    /// The named condition from `[conditions]`.
    #[serde(rename = "ref")]
    pub reference: Option<Sp<String>>,

    /// Dotted path into the event (`tool_input.command`, `tool_calls.0.tool_name`),
    /// or into the command object inside `command`.
    pub field: Option<Sp<String>>,
    /// JSONPath into the event (`$.tool_input.edits[*].file_path`).
    pub jsonpath: Option<Sp<String>>,
    /// A fact from `[facts]`, optionally with a dotted sub-path (`tests.status`).
    pub fact: Option<Sp<String>>,
    /// Dotted path to a shell command string; the test `command` applies to each
    /// simple command it will run.
    pub commands: Option<Sp<String>>,
    /// Dotted path to a file path (`tool_input.file_path`), or to a shell command
    /// string when `from_command = true`: the value(s) are normalised paths.
    pub paths: Option<Sp<String>>,
    /// With `paths`: the field holds a shell command; test every file it touches.
    pub from_command: Option<bool>,
    /// With `paths` and `from_command`: only paths written: output redirections, and
    /// operands of these programs (`cp`, `tee`, `sed`, ...).
    pub written_by: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// With `paths` and `from_command`: operands of these programs are data, not
    /// paths (`echo`, `printf`, ...).
    pub skip_programs: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// With `paths` and `from_command`: the values of these options are files the
    /// program uses (a key to log in with, an env file to load), not paths it
    /// reads out: each entry is a program (`*` for any) and its options,
    /// `"scp -i"`, `"curl --key --cert -E"`.
    pub skip_options: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// With `paths` and `from_command`: only paths written, and also the places
    /// these entries name (a program, `*` for any, then options whose value is
    /// written, `name=` word prefixes, operands by position `@2`/`@-1`):
    /// `"* --output of="`, `"ddrescue @2"`.
    pub written_through: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// With `paths` and `from_command`: only paths read or changed in place;
    /// paths a command only writes (output redirections, `cp`'s destination,
    /// `tee`'s files, `sort -o`, `curl -o`, `dd of=`) are left out.
    pub reads_only: Option<bool>,
    /// With `paths` and `from_command`: only the paths the command writes,
    /// whoever writes them: redirections of any program, output options and
    /// destinations, operands of programs that change or remove them (with
    /// everything below when they recurse), and the unknown names below a
    /// folder an archive, a download or a clone fills (`DIR/…`).
    pub writes: Option<bool>,
    /// With `writes`: only the writes that replace or remove what is there
    /// (`>`, a copy, move or link onto it, `rm`, `truncate`, a move away, an
    /// extraction), not those that change it in place and keep the rest
    /// (`>>`, `sed -i`, a patch, an editor, `chmod`, `touch`).
    pub replaces: Option<bool>,
    /// With `paths`: follow symbolic links, on disk and those the command
    /// makes, so a class judges where the path lands (default `true`; `false`:
    /// the path as spelled).
    pub resolve_symlinks: Option<bool>,

    /// Text normalisation before matching: `dashes`, `whitespace`, `casefold`.
    #[serde(default)]
    pub normalize: Vec<Sp<Normalization>>,
    /// With several values (JSONPath, commands, paths): `any` (default) or `all` must pass.
    pub quantifier: Option<Sp<Quantifier>>,

    /// Regular expressions; the test passes when any matches.
    pub matches: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Regular expressions; the test passes when all match.
    pub matches_all: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Regular expressions; the test passes when none matches.
    pub matches_none: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Glob patterns (globset syntax); the test passes when any matches and no
    /// `!pattern` (an exclusion, as in `.gitignore`) does.
    pub glob: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// With `glob`: match case-insensitively.
    pub case_insensitive: Option<bool>,
    /// Equal to this value (string, number or boolean).
    #[schemars(with = "Option<serde_json::Value>")]
    pub equals: Option<Sp<toml::Value>>,
    /// Equal to one of these values.
    pub one_of: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// `true`: the value is present and not null. `false`: absent or null.
    pub exists: Option<Sp<bool>>,
    /// Contains this substring (strings) or element (arrays).
    pub contains: Option<Sp<String>>,
    /// Numeric comparisons.
    pub gt: Option<Sp<f64>>,
    /// Greater than or equal.
    pub ge: Option<Sp<f64>>,
    /// Less than.
    pub lt: Option<Sp<f64>>,
    /// Less than or equal.
    pub le: Option<Sp<f64>>,
    /// With `commands`: a test of each simple command (see [`RawCommandTest`]).
    pub command: Option<Sp<RawCommandTest>>,
    /// With `paths`: the path lies in one of these location classes and in none
    /// of the `!`-prefixed ones (`["home", "system", "!temp"]`). Classes: root,
    /// system, home, home_top, in_home, temp_root, temp, mount, project,
    /// project_root, project_git, contains_project, outside_project, elsewhere,
    /// unknown.
    pub class: Option<Sp<Vec<Sp<String>>>>,
}

/// A test of one simple command, as the shell will run it.
#[derive(Debug, Clone, Deserialize, JsonSchema, Default)]
#[serde(deny_unknown_fields)]
pub struct RawCommandTest {
    /// Program basename is one of these (`rm`, `git`).
    pub program: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// The first operands, in order (`["push"]` for `git push ...`).
    pub subcommand: Option<Sp<Vec<Sp<String>>>>,
    /// Each group must be present; a group is satisfied by any of its spellings,
    /// e.g. `[["-r", "-R", "--recursive"], ["-f", "--force"]]`.
    pub flags_all: Option<Sp<Vec<Sp<Vec<String>>>>>,
    /// At least one of these flags is present.
    pub flags_any: Option<Sp<Vec<Sp<String>>>>,
    /// None of these flags is present.
    pub flags_none: Option<Sp<Vec<Sp<String>>>>,
    /// Some argument, as the program receives it (quotes removed, variables not
    /// expanded), is exactly one of these: `["/", "~", "$HOME", "*", "."]`.
    pub arg_in: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Some operand, as a normalised absolute path, matches one of these globs.
    /// Paths under `$HOME` are also tried as `~/...`, and paths in the project as
    /// `$PROJECT_DIR/...`, so `~/.ssh/**` and `$PROJECT_DIR` work as patterns.
    pub target_glob: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Places in the command line that `target_glob` and `target_class` leave
    /// out: lines of a table, as for a `paths` test's `skip_options`
    /// (`"tune2fs =-l @*"`: every operand of `tune2fs -l` is only read;
    /// `"blkpr +-c=read-keys @*"`, `"fsadm:check @*"`).
    pub skip_options: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Some argument matches one of these regexes.
    pub arg_matches: Option<Sp<Vec<Sp<PatternItem>>>>,
    /// Some operand lies in one of these location classes and in none of the
    /// `!`-prefixed ones, wherever it is spelled from (`$PWD`, `$(pwd)`, `~`,
    /// `..`, a variable, after `cd`): `["home", "home_top", "system", "!temp"]`.
    /// An operand built from a value nobody can know is in `unknown`.
    pub target_class: Option<Sp<Vec<Sp<String>>>>,
    /// `true`: the program name is an expansion nobody can know before the
    /// command runs (`$x -rf /`, `${CMD} …`); `false`: it is known.
    pub program_unknown: Option<bool>,
    /// For shells, interpreters, `eval` and `source`: the code they run comes
    /// from one of these: `inline` (literal text, analysed), `decoded` (decoded
    /// from literal input: `base64 -d | sh`), `written` (a file written earlier
    /// in the command), `file` (a script file), `dynamic` (produced at run
    /// time: `curl … | sh`, `eval "$(…)"`, `bash -c "$X"`).
    pub code: Option<Sp<Vec<Sp<String>>>>,
    /// A further condition over the command object (`program`, `args`, `flags`,
    /// `operands`, `redirects`, `via`, `cwd`, `program_unknown`, `code`, …).
    pub when: Option<Box<Sp<RawCondition>>>,
}

/// One item of a pattern list: a literal, or a reference to a named list.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum PatternItem {
    /// A literal pattern or value.
    Literal(String),
    /// `{ list = "name" }`: every item of the named list.
    List {
        /// Name of a list in `[lists]`.
        list: String,
    },
}

/// Text normalisation steps, applied in the order listed.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Normalization {
    /// Unicode dashes (en, em, non-breaking hyphen, minus, ...) become `-`.
    Dashes,
    /// Runs of whitespace become one space; leading and trailing space is trimmed.
    Whitespace,
    /// Unicode lowercase.
    Casefold,
}

/// Apply normalisation steps in order.
pub fn normalized(s: &str, steps: &[Normalization]) -> String {
    let mut out = s.to_string();
    for step in steps {
        out = match step {
            Normalization::Dashes => out
                .chars()
                .map(|c| match c {
                    '\u{2010}'..='\u{2015}'
                    | '\u{2212}'
                    | '\u{FE58}'
                    | '\u{FE63}'
                    | '\u{FF0D}'
                    | '\u{00AD}' => '-',
                    c => c,
                })
                .collect(),
            // Without a Vec of words: 16 bytes a word is 400 MB for a 50 MB
            // `echo a a a …`.
            Normalization::Whitespace => {
                let mut joined = String::with_capacity(out.len());
                for w in out.split_whitespace() {
                    if !joined.is_empty() {
                        joined.push(' ');
                    }
                    joined.push_str(w);
                }
                joined
            }
            Normalization::Casefold => out.to_lowercase(),
        };
    }
    out
}

/// How a test over several values passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Quantifier {
    /// At least one value passes.
    #[default]
    Any,
    /// Every value passes (and there is at least one).
    All,
}

/// `[facts.NAME]`: something looked up beyond stdin, computed at most once per event
/// and only when a condition or template uses it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawFact {
    /// What kind of fact this is.
    pub kind: Sp<FactKind>,
    /// `file`: the path (template), relative to the project directory.
    /// `glob`: the pattern (template).
    pub path: Option<Sp<String>>,
    /// `file` / `glob`: the folder the templated path must stay inside (relative to the
    /// project directory). Defaults to the project directory.
    pub within: Option<Sp<String>>,
    /// `file`: headings that must all be present. `"## Next steps"` is a level-2
    /// heading with that text, `"Next steps"` the text at any level or on a line of
    /// its own (bold, or with a colon); case-insensitive; headings in code fences do
    /// not count (README, "Facts").
    #[serde(default)]
    pub headings: Vec<Sp<String>>,
    /// `file`: a regex to search the content for (named captures are exposed).
    pub regex: Option<Sp<String>>,
    /// `file`: expose the first N lines as `lines`/`head`.
    pub lines: Option<usize>,
    /// `file`: parse the content as JSON and expose it as `json`, so fields are read
    /// by path (`fact = "state.json.agent"`), whatever the key order or spacing.
    pub json: Option<bool>,
    /// `glob`: patterns to leave out.
    #[serde(default)]
    pub exclude: Vec<Sp<String>>,
    /// `command`: program and arguments (each a template). Never run through a shell.
    pub argv: Option<Sp<Vec<Sp<String>>>>,
    /// `command`: milliseconds before the process group is killed (default 10000).
    pub timeout_ms: Option<u64>,
    /// `command`: working directory (template), default the project directory.
    pub cwd: Option<Sp<String>>,
    /// `env`: variable names to expose.
    #[serde(default)]
    pub vars: Vec<String>,
    /// `project_markers`: files to look for in the project directory.
    #[serde(default)]
    pub markers: Vec<String>,
}

/// Kinds of fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    /// Does a file exist; its headings, a regex in it, its first lines.
    File,
    /// Which files match a glob: `count`, `files` (newest first), `newest`.
    Glob,
    /// Exit status and output of a command run with a timeout.
    Command,
    /// Selected environment variables.
    Env,
    /// The last assistant message: from the event, else the subagent's answer in
    /// `tool_response`, else read from the transcript.
    LastAssistantMessage,
    /// Which project marker files exist.
    ProjectMarkers,
}

/// `include = [{ path = "...", lines = 25 }]`: a file read into the context.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawInclude {
    /// The file (template), relative to the project directory.
    pub path: Sp<String>,
    /// Read only the first N lines.
    pub lines: Option<usize>,
    /// A heading put before the content (template). Default: the path.
    pub title: Option<Sp<String>>,
    /// Only the newest of several matches, when `path` is a glob.
    pub newest: Option<bool>,
}

/// A side effect, run after the decision is made, in order.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawEffect {
    /// What to do.
    pub kind: Sp<EffectKind>,
    /// The file (template), relative to the project directory.
    pub path: Option<Sp<String>>,
    /// The folder `path` must stay inside; defaults to the project directory.
    pub within: Option<Sp<String>>,
    /// `write_file`: the content (template).
    pub content: Option<Sp<String>>,
    /// `append_jsonl` / `write_json`: the record; string values are templates.
    #[schemars(with = "Option<serde_json::Map<String, serde_json::Value>>")]
    pub record: Option<Sp<toml::Table>>,
    /// `write_json`: keys whose existing value is kept when the file exists.
    #[serde(default)]
    pub keep: Vec<String>,
    /// `run`: program and arguments (templates), never through a shell.
    pub argv: Option<Sp<Vec<Sp<String>>>>,
    /// `run`: milliseconds before the process group is killed (default 10000).
    pub timeout_ms: Option<u64>,
}

/// Kinds of side effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EffectKind {
    /// Write a file atomically (temporary file, then rename).
    WriteFile,
    /// Write a JSON object atomically, keeping the listed keys of an existing file.
    WriteJson,
    /// Append one JSON line (one `write` of the whole line, `O_APPEND`).
    AppendJsonl,
    /// Delete a file (missing is fine).
    DeleteFile,
    /// Run a command with a timeout.
    Run,
}
