//! `dead-doc-link` (warning): a whole-file link to a doc (Markdown, HTML, text) that does not
//! exist. Links to docs are not code citations (never `invented-path`), but a broken one is
//! still reported, with the closest existing paths.
//!
//! What it checks, why, and its fix safety: `rules/dead-doc-link.yaml` (`citegate explain dead-doc-link`).

use super::context::{did_you_mean, Subject};
use crate::check::FileFacts;
use crate::model::Finding;
use crate::registry::RuleId;

/// Extensions of docs, not code: a link to one cites no lines.
pub(super) const DOC_EXTENSIONS: &[&str] = &[
    "md", "mdx", "markdown", "rst", "adoc", "asciidoc", "html", "htm", "txt",
];

/// Whether a citation of `path` with no lines is a link to a doc.
pub(super) fn is_doc_link(subject: &Subject<'_>, path: &str) -> bool {
    let c = subject.citation;
    let ext = path.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    // An include embeds the file: a citation like any other, whatever the file.
    !c.syntax.is_include()
        && c.lines.is_none()
        && c.bad_lines.is_none()
        && ext.is_some_and(|e| DOC_EXTENSIONS.contains(&e.as_str()))
}

pub(super) fn check(subject: &Subject<'_>, path: &str, file: &FileFacts) -> Option<Finding> {
    let FileFacts::Missing { suggestions, .. } = file else {
        return None;
    };
    if !is_doc_link(subject, path) {
        return None;
    }
    let f = subject.finding(
        RuleId::DeadDocLink,
        format!(
            "the linked doc `{path}` does not exist at {}",
            subject.short_rev()
        ),
    );
    Some(did_you_mean(f, suggestions))
}
