//! `schemas/policy.schema.json` is generated from the parser's own types
//! (`hookrules schema`); this test fails when they drift apart.

#[test]
fn committed_schema_matches_the_parser_types() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schemas/policy.schema.json");
    let committed = std::fs::read_to_string(&path).expect("schemas/policy.schema.json exists");
    let generated = hookrules::cli::schema_json();
    assert!(
        committed.trim() == generated.trim(),
        "the schema is stale: run `cargo run -q -- schema > schemas/policy.schema.json`"
    );
}

#[test]
fn schema_rejects_unknown_keys_like_the_parser() {
    let v: serde_json::Value = serde_json::from_str(&hookrules::cli::schema_json()).unwrap();
    let text = v.to_string();
    assert!(
        text.contains("\"additionalProperties\":false"),
        "deny_unknown_fields must show in the schema"
    );
    for key in [
        "\"rule\"",
        "\"lists\"",
        "\"facts\"",
        "\"matches_all\"",
        "\"flags_all\"",
        "\"append_jsonl\"",
    ] {
        assert!(text.contains(key), "schema lacks {key}");
    }
}
