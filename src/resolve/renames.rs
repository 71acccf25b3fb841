//! Where a file went between a pin and the target, as `git log --follow` finds it: the file is
//! followed commit by commit through the history between them, and each commit is compared with
//! each of its parents. A file that is still at its path in a commit keeps its name there; one
//! that is gone is looked for among that commit's renames (git's rename detection, 50%
//! similarity, on that commit's own diff); else it was deleted on that side. Every parent of a
//! merge counts, so a rename made on a merged branch is followed; a path deleted and later
//! written again by an unrelated commit is not the same file (the follow ended at the deletion);
//! a chain of renames is followed to its end.
//!
//! The history is never diffed as a whole range (a file deleted in one commit and an unrelated
//! file added months later are not a rename). What it costs: a commit whose folders on the
//! followed path have the same tree IDs as its parent's is passed by comparing IDs; rename
//! detection runs only where the followed file is gone, once per pair of commits and only when
//! that diff deletes a file; each answer is kept per (pin, target, path), and pins into the same
//! history share the folder entries and renames their walks read. The first walk
//! through a commit costs a lookup per folder of the path that changed there: never more than
//! the path's depth, whatever the size of the tree. The target's history is read once, with each
//! commit's root tree (no step reads a commit again); a range keeps what every walk through it
//! needs (its commits as a set, where each commit's last child is); folder entries are looked
//! up once per (folder tree, name) for all paths.

use std::collections::HashMap as StdMap;

use foldhash::{HashMap, HashMapExt, HashSet};
use std::sync::{Arc, Mutex};

use git2::{ObjectType, Oid, Repository, Sort};

/// The renames of one diff: old path → new path.
pub type Renames = StdMap<String, String>;

/// Commits, parents before children, each with its parents.
type Commits = Vec<(Oid, Vec<Oid>)>;

/// The commits a pin's files are followed through to reach the target (the target's ancestors
/// that are not the pin's, parents before children, each with its parents), with what every
/// walk through them needs: kept with the range, so the many paths of one pin share it.
#[derive(Debug, Default)]
struct Range {
    commits: Commits,
    /// The commits of the range, for telling a parent inside it from one outside.
    inside: HashSet<Oid>,
    /// The position of the last commit of the range that has each commit as a parent: a walk
    /// forgets a commit's names once past it.
    last_child: HashMap<Oid, usize>,
    /// The last commit with a parent outside the range: after it nothing new can start the file.
    last_seed: usize,
}

impl Range {
    fn new(commits: Commits) -> Range {
        let inside: HashSet<Oid> = commits.iter().map(|(c, _)| *c).collect();
        let last_seed = (commits.iter())
            .rposition(|(_, ps)| ps.iter().any(|p| !inside.contains(p)))
            .unwrap_or(0);
        let mut last_child: HashMap<Oid, usize> = HashMap::new();
        for (i, (_, ps)) in commits.iter().enumerate() {
            last_child.extend(ps.iter().map(|p| (*p, i)));
        }
        Range {
            commits,
            inside,
            last_child,
            last_seed,
        }
    }
}

/// A target's ancestors, parents before children, with the positions of their parents and each
/// one's root tree (read once with the commit, so no step reads a commit again).
#[derive(Debug, Default)]
struct Graph {
    order: Commits,
    trees: Vec<Oid>,
    at: HashMap<Oid, usize>,
    parents: Vec<Vec<usize>>,
}

impl Graph {
    /// The root tree of `commit`: from the graph when it is one of the target's ancestors.
    fn tree(&self, repo: &Repository, commit: Oid) -> Result<Oid, git2::Error> {
        match self.at.get(&commit) {
            Some(&i) => Ok(self.trees[i]),
            None => Ok(repo.find_commit(commit)?.tree_id()),
        }
    }
}

/// One entry of a folder: its object and kind.
type Entry = Option<(Oid, Option<ObjectType>)>;

/// A folder's entries, sorted by name: read from the object database once per run.
type Folder = Arc<[(Box<str>, Oid, Option<ObjectType>)]>;

/// Following files through renames, with what it has learned so far (shared by all workers).
#[derive(Debug, Default)]
pub struct Follower {
    /// Each answer, by (pin, target, path).
    answers: Mutex<HashMap<(Oid, Oid, String), Option<String>>>,
    /// Every rename in one commit's diff (old path → new path), by (parent, commit): the files of
    /// many pins are removed by the same few commits, whose rename detection runs once.
    commit_renames: Mutex<HashMap<(Oid, Oid), Arc<Renames>>>,
    /// The commits between a pin and the target, by (pin, target).
    ranges: Mutex<HashMap<(Oid, Oid), Arc<Range>>>,
    /// Each target's history (read once, however many pins are followed into it).
    graphs: Mutex<HashMap<Oid, Arc<Graph>>>,
    /// The folders read so far, by tree, each whole: the first walks of many paths
    /// pass through the same root and upper folders of every commit.
    entries: Mutex<HashMap<Oid, Folder>>,
}

impl Follower {
    /// Where `path` (a file at `from`, gone at `to`) is at `to`: its name there when the file was
    /// renamed (through any number of renames, on any branch merged on the way), `None` when it
    /// was deleted. When `to` is not a descendant of `from` (a target older than the pin), the two
    /// trees' own diff says.
    pub fn renamed(&self, repo: &Repository, from: Oid, to: Oid, path: &str) -> Option<String> {
        let key = (from, to, path.to_string());
        if let Some(r) = self.answers.lock().expect("renames lock").get(&key) {
            return r.clone();
        }
        let found = self.follow(repo, from, to, path);
        self.answers
            .lock()
            .expect("renames lock")
            .insert(key, found.clone());
        found
    }

    fn follow(&self, repo: &Repository, from: Oid, to: Oid, path: &str) -> Option<String> {
        let graph = self.graph(repo, to);
        let range = self.range(repo, &graph, from, to);
        if range.commits.is_empty() {
            return self.rename_in_commit(repo, &graph, from, to, path);
        }
        // The file's names in the commits reached whose children are still to come.
        let mut names: HashMap<Oid, Vec<String>> = HashMap::new();
        if range.last_child.contains_key(&from) {
            names.insert(from, vec![path.to_string()]);
        }
        let mut seeds: HashMap<Oid, bool> = HashMap::new();
        for (i, (commit, parents)) in range.commits.iter().enumerate() {
            let mut here: Vec<String> = Vec::new();
            for parent in parents {
                let before = match names.get(parent) {
                    Some(n) => n.clone(),
                    None if range.inside.contains(parent) || *parent == from => Vec::new(),
                    // A commit the pin descends from too (where a merged branch forked): the file
                    // at the same path there is the pin's file before the pin.
                    None => match *seeds
                        .entry(*parent)
                        .or_insert_with(|| self.is_file(repo, &graph, *parent, path))
                    {
                        true => vec![path.to_string()],
                        false => Vec::new(),
                    },
                };
                for name in before {
                    match self.step(repo, &graph, (*parent, *commit), &name) {
                        Some(next) if !here.contains(&next) => here.push(next),
                        _ => {}
                    }
                }
                if range.last_child.get(parent) == Some(&i) {
                    names.remove(parent);
                }
            }
            if !here.is_empty() {
                names.insert(*commit, here);
            } else if i >= range.last_seed && names.is_empty() {
                // Deleted on every side, and no branch left that could bring it back.
                return None;
            }
        }
        // Several names at the target (a file copied on two branches): the first parent's first.
        names.remove(&to)?.into_iter().next()
    }

    /// The file `name` of `parent`, in `commit`: still `name` when it is a file there, else its
    /// new name from `commit`'s renames against `parent`, else `None` (deleted). Nothing is kept
    /// per step: whether the name is kept is a few lookups of folder entries already read, and
    /// a commit's renames are kept per (parent, commit). (A memo per (parent, commit, path) held
    /// an entry for every commit every followed path passed: on a long history most of the
    /// follower's time was filling and freeing it, for steps no other walk asked again.)
    fn step(
        &self,
        repo: &Repository,
        graph: &Graph,
        (parent, commit): (Oid, Oid),
        name: &str,
    ) -> Option<String> {
        match self.kept(repo, graph, (parent, commit), name) {
            Ok(true) => Some(name.to_string()),
            Ok(false) => self.rename_in_commit(repo, graph, parent, commit, name),
            Err(_) => None,
        }
    }

    /// The new name of `path` in the diff `parent` → `commit`, from that diff's renames, detected
    /// once per pair of commits.
    fn rename_in_commit(
        &self,
        repo: &Repository,
        graph: &Graph,
        parent: Oid,
        commit: Oid,
        path: &str,
    ) -> Option<String> {
        let key = (parent, commit);
        let cached = (self.commit_renames.lock().expect("renames lock"))
            .get(&key)
            .cloned();
        let renames = match cached {
            Some(r) => r,
            None => {
                let trees = graph
                    .tree(repo, parent)
                    .and_then(|a| Ok((a, graph.tree(repo, commit)?)));
                let found = trees.and_then(|(a, b)| renames_between(repo, a, b));
                let found = Arc::new(found.unwrap_or_default());
                self.commit_renames
                    .lock()
                    .expect("renames lock")
                    .insert(key, found.clone());
                found
            }
        };
        renames.get(path).cloned()
    }

    /// The commits from `from` to `to` (cached): `to`'s ancestors that are not `from`'s, oldest
    /// first, each after its parents. Empty when `to` is `from` or one of its ancestors.
    fn range(&self, repo: &Repository, graph: &Graph, from: Oid, to: Oid) -> Arc<Range> {
        if let Some(r) = self.ranges.lock().expect("ranges lock").get(&(from, to)) {
            return r.clone();
        }
        let commits = match graph.at.get(&from) {
            // A pin in the target's history: everything but its own ancestors.
            Some(&pin) => {
                let mut older = vec![false; graph.order.len()];
                let mut stack = vec![pin];
                while let Some(i) = stack.pop() {
                    if !std::mem::replace(&mut older[i], true) {
                        stack.extend(&graph.parents[i]);
                    }
                }
                (graph.order.iter().zip(&older))
                    .filter(|(_, old)| !**old)
                    .map(|(c, _)| c.clone())
                    .collect()
            }
            None => walk(repo, Some(from), to).0,
        };
        let range = Arc::new(Range::new(commits));
        self.ranges
            .lock()
            .expect("ranges lock")
            .insert((from, to), range.clone());
        range
    }
}

impl Follower {
    /// `to`'s history (cached).
    fn graph(&self, repo: &Repository, to: Oid) -> Arc<Graph> {
        if let Some(g) = self.graphs.lock().expect("graphs lock").get(&to) {
            return g.clone();
        }
        let (order, trees) = walk(repo, None, to);
        let at: HashMap<Oid, usize> = (order.iter().enumerate()).map(|(i, c)| (c.0, i)).collect();
        let parents = (order.iter())
            .map(|(_, ps)| ps.iter().filter_map(|p| at.get(p).copied()).collect())
            .collect();
        let graph = Arc::new(Graph {
            order,
            trees,
            at,
            parents,
        });
        (self.graphs.lock().expect("graphs lock")).insert(to, graph.clone());
        graph
    }

    /// The entry `name` of the folder `tree`. The folder is read whole, once per run: the walks
    /// of paths in different folders ask the same upper folders (a root, `src`) of every commit
    /// for different names, and reading the tree again for each name was most of their time.
    fn entry(&self, repo: &Repository, tree: Oid, name: &str) -> Result<Entry, git2::Error> {
        let known = self
            .entries
            .lock()
            .expect("entries lock")
            .get(&tree)
            .cloned();
        let folder = match known {
            Some(f) => f,
            None => {
                let t = repo.find_tree(tree)?;
                let mut all: Vec<(Box<str>, Oid, Option<ObjectType>)> = (t.iter())
                    .filter_map(|e| Some((Box::from(e.name().ok()?), e.id(), e.kind())))
                    .collect();
                all.sort_unstable_by(|a, b| a.0.cmp(&b.0));
                let folder: Folder = all.into();
                (self.entries.lock().expect("entries lock")).insert(tree, folder.clone());
                folder
            }
        };
        let at = folder.binary_search_by(|e| (*e.0).cmp(name)).ok();
        Ok(at.map(|i| (folder[i].1, folder[i].2)))
    }

    /// Whether `path` is a file (a blob) at `commit`.
    fn is_file(&self, repo: &Repository, graph: &Graph, commit: Oid, path: &str) -> bool {
        let Ok(mut at) = graph.tree(repo, commit) else {
            return false;
        };
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            match (self.entry(repo, at, part), parts.peek()) {
                (Ok(Some((_, kind))), None) => return kind == Some(ObjectType::Blob),
                (Ok(Some((id, Some(ObjectType::Tree)))), Some(_)) => at = id,
                _ => return false,
            }
        }
        false
    }

    /// Whether the file `path` of `parent` is still a file at `commit`. Folder by folder from the
    /// root: where a folder's tree is the same in both, so is everything under it, and nothing
    /// more is read (most commits touch none of the followed path's folders).
    fn kept(
        &self,
        repo: &Repository,
        graph: &Graph,
        (parent, commit): (Oid, Oid),
        path: &str,
    ) -> Result<bool, git2::Error> {
        let mut was = Some(graph.tree(repo, parent)?);
        let mut now = graph.tree(repo, commit)?;
        let mut parts = path.split('/').peekable();
        while let Some(part) = parts.next() {
            if was == Some(now) {
                return Ok(true);
            }
            let Some((id, kind)) = self.entry(repo, now, part)? else {
                return Ok(false);
            };
            match (parts.peek().is_none(), kind) {
                (true, kind) => return Ok(kind == Some(ObjectType::Blob)),
                (false, Some(ObjectType::Tree)) => {}
                (false, _) => return Ok(false),
            }
            was = match was {
                Some(w) => self.entry(repo, w, part)?.map(|e| e.0),
                None => None,
            };
            now = id;
        }
        Ok(false)
    }
}

/// `to` and its ancestors that are not `hide`'s, parents before children, with their parents;
/// and each one's root tree.
fn walk(repo: &Repository, hide: Option<Oid>, to: Oid) -> (Commits, Vec<Oid>) {
    let (mut commits, mut trees) = (Commits::new(), Vec::new());
    if let Ok(mut walk) = repo.revwalk() {
        let ready = walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE).is_ok()
            && walk.push(to).is_ok()
            && hide.is_none_or(|h| walk.hide(h).is_ok());
        for id in walk.flatten().take_while(|_| ready) {
            if let Ok(c) = repo.find_commit(id) {
                commits.push((id, c.parent_ids().collect()));
                trees.push(c.tree_id());
            }
        }
    }
    (commits, trees)
}

/// Every rename git's rename detection finds between two trees: old path → new path.
pub fn renames_between(repo: &Repository, a: Oid, b: Oid) -> Result<Renames, git2::Error> {
    // A rename needs a deleted file: without one, the full diff and the added files' blobs are
    // not read at all (a commit that adds docs and removes nothing is the usual case).
    if !has_deletion(repo, a, b)? {
        return Ok(Renames::new());
    }
    let (a, b) = (repo.find_tree(a)?, repo.find_tree(b)?);
    let mut diff = repo.diff_tree_to_tree(Some(&a), Some(&b), None)?;
    // A rename needs a deleted file: without one, the added files' blobs are not read.
    if !diff.deltas().any(|d| d.status() == git2::Delta::Deleted) {
        return Ok(Renames::new());
    }
    let mut find = git2::DiffFindOptions::new();
    find.renames(true);
    diff.find_similar(Some(&mut find))?;
    let name = |f: git2::DiffFile<'_>| f.path().map(|p| p.to_string_lossy().replace('\\', "/"));
    Ok(diff
        .deltas()
        .filter(|d| d.status() == git2::Delta::Renamed)
        .filter_map(|d| Some((name(d.old_file())?, name(d.new_file())?)))
        .collect())
}

/// Whether a path of tree `a` is gone (or of another kind) in tree `b`: only folders whose tree
/// changed are read, each in one pass over both sorted entry lists.
fn has_deletion(repo: &Repository, a: Oid, b: Oid) -> Result<bool, git2::Error> {
    if a == b {
        return Ok(false);
    }
    let (ta, tb) = (repo.find_tree(a)?, repo.find_tree(b)?);
    let mut theirs = tb.iter().peekable();
    for e in ta.iter() {
        // Entries of `b` that sort before `e` were added: skip them.
        while theirs
            .peek()
            .is_some_and(|f| git_order(f, &e) == std::cmp::Ordering::Less)
        {
            theirs.next();
        }
        let Some(f) = theirs.next_if(|f| git_order(f, &e) == std::cmp::Ordering::Equal) else {
            return Ok(true);
        };
        if f.id() == e.id() {
            continue;
        }
        let gone = match (e.kind(), f.kind()) {
            (Some(ObjectType::Tree), Some(ObjectType::Tree)) => has_deletion(repo, e.id(), f.id())?,
            (x, y) => x != y,
        };
        if gone {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Git's order of tree entries: by name, a folder's name compared as if it ended in `/`.
fn git_order(x: &git2::TreeEntry<'_>, y: &git2::TreeEntry<'_>) -> std::cmp::Ordering {
    let tail = |e: &git2::TreeEntry<'_>| (e.kind() == Some(ObjectType::Tree)).then_some(&b'/');
    let nx = x.name_bytes().iter().chain(tail(x));
    nx.cmp(y.name_bytes().iter().chain(tail(y)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree from `path → content` (folders made as needed; content `/` makes an empty folder).
    fn tree(git: &Repository, files: &[(&str, &str)]) -> Oid {
        fn build(git: &Repository, files: &[(&str, &str)]) -> Oid {
            let mut here = git.treebuilder(None).unwrap();
            let mut folders: std::collections::BTreeMap<&str, Vec<(&str, &str)>> =
                Default::default();
            for (path, content) in files {
                match path.split_once('/') {
                    Some((dir, rest)) => folders.entry(dir).or_default().push((rest, content)),
                    None => {
                        let blob = git.blob(content.as_bytes()).unwrap();
                        here.insert(path, blob, 0o100644).unwrap();
                    }
                }
            }
            for (dir, inner) in folders {
                let inner: Vec<(&str, &str)> =
                    inner.into_iter().filter(|(p, _)| !p.is_empty()).collect();
                here.insert(dir, build(git, &inner), 0o040000).unwrap();
            }
            here.write().unwrap()
        }
        build(git, files)
    }

    #[test]
    fn a_deletion_is_found_in_one_pass_over_sorted_entries() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let base = [
            ("a.b", "1"),
            ("a/x.rs", "2"),
            ("a0", "3"),
            ("z/deep/y.rs", "4"),
        ];
        let t = |files: &[(&str, &str)]| tree(&git, files);
        let before = t(&base);
        // Added files and a changed file: nothing deleted.
        let added = t(&[
            ("a.b", "1"),
            ("a/x.rs", "2"),
            ("a/new.rs", "5"),
            ("a0", "3"),
            ("b", "6"),
            ("z/deep/y.rs", "4!"),
        ]);
        assert!(!has_deletion(&git, before, added).unwrap());
        // A file deleted deep down, next to added ones.
        let deep = t(&[
            ("a.b", "1"),
            ("a/x.rs", "2"),
            ("a0", "3"),
            ("z/deep/w.rs", "4"),
        ]);
        assert!(has_deletion(&git, before, deep).unwrap());
        // `a` (a folder) and `a.b`, `a0` (files) sort around each other; removing `a.b` is seen.
        let no_ab = t(&[("a/x.rs", "2"), ("a0", "3"), ("z/deep/y.rs", "4")]);
        assert!(has_deletion(&git, before, no_ab).unwrap());
        // A folder replaced by a file of the same name is a deletion.
        let kind = t(&[
            ("a.b", "1"),
            ("a", "file now"),
            ("a0", "3"),
            ("z/deep/y.rs", "4"),
        ]);
        assert!(has_deletion(&git, before, kind).unwrap());
        assert!(!has_deletion(&git, before, before).unwrap());
    }
}
