//! Table-driven tests for `hookrules::shell::path`.

use hookrules::shell::path::{is_within, normalize};

const HOME: Option<&str> = Some("/home/u");

/// (path, cwd, expected)
const NORMALIZE: &[(&str, &str, &str)] = &[
    ("./src/../.env", "/work/p", "/work/p/.env"),
    (".env", "/work/p", "/work/p/.env"),
    ("~/.ssh/id_rsa", "/work", "/home/u/.ssh/id_rsa"),
    ("~", "/work", "/home/u"),
    ("~/", "/work", "/home/u"),
    ("$HOME/.ssh", "/work", "/home/u/.ssh"),
    ("${HOME}/x", "/work", "/home/u/x"),
    ("$HOME", "/work", "/home/u"),
    ("$HOMEX/y", "/work", "/work/$HOMEX/y"),
    ("~user/x/../y", "/work", "~user/y"),
    ("~user", "/work", "~user"),
    ("~+/a", "/work", "/work/a"),
    ("a//b/./c/..", "/w", "/w/a/b"),
    ("../../..", "/a/b", "/"),
    ("/../../etc/passwd", "/x", "/etc/passwd"),
    ("//etc///hosts/", "/x", "/etc/hosts"),
    ("/", "/x", "/"),
    ("", "/x/y/", "/x/y"),
    (".", "/x/y", "/x/y"),
    ("a", "rel/dir", "/rel/dir/a"),
    ("/etc/./ssh/../shadow", "/", "/etc/shadow"),
    ("~/../../root", "/", "/root"),
    ("-rf", "/w", "/w/-rf"),
    ("dir with space/ü", "/w", "/w/dir with space/ü"),
];

#[test]
fn normalize_table() {
    for (path, cwd, want) in NORMALIZE {
        assert_eq!(
            normalize(path, cwd, HOME).as_deref(),
            Ok(*want),
            "normalize({path:?}, {cwd:?})"
        );
    }
}

#[test]
fn normalize_errors() {
    assert!(normalize("a\0b", "/", HOME).is_err());
    assert!(normalize("a", "/\0", HOME).is_err());
    assert!(normalize("a", "/", Some("/h\0")).is_err());
    assert!(normalize("~/x", "/", None).is_err());
    assert!(normalize("$HOME/x", "/", None).is_err());
    assert_eq!(normalize("/x", "/", None).as_deref(), Ok("/x"));
    assert_eq!(normalize("~/x", "/w", Some("h/")).as_deref(), Ok("/w/h/x"));
}

/// (path, dir, within?)
const WITHIN: &[(&str, &str, bool)] = &[
    ("/etc", "/etc", true),
    ("/etc/passwd", "/etc", true),
    ("/etc/passwd", "/etc/", true),
    ("/etc2", "/etc", false),
    ("/etc2/x", "/etc", false),
    ("/et", "/etc", false),
    ("/anything", "/", true),
    ("/", "/", true),
    ("/etc", "/etc/passwd", false),
    ("/home/u/.ssh/id_rsa", "/home/u/.ssh", true),
    ("/home/u/.sshx", "/home/u/.ssh", false),
    ("/x", "", false),
    ("rel", "/", false),
];

#[test]
fn is_within_table() {
    for (path, dir, want) in WITHIN {
        assert_eq!(is_within(path, dir), *want, "is_within({path:?}, {dir:?})");
    }
}
