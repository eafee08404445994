//! `hookrules replay [LOG]`: re-evaluate logged events under the current
//! policies and show what would change, with counts per rule. The safe way to
//! edit a policy: replay last week, read what moves, then commit.
//!
//! Events are evaluated exactly as `explain` does (facts are looked up as they
//! are now; side effects are not run), each with its own project directory and
//! its logged time as the clock. Events that were logged cut or redacted are
//! replayed as logged and counted apart, since their verdict may differ.

use crate::os::env::Env;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

use crate::contract::Event;
use crate::decision::{strictness, Decision};
use crate::engine::{self, Set, World};
use crate::eval::trace::NoTrace;
use crate::log::record::Record;
use crate::os::clock::Now;

use super::log::{Paint, Where};

/// What moved.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, clap::ValueEnum, serde::Serialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Change {
    /// A stricter decision then than now (was deny, now allow or none).
    Loosened,
    /// A stricter decision now (a new rule fires, or ask became deny).
    Tightened,
    /// The same decision, by other rules.
    Rules,
    /// What audit rules would decide changed.
    Audit,
}

impl Change {
    fn word(self) -> &'static str {
        match self {
            Change::Loosened => "loosened",
            Change::Tightened => "tightened",
            Change::Rules => "rules changed",
            Change::Audit => "audit changed",
        }
    }
}

/// `hookrules replay` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ReplayArgs {
    /// A log folder or file (default: the project's log).
    pub log: Option<PathBuf>,
    /// Policy files or folders to replay under (default: the current project's).
    #[arg(long = "policies", short = 'p')]
    pub policies: Vec<PathBuf>,
    /// Only the last span of time: 90s, 30m, 2h, 7d.
    #[arg(long)]
    pub since: Option<String>,
    /// Exit 1 when a change of this kind is found (repeatable, or comma-separated).
    #[arg(long = "fail-on", value_enum, value_delimiter = ',')]
    pub fail_on: Vec<Change>,
    /// List at most this many changed events (the counts cover all).
    #[arg(long, default_value_t = 30)]
    pub show: usize,
    /// One JSON object: counts, per rule, and every change.
    #[arg(long)]
    pub json: bool,
}

/// One changed event.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Changed {
    /// What moved.
    pub change: Change,
    /// When it was logged.
    pub time: String,
    /// Event and tool.
    pub event: String,
    /// The short form of the call.
    pub summary: String,
    /// The logged decision.
    pub was: String,
    /// The logged determining rules.
    pub was_rules: Vec<String>,
    /// The decision now.
    pub now: String,
    /// The determining rules now.
    pub now_rules: Vec<String>,
    /// The event was logged cut or redacted.
    pub approximate: bool,
}

/// The result of a replay.
#[derive(Debug, Default, serde::Serialize)]
pub struct Replay {
    /// The hash of the policy set replayed under (the current policies).
    pub policy_hash: String,
    /// Events replayed.
    pub replayed: usize,
    /// Of which unchanged.
    pub unchanged: usize,
    /// Counts per kind of change.
    pub counts: BTreeMap<String, usize>,
    /// Per rule: kind of change -> count (the rule that stopped or started deciding).
    pub per_rule: BTreeMap<String, BTreeMap<String, usize>>,
    /// Logged without the event (nothing to replay).
    pub skipped: usize,
    /// Replayed from a cut or redacted event.
    pub approximate: usize,
    /// The changes, oldest first.
    pub changes: Vec<Changed>,
    /// The same counts per policy set that made the logged decisions (by its
    /// hash, in the order first seen): what moves since each rollout.
    pub per_policy_set: Vec<ReplaySet>,
}

/// What replay found for the events one policy set decided.
#[derive(Debug, Default, serde::Serialize)]
pub struct ReplaySet {
    /// The logged `policy_hash`.
    pub hash: String,
    /// Its bundles, `name@version`.
    pub bundles: Vec<String>,
    /// Events replayed.
    pub replayed: usize,
    /// Of which unchanged.
    pub unchanged: usize,
    /// Counts per kind of change.
    pub counts: BTreeMap<String, usize>,
}

impl Replay {
    /// The entry of the policy set that logged `r`.
    fn set_of(&mut self, r: &Record) -> &mut ReplaySet {
        let i = match self
            .per_policy_set
            .iter()
            .position(|s| s.hash == r.policy_hash)
        {
            Some(i) => i,
            None => {
                self.per_policy_set.push(ReplaySet {
                    hash: r.policy_hash.clone(),
                    bundles: r.bundles.iter().map(|b| b.label()).collect(),
                    ..ReplaySet::default()
                });
                self.per_policy_set.len() - 1
            }
        };
        &mut self.per_policy_set[i]
    }
}

fn approximate(v: &serde_json::Value) -> bool {
    let t = v.to_string();
    t.contains(crate::log::redact::REDACTED)
        || t.contains(" more bytes cut]")
        || t.contains("\"omitted\"")
}

/// Decide one logged event under the given policies, in the project it was
/// evaluated in and at the time it was logged.
fn decide(set: &Set, r: &Record, env: &Env) -> Option<Decision> {
    let input = r.input.clone()?;
    let event = Event::from_value(input).ok()?;
    let mut env = env.clone();
    if !r.project.is_empty() {
        env.set("CLAUDE_PROJECT_DIR", r.project.clone());
    }
    let now = Now::at(r.ms().div_euclid(1000)).with_tz(env.get("TZ").as_deref());
    Some(engine::judge(set, &event, World::new(&env, now), &mut NoTrace).decision)
}

/// Compare a logged record with a decision now.
fn compare(r: &Record, d: &Decision) -> Option<Change> {
    let (was, now) = (strictness(r.decision), strictness(d.kind));
    if now < was {
        return Some(Change::Loosened);
    }
    if now > was {
        return Some(Change::Tightened);
    }
    let mut a = r.rules.clone();
    let mut b = d.determined_by.clone();
    a.sort();
    b.sort();
    if a != b {
        return Some(Change::Rules);
    }
    let key = |x: &crate::decision::AuditHit| (x.rule.clone(), x.decision);
    let mut a: Vec<_> = r.audit.iter().map(key).collect();
    let mut b: Vec<_> = d.audit.iter().map(key).collect();
    a.sort();
    b.sort();
    (a != b).then_some(Change::Audit)
}

/// Replay records under the policies found.
pub fn replay(records: &[Record], found: &crate::policy::discover::Found, env: &Env) -> Replay {
    let set = Set::from_found(found);
    let mut out = Replay {
        policy_hash: set.provenance().hash.clone(),
        ..Replay::default()
    };
    for r in records.iter().filter(|r| r.kind.answered()) {
        let Some(d) = decide(&set, r, env) else {
            out.skipped += 1;
            continue;
        };
        out.replayed += 1;
        out.set_of(r).replayed += 1;
        let approx = r.input.as_ref().is_some_and(approximate);
        if approx {
            out.approximate += 1;
        }
        let Some(change) = compare(r, &d) else {
            out.unchanged += 1;
            out.set_of(r).unchanged += 1;
            continue;
        };
        *out.counts.entry(change.word().to_string()).or_default() += 1;
        *out.set_of(r)
            .counts
            .entry(change.word().to_string())
            .or_default() += 1;
        // The rules a change is charged to: those that stopped deciding (loosened),
        // started (tightened), either (rules), or audit rules that moved.
        let rules: Vec<String> = match change {
            Change::Loosened => r.rules.clone(),
            Change::Tightened => d.determined_by.clone(),
            Change::Rules => r
                .rules
                .iter()
                .filter(|x| !d.determined_by.contains(x))
                .chain(d.determined_by.iter().filter(|x| !r.rules.contains(x)))
                .cloned()
                .collect(),
            Change::Audit => r
                .audit
                .iter()
                .map(|a| a.rule.clone())
                .chain(d.audit.iter().map(|a| a.rule.clone()))
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect(),
        };
        for rule in rules {
            *out.per_rule
                .entry(rule)
                .or_default()
                .entry(change.word().to_string())
                .or_default() += 1;
        }
        out.changes.push(Changed {
            change,
            time: r.time.clone(),
            event: match &r.tool {
                Some(t) => format!("{} {t}", r.event),
                None => r.event.clone(),
            },
            summary: r.summary.clone().unwrap_or_default(),
            was: r.decision_word().to_string(),
            was_rules: r.rules.clone(),
            now: d.kind.map(|k| k.as_str()).unwrap_or("none").to_string(),
            now_rules: d.determined_by.clone(),
            approximate: approx,
        });
    }
    out
}

/// `hookrules replay`.
pub fn run(
    args: &ReplayArgs,
    env: &Env,
    paint: Paint,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let place = Where {
        log: args.log.clone(),
        policies: args.policies.clone(),
    };
    let filters = super::log::Filters {
        since: args.since.as_deref(),
        ..Default::default()
    };
    let (located, records, filter) = match super::log::open("replay", &place, &filters, env, err) {
        Ok(opened) => opened,
        Err(status) => return status,
    };
    let picked: Vec<Record> = records.into_iter().filter(|r| filter.accepts(r)).collect();
    let result = replay(&picked, &located.found, env);
    let failed = result
        .changes
        .iter()
        .any(|c| args.fail_on.contains(&c.change));
    if args.json {
        let _ = writeln!(
            out,
            "{}",
            serde_json::to_string_pretty(&result).unwrap_or_default()
        );
    } else {
        let _ = write!(out, "{}", render(&result, &located.path, args.show, paint));
        if failed {
            let names: Vec<&str> = args.fail_on.iter().map(|c| c.word()).collect();
            let _ = writeln!(
                out,
                "\nfailing: a change of a kind named by --fail-on ({})",
                names.join(", ")
            );
        }
    }
    i32::from(failed)
}

/// The human form.
pub fn render(r: &Replay, path: &std::path::Path, show: usize, paint: Paint) -> String {
    let mut s = format!(
        "replayed {} logged event(s) from {} under the current policies (policy set {})\n",
        r.replayed,
        path.display(),
        crate::compile::provenance::Provenance::short(&r.policy_hash)
    );
    s.push_str(&format!("  unchanged      {:>6}\n", r.unchanged));
    for c in [
        Change::Loosened,
        Change::Tightened,
        Change::Rules,
        Change::Audit,
    ] {
        let n = r.counts.get(c.word()).copied().unwrap_or(0);
        let line = format!("  {:<14} {:>6}\n", c.word(), n);
        s.push_str(&if n > 0 && c == Change::Loosened {
            paint.paint("31;1", &line)
        } else {
            line
        });
    }
    if r.skipped > 0 {
        s.push_str(&format!(
            "  ({} logged without the event: not replayed)\n",
            r.skipped
        ));
    }
    if r.approximate > 0 {
        s.push_str(&format!(
            "  ({} logged cut or redacted: replayed as logged, marked ~)\n",
            r.approximate
        ));
    }
    if r.per_policy_set.len() > 1 {
        s.push_str("\nper policy set that logged them (by hash, in the order first seen)\n");
        for p in &r.per_policy_set {
            let moved: Vec<String> = p.counts.iter().map(|(k, n)| format!("{k} {n}")).collect();
            s.push_str(&format!(
                "  {:<12}  {:>6} replayed, {:>6} unchanged{}{}\n",
                if p.hash.is_empty() {
                    "(no hash)"
                } else {
                    crate::compile::provenance::Provenance::short(&p.hash)
                },
                p.replayed,
                p.unchanged,
                if moved.is_empty() {
                    String::new()
                } else {
                    format!(", {}", moved.join(", "))
                },
                if p.bundles.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", p.bundles.join(", "))
                },
            ));
        }
    }
    if !r.per_rule.is_empty() {
        s.push_str("\nper rule\n");
        for (rule, kinds) in &r.per_rule {
            let what: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
            s.push_str(&format!("  {rule:<32} {}\n", what.join(", ")));
        }
    }
    if !r.changes.is_empty() {
        s.push_str("\nchanges (oldest first)\n");
        for c in r.changes.iter().take(show) {
            let rules = |v: &Vec<String>| {
                if v.is_empty() {
                    "-".to_string()
                } else {
                    v.join(",")
                }
            };
            s.push_str(&format!(
                "  {}{} {:<10} {:<5} -> {:<5} {} -> {}  {}\n",
                if c.approximate { "~" } else { " " },
                c.time.get(..19).unwrap_or(&c.time).replace('T', " "),
                crate::log::one_line(&c.event, 22),
                c.was,
                c.now,
                rules(&c.was_rules),
                rules(&c.now_rules),
                crate::log::one_line(&c.summary, 60),
            ));
        }
        if r.changes.len() > show {
            s.push_str(&format!(
                "  … and {} more (--show N, or --json)\n",
                r.changes.len() - show
            ));
        }
    }
    s
}
