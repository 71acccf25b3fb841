//! Markdown docs: `fix`'s safe re-anchoring; offline, a failing citation whose content (its quote,
//! or its span's text at the revision it was read at) is found exactly once elsewhere at the
//! target is re-written there in its own syntax (`fix::edit::build`); with a model, the paragraphs
//! it rewrote. What none of them moves is listed as refused and left as written.

use std::collections::{BTreeMap, HashMap};

use git2::Oid;

use super::ground::{self, Located};
use super::outcome::{Decision, Moved, Outcome, Place, Reason, Refusal, Rewritten};
use super::paragraph::{self, Rewrite};
use citegate_engine::fix::{self, Relocation};
use citegate_engine::gate::{self, Gate};
use citegate_engine::model::{
    Applicability, Citation, CiteId, DocId, DocKind, Edit, Finding, Fix, LineRange, PinSource,
    Report, Span,
};
use citegate_engine::registry::RuleId;
use citegate_engine::resolve::CodeRepo;

/// A failing Markdown citation that no safe fix moves, with what it cited.
pub(super) struct Failing<'r> {
    pub doc: DocId,
    pub index: CiteId,
    pub citation: &'r Citation,
    pub findings: Vec<&'r Finding>,
    pub contents: Vec<String>,
}

/// The failing citations of Markdown docs that no safe fix moves and that can move on their own
/// (not under a doc's front-matter pin), each with its contents to look for.
pub(super) fn failing<'r>(repo: &CodeRepo, report: &'r Report) -> Vec<Failing<'r>> {
    let mut out: Vec<Failing<'r>> = Vec::new();
    for f in &report.findings {
        let d = &report.docs[f.doc];
        if d.doc.kind != DocKind::Markdown || !gate::wrong(f.rule, f.severity) {
            continue;
        }
        let Some(index) = f.cite else {
            continue;
        };
        let citation = d.citation(index);
        if f.safe_fix().is_some() || (d.extracted.doc_pin.is_some() && citation.pin.is_none()) {
            continue;
        }
        match out.iter_mut().find(|x| x.doc == f.doc && x.index == index) {
            Some(x) => x.findings.push(f),
            None => out.push(Failing {
                doc: f.doc,
                index,
                citation,
                findings: vec![f],
                contents: Vec::new(),
            }),
        }
    }
    let git = repo.worker();
    for x in &mut out {
        let quote = x.citation.quote.as_ref().map(|q| q.text.as_str());
        x.contents = ground::contents(repo, &git, quote, &x.findings);
    }
    out
}

/// The edit of each failing citation whose content occurs exactly once at the target, by doc,
/// kept only when the moved citation passes the gate at the target.
pub(super) fn relocations(
    gate: &Gate,
    report: &Report,
    failing: &[Failing],
    located: &Located,
    target: Oid,
) -> BTreeMap<DocId, Vec<Fix>> {
    let mut out: BTreeMap<DocId, Vec<(Span, Fix)>> = BTreeMap::new();
    for x in failing {
        let Ok((path, lines)) = ground::relocate(&x.findings, None, &x.contents, located) else {
            continue;
        };
        let pin = match x.citation.pin {
            Some(_) => PinSource::Citation,
            None => PinSource::Target,
        };
        let to = Relocation {
            path: Some(path),
            lines: Some(lines),
            rev: (pin == PinSource::Citation).then_some(target),
        };
        let text = &report.docs[x.doc].doc.text;
        if let Some(mut fix) = fix::edit::build(text, x.citation, pin, &to, Applicability::Safe) {
            fix.cite = Some(x.index);
            out.entry(x.doc).or_default().push((x.citation.span, fix));
        }
    }
    out.into_iter()
        .map(|(doc, moves)| (doc, gated(gate, report, doc, moves)))
        .filter(|(_, fixes)| !fixes.is_empty())
        .collect()
}

/// The moves of one doc whose citation, moved, passes the gate: the doc with every move applied
/// is checked in memory at the target, and a move is kept when no failing finding lies in its
/// citation's new span.
fn gated(gate: &Gate, report: &Report, doc: DocId, mut moves: Vec<(Span, Fix)>) -> Vec<Fix> {
    moves.sort_by_key(|(_, f)| f.edit.byte_start);
    let d = &report.docs[doc].doc;
    let edits: Vec<&Edit> = moves.iter().map(|(_, f)| &f.edit).collect();
    let cites: Vec<Span> = moves.iter().map(|(cite, _)| *cite).collect();
    let (text, _, spans) = fix::apply_spans(&d.text, &edits, &cites);
    let moved = gate.in_memory(&d.name, DocKind::Markdown, text);
    let (failing, moved) = gate.failing(moved);
    // A move fails when a finding is about its citation, or about the claim (sentence) it
    // supports: a literal of the sentence not in the new span. The moved doc is read anew: its
    // citation is the one the edit wrote, where the edit wrote it.
    let passes = |span: Span| {
        let Some((id, c)) = moved
            .extracted
            .citations
            .enumerated()
            .find(|(_, c)| c.span == span)
        else {
            return false; // The moved text no longer reads as that citation.
        };
        !failing.iter().any(|f| {
            let literal = f.rule == RuleId::UnsupportedLiteral;
            f.cite == Some(id) || (literal && c.claim.is_some() && f.claim == c.claim)
        })
    };
    moves
        .into_iter()
        .zip(spans)
        .filter(|(_, span)| passes(*span))
        .map(|((_, fix), _)| fix)
        .collect()
}

/// The Markdown docs rewritten (safe fixes, relocations, then the model's paragraphs, which win
/// over the edits inside them) and an outcome per failing citation.
pub(super) fn docs(
    report: &Report,
    relocated: &BTreeMap<DocId, Vec<Fix>>,
    rewrites: &[Rewrite],
) -> (Vec<Rewritten>, Vec<Outcome>) {
    let is_md = |d: DocId| report.docs[d].doc.kind == DocKind::Markdown;
    let mut rewritten: BTreeMap<DocId, Vec<Edit>> = BTreeMap::new();
    for r in rewrites {
        if let Some(text) = &r.text {
            let edit = Edit::new(r.span, text.clone());
            rewritten.entry(r.doc).or_default().push(edit);
        }
    }
    // Relocations are fixes of their own citations: on a line they share with a citation that
    // stays failing, they are held back like the audit's own.
    let mut first: BTreeMap<DocId, Vec<fix::First>> = BTreeMap::new();
    for (doc, edits) in &rewritten {
        let edits = edits.iter().cloned().map(fix::First::Edit);
        first.entry(*doc).or_default().extend(edits);
    }
    for (doc, fixes) in relocated {
        let taken = rewritten.get(doc).map(Vec::as_slice).unwrap_or_default();
        let free = |f: &&Fix| !taken.iter().any(|t| t.overlaps(&f.edit));
        let entry = first.entry(*doc).or_default();
        entry.extend(fixes.iter().filter(free).cloned().map(fix::First::Fix));
    }
    let plan = fix::plan_with(report, false, &first);
    let docs = plan
        .docs
        .into_iter()
        .filter(|f| is_md(f.doc))
        .map(|f| {
            let doc = &report.docs[f.doc].doc;
            Rewritten {
                name: doc.name.clone(),
                fs_path: doc.fs_path.clone(),
                before: doc.text.clone(),
                after: f.after,
            }
        })
        .collect();
    let mut outcomes: Vec<Outcome> = Vec::new();
    // One outcome per citation (by its ID); a finding about no citation (a literal) by place.
    let mut seen = HashMap::new();
    for f in &report.findings {
        let place = f.cite.is_none().then_some((f.span, f.lines));
        if !is_md(f.doc) || !gate::wrong(f.rule, f.severity) {
            continue;
        }
        if let Some(&i) = seen.get(&(f.doc, f.cite, place)) {
            let o: &mut Outcome = &mut outcomes[i];
            o.findings.push(f.at.fingerprint.clone());
            continue;
        }
        seen.insert((f.doc, f.cite, place), outcomes.len());
        // Citations may share a span (`[a.js:64, 84]()` is two): the move is this citation's.
        let d = &report.docs[f.doc];
        let index = f.cite;
        // Content found again, but the citation cannot move without its doc's pin.
        let under_doc_pin = index.is_some_and(|i| d.pin_of(i).1 == PinSource::Doc)
            && matches!(f.rule, RuleId::StaleMoved | RuleId::StaleRenamed);
        let moved = (relocated.get(&f.doc).into_iter().flatten())
            .find(|x| index.is_some() && x.cite == index);
        let fix = f.safe_fix().or(moved);
        let blocked = |start: usize, end: usize| {
            (plan.blocked.iter())
                .any(|(d, b)| *d == f.doc && (b.edit.byte_start, b.edit.byte_end) == (start, end))
        };
        // A rewritten paragraph held back is not written: no re-grounding, like a held move.
        let rewrite = paragraph::rewritten(rewrites, f);
        let rewrite_held =
            rewrite.is_some_and(|r| r.text.is_some() && blocked(r.span.start, r.span.end));
        let fix_held = fix.is_some_and(|x| blocked(x.edit.byte_start, x.edit.byte_end));
        let held = fix_held || rewrite_held;
        let by = Moves {
            rewrite: rewrite.filter(|_| !rewrite_held),
            fix: fix.filter(|_| !held),
        };
        let mut o = outcome(report, f, by);
        if let Decision::Refused(r) = &mut o.decision {
            if held {
                r.reason = Reason::Blocked;
                r.why = "a citation on the same line stays failing: editing the line would hide it"
                    .into();
            } else if under_doc_pin && r.reason == Reason::NotRegrounded {
                r.reason = Reason::DocPin;
                r.why = format!(
                    "{}: {}; the doc's pin (`citegate: {{rev}}` in its front matter) holds this \
                     citation: it moves only with the pin and all its citations (`citegate fix`)",
                    f.rule, f.message
                );
            }
        }
        outcomes.push(o);
    }
    (docs, outcomes)
}

/// What moved a finding's citation, if anything.
struct Moves<'a> {
    rewrite: Option<&'a Rewrite>,
    fix: Option<&'a Fix>,
}

fn outcome(report: &Report, f: &Finding, by: Moves) -> Outcome {
    let name = &report.docs[f.doc].doc.name;
    let cited = match (&f.path, f.lines) {
        (Some(p), Some(l)) => format!("{p}:{l}"),
        (Some(p), None) => p.clone(),
        _ => f.at.snippet.clone(),
    };
    // Offline, prose is never rewritten; a paragraph the model failed to rewrite stays too.
    let decision = match (by.rewrite, by.fix) {
        (Some(r), _) if r.text.is_some() => Decision::Regrounded {
            moved: Vec::new(),
            model: Some(r.citations.clone()),
        },
        (_, Some(x)) => Decision::Regrounded {
            moved: vec![Moved {
                from: cited,
                to: match x.start_line {
                    // A whole-file citation moves to a whole file: never `path:0`.
                    0 => x.path.clone(),
                    _ => format!("{}:{}", x.path, LineRange::new(x.start_line, x.end_line)),
                },
            }],
            model: None,
        },
        (Some(r), None) => {
            let why = match &r.error {
                Some(e) => format!("the model gave no answer: {e}"),
                None => format!(
                    "{}: {}; the model's rewrite failed the gate",
                    f.rule, f.message
                ),
            };
            Decision::Refused(Refusal {
                violations: r.violations.clone(),
                ..Refusal::new(Reason::NoSpanInRetrieval, why).left()
            })
        }
        (None, None) => {
            let why = format!("{}: {}", f.rule, f.message);
            Decision::Refused(Refusal::new(Reason::NotRegrounded, why).left())
        }
    };
    let mut o = Outcome::new(Place::line(name, f.at.line), decision);
    o.findings.push(f.at.fingerprint.clone());
    o
}
