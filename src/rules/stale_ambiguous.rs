//! `stale-ambiguous` (warning): the cited content occurs more than once at the target.
//!
//! What it checks, why, and its fix safety: `rules/stale-ambiguous.yaml` (`citegate explain stale-ambiguous`). The
//! verdict is made in [`crate::check::stale`].

use super::RuleId;
use crate::check::{short, Subject};
use crate::citation::LineRange;
use crate::finding::Finding;

pub fn finding(
    subject: &Subject<'_>,
    target: git2::Oid,
    path: &str,
    found: &[LineRange],
) -> Finding {
    subject
        .finding(
            RuleId::StaleAmbiguous,
            format!(
                "`{}` moved, and at {} the cited content occurs {} times in `{path}`: not re-anchored",
                subject.citation.label(),
                short(target),
                found.len()
            ),
        )
        .help(format!(
            "it is at lines {}",
            found.iter().map(|r| r.to_string()).collect::<Vec<_>>().join(", ")
        ))
}
