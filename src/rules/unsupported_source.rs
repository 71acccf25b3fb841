//! `unsupported-source`: a numbered marker `[n]` in a doc with a `Sources:` list has no source `n`.
//! Found during extraction.
//!
//! Why: seed 002: a hallucinated citation number means the model is drifting, and the reader's
//! click leads nowhere. Fix: none.

use super::{Family, FixSafety, RuleInfo, Severity};

pub const INFO: RuleInfo = RuleInfo {
    id: "unsupported-source",
    family: Family::Unsupported,
    severity: Severity::Error,
    summary: "a numbered marker [n] has no source n in the Sources list",
    fix: FixSafety::None,
};
