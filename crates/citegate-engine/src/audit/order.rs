//! Where a finding is and in what order a report lists them: positions, fingerprints and the
//! sort key, shared by the audit's last step and the suppression stage after it.

use std::collections::HashMap;

use crate::model::{AuditedDoc, Finding};
use crate::registry::RuleId;

/// The order of a report's findings: doc, place, rule, message (whatever the thread count).
pub(super) fn sort_key<'a>(
    f: &'a Finding,
    docs: &'a [AuditedDoc],
) -> (&'a str, usize, RuleId, &'a str) {
    (&docs[f.doc].doc.name, f.span.start, f.rule, &f.message)
}

/// Positions and fingerprints of findings made after the report was finished (a finding alike
/// another in everything the fingerprint reads is told apart by its order among these).
pub(super) fn place(docs: &[AuditedDoc], findings: &mut [Finding]) {
    let mut alike: HashMap<String, usize> = HashMap::new();
    for f in findings {
        let doc = &docs[f.doc].doc;
        f.at = position(doc, f.span);
        let first = crate::model::fingerprint(f.rule, doc, f.span, 0);
        let n = alike.entry(first).or_default();
        f.at.fingerprint = crate::model::fingerprint(f.rule, doc, f.span, *n);
        *n += 1;
    }
}

/// Where `span` is in `doc`, for every format.
pub(super) fn position(
    doc: &crate::model::Doc,
    span: crate::model::Span,
) -> crate::model::Position {
    let (line, column) = doc.lines.line_col(&doc.text, span.start);
    let (end_line, end_column) = doc.lines.line_col(&doc.text, span.end.max(span.start));
    crate::model::Position {
        line,
        column,
        end_line,
        end_column,
        snippet: doc.text.get(span.start..span.end).unwrap_or("").to_string(),
        fingerprint: String::new(),
    }
}
