//! A request for a program's help runs nothing else.
//!
//! The command-line tools below print their help and exit when a help option
//! is among their arguments, whatever else the line names: `terraform destroy
//! -help`, `kubectl delete ns prod --help`, `helm uninstall web --help`, `git
//! push origin main --help` destroy nothing. [`help_request`] rewrites such a
//! command into what runs (the program and the help option, after git's own
//! options), once for every rule, so no rule needs its own `flags_none =
//! ["--help"]`.
//!
//! When a help option counts:
//! * it comes before `--` (after it, it is an operand);
//! * the word before it is not an option that may take it as its value
//!   (`kubectl delete ns prod -n --help` deletes `prod` in namespace
//!   `--help`): the word before is the program, its subcommand or an operand,
//!   or an option written with `=`;
//! * for the programs that read options only before their operands (BSD
//!   `rm`, and GNU's under `POSIXLY_CORRECT`: `rm -rf / --help` removes `/`
//!   and a file named `--help` there), it comes before the first operand.
//!
//! Some programs also read a help *word* ([`Word`]): `aws ec2
//! terminate-instances help` prints the manual, as `gcloud help compute
//! instances delete` and `kubectl help delete` do; elsewhere `help` is a name
//! (`gcloud compute instances delete help` deletes the instance `help`).
//!
//! Each program lists the spellings it honours: `-h` is help for terraform,
//! kubectl or helm, but a hostname for `docker run`, a numeric sort for
//! `sort` and "no file names" for `git grep`, so it is not everyone's.
//! Programs that hand their arguments to code they run (a script, `npx`,
//! `make`) are not here: their help option is the script's to read.

/// Where a program reads its help option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reads {
    /// Among its options anywhere before `--` (getopt with permutation,
    /// Go's flag parsers in cobra and mitchellh/cli, argparse, yargs, git's
    /// parse-options).
    Anywhere,
    /// Only before its first operand (BSD getopt, GNU's under
    /// `POSIXLY_CORRECT`).
    BeforeOperands,
}

/// Programs, the help options each honours, and where it reads them.
#[rustfmt::skip]
const TABLE: &[(&[&str], &[&str], Reads)] = &[
    // HashiCorp's CLIs (mitchellh/cli): any argument before `--`
    (&["terraform", "tofu", "terragrunt", "consul", "vault", "nomad", "packer"], &["-h", "-help", "--help"], Reads::Anywhere),
    // cobra: clusters and clouds
    (&["kubectl", "oc", "helm", "pulumi", "eksctl", "doctl", "flyctl", "fly", "copilot", "rclone", "k3d", "kind", "minikube", "argocd", "velero", "flux", "istioctl", "skaffold", "talosctl", "gh", "glab"], &["-h", "--help"], Reads::Anywhere),
    // `docker run -h` is the container's hostname
    (&["docker", "podman", "nerdctl"], &["--help"], Reads::Anywhere),
    // git's parse-options (`git grep -h` is an option of grep)
    (&["git"], &["--help"], Reads::Anywhere),
    // Node, Python and Java command-line parsers (yargs, commander, oclif, argparse, click, picocli)
    (&["cdk", "cdktf", "serverless", "sls", "sst", "amplify", "vercel", "netlify", "heroku", "firebase", "wrangler", "prisma", "sequelize", "knex", "typeorm", "alembic", "sam", "gcloud", "az", "azd", "liquibase", "dbmate", "supabase"], &["-h", "--help"], Reads::Anywhere),
    // the tools that delete or overwrite files: GNU's `--help`, read before the operands
    (&["rm", "rmdir", "unlink", "mv", "cp", "ln", "install", "dd", "shred", "truncate", "chmod", "chown", "chgrp", "srm", "wipefs", "mkfs", "mke2fs"], &["--help"], Reads::BeforeOperands),
];

/// Where a program reads a help *word* (an operand, not an option).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Word {
    /// `help` as the first operand: a help command (`kubectl help delete`,
    /// `gcloud help compute instances delete`, `heroku help apps:destroy`).
    First,
    /// `help` as the last word: the AWS CLI prints the manual of the command
    /// before it (`aws ec2 terminate-instances help`).
    Last,
}

/// Programs whose syntax makes the word `help` a request for help, and where.
#[rustfmt::skip]
const WORDS: &[(&[&str], Word)] = &[
    // cobra's `help [command]` and oclif's, gcloud's help command
    (&["kubectl", "oc", "helm", "pulumi", "eksctl", "doctl", "flyctl", "fly", "copilot", "rclone", "k3d", "kind", "minikube", "argocd", "velero", "flux", "istioctl", "skaffold", "talosctl", "gh", "glab", "docker", "podman", "nerdctl", "gcloud", "heroku", "netlify"], Word::First),
    // awscli (v1 and v2): `aws [SERVICE [OPERATION]] help`
    (&["aws"], Word::Last),
];

/// The index of the word `help` when `args` ask `program` for its help by
/// that word (see [`Word`]); an option's value (`kubectl -n help delete ns
/// x`, `aws s3 rm --profile help`) is none.
fn help_word_at(program: &str, args: &[String]) -> Option<usize> {
    let name = program.to_ascii_lowercase();
    let (_, word) = WORDS
        .iter()
        .find(|(programs, _)| programs.contains(&name.as_str()))?;
    let after_option = |i: usize| {
        i.checked_sub(1)
            .and_then(|p| args.get(p))
            .is_some_and(|p| p.len() > 1 && p.starts_with('-') && !p.contains('='))
    };
    let at = match word {
        Word::First => args
            .iter()
            .enumerate()
            .take_while(|(_, a)| *a != "--")
            .find(|(i, a)| !a.starts_with('-') && !after_option(*i))
            .map(|(i, _)| i)?,
        Word::Last => {
            let last = args.len().checked_sub(1)?;
            if args[..last].iter().any(|a| a == "--") {
                return None;
            }
            last
        }
    };
    (args.get(at).is_some_and(|a| a == "help") && !after_option(at)).then_some(at)
}

/// The help options `program` honours and where it reads them.
fn honoured(program: &str) -> Option<(&'static [&'static str], Reads)> {
    let name = program.to_ascii_lowercase();
    TABLE
        .iter()
        .find(|(programs, _, _)| programs.contains(&name.as_str()))
        .map(|(_, spellings, reads)| (*spellings, *reads))
}

/// The index of a help option `program` honours in `args`, when the command
/// is a request for help (see the module's rules), else `None`.
fn help_at(program: &str, args: &[String]) -> Option<usize> {
    let (spellings, reads) = honoured(program)?;
    let mut seen_operand = false;
    for (i, a) in args.iter().enumerate() {
        if a == "--" {
            return None;
        }
        if spellings.contains(&a.as_str()) {
            let after_option = i
                .checked_sub(1)
                .and_then(|p| args.get(p))
                .is_some_and(|p| p.len() > 1 && p.starts_with('-') && !p.contains('='));
            if after_option || (reads == Reads::BeforeOperands && seen_operand) {
                // A value of the option before it, or an operand: the
                // program runs. A later help option may still count.
                continue;
            }
            return Some(i);
        }
        if !a.starts_with('-') || a == "-" {
            seen_operand = true;
        }
    }
    None
}

/// The words kept before the help option: git's own options (`-C DIR`, `-c
/// K=V`: `git help` still reads its configuration, and a `man.*.cmd` there
/// runs); none for the other programs.
fn leading_options(program: &str, args: &[String]) -> usize {
    if !program.eq_ignore_ascii_case("git") {
        return 0;
    }
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--exec-path"
            | "--config-env" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => break,
        }
    }
    i.min(args.len())
}

/// When `args` ask `program` for its help, keep what runs: the help option
/// (`terraform destroy -help` is `terraform -help`), after git's own
/// options. `values` is kept in step with `args`.
pub(super) fn help_request<T: Clone>(program: &str, args: &mut Vec<String>, values: &mut Vec<T>) {
    let Some(at) = help_at(program, args).or_else(|| help_word_at(program, args)) else {
        return;
    };
    let lead = leading_options(program, args).min(at);
    let keep: Vec<usize> = (0..lead).chain(std::iter::once(at)).collect();
    if values.len() == args.len() {
        *values = keep
            .iter()
            .filter_map(|i| values.get(*i).cloned())
            .collect();
    }
    *args = keep.iter().filter_map(|i| args.get(*i).cloned()).collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(program: &str, line: &str) -> String {
        let mut args: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let mut values = args.clone();
        help_request(program, &mut args, &mut values);
        assert_eq!(args, values, "values stay in step with the words");
        args.join(" ")
    }

    #[test]
    fn a_help_option_is_what_runs() {
        let cases = [
            ("terraform", "destroy -help", "-help"),
            ("terraform", "-chdir=infra destroy --help", "--help"),
            ("terraform", "destroy -h", "-h"),
            ("kubectl", "delete ns prod --help", "--help"),
            ("kubectl", "--context prod delete ns x -h", "-h"),
            ("helm", "uninstall web --help", "--help"),
            (
                "git",
                "-c core.pager=less push origin main --help",
                "-c core.pager=less --help",
            ),
            ("rm", "--help -rf /", "--help"),
            ("pulumi", "destroy --yes --stack=prod --help", "--help"),
            // a help word where the program's syntax makes it one
            ("aws", "ec2 terminate-instances help", "help"),
            (
                "aws",
                "ec2 terminate-instances --instance-ids i-1 help",
                "help",
            ),
            ("gcloud", "help compute instances delete", "help"),
            ("gcloud", "--project=p help sql instances delete", "help"),
            ("kubectl", "help delete", "help"),
            ("heroku", "help apps:destroy", "help"),
        ];
        for (program, line, want) in cases {
            assert_eq!(after(program, line), want, "{program} {line}");
        }
    }

    #[test]
    fn a_help_word_that_is_a_value_or_an_operand_changes_nothing() {
        let cases = [
            // an option's value, or an option that may take one (`git push
            // --force --help` stays judged as a push: which of an unknown
            // program's options take values is not known here)
            ("kubectl", "delete ns prod -n --help"),
            ("git", "push --force --help"),
            ("rm", "-rf --help"),
            ("terraform", "destroy -var-file --help"),
            // after `--`
            ("kubectl", "delete ns prod -- --help"),
            ("rm", "-rf -- --help"),
            // after an operand, for a program that reads options first
            ("rm", "-rf / --help"),
            ("cp", "/dev/null .git/index --help"),
            // a spelling the program does not honour
            ("docker", "run -h box img rm -rf /"),
            ("git", "grep -h pattern"),
            ("rm", "-rf / -h"),
            // a program not in the table
            ("python3", "manage.py flush --help"),
            ("npx", "cdk destroy --help"),
            // the word `help` where it is a name: an option's value, an
            // operand elsewhere, after `--`
            ("kubectl", "-n help delete ns x"),
            ("kubectl", "delete ns help"),
            ("aws", "ec2 terminate-instances --instance-ids help"),
            ("aws", "s3 rm s3://b/help --recursive"),
            ("aws", "ssm send-command -- help"),
            ("gcloud", "compute instances delete help"),
            ("az", "vm delete help"),
        ];
        for (program, line) in cases {
            assert_eq!(after(program, line), line, "{program} {line}");
        }
    }
}
