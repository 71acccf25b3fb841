//! `overbroad-span` (warning): one citation covers more lines than the threshold (default 200).
//!
//! Why: `[Source: path:1-80]` style defaults and whole-file ranges support anything and so prove
//! nothing; a reader cannot check a claim against 500 lines. Fix: none (narrow the range).

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::citation::LineRange;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "overbroad-span",
    family: Family::Hygiene,
    severity: Severity::Warning,
    summary: "one citation covers more lines than the threshold",
    fix: FixSafety::None,
};

pub fn check(subject: &Subject<'_>, range: LineRange, max_lines: usize) -> Option<Finding> {
    let len = range.len();
    (len > max_lines as i64).then(|| {
        subject
            .finding(
                RuleId::OverbroadSpan,
                format!("this citation spans {len} lines (more than {max_lines})"),
            )
            .help("cite the lines that support the claim")
    })
}
