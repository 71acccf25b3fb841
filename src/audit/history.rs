//! History: every unpinned citation in a doc tracked by Git is judged at its implied pin (the
//! commit that wrote its line of the doc, see [`blame`]). When it held there, the stale comparison
//! with the target decides its verdict; when it did not, it is judged at the target like any
//! unpinned citation (a citation that was wrong when written and is right now is fine).

use std::collections::{BTreeMap, HashMap};

use git2::Oid;

use super::plan::pin_of;
use crate::check::{self, CiteFacts, Group, Needs};
use crate::model::{AuditedDoc, CiteRef, PinSource};
use crate::resolve::{blame, CodeRepo};

/// The implied pin of every citation that has no pin of its own or of its doc (blame runs once
/// per doc, for all of them).
pub fn implied_pins(repo: &CodeRepo, target: Oid, docs: &[AuditedDoc]) -> HashMap<CiteRef, Oid> {
    let unpinned: Vec<CiteRef> = docs
        .iter()
        .enumerate()
        .flat_map(|(doc, d)| {
            (0..d.extracted.citations.len())
                .filter(move |&index| {
                    pin_of(d, index).1 == PinSource::Target
                        && d.citation(index).repo_path().is_some()
                })
                .map(move |index| CiteRef { doc, index })
        })
        .collect();
    if unpinned.is_empty() {
        return HashMap::new();
    }
    blame::implied_pins(repo, target, docs, &unpinned)
}

/// Judge at the target the citations that did not hold at their implied pin.
pub fn recheck_at_target(
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
