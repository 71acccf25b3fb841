//! Docusaurus' code fences that the site fills from the code when it is built: a
//! ```` ```js reference ```` fence whose body is a permalink (docusaurus-theme-github-codeblock
//! renders its lines: read as the permalink it is), and remark-code-import's
//! ```` ```js file=./a.js#L10-L20 ```` (relative to the doc's folder, `<rootDir>/` the
//! repository's root; `#L10`, `#L10-` to the end, `#-L20` from line 1).

use std::sync::LazyLock;

use regex::Regex;

use super::context::ExtractContext;
use super::link::{self, Link};
use crate::model::{
    Citation, Doc, Extracted, IncludePart, LineRange, LineStyle, PathStyle, Span, Syntax,
};
use crate::paths::resolve_path;

/// A code fence's opening or closing line.
static FENCE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[ \t]{0,3}(?P<fence>`{3,}|~{3,})(?P<info>.*)$").expect("fence pattern")
});

/// remark-code-import's `file=PATH` in an info string.
static FILE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|\s)file=(?P<path>[^\s#]+)(?:#(?P<lines>\S*))?").expect("file= pattern")
});

/// Add a Markdown doc's imported and referenced fences to its citations.
pub(super) fn fences(doc: &Doc, ctx: &ExtractContext, ext: &mut Extracted) {
    if !doc.text.contains("file=") && !doc.text.contains("reference") {
        return;
    }
    let mut found = Vec::new();
    // The open fence: its marker, and where its opening line is (and its info string).
    let mut open: Option<(String, usize, String)> = None;
    let mut at = 0;
    for line in doc.text.split_inclusive('\n') {
        let start = at;
        at += line.len();
        let line = line.trim_end_matches(['\n', '\r']);
        let Some(caps) = FENCE.captures(line) else {
            continue;
        };
        let (fence, info) = (&caps["fence"], &caps["info"]);
        match &open {
            Some((marker, from, info_at))
                if fence.starts_with(&marker[..1])
                    && fence.len() >= marker.len()
                    && info.trim().is_empty() =>
            {
                let body = Span::new(
                    doc.text[*from..].find('\n').map_or(start, |n| from + n + 1),
                    start,
                );
                let info = info_at.clone();
                let fence_span = Span::new(*from, start + line.len());
                cite(doc, ctx, &info, *from, fence_span, body, &mut found);
                open = None;
            }
            Some(_) => {}
            None if !fence.starts_with('`') || !info.contains('`') => {
                open = Some((fence.to_string(), start, line.to_string()));
            }
            None => {}
        }
    }
    ext.supersede(found, &[]);
}

/// The citations of one fence, opened by `opening` at `at`.
fn cite(
    doc: &Doc,
    ctx: &ExtractContext,
    opening: &str,
    at: usize,
    span: Span,
    body: Span,
    found: &mut Vec<Citation>,
) {
    let info = opening.trim_start().trim_start_matches(['`', '~']);
    if info.split_whitespace().skip(1).any(|w| w == "reference") {
        let text = &doc.text[body.start..body.end];
        let url = text.trim();
        if url.contains(char::is_whitespace) || !url.starts_with("http") {
            return;
        }
        let dest_at = body.start + text.find(url).unwrap_or(0);
        let link = Link {
            dest: url,
            text: "",
            span,
            dest_at: Some(dest_at),
            written: None,
        };
        found.extend(link::citations(link, None, ctx));
        return;
    }
    let Some(caps) = FILE.captures(opening) else {
        return;
    };
    let path = caps.name("path").expect("path group");
    let (raw, base, rooted) = match path.as_str().strip_prefix("<rootDir>/") {
        Some(rest) => (rest, String::new(), true),
        None => (
            path.as_str(),
            doc.repo_dir.clone().unwrap_or_default(),
            false,
        ),
    };
    let mut c = Citation::new(
        Syntax::CodeImport,
        span,
        raw,
        resolve_path(raw, Some(&base), false),
    );
    let raw_at = at + path.end() - raw.len();
    c.path_span = (!rooted).then(|| {
        let style = PathStyle::Include {
            base,
            rooted: false,
        };
        (Span::new(raw_at, raw_at + raw.len()), style)
    });
    if let Some(lines) = caps.name("lines") {
        let spec = lines.as_str();
        let number = |s: &str| s.strip_prefix('L').and_then(|n| n.parse::<i64>().ok());
        let read = match spec.split_once('-') {
            None => number(spec).map(|n| Ok(LineRange::single(n))),
            Some(("", end)) => number(end).map(|e| Ok(LineRange::new(1, e))),
            Some((start, "")) => number(start).map(Err),
            Some((start, end)) => number(start)
                .zip(number(end))
                .map(|(s, e)| Ok(LineRange::new(s, e))),
        };
        match read {
            Some(Ok(range)) => {
                c.lines = Some(range);
                let span = Span::new(at + lines.start(), at + lines.end());
                c.lines_span = Some((span, LineStyle::PrefixedBoth));
            }
            Some(Err(from)) => c.include = Some(IncludePart::From(from)),
            None => c.bad_lines = Some(spec.to_string()),
        }
    }
    found.push(c);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DocKind;

    #[test]
    fn imported_and_referenced_fences_are_citations() {
        let text = "# T\n\n```js file=./src/a.js#L2-L4\n```\n\n```js title=\"x\" file=<rootDir>/lib/b.js#L3-\n```\n\n```js reference\nhttps://github.com/o/r/blob/abc1234/src/c.js#L5-L9\n```\n\n````md\n```js file=./shown.js#L1\n```\n````\n\n```js\nconst file=1;\n```\n";
        let doc = Doc::new(
            "docs/p.md".into(),
            "docs/p.md".into(),
            Some("docs".into()),
            DocKind::Markdown,
            text.into(),
        );
        let mut ext = Extracted::default();
        fences(&doc, &ExtractContext::default(), &mut ext);
        let found = ext.citations.to_vec();
        let cited: Vec<String> = found.iter().map(Citation::label).collect();
        assert_eq!(cited, ["docs/src/a.js:2-4", "lib/b.js", "src/c.js:5-9"]);
        let (span, style) = found[0].lines_span.unwrap();
        assert_eq!(&text[span.start..span.end], "L2-L4");
        assert_eq!(style.render(LineRange::new(3, 5)), "L3-L5");
        assert_eq!(found[1].include, Some(IncludePart::From(3)));
        assert_eq!(found[2].syntax, Syntax::Permalink);
        assert_eq!(found[2].pin.as_deref(), Some("abc1234"));
    }
}
