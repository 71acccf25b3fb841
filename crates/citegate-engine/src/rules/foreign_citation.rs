//! `foreign-citation` (note): a forge permalink into another repository than the one audited
//! (compared with its remotes, or `--repo-url`).
//!
//! What it checks, why, and its fix safety: `rules/foreign-citation.yaml` (`citegate explain foreign-citation`).

use super::context::Subject;
use crate::model::Finding;
use crate::registry::RuleId;

pub(super) fn check(subject: &Subject<'_>) -> Option<Finding> {
    let repo = &subject.citation.foreign.as_ref()?.repo_url;
    let f = subject
        .finding(
            RuleId::ForeignCitation,
            format!("this permalink points into {repo}, not the audited repository: not checked"),
        )
        .help("if it is the same repository under another name, pass --repo-url");
    Some(f)
}
