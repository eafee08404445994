//! Windows paths in the one spelling the rest of the analysis reads: drives,
//! shares, devices and the folders Windows's variables name are
//! `shell::place`'s (the one path model of the file tools, both shells and
//! the event's folders); this module adds what only PowerShell spells: the
//! registry drives (`HKCU:\…`, `HKLM:\…`, `Registry::HKEY_…`, all
//! `/registry/hkcu/…`, lowercase, since the registry ignores case), provider
//! prefixes (`FileSystem::C:\x`), `~` in any path, and `\` as a separator
//! (PowerShell takes both on every platform).

use crate::shell::place::{self, canonical};
use crate::shell::value::{Piece, Sym};

/// The canonical spelling of a Windows path text, when it is one; `None` for
/// text that is not a Windows-only spelling (relative paths keep their text,
/// with `\` as `/`, through [`separators`]). Drives, shares and devices are
/// `shell::place`'s; the registry and provider prefixes PowerShell's.
pub(super) fn absolute(t: &str) -> Option<String> {
    if let Some(rest) = registry(t) {
        return Some(rest);
    }
    // `FileSystem::C:\x`, `Microsoft.PowerShell.Core\FileSystem::C:\x`.
    let lower = t.to_ascii_lowercase();
    if let Some(at) = lower.find("filesystem::") {
        let rest = &t[at + "filesystem::".len()..];
        return absolute(rest).or_else(|| Some(rest.replace('\\', "/")));
    }
    place::windows(t, true)
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
/// (`$env:NAME` in PowerShell, `%NAME%` in cmd): see [`place::windows_var`].
pub(super) fn env_var(name: &str) -> Option<Sym> {
    place::windows_var(name)
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
