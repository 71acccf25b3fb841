//! Lanes: each worker thread reads the object database through pack files of its own.
//!
//! libgit2 shares one in-memory pack file between every handle of a process that opens it by
//! the same path, with its locks and its cache of delta bases: two threads reading blobs take
//! the same mutexes for every object, and one thread filling the cache empties the other's.
//! That sharing is keyed by the pack's path, so a handle whose object folder is named
//! differently (`objects/./` for lane 1, `objects/././` for lane 2: the same folder) gets pack
//! files of its own. Measured on the benchmark corpora (benchmarks/HISTORY.md, issue 38's
//! fifteenth part): the versioned docs' audit 11-18% faster and the wiki's 5-15%, for 6-20 MB
//! more peak memory (each lane's cache of delta bases). Should libgit2 ever name packs by their
//! canonical path, lanes share them again: slower, never wrong.

use std::path::Path;
use std::sync::Mutex;

use git2::{Odb, Repository};

/// The current thread's lane: 0 off rayon's threads (the handles opened there share the
/// process's packs), else the worker's index plus one.
pub(crate) fn lane() -> usize {
    rayon::current_thread_index().map_or(0, |i| i + 1)
}

/// Give `git` pack files of its own for `lane`: an object database over the same object folder
/// (and its alternates) named for the lane. Lane 0, an object folder whose path is not UTF-8, or
/// one that cannot be found under its lane's name keeps the handle as opened: a database with no
/// folder in it would find no object at all.
pub(crate) fn own_packs(git: &Repository, lane: usize) -> Result<(), git2::Error> {
    let objects = git.commondir().join("objects");
    let Some(objects) = objects.to_str().filter(|_| lane > 0) else {
        return Ok(());
    };
    let named = format!("{objects}/{}", "./".repeat(lane));
    if !Path::new(&named).is_dir() {
        return Ok(());
    }
    let odb = Odb::new()?;
    odb.add_disk_alternate(&named)?;
    git.set_odb(&odb)
}

/// Repository handles lent and given back, each kept for the lane it was opened in: a handle
/// given back by one thread is not lent to another, whose reads would then share its packs.
#[derive(Default)]
pub(crate) struct Handles(Mutex<Vec<(usize, Repository)>>);

impl std::fmt::Debug for Handles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handles(..)")
    }
}

impl Handles {
    /// Run `f` with a handle of the current lane, opened by `open` when none is spare.
    pub(crate) fn with<R>(
        &self,
        open: impl FnOnce() -> Repository,
        f: impl FnOnce(&Repository) -> R,
    ) -> R {
        let lane = lane();
        let spare = {
            let mut kept = self.0.lock().expect("handles lock");
            let at = kept.iter().rposition(|(l, _)| *l == lane);
            at.map(|i| kept.swap_remove(i).1)
        };
        let git = spare.unwrap_or_else(open);
        let out = f(&git);
        self.0.lock().expect("handles lock").push((lane, git));
        out
    }

    /// How many handles are kept (the tests' view of the pool).
    #[cfg(test)]
    pub(crate) fn kept(&self) -> usize {
        self.0.lock().expect("handles lock").len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resolve::{CodeRepo, FileAt};

    /// Remove the loose copy of `id` (kept in a pack).
    fn unloose(git: &Repository, id: git2::Oid) {
        let hex = id.to_string();
        std::fs::remove_file(git.path().join("objects").join(&hex[..2]).join(&hex[2..])).unwrap();
    }

    #[test]
    fn a_lanes_handle_reads_packed_loose_and_alternate_objects_through_its_own_database() {
        let dir = tempfile::tempdir().unwrap();
        let alternate = Repository::init(dir.path().join("other")).unwrap();
        let elsewhere = alternate.blob(b"only in the alternate\n").unwrap();
        let spec = "@@@ commit v1 packed\n@@@ file a.rs\npacked\n\
                    @@@ commit v2 loose\n@@@ file b.rs\nloose\n";
        let main = dir.path().join("main");
        let labels = crate::fixture::build(spec, &main).unwrap();
        let git = Repository::open(&main).unwrap();
        // The first commit's objects in a pack only, the second's loose.
        let mut pack = git.packbuilder().unwrap();
        pack.insert_commit(labels["v1"]).unwrap();
        pack.write(&git.path().join("objects/pack"), 0o644).unwrap();
        let first = git.find_commit(labels["v1"]).unwrap();
        let blob = first.tree().unwrap().get_name("a.rs").unwrap().id();
        for id in [first.id(), first.tree_id(), blob] {
            unloose(&git, id);
        }
        let info = git.path().join("objects/info");
        std::fs::create_dir_all(&info).unwrap();
        let other = alternate.path().join("objects");
        std::fs::write(info.join("alternates"), format!("{}\n", other.display())).unwrap();

        let repo = CodeRepo::discover(&main).unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let text = |read| match read {
            Ok(FileAt::Text(t)) => t.to_string(),
            _ => panic!("not read"),
        };
        pool.install(|| {
            assert!(lane() > 0);
            let git = repo.worker();
            assert_eq!(text(repo.file_at(&git, labels["v2"], "a.rs")), "packed\n");
            assert_eq!(text(repo.file_at(&git, labels["v2"], "b.rs")), "loose\n");
            let found = git.find_blob(elsewhere).unwrap();
            assert_eq!(found.content(), b"only in the alternate\n");
            // Its database is the lane's own: the repository's folder is in it only as an
            // alternate, which is never written to.
            assert!(git.blob(b"new\n").is_err());
        });
        // Off the pool, a handle reads (and writes) through the repository's own database.
        assert!(repo.worker().blob(b"new\n").is_ok());
    }

    #[test]
    fn a_handle_given_back_is_lent_again_in_its_own_lane_only() {
        let dir = tempfile::tempdir().unwrap();
        Repository::init(dir.path()).unwrap();
        let repo = CodeRepo::discover(dir.path()).unwrap();
        let handles = Handles::default();
        let opened = std::sync::atomic::AtomicUsize::new(0);
        let open = || {
            opened.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            repo.worker()
        };
        handles.with(open, |_| ());
        handles.with(open, |_| ());
        assert_eq!(
            (
                opened.load(std::sync::atomic::Ordering::Relaxed),
                handles.kept()
            ),
            (1, 1)
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        pool.install(|| handles.with(open, |_| ()));
        pool.install(|| handles.with(open, |_| ()));
        assert_eq!(
            (
                opened.load(std::sync::atomic::Ordering::Relaxed),
                handles.kept()
            ),
            (2, 2)
        );
    }
}
