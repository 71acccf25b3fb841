//! `not-a-file`: the cited path is a directory, a submodule, a symbolic link, or a binary (or huge)
//! blob, so it has no lines to cite.
//!
//! What it checks, why, and its fix safety: `rules/not-a-file.yaml` (`citegate explain not-a-file`).

use super::RuleId;
use crate::check::Subject;
use crate::finding::Finding;
use crate::resolve::FileAt;

pub fn finding(subject: &Subject<'_>, path: &str, what: &FileAt) -> Option<Finding> {
    let kind = match what {
        FileAt::Directory => "a directory".to_string(),
        FileAt::Submodule => "a submodule".to_string(),
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
