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

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use git2::{Oid, Repository};

use crate::model::{AuditedDoc, CiteRef};

/// The implied pin of each citation that has one.
pub fn implied_pins(
    git: &Repository,
    target: Oid,
    docs: &[AuditedDoc],
    cites: &[CiteRef],
) -> HashMap<CiteRef, Oid> {
    let mut by_doc: BTreeMap<usize, Vec<CiteRef>> = BTreeMap::new();
    for c in cites {
        by_doc.entry(c.doc).or_default().push(*c);
    }
    let mut out = HashMap::new();
    let mut history: Option<Vec<(i64, Oid)>> = None;
    for (doc_index, cites) in by_doc {
        let d = &docs[doc_index];
        let lines: Vec<(CiteRef, usize)> = cites
            .iter()
            .map(|c| (*c, d.doc.lines.line(d.citation(c.index).span.start)))
            .collect();
        if d.doc.repo_dir.is_some() {
            let Some(newest) = last_with(git, target, &d.doc.name) else {
                continue;
            };
            let mut blame = Blame::new(git, &d.doc.name);
            out.extend(blame.lines(newest, d.doc.text.as_bytes(), &lines));
            continue;
        }
        // A doc outside the code repository: blame it where it lives, then map times.
        let Some((doc_repo, rel)) = own_repository(&d.doc.fs_path) else {
            continue;
        };
        let Some(newest) = doc_repo.head().ok().and_then(|h| h.target()) else {
            continue;
        };
        let blamed = Blame::new(&doc_repo, &rel).lines(newest, d.doc.text.as_bytes(), &lines);
        if blamed.is_empty() {
            continue;
        }
        let history = history.get_or_insert_with(|| first_parent_history(git, target));
        for (c, doc_commit) in blamed {
            let Ok(when) = doc_repo.find_commit(doc_commit).map(|c| c.time().seconds()) else {
                continue;
            };
            if let Some((_, code_commit)) = history.iter().find(|(t, _)| *t <= when) {
                out.insert(c, *code_commit);
            }
        }
    }
    out
}

/// The newest commit, along the first parents of `target`, whose tree holds `path`.
fn last_with(git: &Repository, target: Oid, path: &str) -> Option<Oid> {
    let has = |commit: Oid| {
        git.find_commit(commit)
            .and_then(|c| c.tree())
            .and_then(|t| t.get_path(Path::new(path)))
            .is_ok()
    };
    if has(target) {
        return Some(target);
    }
    let mut walk = git.revwalk().ok()?;
    walk.push(target).ok()?;
    walk.simplify_first_parent().ok()?;
    walk.flatten().find(|c| has(*c))
}

/// Blame by line content over the commit graph, for one doc path, with what it read cached.
struct Blame<'a> {
    git: &'a Repository,
    path: &'a str,
    /// The doc's blob at each commit read (`None`: not there).
    blob_at: HashMap<Oid, Option<Oid>>,
    /// The lines of each doc blob read.
    lines_of: HashMap<Oid, HashSet<Vec<u8>>>,
}

impl<'a> Blame<'a> {
    fn new(git: &'a Repository, path: &'a str) -> Self {
        Blame {
            git,
            path,
            blob_at: HashMap::new(),
            lines_of: HashMap::new(),
        }
    }

    fn blob(&mut self, commit: Oid) -> Option<Oid> {
        let (git, path) = (self.git, self.path);
        *self.blob_at.entry(commit).or_insert_with(|| {
            let tree = git.find_commit(commit).ok()?.tree().ok()?;
            tree.get_path(Path::new(path)).ok().map(|e| e.id())
        })
    }

    /// Whether the doc at `commit` holds exactly this line.
    fn has(&mut self, commit: Oid, line: &[u8]) -> bool {
        let Some(blob) = self.blob(commit) else {
            return false;
        };
        let git = self.git;
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
    /// from `newest`: from a commit that holds the line, blame passes to the first parent that
    /// holds it too; the commit none of whose parents holds it wrote it. Lines that `newest` does
    /// not hold (uncommitted edits) have none. Lines are matched by text, so a citation line moved
    /// within its doc keeps its pin.
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
        // Lines still being blamed, by the commit that holds them now.
        let mut open: BTreeMap<Oid, Vec<(CiteRef, &[u8])>> = BTreeMap::new();
        for (c, l) in lines {
            let Some(text) = l.checked_sub(1).and_then(|i| disk.get(i)) else {
                continue;
            };
            if self.has(newest, text) {
                open.entry(newest).or_default().push((*c, text));
            }
        }
        let mut done = Vec::new();
        while let Some((commit, entries)) = open.pop_first() {
            let parents: Vec<Oid> = self
                .git
                .find_commit(commit)
                .map(|c| c.parent_ids().collect())
                .unwrap_or_default();
            for (cite, text) in entries {
                match parents.iter().find(|p| self.has(**p, text)) {
                    Some(p) => open.entry(*p).or_default().push((cite, text)),
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
