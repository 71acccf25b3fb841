//! `invented-lines`: the cited range cannot exist: start < 1, end < start, or end past the last
//! line of the file at the revision.
//!
//! Why: models that never saw line numbers guess ranges; a range past the end of the file is proof
//! of a guess. Example: `src/a.rs:120-140` in a 90-line file. Fix: none.

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::citation::LineRange;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "invented-lines",
    family: Family::Invented,
    severity: Severity::Error,
    summary: "the cited line range is impossible or past the end of the file",
    fix: FixSafety::None,
};

/// Ranges that are impossible whatever the file holds.
pub fn check_shape(subject: &Subject<'_>, range: LineRange) -> Option<Finding> {
    let message = if range.start < 1 {
        format!("line {} does not exist: lines count from 1", range.start)
    } else if range.end < range.start {
        format!(
            "the range {}-{} ends before it starts",
            range.start, range.end
        )
    } else {
        return None;
    };
    Some(subject.finding(RuleId::InventedLines, message))
}

/// Ranges that run past the end of the file.
pub fn check_extent(subject: &Subject<'_>, range: LineRange, line_count: usize) -> Option<Finding> {
    if range.end as u64 <= line_count as u64 {
        return None;
    }
    let path = subject.citation.label();
    Some(subject.finding(
        RuleId::InventedLines,
        format!(
            "`{path}` cites past the end of the file: it has {line_count} line{} at {}",
            if line_count == 1 { "" } else { "s" },
            subject.short_rev()
        ),
    ))
}
