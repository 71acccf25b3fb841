//! `audit --since REF`: only the docs a change can affect. A doc is selected when it changed
//! between merge-base(REF, target) and the target (or is modified on disk), or when a hunk changed
//! in that range touches one of its citations' spans or moves it (adds or removes lines above it),
//! or renames, copies or deletes a file it cites. A reverse index (cited path → citing docs) keeps
//! the cost proportional to the change, not to the repository.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use aho_corasick::AhoCorasick;
use git2::{Delta, DiffFindOptions, DiffOptions, Oid, Repository, Status, StatusOptions};

use crate::model::{AuditedDoc, LineRange, Reason, RenamesSkipped};
use crate::resolve::rename_rule;

/// One changed hunk: where it starts and how many lines it covers on each side.
#[derive(Debug, Clone, Copy)]
struct Hunk {
    old_start: i64,
    old_lines: i64,
    new_start: i64,
    new_lines: i64,
}

impl Hunk {
    /// Whether the hunk can change what the cited lines `r` show: it touches them on either side,
    /// or it starts at or above them and adds or removes lines, which moves them. The cited
    /// numbers may be written for an older revision than either side, so both sides count.
    fn affects(&self, r: LineRange) -> bool {
        let touches = |start: i64, lines: i64| {
            // A pure insertion or deletion touches the line where it happened.
            let end = start + lines.max(1) - 1;
            start <= r.end && r.start <= end
        };
        let moves = self.old_lines != self.new_lines
            && (self.old_start <= r.start || self.new_start <= r.start);
        touches(self.old_start, self.old_lines) || touches(self.new_start, self.new_lines) || moves
    }
}

/// The changed hunks of each changed path.
type Hunks = HashMap<String, Vec<Hunk>>;

/// What changed between two trees.
struct Diffed {
    hunks: Hunks,
    /// Paths renamed, copied or deleted in the range: every citation of one is affected, whatever
    /// lines it names (a rename without an edit has no hunk at all).
    whole: HashSet<String>,
    renames_skipped: Option<RenamesSkipped>,
}

/// Changed paths and hunks between `base` and `target` (no context lines, renames followed as
/// `git diff` follows them, see [`find_renames`]).
fn hunks(git: &Repository, base: Oid, target: Oid) -> Result<Diffed, git2::Error> {
    let a = git.find_commit(base)?.tree()?;
    let b = git.find_commit(target)?.tree()?;
    let mut opts = DiffOptions::new();
    opts.context_lines(0);
    let mut diff = git.diff_tree_to_tree(Some(&a), Some(&b), Some(&mut opts))?;
    let renames_skipped = find_renames(git, &mut diff)?;
    let mut out: Hunks = HashMap::new();
    let mut whole = HashSet::new();
    let name = |file: git2::DiffFile<'_>| file.path().map(|p| p.to_string_lossy().into_owned());
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(p) = name(file) {
                out.entry(p).or_default();
            }
        }
        if matches!(
            delta.status(),
            Delta::Renamed | Delta::Copied | Delta::Deleted
        ) {
            whole.extend(name(delta.old_file()));
        }
    }
    diff.foreach(
        &mut |_, _| true,
        None,
        Some(&mut |delta, hunk| {
            let h = Hunk {
                old_start: hunk.old_start() as i64,
                old_lines: hunk.old_lines() as i64,
                new_start: hunk.new_start() as i64,
                new_lines: hunk.new_lines() as i64,
            };
            for file in [delta.old_file(), delta.new_file()] {
                if let Some(p) = name(file) {
                    out.entry(p).or_default().push(h);
                }
            }
            true
        }),
        None,
    )?;
    Ok(Diffed {
        hunks: out,
        whole,
        renames_skipped,
    })
}

/// Pair renamed files as `git diff` does under the repository's configuration (`diff.renames`,
/// `diff.renameLimit`): exact renames always; inexact ones only while the deleted and the added
/// files left after them make a matrix of at most limit² (a limit of 0 or less: no limit). Past
/// the limit, the skip is returned for the run to say so. libgit2's own limit instead caps the
/// sources it tries per added file, so it is lifted here and git's rule applied first. Git also
/// pairs a moved file by its unchanged name before it checks the limit; this does not, so past
/// the limit such a move is a deletion and an addition here, which selects every doc citing the
/// old path all the same.
fn find_renames(
    git: &Repository,
    diff: &mut git2::Diff<'_>,
) -> Result<Option<RenamesSkipped>, git2::Error> {
    let config = git.config()?;
    if config.get_bool("diff.renames").is_ok_and(|on| !on) {
        return Ok(None);
    }
    let copies = config
        .get_string("diff.renames")
        .is_ok_and(|r| r.eq_ignore_ascii_case("copies") || r.eq_ignore_ascii_case("copy"));
    let limit = rename_rule::configured_limit(git);
    // Exact renames first, as git finds them: an added file whose blob a deleted file had.
    let mut deleted: HashMap<Oid, usize> = HashMap::new();
    let (mut sources, mut added) = (0usize, Vec::new());
    for d in diff.deltas() {
        match d.status() {
            Delta::Deleted => {
                *deleted.entry(d.old_file().id()).or_default() += 1;
                sources += 1;
            }
            Delta::Modified if copies => sources += 1,
            Delta::Added => added.push(d.new_file().id()),
            _ => {}
        }
    }
    let exact = added
        .iter()
        .filter(|id| match deleted.get_mut(id) {
            Some(n) if *n > 0 => {
                *n -= 1;
                true
            }
            _ => false,
        })
        .count();
    // Copies keep their sources: a file copied exactly can still be the source of another.
    let sources = if copies { sources } else { sources - exact };
    let targets = added.len() - exact;
    let skip = rename_rule::too_many(sources, targets, limit);
    let mut find = DiffFindOptions::new();
    if skip {
        find.exact_match_only(true);
    } else {
        find.rename_limit(diff.deltas().len().max(1));
    }
    diff.find_similar(Some(&mut find))?;
    Ok(skip.then(|| RenamesSkipped {
        commit: None,
        limit: limit as usize,
        needed: sources.max(targets),
    }))
}

/// The lines (1-based, on the new side) each path gained or changed between merge-base(`base`,
/// `target`) and `target`: the lines a pull request's review comments can sit on.
pub fn changed_lines(
    git: &Repository,
    base: Oid,
    target: Oid,
) -> Result<HashMap<String, BTreeSet<usize>>, git2::Error> {
    let base = git.merge_base(base, target)?;
    let mut out: HashMap<String, BTreeSet<usize>> = HashMap::new();
    for (path, hunks) in hunks(git, base, target)?.hunks {
        let lines = out.entry(path).or_default();
        for h in hunks.iter().filter(|h| h.new_lines > 0) {
            lines.extend((h.new_start..h.new_start + h.new_lines).map(|l| l as usize));
        }
    }
    Ok(out)
}

/// Docs modified, added or untracked in the work tree.
fn dirty(git: &Repository) -> BTreeSet<String> {
    let mut opts = StatusOptions::new();
    opts.include_untracked(true).recurse_untracked_dirs(true);
    let Ok(statuses) = git.statuses(Some(&mut opts)) else {
        return BTreeSet::new();
    };
    statuses
        .iter()
        .filter(|s| !s.status().is_empty() && s.status() != Status::IGNORED)
        .filter_map(|s| s.path().ok().map(str::to_string))
        .collect()
}

/// What changed between merge-base(REF, target) and the target, plus the work tree.
pub struct Change {
    hunks: Hunks,
    /// Paths renamed, copied or deleted: every citation of one is affected.
    whole: HashSet<String>,
    renames_skipped: Option<RenamesSkipped>,
    dirty: BTreeSet<String>,
    /// The file names of the changed paths, raw and percent-encoded: a doc that holds none of
    /// them cannot cite a changed file.
    names: Option<AhoCorasick>,
}

impl Change {
    /// What changed from the merge base of `base` and `target` to `target`, and in the work tree.
    pub fn new(git: &Repository, base: Oid, target: Oid) -> Result<Change, git2::Error> {
        let base = git.merge_base(base, target)?;
        let Diffed {
            hunks,
            whole,
            renames_skipped,
        } = hunks(git, base, target)?;
        let dirty = dirty(git);
        let mut names: BTreeSet<String> = BTreeSet::new();
        for path in hunks.keys() {
            let name = path.rsplit('/').next().unwrap_or(path);
            names.insert(name.to_string());
            names.insert(crate::model::PathStyle::Url.render(name));
        }
        let names = (!names.is_empty())
            .then(|| AhoCorasick::new(names.iter()).ok())
            .flatten();
        Ok(Change {
            hunks,
            whole,
            renames_skipped,
            dirty,
            names,
        })
    }

    /// Whether rename detection stopped at the rename limit (see `find_renames`).
    pub fn renames_skipped(&self) -> Option<RenamesSkipped> {
        self.renames_skipped
    }

    fn doc_changed(&self, name: &str) -> bool {
        self.hunks.contains_key(name) || self.dirty.contains(name)
    }

    /// Whether the doc `name` (repo-relative when inside the repository) with these bytes can be
    /// affected: it changed, or its text holds the file name of a changed path.
    pub(crate) fn may_affect(&self, name: &str, bytes: &[u8]) -> bool {
        self.doc_changed(name) || self.names.as_ref().is_some_and(|n| n.is_match(bytes))
    }

    /// The selected docs, in their order, and why each was selected.
    ///
    /// A doc selected only because it cites changed code keeps only the citations the change can
    /// affect: its other citations cite code the change did not touch (a changed doc is audited
    /// whole).
    pub(crate) fn keep_selected(
        &self,
        docs: Vec<AuditedDoc>,
    ) -> (Vec<AuditedDoc>, Vec<Vec<Reason>>) {
        let chosen = self.select(&docs);
        let mut kept = Vec::new();
        let mut reasons = Vec::new();
        for (i, mut d) in docs.into_iter().enumerate() {
            let Some(r) = chosen.get(&i) else { continue };
            if !r.contains(&Reason::DocChanged) {
                d.extracted
                    .retain_citations(|c| self.affects(c.repo_path(), c.lines));
            }
            reasons.push(r.iter().copied().collect());
            kept.push(d);
        }
        (kept, reasons)
    }

    /// Whether the change can affect a citation of `path` at `lines`.
    fn affects(&self, path: Option<&str>, lines: Option<LineRange>) -> bool {
        path.and_then(|p| self.hunks.get_key_value(p))
            .is_some_and(|(path, hunks)| self.hits(path, hunks, lines))
    }

    /// Whether `path`'s change, its `hunks`, can affect a citation of its `lines`: always for a
    /// whole-file citation and for a path renamed, copied or deleted.
    fn hits(&self, path: &str, hunks: &[Hunk], lines: Option<LineRange>) -> bool {
        match lines {
            _ if self.whole.contains(path) => true,
            None => true,
            Some(r) => hunks.iter().any(|h| h.affects(r)),
        }
    }

    /// The docs to audit and why, in doc order.
    pub fn select(&self, docs: &[AuditedDoc]) -> BTreeMap<usize, BTreeSet<Reason>> {
        let mut out: BTreeMap<usize, BTreeSet<Reason>> = BTreeMap::new();
        // Reverse index: cited path → (doc, citation range).
        let mut citing: HashMap<&str, Vec<(usize, Option<LineRange>)>> = HashMap::new();
        for (i, d) in docs.iter().enumerate() {
            if d.doc.repo_dir.is_some() && self.doc_changed(&d.doc.name) {
                out.entry(i).or_default().insert(Reason::DocChanged);
            }
            for c in &d.extracted.citations {
                if let Some(p) = c.repo_path() {
                    citing.entry(p).or_default().push((i, c.lines));
                }
            }
        }
        for (path, hunks) in &self.hunks {
            let Some(cites) = citing.get(path.as_str()) else {
                continue;
            };
            for (doc, lines) in cites {
                if self.hits(path, hunks, *lines) {
                    out.entry(*doc)
                        .or_default()
                        .insert(Reason::CitesChangedCode);
                }
            }
        }
        out
    }
}
