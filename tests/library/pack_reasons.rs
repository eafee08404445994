//! Every built-in pack's deny and ask reasons teach: they name the rule, say
//! where the danger points (the command or the path, quoted from the event), and
//! give the safe alternative or the way forward (a command in backquotes, or
//! what to ask or tell the user). The verdicts themselves are the corpus's job
//! (`tests/library/corpus.rs`); this checks the text the model reads.

use hookrules::policy::discover::{BUILTIN, OPT_IN};

/// Reasons that show the model a way forward mention one of these.
const WAY_FORWARD: &[&str] = &[
    "`",
    "ask the user",
    "tell the user",
    "confirm",
    "The user confirms",
];

#[test]
fn every_deny_and_ask_reason_names_the_rule_the_target_and_a_way_forward() {
    let mut problems = vec![];
    let mut checked = 0;
    for (name, text) in BUILTIN.iter().chain(OPT_IN) {
        let doc: toml::Table =
            toml::from_str(text).unwrap_or_else(|e| panic!("builtin:{name}: {e}"));
        let rules = doc
            .get("rule")
            .and_then(|r| r.as_array())
            .cloned()
            .unwrap_or_default();
        for rule in rules {
            let id = rule["id"].as_str().unwrap_or("?");
            let decision = rule.get("decision").and_then(|d| d.as_str()).unwrap_or("");
            if !matches!(decision, "deny" | "ask") {
                continue;
            }
            checked += 1;
            let reason = rule.get("reason").and_then(|r| r.as_str()).unwrap_or("");
            if !reason.contains("{{ rule.id }}") {
                problems.push(format!(
                    "builtin:{name} {id}: the reason does not name the rule"
                ));
            }
            let tool = rule.get("matcher").and_then(|m| m.as_str()).unwrap_or("");
            // The command or path as written, or the path where the write
            // lands (`captures.target`, from a location-class test).
            let points = reason.contains("{{ event.tool_input.")
                || reason.contains("{{ captures.target")
                // The fork bomb is its own target: saying what it is, is where it points;
                // self-protection names the files it protects.
                || ["fork-bomb", "self-config-shell"].contains(&id);
            if !points {
                problems.push(format!(
                    "builtin:{name} {id} ({tool}): the reason does not quote the command or path"
                ));
            }
            let lower = reason.to_lowercase();
            if !WAY_FORWARD
                .iter()
                .any(|w| reason.contains(w) || lower.contains(&w.to_lowercase()))
            {
                problems.push(format!(
                    "builtin:{name} {id}: the reason gives no safe alternative or way forward"
                ));
            }
        }
    }
    assert!(checked > 40, "only {checked} rules checked");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
