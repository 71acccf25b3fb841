//! `unsupported-source`: a numbered marker `[n]` in a doc with a `Sources:` list has no source `n`.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-source.yaml` (`citegate explain unsupported-source`).

use crate::model::{DocId, Finding, Sources};
use crate::registry::RuleId;

/// Each marker is checked against its own list (the next one after it in its section).
pub(super) fn check(doc: DocId, sources: &Sources) -> Vec<Finding> {
    let in_list = |list: usize| sources.entries.iter().filter(move |s| s.list == list);
    sources
        .markers
        .iter()
        .filter(|m| !in_list(m.list).any(|s| s.number == m.number))
        .map(|m| {
            let listed = in_list(m.list)
                .map(|s| format!("[{}]", s.number))
                .collect::<Vec<_>>()
                .join(", ");
            Finding::new(
                RuleId::UnsupportedSource,
                doc,
                m.span,
                format!(
                    "[{}] cites a source that is not in the Sources list",
                    m.number
                ),
            )
            .help(format!("the list has {listed}"))
        })
        .collect()
}
