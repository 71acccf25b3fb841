//! Doc pins move with their citations. Every citation under a doc's pin (front matter
//! `citegate: {rev}`, or an answer's `revision`) is compared with the target like any pinned one;
//! when some moved and every one of them either holds as it is or was found again exactly and
//! uniquely, one atomic edit re-cites the moved ones and moves the pin to the target. Otherwise
//! nothing changes and the citations that block it are named: re-pinning by hand would make every
//! moved citation look valid.

use std::collections::{BTreeMap, HashMap};

use git2::Oid;

use crate::check::stale::StaleVerdict;
use crate::check::CiteFacts;
use crate::fix::{self, Relocation};
use crate::model::{
    AnswerId, Applicability, AuditedDoc, CiteRef, DocId, DocList, Edit, PinMove, PinSource, Span,
};

/// Where a doc pin is: its doc and, for an answer's `revision`, the answer.
type PinKey = (DocId, Option<AnswerId>);

/// The pin moves of every doc pin under which some citation moved.
pub fn moves(
    docs: &[AuditedDoc],
    facts: &[CiteFacts],
    verdicts: &HashMap<CiteRef, &StaleVerdict>,
    target: Oid,
) -> Vec<PinMove> {
    let facts_of: HashMap<CiteRef, &CiteFacts> = facts.iter().map(|f| (f.cite, f)).collect();
    let mut under: BTreeMap<PinKey, Vec<CiteRef>> = BTreeMap::new();
    for (doc, d) in docs.enumerated() {
        for (index, c) in d.extracted.citations.enumerated() {
            let answer_pin = c.answer.filter(|a| d.extracted.answers[*a].pin.is_some());
            let doc_pin = answer_pin.is_some() || d.extracted.doc_pin.is_some();
            if c.pin.is_none() && doc_pin {
                under
                    .entry((doc, answer_pin))
                    .or_default()
                    .push(CiteRef { doc, index });
            }
        }
    }
    under
        .into_iter()
        .filter_map(|(key, cites)| plan_move(docs, key, &cites, &facts_of, verdicts, target))
        .collect()
}

/// The move of one doc pin, or `None` when nothing under it needs one.
fn plan_move(
    docs: &[AuditedDoc],
    (doc, answer): PinKey,
    cites: &[CiteRef],
    facts_of: &HashMap<CiteRef, &CiteFacts>,
    verdicts: &HashMap<CiteRef, &StaleVerdict>,
    target: Oid,
) -> Option<PinMove> {
    let d = &docs[doc];
    let mut moves = Vec::new();
    let mut blocked_by = Vec::new();
    for cite in cites {
        let citation = d.citation(cite.index);
        let label = citation.label();
        let Some(facts) = facts_of.get(cite) else {
            blocked_by.push(format!("`{label}` (not checked: see its finding)"));
            continue;
        };
        if facts.pin != PinSource::Doc || facts.commit == target {
            return None; // The pin is the target already.
        }
        if !facts.holds {
            blocked_by.push(format!("`{label}` (does not hold at the pin)"));
            continue;
        }
        let to = match verdicts.get(cite) {
            None | Some(StaleVerdict::Holds) => continue,
            Some(StaleVerdict::Moved { to }) => Relocation {
                lines: Some(*to),
                ..Relocation::default()
            },
            Some(StaleVerdict::Renamed { path, to }) => Relocation {
                path: Some(path.clone()),
                lines: *to,
                rev: None,
            },
            Some(other) => {
                blocked_by.push(format!("`{label}` ({})", why(other)));
                continue;
            }
        };
        match fix::build(
            &d.doc.text,
            citation,
            PinSource::Doc,
            &to,
            Applicability::Safe,
        ) {
            Some(mut fix) => {
                fix.cite = Some(cite.index);
                moves.push(fix)
            }
            None => blocked_by.push(format!("`{label}` (its syntax cannot be rewritten)")),
        }
    }
    if moves.is_empty() {
        return None;
    }
    let span = match answer {
        Some(a) => d.extracted.answers[a].pin_span,
        None => d.extracted.doc_pin_span,
    };
    let mut pin = None;
    let to = match span {
        Some(span) => {
            let (edit, written) = pin_edit(span, target);
            pin = Some(edit);
            written
        }
        None => {
            blocked_by.push("the pin itself (its place in the doc is unknown)".to_string());
            target.to_string()
        }
    };
    if !blocked_by.is_empty() {
        moves.clear();
        pin = None;
    }
    Some(PinMove {
        doc,
        answer,
        to,
        moves,
        pin,
        blocked_by,
    })
}

/// The edit that writes `target` where the pin is, as long as the pin was written (8 to 40 hex
/// digits), and what it writes.
fn pin_edit(span: Span, target: Oid) -> (Edit, String) {
    let written = target.to_string()[..span.len().clamp(8, 40)].to_string();
    (Edit::new(span, written.clone()), written)
}

fn why(verdict: &StaleVerdict) -> &'static str {
    match verdict {
        StaleVerdict::Changed { .. } => "stale-changed: its content is gone",
        StaleVerdict::Deleted { .. } => "stale-deleted: its file is gone",
        StaleVerdict::Ambiguous { .. } => "stale-ambiguous: its content occurs several times",
        StaleVerdict::Holds | StaleVerdict::Moved { .. } | StaleVerdict::Renamed { .. } => "moved",
    }
}
