//! Where a file went between a pin and the target, as `git log --follow` finds it: the file is
//! followed commit by commit through the history between them, and each commit is compared with
//! each of its parents. A file that is still at its path in a commit keeps its name there; one
//! that is gone is looked for among that commit's renames (git's rename rule and similarity
//! score, 50%, on that commit's own diff, under `diff.renameLimit`: [`super::rename_rule`]);
//! else it was deleted on that side. Every parent of a
//! merge counts, so a rename made on a merged branch is followed; a path deleted and later
//! written again by an unrelated commit is not the same file (the follow ended at the deletion);
//! a chain of renames is followed to its end.
//!
//! The history is never diffed as a whole range (a file deleted in one commit and an unrelated
//! file added months later are not a rename). What it costs: whether a path is a file at each
//! commit is a column over the target's history (from the earliest commit a walk needs on),
//! computed once per path and shared by every pin's walk: a commit whose folder on the path is
//! the same tree as its parent's has the parent's answer, unread, and each version of a folder
//! on a followed path is read once per run (raw, into one buffer). A walk then compares small
//! numbers per commit. Rename detection runs only where the followed file is gone, once per pair
//! of commits and only when that diff deletes a file, on that diff limited to the files that
//! differ (libgit2 then reads only the folders they are in); each answer is kept per (pin,
//! target, path). The target's history is read once, with each commit's root tree; a range
//! keeps what every walk through it needs (its commits by position, where each commit's last
//! child is), and is taken from that history even for a pin outside it (a branch never merged:
//! only the branch's own commits are read).

use std::collections::HashMap as StdMap;

use foldhash::{HashMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock};

use git2::{ObjectType, Oid, Repository, Sort};

use super::folders::{git_order, Entry, Folder, Folders};
use super::rename_rule::{self, Lend, Side, Sides};
use crate::model::RenamesSkipped;

/// The renames of one diff: old path → new path.
pub(crate) type Renames = StdMap<String, String>;

/// Commits, parents before children, each with its parents.
type Commits = Vec<(Oid, Vec<Oid>)>;

/// A parent of a commit of a range, as a walk through the range sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Parent {
    /// A commit of the range, by its position there.
    Inside(usize),
    /// The pin itself.
    Pin,
    /// A commit the pin descends from too (where a merged branch forked), by its position in
    /// the target's history: the file at the same path there is the pin's file before the pin.
    Before(usize),
}

/// The commits a pin's files are followed through to reach the target (the target's ancestors
/// that are not the pin's, parents before children), by position in the target's history, with
/// what every walk through them needs: kept with the range, so the many paths of one pin share
/// it.
#[derive(Debug, Default)]
struct Range {
    /// Each commit: its position in the target's history, and where its parents are in
    /// `parents` (one list for the range: a range has thousands of commits).
    commits: Vec<(usize, (u32, u32))>,
    parents: Vec<Parent>,
    /// The position of the last commit of the range that has each commit of the range as a
    /// parent: a walk forgets a commit's names once past it.
    last_child: Vec<Option<usize>>,
    /// The same for the pin.
    pin_last_child: Option<usize>,
    /// The last commit with a parent outside the range: after it nothing new can start the file.
    last_seed: usize,
    /// The earliest position in the target's history a walk reads (the range's commits and
    /// their parents): the columns it looks at start there.
    first: usize,
}

impl Range {
    /// The range of the commits of `graph` not marked `older`, from the pin `from`: everything
    /// by position in the graph, no commit or parent looked up by ID.
    fn new(graph: &Graph, from: Oid, older: &[bool]) -> Range {
        let pin = graph.at.get(&from).copied();
        // Positions are numbered after the filter, so that `Inside` numbers what the walk walks.
        let mut place = vec![usize::MAX; older.len()];
        let mut range = Range::default();
        for g in (0..older.len()).filter(|&g| !older[g]) {
            place[g] = range.commits.len();
            let start = range.parents.len() as u32;
            range
                .parents
                .extend(graph.parents[g].iter().map(|&p| match place[p] {
                    usize::MAX if Some(p) == pin => Parent::Pin,
                    usize::MAX => Parent::Before(p),
                    k => Parent::Inside(k),
                }));
            range.commits.push((g, (start, range.parents.len() as u32)));
        }
        let mut last_child = vec![None; range.commits.len()];
        let mut first = range.commits.first().map_or(0, |c| c.0);
        for (i, &(at, (start, end))) in range.commits.iter().enumerate() {
            first = first.min(at);
            for p in &range.parents[start as usize..end as usize] {
                match *p {
                    Parent::Inside(k) => last_child[k] = Some(i),
                    Parent::Pin => range.pin_last_child = Some(i),
                    Parent::Before(g) => first = first.min(g),
                }
            }
        }
        (range.last_child, range.first) = (last_child, first);
        range.last_seed = (0..range.commits.len())
            .rposition(|i| {
                range
                    .parents_of(i)
                    .iter()
                    .any(|p| !matches!(p, Parent::Inside(_)))
            })
            .unwrap_or(0);
        range
    }

    /// The parents of the range's `i`th commit.
    fn parents_of(&self, i: usize) -> &[Parent] {
        let (start, end) = self.commits[i].1;
        &self.parents[start as usize..end as usize]
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
    /// Each folder at every commit from some position on, by folder path.
    folders: Mutex<HashMap<String, Arc<Column<Option<Folder>>>>>,
    /// Whether each path is a file at every commit from some position on.
    files: Mutex<HashMap<String, Arc<Column<bool>>>>,
}

impl Graph {
    /// Where `from`'s ancestry enters the target's history: `from` itself when it is there, else
    /// the first commits of it that are, found by reading the commits outside it (a pin on a
    /// branch never merged reads its branch's own commits, not the target's whole history again).
    fn entry_points(&self, repo: &Repository, from: Oid) -> Vec<usize> {
        let (mut inside, mut outside, mut seen) = (Vec::new(), vec![from], HashSet::default());
        while let Some(c) = outside.pop() {
            match self.at.get(&c) {
                Some(&i) => inside.push(i),
                None if seen.insert(c) => {
                    if let Ok(commit) = repo.find_commit(c) {
                        outside.extend(commit.parent_ids());
                    }
                }
                None => {}
            }
        }
        inside
    }

    /// The root tree of `commit`: from the graph when it is one of the target's ancestors.
    fn tree(&self, repo: &Repository, commit: Oid) -> Result<Oid, git2::Error> {
        match self.at.get(&commit) {
            Some(&i) => Ok(self.trees[i]),
            None => Ok(repo.find_commit(commit)?.tree_id()),
        }
    }
}

/// One value per commit of a target's history, from position `from` on (a walk reads the
/// commits after its pin only: a pin from last week costs a week of history).
#[derive(Debug)]
struct Column<T> {
    from: usize,
    values: Vec<T>,
}

impl<T> Column<T> {
    fn at(&self, i: usize) -> &T {
        &self.values[i - self.from]
    }
}

/// Following files through renames, with what it has learned so far (shared by all workers).
#[derive(Debug, Default)]
pub(crate) struct Follower {
    /// Each answer, by (pin, target, path).
    answers: Mutex<HashMap<(Oid, Oid, String), Option<String>>>,
    /// Every rename in one commit's diff (old path → new path), by (parent, commit): the files of
    /// many pins are removed by the same few commits, whose rename detection runs once.
    commit_renames: Mutex<HashMap<(Oid, Oid), Arc<Renames>>>,
    /// The commits between a pin and the target, by (pin, target).
    ranges: Mutex<HashMap<(Oid, Oid), Arc<Range>>>,
    /// Each target's history (read once, however many pins are followed into it).
    graphs: Mutex<HashMap<Oid, Arc<Graph>>>,
    /// The folders read so far (the session's): the columns of many paths read the same root
    /// and upper folders of every commit.
    folders: Arc<Folders>,
    /// The repository's `diff.renameLimit` (read once).
    limit: OnceLock<i64>,
    /// The commit whose rename detection went furthest past the limit, if any did.
    skipped: Mutex<Option<RenamesSkipped>>,
}

impl Follower {
    /// A follower reading folders through the session's `folders`.
    pub(crate) fn new(folders: Arc<Folders>) -> Follower {
        Follower {
            folders,
            ..Follower::default()
        }
    }

    /// Where `path` (a file at `from`, gone at `to`) is at `to`: its name there when the file was
    /// renamed (through any number of renames, on any branch merged on the way), `None` when it
    /// was deleted. When `to` is not a descendant of `from` (a target older than the pin), the two
    /// trees' own diff says. `lend` lends handles for reading a large commit's blobs on every
    /// core.
    pub(crate) fn renamed(
        &self,
        repo: &Repository,
        lend: Option<Lend<'_>>,
        from: Oid,
        to: Oid,
        path: &str,
    ) -> Option<String> {
        let key = (from, to, path.to_string());
        if let Some(r) = self.answers.lock().expect("renames lock").get(&key) {
            return r.clone();
        }
        let found = self.follow(repo, lend, from, to, path);
        self.answers
            .lock()
            .expect("renames lock")
            .insert(key, found.clone());
        found
    }

    /// The walk through the range, commit by commit: each commit's names of the file, from its
    /// parents' (a name that is a file there is kept, one that is not is looked for among that
    /// commit's renames). Whether a name is a file at a commit is read from its column, shared
    /// by every walk that asks.
    fn follow(
        &self,
        repo: &Repository,
        lend: Option<Lend<'_>>,
        from: Oid,
        to: Oid,
        path: &str,
    ) -> Option<String> {
        let graph = self.graph(repo, to);
        let range = self.range(repo, &graph, from, to);
        if range.commits.is_empty() {
            return self.rename_in_commit((repo, lend), &graph, from, to, path);
        }
        let mut known = Names::new(range.first);
        let file = known.id(self, repo, &graph, path);
        // The file's names in the commits reached whose children are still to come; the lists
        // of commits left behind are reused (a walk steps through thousands of commits).
        let mut names: Vec<Vec<u32>> = vec![Vec::new(); range.commits.len()];
        let mut spare: Vec<Vec<u32>> = Vec::new();
        let mut pin = match range.pin_last_child {
            Some(_) => vec![file],
            None => Vec::new(),
        };
        let mut live = pin.len();
        for (i, &(at, _)) in range.commits.iter().enumerate() {
            let mut here: Vec<u32> = spare.pop().unwrap_or_default();
            let commit = graph.order[at].0;
            for parent in range.parents_of(i) {
                let (before, id): (&[u32], Oid) = match *parent {
                    Parent::Inside(k) => (&names[k], graph.order[range.commits[k].0].0),
                    Parent::Pin => (&pin, from),
                    Parent::Before(g) => match known.is_file(file, g) {
                        true => (std::slice::from_ref(&file), graph.order[g].0),
                        false => (&[], graph.order[g].0),
                    },
                };
                for &name in before {
                    let next = match known.is_file(name, at) {
                        true => Some(name),
                        false => (self.rename_in_commit(
                            (repo, lend),
                            &graph,
                            id,
                            commit,
                            known.name(name),
                        ))
                        .map(|new| known.id(self, repo, &graph, &new)),
                    };
                    match next {
                        Some(next) if !here.contains(&next) => here.push(next),
                        _ => {}
                    }
                }
                let done = match *parent {
                    Parent::Inside(k) if range.last_child[k] == Some(i) => &mut names[k],
                    Parent::Pin if range.pin_last_child == Some(i) => &mut pin,
                    _ => continue,
                };
                live -= usize::from(!done.is_empty());
                let mut done = std::mem::take(done);
                done.clear();
                spare.push(done);
            }
            if !here.is_empty() {
                names[i] = here;
                live += 1;
            } else if i >= range.last_seed && live == 0 {
                // Deleted on every side, and no branch left that could bring it back.
                return None;
            } else {
                spare.push(here);
            }
        }
        // Several names at the target (a file copied on two branches): the first parent's first.
        let target = range
            .commits
            .iter()
            .rposition(|c| graph.order[c.0].0 == to)?;
        let first = *names[target].first()?;
        Some(known.name(first).to_string())
    }

    /// The new name of `path` in the diff `parent` → `commit`, from that diff's renames, detected
    /// once per pair of commits.
    fn rename_in_commit(
        &self,
        (repo, lend): (&Repository, Option<Lend<'_>>),
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
                let limit = *self
                    .limit
                    .get_or_init(|| rename_rule::configured_limit(repo));
                let found = trees
                    .and_then(|(a, b)| renames_between((repo, lend), &self.folders, a, b, limit))
                    .unwrap_or_default();
                if let Some(skip) = found.1 {
                    self.skipped_in(commit, skip);
                }
                let found = Arc::new(found.0);
                self.commit_renames
                    .lock()
                    .expect("renames lock")
                    .insert(key, found.clone());
                found
            }
        };
        renames.get(path).cloned()
    }

    /// Keep the skip that needs the highest limit (then the first commit by ID: whatever order
    /// the workers ask in, the run says the same).
    fn skipped_in(&self, commit: Oid, skip: RenamesSkipped) {
        let skip = RenamesSkipped {
            commit: Some(commit),
            ..skip
        };
        let mut kept = self.skipped.lock().expect("renames lock");
        let rank = |s: &RenamesSkipped| (s.needed, std::cmp::Reverse(s.commit));
        if kept.as_ref().is_none_or(|k| rank(&skip) > rank(k)) {
            *kept = Some(skip);
        }
    }

    /// Whether rename detection stopped at the rename limit in a commit a file was followed
    /// through: the commit that needed the highest limit.
    pub(crate) fn renames_skipped(&self) -> Option<RenamesSkipped> {
        *self.skipped.lock().expect("renames lock")
    }

    /// The commits from `from` to `to` (cached): `to`'s ancestors that are not `from`'s, oldest
    /// first, each after its parents. Empty when `to` is `from` or one of its ancestors.
    fn range(&self, repo: &Repository, graph: &Graph, from: Oid, to: Oid) -> Arc<Range> {
        if let Some(r) = self.ranges.lock().expect("ranges lock").get(&(from, to)) {
            return r.clone();
        }
        // Everything in the target's history but the pin's own ancestors.
        let mut older = vec![false; graph.order.len()];
        let mut stack = graph.entry_points(repo, from);
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut older[i], true) {
                stack.extend(&graph.parents[i]);
            }
        }
        let range = Arc::new(Range::new(graph, from, &older));
        self.ranges
            .lock()
            .expect("ranges lock")
            .insert((from, to), range.clone());
        range
    }
}

/// The names a walk has met (the path it follows, and what renames made of it), each with its
/// column: a walk's steps compare small numbers and read a column, nothing more.
struct Names {
    /// From where in the target's history the walk reads.
    first: usize,
    names: Vec<(String, Arc<Column<bool>>)>,
}

impl Names {
    fn new(first: usize) -> Names {
        Names {
            first,
            names: Vec::new(),
        }
    }

    /// The number of `name`, its column read (or computed) on first sight.
    fn id(&mut self, follower: &Follower, repo: &Repository, graph: &Graph, name: &str) -> u32 {
        if let Some(i) = self.names.iter().position(|(n, _)| n == name) {
            return i as u32;
        }
        let column = follower.file_column(repo, graph, name, self.first);
        self.names.push((name.to_string(), column));
        (self.names.len() - 1) as u32
    }

    fn name(&self, id: u32) -> &str {
        &self.names[id as usize].0
    }

    /// Whether the name is a file at the commit at position `at` of the target's history.
    fn is_file(&self, id: u32, at: usize) -> bool {
        *self.names[id as usize].1.at(at)
    }
}

impl Follower {
    /// `to`'s history (cached).
    fn graph(&self, repo: &Repository, to: Oid) -> Arc<Graph> {
        if let Some(g) = self.graphs.lock().expect("graphs lock").get(&to) {
            return g.clone();
        }
        let (order, trees) = walk(repo, to);
        let at: HashMap<Oid, usize> = (order.iter().enumerate()).map(|(i, c)| (c.0, i)).collect();
        let parents = (order.iter())
            .map(|(_, ps)| ps.iter().filter_map(|p| at.get(p).copied()).collect())
            .collect();
        let graph = Arc::new(Graph {
            order,
            trees,
            at,
            parents,
            ..Graph::default()
        });
        (self.graphs.lock().expect("graphs lock")).insert(to, graph.clone());
        graph
    }

    /// The folder `dir` (`""`: the root) at every commit of `graph` from position `first` on
    /// (cached, extended when a walk starts earlier).
    fn folder_column(
        &self,
        repo: &Repository,
        graph: &Graph,
        dir: &str,
        first: usize,
    ) -> Arc<Column<Option<Folder>>> {
        let known = graph
            .folders
            .lock()
            .expect("columns lock")
            .get(dir)
            .cloned();
        if let Some(c) = known.as_ref().filter(|c| c.from <= first) {
            return c.clone();
        }
        let column = match dir.rsplit_once('/').unwrap_or(("", dir)) {
            ("", "") => {
                let end = known.as_ref().map_or(graph.trees.len(), |k| k.from);
                let mut values: Vec<Option<Folder>> = (graph.trees[first..end].iter())
                    .map(|t| self.folders.read(repo, *t).ok())
                    .collect();
                values.extend(known.iter().flat_map(|k| k.values.iter().cloned()));
                Column {
                    from: first,
                    values,
                }
            }
            (up, name) => {
                let above = self.folder_column(repo, graph, up, first);
                let mut near = 0;
                extend(graph, &above, known.as_deref(), first, |folder, before| {
                    match find(folder, name, &mut near) {
                        // Most changes of a folder leave a given subfolder as it was.
                        Some((id, ObjectType::Tree)) => match before {
                            Some(Some(f)) if f.id == id => Some(f.clone()),
                            _ => self.folders.read(repo, id).ok(),
                        },
                        _ => None,
                    }
                })
            }
        };
        let column = Arc::new(column);
        (graph.folders.lock().expect("columns lock")).insert(dir.to_string(), column.clone());
        column
    }

    /// Whether `path` is a file (a blob) at every commit of `graph` from position `first` on
    /// (cached, extended when a walk starts earlier).
    fn file_column(
        &self,
        repo: &Repository,
        graph: &Graph,
        path: &str,
        first: usize,
    ) -> Arc<Column<bool>> {
        let known = graph.files.lock().expect("columns lock").get(path).cloned();
        if let Some(c) = known.as_ref().filter(|c| c.from <= first) {
            return c.clone();
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
        let folder = self.folder_column(repo, graph, dir, first);
        let mut near = 0;
        let column = Arc::new(extend(graph, &folder, known.as_deref(), first, |f, _| {
            matches!(find(f, name, &mut near), Some((_, ObjectType::Blob)))
        }));
        (graph.files.lock().expect("columns lock")).insert(path.to_string(), column.clone());
        column
    }
}

/// The entry `name` of a folder: its object and kind. `near` is where it was in the last
/// folder searched (the same folder one commit earlier, usually): looked at first.
fn find(folder: &Folder, name: &str, near: &mut usize) -> Option<(Oid, ObjectType)> {
    let at = match folder.get(*near) {
        Some(e) if e.name == name.as_bytes() => *near,
        _ => folder.position(name.as_bytes())?,
    };
    *near = at;
    let e = folder.get(at)?;
    Some((e.id(), e.kind()))
}

/// A column from position `first` on, of what `read` says of each commit's folder in `folder` (a
/// column from `first` on), given the first parent's value: a commit whose folder is the same as
/// a parent's has that parent's value, unread; a commit without the folder has `T::default()`.
/// What `known` already holds (from a later position on) is kept, not read again.
fn extend<T: Clone + Default>(
    graph: &Graph,
    folder: &Column<Option<Folder>>,
    known: Option<&Column<T>>,
    first: usize,
    mut read: impl FnMut(&Folder, Option<&T>) -> T,
) -> Column<T> {
    let end = known.map_or(graph.order.len(), |k| k.from);
    let mut values: Vec<T> = Vec::with_capacity(graph.order.len() - first);
    for i in first..end {
        let value = match folder.at(i) {
            None => T::default(),
            Some(here) => {
                let same = (graph.parents[i].iter()).find(|&&p| {
                    p >= first && folder.at(p).as_ref().is_some_and(|f| Arc::ptr_eq(f, here))
                });
                let before = (graph.parents[i].first()).filter(|&&p| p >= first);
                match same {
                    Some(&p) => values[p - first].clone(),
                    None => read(here, before.map(|&p| &values[p - first])),
                }
            }
        };
        values.push(value);
    }
    if let Some(k) = known {
        values.extend_from_slice(&k.values);
    }
    Column {
        from: first,
        values,
    }
}

/// `to` and its ancestors, parents before children, with their parents; and each one's root
/// tree. Each commit object is read raw, once, for its tree and parents (libgit2's revwalk
/// parsed every commit whole, then each was looked up again). Any order with parents before
/// children gives a walk the same answers: a commit's names come from its parents' alone.
fn walk(repo: &Repository, to: Oid) -> (Commits, Vec<Oid>) {
    if grafted(repo) {
        return walk_grafted(repo, to);
    }
    let Ok(odb) = repo.odb() else {
        return (Commits::new(), Vec::new());
    };
    let read = |id: Oid| -> Option<(Oid, Vec<Oid>)> {
        match odb.read(id) {
            Ok(raw) if raw.kind() == ObjectType::Commit => match header(raw.data()) {
                Some(header) => Some(header),
                // What this parse does not know, libgit2 reads.
                None => repo
                    .find_commit(id)
                    .ok()
                    .map(|c| (c.tree_id(), c.parent_ids().collect())),
            },
            _ => None,
        }
    };
    let (mut commits, mut trees) = (Commits::new(), Vec::new());
    // Depth first from `to`: a commit is placed once all its parents are.
    let mut seen: HashSet<Oid> = HashSet::default();
    let mut stack: Vec<(Oid, Oid, Vec<Oid>, usize)> = Vec::new();
    if let Some((tree, parents)) = read(to) {
        seen.insert(to);
        stack.push((to, tree, parents, 0));
    }
    while let Some(top) = stack.last_mut() {
        let Some(&parent) = top.2.get(top.3) else {
            let (id, tree, parents, _) = stack.pop().expect("not empty");
            commits.push((id, parents));
            trees.push(tree);
            continue;
        };
        top.3 += 1;
        if !seen.insert(parent) {
            continue;
        }
        if let Some((tree, parents)) = read(parent) {
            stack.push((parent, tree, parents, 0));
        }
    }
    (commits, trees)
}

/// A commit object's tree and parents, from its header (`tree`, then `parent` lines); `None`
/// when it does not start so.
fn header(data: &[u8]) -> Option<(Oid, Vec<Oid>)> {
    let mut lines = data.split(|&b| b == b'\n');
    let id = |line: &[u8], key: &[u8]| -> Option<Oid> {
        let hex = line.strip_prefix(key)?;
        Oid::from_str(std::str::from_utf8(hex).ok()?)
            .ok()
            .filter(|_| hex.len() == 40)
    };
    let tree = id(lines.next()?, b"tree ")?;
    let mut parents = Vec::new();
    for line in lines {
        match id(line, b"parent ") {
            Some(p) => parents.push(p),
            None if line.starts_with(b"parent ") => return None,
            None => break,
        }
    }
    Some((tree, parents))
}

/// Whether libgit2 gives some commits other parents than their objects hold (a shallow
/// clone's boundary, `info/grafts`).
fn grafted(repo: &Repository) -> bool {
    repo.is_shallow() || repo.commondir().join("info").join("grafts").exists()
}

/// [`walk`] through libgit2's revwalk, which applies grafts.
fn walk_grafted(repo: &Repository, to: Oid) -> (Commits, Vec<Oid>) {
    let (mut commits, mut trees) = (Commits::new(), Vec::new());
    if let Ok(mut walk) = repo.revwalk() {
        let ready =
            walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE).is_ok() && walk.push(to).is_ok();
        for id in walk.flatten().take_while(|_| ready) {
            if let Ok(c) = repo.find_commit(id) {
                commits.push((id, c.parent_ids().collect()));
                trees.push(c.tree_id());
            }
        }
    }
    (commits, trees)
}

/// Every rename git's rename detection finds between two trees, as `git diff --find-renames`
/// pairs them under the rename limit `limit` ([`super::rename_rule`]): old path → new path, and
/// whether the limit stopped the inexact pass. Folders are read through `folders` (and kept
/// there); a large matrix's blobs through handles `lend` lends too, when it is given.
pub fn renames_between(
    (repo, lend): (&Repository, Option<Lend<'_>>),
    folders: &Folders,
    a: Oid,
    b: Oid,
    limit: i64,
) -> Result<(Renames, Option<RenamesSkipped>), git2::Error> {
    // A rename needs a deleted file: without one, the diff and the added files' blobs are not
    // read at all (a commit that adds docs and removes nothing is the usual case).
    let Some(sides) = deleted_and_added(repo, folders, a, b)? else {
        return Ok((Renames::new(), None));
    };
    let found = rename_rule::find(repo, lend, &sides.deleted, &sides.added, limit)?;
    Ok((named(&sides, &found), found.skipped))
}

/// The pairs `found` among `sides`, by path.
fn named(sides: &Sides, found: &rename_rule::Found) -> Renames {
    (found.pairs.iter())
        .map(|&(s, t)| (sides.deleted[s].path.clone(), sides.added[t].path.clone()))
        .collect()
}

/// The files deleted and the files added between trees `a` and `b` (a path of another kind on
/// each side is both), in diff order; `None` when nothing of `a` is gone from `b`.
pub(crate) fn deleted_and_added(
    repo: &Repository,
    folders: &Folders,
    a: Oid,
    b: Oid,
) -> Result<Option<Sides>, git2::Error> {
    Ok(changed_files_diff(repo, folders, a, b)?.map(|diff| sides_of(&diff)))
}

/// The files `diff` deletes and adds.
fn sides_of(diff: &git2::Diff<'_>) -> Sides {
    let side = |f: git2::DiffFile<'_>| {
        Some(Side {
            path: f.path()?.to_string_lossy().replace('\\', "/"),
            blob: f.id(),
            mode: u32::from(f.mode()),
        })
    };
    let mut sides = Sides::default();
    for d in diff.deltas() {
        match d.status() {
            git2::Delta::Deleted => sides.deleted.extend(side(d.old_file())),
            git2::Delta::Added => sides.added.extend(side(d.new_file())),
            _ => {}
        }
    }
    sides
}

/// The diff of trees `a` and `b` limited to the files that differ (the same deltas as the whole
/// trees' diff, and libgit2 reads no folder that no changed file is in); `None` when nothing of
/// `a` is gone from `b`.
fn changed_files_diff<'r>(
    repo: &'r Repository,
    folders: &Folders,
    a: Oid,
    b: Oid,
) -> Result<Option<git2::Diff<'r>>, git2::Error> {
    let mut changed = Changes::new(repo, folders);
    changed.between(a, b, &mut Vec::new())?;
    if !changed.deleted {
        return Ok(None);
    }
    let mut opts = git2::DiffOptions::new();
    opts.disable_pathspec_match(true);
    for path in changed.paths {
        opts.pathspec(path);
    }
    let (a, b) = (repo.find_tree(a)?, repo.find_tree(b)?);
    repo.diff_tree_to_tree(Some(&a), Some(&b), Some(&mut opts))
        .map(Some)
}

/// What differs between two trees, read only where a folder's tree changed (each folder in one
/// pass over both sorted entry lists).
struct Changes<'a> {
    repo: &'a Repository,
    folders: &'a Folders,
    /// Every file (or submodule) whose entry differs, by its object or mode, or is on one side
    /// only. Only files are listed, never a folder: libgit2's walk of a path list loses a folder
    /// listed as `a` once it has passed `a-b/x` (`a-b` sorts before `a/`).
    paths: Vec<Vec<u8>>,
    /// Whether a path of the first tree is gone from the second, or of another kind there.
    deleted: bool,
}

impl<'a> Changes<'a> {
    fn new(repo: &'a Repository, folders: &'a Folders) -> Self {
        Changes {
            repo,
            folders,
            paths: Vec::new(),
            deleted: false,
        }
    }

    fn folder(&self, tree: Oid) -> Result<Folder, git2::Error> {
        self.folders.read(self.repo, tree)
    }

    /// The changes from tree `a` to tree `b`, both in the folder `prefix` (`a/b/`, or empty).
    fn between(&mut self, a: Oid, b: Oid, prefix: &mut Vec<u8>) -> Result<(), git2::Error> {
        if a == b {
            return Ok(());
        }
        let (ta, tb) = (self.folder(a)?, self.folder(b)?);
        let mut theirs = tb.iter().peekable();
        for e in ta.iter() {
            // Entries of `b` that sort before `e` were added.
            while let Some(f) = theirs.next_if(|f| git_order(f, &e) == std::cmp::Ordering::Less) {
                self.files(prefix, &f)?;
            }
            let Some(f) = theirs.next_if(|f| git_order(f, &e) == std::cmp::Ordering::Equal) else {
                self.files(prefix, &e)?;
                self.deleted = true;
                continue;
            };
            if f.same(&e) {
                continue;
            }
            match (e.kind(), f.kind()) {
                (ObjectType::Tree, ObjectType::Tree) => {
                    self.inside(prefix, &e, |c, p| c.between(e.id(), f.id(), p))?
                }
                (x, y) => {
                    self.files(prefix, &e)?;
                    self.deleted |= x != y;
                }
            }
        }
        for f in theirs {
            self.files(prefix, &f)?;
        }
        Ok(())
    }

    /// The entry's path, or every file under it when it is a folder.
    fn files(&mut self, prefix: &mut Vec<u8>, e: &Entry<'_>) -> Result<(), git2::Error> {
        if e.kind() != ObjectType::Tree {
            self.paths.push([prefix, e.name].concat());
            return Ok(());
        }
        self.inside(prefix, e, |c, p| {
            let folder = c.folder(e.id())?;
            let files = folder.iter().try_for_each(|inner| c.files(p, &inner));
            files
        })
    }

    /// `step` with the folder `e` appended to the prefix.
    fn inside<F>(&mut self, prefix: &mut Vec<u8>, e: &Entry<'_>, step: F) -> Result<(), git2::Error>
    where
        F: FnOnce(&mut Changes<'a>, &mut Vec<u8>) -> Result<(), git2::Error>,
    {
        let len = prefix.len();
        prefix.extend_from_slice(e.name);
        prefix.push(b'/');
        let done = step(self, prefix);
        prefix.truncate(len);
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::{Path, PathBuf};

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

    /// A linear history, one commit per tree (each `(path, content)` list), oldest first.
    fn history(git: &Repository, states: &[&[(&str, &str)]]) -> Vec<Oid> {
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(0, 0)).unwrap();
        let mut commits: Vec<Oid> = Vec::new();
        for files in states {
            let tree = git.find_tree(tree(git, files)).unwrap();
            let parent = commits.last().map(|c| git.find_commit(*c).unwrap());
            let parents: Vec<&git2::Commit<'_>> = parent.iter().collect();
            commits.push(git.commit(None, &sig, &sig, "c", &tree, &parents).unwrap());
        }
        commits
    }

    #[test]
    fn an_entry_is_found_in_a_folder_as_libgit2_finds_it() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let id = tree(
            &git,
            &[
                ("b.rs", "1"),
                ("a/x.rs", "2"),
                ("a.b", "3"),
                ("é z", "4"),
                ("a-b/y.rs", "5"),
                ("a0", "6"),
            ],
        );
        let folder = Folders::default().read(&git, id).unwrap();
        let t = git.find_tree(id).unwrap();
        assert_eq!(folder.len(), t.len());
        for e in t.iter() {
            let mut near = 0;
            let found = find(&folder, e.name().unwrap(), &mut near);
            assert_eq!(found, Some((e.id(), e.kind().unwrap())), "{:?}", e.name());
        }
        assert_eq!(find(&folder, "a/x.rs", &mut 0), None);
        assert_eq!(find(&folder, "a-", &mut 0), None);
        // The hint is only a hint: a wrong one is searched past.
        let mut near = 0;
        assert_eq!(
            find(&folder, "a0", &mut near),
            Some((t.get_name("a0").unwrap().id(), ObjectType::Blob))
        );
        assert_eq!(folder.get(near).unwrap().name, b"a0");
    }

    #[test]
    fn a_column_started_later_is_extended_to_the_same_values() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let keep = ("src/keep.rs", "k");
        let f = ("src/f.rs", "fn f() {}");
        let commits = history(
            &git,
            &[
                &[keep],
                &[keep, f],
                &[keep, f, ("src/g.rs", "g")],
                &[keep, ("src/g.rs", "g")],
                &[keep, f],
                &[keep],
            ],
        );
        let to = *commits.last().unwrap();
        let follower = Follower::default();
        let graph = follower.graph(&git, to);
        let at = |c: Oid| graph.at[&c];
        let late = follower.file_column(&git, &graph, "src/f.rs", at(commits[3]));
        assert_eq!(late.from, at(commits[3]));
        let early = follower.file_column(&git, &graph, "src/f.rs", at(commits[1]));
        let fresh = Follower::default();
        let fresh_graph = fresh.graph(&git, to);
        let whole = fresh.file_column(&git, &fresh_graph, "src/f.rs", at(commits[1]));
        assert_eq!(early.from, whole.from);
        assert_eq!(early.values, whole.values);
        let expected: Vec<bool> = (1..commits.len()).map(|i| [1, 2, 4].contains(&i)).collect();
        let by_commit: Vec<bool> = commits[1..].iter().map(|c| *early.at(at(*c))).collect();
        assert_eq!(by_commit, expected);
        // Deleted at the fourth commit: written again later, it is not the same file.
        assert_eq!(
            follower.renamed(&git, None, commits[2], to, "src/f.rs"),
            None
        );
        assert_eq!(
            follower.renamed(&git, None, commits[4], to, "src/f.rs"),
            None
        );
    }

    /// The renames of the two trees' whole diff, as libgit2 finds them without a path list.
    fn renames_of_whole_diff(git: &Repository, a: Oid, b: Oid) -> Renames {
        let (a, b) = (git.find_tree(a).unwrap(), git.find_tree(b).unwrap());
        let diff = git.diff_tree_to_tree(Some(&a), Some(&b), None).unwrap();
        let sides = sides_of(&diff);
        let found = rename_rule::find(git, None, &sides.deleted, &sides.added, 0).unwrap();
        named(&sides, &found)
    }

    fn between(git: &Repository, a: Oid, b: Oid) -> Renames {
        renames_between((git, None), &Folders::default(), a, b, 0)
            .unwrap()
            .0
    }

    #[test]
    fn the_diff_limited_to_changed_paths_finds_the_whole_diffs_renames() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let body = |n: usize| {
            (0..40)
                .map(|i| format!("line {i} of {n}\n"))
                .collect::<String>()
        };
        let (f1, f2, f3) = (body(1), body(2), body(3));
        let edited = f1.replace("line 3 of 1", "line three");
        let states: Vec<Vec<(&str, &str)>> = vec![
            vec![
                ("a/x.rs", &f1),
                ("a.b", &f2),
                ("a0", "z"),
                ("deep/er/y.rs", &f3),
            ],
            // A rename with an edit into a folder that sorts around `a` (`a-b/`), and a file added.
            vec![
                ("a-b/x.rs", &edited),
                ("a.b", &f2),
                ("a0", "z"),
                ("deep/er/y.rs", &f3),
                ("n", "n"),
            ],
            // Two renames at once, one deep; an unrelated file deleted.
            vec![
                ("a-b/x2.rs", &edited),
                ("b.b", &f2),
                ("a0", "z"),
                ("deep/y.rs", &f3),
            ],
            // A folder replaced by a file of its name, and a file by a folder.
            vec![
                ("a-b", "file"),
                ("b.b/inner.rs", &f2),
                ("a0", "z"),
                ("deep/y.rs", &f3),
                ("x2.rs", &edited),
            ],
            // Two equally good targets for one deleted file.
            vec![("c1", &f3), ("c2", &f3), ("a0", "z"), ("x2.rs", &edited)],
        ];
        let trees: Vec<Oid> = states.iter().map(|s| tree(&git, s)).collect();
        let mut renamed = 0;
        for &a in &trees {
            for &b in &trees {
                let whole = renames_of_whole_diff(&git, a, b);
                assert_eq!(between(&git, a, b), whole);
                renamed += whole.len();
            }
        }
        assert!(renamed >= 10, "the fixture has renames to find ({renamed})");
    }

    /// A diff's deltas: status, old path, new path.
    fn deltas(diff: &git2::Diff<'_>) -> Vec<(git2::Delta, Option<PathBuf>, Option<PathBuf>)> {
        let path = |f: git2::DiffFile<'_>| f.path().map(Path::to_path_buf);
        (diff.deltas())
            .map(|d| (d.status(), path(d.old_file()), path(d.new_file())))
            .collect()
    }

    /// A random folder: names that sort around each other (`a`, `a-b`, `a.b`, `a0`), each a file
    /// (one of a few contents) or a folder (named with a trailing `/`).
    fn random_folder() -> impl Strategy<Value = Vec<(String, u8)>> {
        let names = prop::sample::subsequence(vec!["a", "a-b", "a.b", "a0", "b", "a b"], 0..5);
        let kinds = prop::collection::vec((0u8..5, any::<bool>()), 6);
        (names, kinds).prop_map(|(names, kinds)| {
            (names.into_iter().zip(kinds))
                .map(|(n, (content, folder))| match folder {
                    true => (format!("{n}/"), 0),
                    false => (n.to_string(), content),
                })
                .collect()
        })
    }

    /// The tree of random files: the root and then each folder met is filled from the next of
    /// `levels` (folders left over stay out), the files' contents long enough for rename
    /// detection to pair them.
    fn random_tree(git: &Repository, levels: &[Vec<(String, u8)>]) -> Oid {
        let body = |c: u8| {
            (0..30)
                .map(|i| format!("row {i} {}\n", i * c as usize))
                .collect::<String>()
        };
        let mut files: Vec<(String, String)> = Vec::new();
        let mut folders = vec![String::new()];
        for level in levels {
            let Some(prefix) = folders.pop() else { break };
            for (name, content) in level {
                match name.strip_suffix('/') {
                    Some(dir) => folders.push(format!("{prefix}{dir}/")),
                    None => files.push((format!("{prefix}{name}"), body(*content))),
                }
            }
        }
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str()))
            .collect();
        tree(git, &files)
    }

    #[test]
    fn the_changed_files_diff_has_the_whole_diffs_deltas_on_random_trees() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let levels = || prop::collection::vec(random_folder(), 1..6);
        let mut runner = proptest::test_runner::TestRunner::default();
        let (compared, renamed) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
        runner
            .run(&(levels(), levels()), |(x, y)| {
                let (a, b) = (random_tree(&git, &x), random_tree(&git, &y));
                let (ta, tb) = (git.find_tree(a).unwrap(), git.find_tree(b).unwrap());
                let whole = git.diff_tree_to_tree(Some(&ta), Some(&tb), None).unwrap();
                if let Some(limited) = changed_files_diff(&git, &Folders::default(), a, b).unwrap()
                {
                    prop_assert_eq!(deltas(&limited), deltas(&whole));
                    compared.set(compared.get() + 1);
                }
                let expected = renames_of_whole_diff(&git, a, b);
                renamed.set(renamed.get() + usize::from(!expected.is_empty()));
                prop_assert_eq!(between(&git, a, b), expected);
                Ok(())
            })
            .unwrap();
        let (compared, renamed) = (compared.get(), renamed.get());
        assert!(
            compared > 50 && renamed > 10,
            "{compared} diffs, {renamed} with renames"
        );
    }

    #[test]
    fn the_history_is_read_as_libgit2_walks_it() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(0, 0)).unwrap();
        let commit = |n: &str, parents: &[Oid]| {
            let tree = git.find_tree(tree(&git, &[("f", n)])).unwrap();
            let parents: Vec<git2::Commit<'_>> = parents
                .iter()
                .map(|p| git.find_commit(*p).unwrap())
                .collect();
            let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
            git.commit(None, &sig, &sig, n, &tree, &parents).unwrap()
        };
        // Two branches merged twice, a third merged with them in one octopus merge, and a
        // second root merged in.
        let root = commit("root", &[]);
        let (mut a, mut b) = (commit("a1", &[root]), commit("b1", &[root]));
        let m1 = commit("m1", &[a, b]);
        a = commit("a2", &[m1]);
        b = commit("b2", &[b]);
        let c = commit("c1", &[m1]);
        let other = commit("other", &[]);
        let octopus = commit("octopus", &[a, b, c, other]);
        let to = commit("top", &[octopus, b]);
        let by_id = |(commits, trees): (Commits, Vec<Oid>)| {
            assert_eq!(commits.len(), trees.len());
            let mut seen = HashSet::default();
            for (id, parents) in &commits {
                // Parents before children.
                assert!(
                    parents.iter().all(|p| seen.contains(p)),
                    "{id} before a parent"
                );
                seen.insert(*id);
            }
            let all: Vec<_> = commits.into_iter().zip(trees).collect();
            all.into_iter()
                .map(|((id, ps), t)| (id, (ps, t)))
                .collect::<std::collections::BTreeMap<_, _>>()
        };
        let read = by_id(walk(&git, to));
        assert_eq!(read.len(), 10);
        assert_eq!(read, by_id(walk_grafted(&git, to)));
        assert_eq!(read[&octopus].0, vec![a, b, c, other]);
        // A shallow clone's boundary has no parents, as libgit2 says (its grafts).
        std::fs::write(dir.path().join(".git/shallow"), format!("{m1}\n")).unwrap();
        let shallow = Repository::open(dir.path()).unwrap();
        let read = by_id(walk(&shallow, to));
        assert_eq!(read, by_id(walk_grafted(&shallow, to)));
        assert!(read[&m1].0.is_empty());
        assert_eq!(read.len(), 9, "a1 is behind the boundary only");
    }

    #[test]
    fn a_commit_header_gives_its_tree_and_parents_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(0, 0)).unwrap();
        let tree = git.find_tree(tree(&git, &[("f", "x")])).unwrap();
        let one = git.commit(None, &sig, &sig, "one", &tree, &[]).unwrap();
        let one_c = git.find_commit(one).unwrap();
        let two = git
            .commit(None, &sig, &sig, "two", &tree, &[&one_c, &one_c])
            .unwrap();
        // Real commit objects are parsed here, not handed to libgit2 (the walk's fallback).
        let raw = |id: Oid| git.odb().unwrap().read(id).unwrap().data().to_vec();
        assert_eq!(header(&raw(one)), Some((tree.id(), vec![])));
        assert_eq!(header(&raw(two)), Some((tree.id(), vec![one, one])));
        let t = tree.id();
        for odd in [
            format!("parent {one}\ntree {t}\n"),
            format!("tree {t}\nparent {}\n", &one.to_string()[..39]),
            format!("tree {t}x\n"),
            String::new(),
        ] {
            assert_eq!(header(odd.as_bytes()), None, "{odd:?}");
        }
    }

    #[test]
    fn a_pin_on_a_branch_never_merged_is_followed_from_where_it_forked() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let body = (0..20).map(|i| format!("line {i}\n")).collect::<String>();
        let (f, gone) = (("src/f.rs", body.as_str()), ("src/gone.rs", "old"));
        // Main: `f` renamed to `g` (and `gone` deleted) after the fork.
        let main = history(
            &git,
            &[
                &[("base", "0"), f, gone],
                &[("base", "1"), f, gone],
                &[("base", "1"), ("src/g.rs", &body)],
                &[("base", "2"), ("src/g.rs", &body)],
            ],
        );
        // A branch from the second commit, two commits of its own, never merged.
        let sig = git2::Signature::new("t", "t@example.com", &git2::Time::new(0, 0)).unwrap();
        let mut branch = main[1];
        for n in ["b1", "b2"] {
            let files = [("base", "1"), f, gone, ("src/branch.rs", n)];
            let tree = git.find_tree(tree(&git, &files)).unwrap();
            let parent = git.find_commit(branch).unwrap();
            branch = git.commit(None, &sig, &sig, n, &tree, &[&parent]).unwrap();
        }
        let to = main[3];
        let follower = Follower::default();
        assert_eq!(
            follower
                .renamed(&git, None, branch, to, "src/f.rs")
                .as_deref(),
            Some("src/g.rs")
        );
        assert_eq!(
            follower.renamed(&git, None, branch, to, "src/gone.rs"),
            None
        );
        // The range is the target's commits the pin does not descend from, as a revision walk
        // of the target hiding the pin lists them.
        let graph = follower.graph(&git, to);
        let range = follower.range(&git, &graph, branch, to);
        let listed: Vec<Oid> = range.commits.iter().map(|c| graph.order[c.0].0).collect();
        let mut walk = git.revwalk().unwrap();
        walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE).unwrap();
        walk.push(to).unwrap();
        walk.hide(branch).unwrap();
        assert_eq!(listed, walk.map(Result::unwrap).collect::<Vec<_>>());
        assert_eq!(listed, main[2..].to_vec());
        // A target older than the pin (the pin descends from it): nothing to walk.
        let older = follower.graph(&git, main[1]);
        assert!(follower
            .range(&git, &older, branch, main[1])
            .commits
            .is_empty());
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
        let deleted = |a: Oid, b: Oid| {
            let folders = Folders::default();
            let mut changed = Changes::new(&git, &folders);
            changed.between(a, b, &mut Vec::new()).unwrap();
            changed.deleted
        };
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
        assert!(!deleted(before, added));
        // A file deleted deep down, next to added ones.
        let deep = t(&[
            ("a.b", "1"),
            ("a/x.rs", "2"),
            ("a0", "3"),
            ("z/deep/w.rs", "4"),
        ]);
        assert!(deleted(before, deep));
        // `a` (a folder) and `a.b`, `a0` (files) sort around each other; removing `a.b` is seen.
        let no_ab = t(&[("a/x.rs", "2"), ("a0", "3"), ("z/deep/y.rs", "4")]);
        assert!(deleted(before, no_ab));
        // A folder replaced by a file of the same name is a deletion.
        let kind = t(&[
            ("a.b", "1"),
            ("a", "file now"),
            ("a0", "3"),
            ("z/deep/y.rs", "4"),
        ]);
        assert!(deleted(before, kind));
        assert!(!deleted(before, before));
    }
}
