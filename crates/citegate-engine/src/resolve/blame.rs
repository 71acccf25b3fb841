//! Blame, as `git blame` computes it with default options: the commit that wrote each line of a
//! doc. It is how an unpinned citation gets its implied pin (see [`crate::audit::history`]).
//!
//! Starting from the commit a doc is blamed from, each line is passed back through the history:
//! to a parent whose doc is the same blob (all lines at once, nothing read), else, parent by
//! parent in order, to the first parent the line is unchanged from in the diff parent → commit
//! (Myers with the indent heuristic, git's default, through `gix-imara-diff`). A line no parent
//! passes it on to was written by that commit. A doc missing in a parent is looked for under its
//! old name there: the deleted file git's rename rule pairs with it, the doc the only added file
//! looked at, as `git blame` follows one file ([`super::rename_rule`]). The doc as it is on disk is diffed against
//! the blamed commit's the same way: lines that commit does not hold (uncommitted edits) have no
//! commit.
//!
//! All docs are blamed in one walk of the history, newest commit first: a commit is read once for
//! every doc that passes through it, and what is kept is only the lines in flight, by the commit
//! that holds them now. Nothing read is memoised across commits, so memory is bounded by the doc
//! versions in flight, not by the length of the history.

use std::collections::hash_map::Entry;
use std::collections::{btree_map, BTreeMap, BinaryHeap, HashMap};
use std::path::Path;
use std::rc::Rc;

use git2::{ObjectType, Oid, Repository};
use gix_imara_diff::{Algorithm, Diff, InternedInput};

use super::folders::Folders;
use super::rename_rule::{self, Sides, GIT_RENAME_LIMIT};
use super::renames::deleted_and_added;
pub use super::repo::ObjectError;

/// One doc to blame.
#[derive(Debug, Clone)]
pub struct Job<'a> {
    /// The doc's path in the repository, `/`-separated.
    pub path: String,
    /// The commit to blame from (it holds the doc).
    pub newest: Oid,
    /// The doc's text as it is on disk (or in the editor).
    pub text: &'a [u8],
    /// The blob ID of `text` when Git's index vouches for it (see [`super::index`]): it is then
    /// not hashed.
    pub known: Option<Oid>,
    /// The 1-based lines whose commit is asked for.
    pub lines: Vec<usize>,
}

/// The commit that wrote each asked line of each job (`None`: a line the job's `newest` commit
/// does not hold, or a line number past the text), in the order of `job.lines`.
pub fn blame(git: &Repository, jobs: &[Job<'_>]) -> Result<Vec<Vec<Option<Oid>>>, ObjectError> {
    let mut walk = Walk {
        git,
        queue: BinaryHeap::new(),
        pending: HashMap::new(),
        out: jobs.iter().map(|j| vec![None; j.lines.len()]).collect(),
        changes: None,
        cache: TreeCache::new(git),
    };
    for (i, job) in jobs.iter().enumerate() {
        walk.start(i, job)?;
    }
    while let Some((_, commit)) = walk.queue.pop() {
        let Some(suspects) = walk.pending.remove(&commit) else {
            continue;
        };
        walk.step(commit, suspects)?;
    }
    Ok(walk.out)
}

/// Lines of one doc held by one commit, still to be passed on.
#[derive(Debug)]
struct Suspect {
    job: usize,
    path: Rc<str>,
    blob: Oid,
    /// The trees from the root down to the doc's folder, in the commit that holds it now: a
    /// parent whose tree on this path is the same has the same blob, without reading further.
    trees: Vec<Oid>,
    /// The lines of `blob` still in flight.
    lines: Lines,
    /// `blob`'s bytes, when they were read already (to diff against the child's version): a
    /// doc version is read once however many steps it is held for.
    content: Option<Rc<[u8]>>,
}

/// A parent's version of a suspect's doc.
#[derive(Debug, Clone)]
struct Origin {
    parent: Oid,
    path: Rc<str>,
    blob: Oid,
    trees: Vec<Oid>,
}

struct Walk<'g> {
    git: &'g Repository,
    /// Commits holding lines in flight, newest first (by commit time, then ID).
    queue: BinaryHeap<(i64, Oid)>,
    pending: HashMap<Oid, Held>,
    out: Vec<Vec<Option<Oid>>>,
    /// The files deleted and added by the last pair of trees diffed: the docs added by one
    /// commit share them.
    changes: Option<((Oid, Oid), Sides)>,
    /// The trees read during the current step (cleared at each commit: nothing is kept across
    /// the history).
    cache: TreeCache<'g>,
}

/// The suspects held by one commit, by doc and path (in that order, so that the walk is the
/// same from run to run).
type Held = BTreeMap<(usize, Rc<str>), Suspect>;

/// A tree entry's object and kind.
type TreeEntry = (Oid, Option<ObjectType>);

/// Trees read once, by ID, until cleared: the docs of one folder share the read of it, and a
/// large folder (past what libgit2's object cache keeps) is not inflated again per doc.
pub(crate) struct TreeCache<'g> {
    git: &'g Repository,
    trees: HashMap<Oid, git2::Tree<'g>>,
}

impl<'g> TreeCache<'g> {
    pub(crate) fn new(git: &'g Repository) -> Self {
        TreeCache {
            git,
            trees: HashMap::new(),
        }
    }

    /// Forget every tree read: what is kept stays bounded however long the walk.
    pub(crate) fn clear(&mut self) {
        self.trees.clear();
    }

    /// The blob at `path` in `commit`, if there is one.
    pub(crate) fn blob_at(&mut self, commit: Oid, path: &str) -> Result<Option<Oid>, ObjectError> {
        let tree = self
            .git
            .find_commit(commit)
            .map_err(|e| ObjectError::new(commit, "commit", &e))?
            .tree_id();
        Ok(self.lookup(tree, path, None)?.map(|(blob, _)| blob))
    }

    /// The blob at `path` under the tree `root`, and the trees on its way. `known`: the same
    /// path's trees and blob in another commit; where a tree on the way is the same, so is the
    /// blob.
    fn lookup(
        &mut self,
        root: Oid,
        path: &str,
        known: Option<(&[Oid], Oid)>,
    ) -> Result<Option<(Oid, Vec<Oid>)>, ObjectError> {
        let mut trees = Vec::new();
        let mut at = root;
        let mut names = path.split('/').enumerate().peekable();
        while let Some((depth, name)) = names.next() {
            if let Some((known_trees, known_blob)) = known {
                if known_trees.get(depth) == Some(&at) {
                    trees.extend_from_slice(&known_trees[depth..]);
                    return Ok(Some((known_blob, trees)));
                }
            }
            trees.push(at);
            let Some((id, kind)) = self.entry(at, name)? else {
                return Ok(None);
            };
            match (names.peek().is_none(), kind) {
                (true, Some(ObjectType::Blob)) => return Ok(Some((id, trees))),
                (false, Some(ObjectType::Tree)) => at = id,
                _ => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The entry `name` of the tree `tree`.
    fn entry(&mut self, tree: Oid, name: &str) -> Result<Option<TreeEntry>, ObjectError> {
        if !self.trees.contains_key(&tree) {
            let read = self
                .git
                .find_tree(tree)
                .map_err(|e| ObjectError::new(tree, "tree", &e))?;
            self.trees.insert(tree, read);
        }
        Ok(self.trees[&tree].get_name(name).map(|e| (e.id(), e.kind())))
    }
}

impl Walk<'_> {
    /// Map the asked lines of the text on disk onto the blob at `newest` and put them in flight.
    fn start(&mut self, i: usize, job: &Job<'_>) -> Result<(), ObjectError> {
        let commit = self.commit(job.newest)?;
        let (tree, time) = (commit.tree_id(), commit.time().seconds());
        drop(commit);
        let Some((blob, trees)) = self.cache.lookup(tree, &job.path, None)? else {
            return Ok(());
        };
        let count = line_count(job.text);
        let asked: Vec<(u32, u32)> = job
            .lines
            .iter()
            .enumerate()
            .filter_map(|(slot, &l)| Some((u32::try_from(l.checked_sub(1)?).ok()?, slot as u32)))
            .filter(|(l, _)| *l < count)
            .collect();
        let committed = self.holds_text(blob, job)?;
        let (lines, content) = if committed {
            // Read only if this version turns out to need a diff (no copy of every doc held).
            (asked, None)
        } else {
            let old = self.blob(blob)?;
            (pass(&old, job.text, sorted(asked)).0, Some(old))
        };
        let suspect = Suspect {
            job: i,
            path: Rc::from(job.path.as_str()),
            blob,
            trees,
            lines: sorted(lines),
            content,
        };
        self.hold(job.newest, time, suspect);
        Ok(())
    }

    /// Whether `blob` is the job's text. Git's index vouching for it is taken when the sizes
    /// agree (a checkout filter, such as line-end conversion or LFS, changes the size); else
    /// the text is hashed.
    fn holds_text(&self, blob: Oid, job: &Job<'_>) -> Result<bool, ObjectError> {
        if job.known == Some(blob) {
            let odb = (self.git.odb()).map_err(|e| ObjectError::new(blob, "blob", &e))?;
            if let Ok((size, _)) = odb.read_header(blob) {
                return Ok(size == job.text.len());
            }
        }
        Ok(Oid::hash_object(ObjectType::Blob, job.text).ok() == Some(blob))
    }

    /// Put lines in flight at `commit`, merged with the same doc's lines already there.
    fn hold(&mut self, commit: Oid, time: i64, suspect: Suspect) {
        if suspect.lines.is_empty() {
            return;
        }
        let held = match self.pending.entry(commit) {
            Entry::Vacant(slot) => {
                self.queue.push((time, commit));
                slot.insert(Held::new())
            }
            Entry::Occupied(slot) => slot.into_mut(),
        };
        match held.entry((suspect.job, suspect.path.clone())) {
            btree_map::Entry::Vacant(slot) => {
                slot.insert(suspect);
            }
            btree_map::Entry::Occupied(mut slot) => {
                let same = slot.get_mut();
                same.lines.extend(suspect.lines);
                same.lines.sort_unstable();
            }
        }
    }

    /// Pass every suspect of `commit` to its parents; what no parent takes, `commit` wrote.
    fn step(&mut self, commit: Oid, suspects: Held) -> Result<(), ObjectError> {
        self.cache.clear();
        let c = self.commit(commit)?;
        let tree = c.tree_id();
        let parent_ids: Vec<Oid> = c.parent_ids().collect();
        drop(c);
        let mut parents = Vec::new();
        for p in parent_ids {
            match self.git.find_commit(p) {
                Ok(pc) => parents.push((p, pc.tree_id(), pc.time().seconds())),
                // Past a shallow clone's boundary the history is not there: like git, the
                // boundary commit wrote what it holds.
                Err(_) if self.git.is_shallow() => {}
                Err(e) => return Err(ObjectError::new(p, "commit", &e)),
            }
        }
        let mut suspects = suspects;
        if let [(parent, parent_tree, time)] = parents[..] {
            // The usual commit: most docs in flight are the same blob in its one parent and move
            // on together, without being taken apart; only the docs it changed are diffed.
            let changed = self.changed_in(parent_tree, &mut suspects)?;
            let changed: Vec<Suspect> = changed.iter().filter_map(|k| suspects.remove(k)).collect();
            self.hold_all(parent, time, suspects);
            for s in changed {
                self.pass_suspect(commit, tree, &parents, s)?;
            }
            return Ok(());
        }
        for s in suspects.into_values() {
            self.pass_suspect(commit, tree, &parents, s)?;
        }
        Ok(())
    }

    /// The suspects whose doc is not the same blob under `parent_tree`; the trees of those that
    /// are become the parent's.
    fn changed_in(
        &mut self,
        parent_tree: Oid,
        suspects: &mut Held,
    ) -> Result<Vec<(usize, Rc<str>)>, ObjectError> {
        let mut changed = Vec::new();
        for (key, s) in suspects.iter_mut() {
            match self
                .cache
                .lookup(parent_tree, &s.path, Some((&s.trees, s.blob)))?
            {
                Some((blob, trees)) if blob == s.blob => s.trees = trees,
                _ => changed.push(key.clone()),
            }
        }
        Ok(changed)
    }

    /// Put all of `held` in flight at `commit`: as one map when nothing is there yet.
    fn hold_all(&mut self, commit: Oid, time: i64, held: Held) {
        if held.is_empty() {
            return;
        }
        match self.pending.entry(commit) {
            Entry::Vacant(slot) => {
                self.queue.push((time, commit));
                slot.insert(held);
            }
            Entry::Occupied(_) => {
                for s in held.into_values() {
                    self.hold(commit, time, s);
                }
            }
        }
    }

    fn pass_suspect(
        &mut self,
        commit: Oid,
        tree: Oid,
        parents: &[(Oid, Oid, i64)],
        mut s: Suspect,
    ) -> Result<(), ObjectError> {
        let time_of = |p: Oid| parents.iter().find(|x| x.0 == p).map_or(0, |x| x.2);
        let mut origins: Vec<Option<Origin>> = Vec::with_capacity(parents.len());
        for &(p, ptree, _) in parents {
            let found = self
                .cache
                .lookup(ptree, &s.path, Some((&s.trees, s.blob)))?;
            origins.push(found.map(|(blob, trees)| Origin {
                parent: p,
                path: s.path.clone(),
                blob,
                trees,
            }));
        }
        // As git: a parent with the same blob under the same name takes every line; only then
        // is the doc looked for under the name it had before in the others (a rename), where the
        // first with the same blob takes every line too.
        let same = |origins: &[Option<Origin>]| {
            origins.iter().flatten().find(|o| o.blob == s.blob).cloned()
        };
        let mut whole = same(&origins);
        if whole.is_none() {
            for (i, &(p, ptree, _)) in parents.iter().enumerate() {
                if origins[i].is_none() {
                    origins[i] = self.renamed_from(p, ptree, tree, &s.path)?;
                }
            }
            whole = same(&origins);
        }
        if let Some(o) = whole {
            s.path = o.path;
            s.trees = o.trees;
            self.hold(o.parent, time_of(o.parent), s);
            return Ok(());
        }
        let mut seen: Vec<Oid> = Vec::new();
        let mut text: Option<Rc<[u8]>> = None;
        for o in origins.into_iter().flatten() {
            if seen.contains(&o.blob) || s.lines.is_empty() {
                continue;
            }
            seen.push(o.blob);
            if text.is_none() {
                text = match s.content.take() {
                    Some(bytes) => Some(bytes),
                    None => Some(self.blob(s.blob)?),
                };
            }
            let old = self.blob(o.blob)?;
            let (passed, kept) = pass(&old, text.as_deref().unwrap_or_default(), s.lines);
            s.lines = kept;
            let to = Suspect {
                job: s.job,
                path: o.path,
                blob: o.blob,
                trees: o.trees,
                lines: passed,
                content: Some(old),
            };
            self.hold(o.parent, time_of(o.parent), to);
        }
        for (_, slot) in s.lines {
            self.out[s.job][slot as usize] = Some(commit);
        }
        Ok(())
    }

    fn commit(&self, id: Oid) -> Result<git2::Commit<'_>, ObjectError> {
        self.git
            .find_commit(id)
            .map_err(|e| ObjectError::new(id, "commit", &e))
    }

    fn blob(&self, id: Oid) -> Result<Rc<[u8]>, ObjectError> {
        self.git
            .find_blob(id)
            .map(|b| Rc::from(b.content()))
            .map_err(|e| ObjectError::new(id, "blob", &e))
    }

    /// The doc's version in `parent` under the name it had before `commit` renamed it: the
    /// deleted file git pairs with it when it follows this one doc (the doc the only added file
    /// looked at, so other added files take no source from it), under git's default limit, as
    /// `git blame` reads no `diff.renameLimit`.
    fn renamed_from(
        &mut self,
        parent: Oid,
        parent_tree: Oid,
        tree: Oid,
        path: &str,
    ) -> Result<Option<Origin>, ObjectError> {
        let key = (parent_tree, tree);
        let err = |e: git2::Error| ObjectError::new(parent, "commit", &e);
        if self.changes.as_ref().is_none_or(|(k, _)| *k != key) {
            // Folders read for this diff only: the walk keeps nothing across the history.
            let found = deleted_and_added(self.git, &Folders::default(), parent_tree, tree)
                .map_err(err)?
                .unwrap_or_default();
            self.changes = Some((key, found));
        }
        let Some((_, Sides { deleted, added })) = &self.changes else {
            return Ok(None);
        };
        let Some(doc) = added.iter().find(|a| a.path == path) else {
            return Ok(None);
        };
        let found = rename_rule::find(
            self.git,
            None,
            deleted,
            std::slice::from_ref(doc),
            GIT_RENAME_LIMIT,
        )
        .map_err(err)?;
        let Some(&(source, _)) = found.pairs.first() else {
            return Ok(None);
        };
        let old = deleted[source].path.clone();
        Ok(self
            .cache
            .lookup(parent_tree, &old, None)?
            .map(|(blob, trees)| Origin {
                parent,
                path: Rc::from(old.as_str()),
                blob,
                trees,
            }))
    }
}

/// (0-based line in a blob, index in the job's answer), sorted by line.
type Lines = Vec<(u32, u32)>;

fn sorted(mut lines: Lines) -> Lines {
    lines.sort_unstable();
    lines
}

fn line_count(text: &[u8]) -> u32 {
    let newlines = memchr::memchr_iter(b'\n', text).count();
    let last = usize::from(!text.is_empty() && !text.ends_with(b"\n"));
    u32::try_from(newlines + last).unwrap_or(u32::MAX)
}

/// Split `lines` (0-based lines of `new`, sorted) into those unchanged from `old`, renumbered as
/// lines of `old`, and those the diff `old` → `new` changed. The diff is git's default: Myers
/// with the indent heuristic, lines compared with their line ends, except that a suppression
/// comment ending a line is not part of it (see [`without_suppressions`]).
fn pass(old: &[u8], new: &[u8], lines: Lines) -> (Lines, Lines) {
    let (old, new) = (without_suppressions(old), without_suppressions(new));
    let input = InternedInput::new(&*old, &*new);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    let mut passed = Vec::new();
    let mut kept = Vec::new();
    let mut hunks = diff.hunks().peekable();
    // Lines of `new` before the current hunk map to `old` by this offset.
    let mut offset: i64 = 0;
    for (line, slot) in lines {
        while let Some(h) = hunks.peek() {
            if h.after.end <= line {
                offset += i64::from(h.before.len() as u32) - i64::from(h.after.len() as u32);
                hunks.next();
            } else {
                break;
            }
        }
        match hunks.peek() {
            Some(h) if h.after.contains(&line) => kept.push((line, slot)),
            _ => match u32::try_from(i64::from(line) + offset) {
                Ok(l) if (l as usize) < input.before.len() => passed.push((l, slot)),
                _ => kept.push((line, slot)),
            },
        }
    }
    (passed, kept)
}

/// `text` without the `<!-- citegate-ignore … -->` comments that end its lines (and the one
/// blank before each, as `citegate suppress` writes it). Writing one, as `citegate suppress` does, is not an edit of the line it
/// suppresses: the line keeps the commit that wrote it, so a stale citation stays stale (and
/// suppressed) instead of taking the comment's commit as its implied pin. The only place blame
/// differs from `git blame`.
fn without_suppressions(text: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const OPEN: &[u8] = b"<!-- citegate-ignore";
    if memchr::memmem::find(text, OPEN).is_none() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = Vec::with_capacity(text.len());
    for line in text.split_inclusive(|&b| b == b'\n') {
        let (before, after) = strip_ending_comment(line);
        out.extend_from_slice(before);
        out.extend_from_slice(after);
        if let Some(end) = ending(line) {
            out.extend_from_slice(end);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The line end (`\n` or `\r\n`) of `line`, when it has one.
fn ending(line: &[u8]) -> Option<&[u8]> {
    if line.ends_with(b"\r\n") {
        Some(b"\r\n")
    } else if line.ends_with(b"\n") {
        Some(b"\n")
    } else {
        None
    }
}

/// `line` without its line end, as the text before and after a suppression comment that ends
/// it after other text (after: empty, or the `|` closing a table row, where `citegate suppress`
/// writes a row's comment at the end of its last cell); `(line, "")` when it has none.
fn strip_ending_comment(line: &[u8]) -> (&[u8], &[u8]) {
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    let body = body.strip_suffix(b"\r").unwrap_or(body);
    let Some(start) = memchr::memmem::rfind(body, b"<!-- citegate-ignore") else {
        return (body, b"");
    };
    let Some(close) = memchr::memmem::find(&body[start..], b"-->") else {
        return (body, b"");
    };
    let after = &body[start + close + 3..];
    let before = &body[..start];
    let before = before
        .strip_suffix(b" ")
        .or_else(|| before.strip_suffix(b"\t"))
        .unwrap_or(before);
    let closes_row = after.trim_ascii() == b"|";
    if before.trim_ascii().is_empty() || !(after.trim_ascii().is_empty() || closes_row) {
        return (body, b"");
    }
    (before, if closes_row { after } else { b"" })
}

/// The repository holding `path` and the path inside its work tree, for a doc that is not in the
/// audited repository (a wiki clone next to the code).
pub(crate) fn own_repository(path: &Path) -> Option<(Repository, String)> {
    let abs = path.canonicalize().ok()?;
    let repo = Repository::discover(abs.parent()?).ok()?;
    let workdir = repo.workdir()?.canonicalize().ok()?;
    let rel = abs
        .strip_prefix(&workdir)
        .ok()?
        .to_string_lossy()
        .replace('\\', "/");
    Some((repo, rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(old: &str, new: &str, lines: &[u32]) -> (Vec<u32>, Vec<u32>) {
        let asked = lines.iter().map(|&l| (l, l)).collect();
        let (p, k) = pass(old.as_bytes(), new.as_bytes(), asked);
        (
            p.into_iter().map(|(l, _)| l).collect(),
            k.into_iter().map(|(_, s)| s).collect(),
        )
    }

    #[test]
    fn unchanged_lines_pass_renumbered_and_changed_ones_stay() {
        let old = "a\nb\nc\nd\n";
        let new = "x\na\nb\nC\nd\n";
        // x is new, a b move down one, C replaced c, d is unchanged.
        assert_eq!(run(old, new, &[0, 1, 2, 3, 4]), (vec![0, 1, 3], vec![0, 3]));
    }

    #[test]
    fn a_pure_deletion_shifts_the_lines_below_it() {
        let (passed, kept) = run("a\nb\nc\n", "a\nc\n", &[0, 1]);
        assert_eq!((passed, kept), (vec![0, 2], vec![]));
    }

    #[test]
    fn a_last_line_without_its_line_end_is_a_changed_line() {
        let (passed, kept) = run("a\nb", "a\nb\n", &[0, 1]);
        assert_eq!((passed, kept), (vec![0], vec![1]));
    }

    #[test]
    fn a_suppression_comment_ending_a_line_does_not_change_it() {
        let old = "a\nsee `src/x.rs:1`\nb\n";
        let new = "a\nsee `src/x.rs:1` <!-- citegate-ignore stale-changed: old -->\nb\n";
        assert_eq!(run(old, new, &[0, 1, 2]), (vec![0, 1, 2], vec![]));
        let crlf = "see `src/x.rs:1`  <!-- citegate-ignore stale-changed: x -->\r\n";
        assert_eq!(run("see `src/x.rs:1` \r\n", crlf, &[0]), (vec![0], vec![]));
        // Alone on its line, it is a line of its own; any other edit of the line is an edit.
        let alone = "a\n<!-- citegate-ignore stale-changed: old -->\nsee `src/x.rs:1`\nb\n";
        assert_eq!(run(old, alone, &[2]), (vec![1], vec![]));
        let row = "| `src/x.rs:1` | the cache |\n";
        let suppressed = "| `src/x.rs:1` | the cache <!-- citegate-ignore stale-changed: x --> |\n";
        assert_eq!(run(row, suppressed, &[0]), (vec![0], vec![]));
        let edited = "a\nsee `src/y.rs:1` <!-- citegate-ignore stale-changed: old -->\nb\n";
        assert_eq!(run(old, edited, &[1]), (vec![], vec![1]));
    }

    #[test]
    fn counts_lines_like_git() {
        assert_eq!(line_count(b""), 0);
        assert_eq!(line_count(b"a"), 1);
        assert_eq!(line_count(b"a\n"), 1);
        assert_eq!(line_count(b"a\nb"), 2);
    }
}
