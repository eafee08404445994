//! Where a path lies: the project, a temp folder, a home folder, a system
//! folder, somewhere else, or somewhere nobody can know before the command
//! runs. Policies test these [`Class`]es instead of spellings, so `rm -rf
//! "$PWD"`, `rm -rf $(pwd)` and `cd .. && rm -rf myproj` are all the project
//! folder, and `rm -rf '~'` (a folder named `~`) is not the home folder.
//!
//! Choices (each a class below, documented in the README):
//! * Comparisons that make a path *dangerous* (root, system, home, temp root,
//!   mount, contains-project) ignore ASCII letter case, because macOS and
//!   Windows file systems do; comparisons that make it *safe* (project, temp)
//!   are exact, so `/TMP/x` on Linux is not taken for a temp folder.
//! * Every home folder counts, not only `$HOME`: `/home/NAME`, `/Users/NAME`,
//!   `/root`, `/var/root`, `~NAME`, and Windows's `C:\Users\NAME` as Git Bash
//!   spells it (`/c/Users/NAME`, also `/mnt/c/Users/NAME` under WSL).
//! * Windows drives as Git Bash spells them: `/c` is a top-level folder (so
//!   `system`), `/c/Windows`, `/c/Program Files`, `/c/ProgramData`,
//!   `/c/Users` and what lies directly in `/c/Windows` are `system`.
//! * A project folder that is `/` or a system folder grants nothing: its
//!   contents are not `project`.
//! * Paths are judged where they land: their links are followed
//!   (`shell::links`), the last component only when the command opens it
//!   ([`Use::follow_last`]: `rm -rf link` removes the link, `rm -rf link/*`
//!   what it points to). A path that went through a link keeps its spelling
//!   ([`Target::spelled`]) for the lists that name files.

use std::sync::{Arc, OnceLock};

use crate::shell::links::{self, Made, Resolver};
use crate::shell::path::{is_within, normalize};
use crate::shell::place;
use crate::shell::value::{Piece, Sym, Value};

/// A kind of place.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// `/` itself.
    Root,
    /// A system folder: a top-level folder other than the temp roots (`/etc`,
    /// `/usr`, `/home`, `/opt`, `/mnt`, `/nix`, …) or a well-known folder in
    /// one (`/usr/local`, `/usr/local/bin`, `/var/lib`, `/etc/ssh`, …).
    System,
    /// A home folder: `$HOME`, `/home/NAME`, `/Users/NAME`, `/root`, `~NAME`.
    Home,
    /// A folder directly in a home folder (`~/Documents`, `~/.ssh`).
    HomeTop,
    /// Anything inside a home folder (including `home_top`).
    InHome,
    /// A temp root: `/tmp`, `/var/tmp`, `/dev/shm`, `/private/tmp`, `$TMPDIR`,
    /// macOS `/var/folders/…/T`.
    TempRoot,
    /// Anything inside a temp root.
    Temp,
    /// A mounted volume: `/mnt/X`, `/media/X`, `/media/USER/X`,
    /// `/run/media/USER/X`, `/Volumes/X`.
    Mount,
    /// The project folder or anything in it (`.git` included).
    Project,
    /// The project folder itself.
    ProjectRoot,
    /// The project's `.git` folder or anything in it.
    ProjectGit,
    /// A folder the project is in (`..`, `~` when the project is in it, `/`).
    ContainsProject,
    /// Not in the project.
    OutsideProject,
    /// Outside the project and in none of the places above (`/etc/hosts`,
    /// `/opt/app/data`, `/var/log/x`, `/mnt/disk/x`).
    Elsewhere,
    /// Depends on a value nobody can know before the command runs (`$DIR/*`,
    /// `$(…)`, `$1`, operands `xargs` adds).
    Unknown,
    /// What decides what the agent may do: hookrules' policies and cache, the
    /// hook registrations of every host (Claude Code's settings, Codex's,
    /// Gemini's, Cursor's, the repository's `.github/hooks/`), the plugin's
    /// data, the hookrules binary ([`Guards`]).
    GuardConfig,
    /// hookrules' state: decision log, allowances, trust records.
    GuardState,
    /// hookrules' per-user key (a secret).
    GuardKey,
    /// What switches hookrules on, where it is there: a host's hook or
    /// settings file whose text names hookrules (or a folder holding one),
    /// and the hookrules binary ([`Wiring`]). Removing or replacing it
    /// switches the guard off; it is also [`Class::GuardConfig`].
    GuardWiring,
    /// A file on disk whose first bytes are a private key (PEM, OpenSSH, PGP,
    /// PuTTY), whatever its name (`deploy/id_deploy`). Read only when a test
    /// asks for it ([`with_content`]).
    PrivateKey,
    /// A settings file on disk that holds a credential: a field named for a
    /// key, token or password with a value written in (`"secretKey": "…"`,
    /// `api_key = …`, `token: …`), whatever the file's name
    /// (`~/.mc/config.json`, `~/.continue/config.json`). Read only when a test
    /// asks for it ([`with_content`]).
    Credentials,
    /// A plain path where nothing is on disk yet, in a folder that is there
    /// (a dangling link lands nowhere either): writing there loses nothing.
    /// Asked of the disk only when a test names it ([`with_content`]); a
    /// pattern, a relative or an unknown path is never absent.
    Absent,
}

impl Class {
    /// Every class with its name in policies, most specific first (a test
    /// reports the first class of this list that a target has).
    pub const ALL: &'static [(Class, &'static str)] = &[
        (Class::Root, "root"),
        (Class::Home, "home"),
        (Class::ProjectRoot, "project_root"),
        (Class::ProjectGit, "project_git"),
        (Class::HomeTop, "home_top"),
        (Class::TempRoot, "temp_root"),
        (Class::Mount, "mount"),
        (Class::System, "system"),
        (Class::ContainsProject, "contains_project"),
        (Class::Temp, "temp"),
        (Class::InHome, "in_home"),
        (Class::Project, "project"),
        (Class::Elsewhere, "elsewhere"),
        (Class::OutsideProject, "outside_project"),
        (Class::Unknown, "unknown"),
        (Class::GuardKey, "guard_key"),
        (Class::GuardWiring, "guard_wiring"),
        (Class::GuardState, "guard_state"),
        (Class::GuardConfig, "guard_config"),
        (Class::PrivateKey, "private_key"),
        (Class::Credentials, "credentials"),
        (Class::Absent, "absent"),
    ];

    /// The name used in policies.
    #[must_use]
    pub fn name(self) -> &'static str {
        Class::ALL
            .iter()
            .find(|(c, _)| *c == self)
            .map_or("?", |(_, n)| n)
    }

    /// The class a policy names.
    #[must_use]
    pub fn parse(name: &str) -> Option<Class> {
        Class::ALL.iter().find(|(_, n)| *n == name).map(|(c, _)| *c)
    }

    fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// A set of classes.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Classes(u32);

impl Classes {
    /// Is `c` in the set?
    #[must_use]
    pub fn has(self, c: Class) -> bool {
        self.0 & c.bit() != 0
    }

    /// Add a class.
    pub fn add(&mut self, c: Class) {
        self.0 |= c.bit();
    }

    /// Both sets.
    #[must_use]
    pub fn union(self, o: Classes) -> Classes {
        Classes(self.0 | o.0)
    }

    /// Any class in common?
    #[must_use]
    pub fn meets(self, o: Classes) -> bool {
        self.0 & o.0 != 0
    }

    /// Does the set hold a class only the disk gives, a file's content or
    /// its absence ([`Class::PrivateKey`], [`Class::Credentials`],
    /// [`Class::Absent`])? A test that names one opens the files it judges
    /// ([`with_content`]).
    #[must_use]
    pub fn by_content(self) -> bool {
        self.has(Class::PrivateKey) || self.has(Class::Credentials) || self.has(Class::Absent)
    }

    /// Does the set hold a class a path has by where it lies (any but
    /// [`UNPLACED`])?
    #[must_use]
    pub fn placed(self) -> bool {
        self.0 & !UNPLACED.0 != 0
    }

    /// The set of these classes.
    #[must_use]
    pub fn of(list: &[Class]) -> Classes {
        let mut s = Classes::default();
        for c in list {
            s.add(*c);
        }
        s
    }

    /// The classes in the set, in [`Class::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Class> {
        Class::ALL
            .iter()
            .map(|(c, _)| *c)
            .filter(move |c| self.has(*c))
    }

    /// Names, for traces and templates.
    #[must_use]
    pub fn names(self) -> Vec<&'static str> {
        self.iter().map(Class::name).collect()
    }
}

/// What the event and the environment say about the machine.
#[derive(Debug, Clone, Default)]
pub struct Env {
    /// The event's `cwd` (absolute).
    pub cwd: String,
    /// `$HOME`, if known.
    pub home: Option<String>,
    /// The project folder (absolute).
    pub project: String,
    /// `$TMPDIR`, if set.
    pub tmpdir: Option<String>,
    /// `$USER`, if known.
    pub user: Option<String>,
    /// Follows links, with the event's cache of what the disk holds.
    pub links: Resolver,
    /// What decides what the agent may do, and where it is.
    pub guards: Guards,
    /// The classes of place judged (all but for the prefilter, see
    /// [`Judged`]).
    pub judged: Judged,
}

/// Which classes of place a path is judged for. The prefilter of a list of
/// paths asks only for the classes its rules name: a list whose rules name
/// none costs no classification for the paths of a command, and one whose
/// rules name only [`Class::GuardKey`] needs the key's place alone, not the
/// list of every guarded place (tens of thousands of instructions per
/// event). The paths and their texts are the same whatever is judged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Judged {
    /// Every class.
    #[default]
    All,
    /// Of the classes of place, only [`Class::GuardKey`] ([`Guards::keys`]).
    Key,
    /// Only the classes a path has wherever it lies ([`UNPLACED`]).
    Unplaced,
}

impl Judged {
    /// What judges the classes `wanted`, the least work first.
    #[must_use]
    pub fn wanting(wanted: Classes) -> Judged {
        if !wanted.placed() {
            Judged::Unplaced
        } else if wanted.0 & !(UNPLACED.0 | 1 << Class::GuardKey as u32) == 0 {
            Judged::Key
        } else {
            Judged::All
        }
    }
}

/// A file or folder whose change changes what the agent may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guard {
    /// Where it is (absolute, normalised, in lowercase: places are compared
    /// ignoring letter case, as macOS and Windows volumes do).
    pub path: String,
    /// Where it is, normalised and spelled as the environment names it: the
    /// name the file system opens (its hard links are found by it).
    pub at: String,
    /// A folder: everything in it is guarded too.
    pub folder: bool,
    /// [`Class::GuardConfig`], [`Class::GuardState`] or [`Class::GuardKey`].
    pub class: Class,
    /// hookrules makes it again when it is gone (the cache): only a write
    /// into it counts, not clearing a folder above it.
    pub regenerable: bool,
    /// What it is, for reasons.
    pub what: std::borrow::Cow<'static, str>,
    /// A project-level place, guarded at the same place under any folder too:
    /// its part below the project, with a leading `/`, in lowercase
    /// (`/.codex/hooks.json`).
    pub anywhere: Option<String>,
    /// It switches hookrules on, when it is there ([`Class::GuardWiring`]).
    pub wires: Option<Wires>,
}

/// How a guarded place switches hookrules on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wiring {
    /// A host's hook or settings file, or a folder of them: it registers
    /// hookrules when its text names it.
    Hooks,
    /// The hookrules binary.
    Binary,
}

/// A guarded place that may switch hookrules on, and whether it does, read
/// from the disk the first time an event asks (most events never do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wires {
    kind: Wiring,
    /// Where it is, as the environment spells it.
    at: std::path::PathBuf,
    found: OnceLock<bool>,
}

/// Most entries of a folder of hook files read for [`Wires::on`].
const MAX_HOOK_FILES: usize = 64;

impl Wires {
    /// The place at `at`, of this kind.
    #[must_use]
    pub fn new(kind: Wiring, at: std::path::PathBuf) -> Wires {
        Wires {
            kind,
            at,
            found: OnceLock::new(),
        }
    }

    /// Does it switch hookrules on now: the binary is there; the hook file
    /// (or a file in the folder) names hookrules. Files are read through the
    /// bounded reader that never waits on a FIFO or a device.
    pub fn on(&self) -> bool {
        *self.found.get_or_init(|| {
            let Ok(meta) = std::fs::symlink_metadata(&self.at) else {
                return false;
            };
            match self.kind {
                Wiring::Binary => true,
                Wiring::Hooks if meta.is_dir() => std::fs::read_dir(&self.at).is_ok_and(|d| {
                    d.flatten()
                        .take(MAX_HOOK_FILES)
                        .any(|e| crate::shell::command::names_hookrules(&e.path()))
                }),
                Wiring::Hooks => crate::shell::command::names_hookrules(&self.at),
            }
        })
    }
}

/// The guarded places of an event, made when a path is first classified.
#[derive(Clone, Default)]
pub struct Guards {
    list: Arc<OnceLock<Vec<Guard>>>,
    make: Option<Arc<dyn Fn() -> Vec<Guard> + Send + Sync>>,
    /// Its places of the per-user key, made on their own when the whole
    /// list is not (see [`Guards::keys`]).
    keys: Arc<OnceLock<Vec<Guard>>>,
    make_keys: Option<Arc<dyn Fn() -> Vec<Guard> + Send + Sync>>,
}

impl std::fmt::Debug for Guards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guards")
            .field("list", &self.list.get())
            .finish_non_exhaustive()
    }
}

impl Guards {
    /// Guards that `make` lists when first needed, and whose places of
    /// [`Class::GuardKey`] `make_keys` lists (the same as `make`'s, in the
    /// same order) when those alone are needed.
    pub fn new(
        make: impl Fn() -> Vec<Guard> + Send + Sync + 'static,
        make_keys: impl Fn() -> Vec<Guard> + Send + Sync + 'static,
    ) -> Guards {
        Guards {
            list: Arc::new(OnceLock::new()),
            make: Some(Arc::new(make)),
            keys: Arc::new(OnceLock::new()),
            make_keys: Some(Arc::new(make_keys)),
        }
    }

    /// These guards.
    #[must_use]
    pub fn of(list: Vec<Guard>) -> Guards {
        let cell = OnceLock::new();
        let _ = cell.set(list);
        Guards {
            list: Arc::new(cell),
            ..Guards::default()
        }
    }

    /// The guarded places.
    pub fn list(&self) -> &[Guard] {
        self.list
            .get_or_init(|| self.make.as_ref().map(|m| m()).unwrap_or_default())
    }

    /// The guarded places of [`Class::GuardKey`], in the list's order: taken
    /// from the list when it is made, else made on their own.
    pub fn keys(&self) -> &[Guard] {
        self.keys
            .get_or_init(|| match (self.list.get(), &self.make_keys) {
                (None, Some(make_keys)) => make_keys(),
                _ => self
                    .list()
                    .iter()
                    .filter(|g| g.class == Class::GuardKey)
                    .cloned()
                    .collect(),
            })
    }
}

/// How a command uses a path, for following its links.
#[derive(Debug, Clone, Copy)]
pub struct Use<'a> {
    /// Follow links at all (`false`: the path as spelled).
    pub resolve: bool,
    /// The last component is followed: the command opens the file (reads,
    /// writes, `chmod`), rather than acting on the name (`rm`, `mv`).
    pub follow_last: bool,
    /// Links the command made earlier in the same command line.
    pub made: &'a [links::MadeLink],
}

impl Use<'_> {
    /// A path the command opens, with no links made before it.
    pub const OPEN: Use<'static> = Use {
        resolve: true,
        follow_last: true,
        made: &[],
    };
    /// As spelled: no link followed.
    pub const SPELLED: Use<'static> = Use {
        resolve: false,
        follow_last: true,
        made: &[],
    };
}

/// One place a value may point at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The path as far as known (`…` where unknown, patterns kept).
    pub path: String,
    /// Its classes.
    pub classes: Classes,
    /// When the path is a shell pattern (`./.e*`, `find`'s `{}`): the path with
    /// its pattern characters marked (see `shell::glob`), so a list can ask
    /// which names it can match.
    pub pattern: Option<String>,
    /// When a link made the path land elsewhere: the path as spelled, with its
    /// own classes and pattern. Classes judge where the path lands (`path`);
    /// lists of names (`glob`) match either.
    pub spelled: Option<Box<Target>>,
}

impl Target {
    /// A path that is no pattern.
    #[must_use]
    pub fn plain(path: String, classes: Classes) -> Target {
        Target {
            path,
            classes,
            pattern: None,
            spelled: None,
        }
    }

    /// The target and, when a link moved it, the target as spelled.
    pub fn forms(&self) -> impl Iterator<Item = &Target> {
        std::iter::once(self).chain(self.spelled.as_deref())
    }
}

/// The classes of `t`, with those the disk gives: [`Class::PrivateKey`] when
/// its first bytes are a private key, [`Class::Credentials`] when it is a
/// settings file with a credential written in, [`Class::Absent`] when
/// nothing is there. Only a test that names one of them calls this: it opens
/// the file (a regular file only, never waiting on a FIFO; a link is the file
/// it points to) and reads at most [`CONTENT_HEAD`] bytes, once for all three.
#[must_use]
pub fn with_content(t: &Target) -> Classes {
    let mut classes = t.classes;
    if t.pattern.is_some() || !t.path.starts_with('/') || classes.has(Class::Unknown) {
        return classes;
    }
    let head = match crate::os::files::read_capped(std::path::Path::new(&t.path), CONTENT_HEAD) {
        Ok(head) => head,
        Err(e) => {
            if e.kind() == std::io::ErrorKind::NotFound && parent_is_folder(&t.path) {
                classes.add(Class::Absent);
            }
            return classes;
        }
    };
    if holds_private_key(&head) {
        classes.add(Class::PrivateKey);
    }
    if holds_credentials(&head) {
        classes.add(Class::Credentials);
    }
    classes
}

/// Is the folder `path` names its entry in there, as a folder? A name is
/// free to write only where the folder it goes in can be seen: a path whose
/// folders are missing too is one an earlier command of the line may make
/// (`mkdir -p ~/x && mv ~/a ~/x/a`), or a spelling that lands elsewhere.
fn parent_is_folder(path: &str) -> bool {
    std::path::Path::new(path)
        .parent()
        .is_some_and(|p| std::fs::metadata(p).is_ok_and(|m| m.is_dir()))
}

/// Most bytes of a file read to judge its content: a private key's armour
/// is in its first lines; a tool's settings file is a few KiB (a huge file
/// is judged by its head).
pub const CONTENT_HEAD: u64 = 16 * 1024;

/// Is `head` a private key by its content: a PEM file (its first
/// line a `-----BEGIN …` armour, or openssl's `Bag Attributes`) with a
/// private key's armour at the start of a line (a certificate may come
/// first), an SSH2 or PuTTY private key? A source file that quotes an armour
/// is not one: its first line is code.
fn holds_private_key(head: &str) -> bool {
    let mut lines = head
        .lines()
        .take(200)
        .map(|l| l.trim_start_matches('\u{feff}').trim())
        .filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return false;
    };
    let private = |l: &str| {
        l.starts_with("PuTTY-User-Key-File-")
            || l == "---- BEGIN SSH2 ENCRYPTED PRIVATE KEY ----"
            || l == "-----BEGIN PGP PRIVATE KEY BLOCK-----"
            || (l.starts_with("-----BEGIN ") && l.ends_with("PRIVATE KEY-----"))
    };
    private(first)
        || ((first.starts_with("-----BEGIN ") || first.starts_with("Bag Attributes"))
            && lines.any(private))
}

/// Is `head` a settings file (JSON, YAML, TOML, INI, `KEY=VALUE`) with a
/// credential written in: a field whose name says it holds a secret
/// ([`credential_field`]) and whose value is a literal of at least 8
/// characters, not a reference to one kept elsewhere (`${VAR}`, `$VAR`,
/// `env:…`, `{{ … }}`, `<placeholder>`, a `*`-masked value). A source file
/// that names such a field in code (`password = input()`) is not: its value
/// is no literal.
fn holds_credentials(head: &str) -> bool {
    head.lines().take(2000).any(|line| {
        json_pairs(line).any(|(name, value)| credential_field(name) && literal_secret(value)) || {
            let line = line.trim().trim_start_matches('-').trim_start();
            // `name: value`, `name = value`, `name=value`
            line.split_once(':')
                .filter(|(n, _)| !n.contains('='))
                .or_else(|| line.split_once('='))
                .is_some_and(|(name, value)| {
                    let name = name.trim().trim_matches(|c| c == '"' || c == '\'');
                    let value = value.trim().trim_end_matches(',').trim();
                    let value = value
                        .strip_prefix('"')
                        .and_then(|v| v.strip_suffix('"'))
                        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
                        .unwrap_or(value);
                    credential_field(name) && literal_secret(value)
                })
        }
    })
}

/// The `"name": "value"` pairs of a line of JSON, wherever they are in it
/// (a whole file on one line: `{"aliases":{"s3":{"secretKey":"…"}}}`).
fn json_pairs(line: &str) -> impl Iterator<Item = (&str, &str)> {
    // Each quoted string: where its opening and closing quotes are.
    let mut quoted: Vec<(usize, usize)> = vec![];
    let mut from = 0;
    while let Some(open) = line[from..].find('"').map(|i| from + i) {
        let Some(close) = line[open + 1..].find('"').map(|i| open + 1 + i) else {
            break;
        };
        quoted.push((open, close));
        from = close + 1;
    }
    let pairs: Vec<(&str, &str)> = quoted
        .windows(2)
        .filter(|w| line[w[0].1 + 1..w[1].0].trim() == ":")
        .map(|w| (&line[w[0].0 + 1..w[0].1], &line[w[1].0 + 1..w[1].1]))
        .collect();
    pairs.into_iter()
}

/// A field named for a secret: a key, a token, a password, a client secret
/// (`secretKey`, `api_key`, `accessToken`, `client-secret`, `password`,
/// `auth`, `ANTHROPIC_API_KEY`), in any case and with `-`, `_` or `.`
/// between its words; a key's public half or a name is not (`keyName`,
/// `public_key`, `tokenUrl`).
fn credential_field(name: &str) -> bool {
    if name.is_empty() || name.len() > 64 || name.contains(char::is_whitespace) {
        return false;
    }
    let n: String = name
        .chars()
        .filter(|c| !matches!(c, '-' | '_' | '.'))
        .collect::<String>()
        .to_ascii_lowercase();
    const ENDS: &[&str] = &[
        "secretkey",
        "secretaccesskey",
        "apikey",
        "apitoken",
        "authtoken",
        "accesstoken",
        "refreshtoken",
        "sessiontoken",
        "bearertoken",
        "clientsecret",
        "privatekey",
        "password",
        "passwd",
        "secret",
        "token",
    ];
    (ENDS.iter().any(|e| n.ends_with(e)) && !n.starts_with("public"))
        || matches!(n.as_str(), "auth" | "pass" | "accesskey")
}

/// A value written in (not a reference to one kept elsewhere, not masked, not
/// a placeholder), long enough to be a credential.
fn literal_secret(v: &str) -> bool {
    v.chars().count() >= 8
        && !v.starts_with(['$', '<', '[', '{', '%', '*'])
        && !v.to_ascii_lowercase().starts_with("env:")
        && !v.contains("{{")
        && !v.contains(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ';' | ','))
        && !matches!(v, "true" | "false" | "null")
}

/// A file name no folder has: stands for "some name here" when classifying.
const SOMETHING: &str = "\u{E000}";
use crate::shell::glob::{BRACKET, QUESTION, STAR};

/// Where each alternative of `value` lies, relative to the directory `cwd`,
/// for a command that opens it (links followed).
#[must_use]
pub fn targets(value: &Value, cwd: &Value, env: &Env) -> Vec<Target> {
    targets_for(value, cwd, env, Use::OPEN)
}

/// Where each alternative of `value` lies, relative to the directory `cwd`,
/// used as `how` says.
#[must_use]
pub fn targets_for(value: &Value, cwd: &Value, env: &Env, how: Use<'_>) -> Vec<Target> {
    let made = if how.resolve && !how.made.is_empty() {
        made_links(how.made, env)
    } else {
        Vec::new()
    };
    let mut out: Vec<Target> = Vec::new();
    // The empty word (`rm -rf ""`, `"$X"` where X is empty) names no file:
    // every program refuses it (`No such file or directory`).
    let named;
    let value = if value.0.iter().any(Sym::is_empty) {
        named = Value(value.0.iter().filter(|s| !s.is_empty()).cloned().collect());
        &named
    } else {
        value
    };
    let respelled = windows_spelled(value, env);
    for full in absolute(respelled.as_ref().unwrap_or(value), cwd) {
        let t = target(&full, env, how, &made);
        let below = made_below(&t, env, how, &made);
        push(&mut out, t);
        for t in link_matches(&full, env, how, &made)
            .into_iter()
            .chain(below)
        {
            push(&mut out, t);
        }
    }
    out
}

/// The folder a variable Windows defines names (`$USERPROFILE`,
/// `${APPDATA}` as bash leaves them unknown).
fn windows_var(p: &Piece) -> Option<Sym> {
    let name = match p {
        Piece::Env(n) if n != "USER" && n != "LOGNAME" => n.as_str(),
        Piece::Unknown(w) => {
            let n = w.strip_prefix('$')?;
            n.strip_prefix('{')
                .and_then(|n| n.strip_suffix('}'))
                .unwrap_or(n)
        }
        _ => return None,
    };
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    place::windows_var(name)
}

/// `value` with its Windows spellings in the one spelling (`shell::place`):
/// a word that starts with a drive, a share, `/cygdrive/` or a Windows
/// variable in cmd's or PowerShell's spelling ([`place::word`]: `rm -rf
/// 'C:\Users\dev'`, `C:/Windows`, `%USERPROFILE%` in Git Bash), and on a Windows machine a
/// variable Windows defines (`$USERPROFILE`, `$APPDATA`, `$SYSTEMROOT`).
/// `None`: nothing to respell (the common case costs no allocation).
fn windows_spelled(value: &Value, env: &Env) -> Option<Value> {
    let windows = env.windows();
    let respell = |s: &Sym| -> Option<Sym> {
        let first = match s.0.first() {
            Some(Piece::Text(t)) => place::word(t, windows),
            _ => None,
        };
        let var = |p: &Piece| windows_var(p).is_some();
        if first.is_none() && !(windows && s.0.iter().any(var)) {
            return None;
        }
        let mut changed = false;
        let mut out = Sym::default();
        for (i, p) in s.0.iter().enumerate() {
            match p {
                Piece::Text(_) if i == 0 && first.is_some() => {
                    changed = true;
                    out.extend(first.as_ref().unwrap_or(&Sym::default()));
                }
                p if windows => match windows_var(p) {
                    Some(v) => {
                        changed = true;
                        out.extend(&v);
                    }
                    None => out.push(p.clone()),
                },
                p => out.push(p.clone()),
            }
        }
        changed.then_some(out)
    };
    let mut any = false;
    let alts: Vec<Sym> = value
        .0
        .iter()
        .map(|s| match respell(s) {
            Some(r) => {
                any = true;
                r
            }
            None => s.clone(),
        })
        .collect();
    any.then_some(Value(alts))
}

/// Each alternative of `value` made absolute against `cwd`.
fn absolute(value: &Value, cwd: &Value) -> Vec<Sym> {
    let mut out = Vec::new();
    for s in &value.0 {
        if is_absolute(s) {
            out.push(s.clone());
        } else {
            for c in &cwd.0 {
                let mut full = c.clone();
                if !s.is_empty() {
                    full.push(Piece::Text("/".into()));
                    full.extend(s);
                }
                out.push(full);
            }
        }
    }
    out
}

/// The links a command made, where they are on this machine: each link's
/// folders resolved (through the links made before it), its target text
/// known or not. A link whose own path is not known is left out (the paths
/// through it are not known either).
fn made_links(made: &[links::MadeLink], env: &Env) -> Vec<Made> {
    let mut out: Vec<Made> = Vec::new();
    for m in made {
        let to = match m.target.0.as_slice() {
            [one] => known_text(one, env).and_then(|t| match &m.base {
                links::Base::LinkFolder => Some(t),
                links::Base::Cwd(_) if t.starts_with('/') => Some(t),
                links::Base::Cwd(cwd) => match cwd.0.as_slice() {
                    [c] => known_text(c, env).map(|c| format!("{c}/{t}")),
                    _ => None,
                },
            }),
            _ => None,
        };
        for name in absolute(&m.name, &m.cwd) {
            let Some(name) = known_text(&name, env) else {
                continue;
            };
            let mut path = env.links.resolve(&name, false, &out).path;
            let into = match m.place {
                links::Place::Name => false,
                links::Place::Folder => true,
                links::Place::AsDisk => env.links.resolve(&name, true, &out).is_folder,
            };
            if into {
                let base = to
                    .as_deref()
                    .and_then(|t| t.trim_end_matches('/').rsplit('/').next())
                    .filter(|b| !b.is_empty());
                match base {
                    Some(b) => path = format!("{}/{b}", path.trim_end_matches('/')),
                    None => continue,
                }
            }
            out.push(Made {
                path,
                to: to.clone(),
            });
        }
    }
    out
}

/// The folder a command runs in (its `cwd`, after the `cd`s before it), as
/// text, when it is one known folder other than where the commands start:
/// `None` for the start itself, several possible folders, or an unknown one.
#[must_use]
pub fn moved_to(cwd: &Value, env: &Env) -> Option<String> {
    let [one] = cwd.0.as_slice() else {
        return None;
    };
    if one.0.as_slice() == [Piece::Start] {
        return None;
    }
    let text = known_text(one, env)?;
    let norm = normalize(&text, "/", env.home.as_deref()).ok()?;
    (norm.starts_with('/') && norm != env.cwd).then_some(norm)
}

/// The text of a path whose every piece is known on this machine.
fn known_text(s: &Sym, env: &Env) -> Option<String> {
    let mut text = String::new();
    for p in &s.0 {
        match p {
            Piece::Text(t) => text.push_str(t),
            Piece::Home => text.push_str(env.home.as_deref()?),
            Piece::HomeOf(u) => text.push_str(&home_of(u, env)),
            Piece::Start => text.push_str(&env.cwd),
            Piece::Project => text.push_str(&env.project),
            Piece::TempRoot => text.push_str(&env.temp_root()),
            Piece::Env(n) if n == "USER" || n == "LOGNAME" => text.push_str(env.user.as_deref()?),
            Piece::Followed => {}
            Piece::Glob(_)
            | Piece::Env(_)
            | Piece::Unknown(_)
            | Piece::Below
            | Piece::Contained(_) => return None,
        }
    }
    Some(text)
}

/// Everything below a target that a recursive removal, move or change
/// reaches (`rm -rf d` changes `d/…`), unless the target is a link the command
/// acts on by name (`rm -rf link` removes only the link) or unknown. Below a
/// pattern is below each folder it matches on disk ([`pattern_below`]).
#[must_use]
pub fn below(t: &Target, env: &Env) -> Vec<Target> {
    if t.classes.has(Class::Unknown) || !t.path.starts_with('/') {
        return Vec::new();
    }
    if let Some(pattern) = &t.pattern {
        return pattern_below(pattern, env);
    }
    if env.links.is_link(&t.path) {
        return Vec::new();
    }
    vec![located(&join(&t.path, SOMETHING), false, false, env)]
}

/// What a recursion reaches below a pattern (`rm -rf .c*`, normalised, its
/// markers in place): the shell replaces the pattern with the names it
/// matches on disk ([`pattern_on_disk`]), and the recursion goes below each
/// folder among them (not below a link, which is removed by name; not into a
/// place hookrules makes again, as for a plain folder above it: `rm -rf
/// ~/.cache/*` clears caches). A pattern that matches nothing stays as
/// written and names nothing; when the matches are more than the expansion
/// keeps, some name below some match counts too.
fn pattern_below(pattern: &str, env: &Env) -> Vec<Target> {
    let matches = pattern_on_disk(pattern);
    let mut out: Vec<Target> = Vec::new();
    if matches.len() >= MAX_PATTERN_MATCHES {
        out.push(located(&join(pattern, SOMETHING), false, false, env));
    }
    for m in matches {
        if !std::fs::symlink_metadata(&m).is_ok_and(|md| md.is_dir()) {
            continue;
        }
        let lower = m.to_ascii_lowercase();
        let regenerable = env
            .guards
            .list()
            .iter()
            .any(|g| g.regenerable && g.path == lower);
        if !regenerable {
            out.push(located(&join(&m, SOMETHING), false, false, env));
        }
    }
    out
}

/// Most entries read below a folder looking for the links a recursion that
/// follows links would enter (one event, one folder).
pub const MAX_LINKED_WALK: usize = 4096;

/// What a recursion that follows every link it meets (`find -L … -delete`,
/// `chown -R -L`) reaches through the links below `t` besides `t` itself:
/// each link found below it (a bounded walk, not entering the links) whose
/// landing lies outside `t`, with everything below that landing. A walk cut
/// short by [`MAX_LINKED_WALK`] or an unreadable folder adds a place nobody
/// knows (the links not seen may lead anywhere).
#[must_use]
pub fn linked_below(t: &Target, env: &Env) -> Vec<Target> {
    if t.pattern.is_some() || t.classes.has(Class::Unknown) || !t.path.starts_with('/') {
        return Vec::new();
    }
    let top = env.links.resolve(&t.path, true, &[]);
    if top.unknown || !top.is_folder {
        return Vec::new();
    }
    let walk = links_in(&top.path);
    let mut out: Vec<Target> = Vec::new();
    for link in &walk.links {
        let r = env.links.resolve(link, true, &[]);
        if !r.unknown && is_within(&r.path, &top.path) {
            continue;
        }
        let mut landed = located(&env.respell(&r.path), false, false, env);
        if r.unknown {
            landed.classes = Classes::of(&[Class::Unknown]);
        }
        for b in below(&landed, env) {
            push(&mut out, b);
        }
        push(&mut out, landed);
    }
    if !walk.complete {
        push(
            &mut out,
            Target::plain(
                format!("{}/… (links not all seen)", t.path.trim_end_matches('/')),
                Classes::of(&[Class::Unknown]),
            ),
        );
    }
    out
}

/// The symbolic links found below the folder `top` (physical, absolute),
/// breadth first, links not entered.
struct LinksIn {
    links: Vec<String>,
    complete: bool,
}

fn links_in(top: &str) -> LinksIn {
    let mut links = Vec::new();
    let mut complete = true;
    let mut seen = 0usize;
    let mut queue = std::collections::VecDeque::from([(top.trim_end_matches('/').to_string(), 0)]);
    while let Some((dir, depth)) = queue.pop_front() {
        let Ok(entries) = std::fs::read_dir(if dir.is_empty() { "/" } else { &dir }) else {
            complete = false;
            continue;
        };
        for e in entries {
            seen += 1;
            if seen > MAX_LINKED_WALK {
                return LinksIn {
                    links,
                    complete: false,
                };
            }
            let Some((e, kind)) = e
                .ok()
                .and_then(|e| Some((e.file_type().ok()?, e)))
                .map(|(k, e)| (e, k))
            else {
                complete = false;
                continue;
            };
            let Ok(name) = e.file_name().into_string() else {
                continue;
            };
            let path = format!("{dir}/{name}");
            if kind.is_symlink() {
                links.push(path);
            } else if kind.is_dir() {
                if depth + 1 >= crate::shell::contents::MAX_DEPTH {
                    complete = false;
                } else {
                    queue.push_back((path, depth + 1));
                }
            }
        }
    }
    LinksIn { links, complete }
}

/// Every class any alternative may have.
#[must_use]
pub fn classes_of(value: &Value, cwd: &Value, env: &Env) -> Classes {
    targets(value, cwd, env)
        .iter()
        .fold(Classes::default(), |a, t| a.union(t.classes))
}

fn push(out: &mut Vec<Target>, t: Target) {
    if !out.contains(&t) {
        out.push(t);
    }
}

fn is_absolute(s: &Sym) -> bool {
    match s.0.first() {
        Some(Piece::Contained(_)) => true,
        Some(Piece::Text(t) | Piece::Glob(t)) => t.starts_with('/'),
        Some(
            Piece::Home
            | Piece::HomeOf(_)
            | Piece::Start
            | Piece::Project
            | Piece::TempRoot
            | Piece::Unknown(_)
            | Piece::Env(_),
        ) => true,
        Some(Piece::Below | Piece::Followed) | None => false,
    }
}

/// The classes of one symbolic absolute path, used as `how` says, with the
/// links the command made (`made`, already placed on this machine).
fn target(s: &Sym, env: &Env, how: Use<'_>, made: &[Made]) -> Target {
    // Not on this machine: no class, and a text no list of paths matches.
    if let Some(Piece::Contained(p)) = s.0.first() {
        return Target::plain(format!("(in the container) {p}"), Classes::default());
    }
    // Build the known prefix (patterns marked), up to an unknown piece.
    let mut text = String::new();
    let mut unknown_at_end = false;
    let mut unknown = false;
    for (i, p) in s.0.iter().enumerate() {
        if *p == Piece::Below {
            text.push('/');
            text.push_str(SOMETHING);
            continue;
        }
        let resolved = piece_text(p, env);
        match resolved {
            Some(t) => text.push_str(&t),
            None => {
                unknown = true;
                unknown_at_end = s.0.get(i + 1..).is_none_or(|rest| {
                    rest.iter()
                        .all(|p| matches!(p, Piece::Text(t) if t.chars().all(|c| c == '/')))
                });
                break;
            }
        }
    }
    if unknown && !text.starts_with('/') {
        // Nothing known about where it starts.
        return Target::plain(format!("{s}"), Classes::of(&[Class::Unknown]));
    }
    // On a Windows drive, the file Windows opens (`.env::$DATA`, `.env.`).
    if let std::borrow::Cow::Owned(o) = place::opened(&text) {
        text = o;
    }
    let spelled = located(&text, unknown, unknown_at_end, env);
    if !how.resolve {
        return spelled;
    }
    // A name glued to an unknown part (`/home/dev$X`) is not a whole name yet;
    // what `realpath` printed is where a link there leads.
    let follow_last = if unknown {
        text.ends_with('/')
    } else {
        how.follow_last || s.0.last() == Some(&Piece::Followed)
    };
    let r = env.links.resolve(&text, follow_last, made);
    // A file with other names (hard links) is the file at the name that
    // matters: a project file that is `~/.ssh/id_ed25519` is read as the key.
    let same = r
        .shared
        .filter(|_| follow_last && !unknown)
        .and_then(|id| env.links.same_file(id, || env.identity_places()))
        .filter(|other| *other != r.path);
    if !r.followed && !r.unknown && same.is_none() {
        return spelled;
    }
    let mut landed = match same {
        Some(other) => env.respell(&other),
        None if r.followed => env.respell(&r.path),
        None => r.path,
    };
    if text.ends_with('/') && !landed.ends_with('/') {
        landed.push('/');
    }
    let mut t = located(&landed, unknown, unknown_at_end, env);
    if r.unknown {
        // A loop, a chain past the limit, a link to a place nobody knows, or
        // a lookup past the budget: it may land anywhere, its spelling in
        // the project included.
        t.classes = Classes::of(&[Class::Unknown]);
    }
    // What `realpath` printed, then `..` (`$(readlink -f out)/..`, `dirname
    // "$(realpath out)"`): a path with no link in it, whose `..` the kernel
    // takes from where the link led (`target`, with `out -> target/debug`);
    // the spelling, whose `..` takes back the name `out`, names nothing the
    // command reaches. (A shell's `cd link/..` is another matter: it takes
    // `..` back by name, so a spelled `..` is otherwise kept.)
    if s.0.iter().rev().skip(1).any(|p| *p == Piece::Followed) {
        return t;
    }
    // The file a client reads by its name is changed through the name too:
    // a guarded name that links elsewhere stays guarded.
    t.classes = t.classes.union(Classes(spelled.classes.0 & GUARDS.0));
    if t.path != spelled.path {
        t.spelled = Some(Box::new(spelled));
    }
    t
}

/// The text a piece stands for on this machine (patterns marked), when the
/// event says: `None` for what only the run knows, a container's path, or
/// names below (`Below`).
fn piece_text(p: &Piece, env: &Env) -> Option<String> {
    match p {
        Piece::Text(t) => Some(t.clone()),
        Piece::Glob(g) => Some(
            g.chars()
                .map(|c| match c {
                    '*' => STAR,
                    '?' => QUESTION,
                    '[' => BRACKET,
                    c => c,
                })
                .collect(),
        ),
        Piece::Home => env.home.clone(),
        Piece::HomeOf(u) => Some(home_of(u, env)),
        Piece::Start => Some(env.cwd.clone()),
        Piece::Project => Some(env.project.clone()),
        Piece::TempRoot => Some(env.temp_root()),
        Piece::Env(n) if n == "USER" || n == "LOGNAME" => env.user.clone(),
        Piece::Followed => Some(String::new()),
        Piece::Env(_) | Piece::Unknown(_) | Piece::Contained(_) | Piece::Below => None,
    }
}

/// The names a pattern matches on disk that lead through links, each judged
/// where it lands: the shell hands the command those names (`rm
/// c*/settings.json` with `cfg -> .claude` changes Claude Code's settings,
/// `cat k*/notes` with `keys -> ~/.ssh` reads a key folder). A name that is
/// no link is what the pattern's own reading judges ([`classify_globbed`],
/// the lists' pattern comparison). Bounded by [`pattern_on_disk`]; only for
/// a path whose every piece is known here.
fn link_matches(s: &Sym, env: &Env, how: Use<'_>, made: &[Made]) -> Vec<Target> {
    if !how.resolve || !s.0.iter().any(|p| matches!(p, Piece::Glob(_))) {
        return Vec::new();
    }
    let Some(text) =
        s.0.iter()
            .map(|p| piece_text(p, env))
            .collect::<Option<String>>()
    else {
        return Vec::new();
    };
    let Ok(norm) = normalize(&text, "/", env.home.as_deref()) else {
        return Vec::new();
    };
    // A trailing `/` makes the last name followed (`rm -rf o*/`).
    let slash = if text.ends_with('/') { "/" } else { "" };
    // The names on disk, and the links this line made that the pattern can
    // name (`ln -s ~/.aws/credentials dist/c && cat dist/*`): the shell
    // expands the pattern when the command runs, after the link is made.
    let comps: Vec<&str> = norm.split('/').filter(|c| !c.is_empty()).collect();
    let named_made = made.iter().map(|m| m.path.clone()).filter(|path| {
        let names: Vec<String> = path
            .split('/')
            .filter(|c| !c.is_empty())
            .map(str::to_lowercase)
            .collect();
        names.len() == comps.len()
            && comps.iter().zip(&names).all(|(c, n)| {
                if c.contains([STAR, QUESTION, BRACKET]) {
                    may_name(c, n)
                } else {
                    c.eq_ignore_ascii_case(n)
                }
            })
    });
    let mut found = pattern_on_disk(&norm);
    for m in named_made.collect::<Vec<_>>() {
        if !found.contains(&m) {
            found.push(m);
        }
    }
    found
        .into_iter()
        .map(|m| target(&Sym::text(&format!("{m}{slash}")), env, how, made))
        .filter(|t| t.spelled.is_some() || t.classes.has(Class::Unknown))
        .collect()
}

/// The links this line made below a folder a command reads or writes
/// through (not by name: `rm -rf dist` removes a link there, not what it
/// leads to), each where it leads: `ln -s ~/.aws/credentials dist/c && tar
/// -chzf x.tgz dist` reads the credentials. A program that keeps links as
/// links reads only the link, but a link to a secret made a moment before
/// in the folder the same line then reads is taken for what it leads to.
fn made_below(t: &Target, env: &Env, how: Use<'_>, made: &[Made]) -> Vec<Target> {
    if !how.follow_last || t.pattern.is_some() || !t.path.starts_with('/') {
        return Vec::new();
    }
    let folder = t.path.trim_end_matches('/');
    made.iter()
        .filter(|m| place::below(&m.path, folder).is_some_and(|rest| !rest.is_empty()))
        .map(|m| target(&Sym::text(&m.path), env, how, made))
        .filter(|t| t.spelled.is_some() || t.classes.has(Class::Unknown))
        .collect()
}

/// Most paths a pattern's expansion on disk keeps ([`pattern_on_disk`]).
const MAX_PATTERN_MATCHES: usize = 16;
/// Most entries of one folder read to expand a pattern.
const MAX_PATTERN_ENTRIES: usize = 4096;

/// The paths a normalised absolute path with pattern components names on
/// disk, as the shell expands it (a hidden name only by a component that
/// starts with its dot; letter case ignored, as on the volumes that do):
/// at most [`MAX_PATTERN_MATCHES`], reading at most [`MAX_PATTERN_ENTRIES`]
/// entries of a folder.
fn pattern_on_disk(path: &str) -> Vec<String> {
    let mut found = vec![String::new()];
    for comp in path.split('/').filter(|c| !c.is_empty()) {
        if !comp.contains([STAR, QUESTION, BRACKET]) {
            for f in &mut found {
                f.push('/');
                f.push_str(comp);
            }
            continue;
        }
        let mut next = Vec::new();
        'folders: for f in &found {
            let Ok(entries) = std::fs::read_dir(if f.is_empty() { "/" } else { f }) else {
                continue;
            };
            for e in entries.take(MAX_PATTERN_ENTRIES).flatten() {
                let name = e.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                let hidden_ok = !name.starts_with('.') || comp.starts_with('.');
                if hidden_ok && may_name(comp, &name.to_lowercase()) {
                    next.push(format!("{f}/{name}"));
                    if next.len() >= MAX_PATTERN_MATCHES {
                        break 'folders;
                    }
                }
            }
        }
        found = next;
        if found.is_empty() {
            break;
        }
    }
    found
}

/// The target at `text`, a known absolute prefix (patterns marked), which
/// an unknown part follows when `unknown` (at the end: `unknown_at_end`).
fn located(text: &str, unknown: bool, unknown_at_end: bool, env: &Env) -> Target {
    let norm = normalize(text, "/", env.home.as_deref()).unwrap_or_else(|_| text.to_string());
    let shown: String = norm
        .chars()
        .map(|c| match c {
            STAR => '*',
            QUESTION => '?',
            BRACKET => '[',
            '\u{E000}' => '…',
            c => c,
        })
        .collect();
    let mut classes = Classes::default();
    if unknown {
        classes.add(Class::Unknown);
        // The unknown part may be empty (`$HOME/$X` is then the home folder),
        // a name there, or more; glued to a name (`/home/dev$X`) it may also
        // make a sibling.
        if env.judged == Judged::Unplaced {
            return Target::plain(format!("{shown}…"), classes);
        }
        if unknown_at_end {
            classes = classes.union(classify_globbed(&norm, env));
        }
        classes = classes.union(classify_globbed(&join(&norm, SOMETHING), env));
        if !text.ends_with('/') {
            let parent = norm
                .rsplit_once('/')
                .map_or("/", |(p, _)| if p.is_empty() { "/" } else { p });
            classes = classes.union(classify_globbed(&join(parent, SOMETHING), env));
        }
        return Target::plain(format!("{shown}…"), classes);
    }
    if env.judged != Judged::Unplaced {
        classes = classes.union(classify_globbed(&norm, env));
        classes = classes.union(searched_guards(&norm, env));
    }
    let pattern = norm
        .contains([STAR, QUESTION, BRACKET, '\u{E000}'])
        .then_some(norm);
    Target {
        path: shown,
        classes,
        pattern,
        spelled: None,
    }
}

/// Folders in a home folder whose files are judged by their names there
/// (keys, credentials, tokens, start-up and tool settings), besides the home
/// folder itself and the guarded places: a file the command opens that is a
/// hard link to one of their files is judged as that file
/// ([`Env::identity_places`]). The built-in pack's `secret_folders` and the
/// credential files it names live here.
pub const NAMED_FOLDERS: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".gnupg/private-keys-v1.d",
    ".kube",
    ".docker",
    ".azure",
    ".password-store",
    ".config",
    ".config/gh",
    ".config/gcloud",
    ".config/git",
    ".config/hub",
    ".config/op",
    ".config/rclone",
    ".config/github-copilot",
    ".claude",
    ".codex",
    ".gemini",
    ".cargo",
    ".npm",
    ".terraform.d",
    ".vault-token",
    ".local/share/keyrings",
];

impl Env {
    /// The guarded places the classes [`Env::judged`] need.
    fn judged_guards(&self) -> &[Guard] {
        match self.judged {
            Judged::All => self.guards.list(),
            Judged::Key => self.guards.keys(),
            Judged::Unplaced => &[],
        }
    }

    /// The places whose files count by name for hard links: the guarded
    /// places, [`NAMED_FOLDERS`] in the home folder, and the home folder, in
    /// that order. The first name of a file wins: a file in home that is also
    /// `.claude/settings.json` (`ln .claude/settings.json ~/notes.json`) is
    /// the guarded file, not a plain file in home.
    #[must_use]
    pub fn identity_places(&self) -> Vec<String> {
        let mut out: Vec<String> = self.guards.list().iter().map(|g| g.at.clone()).collect();
        if let Some(home) = self.home.as_deref().filter(|h| h.starts_with('/')) {
            let home = home.trim_end_matches('/');
            out.extend(NAMED_FOLDERS.iter().map(|f| format!("{home}/{f}")));
            out.push(home.to_string());
        }
        out
    }

    /// Is the machine Windows? Its folders say so: the event's `cwd` (or the
    /// home folder) is on a drive or a share (`C:\Users\dev\proj` is
    /// `/c/Users/dev/proj`). A Windows drive seen from WSL (`/mnt/c/…`) is
    /// not: the shell there is Linux's.
    #[must_use]
    pub fn windows(&self) -> bool {
        let drive = |p: &str| place::ignores_case(p) && !p.starts_with("/mnt/");
        drive(&self.cwd) || self.home.as_deref().is_some_and(drive)
    }

    /// The temp folder `$TMPDIR` (`%TEMP%`) names: as set, else `/tmp`, or
    /// on Windows the user's (`~/AppData/Local/Temp`).
    fn temp_root(&self) -> String {
        if let Some(t) = &self.tmpdir {
            return t.clone();
        }
        match self.home.as_deref().filter(|_| self.windows()) {
            Some(h) => format!("{}/AppData/Local/Temp", h.trim_end_matches('/')),
            None => "/tmp".into(),
        }
    }

    /// A path the walk reached, spelled from the places the event names
    /// (project, working folder, home, temp root) when it lies in where one
    /// of them really is: a project reached through a link (macOS's `/tmp`
    /// is `/private/tmp`) is still the project.
    fn respell(&self, physical: &str) -> String {
        let anchors = [
            Some(self.project.as_str()),
            Some(self.cwd.as_str()),
            self.home.as_deref(),
            self.tmpdir.as_deref(),
        ];
        let mut best: Option<(String, &str)> = None;
        for spelled in anchors.into_iter().flatten() {
            let spelled = spelled.trim_end_matches('/');
            if !spelled.starts_with('/') {
                continue;
            }
            let real = self.links.resolve(spelled, true, &[]);
            if !real.followed
                || real.unknown
                || real.path == "/"
                || !is_within(physical, &real.path)
            {
                continue;
            }
            if best.as_ref().is_none_or(|(r, _)| real.path.len() > r.len()) {
                best = Some((real.path, spelled));
            }
        }
        match best {
            Some((real, spelled)) => format!("{spelled}{}", &physical[real.len()..]),
            None => physical.to_string(),
        }
    }
}

/// Classes of a normalised path whose components may hold pattern markers: a
/// pattern component stands for some name there; last components that each
/// match nearly everything (`*`, `.*`, `[a-z]*`, `*/*`, `**`) stand for the
/// whole content of the folder they start in, so that folder's classes count
/// too.
fn classify_globbed(path: &str, env: &Env) -> Classes {
    if !path.contains([STAR, QUESTION, BRACKET]) {
        return classify(path, env);
    }
    let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let mut plain: Vec<String> = Vec::new();
    let mut classes = Classes::default();
    let is_pattern = |c: &&str| c.contains([STAR, QUESTION, BRACKET]);
    // Where the wide patterns at the end start.
    let content_of = comps.len()
        - comps
            .iter()
            .rev()
            .take_while(|c| is_pattern(c) && wide(c))
            .count();
    for (i, c) in comps.iter().enumerate() {
        if i == content_of {
            classes = classes.union(classify(&format!("/{}", plain.join("/")), env));
        }
        if is_pattern(c) {
            plain.push(SOMETHING.to_string());
        } else {
            plain.push((*c).to_string());
        }
    }
    let may_meet = |g: &Guard| pattern_may_meet(&comps, g);
    classes = classes.union(classify_among(
        &format!("/{}", plain.join("/")),
        env,
        &may_meet,
    ));
    // A pattern may or may not match the place: hookrules' state asks
    // (as unknown names below it do), its configuration and key are named.
    // What switches hookrules on counts when the pattern names it, not for
    // unknown names below a pattern (`/tmp/*/…`: that is below every
    // folder, see `guard_reaches`' `Reach::Beside`).
    let named = !comps.iter().any(|c| c.contains(SOMETHING));
    for g in env.judged_guards() {
        if pattern_names_guard(&comps, g) {
            classes.add(guard_class(g, Reach::Maybe));
            if named && g.wires.as_ref().is_some_and(Wires::on) {
                classes.add(Class::GuardWiring);
            }
        }
    }
    classes
}

/// The guarded places a search reaches: `R/…/NAME` is what `find R -name
/// NAME` hands on, a file or folder of that name at any depth below `R`,
/// hidden folders included (find does not skip them, and its `*` matches a
/// leading dot). It reaches a guarded place below `R` when `NAME` can be the
/// place's own name or, for a guarded folder, the name of something in it,
/// as the folder holds it on disk (a policy folder's `project.toml`):
/// `find . -name '*.toml' -delete` removes the project's policies,
/// `find . -name settings.json -exec rm {} +` the file that registers the
/// hooks. A place hookrules makes again (the cache) does not count, as for
/// any unknown name below a folder. Other paths reach nothing here.
fn searched_guards(path: &str, env: &Env) -> Classes {
    let mut classes = Classes::default();
    for g in searched(path, env.judged_guards(), env) {
        classes.add(guard_class(g, Reach::Maybe));
        if g.wires.as_ref().is_some_and(Wires::on) {
            classes.add(Class::GuardWiring);
        }
    }
    classes
}

/// The guarded places a search `R/…/NAME` can find (see [`searched_guards`]).
/// Of `guards`: the judged ones when classifying, all of them for reasons.
fn searched<'e>(path: &str, guards: &'e [Guard], env: &Env) -> Vec<&'e Guard> {
    let mut found = Vec::new();
    let comps: Vec<&str> = path.split('/').filter(|c| !c.is_empty()).collect();
    let [root @ .., deep, name] = comps.as_slice() else {
        return found;
    };
    let something = SOMETHING.to_string();
    if *deep != something || name.contains(SOMETHING) || root.iter().any(|c| c.contains(SOMETHING))
    {
        return found;
    }
    let is_pattern = |c: &str| c.contains([STAR, QUESTION, BRACKET]);
    let can_be = |c: &str, n: &str| {
        if is_pattern(c) {
            may_name(c, n)
        } else {
            c.eq_ignore_ascii_case(n)
        }
    };
    for g in guards {
        if g.regenerable {
            continue;
        }
        let place: Vec<&str> = g.path.split('/').filter(|c| !c.is_empty()).collect();
        if place.len() <= root.len() || !root.iter().zip(&place).all(|(c, p)| can_be(c, p)) {
            continue;
        }
        let own = place.last().is_some_and(|last| can_be(name, last));
        let inside = g.folder
            && !own
            && std::fs::read_dir(spelled_on_disk(&g.path, env)).is_ok_and(|entries| {
                entries
                    .flatten()
                    .take(256)
                    .any(|e| can_be(name, &e.file_name().to_string_lossy().to_lowercase()))
            });
        if own || inside {
            found.push(g);
        }
    }
    found
}

/// A guarded place's path as the disk spells it: places are kept in
/// lowercase, and the project and home folders they lie in are given back
/// their own spelling (`/home/Dev/Proj/.claude/hookrules`).
fn spelled_on_disk(lower: &str, env: &Env) -> String {
    for anchor in [Some(env.project.as_str()), env.home.as_deref()]
        .into_iter()
        .flatten()
    {
        let anchor = anchor.trim_end_matches('/');
        let folded = anchor.to_lowercase();
        match lower.strip_prefix(folded.as_str()) {
            Some(rest) if anchor.starts_with('/') && (rest.is_empty() || rest.starts_with('/')) => {
                return format!("{anchor}{rest}");
            }
            _ => {}
        }
    }
    lower.to_string()
}

/// Can a path whose components hold patterns name guarded place `g`, or a
/// name in it, wherever the patterns are (`.clau?e/settings.json`,
/// `.c*/hookrules/x`, `.claude/setting?.json`)? The shell replaces a pattern
/// with the names it matches on disk, and a pattern that matches nothing
/// stays as written, naming nothing: so a path that *may* name the place is
/// judged as naming it. Component by component, a pattern may be the place's
/// name there ([`may_name`], but a hidden name only by a pattern that starts
/// with its dot or a bracket, as bash's globbing without `dotglob`), a literal
/// is the name (ignoring case); unknown names below (`SOMETHING`) may be
/// anything, once a pattern has chosen a guarded folder. The place's
/// spelling under any folder (`anywhere`) is compared with the path's last
/// components. A place hookrules makes again when it is gone (the cache)
/// counts only for a name inside it (`rm -rf ~/.cache/*` clears caches). A
/// path without a pattern component names nothing here (plain paths are
/// [`guard_reaches`]' question).
fn pattern_names_guard(comps: &[&str], g: &Guard) -> bool {
    if !comps.iter().any(|c| c.contains([STAR, QUESTION, BRACKET])) {
        return false;
    }
    let names = |pat: &[&str], place: &[&str]| {
        let mut chose = false;
        for (i, c) in pat.iter().enumerate() {
            if c.strip_prefix(SOMETHING) == Some("") {
                return chose && (!g.regenerable || i >= place.len());
            }
            let Some(name) = place.get(i) else {
                // Below the place: a folder holds it.
                return chose && g.folder;
            };
            if c.contains([STAR, QUESTION, BRACKET]) {
                let hidden_ok = !name.starts_with('.') || c.starts_with(['.', BRACKET]);
                if !hidden_ok || !may_name(c, name) {
                    return false;
                }
                chose = true;
            } else if !c.eq_ignore_ascii_case(name) {
                return false;
            }
        }
        chose && pat.len() == place.len() && !g.regenerable
    };
    let place: Vec<&str> = g.path.split('/').filter(|c| !c.is_empty()).collect();
    if names(comps, &place) {
        return true;
    }
    let Some(rel) = g.anywhere.as_deref() else {
        return false;
    };
    let rel: Vec<&str> = rel.split('/').filter(|c| !c.is_empty()).collect();
    (0..comps.len()).any(|i| comps.get(i..).is_some_and(|tail| names(tail, &rel)))
}

/// Can a path whose components may hold pattern markers reach guarded place
/// `g`? Only where the pattern's names can be the place's folders' names:
/// `/tmp/proj-test-*` cannot reach a home folder at `/tmp/lead/h`; `/tmp/*`
/// can. Places guarded under any folder (`.claude/settings.json`) are
/// compared by their own spelling ([`guard_reaches`]).
fn pattern_may_meet(comps: &[&str], g: &Guard) -> bool {
    g.path
        .split('/')
        .filter(|c| !c.is_empty())
        .zip(comps)
        .all(|(name, c)| !c.contains([STAR, QUESTION, BRACKET]) || may_name(c, name))
}

/// Can a pattern component (markers for `*`, `?`, `[`) be `name` (in
/// lowercase)? Letter case is ignored, a bracket stands for any one
/// character and `*` may start a hidden name (as with `dotglob`): the
/// answer may be yes where the shell would say no, never the reverse.
fn may_name(pattern: &str, name: &str) -> bool {
    let pat: Vec<char> = pattern.to_lowercase().chars().collect();
    let name: Vec<char> = name.chars().collect();
    // may[k]: the pattern so far can take the first k characters.
    let mut may = vec![false; name.len() + 1];
    may[0] = true;
    let mut k = 0;
    while k < pat.len() {
        let mut next = vec![false; name.len() + 1];
        match pat[k] {
            STAR => {
                if let Some(first) = may.iter().position(|m| *m) {
                    next[first..].fill(true);
                }
            }
            QUESTION | BRACKET => {
                next[1..].copy_from_slice(&may[..name.len()]);
                if pat[k] == BRACKET {
                    // Skip the class up to its `]` (a `]` first is a member).
                    let close = pat[k + 1..]
                        .iter()
                        .enumerate()
                        .skip(1)
                        .find(|(_, c)| **c == ']')
                        .map(|(i, _)| k + 1 + i);
                    k = close.unwrap_or(pat.len());
                }
            }
            c => {
                for j in 0..name.len() {
                    next[j + 1] = may[j] && name[j] == c;
                }
            }
        }
        may = next;
        k += 1;
    }
    may[name.len()]
}

/// Does a pattern component match nearly every name (no letter or digit that
/// a name must contain)?
fn wide(component: &str) -> bool {
    let mut in_bracket = false;
    for c in component.chars() {
        match c {
            BRACKET => in_bracket = true,
            ']' if in_bracket => in_bracket = false,
            _ if in_bracket => {}
            c if c.is_alphanumeric() => return false,
            _ => {}
        }
    }
    true
}

fn join(dir: &str, name: &str) -> String {
    if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

/// The home folder of another user (no user database: the usual places).
fn home_of(user: &str, env: &Env) -> String {
    if Some(user) == env.user.as_deref() {
        if let Some(h) = &env.home {
            return h.clone();
        }
    }
    if user == "root" {
        return "/root".to_string();
    }
    let base = match env.home.as_deref() {
        Some(h) if h.starts_with("/Users/") => "/Users",
        _ => "/home",
    };
    format!("{base}/{user}")
}

/// `a` is `b` or inside it, ignoring ASCII case.
fn within_ci(a: &str, b: &str) -> bool {
    is_within(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

fn eq_ci(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

/// Top-level folders whose every child is the system's.
const SYSTEM_PARENTS: &[&str] = &[
    "bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "sbin", "usr", "proc", "sys",
    "System", "Library", "private", "nix", "snap",
];
/// Well-known folders in `/var` (the system's; `/var/tmp` is a temp root).
const VAR_SYSTEM: &[&str] = &[
    "lib",
    "log",
    "cache",
    "spool",
    "mail",
    "run",
    "db",
    "backups",
    "opt",
    "www",
    "empty",
    "lock",
    "local",
    "account",
    "crash",
    "adm",
    "root",
    "vm",
    "containers",
    "folders",
    "audit",
];
/// Folders at a Windows drive's root that are the system's (lowercase).
const WINDOWS_SYSTEM: &[&str] = &[
    "windows",
    "program files",
    "program files (x86)",
    "programdata",
    "users",
    "system volume information",
    "$recycle.bin",
    "recovery",
    "boot",
    "perflogs",
];
/// Folders of another top-level folder that are the system's.
const SYSTEM_DEEP: &[&str] = &[
    "/usr/local/*",
    "/usr/lib/*",
    "/usr/share/*",
    "/opt/homebrew",
    "/opt/homebrew/*",
    "/opt/local",
    "/opt/local/*",
    "/private/etc/*",
    "/private/var/*",
    "/System/Library/*",
    "/etc/*/*",
    "/var/lib/*",
    "/run/*",
    "/snap/*",
    "/nix/store",
    "/nix/var",
];

fn temp_roots(env: &Env) -> Vec<String> {
    let mut v: Vec<String> = place::TEMP_ROOTS.iter().map(|s| (*s).to_string()).collect();
    if let Some(t) = &env.tmpdir {
        if let Ok(n) = normalize(t, "/", None) {
            if n != "/" {
                v.push(n);
            }
        }
    }
    // Windows's temp folder for the user (`%TEMP%`), whatever TMPDIR says.
    if let Some(h) = env.home.as_deref().filter(|_| env.windows()) {
        v.push(format!("{}/AppData/Local/Temp", h.trim_end_matches('/')));
    }
    v
}

/// Is `path` (its components `comps`) a home folder: the user's, or one of
/// the spellings below (none longer than four components: `classify_among`
/// relies on that bound).
fn is_home(path: &str, comps: &[&str], env: &Env) -> bool {
    if env
        .home
        .as_deref()
        .is_some_and(|h| h != "/" && eq_ci(path, h.trim_end_matches('/')))
    {
        return true;
    }
    let c: Vec<String> = comps.iter().map(|s| s.to_ascii_lowercase()).collect();
    match c.as_slice() {
        [a, _] if a == "home" || a == "users" => true,
        // Windows as Git Bash spells it (`C:\Users\NAME` is `/c/Users/NAME`),
        // and through WSL's mounts (`/mnt/c/Users/NAME`).
        [d, u, _] if d.len() == 1 && u == "users" => true,
        [m, d, u, _] if m == "mnt" && d.len() == 1 && u == "users" => true,
        [r] if r == "root" => true,
        [v, r] if v == "var" && r == "root" => true,
        [p, v, r] if p == "private" && v == "var" && r == "root" => true,
        _ => false,
    }
}

fn is_mount(comps: &[&str]) -> bool {
    let c: Vec<String> = comps.iter().map(|s| s.to_ascii_lowercase()).collect();
    match c.as_slice() {
        [m, _] => m == "mnt" || m == "media" || m == "volumes",
        [m, _, _] => m == "media" || m == "mnt" && c[1] == "wsl",
        [r, m, _, _] => r == "run" && m == "media",
        _ => false,
    }
}

fn is_system(comps: &[&str], env: &Env) -> bool {
    let lower: Vec<String> = comps.iter().map(|s| s.to_ascii_lowercase()).collect();
    let path = format!("/{}", lower.join("/"));
    if temp_roots(env).iter().any(|t| eq_ci(&path, t)) {
        return false;
    }
    match lower.as_slice() {
        [_] => return true,
        [p, _] if SYSTEM_PARENTS.iter().any(|s| eq_ci(s, p)) => return true,
        // A Windows drive's own folders (`C:\Windows`, `C:\Program Files`,
        // `C:\Users`), and anything directly in `C:\Windows`.
        [d, x] if d.len() == 1 && WINDOWS_SYSTEM.contains(&x.as_str()) => return true,
        [d, w, _] if d.len() == 1 && w == "windows" => return true,
        [v, x] if v == "var" && VAR_SYSTEM.iter().any(|s| eq_ci(s, x)) => return true,
        _ => {}
    }
    // Component by component, without collecting the pattern (this runs for
    // every path a command names).
    SYSTEM_DEEP.iter().any(|pat| {
        let mut pattern = pat.split('/').filter(|c| !c.is_empty());
        let mut path = lower.iter();
        loop {
            match (pattern.next(), path.next()) {
                (None, None) => return true,
                (Some(p), Some(c)) if p == "*" || p.eq_ignore_ascii_case(c) => {}
                _ => return false,
            }
        }
    })
}

/// The classes a path has whatever its place (all [`Judged::Unplaced`] judges).
pub const UNPLACED: Classes = Classes(
    1 << Class::Unknown as u32
        | 1 << Class::PrivateKey as u32
        | 1 << Class::Credentials as u32
        | 1 << Class::Absent as u32,
);

/// The guard classes.
pub const GUARDS: Classes = Classes(
    1 << Class::GuardConfig as u32
        | 1 << Class::GuardState as u32
        | 1 << Class::GuardKey as u32
        | 1 << Class::GuardWiring as u32,
);

/// The guarded place a normalised path lies in (or, ending in `SOMETHING`,
/// may reach below its folder, or a search `R/…/NAME` can find), first
/// found; for reasons.
#[must_use]
pub fn guarded_by<'e>(path: &str, env: &'e Env) -> Option<&'e Guard> {
    let lower = path.to_ascii_lowercase();
    let comps: Vec<&str> = lower.split('/').filter(|c| !c.is_empty()).collect();
    // A pattern component stands for some name there (see `classify_globbed`).
    let plain: String = comps
        .iter()
        .map(|c| {
            if c.contains([STAR, QUESTION, BRACKET]) {
                format!("/{SOMETHING}")
            } else {
                format!("/{c}")
            }
        })
        .collect();
    let plain = if !lower.contains([STAR, QUESTION, BRACKET]) {
        lower.clone()
    } else if plain.is_empty() {
        "/".into()
    } else {
        plain
    };
    let searched = searched(&lower, env.guards.list(), env);
    let mut found = env.guards.list().iter().filter(|g| {
        guard_reaches(&plain, g, env, pattern_may_meet(&comps, g)).is_some()
            || pattern_names_guard(&comps, g)
            || searched.iter().any(|s| std::ptr::eq(*s, *g))
    });
    // Of several (`.claude` holds policies and settings), the one that
    // switches hookrules on, when one does: what removing the path undoes.
    let first = found.next()?;
    Some(
        std::iter::once(first)
            .chain(found)
            .find(|g| g.wires.as_ref().is_some_and(Wires::on))
            .unwrap_or(first),
    )
}

/// A lexical test of where the entries of a tree landing in one folder
/// could reach a guarded place, made once per folder (see
/// [`Landing::may_reach_guard`]).
#[derive(Debug, Clone)]
pub struct Landing {
    /// The folder, in lowercase, without a trailing `/`.
    root: String,
    /// The first folder of each place guarded under any folder (`.claude`).
    firsts: Vec<String>,
    /// The folder itself may be protected: every entry is kept.
    all: bool,
    /// The folder lies in a place guarded where it is (not only by its
    /// spelling under any folder).
    inside: bool,
    /// The guarded places below the folder: the only ones an entry can lie
    /// in or hold when the folder itself is not guarded.
    below: Vec<String>,
}

impl Landing {
    /// The test for entries landing in `root` (absolute, normalised).
    #[must_use]
    pub fn new(root: &str, env: &Env) -> Landing {
        let root = root.trim_end_matches('/').to_ascii_lowercase();
        let mut firsts: Vec<String> = env
            .guards
            .list()
            .iter()
            .filter_map(|g| g.anywhere.as_deref())
            .filter_map(|rel| rel.trim_start_matches('/').split('/').next())
            .filter(|f| !f.is_empty())
            .map(str::to_ascii_lowercase)
            .collect();
        firsts.sort();
        firsts.dedup();
        let inside = env.guards.list().iter().any(|g| is_within(&root, &g.path));
        let all = inside || root.split('/').any(|c| firsts.iter().any(|f| f == c));
        let folder = if root.is_empty() { "/" } else { root.as_str() };
        let below = env
            .guards
            .list()
            .iter()
            .filter(|g| is_within(&g.path, folder))
            .map(|g| g.path.clone())
            .collect();
        Landing {
            root,
            firsts,
            all,
            inside,
            below,
        }
    }

    /// Could the entry `name` (relative) reach a guarded place, read by its
    /// spelling alone: it lies in a guard or holds one, or a component of it
    /// is the first folder of a place guarded under any folder (`.claude`,
    /// `.codex`, compared ignoring case)? No link is followed: this only
    /// thins out a tree's entries before they are judged one by one
    /// (`classify`, through links).
    #[must_use]
    pub fn may_reach_guard(&self, name: &str) -> bool {
        if self.all {
            return true;
        }
        if name
            .split('/')
            .any(|c| self.firsts.iter().any(|f| f.eq_ignore_ascii_case(c)))
        {
            return true;
        }
        self.meets_below(name)
    }

    /// Does the entry lie in or hold one of the guarded places below the
    /// folder? An entry lies in or holds a guard only below the folder (the
    /// folder itself in one made `all` or `inside` true): no other guard is
    /// compared, and no path is built when there is none (a tree of
    /// thousands).
    fn meets_below(&self, name: &str) -> bool {
        if self.below.is_empty() {
            return false;
        }
        let path = format!("{}/{}", self.root, name.to_ascii_lowercase());
        self.below
            .iter()
            .any(|g| is_within(&path, g) || is_within(g, &path))
    }
}

impl Landing {
    /// Does the entry `name` lie in or hold a place guarded where it is (the
    /// project's or the user's own), by its spelling? Places guarded only
    /// because their name is a project-level one (`.claude/settings.json`
    /// under any folder) do not count.
    #[must_use]
    pub fn reaches_own_guard(&self, name: &str) -> bool {
        self.inside || self.meets_below(name)
    }
}

/// Is `path` (absolute) one of the configuration files in effect, or in a
/// configuration folder in effect (the project's or the user's own settings,
/// hook files and policies, at the place they are guarded)?
#[must_use]
pub fn is_config_in_effect(path: &str, env: &Env) -> bool {
    let lower = path.to_ascii_lowercase();
    env.guards.list().iter().any(|g| {
        g.class == Class::GuardConfig && (lower == g.path || g.folder && is_within(&lower, &g.path))
    })
}

/// How a path reaches a guarded place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// It is the place, or lies in it.
    In,
    /// Unknown names below a folder that holds the place (`tar -x -C ~`,
    /// `find ~ -name x -delete`): the write may land there.
    Maybe,
    /// Unknown names in the folder the place is in (`rm -rf .claude`, `mv
    /// ~/.local/bin x`): the place goes with its folder.
    Beside,
}

/// The class a path reaching `g` gets: the place's own when the write lands
/// in it; for names nobody knows below a folder that holds hookrules' state,
/// [`Class::GuardConfig`] (the user is asked: `find ~ -name '*.log' -delete`
/// is everyday work that may reach the state, not a write into it).
fn guard_class(g: &Guard, reach: Reach) -> Class {
    match (g.class, reach) {
        (Class::GuardState, Reach::Maybe | Reach::Beside) => Class::GuardConfig,
        (class, _) => class,
    }
}

/// Does the path (lowercase, normalised) change guarded place `g`? It is `g`,
/// in it (a folder), or the same place under another folder (`anywhere`). A
/// path ending in `SOMETHING` (unknown names below a folder `F`: an archive
/// extracted, a tree removed) reaches `g` when `F` is in `g`, or maybe when
/// `g` lies below `F`, except when `F` is the project folder itself: unknown
/// names written into the project root (a release tarball unpacked, a patch
/// applied, a repository cloned there) are not taken for its `.claude` files,
/// which would make everyday work ask; a folder that holds them (`.claude`,
/// `.codex`, `.github`) is.
///
/// With `by_path` false, only the place's spelling under any folder counts
/// (a pattern whose names cannot be the place's own folders).
fn guard_reaches(lower: &str, g: &Guard, env: &Env, by_path: bool) -> Option<Reach> {
    let gl = g.path.as_str();
    // `rel` (`/.codex/hooks.json`) ends `p`, or a folder `rel` holds `p`.
    let anywhere = |folder_only: bool, p: &str| {
        g.anywhere.as_deref().is_some_and(|rel| {
            (!folder_only && p.ends_with(rel))
                || g.folder
                    && p.match_indices(rel)
                        .any(|(i, _)| p[i + rel.len()..].starts_with('/'))
        })
    };
    if let Some(folder) = lower
        .strip_suffix(SOMETHING)
        .and_then(|f| f.strip_suffix('/'))
    {
        let folder = if folder.is_empty() { "/" } else { folder };
        // Unknown names below `folder`: `folder` itself may be the place.
        if by_path && g.folder && is_within(folder, gl) || anywhere(true, lower) {
            return Some(Reach::In);
        }
        // The key is one file: only unknown names in its own folder reach
        // it (`cat state/*`), not any name under home (`cat ~/$X`).
        let deep = g.class != Class::GuardKey
            || gl
                .rsplit_once('/')
                .is_some_and(|(parent, _)| parent == folder);
        let project = env.project.trim_end_matches('/');
        if by_path
            && deep
            && !g.regenerable
            && folder != gl
            && is_within(gl, folder)
            && !folder.eq_ignore_ascii_case(project)
        {
            let beside = gl
                .rsplit_once('/')
                .is_some_and(|(parent, _)| parent == folder);
            return Some(if g.class == Class::GuardKey {
                Reach::In
            } else if beside {
                Reach::Beside
            } else {
                Reach::Maybe
            });
        }
        return None;
    }
    if by_path && (lower == gl || g.folder && is_within(lower, gl)) || anywhere(false, lower) {
        return Some(Reach::In);
    }
    None
}

/// The classes of a normalised absolute path (`SOMETHING` stands for a name
/// that is none of the named folders).
#[must_use]
pub fn classify(path: &str, env: &Env) -> Classes {
    classify_among(path, env, &|_| true)
}

/// [`classify`], comparing by path only the guarded places `may_meet` lets
/// through (a pattern's names rule the others out).
fn classify_among(path: &str, env: &Env, may_meet: &dyn Fn(&Guard) -> bool) -> Classes {
    let mut c = Classes::default();
    let guards = env.judged_guards();
    if !guards.is_empty() {
        let lower = path.to_ascii_lowercase();
        for g in guards {
            if let Some(reach) = guard_reaches(&lower, g, env, may_meet(g)) {
                c.add(guard_class(g, reach));
                // What switches hookrules on is removed with its own folder,
                // not counted for every tree that holds it (`rm -rf /`
                // is another rule's).
                if reach != Reach::Maybe && g.wires.as_ref().is_some_and(Wires::on) {
                    c.add(Class::GuardWiring);
                }
            }
        }
    }
    if env.judged == Judged::Key {
        return c;
    }
    let comps: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
    if comps.is_empty() {
        c.add(Class::Root);
    }
    // The project, unless it is `/` or a system folder.
    let project = env.project.trim_end_matches('/');
    let pcomps: Vec<&str> = project.split('/').filter(|s| !s.is_empty()).collect();
    let project_counts = !pcomps.is_empty() && !is_system(&pcomps, env);
    let in_project = if project_counts {
        place::below(path, project)
    } else {
        None
    };
    if let Some(rest) = in_project {
        c.add(Class::Project);
        if rest.is_empty() {
            c.add(Class::ProjectRoot);
        }
        if place::within(path, &format!("{project}/.git")) {
            c.add(Class::ProjectGit);
        }
    } else {
        c.add(Class::OutsideProject);
    }
    if !place::same(path, project) && within_ci(project, path) {
        c.add(Class::ContainsProject);
    }
    // Home folders: the user's, or a prefix of at most four components
    // (`is_home`), so longer prefixes are never joined (a path of 50,000
    // components stays linear).
    let deepest_home = env
        .home
        .as_deref()
        .map_or(0, |h| h.split('/').filter(|s| !s.is_empty()).count())
        .max(4);
    for k in (1..=comps.len().min(deepest_home)).rev() {
        let prefix = &comps[..k];
        let p = format!("/{}", prefix.join("/"));
        if is_home(&p, prefix, env) {
            if k == comps.len() {
                c.add(Class::Home);
            } else {
                c.add(Class::InHome);
                if k + 1 == comps.len() {
                    c.add(Class::HomeTop);
                }
            }
            break;
        }
    }
    // Temp roots and temp folders.
    let roots = temp_roots(env);
    let mut in_temp = false;
    for t in &roots {
        if eq_ci(path, t) {
            c.add(Class::TempRoot);
        } else if place::within(path, t) {
            c.add(Class::Temp);
            in_temp = true;
        }
    }
    if let Some(depth) = place::macos_temp_depth(&comps) {
        if comps.len() == depth {
            c.add(Class::TempRoot);
        } else if comps.len() > depth
            && comps.get(..depth).is_some_and(|p| {
                // exact spelling for the safe class
                p.first() == Some(&"var") && p.get(1) == Some(&"folders")
                    || p.first() == Some(&"private")
                        && p.get(1) == Some(&"var")
                        && p.get(2) == Some(&"folders")
            })
        {
            c.add(Class::Temp);
            in_temp = true;
        }
    }
    if is_mount(&comps) {
        c.add(Class::Mount);
    }
    if !comps.is_empty() && !c.has(Class::TempRoot) && !in_temp && is_system(&comps, env) {
        c.add(Class::System);
    }
    let named = Classes::of(&[
        Class::Root,
        Class::System,
        Class::Home,
        Class::InHome,
        Class::TempRoot,
        Class::Temp,
        Class::Mount,
        Class::Project,
        Class::ContainsProject,
    ]);
    if !c.meets(named) {
        c.add(Class::Elsewhere);
    }
    c
}

/// The classes of a path as a tool names it (`~`, `$HOME`, `..` resolved
/// against the event's `cwd`), its links followed.
#[must_use]
pub fn classify_path(path: &str, env: &Env) -> Target {
    tool_target(path, env, Use::OPEN)
}

/// Where a path a tool names lies (`~`, `$HOME`, `..` resolved against the
/// event's `cwd`), used as `how` says.
#[must_use]
pub fn tool_target(path: &str, env: &Env, how: Use<'_>) -> Target {
    // A Windows spelling in the one spelling (`C:\Users\dev\.ssh` is
    // `/c/Users/dev/.ssh`, `%USERPROFILE%\x` is `~/x`).
    let (path, var) = place::tool_path(path, env.windows());
    let path = path.as_ref();
    let s = match var {
        Some(s) => s,
        None => tool_sym(path, env),
    };
    let made = if how.resolve && !how.made.is_empty() {
        made_links(how.made, env)
    } else {
        Vec::new()
    };
    let mut t = target(&s, env, how, &made);
    // A tool's path is a name, not a pattern.
    t.pattern = None;
    if let Some(sp) = t.spelled.as_deref_mut() {
        sp.pattern = None;
    }
    t
}

/// A path a tool names (no Windows spelling left) as a symbolic absolute path.
fn tool_sym(path: &str, env: &Env) -> Sym {
    match normalize(path, &env.cwd, env.home.as_deref()) {
        Ok(p) if p.starts_with('/') => Sym::text(&p),
        // `~user/…` (no user database) or an unusable path.
        _ => {
            if let Some(rest) = path.strip_prefix('~') {
                let (user, tail) = rest.split_once('/').unwrap_or((rest, ""));
                let mut s = Sym::piece(Piece::HomeOf(user.to_string()));
                if !tail.is_empty() {
                    s.push(Piece::Text(format!("/{tail}")));
                }
                s
            } else {
                Sym::unknown(path)
            }
        }
    }
}
