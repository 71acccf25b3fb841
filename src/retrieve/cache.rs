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
    prune(dir);
    Ok(())
}

/// Indexes kept: those of the last few trees retrieved at (a branch and its base, a sweep's
/// target), not one per commit ever regenerated.
pub const KEEP: usize = 4;

/// Remove all but the [`KEEP`] most recently written indexes.
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut indexes: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name.starts_with("index-") && name.ends_with(".json")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    indexes.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (_, path) in indexes.into_iter().skip(KEEP) {
        let _ = std::fs::remove_file(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_last_indexes_are_kept() {
        let git = tempfile::tempdir().unwrap();
        let dir = git.path().join("citegate");
        std::fs::create_dir_all(&dir).unwrap();
        let old = (0..KEEP + 2).map(|i| dir.join(format!("index-old{i}.json")));
        for (i, p) in old.enumerate() {
            std::fs::write(&p, "{}").unwrap();
            let at = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(i as u64);
            std::fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_modified(at)
                .unwrap();
        }
        let tree = Oid::from_str("4b825dc642cb6eb9a060e54bf8d69288fbee4904").unwrap();
        store(git.path(), tree, &[]).unwrap();
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let newest = format!("index-{tree}.json");
        assert_eq!(
            left,
            [
                newest.as_str(),
                "index-old3.json",
                "index-old4.json",
                "index-old5.json"
            ]
        );
        assert!(load(git.path(), tree).is_some());
    }
}
