//! What the analysis knows about a shell value before the command runs.
//!
//! A word such as `"$HOME"/build/*` is neither a string nor unknown: it is the
//! home folder, then literal text, then a pattern. A [`Sym`] keeps those pieces,
//! and a [`Value`] holds the alternatives a value may take (a `cd` that may have
//! failed, a `for` loop variable, `${X:-default}`). Pieces that depend on the
//! machine (home, the event's working directory, the project) are resolved later,
//! by `shell::reach`, against the event; pieces nobody can know before run time
//! (`$1`, `$(curl …)`, a variable never assigned in the command) are
//! [`Piece::Unknown`], and never treated as safe.

use std::fmt;

use super::budget;

/// Most alternatives a value keeps; beyond that one [`Piece::Unknown`]
/// alternative stands for the rest.
pub const MAX_ALTERNATIVES: usize = 8;

/// One piece of a value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Piece {
    /// Literal text.
    Text(String),
    /// Unquoted pattern text (`*`, `?`, `[…]`): the shell replaces it with the
    /// names it matches.
    Glob(String),
    /// The home folder (`~`, `$HOME`).
    Home,
    /// Another user's home folder (`~name`).
    HomeOf(String),
    /// The directory the command starts in (the event's `cwd`).
    Start,
    /// The project folder (`$CLAUDE_PROJECT_DIR`, `git rev-parse --show-toplevel`).
    Project,
    /// The temp root (`$TMPDIR`, else `/tmp`).
    TempRoot,
    /// A variable of the environment whose value the event context may know
    /// (`USER`, `LOGNAME`).
    Env(String),
    /// Only known at run time; the text is what was written (`$DIR`, `$(curl …)`).
    Unknown(String),
    /// A further path below what comes before, one or more names the analysis
    /// does not know (what `find -name x -exec rm {} +` hands `rm`).
    Below,
    /// A path in a container's own file system, which no bind mount maps to
    /// this machine (the text is the container path).
    Contained(String),
    /// No text: a link at the end of what comes before is followed. What
    /// `realpath L` and `readlink L` print is where the link `L` leads, so
    /// `rm -rf "$(readlink keys)"` removes what `keys` leads to, not the
    /// link. Last, or before a `/..` (which then leaves from where the link
    /// led): any other piece pushed after it takes its place (every component
    /// before the last is followed anyway).
    Followed,
}

/// A value as a sequence of pieces (an empty sequence is the empty string).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Sym(pub Vec<Piece>);

impl Sym {
    /// Literal text (past the analysis' budget, see [`Sym::push`], an
    /// unknown value, and the analysis is over budget).
    #[must_use]
    pub fn text(s: &str) -> Sym {
        if s.is_empty() {
            Sym(Vec::new())
        } else if s.len() > budget::MAX_VALUE_BYTES {
            budget::exceed(budget::Over::Value);
            Sym(vec![Piece::Unknown("(a value over the budget)".into())])
        } else {
            Sym(vec![Piece::Text(s.to_string())])
        }
    }

    /// One piece.
    #[must_use]
    pub fn piece(p: Piece) -> Sym {
        Sym(vec![p])
    }

    /// Something nobody can know before run time.
    #[must_use]
    pub fn unknown(what: &str) -> Sym {
        Sym(vec![Piece::Unknown(what.to_string())])
    }

    /// Append a piece, merging adjacent text. A value past the analysis'
    /// budget ([`budget::MAX_VALUE_BYTES`] of text in one piece,
    /// [`budget::MAX_FIELDS`] pieces) stops growing, and the analysis is over
    /// budget (the command is unparsable).
    pub fn push(&mut self, p: Piece) {
        if matches!(p, Piece::Text(ref t) if t.is_empty()) {
            return;
        }
        if self.0.last() == Some(&Piece::Followed) {
            match &p {
                Piece::Followed => return,
                // `..` after it goes up from where the link led: kept, so
                // reach knows the `..` is the kernel's, not a name taken back.
                Piece::Text(t) if t.starts_with("/..") => {}
                _ => {
                    self.0.pop();
                }
            }
        }
        let long = match (self.0.last_mut(), p) {
            (Some(Piece::Text(a)), Piece::Text(b)) | (Some(Piece::Glob(a)), Piece::Glob(b)) => {
                let long = a.len().saturating_add(b.len()) > budget::MAX_VALUE_BYTES;
                if !long {
                    a.push_str(&b);
                }
                long
            }
            (_, p) => {
                let long = self.0.len() >= budget::MAX_FIELDS;
                if !long {
                    self.0.push(p);
                }
                long
            }
        };
        if long {
            budget::exceed(budget::Over::Value);
        }
    }

    /// Append another value's pieces.
    pub fn extend(&mut self, other: &Sym) {
        for p in &other.0 {
            self.push(p.clone());
        }
    }

    /// The text, when every piece is literal text (a pattern counts as text).
    #[must_use]
    pub fn literal(&self) -> Option<String> {
        let mut s = String::new();
        for p in &self.0 {
            match p {
                Piece::Text(t) | Piece::Glob(t) => s.push_str(t),
                Piece::Followed => {}
                _ => return None,
            }
        }
        Some(s)
    }

    /// Does any piece depend on something nobody can know?
    #[must_use]
    pub fn has_unknown(&self) -> bool {
        self.0.iter().any(|p| matches!(p, Piece::Unknown(_)))
    }

    /// Is it the empty string?
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Sym {
    /// A shell spelling of the value (`$HOME/x`, `~bob`, `$PWD`), for traces and
    /// for the text of arguments.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for p in &self.0 {
            match p {
                Piece::Text(t) | Piece::Glob(t) => f.write_str(t)?,
                Piece::Home => f.write_str("$HOME")?,
                Piece::HomeOf(u) => write!(f, "~{u}")?,
                Piece::Start => f.write_str("$PWD")?,
                Piece::Project => f.write_str("$CLAUDE_PROJECT_DIR")?,
                Piece::TempRoot => f.write_str("$TMPDIR")?,
                Piece::Env(n) => write!(f, "${n}")?,
                Piece::Unknown(w) => f.write_str(shown_label(w))?,
                Piece::Below => f.write_str("/…")?,
                Piece::Contained(p) => write!(f, "(in the container) {p}")?,
                Piece::Followed => {}
            }
        }
        Ok(())
    }
}

/// Between an unknown piece's shown text and the number of the commands
/// whose output it is (see [`Value::captured`]); never in a shell word.
const CAPTURED: char = '\u{1F}';

/// The text an unknown piece shows (without the number of its commands).
fn shown_label(label: &str) -> &str {
    label.split_once(CAPTURED).map_or(label, |(shown, _)| shown)
}

/// The alternatives a value may take (never empty for a word).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Value(pub Vec<Sym>);

impl Value {
    /// One alternative.
    #[must_use]
    pub fn one(s: Sym) -> Value {
        Value(vec![s])
    }

    /// Literal text.
    #[must_use]
    pub fn text(s: &str) -> Value {
        Value::one(Sym::text(s))
    }

    /// Something nobody can know before run time.
    #[must_use]
    pub fn unknown(what: &str) -> Value {
        Value::one(Sym::unknown(what))
    }

    /// What the commands the analysis numbered `id` print, when nobody can
    /// know it before they run: unknown, shown as `shown` (`$(…)`), and
    /// still naming those commands wherever the value goes (a variable, a
    /// word, another variable), so that where it is printed or sent the
    /// commands that produced it are judged as printing or sending it.
    #[must_use]
    pub fn captured(shown: &str, id: usize) -> Value {
        Value::unknown(&format!("{shown}{CAPTURED}{id}"))
    }

    /// The numbers of the commands whose output pieces of `self` are (see
    /// [`Value::captured`]), in order, each once.
    #[must_use]
    pub fn captured_ids(&self) -> Vec<usize> {
        let mut out: Vec<usize> = Vec::new();
        for s in &self.0 {
            for p in &s.0 {
                let Piece::Unknown(label) = p else { continue };
                let Some((_, id)) = label.split_once(CAPTURED) else {
                    continue;
                };
                if let Ok(id) = id.parse::<usize>() {
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
            }
        }
        out
    }

    /// Add an alternative (duplicates dropped; past [`MAX_ALTERNATIVES`] an
    /// unknown alternative stands for the rest).
    pub fn add(&mut self, s: Sym) {
        if self.0.contains(&s) {
            return;
        }
        if self.0.len() + 1 >= MAX_ALTERNATIVES {
            let rest = Sym::unknown("(more alternatives)");
            if !self.0.contains(&rest) {
                self.0.truncate(MAX_ALTERNATIVES - 1);
                self.0.push(rest);
            }
            return;
        }
        self.0.push(s);
    }

    /// Every alternative of both.
    #[must_use]
    pub fn union(mut self, other: &Value) -> Value {
        for s in &other.0 {
            self.add(s.clone());
        }
        self
    }

    /// The text, when there is one alternative and it is literal.
    #[must_use]
    pub fn literal(&self) -> Option<String> {
        match self.0.as_slice() {
            [one] => one.literal(),
            _ => None,
        }
    }

    /// The text, when there is one alternative and every piece of it is
    /// known here: literal text, or the starting folder (`cwd`, the event's).
    /// A command's folder, a script's name, a make variable: what a reader
    /// of files on disk can open before the command runs.
    #[must_use]
    pub fn known_from(&self, cwd: &str) -> Option<String> {
        let [s] = self.0.as_slice() else { return None };
        let mut out = String::new();
        for p in &s.0 {
            match p {
                Piece::Start => out.push_str(cwd),
                Piece::Text(t) => out.push_str(t),
                _ => return None,
            }
        }
        Some(out)
    }

    /// Does any alternative depend on something nobody can know?
    #[must_use]
    pub fn has_unknown(&self) -> bool {
        self.0.iter().any(Sym::has_unknown)
    }

    /// Some path below each alternative (`DIR/…`): a name a program finds or
    /// lists there.
    #[must_use]
    pub fn below(&self) -> Value {
        let mut out = Value::default();
        for s in &self.0 {
            let mut s = s.clone();
            s.push(Piece::Below);
            out.add(s);
        }
        out
    }

    /// The same paths, a link at the end of each followed (what `realpath`
    /// prints; see [`Piece::Followed`]).
    #[must_use]
    pub fn followed(&self) -> Value {
        Value(
            self.0
                .iter()
                .map(|s| {
                    let mut s = s.clone();
                    s.push(Piece::Followed);
                    s
                })
                .collect(),
        )
    }

    /// Every combination of `self` followed by `other`.
    #[must_use]
    pub fn concat(&self, other: &Value) -> Value {
        let mut out = Value::default();
        for a in &self.0 {
            for b in &other.0 {
                let mut s = a.clone();
                s.extend(b);
                out.add(s);
            }
        }
        out
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{s}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_output_shows_as_written_and_keeps_its_commands() {
        let mut s = Sym::text("Bearer ");
        s.extend(&Value::captured("$(…)", 3).0[0]);
        let v = Value::one(s).union(&Value::captured("`…`", 7));
        assert_eq!(v.0[0].to_string(), "Bearer $(…)");
        assert_eq!(v.0[1].to_string(), "`…`");
        assert!(v.has_unknown());
        assert_eq!(v.captured_ids(), [3, 7]);
        assert!(Value::unknown("$(…)").captured_ids().is_empty());
    }
}
