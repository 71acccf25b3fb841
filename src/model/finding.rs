//! A finding: one rule's verdict on one citation (or doc), located in the doc, with the evidence
//! and, when the content was found again, a fix.

use serde::{Deserialize, Serialize};

use super::citation::LineRange;
use super::span::Span;
use crate::registry::{RuleId, Severity};

/// Whether a fix may be applied without asking (ruff's applicability).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Applicability {
    /// The cited content was found again, exactly and uniquely: `citegate fix` applies it.
    #[default]
    Safe,
    /// Correct but a choice the user makes: applied only when asked (`citegate fix --repin`).
    OptIn,
}

/// A content-verified edit of the citation in the doc.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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
    /// Where `span` is in the doc, in lines and columns, and what it covers: set when the audit
    /// finishes, so that every format (and a report merged from shards) prints the same place
    /// without the doc's text.
    pub at: Position,
}

/// A finding's place in its doc: 1-based lines and columns (Unicode code points), start and end,
/// and the doc text it covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub snippet: String,
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
            at: Position::default(),
        }
    }

    /// Its fix, when it may be applied without asking.
    pub fn safe_fix(&self) -> Option<&Fix> {
        self.fix
            .as_ref()
            .filter(|x| x.applicability == Applicability::Safe)
    }

    pub fn help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}
