//! `uncited-claim`: a JSON answer with neither citations nor `refuse`, or a claim without a usable
//! citation (no path, no line range). Found during extraction.
//!
//! Why: seed 000 treats a missing `refuse` with empty citations as a hard server error, not a soft
//! warning: an uncited answer is exactly the confident paragraph the gate exists to stop. Fix: none.

use super::{Family, FixSafety, RuleInfo, Severity};

pub const INFO: RuleInfo = RuleInfo {
    id: "uncited-claim",
    family: Family::Unsupported,
    severity: Severity::Error,
    summary: "an answer or claim cites nothing and does not refuse",
    fix: FixSafety::None,
};
