//! Where a path is, whichever way it is spelled: one spelling of a place for
//! the file tools, both shells and the event's own folders, and one answer to
//! "is this path inside that folder".
//!
//! A Windows path has the spelling Git Bash gives it (`C:\Users\dev` and
//! `C:/Users/dev` are `/c/Users/dev`), so the location classes
//! (`shell::reach`) and the pack's lists judge it where it lies: `/c` is a
//! drive root, `/c/Windows` a system folder, `/c/Users/NAME` a home folder.
//! The spellings read as Windows paths:
//! * a drive letter with `\` or `/` (`C:\x`, `c:/x`), and `\\?\C:\x`,
//!   `\\.\C:\x`, `\??\C:\x` (the same file);
//! * `\\.\NAME`, the device namespace: `/dev/NAME` (`\\.\PhysicalDrive0`,
//!   `\\.\C:` a whole volume);
//! * a share, `\\server\share\x` (and `//server/share/x` on a Windows
//!   machine): `/unc/server/share/x`, a place on another machine;
//! * Cygwin's `/cygdrive/c/x`: `/c/x`;
//! * a leading `%VAR%`, `$env:VAR`, `${env:VAR}` or, on Windows, `$VAR`
//!   naming a folder Windows defines (`%USERPROFILE%`, `$env:APPDATA`,
//!   `%SystemRoot%`): that folder ([`windows_var`]).
//!
//! Windows compares names without regard to case, so a place on a Windows
//! drive or share ([`ignores_case`]) is compared ignoring ASCII case,
//! everywhere: [`within`] and [`below`] answer "is this path inside that
//! folder" for every caller, and glob lists match such paths ignoring case.
//! The folder names that decide a class or a list entry are also spelled the
//! one way the lists spell them (`WINDOWS` is `Windows`), so the spelling
//! shown in reasons is the usual one.

use std::borrow::Cow;

use crate::shell::path::{is_normal, is_within, normalize};
use crate::shell::value::{Piece, Sym};

/// Folder names whose spelling decides a location class or a list entry.
const KNOWN: &[&str] = &[
    "Windows",
    "System32",
    "SysWOW64",
    "Program Files",
    "Program Files (x86)",
    "ProgramData",
    "Users",
    "AppData",
    "Roaming",
    "Local",
    "LocalLow",
    "Microsoft",
    "Start Menu",
    "Programs",
    "Startup",
    "StartUp",
    "Documents",
    "PowerShell",
    "WindowsPowerShell",
    "Desktop",
    "Downloads",
    "Temp",
    "PhysicalDrive",
    "Public",
    "Default",
    "drivers",
    "etc",
    "Tasks",
];

/// `C:` at the start of a text: the lowercase drive letter and the rest.
fn drive(t: &str) -> Option<(char, &str)> {
    let b = t.as_bytes();
    if b.len() < 2 || !b[0].is_ascii_alphabetic() || b[1] != b':' {
        return None;
    }
    let rest = &t[2..];
    (rest.is_empty() || rest.starts_with(['\\', '/']))
        .then(|| (char::from(b[0].to_ascii_lowercase()), rest))
}

/// Could `t` be a Windows spelling at all? (Cheap: the bash hot path asks.)
fn maybe_windows(t: &str, windows: bool) -> bool {
    let b = t.as_bytes();
    (b.len() >= 2 && b[1] == b':')
        || t.starts_with("\\\\")
        || t.starts_with("/??/")
        || t.starts_with("\\??\\")
        || t.starts_with("/cygdrive/")
        || (windows && t.starts_with("//"))
}

/// The spelling of a Windows absolute path (see the module documentation),
/// or `None` for a text that is not one. `windows`: the machine is Windows
/// (`//server/share` is then a share; elsewhere `//etc` is `/etc`).
#[must_use]
pub fn windows(t: &str, windows: bool) -> Option<String> {
    if !maybe_windows(t, windows) {
        return None;
    }
    let t2 = t.replace('\\', "/");
    let lower = t2.to_ascii_lowercase();
    for pre in ["//?/unc/", "//./unc/"] {
        if lower.starts_with(pre) {
            return Some(canonical(&format!("/unc/{}", &t2[pre.len()..])));
        }
    }
    for pre in ["//?/", "//./", "/??/"] {
        if let Some(rest) = lower.starts_with(pre).then(|| &t2[pre.len()..]) {
            if let Some((d, tail)) = drive(rest) {
                if pre == "//./" && tail.is_empty() {
                    // `\\.\C:`: the volume itself, a device.
                    return Some(format!("/dev/{}:", d.to_ascii_uppercase()));
                }
                return Some(canonical(&format!("/{d}{tail}")));
            }
            return Some(device(rest));
        }
    }
    if let Some(rest) = lower.strip_prefix("/cygdrive/") {
        let b = rest.as_bytes();
        if !b.is_empty() && b[0].is_ascii_alphabetic() && (b.len() == 1 || b[1] == b'/') {
            let tail = &t2["/cygdrive/".len() + 1..];
            return Some(canonical(&format!("/{}{tail}", &rest[..1])));
        }
        return None;
    }
    if let Some(rest) = t2.strip_prefix("//") {
        let backslashed = t.starts_with("\\\\");
        if (backslashed || windows) && !rest.is_empty() && !rest.starts_with('/') {
            return Some(canonical(&format!("/unc/{rest}")));
        }
        return None;
    }
    let (d, rest) = drive(&t2)?;
    Some(canonical(&format!("/{d}{rest}")))
}

/// The one spelling of a Windows path with no trailing `/` (the event's
/// `cwd`, `CLAUDE_PROJECT_DIR`, `USERPROFILE`), or `None` for a path that is
/// not one.
#[must_use]
pub fn posix(p: &str) -> Option<String> {
    windows(p, true).map(|s| {
        if s.len() > 1 {
            s.trim_end_matches('/').to_string()
        } else {
            s
        }
    })
}

/// Is this text a Windows absolute path (`C:\x`, `C:/x`, `\\server\share`)?
#[must_use]
pub fn is_windows_path(p: &str) -> bool {
    drive(p).is_some() || p.starts_with("\\\\")
}

/// A device name after `\\.\`: `PhysicalDriveN` keeps its name, with the
/// canonical spelling.
fn device(name: &str) -> String {
    let lower = name.to_ascii_lowercase();
    if let Some(n) = lower.strip_prefix("physicaldrive") {
        return format!("/dev/PhysicalDrive{n}");
    }
    if let Some(n) = lower.strip_prefix("harddisk") {
        return format!("/dev/Harddisk{n}");
    }
    format!("/dev/{name}")
}

/// The short (8.3) names Windows gives the system's folders at a drive's
/// root, as every installation has them (`C:\PROGRA~1` is `C:\Program Files`).
const SHORT: &[(&str, &str)] = &[
    ("PROGRA~1", "Program Files"),
    ("PROGRA~2", "Program Files (x86)"),
    ("PROGRA~3", "ProgramData"),
];

/// Well-known folder names spelled the one way.
#[must_use]
pub fn canonical(path: &str) -> String {
    path.split('/')
        .enumerate()
        .map(|(i, c)| {
            if i == 2 && path.starts_with('/') {
                if let Some((_, long)) = SHORT.iter().find(|(s, _)| s.eq_ignore_ascii_case(c)) {
                    return *long;
                }
            }
            KNOWN
                .iter()
                .find(|k| k.eq_ignore_ascii_case(c))
                .map_or(c, |k| *k)
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Is this (absolute, normalised) path on a Windows drive or share, whose
/// names are compared ignoring case: `/c/…`, `/unc/…`, and a Windows drive
/// seen from WSL (`/mnt/c/…`)?
#[must_use]
pub fn ignores_case(path: &str) -> bool {
    let mut comps = path.split('/').filter(|c| !c.is_empty());
    let letter = |c: &str| c.len() == 1 && c.as_bytes()[0].is_ascii_alphabetic();
    path.starts_with('/')
        && match (comps.next(), comps.next()) {
            (Some(d), _) if letter(d) => true,
            (Some("unc"), Some(_)) => true,
            (Some("mnt"), Some(d)) => letter(d),
            _ => false,
        }
}

/// The user profile folder a Windows path lies in (`/c/Users/dev` for
/// `/c/Users/dev/proj`), when it lies in one; `Public`, `Default` and `All
/// Users` are no one's.
#[must_use]
pub fn profile_of(path: &str) -> Option<String> {
    let mut comps = path.split('/').filter(|c| !c.is_empty());
    let (d, users, name) = (comps.next()?, comps.next()?, comps.next()?);
    let shared = ["public", "default", "default user", "all users"];
    (d.len() == 1
        && d.as_bytes()[0].is_ascii_alphabetic()
        && users.eq_ignore_ascii_case("users")
        && !shared.contains(&name.to_ascii_lowercase().as_str()))
    .then(|| format!("/{d}/Users/{name}"))
}

/// What follows folder `dir` in `path` (`""`: the folder itself; starting
/// with `/` otherwise), or `None` when `path` is not in it. Whole components
/// (`/etc2` is not in `/etc`); a place on a Windows drive ignores case
/// ([`ignores_case`]). The one answer to "is this path inside that folder".
#[must_use]
pub fn below<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    let dir = dir.trim_end_matches('/');
    if dir.is_empty() {
        return path.starts_with('/').then_some(path);
    }
    let head = path.get(..dir.len())?;
    let same = if ignores_case(dir) {
        head.eq_ignore_ascii_case(dir)
    } else {
        head == dir
    };
    let rest = &path[dir.len()..];
    (same && (rest.is_empty() || rest.starts_with('/'))).then_some(rest)
}

/// Is `path` the folder `dir` or inside it? (See [`below`].)
#[must_use]
pub fn within(path: &str, dir: &str) -> bool {
    if dir.is_empty() {
        return false;
    }
    if ignores_case(dir) {
        return below(path, dir).is_some();
    }
    is_within(path, dir)
}

/// The temp folders every process may write into, whatever the machine:
/// the fixed roots (with Linux's shared memory). macOS's per-user temp
/// folder is [`macos_temp_depth`]; `TMPDIR` and Windows's `%TEMP%` depend on
/// the environment (`shell::reach` adds them).
pub const TEMP_ROOTS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/tmp",
    "/dev/shm",
];

/// macOS's per-user temp folder, `/var/folders/XX/YYYY/T` (or under
/// `/private`), ignoring case as its file system does: how many of `comps`
/// (a path's components) spell it, when they start with it.
#[must_use]
pub fn macos_temp_depth(comps: &[&str]) -> Option<usize> {
    let is = |i: usize, name: &str| comps.get(i).is_some_and(|c| c.eq_ignore_ascii_case(name));
    let start = usize::from(is(0, "private"));
    let ok = is(start, "var")
        && is(start + 1, "folders")
        && comps.get(start + 2).is_some()
        && comps.get(start + 3).is_some()
        && is(start + 4, "t");
    ok.then_some(start + 5)
}

/// What follows the shared temp folder (a [`TEMP_ROOTS`] entry or macOS's
/// per-user one) that the absolute path `path` is or lies in, as [`below`]
/// gives it for the path's normal spelling (`""`: the temp folder itself;
/// `/var//folders/…/T/./x` is `/x` below it). The one answer to "is this in a
/// folder any process may write into" for places fixed on every machine.
#[must_use]
pub fn shared_temp(path: &str) -> Option<Cow<'_, str>> {
    // The file system reads `//`, `/./` and `/../` as [`normalize`] does:
    // judge the place, not its spelling.
    if !is_normal(path) && path.starts_with('/') {
        let normal = normalize(path, "/", None).ok()?;
        return shared_temp(&normal).map(|rest| Cow::Owned(rest.into_owned()));
    }
    if let Some(rest) = TEMP_ROOTS.iter().find_map(|t| below(path, t)) {
        return Some(Cow::Borrowed(rest));
    }
    let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let depth = macos_temp_depth(&comps)?;
    let root = format!("/{}", comps.get(..depth)?.join("/"));
    let head = path.get(..root.len())?;
    // A normal path has no empty component: the spelling matches.
    (head.eq_ignore_ascii_case(&root)).then(|| Cow::Borrowed(&path[root.len()..]))
}

/// Are the two paths the same place? (See [`below`].)
#[must_use]
pub fn same(a: &str, b: &str) -> bool {
    below(a, b) == Some("")
}

/// The file Windows opens for a path on a Windows drive or share
/// ([`ignores_case`]): a name's stream belongs to the file before the colon
/// (`.env::$DATA` is `.env`'s content, `hook:x` a stream of `hook`: NTFS
/// reads the stream syntax whatever the caller), and a name's trailing dots
/// and spaces are dropped (Win32 path normalisation: `.env.` and `.env ` open
/// `.env`). Other paths are returned as they are.
#[must_use]
pub fn opened(path: &str) -> Cow<'_, str> {
    let odd = |c: &str| c.contains(':') || (c != "." && c != ".." && c.ends_with(['.', ' ']));
    if !ignores_case(path) || !path.split('/').skip(2).any(odd) {
        return Cow::Borrowed(path);
    }
    let names: Vec<&str> = path
        .split('/')
        .enumerate()
        .map(|(i, c)| {
            if i < 2 || c == "." || c == ".." {
                return c;
            }
            let c = c.split(':').next().unwrap_or(c);
            let t = c.trim_end_matches(['.', ' ']);
            if t.is_empty() {
                c
            } else {
                t
            }
        })
        .collect();
    Cow::Owned(names.join("/"))
}

/// The folder an environment variable names on Windows, when Windows
/// defines it (`$env:NAME` in PowerShell, `%NAME%` in cmd and a file tool's
/// path, `$NAME` in Git Bash): the home folder and the folders in it, the
/// temp folder, the system's folders.
#[must_use]
pub fn windows_var(name: &str) -> Option<Sym> {
    let n = name.to_ascii_lowercase();
    let home = |tail: &str| {
        let mut s = Sym::piece(Piece::Home);
        s.push(Piece::Text(tail.to_string()));
        s
    };
    Some(match n.as_str() {
        "home" | "userprofile" => Sym::piece(Piece::Home),
        "appdata" => home("/AppData/Roaming"),
        "localappdata" => home("/AppData/Local"),
        "onedrive" => home("/OneDrive"),
        "temp" | "tmp" | "tmpdir" => Sym::piece(Piece::TempRoot),
        "systemroot" | "windir" => Sym::text("/c/Windows"),
        "systemdrive" | "homedrive" => Sym::text("/c"),
        "programfiles" | "programw6432" => Sym::text("/c/Program Files"),
        "programfiles(x86)" => Sym::text("/c/Program Files (x86)"),
        "programdata" | "allusersprofile" => Sym::text("/c/ProgramData"),
        "public" => Sym::text("/c/Users/Public"),
        "username" | "user" => Sym::piece(Piece::Env("USER".into())),
        "claude_project_dir" => Sym::piece(Piece::Project),
        _ => return None,
    })
}

/// A leading variable of a path a tool names: `%NAME%`, `$env:NAME`,
/// `${env:NAME}` (any machine: only Windows spells them), and `$NAME` /
/// `${NAME}` on a Windows machine (Git Bash sets Windows's variables): the
/// name and the rest of the text.
fn leading_var(t: &str, windows: bool) -> Option<(&str, &str)> {
    let (name, rest) = leading_var_once(t, windows)?;
    // `%HOMEDRIVE%%HOMEPATH%` (and `$env:HOMEDRIVE$env:HOMEPATH`) is the
    // home folder, as Windows sets the two.
    if name.eq_ignore_ascii_case("homedrive") {
        if let Some((next, after)) = leading_var_once(rest, windows) {
            if next.eq_ignore_ascii_case("homepath") {
                return Some(("USERPROFILE", after));
            }
        }
    }
    Some((name, rest))
}

/// One leading variable (see [`leading_var`]).
fn leading_var_once(t: &str, windows: bool) -> Option<(&str, &str)> {
    let name_end = |s: &str| {
        s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '(' || c == ')'))
            .unwrap_or(s.len())
    };
    if let Some(rest) = t.strip_prefix('%') {
        let end = rest.find('%')?;
        return Some((&rest[..end], &rest[end + 1..]));
    }
    if let Some(rest) = t.strip_prefix("${") {
        let end = rest.find('}')?;
        let name = &rest[..end];
        let (name, ok) = match name.get(..4) {
            Some(p) if p.eq_ignore_ascii_case("env:") => (&name[4..], true),
            _ => (name, windows),
        };
        return ok.then(|| (name, &rest[end + 1..]));
    }
    let rest = t.strip_prefix('$')?;
    if rest
        .get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("env:"))
    {
        let r = &rest[4..];
        let end = name_end(r);
        return Some((&r[..end], &r[end..]));
    }
    if !windows {
        return None;
    }
    let end = name_end(rest);
    Some((&rest[..end], &rest[end..]))
}

/// A word of a bash command that starts with a Windows spelling, as the
/// place it names: a drive, a share or `/cygdrive/` (`C:\Users\dev`,
/// `C:/Windows`), or a leading `%NAME%`, `$env:NAME`, `${env:NAME}` naming a
/// folder Windows defines (`%USERPROFILE%\Documents`: bash leaves it as
/// text, cmd and PowerShell read it as the home folder, and an agent that
/// writes it means the home folder). `None`: the word is not one (cheap for
/// the common case).
#[must_use]
pub fn word(t: &str, windows: bool) -> Option<Sym> {
    if let Some(w) = self::windows(t, windows) {
        return Some(Sym::text(&w));
    }
    if !t.starts_with(['%', '$']) {
        return None;
    }
    let (name, rest) = leading_var(t, false)?;
    let mut s = windows_var(name)?;
    let rest = rest.replace('\\', "/");
    if !rest.is_empty() {
        s.push(Piece::Text(canonical(&rest)));
    }
    Some(s)
}

/// A path as a file tool names it, in the one spelling: a Windows absolute
/// spelling respelled, a leading Windows variable that names a folder as that
/// folder (`Some`: the symbolic path), and on a Windows machine `\` as the
/// separator. `None`: the text stands as it is (after the separators).
#[must_use]
pub fn tool_path(t: &str, windows: bool) -> (Cow<'_, str>, Option<Sym>) {
    if let Some(w) = self::windows(t, windows) {
        return (Cow::Owned(w), None);
    }
    if let Some((name, rest)) = leading_var(t, windows) {
        if let Some(mut s) = windows_var(name) {
            let rest = rest.replace('\\', "/");
            if !rest.is_empty() {
                s.push(Piece::Text(canonical(&rest)));
            }
            return (Cow::Borrowed(t), Some(s));
        }
    }
    if windows && t.contains('\\') {
        return (Cow::Owned(canonical(&t.replace('\\', "/"))), None);
    }
    (Cow::Borrowed(t), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_temp_folders_are_one_list() {
        let cases = [
            ("/tmp", Some("")),
            ("/tmp/x/run.sh", Some("/x/run.sh")),
            ("/dev/shm/a", Some("/a")),
            ("/private/var/tmp/a", Some("/a")),
            ("/var/folders/ab/cd1234/T/x.sh", Some("/x.sh")),
            ("/private/var/folders/ab/cd/T", Some("")),
            ("/VAR/Folders/ab/cd/t/x", Some("/x")),
            // macOS's per-user cache folder is not its temp folder.
            ("/var/folders/ab/cd/C/x", None),
            ("/tmpx/a", None),
            ("/home/u/tmp/a", None),
            ("tmp/a", None),
            // The place, whatever its spelling.
            ("/var//folders/ab/cd/T/x.sh", Some("/x.sh")),
            ("/private/var/folders//ab/cd/T/", Some("")),
            ("//tmp//x/./run.sh", Some("/x/run.sh")),
            ("/tmp/../etc/x", None),
            ("/home/u/../../tmp/x", Some("/x")),
        ];
        for (path, want) in cases {
            assert_eq!(shared_temp(path).as_deref(), want, "{path}");
        }
    }

    #[test]
    fn windows_spellings_become_one() {
        let cases = [
            (r"C:\", "/c/"),
            (r"C:\Windows\System32", "/c/Windows/System32"),
            (r"c:/WINDOWS", "/c/Windows"),
            (r"C:\Program Files\x", "/c/Program Files/x"),
            (r"D:\data", "/d/data"),
            (r"C:\PROGRA~1\Git", "/c/Program Files/Git"),
            (r"c:\progra~2", "/c/Program Files (x86)"),
            (r"\\?\C:\Users\dev", "/c/Users/dev"),
            (r"\??\C:\Users\dev", "/c/Users/dev"),
            (r"\\.\PhysicalDrive0", "/dev/PhysicalDrive0"),
            (r"\\.\physicaldrive1", "/dev/PhysicalDrive1"),
            (r"\\.\C:", "/dev/C:"),
            (r"\\server\share\x", "/unc/server/share/x"),
            (r"\\?\UNC\server\share", "/unc/server/share"),
            ("/cygdrive/c/Users/dev", "/c/Users/dev"),
            ("/cygdrive/D", "/d"),
        ];
        for (win, posix) in cases {
            assert_eq!(windows(win, false).as_deref(), Some(posix), "{win}");
        }
        assert_eq!(windows("build", true), None);
        assert_eq!(
            windows("C:foo", true),
            None,
            "drive-relative paths are not absolute"
        );
        assert_eq!(windows("//etc", false), None, "`//etc` is `/etc` on Linux");
        assert_eq!(
            windows("//srv/share", true).as_deref(),
            Some("/unc/srv/share")
        );
        assert_eq!(windows("/cygdrive/cc", true), None);
        assert_eq!(
            posix(r"C:\Users\dev\proj\").as_deref(),
            Some("/c/Users/dev/proj")
        );
    }

    #[test]
    fn bash_words_in_windows_spelling_name_their_place() {
        let home = |tail: &str| {
            let mut s = Sym::piece(Piece::Home);
            if !tail.is_empty() {
                s.push(Piece::Text(tail.into()));
            }
            Some(s)
        };
        assert_eq!(word("%USERPROFILE%", false), home(""));
        assert_eq!(word(r"%userprofile%\Documents", false), home("/Documents"));
        assert_eq!(word("%HOMEDRIVE%%HOMEPATH%", false), home(""));
        assert_eq!(word("%SystemRoot%", false), Some(Sym::text("/c/Windows")));
        assert_eq!(word("C:/Windows", false), Some(Sym::text("/c/Windows")));
        assert_eq!(word("100%", false), None, "no variable");
        assert_eq!(
            word("%NOT_WINDOWS%", false),
            None,
            "not a folder Windows defines"
        );
        assert_eq!(word("build", false), None);
    }

    #[test]
    fn a_windows_working_folder_tells_whose_profile() {
        assert_eq!(
            profile_of("/c/Users/dev/proj").as_deref(),
            Some("/c/Users/dev")
        );
        assert_eq!(profile_of("/d/users/Bob").as_deref(), Some("/d/Users/Bob"));
        assert_eq!(profile_of("/c/Users/Public/x"), None);
        assert_eq!(profile_of("/c/src/proj"), None);
        assert_eq!(profile_of("/home/dev/proj"), None);
    }

    #[test]
    fn inside_a_folder_has_one_answer() {
        // A Windows place ignores case; a Linux one does not.
        assert!(within("/c/users/DEV/proj/x", "/c/Users/dev/proj"));
        assert!(within("/c/Users/dev/proj", "/c/Users/dev/proj/"));
        assert!(!within("/c/Users/dev/proj2", "/c/Users/dev/proj"));
        assert!(!within("/home/Dev/proj/x", "/home/dev/proj"));
        assert!(within("/home/dev/proj/x", "/home/dev/proj"));
        assert!(within("/unc/SRV/share/x", "/unc/srv/share"));
        assert!(within("/mnt/c/USERS/dev", "/mnt/c/Users"));
        assert_eq!(
            below("/c/USERS/dev/.ssh/id_rsa", "/c/Users/dev"),
            Some("/.ssh/id_rsa")
        );
        assert_eq!(below("/c/Users/dev", "/c/users/dev"), Some(""));
        assert_eq!(below("/c/Users/d", "/c/Users/dev"), None);
        assert!(same("/C/users/dev", "/c/Users/dev"));
        assert!(!within("/x", ""));
    }

    #[test]
    fn windows_opens_the_file_before_a_stream_and_without_trailing_dots() {
        assert_eq!(opened("/c/p/.env::$DATA"), "/c/p/.env");
        assert_eq!(
            opened("/c/p/.git/hooks/pre-commit:x"),
            "/c/p/.git/hooks/pre-commit"
        );
        assert_eq!(opened("/c/p/.env. . "), "/c/p/.env");
        assert_eq!(opened("/c/p/../x/./y"), "/c/p/../x/./y");
        assert_eq!(opened("/unc/srv/share/id_rsa."), "/unc/srv/share/id_rsa");
        assert_eq!(
            opened("/home/dev/.env."),
            "/home/dev/.env.",
            "a Linux name keeps its dot"
        );
        assert_eq!(opened("/c/p/..."), "/c/p/...");
    }

    #[test]
    fn tool_paths_in_the_one_spelling() {
        let text = |t: &str, w: bool| tool_path(t, w).0.into_owned();
        assert_eq!(
            text(r"C:\Users\dev\.ssh\id_rsa", false),
            "/c/Users/dev/.ssh/id_rsa"
        );
        assert_eq!(text(r"src\main.rs", true), "src/main.rs");
        assert_eq!(
            text(r"src\main.rs", false),
            r"src\main.rs",
            "a name on Linux"
        );
        for home in [
            r"%USERPROFILE%\.ssh\id_rsa",
            r"$env:USERPROFILE\.ssh\id_rsa",
            r"${env:userprofile}/.ssh/id_rsa",
        ] {
            let (_, s) = tool_path(home, false);
            assert_eq!(
                s.map(|s| s.to_string()),
                Some(Sym(vec![Piece::Home, Piece::Text("/.ssh/id_rsa".into())]).to_string()),
                "{home}"
            );
        }
        assert!(
            tool_path("$USERPROFILE/x", false).1.is_none(),
            "bash's $VAR only on Windows"
        );
        assert!(tool_path("$USERPROFILE/x", true).1.is_some());
        assert!(tool_path("%NOSUCH%/x", true).1.is_none());
    }
}
