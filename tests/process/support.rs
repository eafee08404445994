//! What the process tests share: one event fed to one `hookrules` process.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

/// Run `command` with `event` on its standard input and collect what it
/// wrote. A panic message on stderr fails the test: hookrules answers every
/// event, it never panics on one.
pub fn feed(command: &mut Command, event: &Value) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(event.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{out:?}"
    );
    out
}
