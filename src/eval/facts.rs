//! Computing facts: what a rule needs to know beyond stdin. Each fact is computed
//! at most once per event, only when a condition or template uses it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::Ctx;
use crate::os::{files, process};
use crate::policy::syntax::FactKind;
use crate::validate::headings;
use crate::validate::model::Fact;

/// Most bytes read from one file for a fact or an include.
pub const MAX_FILE: u64 = 4 * 1024 * 1024;
/// Most bytes of a transcript read (from its end).
pub const MAX_TRANSCRIPT_TAIL: u64 = 8 * 1024 * 1024;
/// Most files a glob fact lists.
pub const MAX_GLOB_FILES: usize = 10_000;

/// Inputs a fact's templates rendered to.
pub struct Rendered {
    /// `path`, rendered.
    pub path: Option<String>,
    /// `within`, rendered.
    pub within: Option<String>,
    /// `argv`, rendered.
    pub argv: Vec<String>,
    /// `cwd`, rendered.
    pub cwd: Option<String>,
}

/// Why a fact could not be computed from its rendered inputs.
#[derive(Debug, Clone)]
pub enum FactError {
    /// A `command` fact where commands are not run (`check`'s probes).
    NotRun,
    /// A path (or `within`, or `cwd`) is not where the fact may look.
    Confined(files::ConfineError),
    /// A file could not be read.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        error: Arc<std::io::Error>,
    },
    /// A `json = true` file that is there but not JSON.
    NotJson {
        /// The file.
        path: PathBuf,
        /// What the parser said.
        error: Arc<serde_json::Error>,
    },
    /// A glob fact's pattern has a NUL byte.
    GlobNul,
    /// A glob fact's pattern (rendered) does not compile.
    BadGlob {
        /// The pattern, rendered.
        pattern: String,
        /// What globset said.
        error: globset::Error,
    },
    /// A `command` fact's program could not be run.
    Command {
        /// The command line.
        argv: Vec<String>,
        /// Why.
        error: process::RunError,
    },
    /// A `command` fact ran out of time and its process group was killed.
    Timeout {
        /// The command line.
        argv: Vec<String>,
        /// How long it was given, in milliseconds.
        after_ms: u64,
        /// What it printed before.
        output: String,
        /// Its `timeout_ms`, when the answer's deadline cut it shorter.
        cut_from: Option<u64>,
    },
}

// Hand-written rather than `thiserror`: a timeout's message is built from
// `RunError`'s, with the "cut from" note when the deadline shortened it.
impl std::fmt::Display for FactError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FactError::NotRun => f.write_str(NOT_RUN),
            FactError::Confined(e) => write!(f, "{e}"),
            FactError::Unreadable { path, error } => {
                write!(f, "cannot read {}: {error}", path.display())
            }
            FactError::NotJson { path, error } => {
                write!(f, "{} is not JSON: {error}", path.display())
            }
            FactError::GlobNul => f.write_str("glob contains a NUL byte"),
            FactError::BadGlob { pattern, error } => write!(f, "invalid glob `{pattern}`: {error}"),
            FactError::Command { argv, error } => write!(f, "`{}`: {error}", argv.join(" ")),
            FactError::Timeout {
                argv,
                after_ms,
                output,
                cut_from,
            } => {
                let timed_out = process::RunError::TimedOut {
                    ms: *after_ms,
                    output: output.clone(),
                };
                write!(f, "`{}`: {timed_out}", argv.join(" "))?;
                if let Some(declared) = cut_from {
                    write!(
                        f,
                        " (its timeout_ms is {declared}, cut to what was left of the answer's deadline)"
                    )?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for FactError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            FactError::Confined(e) => Some(e),
            FactError::Unreadable { error, .. } => Some(error.as_ref()),
            FactError::NotJson { error, .. } => Some(error.as_ref()),
            FactError::BadGlob { error, .. } => Some(error),
            _ => None,
        }
    }
}

impl From<files::ConfineError> for FactError {
    fn from(e: files::ConfineError) -> Self {
        FactError::Confined(e)
    }
}

/// Compute a fact whose templates have been rendered.
pub fn compute(f: &Fact, r: Rendered, ctx: &Ctx, event: &Value) -> Result<Value, FactError> {
    match f.kind {
        FactKind::File => file(f, &r, ctx),
        FactKind::Glob => glob(f, &r, ctx),
        FactKind::Command => command(f, &r, ctx),
        FactKind::Env => Ok(Value::Object(
            f.vars
                .iter()
                .map(|k| {
                    (
                        k.clone(),
                        ctx.env_vars.get(k).map(|v| json!(v)).unwrap_or(Value::Null),
                    )
                })
                .collect(),
        )),
        FactKind::LastAssistantMessage => Ok(last_assistant_message(event)
            .map(Value::String)
            .unwrap_or(Value::Null)),
        FactKind::ProjectMarkers => Ok(Value::Object(
            f.markers
                .iter()
                .map(|m| (m.clone(), Value::Bool(ctx.project_dir.join(m).exists())))
                .collect(),
        )),
    }
}

/// The folder a fact's paths must stay in, itself confined to the project.
fn within(r: &Rendered, ctx: &Ctx) -> Result<PathBuf, FactError> {
    match r.within.as_deref().filter(|w| !w.trim().is_empty()) {
        Some(w) => Ok(files::confine(w, &ctx.project_dir, &ctx.project_dir)?),
        None => Ok(ctx.project_dir.clone()),
    }
}

fn file(f: &Fact, r: &Rendered, ctx: &Ctx) -> Result<Value, FactError> {
    let rel = r.path.as_deref().unwrap_or("");
    let path = files::confine(rel, &ctx.project_dir, &within(r, ctx)?)?;
    let exists = path.is_file();
    let mut out = Map::new();
    out.insert("path".into(), json!(path.display().to_string()));
    out.insert("exists".into(), json!(exists));
    let needs_content = !f.headings.is_empty() || f.regex.is_some() || f.lines.is_some() || f.json;
    let content = if exists && needs_content {
        Some(
            files::read_capped(&path, MAX_FILE).map_err(|e| FactError::Unreadable {
                path: path.clone(),
                error: Arc::new(e),
            })?,
        )
    } else {
        None
    };
    let text = content.as_deref().unwrap_or("");
    if !f.headings.is_empty() {
        let missing = headings::missing(text, &f.headings);
        out.insert("has_headings".into(), json!(exists && missing.is_empty()));
        out.insert("missing_headings".into(), json!(missing));
    }
    if let Some(re) = &f.regex {
        let caps = re.captures(text);
        out.insert("matches".into(), json!(caps.is_some()));
        let mut named = Map::new();
        if let Some(c) = caps {
            for name in re.capture_names().flatten() {
                if let Some(m) = c.name(name) {
                    named.insert(name.into(), json!(m.as_str()));
                }
            }
        }
        out.insert("captures".into(), Value::Object(named));
    }
    if f.json {
        // A missing file is `null`; a file that is there but not JSON is a failure
        // (the policy's failure mode), never a silently empty value.
        let doc = match &content {
            Some(c) => serde_json::from_str::<Value>(c).map_err(|e| FactError::NotJson {
                path: path.clone(),
                error: Arc::new(e),
            })?,
            None => Value::Null,
        };
        out.insert("json".into(), doc);
    }
    if let Some(n) = f.lines {
        let lines: Vec<&str> = text.lines().take(n).collect();
        out.insert("head".into(), json!(lines.join("\n")));
        out.insert("lines".into(), json!(lines));
    }
    Ok(Value::Object(out))
}

fn glob(f: &Fact, r: &Rendered, ctx: &Ctx) -> Result<Value, FactError> {
    let pattern = r.path.as_deref().unwrap_or("");
    let files = glob_files(
        pattern,
        ctx,
        &within(r, ctx)?,
        f.exclude.as_ref().map(|x| &x.set),
    )?;
    let rel: Vec<String> = files
        .iter()
        .map(|p| {
            p.strip_prefix(&ctx.project_dir)
                .unwrap_or(p)
                .display()
                .to_string()
        })
        .collect();
    Ok(json!({
        "count": rel.len(),
        "files": rel,
        "newest": rel.first(),
    }))
}

/// Files matching a glob relative to the project, newest first.
pub fn glob_files(
    pattern: &str,
    ctx: &Ctx,
    within: &Path,
    exclude: Option<&globset::GlobSet>,
) -> Result<Vec<PathBuf>, FactError> {
    if pattern.contains('\0') {
        return Err(FactError::GlobNul);
    }
    // The fixed prefix (up to the first component with a glob character) is walked.
    let mut prefix = PathBuf::new();
    let mut rest = vec![];
    for comp in pattern.split('/') {
        if !rest.is_empty() || comp.contains(['*', '?', '[', '{']) {
            rest.push(comp);
        } else if !comp.is_empty() {
            prefix.push(comp);
        }
    }
    let root = files::confine(
        &prefix.display().to_string().if_empty("."),
        &ctx.project_dir,
        within,
    )?;
    let full_pattern = format!("{}/{}", root.display(), rest.join("/"));
    let matcher = globset::GlobBuilder::new(&full_pattern)
        .literal_separator(true)
        .build()
        .map_err(|error| FactError::BadGlob {
            pattern: pattern.to_string(),
            error,
        })?
        .compile_matcher();
    let depth = if rest.contains(&"**") { 32 } else { rest.len() };
    let mut found = vec![];
    walk(&root, depth, &mut |p| {
        if matcher.is_match(p) {
            let relp = p.strip_prefix(&ctx.project_dir).unwrap_or(p);
            // A symlinked file counts only if it stays inside `within`.
            let inside = files::confine(&p.display().to_string(), &ctx.project_dir, within).is_ok();
            if inside && !exclude.is_some_and(|x| x.is_match(relp)) {
                found.push(p.to_path_buf());
            }
        }
        found.len() < MAX_GLOB_FILES
    });
    let mut with_time: Vec<(std::time::SystemTime, PathBuf)> = found
        .into_iter()
        .map(|p| {
            (
                p.metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH),
                p,
            )
        })
        .collect();
    with_time.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    Ok(with_time.into_iter().map(|(_, p)| p).collect())
}

trait IfEmpty {
    fn if_empty(self, d: &str) -> String;
}
impl IfEmpty for String {
    fn if_empty(self, d: &str) -> String {
        if self.is_empty() {
            d.to_string()
        } else {
            self
        }
    }
}

/// Visit files under `dir` (not following symlinked folders) up to `depth` levels.
fn walk(dir: &Path, depth: usize, visit: &mut dyn FnMut(&Path) -> bool) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return true;
    };
    for e in entries.flatten() {
        let p = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() {
            if depth > 1 && !walk(&p, depth - 1, visit) {
                return false;
            }
        } else if !visit(&p) {
            return false;
        }
    }
    true
}

/// The error of a `command` fact where commands are not run ([`FactError::NotRun`]).
const NOT_RUN: &str = "command facts are not run by `hookrules check`";

fn command(f: &Fact, r: &Rendered, ctx: &Ctx) -> Result<Value, FactError> {
    if !ctx.run_commands {
        return Err(FactError::NotRun);
    }
    let cwd = match &r.cwd {
        Some(c) => files::confine(c, &ctx.project_dir, Path::new("/"))?,
        None => ctx.project_dir.clone(),
    };
    let (wait, cut) = ctx.deadline.cap(
        std::time::Duration::from_millis(f.timeout_ms),
        crate::os::deadline::reserve(&ctx.deadline),
    );
    let out =
        process::run(&r.argv, &cwd, &ctx.env_vars, wait.as_millis() as u64).map_err(|error| {
            match error {
                process::RunError::TimedOut { ms, output } => FactError::Timeout {
                    argv: r.argv.clone(),
                    after_ms: ms,
                    output,
                    cut_from: cut.then_some(f.timeout_ms),
                },
                error => FactError::Command {
                    argv: r.argv.clone(),
                    error,
                },
            }
        })?;
    Ok(json!({
        "status": out.status,
        "ok": out.ok,
        "stdout": out.stdout,
        "stderr": out.stderr,
        "output": format!("{}{}", out.stdout, out.stderr),
    }))
}

/// The last assistant text: `last_assistant_message` from the event; else, for a
/// synchronous Agent tool result, the subagent's answer; else the transcript
/// (reference §5: newest assistant message with text, all its text blocks joined).
pub fn last_assistant_message(event: &Value) -> Option<String> {
    // An empty answer is no answer: fall through to the transcript, as the seeds'
    // `[[ -z "$AGENT_OUTPUT" ]]` does.
    if let Some(s) = event
        .get("last_assistant_message")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
    {
        return Some(s.to_string());
    }
    if let Some(content) = event
        .pointer("/tool_response/content")
        .and_then(|v| v.as_array())
    {
        let texts: Vec<&str> = content
            .iter()
            .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
            .collect();
        if texts.iter().any(|t| !t.is_empty()) {
            return Some(texts.join("\n"));
        }
    }
    let (path, sidechain) = match event.get("agent_transcript_path").and_then(|v| v.as_str()) {
        Some(p) => (PathBuf::from(p), true),
        None => match agent_transcript_of_tool_result(event) {
            Some(p) => (p, true),
            None => (
                PathBuf::from(event.get("transcript_path").and_then(|v| v.as_str())?),
                false,
            ),
        },
    };
    transcript_last_text(&path, sidechain)
}

/// A synchronous Agent result names its agent (`tool_response.agentId`); that
/// agent's own transcript is `<session>/subagents/agent-<id>.jsonl` beside the main
/// one (reference section 5). Reading it, not the main transcript, finds the agent's
/// answer instead of the hub's own last message.
fn agent_transcript_of_tool_result(event: &Value) -> Option<PathBuf> {
    let id = event.pointer("/tool_response/agentId")?.as_str()?;
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return None;
    }
    let main = event.get("transcript_path")?.as_str()?;
    let session = main.strip_suffix(".jsonl")?;
    Some(PathBuf::from(format!(
        "{session}/subagents/agent-{id}.jsonl"
    )))
}

fn transcript_last_text(path: &Path, sidechain: bool) -> Option<String> {
    use std::io::{Read, Seek, SeekFrom};
    // Only a regular file: opening a FIFO or a device could block for ever.
    let mut f = files::open_regular(path).ok()?;
    let len = f.metadata().ok()?.len();
    let start = len.saturating_sub(MAX_TRANSCRIPT_TAIL);
    f.seek(SeekFrom::Start(start)).ok()?;
    let mut buf = Vec::new();
    f.take(MAX_TRANSCRIPT_TAIL).read_to_end(&mut buf).ok()?;
    let text = String::from_utf8_lossy(&buf);
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.get("type").and_then(|t| t.as_str()) == Some("assistant"))
        .filter(|v| {
            sidechain
                || !v
                    .get("isSidechain")
                    .and_then(|s| s.as_bool())
                    .unwrap_or(false)
        })
        .collect();
    let has_text = |v: &Value| {
        v.pointer("/message/content")
            .and_then(|c| c.as_array())
            .is_some_and(|c| {
                c.iter()
                    .any(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
            })
    };
    let newest = lines.iter().rev().find(|v| has_text(v))?;
    let id = newest.pointer("/message/id").cloned();
    let texts: Vec<String> = lines
        .iter()
        .filter(|v| v.pointer("/message/id").cloned() == id)
        .flat_map(|v| {
            v.pointer("/message/content")
                .and_then(|c| c.as_array())
                .cloned()
                .unwrap_or_default()
        })
        .filter(|b| b.get("type").and_then(|t| t.as_str()) == Some("text"))
        .filter_map(|b| b.get("text").and_then(|t| t.as_str()).map(String::from))
        .collect();
    Some(texts.join("\n"))
}
