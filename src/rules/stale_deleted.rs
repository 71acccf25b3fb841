//! `stale-deleted` (error): the cited file is gone at the target and was not renamed.
//!
//! What it checks, why, and its fix safety: `rules/stale-deleted.yaml` (`citegate explain stale-deleted`). The
//! verdict is made in [`crate::check::stale`].

use super::RuleId;
use crate::check::{short, Subject};
use crate::finding::Finding;

pub fn finding(subject: &Subject<'_>, target: git2::Oid, path: &str) -> Finding {
    subject
        .finding(
            RuleId::StaleDeleted,
            format!(
                "`{path}` held at {} but is gone at {} (deleted, not renamed)",
                subject.short_rev(),
                short(target)
            ),
        )
        .help("remove the citation, or pin it to the revision it was written for")
}
