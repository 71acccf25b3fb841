//! Planning: each citation's revision (its own pin, the doc's, or the target), each distinct pin
//! resolved once, the citation-level rules, and the citations that go on grouped by the blob they
//! cite.

use std::collections::{BTreeSet, HashMap};

use rayon::prelude::*;

use git2::{Oid, Repository};

use super::history::Implied;
use super::split::DOCS_PER_JOB;
use crate::check::Group;
use crate::model::{AuditedDoc, CiteId, CiteRef, Finding, PinSource};
use crate::model::{Citation, DocId};
use crate::resolve::trees::Trees;
use crate::resolve::{CodeRepo, Entry, FileAt, RevError};
use crate::rules::{Rules, Subject};

/// Drop the tentative citations (an extensionless `dir/name:3`, which could be a model ID or a URL
/// path) whose path is a file neither at the target nor at the citation's own revision (its pin,
/// its doc's pin, else its implied pin): a citation of a file deleted since it was written is
/// kept, and found `stale-deleted`. Returns `implied` keyed by the kept citations' new indices.
/// What each doc keeps is decided per doc in parallel.
pub(super) fn drop_tentative(
    repo: &CodeRepo,
    target: Oid,
    docs: &mut [AuditedDoc],
    mut implied: HashMap<CiteRef, Implied>,
) -> HashMap<CiteRef, Implied> {
    let keeps: Vec<(DocId, Vec<bool>)> = (docs.par_iter().enumerate())
        .with_max_len(DOCS_PER_JOB)
        .filter(|(_, d)| (d.extracted.citations.iter()).any(|c| c.tentative || c.in_known_folder))
        .filter_map(|(doc, d)| {
            let doc = DocId::new(doc);
            let keep = repo.with_handle(|git| kept(repo, git, target, (doc, d), &implied));
            (!keep.iter().all(|k| *k)).then_some((doc, keep))
        })
        .collect();
    if keeps.is_empty() {
        return implied; // nothing dropped: every citation keeps its index
    }
    let mut moved: HashMap<CiteRef, CiteRef> = HashMap::new();
    let mut touched = std::collections::HashSet::new();
    for (doc, keep) in keeps {
        let mut next = 0;
        for (index, kept) in keep.iter().enumerate() {
            if *kept {
                let (from, to) = (CiteId::new(index), CiteId::new(next));
                moved.insert(CiteRef { doc, index: from }, CiteRef { doc, index: to });
                next += 1;
            }
        }
        touched.insert(doc);
        let at = std::cell::Cell::new(0);
        docs[doc.index()].extracted.retain_citations(|_| {
            at.set(at.get() + 1);
            keep[at.get() - 1]
        });
    }
    // Only the docs that lost a citation are renumbered: the rest keep their entries as they are.
    let renumbered: Vec<(CiteRef, Implied)> = implied
        .extract_if(|cite, _| touched.contains(&cite.doc))
        .collect();
    // A dropped citation's pin goes with it.
    implied.extend(
        (renumbered.into_iter()).filter_map(|(cite, pin)| moved.get(&cite).map(|to| (*to, pin))),
    );
    implied
}

/// Which citations of doc `doc` [`drop_tentative`] keeps, in order.
fn kept(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    (doc, d): (DocId, &AuditedDoc),
    implied: &HashMap<CiteRef, Implied>,
) -> Vec<bool> {
    let mut exists: HashMap<(Oid, &str), bool> = HashMap::new();
    let mut file_at = |rev: Oid, path| {
        *exists
            .entry((rev, path))
            .or_insert_with(|| repo.blob_id(git, rev, path).is_some())
    };
    let mut folders: HashMap<(Oid, &str), bool> = HashMap::new();
    let mut folder_at = |rev: Oid, dir| {
        *folders.entry((rev, dir)).or_insert_with(|| {
            let entry = repo.entry_at(git, rev, dir);
            matches!(entry, Ok(Entry::Other(FileAt::Directory)))
        })
    };
    let mut pins: HashMap<&str, Option<Oid>> = HashMap::new();
    (d.extracted.citations.enumerated())
        .map(|(index, c)| {
            let Some(path) = c.repo_path().filter(|_| c.tentative || c.in_known_folder) else {
                return true;
            };
            let own = match d.pin_of(index).0 {
                Some(pin) => *pins
                    .entry(pin)
                    .or_insert_with(|| repo.resolve(git, pin).ok()),
                None => implied.get(&CiteRef { doc, index }).map(|i| i.pin),
            };
            if c.in_known_folder {
                let Some((dir, _)) = path.rsplit_once('/') else {
                    return true; // the root: every repository has it
                };
                return folder_at(target, dir) || own.is_some_and(|rev| folder_at(rev, dir));
            }
            file_at(target, path) || own.is_some_and(|rev| file_at(rev, path))
        })
        .collect()
}

/// The same object at `path` in both revisions: a citation of it reads the same there.
fn same_blob(trees: &mut Trees, a: Oid, b: Oid, path: &str) -> bool {
    let first = trees.entry(a, path);
    first.is_some() && first == trees.entry(b, path)
}

/// The blob groups to read, and the findings of the citation-level rules.
pub(super) struct Plan {
    pub groups: Vec<Group>,
    pub findings: Vec<Finding>,
}

/// A citation that goes on to be read: at `commit`, or at its implied pin `implied` when the
/// blob there is not the target's.
struct Next<'a> {
    commit: Oid,
    path: &'a str,
    cite: CiteRef,
    source: PinSource,
    implied: Option<Oid>,
}

/// Plan the checks. `implied`: the implied pin of unpinned citations (see
/// [`super::history::implied_pins`]); such a citation is read at its implied pin, or at the target
/// when the cited blob is the same at both (nothing to compare). The rules run per doc in
/// parallel; pins are resolved, and implied pins' blobs compared, once each.
pub(super) fn plan(
    repo: &CodeRepo,
    target: Oid,
    docs: &[AuditedDoc],
    implied: &HashMap<CiteRef, Implied>,
    rules: &Rules<'_>,
    wanted: &(dyn Fn(CiteRef) -> bool + Sync),
) -> Plan {
    let revs = resolve_pins(repo, docs, wanted);
    let jobs = (docs.par_iter().enumerate()).with_max_len(DOCS_PER_JOB);
    let per_doc: Vec<(Vec<Finding>, Vec<Next>)> = jobs
        .map(|(di, d)| {
            let di = DocId::new(di);
            let mut findings = Vec::new();
            let next = (wanted_in(d, di, wanted))
                .filter_map(|(ci, c)| {
                    let (pin, source) = d.pin_of(ci);
                    let commit = pin.map_or(Ok(target), |p| revs[p].clone());
                    let subject = Subject {
                        doc: di,
                        index: ci,
                        doc_text: &d.doc.text,
                        citation: c,
                        revision: commit.as_ref().ok().copied(),
                        pin: source,
                    };
                    let retrieved =
                        (c.answer).and_then(|a| d.extracted.answers[a].retrieved.as_deref());
                    let on = rules.on_citation(&subject, pin, &commit, retrieved, &mut findings);
                    let (commit, path) = on?;
                    let cite = CiteRef { doc: di, index: ci };
                    let implied = implied.get(&cite).map(|i| i.pin).filter(|p| *p != target);
                    Some(Next {
                        commit,
                        path,
                        cite,
                        source,
                        implied,
                    })
                })
                .collect();
            (findings, next)
        })
        .collect();
    let same = same_at_target(repo, target, per_doc.iter().flat_map(|(_, next)| next));
    let mut findings = Vec::new();
    let mut reads: Vec<(Oid, &str, CiteRef, PinSource)> = Vec::new();
    for (found, next) in per_doc {
        findings.extend(found);
        reads.extend(next.into_iter().map(|n| match n.implied {
            Some(pin) => {
                let at = if same[&(pin, n.path)] { target } else { pin };
                (at, n.path, n.cite, PinSource::Implied)
            }
            None => (n.commit, n.path, n.cite, n.source),
        }));
    }
    Plan {
        groups: grouped(reads),
        findings,
    }
}

/// Each distinct pin of the citations `wanted` keeps, resolved once.
fn resolve_pins<'a>(
    repo: &CodeRepo,
    docs: &'a [AuditedDoc],
    wanted: &(dyn Fn(CiteRef) -> bool + Sync),
) -> HashMap<&'a str, Result<Oid, RevError>> {
    let pins: BTreeSet<&str> = (docs.par_iter().enumerate())
        .map(|(di, d)| {
            // Most citations of a doc share its pin: each run of one is counted once.
            let mut last = None;
            let pinned = wanted_in(d, DocId::new(di), wanted).filter_map(|(ci, _)| d.pin_of(ci).0);
            let new = pinned.filter(|p| last.replace(*p) != Some(*p));
            new.collect::<BTreeSet<&str>>()
        })
        .reduce(BTreeSet::new, |mut a, mut b| {
            a.append(&mut b);
            a
        });
    // Resolved on every core: a wiki's permalinks name hundreds of revisions.
    (pins.into_par_iter())
        .map(|p| (p, repo.with_handle(|git| repo.resolve(git, p))))
        .collect()
}

/// Whether the blob at each (implied pin, path) of `next` is the target's, once per pair.
fn same_at_target<'n, 'a: 'n>(
    repo: &CodeRepo,
    target: Oid,
    next: impl Iterator<Item = &'n Next<'a>>,
) -> HashMap<(Oid, &'a str), bool> {
    let asked: BTreeSet<(Oid, &str)> = next.filter_map(|n| Some((n.implied?, n.path))).collect();
    if asked.is_empty() {
        return HashMap::new(); // no repository handle opened for nothing
    }
    let mut trees = Trees::new(repo.worker());
    (asked.into_iter())
        .map(|(pin, path)| ((pin, path), same_blob(&mut trees, pin, target, path)))
        .collect()
}

/// The citations of doc `di` that `wanted` keeps.
fn wanted_in<'a>(
    d: &'a AuditedDoc,
    di: DocId,
    wanted: &'a (dyn Fn(CiteRef) -> bool + Sync),
) -> impl Iterator<Item = (CiteId, &'a Citation)> + 'a {
    (d.extracted.citations.enumerated()).filter(move |(ci, _)| {
        wanted(CiteRef {
            doc: di,
            index: *ci,
        })
    })
}

/// Citations grouped by the blob they read, (revision, path), in that order; each group's
/// citations in doc order.
fn grouped(mut reads: Vec<(Oid, &str, CiteRef, PinSource)>) -> Vec<Group> {
    // By the IDs' bytes, as `Oid`'s order is (`git_oid_cmp`), without a call into libgit2 per
    // comparison.
    reads.par_sort_unstable_by(|a, b| (a.0.as_bytes(), a.1, a.2).cmp(&(b.0.as_bytes(), b.1, b.2)));
    reads
        .chunk_by(|a, b| a.0.as_bytes() == b.0.as_bytes() && a.1 == b.1)
        .map(|g| {
            let cites = g.iter().map(|r| (r.2, r.3)).collect();
            ((g[0].0, g[0].1.to_string()), cites)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_in_the_order_of_their_ids_then_paths_and_keep_doc_order() {
        // IDs whose first bytes tie and differ late, and paths that sort apart from their IDs.
        let oid = |b: &[u8]| {
            let mut raw = [7u8; 20];
            raw[20 - b.len()..].copy_from_slice(b);
            Oid::from_bytes(&raw).unwrap()
        };
        let ids = [oid(&[0xff, 1]), oid(&[0, 2]), oid(&[0x80]), oid(&[0, 1])];
        let paths = ["b.rs", "a.rs", "a.rs/x", "B.rs"];
        let mut reads = Vec::new();
        for k in 0..40usize {
            let cite = CiteRef {
                doc: DocId::new(k % 3),
                index: CiteId::new(k),
            };
            reads.push((ids[k * 7 % 4], paths[k * 5 % 4], cite, PinSource::Target));
        }
        let mut expected: Vec<((Oid, String), Vec<CiteRef>)> = Vec::new();
        let mut keys: Vec<(Oid, &str)> = reads.iter().map(|r| (r.0, r.1)).collect();
        keys.sort();
        keys.dedup();
        for (id, path) in keys {
            let mut cites: Vec<CiteRef> = (reads.iter())
                .filter(|r| (r.0, r.1) == (id, path))
                .map(|r| r.2)
                .collect();
            cites.sort();
            expected.push(((id, path.to_string()), cites));
        }
        reads.reverse();
        let got: Vec<((Oid, String), Vec<CiteRef>)> = grouped(reads)
            .into_iter()
            .map(|(key, cites)| (key, cites.into_iter().map(|c| c.0).collect()))
            .collect();
        assert_eq!(got, expected);
    }
}
