//! `uncited-claim`: a JSON answer with neither citations nor a valid `refuse` (a `refuse` that is
//! not one is `malformed-doc`'s), or a claim without a usable
//! citation (no path, no line range).
//!
//! What it checks, why, and its fix safety: `rules/uncited-claim.yaml` (`citegate explain uncited-claim`).

use crate::model::{Extracted, Finding, Refuse, Unusable};
use crate::registry::RuleId;

pub fn check(doc: usize, ext: &Extracted) -> Vec<Finding> {
    let mut out: Vec<Finding> = ext
        .unusable
        .iter()
        .map(|u| {
            let what = u.what;
            let message = match u.why {
                Unusable::NotAnObject => format!("this {what} is not an object"),
                Unusable::NoPath => format!("this {what} has no `path`"),
                Unusable::NoLines => {
                    let [camel, snake] = crate::answer::object::START_KEYS;
                    format!("this {what} has no usable line range (`{camel}`/`{snake}`)")
                }
                Unusable::CitesNothing => "this claim cites nothing".to_string(),
                Unusable::NoQuote => format!(
                    "this {what} has no `quote`: the answer contract requires the exact text it cites"
                ),
            };
            let mut f = Finding::new(RuleId::UncitedClaim, doc, u.span, message);
            (f.answer, f.claim, f.cite) = (Some(u.answer), Some(u.claim), u.cite);
            f
        })
        .collect();
    for (id, answer) in ext.answers.enumerated() {
        // An answer whose claims are already reported is not reported again as a whole.
        if answer.cited || answer.refused || out.iter().any(|f| f.answer == Some(id)) {
            continue;
        }
        let message = match answer.refuse {
            Refuse::Absent => "this answer has neither citations nor a refusal",
            // `malformed-doc` already says its `refuse` is not a refusal: one finding, one cause.
            Refuse::Invalid => continue,
            Refuse::Valid => "this refusal also lists citations or claims, and none can be read",
        };
        let mut f = Finding::new(RuleId::UncitedClaim, doc, answer.span, message).help(
            "an answer must cite its evidence or refuse (no_span_in_retrieval, ambiguous, stale_index)",
        );
        f.answer = Some(id);
        out.push(f);
    }
    out
}
