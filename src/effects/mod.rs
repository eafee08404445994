//! Side effects, run after the answer, within what is left of its deadline:
//! atomic writes, JSON-line appends, deletes, commands. Paths built from templates
//! are confined to the folder the policy names (the project directory by default).
//! Only regular files are appended to or replaced (see [`crate::os::files`]).

use std::path::PathBuf;

use serde_json::Value;

use crate::eval::{Ctx, Pending, PendingEffect};
use crate::os::deadline::Deadline;
use crate::os::{files, process};
use crate::policy::syntax::FailureMode;

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

/// Run the effects in order, each `run` cut to what is left of `deadline`;
/// return the ones that failed (or were not run because the deadline passed).
pub fn apply(effects: &[Pending], ctx: &Ctx, deadline: Deadline) -> Vec<Failed> {
    let mut failed = vec![];
    for e in effects {
        let result = if deadline.passed() {
            Err("not run: the answer's deadline had passed".to_string())
        } else {
            apply_one(e, ctx, deadline)
        };
        if let Err(error) = result {
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

fn target(e: &Pending, ctx: &Ctx) -> Result<PathBuf, String> {
    let path = e.path.as_deref().ok_or("no path")?;
    files::confine_in(path, &ctx.project_dir, e.within.as_deref())
}

fn apply_one(e: &Pending, ctx: &Ctx, deadline: Deadline) -> Result<(), String> {
    match &e.effect {
        PendingEffect::WriteFile { content } => {
            let p = target(e, ctx)?;
            files::write_atomic(&p, content.as_bytes())
                .map_err(|err| format!("write {}: {err}", p.display()))
        }
        PendingEffect::WriteJson { record, keep } => {
            let p = target(e, ctx)?;
            let mut record = record.clone();
            if let (Ok(old), Value::Object(new)) = (files::read_text(&p), &mut record) {
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
            let p = target(e, ctx)?;
            let line = serde_json::to_string(record).map_err(|e| e.to_string())?;
            files::append_line(&p, &line).map_err(|err| format!("append {}: {err}", p.display()))
        }
        PendingEffect::DeleteFile => {
            let p = target(e, ctx)?;
            match std::fs::remove_file(&p) {
                Ok(()) => Ok(()),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(err) => Err(format!("delete {}: {err}", p.display())),
            }
        }
        PendingEffect::Run { argv, timeout_ms } => {
            let (wait, cut) = deadline.cap(
                std::time::Duration::from_millis(*timeout_ms),
                std::time::Duration::from_millis(20),
            );
            let out = process::run(
                argv,
                &ctx.project_dir,
                &ctx.env_vars,
                wait.as_millis() as u64,
            )
            .map_err(|err| {
                let cut = if cut {
                    format!(
                        " (its timeout_ms is {timeout_ms}, cut to what was left of the deadline)"
                    )
                } else {
                    String::new()
                };
                format!("{argv:?}: {err}{cut}")
            })?;
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
