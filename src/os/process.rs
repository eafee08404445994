//! Run a command from an argument list (never through a shell) with a timeout.
//! On expiry the whole process group is killed, so grandchildren go too.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Most bytes kept of each of stdout and stderr.
pub const MAX_OUTPUT: usize = 1024 * 1024;

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
    /// It ran longer than the timeout and was killed.
    TimedOut(u64),
}

impl std::fmt::Display for RunError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunError::Empty => write!(f, "empty command"),
            RunError::Spawn(e) => write!(f, "cannot start: {e}"),
            RunError::TimedOut(ms) => write!(f, "timed out after {ms} ms (process group killed)"),
        }
    }
}

/// Run `argv` in `cwd` with stdin closed and exactly the environment `env` (the
/// hook's own, so a fact sees what the hook sees; `PATH` in it finds the program),
/// killing its process group after `timeout_ms`.
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
    let out = child.stdout.take().map(reader);
    let err = child.stderr.take().map(reader);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let status = match rx.recv_timeout(Duration::from_millis(timeout_ms)) {
        Ok(s) => s.ok(),
        Err(_) => {
            kill_group(pid);
            let _ = rx.recv_timeout(Duration::from_millis(1000));
            return Err(RunError::TimedOut(timeout_ms));
        }
    };
    // The command is done: background children it left in its group are killed,
    // which also closes the pipes they held, so its output arrives in full.
    kill_group(pid);
    let collect = |r: Option<mpsc::Receiver<Vec<u8>>>| {
        r.and_then(|r| r.recv_timeout(Duration::from_millis(2000)).ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let stdout = collect(out);
    let stderr = collect(err);
    let code = status.and_then(|s| s.code());
    Ok(Output {
        status: code,
        ok: code == Some(0),
        stdout,
        stderr,
    })
}

fn reader(mut r: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = MAX_OUTPUT.saturating_sub(kept.len());
                    kept.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        let _ = tx.send(kept);
    });
    rx
}

fn kill_group(pid: i32) {
    // SAFETY: kill(2) with a negative pid signals the process group we created
    // with process_group(0); it has no memory-safety preconditions.
    unsafe {
        libc::kill(-pid, libc::SIGKILL);
    }
}
