//! `unsupported-literal` (warning): an inline-code literal in a claim (a Markdown sentence or list
//! item, a JSON claim's text or an answer's summary) that none of the claim's cited spans supports.
//!
//! An expression or value (`TTL_SECONDS = 30`, `"utf-8"`, `64`) must occur as normalised text in a
//! span. An identifier, bare or qualified, optionally called (`setMode()`,
//! `ColorConsts.DARK_MODE_SCHEME`), is supported when its last segment occurs as an identifier in a
//! span or names the function, method or type enclosing the span (found with tree-sitter).
//! Citations, paths, URLs and shell commands in backticks are not checked.
//!
//! Why: "the cache TTL is 5 minutes (src/cache.rs:12)" when the line says `TTL_SECONDS = 30` is the
//! failure citations exist to catch. Fix: none.

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::citation::Literal;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "unsupported-literal",
    family: Family::Unsupported,
    severity: Severity::Warning,
    summary: "a code literal in the claim is not in any span the claim cites",
    fix: FixSafety::None,
};

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
