//! JVM build files that run commands or delete: gradle's `build.gradle`
//! (`.kts`) and `settings.gradle`, maven's `pom.xml`, sbt's `build.sbt`.
//! They are programs in Groovy, Kotlin, XML plugin configuration or Scala;
//! this reads the forms that reach outside the build:
//!
//! - deletes: gradle's `delete X` / `project.delete(X)` / `file(X).deleteDir()`,
//!   ant's `<delete dir="X"/>` and `<fileset dir="X"/>` in a delete, the
//!   clean plugin's `<directory>X</directory>`, sbt's `IO.delete(X)`;
//! - commands: gradle's `commandLine …`, `"…".execute()`, `[…].execute()`,
//!   `Runtime.getRuntime().exec(…)`, ant's `<exec executable=…><arg …/>`,
//!   exec-maven-plugin's `<executable>` with its `<argument>`s, sbt's
//!   `"…".!` and `Seq(…).!`;
//!
//! with the values they name: the home folder (`System.getProperty('user.home')`,
//! `System.getenv('HOME')`, `${user.home}`, `${env.HOME}`, `Path.userHome`),
//! the project (`rootDir`, `projectDir`, `${basedir}`), its build folder.
//! Which task or phase runs which of them is the build tool's to decide at
//! run time, so each is what the command may do (a deny asks, an ask is
//! left out); a value the analysis cannot name is unknown.

use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;

use super::super::super::nesting::Literals;
use super::super::super::places::ProjectFile;
use super::super::{read_script, Found};
use super::{named_or_nearest, Text, MAX_ENTRIES, UNKNOWN};

/// The build files of the nearest of the row's files, read together: a
/// gradle build and its settings, or the one file of maven or sbt.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path, named: Option<&str>) -> Found {
    if args.iter().any(|a| {
        matches!(
            a.as_str(),
            "--help" | "-h" | "-?" | "--version" | "-v" | "-version" | "--dry-run" | "-m"
        )
    }) {
        return Found::Nothing;
    }
    let Some(first) = named_or_nearest(dir, row.files, named) else {
        return Found::Nothing;
    };
    let root = first.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut out = Text::new(&root);
    // A file the command names (`gradle -b x.gradle`) is read alone.
    let own = [first
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned())];
    let names: Vec<&str> = match named {
        Some(_) if !row.files.iter().any(|f| *f == own[0]) => vec![own[0].as_str()],
        _ => row.files.to_vec(),
    };
    for name in names {
        let path = root.join(name);
        let text = match read_script(&path, false) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(()) => return Found::Unknown,
        };
        let lines = if name.ends_with(".xml") {
            maven(&text, &root)
        } else {
            scripted(&text, &root)
        };
        for l in lines.iter().take(MAX_ENTRIES) {
            out.line(l, true);
        }
        if out.full() {
            return Found::Unknown;
        }
    }
    out.found(first, String::new())
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|_| Regex::new("$^").expect("empty")))
}

/// Groovy, Kotlin and Scala: deletes and commands, as shell lines.
fn scripted(text: &str, root: &Path) -> Vec<String> {
    static DELETE: OnceLock<Regex> = OnceLock::new();
    static DELETE_DIR: OnceLock<Regex> = OnceLock::new();
    static COMMAND_LINE: OnceLock<Regex> = OnceLock::new();
    static EXECUTE: OnceLock<Regex> = OnceLock::new();
    static RUNTIME: OnceLock<Regex> = OnceLock::new();
    static SBT_BANG: OnceLock<Regex> = OnceLock::new();
    let mut out = Vec::new();
    let delete = re(
        &DELETE,
        r"(?m)(?:^\s*|project\.|\bIO\.|[\s{;])delete(?:\s*\(|\s+)(.+)$",
    );
    for c in delete.captures_iter(text) {
        let args = Literals::QUOTES.until_unmatched(c.get(1).map_or("", |m| m.as_str()), &[';']);
        for a in Literals::QUOTES.list(args.trim()) {
            out.push(format!("rm -rf -- {}", value(&a, root)));
        }
    }
    let delete_dir = re(
        &DELETE_DIR,
        r"(?:new\s+File|file)\s*\((.+?)\)\s*\.\s*(?:deleteDir|deleteRecursively|delete)\s*\(\s*\)",
    );
    for c in delete_dir.captures_iter(text) {
        out.push(format!(
            "rm -rf -- {}",
            value(c.get(1).map_or("", |m| m.as_str()), root)
        ));
    }
    let command_line = re(
        &COMMAND_LINE,
        r"(?m)\b(?:commandLine|setCommandLine)(?:\s*=\s*\[?|\s*\(|\s+)(.+)$",
    );
    for c in command_line.captures_iter(text) {
        let args = Literals::QUOTES
            .until_unmatched(c.get(1).map_or("", |m| m.as_str()), &[';'])
            .trim();
        let args = args
            .strip_prefix("listOf(")
            .or_else(|| args.strip_prefix("arrayOf("))
            .unwrap_or(args);
        let words: Vec<String> = Literals::QUOTES
            .list(args)
            .iter()
            .map(|a| value(a, root))
            .collect();
        out.push(words.join(" "));
    }
    let execute = re(
        &EXECUTE,
        r#"(?:("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|\[([^\]]*)\])\s*\.\s*execute\s*\(\s*\)"#,
    );
    for c in execute.captures_iter(text) {
        out.push(command_words(c.get(1), c.get(2), root));
    }
    let runtime = re(
        &RUNTIME,
        r#"(?:Runtime\.getRuntime\(\)\.exec|ProcessBuilder|Process)\s*\(\s*(?:("(?:[^"\\]|\\.)*")|(?:Seq|listOf|arrayOf|Array|List)?\(?([^)]*))\)"#,
    );
    for c in runtime.captures_iter(text) {
        out.push(command_words(c.get(1), c.get(2), root));
    }
    let sbt = re(
        &SBT_BANG,
        r#"(?:("(?:[^"\\]|\\.)*")|Seq\(([^)]*)\))\s*\.?\s*!!?"#,
    );
    for c in sbt.captures_iter(text) {
        out.push(command_words(c.get(1), c.get(2), root));
    }
    out
}

/// A command given as one string (split at blanks, as `String.execute()`
/// and sbt's `!` split it) or as a list of words.
fn command_words(
    string: Option<regex::Match<'_>>,
    list: Option<regex::Match<'_>>,
    root: &Path,
) -> String {
    match (string, list) {
        (Some(s), _) => {
            // Split at blanks, each word as the string has it.
            let raw = s.as_str();
            let q = raw.chars().next().unwrap_or('"');
            raw.get(1..raw.len().saturating_sub(1))
                .unwrap_or("")
                .split_whitespace()
                .map(|w| value(&format!("{q}{w}{q}"), root))
                .collect::<Vec<_>>()
                .join(" ")
        }
        (None, Some(l)) => Literals::QUOTES
            .list(l.as_str())
            .iter()
            .map(|a| value(a, root))
            .collect::<Vec<_>>()
            .join(" "),
        (None, None) => String::new(),
    }
}

/// maven's `pom.xml`: ant's deletes and execs (maven-antrun-plugin), the
/// clean plugin's filesets, exec-maven-plugin's executable.
fn maven(text: &str, root: &Path) -> Vec<String> {
    static DELETE: OnceLock<Regex> = OnceLock::new();
    static DELETE_BLOCK: OnceLock<Regex> = OnceLock::new();
    static FILESET: OnceLock<Regex> = OnceLock::new();
    static DIRECTORY: OnceLock<Regex> = OnceLock::new();
    static ANT_EXEC: OnceLock<Regex> = OnceLock::new();
    static ARG: OnceLock<Regex> = OnceLock::new();
    static CONFIGURATION: OnceLock<Regex> = OnceLock::new();
    static EXECUTABLE: OnceLock<Regex> = OnceLock::new();
    static ARGUMENT: OnceLock<Regex> = OnceLock::new();
    let mut out = Vec::new();
    let xml = |v: &str| value(&format!("\"{}\"", v.replace('"', "")), root);
    for c in re(&DELETE, r#"<delete\s[^>]*?\b(?:dir|file)\s*=\s*"([^"]*)""#).captures_iter(text) {
        out.push(format!(
            "rm -rf -- {}",
            xml(c.get(1).map_or("", |m| m.as_str()))
        ));
    }
    let fileset = re(&FILESET, r#"<fileset\s[^>]*?\bdir\s*=\s*"([^"]*)""#);
    for block in re(&DELETE_BLOCK, r"(?s)<delete\b[^>]*>(.*?)</delete>").captures_iter(text) {
        for c in fileset.captures_iter(block.get(1).map_or("", |m| m.as_str())) {
            out.push(format!(
                "rm -rf -- {}",
                xml(c.get(1).map_or("", |m| m.as_str()))
            ));
        }
    }
    let configurations = re(&CONFIGURATION, r"(?s)<configuration>(.*?)</configuration>");
    for conf in configurations.captures_iter(text) {
        let conf = conf.get(1).map_or("", |m| m.as_str());
        if conf.contains("<filesets>") {
            for c in re(&DIRECTORY, r"<directory>\s*([^<]*?)\s*</directory>").captures_iter(conf) {
                out.push(format!(
                    "rm -rf -- {}",
                    xml(c.get(1).map_or("", |m| m.as_str()))
                ));
            }
        }
        if let Some(e) = re(&EXECUTABLE, r"<executable>\s*([^<]*?)\s*</executable>").captures(conf)
        {
            let mut words = vec![xml(e.get(1).map_or("", |m| m.as_str()))];
            for a in re(&ARGUMENT, r"<argument>\s*([^<]*?)\s*</argument>").captures_iter(conf) {
                words.push(xml(a.get(1).map_or("", |m| m.as_str())));
            }
            out.push(words.join(" "));
        }
    }
    let arg = re(&ARG, r#"<arg\s+(value|line)\s*=\s*"([^"]*)""#);
    for c in re(
        &ANT_EXEC,
        r#"(?s)<exec\s[^>]*?\bexecutable\s*=\s*"([^"]*)"[^>]*>(.*?)</exec>"#,
    )
    .captures_iter(text)
    {
        let mut words = vec![xml(c.get(1).map_or("", |m| m.as_str()))];
        for a in arg.captures_iter(c.get(2).map_or("", |m| m.as_str())) {
            let v = a.get(2).map_or("", |m| m.as_str());
            if a.get(1).is_some_and(|k| k.as_str() == "line") {
                words.push(xml(v).trim_matches('"').to_string());
            } else {
                words.push(xml(v));
            }
        }
        out.push(words.join(" "));
    }
    out
}

/// The home folder, as the build tools name it.
const HOME_SPELLINGS: &[&str] = &[
    "System.getProperty('user.home')",
    "System.getProperty(\"user.home\")",
    "System.properties['user.home']",
    "System.properties[\"user.home\"]",
    "System.getenv('HOME')",
    "System.getenv(\"HOME\")",
    "System.getenv()['HOME']",
    "Path.userHome",
    "sys.props(\"user.home\")",
    "sys.env(\"HOME\")",
    "user.home",
    "env.HOME",
];

/// The project's folder, as the build tools name it.
const PROJECT_SPELLINGS: &[&str] = &[
    "rootDir",
    "projectDir",
    "rootProject.projectDir",
    "rootProject.rootDir",
    "project.projectDir",
    "project.rootDir",
    "basedir",
    "project.basedir",
    "baseDirectory.value",
];

/// The shell word for a build file's expression: a string (its `${…}` and
/// `$name` parts translated), the home folder or the project as the build
/// tools spell them, a concatenation of those, a `file(…)`/`new File(…)` of
/// one; anything else is unknown.
fn value(expr: &str, root: &Path) -> String {
    let e = expr.trim().trim_end_matches(';').trim();
    let unknown = || format!("\"{UNKNOWN}\"");
    if e.is_empty() {
        return unknown();
    }
    // `a + '/x'`: each part, joined.
    let parts: Vec<&str> = Literals::QUOTES
        .split(e, &["+"])
        .into_iter()
        .map(str::trim)
        .collect();
    if parts.len() > 1 {
        return parts.iter().map(|p| value(p, root)).collect::<String>();
    }
    for wrap in [
        "file(",
        "files(",
        "fileTree(",
        "new File(",
        "File(",
        "project.file(",
        "project.files(",
        "project.fileTree(",
    ] {
        if let Some(inner) = e.strip_prefix(wrap).and_then(|r| r.strip_suffix(')')) {
            let inner = inner.trim().strip_prefix("dir:").unwrap_or(inner).trim();
            let first = Literals::QUOTES
                .list(inner)
                .into_iter()
                .next()
                .unwrap_or_default();
            return value(&first, root);
        }
    }
    if HOME_SPELLINGS.contains(&e) {
        return "\"$HOME\"".into();
    }
    if PROJECT_SPELLINGS.contains(&e) {
        return crate::shell::quote(&root.to_string_lossy());
    }
    if matches!(
        e,
        "buildDir" | "project.buildDir" | "project.build.directory"
    ) {
        return crate::shell::quote(&root.join("build").to_string_lossy());
    }
    let quoted = |q: char| e.len() >= 2 && e.starts_with(q) && e.ends_with(q);
    if quoted('\'') {
        return crate::shell::quote(&e[1..e.len() - 1]);
    }
    if quoted('"') {
        return interpolated(&e[1..e.len() - 1], root);
    }
    unknown()
}

/// A double-quoted string with `${expr}` (and `$name`) parts.
fn interpolated(s: &str, root: &Path) -> String {
    let mut out = String::new();
    let mut lit = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        lit.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (expr, next) = if let Some(body) = after.strip_prefix('{') {
            match body.find('}') {
                Some(end) => (&body[..end], &body[end + 1..]),
                None => (body, ""),
            }
        } else {
            let n = after
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(after.len());
            (&after[..n], &after[n..])
        };
        if !lit.is_empty() {
            out.push_str(&crate::shell::quote(&std::mem::take(&mut lit)));
        }
        out.push_str(&value(expr, root));
        rest = next;
    }
    lit.push_str(rest);
    if !lit.is_empty() || out.is_empty() {
        out.push_str(&crate::shell::quote(&lit));
    }
    out
}
