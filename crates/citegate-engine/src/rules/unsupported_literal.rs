//! `unsupported-literal` (warning): an inline-code literal in a claim (a Markdown sentence or list
//! item, a JSON claim's text or an answer's summary) that none of the claim's cited spans supports.
//!
//! What it checks, why, and its fix safety: `rules/unsupported-literal.yaml` (`citegate explain unsupported-literal`).

use crate::model::{Claim, ClaimId, DocId, Finding, LiteralKind};
use crate::registry::RuleId;

/// `supports[i][l]`: whether the claim's `i`th citation's span supports its `l`th literal;
/// `labels`: the claim's citations as written in messages (`src/a.rs:3-5`).
pub(super) fn check(
    doc: DocId,
    (id, claim): (ClaimId, &Claim),
    supports: &[&Vec<bool>],
    labels: &[String],
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (li, literal) in claim.literals.iter().enumerate() {
        let Some(kind) = &literal.kind else { continue };
        if supports.iter().any(|s| s.get(li).copied().unwrap_or(false)) {
            continue;
        }
        let spans = labels
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut f = Finding::new(
            RuleId::UnsupportedLiteral,
            doc,
            literal.span,
            format!(
                "`{}` is not in the cited span{} {spans}",
                literal.text,
                if labels.len() == 1 { "" } else { "s" }
            ),
        );
        f.claim = Some(id);
        out.push(match kind {
            LiteralKind::Identifier { .. } => f.help("it is neither an identifier in the span nor the name of the function or type enclosing it"),
            LiteralKind::Call { name } => f.help(format!(
                "`{name}(` (a definition or a call) is not in the span, nor is `{name}` the function enclosing it"
            )),
            LiteralKind::Expression { .. } => {
                f.help("the text does not occur in the span (whitespace-normalised, exact)")
            }
        });
    }
    out
}
