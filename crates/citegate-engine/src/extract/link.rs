//! Markdown link targets that cite code: relative links with a line fragment (`src/a.rs#L10-L20`,
//! Copilot's `#L10-12`) or to a whole source file (`[rng.js](src/kernel/rng.js)`), Qoder's
//! repo-relative `file://office/api/excel.py#L25-L39`, forge permalinks, editor links
//! (`vscode://file/…:12`), and deepwiki-open's empty targets whose link text is the citation
//! (`[src/a.rs:10-20]()`). Links to other docs, to headings and to images are not citations.

use crate::model::{AnchorLink, AnchorPage, Span};
use crate::model::{Citation, CitedPath, Foreign, LineRange, LineStyle, PathStyle, Syntax};

use crate::forge;

use super::bare;
use super::context::ExtractContext;
use crate::paths::{percent_decode, resolve_path};

/// A Markdown link as the Markdown extractor saw it.
#[derive(Debug, Clone, Copy)]
pub struct Link<'a> {
    /// The link's destination, as the parser gives it.
    pub dest: &'a str,
    /// The link text with Markdown escapes removed.
    pub text: &'a str,
    /// The whole link in the doc.
    pub span: Span,
    /// Where `dest` is written in the doc, when it could be found verbatim.
    pub dest_at: Option<usize>,
    /// Where the link text is written in the doc, and as written (escapes and entities such as
    /// DeepWiki's `&emsp;` kept), when it could be found: what a fix rewrites in place.
    pub written: Option<(usize, &'a str)>,
}

/// The citations a link makes (none for ordinary links).
pub fn citations(link: Link<'_>, base: Option<&str>, ctx: &ExtractContext) -> Vec<Citation> {
    let dest = link.dest.trim();
    if dest.is_empty() {
        return empty_target(link);
    }
    if let Some(rest) = dest.strip_prefix("vscode://file") {
        return editor_link(link, rest, ctx).into_iter().collect();
    }
    if dest.starts_with("http://") || dest.starts_with("https://") {
        return permalink(link, dest, ctx).into_iter().collect();
    }
    if let Some(rest) = dest.strip_prefix("file://") {
        return file_url(link, rest, ctx).into_iter().collect();
    }
    if dest.contains("://")
        || dest.starts_with('#')
        || dest.starts_with("mailto:")
        || is_email(dest)
    {
        return Vec::new();
    }
    relative(link, dest, base).into_iter().collect()
}

/// The anchor a link points to, when it points to one of a page (`other.md#section`,
/// `#section`, a GitHub permalink into this repository to a page with a fragment). Line
/// fragments (`#L12`) are not anchors; neither is a link into another repository or site.
pub(crate) fn anchor_link(
    link: Link<'_>,
    base: Option<&str>,
    ctx: &ExtractContext,
) -> Option<AnchorLink> {
    let hash = link.dest.find('#')?;
    let (target, frag) = (
        link.dest[..hash].trim_start(),
        link.dest[hash + 1..].trim_end(),
    );
    let lines = frag
        .strip_prefix('L')
        .is_some_and(|n| n.starts_with(|c: char| c.is_ascii_digit()));
    if frag.is_empty() || lines {
        return None;
    }
    let page = if target.is_empty() {
        AnchorPage::Same
    } else if target.starts_with("http://") || target.starts_with("https://") {
        let mut parsed = forge::parse(link.dest.trim())?;
        let ours = ctx.repo_ids.contains(&parsed.repo_id);
        if parsed.forge != forge::Forge::GitHub || !ours {
            return None;
        }
        take_ref(&mut parsed, &ctx.slash_refs);
        let path = percent_decode(&parsed.path);
        if !forge::heading_anchor(&path, frag) {
            return None;
        }
        AnchorPage::Permalink {
            rev: percent_decode(&parsed.rev),
            path,
        }
    } else if target.contains("://") || target.starts_with("mailto:") {
        return None;
    } else {
        let target = target.split('?').next().unwrap_or(target);
        if !forge::heading_anchor(target, frag) {
            return None;
        }
        match resolve_path(&percent_decode(target), base, true) {
            CitedPath::Repo(path) => AnchorPage::Relative(path),
            _ => return None,
        }
    };
    Some(AnchorLink {
        span: link.span,
        page,
        fragment: percent_decode(frag),
        // Percent-encoded, the fragment is not the text a fix would replace it with.
        fragment_span: (link.dest_at)
            .filter(|_| !frag.contains('%'))
            .map(|at| Span::new(at + hash + 1, at + hash + 1 + frag.len())),
    })
}

/// An e-mail address (an autolink `<anders@example.org>`): an `@` with no path separator before
/// it is never a file.
fn is_email(dest: &str) -> bool {
    dest.split_once('@')
        .is_some_and(|(user, host)| !user.is_empty() && !user.contains('/') && host.contains('.'))
}

/// deepwiki-open's `[src/a.rs:10-20]()` and `[dir/file.ext]()`. Text without a path's shape is
/// no citation (mdBook's draft chapters, `[FAQs]()`); a capitalised name without an extension
/// (`[Makefile]()`) is tentative: a citation only where such a file exists.
fn empty_target(link: Link<'_>) -> Vec<Citation> {
    let found = bare::find_in_link_text(link.text);
    if !found.is_empty() {
        return found
            .into_iter()
            .map(|b| {
                let mut c = b.citation(Syntax::EmptyLink, link.span);
                // Offsets into the decoded text hold in the doc only where it is verbatim.
                let at = (link.written)
                    .filter(|&(_, w)| w == link.text)
                    .map(|(at, _)| at);
                c.lines_span = at.map(|at| (b.lines_span.shifted(at), b.style));
                c.path_span = at
                    .zip(b.path_span)
                    .map(|(at, p)| (p.shifted(at), PathStyle::Repo));
                c
            })
            .collect();
    }
    let text = link.text.trim();
    let dotfile = bare::is_dotfile(text);
    if text.contains(char::is_whitespace) || !(dotfile || bare::looks_like_path(text)) {
        return Vec::new();
    }
    let mut c = Citation::new(
        Syntax::EmptyLink,
        link.span,
        text,
        resolve_path(text, None, false),
    );
    c.tentative = !text.contains('/') && !dotfile && !bare::has_extension(text);
    vec![c]
}

/// File types a link may point to without citing code: docs, pages and media.
const NOT_CODE: &[&str] = &[
    "md", "mdx", "markdown", "rst", "adoc", "asciidoc", "html", "htm", "png", "jpg", "jpeg", "gif",
    "svg", "webp", "ico", "bmp", "pdf", "mp4", "webm", "mov", "mp3", "wav", "zip", "gz", "tgz",
];

/// A link to a repository file without a line fragment: a whole-file citation, when the file is
/// source (it has an extension, and is not a doc or media) and the path stays in the repository.
fn whole_file(link: Link<'_>, target: &str, base: Option<&str>) -> Option<Citation> {
    let target = target.split('?').next().unwrap_or(target);
    let raw = percent_decode(target);
    let file = raw.rsplit('/').next().unwrap_or(&raw);
    let ext = file.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase())?;
    if !bare::has_extension(file) || NOT_CODE.contains(&ext.as_str()) {
        return None;
    }
    let path = resolve_path(&raw, base, true);
    if !matches!(path, CitedPath::Repo(_)) {
        return None;
    }
    let mut c = Citation::new(Syntax::MarkdownLink, link.span, &raw, path);
    c.path_span = link_path_span(link, target, base);
    path_in_text(link, &mut c);
    Some(c)
}

/// Where a relative link's target path is written, and how a fix writes another path there.
fn link_path_span(link: Link<'_>, target: &str, base: Option<&str>) -> Option<(Span, PathStyle)> {
    link.dest_at.map(|at| {
        let style = PathStyle::Link {
            base: base.map(str::to_string),
            rooted: target.starts_with('/'),
        };
        (Span::new(at, at + target.len()), style)
    })
}

/// `file://PATH` (Qoder repowiki): PATH is repo-relative; an absolute one inside the work tree is
/// taken relative to it, any other is never read.
fn file_url(link: Link<'_>, rest: &str, ctx: &ExtractContext) -> Option<Citation> {
    let (target, frag) = match rest.split_once('#') {
        Some((t, f)) => (t, Some(f)),
        None => (rest, None),
    };
    let raw = percent_decode(target);
    let inside = ctx
        .workdir
        .as_ref()
        .and_then(|w| std::path::Path::new(&raw).strip_prefix(w).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"));
    let path = resolve_path(inside.as_deref().unwrap_or(&raw), None, false);
    let mut c = Citation::new(Syntax::MarkdownLink, link.span, &raw, path);
    if let Some(frag) = frag {
        let spec = frag.strip_prefix('L')?;
        c.lines = bare::parse_range(&format!("L{spec}"));
        if c.lines.is_none() {
            c.bad_lines = Some(frag.to_string());
        }
    }
    let written = link.dest_at.map(|at| at + "file://".len());
    if let (Some(at), None) = (written, &inside) {
        let style = if target.contains('%') {
            PathStyle::Url
        } else {
            PathStyle::Repo
        };
        c.path_span = Some((Span::new(at, at + target.len()), style));
        if let Some(frag) = frag.filter(|_| c.lines.is_some()) {
            let from = at + target.len() + 1;
            c.lines_span = Some((Span::new(from, from + frag.len()), line_style(frag)));
        }
    }
    Some(c)
}

/// Where the link text names the cited file, as its whole path or its file name, exactly once:
/// a rename rewrites it with the URL.
fn path_in_text(link: Link<'_>, c: &mut Citation) {
    let (Some((at, text)), Some(path)) = (link.written, c.repo_path()) else {
        return;
    };
    let file = path.rsplit('/').next().unwrap_or(path);
    let once = |needle: &str| -> Option<usize> {
        let found: Vec<usize> = (text.match_indices(needle))
            .map(|(i, _)| i)
            .filter(|&i| {
                let before = text[..i].chars().next_back();
                let after = text[i + needle.len()..].chars().next();
                let joined = |ch: char| ch.is_alphanumeric() || matches!(ch, '_' | '-' | '/' | '.');
                !before.is_some_and(joined)
                    && !after.is_some_and(|ch| ch.is_alphanumeric() || ch == '_')
            })
            .collect();
        match found[..] {
            [i] => Some(i),
            _ => None,
        }
    };
    c.text_path_span = match (once(path), once(file)) {
        (Some(i), _) => Some((Span::new(at + i, at + i + path.len()), true)),
        (None, Some(i)) if file != path => Some((Span::new(at + i, at + i + file.len()), false)),
        _ => None,
    };
}

/// Where the link text repeats the citation's range, when it does exactly once, in any of the
/// forms writers use: `L559-L562` (DeepWiki), `L14 - L47` (DeepWiki's books), `L559-562`, `a.js:559-562`, `lines 559-562`, and
/// for one line `L559`, `:559` or the range written twice (`L559-L559`). The text must move with
/// the URL; a range written twice in the text is left unset, and `fix::edit::build` then refuses
/// to move the citation rather than leave the text naming the old lines.
fn mirror_in_text(link: Link<'_>, c: &mut Citation) {
    path_in_text(link, c);
    let (Some((at, text)), Some(range)) = (link.written, c.lines) else {
        return;
    };
    if let [(i, len, style)] = range_in_text(text, range)[..] {
        c.text_lines_span = Some((Span::new(at + i, at + i + len), style));
    }
}

/// Every place `text` writes `range` as a whole token (not inside a longer number or range):
/// offset, length and style, at most one per place (the longest form written there).
pub(crate) fn range_in_text(text: &str, range: LineRange) -> Vec<(usize, usize, LineStyle)> {
    let (s, e) = (range.start, range.end);
    let mut forms = vec![
        (format!("L{s} - L{e}"), LineStyle::Spaced),
        (format!("L{s}-L{e}"), LineStyle::PrefixedBoth),
        (format!("L{s}-{e}"), LineStyle::PrefixedFirst),
        (format!("{s}-{e}"), LineStyle::Plain),
    ];
    if s == e {
        forms.push((format!("L{s}"), LineStyle::PrefixedBoth));
        forms.push((format!("{s}"), LineStyle::Plain));
    }
    let bytes = text.as_bytes();
    let mut found: Vec<(usize, usize, LineStyle)> = Vec::new();
    for (written, style) in &forms {
        for (i, _) in text.match_indices(written.as_str()) {
            let before = text[..i].chars().next_back();
            let after = text[i + written.len()..].chars().next();
            let joined_before = before.is_some_and(|ch| ch.is_alphanumeric() || ch == '-');
            let joined_after = after.is_some_and(|ch| ch.is_ascii_digit() || ch == '-');
            // A bare number is a line only after a `:` or `#` (`a.rs:12`), never in prose.
            let bare_one = *style == LineStyle::Plain && s == e && !written.contains('-');
            let marked = i > 0 && matches!(bytes[i - 1], b':' | b'#');
            if joined_before || joined_after || (bare_one && !marked) {
                continue;
            }
            let end = i + written.len();
            if !found.iter().any(|&(j, len, _)| i < j + len && j < end) {
                found.push((i, written.len(), *style));
            }
        }
    }
    found.sort_by_key(|&(i, _, _)| i);
    found
}

fn line_style(frag: &str) -> LineStyle {
    if frag.matches('L').count() >= 2 || !frag.contains('-') {
        LineStyle::PrefixedBoth
    } else {
        LineStyle::PrefixedFirst
    }
}

fn relative(link: Link<'_>, dest: &str, base: Option<&str>) -> Option<Citation> {
    let Some((target, frag)) = dest.split_once('#') else {
        return whole_file(link, dest, base);
    };
    let target = target.split('?').next().unwrap_or(target);
    if crate::forge::heading_anchor(target, frag) {
        return None; // a heading of a page (`README.md#Latency-vs-Throughput`), not lines
    }
    let spec = frag.strip_prefix('L')?;
    if target.is_empty() {
        return None;
    }
    let lines = bare::parse_range(&format!("L{spec}"));
    let raw = percent_decode(target);
    let style = line_style(frag);
    let mut c = Citation::new(
        Syntax::MarkdownLink,
        link.span,
        &raw,
        resolve_path(&raw, base, true),
    )
    .with_lines(lines);
    if lines.is_none() {
        c.bad_lines = Some(frag.to_string());
    }
    let frag_at = dest.len() - frag.len();
    c.lines_span = link
        .dest_at
        .map(|at| (Span::new(at + frag_at, at + dest.len()), style));
    c.path_span = link_path_span(link, target, base);
    mirror_in_text(link, &mut c);
    Some(c)
}

fn permalink(link: Link<'_>, dest: &str, ctx: &ExtractContext) -> Option<Citation> {
    let mut parsed = forge::parse(dest)?;
    take_ref(&mut parsed, &ctx.slash_refs);
    let raw = percent_decode(&parsed.path);
    let mut lines = parsed.lines;
    // DeepWiki exporters emit `[110-111](…/blob/SHA/110-111)`: a range where the file should be.
    // Anything else is a path, extensionless top-level files (`LICENSE`, `Makefile`) included.
    let range_only = !raw.is_empty()
        && raw
            .chars()
            .all(|c| c.is_ascii_digit() || c == '-' || c == 'L')
        && raw.contains(|c: char| c.is_ascii_digit());
    let path = if range_only {
        if lines.is_none() {
            lines = bare::parse_range(link.text.trim()).or_else(|| bare::parse_range(&raw));
        }
        CitedPath::Missing
    } else {
        resolve_path(&raw, None, false)
    };
    let mut c = Citation::new(Syntax::Permalink, link.span, &raw, path).with_lines(lines);
    c.bad_lines = parsed.bad_lines.clone().filter(|_| lines.is_none());
    // A tag written with `%2B` (`v0.1.0%2Bibc-go`) names `v0.1.0+ibc-go`.
    c.pin = Some(percent_decode(&parsed.rev));
    if !ctx.repo_ids.is_empty() && !ctx.repo_ids.contains(&parsed.repo_id) {
        c.foreign = Some(Foreign {
            repo_url: parsed.repo_id.clone(),
            url: dest.to_string(),
        });
    }
    if let Some(at) = link.dest_at {
        if let Some((start, end, style)) = parsed.lines_at {
            c.lines_span = Some((Span::new(at + start, at + end), style));
        }
        c.pin_span = Some(Span::new(at + parsed.rev_at.0, at + parsed.rev_at.1));
        if matches!(c.path, CitedPath::Repo(_)) {
            let (s, e) = parsed.path_at;
            c.path_span = Some((Span::new(at + s, at + e), PathStyle::Url));
        }
    }
    mirror_in_text(link, &mut c);
    Some(c)
}

/// Read the revision as the longest of `refs` (sorted names holding a `/`, `release/v7.1.x`) that
/// the revision and the path start with, percent-decoded, as GitHub resolves
/// `blob/release/v7.1.x/a.go`: the revision takes those segments from the path.
fn take_ref(link: &mut forge::ForgeLink, refs: &[String]) {
    if refs.is_empty() || link.path.is_empty() {
        return;
    }
    let decoded = percent_decode(&format!("{}/{}", link.rev, link.path));
    // `refs` is sorted: the names under `REV/` are one run of it, found by bisection.
    let first = decoded.split('/').next().unwrap_or_default();
    let under = format!("{first}/");
    let from = refs.partition_point(|r| r.as_str() < under.as_str());
    let Some(name) = (refs[from..].iter())
        .take_while(|r| r.starts_with(under.as_str()))
        .filter(|r| decoded.starts_with(r.as_str()) && decoded[r.len()..].starts_with('/'))
        .max_by_key(|r| r.len())
    else {
        return;
    };
    let taken = name.matches('/').count();
    let segs: Vec<&str> = link.path.split('/').collect();
    // An encoded `%2F` in the revision would not split into segments: left as written.
    let written = format!("{}/{}", link.rev, segs[..taken.min(segs.len())].join("/"));
    if segs.len() <= taken || percent_decode(&written) != *name {
        return;
    }
    let moved: usize = segs[..taken].iter().map(|s| s.len() + 1).sum();
    link.rev = name.clone();
    link.path = segs[taken..].join("/");
    link.rev_at.1 += moved;
    link.path_at.0 += moved;
}

fn editor_link(link: Link<'_>, rest: &str, ctx: &ExtractContext) -> Option<Citation> {
    let rest = percent_decode(rest);
    let mut parts = rest.rsplitn(3, ':');
    let last = parts.next()?;
    let prev = parts.next();
    // `…/a.rs:12` or `…/a.rs:12:5`.
    let (path, line) = match (prev, parts.next()) {
        (Some(line), Some(path)) if line.parse::<i64>().is_ok() => (path.to_string(), line),
        (Some(path), _) => (path.to_string(), last),
        _ => return None,
    };
    let line = line.parse::<i64>().ok()?;
    let inside = ctx
        .workdir
        .as_ref()
        .and_then(|w| std::path::Path::new(&path).strip_prefix(w).ok())
        .map(|p| p.to_string_lossy().replace('\\', "/"));
    let cited = match &inside {
        Some(rel) => resolve_path(rel, None, false),
        None => resolve_path(&path, None, false),
    };
    Some(
        Citation::new(Syntax::EditorLink, link.span, &path, cited)
            .with_lines(Some(crate::model::LineRange::single(line))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_text_ranges_are_found_in_every_form_once() {
        let at = |text: &str, s: i64, e: i64| -> Vec<(String, LineStyle)> {
            (range_in_text(text, LineRange::new(s, e)).into_iter())
                .map(|(i, len, style)| (text[i..i + len].to_string(), style))
                .collect()
        };
        let one = |written: &str, style| vec![(written.to_string(), style)];
        use LineStyle::*;
        assert_eq!(at("a.rs L1-L3", 1, 3), one("L1-L3", PrefixedBoth));
        assert_eq!(at("a.rs:1-3", 1, 3), one("1-3", Plain));
        assert_eq!(at("a.rs L1-3", 1, 3), one("L1-3", PrefixedFirst));
        assert_eq!(at("lines 1-3", 1, 3), one("1-3", Plain));
        assert_eq!(at("a.rs L2-L2", 2, 2), one("L2-L2", PrefixedBoth));
        assert_eq!(at("a.rs(L1 - L3)&emsp;", 1, 3), one("L1 - L3", Spaced));
        assert_eq!(at("a.rs(L2)&emsp;", 2, 2), one("L2", PrefixedBoth));
        assert_eq!(at("src/a.rs:2", 2, 2), one("2", Plain));
        // Not a line: a number in prose, a longer number, another range.
        assert!(at("step 2 of a.rs", 2, 2).is_empty());
        assert!(at("a.rs L12-L13", 2, 3).is_empty());
        assert!(at("a.rs L1-L30", 1, 3).is_empty());
        // Twice: both found (the citation cannot move its text).
        assert_eq!(at("a.rs:1-3 (L1-L3)", 1, 3).len(), 2);
    }

    fn link<'a>(dest: &'a str, text: &'a str) -> Link<'a> {
        Link {
            dest,
            text,
            span: Span::new(0, 1),
            dest_at: Some(0),
            written: Some((0, text)),
        }
    }

    fn one(dest: &str, text: &str, base: Option<&str>) -> Citation {
        let ctx = ExtractContext {
            repo_ids: vec!["github.com/o/r".into()],
            workdir: Some("/work/repo".into()),
            ..ExtractContext::default()
        };
        let mut v = citations(link(dest, text), base, &ctx);
        assert_eq!(v.len(), 1, "{dest}");
        v.remove(0)
    }

    #[test]
    fn a_ref_with_a_slash_takes_its_segments_from_the_path() {
        let url = "https://github.com/O/R/blob/release/v7.1.x/modules/a.go#L5";
        let mut l = forge::parse(url).unwrap();
        take_ref(
            &mut l,
            &["a/b".into(), "release/v7".into(), "release/v7.1.x".into()],
        );
        assert_eq!(
            (l.rev.as_str(), l.path.as_str()),
            ("release/v7.1.x", "modules/a.go")
        );
        assert_eq!(&url[l.rev_at.0..l.rev_at.1], "release/v7.1.x");
        assert_eq!(&url[l.path_at.0..l.path_at.1], "modules/a.go");
        // No ref starts the path: unchanged.
        let mut l = forge::parse(url).unwrap();
        take_ref(&mut l, &["release/v8".into()]);
        assert_eq!(
            (l.rev.as_str(), l.path.as_str()),
            ("release", "v7.1.x/modules/a.go")
        );
    }

    #[test]
    fn relative_links_resolve_from_the_doc_folder() {
        let c = one("../src/a.rs#L10-L20", "x", Some("docs"));
        assert_eq!(c.repo_path(), Some("src/a.rs"));
        assert_eq!(c.lines, Some(LineRange::new(10, 20)));
        let c = one("src/a%20b.ts#L10-12", "x", None);
        assert_eq!(c.repo_path(), Some("src/a b.ts"));
        assert_eq!(c.lines_span.unwrap().1, LineStyle::PrefixedFirst);
    }

    #[test]
    fn permalinks_carry_their_pin_and_foreign_repo() {
        let c = one(
            "https://github.com/O/R/blob/abc1234/src/a.rs#L3",
            "a.rs L3",
            None,
        );
        assert_eq!(
            (c.pin.as_deref(), c.foreign.is_none()),
            (Some("abc1234"), true)
        );
        let c = one("https://github.com/X/Y/blob/main/a.rs#L3", "a", None);
        assert_eq!(c.foreign.unwrap().repo_url, "github.com/x/y");
    }

    #[test]
    fn deepwiki_broken_links_are_citations_without_a_path() {
        let c = one(
            "https://github.com/O/R/blob/abc1234/110-111",
            "110-111",
            None,
        );
        assert_eq!(c.path, CitedPath::Missing);
        assert_eq!(c.lines, Some(LineRange::new(110, 111)));
    }

    #[test]
    fn empty_targets_and_editor_links() {
        let ctx = ExtractContext::default();
        let v = citations(link("", "a.vue:61-63, 136-141"), None, &ctx);
        assert_eq!(v.len(), 2);
        let c = one("", "dir/file.ext", None);
        assert_eq!((c.repo_path(), c.lines), (Some("dir/file.ext"), None));
        let c = one("vscode://file/work/repo/src/a.rs:12:5", "a", None);
        assert_eq!(
            (c.repo_path(), c.lines),
            (Some("src/a.rs"), Some(LineRange::single(12)))
        );
        let c = one("vscode://file/etc/passwd:1", "a", None);
        assert!(matches!(c.path, CitedPath::Unsafe { .. }));
    }

    #[test]
    fn ordinary_links_are_not_citations() {
        let ctx = ExtractContext::default();
        for dest in [
            "other.md",
            "#heading",
            "/O/R/7.2-message-validation",
            "https://example.com/x",
        ] {
            assert!(citations(link(dest, "t"), None, &ctx).is_empty(), "{dest}");
        }
    }
}
