//! Run a command from an argument list (never through a shell) with a timeout,
//! and leave nothing running afterwards.
//!
//! - The command gets its own process group; when it exits or times out, the
//!   whole group is killed, so background children it left go too.
//! - A descendant that leaves the group (`setsid`, a daemon's double fork) is
//!   ended as well when `hookrules run` has made itself a *subreaper*
//!   ([`become_subreaper`], Linux): orphans are then re-parented to hookrules
//!   instead of init, found among its children and killed, until none is left.
//!   Elsewhere (other systems, or hookrules used as a library, where other
//!   threads own children too) only the group is killed: a descendant that calls
//!   `setsid` outlives the hook. The README's reliability section says so.
//! - Output is collected as it arrives: what was read before a timeout, or before
//!   a descendant that still holds the pipe was ended, is kept.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// Most bytes kept of each of stdout and stderr.
pub const MAX_OUTPUT: usize = 1024 * 1024;

/// After the command is gone, how long its output pipes may stay open before
/// what was read is taken as the output.
const DRAIN: Duration = Duration::from_millis(500);

/// What a finished command produced.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Output {
    /// Exit status (None when killed by a signal).
    pub status: Option<i32>,
    /// Exited with 0.
    pub ok: bool,
    /// Standard output (lossy UTF-8, capped).
    pub stdout: String,
    /// Standard error (lossy UTF-8, capped).
    pub stderr: String,
}

/// Why a command produced no output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunError {
    /// The argument list is empty.
    Empty,
    /// The program could not be started.
    Spawn(String),
    /// It ran longer than the timeout and was killed; what it had printed.
    TimedOut {
        /// The timeout, in milliseconds.
        ms: u64,
        /// Output (stdout then stderr) read before the timeout.
        output: String,
    },
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Empty => write!(f, "empty command"),
            RunError::Spawn(e) => write!(f, "cannot start: {e}"),
            RunError::TimedOut { ms, output } => {
                write!(f, "timed out after {ms} ms (process group killed)")?;
                let tail = tail_chars(output.trim_end(), 300);
                if !tail.is_empty() {
                    write!(f, "; its last output: {tail}")?;
                }
                Ok(())
            }
        }
    }
}

fn tail_chars(s: &str, n: usize) -> String {
    let count = s.chars().count();
    if count <= n {
        return s.to_string();
    }
    let mut t: String = "…".into();
    t.extend(s.chars().skip(count - n));
    t
}

static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Process groups of commands running now (for [`end_all`]).
static LIVE: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Make this process the reaper of its orphaned descendants, so a command's
/// descendants that leave its process group can still be found and ended.
/// Called by `hookrules run` (a process of its own); Linux only.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) only sets a flag on this
        // process; the extra arguments are ignored.
        let ok = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
        SUBREAPER.store(ok, Ordering::SeqCst);
    }
}

/// End every command still running and, as a subreaper, every descendant
/// adopted from them. For the deadline's last moment.
pub fn end_all() {
    let groups: Vec<i32> = LIVE.lock().map(|g| g.clone()).unwrap_or_default();
    for g in groups {
        kill_group(g);
    }
    end_orphans();
}

/// Run `argv` in `cwd` with stdin closed and exactly the environment `env` (the
/// hook's own, so a fact sees what the hook sees; `PATH` in it finds the program),
/// killing its process group (and adopted descendants) after `timeout_ms`.
pub fn run(
    argv: &[String],
    cwd: &Path,
    env: &std::collections::BTreeMap<String, String>,
    timeout_ms: u64,
) -> Result<Output, RunError> {
    let (program, args) = argv.split_first().ok_or(RunError::Empty)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .envs(env)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| RunError::Spawn(format!("{program}: {e}")))?;
    let pid = child.id() as i32;
    if let Ok(mut live) = LIVE.lock() {
        live.push(pid);
    }
    let out = child.stdout.take().map(Collector::start);
    let err = child.stderr.take().map(Collector::start);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(Duration::from_millis(timeout_ms)) {
        Ok(s) => Some(s.ok()),
        Err(_) => None,
    };
    // Done or not, nothing it started may outlive it: the group, then (as a
    // subreaper) descendants that left the group. That also closes the pipes
    // they held, so the output arrives.
    kill_group(pid);
    if status.is_none() {
        // Reap the killed command before looking for its orphans.
        let _ = rx.recv_timeout(Duration::from_millis(1000));
    }
    end_orphans();
    if let Ok(mut live) = LIVE.lock() {
        live.retain(|g| *g != pid);
    }
    let drain_until = Instant::now() + DRAIN;
    let stdout = out.map(|c| c.take(drain_until)).unwrap_or_default();
    let stderr = err.map(|c| c.take(drain_until)).unwrap_or_default();
    match status {
        None => Err(RunError::TimedOut {
            ms: timeout_ms,
            output: format!("{stdout}{stderr}"),
        }),
        Some(status) => {
            let code = status.and_then(|s| s.code());
            Ok(Output {
                status: code,
                ok: code == Some(0),
                stdout,
                stderr,
            })
        }
    }
}

/// Reads a pipe on a thread into a shared buffer, so what arrived is available
/// even if the pipe never closes.
struct Collector {
    kept: Arc<Mutex<Vec<u8>>>,
    eof: mpsc::Receiver<()>,
}

impl Collector {
    fn start(mut r: impl Read + Send + 'static) -> Collector {
        let kept = Arc::new(Mutex::new(Vec::new()));
        let (tx, eof) = mpsc::channel();
        let k = kept.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if let Ok(mut kept) = k.lock() {
                            let room = MAX_OUTPUT.saturating_sub(kept.len());
                            kept.extend_from_slice(&buf[..n.min(room)]);
                        }
                    }
                }
            }
            let _ = tx.send(());
        });
        Collector { kept, eof }
    }

    /// What was read, once the pipe closes or at `until`, whichever is first.
    fn take(self, until: Instant) -> String {
        let _ = self
            .eof
            .recv_timeout(until.saturating_duration_since(Instant::now()));
        let bytes = self.kept.lock().map(|k| k.clone()).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

fn kill_group(pid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created
    // with process_group(0); it has no memory-safety preconditions.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}

/// As a subreaper: kill every child this process has (each with its own group,
/// since a `setsid` descendant leads one), reap it, and repeat for the children
/// that killing re-parents here, until none is left.
fn end_orphans() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    for _ in 0..64 {
        let children = own_children();
        if children.is_empty() {
            return;
        }
        for c in &children {
            // SAFETY: kill(2)/waitpid(2) on our own children's pids and groups;
            // no memory is passed except a local status integer.
            unsafe {
                libc::kill(-c, libc::SIGKILL);
                libc::kill(*c, libc::SIGKILL);
            }
        }
        for c in &children {
            let until = Instant::now() + Duration::from_millis(200);
            loop {
                let mut status = 0;
                // SAFETY: see above.
                let r = unsafe { libc::waitpid(*c, &mut status, libc::WNOHANG) };
                if r != 0 || Instant::now() >= until {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// The pids whose parent is this process: from `/proc/self/task/*/children`
/// (one small file per thread), else by scanning `/proc/*/stat`.
fn own_children() -> Vec<i32> {
    if let Some(c) = children_from_tasks() {
        return c;
    }
    let me = std::process::id() as i32;
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return vec![];
    };
    let mut out = vec![];
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let mut fields = after.split_whitespace();
        let _state = fields.next();
        if fields.next().and_then(|p| p.parse::<i32>().ok()) == Some(me) {
            out.push(pid);
        }
    }
    out
}

/// Children listed per thread (`CONFIG_PROC_CHILDREN`); None when unavailable.
fn children_from_tasks() -> Option<Vec<i32>> {
    let mut out = vec![];
    for t in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let text = std::fs::read_to_string(t.path().join("children")).ok()?;
        out.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}
