//! Where a policy's text came from: a file, or the pack built into the binary.

use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Which layer a policy belongs to. Later layers override earlier ones.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Layer {
    /// Compiled into the binary (loaded alone, or through `extends`).
    Builtin,
    /// The machine's managed folder (`/etc/hookrules/`, root-owned): loaded
    /// right after the pack, and nothing below can loosen it.
    Managed,
    /// The user's config folder (`~/.config/hookrules/`).
    User,
    /// The project's committed folder (`.claude/hookrules/*.toml`).
    Project,
    /// The project's uncommitted files (`.claude/hookrules/*.local.toml`).
    Local,
    /// Named on the command line or in `HOOKRULES_POLICIES`.
    Explicit,
}

impl Layer {
    /// The layer's name, as shown in `check` and `explain`.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Builtin => "builtin",
            Layer::Managed => "managed",
            Layer::User => "user",
            Layer::Project => "project",
            Layer::Local => "local",
            Layer::Explicit => "explicit",
        }
    }
}

/// The text of one policy and where it came from.
#[derive(Debug)]
pub struct PolicySource {
    /// Where it came from.
    pub origin: Origin,
    /// Its layer.
    pub layer: Layer,
    /// The whole text.
    pub text: Arc<str>,
    /// The same text, named, for miette reports.
    pub named: miette::NamedSource<Arc<str>>,
    /// Byte offsets of line starts, computed when a diagnostic first needs them.
    line_starts: std::sync::OnceLock<Vec<usize>>,
    /// For a compacted text (see `index`): the original, and where each piece came from.
    original: Option<Original>,
}

/// The original text of a compacted source.
#[derive(Debug)]
struct Original {
    source: Arc<PolicySource>,
    /// (start in the compacted text, start in the original, length)
    pieces: Vec<(usize, usize, usize)>,
}

/// Where a policy's text came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A file on disk.
    File(PathBuf),
    /// A policy compiled into the binary (`builtin:NAME`).
    Builtin(&'static str),
}

impl PolicySource {
    /// Wrap a text (layer: builtin for built-in policies, explicit for files).
    pub fn new(origin: Origin, text: impl Into<Arc<str>>) -> Arc<Self> {
        let layer = match origin {
            Origin::Builtin(_) => Layer::Builtin,
            Origin::File(_) => Layer::Explicit,
        };
        Self::in_layer(origin, text, layer)
    }

    /// Wrap a text in a given layer.
    pub fn in_layer(origin: Origin, text: impl Into<Arc<str>>, layer: Layer) -> Arc<Self> {
        let text: Arc<str> = text.into();
        let name = match &origin {
            // The same text as `display()` for a path in UTF-8, without the
            // formatting machinery (~700 instructions a policy on every `run`
            // that reads a cache file's rules).
            Origin::File(p) => p
                .to_str()
                .map_or_else(|| p.display().to_string(), str::to_string),
            Origin::Builtin(n) => format!("builtin:{n}"),
        };
        Arc::new(PolicySource {
            named: miette::NamedSource::new(name, text.clone()).with_language("toml"),
            origin,
            layer,
            text,
            line_starts: std::sync::OnceLock::new(),
            original: None,
        })
    }

    /// A source holding only the given byte ranges of `full` (in order). Spans
    /// into it still report the original line and column.
    pub fn compacted(full: &Arc<PolicySource>, keep: &[std::ops::Range<usize>]) -> Arc<Self> {
        let mut text = String::with_capacity(keep.iter().map(|r| r.len()).sum());
        let mut pieces = Vec::with_capacity(keep.len());
        for r in keep {
            if let Some(piece) = full.text.get(r.clone()) {
                pieces.push((text.len(), r.start, piece.len()));
                text.push_str(piece);
            }
        }
        let compact = Self::in_layer(full.origin.clone(), text, full.layer);
        let mut compact = Arc::try_unwrap(compact).expect("just created");
        compact.original = Some(Original {
            source: full.clone(),
            pieces,
        });
        Arc::new(compact)
    }

    /// The full text of the file (for a compacted source, the original).
    pub fn full_text(&self) -> &Arc<str> {
        match &self.original {
            Some(o) => &o.source.text,
            None => &self.text,
        }
    }

    /// Read a policy file. Reads the whole file in one go, so a file being replaced
    /// (write to temp + rename) is seen either whole before or whole after.
    pub fn read(path: &Path) -> std::io::Result<Arc<Self>> {
        Self::read_in(path, Layer::Explicit)
    }

    /// [`PolicySource::read`] in a given layer.
    /// Only a regular file is read (see [`crate::os::files::open_regular`]).
    pub fn read_in(path: &Path, layer: Layer) -> std::io::Result<Arc<Self>> {
        let text = crate::os::files::read_text(path)?;
        Ok(Self::in_layer(
            Origin::File(path.to_path_buf()),
            text,
            layer,
        ))
    }

    /// The name shown to users: the file path, or `builtin:NAME`.
    pub fn display_name(&self) -> String {
        self.named.name().to_string()
    }

    /// The file stem or builtin name, the default policy name.
    pub fn stem(&self) -> String {
        match &self.origin {
            Origin::File(p) => p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            Origin::Builtin(n) => (*n).to_string(),
        }
    }

    /// 1-based line and column (in characters) of a byte offset, in the file as
    /// written (also for a compacted source).
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        if let Some(o) = &self.original {
            let i = o
                .pieces
                .partition_point(|p| p.0 <= offset)
                .saturating_sub(1);
            let mapped = o
                .pieces
                .get(i)
                .map(|(c, orig, _)| orig + (offset - c))
                .unwrap_or(0);
            return o.source.line_col(mapped);
        }
        let text = &self.text;
        let offset = offset.min(text.len());
        let line_starts = self.line_starts.get_or_init(|| {
            let mut v = vec![0];
            v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
            v
        });
        let line = line_starts.partition_point(|&s| s <= offset) - 1;
        let start = line_starts[line];
        let col = text
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(0);
        (line + 1, col + 1)
    }
}
