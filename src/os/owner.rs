//! Is a path the administrator's? The managed policy layer loads only what
//! nobody but the administrator can have written.
//!
//! A path is administrator-owned when the place it really lands (links
//! followed) and every folder above that place are owned by root and writable
//! by nobody else: not by others, and by the group only when the group is root's
//! (gid 0). A folder writable by others is accepted only with the sticky bit
//! (`/tmp`): there nobody can rename or remove another user's entry, so the
//! root-owned entry below it stays where it is. A link anywhere on the way is
//! judged at its target, so `/etc/hookrules -> /home/dev/x` is the developer's.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why a path is not the administrator's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAdmin {
    /// It (or a folder above it) cannot be examined.
    Unreadable {
        /// The path.
        path: PathBuf,
        /// The error.
        error: String,
    },
    /// Owned by someone other than root.
    Owner {
        /// The path.
        path: PathBuf,
        /// Its owner's uid.
        uid: u32,
    },
    /// Writable by a group other than root's, or by everyone.
    Writable {
        /// The path.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
}

impl std::fmt::Display for NotAdmin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAdmin::Unreadable { path, error } => {
                write!(f, "{} cannot be examined: {error}", path.display())
            }
            NotAdmin::Owner { path, uid } => {
                write!(f, "{} is owned by uid {uid}, not root", path.display())
            }
            NotAdmin::Writable { path, mode } => write!(
                f,
                "{} is writable by others (mode {:o})",
                path.display(),
                mode & 0o7777
            ),
        }
    }
}

/// Check `path` (a file or a folder) and every folder above where it lands.
pub fn admin_owned(path: &Path) -> Result<(), NotAdmin> {
    let real = std::fs::canonicalize(path).map_err(|e| NotAdmin::Unreadable {
        path: path.to_path_buf(),
        error: e.to_string(),
    })?;
    for p in real.ancestors() {
        let m = std::fs::metadata(p).map_err(|e| NotAdmin::Unreadable {
            path: p.to_path_buf(),
            error: e.to_string(),
        })?;
        judge(p, m.uid(), m.gid(), m.mode(), m.is_dir())?;
    }
    Ok(())
}

/// One path's owner and mode.
fn judge(path: &Path, uid: u32, gid: u32, mode: u32, dir: bool) -> Result<(), NotAdmin> {
    const STICKY: u32 = 0o1000;
    if uid != 0 {
        return Err(NotAdmin::Owner {
            path: path.to_path_buf(),
            uid,
        });
    }
    let group_writes = mode & 0o020 != 0 && gid != 0;
    let others_write = mode & 0o002 != 0 && !(dir && mode & STICKY != 0);
    if group_writes || others_write {
        return Err(NotAdmin::Writable {
            path: path.to_path_buf(),
            mode,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_group_others_and_sticky() {
        let p = Path::new("/x");
        assert!(judge(p, 0, 0, 0o755, true).is_ok());
        assert!(
            judge(p, 0, 0, 0o775, true).is_ok(),
            "root's group may write"
        );
        assert!(judge(p, 0, 0, 0o1777, true).is_ok(), "sticky folder (/tmp)");
        assert!(matches!(
            judge(p, 0, 0, 0o777, true),
            Err(NotAdmin::Writable { .. })
        ));
        assert!(matches!(
            judge(p, 0, 0, 0o1666, false),
            Err(NotAdmin::Writable { .. }),
        ));
        assert!(matches!(
            judge(p, 0, 100, 0o664, false),
            Err(NotAdmin::Writable { .. })
        ));
        assert!(judge(p, 0, 100, 0o644, false).is_ok());
        assert!(matches!(
            judge(p, 1000, 0, 0o644, false),
            Err(NotAdmin::Owner { uid: 1000, .. })
        ));
    }
}
