//! Every fix is re-checked before it is offered. A fix is built from one rule's evidence (the
//! quote found again, a generator's range convention, a rename, a doc pin's move), but what it
//! writes must pass *every* check at the target: an exclusive-end range fixed to the last line
//! whose quote is 15 lines up is not fixed, and a second `citegate fix` would move it again. So the
//! docs are rewritten in memory with their fixes and the citations the fixes wrote are audited
//! again, exactly as the next run would audit them (same settings, history included), and each
//! fix is judged by the findings on the citation it wrote:
//!
//! - none that says the citation is wrong: the fix is offered, as built;
//! - one, carrying a safe fix of its own: the two are composed into one edit of the original doc
//!   and re-checked in the next round (at most [`ROUNDS`] rounds);
//! - anything else: the fix is not offered, and the finding's help says what the re-check found
//!   (a doc pin's move is blocked, with the reason).
//!
//! A citation fixed by a rule other than the `stale-*` ones (a link written from the root, a
//! quote at other lines, a generator's range) keeps its implied pin in the re-check, not that of
//! a line just edited: otherwise editing the line would move its pin to the target and hide that
//! the code moved since it was written. Last, the fixes `fix` holds back (a citation on the
//! line stays failing) are marked held: no surface offers them.
//!
//! Every surface (the JSON report, SARIF, `fix`, the language server's quick fixes, the MCP
//! server, `regenerate`) takes its fixes from the report, so each offers only checked edits, and
//! `citegate fix` reaches its fixpoint in one run.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use git2::Oid;
use rayon::prelude::*;

use super::aside::drop_aside;
use super::history::Implied;
use super::load;
use super::settings::Settings;
use super::split::DOCS_PER_JOB;
use crate::model::{
    AuditedDoc, CiteId, CiteRef, DocId, DocKind, Edit, Extracted, Finding, Fix, PinSource, Report,
    Span, Summary,
};
use crate::registry::RuleId;
use crate::resolve::CodeRepo;

/// Rounds of re-checking: a fix, then at most two more composed onto it.
pub const ROUNDS: usize = 3;

/// Why a fix whose edit is not read back as a citation is not offered.
const UNREAD: &str = "what it writes is not read back as a citation";

/// What holds a fix in the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Holder {
    Finding(usize),
    Repin(usize),
    /// A doc pin's move: its citations' fixes and the pin's own edit, all or nothing.
    PinMove(usize),
}

/// A fix (or a pin move) being re-checked.
struct Slot {
    holder: Holder,
    doc: DocId,
    /// The fixes as they stand (one, or a pin move's citations).
    fixes: Vec<Fix>,
    /// A pin move's own edit.
    pin: Option<Edit>,
    /// Rounds left.
    rounds: usize,
    /// The implied pin of the citation it fixes, kept in the re-check (see [`found_at`]).
    at: Option<Oid>,
    /// Its doc is extracted whole (its window did not read back what the fix wrote).
    whole: bool,
    /// What the audit already reported on the citation it fixes (at its pin), besides the finding
    /// the fix is for: each finding's rule and, where it lies outside what the fix rewrites, the
    /// doc's text there (a literal of the claim). The same on what the fix wrote is an older
    /// problem left as it was, not one the fix makes.
    known: Vec<(RuleId, Option<String>)>,
}

impl Slot {
    fn edits(&self) -> impl Iterator<Item = &Edit> {
        self.fixes.iter().map(|f| &f.edit).chain(self.pin.iter())
    }
}

/// How a re-check ended for one slot.
enum Judged {
    /// It holds, leaving these older problems (see [`Slot::known`]) as they were.
    Holds(Vec<RuleId>),
    /// The fixes to re-check in the next round (composed with the second fix found), whether
    /// they are still at the older revision (`false`: the second was a `stale-*` fix, found at
    /// the target), and why the first did not hold.
    Again(Vec<Fix>, bool, String),
    /// Why it is not offered.
    Fails(String),
    /// What it wrote was not read back from the doc's window: check it in the whole doc.
    Unread,
}

/// What a re-check looks at: in the docs it names, only the citations the fixes wrote (a
/// doc pin's move is checked whole: every citation under the pin moves with it), with the
/// implied pins they keep (see `found_at`). The default checks everything.
#[derive(Debug, Default)]
pub struct Focus {
    /// `None`: every citation.
    pub only: Option<HashSet<CiteRef>>,
    /// Docs checked whole.
    pub whole: HashSet<DocId>,
    /// The implied pins the citations the fixes wrote keep: read where the audit checked them,
    /// not blamed again.
    pub kept: HashMap<CiteRef, Implied>,
}

impl Focus {
    /// Whether `cite` is checked.
    pub fn wants(&self, cite: CiteRef) -> bool {
        match &self.only {
            None => true,
            Some(only) => only.contains(&cite) || self.whole.contains(&cite.doc),
        }
    }

    /// Look at what `slots` wrote in the rewritten doc `again` (at index `doc` of the batch):
    /// the citations each fix wrote, keeping their implied pins (see [`found_at`]); a doc
    /// pin's move, the whole doc.
    fn add(&mut self, doc: DocId, again: &AuditedDoc, slots: &[Slot], outputs: &[Span]) {
        let (mut at, places) = (0, ByPlace::of(&again.extracted));
        for slot in slots {
            let n = slot.edits().count();
            if matches!(slot.holder, Holder::PinMove(_)) {
                self.whole.insert(doc);
            }
            for &o in &outputs[at..at + slot.fixes.len()] {
                for index in places.written(o) {
                    let cite = CiteRef { doc, index };
                    self.only.get_or_insert_with(HashSet::new).insert(cite);
                    let unpinned = again.pin_of(index).1 == PinSource::Target;
                    if let Some(pin) = slot.at.filter(|_| unpinned) {
                        let kept = Implied {
                            pin,
                            line_commit: pin,
                        };
                        self.kept.insert(cite, kept);
                    }
                }
            }
            at += n;
        }
    }
}

/// Audit docs without re-checking their fixes (the audit's own stages), looking at a [`Focus`].
pub(crate) type Recheck<'a> = dyn Fn(Vec<AuditedDoc>, &Settings, &Focus) -> Report + 'a;

/// Re-check every fix of `report` (see the module docs) and keep only those that hold.
pub fn fixes(repo: &CodeRepo, settings: &Settings, report: &mut Report, recheck: &Recheck<'_>) {
    let mut pending = slots(report);
    if pending.is_empty() {
        return;
    }
    // The next run's settings, silent, without the help-only search for lost quotes and the
    // re-pins (a re-check judges the citations written, and offers nothing of its own).
    let quiet = Settings {
        quote_hints: false,
        repins: false,
        progress: Default::default(),
        ..settings.clone()
    };
    let ctx = quiet.extract_context(repo);
    let mut decided: Vec<(Slot, Verdict)> = Vec::new();
    while !pending.is_empty() {
        let (batch, later) = batch(pending);
        pending = later;
        // One rewritten text per doc of the batch, audited together.
        let mut by_doc: BTreeMap<DocId, Vec<Slot>> = BTreeMap::new();
        for s in batch {
            by_doc.entry(s.doc).or_default().push(s);
        }
        // Rewritten and extracted again in parallel (extraction is most of a doc's cost).
        let by_doc: Vec<(DocId, Vec<Slot>)> = by_doc.into_iter().collect();
        let again: Vec<(AuditedDoc, Vec<Span>)> = by_doc
            .par_iter()
            .with_max_len(DOCS_PER_JOB)
            .map(|(doc, slots)| {
                let d = &report.docs[*doc].doc;
                let edits: Vec<&Edit> = slots.iter().flat_map(Slot::edits).collect();
                let (text, outputs) = rewrite(&d.text, &edits);
                let text = match (d.kind, slots.iter().any(|s| s.whole)) {
                    // Only directives are read in reStructuredText and AsciiDoc: cheap whole.
                    (_, true) | (DocKind::Json | DocKind::Rst | DocKind::AsciiDoc, _) => text,
                    (DocKind::Markdown, false) => window(text, &outputs).unwrap_or_else(|t| t),
                    (DocKind::JsonLines, false) => answer_lines(text, &outputs),
                };
                (load::with_text(d, text, &ctx, &quiet.config), outputs)
            })
            .collect();
        let mut rewritten = Vec::with_capacity(by_doc.len());
        let mut docs = Vec::with_capacity(by_doc.len());
        let mut focus = Focus {
            only: Some(HashSet::new()),
            ..Focus::default()
        };
        for ((doc, slots), (again, outputs)) in by_doc.into_iter().zip(again) {
            focus.add(DocId::new(docs.len()), &again, &slots, &outputs);
            docs.push(again);
            rewritten.push((doc, slots, outputs));
        }
        let checked = recheck(docs, &quiet, &focus);
        let mut failing: BTreeMap<DocId, Vec<&Finding>> = BTreeMap::new();
        for f in (checked.findings.iter()).filter(|f| f.rule.says_wrong(f.severity)) {
            failing.entry(f.doc).or_default().push(f);
        }
        // Judged per doc in parallel; the verdicts are taken in the batch's order.
        let judged: Vec<Vec<(Slot, Judged)>> = (rewritten.into_par_iter().enumerate())
            .with_max_len(DOCS_PER_JOB)
            .map(|(k, (doc, slots, outputs))| {
                let after = &checked.docs[k];
                let failing = failing.get(&DocId::new(k)).map_or(&[][..], Vec::as_slice);
                let check = Rechecked {
                    before: &report.docs[doc].doc.text,
                    after,
                    places: ByPlace::of(&after.extracted),
                    on: on_citations(after, failing),
                    failing,
                };
                let mut at = 0;
                let judge = |slot: Slot| {
                    let n = slot.edits().count();
                    let judged = check.judge(&slot, &outputs[at..at + n]);
                    at += n;
                    (slot, judged)
                };
                slots.into_iter().map(judge).collect()
            })
            .collect();
        drop(failing);
        drop_aside(checked);
        settle(judged.into_iter().flatten(), &mut pending, &mut decided);
    }
    write_back(report, decided);
    hold(report);
}

/// Take each verdict of a round: decided, or pending again for the next round.
fn settle(
    judged: impl Iterator<Item = (Slot, Judged)>,
    pending: &mut Vec<Slot>,
    decided: &mut Vec<(Slot, Verdict)>,
) {
    for (mut slot, judged) in judged {
        match judged {
            Judged::Holds(left) => decided.push((slot, Ok(left))),
            Judged::Again(fixes, older, _) if slot.rounds > 1 => {
                slot.fixes = fixes;
                slot.at = slot.at.filter(|_| older);
                slot.rounds -= 1;
                pending.push(slot);
            }
            Judged::Unread if !slot.whole => {
                slot.whole = true;
                pending.push(slot);
            }
            Judged::Unread => decided.push((slot, Err(UNREAD.to_string()))),
            Judged::Again(_, _, why) | Judged::Fails(why) => decided.push((slot, Err(why))),
        }
    }
}

/// Mark the fixes `citegate fix` holds back (see [`crate::fix::plan`]): no surface offers them,
/// and their help says why.
fn hold(report: &mut Report) {
    let plan = crate::fix::plan(report, false);
    if plan.blocked.is_empty() {
        return;
    }
    let mut by_edit: HashMap<(DocId, usize), Vec<usize>> = HashMap::new();
    for (i, f) in report.findings.iter().enumerate() {
        if let Some(fix) = &f.fix {
            by_edit
                .entry((f.doc, fix.edit.byte_start))
                .or_default()
                .push(i);
        }
    }
    for (doc, held) in plan.blocked {
        let Some(fix) = held.fix else { continue };
        let candidates = by_edit
            .get(&(doc, fix.edit.byte_start))
            .into_iter()
            .flatten();
        let found = candidates
            .copied()
            .find(|&i| report.findings[i].fix.as_ref() == Some(&fix));
        if let Some(f) = found.map(|i| &mut report.findings[i]) {
            f.held = true;
            let note = "the fix is held back: a citation on this line stays failing, and editing the line would hide it from the next audit";
            f.help = Some(match f.help.take() {
                Some(help) => format!("{help}; {note}"),
                None => note.to_string(),
            });
        }
    }
}

/// Every fix of the report, as slots.
fn slots(report: &Report) -> Vec<Slot> {
    let one = |holder, doc, fix: &Fix| Slot {
        holder,
        doc,
        fixes: vec![fix.clone()],
        pin: None,
        rounds: ROUNDS,
        at: None,
        whole: false,
        known: Vec::new(),
    };
    let known = known(report);
    let findings = report.findings.iter().enumerate();
    let mut out: Vec<Slot> = findings
        // An anchor's fix writes an anchor its page was read to define, and no citation: there
        // is nothing to read back.
        .filter(|(_, f)| f.rule != RuleId::DeadDocAnchor)
        .filter_map(|(i, f)| {
            let mut slot = one(Holder::Finding(i), f.doc, f.fix.as_ref()?);
            slot.at = found_at(report, f);
            let on = f.cite.and_then(|c| known.get(&(f.doc, c)));
            let text = &report.docs[f.doc].doc.text;
            let edits: Vec<Span> = (slot.edits())
                .map(|e| Span::new(e.byte_start, e.byte_end))
                .collect();
            slot.known = (on.into_iter().flatten())
                .filter(|&&(rule, _)| rule != f.rule)
                .map(|&(rule, span)| (rule, outside(text, span, &edits)))
                .collect();
            Some(slot)
        })
        .collect();
    let repins = report.repins.iter().enumerate();
    out.extend(repins.map(|(i, (doc, fix))| one(Holder::Repin(i), *doc, fix)));
    let moves = report.pin_moves.iter().enumerate();
    out.extend(moves.filter(|(_, m)| !m.blocked()).map(|(i, m)| Slot {
        holder: Holder::PinMove(i),
        doc: m.doc,
        fixes: m.moves.clone(),
        pin: m.pin.clone(),
        rounds: 1,
        at: None,
        whole: false,
        known: Vec::new(),
    }));
    out
}

/// The findings on each citation, as rule and span: its own and those of the claims it supports.
fn known(report: &Report) -> HashMap<(DocId, CiteId), Vec<(RuleId, Span)>> {
    let mut on: HashMap<(DocId, CiteId), Vec<(RuleId, Span)>> = HashMap::new();
    for f in &report.findings {
        let claim = f
            .claim
            .map(|c| &report.docs[f.doc].extracted.claims[c].citations);
        for c in f.cite.iter().chain(claim.into_iter().flatten()) {
            on.entry((f.doc, *c)).or_default().push((f.rule, f.span));
        }
    }
    on
}

/// The doc's text at `span`, unless an edit (`edits`: spans of the same text) touches it.
fn outside(text: &str, span: Span, edits: &[Span]) -> Option<String> {
    let touched = edits
        .iter()
        .any(|e| e.start <= span.end && span.start <= e.end);
    (!touched)
        .then(|| text.get(span.start..span.end).map(str::to_string))
        .flatten()
}

/// The implied pin a fixed citation keeps in its re-check: its own, for a rule other than the
/// `stale-*` ones (whose fixes are found at the target). The re-check then judges it as the
/// audit judged the citation it replaces (at that pin, or at the target when it did not hold
/// there), not as a line just written.
fn found_at(report: &Report, f: &Finding) -> Option<Oid> {
    if f.rule.info().family == crate::registry::Family::Stale {
        return None;
    }
    let cite = CiteRef {
        doc: f.doc,
        index: f.cite?,
    };
    report.implied.get(&cite).copied()
}

/// The slots whose edits overlap no other's in their doc (an edit equal to one taken is
/// shared), and the rest, for a later batch.
fn batch(pending: Vec<Slot>) -> (Vec<Slot>, Vec<Slot>) {
    let mut taken: BTreeMap<DocId, Taken> = BTreeMap::new();
    let (mut now, mut later) = (Vec::new(), Vec::new());
    for s in pending {
        let edits = taken.entry(s.doc).or_default();
        if s.edits().any(|e| edits.clashes(e)) {
            later.push(s);
        } else {
            s.edits().for_each(|e| edits.take(e));
            now.push(s);
        }
    }
    (now, later)
}

/// The edits a batch has taken in one doc, by where they are: none overlaps another, so in
/// this order their ends never go back, and an edit is checked against its neighbours only.
#[derive(Default)]
struct Taken(BTreeMap<(usize, usize), Vec<Edit>>);

impl Taken {
    /// Whether `e` overlaps a taken edit other than itself.
    fn clashes(&self, e: &Edit) -> bool {
        let before_end = self.0.range(..(e.byte_end, 0)).rev();
        let mut near = before_end.take_while(|((_, end), _)| *end > e.byte_start);
        near.any(|(_, taken)| taken.iter().any(|t| t != e && t.overlaps(e)))
    }

    fn take(&mut self, e: &Edit) {
        self.0
            .entry((e.byte_start, e.byte_end))
            .or_default()
            .push(e.clone());
    }
}

/// `text` with `edits` applied (none overlap; equal ones count once), and where each edit's
/// replacement is in the new text, in the order of `edits`.
fn rewrite(text: &str, edits: &[&Edit]) -> (String, Vec<Span>) {
    let mut order: Vec<usize> = (0..edits.len()).collect();
    order.sort_by_key(|&i| (edits[i].byte_start, edits[i].byte_end));
    let mut out = String::with_capacity(text.len());
    let mut outputs = vec![Span::new(0, 0); edits.len()];
    let mut at = 0;
    let mut last: Option<(&Edit, Span)> = None;
    for i in order {
        let e = edits[i];
        if let Some((prev, span)) = last.filter(|(p, _)| *p == e) {
            debug_assert!(prev == e);
            outputs[i] = span;
            continue;
        }
        out.push_str(&text[at..e.byte_start]);
        let span = Span::new(out.len(), out.len() + e.replacement.len());
        out.push_str(&e.replacement);
        at = e.byte_end;
        outputs[i] = span;
        last = Some((e, span));
    }
    out.push_str(&text[at..]);
    (out, outputs)
}

/// One rewritten doc and its re-audit.
struct Rechecked<'a> {
    /// The doc's text before its fixes.
    before: &'a str,
    /// The doc rewritten and extracted again.
    after: &'a AuditedDoc,
    /// Its citations by where they are written.
    places: ByPlace,
    /// The re-audit's findings on it that say a citation is wrong.
    failing: &'a [&'a Finding],
    /// Where in `failing` the findings about each citation are: its own, and those of the claims
    /// it supports.
    on: HashMap<CiteId, Vec<usize>>,
}

impl Rechecked<'_> {
    /// The verdict on one slot: `outputs` are where its edits' replacements are in the
    /// rewritten text.
    fn judge(&self, slot: &Slot, outputs: &[Span]) -> Judged {
        let (mut wrong, mut left) = (Vec::new(), Vec::new());
        for out in &outputs[..slot.fixes.len()] {
            let cites = self.written(*out);
            if cites.is_empty() {
                return Judged::Unread;
            }
            let mut near: Vec<usize> = (cites.iter())
                .filter_map(|c| self.on.get(c))
                .flatten()
                .copied()
                .collect();
            near.sort_unstable();
            near.dedup();
            let (older, failing): (Vec<&Finding>, Vec<&Finding>) = (near.into_iter())
                .map(|i| self.failing[i])
                .filter(|f| self.about(f, &cites))
                .partition(|f| slot.known.contains(&self.identity(f, outputs)));
            left.extend(older.iter().map(|f| f.rule));
            if !failing.is_empty() {
                wrong.push((*out, cites, failing));
            }
        }
        let Some((_, _, failing)) = wrong.first() else {
            left.sort();
            left.dedup();
            return Judged::Holds(left);
        };
        let f = failing[0];
        let why = format!("`{}`: {}", f.rule.as_str(), f.message);
        if let ([fix], [(out, cites, failing)]) = (slot.fixes.as_slice(), wrong.as_slice()) {
            if let Some(next) = self.compose_with(fix, *out, cites, failing) {
                let stale = failing[0].rule.info().family == crate::registry::Family::Stale;
                return Judged::Again(vec![next], !stale, why);
            }
        }
        Judged::Fails(why)
    }

    fn written(&self, out: Span) -> BTreeSet<CiteId> {
        self.places.written(out)
    }

    /// A finding on the rewritten doc as [`Slot::known`] names one.
    fn identity(&self, f: &Finding, outputs: &[Span]) -> (RuleId, Option<String>) {
        (f.rule, outside(&self.after.doc.text, f.span, outputs))
    }

    /// Whether finding `f` is about one of `cites`, or about a claim that rests on them alone (a
    /// literal of a claim with other citations may be theirs to support).
    fn about(&self, f: &Finding, cites: &BTreeSet<CiteId>) -> bool {
        match (f.cite, f.claim) {
            (Some(c), _) => cites.contains(&c),
            (None, Some(claim)) => {
                let on = &self.after.extracted.claims[claim].citations;
                !on.is_empty() && on.iter().all(|c| cites.contains(c))
            }
            (None, None) => false,
        }
    }

    /// When the one failing finding on the rewritten citation carries a safe fix: that fix
    /// composed with `fix`, as one edit of the original doc.
    fn compose_with(
        &self,
        fix: &Fix,
        out: Span,
        cites: &BTreeSet<CiteId>,
        failing: &[&Finding],
    ) -> Option<Fix> {
        let [second] = failing else { return None };
        let next = second.safe_fix()?;
        if cites.len() != 1 || !second.cite.is_some_and(|c| cites.contains(&c)) {
            return None;
        }
        let edit = compose(
            self.before,
            &fix.edit,
            out,
            &next.edit,
            &self.after.doc.text,
        )?;
        Some(Fix {
            edit,
            cite: fix.cite,
            applicability: fix.applicability,
            ..next.clone()
        })
    }
}

/// A rewritten Markdown doc with only what decides the citations its fixes wrote (`outputs`),
/// every other line blanked to spaces, so that byte offsets hold and extraction is cheap: the
/// front matter (a doc pin), link reference definitions, and around each fix the paragraph that
/// holds it, the one before (a `Sources:` list backs the paragraph before it) and a code fence
/// within two lines after (its quote), fences kept whole. `Err(text)` (the doc as it is, to be
/// extracted whole) when a kept block starts indented: its container (a list, a quote) would be
/// blanked and the block read as something else.
fn window(text: String, outputs: &[Span]) -> Result<String, String> {
    let lines: Vec<(usize, &str)> = (text.split_inclusive('\n'))
        .scan(0, |at, l| {
            let start = *at;
            *at += l.len();
            Some((start, l))
        })
        .collect();
    let n = lines.len();
    let blank = |i: usize| lines[i].1.trim().is_empty();
    let line_of = |offset: usize| {
        let after = lines.partition_point(|&(s, _)| s <= offset);
        after.saturating_sub(1)
    };
    let fences = fences(&lines);
    let runs = Runs::of(n, blank);
    // What is kept, as a count of the ranges over each line (added at a range's first line,
    // taken off after its last): marking is linear in the lines and the outputs, however long
    // the paragraphs (a list of 12,000 fixed citations is one).
    let mut cover = vec![0i64; n + 1];
    let mut mark = |from: usize, to: usize| {
        cover[from] += 1;
        cover[to + 1] -= 1;
    };
    for out in outputs {
        let (first, last) = (line_of(out.start), line_of(out.end.max(out.start + 1) - 1));
        let mut from = first;
        for skip_blank in [false, true, false] {
            if from > 0 && blank(from - 1) == skip_blank {
                from = runs.start[from - 1];
            }
        }
        let mut to = last;
        if to + 1 < n && !blank(to + 1) {
            to = runs.end[to + 1];
        }
        mark(from, to);
        // The fences it overlaps, or that open within three lines after it (fences are in
        // order and disjoint: those are one run of them).
        let near = fences.partition_point(|&(_, b)| b < from);
        for &(a, b) in fences[near..].iter().take_while(|&&(a, _)| a <= to + 3) {
            mark(a, b);
        }
    }
    if text.starts_with("---") {
        let end = (1..n)
            .find(|&i| lines[i].1.trim_end() == "---")
            .unwrap_or(0);
        mark(0, end);
    }
    for (i, (_, l)) in lines.iter().enumerate() {
        let t = l.trim_start();
        if l.len() - t.len() <= 3 && t.starts_with('[') && t.contains("]:") {
            mark(i, i);
        }
    }
    let keep: Vec<bool> = (cover.iter())
        .scan(0i64, |sum, d| {
            *sum += d;
            Some(*sum > 0)
        })
        .take(n)
        .collect();
    let starts_block = |i: usize| keep[i] && (i == 0 || !keep[i - 1]);
    let indented = |i: usize| lines[i].1.starts_with([' ', '\t']) && !blank(i);
    if (0..n).any(|i| starts_block(i) && indented(i)) {
        return Err(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, (_, l)) in lines.iter().enumerate() {
        if keep[i] {
            out.push_str(l);
            continue;
        }
        let body = l.trim_end_matches(['\n', '\r']);
        out.extend(std::iter::repeat_n(' ', body.len()));
        out.push_str(&l[body.len()..]);
    }
    Ok(out)
}

/// A rewritten JSON-lines doc with only the answers its fixes wrote in (`outputs`): every
/// other line blanked to spaces (a blank line is no answer), offsets kept.
fn answer_lines(text: String, outputs: &[Span]) -> String {
    let mut starts: Vec<usize> = outputs.iter().map(|o| o.start).collect();
    starts.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for l in text.split_inclusive('\n') {
        let (start, end) = (at, at + l.len());
        at = end;
        let first = starts.partition_point(|&o| o < start);
        if starts.get(first).is_some_and(|&o| o < end) {
            out.push_str(l);
            continue;
        }
        let body = l.trim_end_matches(['\n', '\r']);
        out.extend(std::iter::repeat_n(' ', body.len()));
        out.push_str(&l[body.len()..]);
    }
    out
}

/// Where in `failing` (findings on the doc `after`) the findings about each citation are: a
/// citation's own, and each claim's under every citation of the claim. A fix's verdict then
/// looks at the findings near what it wrote, not at every finding of the doc.
fn on_citations(after: &AuditedDoc, failing: &[&Finding]) -> HashMap<CiteId, Vec<usize>> {
    let mut on: HashMap<CiteId, Vec<usize>> = HashMap::new();
    for (i, f) in failing.iter().enumerate() {
        let claim = f.claim.map(|c| &after.extracted.claims[c].citations);
        for c in f.cite.iter().chain(claim.into_iter().flatten()) {
            on.entry(*c).or_default().push(i);
        }
    }
    on
}

/// For each line, the first and last line of the run of lines it is in (blank lines, or lines
/// that are not blank), found in one pass.
struct Runs {
    start: Vec<usize>,
    end: Vec<usize>,
}

impl Runs {
    fn of(n: usize, blank: impl Fn(usize) -> bool) -> Runs {
        let mut start = vec![0; n];
        for i in 1..n {
            start[i] = if blank(i) == blank(i - 1) {
                start[i - 1]
            } else {
                i
            };
        }
        let mut end = vec![n.saturating_sub(1); n];
        for i in (0..n.saturating_sub(1)).rev() {
            end[i] = if blank(i) == blank(i + 1) {
                end[i + 1]
            } else {
                i
            };
        }
        Runs { start, end }
    }
}

/// The fenced code blocks of `lines`, as (opening line, closing line); one left open runs to
/// the end.
fn fences(lines: &[(usize, &str)]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open: Option<(usize, char)> = None;
    for (i, (_, l)) in lines.iter().enumerate() {
        let t = l.trim_start();
        let marker = ['`', '~'].into_iter().find(|&m| t.starts_with(&[m; 3][..]));
        match (open, marker) {
            (None, Some(m)) if l.len() - t.len() <= 3 => open = Some((i, m)),
            (Some((from, m)), Some(c)) if c == m && t.trim_end().chars().all(|x| x == m) => {
                out.push((from, i));
                open = None;
            }
            _ => {}
        }
    }
    if let Some((from, _)) = open {
        out.push((from, lines.len().saturating_sub(1)));
    }
    out
}

/// A doc's citations by where they are written, to find those an edit's output touches
/// without looking at each (a doc with 12,000 fixes would be scanned 12,000 times).
struct ByPlace {
    /// Each citation's span (an empty one counted as its first byte), by start.
    spans: Vec<(Span, CiteId)>,
    /// The furthest end of the spans up to each one: every span before the first whose reach
    /// passes a point ends at or before it.
    reach: Vec<usize>,
}

impl ByPlace {
    fn of(ext: &Extracted) -> ByPlace {
        let mut spans: Vec<(Span, CiteId)> = (ext.citations.enumerated())
            .map(|(id, c)| {
                (
                    Span::new(c.span.start, c.span.end.max(c.span.start + 1)),
                    id,
                )
            })
            .collect();
        spans.sort_by_key(|&(s, id)| (s.start, id));
        let reach = (spans.iter())
            .scan(0, |far, (s, _)| {
                *far = s.end.max(*far);
                Some(*far)
            })
            .collect();
        ByPlace { spans, reach }
    }

    /// The citations of the rewritten doc that a replacement at `out` wrote.
    fn written(&self, out: Span) -> BTreeSet<CiteId> {
        let end = out.end.max(out.start + 1);
        let before = self.spans.partition_point(|(s, _)| s.start < end);
        let from = self.reach[..before].partition_point(|&r| r <= out.start);
        (self.spans[from..before].iter())
            .filter(|(s, _)| out.start < s.end)
            .map(|&(_, id)| id)
            .collect()
    }
}

/// `first` (an edit of `before`) then `second` (an edit of the rewritten text `after`, where
/// `first`'s replacement is at `out`) as one edit of `before`. The bytes of `after` between
/// `out` and `second` must be `before`'s own, next to `first` (checked): otherwise `None`.
fn compose(before: &str, first: &Edit, out: Span, second: &Edit, after: &str) -> Option<Edit> {
    let start = out.start.min(second.byte_start);
    let end = out.end.max(second.byte_end);
    let from = first.byte_start.checked_sub(out.start - start)?;
    let to = first.byte_end + (end - out.end);
    let same = |a: Option<&str>, b: Option<&str>| a.is_some() && a == b;
    let kept = same(
        before.get(from..first.byte_start),
        after.get(start..out.start),
    ) && same(before.get(first.byte_end..to), after.get(out.end..end));
    if !kept {
        return None;
    }
    let mut replacement = after.get(start..second.byte_start)?.to_string();
    replacement.push_str(&second.replacement);
    replacement.push_str(after.get(second.byte_end..end)?);
    Some(Edit {
        replacement,
        byte_start: from,
        byte_end: to,
    })
}

/// Put the verdicts in the report: checked fixes (a composed one replaces the first), and, for
/// a fix that fails, no fix and why in the help (a pin move: blocked, with why).
/// How a re-check ended: the fix holds (leaving these older problems as they were), or why not.
type Verdict = Result<Vec<RuleId>, String>;

fn write_back(report: &mut Report, decided: Vec<(Slot, Verdict)>) {
    let mut dropped_repins = BTreeSet::new();
    for (slot, verdict) in decided {
        match (slot.holder, verdict) {
            (Holder::Finding(i), Ok(left)) => {
                let f = &mut report.findings[i];
                f.fix = slot.fixes.into_iter().next();
                leaves(f, &left);
            }
            (Holder::Finding(i), Err(why)) => refuse(&mut report.findings[i], &why),
            (Holder::Repin(i), Err(_)) => {
                dropped_repins.insert(i);
            }
            (Holder::PinMove(i), Err(why)) => report.pin_moves[i]
                .blocked_by
                .push(format!("re-checked at the target, it would fail: {why}")),
            (Holder::Repin(_) | Holder::PinMove(_), Ok(_)) => {}
        }
    }
    let mut i = 0;
    report.repins.retain(|_| {
        i += 1;
        !dropped_repins.contains(&(i - 1))
    });
    report.summary = Summary::of(&report.findings, &report.docs);
}

/// Say in the help of a finding whose fix holds what the fix leaves as it was.
fn leaves(f: &mut Finding, left: &[RuleId]) {
    if left.is_empty() || f.fix.is_none() {
        return;
    }
    let rules: Vec<String> = left.iter().map(|r| format!("`{}`", r.as_str())).collect();
    let note = format!(
        "the fix leaves {} as it was (reported before the fix too)",
        rules.join(", ")
    );
    f.help = Some(match f.help.take() {
        Some(help) => format!("{help}; {note}"),
        None => note,
    });
}

/// The finding without its fix, and why in its help.
fn refuse(f: &mut Finding, why: &str) {
    let Some(fix) = f.fix.take() else { return };
    let to = match fix.start_line {
        0 => fix.path.clone(),
        s => format!(
            "{}:{}",
            fix.path,
            crate::model::LineRange::new(s, fix.end_line)
        ),
    };
    let note = format!("no fix: re-cited as `{to}` it would still fail at the target ({why})");
    f.help = Some(match f.help.take() {
        Some(help) => format!("{help}; {note}"),
        None => note,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_keeps_offsets_and_what_decides_the_fixed_citation() {
        let text = "---\ncitegate: {rev: abc}\n---\n\nFar away: src/x.rs:1.\n\nThe claim.\n\nSee src/a.rs:2\n```rust\nfn a() {}\n\n```\n\nAfter: src/y.rs:3.\n[r]: src/b.rs\n".to_string();
        let at = text.find("src/a.rs:2").unwrap();
        let out = Span::new(at, at + "src/a.rs:2".len());
        let kept = window(text.clone(), &[out]).unwrap();
        assert_eq!(kept.len(), text.len());
        assert_eq!(&kept[out.start..out.end], "src/a.rs:2");
        for part in [
            "citegate: {rev: abc}",
            "The claim.",
            "fn a() {}\n\n```",
            "[r]: src/b.rs",
        ] {
            assert!(kept.contains(part), "{part}: {kept:?}");
        }
        assert!(
            !kept.contains("Far away") && !kept.contains("After"),
            "{kept:?}"
        );
        // A kept block that starts indented (in a list item whose marker is not kept) is not
        // windowed.
        let listed = "- item\n\n    more\n\n    See src/a.rs:2\n".to_string();
        let at = listed.find("src/a.rs").unwrap();
        assert!(window(listed, &[Span::new(at, at + 10)]).is_err());
    }

    /// A small seeded generator: the oracle tests below compare with a scan of everything.
    fn numbers(seed: u64) -> impl FnMut(usize) -> usize {
        let mut x = seed;
        move |below| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % below as u64) as usize
        }
    }

    #[test]
    fn the_citations_an_output_touches_are_those_a_scan_of_all_finds() {
        // Issue 61: every output was compared with every citation (12,000 fixes in one doc
        // took 13-15x the time of 3,000). Spans nested, overlapping, empty, in no order.
        let mut n = numbers(7);
        for _ in 0..50 {
            let mut ext = Extracted::default();
            let spans: Vec<Span> = (0..40)
                .map(|_| {
                    let start = n(200);
                    Span::new(start, start + n(12))
                })
                .collect();
            for &span in &spans {
                let c = crate::model::Citation::new(
                    crate::model::Syntax::Bare,
                    span,
                    "a.rs",
                    crate::model::CitedPath::Repo("a.rs".into()),
                );
                ext.citations.push(c);
            }
            let places = ByPlace::of(&ext);
            for _ in 0..40 {
                let start = n(210);
                let out = Span::new(start, start + n(8));
                let end = out.end.max(out.start + 1);
                let scan: BTreeSet<CiteId> = (ext.citations.enumerated())
                    .filter(|(_, c)| {
                        c.span.start < end && out.start < c.span.end.max(c.span.start + 1)
                    })
                    .map(|(id, _)| id)
                    .collect();
                assert_eq!(places.written(out), scan, "{out:?} in {spans:?}");
            }
        }
    }

    #[test]
    fn an_edit_clashes_with_the_taken_edits_a_scan_of_all_finds() {
        let mut n = numbers(11);
        let edit = |start: usize, len: usize, r: usize| Edit {
            replacement: ["x", "y"][r].to_string(),
            byte_start: start,
            byte_end: start + len,
        };
        for _ in 0..50 {
            let (mut taken, mut all) = (Taken::default(), Vec::new());
            for _ in 0..60 {
                let e = edit(n(100), n(4), n(2));
                let scan = all.iter().any(|t: &Edit| t != &e && t.overlaps(&e));
                assert_eq!(taken.clashes(&e), scan, "{e:?} against {all:?}");
                if !scan {
                    taken.take(&e);
                    all.push(e);
                }
            }
        }
    }

    #[test]
    fn a_window_over_one_long_paragraph_keeps_it_whole() {
        let text: String = (0..500)
            .map(|i| format!("- item {i} (a.rs:{i})\n"))
            .collect();
        let outputs: Vec<Span> = (0..500)
            .step_by(7)
            .map(|i| {
                let at = text.find(&format!("(a.rs:{i})")).unwrap();
                Span::new(at + 1, at + 6)
            })
            .collect();
        assert_eq!(window(text.clone(), &outputs).unwrap(), text);
        let two = format!("{text}\nfar away\n\nfarther\n");
        let kept = window(two, &outputs[..1]).unwrap();
        assert!(kept.starts_with(&text) && !kept.contains("far"), "{kept:?}");
    }

    #[test]
    fn answer_lines_keep_the_fixed_answers_only() {
        let text = "{\"a\": 1}\n{\"b\": 2}\r\n{\"c\": 3}".to_string();
        let at = text.find("\"b\"").unwrap();
        let kept = answer_lines(text.clone(), &[Span::new(at, at + 3)]);
        assert_eq!(kept, "        \n{\"b\": 2}\r\n        ");
    }
}
