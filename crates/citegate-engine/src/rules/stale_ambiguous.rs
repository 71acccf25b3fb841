//! `stale-ambiguous` (warning): the cited content occurs more than once at the target.
//!
//! What it checks, why, and its fix safety: `rules/stale-ambiguous.yaml` (`citegate explain stale-ambiguous`). The
//! verdict is [`crate::check::stale::classify`]'s; this file turns its variant into the finding.

use super::context::{short, Subject};
use crate::check::stale::StaleVerdict;
use crate::model::Finding;
use crate::registry::RuleId;

pub(super) fn check(
    subject: &Subject<'_>,
    target: git2::Oid,
    verdict: &StaleVerdict,
) -> Option<Finding> {
    let StaleVerdict::Ambiguous { path, found } = verdict else {
        return None;
    };
    let f = subject
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
        ));
    Some(f)
}
