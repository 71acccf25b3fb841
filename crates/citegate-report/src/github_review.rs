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

use citegate_engine::model::{DocId, Finding, Report};

/// The first line of every comment and review citegate writes: how the Action finds its own
/// earlier ones (and only those its own identity wrote) to replace them.
pub const MARKER: &str = "<!-- citegate-review -->";

/// GitHub's pages stay usable and its API accepts the review: at most this many comments, the
/// first in report order; the rest are counted in the review's body.
pub const MAX_COMMENTS: usize = 100;

/// GitHub refuses (HTTP 422) a review whose body, or one of whose comments' bodies, is longer
/// than 65,536 characters, and then posts none of it. Counted here in bytes, never fewer than
/// GitHub's characters.
pub const MAX_BODY: usize = 65_536;

/// What the review is made from: the docs' text after `citegate fix` (by doc index), and by doc
/// name the audited lines a comment can sit on (1-based), each with the line of the pull
/// request's head it is: lines the pull request added or changed, only in docs whose committed
/// text at the target is the text audited. `commit_id`: the head those lines are numbered on
/// (none: the pull request's head, the target's numbers).
#[derive(Debug, Default)]
pub struct Input {
    pub fixed: BTreeMap<DocId, String>,
    pub anchors: BTreeMap<String, BTreeMap<usize, usize>>,
    pub commit_id: Option<String>,
}

/// The lines of `audited` a comment can sit on, each with its line in `head`: a line the line
/// diff finds identical in the two texts, whose head line is one the pull request changed
/// (`changed`, in the head's numbers).
pub fn anchors(audited: &str, head: &str, changed: &BTreeSet<usize>) -> BTreeMap<usize, usize> {
    let diff = similar::TextDiff::from_lines(audited, head);
    let mut out = BTreeMap::new();
    for op in diff.ops() {
        if let similar::DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            for k in 1..=len {
                if changed.contains(&(new_index + k)) {
                    out.insert(old_index + k, new_index + k);
                }
            }
        }
    }
    out
}

/// The head's lines of `block`: its first line's anchor, when every line of it is anchored on
/// the head's lines in a row.
fn place(block: &Block, anchors: &BTreeMap<usize, usize>) -> Option<(usize, usize)> {
    let first = *anchors.get(&block.start)?;
    let in_a_row =
        (block.start..=block.end).all(|l| anchors.get(&l) == Some(&(first + l - block.start)));
    in_a_row.then_some((first, first + block.end - block.start))
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

/// The comment suggesting `block`, on the head's lines `start..=end`.
fn comment(report: &Report, doc: DocId, block: &Block, (start, end): (usize, usize)) -> Value {
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
    let mut c = json!({"path": name, "line": end, "side": "RIGHT", "body": body});
    if start < end {
        c["start_line"] = json!(start);
        c["start_side"] = json!("RIGHT");
    }
    c
}

/// How many fixes were not suggested: past [`MAX_COMMENTS`], and too long for one comment.
#[derive(Default)]
struct Left {
    over: usize,
    long: usize,
}

/// The comments, in report order, and what was left out.
fn comments(report: &Report, input: &Input) -> (Vec<Value>, Left) {
    let mut comments = Vec::new();
    let mut left = Left::default();
    for (&doc, after) in &input.fixed {
        let audited = &report.docs[doc].doc;
        let Some(anchors) = input.anchors.get(&audited.name) else {
            continue;
        };
        for block in blocks(&audited.text, after) {
            // A CR would be written back as the line ending GitHub chooses: left to `fix`.
            let lines = &audited.text[block.bytes.0..block.bytes.1];
            let Some(at) = place(&block, anchors) else {
                continue;
            };
            if lines.contains('\r') || block.new.contains('\r') {
                continue;
            }
            let c = comment(report, doc, &block, at);
            if c["body"].as_str().map_or(0, str::len) > MAX_BODY {
                left.long += 1;
            } else if comments.len() == MAX_COMMENTS {
                left.over += 1;
            } else {
                comments.push(c);
            }
        }
    }
    (comments, left)
}

/// The review's body: how many fixes are suggested, and how many are not and why.
fn review_body(suggested: usize, left: &Left) -> String {
    let es = |n: usize| if n == 1 { "" } else { "es" };
    let mut body = format!(
        "{MARKER}\n**citegate**: {suggested} safe fix{} on lines this pull request changed, as \
         suggestions \\(\"Commit suggestion\" applies one; \"Add suggestion to batch\" several\\)\\. \
         Every finding is in the job summary and the report comment\\.",
        es(suggested)
    );
    if left.over > 0 {
        body.push_str(&format!(
            " {} more fix{} not suggested here \\(at most {MAX_COMMENTS}\\): run `citegate fix`\\.",
            left.over,
            if left.over == 1 { " is" } else { "es are" }
        ));
    }
    if left.long > 0 {
        body.push_str(&format!(
            " {} fix{} not suggested: the comment would be longer than GitHub takes \\({MAX_BODY} \
             characters\\): run `citegate fix`\\.",
            left.long,
            es(left.long)
        ));
    }
    // Only counts: far within the limit, and cut to it whatever is added here later.
    citegate_engine::escape::clip(body, MAX_BODY - 64)
}

/// The review request's JSON body (`event: COMMENT`; `commit_id` the head the lines are
/// numbered on, when given, else none: the pull request's head).
pub fn render(report: &Report, input: &Input) -> String {
    let (comments, left) = comments(report, input);
    let body = review_body(comments.len(), &left);
    let mut review = json!({"event": "COMMENT", "body": body, "comments": comments});
    if let Some(head) = &input.commit_id {
        review["commit_id"] = json!(head);
    }
    let mut text = citegate_engine::escape::json_escapes(
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

    fn block(start: usize, end: usize) -> Block {
        Block {
            start,
            end,
            new: String::new(),
            bytes: (0, 0),
        }
    }

    /// The merge commit's doc has two lines the base branch added above the pull request's
    /// paragraph; the head's has not.
    const MERGED: &str = "base 1\nbase 2\n# Guide\nold src:1\nnew src:2\nnew src:3\n";
    const HEAD: &str = "# Guide\nold src:1\nnew src:2\nnew src:3\n";

    #[test]
    fn a_block_is_placed_on_the_heads_lines() {
        let changed = BTreeSet::from([3, 4]);
        let anchors = anchors(MERGED, HEAD, &changed);
        assert_eq!(anchors, BTreeMap::from([(5, 3), (6, 4)]));
        assert_eq!(place(&block(5, 6), &anchors), Some((3, 4)));
        assert_eq!(place(&block(6, 6), &anchors), Some((4, 4)));
    }

    #[test]
    fn a_block_not_on_lines_the_head_changed_is_not_placed() {
        // Line 4 (merge) is the head's line 2, which the pull request did not change.
        let anchors = anchors(MERGED, HEAD, &BTreeSet::from([3, 4]));
        assert_eq!(place(&block(4, 4), &anchors), None);
        assert_eq!(place(&block(4, 5), &anchors), None);
        // The base branch's own lines are nowhere at the head.
        assert_eq!(place(&block(1, 1), &anchors), None);
        // A line the head holds otherwise is not the same line.
        let other = "# Guide\nold src:1\nnew src:9\nnew src:3\n";
        let anchors = super::anchors(MERGED, other, &BTreeSet::from([3, 4]));
        assert_eq!(place(&block(5, 6), &anchors), None);
        assert_eq!(place(&block(6, 6), &anchors), Some((4, 4)));
    }

    #[test]
    fn a_block_on_lines_not_in_a_row_at_the_head_is_not_placed() {
        let head = "# Guide\nold src:1\nnew src:2\ninserted\nnew src:3\n";
        let anchors = anchors(MERGED, head, &BTreeSet::from([3, 4, 5]));
        assert_eq!(anchors, BTreeMap::from([(5, 3), (6, 5)]));
        assert_eq!(place(&block(5, 6), &anchors), None);
    }

    #[test]
    fn the_review_body_counts_what_was_left_and_stays_within_the_limit() {
        let body = review_body(1, &Left { over: 0, long: 2 });
        assert!(
            body.contains(" 2 fixes not suggested: the comment would be longer than GitHub takes \\(65536 characters\\): run `citegate fix`"),
            "{body}"
        );
        assert!(body.len() <= MAX_BODY);
        let body = review_body(0, &Left::default());
        assert!(!body.contains("not suggested"), "{body}");
    }
}
