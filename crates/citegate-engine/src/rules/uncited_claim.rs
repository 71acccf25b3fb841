//! `uncited-claim`: a JSON answer with neither citations nor a valid `refuse` (a `refuse` that is
//! not one is `malformed-doc`'s), or a claim without a usable
//! citation (no path, no line range).
//!
//! What it checks, why, and its fix safety: `rules/uncited-claim.yaml` (`citegate explain uncited-claim`).

use crate::model::{DocId, Extracted, Finding, Refuse, Unusable};
use crate::registry::RuleId;

pub(super) fn check(doc: DocId, ext: &Extracted) -> Vec<Finding> {
    let mut out: Vec<Finding> = ext
        .unusable
        .iter()
        .map(|u| {
            let what = u.what;
            let message = match u.why {
                Unusable::NotAnObject => format!("this {what} is not an object"),
                Unusable::NoPath => format!("this {what} has no `path`"),
                Unusable::NoLines => {
                    let [camel, snake] = crate::contract::object::START_KEYS;
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
            // Every listed citation or claim is read as one or reported as unusable, so this is a
            // guard: evidence the extractor skipped silently must still fail, never pass as a
            // refusal.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Doc, DocKind};

    /// Issue 31: whatever else an answer holds, no finding says it has no refusal when it wrote a
    /// `refuse`; a valid one next to nothing cited is no finding at all.
    #[test]
    fn no_message_denies_a_refusal_the_answer_wrote() {
        let lists = [
            r#""citations": []"#,
            r#""citations": [1]"#,
            r#""citations": [{}]"#,
            r#""citations": [{"path": "a.rs", "startLine": 1, "endLine": 1}]"#,
            r#""claims": []"#,
            r#""claims": [{"text": "x"}]"#,
            r#""claims": [{"text": "x", "citations": []}]"#,
        ];
        let refuses = [
            r#"{"reason": "ambiguous"}"#,
            "{}",
            "true",
            r#"{"reason": "nope"}"#,
        ];
        for list in lists {
            for refuse in refuses {
                let text = format!(r#"{{"summary": "Why I refuse.", {list}, "refuse": {refuse}}}"#);
                let doc = Doc::new("a.json".into(), "a.json".into(), None, DocKind::Json, text);
                let findings = check(DocId::new(0), &crate::extract::answer::extract_json(&doc));
                let said: Vec<&str> = findings.iter().map(|f| f.message.as_str()).collect();
                assert!(
                    !said.iter().any(|m| m.contains("nor a refusal")),
                    "{}: {said:?}",
                    doc.text
                );
                let empty = list.ends_with("[]") && !list.contains("{}");
                if empty && refuse.contains("ambiguous") {
                    assert!(said.is_empty(), "{}: {said:?}", doc.text);
                }
            }
        }
    }
}
