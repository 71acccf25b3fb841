//! `stale-deleted` (error): the cited file is gone at the target and was not renamed.
//!
//! What it checks, why, and its fix safety: `rules/stale-deleted.yaml` (`citegate explain stale-deleted`). The
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
    let StaleVerdict::Deleted { path } = verdict else {
        return None;
    };
    let f = subject
        .finding(
            RuleId::StaleDeleted,
            format!(
                "`{path}` held at {} but is gone at {} (deleted, not renamed)",
                subject.short_rev(),
                short(target)
            ),
        )
        .help("remove the citation, or pin it to the revision it was written for");
    Some(f)
}
