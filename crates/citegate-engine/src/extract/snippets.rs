//! MkDocs' snippets (pymdownx.snippets): `--8<-- "path"` lines, inline or a block of paths
//! between two `--8<--` lines, which the site replaces with the code's lines when it is built.
//! Read as pymdownx reads them (its `snippets.py`): on every line of the doc, code fences
//! included (it runs before Markdown is parsed), a `;` before the marker escaping it, and a
//! path relative to the site's `base_path` (see [`super::site`]), with
//!
//! | written | cites |
//! |---|---|
//! | `a.py` | the whole file |
//! | `a.py:10:20` | lines 10-20 |
//! | `a.py::20` | lines 1-20 |
//! | `a.py:10` | line 10 to the end: the file, checked as a whole |
//! | `a.py:1:3,5:6` | lines 1-3 and 5-6, two citations |
//! | `a.py:name` | between `--8<-- [start:name]` and `--8<-- [end:name]`: checked by name |
//!
//! A negative line (counted from the end) cites the file whole; a URL is not the repository's.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::context::ExtractContext;
use super::site::MkDocs;
use crate::model::{
    Citation, CitedPath, Doc, Extracted, IncludePart, LineRange, LineStyle, Markers, PathStyle,
    Span, Syntax,
};
use crate::paths::resolve_path;

/// An inline snippet or a block's marker, on a line of its own (pymdownx's `RE_ALL_SNIPPETS`).
static SNIPPET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^[ \t]*(?P<escape>;*)(?:-+8<-+[ \t]+(?P<quoted>"(?:\\"|[^"\r\n])+?"|'(?:\\'|[^'\r\n])+?')|(?P<block>-+8<-+))\r?$"#,
    )
    .expect("snippet pattern")
});

/// Line ranges after a path: `:10:20`, `::20`, `:10`, `:1:3,5:6`.
static RANGES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?::-?[0-9]*){1,2}(?:,-?[0-9]*(?::-?[0-9]*)?)*$").expect("ranges pattern")
});

/// A section's name after a path: `:name`.
static SECTION: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^:[a-z][-_0-9a-z]*$").expect("section pattern"));

/// Add a Markdown doc's snippets to its citations.
pub(super) fn snippets(doc: &Doc, ctx: &ExtractContext, ext: &mut Extracted) {
    if !doc.text.contains("8<-") {
        return;
    }
    let site = ctx.sites.mkdocs(ctx.workdir.as_deref(), doc);
    let reader = Reader {
        doc,
        workdir: ctx.workdir.as_deref(),
        site: site.as_deref(),
    };
    let (mut found, mut escaped) = (Vec::new(), Vec::new());
    let mut block = false;
    let mut at = 0;
    for line in doc.text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        match SNIPPET.captures(line) {
            Some(caps) if !caps["escape"].is_empty() => {
                escaped.push(Span::new(start, start + line.len()));
            }
            Some(caps) => match caps.name("quoted") {
                // A block's paths are read one a line: an inline snippet inside it is not.
                Some(_) if block => {}
                Some(q) => {
                    let from = start + line.len() - line.trim_start().len();
                    let span = Span::new(from, start + q.end());
                    let spec = Span::new(start + q.start() + 1, start + q.end() - 1);
                    reader.cite(span, spec, &mut found);
                }
                None => block = !block,
            },
            None if block => {
                let path = line.trim();
                if path.is_empty() || path.starts_with(';') {
                    continue;
                }
                let from = start + line.len() - line.trim_start().len();
                let spec = Span::new(from, from + path.len());
                reader.cite(spec, spec, &mut found);
            }
            None => {}
        }
    }
    ext.supersede(found, &escaped);
}

/// What a snippet's path is read against.
struct Reader<'a> {
    doc: &'a Doc,
    workdir: Option<&'a Path>,
    site: Option<&'a MkDocs>,
}

impl Reader<'_> {
    /// The citations of one snippet, whose path and ranges are written at `spec`.
    fn cite(&self, span: Span, spec: Span, found: &mut Vec<Citation>) {
        let written = &self.doc.text[spec.start..spec.end];
        let (path, rest) = split(written);
        let path = path.trim();
        if path.is_empty() || path.contains("://") {
            return;
        }
        let path_at = spec.start + written.find(path).unwrap_or(0);
        let (base, cited) = self.resolve(path);
        let citation = |lines: Option<LineRange>| {
            let mut c = Citation::new(Syntax::Snippet, span, path, cited.clone()).with_lines(lines);
            c.path_span = Some((
                Span::new(path_at, path_at + path.len()),
                PathStyle::Include {
                    base: base.clone(),
                    rooted: false,
                },
            ));
            c
        };
        let Some(rest) = rest else {
            found.push(citation(None));
            return;
        };
        let rest_at = spec.start + written.len() - rest.len();
        if SECTION.is_match(rest) {
            let mut c = citation(None);
            c.include = Some(IncludePart::Section(Markers::Snippets(
                rest[1..].to_string(),
            )));
            found.push(c);
            return;
        }
        let ranges = ranges(&rest[1..], rest_at + 1);
        if ranges.iter().any(|r| r.is_none()) {
            // A line counted from the end: the file, checked whole.
            found.push(citation(None));
            return;
        }
        for (range, at) in ranges.into_iter().flatten() {
            let mut c = citation(None);
            match range {
                Ranged::Lines(r) => {
                    c.lines = Some(r);
                    c.lines_span = Some((at, LineStyle::Cursor));
                }
                Ranged::From(n) => c.include = Some(IncludePart::From(n)),
            }
            found.push(c);
        }
    }

    /// The repo-relative path a snippet names, and the base it is read from: the first of the
    /// site's base paths that holds the file in the work tree (pymdownx tries them in turn),
    /// else the first. A path that leaves its base is not read (`restrict_base_path`).
    fn resolve(&self, path: &str) -> (String, CitedPath) {
        let bases = match self.site {
            Some(site) => site.base_paths.clone(),
            None => vec![String::new()],
        };
        let resolved: Vec<(String, CitedPath)> = bases
            .into_iter()
            .map(|b| {
                let p = resolve_path(path, Some(&b), false);
                (b, p)
            })
            .collect();
        let exists = |p: &CitedPath| match (p, self.workdir) {
            (CitedPath::Repo(p), Some(w)) => w.join(p).is_file(),
            _ => false,
        };
        let Some((base, cited)) = (resolved.iter().find(|(_, p)| exists(p)))
            .or(resolved.first())
            .cloned()
        else {
            let reason = "the site's snippets base_path names no folder".to_string();
            let unsafe_path = CitedPath::Unsafe {
                raw: path.to_string(),
                reason,
            };
            return (String::new(), unsafe_path);
        };
        let restrict = self.site.is_none_or(|s| s.restrict);
        let inside = |p: &str| base.is_empty() || p.starts_with(&format!("{base}/"));
        match cited {
            CitedPath::Repo(p) if restrict && !inside(&p) => {
                let reason = format!(
                    "it leaves the snippets base_path `{base}/`, where pymdownx reads nothing"
                );
                let raw = path.to_string();
                (base, CitedPath::Unsafe { raw, reason })
            }
            cited => (base, cited),
        }
    }
}

/// The path and what follows it (`:10:20`, `:name`), as pymdownx splits them: at the first `:`
/// after which the rest is line ranges or a section's name.
fn split(written: &str) -> (&str, Option<&str>) {
    for (i, _) in written.match_indices(':') {
        let rest = &written[i..];
        if RANGES.is_match(rest) || SECTION.is_match(rest) {
            return (&written[..i], Some(rest));
        }
    }
    (written, None)
}

/// What one range of a snippet cites.
#[derive(Debug, PartialEq, Eq)]
enum Ranged {
    Lines(LineRange),
    /// To the end of the file.
    From(i64),
}

/// The ranges written at `at` (after the path's `:`), each with where it is written; `None` for a
/// range counted from the end. Line 0 is line 1, as pymdownx reads it; a range ending before it
/// starts is kept, and reported.
fn ranges(written: &str, at: usize) -> Vec<Option<(Ranged, Span)>> {
    let mut out = Vec::new();
    let mut offset = at;
    for part in written.split(',') {
        let span = Span::new(offset, offset + part.len());
        offset += part.len() + 1;
        let (start, end) = match part.split_once(':') {
            Some((s, e)) => (s, Some(e)),
            None => (part, None),
        };
        let number = |s: &str| s.parse::<i64>().ok();
        if start.starts_with('-') || end.is_some_and(|e| e.starts_with('-')) {
            out.push(None);
            continue;
        }
        let first = number(start).unwrap_or(1).max(1);
        let ranged = match end.and_then(number) {
            Some(last) => Ranged::Lines(LineRange::new(first, last)),
            None => Ranged::From(first),
        };
        out.push(Some((ranged, span)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, text: &str) -> Doc {
        let dir = name.rsplit_once('/').map(|(d, _)| d.to_string());
        Doc::new(
            name.into(),
            name.into(),
            Some(dir.unwrap_or_default()),
            crate::model::DocKind::Markdown,
            text.into(),
        )
    }

    fn read(text: &str) -> Vec<Citation> {
        let mut ext = Extracted::default();
        snippets(
            &doc("docs/a.md", text),
            &ExtractContext::default(),
            &mut ext,
        );
        ext.citations.to_vec()
    }

    #[test]
    fn paths_split_where_pymdownx_splits_them() {
        assert_eq!(split("a.py:10:20"), ("a.py", Some(":10:20")));
        assert_eq!(split("a.py::20"), ("a.py", Some("::20")));
        assert_eq!(split("a.py:1:3,5:6"), ("a.py", Some(":1:3,5:6")));
        assert_eq!(split("a.py:main"), ("a.py", Some(":main")));
        assert_eq!(split("dir:x/a.py"), ("dir:x/a.py", None));
        assert_eq!(split("a.py"), ("a.py", None));
        let lines = |s: &str| {
            ranges(s, 0)
                .into_iter()
                .map(|r| r.map(|(r, _)| r))
                .collect::<Vec<_>>()
        };
        let r = |a, b| Some(Ranged::Lines(LineRange::new(a, b)));
        assert_eq!(lines("10:20"), [r(10, 20)]);
        assert_eq!(lines(":20"), [r(1, 20)]);
        assert_eq!(lines("0:3,5:6"), [r(1, 3), r(5, 6)]);
        assert_eq!(lines("10"), [Some(Ranged::From(10))]);
        assert_eq!(lines("-3"), [None]);
    }

    #[test]
    fn inline_and_block_snippets_are_read_from_the_repository_root_by_default() {
        let text = "--8<-- \"src/a.py:2:4\"\n\n```py\n--8<-- 'src/b.py:main'\n```\n\n-8<-\nsrc/c.py::3\n;src/skipped.py\n\nsrc/d.py:1:2,5:6\n-8<-\n\n;--8<-- \"src/escaped.py:1:2\"\n--8<-- \"src/trailing.py\" x\n";
        let found = read(text);
        let cited: Vec<String> = found.iter().map(Citation::label).collect();
        assert_eq!(
            cited,
            [
                "src/a.py:2-4",
                "src/b.py",
                "src/c.py:1-3",
                "src/d.py:1-2",
                "src/d.py:5-6"
            ]
        );
        assert_eq!(
            found[1].include,
            Some(IncludePart::Section(Markers::Snippets("main".into())))
        );
        let (span, style) = found[2].lines_span.unwrap();
        assert_eq!(&text[span.start..span.end], ":3");
        assert_eq!(style.render(LineRange::new(1, 3)), "1:3");
        let (span, _) = found[4].lines_span.unwrap();
        assert_eq!(&text[span.start..span.end], "5:6");
    }

    #[test]
    fn a_path_that_leaves_the_base_is_not_read() {
        let site = MkDocs::parse(
            "",
            "markdown_extensions:\n  - pymdownx.snippets:\n      base_path: docs\n",
        );
        let d = doc("docs/a.md", "");
        let reader = Reader {
            doc: &d,
            workdir: None,
            site: Some(&site),
        };
        assert_eq!(
            reader.resolve("x/a.py"),
            ("docs".into(), CitedPath::Repo("docs/x/a.py".into()))
        );
        assert!(matches!(
            reader.resolve("../src/a.py").1,
            CitedPath::Unsafe { .. }
        ));
    }
}
