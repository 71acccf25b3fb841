//! What extraction found in one doc: citations, claims, answers, source lists and the problems that
//! kept parts of the doc from being read. Facts only: no rule decides anything here.

use std::ops::{Index, IndexMut};

use super::citation::{Citation, LineRange, PinSource};
use super::doc::Doc;
use super::ids::{AnswerId, CiteId, ClaimId, DocId, IndexVec};
use super::span::Span;
use crate::registry::RuleId;

/// A retrieved chunk: a path and the lines a retriever returned (a JSON answer's `retrieved`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieved {
    /// The chunk's file, as the answer's `retrieved` names it.
    pub path: String,
    /// The lines of the file the retriever returned.
    pub lines: LineRange,
}

/// What an answer's `refuse` says (read by `answer::refuse_of`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Refuse {
    /// No `refuse`, or `null`/`false`.
    #[default]
    Absent,
    /// `{reason: one of answer::REFUSAL_REASONS, …}`.
    Valid,
    /// Anything else (`{}`, `true`, an unknown reason): not a refusal.
    Invalid,
}

/// One JSON answer: the pin and retrieval payload its citations share.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    /// The whole answer object in the doc.
    pub span: Span,
    /// The answer's `revision`, and where its value is written (inside the quotes).
    pub pin: Option<String>,
    /// Where the `revision`'s value is written (inside its quotes): what a pin move rewrites.
    pub pin_span: Option<Span>,
    /// The chunks its `retrieved` lists; `None` when it has none, empty when the list cannot be
    /// read (then nothing counts as retrieved).
    pub retrieved: Option<Vec<Retrieved>>,
    /// The answer refuses: a valid `refuse` with nothing cited, or only open questions
    /// (`answer::refuses`).
    pub refused: bool,
    /// What its `refuse` says, valid or not, so that no message says an answer has no refusal
    /// when it wrote one.
    pub refuse: Refuse,
    /// At least one of its citation objects could be read as a citation.
    pub cited: bool,
    /// What its claims rest on, as the extractor found them: `regenerate` rewrites the answer
    /// through these, never by finding its findings again by span.
    pub units: Vec<AnswerUnit>,
}

/// A claim of a JSON answer and the citation objects it rests on; for a `{summary, citations}`
/// answer, the answer itself (its summary) and its `citations`.
#[derive(Debug, Clone)]
pub struct AnswerUnit {
    /// The claim's index in the answer's `claims`; `None`: the answer itself.
    pub claim_at: Option<u32>,
    /// The claim it stands for: its literals and the citations read from its objects.
    pub claim: ClaimId,
    /// Its citation objects, in the order written.
    pub objects: Vec<AnswerObject>,
}

impl AnswerUnit {
    /// Where the claim is in the answer, as a JSON pointer (`/claims/2`); `None`: the answer.
    pub fn pointer(&self) -> Option<String> {
        self.claim_at.map(|j| format!("/claims/{j}"))
    }
}

/// One citation object of an answer (or a claim that carries its own path and lines).
#[derive(Debug, Clone)]
pub struct AnswerObject {
    /// Where the object is in the answer.
    pub at: ObjectAt,
    /// The citation read from it; `None` when it gives none (no path, no line range).
    pub cite: Option<CiteId>,
}

/// Where a citation object is in its answer (kept as indices: most are never written back).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectAt {
    /// `citations[i]`.
    Citation(u32),
    /// `claims[j]`, a claim carrying its own path and lines.
    Claim(u32),
    /// `claims[j].citations[k]`.
    ClaimCitation(u32, u32),
}

impl AnswerObject {
    /// Where it is in the answer, as a JSON pointer (`/citations/0`, `/claims/2/citations/1`).
    pub fn pointer(&self) -> String {
        match self.at {
            ObjectAt::Citation(i) => format!("/citations/{i}"),
            ObjectAt::Claim(j) => format!("/claims/{j}"),
            ObjectAt::ClaimCitation(j, k) => format!("/claims/{j}/citations/{k}"),
        }
    }
}

/// A problem that kept (part of) a doc from being read: broken JSON or YAML, invalid UTF-8, a
/// binary or oversized file. Located where the parser stopped.
#[derive(Debug, Clone)]
pub struct DocProblem {
    /// The rule its finding is reported under (`malformed-doc`).
    pub rule: RuleId,
    /// Where the parser stopped, or the part of the doc that could not be read.
    pub span: Span,
    /// What is wrong, as the finding's message says it.
    pub message: String,
    /// What to do about it, when there is more to say.
    pub help: Option<String>,
}

/// Why a JSON citation object (or claim) gives no usable citation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unusable {
    /// It is not a JSON object (a string, a number, a list).
    NotAnObject,
    /// It has no `path` string.
    NoPath,
    /// It has no start line (`startLine`/`start_line`).
    NoLines,
    /// A claim whose `citations` list is empty.
    CitesNothing,
    /// A `{summary, citations}` citation without a non-blank `quote` (still checked otherwise).
    NoQuote,
}

/// A JSON citation object or claim that gives no usable citation.
#[derive(Debug, Clone)]
pub struct UnusableCitation {
    /// The object (or claim) in the doc.
    pub span: Span,
    /// What the object is, as users call it ("citation", "claim", "claim citation").
    pub what: &'static str,
    /// Why it gives no usable citation.
    pub why: Unusable,
    /// The answer and claim it is in, and the citation read from it anyway (an object without
    /// its `quote` is still checked for what it cites).
    pub answer: AnswerId,
    /// The claim it belongs to (for a `{summary, citations}` answer, the summary).
    pub claim: ClaimId,
    /// The citation read from it anyway; `None` when it gives none.
    pub cite: Option<CiteId>,
}

/// A `[n] path (52%)` entry of a `Sources:` list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceEntry {
    /// The `n` of `[n]`: what markers cite it by.
    pub number: u32,
    /// The whole entry line.
    pub line_span: Span,
    /// Which `Sources:` list of the doc it is in (0 for the first).
    pub list: usize,
}

/// A numbered marker `[n]` in prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    /// The `n` of `[n]`: the source entry it cites.
    pub number: u32,
    /// The marker in the prose, brackets included.
    pub span: Span,
    /// The list it refers to: the next one after it in its section.
    pub list: usize,
}

/// A doc's numbered markers and its `Sources:` list entries.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    /// Every `[n] path` entry of the doc's `Sources:` lists, in doc order.
    pub entries: Vec<SourceEntry>,
    /// Every numbered marker in the doc's prose, in doc order.
    pub markers: Vec<Marker>,
}

/// Everything extracted from one doc.
#[derive(Debug, Clone, Default)]
pub struct Extracted {
    /// Every citation of the doc, in the order extraction found them.
    pub citations: IndexVec<CiteId, Citation>,
    /// The claims (sentences, list items, JSON claims) that hold citations or code literals.
    pub claims: IndexVec<ClaimId, super::citation::Claim>,
    /// The JSON answers of the doc (none for Markdown).
    pub answers: IndexVec<AnswerId, Answer>,
    /// A whole-doc pin from front matter (`citegate: {rev: REV}`), and where its value is written.
    pub doc_pin: Option<String>,
    /// Where the front matter's pin value is written: what a pin move rewrites.
    pub doc_pin_span: Option<Span>,
    /// What kept parts of the doc from being read, each a `malformed-doc` finding.
    pub problems: Vec<DocProblem>,
    /// JSON citation objects and claims that give no usable citation.
    pub unusable: Vec<UnusableCitation>,
    /// The doc's numbered markers and `Sources:` lists.
    pub sources: Sources,
    /// The doc is valid JSON but not an answer (package.json…): skipped, counted in the summary.
    pub skipped: bool,
    /// Approximate line references in prose ("around line 80", "line ~883"): not citations,
    /// counted in the summary.
    pub approximate: usize,
    /// Suppression comments (`<!-- citegate-ignore RULE: reason -->`), in doc order.
    pub suppressions: Vec<InlineSuppression>,
    /// Links to a heading (`other.md#section`, `#section`, a permalink to a page with a
    /// fragment), in doc order: not citations, their anchors are checked by `dead-doc-anchor`.
    pub anchor_links: Vec<AnchorLink>,
}

/// A link to an anchor of a page: what page, and the fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorLink {
    /// The whole link in the doc.
    pub span: Span,
    /// The page the anchor is looked for in.
    pub page: AnchorPage,
    /// The fragment, percent-decoded (`section`, not `#section`).
    pub fragment: String,
    /// Where the fragment is written in the doc (after the `#`), when it is written verbatim:
    /// what a fix rewrites.
    pub fragment_span: Option<Span>,
}

/// The page an anchor link points into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnchorPage {
    /// `#section`: the linking doc itself, as it is read.
    Same,
    /// A relative link (`other.md#section`), repo-relative: the page as the audit reads docs
    /// (an audited doc's text, else the file at the target revision).
    Relative(String),
    /// A permalink into this repository (`…/blob/REV/docs/x.md#section`): the page at `rev`, as
    /// GitHub renders it.
    Permalink {
        /// The revision the permalink is pinned to, as written.
        rev: String,
        /// The page's repo-relative path.
        path: String,
    },
}

/// A suppression comment in a doc: the rules it names, the doc lines it covers, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineSuppression {
    /// The comment (for a block, its `citegate-disable` comment).
    pub span: Span,
    /// The rule IDs as written: one that names no rule is reported, never matched.
    pub rules: Vec<String>,
    /// The reason after the colon; `None` when there is none.
    pub reason: Option<String>,
    /// The doc lines it covers, 1-based and inclusive.
    pub lines: (usize, usize),
}

impl Extracted {
    /// Add the citations a later pass `found` (in-house patterns, include directives), dropping
    /// every citation read before inside one of them or inside a `covered` span: one place of a
    /// doc is one citation.
    pub(crate) fn supersede(&mut self, found: Vec<Citation>, covered: &[Span]) {
        self.retain_citations(|c| {
            !(found.iter().map(|d| &d.span))
                .chain(covered)
                .any(|d| d.contains(c.span))
        });
        self.citations.extend(found);
    }

    /// Keep only the citations `keep` accepts, and the claims' references to them.
    pub(crate) fn retain_citations(&mut self, keep: impl Fn(&Citation) -> bool) {
        let mut new_index = Vec::with_capacity(self.citations.len());
        let mut kept = 0;
        for c in &self.citations {
            new_index.push(keep(c).then(|| {
                kept += 1;
                CiteId::new(kept - 1)
            }));
        }
        if kept == self.citations.len() {
            return;
        }
        let mut i = 0;
        self.citations.retain(|_| {
            i += 1;
            new_index[i - 1].is_some()
        });
        for claim in &mut self.claims {
            claim.citations = claim
                .citations
                .iter()
                .filter_map(|&c| new_index[c.index()])
                .collect();
        }
    }

    /// Give back what the lists grew past their length: extraction pushes one at a time, and a
    /// batch of 80,000 answers kept about a third more than it held (measured with massif).
    pub fn shrink(&mut self) {
        self.citations.shrink_to_fit();
        self.claims.shrink_to_fit();
        for claim in &mut self.claims {
            claim.literals.shrink_to_fit();
            claim.citations.shrink_to_fit();
        }
        self.answers.shrink_to_fit();
        self.unusable.shrink_to_fit();
    }

    /// Record a problem that kept part of the doc from being read, reported as `rule` at `span`.
    pub fn problem(&mut self, rule: RuleId, span: Span, message: impl Into<String>) {
        self.problems.push(DocProblem {
            rule,
            span,
            message: message.into(),
            help: None,
        });
    }
}

/// A doc with what was extracted from it.
#[derive(Debug)]
pub struct AuditedDoc {
    /// The doc as read.
    pub doc: Doc,
    /// What was extracted from its text.
    pub extracted: Extracted,
}

impl AuditedDoc {
    /// The doc with what was extracted from it.
    pub fn new(doc: Doc, extracted: Extracted) -> Self {
        AuditedDoc { doc, extracted }
    }

    /// The doc's citation `index`.
    pub fn citation(&self, index: CiteId) -> &Citation {
        &self.extracted.citations[index]
    }

    /// A citation's own or doc-level pin, and where it came from.
    pub fn pin_of(&self, index: CiteId) -> (Option<&str>, PinSource) {
        let c = self.citation(index);
        if let Some(p) = c.pin.as_deref() {
            return (Some(p), PinSource::Citation);
        }
        let doc_pin = c
            .answer
            .and_then(|a| self.extracted.answers[a].pin.as_deref())
            .or(self.extracted.doc_pin.as_deref());
        match doc_pin {
            Some(p) => (Some(p), PinSource::Doc),
            None => (None, PinSource::Target),
        }
    }
}

/// The most citations one doc may hold (README "Limits"); extraction stops one past it.
pub const MAX_CITATIONS_PER_DOC: usize = 100_000;

/// A citation, by the doc it is in and its index there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CiteRef {
    /// The doc the citation is in.
    pub doc: DocId,
    /// The citation's index in its doc's citations.
    pub index: CiteId,
}

/// A run's docs are indexed by [`DocId`] (orphan rules allow these: the index type is ours).
impl Index<DocId> for [AuditedDoc] {
    type Output = AuditedDoc;
    fn index(&self, id: DocId) -> &AuditedDoc {
        &self[id.index()]
    }
}

impl Index<DocId> for Vec<AuditedDoc> {
    type Output = AuditedDoc;
    fn index(&self, id: DocId) -> &AuditedDoc {
        &self[id.index()]
    }
}

impl IndexMut<DocId> for Vec<AuditedDoc> {
    fn index_mut(&mut self, id: DocId) -> &mut AuditedDoc {
        &mut self[id.index()]
    }
}

/// A run's docs with their IDs: `docs.enumerated()` for `docs.iter().enumerate()`.
pub trait DocList {
    /// Each doc with its ID, in order.
    fn enumerated(&self) -> impl Iterator<Item = (DocId, &AuditedDoc)>;
}

impl DocList for [AuditedDoc] {
    fn enumerated(&self) -> impl Iterator<Item = (DocId, &AuditedDoc)> {
        self.iter().enumerate().map(|(i, d)| (DocId::new(i), d))
    }
}
