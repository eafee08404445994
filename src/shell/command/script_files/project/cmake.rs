//! CMake code: `cmake -P FILE` runs the script FILE; a configure (`cmake
//! -S DIR -B build`, `cmake ..`, `cmake -B build`) runs the source folder's
//! `CMakeLists.txt`. What of it reaches outside CMake is judged as the shell
//! commands it amounts to: `execute_process(COMMAND …)` and `exec_program`
//! run programs, `file(REMOVE_RECURSE …)` is `rm -rf`, `file(REMOVE …)` `rm
//! -f`, `file(RENAME a b)` `mv`, `file(WRITE|APPEND f …)` a write of f.
//! Values: `set(X …)` of literal words, `-D X=V`, the source folder's
//! variables, `$ENV{X}` (the shell's `${X}`); anything else is what only the
//! run knows. A command inside `if`, `foreach`, `while`, `function` or
//! `macro` may run or not (uncertain). The files it includes by path and its
//! subdirectories' `CMakeLists.txt` are read the same way (CMake's own
//! modules are not).

use std::collections::BTreeMap;
use std::path::Path;

use super::super::{read_script, Found};
use super::{file_text, Text, UNKNOWN};
use crate::shell::command::places::ProjectFile;

/// Commands read per file.
const MAX_COMMANDS: usize = 4096;
/// Files read for one configure or script (the files it includes, its
/// subdirectories').
const MAX_FILES: usize = 64;

/// The code `cmake ARGS` runs from the project.
pub(super) fn code(row: &ProjectFile, args: &[String], dir: &Path) -> Found {
    let mut script = None;
    let mut source = None;
    let mut build = None;
    let mut operand = None;
    let mut vars = BTreeMap::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-P" => script = it.next().cloned(),
            "-S" => source = it.next().cloned(),
            "-B" => build = it.next().cloned(),
            "-D" => {
                if let Some((k, v)) = it.next().and_then(|d| d.split_once('=')) {
                    vars.insert(k.split(':').next().unwrap_or(k).to_string(), v.to_string());
                }
            }
            "-G"
            | "-T"
            | "-A"
            | "-C"
            | "--preset"
            | "--toolchain"
            | "--install-prefix"
            | "--graphviz"
            | "--log-level"
            | "--warn-uninitialized" => {
                it.next();
            }
            // Tool, build, install, workflow and help modes run no project code.
            "-E"
            | "--build"
            | "--install"
            | "--open"
            | "--workflow"
            | "--help"
            | "-h"
            | "--version"
            | "--system-information"
            | "-N"
            | "--find-package" => return Found::Nothing,
            s if s.starts_with("-D") && s.len() > 2 => {
                if let Some((k, v)) = s[2..].split_once('=') {
                    vars.insert(k.split(':').next().unwrap_or(k).to_string(), v.to_string());
                }
            }
            s if s.starts_with("-S") && s.len() > 2 => source = Some(s[2..].to_string()),
            s if s.starts_with("-B") && s.len() > 2 => build = Some(s[2..].to_string()),
            s if s.starts_with('-') => {}
            s => operand = Some(s.to_string()),
        }
    }
    let (path, text) = if let Some(s) = &script {
        match file_text(dir, &[], Some(s)) {
            Ok(found) => found,
            Err(found) => return found,
        }
    } else {
        // The source folder: `-S`, an operand (a source folder, or a build
        // folder's cache, which names the source: not followed), or the
        // folder itself when `-B` names only the build.
        let src = match (&source, &operand, &build) {
            (Some(s), _, _) => lexical(&dir.join(s)),
            (None, Some(o), _) => lexical(&dir.join(o)),
            (None, None, Some(_)) => dir.to_path_buf(),
            (None, None, None) => return Found::Nothing,
        };
        if src.to_string_lossy().contains(['$', '`']) {
            return Found::Unknown;
        }
        let name = row.files.first().copied().unwrap_or("CMakeLists.txt");
        match file_text(&src, &[], Some(name)) {
            Ok(found) => found,
            // A configure runs files this module does not follow anyway
            // (`add_subdirectory`, `include`): a top file past the bound is
            // one more of them. A FIFO or a device is not.
            Err(Found::Unknown) if src.join(name).is_file() => return Found::Nothing,
            Err(found) => return found,
        }
    };
    let folder = path.parent().unwrap_or(Path::new("/")).to_path_buf();
    let folder_text = folder.to_string_lossy().into_owned();
    for v in [
        "CMAKE_CURRENT_SOURCE_DIR",
        "CMAKE_SOURCE_DIR",
        "CMAKE_CURRENT_LIST_DIR",
        "PROJECT_SOURCE_DIR",
    ] {
        vars.entry(v.to_string())
            .or_insert_with(|| folder_text.clone());
    }
    let mut out = Text::new(&folder);
    let mut files = 1;
    if !read(&text, &folder, &mut vars, false, &mut out, &mut files) {
        return Found::Unknown;
    }
    let entry = script.unwrap_or_else(|| "configure".into());
    out.found(path, entry)
}

/// Read the commands of one file of CMake code (in `folder`) into `out`,
/// following the files it includes (`include(cmake/x.cmake)`: a path, not
/// one of CMake's own modules) and its subdirectories' `CMakeLists.txt`;
/// `nested`: the file is read from inside a block, so what it does may run
/// or not. `false` past the bounds or for a file that cannot be read whole.
fn read(
    text: &str,
    folder: &Path,
    vars: &mut BTreeMap<String, String>,
    nested: bool,
    out: &mut Text,
    files: &mut usize,
) -> bool {
    let mut depth = 0usize;
    for (name, words) in commands(text).into_iter().take(MAX_COMMANDS) {
        match name.as_str() {
            "include" | "add_subdirectory" => {
                let Some(target) = words.first().map(|w| expand(vars, w)) else {
                    continue;
                };
                if target.contains(UNKNOWN) || target.contains('\u{1}') {
                    continue;
                }
                let include = name == "include";
                if include && !(target.contains('/') || target.ends_with(".cmake")) {
                    // A module of CMake's own (`include(GNUInstallDirs)`).
                    continue;
                }
                let (file, sub) = if include {
                    (folder.join(&target), folder.to_path_buf())
                } else {
                    let d = folder.join(&target);
                    (d.join("CMakeLists.txt"), d)
                };
                *files += 1;
                if *files > MAX_FILES {
                    return false;
                }
                let text = match read_script(&file, false) {
                    Ok(Some(t)) => t,
                    Ok(None) => continue,
                    Err(()) => return false,
                };
                let sub_text = sub.to_string_lossy().into_owned();
                let mut scoped;
                let vars_for = if include {
                    &mut *vars
                } else {
                    scoped = vars.clone();
                    for v in ["CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR"] {
                        scoped.insert(v.to_string(), sub_text.clone());
                    }
                    &mut scoped
                };
                if !read(&text, &sub, vars_for, nested || depth > 0, out, files) {
                    return false;
                }
            }
            "if" | "foreach" | "while" | "function" | "macro" | "block" => depth += 1,
            "endif" | "endforeach" | "endwhile" | "endfunction" | "endmacro" | "endblock" => {
                depth = depth.saturating_sub(1);
            }
            "set" if depth == 0 => {
                if let Some((k, v)) = words.split_first() {
                    let known: Vec<String> = v
                        .iter()
                        .filter(|w| !matches!(w.as_str(), "CACHE" | "PARENT_SCOPE" | "FORCE"))
                        .map(|w| expand(vars, w))
                        .collect();
                    let value = if known.iter().any(|w| w.contains(UNKNOWN)) || v.is_empty() {
                        UNKNOWN.to_string()
                    } else {
                        known.join(";")
                    };
                    vars.insert(k.clone(), value);
                }
            }
            _ => {
                for line in effects(&name, &words, vars) {
                    out.line(&line, nested || depth > 0);
                    if out.full() {
                        return false;
                    }
                }
            }
        }
    }
    true
}

/// A path with `.` and `..` taken away by its text (the build folder of `cd
/// build && cmake ..` may not be there yet).
fn lexical(path: &Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The shell commands one CMake command amounts to.
fn effects(name: &str, words: &[String], vars: &BTreeMap<String, String>) -> Vec<String> {
    let w = |s: &String| shell_word(&expand(vars, s));
    match name {
        "execute_process" => {
            let mut out = Vec::new();
            let mut cur: Option<Vec<String>> = None;
            for word in words {
                if word == "COMMAND" {
                    out.extend(cur.take().map(|c| c.join(" ")));
                    cur = Some(Vec::new());
                } else if is_keyword(word) {
                    out.extend(cur.take().map(|c| c.join(" ")));
                } else if let Some(c) = cur.as_mut() {
                    c.push(w(word));
                }
            }
            out.extend(cur.map(|c| c.join(" ")));
            out.retain(|c| !c.is_empty());
            out
        }
        "exec_program" => {
            let Some((prog, rest)) = words.split_first() else {
                return Vec::new();
            };
            let mut line = w(prog);
            if let Some(at) = rest.iter().position(|x| x == "ARGS") {
                for a in rest[at + 1..].iter().take_while(|x| !is_keyword(x)) {
                    line.push(' ');
                    // exec_program's arguments are one shell text.
                    line.push_str(&expand(vars, a));
                }
            }
            vec![line]
        }
        "file" => {
            let Some((op, rest)) = words.split_first() else {
                return Vec::new();
            };
            let paths: Vec<String> = rest.iter().map(w).collect();
            match op.as_str() {
                "REMOVE_RECURSE" if !paths.is_empty() => {
                    vec![format!("rm -rf -- {}", paths.join(" "))]
                }
                "REMOVE" if !paths.is_empty() => vec![format!("rm -f -- {}", paths.join(" "))],
                "RENAME" | "COPY_FILE" if paths.len() >= 2 => {
                    let verb = if op == "RENAME" { "mv" } else { "cp" };
                    vec![format!("{verb} -- {} {}", paths[0], paths[1])]
                }
                "WRITE" | "APPEND" | "TOUCH" if !paths.is_empty() => {
                    vec![format!(": >> {}", paths[0])]
                }
                _ => Vec::new(),
            }
        }
        _ => Vec::new(),
    }
}

/// An all-caps keyword of `execute_process` and `exec_program`.
fn is_keyword(w: &str) -> bool {
    matches!(
        w,
        "WORKING_DIRECTORY"
            | "TIMEOUT"
            | "RESULT_VARIABLE"
            | "RESULTS_VARIABLE"
            | "OUTPUT_VARIABLE"
            | "ERROR_VARIABLE"
            | "INPUT_FILE"
            | "OUTPUT_FILE"
            | "ERROR_FILE"
            | "OUTPUT_QUIET"
            | "ERROR_QUIET"
            | "COMMAND_ECHO"
            | "OUTPUT_STRIP_TRAILING_WHITESPACE"
            | "ERROR_STRIP_TRAILING_WHITESPACE"
            | "ENCODING"
            | "ECHO_OUTPUT_VARIABLE"
            | "ECHO_ERROR_VARIABLE"
            | "COMMAND_ERROR_IS_FATAL"
            | "RETURN_VALUE"
            | "OUTPUT_VARIABLE_"
    )
}

/// A word with its `${X}` and `$ENV{X}` references: known values as text,
/// the environment as the shell's `${X}`, others unknown.
fn expand(vars: &BTreeMap<String, String>, s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        let (env, open) = if after.starts_with("$ENV{") {
            (true, 5)
        } else if after.starts_with("${") {
            (false, 2)
        } else {
            out.push('$');
            rest = &rest[at + 1..];
            continue;
        };
        let Some(end) = after[open..].find('}') else {
            out.push_str(UNKNOWN);
            return out;
        };
        let name = &after[open..open + end];
        if env && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(&format!("\u{1}{name}\u{2}"));
        } else {
            match vars.get(name) {
                Some(v) if !name.contains('$') => out.push_str(v),
                _ => out.push_str(UNKNOWN),
            }
        }
        rest = &after[open + end + 1..];
    }
    out.push_str(rest);
    out
}

/// A shell word for an expanded value: text quoted, the environment's
/// variables (marked by [`expand`]) and unknown parts as variables.
fn shell_word(v: &str) -> String {
    let mut out = String::new();
    let mut text = String::new();
    let mut rest = v;
    let flush = |text: &mut String, out: &mut String| {
        if !text.is_empty() {
            out.push_str(&crate::shell::quote(text));
            text.clear();
        }
    };
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix(UNKNOWN) {
            flush(&mut text, &mut out);
            out.push('"');
            out.push_str(UNKNOWN);
            out.push('"');
            rest = r;
        } else if let Some(r) = rest.strip_prefix('\u{1}') {
            flush(&mut text, &mut out);
            let (name, r) = r.split_once('\u{2}').unwrap_or((r, ""));
            out.push_str(&format!("\"${{{name}}}\""));
            rest = r;
        } else {
            let c = rest.chars().next().unwrap_or(' ');
            text.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    flush(&mut text, &mut out);
    if out.is_empty() {
        out.push_str("''");
    }
    out
}

/// The commands of CMake text: each name (lowercase) with its arguments
/// (quoted and bracket arguments unquoted; comments dropped).
fn commands(text: &str) -> Vec<(String, Vec<String>)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if !(c.is_ascii_alphabetic() || c == '_') {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let name: String = chars[start..i]
            .iter()
            .collect::<String>()
            .to_ascii_lowercase();
        while i < chars.len() && matches!(chars[i], ' ' | '\t') {
            i += 1;
        }
        if chars.get(i) != Some(&'(') {
            continue;
        }
        i += 1;
        let mut words = Vec::new();
        let mut cur = String::new();
        let mut level = 0usize;
        let mut has_word = false;
        while i < chars.len() {
            let c = chars[i];
            match c {
                '"' => {
                    i += 1;
                    while i < chars.len() && chars[i] != '"' {
                        if chars[i] == '\\' && i + 1 < chars.len() {
                            i += 1;
                            cur.push(match chars[i] {
                                'n' => '\n',
                                't' => '\t',
                                o => o,
                            });
                        } else {
                            cur.push(chars[i]);
                        }
                        i += 1;
                    }
                    has_word = true;
                }
                '[' if chars.get(i + 1).is_some_and(|n| *n == '[' || *n == '=') => {
                    // `[[…]]`, `[=[…]=]`: bracket argument.
                    let mut j = i + 1;
                    let mut eq = 0;
                    while chars.get(j) == Some(&'=') {
                        eq += 1;
                        j += 1;
                    }
                    if chars.get(j) == Some(&'[') {
                        let close: String = format!("]{}]", "=".repeat(eq));
                        let body: String = chars[j + 1..].iter().collect();
                        let end = body.find(&close).unwrap_or(body.len());
                        cur.push_str(&body[..end]);
                        i = j + 1 + body[..end].chars().count() + close.chars().count() - 1;
                        has_word = true;
                    } else {
                        cur.push(c);
                    }
                }
                '#' => {
                    while i < chars.len() && chars[i] != '\n' {
                        i += 1;
                    }
                    continue;
                }
                '(' => {
                    level += 1;
                    cur.push(c);
                }
                ')' if level == 0 => {
                    if has_word || !cur.is_empty() {
                        words.push(std::mem::take(&mut cur));
                    }
                    i += 1;
                    break;
                }
                ')' => {
                    level -= 1;
                    cur.push(c);
                }
                c if c.is_whitespace() => {
                    if has_word || !cur.is_empty() {
                        words.push(std::mem::take(&mut cur));
                        has_word = false;
                    }
                }
                c => cur.push(c),
            }
            i += 1;
        }
        out.push((name, words));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_what_they_amount_to() {
        let text = "cmake_minimum_required(VERSION 3.20) # x\nset(OUT \"${CMAKE_CURRENT_SOURCE_DIR}/out\")\nfile(REMOVE_RECURSE $ENV{HOME} ${OUT})\nexecute_process(COMMAND sh -c \"rm -rf ~\" WORKING_DIRECTORY /tmp COMMAND echo [[a b]])\nif(WIN32)\n  file(REMOVE x.txt)\nendif()\n";
        let cmds = commands(text);
        assert_eq!(cmds[0].0, "cmake_minimum_required");
        assert_eq!(
            cmds[3].1,
            vec![
                "COMMAND",
                "sh",
                "-c",
                "rm -rf ~",
                "WORKING_DIRECTORY",
                "/tmp",
                "COMMAND",
                "echo",
                "a b"
            ]
        );
        let mut vars = BTreeMap::new();
        vars.insert("CMAKE_CURRENT_SOURCE_DIR".to_string(), "/p".to_string());
        let out = "/p/out".to_string();
        vars.insert("OUT".into(), out);
        assert_eq!(
            effects("file", &cmds[2].1, &vars),
            vec!["rm -rf -- \"${HOME}\" /p/out"]
        );
        assert_eq!(
            effects("execute_process", &cmds[3].1, &vars),
            vec!["sh -c 'rm -rf ~'", "echo 'a b'"]
        );
    }
}
