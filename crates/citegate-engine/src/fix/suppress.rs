//! `citegate suppress`: a suppression comment with its reason for every current finding of the
//! rules chosen (ruff's `--add-noqa`). A comment is written at the end of the finding's line
//! (`<!-- citegate-ignore RULE: reason -->` covers the line it ends; in a table row, at the end
//! of the last cell), or on a line of its own before a fence's opening line (text after a
//! fence's info string would change the fence).
//! Only Markdown docs take comments; a line with one comment of citegate already is left alone,
//! so a second run writes nothing.

use std::collections::BTreeMap;

use crate::model::{DocId, DocKind, Report};
use crate::registry::RuleId;

/// One doc's new text and how many lines got a comment.
pub struct Suppressing {
    /// The doc that gets the comments.
    pub doc: DocId,
    /// The doc's whole text with the comments added.
    pub after: String,
    /// How many lines got a comment.
    pub lines: usize,
}

/// The docs to rewrite so that every finding of `rules` in `report` is suppressed with `reason`,
/// and how many findings could not be (in docs that are not Markdown).
pub fn plan(report: &Report, rules: &[RuleId], reason: &str) -> (Vec<Suppressing>, usize) {
    let mut by_line: BTreeMap<(DocId, usize), Vec<RuleId>> = BTreeMap::new();
    let mut not_markdown = 0;
    for f in report.findings.iter().filter(|f| rules.contains(&f.rule)) {
        if report.docs[f.doc].doc.kind != DocKind::Markdown {
            not_markdown += 1;
            continue;
        }
        let at = by_line.entry((f.doc, f.at.line)).or_default();
        if !at.contains(&f.rule) {
            at.push(f.rule);
        }
    }
    let mut out: Vec<Suppressing> = Vec::new();
    // From the last line up: a line added before a fence moves none still to be written.
    for ((doc, line), rules) in by_line.into_iter().rev() {
        if out.last().is_none_or(|s| s.doc != doc) {
            let text = report.docs[doc].doc.text.clone();
            out.push(Suppressing {
                doc,
                after: text,
                lines: 0,
            });
        }
        let s = out.last_mut().expect("pushed above");
        let comment = comment(&rules, reason);
        if let Some((at, text)) = insertion(&s.after, line, &comment) {
            s.after.insert_str(at, &text);
            s.lines += 1;
        }
    }
    out.reverse();
    (out, not_markdown)
}

/// The reason the language server's "suppress with reason" action writes, for the user to
/// replace: until it is, the comment is reported as giving no reason (`unused-suppression`).
pub const PLACEHOLDER_REASON: &str = "TODO: why";

/// The comment that suppresses `rules` with `reason` (made one line, unable to end the comment).
pub fn comment(rules: &[RuleId], reason: &str) -> String {
    let names: Vec<&str> = rules.iter().map(|r| r.as_str()).collect();
    format!(
        "<!-- citegate-ignore {}: {} -->",
        names.join(", "),
        one_line(reason)
    )
}

/// Where to insert what, so that `comment` covers 1-based `line` of `text`: at the line's end,
/// or on a line of its own before a fence's opening line. `None` when the line has a comment of
/// citegate already (or there is no such line).
pub fn insertion(text: &str, line: usize, comment: &str) -> Option<(usize, String)> {
    let index = crate::model::LineIndex::new(text);
    let start = index.line_start(line)?;
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let end = if text[..end].ends_with('\r') {
        end - 1
    } else {
        end
    };
    let content = &text[start..end];
    let trimmed = content.trim_start();
    if content.contains("<!-- citegate-") {
        return None;
    }
    if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
        let indent = &content[..content.len() - trimmed.len()];
        Some((start, format!("{indent}{comment}\n")))
    } else if let Some(cell_end) = last_cell_end(content) {
        Some((start + cell_end, format!(" {comment}")))
    } else {
        Some((end, format!(" {comment}")))
    }
}

/// In a table row (`| a | b |`), where the last cell's text ends: a comment after the row's last
/// `|` would be a cell past the header's, which the table drops (and nothing reads).
fn last_cell_end(row: &str) -> Option<usize> {
    let body = row.trim_end();
    let inner = body.strip_suffix('|')?;
    if inner.ends_with('\\') || !inner.contains('|') {
        return None;
    }
    Some(inner.trim_end().len())
}

/// The reason on one line, without what would end the comment early.
fn one_line(reason: &str) -> String {
    let words = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    words.replace("--", "- -")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insert(text: &str, line: usize) -> String {
        let mut out = text.to_string();
        let (at, s) = insertion(text, line, "<!-- citegate-ignore x: y -->").unwrap();
        out.insert_str(at, &s);
        out
    }

    #[test]
    fn a_comment_goes_where_markdown_reads_it_on_the_finding_s_line() {
        assert_eq!(
            insert("a\nsee x.rs:1\n", 2),
            "a\nsee x.rs:1 <!-- citegate-ignore x: y -->\n"
        );
        // A table row: in its last cell (after the last `|` it would be a cell the table drops).
        assert_eq!(
            insert("| a | b |\n|---|---|\n| x.rs:1 | the cache  |\n", 3),
            "| a | b |\n|---|---|\n| x.rs:1 | the cache <!-- citegate-ignore x: y -->  |\n"
        );
        // A fence: on a line of its own before it.
        assert_eq!(
            insert("  ```rust x.rs:1\n  ```\n", 1),
            "  <!-- citegate-ignore x: y -->\n  ```rust x.rs:1\n  ```\n"
        );
        // Once only.
        let once = insert("see x.rs:1\n", 1);
        assert!(insertion(&once, 1, "<!-- citegate-ignore x: y -->").is_none());
    }
}
