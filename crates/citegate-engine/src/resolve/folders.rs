//! Folders (tree objects) read raw from the object database and parsed once per run, shared by
//! every reader of a session: the audit's path lookups, a revision's listing (the cross-file
//! search) and layout (a missing path's suggestions), rename detection's changed files, and the
//! columns of followed paths read the same folders of many commits (most folders are the same
//! tree in most revisions). libgit2's parsed trees (and its cache of them) cost several times
//! the reading.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use git2::{ObjectType, Oid, Repository};

/// A folder, read once per run and shared.
pub(crate) type Folder = Arc<Entries>;

/// A folder's entries as its tree object holds them (in Git's order of names, a folder's name
/// compared as if it ended in `/`), over one copy of the object: a run reads thousands of
/// folders, and one allocation each, not one per name, is what reading and freeing them costs;
/// nothing is sorted or converted until asked.
#[derive(Debug)]
pub struct Entries {
    /// The folder's tree.
    pub id: Oid,
    /// The tree object's content (`mode SP name NUL id`, repeated).
    raw: Box<[u8]>,
    /// Each entry: where its name is in `raw` (start, end: its ID's 20 bytes follow a NUL
    /// there), and its mode.
    slots: Box<[(u32, u32, u32)]>,
}

/// One entry of a folder, borrowed from it.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// The entry's name, as the tree holds it (bytes, not always UTF-8).
    pub name: &'a [u8],
    id: &'a [u8],
    /// The mode as the tree object holds it.
    mode: u32,
}

impl Entry<'_> {
    /// The entry's object ID.
    pub fn id(&self) -> Oid {
        Oid::from_bytes(self.id).expect("20 bytes, checked when parsed")
    }

    /// What the entry is, as libgit2 tells it from the mode.
    pub fn kind(&self) -> ObjectType {
        match self.mode & 0o170000 {
            0o160000 => ObjectType::Commit,
            0o040000 => ObjectType::Tree,
            _ => ObjectType::Blob,
        }
    }

    /// The mode, normalised as libgit2's `git_tree_entry_filemode` gives it (a file is
    /// `100644`, or `100755` when any execute bit is set; `120000` a symbolic link).
    pub(crate) fn filemode(&self) -> i32 {
        match self.mode & 0o170000 {
            0o040000 => 0o040000,
            _ if self.mode & 0o111 != 0 => 0o100755,
            0o160000 => 0o160000,
            0o120000 => 0o120000,
            _ => 0o100644,
        }
    }

    /// The same object and mode as `other` (the entry did not change).
    pub fn same(&self, other: &Entry<'_>) -> bool {
        self.id == other.id && self.filemode() == other.filemode()
    }

    /// What the entry sorts by in its folder: its name, and a `/` after a folder's.
    fn key(&self) -> impl Iterator<Item = &u8> + '_ {
        git_key(self.name, self.kind() == ObjectType::Tree)
    }
}

/// Git's order of the entries of one folder.
pub(crate) fn git_order(x: &Entry<'_>, y: &Entry<'_>) -> Ordering {
    x.key().cmp(y.key())
}

/// What an entry named `name` sorts by in a tree: its name, and a `/` after a folder's.
pub(crate) fn git_key(name: &[u8], folder: bool) -> impl Iterator<Item = &u8> + '_ {
    name.iter().chain(folder.then_some(&b'/'))
}

impl Entries {
    /// The entries of a tree object's raw content; `None` when it is not one.
    pub fn parse(id: Oid, raw: &[u8]) -> Option<Entries> {
        // An entry takes at least 28 bytes (a one-digit mode, a one-byte name, an ID).
        let mut slots = Vec::with_capacity(raw.len() / 28);
        let mut at = 0;
        while at < raw.len() {
            // The mode, in octal up to the space (read here: it is a few bytes).
            let (mut mode, mut i) = (0u32, at);
            while let Some(&b @ b'0'..=b'7') = raw.get(i) {
                mode = mode.checked_mul(8)? + u32::from(b - b'0');
                i += 1;
            }
            if i == at || raw.get(i) != Some(&b' ') {
                return None;
            }
            let nul = i + 1 + memchr::memchr(0, &raw[i + 1..])?;
            raw.get(nul + 1..nul + 21)?;
            slots.push(((i + 1) as u32, nul as u32, mode));
            at = nul + 21;
        }
        Some(Entries {
            id,
            raw: raw.into(),
            slots: slots.into(),
        })
    }

    /// How many entries the folder has.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the folder has no entry.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The entry at position `i`.
    pub fn get(&self, i: usize) -> Option<Entry<'_>> {
        self.slots.get(i).map(|slot| self.entry(slot))
    }

    fn entry(&self, &(start, end, mode): &(u32, u32, u32)) -> Entry<'_> {
        let (start, end) = (start as usize, end as usize);
        Entry {
            name: &self.raw[start..end],
            id: &self.raw[end + 1..end + 21],
            mode,
        }
    }

    /// Every entry, in Git's order.
    pub fn iter(&self) -> impl Iterator<Item = Entry<'_>> + '_ {
        self.slots.iter().map(|slot| self.entry(slot))
    }

    /// Where the entry named `name` is: looked for as a file, then as a folder, by Git's order.
    pub fn position(&self, name: &[u8]) -> Option<usize> {
        let search = |folder: bool| {
            let by = |slot: &(u32, u32, u32)| self.entry(slot).key().cmp(git_key(name, folder));
            self.slots.binary_search_by(by).ok()
        };
        search(false).or_else(|| search(true))
    }
}

/// The folders read so far in a session, by tree, each whole.
#[derive(Debug, Default)]
pub struct Folders(Mutex<HashMap<Oid, Folder>>);

impl Folders {
    /// The folder `tree`, read once: every reader after the first gets the same copy (a column
    /// tells a folder unchanged from its parent's by that).
    pub fn read(&self, repo: &Repository, tree: Oid) -> Result<Folder, git2::Error> {
        if let Some(f) = self.0.lock().expect("folders lock").get(&tree) {
            return Ok(f.clone());
        }
        let odb = repo.odb()?;
        let raw = odb.read(tree)?;
        let read = match raw.kind() {
            ObjectType::Tree => Entries::parse(tree, raw.data()),
            _ => None,
        };
        let read = read.ok_or_else(|| git2::Error::from_str("not a tree"))?;
        let mut folders = self.0.lock().expect("folders lock");
        Ok(folders
            .entry(tree)
            .or_insert_with(|| Arc::new(read))
            .clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_is_parsed_as_libgit2_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let blob = git.blob(b"x").unwrap();
        let mut inner = git.treebuilder(None).unwrap();
        inner.insert("deep.rs", blob, 0o100644).unwrap();
        let inner = inner.write().unwrap();
        let mut root = git.treebuilder(None).unwrap();
        let module = Oid::from_str("0123456789abcdef0123456789abcdef01234567").unwrap();
        for (name, id, mode) in [
            ("b.rs", blob, 0o100644),
            ("a", inner, 0o040000),
            ("a.b", blob, 0o100644),
            ("a-b", inner, 0o040000),
            ("link.rs", blob, 0o120000),
            ("run.sh", blob, 0o100755),
            ("é z", blob, 0o100644),
            ("vendor", module, 0o160000),
        ] {
            root.insert(name, id, mode).unwrap();
        }
        let tree = git.find_tree(root.write().unwrap()).unwrap();
        let folders = Folders::default();
        let folder = folders.read(&git, tree.id()).unwrap();
        assert!(Arc::ptr_eq(
            &folder,
            &folders.read(&git, tree.id()).unwrap()
        ));
        let theirs: Vec<_> = (tree.iter())
            .map(|e| {
                (
                    e.name_bytes().to_vec(),
                    e.id(),
                    e.kind().unwrap(),
                    e.filemode(),
                )
            })
            .collect();
        let ours: Vec<_> = (folder.iter())
            .map(|e| (e.name.to_vec(), e.id(), e.kind(), e.filemode()))
            .collect();
        assert_eq!(ours, theirs);
        let modes: Vec<i32> = folder.iter().map(|e| e.filemode()).collect();
        for mode in [0o040000, 0o100644, 0o100755, 0o120000, 0o160000] {
            assert!(modes.contains(&mode), "{mode:o} is among {modes:?}");
        }
        for (i, e) in folder.iter().enumerate() {
            assert_eq!(folder.position(e.name), Some(i));
        }
        assert_eq!(folder.position(b"a-"), None);
        assert!(Entries::parse(tree.id(), b"100644 cut").is_none());
        assert!(Entries::parse(tree.id(), b"1z0644 a\0aaaaaaaaaaaaaaaaaaaa").is_none());
        assert!(folders.read(&git, blob).is_err(), "a blob is not a folder");
    }
}
