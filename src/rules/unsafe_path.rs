//! `unsafe-path`: the cited path is absolute, escapes the repository root with `..`, or holds
//! control characters.
//!
//! What it checks, why, and its fix safety: `rules/unsafe-path.yaml` (`citegate explain unsafe-path`).

use super::RuleId;
use crate::check::Subject;
use crate::finding::Finding;

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
