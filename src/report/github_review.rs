//! A GitHub pull-request review of the safe fixes (`--format github-review`): the JSON body of
//! `POST /repos/{owner}/{repo}/pulls/{number}/reviews`, one comment per block of doc lines that
//! `citegate fix` rewrites, each holding a ```` ```suggestion ```` block with exactly the lines
//! `fix` writes there, so "Commit suggestion" applies the fix. GitHub takes review comments only on
//! lines of the pull request's diff: a block is suggested only when every line it replaces is a
//! line the pull request added or changed. Everything else stays in the summary and the report
//! comment, which list every finding.
//!
//! The suggestion is the doc's own bytes, fenced by more backticks than it holds in a row;
//! nothing else from the doc is rendered as Markdown (messages are escaped as in the Markdown
//! report).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::model::{DocId, Finding, Report};

/// The first line of every comment and review citegate writes: how the Action finds its own
/// earlier ones (and only those its own identity wrote) to replace them.
pub const MARKER: &str = "<!-- citegate-review -->";

/// GitHub's pages stay usable and its API accepts the review: at most this many comments, the
/// first in report order; the rest are counted in the review's body.
pub const MAX_COMMENTS: usize = 100;

/// What the review is made from: the docs' text after `citegate fix` (by doc index), and the
/// lines the pull request added or changed (1-based, by doc name: only docs whose committed
/// text at the target is the text audited, so that line numbers are the pull request's).
#[derive(Debug, Default)]
pub struct Input {
    pub fixed: BTreeMap<DocId, String>,
    pub changed: BTreeMap<String, BTreeSet<usize>>,
}

/// One block of lines that `fix` rewrites: old lines `start..=end` (1-based) and their new text,
/// and where they are in the doc's bytes.
struct Block {
    start: usize,
    end: usize,
    new: String,
    bytes: (usize, usize),
}

/// The blocks `fix` rewrites in `before` to make `after`, as line replacements (a pure insertion
/// has no line to hang a suggestion on and is left out).
fn blocks(before: &str, after: &str) -> Vec<Block> {
    let diff = similar::TextDiff::from_lines(before, after);
    let old: Vec<&str> = diff.old_slices().to_vec();
    let new: Vec<&str> = diff.new_slices().to_vec();
    let offset = |line: usize| old[..line].iter().map(|l| l.len()).sum::<usize>();
    let mut out = Vec::new();
    for group in diff.grouped_ops(0) {
        let changed: Vec<_> = group
            .iter()
            .filter(|op| op.tag() != similar::DiffTag::Equal)
            .collect();
        let (Some(first), Some(last)) = (changed.first(), changed.last()) else {
            continue;
        };
        let o = first.old_range().start..last.old_range().end;
        let n = first.new_range().start..last.new_range().end;
        if o.is_empty() {
            continue;
        }
        let text: String = new[n].concat();
        out.push(Block {
            start: o.start + 1,
            end: o.end,
            new: text,
            bytes: (offset(o.start), offset(o.end)),
        });
    }
    out
}

/// `lines` (each with its line ending) as a suggestion block: without the last line ending,
/// fenced by more backticks than any run in it.
pub fn suggestion(lines: &str) -> String {
    let body = lines.strip_suffix('\n').unwrap_or(lines);
    let mut run = 0;
    let mut longest = 0;
    for c in body.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    if body.is_empty() && lines.is_empty() {
        return format!("{fence}suggestion\n{fence}");
    }
    format!("{fence}suggestion\n{body}\n{fence}")
}

fn comment(report: &Report, doc: DocId, block: &Block) -> Value {
    let name = &report.docs[doc].doc.name;
    let within = |f: &&Finding| {
        f.doc == doc
            && f.offered_fix().is_some_and(|x| {
                block.bytes.0 <= x.edit.byte_start && x.edit.byte_end <= block.bytes.1
            })
    };
    let mut body = format!("{MARKER}\n");
    let findings: Vec<&Finding> = report.findings.iter().filter(within).collect();
    if findings.is_empty() {
        body.push_str(
            "citegate fix rewrites these lines \\(a fix that follows from the others\\)\\.\n",
        );
    }
    for f in findings {
        body.push_str(&format!(
            "**citegate {}**: {}\n",
            super::markdown::cell(f.rule.as_str()),
            super::markdown::cell(&f.message)
        ));
    }
    body.push('\n');
    body.push_str(&suggestion(&block.new));
    let mut c = json!({"path": name, "line": block.end, "side": "RIGHT", "body": body});
    if block.start < block.end {
        c["start_line"] = json!(block.start);
        c["start_side"] = json!("RIGHT");
    }
    c
}

/// The review request's JSON body (`event: COMMENT`, no `commit_id`: the pull request's head).
pub fn render(report: &Report, input: &Input) -> String {
    let mut comments = Vec::new();
    let mut left = 0;
    for (&doc, after) in &input.fixed {
        let audited = &report.docs[doc].doc;
        let Some(changed) = input.changed.get(&audited.name) else {
            continue;
        };
        for block in blocks(&audited.text, after) {
            // A CR would be written back as the line ending GitHub chooses: left to `fix`.
            let lines = &audited.text[block.bytes.0..block.bytes.1];
            let in_diff = (block.start..=block.end).all(|l| changed.contains(&l));
            if !in_diff || lines.contains('\r') || block.new.contains('\r') {
                continue;
            }
            if comments.len() == MAX_COMMENTS {
                left += 1;
                continue;
            }
            comments.push(comment(report, doc, &block));
        }
    }
    let mut body = format!(
        "{MARKER}\n**citegate**: {} safe fix{} on lines this pull request changed, as suggestions \
         \\(\"Commit suggestion\" applies one; \"Add suggestion to batch\" several\\)\\. Every finding \
         is in the job summary and the report comment\\.",
        comments.len(),
        if comments.len() == 1 { "" } else { "es" }
    );
    if left > 0 {
        body.push_str(&format!(
            " {left} more fix{} not suggested here \\(at most {MAX_COMMENTS}\\): run `citegate fix`\\.",
            if left == 1 { " is" } else { "es are" }
        ));
    }
    let review = json!({"event": "COMMENT", "body": body, "comments": comments});
    let mut text = crate::escape::json_escapes(
        serde_json::to_string_pretty(&review).expect("review serialises"),
    );
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fence_is_longer_than_any_backtick_run() {
        assert_eq!(suggestion("a\n"), "```suggestion\na\n```");
        assert_eq!(suggestion("x ```` y\n"), "`````suggestion\nx ```` y\n`````");
        assert_eq!(suggestion(""), "```suggestion\n```");
    }

    #[test]
    fn blocks_are_the_rewritten_lines() {
        let b = blocks("a\nb src:1\nc\n", "a\nb src:2\nc\n");
        assert_eq!(b.len(), 1);
        assert_eq!(
            (b[0].start, b[0].end, b[0].new.as_str()),
            (2, 2, "b src:2\n")
        );
        assert_eq!(b[0].bytes, (2, 10));
    }
}
