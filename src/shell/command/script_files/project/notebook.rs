//! A Jupyter notebook run whole (`format = "notebook"`: `papermill`,
//! `jupyter execute`, `jupyter nbconvert --execute`): its code cells, in
//! order, as the kernel runs them. In IPython a line `!CMD` (or `x = !CMD`,
//! `%sx CMD`, `%system CMD`) and a `%%bash`/`%%sh`/`%%script sh` cell run
//! shell commands; other magics (`%matplotlib`, `%%time`) are no code of
//! the cell's, and a `%%writefile` cell is text written, not run. A kernel
//! in a language the analysis does not read runs code nobody read.

use std::path::Path;

use serde_json::Value;

use super::super::{interpreted_line, read_script, Found};
use super::{named_or_nearest, Text};
use crate::shell::command::inline::Lang as InlineLang;
use crate::shell::command::places::ProjectFile;
use crate::shell::command::wrappers::interpreter_program;

/// The code the notebook the command names runs.
pub(super) fn code(row: &ProjectFile, dir: &Path, named: Option<&str>) -> Found {
    // Without a notebook named, the runner runs none.
    let path = match named {
        Some(n) if n.contains(['$', '`']) => return Found::Unknown,
        Some(n) => match named_or_nearest(dir, row.files, Some(n)) {
            Some(p) => p,
            None => return Found::Nothing,
        },
        None => return Found::Nothing,
    };
    let text = match read_script(&path, false) {
        Ok(Some(text)) => text,
        Ok(None) => return Found::Nothing,
        Err(()) => return Found::Unknown,
    };
    let Ok(nb) = serde_json::from_str::<Value>(&text) else {
        return Found::Unknown;
    };
    let language = nb
        .pointer("/metadata/kernelspec/language")
        .or_else(|| nb.pointer("/metadata/language_info/name"))
        .and_then(Value::as_str)
        .unwrap_or("python")
        .to_ascii_lowercase();
    let lang = match language.as_str() {
        "python" | "python3" => InlineLang::Python,
        "r" => InlineLang::R,
        "julia" => InlineLang::Julia,
        _ => return Found::Unknown,
    };
    let Some(prog) = interpreter_program(lang) else {
        return Found::Unknown;
    };
    let file = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let mut out = Text::new(path.parent().unwrap_or(Path::new("/")));
    let mut kernel = String::new();
    let cells = nb.get("cells").and_then(Value::as_array);
    for cell in cells.into_iter().flatten() {
        if cell.get("cell_type").and_then(Value::as_str) != Some("code") {
            continue;
        }
        let source = match cell.get("source") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
            _ => continue,
        };
        cell_code(&source, lang == InlineLang::Python, &mut kernel, &mut out);
    }
    if !kernel.trim().is_empty() {
        out.line(
            &interpreted_line(lang, prog, &kernel, &file, &[], "/"),
            false,
        );
    }
    out.found(path, String::new())
}

/// One cell: its shell commands to `out`, its kernel code to `kernel`.
fn cell_code(source: &str, ipython: bool, kernel: &mut String, out: &mut Text) {
    let first = source.lines().next().unwrap_or("").trim();
    if let Some(magic) = first.strip_prefix("%%") {
        let mut words = magic.split_whitespace();
        let name = words.next().unwrap_or("");
        let body = source.split_once('\n').map_or("", |(_, b)| b);
        match name {
            "bash" | "sh" | "system" => return out.line(body, false),
            "script" if words.next().is_some_and(|w| matches!(w, "sh" | "bash")) => {
                return out.line(body, false)
            }
            // Text the cell writes, or code for another language: no kernel code.
            "writefile" | "file" | "html" | "javascript" | "js" | "latex" | "markdown" | "svg"
            | "script" => return,
            _ => {
                // `%%time`, `%%capture`: the rest is the cell's code.
                return cell_code(body, ipython, kernel, out);
            }
        }
    }
    for line in source.lines() {
        let code = line.trim_start();
        let indent = &line[..line.len() - code.len()];
        let shell = if ipython {
            code.strip_prefix('!')
                .or_else(|| code.strip_prefix("%sx "))
                .or_else(|| code.strip_prefix("%system "))
                .or_else(|| {
                    // `files = !ls`
                    let (lhs, rhs) = code.split_once('=')?;
                    let lhs = lhs.trim();
                    let ident =
                        !lhs.is_empty() && lhs.chars().all(|c| c.is_alphanumeric() || c == '_');
                    ident.then(|| rhs.trim_start().strip_prefix('!')).flatten()
                })
        } else {
            None
        };
        match shell {
            Some(cmd) => {
                out.line(cmd, false);
                kernel.push_str(indent);
                kernel.push_str("pass\n");
            }
            None if ipython && code.starts_with('%') => {
                kernel.push_str(indent);
                kernel.push_str("pass\n");
            }
            None => {
                kernel.push_str(line);
                kernel.push('\n');
            }
        }
    }
}
