//! The retrieval index on disk: one JSON file per tree under `<git dir>/citegate/`, so a sweep or
//! a second run does not read and cut every file again. A file that cannot be read (an older
//! format, a partial write, anything else put there) is rebuilt, never trusted, and why is said.
//! Each file starts with a header line naming the format and its version, checked before the
//! rest is read: a 256 MiB file of something else costs a few bytes, not a parse.

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
    /// The chunk's tokens, joined by spaces.
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

/// The first line of every index file: checked before anything else is read.
fn header() -> String {
    format!("citegate-index {VERSION}\n")
}

/// Why no index was read from the cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Miss {
    /// None was written for this tree yet.
    Absent,
    /// One is there but is not used (it is rebuilt), and why.
    Rejected(String),
}

/// Where the index of `tree` is kept.
pub fn path(git_dir: &Path, tree: Oid) -> PathBuf {
    git_dir.join("citegate").join(format!("index-{tree}.json"))
}

/// The largest index file read: past it the index is rebuilt, not read whole.
pub(crate) const MAX_BYTES: u64 = 256 << 20;

/// The index of `tree`, when one is on disk and every entry passes `valid` (its path is a file of
/// the tree, its lines a range). Only a regular file, up to `MAX_BYTES`, is read, never through a
/// symbolic link (a FIFO put in its place would hang the read), and only past its header line;
/// on any doubt the index is rebuilt.
pub fn load(git_dir: &Path, tree: Oid, valid: impl Fn(&Chunk) -> bool) -> Result<Vec<Entry>, Miss> {
    let target = path(git_dir, tree);
    let reject = |why: &str| Miss::Rejected(format!("{}: {why}: rebuilt", target.display()));
    let dir = target.parent().ok_or(Miss::Absent)?;
    if is_link(dir) {
        return Err(reject("its folder is a symbolic link"));
    }
    let meta = match std::fs::symlink_metadata(&target) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(Miss::Absent),
        Err(e) => return Err(reject(&e.to_string())),
    };
    if !meta.file_type().is_file() {
        return Err(reject("not a regular file"));
    }
    if meta.len() > MAX_BYTES {
        return Err(reject("over 256 MiB"));
    }
    let mut file = std::fs::File::open(&target).map_err(|e| reject(&e.to_string()))?;
    let header = header();
    let mut first = Vec::with_capacity(header.len());
    (&mut file)
        .take(header.len() as u64)
        .read_to_end(&mut first)
        .map_err(|e| reject(&e.to_string()))?;
    if first != header.as_bytes() {
        return Err(reject("not a citegate index of this version"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| reject(&e.to_string()))?;
    let file: File = serde_json::from_slice(&bytes).map_err(|e| reject(&e.to_string()))?;
    if file.version != VERSION || file.tree != tree.to_string() {
        return Err(reject("written for another version or tree"));
    }
    if !file.entries.iter().all(|e| valid(&e.chunk)) {
        return Err(reject(
            "a chunk is not a file of the tree with a line range",
        ));
    }
    Ok(file.entries)
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
    tmp.write_all(header().as_bytes())?;
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
        assert!(load(git.path(), tree, |_| true).is_ok());
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
        assert!(load(git.path(), tree, |c| !c.path.starts_with("..")).is_err());
        assert!(load(git.path(), tree, |_| true).is_ok());
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
        assert!(load(git.path(), tree, |_| true).is_err());
        // The cache folder as a link to a folder outside: not read, not written, not pruned.
        let outside = tempfile::tempdir().unwrap();
        let other = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), other.path().join("citegate")).unwrap();
        std::fs::write(outside.path().join(format!("index-{tree}.json")), "{}").unwrap();
        assert!(store(other.path(), tree, &[]).is_err());
        assert!(load(other.path(), tree, |_| true).is_err());
        let left: Vec<_> = std::fs::read_dir(outside.path()).unwrap().collect();
        assert_eq!(left.len(), 1);
    }

    /// Bytes this thread has read through system calls so far (Linux's per-thread `rchar`).
    #[cfg(target_os = "linux")]
    fn read_so_far() -> u64 {
        let io = std::fs::read_to_string("/proc/thread-self/io").unwrap();
        let line = io.lines().find(|l| l.starts_with("rchar:")).unwrap();
        line["rchar:".len()..].trim().parse().unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_corrupt_cache_is_rejected_from_its_first_bytes_not_read_whole() {
        let git = tempfile::tempdir().unwrap();
        let tree = Oid::from_str(TREE).unwrap();
        let target = path(git.path(), tree);
        std::fs::create_dir_all(target.parent().unwrap()).unwrap();
        // 200 MiB, under the limit, that is not an index (sparse: costs no disk).
        let file = std::fs::File::create(&target).unwrap();
        (&file)
            .write_all(b"{\"version\": 4, \"garbage\": \"")
            .unwrap();
        file.set_len(200 << 20).unwrap();
        drop(file);
        let before = read_so_far();
        let miss = load(git.path(), tree, |_| true).unwrap_err();
        let read = read_so_far() - before;
        assert!(read < 64 << 10, "{read} bytes read");
        let Miss::Rejected(why) = miss else {
            panic!("{miss:?}")
        };
        assert!(
            why.ends_with("not a citegate index of this version: rebuilt"),
            "{why}"
        );
        // What is written instead is read back.
        store(git.path(), tree, &[entry("src/a.rs", 1, 2)]).unwrap();
        let bytes = std::fs::read(&target).unwrap();
        assert!(bytes.starts_with(b"citegate-index 4\n{"));
        assert_eq!(load(git.path(), tree, |_| true).unwrap().len(), 1);
        assert_eq!(
            load(git.path(), Oid::ZERO_SHA1, |_| true).unwrap_err(),
            Miss::Absent
        );
    }
}
