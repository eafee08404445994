//! `hookrules check --watch` checks, then checks again when a policy is saved,
//! including a save by rename (as editors do). Real binary, real files.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// Wait for a line containing `want`; a generous bound guards against a hang.
fn wait_for(rx: &mpsc::Receiver<String>, want: &str) -> bool {
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(60)) {
        if line.contains(want) {
            return true;
        }
    }
    false
}

#[test]
fn check_watch_reports_again_after_each_save() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("p.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"ok\"\nevents = [\"Stop\"]\nmessage = \"hi\"\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookrules"))
        .args(["check", "--watch"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = wait_for(&rx, "0 error(s)");
    // An editor-style save: write a temporary file, rename it over the policy.
    let tmp = dir.path().join(".p.toml.swp");
    std::fs::write(&tmp, "[[rule]]\nid = \"bad\"\nevents = [\"PreToolUs\"]\n").unwrap();
    std::fs::rename(&tmp, &policy).unwrap();
    let second = wait_for(&rx, "1 error(s)");
    // And fixed again.
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"fixed\"\nevents = [\"Stop\"]\nmessage = \"hi\"\n",
    )
    .unwrap();
    let third = wait_for(&rx, "0 error(s)");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "no first report");
    assert!(second, "no report after the broken save");
    assert!(third, "no report after the fix");
}

/// Issue 27: `check --watch` saw its own reads (inotify reports opening and
/// closing a file) and checked again every second with no edit. Now only a change
/// of content counts: left alone, opened, read and touched, it reports once; an
/// edit reports again.
#[test]
fn check_watch_is_quiet_until_a_policy_changes() {
    let dir = tempfile::tempdir().unwrap();
    let policy = dir.path().join("p.toml");
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"ok\"\nevents = [\"Stop\"]\nmessage = \"hi\"\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hookrules"))
        .args(["check", "--watch"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = wait_for(&rx, "0 error(s)");
    // Reads, and a touch that changes only the modification time.
    for _ in 0..3 {
        let _ = std::fs::read(&policy).unwrap();
        let f = std::fs::File::options().append(true).open(&policy).unwrap();
        f.set_modified(std::time::SystemTime::now()).unwrap();
        drop(f);
        std::thread::sleep(Duration::from_millis(700));
    }
    let mut again = vec![];
    while let Ok(line) = rx.recv_timeout(Duration::from_secs(2)) {
        again.push(line);
    }
    std::fs::write(
        &policy,
        "[[rule]]\nid = \"bad\"\nevents = [\"PreToolUs\"]\n",
    )
    .unwrap();
    let after_edit = wait_for(&rx, "1 error(s)");
    let _ = child.kill();
    let _ = child.wait();
    assert!(first, "no first report");
    assert!(
        !again.iter().any(|l| l.contains("== hookrules check")),
        "checked again without an edit: {again:?}"
    );
    assert!(after_edit, "no report after the edit");
}
