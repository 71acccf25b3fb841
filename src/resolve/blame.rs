//! Implied pins: a citation with no pin, in a doc tracked by Git, was written for the commit that
//! last touched its line of the doc. Blame runs only for citations that fail at the target, only
//! over the lines they are on, so clean runs stay fast.
//!
//! A doc in another repository (a wiki clone next to the code) is blamed in its own repository;
//! the citation's implied pin is then the newest code commit (first parents from the target) whose
//! commit time is not after the time of the doc line's commit.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use git2::{BlameOptions, Oid, Repository};

use crate::check::{AuditedDoc, CiteRef};

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
            for (c, commit) in blame_lines(
                git,
                Some(target),
                &d.doc.name,
                d.doc.text.as_bytes(),
                &lines,
            ) {
                out.insert(c, commit);
            }
            continue;
        }
        // A doc outside the code repository: blame it where it lives, then map times.
        let Some((doc_repo, rel)) = own_repository(&d.doc.fs_path) else {
            continue;
        };
        let blamed = blame_lines(&doc_repo, None, &rel, d.doc.text.as_bytes(), &lines);
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

/// The commit that last touched each line (1-based) of `path` as it is on disk (`buffer`);
/// uncommitted lines have none.
fn blame_lines(
    git: &Repository,
    newest: Option<Oid>,
    path: &str,
    buffer: &[u8],
    lines: &[(CiteRef, usize)],
) -> Vec<(CiteRef, Oid)> {
    let mut opts = BlameOptions::new();
    if let Some(n) = newest {
        opts.newest_commit(n);
    }
    let committed = newest
        .map(Ok)
        .unwrap_or_else(|| git.head().and_then(|h| h.peel_to_commit()).map(|c| c.id()))
        .and_then(|c| git.find_commit(c))
        .and_then(|c| c.tree())
        .and_then(|t| t.get_path(Path::new(path)))
        .and_then(|e| git.find_blob(e.id()))
        .map(|b| b.content() == buffer)
        .unwrap_or(false);
    // When the doc on disk is the committed one, blame only the lines needed.
    if committed {
        let min = lines.iter().map(|(_, l)| *l).min().unwrap_or(1);
        let max = lines.iter().map(|(_, l)| *l).max().unwrap_or(1);
        opts.min_line(min).max_line(max);
    }
    let Ok(blame) = git.blame_file(Path::new(path), Some(&mut opts)) else {
        return Vec::new();
    };
    let on_disk = if committed {
        None
    } else {
        match blame.blame_buffer(buffer) {
            Ok(b) => Some(b),
            Err(_) => return Vec::new(),
        }
    };
    let blame = on_disk.as_ref().unwrap_or(&blame);
    lines
        .iter()
        .filter_map(|(c, line)| {
            let id = blame.get_line(*line)?.final_commit_id();
            (!id.is_zero()).then_some((*c, id))
        })
        .collect()
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
