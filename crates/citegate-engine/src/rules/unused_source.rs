//! `unused-source` (note): a source in the `Sources:` list that no `[n]` marker cites.
//!
//! What it checks, why, and its fix safety: `rules/unused-source.yaml` (`citegate explain unused-source`).

use crate::model::{DocId, Finding, Sources};
use crate::registry::RuleId;

pub(super) fn check(doc: DocId, sources: &Sources) -> Vec<Finding> {
    sources
        .entries
        .iter()
        .filter(|s| {
            !sources
                .markers
                .iter()
                .any(|m| m.list == s.list && m.number == s.number)
        })
        .map(|s| {
            Finding::new(
                RuleId::UnusedSource,
                doc,
                s.line_span,
                format!("source [{}] is listed but never cited", s.number),
            )
        })
        .collect()
}
