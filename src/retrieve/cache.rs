//! The retrieval index on disk: one JSON file per tree under `<git dir>/citegate/`, so a sweep or
//! a second run does not read and cut every file again. A file that cannot be read (an older
//! format, a partial write) is ignored and rebuilt.

use std::io::Write;
use std::path::{Path, PathBuf};

use git2::Oid;
use serde::{Deserialize, Serialize};

use super::chunk::Chunk;

/// Bumped whenever chunking or tokens change: an index of another version is rebuilt.
pub const VERSION: u32 = 2;

/// A chunk and its tokens, written out with spaces.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    #[serde(flatten)]
    pub chunk: Chunk,
    pub terms: String,
}

#[derive(Deserialize)]
struct File {
    version: u32,
    tree: String,
    entries: Vec<Entry>,
}

#[derive(Serialize)]
struct FileRef<'a> {
    version: u32,
    tree: String,
    entries: &'a [Entry],
}

/// Where the index of `tree` is kept.
pub fn path(git_dir: &Path, tree: Oid) -> PathBuf {
    git_dir.join("citegate").join(format!("index-{tree}.json"))
}

pub fn load(git_dir: &Path, tree: Oid) -> Option<Vec<Entry>> {
    let bytes = std::fs::read(path(git_dir, tree)).ok()?;
    let file: File = serde_json::from_slice(&bytes).ok()?;
    (file.version == VERSION && file.tree == tree.to_string()).then_some(file.entries)
}

/// Write the index whole or not at all (a temporary file renamed into place).
pub fn store(git_dir: &Path, tree: Oid, entries: &[Entry]) -> std::io::Result<()> {
    let target = path(git_dir, tree);
    let dir = target.parent().expect("index path has a folder");
    std::fs::create_dir_all(dir)?;
    let file = FileRef {
        version: VERSION,
        tree: tree.to_string(),
        entries,
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    serde_json::to_writer(&mut tmp, &file)?;
    tmp.flush()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}
