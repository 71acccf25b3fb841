//! In code files: who cites a file's lines (code lenses), and the edits that keep every
//! citation of a renamed file (or folder) valid.

use std::collections::{BTreeMap, BTreeSet};

use lsp_types::{CodeLens, Command, Position, Range, TextEdit, Uri};

use super::place::{self, Cite};
use super::project::Index;
use super::text::{path_uri, Encoding, Positions};
use citegate_engine::fix::{self, Relocation};
use citegate_engine::model::{Applicability, DocList, LineRange, PinSource};

/// One lens above each span of `path` (repository-relative) whose content docs cite: "cited by
/// N docs", the whole file's at its first line. A lens stands where the audit found the cited
/// content at the target: where a moved or renamed citation's fix re-cites it, never on the
/// lines a stale or invented citation names (they hold something else now, or nothing).
pub(super) fn lenses(index: &Index, path: &str) -> Vec<CodeLens> {
    let report = index.audit();
    let target = index.snapshot.target;
    let mut by_span: BTreeMap<Option<LineRange>, BTreeSet<&str>> = BTreeMap::new();
    for (doc, d) in report.docs.enumerated() {
        for (i, _) in d.extracted.citations.enumerated() {
            let cite = Cite { doc, index: i };
            let Some(now) = place::at_target(report, cite, target) else {
                continue;
            };
            if now.path == path {
                by_span.entry(now.lines).or_default().insert(&d.doc.name);
            }
        }
    }
    by_span
        .into_iter()
        .map(|(lines, docs)| {
            let line = lines.map_or(0, |r| r.start.max(1) - 1) as u32;
            let what = match lines {
                Some(r) => r.named(),
                None => "this file".to_string(),
            };
            let n = docs.len();
            let docs: Vec<&str> = docs.into_iter().collect();
            CodeLens {
                range: Range::new(Position::new(line, 0), Position::new(line, 0)),
                command: Some(Command {
                    title: format!("{what} cited by {n} doc{}", if n == 1 { "" } else { "s" }),
                    command: "citegate.citedBy".to_string(),
                    arguments: Some(vec![serde_json::json!(docs)]),
                }),
                data: None,
            }
        })
        .collect()
}

/// The new name of `path` when one of the renames (repository-relative old → new, files or
/// folders) moves it.
fn renamed(renames: &[(String, String)], path: &str) -> Option<String> {
    renames.iter().find_map(|(old, new)| {
        if path == old {
            return Some(new.clone());
        }
        let rest = path.strip_prefix(old.as_str())?.strip_prefix('/')?;
        Some(format!("{new}/{rest}"))
    })
}

/// The edits, by doc, that make every citation of a renamed file cite it under its new name,
/// in the citation's own syntax. Citations pinned to a commit (their own pin or their doc's)
/// are left alone: at that commit the file still has its old name.
pub(super) fn rename_edits(
    index: &Index,
    renames: &[(String, String)],
    encoding: Encoding,
) -> Vec<(Uri, Vec<TextEdit>)> {
    let mut out = Vec::new();
    for d in &index.docs {
        let mut edits = Vec::new();
        let mut at = Positions::new(&d.doc.text, &d.doc.lines, encoding);
        for (i, c) in d.extracted.citations.enumerated() {
            let pin = d.pin_of(i).1;
            if matches!(pin, PinSource::Citation | PinSource::Doc) || c.foreign.is_some() {
                continue;
            }
            let Some(new) = c.repo_path().and_then(|p| renamed(renames, p)) else {
                continue;
            };
            let to = Relocation {
                path: Some(new),
                ..Relocation::default()
            };
            if let Some(fix) = fix::build(&d.doc.text, c, pin, &to, Applicability::Safe) {
                edits.push(TextEdit::new(
                    at.range(fix.edit.byte_start, fix.edit.byte_end),
                    fix.edit.replacement,
                ));
            }
        }
        if let Some(uri) = path_uri(&d.doc.fs_path).filter(|_| !edits.is_empty()) {
            out.push((uri, edits));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_folders_are_renamed() {
        let renames = vec![
            ("src/a.rs".to_string(), "src/b.rs".to_string()),
            ("lib".to_string(), "core".to_string()),
        ];
        assert_eq!(renamed(&renames, "src/a.rs").as_deref(), Some("src/b.rs"));
        assert_eq!(
            renamed(&renames, "lib/x/y.rs").as_deref(),
            Some("core/x/y.rs")
        );
        assert_eq!(renamed(&renames, "library/y.rs"), None);
        assert_eq!(renamed(&renames, "src/a.rs.bak"), None);
    }
}
