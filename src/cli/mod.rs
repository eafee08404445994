//! The command line. Every command is a function that takes its inputs and
//! writers, so tests call them in-process; `main` only wires up the process.

pub mod allow;
pub mod check;
pub mod codex_trust;
pub mod docs;
pub mod doctor;
pub mod explain;
pub mod export;
pub mod fixture;
pub mod init;
pub mod install_hosts;
pub mod log;
pub mod quick;
pub mod replay;
pub mod report;
pub mod rule;
pub mod scaffold;
pub mod style;
pub mod test;
pub mod timeouts;
pub mod trust;
pub mod wiring;

use crate::os::env::Env;
use std::io::IsTerminal;
use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use crate::contract::hosts::{Hint, Host};
use crate::policy::discover::Discovery;

/// One fast binary and declarative TOML policies for every Claude Code hook event.
#[derive(Debug, Parser)]
#[command(name = "hookrules", version = VERSION, about, long_about = None)]
pub struct Cli {
    /// The command.
    #[command(subcommand)]
    pub command: Command,
    /// Leave the built-in pack out: only the policies named or found are used
    /// (`check` and `doctor` say the protection is off).
    #[arg(long = "no-builtin", global = true)]
    pub no_builtin: bool,
}

/// `hookrules --version`: the version and where this binary came from (the git
/// commit, the build profile, the target and the channel; see build.rs).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("HOOKRULES_COMMIT"),
    ", ",
    env!("HOOKRULES_PROFILE"),
    " build, ",
    env!("HOOKRULES_TARGET"),
    ", from ",
    env!("HOOKRULES_SOURCE"),
    ")"
);

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// For people.
    #[default]
    Human,
    /// For machines.
    Json,
}

/// How much `explain` shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Verbosity {
    /// The decision, the rules that determined it, and the output.
    Summary,
    /// Also the rules that matched, and those that came close (a test held).
    #[default]
    Close,
    /// Also every evaluated rule and the conditions that failed.
    Failures,
    /// Everything: skipped rules, every condition, facts, captures.
    Full,
}

/// Commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Answer one hook event: read it on stdin, print the client's JSON on stdout.
    Run {
        /// Policy files or folders (default: see README, "Where policies come from").
        #[arg(long = "policies", short = 'p')]
        policies: Vec<PathBuf>,
        /// The agent whose hook this is (claude, codex, gemini, cursor, copilot,
        /// vscode); default: told from the event itself.
        #[arg(long)]
        host: Option<String>,
        /// The agent's name for the event, for agents that do not send it (Copilot CLI).
        #[arg(long)]
        event: Option<String>,
        /// Who runs it: `plugin` (the Claude Code plugin's launcher) stays quiet
        /// for events a settings.json handler already answers.
        #[arg(long)]
        via: Option<String>,
        /// The client's timeout for this handler, in seconds (`init` writes it): the
        /// answer comes before it, with the failure mode if the work does not fit.
        #[arg(long, value_name = "SECONDS")]
        timeout: Option<f64>,
    },
    /// Lint policies: every problem at once, pointing into the TOML.
    Check {
        /// Policy files or folders (default: the same search as `run`).
        paths: Vec<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
        /// Also list every rule: layer, decision, priority, events, file and line, overrides.
        #[arg(long)]
        rules: bool,
        /// Check again whenever a policy file's content changes (for a side terminal while editing).
        #[arg(long)]
        watch: bool,
        /// Fixture folders: warn about rules none of their fixtures makes fire (HR106).
        #[arg(long)]
        fixtures: Vec<PathBuf>,
    },
    /// Show how an event (a fixture) is decided: every rule, condition and fact.
    Explain {
        /// A fixture: the event JSON the client sends, or {"event": ..., "expect": ...};
        /// `-` reads it from stdin. Or name a call instead: --bash, --read, --write, --edit.
        #[arg(required_unless_present = "call", conflicts_with = "call")]
        fixture: Option<PathBuf>,
        /// A call to explain instead of a fixture.
        #[command(flatten)]
        quick: quick::QuickArgs,
        /// Show this rule only, in full: every condition with what it saw.
        #[arg(long)]
        rule: Option<String>,
        /// Policy files or folders.
        #[arg(long = "policies", short = 'p')]
        policies: Vec<PathBuf>,
        /// How much to show; `-v` alone shows the full trace.
        #[arg(long, short = 'v', value_enum, default_value_t, num_args = 0..=1, default_missing_value = "full")]
        verbosity: Verbosity,
        /// Output format.
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// Run fixtures (event + expected outcome) and report `N passed, N failed`.
    #[command(after_long_help = fixture::FORMAT)]
    Test {
        /// Folders of fixtures, or folders holding `policies/` and `fixtures/`.
        paths: Vec<PathBuf>,
        /// Policy files or folders (for folders without their own `policies/`).
        #[arg(long = "policies", short = 'p')]
        policies: Vec<PathBuf>,
        /// Write a fixture for this event (a file, or `-` for stdin) that expects
        /// what the policies decide today, instead of running fixtures.
        #[arg(long = "new", value_name = "EVENT")]
        new: Option<PathBuf>,
        /// With --new: the fixture file to create (default: print it).
        #[arg(long = "out", short = 'o', requires = "new")]
        out: Option<PathBuf>,
        /// Which rules to list when no fixture makes them fire (HR106).
        #[arg(long, value_enum, default_value_t)]
        coverage: test::Coverage,
        /// A call to judge instead of fixtures (with --expect).
        #[command(flatten)]
        quick: quick::QuickArgs,
        /// What the call must get: deny, ask, or allow (goes ahead: allowed, or no
        /// rule objects). Exit 0 when it does, 1 when not.
        #[arg(long, value_enum, requires = "call", conflicts_with_all = ["paths", "new"])]
        expect: Option<quick::Expected>,
    },
    /// Print the JSON Schema of the policy format.
    Schema,
    /// Explain a diagnostic code (`hookrules rule HR003`), or list them all.
    Rule {
        /// A code (HR003) or name (invalid-regex).
        code: Option<String>,
    },
    /// Register hookrules for every hook event in .claude/settings.json, add a starter policy.
    Init(init::InitArgs),
    /// Remove hookrules' handlers from settings.json (policies are left alone).
    Uninstall(init::UninstallArgs),
    /// Where hookrules is wired (settings layers, plugin, other agents), duplicates,
    /// missing or other-version binaries, timeouts in the wrong unit, the policies in
    /// force and whether the built-in protection is on.
    Doctor {
        /// Output format (json: the same findings, with stable keys).
        #[arg(long, value_enum, default_value_t)]
        format: Format,
    },
    /// The recent decisions from the decision log, as a table, newest last.
    Log(log::LogArgs),
    /// Re-evaluate logged events under the current policies: what would change.
    Replay(replay::ReplayArgs),
    /// A summary of the decision log; `--html FILE` writes a page with charts.
    Report(report::ReportArgs),
    /// Let a denied call through once, with the code the deny showed (your terminal only).
    Allow(allow::AllowArgs),
    /// Deliver the decisions waiting in the export spool to the OpenTelemetry
    /// collector now (`HOOKRULES_EXPORT=otlp`, `OTEL_EXPORTER_OTLP_*`).
    Export {
        /// What a run starts after its answer: no output, and the pause after
        /// failures is kept.
        #[arg(long, hide = true)]
        background: bool,
    },
    /// Print a shell completion script (`hookrules completions bash`), or install
    /// bash, zsh and fish completions into your folders (`--install`).
    Completions {
        /// The shell.
        #[arg(value_enum, required_unless_present = "install")]
        shell: Option<docs::CompletionShell>,
        /// Write bash, zsh and fish completions where those shells look
        /// (~/.local/share/bash-completion, ~/.local/share/zsh/site-functions,
        /// ~/.config/fish/completions).
        #[arg(long, conflicts_with = "shell")]
        install: bool,
    },
    /// Print the manual page hookrules(1), or write every page (`--dir DIR`,
    /// `--install`: ~/.local/share/man/man1).
    Man {
        /// Write hookrules.1 and one hookrules-COMMAND.1 per command into this folder.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Write them into your manual folder (~/.local/share/man/man1), where
        /// `man hookrules` finds them.
        #[arg(long, conflicts_with = "dir")]
        install: bool,
    },
    /// Trust the project's policies as they are now, so what they loosen and the
    /// commands they run take effect (your terminal only; `check` lists them).
    Trust(trust::TrustArgs),
}

/// The project ([`crate::contract::project::resolve`] from the current
/// folder); found from the current folder up, it is named relative to where
/// the user is, so `check` names files as they would type them
/// (`.claude/hookrules/x.toml`, `../.claude/...`).
fn project_for_display(env: &Env) -> PathBuf {
    let root = crate::contract::project::resolve(env, None);
    if env.get("CLAUDE_PROJECT_DIR").is_some_and(|s| !s.is_empty()) {
        return root;
    }
    match std::env::current_dir() {
        Ok(cwd) if cwd.starts_with(&root) => {
            let up = cwd.components().count() - root.components().count();
            (0..up).map(|_| "..").collect()
        }
        _ => root,
    }
}

/// Policy discovery from flags and the environment.
pub fn discovery(flags: Vec<PathBuf>, env: &Env) -> Discovery {
    Discovery {
        flags,
        env: env.get("HOOKRULES_POLICIES"),
        project_dir: Some(project_for_display(env)),
        user_dir: crate::contract::places::user_policies(env),
        no_builtin: false,
        state_home: crate::os::state::state_home(env),
        managed_dir: crate::policy::managed::default_dir(env),
        managed_required: crate::policy::managed::required_from_env(env),
    }
}

/// The binary's entry point: the exit status.
pub fn status() -> u8 {
    let cli = parse_args();
    let run_command = matches!(cli.command, Command::Run { .. });
    if run_command {
        // From here on small allocations are bumps into one region that is
        // never freed (see `os::arena`): `run` is one short process.
        crate::os::arena::start();
    }
    // Variables are read when asked for (see `os::env`).
    let mut env = Env::process();
    // hookrules' own variables that a project file set are ignored.
    let ignored_env =
        crate::os::repo_env::user_only(&mut env, std::env::current_dir().ok().as_deref());
    let env_notice = crate::os::repo_env::notice(&ignored_env);
    let no_builtin = cli.no_builtin;
    let discovery = |flags: Vec<PathBuf>, env: &Env| Discovery {
        no_builtin,
        ..discovery(flags, env)
    };
    if !matches!(cli.command, Command::Run { .. }) {
        style::enable(style::wanted(&env, std::io::stdout().is_terminal()));
    }
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let code = match cli.command {
        Command::Run {
            policies,
            host,
            event,
            via,
            timeout,
        } => run(
            &discovery(policies, &env),
            &env,
            host.as_deref(),
            event.as_deref(),
            via.as_deref(),
            timeout,
            env_notice.as_deref(),
        ),
        Command::Check {
            paths,
            format,
            rules,
            watch,
            fixtures,
        } => {
            let d = discovery(paths, &env);
            if watch {
                check::watch(&d, format, rules, &fixtures, &mut stdout.lock())
            } else {
                check::check_with_fixtures(&d, format, rules, &fixtures, &mut stdout.lock())
            }
        }
        Command::Explain {
            fixture,
            quick,
            rule,
            policies,
            verbosity,
            format,
        } => explain::explain_with(
            &match fixture {
                Some(f) => explain::Subject::Fixture(f),
                None => explain::Subject::Call(quick),
            },
            rule.as_deref(),
            &mut std::io::stdin().lock(),
            &discovery(policies, &env),
            &env,
            verbosity,
            format,
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Test {
            paths,
            policies,
            new,
            out,
            coverage,
            quick,
            expect,
        } => test_command(
            &paths,
            &discovery(policies, &env),
            new.as_deref(),
            out.as_deref(),
            coverage,
            &quick,
            expect,
            &env,
        ),
        Command::Schema => {
            let _ = writeln!(stdout.lock(), "{}", schema_json());
            0
        }
        Command::Rule { code } => rule(code.as_deref(), &mut stdout.lock()),
        Command::Init(args) => init::init(
            &args,
            &init::Context::from_process(&env),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Doctor { format } => doctor::doctor(
            &init::Context::from_process(&env),
            &discovery(vec![], &env),
            format,
            &mut stdout.lock(),
        ),
        Command::Log(args) => log::log(
            &args,
            &env,
            log::Paint(style::on()),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Replay(args) => replay::run(
            &args,
            &env,
            log::Paint(style::on()),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Report(args) => report::run(
            &args,
            &env,
            log::Paint(style::on()),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Completions { shell, install } => {
            docs::completions(shell, install, &env, &mut stdout.lock(), &mut stderr.lock())
        }
        Command::Man { dir, install } => docs::man(
            dir.as_deref(),
            install,
            &env,
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Export { background } => {
            export::run(&env, background, &mut stdout.lock(), &mut stderr.lock())
        }
        Command::Allow(args) => allow::run(
            &args,
            &env,
            std::io::stdin().is_terminal(),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Trust(args) => trust::run(
            &args,
            &env,
            std::io::stdin().is_terminal(),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        Command::Uninstall(args) => init::uninstall(
            &args,
            &init::Context::from_process(&env),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
    };
    if run_command {
        // The process ends now: the map is not freed (`engine::run::process`).
        std::mem::forget(env);
    }
    code.clamp(0, 255) as u8
}

/// The command line. `hookrules run` is every hook call: it skips building
/// the whole command-line parser (about a third of a harmless call's
/// instructions beyond the floor; bench/callgrind.sh) when [`run_args`] can
/// read its words, as every handler hookrules installs writes them (`run`,
/// `run --timeout SECONDS`, `run --via plugin`, `run --host NAME`).
fn parse_args() -> Cli {
    run_args(std::env::args_os().skip(1)).unwrap_or_else(Cli::parse)
}

/// `run` and its options, when every word is one clap reads the same way:
/// `--policies`/`-p`, `--host`, `--event`, `--via` and `--timeout`, each with
/// its value as the next word, and `--no-builtin`. `None` for anything else
/// (another command, `--opt=value`, `-pDIR`, a value that is empty or starts
/// with `-`, an option given twice that takes one value, `--help`, `--`): clap
/// reads those, and says what is wrong.
fn run_args(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<Cli> {
    if args.next()? != "run" {
        return None;
    }
    let (mut policies, mut no_builtin) = (vec![], false);
    let (mut host, mut event, mut via, mut timeout) = (None, None, None, None);
    while let Some(word) = args.next() {
        if word == "--no-builtin" && !no_builtin {
            no_builtin = true;
            continue;
        }
        use std::os::unix::ffi::OsStrExt;
        let value = args
            .next()
            .filter(|v| v.as_bytes().first().is_some_and(|&b| b != b'-'))?;
        let text = || value.to_str().map(str::to_string);
        let once = |slot: &Option<String>| slot.is_none().then(text).flatten();
        match word.to_str()? {
            "--policies" | "-p" => policies.push(PathBuf::from(&value)),
            "--host" => host = Some(once(&host)?),
            "--event" => event = Some(once(&event)?),
            "--via" => via = Some(once(&via)?),
            "--timeout" if timeout.is_none() => timeout = Some(text()?.parse::<f64>().ok()?),
            _ => return None,
        }
    }
    Some(Cli {
        command: Command::Run {
            policies,
            host,
            event,
            via,
            timeout,
        },
        no_builtin,
    })
}

/// `hookrules run`: one hook call, through the engine; an unknown `--host`
/// is an error before anything is read.
fn run(
    discovery: &Discovery,
    env: &Env,
    host: Option<&str>,
    event: Option<&str>,
    via: Option<&str>,
    timeout: Option<f64>,
    notice: Option<&str>,
) -> i32 {
    let host = match host.map(|h| (h, Host::parse(h))) {
        Some((h, None)) => {
            let _ = writeln!(
                std::io::stderr().lock(),
                "hookrules: unknown --host `{h}`; one of: {}",
                Host::ALL.map(Host::name).join(", ")
            );
            return 2;
        }
        other => other.and_then(|(_, h)| h),
    };
    crate::engine::run::process(
        discovery,
        env,
        crate::engine::run::Invocation {
            hint: Hint { host, event },
            via_plugin: (via == Some("plugin")).then_some(wiring::settings_answer as _),
            timeout_secs: timeout,
            notice,
        },
    )
}

/// `hookrules test`: one call against an expectation, a new fixture from an
/// event, or the fixtures under PATHS.
#[allow(
    clippy::too_many_arguments,
    reason = "one per option of `hookrules test`"
)]
fn test_command(
    paths: &[PathBuf],
    discovery: &Discovery,
    new: Option<&Path>,
    out: Option<&Path>,
    coverage: test::Coverage,
    quick: &quick::QuickArgs,
    expect: Option<quick::Expected>,
    env: &Env,
) -> i32 {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    match (new, expect) {
        (_, Some(expect)) => quick::test(
            quick,
            expect,
            discovery,
            env,
            &std::env::current_dir().unwrap_or_default(),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        (None, None) if quick.call(Path::new("/")).is_some() => {
            let _ = writeln!(
                stderr.lock(),
                "hookrules test: a call needs --expect deny|ask|allow (`hookrules explain` shows what it gets)"
            );
            2
        }
        (Some(event), None) => scaffold::new_fixture(
            event,
            out,
            discovery,
            env,
            &mut std::io::stdin().lock(),
            &mut stdout.lock(),
            &mut stderr.lock(),
        ),
        (None, None) => test::test_with(paths, discovery, coverage, &mut stdout.lock()),
    }
}

/// The JSON Schema of the policy format, generated from the parser's own types.
pub fn schema_json() -> String {
    let schema = schemars::schema_for!(crate::policy::syntax::RawPolicy);
    serde_json::to_string_pretty(&schema).unwrap_or_default()
}

/// `hookrules rule [CODE]`.
pub fn rule(code: Option<&str>, out: &mut dyn Write) -> i32 {
    rule::rule(code, out)
}

#[cfg(test)]
mod tests {
    use super::{run_args, Cli};
    use clap::Parser;

    /// `run`'s words read without clap give what clap gives, and whatever
    /// clap refuses is left to clap.
    #[test]
    fn run_words_read_without_clap_are_read_as_clap_reads_them() {
        let read_fast = [
            "run",
            "run --timeout 10",
            "run --timeout 0.5",
            "run --via plugin",
            "run --host codex",
            "run --host copilot --event preToolUse",
            "run --host gemini --timeout 30",
            "run --no-builtin --policies a/b --policies c",
            "run -p a --no-builtin -p b --host x",
        ];
        let left_to_clap = [
            "",
            "check",
            "--no-builtin run",
            "run --timeout",
            "run --timeout x",
            "run --timeout -1",
            "run --timeout=5",
            "run -pdir",
            "run --policies=dir",
            "run --host a --host b",
            "run --timeout 1 --timeout 2",
            "run --no-builtin --no-builtin",
            "run --host --via",
            "run --help",
            "run -- x",
            "run extra",
            "run --unknown 1",
        ];
        let clap = |words: &[&str]| {
            Cli::try_parse_from(std::iter::once("hookrules").chain(words.iter().copied()))
                .map(|c| format!("{c:?}"))
        };
        for line in read_fast.iter().chain(&left_to_clap) {
            let words: Vec<&str> = line.split_whitespace().collect();
            let fast = run_args(words.iter().map(std::ffi::OsString::from));
            match (&fast, clap(&words)) {
                (Some(f), Ok(c)) => assert_eq!(format!("{f:?}"), c, "`{line}`"),
                (Some(f), Err(e)) => panic!("`{line}`: read as {f:?}, clap says {e}"),
                (None, _) => assert!(!read_fast.contains(line), "`{line}` not read"),
            }
        }
    }
}
