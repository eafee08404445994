//! The authoring tools as a user meets them, through the real binary: `run`
//! from a subfolder finds the project's policies, template errors at run time
//! name the policy file and line, `explain` reads stdin and narrows to one rule,
//! `test` accepts a byte-order mark, prints failures readably and writes new
//! fixtures, `init` keeps personal policies out of git, colours only on request
//! or a terminal.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hookrules"))
}

/// A project folder with a `.git` and a policy, and a home beside it.
struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
    home: PathBuf,
}

impl Project {
    fn new(policy: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let root = base.join("shop");
        let home = base.join("home");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("web/src")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        if !policy.is_empty() {
            std::fs::create_dir_all(root.join(".claude/hookrules")).unwrap();
            std::fs::write(root.join(".claude/hookrules/team.toml"), policy).unwrap();
        }
        Project {
            _dir: dir,
            root,
            home,
        }
    }

    fn cmd(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut c = Command::new(bin());
        c.args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("HOOKRULES_CACHE", "off");
        c
    }

    fn run(&self, cwd: &Path, args: &[&str], stdin: &str) -> Output {
        crate::support::feed_bytes(&mut self.cmd(cwd, args), stdin.as_bytes())
    }
}

fn text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

const ASK_PUBLISH: &str = r#"
[[rule]]
id = "release-asks"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "ask"
reason = "publishing is the user's decision"
"#;

fn bash(cwd: &Path, command: &str) -> String {
    serde_json::json!({
        "session_id": "s", "transcript_path": "/t", "cwd": cwd.display().to_string(),
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": { "command": command }, "tool_use_id": "t"
    })
    .to_string()
}

#[test]
fn run_from_a_subfolder_without_claude_project_dir_finds_the_projects_policies() {
    let p = Project::new(ASK_PUBLISH);
    let sub = p.root.join("web/src");
    let out = p.run(&sub, &["run"], &bash(&sub, "npm publish"));
    assert!(
        text(&out).contains(r#""permissionDecision":"ask""#),
        "{}",
        text(&out)
    );
    // Without .claude/hookrules, the repository root is the project: no project
    // policy, so the built-in pack alone (npm publish passes).
    let bare = Project::new("");
    let sub = bare.root.join("web/src");
    let out = bare.run(&sub, &["run"], &bash(&sub, "npm publish"));
    assert!(out.stdout.is_empty(), "{}", text(&out));
    // `check` from the subfolder names the file as the user would reach it.
    let out = p.run(&p.root.join("web/src"), &["check", "--rules"], "");
    assert!(
        text(&out).contains("../../.claude/hookrules/team.toml"),
        "{}",
        text(&out)
    );
}

/// A rule whose reason template fails when rendered (an invalid regex), on
/// line 9 of the policy file.
const BROKEN_TEMPLATE_POLICY: &str = r#"
[[rule]]
id = "broken-reason"
events = ["PreToolUse"]
matcher = "Bash"
decision = "deny"
reason = """
Denied.
{{ regex_match(event.tool_input.command, '(') }}"""
"#;

#[test]
fn a_template_error_at_run_time_names_the_policy_file_and_line() {
    let policy = BROKEN_TEMPLATE_POLICY;
    let p = Project::new(policy);
    let out = p.run(&p.root, &["run"], &bash(&p.root, "ls"));
    let t = text(&out);
    assert!(
        t.contains(".claude/hookrules/team.toml:9:1: template error"),
        "{t}"
    );
    assert!(!t.contains("@"), "an internal template name leaked: {t}");
}

#[test]
fn explain_reads_stdin_and_shows_one_rule() {
    let p = Project::new(ASK_PUBLISH);
    let out = p.run(&p.root, &["explain", "-"], &bash(&p.root, "npm publish"));
    let t = text(&out);
    assert!(
        t.contains("decision  ask") && t.contains("matched   release-asks"),
        "{t}"
    );
    assert!(t.contains("others "), "{t}");
    let out = p.run(
        &p.root,
        &["explain", "-", "--rule", "delete-root-or-system"],
        &bash(&p.root, "rm -rf node_modules"),
    );
    let t = text(&out);
    assert!(
        t.contains("rule delete-root-or-system (policy destructive"),
        "{t}"
    );
    assert!(t.contains("(program ✓, target_glob ✗)"), "{t}");
    assert!(!t.contains("release-asks"), "another rule shown: {t}");
    let out = p.run(
        &p.root,
        &["explain", "-", "--rule", "release-ask"],
        &bash(&p.root, "ls"),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("did you mean `release-asks`?"),
        "{}",
        text(&out)
    );
}

#[test]
fn test_new_records_todays_decision_and_the_fixture_passes() {
    let p = Project::new(ASK_PUBLISH);
    std::fs::write(
        p.root.join("ev.json"),
        bash(&p.root, "cd web && npm publish"),
    )
    .unwrap();
    let out = p.run(
        &p.root,
        &["test", "--new", "ev.json", "-o", "fixtures/publish.json"],
        "",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("expects `ask`, determined by release-asks"),
        "{}",
        text(&out)
    );
    let fixture = std::fs::read_to_string(p.root.join("fixtures/publish.json")).unwrap();
    assert!(fixture.contains(r#""cwd": "$PROJECT_DIR""#), "{fixture}");
    assert!(
        !fixture.contains(&p.root.display().to_string()),
        "{fixture}"
    );
    // Never over an existing file.
    let again = p.run(
        &p.root,
        &["test", "--new", "ev.json", "-o", "fixtures/publish.json"],
        "",
    );
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(p.root.join("fixtures/publish.json")).unwrap(),
        fixture
    );
    let out = p.run(&p.root, &["test", "fixtures"], "");
    assert!(text(&out).contains("1 passed, 0 failed"), "{}", text(&out));
    // From stdin, printed.
    let out = p.run(&p.root, &["test", "--new", "-"], &bash(&p.root, "ls"));
    assert!(String::from_utf8_lossy(&out.stdout).contains(r#""decision": "none""#));
}

#[test]
fn test_accepts_a_byte_order_mark_and_prints_failures_readably() {
    let p = Project::new(ASK_PUBLISH);
    let fixtures = p.root.join("fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    let fixture = serde_json::json!({
        "event": serde_json::from_str::<serde_json::Value>(&bash(Path::new("$PROJECT_DIR"), "npm publish")).unwrap(),
        "files": { "vm.txt": "vm\n" },
        "expect": { "decision": "deny", "rules": ["release-asks"], "files": { "vm.txt": "vm" } }
    });
    let mut bytes = "\u{feff}".as_bytes().to_vec();
    bytes.extend(fixture.to_string().as_bytes());
    std::fs::write(fixtures.join("bom.json"), bytes).unwrap();
    let out = p.run(&p.root, &["test", "fixtures"], "");
    let t = text(&out);
    assert!(
        !t.contains("expected value at line 1"),
        "the BOM was not accepted: {t}"
    );
    assert!(t.contains("decision: expected `deny`, got `ask`"), "{t}");
    assert!(
        t.contains(r#"file vm.txt: expected "vm", but it holds "vm\n""#),
        "{t}"
    );
    assert!(!t.contains("Some("), "{t}");
    // The built-in pack's rules are not listed as uncovered unless asked.
    assert!(!t.contains("delete-root-or-system"), "{t}");
    let all = p.run(&p.root, &["test", "fixtures", "--coverage", "all"], "");
    assert!(
        text(&all).contains("rule `delete-root-or-system`"),
        "{}",
        text(&all)
    );
}

#[test]
fn init_keeps_personal_policies_out_of_git() {
    let p = Project::new("");
    let out = p
        .cmd(&p.root, &["init", "--client-version", "2.1.330"])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let ignore = p.root.join(".claude/hookrules/.gitignore");
    let content = std::fs::read_to_string(&ignore).unwrap();
    assert!(content.lines().any(|l| l == "*.local.toml"), "{content}");
    // A second init adds nothing; an existing file without the line gets it appended.
    p.cmd(&p.root, &["init", "--client-version", "2.1.330"])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .output()
        .unwrap();
    assert_eq!(std::fs::read_to_string(&ignore).unwrap(), content);
    std::fs::write(&ignore, "notes/").unwrap();
    p.cmd(&p.root, &["init", "--client-version", "2.1.330"])
        .env("CLAUDE_PROJECT_DIR", &p.root)
        .output()
        .unwrap();
    assert_eq!(
        std::fs::read_to_string(&ignore).unwrap(),
        "notes/\n*.local.toml\n"
    );
}

#[test]
fn colours_only_when_asked_or_on_a_terminal() {
    let p = Project::new("[[rule]]\nid = \"x\"\nevents = [\"Stopp\"]\n");
    let piped = p.cmd(&p.root, &["check"]).output().unwrap();
    assert!(!text(&piped).contains('\x1b'), "colours in a pipe");
    let forced = p
        .cmd(&p.root, &["check"])
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert!(
        text(&forced).contains("\x1b["),
        "CLICOLOR_FORCE=1 gives colours"
    );
    let no = p
        .cmd(&p.root, &["check"])
        .env("CLICOLOR_FORCE", "1")
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!text(&no).contains('\x1b'), "NO_COLOR wins");
    // `run` answers the client: never coloured.
    let run = p
        .cmd(&p.root, &["run"])
        .env("CLICOLOR_FORCE", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!text(&run).contains('\x1b'));
}

#[test]
fn explain_and_test_name_the_file_and_line_of_a_template_error_as_run_does() {
    let policy = BROKEN_TEMPLATE_POLICY;
    let p = Project::new(policy);
    let at = ".claude/hookrules/team.toml:9:1: template error";
    let out = p.run(&p.root, &["explain", "-"], &bash(&p.root, "ls"));
    let t = text(&out);
    assert!(t.contains(at), "{t}");
    assert!(
        t.contains("rule `broken-reason` matched but could not be rendered"),
        "{t}"
    );
    // A fixture that expected the call to go ahead fails, and says why.
    let fixtures = p.root.join("fixtures");
    std::fs::create_dir_all(&fixtures).unwrap();
    let fixture = serde_json::json!({
        "event": serde_json::from_str::<serde_json::Value>(&bash(Path::new("$PROJECT_DIR"), "ls")).unwrap(),
        "expect": { "decision": "allow" }
    });
    std::fs::write(fixtures.join("ls.json"), fixture.to_string()).unwrap();
    let out = p.run(&p.root, &["test", "fixtures"], "");
    let t = text(&out);
    assert!(t.contains("0 passed, 1 failed"), "{t}");
    assert!(
        t.contains("error: rule `broken-reason` matched but could not be rendered: ")
            && t.contains("team.toml:9:1: template error"),
        "{t}"
    );
}

/// A rule whose reason raises floats to powers.
const POWER_POLICY: &str = r#"
[[rule]]
id = "powers"
events = ["PreToolUse"]
matcher = "Bash"
decision = "deny"
reason = "root={{ 2.0 ** 0.5 }} neg={{ 2.0 ** -1.5 }} int={{ 3 ** 4 }}"
"#;

/// `**` on floats is the C library's `pow` to the last bit, in every build:
/// a dynamically linked glibc build defines `pow` itself so that libm.so.6 is
/// loaded only when a template needs it (src/main.rs); a static build links
/// the C library's own. 2 ** -1.5 rounds to 0.3535533905932738; musl's port
/// in the `libm` crate gives the double below it.
#[test]
fn a_power_of_floats_in_a_template_is_the_c_librarys() {
    let p = Project::new(POWER_POLICY);
    let out = p.run(&p.root, &["run"], &bash(&p.root, "ls"));
    let t = text(&out);
    assert!(
        t.contains("root=1.4142135623730951 neg=0.3535533905932738 int=81"),
        "{t}"
    );
}
