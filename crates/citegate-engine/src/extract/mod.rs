//! Extraction: a doc's text → citations, claims and doc-level problems, each with its span.
//!
//! One file per doc format ([`markdown`], [`answer`]) and per citation syntax family ([`bare`],
//! [`link`], [`crate::forge`]); [`literal`] classifies the inline-code literals that claims make.

mod admonitions;
pub mod anchors;
pub mod answer;
mod asciidoc;
pub mod bare;
mod context;
mod docusaurus;
mod fence;
mod front_matter;
mod include;
pub mod link;
pub mod literal;
pub mod markdown;
pub mod markup_anchors;
mod prose_lines;
mod rst;
pub mod site;
mod snippets;
mod sources;
pub mod suppress;

pub use context::ExtractContext;

use crate::model::{Citation, Doc, DocKind, Extracted, LineRange, Span, MAX_CITATIONS_PER_DOC};
use crate::paths::resolve_path;
use crate::registry::RuleId;

/// Extract a doc according to its kind, then the configuration's in-house patterns.
pub fn extract(doc: &Doc, ctx: &ExtractContext) -> Extracted {
    let mut ext = match doc.kind {
        DocKind::Markdown => {
            let mut ext = markdown::extract(doc, ctx);
            include::directives(doc, &mut ext);
            snippets::snippets(doc, ctx, &mut ext);
            rst::myst(doc, ctx, &mut ext);
            docusaurus::fences(doc, ctx, &mut ext);
            prose_lines::references(doc, &mut ext);
            ext
        }
        DocKind::Json => answer::extract_json(doc),
        DocKind::JsonLines => answer::extract_jsonl(doc),
        DocKind::Rst => {
            let mut ext = Extracted::default();
            rst::directives(doc, ctx, &mut ext);
            ext
        }
        DocKind::AsciiDoc => {
            let mut ext = Extracted::default();
            asciidoc::includes(doc, ctx, &mut ext);
            ext
        }
    };
    if !ctx.patterns.is_empty() && !ext.skipped {
        patterns(doc, ctx, &mut ext);
    }
    if ext.citations.len() > MAX_CITATIONS_PER_DOC {
        // What each citation costs downstream (facts, findings, the report) is bounded here, and
        // the Markdown extractor stops collecting one past the limit: a doc past it is one clear
        // finding, not a run that exhausts memory.
        ext = Extracted::default();
        let message = format!(
            "the doc holds more than the {MAX_CITATIONS_PER_DOC} citations a doc may hold: not checked"
        );
        ext.problem(RuleId::MalformedDoc, Span::new(0, 0), message);
    }
    ext.shrink();
    ext
}

/// Citations written in an in-house syntax: a regex with named groups `path`, `start`, optional
/// `end` and `rev`. A built-in citation found inside one of these (`SRC(a.rs:1-2)` also holds the
/// bare `a.rs:1-2`) gives way to it, so nothing is reported twice.
fn patterns(doc: &Doc, ctx: &ExtractContext, ext: &mut Extracted) {
    let mut found = Vec::new();
    for p in &ctx.patterns {
        for caps in p.regex.captures_iter(&doc.text) {
            let (Some(whole), Some(path), Some(start)) =
                (caps.get(0), caps.name("path"), caps.name("start"))
            else {
                continue;
            };
            let Ok(first) = start.as_str().parse::<i64>() else {
                continue;
            };
            let last = caps
                .name("end")
                .and_then(|e| e.as_str().parse::<i64>().ok())
                .unwrap_or(first);
            let mut c = Citation::new(
                crate::model::Syntax::Pattern,
                Span::new(whole.start(), whole.end()),
                path.as_str(),
                resolve_path(path.as_str(), None, false),
            )
            .with_lines(Some(LineRange::new(first, last)));
            c.path_span = Some((
                Span::new(path.start(), path.end()),
                crate::model::PathStyle::Repo,
            ));
            c.pin = caps.name("rev").map(|r| r.as_str().to_string());
            c.pin_span = caps.name("rev").map(|r| Span::new(r.start(), r.end()));
            found.push(c);
        }
    }
    ext.supersede(found, &[]);
}
