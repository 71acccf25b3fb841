//! Suppression comments in Markdown: HTML comments, which render as nothing.
//!
//! - `<!-- citegate-ignore RULE[, RULE]: reason -->` covers the line it ends, when text comes
//!   before it on that line, else the line after it;
//! - `<!-- citegate-disable RULE[, RULE]: reason -->` … `<!-- citegate-enable [RULE] -->` covers
//!   the lines between (to the doc's end when never enabled again).
//!
//! Only comments the Markdown parser reads as HTML are directives: one shown in a code block or
//! a code span is text. Whether a suppression applies, and what is wrong with one, is decided
//! after the rules (`audit::suppress`).

use crate::model::{Doc, InlineSuppression, Span};

/// What a comment says, when it is a directive.
#[derive(Debug, PartialEq, Eq)]
enum Directive {
    Ignore(Vec<String>, Option<String>),
    Disable(Vec<String>, Option<String>),
    Enable(Vec<String>),
}

/// The comment `<!-- … -->` starting at `start` in `text`, when one does.
pub(crate) fn comment_at(text: &str, start: usize) -> Option<Span> {
    let rest = text.get(start..)?;
    if !rest.starts_with("<!--") {
        return None;
    }
    let end = rest[4..].find("-->")? + 4 + 3;
    Some(Span::new(start, start + end))
}

/// Every comment starting inside `range` of `text` (an HTML event's source).
pub(crate) fn comments_in(text: &str, range: std::ops::Range<usize>, out: &mut Vec<Span>) {
    let Some(source) = text.get(range.clone()) else {
        return;
    };
    let mut from = 0;
    while let Some(i) = source[from..].find("<!--") {
        let start = range.start + from + i;
        match comment_at(text, start) {
            Some(span) => {
                if out.last().is_none_or(|last| last.end <= span.start) {
                    out.push(span);
                }
                from = span.end.saturating_sub(range.start).max(from + i + 4);
            }
            None => break,
        }
        if from >= source.len() {
            break;
        }
    }
}

fn parse(comment: &str) -> Option<Directive> {
    let body = comment.strip_prefix("<!--")?.strip_suffix("-->")?.trim();
    let (word, rest) = body.split_once(char::is_whitespace).unwrap_or((body, ""));
    let (names, reason) = match rest.split_once(':') {
        Some((names, reason)) => (names, Some(reason.trim())),
        None => (rest, None),
    };
    let rules: Vec<String> = names
        .split([',', ' ', '\t', '\n'])
        .filter(|r| !r.is_empty())
        .map(str::to_string)
        .collect();
    let reason = reason.filter(|r| !r.is_empty()).map(str::to_string);
    match word {
        "citegate-ignore" => Some(Directive::Ignore(rules, reason)),
        "citegate-disable" => Some(Directive::Disable(rules, reason)),
        "citegate-enable" => Some(Directive::Enable(rules)),
        _ => None,
    }
}

/// The suppressions of the `comments` of `doc` (in doc order).
pub fn suppressions(doc: &Doc, comments: &[Span]) -> Vec<InlineSuppression> {
    let text = doc.text.as_str();
    let lines = &doc.lines;
    let last_line = lines.line_count(text).max(1);
    let mut out = Vec::new();
    // Open blocks: their index in `out`.
    let mut open: Vec<usize> = Vec::new();
    for &span in comments {
        let Some(directive) = text.get(span.start..span.end).and_then(parse) else {
            continue;
        };
        let (first, last) = (
            lines.line(span.start),
            lines.line(span.end.saturating_sub(1)),
        );
        match directive {
            Directive::Ignore(rules, reason) => {
                let line_start = lines.line_start(first).unwrap_or(0);
                let text_before = !text[line_start..span.start].trim().is_empty();
                let covered = if text_before { last } else { last + 1 };
                out.push(InlineSuppression {
                    span,
                    rules,
                    reason,
                    lines: (first, covered),
                });
            }
            Directive::Disable(rules, reason) => {
                open.push(out.len());
                out.push(InlineSuppression {
                    span,
                    rules,
                    reason,
                    lines: (first, last_line),
                });
            }
            Directive::Enable(rules) => open.retain(|&i| {
                let closes = rules.is_empty() || out[i].rules.iter().any(|r| rules.contains(r));
                if closes {
                    out[i].lines.1 = first;
                }
                !closes
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DocKind;

    fn of(text: &str) -> Vec<InlineSuppression> {
        let doc = Doc::new(
            "a.md".into(),
            "a.md".into(),
            None,
            DocKind::Markdown,
            text.into(),
        );
        let mut comments = Vec::new();
        comments_in(text, 0..text.len(), &mut comments);
        suppressions(&doc, &comments)
    }

    #[test]
    fn directives_cover_their_lines() {
        let s = of("<!-- citegate-ignore invented-path, stale-changed: the reader's file -->\nx\n");
        assert_eq!(s[0].rules, ["invented-path", "stale-changed"]);
        assert_eq!(s[0].reason.as_deref(), Some("the reader's file"));
        assert_eq!(s[0].lines, (1, 2));
        let s = of("a\nsrc/x.rs:1 <!-- citegate-ignore invented-path -->\nb\n");
        assert_eq!((s[0].lines, s[0].reason.as_deref()), ((2, 2), None));
        let s =
            of("<!-- citegate-disable stale-changed: old -->\na\nb\n<!-- citegate-enable -->\nc\n");
        assert_eq!(s[0].lines, (1, 4));
        let s = of("<!-- citegate-disable stale-changed: old -->\na\nb\n");
        assert_eq!(s[0].lines, (1, 3));
        assert!(of("<!-- a plain comment -->\n<!-- citegate-ignoring x -->\n").is_empty());
    }
}
