//! `unsupported-quote`: the quote (a fence body, a JSON `quote`) is not inside the cited span.
//! Text is compared after whitespace normalisation only: no fuzzy matching, no case folding.
//!
//! Why: a quote is the most checkable claim a citation makes; one that is not in its span was
//! paraphrased or invented. If the quote occurs exactly once elsewhere in the same file, the fix
//! re-anchors the citation to those lines (safe: the content was found again, exactly and
//! uniquely). If it occurs only in another file, that file is named.

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::citation::LineRange;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "unsupported-quote",
    family: Family::Unsupported,
    severity: Severity::Error,
    summary: "the quoted code is not inside the cited span",
    fix: FixSafety::Safe,
};

/// `found` holds the line ranges where the normalised quote occurs in the cited file.
pub fn check(
    subject: &Subject<'_>,
    range: Option<LineRange>,
    found: &[LineRange],
) -> Option<Finding> {
    let supported = match range {
        Some(range) => found.iter().any(|f| range.contains(f)),
        None => !found.is_empty(),
    };
    if supported {
        return None;
    }
    let path = subject.citation.repo_path().unwrap_or_default();
    let f = match range {
        Some(range) => subject.finding(
            RuleId::UnsupportedQuote,
            format!("the quote is not in `{path}` lines {range}"),
        ),
        None => subject.finding(
            RuleId::UnsupportedQuote,
            format!("the quote is not in `{path}`"),
        ),
    };
    Some(match found {
        [] => f.help(format!(
            "the quote does not occur anywhere in `{path}` at {}",
            subject.short_rev()
        )),
        [one] => {
            let f = f.help(format!("the quote is at lines {one}"));
            subject.with_fix(f, *one)
        }
        many => f.help(format!(
            "the quote occurs {} times in the file, at lines {}: not re-anchored",
            many.len(),
            many.iter()
                .map(|r| r.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    })
}
