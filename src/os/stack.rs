//! A stack of known size, whatever limit the parent process left.
//!
//! The main thread's stack is as large as `RLIMIT_STACK` says (`ulimit -s`).
//! A parent can set it to 64 KiB, and then a deeply nested command, which the
//! analysis follows within its budget, overflows the stack: Rust aborts with no
//! answer and the client runs the tool. So when the limit is smaller than
//! [`MIN`], the work runs on a thread whose stack is `MIN` bytes (a thread's
//! stack is mapped by `pthread_create` at the size asked for, not subject to
//! `RLIMIT_STACK`). Under the usual limit (8 MiB) nothing changes: no thread,
//! one `getrlimit` call.

/// The stack the analysis is written for: the usual default limit.
pub const MIN: usize = 8 << 20;

/// Is the main thread's stack limited below [`MIN`]?
fn limited() -> bool {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit(2) writes into the struct we pass.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut lim) } == 0;
    ok && lim.rlim_cur != libc::RLIM_INFINITY && lim.rlim_cur < MIN as libc::rlim_t
}

/// Run `f` with a stack of at least [`MIN`] bytes: on this thread when its
/// limit allows, else on a new thread with that stack (if no thread can be
/// made, here after all).
pub fn with_enough<T: Send + 'static>(f: fn() -> T) -> T {
    if !limited() {
        return f();
    }
    match std::thread::Builder::new()
        .name("main".into())
        .stack_size(MIN)
        .spawn(f)
    {
        Ok(h) => h
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        Err(_) => f(),
    }
}
