//! `malformed-doc`: a doc that cannot be read or parsed: invalid JSON in an answer file, invalid
//! UTF-8, a binary or oversized file, broken YAML front matter.
//!
//! What it checks, why, and its fix safety: `rules/malformed-doc.yaml` (`citegate explain malformed-doc`).
//! The parsers locate the problem ([`crate::model::DocProblem`]); this turns each into its finding.

use crate::model::{DocId, Extracted, Finding};

pub(super) fn check(doc: DocId, ext: &Extracted) -> Vec<Finding> {
    ext.problems
        .iter()
        .map(|p| {
            let mut f = Finding::new(p.rule, doc, p.span, p.message.clone());
            f.help = p.help.clone();
            f
        })
        .collect()
}
