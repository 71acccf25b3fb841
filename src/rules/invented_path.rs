//! `invented-path`: the cited file does not exist at the revision the citation resolves at.
//!
//! What it checks, why, and its fix safety: `rules/invented-path.yaml` (`citegate explain invented-path`).

use super::context::Subject;
use crate::check::FileFacts;
use crate::model::{CitedPath, Finding};
use crate::registry::RuleId;

/// The cited file does not exist at the revision: with the closest existing paths as help.
pub fn check(subject: &Subject<'_>, path: &str, file: &FileFacts) -> Option<Finding> {
    let FileFacts::Missing { suggestions } = file else {
        return None;
    };
    Some(finding(subject, path, suggestions))
}

fn finding(subject: &Subject<'_>, path: &str, suggestions: &[String]) -> Finding {
    let f = subject.finding(
        RuleId::InventedPath,
        format!("`{path}` does not exist at {}", subject.short_rev()),
    );
    match suggestions {
        [] => f,
        [one] => f.help(format!("did you mean `{one}`?")),
        many => f.help(format!(
            "did you mean one of {}?",
            many.iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The citation names no file at all (an exporter bug such as `blob/SHA/110-111`).
pub fn check_no_path(subject: &Subject<'_>) -> Option<Finding> {
    if subject.citation.path != CitedPath::Missing {
        return None;
    }
    let f = subject
        .finding(
            RuleId::InventedPath,
            "this citation names no file, only lines",
        )
        .help("the link was exported without its file path: cite the file the lines are in");
    Some(f)
}
