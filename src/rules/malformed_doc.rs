//! `malformed-doc`: a doc that cannot be read or parsed: invalid JSON in an answer file, invalid
//! UTF-8, a binary or oversized file, broken YAML front matter. Located where the problem is; the
//! run goes on with the other docs.
//!
//! Why: a doc that cannot be parsed hides every citation in it, so it must not pass silently.

use super::{Family, FixSafety, RuleInfo, Severity};

pub const INFO: RuleInfo = RuleInfo {
    id: "malformed-doc",
    family: Family::Input,
    severity: Severity::Error,
    summary: "the doc cannot be read or parsed",
    fix: FixSafety::None,
};
