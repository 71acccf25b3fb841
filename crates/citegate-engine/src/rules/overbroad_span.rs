//! `overbroad-span` (warning): one citation covers more lines than the threshold (default 200).
//!
//! What it checks, why, and its fix safety: `rules/overbroad-span.yaml` (`citegate explain overbroad-span`).

use super::context::Subject;
use crate::model::Finding;
use crate::model::LineRange;
use crate::registry::RuleId;

pub(super) fn check(subject: &Subject<'_>, range: LineRange, max_lines: usize) -> Option<Finding> {
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
