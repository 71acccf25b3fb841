//! History: an unpinned citation that fails at the target is checked again at its implied pin (the
//! commit that wrote its line of the doc). When it held there, its facts become those of that
//! revision, and the stale comparison with the target decides its verdict.

use std::collections::{BTreeMap, HashMap};

use git2::{Oid, Repository};

use crate::check::{self, CiteFacts, Group, Needs};
use crate::model::{AuditedDoc, CiteRef, PinSource};
use crate::resolve::{blame, CodeRepo};

/// Nothing beyond the basics: literal support is read at the revision a citation resolves at
/// first, and kept.
struct Basics;

impl Needs for Basics {
    fn literals(&self, _doc: usize) -> bool {
        false
    }
}

/// Replace the facts of each unpinned citation that fails at the target by its facts at its
/// implied pin, when it held there.
pub fn recheck_at_implied_pins(
    repo: &CodeRepo,
    git: &Repository,
    target: Oid,
    docs: &[AuditedDoc],
    facts: &mut [CiteFacts],
) {
    let failing: Vec<CiteRef> = facts
        .iter()
        .filter(|f| f.pin == PinSource::Target && !f.holds)
        .map(|f| f.cite)
        .collect();
    if failing.is_empty() {
        return;
    }
    let implied = blame::implied_pins(git, target, docs, &failing);
    let mut again: BTreeMap<(Oid, String), Vec<(CiteRef, PinSource)>> = BTreeMap::new();
    for (cite, pin) in implied.iter().filter(|(_, pin)| **pin != target) {
        if let Some(path) = docs[cite.doc].citation(cite.index).repo_path() {
            again
                .entry((*pin, path.to_string()))
                .or_default()
                .push((*cite, PinSource::Implied));
        }
    }
    let again: Vec<Group> = again.into_iter().collect();
    let held_then: HashMap<CiteRef, CiteFacts> =
        check::gather(repo, &again, docs, target, &Basics, &|| {})
            .into_iter()
            .filter(|f| f.holds)
            .map(|f| (f.cite, f))
            .collect();
    for f in facts.iter_mut() {
        if let Some(then) = held_then.get(&f.cite) {
            // It held when written: its verdict is the comparison with the target.
            let support = f.support.take();
            *f = then.clone();
            f.support = support;
        }
    }
}
