//! Table-driven tests for `hookrules::shell::command`.

use hookrules::shell::command::{parse, Code, Redirect, RedirectOp, SimpleCommand};
use hookrules::shell::value::Value;

fn cmds(script: &str) -> Vec<SimpleCommand> {
    match parse(script) {
        Ok(c) => c,
        Err(e) => panic!("parse({script:?}) failed: {e}"),
    }
}

fn find<'a>(cs: &'a [SimpleCommand], program: &str) -> &'a SimpleCommand {
    cs.iter()
        .find(|c| c.program == program)
        .unwrap_or_else(|| panic!("no `{program}` in {cs:#?}"))
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// (script, programs in order)
const PROGRAMS: &[(&str, &[&str])] = &[
    // empty / comments
    ("", &[]),
    ("   \n\n", &[]),
    ("# only a comment\n  # another", &[]),
    ("echo a # rm -rf /", &["echo"]),
    ("echo a#b", &["echo"]),
    // lists and pipelines
    ("ls -la", &["ls"]),
    (
        "a; b & c && d || e | f |& g\nh",
        &["a", "b", "c", "d", "e", "f", "g", "h"],
    ),
    ("a &&\n b ||\n\n c |\n d", &["a", "b", "c", "d"]),
    ("ls \\\n -la", &["ls"]),
    ("a&", &["a"]),
    // data is not a command
    ("echo \"rm -rf /\"", &["echo"]),
    ("printf '%s' 'rm -rf /'", &["printf"]),
    ("grep -r 'rm -rf' .", &["grep"]),
    ("git commit -m \"rm -rf /\"", &["git"]),
    ("cat <<EOF\nrm -rf /\nEOF", &["cat"]),
    ("cat <<-EOF\n\trm -rf /\n\tEOF\nls", &["cat", "ls"]),
    ("cat <<'EOF'\n$(rm -rf /)\nEOF", &["cat"]),
    ("cat <<< 'rm -rf /'", &["cat"]),
    ("echo 'a;b' \"c|d\" e\\&f", &["echo"]),
    // quoting of the program word
    ("r\"\"m -rf /", &["rm"]),
    ("\\rm -rf ~", &["rm"]),
    ("'rm' -rf /", &["rm"]),
    ("\"r\"'m' -rf /", &["rm"]),
    ("'r'm x", &["rm"]),
    ("/bin/rm -rf /", &["rm"]),
    ("$'\\x72\\x6d' -rf /", &["rm"]),
    ("$'\\162m' x", &["rm"]),
    ("$\"rm\" x", &["rm"]),
    // wrappers
    ("cd / && sudo rm -rf *", &["cd", "sudo", "rm"]),
    (
        "sudo -u root -g wheel -C 3 -h host -p pw -D /tmp -r r -t t -T 5 --user=x rm x",
        &["sudo", "rm"],
    ),
    ("sudo -E -H -n rm x", &["sudo", "rm"]),
    ("sudo -- rm x", &["sudo", "rm"]),
    ("sudo FOO=1 rm x", &["sudo", "rm"]),
    ("sudo -l rm", &["sudo"]),
    ("sudo -e /etc/hosts", &["sudo"]),
    ("sudo", &["sudo"]),
    ("doas -u root rm x", &["doas", "rm"]),
    (
        "sudo env FOO=1 nice -n 5 rm -rf /",
        &["sudo", "env", "nice", "rm"],
    ),
    ("env -i PATH=/bin rm -rf /", &["env", "rm"]),
    ("env -u HOME -C /tmp rm x", &["env", "rm"]),
    ("env -S 'rm -rf /'", &["env", "rm"]),
    ("env -S'FOO=1 rm -rf /'", &["env", "rm"]),
    ("env --split-string='-i rm x'", &["env", "rm"]),
    ("env", &["env"]),
    ("env A=1", &["env"]),
    ("nohup rm x &", &["nohup", "rm"]),
    ("nice -5 rm x", &["nice", "rm"]),
    ("ionice -c 3 rm x", &["ionice", "rm"]),
    ("timeout 10 sudo rm -rf /", &["timeout", "sudo", "rm"]),
    ("timeout -s KILL -k 5 10s rm x", &["timeout", "rm"]),
    ("timeout --signal=KILL 10 rm x", &["timeout", "rm"]),
    ("command rm x", &["command", "rm"]),
    ("command -p rm x", &["command", "rm"]),
    ("command -v rm", &["command"]),
    ("command -V rm", &["command"]),
    ("exec -a name rm x", &["exec", "rm"]),
    ("exec 3>&1", &["exec"]),
    ("builtin cd /", &["builtin", "cd"]),
    ("stdbuf -o0 -e L rm x", &["stdbuf", "rm"]),
    ("setsid -f rm x", &["setsid", "rm"]),
    ("chroot /srv rm x", &["chroot", "rm"]),
    ("chroot --userspec=a:b /srv rm x", &["chroot", "rm"]),
    ("flock /tmp/lock rm x", &["flock", "rm"]),
    ("flock -w 5 /tmp/lock -c 'rm x'", &["flock", "rm"]),
    ("watch -n 1 'rm x; ls'", &["watch", "rm", "ls"]),
    ("watch -x rm x", &["watch", "rm"]),
    ("strace -f -o out rm x", &["strace", "rm"]),
    ("ltrace -e malloc rm x", &["ltrace", "rm"]),
    ("time rm x", &["rm"]),
    ("time -p rm x | wc", &["rm", "wc"]),
    ("/usr/bin/time -f %e rm x", &["time", "rm"]),
    ("sudo time rm x", &["sudo", "time", "rm"]),
    ("pkexec rm x", &["pkexec", "rm"]),
    ("busybox rm x", &["busybox", "rm"]),
    ("su -c 'rm x' root", &["su", "rm"]),
    ("su - root -c 'rm x'", &["su", "rm"]),
    ("runuser -u bob -- rm x", &["runuser", "rm"]),
    ("trap 'rm -rf /tmp/x' EXIT", &["trap", "rm"]),
    ("trap - EXIT", &["trap"]),
    // xargs / find
    ("ls | xargs rm -rf", &["ls", "xargs", "rm"]),
    (
        "ls | xargs -I {} -n 1 -P 4 -d '\\n' rm -rf {}",
        &["ls", "xargs", "rm"],
    ),
    (
        "ls | xargs -0 -r sh -c 'rm \"$1\"' _",
        &["ls", "xargs", "sh", "rm"],
    ),
    ("ls | xargs", &["ls", "xargs"]),
    ("find / -name x -exec rm -rf {} \\;", &["find", "rm"]),
    ("find . -type f -execdir chmod 644 {} +", &["find", "chmod"]),
    (
        "find . -exec a {} ';' -ok b {} \\; -okdir c {} +",
        &["find", "a", "b", "c"],
    ),
    ("find . -name '*.tmp' -delete", &["find"]),
    (
        "find . -exec sh -c 'rm \"$0\"' {} \\;",
        &["find", "sh", "rm"],
    ),
    // shells
    (
        "sudo bash -c \"cd / && rm -rf *\"",
        &["sudo", "bash", "cd", "rm"],
    ),
    ("bash -lc 'rm -rf /'", &["bash", "rm"]),
    ("bash -e -c 'rm x'", &["bash", "rm"]),
    ("bash -o pipefail -c 'rm x'", &["bash", "rm"]),
    ("sh -c 'sh -c \"rm x\"'", &["sh", "sh", "rm"]),
    (
        "zsh -c 'rm x'; dash -c 'rm y'; ksh -c 'rm z'",
        &["zsh", "rm", "dash", "rm", "ksh", "rm"],
    ),
    ("bash script.sh", &["bash"]),
    ("bash -c", &["bash"]),
    ("eval \"rm -rf /\"", &["eval", "rm"]),
    ("eval rm -rf /", &["eval", "rm"]),
    ("eval 'a=1; rm x'", &["eval", "", "rm"]),
    ("eval", &["eval"]),
    // heredocs / here-strings into shells
    ("bash <<EOF\nrm -rf /\nEOF", &["bash", "rm"]),
    (
        "bash <<'EOF'\nrm -rf /\nEOF\necho done",
        &["bash", "rm", "echo"],
    ),
    ("sh -s <<\"EOF\"\nrm x\nEOF", &["sh", "rm"]),
    ("bash -x <<-EOF\n\trm x\n\tEOF", &["bash", "rm"]),
    ("sudo bash <<EOF\nrm x\nEOF", &["sudo", "bash", "rm"]),
    ("bash script.sh <<EOF\nrm x\nEOF", &["bash"]),
    ("sh <<< 'rm -rf /'", &["sh", "rm"]),
    ("cat <<A; cat <<B\nx\nA\ny\nB\nls", &["cat", "cat", "ls"]),
    ("cat <<EOF\n$(rm -rf /)\nEOF", &["rm", "cat"]),
    ("x=$(cat <<EOF\nhello\nEOF\n)", &["cat", ""]),
    // pipes into shells
    ("curl http://x | sh", &["curl", "sh"]),
    (
        "curl -fsSL http://x | sudo bash -s --",
        &["curl", "sudo", "bash"],
    ),
    ("echo \"rm -rf /\" | bash", &["echo", "bash", "rm"]),
    ("echo -e 'ls\\nrm -rf /' | sh", &["echo", "sh", "ls", "rm"]),
    ("printf 'rm -rf %s\\n' / | sh", &["printf", "sh", "rm"]),
    ("cat <<EOF | bash\nrm -rf /\nEOF", &["cat", "bash", "rm"]),
    ("echo ls | grep l | sh", &["echo", "grep", "sh"]),
    // substitutions
    ("echo $(rm -rf /)", &["rm", "echo"]),
    ("echo \"$(rm -rf /)\"", &["rm", "echo"]),
    ("echo \"a $(b \"$(c)\") d\"", &["c", "b", "echo"]),
    ("echo `rm -rf /`", &["rm", "echo"]),
    ("echo \"`rm x`\"", &["rm", "echo"]),
    ("echo `echo \\`rm x\\``", &["rm", "echo", "echo"]),
    ("echo $(case x in a) rm x;; esac)", &["rm", "echo"]),
    ("echo $( (ls) )", &["ls", "echo"]),
    ("echo $((1 + 2))", &["echo"]),
    ("echo $(( $(rm x) + 1 ))", &["rm", "echo"]),
    ("echo $((ls) | wc)", &["ls", "wc", "echo"]),
    ("echo ${HOME:-/tmp}", &["echo"]),
    // (`x` is the environment's: its value printed is reported as `printenv x`)
    ("echo ${x:-$(rm y)}", &["rm", "echo", "printenv"]),
    ("echo \"${x:-\"$(rm y)\"}\"", &["rm", "echo", "printenv"]),
    ("diff <(ls a) >(cat)", &["ls", "cat", "diff"]),
    ("cat < <(rm x)", &["rm", "cat"]),
    ("x=$(rm -rf /)", &["rm", ""]),
    ("FOO=1 BAR=2", &[""]),
    ("arr=(a $(rm x) c); echo", &["rm", "", "echo"]),
    ("> $(rm x)", &["rm", ""]),
    ("echo '$(rm x)' \"\\$(rm z)\" \\$\\(rm\\)", &["echo"]),
    // compound commands
    ("for f in *; do rm -rf \"$f\"; done", &["rm"]),
    ("for f in $(ls); do rm \"$f\"; done", &["ls", "rm"]),
    ("for f\ndo\n rm $f\ndone", &["rm"]),
    ("for ((i=0; i<3; i++)); do rm $i; done", &["rm"]),
    ("select x in a b; do rm $x; done", &["rm"]),
    ("if true; then rm -rf /; fi", &["true", "rm"]),
    (
        "if a; then b; elif c; then d; else e; fi",
        &["a", "b", "c", "d", "e"],
    ),
    ("if ! a\nthen\n b\nfi", &["a", "b"]),
    ("while read l; do echo $l; done", &["read", "echo"]),
    ("until false; do :; done", &["false", ":"]),
    (
        "case $x in a|b) rm -rf /;; (c) ls;& *) echo;;& esac",
        &["rm", "ls", "echo"],
    ),
    ("case x in\n a) ;;\nesac", &[]),
    ("case $(rm x) in *) ;; esac", &["rm"]),
    ("(cd /tmp && rm -rf x)", &["cd", "rm"]),
    ("( ( ls ) )", &["ls"]),
    ("{ echo a; echo b; }", &["echo", "echo"]),
    ("{ rm x\n}", &["rm"]),
    ("echo { } done fi", &["echo"]),
    ("[[ -f x ]] && rm x", &["rm"]),
    ("[[ $(rm y) == x && ( a < b ) ]]", &["rm"]),
    ("(( i++ )) && rm x", &["rm"]),
    ("! rm x", &["rm"]),
    ("time", &[]),
    // functions
    // the call is followed once; the recursive calls inside it are not
    (":(){ :|:& };:", &[":", ":", ":", ":", ":"]),
    // a function's body is read where it is defined, and again at each call
    ("f() { rm -rf /; }; f", &["rm", "f", "rm"]),
    ("f () (ls)", &["ls"]),
    ("function g { ls; }; g", &["ls", "g", "ls"]),
    ("function g() {\n ls\n}", &["ls"]),
    // redirections
    ("> /etc/hosts", &[""]),
    ("> /etc/hosts echo hi", &["echo"]),
    ("sed -i s/a/b/ .env", &["sed"]),
    // brace expansion can build a program name
    ("{rm,-rf,/}", &["rm"]),
    ("{r..r}m -rf /", &["rm"]),
    ("rm${IFS}-rf${IFS}/", &["rm"]),
    ("\"rm${IFS}-rf\"", &["rm \t\n-rf"]),
    ("sudo {rm,-rf,/}", &["sudo", "rm"]),
    ("'{rm,-rf}' /", &["{rm,-rf}"]),
    ("find . -exec rm {} +", &["find", "rm"]),
];

#[test]
fn programs_table() {
    let mut failures = Vec::new();
    for (script, want) in PROGRAMS {
        match parse(script) {
            Ok(cs) => {
                let got: Vec<&str> = cs.iter().map(|c| c.program.as_str()).collect();
                if got != *want {
                    failures.push(format!("{script:?}: got {got:?}, want {want:?}"));
                }
            }
            Err(e) => failures.push(format!("{script:?}: error {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn compound_redirects_reported_on_empty_program() {
    let cs = cmds("while read l; do :; done < file");
    let got: Vec<&str> = cs.iter().map(|c| c.program.as_str()).collect();
    assert_eq!(got, ["read", ":", ""]);
    assert_eq!(
        cs[2].redirects,
        vec![Redirect {
            op: RedirectOp::Read,
            fd: None,
            target: "file".into(),
            value: Value::text("file"),
        }]
    );
    let cs = cmds("{ echo a; } > /etc/passwd 2>&1");
    assert_eq!(cs[1].program, "");
    assert_eq!(cs[1].redirects[0].target, "/etc/passwd");
}

/// Scripts that must be rejected, with the expected error offset.
const ERRORS: &[(&str, usize)] = &[
    ("echo \"a $(ls\"", 8),
    ("echo $(ls", 5),
    ("echo ${x", 5),
    ("echo <(ls", 5),
    ("if true; then ls", 0),
    ("if true; then ls; else", 22),
    ("while x; do y", 0),
    ("for x in a b", 0),
    ("case x in a) ;;", 0),
    ("{ ls", 0),
    ("(ls", 0),
    ("ls )", 3),
    ("ls &&", 3),
    ("| ls", 0),
    ("ls ;; ls", 3),
    ("; ls", 0),
    ("ls | ", 5),
    ("fi", 0),
    ("{ }", 2),
    ("echo > ;", 7),
    ("f() echo", 4),
    ("a=(b c", 2),
    ("[[ -f x", 0),
    ("bash -c \"echo 'x\"", 0),
    ("sudo sh -c 'if true; then ls'", 0),
    ("echo 'rm x' | sh -c \"'\"", 14),
    ("eval \"echo 'x\"", 0),
    ("bash <<EOF\nls '\nEOF", 14),
];

/// A quote of the script's own text left open: the shell refuses the line,
/// and the script is read as if the quote were closed at the end (the
/// programs it would then run, with their arguments).
const CLOSED_AT_THE_END: &[(&str, &[&str])] = &[
    ("echo 'abc", &["echo abc"]),
    ("echo \"abc", &["echo abc"]),
    ("echo $'abc", &["echo abc"]),
    ("echo `ls", &["ls", "echo `ls`"]),
    ("rm -rf ~; echo \"x", &["rm -rf ~", "echo x"]),
    ("echo ok\nrm -rf '/tmp/a b", &["echo ok", "rm -rf /tmp/a b"]),
    ("echo \"it's", &["echo it's"]),
    ("echo \"a\" 'b", &["echo a b"]),
];

#[test]
fn open_quotes_are_closed_at_the_end() {
    let mut failures = Vec::new();
    for (script, want) in CLOSED_AT_THE_END {
        match parse(script) {
            Ok(cs) => {
                let got: Vec<String> = cs
                    .iter()
                    .map(|c| {
                        std::iter::once(c.program.as_str())
                            .chain(c.args.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .collect();
                if got != *want {
                    failures.push(format!("{script:?}: {got:?} != {want:?}"));
                }
            }
            Err(e) => failures.push(format!("{script:?}: expected commands, got {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn errors_table() {
    let mut failures = Vec::new();
    for (script, off) in ERRORS {
        match parse(script) {
            Ok(cs) => failures.push(format!("{script:?}: expected error, got {cs:?}")),
            Err(e) => {
                if e.offset != *off {
                    failures.push(format!("{script:?}: offset {} != {off} ({e})", e.offset));
                }
                assert!(!e.message.is_empty());
                assert!(e.to_string().contains("at byte"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn nesting_limit() {
    use hookrules::shell::command::MAX_DEPTH;
    // on the stack `hookrules run` has (os::stack::MIN), not a test thread's 2 MiB
    std::thread::Builder::new()
        .stack_size(hookrules::os::stack::MIN)
        .spawn(|| {
            let nest = |n: usize| format!("{}ls{}", "echo $(".repeat(n), ")".repeat(n));
            assert!(parse(&nest(MAX_DEPTH)).is_ok());
            let e = parse(&nest(MAX_DEPTH + 1)).unwrap_err();
            assert!(e.message.contains("nesting"), "{e}");
            let sub =
                |n: usize| format!("{}ls{}", "(".repeat(n).replace('(', "( "), " )".repeat(n));
            assert!(parse(&sub(MAX_DEPTH)).is_ok());
            assert!(parse(&sub(MAX_DEPTH + 1)).is_err());
        })
        .unwrap()
        .join()
        .unwrap();
    // a hundred nested `if`s, as a generator writes them, are read to the `rm` inside
    let ifs = format!(
        "{}rm -rf ~{}",
        "if true; then ".repeat(100),
        "; fi".repeat(100)
    );
    let deep = std::thread::Builder::new()
        .stack_size(hookrules::os::stack::MIN)
        .spawn(move || parse(&ifs).map(|cs| cs.iter().any(|c| c.program == "rm")))
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(deep.ok(), Some(true));
    // re-parsed strings nest 16 deep at most
    let evals = format!("{}rm x", "eval ".repeat(20));
    assert!(parse(&evals).unwrap_err().message.contains("nesting"));
    let mut s = "rm x".to_string();
    for _ in 0..4 {
        s = format!("bash -c {}", shell_quote(&s));
    }
    let cs = cmds(&s);
    assert_eq!(find(&cs, "rm").via.len(), 4);
    let wrappers = format!("{}rm x", "nice ".repeat(17));
    assert!(parse(&wrappers).unwrap_err().message.contains("wrappers"));
    assert!(parse(&format!("{}rm x", "nice ".repeat(16))).is_ok());
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn fields_of_nested_wrappers() {
    let cs = cmds("sudo bash -c \"cd / && rm -rf *\"");
    let rm = find(&cs, "rm");
    assert_eq!(rm.args, strings(&["-rf", "*"]));
    assert_eq!(rm.via, strings(&["sudo", "bash -c"]));
    assert_eq!(find(&cs, "bash").via, strings(&["sudo"]));
    assert_eq!(find(&cs, "sudo").via, Vec::<String>::new());
    assert_eq!(
        find(&cs, "sudo").args,
        strings(&["bash", "-c", "cd / && rm -rf *"])
    );

    let cs = cmds("sudo -u root env FOO=1 BAR=2 nice -n 5 /bin/rm -rf /");
    let rm = find(&cs, "rm");
    assert_eq!(rm.program_path, "/bin/rm");
    assert_eq!(rm.via, strings(&["sudo", "env", "nice"]));
    assert_eq!(
        rm.assignments,
        vec![("FOO".into(), "1".into()), ("BAR".into(), "2".into())]
    );

    let cs = cmds("timeout 10 sudo rm -rf /");
    assert_eq!(find(&cs, "rm").via, strings(&["timeout", "sudo"]));

    let cs = cmds("echo $(sudo rm x)");
    assert_eq!(find(&cs, "rm").via, strings(&["$()", "sudo"]));
    assert_eq!(find(&cs, "sudo").via, strings(&["$()"]));

    let cs = cmds("sudo bash -c 'echo `rm x`'");
    assert_eq!(find(&cs, "rm").via, strings(&["sudo", "bash -c", "``"]));

    let cs = cmds("diff <(rm a) >(rm b)");
    assert_eq!(cs[0].via, strings(&["<()"]));
    assert_eq!(cs[1].via, strings(&[">()"]));

    let cs = cmds("bash <<EOF\nrm x\nEOF");
    assert_eq!(find(&cs, "rm").via, strings(&["bash <<"]));
    let cs = cmds("sh <<< 'rm x'");
    assert_eq!(find(&cs, "rm").via, strings(&["sh <<<"]));
    let cs = cmds("echo 'rm x' | bash");
    assert_eq!(find(&cs, "rm").via, strings(&["| bash"]));
    let cs = cmds("find . -exec rm {} \\;");
    assert_eq!(find(&cs, "rm").via, strings(&["find -exec"]));
    assert_eq!(find(&cs, "rm").args, strings(&["{}"]));
    let cs = cmds("cat list.txt | xargs -n1 rm -f");
    assert_eq!(find(&cs, "rm").via, strings(&["xargs"]));
    assert_eq!(find(&cs, "rm").args, strings(&["-f"]));
    let cs = cmds("eval 'rm x'");
    assert_eq!(find(&cs, "rm").via, strings(&["eval"]));
    let cs = cmds("f() { rm x; }");
    assert_eq!(find(&cs, "rm").via, strings(&["f()"]));
    let cs = cmds("f() { echo $(rm x); }");
    assert_eq!(find(&cs, "rm").via, strings(&["f()", "$()"]));
    let cs = cmds("env -i PATH=/bin rm -rf /");
    let rm = find(&cs, "rm");
    assert_eq!(rm.assignments, vec![("PATH".into(), "/bin".into())]);
    assert_eq!(rm.args, strings(&["-rf", "/"]));
}

#[test]
fn args_are_quote_removed_not_expanded() {
    let cs =
        cmds(r#"echo "$HOME" '${X}' ${HOME} ~ $(pwd) a\ b "x\"y" 'it'\''s' $'a\tb' "\$v" "\q""#);
    assert_eq!(
        cs.last().unwrap().args,
        strings(&[
            "$HOME", "${X}", "${HOME}", "~", "$(pwd)", "a b", "x\"y", "it's", "a\tb", "$v", "\\q"
        ])
    );
    let cs = cmds("cat ./src/../.env");
    assert_eq!(cs[0].operands, strings(&["./src/../.env"]));
    let cs = cmds("echo a\\\nb");
    assert_eq!(cs[0].args, strings(&["ab"]));
    let cs = cmds("echo \"a\nb\" $'\\x41\\u00e9\\0zz'");
    assert_eq!(cs[0].args, strings(&["a\nb", "A\u{e9}"]));
}

#[test]
fn flags_and_operands() {
    let cs = cmds("rm -rf --no-preserve-root --foo=bar -r - -- -x --y");
    let c = &cs[0];
    assert_eq!(
        c.flags,
        strings(&["-r", "-f", "--no-preserve-root", "--foo"])
    );
    assert_eq!(c.operands, strings(&["-", "-x", "--y"]));
    let cs = cmds("git commit -m \"rm -rf /\"");
    assert_eq!(cs[0].flags, strings(&["-m"]));
    assert_eq!(cs[0].operands, strings(&["commit", "rm -rf /"]));
    let cs = cmds("sed -i s/a/b/ .env");
    assert_eq!(cs[0].flags, strings(&["-i"]));
    assert_eq!(cs[0].operands, strings(&["s/a/b/", ".env"]));
}

#[test]
fn redirects() {
    use RedirectOp::*;
    let r = |op, fd, t: &str| Redirect {
        op,
        fd,
        target: t.to_string(),
        value: Value::text(t),
    };
    let cs = cmds("> /etc/hosts echo hi");
    assert_eq!(cs[0].program, "echo");
    assert_eq!(cs[0].args, strings(&["hi"]));
    assert_eq!(cs[0].redirects, vec![r(Write, None, "/etc/hosts")]);
    let cs =
        cmds("cat <in >>out 2>err &>all &>>all2 >|clob <>rw 2>&1 >&3 1>&- >&file 3<&0 9> nine");
    assert_eq!(
        cs[0].redirects,
        vec![
            r(Read, None, "in"),
            r(Append, None, "out"),
            r(Write, Some(2), "err"),
            r(Write, None, "all"),
            r(Append, None, "all2"),
            r(Write, None, "clob"),
            r(ReadWrite, None, "rw"),
            r(Write, None, "file"),
            r(Write, Some(9), "nine"),
        ]
    );
    assert!(cs[0].args.is_empty());
    let cs = cmds("> /etc/hosts");
    assert_eq!(cs[0].program, "");
    assert_eq!(cs[0].redirects, vec![r(Write, None, "/etc/hosts")]);
    // redirects are shared by wrapped commands
    let cs = cmds("sudo tee -a /etc/x > \"/tmp/o u t\"");
    assert_eq!(
        find(&cs, "tee").redirects,
        vec![r(Write, None, "/tmp/o u t")]
    );
    // a here-doc is not a file redirect
    let cs = cmds("cat <<EOF > out\nx\nEOF");
    assert_eq!(cs[0].redirects, vec![r(Write, None, "out")]);
    // digits not followed by a redirection are a word
    let cs = cmds("echo 2 >x");
    assert_eq!(cs[0].args, strings(&["2"]));
    assert_eq!(cs[0].redirects[0].fd, None);
}

#[test]
fn assignments() {
    let cs = cmds("FOO=1 BAR=\"a b\" A+=x B[1]=y cmd X=2");
    assert_eq!(
        cs[0].assignments,
        vec![
            ("FOO".into(), "1".into()),
            ("BAR".into(), "a b".into()),
            ("A".into(), "x".into()),
            ("B[1]".into(), "y".into()),
        ]
    );
    assert_eq!(cs[0].program, "cmd");
    assert_eq!(cs[0].args, strings(&["X=2"]));
    let cs = cmds("\"FOO\"=1 cmd");
    assert_eq!(cs[0].program, "FOO=1");
    let cs = cmds("a=(1 2 3)");
    assert_eq!(cs[0].assignments, vec![("a".into(), "(1 2 3)".into())]);
}

#[test]
fn fork_bomb() {
    let cs = cmds(":(){ :|:& };:");
    assert!(cs.iter().all(|c| c.program == ":"));
    assert_eq!(cs.len(), 5);
    assert_eq!(cs[0].via, strings(&[":()"]));
    assert!(cs[2].via.is_empty());
    assert_eq!(cs[3].via, strings(&[":"]));
}

#[test]
fn offsets() {
    let cs = cmds("ls; rm x");
    assert_eq!(cs[0].offset, 0);
    assert_eq!(cs[1].offset, 4);
    let cs = cmds("echo a && sudo bash -c 'rm x'");
    assert_eq!(find(&cs, "rm").offset, 10);
}

#[test]
fn error_offsets_map_into_outer_script() {
    // heredoc bodies are verbatim slices: exact offsets
    let e = parse("bash <<EOF\nls '\nEOF").unwrap_err();
    assert_eq!(e.offset, 14);
    // derived strings point at the command and mention the inner offset
    let e = parse("echo hi; bash -c \"echo 'x\"").unwrap_err();
    assert_eq!(e.offset, 9);
    assert!(e.message.contains("bash -c"), "{e}");
}

#[test]
fn offsets_of_heredoc_commands_are_exact() {
    let cs = cmds("ls\nbash <<EOF\necho hi\nrm x\nEOF");
    assert_eq!(find(&cs, "rm").offset, 22);
    assert_eq!(find(&cs, "bash").offset, 3);
}

/// A here-document without its delimiter line ends at the end of the input,
/// as bash and dash read it (with a warning), and its body runs.
#[test]
fn heredoc_without_delimiter_line_ends_at_the_end() {
    let cs = cmds("bash <<EOF\nrm -rf ~");
    assert_eq!(find(&cs, "rm").args, strings(&["-rf", "~"]));
    let cs = cmds("cat <<EOF");
    assert_eq!(cs[0].program, "cat");
    // Inside `$( )` the body takes the `)` too, as in bash: unparsable.
    assert!(parse("x=$(cat <<EOF\nhi\n)").is_err());
}

/// `coproc` runs its command in the background, named or not, compound or
/// simple; its commands are reported.
#[test]
fn coprocesses() {
    for script in [
        "coproc rm -rf x",
        "coproc { rm -rf x; }",
        "coproc NAME { rm -rf x; }",
        "coproc w ( rm -rf x )",
        "coproc while true; do rm -rf x; done",
    ] {
        let cs = cmds(script);
        let rm = find(&cs, "rm");
        assert_eq!(rm.args, strings(&["-rf", "x"]), "{script}");
        assert_eq!(rm.background_jobs.min(1), 1, "{script}: a background job");
    }
    // The name is only a name before a compound command.
    assert_eq!(cmds("coproc cat file")[0].program, "cat");
}

#[test]
fn brace_expansion_in_args() {
    let cs = cmds("cat ~/.ssh/{id_rsa,config} \"{a,b}\" ${x,,}");
    assert_eq!(
        cs[0].args,
        strings(&["~/.ssh/id_rsa", "~/.ssh/config", "{a,b}", "${x,,}"])
    );
    let cs = cmds("{rm,-rf,/}");
    assert_eq!(cs[0].args, strings(&["-rf", "/"]));
}

/// (script, program, where the code it runs comes from): known data inside
/// code is not unknown code; code that decides at run time what runs is.
const CODE_SOURCES: &[(&str, &str, Option<Code>)] = &[
    ("bash -c \"$X\"", "bash", Some(Code::Dynamic)),
    ("zsh -c \"echo $ZSH_VERSION\"", "zsh", Some(Code::Inline)),
    ("bash -c \"cd $DIR && make\"", "bash", Some(Code::Inline)),
    ("eval \"$CMD\"", "eval", Some(Code::Dynamic)),
    ("eval echo ~", "eval", Some(Code::Inline)),
    ("bash <<< \"$CMD\"", "bash", Some(Code::Dynamic)),
    ("bash <<< 'ls -la'", "bash", Some(Code::Inline)),
    // xargs' input is code: unknown from a file, known from a here-string.
    (
        "xargs -I{} sh -c '{}' < cmds.txt",
        "sh",
        Some(Code::Dynamic),
    ),
    ("xargs -I{} sh -c '{}' <<< x", "sh", Some(Code::Inline)),
    (
        "ls | xargs -I{} sh -c 'cd {} && make'",
        "sh",
        Some(Code::Inline),
    ),
    ("cat scripts/setup.sh | bash", "bash", Some(Code::File)),
    ("cat \"$F\" | bash", "bash", Some(Code::Dynamic)),
    ("cat | bash", "bash", Some(Code::Dynamic)),
    ("gunzip -c x.gz | sh", "sh", Some(Code::Dynamic)),
    ("source ~/.bashrc", "source", Some(Code::File)),
    (
        "source \"$VENV/bin/activate\"",
        "source",
        Some(Code::Dynamic),
    ),
    ("tee f <<< 'ls' && bash f", "bash", Some(Code::Written)),
    // what a producer prints, with the values the shell put into it
    ("source <(echo rm -rf ~)", "source", Some(Code::Inline)),
    ("bash < <(echo ls)", "bash", Some(Code::Inline)),
    ("bash <<< \"$(echo ls)\"", "bash", Some(Code::Inline)),
    (
        "echo ls ~ | tee f >/dev/null; sh f",
        "sh",
        Some(Code::Written),
    ),
    ("echo \"rm -rf '$HOME'\" | sh", "sh", Some(Code::Dynamic)),
    ("source <(echo \"$X\")", "source", Some(Code::Dynamic)),
    // makefiles: from a process substitution, written, downloaded, on disk
    (
        "make -f <(printf 'a:\\n\\tls\\n')",
        "make",
        Some(Code::Inline),
    ),
    (
        "printf 'a:\\n\\tls\\n' > m; make -f m",
        "make",
        Some(Code::Inline),
    ),
    ("make -f <(curl -s x)", "make", Some(Code::Dynamic)),
    ("make -f Makefile.ci test", "make", None),
    ("make", "make", None),
];

/// (script, program, its operands as the analysis knows them), for the
/// commands a producer's text runs.
const EMITTED: &[(&str, &str, &[&str])] = &[
    ("source <(echo rm -rf ~)", "rm", &["$HOME"]),
    ("printf 'rm -rf %s/x' \"$HOME\" | sh", "rm", &["$HOME/x"]),
    ("bash <<< $(echo rm -rf /tmp/a)", "rm", &["/tmp/a"]),
    (
        "make -f <(printf 'a:\\n\\t@rm -rf $$HOME/b\\n')",
        "rm",
        &["$HOME/b"],
    ),
    ("env -S 'rm -rf ${HOME}/c'", "rm", &["$HOME/c"]),
];

#[test]
fn emitted_text_keeps_the_shell_values() {
    for (script, program, want) in EMITTED {
        let cs = cmds(script);
        let c = find(&cs, program);
        let got: Vec<String> = c.operand_values.iter().map(|v| v.to_string()).collect();
        assert_eq!(got, strings(want), "{script}");
    }
}

#[test]
fn code_sources() {
    for (script, program, want) in CODE_SOURCES {
        let cs = cmds(script);
        let c = find(&cs, program);
        assert_eq!(c.code, *want, "{script}");
    }
}

/// (script, program, its operands as the analysis knows them)
const KNOWN_VALUES: &[(&str, &str, &[&str])] = &[
    // `${X:?}` is X (or nothing runs)
    ("rm -rf \"${HOME:?}\"", "rm", &["$HOME"]),
    ("X=dist; rm -rf \"${X:?}/\"", "rm", &["dist/"]),
    // IFS set by the command splits unquoted expansions
    ("IFS=_; c=\"rm_-rf_/tmp/x\"; $c", "rm", &["/tmp/x"]),
    ("IFS=,; set -- a,b; echo $1", "echo", &["a", "b"]),
    // a prefix assignment does not reach the words of its own command
    ("X=a rm -rf \"$X\"", "rm", &["$X"]),
];

#[test]
fn known_values() {
    for (script, program, want) in KNOWN_VALUES {
        let cs = cmds(script);
        let c = find(&cs, program);
        let got: Vec<String> = c.operand_values.iter().map(|v| v.to_string()).collect();
        assert_eq!(got, strings(want), "{script}");
    }
}

#[test]
fn shell_variable_is_a_shell() {
    let cs = cmds("$SHELL -c 'rm -rf /tmp/x'");
    let rm = find(&cs, "rm");
    assert_eq!(rm.via, strings(&["sh -c"]));
}

#[test]
fn short_flags_stop_at_a_value() {
    let cs = cmds("make -j\"$(nproc)\" -C build");
    let make = find(&cs, "make");
    assert_eq!(make.flags, strings(&["-j", "-C"]));
}

/// (script, the `via` of the `rm` an option's shell code runs)
const OPTION_CODE: &[(&str, &str)] = &[
    ("script -qc 'rm -rf x' /dev/null", "script -c"),
    ("script --command='rm -rf x' log", "script --command"),
    ("git -c alias.x='!rm -rf x' x", "git -c alias.x"),
    (
        "git -c core.sshCommand='rm -rf x' fetch",
        "git -c core.sshCommand",
    ),
    ("ssh -o ProxyCommand='rm -rf x' h", "ssh -o ProxyCommand"),
    ("ssh -oProxyCommand='rm -rf x' h", "ssh -o ProxyCommand"),
    ("rsync -e 'rm -rf x' a h:b", "rsync -e"),
    ("rsync --rsh='rm -rf x' a h:b", "rsync --rsh"),
    (
        "tar -cf o.tar a --checkpoint-action=exec='rm -rf x'",
        "tar --checkpoint-action",
    ),
    ("tar -xf a.tar --to-command='rm -rf x'", "tar --to-command"),
    ("zip o.zip a -T -TT 'rm -rf x'", "zip -TT"),
    ("gdb -batch -ex 'shell rm -rf x'", "gdb -ex"),
    ("gdb -ex '!rm -rf x'", "gdb -ex"),
];

#[test]
fn option_code_runs_as_shell() {
    for (script, label) in OPTION_CODE {
        let cs = cmds(script);
        let rm = find(&cs, "rm");
        assert_eq!(rm.via.last().map(String::as_str), Some(*label), "{script}");
    }
    // Options that are not code, and code before the subcommand only.
    for script in [
        "git -c user.name=x commit -m 'rm -rf x'",
        "git commit -c alias.x='!rm -rf x'",
        "ssh -o ProxyJump=bastion h",
        "script -q log.txt",
        "gdb -ex run -ex bt ./app",
        "tar -czf o.tgz --checkpoint-action=dot d",
    ] {
        assert!(cmds(script).iter().all(|c| c.program != "rm"), "{script}");
    }
}

#[test]
fn downloads_and_fifos_are_unknown_files() {
    for script in [
        "curl -fsSLo x.sh https://e.example && ./x.sh",
        "wget -qO ./x.sh https://e.example; ./x.sh",
        "mkfifo /tmp/f; cat /tmp/f | sh",
    ] {
        let cs = cmds(script);
        assert!(
            cs.iter().any(|c| c.code == Some(Code::Dynamic)),
            "{script}: {cs:#?}"
        );
    }
}

/// (script, program, `forks_itself` of its first command reported after the
/// call): a function that starts itself in a new process with nothing
/// guarding the call is a fork bomb; one process, or a base case, is not.
const FORKS_ITSELF: &[(&str, &str, bool)] = &[
    ("g(){ g & g; }; g", "g", true),
    ("f(){ f | f; }; f", "f", true),
    ("w(){ (w &); }; w", "w", true),
    ("a(){ b & }; b(){ a & }; a", "a", true),
    ("f(){ f; }; f", "f", false),
    ("f(){ [ \"$1\" -gt 0 ] && f $(($1-1)) & }; f 3", "f", false),
    ("f(){ f & }", "f", false),
];

#[test]
fn functions_that_fork_themselves() {
    for (script, program, want) in FORKS_ITSELF {
        let cs = cmds(script);
        let got = cs.iter().any(|c| c.program == *program && c.forks_itself);
        assert_eq!(got, *want, "{script}");
    }
}

/// (script, program, how many background jobs of it the loops start)
const BACKGROUND_JOBS: &[(&str, &str, u64)] = &[
    ("sleep 1", "sleep", 0),
    ("sleep 1 &", "sleep", 1),
    ("for i in 1 2 3; do sleep $i & done", "sleep", 3),
    ("for i in {1..100000}; do sleep 1 & done", "sleep", 100_000),
    ("for i in $(seq 2 2 100); do sleep 1 & done", "sleep", 50),
    ("while true; do sleep 1 & done", "sleep", u64::MAX),
    ("until false; do sleep 1 & done", "sleep", u64::MAX),
    ("while true; do sleep 1; done &", "sleep", 1),
    ("while read -r l; do sleep 1 & done < f", "sleep", 1),
    ("for ((;;)); do sleep 1 & done", "sleep", u64::MAX),
    ("for ((i=0; i<=9; i++)); do sleep 1 & done", "sleep", 10),
    ("yes | xargs -P0 sleep", "sleep", u64::MAX),
    ("seq 300 | xargs -P 0 -n1 sleep", "sleep", 300),
    ("seq 300 | xargs -P 4 -n1 sleep", "sleep", 0),
];

#[test]
fn background_jobs_started_by_loops() {
    for (script, program, want) in BACKGROUND_JOBS {
        let cs = cmds(script);
        let c = find(&cs, program);
        assert_eq!(c.background_jobs, *want, "{script}");
    }
}
