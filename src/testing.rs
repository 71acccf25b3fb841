//! Test helpers (the `testing` feature, never in the installed CLI): fixture repositories built
//! from their text description at test time, and audits run in process on them.

use std::path::{Path, PathBuf};

use crate::audit::{self, AuditError, AuditOptions};
use crate::fixture::{self, FixtureError, Labels};
use crate::model::{Doc, DocKind, Extracted, Report, Span};

/// A fixture repository in a temporary folder (removed when dropped), with its commit labels.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub labels: Labels,
}

impl Fixture {
    /// Build the repository `spec` describes (see [`crate::fixture`]).
    pub fn build(spec: &str) -> Result<Fixture, FixtureError> {
        let dir = tempfile::tempdir()?;
        let labels = fixture::build(spec, dir.path())?;
        Ok(Fixture { dir, labels })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `text` with `{{rev:LABEL}}` and `{{short:LABEL}}` replaced by this repository's SHAs.
    pub fn substitute(&self, text: &str) -> Result<String, FixtureError> {
        fixture::substitute(text, &self.labels)
    }

    /// Audit in process as `citegate audit PATHS` would from the repository's root: `paths` are
    /// relative to it, and `opts` says the rest (its `paths` and `repo` are replaced).
    pub fn audit(&self, paths: &[&str], mut opts: AuditOptions) -> Result<Report, AuditError> {
        opts.repo = Some(self.path().to_path_buf());
        opts.paths = paths
            .iter()
            .map(|p| self.path().join(p))
            .collect::<Vec<PathBuf>>();
        if let Some(config) = opts.config.as_mut().filter(|c| c.is_relative()) {
            *config = self.path().join(&*config);
        }
        audit::run(&opts)
    }
}

/// The exit code `citegate audit` gives a report (0: no error finding, 1: error findings) or a
/// run that failed (2), with the default `--fail-on error`.
pub fn exit_code(result: &Result<Report, AuditError>) -> i32 {
    match result {
        Ok(report) if report.has_errors() => 1,
        Ok(_) => 0,
        Err(_) => 2,
    }
}

/// Every span extraction returned for `text` lies inside it, on character boundaries, and every
/// claim's citations exist; else what does not. Shared by the property tests, the fuzz targets and
/// the fuzz regressions.
pub fn check_spans(text: &str, ext: &Extracted) -> Result<(), String> {
    let inside = |span: Span, what: &str| {
        let ok = span.start <= span.end
            && span.end <= text.len()
            && text.is_char_boundary(span.start)
            && text.is_char_boundary(span.end);
        match ok {
            true => Ok(()),
            false => Err(format!(
                "{what} {span:?} is not inside a text of {} bytes",
                text.len()
            )),
        }
    };
    for c in &ext.citations {
        inside(c.span, "citation")?;
        let parts = [
            (c.lines_span.map(|(s, _)| s), "lines"),
            (c.path_span.as_ref().map(|(s, _)| *s), "path"),
            (c.pin_span, "pin"),
            (c.quote.as_ref().map(|q| q.span), "quote"),
        ];
        for (span, what) in parts {
            span.map_or(Ok(()), |s| inside(s, what))?;
        }
    }
    for claim in &ext.claims {
        inside(claim.span, "claim")?;
        for l in &claim.literals {
            inside(l.span, "literal")?;
        }
        if let Some(c) = claim
            .citations
            .iter()
            .find(|&&c| c.index() >= ext.citations.len())
        {
            return Err(format!(
                "a claim cites citation {c} of {}",
                ext.citations.len()
            ));
        }
    }
    let others = ext
        .problems
        .iter()
        .map(|p| (p.span, "problem"))
        .chain(ext.unusable.iter().map(|u| (u.span, "unusable citation")))
        .chain(
            ext.sources
                .entries
                .iter()
                .map(|s| (s.line_span, "source entry")),
        )
        .chain(ext.sources.markers.iter().map(|m| (m.span, "marker")))
        .chain(ext.doc_pin_span.map(|s| (s, "doc pin")))
        .chain(ext.answers.iter().map(|a| (a.span, "answer")))
        .chain(
            ext.answers
                .iter()
                .filter_map(|a| Some((a.pin_span?, "answer pin"))),
        );
    for (span, what) in others {
        inside(span, what)?;
    }
    Ok(())
}

/// Extract `text` as every kind of doc and check the spans (see [`check_spans`]).
pub fn extract_all_kinds(text: &str) -> Result<(), String> {
    for (kind, name) in [
        (DocKind::Markdown, "docs/a.md"),
        (DocKind::Json, "docs/a.json"),
        (DocKind::JsonLines, "docs/a.jsonl"),
    ] {
        let doc = Doc::new(
            name.into(),
            name.into(),
            Some("docs".into()),
            kind,
            text.to_string(),
        );
        let ext = crate::extract::extract(&doc, &crate::extract::ExtractContext::default());
        check_spans(text, &ext).map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// The link parsers on `text`: every place they return lies inside it.
pub fn parse_links(text: &str) -> Result<(), String> {
    for b in crate::extract::bare::find(text) {
        let spans = [Some(b.span), Some(b.lines_span), b.path_span];
        if spans
            .into_iter()
            .flatten()
            .any(|s| s.end > text.len() || s.start > s.end)
        {
            return Err(format!("bare citation {b:?} outside {} bytes", text.len()));
        }
    }
    if let Some(link) = crate::forge::parse(text) {
        let mut ends = vec![link.rev_at, link.path_at];
        ends.extend(link.lines_at.map(|(s, e, _)| (s, e)));
        if ends.iter().any(|&(s, e)| s > e || e > text.len()) {
            return Err(format!("permalink {link:?} outside {} bytes", text.len()));
        }
    }
    let _ = crate::forge::repo_id(text);
    let _ = crate::model::LineRange::parse(text);
    Ok(())
}

/// Text put through the Markdown report's escaping is inert: `markdown::text(s)` renders as
/// exactly `s` (control characters shown as `?`, line ends as spaces, a zero-width space after
/// each `@`), and neither it nor `markdown::cell(s)` (a message, whose code spans stay code)
/// renders a link, an image, HTML or emphasis. Shared by the property test and the fuzz target.
pub fn markdown_inert(s: &str) -> Result<(), String> {
    use crate::report::markdown::{cell, text};
    use pulldown_cmark::{Event, Parser, Tag};
    let live = |md: &str, code: bool| -> Result<String, String> {
        let mut shown = String::new();
        let gfm =
            pulldown_cmark::Options::all() - pulldown_cmark::Options::ENABLE_SMART_PUNCTUATION;
        for e in Parser::new_ext(md, gfm) {
            match e {
                Event::Text(t) => shown.push_str(&t),
                Event::Code(_) if code => {}
                Event::End(_) | Event::SoftBreak => {}
                Event::Start(Tag::Paragraph) => {}
                other => return Err(format!("{other:?} in {md:?}")),
            }
        }
        Ok(shown)
    };
    // A leading letter keeps the text in a paragraph, as it is in a table cell.
    let escaped = format!("x{}", text(s));
    let shown = live(&escaped, false)?;
    let expected = format!(
        "x{}",
        crate::escape::printable(&s.replace(['\r', '\n'], " "), false).replace('@', "@\u{200B}")
    );
    // A renderer trims the paragraph's trailing spaces; the text is otherwise the same.
    if shown.trim_end() != expected.trim_end() {
        return Err(format!("{s:?} renders as {shown:?}, not {expected:?}"));
    }
    live(&format!("x{}", cell(s)), true)?;
    Ok(())
}
