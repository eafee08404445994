//! Programs that run a command somewhere else: in a container, a pod, a
//! virtual machine, another machine (`kubectl exec POD -- CMD`, `docker exec
//! C CMD`, `vagrant ssh -c TEXT`, `aws ssm send-command --parameters
//! commands=TEXT`). The command they run is analysed as the command it is,
//! as `ssh HOST CMD` is: a delete of `/` there is as lost as one here, and a
//! secret printed there reaches the conversation.
//!
//! Which programs, and where each finds its command, is data ([`REMOTES`]):
//! one line per tool.

use super::wrappers::Action;

/// Where a runner's command is in its arguments.
#[derive(Clone, Copy)]
enum Inner {
    /// Words: after `--`, else after the options and `operands` operands
    /// (`docker exec [OPTS] CONTAINER CMD…`). `short_val`/`long_val`: the
    /// options that take a value.
    Words {
        operands: usize,
        short_val: &'static str,
        long_val: &'static [&'static str],
    },
    /// Words after `--` only (`kubectl debug … -- CMD`; without it the
    /// image's own command runs).
    AfterDashDash,
    /// Shell text, the value of one of these options (`-c TEXT`,
    /// `--command=TEXT`); every value up to the next option is a line
    /// (`az vm run-command invoke --scripts L1 L2`).
    Script(&'static [&'static str]),
    /// aws ssm's `--parameters commands=TEXT` (`commands=["L1","L2"]`,
    /// `{"commands":["L1"]}`): the lines of a shell script.
    SsmParameters,
}

/// A runner: its programs, the subcommand words that select the form (in
/// order, anywhere before the command), and where the command is.
struct Remote {
    programs: &'static [&'static str],
    sub: &'static [&'static str],
    inner: Inner,
}

/// Options of container `exec` commands that take a value.
const EXEC_SHORT: &str = "euw";
const EXEC_LONG: &[&str] = &[
    "env",
    "user",
    "workdir",
    "env-file",
    "detach-keys",
    "index",
    "preserve-fds",
];

/// The runners, one line per tool.
const REMOTES: &[Remote] = &[
    Remote {
        programs: &["docker", "podman", "nerdctl"],
        sub: &["exec"],
        inner: Inner::Words {
            operands: 1,
            short_val: EXEC_SHORT,
            long_val: EXEC_LONG,
        },
    },
    Remote {
        programs: &["docker", "podman"],
        sub: &["compose", "exec"],
        inner: Inner::Words {
            operands: 1,
            short_val: EXEC_SHORT,
            long_val: EXEC_LONG,
        },
    },
    Remote {
        programs: &["docker-compose", "podman-compose"],
        sub: &["exec"],
        inner: Inner::Words {
            operands: 1,
            short_val: EXEC_SHORT,
            long_val: EXEC_LONG,
        },
    },
    Remote {
        programs: &["kubectl", "oc"],
        sub: &["exec"],
        inner: Inner::Words {
            operands: 1,
            short_val: "cnf",
            long_val: &[
                "container",
                "namespace",
                "filename",
                "context",
                "cluster",
                "pod-running-timeout",
                "kubeconfig",
            ],
        },
    },
    Remote {
        programs: &["kubectl", "oc"],
        sub: &["debug"],
        inner: Inner::AfterDashDash,
    },
    Remote {
        programs: &["lxc", "incus"],
        sub: &["exec"],
        inner: Inner::Words {
            operands: 1,
            short_val: "",
            long_val: &["env", "user", "group", "cwd", "mode", "project"],
        },
    },
    Remote {
        programs: &["pct"],
        sub: &["exec"],
        inner: Inner::AfterDashDash,
    },
    Remote {
        programs: &["multipass"],
        sub: &["exec"],
        inner: Inner::Words {
            operands: 1,
            short_val: "d",
            long_val: &["working-directory"],
        },
    },
    Remote {
        programs: &["limactl"],
        sub: &["shell"],
        inner: Inner::Words {
            operands: 1,
            short_val: "",
            long_val: &["workdir", "shell"],
        },
    },
    Remote {
        programs: &["distrobox"],
        sub: &["enter"],
        inner: Inner::AfterDashDash,
    },
    Remote {
        programs: &["machinectl"],
        sub: &["shell"],
        inner: Inner::Words {
            operands: 1,
            short_val: "EMHp",
            long_val: &["uid", "setenv", "machine", "host"],
        },
    },
    Remote {
        programs: &["vagrant"],
        sub: &["ssh"],
        inner: Inner::Script(&["-c", "--command"]),
    },
    Remote {
        programs: &["gcloud"],
        sub: &["ssh"],
        inner: Inner::Script(&["--command"]),
    },
    // hosting platforms' consoles on an app's machine (`fly ssh console -C CMD`,
    // `heroku run -a app CMD`)
    Remote {
        programs: &["fly", "flyctl"],
        sub: &["ssh", "console"],
        inner: Inner::Script(&["-C", "--command"]),
    },
    Remote {
        programs: &["heroku"],
        sub: &["run"],
        inner: Inner::Words {
            operands: 0,
            short_val: "arse",
            long_val: &["app", "remote", "size", "env", "type"],
        },
    },
    Remote {
        programs: &["az"],
        sub: &["run-command"],
        inner: Inner::Script(&["--scripts", "--script"]),
    },
    Remote {
        programs: &["aws"],
        sub: &["ssm", "send-command"],
        inner: Inner::SsmParameters,
    },
];

/// Is `prog` (lowercase) one of the runners? (A cheap test before
/// [`classify`].)
fn known(prog: &str) -> bool {
    REMOTES.iter().any(|r| r.programs.contains(&prog))
}

/// What `prog args…` runs, if it is a runner in one of its forms.
pub(crate) fn classify(prog: &str, args: &[String]) -> Option<Action> {
    if !known(prog) {
        return None;
    }
    REMOTES
        .iter()
        .filter(|r| r.programs.contains(&prog))
        .find_map(|r| {
            let after = sub_end(args, r.sub)?;
            command(prog, r, args, after)
        })
}

/// The index after the subcommand words `sub`, found in order before any
/// `--` (`kubectl -n prod exec`, `gcloud compute ssh`).
fn sub_end(args: &[String], sub: &[&str]) -> Option<usize> {
    let mut at = 0;
    for want in sub {
        let k = args
            .get(at..)?
            .iter()
            .take_while(|a| *a != "--")
            .position(|a| a == want)?;
        at += k + 1;
    }
    Some(at)
}

/// The command of runner `r` whose subcommand ends at `after`.
fn command(prog: &str, r: &Remote, args: &[String], after: usize) -> Option<Action> {
    let label = format!("{prog} {} (remote command)", r.sub.join(" "));
    let dashdash = args
        .get(after..)?
        .iter()
        .position(|a| a == "--")
        .map(|k| after + k + 1);
    match r.inner {
        Inner::AfterDashDash => exec_at(args, dashdash?),
        Inner::Words {
            operands,
            short_val,
            long_val,
        } => {
            if let Some(k) = dashdash {
                return exec_at(args, k);
            }
            let mut i = after;
            let mut seen = 0;
            while let Some(a) = args.get(i) {
                if seen == operands && !a.starts_with('-') {
                    return exec_at(args, i);
                }
                i += 1;
                if let Some(long) = a.strip_prefix("--") {
                    if !long.contains('=') && long_val.contains(&long) {
                        i += 1;
                    }
                } else if let Some(short) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
                    // The last letter takes the next word as its value.
                    let last = short.chars().last().unwrap_or(' ');
                    let glued = short
                        .char_indices()
                        .any(|(k, c)| short_val.contains(c) && k + c.len_utf8() < short.len());
                    if short_val.contains(last) && !glued {
                        i += 1;
                    }
                } else {
                    seen += 1;
                }
            }
            None
        }
        Inner::Script(options) => {
            let mut lines: Vec<String> = Vec::new();
            let mut from = None;
            let mut i = after;
            while let Some(a) = args.get(i) {
                if a == "--" {
                    break;
                }
                if let Some((name, value)) = a.split_once('=').filter(|(n, _)| options.contains(n))
                {
                    let _ = name;
                    from.get_or_insert(i);
                    lines.push(value.to_string());
                } else if options.contains(&a.as_str()) {
                    from.get_or_insert(i + 1);
                    let mut k = i + 1;
                    while let Some(v) = args.get(k).filter(|v| !v.starts_with('-') || k == i + 1) {
                        lines.push(v.clone());
                        k += 1;
                    }
                    i = k;
                    continue;
                }
                i += 1;
            }
            let from = from?;
            Some(Action::Script {
                text: lines.join("\n"),
                label,
                from: from..args.len(),
                positional: None,
            })
        }
        Inner::SsmParameters => {
            let (at, value) = args.iter().enumerate().skip(after).find_map(|(k, a)| {
                if let Some(v) = a.strip_prefix("--parameters=") {
                    Some((k, v.to_string()))
                } else if a == "--parameters" {
                    args.get(k + 1).map(|v| (k + 1, v.clone()))
                } else {
                    None
                }
            })?;
            let lines = ssm_commands(&value)?;
            Some(Action::Script {
                text: lines.join("\n"),
                label,
                from: at..at + 1,
                positional: None,
            })
        }
    }
}

fn exec_at(args: &[String], skip: usize) -> Option<Action> {
    (skip < args.len()).then_some(Action::Exec {
        skip,
        assigns: Vec::new(),
    })
}

/// The lines of `commands` in aws ssm's parameters: JSON
/// (`{"commands":["L1","L2"]}`) or the shorthand `commands=L1` /
/// `commands=["L1","L2"]`. Parameters that hold no `commands` are `None`.
fn ssm_commands(value: &str) -> Option<Vec<String>> {
    let v = value.trim();
    if v.starts_with('{') {
        let json: serde_json::Value = serde_json::from_str(v).ok()?;
        return strings(json.get("commands")?);
    }
    let rest = v.strip_prefix("commands=")?;
    if rest.trim_start().starts_with('[') {
        if let Ok(json) = serde_json::from_str::<serde_json::Value>(rest) {
            return strings(&json);
        }
    }
    Some(vec![rest.to_string()])
}

/// A JSON string or array of strings, as lines.
fn strings(v: &serde_json::Value) -> Option<Vec<String>> {
    match v {
        serde_json::Value::String(s) => Some(vec![s.clone()]),
        serde_json::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the runner runs: `exec WORDS` or `script TEXT`.
    fn runs(line: &str) -> Option<String> {
        let words: Vec<String> = line.split(' ').map(str::to_string).collect();
        let (prog, args) = words.split_first()?;
        Some(match classify(prog, args)? {
            Action::Exec { skip, .. } => format!("exec {}", args[skip..].join(" ")),
            Action::Script { text, .. } => format!("script {text}"),
            _ => "other".into(),
        })
    }

    /// (command line, what it runs); words split at spaces.
    const CASES: &[(&str, Option<&str>)] = &[
        (
            "docker exec -it -u root web rm -rf /",
            Some("exec rm -rf /"),
        ),
        ("docker --context x exec web ls", Some("exec ls")),
        (
            "podman exec -e A=1 --workdir /app db cat x",
            Some("exec cat x"),
        ),
        ("docker compose exec -T api sh", Some("exec sh")),
        (
            "kubectl exec -n prod web-0 -c app -- rm -rf /",
            Some("exec rm -rf /"),
        ),
        ("kubectl -n prod exec web-0 ls", Some("exec ls")),
        ("oc exec pod -- ps", Some("exec ps")),
        (
            "kubectl debug node/n1 -it --image=busybox -- rm -rf /host",
            Some("exec rm -rf /host"),
        ),
        ("kubectl debug node/n1 -it --image=busybox", None),
        ("lxc exec c1 -- apt update", Some("exec apt update")),
        ("incus exec c1 --cwd /root bash", Some("exec bash")),
        (
            "machinectl shell root@c1 /bin/rm -rf /",
            Some("exec /bin/rm -rf /"),
        ),
        ("machinectl shell", None),
        ("vagrant ssh -c uptime", Some("script uptime")),
        ("fly ssh console -a web -C uptime", Some("script uptime")),
        ("heroku run -a web printenv X", Some("exec printenv X")),
        (
            "heroku run -s standard-2x -- rails db:migrate",
            Some("exec rails db:migrate"),
        ),
        ("heroku ps -a web", None),
        ("vagrant ssh web --command=uptime", Some("script uptime")),
        (
            "gcloud compute ssh vm1 --zone z --command=df",
            Some("script df"),
        ),
        (
            "az vm run-command invoke -g rg --scripts ls pwd --command-id RunShellScript",
            Some("script ls\npwd"),
        ),
        (
            "aws ssm send-command --parameters commands=uptime",
            Some("script uptime"),
        ),
        (
            "aws ssm send-command --parameters {\"commands\":[\"ls\",\"pwd\"]}",
            Some("script ls\npwd"),
        ),
        (
            "aws ssm send-command --parameters commands=[\"ls\",\"pwd\"]",
            Some("script ls\npwd"),
        ),
        ("aws ssm list-commands", None),
        ("kubectl get pods", None),
        ("docker ps", None),
        ("gcloud compute instances list", None),
    ];

    #[test]
    fn runners_run_their_inner_command() {
        for (line, want) in CASES {
            assert_eq!(runs(line).as_deref(), *want, "{line}");
        }
    }
}
