//! The `hookrules` binary: the command line (`cli`), started without std's
//! main-thread stack guard (see `os::start`) where the C library is glibc.
//!
//! Built as a test (`cargo test --bin hookrules`), it keeps libtest's own
//! `main`: a C `main` here would replace the test harness and run the command
//! line instead.
//!
//! Only glibc hands a program's arguments to std without std's start (it
//! passes them to the `.init_array` functions, which std reads them in); with
//! musl (the release archives for Linux) and elsewhere, std's start is what
//! records them, so there the binary keeps it: with a C `main` of its own,
//! `std::env::args` was empty and `hookrules run` printed the usage.
#![cfg_attr(all(not(test), target_os = "linux", target_env = "gnu"), no_main)]

/// The process's entry, called by the C runtime (glibc).
#[cfg(all(not(test), target_os = "linux", target_env = "gnu"))]
#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    body()
}

/// The process's entry, after std's start (C libraries other than glibc).
#[cfg(not(any(test, all(target_os = "linux", target_env = "gnu"))))]
fn main() {
    body()
}

/// What the process does, whichever start ran.
#[cfg(not(test))]
fn body() -> ! {
    // A parent's small `ulimit -s` must not turn a deep command into a crash.
    hookrules::os::start::run(|| hookrules::os::stack::with_enough(hookrules::cli::status))
}

/// `pow`, the one function of the C math library the binary calls (for
/// minijinja's `**` on floats), in a dynamically linked glibc build.
/// Defined here, it keeps libm.so.6 out of the binary's libraries
/// (`--as-needed`): the loader maps, relocates and searches one shared object
/// fewer at every start (~35k instructions: the floor binary of
/// `bench/callgrind.sh` with and without libm.so.6 preloaded, 309,845 ->
/// 347,178; a Stop event is ~420k). The first `**` on floats opens libm.so.6
/// and calls its `pow`, so results are the C library's to the last bit
/// (musl's port in the `libm` crate differs in the last bit: `2.0 ** -1.5`);
/// the crate answers only where libm.so.6 cannot be opened.
///
/// A static build (musl, or glibc with `+crt-static`: the release archives)
/// does not define it: the C library's own `pow` is linked in, with nothing
/// to load at start.
#[cfg(all(
    not(test),
    target_os = "linux",
    target_env = "gnu",
    not(target_feature = "crt-static")
))]
#[no_mangle]
extern "C" fn pow(x: f64, y: f64) -> f64 {
    type Pow = extern "C" fn(f64, f64) -> f64;
    static LIBM: std::sync::OnceLock<Option<Pow>> = std::sync::OnceLock::new();
    let libm = LIBM.get_or_init(|| {
        // SAFETY: dlopen and dlsym with NUL-terminated names; the symbol
        // looked up in libm's own handle is libm's `pow`, whose C type is
        // `Pow`. The library stays open for the life of the process.
        unsafe {
            let lib = libc::dlopen(c"libm.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            if lib.is_null() {
                return None;
            }
            let f = libc::dlsym(lib, c"pow".as_ptr());
            (!f.is_null()).then(|| std::mem::transmute::<*mut std::ffi::c_void, Pow>(f))
        }
    });
    match libm {
        Some(pow) => pow(x, y),
        None => libm::pow(x, y),
    }
}
