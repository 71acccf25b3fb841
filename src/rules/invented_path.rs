//! `invented-path`: the cited file does not exist at the revision the citation resolves at.
//!
//! What it checks, why, and its fix safety: `rules/invented-path.yaml` (`citegate explain invented-path`).

use super::RuleId;
use crate::check::Subject;
use crate::finding::Finding;

pub fn finding(subject: &Subject<'_>, path: &str, suggestions: &[String]) -> Finding {
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
pub fn no_path(subject: &Subject<'_>) -> Finding {
    subject
        .finding(
            RuleId::InventedPath,
            "this citation names no file, only lines",
        )
        .help("the link was exported without its file path: cite the file the lines are in")
}
