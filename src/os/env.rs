//! The environment variables hookrules reads, looked up when asked.
//!
//! `run` is one short process that reads a dozen variables; copying the whole
//! environment into a sorted map first (every name and value copied, checked
//! for UTF-8 and sorted) cost more than the rest of a `Stop` event's judgement.
//! An [`Env`] is either the process's own environment, read with
//! [`std::env::var_os`] when a variable is asked for, or a map (tests,
//! fixtures, a replayed record), with the changes made on top of it
//! ([`Env::set`], [`Env::unset`]: the variables a project file set and that
//! hookrules ignores, the project a fixture names). Whoever needs the whole
//! environment (a command fact's child process, a fixture written from it)
//! asks for it with [`Env::vars`].
//!
//! As with the map it replaces, a variable whose name or value is not UTF-8
//! is absent.

use std::collections::BTreeMap;

/// The environment: the process's own or a map, with changes on top.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Env {
    base: Base,
    /// Set (`Some`) or removed (`None`) on top of the base.
    changes: BTreeMap<String, Option<String>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Base {
    /// The process's environment, read when asked.
    Process,
    /// A fixed map (an empty one by default).
    Map(BTreeMap<String, String>),
}

impl Default for Base {
    fn default() -> Base {
        Base::Map(BTreeMap::new())
    }
}

impl Env {
    /// The process's own environment; nothing is read until a variable is asked for.
    #[must_use]
    pub fn process() -> Env {
        Env {
            base: Base::Process,
            changes: BTreeMap::new(),
        }
    }

    /// The variable `name`, if it is set (and its name and value are UTF-8).
    #[must_use]
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(changed) = self.changes.get(name) {
            return changed.clone();
        }
        match &self.base {
            Base::Process => process_var(name),
            Base::Map(m) => m.get(name).cloned(),
        }
    }

    /// Whether `name` is set.
    #[must_use]
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Set `name` to `value` (on top of the base; the process's own
    /// environment is not changed).
    pub fn set(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.changes.insert(name.into(), Some(value.into()));
    }

    /// Remove `name` (on top of the base).
    pub fn unset(&mut self, name: &str) {
        self.changes.insert(name.to_string(), None);
    }

    /// The whole environment as a map: for what needs every variable (a
    /// child process's environment, a fixture written from it). This copies
    /// the process's environment when it is the base.
    #[must_use]
    pub fn vars(&self) -> BTreeMap<String, String> {
        let mut all = match &self.base {
            Base::Process => std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
            Base::Map(m) => m.clone(),
        };
        for (k, v) in &self.changes {
            match v {
                Some(v) => all.insert(k.clone(), v.clone()),
                None => all.remove(k),
            };
        }
        all
    }
}

/// One variable of the process's environment. A name the operating system
/// cannot hold (empty, or with `=` or NUL in it) is never set.
fn process_var(name: &str) -> Option<String> {
    if name.is_empty() || name.contains(['=', '\0']) {
        return None;
    }
    std::env::var_os(name)?.into_string().ok()
}

impl From<BTreeMap<String, String>> for Env {
    fn from(map: BTreeMap<String, String>) -> Env {
        Env {
            base: Base::Map(map),
            changes: BTreeMap::new(),
        }
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Env {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Env {
        Env::from(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect::<BTreeMap<String, String>>(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_sit_on_top_of_the_base() {
        let mut env: Env = [("HOME", "/h"), ("A", "1")].into_iter().collect();
        env.set("B", "2");
        env.unset("A");
        assert_eq!(env.get("HOME").as_deref(), Some("/h"));
        assert_eq!(env.get("A"), None);
        assert_eq!(env.get("B").as_deref(), Some("2"));
        let all: Vec<(String, String)> = env.vars().into_iter().collect();
        assert_eq!(
            all,
            [("B".into(), "2".into()), ("HOME".into(), "/h".into())]
        );
    }

    #[test]
    fn the_process_environment_is_read_when_asked() {
        let env = Env::process();
        let path = std::env::var("PATH").ok();
        assert_eq!(env.get("PATH"), path);
        assert_eq!(env.vars().get("PATH").cloned(), path);
        for bad in ["", "A=B", "A\0B"] {
            assert_eq!(env.get(bad), None, "{bad:?}");
        }
    }
}
