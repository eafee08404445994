//! Where this binary came from, for `hookrules --version`: the package version,
//! the git commit it was built from, the build profile and the target.
//!
//! The commit is `HOOKRULES_GIT_COMMIT` when set (release builds, a packaged
//! crate has no `.git`), else `git rev-parse`, else `unknown`.
//! `HOOKRULES_BUILD_SOURCE` names the channel (`release`, `cargo-install`, …).

use std::process::Command;

#[path = "build/code_places.rs"]
mod code_places;
#[path = "build/write_places.rs"]
mod write_places;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (!s.is_empty()).then_some(s)
}

fn main() {
    link_mode();
    code_places::generate();
    write_places::generate();
    println!("cargo:rerun-if-env-changed=HOOKRULES_GIT_COMMIT");
    println!("cargo:rerun-if-env-changed=HOOKRULES_BUILD_SOURCE");
    println!("cargo:rerun-if-changed=build.rs");
    // Rebuild when HEAD moves (also in a git worktree, where .git is a file).
    for path in [git(&["rev-parse", "--git-path", "HEAD"]), {
        git(&["symbolic-ref", "-q", "HEAD"]).and_then(|r| git(&["rev-parse", "--git-path", &r]))
    }]
    .into_iter()
    .flatten()
    {
        println!("cargo:rerun-if-changed={path}");
    }
    let commit = std::env::var("HOOKRULES_GIT_COMMIT")
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| git(&["rev-parse", "--short=12", "HEAD"]))
        .unwrap_or_else(|| "unknown".into());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    let source = std::env::var("HOOKRULES_BUILD_SOURCE")
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "source".into());
    println!("cargo:rustc-env=HOOKRULES_COMMIT={commit}");
    println!("cargo:rustc-env=HOOKRULES_PROFILE={profile}");
    println!("cargo:rustc-env=HOOKRULES_TARGET={target}");
    println!("cargo:rustc-env=HOOKRULES_SOURCE={source}");
}

/// The executable is linked position-dependent (`-no-pie`) on Linux with glibc.
///
/// hookrules is started once per hook event, so start-up is most of its cost. A
/// position-independent executable makes the dynamic loader apply ~12,000 relative
/// relocations on every start (about 160k instructions of 1.6M for a harmless
/// PreToolUse Bash, 777k → 615k for a Stop; callgrind, see the README's performance
/// section). The code is still compiled position-independent (std is), only the final
/// link differs. The cost: the executable's own image is not address-randomised
/// (shared libraries, stack and heap still are). Only for the binaries, never for
/// tests or the library; musl and other platforms keep their default.
fn link_mode() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    // A static build (`-C target-feature=+crt-static`) has no loader to spare:
    // rustc links it static-pie, or plain static with `-C relocation-model=static`;
    // `-no-pie` on top of static-pie gives an executable that names a loader it
    // has no dynamic section for, and crashes at once.
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let crt_static = features.split(',').any(|f| f == "crt-static");
    if os == "linux" && env == "gnu" && !crt_static && std::env::var_os("HOOKRULES_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-env-changed=HOOKRULES_PIE");
    if os == "linux" && env == "gnu" && !crt_static {
        static_unwinder();
    }
}

/// The unwinder is linked into the executable (`libgcc_eh.a`, what static and
/// `-static-libgcc` builds use) instead of loading `libgcc_s.so.1` at every
/// start: one shared library fewer for the dynamic loader to find, map and
/// relocate, and one fewer to look each of the executable's symbols up in
/// (~35k instructions of every process, callgrind; the C library stays the
/// only one). Rust's standard library asks for `-lgcc_s` by name, so the
/// executables' link sees first a folder where `libgcc_s.so` is a linker script
/// that names `libgcc_eh` instead. Only when the C compiler has a
/// `libgcc_eh.a` (GCC's toolchains do); `HOOKRULES_SHARED_LIBGCC=1` keeps
/// the shared one.
fn static_unwinder() {
    println!("cargo:rerun-if-env-changed=HOOKRULES_SHARED_LIBGCC");
    println!("cargo:rerun-if-env-changed=CC");
    if std::env::var_os("HOOKRULES_SHARED_LIBGCC").is_some() {
        return;
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let found = Command::new(&cc)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| std::path::PathBuf::from(s.trim()));
    // The compiler prints the bare name when it has no such file.
    if !found.is_some_and(|p| p.is_absolute() && p.is_file()) {
        return;
    }
    let Some(out) = std::env::var_os("OUT_DIR") else {
        return;
    };
    let dir = std::path::Path::new(&out).join("static-unwinder");
    if std::fs::create_dir_all(&dir).is_err()
        || std::fs::write(dir.join("libgcc_s.so"), "INPUT(-lgcc_eh)\n").is_err()
    {
        return;
    }
    println!("cargo:rustc-link-arg-bins=-L{}", dir.display());
}
