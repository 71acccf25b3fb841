//! `invented-path`: the cited file does not exist at the revision the citation resolves at.
//!
//! Why: a reader who clicks a path that never existed learns to distrust every citation; AI
//! generators invent plausible paths (`src/utils/cache.ts`) from naming conventions.
//! Example: `src/cache.rs:12` when the file is `src/cache/mod.rs`. Fix: none (the closest existing
//! paths are suggested).

use super::{Family, FixSafety, RuleId, RuleInfo, Severity};
use crate::check::Subject;
use crate::finding::Finding;

pub const INFO: RuleInfo = RuleInfo {
    id: "invented-path",
    family: Family::Invented,
    severity: Severity::Error,
    summary: "the cited file does not exist at the citation's revision",
    fix: FixSafety::None,
};

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
