//! Checks: the rules run against what resolution found. Citations are grouped by
//! `(commit, path)` so that each blob is read once, all its quotes are searched with one
//! aho-corasick automaton over its normalised text, and it is parsed by tree-sitter at most once.

pub mod symbols;

use std::collections::HashMap;

use aho_corasick::AhoCorasick;
use git2::{Oid, Repository};

use crate::citation::{Citation, LineRange};
use crate::doc::Doc;
use crate::extract::literal::{self, LiteralKind};
use crate::extract::Extracted;
use crate::finding::{Finding, Fix};
use crate::normalize::{self, normalize, NormalizedSource};
use crate::resolve::repo::suggest;
use crate::resolve::{CodeRepo, FileAt};
use crate::rules::{
    invented_lines, invented_path, not_a_file, overbroad_span, unsupported_quote, RuleId,
};

use symbols::Symbols;

/// Lines of evidence shown under a finding.
const EVIDENCE_LINES: usize = 8;

/// A doc with what was extracted from it and how each claim's literals are checked.
#[derive(Debug)]
pub struct AuditedDoc {
    pub doc: Doc,
    pub extracted: Extracted,
    /// Per claim, per literal: how it is checked (`None`: not checked).
    pub literal_kinds: Vec<Vec<Option<LiteralKind>>>,
}

impl AuditedDoc {
    pub fn new(doc: Doc, extracted: Extracted) -> Self {
        let literal_kinds = extracted
            .claims
            .iter()
            .map(|c| {
                c.literals
                    .iter()
                    .map(|l| literal::classify(&l.text))
                    .collect()
            })
            .collect();
        AuditedDoc {
            doc,
            extracted,
            literal_kinds,
        }
    }

    pub fn citation(&self, index: usize) -> &Citation {
        &self.extracted.citations[index]
    }
}

/// A citation, by the doc it is in and its index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CiteRef {
    pub doc: usize,
    pub index: usize,
}

/// A citation being judged, with what a finding about it needs.
pub struct Subject<'a> {
    pub doc: usize,
    pub doc_text: &'a str,
    pub citation: &'a Citation,
    pub revision: Option<Oid>,
}

impl Subject<'_> {
    /// A finding about this citation: located at it, carrying its path, lines and revision.
    pub fn finding(&self, rule: RuleId, message: impl Into<String>) -> Finding {
        let mut f = Finding::new(rule, self.doc, self.citation.span, message);
        f.path = Some(
            self.citation
                .repo_path()
                .unwrap_or(&self.citation.raw_path)
                .to_string(),
        );
        f.lines = self.citation.lines;
        f.revision = self.revision.map(|r| r.to_string());
        f
    }

    pub fn short_rev(&self) -> String {
        match self.revision {
            Some(r) => r.to_string()[..8].to_string(),
            None => "the revision".to_string(),
        }
    }

    /// Attach a fix that re-cites `range`, written in the citation's own syntax.
    pub fn with_fix(&self, mut f: Finding, range: LineRange) -> Finding {
        if let (Some((span, style)), Some(path)) =
            (self.citation.lines_span, self.citation.repo_path())
        {
            if let Some(written) = self.doc_text.get(span.start..span.end) {
                f.fix = Some(Fix {
                    path: path.to_string(),
                    start_line: range.start,
                    end_line: range.end,
                    replacement: style.rewrite(written, range),
                    byte_start: span.start,
                    byte_end: span.end,
                });
            }
        }
        f
    }
}

/// What checking one `(commit, path)` group produced.
#[derive(Debug, Default)]
pub struct GroupResult {
    pub findings: Vec<Finding>,
    /// For citations that resolved to text: which of their claim's literals each supports.
    pub support: Vec<(CiteRef, Vec<bool>)>,
    /// Quotes found nowhere in their file: (index into `findings`, normalised quote), for the
    /// search of other files.
    pub lost_quotes: Vec<(usize, String)>,
}

/// Check every citation of one blob.
pub fn check_group(
    repo: &CodeRepo,
    git: &Repository,
    commit: Oid,
    path: &str,
    cites: &[CiteRef],
    docs: &[AuditedDoc],
    max_span_lines: usize,
) -> GroupResult {
    let mut out = GroupResult::default();
    let subject = |c: &CiteRef| Subject {
        doc: c.doc,
        doc_text: &docs[c.doc].doc.text,
        citation: docs[c.doc].citation(c.index),
        revision: Some(commit),
    };
    let file = repo.file_at(git, commit, path).unwrap_or(FileAt::Missing);
    let text = match &file {
        FileAt::Text(t) => t.clone(),
        FileAt::Missing => {
            let suggestions = suggest(path, &repo.paths_at(git, commit));
            for c in cites {
                out.findings
                    .push(invented_path::finding(&subject(c), path, &suggestions));
            }
            return out;
        }
        other => {
            for c in cites {
                out.findings
                    .extend(not_a_file::finding(&subject(c), path, other));
            }
            return out;
        }
    };
    let line_count = normalize::line_count(&text);

    // Every quote of this blob, searched at once.
    let mut quote_ids: HashMap<String, usize> = HashMap::new();
    for c in cites {
        if let Some(q) = &docs[c.doc].citation(c.index).quote {
            let n = normalize(&q.text);
            if !n.is_empty() {
                let next = quote_ids.len();
                quote_ids.entry(n).or_insert(next);
            }
        }
    }
    let needs_normalized = !quote_ids.is_empty()
        || cites.iter().any(|c| {
            claim_kinds(docs, *c)
                .iter()
                .any(|k| matches!(k, Some(LiteralKind::Expression { .. })))
        });
    let normalized = needs_normalized.then(|| NormalizedSource::new(&text));
    let mut found: Vec<Vec<LineRange>> = vec![Vec::new(); quote_ids.len()];
    if let (Some(norm), false) = (&normalized, quote_ids.is_empty()) {
        let mut patterns = vec![""; quote_ids.len()];
        for (q, &i) in &quote_ids {
            patterns[i] = q.as_str();
        }
        if let Ok(ac) = AhoCorasick::new(&patterns) {
            for m in ac.find_overlapping_iter(&norm.text) {
                let (s, e) = norm.lines_of(m.start(), m.end());
                found[m.pattern().as_usize()].push(LineRange::new(s as i64, e as i64));
            }
        }
    }
    let mut parsed: Option<Option<Symbols>> = None;

    for c in cites {
        let s = subject(c);
        let citation = s.citation;
        if let Some(range) = citation.lines {
            if let Some(f) = invented_lines::check_extent(&s, range, line_count) {
                out.findings.push(f);
                continue;
            }
            out.findings
                .extend(overbroad_span::check(&s, range, max_span_lines));
        }
        let (start, end) = match citation.lines {
            Some(r) => (r.start as usize, r.end as usize),
            None => (1, line_count.max(1)),
        };
        let evidence = || {
            let shown_end = end.min(start + EVIDENCE_LINES - 1);
            let mut e = normalize::slice_lines(&text, start, shown_end).to_string();
            if shown_end < end {
                e.push_str("\n…");
            }
            e
        };
        if let Some(q) = &citation.quote {
            let n = normalize(&q.text);
            if let Some(&id) = quote_ids.get(&n) {
                if let Some(mut f) = unsupported_quote::check(&s, citation.lines, &found[id]) {
                    f.evidence = Some(evidence());
                    if found[id].is_empty() {
                        out.lost_quotes.push((out.findings.len(), n));
                    }
                    out.findings.push(f);
                }
            }
        }
        let kinds = claim_kinds(docs, *c);
        if kinds.is_empty() {
            continue;
        }
        let span_text = normalize::slice_lines(&text, start, end);
        let span_norm = normalize(span_text);
        let mut support = Vec::with_capacity(kinds.len());
        for kind in kinds {
            let ok = match kind {
                None => true,
                Some(LiteralKind::Expression { normalized }) => {
                    literal::occurs_as_text(&span_norm, normalized)
                }
                Some(LiteralKind::Identifier { name }) => {
                    literal::identifiers(span_text).any(|i| i == name) || {
                        let symbols = parsed.get_or_insert_with(|| Symbols::parse(path, &text));
                        symbols.as_ref().is_some_and(|sym| {
                            sym.enclosing(&text, start).iter().any(|n| n == name)
                        })
                    }
                }
            };
            support.push(ok);
        }
        out.support.push((*c, support));
    }
    out
}

fn claim_kinds(docs: &[AuditedDoc], c: CiteRef) -> &[Option<LiteralKind>] {
    let d = &docs[c.doc];
    match d.citation(c.index).claim {
        Some(claim) => &d.literal_kinds[claim],
        None => &[],
    }
}

/// For quotes found nowhere in their own file: the first other file at `commit` that holds each
/// (text blobs up to 1 MiB, one automaton for all the quotes). The audited docs are skipped: a
/// quote is always found in the doc that quotes it.
pub fn find_quotes_elsewhere(
    repo: &CodeRepo,
    git: &Repository,
    commit: Oid,
    quotes: &[String],
    skip: &std::collections::HashSet<&str>,
) -> Vec<Option<String>> {
    let mut found = vec![None; quotes.len()];
    let Ok(ac) = AhoCorasick::new(quotes) else {
        return found;
    };
    let Ok(tree) = git.find_commit(commit).and_then(|c| c.tree()) else {
        return found;
    };
    for path in repo.paths_at(git, commit).iter() {
        if skip.contains(path.as_str()) {
            continue;
        }
        let Ok(entry) = tree.get_path(std::path::Path::new(path)) else {
            continue;
        };
        let Ok(blob) = git.find_blob(entry.id()) else {
            continue;
        };
        if blob.size() > 1 << 20 || blob.is_binary() {
            continue;
        }
        let Ok(text) = std::str::from_utf8(blob.content()) else {
            continue;
        };
        let norm = normalize(text);
        for m in ac.find_overlapping_iter(&norm) {
            let slot = &mut found[m.pattern().as_usize()];
            if slot.is_none() {
                *slot = Some(path.clone());
            }
        }
        if found.iter().all(Option::is_some) {
            break;
        }
    }
    found
}
