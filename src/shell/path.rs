//! Lexical path normalisation (temporary; replaced by the full module).

/// Normalise lexically against `cwd`, expanding `~` and `$HOME`.
pub fn normalize(path: &str, cwd: &str, home: Option<&str>) -> String {
    let mut p = path.to_string();
    if let Some(h) = home {
        for pre in ["~", "$HOME", "${HOME}"] {
            if p == pre {
                p = h.to_string();
            } else if let Some(rest) = p.strip_prefix(&format!("{pre}/")) {
                p = format!("{h}/{rest}");
            }
        }
    }
    let full = if p.starts_with('/') {
        p
    } else {
        format!("{cwd}/{p}")
    };
    let mut out: Vec<&str> = vec![];
    for c in full.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    format!("/{}", out.join("/"))
}

/// Same, resolving symlinks of the existing prefix.
pub fn normalize_resolving_symlinks(path: &str, cwd: &str, home: Option<&str>) -> String {
    normalize(path, cwd, home)
}
