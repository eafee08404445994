//! Required headings (`headings = [...]` of a `file` fact): what an entry asks for,
//! what counts as a heading in a Markdown document, and when one satisfies an entry.
//! One place for the question, because `check` judges the entries (can one ever be
//! found?) and evaluation finds them in a file, and the two must agree.
//!
//! The rules, as the README states them:
//!
//! - An entry that starts with one to six `#` and a space asks for a heading of that
//!   level (`"## Next steps"`: a level-2 heading); any other entry asks for the text
//!   at any level, or on a line of its own (`**Next steps**`, `Next steps:`).
//! - Headings are ATX (`## Text`, optionally closed by `#`s: `## Text ##`) or setext
//!   (a line of text underlined with `===`, level 1, or `---`, level 2), as CommonMark
//!   reads them: a `#` needs a space after it (`#Notes` is text), at most six.
//!   Lines inside fenced code blocks (```` ``` ```` or `~~~`) and a leading YAML
//!   front matter block are not headings.
//! - Texts compare case-insensitively, with runs of whitespace as one space, and
//!   emphasis (`**`, `__`), a trailing colon and a closing `#` sequence left out.
//! - A heading satisfies an entry when its text is the entry's text, or starts with
//!   it and goes on after a character that is not a letter or digit
//!   (`## What I did (today)` and `## Unresolved questions` satisfy `What I did` and
//!   `Unresolved`; `## Next stepsister` does not satisfy `Next steps`). A line of its
//!   own must read exactly the entry's text, so prose (`What I did today was…`) is
//!   never a heading.

/// What one `headings` entry asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wanted {
    /// The heading level (1–6), or `None`: any level, or a line of its own.
    pub level: Option<u8>,
    /// The text, folded (see [`fold`]).
    text: String,
}

/// Why an entry can never be found as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// No text at all (`""`, `"##"`, `"**"`): it is never satisfied.
    Empty,
    /// More than six `#`: Markdown has no such heading.
    TooDeep(usize),
    /// `#` directly followed by text (`#Notes`): Markdown reads that as text, so the
    /// entry matches only a line that reads `#Notes`, never a heading.
    NoSpace {
        /// The entry with the space put in (`# Notes`).
        suggestion: String,
    },
    /// A line break: headings are one line.
    LineBreak,
}

impl Problem {
    /// The sentence `check` prints.
    pub fn message(&self, entry: &str) -> String {
        match self {
            Problem::Empty => format!("heading `{entry}` has no text, so nothing satisfies it"),
            Problem::TooDeep(n) => format!(
                "heading `{entry}` has {n} `#`: Markdown headings have at most six, so no heading can match"
            ),
            Problem::NoSpace { .. } => format!(
                "heading `{entry}` is not a Markdown heading (a `#` needs a space after it): it matches only a line that reads `{entry}`"
            ),
            Problem::LineBreak => format!(
                "heading `{}` spans lines: a heading is one line, so it can never match",
                entry.escape_debug()
            ),
        }
    }
    /// The help line.
    pub fn help(&self) -> String {
        match self {
            Problem::Empty => "write the heading's text, or remove the entry".into(),
            Problem::TooDeep(_) => "use one to six `#` (\"## Next steps\"), or leave them out to match the text at any level".into(),
            Problem::NoSpace { suggestion } => format!(
                "did you mean `{suggestion}`? or leave the `#` out to match the text at any level"
            ),
            Problem::LineBreak => "list each heading as its own entry".into(),
        }
    }
}

impl Wanted {
    /// Read one entry. An entry with a [`Problem`] can still be evaluated (as the
    /// text it spells, at any level); `check` warns about it.
    pub fn parse(entry: &str) -> (Wanted, Option<Problem>) {
        let trimmed = entry.trim();
        if trimmed.contains(['\n', '\r']) {
            return (
                Wanted {
                    level: None,
                    text: fold(trimmed),
                },
                Some(Problem::LineBreak),
            );
        }
        let hashes = trimmed.len() - trimmed.trim_start_matches('#').len();
        let after = &trimmed[hashes..];
        let spaced = after.is_empty() || after.starts_with([' ', '\t']);
        let (wanted, problem) = if hashes == 0 {
            (
                Wanted {
                    level: None,
                    text: fold(trimmed),
                },
                None,
            )
        } else if !spaced {
            let suggestion = format!("{} {}", &trimmed[..hashes.min(6)], after);
            let text = fold(trimmed);
            (
                Wanted { level: None, text },
                Some(Problem::NoSpace { suggestion }),
            )
        } else if hashes > 6 {
            let text = fold(trimmed);
            (Wanted { level: None, text }, Some(Problem::TooDeep(hashes)))
        } else {
            let level = u8::try_from(hashes).ok();
            (
                Wanted {
                    level,
                    text: fold(strip_closing(after)),
                },
                None,
            )
        };
        if wanted.text.is_empty() {
            return (wanted, Some(Problem::Empty));
        }
        (wanted, problem)
    }

    /// Does this found heading or line satisfy the entry?
    fn satisfied_by(&self, found: &Found) -> bool {
        if self.text.is_empty() {
            return false;
        }
        match found {
            Found::Heading { level, text } => {
                self.level.is_none_or(|l| l == *level) && starts_at_boundary(text, &self.text)
            }
            Found::Line(text) => self.level.is_none() && *text == self.text,
        }
    }
}

/// Something in a document that can satisfy an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Found {
    /// An ATX or setext heading: its level and folded text.
    Heading { level: u8, text: String },
    /// A line outside any heading, folded (`**What I did**`, `What I did:`).
    Line(String),
}

/// The entries of `wanted` that `doc` does not satisfy, in their order.
pub fn missing<'a>(doc: &str, wanted: &'a [String]) -> Vec<&'a String> {
    let found = scan(doc);
    wanted
        .iter()
        .filter(|entry| {
            let (w, _) = Wanted::parse(entry);
            !found.iter().any(|f| w.satisfied_by(f))
        })
        .collect()
}

/// Every heading and every other non-blank line of a Markdown document, outside
/// fenced code and front matter.
fn scan(doc: &str) -> Vec<Found> {
    let mut out = vec![];
    let mut lines = doc.lines().peekable();
    // YAML front matter: `---` on the first line, up to the next `---` or `...`.
    if lines.peek().map(|l| l.trim_end()) == Some("---") {
        lines.next();
        for l in lines.by_ref() {
            if matches!(l.trim_end(), "---" | "...") {
                break;
            }
        }
    }
    let mut fence: Option<(char, usize)> = None;
    // The previous line, when it could be a setext heading's text.
    let mut paragraph: Option<&str> = None;
    for line in lines {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let body = line.trim_start();
        if let Some((ch, n)) = fence {
            if indent < 4
                && fence_run(body)
                    .is_some_and(|(c, m, rest)| c == ch && m >= n && rest.trim().is_empty())
            {
                fence = None;
            }
            continue;
        }
        if indent < 4 {
            if let Some((ch, n, info)) = fence_run(body) {
                // A backtick fence's info string may not hold a backtick.
                if ch == '~' || !info.contains('`') {
                    fence = Some((ch, n));
                    paragraph = None;
                    continue;
                }
            }
        }
        if body.trim().is_empty() {
            paragraph = None;
            continue;
        }
        if let (Some(text), Some(level)) = (paragraph, setext_level(body, indent)) {
            // The text line was pushed as a Line; it is a heading after all.
            out.pop();
            out.push(Found::Heading {
                level,
                text: fold(text),
            });
            paragraph = None;
            continue;
        }
        if let Some((level, text)) = atx(body, indent) {
            out.push(Found::Heading {
                level,
                text: fold(strip_closing(text)),
            });
            paragraph = None;
            continue;
        }
        out.push(Found::Line(fold(body)));
        paragraph = (!starts_block(body)).then_some(body);
    }
    out
}

/// A run of three or more backticks or tildes at the start of `body`: the
/// character, the run's length and what follows it.
fn fence_run(body: &str) -> Option<(char, usize, &str)> {
    let ch = body.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = body.len() - body.trim_start_matches(ch).len();
    (n >= 3).then(|| (ch, n, &body[n..]))
}

/// `## Text` (at most three spaces of indent): the level and the text after the `#`s.
fn atx(body: &str, indent: usize) -> Option<(u8, &str)> {
    if indent >= 4 {
        return None;
    }
    let n = body.len() - body.trim_start_matches('#').len();
    let rest = &body[n..];
    if !(1..=6).contains(&n) || !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    Some((u8::try_from(n).ok()?, rest))
}

/// A setext underline: `===` (level 1) or `---` (level 2), nothing else on the line.
fn setext_level(body: &str, indent: usize) -> Option<u8> {
    let t = body.trim_end();
    if indent >= 4 || t.is_empty() {
        return None;
    }
    if t.chars().all(|c| c == '=') {
        Some(1)
    } else if t.chars().all(|c| c == '-') {
        Some(2)
    } else {
        None
    }
}

/// A line that opens a block of its own (a list item, a quote, a table row, a
/// thematic break), so a `---` under it is not a setext underline.
fn starts_block(body: &str) -> bool {
    let list = |m: &str| {
        body.strip_prefix(m)
            .is_some_and(|r| r.is_empty() || r.starts_with([' ', '\t']))
    };
    let ordered = {
        let digits = body.len() - body.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        digits > 0 && (1..=9).contains(&digits) && {
            let r = &body[digits..];
            (r.starts_with('.') || r.starts_with(')'))
                && (r.len() == 1 || r[1..].starts_with([' ', '\t']))
        }
    };
    list("-")
        || list("*")
        || list("+")
        || ordered
        || body.starts_with('>')
        || body.starts_with('|')
        || setext_level(body, 0).is_some()
}

/// An ATX heading's text without its closing sequence (`Text ##` is `Text`).
fn strip_closing(text: &str) -> &str {
    let t = text.trim_end();
    let without = t.trim_end_matches('#');
    if without.is_empty() {
        return "";
    }
    if without.len() < t.len() && without.ends_with([' ', '\t']) {
        without
    } else {
        t
    }
}

/// A text as compared: emphasis, a trailing colon and surrounding space left out,
/// whitespace runs as one space, lower case.
fn fold(text: &str) -> String {
    let decoration = |c: char| c == '*' || c == '_' || c == ':' || c.is_whitespace();
    let inner = text.trim_matches(decoration);
    inner
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `text` is `prefix`, or starts with it followed by a character that is not a
/// letter or digit.
fn starts_at_boundary(text: &str, prefix: &str) -> bool {
    text.strip_prefix(prefix)
        .is_some_and(|rest| rest.chars().next().is_none_or(|c| !c.is_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has(doc: &str, entry: &str) -> bool {
        missing(doc, &[entry.to_string()]).is_empty()
    }

    #[test]
    fn headings_and_lines_of_their_own_satisfy_a_plain_entry_prose_does_not() {
        for yes in [
            "## What I did",
            "# what i did (today)",
            "**What I did**",
            "What I did:",
            "  What I did",
            "### What I did ###",
            "## **What  I did**",
            "What I did\n---",
            "What I did\n==========",
        ] {
            assert!(has(yes, "What I did"), "{yes:?}");
        }
        for no in [
            "What I did today was nothing",
            "I said What I did",
            "- What I did: x",
            "",
            "#What I did",
            "####### What I did today",
            "## What I diddle",
        ] {
            assert!(!has(no, "What I did"), "{no:?}");
        }
    }

    #[test]
    fn an_entry_with_hashes_asks_for_that_level() {
        assert!(has("# Plan\n\n## Next steps\n- a", "## Next steps"));
        assert!(has("## Next steps ##", "## Next steps"));
        assert!(has("Next steps\n----------", "## Next steps"));
        assert!(has("## next STEPS: tomorrow", "## Next steps"));
        assert!(has("## Next steps", "## Next steps ##"));
        assert!(!has("### Next steps", "## Next steps"));
        assert!(!has("# Next steps", "## Next steps"));
        assert!(!has("Next steps\n=====", "## Next steps"));
        assert!(!has("**Next steps**", "## Next steps"));
        assert!(!has("Next steps:", "## Next steps"));
        assert!(has("Next steps\n=====", "# Next steps"));
    }

    #[test]
    fn code_fences_and_front_matter_hide_headings() {
        let fenced = "# Pad\n```md\n## Next steps\n```\n";
        assert!(!has(fenced, "## Next steps"));
        assert!(!has(fenced, "Next steps"));
        assert!(
            !has("~~~~\n## Next steps\n~~~\n", "Next steps"),
            "a shorter fence does not close"
        );
        assert!(has("~~~~\nx\n~~~~\n## Next steps\n", "Next steps"));
        assert!(
            !has("```\nunclosed\n## Next steps\n", "Next steps"),
            "an unclosed fence runs to the end"
        );
        assert!(
            has("    ```\n## Next steps\n", "Next steps"),
            "indented four: code, not a fence"
        );
        assert!(!has("---\ntitle: Next steps\n---\nbody\n", "Next steps"));
        assert!(!has("---\ntitle\n---\n", "## title"));
    }

    #[test]
    fn setext_needs_a_paragraph_line_above() {
        assert!(!has("\n---\n", "## ---"));
        assert!(
            !has("- Next steps\n---", "## Next steps"),
            "a list item, then a thematic break"
        );
        assert!(!has("> Next steps\n---", "## Next steps"));
        assert!(has("Next steps\n---\n", "Next steps"));
    }

    #[test]
    fn entries_that_can_never_match_as_written_are_problems() {
        let problem = |e: &str| Wanted::parse(e).1;
        assert_eq!(problem("## Next steps"), None);
        assert_eq!(problem("Next steps"), None);
        assert_eq!(problem("##"), Some(Problem::Empty));
        assert_eq!(problem("  "), Some(Problem::Empty));
        assert_eq!(problem("**"), Some(Problem::Empty));
        assert_eq!(problem("####### Deep"), Some(Problem::TooDeep(7)));
        assert_eq!(
            problem("##Notes"),
            Some(Problem::NoSpace {
                suggestion: "## Notes".into()
            })
        );
        assert_eq!(problem("A\nB"), Some(Problem::LineBreak));
        // What a problem entry does at run time: never a heading.
        assert!(!has("##### Deep", "####### Deep"));
        assert!(!has("## Notes", "##Notes"));
        assert!(!has("# a\n## b", "##"));
    }
}
