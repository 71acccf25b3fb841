//! A doc under audit: its text, where it came from, and what kind of doc it is.

use std::path::PathBuf;

use super::span::LineIndex;

/// What kind of doc a file is, decided by its extension and, for JSON, by its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DocKind {
    /// Markdown (`.md`, `.mdx`, `.markdown`, Cursor's `.mdc`).
    Markdown,
    /// One answer object or an array of answers.
    Json,
    /// One answer per line.
    JsonLines,
    /// reStructuredText (Sphinx): only its include directives are read.
    Rst,
    /// AsciiDoc (Asciidoctor, Antora): only its include directives are read.
    AsciiDoc,
}

impl DocKind {
    /// The kind a file's extension says it is; `None` when it is no doc (`.txt`, `.rs`).
    pub fn from_path(path: &std::path::Path) -> Option<DocKind> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            // `.mdc`: Cursor's rule files, Markdown under a front matter.
            "md" | "mdx" | "markdown" | "mdc" => Some(DocKind::Markdown),
            "json" => Some(DocKind::Json),
            "jsonl" | "ndjson" => Some(DocKind::JsonLines),
            "rst" => Some(DocKind::Rst),
            "adoc" | "asciidoc" => Some(DocKind::AsciiDoc),
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
    /// What kind of doc it is: decides how it is extracted.
    pub kind: DocKind,
    /// The doc's whole text, as read.
    pub text: String,
    /// Where each line of `text` starts: byte offsets to lines and columns.
    pub lines: LineIndex,
    /// The file's stat data taken right after `text` was read from it; `None` for a text from an
    /// editor, a rewritten one, or where stat data cannot be had.
    pub stat: Option<FileStat>,
}

/// What Git's index records of a file's stat data (`git status` trusts an entry whose data
/// match the file's, unless the entry is racily clean), as read from the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Seconds (as the index keeps them, in 32 bits) and nanoseconds.
    pub mtime: (u32, u32),
    /// The last status change, as `mtime`.
    pub ctime: (u32, u32),
    /// The file's size in bytes.
    pub size: u64,
    /// The file's inode number.
    pub ino: u64,
    /// The user ID of the file's owner.
    pub uid: u32,
    /// The group ID of the file's owner.
    pub gid: u32,
    /// The file's type and permission bits.
    pub mode: u32,
}

impl FileStat {
    /// The stat data of a file's metadata; `None` when a time cannot be recorded as the index
    /// records it.
    #[cfg(unix)]
    pub fn of(meta: &std::fs::Metadata) -> Option<FileStat> {
        use std::os::unix::fs::MetadataExt;
        let time = |secs: i64, nanos: i64| Some((secs as u32, u32::try_from(nanos).ok()?));
        Some(FileStat {
            mtime: time(meta.mtime(), meta.mtime_nsec())?,
            ctime: time(meta.ctime(), meta.ctime_nsec())?,
            size: meta.size(),
            ino: meta.ino(),
            uid: meta.uid(),
            gid: meta.gid(),
            mode: meta.mode(),
        })
    }

    /// No stat data to compare where the index's are not Unix's.
    #[cfg(not(unix))]
    pub fn of(_: &std::fs::Metadata) -> Option<FileStat> {
        None
    }
}

impl Doc {
    /// The doc read from `fs_path` with its `text`, named `name` in reports, its line index built
    /// and no stat data.
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
            stat: None,
        }
    }

    /// Where the content starts: after a byte-order mark, which parsers would take for text.
    /// Offsets stay relative to the doc as written, so fixes keep the mark.
    pub(crate) fn body_start(&self) -> usize {
        if self.text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        }
    }
}
