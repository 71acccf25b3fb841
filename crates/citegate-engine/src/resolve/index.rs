//! Git's index as `git status` reads it: a file whose stat data match its index entry holds the
//! blob that entry records, so the file need not be hashed to know it. Not trusted, and left to
//! hashing: an entry that is racily clean (the file changed in the same instant the index was
//! written, which its stat data cannot show), marked assume-unchanged, skip-worktree or
//! intent-to-add, in conflict, or smudged (size 0).

use std::path::Path;

use git2::{IndexEntry, Oid, Repository};

use crate::model::FileStat;

/// `flags`: the entry is assumed unchanged (`git update-index --assume-unchanged`).
const ASSUME_VALID: u16 = 0x8000;
/// `flags`: the merge stage (non-zero in a conflict).
const STAGE: u16 = 0x3000;
/// `flags_extended`: skip-worktree and intent-to-add.
const NOT_IN_WORKTREE: u16 = 0x4000 | 0x2000;
/// The file-type bits of a mode, and a regular file's.
const KIND: u32 = 0o170000;
const REGULAR: u32 = 0o100000;

/// For each `(path, stat)` (a repository-relative `/`-separated path and the stat data of the file
/// its text was read from), the blob ID of that text when Git's index vouches for it; `None`
/// where it does not, or when the index cannot be read or changes while it is read.
pub fn vouched(git: &Repository, files: &[(&str, Option<FileStat>)]) -> Vec<Option<Oid>> {
    let mut out = vec![None; files.len()];
    if files.iter().all(|(_, stat)| stat.is_none()) {
        return out;
    }
    let path = git.path().join("index");
    let stamp = || {
        std::fs::metadata(&path)
            .ok()
            .as_ref()
            .and_then(FileStat::of)
    };
    let before = stamp();
    // A handle kept across runs (the language server's) holds the index it read first: read
    // again when the file changed since.
    let Ok(mut index) = git.index() else {
        return out;
    };
    if index.read(false).is_err() {
        return out;
    }
    let Some(written) = before.filter(|b| stamp() == Some(*b)) else {
        return out;
    };
    for ((name, stat), id) in files.iter().zip(&mut out) {
        let entry = stat.and_then(|s| Some((index.get_path(Path::new(name), 0)?, s)));
        *id = entry
            .filter(|(e, s)| clean(e, s, written.mtime))
            .map(|(e, _)| e.id);
    }
    out
}

/// Whether `entry` vouches for the file `stat` describes, in an index written at `written`.
fn clean(entry: &IndexEntry, stat: &FileStat, written: (u32, u32)) -> bool {
    let time = |t: git2::IndexTime| (t.seconds() as u32, t.nanoseconds());
    let mtime = time(entry.mtime);
    let trusted = entry.flags & (ASSUME_VALID | STAGE) == 0
        && entry.flags_extended & NOT_IN_WORKTREE == 0
        && entry.file_size != 0
        && entry.mode & KIND == REGULAR;
    trusted
        && stat.mode & KIND == REGULAR
        && u64::from(entry.file_size) == stat.size & 0xffff_ffff
        && mtime == stat.mtime
        && time(entry.ctime) == stat.ctime
        && u64::from(entry.ino) == stat.ino & 0xffff_ffff
        && entry.uid == stat.uid
        && entry.gid == stat.gid
        // Racily clean: written in the same instant as the index, or after it.
        && mtime < written
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;

    fn age(file: &Path, when: SystemTime) {
        let f = std::fs::File::options().write(true).open(file).unwrap();
        f.set_modified(when).unwrap();
    }

    #[test]
    fn the_index_vouches_only_for_a_file_its_entry_matches_and_predates() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let file = dir.path().join("doc.md");
        let hour = Duration::from_secs(3600);
        let add = |when: SystemTime, flags: u16| {
            age(&file, when);
            let mut index = git.index().unwrap();
            index.add_path(Path::new("doc.md")).unwrap();
            let mut entry = index.get_path(Path::new("doc.md"), 0).unwrap();
            entry.flags |= flags;
            index.add(&entry).unwrap();
            index.write().unwrap();
            entry.id
        };
        let stat = || FileStat::of(&std::fs::metadata(&file).unwrap());
        std::fs::write(&file, "abc\n").unwrap();
        let id = add(SystemTime::now() - hour, 0);
        assert_eq!(vouched(&git, &[("doc.md", stat())]), [Some(id)]);
        let unknown = [("doc.md", None), ("other.md", stat())];
        assert_eq!(vouched(&git, &unknown), [None, None]);
        // Changed since, to a text of the same size: its stat data no longer match.
        std::fs::write(&file, "abd\n").unwrap();
        assert_eq!(vouched(&git, &[("doc.md", stat())]), [None]);
        // Racily clean: the file is not older than the index that records it.
        add(SystemTime::now() + hour, 0);
        assert_eq!(vouched(&git, &[("doc.md", stat())]), [None]);
        // Assumed unchanged: git would not look at the file at all.
        add(SystemTime::now() - hour, ASSUME_VALID);
        assert_eq!(vouched(&git, &[("doc.md", stat())]), [None]);
        add(SystemTime::now() - hour, 0);
        assert!(vouched(&git, &[("doc.md", stat())])[0].is_some());
        // The index rewritten behind a handle that read it before (the file untouched, its
        // entry now assumed unchanged): the handle reads the entry again.
        let other = Repository::open(dir.path()).unwrap();
        assert!(vouched(&other, &[("doc.md", stat())])[0].is_some());
        let mut index = git.index().unwrap();
        let mut entry = index.get_path(Path::new("doc.md"), 0).unwrap();
        entry.flags |= ASSUME_VALID;
        index.add(&entry).unwrap();
        index.write().unwrap();
        assert_eq!(vouched(&other, &[("doc.md", stat())]), [None]);
    }
}
