//! `unused-source` (note): a source in the `Sources:` list that no `[n]` marker cites.
//!
//! Why: seed 002: unused sources are a retrieval-quality signal (too many chunks, or the wrong
//! ones), worth seeing but not wrong. Fix: none.

use super::{Family, FixSafety, RuleInfo, Severity};

pub const INFO: RuleInfo = RuleInfo {
    id: "unused-source",
    family: Family::Unsupported,
    severity: Severity::Note,
    summary: "a listed source is never cited by a marker",
    fix: FixSafety::None,
};
