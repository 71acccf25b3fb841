//! Markdown with a model: the paragraph holding a citation that offline re-grounding could not
//! move is rewritten by the model from the target's retrieval and gated like an answer (every
//! citation in it holds at the target and lies in a retrieved chunk); a paragraph that fails
//! after one repair is left as written.

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use super::ask::{self, Question, Spent};
use super::offline::Ctx;
use super::prompt::Contract;
use citegate_engine::gate::reply::Subject;
use citegate_engine::gate::{self, Violation};
use citegate_engine::model::{DocId, DocKind, Finding, Fix, Report, Span};
use citegate_engine::retrieve::{Index, Query};
use citegate_llm::ChatModel;

/// A paragraph of a Markdown doc that holds failing citations.
#[derive(Debug, Clone)]
pub(super) struct Paragraph {
    pub doc: DocId,
    pub name: String,
    /// The paragraph's bytes, without its final line ending.
    pub span: Span,
    pub first_line: usize,
    pub text: String,
    /// The paths its failing citations named (retrieval ranks their chunks higher).
    pub paths: Vec<String>,
}

/// What the model made of a paragraph: its new text when it passed the gate.
#[derive(Debug, Clone)]
pub(super) struct Rewrite {
    pub doc: DocId,
    pub span: Span,
    pub text: Option<String>,
    /// The citations of the new text (`path:start-end`).
    pub citations: Vec<String>,
    pub violations: Vec<Violation>,
    pub error: Option<String>,
}

/// The paragraphs of Markdown docs holding a failing citation that no safe fix or offline
/// relocation moves, once each.
pub(super) fn failing(report: &Report, relocated: &BTreeMap<DocId, Vec<Fix>>) -> Vec<Paragraph> {
    let mut out: Vec<Paragraph> = Vec::new();
    for f in &report.findings {
        let doc = &report.docs[f.doc].doc;
        let safe = f.safe_fix().is_some();
        // A citation re-anchored offline (its content found once elsewhere) is not asked about.
        let moved = relocated
            .get(&f.doc)
            .is_some_and(|fixes| fixes.iter().any(|x| x.cite.is_some() && x.cite == f.cite));
        if doc.kind != DocKind::Markdown || !gate::wrong(f.rule, f.severity) || safe || moved {
            continue;
        }
        let span = bounds(&doc.text, f.span.start);
        match out.iter_mut().find(|p| p.doc == f.doc && p.span == span) {
            Some(p) => p.paths.extend(f.path.clone()),
            None => out.push(Paragraph {
                doc: f.doc,
                name: doc.name.clone(),
                span,
                first_line: doc.text[..span.start].matches('\n').count() + 1,
                text: doc.text[span.start..span.end].to_string(),
                paths: f.path.iter().cloned().collect(),
            }),
        }
    }
    out
}

/// The lines around byte `at` up to a blank line, a fence, a heading or a front matter line.
pub(super) fn bounds(text: &str, at: usize) -> Span {
    let stop = |line: &str| {
        let t = line.trim();
        t.is_empty()
            || t.starts_with("```")
            || t.starts_with("~~~")
            || t.starts_with('#')
            || t == "---"
    };
    let line_start = |end: usize| text[..end].rfind('\n').map_or(0, |i| i + 1);
    let line_end = |start: usize| text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut start = line_start(at.min(text.len()));
    let mut end = line_end(start);
    if stop(&text[start..end]) {
        return Span::new(start, end.min(text.len()));
    }
    while start > 0 {
        let prev = line_start(start - 1);
        if stop(&text[prev..start - 1]) {
            break;
        }
        start = prev;
    }
    while end < text.len() {
        let next = line_end(end + 1);
        if stop(&text[end + 1..next]) {
            break;
        }
        end = next;
    }
    // A CRLF paragraph's last `\r` belongs to its line ending.
    let trimmed = text[start..end].trim_end_matches('\r').len();
    Span::new(start, start + trimmed)
}

/// Ask the model to rewrite each paragraph, at most `concurrency` at a time.
pub(super) fn stage(
    client: &dyn ChatModel,
    ctx: &Ctx,
    index: &Index,
    exclude: &Arc<HashSet<String>>,
    paragraphs: &[Paragraph],
    top_k: usize,
    concurrency: usize,
) -> (Vec<Rewrite>, Spent) {
    let ask_one = |p: &Paragraph| {
        let query = Query {
            text: p.text.clone(),
            paths: p.paths.clone(),
            exclude: exclude.clone(),
            docs: ctx.gate.settings().config.retrieve_docs,
            ..Query::default()
        };
        let chunks: Vec<usize> = index
            .search(&query, top_k)
            .iter()
            .map(|h| h.chunk)
            .collect();
        let mut q = Question {
            doc: p.name.clone(),
            subject: Subject::Paragraph,
            index: p.first_line,
            contract: Contract::Paragraph,
            text: p.text.clone(),
            chunks: Vec::new(),
            chunk_ids: Vec::new(),
            retrieved: chunks.iter().map(|&c| index.retrieved(c)).collect(),
        };
        q.context(ctx.repo, index, &chunks);
        ask::ask(client, ctx.gate, &q)
    };
    let asked = ask::limited(concurrency, paragraphs, ask_one);
    let mut spent = Spent::default();
    let mut out = Vec::new();
    for (p, a) in paragraphs.iter().zip(asked) {
        spent.charge(&a);
        let text = a
            .answer
            .as_ref()
            .and_then(|v| v.get("paragraph")?.as_str().map(str::to_string));
        out.push(Rewrite {
            doc: p.doc,
            span: p.span,
            citations: text
                .as_deref()
                .map(|t| citations(ctx.gate, &p.name, t))
                .unwrap_or_default(),
            text,
            violations: ask::last_violations(&a.record),
            error: a.record.error.clone(),
        });
        spent.records.push(a.record);
    }
    (out, spent)
}

/// The citations of a paragraph, as `path:start-end`.
fn citations(gate: &gate::Gate, name: &str, text: &str) -> Vec<String> {
    gate.in_memory(name, DocKind::Markdown, text.to_string())
        .extracted
        .citations
        .iter()
        .filter_map(|c| Some(format!("{}:{}", c.repo_path()?, c.lines?)))
        .collect()
}

/// Whether a finding lies in a rewritten paragraph.
pub(super) fn rewritten<'a>(rewrites: &'a [Rewrite], f: &Finding) -> Option<&'a Rewrite> {
    rewrites
        .iter()
        .find(|r| r.doc == f.doc && r.span.contains(f.span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paragraph_ends_at_blank_lines_fences_and_headings() {
        let text = "# T\nfirst line\nsecond src/a.rs:3 line\n\nnext\n```\ncode\n```\n";
        let at = text.find("src/a.rs").unwrap();
        let span = bounds(text, at);
        assert_eq!(
            &text[span.start..span.end],
            "first line\nsecond src/a.rs:3 line"
        );
        let at = text.find("next").unwrap();
        let span = bounds(text, at);
        assert_eq!(&text[span.start..span.end], "next");
        let crlf = "a\r\nb src/a.rs:1\r\n\r\nc";
        let span = bounds(crlf, crlf.find("src").unwrap());
        assert_eq!(&crlf[span.start..span.end], "a\r\nb src/a.rs:1");
    }
}
