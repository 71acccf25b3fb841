//! Numbered sources (seed 002): answers that cite with markers `[1]`, `[2][3]` and end with a
//! `Sources:` list of `[n] path (52%)` entries. A marker belongs to the next list after it within
//! its section (no heading in between); markers with no list after them are not citations.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::{Citation, Marker, SourceEntry, Span, Syntax};

use crate::paths::resolve_path;

static SOURCES_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[\s#>*_]*sources?\s*:?[\s*_]*$").expect("sources header pattern")
});
static SOURCE_ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[-*+]\s+)?\[(\d{1,3})\]\s+(\S+?)(?:\s+\(\s*\d+(?:\.\d+)?\s*%\s*\))?\s*$")
        .expect("source entry pattern")
});

/// Every `Sources:` list entry of a doc, read by line before the Markdown walk (so that entries
/// are not taken for markers), with the citation each makes. Code fences are skipped.
pub(super) fn scan(text: &str) -> Vec<(SourceEntry, Citation)> {
    let mut out = Vec::new();
    let mut list: Option<usize> = None;
    let mut lists = 0;
    let mut offset = 0;
    let mut fence: Option<&str> = None;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        let trimmed = body.trim_start();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            list = None;
            continue;
        }
        if SOURCES_HEADER.is_match(body) {
            list = Some(lists);
            lists += 1;
            continue;
        }
        let Some(current) = list else { continue };
        if body.trim().is_empty() {
            continue;
        }
        let Some(caps) = SOURCE_ENTRY.captures(body) else {
            list = None;
            continue;
        };
        let (Ok(number), Some(path)) = (caps[1].parse(), caps.get(2)) else {
            continue;
        };
        let entry = SourceEntry {
            number,
            line_span: Span::new(start, start + body.len()),
            list: current,
        };
        let citation = Citation::new(
            Syntax::SourceList,
            Span::new(start + path.start(), start + path.end()),
            path.as_str(),
            resolve_path(path.as_str(), None, false),
        );
        out.push((entry, citation));
    }
    out
}

/// The markers that belong to a list: each `(number, span)` found in prose goes to the first list
/// that starts after it with no heading (`headings`: their start offsets) in between.
pub(super) fn scope(
    candidates: &[(u32, Span)],
    entries: &[SourceEntry],
    headings: &[usize],
) -> Vec<Marker> {
    candidates
        .iter()
        .filter_map(|&(number, span)| {
            let list = entries
                .iter()
                .filter(|e| e.line_span.start > span.end)
                .min_by_key(|e| e.line_span.start)?;
            let heading_between = headings
                .iter()
                .any(|&h| span.end <= h && h < list.line_span.start);
            (!heading_between).then_some(Marker {
                number,
                span,
                list: list.list,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_belong_to_the_next_list_in_their_section() {
        let text = "A [1].\n\nSources:\n[1] a.rs\n\n# Next\n\nB [1] [2].\n\nSources:\n[2] b.rs\n\n# Last\n\nC [3].\n";
        let entries: Vec<SourceEntry> = scan(text).into_iter().map(|(e, _)| e).collect();
        assert_eq!(
            entries
                .iter()
                .map(|e| (e.number, e.list))
                .collect::<Vec<_>>(),
            [(1, 0), (2, 1)]
        );
        let at = |needle: &str, from: usize| {
            let i = from + text[from..].find(needle).unwrap();
            Span::new(i, i + needle.len())
        };
        let b = text.find("B ").unwrap();
        let candidates = [
            (1, at("[1]", 0)),
            (1, at("[1]", b)),
            (2, at("[2]", b)),
            (3, at("[3]", 0)),
        ];
        let headings = [text.find("# Next").unwrap(), text.find("# Last").unwrap()];
        let scoped = scope(&candidates, &entries, &headings);
        let got: Vec<(u32, usize)> = scoped.iter().map(|m| (m.number, m.list)).collect();
        // `[3]` has no list after it in its section: not a marker.
        assert_eq!(got, [(1, 0), (1, 1), (2, 1)]);
    }
}
