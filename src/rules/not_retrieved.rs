//! `not-retrieved`: an answer carries its retrieval payload (`retrieved`) and a cited span is not
//! contained in any retrieved chunk (containment, not overlap).
//!
//! What it checks, why, and its fix safety: `rules/not-retrieved.yaml` (`citegate explain not-retrieved`).

use super::context::Subject;
use crate::model::Finding;
use crate::model::LineRange;
use crate::model::Retrieved;
use crate::registry::RuleId;

pub fn check(
    subject: &Subject<'_>,
    path: &str,
    range: Option<LineRange>,
    retrieved: &[Retrieved],
) -> Option<Finding> {
    let same_file: Vec<&Retrieved> = retrieved.iter().filter(|r| r.path == path).collect();
    let contained = match range {
        Some(range) => same_file.iter().any(|r| r.lines.contains(&range)),
        None => false,
    };
    if contained {
        return None;
    }
    let help = if same_file.is_empty() {
        let mut paths: Vec<&str> = retrieved.iter().map(|r| r.path.as_str()).collect();
        paths.dedup();
        format!("retrieved files: {}", paths.join(", "))
    } else {
        format!(
            "retrieved from `{path}`: lines {}",
            same_file
                .iter()
                .map(|r| r.lines.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    Some(
        subject
            .finding(
                RuleId::NotRetrieved,
                format!(
                    "`{}` is not inside any retrieved chunk",
                    subject.citation.label()
                ),
            )
            .help(help),
    )
}
