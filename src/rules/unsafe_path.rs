//! `unsafe-path`: the cited path is absolute, escapes the repository root with `..`, or holds
//! control characters. It is never resolved or read.
//!
//! Why: citegate must never read outside the repository it audits, and a doc is untrusted input.
//! Example: `/etc/passwd:1`, `../../secrets.txt:3`. Fix: none.

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "unsafe-path",
    family: Family::Input,
    severity: Severity::Error,
    summary: "the cited path points outside the repository and is never read",
    fix: FixSafety::None,
};

pub fn finding(subject: &Subject<'_>, raw: &str, reason: &str) -> Finding {
    let shown: String = raw
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    subject
        .finding(
            RuleId::UnsafePath,
            format!("`{shown}` is not read: {reason}"),
        )
        .help("cite files by their path relative to the repository root")
}
