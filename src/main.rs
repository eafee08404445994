//! The `hookrules` binary: the command line (`cli`), started without std's
//! main-thread stack guard (see `os::start`).
//!
//! Built as a test (`cargo test --bin hookrules`), it keeps libtest's own
//! `main`: a C `main` here would replace the test harness and run the command
//! line instead.
#![cfg_attr(not(test), no_main)]

/// The process's entry, called by the C runtime.
#[cfg(not(test))]
#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    // A parent's small `ulimit -s` must not turn a deep command into a crash.
    hookrules::os::start::run(|| hookrules::os::stack::with_enough(hookrules::cli::status))
}
