//! Planning: each citation's revision (its own pin, the doc's, or the target), each distinct pin
//! resolved once, the citation-level rules, and the citations that go on grouped by the blob they
//! cite.

use std::collections::HashMap;

use git2::{Oid, Repository};

use super::history::Implied;
use crate::check::Group;
use crate::model::{AuditedDoc, CiteId, CiteRef, Finding, PinSource};
use crate::model::{DocId, DocList};
use crate::resolve::trees::Trees;
use crate::resolve::{CodeRepo, RevError};
use crate::rules::{Rules, Subject};

/// Drop the tentative citations (an extensionless `dir/name:3`, which could be a model ID or a URL
/// path) whose path is a file neither at the target nor at the citation's own revision (its pin,
/// its doc's pin, else its implied pin): a citation of a file deleted since it was written is
/// kept, and found `stale-deleted`. Returns `implied` keyed by the kept citations' new indices.
pub(super) fn drop_tentative(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    docs: &mut [AuditedDoc],
    mut implied: HashMap<CiteRef, Implied>,
) -> HashMap<CiteRef, Implied> {
    let mut exists: HashMap<(Oid, String), bool> = HashMap::new();
    let mut file_at = |rev: Oid, path: &str| {
        *exists
            .entry((rev, path.to_string()))
            .or_insert_with(|| repo.blob_id(git, rev, path).is_some())
    };
    let mut pins: HashMap<String, Option<Oid>> = HashMap::new();
    let mut moved: HashMap<CiteRef, CiteRef> = HashMap::new();
    let mut touched = std::collections::HashSet::new();
    for (doc, d) in docs.iter_mut().enumerate() {
        let doc = DocId::new(doc);
        if !d.extracted.citations.iter().any(|c| c.tentative) {
            continue;
        }
        let keep: Vec<bool> = (0..d.extracted.citations.len())
            .map(|index| {
                let index = CiteId::new(index);
                let c = d.citation(index);
                let (true, Some(path)) = (c.tentative, c.repo_path()) else {
                    return true;
                };
                let own = match d.pin_of(index).0 {
                    Some(pin) => *pins
                        .entry(pin.to_string())
                        .or_insert_with(|| repo.resolve(git, pin).ok()),
                    None => implied.get(&CiteRef { doc, index }).map(|i| i.pin),
                };
                file_at(target, path) || own.is_some_and(|rev| file_at(rev, path))
            })
            .collect();
        if keep.iter().all(|k| *k) {
            continue; // nothing dropped: its citations keep their indices
        }
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
        d.extracted.retain_citations(|_| {
            at.set(at.get() + 1);
            keep[at.get() - 1]
        });
    }
    if touched.is_empty() {
        return implied;
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

/// Plan the checks. `implied`: the implied pin of unpinned citations (see
/// [`super::history::implied_pins`]); such a citation is read at its implied pin, or at the target
/// when the cited blob is the same at both (nothing to compare).
pub(super) fn plan(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    docs: &[AuditedDoc],
    implied: &HashMap<CiteRef, Implied>,
    rules: &Rules<'_>,
    wanted: &dyn Fn(CiteRef) -> bool,
) -> Plan {
    let mut findings = Vec::new();
    let mut revs: HashMap<&str, Result<Oid, RevError>> = HashMap::new();
    let mut trees = Trees::new(repo.worker());
    // Whether the blob at an implied pin is the target's, once per (pin, path).
    let mut same: HashMap<(Oid, &str), bool> = HashMap::new();
    // Paths borrowed from the docs while grouping; owned, and sorted, once per group at the end.
    let mut groups: HashMap<(Oid, &str), Vec<(CiteRef, PinSource)>> = HashMap::new();
    for (di, d) in docs.enumerated() {
        for (ci, c) in d.extracted.citations.enumerated() {
            if !wanted(CiteRef { doc: di, index: ci }) {
                continue;
            }
            let (pin, source) = d.pin_of(ci);
            let commit = match pin {
                None => Ok(target),
                Some(p) => revs
                    .entry(p)
                    .or_insert_with(|| repo.resolve(git, p))
                    .clone(),
            };
            let subject = Subject {
                doc: di,
                index: ci,
                doc_text: &d.doc.text,
                citation: c,
                revision: commit.as_ref().ok().copied(),
                pin: source,
            };
            let retrieved = c
                .answer
                .and_then(|a| d.extracted.answers[a].retrieved.as_deref());
            let next = rules.on_citation(&subject, pin, &commit, retrieved, &mut findings);
            let Some((commit, path)) = next else { continue };
            let cite = CiteRef { doc: di, index: ci };
            let (commit, source) = match implied.get(&cite) {
                Some(&Implied { pin, .. }) if pin != target => {
                    let same = *same
                        .entry((pin, path))
                        .or_insert_with(|| same_blob(&mut trees, pin, target, path));
                    (if same { target } else { pin }, PinSource::Implied)
                }
                _ => (commit, source),
            };
            groups
                .entry((commit, path))
                .or_default()
                .push((cite, source));
        }
    }
    let mut groups: Vec<Group> = groups
        .into_iter()
        .map(|((commit, path), cites)| ((commit, path.to_string()), cites))
        .collect();
    groups.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Plan { groups, findings }
}
