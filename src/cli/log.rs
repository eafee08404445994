//! `hookrules log`: the recent decisions as a table (or JSON lines), newest last.
//! Also where the log of a project is, for `replay`, `report` and `allow`.

use crate::os::env::Env;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::log::record::{Kind, Record};
use crate::log::settings::{self, Settings};
use crate::log::{store, time};
use crate::policy::discover::Found;

/// Which log to read.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct Where {
    /// The log folder or one log file (default: the project's, see README "Decision log").
    #[arg(long = "log", value_name = "PATH")]
    pub log: Option<PathBuf>,
    /// Policy files or folders (their `[log]` settings say where the log is).
    #[arg(long = "policies", short = 'p')]
    pub policies: Vec<PathBuf>,
}

/// Filters of `hookrules log`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct LogArgs {
    /// Which log.
    #[command(flatten)]
    pub place: Where,
    /// Only the last span of time: 90s, 30m, 2h, 7d, 1w.
    #[arg(long)]
    pub since: Option<String>,
    /// Only this decision: deny, ask, allow, block, stop, none; or `audit` (audit hits),
    /// `unguarded` (tool calls that ran without a PreToolUse answer).
    #[arg(long)]
    pub decision: Option<String>,
    /// Only lines where this rule (an id or a glob) decided or audited.
    #[arg(long)]
    pub rule: Option<String>,
    /// Only this session (a prefix is enough).
    #[arg(long)]
    pub session: Option<String>,
    /// At most this many lines (the newest).
    #[arg(long, short = 'n', default_value_t = 50)]
    pub limit: usize,
    /// JSON lines, as stored.
    #[arg(long)]
    pub json: bool,
}

/// The project directory for the log commands: the project `run` would resolve
/// ([`crate::contract::project::resolve`]: `CLAUDE_PROJECT_DIR`, else the
/// repository from here up), unless that folder has no log and a folder from
/// here up has one: a log is written only for the folder `run` resolved as the
/// project, so it names the project of a session started elsewhere (a
/// sub-folder without `.git`, where the client set `CLAUDE_PROJECT_DIR`).
pub fn project_dir(env: &Env) -> PathBuf {
    let resolved = crate::contract::project::resolve(env, None);
    let has_log = |dir: &Path| {
        settings::default_dir(dir, env).is_some_and(|d| d.join(store::CURRENT).exists())
    };
    if env.get("CLAUDE_PROJECT_DIR").is_some_and(|s| !s.is_empty()) || has_log(&resolved) {
        return resolved;
    }
    let here = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("/"));
    here.ancestors()
        .find(|dir| has_log(dir))
        .map(Path::to_path_buf)
        .unwrap_or(resolved)
}

/// The project, its policies and log settings, and the log path to read.
pub struct Located {
    /// The project directory.
    pub project: PathBuf,
    /// The policies found there.
    pub found: Found,
    /// The log settings.
    pub settings: Settings,
    /// A folder or a file.
    pub path: PathBuf,
}

/// Find the log.
pub fn locate(place: &Where, env: &Env) -> Result<Located, String> {
    let project = project_dir(env);
    let mut env = env.clone();
    env.set("CLAUDE_PROJECT_DIR", project.to_string_lossy());
    let found = super::discovery(place.policies.clone(), &env).find();
    let settings = settings::resolve(&settings::tables_of(&found), &project, &env);
    let path = match (&place.log, &settings.dir) {
        (Some(p), _) => p.clone(),
        (None, Some(d)) => d.clone(),
        (None, None) => {
            return Err("no log folder: set HOME or XDG_STATE_HOME, or give --log PATH".into())
        }
    };
    Ok(Located {
        project,
        found,
        settings,
        path,
    })
}

/// Read the records of a log folder or file, oldest first, and how many lines
/// did not parse.
pub fn read(path: &Path) -> Result<(Vec<Record>, usize), String> {
    let lines = if path.is_dir() {
        store::read_lines(path)
    } else {
        use std::io::Read;
        store::open_for_reading(path).and_then(|mut f| {
            let mut b = vec![];
            f.read_to_end(&mut b)?;
            Ok(String::from_utf8_lossy(&b)
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect())
        })
    };
    let lines = match lines {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let mut bad = 0;
    let mut out = Vec::with_capacity(lines.len());
    for l in lines {
        match serde_json::from_str::<Record>(&l) {
            Ok(r) => out.push(r),
            Err(_) => bad += 1,
        }
    }
    out.sort_by_key(|r| r.ms());
    Ok((out, bad))
}

/// Does a record pass the filters?
pub struct Filter {
    since_ms: Option<i64>,
    decision: Option<String>,
    rule: Option<globset::GlobMatcher>,
    session: Option<String>,
}

impl Filter {
    /// From the flags; `now_ms` anchors `--since`.
    pub fn new(
        since: Option<&str>,
        decision: Option<&str>,
        rule: Option<&str>,
        session: Option<&str>,
        now_ms: i64,
    ) -> Result<Filter, String> {
        let since_ms = since
            .map(|s| time::parse_span(s).map(|span| now_ms - span))
            .transpose()?;
        if let Some(d) = decision {
            const OK: &[&str] = &[
                "deny",
                "ask",
                "allow",
                "block",
                "stop",
                "none",
                "audit",
                "unguarded",
            ];
            if !OK.contains(&d) {
                return Err(format!("--decision {d}: expected one of {}", OK.join(", ")));
            }
        }
        let rule = rule
            .map(|r| {
                globset::Glob::new(r)
                    .map(|g| g.compile_matcher())
                    .map_err(|e| format!("--rule {r}: {e}"))
            })
            .transpose()?;
        Ok(Filter {
            since_ms,
            decision: decision.map(str::to_string),
            rule,
            session: session.map(str::to_string),
        })
    }

    /// Does `r` pass?
    pub fn accepts(&self, r: &Record) -> bool {
        if self.since_ms.is_some_and(|s| r.ms() < s) {
            return false;
        }
        let decision_ok = match self.decision.as_deref() {
            None => true,
            Some("audit") => !r.audit.is_empty(),
            Some("unguarded") => r.kind == Kind::Unguarded,
            Some(d) => r.kind.answered() && r.decision_word() == d,
        };
        if !decision_ok {
            return false;
        }
        if let Some(m) = &self.rule {
            let hit = r.rules.iter().any(|x| m.is_match(x))
                || r.audit.iter().any(|a| m.is_match(&a.rule));
            if !hit {
                return false;
            }
        }
        if let Some(s) = &self.session {
            if !r
                .session
                .as_deref()
                .is_some_and(|x| x.starts_with(s.as_str()))
            {
                return false;
            }
        }
        true
    }
}

/// Colours, when writing to a terminal: `Paint(style::on())`, the one decision
/// `main` made for this process ([`super::style::wanted`]).
#[derive(Debug, Clone, Copy)]
pub struct Paint(pub bool);

impl Paint {
    /// Wrap `text` in an ANSI colour.
    pub fn paint(self, code: &str, text: &str) -> String {
        if self.0 {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// The colour of a decision word.
    pub fn decision(self, word: &str, padded: &str) -> String {
        let code = match word {
            "deny" | "block" | "stop" | "unguarded" => "31;1",
            "ask" => "33",
            "allow" => "32",
            "audit" | "would" => "35",
            _ => "2",
        };
        self.paint(code, padded)
    }
}

/// The filters of `log`, `replay` and `report` (`None`: not given).
#[derive(Default)]
pub struct Filters<'a> {
    /// `--since`.
    pub since: Option<&'a str>,
    /// `--decision`.
    pub decision: Option<&'a str>,
    /// `--rule`.
    pub rule: Option<&'a str>,
    /// `--session`.
    pub session: Option<&'a str>,
}

/// The log a command reads: where it is, every record in it (oldest first)
/// and the filter its flags make. Errors and skipped lines are told on `err`
/// in the command's name; `Err` is the exit status.
pub fn open(
    command: &str,
    place: &Where,
    filters: &Filters<'_>,
    env: &Env,
    err: &mut dyn Write,
) -> Result<(Located, Vec<Record>, Filter), i32> {
    let fail = |err: &mut dyn Write, e: String| {
        let _ = writeln!(err, "hookrules {command}: {e}");
        2
    };
    let located = locate(place, env).map_err(|e| fail(err, e))?;
    let filter = Filter::new(
        filters.since,
        filters.decision,
        filters.rule,
        filters.session,
        crate::os::clock::Now::from_env(env).ms,
    )
    .map_err(|e| fail(err, e))?;
    let (records, bad) = read(&located.path).map_err(|e| fail(err, e))?;
    if bad > 0 {
        let _ = writeln!(
            err,
            "hookrules {command}: {bad} line(s) that are not log records were skipped"
        );
    }
    Ok((located, records, filter))
}

/// `hookrules log`.
pub fn log(
    args: &LogArgs,
    env: &Env,
    paint: Paint,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let filters = Filters {
        since: args.since.as_deref(),
        decision: args.decision.as_deref(),
        rule: args.rule.as_deref(),
        session: args.session.as_deref(),
    };
    let (located, records, filter) = match open("log", &args.place, &filters, env, err) {
        Ok(opened) => opened,
        Err(status) => return status,
    };
    let picked: Vec<&Record> = records.iter().filter(|r| filter.accepts(r)).collect();
    let shown = &picked[picked.len().saturating_sub(args.limit)..];
    if args.json {
        for r in shown {
            let _ = writeln!(out, "{}", serde_json::to_string(r).unwrap_or_default());
        }
        return 0;
    }
    if records.is_empty() {
        let _ = writeln!(out, "no decisions logged yet in {}", located.path.display());
        return 0;
    }
    let _ = write!(out, "{}", table(shown, paint));
    let _ = writeln!(
        out,
        "{} of {} line(s) shown · {}",
        shown.len(),
        records.len(),
        located.path.display()
    );
    0
}

/// The table, newest last.
pub fn table(rows: &[&Record], paint: Paint) -> String {
    let mut s = String::new();
    s.push_str(&paint.paint(
        "1",
        &format!(
            "{:<19}  {:<16}  {:<6}  {:<8}  {:<24}  {}\n",
            "TIME (UTC)", "EVENT", "TOOL", "DECISION", "RULE", "WHAT"
        ),
    ));
    for r in rows {
        let when = r.time.get(..19).unwrap_or(&r.time).replace('T', " ");
        let tool = r.tool.as_deref().unwrap_or("-");
        let what = r.summary.as_deref().unwrap_or("");
        let (word, rule) = match r.kind {
            Kind::Allow => ("allowed", r.rules.join(",")),
            Kind::Decision => (r.decision_word(), r.rules.join(",")),
            Kind::Unguarded => ("unguarded", r.rules.join(",")),
        };
        let word_cell = format!("{:<8}", word);
        s.push_str(&format!(
            "{when:<19}  {:<16}  {:<6}  {}  {:<24}  {}\n",
            cut(&r.event, 16),
            cut(tool, 6),
            paint.decision(word, &word_cell),
            cut(if rule.is_empty() { "-" } else { &rule }, 24),
            cut(what, 70),
        ));
        // A code issued with every deny is noise here; grants and uses are not.
        if let Some(a) = r.allow.as_ref().filter(|a| a.action != "issued") {
            let by =
                a.by.as_deref()
                    .map(|b| format!(" by {b}"))
                    .unwrap_or_default();
            s.push_str(&format!("{:<19}  └ allow-once {}{by}\n", "", a.action));
        }
        for a in &r.audit {
            let would = format!("would {}", a.decision.map(|d| d.as_str()).unwrap_or("none"));
            s.push_str(&format!(
                "{:<19}  └ {} {}  {}\n",
                "",
                paint.decision("audit", "audit"),
                paint.decision("would", &format!("{would:<10}")),
                a.rule
            ));
        }
    }
    s
}

fn cut(s: &str, n: usize) -> String {
    crate::log::one_line(s, n.saturating_sub(1).max(1))
        .chars()
        .take(n)
        .collect()
}
