//! Path lookups over many commits, memoised by tree ID: a path is resolved one component at a time,
//! and a folder whose tree object is the same in two commits (most folders, in most commits) is
//! read once. Blame and the implied-pin plan ask "what is at this path in this commit" for
//! thousands of commits; this answers most of them from memory.

use std::collections::HashMap;

use git2::{Oid, Repository};

/// One thread's repository handle, with its memo of commits and tree entries.
pub(crate) struct Trees {
    git: Repository,
    /// Commit → (root tree, parents).
    commits: HashMap<Oid, (Oid, Vec<Oid>)>,
    /// Tree → the entries asked for by name, with their objects if any.
    entries: HashMap<Oid, HashMap<Box<str>, Option<Oid>>>,
}

impl Trees {
    pub(crate) fn new(git: Repository) -> Self {
        Trees {
            git,
            commits: HashMap::new(),
            entries: HashMap::new(),
        }
    }

    fn commit(&mut self, commit: Oid) -> Option<&(Oid, Vec<Oid>)> {
        if !self.commits.contains_key(&commit) {
            let c = self.git.find_commit(commit).ok()?;
            self.commits
                .insert(commit, (c.tree_id(), c.parent_ids().collect()));
        }
        self.commits.get(&commit)
    }

    /// The object at `path` in `commit` (a blob, a tree or a submodule commit), if any.
    pub(crate) fn entry(&mut self, commit: Oid, path: &str) -> Option<Oid> {
        let mut at = self.commit(commit)?.0;
        for name in path.split('/') {
            let asked = self.entries.entry(at).or_default();
            let found = match asked.get(name) {
                Some(found) => *found,
                None => {
                    let found = self
                        .git
                        .find_tree(at)
                        .ok()
                        .and_then(|t| t.get_name(name).map(|e| e.id()));
                    asked.insert(Box::from(name), found);
                    found
                }
            };
            at = found?;
        }
        Some(at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_paths_like_the_tree_does() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let blob = git.blob(b"x\n").unwrap();
        let mut inner = git.treebuilder(None).unwrap();
        inner.insert("a.rs", blob, 0o100644).unwrap();
        let inner = inner.write().unwrap();
        let mut root = git.treebuilder(None).unwrap();
        root.insert("src", inner, 0o040000).unwrap();
        let tree = git.find_tree(root.write().unwrap()).unwrap();
        let sig = git2::Signature::now("t", "t@t").unwrap();
        let commit = git.commit(None, &sig, &sig, "m", &tree, &[]).unwrap();
        let mut trees = Trees::new(Repository::open(dir.path()).unwrap());
        assert_eq!(trees.entry(commit, "src/a.rs"), Some(blob));
        assert_eq!(trees.entry(commit, "src"), Some(inner));
        assert_eq!(trees.entry(commit, "src/b.rs"), None);
        assert_eq!(trees.entry(commit, "src/a.rs/x"), None);
    }
}
