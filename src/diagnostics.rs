//! The diagnostic catalogue: every problem hookrules reports about a policy has a
//! stable code, a one-line title, a longer explanation (`hookrules rule CODE`), and
//! points at the TOML text it is about.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use crate::source::PolicySource;

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// A policy bug worth fixing; the policy still loads.
    Warning,
    /// The policy (or the rule) cannot be used.
    Error,
}

macro_rules! codes {
    ($( $variant:ident = $code:literal, $name:literal, $sev:ident, $title:literal, $explain:literal; )*) => {
        /// Every diagnostic code hookrules can report.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Code { $( #[doc = $title] $variant, )* }

        impl Code {
            /// All codes, in catalogue order.
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];
            /// The stable code, e.g. `HR003`.
            pub fn code(self) -> &'static str { match self { $(Code::$variant => $code,)* } }
            /// The stable kebab-case name, e.g. `invalid-regex`.
            pub fn name(self) -> &'static str { match self { $(Code::$variant => $name,)* } }
            /// Error or warning.
            pub fn severity(self) -> Severity { match self { $(Code::$variant => Severity::$sev,)* } }
            /// One line.
            pub fn title(self) -> &'static str { match self { $(Code::$variant => $title,)* } }
            /// The longer explanation printed by `hookrules rule CODE`.
            pub fn explanation(self) -> &'static str { match self { $(Code::$variant => $explain,)* } }
            /// Look a code up by `HR003` or `invalid-regex`.
            pub fn lookup(s: &str) -> Option<Code> {
                Code::ALL.iter().copied().find(|c| c.code().eq_ignore_ascii_case(s) || c.name() == s)
            }
        }
    };
}

codes! {
    TomlSyntax = "HR001", "toml-syntax", Error, "The file is not valid TOML",
        "The policy file could not be parsed as TOML. The caret points at the first character the TOML parser could not accept. Common causes: a regex in a basic string (\"...\") whose backslashes are read as TOML escapes (use a literal string '...' instead), an unclosed bracket, or a duplicate key.";
    Schema = "HR002", "schema", Error, "A key is unknown or a value has the wrong type",
        "Policy files are checked against the policy schema (`hookrules schema`): unknown keys are rejected so that a typo never silently disables a check, and every value must have the documented type. The help line lists the keys that are allowed here.";
    InvalidRegex = "HR003", "invalid-regex", Error, "A regular expression does not compile",
        "Regexes use the syntax of the Rust `regex` crate (no look-around, no backreferences). Write them in TOML literal strings ('...') so that what you see is exactly what the regex engine sees; the caret then points at the offending character.";
    InvalidGlob = "HR004", "invalid-glob", Error, "A glob pattern is invalid",
        "Globs use the `globset` syntax: `*` within a path component, `**` across components, `?`, `[abc]`, `{a,b}`. Patterns without a `/` are matched against the file name only (as in `.gitignore`).";
    InvalidJsonPath = "HR005", "invalid-jsonpath", Error, "A JSONPath expression is invalid",
        "`jsonpath` takes an RFC 9535 JSONPath starting at `$`, e.g. `$.tool_calls[*].tool_name`. For a single field, `field = \"tool_input.command\"` is simpler.";
    TemplateSyntax = "HR006", "template-syntax", Error, "A template does not compile",
        "Texts (reason, context, message, paths, rewrites, records) are minijinja templates. Variables: `event` (the stdin JSON), `captures` (named regex captures), `facts`, `rule`, `today`, `now`, `project_dir`.";
    UnknownEvent = "HR007", "unknown-event", Error, "An event name is not one the client sends",
        "`events` takes hook event names exactly as they appear in `hook_event_name` (case-sensitive), or `*`. A name that is not in the known list is rejected, since a typo would silently disable the rule; to target an event a newer client adds, prefix it with `+` (e.g. `+FutureEvent`).";
    MatcherWithoutField = "HR008", "matcher-without-field", Error, "A matcher is set on an event that has nothing to match",
        "The client ignores matchers on events without a matcher field (Stop, UserPromptSubmit, PostToolBatch, ...), and so does hookrules; a `matcher` there is almost certainly a mistake. Use a `when` condition instead.";
    DuplicateRuleId = "HR009", "duplicate-rule-id", Error, "Two rules have the same id",
        "Rule ids name rules in decisions, traces, fixtures and overrides, so they must be unique across all loaded policies.";
    UnknownReference = "HR010", "unknown-reference", Error, "A list, condition or fact that does not exist is referenced",
        "`{ list = \"x\" }` needs `[lists] x = [...]`, `{ ref = \"x\" }` needs `[conditions.x]`, `fact = \"x\"` needs `[facts.x]`.";
    ReferenceCycle = "HR011", "reference-cycle", Error, "Named conditions refer to each other in a cycle",
        "A named condition cannot (directly or indirectly) refer to itself; it would never finish evaluating.";
    InvalidCondition = "HR012", "invalid-condition", Error, "A condition is incomplete or mixes incompatible keys",
        "A condition is exactly one of `all`, `any`, `not`, `ref`, or one selector (`field`, `jsonpath`, `fact`, `commands`, `paths`) with exactly one test (`matches`, `matches_all`, `matches_none`, `glob`, `equals`, `one_of`, `exists`, `contains`, `gt`/`ge`/`lt`/`le`, `class` with `paths`, or `command` with `commands`). Location classes (`class`, `target_class`) and code sources (`code`) must be names hookrules knows.";
    DecisionNotSupported = "HR013", "decision-not-supported", Error, "The decision has no effect on this event",
        "A decision only has an effect on an event that can take it (reference §2.3, §2.4). `deny` and `block` are the same refusal, sent the way each event takes one: `permissionDecision: deny` on PreToolUse and PreModelSwitch, `behavior: deny` on PermissionRequest, `action: decline` on Elicitation and ElicitationResult, and a top-level `decision: block` on prompts, stops, post-tool events, PreCompact and the other block-style events (the client itself reads `block` on PreToolUse as a deny). `allow` applies where there is something to allow: PreToolUse, PreModelSwitch, PermissionRequest and the Elicitation events (accept). `ask` applies to PreToolUse and PreModelSwitch, and to PermissionRequest, where it leaves the choice to the client's own prompt. `stop` (`continue: false`) ends the turn on every event. Events that cannot be blocked (SessionStart, Notification, PostCompact, ...) take only `stop`, context and messages: a `deny` there would silently do nothing, so it is an error.";
    InvalidFact = "HR014", "invalid-fact", Error, "A fact is missing a required setting",
        "`file` needs `path`; `glob` needs `path`; `command` needs `argv`; `env` needs `vars`.";
    InvalidEffect = "HR015", "invalid-effect", Error, "A side effect is missing a required setting",
        "`write_file` needs `path` and `content`; `write_json` and `append_jsonl` need `path` and `record`; `delete_file` needs `path`; `run` needs `argv`.";
    Unreadable = "HR016", "unreadable", Error, "A policy file cannot be read",
        "The file does not exist, is not readable, or is not UTF-8.";
    MissingEvents = "HR017", "missing-events", Error, "A rule does not say which events it applies to",
        "Every rule needs `events = [...]` (or `[\"*\"]`); rules are indexed by event before anything else is evaluated.";
    ExtendsCycle = "HR018", "extends-cycle", Error, "Policies extend each other in a cycle",
        "`extends` loads other policies first; a chain that comes back to a file already being loaded would never end.";
    UnknownField = "HR019", "unknown-field", Error, "A rule reads something that cannot exist",
        "A condition's `field`, `commands` or `paths`, a `fact = ...` path, a template variable or a `rewrite` key names something no event, tool, fact or template value the rule applies to has: `tool_input.comand` (Bash's input has `command`), `facts.tests.stdot`, `{{ even.prompt }}`. The fields come from the client's contract (reference §1.1, §1.2, §4): the events the rule lists, and on tool events the tools its matcher admits. Under fail-closed such a rule would deny every matching call, or its text would render empty; so it is an error, with the closest name that does exist. Events and tool responses carry new optional fields over time: a name that is not close to any listed one is only a warning (HR107).";
    UnknownCapture = "HR020", "unknown-capture", Error, "A template reads a capture no regex of the rule names",
        "`captures.NAME` holds the text of the named group `(?P<NAME>...)` of a `matches` regex in the rule's `when` (including nested `all`/`any`, named conditions and `command.when`). Groups in `unless`, under `not`, in `matches_all`, `matches_none` or `arg_matches` do not capture. A capture no regex names is always empty.";
    UnknownMatcherValue = "HR021", "unknown-matcher-value", Error, "A matcher names a tool or value the client never sends",
        "Matchers are exact and case-sensitive (reference §3.2): `Bassh` or `bash` never matches the Bash tool, `startp` never matches a SessionStart source, and `mcp__memory` (an exact name) matches no MCP tool, whose names are `mcp__<server>__<tool>` (use the regex `mcp__memory__.*`). A near miss of a name the client sends is an error with the name it is closest to; a tool name that is not close to any is only a warning (HR113), since newer clients and plugins add tools.";
    MatchesEverything = "HR101", "matches-everything", Warning, "The rule fires on every event",
        "A rule with `events = [\"*\"]`, no matcher and no condition fires on every event the client sends, including tool calls several times a second. That is rarely intended.";
    NeverFires = "HR102", "never-fires", Warning, "The rule can never fire",
        "The rule is disabled, its condition is an empty `any` (which matches nothing), or its matcher cannot match any value.";
    Shadowed = "HR103", "shadowed", Warning, "A first-match rule is shadowed by an earlier one",
        "In a `combine = \"first-match\"` policy, an earlier rule with the same events and matcher and no condition always matches first, so this rule is never reached.";
    Unused = "HR104", "unused", Warning, "A list, condition or fact is never used",
        "Unused definitions are often left over from a rename; delete them or reference them.";
    SlowRegex = "HR105", "slow-regex", Warning, "A regex compiles into a large automaton",
        "The regex does not fit a 256 KiB compiled-size budget, so every hook process that needs it spends time compiling it. Large bounded repetitions (`{1000}`, or `{0,40}` of a Unicode class such as `[^\\n]`) and big Unicode classes (`\\w`, `\\d` in Unicode mode) are the usual causes. Prefer ASCII classes (`(?-u:\\w)`, `[0-9]`) when Unicode is not needed.";
    Uncovered = "HR106", "uncovered", Warning, "No fixture exercises the rule",
        "`hookrules test` and `hookrules check --fixtures DIR` report rules that no fixture expects to fire.";
    TemplateVariable = "HR107", "may-be-absent", Warning, "A rule reads a field that may be absent",
        "The field exists only on some of the rule's events (`last_assistant_message` on Stop but not on PreToolUse), only for some of the tools its matcher admits (`tool_input.file_path` for Read but not for Bash), or is optional in the client's contract (`agent_id`, `tool_input.description`), or is not listed in the reference at all. A condition on it does not hold where it is absent; a template renders it empty. Conditions warn only when a whole event or tool lacks the field; templates also warn for optional fields unless guarded with `{% if ... %}` or `| default(...)`. Narrow `events` or the matcher, or silence the warning where it is intended: `allow = [\"HR107\"]` on the rule.";
    ContextDropped = "HR108", "context-dropped", Warning, "Context or rewrite cannot reach the model on this event",
        "Events without an `additionalContext` field (PreCompact, PostCompact, SessionEnd, ...) cannot carry context to the model, and `rewrite` only applies to PreToolUse and PermissionRequest. The text would be dropped.";
    OverrideUnmatched = "HR110", "override-unmatched", Warning, "An override selects no rule",
        "`[[override]]` changes rules loaded before its file (earlier layers, or files it extends). One that selects nothing is usually a typo in the id or tag, or a layer loaded in a different order than expected; `hookrules check --rules` lists every rule with its file and layer.";
    BuiltinOff = "HR111", "builtin-off", Warning, "The built-in pack is turned off",
        "`[policy] builtin = false` in a user, project or local policy turns off the whole built-in pack (destructive commands, secrets, system folders, hookrules' own configuration). The pack otherwise stays on under every layer; to turn off one part, use `[[override]]` with its rule id or tag (`enabled = false`), which `check --rules` shows next to the rule.";
    NoDestructiveProtection = "HR112", "no-destructive-protection", Warning, "No destructive-command protection is active",
        "With the policies `run` would use, `rm -rf /` or `rm -rf ~` would be let through. Usually the built-in pack was turned off (`builtin = false`) or its `delete-root-or-system` and `delete-home` rules were disabled or overridden. Keep the pack on, or write a rule of your own that denies these commands.";
    UnknownTool = "HR113", "unknown-tool", Warning, "A matcher names no tool the client lists",
        "An exact matcher names a tool that is not among the client's tools (reference §4), or a regex matcher matches none of them. It may be a tool of a newer client or a plugin; otherwise it is a typo and the rule never fires. A matcher selects the tool by its name only: `Bash(git commit*)` is a regex that never matches; test arguments in `when`.";
    UnusedAllow = "HR114", "unused-allow", Warning, "An `allow` entry silences nothing",
        "`allow = [\"HR104\"]` in `[policy]` or a `[[rule]]` says a warning is intended there. An entry that no warning uses any more is stale: remove it, so that the warning shows again if the problem comes back.";
    OverTimeout = "HR115", "over-timeout", Warning, "An event's commands can outlast its registered timeout",
        "The command facts a rule for the event can compute and its `run` effects add up to more than the deadline `hookrules run` works to for that event (its registered `timeout`, less a margin). When they do, the slow fact is cut and the policy's failure mode answers; effects are ended. Re-run `hookrules init`: it registers each event with a timeout its policies' commands fit in. Or shorten the commands' `timeout_ms`.";
    HeadingNeverMatches = "HR117", "heading-never-matches", Warning, "A required heading cannot be found as written",
        "A `file` fact's `headings` entry is found in a Markdown file as README \"Facts\" describes: `\"## Next steps\"` is a level-2 heading with that text, `\"Next steps\"` that text at any level or on a line of its own; case-insensitive; headings in code fences do not count. An entry with no text is never satisfied, an entry with more than six `#` or a `#` directly before the text (`#Notes`) names no Markdown heading, and an entry spanning lines can never be one line. A gate that blocks until the heading is there would then block every time.";
    Loosening = "HR116", "loosening", Warning, "A project policy loosens protection or runs commands",
        "A policy of the project layer (`.claude/hookrules/*.toml`, a `*.local.toml` that git tracks or does not ignore, and the files they extend) comes with the repository, or was written by the agent; a `*.local.toml` that git ignores and does not track is your own and is in force as it is. What it loosens (an override that disables or downgrades a rule, puts it in audit mode, adds an exception (`except`) to it or enables one that loosens; a rule that replaces an earlier rule by id, answers `allow` or rewrites the tool's input; `builtin = false`) and the commands it runs (`command` facts, `run` effects) take effect only once you trust that exact content: review the file, then run `hookrules trust` in the project. Until then they are ignored, and each session is told which file was ignored at SessionStart. Any edit of the file needs trust again. This warning lists every loosening, trusted or not, and cannot be silenced by the policy itself (`docs/threat-model.md`).";
    LocalFromRepository = "HR119", "local-from-repository", Warning, "A personal `*.local.toml` policy is the repository's, so it is not trusted",
        "A `*.local.toml` in `.claude/hookrules/` is meant to be yours: made on this machine, never committed. git is asked (the system's git) whether it is: only a file git neither tracks nor would add (ignored, as by the `*.local.toml` line `hookrules init` writes into `.gitignore`) can be. Yours or not, what it loosens or runs waits for `hookrules trust`, since any program in the project can write such a file; this warning is about the others. One that git tracks (committed, or added with `git add -f`) came with the repository; one git does not ignore would be committed with the next `git add -A`; where git cannot answer (no git, no work tree) nothing says it is yours. Such a file is the repository's: it is not trusted, and what it loosens or runs is ignored until you review it and run `hookrules trust` (its stricter rules apply at once). If it is yours: `git rm --cached FILE`, add `*.local.toml` to `.gitignore` (or `.git/info/exclude`), then `hookrules trust`. If it came with the repository: review it and run `hookrules trust`, or ask for it to be renamed without `.local` (a shared policy). `hookrules doctor` reports the same. See `docs/threat-model.md`.";
    HostCannotDecide = "HR118", "host-cannot-decide", Warning, "A host this project runs hookrules for cannot give the rule's answer",
        "Each agent takes a different subset of Claude Code's answers (`docs/hosts.md`; the table is each host's adapter in `src/contract/hosts/`): Copilot CLI reads only `preToolUse`'s deny, Codex CLI has no hook `allow` (only a rewrite), Cursor's post-tool events cannot block, Gemini CLI's SessionStart cannot stop. Where a host a project has registered hookrules for (its hook files in the project: `.codex/hooks.json`, `.gemini/settings.json`, `.cursor/hooks.json`, `.github/hooks/hookrules.json`) sends one of the rule's events, an answer it cannot give is dropped there (noted on stderr): the host goes on as if the rule had not fired. A rule that names its hosts (`{ field = \"host.name\", equals = \"claude\" }` or `one_of`, in `when`) is judged only for those. An `ask` a host cannot put to the user is a deny there (stricter), which is not warned about. Narrow the rule to the hosts that can give its answer, give the answer another way on that host, or `allow = [\"HR118\"]` on the rule.";
    FlagNeverSeen = "HR120", "flag-never-seen", Warning, "A `flags_*` entry is not a flag the command has, or is more than the option it names",
        "A command's `flags` are its options as getopt splits them: `-rf` is `-r` and `-f`, `--force=x` is `--force`, and the letters of a single-dash word are each a flag up to the first character that is not a letter or digit (`-hashes` is `-h -a -s -h -e -s`, `-chdir=infra` is `-c -h -d -i -r`; only `find`'s primaries are whole words). So an entry `-?`, `-rf` or `-delete` in `flags_all`, `flags_any` or `flags_none` is never present, and a one-letter `flags_none` entry on a program whose options are single-dash words (impacket's `-hashes`, terraform's `-chdir`, Go's flag package) also matches the letter inside those words: `flags_none = [\"-h\"]` meant as help turns the rule off for `secretsdump.py -hashes LM:NT`. Test the word itself instead: `when = { not = { field = \"args\", one_of = [\"-h\", \"-?\"] } }` (or `arg_in` where a word must be present).";
    StopLoop = "HR109", "stop-loop", Warning, "A Stop/SubagentStop block ignores `stop_hook_active`",
        "A rule that blocks Stop or SubagentStop without looking at `stop_hook_active` can keep the agent going until the client's cap (8 blocks). Add `{ field = \"stop_hook_active\", equals = false }` to release after one block, unless blocking until a condition holds is intended.";
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.code(), self.name())
    }
}

/// One problem, pointing into the policy text where it can.
#[derive(Debug, Clone)]
pub struct Diagnostic {
    /// Which problem.
    pub code: Code,
    /// What is wrong, specifically.
    pub message: String,
    /// The policy the span points into.
    pub source: Option<Arc<PolicySource>>,
    /// Byte range in the source.
    pub span: Option<Range<usize>>,
    /// Text under the underline.
    pub label: Option<String>,
    /// What to do about it.
    pub help: Option<String>,
}

impl Diagnostic {
    /// A diagnostic about `span` in `source`.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            message: message.into(),
            source: None,
            span: None,
            label: None,
            help: None,
        }
    }
    /// Point at a span of a source.
    pub fn at(mut self, source: &Arc<PolicySource>, span: Range<usize>) -> Self {
        self.source = Some(source.clone());
        self.span = Some(span);
        self
    }
    /// Set the underline label.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }
    /// Set the help line.
    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// Set the help line in place.
    pub fn set_help(&mut self, help: impl Into<String>) -> &mut Self {
        self.help = Some(help.into());
        self
    }
    /// Set the underline label in place.
    pub fn set_label(&mut self, label: impl Into<String>) -> &mut Self {
        self.label = Some(label.into());
        self
    }
    /// Error or warning.
    pub fn severity(&self) -> Severity {
        self.code.severity()
    }
    /// `file:line:col` of the span start, if any.
    pub fn location(&self) -> Option<(String, usize, usize)> {
        let src = self.source.as_ref()?;
        let span = self.span.as_ref()?;
        let (line, col) = src.line_col(span.start);
        Some((src.display_name(), line, col))
    }
    /// The source text the span covers.
    pub fn snippet(&self) -> Option<&str> {
        let src = self.source.as_ref()?;
        let span = self.span.clone()?;
        src.text.get(span)
    }
    /// A machine-readable form for `--format json`.
    pub fn to_json(&self) -> serde_json::Value {
        let loc = self.location();
        serde_json::json!({
            "code": self.code.code(),
            "name": self.code.name(),
            "severity": self.severity(),
            "message": self.message,
            "file": loc.as_ref().map(|l| l.0.clone()),
            "line": loc.as_ref().map(|l| l.1),
            "column": loc.as_ref().map(|l| l.2),
            "span": self.span.as_ref().map(|s| [s.start, s.end]),
            "snippet": self.snippet(),
            "label": self.label,
            "help": self.help,
        })
    }
}

impl Diagnostic {
    /// One line with the location: `file:line:col: message [HR003(invalid-regex)]`.
    pub fn one_line(&self) -> String {
        match self.location() {
            Some((file, line, col)) => {
                format!("{file}:{line}:{col}: {} [{}]", self.message, self.code)
            }
            None => format!("{} [{}]", self.message, self.code),
        }
    }
}

/// The message alone (miette's report adds the code and location itself).
/// Hand-written rather than `thiserror`: the field `source` is the policy text
/// (miette's source code), which `thiserror` would take for the error's cause.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diagnostic {}

impl miette::Diagnostic for Diagnostic {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }
    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.severity() {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        })
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source
            .as_ref()
            .filter(|_| self.span.is_some())
            .map(|s| &s.named as &dyn miette::SourceCode)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        self.source.as_ref()?;
        let len = span.end.saturating_sub(span.start);
        Some(Box::new(std::iter::once(miette::LabeledSpan::new(
            self.label.clone(),
            span.start,
            len,
        ))))
    }
}

/// Render diagnostics as miette reports (no colour, stable for snapshots and logs).
pub fn render_plain(diags: &[Diagnostic]) -> String {
    render(diags, false)
}

/// Render diagnostics as miette reports, in colour for a terminal.
pub fn render(diags: &[Diagnostic], color: bool) -> String {
    let theme = if color {
        miette::GraphicalTheme::unicode()
    } else {
        miette::GraphicalTheme::unicode_nocolor()
    };
    let handler = miette::GraphicalReportHandler::new_themed(theme).with_width(100);
    let mut out = String::new();
    for d in diags {
        let _ = handler.render_report(&mut out, d);
        out.push('\n');
    }
    out
}

/// Did-you-mean: the candidate closest to `word` by edit distance, if close enough.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(&word.to_ascii_lowercase(), &c.to_ascii_lowercase());
        if d <= (word.len().max(3) / 3).max(1) + 1 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
