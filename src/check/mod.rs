//! Checks: the rules run against what resolution found. Citations are grouped by
//! `(commit, path)` so that each blob is read once, all its quotes are searched with one
//! aho-corasick automaton over its normalised text, and it is parsed by tree-sitter at most once.

pub mod stale;
pub mod symbols;

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind};
use git2::{Oid, Repository};
use rayon::prelude::*;

use crate::citation::{Citation, LineRange, PinSource};
use crate::doc::{Doc, LineIndex};
use crate::extract::literal::{self, LiteralKind};
use crate::extract::Extracted;
use crate::finding::Finding;
use crate::fix::{self, Relocation};
use crate::normalize::{self, normalize, NormalizedSource};
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
    pub pin: PinSource,
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
            Some(r) => short(r),
            None => "the revision".to_string(),
        }
    }

    /// Attach the fix that makes the citation cite `to`, when its syntax can say it safely.
    pub fn with_fix(&self, mut f: Finding, to: Relocation) -> Finding {
        f.fix = fix::build(self.doc_text, self.citation, self.pin, &to);
        f
    }
}

/// Why a relocation found exactly and uniquely still carries no fix.
pub fn no_fix_help(subject: &Subject<'_>) -> String {
    match subject.pin {
        PinSource::Doc => "no fix: the citation's pin is the doc's (front matter `citegate: {rev}` or the answer's `revision`); re-pin the doc, then run `citegate fix`".to_string(),
        _ => "no fix: this citation's syntax cannot be rewritten in place".to_string(),
    }
}

/// The first 8 hex digits of a commit ID.
pub fn short(oid: Oid) -> String {
    oid.to_string()[..8].to_string()
}

/// What the cited content was where the citation held, for the comparison with the target.
#[derive(Debug, Clone)]
pub struct Held {
    /// The normalised quote, or the normalised cited lines; `None` for whole-file citations.
    pub content: Option<String>,
    /// Where `content` was (the quote's lines, or the cited range).
    pub anchor: Option<LineRange>,
    /// The cited lines as written at the revision, for the diff shown when they changed.
    pub lines_text: Option<String>,
}

/// The verdict on one citation at one revision.
#[derive(Debug)]
pub struct CiteOutcome {
    pub cite: CiteRef,
    pub findings: Vec<Finding>,
    /// Which of the claim's literals the span supports (set when the blob is text).
    pub support: Option<Vec<bool>>,
    /// Set when the citation holds at this revision.
    pub held: Option<Held>,
    /// The normalised quote, when it occurs nowhere in the file (to search other files).
    pub lost_quote: Option<String>,
}

/// Line ranges of every occurrence of each pattern in the normalised text, in one pass.
pub fn find_all(norm: &NormalizedSource, patterns: &[&str]) -> Vec<Vec<LineRange>> {
    let mut found = vec![Vec::new(); patterns.len()];
    let push = |found: &mut Vec<Vec<LineRange>>, id: usize, start: usize, end: usize| {
        let (s, e) = norm.lines_of(start, end);
        found[id].push(LineRange::new(s as i64, e as i64));
    };
    match patterns {
        [] => return found,
        // Most blobs have one quote: a substring search needs no automaton.
        [one] if !one.is_empty() => {
            let step = one.chars().next().map_or(1, char::len_utf8);
            let mut from = 0;
            while let Some(i) = norm.text[from..].find(one) {
                push(&mut found, 0, from + i, from + i + one.len());
                from += i + step;
            }
            return found;
        }
        _ => {}
    }
    // A blob has few quotes: a contiguous NFA builds much faster than a DFA and searches nearly as
    // fast at that size.
    let ac = AhoCorasick::builder()
        .kind(Some(AhoCorasickKind::ContiguousNFA))
        .build(patterns);
    if let Ok(ac) = ac {
        for m in ac.find_overlapping_iter(&norm.text) {
            push(&mut found, m.pattern().as_usize(), m.start(), m.end());
        }
    }
    found
}

/// Check every citation of one blob. `compare`: the blob is not the target's, so what each
/// citation holds is kept for the comparison with the target.
#[allow(clippy::too_many_arguments)]
pub fn check_group(
    repo: &CodeRepo,
    git: &Repository,
    commit: Oid,
    path: &str,
    cites: &[(CiteRef, PinSource)],
    docs: &[AuditedDoc],
    max_span_lines: usize,
    compare: bool,
) -> Vec<CiteOutcome> {
    let subject = |(c, pin): &(CiteRef, PinSource)| Subject {
        doc: c.doc,
        doc_text: &docs[c.doc].doc.text,
        citation: docs[c.doc].citation(c.index),
        revision: Some(commit),
        pin: *pin,
    };
    let outcome = |cite: CiteRef, findings: Vec<Finding>| CiteOutcome {
        cite,
        findings,
        support: None,
        held: None,
        lost_quote: None,
    };
    let file = repo.file_at(git, commit, path).unwrap_or(FileAt::Missing);
    let text = match &file {
        FileAt::Text(t) => t.clone(),
        FileAt::Missing => {
            let suggestions = repo.paths_at(git, commit).suggest(path);
            return cites
                .iter()
                .map(|c| {
                    outcome(
                        c.0,
                        vec![invented_path::finding(&subject(c), path, &suggestions)],
                    )
                })
                .collect();
        }
        other => {
            return cites
                .iter()
                .map(|c| {
                    outcome(
                        c.0,
                        not_a_file::finding(&subject(c), path, other)
                            .into_iter()
                            .collect(),
                    )
                })
                .collect();
        }
    };
    let line_count = normalize::line_count(&text);
    let lines = LineIndex::new(&text);

    // Every quote of this blob. Each is first looked for in its own cited lines; the whole blob is
    // normalised and searched (for all its quotes at once) only when one is not there.
    let mut quote_ids: HashMap<String, usize> = HashMap::new();
    for (c, _) in cites {
        if let Some(q) = &docs[c.doc].citation(c.index).quote {
            let n = normalize(&q.text);
            if !n.is_empty() {
                let next = quote_ids.len();
                quote_ids.entry(n).or_insert(next);
            }
        }
    }
    let mut whole: Option<Vec<Vec<LineRange>>> = None;
    let mut search_whole = || -> Vec<Vec<LineRange>> {
        let norm = NormalizedSource::new(&text);
        let mut patterns = vec![""; quote_ids.len()];
        for (q, &i) in &quote_ids {
            patterns[i] = q.as_str();
        }
        find_all(&norm, &patterns)
    };
    let mut parsed: Option<Option<Symbols>> = None;

    let mut out = Vec::with_capacity(cites.len());
    for item in cites {
        let c = item.0;
        let s = subject(item);
        let citation = s.citation;
        let mut result = outcome(c, Vec::new());
        if let Some(range) = citation.lines {
            if let Some(f) = invented_lines::check_extent(&s, range, line_count) {
                result.findings.push(f);
                out.push(result);
                continue;
            }
            result
                .findings
                .extend(overbroad_span::check(&s, range, max_span_lines));
        }
        let (start, end) = match citation.lines {
            Some(r) => (r.start as usize, r.end as usize),
            None => (1, line_count.max(1)),
        };
        let span_text = lines.slice(&text, start, end);
        // Where the cited content is: the cited lines without blank lines at either end, which
        // normalisation drops (a match of the content never covers them).
        let blank = |l: &usize| lines.slice(&text, *l, *l).trim().is_empty();
        let first = (start..=end).find(|l| !blank(l));
        let last = (start..=end).rev().find(|l| !blank(l));
        // What the cited content is only matters when it will be compared with another revision.
        let kept = |lines: Option<LineRange>| lines.filter(|_| compare);
        let mut held = Held {
            content: kept(citation.lines)
                .map(|_| normalize(span_text))
                .filter(|c| !c.is_empty()),
            anchor: kept(citation.lines)
                .and(first.zip(last))
                .map(|(f, l)| LineRange::new(f as i64, l as i64)),
            lines_text: kept(citation.lines).map(|_| span_text.to_string()),
        };
        let mut holds = true;
        if let Some(q) = &citation.quote {
            let n = normalize(&q.text);
            if let Some(&id) = quote_ids.get(&n) {
                let in_window = citation.lines.and_then(|_| {
                    let window = NormalizedSource::new(span_text);
                    let first = find_all(&window, &[n.as_str()]).pop()?.first().copied()?;
                    let shift = start as i64 - 1;
                    Some(LineRange::new(first.start + shift, first.end + shift))
                });
                let found: &[LineRange] = match &in_window {
                    Some(hit) => std::slice::from_ref(hit),
                    None => &whole.get_or_insert_with(&mut search_whole)[id],
                };
                match unsupported_quote::check(&s, citation.lines, found) {
                    Some(mut f) => {
                        holds = false;
                        f.evidence = Some(evidence(&text, &lines, start, end));
                        if found.is_empty() {
                            result.lost_quote = Some(n);
                        }
                        result.findings.push(f);
                    }
                    None => {
                        let inside = citation.lines.unwrap_or(LineRange::new(1, i64::MAX));
                        held.anchor = found.iter().find(|f| inside.contains(f)).copied();
                        held.content = Some(n);
                    }
                }
            }
        }
        if holds {
            result.held = Some(held);
        }
        let kinds = claim_kinds(docs, c);
        if !kinds.is_empty() {
            let span_norm = normalize(span_text);
            let support = kinds
                .iter()
                .map(|kind| match kind {
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
                })
                .collect();
            result.support = Some(support);
        }
        out.push(result);
    }
    out
}

/// The cited lines, at most `EVIDENCE_LINES` of them.
pub fn evidence(text: &str, lines: &LineIndex, start: usize, end: usize) -> String {
    let shown_end = end.min(start + EVIDENCE_LINES - 1);
    let mut e = lines.slice(text, start, shown_end).to_string();
    if shown_end < end {
        e.push_str("\n…");
    }
    e
}

fn claim_kinds(docs: &[AuditedDoc], c: CiteRef) -> &[Option<LiteralKind>] {
    let d = &docs[c.doc];
    match d.citation(c.index).claim {
        Some(claim) => &d.literal_kinds[claim],
        None => &[],
    }
}

/// For quotes found nowhere in their own file: the first other file at `commit`, with the same
/// extension as the cited one, that holds each (text blobs up to 1 MiB, one automaton for all the
/// quotes). The audited docs are skipped: a quote is always found in the doc that quotes it.
pub fn find_quotes_elsewhere(
    repo: &CodeRepo,
    commit: Oid,
    quotes: &[String],
    extension: Option<&str>,
    skip: &std::collections::HashSet<&str>,
) -> Vec<Option<String>> {
    let Ok(ac) = AhoCorasick::new(quotes) else {
        return vec![None; quotes.len()];
    };
    // Normalisation only touches whitespace, so each quote's longest word occurs verbatim in any
    // file that holds the quote: files holding none of them are not normalised at all.
    let words: Vec<&str> = quotes
        .iter()
        .map(|q| q.split(' ').max_by_key(|w| w.len()).unwrap_or(q))
        .collect();
    let Ok(prefilter) = AhoCorasick::new(&words) else {
        return vec![None; quotes.len()];
    };
    let paths = repo.paths_at(&repo.worker(), commit);
    let ext = |p: &str| p.rsplit_once('.').map(|(_, e)| e.to_string());
    // A quote is looked for in files of the cited file's language only, in parallel; the first
    // file in path order wins, whatever the thread count.
    let hits: Vec<(usize, usize)> = paths
        .paths
        .par_iter()
        .enumerate()
        .filter(|(_, p)| !skip.contains(p.as_str()) && ext(p).as_deref() == extension)
        .map_init(
            || repo.worker(),
            |git, (i, path)| {
                let Ok(FileAt::Text(text)) = repo.file_at(git, commit, path) else {
                    return Vec::new();
                };
                if text.len() > 1 << 20 || !prefilter.is_match(text.as_bytes()) {
                    return Vec::new();
                }
                let norm = normalize(&text);
                ac.find_overlapping_iter(&norm)
                    .map(|m| (m.pattern().as_usize(), i))
                    .collect()
            },
        )
        .flatten()
        .collect();
    let mut first: Vec<Option<usize>> = vec![None; quotes.len()];
    for (quote, i) in hits {
        let slot = &mut first[quote];
        *slot = Some(slot.map_or(i, |best| best.min(i)));
    }
    first
        .into_iter()
        .map(|f| f.map(|i| paths.paths[i].clone()))
        .collect()
}
