//! Cutting a file into retrieval chunks: definition-level units found with tree-sitter (functions,
//! methods, types, impls, classes) for the languages linked in, Markdown by heading, and every
//! other text file (and the code between definitions) in line windows.

use serde::{Deserialize, Serialize};

use crate::check::symbols::Symbols;

/// Lines per window, for text without definitions or headings.
pub(crate) const WINDOW: usize = 40;
/// A definition or section longer than this is cut into windows (keeping its name).
pub(crate) const MAX_UNIT: usize = 150;

/// A unit of retrieval: 1-based lines `start..=end` of `path`, and the definition it is (or is
/// inside), when there is one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// The file's repo-relative path.
    pub path: String,
    /// The chunk's first line (1-based).
    pub start: usize,
    /// The chunk's last line, inclusive.
    pub end: usize,
    /// The name of the definition or heading it is (or is inside), when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// A chunk of a doc (a Markdown page, an answer file), not of code: never retrieved unless
    /// the configuration says so (`retrieve-docs: true`), so a model does not cite a wiki page
    /// for what the code says.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub doc: bool,
}

/// Whether a file is a doc rather than code: Markdown, or JSON holding answers.
pub(crate) fn is_doc(path: &str, text: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let answers = || text.contains("\"citations\"") || text.contains("\"claims\"");
    [".md", ".mdx", ".markdown"]
        .iter()
        .any(|e| lower.ends_with(e))
        || ((lower.ends_with(".json") || lower.ends_with(".jsonl")) && answers())
}

/// The chunks of one file, in line order of their first line (definitions inside definitions
/// are their own chunks too: a method is found without its whole class).
pub fn chunks(path: &str, text: &str) -> Vec<Chunk> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let lower = path.to_ascii_lowercase();
    let mut covered = vec![false; lines.len() + 2];
    if lower.ends_with(".md") || lower.ends_with(".mdx") {
        for (start, end, title) in sections(&lines) {
            unit(&mut out, path, &lines, start, end, title);
            covered[start..=end].iter_mut().for_each(|c| *c = true);
        }
    } else if let Some(symbols) = Symbols::parse(path, text) {
        for d in symbols.definitions(text) {
            let end = d.end.min(lines.len());
            if d.start > end {
                continue;
            }
            unit(&mut out, path, &lines, d.start, end, Some(d.name));
            covered[d.start..=end].iter_mut().for_each(|c| *c = true);
        }
    }
    // What no definition or section holds (imports, constants, a plain text file): windows.
    let mut line = 1;
    while line <= lines.len() {
        if covered[line] {
            line += 1;
            continue;
        }
        let start = line;
        while line <= lines.len() && !covered[line] && line - start < WINDOW {
            line += 1;
        }
        unit(&mut out, path, &lines, start, line - 1, None);
    }
    out.sort_by_key(|c| (c.start, std::cmp::Reverse(c.end)));
    if is_doc(path, text) {
        out.iter_mut().for_each(|c| c.doc = true);
    }
    out
}

/// One unit, cut into windows when it is long; blank windows are left out.
fn unit(
    out: &mut Vec<Chunk>,
    path: &str,
    lines: &[&str],
    start: usize,
    end: usize,
    symbol: Option<String>,
) {
    let step = if end + 1 - start > MAX_UNIT {
        WINDOW
    } else {
        MAX_UNIT
    };
    let mut from = start;
    while from <= end {
        let to = (from + step - 1).min(end);
        // Blank lines at either end are left out; a blank window is no chunk.
        let blank = |l: &usize| lines[l - 1].trim().is_empty();
        let first = (from..=to).find(|l| !blank(l));
        let last = (from..=to).rev().find(|l| !blank(l));
        if let (Some(first), Some(last)) = (first, last) {
            out.push(Chunk {
                path: path.to_string(),
                start: first,
                end: last,
                symbol: symbol.clone(),
                doc: false,
            });
        }
        from = to + 1;
    }
}

/// Markdown sections: from each heading (outside code fences) to the line before the next one,
/// with the heading's text; the text before the first heading is a section without a title.
fn sections(lines: &[&str]) -> Vec<(usize, usize, Option<String>)> {
    let mut heads: Vec<(usize, String)> = Vec::new();
    let mut fence: Option<&str> = None;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| t.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) if is_heading(t) => {
                heads.push((i + 1, t.trim_start_matches('#').trim().to_string()));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    let first = heads.first().map_or(lines.len() + 1, |h| h.0);
    if first > 1 {
        out.push((1, first - 1, None));
    }
    for (k, (start, title)) in heads.iter().enumerate() {
        let end = heads.get(k + 1).map_or(lines.len(), |h| h.0 - 1);
        out.push((*start, end, Some(title.clone())));
    }
    out
}

fn is_heading(t: &str) -> bool {
    let hashes = t.len() - t.trim_start_matches('#').len();
    (1..=6).contains(&hashes) && t[hashes..].starts_with([' ', '\t'])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spans(path: &str, text: &str) -> Vec<(usize, usize, Option<String>)> {
        chunks(path, text)
            .into_iter()
            .map(|c| (c.start, c.end, c.symbol))
            .collect()
    }

    #[test]
    fn code_is_cut_at_definitions_and_the_rest_in_windows() {
        let rust = "use std::io;\n\npub const TTL: u64 = 30;\n\nfn load() {\n    1;\n}\n";
        assert_eq!(
            spans("a.rs", rust),
            [(1, 3, None), (5, 7, Some("load".to_string()))]
        );
    }

    #[test]
    fn markdown_is_cut_at_headings_outside_fences() {
        let md = "intro\n# One\ntext\n```\n# not a heading\n```\n## Two\nmore\n";
        assert_eq!(
            spans("a.md", md),
            [
                (1, 1, None),
                (2, 6, Some("One".to_string())),
                (7, 8, Some("Two".to_string()))
            ]
        );
    }

    #[test]
    fn plain_text_is_cut_in_windows_and_blank_windows_are_dropped() {
        let mut text = "x\n".repeat(WINDOW + 1);
        text.push_str(&"\n".repeat(WINDOW));
        assert_eq!(
            spans("a.txt", &text),
            [(1, WINDOW, None), (WINDOW + 1, WINDOW + 1, None)]
        );
    }

    #[test]
    fn long_definitions_are_windows_that_keep_their_name() {
        let body = "    x();\n".repeat(MAX_UNIT);
        let rust = format!("fn big() {{\n{body}}}\n");
        let got = spans("a.rs", &rust);
        assert_eq!(got.len(), (MAX_UNIT + 2).div_ceil(WINDOW));
        assert!(got.iter().all(|c| c.2.as_deref() == Some("big")));
        assert_eq!(got.last().unwrap().1, MAX_UNIT + 2);
    }
}
