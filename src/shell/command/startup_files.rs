//! Start-up modules a folder on disk holds: Python imports `sitecustomize`
//! and `usercustomize` at every start, from the first folder of its path
//! that has one, so `PYTHONPATH=dir` with such a module in `dir` runs that
//! code before the program's own (a module the same command line writes is
//! seen by the extractor; this reads what is already on disk).

use std::path::Path;

use super::{Code, SimpleCommand};

/// The modules Python runs at start-up when its path finds them.
const STARTUP_MODULES: &[&str] = &[
    "sitecustomize.py",
    "usercustomize.py",
    "sitecustomize",
    "usercustomize",
];

/// Mark [`Code::Dynamic`] each command whose `PYTHONPATH` assignment names a
/// folder that holds a start-up module (one `stat` per module and folder,
/// only for commands that set `PYTHONPATH`). `cwd` is the event's directory.
pub fn add_startup_code(cmds: &mut [SimpleCommand], cwd: &str) {
    if !cwd.starts_with('/') {
        return;
    }
    for c in cmds.iter_mut() {
        let Some((_, path)) = c.assignments.iter().rev().find(|(k, _)| k == "PYTHONPATH") else {
            continue;
        };
        let Some(dir) = super::script_files::folder(&c.cwd, cwd) else {
            continue;
        };
        let found = path
            .split(':')
            .filter(|e| !e.is_empty() && !e.contains(['$', '`', '~']))
            .any(|e| {
                let folder = Path::new(&dir).join(e);
                STARTUP_MODULES
                    .iter()
                    .any(|m| std::fs::symlink_metadata(folder.join(m)).is_ok())
            });
        if found {
            c.code = Some(Code::Dynamic);
        }
    }
}
