//! One deadline for the whole answer.
//!
//! The client kills a hook that outlives the `timeout` of its registration and
//! then carries on as if the hook had said nothing: a deny that arrives late is
//! no deny. So `hookrules run` works to a [`Deadline`] below that timeout:
//!
//! - every bounded wait (a `command` fact, a `run` effect) is cut to what is left
//!   of it ([`Deadline::cap`]), so a slow command fails through its policy's
//!   failure mode in time;
//! - a [`Watchdog`] thread covers everything else that could stall (a stuck
//!   system call, a huge input, a bug): when the deadline passes and no answer
//!   has been printed, it prints the fallback answer it was given (the
//!   policies' failure mode for this event), ends every child process and exits.
//!   After the answer, it ends the side effects still running and exits.
//!
//! The answer is printed exactly once, by whichever of the two gets there first.
//! Both write with `write(2)` on the raw descriptors, under one lock, never
//! through `std::io::stdout()` (whose lock the other thread might hold).

use std::sync::{Arc, Condvar, Mutex};
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

#[derive(Debug)]
struct State {
    deadline: Deadline,
    fallback: Reply,
    /// The answer has been printed, or is being printed (by either side).
    answered: bool,
    /// The main thread is writing its answer (the lock is not held meanwhile,
    /// so a stuck write cannot keep the watchdog from acting).
    writing: bool,
    /// Exit status of the printed answer.
    exit: i32,
    /// The work is done: the watchdog may stop.
    done: bool,
}

/// The thread that answers when the deadline passes. See the module docs.
#[derive(Debug, Clone)]
pub struct Watchdog {
    shared: Arc<(Mutex<State>, Condvar)>,
}

impl Watchdog {
    /// Start watching: `fallback` is printed if the deadline passes first;
    /// `on_expiry` runs before the process exits (it ends child processes).
    pub fn start(deadline: Deadline, fallback: Reply, on_expiry: fn()) -> Watchdog {
        let shared = Arc::new((
            Mutex::new(State {
                deadline,
                fallback,
                answered: false,
                writing: false,
                exit: 0,
                done: false,
            }),
            Condvar::new(),
        ));
        let w = Watchdog {
            shared: shared.clone(),
        };
        std::thread::spawn(move || watch(&shared, on_expiry));
        w
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The deadline now in force.
    pub fn deadline(&self) -> Deadline {
        self.lock().deadline
    }

    /// Move the deadline (once the event, and so its registered timeout, is known).
    pub fn set_deadline(&self, deadline: Deadline) {
        self.lock().deadline = deadline;
        self.shared.1.notify_all();
    }

    /// What to print if the deadline passes before the answer.
    pub fn set_fallback(&self, fallback: Reply) {
        self.lock().fallback = fallback;
    }

    /// Print the answer, unless the watchdog already printed the fallback (then
    /// this thread is about to be ended with the process; it waits for that).
    /// An answer that cannot be written is an error (the caller exits non-zero).
    pub fn answer(&self, reply: &Reply) -> std::io::Result<()> {
        {
            let mut st = self.lock();
            if st.answered {
                drop(st);
                loop {
                    std::thread::park();
                }
            }
            st.answered = true;
            st.writing = true;
            st.exit = reply.exit;
        }
        let result = print(reply);
        self.lock().writing = false;
        self.shared.1.notify_all();
        result
    }

    /// The exit status to use if the deadline passes after the answer.
    pub fn set_exit(&self, exit: i32) {
        self.lock().exit = exit;
    }

    /// The work is done: stop watching.
    pub fn finish(&self) {
        self.lock().done = true;
        self.shared.1.notify_all();
    }
}

fn watch(shared: &(Mutex<State>, Condvar), on_expiry: fn()) {
    let (lock, cvar) = shared;
    let mut st = lock.lock().unwrap_or_else(|p| p.into_inner());
    loop {
        if st.done {
            return;
        }
        match st.deadline.remaining() {
            None => st = cvar.wait(st).unwrap_or_else(|p| p.into_inner()),
            Some(left) if !left.is_zero() => {
                st = cvar
                    .wait_timeout(st, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            Some(_) => break,
        }
    }
    // The deadline has passed with the lock held: the main thread can no longer
    // start printing. One that is printing gets a moment to finish.
    if st.writing {
        st = cvar
            .wait_timeout_while(st, Duration::from_millis(200), |s| s.writing)
            .unwrap_or_else(|p| p.into_inner())
            .0;
    }
    let exit = if st.answered {
        let _ = write_all(
            2,
            b"hookrules: the deadline passed while side effects were running; they were ended\n",
        );
        st.exit
    } else {
        st.answered = true;
        let _ = print(&st.fallback);
        st.fallback.exit
    };
    on_expiry();
    // SAFETY: _exit(2) ends the process at once without running destructors or
    // atexit handlers, which is what is wanted while another thread may be in
    // the middle of anything; it has no memory-safety preconditions.
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
