//! The on-disk form of a policy set's index: one file per set of policy texts,
//! named by a hash of their content and of the hookrules version, so it is never
//! stale and always safe to delete. Written atomically; a file that does not
//! decode is ignored and rebuilt.

use std::path::{Path, PathBuf};

use super::needles::Atom;
use super::{FileIndex, RuleEntry, SetIndex};

const MAGIC: &[u8; 8] = b"HRIDX002";

/// A 128-bit content hash (two seeded 64-bit multiply-xor passes over 8-byte
/// words). Not cryptographic: whoever can write the policy files already decides
/// what hookrules does.
pub fn hash(parts: &[&[u8]]) -> u128 {
    fn mix(seed: u64, parts: &[&[u8]]) -> u64 {
        const K: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut h = seed ^ K;
        for p in parts {
            h = (h ^ p.len() as u64).wrapping_mul(K).rotate_left(29);
            let mut chunks = p.chunks_exact(8);
            for c in &mut chunks {
                let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
                h = (h ^ w).wrapping_mul(K).rotate_left(31);
            }
            for &b in chunks.remainder() {
                h = (h ^ u64::from(b)).wrapping_mul(K).rotate_left(7);
            }
        }
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^ (h >> 33)
    }
    (u128::from(mix(1, parts)) << 64) | u128::from(mix(0x1234_5678_9abc_def0, parts))
}

/// Where index files live: `HOOKRULES_CACHE_DIR`, else `$XDG_CACHE_HOME/hookrules`,
/// else `~/.cache/hookrules`. `HOOKRULES_CACHE=off` turns the cache off.
pub fn cache_dir(env: &std::collections::BTreeMap<String, String>) -> Option<PathBuf> {
    if env
        .get("HOOKRULES_CACHE")
        .is_some_and(|v| v == "off" || v == "0")
    {
        return None;
    }
    if let Some(d) = env.get("HOOKRULES_CACHE_DIR").filter(|s| !s.is_empty()) {
        return Some(PathBuf::from(d));
    }
    let base = env
        .get("XDG_CACHE_HOME")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .or_else(|| env.get("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(base.join("hookrules"))
}

/// The index file for a content hash.
pub fn path_for(dir: &Path, key: u128) -> PathBuf {
    dir.join(format!("{key:032x}.idx"))
}

/// Read an index file; `None` if missing or not decodable.
pub fn load(path: &Path) -> Option<SetIndex> {
    let bytes = std::fs::read(path).ok()?;
    decode(&bytes)
}

/// Write an index file atomically (errors are ignored: the cache is optional).
pub fn save(path: &Path, index: &SetIndex) {
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    let _ = crate::os::files::write_atomic(path, &encode(index));
}

fn put_u32(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&(v as u32).to_le_bytes());
}
fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u32(out, s.len());
    out.extend_from_slice(s.as_bytes());
}
fn put_strs(out: &mut Vec<u8>, v: &[String]) {
    put_u32(out, v.len());
    for s in v {
        put_str(out, s);
    }
}

/// Encode an index.
pub fn encode(index: &SetIndex) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    put_u32(&mut out, index.files.len());
    for f in &index.files {
        put_u32(&mut out, f.prelude.len());
        for r in &f.prelude {
            put_u32(&mut out, r.start);
            put_u32(&mut out, r.end);
        }
        put_u32(&mut out, f.rules.len());
        for r in &f.rules {
            put_u32(&mut out, r.range.start);
            put_u32(&mut out, r.range.end);
            put_str(&mut out, &r.id);
            put_strs(&mut out, &r.events);
            match &r.matcher {
                Some(m) => {
                    out.push(1);
                    put_str(&mut out, m);
                }
                None => out.push(0),
            }
            match &r.needles {
                Some(atoms) => {
                    out.push(1);
                    put_u32(&mut out, atoms.len());
                    for a in atoms {
                        match a {
                            Atom::Text(t) => {
                                out.push(0);
                                put_str(&mut out, t);
                            }
                            Atom::Program { field, name } => {
                                out.push(1);
                                put_str(&mut out, field);
                                put_str(&mut out, name);
                            }
                        }
                    }
                }
                None => out.push(0),
            }
        }
    }
    out
}

struct Reader<'b> {
    b: &'b [u8],
    at: usize,
}

impl Reader<'_> {
    fn u32(&mut self) -> Option<usize> {
        let v = self.b.get(self.at..self.at + 4)?;
        self.at += 4;
        Some(u32::from_le_bytes(v.try_into().ok()?) as usize)
    }
    fn u8(&mut self) -> Option<u8> {
        let v = *self.b.get(self.at)?;
        self.at += 1;
        Some(v)
    }
    fn str(&mut self) -> Option<String> {
        let n = self.u32()?;
        let v = self.b.get(self.at..self.at + n)?;
        self.at += n;
        String::from_utf8(v.to_vec()).ok()
    }
    fn strs(&mut self) -> Option<Vec<String>> {
        let n = self.u32()?;
        (0..n).map(|_| self.str()).collect()
    }
}

/// Decode an index; `None` on anything unexpected.
pub fn decode(bytes: &[u8]) -> Option<SetIndex> {
    if bytes.get(..8)? != MAGIC {
        return None;
    }
    let mut r = Reader { b: bytes, at: 8 };
    let nfiles = r.u32()?;
    let mut files = Vec::with_capacity(nfiles.min(4096));
    for _ in 0..nfiles {
        let np = r.u32()?;
        let mut prelude = Vec::with_capacity(np.min(4096));
        for _ in 0..np {
            prelude.push(r.u32()?..r.u32()?);
        }
        let nr = r.u32()?;
        let mut rules = Vec::with_capacity(nr.min(1 << 16));
        for _ in 0..nr {
            let range = r.u32()?..r.u32()?;
            let id = r.str()?;
            let events = r.strs()?;
            let matcher = match r.u8()? {
                1 => Some(r.str()?),
                _ => None,
            };
            let needles = match r.u8()? {
                1 => {
                    let n = r.u32()?;
                    let mut atoms = Vec::with_capacity(n.min(256));
                    for _ in 0..n {
                        atoms.push(match r.u8()? {
                            0 => Atom::Text(r.str()?),
                            1 => Atom::Program {
                                field: r.str()?,
                                name: r.str()?,
                            },
                            _ => return None,
                        });
                    }
                    Some(atoms)
                }
                _ => None,
            };
            rules.push(RuleEntry {
                range,
                id,
                events,
                matcher,
                needles,
            });
        }
        files.push(FileIndex { prelude, rules });
    }
    (r.at == bytes.len()).then_some(SetIndex { files })
}
