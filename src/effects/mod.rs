//! Side effects, run after the answer, within what is left of its deadline:
//! atomic writes, JSON-line appends, deletes, commands. Paths built from templates
//! are confined to the folder the policy names (the project directory by default).
//! Only regular files are appended to or replaced (see [`crate::os::files`]).

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use crate::contract::places;
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
    pub error: EffectError,
}

/// Why a side effect failed.
#[derive(Debug, Clone)]
pub enum EffectError {
    /// Not run: the answer's deadline had passed.
    DeadlinePassed,
    /// A file effect without a path.
    NoPath,
    /// Its path (or `within`) is not where the policy may write.
    Confined(files::ConfineInError),
    /// Its path is one of hookrules' own files (policies, hook registrations,
    /// state, cache, binary): no policy's effect writes or deletes them.
    Guarded {
        /// The file, where it lands.
        path: PathBuf,
        /// What it is.
        what: String,
    },
    /// Writing the file failed.
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        error: Arc<std::io::Error>,
    },
    /// Appending to the file failed.
    Append {
        /// The file.
        path: PathBuf,
        /// Why.
        error: Arc<std::io::Error>,
    },
    /// Deleting the file failed.
    Delete {
        /// The file.
        path: PathBuf,
        /// Why.
        error: Arc<std::io::Error>,
    },
    /// The record could not be written as JSON.
    Json(Arc<serde_json::Error>),
    /// A `run` effect ran out of time and its process group was killed.
    Timeout {
        /// The command line.
        argv: Vec<String>,
        /// How long it was given, in milliseconds.
        after_ms: u64,
        /// What it printed before.
        output: String,
        /// Its `timeout_ms`, when the deadline cut it shorter.
        cut_from: Option<u64>,
    },
    /// A `run` effect could not be run.
    Run {
        /// The command line.
        argv: Vec<String>,
        /// Why.
        error: process::RunError,
        /// Its `timeout_ms`, when the deadline cut it shorter.
        cut_from: Option<u64>,
    },
    /// A `run` effect exited with a failure.
    Exited {
        /// The command line.
        argv: Vec<String>,
        /// Its exit status (None: killed by a signal).
        status: Option<i32>,
        /// What it wrote on stderr.
        stderr: String,
    },
}

// Hand-written rather than `thiserror`: a timeout's message is built from
// `RunError`'s, and several variants add the same "cut from" note.
impl std::fmt::Display for EffectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cut = |f: &mut std::fmt::Formatter<'_>, cut_from: &Option<u64>| match cut_from {
            Some(ms) => write!(
                f,
                " (its timeout_ms is {ms}, cut to what was left of the deadline)"
            ),
            None => Ok(()),
        };
        match self {
            EffectError::DeadlinePassed => f.write_str("not run: the answer's deadline had passed"),
            EffectError::NoPath => f.write_str("no path"),
            EffectError::Confined(e) => write!(f, "{e}"),
            EffectError::Guarded { path, what } => write!(
                f,
                "{} is {what}: a policy's effects never write or delete hookrules' own files",
                path.display()
            ),
            EffectError::Write { path, error } => write!(f, "write {}: {error}", path.display()),
            EffectError::Append { path, error } => write!(f, "append {}: {error}", path.display()),
            EffectError::Delete { path, error } => write!(f, "delete {}: {error}", path.display()),
            EffectError::Json(e) => write!(f, "{e}"),
            EffectError::Timeout {
                argv,
                after_ms,
                output,
                cut_from,
            } => {
                let timed_out = process::RunError::TimedOut {
                    ms: *after_ms,
                    output: output.clone(),
                };
                write!(f, "{argv:?}: {timed_out}")?;
                cut(f, cut_from)
            }
            EffectError::Run {
                argv,
                error,
                cut_from,
            } => {
                write!(f, "{argv:?}: {error}")?;
                cut(f, cut_from)
            }
            EffectError::Exited {
                argv,
                status,
                stderr,
            } => write!(f, "{argv:?} exited with {status:?}: {}", stderr.trim()),
        }
    }
}

impl std::error::Error for EffectError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EffectError::Confined(e) => Some(e),
            EffectError::Write { error, .. }
            | EffectError::Append { error, .. }
            | EffectError::Delete { error, .. } => Some(error.as_ref()),
            EffectError::Json(e) => Some(e.as_ref()),
            _ => None,
        }
    }
}

/// Run the effects in order, each `run` cut to what is left of `deadline`;
/// return the ones that failed (or were not run because the deadline passed).
pub fn apply(effects: &[Pending], ctx: &Ctx, deadline: Deadline) -> Vec<Failed> {
    let mut failed = vec![];
    for e in effects {
        let result = if deadline.passed() {
            Err(EffectError::DeadlinePassed)
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

/// Where a file effect writes: in the folder the policy names, and never one
/// of hookrules' own files, judged where the write lands (links followed). A
/// repository's policy that wrote a policy of its own beside it, or took the
/// hook registration out of the settings, would switch the guard off.
fn target(e: &Pending, ctx: &Ctx) -> Result<PathBuf, EffectError> {
    let path = e.path.as_deref().ok_or(EffectError::NoPath)?;
    let p = files::confine_in(path, &ctx.project_dir, e.within.as_deref())
        .map_err(EffectError::Confined)?;
    let real = files::resolve_existing_prefix(&p);
    let exe = std::env::current_exe().ok();
    let guarded = places::guarded(&ctx.env_vars, &ctx.cwd, &ctx.project_dir, exe.as_deref());
    let hit = guarded.iter().find(|g| {
        let place = files::resolve_existing_prefix(&g.path);
        [&p, &real].into_iter().any(|t| {
            [&g.path, &place]
                .into_iter()
                .any(|gp| if g.folder { t.starts_with(gp) } else { t == gp })
                || g.anywhere.as_ref().is_some_and(|a| t.ends_with(a))
        })
    });
    match hit {
        Some(g) => Err(EffectError::Guarded {
            path: real,
            what: g.what.to_string(),
        }),
        None => Ok(p),
    }
}

fn apply_one(e: &Pending, ctx: &Ctx, deadline: Deadline) -> Result<(), EffectError> {
    let write = |path: PathBuf| {
        move |error| EffectError::Write {
            path,
            error: Arc::new(error),
        }
    };
    match &e.effect {
        PendingEffect::WriteFile { content } => {
            let p = target(e, ctx)?;
            files::write_atomic(&p, content.as_bytes()).map_err(write(p))
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
            let text = serde_json::to_string_pretty(&record)
                .map_err(|e| EffectError::Json(Arc::new(e)))?;
            files::write_atomic(&p, text.as_bytes()).map_err(write(p))
        }
        PendingEffect::AppendJsonl { record } => {
            let p = target(e, ctx)?;
            let line = serde_json::to_string(record).map_err(|e| EffectError::Json(Arc::new(e)))?;
            files::append_line(&p, &line).map_err(|error| EffectError::Append {
                path: p,
                error: Arc::new(error),
            })
        }
        PendingEffect::DeleteFile => {
            let p = target(e, ctx)?;
            match std::fs::remove_file(&p) {
                Ok(()) => Ok(()),
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(()),
                Err(err) => Err(EffectError::Delete {
                    path: p,
                    error: Arc::new(err),
                }),
            }
        }
        PendingEffect::Run { argv, timeout_ms } => {
            let (wait, cut) = deadline.cap(
                std::time::Duration::from_millis(*timeout_ms),
                std::time::Duration::from_millis(20),
            );
            let cut_from = cut.then_some(*timeout_ms);
            let out = process::run(
                argv,
                &ctx.project_dir,
                &ctx.env_vars,
                wait.as_millis() as u64,
            )
            .map_err(|error| match error {
                process::RunError::TimedOut { ms, output } => EffectError::Timeout {
                    argv: argv.clone(),
                    after_ms: ms,
                    output,
                    cut_from,
                },
                error => EffectError::Run {
                    argv: argv.clone(),
                    error,
                    cut_from,
                },
            })?;
            if out.ok {
                Ok(())
            } else {
                Err(EffectError::Exited {
                    argv: argv.clone(),
                    status: out.status,
                    stderr: out.stderr,
                })
            }
        }
    }
}
