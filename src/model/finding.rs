//! A finding: one rule's verdict on one citation (or doc), located in the doc, with the evidence
//! and, when the content was found again, a fix.

use serde::Serialize;

use super::citation::LineRange;
use super::span::Span;
use crate::registry::{RuleId, Severity};

/// Whether a fix may be applied without asking (ruff's applicability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Applicability {
    /// The cited content was found again, exactly and uniquely: `citegate fix` applies it.
    Safe,
    /// Correct but a choice the user makes: applied only when asked (`citegate fix --repin`).
    OptIn,
}

/// A content-verified edit of the citation in the doc.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    /// The corrected citation.
    pub path: String,
    pub start_line: i64,
    pub end_line: i64,
    /// Replace the doc bytes `[byte_start, byte_end)` with `replacement`.
    pub replacement: String,
    pub byte_start: usize,
    pub byte_end: usize,
    /// Decided where the fix is built, not by the rule that carries it.
    #[serde(skip)]
    pub applicability: Applicability,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub rule: RuleId,
    pub severity: Severity,
    /// Index of the doc in [`super::Report::docs`].
    pub doc: usize,
    pub span: Span,
    /// The cited path (repo-relative) and lines, when the finding is about a citation.
    pub path: Option<String>,
    pub lines: Option<LineRange>,
    /// Full SHA the citation was resolved at.
    pub revision: Option<String>,
    pub message: String,
    pub help: Option<String>,
    /// The lines actually at the revision, shown under the diagnostic.
    pub evidence: Option<String>,
    pub fix: Option<Fix>,
}

impl Finding {
    pub fn new(rule: RuleId, doc: usize, span: Span, message: impl Into<String>) -> Self {
        Finding {
            rule,
            severity: rule.info().severity,
            doc,
            span,
            path: None,
            lines: None,
            revision: None,
            message: message.into(),
            help: None,
            evidence: None,
            fix: None,
        }
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}
