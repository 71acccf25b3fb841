//! `invented-lines`: the cited range cannot exist: start < 1, end < start, or end past the last
//! line of the file at the revision.
//!
//! What it checks, why, and its fix safety: `rules/invented-lines.yaml` (`citegate explain invented-lines`).

use super::context::Subject;
use crate::model::Finding;
use crate::model::LineRange;
use crate::registry::RuleId;

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
