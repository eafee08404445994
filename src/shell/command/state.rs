//! What one shell knows while it runs a script: its directory, its variables,
//! functions, aliases, positional parameters and the files it wrote. The
//! extractor carries one [`State`] through the script, splitting it at `&&` /
//! `||` and joining the alternatives where paths meet again, so a later command
//! sees every value the earlier ones may have left.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::syntax::Command;
use crate::shell::links::MadeLink;
use crate::shell::value::{Piece, Sym, Value};

/// A variable's value.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Var {
    /// A string.
    Scalar(Value),
    /// An indexed array, element by element.
    Array(Vec<Value>),
}

impl Var {
    /// The value of `$X` (an array's first element).
    pub fn scalar(&self) -> Value {
        match self {
            Var::Scalar(v) => v.clone(),
            Var::Array(a) => a.first().cloned().unwrap_or_else(|| Value::text("")),
        }
    }

    fn union(&self, other: &Var) -> Var {
        match (self, other) {
            (Var::Array(a), Var::Array(b)) if a.len() == b.len() => {
                Var::Array(a.iter().zip(b).map(|(x, y)| x.clone().union(y)).collect())
            }
            _ => Var::Scalar(self.scalar().union(&other.scalar())),
        }
    }
}

/// A variable and whether child processes see it.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Binding {
    pub var: Var,
    pub exported: bool,
}

/// The contents of a file the script wrote (`echo … > f`, `cat > f <<EOF`).
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Written {
    /// Text the analysis knows (it may name the home folder, the project, or
    /// hold parts nobody can know: see `emit::script_text`).
    Text(Value),
    /// Something only known at run time (`curl -o f …`, `cp x f`).
    Unknown,
}

/// A function's body (two are equal when they are the same definition).
#[derive(Debug, Clone)]
pub(super) struct Func(pub Rc<Command>);

impl PartialEq for Func {
    fn eq(&self, other: &Func) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// The state of one shell.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct State {
    /// The current directory.
    pub cwd: Value,
    /// `$OLDPWD` (unknown until a `cd`).
    pub oldpwd: Value,
    /// `pushd`'s stack.
    pub dirs: Vec<Value>,
    /// Variables assigned in the command (anything else is the environment's).
    pub vars: BTreeMap<String, Binding>,
    /// Functions defined in the command.
    pub funcs: BTreeMap<String, Func>,
    /// Aliases defined in the command.
    pub aliases: BTreeMap<String, String>,
    /// `$0`, `$1`, …: `None` when nobody can know them (the top level).
    pub positional: Option<Vec<Value>>,
    /// Files written, by the text of their path.
    pub files: BTreeMap<String, Written>,
    /// Links made (`ln -s T L`), in the order they were made.
    pub links: Vec<MadeLink>,
    /// `hash -p PATH NAME`: the program a name runs.
    pub hashed: BTreeMap<String, String>,
    /// Variables declared integers (`declare -i`): what is assigned to them
    /// is an arithmetic expression.
    pub integers: BTreeSet<String>,
    /// Functions exported to child shells (`export -f f`).
    pub exported_funcs: BTreeSet<String>,
}

impl State {
    /// The state a command starts in: the event's directory, nothing else known.
    pub fn start() -> State {
        State {
            cwd: Value::one(Sym::piece(Piece::Start)),
            oldpwd: Value::unknown("$OLDPWD"),
            dirs: Vec::new(),
            vars: BTreeMap::new(),
            funcs: BTreeMap::new(),
            aliases: BTreeMap::new(),
            positional: None,
            files: BTreeMap::new(),
            links: Vec::new(),
            hashed: BTreeMap::new(),
            integers: BTreeSet::new(),
            exported_funcs: BTreeSet::new(),
        }
    }

    /// The state of a child shell (`bash -c`, a script): the directory and the
    /// files are shared; it sees exported variables, and a variable the
    /// analysis cannot prove unexported may or may not reach it (`set -a`), so
    /// it is either its value or empty there. Aliases are not inherited, nor
    /// functions unless exported (`export -f`).
    pub fn child(&self, positional: Option<Vec<Value>>) -> State {
        let vars = self
            .vars
            .iter()
            .map(|(k, b)| {
                let var = if b.exported {
                    b.var.clone()
                } else {
                    Var::Scalar(b.var.scalar().union(&Value::text("")))
                };
                (
                    k.clone(),
                    Binding {
                        var,
                        exported: b.exported,
                    },
                )
            })
            .collect();
        // Exported functions reach it through the environment.
        let funcs = self
            .funcs
            .iter()
            .filter(|(k, _)| self.exported_funcs.contains(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        State {
            cwd: self.cwd.clone(),
            oldpwd: self.oldpwd.clone(),
            dirs: Vec::new(),
            vars,
            funcs,
            aliases: BTreeMap::new(),
            positional,
            files: self.files.clone(),
            links: self.links.clone(),
            hashed: BTreeMap::new(),
            integers: BTreeSet::new(),
            exported_funcs: self.exported_funcs.clone(),
        }
    }

    /// Every value either state may hold.
    pub fn union(&self, other: &State) -> State {
        if self == other {
            return self.clone();
        }
        let mut vars = BTreeMap::new();
        for k in self.vars.keys().chain(other.vars.keys()) {
            if vars.contains_key(k) {
                continue;
            }
            let env = || Binding {
                var: Var::Scalar(Value::unknown(&format!("${k}"))),
                exported: true,
            };
            let a = self.vars.get(k).cloned().unwrap_or_else(env);
            let b = other.vars.get(k).cloned().unwrap_or_else(env);
            vars.insert(
                k.clone(),
                Binding {
                    var: a.var.union(&b.var),
                    exported: a.exported || b.exported,
                },
            );
        }
        let mut funcs = self.funcs.clone();
        funcs.extend(other.funcs.iter().map(|(k, v)| (k.clone(), v.clone())));
        let mut aliases = self.aliases.clone();
        aliases.extend(other.aliases.iter().map(|(k, v)| (k.clone(), v.clone())));
        let mut files = self.files.clone();
        for (k, v) in &other.files {
            match files.get(k) {
                Some(w) if w != v => {
                    files.insert(k.clone(), Written::Unknown);
                }
                Some(_) => {}
                None => {
                    files.insert(k.clone(), v.clone());
                }
            }
        }
        let dirs = if self.dirs == other.dirs {
            self.dirs.clone()
        } else {
            Vec::new()
        };
        let positional = if self.positional == other.positional {
            self.positional.clone()
        } else {
            None
        };
        let mut links = self.links.clone();
        add_links(&mut links, &other.links);
        let mut hashed = self.hashed.clone();
        hashed.extend(other.hashed.iter().map(|(k, v)| (k.clone(), v.clone())));
        let integers = self.integers.union(&other.integers).cloned().collect();
        let exported_funcs = self
            .exported_funcs
            .union(&other.exported_funcs)
            .cloned()
            .collect();
        State {
            cwd: self.cwd.clone().union(&other.cwd),
            oldpwd: self.oldpwd.clone().union(&other.oldpwd),
            dirs,
            vars,
            funcs,
            aliases,
            positional,
            files,
            links,
            hashed,
            integers,
            exported_funcs,
        }
    }

    /// Set a variable.
    pub fn set(&mut self, name: &str, var: Var, export: bool) {
        let exported = export || self.vars.get(name).is_some_and(|b| b.exported);
        self.vars
            .insert(name.to_string(), Binding { var, exported });
    }
}

/// Add the links of `more` that `to` lacks, in their order (a link made on
/// one branch may have been made).
pub(super) fn add_links(to: &mut Vec<MadeLink>, more: &[MadeLink]) {
    for l in more {
        if !to.contains(l) {
            to.push(l.clone());
        }
    }
}

/// Join alternative states (`None`: that path cannot be taken).
pub(super) fn join(a: Option<Rc<State>>, b: Option<Rc<State>>) -> Option<Rc<State>> {
    match (a, b) {
        (Some(a), Some(b)) => {
            if Rc::ptr_eq(&a, &b) {
                Some(a)
            } else {
                Some(Rc::new(a.union(&b)))
            }
        }
        (a, None) => a,
        (None, b) => b,
    }
}
