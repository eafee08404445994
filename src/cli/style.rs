//! Colours for people at a terminal: on when stdout is a terminal, off in a
//! pipe or a file, off when `NO_COLOR` is set (no-color.org), forced on by
//! `CLICOLOR_FORCE=1`, off for `TERM=dumb`. Decided once by `main`; library
//! callers (tests) get plain text. `run` never colours: its output is for the
//! client.

use crate::os::env::Env;
use std::sync::atomic::{AtomicBool, Ordering};

static ON: AtomicBool = AtomicBool::new(false);

/// Should output be coloured, given the environment and whether stdout is a
/// terminal?
pub fn wanted(env: &Env, terminal: bool) -> bool {
    let set = |k: &str| env.get(k).is_some_and(|v| !v.is_empty());
    if set("NO_COLOR") {
        return false;
    }
    if set("CLICOLOR_FORCE") && env.get("CLICOLOR_FORCE").as_deref() != Some("0") {
        return true;
    }
    if env.get("TERM").as_deref() == Some("dumb") {
        return false;
    }
    terminal
}

/// Turn colours on or off for this process.
pub fn enable(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Are colours on?
pub fn on() -> bool {
    ON.load(Ordering::Relaxed)
}

fn paint(code: &str, text: &str) -> String {
    if on() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Something that went wrong, or a refusal.
pub fn bad(text: &str) -> String {
    paint("31", text)
}

/// Something that passed, or an allowance.
pub fn good(text: &str) -> String {
    paint("32", text)
}

/// A warning, a question, a todo.
pub fn warn(text: &str) -> String {
    paint("33", text)
}

/// Emphasis.
pub fn bold(text: &str) -> String {
    paint("1", text)
}

/// A decision, coloured by how strict it is.
pub fn decision(text: &str) -> String {
    match text {
        "deny" | "block" | "stop" => bad(text),
        "ask" => warn(text),
        "allow" => good(text),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::wanted;
    use crate::os::env::Env;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn terminal_no_color_force_and_dumb() {
        assert!(wanted(&env(&[]), true));
        assert!(!wanted(&env(&[]), false));
        assert!(!wanted(&env(&[("NO_COLOR", "1")]), true));
        assert!(wanted(&env(&[("NO_COLOR", "")]), true));
        assert!(wanted(&env(&[("CLICOLOR_FORCE", "1")]), false));
        assert!(!wanted(
            &env(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "x")]),
            false
        ));
        assert!(!wanted(&env(&[("TERM", "dumb")]), true));
    }
}
