//! History: every unpinned citation in a doc tracked by Git is judged at its implied pin (the
//! commit that wrote its line of the doc, see [`blame`]). When it held there, the stale comparison
//! with the target decides its verdict; when it did not, it is judged at the target like any
//! unpinned citation (a citation that was wrong when written and is right now is fine).

use std::collections::{BTreeMap, HashMap};

use git2::{Oid, Repository};
use rayon::prelude::*;

use crate::check::{self, CiteFacts, Group, Needs};
use crate::model::{AuditedDoc, CiteRef, DocId, FileStat, PinSource};
use crate::resolve::blame::{self, Job, ObjectError, TreeCache};
use crate::resolve::index;
use crate::resolve::CodeRepo;

/// An unpinned citation's implied pin: the code commit it is checked at, and the commit that
/// wrote its line of the doc (the same commit, unless the doc lives in another repository).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Implied {
    /// The code commit the citation is checked at.
    pub pin: Oid,
    /// The commit that wrote the citation's line of the doc.
    pub line_commit: Oid,
}

/// The implied pin of every citation that has no pin of its own or of its doc. The docs of the
/// audited repository are blamed together, one walk of the history per worker thread (each over
/// a share of the docs); a doc Git never had (not at the target, not at HEAD, not in the index)
/// costs no walk at all.
pub(crate) fn implied_pins(
    repo: &CodeRepo,
    target: Oid,
    docs: &[AuditedDoc],
    wanted: &(dyn Fn(CiteRef) -> bool + Sync),
) -> Result<HashMap<CiteRef, Implied>, ObjectError> {
    // The citations to blame, by doc in doc order (found per doc in parallel).
    let by_doc: Vec<(DocId, Vec<CiteRef>)> = (docs.par_iter().enumerate())
        .filter_map(|(doc, d)| {
            let doc = DocId::new(doc);
            let cites: Vec<CiteRef> = (d.extracted.citations.enumerated())
                .filter(|(index, c)| {
                    let unpinned = d.pin_of(*index).1 == PinSource::Target;
                    unpinned && c.repo_path().is_some() && wanted(CiteRef { doc, index: *index })
                })
                .map(|(index, _)| CiteRef { doc, index })
                .collect();
            (!cites.is_empty()).then_some((doc, cites))
        })
        .collect();
    if by_doc.is_empty() {
        return Ok(HashMap::new());
    }
    let git = repo.worker();
    // A doc inside a submodule (a wiki kept as one) has its own history, as a doc outside the
    // repository does: the code repository only records which commit of it is checked out.
    let submodules = submodule_dirs(&git);
    let in_submodule = |name: &str| {
        (submodules.iter()).any(|s| {
            name.strip_prefix(s.as_str())
                .is_some_and(|r| r.starts_with('/'))
        })
    };
    let (here, elsewhere): (Vec<_>, Vec<_>) = by_doc.into_iter().partition(|(doc, _)| {
        let d = &docs[*doc].doc;
        d.repo_dir.is_some() && !in_submodule(&d.name)
    });
    let names: Vec<&str> = here
        .iter()
        .map(|(d, _)| docs[*d].doc.name.as_str())
        .collect();
    // What Git's index says each doc's text is, to skip hashing it (see `Job::known`).
    let stats: Vec<(&str, Option<FileStat>)> = (names.iter().zip(&here))
        .map(|(name, (doc, _))| (*name, docs[*doc].doc.stat))
        .collect();
    // Where each doc's blame starts, while the index is read on the other core.
    let ((git, starts), known) = rayon::join(
        move || {
            let starts = blamed_from(&git, target, &names);
            (git, starts)
        },
        || repo.with_handle(|g| index::vouched(g, &stats)),
    );
    let starts = starts?;
    let (asked, jobs): (Vec<&[CiteRef]>, Vec<Job>) = (here.par_iter().zip(starts).zip(known))
        .filter_map(|(((doc, cites), start), known)| {
            Some((&cites[..], job(&docs[*doc], start?, known, cites)))
        })
        .unzip();
    let mut out = HashMap::with_capacity(asked.iter().map(|a| a.len()).sum());
    let blamed = blame_in_parallel(repo, &jobs)?;
    for (cites, commits) in asked.into_iter().zip(blamed) {
        for (c, commit) in cites.iter().zip(commits) {
            if let Some(commit) = commit {
                let implied = Implied {
                    pin: commit,
                    line_commit: commit,
                };
                out.insert(*c, implied);
            }
        }
    }
    for (doc, cites) in elsewhere {
        out.extend(in_own_repository(&git, target, &docs[doc], &cites)?);
    }
    Ok(out)
}

/// [`implied_pins`] when history is on (else none); an object it cannot read is recorded in
/// `repo` (the run then fails naming it) and no citation gets an implied pin.
/// `wanted`: the citations to find one for (a re-check of fixes looks at the fixed ones only).
pub(crate) fn implied_when(
    history: bool,
    repo: &CodeRepo,
    target: Oid,
    docs: &[AuditedDoc],
    wanted: &(dyn Fn(CiteRef) -> bool + Sync),
) -> HashMap<CiteRef, Implied> {
    if !history {
        return HashMap::new();
    }
    implied_pins(repo, target, docs, wanted).unwrap_or_else(|e| {
        repo.broken_object(e);
        HashMap::new()
    })
}

/// The citations, by doc, whose line blame attributes to a commit past which the clone has no
/// history (a shallow clone's boundary, a graft: see [`CodeRepo::cut`]), with the first such
/// commit: the revision they were written for is unknown.
pub(crate) fn cut_short(
    repo: &CodeRepo,
    implied: &HashMap<CiteRef, Implied>,
) -> BTreeMap<DocId, (Vec<crate::model::CiteId>, Oid)> {
    let mut out: BTreeMap<DocId, (Vec<crate::model::CiteId>, Oid)> = BTreeMap::new();
    if repo.cut.is_empty() {
        return out;
    }
    let mut cut: Vec<(CiteRef, Oid)> = (implied.iter())
        .filter(|(_, i)| repo.cut.contains(&i.line_commit))
        .map(|(c, i)| (*c, i.line_commit))
        .collect();
    cut.sort_unstable();
    for (c, commit) in cut {
        out.entry(c.doc)
            .or_insert((Vec::new(), commit))
            .0
            .push(c.index);
    }
    out
}

/// Blame the jobs in one walk per worker thread, each over a contiguous share of the docs (docs
/// of one folder stay together and share their tree reads), in order.
fn blame_in_parallel(
    repo: &CodeRepo,
    jobs: &[Job<'_>],
) -> Result<Vec<Vec<Option<Oid>>>, ObjectError> {
    let share = jobs
        .len()
        .div_ceil(rayon::current_num_threads().max(1))
        .max(1);
    let shares: Vec<Result<Vec<Vec<Option<Oid>>>, ObjectError>> = jobs
        .par_chunks(share)
        .map(|part| blame::blame(&repo.worker(), part))
        .collect();
    let mut out = Vec::with_capacity(jobs.len());
    for part in shares {
        out.extend(part?);
    }
    Ok(out)
}

fn job<'a>(d: &'a AuditedDoc, newest: Oid, known: Option<Oid>, cites: &[CiteRef]) -> Job<'a> {
    Job {
        path: d.doc.name.clone(),
        newest,
        text: d.doc.text.as_bytes(),
        known,
        lines: cites
            .iter()
            .map(|c| d.doc.lines.line(written_at(d.citation(c.index))))
            .collect(),
    }
}

/// Where in the doc a citation's revision is read from (the line blamed): where it starts, but
/// for an include written over several lines (Sphinx's options, a MyST fence), where its line
/// numbers are, else its last line.
fn written_at(c: &crate::model::Citation) -> usize {
    match (c.syntax.is_include(), c.lines_span) {
        (true, Some((span, _))) => span.start,
        (true, None) => c.span.end.saturating_sub(1).max(c.span.start),
        (false, _) => c.span.start,
    }
}

/// The commit each doc is blamed from: the target when it holds the doc; else HEAD when it holds
/// it (a wiki branch checked out and audited against another target); else, for a doc in the
/// index, the last commit along the target's first parents that had it (one walk for all such
/// docs); else none (a doc Git never had).
pub(crate) fn blamed_from(
    git: &Repository,
    target: Oid,
    paths: &[&str],
) -> Result<Vec<Option<Oid>>, ObjectError> {
    let head = git.head().ok().and_then(|h| h.target());
    // Read only for a doc neither the target nor HEAD has (reading it checksums the whole file).
    let mut index: Option<Option<git2::Index>> = None;
    // The docs of a folder read it once per commit.
    let mut trees = TreeCache::new(git);
    let mut out = vec![None; paths.len()];
    let mut gone: Vec<usize> = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        if holds(&mut trees, target, path)? {
            out[i] = Some(target);
        } else if let Some(head) = head.filter(|h| holds(&mut trees, *h, path).unwrap_or(false)) {
            out[i] = Some(head);
        } else if (index.get_or_insert_with(|| git.index().ok()).as_ref())
            .is_some_and(|x| x.get_path(std::path::Path::new(path), 0).is_some())
        {
            gone.push(i);
        }
    }
    if gone.is_empty() {
        return Ok(out);
    }
    let mut walk = git
        .revwalk()
        .map_err(|e| ObjectError::new(target, "commit", &e))?;
    walk.push(target)
        .and_then(|_| walk.simplify_first_parent())
        .map_err(|e| ObjectError::new(target, "commit", &e))?;
    for commit in walk {
        let commit = commit.map_err(|e| ObjectError::new(target, "commit", &e))?;
        trees.clear();
        let mut left = Vec::with_capacity(gone.len());
        for i in gone {
            match holds(&mut trees, commit, paths[i])? {
                true => out[i] = Some(commit),
                false => left.push(i),
            }
        }
        gone = left;
        if gone.is_empty() {
            break;
        }
    }
    Ok(out)
}

/// Whether `commit`'s tree has a blob at `path`.
fn holds(trees: &mut TreeCache<'_>, commit: Oid, path: &str) -> Result<bool, ObjectError> {
    Ok(trees.blob_at(commit, path)?.is_some())
}

/// A doc outside the code repository (a wiki clone next to it): blamed in its own repository
/// from its HEAD; the implied pin is the newest code commit, along first parents from the
/// target, whose commit time is not after that of the doc line's commit.
fn in_own_repository(
    git: &Repository,
    target: Oid,
    d: &AuditedDoc,
    cites: &[CiteRef],
) -> Result<Vec<(CiteRef, Implied)>, ObjectError> {
    let Some((doc_git, rel)) = blame::own_repository(&d.doc.fs_path) else {
        return Ok(Vec::new());
    };
    let Some(head) = doc_git.head().ok().and_then(|h| h.target()) else {
        return Ok(Vec::new());
    };
    if !holds(&mut TreeCache::new(&doc_git), head, &rel)? {
        return Ok(Vec::new());
    }
    let mut job = job(d, head, None, cites);
    job.path = rel;
    let commits = blame::blame(&doc_git, std::slice::from_ref(&job))?;
    let history = first_parent_times(git, target);
    let mut out = Vec::new();
    for (c, line_commit) in cites.iter().zip(commits.into_iter().flatten()) {
        let Some(line_commit) = line_commit else {
            continue;
        };
        let Ok(when) = doc_git.find_commit(line_commit).map(|c| c.time().seconds()) else {
            continue;
        };
        if let Some((_, pin)) = history.iter().find(|(t, _)| *t <= when) {
            out.push((
                *c,
                Implied {
                    pin: *pin,
                    line_commit,
                },
            ));
        }
    }
    Ok(out)
}

/// The folders the index records as submodules (gitlinks), repository-relative. The index is
/// read only when the work tree has a `.gitmodules` (it is read for every check of an editor's
/// buffer, and a large repository's index is megabytes).
fn submodule_dirs(git: &Repository) -> Vec<String> {
    let listed = git
        .workdir()
        .is_some_and(|w| w.join(".gitmodules").is_file());
    let Some(index) = listed.then(|| git.index().ok()).flatten() else {
        return Vec::new();
    };
    (index.iter())
        .filter(|e| e.mode == 0o160000)
        .map(|e| String::from_utf8_lossy(&e.path).into_owned())
        .collect()
}

/// (commit time, commit) along first parents from `target`, newest first.
fn first_parent_times(git: &Repository, target: Oid) -> Vec<(i64, Oid)> {
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

/// Judge at the target the citations that did not hold at their implied pin.
pub(crate) fn recheck_at_target(
    repo: &CodeRepo,
    target: Oid,
    docs: &[AuditedDoc],
    facts: &mut [CiteFacts],
    needs: &dyn Needs,
) {
    let mut again: BTreeMap<(Oid, String), Vec<(CiteRef, PinSource)>> = BTreeMap::new();
    for f in facts.iter() {
        if f.pin != PinSource::Implied || f.commit == target || f.holds {
            continue;
        }
        if let Some(path) = docs[f.cite.doc].citation(f.cite.index).repo_path() {
            again
                .entry((target, path.to_string()))
                .or_default()
                .push((f.cite, PinSource::Target));
        }
    }
    if again.is_empty() {
        return;
    }
    let again: Vec<Group> = again.into_iter().collect();
    let now: HashMap<CiteRef, CiteFacts> = check::gather(repo, &again, docs, target, needs, &|| {})
        .into_iter()
        .map(|f| (f.cite, f))
        .collect();
    for f in facts.iter_mut() {
        if let Some(at_target) = now.get(&f.cite) {
            *f = at_target.clone();
        }
    }
}
