//! Arbitrary bytes as a policy file: read, parse, validate (every rule, every
//! pattern compiled eagerly, as `hookrules check` does), lint, compile the
//! templates, and build the bucket for one event. Nothing may panic.
#![no_main]

use std::path::PathBuf;

use hookrules::compile::{self, Templates};
use hookrules::policy::parse;
use hookrules::source::{Origin, PolicySource};
use hookrules::validate::{self, lints};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // What `run` does with a file it cannot decode: sniff the failure mode of
    // the lossy text (bytes that are not UTF-8 still reach this).
    let lossy = String::from_utf8_lossy(data);
    let _ = validate::sniff_failure_mode(&lossy);
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let source = PolicySource::new(Origin::File(PathBuf::from("fuzz.toml")), text);
    let raw = match parse::parse(&source) {
        Ok(raw) => raw,
        Err(d) => {
            let _ = d.one_line();
            return;
        }
    };
    let v = validate::validate_with(&source, &raw, &|_| true, true);
    let _ = lints::lint(&v, &raw);
    for d in &v.diagnostics {
        let _ = d.one_line();
    }
    let mut templates = Templates::new();
    for rule in &v.policy.rules {
        let _ = templates.add_rule(0, &v.policy, rule);
    }
    for fact in v.policy.facts.values() {
        let _ = templates.add_fact(0, &v.policy, fact);
    }
    // The path `run` takes: the compiled set, asked for PreToolUse/Bash.
    let mut found = hookrules::policy::discover::Found::default();
    found.sources.push(source);
    let set = compile::set::CompiledSet::build(&found);
    let event = hookrules::contract::Event::from_value(serde_json::json!({
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "rm -rf / && cat .env"}
    }))
    .expect("an event");
    let _ = set.for_event(&event, compile::set::Query { prefilter: true, explain: false });
});
