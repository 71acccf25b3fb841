//! `audit --since REF`: only the docs a change can affect. A doc is selected when it changed
//! between merge-base(REF, target) and the target (or is modified on disk), or when a hunk changed
//! in that range touches one of its citations' spans or moves it (adds or removes lines above it). A reverse index (cited path → citing
//! docs) keeps the cost proportional to the change, not to the repository.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use aho_corasick::AhoCorasick;
use git2::{DiffOptions, Oid, Repository, Status, StatusOptions};

use crate::model::{AuditedDoc, LineRange, Reason};

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

/// Changed paths and hunks between `base` and `target` (no context lines, renames followed).
fn hunks(git: &Repository, base: Oid, target: Oid) -> Result<Hunks, git2::Error> {
    let a = git.find_commit(base)?.tree()?;
    let b = git.find_commit(target)?.tree()?;
    let mut opts = DiffOptions::new();
    opts.context_lines(0);
    let mut diff = git.diff_tree_to_tree(Some(&a), Some(&b), Some(&mut opts))?;
    diff.find_similar(None)?;
    let mut out: Hunks = HashMap::new();
    for delta in diff.deltas() {
        for file in [delta.old_file(), delta.new_file()] {
            if let Some(p) = file.path() {
                out.entry(p.to_string_lossy().into_owned()).or_default();
            }
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
                if let Some(p) = file.path() {
                    out.entry(p.to_string_lossy().into_owned())
                        .or_default()
                        .push(h);
                }
            }
            true
        }),
        None,
    )?;
    Ok(out)
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
    for (path, hunks) in hunks(git, base, target)? {
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
    dirty: BTreeSet<String>,
    /// The file names of the changed paths, raw and percent-encoded: a doc that holds none of
    /// them cannot cite a changed file.
    names: Option<AhoCorasick>,
}

impl Change {
    pub fn new(git: &Repository, base: Oid, target: Oid) -> Result<Change, git2::Error> {
        let base = git.merge_base(base, target)?;
        let hunks = hunks(git, base, target)?;
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
            dirty,
            names,
        })
    }

    fn doc_changed(&self, name: &str) -> bool {
        self.hunks.contains_key(name) || self.dirty.contains(name)
    }

    /// Whether the doc `name` (repo-relative when inside the repository) with these bytes can be
    /// affected: it changed, or its text holds the file name of a changed path.
    pub fn may_affect(&self, name: &str, bytes: &[u8]) -> bool {
        self.doc_changed(name) || self.names.as_ref().is_some_and(|n| n.is_match(bytes))
    }

    /// The selected docs, in their order, and why each was selected.
    ///
    /// A doc selected only because it cites changed code keeps only the citations the change can
    /// affect: its other citations cite code the change did not touch (a changed doc is audited
    /// whole).
    pub fn keep_selected(&self, docs: Vec<AuditedDoc>) -> (Vec<AuditedDoc>, Vec<Vec<Reason>>) {
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

    /// Whether the change can affect a citation of `path` at `lines` (a whole-file citation of a
    /// changed file always).
    fn affects(&self, path: Option<&str>, lines: Option<LineRange>) -> bool {
        let Some(hunks) = path.and_then(|p| self.hunks.get(p)) else {
            return false;
        };
        match lines {
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
                let hit = match lines {
                    None => true,
                    Some(r) => hunks.iter().any(|h| h.affects(*r)),
                };
                if hit {
                    out.entry(*doc)
                        .or_default()
                        .insert(Reason::CitesChangedCode);
                }
            }
        }
        out
    }
}
