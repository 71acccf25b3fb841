//! The rules: one file each, holding the decision (a `check` over the facts that extraction and
//! [`crate::check`] gathered) and the finding's message and fix. The dispatch below, one method per
//! stage, is the one written statement of which rule runs when and of the precedence between
//! them. The stale family is decided by one classifier (`crate::check::stale::classify`); each
//! `stale-*` file turns its verdict into a finding. Catalogue entries (family, default severity,
//! summary, fix safety, explanation, examples) live in `rules/ID.yaml`, see [`crate::registry`].
//! One rule runs after all of these: `unused-suppression`, decided by the audit's suppression
//! stage once it knows what each suppression comment suppressed.

mod blank_span;
mod context;
mod dead_doc_anchor;
mod dead_doc_link;
mod foreign_citation;
mod history_cut;
mod invented_lines;
mod invented_path;
mod invented_revision;
mod malformed_doc;
mod not_a_file;
pub mod not_retrieved;
mod overbroad_span;
mod stale_ambiguous;
mod stale_changed;
mod stale_deleted;
mod stale_moved;
mod stale_renamed;
mod uncited_claim;
mod unsafe_path;
mod unsupported_literal;
mod unsupported_quote;
mod unsupported_source;
mod unused_source;
pub mod unused_suppression;

use git2::Oid;

use crate::check::stale::StaleVerdict;
use crate::check::CiteFacts;
use crate::model::{
    AuditedDoc, CitedPath, Claim, ClaimId, DocId, Finding, PinMove, Retrieved, Syntax,
};
use crate::registry::RuleId;
use crate::resolve::RevError;

pub use context::Subject;

/// The rules in force for a run: which rule is on for which doc (severity `off` turns it off, for
/// every doc or by path) and the thresholds. Findings of rules that are off are never made, and
/// the evidence only they need is not gathered.
pub struct Rules<'a> {
    /// Whether `rule` is on for the doc at this index.
    pub enabled: &'a (dyn Fn(RuleId, DocId) -> bool + Sync),
    /// `overbroad-span`'s threshold.
    pub max_span_lines: usize,
    /// The `origin` URL when it is a local path and `--repo-url` is not given: permalinks into
    /// other repositories cannot be told from this one's, and one that fails says so.
    pub local_origin: Option<&'a str>,
}

impl Rules<'_> {
    /// Whether `rule` is on for the doc `doc`.
    pub fn on(&self, rule: RuleId, doc: DocId) -> bool {
        (self.enabled)(rule, doc)
    }

    fn keep(&self, out: &mut Vec<Finding>, found: impl IntoIterator<Item = Finding>) {
        out.extend(found.into_iter().filter(|f| self.on(f.rule, f.doc)));
    }

    /// A permalink that names no file or no commit here while `origin` is a local path (a
    /// mirror, a CI cache) may point into another repository: its help says how to tell.
    fn unnamed_home(&self, s: &Subject<'_>, mut f: Finding) -> Finding {
        let Some(origin) = self.local_origin else {
            return f;
        };
        if s.citation.syntax != Syntax::Permalink {
            return f;
        }
        let hint = format!(
            "`origin` is a local path ({origin}), so a link into another repository cannot be told from one into this: pass --repo-url https://HOST/OWNER/REPO, this repository's address, and links elsewhere are foreign-citation notes"
        );
        f.help = Some(match f.help.take() {
            Some(h) => format!("{h}\n{hint}"),
            None => hint,
        });
        f
    }

    /// Rules on the doc itself, from what extraction found: parse problems, numbered sources,
    /// answers and claims without a usable citation.
    pub(crate) fn on_doc(&self, doc: DocId, d: &AuditedDoc, out: &mut Vec<Finding>) {
        let ext = &d.extracted;
        self.keep(out, malformed_doc::check(doc, ext));
        self.keep(out, unsupported_source::check(doc, &ext.sources));
        self.keep(out, unused_source::check(doc, &ext.sources));
        self.keep(out, uncited_claim::check(doc, ext));
    }

    /// `history-cut` on a doc whose citations `cut` resolve by line history the clone does not
    /// have (blame stops at `boundary`).
    pub(crate) fn on_history(
        &self,
        doc: DocId,
        d: &AuditedDoc,
        cut: &[crate::model::CiteId],
        boundary: Oid,
        shallow: bool,
        out: &mut Vec<Finding>,
    ) {
        self.keep(out, history_cut::check(doc, d, cut, boundary, shallow));
    }

    /// Rules on a citation before any blob is read, in precedence order: the first that fires
    /// ends the citation's checks (except `not-retrieved`, which only reports). Returns the
    /// revision and path to read when the citation goes on to [`Rules::at_blob`].
    ///
    /// Precedence: `foreign-citation` → `unsafe-path` → `invented-path` (no path at all) →
    /// `invented-revision` → `invented-lines` (a range impossible in any file) → `not-retrieved`.
    pub(crate) fn on_citation<'c>(
        &self,
        s: &Subject<'c>,
        pin: Option<&str>,
        commit: &Result<Oid, RevError>,
        retrieved: Option<&[Retrieved]>,
        out: &mut Vec<Finding>,
    ) -> Option<(Oid, &'c str)> {
        let blocking = [
            foreign_citation::check(s),
            unsafe_path::check(s),
            invented_path::check_no_path(s),
        ];
        if let Some(f) = blocking.into_iter().flatten().next() {
            self.keep(out, [f]);
            return None;
        }
        let CitedPath::Repo(path) = &s.citation.path else {
            return None;
        };
        if let Some(f) = invented_revision::check(s, pin.unwrap_or(""), commit) {
            self.keep(out, [self.unnamed_home(s, f)]);
            return None;
        }
        let shape = invented_lines::check_unreadable(s).or_else(|| {
            s.citation
                .lines
                .and_then(|r| invented_lines::check_shape(s, r))
        });
        if let Some(f) = shape {
            self.keep(out, [f]);
            return None;
        }
        if let Some(retrieved) = retrieved.filter(|_| self.on(RuleId::NotRetrieved, s.doc)) {
            self.keep(
                out,
                not_retrieved::check(s, path, s.citation.lines, retrieved),
            );
        }
        Some((*commit.as_ref().ok()?, path.as_str()))
    }

    /// Rules on a citation read at its revision, in precedence order: `invented-path` (no such
    /// file) → `not-a-file` → `invented-lines` (past the end) → `overbroad-span` (reports only) →
    /// `unsupported-quote` → `blank-span` (one finding for a citation: an unsupported quote on
    /// blank lines is not also reported blank).
    pub(crate) fn at_blob(&self, s: &Subject<'_>, facts: &CiteFacts, out: &mut Vec<Finding>) {
        let path = s.citation.repo_path().unwrap_or_default();
        if dead_doc_link::is_doc_link(s, path) {
            // A link to a doc cites no code: broken, it is hygiene, never an invented citation.
            return self.keep(out, dead_doc_link::check(s, path, &facts.file));
        }
        let file = [
            invented_path::check(s, path, &facts.file),
            not_a_file::check(s, path, &facts.file),
        ];
        if let Some(f) = file.into_iter().flatten().next() {
            return self.keep(out, [self.unnamed_home(s, f)]);
        }
        let crate::check::FileFacts::Text { line_count } = facts.file else {
            return;
        };
        if let Some(f) = invented_lines::check_include(s, line_count, facts.anchor_missing) {
            return self.keep(out, [f]);
        }
        if let Some(range) = s.citation.lines {
            if let Some(f) = invented_lines::check_extent(s, range, line_count) {
                return self.keep(out, [self.unnamed_home(s, f)]);
            }
            self.keep(out, overbroad_span::check(s, range, self.max_span_lines));
        }
        let quote = (facts.quote.as_ref())
            .and_then(|quote| unsupported_quote::check(s, quote, facts.evidence.as_deref()));
        if let Some(f) = quote {
            // A quote the blank span cannot hold says more than that the span is blank.
            return self.keep(out, [f]);
        }
        if let Some(range) = s.citation.lines {
            self.keep(out, blank_span::check(s, range, facts));
        }
    }

    /// The `stale-*` rules: each turns its variant of the stale classifier's verdict into a
    /// finding (a citation's verdict is one variant, so at most one fires).
    pub(crate) fn on_stale(
        &self,
        s: &Subject<'_>,
        target: Oid,
        verdict: &StaleVerdict,
        pin_move: Option<&PinMove>,
        out: &mut Vec<Finding>,
    ) {
        let found = [
            stale_moved::check(s, target, verdict, pin_move),
            stale_renamed::check(s, target, verdict, pin_move),
            stale_changed::check(s, target, verdict),
            stale_deleted::check(s, target, verdict),
            stale_ambiguous::check(s, target, verdict),
        ];
        self.keep(out, found.into_iter().flatten());
    }

    /// `dead-doc-anchor` on a link to a heading, from the anchors of the page it points into.
    pub(crate) fn on_anchor(
        &self,
        facts: &crate::check::anchors::AnchorFacts<'_>,
        out: &mut Vec<Finding>,
    ) {
        self.keep(out, dead_doc_anchor::check(facts));
    }

    /// `unsupported-literal` on a claim, from each of its citations' literal support.
    pub(crate) fn on_claim(
        &self,
        doc: DocId,
        claim: (ClaimId, &Claim),
        supports: &[&Vec<bool>],
        labels: &[String],
        out: &mut Vec<Finding>,
    ) {
        if self.on(RuleId::UnsupportedLiteral, doc) {
            self.keep(
                out,
                unsupported_literal::check(doc, claim, supports, labels),
            );
        }
    }
}
