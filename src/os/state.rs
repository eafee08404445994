//! The user's state folder and the per-user secret key kept in it.
//!
//! Everything that changes a decision without being a policy lives in one
//! place, the user's state folder (`$XDG_STATE_HOME/hookrules`, default
//! `~/.local/state/hookrules`): allowances (allow once), trusted repository
//! policies, and the key that authenticates them and the compiled-set cache.
//! Only the environment names it; no policy can move it (a `[log] dir` moves
//! the decision log, nothing else).
//!
//! **The key** (`<state>/key`, 32 random bytes, mode 0600, owned by the user)
//! is what makes that state the user's: an allowance, a trust record or a cache
//! file counts only with a MAC (HMAC-SHA256) under it. The agent runs as the
//! same user, so the built-in pack denies it reading or writing the key (as
//! any other secret); code written to evade that analysis is outside what a
//! hook can see (see `docs/threat-model.md`: the OS sandbox is that boundary).
//!
//! The key is created once, atomically: written to a private temporary file,
//! then hard-linked to its name, which fails if another process got there
//! first (then that key is read). It is never replaced: a key that is not a
//! regular 32-byte file owned by the user and private to them is refused
//! ([`KeyError::Unsafe`]), which revokes every allowance and trust (the safe
//! direction) until the user removes it, and `doctor` says so.

use crate::os::env::Env;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use hmac::{Hmac, Mac};
use sha2::Sha256;
use siphasher::sip128::{Hasher128, SipHasher24};
use std::hash::Hasher;

/// HMAC-SHA256. The keyed state (inner and outer pads hashed) is a cloneable
/// value, so a hot loop clones it instead of hashing the key again.
type HmacSha256 = Hmac<Sha256>;

/// The key's length in bytes.
pub const KEY_LEN: usize = 32;

/// The file name of the key in the state folder.
pub const KEY_FILE: &str = "key";

/// `$XDG_STATE_HOME/hookrules` (an absolute `XDG_STATE_HOME` only), else
/// `~/.local/state/hookrules`; None without either.
pub fn state_home(env: &Env) -> Option<PathBuf> {
    env.get("XDG_STATE_HOME")
        .filter(|s| s.starts_with('/'))
        .map(PathBuf::from)
        .or_else(|| {
            env.get("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".local/state"))
        })
        .map(|d| d.join("hookrules"))
}

/// The key's path in a state folder.
pub fn key_path(state_home: &Path) -> PathBuf {
    state_home.join(KEY_FILE)
}

/// Why the key cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// There is no state folder (neither `XDG_STATE_HOME` nor `HOME`).
    #[error("no state folder (set HOME or XDG_STATE_HOME) for hookrules' key")]
    NoStateHome,
    /// There is no key yet (only commands that grant create one).
    #[error("there is no key yet at {}", .0.display())]
    Missing(PathBuf),
    /// The key file is there but cannot be trusted: not a regular file, not
    /// the user's, readable or writable by others, or not 32 bytes.
    #[error("the key {} cannot be trusted ({why}); every allowance and trust it signed is void: remove it (`rm {}`) and a new key is made at the next `hookrules allow` or `hookrules trust`", path.display(), path.display())]
    Unsafe {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        why: String,
    },
    /// Reading or creating it failed.
    #[error("the key {}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
}

/// The per-user secret key.
#[derive(Clone)]
pub struct UserKey {
    key: [u8; KEY_LEN],
}

impl std::fmt::Debug for UserKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UserKey(..)")
    }
}

/// A MAC under one purpose, ready to be fed (see [`UserKey::keyed`]).
#[derive(Clone)]
pub struct Keyed {
    mac: HmacSha256,
}

impl std::fmt::Debug for Keyed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keyed(..)")
    }
}

impl Keyed {
    /// The MAC of `parts` (each length-prefixed, so no two lists of parts
    /// feed the same bytes).
    pub fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
        let mut m = self.mac.clone();
        for p in parts {
            m.update(&(p.len() as u64).to_le_bytes());
            m.update(p);
        }
        m.finalize().into_bytes().into()
    }

    /// This state with `parts` already fed (a prefix shared by many MACs).
    pub fn then(&self, parts: &[&[u8]]) -> Keyed {
        let mut mac = self.mac.clone();
        for p in parts {
            mac.update(&(p.len() as u64).to_le_bytes());
            mac.update(p);
        }
        Keyed { mac }
    }

    /// Does `tag` (the MAC's first `tag.len()` bytes, at least 16) match?
    /// Compared in constant time.
    pub fn verify(&self, parts: &[&[u8]], tag: &[u8]) -> bool {
        if tag.len() < 16 || tag.len() > 32 {
            return false;
        }
        let mut m = self.mac.clone();
        for p in parts {
            m.update(&(p.len() as u64).to_le_bytes());
            m.update(p);
        }
        m.verify_truncated_left(tag).is_ok()
    }
}

/// A fast MAC for bulk data (the compiled-set cache's records, read on every
/// `run`): SipHash-2-4 with 128-bit output, a PRF designed for authenticating
/// data under a 128-bit secret key, at a few instructions per byte whatever
/// the CPU (HMAC-SHA256 costs ~25 instructions per byte without the SHA
/// extensions, which many CPUs and valgrind lack). Its key is derived from the
/// user's key with HMAC-SHA256, one per purpose ([`UserKey::fast`]), and never
/// stored; unlike a multiply-xor hash, a tag does not give the key away.
#[derive(Clone, Copy)]
pub struct FastMac {
    state: SipHasher24,
}

impl std::fmt::Debug for FastMac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FastMac(..)")
    }
}

impl FastMac {
    /// This state with `parts` already fed.
    pub fn then(&self, parts: &[&[u8]]) -> FastMac {
        let mut m = *self;
        m.feed(parts);
        m
    }

    fn feed(&mut self, parts: &[&[u8]]) {
        for p in parts {
            self.state.write_u64(p.len() as u64);
            self.state.write(p);
        }
    }

    /// The 128-bit tag of `parts` (each length-prefixed).
    pub fn tag(&self, parts: &[&[u8]]) -> [u8; 16] {
        let mut m = *self;
        m.feed(parts);
        m.state.finish128().as_bytes()
    }

    /// Does `tag` match? Compared in constant time.
    pub fn verify(&self, parts: &[&[u8]], tag: &[u8]) -> bool {
        let want = self.tag(parts);
        tag.len() == 16 && want.iter().zip(tag).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
    }
}

impl UserKey {
    /// The fast MAC for one purpose, its key derived from the user's key.
    pub fn fast(&self, purpose: &str) -> FastMac {
        self.fast_pair(purpose)[0]
    }

    /// Two fast MACs for one purpose (independent keys, both from one HMAC of
    /// the user's key: what `run` derives once per process for the cache).
    pub fn fast_pair(&self, purpose: &str) -> [FastMac; 2] {
        let k = self
            .keyed("hookrules fast mac key v1")
            .mac(&[purpose.as_bytes()]);
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        a.copy_from_slice(&k[..16]);
        b.copy_from_slice(&k[16..]);
        [a, b].map(|key| FastMac {
            state: SipHasher24::new_with_key(&key),
        })
    }

    /// A key from bytes (tests).
    pub fn from_bytes(key: [u8; KEY_LEN]) -> UserKey {
        UserKey { key }
    }

    /// The MAC state for one purpose (`purpose` is hashed in first, so a MAC
    /// made for one purpose never verifies for another).
    pub fn keyed(&self, purpose: &str) -> Keyed {
        // A 32-byte key is always accepted by HMAC.
        let mut mac = <HmacSha256 as Mac>::new_from_slice(&self.key)
            .unwrap_or_else(|_| unreachable!("HMAC takes keys of any length"));
        mac.update(purpose.as_bytes());
        mac.update(&[0]);
        Keyed { mac }
    }

    /// The MAC of `parts` for `purpose`, as lowercase hex.
    pub fn mac_hex(&self, purpose: &str, parts: &[&[u8]]) -> String {
        hex(&self.keyed(purpose).mac(parts))
    }

    /// Does `tag_hex` match the MAC of `parts` for `purpose`?
    pub fn verify_hex(&self, purpose: &str, parts: &[&[u8]], tag_hex: &str) -> bool {
        match unhex(tag_hex) {
            Some(tag) => self.keyed(purpose).verify(parts, &tag),
            None => false,
        }
    }

    /// Read the key of a state folder; never creates it.
    pub fn load(state_home: &Path) -> Result<UserKey, KeyError> {
        let path = key_path(state_home);
        let file = match fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&path)
        {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(KeyError::Missing(path))
            }
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
                return Err(KeyError::Unsafe {
                    path,
                    why: "it is a symbolic link".into(),
                })
            }
            Err(error) => return Err(KeyError::Io { path, error }),
        };
        let meta = file.metadata().map_err(|error| KeyError::Io {
            path: path.clone(),
            error,
        })?;
        let unsafe_key = |why: String| KeyError::Unsafe {
            path: path.clone(),
            why,
        };
        if !meta.file_type().is_file() {
            return Err(unsafe_key("it is not a regular file".into()));
        }
        // SAFETY: getuid has no preconditions.
        let me = unsafe { libc::getuid() };
        if meta.uid() != me {
            return Err(unsafe_key(format!(
                "it belongs to uid {}, not to you (uid {me})",
                meta.uid()
            )));
        }
        if meta.mode() & 0o077 != 0 {
            return Err(unsafe_key(format!(
                "its mode is {:o}: others may read or write it",
                meta.mode() & 0o777
            )));
        }
        let mut key = [0u8; KEY_LEN];
        let mut rest = vec![];
        let mut reader = file.take(KEY_LEN as u64 + 1);
        reader
            .read_to_end(&mut rest)
            .map_err(|error| KeyError::Io {
                path: path.clone(),
                error,
            })?;
        if rest.len() != KEY_LEN {
            return Err(unsafe_key(format!(
                "it holds {} bytes, not {KEY_LEN}",
                rest.len()
            )));
        }
        key.copy_from_slice(&rest);
        Ok(UserKey { key })
    }

    /// Read the key of a state folder, creating it (and the folder, mode 0700)
    /// if there is none. Only the commands that grant (`allow`, `trust`, `init`)
    /// and the cache writer create it.
    pub fn load_or_create(state_home: &Path) -> Result<UserKey, KeyError> {
        match UserKey::load(state_home) {
            Err(KeyError::Missing(_)) => {}
            other => return other,
        }
        let path = key_path(state_home);
        let io = |error: std::io::Error| KeyError::Io {
            path: path.clone(),
            error,
        };
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(state_home)
            .map_err(io)?;
        let mut key = [0u8; KEY_LEN];
        random(&mut key).map_err(io)?;
        let tmp = state_home.join(format!(".key.{}.tmp", std::process::id()));
        let written = (|| {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(&tmp)?;
            f.write_all(&key)?;
            f.sync_all()?;
            // Never replaces a key: link fails if the name exists.
            fs::hard_link(&tmp, &path)
        })();
        let _ = fs::remove_file(&tmp);
        match written {
            Ok(()) => Ok(UserKey { key }),
            // Another process created it first: use theirs.
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => UserKey::load(state_home),
            Err(e) => Err(io(e)),
        }
    }
}

/// The file where integrity events are recorded, in the state folder: one JSON
/// line each (`time`, `what`, `path`, `detail`). `doctor` reports them.
pub const INTEGRITY_FILE: &str = "integrity.jsonl";

/// Record an integrity event (a forged allowance, trust record or cache file)
/// in the state folder; best effort (one append; a failure is not reported,
/// the event itself was already refused).
pub fn record_integrity(state_home: &Path, what: &str, path: &Path, detail: &str) {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    let line = serde_json::json!({
        "time_ms": ms,
        "what": what,
        "path": path.display().to_string(),
        "detail": detail,
    });
    let _ = fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(state_home);
    let _ = super::files::append_line(&state_home.join(INTEGRITY_FILE), &line.to_string());
}

/// An integrity event read back.
#[derive(Debug, Clone, serde::Deserialize)]
pub struct IntegrityEvent {
    /// Milliseconds since the epoch.
    #[serde(default)]
    pub time_ms: u64,
    /// `cache-forged`, `allow-forged`, `pending-forged`, `trust-forged`.
    #[serde(default)]
    pub what: String,
    /// The file.
    #[serde(default)]
    pub path: String,
    /// What happened.
    #[serde(default)]
    pub detail: String,
}

/// The integrity events recorded in a state folder, oldest first (the last
/// `max`; lines that do not read are skipped).
pub fn integrity_events(state_home: &Path, max: usize) -> Vec<IntegrityEvent> {
    let Ok(text) = super::files::read_capped(&state_home.join(INTEGRITY_FILE), 4 << 20) else {
        return vec![];
    };
    let all: Vec<IntegrityEvent> = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let skip = all.len().saturating_sub(max);
    all.into_iter().skip(skip).collect()
}

/// Fill `buf` from the kernel's random source.
pub fn random(buf: &mut [u8]) -> std::io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        // SAFETY: getrandom writes at most `len` bytes into the valid slice.
        let n =
            unsafe { libc::getrandom(buf[filled..].as_mut_ptr().cast(), buf.len() - filled, 0) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Bytes from hex (either case); None if it is not hex.
pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_key_is_created_once_private_and_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("state/hookrules");
        assert!(matches!(UserKey::load(&home), Err(KeyError::Missing(_))));
        let a = UserKey::load_or_create(&home).unwrap();
        let meta = fs::metadata(key_path(&home)).unwrap();
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(meta.len(), KEY_LEN as u64);
        assert_eq!(fs::metadata(&home).unwrap().mode() & 0o777, 0o700);
        let b = UserKey::load_or_create(&home).unwrap();
        assert_eq!(a.key, b.key, "an existing key is never replaced");
        assert_eq!(
            fs::read_dir(&home).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn a_key_others_can_read_or_that_is_a_link_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_path_buf();
        UserKey::load_or_create(&home).unwrap();
        fs::set_permissions(key_path(&home), fs::Permissions::from_mode(0o644)).unwrap();
        assert!(matches!(UserKey::load(&home), Err(KeyError::Unsafe { .. })));
        assert!(
            matches!(UserKey::load_or_create(&home), Err(KeyError::Unsafe { .. })),
            "an unsafe key is not silently replaced"
        );
        fs::remove_file(key_path(&home)).unwrap();
        let elsewhere = dir.path().join("planted");
        fs::write(&elsewhere, [7u8; KEY_LEN]).unwrap();
        fs::set_permissions(&elsewhere, fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&elsewhere, key_path(&home)).unwrap();
        assert!(matches!(UserKey::load(&home), Err(KeyError::Unsafe { .. })));
        fs::remove_file(key_path(&home)).unwrap();
        fs::write(key_path(&home), [7u8; 12]).unwrap();
        fs::set_permissions(key_path(&home), fs::Permissions::from_mode(0o600)).unwrap();
        assert!(matches!(UserKey::load(&home), Err(KeyError::Unsafe { .. })));
    }

    #[test]
    fn a_mac_is_bound_to_its_key_purpose_and_parts() {
        let k = UserKey::from_bytes([1; KEY_LEN]);
        let other = UserKey::from_bytes([2; KEY_LEN]);
        let tag = k.mac_hex("allow", &[b"abc", b"def"]);
        assert!(k.verify_hex("allow", &[b"abc", b"def"], &tag));
        assert!(!k.verify_hex("trust", &[b"abc", b"def"], &tag));
        assert!(!k.verify_hex("allow", &[b"abcd", b"ef"], &tag));
        assert!(!other.verify_hex("allow", &[b"abc", b"def"], &tag));
        assert!(!k.verify_hex("allow", &[b"abc", b"def"], "00"));
        assert!(!k.verify_hex("allow", &[b"abc", b"def"], "not hex at all!"));
        let short = &tag[..32];
        assert!(k.verify_hex("allow", &[b"abc", b"def"], short));
        assert!(!k.verify_hex("allow", &[b"abc", b"def"], &tag[..30]));
        // The fast MAC: the same bindings.
        let f = k.fast("records");
        let t = f.tag(&[b"abc", b"def"]);
        assert!(f.verify(&[b"abc", b"def"], &t));
        assert!(!f.verify(&[b"abcd", b"ef"], &t));
        assert!(!k.fast("header").verify(&[b"abc", b"def"], &t));
        assert!(!other.fast("records").verify(&[b"abc", b"def"], &t));
        assert_eq!(f.then(&[b"abc"]).tag(&[b"def"]), t);
    }
}
