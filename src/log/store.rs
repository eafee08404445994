//! The log files: `decisions.jsonl` (current), `decisions.1.jsonl` ...
//! `decisions.N.jsonl` (older), and `decisions.lock`.
//!
//! Many hook processes write at once. Each line goes out in one `write` on an
//! `O_APPEND` descriptor while the writer holds an exclusive `flock` on the lock
//! file. On Linux a `write` to a regular file runs under the inode's lock, so
//! `O_APPEND` writes of any size land whole and never interleave (`PIPE_BUF` is a
//! pipe limit and does not apply); the `flock` makes that independent of the file
//! system and serialises rotation: the writer that finds the file over its size
//! renames the generations while no one else can write, so no line is written to
//! a file that is being renamed away. A writer that cannot get the lock before
//! its deadline (a stuck process holding it) still appends its line with the
//! single `O_APPEND` write and leaves rotation to the next one: a line is never
//! dropped for the lock's sake.
//!
//! Files are opened without following symlinks and without blocking, and only
//! regular files are used: a FIFO or a device at the log path is refused at once.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The current log file's name.
pub const CURRENT: &str = "decisions.jsonl";
const LOCK: &str = "decisions.lock";

/// Size-bounded rotation.
#[derive(Debug, Clone, Copy)]
pub struct Rotation {
    /// Rotate once the current file reaches this size.
    pub max_bytes: u64,
    /// Rotated generations kept.
    pub keep: u32,
}

/// The path of generation `n` (0: the current file).
pub fn generation(dir: &Path, n: u32) -> PathBuf {
    if n == 0 {
        dir.join(CURRENT)
    } else {
        dir.join(format!("decisions.{n}.jsonl"))
    }
}

/// Open a file for appending (the log) or for locking (the lock file): regular
/// files only, never blocking on a FIFO, never following a symlink.
fn open_regular(path: &Path, append: bool) -> io::Result<File> {
    if append {
        return crate::os::files::open_append(path).map_err(|e| named(path, e));
    }
    if let Ok(m) = fs::symlink_metadata(path) {
        if !m.file_type().is_file() {
            return Err(named(
                path,
                crate::os::files::open_regular(path)
                    .err()
                    .unwrap_or_else(|| io::Error::other("not a regular file")),
            ));
        }
    }
    let f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !f.metadata()?.file_type().is_file() {
        return Err(named(path, io::Error::other("it is not a regular file")));
    }
    Ok(f)
}

fn named(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

/// Open a log file for reading: regular files only (see [`crate::os::files::open_regular`]).
pub fn open_for_reading(path: &Path) -> io::Result<File> {
    crate::os::files::open_regular(path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            e
        } else {
            named(path, e)
        }
    })
}

fn lock(dir: &Path, deadline: Instant) -> io::Result<Option<crate::os::files::Locked>> {
    crate::os::files::lock_until(open_regular(&dir.join(LOCK), false)?, deadline)
}

/// Append one line (a newline is added) to the log in `dir`, rotating when the
/// file has grown past `rotation.max_bytes`. Gives up waiting for the lock at
/// `deadline` (the line is still written).
pub fn append(dir: &Path, line: &[u8], rotation: Rotation, deadline: Instant) -> io::Result<()> {
    if !dir.is_dir() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let mut buf = Vec::with_capacity(line.len() + 1);
    buf.extend_from_slice(line);
    buf.push(b'\n');
    let held = lock(dir, deadline)?;
    let mut f = open_regular(&generation(dir, 0), true)?;
    if held.is_some() {
        // Nobody else writes while we hold the lock: a short write can be finished.
        f.write_all(&buf)?;
    } else {
        let n = f.write(&buf)?;
        if n != buf.len() {
            return Err(io::Error::other(format!(
                "short append ({n} of {} bytes)",
                buf.len()
            )));
        }
    }
    if held.is_some() && f.metadata()?.len() >= rotation.max_bytes {
        rotate(dir, rotation.keep)?;
    }
    drop(f);
    drop(held);
    Ok(())
}

/// Shift the generations: N-1 -> N (N dropped), ..., current -> 1. Called with
/// the lock held.
fn rotate(dir: &Path, keep: u32) -> io::Result<()> {
    let keep = keep.max(1);
    for n in (0..keep).rev() {
        match fs::rename(generation(dir, n), generation(dir, n + 1)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    let _ = fs::remove_file(generation(dir, keep + 1));
    Ok(())
}

/// Every line of the log in `dir`, oldest first (rotated generations, then the
/// current file). A line cut short (a full disk) is returned as it is; the
/// reader decides.
pub fn read_lines(dir: &Path) -> io::Result<Vec<String>> {
    let mut gens = vec![];
    if let Ok(rd) = fs::read_dir(dir) {
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(n) = name
                .strip_prefix("decisions.")
                .and_then(|r| r.strip_suffix(".jsonl"))
                .and_then(|n| n.parse::<u32>().ok())
            {
                gens.push(n);
            }
        }
    }
    gens.sort_unstable_by(|a, b| b.cmp(a));
    gens.push(0);
    let mut lines = vec![];
    for n in gens {
        let mut text = String::new();
        match open_for_reading(&generation(dir, n)) {
            Ok(mut f) => {
                let mut bytes = vec![];
                f.read_to_end(&mut bytes)?;
                text.push_str(&String::from_utf8_lossy(&bytes));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        }
        lines.extend(text.lines().filter(|l| !l.is_empty()).map(str::to_string));
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn rotation_keeps_every_line_of_the_kept_generations_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let rot = Rotation {
            max_bytes: 100,
            keep: 50,
        };
        let far = Instant::now() + Duration::from_secs(5);
        for i in 0..40 {
            append(dir.path(), format!("{{\"n\":{i:04}}}").as_bytes(), rot, far).unwrap();
        }
        let lines = read_lines(dir.path()).unwrap();
        let want: Vec<String> = (0..40).map(|i| format!("{{\"n\":{i:04}}}")).collect();
        assert_eq!(lines, want);
        assert!(generation(dir.path(), 3).exists());
    }

    #[test]
    fn old_generations_beyond_keep_are_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let rot = Rotation {
            max_bytes: 10,
            keep: 2,
        };
        let far = Instant::now() + Duration::from_secs(5);
        for i in 0..10 {
            append(dir.path(), format!("line number {i}").as_bytes(), rot, far).unwrap();
        }
        assert!(!generation(dir.path(), 3).exists());
        assert_eq!(
            read_lines(dir.path()).unwrap(),
            vec!["line number 8", "line number 9"]
        );
    }

    #[test]
    fn a_fifo_at_the_log_path_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let p = generation(dir.path(), 0);
        let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let far = Instant::now() + Duration::from_secs(5);
        let rot = Rotation {
            max_bytes: 1000,
            keep: 1,
        };
        let err = append(dir.path(), b"x", rot, far).unwrap_err();
        assert!(err.to_string().contains("not a regular file"), "{err}");
        assert!(read_lines(dir.path()).is_err());
    }
}
