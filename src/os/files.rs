//! File operations for facts and effects: confinement of paths built from event
//! data, atomic writes, and appends that never interleave.

use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Component, Path, PathBuf};

/// Resolve `path` (relative to `base`) and make sure it stays inside `within`.
///
/// Rejects NUL bytes; resolves `.` and `..` lexically; then resolves symlinks of
/// the longest existing prefix so a link cannot lead outside either.
pub fn confine(path: &str, base: &Path, within: &Path) -> Result<PathBuf, String> {
    if path.contains('\0') {
        return Err("path contains a NUL byte".into());
    }
    if path.trim().is_empty() {
        return Err("path is empty".into());
    }
    let joined = base.join(path);
    let lexical = lexical_normalize(&joined);
    let within_l = lexical_normalize(&base.join(within));
    if !lexical.starts_with(&within_l) {
        return Err(format!(
            "{} is outside {} (paths built from event data may not leave the folder the policy names)",
            lexical.display(),
            within_l.display()
        ));
    }
    // A symlink whose target does not exist yet cannot be resolved, so it cannot
    // be checked: refuse it rather than follow it when writing.
    if std::fs::symlink_metadata(&lexical).is_ok_and(|m| m.file_type().is_symlink())
        && lexical.canonicalize().is_err()
    {
        return Err(format!("{} is a dangling symlink", lexical.display()));
    }
    let real = resolve_existing_prefix(&lexical);
    let within_r = resolve_existing_prefix(&within_l);
    if !real.starts_with(&within_r) {
        return Err(format!(
            "{} leads outside {} through a symlink",
            lexical.display(),
            within_r.display()
        ));
    }
    Ok(lexical)
}

/// The folder a policy names (`within`, possibly built from event data), itself
/// confined to the project, then `path` confined to it.
pub fn confine_in(path: &str, project: &Path, within: Option<&str>) -> Result<PathBuf, String> {
    let folder = match within {
        Some(w) => confine(w, project, project)?,
        None => project.to_path_buf(),
    };
    confine(path, project, &folder)
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

fn resolve_existing_prefix(p: &Path) -> PathBuf {
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
/// Readers see the old content or the new, never a half-written file.
pub fn write_atomic(path: &Path, content: &[u8]) -> std::io::Result<()> {
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
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
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
    // O_NOFOLLOW: never append through a symlink swapped in after the check.
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = OpenOptions::new()
        .append(true)
        .create(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    let n = f.write(&buf)?;
    if n != buf.len() {
        return Err(std::io::Error::other(format!(
            "short append ({n} of {} bytes)",
            buf.len()
        )));
    }
    Ok(())
}

/// Read at most `max` bytes of a file as lossy UTF-8.
pub fn read_capped(path: &Path, max: u64) -> std::io::Result<String> {
    use std::io::Read;
    let f = fs::File::open(path)?;
    let mut buf = Vec::new();
    f.take(max).read_to_end(&mut buf)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}
