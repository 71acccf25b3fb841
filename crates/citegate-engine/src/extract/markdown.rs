//! Markdown docs, read with a CommonMark parser so that link targets, inline code, fences and prose
//! are told apart: citations inside a code block are code, not citations.
//!
//! Claims are sentences (in paragraphs) and list items; their inline-code literals are checked
//! against the spans they cite. A deepwiki-open `Sources: [a.ts:1-5]()` paragraph backs the
//! paragraph before it. A code fence right after a line holding one citation, or a fence whose
//! info string is a citation, is that citation's quote. Bare forge URLs in prose and `href`s in
//! raw HTML are links like any other.

use std::borrow::Cow;
use std::cell::Cell;
use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd, TextMergeWithOffset};
use regex::Regex;

use crate::model::{
    Citation, CiteId, Claim, Doc, Extracted, Literal, PathStyle, Quote, Span, Syntax,
    MAX_CITATIONS_PER_DOC,
};

use super::context::ExtractContext;
use super::fence::{self, Fence};
use super::link::{self, Link};
use super::{admonitions, bare, front_matter, literal, sources, suppress};

static MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[(\d{1,3})\]").expect("marker pattern"));
/// A paragraph that lists the sources of the one before it (deepwiki-open).
static SOURCES_PARAGRAPH: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^[\s*_>]*sources?[\s*_]*:").expect("sources paragraph"));
/// `Sources:` after a sentence of the same paragraph (`… = 4096`. Sources: [a.rs:1]()`).
static INLINE_SOURCES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)[.!?)]\s+[*_]*sources?[*_]*\s*:").expect("inline sources"));
static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"https?://[^\s<>]+").expect("url pattern"));
static HREF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')"#).expect("href pattern")
});
static EDITOR_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"vscode://file/[^\s)<>`]+").expect("editor link pattern"));

/// Where a sentence may end in `text`: a `.`, `!` or `?`, any closing quotes, brackets and
/// emphasis, then whitespace (all of it, in the span) or the end of the text; as (start, end).
/// By hand, not a regex: it runs on every text event of every doc.
fn sentence_ends(text: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while let Some(i) = memchr::memchr3(b'.', b'!', b'?', &bytes[at..]).map(|i| at + i) {
            let closers = bytes[i + 1..]
                .iter()
                .take_while(|b| b"\"')]*_".contains(b))
                .count();
            let end = i + 1 + closers;
            let rest = &text[end..];
            let space = rest.len() - rest.trim_start().len();
            if space > 0 || rest.is_empty() {
                at = end + space;
                return Some((i, at));
            }
            at = i + 1;
        }
        None
    })
}

/// One piece of a block, in doc order, before it is split into claims.
enum Piece {
    Literal(Literal),
    Citation(CiteId),
    SentenceBreak,
}

struct Block {
    /// List items are one claim; paragraphs split into sentences.
    whole: bool,
    span: Span,
    pieces: Vec<Piece>,
}

struct PendingLink {
    dest: String,
    span: Span,
    text: String,
    events: Vec<(Event<'static>, Range<usize>)>,
}

struct Walker<'a> {
    doc: &'a Doc,
    ctx: &'a ExtractContext,
    ext: Extracted,
    blocks: Vec<Block>,
    link: Option<PendingLink>,
    fence: Option<Fence>,
    image_depth: usize,
    /// `[n]` markers in prose, scoped to their `Sources:` list at the end.
    markers: Vec<(u32, Span)>,
    /// Where each heading starts: markers do not reach past one to a list.
    headings: Vec<usize>,
    /// The literals of the last paragraph's sentences that cite nothing: a `Sources:` paragraph
    /// right after it backs them.
    uncited_literals: Vec<Literal>,
    /// Where the last needle of the current text event was found (see `locate`).
    located: Cell<Located>,
    /// HTML comments, for suppression directives.
    comments: Vec<Span>,
    /// Where MkDocs' admonitions and content tabs start, read as list items: their bodies are
    /// prose, split into sentences as a paragraph is.
    admonitions: Vec<usize>,
}

/// What `locate` knows about the text event it was last asked about.
#[derive(Clone, Copy, Default)]
struct Located {
    start: usize,
    end: usize,
    verbatim: bool,
    text_pos: usize,
    source_pos: usize,
}

/// The Markdown extensions docs are parsed with (tables, strikethrough, task lists; no smart
/// punctuation, so the text keeps the bytes the doc has).
pub fn parser_options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// Extract a Markdown doc.
pub fn extract(doc: &Doc, ctx: &ExtractContext) -> Extracted {
    let options = parser_options();
    let mut w = Walker {
        doc,
        ctx,
        ext: Extracted::default(),
        blocks: Vec::new(),
        link: None,
        fence: None,
        image_depth: 0,
        markers: Vec::new(),
        headings: Vec::new(),
        uncited_literals: Vec::new(),
        located: Cell::new(Located {
            end: usize::MAX,
            ..Located::default()
        }),
        comments: Vec::new(),
        admonitions: Vec::new(),
    };
    for (entry, citation) in sources::scan(&doc.text) {
        w.ext.sources.entries.push(entry);
        w.ext.citations.push(citation);
    }
    // Front matter only at the very top (after a byte-order mark); the Markdown after it is
    // parsed on its own, every offset kept relative to the doc as written.
    let mut start = doc.body_start();
    if let Some(block) = front_matter::find(&doc.text, start) {
        front_matter::read(&doc.text, block, &mut w.ext);
        start = block.body_start;
    }
    // On a MkDocs site whose admonitions' and tabs' indented bodies are prose, it is parsed as
    // such (the marker lines rewritten in place, every offset kept).
    let prose_bodies =
        (ctx.sites.mkdocs(ctx.workdir.as_deref(), doc)).is_some_and(|s| s.indented_prose);
    let (body, admonitions) = match prose_bodies {
        true => admonitions::as_list_items(&doc.text[start..]),
        false => (Cow::Borrowed(&doc.text[start..]), Vec::new()),
    };
    w.admonitions = admonitions.into_iter().map(|at| at + start).collect();
    let parser = Parser::new_ext(&body, options).into_offset_iter();
    for (event, range) in TextMergeWithOffset::new(parser) {
        w.event(event, range.start + start..range.end + start);
    }
    w.ext.sources.markers = sources::scope(&w.markers, &w.ext.sources.entries, &w.headings);
    w.ext.suppressions = suppress::suppressions(doc, &w.comments);
    w.ext
}

impl<'a> Walker<'a> {
    fn base(&self) -> Option<&'a str> {
        self.doc.repo_dir.as_deref()
    }

    fn event(&mut self, event: Event<'_>, range: Range<usize>) {
        if let Some(link) = self
            .link
            .as_mut()
            .filter(|_| !matches!(event, Event::End(TagEnd::Link)))
        {
            if let Event::Text(t) | Event::Code(t) = &event {
                link.text.push_str(t);
            }
            link.events.push((event.into_static(), range));
            return;
        }
        match event {
            Event::Start(tag @ (Tag::Paragraph | Tag::Heading { .. } | Tag::TableCell)) => {
                if matches!(tag, Tag::Heading { .. }) {
                    self.headings.push(range.start);
                }
                self.blocks.push(Block {
                    whole: false,
                    span: to_span(&range),
                    pieces: Vec::new(),
                })
            }
            Event::Start(Tag::Item) => self.blocks.push(Block {
                whole: self.admonitions.binary_search(&range.start).is_err(),
                span: to_span(&range),
                pieces: Vec::new(),
            }),
            Event::End(
                TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::TableCell | TagEnd::Item,
            ) => {
                if let Some(block) = self.blocks.pop() {
                    self.claims(block);
                }
            }
            Event::Start(Tag::Image { .. }) => self.image_depth += 1,
            Event::End(TagEnd::Image) => self.image_depth = self.image_depth.saturating_sub(1),
            Event::Start(Tag::CodeBlock(kind)) => {
                let info = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.fence = Some(Fence {
                    info,
                    span: to_span(&range),
                    body: String::new(),
                    body_span: None,
                });
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some(fence) = self.fence.take() {
                    self.fence_done(fence);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) if self.image_depth == 0 => {
                self.link = Some(PendingLink {
                    dest: dest_url.to_string(),
                    span: to_span(&range),
                    text: String::new(),
                    events: Vec::new(),
                });
            }
            Event::End(TagEnd::Link) => {
                if let Some(link) = self.link.take() {
                    self.link_done(link);
                }
            }
            Event::Text(text) => {
                if let Some(fence) = self.fence.as_mut() {
                    fence.body.push_str(&text);
                    let span = to_span(&range);
                    fence.body_span = Some(match fence.body_span {
                        Some(s) => Span::new(s.start, span.end),
                        None => span,
                    });
                } else if self.image_depth == 0 {
                    self.text(&text, &range);
                }
            }
            Event::Code(code) if self.image_depth == 0 => self.inline_code(&code, &range),
            Event::Html(html) | Event::InlineHtml(html) => self.html(&html, &range),
            _ => {}
        }
    }

    fn push_piece(&mut self, piece: Piece) {
        if let Some(block) = self.blocks.last_mut() {
            block.pieces.push(piece);
        }
    }

    /// How many more citations the doc may collect: one past its limit, so that it is reported.
    fn room(&self) -> usize {
        (MAX_CITATIONS_PER_DOC + 1).saturating_sub(self.ext.citations.len())
    }

    fn push_citation(&mut self, citation: Citation) {
        if self.room() == 0 {
            return;
        }
        let idx = self.ext.citations.push_id(citation);
        self.push_piece(Piece::Citation(idx));
    }

    /// Where `needle` (found at `rel` in the event text) is written in the doc.
    ///
    /// Linear over an event however many citations it holds: whether the event text is the source
    /// verbatim is decided once per event, and otherwise (escapes and entities only ever shorten
    /// the text) each needle is searched for from where the previous one was found.
    fn locate(&self, text: &str, range: &Range<usize>, rel: Span) -> Span {
        let mut at = self.located.get();
        if (at.start, at.end) != (range.start, range.end) {
            let verbatim = self.doc.text.get(range.clone()) == Some(text);
            at = Located {
                start: range.start,
                end: range.end,
                verbatim,
                text_pos: 0,
                source_pos: 0,
            };
        }
        if at.verbatim {
            self.located.set(at);
            return rel.shifted(range.start);
        }
        let (Some(source), Some(needle)) = (
            self.doc.text.get(range.clone()),
            text.get(rel.start..rel.end),
        ) else {
            return to_span(range);
        };
        // A text offset is never past its source offset; in order, the source advances at least
        // as far as the text did, and not much further (by the escapes in between): the search
        // window grows with the distance travelled, so an event is searched in linear time even
        // when its needles are not in the source verbatim (an escape inside a citation).
        // Behind the last needle (a path inside the citation just located), the source offset is
        // at most as far behind as the text offset is, and not much further.
        let (from, limit) = match rel.start.checked_sub(at.text_pos) {
            Some(ahead) => {
                let from = at.source_pos + ahead;
                (from, from + needle.len() + 2 * ahead + 64)
            }
            None => {
                let back = at.text_pos - rel.start;
                let high = at.source_pos.saturating_sub(back);
                let low = high.saturating_sub(2 * back + 64).max(rel.start);
                (low, high + needle.len())
            }
        };
        let boundary = |mut i: usize| {
            i = i.min(source.len());
            while !source.is_char_boundary(i) {
                i += 1;
            }
            i
        };
        let (from, limit) = (boundary(from), boundary(limit));
        let found = source[from..limit.max(from)].find(needle).map(|i| from + i);
        // Not found verbatim, `from` is still a lower bound for where the needle's text is.
        self.located.set(Located {
            text_pos: rel.start,
            source_pos: found.unwrap_or(from),
            ..at
        });
        match found {
            Some(i) => Span::new(range.start + i, range.start + i + needle.len()),
            None => to_span(range),
        }
    }

    fn bare_citation(&self, b: &bare::BareCitation, text: &str, range: &Range<usize>) -> Citation {
        let span = self.locate(text, range, b.span);
        let lines_span = self.locate(text, range, b.lines_span);
        let mut c = b.citation(Syntax::Bare, span);
        // Only spans found verbatim can be rewritten.
        if lines_span != to_span(range) || text.len() == range.len() {
            c.lines_span = Some((lines_span, b.style));
            if let Some(p) = b.path_span {
                let at = self.locate(text, range, p);
                if at != to_span(range) || text.len() == range.len() {
                    c.path_span = Some((at, PathStyle::Repo));
                }
            }
        }
        c
    }

    fn text(&mut self, text: &str, range: &Range<usize>) {
        enum Hit {
            Cite(Box<Citation>),
            Break,
        }
        let mut hits: Vec<(usize, Hit)> = Vec::new();
        for b in bare::find_at_most(text, self.room()) {
            hits.push((
                b.span.start,
                Hit::Cite(Box::new(self.bare_citation(&b, text, range))),
            ));
        }
        let editor_links = text
            .contains("vscode://")
            .then(|| EDITOR_LINK.find_iter(text))
            .into_iter()
            .flatten();
        for m in editor_links {
            let span = self.locate(text, range, Span::new(m.start(), m.end()));
            let l = Link {
                dest: m.as_str(),
                text: "",
                span,
                dest_at: None,
                written: None,
            };
            for c in link::citations(l, self.base(), self.ctx) {
                hits.push((m.start(), Hit::Cite(Box::new(c))));
            }
        }
        for (start, end) in sentence_ends(text) {
            let next = text[end..].chars().next();
            if next.is_none_or(|c| c.is_uppercase() || c.is_ascii_digit() || "[(`*_".contains(c)) {
                hits.push((start, Hit::Break));
            }
        }
        if !self.ext.sources.entries.is_empty() {
            for m in MARKER.captures_iter(text) {
                let whole = m.get(0).expect("marker");
                let span = self.locate(text, range, Span::new(whole.start(), whole.end()));
                let in_list = self
                    .ext
                    .sources
                    .entries
                    .iter()
                    .any(|s| s.line_span.contains(span));
                if let (false, Ok(number)) = (in_list, m[1].parse()) {
                    self.markers.push((number, span));
                }
            }
        }
        if text.contains("://") {
            for (at, c) in self.bare_urls(text, range) {
                hits.push((at, Hit::Cite(Box::new(c))));
            }
        }
        hits.sort_by_key(|(at, _)| *at);
        for (_, hit) in hits {
            match hit {
                Hit::Cite(c) => self.push_citation(*c),
                Hit::Break => self.push_piece(Piece::SentenceBreak),
            }
        }
    }

    /// Forge URLs written bare in prose (GitHub links them): with GFM's autolink rules, trailing
    /// punctuation and an unbalanced `)` are not part of the URL.
    fn bare_urls(&self, text: &str, range: &Range<usize>) -> Vec<(usize, Citation)> {
        let mut out = Vec::new();
        for (start, url) in autolinks(text) {
            let span = self.locate(text, range, Span::new(start, start + url.len()));
            let verbatim = self.doc.text.get(span.start..span.end) == Some(url);
            let l = Link {
                dest: url,
                text: "",
                span,
                dest_at: verbatim.then_some(span.start),
                written: None,
            };
            for c in link::citations(l, self.base(), self.ctx) {
                out.push((start, c));
            }
        }
        out
    }

    /// Links in raw HTML (`<a href="…">`), as generators write in `<details>` blocks.
    fn html(&mut self, html: &str, range: &Range<usize>) {
        if html.contains("<!--") {
            suppress::comments_in(&self.doc.text, range.clone(), &mut self.comments);
        }
        for caps in HREF.captures_iter(html) {
            let Some(dest) = caps.get(1).or_else(|| caps.get(2)) else {
                continue;
            };
            let span = self.locate(html, range, Span::new(dest.start(), dest.end()));
            let verbatim = self.doc.text.get(span.start..span.end) == Some(dest.as_str());
            let l = Link {
                dest: dest.as_str(),
                text: "",
                span,
                dest_at: verbatim.then_some(span.start),
                written: None,
            };
            for c in link::citations(l, self.base(), self.ctx) {
                self.push_citation(c);
            }
        }
    }

    fn inline_code(&mut self, code: &str, range: &Range<usize>) {
        let source = &self.doc.text[range.clone()];
        // The code as written, when it is (a code span across lines reads its line ends as
        // spaces: then the whole span is where its citations are looked for).
        let inner = match source.find(code) {
            Some(i) => range.start + i..range.start + i + code.len(),
            None => range.clone(),
        };
        let found = bare::find_at_most(code, self.room().max(1));
        if !found.is_empty() {
            for b in found {
                let c = self.bare_citation(&b, code, &inner);
                self.push_citation(c);
            }
            return;
        }
        self.push_piece(Piece::Literal(Literal {
            text: code.to_string(),
            span: to_span(range),
            kind: literal::classify(code),
        }));
    }

    fn link_done(&mut self, pending: PendingLink) {
        let source = &self.doc.text[pending.span.start..pending.span.end];
        let dest_at = (!pending.dest.is_empty())
            .then(|| source.rfind(pending.dest.as_str()))
            .flatten()
            .map(|i| pending.span.start + i);
        // The text as written: verbatim, or up to the `](` before the target when escapes or
        // entities (DeepWiki's `&emsp;`) were decoded.
        let written = source.strip_prefix('[').and_then(|rest| {
            let len = match rest.starts_with(pending.text.as_str()) {
                true => pending.text.len(),
                false => rest.rfind("](")?,
            };
            Some((pending.span.start + 1, &rest[..len]))
        });
        let l = Link {
            dest: &pending.dest,
            text: &pending.text,
            span: pending.span,
            dest_at,
            written,
        };
        self.ext
            .anchor_links
            .extend(link::anchor_link(l, self.base(), self.ctx));
        let cites = link::citations(l, self.base(), self.ctx);
        if cites.is_empty() {
            // An ordinary link: its text is prose like any other.
            for (event, range) in pending.events {
                self.event(event, range);
            }
            return;
        }
        for c in cites {
            self.push_citation(c);
        }
    }

    fn fence_done(&mut self, fence: Fence) {
        let quote = fence
            .body_span
            .filter(|_| !fence.body.trim().is_empty())
            .map(|span| Quote {
                text: fence.body.clone(),
                span,
            });
        if let Some(mut c) = fence::citation(&self.doc.text, &fence) {
            c.quote = quote;
            self.ext.citations.push(c);
            return;
        }
        let Some(quote) = quote.filter(|_| fence.is_code() && !fence.includes()) else {
            return;
        };
        // A code fence that directly follows a line holding exactly one citation quotes it; after
        // two (one of them a link wrapped from the line above) it quotes neither.
        let fence_line = self.doc.lines.line(fence.span.start);
        let text = &self.doc.text;
        let mut prev = fence_line.saturating_sub(1);
        while prev >= 1 {
            let start = self.doc.lines.line_start(prev).unwrap_or(0);
            let end = self.doc.lines.line_start(prev + 1).unwrap_or(text.len());
            if !text[start..end].trim().is_empty() {
                break;
            }
            prev -= 1;
        }
        if prev == 0 || fence_line - prev > 2 {
            return;
        }
        // Every citation written on that line, a link wrapped from the line above included.
        let line_start = self.doc.lines.line_start(prev).unwrap_or(0);
        let line_end = self.doc.lines.line_start(prev + 1).unwrap_or(text.len());
        let on_line: Vec<CiteId> = self
            .ext
            .citations
            .enumerated()
            .filter(|(_, c)| c.span.overlaps(Span::new(line_start, line_end)))
            .map(|(i, _)| i)
            .collect();
        if let [only] = on_line[..] {
            let c = &mut self.ext.citations[only];
            let speaks = c.repo_path().is_none_or(|p| fence.quotes(p));
            if c.quote.is_none() && c.syntax != Syntax::FenceInfo && speaks {
                c.quote = Some(quote);
            }
        }
    }

    fn claims(&mut self, block: Block) {
        let text = &self.doc.text[block.span.start..block.span.end];
        if !block.whole && SOURCES_PARAGRAPH.is_match(text) {
            return self.sources_paragraph(block);
        }
        // deepwiki-open also ends a paragraph with its `Sources: [a.rs:1-5]()`: those citations
        // back the paragraph's uncited literals, as a `Sources:` paragraph after it would.
        let inline_sources = INLINE_SOURCES
            .find(text)
            .map(|m| block.span.start + m.end());
        let mut uncited = Vec::new();
        let mut groups: Vec<Vec<Piece>> = vec![Vec::new()];
        for piece in block.pieces {
            match piece {
                Piece::SentenceBreak if !block.whole => groups.push(Vec::new()),
                Piece::SentenceBreak => {}
                p => groups.last_mut().expect("group").push(p),
            }
        }
        for group in groups {
            let mut claim = Claim {
                span: block.span,
                ..Claim::default()
            };
            for piece in group {
                match piece {
                    Piece::Literal(l) => claim.literals.push(l),
                    Piece::Citation(i) => claim.citations.push(i),
                    Piece::SentenceBreak => {}
                }
            }
            if claim.citations.is_empty() {
                uncited.extend(claim.literals);
                continue;
            }
            let after = |&i: &CiteId| {
                inline_sources.is_some_and(|at| self.ext.citations[i].span.start >= at)
            };
            if claim.citations.iter().all(after) {
                claim.literals.append(&mut uncited);
            }
            self.push_claim(claim);
        }
        self.uncited_literals = uncited;
    }

    /// `Sources: [a.ts:1-5]() [b.ts:9]()` (deepwiki-open) backs the paragraph before it: one
    /// claim of that paragraph's uncited literals and these citations.
    fn sources_paragraph(&mut self, block: Block) {
        let mut claim = Claim {
            span: block.span,
            literals: std::mem::take(&mut self.uncited_literals),
            ..Claim::default()
        };
        for piece in block.pieces {
            match piece {
                Piece::Literal(l) => claim.literals.push(l),
                Piece::Citation(i) => claim.citations.push(i),
                Piece::SentenceBreak => {}
            }
        }
        if !claim.citations.is_empty() {
            self.push_claim(claim);
        }
    }

    fn push_claim(&mut self, claim: Claim) {
        let idx = self.ext.claims.next_id();
        for &c in &claim.citations {
            self.ext.citations[c].claim = Some(idx);
        }
        self.ext.claims.push(claim);
    }
}

/// The bare URLs of a piece of prose, where each starts, as GitHub links them (GFM's extended
/// autolinks).
pub(crate) fn autolinks(text: &str) -> impl Iterator<Item = (usize, &str)> {
    URL.find_iter(text)
        .map(|m| (m.start(), autolink_end(m.as_str())))
}

/// Where a bare URL ends by GFM's extended autolink rules: trailing punctuation is not part of it,
/// nor a closing `)` that has no opening one in the URL.
fn autolink_end(url: &str) -> &str {
    let mut end = url.len();
    loop {
        let u = &url[..end];
        let unbalanced = u.ends_with(')') && u.matches(')').count() > u.matches('(').count();
        if unbalanced || u.ends_with(['?', '!', '.', ',', ':', '*', '_', '~', '\'', '"', ';']) {
            end -= 1;
        } else {
            return u;
        }
    }
}

fn to_span(range: &Range<usize>) -> Span {
    Span::new(range.start, range.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{DocKind, LineStyle};

    #[test]
    fn sentence_ends_are_where_the_pattern_they_replace_matched() {
        let pattern = Regex::new(r#"[.!?]["')\]*_]*(?:\s+|$)"#).unwrap();
        let alphabet: Vec<char> = ".!?\"')]*_ \n\tax\u{a0}\u{2003}é".chars().collect();
        let mut rng = fastrand::Rng::with_seed(38);
        for _ in 0..20_000 {
            let len = rng.usize(0..12);
            let text: String = (0..len)
                .map(|_| alphabet[rng.usize(..alphabet.len())])
                .collect();
            let want: Vec<(usize, usize)> = pattern
                .find_iter(&text)
                .map(|m| (m.start(), m.end()))
                .collect();
            assert_eq!(sentence_ends(&text).collect::<Vec<_>>(), want, "{text:?}");
        }
    }

    fn extract_text(text: &str) -> Extracted {
        let doc = Doc::new(
            "a.md".into(),
            "a.md".into(),
            Some(String::new()),
            DocKind::Markdown,
            text.to_string(),
        );
        extract(&doc, &ExtractContext::default())
    }

    #[test]
    fn spans_in_text_with_escapes_point_at_each_citation() {
        // Escapes make the event text differ from the source; repeated citations still each get
        // their own place, and an escape inside a citation does not lose the others.
        let text = "a.rs:1 \\* a.rs:2 \\* a.rs:1 and b\\_c/d.rs:3 then a.rs:4.\n";
        let ext = extract_text(text);
        let got: Vec<&str> = ext
            .citations
            .iter()
            .map(|c| {
                let (span, _) = c.lines_span.unwrap_or((c.span, LineStyle::Plain));
                &text[span.start..span.end]
            })
            .collect();
        assert_eq!(got, ["1", "2", "1", "3", "4"]);
        let starts: Vec<usize> = ext.citations.iter().map(|c| c.span.start).collect();
        assert_eq!(starts[..3], [0, 10, 20]);
        assert_eq!(
            &text[ext.citations.as_slice()[4].span.start..ext.citations.as_slice()[4].span.end],
            "a.rs:4"
        );
    }
}
