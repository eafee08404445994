//! How long each event's answer can take, from the commands its policies run,
//! and what that means for the client's timeout: `init` registers each event
//! with a timeout its commands fit in, and `check` warns (HR115) when the
//! registered timeout is shorter.
//!
//! The worst case of an event is the sum of the `timeout_ms` of every `command`
//! fact a rule for the event can compute (each fact once per policy, facts used
//! by other facts' templates included) and of every `run` effect of those rules:
//! facts run one after another before the answer, effects after it, all inside
//! one deadline (see `engine::run`).

use crate::os::env::Env;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::contract::events::EVENTS;
use crate::os::deadline::budget_for_timeout;
use crate::policy::discover::Found;
use crate::policy::syntax::{EffectKind, FactKind};
use crate::policy::{layering, parse};
use crate::validate::model::{Condition, Op, Policy, Rule, Selector};

/// What the commands of one event can take at worst.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Need {
    /// Total, in milliseconds.
    pub ms: u64,
    /// Each command: (`fact NAME` or `rule ID (run)`, its policy, milliseconds).
    pub parts: Vec<(String, String, u64)>,
}

impl Need {
    /// The parts, longest first, for messages (`tests 120 s, build 60 s`).
    pub fn describe(&self) -> String {
        let mut parts = self.parts.clone();
        parts.sort_by_key(|p| std::cmp::Reverse(p.2));
        parts
            .iter()
            .map(|(what, policy, ms)| format!("{what} of {policy} {}", seconds(*ms)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `1.5 s`, `120 s`.
pub fn seconds(ms: u64) -> String {
    if ms.is_multiple_of(1000) {
        format!("{} s", ms / 1000)
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

/// The worst case of every event that some rule's commands make non-zero.
pub fn needs(found: &Found) -> BTreeMap<String, Need> {
    let mut parsed = vec![];
    for s in &found.sources {
        if let Ok(raw) = parse::parse(s) {
            parsed.push((s.clone(), raw));
        }
    }
    // What the policies run once trusted: the registration must fit it then.
    let layered = layering::apply(
        parsed,
        &crate::policy::discover::Trusted::assume_all(),
        &found.managed.pinned_builtin,
    );
    let mut out: BTreeMap<String, Need> = BTreeMap::new();
    for (source, raw) in &layered.policies {
        let v = crate::validate::validate_with(source, raw, &|_| true, false);
        let policy = &v.policy;
        let mut events: BTreeSet<&str> = EVENTS.iter().map(|e| e.name).collect();
        for r in &policy.rules {
            if let crate::validate::model::EventScope::Named(v) = &r.events {
                events.extend(v.iter().map(String::as_str));
            }
        }
        for event in events {
            let rules: Vec<&Rule> = policy
                .rules
                .iter()
                .filter(|r| r.enabled && crate::compile::reach::in_scope(&r.events, event))
                .map(|r| &**r)
                .collect();
            let need = need_of(policy, &rules);
            if need.ms > 0 {
                let e = out.entry(event.to_string()).or_default();
                e.ms += need.ms;
                e.parts.extend(need.parts);
            }
        }
    }
    out
}

fn need_of(policy: &Policy, rules: &[&Rule]) -> Need {
    let mut facts: BTreeSet<String> = BTreeSet::new();
    let mut need = Need::default();
    for r in rules {
        let mut names = vec![];
        for c in r.when.iter().chain(r.unless.iter()) {
            facts_in_condition(c, &mut names);
        }
        for t in r.templates() {
            names.extend(crate::validate::facts_named_in(&t.text));
        }
        for n in names {
            add_fact(policy, &n, &mut facts);
        }
        for e in &r.effects {
            if e.kind == EffectKind::Run {
                need.ms += e.timeout_ms;
                need.parts.push((
                    format!("rule {} (run)", r.id),
                    policy.name.clone(),
                    e.timeout_ms,
                ));
            }
        }
    }
    for name in facts {
        if let Some(f) = policy.facts.get(&name) {
            if f.kind == FactKind::Command {
                need.ms += f.timeout_ms;
                need.parts
                    .push((format!("fact {name}"), policy.name.clone(), f.timeout_ms));
            }
        }
    }
    need
}

/// A fact and the facts its own templates use.
fn add_fact(policy: &Policy, name: &str, seen: &mut BTreeSet<String>) {
    if !seen.insert(name.to_string()) {
        return;
    }
    let Some(f) = policy.facts.get(name) else {
        return;
    };
    let texts = f
        .path
        .iter()
        .chain(f.within.iter())
        .chain(f.argv.iter())
        .chain(f.cwd.iter())
        .map(|t| t.text.clone())
        .collect::<Vec<_>>();
    for t in texts {
        for n in crate::validate::facts_named_in(&t) {
            add_fact(policy, &n, seen);
        }
    }
}

fn facts_in_condition(c: &Condition, out: &mut Vec<String>) {
    match c {
        Condition::All(v) | Condition::Any(v) => v.iter().for_each(|c| facts_in_condition(c, out)),
        Condition::Not(c) => facts_in_condition(c, out),
        Condition::Ref(n) => facts_in_condition(&n.condition, out),
        Condition::Test(t) => {
            if let Selector::Fact { name, .. } = &t.selector {
                out.push(name.clone());
            }
            if let Op::Command(ct) = &t.op {
                if let Some(w) = &ct.when {
                    facts_in_condition(w, out);
                }
            }
        }
    }
}

/// The timeout (whole seconds) to register for an event: `init`'s default for
/// it, or longer when the event's commands need more, so that they fit in the
/// deadline with half a second to spare.
pub fn timeout_to_register(event: &str, need: Option<&Need>) -> u64 {
    let default = crate::contract::events::default_timeout_secs(event);
    let Some(need) = need.filter(|n| n.ms > 0) else {
        return default;
    };
    let want = Duration::from_millis(need.ms + 500);
    (default..=86_400)
        .find(|t| budget_for_timeout(Duration::from_secs(*t)) >= want)
        .unwrap_or(86_400)
}

/// A hookrules handler found in a settings file.
#[derive(Debug, Clone, PartialEq)]
pub struct Registered {
    /// The settings file.
    pub file: PathBuf,
    /// Its timeout, seconds (the client's default, 600, when unset).
    pub timeout: f64,
    /// The timeout `run` works to: its `--timeout`, else the event's default
    /// (never more than `timeout`).
    pub effective: f64,
}

/// The client's default timeout for a command hook (reference §3.1).
pub const CLIENT_DEFAULT_TIMEOUT: f64 = 600.0;

/// Every event's hookrules registration in these settings files (later files
/// win, as the client reads project local after project after user).
pub fn registrations(files: &[PathBuf]) -> BTreeMap<String, Registered> {
    let mut out = BTreeMap::new();
    for file in files {
        let Ok(text) = crate::os::files::read_text(file) else {
            continue;
        };
        let Ok(v) = serde_json::from_str::<Value>(&text) else {
            continue;
        };
        let Some(hooks) = v.get("hooks").and_then(Value::as_object) else {
            continue;
        };
        for (event, groups) in hooks {
            for g in groups.as_array().into_iter().flatten() {
                for h in g
                    .get("hooks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    if crate::contract::hosts::Host::Claude.runs_hookrules(h, None) {
                        let timeout = h
                            .get("timeout")
                            .and_then(Value::as_f64)
                            .unwrap_or(CLIENT_DEFAULT_TIMEOUT);
                        let args: Vec<&str> = h
                            .get("args")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                            .filter_map(Value::as_str)
                            .collect();
                        let flag = args
                            .iter()
                            .position(|a| *a == "--timeout")
                            .and_then(|i| args.get(i + 1))
                            .and_then(|t| t.parse::<f64>().ok());
                        let run_uses = flag
                            .unwrap_or(crate::contract::events::default_timeout_secs(event) as f64);
                        out.insert(
                            event.clone(),
                            Registered {
                                file: file.clone(),
                                timeout,
                                effective: run_uses.min(timeout),
                            },
                        );
                    }
                }
            }
        }
    }
    out
}

/// The settings files a project's hooks come from: the user's, the project's,
/// the project's local one.
pub fn settings_files(project: Option<&Path>, env: &Env) -> Vec<PathBuf> {
    use crate::contract::places;
    // A relative CLAUDE_CONFIG_DIR is taken as it is (from the current folder).
    let mut v: Vec<PathBuf> = places::claude_user_dir(env, Path::new(""))
        .map(|c| c.join("settings.json"))
        .into_iter()
        .collect();
    if let Some(p) = project {
        v.extend(places::claude_settings(env, Path::new(""), p, false));
    }
    v
}
