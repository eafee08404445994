//! Secrets by what a file holds (issue 30, cause 4): a tool's settings file in
//! home with a credential written in is a secret whatever the tool is called
//! (`~/.mc/config.json`'s `secretKey`, `~/.continue/config.json`'s `apiKey`),
//! for the file tools and for a shell command that opens it, through a link
//! too; settings with no credential, a credential kept elsewhere (`${VAR}`,
//! `env:…`), package caches, the project's own files, a FIFO and a file whose
//! credential lies past the bounded head are not read as secrets (and never
//! hang). Real files in a sandbox: the class is known only from the content.

use serde_json::{json, Value};

use crate::support::Sandbox;

/// The head hookrules reads of a file (`reach::CONTENT_HEAD`).
const HEAD: usize = 16 * 1024;

fn sandbox() -> Sandbox {
    let past_head = format!(
        "{{\"notes\": \"{}\",\n\"token\": \"ghp_0123456789abcdefghij\"}}\n",
        "x".repeat(HEAD)
    );
    let sb = Sandbox::new(
        &[
            "home/.mc",
            "home/.continue",
            "home/.config/Code/User",
            "home/.config/tool",
            "home/.config/big",
            "home/.config/pipe",
            "home/.docker",
            "home/.vscode/extensions/acme.x",
            "home/.cargo/registry/src/x/tests",
            "home/proj/config",
            "home/proj/src",
        ],
        &[
            // one line of JSON, the keys deep in it
            (
                "home/.mc/config.json",
                r#"{"version":"10","aliases":{"s3":{"url":"https://s3.amazonaws.com","accessKey":"AKIAIOSFODNN7EXAMPLE","secretKey":"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY","api":"s3v4","path":"auto"}}}"#,
            ),
            (
                "home/.continue/config.json",
                "{\n  \"models\": [\n    {\n      \"title\": \"GPT-4o\",\n      \"provider\": \"openai\",\n      \"apiKey\": \"sk-proj-abcdefghijklmnop\"\n    }\n  ]\n}\n",
            ),
            (
                "home/.continue/config.yaml",
                "name: Local Assistant\nmodels:\n  - name: Claude\n    provider: anthropic\n    apiKey: sk-ant-api03-abcdefghij\n",
            ),
            (
                "home/.docker/daemon.json",
                "{\n  \"log-driver\": \"json-file\",\n  \"insecure-registries\": [\"registry.local:5000\"]\n}\n",
            ),
            (
                "home/.config/Code/User/keybindings.json",
                "[\n  { \"key\": \"ctrl+shift+alt+down\", \"command\": \"editor.action.copyLinesDownAction\" }\n]\n",
            ),
            (
                "home/.config/tool/settings.json",
                "{ \"apiKey\": \"${OPENAI_API_KEY}\", \"token\": \"env:GH_TOKEN\", \"password\": \"\", \"theme\": \"dark\" }\n",
            ),
            ("home/.config/big/config.json", past_head.as_str()),
            (
                "home/.vscode/extensions/acme.x/package.json",
                "{\"name\":\"x\",\"password\":\"hunter2hunter2\"}\n",
            ),
            (
                "home/.cargo/registry/src/x/tests/config.toml",
                "password = \"fixture-password\"\n",
            ),
            ("home/proj/config/dev.json", "{\"db\":{\"password\":\"devpassword1\"}}\n"),
            (
                "home/proj/src/login.py",
                "def login():\n    password = input_password()\n    return password\n",
            ),
        ],
        &[
            ("XDG_STATE_HOME", "state"),
            ("HOOKRULES_CACHE_DIR", "cache"),
        ],
    );
    sb.link("../.mc/config.json", "mc.json");
    let fifo = std::ffi::CString::new(sb.at("home/.config/pipe/config.json")).unwrap();
    // SAFETY: a valid C string; mkfifo(3) only creates the FIFO.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    sb
}

/// (file, relative to the sandbox's home or, for `proj/…`, the project's
/// parent; decision; why)
const FILES: &[(&str, &str, &str)] = &[
    (
        "home/.mc/config.json",
        "deny",
        "the MinIO client's keys, on one line",
    ),
    (
        "home/.continue/config.json",
        "deny",
        "an editor agent's API key",
    ),
    ("home/.continue/config.yaml", "deny", "the same in YAML"),
    (
        "home/proj/mc.json",
        "deny",
        "a link in the project to the MinIO keys",
    ),
    (
        "home/.docker/daemon.json",
        "allow",
        "settings with no credential",
    ),
    (
        "home/.config/Code/User/keybindings.json",
        "allow",
        "a key binding is no key",
    ),
    (
        "home/.config/tool/settings.json",
        "allow",
        "credentials kept elsewhere (`${VAR}`, `env:`), or empty",
    ),
    (
        "home/.config/big/config.json",
        "allow",
        "a credential past the bounded head is not read",
    ),
    (
        "home/.config/pipe/config.json",
        "allow",
        "a FIFO: not opened, never waited on",
    ),
    (
        "home/.vscode/extensions/acme.x/package.json",
        "allow",
        "an installed extension's files",
    ),
    (
        "home/.cargo/registry/src/x/tests/config.toml",
        "allow",
        "a downloaded crate's test fixture",
    ),
    (
        "home/proj/config/dev.json",
        "allow",
        "the project's own settings",
    ),
    (
        "home/proj/src/login.py",
        "allow",
        "code that names a password",
    ),
];

fn read(sb: &Sandbox, rel: &str) -> Value {
    json!({
        "hook_event_name": "PreToolUse", "tool_name": "Read", "session_id": "s",
        "cwd": sb.project(), "tool_input": { "file_path": sb.at(rel) },
    })
}

#[test]
fn settings_files_are_judged_by_what_they_hold() {
    let sb = sandbox();
    let mut wrong = vec![];
    for (rel, want, why) in FILES {
        for (how, event) in [
            ("Read", read(&sb, rel)),
            ("cat", sb.bash(&format!("cat '{}'", sb.at(rel)))),
        ] {
            let (got, text) = sb.run(&event);
            if got != *want {
                wrong.push(format!(
                    "{how} {rel}: want {want}, got {got} ({why})\n  {text}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Listing the folder or using the tool reads no value.
#[test]
fn using_the_tool_is_not_reading_its_settings() {
    let sb = sandbox();
    for command in [
        "ls -la ~/.mc",
        "mc ls s3/bucket",
        "stat ~/.continue/config.json",
    ] {
        let (got, text) = sb.run(&sb.bash(command));
        assert_eq!(got, "allow", "{command}: {text}");
    }
}
