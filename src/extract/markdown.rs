//! Markdown docs, read with a CommonMark parser so that link targets, inline code, fences and prose
//! are told apart: citations inside a code block are code, not citations.
//!
//! Claims are sentences (in paragraphs) and list items; their inline-code literals are checked
//! against the spans they cite. A fence right after a line holding one citation, or a fence whose
//! info string is a citation, is that citation's quote.

use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd, TextMergeWithOffset};
use regex::Regex;

use crate::model::{
    Citation, Claim, Doc, Extracted, LineRange, LineStyle, Literal, Marker, PathStyle, Quote,
    SourceEntry, Span, Syntax,
};

use super::context::ExtractContext;
use super::link::{self, Link};
use super::path::resolve_path;
use super::{bare, front_matter, literal};

static MARKER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[(\d{1,3})\]").expect("marker pattern"));
static SENTENCE_END: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"[.!?]["')\]*_]*(?:\s+|$)"#).expect("sentence pattern"));
static SOURCES_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^[\s#>*_]*sources?\s*:?[\s*_]*$").expect("sources header pattern")
});
static SOURCE_ENTRY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[-*+]\s+)?\[(\d{1,3})\]\s+(\S+?)(?:\s+\(\s*\d+(?:\.\d+)?\s*%\s*\))?\s*$")
        .expect("source entry pattern")
});
static EDITOR_LINK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"vscode://file/[^\s)<>`]+").expect("editor link pattern"));
static CURSOR_INFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d+):(\d+):(\S+)$").expect("cursor info pattern"));
static TITLE_INFO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"title=["']([^"']+)["']"#).expect("title info pattern"));

/// One piece of a block, in doc order, before it is split into claims.
enum Piece {
    Literal(Literal),
    Citation(usize),
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

struct Fence {
    info: String,
    span: Span,
    body: String,
    body_span: Option<Span>,
}

struct Walker<'a> {
    doc: &'a Doc,
    ctx: &'a ExtractContext,
    ext: Extracted,
    blocks: Vec<Block>,
    link: Option<PendingLink>,
    fence: Option<Fence>,
    image_depth: usize,
}

/// Extract a Markdown doc.
pub fn extract(doc: &Doc, ctx: &ExtractContext) -> Extracted {
    let mut options =
        Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    options.remove(Options::ENABLE_SMART_PUNCTUATION);
    let mut w = Walker {
        doc,
        ctx,
        ext: Extracted::default(),
        blocks: Vec::new(),
        link: None,
        fence: None,
        image_depth: 0,
    };
    w.source_lists();
    // Front matter only at the very top (after a byte-order mark); the Markdown after it is
    // parsed on its own, every offset kept relative to the doc as written.
    let mut start = doc.body_start();
    if let Some(block) = front_matter::find(&doc.text, start) {
        front_matter::read(&doc.text, block, &mut w.ext);
        start = block.body_start;
    }
    let parser = Parser::new_ext(&doc.text[start..], options).into_offset_iter();
    for (event, range) in TextMergeWithOffset::new(parser) {
        w.event(event, range.start + start..range.end + start);
    }
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
            Event::Start(Tag::Paragraph | Tag::Heading { .. } | Tag::TableCell) => {
                self.blocks.push(Block {
                    whole: false,
                    span: to_span(&range),
                    pieces: Vec::new(),
                })
            }
            Event::Start(Tag::Item) => self.blocks.push(Block {
                whole: true,
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
            _ => {}
        }
    }

    fn push_piece(&mut self, piece: Piece) {
        if let Some(block) = self.blocks.last_mut() {
            block.pieces.push(piece);
        }
    }

    fn push_citation(&mut self, citation: Citation) {
        self.ext.citations.push(citation);
        let idx = self.ext.citations.len() - 1;
        self.push_piece(Piece::Citation(idx));
    }

    /// Where `needle` (found at `rel` in the event text) is written in the doc.
    fn locate(&self, text: &str, range: &Range<usize>, rel: Span) -> Span {
        let source = &self.doc.text[range.clone()];
        if source == text {
            return rel.shifted(range.start);
        }
        let needle = &text[rel.start..rel.end];
        match source.find(needle) {
            Some(i) => Span::new(range.start + i, range.start + i + needle.len()),
            None => to_span(range),
        }
    }

    fn bare_citation(&self, b: &bare::BareCitation, text: &str, range: &Range<usize>) -> Citation {
        let span = self.locate(text, range, b.span);
        let lines_span = self.locate(text, range, b.lines_span);
        let mut c = Citation::new(
            Syntax::Bare,
            span,
            &b.path,
            resolve_path(&b.path, None, false),
        )
        .with_lines(b.lines);
        c.bad_lines = b.bad_lines();
        c.tentative = b.tentative;
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
        for b in bare::find(text) {
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
                text_at: None,
            };
            for c in link::citations(l, self.base(), self.ctx) {
                hits.push((m.start(), Hit::Cite(Box::new(c))));
            }
        }
        for m in SENTENCE_END.find_iter(text) {
            let next = text[m.end()..].chars().next();
            if next.is_none_or(|c| c.is_uppercase() || c.is_ascii_digit() || "[(`*_".contains(c)) {
                hits.push((m.start(), Hit::Break));
            }
        }
        if !self.ext.sources.entries.is_empty() {
            for m in MARKER.captures_iter(text) {
                let whole = m.get(0).expect("marker");
                let span = self.locate(text, range, Span::new(whole.start(), whole.end()));
                let sources = &mut self.ext.sources;
                let in_list = sources
                    .entries
                    .iter()
                    .any(|s| s.line_span.start <= span.start && span.end <= s.line_span.end);
                if !in_list {
                    if let Ok(number) = m[1].parse() {
                        sources.markers.push(Marker { number, span });
                    }
                }
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

    fn inline_code(&mut self, code: &str, range: &Range<usize>) {
        let source = &self.doc.text[range.clone()];
        let at = source
            .find(code)
            .map(|i| range.start + i)
            .unwrap_or(range.start);
        let inner = at..at + code.len();
        let found = bare::find(code);
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
        let text_at = source
            .strip_prefix('[')
            .filter(|rest| rest.starts_with(pending.text.as_str()))
            .map(|_| pending.span.start + 1);
        let l = Link {
            dest: &pending.dest,
            text: &pending.text,
            span: pending.span,
            dest_at,
            text_at,
        };
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
        if let Some(mut c) = self.fence_citation(&fence) {
            c.quote = quote;
            self.ext.citations.push(c);
            return;
        }
        let Some(quote) = quote else { return };
        // A fence that directly follows a line holding exactly one citation quotes it.
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
        let on_line: Vec<usize> = (0..self.ext.citations.len())
            .filter(|&i| self.doc.lines.line(self.ext.citations[i].span.start) == prev)
            .collect();
        if let [only] = on_line[..] {
            let c = &mut self.ext.citations[only];
            if c.quote.is_none() && c.syntax != Syntax::FenceInfo {
                c.quote = Some(quote);
            }
        }
    }

    /// A fence whose info string names the span: Cursor's ```` ```12:15:app/a.tsx ````,
    /// ```` ```rust title="src/a.rs:10-20" ````, or ```` ```python src/main.py ````.
    fn fence_citation(&self, fence: &Fence) -> Option<Citation> {
        let info = fence.info.trim();
        if info.is_empty() {
            return None;
        }
        let source = &self.doc.text[fence.span.start..fence.span.end];
        let info_at = fence.span.start + source.find(info).unwrap_or(0);
        let span_of = |part: &str| {
            let i = source
                .find(part)
                .map(|i| fence.span.start + i)
                .unwrap_or(info_at);
            Span::new(i, i + part.len())
        };
        if let Some(caps) = CURSOR_INFO.captures(info) {
            let (start, end) = (caps[1].parse().ok()?, caps[2].parse().ok()?);
            let path = &caps[3];
            let mut c = Citation::new(
                Syntax::FenceInfo,
                span_of(info),
                path,
                resolve_path(path, None, false),
            )
            .with_lines(Some(LineRange::new(start, end)));
            let spec = &info[..caps[1].len() + 1 + caps[2].len()];
            c.lines_span = Some((Span::new(info_at, info_at + spec.len()), LineStyle::Cursor));
            let path_at = info_at + spec.len() + 1;
            c.path_span = Some((Span::new(path_at, path_at + path.len()), PathStyle::Repo));
            return Some(c);
        }
        let candidates: Vec<&str> = match TITLE_INFO.captures(info) {
            Some(caps) => vec![caps.get(1).expect("title").as_str()],
            None => info.split_whitespace().collect(),
        };
        for (i, token) in candidates.iter().enumerate() {
            let found = bare::find(token);
            if let Some(b) = found
                .first()
                .filter(|b| b.span.start == 0 && b.span.end == token.len())
            {
                let at = span_of(token);
                let mut c = Citation::new(
                    Syntax::FenceInfo,
                    at,
                    &b.path,
                    resolve_path(&b.path, None, false),
                )
                .with_lines(b.lines);
                c.bad_lines = b.bad_lines();
                c.lines_span = Some((b.lines_span.shifted(at.start), b.style));
                c.path_span = b.path_span.map(|p| (p.shifted(at.start), PathStyle::Repo));
                return Some(c);
            }
            // A lone first token is the language; a path needs a `/` or to follow the language.
            let pathy = token.contains('/') || (i > 0 && bare::looks_like_path(token));
            if pathy && !token.contains('=') && !token.contains("://") {
                return Some(Citation::new(
                    Syntax::FenceInfo,
                    span_of(token),
                    token,
                    resolve_path(token, None, false),
                ));
            }
        }
        None
    }

    /// Find `Sources:` lists (`[n] path (52%)`) by line, before the walk, so that their entries
    /// are not taken for markers.
    fn source_lists(&mut self) {
        let text = &self.doc.text;
        let mut in_list = false;
        let mut offset = 0;
        let mut fence: Option<&str> = None;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            let trimmed = body.trim_start();
            if let Some(marker) = fence {
                if trimmed.starts_with(marker) {
                    fence = None;
                }
                continue;
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = Some(&trimmed[..3]);
                in_list = false;
                continue;
            }
            if SOURCES_HEADER.is_match(body) {
                in_list = true;
                continue;
            }
            if !in_list {
                continue;
            }
            if body.trim().is_empty() {
                continue;
            }
            let Some(caps) = SOURCE_ENTRY.captures(body) else {
                in_list = false;
                continue;
            };
            let (Ok(number), Some(path)) = (caps[1].parse(), caps.get(2)) else {
                continue;
            };
            let span = Span::new(start + path.start(), start + path.end());
            self.ext.sources.entries.push(SourceEntry {
                number,
                line_span: Span::new(start, start + body.len()),
            });
            self.ext.citations.push(Citation::new(
                Syntax::SourceList,
                span,
                path.as_str(),
                resolve_path(path.as_str(), None, false),
            ));
        }
    }

    fn claims(&mut self, block: Block) {
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
                continue;
            }
            let idx = self.ext.claims.len();
            for &c in &claim.citations {
                self.ext.citations[c].claim = Some(idx);
            }
            self.ext.claims.push(claim);
        }
    }
}

fn to_span(range: &Range<usize>) -> Span {
    Span::new(range.start, range.end)
}
