//! Allow once: a denied tool call carries a short code, shown to the user only
//! (`systemMessage`, which never reaches the model); `hookrules allow CODE`, run
//! by the user in their own terminal, lets exactly that call (same tool, same
//! input, same project) through once, within a limited time.
//!
//! Files, in the project's log folder under `allow/`:
//! - `pending/<sha256 of the code>.json`: issued with the deny; holds the call's
//!   id, never the code, so reading the folder does not reveal a usable code;
//! - `granted/<call id>.json`: written by `hookrules allow`;
//! - consumed by the first `run` that would deny the same call, by renaming it
//!   away (one rename wins, so two hooks cannot both use one allowance).
//!
//! The call id is a SHA-256 of the project, the tool name and the tool input
//! with its keys sorted: the agent cannot make another call share an allowance.
//! `hookrules allow` refuses to run inside Claude Code (`CLAUDECODE` set) or
//! without a terminal, and the default pack denies the agent running it.

use std::collections::BTreeMap;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::record::AllowNote;
use super::store;
use crate::contract::Event;
use crate::decision::Decision;
use crate::policy::log::LogTable;
use crate::policy::syntax::DecisionKind;

/// The code alphabet: Crockford's base 32 (no I, L, O, U).
const ALPHABET: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A pending code, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Pending {
    /// The call it allows.
    pub id: String,
    /// Tool name.
    pub tool: String,
    /// What the call is (redacted, cut).
    pub summary: String,
    /// The rules that denied it.
    pub rules: Vec<String>,
    /// The session it came from.
    #[serde(default)]
    pub session: Option<String>,
    /// Until when the code can be used (ms).
    pub expires_ms: i64,
}

/// A granted allowance, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Granted {
    /// The call.
    pub id: String,
    /// Who allowed it.
    pub by: String,
    /// What the call is.
    pub summary: String,
    /// The rules it lifts.
    pub rules: Vec<String>,
    /// Until when it can be used (ms).
    pub expires_ms: i64,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&m[k])))
                    .collect(),
            )
        }
        Value::Array(a) => Value::Array(a.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The id of a tool call in a project.
pub fn call_id(project: &Path, tool: &str, input: &Value) -> String {
    let mut h = Sha256::new();
    h.update(project.to_string_lossy().as_bytes());
    h.update([0]);
    h.update(tool.as_bytes());
    h.update([0]);
    h.update(serde_json::to_vec(&sorted(input)).unwrap_or_default());
    hex(&h.finalize()[..16])
}

/// A code as people type it: case, dashes and spaces ignored, O/I/L read as 0/1/1.
pub fn normalize(code: &str) -> String {
    code.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            c => c,
        })
        .collect()
}

fn code_key(code: &str) -> String {
    hex(&Sha256::digest(normalize(code).as_bytes()))
}

/// A fresh code: 8 characters (40 bits) from the kernel's random source, shown as
/// `ABCD-EFGH`.
fn fresh_code() -> std::io::Result<String> {
    let mut buf = [0u8; 8];
    fs::File::open("/dev/urandom")?.read_exact(&mut buf)?;
    let s: String = buf
        .iter()
        .map(|b| ALPHABET[(*b & 31) as usize] as char)
        .collect();
    Ok(format!("{}-{}", &s[..4], &s[4..]))
}

fn folder(log_dir: &Path, which: &str) -> std::io::Result<PathBuf> {
    let d = log_dir.join("allow").join(which);
    if !d.is_dir() {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&d)?;
    }
    Ok(d)
}

fn read_json<T: for<'de> Deserialize<'de>>(path: &Path) -> Option<T> {
    let f = store::open_for_reading(path).ok()?;
    let mut s = String::new();
    f.take(1 << 20).read_to_string(&mut s).ok()?;
    serde_json::from_str(&s).ok()
}

/// A code issued with a deny, whose pending record is written after the answer.
#[derive(Debug, Clone)]
pub struct Issued {
    /// Where the pending record goes.
    pub path: PathBuf,
    /// The record.
    pub pending: Pending,
}

/// Issue a code for a denied call: the code (for the user's message), the
/// record to [`save`] once the answer is out, and the log note. Only a random
/// read and a hash happen before the answer.
pub fn issue(log_dir: &Path, p: &Pending) -> Result<(String, Issued, AllowNote), String> {
    let code = fresh_code().map_err(|e| format!("no random source: {e}"))?;
    let path = log_dir
        .join("allow/pending")
        .join(format!("{}.json", code_key(&code)));
    let note = AllowNote {
        action: "issued".into(),
        id: p.id.clone(),
        by: None,
        expires: Some(super::time::format_ms(p.expires_ms)),
    };
    Ok((
        code,
        Issued {
            path,
            pending: p.clone(),
        },
        note,
    ))
}

/// Write a pending record (after the answer). A temporary file renamed into
/// place, without fsync: a code lost to a crash only means asking again.
pub fn save(i: &Issued) -> Result<(), String> {
    let dir = i.path.parent().unwrap_or(Path::new("."));
    if !dir.is_dir() {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = serde_json::to_vec(&i.pending).map_err(|e| e.to_string())?;
    let tmp = dir.join(format!(".{}.tmp", std::process::id()));
    let result = (|| {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let mut f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&tmp)?;
        f.write_all(&text)?;
        fs::rename(&tmp, &i.path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map_err(|e| format!("cannot write {}: {e}", i.path.display()))
}

/// Use the allowance for a call, if one was granted and has not lapsed. Only one
/// caller can use it.
pub fn take(log_dir: &Path, id: &str, now_ms: i64) -> Option<Granted> {
    let granted = log_dir.join("allow/granted").join(format!("{id}.json"));
    if !granted.exists() {
        return None;
    }
    let used_dir = folder(log_dir, "used").ok()?;
    let used = used_dir.join(format!("{id}.{}.{now_ms}.json", std::process::id()));
    fs::rename(&granted, &used).ok()?;
    let g: Granted = read_json(&used)?;
    (g.id == id && g.expires_ms >= now_ms).then_some(g)
}

/// Why a code given to `hookrules allow` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CodeError {
    /// It is not shaped like a code.
    NotACode(String),
    /// No pending code is stored under it (never issued, or already used).
    Unknown(String),
    /// It was issued, but has lapsed (and is now removed).
    Lapsed(String),
}

impl std::fmt::Display for CodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CodeError::NotACode(code) => write!(
                f,
                "`{code}` is not a code (8 letters and digits, like K7QX-2MPD)"
            ),
            CodeError::Unknown(code) => write!(f, "no pending code `{code}` in this project"),
            CodeError::Lapsed(code) => write!(
                f,
                "code `{code}` has lapsed; the next deny of the call gives a new one"
            ),
        }
    }
}

impl std::error::Error for CodeError {}

/// Look a code up; `Err` says why it cannot be used.
pub fn pending(log_dir: &Path, code: &str, now_ms: i64) -> Result<(PathBuf, Pending), CodeError> {
    if normalize(code).len() != 8 {
        return Err(CodeError::NotACode(code.to_string()));
    }
    let path = log_dir
        .join("allow/pending")
        .join(format!("{}.json", code_key(code)));
    let p: Pending = read_json(&path).ok_or_else(|| CodeError::Unknown(code.to_string()))?;
    if p.expires_ms < now_ms {
        let _ = fs::remove_file(&path);
        return Err(CodeError::Lapsed(code.to_string()));
    }
    Ok((path, p))
}

/// Grant: the pending code becomes an allowance for its call.
pub fn grant(log_dir: &Path, pending_path: &Path, g: &Granted) -> Result<(), String> {
    let dir = folder(log_dir, "granted").map_err(|e| e.to_string())?;
    let text = serde_json::to_vec(g).map_err(|e| e.to_string())?;
    crate::os::files::write_atomic(&dir.join(format!("{}.json", g.id)), &text)
        .map_err(|e| format!("cannot write {}: {e}", dir.display()))?;
    let _ = fs::remove_file(pending_path);
    Ok(())
}

/// What allow-once did for one `run`.
#[derive(Debug, Default)]
pub struct OnceStep {
    /// For the log.
    pub note: Option<AllowNote>,
    /// A code issued: its record is saved after the answer.
    pub issued: Option<Issued>,
    /// Warnings for stderr.
    pub warnings: Vec<String>,
}

/// In `run`, for a PreToolUse deny: use an allowance granted for exactly this
/// call (the deny is lifted, once), or issue a code for one. `project` is the
/// project the event was evaluated in; `now_ms` the run's clock.
pub fn on_decision(
    tables: &[LogTable],
    event: &Event,
    project: &Path,
    now_ms: i64,
    env: &BTreeMap<String, String>,
    decision: &mut Decision,
) -> OnceStep {
    if decision.kind != Some(DecisionKind::Deny) || event.name != "PreToolUse" {
        return OnceStep::default();
    }
    let s = super::settings::resolve(tables, project, env);
    let (true, Some(dir)) = (s.allow_once, s.dir.as_deref()) else {
        return OnceStep::default();
    };
    let tool = event.str("tool_name").unwrap_or("");
    let input = event.value.get("tool_input").cloned().unwrap_or_default();
    let id = call_id(project, tool, &input);
    if let Some(g) = take(dir, &id, now_ms) {
        let lifted = decision.determined_by.join(", ");
        decision.kind = None;
        decision.reason = None;
        decision.determined_by.clear();
        decision.policies.clear();
        decision.messages.push(format!(
            "hookrules: allowed once by {} (would be denied by {lifted}).",
            g.by
        ));
        let note = AllowNote {
            action: "used".into(),
            id,
            by: Some(g.by),
            expires: None,
        };
        return OnceStep {
            note: Some(note),
            ..OnceStep::default()
        };
    }
    let red = super::redact::Redactor::new(&s.redact, &s.redact_values, 300);
    let summary = super::record::summary_of(&red.event(&event.value)).unwrap_or_default();
    let p = Pending {
        id,
        tool: tool.to_string(),
        summary,
        rules: decision.determined_by.clone(),
        session: event.str("session_id").map(str::to_string),
        expires_ms: now_ms + i64::from(s.allow_minutes) * 60_000,
    };
    match issue(dir, &p) {
        Ok((code, issued, note)) => {
            // systemMessage: the user sees it, the model never does.
            decision.messages.push(format!(
                "hookrules: if this deny is a false positive, run `hookrules allow {code}` in your own terminal (within {} min) to let exactly this call through once.",
                s.allow_minutes
            ));
            OnceStep {
                note: Some(note),
                issued: Some(issued),
                warnings: vec![],
            }
        }
        Err(e) => OnceStep {
            warnings: vec![format!("allow-once code not issued: {e}")],
            ..OnceStep::default()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_call_is_the_same_call_whatever_its_key_order_and_only_then() {
        let p = Path::new("/p");
        let a = call_id(
            p,
            "Bash",
            &json!({"command": "rm -rf x", "description": "d"}),
        );
        let b = call_id(
            p,
            "Bash",
            &json!({"description": "d", "command": "rm -rf x"}),
        );
        assert_eq!(a, b);
        assert_ne!(
            a,
            call_id(
                p,
                "Bash",
                &json!({"command": "rm -rf y", "description": "d"})
            )
        );
        assert_ne!(
            a,
            call_id(
                Path::new("/q"),
                "Bash",
                &json!({"command": "rm -rf x", "description": "d"})
            )
        );
        assert_eq!(normalize("k7qx-2mpd"), "K7QX2MPD");
        assert_eq!(normalize("O1L i"), "0111");
    }

    #[test]
    fn codes_are_stored_hashed_and_an_allowance_is_used_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = Pending {
            id: "abc".into(),
            tool: "Bash".into(),
            summary: "rm -rf x".into(),
            rules: vec!["r".into()],
            session: None,
            expires_ms: 10_000,
        };
        let (code, issued, note) = issue(dir.path(), &p).unwrap();
        save(&issued).unwrap();
        assert_eq!(note.action, "issued");
        let stored: Vec<String> = fs::read_dir(dir.path().join("allow/pending"))
            .unwrap()
            .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        assert!(!stored[0].contains(&normalize(&code)) && !stored[0].contains(&code));
        assert_eq!(
            pending(dir.path(), &code, 20_000).unwrap_err(),
            CodeError::Lapsed(code.clone())
        );
        let (code, issued, _) = issue(dir.path(), &p).unwrap();
        save(&issued).unwrap();
        let (path, found) = pending(dir.path(), &code.to_lowercase(), 5_000).unwrap();
        assert_eq!(
            pending(dir.path(), "AAAA-AAAA", 5_000).unwrap_err(),
            CodeError::Unknown("AAAA-AAAA".into())
        );
        let g = Granted {
            id: found.id,
            by: "me".into(),
            summary: found.summary,
            rules: found.rules,
            expires_ms: 9_000,
        };
        grant(dir.path(), &path, &g).unwrap();
        assert!(
            pending(dir.path(), &code, 5_000).is_err(),
            "a code is used once"
        );
        assert!(take(dir.path(), "other", 6_000).is_none());
        assert_eq!(take(dir.path(), "abc", 6_000).unwrap().by, "me");
        assert!(
            take(dir.path(), "abc", 6_000).is_none(),
            "an allowance is used once"
        );
    }
}
