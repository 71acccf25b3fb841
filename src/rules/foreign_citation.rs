//! `foreign-citation` (note): a forge permalink into another repository than the one audited
//! (compared with its remotes, or `--repo-url`).
//!
//! What it checks, why, and its fix safety: `rules/foreign-citation.yaml` (`citegate explain foreign-citation`).

use super::RuleId;
use crate::check::Subject;
use crate::finding::Finding;

pub fn finding(subject: &Subject<'_>, repo: &str) -> Finding {
    subject
        .finding(
            RuleId::ForeignCitation,
            format!("this permalink points into {repo}, not the audited repository: not checked"),
        )
        .help("if it is the same repository under another name, pass --repo-url")
}
