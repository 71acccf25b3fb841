//! `stale-moved` (warning): the cited content moved to other lines of the same file.
//!
//! What it checks, why, and its fix safety: `rules/stale-moved.yaml` (`citegate explain stale-moved`). The
//! verdict is [`crate::check::stale::classify`]'s; this file turns its variant into the finding.

use super::context::{short, Subject};
use crate::check::stale::StaleVerdict;
use crate::fix::Relocation;
use crate::model::{Finding, PinMove};
use crate::registry::RuleId;

/// `pin_move`: the move of the doc's pin this citation is under, if any.
pub(super) fn check(
    subject: &Subject<'_>,
    target: git2::Oid,
    verdict: &StaleVerdict,
    pin_move: Option<&PinMove>,
) -> Option<Finding> {
    let StaleVerdict::Moved { to } = verdict else {
        return None;
    };
    let to = *to;
    // Shifted by one line (a blank line inserted above): the cited lines still show all of the
    // content but its edge line. Still moved, and said so.
    let edge = subject
        .citation
        .lines
        .filter(|from| {
            from.len() > 1 && from.len() == to.len() && (from.start - to.start).abs() == 1
        })
        .map(|_| "; the cited lines still hold all of it but one edge line")
        .unwrap_or_default();
    let f = subject
        .finding(
            RuleId::StaleMoved,
            format!(
                "`{}` moved: at {} the cited content is at {}{edge}",
                subject.citation.label(),
                short(target),
                to.named()
            ),
        )
        .help("the content was found again, exactly once: the fix re-cites it");
    let relocation = Relocation {
        path: None,
        lines: Some(to),
        rev: Some(target),
    };
    Some(subject.stale_fix(f, relocation, pin_move))
}
