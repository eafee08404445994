//! Decision records as OpenTelemetry log records (OTLP), and where to send
//! them: configured by the standard `OTEL_*` variables, so the settings that
//! send Claude Code's own telemetry send hookrules'.
//!
//! The messages are the few of the official protocol that an export of logs
//! uses (`opentelemetry/proto/collector/logs/v1/logs_service.proto`,
//! `logs/v1/logs.proto`, `common/v1/common.proto`, `resource/v1/resource.proto`
//! of opentelemetry-proto), declared for prost with the official field numbers.
//! [`to_json`] writes the same message in the OTLP/JSON mapping (lowerCamelCase
//! names, 64-bit integers as decimal strings, enums as numbers). The tests in
//! `tests/process/org/export.rs` decode both with the official Python bindings.
//!
//! Attributes follow OpenTelemetry's conventions where one exists
//! (`session.id`, `gen_ai.tool.name`, `service.name`, the record's
//! `event_name`), under `hookrules.` otherwise.

use crate::os::env::Env;
use std::time::Duration;

use serde_json::{json, Value};

use super::record::{Kind, Record};

/// `ExportLogsServiceRequest`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExportLogsServiceRequest {
    /// `resource_logs = 1`.
    #[prost(message, repeated, tag = "1")]
    pub resource_logs: Vec<ResourceLogs>,
}

/// `ResourceLogs`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResourceLogs {
    /// `resource = 1`.
    #[prost(message, optional, tag = "1")]
    pub resource: Option<Resource>,
    /// `scope_logs = 2`.
    #[prost(message, repeated, tag = "2")]
    pub scope_logs: Vec<ScopeLogs>,
}

/// `Resource`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Resource {
    /// `attributes = 1`.
    #[prost(message, repeated, tag = "1")]
    pub attributes: Vec<KeyValue>,
}

/// `ScopeLogs`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ScopeLogs {
    /// `scope = 1`.
    #[prost(message, optional, tag = "1")]
    pub scope: Option<InstrumentationScope>,
    /// `log_records = 2`.
    #[prost(message, repeated, tag = "2")]
    pub log_records: Vec<LogRecord>,
}

/// `InstrumentationScope`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct InstrumentationScope {
    /// `name = 1`.
    #[prost(string, tag = "1")]
    pub name: String,
    /// `version = 2`.
    #[prost(string, tag = "2")]
    pub version: String,
}

/// `LogRecord`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogRecord {
    /// `fixed64 time_unix_nano = 1`.
    #[prost(fixed64, tag = "1")]
    pub time_unix_nano: u64,
    /// `fixed64 observed_time_unix_nano = 11`.
    #[prost(fixed64, tag = "11")]
    pub observed_time_unix_nano: u64,
    /// `SeverityNumber severity_number = 2`.
    #[prost(int32, tag = "2")]
    pub severity_number: i32,
    /// `severity_text = 3`.
    #[prost(string, tag = "3")]
    pub severity_text: String,
    /// `body = 5`.
    #[prost(message, optional, tag = "5")]
    pub body: Option<AnyValue>,
    /// `attributes = 6`.
    #[prost(message, repeated, tag = "6")]
    pub attributes: Vec<KeyValue>,
    /// `event_name = 12`.
    #[prost(string, tag = "12")]
    pub event_name: String,
}

/// `KeyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct KeyValue {
    /// `key = 1`.
    #[prost(string, tag = "1")]
    pub key: String,
    /// `value = 2`.
    #[prost(message, optional, tag = "2")]
    pub value: Option<AnyValue>,
}

/// `AnyValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct AnyValue {
    /// `oneof value`.
    #[prost(oneof = "Any", tags = "1, 2, 3, 5")]
    pub value: Option<Any>,
}

/// `AnyValue.value` (the kinds hookrules sends).
#[derive(Clone, PartialEq, prost::Oneof)]
pub enum Any {
    /// `string_value = 1`.
    #[prost(string, tag = "1")]
    String(String),
    /// `bool_value = 2`.
    #[prost(bool, tag = "2")]
    Bool(bool),
    /// `int_value = 3`.
    #[prost(int64, tag = "3")]
    Int(i64),
    /// `array_value = 5`.
    #[prost(message, tag = "5")]
    Array(ArrayValue),
}

/// `ArrayValue`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ArrayValue {
    /// `values = 1`.
    #[prost(message, repeated, tag = "1")]
    pub values: Vec<AnyValue>,
}

fn text(s: impl Into<String>) -> AnyValue {
    AnyValue {
        value: Some(Any::String(s.into())),
    }
}

fn kv(key: &str, value: AnyValue) -> KeyValue {
    KeyValue {
        key: key.to_string(),
        value: Some(value),
    }
}

fn texts(list: &[String]) -> AnyValue {
    AnyValue {
        value: Some(Any::Array(ArrayValue {
            values: list.iter().map(|s| text(s.clone())).collect(),
        })),
    }
}

/// `SeverityNumber`: INFO.
const INFO: i32 = 9;
/// `SeverityNumber`: WARN.
const WARN: i32 = 13;
/// `SeverityNumber`: ERROR.
const ERROR: i32 = 17;

/// One decision record as a log record. `tool_use_id` is the event's.
pub fn log_record(r: &Record, observed_ms: i64) -> LogRecord {
    use crate::policy::syntax::DecisionKind;
    let decision = r.decision_word();
    let (severity_number, severity_text) = if !r.errors.is_empty() {
        (ERROR, "ERROR")
    } else if r.kind == Kind::Unguarded
        || matches!(
            r.decision,
            Some(DecisionKind::Deny | DecisionKind::Block | DecisionKind::Stop)
        )
    {
        (WARN, "WARN")
    } else {
        (INFO, "INFO")
    };
    let kind = match r.kind {
        Kind::Unguarded => "unguarded",
        Kind::Allow => "allow",
        Kind::Decision => "decision",
    };
    let mut a = vec![
        kv("hookrules.kind", text(kind)),
        kv("hookrules.decision", text(decision)),
        kv("hookrules.hook.event", text(r.event.clone())),
        kv("hookrules.policy.hash", text(r.policy_hash.clone())),
        kv(
            "hookrules.latency_us",
            AnyValue {
                value: Some(Any::Int(i64::try_from(r.us).unwrap_or(i64::MAX))),
            },
        ),
        kv("hookrules.version", text(r.version.clone())),
    ];
    if let Some(first) = r.rules.first() {
        a.push(kv("hookrules.rule.id", text(first.clone())));
        a.push(kv("hookrules.rule.ids", texts(&r.rules)));
        a.push(kv("hookrules.policies", texts(&r.policies)));
    }
    let optional = [
        // OpenTelemetry's attribute for a log record's unique id: a collector
        // can drop a record it got twice (a deliverer killed after the
        // collector's 2xx and before the cut sends its batch again).
        ("log.record.uid", Some(&r.id).filter(|i| !i.is_empty())),
        ("hookrules.host", Some(&r.host).filter(|h| !h.is_empty())),
        ("session.id", r.session.as_ref()),
        ("gen_ai.tool.name", r.tool.as_ref()),
        (
            "hookrules.project",
            Some(&r.project).filter(|p| !p.is_empty()),
        ),
        ("hookrules.summary", r.summary.as_ref()),
        ("hookrules.reason", r.reason.as_ref()),
    ];
    for (k, v) in optional {
        if let Some(v) = v {
            a.push(kv(k, text(v.clone())));
        }
    }
    if let Some(id) = r
        .input
        .as_ref()
        .and_then(|i| i.get("tool_use_id"))
        .and_then(Value::as_str)
    {
        a.push(kv("hookrules.tool_use_id", text(id)));
    }
    if !r.bundles.is_empty() {
        let b: Vec<String> = r
            .bundles
            .iter()
            .map(|b| format!("{}@{}:{}", b.name, b.version, b.hash))
            .collect();
        a.push(kv("hookrules.policy.bundles", texts(&b)));
    }
    if !r.audit.is_empty() {
        let rules: Vec<String> = r.audit.iter().map(|h| h.rule.clone()).collect();
        a.push(kv("hookrules.audit.rule.ids", texts(&rules)));
    }
    if !r.errors.is_empty() {
        a.push(kv("hookrules.errors", texts(&r.errors)));
    }
    if let Some(allow) = &r.allow {
        a.push(kv("hookrules.allow_once", text(allow.action.clone())));
    }
    let body = match (&r.tool, r.rules.first()) {
        (Some(tool), Some(rule)) => format!("{decision} {} {tool} by {rule}", r.event),
        (Some(tool), None) => format!("{decision} {} {tool}", r.event),
        (None, Some(rule)) => format!("{decision} {} by {rule}", r.event),
        (None, None) => format!("{decision} {}", r.event),
    };
    let nanos = |ms: i64| u64::try_from(ms).unwrap_or(0).saturating_mul(1_000_000);
    LogRecord {
        time_unix_nano: nanos(r.ms()),
        observed_time_unix_nano: nanos(observed_ms),
        severity_number,
        severity_text: severity_text.into(),
        body: Some(text(body)),
        attributes: a,
        event_name: format!("hookrules.{kind}"),
    }
}

/// The request for these log records, under this resource.
pub fn request(records: Vec<LogRecord>, resource: &[(String, String)]) -> ExportLogsServiceRequest {
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: resource
                    .iter()
                    .map(|(k, v)| kv(k, text(v.clone())))
                    .collect(),
            }),
            scope_logs: vec![ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: "hookrules".into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                }),
                log_records: records,
            }],
        }],
    }
}

/// The request in the OTLP/JSON mapping.
pub fn to_json(req: &ExportLogsServiceRequest) -> Value {
    fn any(v: &AnyValue) -> Value {
        match &v.value {
            Some(Any::String(s)) => json!({ "stringValue": s }),
            Some(Any::Bool(b)) => json!({ "boolValue": b }),
            Some(Any::Int(i)) => json!({ "intValue": i.to_string() }),
            Some(Any::Array(a)) => {
                json!({ "arrayValue": { "values": a.values.iter().map(any).collect::<Vec<_>>() } })
            }
            None => json!({}),
        }
    }
    fn kvs(list: &[KeyValue]) -> Value {
        list.iter()
            .map(|k| json!({ "key": k.key, "value": k.value.as_ref().map(any).unwrap_or(json!({})) }))
            .collect()
    }
    let resource_logs: Vec<Value> = req
        .resource_logs
        .iter()
        .map(|rl| {
            json!({
                "resource": { "attributes": kvs(rl.resource.as_ref().map(|r| r.attributes.as_slice()).unwrap_or(&[])) },
                "scopeLogs": rl.scope_logs.iter().map(|sl| json!({
                    "scope": sl.scope.as_ref().map(|s| json!({ "name": s.name, "version": s.version })),
                    "logRecords": sl.log_records.iter().map(|r| json!({
                        "timeUnixNano": r.time_unix_nano.to_string(),
                        "observedTimeUnixNano": r.observed_time_unix_nano.to_string(),
                        "severityNumber": r.severity_number,
                        "severityText": r.severity_text,
                        "body": r.body.as_ref().map(any),
                        "attributes": kvs(&r.attributes),
                        "eventName": r.event_name,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({ "resourceLogs": resource_logs })
}

/// How records go over the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protocol {
    /// `http/protobuf` (the default of the OTLP exporter specification).
    Protobuf,
    /// `http/json`.
    Json,
}

/// Where and how to send, from the `OTEL_*` variables.
#[derive(Debug, Clone)]
pub struct Target {
    /// The logs URL (`.../v1/logs`).
    pub url: String,
    /// The wire format.
    pub protocol: Protocol,
    /// Extra request headers.
    pub headers: Vec<(String, String)>,
    /// `OTEL_EXPORTER_OTLP_[LOGS_]TIMEOUT` (default 10 s).
    pub timeout: Duration,
    /// The resource's attributes (`service.name` first).
    pub resource: Vec<(String, String)>,
    /// Settings that could not be used as given.
    pub problems: Vec<String>,
}

impl Target {
    /// Read the standard variables: the logs-specific one first, then the
    /// general one, then the specification's default.
    pub fn from_env(env: &Env) -> Target {
        let get = |logs: &str, all: &str| {
            env.get(logs)
                .or_else(|| env.get(all))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let mut problems = vec![];
        let url = match (
            env.get("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT")
                .filter(|s| !s.trim().is_empty()),
            env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
                .filter(|s| !s.trim().is_empty()),
        ) {
            (Some(logs), _) => logs.trim().to_string(),
            (None, Some(base)) => format!("{}/v1/logs", base.trim().trim_end_matches('/')),
            (None, None) => "http://localhost:4318/v1/logs".to_string(),
        };
        let protocol = match get(
            "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
        )
        .as_deref()
        {
            None | Some("http/protobuf") => Protocol::Protobuf,
            Some("http/json") => Protocol::Json,
            Some(other) => {
                problems.push(format!(
                    "OTEL_EXPORTER_OTLP_PROTOCOL={other} is not supported (hookrules sends http/protobuf or http/json); sending http/protobuf"
                ));
                Protocol::Protobuf
            }
        };
        let mut headers = vec![];
        for var in [
            "OTEL_EXPORTER_OTLP_HEADERS",
            "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
        ] {
            for (k, v) in pairs(env.get(var).as_deref().unwrap_or("")) {
                headers.retain(|(h, _): &(String, String)| !h.eq_ignore_ascii_case(&k));
                headers.push((k, v));
            }
        }
        let timeout = get(
            "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
            "OTEL_EXPORTER_OTLP_TIMEOUT",
        )
        .and_then(|t| t.parse::<u64>().ok())
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(10));
        let mut resource: Vec<(String, String)> =
            pairs(env.get("OTEL_RESOURCE_ATTRIBUTES").as_deref().unwrap_or(""));
        let service = env
            .get("OTEL_SERVICE_NAME")
            .filter(|s| !s.is_empty())
            .or_else(|| {
                resource
                    .iter()
                    .find(|(k, _)| k == "service.name")
                    .map(|(_, v)| v.clone())
            })
            .unwrap_or_else(|| "hookrules".into());
        resource.retain(|(k, _)| k != "service.name");
        resource.insert(0, ("service.name".into(), service));
        if !resource.iter().any(|(k, _)| k == "host.name") {
            if let Ok(h) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
                resource.push(("host.name".into(), h.trim().to_string()));
            }
        }
        Target {
            url,
            protocol,
            headers,
            timeout,
            resource,
            problems,
        }
    }

    /// The request body and its content type.
    pub fn body(&self, req: &ExportLogsServiceRequest) -> (Vec<u8>, &'static str) {
        match self.protocol {
            Protocol::Protobuf => (prost::Message::encode_to_vec(req), "application/x-protobuf"),
            Protocol::Json => (to_json(req).to_string().into_bytes(), "application/json"),
        }
    }
}

/// `k=v,k2=v2` with percent-encoded values (the W3C baggage form the OTLP
/// variables use); malformed entries are skipped.
fn pairs(s: &str) -> Vec<(String, String)> {
    s.split(',')
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            let k = k.trim();
            (!k.is_empty()).then(|| (percent_decode(k), percent_decode(v.trim())))
        })
        .collect()
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match (b[i], b.get(i + 1).copied(), b.get(i + 2).copied()) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push(((hex(h).unwrap_or(0) << 4) | hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Env {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_standard_variables_in_their_order() {
        let t = Target::from_env(&env(&[]));
        assert_eq!(t.url, "http://localhost:4318/v1/logs");
        assert_eq!(t.protocol, Protocol::Protobuf);
        assert_eq!(t.resource[0], ("service.name".into(), "hookrules".into()));
        let t = Target::from_env(&env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "https://otel.example:4318/"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
            (
                "OTEL_EXPORTER_OTLP_HEADERS",
                "a=1,Authorization=Basic%20eA%3D%3D",
            ),
            ("OTEL_EXPORTER_OTLP_LOGS_HEADERS", "a=2"),
            (
                "OTEL_RESOURCE_ATTRIBUTES",
                "service.name=x,team=core%20infra",
            ),
            ("OTEL_SERVICE_NAME", "agents"),
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "250"),
        ]));
        assert_eq!(t.url, "https://otel.example:4318/v1/logs");
        assert_eq!(t.protocol, Protocol::Json);
        assert_eq!(
            t.headers,
            vec![
                ("Authorization".into(), "Basic eA==".into()),
                ("a".into(), "2".into())
            ]
        );
        assert_eq!(t.resource[0], ("service.name".into(), "agents".into()));
        assert!(t
            .resource
            .contains(&("team".to_string(), "core infra".to_string())));
        assert_eq!(t.timeout, Duration::from_millis(250));
        let t = Target::from_env(&env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"),
            ("OTEL_EXPORTER_OTLP_LOGS_ENDPOINT", "http://b:9999/custom"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ]));
        assert_eq!(t.url, "http://b:9999/custom");
        assert_eq!(t.protocol, Protocol::Protobuf);
        assert_eq!(t.problems.len(), 1);
    }
}
