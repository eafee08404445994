//! What one host is, as data: its names, how its envelopes are recognised, and
//! per event what its hooks can be answered with. Each host file holds one
//! [`Adapter`] const; [`super::Host::adapter`] is the registry. Every stage reads
//! a host's facts from here: recognition ([`super::recognise`]), the answer
//! (`answer/`, which renders within [`Caps`]), `init --host` (the events it
//! registers, their timeouts and unit) and `check` (HR118: a decision a host it
//! targets cannot give).

use serde_json::{Map, Value};

pub use super::call::Call;
use super::{Recognised, TimeUnit, Unrecognised};
use crate::contract::events;

/// One host, as data.
#[derive(Debug)]
pub struct Adapter {
    /// The name on the command line and in `host.name`.
    pub name: &'static str,
    /// The product name, for messages.
    pub title: &'static str,
    /// Other spellings `--host` accepts (lower case).
    pub aliases: &'static [&'static str],
    /// The unit its config writes hook timeouts in.
    pub timeout_unit: TimeUnit,
    /// Its events; [`Events::Canonical`] for the client whose contract is the canonical one.
    pub events: Events,
    /// Its envelope to the canonical event (the event name from `--event`, for
    /// hosts that do not send one).
    pub normalise: Normalise,
    /// The input keys renamed for one of its tools (its name, the canonical name),
    /// so a rewrite is sent back in the names it reads.
    pub renames: fn(&str) -> &'static [(&'static str, &'static str)],
    /// How `init --host` writes its handlers (None: `init` without `--host`).
    pub install: Option<Install>,
    /// One tool call as it sends it to its PreToolUse-like hook (`explain
    /// --bash CMD --host NAME`), from a session and an absolute folder; an
    /// error when it has no such tool.
    pub quick_call: fn(&Call, &str, &str) -> Result<Value, String>,
    /// Its shell tool does not say which shell it starts: on Windows it may be
    /// PowerShell ([`super::dialect`]).
    pub shell_unnamed: bool,
    /// How its envelope is told from the other hosts' ([`super::sniff`]).
    pub sniff: Sniff,
    /// Its envelope names the event (`hook_event_name`). Copilot CLI's does not:
    /// the event comes from `--event` (a named envelope under its handler is
    /// another host's, [`super::recognise`]).
    pub names_event: bool,
    /// How its hooks read an answer (the renderers are in `answer/`, the stage
    /// after the decision).
    pub answer: AnswerShape,
    /// Other hook files it runs besides its own.
    pub also_runs: AlsoRuns,
}

/// How a host's envelope is told from the others'.
#[derive(Debug, Clone, Copy)]
pub enum Sniff {
    /// The canonical shape: a named envelope no other host claims.
    Fallback,
    /// Its shape: a test of the object and its event name, if it has one.
    /// Where two hosts' shapes overlap, the lower `rank` is asked first.
    Shape {
        /// Its place in the order of asking.
        rank: u8,
        /// The object and its `hook_event_name` (or `hookEventName`).
        test: fn(&Map<String, Value>, Option<&str>) -> bool,
    },
}

/// The answer formats hosts read; each has its renderer in `answer/`. A host
/// whose hooks read another's format names that one (VS Code reads Claude
/// Code's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnswerShape {
    /// Claude Code's `hookSpecificOutput` (reference §2.4).
    Claude,
    /// Codex CLI's.
    Codex,
    /// Gemini CLI's.
    Gemini,
    /// Cursor's `permission` answers.
    Cursor,
    /// Copilot CLI's.
    Copilot,
}

/// Hook files a host runs besides its own (`init --host` must not register
/// hookrules twice; `doctor` lists them as the host's).
#[derive(Debug, Clone, Copy)]
pub struct AlsoRuns {
    /// The hosts whose project hook files it runs too.
    pub hosts: &'static [super::Host],
    /// Every `.json` file in the repository's hooks folder (`.github/hooks/`).
    pub repository_hooks: bool,
}

impl AlsoRuns {
    /// Its own file only.
    pub const NOTHING: AlsoRuns = AlsoRuns {
        hosts: &[],
        repository_hooks: false,
    };
}

/// How `init --host NAME` writes hookrules into the host's hook file.
#[derive(Debug, Clone, Copy)]
pub struct Install {
    /// Its hook file in a project (relative to the project).
    pub project_file: &'static str,
    /// Its hook file for the user.
    pub user_file: UserFile,
    /// The shape of one handler.
    pub handler: HandlerShape,
    /// Each event's list holds groups (`{matcher?, hooks: [handler]}`), not handlers.
    pub grouped: bool,
    /// The file starts with `"version": 1`.
    pub versioned: bool,
    /// What to do after installing (restart, trust, commit).
    pub note: &'static str,
    /// Added to the note for a project file (not `--user`).
    pub project_note: &'static str,
}

/// Where a host reads the user's hooks.
#[derive(Debug, Clone, Copy)]
pub enum UserFile {
    /// Below the home folder (`.gemini/settings.json`).
    Home(&'static str),
    /// Below the folder an environment variable names, else below home
    /// (`$CODEX_HOME/hooks.json`, else `~/.codex/hooks.json`).
    Var {
        /// The variable.
        var: &'static str,
        /// Its folder when it is not set, below home.
        default: &'static str,
        /// The file in that folder.
        file: &'static str,
    },
    /// It reads hooks only from the project; why, for `init --user`.
    None(&'static str),
}

/// The shape of one handler in a host's hook file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandlerShape {
    /// `{"type": "command", "command", "timeout"}` (seconds): Claude Code's, Codex's, VS Code's.
    Command,
    /// `{"command", "timeout"}` (seconds): Cursor's.
    Bare,
    /// `{"type": "command", "name", "command", "timeout"}` (milliseconds): Gemini CLI's.
    Named,
    /// `{"type": "command", "bash", "powershell", "timeoutSec"}`, the event named on the
    /// command line (`--event NAME`: the host sends none): Copilot CLI's.
    PerShell,
}

/// A host's envelope (and the event name `--event` gave, for hosts that send
/// none) to the canonical event.
pub type Normalise = fn(Map<String, Value>, Option<&str>) -> Result<Recognised, Unrecognised>;

/// A host's event table.
#[derive(Debug, Clone, Copy)]
pub enum Events {
    /// Claude Code's own events and contract ([`events::EVENTS`], capabilities from
    /// [`Caps::canonical`]); `registered`: the ones `init --host` registers.
    Canonical {
        /// The events `init --host` registers, in order.
        registered: &'static [&'static str],
    },
    /// The host's events, in the order `init --host` registers them.
    Own(&'static [HostEvent]),
}

/// One event a host sends.
#[derive(Debug, Clone, Copy)]
pub struct HostEvent {
    /// The host's own name (`BeforeTool`, `beforeShellExecution`, `preToolUse`).
    pub name: &'static str,
    /// The canonical name policies use (`PreToolUse`), or the host's own name
    /// when Claude Code has no counterpart (`BeforeModel`, reached with `+BeforeModel`).
    pub canonical: &'static str,
    /// What an answer can do there.
    pub caps: Caps,
    /// Does `init --host` register a handler for it?
    pub registered: bool,
}

impl HostEvent {
    /// The handler timeout `init --host` registers, in seconds (the canonical
    /// event's default: one table for every host, in [`events::default_timeout_secs`]).
    pub fn timeout_secs(&self) -> u64 {
        events::default_timeout_secs(self.canonical)
    }
}

/// How a host gives one kind of answer on one event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gives {
    /// As asked.
    Yes,
    /// As a refusal (the host cannot ask, or cannot end the turn here): stricter, never looser.
    AsDeny,
    /// Not at all: the host ignores it (hookrules notes that on stderr).
    No,
}

/// What an answer can do on one event of one host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// `allow` skips the host's own approval.
    pub allow: Gives,
    /// `ask` puts the call to the user.
    pub ask: Gives,
    /// `deny` / `block` refuse.
    pub deny: Gives,
    /// `stop` ends the turn.
    pub stop: Gives,
    /// Context reaches the model.
    pub context: bool,
    /// A `rewrite` changes the tool's input.
    pub rewrite: bool,
}

impl Caps {
    /// An event whose output the host ignores.
    pub const NOTHING: Caps = Caps {
        allow: Gives::No,
        ask: Gives::No,
        deny: Gives::No,
        stop: Gives::No,
        context: false,
        rewrite: false,
    };

    /// What Claude Code's contract lets an answer do on one of its events
    /// (reference §2.3, §2.4; the decisions are HR013's table).
    pub fn canonical(spec: &events::EventSpec) -> Caps {
        use events::Blocking as B;
        if events::OUTPUT_IGNORED.contains(&spec.name) {
            return Caps::NOTHING;
        }
        let yes = |b: bool| if b { Gives::Yes } else { Gives::No };
        let decides = matches!(
            spec.blocking,
            B::Permission | B::ModelSwitch | B::PermissionRequest | B::Elicitation
        );
        Caps {
            allow: yes(decides),
            ask: yes(decides && spec.blocking != B::Elicitation),
            deny: yes(spec.blocking != B::None),
            stop: Gives::Yes,
            context: spec.context,
            rewrite: matches!(spec.name, "PreToolUse" | "PermissionRequest"),
        }
    }

    /// How an outcome is given.
    pub fn gives(&self, outcome: Outcome) -> Gives {
        match outcome {
            Outcome::Allow => self.allow,
            Outcome::Ask => self.ask,
            Outcome::Deny => self.deny,
            Outcome::Stop => self.stop,
        }
    }
}

/// The decisions, as a host sees them (`block` is `deny`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// `allow`.
    Allow,
    /// `ask`.
    Ask,
    /// `deny` or `block`.
    Deny,
    /// `stop`.
    Stop,
}

impl Adapter {
    /// Its events, as a list (Claude Code's from the contract table).
    pub fn event_list(&self) -> Vec<HostEvent> {
        match self.events {
            Events::Own(list) => list.to_vec(),
            Events::Canonical { registered } => events::EVENTS
                .iter()
                .map(|spec| canonical_event(spec, registered))
                .collect(),
        }
    }

    /// One of its events by its own name (Copilot CLI's are matched without regard to case).
    pub fn event(&self, name: &str) -> Option<HostEvent> {
        match self.events {
            Events::Own(list) => list
                .iter()
                .find(|e| e.name == name)
                .or_else(|| list.iter().find(|e| e.name.eq_ignore_ascii_case(name)))
                .copied(),
            Events::Canonical { registered } => {
                events::spec(name).map(|spec| canonical_event(spec, registered))
            }
        }
    }

    /// What an answer can do on one of its events (an event it does not list: nothing).
    pub fn caps(&self, name: &str) -> Caps {
        self.event(name).map(|e| e.caps).unwrap_or(Caps::NOTHING)
    }

    /// The events `init --host` registers, in order.
    pub fn registered(&self) -> Vec<HostEvent> {
        match self.events {
            Events::Own(list) => list.iter().copied().filter(|e| e.registered).collect(),
            Events::Canonical { registered } => registered
                .iter()
                .filter_map(|n| events::spec(n))
                .map(|spec| canonical_event(spec, registered))
                .collect(),
        }
    }
}

fn canonical_event(spec: &'static events::EventSpec, registered: &[&str]) -> HostEvent {
    HostEvent {
        name: spec.name,
        canonical: spec.name,
        caps: Caps::canonical(spec),
        registered: registered.contains(&spec.name),
    }
}

/// One row of a host's event table.
pub const fn ev(
    name: &'static str,
    canonical: &'static str,
    caps: Caps,
    registered: bool,
) -> HostEvent {
    HostEvent {
        name,
        canonical,
        caps,
        registered,
    }
}
