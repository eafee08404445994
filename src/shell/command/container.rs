//! Commands run in a container, judged where they really reach.
//!
//! `docker run -v "$HOME":/data img rm -rf /data` deletes the user's home:
//! inside the container `/data` *is* the home folder. `docker run img rm -rf /`
//! deletes nothing of the machine's. So the command a container runs is
//! reported (with `docker run` in its `via`) and its paths are mapped back
//! through the container's bind mounts: a container path under a mount's
//! target becomes the host path under its source; a path no mount reaches is
//! the container's own ([`Piece::Contained`]: no class, no list matches it). A
//! privileged container sees the host's `/dev`, and what it `mount`s from
//! there. Named volumes, tmpfs and the image's own files are the container's.
//!
//! Read by `docker`/`podman`/`nerdctl` `run` (and `container run`), and
//! `docker compose run` / `docker-compose run` / `podman-compose run` (only
//! their `-v` options: a service's own volumes are in its compose file, which
//! is not read).

use super::super::value::{Piece, Sym, Value};
use super::wrappers::Action;
use super::{program_is, SimpleCommand};

/// A bind mount as written: which argument holds it, and where its text starts
/// (after `--volume=`).
#[derive(Debug, Clone)]
pub(crate) struct MountArg {
    pub arg: usize,
    pub skip: usize,
    /// `--mount type=…,source=…,target=…` (else `-v SRC:DST[:opts]`).
    pub csv: bool,
}

/// Options of `run` that take a value (as the next word when not glued).
const VALUE_OPTS: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "-c",
    "--cpu-shares",
    "--cap-add",
    "--cap-drop",
    "--cgroup-parent",
    "--cgroupns",
    "--cidfile",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--device",
    "--device-cgroup-rule",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "-e",
    "--env",
    "--env-file",
    "--entrypoint",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-start-period",
    "--health-timeout",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "--kernel-memory",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--mount",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "-p",
    "--publish",
    "--platform",
    "--pid",
    "--pids-limit",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "-u",
    "--user",
    "--ulimit",
    "--userns",
    "--uts",
    "-v",
    "--volume",
    "--volumes-from",
    "-w",
    "--workdir",
    "--arch",
    "--os",
    "--variant",
    "--secret",
    "--userns-remap",
];

/// `docker run …` and its kin: the container's command and how it sees the
/// machine. `None` when `prog args` runs no container command we can read.
pub(crate) fn run(args: &[String]) -> Option<Action> {
    let mut i = 0;
    // Global options (`docker --context x run`, `docker -H h run`).
    while let Some(a) = args.get(i) {
        if !a.starts_with('-') {
            break;
        }
        let takes = matches!(
            a.as_str(),
            "-H" | "--host"
                | "-c"
                | "--context"
                | "--config"
                | "-l"
                | "--log-level"
                | "-f"
                | "--file"
                | "-p"
                | "--project-name"
                | "--project-directory"
                | "--profile"
                | "--env-file"
        );
        i += if takes { 2 } else { 1 };
    }
    let sub = args.get(i)?.as_str();
    if sub == "compose" || sub == "container" {
        i += 1;
        // `docker compose -f x.yml run`
        while let Some(a) = args.get(i) {
            if !a.starts_with('-') {
                break;
            }
            let takes = matches!(
                a.as_str(),
                "-f" | "--file"
                    | "-p"
                    | "--project-name"
                    | "--project-directory"
                    | "--profile"
                    | "--env-file"
                    | "--ansi"
                    | "--progress"
            );
            i += if takes { 2 } else { 1 };
        }
    }
    if args.get(i).map(String::as_str) != Some("run") {
        return None;
    }
    i += 1;
    let mut mounts = vec![];
    let mut workdir = None;
    let mut entrypoint = None;
    let mut privileged = false;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a == "-" {
            break;
        }
        let (name, glued) = match a.split_once('=') {
            Some((n, _)) if a.starts_with("--") => (n, Some(n.len() + 1)),
            _ => (a.as_str(), None),
        };
        let short_glued = !a.starts_with("--")
            && a.len() > 2
            && matches!(
                &a[..2],
                "-v" | "-w" | "-e" | "-p" | "-u" | "-l" | "-m" | "-h" | "-a" | "-c"
            );
        let (value_at, skip, next) = if let Some(k) = glued {
            (Some(i), k, i + 1)
        } else if short_glued {
            (Some(i), 2, i + 1)
        } else if VALUE_OPTS.contains(&name) {
            (Some(i + 1), 0, i + 2)
        } else {
            (None, 0, i + 1)
        };
        let opt = if short_glued { &a[..2] } else { name };
        match opt {
            "--privileged" => privileged = true,
            "-v" | "--volume" => {
                if let Some(arg) = value_at {
                    mounts.push(MountArg {
                        arg,
                        skip,
                        csv: false,
                    });
                }
            }
            "--mount" => {
                if let Some(arg) = value_at {
                    mounts.push(MountArg {
                        arg,
                        skip,
                        csv: true,
                    });
                }
            }
            "-w" | "--workdir" => workdir = value_at.map(|a| (a, skip)),
            "--entrypoint" => entrypoint = value_at.map(|a| (a, skip)),
            _ => {}
        }
        i = next;
    }
    // The image (or the compose service), then its command.
    let image = i;
    if image >= args.len() {
        return None;
    }
    let mut cmd: Vec<usize> = vec![];
    if let Some((e, 0)) = entrypoint {
        cmd.push(e);
    }
    cmd.extend(image + 1..args.len());
    if cmd.is_empty() {
        return None;
    }
    Some(Action::Container {
        cmd,
        mounts,
        workdir,
        privileged,
    })
}

/// The pieces of `s` split at each `sep` in its text.
fn split(s: &Sym, sep: char) -> Vec<Sym> {
    let mut out = vec![Sym::default()];
    for p in &s.0 {
        match p {
            Piece::Text(t) => {
                for (k, part) in t.split(sep).enumerate() {
                    if k > 0 {
                        out.push(Sym::default());
                    }
                    if let Some(last) = out.last_mut() {
                        last.push(Piece::Text(part.to_string()));
                    }
                }
            }
            p => {
                if let Some(last) = out.last_mut() {
                    last.push(p.clone());
                }
            }
        }
    }
    out
}

/// `s` without its first `skip` bytes of text (`--volume=`).
fn skip_text(s: &Sym, skip: usize) -> Sym {
    let mut left = skip;
    let mut out = Sym::default();
    for p in &s.0 {
        match p {
            Piece::Text(t) if left > 0 => {
                let cut = left.min(t.len());
                left -= cut;
                out.push(Piece::Text(t.get(cut..).unwrap_or_default().to_string()));
            }
            p => out.push(p.clone()),
        }
    }
    out
}

/// A host source: a path (`/x`, `./x`, `~`, `$PWD`, `$X`), not a named volume.
fn is_host_path(s: &Sym) -> bool {
    match s.0.first() {
        Some(Piece::Text(t)) => t.starts_with('/') || t.starts_with('.'),
        Some(Piece::Glob(_) | Piece::Contained(_)) | None => false,
        Some(_) => true,
    }
}

/// The bind mounts of one `-v`/`--mount` value: (container path, host path).
pub(crate) fn mounts_of(value: &Value, m: &MountArg) -> Vec<(Sym, Sym)> {
    let mut out = vec![];
    for s in &value.0 {
        let s = skip_text(s, m.skip);
        if m.csv {
            let mut kind = String::from("volume");
            let (mut src, mut dst) = (None, None);
            for field in split(&s, ',') {
                let kv = split(&field, '=');
                let Some(key) = kv.first().and_then(Sym::literal) else {
                    continue;
                };
                let mut val = Sym::default();
                for (k, part) in kv.iter().enumerate().skip(1) {
                    if k > 1 {
                        val.push(Piece::Text("=".into()));
                    }
                    val.extend(part);
                }
                match key.as_str() {
                    "type" => kind = val.literal().unwrap_or_default(),
                    "source" | "src" => src = Some(val),
                    "target" | "destination" | "dst" => dst = Some(val),
                    _ => {}
                }
            }
            if let (true, Some(src), Some(dst)) = (kind == "bind", src, dst) {
                out.push((dst, src));
            }
        } else {
            let parts = split(&s, ':');
            if let [src, dst, ..] = parts.as_slice() {
                if is_host_path(src) {
                    out.push((dst.clone(), src.clone()));
                }
            }
        }
    }
    out
}

/// Is `prefix` (a container mount target) `path` or a folder above it? The
/// rest of `path` after it.
fn under(path: &Sym, prefix: &Sym) -> Option<Sym> {
    let (p, q) = (&path.0, &prefix.0);
    let n = q.len();
    if n == 0 || p.len() < n || p[..n - 1] != q[..n - 1] {
        return None;
    }
    let mut rest = Sym::default();
    match (&p[n - 1], &q[n - 1]) {
        (Piece::Text(t), Piece::Text(d)) => {
            let d = d.trim_end_matches('/');
            let tail = t.strip_prefix(d)?;
            if !(tail.is_empty() || tail.starts_with('/')) {
                return None;
            }
            rest.push(Piece::Text(tail.to_string()));
        }
        (a, b) if a == b => {}
        _ => return None,
    }
    for piece in &p[n..] {
        rest.push(piece.clone());
    }
    match rest.0.first() {
        None => Some(rest),
        Some(Piece::Text(t)) if t.starts_with('/') => Some(rest),
        _ => None,
    }
}

/// How a container sees the machine.
#[derive(Debug, Default, Clone)]
pub(crate) struct View {
    /// (container path, host path), in the order given (a later mount over
    /// the same target wins, as in docker).
    pub mounts: Vec<(Sym, Value)>,
    /// The host's devices are the container's (`--privileged`).
    pub privileged: bool,
}

impl View {
    /// Where a container value lies on the host.
    pub fn map(&self, v: &Value) -> Value {
        let mut out = Value::default();
        for s in &v.0 {
            for m in self.map_sym(s).0 {
                out.add(m);
            }
        }
        out
    }

    fn map_sym(&self, s: &Sym) -> Value {
        let absolute = match s.0.first() {
            Some(Piece::Text(t) | Piece::Glob(t)) => t.starts_with('/'),
            Some(Piece::Contained(_)) => return Value::one(s.clone()),
            Some(Piece::Unknown(_) | Piece::Env(_)) => {
                // Anywhere: on a mount too, when there is one.
                return if self.mounts.is_empty() && !self.privileged {
                    contained(s)
                } else {
                    Value::one(s.clone())
                };
            }
            Some(_) => true,
            None => false,
        };
        if !absolute {
            return Value::one(s.clone());
        }
        // The longest target wins (a mount inside a mount).
        let mut best: Option<(usize, Value)> = None;
        for (dst, host) in &self.mounts {
            if let Some(rest) = under(s, dst) {
                let len = dst.to_string().trim_end_matches('/').len();
                if best.as_ref().is_none_or(|(l, _)| len >= *l) {
                    best = Some((len, host.concat(&Value::one(rest))));
                }
            }
        }
        if let Some((_, v)) = best {
            return v;
        }
        let dev =
            matches!(s.0.first(), Some(Piece::Text(t)) if t == "/dev" || t.starts_with("/dev/"));
        if self.privileged && dev {
            return Value::one(s.clone());
        }
        contained(s)
    }

    /// Map one command the container runs; a privileged `mount DEV DIR` makes
    /// DIR the device for the commands after it.
    pub fn map_command(&mut self, c: &mut SimpleCommand, host_redirects: &[super::Redirect]) {
        c.cwd = self.map(&c.cwd);
        c.values = c.values.iter().map(|v| self.map(v)).collect();
        c.operand_values = c.operand_values.iter().map(|v| self.map(v)).collect();
        for r in &mut c.redirects {
            if !host_redirects.contains(r) {
                r.value = self.map(&r.value);
            }
        }
        if self.privileged && program_is(&c.program, "mount") && c.operands.len() >= 2 {
            let n = c.operands.len();
            if c.operands[n - 1].starts_with('/') && c.operands[n - 2].starts_with("/dev/") {
                let dir = Sym::text(&c.operands[n - 1]);
                self.mounts.push((dir, c.operand_values[n - 2].clone()));
            }
        }
    }
}

fn contained(s: &Sym) -> Value {
    Value::one(Sym::piece(Piece::Contained(s.to_string())))
}
