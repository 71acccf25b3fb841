//! `invented-revision`: the citation's pin (a permalink's SHA, branch or tag, front matter
//! `citegate: {rev}`, an answer's `revision`) names no commit in the repository.
//!
//! Why: a pin is the promise that the citation can be replayed; one that names nothing cannot be
//! checked, and citegate never falls back to another revision silently. In a shallow clone the
//! finding says the commit may not have been fetched. Fix: none.

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::finding::Finding;
use crate::resolve::RevError;

pub const INFO: RuleInfo = RuleInfo {
    id: "invented-revision",
    family: Family::Invented,
    severity: Severity::Error,
    summary: "the citation's pinned revision names no commit in the repository",
    fix: FixSafety::None,
};

pub fn finding(subject: &Subject<'_>, rev: &str, err: &RevError) -> Finding {
    let (message, help) = err.describe(rev);
    let f = subject.finding(RuleId::InventedRevision, message);
    match help {
        Some(h) => f.help(h),
        None => f,
    }
}
