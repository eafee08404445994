//! Side effects, run after the decision: atomic writes, JSON-line appends,
//! deletes, commands. Paths built from templates are confined to the folder the
//! policy names (the project directory by default).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::eval::facts::{glob_files, MAX_FILE};
use crate::eval::Ctx;
use crate::os::{files, process};
use crate::policy::syntax::FailureMode;

/// A rendered side effect, waiting to run.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The rule it belongs to.
    pub rule: String,
    /// The policy it belongs to.
    pub policy: String,
    /// That policy's failure mode.
    pub failure: FailureMode,
    /// Rendered path (relative to the project dir, or absolute).
    pub path: Option<String>,
    /// Rendered confinement folder.
    pub within: Option<String>,
    /// What to do.
    pub effect: PendingEffect,
}

/// What a pending effect does.
#[derive(Debug, Clone)]
pub enum PendingEffect {
    /// Write a file atomically.
    WriteFile {
        /// Content.
        content: String,
    },
    /// Write a JSON object atomically, keeping listed keys of the existing file.
    WriteJson {
        /// The new object.
        record: Value,
        /// Keys to keep from the existing file.
        keep: Vec<String>,
    },
    /// Append one JSON line.
    AppendJsonl {
        /// The record.
        record: Value,
    },
    /// Delete a file.
    DeleteFile,
    /// Run a command.
    Run {
        /// Program and arguments.
        argv: Vec<String>,
        /// Timeout.
        timeout_ms: u64,
    },
}

/// A side effect that failed.
#[derive(Debug, Clone)]
pub struct Failed {
    /// The rule.
    pub rule: String,
    /// The policy.
    pub policy: String,
    /// Its failure mode.
    pub failure: FailureMode,
    /// What went wrong.
    pub error: String,
}

impl Pending {
    fn target(&self, ctx: &Ctx) -> Result<PathBuf, String> {
        let path = self.path.as_deref().ok_or("no path")?;
        files::confine_in(path, &ctx.project_dir, self.within.as_deref())
    }

    /// A short description, for traces and `test`.
    pub fn describe(&self) -> String {
        let p = self.path.as_deref().unwrap_or("");
        match &self.effect {
            PendingEffect::WriteFile { .. } => format!("write_file {p}"),
            PendingEffect::WriteJson { .. } => format!("write_json {p}"),
            PendingEffect::AppendJsonl { .. } => format!("append_jsonl {p}"),
            PendingEffect::DeleteFile => format!("delete_file {p}"),
            PendingEffect::Run { argv, .. } => format!("run {argv:?}"),
        }
    }
}

/// Run the effects in order; return the ones that failed.
pub fn apply(effects: &[Pending], ctx: &Ctx) -> Vec<Failed> {
    let mut failed = vec![];
    for e in effects {
        if let Err(error) = apply_one(e, ctx) {
            failed.push(Failed {
                rule: e.rule.clone(),
                policy: e.policy.clone(),
                failure: e.failure,
                error,
            });
        }
    }
    failed
}

fn apply_one(e: &Pending, ctx: &Ctx) -> Result<(), String> {
    match &e.effect {
        PendingEffect::WriteFile { content } => {
            let p = e.target(ctx)?;
            files::write_atomic(&p, content.as_bytes())
                .map_err(|err| format!("write {}: {err}", p.display()))
        }
        PendingEffect::WriteJson { record, keep } => {
            let p = e.target(ctx)?;
            let mut record = record.clone();
            if let (Ok(old), Value::Object(new)) = (std::fs::read_to_string(&p), &mut record) {
                if let Ok(Value::Object(old)) = serde_json::from_str::<Value>(&old) {
                    for k in keep {
                        if let Some(v) = old.get(k) {
                            new.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            let text = serde_json::to_string_pretty(&record).map_err(|e| e.to_string())?;
            files::write_atomic(&p, text.as_bytes())
                .map_err(|err| format!("write {}: {err}", p.display()))
        }
        PendingEffect::AppendJsonl { record } => {
            let p = e.target(ctx)?;
            let line = serde_json::to_string(record).map_err(|e| e.to_string())?;
            files::append_line(&p, &line).map_err(|err| format!("append {}: {err}", p.display()))
        }
        PendingEffect::DeleteFile => {
            let p = e.target(ctx)?;
            match std::fs::remove_file(&p) {
                Ok(()) => Ok(()),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(err) => Err(format!("delete {}: {err}", p.display())),
            }
        }
        PendingEffect::Run { argv, timeout_ms } => {
            let out = process::run(argv, &ctx.project_dir, &ctx.env_vars, *timeout_ms)
                .map_err(|err| format!("{argv:?}: {err}"))?;
            if out.ok {
                Ok(())
            } else {
                Err(format!(
                    "{argv:?} exited with {:?}: {}",
                    out.status,
                    out.stderr.trim()
                ))
            }
        }
    }
}

/// Read a file (or the newest match of a glob) for `include`, first `lines` lines.
/// Missing files are skipped; paths must stay inside the project directory.
pub fn read_include(path: &str, lines: Option<usize>, newest: bool, ctx: &Ctx) -> Option<String> {
    let file: PathBuf = if newest {
        glob_files(path, ctx, &ctx.project_dir, None)
            .ok()?
            .into_iter()
            .next()?
    } else {
        files::confine(path, &ctx.project_dir, &ctx.project_dir).ok()?
    };
    if !file.is_file() {
        return None;
    }
    let text = files::read_capped(Path::new(&file), MAX_FILE).ok()?;
    Some(match lines {
        Some(n) => text.lines().take(n).collect::<Vec<_>>().join("\n"),
        None => text,
    })
}
