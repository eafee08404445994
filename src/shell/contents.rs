//! What a patch or an archive on disk names: the files `git apply`, `patch`,
//! `tar -x` and `unzip` will write, read from the file before the command runs,
//! so a write is judged by where it lands even when the command line names only
//! the patch or the archive (`git apply fix.patch` that adds
//! `.claude/hookrules/off.toml`).
//!
//! Bounded: at most [`MAX_BYTES`] of a patch, [`MAX_NAMES`] names, and for
//! archives only their headers (a tar's 512-byte headers, a zip's central
//! directory; both hold names uncompressed). A gzip-compressed tar is
//! decompressed as far as [`MAX_INFLATED`] bytes (`flate2`, pure Rust: an
//! inflater written here would be more code to trust, not less). Another
//! compression (xz, bzip2, zstd), a format not read here, an unreadable file or
//! one past the bounds gives `None`: the caller then judges the unknown names
//! below the folder the command fills.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Most bytes of a patch read.
pub const MAX_BYTES: u64 = 4 << 20;
/// Most names listed.
pub const MAX_NAMES: usize = 10_000;
/// Most bytes of a gzip-compressed tar inflated to find its names.
pub const MAX_INFLATED: u64 = 32 << 20;

/// What kind of file names the writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A unified or git diff (also Codex's `*** Add File:` patches).
    Patch,
    /// A tar or zip archive.
    Archive,
    /// A folder tree a command copies, moves or syncs whole (`cp -r`,
    /// `rsync -a`, `mv`, `ditto`): its entries land below the destination.
    Tree,
}

/// Most levels of folders read below a tree's top.
pub const MAX_DEPTH: usize = 32;

/// The entries of a folder tree, as far as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// Relative names, breadth first (names near the top come first, so a
    /// protected folder at the top is read before a bound stops the walk);
    /// the top itself is `.`.
    pub names: Vec<String>,
    /// Every entry was read: no bound cut the walk, no folder was unreadable.
    pub complete: bool,
}

/// The entries of the tree at `path` (a folder, or a single file: `.` alone),
/// following links as what the copy makes shows them, at most [`MAX_NAMES`]
/// names and [`MAX_DEPTH`] levels; `None` when `path` cannot be read at all
/// (missing, not readable).
#[must_use]
pub fn tree(path: &Path) -> Option<Tree> {
    let top = std::fs::metadata(path).ok()?;
    let mut names = vec![".".to_string()];
    let mut complete = true;
    if !top.is_dir() {
        return Some(Tree { names, complete });
    }
    let mut queue = std::collections::VecDeque::from([(path.to_path_buf(), String::new(), 0)]);
    while let Some((dir, rel, depth)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            complete = false;
            continue;
        };
        for e in entries {
            let Ok(e) = e else {
                complete = false;
                continue;
            };
            if names.len() >= MAX_NAMES {
                return Some(Tree {
                    names,
                    complete: false,
                });
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let r = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            // A link to a folder is entered: through the copy (a link kept
            // as a link, or followed), its contents are there.
            let is_dir = e.file_type().is_ok_and(|t| {
                t.is_dir()
                    || t.is_symlink() && std::fs::metadata(e.path()).is_ok_and(|m| m.is_dir())
            });
            if is_dir {
                if depth + 1 >= MAX_DEPTH {
                    complete = false;
                } else {
                    queue.push_back((e.path(), r.clone(), depth + 1));
                }
            }
            names.push(r);
        }
    }
    Some(Tree { names, complete })
}

/// The relative names the file at `path` writes, or `None` when they cannot
/// be known (see the module's bounds).
#[must_use]
pub fn names(path: &Path, kind: Kind) -> Option<Vec<String>> {
    if kind == Kind::Tree {
        return tree(path).filter(|t| t.complete).map(|t| t.names);
    }
    // A FIFO, device or socket is refused without blocking (an open FIFO
    // waits for a writer): what it holds cannot be known before it runs.
    let mut f = crate::os::files::open_regular(path).ok()?;
    match kind {
        Kind::Patch => {
            let mut text = String::new();
            f.take(MAX_BYTES).read_to_string(&mut text).ok()?;
            Some(patch_names(&text))
        }
        Kind::Tree => None,
        Kind::Archive => {
            let mut magic = [0u8; 512];
            let n = read_full(&mut f, &mut magic).ok()?;
            if n >= 4 && magic.starts_with(b"PK") {
                zip_names(&mut f)
            } else if n == 512 && &magic[257..262] == b"ustar" {
                tar_names(&mut f)
            } else if n >= 2 && magic[..2] == [0x1f, 0x8b] {
                f.seek(SeekFrom::Start(0)).ok()?;
                let inflated = flate2::read::MultiGzDecoder::new(f).take(MAX_INFLATED);
                tar_stream(inflated)
            } else {
                None
            }
        }
    }
}

/// The files a patch adds, changes, renames, copies or deletes, each as
/// written and with its first component removed (`a/x` and `x`), so either
/// strip level a tool applies is judged.
#[must_use]
pub fn patch_names(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let push = |out: &mut Vec<String>, n: &str| {
        if !n.is_empty() && out.len() < MAX_NAMES && !out.iter().any(|o| o == n) {
            out.push(n.to_string());
        }
    };
    let add = |out: &mut Vec<String>, name: &str| {
        let name = name.trim().trim_matches('"');
        // `--- a/x\t2024-01-01 …`: the date after a tab is not the name.
        let name = name.split('\t').next().unwrap_or(name).trim();
        if name == "/dev/null" {
            return;
        }
        push(out, name);
        if let Some((_, rest)) = name.split_once('/') {
            push(out, rest);
        }
    };
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix("diff --git ") {
            // `a/x b/y`: both names (the split is ambiguous only with spaces
            // in names; the ---/+++ lines name them again).
            if let Some((a, b)) = rest.split_once(" b/") {
                add(&mut out, a);
                add(&mut out, &format!("b/{b}"));
            }
        } else if let Some(name) = ["--- ", "+++ "].iter().find_map(|p| line.strip_prefix(p)) {
            add(&mut out, name);
        } else if let Some(name) = [
            "rename from ",
            "rename to ",
            "copy to ",
            "*** Add File: ",
            "*** Update File: ",
            "*** Delete File: ",
            "*** Move to: ",
            "Index: ",
        ]
        .iter()
        .find_map(|p| line.strip_prefix(p))
        {
            // These name the file with no a/ b/ prefix: keep it whole.
            push(&mut out, name.trim());
        }
    }
    out
}

fn read_full(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// A tar's member names (ustar: `prefix/name`), header by header.
fn tar_names(f: &mut File) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut at = 0u64;
    let mut header = [0u8; 512];
    let mut long_name: Option<String> = None;
    while out.len() < MAX_NAMES {
        f.seek(SeekFrom::Start(at)).ok()?;
        if read_full(f, &mut header).ok()? < 512 || header.iter().all(|b| *b == 0) {
            break;
        }
        let field = |a: usize, b: usize| {
            let raw = &header[a..b];
            let end = raw.iter().position(|c| *c == 0).unwrap_or(raw.len());
            String::from_utf8_lossy(&raw[..end]).into_owned()
        };
        let size = u64::from_str_radix(field(124, 136).trim(), 8).ok()?;
        let kind = header[156];
        let body = size.div_ceil(512) * 512;
        if kind == b'L' {
            // GNU long name: the next member's name is this body.
            let mut name = vec![0u8; usize::try_from(size.min(4096)).ok()?];
            read_full(f, &mut name).ok()?;
            let end = name.iter().position(|c| *c == 0).unwrap_or(name.len());
            long_name = Some(String::from_utf8_lossy(&name[..end]).into_owned());
        } else if kind != b'x' && kind != b'g' {
            let name = long_name.take().unwrap_or_else(|| {
                let (prefix, name) = (field(345, 500), field(0, 100));
                if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                }
            });
            out.push(name);
        }
        at = at.checked_add(512 + body)?;
    }
    Some(out)
}

/// A tar's member names, read as a stream (a compressed one): `None` when the
/// stream ends before the archive does (past the bound, or broken).
fn tar_stream(mut r: impl Read) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut header = [0u8; 512];
    let mut long_name: Option<String> = None;
    loop {
        if out.len() >= MAX_NAMES {
            return None;
        }
        let mut n = 0;
        while n < 512 {
            match r.read(&mut header[n..]).ok()? {
                0 => break,
                k => n += k,
            }
        }
        if n == 0 || header.iter().all(|b| *b == 0) {
            return (n == 0 || n == 512).then_some(out);
        }
        if n < 512 {
            return None;
        }
        let field = |a: usize, b: usize| {
            let raw = &header[a..b];
            let end = raw.iter().position(|c| *c == 0).unwrap_or(raw.len());
            String::from_utf8_lossy(&raw[..end]).into_owned()
        };
        let size = u64::from_str_radix(field(124, 136).trim(), 8).ok()?;
        let body = size.div_ceil(512) * 512;
        let kind = header[156];
        let mut data = (&mut r).take(body);
        let mut consumed = 0u64;
        if kind == b'L' {
            let mut name = Vec::new();
            (&mut data).take(4096).read_to_end(&mut name).ok()?;
            consumed = name.len() as u64;
            let end = name.iter().position(|c| *c == 0).unwrap_or(name.len());
            long_name = Some(String::from_utf8_lossy(&name[..end]).into_owned());
        } else if kind != b'x' && kind != b'g' {
            let name = long_name.take().unwrap_or_else(|| {
                let (prefix, name) = (field(345, 500), field(0, 100));
                if prefix.is_empty() {
                    name
                } else {
                    format!("{prefix}/{name}")
                }
            });
            out.push(name);
        }
        consumed += std::io::copy(&mut data, &mut std::io::sink()).ok()?;
        if consumed < body {
            return None;
        }
    }
}

/// A zip's member names, from its central directory.
fn zip_names(f: &mut File) -> Option<Vec<String>> {
    let len = f.seek(SeekFrom::End(0)).ok()?;
    // The end record is in the last 22 + 65535 bytes.
    let tail_len = len.min(22 + 65_535);
    f.seek(SeekFrom::Start(len - tail_len)).ok()?;
    let mut tail = vec![0u8; usize::try_from(tail_len).ok()?];
    read_full(f, &mut tail).ok()?;
    let eocd = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|i| tail[*i..].starts_with(b"PK\x05\x06"))?;
    let le16 = |b: &[u8], i: usize| u64::from(u16::from_le_bytes([b[i], b[i + 1]]));
    let le32 =
        |b: &[u8], i: usize| u64::from(u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]));
    let count = le16(&tail, eocd + 10);
    let cd_size = le32(&tail, eocd + 12).min(MAX_BYTES);
    let cd_at = le32(&tail, eocd + 16);
    f.seek(SeekFrom::Start(cd_at)).ok()?;
    let mut cd = vec![0u8; usize::try_from(cd_size).ok()?];
    let got = read_full(f, &mut cd).ok()?;
    cd.truncate(got);
    let mut out = Vec::new();
    let mut i = 0usize;
    while out.len() < MAX_NAMES && (out.len() as u64) < count && i + 46 <= cd.len() {
        if !cd[i..].starts_with(b"PK\x01\x02") {
            return None;
        }
        let name_len = usize::try_from(le16(&cd, i + 28)).ok()?;
        let extra = usize::try_from(le16(&cd, i + 30)).ok()?;
        let comment = usize::try_from(le16(&cd, i + 32)).ok()?;
        let name = cd.get(i + 46..i + 46 + name_len)?;
        out.push(String::from_utf8_lossy(name).into_owned());
        i += 46 + name_len + extra + comment;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_lists_its_entries_top_first_through_links_within_bounds() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().join("kit");
        std::fs::create_dir_all(top.join(".claude/hookrules")).unwrap();
        std::fs::write(top.join(".claude/settings.json"), "{}").unwrap();
        std::fs::create_dir_all(dir.path().join("elsewhere/deep")).unwrap();
        std::fs::write(dir.path().join("elsewhere/deep/x"), "").unwrap();
        std::os::unix::fs::symlink("../elsewhere", top.join("via")).unwrap();
        let t = tree(&top).unwrap();
        assert!(t.complete);
        assert_eq!(t.names[0], ".");
        for want in [
            ".claude",
            ".claude/settings.json",
            ".claude/hookrules",
            "via/deep/x",
        ] {
            assert!(t.names.iter().any(|n| n == want), "{want} in {:?}", t.names);
        }
        let at = |n: &str| t.names.iter().position(|x| x == n).unwrap();
        assert!(at(".claude") < at(".claude/settings.json"), "breadth first");
        // A file is its own top; a missing one cannot be read.
        let one = tree(&top.join(".claude/settings.json")).unwrap();
        assert_eq!((one.names, one.complete), (vec![".".to_string()], true));
        assert_eq!(tree(&dir.path().join("none")), None);
        assert_eq!(names(&dir.path().join("none"), Kind::Tree), None);
        // A link loop and a tree past the depth bound: read in part, never hung.
        std::os::unix::fs::symlink(".", top.join("loop")).unwrap();
        let t = tree(&top).unwrap();
        assert!(
            !t.complete && t.names.len() <= MAX_NAMES,
            "{}",
            t.names.len()
        );
        assert!(t.names.iter().any(|n| n == ".claude/settings.json"));
        assert_eq!(names(&top, Kind::Tree), None, "only a whole tree is a list");
    }

    #[test]
    fn a_patch_names_every_file_it_writes_at_both_strip_levels() {
        let text = "diff --git a/src/x.rs b/.claude/settings.json\nsimilarity index 90%\nrename from src/x.rs\nrename to .claude/settings.json\n--- a/README.md\t2024-01-01\n+++ b/README.md\n--- /dev/null\n+++ b/.codex/hooks.json\n*** Add File: .gemini/settings.json\n";
        let names = patch_names(text);
        for want in [
            "a/src/x.rs",
            "src/x.rs",
            ".claude/settings.json",
            "README.md",
            ".codex/hooks.json",
            ".gemini/settings.json",
        ] {
            assert!(names.iter().any(|n| n == want), "{want} in {names:?}");
        }
        assert!(!names
            .iter()
            .any(|n| n.contains("dev/null") || n.contains("2024")));
    }

    #[test]
    fn archives_are_listed_from_their_headers_and_others_are_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(src.join(".claude/hookrules")).unwrap();
        std::fs::write(src.join(".claude/hookrules/off.toml"), "x").unwrap();
        let tar = dir.path().join("a.tar");
        let zip = dir.path().join("a.zip");
        let tgz = dir.path().join("a.tgz");
        let run = |cmd: &mut std::process::Command| {
            assert!(cmd.current_dir(&src).status().unwrap().success());
        };
        run(std::process::Command::new("tar")
            .arg("-cf")
            .arg(&tar)
            .arg("."));
        run(std::process::Command::new("tar")
            .arg("-czf")
            .arg(&tgz)
            .arg("."));
        let has_zip = std::process::Command::new("python3")
            .args(["-c", "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w'); z.write('.claude/hookrules/off.toml'); z.close()"])
            .arg(&zip)
            .current_dir(&src)
            .status()
            .is_ok_and(|s| s.success());
        let t = names(&tar, Kind::Archive).unwrap();
        assert!(
            t.iter().any(|n| n == "./.claude/hookrules/off.toml"),
            "{t:?}"
        );
        if has_zip {
            let z = names(&zip, Kind::Archive).unwrap();
            assert_eq!(z, vec![".claude/hookrules/off.toml".to_string()]);
        }
        let g = names(&tgz, Kind::Archive).unwrap();
        assert!(
            g.iter().any(|n| n == "./.claude/hookrules/off.toml"),
            "{g:?}"
        );
        let txz = dir.path().join("a.txz");
        run(std::process::Command::new("tar")
            .arg("-cJf")
            .arg(&txz)
            .arg("."));
        assert_eq!(names(&txz, Kind::Archive), None, "xz is not read");
        assert_eq!(names(dir.path(), Kind::Archive), None, "a folder");
        assert_eq!(names(&dir.path().join("none"), Kind::Patch), None);
    }
}
