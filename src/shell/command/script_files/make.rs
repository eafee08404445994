//! `make [TARGET…]`: the recipes the makefile on disk runs for the targets
//! and their prerequisites, as shell text.
//!
//! GNU make's reading, bounded and simplified where it cannot matter for
//! what runs: lines joined at a trailing backslash, comments dropped, a rule's
//! recipe lines (a tab first) in the order make runs them (prerequisites
//! first, each target once), each in its own shell (`( LINE )`, as make runs
//! each line); `$(VAR)`, `${VAR}`, `$X` expanded from the makefile's own
//! assignments and the command line's (`make VAR=x`), `$@ $< $^ $*` from the
//! rule, `$(MAKE)` as `make`, `$(shell …)` as the command substitution it is,
//! `$$` as `$`. Anything else (the environment, other functions) is a shell
//! variable nobody knows, so the command it is in is uncertain. A recipe of
//! a target that only a conditional (`ifeq … endif`) or a pattern rule
//! (`%.o: %.c`) gives is in a branch of the text (`if …; then ( LINE ); fi`):
//! make may or may not run it.
//!
//! **Code make runs while it reads.** `$(shell …)` in an immediate context
//! (a `:=` value, a `!=` assignment, a rule's targets and prerequisites, a
//! conditional, an `include`, a function call on a line of its own, and the
//! deferred variables these name) runs when make reads the makefile, before
//! any goal and whichever goal is asked, even under `make -n`: it comes first
//! in the text, as certain as its place (a conditional makes it uncertain).
//!
//! **Goals read from input.** `xargs make test`, `parallel -X make test`,
//! `xargs -I _ make _`, `fd -x make`: what the input holds is handed to make
//! after the line's own words, where make reads it as more goals. A goal can
//! only name a target of the makefile or a file a pattern rule makes, so
//! every such recipe may run (uncertain, as a conditional's), besides the
//! named goals' (certain). Input that lands where make reads a makefile, a
//! folder or an include folder (`xargs make -f`, `xargs make -C`, `xargs
//! make -I`) can be any code: unknown. The limit of this reading: an input
//! word could also be an option or an assignment (`--eval=…`, `X:=$(shell
//! …)`), which make takes anywhere on its command line; input is judged as
//! the operands it is meant to be, as `xargs rm` reads names, not options.
//!
//! Unknown code: a makefile over [`super::MAX_SCRIPT_BYTES`] or not a regular
//! file, a target found nowhere while an `include` could not be read. Nothing:
//! `--help`, `--version`, no makefile; only the code make runs while reading
//! for `make -n` (and `-q`, `-t`) and for a target with no rule (make stops,
//! or the file exists and no recipe runs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{read_script, Found, SimpleCommand, MAX_SCRIPT_BYTES};

/// Targets followed per `make` (prerequisites included).
const MAX_TARGETS: usize = 64;
/// Makefiles read per `make` (includes included).
const MAX_FILES: usize = 8;
/// Nesting of variable references expanded.
const MAX_EXPANSION: usize = 16;

/// The text that stands for what nobody knows before make runs.
const UNKNOWN: &str = "${HOOKRULES_MAKE_UNKNOWN}";

/// Is the command `make` (GNU make's names)?
pub(super) fn runs_make(c: &SimpleCommand) -> bool {
    matches!(c.program.as_str(), "make" | "gmake") && c.code.is_none()
}

/// An argument as the shell hands it to make: its text, and whether that
/// text is known before the command runs. A known text is literal, `$` and
/// all (`make test !$`: bash runs `-c` text without history expansion, so
/// make is given the two characters); an unknown one is the word as written
/// (`$X`, `$(cmd)`). `input`: what xargs, parallel or fd read from their
/// input and hand make in this place (`xargs make test`, `xargs -I _ make
/// _`), not a value the line chose.
#[derive(Clone)]
struct Word {
    text: String,
    known: bool,
    input: bool,
}

impl Word {
    /// A word whose text is known.
    fn known(text: String) -> Word {
        Word {
            text,
            known: true,
            input: false,
        }
    }

    /// The rest of this argument after an option letter glued to it
    /// (`-C$dir`), known as the argument is.
    fn rest(&self, text: String) -> Word {
        Word {
            text,
            known: self.known,
            input: self.input,
        }
    }
}

/// Is every part of `v` nobody knows what a runner hands make from its
/// input or its finds: what `xargs -I` or `parallel` put in its place
/// (`xargs -I _ make test _`, `parallel make test {}`), or the paths `fd -x`
/// adds (names found below a folder)?
fn from_xargs_input(v: &crate::shell::value::Value) -> bool {
    use crate::shell::value::Piece;
    let input = |p: &Piece| match p {
        Piece::Unknown(label) => label == "(input from xargs)" || label == "(input from parallel)",
        Piece::Below => true,
        _ => false,
    };
    v.0.iter().any(|s| s.0.iter().any(input))
        && v.0.iter().all(|s| {
            s.0.iter()
                .all(|p| input(p) || matches!(p, Piece::Text(_) | Piece::Start))
        })
}

/// How `make` is called.
#[derive(Default)]
struct Call {
    dir: Option<Word>,
    file: Option<Word>,
    targets: Vec<Word>,
    vars: BTreeMap<String, String>,
    /// `--help`, `--version`: no makefile is read.
    reads_nothing: bool,
    /// `-n`, `-q`, `-t`: the makefile is read, no recipe runs.
    runs_no_recipe: bool,
    /// `-I DIR` with a folder only the run knows: an `include` may read
    /// any makefile.
    include_unknown: bool,
}

/// Read make's arguments (GNU make's options).
fn call(args: &[Word]) -> Call {
    let mut call = Call::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if let Some(long) = a.text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(a.rest(v.to_string()))),
                None => (long, None),
            };
            let mut value = || value.clone().or_else(|| it.next().cloned());
            match name {
                "directory" => call.dir = value(),
                "file" | "makefile" => call.file = value(),
                "include-dir" => call.include_unknown |= value().is_some_and(|w| !w.known),
                "old-file" | "assume-old" | "what-if" | "new-file" | "assume-new" => {
                    value();
                }
                "dry-run" | "just-print" | "recon" | "question" | "touch" => {
                    call.runs_no_recipe = true
                }
                "help" | "version" => call.reads_nothing = true,
                _ => {}
            }
        } else if let Some(flags) = a.text.strip_prefix('-').filter(|f| !f.is_empty()) {
            let chars: Vec<char> = flags.chars().collect();
            for (i, ch) in chars.iter().enumerate() {
                let rest: String = chars[i + 1..].iter().collect();
                let mut value = || {
                    if rest.is_empty() {
                        it.next().cloned()
                    } else {
                        Some(a.rest(rest.clone()))
                    }
                };
                match ch {
                    'C' => {
                        call.dir = value();
                        break;
                    }
                    'f' => {
                        call.file = value();
                        break;
                    }
                    'I' => {
                        call.include_unknown |= value().is_some_and(|w| !w.known);
                        break;
                    }
                    'o' | 'W' => {
                        value();
                        break;
                    }
                    // Optional values, attached only.
                    'j' | 'l' | 'O' => break,
                    'n' | 'q' | 't' => call.runs_no_recipe = true,
                    'v' | 'h' => call.reads_nothing = true,
                    _ => {}
                }
            }
        } else if let Some((k, v)) = a.text.split_once('=').filter(|(k, _)| is_name(k)) {
            call.vars.insert(k.to_string(), v.to_string());
        } else {
            call.targets.push(a.clone());
        }
    }
    call
}

/// Names read per pattern (more: the pattern is unknown).
const MAX_GLOB_NAMES: usize = 1024;

/// A word that is a shell pattern in its last component (`!*`, `src/*.c`,
/// `test-?`): the words the shell hands make, read from disk as bash reads
/// them (a wildcard does not match a leading `.`; no match leaves the
/// pattern as written: history expansion is off in the non-interactive
/// shell a hook's command runs in, so `make test !*` passes `!*` when no
/// name starts with `!`). `None` when that cannot be known: another kind of
/// unknown piece, a pattern in a folder's name, a folder that cannot be
/// read or holds too many names, or a name make would read as an option or
/// an assignment (`-f x`, `--eval=…`, `X:=$(shell …)`), which a repository
/// could ship to run its code.
fn glob_words(v: &crate::shell::value::Value, cwd: &Path) -> Option<Vec<String>> {
    use crate::shell::value::Piece;
    let [s] = v.0.as_slice() else { return None };
    // The folder as written, and the last component: as written (what bash
    // passes when nothing matches) and as a glob; whether it starts with a
    // literal `.` (a wildcard then matches hidden names).
    let mut folder = String::new();
    let (mut raw, mut pattern) = (String::new(), String::new());
    let (mut has_glob, mut dotted) = (false, false);
    for p in &s.0 {
        let (text, glob) = match p {
            Piece::Text(t) => (t.clone(), false),
            Piece::Start => (cwd.to_string_lossy().into_owned(), false),
            Piece::Glob(g) => (g.clone(), true),
            _ => return None,
        };
        if glob {
            if raw.is_empty() {
                dotted = false;
            }
            has_glob = true;
            raw.push_str(&text);
            pattern.push_str(&text);
            continue;
        }
        for ch in text.chars() {
            if ch == '/' {
                if has_glob {
                    return None;
                }
                folder.push_str(&raw);
                folder.push('/');
                raw.clear();
                pattern.clear();
                continue;
            }
            if raw.is_empty() {
                dotted = ch == '.';
            }
            raw.push(ch);
            pattern.push_str(&globset::escape(&ch.to_string()));
        }
    }
    if !has_glob || pattern.contains('/') {
        return None;
    }
    let matcher = globset::GlobBuilder::new(&pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .ok()?
        .compile_matcher();
    let dir = cwd.join(if folder.is_empty() { "." } else { &folder });
    let mut names = Vec::new();
    match std::fs::read_dir(&dir) {
        Ok(entries) => {
            for (i, e) in entries.enumerate() {
                if i >= MAX_GLOB_NAMES {
                    return None;
                }
                let name = e.ok()?.file_name().into_string().ok()?;
                if (name.starts_with('.') && !dotted) || !matcher.is_match(&name) {
                    continue;
                }
                if name.starts_with('-') || name.contains('=') {
                    return None;
                }
                names.push(format!("{folder}{name}"));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(_) => return None,
    }
    if names.is_empty() {
        return Some(vec![format!("{folder}{raw}")]);
    }
    names.sort();
    Some(names)
}

fn is_name(k: &str) -> bool {
    !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
}

/// A rule: its targets' prerequisites and recipe lines.
#[derive(Clone, Default)]
struct Rule {
    prereqs: Vec<String>,
    recipe: Vec<String>,
    /// A conditional holds it: make may not have it.
    conditional: bool,
}

/// What was read of the makefiles.
#[derive(Default)]
struct Makefile {
    /// Variables (raw values), and those a conditional sets.
    vars: BTreeMap<String, String>,
    unsure: BTreeSet<String>,
    /// Explicit rules by target, in file order.
    rules: BTreeMap<String, Vec<Rule>>,
    /// Pattern rules: (target pattern, rule).
    patterns: Vec<(String, Rule)>,
    /// The first target (make's default goal).
    first: Option<String>,
    /// An `include` that could not be read.
    unread_include: bool,
    files: usize,
    /// Shell text make runs while reading (`$(shell …)` in an immediate
    /// context), and whether a conditional holds it.
    parse_time: Vec<(String, bool)>,
}

/// The recipes `make` runs, as shell text.
pub(super) fn recipes(c: &SimpleCommand, cwd: &Path) -> Found {
    // Each argument as the shell hands it to make, when known: a pattern
    // as the names it matches on disk (see [`glob_words`]).
    let mut args: Vec<Word> = Vec::new();
    for (a, v) in c.args.iter().zip(&c.values) {
        if let Some(text) = v.known_from(&cwd.to_string_lossy()) {
            args.push(Word::known(text));
            continue;
        }
        match glob_words(v, cwd) {
            Some(names) => args.extend(names.into_iter().map(Word::known)),
            None => args.push(Word {
                text: a.clone(),
                known: false,
                input: from_xargs_input(v),
            }),
        }
    }
    // Words read from input (`xargs make test`, `parallel -X make test`)
    // come after the line's own.
    if c.operands_from_input {
        args.push(Word {
            text: UNKNOWN.to_string(),
            known: false,
            input: true,
        });
    }
    let call = call(&args);
    if call.reads_nothing {
        return Found::Nothing;
    }
    // Input read as a makefile, a folder of makefiles or an option's value
    // (`xargs make -f`, `xargs make -C`, `xargs make -I`) can be any code;
    // input read as goals (`xargs make test`) names targets of this
    // makefile, judged below. A variable the line chose is unknown anywhere.
    let unknown = |w: &Word| !w.known;
    if call.file.iter().any(unknown)
        || call.include_unknown
        || call.targets.iter().any(|t| !t.known && !t.input)
    {
        return Found::Unknown;
    }
    let input_goals = call.targets.iter().any(|t| t.input);
    // A folder only the run knows (`make -C "$tmp" -f "$PWD/Makefile"`): the
    // recipes run there, wherever it is.
    let dir_unknown = call.dir.as_ref().is_some_and(unknown);
    if dir_unknown && !call.file.as_ref().is_some_and(|f| f.text.starts_with('/')) {
        return Found::Unknown;
    }
    let dir = match &call.dir {
        Some(_) if dir_unknown => cwd.to_path_buf(),
        Some(d) => cwd.join(&d.text),
        None => cwd.to_path_buf(),
    };
    let path = match &call.file {
        Some(f) => dir.join(&f.text),
        None => match ["GNUmakefile", "makefile", "Makefile"]
            .iter()
            .map(|n| dir.join(n))
            .find(|p| super::code_file(p))
        {
            Some(p) => p,
            None => return Found::Nothing,
        },
    };
    let mut mk = Makefile::default();
    match read(&mut mk, &path, &dir, 0) {
        Ok(true) => {}
        Ok(false) => return Found::Nothing,
        Err(()) => return Found::Unknown,
    }
    mk.vars.extend(call.vars.clone());
    for k in call.vars.keys() {
        mk.unsure.remove(k);
    }
    let named: Vec<String> = call
        .targets
        .iter()
        .filter(|t| t.known)
        .map(|t| t.text.clone())
        .collect();
    let goals = match (&mk.first, named.is_empty()) {
        _ if call.runs_no_recipe => Vec::new(),
        // (goals read from input only: the default goal when the input is
        // empty, so it is one of those that may run, below)
        _ if input_goals && named.is_empty() => Vec::new(),
        (Some(f), true) => vec![f.clone()],
        (None, true) => Vec::new(),
        (_, false) => named,
    };
    let mut text = String::new();
    for (shell, conditional) in &mk.parse_time {
        push_line(&mut text, shell, *conditional);
    }
    let mut done = BTreeSet::new();
    let mut missing = false;
    for g in &goals {
        if !build(&mk, g, &mut done, &mut text, &mut missing, false) {
            return Found::Unknown;
        }
    }
    // A goal read from input may be any target of the makefile, or a file a
    // pattern rule makes (make's built-in rules run its compilers): each
    // such recipe may run, none certainly. A name no rule has, make stops at.
    if input_goals && !call.runs_no_recipe {
        if mk.unread_include {
            return Found::Unknown;
        }
        let any: Vec<String> = mk
            .rules
            .keys()
            .filter(|t| !t.starts_with('.'))
            .cloned()
            .chain(mk.patterns.iter().map(|(p, _)| p.replace('%', UNKNOWN)))
            .collect();
        for g in &any {
            if !build(&mk, g, &mut done, &mut text, &mut missing, true) {
                return Found::Unknown;
            }
        }
    }
    if missing && mk.unread_include {
        return Found::Unknown;
    }
    if text.is_empty() {
        return Found::Nothing;
    }
    let cd = if dir_unknown {
        format!("cd {UNKNOWN} || exit 1")
    } else {
        format!(
            "cd {} || exit 1",
            crate::shell::quote(&dir.to_string_lossy())
        )
    };
    let mut entry = goals.join(" ");
    if input_goals {
        entry.push_str(if entry.is_empty() {
            "(goals from input)"
        } else {
            " (goals from input)"
        });
    }
    Found::Text(super::Origin { path, entry }, format!("{cd}\n{text}"))
}

/// One line of shell text, in its own shell as make runs each; in a branch
/// of the text when make may not run it.
fn push_line(text: &mut String, line: &str, uncertain: bool) {
    if uncertain {
        text.push_str("if [ -n \"$HOOKRULES_MAKE_UNKNOWN\" ]; then (\n");
        text.push_str(line);
        text.push_str("\n); fi\n");
    } else {
        text.push_str("(\n");
        text.push_str(line);
        text.push_str("\n)\n");
    }
}

/// Add to `mk.parse_time` the `$(shell …)` calls make runs as it reads
/// `text` in an immediate context, as shell text: those written in it, in
/// the functions it calls (`$(info $(shell …))`), and in the deferred
/// variables it names (`X = $(shell …)` then `all: $(X)`).
fn parse_time(mk: &mut Makefile, text: &str, conditional: bool) {
    let mut found = Vec::new();
    let mut seen = BTreeSet::new();
    shells_in(mk, text, 0, &mut seen, &mut found);
    for shell in found {
        if mk.parse_time.len() < MAX_TARGETS {
            mk.parse_time.push((shell, conditional));
        }
    }
}

fn shells_in(
    mk: &Makefile,
    text: &str,
    depth: usize,
    seen: &mut BTreeSet<String>,
    out: &mut Vec<String>,
) {
    if depth > MAX_EXPANSION || out.len() >= MAX_TARGETS {
        return;
    }
    for inner in references(text) {
        if let Some(cmd) = inner.strip_prefix("shell ") {
            out.push(expand(mk, cmd, &Auto::default(), 0));
        } else if inner.contains([' ', ',', ':']) {
            // A function: its arguments are read now too.
            shells_in(mk, &inner, depth + 1, seen, out);
        } else if let Some(value) = mk.vars.get(&inner) {
            if seen.insert(inner.clone()) {
                shells_in(mk, value, depth + 1, seen, out);
            }
        }
    }
}

/// Where the bracket at `open` (`(` or `{`) closes, counting nested pairs of
/// the same kind as make does; `None` when it never closes.
fn closing(chars: &[char], open: usize) -> Option<usize> {
    let (opener, close) = match chars.get(open)? {
        '(' => ('(', ')'),
        _ => ('{', '}'),
    };
    let mut level = 0usize;
    for (j, &c) in chars.iter().enumerate().skip(open) {
        if c == opener {
            level += 1;
        } else if c == close {
            level -= 1;
            if level == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// The references of make text (`$(…)`, `${…}`, `$X`), outermost only, by
/// their inner text; `$$` is none.
fn references(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 1 < chars.len() {
        if chars[i] != '$' {
            i += 1;
            continue;
        }
        let next = chars[i + 1];
        match next {
            '$' => i += 2,
            '(' | '{' => {
                let j = closing(&chars, i + 1).unwrap_or(chars.len());
                out.push(chars[i + 2..j].iter().collect());
                i = j + 1;
            }
            c => {
                out.push(c.to_string());
                i += 2;
            }
        }
    }
    out
}

/// Read a makefile (and what it includes) into `mk`: `Ok(false)` when there
/// is none to read.
fn read(mk: &mut Makefile, path: &Path, dir: &Path, depth: usize) -> Result<bool, ()> {
    mk.files += 1;
    if mk.files > MAX_FILES || depth > 2 {
        return Err(());
    }
    // A makefile the line itself writes is read where the line writes it
    // (extract: its text when known, unknown code when not).
    if super::written_by_line(path) {
        return Ok(false);
    }
    let text = match read_script(path, false)? {
        Some(t) => t,
        None => return Ok(false),
    };
    let mut conds = 0usize;
    let mut current: Option<(Vec<String>, Rule)> = None;
    let mut define: Option<String> = None;
    let mut lines = text.split('\n').peekable();
    while let Some(raw) = lines.next() {
        let mut line = raw.trim_end_matches('\r').to_string();
        while line.ends_with('\\') {
            line.pop();
            match lines.next() {
                Some(next) => {
                    line.push(' ');
                    line.push_str(next.trim_start());
                }
                None => break,
            }
        }
        if let Some(name) = &define {
            if line.trim() == "endef" {
                mk.unsure.insert(name.clone());
                define = None;
            }
            continue;
        }
        if let Some(recipe) = line.strip_prefix('\t') {
            if let Some((_, rule)) = current.as_mut() {
                rule.recipe.push(recipe.to_string());
                continue;
            }
        }
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        // A line that is not a recipe ends the rule.
        if let Some((targets, rule)) = current.take() {
            add_rule(mk, targets, rule);
        }
        let word = trimmed.split_whitespace().next().unwrap_or("");
        match word {
            "ifeq" | "ifneq" | "ifdef" | "ifndef" => {
                parse_time(mk, trimmed, conds > 0);
                conds += 1;
                continue;
            }
            "else" => continue,
            "endif" => {
                conds = conds.saturating_sub(1);
                continue;
            }
            "define" => {
                define = trimmed.split_whitespace().nth(1).map(str::to_string);
                continue;
            }
            "include" | "-include" | "sinclude" => {
                // An optional include (`-include $(DEPS)`) that is not there
                // is usually generated dependencies; a required one that
                // cannot be read may hold any rule.
                let required = word == "include";
                parse_time(mk, trimmed, conds > 0);
                let names = expand(mk, trimmed[word.len()..].trim(), &Auto::default(), 0);
                for name in names.split_whitespace() {
                    if name.contains(['$', '*', '?', '[']) {
                        mk.unread_include |= required;
                        continue;
                    }
                    match read(mk, &dir.join(name), dir, depth + 1) {
                        Ok(true) => {}
                        Ok(false) => mk.unread_include |= required,
                        Err(()) => mk.unread_include = true,
                    }
                }
                continue;
            }
            _ => {}
        }
        let body = trimmed
            .strip_prefix("export ")
            .or_else(|| trimmed.strip_prefix("override "))
            .unwrap_or(trimmed);
        if let Some((name, op, value)) = assignment(body) {
            if conds > 0 {
                mk.unsure.insert(name.to_string());
            }
            let value = value.trim().to_string();
            let value = match op {
                "+=" => format!("{} {value}", mk.vars.get(name).cloned().unwrap_or_default()),
                "?=" if mk.vars.contains_key(name) => continue,
                ":=" | "::=" | ":::=" => {
                    parse_time(mk, &value, conds > 0);
                    expand(mk, &value, &Auto::default(), 0)
                }
                // `X != CMD` runs CMD now; its output nobody knows.
                "!=" => {
                    let shell = expand(mk, &value, &Auto::default(), 0);
                    mk.parse_time.push((shell, conds > 0));
                    UNKNOWN.to_string()
                }
                _ => value,
            };
            mk.vars.insert(name.to_string(), value);
            continue;
        }
        if let Some((targets, rest)) = split_rule(trimmed) {
            let (prereqs, inline) = match rest.split_once(';') {
                Some((p, r)) => (p, Some(r.trim().to_string())),
                None => (rest, None),
            };
            // A target-specific variable (`t: VAR = x`) is no rule.
            if let Some((_, op, value)) = assignment(prereqs.trim()) {
                if matches!(op, ":=" | "::=" | ":::=") {
                    parse_time(mk, value, conds > 0);
                }
                continue;
            }
            parse_time(mk, targets, conds > 0);
            parse_time(mk, prereqs, conds > 0);
            // make expands a rule's targets and prerequisites as it reads them.
            let none = Auto::default();
            let targets = expand(mk, targets, &none, 0);
            let targets: Vec<String> = targets.split_whitespace().map(str::to_string).collect();
            let prereqs = expand(mk, prereqs, &none, 0);
            let rule = Rule {
                prereqs: prereqs.split_whitespace().map(str::to_string).collect(),
                recipe: inline.into_iter().filter(|r| !r.is_empty()).collect(),
                conditional: conds > 0,
            };
            if mk.first.is_none() {
                mk.first = targets
                    .iter()
                    .find(|t| !t.starts_with('.') && !t.contains('%'))
                    .cloned();
            }
            current = Some((targets, rule));
        } else {
            // A function called on a line of its own (`$(shell …)`,
            // `$(eval …)`, `$(info …)`).
            parse_time(mk, trimmed, conds > 0);
        }
    }
    if let Some((targets, rule)) = current.take() {
        add_rule(mk, targets, rule);
    }
    Ok(true)
}

fn add_rule(mk: &mut Makefile, targets: Vec<String>, rule: Rule) {
    for t in targets {
        if t.contains('%') {
            mk.patterns.push((t, rule.clone()));
        } else {
            mk.rules.entry(t).or_default().push(rule.clone());
        }
    }
}

/// `NAME = value`, `NAME := value`, `NAME ?= …`, `NAME += …`, `NAME ::= …`,
/// `NAME :::= …`, `NAME != …` (the last runs a shell).
fn assignment(line: &str) -> Option<(&str, &str, &str)> {
    let at = line.find(['=', ':', '?', '+', '!'])?;
    let name = line[..at].trim();
    if !is_name(name) {
        return None;
    }
    let rest = &line[at..];
    for op in [":::=", "::=", ":=", "?=", "+=", "!=", "="] {
        if let Some(v) = rest.strip_prefix(op) {
            return Some((name, op, v));
        }
    }
    None
}

/// `targets: prerequisites` (a single or double colon).
fn split_rule(line: &str) -> Option<(&str, &str)> {
    let at = line.find(':')?;
    let rest = &line[at + 1..];
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    Some((&line[..at], rest))
}

/// The automatic variables of a rule.
#[derive(Default)]
struct Auto {
    target: String,
    prereqs: Vec<String>,
    stem: String,
}

/// Add the recipe of `target` (after its prerequisites') to `text`; `false`
/// past the bounds. `maybe`: make may or may not build it (a goal read from
/// input may name it), so every line is in a branch of the text.
fn build(
    mk: &Makefile,
    target: &str,
    done: &mut BTreeSet<String>,
    text: &mut String,
    missing: &mut bool,
    maybe: bool,
) -> bool {
    if done.contains(target) {
        return true;
    }
    if done.len() >= MAX_TARGETS || text.len() as u64 > MAX_SCRIPT_BYTES {
        return false;
    }
    done.insert(target.to_string());
    let (rules, stem, pattern): (Vec<Rule>, String, bool) = match mk.rules.get(target) {
        Some(r) => (r.clone(), String::new(), false),
        None => match mk
            .patterns
            .iter()
            .find_map(|(p, r)| stem_of(p, target).map(|s| (r, s)))
        {
            Some((r, s)) => (vec![r.clone()], s, true),
            None => {
                *missing = true;
                return true;
            }
        },
    };
    let auto_prereqs: Vec<String> = rules
        .iter()
        .flat_map(|r| r.prereqs.iter())
        .map(|p| p.replace('%', &stem))
        .collect();
    for p in &auto_prereqs {
        // A name only the environment or the run gives (`$(OBJS)` undefined).
        if !p.contains('$') && !build(mk, p, done, text, missing, maybe) {
            return false;
        }
    }
    let auto = Auto {
        target: target.to_string(),
        prereqs: auto_prereqs,
        stem,
    };
    for r in &rules {
        for line in &r.recipe {
            let line = line.trim_start_matches(['@', '-', '+', ' ', '\t']);
            let line = expand(mk, line, &auto, 0);
            if line.trim().is_empty() {
                continue;
            }
            if r.conditional || pattern || maybe {
                text.push_str("if [ -n \"$HOOKRULES_MAKE_UNKNOWN\" ]; then (\n");
                text.push_str(&line);
                text.push_str("\n); fi\n");
            } else {
                text.push_str("(\n");
                text.push_str(&line);
                text.push_str("\n)\n");
            }
        }
    }
    true
}

/// A name the shell can expand as a variable (`HOME`, `BUILD_DIR`; not
/// `foo.bar` or `1`).
fn is_shell_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The stem when `target` matches the pattern (`%.o` and `main.o`: `main`).
fn stem_of(pattern: &str, target: &str) -> Option<String> {
    let (pre, post) = pattern.split_once('%')?;
    let stem = target.strip_prefix(pre)?.strip_suffix(post)?;
    Some(stem.to_string())
}

/// Expand make's references in `s`: the result is shell text.
fn expand(mk: &Makefile, s: &str, auto: &Auto, depth: usize) -> String {
    if depth > MAX_EXPANSION {
        return UNKNOWN.to_string();
    }
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let ch = chars[i];
        if ch != '$' {
            out.push(ch);
            i += 1;
            continue;
        }
        let Some(&next) = chars.get(i + 1) else {
            out.push('$');
            break;
        };
        match next {
            '$' => {
                out.push('$');
                i += 2;
            }
            '(' | '{' => {
                let Some(end) = closing(&chars, i + 1) else {
                    out.push_str(UNKNOWN);
                    break;
                };
                let inner: String = chars[i + 2..end].iter().collect();
                out.push_str(&reference(mk, &inner, auto, depth));
                i = end + 1;
            }
            c => {
                out.push_str(&reference(mk, &c.to_string(), auto, depth));
                i += 2;
            }
        }
    }
    out
}

/// A name make hands the shell as one word (a target, a prerequisite, a
/// stem), quoted; a part nobody knows (the stem of a goal read from input)
/// stays the variable nobody sets, so the shell text keeps it unknown.
fn word(name: &str) -> String {
    if !name.contains(UNKNOWN) {
        return crate::shell::quote(name);
    }
    name.split(UNKNOWN)
        .map(|p| {
            if p.is_empty() {
                String::new()
            } else {
                crate::shell::quote(p)
            }
        })
        .collect::<Vec<_>>()
        .join(&format!("\"{UNKNOWN}\""))
}

/// The value of one reference (`VAR`, `@`, `shell cmd`, `MAKE`).
fn reference(mk: &Makefile, inner: &str, auto: &Auto, depth: usize) -> String {
    if let Some(cmd) = inner.strip_prefix("shell ") {
        return format!("$({})", expand(mk, cmd, auto, depth + 1));
    }
    match inner {
        "@" => return word(&auto.target),
        "<" => return auto.prereqs.first().map(|p| word(p)).unwrap_or_default(),
        "^" | "+" => {
            return auto
                .prereqs
                .iter()
                .map(|p| word(p))
                .collect::<Vec<_>>()
                .join(" ")
        }
        "*" => return word(&auto.stem),
        "MAKE" => return "make".into(),
        _ => {}
    }
    if inner.contains([' ', ',', ':']) {
        // A function (`$(wildcard …)`, `$(patsubst …)`) or a substitution
        // reference: not followed.
        return UNKNOWN.into();
    }
    let name = expand(mk, inner, auto, depth + 1);
    if mk.unsure.contains(&name) {
        return UNKNOWN.into();
    }
    match mk.vars.get(&name) {
        Some(v) => expand(mk, v, auto, depth + 1),
        None => match name.as_str() {
            "RM" => "rm -f".into(),
            "CURDIR" => UNKNOWN.into(),
            "CC" => "cc".into(),
            "CXX" => "g++".into(),
            "AR" => "ar".into(),
            // make reads the environment as variables (`$(HOME)`), and the
            // recipe's shell sees the same environment: a name the makefile
            // and the command line leave undefined is the environment's
            // variable of that name, as the shell reads it (`${HOME}` is the
            // home folder; one the analysis does not know stays unknown).
            _ if is_shell_name(&name) => format!("${{{name}}}"),
            _ => UNKNOWN.into(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(makefile: &str, args: &[&str]) -> String {
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("hookrules-make-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("Makefile"), makefile).unwrap();
        let mut c = crate::shell::command::parse(&format!("make {}", args.join(" ")))
            .unwrap()
            .remove(0);
        c.cwd = crate::shell::value::Value::text(&dir.to_string_lossy());
        let got = match recipes(&c, &dir) {
            Found::Text(_, t) => t.lines().skip(1).collect::<Vec<_>>().join("\n"),
            Found::Nothing => "(nothing)".into(),
            Found::Unknown => "(unknown)".into(),
        };
        std::fs::remove_dir_all(&dir).unwrap();
        got
    }

    /// `make ARGS` in a folder holding the makefile and these files.
    fn text_with(makefile: &str, files: &[&str], args: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
        for f in files {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let mut c = crate::shell::command::parse(&format!("make {args}"))
            .unwrap()
            .remove(0);
        c.cwd = crate::shell::value::Value::text(&dir.path().to_string_lossy());
        match recipes(&c, dir.path()) {
            Found::Text(_, t) => t.lines().skip(1).collect::<Vec<_>>().join("\n"),
            Found::Nothing => "(nothing)".into(),
            Found::Unknown => "(unknown)".into(),
        }
    }

    /// The recipes of the `make` that `line` runs, in a folder holding the
    /// makefile.
    fn text_of_line(makefile: &str, line: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Makefile"), makefile).unwrap();
        let mut c = crate::shell::command::parse(line)
            .unwrap()
            .into_iter()
            .find(|c| c.program == "make")
            .unwrap();
        c.cwd = crate::shell::value::Value::text(&dir.path().to_string_lossy());
        match recipes(&c, dir.path()) {
            Found::Text(_, t) => t.lines().skip(1).collect::<Vec<_>>().join("\n"),
            Found::Nothing => "(nothing)".into(),
            Found::Unknown => "(unknown)".into(),
        }
    }

    #[test]
    fn goals_read_from_input_may_be_any_target_of_the_makefile() {
        let mk = "test:\n\tcargo test\nclean:\n\trm -rf build\n.PHONY: test clean\n%.o: %.c\n\tcc -c $< -o $@\n";
        let maybe =
            |line: &str| format!("if [ -n \"$HOOKRULES_MAKE_UNKNOWN\" ]; then (\n{line}\n); fi");
        let pattern =
            maybe("cc -c \"${HOOKRULES_MAKE_UNKNOWN}\".c -o \"${HOOKRULES_MAKE_UNKNOWN}\".o");
        // The named goal certainly; every other target, and a pattern rule's
        // file, may run.
        assert_eq!(
            text_of_line(mk, "arguments-source | xargs make test"),
            format!("(\ncargo test\n)\n{}\n{pattern}", maybe("rm -rf build"))
        );
        // Only input: any target (the default goal when the input is empty).
        let any = format!(
            "{}\n{}\n{pattern}",
            maybe("rm -rf build"),
            maybe("cargo test")
        );
        assert_eq!(text_of_line(mk, "xargs -a list.txt make"), any);
        assert_eq!(text_of_line(mk, "cat list.txt | xargs -I _ make _"), any);
        assert_eq!(
            text_of_line(mk, "git diff --name-only | parallel -X make"),
            any
        );
        // Input read as a makefile, a folder or an include folder: any code.
        assert_eq!(
            text_of_line(mk, "find . -name '*.mk' | xargs make -f"),
            "(unknown)"
        );
        assert_eq!(
            text_of_line(mk, "cat dirs.txt | xargs make -C"),
            "(unknown)"
        );
        assert_eq!(
            text_of_line(mk, "cat dirs.txt | xargs make test -I"),
            "(unknown)"
        );
        assert_eq!(
            text_of_line(mk, "cat dirs.txt | xargs make --include-dir"),
            "(unknown)"
        );
        // Nothing runs a recipe under -n; a variable the line chose stays unknown.
        assert_eq!(
            text_of_line(mk, "cat list.txt | xargs make -n"),
            "(nothing)"
        );
        assert_eq!(
            text_of_line(mk, "cat list.txt | xargs make \"$GOAL\""),
            "(unknown)"
        );
    }

    #[test]
    fn a_pattern_goal_is_the_names_it_matches_or_itself() {
        let mk = "test:\n\tcargo test\nt1:\n\techo one\n.hid:\n\trm -rf x\n";
        // No name starts with `!`: make is given `!*` (history expansion is
        // off in a non-interactive shell), a goal with no rule.
        assert_eq!(text_with(mk, &["a.c"], "test !*"), "(\ncargo test\n)");
        assert_eq!(text_with(mk, &["a.c"], "'!*'"), "(nothing)");
        // The names on disk are the goals; a wildcard skips hidden names.
        assert_eq!(text_with(mk, &["t1"], "t?"), "(\necho one\n)");
        assert_eq!(text_with(mk, &[".hid"], "*"), "(nothing)");
        assert_eq!(text_with(mk, &[".hid"], ".h*"), "(\nrm -rf x\n)");
        // A name make reads as an option or an assignment: not known.
        assert_eq!(text_with(mk, &["-B"], "test *"), "(unknown)");
        assert_eq!(text_with(mk, &["!x:=1"], "test !*"), "(unknown)");
        // A pattern in a folder's name, or a value: not known.
        assert_eq!(text_with(mk, &[], "test */x"), "(unknown)");
        assert_eq!(text_with(mk, &[], "test \"$GOAL\""), "(unknown)");
    }

    #[test]
    fn recipes_of_the_goal_and_its_prerequisites_in_order() {
        let mk = "OUT = build\nall: gen app\n\t@echo done\ngen:\n\t-mkdir -p $(OUT)\napp: gen\n\t$(CC) -o $@ main.c\nclean:\n\trm -rf $(OUT) $$HOME/x\n";
        assert_eq!(
            text(mk, &[]),
            "(\nmkdir -p build\n)\n(\ncc -o app main.c\n)\n(\necho done\n)"
        );
        assert_eq!(text(mk, &["clean"]), "(\nrm -rf build $HOME/x\n)");
        assert_eq!(text(mk, &["OUT=/", "clean"]), "(\nrm -rf / $HOME/x\n)");
        assert_eq!(text(mk, &["-n", "clean"]), "(nothing)");
        assert_eq!(text(mk, &["nosuch"]), "(nothing)");
    }

    #[test]
    fn names_the_makefile_leaves_undefined_are_the_environment() {
        let mk = "D = $(HOME)/x\nclean:\n\trm -rf $(HOME) ${BUILD_DIR} $(D) $(foo.bar)\n";
        assert_eq!(
            text(mk, &["clean"]),
            "(\nrm -rf ${HOME} ${BUILD_DIR} ${HOME}/x ${HOOKRULES_MAKE_UNKNOWN}\n)"
        );
        assert_eq!(
            text(mk, &["HOME=/tmp/h", "clean"]),
            "(\nrm -rf /tmp/h ${BUILD_DIR} /tmp/h/x ${HOOKRULES_MAKE_UNKNOWN}\n)"
        );
    }

    #[test]
    fn a_dollar_the_shell_hands_over_is_a_target_name_not_an_unknown() {
        let mk = "test:\n\tcargo test\nclean:\n\trm -rf target\n";
        // `!$` is text outside an interactive shell, `'$X'` is quoted: both are known names.
        assert_eq!(text(mk, &["test", "!$"]), "(\ncargo test\n)");
        assert_eq!(text(mk, &["'$X'"]), "(nothing)");
        // A variable's value, glued to an option or not, is known only when it runs.
        assert_eq!(text(mk, &["$X"]), "(unknown)");
        assert_eq!(text(mk, &["-C$X", "clean"]), "(unknown)");
        assert_eq!(text(mk, &["--file=$MK", "test"]), "(unknown)");
    }

    #[test]
    fn conditional_pattern_and_unknown_values_are_marked() {
        let mk = "ifdef CI\nX := $(shell pwd)\nclean:\n\trm -rf $(X)\nendif\n%.o: %.c\n\tcc -c $< -o $@\n";
        // `pwd` runs while make reads, if CI is set.
        let pwd = "if [ -n \"$HOOKRULES_MAKE_UNKNOWN\" ]; then (\npwd\n); fi\n";
        assert_eq!(
            text(mk, &["clean"]),
            format!("{pwd}if [ -n \"$HOOKRULES_MAKE_UNKNOWN\" ]; then (\nrm -rf ${{HOOKRULES_MAKE_UNKNOWN}}\n); fi")
        );
        assert_eq!(
            text(mk, &["main.o"]),
            format!(
                "{pwd}if [ -n \"$HOOKRULES_MAKE_UNKNOWN\" ]; then (\ncc -c main.c -o main.o\n); fi"
            )
        );
        assert_eq!(text("include $(DEPS)\nall:\n\ttrue\n", &["x"]), "(unknown)");
        assert_eq!(
            text("-include $(DEPS)\nall:\n\ttrue\n", &["x"]),
            "(nothing)"
        );
    }

    #[test]
    fn shell_calls_run_while_reading_come_first_for_any_goal() {
        let mk = "V := $(shell git describe)\nL = $(shell later)\nN != uname -s\nD = $(shell dep)\nall: $(D)\n\techo $(L)\n$(info $(shell seen))\n";
        let first = "(\ngit describe\n)\n(\nuname -s\n)\n(\ndep\n)\n(\nseen\n)";
        assert_eq!(text(mk, &["-n"]), first);
        assert_eq!(text(mk, &["nosuch"]), first);
        assert_eq!(text(mk, &[]), format!("{first}\n(\necho $(later)\n)"));
        assert_eq!(text(mk, &["--version"]), "(nothing)");
        assert_eq!(
            text("X := $$(not make)\nall:\n\ttrue\n", &["-n"]),
            "(nothing)"
        );
    }
}
