//! An Earthfile's targets, as `earthly +TARGET` runs them (`format =
//! "earthfile"`). A target's commands run in a container (its `FROM`
//! image), except after `LOCALLY`: from there its `RUN` commands run on this
//! machine, in the Earthfile's folder, with no container around them. Those
//! are the command's host code; a `BUILD +OTHER` or `FROM +OTHER` of the same
//! Earthfile runs that target too. `RUN`'s options (`--no-cache`, `--push`,
//! `--secret ID`) are no part of its command; its exec form (`RUN ["rm",
//! "-rf", "x"]`) is a command's words. A target of another repository
//! (`github.com/org/repo+t`) is code nobody here has read.

use std::path::Path;

use super::super::{read_script, Found};
use super::{named_or_nearest, Text};
use crate::shell::command::places::ProjectFile;

/// Targets followed per command (`BUILD +other` chains).
const MAX_TARGETS: usize = 32;

/// The host commands of the targets the command names.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let Some(reference) = args.iter().find(|a| !a.starts_with('-') && a.contains('+')) else {
        return Found::Nothing;
    };
    let Some((place, target)) = reference.rsplit_once('+') else {
        return Found::Nothing;
    };
    if place.contains(['$', '`']) || target.contains(['$', '`']) {
        return Found::Unknown;
    }
    let local = place.is_empty() || place.starts_with(['.', '/']);
    if !local {
        return Found::Unknown;
    }
    let folder = if place.is_empty() { "." } else { place };
    let Some(path) = named_or_nearest(dir, row.files, Some(folder)) else {
        return Found::Nothing;
    };
    let text = match read_script(&path, false) {
        Ok(Some(t)) => t,
        Ok(None) => return Found::Nothing,
        Err(()) => return Found::Unknown,
    };
    let targets = targets(&text);
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    let mut queue = vec![target.to_string()];
    let mut done: Vec<String> = Vec::new();
    while let Some(t) = queue.pop() {
        if done.contains(&t) {
            continue;
        }
        if done.len() >= MAX_TARGETS {
            return Found::Unknown;
        }
        done.push(t.clone());
        let Some((_, body)) = targets.iter().find(|(name, _)| *name == t) else {
            continue;
        };
        let mut on_host = false;
        for line in body {
            let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let rest = rest.trim();
            match word {
                "LOCALLY" => on_host = true,
                "FROM" | "BUILD" => {
                    on_host &= word == "BUILD";
                    if let Some(other) = rest.split_whitespace().find_map(|w| w.strip_prefix('+')) {
                        queue.push(other.to_string());
                    }
                }
                "RUN" if on_host => out.line(&run_command(rest), false),
                _ => {}
            }
        }
    }
    out.found(path, target.to_string())
}

/// Each target's name and its commands (continued lines joined), in the
/// order of the file.
fn targets(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut pending = String::new();
    for raw in text.lines() {
        let indented = raw.starts_with([' ', '\t']);
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !indented && pending.is_empty() {
            let name = line.strip_suffix(':').filter(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_'))
            });
            if let Some(name) = name {
                out.push((name.to_string(), Vec::new()));
                continue;
            }
        }
        match line.strip_suffix('\\') {
            Some(part) => {
                pending.push_str(part);
                pending.push(' ');
            }
            None => {
                pending.push_str(line);
                if let Some((_, body)) = out.last_mut() {
                    body.push(std::mem::take(&mut pending));
                } else {
                    pending.clear();
                }
            }
        }
    }
    out
}

/// The command of a `RUN` line: without its options; the exec form's
/// words as a command line.
fn run_command(rest: &str) -> String {
    let mut r = rest.trim_start();
    while r.starts_with("--") {
        let (opt, after) = r.split_once(char::is_whitespace).unwrap_or((r, ""));
        r = after.trim_start();
        // `--secret ID`, `--mount TYPE…`, `--network none`: options with a value.
        let valued = matches!(opt, "--secret" | "--mount" | "--network" | "--ssh");
        if valued && !opt.contains('=') {
            r = r
                .split_once(char::is_whitespace)
                .map_or("", |(_, a)| a)
                .trim_start();
        }
    }
    if r.starts_with('[') {
        if let Ok(words) = serde_json::from_str::<Vec<String>>(r) {
            return words
                .iter()
                .map(|w| crate::shell::quote(w))
                .collect::<Vec<_>>()
                .join(" ");
        }
    }
    r.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_their_commands() {
        let text = "VERSION 0.8\nFROM alpine\n\n# a comment\nbuild:\n    RUN make \\\n        all\n    SAVE ARTIFACT out\n\ndev:\n    LOCALLY\n    RUN echo hi\n";
        let t = targets(text);
        let names: Vec<&str> = t.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["build", "dev"]);
        assert_eq!(t[0].1, ["RUN make  all", "SAVE ARTIFACT out"]);
        assert_eq!(t[1].1, ["LOCALLY", "RUN echo hi"]);
    }

    #[test]
    fn run_options_are_no_part_of_the_command() {
        for (rest, want) in [
            ("--no-cache rm -rf x", "rm -rf x"),
            ("--secret TOKEN --push ./deploy.sh", "./deploy.sh"),
            ("--mount=type=cache,target=/c make", "make"),
            (r#"["rm", "-rf", "a b"]"#, "rm -rf 'a b'"),
            ("echo --no-cache", "echo --no-cache"),
        ] {
            assert_eq!(run_command(rest), want, "{rest}");
        }
    }
}
