//! mdBook's include directives, `{{#include PATH}}` and `{{#rustdoc_include PATH}}`, in prose or
//! inside a code fence: code embedded by line range, whose range drifts silently when the code
//! moves. PATH is relative to the doc's folder (mdBook's rule), with mdBook's ranges:
//!
//! | written | cites |
//! |---|---|
//! | `file.rs` | the whole file |
//! | `file.rs:2` | line 2 |
//! | `file.rs:2:10` | lines 2-10 |
//! | `file.rs::10` | lines 1-10 |
//! | `file.rs:2:` | line 2 to the end: the file, checked as a whole |
//! | `file.rs:anchor` | between `ANCHOR: anchor` and `ANCHOR_END: anchor`: the file, checked as a whole |
//!
//! A bare citation read inside a directive (`file.rs:2:10` looks like one, from the root) gives
//! way to it. A directive escaped as mdBook escapes it, `\{{#include file.rs}}`, is shown as text,
//! not included: it cites nothing, and nothing inside it is read as a citation.

use std::sync::LazyLock;

use regex::Regex;

use crate::model::{
    Citation, Doc, Extracted, IncludePart, LineRange, LineStyle, Markers, PathStyle, Span, Syntax,
};

use crate::paths::resolve_path;

static DIRECTIVE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\{\{#(?:include|rustdoc_include)\s+(?P<path>[^\s:}]+)(?P<spec>:[^\s}]*)?\s*\}\}")
        .expect("include directive pattern")
});

/// What a directive's `:…` after the path cites: lines, or (to the end, an anchor) the file.
fn range(spec: &str) -> Option<LineRange> {
    let spec = spec.strip_prefix(':')?;
    let number = |s: &str| s.parse::<i64>().ok().filter(|_| !s.is_empty());
    match spec.split_once(':') {
        None => number(spec).map(LineRange::single),
        Some(("", end)) => number(end).map(|e| LineRange::new(1, e)),
        Some((start, "")) => number(start).and(None),
        Some((start, end)) => Some(LineRange::new(number(start)?, number(end)?)),
    }
}

/// What a directive's `:…` cites when it is no line range: from a line to the end, or an anchor.
fn part(spec: &str) -> Option<IncludePart> {
    let spec = spec.strip_prefix(':')?;
    match spec.split_once(':') {
        Some((start, "")) => start.parse().ok().map(IncludePart::From),
        None if !spec.is_empty() && spec.parse::<i64>().is_err() => {
            Some(IncludePart::Section(Markers::MdBook(spec.to_string())))
        }
        _ => None,
    }
}

/// Add the include directives of a Markdown doc to its citations.
pub(super) fn directives(doc: &Doc, ext: &mut Extracted) {
    if !doc.text.contains("{{#") {
        return;
    }
    let base = doc.repo_dir.as_deref();
    let (mut found, mut escaped) = (Vec::new(), Vec::new());
    for caps in DIRECTIVE.captures_iter(&doc.text) {
        let (Some(whole), Some(path)) = (caps.get(0), caps.name("path")) else {
            continue;
        };
        if doc.text[..whole.start()].ends_with('\\') {
            escaped.push(Span::new(whole.start() - 1, whole.end()));
            continue;
        }
        let spec = caps.name("spec");
        let mut c = Citation::new(
            Syntax::Include,
            Span::new(whole.start(), whole.end()),
            path.as_str(),
            resolve_path(path.as_str(), base, true),
        )
        .with_lines(spec.and_then(|s| range(s.as_str())));
        if c.lines.is_none() {
            c.include = spec.and_then(|s| part(s.as_str()));
        }
        c.path_span = Some((
            Span::new(path.start(), path.end()),
            PathStyle::Link {
                base: base.map(str::to_string),
                rooted: path.as_str().starts_with('/'),
            },
        ));
        if let (Some(spec), Some(_)) = (spec, c.lines) {
            // Rewritten as `N:M` (mdBook reads `:N:M`): the leading `:` stays.
            let span = Span::new(spec.start() + 1, spec.end());
            c.lines_span = Some((span, LineStyle::Cursor));
        }
        found.push(c);
    }
    ext.supersede(found, &escaped);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mdbook_ranges_read_as_mdbook_does() {
        assert_eq!(range(":2"), Some(LineRange::new(2, 2)));
        assert_eq!(range(":2:10"), Some(LineRange::new(2, 10)));
        assert_eq!(range("::10"), Some(LineRange::new(1, 10)));
        assert_eq!(range(":2:"), None);
        assert_eq!(range(":anchor"), None);
        assert_eq!(part(":2:"), Some(IncludePart::From(2)));
        assert_eq!(
            part(":helper"),
            Some(IncludePart::Section(Markers::MdBook("helper".into())))
        );
        assert_eq!(part(":2"), None);
    }
}
