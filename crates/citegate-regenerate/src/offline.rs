//! Re-grounding one JSON answer offline: move what can be moved (safe fixes, content found exactly
//! once at the target), gate the result at the target, refuse the rest. A `{summary, citations}`
//! answer is kept, re-grounded or refused whole; a `{summary, claims}` answer claim by claim, a
//! claim that cannot be grounded moving to `open_questions`. Nothing is dropped: a refused
//! answer keeps its old text under `stale`.

use git2::Oid;
use serde_json::Value;

use super::ground::{self, Located};
use super::outcome::{Decision, Kind, Moved, Outcome, Place, Reason, Refusal};
use citegate_engine::contract::{self, KeptAs, RefusalReason};
use citegate_engine::gate::{self, Retrieval, Violation};
use citegate_engine::model::report::short_id;
use citegate_engine::model::{AnswerId, AnswerUnit, CiteId, DocId, Finding, Fix, Retrieved, Span};
use citegate_engine::registry::RuleId;
use citegate_engine::resolve::CodeRepo;

/// What every answer of a run shares.
pub struct Ctx<'a> {
    pub repo: &'a CodeRepo,
    pub target: Oid,
    /// The run's gate (its settings): every candidate passes it or is refused.
    pub gate: &'a gate::Gate<'a>,
    pub located: &'a Located,
}

/// One answer to re-ground: where it is, its JSON, its units (as the audit extracted them) and
/// its failing findings.
pub struct Pending<'r> {
    pub doc: DocId,
    pub name: String,
    pub answer: AnswerId,
    /// Where the answer is written in its doc (the rewritten answer replaces it).
    pub span: Span,
    pub value: Value,
    pub units: &'r [AnswerUnit],
    pub findings: Vec<&'r Finding>,
    /// Safe fixes of its citations: the findings' own, and those that move with its pin.
    pub fixes: Vec<&'r Fix>,
    /// What each failing citation cited (filled before `locate`).
    pub contents: Vec<(CiteId, Vec<String>)>,
    /// The chunks retrieved at the target for this answer (indices into the index), as a
    /// payload, and as `path:start-end` for a refusal's `searched`.
    pub chunks: Vec<usize>,
    pub retrieved: Vec<Retrieved>,
    pub searched: Vec<String>,
    /// The answer's own `retrieved` payload, as the audit read it: the record of what the model
    /// that wrote it saw, kept as written and checked against, never swapped for the target's.
    pub own: Option<Vec<Retrieved>>,
}

impl Pending<'_> {
    /// The failing findings about citation `cite`.
    fn findings_of(&self, cite: CiteId) -> Vec<&Finding> {
        let of = |f: &&&Finding| f.cite == Some(cite);
        self.findings.iter().filter(of).copied().collect()
    }

    /// The failing findings of `unit`: every one of the answer's for the answer itself, the
    /// claim's own for a claim.
    fn findings_of_unit<'a>(&'a self, unit: &'a AnswerUnit) -> impl Iterator<Item = &'a Finding> {
        let whole = unit.claim_at.is_none();
        let of = move |f: &&&Finding| whole || f.claim == Some(unit.claim);
        self.findings.iter().filter(of).copied()
    }

    /// Fill `contents`: the quote or span text of every citation object with a failing finding.
    pub fn read_contents(&mut self, repo: &CodeRepo, git: &git2::Repository) {
        let mut contents = Vec::new();
        let objects = self.units.iter().flat_map(|u| &u.objects);
        for (cite, object) in objects.filter_map(|o| Some((o.cite?, o))) {
            let fs = self.findings_of(cite);
            if fs.is_empty() || ground::decided(&fs, self.fix_of(cite)) {
                continue;
            }
            let value = self
                .value
                .pointer(&object.pointer())
                .unwrap_or(&Value::Null);
            let quote = value.get("quote").and_then(Value::as_str);
            contents.push((cite, ground::contents(repo, git, quote, &fs)));
        }
        self.contents = contents;
    }

    fn contents(&self, cite: CiteId) -> &[String] {
        self.contents
            .iter()
            .find(|(c, _)| *c == cite)
            .map_or(&[], |(_, c)| c.as_slice())
    }

    fn fix_of(&self, cite: CiteId) -> Option<&Fix> {
        self.fixes.iter().find(|f| f.cite == Some(cite)).copied()
    }

    /// The answer pinned at the target; its own `retrieved` is kept as written.
    pub fn at_target(&self, ctx: &Ctx) -> Value {
        let mut v = self.value.clone();
        if let Some(o) = v.as_object_mut() {
            let key = citegate_engine::contract::PIN_KEYS
                .into_iter()
                .find(|k| o.contains_key(*k))
                .unwrap_or("revision");
            o.insert(key.into(), Value::String(ctx.target.to_string()));
        }
        v
    }

    /// What an offline candidate is checked against: the answer's own payload (an answer that
    /// cited outside what its model saw is not re-grounded by swapping in the target's).
    pub fn payload(&self) -> Option<&[Retrieved]> {
        self.own.as_deref()
    }

    /// An outcome of the answer, accounting for `findings`.
    fn outcome<'f>(
        &self,
        decision: Decision,
        findings: impl Iterator<Item = &'f Finding>,
    ) -> Outcome {
        let mut o = Outcome::new(Place::answer(&self.name, self.answer.index()), decision);
        o.findings = findings.map(|f| f.at.fingerprint.clone()).collect();
        o
    }
}

/// One answer's work item: the answer to re-ground and, once decided, its new JSON and what
/// happened to it (one outcome per answer, or per claim). Each stage (offline, retrieval, the
/// model) updates the item itself: no list of results kept beside the list of answers.
pub struct Work<'r> {
    pub pending: Pending<'r>,
    pub value: Value,
    pub outcomes: Vec<Outcome>,
}

impl<'r> Work<'r> {
    /// Every answer of `pending`, decided offline, their candidates gated in one batch.
    pub fn all(ctx: &Ctx, pending: Vec<Pending<'r>>) -> Vec<Work<'r>> {
        let decided = decide(ctx, pending.iter());
        (pending.into_iter().zip(decided))
            .map(|(pending, (value, outcomes))| Work {
                pending,
                value,
                outcomes,
            })
            .collect()
    }

    /// Decide the answers `which` again (after retrieval: a refusal says what was searched).
    pub fn redo(ctx: &Ctx, work: &mut [Work], which: &[usize]) {
        let decided = decide(ctx, which.iter().map(|&i| &work[i].pending));
        for (&i, (value, outcomes)) in which.iter().zip(decided) {
            (work[i].value, work[i].outcomes) = (value, outcomes);
        }
    }

    /// Whether any of its outcomes is a refusal.
    pub fn refused(&self) -> bool {
        self.outcomes.iter().any(|o| o.kind() == Kind::Refused)
    }
}

/// How the offline pass puts its candidates to the gate. Deciding an answer is run twice: the
/// first time each candidate it would put to the gate is recorded (and taken as passing; that
/// run's result is dropped), then every recorded candidate of the run is checked in one batch
/// (one audit: each cited blob read and line-indexed once for all answers), and the second time
/// each candidate is answered with its verdict, in the order recorded. Deciding is deterministic
/// and no candidate depends on an earlier verdict, so both runs make the same candidates.
enum Gating<'p> {
    Record(Vec<(&'p str, String, Retrieval<'p>)>),
    Replay(std::vec::IntoIter<Vec<Violation>>),
}

impl<'p> Gating<'p> {
    /// The gate's verdict on `answer` (the doc `name`), or none yet while recording.
    fn check(&mut self, name: &'p str, answer: &Value, retrieval: Retrieval<'p>) -> Vec<Violation> {
        match self {
            Gating::Record(asked) => {
                let text = serde_json::to_string(answer).unwrap_or_default();
                asked.push((name, text, retrieval));
                Vec::new()
            }
            Gating::Replay(verdicts) => verdicts.next().expect("a verdict per candidate"),
        }
    }
}

/// The re-grounded answers of `pending` and what happened to each, in parallel, every candidate
/// of every answer gated in one batch (see [`Gating`]).
fn decide<'p, 'r: 'p>(
    ctx: &Ctx,
    pending: impl Iterator<Item = &'p Pending<'r>>,
) -> Vec<(Value, Vec<Outcome>)> {
    use rayon::prelude::*;
    let pending: Vec<&Pending> = pending.collect();
    let asked: Vec<Vec<(&str, String, Retrieval)>> = (pending.par_iter())
        .map(|p| {
            let mut gating = Gating::Record(Vec::new());
            regenerate(ctx, p, &mut gating);
            match gating {
                Gating::Record(asked) => asked,
                Gating::Replay(_) => unreachable!("recording"),
            }
        })
        .collect();
    let counts: Vec<usize> = asked.iter().map(Vec::len).collect();
    let batch = (asked.iter().flatten())
        .map(|(name, text, retrieval)| (*name, text.as_str(), *retrieval))
        .collect();
    let mut verdicts = ctx.gate.check_each(batch).into_iter();
    let per_answer: Vec<Vec<Vec<Violation>>> = (counts.iter())
        .map(|&n| verdicts.by_ref().take(n).collect())
        .collect();
    (pending.par_iter().zip(per_answer))
        .map(|(p, verdicts)| regenerate(ctx, p, &mut Gating::Replay(verdicts.into_iter())))
        .collect()
}

/// The re-grounded answer and what happened to it (one outcome per answer, or per claim).
fn regenerate<'p>(ctx: &Ctx, p: &'p Pending, gating: &mut Gating<'p>) -> (Value, Vec<Outcome>) {
    match p.units.first() {
        Some(unit) if unit.claim_at.is_none() => whole(ctx, p, unit, gating),
        _ => claims(ctx, p, gating),
    }
}

/// Move the failing citation objects of `unit` inside `value` (whose pointers are relative to
/// `base`); `Err` says why one cannot move. A failing finding of the unit that is about none of
/// its citation objects (a literal, an object that gives no citation, a citation in its prose)
/// cannot be moved away.
fn move_cites(
    ctx: &Ctx,
    p: &Pending,
    unit: &AnswerUnit,
    base: &str,
    value: &mut Value,
) -> Result<Vec<Moved>, String> {
    let mut moved = Vec::new();
    let in_objects = |f: &Finding| {
        unit.objects
            .iter()
            .any(|o| o.cite.is_some() && o.cite == f.cite)
    };
    if let Some(f) = p.findings_of_unit(unit).find(|f| !in_objects(f)) {
        return Err(format!("{}: {}", f.rule, f.message));
    }
    for (cite, object) in unit.objects.iter().filter_map(|o| Some((o.cite?, o))) {
        let fs = p.findings_of(cite);
        if fs.is_empty() {
            continue;
        }
        let fix = p.fix_of(cite);
        let (path, lines) = ground::relocate(&fs, fix, p.contents(cite), ctx.located)?;
        let full = object.pointer();
        let pointer = full.strip_prefix(base).unwrap_or(&full);
        let Some(object) = value.pointer_mut(pointer) else {
            continue;
        };
        let from = citegate_engine::contract::cited(object);
        citegate_engine::contract::repoint(object, &path, lines);
        moved.push(Moved {
            from,
            to: citegate_engine::contract::cited(object),
        });
    }
    Ok(moved)
}

/// `{summary, citations}`: every citation moves and the answer passes the gate, or it is refused.
fn whole<'p>(
    ctx: &Ctx,
    p: &'p Pending,
    unit: &AnswerUnit,
    gating: &mut Gating<'p>,
) -> (Value, Vec<Outcome>) {
    let mut candidate = p.at_target(ctx);
    let refused = |why: String, violations: Vec<Violation>| {
        let outside = violations.iter().any(|v| v.rule == RuleId::NotRetrieved);
        let reason = match unit.objects.is_empty() || outside {
            true => RefusalReason::NoSpanInRetrieval,
            false => RefusalReason::StaleIndex,
        };
        let refusal = Refusal {
            searched: p.searched.clone(),
            violations,
            ..Refusal::new(Reason::refused(reason), why)
        };
        let o = p.outcome(Decision::Refused(refusal), p.findings.iter().copied());
        let at_target = p.at_target(ctx);
        let value = contract::refusal(&p.value, &at_target, reason, &p.searched, KeptAs::Stale);
        (value, vec![o])
    };
    let moved = match move_cites(ctx, p, unit, "", &mut candidate) {
        Ok(moved) => moved,
        Err(why) => return refused(why, Vec::new()),
    };
    let violations = gating.check(&p.name, &candidate, Retrieval::of(p.payload()));
    if !violations.is_empty() {
        let why = match violations.iter().any(|v| v.rule == RuleId::NotRetrieved) {
            true => "it cites outside its own retrieval (what its model saw), which re-grounding \
                     cannot change"
                .into(),
            false => "the re-grounded answer fails the gate".into(),
        };
        return refused(why, violations);
    }
    let regrounded = Decision::Regrounded { moved, model: None };
    let o = p.outcome(regrounded, p.findings.iter().copied());
    (candidate, vec![o])
}

/// `{summary, claims, open_questions}`: each claim is re-grounded and gated on its own; a claim
/// that cannot be grounded moves to `open_questions`.
fn claims<'p>(ctx: &Ctx, p: &'p Pending, gating: &mut Gating<'p>) -> (Value, Vec<Outcome>) {
    let mut answer = p.at_target(ctx);
    let old: Vec<Value> = answer
        .get("claims")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut kept = Vec::new();
    let mut open: Vec<Value> = answer
        .get("open_questions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut outcomes = Vec::new();
    let short = short_id(ctx.target);
    for (j, unit) in p.units.iter().enumerate() {
        let Some(claim) = old.get(j) else { continue };
        let mut claim = claim.clone();
        let base = unit.pointer().unwrap_or_default();
        let moved = move_cites(ctx, p, unit, &base, &mut claim);
        let violations = match &moved {
            Ok(_) => gating.check(
                &p.name,
                &one_claim(&answer, &claim),
                Retrieval::of(p.payload()),
            ),
            Err(_) => Vec::new(),
        };
        let decision = match moved {
            Ok(moved) if violations.is_empty() => {
                kept.push(claim);
                match moved.is_empty() {
                    true => Decision::Kept { hygiene: None },
                    false => Decision::Regrounded { moved, model: None },
                }
            }
            failed => {
                let why = failed
                    .err()
                    .unwrap_or_else(|| "the claim fails the gate".into());
                let text = old[j]
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                open.push(Value::String(format!(
                    "Not grounded at {short}: {text} (cited {})",
                    citegate_engine::contract::cited(&old[j])
                )));
                Decision::Refused(Refusal {
                    violations,
                    searched: p.searched.clone(),
                    ..Refusal::new(Reason::StaleIndex, why)
                })
            }
        };
        let mut o = p.outcome(decision, p.findings_of_unit(unit));
        o.at.claim = Some(j);
        outcomes.push(o);
    }
    if let Some(o) = answer.as_object_mut() {
        o.insert("claims".into(), Value::Array(kept));
        o.insert("open_questions".into(), Value::Array(open));
    }
    (answer, outcomes)
}

/// The answer with only `claim`, for gating one claim on its own.
fn one_claim(answer: &Value, claim: &Value) -> Value {
    let mut a = answer.clone();
    if let Some(o) = a.as_object_mut() {
        o.insert("claims".into(), Value::Array(vec![claim.clone()]));
        o.insert("open_questions".into(), Value::Array(Vec::new()));
    }
    a
}
