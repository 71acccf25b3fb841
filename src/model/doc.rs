//! A doc under audit: its text, where it came from, and what kind of doc it is.

use std::path::PathBuf;

use super::span::LineIndex;

/// What kind of doc a file is, decided by its extension and, for JSON, by its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocKind {
    Markdown,
    /// One answer object or an array of answers.
    Json,
    /// One answer per line.
    JsonLines,
}

impl DocKind {
    pub fn from_path(path: &std::path::Path) -> Option<DocKind> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            // `.mdc`: Cursor's rule files, Markdown under a front matter.
            "md" | "mdx" | "markdown" | "mdc" => Some(DocKind::Markdown),
            "json" => Some(DocKind::Json),
            "jsonl" | "ndjson" => Some(DocKind::JsonLines),
            _ => None,
        }
    }
}

/// A doc file that was read and is about to be (or has been) extracted.
#[derive(Debug, Clone)]
pub struct Doc {
    /// The path as found on disk.
    pub fs_path: PathBuf,
    /// The name shown in reports: repo-relative when the doc is inside the audited repository.
    pub name: String,
    /// The doc's folder relative to the repository root, when the doc is inside it (Markdown links
    /// resolve from here).
    pub repo_dir: Option<String>,
    pub kind: DocKind,
    pub text: String,
    pub lines: LineIndex,
}

impl Doc {
    pub fn new(
        fs_path: PathBuf,
        name: String,
        repo_dir: Option<String>,
        kind: DocKind,
        text: String,
    ) -> Doc {
        let lines = LineIndex::new(&text);
        Doc {
            fs_path,
            name,
            repo_dir,
            kind,
            text,
            lines,
        }
    }

    /// Where the content starts: after a byte-order mark, which parsers would take for text.
    /// Offsets stay relative to the doc as written, so fixes keep the mark.
    pub fn body_start(&self) -> usize {
        if self.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        }
    }
}
