//! Unguarded tool use: a tool call that ran although hookrules never answered
//! its PreToolUse. That is how a hook the client skipped, a handler that was
//! removed for a while, a timeout that failed open or a host that called the
//! tool another way shows itself.
//!
//! After every PreToolUse answer, `run` notes the call's `tool_use_id`; a
//! PostToolUse or PostToolUseFailure whose id was never noted is logged as
//! `unguarded` (with its tool and input summary, like any decision line).
//! Both steps happen after the answer, so neither delays it; the client waits
//! for the PreToolUse hook to exit before it runs the tool, so the note is
//! written before the PostToolUse hook can look for it.
//!
//! The index: `<state home>/guarded/<session>.ids`, one id per line, appended
//! with one `write` on an `O_APPEND` descriptor (concurrent hooks never tear a
//! line), per session (the SHA-256 of its `session_id`, so a session id never
//! names a path). A file past [`GENERATION_BYTES`] becomes `<session>.ids.1`
//! (the one before is dropped) under an `flock` of `<session>.lock`, so two
//! hooks never rotate twice; a lookup reads both generations: the ids of at
//! least the last [`WINDOW_IDS`] tool calls of the session. Session files
//! untouched for [`PRUNE_DAYS`] days are removed when a new session starts.
//!
//! Events without a `tool_use_id` (PermissionRequest; hosts that send none)
//! are never judged.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::contract::Event;

/// The index's folder under the state home.
pub const FOLDER: &str = "guarded";
/// A session's current file is rotated once it reaches this size.
pub const GENERATION_BYTES: u64 = 128 * 1024;
/// Tool calls a lookup sees at least: a full previous generation of ids up to
/// 40 bytes (Claude Code's are 32), plus the current one.
pub const WINDOW_IDS: u64 = GENERATION_BYTES / 41;
/// Session files untouched this long are removed.
pub const PRUNE_DAYS: u64 = 7;
/// Longest id noted (a longer one is not an id any client sends).
const MAX_ID: usize = 200;

/// What the index said about an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// Not a tool event with an id: nothing to note or judge.
    NotJudged,
    /// A PreToolUse: its id was noted.
    Noted,
    /// A PostToolUse whose PreToolUse hookrules answered.
    Guarded,
    /// A PostToolUse whose PreToolUse hookrules never answered.
    Unguarded,
}

/// After the answer: note a PreToolUse's id, or look a PostToolUse's up.
pub fn after_answer(state_home: &Path, event: &Event) -> io::Result<Seen> {
    let Some(id) = event
        .str("tool_use_id")
        .filter(|id| !id.is_empty() && id.len() <= MAX_ID && !id.contains(['\n', '\r']))
    else {
        return Ok(Seen::NotJudged);
    };
    let index = Index::new(state_home, event.str("session_id").unwrap_or(""));
    match event.name.as_str() {
        "PreToolUse" => index.note(id).map(|()| Seen::Noted),
        "PostToolUse" | "PostToolUseFailure" => Ok(if index.contains(id)? {
            Seen::Guarded
        } else {
            Seen::Unguarded
        }),
        _ => Ok(Seen::NotJudged),
    }
}

/// One session's ids.
struct Index {
    dir: PathBuf,
    key: String,
}

impl Index {
    fn new(state_home: &Path, session: &str) -> Index {
        let digest = Sha256::digest(session.as_bytes());
        let key: String = digest[..12].iter().map(|b| format!("{b:02x}")).collect();
        Index {
            dir: state_home.join(FOLDER),
            key,
        }
    }

    fn current(&self) -> PathBuf {
        self.dir.join(format!("{}.ids", self.key))
    }

    fn previous(&self) -> PathBuf {
        self.dir.join(format!("{}.ids.1", self.key))
    }

    /// Append the id; rotate when the file has grown past a generation.
    fn note(&self, id: &str) -> io::Result<()> {
        let mut f = match open_append(&self.current(), false) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&self.dir)?;
                prune(&self.dir);
                open_append(&self.current(), true)?
            }
            Err(e) => return Err(e),
        };
        let line = format!("{id}\n");
        let n = f.write(line.as_bytes())?;
        if n != line.len() {
            return Err(io::Error::other(format!(
                "short append ({n} of {} bytes)",
                line.len()
            )));
        }
        if f.metadata()?.len() >= GENERATION_BYTES {
            self.rotate()?;
        }
        Ok(())
    }

    /// Under the session's lock, and only if the file is still too large (no
    /// other hook rotated it meanwhile): current -> previous.
    fn rotate(&self) -> io::Result<()> {
        let lock = open_append(&self.dir.join(format!("{}.lock", self.key)), true)?;
        // Released when `lock` closes.
        if lock.try_lock().is_err() {
            // Another hook is rotating it.
            return Ok(());
        }
        let still = fs::symlink_metadata(self.current())
            .map(|m| m.len() >= GENERATION_BYTES)
            .unwrap_or(false);
        if still {
            fs::rename(self.current(), self.previous())?;
        }
        Ok(())
    }

    /// Is the id in either generation?
    fn contains(&self, id: &str) -> io::Result<bool> {
        for path in [self.current(), self.previous()] {
            match read(&path) {
                Ok(bytes) if has_line(&bytes, id.as_bytes()) => return Ok(true),
                Ok(_) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(false)
    }
}

/// Does `text` hold `id` as a whole line?
fn has_line(text: &[u8], id: &[u8]) -> bool {
    memchr::memmem::find_iter(text, id).any(|at| {
        (at == 0 || text[at - 1] == b'\n') && text.get(at + id.len()).is_none_or(|&b| b == b'\n')
    })
}

/// Open for appending: regular files only, no link followed, never blocking.
fn open_append(path: &Path, create: bool) -> io::Result<File> {
    let f = OpenOptions::new()
        .append(true)
        .create(create)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !f.metadata()?.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    Ok(f)
}

/// A generation's bytes (at most two generations' worth: a larger file is not
/// one this index wrote, and is read only that far).
fn read(path: &Path) -> io::Result<Vec<u8>> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !f.metadata()?.file_type().is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    let mut bytes = Vec::with_capacity(GENERATION_BYTES as usize);
    f.take(2 * GENERATION_BYTES).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Remove session files untouched for [`PRUNE_DAYS`] days.
fn prune(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let horizon = Duration::from_secs(PRUNE_DAYS * 86_400);
    let now = SystemTime::now();
    let mut locks = vec![];
    for e in entries.flatten() {
        let path = e.path();
        if path.extension().is_some_and(|x| x == "lock") {
            locks.push(path);
            continue;
        }
        let old = e
            .metadata()
            .ok()
            .filter(|m| m.file_type().is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > horizon);
        if old {
            let _ = fs::remove_file(path);
        }
    }
    // A lock goes with its session's files (never while they are in use).
    for lock in locks {
        if !lock.with_extension("ids").exists() && !lock.with_extension("ids.1").exists() {
            let _ = fs::remove_file(lock);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(name: &str, id: &str, session: &str) -> Event {
        Event::from_value(json!({"hook_event_name": name, "session_id": session,
            "tool_name": "Bash", "tool_input": {"command": "ls"}, "tool_use_id": id}))
        .unwrap()
    }

    #[test]
    fn a_post_is_guarded_only_when_its_own_pre_was_noted() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let seen = |name, id, s| after_answer(home, &event(name, id, s)).unwrap();
        assert_eq!(seen("PostToolUse", "toolu_1", "s"), Seen::Unguarded);
        assert_eq!(seen("PreToolUse", "toolu_1", "s"), Seen::Noted);
        assert_eq!(seen("PostToolUse", "toolu_1", "s"), Seen::Guarded);
        assert_eq!(seen("PostToolUseFailure", "toolu_1", "s"), Seen::Guarded);
        // A prefix, an extension, another session's id: not the same call.
        assert_eq!(seen("PostToolUse", "toolu_", "s"), Seen::Unguarded);
        assert_eq!(seen("PostToolUse", "toolu_12", "s"), Seen::Unguarded);
        assert_eq!(seen("PostToolUse", "toolu_1", "other"), Seen::Unguarded);
        assert_eq!(seen("Stop", "toolu_1", "s"), Seen::NotJudged);
        let no_id = Event::from_value(json!({"hook_event_name": "PostToolUse",
            "tool_name": "Bash", "tool_input": {}}))
        .unwrap();
        assert_eq!(after_answer(home, &no_id).unwrap(), Seen::NotJudged);
    }

    #[test]
    fn the_index_is_bounded_and_keeps_the_last_window_of_ids() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path();
        let n = 3 * WINDOW_IDS;
        let id = |i: u64| format!("toolu_01{i:030}");
        for i in 0..n {
            after_answer(home, &event("PreToolUse", &id(i), "s")).unwrap();
        }
        let files: Vec<_> = fs::read_dir(home.join(FOLDER))
            .unwrap()
            .map(|e| e.unwrap())
            .collect();
        let total: u64 = files.iter().map(|e| e.metadata().unwrap().len()).sum();
        assert!(total <= 2 * GENERATION_BYTES + 64, "{total} bytes");
        assert_eq!(files.len(), 3, "current, previous and the lock");
        for i in n - WINDOW_IDS..n {
            let e = event("PostToolUse", &id(i), "s");
            assert_eq!(after_answer(home, &e).unwrap(), Seen::Guarded, "{i}");
        }
        let e = event("PostToolUse", &id(0), "s");
        assert_eq!(after_answer(home, &e).unwrap(), Seen::Unguarded);
    }
}
