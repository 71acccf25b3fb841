//! `not-a-file`: the cited path is a directory, a submodule, a symbolic link, or a binary (or huge)
//! blob, so it has no lines to cite. A whole-file link to a folder or a binary only has to exist.
//!
//! What it checks, why, and its fix safety: `rules/not-a-file.yaml` (`citegate explain not-a-file`).

use super::context::Subject;
use crate::check::FileFacts;
use crate::model::Finding;
use crate::registry::RuleId;
use crate::resolve::FileAt;

pub(super) fn check(subject: &Subject<'_>, path: &str, file: &FileFacts) -> Option<Finding> {
    let FileFacts::NotText(what) = file else {
        return None;
    };
    // A whole-file link (no lines) to a folder, an image or a PDF only has to exist: GitHub
    // serves `blob/REV/dir` as the folder's view and a binary as itself.
    let whole = subject.citation.lines.is_none() && subject.citation.bad_lines.is_none();
    if whole
        && matches!(
            what,
            FileAt::Directory | FileAt::Binary | FileAt::TooLarge(_)
        )
    {
        return None;
    }
    let kind = match what {
        FileAt::Directory => "a directory".to_string(),
        FileAt::Submodule => "a submodule".to_string(),
        FileAt::InSubmodule(module) => {
            format!("inside the submodule `{module}` (another repository, not checked)")
        }
        FileAt::Symlink => "a symbolic link (never followed)".to_string(),
        FileAt::Binary => "a binary file".to_string(),
        FileAt::TooLarge(n) => format!("a {} MiB blob, too large to read as source", n >> 20),
        FileAt::Text(_) | FileAt::Missing => return None,
    };
    Some(subject.finding(
        RuleId::NotAFile,
        format!("`{path}` is {kind} at {}", subject.short_rev()),
    ))
}
