//! Where policies come from (the first that applies wins):
//!
//! 1. `--policies PATH` (a file, a folder, or `builtin:NAME`; repeatable);
//! 2. the `HOOKRULES_POLICIES` environment variable (paths separated by `:`);
//! 3. the layers, in this order, each later one overriding the earlier ones:
//!    - user: `$XDG_CONFIG_HOME/hookrules/*.toml` (default `~/.config/hookrules/`),
//!    - project: `$CLAUDE_PROJECT_DIR/.claude/hookrules/*.toml` (committed),
//!    - local: `$CLAUDE_PROJECT_DIR/.claude/hookrules/*.local.toml` (not committed).
//!
//! Above whichever of these applies sits the **managed layer**, the machine's
//! administrator's (see [`super::managed`]): `/etc/hookrules/*.toml`, loaded
//! right after the pack in every case (flags and `HOOKRULES_POLICIES` too), and
//! only what root owns and nobody else can write.
//!
//! Under whichever of these applies lies the built-in pack, compiled into the
//! binary and loaded first. Policies add to it; none replaces it by merely
//! existing (an empty file, one personal rule, a `-p` in settings.json or a
//! `HOOKRULES_POLICIES` in the environment must not switch the protection off).
//! Parts of the pack are turned off by name, visibly: `[[override]]` by id or tag,
//! or a rule with the same id; the whole pack only by `[policy] builtin = false`
//! in a policy ([`Found::builtin_off`] says which file did it) or by the
//! `--no-builtin` flag ([`Discovery::no_builtin`]); `check` and `doctor` say so.
//!
//! A folder contributes its `*.toml` files in file-name order; a file's `extends`
//! are loaded just before it, in its layer. Only regular files are read: a FIFO, a
//! device, a folder or a dangling link named `*.toml` is reported, never opened.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostics::{Code, Diagnostic};
use crate::source::{Layer, Origin, PolicySource};

/// The default pack, compiled into the binary (on unless turned off).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "destructive",
        include_str!("../../policies/destructive.toml"),
    ),
    ("secrets", include_str!("../../policies/secrets.toml")),
    (
        "system-paths",
        include_str!("../../policies/system-paths.toml"),
    ),
    (
        "self-protection",
        include_str!("../../policies/self-protection.toml"),
    ),
    (
        "persistence",
        include_str!("../../policies/persistence.toml"),
    ),
    ("cloud", include_str!("../../policies/cloud.toml")),
    ("databases", include_str!("../../policies/databases.toml")),
];

/// Opt-in packs, compiled into the binary, off until a policy names them
/// (`extends = ["builtin:containers"]`, `--policies builtin:containers`).
pub const OPT_IN: &[(&str, &str)] = &[
    ("containers", include_str!("../../policies/containers.toml")),
    ("publishing", include_str!("../../policies/publishing.toml")),
];

/// The project's policy folder, relative to the project directory.
pub const PROJECT_POLICY_DIR: &str = crate::contract::project::POLICY_DIR;

/// Which policy set was chosen, for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// From `--policies`.
    Flag,
    /// From `HOOKRULES_POLICIES`.
    Env,
    /// From the user, project and local layers, over the built-in pack (unless
    /// a layer turned it off).
    Layers,
    /// The built-in pack alone: no layer holds a policy.
    Builtin,
}

/// Inputs to policy discovery, gathered by the CLI (tests pass their own).
#[derive(Debug, Clone, Default)]
pub struct Discovery {
    /// `--policies` values.
    pub flags: Vec<PathBuf>,
    /// `HOOKRULES_POLICIES`.
    pub env: Option<String>,
    /// `CLAUDE_PROJECT_DIR`, else the current directory.
    pub project_dir: Option<PathBuf>,
    /// The user's hookrules config folder (`~/.config/hookrules`).
    pub user_dir: Option<PathBuf>,
    /// `--no-builtin`: leave the built-in pack out (said by `check` and `doctor`).
    pub no_builtin: bool,
    /// The user's state folder (`os::state::state_home`), where trusted
    /// project policies are recorded; None: no project policy is trusted.
    pub state_home: Option<PathBuf>,
    /// The managed folder (`/etc/hookrules`); None: no managed layer.
    pub managed_dir: Option<PathBuf>,
    /// Managed bundles that must load, by name (`HOOKRULES_MANAGED_REQUIRED`).
    pub managed_required: Vec<String>,
}

/// Which project-layer files the user has trusted, exactly as they are now
/// (see [`super::trust`]), and which are the user's own. Files of other layers
/// need no trust.
///
/// Every project-layer file loosens only once trusted, the user's own
/// `*.local.toml` included: git's answer (untracked and ignored) says where a
/// file is kept, not who wrote it. Any program in the project writes such
/// files (a build script, an archive, `git stash apply`, a nested `.git` that
/// ignores anything), so only the user's `hookrules trust` in a terminal
/// grants an exception. Which local files are the user's own (untracked,
/// ignored) still shapes what `check` and `doctor` say about them.
#[derive(Debug, Clone, Default)]
pub struct Trusted {
    files: std::collections::HashSet<PathBuf>,
    own: std::collections::HashSet<PathBuf>,
    /// The files whose change can change which files are own (git's index,
    /// the `.gitignore`s): the cached set is stamped with them.
    witnesses: Vec<PathBuf>,
    all: bool,
}

impl Trusted {
    /// Does a file of this layer need the user's trust to loosen or run?
    pub fn needs_trust(layer: Layer) -> bool {
        matches!(layer, Layer::Project | Layer::Local)
    }

    /// Every file trusted: for planning only (the timeouts `init` registers fit
    /// what the policies will run once trusted), never for evaluation.
    pub fn assume_all() -> Trusted {
        Trusted {
            all: true,
            ..Trusted::default()
        }
    }

    /// May this source loosen and run commands?
    pub fn covers(&self, source: &PolicySource) -> bool {
        self.all
            || !Trusted::needs_trust(source.layer)
            || matches!(&source.origin, Origin::File(p) if self.files.contains(p))
    }

    /// Is this source the user's own local file (untracked, ignored by git)?
    pub fn is_own(&self, source: &PolicySource) -> bool {
        matches!(&source.origin, Origin::File(p) if self.own.contains(p))
    }

    /// The files whose change can change [`Self::is_own`].
    pub fn witnesses(&self) -> &[PathBuf] {
        &self.witnesses
    }

    /// Ask the trust store of `state_home` about every project-layer source.
    /// Trust is given per project: a file is trusted for `project` only.
    pub fn check(
        sources: &[Arc<PolicySource>],
        state_home: Option<&Path>,
        project: Option<&Path>,
    ) -> Trusted {
        let mut t = Trusted::default();
        let mut store = None;
        for s in sources {
            let Origin::File(p) = &s.origin else { continue };
            let (Some(state_home), Some(project)) = (
                state_home.filter(|_| Trusted::needs_trust(s.layer)),
                project,
            ) else {
                continue;
            };
            let store = store.get_or_insert_with(|| super::trust::Store::open(state_home));
            if store.is_trusted(project, p, s.full_text()) {
                t.files.insert(p.clone());
            }
        }
        t.ask_git(sources);
        t
    }

    /// Ask git which untrusted local-layer files are the user's own (git is
    /// run only when there is one).
    fn ask_git(&mut self, sources: &[Arc<PolicySource>]) {
        let local: Vec<PathBuf> = sources
            .iter()
            .filter(|s| s.layer == Layer::Local)
            .filter_map(|s| match &s.origin {
                Origin::File(p) if is_local(p) && !self.files.contains(p) => Some(p.clone()),
                _ => None,
            })
            .collect();
        // Git is asked in the project (`P/.claude/hookrules/x.local.toml`),
        // not in the folder the file really is in: a policy folder that is a
        // link to another repository, one the agent can make and tell to
        // ignore anything, has no file git counts as the user's own here.
        let Some(dir) = local.first().and_then(|p| p.parent()?.parent()?.parent()) else {
            return;
        };
        if let Some(answer) = crate::os::git::untracked_ignored(dir, &local) {
            self.own.extend(answer.untracked_ignored);
            self.witnesses = answer.witnesses;
        }
    }
}

/// The personal `*.local.toml` policies of the project that git does not
/// count as the user's own (tracked, not ignored, or no git answer) and the
/// user has not trusted: the repository's, so what they loosen or run is
/// ignored. One warning each (HR119), saying why and how to fix it; `check`
/// and `doctor` show them. Asks git once per such file (never on `run`'s path).
#[must_use]
pub fn shipped_local(found: &Found) -> Vec<Diagnostic> {
    use crate::os::git::Standing;
    let mut out = vec![];
    for s in &found.sources {
        let Origin::File(p) = &s.origin else { continue };
        if s.layer != Layer::Local
            || !is_local(p)
            || found.trusted.covers(s)
            || found.trusted.is_own(s)
        {
            continue;
        }
        let name = p.display();
        let (why, fix) = match crate::os::git::standing(p) {
            Standing::Tracked => (
                "git tracks it: it came with the repository",
                format!("if it is yours: `git rm --cached {name}`, add `*.local.toml` to .gitignore, then run `hookrules trust` (every policy file loosens only once trusted); if it came with the repository: review it, then run `hookrules trust` in the project"),
            ),
            Standing::NotIgnored => (
                "git does not ignore it: the next `git add -A` commits it",
                "if it is yours: add `*.local.toml` to .gitignore (or .git/info/exclude; `hookrules init` writes that line), then run `hookrules trust` (every policy file loosens only once trusted); if it is the repository's: review it, then run `hookrules trust` in the project".to_string(),
            ),
            Standing::Unknown => (
                "git cannot say it is yours (no git work tree here, no git, or something other than a file where git reads its ignore rules or index)",
                "review it, then run `hookrules trust` in the project".to_string(),
            ),
        };
        let first_line = s.text.find('\n').unwrap_or(s.text.len());
        out.push(
            Diagnostic::new(
                Code::LocalFromRepository,
                format!("{name} is named as your own policy (`*.local.toml`), but {why}; it is the repository's: untrusted, so what it loosens or runs is ignored"),
            )
            .at(s, 0..first_line)
            .help(fix),
        );
    }
    out
}

/// The policy texts that were found, plus problems reading them.
#[derive(Debug, Default)]
pub struct Found {
    /// Readable sources, in load order.
    pub sources: Vec<Arc<PolicySource>>,
    /// Files that could not be read (each names its path).
    pub errors: Vec<Diagnostic>,
    /// Which step of the search order supplied them.
    pub selection: Option<Selection>,
    /// The files that turned the built-in pack off (`builtin = false`).
    pub builtin_off: Vec<PathBuf>,
    /// The built-in pack was left out by `--no-builtin`.
    pub builtin_off_by_flag: bool,
    /// The project-layer files the user trusted.
    pub trusted: Trusted,
    /// What the managed layer loaded, refused and pinned.
    pub managed: super::managed::Report,
    /// Files already read (see `file_key`).
    seen: std::collections::HashSet<PathBuf>,
}

impl Discovery {
    /// Find the policy files, following the documented order.
    pub fn find(&self) -> Found {
        let managed = super::managed::read(self);
        if managed.is_empty() {
            return self.find_below(vec![]);
        }
        let mut found = self.find_below(managed.sources);
        found.errors.extend(managed.errors);
        super::managed::pin_pack(&mut found, &managed.report.pinned_builtin);
        found.managed = managed.report;
        found
    }

    /// [`Self::find`] under the managed layer: `managed` are its sources, loaded
    /// right after the built-in pack (or first, when the pack is off).
    fn find_below(&self, managed: Vec<Arc<PolicySource>>) -> Found {
        let with_managed = |mut found: Found| {
            if !managed.is_empty() {
                let below = std::mem::take(&mut found.sources);
                found.sources = managed.clone();
                found.sources.extend(below);
            }
            found
        };
        if !self.flags.is_empty() {
            return self.under_builtin(with_managed(read_paths(&self.flags, Selection::Flag)));
        }
        if let Some(env) = self.env.as_deref().filter(|s| !s.trim().is_empty()) {
            let paths: Vec<PathBuf> = env
                .split(':')
                .filter(|s| !s.is_empty())
                .map(PathBuf::from)
                .collect();
            return self.under_builtin(with_managed(read_paths(&paths, Selection::Env)));
        }
        let mut found = Found {
            selection: Some(Selection::Layers),
            ..Found::default()
        };
        if let Some(dir) = self.user_dir.as_ref().filter(|d| d.is_dir()) {
            read_folder(dir, &mut found, |_| Layer::User);
        }
        if let Some(dir) = &self.project_dir {
            let folder = dir.join(PROJECT_POLICY_DIR);
            if folder.is_dir() {
                // One listing for both layers: all project files, then all local ones.
                read_folder(&folder, &mut found, |p| {
                    if is_local(p) {
                        Layer::Local
                    } else {
                        Layer::Project
                    }
                });
            }
        }
        if found.sources.is_empty()
            && found.errors.is_empty()
            && managed.is_empty()
            && !self.no_builtin
        {
            return builtin();
        }
        found.trusted = Trusted::check(
            &found.sources,
            self.state_home.as_deref(),
            self.project_dir.as_deref(),
        );
        self.under_builtin(with_managed(found))
    }

    /// Does [`Self::find`] find the built-in pack and nothing else? Answered
    /// without reading anything, at most a `stat` of each layer folder, so that
    /// `run` can take the pack pre-compiled into the binary. True when the pack
    /// is on and: every `--policies` entry names a part of it (it loads whole
    /// under them, each part once), or `HOOKRULES_POLICIES` names nothing, or
    /// no layer folder exists. False when unsure (a layer folder with no policy in it):
    /// `find` then says the same the slower way. `tests/process/embedded.rs` checks
    /// that both agree.
    pub fn builtin_alone(&self) -> bool {
        if self.no_builtin || !self.managed_required.is_empty() {
            return false;
        }
        if self.managed_dir.as_ref().is_some_and(|d| d.exists()) {
            return false;
        }
        if !self.flags.is_empty() {
            return self.flags.iter().all(|p| {
                p.to_str()
                    .and_then(|p| p.strip_prefix("builtin:"))
                    .is_some_and(|name| BUILTIN.iter().any(|(n, _)| *n == name))
            });
        }
        // Entries are split at `:`, so this variable cannot name `builtin:NAME`.
        if let Some(env) = self.env.as_deref().filter(|s| !s.trim().is_empty()) {
            return env.split(':').all(str::is_empty);
        }
        let project = self
            .project_dir
            .as_ref()
            .map(|d| d.join(PROJECT_POLICY_DIR));
        !project.is_some_and(|d| d.is_dir()) && !self.user_dir.as_ref().is_some_and(|d| d.is_dir())
    }

    /// The built-in pack under what was `found`, unless `--no-builtin` or a
    /// policy's `builtin = false` turns it off (a project-layer policy only
    /// once trusted).
    fn under_builtin(&self, mut found: Found) -> Found {
        found.builtin_off = found
            .sources
            .iter()
            .filter(|s| turns_builtin_off(s) && found.trusted.covers(s))
            .filter_map(|s| match &s.origin {
                Origin::File(p) => Some(p.clone()),
                Origin::Builtin(_) => None,
            })
            .collect();
        found.builtin_off_by_flag = self.no_builtin;
        if found.builtin_off.is_empty() && !self.no_builtin {
            // The pack loads first, so every policy can change it; a policy
            // named as `builtin:NAME` or `extends`ed is not loaded twice.
            // Opt-in packs named this way (`--policies builtin:containers`) stay.
            let named = std::mem::take(&mut found.sources);
            found.sources = builtin().sources;
            let loaded: Vec<Origin> = found.sources.iter().map(|s| s.origin.clone()).collect();
            found
                .sources
                .extend(named.into_iter().filter(|s| !loaded.contains(&s.origin)));
        }
        found
    }
}

/// Does a layer file say `[policy] builtin = false`? Only files that mention
/// `builtin` pay for a parse of their header; a file that does not parse cannot
/// turn anything off (it fails through its own failure mode instead).
fn turns_builtin_off(source: &PolicySource) -> bool {
    #[derive(serde::Deserialize)]
    struct Head {
        #[serde(default)]
        policy: HeadPolicy,
    }
    #[derive(serde::Deserialize, Default)]
    struct HeadPolicy {
        builtin: Option<bool>,
    }
    matches!(source.origin, Origin::File(_))
        && source.text.contains("builtin")
        && toml::from_str::<Head>(&source.text).is_ok_and(|h| h.policy.builtin == Some(false))
}

/// `*.local.toml`: the uncommitted layer.
fn is_local(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.ends_with(".local.toml"))
}

/// Read a layer folder, listed once: its files in layer order (`layer_of` says
/// which layer each belongs to), then by name.
pub(super) fn read_folder(dir: &Path, found: &mut Found, layer_of: impl Fn(&Path) -> Layer) {
    match toml_files_in(dir) {
        Ok(files) => {
            let mut files: Vec<(Layer, PathBuf)> =
                files.into_iter().map(|f| (layer_of(&f), f)).collect();
            files.sort();
            for (layer, f) in files {
                read_with_extends(&f, layer, found, &mut vec![]);
            }
        }
        Err(e) => found.errors.push(Diagnostic::new(
            Code::Unreadable,
            format!("cannot list the policy folder {}: {e}", dir.display()),
        )),
    }
}

/// The built-in pack alone.
pub fn builtin() -> Found {
    Found {
        managed: Default::default(),
        sources: BUILTIN
            .iter()
            .map(|(name, text)| PolicySource::new(Origin::Builtin(name), *text))
            .collect(),
        errors: vec![],
        selection: Some(Selection::Builtin),
        builtin_off: vec![],
        builtin_off_by_flag: false,
        trusted: Trusted::default(),
        seen: Default::default(),
    }
}

/// Look a built-in policy up by name (`builtin:destructive` or `destructive`).
pub fn builtin_named(name: &str) -> Option<Arc<PolicySource>> {
    let name = name.strip_prefix("builtin:").unwrap_or(name);
    BUILTIN
        .iter()
        .chain(OPT_IN)
        .find(|(n, _)| *n == name)
        .map(|(n, t)| PolicySource::new(Origin::Builtin(n), *t))
}

/// Read the given files and folders (folders: their `*.toml`, sorted).
pub fn read_paths(paths: &[PathBuf], selection: Selection) -> Found {
    let mut found = Found {
        selection: Some(selection),
        ..Found::default()
    };
    for path in paths {
        if let Some(src) = path.to_str().and_then(|p| p.strip_prefix("builtin:")) {
            match builtin_named(src) {
                Some(s) => found.sources.push(s),
                None => found.errors.push(Diagnostic::new(
                    Code::Unreadable,
                    format!("there is no built-in policy named `{src}`"),
                )),
            }
            continue;
        }
        if path.is_dir() {
            match toml_files_in(path) {
                Ok(files) => {
                    for f in files {
                        read_one(&f, &mut found);
                    }
                }
                Err(e) => found.errors.push(unreadable(path, &e)),
            }
        } else {
            read_one(path, &mut found);
        }
    }
    found
}

fn read_one(path: &Path, found: &mut Found) {
    read_with_extends(path, Layer::Explicit, found, &mut vec![]);
}

/// The `[policy] extends` list, read without validating the rest of the file.
#[derive(serde::Deserialize)]
struct ExtendsOnly {
    #[serde(default)]
    policy: ExtendsHeader,
}
#[derive(serde::Deserialize, Default)]
struct ExtendsHeader {
    #[serde(default)]
    extends: Vec<super::syntax::Sp<String>>,
}

/// Read a policy after the policies it extends (depth first, each file once).
fn read_with_extends(path: &Path, layer: Layer, found: &mut Found, stack: &mut Vec<PathBuf>) {
    // Each file once, compared by absolute, lexically normalised path.
    let key = file_key(path);
    if !found.seen.insert(key.clone()) {
        return;
    }
    let source = match PolicySource::read_in(path, layer) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
            // Not UTF-8: the error points at the bad byte of a lossy copy, so the
            // policy's own `failure` line can still be honoured.
            let bytes = crate::os::files::read_regular(path, None).unwrap_or_default();
            let at = std::str::from_utf8(&bytes)
                .err()
                .map(|e| e.valid_up_to())
                .unwrap_or(0);
            let lossy = PolicySource::in_layer(
                Origin::File(path.to_path_buf()),
                String::from_utf8_lossy(&bytes).into_owned(),
                layer,
            );
            found.errors.push(
                Diagnostic::new(
                    Code::Unreadable,
                    format!(
                        "{} is not UTF-8 (invalid byte at offset {at})",
                        path.display()
                    ),
                )
                .at(&lossy, at..at + 1)
                .help("policy files are UTF-8 text"),
            );
            return;
        }
        Err(e) => {
            found.errors.push(unreadable(path, &e));
            return;
        }
    };
    // Only files that mention `extends` pay for a second parse of their header.
    if source.text.contains("extends") {
        if let Ok(h) = toml::from_str::<ExtendsOnly>(&source.text) {
            stack.push(key.clone());
            for e in &h.policy.extends {
                if let Some(name) = e.value.strip_prefix("builtin:") {
                    match builtin_named(name) {
                        Some(b) if !found.sources.iter().any(|s| s.origin == b.origin) => {
                            found.sources.push(b)
                        }
                        Some(_) => {}
                        None => found.errors.push(
                            Diagnostic::new(
                                Code::Unreadable,
                                format!("there is no built-in policy named `{name}`"),
                            )
                            .at(&source, e.span.clone()),
                        ),
                    }
                    continue;
                }
                let target = path.parent().unwrap_or(Path::new(".")).join(&e.value);
                let tkey = file_key(&target);
                if stack.contains(&tkey) {
                    let chain: Vec<String> = stack
                        .iter()
                        .chain([&tkey])
                        .map(|p| p.display().to_string())
                        .collect();
                    found.errors.push(
                        Diagnostic::new(
                            Code::ExtendsCycle,
                            format!("extends cycle: {}", chain.join(" -> ")),
                        )
                        .at(&source, e.span.clone())
                        .help("remove one `extends` of the cycle: each file is loaded once, before the files that extend it"),
                    );
                    continue;
                }
                read_with_extends(&target, layer, found, stack);
            }
            stack.pop();
        }
    }
    found.sources.push(source);
}

fn unreadable(path: &Path, e: &std::io::Error) -> Diagnostic {
    Diagnostic::new(
        Code::Unreadable,
        format!("cannot read policy {}: {e}", path.display()),
    )
    .help("check the path (`extends` paths are relative to the file that names them) and that it is a readable UTF-8 file")
}

/// A file's identity for de-duplication: absolute and lexically normalised
/// (no system call per file, which matters with hundreds of policy files).
fn file_key(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    crate::os::files::lexical_normalize(&abs)
}

/// The `*.toml` entries directly inside a folder, sorted by name. Entries that
/// are not regular files are listed too: reading them then fails with a message
/// that says what they are, so none is skipped without a word.
pub fn toml_files_in(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}
