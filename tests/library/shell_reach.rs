//! Where commands reach: location classes of operands and redirections,
//! through the ways a path can be spelled (`hookrules::shell::reach`).
//!
//! Every case runs with cwd = project = /home/dev/myproj, HOME = /home/dev,
//! USER = dev, no TMPDIR (so the temp root is /tmp).

use hookrules::shell::command::{parse, SimpleCommand};
use hookrules::shell::reach::{classes_of, classify, Class, Classes, Env};
use hookrules::shell::value::Value;

fn env() -> Env {
    Env {
        cwd: "/home/dev/myproj".into(),
        home: Some("/home/dev".into()),
        project: "/home/dev/myproj".into(),
        tmpdir: None,
        user: Some("dev".into()),
        ..Env::default()
    }
}

fn names(c: Classes) -> String {
    c.names().join(",")
}

/// The classes the operands of every `program` command may have.
fn operand_classes(script: &str, program: &str) -> Classes {
    let cmds = parse(script).unwrap_or_else(|e| panic!("{script:?}: {e}"));
    let found: Vec<&SimpleCommand> = cmds.iter().filter(|c| c.program == program).collect();
    assert!(!found.is_empty(), "{script:?}: no `{program}` in {cmds:#?}");
    let mut all = Classes::default();
    for c in found {
        for v in &c.operand_values {
            all = all.union(classes_of(v, &c.cwd, &env()));
        }
        if c.operands_from_input {
            all.add(Class::Unknown);
        }
    }
    all
}

use Class::*;

/// (script, program, classes it must have, classes it must not have)
const OPERANDS: &[(&str, &str, &[Class], &[Class])] = &[
    // the project, however it is spelled
    ("rm -rf .", "rm", &[ProjectRoot], &[OutsideProject]),
    ("rm -rf ./", "rm", &[ProjectRoot], &[]),
    ("rm -rf *", "rm", &[ProjectRoot], &[]),
    ("rm -rf ./*", "rm", &[ProjectRoot], &[]),
    ("rm -rf .*", "rm", &[ProjectRoot], &[]),
    ("rm -rf \"$PWD\"", "rm", &[ProjectRoot], &[Unknown]),
    ("rm -rf ${PWD}/", "rm", &[ProjectRoot], &[Unknown]),
    ("rm -rf $(pwd)", "rm", &[ProjectRoot], &[Unknown]),
    ("rm -rf \"$(pwd)\"/*", "rm", &[ProjectRoot], &[Unknown]),
    ("rm -rf `pwd`", "rm", &[ProjectRoot], &[Unknown]),
    ("rm -rf \"$(pwd -P)\"", "rm", &[ProjectRoot], &[]),
    (
        "rm -rf \"$CLAUDE_PROJECT_DIR\"",
        "rm",
        &[ProjectRoot],
        &[Unknown],
    ),
    (
        "rm -rf \"$(git rev-parse --show-toplevel)\"",
        "rm",
        &[ProjectRoot],
        &[Unknown],
    ),
    (
        "cd \"$(git rev-parse --show-toplevel)\" && rm -rf *",
        "rm",
        &[ProjectRoot],
        &[],
    ),
    ("rm -rf ../myproj", "rm", &[ProjectRoot], &[]),
    ("cd .. && rm -rf myproj", "rm", &[ProjectRoot], &[]),
    ("cd src && rm -rf ..", "rm", &[ProjectRoot], &[]),
    ("rm -rf ~/myproj", "rm", &[ProjectRoot], &[]),
    ("rm -rf .git", "rm", &[ProjectGit, Project], &[ProjectRoot]),
    ("X=.; rm -rf \"$X\"", "rm", &[ProjectRoot], &[Unknown]),
    ("rm -rf \"$(realpath .)\"", "rm", &[ProjectRoot], &[]),
    (
        "rm -rf \"$(dirname \"$PWD\")/myproj\"",
        "rm",
        &[ProjectRoot],
        &[],
    ),
    // inside the project is fine
    (
        "rm -rf build",
        "rm",
        &[Project],
        &[ProjectRoot, OutsideProject, Unknown],
    ),
    (
        "cd build && rm -rf ./*",
        "rm",
        &[Project],
        &[ProjectRoot, OutsideProject],
    ),
    ("cd build && rm -rf *", "rm", &[Project], &[ProjectRoot]),
    ("rm -rf ./build/*.o", "rm", &[Project], &[ProjectRoot]),
    (
        "rm -rf '~'",
        "rm",
        &[Project],
        &[Home, HomeTop, OutsideProject],
    ),
    ("rm -rf \"~\"", "rm", &[Project], &[Home]),
    ("rm -rf \\~", "rm", &[Project], &[Home]),
    (
        "rm -rf node_modules dist .next",
        "rm",
        &[Project],
        &[OutsideProject],
    ),
    (
        "rm -rf \"$PWD/build\"",
        "rm",
        &[Project],
        &[ProjectRoot, Unknown],
    ),
    (
        "find . -name '*.pyc' -exec rm -f {} +",
        "rm",
        &[Project],
        &[ProjectRoot, OutsideProject],
    ),
    (
        "find . -type d -name __pycache__ -exec rm -rf {} +",
        "rm",
        &[Project],
        &[ProjectRoot],
    ),
    // `cd` whose success is not known: both places
    ("cd build; rm -rf *", "rm", &[ProjectRoot, Project], &[]),
    (
        "cd build || exit 1; rm -rf *",
        "rm",
        &[Project],
        &[ProjectRoot],
    ),
    (
        "(cd build && rm -rf x); rm -rf *",
        "rm",
        &[ProjectRoot],
        &[],
    ),
    (
        "if [ -d build ]; then cd build; fi; rm -rf *",
        "rm",
        &[ProjectRoot],
        &[],
    ),
    ("cd build & rm -rf *", "rm", &[ProjectRoot], &[]),
    ("cd build | true; rm -rf *", "rm", &[ProjectRoot], &[]),
    ("echo $(cd build) && rm -rf *", "rm", &[ProjectRoot], &[]),
    (
        "pushd build && rm -rf * && popd",
        "rm",
        &[Project],
        &[ProjectRoot],
    ),
    (
        "pushd build >/dev/null; popd; rm -rf *",
        "rm",
        &[ProjectRoot],
        &[],
    ),
    // home
    (
        "rm -rf ~",
        "rm",
        &[Home, OutsideProject, ContainsProject],
        &[Unknown],
    ),
    ("rm -rf ~/", "rm", &[Home], &[]),
    ("rm -rf $HOME", "rm", &[Home], &[]),
    ("rm -rf \"${HOME}\"/*", "rm", &[Home, HomeTop], &[]),
    (
        "rm -rf ~/Documents",
        "rm",
        &[HomeTop, InHome, OutsideProject],
        &[Home, Unknown],
    ),
    ("rm -rf ~/.ssh", "rm", &[HomeTop], &[]),
    (
        "rm -rf ~/Documents/old-notes",
        "rm",
        &[InHome, OutsideProject],
        &[HomeTop, Home],
    ),
    ("rm -rf /home/dev", "rm", &[Home], &[]),
    ("rm -rf /home/*", "rm", &[Home, System], &[]),
    ("rm -rf /home/other", "rm", &[Home], &[]),
    ("rm -rf ~bob", "rm", &[Home], &[]),
    ("rm -rf ~dev/Music", "rm", &[HomeTop], &[]),
    ("rm -rf /Users/alice/Library", "rm", &[HomeTop], &[]),
    ("rm -rf /root", "rm", &[Home, System], &[]),
    ("cd ~ && rm -rf *", "rm", &[Home, HomeTop], &[]),
    ("cd && rm -rf .", "rm", &[Home], &[]),
    ("cd; rm -rf Documents", "rm", &[HomeTop], &[]),
    ("cd /tmp && cd - && rm -rf *", "rm", &[ProjectRoot], &[]),
    ("cd /tmp && rm -rf \"$OLDPWD\"", "rm", &[ProjectRoot], &[]),
    ("mv ~ /tmp/trash", "mv", &[Home, Temp], &[]),
    (
        "rsync -a --delete empty/ ~/",
        "rsync",
        &[Home, Project],
        &[],
    ),
    ("rm -rf ..", "rm", &[Home, ContainsProject], &[]),
    ("rm -rf ../*", "rm", &[Home, HomeTop], &[]),
    (
        "rm -rf ../other-project",
        "rm",
        &[HomeTop, OutsideProject],
        &[Home],
    ),
    ("rm -rf $(echo ~)", "rm", &[Home], &[Unknown]),
    (
        "rm -rf \"$(printf %s \"$HOME\")\"",
        "rm",
        &[Home],
        &[Unknown],
    ),
    ("rm -rf /home/$USER", "rm", &[Home], &[Unknown]),
    ("rm -rf /home/$(whoami)", "rm", &[Home], &[Unknown]),
    // variables assigned in the command
    ("R=/; rm -rf $R", "rm", &[Root], &[Unknown]),
    ("R=/ && rm -rf \"$R\"*", "rm", &[Root, System], &[Unknown]),
    (
        "export D=~; rm -rf \"$D\"/*",
        "rm",
        &[Home, HomeTop],
        &[Unknown],
    ),
    ("D=$HOME/Documents; rm -rf $D", "rm", &[HomeTop], &[Unknown]),
    (
        "T=\"$HOME\"; T=\"$T/.config\"; rm -rf \"$T\"",
        "rm",
        &[HomeTop],
        &[],
    ),
    (
        "for d in ~/a ~/b; do rm -rf \"$d\"; done",
        "rm",
        &[HomeTop],
        &[Unknown],
    ),
    (
        "for d in build dist; do rm -rf \"$d\"; done",
        "rm",
        &[Project],
        &[ProjectRoot, Unknown],
    ),
    (
        "for f in *; do rm -rf \"$f\"; done",
        "rm",
        &[ProjectRoot],
        &[],
    ),
    ("set -- ~ /; rm -rf \"$@\"", "rm", &[Home, Root], &[]),
    ("f() { rm -rf \"$1\"; }; f ~", "rm", &[Home], &[]),
    ("a=(rm -rf ~); \"${a[@]}\"", "rm", &[Home], &[]),
    ("X=${X:-/}; rm -rf $X", "rm", &[Root, Unknown], &[]),
    ("rm -rf ${TARGET:-~}", "rm", &[Home, Unknown], &[]),
    ("printf -v d '%s' /; rm -rf \"$d\"", "rm", &[Root], &[]),
    (
        "unset D; rm -rf \"$D\"/*",
        "rm",
        &[Root, System],
        &[Unknown],
    ),
    // unknown values are not safe
    ("rm -rf \"$DIR\"/*", "rm", &[Unknown], &[]),
    ("rm -rf $1", "rm", &[Unknown], &[]),
    ("rm -rf \"$(cat list.txt)\"", "rm", &[Unknown], &[]),
    ("rm -rf \"$HOME/$X\"", "rm", &[Unknown, Home, HomeTop], &[]),
    (
        "rm -rf \"$HOME/$X/cache\"",
        "rm",
        &[Unknown, HomeTop],
        &[Home],
    ),
    ("rm -rf \"./$X\"", "rm", &[Unknown, ProjectRoot], &[]),
    (
        "rm -rf \"build/$X\"",
        "rm",
        &[Unknown, Project],
        &[ProjectRoot, OutsideProject],
    ),
    ("read d; rm -rf \"$d\"", "rm", &[Unknown], &[]),
    ("cd \"$X\" && rm -rf build", "rm", &[Unknown], &[]),
    ("cat list.txt | xargs rm -rf", "rm", &[Unknown], &[]),
    (
        "find / -name x | xargs -I{} rm -rf {}",
        "rm",
        &[Unknown],
        &[],
    ),
    ("rm -rf $((1+1))", "rm", &[Unknown], &[]),
    // system folders, the root, mounts
    ("rm -rf /", "rm", &[Root, ContainsProject], &[Project]),
    ("rm -rf /*", "rm", &[Root, System], &[]),
    ("rm -rf /etc", "rm", &[System], &[Root, Elsewhere]),
    ("rm -rf /usr/local", "rm", &[System], &[]),
    ("rm -rf /usr/local/bin", "rm", &[System], &[]),
    ("rm -rf /var/lib", "rm", &[System], &[]),
    ("rm -rf /etc/ssh", "rm", &[System], &[]),
    ("rm -rf /opt", "rm", &[System], &[]),
    ("rm -rf /srv", "rm", &[System], &[]),
    ("rm -rf /nix", "rm", &[System], &[]),
    (
        "rm -rf /etc/nginx/sites-enabled/default",
        "rm",
        &[Elsewhere, OutsideProject],
        &[System],
    ),
    ("rm -rf /opt/myapp/cache", "rm", &[Elsewhere], &[System]),
    ("rm -rf /ETC", "rm", &[System], &[]),
    ("rm -rf /mnt/data", "rm", &[Mount], &[Elsewhere]),
    ("rm -rf /Volumes/Backup/*", "rm", &[Mount], &[]),
    ("rm -rf /media/dev/usb", "rm", &[Mount], &[]),
    ("rm -rf /System/Library", "rm", &[System], &[]),
    ("cd / && rm -rf *", "rm", &[Root, System], &[]),
    ("cd /etc && rm -rf ../usr", "rm", &[System], &[]),
    // temp
    ("rm -rf /tmp", "rm", &[TempRoot], &[Temp, System]),
    ("rm -rf /tmp/*", "rm", &[TempRoot, Temp], &[]),
    (
        "rm -rf /tmp/build-123",
        "rm",
        &[Temp, OutsideProject],
        &[TempRoot, System, Elsewhere],
    ),
    ("rm -rf /var/tmp/x", "rm", &[Temp], &[TempRoot]),
    (
        "rm -rf /private/var/folders/ab/cdef123/T/tmp.x",
        "rm",
        &[Temp],
        &[TempRoot],
    ),
    (
        "rm -rf /var/folders/ab/cdef123/T",
        "rm",
        &[TempRoot],
        &[Temp],
    ),
    ("rm -rf /TMP/x", "rm", &[OutsideProject], &[Temp]),
    (
        "d=$(mktemp -d) && rm -rf \"$d\"",
        "rm",
        &[Temp],
        &[TempRoot, Unknown],
    ),
    ("cd \"$(mktemp -d)\" && rm -rf *", "rm", &[Temp], &[]),
    ("rm -rf \"$TMPDIR/x\"", "rm", &[Temp], &[]),
    ("rm -rf /dev/shm/x", "rm", &[Temp], &[]),
    // in containers: through the bind mounts, or the container's own (no class)
    (
        "docker run -v $HOME:/data img rm -rf /data",
        "rm",
        &[Home],
        &[],
    ),
    (
        "docker run -v ~:/data img rm -rf /data/x",
        "rm",
        &[HomeTop],
        &[Home],
    ),
    (
        "docker run -v \"$PWD\":/app -w /app img rm -rf dist",
        "rm",
        &[Project],
        &[OutsideProject],
    ),
    (
        "docker run -v /:/host img rm -rf /host/etc",
        "rm",
        &[System],
        &[],
    ),
    (
        "docker run -v ~:/root img sh -c 'rm -rf ~/*'",
        "rm",
        &[Home],
        &[],
    ),
    (
        "docker run --mount type=bind,source=/home/dev,target=/w img rm -rf /w",
        "rm",
        &[Home],
        &[],
    ),
    (
        "docker run -v /a:/data -v /b:/data/sub img rm -rf /data/sub/x",
        "rm",
        &[Elsewhere],
        &[],
    ),
    (
        "podman run --privileged img sh -c 'mount /dev/sdb1 /mnt && rm -rf /mnt/*'",
        "rm",
        &[System],
        &[],
    ),
    (
        "docker run img rm -rf /",
        "rm",
        &[],
        &[Root, System, OutsideProject, Unknown],
    ),
    (
        "docker run -v pgdata:/data img rm -rf /data",
        "rm",
        &[],
        &[Root, System, OutsideProject],
    ),
    (
        "docker run -v ./data:/d img rm -rf /etc",
        "rm",
        &[],
        &[System, OutsideProject],
    ),
    (
        "docker run img rm -rf rel",
        "rm",
        &[],
        &[Project, OutsideProject],
    ),
    // through wrappers and shells
    ("sudo rm -rf ~", "rm", &[Home], &[]),
    ("bash -c 'cd ~ && rm -rf *'", "rm", &[Home, HomeTop], &[]),
    ("sh -c 'rm -rf \"$1\"' _ ~", "rm", &[Home], &[]),
    ("sh -c 'rm -rf \"$0\"' ~", "rm", &[Home], &[]),
    ("D=/; bash -c \"rm -rf $D\"", "rm", &[Root], &[]),
    ("export D=~; bash -c 'rm -rf \"$D\"'", "rm", &[Home], &[]),
    ("D=~; bash -c 'rm -rf \"$D\"/x'", "rm", &[HomeTop], &[]),
    ("eval \"rm -rf $HOME\"", "rm", &[Home], &[]),
    ("X=~; eval 'rm -rf $X'", "rm", &[Home], &[]),
    ("cd ~; eval 'rm -rf *'", "rm", &[Home, HomeTop], &[]),
    ("find ~ -exec rm -rf {} \\;", "rm", &[Home], &[]),
    (
        "find ~ -name '*.tmp' -delete -o -exec rm -rf {} +",
        "rm",
        &[InHome],
        &[Home],
    ),
    ("parallel rm -rf ::: ~ /", "rm", &[Home, Root], &[]),
    ("parallel 'rm -rf {}' ::: ~/x", "rm", &[HomeTop], &[]),
    (
        "bash <<EOF\ncd ~\nrm -rf *\nEOF",
        "rm",
        &[Home, HomeTop],
        &[],
    ),
    ("D=/etc; bash <<EOF\nrm -rf $D\nEOF", "rm", &[System], &[]),
    ("alias nuke='rm -rf'\nnuke ~", "rm", &[Home], &[]),
    // env keeps what the shell made of its arguments (`~` is home)
    ("env X=1 rm -rf ~", "rm", &[Home], &[]),
    ("/usr/bin/env -- rm -rf ~", "rm", &[Home], &[]),
    ("env -S 'rm -rf' ~", "rm", &[Home], &[]),
    // a `-name` test hands the command files of that name in a starting point
    (
        "find ~ -maxdepth 1 -name Documents -exec rm -rf {} +",
        "rm",
        &[HomeTop],
        &[Home],
    ),
];

#[test]
fn operand_classes_table() {
    let mut failures = Vec::new();
    for (script, program, want, not) in OPERANDS {
        let got = std::panic::catch_unwind(|| operand_classes(script, program));
        let got = match got {
            Ok(g) => g,
            Err(_) => {
                failures.push(format!("{script:?}: panicked"));
                continue;
            }
        };
        let missing: Vec<&str> = want
            .iter()
            .filter(|c| !got.has(**c))
            .map(|c| c.name())
            .collect();
        let extra: Vec<&str> = not
            .iter()
            .filter(|c| got.has(**c))
            .map(|c| c.name())
            .collect();
        if !missing.is_empty() || !extra.is_empty() {
            failures.push(format!(
                "{script:?}: got [{}], missing {missing:?}, unexpected {extra:?}",
                names(got)
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        OPERANDS.len(),
        failures.join("\n")
    );
}

/// Plain paths (as tools name them).
const PATHS: &[(&str, &[Class])] = &[
    ("/", &[Root, ContainsProject, OutsideProject]),
    ("/etc", &[System, OutsideProject]),
    ("/etc/hosts", &[System, OutsideProject]),
    (
        "/etc/nginx/sites-enabled/default",
        &[Elsewhere, OutsideProject],
    ),
    ("/home/dev", &[Home, ContainsProject, OutsideProject]),
    ("/home/dev/.bashrc", &[HomeTop, InHome, OutsideProject]),
    ("/home/dev/myproj", &[Project, ProjectRoot, HomeTop, InHome]),
    (
        "/home/dev/myproj/.git/hooks/pre-commit",
        &[Project, ProjectGit, InHome],
    ),
    ("/home/dev/myproj/src/main.rs", &[Project, InHome]),
    ("/home/dev/other/x", &[InHome, OutsideProject]),
    ("/tmp", &[TempRoot, OutsideProject]),
    ("/tmp/x/y", &[Temp, OutsideProject]),
    ("/mnt/c", &[Mount, OutsideProject]),
    ("/mnt", &[System, OutsideProject]),
    ("/usr/local/bin/tool", &[Elsewhere, OutsideProject]),
    ("/usr/local/bin", &[System, OutsideProject]),
];

#[test]
fn path_classes_table() {
    let e = env();
    let mut failures = Vec::new();
    for (path, want) in PATHS {
        let got = classify(path, &e);
        if got != Classes::of(want) {
            failures.push(format!(
                "{path}: got [{}], want [{}]",
                names(got),
                names(Classes::of(want))
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A project folder that is `/` or a system folder grants nothing.
#[test]
fn a_system_folder_is_never_the_project() {
    let mut e = env();
    e.project = "/".into();
    e.cwd = "/".into();
    let c = classify("/etc", &e);
    assert!(
        !c.has(Project) && c.has(System) && c.has(OutsideProject),
        "{}",
        names(c)
    );
    e.project = "/usr".into();
    assert!(!classify("/usr/bin", &e).has(Project));
}

/// `$TMPDIR` is a temp root when set; unset (most Linux systems), `$TMPDIR/x`
/// is `/x`, so the plain form is also unknown; the guarded forms are temp only.
#[test]
fn tmpdir_is_a_temp_root_or_unset() {
    let mut e = env();
    e.tmpdir = Some("/var/folders/xy/abc/T/".into());
    assert!(classify("/var/folders/xy/abc/T", &e).has(TempRoot));
    for (script, unknown) in [
        ("rm -rf \"$TMPDIR\"/build", true),
        ("rm -rf \"${TMPDIR}/build\"", true),
        ("rm -rf \"${TMPDIR-/tmp}/build\"", true),
        ("rm -rf \"${TMPDIR:?}\"/build", false),
        ("rm -rf \"${TMPDIR:?unset}/build\"", false),
        ("rm -rf \"${TMPDIR:-/tmp}/build\"", false),
        ("TMPDIR=/tmp/t; rm -rf \"$TMPDIR/build\"", false),
    ] {
        let cmds = parse(script).unwrap();
        let c = cmds.iter().find(|c| c.program == "rm").unwrap();
        let got = classes_of(&c.operand_values[0], &c.cwd, &e);
        assert!(got.has(Temp), "{script}: {}", names(got));
        assert_eq!(got.has(Unknown), unknown, "{script}: {}", names(got));
    }
}

/// bash expands `~` after the `=` of an argument shaped like an assignment.
#[test]
fn tilde_after_an_argument_equals_sign_is_home() {
    let cmds = parse("dd if=/dev/zero of=~/.ssh/id_rsa").unwrap();
    let v = &cmds[0].values[1];
    assert_eq!(v.to_string(), "of=$HOME/.ssh/id_rsa");
    let cmds = parse("echo --output=~/x 'of=~/y'").unwrap();
    assert_eq!(cmds[0].values[0].to_string(), "--output=~/x");
    assert_eq!(cmds[0].values[1].to_string(), "of=~/y");
}

/// The values themselves, as traces show them.
#[test]
fn values_are_shown_as_the_shell_spells_them() {
    let cmds = parse("cd /tmp && rm -rf \"$OLDPWD/x\" ~/y $Z").unwrap();
    let rm = cmds.iter().find(|c| c.program == "rm").unwrap();
    let shown: Vec<String> = rm.operand_values.iter().map(Value::to_string).collect();
    assert_eq!(shown, ["$PWD/x", "$HOME/y", "$Z"]);
    assert_eq!(rm.cwd.to_string(), "/tmp");
    assert_eq!(rm.args, ["-rf", "$OLDPWD/x", "~/y", "$Z"]);
}

/// `""` and `''` are arguments the program receives (`pkill -f ""` matches
/// every process).
#[test]
fn empty_quoted_words_are_arguments() {
    for script in ["pkill -f \"\"", "pkill -f ''"] {
        let cmds = parse(script).unwrap();
        assert_eq!(cmds[0].args, ["-f", ""], "{script}");
    }
    let cmds = parse("echo $EMPTY").unwrap();
    assert_eq!(cmds[0].args.len(), 1);
}

/// What `find -name PATTERN -exec CMD {}` hands the command carries the name.
#[test]
fn find_names_reach_the_executed_command() {
    let cmds = parse("find . -name '.env*' -exec cat {} \\;").unwrap();
    let cat = cmds.iter().find(|c| c.program == "cat").unwrap();
    let shown = cat.operand_values[0].to_string();
    assert!(shown.contains("./.env*"), "{shown}");
}

/// `absent` is asked of the disk: a plain path where nothing is, in a folder
/// that is there (a link that lands nowhere too); never a pattern, a
/// relative path, an unknown one, or one whose folder is missing.
#[test]
fn absent_is_nothing_there_in_a_folder_that_is() {
    use hookrules::shell::reach::{with_content, Target};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("file"), "x").unwrap();
    std::fs::create_dir(root.join("folder")).unwrap();
    std::os::unix::fs::symlink(root.join("nowhere"), root.join("dangling")).unwrap();
    let absent = |path: String, pattern: bool, unknown: bool| {
        let mut t = Target::plain(path.clone(), Classes::default());
        if pattern {
            t.pattern = Some(path);
        }
        if unknown {
            t.classes.add(Class::Unknown);
        }
        with_content(&t).has(Class::Absent)
    };
    let at = |rel: &str| root.join(rel).to_string_lossy().into_owned();
    assert!(absent(at("new.txt"), false, false), "a new name");
    assert!(absent(at("dangling"), false, false), "a link to nothing");
    assert!(!absent(at("file"), false, false), "a file");
    assert!(!absent(at("folder"), false, false), "a folder");
    assert!(
        !absent(at("missing/new.txt"), false, false),
        "its folder is missing"
    );
    assert!(!absent(at("new*.txt"), true, false), "a pattern");
    assert!(!absent(at("new.txt"), false, true), "an unknown path");
    assert!(!absent("new.txt".into(), false, false), "a relative path");
}
