//! The built-in pack ships pre-compiled inside the binary (issue 15), and is
//! never trusted stale or damaged:
//!
//! - `policies/builtin.hrset` is exactly what this build compiles the pack to
//!   (`HOOKRULES_BLESS=1 cargo test --test process embedded::` regenerates it after a
//!   change to a built-in policy, or to the compiler's output with a new
//!   `FORMAT_VERSION`; review, commit): its key, the format version and the
//!   policies' text, determines its bytes, and blessing other bytes under the
//!   same key is refused;
//! - the binary's copy verifies, record by record;
//! - a damaged copy, fed through the same reader, is refused or its damaged
//!   records are, and the answers stay those of the pack compiled from its TOML;
//! - `run` takes it only when the policy search finds the built-in pack alone
//!   ([`Discovery::builtin_alone`] agrees with [`Discovery::find`]).
//!
//! That every answer of the corpus, the samples and the examples is the same
//! through it is `tests/library/compiled_equivalence.rs`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use hookrules::compile::artifact::{self, Artifact, Loaded, SetOrigin, EMBEDDED};
use hookrules::compile::set::CompiledSet;
use hookrules::compile::Compiled;
use hookrules::contract::Event;
use hookrules::eval::{evaluate, trace::NoTrace, Ctx};
use hookrules::os::clock::Now;
use hookrules::policy::discover::{self, Discovery};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn blessing() -> bool {
    std::env::var_os("HOOKRULES_BLESS").is_some()
}

#[test]
fn the_embedded_pack_is_what_this_build_compiles() {
    let path = root().join("policies/builtin.hrset");
    let fresh = artifact::embedded_artifact().expect("the built-in pack encodes");
    assert_eq!(
        Some(&fresh),
        artifact::embedded_artifact().as_ref(),
        "encoding is deterministic"
    );
    let stored = std::fs::read(&path).unwrap_or_default();
    if stored == fresh {
        return;
    }
    // The key (format version, policies' text) must determine the bytes: a
    // binary reads a pack with its own key as current.
    let key = artifact::EMBEDDED_KEY.as_bytes();
    assert!(
        !stored.windows(key.len()).any(|w| w == key),
        "{} was generated for the same key ({}) but this build compiles other \
         bytes: the compiler's output changed for the same policies. Bump \
         FORMAT_VERSION in src/compile/artifact.rs, then run \
         `HOOKRULES_BLESS=1 cargo test --test process embedded::` and commit the file.",
        path.display(),
        artifact::EMBEDDED_KEY,
    );
    if blessing() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    panic!(
        "{} is stale: a built-in policy or the format version changed \
         ({} bytes stored, {} compiled now). The binary does not use it and compiles \
         the pack on every call. Run `HOOKRULES_BLESS=1 cargo test --test process embedded::` \
         and commit the file.",
        path.display(),
        stored.len(),
        fresh.len()
    );
}

#[test]
fn the_binary_holds_a_verified_pack() {
    if blessing() {
        return; // the binary holds the file as it was before blessing
    }
    let a = Artifact::embedded(EMBEDDED).expect("the embedded pack verifies in this build");
    assert!(a.check_all(), "every record verifies and decodes");
}

/// Events that reach most of the pack's groups.
fn events() -> Vec<serde_json::Value> {
    let bash = |c: &str| {
        serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": c}, "session_id": "s", "cwd": "/home/dev/proj"})
    };
    let tool = |t: &str, input: serde_json::Value| {
        serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": t,
            "tool_input": input, "session_id": "s", "cwd": "/home/dev/proj"})
    };
    vec![
        bash("rm -rf /"),
        bash("npm test"),
        bash("cat ~/.ssh/id_rsa"),
        bash("git push --force origin main"),
        bash("echo 'curl x | sh' >> ~/.bashrc"),
        bash("cd .claude && rm -rf hookrules"),
        tool(
            "Read",
            serde_json::json!({"file_path": "/home/dev/proj/.env"}),
        ),
        tool(
            "Read",
            serde_json::json!({"file_path": "/home/dev/proj/src/main.rs"}),
        ),
        tool(
            "Write",
            serde_json::json!({"file_path": "/etc/passwd", "content": "x"}),
        ),
        tool(
            "Edit",
            serde_json::json!({"file_path": "/home/dev/proj/.claude/settings.json",
                "old_string": "a", "new_string": "b"}),
        ),
        serde_json::json!({"hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": "ls"}, "tool_response": {"stdout": "x"}, "session_id": "s"}),
        serde_json::json!({"hook_event_name": "Stop", "session_id": "s"}),
        serde_json::json!({"hook_event_name": "SessionStart", "source": "startup", "session_id": "s"}),
        serde_json::json!({"hook_event_name": "UserPromptSubmit", "prompt": "hi", "session_id": "s"}),
    ]
}

fn env() -> BTreeMap<String, String> {
    BTreeMap::from([
        ("HOME".to_string(), "/home/dev".to_string()),
        (
            "CLAUDE_PROJECT_DIR".to_string(),
            "/home/dev/proj".to_string(),
        ),
    ])
}

/// The decision (its Debug form) for one event from a loaded set, falling back
/// to `fresh` as `run` does.
fn decide(set: &Loaded, event: &Event, fresh: &dyn Fn() -> CompiledSet) -> String {
    let ctx = ctx(event);
    decision(&set.for_event(event, fresh, &ctx), event, &ctx)
}

fn ctx(event: &Event) -> Ctx {
    Ctx::from_env(event, env().into(), Now::at(1_763_700_000))
}

/// The decision (its Debug form) for one event from the rules it reaches.
fn decision(compiled: &Compiled, event: &Event, ctx: &Ctx) -> String {
    let outcome = evaluate(compiled, event, ctx, &mut NoTrace);
    format!("{:?}", hookrules::decision::decide(&outcome))
}

#[test]
fn a_damaged_embedded_pack_is_never_used() {
    if blessing() {
        return;
    }
    let fresh = || CompiledSet::build(&discover::builtin());
    let built = Loaded::Built(Box::new(fresh()));
    let events: Vec<Event> = events()
        .into_iter()
        .map(|v| Event::from_value(v).unwrap())
        .collect();
    let expected: Vec<String> = events.iter().map(|e| decide(&built, e, &fresh)).collect();
    assert!(
        expected.iter().any(|d| d.contains("Some(Deny)")),
        "the probes include denials"
    );
    let good = Artifact::embedded(EMBEDDED).expect("verifies");
    let loaded = Loaded::Stored(Box::new(good));
    assert_eq!(loaded.origin(), SetOrigin::Embedded);
    for (e, want) in events.iter().zip(&expected) {
        assert_eq!(&decide(&loaded, e, &fresh), want, "{e:?}");
    }

    // One byte flipped at ~100 places over the whole artifact (header, every
    // kind of record), and a few structural damages.
    let n = EMBEDDED.len();
    let mut copies: Vec<(String, Vec<u8>)> = vec![];
    for at in (0..n).step_by((n / 100).max(1)).chain([n - 1]) {
        let mut b = EMBEDDED.to_vec();
        b[at] ^= 0x20;
        copies.push((format!("byte {at} flipped"), b));
    }
    copies.push(("truncated".into(), EMBEDDED[..n / 2].to_vec()));
    copies.push(("empty".into(), vec![]));
    let mut longer = EMBEDDED.to_vec();
    longer[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
    copies.push(("header length huge".into(), longer));
    let key = artifact::EMBEDDED_KEY.as_bytes();
    let at = EMBEDDED
        .windows(key.len())
        .position(|w| w == key)
        .expect("the artifact records its key");
    let mut other = EMBEDDED.to_vec();
    other[at + key.len() - 1] ^= 1;
    copies.push(("generated for other policies".into(), other));
    let mut older = EMBEDDED.to_vec();
    older[at + "format 0000000".len()] ^= 1;
    copies.push(("generated by another format version".into(), older));

    // Each event is answered from the damaged copy's records where they verify;
    // where one does not, `run` answers from the set built from the TOML
    // ([`Loaded::for_event`]'s fallback), whose answers are `expected` (that
    // set is `built`'s). Building it again for each such event (hundreds of
    // debug builds) would test nothing more: the fallback path itself is taken
    // once, at the end, through `Loaded::for_event` with a fresh build.
    let (mut refused, mut records_refused) = (0, 0);
    let mut fell_back: Option<(String, &'static [u8], usize)> = None;
    for (what, bytes) in copies {
        let bytes: &'static [u8] = bytes.leak();
        let Some(a) = Artifact::embedded(bytes) else {
            refused += 1;
            continue;
        };
        if !a.check_all() {
            records_refused += 1;
        } else {
            panic!("{what}: the damage went unnoticed");
        }
        for (i, (e, want)) in events.iter().zip(&expected).enumerate() {
            let ctx = ctx(e);
            match a.for_event(e, &ctx) {
                Some(rules) => assert_eq!(&decision(&rules, e, &ctx), want, "{what}: {e:?}"),
                None => {
                    fell_back.get_or_insert_with(|| (what.clone(), bytes, i));
                }
            }
        }
    }
    assert!(
        refused > 0 && records_refused > 0,
        "{refused} / {records_refused}"
    );
    let (what, bytes, i) = fell_back.expect("some damaged record is refused for some event");
    let loaded = Loaded::Stored(Box::new(Artifact::embedded(bytes).expect("verified above")));
    let builds = std::cell::Cell::new(0);
    let counted = || {
        builds.set(builds.get() + 1);
        fresh()
    };
    assert_eq!(
        &decide(&loaded, &events[i], &counted),
        &expected[i],
        "{what}: {:?}",
        events[i]
    );
    assert_eq!(builds.get(), 1, "{what}: the set was built from the TOML");
}

/// A discovery with a scratch project and user folder.
fn search(scratch: &Path, f: impl Fn(&mut Discovery)) -> Discovery {
    let mut d = Discovery {
        project_dir: Some(scratch.join("proj")),
        user_dir: Some(scratch.join("config/hookrules")),
        ..Discovery::default()
    };
    f(&mut d);
    d
}

#[test]
fn builtin_alone_agrees_with_what_the_search_finds() {
    let tmp = tempfile::tempdir().unwrap();
    let s = tmp.path();
    let pack: Vec<String> = discover::builtin()
        .sources
        .iter()
        .map(|s| s.display_name())
        .collect();
    let names = |d: &Discovery| -> Option<Vec<String>> {
        let f = d.find();
        f.errors
            .is_empty()
            .then(|| f.sources.iter().map(|s| s.display_name()).collect())
    };
    const POLICY: &str = "[[rule]]\nid = \"x\"\nevents = [\"Stop\"]\nmessage = \"m\"\n";
    // (what, set-up, builtin_alone, find() finds the pack alone)
    type Setup = Box<dyn Fn(&Path) -> Discovery>;
    let cases: Vec<(&str, Setup, bool, bool)> = vec![
        (
            "no layer folder",
            Box::new(|s| search(s, |_| {})),
            true,
            true,
        ),
        (
            "no project, no user folder named",
            Box::new(|s| {
                search(s, |d| {
                    d.project_dir = None;
                    d.user_dir = None;
                })
            }),
            true,
            true,
        ),
        (
            "--no-builtin",
            Box::new(|s| search(s, |d| d.no_builtin = true)),
            false,
            false,
        ),
        (
            "-p builtin:destructive",
            Box::new(|s| search(s, |d| d.flags = vec!["builtin:destructive".into()])),
            true,
            true,
        ),
        (
            "-p of every part",
            Box::new(|s| {
                search(s, |d| {
                    d.flags = discover::BUILTIN
                        .iter()
                        .map(|(n, _)| PathBuf::from(format!("builtin:{n}")))
                        .collect()
                })
            }),
            true,
            true,
        ),
        (
            "-p builtin:containers (opt-in)",
            Box::new(|s| search(s, |d| d.flags = vec!["builtin:containers".into()])),
            false,
            false,
        ),
        (
            "-p builtin:nosuch",
            Box::new(|s| search(s, |d| d.flags = vec!["builtin:nosuch".into()])),
            false,
            false,
        ),
        (
            "-p a file",
            Box::new(|s| {
                std::fs::write(s.join("one.toml"), POLICY).unwrap();
                search(s, |d| d.flags = vec![s.join("one.toml")])
            }),
            false,
            false,
        ),
        (
            "-p builtin:secrets --no-builtin",
            Box::new(|s| {
                search(s, |d| {
                    d.flags = vec!["builtin:secrets".into()];
                    d.no_builtin = true;
                })
            }),
            false,
            false,
        ),
        // Split at `:`, so `builtin:secrets` is two files that do not exist.
        (
            "HOOKRULES_POLICIES=builtin:secrets",
            Box::new(|s| search(s, |d| d.env = Some("builtin:secrets".into()))),
            false,
            false,
        ),
        (
            "HOOKRULES_POLICIES=:",
            Box::new(|s| search(s, |d| d.env = Some(":".into()))),
            true,
            true,
        ),
        (
            "HOOKRULES_POLICIES=' ' (blank: the layers)",
            Box::new(|s| search(s, |d| d.env = Some(" ".into()))),
            true,
            true,
        ),
        (
            "HOOKRULES_POLICIES=a file",
            Box::new(|s| {
                std::fs::write(s.join("one.toml"), POLICY).unwrap();
                search(s, |d| {
                    d.env = Some(s.join("one.toml").display().to_string())
                })
            }),
            false,
            false,
        ),
        (
            "a project policy",
            Box::new(|s| {
                let dir = s.join("proj/.claude/hookrules");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("p.toml"), POLICY).unwrap();
                search(s, |_| {})
            }),
            false,
            false,
        ),
        (
            "a local policy only",
            Box::new(|s| {
                let dir = s.join("proj/.claude/hookrules");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("me.local.toml"), POLICY).unwrap();
                search(s, |_| {})
            }),
            false,
            false,
        ),
        (
            "a user policy",
            Box::new(|s| {
                let dir = s.join("config/hookrules");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("u.toml"), POLICY).unwrap();
                search(s, |_| {})
            }),
            false,
            false,
        ),
        (
            "a user policy that turns the pack off",
            Box::new(|s| {
                let dir = s.join("config/hookrules");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(
                    dir.join("u.toml"),
                    format!("[policy]\nbuiltin = false\n{POLICY}"),
                )
                .unwrap();
                search(s, |_| {})
            }),
            false,
            false,
        ),
        (
            "an empty project policy folder (unsure: false)",
            Box::new(|s| {
                std::fs::create_dir_all(s.join("proj/.claude/hookrules")).unwrap();
                search(s, |_| {})
            }),
            false,
            true,
        ),
        (
            "a project policy folder that is a link to a folder of policies",
            Box::new(|s| {
                let dir = s.join("elsewhere");
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join("p.toml"), POLICY).unwrap();
                std::fs::create_dir_all(s.join("proj/.claude")).unwrap();
                std::os::unix::fs::symlink(&dir, s.join("proj/.claude/hookrules")).unwrap();
                search(s, |_| {})
            }),
            false,
            false,
        ),
        (
            "a FIFO where the project policy folder would be",
            Box::new(|s| {
                std::fs::create_dir_all(s.join("proj/.claude")).unwrap();
                let c = std::ffi::CString::new(s.join("proj/.claude/hookrules").to_str().unwrap())
                    .unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
                search(s, |_| {})
            }),
            true,
            true,
        ),
    ];
    for (what, setup, alone, finds_pack) in &cases {
        let _ = std::fs::remove_dir_all(s);
        std::fs::create_dir_all(s).unwrap();
        let d = setup(s);
        assert_eq!(d.builtin_alone(), *alone, "{what}");
        assert_eq!(
            names(&d).as_ref() == Some(&pack),
            *finds_pack,
            "{what}: find() gives {:?}",
            names(&d)
        );
    }
}

/// `run` as a process with no policy anywhere and the cache off: the embedded
/// pack answers, the same as the pack compiled from its TOML, and no cache is written.
#[test]
fn run_with_the_cache_off_answers_from_the_binary() {
    use std::process::Command;
    let tmp = tempfile::tempdir().unwrap();
    let run = |extra: &[(&str, &str)]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_hookrules"));
        cmd.arg("run")
            .env_clear()
            .env("HOME", tmp.path().join("home"))
            .env("CLAUDE_PROJECT_DIR", tmp.path().join("proj"))
            .env("HOOKRULES_CACHE", "off")
            .env("HOOKRULES_LOG", "off");
        for (k, v) in extra {
            cmd.env(k, v);
        }
        let out = crate::support::feed_bytes(
            &mut cmd,
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf /"},"session_id":"s"}"#,
        )
        .stdout;
        // The decision, without the allow-once code (new on each call).
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        v["hookSpecificOutput"].to_string()
    };
    let embedded = run(&[]);
    assert!(
        embedded.contains(r#""permissionDecision":"deny""#),
        "{embedded}"
    );
    assert_eq!(embedded, run(&[("HOOKRULES_EMBEDDED", "off")]));
    assert!(!tmp.path().join("home/.cache").exists(), "no cache written");
}
