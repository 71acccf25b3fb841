//! Planning: each citation's revision (its own pin, the doc's, or the target), each distinct pin
//! resolved once, the citation-level rules, and the citations that go on grouped by the blob they
//! cite.

use std::collections::HashMap;

use git2::{Oid, Repository};

use super::history::Implied;
use crate::check::Group;
use crate::model::{AuditedDoc, CiteRef, Finding, PinSource};
use crate::resolve::trees::Trees;
use crate::resolve::{CodeRepo, RevError};
use crate::rules::{Rules, Subject};

/// Drop the tentative citations (a bare `dir/name:3` whose file name has no extension) whose path
/// names nothing at the target: they were model IDs or URL paths, not citations. A path that is
/// never read (absolute, escaping the root) is kept, to be reported.
pub fn drop_tentative(repo: &CodeRepo, git: &Repository, target: Oid, docs: &mut [AuditedDoc]) {
    let mut exists: HashMap<String, bool> = HashMap::new();
    for d in docs.iter_mut() {
        if !d.extracted.citations.iter().any(|c| c.tentative) {
            continue;
        }
        for c in d.extracted.citations.iter().filter(|c| c.tentative) {
            if let Some(p) = c.repo_path() {
                if !exists.contains_key(p) {
                    let found = repo.blob_id(git, target, p).is_some();
                    exists.insert(p.to_string(), found);
                }
            }
        }
        d.extracted
            .retain_citations(|c| match (c.tentative, c.repo_path()) {
                (true, Some(p)) => exists[p],
                _ => true,
            });
    }
}

/// The same object at `path` in both revisions: a citation of it reads the same there.
fn same_blob(trees: &mut Trees, a: Oid, b: Oid, path: &str) -> bool {
    let first = trees.entry(a, path);
    first.is_some() && first == trees.entry(b, path)
}

/// The blob groups to read, and the findings of the citation-level rules.
pub struct Plan {
    pub groups: Vec<Group>,
    pub findings: Vec<Finding>,
}

/// Plan the checks. `implied`: the implied pin of unpinned citations (see
/// [`super::history::implied_pins`]); such a citation is read at its implied pin, or at the target
/// when the cited blob is the same at both (nothing to compare).
pub fn plan(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    docs: &[AuditedDoc],
    implied: &HashMap<CiteRef, Implied>,
    rules: &Rules<'_>,
) -> Plan {
    let mut findings = Vec::new();
    let mut revs: HashMap<&str, Result<Oid, RevError>> = HashMap::new();
    let mut trees = Trees::new(repo.worker());
    // Whether the blob at an implied pin is the target's, once per (pin, path).
    let mut same: HashMap<(Oid, &str), bool> = HashMap::new();
    // Paths borrowed from the docs while grouping; owned, and sorted, once per group at the end.
    let mut groups: HashMap<(Oid, &str), Vec<(CiteRef, PinSource)>> = HashMap::new();
    for (di, d) in docs.iter().enumerate() {
        for (ci, c) in d.extracted.citations.iter().enumerate() {
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
