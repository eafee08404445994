//! Path normalisation, so policies compare the file the shell will touch
//! rather than the text that was typed (`./src/../.env` is `.env`). Links
//! are followed by `shell::links`.
//!
//! Choices:
//! * A path (or `cwd`/`home`) containing a NUL byte is an error
//!   ([`PathError`]): no syscall accepts it, and a caller must be able to
//!   reject it rather than compare a truncated path.
//! * `~`, `~/…`, `$HOME`, `${HOME}` need `home`; with `home == None` they
//!   are an error (we do not guess).
//! * `~user/…` is left unexpanded (no user database lookup): the result
//!   starts with `~user` and is therefore not absolute. `~+` is `cwd`.
//! * An empty path normalises to `cwd`. A relative `cwd` is taken
//!   relative to `/`.

/// Why a path could not be normalised.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct PathError {
    /// Human-readable description.
    pub message: String,
}

fn err(message: &str) -> PathError {
    PathError {
        message: message.to_string(),
    }
}

/// Lexically normalise a path as the shell and the file system will see it:
/// expand a leading `~` / `~/` (to `home`), `$HOME` / `${HOME}` prefixes (to
/// `home`); make it absolute against `cwd`; resolve `.` and `..` (never above
/// `/`); collapse repeated slashes; drop a trailing slash (except for `/`).
///
/// # Errors
/// [`PathError`] when `path`, `cwd` or `home` contains a NUL byte, or when
/// `path` starts with a home prefix and `home` is `None`.
pub fn normalize(path: &str, cwd: &str, home: Option<&str>) -> Result<String, PathError> {
    if path.contains('\0') || cwd.contains('\0') || home.is_some_and(|h| h.contains('\0')) {
        return Err(err("path contains a NUL byte"));
    }
    let mut stack: Vec<&str> = Vec::new();
    if let Some(rest) = home_suffix(path) {
        let home = home.ok_or_else(|| err("cannot expand `~`/`$HOME`: home directory unknown"))?;
        if !home.starts_with('/') {
            push_components(&mut stack, cwd);
        }
        push_components(&mut stack, home);
        push_components(&mut stack, rest);
    } else if let Some(rest) = path
        .strip_prefix("~+")
        .filter(|r| r.is_empty() || r.starts_with('/'))
    {
        push_components(&mut stack, cwd);
        push_components(&mut stack, rest);
    } else if let Some(after) = path.strip_prefix('~') {
        // `~user/…`: no lookup; keep the prefix, normalise the rest.
        let (user, tail) = after.split_once('/').unwrap_or((after, ""));
        push_components(&mut stack, tail);
        return Ok(if stack.is_empty() {
            format!("~{user}")
        } else {
            format!("~{user}/{}", stack.join("/"))
        });
    } else {
        if !path.starts_with('/') {
            push_components(&mut stack, cwd);
        }
        push_components(&mut stack, path);
    }
    Ok(format!("/{}", stack.join("/")))
}

/// Is `path` already what [`normalize`] makes of it: absolute, no empty, `.`
/// or `..` component, no trailing `/` (`/` itself aside), no NUL? A cheap
/// check that spares the work for paths that need none.
#[must_use]
pub fn is_normal(path: &str) -> bool {
    // By bytes, with no searcher set up per `/`: every guarded place is
    // checked on each event that classifies a path.
    match path.as_bytes() {
        b"/" => true,
        [b'/', names @ ..] => names
            .split(|&b| b == b'/')
            .all(|c| !c.is_empty() && c != b"." && c != b".." && !c.contains(&0)),
        _ => false,
    }
}

/// True when `path` (already normalised) is `dir` or inside it, comparing
/// whole components (`/etc2` is not in `/etc`). An empty `dir` contains
/// nothing; `/` contains every absolute path.
#[must_use]
pub fn is_within(path: &str, dir: &str) -> bool {
    if dir.is_empty() {
        return false;
    }
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return path.starts_with('/');
    }
    match path.strip_prefix(dir) {
        Some(rest) => rest.is_empty() || rest.starts_with('/'),
        None => false,
    }
}

/// The part after a leading `~`, `$HOME` or `${HOME}` (which must be
/// followed by `/` or the end).
fn home_suffix(path: &str) -> Option<&str> {
    ["~", "${HOME}", "$HOME"].iter().find_map(|p| {
        path.strip_prefix(p)
            .filter(|rest| rest.is_empty() || rest.starts_with('/'))
    })
}

fn push_components<'a>(stack: &mut Vec<&'a str>, p: &'a str) {
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                stack.pop();
            }
            c => stack.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normal_path_is_what_normalize_makes_of_it() {
        for p in [
            "/", "/a", "/a/b.c", "/a/~", "/a/.b", "//a", "/a/", "/a/./b", "/a/../b", "/a/..", "/.",
            "a/b", "~/a", "$HOME/a", "", "/a\0b", "/\0",
        ] {
            let same = normalize(p, "/cwd", Some("/home/u")).is_ok_and(|n| n == p);
            assert_eq!(is_normal(p), same, "{p:?}");
        }
    }
}
