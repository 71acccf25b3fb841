//! `history-cut`: citations of a doc resolve by line history that this clone does not have (a
//! shallow clone's boundary, a graft), so whether they went stale cannot be checked.
//!
//! What it checks, why, and its fix safety: `rules/history-cut.yaml` (`citegate explain history-cut`).

use git2::Oid;

use super::context::short;
use crate::model::{AuditedDoc, CiteId, DocId, Finding};
use crate::registry::RuleId;

/// One finding for the doc at index `doc`, at the first of `cut` (its citations whose line
/// blame attributes to `boundary`, a commit whose parents this clone does not have).
pub(super) fn check(
    doc: DocId,
    d: &AuditedDoc,
    cut: &[CiteId],
    boundary: Oid,
    shallow: bool,
) -> Option<Finding> {
    let first = d.citation(*cut.first()?);
    let n = cut.len();
    let (these, verb) = match n {
        1 => ("1 citation".to_string(), "resolves"),
        _ => (format!("{n} citations"), "resolve"),
    };
    let why = if shallow {
        "the boundary of this shallow clone"
    } else {
        "a grafted commit"
    };
    let message = format!(
        "{these} of this doc {verb} by line history this clone does not have: blame stops at {} ({why}), so whether {} went stale since written cannot be checked",
        short(boundary),
        if n == 1 { "it" } else { "they" },
    );
    let f = Finding::new(RuleId::HistoryCut, doc, first.span, message);
    Some(f.help(
        "fetch the whole history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout), or turn history off on purpose (`--no-history`: unpinned citations are then checked at the target only)",
    ))
}
