//! `invented-revision`: the citation's pin (a permalink's SHA, branch or tag, front matter
//! `citegate: {rev}`, an answer's `revision`) names no commit in the repository.
//!
//! A permalink's branch or tag name (not a SHA) that the clone does not have may be a branch
//! never fetched, not an invented one: that is a note naming the refs it could be and how to
//! fetch them.
//!
//! What it checks, why, and its fix safety: `rules/invented-revision.yaml` (`citegate explain invented-revision`).

use super::context::Subject;
use crate::model::{Finding, Syntax};
use crate::registry::{RuleId, Severity};
use crate::resolve::RevError;

/// `commit` is what the citation's pin `rev` resolved to.
pub(super) fn check(
    subject: &Subject<'_>,
    rev: &str,
    commit: &Result<git2::Oid, RevError>,
) -> Option<Finding> {
    let err = commit.as_ref().err()?;
    if let Some(f) = unfetched(subject, rev, err) {
        return Some(f);
    }
    let (message, help) = err.describe(rev);
    let f = subject.finding(RuleId::InventedRevision, message);
    Some(match help {
        Some(h) => f.help(h),
        None => f,
    })
}

/// A permalink's ref name missing from a full clone: a note naming the refs it could be (the
/// name, and the name with the path's leading folders: `release`, `release/v7.1.x`).
fn unfetched(subject: &Subject<'_>, rev: &str, err: &RevError) -> Option<Finding> {
    let c = subject.citation;
    let sha_like = rev.len() >= 4 && rev.chars().all(|ch| ch.is_ascii_hexdigit());
    if c.syntax != Syntax::Permalink || sha_like || *err != (RevError::NotFound { shallow: false })
    {
        return None;
    }
    let folders: Vec<&str> = c.raw_path.split('/').collect();
    let mut names = vec![rev.to_string()];
    for seg in folders.iter().take(folders.len().saturating_sub(1)).take(2) {
        let longer = format!("{}/{seg}", names.last().expect("one name"));
        names.push(longer);
    }
    let list = (names.iter().map(|n| format!("`{n}`")))
        .collect::<Vec<_>>()
        .join(" or ");
    let mut f = subject.finding(
        RuleId::InventedRevision,
        format!("no branch or tag in this clone is named {list}: a ref never fetched, or none"),
    );
    // Not an invented revision until the clone has every ref: a note, not an error.
    f.severity = Severity::Note;
    Some(f.help(
        "if the remote has it, fetch its branches and tags (`git fetch origin '+refs/heads/*:refs/remotes/origin/*' --tags`) and run again",
    ))
}
