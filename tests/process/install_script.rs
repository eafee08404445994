//! The one-line installer, on a clean root: a fresh HOME, a PATH of /usr/bin and
//! /bin only (no cargo, no rustc), and a release folder served over HTTP on
//! 127.0.0.1 holding an archive made by dist/package.sh (the script the release
//! workflow runs) from the hookrules binary under test, named for the target
//! install.sh picks on this machine.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Serve the files of `dir` on 127.0.0.1 until the test ends; returns the base URL.
fn serve(dir: PathBuf) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().take(64) {
            let Ok(mut stream) = stream else { continue };
            let mut line = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            // Drain the headers.
            let mut h = String::new();
            while reader.read_line(&mut h).is_ok_and(|n| n > 2) {
                h.clear();
            }
            let name = line
                .split_whitespace()
                .nth(1)
                .unwrap_or("/")
                .trim_start_matches('/')
                .to_string();
            let file = dir.join(&name);
            let reply = match (name.contains(".."), std::fs::read(&file)) {
                (false, Ok(body)) => {
                    let mut r = format!(
                        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    )
                    .into_bytes();
                    r.extend(body);
                    r
                }
                _ => b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    .to_vec(),
            };
            let _ = stream.write_all(&reply);
        }
    });
    format!("http://127.0.0.1:{port}")
}

/// Run install.sh the way a user on a clean machine would.
fn install(home: &Path, extra: &[(&str, &str)], args: &[&str]) -> Output {
    let mut c = Command::new("/bin/sh");
    c.arg(repo().join("install.sh"))
        .args(args)
        .env_clear()
        .env("HOME", home)
        .env("PATH", "/usr/bin:/bin")
        .env("TMPDIR", home);
    for (k, v) in extra {
        c.env(k, v);
    }
    c.output().expect("sh runs")
}

fn text(o: &Output) -> String {
    format!(
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn the_installer_picks_the_archive_checks_it_and_installs_without_a_toolchain() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    // The clean PATH really has no Rust toolchain.
    let which = Command::new("/bin/sh")
        .args(["-c", "command -v cargo || command -v rustc"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .output()
        .unwrap();
    assert!(
        !which.status.success(),
        "cargo is on /usr/bin:/bin here; the test would not prove the installer needs no toolchain"
    );

    let target = install(&home, &[], &["--print-target"]);
    assert!(target.status.success(), "{}", text(&target));
    let target = String::from_utf8(target.stdout).unwrap().trim().to_string();

    let release = tmp.path().join("release");
    let packaged = Command::new(repo().join("dist/package.sh"))
        .args([&target, env!("CARGO_BIN_EXE_hookrules")])
        .arg(&release)
        .output()
        .unwrap();
    assert!(packaged.status.success(), "{}", text(&packaged));
    let url = serve(release.clone());

    let o = install(&home, &[("HOOKRULES_DOWNLOAD_URL", &url)], &[]);
    assert!(o.status.success(), "{}", text(&o));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("checksum ok"), "{stderr}");
    assert!(stderr.contains("is not on your PATH"), "{stderr}");
    let bin = home.join(".local/bin/hookrules");
    let version = Command::new(&bin).arg("--version").output().unwrap();
    assert!(
        String::from_utf8_lossy(&version.stdout)
            .starts_with(concat!("hookrules ", env!("CARGO_PKG_VERSION"))),
        "{}",
        text(&version)
    );
    // Completions and manual pages are installed beside it, where bash, zsh,
    // fish and man look without configuration.
    assert!(stderr.contains("installed shell completions"), "{stderr}");
    for installed in [
        ".local/share/bash-completion/completions/hookrules",
        ".local/share/zsh/site-functions/_hookrules",
        ".config/fish/completions/hookrules.fish",
        ".local/share/man/man1/hookrules.1",
        ".local/share/man/man1/hookrules-check.1",
    ] {
        let content = std::fs::read_to_string(home.join(installed)).unwrap_or_default();
        assert!(content.contains("hookrules"), "{installed}: {content:.200}");
    }
    // The installed binary does its job on the built-in policies.
    let event = std::fs::read(repo().join("examples/events/bash-rm-rf-root.json")).unwrap();
    let out = crate::support::feed_bytes(
        Command::new(&bin)
            .arg("run")
            .env_clear()
            .env("HOME", &home)
            .current_dir(&home),
        &event,
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#""permissionDecision":"deny""#));

    // A tampered archive is refused and the installed binary is left as it was.
    let archive = release.join(format!("hookrules-{target}.tar.gz"));
    let mut bytes = std::fs::read(&archive).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&archive, &bytes).unwrap();
    let before = std::fs::read(&bin).unwrap();
    let dir2 = home.join("other-bin");
    let o = install(
        &home,
        &[("HOOKRULES_DOWNLOAD_URL", &url)],
        &["--to", dir2.to_str().unwrap()],
    );
    assert!(!o.status.success(), "{}", text(&o));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("checksum mismatch"),
        "{}",
        text(&o)
    );
    assert!(!dir2.join("hookrules").exists());
    let o = install(&home, &[("HOOKRULES_DOWNLOAD_URL", &url)], &[]);
    assert!(!o.status.success());
    assert_eq!(
        std::fs::read(&bin).unwrap(),
        before,
        "a failed install changed the binary"
    );
    // Nothing is left behind in TMPDIR (= HOME here).
    let leftovers: Vec<_> = std::fs::read_dir(&home)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.starts_with("hookrules-install"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn the_installer_names_the_right_archive_for_each_platform() {
    let tmp = tempfile::tempdir().unwrap();
    for (s, m, want) in [
        ("Linux", "x86_64", Some("x86_64-unknown-linux-musl")),
        ("Linux", "amd64", Some("x86_64-unknown-linux-musl")),
        ("Linux", "aarch64", Some("aarch64-unknown-linux-musl")),
        ("Linux", "arm64", Some("aarch64-unknown-linux-musl")),
        ("Darwin", "x86_64", Some("x86_64-apple-darwin")),
        ("Darwin", "arm64", Some("aarch64-apple-darwin")),
        ("Linux", "mips", None),
        ("FreeBSD", "x86_64", None),
        ("MINGW64_NT-10.0", "x86_64", None),
    ] {
        let o = install(
            tmp.path(),
            &[("HOOKRULES_UNAME_S", s), ("HOOKRULES_UNAME_M", m)],
            &["--print-target"],
        );
        match want {
            Some(t) => assert_eq!(
                String::from_utf8_lossy(&o.stdout).trim(),
                t,
                "{s} {m}: {}",
                text(&o)
            ),
            None => {
                assert!(!o.status.success(), "{s} {m}: {}", text(&o));
                let e = String::from_utf8_lossy(&o.stderr);
                assert!(
                    e.contains("cargo install") || e.contains("Windows"),
                    "{s} {m}: {e}"
                );
            }
        }
    }
    // A copy of install.sh not from a release says where to point it.
    let o = install(tmp.path(), &[], &[]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("HOOKRULES_DOWNLOAD_URL"));
}
