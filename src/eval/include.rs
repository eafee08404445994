//! Files read into a rule's context (`include`): the file, or the newest match
//! of a glob, confined to the project.

use std::path::{Path, PathBuf};

use super::facts::{glob_files, MAX_FILE};
use super::Ctx;
use crate::os::files;

/// Read a file (or the newest match of a glob) for `include`, first `lines` lines.
/// Missing files are skipped; paths must stay inside `within` (the literal folder
/// of a path built from event data, see [`files::literal_folder`]), itself inside
/// the project directory.
pub fn read_include(
    path: &str,
    within: Option<&str>,
    lines: Option<usize>,
    newest: bool,
    ctx: &Ctx,
) -> Option<String> {
    let folder = match within.filter(|w| !w.is_empty()) {
        Some(w) => files::confine(w, &ctx.project_dir, &ctx.project_dir).ok()?,
        None => ctx.project_dir.clone(),
    };
    let file: PathBuf = if newest {
        glob_files(path, ctx, &folder, None)
            .ok()?
            .into_iter()
            .next()?
    } else {
        files::confine(path, &ctx.project_dir, &folder).ok()?
    };
    if !file.is_file() {
        return None;
    }
    let text = files::read_capped(Path::new(&file), MAX_FILE).ok()?;
    Some(match lines {
        Some(n) => text.lines().take(n).collect::<Vec<_>>().join("\n"),
        None => text,
    })
}
