//! The command languages of tools whose commands can reach a shell: an FTP or
//! `ed` session's `!cmd`, psql's `\!`, mysql's `system`, sqlite's `.shell`,
//! gdb's `shell`, lldb's `platform shell`, Tcl's `exec`, m4's `esyscmd`, dc's `!`, gnuplot's `system`,
//! rpm's `%(…)`, TeX's `\write18`, socat's `EXEC:`, screen's `stuff`, keys
//! typed into a tmux pane, less's input preprocessor.
//!
//! Like `inline`, a scan for the escapes, not a parser of these languages:
//! what it finds is the shell text or the words they run ([`Effect`]); the rest
//! of the code is the tool's own business (queries, transfers, edits).

use super::inline::{self, marked, Effect, Lang, MARK_HOME, MARK_UNKNOWN};
use super::nesting::Literals;
use crate::shell::value::Value;

/// A tool's command language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// Lines starting with `!` run the rest (`ed`'s `r !cmd`, `w !cmd` too):
    /// ed, ex, ftp, sftp, lftp, smbclient, ….
    Bang,
    /// psql: `\! cmd`, `\o |cmd`, `\g |cmd`, `\copy … program 'cmd'`.
    Psql,
    /// mysql and mariadb: `\! cmd`, `system cmd`, `pager cmd`.
    Mysql,
    /// sqlite3 and duckdb: `.shell cmd`, `.system cmd`, `.once |cmd`,
    /// `.output |cmd`, `.read |cmd`, `.import |cmd`.
    Sqlite,
    /// gdb: `shell cmd`, `!cmd`, `pipe … | cmd`, `python …`, and an
    /// expression that calls `system("cmd")` (`call`, `print`).
    Gdb,
    /// lldb: `platform shell cmd` (and its abbreviations), `shell cmd`,
    /// `script …` (Python, or Lua with `-l lua`), and an expression that
    /// calls `system("cmd")` (`expression`, `p`, `call`).
    Lldb,
    /// Tcl and expect: `exec …`, `spawn …`, `system …`, `open "|cmd"`.
    Tcl,
    /// m4: `syscmd(cmd)`, `esyscmd(cmd)`.
    M4,
    /// dc: `!cmd` (not `!<`, `!>`, `!=`).
    Dc,
    /// gnuplot: `system("cmd")`, `` `cmd` ``, `!cmd`, `'< cmd'`, `'| cmd'`.
    Gnuplot,
    /// rpm macros: `%(cmd)`, `%{lua: …}`.
    Rpm,
    /// TeX: `\write18{cmd}`, `\input|"cmd"`.
    Tex,
    /// socat addresses: `EXEC:cmd`, `SYSTEM:cmd`.
    Socat,
    /// screen commands (`-X`): `stuff TEXT` (typed into the window's shell),
    /// `exec cmd…`, `screen cmd…`.
    Screen,
    /// Keys typed into a tmux pane's shell (`Enter` and `C-m` end a line).
    TmuxKeys,
    /// less's input preprocessor (`LESSOPEN='|cmd %s'`).
    LessOpen,
    /// git's `ext::` transport (`git clone 'ext::sh -c cmd% arg'`): the URL
    /// is a command line, `% ` a space inside an argument.
    GitExt,
    /// A tmux command line (`if-shell COND 'run-shell "make"'`): tmux
    /// commands separated by `;`, each run as `tmux WORDS`.
    TmuxCommand,
    /// A language the analysis does not read (`elixir -e`, `bb -e`, a
    /// Lisp's `--eval`, Octave's): the constructs of the `call` rows of that
    /// language ([`super::unread`]).
    Calls(&'static str),
}

/// Most effects one piece of code reports.
const MAX_EFFECTS: usize = 64;

/// What `code` in `dialect` runs. `words` is for the dialects that read
/// separate arguments (socat's addresses, screen's and tmux's words); the
/// others read `code`.
pub(crate) fn scan(dialect: Dialect, code: &str, words: &[String]) -> Vec<Effect> {
    let mut out = match dialect {
        Dialect::Bang => bang(code),
        Dialect::Psql => psql(code),
        Dialect::Mysql => mysql(code),
        Dialect::Sqlite => sqlite(code),
        Dialect::Gdb => gdb(code),
        Dialect::Lldb => lldb(code),
        Dialect::Tcl => tcl(code),
        Dialect::M4 => m4(code),
        Dialect::Dc => dc(code),
        Dialect::Gnuplot => gnuplot(code),
        Dialect::Rpm => rpm(code),
        Dialect::Tex => tex(code),
        Dialect::Socat => socat(words),
        Dialect::Screen => screen(words),
        Dialect::TmuxKeys => tmux_keys(words),
        Dialect::LessOpen => less_open(code),
        Dialect::GitExt => words.iter().filter_map(|w| git_ext(w)).collect(),
        Dialect::TmuxCommand => tmux_commands(&super::wrappers::split_words(code)),
        Dialect::Calls(lang) => super::unread::effects(lang, code),
    };
    out.truncate(MAX_EFFECTS);
    out
}

fn shell(text: &str) -> Effect {
    Effect::Shell(marked(text.trim()))
}

/// The rest of the line after `prefix` when a line (after blanks) starts so.
fn line_commands<'a>(code: &'a str, prefixes: &[&str]) -> Vec<&'a str> {
    let mut out = Vec::new();
    for line in code.lines() {
        let l = line.trim_start();
        for p in prefixes {
            let matched = if p.chars().all(|c| c.is_ascii_alphabetic() || c == '.') {
                // A word: any letter case, then a blank or the end.
                l.get(..p.len())
                    .filter(|h| h.eq_ignore_ascii_case(p))
                    .and_then(|_| l.get(p.len()..))
                    .filter(|r| r.is_empty() || r.starts_with([' ', '\t']))
            } else {
                l.strip_prefix(p)
            };
            if let Some(rest) = matched {
                out.push(rest);
                break;
            }
        }
    }
    out
}

fn bang(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in code.lines() {
        let l = line.trim_start();
        if let Some(cmd) = l.strip_prefix('!') {
            out.push(shell(cmd));
            continue;
        }
        // ed: `r !cmd`, `w !cmd`, `e !cmd` after an optional address.
        let cmd = l.trim_start_matches(|c: char| {
            c.is_ascii_digit() || matches!(c, ',' | '.' | '$' | ';' | '+' | '-' | '\'' | ' ')
        });
        if let Some(rest) = cmd.strip_prefix(['r', 'w', 'W', 'e', 'E']) {
            if let Some(sh) = rest.trim_start().strip_prefix('!') {
                out.push(shell(sh));
            }
        }
    }
    out
}

/// After `\o`, `\out`, `\g`, `\gx`, `\w`, `.once`, `.output`, … : a `|cmd`.
fn pipe_target(rest: &str) -> Option<&str> {
    let r = rest.trim_start();
    let r = r.strip_prefix(['\'', '"']).unwrap_or(r);
    r.strip_prefix('|')
        .map(|c| c.trim_end().trim_end_matches(['\'', '"']))
}

fn psql(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices('\\') {
        let rest = &code[i + 1..];
        let line_end = rest.find('\n').unwrap_or(rest.len());
        let line = &rest[..line_end];
        if let Some(cmd) = line.strip_prefix('!') {
            out.push(shell(cmd));
            continue;
        }
        let include = ["include_relative", "include", "ir", "i"]
            .iter()
            .find_map(|m| line.strip_prefix(m).filter(|r| r.starts_with([' ', '\t'])));
        if let Some(file) = include {
            out.extend(reads_file("psql", file));
            continue;
        }
        for meta in ["out", "o", "gx", "g", "w", "write"] {
            if let Some(r) = line.strip_prefix(meta) {
                if r.starts_with([' ', '\t', '|']) || r.is_empty() {
                    if let Some(cmd) = pipe_target(r) {
                        out.push(shell(cmd));
                    }
                }
                break;
            }
        }
    }
    // `\copy t to program 'cmd'`, `COPY t FROM PROGRAM 'cmd'`.
    let lower = code.to_ascii_lowercase();
    for (i, _) in lower.match_indices("program") {
        let rest = code[i + "program".len()..].trim_start();
        if let Some(q) = rest.strip_prefix('\'') {
            if let Some(end) = q.find('\'') {
                out.push(shell(&q[..end]));
            }
        }
    }
    out
}

fn mysql(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("\\!") {
        let rest = &code[i + 2..];
        out.push(shell(rest.lines().next().unwrap_or_default()));
    }
    for cmd in line_commands(code, &["system", "pager", "\\P"]) {
        out.push(shell(cmd.trim_end().trim_end_matches(';')));
    }
    for file in line_commands(code, &["source", "\\."]) {
        out.extend(reads_file("mysql", file));
    }
    out
}

fn sqlite(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for cmd in line_commands(code, &[".shell", ".system"]) {
        out.push(shell(cmd));
    }
    for rest in line_commands(code, &[".once", ".output", ".read", ".import"]) {
        // `.once -x` / `.once '|cmd'`; `.import '|cmd' table`.
        let r = rest.trim_start().trim_start_matches("-x").trim_start();
        let quoted = r.starts_with(['\'', '"']);
        let target = if quoted {
            let q = r.chars().next().unwrap_or('\'');
            r[1..].split(q).next().unwrap_or_default()
        } else {
            r
        };
        if let Some(cmd) = target.strip_prefix('|') {
            out.push(shell(cmd));
        }
    }
    for rest in line_commands(code, &[".read"]) {
        out.extend(reads_file("sqlite3", rest));
    }
    out
}

/// A client's command that runs the code of a file (sqlite's `.read FILE`,
/// psql's `\i FILE`, mysql's `source FILE`): the client reading the file on
/// its standard input, whose text is judged as the same code given inline.
fn reads_file(client: &str, rest: &str) -> Option<Effect> {
    let r = rest.trim().trim_end_matches(';').trim_end();
    let name = r
        .strip_prefix(['\'', '"'])
        .map_or(r, |q| q.trim_end_matches(['\'', '"']));
    if name.is_empty() || name.starts_with('|') || name.contains(['\n', '\'', '"']) {
        return None;
    }
    Some(shell(&format!("{client} < {}", crate::shell::quote(name))))
}

fn gdb(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in code.lines() {
        let l = line.trim_start();
        if let Some(cmd) = l.strip_prefix('!') {
            out.push(shell(cmd));
        } else if let Some(cmd) = word_after(l, &["shell"]) {
            out.push(shell(cmd));
        } else if let Some(rest) = word_after(l, &["pipe"]).or_else(|| l.strip_prefix('|')) {
            // `pipe [DELIM] GDB-COMMAND DELIM SHELL-COMMAND`.
            let rest = rest.trim_start();
            let delim = match rest.strip_prefix("-d") {
                Some(r) => r.split_whitespace().next().unwrap_or("|").to_string(),
                None => "|".to_string(),
            };
            if let Some((_, cmd)) = rest.split_once(delim.as_str()) {
                out.push(shell(cmd));
            }
        } else if let Some(py) = word_after(l, &["python", "py", "python-interactive", "pi"]) {
            out.extend(inline::scan(Lang::Python, py));
        } else {
            out.extend(debugger_expression(l));
        }
    }
    out
}

/// A debugger command line that calls one of the C library's shell-outs
/// the `c` call rows list (`call system("…")`, `expr (int)system("…")`);
/// `break system` names one, and calls nothing.
fn debugger_expression(line: &str) -> Vec<Effect> {
    let squeezed: String = line.chars().filter(|c| !c.is_whitespace()).collect();
    let calls = super::places::calls("c")
        .flat_map(|row| row.call)
        .any(|name| squeezed.contains(&format!("{name}(")));
    if calls {
        super::unread::effects("c", line)
    } else {
        Vec::new()
    }
}

/// lldb's command language. Commands and options may be abbreviated to any
/// unique prefix (`pla sh`, `platform she`), as lldb accepts them.
fn lldb(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in code.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(first) = words.first() else {
            continue;
        };
        let abbreviates = |w: &str, full: &str, min: usize| w.len() >= min && full.starts_with(w);
        // `platform shell [-h] [-t SEC] [-s SHELL] [--] CMD`, `shell CMD`.
        let shell_at = if abbreviates(first, "platform", 3)
            && words.get(1).is_some_and(|w| abbreviates(w, "shell", 2))
        {
            Some(2)
        } else if *first == "shell" {
            Some(1)
        } else {
            None
        };
        if let Some(k) = shell_at {
            let mut rest = &words[k..];
            while let Some(w) = rest.first() {
                match *w {
                    "--" => {
                        rest = &rest[1..];
                        break;
                    }
                    "-h" | "--host" => rest = &rest[1..],
                    "-t" | "--timeout" | "-s" | "--shell" => {
                        rest = rest.get(2..).unwrap_or_default()
                    }
                    _ => break,
                }
            }
            if !rest.is_empty() {
                out.push(shell(&rest.join(" ")));
            }
            continue;
        }
        // `script [-l python|lua] [--] CODE`.
        if abbreviates(first, "script", 3) {
            let mut rest = &words[1..];
            let mut lang = Lang::Python;
            while let Some(w) = rest.first() {
                match *w {
                    "--" => {
                        rest = &rest[1..];
                        break;
                    }
                    "-l" | "--language" => {
                        if rest.get(1).is_some_and(|l| l.eq_ignore_ascii_case("lua")) {
                            lang = Lang::Lua;
                        }
                        rest = rest.get(2..).unwrap_or_default();
                    }
                    _ => break,
                }
            }
            out.extend(inline::scan(lang, &rest.join(" ")));
            continue;
        }
        out.extend(debugger_expression(line));
    }
    out
}

/// The rest after one of `words` (a whole word) at the start of `l`.
fn word_after<'a>(l: &'a str, words: &[&str]) -> Option<&'a str> {
    words.iter().find_map(|w| {
        let r = l.strip_prefix(w)?;
        (r.is_empty() || r.starts_with([' ', '\t'])).then_some(r)
    })
}

/// Tcl: the commands of a script (split at newlines, `;`, `[`, `]` and
/// braces, since a braced word is code in `if`, `proc`, `foreach`, … and data
/// elsewhere: read as code, the stricter reading), and those that run
/// programs.
fn tcl(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for cmd in code.split(['\n', ';', '[', ']', '{', '}']) {
        let words = tcl_words(cmd);
        let Some(first) = words.first() else {
            continue;
        };
        match first.as_str() {
            // `exec rm -rf ~`, `spawn ssh host`: the words of a command
            // (`exec`'s `-ignorestderr`/`-keepnewline`/`--` first).
            "exec" | "spawn" => {
                let mut rest: Vec<&String> = words[1..].iter().collect();
                while rest
                    .first()
                    .is_some_and(|w| w.starts_with('-') && w.len() > 1)
                {
                    let w = rest.remove(0);
                    if w == "--" {
                        break;
                    }
                }
                if !rest.is_empty() {
                    out.push(Effect::Words(rest.iter().map(|w| tcl_value(w)).collect()));
                }
            }
            // `file delete ?-force? ?--? NAME…`: `-force` deletes folders
            // with what is in them.
            "file" if words.get(1).is_some_and(|w| w == "delete") => {
                let mut rest = &words[2..];
                let mut recursive = false;
                while let Some((w, tail)) = rest.split_first() {
                    match w.as_str() {
                        "-force" => recursive = true,
                        "--" => {
                            rest = tail;
                            break;
                        }
                        _ => break,
                    }
                    rest = tail;
                }
                for w in rest {
                    out.push(Effect::Delete {
                        recursive,
                        path: tcl_value(w),
                    });
                }
            }
            // expect's `system cmd…`: joined, given to sh.
            "system" => out.push(shell(&words[1..].join(" "))),
            "open" => {
                if let Some(cmd) = words.get(1).and_then(|w| w.strip_prefix('|')) {
                    out.push(shell(cmd));
                }
            }
            _ => {}
        }
    }
    out
}

/// A Tcl word as a value: `$env(HOME)` (and `$::env(HOME)`) and a leading
/// `~` are the home folder (Tcl 8 expands `~` in file names; `exec` and
/// `spawn` are judged so too, the stricter reading), any other variable is
/// unknown.
fn tcl_value(w: &str) -> Value {
    let mut text = String::new();
    let mut rest = w;
    if let Some(after) = rest.strip_prefix('~') {
        if after.is_empty() || after.starts_with('/') {
            text.push(MARK_HOME);
            rest = after;
        }
    }
    while let Some(at) = rest.find('$') {
        text.push_str(&rest[..at]);
        let var = &rest[at + 1..];
        let home = ["env(HOME)", "::env(HOME)", "{env(HOME)}", "{::env(HOME)}"]
            .iter()
            .find(|h| var.starts_with(**h));
        match home {
            Some(h) => {
                text.push(MARK_HOME);
                rest = &var[h.len()..];
            }
            None => {
                text.push(MARK_UNKNOWN);
                let end = var
                    .find(|c: char| !(c.is_ascii_alphanumeric() || "_:(){}".contains(c)))
                    .unwrap_or(var.len());
                rest = &var[end..];
            }
        }
    }
    text.push_str(rest);
    Value::one(marked(&text))
}

/// Tcl words: split at blanks, quotes removed.
fn tcl_words(cmd: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in cmd.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

fn m4(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for name in ["esyscmd", "syscmd"] {
        for (i, _) in code.match_indices(name) {
            if name == "syscmd" && code[..i].ends_with('e') {
                continue;
            }
            let rest = &code[i + name.len()..];
            if !rest.starts_with('(') {
                continue;
            }
            let inner = Literals::NONE.inside(rest, 0);
            // m4's quotes (`` `…' `` and `[…]`) are not part of the text.
            let text: String = inner
                .chars()
                .filter(|c| !matches!(c, '`' | '\'' | '[' | ']'))
                .collect();
            out.push(shell(&text));
        }
    }
    out
}

fn dc(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in code.lines() {
        let mut rest = line;
        while let Some(i) = rest.find('!') {
            let after = &rest[i + 1..];
            if after.starts_with(['<', '>', '=']) {
                rest = &after[1..];
                continue;
            }
            out.push(shell(after));
            break;
        }
    }
    out
}

fn gnuplot(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for line in code.lines() {
        if let Some(cmd) = line.trim_start().strip_prefix('!') {
            out.push(shell(cmd));
        }
    }
    for (i, _) in code.match_indices("system") {
        let rest = code[i + "system".len()..].trim_start();
        let rest = rest.strip_prefix('(').unwrap_or(rest).trim_start();
        if let Some(q) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) {
            if let Some(end) = rest[1..].find(q) {
                out.push(shell(&rest[1..1 + end]));
            }
        }
    }
    // Backquotes, and file names that are pipes: `plot '< cmd'`, `set output '| cmd'`.
    let mut parts = code.split('`');
    parts.next();
    while let (Some(cmd), Some(_)) = (parts.next(), parts.next()) {
        out.push(shell(cmd));
    }
    for q in ['"', '\''] {
        for s in code.split(q).skip(1).step_by(2) {
            if let Some(cmd) = s.trim_start().strip_prefix(['<', '|']) {
                out.push(shell(cmd));
            }
        }
    }
    out
}

fn rpm(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for (open, lua) in [("%(", false), ("%{lua:", true)] {
        for (i, _) in code.match_indices(open) {
            // From the bracket after `%`.
            let inner = Literals::NONE.inside(&code[i + 1..], 0);
            if lua {
                let code = inner.strip_prefix("lua:").unwrap_or(inner);
                out.extend(inline::scan(Lang::Lua, code));
            } else {
                out.push(shell(inner));
            }
        }
    }
    out
}

fn tex(code: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices("\\write18") {
        let rest = code[i + "\\write18".len()..].trim_start();
        if rest.starts_with('{') {
            out.push(shell(Literals::NONE.inside(rest, 0)));
        }
    }
    // `\input|"cmd"`, `\input{|"cmd"}`, `\openin…=|"cmd"`.
    for (i, _) in code.match_indices("|\"") {
        let rest = &code[i + 2..];
        if let Some(end) = rest.find('"') {
            out.push(shell(&rest[..end]));
        }
    }
    out
}

fn socat(words: &[String]) -> Vec<Effect> {
    let mut out = Vec::new();
    for w in words {
        let Some((kind, rest)) = w.split_once(':') else {
            continue;
        };
        // The command ends where the address's options begin.
        let cmd = rest.split(',').next().unwrap_or_default();
        if kind.eq_ignore_ascii_case("system") {
            out.push(shell(cmd));
        } else if kind.eq_ignore_ascii_case("exec") {
            out.push(Effect::Words(
                cmd.split_whitespace()
                    .map(|w| Value::one(marked(w)))
                    .collect(),
            ));
        }
    }
    out
}

/// Text typed into a terminal: `\n`, `\r`, `^M`, `^J`, `\015`, `\012` end a
/// line.
fn typed(text: &str) -> String {
    text.replace("\\n", "\n")
        .replace("\\r", "\n")
        .replace("^M", "\n")
        .replace("^J", "\n")
        .replace("\\015", "\n")
        .replace("\\012", "\n")
}

fn screen(words: &[String]) -> Vec<Effect> {
    let mut out = Vec::new();
    let Some(first) = words.first() else {
        return out;
    };
    let rest = &words[1..];
    match first.as_str() {
        "stuff" => out.push(shell(&typed(&rest.join(" ")))),
        "exec" | "screen" => {
            // `exec [fdpat] cmd…`, `screen [-opts] [n] cmd…`.
            let cmd: Vec<&String> = rest
                .iter()
                .skip_while(|w| {
                    w.starts_with('-')
                        || w.chars().all(|c| c.is_ascii_digit())
                        || w.chars().all(|c| matches!(c, '.' | '!' | ':' | '|'))
                })
                .collect();
            if !cmd.is_empty() {
                out.push(Effect::Words(
                    cmd.iter().map(|w| Value::one(marked(w))).collect(),
                ));
            }
        }
        "eval" => {
            for w in rest {
                let ws: Vec<String> = w.split_whitespace().map(str::to_string).collect();
                out.extend(screen(&ws));
            }
        }
        _ => {}
    }
    out
}

fn tmux_keys(words: &[String]) -> Vec<Effect> {
    let mut text = String::new();
    for w in words {
        match w.as_str() {
            "Enter" | "C-m" | "C-j" | "KPEnter" => text.push('\n'),
            "Space" => text.push(' '),
            "Tab" => text.push('\t'),
            w => text.push_str(w),
        }
    }
    vec![shell(&text)]
}

/// The command an `ext::` URL runs: arguments split at spaces, `% ` a space
/// in one, `%%` a `%`, `%s`/`%S` the service (`git-upload-pack`), `%G`/`%V`
/// (protocol headers) left out.
fn git_ext(url: &str) -> Option<Effect> {
    let cmd = url.strip_prefix("ext::")?;
    let mut words: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut skip_word = false;
    let mut chars = cmd.chars();
    while let Some(c) = chars.next() {
        match c {
            '%' => match chars.next() {
                Some(' ') => cur.push(' '),
                Some('%') => cur.push('%'),
                Some('s' | 'S') => cur.push_str("git-upload-pack"),
                Some('G' | 'V') => skip_word = true,
                Some(o) => {
                    cur.push('%');
                    cur.push(o);
                }
                None => cur.push('%'),
            },
            ' ' => {
                if !cur.is_empty() && !skip_word {
                    words.push(std::mem::take(&mut cur));
                }
                cur.clear();
                skip_word = false;
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() && !skip_word {
        words.push(cur);
    }
    if words.is_empty() {
        return None;
    }
    Some(Effect::Words(
        words.iter().map(|w| Value::one(marked(w))).collect(),
    ))
}

/// Each tmux command of a command line (`;` or `\;` ends one, also at a
/// word's end) as the words of `tmux CMD…`.
fn tmux_commands(words: &[String]) -> Vec<Effect> {
    let mut out = Vec::new();
    let mut cur: Vec<Value> = Vec::new();
    let mut end = |cur: &mut Vec<Value>| {
        if !cur.is_empty() {
            let mut ws = vec![Value::one(marked("tmux"))];
            ws.append(cur);
            out.push(Effect::Words(ws));
        }
    };
    for w in words {
        match w.strip_suffix("\\;").or_else(|| w.strip_suffix(';')) {
            Some(head) => {
                if !head.is_empty() {
                    cur.push(Value::one(marked(head)));
                }
                end(&mut cur);
            }
            None => cur.push(Value::one(marked(w))),
        }
    }
    end(&mut cur);
    out
}

fn less_open(code: &str) -> Vec<Effect> {
    let cmd = code
        .trim_start()
        .trim_start_matches('|')
        .trim_start_matches('-');
    vec![shell(&cmd.replace("%s", "file"))]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The `call` languages of the Lisps and of Octave.
    const LISP: Dialect = Dialect::Calls("lisp");
    const OCTAVE: Dialect = Dialect::Calls("octave");

    fn shells(d: Dialect, code: &str) -> Vec<String> {
        // A URL is one argument; other dialects get the code's words.
        let words: Vec<String> = match d {
            Dialect::GitExt => vec![code.to_string()],
            _ => code.split_whitespace().map(str::to_string).collect(),
        };
        scan(d, code, &words)
            .into_iter()
            .filter_map(|e| match e {
                Effect::Shell(s) => Some(inline::shell_text(&s)),
                Effect::Words(w) => Some(
                    w.iter()
                        .map(|v| v.literal().unwrap_or_default())
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
            .collect()
    }

    /// (dialect, code, what it runs)
    const ESCAPES: &[(Dialect, &str, &[&str])] = &[
        (Dialect::Bang, "get a.txt\n!rm -rf ~\nbye", &["rm -rf ~"]),
        (Dialect::Bang, "1,$w !sh\nq", &["sh"]),
        (Dialect::Bang, "r !date\nw\nq", &["date"]),
        (Dialect::Bang, "put build.tar\nls -l\nbye", &[]),
        (Dialect::Psql, "\\! rm -rf ~", &["rm -rf ~"]),
        (Dialect::Psql, "select 1 \\g |sh", &["sh"]),
        (
            Dialect::Psql,
            "\\copy t to program 'gzip > t.gz'",
            &["gzip > t.gz"],
        ),
        (Dialect::Psql, "select * from programs; \\dt", &[]),
        (Dialect::Mysql, "system rm -rf ~", &["rm -rf ~"]),
        (Dialect::Mysql, "select 1; \\! id", &["id"]),
        (Dialect::Mysql, "select system_user();", &[]),
        (Dialect::Sqlite, ".shell rm -rf ~", &["rm -rf ~"]),
        (Dialect::Sqlite, ".once '|sh'\nselect 'x';", &["sh"]),
        (Dialect::Sqlite, ".tables\nselect * from t;", &[]),
        (Dialect::Gdb, "shell rm -rf ~", &["rm -rf ~"]),
        (Dialect::Gdb, "!id", &["id"]),
        (
            Dialect::Gdb,
            "python import os; os.system('rm -rf ~')",
            &["rm -rf ~"],
        ),
        (Dialect::Gdb, "run", &[]),
        (Dialect::Gdb, "call system(\"rm -rf ~\")", &["rm -rf ~"]),
        (Dialect::Gdb, "print strlen(\"system\")", &[]),
        (Dialect::Gdb, "break system", &[]),
        (Dialect::Lldb, "platform shell rm -rf ~", &["rm -rf ~"]),
        (Dialect::Lldb, "pla sh -t 5 -- rm -rf ~", &["rm -rf ~"]),
        (Dialect::Lldb, "shell id", &["id"]),
        (
            Dialect::Lldb,
            "script import os; os.system('rm -rf ~')",
            &["rm -rf ~"],
        ),
        (
            Dialect::Lldb,
            "script -l lua -- os.execute('rm -rf ~')",
            &["rm -rf ~"],
        ),
        (
            Dialect::Lldb,
            "expr (int)system(\"rm -rf ~\")",
            &["rm -rf ~"],
        ),
        (Dialect::Lldb, "run", &[]),
        (Dialect::Lldb, "bt all", &[]),
        (Dialect::Lldb, "platform status", &[]),
        (Dialect::Lldb, "breakpoint set -n main", &[]),
        (Dialect::Tcl, "spawn ssh host; expect eof", &["ssh host"]),
        (
            Dialect::Tcl,
            "set x [exec rm -rf /tmp/a]",
            &["rm -rf /tmp/a"],
        ),
        (Dialect::Tcl, "puts \"hello\"; set x 1", &[]),
        (Dialect::M4, "esyscmd(`rm -rf ~')", &["rm -rf ~"]),
        (Dialect::M4, "define(`x', `y')x", &[]),
        (Dialect::Dc, "!rm -rf ~", &["rm -rf ~"]),
        (Dialect::Dc, "3 4 !<a p", &[]),
        (Dialect::Gnuplot, "system('rm -rf ~')", &["rm -rf ~"]),
        (Dialect::Gnuplot, "plot '< cat data.txt'", &["cat data.txt"]),
        (Dialect::Gnuplot, "plot 'data.txt' using 1:2", &[]),
        (Dialect::Rpm, "%(rm -rf ~)", &["rm -rf ~"]),
        (Dialect::Rpm, "%{_libdir}", &[]),
        (
            Dialect::Tex,
            "\\immediate\\write18{rm -rf ~}",
            &["rm -rf ~"],
        ),
        (Dialect::Tex, "\\documentclass{article}", &[]),
        (Dialect::Socat, "- SYSTEM:id", &["id"]),
        (
            Dialect::Socat,
            "TCP-LISTEN:80,fork EXEC:/bin/cat",
            &["/bin/cat"],
        ),
        (Dialect::Socat, "- TCP:host:80", &[]),
        (Dialect::Screen, "stuff rm\\n", &["rm"]),
        (Dialect::Screen, "select 1", &[]),
        (Dialect::TmuxKeys, "make Enter", &["make"]),
        (Dialect::LessOpen, "|lesspipe %s", &["lesspipe file"]),
        (
            Dialect::GitExt,
            "ext::sh -c rm% -rf% ~",
            &["sh -c rm -rf ~"],
        ),
        (
            Dialect::GitExt,
            "ext::ssh -p 2222 %G host %S repo",
            &["ssh -p 2222 host git-upload-pack repo"],
        ),
        (Dialect::GitExt, "https://github.com/o/r.git", &[]),
        (
            Dialect::TmuxCommand,
            "run-shell make \\; display done",
            &["tmux run-shell make", "tmux display done"],
        ),
        (
            Dialect::TmuxCommand,
            "run-shell 'rm -rf ~'; kill-server",
            &["tmux run-shell rm -rf ~", "tmux kill-server"],
        ),
        (LISP, "(shell-command \"rm -rf ~\")", &["rm -rf ~"]),
        (
            LISP,
            "(call-process \"git\" nil t nil \"status\")",
            &["git status"],
        ),
        (LISP, "(org-babel-tangle-file \"README.org\")", &[]),
        (OCTAVE, "system('rm -rf ~')", &["rm -rf ~"]),
        (OCTAVE, "x = filesystem_size('/'); disp(x)", &[]),
        (OCTAVE, "disp(\"system ready\")", &[]),
        (LISP, "(message \"run shell-command later\")", &[]),
        (LISP, "(shell-command (concat \"make \" target))", &[]),
        (OCTAVE, "system([\"rm -rf \" d])", &[]),
        (OCTAVE, "system(\"rm -rf \" + d)", &[]),
        (
            OCTAVE,
            "[status, out] = system(\"git status\");",
            &["git status"],
        ),
    ];

    #[test]
    fn escapes_and_only_escapes() {
        for (d, code, want) in ESCAPES {
            let got = shells(*d, code);
            let want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
            assert_eq!(got, want, "{d:?}: {code}");
        }
    }
}
