//! Windows paths in the one spelling the rest of the analysis reads.
//!
//! A drive path becomes its MSYS/Git Bash spelling (`C:\Users\dev` is
//! `/c/Users/dev`, the form Git Bash itself gives it), so the location classes
//! and the pack's lists judge it where it lies: `/c` is a drive root,
//! `/c/Windows` and `/c/Program Files` system folders, `/c/Users/NAME` a home
//! folder (see `shell::reach`). Separators are `/` (PowerShell takes both on
//! every platform). Windows compares names without regard to case, so the
//! folders that decide a class (`Windows`, `Program Files`, `Users`,
//! `AppData`, …) are spelled the one way the lists spell them, and the drive
//! letter is lowercase.
//!
//! Other spellings: `\\?\C:\x` and `\\.\C:\x` are `C:\x`; the device namespace
//! `\\.\NAME` is `/dev/NAME` (`\\.\PhysicalDrive0`, `\\.\C:` a volume); a UNC
//! path `\\server\share\x` is `/unc/server/share/x` (a place on another
//! machine: outside the project, in no other class); registry drives
//! (`HKCU:\…`, `HKLM:\…`, `Registry::HKEY_…`) are `/registry/hkcu/…`, all
//! lowercase, since the registry ignores case.

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
];

/// `C:` at the start of a text: the lowercase drive letter and the rest.
fn drive(t: &str) -> Option<(char, &str)> {
    let mut cs = t.chars();
    let d = cs.next().filter(char::is_ascii_alphabetic)?;
    if cs.next() != Some(':') {
        return None;
    }
    let rest = &t[2..];
    (rest.is_empty() || rest.starts_with(['\\', '/'])).then(|| (d.to_ascii_lowercase(), rest))
}

/// The canonical spelling of a Windows path text, when it is one; `None` for
/// text that is not a Windows-only spelling (relative paths keep their text,
/// with `\` as `/`, through [`separators`]).
pub(super) fn absolute(t: &str) -> Option<String> {
    let t2 = t.replace('\\', "/");
    let lower = t2.to_ascii_lowercase();
    // `\\?\` and `\\.\` prefixes.
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
    if let Some(rest) = t2.strip_prefix("//") {
        if !rest.is_empty() && !rest.starts_with('/') {
            return Some(canonical(&format!("/unc/{rest}")));
        }
    }
    if let Some(rest) = registry(&t2) {
        return Some(rest);
    }
    // `FileSystem::C:\x`, `Microsoft.PowerShell.Core\FileSystem::C:\x`.
    if let Some(at) = lower.find("filesystem::") {
        return absolute(&t2[at + "filesystem::".len()..])
            .or_else(|| Some(t2[at + 12..].to_string()));
    }
    let (d, rest) = drive(&t2)?;
    Some(canonical(&format!("/{d}{rest}")))
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

/// Registry paths (`HKCU:\Software\…`, `Registry::HKEY_CURRENT_USER\…`,
/// `HKEY_LOCAL_MACHINE\…` as reg.exe writes them).
pub(super) fn registry(t: &str) -> Option<String> {
    let t = t.replace('\\', "/");
    let lower = t.to_ascii_lowercase();
    let lower = lower
        .strip_prefix("microsoft.powershell.core/")
        .unwrap_or(&lower);
    let lower = lower.strip_prefix("registry::").unwrap_or(lower);
    let hives = [
        ("hkcu:", "hkcu"),
        ("hklm:", "hklm"),
        ("hkey_current_user", "hkcu"),
        ("hkey_local_machine", "hklm"),
        ("hkey_users", "hku"),
        ("hkey_classes_root", "hkcr"),
        ("hkcr:", "hkcr"),
        ("hku:", "hku"),
    ];
    for (pre, hive) in hives {
        if let Some(rest) = lower.strip_prefix(pre) {
            if rest.is_empty() || rest.starts_with('/') {
                return Some(format!("/registry/{hive}{}", rest.trim_end_matches('/')));
            }
        }
    }
    // reg.exe's short hive names: `HKCU\Software\…`.
    for (pre, hive) in [
        ("hkcu/", "hkcu"),
        ("hklm/", "hklm"),
        ("hku/", "hku"),
        ("hkcr/", "hkcr"),
    ] {
        if let Some(rest) = lower.strip_prefix(pre) {
            return Some(format!("/registry/{hive}/{}", rest.trim_end_matches('/')));
        }
    }
    None
}

/// Well-known folder names spelled the one way.
fn canonical(path: &str) -> String {
    path.split('/')
        .map(|c| {
            KNOWN
                .iter()
                .find(|k| k.eq_ignore_ascii_case(c))
                .map_or_else(|| c.to_string(), |k| (*k).to_string())
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `\` as `/`, and well-known names in their spelling, for a relative path.
pub(super) fn separators(t: &str) -> String {
    canonical(&t.replace('\\', "/"))
}

/// Make a path value's text pieces canonical: a Windows absolute spelling at
/// the start, separators everywhere (after `~`, `$HOME`, …, a `\` is a `/`).
pub(super) fn path_sym(s: &Sym) -> Sym {
    let mut out = Sym::default();
    for (i, p) in s.0.iter().enumerate() {
        match p {
            Piece::Text(t) if i == 0 => {
                // `~\x`, `~/x`: home (the providers resolve `~` in any path).
                if let Some(rest) = t
                    .strip_prefix('~')
                    .filter(|r| r.is_empty() || r.starts_with(['\\', '/']))
                {
                    out.push(Piece::Home);
                    out.push(Piece::Text(separators(rest)));
                    continue;
                }
                match absolute(t) {
                    Some(a) => out.push(Piece::Text(a)),
                    None => out.push(Piece::Text(separators(t))),
                }
            }
            Piece::Text(t) => out.push(Piece::Text(separators(t))),
            Piece::Glob(g) => out.push(Piece::Glob(g.replace('\\', "/"))),
            p => out.push(p.clone()),
        }
    }
    out
}

/// What an environment variable is, when the analysis knows it
/// (`$env:NAME` in PowerShell, `%NAME%` in cmd): the home folder and the
/// folders in it, the temp folder, the system's folders.
pub(super) fn env_var(name: &str) -> Option<Sym> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_spellings_become_one() {
        let cases = [
            (r"C:\", "/c/"),
            (r"C:\Windows\System32", "/c/Windows/System32"),
            (r"c:/WINDOWS", "/c/Windows"),
            (r"C:\Program Files\x", "/c/Program Files/x"),
            (r"D:\data", "/d/data"),
            (r"\\?\C:\Users\dev", "/c/Users/dev"),
            (r"\\.\PhysicalDrive0", "/dev/PhysicalDrive0"),
            (r"\\.\physicaldrive1", "/dev/PhysicalDrive1"),
            (r"\\.\C:", "/dev/C:"),
            (r"\\server\share\x", "/unc/server/share/x"),
            (
                r"HKCU:\Software\Microsoft\Windows\CurrentVersion\Run",
                "/registry/hkcu/software/microsoft/windows/currentversion/run",
            ),
            (
                r"Registry::HKEY_LOCAL_MACHINE\SOFTWARE",
                "/registry/hklm/software",
            ),
            (r"Microsoft.PowerShell.Core\FileSystem::C:\x", "/c/x"),
        ];
        for (win, posix) in cases {
            assert_eq!(absolute(win).as_deref(), Some(posix), "{win}");
        }
        assert_eq!(absolute("build"), None);
        assert_eq!(
            absolute("C:foo"),
            None,
            "drive-relative paths are not absolute"
        );
        assert_eq!(separators(r"src\main.rs"), "src/main.rs");
    }
}
