//! Places that take code: the options, configuration keys, operands, standard
//! input and variables whose text a shell, git or a tool will run as code, and
//! the language of that code.
//!
//! The places are data, `policies/data/code-places.toml`, which `build.rs` compiles
//! into sorted statics (included below): finding a command's places is a binary
//! search on its program's name, and nothing is built per event. Covering one
//! more tool is one row there. What this module decides is only *where* the code
//! is in a command's words ([`find`]) and which variables hold code
//! ([`variable`]); `extract` analyses the code, in its language, as the
//! commands it is.
//!
//! How options are read: `--long=V` and `--long V`; `-X V`, `-XV` and a cluster
//! of flags ending in it (`-qc V`, stopping at a flag that takes a value, per the
//! program's `valued` options); a spelling with one dash and several letters
//! (`-ex`, `-cmd`) as written or with `=`. Options end at `--`. A program whose
//! first operand is a subcommand (`git`, `tmux`) has its own options before it
//! and the subcommand's after it.

use std::ops::Range;

use super::escapes::Dialect;
use super::inline::Lang as InlineLang;

/// The language of code at a place (see the table's header for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lang {
    /// The system's `/bin/sh` (dash on Debian and Ubuntu).
    Sh,
    /// bash.
    Bash,
    /// sh, unless the value is a boolean (`pager.log = false`).
    ShOrBool,
    /// Each operand is one sh command line (hyperfine).
    ShEach,
    /// Another shell's command line (xonsh, elvish, rc, nu, tcsh): read as
    /// sh where it parses as sh (`rm -rf ~` is the same command in each);
    /// text in the shell's own syntax is its own, no opinion.
    ShLike,
    /// The words of a command, no shell.
    Argv,
    /// An option's value and the words after it up to `;` (`fd -x`).
    ArgvRest,
    /// The words of a command, no shell, separated by commas in one value
    /// (`gcc -wrapper sh,-c,CMD`).
    ArgvCommas,
    /// A prompt string, expanded like a double-quoted string when shown.
    Prompt,
    /// The name of a file of sh code.
    ShFile,
    /// The name of a file or folder of code the analysis does not read.
    File,
    /// An exported function's body (`BASH_FUNC_f%%=() { …; }`).
    BashFunction,
    /// A git alias: `!…` is sh, anything else a git command line.
    GitAlias,
    /// A git credential helper: `!…` is sh, a path a program, a name
    /// `git credential-NAME`.
    GitHelper,
    /// A Mercurial alias given as `NAME=VALUE` (`!…` is sh).
    HgAlias,
    /// A Mercurial hook given as `NAME=VALUE`: sh, or `python:…` (a module
    /// or file of Python the analysis does not read).
    HgHook,
    /// PowerShell, read as `pwsh -Command TEXT` reads it.
    PowerShell,
    /// An interpreter's language.
    Inline(InlineLang),
    /// A tool's command language with shell escapes.
    Escape(Dialect),
    /// Files or modules of code a program loads into itself, named by a
    /// variable in that program's syntax ([`Load`]).
    Loaded(Load),
    /// less's options in a variable (`LESS`): a `+CMD` among them is an
    /// initial command (`+!CMD` runs CMD in a shell).
    LessOptions,
    /// A file task (Ansible's `file` module, in a tree file or given as
    /// `ansible -m file -a ARGS`): when its `state` is `absent` it deletes
    /// its `path` (`dest`, `name`) with what it holds; as a table or as
    /// `key=value` words.
    Absent,
    /// The name of a file or folder a tool removes with what it holds
    /// (salt's `file.remove`): judged as `rm -rf -- NAME`.
    Removed,
    /// A process a tree file declares for a process manager (pm2's
    /// `apps`): its `script` run by its `interpreter` (else by the file's
    /// ending, else as a program) with its `args`.
    Process,
}

/// How a variable names the code a program loads into itself before its own
/// (a preload library, node's `--require`, a Java agent, a Perl or Ruby
/// module, Python's start-up module). Code from installed software (a bare
/// module name, a path under the system's folders) is the program's own;
/// code from a file anyone could have just written (the project, a temp
/// folder, home) runs unread in every process that inherits the variable:
/// unknown code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Load {
    /// Library paths separated by `:` or spaces (`LD_PRELOAD`).
    Preload,
    /// node's options: `-r`/`--require`, `--import`, `--loader`,
    /// `--experimental-loader` name a module.
    NodeOptions,
    /// The JVM's options: `-javaagent:PATH`, `-agentpath:PATH`.
    JavaOptions,
    /// perl's switches (`PERL5OPT`): `-M`/`-m` load a module, `-I` adds a
    /// folder modules are looked for in first.
    PerlOptions,
    /// ruby's switches (`RUBYOPT`): `-r` requires a library, `-I` adds a
    /// folder.
    RubyOptions,
    /// Folders Python imports from first (`PYTHONPATH`): a
    /// `sitecustomize.py` or `usercustomize.py` there runs at every start.
    PythonPath,
}

impl Load {
    /// The variable naming the folders the program looks module names up
    /// in first (`PERL5LIB`, `RUBYLIB`, `NODE_PATH`).
    pub(crate) fn search_variable(self) -> Option<&'static str> {
        match self {
            Load::PerlOptions => Some("PERL5LIB"),
            Load::RubyOptions => Some("RUBYLIB"),
            Load::NodeOptions => Some("NODE_PATH"),
            _ => None,
        }
    }

    /// The files and folders of code the value names, as (the name, is it a
    /// module name the program looks up rather than a path). Unknown syntax
    /// names nothing.
    pub(crate) fn names(self, value: &str) -> Vec<(String, bool)> {
        let words: Vec<&str> = value.split_whitespace().collect();
        let mut out = Vec::new();
        match self {
            Load::Preload => {
                for w in value.split([':', ' ', '\t']).filter(|w| !w.is_empty()) {
                    out.push((w.to_string(), false));
                }
            }
            Load::PythonPath => {
                for w in value.split(':').filter(|w| !w.is_empty()) {
                    out.push((w.to_string(), false));
                }
            }
            Load::NodeOptions => {
                let valued = [
                    "-r",
                    "--require",
                    "--import",
                    "--loader",
                    "--experimental-loader",
                ];
                let mut it = words.iter();
                while let Some(w) = it.next() {
                    if valued.contains(w) {
                        if let Some(v) = it.next() {
                            out.push(((*v).to_string(), true));
                        }
                    } else if let Some((k, v)) = w.split_once('=') {
                        if valued.contains(&k) {
                            out.push((v.to_string(), true));
                        }
                    }
                }
            }
            Load::JavaOptions => {
                for w in &words {
                    for prefix in ["-javaagent:", "-agentpath:"] {
                        if let Some(rest) = w.strip_prefix(prefix) {
                            let path = rest.split_once('=').map_or(rest, |(p, _)| p);
                            out.push((path.to_string(), false));
                        }
                    }
                }
            }
            Load::PerlOptions | Load::RubyOptions => {
                let (load, folder) = if self == Load::PerlOptions {
                    (["-M", "-m"].as_slice(), "-I")
                } else {
                    (["-r"].as_slice(), "-I")
                };
                let mut it = words.iter();
                while let Some(w) = it.next() {
                    let mut take = |flag: &str, module: bool| {
                        if let Some(rest) = w.strip_prefix(flag) {
                            let v = if rest.is_empty() {
                                it.clone().next().map(|v| (*v).to_string())
                            } else {
                                Some(rest.to_string())
                            };
                            if let Some(v) = v {
                                // `-MFoo=bar`, `-M-Foo`: the module's name.
                                let v = v.trim_start_matches('-');
                                let v = v.split_once('=').map_or(v, |(m, _)| m);
                                out.push((v.to_string(), module));
                            }
                            return rest.is_empty();
                        }
                        false
                    };
                    let mut skip = false;
                    for flag in load {
                        skip |= take(flag, true);
                    }
                    skip |= take(folder, false);
                    if skip {
                        it.next();
                    }
                }
            }
        }
        out
    }
}

impl Lang {
    /// Does unknown text on standard input make the code unknown? Shells and
    /// interpreters run what they read; a database shell fed a pipe is loading
    /// a dump, and an FTP or `ed` session a script of transfers or edits, so
    /// their unknown input is data.
    pub(crate) fn runs_unknown_input(self) -> bool {
        match self {
            Lang::Escape(d) => matches!(
                d,
                Dialect::Tcl
                    | Dialect::M4
                    | Dialect::Dc
                    | Dialect::Gnuplot
                    | Dialect::Gdb
                    | Dialect::Lldb
            ),
            Lang::Sh | Lang::Bash | Lang::Inline(_) | Lang::PowerShell => true,
            _ => false,
        }
    }
}

/// How a program reads its arguments.
#[derive(Debug)]
pub(crate) struct Syntax {
    /// Its first operand is a subcommand.
    pub subcommands: bool,
    /// Options that take values, and how many.
    pub valued: &'static [(&'static str, usize)],
    /// The operands before the subcommand (salt's target: `salt '*'
    /// cmd.run TEXT`).
    pub targets: usize,
}

const PLAIN: Syntax = Syntax {
    subcommands: false,
    valued: &[],
    targets: 0,
};

/// Where in a command the code is.
#[derive(Debug)]
pub(crate) enum At {
    /// An option's value (`key`: the value is `KEY=V` or `KEY V`; `prefix`:
    /// only values starting so, without it).
    Option {
        names: &'static [&'static str],
        key: Option<&'static str>,
        prefix: Option<&'static str>,
    },
    /// A configuration key (lowercase; `*` stands for any text).
    Config {
        key: &'static str,
        prefix: Option<&'static str>,
    },
    /// The `n`th operand (from 1), with the ones after it when `rest`;
    /// `dashdash`: counted after a `--` only (`fab -H h -- CMD`; before it
    /// they are the tool's own); `kwarg`: a `KWARG=V` operand holds it
    /// wherever it is, and operands written `NAME=V` are not counted
    /// (salt's keyword arguments: `cmd.run cmd=TEXT`, `cmd.run TEXT
    /// runas=u`).
    Operand {
        n: usize,
        rest: bool,
        dashdash: bool,
        kwarg: Option<&'static str>,
    },
    /// Standard input.
    Stdin,
}

/// One row of the table.
#[derive(Debug)]
pub(crate) struct Place {
    /// The subcommands it belongs to (each a sequence of words); empty: the
    /// program's own.
    pub subcommand: &'static [&'static [&'static str]],
    pub at: At,
    pub lang: Lang,
    /// For [`Lang::Argv`]: the program whose words they are.
    pub runs: Option<&'static str>,
    /// The value names a file whose text is the code (`psql -f FILE`).
    pub file: bool,
    /// The place holds code only when the command has one of these flags
    /// (`pnpm exec -c TEXT`, `--shell-mode`, `-i` also in a cluster, `-ic`;
    /// `-m=file`: option `-m` with the value `file`); empty: always.
    pub flag: &'static [&'static str],
    /// The place holds no code when the command has one of these flags
    /// (read as `flag` is: `clush --copy FILE` copies its operands).
    pub unless: &'static [&'static str],
}

/// How a project file holds the code its runner runs (see the table's
/// `project_file` header; `script_files` reads each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Named command lines in a JSON, JSONC, TOML or YAML file, under a key.
    Scripts,
    /// A Taskfile's tasks (`cmds`, `deps`).
    Taskfile,
    /// A justfile's recipes.
    Just,
    /// A Rakefile (Ruby).
    Rake,
    /// tox.ini's `commands`.
    Tox,
    /// `.pre-commit-config.yaml`'s local hooks.
    PreCommit,
    /// A CMake script (`cmake -P FILE`) or a project's `CMakeLists.txt`.
    CMake,
    /// The `//go:generate` lines of a Go package.
    GoGenerate,
    /// The hooks git runs for a subcommand.
    GitHooks,
    /// The build scripts (`build.rs`) of a cargo workspace.
    BuildScript,
    /// A shell script the runner runs (direnv's `.envrc`).
    Script,
    /// The `conftest.py` files pytest imports.
    Conftest,
    /// The `setup.py` of each local folder pip builds.
    SetupPy,
    /// lefthook's hooks.
    Lefthook,
    /// overcommit's hooks.
    Overcommit,
    /// The `run:` steps of GitHub workflows (act).
    Workflow,
    /// A script in every package of a workspace (turbo, nx, lerna, …).
    Workspaces,
    /// A compose file's services, as `docker run`.
    Compose,
    /// gradle's, maven's and sbt's build files: their deletes and commands.
    JvmBuild,
    /// A file of code in the row's `lang` that the runner loads whole
    /// (a noxfile, `tasks.py`, a gulpfile, a Gemfile).
    Code,
    /// terraform's `external` programs and `local-exec` provisioners.
    Terraform,
    /// A nix shell's `shellHook`.
    NixShell,
    /// A dev container's `initializeCommand`.
    Devcontainer,
    /// meson's `run_command(…)`.
    Meson,
    /// MSBuild's `Exec` tasks.
    Msbuild,
    /// Commands at paths of a JSON, YAML or TOML file (`commands`,
    /// `may_commands`).
    Tree,
    /// Files in a language the analysis does not read, judged by the
    /// constructs of the `call` rows of its `calls` language.
    Calls,
    /// A Python entry point (`module:function`) named under `key`.
    EntryPoint,
    /// bats test files: their `@test` blocks and setup and teardown
    /// functions, as the bash bats runs.
    Bats,
    /// A Jupyter notebook's code cells, as its kernel runs them.
    Notebook,
    /// An Earthfile's targets: the `RUN` commands after `LOCALLY`, which
    /// run on this machine.
    Earthfile,
}

/// How a `call` row's construct is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallForm {
    /// `NAME(ARGS)` (`*.NAME(`: any receiver).
    Paren,
    /// `(NAME ARGS)`.
    Sexp,
    /// A line `NAME = TEXT` (or `NAME TEXT`): the text.
    Line,
    /// Every string in the brackets after `NAME`.
    Strings,
    /// A string that starts with the row's `prefix`: the rest.
    Prefix,
    /// The name as a word outside strings, then the string literals up to
    /// the call's end: Lisp's `(NAME "arg")` and `#'NAME "arg"`, Octave's
    /// `NAME("arg")` and `NAME "arg"`. A name followed by anything but a
    /// literal (a variable, `(concat …)`, `"a" + b`) runs a computed value.
    Word,
}

/// What a `call` row's construct runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallCode {
    /// A sh command line.
    Sh,
    /// A bash command line.
    Bash,
    /// A sh command line after "Make" variable substitution (bazel's
    /// genrule `cmd`): `$$` is a `$` for the shell, `$(NAME …)` and `$@`
    /// are paths of the build.
    MakeSh,
    /// A command's words (one string alone: a command line).
    Argv,
    /// A program, then a list of its arguments.
    ProgramArgs,
    /// A path deleted with what it holds.
    Delete,
    /// A path removed: with what it holds only when a later argument is one
    /// of the row's `recursive` (Emacs's `t`, Octave's `"s"`).
    Remove,
    /// A command nobody can read before it runs (ask).
    Unknown,
    /// A script file of the project the run runs (bazel's `sh_binary(srcs
    /// = [...])`), named from the build file's folder (or `//pkg:file`
    /// from the root): read as a script run by its path is.
    Script,
}

/// One `call` row: a construct of a language the analysis does not read
/// that runs a command or deletes.
#[derive(Debug)]
pub(crate) struct Call {
    pub lang: &'static str,
    pub form: CallForm,
    /// The construct's names.
    pub call: &'static [&'static str],
    /// The argument (from 1) that holds the command, unless `key` names it.
    pub arg: usize,
    /// Keyword arguments that hold the command (`cmd = …`, `.argv = …`).
    pub key: &'static [&'static str],
    /// The arguments from `arg` on are the words.
    pub rest: bool,
    pub code: CallCode,
    pub prefix: Option<&'static str>,
    /// For [`CallCode::Remove`]: the arguments that make it recursive.
    pub recursive: &'static [&'static str],
}

/// The `call` rows of a language.
pub(crate) fn calls(lang: &str) -> impl Iterator<Item = &'static Call> + '_ {
    CALLS.iter().filter(move |c| c.lang == lang)
}

/// One `project_file` row: a runner that runs code kept in a project file.
#[derive(Debug)]
pub(crate) struct ProjectFile {
    /// The subcommands it belongs to (each a sequence of words); empty: the
    /// program itself.
    pub subcommand: &'static [&'static [&'static str]],
    /// The file names looked for (the nearest going up).
    pub files: &'static [&'static str],
    pub format: Format,
    /// Where in the file the named command lines are (`tasks`,
    /// `tool.pdm.scripts`).
    pub key: Option<&'static str>,
    /// The entries it always runs (lifecycle scripts, hooks); empty: those
    /// the command names.
    pub run: &'static [&'static str],
    /// The entry run when the command names none (`cargo make`: `default`);
    /// `None`: it runs none.
    pub default: Option<&'static str>,
    /// The language of a [`Format::Code`] file.
    pub lang: Option<Lang>,
    /// Options whose value names the file the runner reads instead
    /// (`nox -f other.py`, `eslint -c x.js`, `gradle -b x.gradle`).
    pub file_option: &'static [&'static str],
    /// Options whose value is the folder it starts from (`scons -C sub`,
    /// `deno task --cwd sub`, `composer -d sub`).
    pub dir_option: &'static [&'static str],
    /// Variables whose value names the file (`BUNDLE_GEMFILE`,
    /// `COMPOSE_FILE`).
    pub file_variable: &'static [&'static str],
    /// The first operand after the subcommand names the file (`gem build
    /// x.gemspec`, `ansible-playbook site.yml`).
    pub file_operand: bool,
    /// The `call` language of a [`Format::Calls`] file.
    pub calls: Option<&'static str>,
    /// For [`Format::Calls`]: the names of the files read in every folder
    /// below the nearest of `files` (`BUILD`, `*.bzl`).
    pub walk: &'static [&'static str],
    /// For [`Format::Tree`]: paths (`/`-separated, `*` any key or item) to
    /// commands the run runs, and their language.
    pub commands: &'static [(&'static str, Lang)],
    /// The same, for commands the run may run.
    pub may_commands: &'static [(&'static str, Lang)],
    /// For [`Format::Scripts`]: folders whose executable files are entries
    /// too (mise's `.mise/tasks/NAME`).
    pub task_dirs: &'static [&'static str],
    /// Options with which the runner runs none of the file's code
    /// (`--check`, `--list`).
    pub no_run: &'static [&'static str],
    /// Options without which the runner runs none of the file's code
    /// (`jupyter nbconvert --execute`); empty: it always runs it.
    pub run_with: &'static [&'static str],
}

include!(concat!(env!("OUT_DIR"), "/code_places.rs"));

/// The project files `prog args…` (`prog` lowercase) runs code from: each
/// row with the index of the first argument after its subcommand's words.
pub(crate) fn project_files(prog: &str, args: &[String]) -> Vec<(&'static ProjectFile, usize)> {
    let from = PROJECT_FILES.partition_point(|(p, _)| *p < prog);
    let rows = PROJECT_FILES
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|(p, _)| *p == prog);
    let syntax = syntax_of(prog);
    let sub_at = subcommand_at(syntax, args);
    let mut out = Vec::new();
    for (_, row) in rows {
        if row.subcommand.is_empty() {
            out.push((row, 0));
            continue;
        }
        let Some(s) = sub_at else { continue };
        let found = row.subcommand.iter().find(|w| {
            w.iter()
                .enumerate()
                .all(|(k, word)| args.get(s + k).is_some_and(|a| a == word))
        });
        if let Some(words) = found {
            out.push((row, s + words.len()));
        }
    }
    out
}

/// The index of the first operand of `args` (`prog`'s options and their
/// values read as its `program` row says), when there is one.
pub(crate) fn first_operand(prog: &str, args: &[String]) -> Option<usize> {
    operands_from(syntax_of(prog), args, 0).filter(|k| *k < args.len())
}

/// Does `prog` (lowercase) run code kept in a project file? Cheap.
pub(crate) fn has_project_files(prog: &str) -> bool {
    let at = PROJECT_FILES.partition_point(|(p, _)| *p < prog);
    PROJECT_FILES.get(at).is_some_and(|(p, _)| *p == prog)
}

/// The option of `prog` (lowercase) whose value is code in `lang` (`psql
/// -c`, `mysql -e`, `sqlite3 -cmd`): its own, with no key or prefix.
pub(crate) fn inline_option(prog: &str, lang: Lang) -> Option<&'static str> {
    places_of(prog)?
        .iter()
        .filter_map(|i| PLACES.get(usize::from(*i)))
        .find_map(|p| match p.at {
            At::Option {
                names,
                key: None,
                prefix: None,
            } if p.subcommand.is_empty() && p.lang == lang && !p.file => names.first().copied(),
            _ => None,
        })
}

/// Where code found in a command is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Source {
    /// Argument `arg`'s text from byte `skip` on.
    Arg { arg: usize, skip: usize },
    /// These arguments (joined by spaces for a text language, a command's
    /// words for [`Lang::Argv`]).
    Args(Range<usize>),
    /// The value of an environment variable (`git --config-env=KEY=VAR`).
    Var(String),
    /// Standard input.
    Stdin,
    /// The name of a file of code, in argument `arg` from byte `skip`
    /// (`psql -f drop.sql`).
    File { arg: usize, skip: usize },
    /// A git alias that is a git command line: run `git` with the alias's
    /// words (argument `arg` from byte `skip`) and then arguments `rest`.
    GitAlias {
        arg: usize,
        skip: usize,
        rest: Range<usize>,
    },
}

/// Code found in a command.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Found {
    pub source: Source,
    pub lang: Lang,
    /// What goes into `via` (`tar --to-command`, `git -c core.pager`).
    pub label: String,
    /// For [`Lang::Argv`]: the program whose words they are.
    pub runs: Option<&'static str>,
}

/// Does `prog` (lowercase) have places? Cheap: for the common case of a program
/// with none.
pub(crate) fn has_places(prog: &str) -> bool {
    places_of(prog).is_some()
}

fn places_of(prog: &str) -> Option<&'static [u16]> {
    BY_PROGRAM
        .binary_search_by(|(p, _)| (*p).cmp(prog))
        .ok()
        .and_then(|i| BY_PROGRAM.get(i))
        .map(|(_, ix)| *ix)
}

fn syntax_of(prog: &str) -> &'static Syntax {
    PROGRAMS
        .binary_search_by(|(p, _)| (*p).cmp(prog))
        .ok()
        .and_then(|i| PROGRAMS.get(i))
        .map_or(&PLAIN, |(_, s)| s)
}

/// The language of code a variable holds, when it holds code.
pub(crate) fn variable(name: &str) -> Option<Lang> {
    if let Ok(i) = VARIABLES.binary_search_by(|(n, _)| (*n).cmp(name)) {
        return VARIABLES.get(i).map(|(_, l)| *l);
    }
    VARIABLE_PATTERNS
        .iter()
        .find(|(p, _)| glob(p, name))
        .map(|(_, l)| *l)
}

/// The places of the git configuration key `key` (any letter case), with the
/// row's value prefix.
pub(crate) fn config(prog: &str, key: &str) -> Option<(Lang, Option<&'static str>)> {
    let key = key.to_ascii_lowercase();
    places_of(prog)?
        .iter()
        .filter_map(|i| PLACES.get(usize::from(*i)))
        .find_map(|p| match p.at {
            At::Config { key: k, prefix } if glob(k, &key) => Some((p.lang, prefix)),
            _ => None,
        })
}

/// `*` in `pattern` stands for any text (git subsections hold dots: a
/// `credential.https://x.example.helper` key is `credential.*.helper`).
fn glob(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            let Some(rest) = text.strip_prefix(head) else {
                return false;
            };
            (0..=rest.len())
                .filter(|k| rest.is_char_boundary(*k))
                .any(|k| rest.get(k..).is_some_and(|r| glob(tail, r)))
        }
    }
}

/// Is the subcommand path `sub` (`["compose", "config"]`) where the table's
/// syntax of `prog` puts it: each word the first operand after the options
/// before it, skipped with their values (`docker compose -f config.yml up`
/// runs `up`, `git -C config push` runs `push`)? `None` when the table does
/// not know `prog` as a program with subcommands. After a word whose own
/// options the table does not list (a row named `docker compose` lists
/// compose's), `unknown` answers for the words left.
pub(crate) fn subcommand_path<S: AsRef<str>>(
    prog: &str,
    args: &[String],
    sub: &[S],
    unknown: fn(&[String], &[S]) -> bool,
) -> Option<bool> {
    let mut syntax = known_syntax(prog)?;
    let mut name = prog.to_string();
    let mut from = 0;
    for (k, word) in sub.iter().enumerate() {
        let word = word.as_ref();
        // The first word comes after the program's targets (`salt '*'`).
        let nth = if k == 0 { syntax.targets + 1 } else { 1 };
        let Some(at) = nth_operand(syntax, args, from, nth) else {
            return Some(false);
        };
        if args.get(at).map(String::as_str) != Some(word) {
            return Some(false);
        }
        from = at + 1;
        if k + 1 < sub.len() {
            name.push(' ');
            name.push_str(word);
            match known_syntax(&name) {
                Some(s) => syntax = s,
                None => {
                    return Some(unknown(
                        args.get(from..).unwrap_or_default(),
                        sub.get(k + 1..).unwrap_or_default(),
                    ))
                }
            }
        }
    }
    Some(true)
}

/// The syntax of `prog` when the table lists it as a program with subcommands.
fn known_syntax(prog: &str) -> Option<&'static Syntax> {
    PROGRAMS
        .binary_search_by(|(p, _)| (*p).cmp(prog))
        .ok()
        .and_then(|i| PROGRAMS.get(i))
        .map(|(_, s)| s)
        .filter(|s| s.subcommands)
}

/// How many values option `a` takes, per the program's syntax (0: a flag).
fn arity(syntax: &Syntax, a: &str) -> usize {
    syntax
        .valued
        .iter()
        .find(|(o, _)| *o == a)
        .map_or(0, |(_, n)| *n)
}

/// Where the program's subcommand (its first operand) is, skipping its own
/// options; `None` when it has none.
fn subcommand_at(syntax: &Syntax, args: &[String]) -> Option<usize> {
    nth_operand(syntax, args, 0, syntax.targets + 1)
}

/// Index of the first operand at or after `from`, reading options the POSIX
/// way (they end at the first operand or at `--`).
fn operands_from(syntax: &Syntax, args: &[String], from: usize) -> Option<usize> {
    let mut i = from;
    while let Some(a) = args.get(i) {
        if a == "--" {
            return Some(i + 1);
        }
        if a == "-" || !a.starts_with('-') {
            return Some(i);
        }
        if a.starts_with("--") {
            i += 1 + if a.contains('=') { 0 } else { arity(syntax, a) };
            continue;
        }
        let n = arity(syntax, a);
        if n > 0 {
            i += 1 + n;
            continue;
        }
        // A cluster: a flag that takes a value ends it (its value attached, or
        // the next argument).
        let mut skip = 0;
        for (k, c) in a.char_indices().skip(1) {
            let mut buf = [0u8; 4];
            let flag = format!("-{}", c.encode_utf8(&mut buf));
            let n = arity(syntax, &flag);
            if n > 0 {
                if k + c.len_utf8() == a.len() {
                    skip = n;
                }
                break;
            }
        }
        i += 1 + skip;
    }
    None
}

/// Where the `n`th operand (1: the first) from argument `from` on is: the
/// options between operands and a `--` are not operands (`aws-vault exec prod
/// -- rm -rf /` runs `rm`, its second operand). After `--` every word is one.
fn nth_operand(syntax: &Syntax, args: &[String], from: usize, n: usize) -> Option<usize> {
    let mut at = operands_from(syntax, args, from)?;
    let mut after_dashdash = at > 0 && args.get(at - 1).is_some_and(|a| a == "--");
    for _ in 1..n {
        at = if after_dashdash {
            at + 1
        } else {
            let next = operands_from(syntax, args, at + 1)?;
            after_dashdash = args.get(next - 1).is_some_and(|a| a == "--");
            next
        };
    }
    (at < args.len()).then_some(at)
}

/// Does the command have one of `flags` before a `--`: a word as written, a
/// one-letter flag inside a cluster of flags (`-i` in `-ic`), or `-m=file`:
/// option `-m` with the value `file` (in any spelling [`option_value`]
/// reads)?
fn has_flag(syntax: &Syntax, args: &[String], flags: &[&str]) -> bool {
    if flags.is_empty() {
        return false;
    }
    let end = args.iter().position(|a| a == "--").unwrap_or(args.len());
    flags.iter().any(|flag| match flag.split_once('=') {
        Some((name, value)) => (0..end).any(|i| {
            option_value(syntax, args, i, name)
                .is_some_and(|(arg, skip)| args.get(arg).and_then(|a| a.get(skip..)) == Some(value))
        }),
        None => args[..end].iter().any(|a| {
            a == flag || (flag.len() == 2 && !flag.starts_with("--") && in_cluster(syntax, a, flag))
        }),
    })
}

/// Is one-letter `flag` (`-i`) among the flags of cluster `a` (`-ic`), before
/// any letter that takes a value?
fn in_cluster(syntax: &Syntax, a: &str, flag: &str) -> bool {
    let Some(letter) = flag.chars().nth(1) else {
        return false;
    };
    if a.starts_with("--") || !a.starts_with('-') || a.len() < 3 {
        return false;
    }
    for c in a.chars().skip(1) {
        if c == letter {
            return true;
        }
        let mut buf = [0u8; 4];
        let f = format!("-{}", c.encode_utf8(&mut buf));
        if !c.is_ascii_alphanumeric() || arity(syntax, &f) > 0 {
            return false;
        }
    }
    false
}

/// Where a keyword function's argument is (salt's `cmd.run TEXT` or
/// `cmd.run cmd=TEXT`): the operand written `KEY=V`, else the `n`th operand
/// from `from` not written `NAME=V` (those are other keywords: `runas=u`).
/// The argument and the byte its value starts at.
fn keyword_operand(
    syntax: &Syntax,
    args: &[String],
    from: usize,
    n: usize,
    key: &str,
) -> Option<(usize, usize)> {
    let mut at = operands_from(syntax, args, from).filter(|k| *k < args.len());
    let mut seen = 0;
    let mut positional = None;
    while let Some(k) = at {
        let a = &args[k];
        match keyword(a) {
            Some(name) if name == key => return Some((k, name.len() + 1)),
            Some(_) => {}
            None => {
                seen += 1;
                if seen == n && positional.is_none() {
                    positional = Some((k, 0));
                }
            }
        }
        at = operands_from(syntax, args, k + 1).filter(|k| *k < args.len());
    }
    positional
}

/// The name of a `NAME=V` keyword argument (a name as Python's, then `=`,
/// not `==`).
fn keyword(a: &str) -> Option<&str> {
    let (name, value) = a.split_once('=')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let name_like = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    (name_like && !value.starts_with('=')).then_some(name)
}

/// The value of option spelling `name` in argument `i`: the argument holding
/// it and the byte where it starts.
fn option_value(syntax: &Syntax, args: &[String], i: usize, name: &str) -> Option<(usize, usize)> {
    let a = args.get(i)?;
    // `+CMD`: a command given as the rest of a word starting with `+`
    // (less's and more's initial commands).
    if name == "+" {
        return (a.len() > 1 && a.starts_with('+')).then_some((i, 1));
    }
    if a == name {
        return (i + 1 < args.len()).then_some((i + 1, 0));
    }
    let long = name.starts_with("--") || name.len() > 2;
    if long {
        return a
            .strip_prefix(name)
            .and_then(|r| r.strip_prefix('='))
            .map(|_| (i, name.len() + 1));
    }
    // `-X`: attached (`-XV`) or at the end of a cluster of flags (`-abX V`).
    let letter = name.chars().nth(1)?;
    if a.starts_with("--") || !a.starts_with('-') {
        return None;
    }
    for (k, c) in a.char_indices().skip(1) {
        if c == letter {
            let after = k + c.len_utf8();
            return if after == a.len() {
                (i + 1 < args.len()).then_some((i + 1, 0))
            } else {
                Some((i, after))
            };
        }
        let mut buf = [0u8; 4];
        let flag = format!("-{}", c.encode_utf8(&mut buf));
        if !c.is_ascii_alphanumeric() || arity(syntax, &flag) > 0 {
            return None;
        }
    }
    None
}

/// Every place in `prog args…` that holds code (`prog` lowercase). A long
/// option the program accepts abbreviated (getopt's unique prefixes, see
/// `long_options`: `tar --use-compress-prog=CMD`, `tar --to-comm CMD`) is the
/// option it stands for; the places found point into the words as written.
pub(crate) fn find(prog: &str, args: &[String]) -> Vec<Found> {
    if places_of(prog).is_none() {
        return Vec::new();
    }
    let sub = if prog == "git" {
        super::git_subcommand(args)
    } else {
        None
    };
    let mut grew = Vec::new();
    let mut written: Option<Vec<String>> = None;
    for (i, a) in args.iter().enumerate() {
        if a == "--" {
            break;
        }
        if a.len() > 3 && a.starts_with("--") {
            if let Some(w) = super::long_options::written_out(prog, sub, a) {
                let all = written.get_or_insert_with(|| args.to_vec());
                grew.resize(args.len(), 0);
                grew[i] = w.len() - a.len();
                all[i] = w;
            }
        }
    }
    let Some(written) = written else {
        return find_written(prog, args);
    };
    let mut out = find_written(prog, &written);
    for f in &mut out {
        if let Source::Arg { arg, skip } | Source::GitAlias { arg, skip, .. } = &mut f.source {
            *skip = skip.saturating_sub(grew.get(*arg).copied().unwrap_or(0));
        }
    }
    out
}

/// [`find`] in words whose long options are written out.
fn find_written(prog: &str, args: &[String]) -> Vec<Found> {
    let Some(rows) = places_of(prog) else {
        return Vec::new();
    };
    // `tmux new -d CMD \; split-window CMD2 \; attach`: a `;` argument ends
    // one tmux command; each after it is a tmux command of its own.
    if matches!(prog, "tmux" | "byobu" | "byobu-tmux") {
        if let Some(k) = args.iter().position(|a| a == ";") {
            let mut out = find_written(prog, &args[..k]);
            if k + 1 < args.len() {
                out.push(Found {
                    source: Source::Args(k + 1..args.len()),
                    lang: Lang::Argv,
                    label: "tmux ;".to_string(),
                    runs: Some("tmux"),
                });
            }
            return out;
        }
    }
    let syntax = syntax_of(prog);
    let sub_at = if syntax.subcommands {
        subcommand_at(syntax, args)
    } else {
        None
    };
    // A row of a subcommand of a program whose options the table does not
    // list (`npm exec -c TEXT`): the subcommand is its first operand.
    let row_sub_at = sub_at.or_else(|| subcommand_at(syntax, args));
    let mut out = Vec::new();
    // `screen -X CMD ARGS…` sends a command to a session: its operands are
    // that command's, not a program to start.
    let screen_x = prog == "screen" && args.iter().any(|a| a == "-X");
    for p in rows.iter().filter_map(|i| PLACES.get(usize::from(*i))) {
        if !p.flag.is_empty() && !has_flag(syntax, args, p.flag) {
            continue;
        }
        if has_flag(syntax, args, p.unless) {
            continue;
        }
        // The arguments the place reads: the program's own options (before a
        // subcommand), or the subcommand's (after its words).
        let scope: Range<usize> = if p.subcommand.is_empty() {
            0..sub_at.unwrap_or(args.len())
        } else {
            let Some(s) = row_sub_at else { continue };
            let Some(words) = p.subcommand.iter().find(|w| {
                w.iter()
                    .enumerate()
                    .all(|(k, word)| args.get(s + k).is_some_and(|a| a == word))
            }) else {
                continue;
            };
            s + words.len()..args.len()
        };
        let label = match p.subcommand.is_empty() {
            true => prog.to_string(),
            false => match row_sub_at {
                Some(s) => format!("{prog} {}", args[s..scope.start].join(" ")),
                None => prog.to_string(),
            },
        };
        match &p.at {
            At::Option { names, key, prefix } => {
                let mut i = scope.start;
                while i < scope.end {
                    if args.get(i).is_some_and(|a| a == "--") {
                        break;
                    }
                    for name in *names {
                        let Some((arg, skip)) = option_value(syntax, args, i, name) else {
                            continue;
                        };
                        let Some(value) = args.get(arg).and_then(|a| a.get(skip..)) else {
                            continue;
                        };
                        let mut skip = skip;
                        let mut label = format!("{label} {name}");
                        if let Some(key) = key {
                            let Some((k, v)) = value.split_once(['=', ' ']) else {
                                continue;
                            };
                            if !k.trim().eq_ignore_ascii_case(key) {
                                continue;
                            }
                            let v_at = value.len() - v.len();
                            let v2 = v.trim_start_matches([' ', '=']);
                            skip += v_at + (v.len() - v2.len());
                            label = format!("{label} {key}");
                        }
                        if let Some(pre) = prefix {
                            match args.get(arg).and_then(|a| a.get(skip..)) {
                                Some(v) if v.starts_with(pre) => skip += pre.len(),
                                _ => continue,
                            }
                        }
                        let source = match p.lang {
                            Lang::ArgvRest => {
                                let end = (arg..args.len())
                                    .find(|k| args[*k] == ";" || args[*k] == "\\;")
                                    .unwrap_or(args.len());
                                Source::Args(arg..end)
                            }
                            Lang::Escape(Dialect::Screen) => Source::Args(arg..args.len()),
                            _ if p.file => Source::File { arg, skip },
                            _ => Source::Arg { arg, skip },
                        };
                        out.push(Found {
                            source,
                            lang: p.lang,
                            label,
                            runs: p.runs,
                        });
                    }
                    i += 1;
                }
            }
            At::Config { .. } => {}
            At::Operand {
                n,
                rest,
                dashdash,
                kwarg,
            } => {
                if screen_x {
                    continue;
                }
                let from = match dashdash {
                    true => match args
                        .get(scope.start..)
                        .and_then(|a| a.iter().position(|a| a == "--"))
                    {
                        Some(k) => scope.start + k + 1,
                        None => continue,
                    },
                    false => scope.start,
                };
                let (at, skip) = match kwarg {
                    Some(key) => match keyword_operand(syntax, args, from, *n, key) {
                        Some(found) => found,
                        None => continue,
                    },
                    None => match nth_operand(syntax, args, from, *n) {
                        Some(at) => (at, 0),
                        None => continue,
                    },
                };
                let source = match (p.lang, rest) {
                    _ if p.file => Source::File { arg: at, skip },
                    _ if skip > 0 => Source::Arg { arg: at, skip },
                    (Lang::Argv | Lang::ShEach, _) | (_, true) => Source::Args(at..args.len()),
                    _ => Source::Arg { arg: at, skip: 0 },
                };
                out.push(Found {
                    source,
                    lang: p.lang,
                    label,
                    runs: p.runs,
                });
            }
            At::Stdin => out.push(Found {
                source: Source::Stdin,
                lang: p.lang,
                label,
                runs: p.runs,
            }),
        }
    }
    if prog == "git" {
        git_configs(args, sub_at, &mut out);
    }
    out
}

/// Configuration a git command line sets (`-c KEY=V`, `--config-env=KEY=VAR`,
/// and `git config [set] KEY V`, which keeps it for later commands), where the
/// key is a place that takes code.
fn git_configs(args: &[String], sub_at: Option<usize>, out: &mut Vec<Found>) {
    let globals = 0..sub_at.unwrap_or(args.len());
    let mut i = globals.start;
    while i < globals.end {
        let a = &args[i];
        let (arg, kv, how) = if a == "-c" {
            (i + 1, args.get(i + 1).map(String::as_str), "-c")
        } else if a == "--config-env" {
            (i + 1, args.get(i + 1).map(String::as_str), "--config-env")
        } else if let Some(v) = a.strip_prefix("--config-env=") {
            (i, Some(v), "--config-env")
        } else {
            i += 1;
            continue;
        };
        i += 1;
        let Some((key, value)) = kv.and_then(|kv| kv.split_once('=')) else {
            continue;
        };
        let Some((lang, prefix)) = config("git", key) else {
            continue;
        };
        let start = args[arg].len() - value.len();
        let label = format!("git {how} {key}");
        if how == "--config-env" {
            out.push(Found {
                source: Source::Var(value.to_string()),
                lang,
                label,
                runs: None,
            });
            continue;
        }
        if let Some(f) = config_found(args, arg, start, key, lang, prefix, sub_at, label) {
            out.push(f);
        }
    }
    // `git config [--global …] KEY VALUE`, `git config set KEY VALUE`.
    let Some(s) = sub_at.filter(|s| args[*s] == "config") else {
        return;
    };
    const VALUED: &[&str] = &[
        "-f",
        "--file",
        "--blob",
        "--type",
        "--default",
        "--comment",
        "--value",
    ];
    const READS: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--unset",
        "--unset-all",
        "-l",
        "--list",
        "-e",
        "--edit",
        "--rename-section",
        "--remove-section",
        "--get-color",
        "--get-colorbool",
    ];
    let mut ops = Vec::new();
    let mut k = s + 1;
    while let Some(a) = args.get(k) {
        if READS.contains(&a.as_str()) {
            return;
        }
        if VALUED.contains(&a.as_str()) {
            k += 2;
            continue;
        }
        if !a.starts_with('-') {
            ops.push(k);
        }
        k += 1;
    }
    let (key_at, value_at) = match ops.as_slice() {
        [v, key, value, ..] if args[*v] == "set" => (*key, *value),
        [v, ..]
            if matches!(
                args[*v].as_str(),
                "get"
                    | "unset"
                    | "list"
                    | "edit"
                    | "rename-section"
                    | "remove-section"
                    | "get-color"
                    | "get-colorbool"
            ) =>
        {
            return
        }
        [key, value, ..] => (*key, *value),
        _ => return,
    };
    let key = &args[key_at];
    if let Some((lang, prefix)) = config("git", key) {
        let label = format!("git config {key}");
        let git_line = lang == Lang::GitAlias && !args[value_at].starts_with('!');
        if git_line {
            // `git config alias.x 'reset --hard'`: every later `git x` (in
            // this line or another, where the definition is out of sight)
            // runs that git command line, so it is judged where it is made.
            out.push(Found {
                source: Source::GitAlias {
                    arg: value_at,
                    skip: 0,
                    rest: args.len()..args.len(),
                },
                lang,
                label,
                runs: None,
            });
        } else if let Some(f) = config_found(args, value_at, 0, key, lang, prefix, None, label) {
            out.push(f);
        }
    }
}

/// The code of configuration `key` whose value starts at byte `start` of
/// argument `arg`, as found in `git` (a non-shell alias runs when the
/// subcommand at `sub_at` is its name).
#[allow(clippy::too_many_arguments)] // reason: one call site per way git sets configuration
fn config_found(
    args: &[String],
    arg: usize,
    start: usize,
    key: &str,
    lang: Lang,
    prefix: Option<&str>,
    sub_at: Option<usize>,
    label: String,
) -> Option<Found> {
    let value = args.get(arg)?.get(start..)?;
    let mut skip = start;
    if let Some(pre) = prefix {
        value.strip_prefix(pre)?;
        skip += pre.len();
    }
    let source = match lang {
        Lang::GitAlias if !value.starts_with('!') => {
            // `git -c alias.nuke='reset --hard' nuke`
            let name = key.get("alias.".len()..)?;
            let s =
                sub_at.filter(|s| args.get(*s).is_some_and(|w| w.eq_ignore_ascii_case(name)))?;
            Source::GitAlias {
                arg,
                skip,
                rest: s + 1..args.len(),
            }
        }
        _ => Source::Arg { arg, skip },
    };
    Some(Found {
        source,
        lang,
        label,
        runs: None,
    })
}

/// `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n` and
/// `GIT_CONFIG_PARAMETERS` among assignments: the values whose keys take code
/// (a value whose key is not given is code too: nobody can say it is not).
pub(crate) fn git_env_configs(assigns: &[(String, String)]) -> Vec<(String, Lang, String)> {
    let mut out = Vec::new();
    for (name, value) in assigns {
        if let Some(n) = name.strip_prefix("GIT_CONFIG_VALUE_") {
            let key = assigns
                .iter()
                .find(|(k, _)| k.strip_prefix("GIT_CONFIG_KEY_") == Some(n))
                .map(|(_, v)| v.as_str());
            match key {
                Some(k) => {
                    if let Some((lang, prefix)) = config("git", k) {
                        let v = match prefix {
                            Some(p) => match value.strip_prefix(p) {
                                Some(v) => v,
                                None => continue,
                            },
                            None => value,
                        };
                        out.push((v.to_string(), lang, format!("{name} {k}")));
                    }
                }
                None => out.push((value.clone(), Lang::Sh, name.clone())),
            }
        } else if name == "GIT_CONFIG_PARAMETERS" {
            // `'core.pager'='less -R' 'alias.x'='!…'`
            for (k, v) in parameters(value) {
                if let Some((lang, _)) = config("git", &k) {
                    out.push((v, lang, format!("{name} {k}")));
                }
            }
        }
    }
    out
}

/// The `'KEY'='VALUE'` pairs of `GIT_CONFIG_PARAMETERS`.
fn parameters(s: &str) -> Vec<(String, String)> {
    let words = super::wrappers::split_words(&s.replace("'='", "' '"));
    words
        .chunks(2)
        .filter_map(|p| match p {
            [k, v] => Some((k.clone(), v.clone())),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn a_subcommand_is_found_past_the_values_of_known_options() {
        fn none(_: &[String], _: &[&str]) -> bool {
            false
        }
        let path =
            |prog: &str, line: &str, sub: &[&str]| subcommand_path(prog, &args(line), sub, none);
        assert_eq!(
            path("docker", "compose -f config up", &["compose", "config"]),
            Some(false)
        );
        assert_eq!(
            path("docker", "compose -f config up", &["compose", "up"]),
            Some(true)
        );
        assert_eq!(
            path(
                "docker",
                "-H h compose -p p --file=a.yml -fb.yml config",
                &["compose", "config"]
            ),
            Some(true)
        );
        assert_eq!(
            path("docker", "compose --dry-run config", &["compose", "config"]),
            Some(true)
        );
        assert_eq!(
            path("docker-compose", "--project-name config up", &["config"]),
            Some(false)
        );
        assert_eq!(path("git", "-C config push", &["push"]), Some(true));
        assert_eq!(path("git", "-P reset --hard", &["reset"]), Some(true));
        // no row for `git remote`: the words after it are the fallback's
        assert_eq!(path("git", "remote add x", &["remote", "add"]), Some(false));
        assert_eq!(path("rm", "-rf config", &["config"]), None);
    }

    #[test]
    fn the_index_is_sorted_and_every_row_is_reachable() {
        assert!(BY_PROGRAM.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(PROGRAMS.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(VARIABLES.windows(2).all(|w| w[0].0 < w[1].0));
        let mut seen = vec![false; PLACES.len()];
        for (_, ix) in BY_PROGRAM {
            for i in *ix {
                seen[usize::from(*i)] = true;
            }
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn options_in_their_spellings() {
        for (prog, line, want) in [
            ("tar", "-cf x.tar -I zstd d", Some((3, 0))),
            ("tar", "-cf x.tar -Izstd d", Some((2, 2))),
            ("tar", "-xf a.tar --to-command=cat", Some((2, 13))),
            ("tar", "-xf a.tar --to-command cat", Some((3, 0))),
            ("script", "-qc ls log", Some((1, 0))),
            ("rsync", "-avze ssh a b", Some((1, 0))),
            ("tar", "-tf x.tar", None),
            ("tar", "-xf a.tar -- -I", None),
            // Abbreviations the tool accepts: the place points into the word
            // as written (`--to-comm=` is 10 bytes).
            ("tar", "-xf a.tar --to-comm=cat", Some((2, 10))),
            ("tar", "-xf a.tar --to-comm cat", Some((3, 0))),
            ("tar", "--use-compress-prog=zstd -cf x d", Some((0, 20))),
            ("tar", "-xf a.tar --to=cat", None),
        ] {
            let found = find(prog, &args(line));
            let got = found.first().map(|f| match f.source {
                Source::Arg { arg, skip } => (arg, skip),
                _ => (usize::MAX, 0),
            });
            assert_eq!(got, want, "{prog} {line}");
        }
    }

    #[test]
    fn subcommands_scope_their_options() {
        // `-x` is git rebase's, not git's own; `-c` is tmux's own only before
        // the subcommand (after it, `new-window -c DIR` is a folder).
        assert!(find("git", &args("rebase -x make main")).len() == 1);
        assert!(find("git", &args("log -x")).is_empty());
        assert!(find("tmux", &args("new-window -c /srv -n logs")).is_empty());
        let f = find("tmux", &args("-c ls"));
        assert_eq!(f.first().map(|f| f.label.as_str()), Some("tmux -c"));
        let f = find("tmux", &args("new-session -d -s build make"));
        assert_eq!(
            f.first().map(|f| f.source.clone()),
            Some(Source::Args(4..5))
        );
    }

    #[test]
    fn targets_keywords_flags_and_dashdash() {
        // (program, its words, where the first place's text is: argument and
        // byte, or `None` when the line holds none)
        for (prog, line, want) in [
            // salt: the target, the function, its first positional argument
            // or its `cmd=` keyword
            ("salt", "* cmd.run ls", Some((2, 0))),
            ("salt", "-G os:Debian cmd.run ls", Some((3, 0))),
            ("salt", "-t 60 --out=json web* cmd.run ls", Some((5, 0))),
            ("salt", "* cmd.run runas=u ls", Some((3, 0))),
            ("salt", "* cmd.run cwd=/ cmd=ls", Some((3, 4))),
            ("salt", "* test.ping", None),
            ("salt", "cmd.run ls", None),
            ("salt-call", "cmd.run ls", Some((1, 0))),
            ("salt", "* cmd.run_chroot /srv/root ls", Some((3, 0))),
            ("salt", "* file.remove path=/srv", Some((2, 5))),
            // clush copies its operands with -c / --copy
            ("clush", "-w n[1-3] -b uname", Some((3, 0))),
            ("clush", "-w n[1-3] -c a.txt --dest /tmp", None),
            ("clush", "-bw n1 --copy a.txt", None),
            // fab: only the words after `--`
            ("fab", "-H web1 -- uname -a", Some((3, 0))),
            ("fab", "-H web1 deploy", None),
            // ansible: a file task's arguments only with `-m file`
            ("ansible", "all -m ping", None),
        ] {
            let found = find(prog, &args(line));
            let got = found.iter().find_map(|f| match f.source {
                Source::Arg { arg, skip } | Source::File { arg, skip } => Some((arg, skip)),
                Source::Args(ref r) => Some((r.start, 0)),
                _ => None,
            });
            assert_eq!(got, want, "{prog} {line}");
        }
        let langs = |prog: &str, line: &str| -> Vec<Lang> {
            find(prog, &args(line)).iter().map(|f| f.lang).collect()
        };
        assert!(langs("ansible", "all -m file -a path=/x").contains(&Lang::Absent));
        assert!(langs("ansible", "all -mfile -a path=/x").contains(&Lang::Absent));
        assert!(!langs("ansible", "all -m copy -a path=/x").contains(&Lang::Absent));
        // a one-letter flag inside a cluster
        assert!(has_flag(&PLAIN, &args("-ic ls"), &["-i"]));
        assert!(has_flag(&PLAIN, &args("-li"), &["-i"]));
        assert!(!has_flag(&PLAIN, &args("--rcfile=-i"), &["-i"]));
        assert!(!has_flag(&PLAIN, &args("-- -i"), &["-i"]));
    }

    #[test]
    fn git_configuration_keys() {
        let f = find("git", &args("-c core.pager=less log"));
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].source, Source::Arg { arg: 1, skip: 11 });
        assert_eq!(f[0].label, "git -c core.pager");
        assert!(find("git", &args("-c user.name=x commit")).is_empty());
        let f = find(
            "git",
            &args("-c credential.https://h.example.helper=store push"),
        );
        assert_eq!(f[0].lang, Lang::GitHelper);
        let f = find("git", &args("config --global core.sshCommand ssh"));
        assert_eq!(f[0].source, Source::Arg { arg: 3, skip: 0 });
        assert!(find("git", &args("config --get core.pager")).is_empty());
        // An alias that is a git command runs when it is called.
        let f = find("git", &args("-c alias.nuke=reset nuke"));
        assert_eq!(
            f[0].source,
            Source::GitAlias {
                arg: 1,
                skip: 11,
                rest: 3..3
            }
        );
        assert!(find("git", &args("-c alias.st=status log")).is_empty());
        assert_eq!(
            git_env_configs(&[
                ("GIT_CONFIG_KEY_0".into(), "core.pager".into()),
                ("GIT_CONFIG_VALUE_0".into(), "less".into()),
                ("GIT_CONFIG_KEY_1".into(), "user.name".into()),
                ("GIT_CONFIG_VALUE_1".into(), "x".into()),
            ]),
            vec![(
                "less".into(),
                Lang::Sh,
                "GIT_CONFIG_VALUE_0 core.pager".into()
            )]
        );
    }

    #[test]
    fn loaded_code_is_read_in_each_programs_syntax() {
        let names = |l: Load, v: &str| l.names(v);
        let path = |s: &str| (s.to_string(), false);
        let module = |s: &str| (s.to_string(), true);
        assert_eq!(
            names(Load::Preload, "./a.so:/usr/lib/b.so c.so"),
            [path("./a.so"), path("/usr/lib/b.so"), path("c.so")]
        );
        assert_eq!(
            names(
                Load::NodeOptions,
                "--max-old-space-size=4096 -r ./x.js --import=./l.mjs --require ts-node/register"
            ),
            [
                module("./x.js"),
                module("./l.mjs"),
                module("ts-node/register")
            ]
        );
        assert_eq!(
            names(
                Load::JavaOptions,
                "-Xmx2g -javaagent:./a.jar=opt -agentpath:/tmp/x.so"
            ),
            [path("./a.jar"), path("/tmp/x.so")]
        );
        assert_eq!(
            names(Load::PerlOptions, "-I. -Mevil -MDevel::Cover=-silent,1 -w"),
            [path("."), module("evil"), module("Devel::Cover")]
        );
        assert_eq!(names(Load::PerlOptions, "-M strict"), [module("strict")]);
        assert_eq!(
            names(Load::RubyOptions, "-W0 -r./x -I lib"),
            [module("./x"), path("lib")]
        );
        assert_eq!(
            names(Load::PythonPath, "src::tools"),
            [path("src"), path("tools")]
        );
    }

    #[test]
    fn variables_by_name_and_prefix() {
        assert_eq!(variable("GIT_SSH_COMMAND"), Some(Lang::Sh));
        assert_eq!(variable("BASH_FUNC_ls%%"), Some(Lang::BashFunction));
        assert_eq!(variable("HOME"), None);
        assert_eq!(
            variable("CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER"),
            Some(Lang::Sh)
        );
        assert_eq!(variable("CARGO_TARGET_DIR"), None);
    }

    #[test]
    fn globs_span_dots() {
        assert!(glob("credential.*.helper", "credential.https://a.b.helper"));
        assert!(!glob("credential.*.helper", "credential.helper"));
        assert!(glob("alias.*", "alias.x"));
    }
}
