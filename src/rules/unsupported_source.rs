//! `unsupported-source`: a numbered marker `[n]` in a doc with a `Sources:` list has no source `n`.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-source.yaml` (`citegate explain unsupported-source`).

use crate::model::{Finding, Sources};
use crate::registry::RuleId;

pub fn check(doc: usize, sources: &Sources) -> Vec<Finding> {
    if sources.entries.is_empty() {
        return Vec::new();
    }
    let listed = sources
        .entries
        .iter()
        .map(|s| format!("[{}]", s.number))
        .collect::<Vec<_>>()
        .join(", ");
    sources
        .markers
        .iter()
        .filter(|m| !sources.entries.iter().any(|s| s.number == m.number))
        .map(|m| {
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
