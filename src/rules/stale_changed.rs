//! `stale-changed` (error): the cited content no longer occurs at the target.
//!
//! What it checks, why, and its fix safety: `rules/stale-changed.yaml` (`citegate explain stale-changed`). The
//! verdict is made in [`crate::check::stale`].

use super::RuleId;
use crate::check::{short, Subject};
use crate::finding::Finding;

/// `diff` is the span's unified diff from the citation's revision to the target.
pub fn finding(
    subject: &Subject<'_>,
    target: git2::Oid,
    renamed_to: Option<&str>,
    diff: Option<String>,
) -> Finding {
    let renamed = renamed_to
        .map(|p| format!(" (the file is now `{p}`)"))
        .unwrap_or_default();
    let f = subject.finding(
        RuleId::StaleChanged,
        format!(
            "`{}` held at {} but the cited content no longer occurs at {}{renamed}",
            subject.citation.label(),
            subject.short_rev(),
            short(target)
        ),
    );
    match diff {
        Some(d) => f.help(format!(
            "the span from {} to {}:\n{d}",
            subject.short_rev(),
            short(target)
        )),
        None => f.help("update the claim to what the code says now, or pin the citation"),
    }
}
