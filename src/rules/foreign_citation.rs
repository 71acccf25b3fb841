//! `foreign-citation` (note): a forge permalink into another repository than the one audited
//! (compared with its remotes, or `--repo-url`). It is reported, not resolved.
//!
//! Why: citegate can only vouch for code it can read; a citation of another project is out of
//! scope, and a reader should know it was not checked. Fix: none.

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "foreign-citation",
    family: Family::Hygiene,
    severity: Severity::Note,
    summary: "the permalink points into another repository and was not checked",
    fix: FixSafety::None,
};

pub fn finding(subject: &Subject<'_>, repo: &str) -> Finding {
    subject
        .finding(
            RuleId::ForeignCitation,
            format!("this permalink points into {repo}, not the audited repository: not checked"),
        )
        .help("if it is the same repository under another name, pass --repo-url")
}
