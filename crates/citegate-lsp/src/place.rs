//! Where a citation's content is, from the audit's verdict on it: at the target when the audit
//! says it is there (where it was written, or where a fix, a re-pin or a pin move re-cites it),
//! else only at the revision the citation was written for. Go to definition opens one of the
//! two; code lenses stand only on the first, so a lens never sits on lines that no longer hold
//! what a doc cites.

use git2::Oid;

use citegate_engine::model::{CiteId, DocId, Finding, Fix, LineRange, Report};
use citegate_engine::registry::{Family, RuleId};

/// A file's lines at a revision (`lines: None`: the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Place {
    pub path: String,
    pub lines: Option<LineRange>,
    pub rev: Oid,
}

/// A citation of a report: its doc's index and its own.
#[derive(Clone, Copy)]
pub(super) struct Cite {
    pub doc: DocId,
    pub index: CiteId,
}

impl Cite {
    fn findings<'a>(&self, report: &'a Report) -> impl Iterator<Item = &'a Finding> + 'a {
        let Cite { doc, index } = *self;
        (report.findings.iter()).filter(move |f| f.doc == doc && f.cite == Some(index))
    }
}

/// A finding that says the cited lines, at the target, do not hold what the citation cites
/// (the content moved, changed or went; the path or lines never existed; the quote is not
/// there). Without one the audit found the content where the citation says.
fn displaces(f: &Finding) -> bool {
    matches!(f.rule.info().family, Family::Stale | Family::Invented)
        || matches!(f.rule, RuleId::UnsupportedQuote | RuleId::UnsafePath)
}

/// Where a fix re-cites the content: a `stale-*` fix at the target (its relocation was found
/// there), any other rule's at the revision its finding was judged at.
fn fixed(f: &Finding, fix: &Fix, target: Oid) -> Place {
    let rev = match f.rule.info().family {
        Family::Stale => target,
        _ => f.revision.unwrap_or(target),
    };
    place_of(fix, rev)
}

fn place_of(fix: &Fix, rev: Oid) -> Place {
    let lines = (fix.start_line >= 1).then_some(LineRange {
        start: fix.start_line,
        end: fix.end_line,
    });
    Place {
        path: fix.path.clone(),
        lines,
        rev,
    }
}

/// Where the audit found the cited content again, when a finding, a re-pin or a doc pin's move
/// carries a fix for it: the fix's path and lines.
pub(super) fn relocated(report: &Report, cite: Cite, target: Oid) -> Option<Place> {
    let by_finding = cite
        .findings(report)
        .find_map(|f| Some(fixed(f, f.fix.as_ref()?, target)));
    let ours = |fix: &&Fix| fix.cite == Some(cite.index);
    let repinned = || {
        (report.repins.iter())
            .filter(|(doc, _)| *doc == cite.doc)
            .map(|(_, fix)| fix)
            .find(ours)
    };
    let moved = || {
        (report.pin_moves.iter())
            .filter(|m| m.doc == cite.doc)
            .flat_map(|m| m.moves.iter())
            .find(ours)
    };
    by_finding.or_else(|| Some(place_of(repinned().or_else(moved)?, target)))
}

/// Where the cited content is at the target: relocated by a fix, else where it is cited when no
/// finding disputes that; `None` when it is not at the target (or not known to be).
pub(super) fn at_target(report: &Report, cite: Cite, target: Oid) -> Option<Place> {
    if let Some(place) = relocated(report, cite, target) {
        return (place.rev == target).then_some(place);
    }
    if cite.findings(report).any(displaces) {
        return None;
    }
    let c = report.docs[cite.doc].citation(cite.index);
    if c.foreign.is_some() {
        return None;
    }
    Some(Place {
        path: c.repo_path()?.to_string(),
        lines: c.lines,
        rev: target,
    })
}

/// The revision a finding that disputes the citation judged it at (the one it was written for:
/// its pin, or its implied pin).
pub(super) fn disputed_at(report: &Report, cite: Cite) -> Option<Oid> {
    cite.findings(report)
        .filter(|f| displaces(f))
        .find_map(|f| f.revision)
}
