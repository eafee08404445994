//! The start of the process, in place of std's.
//!
//! Before it calls `main`, std's start installs a guard against overflowing
//! the main thread's stack; on Linux it finds that stack with
//! `pthread_getattr_np`, which reads `/proc/self/maps` with `sscanf`: ~105k
//! instructions on every call, a sixth of a whole Stop event's (callgrind,
//! `bench/callgrind.sh`). All the guard buys is a message on overflow: the
//! process dies either way (SIGSEGV instead of an abort), and no answer is
//! given either way. So, where the C library is glibc, the binary starts
//! without it (`#![no_main]`, `src/main.rs`; elsewhere std's start is what
//! records the arguments, and runs first) and [`run`] does what else std's
//! start does that hookrules relies on. Threads hookrules spawns keep std's
//! guard.

use std::ffi::c_int;
use std::panic::UnwindSafe;

/// Run `main` as the process's body and exit with its status:
///
/// - a standard stream (0, 1, 2) that is closed is opened on `/dev/null`
///   first, so that no file hookrules opens takes its number (the answer
///   would be written into it);
/// - `SIGPIPE` is ignored: a write to a closed pipe fails (`EPIPE`) instead
///   of killing the process;
/// - a panic that escapes `main` exits with status 101 (the panic hook has
///   reported it), as under std's start;
/// - the exit goes through [`std::process::exit`], which flushes stdout.
pub fn run(main: impl FnOnce() -> u8 + UnwindSafe) -> ! {
    standard_streams();
    // SAFETY: setting a signal's disposition to "ignore" has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let status = std::panic::catch_unwind(main).map_or(101, c_int::from);
    std::process::exit(status)
}

/// Open `/dev/null` on each closed standard stream, lowest first (`open`
/// takes the lowest free number); abort if that fails, as std does.
fn standard_streams() {
    for fd in 0..3 {
        // SAFETY: fcntl(F_GETFD) only asks whether `fd` is open.
        let closed = unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        // SAFETY: open(2) with a NUL-terminated path.
        if closed && unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) } != fd {
            std::process::abort();
        }
    }
}
