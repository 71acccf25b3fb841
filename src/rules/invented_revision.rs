//! `invented-revision`: the citation's pin (a permalink's SHA, branch or tag, front matter
//! `citegate: {rev}`, an answer's `revision`) names no commit in the repository.
//!
//! What it checks, why, and its fix safety: `rules/invented-revision.yaml` (`citegate explain invented-revision`).

use super::context::Subject;
use crate::model::Finding;
use crate::registry::RuleId;
use crate::resolve::RevError;

/// `commit` is what the citation's pin `rev` resolved to.
pub fn check(
    subject: &Subject<'_>,
    rev: &str,
    commit: &Result<git2::Oid, RevError>,
) -> Option<Finding> {
    let err = commit.as_ref().err()?;
    let (message, help) = err.describe(rev);
    let f = subject.finding(RuleId::InventedRevision, message);
    Some(match help {
        Some(h) => f.help(h),
        None => f,
    })
}
