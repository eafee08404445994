//! Self-protection by where a write lands, whoever writes (issue 26 item 5):
//! the real `hookrules run` process with the built-in pack, in a temp home
//! with real folders and links, each host's own envelope, and hookrules'
//! places moved by the environment (`XDG_STATE_HOME`, `XDG_CONFIG_HOME`,
//! `HOOKRULES_CACHE_DIR`, `CLAUDE_PLUGIN_DATA`, `CODEX_HOME`) to folders a
//! fixed pattern would not know.
//!
//! The sandbox: `home/` is `$HOME`, `home/proj/` the project, the state in
//! `xstate/hookrules`, the user's policies in `xconfig/hookrules`, the cache in
//! `xcache`, the plugin's data in `plugdata`, Codex's folder in `xcodex`. The
//! project ships `cfg -> .claude` and `st -> ../../xstate/hookrules` (links a
//! repository can commit).

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

use crate::support::Sandbox;

const BIN: &str = env!("CARGO_BIN_EXE_hookrules");

fn sandbox() -> Sandbox {
    let sb = Sandbox::new(
        &[
            "home/proj/.claude/hookrules",
            "home/proj/.codex",
            "home/proj/.github/hooks",
            "home/proj/src",
            "home/.claude",
            "xstate/hookrules/allow",
            "xconfig/hookrules",
        ],
        &[
            ("home/proj/.claude/settings.json", "{\"hooks\":{}}"),
            ("home/proj/.codex/hooks.json", "{}"),
            ("home/proj/src/main.rs", "fn main() {}"),
            ("home/.claude/settings.json", "{}"),
            ("xcodex/hooks.json", "{}"),
            ("plugdata/hookrules-0.1.0.path", "/usr/local/bin/hookrules"),
        ],
        &[
            ("XDG_STATE_HOME", "xstate"),
            ("XDG_CONFIG_HOME", "xconfig"),
            ("HOOKRULES_CACHE_DIR", "xcache"),
            ("CLAUDE_PLUGIN_DATA", "plugdata"),
            ("CODEX_HOME", "xcodex"),
        ],
    );
    sb.link(".claude", "cfg");
    sb.link("../../xstate/hookrules", "st");
    sb
}

fn check(sb: &Sandbox, cases: &[(Value, &str, &str)]) {
    let mut wrong = vec![];
    for (event, want, why) in cases {
        let (got, text) = sb.run(event);
        if got != *want {
            wrong.push(format!(
                "{event}\n  want {want}, got {got} ({why})\n  {text}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn codex_patch(sb: &Sandbox, patch: &str) -> Value {
    json!({"hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"command":patch},
        "cwd":sb.project(),"session_id":"s","turn_id":"t1","model":"gpt-5-codex",
        "permission_mode":"default","tool_use_id":"call_1","transcript_path":null})
}

fn codex_bash(sb: &Sandbox, command: &str) -> Value {
    json!({"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":command},
        "cwd":sb.project(),"session_id":"s","turn_id":"t1","model":"gpt-5-codex",
        "permission_mode":"default","tool_use_id":"call_1","transcript_path":null})
}

fn gemini(sb: &Sandbox, tool: &str, path: &str) -> Value {
    json!({"hook_event_name":"BeforeTool","tool_name":tool,
        "tool_input":{"file_path":path,"content":"{}","old_string":"a","new_string":"b"},
        "cwd":sb.project(),"session_id":"s","timestamp":"2026-11-28T08:00:00.000Z"})
}

fn cursor(sb: &Sandbox, tool: &str, path: &str) -> Value {
    json!({"hook_event_name":"preToolUse","tool_name":tool,"tool_input":{"path":path,"contents":"{}"},
        "conversation_id":"c","generation_id":"g","workspace_roots":[sb.project()]})
}

fn copilot(sb: &Sandbox, tool: &str, args: &Value) -> Value {
    json!({"timestamp":1_764_000_000_000u64,"cwd":sb.project(),"toolName":tool,"toolArgs":args.to_string()})
}

fn vscode(sb: &Sandbox, path: &str) -> Value {
    json!({"hook_event_name":"PreToolUse","tool_name":"create_file",
        "tool_input":{"filePath":path,"content":"{}"},"tool_use_id":"t","sessionId":"s",
        "timestamp":"2026-11-28T08:00:00.000Z","cwd":sb.project()})
}

fn claude(sb: &Sandbox, tool: &str, input: &Value) -> Value {
    json!({"hook_event_name":"PreToolUse","tool_name":tool,"tool_input":input,
        "cwd":sb.project(),"session_id":"s"})
}

#[test]
fn every_host_asks_before_its_own_or_another_hosts_hook_file_is_written() {
    let sb = sandbox();
    let p = |rel: &str| sb.project().join(rel).to_string_lossy().into_owned();
    let cases = vec![
        (
            codex_patch(&sb, "*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n"),
            "ask",
            "Codex's apply_patch over its own project hooks",
        ),
        (
            codex_patch(&sb, "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n"),
            "ask",
            "Codex's apply_patch deleting them",
        ),
        (
            codex_patch(&sb, "*** Begin Patch\n*** Update File: src/main.rs\n@@\n-fn main() {}\n+fn main() { }\n*** Move to: .claude/settings.json\n*** End Patch\n"),
            "ask",
            "a patch that moves a file over Claude Code's settings",
        ),
        (codex_bash(&sb, "rm .codex/hooks.json"), "ask", "Codex's shell removing its hooks"),
        (
            codex_bash(&sb, &format!("echo '{{}}' > {}", sb.at("xcodex/hooks.json"))),
            "ask",
            "Codex's user hooks, in CODEX_HOME",
        ),
        (
            codex_bash(&sb, &format!("sed -i s/x/y/ {}", sb.at("xcodex/config.toml"))),
            "ask",
            "Codex's config, which trusts project hooks",
        ),
        (gemini(&sb, "write_file", &p(".gemini/settings.json")), "ask", "Gemini's write_file"),
        (gemini(&sb, "replace", &p(".gemini/settings.json")), "ask", "Gemini's replace"),
        (
            gemini(&sb, "write_file", &sb.at("home/.gemini/settings.json")),
            "ask",
            "Gemini's user settings",
        ),
        (cursor(&sb, "Write", &p(".cursor/hooks.json")), "ask", "Cursor's Write"),
        (
            cursor(&sb, "Write", &sb.at("home/.cursor/hooks.json")),
            "ask",
            "Cursor's user hooks",
        ),
        (
            copilot(&sb, "create", &json!({"path": p(".github/hooks/evil.json"), "file_text": "{}"})),
            "ask",
            "Copilot's create in .github/hooks",
        ),
        (
            copilot(&sb, "edit", &json!({"path": p(".github/hooks/hookrules.json"), "old_str": "a", "new_str": "b"})),
            "ask",
            "Copilot's edit of its hooks",
        ),
        (vscode(&sb, &p(".github/hooks/other.json")), "ask", "VS Code reads every .json there"),
        (
            claude(&sb, "Write", &json!({"file_path": sb.at("home/.claude/settings.local.json"), "content": "{}"})),
            "ask",
            "Claude Code's user local settings",
        ),
        (
            claude(&sb, "Edit", &json!({"file_path": p(".CLAUDE/Settings.json"), "old_string": "a", "new_string": "b"})),
            "ask",
            "letter case: the same file on macOS and Windows volumes",
        ),
        // Harmless look-alikes.
        (
            gemini(&sb, "write_file", &p(".gemini/styleguide.md")),
            "allow",
            "another Gemini file",
        ),
        (cursor(&sb, "Write", &p(".cursor/rules/a.mdc")), "allow", "Cursor rules"),
        (
            copilot(&sb, "create", &json!({"path": p(".github/workflows/ci.yml"), "file_text": "x"})),
            "allow",
            "a workflow",
        ),
        (
            codex_patch(&sb, "*** Begin Patch\n*** Add File: src/lib.rs\n+pub fn f() {}\n*** End Patch\n"),
            "allow",
            "an ordinary source file",
        ),
        (codex_bash(&sb, "cat .codex/hooks.json"), "allow", "reads"),
    ];
    check(&sb, &cases);
}

#[test]
fn an_mcp_servers_file_tools_are_judged_by_where_they_write() {
    let sb = sandbox();
    let p = |rel: &str| sb.project().join(rel).to_string_lossy().into_owned();
    let mcp = |tool: &str, input: Value| claude(&sb, tool, &input);
    let cases = vec![
        (
            mcp(
                "mcp__filesystem__write_file",
                json!({"path": p(".claude/hookrules/off.toml"), "content": "x"}),
            ),
            "ask",
            "the reference filesystem server's write_file",
        ),
        (
            mcp(
                "mcp__fs__edit_file",
                json!({"path": p(".codex/hooks.json"), "edits": []}),
            ),
            "ask",
            "edit_file",
        ),
        (
            mcp(
                "mcp__filesystem__move_file",
                json!({"source": "/tmp/x.json", "destination": p(".claude/settings.json")}),
            ),
            "ask",
            "move_file over the settings",
        ),
        (
            mcp(
                "mcp__filesystem__write_file",
                json!({"path": p("cfg/settings.local.json"), "content": "{}"}),
            ),
            "ask",
            "through the committed link cfg -> .claude",
        ),
        (
            mcp(
                "mcp__filesystem__write_file",
                json!({"path": sb.at("xstate/hookrules/allow/x.json"), "content": "{}"}),
            ),
            "deny",
            "an allowance, in the state folder XDG_STATE_HOME moved",
        ),
        (
            mcp(
                "mcp__filesystem__read_file",
                json!({"path": p(".claude/settings.json")}),
            ),
            "allow",
            "reads",
        ),
        (
            mcp(
                "mcp__filesystem__write_file",
                json!({"path": p("src/settings.json"), "content": "{}"}),
            ),
            "allow",
            "the app's settings",
        ),
    ];
    check(&sb, &cases);
}

#[test]
fn writes_land_where_links_and_the_environment_put_them() {
    let sb = sandbox();
    let exe = Path::new(BIN).canonicalize().unwrap();
    let exe = exe.to_string_lossy();
    let cmds: Vec<(String, &str, &str)> = vec![
        ("echo '{}' > cfg/settings.json".into(), "ask", "cfg -> .claude, committed"),
        ("cp /tmp/x.toml cfg/hookrules/".into(), "ask", "into the policies through the link"),
        ("echo '{}' > st/allow/grant.json".into(), "deny", "st -> the state folder"),
        ("rm -rf st/".into(), "deny", "empties the state through the link"),
        (
            format!("echo x > {}", sb.at("xstate/hookrules/trust/forged.json")),
            "deny",
            "a trust record where XDG_STATE_HOME puts the state",
        ),
        (
            format!("cp evil.toml {}", sb.at("xconfig/hookrules/")),
            "ask",
            "the user's policies where XDG_CONFIG_HOME puts them",
        ),
        (
            format!("rm -rf {}", sb.at("xcache")),
            "ask",
            "the compiled-set cache, HOOKRULES_CACHE_DIR",
        ),
        (
            format!("echo /bin/true > {}", sb.at("plugdata/hookrules-0.1.0.path")),
            "ask",
            "the plugin launcher's remembered binary, in CLAUDE_PLUGIN_DATA",
        ),
        (format!("chmod a-x {exe}"), "ask", "the hookrules binary itself"),
        (format!("cp /bin/true {exe}"), "deny", "replaced by another program: the guard switched off"),
        ("ln -s .claude c2 && tee c2/settings.json < /dev/null".into(), "ask", "a link made a moment before"),
        (
            "python3 -c \"import json; print(json.dumps(json.load(open('.claude/settings.json'))))\"".into(),
            "allow",
            "json.dumps prints; nothing is written",
        ),
        ("cat cfg/settings.json".into(), "allow", "reads through the link"),
        (format!("ls -la {}", sb.at("xstate/hookrules")), "allow", "lists the state"),
        (format!("{exe} --version > /tmp/v.txt"), "allow", "runs the binary"),
        ("echo x > src/notes.txt".into(), "allow", "an ordinary file"),
    ];
    let cases: Vec<(Value, &str, &str)> = cmds
        .iter()
        .map(|(c, want, why)| (sb.bash(c), *want, *why))
        .collect();
    check(&sb, &cases);
}

/// A pattern reaches a guarded place only where its names can be the
/// place's folders: with the home folder inside the temp folder (as in CI),
/// clearing other temp entries by a pattern runs, a pattern that can name
/// the sandbox still asks, and the reason names what it may change.
#[test]
fn a_pattern_reaches_a_guarded_place_only_where_its_names_can() {
    let sb = sandbox();
    let parent = sb.root.parent().unwrap().to_string_lossy().into_owned();
    let name = sb.root.file_name().unwrap().to_string_lossy().into_owned();
    let head: String = name.chars().take(2).collect();
    let cases = vec![
        (
            sb.bash(&format!("rm -rf {parent}/proj-test-*")),
            "allow",
            "no name `proj-test-*` matches is the sandbox",
        ),
        (
            sb.bash(&format!("rm -rf {parent}/?uild-[0-9]*/x")),
            "allow",
            "nor below one",
        ),
        (
            sb.bash(&format!("rm -rf {parent}/{head}*")),
            "ask",
            "the pattern can name the sandbox, home and state included",
        ),
    ];
    check(&sb, &cases);
    let (_, text) = sb.run(&sb.bash(&format!(
        "cp a.json {parent}/{head}*/home/.claude/settings.json"
    )));
    assert!(
        text.contains("changes Claude Code's"),
        "the reason names the place the pattern may reach: {text}"
    );
}

#[test]
fn the_reason_names_what_is_protected_and_the_spelling_used() {
    let sb = sandbox();
    let (got, text) = sb.run(&sb.bash("echo '{}' > cfg/settings.json"));
    assert_eq!(got, "ask", "{text}");
    assert!(
        text.contains("Claude Code's project settings"),
        "the reason names what the file is: {text}"
    );
    assert!(
        text.contains("cfg/settings.json"),
        "and the path as written: {text}"
    );
    let (got, text) = sb.run(&codex_bash(&sb, "rm .codex/hooks.json"));
    assert_eq!(got, "ask", "{text}");
    assert!(text.contains("Codex CLI's hook file"), "{text}");
}

/// A patch or an archive is judged by the files it names, read from disk
/// before the command runs: the command line names only the patch or the
/// archive.
#[test]
fn patches_and_archives_are_judged_by_the_files_they_hold() {
    let sb = sandbox();
    let p = sb.project();
    let write = |rel: &str, text: &str| std::fs::write(p.join(rel), text).unwrap();
    write(
        "off.patch",
        "diff --git a/.claude/hookrules/off.toml b/.claude/hookrules/off.toml\nnew file mode 100644\n--- /dev/null\n+++ b/.claude/hookrules/off.toml\n@@ -0,0 +1 @@\n+builtin = false\n",
    );
    write(
        "fix.patch",
        "--- a/src/main.rs\n+++ b/src/main.rs\n@@ -1 +1 @@\n-fn main() {}\n+fn main() { }\n",
    );
    write(
        "hooks.diff",
        "--- .codex/hooks.json\n+++ .codex/hooks.json\n@@ -1 +1 @@\n-{}\n+{\"hooks\":{}}\n",
    );
    // Archives made by the real tools, from a staging folder.
    let stage = sb.root.join("stage");
    std::fs::create_dir_all(stage.join(".claude/hookrules")).unwrap();
    std::fs::create_dir_all(stage.join("assets")).unwrap();
    std::fs::write(stage.join(".claude/hookrules/off.toml"), "x").unwrap();
    std::fs::write(stage.join("assets/logo.svg"), "x").unwrap();
    let tar = |name: &str, what: &str| {
        let ok = Command::new("tar")
            .arg("-cf")
            .arg(p.join(name))
            .arg(what)
            .current_dir(&stage)
            .status()
            .unwrap();
        assert!(ok.success());
    };
    tar("cfg.tar", ".claude");
    tar("assets.tar", "assets");
    let ok = Command::new("tar")
        .arg("-czf")
        .arg(p.join("cfg.tgz"))
        .arg(".claude")
        .current_dir(&stage)
        .status()
        .unwrap();
    assert!(ok.success());
    let zip = |name: &str, what: &str| {
        Command::new("python3")
            .args([
                "-c",
                "import sys,zipfile,os\nz=zipfile.ZipFile(sys.argv[1],'w')\nfor r,_,fs in os.walk(sys.argv[2]):\n  [z.write(os.path.join(r,f)) for f in fs]\nz.close()",
            ])
            .arg(p.join(name))
            .arg(what)
            .current_dir(&stage)
            .status()
            .is_ok_and(|s| s.success())
    };
    let zips = zip("cfg.zip", ".claude") && zip("assets.zip", "assets");
    let mut cmds: Vec<(&str, &str, &str)> = vec![
        ("git apply off.patch", "ask", "the patch adds a project policy"),
        ("git apply --index -v off.patch", "ask", "with options"),
        ("patch -p1 < off.patch", "ask", "patch reads it from stdin"),
        ("patch -p0 -i hooks.diff", "ask", "Codex's hooks, named without a/ b/"),
        ("git apply fix.patch", "allow", "a source fix"),
        ("patch -p1 < fix.patch", "allow", "a source fix"),
        ("git apply --check off.patch", "allow", "only checks"),
        ("tar -xf cfg.tar", "ask", "the archive holds .claude/hookrules/off.toml"),
        ("tar xf cfg.tar -C .", "ask", "old-style options"),
        (
            "mkdir -p x && tar -xf cfg.tar -C x",
            "ask",
            "x/.claude/hookrules: a nested folder is the project for a host without CLAUDE_PROJECT_DIR",
        ),
        ("mkdir -p x && tar -xf assets.tar -C x", "allow", "assets into x"),
        ("tar -xf assets.tar", "allow", "assets only"),
        ("tar -xzf cfg.tgz", "ask", "gzip-compressed: read too"),
        ("tar --extract --file=cfg.tgz --gzip", "ask", "long options"),
        ("tar -tf cfg.tar", "allow", "lists"),
    ];
    if zips {
        cmds.extend([
            (
                "unzip -o cfg.zip",
                "ask",
                "the zip holds .claude/hookrules/off.toml",
            ),
            ("unzip -o assets.zip", "allow", "assets only"),
        ]);
    }
    let cases: Vec<(Value, &str, &str)> = cmds
        .iter()
        .map(|(c, want, why)| (sb.bash(c), *want, *why))
        .collect();
    check(&sb, &cases);
}

/// A project copied whole that holds a link to the home folder (`homelink ->
/// ..`): the copy lands the user's own settings, already in effect, below the
/// link's name in the copy (whether the copy keeps the link or follows it),
/// which adds no hook. A link to settings that are not in effect still counts.
#[test]
fn a_project_copied_whole_through_a_link_to_home_adds_no_hook() {
    let sb = sandbox();
    sb.link("..", "homelink");
    let cases = [
        (
            sb.bash("cp -r . ../../snap"),
            "allow",
            "cp -r keeps the link",
        ),
        (
            sb.bash("cp -a . /tmp/hr-snap"),
            "allow",
            "cp -a into the temp folder",
        ),
        (
            sb.bash("rsync -av --exclude node_modules ./ ../../snap/"),
            "allow",
            "rsync -a",
        ),
        (
            sb.bash("cp -rL . ../../snap"),
            "allow",
            "followed: a copy of the same files",
        ),
    ];
    check(&sb, &cases);
    std::fs::create_dir_all(sb.root.join("other/.claude")).unwrap();
    std::fs::write(sb.root.join("other/.claude/settings.json"), "{}").unwrap();
    sb.link("../../other", "otherlink");
    let cases = [(
        sb.bash("cp -r . ../../snap"),
        "ask",
        "settings that are not in effect land at snap/otherlink/.claude",
    )];
    check(&sb, &cases);
}

/// A tree copied, moved, synced or extracted whole lands every entry somewhere
/// (the source's basename appended by each tool's rules, `SRC/.` and rsync's
/// `SRC/` being its contents): the sources here are real folders, read from
/// disk, with a protected place inside (a case variant, one behind a link),
/// or nothing protected.
#[test]
fn a_tree_copied_moved_or_synced_is_judged_by_where_its_entries_land() {
    let sb = sandbox();
    let r = &sb.root;
    for (f, text) in [
        ("kit/.claude/settings.json", "{}"),
        ("kit/.claude/hookrules/off.toml", "builtin = false"),
        ("kit/src/lib.rs", "x"),
        ("hooksrc/hooks.json", "{}"),
        ("sneaky/.CLAUDE/Settings.json", "{}"),
        ("plain/a/b.txt", "x"),
        ("plain/.cache/x", "x"),
        ("pol/hookrules/off.toml", "x"),
        ("viacfg/cfg/settings.json", "{}"),
        ("stage/pkg/.config/hookrules/user.toml", "builtin = false"),
        ("stage/lib/src/a.rs", "x"),
    ] {
        let p = r.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    // A source whose `.claude` is a link to a folder that holds the settings.
    std::fs::create_dir_all(r.join("linked")).unwrap();
    symlink("../kit/.claude", r.join("linked/.claude")).unwrap();
    // A backup folder whose `.claude` is a link to the user's.
    std::fs::create_dir_all(r.join("bk")).unwrap();
    symlink("../home/.claude", r.join("bk/.claude")).unwrap();
    let zip = |name: &str, from: &str, what: &str| {
        let ok = Command::new("python3")
            .args([
                "-c",
                "import os,sys,zipfile\nz=zipfile.ZipFile(sys.argv[1],'w')\nfor d,_,fs in os.walk(sys.argv[2]):\n  [z.write(os.path.join(d,f)) for f in fs]\nz.close()",
            ])
            .arg(r.join(name))
            .arg(what)
            .current_dir(r.join(from))
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "python3 makes the zip");
    };
    zip("cfg.zip", "kit", ".claude");
    for (name, what) in [("bin.tar", "pkg"), ("lib.tar", "lib")] {
        let ok = Command::new("tar")
            .arg("-cf")
            .arg(r.join(name))
            .arg(what)
            .current_dir(r.join("stage"))
            .status()
            .unwrap();
        assert!(ok.success());
    }
    zip("plain.zip", "plain", "a");
    // A member with an absolute name: GNU tar drops the `/` unless `-P`.
    let ok = Command::new("python3")
        .args([
            "-c",
            "import io,sys,tarfile\nt=tarfile.open(sys.argv[1],'w')\ni=tarfile.TarInfo(sys.argv[2]);i.size=2\nt.addfile(i,io.BytesIO(b'{}'))\nt.close()",
        ])
        .arg(r.join("abs.tar"))
        .arg(r.join("xconfig/hookrules/user.toml"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "python3 makes the tar");
    let ps = |command: &str| {
        json!({"hook_event_name":"PreToolUse","tool_name":"PowerShell","session_id":"s",
            "cwd":sb.project(),"tool_input":{"command":command}})
    };
    let cases = [
        (
            sb.bash("cp -r ../../kit/.claude ."),
            "ask",
            "lands ./.claude/settings.json",
        ),
        (
            sb.bash("cp -a ../../kit/. ."),
            "ask",
            "the kit's contents, .claude among them",
        ),
        (
            sb.bash("cp -a ../../kit/ ."),
            "ask",
            "BSD: the contents; GNU: ./kit/.claude, a nested project",
        ),
        (
            sb.bash("rsync -a ../../kit/ ./"),
            "ask",
            "rsync's trailing slash: the contents",
        ),
        (
            sb.bash("mv ../../kit/.claude ."),
            "ask",
            "moves a .claude folder over the project's",
        ),
        (
            sb.bash("ditto ../../kit ."),
            "ask",
            "ditto copies the contents",
        ),
        (
            sb.bash("cp -rT ../../kit ."),
            "ask",
            "-T: the contents land here",
        ),
        (
            sb.bash("rsync -a ../../hooksrc/ .codex/"),
            "ask",
            "hooks.json lands as Codex's hook file",
        ),
        (
            sb.bash("cp -r ../../sneaky/. ."),
            "ask",
            "a case variant lands where the settings are on macOS and Windows",
        ),
        (
            sb.bash("cp -a ../../linked/. ."),
            "ask",
            "a .claude that is a link to the settings",
        ),
        (
            sb.bash("cp -r ../../pol/hookrules .claude/"),
            "ask",
            "lands in the policies folder",
        ),
        (
            sb.bash(&format!(
                "tar -xf {} --strip-components=1 -C ~",
                sb.at("bin.tar")
            )),
            "ask",
            "pkg/.config/hookrules/user.toml lands in the user's policies once pkg/ is stripped",
        ),
        (
            sb.bash(&format!(
                "tar -xf {} --strip-components 1 -C vendor/",
                sb.at("lib.tar")
            )),
            "allow",
            "lib/src/a.rs lands as vendor/src/a.rs",
        ),
        (
            sb.bash(&format!("tar -xPf {}", sb.at("abs.tar"))),
            "ask",
            "-P keeps the member's absolute name: the user's policies",
        ),
        (
            sb.bash(&format!("tar -xf {} -C vendor/", sb.at("abs.tar"))),
            "allow",
            "without -P the leading / is dropped: below vendor/",
        ),
        (
            sb.bash(&format!(
                "tar --absolute-names -x -f {} -C vendor/",
                sb.at("abs.tar")
            )),
            "ask",
            "-C does not hold an absolute member",
        ),
        (
            sb.bash(&format!(
                "tar -xf {} --transform 's,^lib/src,.claude/hookrules,'",
                sb.at("lib.tar")
            )),
            "ask",
            "lib/src/a.rs renamed into the project's policies folder",
        ),
        (
            sb.bash(&format!(
                "tar -xf {} --xform=s,^,x/, -C vendor/",
                sb.at("lib.tar")
            )),
            "allow",
            "renamed members stay below vendor/",
        ),
        (
            sb.bash(&format!("tar -xPf {} -C vendor/", sb.at("lib.tar"))),
            "allow",
            "-P with relative names: below vendor/",
        ),
        (
            sb.bash("cp -a ../../kit/. ../../elsewhere/"),
            "ask",
            "settings that are not in effect, landing as a project's settings",
        ),
        (
            sb.bash("cp -a . ../../bk/"),
            "ask",
            "the project's settings land through bk/.claude, a link, on the user's",
        ),
        (
            sb.bash("cp -a ../../viacfg/. ."),
            "ask",
            "cfg/settings.json lands through the project's link cfg -> .claude",
        ),
        (
            sb.bash("cp -a ../../kit/. ~/"),
            "ask",
            "the user's Claude Code settings",
        ),
        (
            ps("Copy-Item -Recurse ../../kit/.claude -Destination ."),
            "ask",
            "Copy-Item -Recurse",
        ),
        (ps("Move-Item ../../kit/.claude ."), "ask", "Move-Item"),
        (
            ps(&format!(
                "Expand-Archive {} -DestinationPath .",
                sb.at("cfg.zip")
            )),
            "ask",
            "Expand-Archive of a zip holding .claude",
        ),
        (
            sb.bash("cp -r src/ build/"),
            "allow",
            "sources into a build folder",
        ),
        (
            sb.bash("cp -a . ../../backup"),
            "allow",
            "the project copied whole: its own settings, already in effect, land in a backup",
        ),
        (
            sb.bash("rsync -a ./ ../../backup/"),
            "allow",
            "rsync of the project to a backup",
        ),
        (
            sb.bash("cp -a ../proj ../proj-copy"),
            "allow",
            "the project copied beside itself",
        ),
        (
            sb.bash("rsync -a ../../plain/ out/"),
            "allow",
            "nothing protected inside",
        ),
        (
            sb.bash("cp -a ../../plain/. ."),
            "allow",
            "contents with nothing protected, into the project",
        ),
        (
            sb.bash("ditto ../../plain vendor/plain"),
            "allow",
            "a vendored folder",
        ),
        (
            sb.bash("cp -r ../../kit/src ."),
            "allow",
            "only the kit's sources",
        ),
        (sb.bash("cp -r ../../plain ./"), "allow", "lands ./plain"),
        (
            sb.bash("cp -r .claude/hookrules /tmp/policies-review"),
            "allow",
            "policies copied out for review",
        ),
        (
            ps(&format!(
                "Expand-Archive {} -DestinationPath vendor",
                sb.at("plain.zip")
            )),
            "allow",
            "an archive with nothing protected",
        ),
        (
            ps("Copy-Item -Recurse ../../plain -Destination out"),
            "allow",
            "Copy-Item of a plain tree",
        ),
    ];
    check(&sb, &cases);
    // The reason names the protected place and where the entry lands.
    let (_, text) = sb.run(&sb.bash("cp -a ../../kit/. ."));
    assert!(
        text.contains("Claude Code's project settings")
            && text.contains("proj/.claude/settings.json"),
        "{text}"
    );
}

/// A sandbox where hookrules is switched on: the project's and the user's
/// settings, Codex's, Gemini's and Copilot's hook files name it, and the
/// binary is in `~/.local/bin`. `settings.local.json` holds permissions only.
fn wired_sandbox() -> Sandbox {
    let hook = r#"{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"hookrules run"}]}]},"permissions":{"allow":[]}}"#;
    let sb = Sandbox::new(
        &[
            "home/proj/.claude/hookrules",
            "home/proj/.codex",
            "home/proj/.github/hooks",
            "home/proj/.gemini",
            "home/proj/src",
            "home/.claude",
            "home/.local/bin",
            "xconfig/hookrules",
        ],
        &[
            ("home/proj/.claude/settings.json", hook),
            (
                "home/proj/.claude/settings.local.json",
                r#"{"permissions":{"allow":["Bash(npm test)"]}}"#,
            ),
            (
                "home/proj/.claude/hookrules/team.toml",
                "[policy]\nname = \"team\"\n",
            ),
            (
                "home/proj/.codex/hooks.json",
                r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"hookrules run --host codex"}]}]}}"#,
            ),
            (
                "home/proj/.gemini/settings.json",
                r#"{"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"hookrules run --host gemini"}]}]}}"#,
            ),
            (
                "home/proj/.github/hooks/hookrules.json",
                r#"{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"hookrules run --host copilot"}]}}"#,
            ),
            ("home/proj/src/main.rs", "fn main() {}"),
            ("home/.claude/settings.json", hook),
            ("home/.local/bin/hookrules", "#!/bin/sh\n"),
            ("xconfig/hookrules/mine.toml", "[policy]\nname = \"mine\"\n"),
        ],
        &[("XDG_CONFIG_HOME", "xconfig"), ("XDG_STATE_HOME", "xstate")],
    );
    sb.link(".claude", "cfg");
    sb
}

#[test]
fn switching_the_guard_off_is_denied_changing_it_asks() {
    let sb = wired_sandbox();
    let p = |rel: &str| sb.project().join(rel).to_string_lossy().into_owned();
    let ps = |command: &str| claude(&sb, "PowerShell", &json!({ "command": command }));
    let cases = vec![
        // What switches hookrules on, removed or replaced, by any route.
        (sb.bash("rm .claude/settings.json"), "deny", "the project's wiring removed"),
        (sb.bash("echo '{}' > .claude/settings.json"), "deny", "overwritten"),
        (sb.bash(": > ~/.claude/settings.json"), "deny", "the user's wiring emptied"),
        (sb.bash("truncate -s 0 .codex/hooks.json"), "deny", "Codex's wiring truncated"),
        (sb.bash("jq 'del(.hooks)' .claude/settings.json > t.json && mv t.json .claude/settings.json"), "deny", "replaced by a move"),
        (sb.bash("cp src/main.rs .gemini/settings.json"), "deny", "a copy onto Gemini's wiring"),
        (sb.bash("ln -sf /dev/null .claude/settings.json"), "deny", "a link onto it"),
        (sb.bash("mv .claude .claude-off"), "deny", "the folder holding it moved away"),
        (sb.bash("cd .. && mv proj proj.bak && mkdir proj"), "deny", "the project moved from the folder above"),
        (sb.bash("git mv .github/hooks .github/hooks-off"), "deny", "Copilot's hook folder moved"),
        (sb.bash("rm -rf .c*"), "deny", "a pattern that names the folder"),
        (sb.bash("d=cfg; rm -rf \"$d\"/"), "deny", "through a committed link, by a variable"),
        (sb.bash("rm ~/.local/bin/hookrules"), "deny", "the binary"),
        (sb.bash("git checkout -- .claude/settings.json"), "deny", "restored over"),
        (ps("Remove-Item -Recurse -Force .claude"), "deny", "PowerShell"),
        (
            claude(&sb, "Write", &json!({"file_path": p(".claude/settings.json"), "content": "{\"permissions\":{}}"})),
            "deny",
            "written without hookrules",
        ),
        (
            claude(&sb, "Edit", &json!({"file_path": p("cfg/settings.json"), "old_string": "\"command\":\"hookrules run\"", "new_string": "\"command\":\"true\""})),
            "deny",
            "an edit that takes it out, through the link",
        ),
        (
            claude(&sb, "MultiEdit", &json!({"file_path": sb.at("home/.claude/settings.json"), "edits": [{"old_string": "hookrules run", "new_string": "true"}]})),
            "deny",
            "the user's settings",
        ),
        (
            codex_patch(&sb, "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n"),
            "deny",
            "Codex's patch deleting its wiring",
        ),
        (
            copilot(&sb, "edit", &json!({"path": p(".github/hooks/hookrules.json"), "old_str": "hookrules run --host copilot", "new_str": "true"})),
            "deny",
            "Copilot's edit taking it out",
        ),
        (
            claude(&sb, "Write", &json!({"file_path": p(".claude/hookrules/me.local.toml"), "content": "[policy]\nbuiltin = false\n"})),
            "deny",
            "a policy that drops the built-in rules",
        ),
        (
            sb.bash("printf '[policy]\\nbuiltin = false\\n' >> ~/.config/hookrules/mine.toml"),
            "deny",
            "the same by the shell",
        ),
        // An edit in place whose script names the hooks: what it leaves cannot be read.
        (sb.bash("sed -i '/hookrules/d' .claude/settings.json"), "deny", "sed deleting the lines that name it"),
        (sb.bash("perl -0pi -e 's/\"hooks\"/\"x\"/' .claude/settings.json"), "deny", "perl renaming the hooks key"),
        (sb.bash("sed -i '/PreToolUse/,+12d' .claude/settings.json"), "deny", "sed deleting an event's entry by its name"),
        (sb.bash("hookrules uninstall"), "deny", "uninstalled"),
        (sb.bash("hookrules init --command /bin/true"), "deny", "re-pointed"),
        // Changes that keep it: the user confirms them.
        (sb.bash("sed -i 's/\"allow\":\\[\\]/\"allow\":[\"Bash(ls)\"]/' .claude/settings.json"), "ask", "an edit in place"),
        (sb.bash("echo >> .claude/settings.json"), "ask", "an append"),
        (sb.bash("chmod 644 .claude/settings.json"), "ask", "its mode"),
        (sb.bash("rm .claude/settings.local.json"), "ask", "settings that do not register hookrules"),
        (sb.bash("rm .claude/hookrules/team.toml"), "ask", "a policy removed: the built-in pack stays"),
        (
            claude(&sb, "Edit", &json!({"file_path": p(".claude/settings.json"), "old_string": "\"allow\":[]", "new_string": "\"allow\":[\"Bash(ls)\"]"})),
            "ask",
            "an edit that keeps it",
        ),
        (
            claude(&sb, "Write", &json!({"file_path": p(".claude/settings.json"), "content": "{\"hooks\":{\"PreToolUse\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"hookrules run\"}]}]},\"permissions\":{}}"})),
            "ask",
            "rewritten with hookrules kept",
        ),
        (
            claude(&sb, "Write", &json!({"file_path": p(".claude/hookrules/extra.toml"), "content": "[policy]\nname = \"extra\"\n"})),
            "ask",
            "a new policy",
        ),
        (sb.bash("hookrules init --client-version 1.0.0"), "ask", "fewer events"),
        // Reads and look-alikes run.
        (sb.bash("cat .claude/settings.json"), "allow", "reads"),
        (sb.bash("cp .claude/settings.json /tmp/settings-review.json"), "allow", "a copy out"),
        (sb.bash("rm -rf src/.cache"), "allow", "another folder"),
        (sb.bash("hookrules uninstall --dry-run"), "allow", "prints the diff"),
        (sb.bash("grep -rn 'builtin = false' docs/"), "allow", "a search"),
    ];
    check(&sb, &cases);
    // The reason names what switches hookrules on, not the policies beside it.
    let (_, text) = sb.run(&sb.bash("mv .claude .claude-off"));
    assert!(text.contains("Claude Code's project settings"), "{text}");
}

/// `find R -name NAME` looks below R at every depth, hidden folders included:
/// what it deletes (`-delete`, `-exec rm {} +`) is every file of that name
/// there, the guard's own among them (issue 30: judge where a command really
/// reaches). A name no guarded file has, a search kept to R's own names, or a
/// `-path` that keeps it in another folder reach none of them.
#[test]
fn a_search_that_deletes_reaches_the_guarded_files_it_can_name() {
    let sb = wired_sandbox();
    let cases = vec![
        (
            sb.bash("find . -name '*.toml' -delete"),
            "ask",
            "the project's policy team.toml, found below .claude",
        ),
        (
            sb.bash("find . -iname 'TEAM.TOML' -exec rm {} +"),
            "ask",
            "by its own name, any letter case",
        ),
        (
            sb.bash("find . -name settings.json -exec rm -f {} +"),
            "deny",
            "the file that registers hookrules",
        ),
        (
            sb.bash("find . -type f -name '*.json' -not -path './node_modules/*' -delete"),
            "deny",
            "a negated -path keeps .claude in",
        ),
        (
            sb.bash("find ~ -name hookrules -type d -exec rm -rf {} +"),
            "deny",
            "the user's policy folder and the binary, by their name",
        ),
        (
            sb.bash("find . -mindepth 1 -not -path './.git*' -delete"),
            "deny",
            "only negated tests: everything in the project",
        ),
        (
            sb.bash("find . -name '*.pyc' -delete"),
            "allow",
            "no guarded file has that name",
        ),
        (
            sb.bash("find . -maxdepth 1 -name '*.toml' -delete"),
            "allow",
            "only the project folder's own names",
        ),
        (
            sb.bash("find . -name '*.json' -path './dist/*' -delete"),
            "allow",
            "-path keeps it in dist",
        ),
        (
            sb.bash("find src -name '*.rs' -delete"),
            "allow",
            "a folder with no guarded file below",
        ),
        (
            sb.bash("find . -name '*.toml' -print"),
            "allow",
            "listing deletes nothing",
        ),
    ];
    check(&sb, &cases);
}

/// The key and the state folder are judged where they really are: code the
/// guard does not see (a build script) moves the state folder into the
/// project and leaves a link in its place; the key read at its new place
/// through the agent's own tools is still the key.
#[test]
fn the_key_moved_behind_a_link_is_still_the_key() {
    let sb = sandbox();
    let (got, _) = sb.run(&sb.bash("ls"));
    assert_eq!(got, "allow", "the first event makes the key");
    let state = sb.root.join("xstate/hookrules");
    assert!(state.join("key").is_file(), "the key is made");
    let moved = sb.project().join(".st");
    std::fs::rename(&state, &moved).unwrap();
    symlink(&moved, &state).unwrap();
    let read = json!({"hook_event_name":"PreToolUse","tool_name":"Read","session_id":"s",
        "cwd":sb.project(),"tool_input":{"file_path":moved.join("key")}});
    let cases = [
        (read, "deny", "Read of the key at its new place"),
        (sb.bash("xxd -p .st/key"), "deny", "a shell reading it"),
        (
            sb.bash("cat .st/log.jsonl | head"),
            "allow",
            "the decision log is not the key",
        ),
    ];
    check(&sb, &cases);
}

/// The user's policy folder is guarded where it really is: a write there,
/// spelled without the link, is a change of the user's policies.
#[test]
fn the_users_policies_are_guarded_where_a_link_leads() {
    // `~/.config/hookrules` is a link into a dotfiles repository, here the
    // project the agent works in (integrity30's 19).
    let sb = Sandbox::new(
        &["home/proj/dotfiles/hookrules", "xconfig"],
        &[(
            "home/proj/dotfiles/hookrules/mine.toml",
            "[policy]\nname = \"mine\"\n",
        )],
        &[("XDG_CONFIG_HOME", "xconfig"), ("XDG_STATE_HOME", "xstate")],
    );
    std::os::unix::fs::symlink(
        sb.project().join("dotfiles/hookrules"),
        sb.root.join("xconfig/hookrules"),
    )
    .unwrap();
    let cases = vec![
        (
            sb.bash("printf '[policy]\\nname = \"zz\"\\n' > dotfiles/hookrules/zz.toml"),
            "ask",
            "a new user policy, written where the link leads",
        ),
        (
            sb.bash("rm dotfiles/hookrules/mine.toml"),
            "ask",
            "the user's policy removed there",
        ),
        (
            sb.bash("printf x > dotfiles/notes.txt"),
            "allow",
            "another file of the repository",
        ),
    ];
    check(&sb, &cases);
}

/// Git's commands that replace the working tree's files switch the guard off
/// when they put back, replace or take away a file that registers hookrules
/// (integrity27's 35 and 37): git itself is asked what they change, in a
/// real repository. A branch switch, stash or merge that leaves the wiring
/// as it is runs; so does one that changes only other files. A stash that
/// puts a policy back asks, as any change of a policy does.
#[test]
fn git_commands_that_take_the_wiring_out_of_the_working_tree_are_denied() {
    let sb = wired_sandbox();
    let proj = sb.project();
    let git = |args: &[&str]| crate::support::git(&proj, args);
    // `bare`: before the hooks were committed; `docs`: a later change to
    // another file only. main: both, and the wiring.
    git(&["init", "-q", "-b", "main"]);
    git(&["add", "src"]);
    git(&["commit", "-qm", "start"]);
    git(&["branch", "bare"]);
    git(&["add", ".claude", ".codex", ".gemini", ".github"]);
    git(&["commit", "-qm", "hooks"]);
    std::fs::write(proj.join("src/main.rs"), "fn main() { println!(); }").unwrap();
    git(&["commit", "-qam", "docs"]);
    git(&["branch", "docs"]);
    let cases = vec![
        (
            sb.bash("git switch bare"),
            "deny",
            "a branch without the wiring",
        ),
        (
            sb.bash("git checkout bare"),
            "deny",
            "the same, by checkout",
        ),
        (
            sb.bash("git checkout -b fix bare"),
            "deny",
            "a new branch started there",
        ),
        (
            sb.bash("git switch --orphan empty"),
            "deny",
            "an empty tree",
        ),
        (
            sb.bash("git checkout --orphan gh-pages bare"),
            "deny",
            "an orphan branch started from a tree without the wiring",
        ),
        (
            sb.bash("git reset --keep bare"),
            "deny",
            "reset keeping local changes",
        ),
        (
            sb.bash("git revert --no-edit HEAD~1"),
            "deny",
            "reverting the commit that added it",
        ),
        (
            sb.bash("git -C src switch bare"),
            "deny",
            "from a folder below",
        ),
        (
            sb.bash("git switch docs"),
            "allow",
            "the wiring is the same there",
        ),
        (
            sb.bash("git switch -c feature"),
            "allow",
            "a new branch where it is",
        ),
        (
            sb.bash("git checkout --orphan gh-pages"),
            "allow",
            "an orphan branch keeps the working tree",
        ),
        (
            sb.bash("git merge bare"),
            "allow",
            "nothing comes from an ancestor",
        ),
        (
            sb.bash("git stash"),
            "allow",
            "no change to the wiring to stash",
        ),
        (
            sb.bash("git stash -u"),
            "allow",
            "untracked files name nothing",
        ),
        (sb.bash("git status"), "allow", "reads"),
    ];
    check(&sb, &cases);

    // A change to the tracked wiring is stashed away; an untracked file
    // that registers hookrules goes with `-u`.
    let wiring = std::fs::read_to_string(proj.join(".claude/settings.json")).unwrap();
    std::fs::write(
        proj.join(".claude/settings.json"),
        wiring.replace("\"permissions\"", "\"model\":\"x\",\"permissions\""),
    )
    .unwrap();
    std::fs::create_dir_all(proj.join(".cursor")).unwrap();
    std::fs::write(
        proj.join(".cursor/hooks.json"),
        r#"{"version":1,"hooks":{"beforeShellExecution":[{"command":"hookrules run --host cursor"}]}}"#,
    )
    .unwrap();
    let cases = vec![
        (
            sb.bash("git stash"),
            "deny",
            "the edited wiring put back to HEAD's",
        ),
        (
            sb.bash("git stash push -m wip"),
            "deny",
            "the same, spelled out",
        ),
        (sb.bash("git stash -k -u"), "deny", "with untracked files"),
        (
            sb.bash("git switch docs"),
            "allow",
            "git carries the change over",
        ),
    ];
    check(&sb, &cases);
    git(&["checkout", "-q", "--", ".claude/settings.json"]);
    let cases = vec![
        (
            sb.bash("git stash --include-untracked"),
            "deny",
            "Cursor's untracked hook file taken away",
        ),
        (sb.bash("git stash"), "allow", "untracked files stay"),
    ];
    check(&sb, &cases);

    // A tracked policy changed in the working tree: a stash puts HEAD's
    // back, which changes what the guard decides (integrity30's 18).
    let team = proj.join(".claude/hookrules/team.toml");
    std::fs::write(&team, "[policy]\nname = \"team\"\n# tightened\n").unwrap();
    let cases = vec![(sb.bash("git stash"), "ask", "the policy put back to HEAD's")];
    check(&sb, &cases);
    git(&["checkout", "-q", "--", ".claude/hookrules/team.toml"]);

    // A branch that switches the hooks off without naming hookrules: its
    // `.claude/settings.local.json` says `"disableAllHooks": true`. Merging,
    // switching to it or checking the file out of it decides the hooks; a
    // sparse checkout that leaves `.claude/` out takes the wiring away.
    git(&["switch", "-q", "-c", "off"]);
    std::fs::write(
        proj.join(".claude/settings.local.json"),
        "{\"disableAllHooks\": true}\n",
    )
    .unwrap();
    git(&["add", "-f", ".claude/settings.local.json"]);
    git(&["commit", "-qm", "quiet"]);
    git(&["switch", "-q", "main"]);
    check(
        &sb,
        &[
            (
                sb.bash("git merge off"),
                "ask",
                "brings the settings file that switches hooks off",
            ),
            (
                sb.bash("git switch off"),
                "ask",
                "the same, by a branch switch",
            ),
            (
                sb.bash("git checkout off -- .claude/settings.local.json"),
                "ask",
                "the one file, checked out of the branch",
            ),
            (
                sb.bash("git cherry-pick off"),
                "ask",
                "the commit that adds it",
            ),
            (
                sb.bash("git sparse-checkout set src"),
                "deny",
                "`.claude/` leaves the working tree",
            ),
            (
                sb.bash("git sparse-checkout list"),
                "allow",
                "reads the patterns",
            ),
            (sb.bash("git merge docs"), "allow", "another file only"),
        ],
    );

    // Asking git runs nothing the repository configures: a clean filter
    // (which `git diff HEAD` would run to hash a file whose time stamps
    // changed) named by an archive's `.git/config` and `.gitattributes`.
    let marker = sb.root.join("filter-ran");
    std::fs::write(proj.join(".gitattributes"), "* filter=evil\n").unwrap();
    let mut config = std::fs::read_to_string(proj.join(".git/config")).unwrap();
    config.push_str(&format!(
        "[filter \"evil\"]\n\tclean = touch {}\n",
        marker.display()
    ));
    std::fs::write(proj.join(".git/config"), config).unwrap();
    let wiring = std::fs::read(proj.join(".claude/settings.json")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    std::fs::write(proj.join(".claude/settings.json"), &wiring).unwrap();
    check(
        &sb,
        &[(sb.bash("git stash"), "allow", "the wiring's text is HEAD's")],
    );
    assert!(
        !marker.exists(),
        "a repository's clean filter ran while the guard asked git"
    );
}
