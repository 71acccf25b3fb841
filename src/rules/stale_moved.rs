//! `stale-moved` (warning): the cited content moved to other lines of the same file.
//!
//! What it checks, why, and its fix safety: `rules/stale-moved.yaml` (`citegate explain stale-moved`). The
//! verdict is made in [`crate::check::stale`].

use super::RuleId;
use crate::check::{no_fix_help, short, Subject};
use crate::citation::LineRange;
use crate::finding::Finding;
use crate::fix::Relocation;

pub fn finding(subject: &Subject<'_>, target: git2::Oid, to: LineRange) -> Finding {
    let f = subject
        .finding(
            RuleId::StaleMoved,
            format!(
                "`{}` moved: at {} the cited content is at lines {to}",
                subject.citation.label(),
                short(target)
            ),
        )
        .help("the content was found again, exactly once: the fix re-cites it");
    let relocation = Relocation {
        path: None,
        lines: Some(to),
        rev: Some(target),
    };
    let f = subject.with_fix(f, relocation);
    if f.fix.is_none() {
        return f.help(no_fix_help(subject));
    }
    f
}
