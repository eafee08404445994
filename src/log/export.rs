//! Export of decisions to an OpenTelemetry collector, through a spool and a
//! deliverer that outlives the run, so a collector that is down, refuses or
//! never answers costs a run no network wait at all, and loses nothing it can
//! keep.
//!
//! After the answer is printed (and stdout closed), `run`:
//! 1. appends the decision's record to the spool, `<state>/otlp/spool.jsonl`
//!    (one line, under `spool.lock`), unless the spool holds
//!    [`SPOOL_MAX_BYTES`] already: then the record is counted as dropped (a
//!    number in `dropped`, rewritten in place under its own lock; the record
//!    stays in the local decision log) and `doctor` says how many;
//! 2. starts the deliverer, `hookrules export --background` (its own process
//!    group, stdin, stdout and stderr on `/dev/null`, so the client waits for
//!    nothing of it), unless one is at work (`send.lock` is held) or a failure
//!    set a pause (below). The run then exits: it never touches the network.
//!
//! The deliverer, under `send.lock`, sends what the spool holds, oldest first,
//! in requests of at most [`BATCH`] records, each bounded by the `OTEL_*`
//! timeout, for at most [`LIMIT`]. On a 2xx answer it cuts the delivered
//! records from the spool (under `spool.lock`, so records appended meanwhile
//! stay): nothing is sent twice on the normal path. A 4xx other than 408 and
//! 429 rejects the batch for good (the OTLP specification says not to retry
//! it): it is cut and counted. Anything else (refused, timed out, 5xx, 429)
//! leaves it and pauses the attempts: 1 s, then doubling up to [`PAUSE_MAX`];
//! runs meanwhile only append, and the first run after the pause starts one
//! deliverer to try again (one record first). After letting go of `send.lock`
//! the deliverer looks at the spool once more: a run that appended while it
//! held the lock started no deliverer, so its record is taken now.
//!
//! The first failure of an outage is said once, on the stderr of the next run
//! (the deliverer has no stderr: it leaves the line in `outage`, and the run
//! that renames it away says it); the rest show in `doctor`.
//! `hookrules export` delivers the spool by hand (or from a timer), paused or not.
//!
//! The folder is bounded as a whole ([`FOLDER_MAX_BYTES`] at rest): the spool
//! (at most [`SPOOL_MAX_BYTES`]), the count of dropped records (a number, moved
//! into `state.json`'s total by the next delivery), `state.json` and `outage`
//! (their error texts cut to [`ERROR_MAX_CHARS`]), two empty lock files, and no
//! temporary file older than a minute (a deliverer killed while it replaced a
//! file leaves one; the next deliverer removes it). While a deliverer cuts a
//! batch from a spool that holds more, the rest is written to a temporary file
//! and renamed over the spool, so for that moment the folder can hold up to
//! twice the spool's bound.

use crate::os::env::Env;
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
/// The most the whole spool folder holds at rest: the spool and
/// [`SMALL_FILES_MAX_BYTES`] of counts, state and locks (see the module docs).
pub const FOLDER_MAX_BYTES: u64 = SPOOL_MAX_BYTES + SMALL_FILES_MAX_BYTES;
/// The most the folder's files other than the spool hold.
pub const SMALL_FILES_MAX_BYTES: u64 = 16 * 1024;
/// Error texts kept in `state.json` and `outage` are cut to this many characters.
pub const ERROR_MAX_CHARS: usize = 1000;
/// A temporary file older than this was left by a process that died.
const STALE_TEMP: Duration = Duration::from_secs(60);
/// Records per request.
pub const BATCH: usize = 500;
/// The most a run waits for the spool's lock, after its answer.
pub const BUDGET: Duration = Duration::from_millis(100);
/// The most one deliverer (or `hookrules export`) keeps delivering.
pub const LIMIT: Duration = Duration::from_secs(30);
/// The longest pause after failures.
pub const PAUSE_MAX: Duration = Duration::from_secs(60);
/// Rounds a deliverer makes when runs keep appending while it delivers.
const ROUNDS: usize = 8;

const SPOOL: &str = "spool.jsonl";
const SPOOL_LOCK: &str = "spool.lock";
const SEND_LOCK: &str = "send.lock";
const DROPPED: &str = "dropped";
const STATE: &str = "state.json";
/// The first failure of an outage, for the next run to say.
const OUTAGE: &str = "outage";
const OUTAGE_SAID: &str = "outage.said";

/// The spool folder: `<state home>/otlp`.
pub fn spool_dir(env: &Env) -> Option<PathBuf> {
    super::settings::state_home(env).map(|h| h.join("otlp"))
}

/// What the last attempts left behind (`state.json`, written under `send.lock`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct State {
    /// Failures in a row.
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
    /// Records dropped (spool full) before the last delivery, in all: a
    /// delivery moves the `dropped` count here.
    #[serde(default)]
    pub dropped: u64,
}

/// The spool at a glance (`doctor`, `hookrules export`).
#[derive(Debug, Clone, Default)]
pub struct Status {
    /// Records waiting.
    pub waiting: usize,
    /// Their size.
    pub bytes: u64,
    /// Records never spooled because it was full, since the last delivery.
    pub dropped: u64,
    /// The attempts' state.
    pub state: State,
}

/// The spool's status.
pub fn status(dir: &Path) -> Status {
    // Never blocks on a FIFO, a device or a socket in the spool's place.
    let spool = crate::os::files::read_regular(&dir.join(SPOOL), None).unwrap_or_default();
    Status {
        waiting: spool.iter().filter(|&&b| b == b'\n').count(),
        bytes: spool.len() as u64,
        dropped: read_dropped(dir),
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

/// After the answer: spool the record (waiting for the spool's lock until
/// `deadline` at the most) and start the deliverer; no network. Returns
/// warnings for stderr.
pub fn after_answer(r: &Record, env: &Env, now_ms: i64, deadline: Instant) -> Vec<String> {
    let Some(dir) = spool_dir(env) else {
        return vec!["export: no state folder (HOME or XDG_STATE_HOME) for the spool".into()];
    };
    let mut warnings: Vec<String> = Target::from_env(env)
        .problems
        .iter()
        .map(|p| format!("export: {p}"))
        .collect();
    if let Err(e) = spool(&dir, r, deadline) {
        warnings.push(format!("export: {e}"));
    }
    if let Some(line) = take_outage(&dir) {
        warnings.push(format!("export: {line}"));
    }
    if let Err(e) = wake(&dir, env, now_ms) {
        warnings.push(format!(
            "export: the deliverer did not start ({e}); the record waits in the spool"
        ));
    }
    warnings
}

/// Start `hookrules export --background` unless one is at work or the
/// attempts are paused. One read of `state.json` and one try of `send.lock`.
fn wake(dir: &Path, env: &Env, now_ms: i64) -> io::Result<()> {
    if now_ms < read_state(dir).pause_until_ms {
        return Ok(());
    }
    if lock(&dir.join(SEND_LOCK), Instant::now(), false)?.is_none() {
        // A deliverer is at work; it looks at the spool again after letting go.
        return Ok(());
    }
    let exe = std::env::current_exe()?;
    crate::os::process::detach(&exe, &["export", "--background"], env)
}

/// The outage line the deliverer left, taken by exactly one run (a rename).
fn take_outage(dir: &Path) -> Option<String> {
    fs::rename(dir.join(OUTAGE), dir.join(OUTAGE_SAID)).ok()?;
    let b = crate::os::files::read_regular(&dir.join(OUTAGE_SAID), Some(4096)).ok()?;
    Some(String::from_utf8_lossy(&b).trim().to_string())
}

/// What `hookrules export --background` does: deliver (paused or not as the
/// state says) until the spool is empty, a failure, or [`LIMIT`]; again when
/// runs appended while it held `send.lock`; leave the first failure of an
/// outage in `outage` for the next run to say.
pub fn deliver_in_background(dir: &Path, target: &Target, now_ms: impl Fn() -> i64) {
    let until = Instant::now() + LIMIT;
    for _ in 0..ROUNDS {
        let d = deliver(dir, target, now_ms(), until, Pause::Respect);
        if d.first_failure {
            if let Some(n) = &d.note {
                let line = format!("{n}; {} record(s) kept in the spool", status(dir).waiting);
                let _ = crate::os::files::write_atomic_unsynced(&dir.join(OUTAGE), line.as_bytes());
            }
        }
        if d.note.is_some() || !d.more {
            return;
        }
    }
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

/// Count one record dropped: `dropped` holds a decimal number (at most 20
/// bytes), read and rewritten in place under its own lock.
fn count_dropped(dir: &Path) -> io::Result<()> {
    change_dropped(dir, |n| n.saturating_add(1)).map(|_| ())
}

/// Set the count of dropped records to `f(count)`, under the count file's lock
/// (waiting [`BUDGET`] at the most). Returns the count before.
fn change_dropped(dir: &Path, f: impl FnOnce(u64) -> u64) -> io::Result<u64> {
    let path = dir.join(DROPPED);
    let Some(held) = lock(&path, Instant::now() + BUDGET, true)? else {
        return Err(io::Error::other(format!("{} is locked", path.display())));
    };
    let mut file = held.file();
    let before = dropped_in(file)?;
    let after = f(before);
    if after != before {
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        if after > 0 {
            file.write_all(after.to_string().as_bytes())?;
        }
    }
    Ok(before)
}

/// The count a `dropped` file holds. Before it held a number, it held one dot
/// per record: such a file counts its length (and is rewritten as a number).
fn dropped_in(mut file: &fs::File) -> io::Result<u64> {
    let len = file.metadata()?.len();
    let mut head = [0u8; 24];
    file.seek(SeekFrom::Start(0))?;
    let n = file.read(&mut head)?;
    let head = &head[..n];
    if head.first() == Some(&b'.') {
        return Ok(len);
    }
    Ok(std::str::from_utf8(head)
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(0))
}

/// The count of records dropped since the last delivery (no lock: advice).
fn read_dropped(dir: &Path) -> u64 {
    crate::os::files::open_regular(&dir.join(DROPPED))
        .and_then(|f| dropped_in(&f))
        .unwrap_or(0)
}

/// Remove the temporary files a process that died left in the folder (older
/// than [`STALE_TEMP`]); only the deliverer does this.
fn sweep_stale_temps(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let temp = name.to_string_lossy().ends_with(".hookrules-tmp");
        let old = e
            .metadata()
            .ok()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_TEMP);
        if temp && old {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// `text` cut to [`ERROR_MAX_CHARS`] characters.
fn bounded(text: String) -> String {
    match text.char_indices().nth(ERROR_MAX_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

/// Whether a delivery waits for the pause failures set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pause {
    /// The deliverer a run starts.
    Respect,
    /// `hookrules export`, asked for by hand.
    Ignore,
}

/// Deliver the spool, oldest first, until it is empty or `until` passes.
/// `more` is looked at after `send.lock` is let go.
pub fn deliver(
    dir: &Path,
    target: &Target,
    now_ms: i64,
    until: Instant,
    pause: Pause,
) -> Delivered {
    let mut out = Delivered::default();
    match lock(&dir.join(SEND_LOCK), Instant::now(), false) {
        Ok(Some(sending)) => {
            deliver_locked(dir, target, now_ms, until, pause, &mut out);
            drop(sending);
        }
        Ok(None) => out.note = Some("skipped: another process is delivering".into()),
        Err(e) => out.note = Some(format!("skipped: {e}")),
    }
    out.more = spool_has_records(dir);
    out
}

fn deliver_locked(
    dir: &Path,
    target: &Target,
    now_ms: i64,
    until: Instant,
    pause: Pause,
    out: &mut Delivered,
) {
    sweep_stale_temps(dir);
    let mut state = read_state(dir);
    if pause == Pause::Respect && now_ms < state.pause_until_ms {
        out.note = Some(format!(
            "skipped: paused after failures ({})",
            state.last_error.clone().unwrap_or_default()
        ));
        return;
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
        match post(target, body, content_type, left.min(target.timeout)) {
            Ok(Sent::Accepted) => {
                size = BATCH;
                state.failing = false;
                out.sent += batch.records.len();
                state.sent += batch.records.len() as u64;
                state.failures = 0;
                state.pause_until_ms = 0;
                state.last_sent_ms = now_ms;
                // What was dropped during the outage becomes history.
                if let Ok(n) = change_dropped(dir, |_| 0) {
                    state.dropped = state.dropped.saturating_add(n);
                }
            }
            Ok(Sent::Rejected(why)) => {
                out.rejected += batch.records.len();
                state.rejected += batch.records.len() as u64;
                state.last_error = Some(bounded(why));
                state.last_error_ms = now_ms;
            }
            Err(why) => {
                state.failures += 1;
                let pause = Duration::from_secs(1 << state.failures.min(7).saturating_sub(1))
                    .min(PAUSE_MAX);
                state.pause_until_ms = now_ms + pause.as_millis() as i64;
                out.first_failure = !state.failing;
                state.failing = true;
                let why = bounded(why);
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

    /// The export's endpoint on a port nothing listens on: refused at once.
    fn refused_endpoint() -> Env {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        [(
            "OTEL_EXPORTER_OTLP_ENDPOINT".to_string(),
            format!("http://127.0.0.1:{port}"),
        )]
        .into_iter()
        .collect()
    }

    fn record(i: usize) -> Record {
        Record {
            v: 1,
            kind: crate::log::record::Kind::Decision,
            time: "2026-11-28T12:00:00.000Z".into(),
            host: String::new(),
            session: None,
            event: "PreToolUse".into(),
            tool: None,
            decision: None,
            rules: vec![format!("rule-{i}")],
            policies: Vec::new(),
            reason: None,
            audit: Vec::new(),
            errors: Vec::new(),
            us: 0,
            version: String::new(),
            policy_hash: String::new(),
            bundles: Vec::new(),
            project: String::new(),
            summary: None,
            allow: None,
            input: None,
            id: String::new(),
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
        let env = refused_endpoint();
        let target = Target::from_env(&env);
        spool(dir, &record(0), by).unwrap();
        let first = deliver(dir, &target, 1_000, by, Pause::Respect);
        // Paused for a second after the failure; by hand, not.
        let paused = deliver(dir, &target, 1_500, by, Pause::Respect);
        assert!(paused.note.unwrap().starts_with("skipped: paused"));
        let second = deliver(dir, &target, 1_600, by, Pause::Ignore);
        assert!(first.first_failure && first.more, "{first:?}");
        assert!(!second.first_failure && second.more, "{second:?}");
        assert_eq!(status(dir).waiting, 1);
    }

    /// Bytes of every file in the folder.
    fn folder_bytes(dir: &Path) -> u64 {
        fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .sum()
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

    #[test]
    fn the_whole_folder_stays_bounded_however_many_records_are_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let by = Instant::now() + Duration::from_secs(5);
        // A spool one record short of full, from a day of undelivered decisions.
        let mut r = record(0);
        r.reason = Some("x".repeat(600));
        let line = serde_json::to_vec(&spooled(&r)).unwrap().len() as u64 + 1;
        let full = (SPOOL_MAX_BYTES / line) * line;
        let one = [serde_json::to_vec(&spooled(&r)).unwrap(), b"\n".to_vec()].concat();
        fs::write(dir.join(SPOOL), one.repeat((full / line) as usize)).unwrap();
        // A failed attempt with a long error text, a stale temporary file.
        let mut st = State {
            last_error: Some("e".repeat(100_000)),
            ..State::default()
        };
        st.last_error = st.last_error.map(bounded);
        write_state(dir, &st).unwrap();
        let stale = dir.join(".spool.jsonl.1.2.hookrules-tmp");
        fs::write(&stale, vec![b'x'; 1 << 20]).unwrap();
        let old = std::time::SystemTime::now() - 2 * STALE_TEMP;
        fs::File::options()
            .write(true)
            .open(&stale)
            .unwrap()
            .set_modified(old)
            .unwrap();
        // More decisions while the collector is down: all dropped, counted.
        for _ in 0..500 {
            assert!(spool(dir, &r, by).is_err());
        }
        assert_eq!(status(dir).dropped, 500);
        assert!(
            fs::metadata(dir.join(DROPPED)).unwrap().len() <= 20,
            "the count is a number, not a byte per record"
        );
        // The deliverer (here against a port that refuses) sweeps the stale file.
        let env = refused_endpoint();
        deliver(dir, &Target::from_env(&env), 1_000, by, Pause::Ignore);
        assert!(!stale.exists());
        let total = folder_bytes(dir);
        assert!(total <= FOLDER_MAX_BYTES, "{total} > {FOLDER_MAX_BYTES}");
        assert!(
            total - fs::metadata(dir.join(SPOOL)).unwrap().len() <= SMALL_FILES_MAX_BYTES,
            "{total}"
        );
    }

    #[test]
    fn a_delivery_moves_the_dropped_count_into_the_total() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let by = Instant::now() + Duration::from_secs(5);
        // The count as earlier versions kept it: one dot per record.
        fs::write(dir.join(DROPPED), "...").unwrap();
        assert_eq!(status(dir).dropped, 3);
        count_dropped(dir).unwrap();
        assert_eq!(fs::read_to_string(dir.join(DROPPED)).unwrap(), "4");
        // A collector that answers 200 to one request.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let collector = std::thread::spawn(move || {
            use std::io::BufRead;
            let (conn, _) = listener.accept().unwrap();
            let mut reader = io::BufReader::new(conn.try_clone().unwrap());
            let mut length = 0usize;
            loop {
                let mut line = String::new();
                reader.read_line(&mut line).unwrap();
                if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = v.trim().parse().unwrap();
                }
                if line == "\r\n" {
                    break;
                }
            }
            let mut body = vec![0; length];
            reader.read_exact(&mut body).unwrap();
            (&conn)
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                .unwrap();
        });
        let env: Env = [(
            "OTEL_EXPORTER_OTLP_ENDPOINT".to_string(),
            format!("http://127.0.0.1:{port}"),
        )]
        .into_iter()
        .collect();
        spool(dir, &record(0), by).unwrap();
        let d = deliver(dir, &Target::from_env(&env), 1_000, by, Pause::Ignore);
        collector.join().unwrap();
        assert_eq!(d.sent, 1, "{d:?}");
        let st = status(dir);
        assert_eq!((st.dropped, st.state.dropped), (0, 4));
        assert_eq!(fs::metadata(dir.join(DROPPED)).unwrap().len(), 0);
    }
}
