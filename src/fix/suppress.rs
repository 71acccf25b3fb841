//! `citegate suppress`: a suppression comment with its reason for every current finding of the
//! rules chosen (ruff's `--add-noqa`). A comment is written at the end of the finding's line
//! (`<!-- citegate-ignore RULE: reason -->` covers the line it ends), or on a line of its own
//! before a fence's opening line (text after a fence's info string would change the fence).
//! Only Markdown docs take comments; a line with one comment of citegate already is left alone,
//! so a second run writes nothing.

use std::collections::BTreeMap;

use crate::model::{DocId, DocKind, Report};
use crate::registry::RuleId;

/// One doc's new text and how many lines got a comment.
pub struct Suppressing {
    pub doc: DocId,
    pub after: String,
    pub lines: usize,
}

/// The docs to rewrite so that every finding of `rules` in `report` is suppressed with `reason`,
/// and how many findings could not be (in docs that are not Markdown).
pub fn plan(report: &Report, rules: &[RuleId], reason: &str) -> (Vec<Suppressing>, usize) {
    let reason = one_line(reason);
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
        let names: Vec<&str> = rules.iter().map(|r| r.as_str()).collect();
        let comment = format!("<!-- citegate-ignore {}: {reason} -->", names.join(", "));
        s.lines += usize::from(insert(&mut s.after, line, &comment));
    }
    out.reverse();
    (out, not_markdown)
}

/// Write `comment` for 1-based `line` of `text`; `false` when the line has one already.
fn insert(text: &mut String, line: usize, comment: &str) -> bool {
    let index = crate::model::LineIndex::new(text);
    let Some(start) = index.line_start(line) else {
        return false;
    };
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let end = if text[..end].ends_with('\r') {
        end - 1
    } else {
        end
    };
    let content = &text[start..end];
    let trimmed = content.trim_start();
    if content.contains("<!-- citegate-") {
        return false;
    }
    if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
        let indent = &content[..content.len() - trimmed.len()];
        text.insert_str(start, &format!("{indent}{comment}\n"));
    } else {
        text.insert_str(end, &format!(" {comment}"));
    }
    true
}

/// The reason on one line, without what would end the comment early.
fn one_line(reason: &str) -> String {
    let words = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    words.replace("--", "- -")
}
