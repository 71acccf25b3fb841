//! `unsupported-quote`: the quote (a fence body, a JSON `quote`) is not inside the cited span.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-quote.yaml` (`citegate explain unsupported-quote`).

use super::RuleId;
use crate::check::Subject;
use crate::citation::LineRange;
use crate::finding::Finding;
use crate::fix::Relocation;

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
            let to = Relocation {
                lines: Some(*one),
                ..Relocation::default()
            };
            subject.with_fix(f, to)
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
