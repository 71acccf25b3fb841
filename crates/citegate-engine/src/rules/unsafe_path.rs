//! `unsafe-path`: the cited path is absolute, escapes the repository root with `..`, or holds
//! control characters.
//!
//! What it checks, why, and its fix safety: `rules/unsafe-path.yaml` (`citegate explain unsafe-path`).

use super::context::Subject;
use crate::model::{CitedPath, Finding};
use crate::registry::RuleId;

pub(super) fn check(subject: &Subject<'_>) -> Option<Finding> {
    let CitedPath::Unsafe { raw, reason } = &subject.citation.path else {
        return None;
    };
    let shown: String = raw
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    let f = subject
        .finding(
            RuleId::UnsafePath,
            format!("`{shown}` is not read: {reason}"),
        )
        .help("cite files by their path relative to the repository root");
    Some(f)
}
