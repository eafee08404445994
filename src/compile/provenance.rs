//! Which policies decided: the SHA-256 of the whole policy set in force, and the
//! bundles in it, recorded with every decision (the log, the export) so that an
//! auditor can say which policy a decision came from, and `report`/`replay` can
//! group by it.
//!
//! The set's hash covers, in load order, every source of the set (its layer,
//! its name and its whole text: the built-in pack, the managed layer, user,
//! project and local files, `--policies`, files named by `extends`), and every
//! file that could not be loaded (its message): any change to any policy, a
//! policy added or removed, the pack turned off, changes it. It is computed when
//! the set is built and stored with the compiled set, so `run` only copies it.
//!
//! A **bundle** is a unit someone ships and versions: the built-in pack (its
//! version is hookrules'), each policy of the managed layer, and each policy that
//! names a `[policy] version`. Each is recorded with its name, version and the
//! SHA-256 of its text (for the pack: of its parts, in load order).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::policy::syntax::RawPolicy;
use crate::source::{Layer, Origin, PolicySource};

/// The name the built-in pack has as a bundle.
pub const BUILTIN_BUNDLE: &str = "builtin";

/// What a decision was made under.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// SHA-256 (lowercase hex) of the whole policy set in force.
    pub hash: String,
    /// The bundles in it, in load order.
    pub bundles: Vec<Bundle>,
}

/// A named, versioned unit of policy.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Bundle {
    /// `[policy] name`, else the file stem; `builtin` for the pack.
    pub name: String,
    /// `[policy] version`; hookrules' version for the pack; empty when a
    /// managed policy names none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub version: String,
    /// SHA-256 (lowercase hex) of its text.
    pub hash: String,
    /// Its layer.
    pub layer: Layer,
}

/// One source of a set, as provenance sees it: its text and, when it parsed,
/// its `[policy]` header.
pub struct Part<'a> {
    /// The source.
    pub source: &'a Arc<PolicySource>,
    /// Its parsed policy (None: it did not parse).
    pub raw: Option<&'a RawPolicy>,
}

impl Provenance {
    /// The provenance of a set made of `parts` (in load order), with `unloadable`
    /// the messages of files that could not be read.
    pub fn of(parts: &[Part<'_>], unloadable: &[String]) -> Provenance {
        let mut set = Sha256::new();
        let mut builtin = Sha256::new();
        let mut has_builtin = false;
        let mut bundles = vec![];
        for p in parts {
            let name = p.source.display_name();
            // Each text is read once: the set and the pack hash its digest.
            let text = hex(&Sha256::digest(p.source.full_text().as_bytes()));
            framed(&mut set, &[p.source.layer.name(), &name, &text]);
            if let Origin::Builtin(_) = p.source.origin {
                framed(&mut builtin, &[&name, &text]);
                has_builtin = true;
                continue;
            }
            let header = p.raw.map(|r| &r.policy);
            let version = header
                .and_then(|h| h.version.as_ref())
                .map(|v| v.value.clone());
            if version.is_none() && p.source.layer != Layer::Managed {
                continue;
            }
            bundles.push(Bundle {
                name: header
                    .and_then(|h| h.name.as_ref())
                    .map(|n| n.value.clone())
                    .unwrap_or_else(|| p.source.stem()),
                version: version.unwrap_or_default(),
                hash: text,
                layer: p.source.layer,
            });
        }
        for u in unloadable {
            framed(&mut set, &["unloadable", u]);
        }
        if has_builtin {
            bundles.insert(
                0,
                Bundle {
                    name: BUILTIN_BUNDLE.into(),
                    version: env!("CARGO_PKG_VERSION").into(),
                    hash: hex(&builtin.finalize()),
                    layer: Layer::Builtin,
                },
            );
        }
        Provenance {
            hash: hex(&set.finalize()),
            bundles,
        }
    }

    /// The first 12 hex digits: enough to tell sets apart on a screen.
    pub fn short(hash: &str) -> &str {
        hash.get(..12).unwrap_or(hash)
    }
}

impl Bundle {
    /// `name@version` (`name` alone when unversioned).
    pub fn label(&self) -> String {
        if self.version.is_empty() {
            self.name.clone()
        } else {
            format!("{}@{}", self.name, self.version)
        }
    }
}

/// Feed length-prefixed pieces, so that no two different lists of pieces feed
/// the same bytes.
fn framed(h: &mut Sha256, pieces: &[&str]) {
    for p in pieces {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn file(name: &str, text: &str, layer: Layer) -> Arc<PolicySource> {
        PolicySource::in_layer(Origin::File(PathBuf::from(name)), text, layer)
    }

    fn of(sources: &[Arc<PolicySource>]) -> Provenance {
        let parsed: Vec<Option<RawPolicy>> = sources
            .iter()
            .map(|s| crate::policy::parse::parse(s).ok())
            .collect();
        let parts: Vec<Part> = sources
            .iter()
            .zip(&parsed)
            .map(|(source, raw)| Part {
                source,
                raw: raw.as_ref(),
            })
            .collect();
        Provenance::of(&parts, &[])
    }

    #[test]
    fn any_change_to_any_source_changes_the_hash() {
        let a = file("/p/a.toml", "[policy]\nname = \"a\"\n", Layer::User);
        let b = file("/p/b.toml", "", Layer::Project);
        let base = of(&[a.clone(), b.clone()]).hash;
        assert_eq!(base.len(), 64);
        assert_eq!(of(&[a.clone(), b.clone()]).hash, base, "deterministic");
        let edited = file("/p/b.toml", " ", Layer::Project);
        assert_ne!(of(&[a.clone(), edited]).hash, base, "a byte added");
        let moved = file("/p/b.toml", "", Layer::Local);
        assert_ne!(of(&[a.clone(), moved]).hash, base, "another layer");
        let renamed = file("/p/c.toml", "", Layer::Project);
        assert_ne!(of(&[a.clone(), renamed]).hash, base, "another file");
        assert_ne!(of(&[b.clone(), a.clone()]).hash, base, "another order");
        assert_ne!(of(std::slice::from_ref(&a)).hash, base, "a file removed");
        // Framing: the same bytes split differently are another set.
        let x = file("/p/x.toml", "ab", Layer::User);
        let y = file("/p/x.toml", "a", Layer::User);
        let z = file("/p/x.toml", "b", Layer::User);
        assert_ne!(of(&[x]).hash, of(&[y, z]).hash);
        let parts = [Part {
            source: &a,
            raw: None,
        }];
        assert_ne!(
            Provenance::of(&parts, &["cannot read /p/b.toml".into()]).hash,
            Provenance::of(&parts, &[]).hash,
            "an unreadable file is part of the set in force"
        );
    }

    #[test]
    fn bundles_are_the_pack_managed_policies_and_versioned_policies() {
        let pack = crate::policy::discover::builtin().sources;
        let versioned = file(
            "/p/team.toml",
            "[policy]\nname = \"acme-team\"\nversion = \"2.1.0\"\n",
            Layer::Project,
        );
        let plain = file("/p/mine.toml", "", Layer::User);
        let managed = file("/etc/hookrules/org.toml", "", Layer::Managed);
        let mut sources = pack.clone();
        sources.extend([managed.clone(), plain, versioned.clone()]);
        let p = of(&sources);
        let labels: Vec<String> = p.bundles.iter().map(Bundle::label).collect();
        assert_eq!(
            labels,
            [
                format!("builtin@{}", env!("CARGO_PKG_VERSION")),
                "org".to_string(),
                "acme-team@2.1.0".to_string()
            ]
        );
        let team = &p.bundles[2];
        assert_eq!(team.hash, hex(&Sha256::digest(versioned.text.as_bytes())));
        // The pack's hash moves with any of its parts.
        let mut fewer = pack.clone();
        fewer.pop();
        assert_ne!(of(&fewer).bundles[0].hash, p.bundles[0].hash);
    }
}
