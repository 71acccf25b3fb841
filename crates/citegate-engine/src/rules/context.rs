//! What every rule needs to write a finding about a citation: the [`Subject`] (the citation, its
//! doc and the revision it was judged at), and the few helpers rule messages share.

use git2::Oid;

use crate::fix::{self, Relocation};
use crate::model::{
    Applicability, AuditedDoc, Citation, CiteId, CiteRef, DocId, Finding, Fix, PinMove, PinSource,
};
use crate::registry::RuleId;

/// A citation being judged, with what a finding about it needs.
pub struct Subject<'a> {
    /// The doc the citation is in.
    pub doc: DocId,
    /// The citation's index in its doc.
    pub index: CiteId,
    /// The doc's text, which a fix rewrites.
    pub doc_text: &'a str,
    /// The citation judged.
    pub citation: &'a Citation,
    /// The commit it was judged at; `None` when its pin names no commit.
    pub revision: Option<Oid>,
    /// Where its revision came from.
    pub pin: PinSource,
}

impl<'a> Subject<'a> {
    /// The citation `cite` judged at `revision`, whose pin came from `pin`.
    pub fn at(docs: &'a [AuditedDoc], cite: CiteRef, revision: Oid, pin: PinSource) -> Self {
        let d = &docs[cite.doc];
        Subject {
            doc: cite.doc,
            index: cite.index,
            doc_text: &d.doc.text,
            citation: d.citation(cite.index),
            revision: Some(revision),
            pin,
        }
    }

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
        f.revision = self.revision;
        f.cite = Some(self.index);
        f.answer = self.citation.answer;
        f.claim = self.citation.claim;
        f
    }

    pub(crate) fn short_rev(&self) -> String {
        match self.revision {
            Some(r) => short(r),
            None => "the revision".to_string(),
        }
    }

    /// Attach the fix that makes the citation cite `to`, when its syntax can say it safely. The
    /// content was found again, exactly and uniquely: the fix is safe.
    pub(crate) fn with_fix(&self, mut f: Finding, to: Relocation) -> Finding {
        f.fix = self.fix(&to, Applicability::Safe);
        f
    }

    /// A stale citation's finding with its fix to `to`, or, when there is none, the help saying
    /// why (the doc's pin, `pin_move`, moves only with all its citations).
    pub(crate) fn stale_fix(
        &self,
        f: Finding,
        to: Relocation,
        pin_move: Option<&PinMove>,
    ) -> Finding {
        let f = self.with_fix(f, to);
        match f.fix {
            Some(_) => f,
            None => f.help(no_fix_help(self, pin_move)),
        }
    }

    /// The fix that makes the citation cite `to`, when its syntax can say it; it names the
    /// citation it moves.
    pub fn fix(&self, to: &Relocation, applicability: Applicability) -> Option<Fix> {
        let mut fix = fix::build(self.doc_text, self.citation, self.pin, to, applicability)?;
        fix.cite = Some(self.index);
        Some(fix)
    }
}

/// Why a relocation found exactly and uniquely carries no fix of its own: a citation under a doc's
/// pin moves only together with that pin and every other citation under it (`pin_move`).
pub(super) fn no_fix_help(subject: &Subject<'_>, pin_move: Option<&PinMove>) -> String {
    match (subject.pin, pin_move) {
        (PinSource::Doc, Some(m)) if !m.blocked() => format!(
            "`citegate fix` re-cites it and moves the doc's pin to {} together with the doc's other citations, in one write",
            m.to
        ),
        (PinSource::Doc, Some(m)) => format!(
            "no fix: the doc's pin moves only with all its citations, and these cannot move: {}",
            m.blocked_by.join(", ")
        ),
        (PinSource::Doc, None) => {
            "no fix: the doc's pin moves only with all its citations".to_string()
        }
        _ => match fix::lines_held_by_text(subject.doc_text, subject.citation) {
            Some(lines) => format!(
                "no fix: the link text names {} in words that cannot be told apart from prose; \
                 rewrite the text and the link together",
                lines.named()
            ),
            None => "no fix: this citation's syntax cannot be rewritten in place".to_string(),
        },
    }
}

pub(super) use crate::model::report::short_id as short;

/// `f` with the closest existing paths as help ("did you mean …?"), when there are any.
pub(super) fn did_you_mean(f: Finding, suggestions: &[String]) -> Finding {
    match suggestions {
        [] => f,
        [one] => f.help(format!("did you mean `{one}`?")),
        many => f.help(format!(
            "did you mean one of {}?",
            many.iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}
