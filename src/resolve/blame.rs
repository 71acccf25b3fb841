//! Implied pins: a citation with no pin, in a doc tracked by Git, was written for the commit that
//! wrote its line of the doc. That commit is found as `git blame` finds it, following every parent
//! (a doc written on a branch and merged is attributed to the branch commit that wrote the line,
//! not to the merge), once per doc for all its citations.
//!
//! The doc is blamed from the target when it exists there, else from the last commit along the
//! target's first parents that had it (a doc deleted at the target). Lines not in that commit's doc
//! (uncommitted edits) have no implied pin: they resolve at the target.
//!
//! A doc in another repository (a wiki clone next to the code) is blamed in its own repository;
//! the citation's implied pin is then the newest code commit (first parents from the target) whose
//! commit time is not after the time of the doc line's commit.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

use git2::{Oid, Repository};

use rayon::prelude::*;

use super::trees::Trees;
use super::CodeRepo;
use crate::model::{AuditedDoc, CiteRef};

/// The implied pin of each citation that has one. Docs are blamed in parallel, each worker with
/// its own repository handle and memo.
pub fn implied_pins(
    repo: &CodeRepo,
    target: Oid,
    docs: &[AuditedDoc],
    cites: &[CiteRef],
) -> HashMap<CiteRef, Oid> {
    let mut by_doc: BTreeMap<usize, Vec<CiteRef>> = BTreeMap::new();
    for c in cites {
        by_doc.entry(c.doc).or_default().push(*c);
    }
    let by_doc: Vec<(usize, Vec<CiteRef>)> = by_doc.into_iter().collect();
    let history: OnceLock<Vec<(i64, Oid)>> = OnceLock::new();
    by_doc
        .par_iter()
        .map_init(
            || Trees::new(repo.worker()),
            |trees, (doc, cites)| doc_pins(trees, target, &docs[*doc], cites, &history),
        )
        .flatten()
        .collect()
}

/// The implied pins of one doc's citations.
fn doc_pins(
    trees: &mut Trees,
    target: Oid,
    d: &AuditedDoc,
    cites: &[CiteRef],
    history: &OnceLock<Vec<(i64, Oid)>>,
) -> Vec<(CiteRef, Oid)> {
    let lines: Vec<(CiteRef, usize)> = cites
        .iter()
        .map(|c| (*c, d.doc.lines.line(d.citation(c.index).span.start)))
        .collect();
    if d.doc.repo_dir.is_some() {
        let Some(newest) = last_with(trees, target, &d.doc.name) else {
            return Vec::new();
        };
        return Blame::new(trees, &d.doc.name).lines(newest, d.doc.text.as_bytes(), &lines);
    }
    // A doc outside the code repository: blame it where it lives, then map times.
    let Some((doc_repo, rel)) = own_repository(&d.doc.fs_path) else {
        return Vec::new();
    };
    let Some(newest) = doc_repo.head().ok().and_then(|h| h.target()) else {
        return Vec::new();
    };
    let mut doc_trees = Trees::new(doc_repo);
    let blamed = Blame::new(&mut doc_trees, &rel).lines(newest, d.doc.text.as_bytes(), &lines);
    let history = history.get_or_init(|| first_parent_history(trees.git(), target));
    blamed
        .into_iter()
        .filter_map(|(c, doc_commit)| {
            let when = doc_trees
                .git()
                .find_commit(doc_commit)
                .ok()?
                .time()
                .seconds();
            let (_, code_commit) = history.iter().find(|(t, _)| *t <= when)?;
            Some((c, *code_commit))
        })
        .collect()
}

/// The newest commit, along the first parents of `target`, whose tree holds `path`.
fn last_with(trees: &mut Trees, target: Oid, path: &str) -> Option<Oid> {
    if trees.entry(target, path).is_some() {
        return Some(target);
    }
    let mut walk = trees.git().revwalk().ok()?;
    walk.push(target).ok()?;
    walk.simplify_first_parent().ok()?;
    let chain: Vec<Oid> = walk.flatten().collect();
    chain.into_iter().find(|c| trees.entry(*c, path).is_some())
}

/// Blame by line content over the commit graph, for one doc path, with what it read cached.
struct Blame<'t> {
    trees: &'t mut Trees,
    path: &'t str,
    /// The lines of each doc blob read.
    lines_of: HashMap<Oid, HashSet<Vec<u8>>>,
}

impl<'t> Blame<'t> {
    fn new(trees: &'t mut Trees, path: &'t str) -> Self {
        Blame {
            trees,
            path,
            lines_of: HashMap::new(),
        }
    }

    /// Whether the doc blob `blob` holds exactly this line.
    fn has(&mut self, blob: Option<Oid>, line: &[u8]) -> bool {
        let Some(blob) = blob else {
            return false;
        };
        let git = self.trees.git();
        let lines = self.lines_of.entry(blob).or_insert_with(|| {
            let content = git.find_blob(blob).map(|b| b.content().to_vec());
            content
                .unwrap_or_default()
                .split(|&b| b == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
                .collect()
        });
        lines.contains(line)
    }

    /// The commit that wrote each line (1-based) of the doc as it is on disk (`buffer`), blaming
    /// from `newest`: from a commit that holds the line, blame passes to a parent whose doc is the
    /// same blob (all lines at once, nothing read), else to the first parent that holds the line;
    /// the commit none of whose parents holds it wrote it. Lines that `newest` does not hold
    /// (uncommitted edits) have none. Lines are matched by text, so a citation line moved within
    /// its doc keeps its pin.
    fn lines(
        &mut self,
        newest: Oid,
        buffer: &[u8],
        lines: &[(CiteRef, usize)],
    ) -> Vec<(CiteRef, Oid)> {
        let disk: Vec<&[u8]> = buffer
            .split(|&b| b == b'\n')
            .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
            .collect();
        let path = self.path;
        // Lines still being blamed, by the commit that holds them now.
        let mut open: BTreeMap<Oid, Vec<(CiteRef, &[u8])>> = BTreeMap::new();
        let at_newest = self.trees.entry(newest, path);
        // The doc on disk is the committed blob (the usual case): every line is there, nothing to
        // read; else (uncommitted edits) each line is looked for.
        let committed = at_newest.is_some()
            && git2::Oid::hash_object(git2::ObjectType::Blob, buffer).ok() == at_newest;
        for (c, l) in lines {
            let Some(text) = l.checked_sub(1).and_then(|i| disk.get(i)) else {
                continue;
            };
            if committed || self.has(at_newest, text) {
                open.entry(newest).or_default().push((*c, text));
            }
        }
        let mut done = Vec::new();
        while let Some((commit, entries)) = open.pop_first() {
            let blob = self.trees.entry(commit, path);
            let parents: Vec<(Oid, Option<Oid>)> = self
                .trees
                .parents(commit)
                .into_iter()
                .map(|p| (p, self.trees.entry(p, path)))
                .collect();
            if let Some((same, _)) = parents.iter().find(|(_, b)| *b == blob) {
                // The usual case: the doc did not change; the whole group moves, nothing copied.
                match open.entry(*same) {
                    Entry::Vacant(slot) => {
                        slot.insert(entries);
                    }
                    Entry::Occupied(mut slot) => slot.get_mut().extend(entries),
                }
                continue;
            }
            for (cite, text) in entries {
                match parents.iter().find(|(_, b)| self.has(*b, text)) {
                    Some((p, _)) => open.entry(*p).or_default().push((cite, text)),
                    None => done.push((cite, commit)),
                }
            }
        }
        done
    }
}

fn own_repository(path: &Path) -> Option<(Repository, String)> {
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

/// (commit time, commit) along first parents from `target`, newest first.
fn first_parent_history(git: &Repository, target: Oid) -> Vec<(i64, Oid)> {
    let mut out = Vec::new();
    let Ok(mut walk) = git.revwalk() else {
        return out;
    };
    if walk.push(target).is_err() || walk.simplify_first_parent().is_err() {
        return out;
    }
    for oid in walk.flatten() {
        if let Ok(c) = git.find_commit(oid) {
            out.push((c.time().seconds(), oid));
        }
    }
    out
}
