//! `unsupported-quote`: the quote (a fence body, a JSON `quote`) is not inside the cited span.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-quote.yaml` (`citegate explain unsupported-quote`).

use super::context::Subject;
use crate::check::QuoteFacts;
use crate::fix::Relocation;
use crate::model::Finding;
use crate::registry::RuleId;

/// `quote`: where the quote occurs in the cited file; `evidence`: the cited lines.
pub(super) fn check(
    subject: &Subject<'_>,
    quote: &QuoteFacts,
    evidence: Option<&str>,
) -> Option<Finding> {
    if quote.in_span {
        return None;
    }
    let range = subject.citation.lines;
    let found = quote.found.as_slice();
    let path = subject.citation.repo_path().unwrap_or_default();
    let f = match range {
        Some(range) => subject.finding(
            RuleId::UnsupportedQuote,
            format!("the quote is not in `{path}` {}", range.named()),
        ),
        None => subject.finding(
            RuleId::UnsupportedQuote,
            format!("the quote is not in `{path}`"),
        ),
    };
    let mut f = match found {
        [] => match &quote.elsewhere {
            Some(other) => f.help(format!(
                "the quote is not in this file; it occurs in `{other}`"
            )),
            None => f.help(format!(
                "the quote does not occur anywhere in `{path}` at {}",
                subject.short_rev()
            )),
        },
        [one] => {
            let f = f.help(format!("the quote is at {}", one.named()));
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
    };
    f.evidence = evidence.map(str::to_string);
    Some(f)
}
