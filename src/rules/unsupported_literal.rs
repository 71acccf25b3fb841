//! `unsupported-literal` (warning): an inline-code literal in a claim (a Markdown sentence or list
//! item, a JSON claim's text or an answer's summary) that none of the claim's cited spans supports.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-literal.yaml` (`citegate explain unsupported-literal`).

use super::RuleId;
use crate::citation::Literal;
use crate::finding::Finding;

pub fn finding(doc: usize, literal: &Literal, cited: &[String], identifier: bool) -> Finding {
    let spans = cited
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let f = Finding::new(
        RuleId::UnsupportedLiteral,
        doc,
        literal.span,
        format!(
            "`{}` is not in the cited span{} {spans}",
            literal.text,
            if cited.len() == 1 { "" } else { "s" }
        ),
    );
    if identifier {
        f.help("it is neither an identifier in the span nor the name of the function or type enclosing it")
    } else {
        f.help("the text does not occur in the span (whitespace-normalised, exact)")
    }
}
