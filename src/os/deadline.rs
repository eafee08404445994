//! One deadline for the whole answer.
//!
//! The client kills a hook that outlives the `timeout` of its registration and
//! then carries on as if the hook had said nothing: a deny that arrives late is
//! no deny. So `hookrules run` works to a [`Deadline`] below that timeout:
//!
//! - every bounded wait (a `command` fact, a `run` effect) is cut to what is left
//!   of it ([`Deadline::cap`]), so a slow command fails through its policy's
//!   failure mode in time;
//! - a [`Watchdog`] covers everything else that could stall (a stuck system
//!   call, a huge input, a bug): a `SIGALRM` timer armed for the deadline. When
//!   it fires and no answer has been printed, its handler prints the fallback
//!   answer it was given (the policies' failure mode for this event), ends every
//!   child process and exits. After the answer, it ends the side effects still
//!   running and exits;
//! - a panic anywhere (a bug) is handed to the watchdog by the process's panic
//!   hook ([`on_panic`]), which ends the process the same way: with the failure
//!   mode's answer before the answer, with the answer as printed after it.
//!
//! The answer is printed exactly once, by whichever of the two gets there first
//! (one atomic state decides). Both write with `write(2)` on the raw
//! descriptors, never through `std::io::stdout()` (whose lock the interrupted
//! code might hold).

use std::sync::atomic::Ordering::SeqCst;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicPtr, AtomicU8, AtomicUsize};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A point in time by which the answer (and its side effects) must be done;
/// or none (in-process callers such as `hookrules test`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    at: Option<Instant>,
}

impl Deadline {
    /// No deadline.
    pub fn none() -> Deadline {
        Deadline { at: None }
    }

    /// `budget` from `start`.
    pub fn at(start: Instant, budget: Duration) -> Deadline {
        Deadline {
            at: Some(start + budget),
        }
    }

    /// What is left (None: no deadline).
    pub fn remaining(&self) -> Option<Duration> {
        self.at
            .map(|at| at.saturating_duration_since(Instant::now()))
    }

    /// Has it passed?
    pub fn passed(&self) -> bool {
        self.remaining().is_some_and(|r| r.is_zero())
    }

    /// A wait of `want` cut to fit: at most what is left minus `reserve` (the time
    /// the work after the wait needs). Returns the wait and whether it was cut.
    pub fn cap(&self, want: Duration, reserve: Duration) -> (Duration, bool) {
        match self.remaining() {
            None => (want, false),
            Some(left) => {
                let room = left.saturating_sub(reserve);
                if room < want {
                    (room, true)
                } else {
                    (want, false)
                }
            }
        }
    }
}

/// The time kept back when a wait is cut to fit the deadline: for ending the
/// command's processes and for the answer itself (rendering, printing). A tenth
/// of what is left, between 100 and 500 ms.
pub fn reserve(deadline: &Deadline) -> Duration {
    deadline
        .remaining()
        .map(|r| (r / 10).clamp(Duration::from_millis(100), Duration::from_millis(500)))
        .unwrap_or(Duration::ZERO)
}

/// The budget for a client timeout of `timeout` seconds: the timeout less a
/// margin for starting the process and for the client's own bookkeeping (a tenth,
/// between 300 ms and 2 s).
pub fn budget_for_timeout(timeout: Duration) -> Duration {
    let margin = (timeout / 10).clamp(Duration::from_millis(300), Duration::from_secs(2));
    timeout
        .saturating_sub(margin)
        .max(Duration::from_millis(100))
}

/// What to print and how to exit.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// stdout (one JSON object, or empty).
    pub stdout: String,
    /// stderr.
    pub stderr: String,
    /// Exit status.
    pub exit: i32,
}

/// Where the answer is (one process-wide value: the watchdog is a signal).
const PENDING: u8 = 0;
/// The main thread is writing its answer.
const WRITING: u8 = 1;
/// The answer is printed; the work after it is running.
const ANSWERED: u8 = 2;
/// The work is done: the timer is off and a late signal does nothing.
const DONE: u8 = 3;
/// The deadline passed: the signal handler prints (or printed) the fallback
/// and ends the process.
const EXPIRED: u8 = 4;

static STATE: AtomicU8 = AtomicU8::new(DONE);
/// The one grace period given to an answer being written has started.
static GRACE: AtomicBool = AtomicBool::new(false);
/// Exit status of the printed answer.
static EXIT: AtomicI32 = AtomicI32::new(0);
/// What to print if the deadline passes first: a leaked [`Fallback`], replaced
/// (never freed: the handler may be reading it on another thread) as the event
/// becomes known.
static FALLBACK: AtomicPtr<Fallback> = AtomicPtr::new(std::ptr::null_mut());
/// What ends the child processes (async-signal-safe), as a `fn()` address.
static ON_EXPIRY: AtomicUsize = AtomicUsize::new(0);

/// A [`Reply`] rendered to bytes, so the handler only calls `write(2)`.
struct Fallback {
    stdout: Box<[u8]>,
    stderr: Box<[u8]>,
    exit: i32,
}

/// How long an answer that is being written when the deadline passes may take.
const WRITE_GRACE: Duration = Duration::from_millis(200);

/// The watchdog: a `SIGALRM` timer armed for the deadline, whose handler prints
/// the fallback answer, ends every child process and exits, unless the main
/// thread got its answer out first. See the module docs.
///
/// A timer, not a thread: a second thread costs every `hookrules run` its
/// creation, the wake-ups each time the deadline or fallback changes, and the
/// process's exit waiting for it on the other CPU (+0.2-0.4 ms on a 1 ms floor,
/// `perf stat -r 400` on an idle machine). The handler does only what is
/// async-signal-safe: atomics, `write(2)`, `kill(2)`, `waitpid(2)`, reading
/// `/proc` into stack buffers, `_exit(2)`. It may run on any thread of the
/// process; every step is decided by one atomic state, so the answer is still
/// printed exactly once.
///
/// One per process (`hookrules run` starts it once); starting it again resets it.
#[derive(Debug)]
pub struct Watchdog {
    deadline: Mutex<Deadline>,
}

impl Watchdog {
    /// Start watching: `fallback` is printed if the deadline passes first;
    /// `on_expiry` runs before the process exits (it ends child processes, and
    /// must be async-signal-safe).
    pub fn start(deadline: Deadline, fallback: Reply, on_expiry: fn()) -> Watchdog {
        ON_EXPIRY.store(on_expiry as usize, SeqCst);
        GRACE.store(false, SeqCst);
        let w = Watchdog {
            deadline: Mutex::new(deadline),
        };
        w.set_fallback(fallback);
        STATE.store(PENDING, SeqCst);
        take_sigalrm();
        arm(deadline.remaining());
        w
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Deadline> {
        self.deadline.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The deadline now in force.
    pub fn deadline(&self) -> Deadline {
        *self.lock()
    }

    /// Move the deadline (once the event, and so its registered timeout, is known).
    pub fn set_deadline(&self, deadline: Deadline) {
        *self.lock() = deadline;
        if matches!(STATE.load(SeqCst), PENDING | WRITING | ANSWERED) {
            arm(deadline.remaining());
        }
    }

    /// What to print if the deadline passes before the answer.
    pub fn set_fallback(&self, fallback: Reply) {
        let mut stderr = fallback.stderr.into_bytes();
        if !stderr.is_empty() {
            stderr.push(b'\n');
        }
        let new = Box::into_raw(Box::new(Fallback {
            stdout: fallback.stdout.into_bytes().into_boxed_slice(),
            stderr: stderr.into_boxed_slice(),
            exit: fallback.exit,
        }));
        // The old one is left allocated: the handler may be reading it.
        FALLBACK.swap(new, SeqCst);
    }

    /// Print the answer, unless the deadline already passed (then the handler
    /// is printing the fallback and ending the process; this thread waits for
    /// that). An answer that cannot be written is an error (the caller exits
    /// non-zero).
    pub fn answer(&self, reply: &Reply) -> std::io::Result<()> {
        EXIT.store(reply.exit, SeqCst);
        if STATE
            .compare_exchange(PENDING, WRITING, SeqCst, SeqCst)
            .is_err()
        {
            wait_for_the_end();
        }
        let result = print(reply);
        if STATE
            .compare_exchange(WRITING, ANSWERED, SeqCst, SeqCst)
            .is_err()
        {
            // The grace period ran out during the write: the handler is ending
            // the process with this answer's exit status.
            wait_for_the_end();
        }
        result
    }

    /// The exit status to use if the deadline passes after the answer.
    pub fn set_exit(&self, exit: i32) {
        EXIT.store(exit, SeqCst);
    }

    /// The work is done: stop watching.
    pub fn finish(&self) {
        loop {
            let now = STATE.load(SeqCst);
            if now == EXPIRED {
                wait_for_the_end();
            }
            if STATE.compare_exchange(now, DONE, SeqCst, SeqCst).is_ok() {
                break;
            }
        }
        arm(None);
    }
}

/// Make `SIGALRM` this process's own, whatever the parent left: a mask and a
/// disposition survive `execve`, so a parent that blocked `SIGALRM` (a shell
/// with `trap '' ALRM`, a supervisor that masks signals before `exec`) or set
/// it to be ignored would otherwise leave the deadline without its watchdog.
/// The handler replaces whatever disposition was inherited (ignore included),
/// and the signal is unblocked in this thread, which every later thread
/// inherits (`hookrules run` starts none before this). Nothing here relies
/// on inherited state; `tests/reliability/deadline.toml` starts the real binary
/// with `SIGALRM` blocked and ignored.
fn take_sigalrm() {
    // SAFETY: installs a handler that only does async-signal-safe work (see
    // `on_alarm`); the sigaction struct and the signal set are fully
    // initialised before use, and pthread_sigmask changes only this thread's
    // mask.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_alarm as extern "C" fn(libc::c_int) as usize;
        sa.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut());
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGALRM);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        // A file-size limit (`ulimit -f`): a write past it fails (EFBIG)
        // instead of killing the process (SIGXFSZ's default action), so the
        // log's failure is reported and the exit status is the answer's.
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// Park this thread until the signal handler (running on another) ends the
/// process.
fn wait_for_the_end() -> ! {
    loop {
        // SAFETY: pause(2) only waits for a signal.
        unsafe {
            libc::pause();
        }
    }
}

/// Set the `SIGALRM` timer to `left` from now: None or zero turns it off, except
/// that an already passed deadline (`Some(0)` from `remaining`) fires at once.
fn arm(left: Option<Duration>) {
    let Some(left) = left else {
        set_timer(Duration::ZERO);
        return;
    };
    // setitimer treats zero as "off": a deadline already passed fires in 1 µs.
    set_timer(left.max(Duration::from_micros(1)));
}

fn set_timer(d: Duration) {
    let it = libc::itimerval {
        it_interval: libc::timeval {
            tv_sec: 0,
            tv_usec: 0,
        },
        it_value: libc::timeval {
            tv_sec: d.as_secs().min(i32::MAX as u64) as _,
            tv_usec: d.subsec_micros() as _,
        },
    };
    // SAFETY: setitimer(2) with a fully initialised value and no old-value
    // pointer.
    unsafe {
        libc::setitimer(libc::ITIMER_REAL, &it, std::ptr::null_mut());
    }
}

/// The `SIGALRM` handler. Async-signal-safe only (see [`Watchdog`]).
extern "C" fn on_alarm(_: libc::c_int) {
    loop {
        match STATE.load(SeqCst) {
            PENDING => {
                if STATE
                    .compare_exchange(PENDING, EXPIRED, SeqCst, SeqCst)
                    .is_err()
                {
                    continue;
                }
                expire(print_fallback());
            }
            WRITING => {
                if !GRACE.swap(true, SeqCst) {
                    // The answer is being written: give it a moment (the
                    // interrupted write resumes, SA_RESTART). setitimer with
                    // a valid value cannot fail, so errno is left as it was.
                    set_timer(WRITE_GRACE);
                    return;
                }
                if STATE
                    .compare_exchange(WRITING, EXPIRED, SeqCst, SeqCst)
                    .is_ok()
                {
                    expire(EXIT.load(SeqCst));
                }
            }
            ANSWERED => {
                if STATE
                    .compare_exchange(ANSWERED, EXPIRED, SeqCst, SeqCst)
                    .is_ok()
                {
                    let _ = write_all(
                        2,
                        b"hookrules: the deadline passed while side effects were running; they were ended\n",
                    );
                    expire(EXIT.load(SeqCst));
                }
            }
            _ => return,
        }
    }
}

/// Print the fallback answer; returns its exit status. Async-signal-safe.
fn print_fallback() -> i32 {
    let fb = FALLBACK.load(SeqCst);
    if fb.is_null() {
        return 1;
    }
    // SAFETY: a pointer from Box::into_raw that is never freed.
    let fb = unsafe { &*fb };
    let _ = write_all(1, &fb.stdout);
    let _ = write_all(2, &fb.stderr);
    fb.exit
}

/// A panic, reported by the process's panic hook: the watchdog ends the process
/// now, as it would at the deadline, so that a bug anywhere in `run` still ends
/// in the policies' failure mode rather than a crash with no answer.
///
/// - before the answer: prints `reply` (the failure mode's answer for the
///   event, rendered by the hook), or the fallback answer if the hook could not
///   render one, then `note` on stderr;
/// - while or after the answer is printed: only `note` (the answer stands);
///
/// then ends every child process and exits with the answer's status. Returns
/// (doing nothing) when no watchdog is running: in-process callers, or after
/// [`Watchdog::finish`].
pub fn on_panic(reply: Option<&Reply>, note: &str) {
    take_over(reply, &[note.as_bytes(), b"\n"]);
}

/// The watchdog's answer for a process that cannot go on (a panic, an
/// allocation that failed), as at the deadline: while the answer is pending,
/// `reply` (or, without one, the fallback answer) is printed; once it is being
/// or has been printed, it stands. Then `note` goes to stderr, every child
/// process ends and the process exits with the answer's status. Returns (doing
/// nothing) when no watchdog is running. Allocates nothing, and does only what
/// the signal handler does (atomics, `write(2)`, `kill(2)`, `_exit(2)`).
fn take_over(reply: Option<&Reply>, note: &[&[u8]]) {
    let note = |exit: i32| -> ! {
        for part in note {
            let _ = write_all(2, part);
        }
        expire(exit)
    };
    loop {
        match STATE.load(SeqCst) {
            PENDING => {
                if STATE
                    .compare_exchange(PENDING, EXPIRED, SeqCst, SeqCst)
                    .is_err()
                {
                    continue;
                }
                let exit = match reply {
                    Some(r) => {
                        let _ = print(r);
                        r.exit
                    }
                    None => print_fallback(),
                };
                note(exit);
            }
            now @ (WRITING | ANSWERED) => {
                if STATE.compare_exchange(now, EXPIRED, SeqCst, SeqCst).is_ok() {
                    note(EXIT.load(SeqCst));
                }
            }
            // The deadline's handler is ending the process.
            EXPIRED => wait_for_the_end(),
            _ => return,
        }
    }
}

/// An allocation of `size` bytes failed: the process reached its memory limit
/// (`ulimit -v`, `RLIMIT_AS`). Rust would abort with no answer, and the client
/// would then run the tool; so while an answer is pending, the fallback answer
/// (the policies' failure mode for the event) is printed now and the process
/// ends, as when the deadline passes. After the answer, the process ends with
/// its exit status. With no watchdog running (any command but `run`), it
/// returns and the allocation fails as usual.
///
/// Called from inside the global allocator: it allocates nothing, and does only
/// what the signal handler does (atomics, `write(2)`, `kill(2)`, `_exit(2)`).
pub fn out_of_memory(size: usize) {
    let mut note = [0u8; 160];
    take_over(None, &[oom_note(&mut note, size)]);
}

/// `hookrules: out of memory (N bytes could not be allocated) …`, written into
/// `buf` without allocating.
fn oom_note(buf: &mut [u8; 160], size: usize) -> &[u8] {
    const HEAD: &[u8] = b"hookrules: out of memory (";
    const TAIL: &[u8] = b" bytes could not be allocated); answered with the failure mode\n";
    let mut digits = [0u8; 20];
    let mut n = size;
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 || i == 0 {
            break;
        }
    }
    let mut len = 0;
    for part in [HEAD, &digits[i..], TAIL] {
        let end = (len + part.len()).min(buf.len());
        buf[len..end].copy_from_slice(&part[..end - len]);
        len = end;
    }
    &buf[..len]
}

/// End the child processes and the process itself, at once (no destructors,
/// no atexit handlers: another thread may be in the middle of anything).
fn expire(exit: i32) -> ! {
    let f = ON_EXPIRY.load(SeqCst);
    if f != 0 {
        // SAFETY: the address was stored from a `fn()` in `Watchdog::start`.
        let f: fn() = unsafe { std::mem::transmute::<usize, fn()>(f) };
        f();
    }
    // SAFETY: _exit(2) has no preconditions.
    unsafe { libc::_exit(exit) }
}

/// Print a reply on the raw descriptors: stdout in one write sequence, then the
/// notes on stderr. Only stdout's failure is an error.
fn print(reply: &Reply) -> std::io::Result<()> {
    let result = write_all(1, reply.stdout.as_bytes());
    if !reply.stderr.is_empty() {
        let mut e = reply.stderr.clone().into_bytes();
        e.push(b'\n');
        let _ = write_all(2, &e);
    }
    result
}

fn write_all(fd: i32, mut buf: &[u8]) -> std::io::Result<()> {
    while !buf.is_empty() {
        // SAFETY: buf is a valid slice for its length; write(2) reads at most
        // that many bytes from it.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(std::io::Error::from(std::io::ErrorKind::WriteZero));
        }
        buf = &buf[n as usize..];
    }
    Ok(())
}

/// Detach stdout after the answer: the client sees end-of-output at once, and
/// nothing written later can reach it (`/dev/null` takes descriptor 1).
pub fn close_stdout() {
    // SAFETY: open/dup2/close on descriptors this process owns; no memory is
    // passed except the NUL-terminated literal path.
    unsafe {
        let null = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if null >= 0 {
            libc::dup2(null, 1);
            libc::close(null);
        }
    }
}
