//! Layered policies: user, project and local layers combine in order; a later
//! layer replaces rules by id, changes single fields with `[[override]]` (by id,
//! id glob or tag), and `extends` cycles are reported. Real files in temp dirs.

use std::collections::BTreeMap;
use std::path::PathBuf;

use hookrules::cli::check;
use hookrules::contract::hosts::Hint;
use hookrules::engine::run::in_process;
use hookrules::os::clock::Now;
use hookrules::policy::discover::Discovery;

struct Project {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    user: PathBuf,
    /// The user's state folder: their key and the policies they trusted.
    state: PathBuf,
}

/// A project whose policies the user has trusted as written (these tests are
/// about how layers combine; `tests/process/trust.rs` is about trust).
fn project(files: &[(&str, &str)]) -> Project {
    let p = untrusted_project(files);
    let mut store = hookrules::policy::trust::Store::open(&p.state);
    let dir = p.project.join(".claude/hookrules");
    for f in std::fs::read_dir(&dir).unwrap() {
        let f = f.unwrap().path();
        let text = std::fs::read_to_string(&f).unwrap();
        store.trust(&p.project, &f, &text, "test").unwrap();
    }
    p
}

fn untrusted_project(files: &[(&str, &str)]) -> Project {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("proj");
    let user = tmp.path().join("home/.config/hookrules");
    std::fs::create_dir_all(project.join(".claude/hookrules")).unwrap();
    std::fs::create_dir_all(&user).unwrap();
    for (rel, text) in files {
        let p = if let Some(u) = rel.strip_prefix("user:") {
            user.join(u)
        } else {
            project.join(rel)
        };
        std::fs::write(p, text).unwrap();
    }
    let state = tmp.path().join("state/hookrules");
    Project {
        _tmp: tmp,
        project,
        user,
        state,
    }
}

fn discovery(p: &Project) -> Discovery {
    Discovery {
        project_dir: Some(p.project.clone()),
        user_dir: Some(p.user.clone()),
        state_home: Some(p.state.clone()),
        ..Discovery::default()
    }
}

/// (decision, determining rules, reason) for a Bash command.
fn bash(p: &Project, command: &str) -> (String, Vec<String>, String) {
    let ev = serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "cwd": p.project});
    let mut env = BTreeMap::new();
    env.insert("HOME".to_string(), "/home/dev".to_string());
    // No cache: nothing is written into a home that is not this test's.
    env.insert("HOOKRULES_CACHE".to_string(), "off".to_string());
    let (_, d) = in_process(
        &discovery(p),
        &mut ev.to_string().as_bytes(),
        &env.clone().into(),
        Now::at(1_763_700_000),
        Hint::default(),
    );
    let d = d.expect("evaluated");
    (
        d.kind
            .map(|k| k.as_str().to_string())
            .unwrap_or_else(|| "none".into()),
        d.determined_by,
        d.reason.unwrap_or_default(),
    )
}

const TEAM: &str = r#"
[policy]
name = "team"
extends = ["builtin:destructive"]

[[rule]]
id = "no-npm-publish"
tags = ["release"]
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "deny"
reason = "team: publishing happens in CI"
"#;

#[test]
fn project_policy_extends_the_builtin_pack() {
    let p = project(&[(".claude/hookrules/team.toml", TEAM)]);
    assert_eq!(bash(&p, "rm -rf /").0, "deny");
    assert_eq!(bash(&p, "npm publish").1, vec!["no-npm-publish"]);
    assert_eq!(bash(&p, "ls").0, "none");
}

#[test]
fn a_later_layer_replaces_a_rule_by_id() {
    let local = r#"
[[rule]]
id = "no-npm-publish"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "ask"
reason = "mine: ask me first"
"#;
    let p = project(&[
        (".claude/hookrules/team.toml", TEAM),
        (".claude/hookrules/me.local.toml", local),
    ]);
    let (d, by, reason) = bash(&p, "npm publish");
    assert_eq!(
        (d.as_str(), by, reason.as_str()),
        (
            "ask",
            vec!["no-npm-publish".to_string()],
            "mine: ask me first"
        )
    );
}

#[test]
fn overrides_change_single_fields_by_id_glob_and_tag() {
    let local = r#"
[[override]]
rule = "git-discard-work"
decision = "ask"

[[override]]
rule = "git-force-*"
enabled = false

[[override]]
tag = "release"
enabled = false
"#;
    let p = project(&[
        (".claude/hookrules/team.toml", TEAM),
        (".claude/hookrules/me.local.toml", local),
    ]);
    assert_eq!(
        bash(&p, "git reset --hard").0,
        "ask",
        "decision changed by id"
    );
    assert_eq!(
        bash(&p, "git push --force origin main").0,
        "none",
        "disabled by glob"
    );
    assert_eq!(bash(&p, "npm publish").0, "none", "disabled by tag");
    assert_eq!(bash(&p, "rm -rf /").0, "deny", "everything else untouched");
}

#[test]
fn layers_apply_in_order_user_then_project_then_local() {
    // The user layer cannot override the project (it loads first); local can.
    let user = "[[override]]\nrule = \"no-npm-publish\"\nenabled = false\n";
    let p = project(&[
        ("user:mine.toml", user),
        (".claude/hookrules/team.toml", TEAM),
    ]);
    assert_eq!(bash(&p, "npm publish").0, "deny");
    let report = check::collect(&discovery(&p));
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code == hookrules::diagnostics::Code::OverrideUnmatched),
        "an override of a later layer matches nothing and says so"
    );
    let local = "[[override]]\nrule = \"no-npm-publish\"\nenabled = false\n";
    let p = project(&[
        ("user:mine.toml", user),
        (".claude/hookrules/team.toml", TEAM),
        (".claude/hookrules/x.local.toml", local),
    ]);
    assert_eq!(bash(&p, "npm publish").0, "none");
}

#[test]
fn check_shows_where_each_rule_came_from() {
    let local = "[[override]]\nrule = \"git-discard-work\"\ndecision = \"ask\"\n";
    let p = project(&[
        (".claude/hookrules/team.toml", TEAM),
        (".claude/hookrules/me.local.toml", local),
    ]);
    let report = check::collect(&discovery(&p));
    let row = report
        .rules
        .iter()
        .find(|r| r.id == "git-discard-work")
        .unwrap();
    assert_eq!(row.layer, "builtin");
    assert_eq!(row.decision, Some("ask"));
    assert!(
        row.notes[0].contains("me.local.toml (local)"),
        "{:?}",
        row.notes
    );
    let row = report
        .rules
        .iter()
        .find(|r| r.id == "no-npm-publish")
        .unwrap();
    assert_eq!(row.layer, "project");
    assert!(row.location.ends_with("team.toml:7"), "{}", row.location);
}

#[test]
fn extends_cycles_are_reported_and_fail_closed() {
    let a = "[policy]\nextends = [\"b.toml\"]\n";
    let b = "[policy]\nextends = [\"a.toml\"]\n";
    let p = project(&[
        (".claude/hookrules/a.toml", a),
        (".claude/hookrules/b.toml", b),
    ]);
    let report = check::collect(&discovery(&p));
    let cycle: Vec<_> = report
        .diagnostics
        .iter()
        .filter(|d| d.code == hookrules::diagnostics::Code::ExtendsCycle)
        .collect();
    assert!(!cycle.is_empty());
    assert!(
        cycle[0].message.contains("a.toml -> ") && cycle[0].message.contains("b.toml"),
        "{}",
        cycle[0].message
    );
    // A broken policy is fail-closed by default: the event is blocked, with the reason.
    let (d, _, reason) = bash(&p, "ls");
    assert_eq!(d, "deny");
    assert!(reason.contains("extends cycle"), "{reason}");
}

#[test]
fn with_no_policy_anywhere_the_builtin_pack_applies() {
    let p = project(&[]);
    assert_eq!(bash(&p, "rm -rf ~").0, "deny");
}

#[test]
fn an_empty_or_personal_policy_file_keeps_the_builtin_pack_on() {
    // Issue 13 item 3: `touch ~/.config/hookrules/a.toml` used to switch every
    // protection off, silently; so did one personal rule without `extends`.
    let mine = r#"
[[rule]]
id = "no-npm-publish"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "deny"
reason = "mine"
"#;
    for files in [
        vec![("user:a.toml", "")],
        vec![(".claude/hookrules/a.toml", "")],
        vec![("user:mine.toml", mine)],
        vec![(".claude/hookrules/mine.local.toml", mine)],
    ] {
        let p = project(&files);
        assert_eq!(bash(&p, "rm -rf /").0, "deny", "{files:?}");
        assert_eq!(bash(&p, "cat .env").0, "deny", "{files:?}");
        let report = check::collect(&discovery(&p));
        assert!(
            report.diagnostics.is_empty(),
            "{files:?}: {:?}",
            report.diagnostics
        );
    }
    let p = project(&[("user:mine.toml", mine)]);
    assert_eq!(bash(&p, "npm publish").1, vec!["no-npm-publish"]);
}

#[test]
fn builtin_false_turns_the_pack_off_visibly() {
    let off = "[policy]\nbuiltin = false\n";
    let p = project(&[(".claude/hookrules/off.toml", off)]);
    assert_eq!(bash(&p, "rm -rf /").0, "none");
    let report = check::collect(&discovery(&p));
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.code()).collect();
    // HR116: a project policy's loosening, listed even once trusted.
    assert_eq!(
        codes,
        ["HR116", "HR111", "HR112"],
        "{:?}",
        report.diagnostics
    );
    assert!(report.diagnostics[0].message.contains("trusted"));
    assert!(report.diagnostics[2].message.contains("off.toml"));
    // Off, but one part taken back by name: no HR112.
    let some = "[policy]\nbuiltin = false\nextends = [\"builtin:destructive\"]\n";
    let p = project(&[(".claude/hookrules/some.toml", some)]);
    assert_eq!(bash(&p, "rm -rf /").0, "deny");
    assert_eq!(bash(&p, "cat .env").0, "none");
    let report = check::collect(&discovery(&p));
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.code()).collect();
    assert_eq!(codes, ["HR116", "HR111"], "{:?}", report.diagnostics);
}

#[test]
fn parts_of_the_pack_are_turned_off_by_id_or_tag_and_check_warns() {
    let tag_off = "[[override]]\ntag = \"destructive\"\nenabled = false\n";
    let p = project(&[("user:off.toml", tag_off)]);
    // The destructive rules are off; what is left is self-protection, since
    // `rm -rf /` also removes hookrules' own policies (the user folder here).
    let (decision, rules, _) = bash(&p, "rm -rf /");
    assert_eq!(
        (decision.as_str(), rules),
        ("ask", vec!["self-config-shell".to_string()])
    );
    assert_eq!(bash(&p, "cat .env").0, "deny", "other parts stay on");
    let report = check::collect(&discovery(&p));
    assert!(
        report
            .diagnostics
            .iter()
            .any(|d| d.code.code() == "HR112" && d.message.contains("rm -rf /")),
        "{:?}",
        report.diagnostics
    );
    // Replacing the rule by id with one that only asks is still protection.
    let ask = r#"
[[rule]]
id = "delete-root-or-system"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["rm"], flags_all = [["-r", "-R", "--recursive"]] } }
decision = "ask"
reason = "ask me"
"#;
    let p = project(&[(".claude/hookrules/ask.toml", ask)]);
    assert_eq!(bash(&p, "rm -rf /").0, "ask");
    let report = check::collect(&discovery(&p));
    let codes: Vec<&str> = report.diagnostics.iter().map(|d| d.code.code()).collect();
    assert_eq!(
        codes,
        ["HR116"],
        "only the (trusted) replacement: {:?}",
        report.diagnostics
    );
}

#[test]
fn copying_an_example_into_the_project_keeps_the_pack_on() {
    // Issue 13 item 3 / issue 14 item 7: every example copied into
    // .claude/hookrules/ adds to the pack.
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut n = 0;
    for e in std::fs::read_dir(&examples).unwrap() {
        let dir = e.unwrap().path().join("policies");
        if !dir.is_dir() {
            continue;
        }
        let mut files = vec![];
        for f in std::fs::read_dir(&dir).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|x| x == "toml") {
                let name = format!(
                    ".claude/hookrules/{}",
                    f.file_name().unwrap().to_string_lossy()
                );
                files.push((name, std::fs::read_to_string(&f).unwrap()));
            }
        }
        let refs: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        let p = project(&refs);
        assert_eq!(bash(&p, "rm -rf /").0, "deny", "{}", dir.display());
        n += 1;
    }
    assert!(n >= 5, "{n} examples");
}
