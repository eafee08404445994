//! The harness for `tests/reliability/*.toml`: each case is one run of the real
//! binary in a fresh sandbox, described as data (see `tests/reliability/README.md`).
//!
//! A sandbox is a temporary root holding `project/` (`CLAUDE_PROJECT_DIR` and the
//! working directory), `outside/` (what must stay untouched), `home/` (`HOME`,
//! with the user layer in `home/.config/hookrules/`) and `policies/`. Every run has
//! a 60 s watchdog and is checked for panics; a non-empty stdout must be one JSON
//! object.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde_json::Value;

/// The binary under test: this build, or `HOOKRULES_BIN` (to replay the cases
/// against an older build and see which faults it had).
pub fn bin() -> String {
    std::env::var("HOOKRULES_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_hookrules").to_string())
}
/// No single run may take longer than this.
const WATCHDOG: Duration = Duration::from_secs(60);

/// Settings shared by the cases of a file (each case can override them).
#[derive(Debug, Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    #[serde(default)]
    files: BTreeMap<String, String>,
    policies: Option<Vec<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    setup: Vec<Setup>,
}

/// A data file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DataFile {
    #[serde(default)]
    defaults: Defaults,
    case: Vec<Case>,
}

/// One case.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Case {
    /// A unique name (the README's fault table cites it).
    pub name: String,
    /// The fault, for the README's table (cases without one are not listed).
    pub fault: Option<String>,
    /// What the user sees under the fault, for the table.
    pub sees: Option<String>,
    /// The issue item it reproduces (`13.1`).
    pub issue: Option<String>,
    #[serde(default)]
    files: BTreeMap<String, String>,
    /// `--policies` values (sandbox-relative paths or `builtin:NAME`); `[]` for
    /// the layers. Default: the file's `[defaults]`, else the layers.
    policies: Option<Vec<String>>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    /// Extra arguments after `run` (or after `cmd`).
    #[serde(default)]
    args: Vec<String>,
    /// Another command instead of `run` (`["test", "$ROOT/fixtures"]`).
    cmd: Option<Vec<String>>,
    #[serde(default)]
    setup: Vec<Setup>,
    /// Run as `nobody` (skipped unless the tests run as root with setpriv).
    #[serde(default)]
    as_nobody: bool,
    /// Only for a statically linked binary (no ELF interpreter): a fault the
    /// dynamic loader meets before hookrules runs (`NOFILE = 3`). Skipped, and
    /// said, for a dynamically linked one; run it with `HOOKRULES_BIN` set to a
    /// static build.
    #[serde(default)]
    static_only: bool,
    /// Raw stdin (substituted).
    stdin: Option<String>,
    /// stdin in pieces: text, hex bytes, or a repeated text.
    stdin_parts: Option<Vec<Part>>,
    /// A PreToolUse Bash event with this command, in the project.
    bash: Option<String>,
    /// An event as a table (strings substituted; `session_id` and `cwd` added when absent).
    event: Option<toml::Value>,
    /// Keep stdin open after writing it (a client that never closes it).
    #[serde(default)]
    stdin_open: bool,
    /// What the parent does to `SIGALRM` before starting the binary: `blocked`,
    /// `ignored`, or both (`blocked-ignored`); mask and disposition survive exec.
    sigalrm: Option<String>,
    /// Run under an address-space limit of this many MiB (`ulimit -v`,
    /// `RLIMIT_AS`), set in the child before it starts.
    address_space_mib: Option<u64>,
    /// More resource limits, set in the child before it starts: `STACK`
    /// (`ulimit -s`, bytes), `FSIZE` (`ulimit -f`, bytes), `NOFILE`
    /// (`ulimit -n`, descriptors).
    #[serde(default)]
    rlimits: BTreeMap<String, u64>,
    /// Run once per value, with `$EACH` substituted.
    each: Option<Vec<String>>,
    /// What must hold afterwards.
    #[serde(default)]
    expect: Expect,
}

/// A piece of stdin.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Part {
    text: Option<String>,
    hex: Option<String>,
    repeat: Option<String>,
    times: Option<usize>,
}

/// A step run before the binary (paths relative to the sandbox root).
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Setup {
    mkfifo: Option<String>,
    mkdir: Option<String>,
    symlink: Option<String>,
    to: Option<String>,
    chmod: Option<String>,
    mode: Option<String>,
    /// Write these bytes (`hex`) to this path.
    write_hex: Option<String>,
    hex: Option<String>,
    /// Write `text` repeated `times` times to this path.
    write_repeat: Option<String>,
    text: Option<String>,
    times: Option<usize>,
    /// Wait this long (for mtimes that must differ).
    sleep_ms: Option<u64>,
}

/// Expectations.
#[derive(Debug, Deserialize, Default, Clone)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    exit: Option<i32>,
    /// `deny`, `ask`, `allow`, `block`, `stop` or `none`, read from the answer.
    decision: Option<String>,
    reason: Option<String>,
    #[serde(default)]
    reason_contains: Vec<String>,
    #[serde(default)]
    reason_excludes: Vec<String>,
    stdout: Option<String>,
    #[serde(default)]
    stdout_contains: Vec<String>,
    #[serde(default)]
    stdout_excludes: Vec<String>,
    #[serde(default)]
    stderr_contains: Vec<String>,
    #[serde(default)]
    stderr_excludes: Vec<String>,
    /// Dotted paths into the answer JSON, with their exact values.
    #[serde(default)]
    json: BTreeMap<String, toml::Value>,
    /// stdout closed (the answer complete) within this many ms.
    answer_within_ms: Option<u64>,
    /// The process exited within this many ms.
    exit_within_ms: Option<u64>,
    /// Files (sandbox-relative) with their exact content afterwards.
    #[serde(default)]
    files: BTreeMap<String, String>,
    /// Files (sandbox-relative) whose content contains the text.
    #[serde(default)]
    files_contain: BTreeMap<String, String>,
    /// Files (sandbox-relative) whose content must not contain any of the texts.
    #[serde(default)]
    files_exclude: BTreeMap<String, Vec<String>>,
    /// Paths that must not exist afterwards.
    #[serde(default)]
    absent: Vec<String>,
    /// Folders whose every file, link and content must be as before the run.
    #[serde(default)]
    unchanged: Vec<String>,
    /// Processes whose command line holds `$MARKER` still running afterwards
    /// (after a 3 s grace); usually 0.
    survivors: Option<usize>,
}

/// How the child process is set up (what a parent might hand down).
#[derive(Default)]
pub struct Spawn<'a> {
    /// Run as `nobody` (setpriv).
    pub as_nobody: bool,
    /// Hold stdin open until the child exits.
    pub keep_open: bool,
    /// What the parent does to `SIGALRM` before exec (see [`Case`]).
    pub sigalrm: Option<&'a str>,
    /// Limit the child's address space (`RLIMIT_AS`), in MiB.
    pub address_space_mib: Option<u64>,
    /// More limits (see [`Case`]): resource name and value.
    pub rlimits: Option<&'a BTreeMap<String, u64>>,
}

/// What one run printed, and when.
pub struct Out {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Until stdout closed: the answer was complete.
    pub answered: Duration,
    /// Until the process exited.
    pub exited: Duration,
}

impl std::fmt::Debug for Out {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cut = |s: &str| -> String {
            if s.len() > 1500 {
                let mut end = 1500;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                format!("{}… ({} bytes)", &s[..end], s.len())
            } else {
                s.to_string()
            }
        };
        write!(
            f,
            "\n  exit: {:?}, answer after {:?}, exit after {:?}\n  stdout: {}\n  stderr: {}\n",
            self.code,
            self.answered,
            self.exited,
            cut(&self.stdout),
            cut(&self.stderr)
        )
    }
}

/// The sandbox of one case.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub project: PathBuf,
    pub marker: String,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("hookrules-rel-")
            .tempdir()
            .unwrap();
        let root = dir.path().canonicalize().unwrap();
        for d in ["project", "outside", "home/.config", "policies"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Sandbox {
            _dir: dir,
            project: root.join("project"),
            root,
            marker: unique_marker(),
        }
    }

    /// `$ROOT`, `$PROJECT`, `$OUTSIDE`, `$HOME`, `$MARKER`, `$UP` (enough `../`
    /// to climb from the project to `/`), `$REPO` (this repository) and `$EACH`.
    pub fn subst(&self, s: &str, each: Option<&str>) -> String {
        let mut s = s.to_string();
        if let Some(e) = each {
            // `a|b`: `$EACH1` and `$EACH2` are the parts, `$EACH` the whole.
            let mut parts = e.splitn(2, '|');
            let one = parts.next().unwrap_or("");
            let two = parts.next().unwrap_or("");
            s = s
                .replace("$EACH1", one)
                .replace("$EACH2", two)
                .replace("$EACH", e);
        }
        let up = "../".repeat(self.project.components().count() + 2);
        s.replace("$PROJECT", &self.project.display().to_string())
            .replace("$OUTSIDE", &self.root.join("outside").display().to_string())
            .replace("$HOME", &self.root.join("home").display().to_string())
            .replace("$ROOT", &self.root.display().to_string())
            .replace("$MARKER", &self.marker)
            .replace("$UP", &up)
            .replace("$REPO", env!("CARGO_MANIFEST_DIR"))
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, text).unwrap();
    }

    fn setup(&self, step: &Setup, each: Option<&str>) {
        let s = |x: &Option<String>| x.as_deref().map(|v| self.subst(v, each));
        if let Some(p) = s(&step.mkdir) {
            std::fs::create_dir_all(self.path(&p)).unwrap();
        }
        if let Some(p) = s(&step.mkfifo) {
            let p = self.path(&p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            assert!(Command::new("mkfifo").arg(&p).status().unwrap().success());
        }
        if let Some(link) = s(&step.symlink) {
            let to = s(&step.to).expect("symlink needs `to`");
            let link = self.path(&link);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            let target = if to.starts_with('/') {
                PathBuf::from(to)
            } else {
                self.path(&to)
            };
            std::os::unix::fs::symlink(target, link).unwrap();
        }
        if let Some(p) = s(&step.chmod) {
            let mode = u32::from_str_radix(step.mode.as_deref().expect("chmod needs `mode`"), 8)
                .expect("octal mode");
            std::fs::set_permissions(
                self.path(&p),
                std::os::unix::fs::PermissionsExt::from_mode(mode),
            )
            .unwrap();
        }
        if let Some(p) = s(&step.write_hex) {
            let p = self.path(&p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(
                p,
                hex_bytes(step.hex.as_deref().expect("write_hex needs `hex`")),
            )
            .unwrap();
        }
        if let Some(p) = s(&step.write_repeat) {
            let p = self.path(&p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            let text = s(&step.text).expect("write_repeat needs `text`");
            std::fs::write(
                p,
                text.repeat(step.times.expect("write_repeat needs `times`")),
            )
            .unwrap();
        }
        if let Some(ms) = step.sleep_ms {
            std::thread::sleep(Duration::from_millis(ms));
        }
    }

    /// Run the binary with a clean environment; stdin written from a thread.
    pub fn spawn(
        &self,
        args: &[String],
        env: &BTreeMap<String, String>,
        stdin: Vec<u8>,
        as_nobody: bool,
    ) -> Out {
        let how = Spawn {
            as_nobody,
            ..Spawn::default()
        };
        self.spawn_with(args, env, stdin, how)
    }

    /// [`Sandbox::spawn`], with the process set up as `how` says.
    pub fn spawn_with(
        &self,
        args: &[String],
        env: &BTreeMap<String, String>,
        stdin: Vec<u8>,
        how: Spawn<'_>,
    ) -> Out {
        let Spawn {
            as_nobody,
            keep_open,
            sigalrm,
            address_space_mib,
            rlimits,
        } = how;
        let mut cmd = if as_nobody {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]);
            c.arg(bin());
            c
        } else {
            Command::new(bin())
        };
        cmd.args(args)
            .env_clear()
            .env(
                "PATH",
                std::env::var("PATH").unwrap_or_else(|_| "/usr/bin:/bin".into()),
            )
            .env("HOME", self.root.join("home"))
            .env("XDG_CONFIG_HOME", self.root.join("home/.config"))
            // hookrules' own decision log, outside what the cases look at.
            .env("XDG_STATE_HOME", self.root.join("state"))
            .env("CLAUDE_PROJECT_DIR", &self.project)
            .env("HOOKRULES_CACHE_DIR", self.root.join("cache"))
            .envs(env)
            .current_dir(&self.project)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(how) = sigalrm {
            let (block, ignore) = match how {
                "blocked" => (true, false),
                "ignored" => (false, true),
                "blocked-ignored" => (true, true),
                other => panic!("sigalrm: `{other}` is not blocked, ignored or blocked-ignored"),
            };
            use std::os::unix::process::CommandExt;
            // SAFETY: between fork and exec only async-signal-safe calls
            // (sigprocmask, signal) on fully initialised values.
            unsafe {
                cmd.pre_exec(move || {
                    if block {
                        let mut set: libc::sigset_t = std::mem::zeroed();
                        libc::sigemptyset(&mut set);
                        libc::sigaddset(&mut set, libc::SIGALRM);
                        libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                    }
                    if ignore {
                        libc::signal(libc::SIGALRM, libc::SIG_IGN);
                    }
                    Ok(())
                });
            }
        }
        let mut limits: Vec<(libc::__rlimit_resource_t, u64)> = vec![];
        if let Some(mib) = address_space_mib {
            limits.push((libc::RLIMIT_AS, mib << 20));
        }
        for (name, value) in rlimits.into_iter().flatten() {
            let resource = match name.as_str() {
                "STACK" => libc::RLIMIT_STACK,
                "FSIZE" => libc::RLIMIT_FSIZE,
                "NOFILE" => libc::RLIMIT_NOFILE,
                other => panic!("unknown rlimit {other} (STACK, FSIZE, NOFILE)"),
            };
            limits.push((resource, *value));
        }
        for (resource, bytes) in limits {
            use std::os::unix::process::CommandExt;
            // SAFETY: setrlimit(2) is async-signal-safe and touches only the child.
            unsafe {
                cmd.pre_exec(move || {
                    let limit = libc::rlimit {
                        rlim_cur: bytes,
                        rlim_max: bytes,
                    };
                    if libc::setrlimit(resource, &limit) == 0 {
                        Ok(())
                    } else {
                        Err(std::io::Error::last_os_error())
                    }
                });
            }
        }
        let started = Instant::now();
        let mut child = cmd.spawn().expect("spawn hookrules");
        let mut input = child.stdin.take().unwrap();
        // A child that refuses oversized input closes the pipe early: EPIPE is fine.
        let (hold_tx, hold_rx) = std::sync::mpsc::channel::<()>();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&stdin);
            if keep_open {
                let _ = hold_rx.recv();
            }
        });
        let mut so = child.stdout.take().unwrap();
        let stdout = std::thread::spawn(move || {
            let mut v = vec![];
            let _ = so.read_to_end(&mut v);
            (v, started.elapsed())
        });
        let mut se = child.stderr.take().unwrap();
        let stderr = std::thread::spawn(move || {
            let mut v = vec![];
            let _ = se.read_to_end(&mut v);
            v
        });
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if started.elapsed() > WATCHDOG {
                let _ = child.kill();
                let _ = child.wait();
                panic!("hookrules hung: no exit after {WATCHDOG:?}");
            }
            std::thread::sleep(Duration::from_millis(2));
        };
        let exited = started.elapsed();
        drop(hold_tx);
        let _ = writer.join();
        let (out, answered) = stdout.join().unwrap();
        let out = Out {
            code: status.code(),
            stdout: String::from_utf8_lossy(&out).into_owned(),
            stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
            answered: answered.min(exited),
            exited,
        };
        assert!(
            !out.stderr.contains("panicked at"),
            "hookrules panicked: {out:?}"
        );
        assert!(
            out.code.is_some(),
            "hookrules was killed by a signal: {out:?}"
        );
        assert!(
            !out.stderr.contains("internal error"),
            "hookrules caught a panic of its own: {out:?}"
        );
        out
    }
}

fn unique_marker() -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    format!(
        "60.{}{:04}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A PreToolUse Bash event.
pub fn pre_bash(cwd: &str, command: &str) -> String {
    serde_json::json!({
        "session_id": "3f1c2a9e", "transcript_path": "/nonexistent/t.jsonl", "cwd": cwd,
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run"}, "tool_use_id": "toolu_1",
    })
    .to_string()
}

fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => Value::from(*i),
        toml::Value::Float(f) => Value::from(*f),
        toml::Value::Boolean(b) => Value::Bool(*b),
        toml::Value::Datetime(d) => Value::String(d.to_string()),
        toml::Value::Array(a) => Value::Array(a.iter().map(toml_to_json).collect()),
        toml::Value::Table(t) => Value::Object(
            t.iter()
                .map(|(k, v)| (k.clone(), toml_to_json(v)))
                .collect(),
        ),
    }
}

fn subst_json(v: &mut Value, f: &dyn Fn(&str) -> String) {
    match v {
        Value::String(s) => *s = f(s),
        Value::Array(a) => a.iter_mut().for_each(|x| subst_json(x, f)),
        Value::Object(m) => m.values_mut().for_each(|x| subst_json(x, f)),
        _ => {}
    }
}

fn hex_bytes(h: &str) -> Vec<u8> {
    h.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).expect("hex byte"))
        .collect()
}

/// The decision the answer carries.
pub fn decision_of(stdout: &str) -> (String, String) {
    if stdout.trim().is_empty() {
        return ("none".into(), String::new());
    }
    let j: Value = serde_json::from_str(stdout).unwrap_or(Value::Null);
    let s = |p: &str| j.pointer(p).and_then(Value::as_str).map(String::from);
    if j.get("continue") == Some(&Value::Bool(false)) {
        return ("stop".into(), s("/stopReason").unwrap_or_default());
    }
    if let Some(d) = s("/hookSpecificOutput/permissionDecision") {
        return (
            d,
            s("/hookSpecificOutput/permissionDecisionReason").unwrap_or_default(),
        );
    }
    if let Some(d) = s("/hookSpecificOutput/decision/behavior") {
        return (
            d,
            s("/hookSpecificOutput/decision/message").unwrap_or_default(),
        );
    }
    if s("/decision").as_deref() == Some("block") {
        return ("block".into(), s("/reason").unwrap_or_default());
    }
    ("none".into(), String::new())
}

/// Every file under `dir` with its content (symlinks as `-> target`).
fn snapshot(dir: &Path) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let ft = e.file_type().unwrap();
            let content = if ft.is_symlink() {
                format!("-> {}", std::fs::read_link(&p).unwrap().display())
            } else if ft.is_dir() {
                stack.push(p.clone());
                "<dir>".into()
            } else if ft.is_file() {
                String::from_utf8_lossy(&std::fs::read(&p).unwrap_or_default()).into_owned()
            } else {
                "<special>".into()
            };
            out.insert((p.display().to_string(), content));
        }
    }
    out
}

/// Live processes whose command line contains `marker`.
pub fn processes_with(marker: &str) -> Vec<u32> {
    let me = std::process::id();
    let mut found = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        if let Ok(cmd) = std::fs::read(e.path().join("cmdline")) {
            if String::from_utf8_lossy(&cmd)
                .replace('\0', " ")
                .contains(marker)
            {
                found.push(pid);
            }
        }
    }
    found
}

/// The cases of a data file, as written (for the fault table's check).
pub fn cases(path: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path).unwrap();
    let file: DataFile = toml::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a valid case file: {e}", path.display()));
    file.case
}

/// The measured times of one case, for the fault table.
pub struct Timing {
    pub name: String,
    pub fault: Option<String>,
    pub sees: Option<String>,
    pub issue: Option<String>,
    pub answered: Duration,
    pub exited: Duration,
}

/// Run every case of a data file; return the problems (empty: all passed) and
/// the timings.
pub fn run_file(path: &Path) -> (Vec<String>, Vec<Timing>) {
    let text = std::fs::read_to_string(path).unwrap();
    let file: DataFile = toml::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a valid case file: {e}", path.display()));
    let mut problems = vec![];
    let mut timings = vec![];
    let root_ok = is_root_with_setpriv();
    for case in &file.case {
        let values: Vec<Option<String>> = match &case.each {
            Some(v) => v.iter().cloned().map(Some).collect(),
            None => vec![None],
        };
        for (i, each) in values.iter().enumerate() {
            let name = match each {
                Some(_) => format!("{}[{i}]", case.name),
                None => case.name.clone(),
            };
            if case.as_nobody && !root_ok {
                eprintln!("note: {name}: skipped (needs root and setpriv to run as nobody)");
                continue;
            }
            if case.static_only && !is_static(Path::new(&bin())) {
                eprintln!("note: {name}: skipped (the binary is dynamically linked; set HOOKRULES_BIN to a static build)");
                continue;
            }
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_case(&file.defaults, case, each.as_deref())
            }));
            match result {
                Ok((errs, out)) => {
                    for e in errs {
                        problems.push(format!("{}: {name}: {e}\n{out:?}", path.display()));
                    }
                    timings.push(Timing {
                        name: name.clone(),
                        fault: case.fault.clone(),
                        sees: case.sees.clone(),
                        issue: case.issue.clone(),
                        answered: out.answered,
                        exited: out.exited,
                    });
                }
                Err(p) => {
                    let msg = p
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    problems.push(format!("{}: {name}: {msg}", path.display()));
                }
            }
        }
    }
    (problems, timings)
}

fn is_root_with_setpriv() -> bool {
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    root && Command::new("setpriv")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn run_case(defaults: &Defaults, case: &Case, each: Option<&str>) -> (Vec<String>, Out) {
    let sb = Sandbox::new();
    if case.as_nobody {
        // nobody must reach the sandbox and write in it.
        for d in [&sb.root, &sb.project] {
            std::fs::set_permissions(d, std::os::unix::fs::PermissionsExt::from_mode(0o777))
                .unwrap();
        }
        std::fs::set_permissions(
            sb.root.parent().unwrap(),
            std::os::unix::fs::PermissionsExt::from_mode(0o1777),
        )
        .ok();
    }
    let sub = |s: &str| sb.subst(s, each);
    for (rel, text) in defaults.files.iter().chain(&case.files) {
        sb.write(&sub(rel), &sub(text));
    }
    for step in defaults.setup.iter().chain(&case.setup) {
        sb.setup(step, each);
    }
    let mut args: Vec<String> = match &case.cmd {
        Some(c) => c.iter().map(|a| sub(a)).collect(),
        None => vec!["run".into()],
    };
    let is_run = args.first().map(String::as_str) == Some("run");
    if is_run {
        let policies = case
            .policies
            .clone()
            .or_else(|| defaults.policies.clone())
            .unwrap_or_default();
        for p in policies {
            args.push("--policies".into());
            if p.starts_with("builtin:") || p.starts_with('/') {
                args.push(sub(&p));
            } else {
                args.push(sb.path(&sub(&p)).display().to_string());
            }
        }
    }
    args.extend(case.args.iter().map(|a| sub(a)));
    let env: BTreeMap<String, String> = defaults
        .env
        .iter()
        .chain(&case.env)
        .map(|(k, v)| (k.clone(), sub(v)))
        .collect();
    let stdin: Vec<u8> = if let Some(s) = &case.stdin {
        sub(s).into_bytes()
    } else if let Some(parts) = &case.stdin_parts {
        let mut b = vec![];
        for p in parts {
            if let Some(t) = &p.text {
                b.extend_from_slice(sub(t).as_bytes());
            }
            if let Some(h) = &p.hex {
                b.extend(hex_bytes(h));
            }
            if let Some(r) = &p.repeat {
                b.extend_from_slice(sub(r).repeat(p.times.unwrap_or(1)).as_bytes());
            }
        }
        b
    } else if let Some(c) = &case.bash {
        pre_bash(&sb.project.display().to_string(), &sub(c)).into_bytes()
    } else if let Some(e) = &case.event {
        let mut v = toml_to_json(e);
        subst_json(&mut v, &sub);
        if let Value::Object(m) = &mut v {
            m.entry("session_id").or_insert_with(|| "s".into());
            m.entry("cwd")
                .or_insert_with(|| sb.project.display().to_string().into());
        }
        v.to_string().into_bytes()
    } else {
        vec![]
    };
    let x = &case.expect;
    let before: Vec<BTreeSet<(String, String)>> = x
        .unchanged
        .iter()
        .map(|d| snapshot(&sb.path(&sub(d))))
        .collect();
    let how = Spawn {
        as_nobody: case.as_nobody,
        keep_open: case.stdin_open,
        sigalrm: case.sigalrm.as_deref(),
        address_space_mib: case.address_space_mib,
        rlimits: Some(&case.rlimits),
    };
    let out = sb.spawn_with(&args, &env, stdin, how);
    let mut errs = vec![];
    let mut check = |ok: bool, what: String| {
        if !ok {
            errs.push(what);
        }
    };
    if let Some(code) = x.exit {
        check(out.code == Some(code), format!("exit: expected {code}"));
    }
    if is_run && !out.stdout.is_empty() {
        let parsed: Result<Value, _> = serde_json::from_str(&out.stdout);
        check(
            parsed.as_ref().is_ok_and(Value::is_object),
            "stdout is not one JSON object".into(),
        );
    }
    let (decision, reason) = decision_of(&out.stdout);
    if let Some(d) = &x.decision {
        check(
            &decision == d,
            format!("decision: expected {d}, got {decision}"),
        );
    }
    if let Some(r) = &x.reason {
        let r = sub(r);
        check(
            reason == r,
            format!("reason: expected {r:?}, got {reason:?}"),
        );
    }
    for s in &x.reason_contains {
        check(
            reason.contains(&sub(s)),
            format!("reason should contain {s:?}"),
        );
    }
    for s in &x.reason_excludes {
        check(
            !reason.contains(&sub(s)),
            format!("reason should not contain {s:?}"),
        );
    }
    if let Some(s) = &x.stdout {
        check(out.stdout == sub(s), format!("stdout: expected {s:?}"));
    }
    for s in &x.stdout_contains {
        check(
            out.stdout.contains(&sub(s)),
            format!("stdout should contain {s:?}"),
        );
    }
    for s in &x.stdout_excludes {
        check(
            !out.stdout.contains(&sub(s)),
            format!("stdout should not contain {s:?}"),
        );
    }
    for s in &x.stderr_contains {
        check(
            out.stderr.contains(&sub(s)),
            format!("stderr should contain {s:?}"),
        );
    }
    for s in &x.stderr_excludes {
        check(
            !out.stderr.contains(&sub(s)),
            format!("stderr should not contain {s:?}"),
        );
    }
    if !x.json.is_empty() {
        let j: Value = serde_json::from_str(&out.stdout).unwrap_or(Value::Null);
        for (path, want) in &x.json {
            let pointer = format!("/{}", path.replace('.', "/"));
            let mut want = toml_to_json(want);
            subst_json(&mut want, &sub);
            let got = j.pointer(&pointer).cloned().unwrap_or(Value::Null);
            check(got == want, format!("{path}: expected {want}, got {got}"));
        }
    }
    if let Some(ms) = x.answer_within_ms {
        check(
            out.answered <= Duration::from_millis(ms),
            format!("the answer took {:?}, more than {ms} ms", out.answered),
        );
    }
    if let Some(ms) = x.exit_within_ms {
        check(
            out.exited <= Duration::from_millis(ms),
            format!("the process took {:?}, more than {ms} ms", out.exited),
        );
    }
    for (rel, want) in &x.files {
        let got = std::fs::read_to_string(sb.path(&sub(rel))).ok();
        check(
            got.as_deref() == Some(sub(want).as_str()),
            format!("file {rel}: expected {want:?}, found {got:?}"),
        );
    }
    for (rel, want) in &x.files_contain {
        let got = std::fs::read_to_string(sb.path(&sub(rel))).unwrap_or_default();
        check(
            got.contains(&sub(want)),
            format!("file {rel}: should contain {want:?}, found {got:?}"),
        );
    }
    for (rel, bad) in &x.files_exclude {
        let got = std::fs::read_to_string(sb.path(&sub(rel))).unwrap_or_default();
        for b in bad {
            check(
                !got.contains(&sub(b)),
                format!("file {rel}: should not contain {b:?}"),
            );
        }
    }
    for rel in &x.absent {
        let p = sb.path(&sub(rel));
        check(
            std::fs::symlink_metadata(&p).is_err(),
            format!("{rel} should not exist"),
        );
    }
    for (d, before) in x.unchanged.iter().zip(before) {
        let after = snapshot(&sb.path(&sub(d)));
        let changed: Vec<_> = after.symmetric_difference(&before).collect();
        check(changed.is_empty(), format!("{d} changed: {changed:?}"));
    }
    if let Some(n) = x.survivors {
        let until = Instant::now() + Duration::from_secs(3);
        let mut left = processes_with(&sb.marker);
        while left.len() > n && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(50));
            left = processes_with(&sb.marker);
        }
        for pid in &left {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
        }
        check(
            left.len() == n,
            format!(
                "{} process(es) survived, expected {n}: {left:?}",
                left.len()
            ),
        );
    }
    (errs, out)
}

/// Is `path` an ELF executable without an interpreter (`PT_INTERP`), i.e.
/// statically linked? False when it cannot be read as 64-bit ELF.
pub fn is_static(path: &Path) -> bool {
    let Ok(b) = std::fs::read(path) else {
        return false;
    };
    let u16_at = |o: usize| {
        b.get(o..o + 2)
            .map(|x| u16::from_le_bytes([x[0], x[1]]) as usize)
    };
    let u32_at = |o: usize| {
        b.get(o..o + 4)
            .map(|x| u32::from_le_bytes(x.try_into().unwrap()))
    };
    let u64_at = |o: usize| {
        b.get(o..o + 8)
            .map(|x| u64::from_le_bytes(x.try_into().unwrap()) as usize)
    };
    if b.get(..5) != Some(b"\x7fELF\x02") {
        return false;
    }
    let (Some(phoff), Some(size), Some(n)) = (u64_at(0x20), u16_at(0x36), u16_at(0x38)) else {
        return false;
    };
    const PT_INTERP: u32 = 3;
    (0..n).all(|i| u32_at(phoff + i * size).is_some_and(|t| t != PT_INTERP))
}
