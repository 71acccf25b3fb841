//! `stale-changed` (error): the cited content no longer occurs at the target.
//!
//! What it checks, why, and its fix safety: `rules/stale-changed.yaml` (`citegate explain stale-changed`). The
//! verdict is [`crate::check::stale::classify`]'s; this file turns its variant into the finding.

use super::context::{short, Subject};
use crate::check::stale::StaleVerdict;
use crate::model::Finding;
use crate::registry::RuleId;

pub(super) fn check(
    subject: &Subject<'_>,
    target: git2::Oid,
    verdict: &StaleVerdict,
) -> Option<Finding> {
    let StaleVerdict::Changed { renamed_to, diff } = verdict else {
        return None;
    };
    let renamed = renamed_to
        .as_ref()
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
    Some(match diff {
        Some(d) => f.help(format!(
            "the span from {} to {}:\n{d}",
            subject.short_rev(),
            short(target)
        )),
        None => f.help("update the claim to what the code says now, or pin the citation"),
    })
}
