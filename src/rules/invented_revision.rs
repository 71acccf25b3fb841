//! `invented-revision`: the citation's pin (a permalink's SHA, branch or tag, front matter
//! `citegate: {rev}`, an answer's `revision`) names no commit in the repository.
//!
//! What it checks, why, and its fix safety: `rules/invented-revision.yaml` (`citegate explain invented-revision`).

use super::RuleId;
use crate::check::Subject;
use crate::finding::Finding;
use crate::resolve::RevError;

pub fn finding(subject: &Subject<'_>, rev: &str, err: &RevError) -> Finding {
    let (message, help) = err.describe(rev);
    let f = subject.finding(RuleId::InventedRevision, message);
    match help {
        Some(h) => f.help(h),
        None => f,
    }
}
