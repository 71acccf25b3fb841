//! `invented-lines`: the cited range cannot exist: start < 1, end < start, or end past the last
//! line of the file at the revision.
//!
//! What it checks, why, and its fix safety: `rules/invented-lines.yaml` (`citegate explain invented-lines`).

use super::context::Subject;
use crate::fix::Relocation;
use crate::model::{Finding, IncludePart, LineRange, Markers};
use crate::registry::RuleId;

/// Line references that cannot be read: never a whole-file citation (fail closed).
pub(super) fn check_unreadable(subject: &Subject<'_>) -> Option<Finding> {
    let written = subject.citation.bad_lines.as_deref()?;
    let f = subject.finding(
        RuleId::InventedLines,
        format!("the line reference `{written}` cannot be read as lines"),
    );
    Some(f.help(
        "cite lines as `L10` or `L10-L20` (a permalink), `10-20` (a path), or whole numbers (JSON)",
    ))
}

/// Ranges that are impossible whatever the file holds. A range from line 0 (`#L0-L32`) is a
/// generator counting from 0: still a finding, but named so, and the fix starts it at line 1
/// (the lines it meant are unchanged).
pub(super) fn check_shape(subject: &Subject<'_>, range: LineRange) -> Option<Finding> {
    if range.start == 0 && range.end >= 1 {
        let f = subject
            .finding(
                RuleId::InventedLines,
                format!(
                    "line 0 does not exist: lines count from 1 (a generator counting from 0 wrote `{}`)",
                    range
                ),
            )
            .help("the fix starts the range at line 1");
        let to = Relocation {
            lines: Some(LineRange::new(1, range.end)),
            ..Relocation::default()
        };
        return Some(subject.with_fix(f, to));
    }
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
pub(super) fn check_extent(
    subject: &Subject<'_>,
    range: LineRange,
    line_count: usize,
) -> Option<Finding> {
    if range.end as u64 <= line_count as u64 {
        return None;
    }
    let path = subject.citation.label();
    let f = subject.finding(
        RuleId::InventedLines,
        format!(
            "`{path}` cites past the end of the file: it has {line_count} line{} at {}",
            if line_count == 1 { "" } else { "s" },
            subject.short_rev()
        ),
    );
    // One past the last line: an exclusive end (`#L1-L(n+1)`), as some generators write it.
    let exclusive =
        range.end as u64 == line_count as u64 + 1 && (range.start as u64) <= line_count as u64;
    if !exclusive {
        return Some(f);
    }
    let f = f.help(format!(
        "it ends one line past the last: an exclusive end, as some generators write ranges; the fix ends it at line {line_count}"
    ));
    let to = Relocation {
        lines: Some(LineRange::new(range.start, line_count as i64)),
        ..Relocation::default()
    };
    Some(subject.with_fix(f, to))
}

/// An mdBook include from a line to the end, or between anchors: the line must be in the file,
/// and the anchor too.
pub(super) fn check_include(
    subject: &Subject<'_>,
    line_count: usize,
    anchor_missing: bool,
) -> Option<Finding> {
    let path = subject.citation.label();
    let at = subject.short_rev();
    let message = match subject.citation.include.as_ref()? {
        IncludePart::From(n) if *n < 1 || *n as u64 > line_count as u64 => format!(
            "`{path}` includes from line {n}, past the end of the file: it has {line_count} lines at {at}"
        ),
        IncludePart::Section(Markers::MdBook(name)) if anchor_missing => format!(
            "`{path}` includes the anchor `{name}`, which is not in the file at {at} (`ANCHOR: {name}` … `ANCHOR_END: {name}`)"
        ),
        IncludePart::Section(markers) if anchor_missing => format!(
            "`{path}` includes the section {}, which is not in the file at {at}",
            markers.describe()
        ),
        _ => return None,
    };
    Some(subject.finding(RuleId::InventedLines, message))
}
