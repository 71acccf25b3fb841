//! `stale-renamed` (warning): the cited file was renamed; the content is in the new file.
//!
//! What it checks, why, and its fix safety: `rules/stale-renamed.yaml` (`citegate explain stale-renamed`). The
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
    let StaleVerdict::Renamed { path, to } = verdict else {
        return None;
    };
    let to = *to;
    let at = to.map(|r| format!(" {}", r.named())).unwrap_or_default();
    let f = subject
        .finding(
            RuleId::StaleRenamed,
            format!(
                "`{}` was renamed: at {} the cited content is in `{path}`{at}",
                subject.citation.label(),
                short(target)
            ),
        )
        .help(
            "the file was renamed and the content found again, exactly once: the fix re-cites it",
        );
    let relocation = Relocation {
        path: Some(path.to_string()),
        lines: to,
        rev: Some(target),
    };
    Some(subject.stale_fix(f, relocation, pin_move))
}
