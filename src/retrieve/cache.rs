//! The retrieval index on disk: one JSON file per tree under `<git dir>/citegate/`, so a sweep or
//! a second run does not read and cut every file again. A file that cannot be read (an older
//! format, a partial write) is ignored and rebuilt.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use git2::Oid;
use serde::{Deserialize, Serialize};

use super::chunk::Chunk;

/// Bumped whenever chunking or tokens change: an index of another version is rebuilt.
pub const VERSION: u32 = 4;

/// A chunk and its tokens, written out with spaces.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Entry {
    /// Not flattened: serde buffers a flattened struct's numbers, which serde_json's exact
    /// numbers (`arbitrary_precision`) cannot pass through, and the index would never load.
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

/// The largest index file read: past it the index is rebuilt, not read whole.
pub const MAX_BYTES: u64 = 256 << 20;

/// The index of `tree`, when one is on disk and every entry passes `valid` (its path is a file of
/// the tree, its lines a range). Only a regular file, up to [`MAX_BYTES`], is read, never through a
/// symbolic link (a FIFO put in its place would hang the read); on any doubt the index is rebuilt.
pub fn load(git_dir: &Path, tree: Oid, valid: impl Fn(&Chunk) -> bool) -> Option<Vec<Entry>> {
    let target = path(git_dir, tree);
    let dir = target.parent()?;
    if is_link(dir) {
        return None;
    }
    let meta = std::fs::symlink_metadata(&target).ok()?;
    if !meta.file_type().is_file() || meta.len() > MAX_BYTES {
        return None;
    }
    let mut bytes = Vec::new();
    std::fs::File::open(&target)
        .ok()?
        .take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    let file: File = serde_json::from_slice(&bytes).ok()?;
    let ok = file.version == VERSION
        && file.tree == tree.to_string()
        && file.entries.iter().all(|e| valid(&e.chunk));
    ok.then_some(file.entries)
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

/// Write the index whole or not at all (a temporary file renamed into place); never into a
/// folder that is a symbolic link.
pub fn store(git_dir: &Path, tree: Oid, entries: &[Entry]) -> std::io::Result<()> {
    let target = path(git_dir, tree);
    let dir = target.parent().expect("index path has a folder");
    if is_link(dir) {
        return Err(std::io::Error::other(
            "the retrieval cache folder is a symbolic link: not written",
        ));
    }
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
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
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
        assert!(load(git.path(), tree, |_| true).is_some());
    }

    fn entry(path: &str, start: usize, end: usize) -> Entry {
        Entry {
            chunk: Chunk {
                path: path.into(),
                start,
                end,
                symbol: None,
                doc: false,
            },
            terms: "x".into(),
        }
    }

    const TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

    #[test]
    fn an_index_with_an_entry_that_fails_validation_is_not_served() {
        let git = tempfile::tempdir().unwrap();
        let tree = Oid::from_str(TREE).unwrap();
        store(git.path(), tree, &[entry("../../etc/passwd", 1, 2)]).unwrap();
        assert!(load(git.path(), tree, |c| !c.path.starts_with("..")).is_none());
        assert!(load(git.path(), tree, |_| true).is_some());
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_or_a_link_in_the_cache_is_never_read_or_written_through() {
        let git = tempfile::tempdir().unwrap();
        let tree = Oid::from_str(TREE).unwrap();
        let dir = git.path().join("citegate");
        std::fs::create_dir_all(&dir).unwrap();
        // A FIFO where the index goes: not opened (it would block forever).
        let fifo = path(git.path(), tree);
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        assert!(load(git.path(), tree, |_| true).is_none());
        // The cache folder as a link to a folder outside: not read, not written, not pruned.
        let outside = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), other.path().join("citegate")).unwrap();
        std::fs::write(outside.path().join(format!("index-{tree}.json")), "{}").unwrap();
        assert!(store(other.path(), tree, &[]).is_err());
        assert!(load(other.path(), tree, |_| true).is_none());
        let left: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }
}
