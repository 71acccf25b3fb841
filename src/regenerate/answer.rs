//! Re-grounding one JSON answer offline: move what can be moved (safe fixes, content found exactly
//! once at the target), gate the result at the target, refuse the rest. A `{summary, citations}`
//! answer is kept, re-grounded or refused whole; a `{summary, claims}` answer claim by claim, a
//! claim that cannot be grounded moving to `open_questions`. Nothing is dropped: a refused
//! answer keeps its old text under `stale`.

use git2::Oid;
use serde_json::Value;

use super::gate::{self, Retrieval, Violation};
use super::ground::{self, Located, Unit};
use super::outcome::{Kind, Moved, Outcome};
use crate::model::{Finding, Fix, Retrieved, Span};
use crate::registry::RuleId;
use crate::resolve::CodeRepo;

/// What every answer of a run shares.
pub struct Ctx<'a> {
    pub repo: &'a CodeRepo,
    pub target: Oid,
    /// The run's gate (its settings): every candidate passes it or is refused.
    pub gate: &'a gate::Gate<'a>,
    pub located: &'a Located,
}

/// One answer to re-ground: where it is, its JSON, its units and its failing findings.
pub struct Pending<'r> {
    pub doc: usize,
    pub name: String,
    pub answer: usize,
    pub span: Span,
    pub value: Value,
    pub units: Vec<Unit>,
    pub findings: Vec<&'r Finding>,
    /// Safe fixes of its citations: the findings' own, and those that move with its pin.
    pub fixes: Vec<&'r Fix>,
    /// What each failing citation object cited, by pointer (filled before `locate`).
    pub contents: Vec<(String, Vec<String>)>,
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
    fn findings_in(&self, span: Span) -> Vec<&Finding> {
        self.findings
            .iter()
            .copied()
            .filter(|f| ground::within(f.span, span))
            .collect()
    }

    /// Fill `contents`: the quote or span text of every citation object with a failing finding.
    pub fn read_contents(&mut self, repo: &CodeRepo, git: &git2::Repository) {
        let mut contents = Vec::new();
        for cite in self.units.iter().flat_map(|u| &u.cites) {
            let fs = self.findings_in(cite.span);
            if fs.is_empty() {
                continue;
            }
            let object = self.value.pointer(&cite.pointer).unwrap_or(&Value::Null);
            let quote = object.get("quote").and_then(Value::as_str);
            contents.push((
                cite.pointer.clone(),
                ground::contents(repo, git, quote, &fs),
            ));
        }
        self.contents = contents;
    }

    fn contents(&self, pointer: &str) -> &[String] {
        self.contents
            .iter()
            .find(|(p, _)| p == pointer)
            .map_or(&[], |(_, c)| c.as_slice())
    }

    fn fix_in(&self, span: Span) -> Option<&Fix> {
        let inside = |f: &&&Fix| f.edit.within(span);
        self.fixes.iter().find(inside).copied()
    }

    /// The answer pinned at the target; its own `retrieved` is kept as written.
    pub fn at_target(&self, ctx: &Ctx) -> Value {
        let mut v = self.value.clone();
        if let Some(o) = v.as_object_mut() {
            let key = crate::answer::PIN_KEYS
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

    fn outcome(&self, kind: Kind) -> Outcome {
        let mut o = Outcome::new(&self.name, kind);
        o.answer = Some(self.answer);
        o
    }
}

/// The re-grounded answer and what happened to it (one outcome per answer, or per claim).
pub fn regenerate(ctx: &Ctx, p: &Pending) -> (Value, Vec<Outcome>) {
    match p.units.first() {
        Some(unit) if unit.pointer.is_none() => whole(ctx, p, unit),
        _ => claims(ctx, p),
    }
}

/// Move the failing citation objects of `unit` inside `value` (whose pointers are relative to
/// `base`); `Err` says why one cannot move.
fn move_cites(
    ctx: &Ctx,
    p: &Pending,
    unit: &Unit,
    base: &str,
    value: &mut Value,
) -> Result<Vec<Moved>, String> {
    let mut moved = Vec::new();
    let in_cites = |f: &&Finding| unit.cites.iter().any(|c| ground::within(f.span, c.span));
    if let Some(f) = p.findings_in(unit.span).into_iter().find(|f| !in_cites(f)) {
        return Err(format!("{}: {}", f.rule, f.message));
    }
    for cite in &unit.cites {
        let fs = p.findings_in(cite.span);
        if fs.is_empty() {
            continue;
        }
        let fix = p.fix_in(cite.span);
        let (path, lines) = ground::relocate(&fs, fix, p.contents(&cite.pointer), ctx.located)?;
        let pointer = cite.pointer.strip_prefix(base).unwrap_or(&cite.pointer);
        let Some(object) = value.pointer_mut(pointer) else {
            continue;
        };
        let from = ground::cited(object);
        ground::repoint(object, &path, lines);
        moved.push(Moved {
            from,
            to: ground::cited(object),
        });
    }
    Ok(moved)
}

/// `{summary, citations}`: every citation moves and the answer passes the gate, or it is refused.
fn whole(ctx: &Ctx, p: &Pending, unit: &Unit) -> (Value, Vec<Outcome>) {
    let mut candidate = p.at_target(ctx);
    let refused = |why: String, violations: Vec<Violation>| {
        let outside = violations
            .iter()
            .any(|v| v.rule == RuleId::NotRetrieved.as_str());
        let reason = match unit.cites.is_empty() || outside {
            true => "no_span_in_retrieval",
            false => "stale_index",
        };
        let mut o = p.outcome(Kind::Refused);
        o.reason = Some(reason.to_string());
        o.why = Some(why);
        o.searched = p.searched.clone();
        o.violations = violations;
        let value = gate::refusal(&p.value, &p.at_target(ctx), reason, &p.searched, "stale");
        (value, vec![o])
    };
    let moved = match move_cites(ctx, p, unit, "", &mut candidate) {
        Ok(moved) => moved,
        Err(why) => return refused(why, Vec::new()),
    };
    let violations = ctx
        .gate
        .check(&p.name, &candidate, Retrieval::of(p.payload()));
    if !violations.is_empty() {
        let why = match violations
            .iter()
            .any(|v| v.rule == RuleId::NotRetrieved.as_str())
        {
            true => "it cites outside its own retrieval (what its model saw), which re-grounding \
                     cannot change"
                .into(),
            false => "the re-grounded answer fails the gate".into(),
        };
        return refused(why, violations);
    }
    let mut o = p.outcome(Kind::Regrounded);
    o.moved = moved;
    (candidate, vec![o])
}

/// `{summary, claims, open_questions}`: each claim is re-grounded and gated on its own; a claim
/// that cannot be grounded moves to `open_questions`.
fn claims(ctx: &Ctx, p: &Pending) -> (Value, Vec<Outcome>) {
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
    let short = &ctx.target.to_string()[..7];
    for (j, unit) in p.units.iter().enumerate() {
        let Some(claim) = old.get(j) else { continue };
        let mut claim = claim.clone();
        let base = unit.pointer.as_deref().unwrap_or_default();
        let moved = move_cites(ctx, p, unit, base, &mut claim);
        let violations = match &moved {
            Ok(_) => ctx.gate.check(
                &p.name,
                &one_claim(&answer, &claim),
                Retrieval::of(p.payload()),
            ),
            Err(_) => Vec::new(),
        };
        let mut o = p.outcome(Kind::Kept);
        o.claim = Some(j);
        match moved {
            Ok(moved) if violations.is_empty() => {
                if !moved.is_empty() {
                    o.outcome = Kind::Regrounded;
                }
                o.moved = moved;
                kept.push(claim);
            }
            failed => {
                o.outcome = Kind::Refused;
                o.reason = Some("stale_index".into());
                o.why = Some(
                    failed
                        .err()
                        .unwrap_or_else(|| "the claim fails the gate".into()),
                );
                o.violations = violations;
                o.searched = p.searched.clone();
                let text = old[j]
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                open.push(Value::String(format!(
                    "Not grounded at {short}: {text} (cited {})",
                    ground::cited(&old[j])
                )));
            }
        }
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
