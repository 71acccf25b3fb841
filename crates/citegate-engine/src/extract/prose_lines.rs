//! Line references written in words, as hand-written docs and agent-written specs do:
//! "`modbus.rs` line 883", "`src/a.rs` (lines 10-20)", "lines 10-20 of `src/a.rs`", and a
//! continuation after a cited path in the same sentence ("… `src/a.rs:12` … (`:343-360`)").
//! Each is tentative: a citation only when its path is a file at the citation's revision.
//! Approximate references ("line ~883", "around line 80") are not citations; they are counted.
//! Code fences are never read.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::{Citation, Doc, Extracted, LineRange, LineStyle, PathStyle, Span, Syntax};

use super::bare;
use crate::paths::resolve_path;

/// A path as prose writes it: with a folder or a file extension, optionally in backticks.
const PATH: &str = r"`?(?P<path>[A-Za-z0-9_.@~+-]*(?:/[A-Za-z0-9_.@~+-]+)*\.[A-Za-z][A-Za-z0-9]{0,11}|[A-Za-z0-9_.@~+-]+(?:/[A-Za-z0-9_.@~+-]+)+)`?";
const LINES: &str = r"lines?\s+(?P<a>\d{1,9})(?:\s*(?:-|–|to)\s*(?P<b>\d{1,9}))?";

static AFTER_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"{PATH}(?:,\s*|\s+|\s*\(\s*){LINES}\b")).expect("path then lines")
});
static BEFORE_PATH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(r"\b{LINES}\s+(?:of|in)\s+{PATH}")).expect("lines then path")
});
static CONTINUATION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"`:(?P<a>\d{1,9})(?:-(?P<b>\d{1,9}))?`").expect("continuation"));
static APPROXIMATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:around|near|about|approximately|roughly)\s+lines?\s+\d+|\blines?\s+~\s*\d+",
    )
    .expect("approximate")
});

/// The prose of a Markdown doc: its lines outside code fences, with their byte offsets.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if m == open => fence = None,
            (None, None) => out.push((start, line)),
            _ => {}
        }
    }
    out
}

/// Add the line references in words of a Markdown doc to its citations, and count the
/// approximate ones.
pub(super) fn references(doc: &Doc, ext: &mut Extracted) {
    if !doc.text.contains("line") && !doc.text.contains("`:") {
        return;
    }
    let mut found = Vec::new();
    for (start, line) in prose(&doc.text) {
        // Every pattern but the continuation holds the word (see `mentions_line`).
        if mentions_line(line) {
            ext.approximate += APPROXIMATE.find_iter(line).count();
            in_words(start, line, &mut found);
        }
        if line.contains("`:") {
            continuations(start, line, &mut found);
        }
    }
    // A reference already read as a citation (`src/a.rs:12 (line 12)`) is not read twice.
    found.retain(|c: &Citation| !ext.citations.iter().any(|e| e.span.overlaps(c.span)));
    ext.citations.extend(found);
}

/// The line references in words of the prose line at `start` ("`a.rs` line 3", "lines 3-4 of
/// a.rs"), unless hedged.
fn in_words(start: usize, line: &str, found: &mut Vec<Citation>) {
    for re in [&*AFTER_PATH, &*BEFORE_PATH] {
        for caps in re.captures_iter(line) {
            let (Some(whole), Some(path), Some(a)) =
                (caps.get(0), caps.name("path"), caps.name("a"))
            else {
                continue;
            };
            let b = caps.name("b").unwrap_or(a);
            // "around line 80 of a.rs" is approximate: counted, never a citation.
            let before = line[..whole.start()].trim_end().to_ascii_lowercase();
            let hedged = ["around", "near", "about", "approximately", "roughly"]
                .iter()
                .any(|w| before.ends_with(w));
            if !hedged {
                found.push(citation(start, path, (a, b), whole));
            }
        }
    }
}

/// Whether `line` holds "line" in any case: the word every pattern of line numbers in words
/// holds (no letter of it has a case variant outside ASCII), so most lines skip the regexes.
fn mentions_line(line: &str) -> bool {
    line.as_bytes()
        .windows(4)
        .any(|w| w.eq_ignore_ascii_case(b"line"))
}

/// A tentative citation of `path`, lines `a`-`b`, written at `whole` (offsets in the line that
/// starts at `start`).
fn citation(
    start: usize,
    path: regex::Match,
    (a, b): (regex::Match, regex::Match),
    whole: regex::Match,
) -> Citation {
    let lines = LineRange::parse(&format!("{}-{}", a.as_str(), b.as_str()));
    let mut c = Citation::new(
        Syntax::Bare,
        Span::new(start + whole.start(), start + whole.end()),
        path.as_str(),
        resolve_path(path.as_str(), None, false),
    )
    .with_lines(lines);
    c.tentative = true;
    c.path_span = Some((
        Span::new(start + path.start(), start + path.end()),
        PathStyle::Repo,
    ));
    if a.start() == b.start() {
        c.lines_span = Some((
            Span::new(start + a.start(), start + a.end()),
            LineStyle::Plain,
        ));
    }
    c
}

/// `` `:343-360` `` after a cited `path:line` in the same sentence: the same file.
fn continuations(start: usize, line: &str, found: &mut Vec<Citation>) {
    for caps in CONTINUATION.captures_iter(line) {
        let (Some(whole), Some(a)) = (caps.get(0), caps.name("a")) else {
            continue;
        };
        let sentence_start = line[..whole.start()].rfind(". ").map_or(0, |i| i + 2);
        let before = &line[sentence_start..whole.start()];
        let Some(path) = bare::find(before)
            .into_iter()
            .rev()
            .find(|c| c.path_span.is_some())
            .map(|c| c.path)
        else {
            continue;
        };
        let b = caps.name("b").unwrap_or(a);
        let lines = LineRange::parse(&format!("{}-{}", a.as_str(), b.as_str()));
        let mut c = Citation::new(
            Syntax::Bare,
            Span::new(start + whole.start(), start + whole.end()),
            &path,
            resolve_path(&path, None, false),
        )
        .with_lines(lines);
        c.tentative = true;
        let digits = Span::new(start + whole.start() + 2, start + whole.end() - 1);
        c.lines_span = Some((digits, LineStyle::Plain));
        found.push(c);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<String> {
        let doc = Doc::new(
            "d.md".into(),
            "d.md".into(),
            None,
            crate::model::DocKind::Markdown,
            text.into(),
        );
        let mut ext = Extracted::default();
        references(&doc, &mut ext);
        ext.citations
            .iter()
            .map(|c| format!("{}:{}", c.raw_path, c.lines.unwrap()))
            .collect()
    }

    #[test]
    fn no_letter_of_line_has_a_case_variant_outside_ascii() {
        // `mentions_line` compares in ASCII only; `APPROXIMATE` is case-insensitive in Unicode.
        let others: String = (0x80..=0x10FFFF).filter_map(char::from_u32).collect();
        let any_case = Regex::new("(?i)[line]").unwrap();
        assert_eq!(any_case.find(&others), None);
        assert!(mentions_line("Around LINE 80"));
        assert!(!mentions_line("lin e"));
    }

    #[test]
    fn line_references_in_words() {
        assert_eq!(read("See `modbus.rs` line 883 for it."), ["modbus.rs:883"]);
        assert_eq!(
            read("In src/a.rs (lines 10-20) the cache."),
            ["src/a.rs:10-20"]
        );
        assert_eq!(
            read("Read lines 10 to 20 of `src/a.rs`."),
            ["src/a.rs:10-20"]
        );
        assert_eq!(
            read("At src/a.rs:12 and then (`:343-360`)."),
            ["src/a.rs:343-360"]
        );
        assert!(read("Around line 80 of the file, and line ~883.").is_empty());
        assert!(read("Somewhere around line 80 of src/a.rs.").is_empty());
        assert!(read("```\nsrc/a.rs line 3\n```\n").is_empty());
        assert!(read("It takes a line 3 times.").is_empty());
    }
}
