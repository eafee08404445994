//! `hookrules report`: what hookrules decided, in one screen; `--html FILE` writes
//! one self-contained page with charts (Chart.js, embedded in the page, so it
//! opens with no network): decisions per rule over time, the most blocked
//! commands and paths, hook latency percentiles, audit hits, and seed 001's
//! metrics (tool usage per agent, handoff success rate, quality scores) read from
//! the JSON lines the example policies write.

use crate::os::env::Env;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use crate::log::record::{Kind, Record};
use crate::policy::syntax::DecisionKind;

use super::log::{Paint, Where};

/// Chart.js 4.6.1 (MIT, assets/chart.js/LICENSE.md), embedded in every page.
const CHART_JS: &str = include_str!("../../assets/chart.js/chart.umd.min.js");
const CHART_JS_LICENSE: &str = include_str!("../../assets/chart.js/LICENSE.md");

/// `hookrules report` arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ReportArgs {
    /// Which log.
    #[command(flatten)]
    pub place: Where,
    /// Only the last span of time: 90s, 30m, 2h, 7d (default: everything logged).
    #[arg(long)]
    pub since: Option<String>,
    /// Write a self-contained HTML page with charts here.
    #[arg(long)]
    pub html: Option<PathBuf>,
    /// Folder of metrics JSON lines (default: `.claude-collective/metrics` in the project).
    #[arg(long)]
    pub metrics: Option<PathBuf>,
}

/// Everything the report shows (also the data embedded in the page).
#[derive(Debug, Default, Serialize)]
pub struct Report {
    /// The project.
    pub project: String,
    /// Log path.
    pub log: String,
    /// First and last time covered.
    pub from: String,
    /// Last time.
    pub to: String,
    /// Lines read.
    pub events: usize,
    /// Decision word -> count.
    pub decisions: BTreeMap<String, usize>,
    /// Rule -> count (determining rules).
    pub rules: Vec<(String, usize)>,
    /// Decisions per rule over time.
    pub over_time: OverTime,
    /// Most blocked commands.
    pub blocked_commands: Vec<(String, usize)>,
    /// Most blocked paths (file tools).
    pub blocked_paths: Vec<(String, usize)>,
    /// Latency per event.
    pub latency: Vec<Latency>,
    /// Audit rule -> would-decide count.
    pub audit: Vec<(String, usize)>,
    /// Allow-once grants.
    pub allowed_once: usize,
    /// The policy sets that decided, by hash, in the order first seen.
    pub policy_sets: Vec<PolicySet>,
    /// Forged allowances found and ignored (grants without the user's MAC, or
    /// used ones put back).
    pub forged_allowances: usize,
    /// Tool calls that ran without a PreToolUse answer, per `host event`.
    pub unguarded: Vec<(String, usize)>,
    /// The latest of them (time, host, event, tool, summary), newest last.
    pub unguarded_latest: Vec<[String; 5]>,
    /// Seed 001's metrics.
    pub metrics: Metrics,
}

/// The decisions made under one policy set (one `policy_hash`).
#[derive(Debug, Default, Serialize)]
pub struct PolicySet {
    /// Its SHA-256 (as logged; logs of earlier versions hold a shorter hash).
    pub hash: String,
    /// Its bundles, `name@version`, as the first record under it names them.
    pub bundles: Vec<String>,
    /// The first and last time it decided.
    pub from: String,
    /// Last time.
    pub to: String,
    /// Events logged under it.
    pub events: usize,
    /// Decision word -> count.
    pub decisions: BTreeMap<String, usize>,
}

/// Group records by the policy set that decided them, in the order first seen.
pub fn policy_sets<'a>(records: impl IntoIterator<Item = &'a Record>) -> Vec<PolicySet> {
    let mut sets: Vec<PolicySet> = vec![];
    for x in records {
        let i = match sets.iter().position(|s| s.hash == x.policy_hash) {
            Some(i) => i,
            None => {
                sets.push(PolicySet {
                    hash: x.policy_hash.clone(),
                    bundles: x.bundles.iter().map(|b| b.label()).collect(),
                    from: x.time.clone(),
                    ..PolicySet::default()
                });
                sets.len() - 1
            }
        };
        let s = &mut sets[i];
        s.events += 1;
        s.to = x.time.clone();
        *s.decisions
            .entry(x.decision_word().to_string())
            .or_default() += 1;
    }
    sets
}

/// Buckets of time with a count per rule.
#[derive(Debug, Default, Serialize)]
pub struct OverTime {
    /// Bucket labels.
    pub labels: Vec<String>,
    /// One series per rule (the busiest; the rest as `other`).
    pub series: Vec<(String, Vec<usize>)>,
}

/// Latency percentiles of one event kind, in milliseconds.
#[derive(Debug, Default, Serialize)]
pub struct Latency {
    /// Event (and tool).
    pub event: String,
    /// Samples.
    pub n: usize,
    /// Median.
    pub p50: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Slowest.
    pub max: f64,
}

/// Seed 001's reports, from the metrics files.
#[derive(Debug, Default, Serialize)]
pub struct Metrics {
    /// Where they were read from.
    pub dir: String,
    /// Agents (rows) and tools (columns) with counts.
    pub tool_usage: ToolUsage,
    /// Per agent: completions and those accepted on the first try.
    pub handoff: Vec<(String, usize, usize)>,
    /// Quality scores: count of 0, 1, 2, 3.
    pub quality_dist: [usize; 4],
    /// Per agent: mean score and count.
    pub quality_by_agent: Vec<(String, f64, usize)>,
}

/// Tool calls per agent.
#[derive(Debug, Default, Serialize)]
pub struct ToolUsage {
    /// Agents.
    pub agents: Vec<String>,
    /// Tools.
    pub tools: Vec<String>,
    /// counts[tool][agent].
    pub counts: Vec<Vec<usize>>,
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[i.min(sorted.len() - 1)] as f64 / 1000.0
}

fn top(map: BTreeMap<String, usize>, n: usize) -> Vec<(String, usize)> {
    let mut v: Vec<(String, usize)> = map.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(n);
    v
}

const FILE_TOOLS: &[&str] = &[
    "Read",
    "Write",
    "Edit",
    "MultiEdit",
    "NotebookEdit",
    "Grep",
    "Glob",
];

/// Build the report from log records (oldest first) and a metrics folder.
pub fn build(records: &[Record], metrics_dir: Option<&Path>) -> Report {
    let mut r = Report::default();
    let decided: Vec<&Record> = records.iter().filter(|x| x.kind.answered()).collect();
    r.events = decided.len();
    r.allowed_once = records.iter().filter(|x| x.kind == Kind::Allow).count();
    r.forged_allowances = records
        .iter()
        .filter(|x| {
            x.allow
                .as_ref()
                .is_some_and(|a| a.action == "forged" || a.action == "replayed")
        })
        .count();
    if let (Some(first), Some(last)) = (records.first(), records.last()) {
        r.from = first.time.clone();
        r.to = last.time.clone();
    }
    let mut rules: BTreeMap<String, usize> = BTreeMap::new();
    let mut cmds: BTreeMap<String, usize> = BTreeMap::new();
    let mut paths: BTreeMap<String, usize> = BTreeMap::new();
    let mut audit: BTreeMap<String, usize> = BTreeMap::new();
    let mut lat: BTreeMap<String, Vec<u64>> = BTreeMap::new();
    for x in &decided {
        *r.decisions
            .entry(x.decision_word().to_string())
            .or_default() += 1;
        for rule in &x.rules {
            *rules.entry(rule.clone()).or_default() += 1;
        }
        for a in &x.audit {
            let would = a.decision.map(|d| d.as_str()).unwrap_or("none");
            *audit
                .entry(format!("{} (would {would})", a.rule))
                .or_default() += 1;
        }
        let key = match &x.tool {
            Some(t) => format!("{} {t}", x.event),
            None => x.event.clone(),
        };
        lat.entry(key).or_default().push(x.us);
        let blocked = matches!(
            x.decision,
            Some(DecisionKind::Deny | DecisionKind::Block | DecisionKind::Stop)
        );
        if let (true, Some(s)) = (blocked, &x.summary) {
            let what = crate::log::one_line(s, 80);
            match x.tool.as_deref() {
                Some("Bash") => *cmds.entry(what).or_default() += 1,
                Some(t) if FILE_TOOLS.contains(&t) => *paths.entry(what).or_default() += 1,
                _ => {}
            }
        }
    }
    r.rules = top(rules, 50);
    r.blocked_commands = top(cmds, 12);
    r.blocked_paths = top(paths, 12);
    r.audit = top(audit, 20);
    r.latency = lat
        .into_iter()
        .map(|(event, mut v)| {
            v.sort_unstable();
            Latency {
                n: v.len(),
                p50: percentile(&v, 50.0),
                p90: percentile(&v, 90.0),
                p99: percentile(&v, 99.0),
                max: v.last().copied().unwrap_or(0) as f64 / 1000.0,
                event,
            }
        })
        .collect();
    r.latency.sort_by_key(|l| std::cmp::Reverse(l.n));
    r.over_time = over_time(&decided);
    r.policy_sets = policy_sets(decided.iter().copied());
    let unguarded: Vec<&&Record> = decided
        .iter()
        .filter(|x| x.kind == Kind::Unguarded)
        .collect();
    let mut per: BTreeMap<String, usize> = BTreeMap::new();
    for x in &unguarded {
        let host = if x.host.is_empty() { "?" } else { &x.host };
        *per.entry(format!("{host} {}", x.event)).or_default() += 1;
    }
    r.unguarded = top(per, 20);
    r.unguarded_latest = unguarded
        .iter()
        .rev()
        .take(5)
        .rev()
        .map(|x| {
            [
                x.time.clone(),
                x.host.clone(),
                x.event.clone(),
                x.tool.clone().unwrap_or_default(),
                x.summary.clone().unwrap_or_default(),
            ]
        })
        .collect();
    if let Some(d) = metrics_dir {
        r.metrics = metrics(d);
    }
    r
}

/// Buckets of an hour, or a day when the log spans more than three days.
fn over_time(records: &[&Record]) -> OverTime {
    let with_rules: Vec<&&Record> = records.iter().filter(|x| !x.rules.is_empty()).collect();
    let (Some(first), Some(last)) = (with_rules.first(), with_rules.last()) else {
        return OverTime::default();
    };
    let (a, b) = (first.ms(), last.ms());
    let bucket: i64 = if b - a > 3 * 86_400_000 {
        86_400_000
    } else {
        3_600_000
    };
    let start = a.div_euclid(bucket);
    let n = (b.div_euclid(bucket) - start + 1).clamp(1, 2000) as usize;
    let labels = (0..n)
        .map(|i| {
            let t = crate::log::time::format_ms((start + i as i64) * bucket);
            if bucket == 86_400_000 {
                t[..10].to_string()
            } else {
                format!("{} {}h", &t[5..10], &t[11..13])
            }
        })
        .collect();
    let mut per: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for x in &with_rules {
        let i = ((x.ms().div_euclid(bucket) - start).max(0) as usize).min(n - 1);
        for rule in &x.rules {
            per.entry(rule.clone()).or_insert_with(|| vec![0; n])[i] += 1;
        }
    }
    let mut series: Vec<(String, Vec<usize>)> = per.into_iter().collect();
    series.sort_by_key(|(_, v)| std::cmp::Reverse(v.iter().sum::<usize>()));
    if series.len() > 8 {
        let rest = series.split_off(7);
        let mut other = vec![0; n];
        for (_, v) in rest {
            for (o, c) in other.iter_mut().zip(v) {
                *o += c;
            }
        }
        series.push(("other rules".into(), other));
    }
    OverTime { labels, series }
}

/// JSON lines of a file (lines that do not parse are skipped).
fn jsonl(path: &Path) -> Vec<Value> {
    use std::io::Read;
    let mut bytes = vec![];
    match crate::log::store::open_for_reading(path) {
        Ok(mut f) => {
            if f.read_to_end(&mut bytes).is_err() {
                return vec![];
            }
        }
        Err(_) => return vec![],
    }
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn truthy(v: Option<&Value>) -> bool {
    match v {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s == "true" || s == "True",
        _ => false,
    }
}

/// Seed 001's reports from `tool-usage.jsonl` (one line per tool call: `agent`,
/// `tool`) and `handoff-quality.jsonl` (one line per agent completion: `agent`,
/// `score` 0-3, `retry`).
pub fn metrics(dir: &Path) -> Metrics {
    let mut m = Metrics {
        dir: dir.display().to_string(),
        ..Metrics::default()
    };
    let mut usage: BTreeMap<(String, String), usize> = BTreeMap::new();
    for v in jsonl(&dir.join("tool-usage.jsonl")) {
        let agent = v.get("agent").and_then(Value::as_str).unwrap_or("main");
        let Some(tool) = v.get("tool").and_then(Value::as_str) else {
            continue;
        };
        *usage
            .entry((agent.to_string(), tool.to_string()))
            .or_default() += 1;
    }
    let agents: Vec<String> = usage
        .keys()
        .map(|(a, _)| a.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let tools: Vec<String> = usage
        .keys()
        .map(|(_, t)| t.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    m.tool_usage.counts = tools
        .iter()
        .map(|t| {
            agents
                .iter()
                .map(|a| usage.get(&(a.clone(), t.clone())).copied().unwrap_or(0))
                .collect()
        })
        .collect();
    m.tool_usage.agents = agents;
    m.tool_usage.tools = tools;
    let mut handoff: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut scores: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    for v in jsonl(&dir.join("handoff-quality.jsonl")) {
        let agent = v
            .get("agent")
            .and_then(Value::as_str)
            .unwrap_or("general-purpose")
            .to_string();
        let e = handoff.entry(agent.clone()).or_default();
        e.0 += 1;
        if !truthy(v.get("retry")) {
            e.1 += 1;
        }
        let score = match v.get("score") {
            Some(Value::Number(n)) => n.as_f64(),
            Some(Value::String(s)) => s.parse().ok(),
            _ => None,
        };
        if let Some(s) = score.filter(|s| (0.0..=3.0).contains(s)) {
            m.quality_dist[s as usize] += 1;
            let q = scores.entry(agent).or_default();
            q.0 += s;
            q.1 += 1;
        }
    }
    m.handoff = handoff.into_iter().map(|(a, (n, ok))| (a, n, ok)).collect();
    m.quality_by_agent = scores
        .into_iter()
        .map(|(a, (sum, n))| (a, sum / n as f64, n))
        .collect();
    m
}

/// The terminal summary.
pub fn summary(r: &Report, paint: Paint) -> String {
    let mut s = String::new();
    let h = |t: &str| paint.paint("1", t);
    s.push_str(&format!(
        "{} {} event(s) logged, {} → {}\n",
        h("hookrules report:"),
        r.events,
        r.from.get(..19).unwrap_or(&r.from).replace('T', " "),
        r.to.get(..19).unwrap_or(&r.to).replace('T', " ")
    ));
    let ds: Vec<String> = r
        .decisions
        .iter()
        .map(|(k, n)| format!("{} {n}", paint.decision(k, k)))
        .collect();
    s.push_str(&format!("decisions   {}\n", ds.join(" · ")));
    if r.allowed_once > 0 {
        s.push_str(&format!("allow-once  {} granted\n", r.allowed_once));
    }
    if r.forged_allowances > 0 {
        s.push_str(&format!(
            "forgeries   {} allowance(s) not granted by you were ignored (`hookrules doctor` lists them)\n",
            r.forged_allowances
        ));
    }
    let list = |s: &mut String, title: &str, v: &[(String, usize)], n: usize| {
        if v.is_empty() {
            return;
        }
        s.push_str(&format!("\n{}\n", h(title)));
        for (what, c) in v.iter().take(n) {
            s.push_str(&format!("  {c:>6}  {what}\n"));
        }
    };
    if !r.policy_sets.is_empty() {
        s.push_str(&format!(
            "\n{}\n",
            h("policy sets (by hash, in the order first seen)")
        ));
        for p in &r.policy_sets {
            s.push_str(&policy_set_line(p));
        }
    }
    if !r.unguarded.is_empty() {
        let n: usize = r.unguarded.iter().map(|(_, n)| n).sum();
        s.push_str(&format!(
            "\n{}\n",
            paint.paint(
                "31;1",
                &format!(
                    "unguarded tool calls: {n} ran with no PreToolUse answer for their tool_use_id"
                )
            )
        ));
        for (what, c) in &r.unguarded {
            s.push_str(&format!("  {c:>6}  {what}\n"));
        }
        for [time, _, event, tool, what] in &r.unguarded_latest {
            s.push_str(&format!(
                "          {}  {event} {tool}  {}\n",
                time.get(..19).unwrap_or(time).replace('T', " "),
                crate::log::one_line(what, 60)
            ));
        }
    }
    list(&mut s, "rules that decided most", &r.rules, 10);
    list(&mut s, "most blocked commands", &r.blocked_commands, 8);
    list(&mut s, "most blocked paths", &r.blocked_paths, 8);
    list(&mut s, "audit rules (would have decided)", &r.audit, 10);
    if !r.latency.is_empty() {
        s.push_str(&format!(
            "\n{}\n  {:<28} {:>6} {:>8} {:>8} {:>8} {:>8}\n",
            h("hook latency (ms, start to answer)"),
            "event",
            "n",
            "p50",
            "p90",
            "p99",
            "max"
        ));
        for l in &r.latency {
            s.push_str(&format!(
                "  {:<28} {:>6} {:>8.2} {:>8.2} {:>8.2} {:>8.2}\n",
                crate::log::one_line(&l.event, 28),
                l.n,
                l.p50,
                l.p90,
                l.p99,
                l.max
            ));
        }
    }
    let m = &r.metrics;
    if !m.tool_usage.agents.is_empty() || !m.handoff.is_empty() {
        s.push_str(&format!("\n{} ({})\n", h("agent metrics"), m.dir));
        for (ai, a) in m.tool_usage.agents.iter().enumerate() {
            let mut per: Vec<(usize, &String)> = m
                .tool_usage
                .tools
                .iter()
                .enumerate()
                .map(|(ti, t)| (m.tool_usage.counts[ti][ai], t))
                .filter(|(c, _)| *c > 0)
                .collect();
            per.sort_by_key(|x| std::cmp::Reverse(x.0));
            let text: Vec<String> = per.iter().map(|(c, t)| format!("{t} {c}")).collect();
            s.push_str(&format!("  tools of {a:<22} {}\n", text.join(", ")));
        }
        for (a, n, ok) in &m.handoff {
            s.push_str(&format!(
                "  handoffs of {a:<19} {ok}/{n} accepted first time ({:.0}%)\n",
                100.0 * *ok as f64 / (*n).max(1) as f64
            ));
        }
        for (a, mean, n) in &m.quality_by_agent {
            s.push_str(&format!("  quality of {a:<20} {mean:.2} / 3 over {n}\n"));
        }
    }
    if !r.log.is_empty() {
        s.push_str(&format!("\nlog: {}\n", r.log));
    }
    s
}

/// One policy set on the terminal: hash, span of time, counts, bundles.
fn policy_set_line(p: &PolicySet) -> String {
    let when = |t: &str| t.get(..16).unwrap_or(t).replace('T', " ");
    let ds: Vec<String> = p
        .decisions
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect();
    let hash = if p.hash.is_empty() {
        "(no hash)"
    } else {
        crate::compile::provenance::Provenance::short(&p.hash)
    };
    let mut line = format!(
        "  {hash:<12}  {} → {}  {:>6} event(s)  {}\n",
        when(&p.from),
        when(&p.to),
        p.events,
        ds.join(" · ")
    );
    if !p.bundles.is_empty() {
        line.push_str(&format!(
            "                bundles: {}\n",
            p.bundles.join(", ")
        ));
    }
    line
}

/// Escape text for HTML.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page: the data as JSON, Chart.js inline, and the script that draws each
/// chart and records, on `<body>`, which charts drew and any script error (the
/// browser test reads them).
pub fn html(r: &Report) -> String {
    // `</` cannot appear inside the script's JSON.
    let data = serde_json::to_string(r)
        .unwrap_or_default()
        .replace("</", "<\\/");
    let total: usize = r.decisions.values().sum();
    let denied = ["deny", "block", "stop"]
        .iter()
        .map(|k| r.decisions.get(*k).copied().unwrap_or(0))
        .sum::<usize>();
    let asked = r.decisions.get("ask").copied().unwrap_or(0);
    let audits: usize = r.audit.iter().map(|(_, n)| n).sum();
    let p50 = r.latency.first().map(|l| l.p50).unwrap_or(0.0);
    let license = esc(CHART_JS_LICENSE);
    let all = panels(r);
    let shown: Vec<String> = all.iter().filter(|p| p.has_data).map(section).collect();
    let hidden: Vec<&Panel> = all.iter().filter(|p| !p.has_data).collect();
    format!(
        r##"<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hookrules report · {project}</title>
<style>
body {{ font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; background: #f6f7f9; color: #1d2330; }}
header {{ background: #1d2330; color: #fff; padding: 18px 28px; }}
header h1 {{ margin: 0 0 4px; font-size: 20px; }}
header p {{ margin: 0; opacity: .75; font-size: 13px; }}
main {{ padding: 20px 28px; display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 18px; }}
.tiles {{ grid-column: 1 / -1; display: flex; gap: 14px; flex-wrap: wrap; }}
.tile {{ background: #fff; border-radius: 8px; padding: 12px 18px; box-shadow: 0 1px 2px #0002; min-width: 120px; }}
.tile b {{ display: block; font-size: 24px; }}
.tile span {{ color: #5b6475; font-size: 12px; }}
section {{ background: #fff; border-radius: 8px; padding: 14px 18px; box-shadow: 0 1px 2px #0002; }}
section.wide {{ grid-column: 1 / -1; }}
section h2 {{ font-size: 15px; margin: 0 0 8px; }}
.chart {{ position: relative; height: 300px; }}
.about {{ color: #5b6475; font-size: 12.5px; margin: 0 0 10px; }}
.hidden-note {{ grid-column: 1 / -1; color: #5b6475; font-size: 13px; margin: 0; }}
footer {{ padding: 8px 28px 24px; color: #8a93a3; font-size: 12px; }}
footer details pre {{ white-space: pre-wrap; }}
</style></head>
<body data-status="loading">
<header><h1>hookrules report</h1>
<p>{project} · {from} → {to} · log {log}</p></header>
<main>
<div class="tiles">
<div class="tile"><b>{total}</b><span>events logged</span></div>
<div class="tile"><b style="color:#c62828">{denied}</b><span>denied or blocked</span></div>
<div class="tile"><b style="color:#b7791f">{asked}</b><span>asked</span></div>
<div class="tile"><b style="color:#7b3fa0">{audits}</b><span>audit hits (would decide)</span></div>
<div class="tile"><b>{allowed}</b><span>allowed once</span></div>
<div class="tile"><b>{p50:.1} ms</b><span>median time to answer (busiest event)</span></div>
</div>
{panels}
{hidden}</main>
<footer>Generated by hookrules {version}. Charts drawn with Chart.js 4.6.1, embedded in this page (no network needed).
<details><summary>Chart.js licence</summary><pre>{license}</pre></details></footer>
<script>
window.__errors = [];
window.addEventListener("error", function (e) {{ window.__errors.push(String(e.message || e)); }});
</script>
<script>{chartjs}</script>
<script id="report-data" type="application/json">{data}</script>
<script>
(function () {{
  var R = JSON.parse(document.getElementById("report-data").textContent);
  var palette = ["#c62828", "#1565c0", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#546e7a", "#9e9d24"];
  var drawn = {{}};
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  function chart(id, config) {{
    var box = document.getElementById(id);
    if (!box) {{
      drawn[id] = "hidden";
      return;
    }}
    try {{
      var canvas = document.createElement("canvas");
      box.appendChild(canvas);
      new Chart(canvas, config);
      var ctx = canvas.getContext("2d");
      var px = ctx.getImageData(0, 0, canvas.width, canvas.height).data, ink = 0;
      for (var i = 3; i < px.length; i += 4) if (px[i] > 0) ink++;
      drawn[id] = ink;
    }} catch (e) {{
      window.__errors.push(id + ": " + e);
      drawn[id] = "error";
    }}
  }}
  function bars(pairs, label, color) {{
    return {{ type: "bar", data: {{ labels: pairs.map(function (p) {{ return p[0]; }}),
      datasets: [{{ label: label, data: pairs.map(function (p) {{ return p[1]; }}), backgroundColor: color }}] }},
      options: {{ indexAxis: "y", plugins: {{ legend: {{ display: false }} }},
        scales: {{ y: {{ ticks: {{ callback: function (v) {{ var t = this.getLabelForValue(v); return t.length > 48 ? t.slice(0, 47) + "…" : t; }} }} }} }} }} }};
  }}
  var ot = R.over_time;
  chart("over-time", {{ type: "bar", data: {{ labels: ot.labels,
    datasets: ot.series.map(function (s, i) {{ return {{ label: s[0], data: s[1], backgroundColor: palette[i % palette.length] }}; }}) }},
    options: {{ scales: {{ x: {{ stacked: true }}, y: {{ stacked: true, beginAtZero: true, title: {{ display: true, text: "decisions" }} }} }} }} }});
  chart("blocked-commands", bars(R.blocked_commands, "blocked", "#c62828"));
  chart("blocked-paths", bars(R.blocked_paths, "blocked", "#ad1457"));
  var lat = R.latency.slice(0, 10);
  chart("latency", {{ type: "bar", data: {{ labels: lat.map(function (l) {{ return l.event + " (n=" + l.n + ")"; }}),
    datasets: [["p50", "#2e7d32"], ["p90", "#ef6c00"], ["p99", "#c62828"]].map(function (p) {{
      return {{ label: p[0], data: lat.map(function (l) {{ return l[p[0]]; }}), backgroundColor: p[1] }}; }}) }},
    options: {{ scales: {{ y: {{ beginAtZero: true, title: {{ display: true, text: "ms" }} }} }} }} }});
  chart("audit", bars(R.audit, "would decide", "#7b3fa0"));
  var tu = R.metrics.tool_usage;
  chart("tool-usage", {{ type: "bar", data: {{ labels: tu.agents,
    datasets: tu.tools.map(function (t, i) {{ return {{ label: t, data: tu.counts[i], backgroundColor: palette[i % palette.length] }}; }}) }},
    options: {{ scales: {{ x: {{ stacked: true }}, y: {{ stacked: true, beginAtZero: true, title: {{ display: true, text: "tool calls" }} }} }} }} }});
  var ho = R.metrics.handoff;
  chart("handoff", {{ type: "bar", data: {{ labels: ho.map(function (h) {{ return h[0] + " (" + h[2] + "/" + h[1] + ")"; }}),
    datasets: [{{ label: "% accepted first time", data: ho.map(function (h) {{ return Math.round(1000 * h[2] / Math.max(1, h[1])) / 10; }}), backgroundColor: "#1565c0" }}] }},
    options: {{ plugins: {{ legend: {{ display: false }} }}, scales: {{ y: {{ min: 0, max: 100, title: {{ display: true, text: "%" }} }} }} }} }});
  var q = R.metrics;
  chart("quality", {{ type: "bar", data: {{ labels: ["0", "1", "2", "3"],
    datasets: [{{ label: "completions with this score", data: q.quality_dist, backgroundColor: ["#c62828", "#ef6c00", "#9e9d24", "#2e7d32"] }}] }},
    options: {{ plugins: {{ legend: {{ display: false }}, subtitle: {{ display: q.quality_by_agent.length > 0, text: q.quality_by_agent.map(function (a) {{ return a[0] + ": " + a[1].toFixed(2); }}).join(" · ") }} }},
      scales: {{ x: {{ title: {{ display: true, text: "score" }} }}, y: {{ beginAtZero: true }} }} }} }});
  document.body.dataset.charts = JSON.stringify(drawn);
  document.body.dataset.errors = JSON.stringify(window.__errors);
  document.body.dataset.status = window.__errors.length ? "errors" : "ok";
}})();
</script>
</body></html>
"##,
        project = esc(&r.project),
        from = esc(r.from.get(..19).unwrap_or(&r.from)),
        to = esc(r.to.get(..19).unwrap_or(&r.to)),
        log = esc(&r.log),
        allowed = r.allowed_once,
        version = env!("CARGO_PKG_VERSION"),
        chartjs = CHART_JS,
        panels = shown.join("\n"),
        hidden = hidden_note(&hidden),
    )
}

/// One chart of the page: shown only when the log (or the metrics) hold data
/// for it, with a sentence in plain words that says what it counts.
struct Panel {
    /// The element the script draws into.
    id: &'static str,
    /// The heading.
    title: &'static str,
    /// What it counts, and where the numbers come from.
    about: &'static str,
    /// Why it is not shown, when there is nothing to show.
    absent: &'static str,
    /// Does it span the page's width?
    wide: bool,
    /// Is there anything to draw?
    has_data: bool,
}

/// Every panel of the page, in order.
fn panels(r: &Report) -> Vec<Panel> {
    let m = &r.metrics;
    vec![
        Panel {
            id: "over-time",
            title: "Decisions per rule over time",
            about: "How many events each rule decided (denied, asked, blocked, allowed, …), per hour, or per day for logs longer than three days.",
            absent: "no rule decided anything",
            wide: true,
            has_data: !r.over_time.series.is_empty(),
        },
        Panel {
            id: "blocked-commands",
            title: "Most blocked commands",
            about: "The shell commands that were denied or blocked most often.",
            absent: "no command was blocked",
            wide: false,
            has_data: !r.blocked_commands.is_empty(),
        },
        Panel {
            id: "blocked-paths",
            title: "Most blocked paths",
            about: "The files whose reading or writing was denied most often.",
            absent: "no file was blocked",
            wide: false,
            has_data: !r.blocked_paths.is_empty(),
        },
        Panel {
            id: "latency",
            title: "How fast hookrules answered (ms)",
            about: "From the moment the whole event was read to the answer, per event kind: half of the answers came faster than the p50 bar, 9 in 10 faster than p90, 99 in 100 faster than p99.",
            absent: "no event was logged",
            wide: false,
            has_data: !r.latency.is_empty(),
        },
        Panel {
            id: "audit",
            title: "Rules on trial (audit mode)",
            about: "Rules in audit mode decide nothing; these counts are what they would have decided had they been enforced.",
            absent: "no rule in audit mode fired",
            wide: false,
            has_data: !r.audit.is_empty(),
        },
        Panel {
            id: "tool-usage",
            title: "Tool calls per agent",
            about: "Which tools the main session and each subagent used, counted from tool-usage.jsonl in the metrics folder: example 001's tool-metrics rule adds a line after every tool call.",
            absent: "no tool-usage.jsonl in the metrics folder (example 001's tool-metrics rule writes it)",
            wide: false,
            has_data: !m.tool_usage.agents.is_empty(),
        },
        Panel {
            id: "handoff",
            title: "Finished work accepted the first time",
            about: "For each agent, the share of its finished tasks that got through the completion check without being sent back first (handoff-quality.jsonl, written by example 000's quality-score rule; a retry is a finish after being sent back).",
            absent: "no handoff-quality.jsonl in the metrics folder (example 000's quality-score rule writes it)",
            wide: false,
            has_data: !m.handoff.is_empty(),
        },
        Panel {
            id: "quality",
            title: "Quality of agents' reports (0-3)",
            about: "Each finished agent's report scores one point for each of documentation, error handling and tests that it mentions (a keyword check by example 000's quality-score rule, not a review).",
            absent: "no scores in handoff-quality.jsonl",
            wide: false,
            has_data: m.quality_dist.iter().any(|n| *n > 0),
        },
    ]
}

/// The section of a panel that has data.
fn section(p: &Panel) -> String {
    format!(
        r#"<section{class}><h2>{title}</h2><p class="about">{about}</p><div class="chart" id="{id}"></div></section>"#,
        class = if p.wide { r#" class="wide""# } else { "" },
        title = esc(p.title),
        about = esc(p.about),
        id = p.id,
    )
}

/// One line naming the panels left out, and why.
fn hidden_note(hidden: &[&Panel]) -> String {
    if hidden.is_empty() {
        return String::new();
    }
    let items: Vec<String> = hidden
        .iter()
        .map(|p| format!("{} ({})", esc(p.title), esc(p.absent)))
        .collect();
    format!(
        r#"<p class="hidden-note" id="hidden-panels">Not shown, nothing to draw: {}.</p>"#,
        items.join("; ")
    )
}

/// `hookrules report`.
pub fn run(
    args: &ReportArgs,
    env: &Env,
    paint: Paint,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let filters = super::log::Filters {
        since: args.since.as_deref(),
        ..Default::default()
    };
    let (located, records, filter) =
        match super::log::open("report", &args.place, &filters, env, err) {
            Ok(opened) => opened,
            Err(status) => return status,
        };
    let picked: Vec<Record> = records.into_iter().filter(|r| filter.accepts(r)).collect();
    let metrics_dir = args
        .metrics
        .clone()
        .unwrap_or_else(|| located.project.join(".claude-collective/metrics"));
    let mut report = build(
        &picked,
        metrics_dir.is_dir().then_some(metrics_dir.as_path()),
    );
    report.project = located.project.display().to_string();
    report.log = located.path.display().to_string();
    let _ = write!(out, "{}", summary(&report, paint));
    if let Some(path) = &args.html {
        if let Err(e) = crate::os::files::write_atomic(path, html(&report).as_bytes()) {
            let _ = writeln!(
                err,
                "hookrules report: cannot write {}: {e}",
                path.display()
            );
            return 2;
        }
        let _ = writeln!(out, "wrote {}", path.display());
    }
    0
}
