//! Knowledge about programs that run other programs: option syntax of
//! wrappers (`sudo`, `env`, `timeout`, …), shells' `-c`, `eval`, `xargs`,
//! `parallel`, `find -exec`. Works on quote-removed words only; program names
//! are compared ASCII-case-insensitively (see `program_is`).

use std::ops::Range;

use super::inline::Lang;
use crate::shell::value::{Piece, Sym};

/// Maximum number of wrappers unwrapped in one command (`sudo env nice …`).
pub const MAX_WRAPPERS: usize = 16;

/// Programs treated as POSIX-like shells (`-c STR`, script on stdin).
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "ash", "mksh", "fish", "rbash", "yash", "posh", "oksh",
    "loksh", "pdksh", "lksh", "ksh93", "osh",
];

/// What running `prog args…` means for the commands inside it.
#[derive(Debug)]
pub(crate) enum Action {
    /// Runs nothing we can see.
    None,
    /// Runs `args[skip..]` as a command, with extra environment assignments.
    Exec {
        skip: usize,
        assigns: Vec<(String, String)>,
    },
    /// Runs `words` as a command (the argument list was rewritten, `env -S`):
    /// each is an argument of the wrapper (`Ok(index)`, which keeps what the
    /// shell made of it, `~` included) or a word split from a string (`Err`).
    Replace {
        words: Vec<Result<usize, String>>,
        assigns: Vec<(String, String)>,
    },
    /// [`Action::Replace`] in another folder (`env -C DIR CMD`): `dir` is the
    /// folder's word, as `words` holds them.
    ReplaceIn {
        words: Vec<Result<usize, String>>,
        assigns: Vec<(String, String)>,
        dir: Result<usize, String>,
    },
    /// Runs `text` as a shell script; `label` goes into `via`. `from`: the
    /// arguments the text is made of; `positional`: the index of `$0` (the
    /// arguments after a `sh -c` string).
    Script {
        text: String,
        label: String,
        from: Range<usize>,
        positional: Option<usize>,
    },
    /// A shell reading its script from stdin.
    Stdin,
    /// A shell running a script file (`bash x.sh`, `source x.sh`): the index of
    /// the file's argument.
    File(usize),
    /// `find … -exec CMD … ;`: each command's arguments, with its `via` label.
    Find(Vec<(String, Range<usize>)>),
    /// `xargs [opts] CMD…`: runs `args[skip..]` with operands read from input
    /// (or with the `-I` string replaced by them).
    Xargs {
        skip: usize,
        replace: Option<String>,
        /// How it splits its input into operands.
        split: XargsSplit,
    },
    /// `parallel [opts] CMD… ::: inputs`: the command's arguments and the
    /// indexes of the inputs (`None`: read from input).
    Parallel {
        cmd: Range<usize>,
        inputs: Option<Vec<usize>>,
    },
    /// Runs `args[cmd…]` in a container (`docker run`): its paths are mapped
    /// back through the bind mounts (see `container`).
    Container {
        cmd: Vec<usize>,
        mounts: Vec<super::container::MountArg>,
        /// The `-w` argument, and where its value starts.
        workdir: Option<(usize, usize)>,
        privileged: bool,
    },
    /// Refuse: the input is pathological.
    Error(String),
}

/// How `xargs` cuts its input into operands (GNU xargs(1)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum XargsSplit {
    /// At blanks and newlines; quotes and backslashes group (the default).
    Blanks,
    /// One operand per line, leading blanks dropped (`-I`).
    Lines,
    /// At one character (`-0`, `-d C`); quotes are plain text.
    Delimiter(char),
    /// From a file (`-a F`), or a delimiter it does not know: not its standard
    /// input.
    NotStdin,
}

/// The most operands known input may give `xargs` before it counts as
/// unknown (each is judged; the alternatives of a `-I` word multiply).
const XARGS_ITEMS: usize = 64;

/// The operands `xargs` reads from a printed value (`printf '%s\0' ~`):
/// split in its text as [`xargs_items`] splits text, the places it names
/// (home, the project) and its patterns kept whole inside the operand they
/// fall in; `None` as there, or when part of it is unknown. A pattern the
/// shell expanded for the printer (`printf '%s\0' ~/*`, `echo src/*.o`)
/// stands for the names it matches: xargs hands them on, so the command
/// gets the pattern's names, as if written with the pattern (`rm -rf ~/*`).
pub(crate) fn xargs_values(v: &Sym, split: XargsSplit) -> Option<Vec<Sym>> {
    // Each named place stands in the text as one private-use character
    // (plane 15), which no split separates.
    const BASE: u32 = 0xF_0000;
    let mut text = String::new();
    let mut places: Vec<Piece> = Vec::new();
    for p in &v.0 {
        match p {
            Piece::Text(t) if !t.chars().any(|c| (c as u32) >= BASE) => text.push_str(t),
            Piece::Home
            | Piece::HomeOf(_)
            | Piece::Start
            | Piece::Project
            | Piece::TempRoot
            | Piece::Below
            | Piece::Glob(_) => {
                text.push(char::from_u32(BASE + u32::try_from(places.len()).ok()?)?);
                places.push(p.clone());
            }
            _ => return None,
        }
    }
    let items = xargs_items(&text, split)?;
    Some(
        items
            .iter()
            .map(|item| {
                let mut s = Sym::default();
                let mut lit = String::new();
                for c in item.chars() {
                    let at = (c as u32)
                        .checked_sub(BASE)
                        .and_then(|i| usize::try_from(i).ok());
                    match at.and_then(|i| places.get(i)) {
                        Some(p) => {
                            if !lit.is_empty() {
                                s.push(Piece::Text(std::mem::take(&mut lit)));
                            }
                            s.push(p.clone());
                        }
                        None => lit.push(c),
                    }
                }
                if !lit.is_empty() {
                    s.push(Piece::Text(lit));
                }
                s
            })
            .collect(),
    )
}

/// The operands `xargs` reads from `text`, split as `split` says; `None` when
/// they cannot be told (a quote left open, input from a file, too many).
pub(crate) fn xargs_items(text: &str, split: XargsSplit) -> Option<Vec<String>> {
    let items: Vec<String> = match split {
        XargsSplit::NotStdin => return None,
        XargsSplit::Delimiter(d) => text
            .split(d)
            .filter(|t| !t.is_empty())
            .map(str::to_string)
            .collect(),
        XargsSplit::Lines => {
            let mut v = Vec::new();
            for line in text.lines() {
                let line = line.trim_start_matches([' ', '\t']);
                // Quotes and backslashes are still processed: read as unknown.
                if line.contains(['\'', '"', '\\']) {
                    return None;
                }
                if !line.is_empty() {
                    v.push(line.to_string());
                }
            }
            v
        }
        XargsSplit::Blanks => {
            let mut v = Vec::new();
            let mut cur: Option<String> = None;
            let mut chars = text.chars();
            while let Some(c) = chars.next() {
                match c {
                    ' ' | '\t' | '\n' => v.extend(cur.take()),
                    '\'' | '"' => {
                        let s = cur.get_or_insert_with(String::new);
                        loop {
                            match chars.next() {
                                Some(q) if q == c => break,
                                // xargs: unmatched quote (a newline ends it)
                                Some('\n') | None => return None,
                                Some(x) => s.push(x),
                            }
                        }
                    }
                    '\\' => cur.get_or_insert_with(String::new).push(chars.next()?),
                    _ => cur.get_or_insert_with(String::new).push(c),
                }
            }
            v.extend(cur);
            v
        }
    };
    (items.len() <= XARGS_ITEMS).then_some(items)
}

/// The character of `xargs -d`: itself, or a C escape (`\n`, `\t`, `\0`,
/// `\\`, `\xHH`, `\NNN` octal).
fn xargs_delimiter(d: &str) -> Option<char> {
    let mut cs = d.chars();
    let first = cs.next()?;
    if first != '\\' {
        return cs.next().is_none().then_some(first);
    }
    let rest: String = cs.collect();
    let code = match rest.as_str() {
        "n" => 10,
        "t" => 9,
        "r" => 13,
        "a" => 7,
        "b" => 8,
        "f" => 12,
        "v" => 11,
        "\\" => 92,
        "" => return Some('\\'),
        r => match r.strip_prefix('x') {
            Some(h) => u32::from_str_radix(h, 16).ok()?,
            None => u32::from_str_radix(r, 8).ok()?,
        },
    };
    char::from_u32(code)
}

/// Options parsed getopt-style up to the first operand.
#[derive(Default)]
struct Opts {
    /// Index of the first operand (or `args.len()`).
    next: usize,
    shorts: Vec<char>,
    longs: Vec<String>,
    values: Vec<(String, String)>,
}

impl Opts {
    fn has(&self, chars: &str) -> bool {
        self.shorts.iter().any(|c| chars.contains(*c))
    }

    fn has_long(&self, names: &[&str]) -> bool {
        self.longs.iter().any(|l| names.contains(&l.as_str()))
    }

    fn value(&self, names: &[&str]) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| names.contains(&n.as_str()))
            .map(|(_, v)| v.as_str())
    }
}

/// Skip options: short options in `short_val` and long options in
/// `long_val` take a value (attached or as the next argument).
fn opts(args: &[String], short_val: &str, long_val: &[&str]) -> Opts {
    let mut o = Opts::default();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            match long.split_once('=') {
                Some((n, v)) => {
                    o.longs.push(n.to_string());
                    o.values.push((n.to_string(), v.to_string()));
                    i += 1;
                }
                None => {
                    o.longs.push(long.to_string());
                    if long_val.contains(&long) {
                        if let Some(v) = args.get(i + 1) {
                            o.values.push((long.to_string(), v.clone()));
                        }
                        i += 2;
                    } else {
                        i += 1;
                    }
                }
            }
            continue;
        }
        if let Some(body) = a.strip_prefix('-').filter(|b| !b.is_empty()) {
            i += 1;
            for (k, ch) in body.char_indices() {
                o.shorts.push(ch);
                if short_val.contains(ch) {
                    let rest = body.get(k + ch.len_utf8()..).unwrap_or_default();
                    if rest.is_empty() {
                        if let Some(v) = args.get(i) {
                            o.values.push((ch.to_string(), v.clone()));
                        }
                        i += 1;
                    } else {
                        o.values.push((ch.to_string(), rest.to_string()));
                    }
                    break;
                }
            }
            continue;
        }
        break;
    }
    o.next = i.min(args.len());
    o
}

/// `NAME=value` as accepted by `env`/`sudo` (anything with a non-leading `=`).
pub(crate) fn split_assign(s: &str) -> Option<(String, String)> {
    match s.split_once('=') {
        Some((n, v)) if !n.is_empty() => Some((n.to_string(), v.to_string())),
        _ => None,
    }
}

fn exec(args: &[String], skip: usize) -> Action {
    if skip < args.len() {
        Action::Exec {
            skip,
            assigns: Vec::new(),
        }
    } else {
        Action::None
    }
}

/// The `find` actions that run a command up to `;` (or `{} +`).
pub(crate) const FIND_EXEC: &[&str] = &["-exec", "-execdir", "-ok", "-okdir"];

/// Index of the `;` / `+` ending a `find -exec` command that starts at `start`
/// (or `args.len()`).
pub(crate) fn find_exec_end(args: &[String], start: usize) -> usize {
    let mut i = start;
    while let Some(w) = args.get(i) {
        if w == ";" || (w == "+" && i > start && args.get(i - 1).is_some_and(|p| p == "{}")) {
            break;
        }
        i += 1;
    }
    i
}

/// A program that runs the rest of its arguments as a command after a
/// subcommand and its options (`uv run rm …`, `bundle exec rm …`).
struct Runner {
    program: &'static str,
    /// The word before the options (`run`, `exec`); `""`: none (`env-cmd -f
    /// .env CMD`).
    sub: &'static str,
    /// Its short and long options that take a value (`uv run --env-file
    /// .env CMD`), so the value is not taken for the command.
    short_val: &'static str,
    long_val: &'static [&'static str],
    /// Operands before the command (`direnv exec DIR CMD`).
    operands: usize,
}

const fn runner(program: &'static str, sub: &'static str) -> Runner {
    Runner {
        program,
        sub,
        short_val: "",
        long_val: &[],
        operands: 0,
    }
}

/// The runners, among them those that load a secret file or a secret
/// manager's values into the command's environment (`direnv exec . CMD`,
/// `dotenv run CMD`, `dotenvx run -f .env -- CMD`, `env-cmd -f .env CMD`): the
/// command is judged as itself, so `direnv exec . env` prints the
/// environment they loaded.
const RUNNERS: &[Runner] = &[
    Runner {
        short_val: "pw",
        long_val: &[
            "env-file",
            "with",
            "with-requirements",
            "with-editable",
            "python",
            "project",
            "directory",
            "package",
            "extra",
            "group",
            "index",
            "index-url",
            "extra-index-url",
        ],
        ..runner("uv", "run")
    },
    runner("poetry", "run"),
    runner("pipenv", "run"),
    runner("bundle", "exec"),
    runner("pnpm", "exec"),
    runner("pnpm", "dlx"),
    runner("yarn", "exec"),
    runner("yarn", "dlx"),
    runner("npm", "exec"),
    // (cause from redteam5: `conda run -n base CMD` took `base` for the command)
    Runner {
        short_val: "np",
        long_val: &["name", "prefix", "cwd"],
        ..runner("conda", "run")
    },
    Runner {
        short_val: "np",
        long_val: &["name", "prefix", "cwd"],
        ..runner("mamba", "run")
    },
    Runner {
        short_val: "np",
        long_val: &["name", "prefix", "cwd"],
        ..runner("micromamba", "run")
    },
    runner("mise", "exec"),
    runner("rtx", "exec"),
    runner("asdf", "exec"),
    runner("pixi", "exec"),
    runner("hatch", "run"),
    runner("pdm", "run"),
    runner("rye", "run"),
    runner("devbox", "run"),
    runner("volta", "run"),
    runner("rbenv", "exec"),
    runner("pyenv", "exec"),
    runner("nodenv", "exec"),
    runner("goenv", "exec"),
    runner("jenv", "exec"),
    Runner {
        operands: 1,
        ..runner("direnv", "exec")
    },
    // python-dotenv (`dotenv -f .env run CMD`)
    runner("dotenv", "run"),
    Runner {
        short_val: "fe",
        long_val: &["env-file", "env", "env-keys-file", "convention"],
        ..runner("dotenvx", "run")
    },
    Runner {
        short_val: "fer",
        long_val: &["file", "environments", "rc-file"],
        ..runner("env-cmd", "")
    },
];

/// Front ends that hand their own arguments to another program: a colouring
/// wrapper (`kubecolor delete ns prod` runs `kubectl delete ns prod`), a
/// distribution's bundled client (`k3s kubectl …`, `microk8s kubectl …`) or a
/// wrapper that passes what it does not know to git (`hub reset --hard`). The
/// command is judged as the program it runs. Each: the front end, the
/// subcommand that runs the program (empty: the front end's whole argument
/// list), the program run.
const FRONT_ENDS: &[(&str, &str, &str)] = &[
    ("kubecolor", "", "kubectl"),
    ("microk8s.kubectl", "", "kubectl"),
    ("microk8s", "kubectl", "kubectl"),
    ("k3s", "kubectl", "kubectl"),
    ("k0s", "kubectl", "kubectl"),
    ("hub", "", "git"),
];

/// The program a versioned name installs side by side with its other
/// versions (`kubectl1.29`, `kubectl-1.30`, `kubectl_v1.28.3`, `terraform_1.5.7`,
/// `psql-15`, `python3.11`): the name before a version that follows a `-` or
/// `_`, or that has a dot (`helm3`, `sqlite3`, `base64`, `md5sum` are names of
/// their own). `None` for any other name.
fn unversioned(prog: &str) -> Option<&str> {
    let digits_from = prog
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.')
        .len();
    let version = &prog[digits_from..];
    if version.is_empty() || version.starts_with('.') || version.ends_with('.') {
        return None;
    }
    let head = &prog[..digits_from];
    let (base, separated) = match head.strip_suffix('v').filter(|h| h.ends_with(['-', '_'])) {
        Some(h) => (&h[..h.len() - 1], true),
        None => match head.strip_suffix(['-', '_']) {
            Some(h) => (h, true),
            None => (head, false),
        },
    };
    let is_name = base.len() >= 2
        && base.starts_with(|c: char| c.is_ascii_alphabetic())
        && base.ends_with(|c: char| c.is_ascii_alphabetic())
        && base
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    (is_name && (separated || version.contains('.'))).then_some(base)
}

/// Classify `prog` (a basename, any letter case) called with `args`.
pub(crate) fn classify(prog: &str, args: &[String]) -> Action {
    let lower = prog.to_ascii_lowercase();
    let prog = lower.as_str();
    if let Some(base) = unversioned(prog) {
        return Action::Replace {
            words: std::iter::once(Err(base.to_string()))
                .chain((0..args.len()).map(Ok))
                .collect(),
            assigns: Vec::new(),
        };
    }
    if let Some((_, sub, runs)) = FRONT_ENDS.iter().find(|(p, sub, _)| {
        *p == prog && (sub.is_empty() || args.first().is_some_and(|a| a == sub))
    }) {
        let from = usize::from(!sub.is_empty());
        return if from < args.len() {
            Action::Replace {
                words: std::iter::once(Err((*runs).to_string()))
                    .chain((from..args.len()).map(Ok))
                    .collect(),
                assigns: Vec::new(),
            }
        } else {
            Action::None
        };
    }
    if RUNNERS.iter().any(|r| r.program == prog) {
        // (A program with several runner subcommands, `pnpm exec` and `pnpm
        // dlx`: the one its arguments hold.)
        let found = RUNNERS.iter().filter(|r| r.program == prog).find_map(|r| {
            if r.sub.is_empty() {
                Some((r, 0))
            } else {
                args.iter().position(|a| a == r.sub).map(|k| (r, k + 1))
            }
        });
        return match found {
            Some((r, k)) => {
                let rest = args.get(k..).unwrap_or_default();
                exec(
                    args,
                    k + opts(rest, r.short_val, r.long_val).next + r.operands,
                )
            }
            // dotenv-cli (`dotenv -e .env -- CMD`): the command after `--`.
            None if prog == "dotenv" => match args.iter().position(|a| a == "--") {
                Some(k) => exec(args, k + 1),
                None => Action::None,
            },
            None => Action::None,
        };
    }
    // Containers, pods and machines that run a command (`kubectl exec POD --
    // CMD`, `docker exec C CMD`, `vagrant ssh -c TEXT`).
    if let Some(action) = super::remote::classify(prog, args) {
        return action;
    }
    match prog {
        "sudo" => {
            let o = opts(
                args,
                "ugCDhprtTRU",
                &[
                    "user",
                    "group",
                    "close-from",
                    "chdir",
                    "host",
                    "prompt",
                    "role",
                    "type",
                    "command-timeout",
                    "chroot",
                    "other-user",
                ],
            );
            if o.has("elvVK") || o.has_long(&["edit", "list", "validate", "version", "help"]) {
                return Action::None;
            }
            let mut i = o.next;
            let mut assigns = Vec::new();
            while let Some(kv) = args.get(i).and_then(|a| split_assign(a)) {
                assigns.push(kv);
                i += 1;
            }
            if i < args.len() {
                Action::Exec { skip: i, assigns }
            } else {
                Action::None
            }
        }
        "doas" => {
            let o = opts(args, "uC", &[]);
            if o.has("C") {
                Action::None
            } else {
                exec(args, o.next)
            }
        }
        "env" => env(args),
        "nohup" | "builtin" | "setsid" | "pkexec" => exec(args, opts(args, "", &["user"]).next),
        // Multi-call binaries: the first word is the applet.
        "busybox" | "toybox" => match args.first() {
            Some(a) if !a.starts_with('-') => exec(args, 0),
            _ => Action::None,
        },
        // GNU coreutils built as one binary: `coreutils --coreutils-prog=rm …`.
        "coreutils" => match args
            .first()
            .and_then(|a| a.strip_prefix("--coreutils-prog="))
        {
            Some(applet) => Action::Replace {
                words: std::iter::once(Err(applet.to_string()))
                    .chain((1..args.len()).map(Ok))
                    .collect(),
                assigns: Vec::new(),
            },
            None => match args.first() {
                Some(a) if !a.starts_with('-') => exec(args, 0),
                _ => Action::None,
            },
        },
        "time" => exec(args, opts(args, "fo", &["format", "output"]).next),
        "nice" => exec(args, opts(args, "n", &["adjustment"]).next),
        "ionice" => {
            let o = opts(args, "cnpPu", &["class", "classdata", "pid", "pgid", "uid"]);
            if o.has("pPu") || o.has_long(&["pid", "pgid", "uid"]) {
                Action::None
            } else {
                exec(args, o.next)
            }
        }
        "timeout" => exec(args, opts(args, "sk", &["signal", "kill-after"]).next + 1),
        "command" => {
            let o = opts(args, "", &[]);
            if o.has("vV") {
                Action::None
            } else {
                exec(args, o.next)
            }
        }
        "exec" => exec_builtin(args),
        "stdbuf" => exec(args, opts(args, "ioe", &["input", "output", "error"]).next),
        "chroot" => exec(args, opts(args, "", &["userspec", "groups"]).next + 1),
        "flock" => flock(args),
        "watch" => {
            let o = opts(args, "nq", &["interval", "equexit"]);
            if o.next >= args.len() {
                Action::None
            } else if o.has("x") || o.has_long(&["exec"]) {
                exec(args, o.next)
            } else {
                Action::Script {
                    text: args.get(o.next..).unwrap_or_default().join(" "),
                    label: "watch".to_string(),
                    from: o.next..args.len(),
                    positional: None,
                }
            }
        }
        "strace" => exec(
            args,
            opts(
                args,
                "abeEIoOpPsSuX",
                &[
                    "output",
                    "attach",
                    "user",
                    "env",
                    "string-limit",
                    "trace",
                    "signal",
                    "status",
                ],
            )
            .next,
        ),
        "ltrace" => exec(
            args,
            opts(args, "aADeFlnopsuwx", &["output", "library", "config"]).next,
        ),
        "xargs" => {
            // `-i[R]` and `--replace[=R]` take their value only attached
            // (`xargs -i rm {}` runs rm).
            let o = opts(
                args,
                "IdaELnPs",
                &[
                    "arg-file",
                    "delimiter",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "process-slot-var",
                ],
            );
            let attached_i = args[..o.next]
                .iter()
                .find_map(|a| a.strip_prefix("-i").filter(|r| !r.is_empty()));
            let replace = o
                .value(&["I", "replace"])
                .or(attached_i)
                .map(str::to_string)
                .or_else(|| (o.has("i") || o.has_long(&["replace"])).then(|| "{}".to_string()));
            let split = if o.value(&["a", "arg-file"]).is_some() {
                XargsSplit::NotStdin
            } else if o.has("0") || o.has_long(&["null"]) {
                XargsSplit::Delimiter('\0')
            } else if let Some(d) = o.value(&["d", "delimiter"]) {
                xargs_delimiter(d).map_or(XargsSplit::NotStdin, XargsSplit::Delimiter)
            } else if replace.is_some() {
                XargsSplit::Lines
            } else {
                XargsSplit::Blanks
            };
            if o.next < args.len() {
                Action::Xargs {
                    skip: o.next,
                    replace,
                    split,
                }
            } else {
                Action::None
            }
        }
        "parallel" => parallel(args),
        "docker" | "podman" | "nerdctl" | "docker-compose" | "podman-compose" => {
            super::container::run(args).unwrap_or(Action::None)
        }
        "find" => find(args),
        "fd" | "fdfind" => fd(args),
        // fakeroot(1): `-l LIB`/`--lib LIB`, `--faked BIN`, `-s FILE`, `-i FILE`
        // and `-b FD` take a value; `-u` (`--unknown-is-real`) takes none.
        "fakeroot" => exec(args, opts(args, "lsib", &["lib", "faked"]).next),
        // Each wrapper's own options that take a value: unbuffer(1) has none
        // (`-p` reads the pipeline), caffeinate(8) `-t SECONDS` and `-w PID`,
        // proxychains `-f FILE` (`-q` is quiet), torsocks(1) `-u`, `-p`,
        // `-a`, `-P` and their long names.
        "unbuffer" | "catchsegv" => exec(args, opts(args, "", &[]).next),
        "caffeinate" => exec(args, opts(args, "tw", &[]).next),
        "proxychains" | "proxychains4" => exec(args, opts(args, "f", &[]).next),
        "torsocks" => exec(
            args,
            opts(args, "upaP", &["user", "pass", "address", "port"]).next,
        ),
        "dbus-run-session" | "firejail" | "npx" | "bunx" | "pnpx" | "uvx" => exec(
            args,
            opts(
                args,
                "wupP",
                &[
                    "unit", "property", "package", "user", "profile", "from", "uid",
                ],
            )
            .next,
        ),
        "taskset" | "chrt" => {
            let o = opts(args, "", &[]);
            if o.has("p") || o.has_long(&["pid"]) {
                Action::None
            } else {
                // The mask or priority comes first.
                exec(args, o.next + 1)
            }
        }
        "numactl" | "cpulimit" => {
            let o = opts(args, "lCpmN", &["limit", "physcpubind", "membind", "pid"]);
            exec(args, o.next)
        }
        // `sg GROUP [-c] COMMAND`: shadow's sg hands COMMAND to `/bin/sh -c`
        // (cause from redteam5: it was read as one program's name).
        "sg" => match args {
            [_, c, text, ..] if c == "-c" => script_from(args, text, "sg -c"),
            [_, text, ..] => script_from(args, text, "sg"),
            _ => Action::None,
        },
        "source" | "." => match args.first() {
            Some(_) => Action::File(0),
            None => Action::None,
        },
        "su" | "runuser" => su(prog, args),
        "ssh" => ssh(args),
        "eval" if !args.is_empty() => Action::Script {
            text: args.join(" "),
            label: "eval".to_string(),
            from: 0..args.len(),
            positional: None,
        },
        "trap" => {
            let a = match args.first().map(String::as_str) {
                Some("--") => args.get(1..).unwrap_or_default(),
                _ => args,
            };
            match a {
                [cmd, _signal, ..] if !cmd.starts_with('-') => script_from(args, cmd, "trap"),
                _ => Action::None,
            }
        }
        _ if SHELLS.contains(&prog) => shell(prog, args),
        _ => Action::None,
    }
}

/// bash's `exec [-cl] [-a NAME] CMD…`: runs CMD in place of the shell. A
/// multi-call binary (busybox, toybox) runs the applet its `argv[0]` names, so
/// `exec -a rm busybox -rf ~` is `rm -rf ~`.
fn exec_builtin(args: &[String]) -> Action {
    let o = opts(args, "a", &[]);
    let Some(prog) = args.get(o.next) else {
        return Action::None;
    };
    let multi_call = matches!(
        super::basename(prog).to_ascii_lowercase().as_str(),
        "busybox" | "toybox"
    );
    match args.iter().position(|a| a == "-a").or_else(|| {
        args.get(..o.next)?
            .iter()
            .position(|a| a.starts_with("-a") && a.len() > 2)
    }) {
        Some(k) if multi_call => {
            // The name: the argument after `-a`, or attached (`-arm`).
            let name = if args[k] == "-a" {
                Ok(k + 1)
            } else {
                Err(args[k][2..].to_string())
            };
            Action::Replace {
                words: std::iter::once(name)
                    .chain((o.next + 1..args.len()).map(Ok))
                    .collect(),
                assigns: Vec::new(),
            }
        }
        _ => exec(args, o.next),
    }
}

/// A script whose text is the (first) argument equal to `text`.
fn script_from(args: &[String], text: &str, label: &str) -> Action {
    let at = args.iter().position(|a| a == text).unwrap_or(0);
    Action::Script {
        text: text.to_string(),
        label: label.to_string(),
        from: at..at + 1,
        positional: None,
    }
}

/// `parallel [opts] [CMD…] (::: args | :::: files)…`.
fn parallel(args: &[String]) -> Action {
    let o = opts(
        args,
        "jaSdIEnNsl",
        &[
            "jobs",
            "arg-file",
            "sshlogin",
            "delimiter",
            "replace",
            "eof",
            "max-args",
            "max-chars",
            "joblog",
            "results",
            "tmpdir",
            "workdir",
        ],
    );
    let seps = [":::", "::::", ":::+", "::::+"];
    let end = args
        .iter()
        .skip(o.next)
        .position(|a| seps.contains(&a.as_str()))
        .map_or(args.len(), |k| k + o.next);
    // No command: each input is a command line (`parallel ::: 'make a'
    // 'make b'`), or, without inputs, each line it reads (`… | parallel`),
    // as `sh` reads them.
    if end <= o.next && end == args.len() {
        return shell("sh", &[]);
    }
    let mut inputs = if end < args.len() {
        Some(Vec::new())
    } else {
        None
    };
    let mut from_files = false;
    for (i, a) in args.iter().enumerate().skip(end) {
        if seps.contains(&a.as_str()) {
            from_files = a.starts_with("::::");
        } else if from_files {
            inputs = None;
            break;
        } else if let Some(v) = inputs.as_mut() {
            v.push(i);
        }
    }
    Action::Parallel {
        cmd: o.next..end,
        inputs,
    }
}

/// `sh [opts] -c STR [arg0 args…]`, `sh [-s] < script`, `sh file`.
fn shell(prog: &str, args: &[String]) -> Action {
    let (mut c, mut s) = (false, false);
    let mut i = 0;
    while let Some(a) = args.get(i) {
        if a == "--" || a == "-" {
            i += 1;
            break;
        }
        if let Some(long) = a.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        let body = match a.strip_prefix('-').or_else(|| a.strip_prefix('+')) {
            Some(b) if !b.is_empty() => b,
            _ => break,
        };
        i += 1;
        for ch in body.chars() {
            match ch {
                'c' => c = true,
                's' => s = true,
                'o' | 'O' => i += 1,
                _ => {}
            }
        }
    }
    let operands = args.get(i..).unwrap_or_default();
    if c {
        match operands.first() {
            Some(text) => Action::Script {
                text: text.clone(),
                label: format!("{prog} -c"),
                from: i..i + 1,
                positional: Some(i + 1),
            },
            None => Action::None,
        }
    } else if operands.is_empty() || s {
        Action::Stdin
    } else {
        Action::File(i)
    }
}

/// The argument that is the command text of a shell run with `-c` (`bash -c
/// TEXT`, `sh -ec TEXT`, `bash -o pipefail -c TEXT`): code, read as the
/// commands it holds, never a file the shell opens.
pub(crate) fn shell_text_arg(prog: &str, args: &[String]) -> Option<usize> {
    if !SHELLS.contains(&prog) {
        return None;
    }
    match shell(prog, args) {
        Action::Script { from, .. } => Some(from.start),
        _ => None,
    }
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… [COMMAND [ARG]…]`.
fn env(args: &[String]) -> Action {
    // Where each word comes from: the wrapper's own argument, or a string split.
    let mut origin: Vec<Result<usize, String>> = (0..args.len()).map(Ok).collect();
    let mut args = args.to_vec();
    let mut i = 0;
    let mut splits = 0;
    // `-C DIR`, `--chdir=DIR`: the folder the command runs in.
    let mut dir: Option<Result<usize, String>> = None;
    'outer: while let Some(a) = args.get(i).cloned() {
        if a == "--" {
            i += 1;
            break;
        }
        if a == "-" {
            i += 1;
            continue;
        }
        // `-S STRING` / `--split-string=STRING`: split and re-process in place.
        let mut split: Option<(String, usize)> = None;
        if let Some(long) = a.strip_prefix("--") {
            let (name, val) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            if name == "split-string" {
                split = match val {
                    Some(v) => Some((v, 1)),
                    None => args.get(i + 1).map(|v| (v.clone(), 2)),
                };
                if split.is_none() {
                    return Action::None;
                }
            } else {
                if name == "chdir" {
                    dir = match &val {
                        Some(v) => Some(Err(v.clone())),
                        None => origin.get(i + 1).cloned(),
                    };
                }
                i += if val.is_none() && matches!(name, "unset" | "chdir") {
                    2
                } else {
                    1
                };
                continue;
            }
        } else if let Some(body) = a.strip_prefix('-') {
            let mut step = 1;
            for (k, ch) in body.char_indices() {
                match ch {
                    'u' | 'C' => {
                        let rest = body.get(k + 1..).unwrap_or_default();
                        if ch == 'C' {
                            dir = if rest.is_empty() {
                                origin.get(i + 1).cloned()
                            } else {
                                Some(Err(rest.to_string()))
                            };
                        }
                        if k + 1 == body.len() {
                            step = 2;
                        }
                        break;
                    }
                    'S' => {
                        let rest = body.get(k + 1..).unwrap_or_default();
                        split = if rest.is_empty() {
                            args.get(i + 1).map(|v| (v.clone(), 2))
                        } else {
                            Some((rest.to_string(), 1))
                        };
                        if split.is_none() {
                            return Action::None;
                        }
                        break;
                    }
                    _ => {}
                }
            }
            if split.is_none() {
                i += step;
                continue 'outer;
            }
        } else {
            break;
        }
        if let Some((s, used)) = split {
            splits += 1;
            if splits > MAX_WRAPPERS {
                return Action::Error("too many nested `env -S` strings".to_string());
            }
            let end = (i + used).min(args.len());
            let words = split_words(&s);
            origin.splice(i..end, words.iter().cloned().map(Err));
            args.splice(i..end, words);
        }
    }
    let mut assigns = Vec::new();
    while let Some(kv) = args.get(i).and_then(|a| split_assign(a)) {
        assigns.push(kv);
        i += 1;
    }
    if i >= args.len() {
        return Action::None;
    }
    let words = origin.split_off(i);
    match dir {
        Some(dir) => Action::ReplaceIn {
            words,
            assigns,
            dir,
        },
        None => Action::Replace { words, assigns },
    }
}

/// Split an `env -S` string into words (quotes and backslashes honoured).
pub(crate) fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut started = false;
    let mut quote: Option<char> = None;
    let mut it = s.chars();
    while let Some(c) = it.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some('"') if c == '\\' => cur.extend(it.next()),
            Some(_) => cur.push(c),
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    started = true;
                }
                '\\' => {
                    cur.extend(it.next());
                    started = true;
                }
                c if c.is_whitespace() => {
                    if started || !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                        started = false;
                    }
                }
                c => cur.push(c),
            },
        }
    }
    if started || !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `flock [opts] FILE CMD…`, `flock [opts] FILE -c STR`, `flock -c STR FILE`.
fn flock(args: &[String]) -> Action {
    let o = opts(args, "Ewc", &["conflict-exit-code", "timeout", "command"]);
    let script = |text: &str| script_from(args, text, "flock -c");
    if let Some(s) = o.value(&["c", "command"]) {
        return script(s);
    }
    let rest = o.next + 1;
    match args.get(rest).map(String::as_str) {
        Some("-c" | "--command") => match args.get(rest + 1) {
            Some(s) => script(s),
            None => Action::None,
        },
        Some(_) => exec(args, rest),
        None => Action::None,
    }
}

/// `su [opts] [-] [user] -c STR` (options may follow the user);
/// `runuser -u USER [--] CMD…`.
/// `ssh [options] destination command…`: the remote shell runs the words
/// after the destination, joined by spaces (as `eval` does). Its `~` is a
/// home too, and a delete there is as lost as one here.
/// OpenSSH reads options after the destination too (`ssh bastion -N`).
fn ssh(args: &[String]) -> Action {
    const VALUED: &str = "BbcDEeFIiJLlmOopQRSWw";
    let dest = opts(args, VALUED, &[]).next;
    let after = args.get(dest + 1..).unwrap_or_default();
    let start = dest + 1 + opts(after, VALUED, &[]).next;
    match args.get(start..) {
        Some(cmd) if !cmd.is_empty() => Action::Script {
            text: cmd.join(" "),
            label: "ssh (remote command)".to_string(),
            from: start..args.len(),
            positional: None,
        },
        // No command: the remote login shell reads its commands from stdin
        // (`ssh host <<EOF … EOF`).
        _ if dest < args.len() => Action::Stdin,
        _ => Action::None,
    }
}

fn su(prog: &str, args: &[String]) -> Action {
    let o = opts(
        args,
        "cgGsuw",
        &[
            "command",
            "session-command",
            "group",
            "supp-group",
            "shell",
            "user",
        ],
    );
    let label = format!("{prog} -c");
    let script = |text: &str| script_from(args, text, &label);
    if let Some(s) = o.value(&["c", "command", "session-command"]) {
        return script(s);
    }
    for (k, a) in args.iter().enumerate() {
        if a == "-c" || a == "--command" || a == "--session-command" {
            if let Some(s) = args.get(k + 1) {
                return script(s);
            }
        } else if let Some(s) = a.strip_prefix("--command=") {
            return script(s);
        }
    }
    if prog == "runuser" && o.has("u") {
        return exec(args, o.next);
    }
    Action::None
}

/// `find … -exec CMD … ;` / `-exec … {} +` / `-execdir` / `-ok` / `-okdir`.
fn find(args: &[String]) -> Action {
    exec_ranges("find", args, FIND_EXEC, find_exec_end)
}

/// `fd … -x CMD …` / `--exec` (a command per path found) / `-X` /
/// `--exec-batch` (one command for all): the command is the rest of the
/// arguments, up to a `;`, with `{}` (`{/}`, `{//}`, `{.}`, `{/.}`) replaced
/// by the path, or the path added last.
fn fd(args: &[String]) -> Action {
    exec_ranges("fd", args, FD_EXEC, |args, start| {
        args.get(start..)
            .and_then(|rest| rest.iter().position(|w| w == ";"))
            .map_or(args.len(), |p| start + p)
    })
}

/// The commands a finder runs on what it finds: each option of `starts`
/// begins one, which ends where `end` says (the index of the word that
/// closes it, or `args.len()`), labelled `PROG OPTION`.
fn exec_ranges(
    prog: &str,
    args: &[String],
    starts: &[&str],
    end: fn(&[String], usize) -> usize,
) -> Action {
    let mut cmds = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        if !starts.contains(&a.as_str()) {
            continue;
        }
        let start = i;
        i = end(args, start);
        if i > start {
            cmds.push((format!("{prog} {a}"), start..i));
        }
        i += 1;
    }
    if cmds.is_empty() {
        Action::None
    } else {
        Action::Find(cmds)
    }
}

/// fd's options that run a command on what it finds.
pub(crate) const FD_EXEC: &[&str] = &["-x", "--exec", "-X", "--exec-batch"];

/// The language of a program that runs code it is given (`python3.12`,
/// `node`, `awk`, `make`), whatever its arguments; `None` for other programs.
pub(crate) fn interpreter_lang(prog: &str) -> Option<Lang> {
    let p = prog.to_ascii_lowercase();
    let base = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    Some(match base {
        "python" | "pypy" => Lang::Python,
        "perl" => Lang::Perl,
        "ruby" => Lang::Ruby,
        "node" | "nodejs" | "bun" | "deno" => Lang::Js,
        "php" => Lang::Php,
        "lua" | "luajit" => Lang::Lua,
        "rscript" | "r" => Lang::R,
        "awk" | "gawk" | "mawk" | "nawk" => Lang::Awk,
        "sed" | "gsed" => Lang::Sed,
        "vim" | "nvim" | "vi" | "gvim" | "ex" | "view" => Lang::Vim,
        "osascript" => Lang::AppleScript,
        "make" | "gmake" => Lang::Make,
        "julia" => Lang::Julia,
        _ => return None,
    })
}

/// The program that runs a file of code in `lang` (`python3 x.py`, `node
/// x.js`); `None` for a language no program runs a file of this way.
pub(crate) fn interpreter_program(lang: Lang) -> Option<&'static str> {
    Some(match lang {
        Lang::Python => "python3",
        Lang::Perl => "perl",
        Lang::Ruby => "ruby",
        Lang::Js => "node",
        Lang::Php => "php",
        Lang::Lua => "lua",
        Lang::R => "Rscript",
        Lang::Julia => "julia",
        Lang::Awk => "awk",
        Lang::Sed => "sed",
        Lang::Vim => "vim",
        Lang::AppleScript => "osascript",
        Lang::Make => return None,
    })
}

/// An interpreter's options that take a value, per language (the value is
/// skipped to find its operands).
fn valued_options(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => &["-m", "-W", "-X", "-Q"],
        Lang::Perl => &["-I", "-M", "-m", "-x"],
        Lang::Ruby => &["-r", "-I", "-C", "-E"],
        Lang::Js => &[
            "-r",
            "--require",
            "--import",
            "--loader",
            "--input-type",
            "--env-file",
            "--env-file-if-exists",
        ],
        Lang::Awk => &["-F", "-v", "--assign", "--field-separator"],
        Lang::Vim => &["-u", "-i", "-S", "-T", "-w", "-W"],
        Lang::Julia => &[
            "-t",
            "--threads",
            "-p",
            "--procs",
            "-J",
            "--sysimage",
            "-L",
            "--load",
        ],
        _ => &[],
    }
}

/// An interpreter's options whose value is code, per language.
pub(crate) fn code_flags(lang: Lang) -> &'static [&'static str] {
    match lang {
        Lang::Python => &["-c"],
        Lang::Js => &["-e", "--eval", "-p", "--print"],
        Lang::Php => &["-r"],
        Lang::Lua | Lang::R | Lang::Perl | Lang::Ruby | Lang::AppleScript => &["-e", "-E"],
        Lang::Julia => &["-e", "-E", "--eval", "--print"],
        Lang::Sed => &["-e", "--expression"],
        Lang::Vim => &["-c", "--cmd"],
        _ => &[],
    }
}

/// A general-purpose interpreter given a script file to run (`python3
/// tools/clean.py`, `node build.js`, `perl -w x.pl a`): its language and the
/// index of the file among `args` (its arguments follow). `None` for inline
/// code (`-c`, `-e`), a module (`python -m`), standard input, and programs
/// that take no script this way.
pub(crate) fn interpreter_script(prog: &str, args: &[String]) -> Option<(Lang, usize)> {
    let p = prog.to_ascii_lowercase();
    let base = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let lang = interpreter_lang(prog)?;
    let general = matches!(
        lang,
        Lang::Python | Lang::Perl | Lang::Ruby | Lang::Php | Lang::Lua | Lang::R | Lang::Julia
    ) || (lang == Lang::Js && matches!(base, "node" | "nodejs"));
    if !general {
        return None;
    }
    let valued = valued_options(lang);
    let codes = code_flags(lang);
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let s = a.as_str();
        if s == "--" {
            return args.get(i + 1).map(|_| (lang, i + 1));
        }
        if s == "-" || codes.contains(&s) || (lang == Lang::Python && s.starts_with("-m")) {
            return None;
        }
        if !s.starts_with('-') {
            return Some((lang, i));
        }
        if let Some((flag, _)) = s.split_once('=') {
            if codes.contains(&flag) {
                return None;
            }
            i += 1;
            continue;
        }
        // `-f FILE` is PHP's script.
        if lang == Lang::Php && s == "-f" {
            return args.get(i + 1).map(|_| (lang, i + 1));
        }
        i += if valued.contains(&s) { 2 } else { 1 };
    }
    None
}

/// An interpreter given inline code: the language, the indexes of the code
/// arguments, and whether it reads its program from standard input instead.
pub(crate) fn interpreter(prog: &str, args: &[String]) -> Option<(Lang, Vec<usize>, bool)> {
    let p = prog.to_ascii_lowercase();
    let base = p.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let lang = interpreter_lang(prog)?;
    // A syntax check runs nothing (`php -l`, `ruby -c`, `node --check`);
    // Perl's `-c` runs BEGIN blocks, so it is not one.
    let checks: &[&str] = match lang {
        Lang::Php => &["-l", "--syntax-check"],
        Lang::Ruby => &["-c", "--check"],
        Lang::Js if base == "node" => &["-c", "--check"],
        _ => &[],
    };
    if args
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| checks.contains(&a.as_str()))
    {
        return None;
    }
    let valued = valued_options(lang);
    let code_flags = code_flags(lang);
    let mut code = Vec::new();
    let mut stdin = false;
    let mut operands = 0;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let s = a.as_str();
        if lang == Lang::Js && base == "deno" && s == "eval" && operands == 0 {
            if let Some(k) = (i + 1..args.len()).find(|k| !args[*k].starts_with('-')) {
                code.push(k);
            }
            break;
        }
        if lang == Lang::Make && (s == "-f-" || s == "--file=-" || s == "--makefile=-") {
            stdin = true;
            i += 1;
            continue;
        }
        // A makefile (`-f F`, `-fF`, `--file=F`): its recipes are code, read
        // when the analysis knows the file's text (see `Extractor::makefile`).
        if lang == Lang::Make
            && (s.starts_with("--file=")
                || s.starts_with("--makefile=")
                || (s.starts_with("-f") && s.len() > 2))
        {
            code.push(i);
            i += 1;
            continue;
        }
        if let Some((flag, _)) = s.split_once('=').filter(|(f, _)| f.starts_with("--")) {
            if code_flags.contains(&flag) {
                code.push(i);
            }
            i += 1;
            continue;
        }
        if code_flags.contains(&s) {
            if args.get(i + 1).is_some() {
                code.push(i + 1);
            }
            i += 2;
            continue;
        }
        if lang == Lang::Vim && s.starts_with('+') && s.len() > 1 {
            code.push(i);
            i += 1;
            continue;
        }
        // `ex -sc CMD`, `vim -esc CMD`: flags clustered before `-c`.
        if lang == Lang::Vim
            && s.len() > 2
            && s.strip_prefix('-').is_some_and(|b| {
                b.ends_with('c') && b[..b.len() - 1].chars().all(|c| "seEnNRbAZ".contains(c))
            })
        {
            if args.get(i + 1).is_some() {
                code.push(i + 1);
            }
            i += 2;
            continue;
        }
        if lang == Lang::Make && matches!(s, "-f" | "--file" | "--makefile") {
            match args.get(i + 1).map(String::as_str) {
                Some("-" | "/dev/stdin") => stdin = true,
                Some(_) => code.push(i + 1),
                None => {}
            }
            i += 2;
            continue;
        }
        if s == "-" {
            stdin = true;
            break;
        }
        if s == "--" {
            break;
        }
        if lang == Lang::Python && s.starts_with("-m") {
            // `python -m module`, `python -mjson.tool`: not inline code.
            return None;
        }
        if s.starts_with('-') && s.len() > 1 {
            if valued.contains(&s) {
                i += 2;
                continue;
            }
            // Clustered short options ending in the code flag (`-le`, `-ne`, `-Bc`).
            let cluster = !s.starts_with("--")
                && s[1..].chars().all(|c| c.is_ascii_alphabetic())
                && !matches!(lang, Lang::Awk | Lang::Make | Lang::Vim);
            let last = s.chars().last().unwrap_or(' ');
            let ends_in_code = match lang {
                Lang::Python => last == 'c',
                Lang::Perl | Lang::Ruby => matches!(last, 'e' | 'E') && !s.starts_with("-M"),
                // `node -pe CODE`
                Lang::Js => matches!(last, 'e' | 'p'),
                Lang::Sed => last == 'e',
                _ => false,
            };
            if cluster && ends_in_code {
                if args.get(i + 1).is_some() {
                    code.push(i + 1);
                }
                i += 2;
                continue;
            }
            if lang == Lang::Python && cluster && s.contains('m') {
                // `python -m module`: not inline code.
                return None;
            }
            i += 1;
            continue;
        }
        // The first operand: awk's and sed's program, or a script file.
        operands += 1;
        if operands == 1
            && code.is_empty()
            && matches!(lang, Lang::Awk | Lang::Sed)
            && !args.iter().any(|a| a == "-f" || a.starts_with("--file"))
        {
            code.push(i);
        }
        if code.is_empty() && !matches!(lang, Lang::Awk | Lang::Sed | Lang::Vim | Lang::Make) {
            // A script file: not inline.
            return None;
        }
        i += 1;
    }
    if code.is_empty()
        && operands == 0
        && matches!(
            lang,
            Lang::Python | Lang::Perl | Lang::Ruby | Lang::Js | Lang::Php | Lang::Lua
        )
        && base != "deno"
    {
        stdin = true;
    }
    // `make` without `-f` reads `Makefile`, which may have been written
    // earlier in the command.
    if code.is_empty() && !stdin && lang != Lang::Make {
        return None;
    }
    Some((lang, code, stdin))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_words_quotes() {
        assert_eq!(
            split_words(r#"a 'b c' "d\"e" f\ g"#),
            vec!["a", "b c", "d\"e", "f g"]
        );
        assert_eq!(split_words("  "), Vec::<String>::new());
        assert_eq!(split_words("''"), vec![""]);
    }

    #[test]
    fn a_versioned_name_is_the_program() {
        for (name, base) in [
            ("kubectl1.29", Some("kubectl")),
            ("kubectl-1.30", Some("kubectl")),
            ("kubectl_v1.28.3", Some("kubectl")),
            ("terraform_1.5.7", Some("terraform")),
            ("psql-15", Some("psql")),
            ("python3.11", Some("python")),
            ("go1.21.5", Some("go")),
            // digits that are part of the name
            ("helm3", None),
            ("sqlite3", None),
            ("base64", None),
            ("python3", None),
            ("md5sum", None),
            ("mkfs.ext4", None),
            ("x264", None),
            ("kubectl", None),
            ("1.2", None),
            ("tool-1.", None),
        ] {
            assert_eq!(unversioned(name), base, "{name}");
        }
    }

    #[test]
    fn split_assign_forms() {
        assert_eq!(split_assign("A=1"), Some(("A".into(), "1".into())));
        assert_eq!(split_assign("=1"), None);
        assert_eq!(split_assign("rm"), None);
    }

    #[test]
    fn opts_values() {
        let v: Vec<String> = ["-uroot", "-g", "wheel", "--user=x", "rm"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let o = opts(&v, "ug", &[]);
        assert_eq!(o.next, 4);
        assert_eq!(o.value(&["u"]), Some("root"));
        assert_eq!(o.value(&["g"]), Some("wheel"));
        assert_eq!(o.value(&["user"]), Some("x"));
    }

    #[test]
    fn xargs_splits_known_input_as_xargs_does() {
        let items = |t: &str, s| xargs_items(t, s);
        assert_eq!(
            items("a 'b c'\n\"d\" e\\ f\n", XargsSplit::Blanks),
            Some(vec!["a".into(), "b c".into(), "d".into(), "e f".into()])
        );
        assert_eq!(items("'open\n", XargsSplit::Blanks), None);
        assert_eq!(
            items("/usr/share\0x y\0", XargsSplit::Delimiter('\0')),
            Some(vec!["/usr/share".into(), "x y".into()])
        );
        assert_eq!(
            items("  a b\n\nc\n", XargsSplit::Lines),
            Some(vec!["a b".into(), "c".into()])
        );
        assert_eq!(items("'a'\n", XargsSplit::Lines), None);
        assert_eq!(items("x", XargsSplit::NotStdin), None);
        assert_eq!(
            items(&"a ".repeat(XARGS_ITEMS + 1), XargsSplit::Blanks),
            None
        );
        assert_eq!(xargs_delimiter("\\n"), Some('\n'));
        assert_eq!(xargs_delimiter("\\0"), Some('\0'));
        assert_eq!(xargs_delimiter("\\x2c"), Some(','));
        assert_eq!(xargs_delimiter(","), Some(','));
        assert_eq!(xargs_delimiter("ab"), None);
    }

    #[test]
    fn xargs_options() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let xargs = |a: &[&str]| match classify("xargs", &args(a)) {
            Action::Xargs {
                skip,
                replace,
                split,
            } => Some((skip, replace, split)),
            _ => None,
        };
        // `-i` takes its string only attached: `rm` is the command.
        assert_eq!(
            xargs(&["-i", "rm", "{}"]),
            Some((1, Some("{}".into()), XargsSplit::Lines))
        );
        assert_eq!(
            xargs(&["-iXX", "rm", "XX"]),
            Some((1, Some("XX".into()), XargsSplit::Lines))
        );
        assert_eq!(
            xargs(&["-I", "%", "rm", "%"]),
            Some((2, Some("%".into()), XargsSplit::Lines))
        );
        assert_eq!(
            xargs(&["-0r", "rm"]),
            Some((1, None, XargsSplit::Delimiter('\0')))
        );
        assert_eq!(
            xargs(&["-a", "list", "rm"]),
            Some((2, None, XargsSplit::NotStdin))
        );
        assert_eq!(
            xargs(&["-d", "\\n", "rm"]),
            Some((2, None, XargsSplit::Delimiter('\n')))
        );
        assert_eq!(xargs(&["rm"]), Some((0, None, XargsSplit::Blanks)));
    }
}
