//! Export of decisions to an OpenTelemetry collector, through a spool, so a
//! collector that is down never slows a run down for long, never wedges one,
//! and loses nothing it can keep.
//!
//! After the answer is printed (and stdout closed), `run`:
//! 1. appends the decision's record to the spool, `<state>/otlp/spool.jsonl`
//!    (one line, under `spool.lock`), unless the spool holds
//!    [`SPOOL_MAX_BYTES`] already: then the record is counted as dropped (one
//!    byte appended to `dropped`; it stays in the local decision log) and
//!    `doctor` says how many;
//! 2. delivers what the spool holds, oldest first, in requests of at most
//!    [`BATCH`] records, unless another run is delivering (`send.lock` is
//!    taken without waiting) or a slow failure set a pause (below). The
//!    attempt is bounded by [`BUDGET`], the `OTEL_*` timeout and the run's
//!    deadline;
//! 3. on a 2xx answer, cuts the delivered records from the spool (under
//!    `spool.lock`, so records appended meanwhile stay): nothing is sent twice
//!    on the normal path. A 4xx other than 408 and 429 rejects the batch for
//!    good (the OTLP specification says not to retry it): it is cut and counted.
//!    Anything else (refused, timed out, 5xx, 429) leaves it for the next run.
//!
//! A failure that took long (a collector that does not answer) pauses the
//! attempts: 1 s, then doubling up to [`PAUSE_MAX`]; runs meanwhile only
//! append. A failure that was quick (connection refused) pauses nothing: the
//! next run tries again at once, so records arrive as soon as the collector is
//! back. `hookrules export` delivers the spool by hand (or from a timer).

use std::collections::BTreeMap;
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::otlp::{self, Target};
use super::record::Record;

/// The most the spool holds: about 15,000 decisions of the usual size (a
/// spooled deny with its reason is 1.0-1.2 KB), so a collector down for a
/// day of 10,000 decisions loses none.
pub const SPOOL_MAX_BYTES: u64 = 16 * 1024 * 1024;
/// Records per request.
pub const BATCH: usize = 500;
/// The most one run spends delivering, after its answer.
pub const BUDGET: Duration = Duration::from_millis(500);
/// A failure slower than this pauses the attempts.
const SLOW: Duration = Duration::from_millis(100);
/// The longest pause after slow failures.
pub const PAUSE_MAX: Duration = Duration::from_secs(60);

const SPOOL: &str = "spool.jsonl";
const SPOOL_LOCK: &str = "spool.lock";
const SEND_LOCK: &str = "send.lock";
const DROPPED: &str = "dropped";
const STATE: &str = "state.json";

/// The spool folder: `<state home>/otlp`.
pub fn spool_dir(env: &BTreeMap<String, String>) -> Option<PathBuf> {
    super::settings::state_home(env).map(|h| h.join("otlp"))
}

/// What the last attempts left behind (`state.json`, written under `send.lock`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Slow failures in a row.
    #[serde(default)]
    pub failures: u32,
    /// No attempt before this time (ms since the epoch).
    #[serde(default)]
    pub pause_until_ms: i64,
    /// The last failure, with its time.
    #[serde(default)]
    pub last_error: Option<String>,
    /// When it happened (ms).
    #[serde(default)]
    pub last_error_ms: i64,
    /// The last delivery (ms).
    #[serde(default)]
    pub last_sent_ms: i64,
    /// Records delivered, in all.
    #[serde(default)]
    pub sent: u64,
    /// Records the collector rejected for good (4xx).
    #[serde(default)]
    pub rejected: u64,
    /// The last attempt failed: the next one sends one record first, so a
    /// collector that is still down costs a run one small request.
    #[serde(default)]
    pub failing: bool,
}

/// The spool at a glance (`doctor`, `hookrules export`).
#[derive(Debug, Clone, Default)]
pub struct Status {
    /// Records waiting.
    pub waiting: usize,
    /// Their size.
    pub bytes: u64,
    /// Records never spooled because it was full.
    pub dropped: u64,
    /// The attempts' state.
    pub state: State,
}

/// The spool's status.
pub fn status(dir: &Path) -> Status {
    let spool = fs::read(dir.join(SPOOL)).unwrap_or_default();
    Status {
        waiting: spool.iter().filter(|&&b| b == b'\n').count(),
        bytes: spool.len() as u64,
        dropped: fs::metadata(dir.join(DROPPED))
            .map(|m| m.len())
            .unwrap_or(0),
        state: read_state(dir),
    }
}

/// What one delivery did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Delivered {
    /// Records the collector accepted.
    pub sent: usize,
    /// Records it rejected for good.
    pub rejected: usize,
    /// Records are left in the spool (its size, not a count: counting reads
    /// the whole spool, which a run must not do while the collector is down;
    /// [`status`] counts).
    pub more: bool,
    /// Why it stopped early, if it did (skipped, failed).
    pub note: Option<String>,
    /// This attempt failed and the one before it did not: the start of an
    /// outage (said once on stderr; the rest show in `doctor`).
    pub first_failure: bool,
}

/// After the answer: spool the record, then deliver within `deadline`.
/// Returns warnings for stderr.
pub fn after_answer(
    r: &Record,
    env: &BTreeMap<String, String>,
    now_ms: i64,
    deadline: Instant,
) -> Vec<String> {
    let Some(dir) = spool_dir(env) else {
        return vec!["export: no state folder (HOME or XDG_STATE_HOME) for the spool".into()];
    };
    let target = Target::from_env(env);
    let mut warnings: Vec<String> = target
        .problems
        .iter()
        .map(|p| format!("export: {p}"))
        .collect();
    let lock_by = Instant::now() + Duration::from_millis(100);
    if let Err(e) = spool(&dir, r, lock_by.min(deadline)) {
        warnings.push(format!("export: {e}"));
    }
    let until = (Instant::now() + BUDGET.min(target.timeout)).min(deadline);
    let d = deliver(&dir, &target, now_ms, until);
    if let Some(n) = d.note.filter(|_| d.first_failure && d.more) {
        // Only the first failure of a streak is worth a line on stderr (and
        // the count, which reads the spool); the rest show in doctor.
        warnings.push(format!(
            "export: {n}; {} record(s) kept in the spool",
            status(&dir).waiting
        ));
    }
    warnings
}

/// Append one record to the spool (not when it is full: counted instead).
pub fn spool(dir: &Path, r: &Record, lock_by: Instant) -> io::Result<()> {
    if !dir.is_dir() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let mut line = serde_json::to_vec(&spooled(r)).map_err(io::Error::other)?;
    line.push(b'\n');
    let Some(_held) = lock(&dir.join(SPOOL_LOCK), lock_by, true)? else {
        count_dropped(dir)?;
        return Err(io::Error::other(
            "the spool is locked by a process that does not let go; the record is only in the local log",
        ));
    };
    let mut f = crate::os::files::open_append(&dir.join(SPOOL))?;
    if f.metadata()?.len() + line.len() as u64 > SPOOL_MAX_BYTES {
        count_dropped(dir)?;
        return Err(io::Error::other(format!(
            "the spool is full ({} MiB undelivered); this record is only in the local log",
            SPOOL_MAX_BYTES >> 20
        )));
    }
    f.write_all(&line)
}

/// The record as spooled: the event itself is left out (the local log has it),
/// but its `tool_use_id` is kept.
fn spooled(r: &Record) -> Record {
    let mut s = r.clone();
    s.input = r
        .input
        .as_ref()
        .and_then(|i| i.get("tool_use_id"))
        .map(|id| serde_json::json!({ "tool_use_id": id }));
    s
}

fn count_dropped(dir: &Path) -> io::Result<()> {
    crate::os::files::open_append(&dir.join(DROPPED))?.write_all(b".")
}

/// Deliver the spool, oldest first, until it is empty or `until` passes.
pub fn deliver(dir: &Path, target: &Target, now_ms: i64, until: Instant) -> Delivered {
    let mut out = Delivered::default();
    let Ok(Some(_sending)) = lock(&dir.join(SEND_LOCK), Instant::now(), false) else {
        out.note = Some("skipped: another run is delivering".into());
        out.more = spool_has_records(dir);
        return out;
    };
    let mut state = read_state(dir);
    if now_ms < state.pause_until_ms {
        out.note = Some(format!(
            "skipped: paused after slow failures ({})",
            state.last_error.clone().unwrap_or_default()
        ));
        out.more = spool_has_records(dir);
        return out;
    }
    let mut size = if state.failing { 1 } else { BATCH };
    loop {
        let batch = match read_batch(dir, until, size) {
            Ok(b) => b,
            Err(e) => {
                out.note = Some(format!("the spool cannot be read: {e}"));
                break;
            }
        };
        if batch.records.is_empty() {
            break;
        }
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            out.note = Some("out of time".into());
            break;
        }
        let records: Vec<otlp::LogRecord> = batch
            .records
            .iter()
            .map(|r| otlp::log_record(r, now_ms))
            .collect();
        let (body, content_type) = target.body(&otlp::request(records, &target.resource));
        let started = Instant::now();
        match post(target, body, content_type, left) {
            Ok(Sent::Accepted) => {
                size = BATCH;
                state.failing = false;
                out.sent += batch.records.len();
                state.sent += batch.records.len() as u64;
                state.failures = 0;
                state.pause_until_ms = 0;
                state.last_sent_ms = now_ms;
            }
            Ok(Sent::Rejected(why)) => {
                out.rejected += batch.records.len();
                state.rejected += batch.records.len() as u64;
                state.last_error = Some(why);
                state.last_error_ms = now_ms;
            }
            Err(why) => {
                if started.elapsed() >= SLOW {
                    state.failures += 1;
                    let pause = Duration::from_secs(1 << state.failures.min(6).saturating_sub(1))
                        .min(PAUSE_MAX);
                    state.pause_until_ms = now_ms + pause.as_millis() as i64;
                }
                out.first_failure = !state.failing;
                state.failing = true;
                state.last_error = Some(why.clone());
                state.last_error_ms = now_ms;
                out.note = Some(why);
                break;
            }
        }
        if let Err(e) = cut(dir, batch.bytes, until) {
            out.note = Some(format!("the spool cannot be cut: {e}"));
            break;
        }
    }
    let _ = write_state(dir, &state);
    out.more = spool_has_records(dir);
    out
}

/// Does the spool hold anything (one `stat`)?
fn spool_has_records(dir: &Path) -> bool {
    fs::metadata(dir.join(SPOOL)).is_ok_and(|m| m.len() > 0)
}

enum Sent {
    Accepted,
    Rejected(String),
}

/// One request, bounded by `timeout`.
fn post(
    target: &Target,
    body: Vec<u8>,
    content_type: &str,
    timeout: Duration,
) -> Result<Sent, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .http_status_as_error(false)
        .user_agent(concat!("hookrules/", env!("CARGO_PKG_VERSION")))
        .build()
        .into();
    let mut req = agent.post(&target.url).content_type(content_type);
    for (k, v) in &target.headers {
        req = req.header(k, v);
    }
    let resp = req
        .send(&body[..])
        .map_err(|e| format!("{}: {e}", target.url))?;
    let code = resp.status().as_u16();
    match code {
        200..=299 => Ok(Sent::Accepted),
        408 | 429 => Err(format!("{}: HTTP {code}, retried later", target.url)),
        400..=499 => Ok(Sent::Rejected(format!(
            "{}: HTTP {code}: the collector rejects these records",
            target.url
        ))),
        _ => Err(format!("{}: HTTP {code}", target.url)),
    }
}

struct Batch {
    records: Vec<Record>,
    /// Bytes of the spool they take (whole lines).
    bytes: u64,
}

/// The oldest records, at most `max`, whole lines only (read no further). A
/// line that does not read as a record (a damaged spool) is passed over and cut
/// with them.
fn read_batch(dir: &Path, lock_by: Instant, max: usize) -> io::Result<Batch> {
    use std::io::BufRead;
    let Some(_held) = lock(&dir.join(SPOOL_LOCK), lock_by, true)? else {
        return Err(io::Error::other("the spool is locked"));
    };
    let f = match crate::os::files::open_regular(&dir.join(SPOOL)) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Batch {
                records: vec![],
                bytes: 0,
            })
        }
        Err(e) => return Err(e),
    };
    let mut reader = io::BufReader::new(f.take(SPOOL_MAX_BYTES));
    let mut records = vec![];
    let mut bytes = 0u64;
    let mut line = vec![];
    while records.len() < max {
        line.clear();
        if reader.read_until(b'\n', &mut line)? == 0 || !line.ends_with(b"\n") {
            break;
        }
        bytes += line.len() as u64;
        if let Ok(r) = serde_json::from_slice::<Record>(&line) {
            records.push(r);
        }
    }
    Ok(Batch { records, bytes })
}

/// Remove the first `bytes` of the spool, keeping what was appended since.
fn cut(dir: &Path, bytes: u64, lock_by: Instant) -> io::Result<()> {
    let Some(_held) = lock(&dir.join(SPOOL_LOCK), lock_by, true)? else {
        return Err(io::Error::other("the spool is locked"));
    };
    let path = dir.join(SPOOL);
    let mut f = crate::os::files::open_regular(&path)?;
    if f.metadata()?.len() == bytes {
        // Everything was delivered (the usual case): empty the file in place.
        // No fsync: a power loss can at worst bring delivered records back,
        // to be sent again, never lose one.
        return crate::os::files::open_append(&path)?.set_len(0);
    }
    f.seek(SeekFrom::Start(bytes))?;
    let mut rest = vec![];
    f.read_to_end(&mut rest)?;
    crate::os::files::write_atomic(&path, &rest)
}

fn read_state(dir: &Path) -> State {
    crate::os::files::read_regular(&dir.join(STATE), Some(64 * 1024))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

fn write_state(dir: &Path, s: &State) -> io::Result<()> {
    let bytes = serde_json::to_vec(s).map_err(io::Error::other)?;
    // Advice (counts, the last failure, the pause): losing it to a power loss
    // costs nothing, an fsync per run would cost the run.
    crate::os::files::write_atomic_unsynced(&dir.join(STATE), &bytes)
}

/// Lock `path` (exclusive), waiting until `by` at the most (`wait = false`:
/// not at all). `None`: someone else holds it.
fn lock(path: &Path, by: Instant, wait: bool) -> io::Result<Option<crate::os::files::Locked>> {
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !f.metadata()?.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    crate::os::files::lock_until(f, if wait { by } else { Instant::now() })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(i: usize) -> Record {
        Record {
            v: 1,
            time: "2026-11-28T12:00:00.000Z".into(),
            event: "PreToolUse".into(),
            rules: vec![format!("rule-{i}")],
            ..Record::default()
        }
    }

    #[test]
    fn a_cut_keeps_what_was_appended_after_the_batch_was_read() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let by = Instant::now() + Duration::from_secs(5);
        for i in 0..3 {
            spool(dir, &record(i), by).unwrap();
        }
        let b = read_batch(dir, by, BATCH).unwrap();
        assert_eq!(b.records.len(), 3);
        spool(dir, &record(3), by).unwrap();
        cut(dir, b.bytes, by).unwrap();
        let left = read_batch(dir, by, BATCH).unwrap();
        assert_eq!(left.records.len(), 1);
        assert_eq!(left.records[0].rules, vec!["rule-3".to_string()]);
    }

    #[test]
    fn ten_thousand_undelivered_decisions_keep_the_spool_under_its_bound() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let by = Instant::now() + Duration::from_secs(5);
        // A decision of the usual size and then some: rules, reason, summary, bundles.
        let mut r = record(0);
        r.reason = Some("x".repeat(400));
        r.summary = Some("y".repeat(300));
        r.policy_hash = "a".repeat(64);
        let mut kept = 0;
        for _ in 0..10_000 {
            kept += usize::from(spool(dir, &r, by).is_ok());
        }
        let st = status(dir);
        assert!(st.bytes <= SPOOL_MAX_BYTES, "{}", st.bytes);
        assert_eq!(st.waiting, kept);
        assert_eq!(st.dropped as usize, 10_000 - kept);
        assert_eq!(kept, 10_000, "none dropped");
    }

    #[test]
    fn only_the_first_failure_of_an_outage_is_said() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let by = Instant::now() + Duration::from_secs(5);
        // A port nothing listens on: refused at once.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let env: BTreeMap<String, String> = [(
            "OTEL_EXPORTER_OTLP_ENDPOINT".to_string(),
            format!("http://127.0.0.1:{port}"),
        )]
        .into();
        let target = Target::from_env(&env);
        spool(dir, &record(0), by).unwrap();
        let first = deliver(dir, &target, 1_000, by);
        let second = deliver(dir, &target, 2_000, by);
        assert!(first.first_failure && first.more, "{first:?}");
        assert!(!second.first_failure && second.more, "{second:?}");
        assert_eq!(status(dir).waiting, 1);
    }

    #[test]
    fn a_full_spool_counts_instead_of_growing() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let by = Instant::now() + Duration::from_secs(5);
        fs::write(dir.join(SPOOL), vec![b'x'; SPOOL_MAX_BYTES as usize - 10]).unwrap();
        assert!(spool(dir, &record(0), by).is_err());
        assert!(spool(dir, &record(1), by).is_err());
        assert_eq!(status(dir).dropped, 2);
        assert!(fs::metadata(dir.join(SPOOL)).unwrap().len() <= SPOOL_MAX_BYTES);
    }
}
