//! What text a producer emits, read as a script: the one answer shared by
//! every way text reaches a shell or a make (`echo … | sh`, `source <(echo …)`,
//! `bash <<< "$(echo …)"`, `echo … > f; sh f`, `make -f <(printf …)`).
//!
//! A producer's output is a [`Value`]: literal text, or text with pieces the
//! analysis resolves later against the event (`echo rm -rf ~` prints the home
//! folder) or cannot know (`echo "$X"`). The script is that text with each
//! such piece written back as the expansion that names it (`${HOME}`,
//! `${CLAUDE_PROJECT_DIR}`, an unset variable for an unknown), so the shell
//! that reads it is judged on where it really reaches.
//!
//! There is no such spelling inside single quotes (`echo "rm -rf '$HOME'"`
//! prints a quoted home path, which `'${HOME}'` would not be), nor for a value
//! with several alternatives: then the script is not known (`None`), and the
//! caller treats it as code produced at run time.

use crate::shell::value::{Piece, Value};

/// The script a shell would read from text with value `v`, when one text is
/// known (see the module documentation).
pub(super) fn script_text(v: &Value) -> Option<String> {
    let [one] = v.0.as_slice() else {
        return None;
    };
    let mut out = String::new();
    let mut quotes = Quotes::default();
    for p in &one.0 {
        let name = match p {
            Piece::Text(t) | Piece::Glob(t) => {
                quotes.read(t);
                out.push_str(t);
                continue;
            }
            Piece::Home => "HOME",
            Piece::Start => "PWD",
            Piece::Project => "CLAUDE_PROJECT_DIR",
            Piece::TempRoot => "TMPDIR",
            Piece::Env(n) => n.as_str(),
            Piece::Unknown(_) => "__hookrules_unknown",
            Piece::Followed => continue,
            Piece::HomeOf(_) | Piece::Below | Piece::Contained(_) => return None,
        };
        if quotes.single || quotes.escaped {
            return None;
        }
        out.push_str("${");
        out.push_str(name);
        out.push('}');
    }
    Some(out)
}

/// Where a shell reading text is: inside single or double quotes, or right
/// after a backslash.
#[derive(Default)]
struct Quotes {
    single: bool,
    double: bool,
    escaped: bool,
}

impl Quotes {
    fn read(&mut self, text: &str) {
        for c in text.chars() {
            if self.escaped {
                self.escaped = false;
                continue;
            }
            match c {
                '\'' if !self.double => self.single = !self.single,
                '"' if !self.single => self.double = !self.double,
                '\\' if !self.single => self.escaped = true,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell::value::Sym;

    fn sym(pieces: Vec<Piece>) -> Value {
        Value::one(Sym(pieces))
    }

    #[test]
    fn known_pieces_become_the_expansion_that_names_them() {
        let cases: &[(Value, Option<&str>)] = &[
            (Value::text("rm -rf ~"), Some("rm -rf ~")),
            (
                sym(vec![Piece::Text("rm -rf ".into()), Piece::Home]),
                Some("rm -rf ${HOME}"),
            ),
            (
                sym(vec![
                    Piece::Text("rm -rf \"".into()),
                    Piece::Project,
                    Piece::Text("\"".into()),
                ]),
                Some("rm -rf \"${CLAUDE_PROJECT_DIR}\""),
            ),
            (
                sym(vec![
                    Piece::Text("echo ".into()),
                    Piece::Unknown("$X".into()),
                ]),
                Some("echo ${__hookrules_unknown}"),
            ),
            // Inside single quotes no spelling means the home folder.
            (
                sym(vec![
                    Piece::Text("rm -rf '".into()),
                    Piece::Home,
                    Piece::Text("'".into()),
                ]),
                None,
            ),
            (
                sym(vec![Piece::Text("rm -rf \\".into()), Piece::Home]),
                None,
            ),
            (Value(vec![Sym::text("a"), Sym::text("b")]), None),
        ];
        for (v, want) in cases {
            assert_eq!(script_text(v).as_deref(), *want, "{v}");
        }
    }
}
