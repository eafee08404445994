//! The compiled-set artifact is never trusted as is (issue 13 item 6): edited,
//! truncated, swapped, replaced by a folder, a FIFO or a link, or stale, it is
//! detected and the set is built from the policies, so `rm -rf /` stays denied.
//! Runs the real binary against a project set up the way `init` leaves it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hookrules"))
}

/// A project whose policy extends the built-in pack, and a cache folder.
struct Sandbox {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Sandbox {
    fn new(policy: &str) -> Sandbox {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let pol = root.join("proj/.claude/hookrules");
        std::fs::create_dir_all(&pol).unwrap();
        std::fs::create_dir_all(root.join("xdg")).unwrap();
        std::fs::write(pol.join("project.toml"), policy).unwrap();
        let s = Sandbox { _dir: dir, root };
        s.age();
        s
    }

    /// Files written just now are not cached (their time stamps could hide a
    /// second change): wait until they are old enough.
    fn age(&self) {
        std::thread::sleep(std::time::Duration::from_millis(2100));
    }

    fn cache(&self) -> PathBuf {
        self.root.join("cache")
    }

    fn artifact(&self) -> PathBuf {
        let files: Vec<PathBuf> = std::fs::read_dir(self.cache())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "hrc"))
            .collect();
        assert_eq!(files.len(), 1, "one artifact: {files:?}");
        files[0].clone()
    }

    fn state(&self) -> PathBuf {
        self.root.join("home/.local/state/hookrules")
    }

    fn doctor(&self) -> String {
        let out = Command::new(bin())
            .arg("doctor")
            .env_clear()
            .env("HOME", self.root.join("home"))
            .env("XDG_CONFIG_HOME", self.root.join("xdg"))
            .env("CLAUDE_PROJECT_DIR", self.root.join("proj"))
            .env("HOOKRULES_CACHE_DIR", self.cache())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn run(&self, command: &str) -> String {
        self.run_in(&self.root.join("proj"), command)
    }

    /// [`Sandbox::run`] in another project of the same user.
    fn run_in(&self, project: &Path, command: &str) -> String {
        let event = serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "session_id": "s",
            "cwd": project,
        });
        let mut child = Command::new(bin())
            .arg("run")
            .env_clear()
            .env("HOME", self.root.join("home"))
            .env("XDG_CONFIG_HOME", self.root.join("xdg"))
            .env("CLAUDE_PROJECT_DIR", project)
            .env("HOOKRULES_CACHE_DIR", self.cache())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(event.to_string().as_bytes())
            .unwrap();
        let out = wait(child);
        String::from_utf8(out).unwrap()
    }
}

/// Wait at most 10 s: a FIFO in the cache must never hang the hook.
fn wait(mut child: std::process::Child) -> Vec<u8> {
    let start = std::time::Instant::now();
    loop {
        if let Some(_status) = child.try_wait().unwrap() {
            let mut out = vec![];
            use std::io::Read;
            child.stdout.take().unwrap().read_to_end(&mut out).unwrap();
            return out;
        }
        if start.elapsed().as_secs() > 10 {
            let _ = child.kill();
            panic!("hookrules did not answer within 10 s");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

const STARTER: &str = r#"
[policy]
name = "project"
extends = ["builtin:destructive", "builtin:secrets", "builtin:system-paths"]

[[rule]]
id = "no-npm-publish"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["npm"], subcommand = ["publish"] } }
decision = "ask"
reason = "publishing needs the user"
"#;

fn denied(answer: &str) -> bool {
    answer.contains(r#""permissionDecision":"deny""#)
}

fn replace_all(bytes: &mut [u8], from: &[u8], to: &[u8]) -> usize {
    assert_eq!(from.len(), to.len());
    let mut n = 0;
    let mut i = 0;
    while i + from.len() <= bytes.len() {
        if &bytes[i..i + from.len()] == from {
            bytes[i..i + from.len()].copy_from_slice(to);
            n += 1;
            i += from.len();
        } else {
            i += 1;
        }
    }
    n
}

#[test]
fn a_tampered_artifact_never_lets_rm_rf_root_through() {
    let s = Sandbox::new(STARTER);
    assert!(denied(&s.run("rm -rf /")), "cold");
    let path = s.artifact();
    let good = std::fs::read(&path).unwrap();
    assert!(denied(&s.run("rm -rf /")), "warm");
    assert!(s
        .run("npm publish")
        .contains(r#""permissionDecision":"ask""#));

    type Tamper = Box<dyn Fn(&Path, &[u8])>;
    let write = |p: &Path, b: &[u8]| {
        let _ = std::fs::remove_file(p);
        let _ = std::fs::remove_dir_all(p);
        std::fs::write(p, b).unwrap();
    };
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "one event name edited (PreToolUse -> PreToolUsf)",
            Box::new(move |p, b| {
                let mut b = b.to_vec();
                assert!(replace_all(&mut b, b"PreToolUse", b"PreToolUsf") > 0);
                write(p, &b)
            }),
        ),
        (
            "a program name edited (rm -> rx)",
            Box::new(move |p, b| {
                let mut b = b.to_vec();
                assert!(replace_all(&mut b, b"\x02rm", b"\x02rx") > 0);
                write(p, &b)
            }),
        ),
        (
            "the decision byte of every rule flipped",
            Box::new(move |p, b| {
                let mut b = b.to_vec();
                let n = b.len();
                for i in (40..n).step_by(97) {
                    b[i] ^= 0x01;
                }
                write(p, &b)
            }),
        ),
        (
            // The index of rules' spans is not covered by the header's tag:
            // each rule's record is bound to its number instead.
            "the rules' spans in the index rotated (each names another rule's record)",
            Box::new(move |p, b| {
                let index = hookrules::compile::artifact::index_of(b).unwrap();
                assert!(index.rules.len() > 12);
                let mut b = b.to_vec();
                b[index.rules].rotate_left(12);
                write(p, &b)
            }),
        ),
        (
            "truncated to half",
            Box::new(move |p, b| write(p, &b[..b.len() / 2])),
        ),
        ("emptied", Box::new(move |p, _| write(p, b""))),
        (
            "the header length made huge",
            Box::new(move |p, b| {
                let mut b = b.to_vec();
                b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
                write(p, &b)
            }),
        ),
        (
            "replaced by a folder",
            Box::new(move |p, _| {
                let _ = std::fs::remove_file(p);
                std::fs::create_dir_all(p).unwrap();
            }),
        ),
        (
            "replaced by a FIFO",
            Box::new(move |p, _| {
                let _ = std::fs::remove_file(p);
                let c = std::ffi::CString::new(p.to_str().unwrap()).unwrap();
                assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
            }),
        ),
        (
            "replaced by a link to another set's artifact",
            Box::new(move |p, _| {
                let other = p.with_extension("other");
                std::fs::write(&other, b"HRSET001").unwrap();
                let _ = std::fs::remove_file(p);
                std::os::unix::fs::symlink(&other, p).unwrap();
            }),
        ),
    ];
    for (what, tamper) in &cases {
        tamper(&path, &good);
        let answer = s.run("rm -rf /");
        assert!(denied(&answer), "{what}: {answer}");
        // The next run finds a good artifact again (rebuilt) or builds anew.
        let _ = std::fs::remove_dir_all(&path);
        let _ = std::fs::remove_file(&path);
        std::fs::write(&path, &good).unwrap();
        let ino = |p: &Path| std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(p).unwrap());
        let before = ino(&path);
        assert!(denied(&s.run("rm -rf /")), "{what}: restored");
        assert_eq!(
            before,
            ino(&path),
            "{what}: the restored artifact is used, not rebuilt"
        );
    }
}

/// A policy's head (its name and modes) is a record of its own, read only
/// for the policies whose rules an event reaches, and bound to the policy's
/// number: the index of the heads' spans, which no tag covers, cannot hand a
/// policy's rules another policy's head.
#[test]
fn a_policy_never_takes_another_policys_head() {
    use hookrules::compile::artifact::{index_of, reseal, Seal};
    use hookrules::os::state::UserKey;
    // Its head says the first matching rule decides alone: `ask`, not the
    // stricter `deny` of its second rule.
    let s = Sandbox::new(
        r#"
[policy]
name = "first-match"
combine = "first-match"

[[rule]]
id = "curl-asks"
priority = 1
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["curl"] } }
decision = "ask"
reason = "curl needs the user"

[[rule]]
id = "curl-denied"
priority = 2
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["curl"] } }
decision = "deny"
reason = "curl is denied"
"#,
    );
    let curl = "curl https://example.com";
    let first = |answer: &str| answer.contains(r#""permissionDecision":"ask""#);
    assert!(first(&s.run(curl)), "cold");
    let path = s.artifact();
    let good = std::fs::read(&path).unwrap();
    assert!(first(&s.run(curl)), "warm, from the cache");
    // Every policy's span names the next policy's head: the project policy's
    // rules get the built-in pack's first head (every rule contributes).
    let index = index_of(&good).unwrap();
    assert!(index.policies.len() >= 2 * 12, "several policies");
    let mut rotated = good.clone();
    rotated[index.policies].rotate_left(12);

    // Control: sealed with the user's own key, the rotated heads are read,
    // and the stricter rule decides too.
    let key = UserKey::load(&s.state()).expect("run made the user's key");
    std::fs::write(&path, reseal(&rotated, &Seal::keyed(&key)).unwrap()).unwrap();
    let answer = s.run(curl);
    assert!(denied(&answer), "control: the heads were swapped: {answer}");

    // As anyone else leaves it: each head's tag was made for its own policy,
    // so the file is not used and the set is built from the policies.
    std::fs::write(&path, &rotated).unwrap();
    let answer = s.run(curl);
    assert!(first(&answer), "rotated heads: {answer}");
}

#[test]
fn an_artifact_from_another_policy_set_is_not_used() {
    // Build the artifact of a permissive set, then put it where the strict set's
    // artifact goes: its stamps name other files, so it is rebuilt.
    let strict = Sandbox::new(STARTER);
    assert!(denied(&strict.run("rm -rf /")));
    let loose = Sandbox::new("[[rule]]\nid = \"hello\"\nevents = [\"Stop\"]\nmessage = \"hi\"\n");
    let _ = loose.run("rm -rf /");
    let loose_bytes = std::fs::read(loose.artifact()).unwrap_or_default();
    if !loose_bytes.is_empty() {
        std::fs::write(strict.artifact(), &loose_bytes).unwrap();
        assert!(denied(&strict.run("rm -rf /")));
    }
}

#[test]
fn an_edited_policy_is_seen_at_once() {
    let s = Sandbox::new(STARTER);
    assert!(s.run("npm publish").contains("\"ask\""));
    let p = s.root.join("proj/.claude/hookrules/project.toml");
    std::fs::write(
        &p,
        STARTER.replace("decision = \"ask\"", "decision = \"deny\""),
    )
    .unwrap();
    assert!(
        denied(&s.run("npm publish")),
        "the edit applies to the next event"
    );
    s.age();
    assert!(denied(&s.run("npm publish")));
    assert!(
        denied(&s.run("npm publish")),
        "and from the rebuilt artifact"
    );
}

/// The stamps of what a cached set was built from are read where they lie
/// (paths front-coded, `stat`'s answers compared as bytes): a file edited,
/// added or removed among several in one folder (paths that share all but
/// their last bytes) is seen by the next event, the cache built before it
/// not used. The edited file gains a rule for an event none of its rules
/// reached before.
#[test]
fn a_policy_file_edited_added_or_removed_among_many_is_seen_at_once() {
    let s = Sandbox::new(STARTER);
    let dir = s.root.join("proj/.claude/hookrules");
    let stop_only = |n: usize| {
        format!(
            "[policy]\nname = \"p{n}\"\n\n[[rule]]\nid = \"hello-{n}\"\nevents = [\"Stop\"]\nmessage = \"hi\"\n"
        )
    };
    for n in 10..16 {
        std::fs::write(dir.join(format!("p{n}.toml")), stop_only(n)).unwrap();
    }
    let deny_make = |n: usize| {
        format!(
            "{}\n[[rule]]\nid = \"no-make-{n}\"\nevents = [\"PreToolUse\"]\nmatcher = \"Bash\"\nwhen = {{ commands = \"tool_input.command\", command = {{ program = [\"make\"] }} }}\ndecision = \"deny\"\nreason = \"no make here\"\n",
            stop_only(n)
        )
    };
    // Before each change: a cache built from the folder as it is, and used.
    let cached = || {
        s.age();
        let _ = s.run("make");
        let before = std::fs::read(s.artifact()).unwrap();
        let answer = s.run("make");
        assert_eq!(
            std::fs::read(s.artifact()).unwrap(),
            before,
            "used, not rebuilt"
        );
        answer
    };
    assert!(!denied(&cached()), "no rule for make yet");
    // Edited: the middle file of the folder gains a rule for Bash.
    std::fs::write(dir.join("p12.toml"), deny_make(12)).unwrap();
    assert!(denied(&s.run("make")), "edited file seen at once");
    assert!(denied(&cached()), "and cached");
    // Removed.
    std::fs::remove_file(dir.join("p12.toml")).unwrap();
    assert!(!denied(&s.run("make")), "removed file seen at once");
    assert!(!denied(&cached()));
    // Added, between two others (p12 sorts between p11 and p13 again).
    std::fs::write(dir.join("p120.toml"), deny_make(120)).unwrap();
    assert!(denied(&s.run("make")), "added file seen at once");
    assert!(denied(&cached()));
    // Replaced by a file of the same size and content (another inode).
    let p = dir.join("p120.toml");
    std::fs::write(dir.join("x.tmp"), stop_only(120).replace("hi", "ho")).unwrap();
    std::fs::rename(dir.join("x.tmp"), &p).unwrap();
    assert!(!denied(&s.run("make")), "replaced file seen at once");
}

/// The red team's attack on the cache (issue 26 item 3): rewrite what the records
/// say and recompute every hash the file carries. The cache's tags are MACs under
/// the user's key, which the attacker does not have, so the file is not used
/// (`rm -rf /` stays denied), it is replaced by a set built from the policies, and
/// `doctor` reports it, before the next `run` and after it.
#[test]
fn a_cache_rewritten_with_every_hash_recomputed_is_not_used_and_doctor_reports_it() {
    use hookrules::compile::artifact::{reseal, Seal};
    use hookrules::os::state::UserKey;
    let s = Sandbox::new(STARTER);
    assert!(denied(&s.run("rm -rf /")), "cold");
    let path = s.artifact();
    let good = std::fs::read(&path).unwrap();
    assert!(denied(&s.run("rm -rf /")), "warm, from the cache");
    // The edit: PreToolUse events no longer reach their rules.
    let mut edited = good.clone();
    assert!(replace_all(&mut edited, b"PreToolUse", b"PreToolUsf") > 0);

    // Control: sealed with the user's own key (which only hookrules reads), the
    // edited file is used and the edit takes effect. So what stops the forgeries
    // below is the key, and this test would see a check that let them through.
    let key = UserKey::load(&s.state()).expect("run made the user's key");
    std::fs::write(&path, reseal(&edited, &Seal::keyed(&key)).unwrap()).unwrap();
    assert!(
        !denied(&s.run("rm -rf /")),
        "control: a cache sealed with the user's key is trusted"
    );

    let forgers: Vec<(&str, Seal)> = vec![
        ("every public hash recomputed", Seal::Public),
        (
            "sealed with a key of the attacker's own",
            Seal::keyed(&UserKey::from_bytes([7; 32])),
        ),
    ];
    for (how, seal) in forgers {
        let forged = reseal(&edited, &seal).unwrap();
        std::fs::write(&path, &forged).unwrap();
        let report = s.doctor();
        assert!(
            report.contains("does not verify under your key"),
            "{how}: doctor reports the forged cache before any run:\n{report}"
        );
        assert!(denied(&s.run("rm -rf /")), "{how}: not used");
        assert_ne!(
            std::fs::read(&path).unwrap(),
            forged,
            "{how}: replaced by a set built from the policies"
        );
        assert!(
            denied(&s.run("rm -rf /")),
            "{how}: and the rebuilt one denies"
        );
        let report = s.doctor();
        assert!(
            report.contains("cache-forged"),
            "{how}: doctor reports it after run replaced it:\n{report}"
        );
    }
}

/// Issue 30: `doctor` reads the cache with `run`'s own reader
/// (`artifact::cache_check`, every record checked) and says, as a warning with
/// what to do, that an entry `run` will not use is unusable or tampered, and
/// whether the next `run` rebuilds it: cut short, a byte of the header
/// changed, sealed under another key, another project's set under this one's
/// name (rebuilt); a byte of a record or of the index changed (never used,
/// but the file stays: doctor says to remove it). (A truncated file was used
/// by no `run`, but `doctor` said nothing.) Once rebuilt, the cache is in use
/// again and doctor says nothing against it.
#[test]
fn doctor_says_which_cache_entry_run_will_not_use_and_that_it_is_rebuilt() {
    use hookrules::compile::artifact::{reseal, Seal};
    use hookrules::os::state::UserKey;
    let s = Sandbox::new(STARTER);
    assert!(denied(&s.run("rm -rf /")), "cold");
    let path = s.artifact();
    let good = std::fs::read(&path).unwrap();
    let shown = path.display().to_string();
    // The findings about the cache file that are not `ok` (the record of
    // forgeries refused names it too, on a line of its own).
    let about = |report: &str| -> Vec<String> {
        report
            .lines()
            .filter(|l| l.contains(&shown) && (l.starts_with("warn") || l.starts_with("error")))
            .map(str::to_string)
            .collect()
    };
    let report = s.doctor();
    assert!(
        report.contains(&format!("compiled set: from the cache, {shown}"))
            && about(&report).is_empty(),
        "control: a good cache is in use, and nothing is said against it:\n{report}"
    );

    // Another project of the same user: its own cache file, under the same key.
    let other = s.root.join("other");
    std::fs::create_dir_all(other.join(".claude/hookrules")).unwrap();
    std::fs::write(other.join(".claude/hookrules/project.toml"), "").unwrap();
    s.age();
    let _ = s.run_in(&other, "ls");
    let others: Vec<PathBuf> = std::fs::read_dir(s.cache())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| *p != path && p.extension().is_some_and(|e| e == "hrc"))
        .collect();
    assert_eq!(others.len(), 1, "{others:?}");
    let swapped = std::fs::read(&others[0]).unwrap();

    let flipped = |at: usize| {
        let mut b = good.clone();
        b[at] ^= 0xff;
        b
    };
    let key = UserKey::from_bytes([7; 32]);
    // What doctor says, and whether `run` replaces the file (a record that
    // does not verify is never used, but the file stays: doctor says to
    // remove it).
    let cases: Vec<(&str, Vec<u8>, &str, bool)> = vec![
        (
            "truncated to 300 bytes",
            good[..300].to_vec(),
            "cut short or damaged",
            true,
        ),
        (
            "truncated to half",
            good[..good.len() / 2].to_vec(),
            "cut short or damaged",
            true,
        ),
        (
            "a byte of the header flipped",
            flipped(40),
            "does not verify under your key",
            true,
        ),
        (
            "sealed under another key",
            reseal(&good, &Seal::keyed(&key)).unwrap(),
            "does not verify under your key",
            true,
        ),
        (
            "another project's set under this name",
            swapped,
            "another policy search",
            true,
        ),
        (
            "a byte of a record flipped",
            flipped(good.len() / 2),
            "a record in it",
            false,
        ),
        (
            "a byte of the index flipped",
            flipped(good.len() - 200),
            "a record in it",
            false,
        ),
    ];
    for (what, bytes, says, replaced) in cases {
        std::fs::write(&path, &bytes).unwrap();
        let report = s.doctor();
        let lines = about(&report);
        assert!(
            lines.len() == 1
                && lines[0].starts_with("warn")
                && lines[0].contains(says)
                && lines[0].contains("Nothing is turned off")
                && (!replaced
                    || lines[0].contains("replaces the file on its next call")
                    || lines[0].contains("rebuilds the file on its next call"))
                && (replaced || lines[0].contains("remove it")),
            "{what}: doctor warns, says why, whether it is rebuilt, and what to do:\n{report}"
        );
        assert!(denied(&s.run("rm -rf /")), "{what}: rm -rf / stays denied");
        let now = std::fs::read(&path).unwrap();
        if replaced {
            assert!(now != bytes, "{what}: run replaced it");
        } else {
            assert!(now == bytes, "{what}: run keeps it, as doctor says");
            assert!(
                !about(&s.doctor()).is_empty(),
                "{what}: doctor still says so"
            );
            std::fs::remove_file(&path).unwrap();
            assert!(denied(&s.run("rm -rf /")), "{what}: removed");
        }
        let report = s.doctor();
        assert!(
            report.contains(&format!("compiled set: from the cache, {shown}"))
                && about(&report).is_empty(),
            "{what}: the rebuilt cache is in use:\n{report}"
        );
    }
}
