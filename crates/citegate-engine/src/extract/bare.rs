//! Bare citations in prose and inline code: `src/a.rs:10`, `src/a.rs:10-20`, `src/a.rs#L10-L20`,
//! `src/a.rs:L10-L20`, `file:line:col`, and comma lists `src/a.rs:10-12, 30-41`.
//!
//! The path part must hold a `/` or a file extension, so `localhost:8080`, `10:30`, `std::io::Read`,
//! version strings, times and URLs are never taken for citations. A path with a `/` whose file name
//! has no extension (`bin/run:3`, but also the model ID `bedrock/amazon.nova-lite-v1:0`) is
//! tentative: a citation only if the path exists in the tree.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::{Citation, LineRange, LineStyle, Span, Syntax};

use crate::paths::resolve_path;

/// A bare citation found in a piece of text; spans are relative to that text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BareCitation {
    /// The path as written.
    pub path: String,
    /// `None`: the line spec was written but cannot be a line number (`a.rs:99999999999999999999`).
    pub lines: Option<LineRange>,
    /// The whole citation (path and lines) for the first of a comma list, the range alone after.
    pub span: Span,
    /// Where the line spec is written.
    pub lines_span: Span,
    /// Where the path is written; `None` for the ranges after the first of a comma list.
    pub path_span: Option<Span>,
    /// How the line spec is written, so a fix rewrites it the same way.
    pub style: LineStyle,
    /// The file name has no extension: a citation only if the path exists (decided at the target).
    pub tentative: bool,
    /// The line spec as written.
    pub spec: String,
}

static BARE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?x)
        (?P<path>[A-Za-z0-9_.@~+/-]*[A-Za-z0-9_])
        (?:
            :(?P<l1>L?\d+(?:-L?\d+)?)(?::\d+)?
          | \#(?P<l2>L\d+(?:-L?\d+)?)
        )
        (?P<more>(?:,\ ?L?\d+(?:-L?\d+)?)*)
        ",
    )
    .expect("bare citation pattern")
});

static RANGE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"L?(\d+)(?:-L?(\d+))?").expect("range pattern"));

/// Host names end in these, not source files: `example.com:8080` is no citation.
const HOST_SUFFIXES: &[&str] = &[
    "com",
    "org",
    "net",
    "io",
    "dev",
    "app",
    "ai",
    "co",
    "local",
    "internal",
    "localhost",
    "edu",
    "gov",
    "cloud",
];

/// Whether `path` looks like a file path: it holds a `/`, ends in a file extension, or is a
/// capitalised root file name without one (`Makefile`, `Dockerfile`, `LICENSE-MIT`), which is
/// tentative: read only when such a file exists.
pub(crate) fn looks_like_path(path: &str) -> bool {
    if !path.chars().any(|c| c.is_ascii_alphabetic()) || path.starts_with("//") {
        return false;
    }
    let file = path.rsplit('/').next().unwrap_or(path);
    if path.contains('/') {
        return !file.is_empty() || path.len() > 1;
    }
    if is_root_name(file) {
        return true;
    }
    has_extension(file) && !HOST_SUFFIXES.contains(&extension(file).to_ascii_lowercase().as_str())
}

/// A capitalised file name without an extension, as build and licence files are named at a
/// repository's root (`Makefile`, `Dockerfile`, `LICENSE-MIT`, `CODEOWNERS`).
fn is_root_name(file: &str) -> bool {
    file.len() >= 4
        && file.starts_with(|c: char| c.is_ascii_uppercase())
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !file.contains('.')
}

fn extension(file: &str) -> &str {
    file.rsplit_once('.').map_or("", |(_, e)| e)
}

/// Whether a file name ends in an extension as source files have them (`rs`, `py3`, `c++`), not
/// a version or model name (`nova-lite-v1`).
pub(crate) fn has_extension(file: &str) -> bool {
    match file.rsplit_once('.') {
        Some((stem, ext)) => {
            !stem.is_empty()
                && ext.len() <= 12
                && ext.starts_with(|c: char| c.is_ascii_alphabetic())
                && ext
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '+')
        }
        None => false,
    }
}

/// Parse one line spec (`10`, `L10-L20`, `10-20`) into a range.
pub(crate) fn parse_range(spec: &str) -> Option<LineRange> {
    LineRange::parse(spec)
}

fn style_of(spec: &str) -> LineStyle {
    match (spec.starts_with('L'), spec.matches('L').count()) {
        (false, _) => LineStyle::Plain,
        (true, 1) if spec.contains('-') => LineStyle::PrefixedFirst,
        _ => LineStyle::PrefixedBoth,
    }
}

/// Whether the match starting at `start` is part of a URL or scheme (`https://…`, `vscode://…`).
fn inside_url(text: &str, start: usize) -> bool {
    let token_start = text[..start]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '(' | '<' | '"' | '\''))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let token = &text[token_start..start];
    token.contains("://") || token.ends_with(':') || text[start..].starts_with("//")
}

impl BareCitation {
    /// The line spec as written, when it cannot be read as lines.
    pub(crate) fn bad_lines(&self) -> Option<String> {
        self.lines.is_none().then(|| self.spec.clone())
    }

    /// The citation this makes, written in `syntax` at `span` (the caller places the line and
    /// path spans, which depend on where the text it was found in is written).
    pub fn citation(&self, syntax: Syntax, span: Span) -> Citation {
        let mut c = Citation::new(
            syntax,
            span,
            &self.path,
            resolve_path(&self.path, None, false),
        )
        .with_lines(self.lines);
        c.bad_lines = self.bad_lines();
        c.tentative = self.tentative;
        c
    }
}

/// Every bare citation in `text`.
pub fn find(text: &str) -> Vec<BareCitation> {
    find_at_most(text, usize::MAX)
}

/// [`find`], stopping after `most` citations (a doc's citation limit).
pub(crate) fn find_at_most(text: &str, most: usize) -> Vec<BareCitation> {
    find_where(text, most, false)
}

/// [`find`] in a deepwiki-open link's text (`[.dockerignore:1-10]()`), where the whole text is
/// meant as a citation, so a dotfile's name (which prose uses for other things) is a path too.
pub(crate) fn find_in_link_text(text: &str) -> Vec<BareCitation> {
    find_where(text, usize::MAX, true)
}

/// A dotfile's name (`.dockerignore`, `.env`): a dot, then a name with no extension of its own.
pub(crate) fn is_dotfile(file: &str) -> bool {
    file.strip_prefix('.').is_some_and(|name| {
        name.starts_with(|c: char| c.is_ascii_alphanumeric())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    })
}

/// Whether `text` has the start of a line spec as every bare citation writes it: `:` then a
/// digit (or `L` and a digit), or `#L` and a digit. Most prose has none, colons included
/// (`Note:`, `Sources:`). Any numeric character counts, as the pattern's `\d` is Unicode's.
fn may_hold_lines(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr::memchr2_iter(b':', b'#', bytes).any(|i| {
        let rest = &text[i + 1..];
        let digits = match bytes[i] {
            b':' => rest.strip_prefix('L').unwrap_or(rest),
            _ => match rest.strip_prefix('L') {
                Some(r) => r,
                None => return false,
            },
        };
        digits.chars().next().is_some_and(char::is_numeric)
    })
}

fn find_where(text: &str, most: usize, dotfiles: bool) -> Vec<BareCitation> {
    let mut out = Vec::new();
    if !may_hold_lines(text) {
        return out;
    }
    for caps in BARE.captures_iter(text) {
        if out.len() >= most {
            break;
        }
        let whole = caps.get(0).expect("match");
        let path = caps.name("path").expect("path");
        let before = text[..path.start()].chars().next_back();
        // A path from the root is the tail of a longer token when glued to one (`…/blob/x.py#L3`,
        // `host/a.rs:1` in a URL without its scheme).
        let glued = path.as_str().starts_with('/')
            && before.is_some_and(|c| !c.is_whitespace() && !"([`\"'<".contains(c));
        if glued
            || matches!(before, Some(c) if c.is_alphanumeric() || c == ':' || c == '\\')
            || inside_url(text, path.start())
            || !(looks_like_path(path.as_str()) || dotfiles && is_dotfile(path.as_str()))
        {
            continue;
        }
        // Reject `a.rs:10:30` read as a time-like tail only when followed by more digits glued on.
        if text[whole.end()..].starts_with(|c: char| c.is_alphanumeric() || c == '.') {
            let next = text[whole.end()..].chars().next();
            if next != Some('.') || text[whole.end() + 1..].starts_with(char::is_alphanumeric) {
                continue;
            }
        }
        let spec = caps.name("l1").or_else(|| caps.name("l2")).expect("spec");
        let lines = parse_range(spec.as_str());
        let style = style_of(spec.as_str());
        let file = path.as_str().rsplit('/').next().unwrap_or_default();
        let tentative = !(has_extension(file) || dotfiles && is_dotfile(file));
        out.push(BareCitation {
            path: path.as_str().to_string(),
            lines,
            span: Span::new(path.start(), spec.end()),
            lines_span: Span::new(spec.start(), spec.end()),
            path_span: Some(Span::new(path.start(), path.end())),
            style,
            tentative,
            spec: spec.as_str().to_string(),
        });
        if let Some(more) = caps.name("more").filter(|m| !m.is_empty()) {
            for m in RANGE.find_iter(more.as_str()) {
                if let Some(lines) = parse_range(m.as_str()) {
                    let span = Span::new(more.start() + m.start(), more.start() + m.end());
                    out.push(BareCitation {
                        path: path.as_str().to_string(),
                        lines: Some(lines),
                        span,
                        lines_span: span,
                        path_span: None,
                        style: style_of(m.as_str()),
                        tentative,
                        spec: m.as_str().to_string(),
                    });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_the_pattern_matches_always_passes_the_prefilter() {
        let alphabet: Vec<char> = ":#L1٣a/.- ".chars().collect();
        let mut rng = fastrand::Rng::with_seed(38);
        let mut matched = 0;
        for _ in 0..50_000 {
            let len = rng.usize(0..10);
            let text: String = (0..len)
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            if BARE.is_match(&text) {
                matched += 1;
                assert!(may_hold_lines(&text), "{text:?}");
            }
        }
        assert!(matched > 500, "{matched}");
        assert!(!may_hold_lines("Note: see the cache. Sources: below, #Lx"));
    }

    fn cites(text: &str) -> Vec<(String, i64, i64)> {
        find(text)
            .into_iter()
            .map(|c| {
                let l = c.lines.expect("readable lines");
                (c.path, l.start, l.end)
            })
            .collect()
    }

    #[test]
    fn a_path_from_the_root_is_still_read_on_its_own() {
        assert_eq!(
            cites("see /etc/passwd:1"),
            vec![("/etc/passwd".into(), 1, 1)]
        );
        assert_eq!(cites("(/src/a.rs:2)"), vec![("/src/a.rs".into(), 2, 2)]);
    }

    #[test]
    fn a_wide_space_before_a_citation_is_a_boundary() {
        // A no-break space (two bytes) before the citation crashed the URL test.
        assert_eq!(
            cites("see\u{a0}src/a.rs:1"),
            vec![("src/a.rs".into(), 1, 1)]
        );
    }

    #[test]
    fn paths_without_an_extension_are_tentative() {
        let found = find("bedrock/amazon.nova-lite-v1:0 and bin/run:3 and src/a.rs:1");
        let got: Vec<(&str, bool)> = found
            .iter()
            .map(|c| (c.path.as_str(), c.tentative))
            .collect();
        assert_eq!(
            got,
            [
                ("bedrock/amazon.nova-lite-v1", true),
                ("bin/run", true),
                ("src/a.rs", false)
            ]
        );
    }

    #[test]
    fn a_line_number_too_large_is_found_unreadable_not_dropped() {
        let found = find("see src/a.rs:99999999999999999999 here");
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].path.as_str(), found[0].lines), ("src/a.rs", None));
    }

    #[test]
    fn finds_every_bare_form() {
        assert_eq!(cites("see src/a.rs:10"), vec![("src/a.rs".into(), 10, 10)]);
        assert_eq!(cites("src/a.rs:10-20."), vec![("src/a.rs".into(), 10, 20)]);
        assert_eq!(
            cites("(src/a.rs#L10-L20)"),
            vec![("src/a.rs".into(), 10, 20)]
        );
        assert_eq!(cites("src/a.rs:L10-L20"), vec![("src/a.rs".into(), 10, 20)]);
        assert_eq!(cites("main.c:12:5: error"), vec![("main.c".into(), 12, 12)]);
        assert_eq!(
            cites("src/a.rs:10-12, 30-41"),
            vec![("src/a.rs".into(), 10, 12), ("src/a.rs".into(), 30, 41)]
        );
        assert_eq!(cites("Cargo.toml:3"), vec![("Cargo.toml".into(), 3, 3)]);
    }

    #[test]
    fn never_takes_traps_for_citations() {
        for trap in [
            "localhost:8080",
            "at 10:30 today",
            "std::io::Read",
            "http://host:80/x",
            "https://example.com:8443/a.rs:10",
            "example.com:8080",
            "version 1.2.3:4",
            "127.0.0.1:8080",
            "node:18",
            "vscode://file/src/a.rs:3",
            "amazon.nova-lite-v1:0",
            "<a href=\"…/blob/main/x.py#L426-L482\">",
        ] {
            assert_eq!(cites(trap), vec![], "{trap}");
        }
    }

    #[test]
    fn spans_point_at_the_citation_and_its_lines() {
        let text = "see src/a.rs:L10-L20 now";
        let c = &find(text)[0];
        assert_eq!(&text[c.span.start..c.span.end], "src/a.rs:L10-L20");
        assert_eq!(&text[c.lines_span.start..c.lines_span.end], "L10-L20");
        assert_eq!(c.style, LineStyle::PrefixedBoth);
    }
}
