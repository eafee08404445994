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

use crate::os::env::Env;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
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

/// Process groups of commands running now, for [`end_all`]; 0 is a free slot.
/// Slots of atomics, not a locked list: `end_all` runs in the watchdog's signal
/// handler, which must not wait for a lock the interrupted code may hold. More
/// commands at once than slots (never the case: facts run one at a time) are
/// still ended by the subreaper's sweep, on Linux.
static LIVE: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

fn track(pid: i32) {
    for slot in &LIVE {
        if slot.compare_exchange(0, pid, SeqCst, SeqCst).is_ok() {
            return;
        }
    }
}

fn untrack(pid: i32) {
    for slot in &LIVE {
        let _ = slot.compare_exchange(pid, 0, SeqCst, SeqCst);
    }
}

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
/// adopted from them. For the deadline's last moment: async-signal-safe (no
/// allocation, no lock), since the watchdog calls it from its signal handler.
pub fn end_all() {
    for slot in &LIVE {
        let g = slot.load(SeqCst);
        if g > 0 {
            kill_group(g);
        }
    }
    end_orphans();
}

/// Run `argv` in `cwd` with stdin closed and exactly the environment `env` (the
/// hook's own, so a fact sees what the hook sees; `PATH` in it finds the program),
/// killing its process group (and adopted descendants) after `timeout_ms`.
pub fn run(argv: &[String], cwd: &Path, env: &Env, timeout_ms: u64) -> Result<Output, RunError> {
    let (program, args) = argv.split_first().ok_or(RunError::Empty)?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .env_clear()
        .envs(env.vars())
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| RunError::Spawn(format!("{program}: {e}")))?;
    let pid = child.id() as i32;
    track(pid);
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
    untrack(pid);
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

/// Start `program` with `args` and exactly the environment `env`, stdin,
/// stdout and stderr on `/dev/null` and a process group of its own, and do not
/// wait for it: it outlives this process, and whoever waits for this process's
/// output (the client) waits for nothing of it, since it holds none of our
/// pipes. Not tracked: [`end_all`] leaves it alone (the subreaper's sweep at
/// the deadline's last moment does not, while it is still our child).
pub fn detach(program: &Path, args: &[&str], env: &Env) -> std::io::Result<()> {
    Command::new(program)
        .args(args)
        .env_clear()
        .envs(env.vars())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .map(drop)
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
/// that killing re-parents here, until none is left. Async-signal-safe.
fn end_orphans() {
    if !SUBREAPER.load(Ordering::SeqCst) {
        return;
    }
    for _ in 0..64 {
        let children = own_children();
        if children.is_empty() {
            return;
        }
        for &c in children.as_slice() {
            // SAFETY: kill(2)/waitpid(2) on our own children's pids and groups;
            // no memory is passed except a local status integer.
            unsafe {
                libc::kill(-c, libc::SIGKILL);
                libc::kill(c, libc::SIGKILL);
            }
        }
        for &c in children.as_slice() {
            let until = Instant::now() + Duration::from_millis(200);
            loop {
                let mut status = 0;
                // SAFETY: see above.
                let r = unsafe { libc::waitpid(c, &mut status, libc::WNOHANG) };
                if r != 0 || Instant::now() >= until {
                    break;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// Pids on the stack (the sweep runs in a signal handler: no allocation).
struct Pids {
    buf: [i32; 256],
    len: usize,
}

impl Pids {
    fn new() -> Pids {
        Pids {
            buf: [0; 256],
            len: 0,
        }
    }

    /// Add one; a pid past the capacity waits for the sweep's next round.
    fn push(&mut self, pid: i32) {
        if pid > 0 && self.len < self.buf.len() && !self.as_slice().contains(&pid) {
            self.buf[self.len] = pid;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[i32] {
        &self.buf[..self.len]
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The pids whose parent is this process: from `/proc/self/task/*/children`
/// (one small file per thread), else by scanning `/proc/*/stat`. Read with
/// raw system calls into stack buffers (async-signal-safe).
fn own_children() -> Pids {
    let mut out = Pids::new();
    #[cfg(target_os = "linux")]
    {
        if !proc::children_from_tasks(&mut out) {
            proc::children_from_stat(&mut out);
        }
    }
    out
}

/// Reading `/proc` without allocating: `open`/`read`/`getdents64` into stack
/// buffers, paths built in place.
#[cfg(target_os = "linux")]
mod proc {
    use super::Pids;

    /// A NUL-terminated path from parts, in a stack buffer (None if too long).
    fn path<'b>(buf: &'b mut [u8; 96], parts: &[&[u8]]) -> Option<&'b [u8]> {
        let mut n = 0;
        for p in parts {
            let end = n + p.len();
            if end >= buf.len() {
                return None;
            }
            buf[n..end].copy_from_slice(p);
            n = end;
        }
        buf[n] = 0;
        Some(&buf[..=n])
    }

    /// Read up to `buf.len()` bytes of a file; None if it cannot be opened.
    fn read(path: &[u8], buf: &mut [u8]) -> Option<usize> {
        // SAFETY: `path` is NUL-terminated (from `path`); read(2) writes at most
        // the remaining length of `buf` into it.
        unsafe {
            let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
            if fd < 0 {
                return None;
            }
            let mut n = 0;
            while n < buf.len() {
                let r = libc::read(fd, buf[n..].as_mut_ptr().cast(), buf.len() - n);
                if r <= 0 {
                    break;
                }
                n += r as usize;
            }
            libc::close(fd);
            Some(n)
        }
    }

    /// Call `f` with each entry name (all digits only) of a folder; false if
    /// it cannot be opened.
    fn numeric_entries(dir: &[u8], mut f: impl FnMut(&[u8])) -> bool {
        // SAFETY: `dir` is NUL-terminated; getdents64(2) fills at most the
        // buffer's length with whole records, each parsed within `n` bytes.
        unsafe {
            let fd = libc::open(
                dir.as_ptr().cast(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return false;
            }
            let mut buf = [0u8; 4096];
            loop {
                let n = libc::syscall(libc::SYS_getdents64, fd, buf.as_mut_ptr(), buf.len());
                if n <= 0 {
                    break;
                }
                let n = n as usize;
                let mut at = 0;
                while at + 19 < n {
                    let reclen = u16::from_ne_bytes([buf[at + 16], buf[at + 17]]) as usize;
                    if reclen == 0 {
                        break;
                    }
                    let name = &buf[at + 19..(at + reclen).min(n)];
                    let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())];
                    if !name.is_empty() && name.iter().all(u8::is_ascii_digit) {
                        f(name);
                    }
                    at += reclen;
                }
            }
            libc::close(fd);
            true
        }
    }

    fn parse_pid(s: &[u8]) -> Option<i32> {
        if s.is_empty() || s.len() > 9 || !s.iter().all(u8::is_ascii_digit) {
            return None;
        }
        Some(s.iter().fold(0i32, |n, d| n * 10 + i32::from(d - b'0')))
    }

    /// Children listed per thread (`CONFIG_PROC_CHILDREN`); false when
    /// unavailable.
    pub(super) fn children_from_tasks(out: &mut Pids) -> bool {
        let mut ok = true;
        let listed = numeric_entries(b"/proc/self/task\0", |tid| {
            let mut pbuf = [0u8; 96];
            let Some(p) = path(&mut pbuf, &[b"/proc/self/task/", tid, b"/children"]) else {
                return;
            };
            let mut text = [0u8; 4096];
            match read(p, &mut text) {
                Some(n) => {
                    for pid in text[..n].split(|b| b.is_ascii_whitespace()) {
                        if let Some(pid) = parse_pid(pid) {
                            out.push(pid);
                        }
                    }
                }
                None => ok = false,
            }
        });
        listed && ok
    }

    /// Every process whose parent (4th field of `/proc/PID/stat`) is this one.
    pub(super) fn children_from_stat(out: &mut Pids) {
        let me = std::process::id() as i32;
        numeric_entries(b"/proc\0", |pid| {
            let mut pbuf = [0u8; 96];
            let Some(p) = path(&mut pbuf, &[b"/proc/", pid, b"/stat"]) else {
                return;
            };
            let mut stat = [0u8; 1024];
            let Some(n) = read(p, &mut stat) else { return };
            let stat = &stat[..n];
            // `pid (comm) state ppid ...`; comm may hold spaces and parentheses.
            let Some(close) = stat.iter().rposition(|&b| b == b')') else {
                return;
            };
            let mut fields = stat[close + 1..]
                .split(|b| b.is_ascii_whitespace())
                .filter(|f| !f.is_empty());
            let _state = fields.next();
            if fields.next().and_then(parse_pid) == Some(me) {
                if let Some(pid) = parse_pid(pid) {
                    out.push(pid);
                }
            }
        });
    }
}
