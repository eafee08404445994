//! Every decision names the policy set that made it (a SHA-256 over every
//! source, the built-in pack included) and its bundles; `report` and `replay`
//! group by it.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::sandbox::{bash, stdout, Sandbox};

const ASK_PUSH: &str = r#"
[[rule]]
id = "ask-before-push"
events = ["PreToolUse"]
matcher = "Bash"
when = { commands = "tool_input.command", command = { program = ["git"], subcommand = ["push"] } }
decision = "ask"
reason = "Pushing needs a person."
"#;

fn hash_of_last(sb: &Sandbox, cmd: &str, env: &[(&str, &str)]) -> String {
    let out = sb.run_with(&bash(cmd), &[], env);
    assert!(out.status.success(), "{out:?}");
    let r = sb.last();
    assert_eq!(r.summary.as_deref(), Some(cmd));
    assert_eq!(r.policy_hash.len(), 64, "{}", r.policy_hash);
    assert!(r.policy_hash.bytes().all(|b| b.is_ascii_hexdigit()));
    r.policy_hash
}

#[test]
fn each_decision_names_its_policy_set_and_the_hash_moves_with_any_policy() {
    let sb = Sandbox::new();
    // The built-in pack alone: from the artifact embedded in the binary, and
    // compiled in the process, the same set and the same hash.
    let pack = hash_of_last(&sb, "rm -rf /", &[]);
    let r = sb.last();
    assert_eq!(
        r.bundles
            .iter()
            .map(|b| (b.name.as_str(), b.version.as_str()))
            .collect::<Vec<_>>(),
        [("builtin", env!("CARGO_PKG_VERSION"))]
    );
    let off = [("HOOKRULES_EMBEDDED", "off"), ("HOOKRULES_CACHE", "off")];
    assert_eq!(hash_of_last(&sb, "rm -rf /", &off), pack);

    // A user policy: another set. Built, then read from the cache: the same.
    let user = sb.user_policy("mine.toml", ASK_PUSH);
    let with_user = hash_of_last(&sb, "git push origin main", &[]);
    assert_ne!(with_user, pack);
    assert_eq!(hash_of_last(&sb, "git push", &[]), with_user);
    assert_eq!(hash_of_last(&sb, "git push", &off), with_user);

    // One byte more in a project policy; then back as it was.
    let project = sb.project_policy("team.toml", "# team rules\n");
    let with_project = hash_of_last(&sb, "git push", &[]);
    assert_ne!(with_project, with_user);
    std::fs::write(&project, "# team rules \n").unwrap();
    let edited = hash_of_last(&sb, "git push", &[]);
    assert_ne!(edited, with_project);
    std::fs::write(&project, "# team rules\n").unwrap();
    assert_eq!(hash_of_last(&sb, "git push", &[]), with_project);

    // The same texts in another layer are another set.
    std::fs::remove_file(&project).unwrap();
    sb.project_policy("team.local.toml", "# team rules\n");
    assert_ne!(hash_of_last(&sb, "git push", &[]), with_project);

    // The pack turned off is another set, as is a part of it left out.
    std::fs::write(&user, format!("[policy]\nbuiltin = false\n{ASK_PUSH}")).unwrap();
    let no_pack = hash_of_last(&sb, "git push", &[]);
    assert!(sb.last().bundles.is_empty(), "{:?}", sb.last().bundles);
    std::fs::write(
        &user,
        format!("[policy]\nbuiltin = false\nextends = [\"builtin:destructive\"]\n{ASK_PUSH}"),
    )
    .unwrap();
    assert_ne!(hash_of_last(&sb, "git push", &[]), no_pack);
}

#[test]
fn a_versioned_policy_is_a_bundle_with_its_name_version_and_hash() {
    let sb = Sandbox::new();
    let text = format!("[policy]\nname = \"acme-guard\"\nversion = \"2.1.0\"\n{ASK_PUSH}");
    sb.project_policy("acme.toml", &text);
    sb.run(&bash("git push"));
    let r = sb.last();
    let acme = r
        .bundles
        .iter()
        .find(|b| b.name == "acme-guard")
        .unwrap_or_else(|| panic!("{:?}", r.bundles));
    assert_eq!(acme.version, "2.1.0");
    let digest: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(acme.hash, digest, "the SHA-256 of the file as written");
    assert_eq!(r.bundles[0].name, "builtin");
    // In the line as stored: name, version, hash, layer.
    let line = hookrules::log::store::read_lines(&sb.log_dir())
        .unwrap()
        .pop()
        .unwrap();
    let v: Value = serde_json::from_str(&line).unwrap();
    let stored = &v["bundles"][1];
    assert_eq!(stored["name"], "acme-guard");
    assert_eq!(stored["version"], "2.1.0");
    assert_eq!(stored["hash"], digest.as_str());
    assert_eq!(stored["layer"], "project");
}

#[test]
fn report_and_replay_group_decisions_by_policy_set() {
    let sb = Sandbox::new();
    let v1 = format!("[policy]\nname = \"acme\"\nversion = \"1\"\n{ASK_PUSH}");
    let policy = sb.project_policy("acme.toml", &v1);
    for cmd in ["git push", "git push origin", "rm -rf /"] {
        sb.run(&bash(cmd));
    }
    let first = sb.last().policy_hash;
    // v2 lets pushes through.
    std::fs::write(&policy, "[policy]\nname = \"acme\"\nversion = \"2\"\n").unwrap();
    for cmd in ["rm -rf ~", "git push"] {
        sb.run(&bash(cmd));
    }
    let second = sb.records()[3].policy_hash.clone();
    assert_ne!(first, second);

    let report = stdout(&sb.hr(&["report"]));
    let at = |h: &str| {
        report
            .lines()
            .position(|l| l.trim_start().starts_with(&h[..12]))
            .unwrap_or_else(|| panic!("{h} missing:\n{report}"))
    };
    let (a, b) = (at(&first), at(&second));
    assert!(a < b, "in the order first seen:\n{report}");
    let lines: Vec<&str> = report.lines().collect();
    assert!(
        lines[a].contains("3 event(s)")
            && lines[a].contains("ask 2")
            && lines[a].contains("deny 1"),
        "{report}"
    );
    assert!(lines[a + 1].contains("acme@1"), "{report}");
    assert!(
        lines[b].contains("1 event(s)") && lines[b].contains("deny 1"),
        "{report}"
    );
    assert!(lines[b + 1].contains("acme@2"), "{report}");

    // Replayed under v2: what v1 decided moves, what v2 decided does not.
    let out = sb.hr(&["replay", "--json"]);
    let v: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(v["policy_hash"], second.as_str());
    let sets = v["per_policy_set"].as_array().unwrap();
    assert_eq!(sets.len(), 2, "{v:#}");
    assert_eq!(sets[0]["hash"], first.as_str());
    assert_eq!(sets[0]["replayed"], 3);
    assert_eq!(sets[0]["counts"]["loosened"], 2, "{v:#}");
    assert_eq!(sets[1]["hash"], second.as_str());
    assert_eq!(sets[1]["replayed"], 1);
    assert_eq!(sets[1]["unchanged"], 1);
    let text = stdout(&sb.hr(&["replay"]));
    assert!(text.contains(&second[..12]), "{text}");
    assert!(text.contains("per policy set"), "{text}");
}
