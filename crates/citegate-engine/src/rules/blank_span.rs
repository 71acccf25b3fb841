//! `blank-span` (warning): every cited line is blank, so the citation holds whatever the code
//! becomes and is never found stale.
//!
//! What it checks, why, and its fix safety: `rules/blank-span.yaml` (`citegate explain blank-span`).

use super::context::Subject;
use crate::check::CiteFacts;
use crate::model::{Finding, LineRange};
use crate::registry::RuleId;

pub(super) fn check(subject: &Subject<'_>, range: LineRange, facts: &CiteFacts) -> Option<Finding> {
    facts.blank.then(|| {
        let what = match range.len() {
            1 => format!("line {range} is blank"),
            _ => format!("lines {range} are all blank"),
        };
        subject
            .finding(
                RuleId::BlankSpan,
                format!(
                    "{what} at {}: the citation proves nothing",
                    subject.short_rev()
                ),
            )
            .help("cite the lines that hold the code")
    })
}
