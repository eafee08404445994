//! Code at the places the table names (`places`): the value of an option,
//! a configuration key, operands, standard input or a variable that a shell,
//! git or a tool will run. Literal code is analysed as the commands it is, with
//! the place in their `via`; code nobody can read before it runs makes the
//! command's `code` dynamic.

use super::super::escapes::{self, Dialect};
use super::super::inline;
use super::super::places::{self, Found, Lang, Load, Source};
use super::super::script_files;
use super::super::wrappers;
use super::{Code, Extractor, Field, Grammar, Input, Link, OffMap};
use crate::shell::command::{ParseError, RedirectOp};
use crate::shell::value::{Piece, Value};

/// Code at a place, as the analysis knows it.
pub(super) struct Text {
    /// The text, quote-removed, with expansions as written (they are expanded
    /// again where the code runs, by the shell that reads it).
    pub text: String,
    /// What the shell made of it: `None` when it is exactly `text`.
    pub value: Option<Value>,
}

impl Text {
    fn literal(text: &str) -> Text {
        Text {
            text: text.to_string(),
            value: None,
        }
    }

    /// Nobody can know it before it runs.
    fn unknown(&self) -> bool {
        self.value.as_ref().is_some_and(|v| {
            v.0.len() > 1 || v.0.iter().any(|s| s.literal().is_none() && s.has_unknown())
        })
    }

    /// It starts with something nobody can know (`$X`, `$(…)`): it decides
    /// what runs.
    fn starts_unknown(&self) -> bool {
        self.value.as_ref().is_some_and(|v| {
            v.0.iter()
                .any(|s| matches!(s.0.first(), Some(Piece::Unknown(_))))
        })
    }
}

impl Extractor {
    /// Every place of `prog` (lowercase) in this command that holds code.
    #[allow(clippy::too_many_arguments)] // reason: the chain's context, passed through
    pub(super) fn code_places(
        &mut self,
        at: usize,
        prog: &str,
        args: &[Field],
        texts: &[String],
        assigns: &[(String, String)],
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        for found in places::find(prog, texts) {
            let Found {
                source,
                lang,
                label,
                runs,
            } = found;
            let mut v = via.to_vec();
            v.push(label);
            match source {
                Source::Arg { arg, skip } => {
                    let Some(f) = args.get(arg) else { continue };
                    let t = field_text(f, skip);
                    self.run_code(at, lang, &t, &v, link, depth)?;
                    // A file of code a runner names (`uv run x.py`, `deno run
                    // x.ts`): read in the language its name says.
                    if lang == Lang::File
                        && super::super::script_files::file_lang(&t.text).is_some()
                    {
                        let value = t.value.unwrap_or_else(|| Value::text(&t.text));
                        self.stdin_files(at, &[value], lang);
                    }
                }
                Source::Args(range) => {
                    let fields = args.get(range).unwrap_or_default();
                    self.run_words(at, lang, fields, runs, &v, link, depth)?;
                }
                Source::Var(name) => {
                    let t = match assigns.iter().rev().find(|(n, _)| *n == name) {
                        Some((_, value)) => Text::literal(value),
                        None => Text::literal(&format!("${{{name}}}")),
                    };
                    self.run_code(at, lang, &t, &v, link, depth)?;
                }
                Source::Stdin => self.stdin_code(at, lang, prog, &v, link, depth)?,
                Source::File { arg, skip } => {
                    // Read from disk later (`script_files`), as a script
                    // given by name is.
                    // Unknown when nobody knows its name or the line wrote it.
                    let Some(f) = args.get(arg) else { continue };
                    let t = field_text(f, skip);
                    self.file_code(at, Lang::File, &t, &v, link, depth)?;
                    let value = t.value.unwrap_or_else(|| Value::text(&t.text));
                    self.stdin_files(at, &[value], lang);
                }
                Source::GitAlias { arg, skip, rest } => {
                    // The alias's words, then the arguments after its name.
                    let Some(f) = args.get(arg) else { continue };
                    let t = field_text(f, skip);
                    let mut fields = vec![Field::literal("git")];
                    fields.extend(
                        wrappers::split_words(&t.text)
                            .iter()
                            .map(|w| Field::literal(w)),
                    );
                    fields.extend(args.get(rest).unwrap_or_default().iter().cloned());
                    self.set_code(at, Code::Inline);
                    self.chain(fields, Vec::new(), v, link, depth + 1, false)?;
                }
            }
        }
        Ok(())
    }

    /// Assignments a command makes (`X=… cmd`, `export X=…`, `env X=… cmd`):
    /// the values of variables that hold code (`GIT_SSH_COMMAND`, `PS4`,
    /// `BASH_ENV`, `GIT_CONFIG_VALUE_n`, …) are analysed as that code.
    /// `values`: what the shell made of each, when known.
    pub(super) fn variable_code(
        &mut self,
        at: usize,
        assigns: &[(String, String)],
        values: &[Option<Value>],
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        for (k, (name, text)) in assigns.iter().enumerate() {
            let Some(lang) = places::variable(name) else {
                continue;
            };
            if let Lang::Loaded(load) = lang {
                // Folders module names are looked up in first, set beside it
                // (`PERL5LIB=. PERL5OPT=-Mx`) or exported before.
                let search = load.search_variable().map(|var| {
                    assigns
                        .iter()
                        .rev()
                        .find(|(n, _)| n == var)
                        .map(|(_, v)| v.clone())
                        .or_else(|| {
                            let b = self.state.vars.get(var).filter(|b| b.exported)?;
                            b.var.scalar().literal()
                        })
                        .unwrap_or_default()
                });
                let t = Text {
                    text: text.clone(),
                    value: values.get(k).cloned().flatten(),
                };
                self.loaded_code(at, load, &t, search.as_deref().unwrap_or(""));
                continue;
            }
            let t = Text {
                text: text.clone(),
                value: values.get(k).cloned().flatten(),
            };
            let mut v = via.to_vec();
            v.push(format!("${name}"));
            self.run_code(at, lang, &t, &v, link, depth)?;
        }
        for (text, lang, label) in places::git_env_configs(assigns) {
            let mut v = via.to_vec();
            v.push(label);
            self.run_code(at, lang, &Text::literal(&text), &v, link, depth)?;
        }
        Ok(())
    }

    /// Run `t`, code in `lang`, as the code of the command at `at`; `via`
    /// ends in the place's label.
    pub(super) fn run_code(
        &mut self,
        at: usize,
        lang: Lang,
        t: &Text,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let off = link.cmd.offset;
        let label = via.last().cloned().unwrap_or_default();
        match lang {
            Lang::Sh | Lang::Bash | Lang::ShEach | Lang::Argv | Lang::ArgvRest => {
                self.set_code(at, Code::Inline);
                let mark = self.out.len();
                let grammar = if matches!(lang, Lang::Sh | Lang::ShEach) {
                    Grammar::Sh
                } else {
                    Grammar::Bash
                };
                let map = OffMap::At(off, label);
                self.nested_as(grammar, &t.text, depth + 1, via, map, Some(None))?;
                // Code whose program is only known when it runs (`$X`, `$(…)`,
                // here or in the shell that reads it) is unknown code.
                if t.starts_unknown() || self.ran_unknown_program(mark) {
                    self.set_code(at, Code::Dynamic);
                }
            }
            Lang::ShLike => {
                // Where the text is not sh, it is the shell's own syntax.
                let mark = self.out.len();
                let saved = self.state.clone();
                let code = self.out.get(at).and_then(|c| c.code);
                if self.run_code(at, Lang::Sh, t, via, link, depth).is_err() {
                    self.out.truncate(mark);
                    self.state = saved;
                    if let Some(c) = self.out.get_mut(at) {
                        c.code = code;
                    }
                }
            }
            Lang::ShOrBool => {
                let bool_word = [
                    "true", "false", "yes", "no", "on", "off", "1", "0", "always", "never", "auto",
                ];
                if !bool_word.contains(&t.text.trim().to_ascii_lowercase().as_str()) {
                    return self.run_code(at, Lang::Sh, t, via, link, depth);
                }
            }
            Lang::HgHook => {
                // `hg --config hooks.NAME=VALUE`
                let Some((_, value)) = t.text.split_once('=') else {
                    return Ok(());
                };
                if value.trim_start().starts_with("python:") {
                    self.set_code(at, Code::Dynamic);
                    return Ok(());
                }
                let code = Text {
                    text: value.to_string(),
                    value: t.value.clone(),
                };
                return self.run_code(at, Lang::Sh, &code, via, link, depth);
            }
            Lang::GitAlias | Lang::HgAlias | Lang::GitHelper => {
                let value = match lang {
                    // `hg --config alias.NAME=VALUE`
                    Lang::HgAlias => match t.text.split_once('=') {
                        Some((_, v)) => v,
                        None => return Ok(()),
                    },
                    _ => t.text.as_str(),
                };
                let sh = match value.strip_prefix('!') {
                    Some(sh) => sh.to_string(),
                    // A helper given by path runs as a program, by name as
                    // `git credential-NAME` (its options may name paths:
                    // `store --file ~/.creds`); an alias that is a git command
                    // line runs when called (see `places::Source::GitAlias`).
                    None if lang == Lang::GitHelper
                        && value
                            .split_whitespace()
                            .next()
                            .is_some_and(|name| name.contains('/')) =>
                    {
                        value.to_string()
                    }
                    None if lang == Lang::GitHelper => format!("git credential-{value}"),
                    None => return Ok(()),
                };
                let code = Text {
                    text: sh,
                    value: t.value.clone(),
                };
                return self.run_code(at, Lang::Sh, &code, via, link, depth);
            }
            Lang::Prompt => {
                // Expanded like a double-quoted string each time it is shown.
                self.set_code(at, Code::Inline);
                let quoted = format!("\"{}\"", t.text.replace('\\', "\\\\").replace('"', "\\\""));
                let mark = self.out.len();
                self.nested(
                    &format!(": {quoted}"),
                    depth + 1,
                    via,
                    OffMap::At(off, label),
                    Some(None),
                )?;
                // The `:` that carried the text is not a command of the code.
                if let Some(k) = (mark..self.out.len()).find(|k| {
                    self.out
                        .get(*k)
                        .is_some_and(|c| c.program == ":" && c.via.len() == via.len())
                }) {
                    self.out.remove(k);
                }
            }
            Lang::BashFunction => {
                // `() { body; }`: the body runs when the function is called.
                let body = t.text.trim_start();
                if let Some(rest) = body.strip_prefix("()") {
                    let code = Text {
                        text: rest.to_string(),
                        value: None,
                    };
                    return self.run_code(at, Lang::Bash, &code, via, link, depth);
                }
            }
            Lang::ArgvCommas => {
                // The program splits the value at its commas and runs the
                // words, no shell between (`rm,-rf,~` removes a folder `~`).
                let words: Vec<Field> = t.text.split(',').map(Field::literal).collect();
                self.run_words(at, Lang::Argv, &words, None, via, link, depth)?;
                if t.unknown() {
                    self.set_code(at, Code::Dynamic);
                }
            }
            Lang::ShFile | Lang::File => self.file_code(at, lang, t, via, link, depth)?,
            Lang::Loaded(load) => self.loaded_code(at, load, t, ""),
            Lang::PowerShell => {
                // Read as `pwsh -Command TEXT` reads it (salt's cmd.powershell).
                self.set_code(at, Code::Inline);
                let text = t.value.clone().unwrap_or_else(|| Value::text(&t.text));
                let args = [Value::text("-Command"), text];
                if let Some(r) = self.windows_shell(at, "pwsh", &args, via, link, off) {
                    r?;
                }
            }
            Lang::Inline(l) => {
                let dynamic = t.unknown();
                self.set_code(at, if dynamic { Code::Dynamic } else { Code::Inline });
                let text = match &t.value {
                    Some(v) => match v.0.as_slice() {
                        [one] => inline::code_text(one),
                        _ => t.text.clone(),
                    },
                    None => t.text.clone(),
                };
                self.effects(at, inline::scan(l, &text), via, link, depth)?;
            }
            Lang::Escape(d) => {
                if t.unknown() {
                    self.set_code(at, Code::Dynamic);
                } else {
                    self.set_code(at, Code::Inline);
                }
                let words = wrappers::split_words(&t.text);
                self.effects(at, escapes::scan(d, &t.text, &words), via, link, depth)?;
            }
            // A file task's `key=value` words (`ansible -m file -a ARGS`).
            Lang::Absent => {
                let words = serde_json::Value::String(t.text.clone());
                if let Some(path) = script_files::absent_path(&words) {
                    let rm = Text::literal(&format!("rm -rf -- {}", removed_path(&path)));
                    self.run_code(at, Lang::Sh, &rm, via, link, depth)?;
                }
            }
            Lang::Removed => {
                let rm = Text::literal(&format!("rm -rf -- {}", removed_path(&t.text)));
                self.run_code(at, Lang::Sh, &rm, via, link, depth)?;
                if t.unknown() {
                    self.set_code(at, Code::Dynamic);
                }
            }
            // A tree file's entries (see `script_files`), no place of a command line.
            Lang::Process => {}
            Lang::LessOptions => {
                // An option's string runs to a `$` or the end (less(1)).
                for part in t.text.split('$') {
                    let plus = part
                        .char_indices()
                        .find(|(i, c)| *c == '+' && (*i == 0 || part[..*i].ends_with(' ')));
                    if let Some((i, _)) = plus {
                        let cmd = &part[i + 1..];
                        let cmd = cmd.strip_prefix('+').unwrap_or(cmd);
                        let bang = Lang::Escape(Dialect::Bang);
                        self.run_code(at, bang, &Text::literal(cmd), via, link, depth)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Code in several arguments: a command's words, one command line per
    /// argument, or their text joined by spaces.
    #[allow(clippy::too_many_arguments)] // reason: the chain's context, passed through
    fn run_words(
        &mut self,
        at: usize,
        lang: Lang,
        fields: &[Field],
        runs: Option<&'static str>,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        if fields.is_empty() {
            return Ok(());
        }
        match lang {
            // `xterm -e 'make test'`: one word with spaces in it is a command
            // line (terminals run it through the shell or split it).
            Lang::ArgvRest if fields.len() == 1 && fields[0].text.contains(char::is_whitespace) => {
                self.run_code(at, Lang::Sh, &field_text(&fields[0], 0), via, link, depth)
            }
            Lang::Argv | Lang::ArgvRest => {
                self.set_code(at, Code::Inline);
                let mut words: Vec<Field> = runs.map(Field::literal).into_iter().collect();
                words.extend(fields.iter().cloned());
                if words.first().is_some_and(|f| {
                    f.value
                        .0
                        .iter()
                        .any(|s| s.literal().is_none() && s.has_unknown())
                }) {
                    self.set_code(at, Code::Dynamic);
                }
                self.chain(words, Vec::new(), via.to_vec(), link, depth + 1, false)
            }
            Lang::ShEach => {
                for f in fields {
                    self.run_code(at, Lang::Sh, &field_text(f, 0), via, link, depth)?;
                }
                Ok(())
            }
            // A URL that is not `ext::` holds no code, and an unknown one is
            // data: git runs `ext::` URLs only where `protocol.ext.allow`
            // says so (its default is never).
            Lang::Escape(Dialect::GitExt) => {
                let words: Vec<String> = fields.iter().map(|f| f.text.clone()).collect();
                let effects = escapes::scan(Dialect::GitExt, "", &words);
                if effects.is_empty() {
                    return Ok(());
                }
                self.set_code(at, Code::Inline);
                self.effects(at, effects, via, link, depth)
            }
            Lang::Escape(d) => {
                let words: Vec<String> = fields.iter().map(|f| f.text.clone()).collect();
                let text = words.join(" ");
                let unknown = fields.iter().any(|f| f.value.has_unknown());
                self.set_code(at, if unknown { Code::Dynamic } else { Code::Inline });
                self.effects(at, escapes::scan(d, &text, &words), via, link, depth)
            }
            _ => {
                let text: Vec<String> = fields.iter().map(|f| f.text.clone()).collect();
                let known = fields.iter().all(|f| f.value.literal().is_some());
                let first = fields.first().map(|f| field_text(f, 0));
                let t = Text {
                    text: text.join(" "),
                    value: if known {
                        None
                    } else {
                        first.and_then(|f| f.value)
                    },
                };
                self.run_code(at, lang, &t, via, link, depth)
            }
        }
    }

    /// A program reading code in `lang` on standard input.
    fn stdin_code(
        &mut self,
        at: usize,
        lang: Lang,
        prog: &str,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        if matches!(lang, Lang::Sh | Lang::Bash) {
            return self.stdin_script(at, prog, &via[..via.len().saturating_sub(1)], link, depth);
        }
        let text = if let Some((text, _, _)) = &link.here {
            Some(Text::literal(text))
        } else if let Some(r) = link.redirects.iter().find(|r| r.op == RedirectOp::Read) {
            // `psql db < drop.sql`: the file's text, read from disk later.
            self.set_code(at, Code::File);
            self.stdin_files(at, std::slice::from_ref(&r.value), lang);
            None
        } else {
            match &link.stdin {
                Input::Known(v) => Some(match v.0.as_slice() {
                    [one] => Text {
                        text: inline::code_text(one),
                        value: Some(v.clone()),
                    },
                    _ => Text {
                        text: String::new(),
                        value: Some(v.clone()),
                    },
                }),
                Input::Decoded(t) => {
                    self.set_code(at, Code::Decoded);
                    Some(Text::literal(t))
                }
                Input::Unknown if lang.runs_unknown_input() => {
                    self.set_code(at, Code::Dynamic);
                    None
                }
                Input::File(files) => {
                    self.set_code(at, Code::File);
                    self.stdin_files(at, files, lang);
                    None
                }
                _ => None,
            }
        };
        match text {
            Some(t) => self.run_code(at, lang, &t, via, link, depth),
            None => Ok(()),
        }
    }

    /// Code a program loads into itself, named by a variable ([`Load`]):
    /// unknown when the value is, or when it names a file that is not
    /// installed software (a path outside the system's folders, a module
    /// found through a folder the value adds, a `sitecustomize.py` the
    /// command wrote into a folder Python imports from).
    fn loaded_code(&mut self, at: usize, load: Load, t: &Text, search: &str) {
        if t.unknown() {
            self.set_code(at, Code::Dynamic);
            return;
        }
        let names = load.names(&t.text);
        // A folder the value or the search variable adds (`-I.`,
        // `PERL5LIB=.`) makes every module name a file that may be there.
        let adds_folder = names.iter().any(|(n, module)| !module && !installed(n))
            || search.split(':').any(|f| !f.is_empty() && !installed(f));
        let unknown = names.iter().any(|(name, module)| match load {
            Load::PythonPath => ["sitecustomize.py", "usercustomize.py"].iter().any(|m| {
                let key = super::file_key(&format!("{}/{m}", name.trim_end_matches('/')));
                self.state.files.contains_key(&key)
            }),
            // A module name is looked up among what is installed, unless
            // written as a path or a folder of the value comes first.
            _ if *module => adds_folder || path_like(name) && !installed(name),
            Load::PerlOptions | Load::RubyOptions => false,
            // ld.so looks a name without `/` up in the system's folders.
            Load::Preload if !name.contains('/') => false,
            _ => !installed(name),
        });
        if unknown {
            self.set_code(at, Code::Dynamic);
        }
    }

    /// A file (or folder) of code named at a place: read as sh when the
    /// command wrote it a moment before (a process substitution's output, a
    /// file written earlier), unknown when written with text nobody knows or
    /// named by a value nobody knows, else a file on disk the analysis does not
    /// read (like `bash script.sh`).
    fn file_code(
        &mut self,
        at: usize,
        lang: Lang,
        t: &Text,
        via: &[String],
        link: &Link,
        depth: usize,
    ) -> Result<(), ParseError> {
        let off = link.cmd.offset;
        // A process substitution (`BASH_ENV=<(…)`) is a pipe whose text the
        // assignment does not keep.
        if t.unknown() || t.text.starts_with("<(") {
            self.set_code(at, Code::Dynamic);
            return Ok(());
        }
        let path = t
            .value
            .as_ref()
            .and_then(Value::literal)
            .unwrap_or_else(|| t.text.clone());
        // An open file of the process by number (`BASH_ENV=/dev/fd/3 bash
        // … 3< <(curl …)`, `/proc/self/fd/N`, `/dev/stdin`): whatever was
        // opened there, a pipe or a redirection the analysis does not follow
        // to this place.
        if is_descriptor_path(&path) {
            self.set_code(at, Code::Dynamic);
            return Ok(());
        }
        // A program run from a URL (`deno run https://…`, `uv run
        // https://…`) is fetched when it runs: nobody has read it (cause from
        // redteam5).
        if remote(&path) {
            self.set_code(at, Code::Dynamic);
            return Ok(());
        }
        match super::written_at(&self.state.files, &path).cloned() {
            Some(super::Written::Text(text)) if lang == Lang::ShFile => {
                let label = via.last().cloned().unwrap_or_default();
                self.emitted(
                    at,
                    &text,
                    Code::Written,
                    depth + 1,
                    via,
                    OffMap::At(off, label),
                    Some(None),
                    Grammar::Sh,
                )
            }
            Some(_) => {
                self.set_code(at, Code::Dynamic);
                Ok(())
            }
            None => {
                self.set_code(at, Code::File);
                Ok(())
            }
        }
    }
}

/// A path a tool removes, as sh text: quoted, but for a leading `~`, which
/// the tools expand as the shell does.
fn removed_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) => format!("~/{}", crate::shell::quote(rest)),
        None if path == "~" => "~".to_string(),
        None => crate::shell::quote(path),
    }
}

/// A module name written as a path (`./x.js`, `../lib/x`, `/tmp/x`, `~/x`),
/// not a name the program looks up among what is installed.
fn path_like(name: &str) -> bool {
    name.starts_with(['.', '/', '~'])
}

/// Installed software: a path in the system's folders or in a package
/// folder (`node_modules`, `site-packages`). A file the project, a temp
/// folder or home holds is not, nor a relative path.
fn installed(path: &str) -> bool {
    const SYSTEM: &[&str] = &[
        "/usr/",
        "/lib/",
        "/lib64/",
        "/lib32/",
        "/opt/",
        "/nix/store/",
        "/snap/",
        "/System/",
        "/Library/",
        "/Applications/",
        "/gnu/store/",
    ];
    SYSTEM.iter().any(|d| path.starts_with(d))
        || path
            .split('/')
            .any(|c| c == "node_modules" || c == "site-packages")
}

/// The code in a field from byte `skip` of its text: the text, and what the
/// shell made of it when that differs.
pub(super) fn field_text(f: &Field, skip: usize) -> Text {
    let text = f.text.get(skip..).unwrap_or_default().to_string();
    if let Some(lit) = f.value.literal() {
        return Text::literal(lit.get(skip..).unwrap_or(&text));
    }
    // The value from the same byte on, when its first piece holds the skipped
    // text (`--to-command=$X`).
    let value = Value(
        f.value
            .0
            .iter()
            .map(|s| {
                let mut out = crate::shell::value::Sym::default();
                let mut left = skip;
                for p in &s.0 {
                    match p {
                        Piece::Text(t) | Piece::Glob(t) if left > 0 => {
                            let cut = left.min(t.len());
                            left -= cut;
                            out.push(Piece::Text(t.get(cut..).unwrap_or_default().to_string()));
                        }
                        _ if left > 0 => {
                            left = 0;
                            out.push(Piece::Unknown(f.text.clone()));
                        }
                        p => out.push(p.clone()),
                    }
                }
                out
            })
            .collect(),
    );
    Text {
        text,
        value: Some(value),
    }
}

/// Does `name` name code fetched from elsewhere when it runs: a URL (`https://`,
/// `ftp://`, `git+…`; not `file://`)? A package from a registry (`npx pkg`,
/// `go run example.com/x@v1`) is a package, as `pip install` installs one.
fn remote(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("git+")
        || lower.split_once("://").is_some_and(|(scheme, _)| {
            !scheme.is_empty()
                && scheme != "file"
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
        })
}

/// A path that names one of the process's open files rather than a file on
/// disk: `/dev/fd/N`, `/dev/stdin`, `/proc/self/fd/N`, `/proc/PID/fd/N`,
/// `/proc/thread-self/fd/N`.
fn is_descriptor_path(path: &str) -> bool {
    if path == "/dev/stdin" || path.starts_with("/dev/fd/") {
        return true;
    }
    path.strip_prefix("/proc/")
        .and_then(|r| r.split_once('/'))
        .is_some_and(|(_, rest)| rest.starts_with("fd/"))
}
