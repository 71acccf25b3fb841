//! The rules: one file each, holding the check and, in its doc comment, what it does and why. The
//! catalogue entry (family, default severity, summary, fix safety) lives in `rules/ID.yaml` at the
//! repository root; [`RuleId::info`] is kept equal to it by a test.

pub mod foreign_citation;
pub mod invented_lines;
pub mod invented_path;
pub mod invented_revision;
pub mod malformed_doc;
pub mod not_a_file;
pub mod not_retrieved;
pub mod overbroad_span;
pub mod uncited_claim;
pub mod unsafe_path;
pub mod unsupported_literal;
pub mod unsupported_quote;
pub mod unsupported_source;
pub mod unused_source;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// What kind of failure a finding is, as users count them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// The path, lines or revision never existed.
    Invented,
    /// The citation exists but does not support what is said with it.
    Unsupported,
    /// Citations that are risky or out of scope, not wrong.
    Hygiene,
    /// The doc or the citation could not be read safely.
    Input,
}

impl Family {
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Invented => "invented",
            Family::Unsupported => "unsupported",
            Family::Hygiene => "hygiene",
            Family::Input => "input",
        }
    }
}

/// Whether a rule's fix may be applied without a human looking at it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixSafety {
    /// The cited content was found again, exactly and uniquely.
    Safe,
    /// No fix is offered.
    None,
}

#[derive(Debug, Clone, Copy)]
pub struct RuleInfo {
    pub id: &'static str,
    pub family: Family,
    pub severity: Severity,
    pub summary: &'static str,
    pub fix: FixSafety,
}

/// Every finding ID. IDs are stable: reports, configs and the next features use them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RuleId {
    InventedPath,
    InventedLines,
    InventedRevision,
    NotAFile,
    UnsupportedQuote,
    UnsupportedLiteral,
    UnsupportedSource,
    UnusedSource,
    UncitedClaim,
    NotRetrieved,
    UnsafePath,
    ForeignCitation,
    OverbroadSpan,
    MalformedDoc,
}

impl RuleId {
    pub const ALL: [RuleId; 14] = [
        RuleId::InventedPath,
        RuleId::InventedLines,
        RuleId::InventedRevision,
        RuleId::NotAFile,
        RuleId::UnsupportedQuote,
        RuleId::UnsupportedLiteral,
        RuleId::UnsupportedSource,
        RuleId::UnusedSource,
        RuleId::UncitedClaim,
        RuleId::NotRetrieved,
        RuleId::UnsafePath,
        RuleId::ForeignCitation,
        RuleId::OverbroadSpan,
        RuleId::MalformedDoc,
    ];

    pub fn info(self) -> RuleInfo {
        match self {
            RuleId::InventedPath => invented_path::INFO,
            RuleId::InventedLines => invented_lines::INFO,
            RuleId::InventedRevision => invented_revision::INFO,
            RuleId::NotAFile => not_a_file::INFO,
            RuleId::UnsupportedQuote => unsupported_quote::INFO,
            RuleId::UnsupportedLiteral => unsupported_literal::INFO,
            RuleId::UnsupportedSource => unsupported_source::INFO,
            RuleId::UnusedSource => unused_source::INFO,
            RuleId::UncitedClaim => uncited_claim::INFO,
            RuleId::NotRetrieved => not_retrieved::INFO,
            RuleId::UnsafePath => unsafe_path::INFO,
            RuleId::ForeignCitation => foreign_citation::INFO,
            RuleId::OverbroadSpan => overbroad_span::INFO,
            RuleId::MalformedDoc => malformed_doc::INFO,
        }
    }

    pub fn as_str(self) -> &'static str {
        self.info().id
    }
}

impl std::fmt::Display for RuleId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
