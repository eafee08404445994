//! Allow once: a denied tool call carries a short code, shown to the user only
//! (`systemMessage`, which never reaches the model); `hookrules allow CODE`, run
//! by the user in their own terminal, lets exactly that call (same tool, same
//! input, same project) through once, within a limited time.
//!
//! Files, in the user's state folder under `allow/` (`os::state`; never the
//! log folder a policy names, never the project: no policy and no repository
//! can move them or ship one):
//! - `pending/<sha256 of the code>.json`: issued with the deny; holds the call's
//!   id and project, never the code, so reading the folder does not reveal a
//!   usable code;
//! - `granted/<call id>.json`: written by `hookrules allow`;
//! - consumed by the first `run` that would deny the same call, by renaming it
//!   away (one rename wins, so two hooks cannot both use one allowance), then
//!   kept as `used/<its MAC>.json`: the same grant put back later (copied from
//!   `used/`, restored from a snapshot) finds its name taken and is refused;
//!   the use is also recorded in `spent/<its MAC>` beside `allow/` (not in
//!   it), so a snapshot of the whole `allow/` folder restored over it is
//!   refused too.
//!
//! **Only the user can grant.** Both records carry a MAC (HMAC-SHA256) under
//! the user's key (`os::state::UserKey`), which only `hookrules` reads and the
//! built-in pack guards as a secret: a pending record proves that `run` issued
//! that code for that call, a grant proves that `hookrules allow` granted it.
//! An agent that computes the call id and writes a grant (any content, any
//! tool) writes a file without a valid MAC: it is ignored, moved to `forged/`,
//! recorded as an integrity event (`doctor`) and as an `allow` note with
//! action `forged` on the decision (`report` counts them), and the deny stands.
//!
//! The call id is a SHA-256 of the project, the tool name and the tool input
//! with its keys sorted: the agent cannot make another call share an allowance.
//! The code names its project, so `hookrules allow CODE` works from any folder.
//! It refuses to run inside Claude Code (`CLAUDECODE` set) or without a
//! terminal, and the default pack denies the agent running it.

use crate::os::env::Env;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::record::AllowNote;
use super::settings;
use super::store;
use crate::contract::Event;
use crate::decision::Decision;
use crate::os::state::{self, UserKey};
use crate::policy::log::LogTable;
use crate::policy::syntax::DecisionKind;

/// The purposes of the user's key here (see `os::state`).
const PENDING_PURPOSE: &str = "hookrules allow pending v1";
const GRANT_PURPOSE: &str = "hookrules allow grant v1";

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
    /// The project the call was made in.
    #[serde(default)]
    pub project: String,
    /// The MAC under the user's key (see the module docs); empty until saved.
    #[serde(default)]
    pub mac: String,
}

impl Pending {
    /// What the MAC covers: the code's key (the file name) and every field.
    fn signed(&self, code_key: &str, key: &UserKey) -> String {
        let expires = self.expires_ms.to_le_bytes();
        let rules = self.rules.join("\n");
        key.mac_hex(
            PENDING_PURPOSE,
            &[
                code_key.as_bytes(),
                self.id.as_bytes(),
                self.tool.as_bytes(),
                self.summary.as_bytes(),
                rules.as_bytes(),
                self.session.as_deref().unwrap_or("").as_bytes(),
                &expires,
                self.project.as_bytes(),
            ],
        )
    }
}

/// A granted allowance, as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The MAC under the user's key (see the module docs).
    #[serde(default)]
    pub mac: String,
}

impl Granted {
    fn signed(&self, key: &UserKey) -> String {
        let expires = self.expires_ms.to_le_bytes();
        let rules = self.rules.join("\n");
        key.mac_hex(
            GRANT_PURPOSE,
            &[
                self.id.as_bytes(),
                self.by.as_bytes(),
                self.summary.as_bytes(),
                rules.as_bytes(),
                &expires,
            ],
        )
    }
}

fn hex(bytes: &[u8]) -> String {
    state::hex(bytes)
}

/// The allow folder in a state folder.
pub fn allow_dir(state_home: &Path) -> PathBuf {
    state_home.join("allow")
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

fn folder(state_home: &Path, which: &str) -> std::io::Result<PathBuf> {
    let d = allow_dir(state_home).join(which);
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
    /// The state folder (its key signs the record).
    pub state_home: PathBuf,
    /// Where the pending record goes.
    pub path: PathBuf,
    /// The sha256 of the code (the record's name, covered by its MAC).
    pub code_key: String,
    /// The record.
    pub pending: Pending,
}

/// Issue a code for a denied call: the code (for the user's message), the
/// record to [`save`] once the answer is out, and the log note. Only a random
/// read and a hash happen before the answer; the key is read after it.
pub fn issue(state_home: &Path, p: &Pending) -> Result<(String, Issued, AllowNote), String> {
    let code = fresh_code().map_err(|e| format!("no random source: {e}"))?;
    let ck = code_key(&code);
    let path = allow_dir(state_home)
        .join("pending")
        .join(format!("{ck}.json"));
    let note = AllowNote {
        action: "issued".into(),
        id: p.id.clone(),
        by: None,
        expires: Some(super::time::format_ms(p.expires_ms)),
    };
    Ok((
        code,
        Issued {
            state_home: state_home.to_path_buf(),
            path,
            code_key: ck,
            pending: p.clone(),
        },
        note,
    ))
}

/// Sign and write a pending record (after the answer). A temporary file
/// renamed into place, without fsync: a code lost to a crash only means asking
/// again.
pub fn save(i: &Issued) -> Result<(), String> {
    let key = UserKey::load_or_create(&i.state_home).map_err(|e| e.to_string())?;
    let mut pending = i.pending.clone();
    pending.mac = pending.signed(&i.code_key, &key);
    let dir = i.path.parent().unwrap_or(Path::new("."));
    if !dir.is_dir() {
        use std::os::unix::fs::DirBuilderExt;
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let text = serde_json::to_vec(&pending).map_err(|e| e.to_string())?;
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

/// What [`take`] found for a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Taken {
    /// No allowance (none, lapsed, or taken by another hook).
    Nothing,
    /// A valid allowance, now used.
    Used(Granted),
    /// A grant file without a valid MAC under the user's key: not made by
    /// `hookrules allow`. Moved to `forged/` (this path).
    Forged(PathBuf),
    /// A genuine grant that was already used, put back (copied from `used/`,
    /// restored from a snapshot or a backup). Moved to `forged/` (this path).
    Replayed(PathBuf),
}

/// Use the allowance for a call, if the user granted one and it has not
/// lapsed. Only one caller can use it, and only once: a used grant is kept
/// under its MAC's name (`used/<mac>.json`), so the same grant put back is
/// refused. Costs one `stat` when there is none.
pub fn take(state_home: &Path, id: &str, now_ms: i64) -> Taken {
    let granted = allow_dir(state_home)
        .join("granted")
        .join(format!("{id}.json"));
    if fs::symlink_metadata(&granted).is_err() {
        return Taken::Nothing;
    }
    // Claimed by renaming: one rename wins, so two hooks cannot both use it.
    let stamp = format!("{id}.{}.{now_ms}.json", std::process::id());
    let Ok(claim) = folder(state_home, "claimed").map(|d| d.join(&stamp)) else {
        return Taken::Nothing;
    };
    if fs::rename(&granted, &claim).is_err() {
        return Taken::Nothing;
    }
    let aside = |claim: &Path| {
        let to = folder(state_home, "forged")
            .map(|d| d.join(&stamp))
            .unwrap_or_else(|_| claim.to_path_buf());
        let _ = fs::rename(claim, &to);
        to
    };
    let g: Option<Granted> = read_json(&claim);
    let key = UserKey::load(state_home).ok();
    let genuine = match (&g, &key) {
        (Some(g), Some(key)) => {
            g.id == id && constant_time_eq(g.signed(key).as_bytes(), g.mac.as_bytes())
        }
        _ => false,
    };
    let Some(g) = g.filter(|_| genuine) else {
        return Taken::Forged(aside(&claim));
    };
    // The MAC is a hex string of the user's key's making (verified above).
    // Its use is recorded twice: in the ledger beside the allowances'
    // folder, then under `allow/used/`. The whole `allow/` folder restored
    // from a snapshot brings the grant back without its `used/` record; the
    // ledger outside it still has the use (integrity27's 45).
    match spend(state_home, &g.mac) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Taken::Replayed(aside(&claim));
        }
        Err(_) => {
            let _ = fs::remove_file(&claim);
            return Taken::Nothing;
        }
    }
    let spent = folder(state_home, "used").map(|d| d.join(format!("{}.json", g.mac)));
    match spent.and_then(|spent| fs::hard_link(&claim, &spent)) {
        Ok(()) => {
            let _ = fs::remove_file(&claim);
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Taken::Replayed(aside(&claim));
        }
        // Cannot record the use, so it cannot be used (once is the promise).
        Err(_) => {
            let _ = fs::remove_file(&claim);
            return Taken::Nothing;
        }
    }
    if g.expires_ms >= now_ms {
        Taken::Used(g)
    } else {
        Taken::Nothing
    }
}

/// Record in the state folder's ledger of used allowances (`spent/`, beside
/// `allow/`, not in it) that the grant with this MAC was used: an empty file
/// named for it, made only if it is not there (`AlreadyExists`: used before).
fn spend(state_home: &Path, mac: &str) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let ledger = state_home.join("spent");
    if !ledger.is_dir() {
        fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&ledger)?;
    }
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(ledger.join(mac))
        .map(drop)
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Why a code given to `hookrules allow` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CodeError {
    /// It is not shaped like a code.
    #[error("`{0}` is not a code (8 letters and digits, like K7QX-2MPD)")]
    NotACode(String),
    /// No pending code is stored under it (never issued, or already used).
    #[error("no pending code `{0}` in this project")]
    Unknown(String),
    /// It was issued, but has lapsed (and is now removed).
    #[error("code `{0}` has lapsed; the next deny of the call gives a new one")]
    Lapsed(String),
    /// A pending record is stored under it, but hookrules did not issue it (its
    /// MAC does not verify under the user's key): someone wrote it to have a
    /// call of their choosing allowed. Moved to `forged/`.
    #[error("code `{0}` was not issued by hookrules (its record is not signed with your key): someone wrote it to have a call allowed; nothing was allowed, and the record was moved aside")]
    Forged(String),
    /// The user's key cannot be read, so no record can be checked.
    #[error("{0}")]
    NoKey(String),
}

/// Look a code up; `Err` says why it cannot be used.
pub fn pending(
    state_home: &Path,
    code: &str,
    now_ms: i64,
) -> Result<(PathBuf, Pending), CodeError> {
    if normalize(code).len() != 8 {
        return Err(CodeError::NotACode(code.to_string()));
    }
    let ck = code_key(code);
    let path = allow_dir(state_home)
        .join("pending")
        .join(format!("{ck}.json"));
    let p: Pending = read_json(&path).ok_or_else(|| CodeError::Unknown(code.to_string()))?;
    let key = UserKey::load(state_home).map_err(|e| CodeError::NoKey(e.to_string()))?;
    if !constant_time_eq(p.signed(&ck, &key).as_bytes(), p.mac.as_bytes()) {
        if let Ok(d) = folder(state_home, "forged") {
            let _ = fs::rename(&path, d.join(format!("{ck}.json")));
        }
        state::record_integrity(
            state_home,
            "pending-forged",
            &path,
            &format!(
                "a pending allow-once record not issued by hookrules (for {} `{}`); `hookrules allow` refused it",
                p.tool, p.summary
            ),
        );
        return Err(CodeError::Forged(code.to_string()));
    }
    if p.expires_ms < now_ms {
        let _ = fs::remove_file(&path);
        return Err(CodeError::Lapsed(code.to_string()));
    }
    Ok((path, p))
}

/// Grant: the pending code becomes an allowance for its call, signed with the
/// user's key.
pub fn grant(state_home: &Path, pending_path: &Path, g: &Granted) -> Result<(), String> {
    let key = UserKey::load_or_create(state_home).map_err(|e| e.to_string())?;
    let mut g = g.clone();
    g.mac = g.signed(&key);
    let dir = folder(state_home, "granted").map_err(|e| e.to_string())?;
    let text = serde_json::to_vec(&g).map_err(|e| e.to_string())?;
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
    env: &Env,
    decision: &mut Decision,
) -> OnceStep {
    if decision.kind != Some(DecisionKind::Deny) || event.name != "PreToolUse" {
        return OnceStep::default();
    }
    let s = settings::resolve(tables, project, env);
    // Allowances live in the user's state folder only (never `[log] dir`).
    let (true, Some(state)) = (s.allow_once, crate::os::state::state_home(env)) else {
        return OnceStep::default();
    };
    let dir = state.as_path();
    let tool = event.str("tool_name").unwrap_or("");
    let input = event.value.get("tool_input").cloned().unwrap_or_default();
    let id = call_id(project, tool, &input);
    let now = now_ms;
    let mut forged = None;
    match take(dir, &id, now) {
        Taken::Nothing => {}
        Taken::Forged(path) => {
            crate::os::state::record_integrity(
                dir,
                "allow-forged",
                &path,
                &format!(
                    "an allowance for {tool} in {} not granted by `hookrules allow` (no valid MAC under your key) was ignored; the deny stood",
                    project.display()
                ),
            );
            decision.messages.push(format!(
                "hookrules: an allowance for this call was found that you did not grant (it is not signed with your key; moved to {}). It was ignored and the deny stands; `hookrules doctor` lists such attempts.",
                path.display()
            ));
            forged = Some(AllowNote {
                action: "forged".into(),
                id: id.clone(),
                by: None,
                expires: None,
            });
        }
        Taken::Replayed(path) => {
            crate::os::state::record_integrity(
                dir,
                "allow-replayed",
                &path,
                &format!(
                    "an allowance for {tool} in {} that was already used was put back and ignored (an allowance counts once); the deny stood",
                    project.display()
                ),
            );
            decision.messages.push(format!(
                "hookrules: an allowance for this call was found that was already used once (put back from used/ or a snapshot; moved to {}). It was ignored and the deny stands; `hookrules doctor` lists such attempts.",
                path.display()
            ));
            forged = Some(AllowNote {
                action: "replayed".into(),
                id: id.clone(),
                by: None,
                expires: None,
            });
        }
        Taken::Used(g) => return used(decision, id, g),
    }
    let mut step = issue_code(&s, event, project, id, now, dir, decision);
    if forged.is_some() {
        step.note = forged;
    }
    step
}

/// The allowance `g` lifts the deny, once.
fn used(decision: &mut Decision, id: String, g: Granted) -> OnceStep {
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
    OnceStep {
        note: Some(note),
        ..OnceStep::default()
    }
}

/// A code for the user, shown with the deny.
fn issue_code(
    s: &settings::Settings,
    event: &Event,
    project: &std::path::Path,
    id: String,
    now: i64,
    dir: &std::path::Path,
    decision: &mut Decision,
) -> OnceStep {
    let tool = event.str("tool_name").unwrap_or("");
    let red = super::redact::Redactor::new(&s.redact, &s.redact_values, 300);
    let summary = super::record::summary_of(&red.event(&event.value)).unwrap_or_default();
    let p = Pending {
        id,
        tool: tool.to_string(),
        summary,
        rules: decision.determined_by.clone(),
        session: event.str("session_id").map(str::to_string),
        expires_ms: now + i64::from(s.allow_minutes) * 60_000,
        project: project.display().to_string(),
        mac: String::new(),
    };
    match issue(dir, &p) {
        Ok((code, issued, note)) => {
            // systemMessage: the user sees it, the model never does.
            decision.messages.push(format!(
                "hookrules: if this deny is a false positive, run `hookrules allow {code}` in your own terminal, from any folder (within {} min), to let exactly this call through once.",
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

    fn pending_for(id: &str) -> Pending {
        Pending {
            id: id.into(),
            tool: "Bash".into(),
            summary: "rm -rf x".into(),
            rules: vec!["r".into()],
            session: None,
            expires_ms: 10_000,
            project: "/p".into(),
            mac: String::new(),
        }
    }

    #[test]
    fn codes_are_stored_hashed_and_an_allowance_is_used_once() {
        let dir = tempfile::tempdir().unwrap();
        let p = pending_for("abc");
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
        assert_eq!(found.project, "/p");
        assert_eq!(
            pending(dir.path(), "AAAA-AAAA", 5_000).unwrap_err(),
            CodeError::Unknown("AAAA-AAAA".into())
        );
        grant_by_me(dir.path(), &path, found);
        assert!(
            pending(dir.path(), &code, 5_000).is_err(),
            "a code is used once"
        );
        assert_eq!(take(dir.path(), "other", 6_000), Taken::Nothing);
        match take(dir.path(), "abc", 6_000) {
            Taken::Used(g) => assert_eq!(g.by, "me"),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            take(dir.path(), "abc", 6_000),
            Taken::Nothing,
            "an allowance is used once"
        );
        // The used grant put back (a copy, a restored snapshot): refused.
        let used = dir.path().join("allow/used");
        let spent = fs::read_dir(&used).unwrap().next().unwrap().unwrap().path();
        fs::copy(&spent, dir.path().join("allow/granted/abc.json")).unwrap();
        assert!(
            matches!(take(dir.path(), "abc", 6_000), Taken::Replayed(_)),
            "a used allowance put back does not count again"
        );
        assert!(!dir.path().join("allow/granted/abc.json").exists());

        // The whole `allow/` folder restored from a snapshot taken before the
        // use (the grant back, no `used/` record): the ledger beside it still
        // has the use.
        let (code, issued, _) = issue(dir.path(), &pending_for("def")).unwrap();
        save(&issued).unwrap();
        let (path, found) = pending(dir.path(), &code, 5_000).unwrap();
        let id = found.id.clone();
        grant_by_me(dir.path(), &path, found);
        let snapshot = tempfile::tempdir().unwrap();
        copy_tree(&dir.path().join("allow"), snapshot.path());
        assert!(matches!(take(dir.path(), &id, 6_000), Taken::Used(_)));
        fs::remove_dir_all(dir.path().join("allow")).unwrap();
        copy_tree(snapshot.path(), &dir.path().join("allow"));
        assert!(
            matches!(take(dir.path(), &id, 6_000), Taken::Replayed(_)),
            "a snapshot of allow/ restored whole does not make a used allowance count again"
        );
    }

    /// What `hookrules allow` writes for the pending call `found`.
    fn grant_by_me(state: &Path, pending_at: &Path, found: Pending) {
        let g = Granted {
            id: found.id,
            by: "me".into(),
            summary: found.summary,
            rules: found.rules,
            expires_ms: 9_000,
            mac: String::new(),
        };
        grant(state, pending_at, &g).unwrap();
    }

    fn copy_tree(from: &Path, to: &Path) {
        fs::create_dir_all(to).unwrap();
        for e in fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let dest = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_tree(&e.path(), &dest);
            } else {
                fs::copy(e.path(), dest).unwrap();
            }
        }
    }

    #[test]
    fn a_grant_or_code_without_the_users_mac_is_forged_whatever_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let state = dir.path();
        UserKey::load_or_create(state).unwrap();
        let granted = state.join("allow/granted");
        fs::create_dir_all(&granted).unwrap();
        // What an agent can write: the right id, every field, and a MAC made
        // with a key of its own, or none, or copied from another grant.
        let mut g = Granted {
            id: "abc".into(),
            by: "me@host on /dev/pts/1".into(),
            summary: "rm -rf x".into(),
            rules: vec!["r".into()],
            expires_ms: 9_000,
            mac: String::new(),
        };
        let own = UserKey::from_bytes([9; 32]);
        for mac in [String::new(), g.signed(&own), "00".repeat(32)] {
            g.mac = mac;
            fs::write(granted.join("abc.json"), serde_json::to_vec(&g).unwrap()).unwrap();
            assert!(
                matches!(take(state, "abc", 6_000), Taken::Forged(_)),
                "mac {:?}",
                g.mac
            );
            assert!(!granted.join("abc.json").exists(), "moved aside");
        }
        fs::write(granted.join("abc.json"), b"not even json").unwrap();
        assert!(matches!(take(state, "abc", 6_000), Taken::Forged(_)));
        // A genuine grant for another call, renamed to this call's id.
        let p = pending_for("other");
        let (code, issued, _) = issue(state, &p).unwrap();
        save(&issued).unwrap();
        let (path, found) = pending(state, &code, 5_000).unwrap();
        grant_by_me(state, &path, found);
        fs::rename(granted.join("other.json"), granted.join("abc.json")).unwrap();
        assert!(matches!(take(state, "abc", 6_000), Taken::Forged(_)));
        // A pending record written by someone else: `hookrules allow` refuses it.
        let mut fake = pending_for("abc");
        fake.mac = fake.signed(&code_key("ZZZZ-ZZZZ"), &own);
        fs::write(
            state
                .join("allow/pending")
                .join(format!("{}.json", code_key("ZZZZ-ZZZZ"))),
            serde_json::to_vec(&fake).unwrap(),
        )
        .unwrap();
        assert_eq!(
            pending(state, "ZZZZ-ZZZZ", 5_000).unwrap_err(),
            CodeError::Forged("ZZZZ-ZZZZ".into())
        );
        assert!(fs::read_to_string(state.join(state::INTEGRITY_FILE))
            .unwrap()
            .contains("pending-forged"));
    }
}
