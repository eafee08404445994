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
}
