//! Arbitrary text as a shell command (`shell::command::parse`, recursing into
//! `bash -c`, `eval`, substitutions, heredocs) and as a path
//! (`shell::path::normalize`). Nothing may panic or overflow the stack.
#![no_main]

use hookrules::shell::{command, path};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(cmds) = command::parse(text) {
        // Every path a parsed command names must normalise without panicking.
        for c in &cmds {
            for a in &c.args {
                let _ = path::normalize(a, "/home/dev/myproj", Some("/home/dev"));
            }
        }
    }
    let _ = path::normalize(text, "/home/dev/myproj", Some("/home/dev"));
    let _ = path::normalize(text, "relative/cwd", None);
    // The first line as cwd, the rest as the path.
    if let Some((cwd, rest)) = text.split_once('\n') {
        let _ = path::normalize(rest, cwd, Some(cwd));
        let _ = path::is_within(rest, cwd);
    }
});
