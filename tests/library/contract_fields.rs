//! The contract tables `check` reads (`src/contract/fields.rs`) agree with the
//! client's own events: every field of every reference sample (`tests/samples`,
//! captured from the real client) is listed for its event, tool input and tool
//! response, and every field the tables call always-present is there.

use std::path::PathBuf;

use hookrules::contract::events;
use hookrules::contract::fields::{self, Field, Presence, Shape};
use serde_json::Value;

fn samples() -> Vec<(String, Value)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/samples");
    let mut v: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                // As rules see it: recognised and canonical, with `host` and `tool_class`.
                hookrules::contract::Event::from_value(serde_json::from_str(&text).unwrap())
                    .unwrap()
                    .value,
            )
        })
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(v.len() >= 40, "expected the reference samples");
    v
}

/// Problems with `value` against `fields` (`complete`: no other keys allowed).
fn check_object(
    what: &str,
    value: &Value,
    fields: &[Field],
    complete: bool,
    out: &mut Vec<String>,
) {
    let Some(obj) = value.as_object() else {
        out.push(format!("{what}: not an object"));
        return;
    };
    for (k, v) in obj {
        match Field::find(fields, k) {
            Some(f) => check_shape(&format!("{what}.{k}"), v, &f.shape, out),
            None if complete => out.push(format!("{what}: `{k}` is not in the table")),
            None => {}
        }
    }
    for f in fields {
        if f.presence == Presence::Always && !obj.contains_key(f.name) {
            out.push(format!("{what}: always-present `{}` is missing", f.name));
        }
    }
}

fn check_shape(what: &str, v: &Value, shape: &Shape, out: &mut Vec<String>) {
    match (shape, v) {
        (Shape::Text, Value::String(_))
        | (Shape::Number, Value::Number(_))
        | (Shape::Bool, Value::Bool(_))
        | (Shape::Any, _)
        | (Shape::ToolInput | Shape::ToolResponse, _) => {}
        // Optional values may be null.
        (_, Value::Null) => {}
        (Shape::List(item), Value::Array(a)) => {
            for (i, x) in a.iter().enumerate() {
                check_shape(&format!("{what}.{i}"), x, item, out);
            }
        }
        (Shape::Object(f), Value::Object(_)) => check_object(what, v, f, true, out),
        (Shape::OpenObject(f), Value::Object(_)) => check_object(what, v, f, false, out),
        (s, v) => out.push(format!("{what}: expected {s:?}, got {v}")),
    }
}

#[test]
fn every_sample_field_is_in_the_tables() {
    let mut problems = vec![];
    for (name, ev) in samples() {
        let event = ev["hook_event_name"].as_str().unwrap();
        let spec = events::spec(event).unwrap_or_else(|| panic!("{name}: unknown event"));
        let mut all: Vec<Field> = spec.fields.to_vec();
        for f in fields::COMMON {
            if Field::find(&all, f.name).is_none() {
                all.push(*f);
            }
        }
        // Events are open in the reference, but the samples must be fully described.
        check_object(&name, &ev, &all, true, &mut problems);
        if let Some(tool) = ev["tool_name"].as_str() {
            match fields::tool_input(tool) {
                Some((f, complete)) => check_object(
                    &format!("{name} tool_input"),
                    &ev["tool_input"],
                    f,
                    complete,
                    &mut problems,
                ),
                None if tool.starts_with("mcp__") => {}
                None => problems.push(format!("{name}: no tool_input table for {tool}")),
            }
            if ev.get("tool_response").is_some() && event == "PostToolUse" {
                match fields::tool_response(tool) {
                    Some(f) => check_object(
                        &format!("{name} tool_response"),
                        &ev["tool_response"],
                        f,
                        false,
                        &mut problems,
                    ),
                    None if tool.starts_with("mcp__") => {}
                    None => problems.push(format!("{name}: no tool_response table for {tool}")),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn tool_names_in_matchers_and_tables_are_the_clients() {
    for t in fields::LEGACY_TOOLS {
        let current = fields::current_tool_name(t);
        assert!(
            *t == "MultiEdit" || fields::TOOLS.contains(&current),
            "{t} maps to {current}, not a current tool"
        );
        assert_eq!(
            events::tool_aliases(current).contains(t),
            *t != "MultiEdit",
            "{t}: the matcher's alias table and the contract's disagree"
        );
    }
}
