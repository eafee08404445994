//! File operations for everything hookrules opens: policies, fixtures,
//! settings, facts, includes, transcripts, effects and logs.
//!
//! - **Files are opened as what they claim to be.** [`open_regular`] (and
//!   [`read_regular`], [`read_capped`], [`append_line`], [`write_atomic`]
//!   ([`write_atomic_unsynced`]), built
//!   on it) only ever reads or appends a regular file. A FIFO, a device, a socket
//!   or a folder is refused with an error that says what it is, without blocking:
//!   the type is checked before opening, the open itself is non-blocking (a FIFO
//!   with no writer cannot stall it), and the type is checked again on the open
//!   descriptor (a swap between the two checks is caught).
//! - **Confinement** of paths built from event data ([`confine`], [`confine_in`]).
//! - **Atomic writes** (temporary file, then rename) and **appends that never
//!   interleave** (one `write` on an `O_APPEND` descriptor).

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

/// What a path is, for the message when it is not a regular file.
fn kind_name(ft: &fs::FileType) -> &'static str {
    if ft.is_dir() {
        "a folder"
    } else if ft.is_fifo() {
        "a FIFO (named pipe)"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

fn not_regular(ft: &fs::FileType) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("it is {}, not a regular file: refused", kind_name(ft)),
    )
}

/// Open a regular file for reading (symlinks are followed to a regular file).
///
/// Anything else is refused without blocking, with an error naming what it is;
/// a dangling symlink says so instead of "not found".
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    match fs::metadata(path) {
        Ok(m) if !m.file_type().is_file() => return Err(not_regular(&m.file_type())),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "it is a dangling symlink (its target does not exist)",
                ));
            }
            return Err(e);
        }
        Err(e) => return Err(e),
    }
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let ft = f.metadata()?.file_type();
    if !ft.is_file() {
        return Err(not_regular(&ft));
    }
    Ok(f)
}

/// Read a whole regular file (at most `max` bytes when given; more is an error
/// naming the limit, never a silent truncation).
pub fn read_regular(path: &Path, max: Option<u64>) -> std::io::Result<Vec<u8>> {
    let f = open_regular(path)?;
    let mut buf = Vec::new();
    match max {
        None => {
            let mut f = f;
            f.read_to_end(&mut buf)?;
        }
        Some(max) => {
            f.take(max + 1).read_to_end(&mut buf)?;
            if buf.len() as u64 > max {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("it is larger than {max} bytes"),
                ));
            }
        }
    }
    Ok(buf)
}

/// Read a regular file as UTF-8 text (the error says where the first bad byte is).
pub fn read_text(path: &Path) -> std::io::Result<String> {
    let bytes = read_regular(path, None)?;
    String::from_utf8(bytes).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "not UTF-8 (first bad byte at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

/// Why a path was refused by [`confine`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfineError {
    /// It has a NUL byte.
    #[error("path contains a NUL byte")]
    Nul,
    /// It is empty (or blank).
    #[error("path is empty")]
    Empty,
    /// It resolves (lexically) outside the folder.
    #[error("{} is outside {}", path.display(), within.display())]
    Outside {
        /// The path, resolved.
        path: PathBuf,
        /// The folder it must stay in.
        within: PathBuf,
    },
    /// A symlink whose target does not exist (so cannot be checked).
    #[error("{} is a dangling symlink", .0.display())]
    Dangling(PathBuf),
    /// A symlink on the way leads outside the folder.
    #[error("{} leads outside {} through a symlink", path.display(), within.display())]
    ThroughSymlink {
        /// The path, resolved lexically.
        path: PathBuf,
        /// The folder, its symlinks resolved.
        within: PathBuf,
    },
}

/// Resolve `path` (relative to `base`) and make sure it stays inside `within`.
///
/// Rejects NUL bytes; resolves `.` and `..` lexically; then resolves symlinks of
/// the longest existing prefix so a link cannot lead outside either.
pub fn confine(path: &str, base: &Path, within: &Path) -> Result<PathBuf, ConfineError> {
    if path.contains('\0') {
        return Err(ConfineError::Nul);
    }
    if path.trim().is_empty() {
        return Err(ConfineError::Empty);
    }
    let joined = base.join(path);
    let lexical = lexical_normalize(&joined);
    let within_l = lexical_normalize(&base.join(within));
    if !lexical.starts_with(&within_l) {
        return Err(ConfineError::Outside {
            path: lexical,
            within: within_l,
        });
    }
    // A symlink whose target does not exist yet cannot be resolved, so it cannot
    // be checked: refuse it rather than follow it when writing.
    if std::fs::symlink_metadata(&lexical).is_ok_and(|m| m.file_type().is_symlink())
        && lexical.canonicalize().is_err()
    {
        return Err(ConfineError::Dangling(lexical));
    }
    let real = resolve_existing_prefix(&lexical);
    let within_r = resolve_existing_prefix(&within_l);
    if !real.starts_with(&within_r) {
        return Err(ConfineError::ThroughSymlink {
            path: lexical,
            within: within_r,
        });
    }
    Ok(lexical)
}

/// Why [`confine_in`] refused a path: its folder, or the path in it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfineInError {
    /// The `within` folder is not in the project.
    #[error("{0}")]
    Folder(#[source] ConfineError),
    /// The path is not in the folder.
    #[error("{0} (a path built from event data stays in its `within`, else in the literal folder before its first `{{{{`)")]
    Path(#[source] ConfineError),
}

/// The folder a policy names (`within`, possibly built from event data), itself
/// confined to the project, then `path` confined to it. An empty `within` is
/// the project itself.
pub fn confine_in(
    path: &str,
    project: &Path,
    within: Option<&str>,
) -> Result<PathBuf, ConfineInError> {
    let folder = match within.filter(|w| !w.trim().is_empty()) {
        Some(w) => confine(w, project, project).map_err(ConfineInError::Folder)?,
        None => project.to_path_buf(),
    };
    confine(path, project, &folder).map_err(ConfineInError::Path)
}

/// The folder a path built from a template stays in when the policy names no
/// `within`: the literal folder before its first `{{` or `{%` (or glob
/// character). For `.claude/state/{{ event.session_id }}.json` that is
/// `.claude/state`, so a session id of `../../package` cannot reach
/// `package.json`; for `{{ event.agent_id }}.md` it is the project itself (`""`).
/// A path that is not a template (nothing from the event can change it): `None`,
/// the project.
pub fn literal_folder(template: &str) -> Option<String> {
    let cut = template.find(['{', '*', '?', '['])?;
    if !template.contains("{{") && !template.contains("{%") {
        return None;
    }
    let literal = &template[..cut];
    Some(match literal.rfind('/') {
        Some(i) => literal[..i].to_string(),
        None => String::new(),
    })
}

/// Resolve `.`/`..` without touching the file system (never above `/`).
pub fn lexical_normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// `p` with its longest existing prefix resolved (links followed), the rest
/// as written: where a write to `p` lands.
pub fn resolve_existing_prefix(p: &Path) -> PathBuf {
    let mut existing = p.to_path_buf();
    let mut rest = vec![];
    loop {
        if let Ok(real) = existing.canonicalize() {
            let mut r = real;
            for c in rest.iter().rev() {
                r.push(c);
            }
            return r;
        }
        match (
            existing.file_name().map(|s| s.to_os_string()),
            existing.parent(),
        ) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                existing = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// Write a file atomically: a temporary file in the same folder, fsync, rename.
/// Readers see the old content or the new, never a half-written file. Something
/// other than a regular file (or a symlink) at `path` is refused, not replaced.
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, content, true)
}

/// [`write_atomic`] without the fsync, for state that is only advice (counts,
/// the last error): readers still see the old content or the new, but after a
/// power loss the file may be the old one or empty. An fsync costs
/// milliseconds to tens of them on a busy disk, and the process waits for it.
pub fn write_atomic_unsynced(path: &Path, content: &[u8]) -> std::io::Result<()> {
    write_via_temp(path, content, false)
}

fn write_via_temp(path: &Path, content: &[u8], durable: bool) -> std::io::Result<()> {
    if let Ok(m) = fs::symlink_metadata(path) {
        let ft = m.file_type();
        if !ft.is_file() && !ft.is_symlink() {
            return Err(not_regular(&ft));
        }
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path
        .file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let tmp = dir.join(format!(
        ".{name}.{}.{nanos}.hookrules-tmp",
        std::process::id()
    ));
    let result = (|| {
        let mut f = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
        f.write_all(content)?;
        if durable {
            f.sync_all()?;
        }
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Open a regular file for appending (created if missing, mode 0600), without
/// following a symlink and without blocking: the same checks as [`open_regular`].
pub fn open_append(path: &Path) -> std::io::Result<File> {
    // Only a regular file: appending to a FIFO blocks until someone reads it.
    if let Ok(m) = fs::symlink_metadata(path) {
        if !m.file_type().is_file() {
            return Err(not_regular(&m.file_type()));
        }
    }
    // O_NOFOLLOW: never append through a symlink swapped in after the check.
    // O_NONBLOCK: a FIFO swapped in after the check cannot stall the open (with
    // no reader it fails with ENXIO); the descriptor is checked again below.
    let f = OpenOptions::new()
        .append(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)?;
    let ft = f.metadata()?.file_type();
    if !ft.is_file() {
        return Err(not_regular(&ft));
    }
    Ok(f)
}

/// Append one line with a single `write` on an `O_APPEND` descriptor, so lines
/// from concurrent hook processes never interleave.
pub fn append_line(path: &Path, line: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir)?;
    }
    let mut buf = Vec::with_capacity(line.len() + 1);
    buf.extend_from_slice(line.as_bytes());
    buf.push(b'\n');
    let mut f = open_append(path)?;
    let n = f.write(&buf)?;
    if n != buf.len() {
        return Err(std::io::Error::other(format!(
            "short append ({n} of {} bytes)",
            buf.len()
        )));
    }
    Ok(())
}

/// Read at most `max` bytes of a regular file as lossy UTF-8.
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<String> {
    let f = open_regular(path)?;
    let mut buf = Vec::new();
    f.take(max).read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// An exclusive lock on an open file (`flock`), released when this is dropped
/// (or the file closes).
#[derive(Debug)]
pub struct Locked(File);

impl Locked {
    /// The locked file.
    pub fn file(&self) -> &File {
        &self.0
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        // Closing the descriptor releases the lock too; unlocking first makes
        // the release independent of other descriptors of the same file.
        let _ = self.0.unlock();
    }
}

/// Lock `file` exclusively, retrying with short pauses until `by` (never past
/// it; `by` already passed: one try). `None`: someone else still holds it.
pub fn lock_until(file: File, by: std::time::Instant) -> std::io::Result<Option<Locked>> {
    use std::fs::TryLockError;
    use std::time::{Duration, Instant};
    let mut pause = Duration::from_micros(50);
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Some(Locked(file))),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(TryLockError::Error(e)) => return Err(e),
        }
        let now = Instant::now();
        if now >= by {
            return Ok(None);
        }
        std::thread::sleep(pause.min(by - now));
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

/// Could this process write `path` (`access(2)` with `W_OK`, as the shell's
/// `test -w` asks)? False when it does not exist or cannot be asked.
pub fn writable_by_me(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c` is a valid NUL-terminated string that outlives the call.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}
