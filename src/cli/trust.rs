//! `hookrules trust`: the user trusts the project's policies as they are now,
//! so that what they loosen and the commands they run take effect (see
//! `policy::trust` for why, and how a trust is recorded).
//!
//! Like `hookrules allow`, it refuses to run inside Claude Code or without a
//! terminal, and the built-in pack denies the agent running it: only the user
//! trusts a repository.

use crate::os::env::Env;
use std::collections::BTreeMap;
use std::io::Write;

use crate::compile::set::CompiledSet;
use crate::policy::discover::{Selection, Trusted};
use crate::policy::trust::{self, Store};
use crate::source::Origin;

/// `hookrules trust` arguments.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TrustArgs {
    /// List what you have trusted (every project), and whether each file
    /// still holds what you trusted, instead of trusting.
    #[arg(long)]
    pub list: bool,
}

/// `hookrules trust [--list]`.
pub fn run(
    args: &TrustArgs,
    env: &Env,
    stdin_is_tty: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let Some(state) = crate::os::state::state_home(env) else {
        let _ = writeln!(
            err,
            "hookrules trust: no state folder (set HOME or XDG_STATE_HOME)"
        );
        return 2;
    };
    if args.list {
        return list(&Store::open(&state), out);
    }
    if let Some(why) = super::allow::refusal(env, stdin_is_tty) {
        let why = why.replace("allow a denied call", "trust a policy");
        let _ = writeln!(err, "hookrules trust: refused: {why}.");
        return 3;
    }
    let discovery = super::discovery(vec![], env);
    let found = discovery.find();
    if matches!(found.selection, Some(Selection::Flag | Selection::Env)) {
        let _ = writeln!(
            err,
            "hookrules trust: HOOKRULES_POLICIES is set, so the project's policies are not in use; nothing to trust"
        );
        return 1;
    }
    let set = CompiledSet::build(&found);
    let mut by_file: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for l in set.loosenings.iter().filter(|l| !l.trusted) {
        by_file.entry(l.file.clone()).or_default().push(format!(
            "line {}: {}",
            l.line,
            l.what.sentence(&l.rules)
        ));
    }
    if by_file.is_empty() {
        let _ = writeln!(
            out,
            "nothing to trust: the project's policies only add stricter rules, or you trusted them as they are"
        );
        return 0;
    }
    let Some(project) = discovery.project_dir.clone() else {
        let _ = writeln!(
            err,
            "hookrules trust: no project here (set CLAUDE_PROJECT_DIR or run it in the project)"
        );
        return 1;
    };
    let who = super::allow::who(env);
    let mut store = Store::open(&state);
    let mut code = 0;
    for s in &found.sources {
        let Origin::File(path) = &s.origin else {
            continue;
        };
        let Some(lines) = by_file.get(&s.display_name()) else {
            continue;
        };
        if !Trusted::needs_trust(s.layer) {
            continue;
        }
        match store.trust(&project, path, s.full_text(), &who) {
            Ok(_) => {
                let _ = writeln!(
                    out,
                    "trusted {} (sha256 {}) for the project {}, which:",
                    trust::identity(path).display(),
                    &trust::content_hash(s.full_text())[..12],
                    trust::project_identity(&project).display()
                );
                for l in lines {
                    let _ = writeln!(out, "  {l}");
                }
            }
            Err(e) => {
                let _ = writeln!(err, "hookrules trust: {e}");
                code = 2;
            }
        }
    }
    if code == 0 {
        let _ = writeln!(
            out,
            "Any change to these files needs `hookrules trust` again; `hookrules trust --list` shows what you trusted."
        );
    }
    code
}

/// `hookrules trust --list`.
fn list(store: &Store, out: &mut dyn Write) -> i32 {
    if let Some(e) = store.problem() {
        let _ = writeln!(out, "{e}");
        return 1;
    }
    let all = store.list();
    if all.is_empty() {
        let _ = writeln!(out, "you have trusted no project policy");
        return 0;
    }
    for (path, records) in all {
        let now = crate::os::files::read_text(std::path::Path::new(&path))
            .ok()
            .map(|t| trust::content_hash(&t));
        for r in records {
            let standing = match &now {
                Some(h) if *h == r.sha256 => "in force (the file holds what you trusted)",
                Some(_) => "outdated (the file changed since; its loosenings are ignored)",
                None => "the file is gone",
            };
            let project = match r.project.as_str() {
                "" => "its own project".to_string(),
                p => p.to_string(),
            };
            let _ = writeln!(
                out,
                "{path}  for {project}  sha256 {}  by {} at {}  {standing}",
                &r.sha256[..12.min(r.sha256.len())],
                r.by,
                crate::log::time::format_ms(r.time_ms)
            );
        }
    }
    0
}
