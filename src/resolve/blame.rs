//! Implied pins: a citation with no pin, in a doc tracked by Git, was written for the commit that
//! last touched its line of the doc. This blame runs only for citations that fail at the target,
//! only for the lines they are on, and stops at the first commit that changed them, so clean runs
//! never pay for it.
//!
//! A doc in another repository (a wiki clone next to the code) is blamed in its own repository;
//! the citation's implied pin is then the newest code commit (first parents from the target) whose
//! commit time is not after the time of the doc line's commit.

use std::collections::{BTreeMap, HashMap};
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

/// The commit that last touched each line (1-based) of `path` as it is on disk (`buffer`), by
/// line content: walking first parents back from `newest` (HEAD when `None`), a line's commit is
/// the oldest of the unbroken run of commits, ending at `newest`, whose version of the doc holds
/// that exact line. Lines not in the committed doc (uncommitted edits) have none.
///
/// This replaces libgit2's blame, which diffs whole trees at every step and, for a doc added in
/// the last commit, hunts for renames across that commit: it took 15% of a 100k-citation audit
/// for what this walk answers with a few tree lookups per doc (BENCHMARKS.md). Lines are matched
/// by text, so a citation line moved within its doc keeps its pin, as it should.
fn blame_lines(
    git: &Repository,
    newest: Option<Oid>,
    path: &str,
    buffer: &[u8],
    lines: &[(CiteRef, usize)],
) -> Vec<(CiteRef, Oid)> {
    let Ok(text) = std::str::from_utf8(buffer) else {
        return Vec::new();
    };
    let disk: Vec<&str> = text.lines().collect();
    let newest = match newest {
        Some(n) => n,
        None => match git.head().and_then(|h| h.peel_to_commit()) {
            Ok(c) => c.id(),
            Err(_) => return Vec::new(),
        },
    };
    let mut walk = match git.revwalk() {
        Ok(w) => w,
        Err(_) => return Vec::new(),
    };
    if walk.push(newest).is_err() || walk.simplify_first_parent().is_err() {
        return Vec::new();
    }
    // (citation, its line's text, the oldest commit of the run so far).
    let mut open: Vec<(CiteRef, &str, Option<Oid>)> = lines
        .iter()
        .filter_map(|(c, l)| Some((*c, *disk.get(l.checked_sub(1)?)?, None)))
        .collect();
    let mut done: Vec<(CiteRef, Oid)> = Vec::new();
    let mut last_blob: Option<Oid> = None;
    for commit in walk.flatten() {
        if open.is_empty() {
            break;
        }
        let blob = git
            .find_commit(commit)
            .and_then(|c| c.tree())
            .and_then(|t| t.get_path(Path::new(path)))
            .map(|e| e.id());
        let Ok(blob) = blob else {
            break; // The doc did not exist before this: the runs end here.
        };
        if last_blob != Some(blob) {
            let content = git
                .find_blob(blob)
                .map(|b| b.content().to_vec())
                .unwrap_or_default();
            let here: std::collections::HashSet<&[u8]> = content
                .split(|&b| b == b'\n')
                .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
                .collect();
            open.retain(|(c, line, since)| {
                if here.contains(line.as_bytes()) {
                    return true;
                }
                if let Some(since) = since {
                    done.push((*c, *since));
                }
                false
            });
            last_blob = Some(blob);
        }
        for entry in &mut open {
            entry.2 = Some(commit);
        }
    }
    done.extend(
        open.into_iter()
            .filter_map(|(c, _, since)| Some((c, since?))),
    );
    done
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
